/*
 * ibsmd: an InfiniBand subnet manager. One instance drives one local port:
 * it discovers the fabric, assigns LIDs, routes, programs the switches and
 * keeps the subnet up. Foreground, one libev loop.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <ev.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "ctl.h"
#include "log.h"
#include "mad.h"
#include "routing.h"
#include "sminfo.h"
#include "sweep.h"
#include "transport.h"

/* Exit codes (documented in ibsmd(8)). */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_LOCKED = 3 };

struct daemon {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct sminfo *sm;
	struct sweep *sweep;
	struct ctl *ctl;
	ev_signal sig_term, sig_int, sig_hup, sig_usr1;
	bool once;
	bool ready_sent;
	int exit_code;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
"usage: ibsmd [options]\n"
"  -g, --guid GUID            port to drive (default: the first InfiniBand port)\n"
"  -o, --once                 one sweep until the subnet is up, then exit 0\n"
"  -s, --sweep-interval SEC   light sweep period in seconds (default 10; 0 = off)\n"
"  -d, --state-dir DIR        state (guid2lid, stats) (default " IBSMD_STATEDIR "/<port-guid>)\n"
"  -r, --runtime-dir DIR      lock and control socket (default " IBSMD_RUNDIR ")\n"
"  -R, --routing-engine LIST  routing engines to try in order (default minhop)\n"
"  -p, --priority N           SM priority 0-15 (default 0)\n"
"  -l, --log-level LEVEL      error, warn, info or debug (default info)\n"
"  -f, --log-file FILE        log to FILE, 'syslog' or '-' for stderr (default -)\n"
"      --max-wire-smps N      SMPs outstanding overall (default 64)\n"
"      --max-smps-per-node N  SMPs outstanding to one node (default 4)\n"
"      --smp-timeout MS       time to wait for an SMP answer (default 200)\n"
"      --smp-retries N        retries of an unanswered SMP (default 3)\n"
"  -h, --help                 this help\n"
"  -V, --version              print the version\n");
}

static int
parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return (errno || *s == '\0' || *end != '\0' || *s == '-' || *out > max) ?
	    -1 : 0;
}

static int
parse_routing(char *list, struct sweep_opts *o)
{
	char *save = NULL, *name;

	o->nchain = 0;
	for (name = strtok_r(list, ", ", &save); name != NULL;
	    name = strtok_r(NULL, ", ", &save)) {
		const struct routing_engine *re = routing_engine_find(name);

		if (re == NULL) {
			fprintf(stderr, "ibsmd: unknown routing engine '%s'\n",
			    name);
			return -1;
		}
		if (o->nchain == SWEEP_MAX_ENGINES) {
			fprintf(stderr, "ibsmd: at most %d routing engines\n",
			    SWEEP_MAX_ENGINES);
			return -1;
		}
		o->chain[o->nchain++] = re;
	}
	return o->nchain ? 0 : -1;
}

