/*
 * sa/path and sa/pathrec: the PathRecord / MultiPathRecord handlers on an
 * in-memory fabric (the codec and rate codes: check_path_codec.c; the
 * cost of one Get on a big fabric: check_path_cost.c): MTU and rate minima along the route, selectors,
 * partitions, reversibility, GID and LID queries, wildcards.
 */
#include "autoconfig.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "mad/mad.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "routing/routing.h"
#include "sa/attr.h"
#include "sa/path.h"
#include "sa/pathrec.h"
#include "sa/slsel.h"
#include "tests/unit/testfab.h"

#define PREFIX 0xFE80000000000000ULL

/* ------------------------------------------------------------ fabric */

/*
 * a, c on S1; b, e on S3; S1.5 - S2.5, S2.6 - S3.6. Every link 4X QDR
 * (40 Gb/s) with MTUCap 4096, but S2.6 - S3.6: 1X QDR (10 Gb/s), and
 * S2.6 has MTUCap 1024; e has MTUCap 2048.
 */
static struct fabric F;
static struct lft_set L;
static struct pkey_tables PK;
static struct sa_view V;
static struct sa_opts O = { .subnet_timeout = 18 };
static struct sa_ctx C;
static void *ST;
static uint32_t S1, S2, S3, A, B, Cc, E;        /* port indices */
static uint32_t nS1, nS2, nS3;

static void
set_info(uint32_t p, uint8_t width, uint8_t speed, uint8_t mtu_cap)
{
	struct fabric_port *q = &F.ports[p];

	/* PortInfo bytes (IBA 14.2.5.6) by hand */
	memset(q->info, 0, sizeof(q->info));
	q->info[31] = width;                    /* LinkWidthActive */
	q->info[32] = 0x70 | PORT_ACTIVE;       /* PortState */
	q->info[33] = 0x52;
	q->info[35] = (uint8_t)(speed << 4 | 7); /* LinkSpeedActive */
	q->info[36] = (uint8_t)(mtu_cap << 4);  /* NeighborMTU */
	q->info[41] = mtu_cap;                  /* MTUCap */
	q->info_valid = 1;
	q->state = PORT_ACTIVE;
}

static void
build(void)
{
	uint32_t a, b, c, e, p;

	fabric_init(&F);
	nS1 = testfab_switch(&F, 8);
	nS2 = testfab_switch(&F, 8);
	nS3 = testfab_switch(&F, 8);
	a = testfab_ca(&F, 1);
	c = testfab_ca(&F, 1);
	b = testfab_ca(&F, 1);
	e = testfab_ca(&F, 1);
	testfab_connect(&F, nS1, 1, a, 1);
	testfab_connect(&F, nS1, 2, c, 1);
	testfab_connect(&F, nS3, 1, b, 1);
	testfab_connect(&F, nS3, 2, e, 1);
	testfab_connect(&F, nS1, 5, nS2, 5);
	testfab_connect(&F, nS2, 6, nS3, 6);
	testfab_lids(&F);
	for (p = 0; p < F.nports; p++)
		if (F.ports[p].peer != FABRIC_NONE || F.ports[p].num == 0)
			set_info(p, 2, 4, 5);           /* 4X QDR, 4096 */
	set_info(fabric_port_idx(&F, nS2, 6), 1, 4, 3); /* 1X, 1024 */
	set_info(fabric_port_idx(&F, nS3, 6), 1, 4, 5);
	set_info(fabric_port_idx(&F, e, 1), 2, 4, 4);   /* 2048 */
	S1 = fabric_port_idx(&F, nS1, 0);
	S2 = fabric_port_idx(&F, nS2, 0);
	S3 = fabric_port_idx(&F, nS3, 0);
	A = fabric_port_idx(&F, a, 1);
	B = fabric_port_idx(&F, b, 1);
	Cc = fabric_port_idx(&F, c, 1);
	E = fabric_port_idx(&F, e, 1);
}

static void
route(void)
{
	char why[200];

	ck_assert_int_eq(lft_set_init(&L, &F), 0);
	ck_assert_msg(re_minhop.route(&F, &(struct routing_opts){ 0 }, &L,
	    why, sizeof(why)) == 0, "%s", why);
}

static void
setup(void)
{
	build();
	route();
	memset(&V, 0, sizeof(V));
	V.f = &F;
	V.lft = &L;
	V.subnet_prefix = PREFIX;
	ST = sa_attr_path_record.init(NULL, NULL);
	sa_attr_path_record.view_changed(ST, NULL, &V);
	C = (struct sa_ctx){ .v = &V, .o = &O, .state = ST };
}

static void
teardown(void)
{
	sa_attr_path_record.fini(ST);
	pkey_tables_free(&PK);
	memset(&PK, 0, sizeof(PK));
	lft_set_fini(&L);
	fabric_fini(&F);
}

static uint8_t MAD[2048];

/* Run the handler: a method, a mask and the requested record. */
static unsigned
ask_attr(const struct sa_attr *at, uint8_t method, uint64_t mask,
    const uint8_t *rec, size_t reclen, uint32_t requester, struct sa_out *o)
{
	struct sa_req q = {
		.method = method, .attr = at->id, .comp_mask = mask,
		.rec = MAD + SA_HDR_SIZE, .mad = MAD,
		.len = SA_HDR_SIZE + reclen, .requester = requester,
	};

	memset(MAD, 0, sizeof(MAD));
	memcpy(MAD + SA_HDR_SIZE, rec, reclen);
	if (q.len < 256)
		q.len = 256;
	sa_out_init(o, at->rec_size, method == MAD_GET ? 2 : 0);
	return at->get(&C, &q, o);
}

static unsigned
ask(uint8_t method, uint64_t mask, const struct sa_path *w,
    struct sa_out *o)
{
	uint8_t rec[64];

	sa_path_encode(w, rec);
	return ask_attr(&sa_attr_path_record, method, mask, rec, 64, A, o);
}

static void
rec_at(const struct sa_out *o, size_t i, struct sa_path *p)
{
	ck_assert_uint_lt(i, o->n);
	sa_path_decode(o->recs + i * 64, p);
}

static struct sa_path
lids(uint32_t s, uint32_t d)
{
	struct sa_path w = { .slid = F.ports[s].lid, .dlid = F.ports[d].lid };

	return w;
}

static void
gid(uint8_t *g, uint64_t prefix, uint32_t p)
{
	for (unsigned i = 0; i < 8; i++) {
		g[i] = (uint8_t)(prefix >> (56 - 8 * i));
		g[8 + i] = (uint8_t)(F.ports[p].guid >> (56 - 8 * i));
	}
}

/* One record from s to d by LIDs (GetTable), its fields decoded. */
static struct sa_path
one(uint32_t s, uint32_t d)
{
	struct sa_path w = lids(s, d), r;
	struct sa_out o;

	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	rec_at(&o, 0, &r);
	sa_out_fini(&o);
	return r;
}

