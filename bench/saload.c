/*
 * saload: keep N SA PathRecord Get requests outstanding against the SM's SA
 * for T seconds and report queries/s and latency. Used by bench/sa; not
 * part of the build: bench/sa compiles it at run time:
 *
 *     cc -O2 -o saload saload.c -libumad -libmad
 *     saload [-n N] [-t SECONDS] [-w TIMEOUT_MS] [-s SEED] [-m MARKFILE] LID...
 *
 * Each request asks for the path between two LIDs drawn at random from the
 * LIDs given (SLID|DLID component mask, as saquery --src-to-dst does). One
 * process keeps N requests in flight (ibsim takes at most 10 clients, so
 * "N concurrent clients" are N TIDs of one client); a request whose answer
 * does not come within TIMEOUT_MS (default 2000) counts as a timeout and is
 * replaced. The SA is the SM LID of the local port.
 *
 * With -m, the time of every completed query (seconds since start, latency
 * in us) is also written to MARKFILE, one line each, for a latency-over-time
 * view.
 *
 * Output: "key value" lines: sent, answered, ok, errors, timeouts, seconds,
 * qps, median_us, p99_us, max_us (over answered queries with status 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define MAXN 256
#define PR_ATTR 0x35
#define COMP_DLID (1u << 4)
#define COMP_SLID (1u << 5)

struct slot {
	int busy;
	uint32_t tid;
	uint64_t sent_ns;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int n = 32, secs = 10, wait_ms = 2000, c, fd, agent, nlids = 0;
	unsigned seed = 1;
	const char *markfile = NULL;
	FILE *mark = NULL;
	uint16_t *lids;
	umad_port_t port;
	uint16_t sm_lid;
	struct slot slots[MAXN];
	uint8_t *sbuf, *rbuf;
	uint64_t t0, end, *lat = NULL;
	size_t nlat = 0, caplat = 0;
	unsigned long sent = 0, answered = 0, ok = 0, errors = 0, timeouts = 0;
	uint32_t next_tid;

	while ((c = getopt(argc, argv, "n:t:w:s:m:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 's': seed = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm': markfile = optarg; break;
		default:
			fprintf(stderr, "usage: saload [-n N] [-t SECONDS] [-w MS] "
			    "[-s SEED] [-m MARKFILE] LID...\n");
			return 2;
		}
	}
	if (n < 1 || n > MAXN || optind >= argc) {
		fprintf(stderr, "saload: need 1..%d outstanding and some LIDs\n", MAXN);
		return 2;
	}
	lids = calloc((size_t)(argc - optind), sizeof(*lids));
	for (c = optind; c < argc; c++)
		lids[nlids++] = (uint16_t)strtoul(argv[c], NULL, 0);
	if (markfile != NULL && (mark = fopen(markfile, "w")) == NULL) {
		perror(markfile);
		return 2;
	}
	srandom(seed);

	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "saload: no port\n");
		return 2;
	}
	sm_lid = (uint16_t)port.sm_lid;
	umad_release_port(&port);
	if (sm_lid == 0) {
		fprintf(stderr, "saload: the port knows no SM LID\n");
		return 2;
	}
	if ((fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_SA_CLASS, 2, 1, NULL)) < 0) {
		fprintf(stderr, "saload: cannot open the port or register SA\n");
		return 2;
	}
	sbuf = calloc(1, umad_size() + 256);
	rbuf = calloc(1, umad_size() + 65536);
	memset(slots, 0, sizeof(slots));
	next_tid = (uint32_t)random() & 0xffff0000u;

	t0 = now_ns();
	end = t0 + (uint64_t)secs * 1000000000u;
	for (;;) {
		uint64_t now = now_ns();
		int i, len, r;
		uint8_t *m;
		uint32_t tid;

		/* fill the free slots, expire the late ones */
		for (i = 0; i < n && now < end; i++) {
			if (slots[i].busy &&
			    now - slots[i].sent_ns > (uint64_t)wait_ms * 1000000u) {
				slots[i].busy = 0;
				timeouts++;
			}
			if (slots[i].busy)
				continue;
			m = umad_get_mad(sbuf);
			memset(sbuf, 0, umad_size() + 256);
			slots[i].tid = ++next_tid;
			mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
			mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
			mad_set_field(m, 0, IB_MAD_CLASSVER_F, 2);
			mad_set_field(m, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
			mad_set_field64(m, 0, IB_MAD_TRID_F, slots[i].tid);
			mad_set_field(m, 0, IB_MAD_ATTRID_F, PR_ATTR);
			mad_set_field64(m, 0, IB_SA_COMPMASK_F, COMP_DLID | COMP_SLID);
			mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_SLID_F,
			    lids[random() % nlids]);
			mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F,
			    lids[random() % nlids]);
			umad_set_addr(sbuf, sm_lid, 1, 0, IB_DEFAULT_QP1_QKEY);
			slots[i].sent_ns = now_ns();
			if (umad_send(fd, agent, sbuf, 256, wait_ms, 0) < 0) {
				fprintf(stderr, "saload: send failed\n");
				return 1;
			}
			slots[i].busy = 1;
			sent++;
		}
		for (i = 0; i < n && !slots[i].busy; i++)
			;
		if (now >= end && i == n)
			break;
		if (now >= end + (uint64_t)wait_ms * 1000000u)
			break;
		len = 65536;
		r = umad_recv(fd, rbuf, &len, 100);
		if (r < 0)
			continue;
		m = umad_get_mad(rbuf);
		tid = (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F);
		for (i = 0; i < n; i++)
			if (slots[i].busy && slots[i].tid == tid)
				break;
		if (i == n)
			continue;       /* late, or not ours */
		slots[i].busy = 0;
		if (umad_status(rbuf) != 0) {
			timeouts++;     /* the kernel's (or umadfix's) ETIMEDOUT */
			continue;
		}
		answered++;
		if (mad_get_field(m, 0, IB_MAD_STATUS_F) != 0) {
			errors++;
			continue;
		}
		ok++;
		now = now_ns();
		if (nlat == caplat) {
			caplat = caplat ? caplat * 2 : 4096;
			lat = realloc(lat, caplat * sizeof(*lat));
		}
		lat[nlat++] = now - slots[i].sent_ns;
		if (mark != NULL)
			fprintf(mark, "%.6f %" PRIu64 "\n", (now - t0) / 1e9,
			    (now - slots[i].sent_ns) / 1000);
	}
	if (mark != NULL)
		fclose(mark);
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
	printf("sent %lu\nanswered %lu\nok %lu\nerrors %lu\ntimeouts %lu\n",
	    sent, answered, ok, errors, timeouts);
	printf("seconds %d\nqps %.1f\n", secs, ok / (double)secs);
	if (nlat > 0)
		printf("median_us %" PRIu64 "\np99_us %" PRIu64 "\nmax_us %" PRIu64 "\n",
		    lat[nlat / 2] / 1000, lat[(nlat * 99) / 100] / 1000,
		    lat[nlat - 1] / 1000);
	umad_close_port(fd);
	return ok > 0 ? 0 : 1;
}
