/*
 * mcload: multicast joins and leaves against the SM's SA, for bench/mcast.
 * Not part of the build: bench/mcast compiles it at run time:
 *
 *     cc -O2 -o mcload mcload.c -libumad -libmad
 *     mcload [-n N] [-t SECONDS] [-w TIMEOUT_MS] [-g GROUPS] GUID...
 *
 * Join mode (default): N joiners, joiner i standing for port GUID i (mod
 * the GUIDs given), each in a loop: join the IPv4 broadcast group of the
 * default partition (JoinState full, IPoIB's mask MGID|PortGID|P_Key|
 * JoinState), then leave it, one request at a time, for SECONDS. ibsim
 * takes at most 10 clients, so the N joiners are N TIDs of one client
 * joining on behalf of N ports (proxy joins: every port shares the default
 * partition). Latency is measured per request, joins and leaves apart.
 *
 * Group mode (-g GROUPS): GROUPS groups ff15:b::<i>, each created by port
 * 2i and joined by port 2i+1 (mod the GUIDs given), with N requests in
 * flight; then nothing is left: every group stays.
 *
 * Output: "key value" lines: sent, ok, errors, timeouts, seconds, then
 * joins, join_median_us, join_p99_us, leaves, leave_median_us,
 * leave_p99_us (join mode) or groups, members (group mode).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define MAXN 256
#define MCM_ATTR 0x38
#define M_MGID (1u << 0)
#define M_PORTGID (1u << 1)
#define M_QKEY (1u << 2)
#define M_TCLASS (1u << 6)
#define M_PKEY (1u << 7)
#define M_SL (1u << 12)
#define M_FLOW (1u << 13)
#define M_JOIN (1u << 16)

enum { OP_JOIN, OP_LEAVE, OP_CREATE };

struct slot {
	int busy;
	int op;
	unsigned who;           /* GUID index */
	unsigned group;         /* group mode: which group */
	uint32_t tid;
	uint64_t sent_ns;
};

struct lat {
	uint64_t *v;
	size_t n, cap;
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

static void
lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4096;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = ns;
}

static void
lat_print(const char *name, struct lat *l)
{
	printf("%ss %zu\n", name, l->n);
	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	printf("%s_median_us %" PRIu64 "\n%s_p99_us %" PRIu64 "\n", name,
	    l->v[l->n / 2] / 1000, name, l->v[(l->n * 99) / 100] / 1000);
}

static void
put64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* The MCMemberRecord request of one slot into m. */
static void
build(uint8_t *m, const struct slot *s, uint64_t guid, uint64_t prefix)
{
	uint8_t *r = m + IB_SA_DATA_OFFS;
	uint64_t mask = M_MGID | M_PORTGID | M_JOIN;

	mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 2);
	mad_set_field(m, 0, IB_MAD_METHOD_F, s->op == OP_LEAVE ?
	    IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET);
	mad_set_field64(m, 0, IB_MAD_TRID_F, s->tid);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, MCM_ATTR);
	if (s->op == OP_CREATE || s->group != UINT32_MAX) {
		/* ff15:b::<group> */
		r[0] = 0xff;
		r[1] = 0x15;
		r[3] = 0x0b;
		r[12] = (uint8_t)(s->group >> 24);
		r[13] = (uint8_t)(s->group >> 16);
		r[14] = (uint8_t)(s->group >> 8);
		r[15] = (uint8_t)s->group;
	} else {
		/* ff12:401b:ffff::ffff:ffff */
		static const uint8_t bc[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff,
		    0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

		memcpy(r, bc, 16);
	}
	put64(r + 16, prefix);
	put64(r + 24, guid);
	r[32] = 0;
	r[33] = 0;
	r[34] = 0x0b;           /* Q_Key 0x0b1b */
	r[35] = 0x1b;
	r[40] = 0xff;           /* P_Key 0xffff */
	r[41] = 0xff;
	r[48] = 0x21;           /* scope 2, JoinState full */
	if (s->op != OP_LEAVE)
		mask |= M_PKEY;
	if (s->op == OP_CREATE) {
		r[48] = 0x51;
		mask |= M_QKEY | M_TCLASS | M_SL | M_FLOW;
	}
	mad_set_field64(m, 0, IB_SA_COMPMASK_F, mask);
}