START_TEST(mtu_rate_minimum)
{
	struct sa_path r;
	uint8_t g[16];

	r = one(A, B);                  /* across the narrow link */
	ck_assert_uint_eq(r.slid, F.ports[A].lid);
	ck_assert_uint_eq(r.dlid, F.ports[B].lid);
	ck_assert_uint_eq(r.mtu, 3);
	ck_assert_uint_eq(r.rate, 3);           /* 10 Gb/s */
	ck_assert_uint_eq(r.mtu_sel, SA_SEL_EQ);
	ck_assert_uint_eq(r.rate_sel, SA_SEL_EQ);
	ck_assert_uint_eq(r.life_sel, SA_SEL_EQ);
	ck_assert_uint_eq(r.life, 18);
	ck_assert(r.reversible);
	ck_assert_uint_eq(r.numb_path, 0);
	ck_assert_uint_eq(r.pkey, 0xFFFF);      /* no tables: default key */
	ck_assert_uint_eq(r.sl, 0);
	ck_assert_uint_eq(r.hop_limit, 0);
	ck_assert_uint_eq(r.preference, 0);
	gid(g, PREFIX, A);
	ck_assert_mem_eq(r.sgid, g, 16);
	gid(g, PREFIX, B);
	ck_assert_mem_eq(r.dgid, g, 16);
	r = one(B, A);                  /* the same link, other way */
	ck_assert_uint_eq(r.mtu, 3);
	ck_assert_uint_eq(r.rate, 3);
	r = one(A, Cc);                 /* same switch: full speed */
	ck_assert_uint_eq(r.mtu, 5);
	ck_assert_uint_eq(r.rate, 7);
	r = one(Cc, E);
	ck_assert_uint_eq(r.mtu, 3);
	r = one(B, E);                  /* e's own MTUCap: 2048 */
	ck_assert_uint_eq(r.mtu, 4);
	ck_assert_uint_eq(r.rate, 7);
	r = one(A, S2);                 /* to a switch: its port 0 */
	ck_assert_uint_eq(r.mtu, 5);
	ck_assert_uint_eq(r.rate, 7);
	r = one(A, S3);
	ck_assert_uint_eq(r.rate, 3);
	r = one(A, A);                  /* loopback: life 0 */
	ck_assert_uint_eq(r.life, 0);
	ck_assert_uint_eq(r.rate, 7);
	r = one(S1, S1);
	ck_assert_uint_eq(r.life, 0);
	ck_assert_uint_eq(r.rate, 7);
}
END_TEST

/* Ask A -> B with one selector; returns records (0 or 1), *r the one. */
static size_t
with_sel(uint64_t bits, uint8_t sel, uint8_t val, uint32_t d,
    struct sa_path *r)
{
	struct sa_path w = lids(A, d);
	struct sa_out o;
	size_t n;

	w.mtu_sel = w.rate_sel = w.life_sel = sel;
	w.mtu = w.rate = w.life = val;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID | bits,
	    &w, &o), SA_STATUS_OK);
	n = o.n;
	if (n == 1)
		rec_at(&o, 0, r);
	sa_out_fini(&o);
	return n;
}

START_TEST(selectors)
{
	const uint64_t M = PR_CM_MTU_SEL | PR_CM_MTU;
	const uint64_t R = PR_CM_RATE_SEL | PR_CM_RATE;
	const uint64_t T = PR_CM_LIFE_SEL | PR_CM_LIFE;
	struct sa_path r;
	struct sa_out o;
	struct sa_path w = lids(A, B);

	/* MTU: the path has 1024 (3) */
	ck_assert_uint_eq(with_sel(M, SA_SEL_GT, 3, B, &r), 0);
	ck_assert_uint_eq(with_sel(M, SA_SEL_GT, 2, B, &r), 1);
	ck_assert_uint_eq(r.mtu, 3);
	ck_assert_uint_eq(with_sel(M, SA_SEL_LT, 3, B, &r), 1);
	ck_assert_uint_eq(r.mtu, 2);            /* one step lower */
	ck_assert_uint_eq(with_sel(M, SA_SEL_LT, 1, B, &r), 0);
	ck_assert_uint_eq(with_sel(M, SA_SEL_EQ, 2, B, &r), 1);
	ck_assert_uint_eq(r.mtu, 2);
	ck_assert_uint_eq(with_sel(M, SA_SEL_EQ, 4, B, &r), 0);
	ck_assert_uint_eq(with_sel(M, SA_SEL_BEST, 1, B, &r), 1);
	ck_assert_uint_eq(r.mtu, 3);
	/* only the selector, no value: ignored, as OpenSM */
	ck_assert_uint_eq(with_sel(PR_CM_MTU_SEL, SA_SEL_GT, 5, B, &r), 1);
	/* rate: 10 Gb/s (3) across, 40 (7) to c */
	ck_assert_uint_eq(with_sel(R, SA_SEL_GT, 3, B, &r), 0);
	ck_assert_uint_eq(with_sel(R, SA_SEL_GT, 2, B, &r), 1);
	ck_assert_uint_eq(with_sel(R, SA_SEL_EQ, 3, B, &r), 1);
	ck_assert_uint_eq(r.rate, 3);
	ck_assert_uint_eq(with_sel(R, SA_SEL_EQ, 2, B, &r), 0);
	ck_assert_uint_eq(with_sel(R, SA_SEL_LT, 7, Cc, &r), 1);
	ck_assert_uint_eq(r.rate, 4);           /* 30: the next below 40 */
	ck_assert_uint_eq(with_sel(R, SA_SEL_LT, 2, Cc, &r), 0);
	ck_assert_uint_eq(with_sel(R, SA_SEL_LT, 6, B, &r), 1);
	ck_assert_uint_eq(r.rate, 3);           /* already below 20 */
	ck_assert_uint_eq(with_sel(R, SA_SEL_BEST, 2, Cc, &r), 1);
	ck_assert_uint_eq(r.rate, 7);
	/* PacketLifeTime: 18 */
	ck_assert_uint_eq(with_sel(T, SA_SEL_GT, 18, B, &r), 0);
	ck_assert_uint_eq(with_sel(T, SA_SEL_LT, 18, B, &r), 1);
	ck_assert_uint_eq(r.life, 17);
	ck_assert_uint_eq(with_sel(T, SA_SEL_EQ, 10, B, &r), 1);
	ck_assert_uint_eq(r.life, 10);
	/* codes IBA does not define */
	w.mtu_sel = SA_SEL_EQ;
	w.mtu = 6;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID | M, &w,
	    &o), SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	w.rate = 1;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID | R, &w,
	    &o), SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID |
	    PR_CM_SERVICE_ID_MSB, &w, &o), SA_STATUS_INSUFFICIENT_COMPONENTS);
	sa_out_fini(&o);
}
END_TEST

