/*
 * bench/routing.c: the routing engines alone, on k-ary three-level fat
 * trees built in memory, timed and measured one engine per process.
 *
 *     routing-bench [-n] [-k KEPT] K ENGINE...
 *
 * For each ENGINE the program forks a child that builds the fabric
 * (testfab_ft3(), tests/unit/testfab.c), sizes the tables (lft_set_init),
 * then times
 * separately
 *   - the engine's route() call,
 *   - routing_report_fill() on its tables (the walk of every switch-LID pair
 *     that ibsmd does after routing),
 *   - cdg_acyclic() on its tables (the deadlock check; -n skips it),
 *   - with -k KEPT, acyclic_keep() (routing/acyclic.h): KEPT's tables (as
 *     another SM may leave them, e.g. minhop's, with a credit loop) kept
 *     against the engine's, their loops broken,
 * and reports, besides each phase's seconds, the child's peak RSS after
 * each phase (getrusage, in the child) and overall (wait4, in the parent).
 * A fresh child per engine makes each peak that engine's own: the parent
 * allocates nothing big before it forks.
 *
 * Engines that routing_engine_find() does not know are reported as absent
 * and skipped. The driver script bench/routing compiles this file with the
 * repository's sources; see bench/README.md.
 *
 * LIDs: one per HCA (one port each) and one per switch, numbered from 1 in
 * the builder's order. K = 58 needs 52,983 of them, more than the 49,151
 * unicast LIDs (0x0001-0xBFFF) a subnet has: the benchmark numbers past
 * 0xBFFF anyway, because routing does not depend on where the unicast range
 * ends (a real fabric this size would need fewer end ports or LMC 0 on
 * fewer HCAs), and it says so in its output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "routing/acyclic.h"
#include "routing/cdg.h"
#include "core/fabric.h"
#include "core/log.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

struct result {
	int present;            /* engine known to routing_engine_find() */
	int routed;             /* route() returned 0 */
	char why[256];          /* its reason when it did not */
	double build_s, route_s, report_s, cdg_s;
	long rss_built_kb;      /* peak after fabric + empty tables */
	long rss_route_kb, rss_report_kb, rss_cdg_kb;
	uint64_t unreachable;
	uint32_t lids, max_port_load;
	double mean_port_load;
	uint64_t hops[ROUTE_HOPS_MAX + 1];
	int acyclic;            /* 1, 0, or -1 not run */
	uint64_t cdg_edges;
	/* -k: acyclic_keep() of KEPT's tables against the engine's */
	int keep_rc;            /* its return, or -2 not run */
	int kept_acyclic;       /* KEPT's tables had no credit loop */
	double keep_s;
	long rss_keep_kb;
	struct acyclic_result keep;
	uint64_t blocks_total, blocks_engine;   /* all; the engine's vs KEPT's */
};

static const char *kept_name;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long
peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}


/* KEPT's tables for f, their credit loops broken against the engine's s. */
static void
keep(const struct fabric *f, const struct lft_set *s, struct result *r)
{
	const struct routing_engine *re = routing_engine_find(kept_name);
	static const struct routing_opts none;
	struct lft_set m;
	char why[256];
	double t;

	if (re == NULL || lft_set_init(&m, f) != 0 ||
	    re->route(f, &none, &m, why, sizeof(why)) != 0)
		return;
	r->kept_acyclic = cdg_acyclic(f, &m, NULL);
	r->blocks_total = (uint64_t)m.nsw * (m.max_lid / 64u + 1);
	r->blocks_engine = routing_blocks_changed(f, s, f, &m);
	t = now();
	r->keep_rc = acyclic_keep(f, &m, s, ACYCLIC_BUDGET, &r->keep);
	r->keep_s = now() - t;
	r->rss_keep_kb = peak_kb();
	lft_set_fini(&m);
}