static int
mkdirs(const char *path, mode_t mode)
{
	char buf[4096], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* One instance per port: an flock on <runtime-dir>/<guid>.lock, released by
 * the kernel however we exit. Returns the fd, -1 on error, -2 when held. */
static int
take_lock(const char *dir, uint64_t guid)
{
	char path[4096], pid[32];
	int fd;

	if (mkdirs(dir, 0755) < 0) {
		log_warn("cannot create %s", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/0x%016" PRIx64 ".lock", dir, guid);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		log_warn("cannot open %s", path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = read(fd, pid, sizeof(pid) - 1);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		fprintf(stderr, "ibsmd: port 0x%016" PRIx64 " is already driven "
		    "by another ibsmd (pid %s, lock %s)\n", guid,
		    pid[0] ? pid : "?", path);
		close(fd);
		return -2;
	}
	if (ftruncate(fd, 0) == 0) {
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (write(fd, pid, strlen(pid)) < 0)
			log_debug("cannot write pid to %s", path);
	}
	return fd;
}

static void
on_up(void *arg, bool ok, const char *why)
{
	struct daemon *d = arg;

	if (d->once) {
		d->exit_code = ok ? EXIT_OK : EXIT_FAIL;
		if (!ok)
			fprintf(stderr, "ibsmd: subnet not up: %s\n", why);
		ev_break(d->loop, EVBREAK_ALL);
		return;
	}
#ifdef HAVE_LIBSYSTEMD
	if (ok && !d->ready_sent) {
		sd_notify(0, "READY=1\nSTATUS=MASTER, subnet up");
		d->ready_sent = true;
	}
#endif
}

static void
on_trap(void *arg, unsigned trap, uint16_t issuer)
{
	struct daemon *d = arg;

	(void)issuer;
	/* Link state changes (128) and port capability changes (144) can
	 * change the topology or what must be programmed. */
	if (trap == 128 || trap == 144)
		sweep_request(d->sweep, true);
}

static void
on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	switch (w->signum) {
	case SIGTERM:
	case SIGINT:
		log_info("signal %d: exiting", w->signum);
		ev_break(loop, EVBREAK_ALL);
		break;
	case SIGHUP:
		log_info("SIGHUP: heavy sweep");
		sweep_request(d->sweep, true);
		break;
	case SIGUSR1:
		if (log_reopen() < 0)
			log_warn("cannot reopen the log file");
		break;
	}
}