START_TEST(gid_queries)
{
	const uint64_t G = PR_CM_SGID | PR_CM_DGID;
	struct sa_path w = { 0 }, r;
	struct sa_out o;

	gid(w.sgid, PREFIX, A);
	gid(w.dgid, PREFIX, B);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.slid, F.ports[A].lid);
	ck_assert_uint_eq(r.dlid, F.ports[B].lid);
	ck_assert_uint_eq(r.mtu, 3);
	sa_out_fini(&o);
	/* a switch by its port GUID */
	gid(w.dgid, PREFIX, S3);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_OK);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.dlid, F.ports[S3].lid);
	sa_out_fini(&o);
	/* SGID and SLID together must name one port */
	gid(w.dgid, PREFIX, B);
	w.slid = F.ports[A].lid;
	ck_assert_uint_eq(ask(MAD_GET, G | PR_CM_SLID, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	sa_out_fini(&o);
	w.slid = F.ports[Cc].lid;
	ck_assert_uint_eq(ask(MAD_GET, G | PR_CM_SLID, &w, &o),
	    SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	/* unknown GUID, foreign prefix, multicast source: INVALID_GID */
	w.dgid[15] ^= 0x5A;
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_INVALID_GID);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_GETTABLE, G, &w, &o),
	    SA_STATUS_INVALID_GID);
	sa_out_fini(&o);
	gid(w.dgid, 0xFEC0000000000000ULL, B);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_INVALID_GID);
	sa_out_fini(&o);
	/* every link-local GID, fe80::/10 (issue 22 point 7): fe81::, and
	 * fe80 with the next bits set; fec0:: (site-local) is not */
	gid(w.dgid, 0xFE81000000000000ULL, B);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_OK);
	sa_out_fini(&o);
	gid(w.dgid, 0xFEBF000000000001ULL, B);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_OK);
	sa_out_fini(&o);
	gid(w.dgid, PREFIX, B);
	w.sgid[0] = 0xFF;
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_INVALID_GID);
	sa_out_fini(&o);
	/* a multicast destination: no groups, no paths */
	gid(w.sgid, PREFIX, A);
	w.dgid[0] = 0xFF;
	ck_assert_uint_eq(ask(MAD_GETTABLE, G, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
	/* another subnet prefix in the view: link-local GIDs still work,
	 * and a given SGID comes back as given */
	V.subnet_prefix = 0x1234000000000000ULL;
	gid(w.sgid, PREFIX, A);
	gid(w.dgid, 0x1234000000000000ULL, B);
	ck_assert_uint_eq(ask(MAD_GET, G, &w, &o), SA_STATUS_OK);
	rec_at(&o, 0, &r);
	ck_assert_mem_eq(r.sgid, w.sgid, 16);
	ck_assert_mem_eq(r.dgid, w.dgid, 16);
	sa_out_fini(&o);
}
END_TEST

START_TEST(lid_queries)
{
	struct sa_path w = lids(A, B);
	struct sa_out o;

	/* an unknown LID: no records (as OpenSM), not an error */
	w.dlid = 999;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_SET, PR_CM_SLID, &w, &o),
	    SA_STATUS_METHOD_ATTR_UNSUPP);
	sa_out_fini(&o);
}
END_TEST

START_TEST(wildcards)
{
	struct sa_path w = { 0 }, r;
	struct sa_out o;
	struct sa_path_counters k;
	size_t ends = 7, i;     /* 3 switches, 4 CAs */

	/* only a source: a path to every end port (loopback included) */
	gid(w.sgid, PREFIX, A);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, ends);
	for (i = 0; i < o.n; i++) {
		rec_at(&o, i, &r);
		ck_assert_uint_eq(r.slid, F.ports[A].lid);
	}
	sa_out_fini(&o);
	/* Get: the first one, not TOO_MANY_RECORDS */
	ck_assert_uint_eq(ask(MAD_GET, PR_CM_SGID, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	sa_out_fini(&o);
	/* only a destination LID */
	w = lids(A, B);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, ends);
	for (i = 0; i < o.n; i++) {
		rec_at(&o, i, &r);
		ck_assert_uint_eq(r.dlid, F.ports[B].lid);
	}
	sa_out_fini(&o);
	/* the world */
	sa_path_counters(ST, &k);
	ck_assert_uint_eq(ask(MAD_GETTABLE, 0, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, ends * ends);
	sa_out_fini(&o);
	/* NumbPath 0 in a GetTable: nothing */
	w.numb_path = 0;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
}
END_TEST

START_TEST(no_route_no_record)
{
	struct sa_path w = lids(A, B), r;
	struct sa_out o;
	uint8_t *row;

	/* S2 loses its entry for a: b -> a no longer arrives */
	row = lft_row(&L, L.node_sw[nS2]);
	row[F.ports[A].lid] = LFT_NO_ROUTE;
	r = one(A, B);
	ck_assert(!r.reversible);
	/* asked reversible: none */
	w.reversible = true;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID |
	    PR_CM_REVERSIBLE, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
	/* Reversible 0 in the mask is "don't care" */
	w.reversible = false;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID |
	    PR_CM_REVERSIBLE, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	sa_out_fini(&o);
	/* and the route b -> a gives nothing */
	w = lids(B, A);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_GET, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);      /* the agent answers NO_RECORDS */
	sa_out_fini(&o);
	/* no tables at all */
	V.lft = NULL;
	w = lids(A, Cc);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
}
END_TEST

/* ------------------------------------------------------------ partitions */

static void
table(unsigned i, uint32_t p, uint16_t k0, uint16_t k1)
{
	struct pkey_table *t = &PK.v[i];

	t->guid = F.ports[p].guid;
	t->port = p;
	t->num = F.ports[p].num;
	t->kind = PKEY_TABLE_PORT;
	t->cap = 2;
	t->keys = calloc(2, sizeof(*t->keys));
	t->keys[0] = k0;
	t->keys[1] = k1;
}

/* a: 7fff full, 0x10 full; c: 7fff limited, 0x10 full; b: 7fff limited,
 * 0x20 full; e: 7fff limited, 0x20 limited. Switches: no table (share
 * everything). */
static void
partitioned(void)
{
	PK.n = 4;
	PK.v = calloc(4, sizeof(*PK.v));
	table(0, A, 0xFFFF, 0x8010);
	table(1, Cc, 0x7FFF, 0x8010);
	table(2, B, 0x7FFF, 0x8020);
	table(3, E, 0x7FFF, 0x0020);
	pkey_tables_sort(&PK);
	V.pk = &PK;
}

static size_t
count(uint32_t requester, uint32_t s, uint32_t d, uint64_t extra,
    uint16_t pkey, uint16_t *got)
{
	struct sa_path w = lids(s, d), r;
	struct sa_out o;
	uint8_t rec[64];
	size_t n;

	w.pkey = pkey;
	sa_path_encode(&w, rec);
	ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
	    PR_CM_SLID | PR_CM_DLID | extra, rec, 64, requester, &o),
	    SA_STATUS_OK);
	n = o.n;
	if (n > 0 && got != NULL) {
		rec_at(&o, 0, &r);
		*got = r.pkey;
	}
	sa_out_fini(&o);
	return n;
}

