/*
 * ibsmd: an InfiniBand subnet manager. One instance drives one local port:
 * it discovers the fabric, assigns LIDs, routes, programs the switches and
 * keeps the subnet up. Foreground, one libev loop.
 *
 * This file starts things: the command line, the configuration checked
 * and loaded (sm/reload.h: built-in defaults < /etc/ibsmd/ibsmd.conf <
 * the per-instance /etc/ibsmd/ibsmd.<port-guid>.conf (or only -c FILE) <
 * the command line; the partition policy from partitions_file; at start a
 * mistake stops us), the lock, the modules created in order with the
 * daemon's callbacks (sm/daemon.h) and freed in reverse, and the signals.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <ev.h>

#include "config/config.h"
#include "config/opensm.h"
#include "core/log.h"
#include "core/nodemap.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "mad/transport.h"
#include "mcast/group.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "routing/routing.h"
#include "sa/sa.h"
#include "sm/ctl.h"
#include "sm/daemon.h"
#include "sm/mkeys.h"
#include "sm/devread.h"
#include "sm/perfmgr.h"
#include "sm/metrics.h"
#include "sm/mcast.h"
#include "sm/reload.h"
#include "sm/sdnotify.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/upkeep.h"
#include "sm/vfguid.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
"usage: ibsmd [options]\n"
"  -c, --config FILE          read only FILE (default: DIR/ibsmd.conf, then\n"
"                             DIR/ibsmd.<port-guid>.conf)\n"
"      --config-dir DIR       where those two live (default " IBSMD_SYSCONFDIR ")\n"
"  -n, --check                check configuration and partitions, then exit\n"
"  -v, --verbose              with -n: print both, normalized\n"
"  -g, --guid GUID            port to drive (default: the first InfiniBand port)\n"
"  -o, --once                 sweep until the subnet is up, then exit 0 (1:\n"
"                             not up, naming what could not be reached)\n"
"  -s, --sweep-interval SEC   light sweep period, 0.1 to 86400 seconds (default\n"
"                             10; 0 = off)\n"
"  -d, --state-dir DIR        state (guid2lid, alias_guids, stats) (default " IBSMD_STATEDIR "/<port-guid>)\n"
"  -r, --runtime-dir DIR      lock and control socket (default " IBSMD_RUNDIR ")\n"
"  -R, --routing-engine LIST  routing engines to try in order (default\n"
"                             ftree,updn): ftree, updn, minhop, dfsssp\n"
"  -P, --partitions FILE      partitions.conf (default " IBSMD_SYSCONFDIR "/partitions.conf)\n"
"      --allow-both-pkeys     '=both' members get full and limited P_Keys\n"
"      --partition-enforcement MODE  both, in, out or off (default both)\n"
"      --virtualization MODE  SR-IOV: off, disabled or enabled (default off)\n"
"  -p, --priority N           SM priority 0-15 (default 0)\n"
"  -l, --log-level LEVEL      error, warn, info or debug (default info)\n"
"  -f, --log-file FILE        log to FILE, 'syslog' or '-' for stderr (default -)\n"
"      --max-wire-smps N      SMPs outstanding overall (default 64)\n"
"      --max-smps-per-node N  SMPs outstanding to one node (default 4)\n"
"      --smp-timeout MS       time to wait for an SMP answer (default 200)\n"
"      --smp-retries N        retries of an unanswered SMP (default 3)\n"
"  -O, --option NAME=VALUE    set any ibsmd.conf option (repeatable)\n"
"      --list-ports           print the port GUIDs of the instances to run\n"
"      --convert-opensm-conf FILE  print FILE (an opensm.conf) as an ibsmd.conf\n"
"  -h, --help                 this help\n"
"  -V, --version              print the version\n");
}

/* Errors, then the notes on values read another way than written. */
static void
print_errors(const struct config_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(stderr, "%s\n", e->line[i]);
	for (size_t i = 0; i < e->nnotes; i++)
		fprintf(stderr, "%s\n", e->note[i]);
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
	char path[4200], pid[32];
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

/* A STATUS= before exiting on a start failure (the journal has the rest). */
static void __attribute__((format(printf, 1, 2)))
notify_failure(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sdnotify_status(line);
}

/* Leaving: the standby took the subnet (or the wait is over). */
static void
on_left(void *arg, bool handed)
{
	struct daemon *d = arg;

	log_info("%s: exiting", handed ? "subnet handed over" :
	    "no standby took the subnet");
	ev_break(d->loop, EVBREAK_ALL);
}

static void
on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	switch (w->signum) {
	case SIGTERM:
	case SIGINT:
		/* A master with a standby hands the subnet over first (a
		 * few seconds at most): a planned stop then costs no more
		 * than a handover. A second signal exits at once. */
		if (!d->leaving && !d->once &&
		    smstate_leave(d->ss, on_left, d)) {
			d->leaving = true;
			log_info("signal %d: handing the subnet to a standby "
			    "before exiting", w->signum);
			break;
		}
		log_info("signal %d: exiting", w->signum);
		ev_break(loop, EVBREAK_ALL);
		break;
	case SIGHUP:
		log_info("SIGHUP: reloading configuration and partitions");
		if (reload_run(d, NULL) < 0)
			sweep_request(d->sweep, true);
		break;
	case SIGUSR1:
		if (log_reopen() < 0)
			log_warn_all("SIGUSR1: cannot reopen the log file %s; "
			    "still writing to the one open before",
			    d->cfg.log_file);
		else
			log_info("SIGUSR1: log file %s reopened",
			    d->cfg.log_file);
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

/* A policy file (what: "partitions", "QoS policy") refused at start: its
 * errors on stderr and in systemd's STATUS=. Returns the exit status. */
static int
refused(const char *what, const char *file, const struct pkey_errors *pe,
    const struct config_errors *ce)
{
	char *t = pkey_errors_text(pe, false);

	print_errors(ce);
	fprintf(stderr, "%sibsmd: %s rejected; not starting\n", t ? t : "",
	    file);
	notify_failure("%s rejected: %s (%zu error%s); not starting", what,
	    file, pe->nerrors + ce->n, pe->nerrors + ce->n == 1 ? "" : "s");
	free(t);
	return EXIT_USAGE;
}

static void
on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	sdnotify("WATCHDOG=1");
}

/* systemd's watchdog is fed from the loop itself: a stuck loop is what
 * it should catch. */
static void
start_watchdog(struct daemon *d)
{
	uint64_t usec = sdnotify_watchdog_usec();

	if (usec == 0)
		return;
	ev_timer_init(&d->watchdog, on_watchdog, 0., usec / 2e6);
	ev_timer_again(d->loop, &d->watchdog);
}

static int
add_cli(struct daemon *d, const char *name, const char *value)
{
	if (d->ncli == MAX_CLI) {
		fprintf(stderr, "ibsmd: too many options\n");
		return -1;
	}
	d->cli[d->ncli].name = name;
	d->cli[d->ncli].value = value;
	d->ncli++;
	return 0;
}

static int
parse_args(struct daemon *d, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "guid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, 'o' },
		{ "sweep-interval", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "runtime-dir", required_argument, NULL, 'r' },
		{ "routing-engine", required_argument, NULL, 'R' },
		{ "partitions", required_argument, NULL, 'P' },
		{ "priority", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-file", required_argument, NULL, 'f' },
		{ "option", required_argument, NULL, 'O' },
		{ "max-wire-smps", required_argument, NULL, 1 },
		{ "max-smps-per-node", required_argument, NULL, 2 },
		{ "smp-timeout", required_argument, NULL, 3 },
		{ "smp-retries", required_argument, NULL, 4 },
		{ "allow-both-pkeys", no_argument, NULL, 5 },
		{ "partition-enforcement", required_argument, NULL, 6 },
		{ "list-ports", no_argument, NULL, 7 },
		{ "config-dir", required_argument, NULL, 8 },
		{ "virtualization", required_argument, NULL, 9 },
		{ "convert-opensm-conf", required_argument, NULL, 10 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char guidbuf[32];
	const char *name;
	char *eq, *end;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "c:nvg:os:d:r:R:P:p:l:f:O:hV",
	    longopts, NULL)) != -1) {
		name = NULL;
		switch (ch) {
		case 'c': d->config_file = optarg; break;
		case 'n': d->check = true; break;
		case 'v': d->verbose = true; break;
		case 'o': d->once = true; break;
		case 7: d->list_ports = true; break;
		case 8: d->config_dir = optarg; break;
		case 'g': {
			/* The schema wants 0x-hex; accept decimal too. */
			unsigned long long g;

			errno = 0;
			g = strtoull(optarg, &end, 0);
			if (errno || *end != '\0' || *optarg == '-') {
				fprintf(stderr, "ibsmd: bad port GUID '%s'\n",
				    optarg);
				return -1;
			}
			snprintf(guidbuf, sizeof(guidbuf), "0x%016llx", g);
			rc |= add_cli(d, "port_guid", guidbuf);
			break;
		}
		case 's': name = "sweep_interval"; break;
		case 'd': name = "state_dir"; break;
		case 'r': name = "runtime_dir"; break;
		case 'R': name = "routing_engine"; break;
		case 'P': name = "partitions_file"; break;
		case 'p': name = "sm_priority"; break;
		case 'l': name = "log_level"; break;
		case 'f': name = "log_file"; break;
		case 1: name = "max_wire_smps"; break;
		case 2: name = "max_smps_per_node"; break;
		case 3: name = "smp_timeout"; break;
		case 4: name = "smp_retries"; break;
		case 5: rc |= add_cli(d, "allow_both_pkeys", "true"); break;
		case 6: name = "partition_enforcement"; break;
		case 9: name = "virtualization.mode"; break;
		case 10: d->convert = optarg; break;
		case 'O':
			if ((eq = strchr(optarg, '=')) == NULL) {
				fprintf(stderr, "ibsmd: -O wants NAME=VALUE, not "
				    "'%s'\n", optarg);
				return -1;
			}
			*eq = '\0';
			rc |= add_cli(d, optarg, eq + 1);
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			exit(EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
		if (name != NULL)
			rc |= add_cli(d, name, optarg);
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	return rc;
}

/* --list-ports: the GUIDs ibsmd.service starts an instance for. */
static int
list_ports(const struct ibsmd_config *cfg)
{
	uint64_t guids[256], g;
	int n;

	if (cfg->ports.all) {
		if ((n = transport_list(guids, 256)) < 0)
			return EXIT_FAIL;
		for (int i = 0; i < n && i < 256; i++)
			printf("0x%016" PRIx64 "\n", guids[i]);
		return EXIT_OK;
	}
	if (cfg->ports.n > 0) {
		for (size_t i = 0; i < cfg->ports.n; i++)
			printf("0x%016" PRIx64 "\n", cfg->ports.guid[i]);
		return EXIT_OK;
	}
	if (transport_resolve(cfg->port_guid, &g) < 0)
		return EXIT_FAIL;
	printf("0x%016" PRIx64 "\n", g);
	return EXIT_OK;
}

static int
read_named(void *arg, const char *path, char **text, size_t *len, char *why,
    size_t whylen)
{
	(void)arg;
	why[0] = '\0';
	return config_read_file(path, CONFIG_MAX_BYTES, text, len, why,
	    whylen);
}

/* --convert-opensm-conf: the opensm.conf as an ibsmd.conf on stdout. */
static int
convert_opensm(const char *path)
{
	struct opensm_reader rd = { .read = read_named };
	struct config_errors ce = { 0 };
	char why[160], *text;
	size_t len;
	int r;

	r = config_read_file(path, CONFIG_MAX_BYTES, &text, &len, why,
	    sizeof(why));
	if (r != CONFIG_OK) {
		fprintf(stderr, "ibsmd: %s: %s\n", path, r == CONFIG_MISSING ?
		    "no such file" : why);
		return EXIT_FAIL;
	}
	r = opensm_convert(path, text, len, &rd, stdout, &ce);
	free(text);
	print_errors(&ce);
	config_errors_fini(&ce);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "ibsmd: cannot write the conversion: %s\n",
		    strerror(errno));
		return EXIT_FAIL;
	}
	return r < 0 ? EXIT_FAIL : EXIT_OK;
}

/* -nv: the QoS policy, normalized (qos-policy.conf(5)). */
static void
print_qos(const struct daemon *d, const struct qos_policy *qos, bool missing)
{
	char *t;

	if (!d->cfg.qos) {
		printf("\n# qos: off (qos_policy_file %s not read)\n",
		    d->cfg.qos_policy_file);
		return;
	}
	if (qos == NULL) {
		printf("\n# qos: on; qos_policy_file %s%s\n",
		    d->cfg.qos_policy_file, missing ? " missing: SLs from the "
		    "partitions' sl= only" : "");
		return;
	}
	printf("\n# qos: on; qos_policy_file %s: %zu port groups (their "
	    "ports: logged once the fabric is known), %zu levels, %zu "
	    "rules\n",
	    d->cfg.qos_policy_file, qos_policy_groups(qos),
	    qos_policy_levels(qos), qos_policy_rules(qos));
	t = qos_policy_format(qos, NULL, 0);
	fputs(t, stdout);
	free(t);
}

/* -n: configuration, partitions and QoS policy checked; -nv: printed
 * back. */
static int
check_mode(struct daemon *d)
{
	struct pkey_errors pe, qe;
	struct config_errors ce = { 0 };
	struct pkey_policy *pol;
	struct qos_policy *qos = NULL;
	bool missing, qmissing = false;
	int rc = EXIT_OK;

	pkey_errors_init(&pe);
	pkey_errors_init(&qe);
	pol = reload_policy_load(&d->cfg, &pe, &missing, &ce);
	{
		struct node_names *names;

		if (reload_names_load(&d->cfg, &names, &ce) < 0)
			rc = EXIT_FAIL;
		node_names_free(names);
	}
	print_errors(&ce);
	config_errors_fini(&ce);
	{
		/* errors when refused; warnings (an empty file) either way */
		char *t = pkey_errors_text(&pe, false);

		fputs(t ? t : "", stderr);
		free(t);
	}
	if (pol == NULL)
		rc = EXIT_FAIL;
	/* the QoS policy names partitions: checked against a good file */
	if (pol != NULL && reload_qos_load(&d->cfg, pol, &qos, &qe, &qmissing,
	    &ce) < 0)
		rc = EXIT_FAIL;
	print_errors(&ce);
	config_errors_fini(&ce);
	{
		char *t = pkey_errors_text(&qe, false);

		fputs(t ? t : "", stderr);
		free(t);
	}
	if (d->verbose && pol != NULL && rc == EXIT_OK) {
		char *t = pkey_policy_format(pol, NULL);

		config_print(&d->cfg, stdout);
		printf("\n# partitions: %s%s\n", d->cfg.partitions_file,
		    missing ? " (missing: the default partition only)" : "");
		fputs(t, stdout);
		free(t);
		print_qos(d, qos, qmissing);
	}
	qos_policy_free(qos);
	pkey_errors_fini(&qe);
	pkey_policy_free(pol);
	pkey_errors_fini(&pe);
	return rc;
}

#define GO_ON (-1)	/* a start-up step's "carry on" (else an EXIT_*) */

/* The port to drive and its configuration (what -n, --list-ports and
 * --convert-opensm-conf need ends here): GO_ON, or the exit code. */
static int
configure(struct daemon *d)
{
	struct ibsmd_config first;
	struct config_errors ce = { 0 };
	struct sweep_opts so;
	const char *bad;

	/* The port GUID names the per-instance file: from the command line
	 * or the common file, else the first InfiniBand port. */
	if (reload_config_build(d, 0, &first, &ce) < 0) {
		print_errors(&ce);
		return d->check ? EXIT_FAIL : EXIT_USAGE;
	}
	if ((bad = reload_engines(&first, &so)) != NULL) {
		fprintf(stderr, "ibsmd: unknown routing engine '%s'\n", bad);
		return d->check ? EXIT_FAIL : EXIT_USAGE;
	}
	d->guid = first.port_guid;
	config_fini(&first);
	config_errors_fini(&ce);	/* its notes come again below */
	if (d->list_ports) {
		if (reload_config_build(d, d->guid, &d->cfg, &ce) < 0) {
			print_errors(&ce);
			return EXIT_USAGE;
		}
		return list_ports(&d->cfg);
	}
	/* Checking a configuration needs no port: don't warn about one. */
	if (d->check)
		log_set_level(LOG_LVL_ERROR);
	if (transport_resolve(d->guid, &d->guid) < 0) {
		if (!d->check) {
			fprintf(stderr, "ibsmd: cannot find the port to drive"
			    "%s\n", d->guid ? "" : " (no InfiniBand port)");
			return EXIT_FAIL;
		}
		/* Checking a configuration needs no port: the per-instance
		 * file is then only read when -g names it. */
	}
	if (reload_config_build(d, d->guid, &d->cfg, &ce) < 0) {
		print_errors(&ce);
		if (!d->check)
			notify_failure("configuration rejected (%zu error%s); "
			    "not starting", ce.n, ce.n == 1 ? "" : "s");
		return d->check ? EXIT_FAIL : EXIT_USAGE;
	}
	print_errors(&ce);		/* the notes */
	config_errors_fini(&ce);
	if ((bad = reload_engines(&d->cfg, &so)) != NULL) {
		/* the per-instance file named one */
		fprintf(stderr, "ibsmd: unknown routing engine '%s'\n", bad);
		return d->check ? EXIT_FAIL : EXIT_USAGE;
	}
	if (d->check)
		return check_mode(d);
	return GO_ON;
}

/* The log file, the partition policy and the node name map: GO_ON, or
 * EXIT_USAGE. */
static int
load_files(struct daemon *d)
{
	struct config_errors ce = { 0 };
	struct pkey_errors pe;
	bool missing;

	if (log_init("ibsmd", d->cfg.log_file, d->cfg.log_level) < 0) {
		fprintf(stderr, "ibsmd: cannot open log %s: %s\n",
		    d->cfg.log_file, strerror(errno));
		notify_failure("log file %s cannot be opened: %s; not "
		    "starting", d->cfg.log_file, strerror(errno));
		return EXIT_USAGE;
	}
	pkey_errors_init(&pe);
	/* Fail closed: never fall back to everyone in the default partition
	 * because the file has a mistake. */
	if ((d->policy = reload_policy_load(&d->cfg, &pe, &missing, &ce)) ==
	    NULL)
		return refused("partitions", d->cfg.partitions_file, &pe, &ce);
	pkey_errors_fini(&pe);
	if (missing)
		log_info("partitions: no %s: every port is a full member of "
		    "the default partition", d->cfg.partitions_file);
	else
		log_info("partitions: %s accepted: %zu partition%s",
		    d->cfg.partitions_file, pkey_policy_count(d->policy),
		    pkey_policy_count(d->policy) == 1 ? "" : "s");
	pkey_errors_init(&pe);
	if (reload_qos_load(&d->cfg, d->policy, &d->qos_policy, &pe, &missing,
	    &ce) < 0)
		return refused("QoS policy", d->cfg.qos_policy_file, &pe, &ce);
	pkey_errors_fini(&pe);
	if (d->cfg.qos && missing)
		log_warnx("qos: no %s: SLs from the partitions' sl= only",
		    d->cfg.qos_policy_file);
	else if (d->qos_policy != NULL)
		log_info("qos: %s accepted: %zu port groups, %zu levels, %zu "
		    "rules", d->cfg.qos_policy_file, qos_policy_groups(d->qos_policy),
		    qos_policy_levels(d->qos_policy), qos_policy_rules(d->qos_policy));
	if (reload_names_load(&d->cfg, &d->names, &ce) < 0) {
		print_errors(&ce);
		fprintf(stderr, "ibsmd: %s rejected; not starting\n",
		    d->cfg.node_name_map);
		notify_failure("node_name_map rejected: %s (%zu error%s); "
		    "not starting", d->cfg.node_name_map, ce.n, ce.n == 1 ?
		    "" : "s");
		return EXIT_USAGE;
	}
	if (d->names != NULL) {
		node_names_use(d->names);
		log_info("node_name_map %s: %zu names", d->cfg.node_name_map,
		    node_names_count(d->names));
	}
	return GO_ON;
}

/* The state and runtime directories, and the lock in *lock_fd: GO_ON, or
 * the exit code. */
static int
make_dirs(struct daemon *d, int *lock_fd)
{
	if (config_expand(d->cfg.state_dir, d->guid, d->state_dir,
	    sizeof(d->state_dir)) < 0 ||
	    config_expand(d->cfg.runtime_dir, d->guid, d->runtime_dir,
	    sizeof(d->runtime_dir)) < 0) {
		fprintf(stderr, "ibsmd: state or runtime directory too long\n");
		return EXIT_USAGE;
	}
	*lock_fd = take_lock(d->runtime_dir, d->guid);
	if (*lock_fd < 0)
		return *lock_fd == -2 ? EXIT_LOCKED : EXIT_FAIL;
	if (mkdirs(d->state_dir, 0755) < 0) {
		log_warn("cannot create state directory %s", d->state_dir);
		return EXIT_FAIL;
	}
	return GO_ON;
}

/* The loop and the port: GO_ON, or EXIT_FAIL. */
static int
open_port(struct daemon *d)
{
	struct mad_opts mo;

	signal(SIGPIPE, SIG_IGN);
	d->loop = ev_default_loop(EVFLAG_AUTO);
	reload_mad_opts(&d->cfg, &mo);
	d->mad = mad_engine_new(d->loop, d->guid, &mo);
	if (d->mad == NULL || smp_register(d->mad) < 0) {
		fprintf(stderr, "ibsmd: cannot open port 0x%016" PRIx64 "\n",
		    d->guid);
		mad_engine_free(d->mad);
		return EXIT_FAIL;
	}
	if (transport_claim_sm(mad_engine_transport(d->mad)) < 0)
		log_warnx("cannot set IsSM on the port; other nodes may not "
		    "find this SM");
	return GO_ON;
}

/* The SM: its state machine, SMInfo and traps, alias GUIDs, the sweep. */
static void
open_sm(struct daemon *d)
{
	struct smstate_opts sso;
	struct smstate_hooks ssh;
	struct sweep_opts so;

	/* what follows an up as master; its hooks reach the modules
	 * opened below and in open_sa() before the loop runs */
	d->upkeep = daemon_upkeep_new(d);
	reload_smstate_opts(&d->cfg, &sso);
	daemon_smstate_hooks(d, &ssh);
	d->ss = smstate_new(d->loop, d->mad, &sso, &ssh);
	d->sm = sminfo_new(d->mad, d->ss, daemon_on_trap, d);
	daemon_keys(d);
	/* VF alias GUIDs need no vport support: served in every mode, as
	 * upstream OpenSM does (a ConnectX-3 VF is down until its alias
	 * GUID is granted) */
	d->vg = vfguid_new(d->loop, d->mad, d->state_dir,
	    (uint8_t)d->cfg.virt_guid_byte);
	reload_sweep_opts(d, &so);
	d->sweep = sweep_new(d->loop, d->mad, d->sm, d->ss, &so, daemon_on_up,
	    d);
	daemon_vport_settle_init(d);
}

/* Multicast and the SA (none when QP1 cannot be had), and the sweep's
 * hooks into them. */
static void
open_sa(struct daemon *d)
{
	struct sa_opts sao;

	d->mcast = sm_mcast_new(d->mad);
	sm_mcast_set_alias(d->mcast, vfguid_store(d->vg));
	sm_mcast_set_loop(d->mcast, d->loop);
	mcast_set_consolidate_snm(sm_mcast_store(d->mcast),
	    d->cfg.consolidate_ipv6_snm);
	daemon_sa_opts(d, &sao);
	d->sa = sa_new(d->loop, d->mad, &sao);
	if (sa_start(d->sa) < 0) {
		log_warnx("no Subnet Administration on this port");
		sa_free(d->sa);
		d->sa = NULL;
	}
	/* the port tables for the SA's records, after the subnet is up, and
	 * (qos) the QoS tables before the ports go Active, --once too */
	if (!d->once || d->cfg.qos)
		d->devread = devread_new(d->loop, d->mad);
	if (!d->once) {
		d->perfmgr = perfmgr_new(d->loop, d->mad, daemon_fabric, d);
		perfmgr_set_opts(d->perfmgr, d->cfg.perfmgr,
		    d->cfg.perfmgr_sweep_time_s,
		    d->cfg.perfmgr_clear_saturated);
		perfmgr_set_thresholds(d->perfmgr, d->cfg.perfmgr_threshold);
	}
	sminfo_set_notice_cb(d->sm, daemon_on_trap_notice, d);
	sweep_set_adopt_hook(d->sweep, daemon_on_adopt, d);
	sweep_set_stats_hook(d->sweep, daemon_stats_file, d);
}

/* The control socket, for ibsmctl. */
static void
open_ctl(struct daemon *d)
{
	char sock[4200];

	daemon_ctl_deps(d);
	snprintf(sock, sizeof(sock), "%s/0x%016" PRIx64 ".sock",
	    d->runtime_dir, d->guid);
	if ((d->ctl = ctl_open(d->loop, sock, &d->cd)) == NULL)
		log_warnx("no control socket: ibsmctl cannot reach "
		    "this instance");
	/* Prometheus reads what ibsmctl status reads */
	if (d->cfg.metrics_listen != NULL && d->cfg.metrics_listen[0] != '\0'
	    && (d->metrics = metrics_open(d->loop, d->cfg.metrics_listen,
	    &d->cd)) == NULL)
		log_warnx("no /metrics: Prometheus cannot scrape this "
		    "instance");
}

/* In the reverse order of the opening. */
static void
close_all(struct daemon *d)
{
	metrics_close(d->metrics);
	ctl_close(d->ctl);
	sa_free(d->sa);
	perfmgr_free(d->perfmgr);
	smp_set_mkey_source(NULL, NULL, NULL);
	mkeys_free(d->mkeys);
	devread_free(d->devread);
	free(d->vport_pk);
	sweep_free(d->sweep);
	vfguid_free(d->vg);
	sminfo_free(d->sm);
	smstate_free(d->ss);
	mad_engine_free(d->mad);
	sm_mcast_free(d->mcast);
	upkeep_free(d->upkeep);
	ev_timer_stop(d->loop, &d->vport_settle);
	ev_loop_destroy(d->loop);
	pkey_policy_free(d->policy);
	qos_policy_free(d->qos_policy);
	node_names_free(d->names);
	config_fini(&d->cfg);
}

int
main(int argc, char *argv[])
{
	struct daemon d = { .exit_code = EXIT_OK,
	    .config_dir = IBSMD_SYSCONFDIR };
	int lock_fd = -1, rc;

	if (parse_args(&d, argc, argv) < 0)
		return EXIT_USAGE;
	log_init("ibsmd", NULL, LOG_LVL_INFO);
	config_set_engine_names(routing_engine_name);
	if (d.convert != NULL)
		return convert_opensm(d.convert);
	if ((rc = configure(&d)) != GO_ON || (rc = load_files(&d)) != GO_ON ||
	    (rc = make_dirs(&d, &lock_fd)) != GO_ON ||
	    (rc = open_port(&d)) != GO_ON)
		return rc;
	open_sm(&d);
	open_sa(&d);
	open_ctl(&d);
	watch_signal(&d, &d.sig_term, SIGTERM);
	watch_signal(&d, &d.sig_int, SIGINT);
	watch_signal(&d, &d.sig_hup, SIGHUP);
	watch_signal(&d, &d.sig_usr1, SIGUSR1);
	if (!d.once)
		start_watchdog(&d);
	log_info("ibsmd %s on port 0x%016" PRIx64 ", state in %s",
	    PACKAGE_VERSION, d.guid, d.state_dir);
	smstate_start(d.ss);

	ev_run(d.loop, 0);

	if (d.once && d.exit_code == EXIT_OK) {
		char line[256];

		sweep_summary(d.sweep, line, sizeof(line));
		printf("ibsmd: subnet up: %s\n", line);
	}
	close_all(&d);
	close(lock_fd);
	log_fini();
	return d.exit_code;
}
