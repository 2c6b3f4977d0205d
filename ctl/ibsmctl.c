/*
 * ibsmctl: ask a running ibsmd what it is doing, or tell it to sweep,
 * reload or change its log level, through its control socket
 * <runtime-dir>/0x<port-guid>.sock (protocol in sm/ctl.h).
 *
 * Exit status: 0 the daemon answered ok, 1 it answered an error, 2 bad
 * usage (including several instances and no --guid), 3 no daemon could be
 * reached or it did not answer.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include "ctl/commands.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_UNREACHABLE = 3 };

#define MAX_WORDS 6             /* command and its arguments */
#define MAX_REQUEST 4096        /* what the daemon accepts, newline included */

static void
usage(FILE *fp)
{
	char cmd[64];

	fprintf(fp,
"usage: ibsmctl [options] command [arguments]\n"
"options (before or after the command):\n"
"  -g, --guid GUID         the ibsmd of this port (default: the only one)\n"
"  -r, --runtime-dir DIR   where the sockets are (default " IBSMD_RUNDIR ")\n"
"  -j, --json              answer in JSON, for scripts\n"
"  -t, --timeout SEC       wait at most SEC seconds for the answer (30)\n"
"  -h, --help              this help\n"
"  -V, --version           print the version\n"
"commands:\n");
	for (size_t i = 0; i < CTL_NCMDS; i++) {
		snprintf(cmd, sizeof(cmd), "%s%s", ctl_commands[i].name,
		    ctl_commands[i].args);
		fprintf(fp, "  %-22s  %s\n", cmd, ctl_commands[i].doc);
	}
	fprintf(fp,
"nodes are named by LID, GUID or name (node_name_map, else the description);\n"
"nodes and ports also take a shell pattern (quote it: 'leaf*')\n"
"exit status: 0 answered, 1 the daemon refused (an unknown node, sweeps off...),\n"
"2 bad usage (or several instances and no --guid), 3 no daemon reachable\n");
}

static int __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ibsmctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: ibsmctl [options] command [arguments] "
	    "(ibsmctl -h for more)\n");
	return EXIT_USAGE;
}

/* Append word to the request (size len), in double quotes when the
 * daemon would otherwise split or misread it. Returns -1 when it does not
 * fit. */
static int
add_word(char *req, size_t len, const char *w)
{
	bool quote = *w == '\0' || *w == '"' || strpbrk(w, " \t") != NULL;
	size_t n = strlen(req), need = (n > 0) + strlen(w) + (quote ? 2 : 0);
	const char *c;

	if (quote)
		for (c = w; *c; c++)
			need += *c == '"' || *c == '\\';
	if (n + need + 1 > len)
		return -1;
	if (n > 0)
		req[n++] = ' ';
	if (quote)
		req[n++] = '"';
	for (c = w; *c; c++) {
		if (quote && (*c == '"' || *c == '\\'))
			req[n++] = '\\';
		req[n++] = *c;
	}
	if (quote)
		req[n++] = '"';
	req[n] = '\0';
	return 0;
}