START_TEST(partition_rule)
{
	uint16_t k = 0;

	partitioned();
	ck_assert_uint_eq(count(A, A, Cc, 0, 0, &k), 1);
	ck_assert_uint_eq(k, 0x8010);   /* the lowest shared key */
	ck_assert_uint_eq(count(A, A, B, 0, 0, &k), 1);
	ck_assert_uint_eq(k, 0xFFFF);   /* 7fff, a full */
	ck_assert_uint_eq(count(A, B, A, 0, 0, &k), 1);
	ck_assert_uint_eq(k, 0x7FFF);   /* as b holds it */
	/* c and b: 7fff limited in both, nothing else: no path */
	ck_assert_uint_eq(count(A, Cc, B, 0, 0, NULL), 0);
	ck_assert_uint_eq(count(A, B, Cc, 0, 0, NULL), 0);
	/* b and e share 0x20 (b full) */
	ck_assert_uint_eq(count(A, B, E, 0, 0, &k), 1);
	ck_assert_uint_eq(k, 0x8020);
	/* requester c shares nothing with b: no path from b, even to e */
	ck_assert_uint_eq(count(Cc, B, E, 0, 0, NULL), 0);
	/* requester c shares nothing with b: a -> b is hidden from c */
	ck_assert_uint_eq(count(A, A, B, 0, 0, NULL), 1);
	ck_assert_uint_eq(count(Cc, A, B, 0, 0, NULL), 0);
	/* a requested key must be held by both, one fully */
	ck_assert_uint_eq(count(A, A, Cc, PR_CM_PKEY, 0x8010, &k), 1);
	ck_assert_uint_eq(k, 0x8010);
	ck_assert_uint_eq(count(A, A, Cc, PR_CM_PKEY, 0x0010, &k), 1);
	ck_assert_uint_eq(k, 0x0010);   /* echoed as asked */
	ck_assert_uint_eq(count(A, A, Cc, PR_CM_PKEY, 0x8020, NULL), 0);
	ck_assert_uint_eq(count(B, B, E, PR_CM_PKEY, 0x7FFF, NULL), 0);
	/* switches hold every key */
	ck_assert_uint_eq(count(Cc, Cc, S3, PR_CM_PKEY, 0x8010, &k), 1);
	/* a requester the fabric does not know: dropped, as OpenSM */
	{
		struct sa_path w = lids(A, Cc);
		struct sa_out o;
		uint8_t rec[64];

		sa_path_encode(&w, rec);
		ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
		    PR_CM_SLID | PR_CM_DLID, rec, 64, FABRIC_NONE, &o),
		    SA_STATUS_DROP);
		sa_out_fini(&o);
	}
}
END_TEST

START_TEST(partition_sl)
{
	static const char text[] =
	    "Default=0x7fff : ALL=full ;\n"
	    "blue=0x0010, sl=3 : ALL=full ;\n";
	struct pkey_errors errs;
	struct pkey_policy *pol;
	struct sa_path w = lids(A, Cc), r;
	struct sa_out o;
	uint8_t rec[64];

	pkey_errors_init(&errs);
	pol = pkey_policy_parse("t.conf", text, sizeof(text) - 1, &errs);
	ck_assert_ptr_nonnull(pol);
	pkey_errors_fini(&errs);
	partitioned();
	V.policy = pol;
	/* default key: the Default partition's SL, 0 */
	ck_assert_uint_eq(count(A, A, Cc, 0, 0, NULL), 1);
	w.pkey = 0x8010;
	sa_path_encode(&w, rec);
	ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
	    PR_CM_SLID | PR_CM_DLID | PR_CM_PKEY, rec, 64, A, &o),
	    SA_STATUS_OK);
	rec_at(&o, 0, &r);
	/* no SL-to-VL mapping programmed: SL 0, not sl=3 (issue 22 pt 9) */
	ck_assert_uint_eq(r.sl, SA_SL_NO_QOS);
	sa_out_fini(&o);
	/* a requested SL is the requester's, as OpenSM without QoS */
	w.sl = 5;
	sa_path_encode(&w, rec);
	ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
	    PR_CM_SLID | PR_CM_DLID | PR_CM_PKEY | PR_CM_SL, rec, 64, A, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.sl, 5);
	sa_out_fini(&o);
	/* Default sets no sl: any requested SL is echoed */
	w.pkey = 0xFFFF;
	sa_path_encode(&w, rec);
	ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
	    PR_CM_SLID | PR_CM_DLID | PR_CM_PKEY | PR_CM_SL, rec, 64, A, &o),
	    SA_STATUS_OK);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.sl, 5);
	sa_out_fini(&o);
	V.policy = NULL;
	pkey_policy_free(pol);
}
END_TEST

/* ------------------------------------------------------------ QoS */

/* One PathRecord GetTable from s to d with w's fields and mask bits
 * extra: the number of records, the first in *r. */
static size_t
qos_ask(uint32_t s, uint32_t d, struct sa_path w, uint64_t extra,
    struct sa_path *r)
{
	struct sa_out o;
	uint8_t rec[64];
	size_t n;

	w.slid = F.ports[s].lid;
	w.dlid = F.ports[d].lid;
	sa_path_encode(&w, rec);
	ck_assert_uint_eq(ask_attr(&sa_attr_path_record, MAD_GETTABLE,
	    PR_CM_SLID | PR_CM_DLID | extra, rec, 64, A, &o), SA_STATUS_OK);
	n = o.n;
	if (n > 0)
		rec_at(&o, 0, r);
	sa_out_fini(&o);
	return n;
}

/* qos on (issue 27 point 2): the SL from the QoS policy's level, then
 * the partition's sl=, as OpenSM's osm_sa_path_record.c with qos; the
 * level's MTU, rate and packet-life limits and P_Keys bound the path. */