int
main(int argc, char **argv)
{
	int n = 32, secs = 10, wait_ms = 2000, c, fd, agent, i, len, r;
	unsigned ngroups = 0, nguid = 0, next_group = 0, done_groups = 0;
	uint64_t *guids, prefix, t0, end, now;
	umad_port_t port;
	uint16_t sm_lid;
	struct slot slots[MAXN];
	struct lat joins = { 0 }, leaves = { 0 };
	uint8_t *sbuf, *rbuf, *m;
	unsigned long sent = 0, ok = 0, errors = 0, timeouts = 0, members = 0;
	uint32_t next_tid, tid;

	while ((c = getopt(argc, argv, "n:t:w:g:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 'g': ngroups = (unsigned)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: mcload [-n N] [-t SECONDS] "
			    "[-w MS] [-g GROUPS] GUID...\n");
			return 2;
		}
	}
	if (n < 1 || n > MAXN || optind >= argc) {
		fprintf(stderr, "mcload: need 1..%d joiners and some GUIDs\n",
		    MAXN);
		return 2;
	}
	guids = calloc((size_t)(argc - optind), sizeof(*guids));
	for (c = optind; c < argc; c++)
		guids[nguid++] = strtoull(argv[c], NULL, 0);
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "mcload: no port\n");
		return 2;
	}
	sm_lid = (uint16_t)port.sm_lid;
	prefix = be64toh(port.gid_prefix);
	umad_release_port(&port);
	if ((fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_SA_CLASS, 2, 1, NULL)) < 0) {
		fprintf(stderr, "mcload: cannot open the port or register SA\n");
		return 2;
	}
	sbuf = calloc(1, umad_size() + 256);
	rbuf = calloc(1, umad_size() + 65536);
	memset(slots, 0, sizeof(slots));
	for (i = 0; i < n; i++) {
		slots[i].who = (unsigned)i % nguid;
		slots[i].group = UINT32_MAX;
		slots[i].op = OP_JOIN;
	}
	next_tid = (uint32_t)getpid() << 16;
	t0 = now_ns();
	end = ngroups ? UINT64_MAX : t0 + (uint64_t)secs * 1000000000u;
	for (;;) {
		now = now_ns();
		for (i = 0; i < n; i++) {
			struct slot *s = &slots[i];

			if (s->busy && now - s->sent_ns >
			    (uint64_t)wait_ms * 1000000u) {
				s->busy = 0;
				timeouts++;
			}
			if (s->busy || now >= end)
				continue;
			if (ngroups) {
				if (s->op == OP_CREATE && s->group != UINT32_MAX) {
					/* created: the second member joins */
					s->op = OP_JOIN;
					s->who = (2 * s->group + 1) % nguid;
				} else if (next_group < ngroups) {
					s->op = OP_CREATE;
					s->group = next_group++;
					s->who = (2 * s->group) % nguid;
				} else {
					continue;
				}
			}
			memset(sbuf, 0, umad_size() + 256);
			s->tid = ++next_tid;
			m = umad_get_mad(sbuf);
			build(m, s, guids[s->who], prefix);
			umad_set_addr(sbuf, sm_lid, 1, 0, IB_DEFAULT_QP1_QKEY);
			s->sent_ns = now_ns();
			if (umad_send(fd, agent, sbuf, 256, wait_ms, 0) < 0) {
				fprintf(stderr, "mcload: send failed\n");
				return 1;
			}
			s->busy = 1;
			sent++;
		}
		for (i = 0; i < n && !slots[i].busy; i++)
			;
		if (i == n && (now >= end || (ngroups && next_group >= ngroups)))
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
			continue;
		slots[i].busy = 0;
		if (umad_status(rbuf) != 0) {
			timeouts++;
			continue;
		}
		if (mad_get_field(m, 0, IB_MAD_STATUS_F) != 0) {
			errors++;
			if (ngroups) {
				/* this group is done with, the slot takes the
				 * next */
				slots[i].group = UINT32_MAX;
				slots[i].op = OP_JOIN;
				done_groups++;
			}
			continue;
		}
		ok++;
		now = now_ns();
		if (ngroups) {
			if (slots[i].op == OP_JOIN) {
				members++;
				done_groups++;
				slots[i].group = UINT32_MAX;
			} else {
				members++;
			}
			continue;
		}
		if (slots[i].op == OP_JOIN) {
			lat_add(&joins, now - slots[i].sent_ns);
			slots[i].op = OP_LEAVE;
		} else {
			lat_add(&leaves, now - slots[i].sent_ns);
			slots[i].op = OP_JOIN;
		}
	}
	printf("sent %lu\nok %lu\nerrors %lu\ntimeouts %lu\nseconds %.1f\n",
	    sent, ok, errors, timeouts, (now_ns() - t0) / 1e9);
	if (ngroups) {
		printf("groups %u\nmembers %lu\n", done_groups, members);
	} else {
		lat_print("join", &joins);
		lat_print("leave", &leaves);
	}
	umad_close_port(fd);
	return ok > 0 ? 0 : 1;
}