/* The socket to talk to: the one of guid, or the only one in dir. */
static int
pick_socket(const char *dir, uint64_t guid, char *path, size_t len)
{
	struct dirent *de;
	struct stat st;
	char **names = NULL, full[4096];
	size_t n = 0, i, l;
	DIR *d;
	int rc = EXIT_OK;

	if (guid != 0) {
		snprintf(path, len, "%s/0x%016" PRIx64 ".sock", dir, guid);
		return EXIT_OK;
	}
	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			fprintf(stderr, "ibsmctl: no ibsmd running (no socket "
			    "in %s)\n", dir);
		else
			fprintf(stderr, "ibsmctl: cannot read %s: %s\n", dir,
			    strerror(errno));
		return EXIT_UNREACHABLE;
	}
	while ((de = readdir(d)) != NULL) {
		l = strlen(de->d_name);
		if (l <= 5 || strcmp(de->d_name + l - 5, ".sock") != 0)
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		if (lstat(full, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if ((names = realloc(names, (n + 1) * sizeof(*names))) ==
		    NULL || (names[n] = strdup(de->d_name)) == NULL) {
			perror("ibsmctl");
			exit(EXIT_ERROR);
		}
		n++;
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr, "ibsmctl: no ibsmd running (no socket in "
		    "%s)\n", dir);
		rc = EXIT_UNREACHABLE;
	} else if (n == 1)
		snprintf(path, len, "%s/%s", dir, names[0]);
	else {
		qsort(names, n, sizeof(*names),
		    (int (*)(const void *, const void *))strcmp);
		fprintf(stderr, "ibsmctl: %zu ibsmd instances in %s; choose "
		    "one with --guid:\n", n, dir);
		for (i = 0; i < n; i++)
			fprintf(stderr, "  %.*s\n", (int)strlen(names[i]) - 5,
			    names[i]);
		rc = EXIT_USAGE;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Send the request, read the whole answer into *ans. */
static int
converse(const char *path, const char *req, double timeout, char **ans,
    size_t *anslen)
{
	struct sockaddr_un sun;
	struct timeval tv;
	size_t len = strlen(req), off = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "ibsmctl: socket path %s is too long\n", path);
		return EXIT_UNREACHABLE;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		perror("ibsmctl: socket");
		return EXIT_UNREACHABLE;
	}
	tv.tv_sec = (time_t)timeout;
	tv.tv_usec = (suseconds_t)((timeout - (double)tv.tv_sec) * 1e6);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "ibsmctl: no ibsmd running (no socket "
			    "%s)\n", path);
		else if (errno == ECONNREFUSED)
			fprintf(stderr, "ibsmctl: ibsmd is not running (stale "
			    "socket %s)\n", path);
		else if (errno == EACCES || errno == EPERM)
			fprintf(stderr, "ibsmctl: %s: permission denied (the "
			    "control socket is root's)\n", path);
		else
			fprintf(stderr, "ibsmctl: cannot connect to %s: %s\n",
			    path, strerror(errno));
		close(fd);
		return EXIT_UNREACHABLE;
	}
	while (off < len) {
		n = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ibsmctl: cannot send to %s: %s\n",
			    path, strerror(errno));
			close(fd);
			return EXIT_UNREACHABLE;
		}
		off += (size_t)n;
	}
	off = 0;
	for (;;) {
		if (cap - off < 4096) {
			cap = cap ? 2 * cap : 65536;
			if ((buf = realloc(buf, cap + 1)) == NULL) {
				perror("ibsmctl");
				exit(EXIT_ERROR);
			}
		}
		n = recv(fd, buf + off, cap - off, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				fprintf(stderr, "ibsmctl: no answer from %s "
				    "within %g s\n", path, timeout);
			else
				fprintf(stderr, "ibsmctl: cannot read from "
				    "%s: %s\n", path, strerror(errno));
			free(buf);
			close(fd);
			return EXIT_UNREACHABLE;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	*ans = buf;
	*anslen = off;
	return EXIT_OK;
}

/* Whether argv[*i] is the option lng (or shrt), given as "--opt value",
 * "--opt=value" or "-o value": 1 with *val set, 0 if it is another
 * argument, -1 if its value is missing. */
static int
opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
    const char **val)
{
	const char *a = argv[*i];
	size_t l = strlen(lng);

	if (strncmp(a, lng, l) == 0 && a[l] == '=') {
		*val = a + l + 1;
		return 1;
	}
	if (strcmp(a, lng) != 0 && strcmp(a, shrt) != 0)
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

int
main(int argc, char *argv[])
{
	const char *dir = IBSMD_RUNDIR, *words[MAX_WORDS], *v;
	const struct ctl_command *cmd;
	char req[MAX_REQUEST + 1], path[4200], *ans = NULL, *body, *end;
	bool json = false, heavy = false, opts_done = false;
	double timeout = 30;
	uint64_t guid = 0;
	size_t nwords = 0, anslen = 0, i;
	int rc, o;

	for (int a = 1; a < argc; a++) {
		const char *arg = argv[a];

		if (opts_done || arg[0] != '-' || arg[1] == '\0') {
			if (nwords == MAX_WORDS)
				return usage_error("too many arguments (%s)",
				    arg);
			words[nwords++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0)
			opts_done = true;
		else if (strcmp(arg, "-j") == 0 || strcmp(arg, "--json") == 0)
			json = true;
		else if (strcmp(arg, "--heavy") == 0)
			heavy = true;
		else if (strcmp(arg, "-h") == 0 ||
		    strcmp(arg, "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		} else if (strcmp(arg, "-V") == 0 ||
		    strcmp(arg, "--version") == 0) {
			printf("ibsmctl %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		} else if ((o = opt_value(argc, argv, &a, "--guid", "-g",
		    &v)) != 0) {
			if (o < 0)
				return usage_error("%s needs a value", arg);
			errno = 0;
			guid = strtoull(v, &end, 0);
			if (errno || *end != '\0' || *v == '-' || guid == 0)
				return usage_error("bad port GUID '%s'", v);
		} else if ((o = opt_value(argc, argv, &a, "--runtime-dir",
		    "-r", &v)) != 0) {
			if (o < 0)
				return usage_error("%s needs a value", arg);
			dir = v;
		} else if ((o = opt_value(argc, argv, &a, "--timeout", "-t",
		    &v)) != 0) {
			if (o < 0)
				return usage_error("%s needs a value", arg);
			timeout = strtod(v, &end);
			if (*end != '\0' || !(timeout > 0 && timeout <= 86400))
				return usage_error("bad timeout '%s' "
				    "(seconds)", v);
		} else
			return usage_error("unknown option '%s'", arg);
	}
	if (nwords == 0)
		return usage_error("no command");
	if ((cmd = ctl_command_find(words[0])) == NULL)
		return usage_error("unknown command '%s'", words[0]);
	if (heavy && (cmd != &ctl_commands[CTL_CMD_SWEEP] || nwords > 1))
		return usage_error("--heavy goes with sweep alone");
	if ((int)nwords - 1 < cmd->min || (int)nwords - 1 > cmd->max) {
		fprintf(stderr, "usage: ibsmctl [options] %s%s\n", cmd->name,
		    cmd->args);
		return EXIT_USAGE;
	}

	/* The daemon takes printable ASCII only (node descriptions included),
	 * MAX_REQUEST bytes with the newline. */
	for (i = 0; i < nwords; i++)
		for (v = words[i]; *v; v++)
			if (((unsigned char)*v < 0x20 && *v != '\t') ||
			    (unsigned char)*v >= 0x7F)
				return usage_error("'%s' is not printable "
				    "ASCII", words[i]);
	req[0] = '\0';
	add_word(req, MAX_REQUEST, json ? "json" : "text");
	for (i = 0; i < nwords; i++)
		if (add_word(req, MAX_REQUEST, words[i]) < 0)
			return usage_error("request too long");
	if (heavy && add_word(req, MAX_REQUEST, "heavy") < 0)
		return usage_error("request too long");
	strcat(req, "\n");

	if ((rc = pick_socket(dir, guid, path, sizeof(path))) != EXIT_OK)
		return rc;
	if ((rc = converse(path, req, timeout, &ans, &anslen)) != EXIT_OK)
		return rc;

	body = memchr(ans, '\n', anslen);
	if (body == NULL) {
		fprintf(stderr, "ibsmctl: %s from %s\n", anslen ?
		    "unexpected answer" : "no answer (connection dropped)",
		    path);
		free(ans);
		return EXIT_UNREACHABLE;
	}
	*body++ = '\0';
	anslen -= (size_t)(body - ans);
	if (strcmp(ans, "ok") == 0) {
		fwrite(body, 1, anslen, stdout);
		rc = fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK :
		    EXIT_ERROR;
	} else if (strcmp(ans, "error") == 0) {
		fprintf(stderr, "ibsmctl: %.*s%s", (int)anslen, body,
		    anslen && body[anslen - 1] == '\n' ? "" : "\n");
		rc = EXIT_ERROR;
	} else {
		fprintf(stderr, "ibsmctl: unexpected answer from %s\n", path);
		rc = EXIT_UNREACHABLE;
	}
	free(ans);
	return rc;
}