START_TEST(qos_policy_sl)
{
	static const char ptext[] =
	    "Default=0x7fff : ALL=full ;\n"
	    "blue=0x0010, sl=3 : ALL=full ;\n";
	char qtext[2048];
	struct pkey_errors errs;
	struct pkey_policy *pol;
	struct qos_policy *qos;
	struct sa_path r, w = { 0 };

	pkey_errors_init(&errs);
	pol = pkey_policy_parse("t.conf", ptext, sizeof(ptext) - 1, &errs);
	ck_assert_ptr_nonnull(pol);
	snprintf(qtext, sizeof(qtext),
	    "port-groups\n"
	    "  port-group\n    name: c\n    port-guid: 0x%016" PRIx64 "\n"
	    "  end-port-group\n"
	    "end-port-groups\n"
	    "qos-levels\n"
	    "  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\n"
	    "  qos-level\n    name: stor\n    sl: 6\n    mtu-limit: 2\n"
	    "    rate-limit: 3\n    packet-life: 10\n  end-qos-level\n"
	    "  qos-level\n    name: deflt-key\n    sl: 2\n    pkey: 0x7fff\n"
	    "  end-qos-level\n"
	    "  qos-level\n    name: wide\n    sl: 4\n    pkey: 0x0001-0x7fff\n"
	    "  end-qos-level\n"
	    "  qos-level\n    name: upper\n    sl: 7\n"
	    "    pkey: 0x0011-0x7ffe,0x7fff\n  end-qos-level\n"
	    "end-qos-levels\n"
	    "qos-match-rules\n"
	    "  qos-match-rule\n    qos-class: 3\n    qos-level-name: deflt-key\n"
	    "  end-qos-match-rule\n"
	    "  qos-match-rule\n    qos-class: 4\n    qos-level-name: wide\n"
	    "  end-qos-match-rule\n"
	    "  qos-match-rule\n    qos-class: 5\n    qos-level-name: upper\n"
	    "  end-qos-match-rule\n"
	    "  qos-match-rule\n    destination: c\n    qos-level-name: stor\n"
	    "  end-qos-match-rule\n"
	    "end-qos-match-rules\n"
	    "qos-ulps\n  any, service-id 0x1234 : 9\nend-qos-ulps\n",
	    F.ports[Cc].guid);
	qos = qos_policy_parse("q.conf", qtext, strlen(qtext), pol, &errs);
	ck_assert_msg(qos != NULL, "%s", pkey_errors_text(&errs, false));
	pkey_errors_fini(&errs);
	partitioned();
	V.policy = pol;

	/* qos on without a policy file: the partition's sl= */
	V.qos = true;
	w.pkey = 0x8010;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_PKEY, &r), 1);
	ck_assert_uint_eq(r.sl, 3);
	ck_assert_uint_eq(qos_ask(A, B, w, 0, &r), 1);
	ck_assert_uint_eq(r.sl, 0);     /* Default: no sl= */

	V.qos_policy = qos;
	/* group c holds one end port (what the daemon logs) */
	ck_assert_uint_eq(sa_sl_group_ports(&V, 0), 1);
	/* no rule: DEFAULT, whose SL wins over the partition's */
	ck_assert_uint_eq(qos_ask(A, A, w, PR_CM_PKEY, &r), 1);
	ck_assert_uint_eq(r.sl, 1);
	/* a destination group: its level's SL and limits */
	ck_assert_uint_eq(qos_ask(A, Cc, w, 0, &r), 1);
	ck_assert_uint_eq(r.sl, 6);
	ck_assert_uint_eq(r.mtu, 2);
	ck_assert_uint_eq(r.rate, 3);
	ck_assert_uint_eq(r.life, 10);
	ck_assert_uint_eq(qos_ask(Cc, A, w, 0, &r), 1);
	ck_assert_uint_eq(r.sl, 1);
	ck_assert_uint_eq(r.mtu, 5);
	ck_assert_uint_eq(r.life, 18);
	/* a requested SL must be the level's */
	w.sl = 5;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_SL, &r), 0);
	w.sl = 6;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_SL, &r), 1);
	ck_assert_uint_eq(r.sl, 6);
	/* qos-ulps after the match rules: a service ID */
	w.service_id = 0x1234;
	ck_assert_uint_eq(qos_ask(A, B, w, PR_CM_SERVICE_ID, &r), 1);
	ck_assert_uint_eq(r.sl, 9);
	/* a level with P_Keys picks the path's P_Key (A and C share 0x10,
	 * the lowest, and 0x7fff) */
	w.qos_class = 3;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_QOS_CLASS, &r), 1);
	ck_assert_uint_eq(r.sl, 2);
	ck_assert_uint_eq(r.pkey, 0xFFFF);
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_QOS_CLASS | PR_CM_PKEY, &r),
	    0);         /* 0x8010 is not the level's */
	/* a range: its lowest key both share (0x10), not its first key */
	w.qos_class = 4;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_QOS_CLASS, &r), 1);
	ck_assert_uint_eq(r.sl, 4);
	ck_assert_uint_eq(r.pkey, 0x8010);
	/* ranges in order: none shared in the first, 0x7fff in the second */
	w.qos_class = 5;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_QOS_CLASS, &r), 1);
	ck_assert_uint_eq(r.sl, 7);
	ck_assert_uint_eq(r.pkey, 0xFFFF);

	/* qos off: as before, whatever the policy says */
	V.qos = false;
	ck_assert_uint_eq(qos_ask(A, Cc, w, PR_CM_PKEY, &r), 1);
	ck_assert_uint_eq(r.sl, SA_SL_NO_QOS);
	ck_assert_uint_eq(r.mtu, 5);
	V.qos_policy = NULL;
	V.policy = NULL;
	qos_policy_free(qos);
	pkey_policy_free(pol);
}
END_TEST

/* ------------------------------------------------------------ LMC */

START_TEST(lmc_pairs)
{
	struct sa_path w = { 0 }, r;
	struct sa_out o;
	size_t i, diag = 0;

	/* a and b get LMC 1: 2 x 2 LID pairs, 2 preferred */
	fabric_set_lid(&F, A, 0x40, 1);
	fabric_set_lid(&F, B, 0x50, 1);
	lft_set_fini(&L);
	route();
	/* the engines route base LIDs: the others go the same way */
	for (i = 0; i < L.nsw; i++) {
		lft_row(&L, (uint32_t)i)[0x41] = lft_row(&L, (uint32_t)i)[0x40];
		lft_row(&L, (uint32_t)i)[0x51] = lft_row(&L, (uint32_t)i)[0x50];
	}
	sa_attr_path_record.view_changed(ST, &V, &V);
	gid(w.sgid, PREFIX, A);
	gid(w.dgid, PREFIX, B);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 4);
	for (i = 0; i < 4; i++) {
		rec_at(&o, i, &r);
		if (r.preference == 0) {
			diag++;
			ck_assert_uint_eq(r.slid - 0x40, r.dlid - 0x50);
		} else
			ck_assert_uint_eq(r.preference, 2);
	}
	ck_assert_uint_eq(diag, 2);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.preference, 0);
	sa_out_fini(&o);
	w.numb_path = 3;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID |
	    PR_CM_NUMB_PATH, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 3);
	sa_out_fini(&o);
	w.dlid = 0x51;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID |
	    PR_CM_DLID, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 2);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_GET, PR_CM_SGID | PR_CM_DGID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 1);
	sa_out_fini(&o);
}
END_TEST

/*
 * LMC: the order of the (SLID, DLID) pairs, as OpenSM's
 * pr_rcv_get_port_pair_paths gives them (sa/path.c): the same offsets
 * first (preference 0), then source major, destination minor (2).
 */

/* Give a and b LID blocks, route every LID, index the view again. */
static void
lmc_lids(uint16_t alid, uint8_t almc, uint16_t blid, uint8_t blmc)
{
	fabric_set_lid(&F, A, alid, almc);
	fabric_set_lid(&F, B, blid, blmc);
	lft_set_fini(&L);
	route();
	sa_attr_path_record.view_changed(ST, &V, &V);
}

/* Switch node n sends lid out of port. */
static void
set_route(uint32_t n, uint16_t lid, uint8_t port)
{
	lft_row(&L, L.node_sw[n])[lid] = port;
}

/* The records of o are, in order, the (SLID, DLID, Preference) of want. */
static void
expect_pairs(const struct sa_out *o, const uint16_t (*want)[3], size_t n)
{
	struct sa_path r;

	ck_assert_uint_eq(o->n, n);
	for (size_t i = 0; i < n; i++) {
		rec_at(o, i, &r);
		ck_assert_msg(r.slid == want[i][0] && r.dlid == want[i][1] &&
		    r.preference == want[i][2],
		    "record %zu: (0x%x, 0x%x, %u), want (0x%x, 0x%x, %u)", i,
		    r.slid, r.dlid, r.preference, want[i][0], want[i][1],
		    want[i][2]);
	}
}