static void
run_engine(unsigned k, const char *name, int do_cdg, struct result *r)
{
	const struct routing_engine *re = routing_engine_find(name);
	static const struct routing_opts none;
	struct route_report rep;
	struct lft_set s;
	struct fabric f;
	double t;

	memset(r, 0, sizeof(*r));
	r->acyclic = -1;
	if (re == NULL)
		return;
	r->present = 1;

	t = now();
	fabric_init(&f);
	testfab_ft3(&f, k);
	if (lft_set_init(&s, &f) != 0) {
		fprintf(stderr, "routing-bench: out of memory for the tables\n");
		exit(1);
	}
	r->build_s = now() - t;
	r->rss_built_kb = peak_kb();

	t = now();
	r->routed = re->route(&f, &none, &s, r->why, sizeof(r->why)) == 0;
	r->route_s = now() - t;
	r->rss_route_kb = peak_kb();
	if (!r->routed)
		return;

	memset(&rep, 0, sizeof(rep));
	t = now();
	routing_report_fill(&f, &s, &rep);
	r->report_s = now() - t;
	r->rss_report_kb = peak_kb();
	r->unreachable = rep.unreachable;
	r->lids = rep.lids;
	r->max_port_load = rep.max_port_load;
	r->mean_port_load = rep.mean_port_load;
	memcpy(r->hops, rep.hops, sizeof(r->hops));

	if (do_cdg) {
		t = now();
		r->acyclic = cdg_acyclic(&f, &s, &r->cdg_edges);
		r->cdg_s = now() - t;
		r->rss_cdg_kb = peak_kb();
	}
	r->keep_rc = -2;
	if (kept_name != NULL)
		keep(&f, &s, r);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Fork, run one engine in the child, bring its result back over a pipe. */
static int
measure(unsigned k, const char *name, int do_cdg, struct result *r,
    struct rusage *ru, double *wall)
{
	int fd[2], status;
	ssize_t got = 0, n;
	pid_t pid;
	double t0;

	if (pipe(fd) != 0) {
		perror("routing-bench: pipe");
		return -1;
	}
	fflush(stdout);
	t0 = now();
	if ((pid = fork()) < 0) {
		perror("routing-bench: fork");
		return -1;
	}
	if (pid == 0) {
		struct result res;

		close(fd[0]);
		run_engine(k, name, do_cdg, &res);
		if (write(fd[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	while (got < (ssize_t)sizeof(*r)) {
		n = read(fd[0], (char *)r + got, sizeof(*r) - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd[0]);
	while (wait4(pid, &status, 0, ru) < 0)
		if (errno != EINTR) {
			perror("routing-bench: wait4");
			return -1;
		}
	*wall = now() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    got != (ssize_t)sizeof(*r)) {
		if (WIFSIGNALED(status))
			fprintf(stderr, "routing-bench: %s: child killed by "
			    "signal %d\n", name, WTERMSIG(status));
		else
			fprintf(stderr, "routing-bench: %s: child failed "
			    "(status %d)\n", name, WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

static double
mib(long kb)
{
	return (double)kb / 1024.0;
}

int
main(int argc, char **argv)
{
	unsigned k, half, hcas, sws, lids, max_hop, i;
	int do_cdg = 1, failed = 0, opt;
	struct result r;
	struct rusage ru;
	double wall;
	char *end;

	while ((opt = getopt(argc, argv, "nk:")) != -1) {
		if (opt == 'k') {
			kept_name = optarg;
			continue;
		}
		if (opt != 'n') {
			fprintf(stderr, "usage: routing-bench [-n] [-k KEPT] K "
			    "ENGINE...\n");
			return 2;
		}
		do_cdg = 0;
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: routing-bench [-n] [-k KEPT] K "
		    "ENGINE...\n");
		return 2;
	}
	k = (unsigned)strtoul(argv[optind], &end, 10);
	if (*end != '\0' || k < 2 || k % 2 || k > 254) {
		fprintf(stderr, "routing-bench: K must be even, 2-254\n");
		return 2;
	}
	log_set_level(LOG_LVL_WARN);
	half = k / 2;
	hcas = k * half * half;
	sws = k * k + half * half;
	lids = hcas + sws;
	printf("ft3 %u: %u HCAs, %u switches, %u LIDs (one per HCA and per "
	    "switch), tables %u x %u = %.1f MiB\n", k, hcas, sws, lids, sws,
	    lids + 1, (double)sws * (lids + 1) / 1048576.0);
	if (lids > FABRIC_MAX_LID)
		printf("note: %u LIDs exceed the %u unicast LIDs (0x0001-0x%04X);"
		    " this in-memory benchmark assigns LIDs up to %u anyway,\n"
		    "      as routing does not depend on where the unicast "
		    "range ends\n", lids, FABRIC_MAX_LID, FABRIC_MAX_LID, lids);
	if (lids > UINT16_MAX) {
		fprintf(stderr, "routing-bench: %u LIDs do not fit 16 bits\n",
		    lids);
		return 2;
	}
	for (i = (unsigned)optind + 1; i < (unsigned)argc; i++) {
		const char *name = argv[i];

		if (routing_engine_find(name) == NULL) {
			printf("engine %s: absent (not in the registry): "
			    "skipped\n", name);
			continue;
		}
		if (measure(k, name, do_cdg, &r, &ru, &wall) != 0) {
			failed = 1;
			continue;
		}
		if (!r.routed) {
			printf("engine %s: declined after %.3f s: %s\n", name,
			    r.route_s, r.why[0] ? r.why : "no reason given");
			continue;
		}
		for (max_hop = ROUTE_HOPS_MAX; max_hop > 0 && !r.hops[max_hop];
		    max_hop--)
			;
		printf("engine %s:\n", name);
		printf("  route            %9.3f s   peak RSS %8.1f MiB "
		    "(fabric + empty tables: %.1f MiB, built in %.3f s)\n",
		    r.route_s, mib(r.rss_route_kb), mib(r.rss_built_kb),
		    r.build_s);
		printf("  report_fill      %9.3f s   peak RSS %8.1f MiB   "
		    "%" PRIu64 " unreachable pairs, max %u hops, port load "
		    "max %u mean %.1f\n", r.report_s, mib(r.rss_report_kb),
		    r.unreachable, max_hop, r.max_port_load, r.mean_port_load);
		if (r.acyclic >= 0)
			printf("  cdg_acyclic      %9.3f s   peak RSS %8.1f MiB   "
			    "%s\n", r.cdg_s, mib(r.rss_cdg_kb), r.acyclic ?
			    "acyclic" : "CYCLE");
		if (r.keep_rc != -2)
			printf("  acyclic_keep     %9.3f s   peak RSS %8.1f MiB   "
			    "%s's tables%s: rc %d, %" PRIu64 " entries and %"
			    PRIu64 " of %" PRIu64 " blocks changed (%s's differ in "
			    "%" PRIu64 "), %u LIDs, %u wholly %s's, %" PRIu64
			    " links visited\n", r.keep_s, mib(r.rss_keep_kb),
			    kept_name, r.kept_acyclic ? " (no credit loop)" :
			    " (a credit loop)", r.keep_rc, r.keep.changed,
			    r.keep.blocks, r.blocks_total, name,
			    r.blocks_engine, r.keep.lids, r.keep.engine_lids,
			    name, r.keep.searched);
		printf("  process          %9.3f s   peak RSS %8.1f MiB   "
		    "(wall; CPU %.3f s user + %.3f s sys)\n", wall,
		    mib(ru.ru_maxrss), (double)ru.ru_utime.tv_sec +
		    (double)ru.ru_utime.tv_usec / 1e6,
		    (double)ru.ru_stime.tv_sec +
		    (double)ru.ru_stime.tv_usec / 1e6);
		printf("RESULT k=%u engine=%s route_s=%.6f report_s=%.6f "
		    "cdg_s=%.6f acyclic=%d rss_built_mib=%.1f "
		    "rss_route_mib=%.1f rss_peak_mib=%.1f unreachable=%" PRIu64
		    " max_hops=%u\n", k, name, r.route_s, r.report_s, r.cdg_s,
		    r.acyclic, mib(r.rss_built_kb), mib(r.rss_route_kb),
		    mib(ru.ru_maxrss), r.unreachable, max_hop);
		if (r.keep_rc != -2)
			printf("RESULT k=%u engine=%s kept=%s keep_rc=%d keep_s=%.6f "
			    "keep_blocks=%" PRIu64 " blocks=%" PRIu64
			    " engine_blocks=%" PRIu64 "\n", k, name, kept_name,
			    r.keep_rc, r.keep_s, r.keep.blocks, r.blocks_total,
			    r.blocks_engine);
	}
	return failed;
}