static void
watch_signal(struct daemon *d, ev_signal *w, int signum)
{
	ev_signal_init(w, on_signal, signum);
	w->data = d;
	ev_signal_start(d->loop, w);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "guid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, 'o' },
		{ "sweep-interval", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "runtime-dir", required_argument, NULL, 'r' },
		{ "routing-engine", required_argument, NULL, 'R' },
		{ "priority", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-file", required_argument, NULL, 'f' },
		{ "max-wire-smps", required_argument, NULL, 1 },
		{ "max-smps-per-node", required_argument, NULL, 2 },
		{ "smp-timeout", required_argument, NULL, 3 },
		{ "smp-retries", required_argument, NULL, 4 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon d = { .exit_code = EXIT_OK };
	struct mad_opts mo = { .max_wire = 64, .max_per_node = 4,
	    .timeout_ms = 200, .retries = 3 };
	struct sweep_opts so = {
		.interval = 10, .lmc = 0,
		.prog = { .subnet_prefix = 0xfe80000000000000ULL, .mkey = 0,
		    .mkey_lease = 0, .mkey_protect = 0, .lmc = 0,
		    .subnet_timeout = 18, .packet_life = 0x12 },
	};
	const char *log_file = NULL, *state_dir = NULL;
	const char *runtime_dir = IBSMD_RUNDIR;
	char routing[256] = "minhop", state_buf[4096];
	enum log_level level = LOG_LVL_INFO;
	uint64_t guid = 0;
	unsigned long v;
	unsigned priority = 0;
	char *end;
	int ch, lock_fd;

	while ((ch = getopt_long(argc, argv, "g:os:d:r:R:p:l:f:hV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'g':
			errno = 0;
			guid = strtoull(optarg, &end, 0);
			if (errno || *end != '\0' || guid == 0) {
				fprintf(stderr, "ibsmd: bad port GUID '%s'\n",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			d.once = true;
			break;
		case 's':
			so.interval = strtod(optarg, &end);
			if (*end != '\0' || so.interval < 0 ||
			    so.interval > 86400) {
				fprintf(stderr, "ibsmd: bad sweep interval '%s' "
				    "(seconds, 0-86400)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			state_dir = optarg;
			break;
		case 'r':
			runtime_dir = optarg;
			break;
		case 'R':
			snprintf(routing, sizeof(routing), "%s", optarg);
			break;
		case 'p':
			if (parse_uint(optarg, 15, &v) < 0) {
				fprintf(stderr, "ibsmd: bad priority '%s' "
				    "(0-15)\n", optarg);
				return EXIT_USAGE;
			}
			priority = (unsigned)v;
			break;
		case 'l':
			if (log_level_parse(optarg, &level) < 0) {
				fprintf(stderr, "ibsmd: bad log level '%s' "
				    "(error, warn, info, debug)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f':
			log_file = optarg;
			break;
		case 1: case 2: case 3: case 4:
			if (parse_uint(optarg, ch == 4 ? 20 : 100000, &v) < 0 ||
			    (ch != 4 && v == 0)) {
				fprintf(stderr, "ibsmd: bad value '%s' for --%s\n",
				    optarg, longopts[ch + 8].name);
				return EXIT_USAGE;
			}
			if (ch == 1)
				mo.max_wire = (unsigned)v;
			else if (ch == 2)
				mo.max_per_node = (unsigned)v;
			else if (ch == 3)
				mo.timeout_ms = (unsigned)v;
			else
				mo.retries = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_routing(routing, &so) < 0)
		return EXIT_USAGE;
	if (log_init("ibsmd", log_file, level) < 0) {
		fprintf(stderr, "ibsmd: cannot open log %s: %s\n", log_file,
		    strerror(errno));
		return EXIT_FAIL;
	}

	if (transport_resolve(guid, &guid) < 0) {
		fprintf(stderr, "ibsmd: cannot find the port to drive%s\n",
		    guid ? "" : " (no InfiniBand port)");
		if (guid)
			fprintf(stderr, "ibsmd: no port with GUID 0x%016" PRIx64
			    "\n", guid);
		return EXIT_FAIL;
	}
	lock_fd = take_lock(runtime_dir, guid);
	if (lock_fd < 0)
		return lock_fd == -2 ? EXIT_LOCKED : EXIT_FAIL;
	if (state_dir == NULL) {
		snprintf(state_buf, sizeof(state_buf), "%s/0x%016" PRIx64,
		    IBSMD_STATEDIR, guid);
		state_dir = state_buf;
	}
	if (mkdirs(state_dir, 0755) < 0) {
		log_warn("cannot create state directory %s", state_dir);
		return EXIT_FAIL;
	}
	so.state_dir = state_dir;
	so.max_failures = d.once ? 3 : 1;

	signal(SIGPIPE, SIG_IGN);
	d.loop = ev_default_loop(EVFLAG_AUTO);
	d.mad = mad_engine_new(d.loop, guid, &mo);
	if (d.mad == NULL) {
		fprintf(stderr, "ibsmd: cannot open port 0x%016" PRIx64 "\n",
		    guid);
		return EXIT_FAIL;
	}
	if (transport_claim_sm(mad_engine_transport(d.mad)) < 0)
		log_warnx("cannot set IsSM on the port; other nodes may not "
		    "find this SM");
	d.sm = sminfo_new(d.mad, (uint8_t)priority, on_trap, &d);
	d.sweep = sweep_new(d.loop, d.mad, d.sm, &so, on_up, &d);
	{
		struct ctl_deps cd = { .sweep = d.sweep, .mad = d.mad,
		    .sm = d.sm, .port_guid = guid, .priority = (uint8_t)priority,
		    .arg = &d };
		char sock[4200];

		snprintf(sock, sizeof(sock), "%s/0x%016" PRIx64 ".sock",
		    runtime_dir, guid);
		if ((d.ctl = ctl_open(d.loop, sock, &cd)) == NULL)
			log_warnx("no control socket: ibsmctl cannot reach "
			    "this instance");
	}
	watch_signal(&d, &d.sig_term, SIGTERM);
	watch_signal(&d, &d.sig_int, SIGINT);
	watch_signal(&d, &d.sig_hup, SIGHUP);
	watch_signal(&d, &d.sig_usr1, SIGUSR1);
	log_info("ibsmd %s on port 0x%016" PRIx64 ", state in %s", PACKAGE_VERSION,
	    guid, state_dir);
	sweep_request(d.sweep, true);

	ev_run(d.loop, 0);

	if (d.once && d.exit_code == EXIT_OK) {
		char line[256];

		sweep_summary(d.sweep, line, sizeof(line));
		printf("ibsmd: subnet up: %s\n", line);
	}
	ctl_close(d.ctl);
	sweep_free(d.sweep);
	sminfo_free(d.sm);
	mad_engine_free(d.mad);
	ev_loop_destroy(d.loop);
	close(lock_fd);
	log_fini();
	return d.exit_code;
}