/* Ask a -> b by GIDs (and more, as mask says) and check the order. */
static void
ask_pairs(uint8_t method, uint64_t mask, struct sa_path *w,
    const uint16_t (*want)[3], size_t n)
{
	struct sa_out o;

	gid(w->sgid, PREFIX, A);
	gid(w->dgid, PREFIX, B);
	ck_assert_uint_eq(ask(method, PR_CM_SGID | PR_CM_DGID | mask, w, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, want, n);
	sa_out_fini(&o);
}

START_TEST(lmc1_order)
{
	static const uint16_t all[][3] = {
		{ 0x40, 0x50, 0 }, { 0x41, 0x51, 0 },
		{ 0x40, 0x51, 2 }, { 0x41, 0x50, 2 },
	};
	static const uint16_t by_dlid[][3] = {
		{ 0x40, 0x51, 0 }, { 0x41, 0x51, 2 },
	};
	static const uint16_t by_slid[][3] = {
		{ 0x41, 0x50, 0 }, { 0x41, 0x51, 2 },
	};
	struct sa_path w = { 0 };

	lmc_lids(0x40, 1, 0x50, 1);
	ask_pairs(MAD_GETTABLE, 0, &w, all, 4);
	/* NumbPath: the first n, per port pair; 0: none */
	w.numb_path = 3;
	ask_pairs(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, all, 3);
	w.numb_path = 1;
	ask_pairs(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, all, 1);
	w.numb_path = 0;
	ask_pairs(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, all, 0);
	w.numb_path = 100;
	ask_pairs(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, all, 4);
	/* a given LID of the block: that LID only, offsets counted in the
	 * ranges asked for */
	w.dlid = 0x51;
	ask_pairs(MAD_GETTABLE, PR_CM_DLID, &w, by_dlid, 2);
	w.slid = 0x41;
	ask_pairs(MAD_GETTABLE, PR_CM_SLID, &w, by_slid, 2);
	ask_pairs(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, all + 1, 1);
	/* Get: the first */
	ask_pairs(MAD_GET, 0, &w, all, 1);
	ask_pairs(MAD_GET, PR_CM_DLID, &w, by_dlid, 1);
}
END_TEST

START_TEST(lmc2_order)
{
	static const uint16_t all[][3] = {
		{ 0x40, 0x50, 0 }, { 0x41, 0x51, 0 },
		{ 0x42, 0x52, 0 }, { 0x43, 0x53, 0 },
		{ 0x40, 0x51, 2 }, { 0x40, 0x52, 2 }, { 0x40, 0x53, 2 },
		{ 0x41, 0x50, 2 }, { 0x41, 0x52, 2 }, { 0x41, 0x53, 2 },
		{ 0x42, 0x50, 2 }, { 0x42, 0x51, 2 }, { 0x42, 0x53, 2 },
		{ 0x43, 0x50, 2 }, { 0x43, 0x51, 2 }, { 0x43, 0x52, 2 },
	};
	static const uint16_t by_slid[][3] = {
		{ 0x42, 0x50, 0 }, { 0x42, 0x51, 2 }, { 0x42, 0x52, 2 },
		{ 0x42, 0x53, 2 },
	};
	static const uint16_t by_dlid[][3] = {
		{ 0x40, 0x53, 0 }, { 0x41, 0x53, 2 }, { 0x42, 0x53, 2 },
		{ 0x43, 0x53, 2 },
	};
	/* blocks of different sizes: the same offsets while both last */
	static const uint16_t mixed[][3] = {
		{ 0x40, 0x50, 0 }, { 0x41, 0x51, 0 },
		{ 0x40, 0x51, 2 }, { 0x41, 0x50, 2 }, { 0x42, 0x50, 2 },
		{ 0x42, 0x51, 2 }, { 0x43, 0x50, 2 }, { 0x43, 0x51, 2 },
	};
	static const uint16_t slid_dlid[][3] = { { 0x42, 0x51, 0 } };
	struct sa_path w = { 0 }, r;
	struct sa_out o;

	lmc_lids(0x40, 2, 0x50, 2);
	ask_pairs(MAD_GETTABLE, 0, &w, all, 16);
	w.numb_path = 6;
	ask_pairs(MAD_GETTABLE, PR_CM_NUMB_PATH, &w, all, 6);
	w.slid = 0x42;
	ask_pairs(MAD_GETTABLE, PR_CM_SLID, &w, by_slid, 4);
	w.dlid = 0x53;
	ask_pairs(MAD_GETTABLE, PR_CM_DLID, &w, by_dlid, 4);
	/* LIDs alone name the ports, whichever LID of the block */
	w.dlid = 0x51;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, slid_dlid, 1);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.sgid[15], (uint8_t)F.ports[A].guid);
	ck_assert_uint_eq(r.dgid[15], (uint8_t)F.ports[B].guid);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask(MAD_GET, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, slid_dlid, 1);
	sa_out_fini(&o);
	/* a LID past the block names nobody */
	w.dlid = 0x54;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SLID | PR_CM_DLID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 0);
	sa_out_fini(&o);
	lmc_lids(0x40, 2, 0x50, 1);
	ask_pairs(MAD_GETTABLE, 0, &w, mixed, 8);
}
END_TEST

/*
 * Each record is its own path's: a cable S1.7 - S3.7 (4X QDR, 4096)
 * beside the slow way through S2 (S2.6 - S3.6: 1X, 1024). LID 0x50 of b
 * goes through S2, 0x51 over the cable; back, a's 0x40 over the cable and
 * 0x41 through S2, then nowhere.
 */
START_TEST(lmc_own_path)
{
	static const uint16_t all[][3] = {
		{ 0x40, 0x50, 0 }, { 0x41, 0x51, 0 },
		{ 0x40, 0x51, 2 }, { 0x41, 0x50, 2 },
	};
	/* MTU, rate codes of each record of all[] */
	static const uint8_t mtu[] = { 3, 5, 5, 3 }, rate[] = { 3, 7, 7, 3 };
	struct sa_path w = { 0 }, r;
	struct sa_out o;
	size_t i;

	testfab_connect(&F, nS1, 7, nS3, 7);
	set_info(fabric_port_idx(&F, nS1, 7), 2, 4, 5);
	set_info(fabric_port_idx(&F, nS3, 7), 2, 4, 5);
	lmc_lids(0x40, 1, 0x50, 1);
	set_route(nS1, 0x50, 5);
	set_route(nS2, 0x50, 6);
	set_route(nS1, 0x51, 7);
	set_route(nS3, 0x40, 7);
	set_route(nS3, 0x41, 6);
	set_route(nS2, 0x41, 5);
	gid(w.sgid, PREFIX, A);
	gid(w.dgid, PREFIX, B);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID, &w, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, all, 4);
	for (i = 0; i < 4; i++) {
		rec_at(&o, i, &r);
		ck_assert_msg(r.mtu == mtu[i] && r.rate == rate[i],
		    "record %zu: MTU %u rate %u, want %u %u", i, r.mtu, r.rate,
		    mtu[i], rate[i]);
		ck_assert(r.reversible);
	}
	sa_out_fini(&o);
	/* a selector keeps the paths that meet it, in order */
	w.mtu_sel = SA_SEL_GT;
	w.mtu = 4;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID |
	    PR_CM_MTU_SEL | PR_CM_MTU, &w, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 2);
	rec_at(&o, 0, &r);
	ck_assert(r.slid == 0x41 && r.dlid == 0x51);
	rec_at(&o, 1, &r);
	ck_assert(r.slid == 0x40 && r.dlid == 0x51);
	sa_out_fini(&o);
	/* the way back to 0x41 lost: its records are not reversible */
	set_route(nS3, 0x41, LFT_NO_ROUTE);
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID, &w, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 4);
	for (i = 0; i < 4; i++) {
		rec_at(&o, i, &r);
		ck_assert(r.reversible == (r.slid == 0x40));
	}
	sa_out_fini(&o);
	w.reversible = true;
	ck_assert_uint_eq(ask(MAD_GETTABLE, PR_CM_SGID | PR_CM_DGID |
	    PR_CM_REVERSIBLE, &w, &o), SA_STATUS_OK);
	expect_pairs(&o, (const uint16_t[][3]){ { 0x40, 0x50, 0 },
	    { 0x40, 0x51, 2 } }, 2);
	sa_out_fini(&o);
}
END_TEST

/* ------------------------------------------------------------ MultiPath */

static bool ask_rev;     /* ask_multi asks for reversible paths */

static unsigned
ask_multi(uint8_t method, uint64_t mask, const uint32_t *src, unsigned ns,
    const uint32_t *dst, unsigned nd, uint8_t numb, size_t cut,
    struct sa_out *o)
{
	static uint8_t rec[SA_MPATH_FIXED_SIZE + 16 * 16];
	struct sa_mpath m = { .sgid_count = (uint8_t)ns,
	    .dgid_count = (uint8_t)nd, .numb_path = numb,
	    .reversible = ask_rev };
	unsigned i;
	size_t len;

	sa_mpath_encode(&m, rec);
	for (i = 0; i < ns; i++)
		gid(rec + SA_MPATH_FIXED_SIZE + 16 * i, PREFIX, src[i]);
	for (i = 0; i < nd; i++)
		gid(rec + SA_MPATH_FIXED_SIZE + 16 * (ns + i), PREFIX, dst[i]);
	len = SA_MPATH_FIXED_SIZE + 16 * (ns + nd) - cut;
	/* The whole request, however long (no padding to 256 here). */
	{
		struct sa_req q = {
			.method = method, .attr = SA_ATTR_MULTIPATH_REC,
			.comp_mask = mask, .rec = MAD + SA_HDR_SIZE, .mad = MAD,
			.len = SA_HDR_SIZE + len, .requester = A,
		};

		memset(MAD, 0, sizeof(MAD));
		memcpy(MAD + SA_HDR_SIZE, rec, len);
		sa_out_init(o, SA_PATH_REC_SIZE, 0);
		return sa_attr_multipath_record.get(&C, &q, o);
	}
}

START_TEST(multipath)
{
	const uint64_t M = MPR_CM_SGID_COUNT | MPR_CM_DGID_COUNT;
	uint32_t src[2] = { A, Cc }, dst[3] = { B, E, S2 };
	struct sa_path r;
	struct sa_out o;

	/* the module has its own state: use it */
	sa_attr_path_record.fini(ST);
	ST = sa_attr_multipath_record.init(NULL, NULL);
	sa_attr_multipath_record.view_changed(ST, NULL, &V);
	C.state = ST;
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 3, 0, 0, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 6);
	rec_at(&o, 0, &r);
	ck_assert_uint_eq(r.slid, F.ports[A].lid);
	ck_assert_uint_eq(r.dlid, F.ports[B].lid);
	ck_assert_uint_eq(r.mtu, 3);
	rec_at(&o, 5, &r);
	ck_assert_uint_eq(r.slid, F.ports[Cc].lid);
	ck_assert_uint_eq(r.dlid, F.ports[S2].lid);
	sa_out_fini(&o);
	/* NumbPath caps the whole answer */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M | MPR_CM_NUMB_PATH, src,
	    2, dst, 3, 4, 0, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 4);
	sa_out_fini(&o);
	/* counts are required; GIDs past the data; empty sides */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, MPR_CM_SGID_COUNT, src, 2,
	    dst, 3, 0, 0, &o), SA_STATUS_INSUFFICIENT_COMPONENTS);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 3, 0, 8,
	    &o), SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 0, 0, 0,
	    &o), SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GET, M, src, 2, dst, 3, 0, 0, &o),
	    SA_STATUS_METHOD_ATTR_UNSUPP);
	sa_out_fini(&o);
	/* a bad GID among them */
	F.ports[E].guid ^= 0xABC000;
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 3, 0, 0,
	    &o), SA_STATUS_INVALID_GID);
	F.ports[E].guid ^= 0xABC000;
	sa_out_fini(&o);
	/* more GIDs than fit one MAD (a request reassembled from RMPP) */
	{
		uint32_t many[15];

		for (unsigned i = 0; i < 15; i++)
			many[i] = i % 2 ? B : E;
		ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 1, many, 15,
		    0, 0, &o), SA_STATUS_OK);
		ck_assert_uint_eq(o.n, 15);
		sa_out_fini(&o);
	}
}
END_TEST

/* The MultiPathRecord module's own state in place of the PathRecord one. */
static void
use_multipath(void)
{
	sa_attr_path_record.fini(ST);
	ST = sa_attr_multipath_record.init(NULL, NULL);
	sa_attr_multipath_record.view_changed(ST, NULL, &V);
	C.state = ST;
}

/* a, c, b, e get blocks of 2 LIDs at 0x40, 0x42, 0x50, 0x52; every LID
 * routed. */
static void
mpr_lmc1(void)
{
	fabric_set_lid(&F, A, 0x40, 1);
	fabric_set_lid(&F, Cc, 0x42, 1);
	fabric_set_lid(&F, B, 0x50, 1);
	fabric_set_lid(&F, E, 0x52, 1);
	lft_set_fini(&L);
	route();
	use_multipath();
}

/* MultiPathRecord: the same QoS level and SL as a PathRecord (a
 * MultiPathRecord mask's ServiceID, P_Key and QoSClass bits count). */
START_TEST(qos_multipath)
{
	char qtext[1024];
	struct pkey_errors errs;
	struct qos_policy *qos;
	struct sa_out o;
	struct sa_path r;
	uint32_t src[1] = { A }, dst[2] = { Cc, B };

	snprintf(qtext, sizeof(qtext),
	    "port-groups\n  port-group\n    name: c\n"
	    "    port-guid: 0x%016" PRIx64 "\n  end-port-group\nend-port-groups\n"
	    "qos-levels\n"
	    "  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\n"
	    "  qos-level\n    name: stor\n    sl: 6\n    mtu-limit: 2\n"
	    "  end-qos-level\n"
	    "end-qos-levels\n"
	    "qos-match-rules\n  qos-match-rule\n    destination: c\n"
	    "    qos-level-name: stor\n  end-qos-match-rule\n"
	    "end-qos-match-rules\n", F.ports[Cc].guid);
	pkey_errors_init(&errs);
	qos = qos_policy_parse("q.conf", qtext, strlen(qtext), NULL, &errs);
	ck_assert_msg(qos != NULL, "%s", pkey_errors_text(&errs, false));
	pkey_errors_fini(&errs);
	V.qos = true;
	V.qos_policy = qos;
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, MPR_CM_SGID_COUNT |
	    MPR_CM_DGID_COUNT, src, 1, dst, 2, 0, 0, &o), SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 2);
	rec_at(&o, 0, &r);              /* A -> C: stor */
	ck_assert_uint_eq(r.dlid, F.ports[Cc].lid);
	ck_assert_uint_eq(r.sl, 6);
	ck_assert_uint_eq(r.mtu, 2);    /* stor's cap */
	rec_at(&o, 1, &r);              /* A -> B: DEFAULT */
	ck_assert_uint_eq(r.dlid, F.ports[B].lid);
	ck_assert_uint_eq(r.sl, 1);
	ck_assert_uint_eq(r.mtu, 3);    /* the route's 1024, not stor's cap */
	sa_out_fini(&o);
	V.qos = false;
	V.qos_policy = NULL;
	qos_policy_free(qos);
}
END_TEST

START_TEST(multipath_lmc)
{
	const uint64_t M = MPR_CM_SGID_COUNT | MPR_CM_DGID_COUNT;
	static const uint16_t ab[][3] = {
		{ 0x40, 0x50, 0 }, { 0x41, 0x51, 0 },
		{ 0x40, 0x51, 2 }, { 0x41, 0x50, 2 }, { 0x40, 0x52, 0 },
	};
	uint32_t src[1] = { A }, dst[2] = { B, E };
	struct sa_out o;

	mpr_lmc1();
	/* one pair: PathRecord's order */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 1, dst, 1, 0, 0, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, ab, 4);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M | MPR_CM_NUMB_PATH, src,
	    1, dst, 1, 3, 0, &o), SA_STATUS_OK);
	expect_pairs(&o, ab, 3);
	sa_out_fini(&o);
	/* NumbPath counts over the whole answer: a -> b's 4, a -> e's first */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M | MPR_CM_NUMB_PATH, src,
	    1, dst, 2, 5, 0, &o), SA_STATUS_OK);
	expect_pairs(&o, ab, 5);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 1, dst, 2, 0, 0, &o),
	    SA_STATUS_OK);
	ck_assert_uint_eq(o.n, 8);
	sa_out_fini(&o);
}
END_TEST

/*
 * Two sources, two destinations, NumbPath 2: APM's two paths (OpenSM's
 * mpr_rcv_get_apm_paths). GUIDs: a < c, b < e. LMC 1, base LIDs 0x40 and
 * 0x50, byte-swapped as OpenSM hashes them: 0x4000 and 0x5000; base
 * offset ((0x4000 >> 1) << 4 | 0x5000 >> 1) mod 103 = 141312 mod 103 = 99,
 * so a's pairs start at offset 1, c's at 0: a -> b (0x41, 0x51), a -> e
 * (0x41, 0x53), c -> b (0x42, 0x50), c -> e (0x42, 0x52). (Unswapped the
 * offset would be 37: the same parity; apm_lmc2 tells them apart.)
 */
START_TEST(multipath_apm)
{
	const uint64_t M = MPR_CM_SGID_COUNT | MPR_CM_DGID_COUNT |
	    MPR_CM_NUMB_PATH;
	static const uint16_t diag0[][3] = {
		{ 0x41, 0x51, 0 }, { 0x42, 0x52, 0 },
	};
	static const uint16_t diag1[][3] = {
		{ 0x41, 0x53, 0 }, { 0x42, 0x50, 0 },
	};
	uint32_t src[2] = { A, Cc }, dst[2] = { B, E };
	uint32_t rsrc[2] = { Cc, A }, rdst[2] = { E, B };
	struct sa_out o;

	ck_assert_uint_lt(F.ports[A].guid, F.ports[Cc].guid);
	ck_assert_uint_lt(F.ports[B].guid, F.ports[E].guid);
	mpr_lmc1();
	/* every path 4 links: the first diagonal */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 2, 2, 0, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, diag0, 2);
	sa_out_fini(&o);
	/* the GIDs' order does not matter */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, rsrc, 2, rdst, 2, 2, 0,
	    &o), SA_STATUS_OK);
	expect_pairs(&o, diag0, 2);
	sa_out_fini(&o);
	/* the NumbPath field asks for it even outside the mask (OpenSM) */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M & ~(uint64_t)
	    MPR_CM_NUMB_PATH, src, 2, dst, 2, 2, 0, &o), SA_STATUS_OK);
	expect_pairs(&o, diag0, 2);
	sa_out_fini(&o);
	/* NumbPath 3: every pair in order, not APM */
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 2, 3, 0, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, (const uint16_t[][3]){ { 0x40, 0x50, 0 },
	    { 0x41, 0x51, 0 }, { 0x40, 0x51, 2 } }, 3);
	sa_out_fini(&o);

	/* a cable S1.7 - S3.7: 3 links, but 0x51 and 0x52 still go through
	 * S2 (4 links): the second diagonal has the shorter path */
	testfab_connect(&F, nS1, 7, nS3, 7);
	set_info(fabric_port_idx(&F, nS1, 7), 2, 4, 5);
	set_info(fabric_port_idx(&F, nS3, 7), 2, 4, 5);
	lft_set_fini(&L);
	route();
	sa_attr_multipath_record.view_changed(ST, &V, &V);
	set_route(nS1, 0x51, 5);
	set_route(nS2, 0x51, 6);
	set_route(nS1, 0x52, 5);
	set_route(nS2, 0x52, 6);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 2, 2, 0, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, diag1, 2);
	sa_out_fini(&o);
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, rsrc, 2, rdst, 2, 2, 0,
	    &o), SA_STATUS_OK);
	expect_pairs(&o, diag1, 2);
	sa_out_fini(&o);
	/* c -> b has no path left (0x50 and 0x51 unrouted at S1 would cut a
	 * -> b too: cut 0x50 there, and c's 0x43 on the way back, asking
	 * for reversible paths): the diagonal with two paths wins over the
	 * one with the shorter path but one path (OpenSM would answer that
	 * one path) */
	set_route(nS1, 0x50, LFT_NO_ROUTE);
	set_route(nS3, 0x43, LFT_NO_ROUTE);
	ask_rev = true;
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M | MPR_CM_REVERSIBLE, src,
	    2, dst, 2, 2, 0, &o), SA_STATUS_OK);
	ask_rev = false;
	expect_pairs(&o, diag0, 2);
	sa_out_fini(&o);
}
END_TEST

/* LMC 2, blocks at 0x40 (a), 0x44 (c), 0x50 (b), 0x54 (e): swapped,
 * ((0x4000 >> 2) << 4 | 0x5000 >> 2) mod 103 = 101: a's pairs start at
 * offset 1, c's at 2 (unswapped: 70, offsets 2 and 3). */
START_TEST(multipath_apm_lmc2)
{
	const uint64_t M = MPR_CM_SGID_COUNT | MPR_CM_DGID_COUNT |
	    MPR_CM_NUMB_PATH;
	static const uint16_t diag0[][3] = {
		{ 0x41, 0x51, 0 }, { 0x46, 0x56, 0 },
	};
	uint32_t src[2] = { A, Cc }, dst[2] = { B, E };
	struct sa_out o;

	fabric_set_lid(&F, A, 0x40, 2);
	fabric_set_lid(&F, Cc, 0x44, 2);
	fabric_set_lid(&F, B, 0x50, 2);
	fabric_set_lid(&F, E, 0x54, 2);
	lft_set_fini(&L);
	route();
	use_multipath();
	ck_assert_uint_eq(ask_multi(MAD_GETMULTI, M, src, 2, dst, 2, 2, 0, &o),
	    SA_STATUS_OK);
	expect_pairs(&o, diag0, 2);
	sa_out_fini(&o);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("path");
	TCase *tf = tcase_create("fabric");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tf, setup, teardown);
	tcase_add_test(tf, mtu_rate_minimum);
	tcase_add_test(tf, selectors);
	tcase_add_test(tf, gid_queries);
	tcase_add_test(tf, lid_queries);
	tcase_add_test(tf, wildcards);
	tcase_add_test(tf, no_route_no_record);
	tcase_add_test(tf, partition_rule);
	tcase_add_test(tf, partition_sl);
	tcase_add_test(tf, qos_policy_sl);
	tcase_add_test(tf, lmc_pairs);
	tcase_add_test(tf, lmc1_order);
	tcase_add_test(tf, lmc2_order);
	tcase_add_test(tf, lmc_own_path);
	tcase_add_test(tf, multipath);
	tcase_add_test(tf, multipath_lmc);
	tcase_add_test(tf, qos_multipath);
	tcase_add_test(tf, multipath_apm);
	tcase_add_test(tf, multipath_apm_lmc2);
	suite_add_tcase(s, tf);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
