/*
 * minhop and the routing core (tables, chain, report) on fabrics built in
 * memory. Paths are judged by testfab_check(), which has its own BFS.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

/* Route f with minhop into s (sized here). */
static void
route_minhop(const struct fabric *f, struct lft_set *s)
{
	char why[128] = "";

	ck_assert_int_eq(lft_set_init(s, f), 0);
	ck_assert_msg(re_minhop.route(f, &(struct routing_opts){ 0 }, s, why, sizeof(why)) == 0,
	    "minhop failed: %s", why);
}

/* Every pair reached along a shortest path; unroutable pairs as given. */
static void
assert_shortest(const struct fabric *f, const struct lft_set *s,
    uint64_t unroutable)
{
	struct testfab_stats st;

	testfab_check(f, s, &st);
	ck_assert_msg(st.bad == 0, "%llu bad pairs, first: %s",
	    (unsigned long long)st.bad, st.first);
	ck_assert_uint_eq(st.unroutable, unroutable);
	ck_assert_uint_eq(st.shortest + st.unroutable, st.pairs);
	ck_assert_uint_gt(st.pairs, 0);
}

/* Destination LIDs that switch node n sends out of port num. */
static unsigned
port_lids(const struct lft_set *s, uint32_t n, uint8_t num)
{
	const uint8_t *row = lft_row(s, s->node_sw[n]);
	unsigned lid, c = 0;

	for (lid = 1; lid <= s->max_lid; lid++)
		if (row[lid] == num)
			c++;
	return c;
}

static void
check_ft2(unsigned k)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	unsigned half = k / 2, i, j, c, lo = ~0u, hi = 0, leaf_lo, leaf_hi;

	fabric_init(&f);
	testfab_ft2(&f, k);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);

	/* up ports: within 1 on each leaf, and across all leaves */
	for (i = 0; i < k; i++) {
		leaf_lo = ~0u;
		leaf_hi = 0;
		for (j = 0; j < half; j++) {
			c = port_lids(&s, i, (uint8_t)(half + 1 + j));
			leaf_lo = c < leaf_lo ? c : leaf_lo;
			leaf_hi = c > leaf_hi ? c : leaf_hi;
		}
		ck_assert_msg(leaf_hi - leaf_lo <= 1, "leaf %u: up ports "
		    "carry %u..%u LIDs", i, leaf_lo, leaf_hi);
		lo = leaf_lo < lo ? leaf_lo : lo;
		hi = leaf_hi > hi ? leaf_hi : hi;
	}
	ck_assert_msg(hi - lo <= 1, "spine-facing ports carry %u..%u", lo, hi);
	/* every remote LID goes up: (k-1) leaves x (k/2 HCAs + 1) + spines */
	for (i = 0, c = 0; i < half; i++)
		c += port_lids(&s, 0, (uint8_t)(half + 1 + i));
	ck_assert_uint_eq(c, (k - 1) * (half + 1) + half);

	memset(&rep, 0, sizeof(rep));
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.lids, s.max_lid);
	ck_assert_uint_eq(rep.unreachable, 0);
	/* the busiest inter-switch ports are the leaves' up ports */
	ck_assert_uint_eq(rep.max_port_load, hi);
	lft_set_fini(&s);
	fabric_fini(&f);
}

START_TEST(test_ft2_8)
{
	check_ft2(8);
}
END_TEST

START_TEST(test_ft2_16)
{
	check_ft2(16);
}
END_TEST

START_TEST(test_ring6)
{
	struct fabric f;
	struct lft_set s;
	unsigned i, a, b;

	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	/* two switches each way; the opposite one is as far either way and
	 * its 3 LIDs even the two directions out: 8 and 7 */
	for (i = 0; i < 6; i++) {
		a = port_lids(&s, i, 1);
		b = port_lids(&s, i, 2);
		ck_assert_uint_eq(a + b, 5 * 3);
		ck_assert_msg(a >= 7 && b >= 7, "switch %u: %u / %u", i, a, b);
	}
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_random)
{
	struct fabric f;
	struct lft_set s, again;
	uint64_t seed;

	for (seed = 1; seed <= 5; seed++) {
		fabric_init(&f);
		testfab_random(&f, 40, 3, 30, seed);
		route_minhop(&f, &s);
		assert_shortest(&f, &s, 0);
		lft_set_fini(&s);
		fabric_fini(&f);
	}

	/* 150 switches: the BFS runs 64 sources at a time, the last batch
	 * partial; and the same input gives the same tables */
	fabric_init(&f);
	testfab_random(&f, 150, 2, 120, 99);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	route_minhop(&f, &again);
	ck_assert_int_eq(memcmp(s.port, again.port,
	    (size_t)s.nsw * (s.max_lid + 1u)), 0);
	lft_set_fini(&again);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_ring_diameter)
{
	struct fabric f;
	struct lft_set s;

	/* distances up to 260 hops: more than a byte holds */
	fabric_init(&f);
	testfab_ring(&f, 520, 0);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_removed_link)
{
	struct fabric f;
	struct lft_set s;
	unsigned i;

	fabric_init(&f);
	testfab_ft2(&f, 8);
	testfab_unlink(&f, 0, 5);       /* leaf 0 <-> spine 0 */
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	ck_assert_uint_eq(port_lids(&s, 0, 5), 0);
	ck_assert_uint_eq(port_lids(&s, 8, 1), 0);
	/* leaf 0's three remaining up ports share the load */
	for (i = 6; i <= 8; i++)
		ck_assert_uint_gt(port_lids(&s, 0, (uint8_t)i), 0);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* a ring cut once is a line: the far side is now the long way */
	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	testfab_unlink(&f, 0, 1);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	ck_assert_uint_eq(port_lids(&s, 0, 1), 0);
	ck_assert_uint_eq(port_lids(&s, 0, 2), 5 * 3);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_port_down)
{
	struct fabric f;
	struct lft_set s;

	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	/* cable 0.1 <-> 1.2 stays known, but one end reads DOWN */
	f.ports[fabric_port_idx(&f, 0, 1)].state = PORT_DOWN;
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	ck_assert_uint_eq(port_lids(&s, 0, 1), 0);
	ck_assert_uint_eq(port_lids(&s, 1, 2), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_parallel_links)
{
	struct fabric f;
	struct lft_set s;
	uint32_t a, b, hca;
	unsigned i, n3, n4;

	fabric_init(&f);
	a = testfab_switch(&f, 8);
	b = testfab_switch(&f, 8);
	testfab_connect(&f, a, 1, b, 1);
	testfab_connect(&f, a, 2, b, 2);
	for (i = 0; i < 5; i++) {
		hca = testfab_ca(&f, 1);
		testfab_connect(&f, a, (uint8_t)(3 + i), hca, 1);
		hca = testfab_ca(&f, 1);
		testfab_connect(&f, b, (uint8_t)(3 + i), hca, 1);
	}
	testfab_lids(&f);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	/* B and its 5 HCAs: 6 LIDs over two cables */
	n3 = port_lids(&s, a, 1);
	n4 = port_lids(&s, a, 2);
	ck_assert_uint_eq(n3 + n4, 6);
	ck_assert_uint_eq(n3, 3);
	ck_assert_uint_eq(n4, 3);
	ck_assert_uint_eq(port_lids(&s, b, 1), 3);
	ck_assert_uint_eq(port_lids(&s, b, 2), 3);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_unconnected_ca)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	uint32_t lone, pair_a, pair_b, sw;
	uint16_t lids[3];

	fabric_init(&f);
	testfab_ring(&f, 3, 1);
	lone = testfab_ca(&f, 1);       /* cabled to nothing */
	pair_a = testfab_ca(&f, 1);     /* two CAs cabled to each other */
	pair_b = testfab_ca(&f, 1);
	testfab_connect(&f, pair_a, 1, pair_b, 1);
	testfab_lids(&f);
	lids[0] = f.ports[fabric_port_idx(&f, lone, 1)].lid;
	lids[1] = f.ports[fabric_port_idx(&f, pair_a, 1)].lid;
	lids[2] = f.ports[fabric_port_idx(&f, pair_b, 1)].lid;
	ck_assert_uint_ne(lids[0], 0);

	route_minhop(&f, &s);
	assert_shortest(&f, &s, 3 * 3);
	for (sw = 0; sw < s.nsw; sw++) {
		ck_assert_uint_eq(lft_row(&s, sw)[lids[0]], LFT_NO_ROUTE);
		ck_assert_uint_eq(lft_row(&s, sw)[lids[1]], LFT_NO_ROUTE);
		ck_assert_uint_eq(lft_row(&s, sw)[lids[2]], LFT_NO_ROUTE);
	}
	memset(&rep, 0, sizeof(rep));
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.unreachable, 3 * 3);
	ck_assert_uint_eq(rep.lids, s.max_lid - 3);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

static char logged[2048];

static void
capture(const char *msg)
{
	size_t len = strlen(logged);

	snprintf(logged + len, sizeof(logged) - len, "%s\n", msg);
}

/* An engine that scribbles over the tables and then gives up. */
static int
scribble(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *out, char *why, size_t len)
{
	(void)f;
	(void)o;
	memset(out->port, 1, (size_t)out->nsw * (out->max_lid + 1u));
	snprintf(why, len, "not my kind of fabric");
	return -1;
}

static const struct routing_engine re_scribble = {
	.name = "scribble",
	.route = scribble,
};

/* minhop's tables under a name that promises no credit loops. */
static int
liar(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *out, char *why, size_t len)
{
	return re_minhop.route(f, o, out, why, len);
}

static const struct routing_engine re_liar = {
	.name = "liar",
	.route = liar,
	.deadlock_free = true,
};

/* An engine whose promise of deadlock freedom its tables break is passed
 * over when another engine follows it, and used (flagged) when none does. */
START_TEST(test_chain_credit_loop)
{
	const struct routing_engine *chain[2] = { &re_liar, &re_updn };
	struct fabric f;
	struct lft_set s;
	struct route_report rep;

	fabric_init(&f);
	testfab_ring(&f, 6, 2);         /* minhop on a ring has a cycle */
	testfab_lids(&f);
	ck_assert_int_eq(routing_run(chain, 2, &f, NULL, &s, &rep, capture), 0);
	ck_assert_str_eq(rep.engine, "updn");
	ck_assert_int_eq(rep.deadlock_free, 1);
	ck_assert_ptr_nonnull(strstr(logged, "credit loop"));
	lft_set_fini(&s);
	ck_assert_int_eq(routing_run(chain, 1, &f, NULL, &s, &rep, capture), 0);
	ck_assert_str_eq(rep.engine, "liar");
	ck_assert_int_eq(rep.deadlock_free, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_chain)
{
	const struct routing_engine *chain[2];
	struct fabric f;
	struct lft_set s;
	struct route_report rep;

	ck_assert_ptr_null(routing_engine_find("nosuch"));
	ck_assert_ptr_eq(routing_engine_find("minhop"), &re_minhop);

	/* no switch: nothing to route, and the reason is logged */
	fabric_init(&f);
	testfab_ca(&f, 1);
	testfab_lids(&f);
	chain[0] = &re_minhop;
	logged[0] = '\0';
	ck_assert_int_eq(routing_run(chain, 1, &f, NULL, &s, &rep, capture), -1);
	ck_assert_msg(strstr(logged, "minhop") != NULL &&
	    strstr(logged, "no switch") != NULL, "logged: %s", logged);
	ck_assert_ptr_null(s.port);     /* left empty */
	ck_assert_int_eq(routing_run(chain, 1, &f, NULL, &s, &rep, NULL), -1);
	ck_assert_int_eq(routing_run(chain, 0, &f, NULL, &s, &rep, NULL), -1);
	fabric_fini(&f);

	/* a failing engine first: its scribbles do not survive */
	fabric_init(&f);
	testfab_ft2(&f, 8);
	chain[0] = &re_scribble;
	chain[1] = &re_minhop;
	logged[0] = '\0';
	ck_assert_int_eq(routing_run(chain, 2, &f, NULL, &s, &rep, capture), 0);
	ck_assert_str_eq(rep.engine, "minhop");
	ck_assert(rep.seconds >= 0.0);
	ck_assert_uint_eq(rep.lids, s.max_lid);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_msg(strstr(logged, "not my kind of fabric") != NULL &&
	    strstr(logged, "minhop routed") != NULL, "logged: %s", logged);
	assert_shortest(&f, &s, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * A - B - C, one CA on A and one on C. LIDs: A 1, B 2, C 3, CA(A) 4,
 * CA(C) 5. Cables: A.2-B.1, B.2-C.1, A.3-CA, C.3-CA.
 */
static void
build_line(struct fabric *f)
{
	uint32_t ca;

	fabric_init(f);
	testfab_switch(f, 3);
	testfab_switch(f, 3);
	testfab_switch(f, 3);
	testfab_connect(f, 0, 2, 1, 1);
	testfab_connect(f, 1, 2, 2, 1);
	ca = testfab_ca(f, 1);
	testfab_connect(f, 0, 3, ca, 1);
	ca = testfab_ca(f, 1);
	testfab_connect(f, 2, 3, ca, 1);
	testfab_lids(f);
}

START_TEST(test_report)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	unsigned i;

	build_line(&f);
	ck_assert_uint_eq(f.ports[fabric_port_idx(&f, 4, 1)].lid, 5);
	route_minhop(&f, &s);
	memset(&rep, 0xff, sizeof(rep));        /* fill must reset it */
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.lids, 5);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.hops[0], 5);
	ck_assert_uint_eq(rep.hops[1], 6);
	ck_assert_uint_eq(rep.hops[2], 4);
	for (i = 3; i <= ROUTE_HOPS_MAX; i++)
		ck_assert_uint_eq(rep.hops[i], 0);
	/* A.2: 2,3,5  B.1: 1,4  B.2: 3,5  C.1: 1,2,4 */
	ck_assert_uint_eq(rep.max_port_load, 3);
	ck_assert_double_eq_tol(rep.mean_port_load, 2.5, 1e-9);

	/* a loop for LID 5 between A and B, and C loses LID 4 */
	lft_row(&s, 1)[5] = 1;
	lft_row(&s, 2)[4] = LFT_NO_ROUTE;
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.unreachable, 3);
	ck_assert_uint_eq(rep.lids, 3);
	ck_assert_uint_eq(rep.hops[0], 5);
	ck_assert_uint_eq(rep.hops[1], 5);
	ck_assert_uint_eq(rep.hops[2], 2);
	/* A.2: 2,3  B.1: 1,4  B.2: 3  C.1: 1,2 */
	ck_assert_uint_eq(rep.max_port_load, 2);
	ck_assert_double_eq_tol(rep.mean_port_load, 1.75, 1e-9);

	/* port 0 on a switch that does not own the LID, and a DOWN port */
	lft_row(&s, 0)[2] = 0;
	f.ports[fabric_port_idx(&f, 2, 1)].state = PORT_DOWN;
	routing_report_fill(&f, &s, &rep);
	/* misses: 1 C, 2 A C, 3 A B, 4 C, 5 A B; only B.1 still carries */
	ck_assert_uint_eq(rep.unreachable, 8);
	ck_assert_uint_eq(rep.lids, 0);
	ck_assert_uint_eq(rep.hops[0], 5);
	ck_assert_uint_eq(rep.hops[1], 2);
	ck_assert_uint_eq(rep.hops[2], 0);
	ck_assert_uint_eq(rep.max_port_load, 2);
	ck_assert_double_eq_tol(rep.mean_port_load, 2.0, 1e-9);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_report_long_ring)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;

	/* 40 switches, no HCAs: distances 0, 1..19 twice, 20 once */
	fabric_init(&f);
	testfab_ring(&f, 40, 0);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	memset(&rep, 0, sizeof(rep));
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.lids, 40);
	ck_assert_uint_eq(rep.hops[0], 40);
	ck_assert_uint_eq(rep.hops[1], 80);
	ck_assert_uint_eq(rep.hops[15], 80);
	ck_assert_uint_eq(rep.hops[ROUTE_HOPS_MAX], 40 * 9);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* The report's figures against the checker's slow walk of every pair. */
static void
assert_report_matches(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;
	struct route_report rep;
	unsigned i;

	testfab_check(f, s, &st);
	memset(&rep, 0, sizeof(rep));
	routing_report_fill(f, s, &rep);
	ck_assert_uint_eq(rep.unreachable, st.unreached);
	for (i = 0; i <= ROUTE_HOPS_MAX; i++)
		ck_assert_msg(rep.hops[i] == st.hops[i], "hops[%u]: %llu, "
		    "checker %llu", i, (unsigned long long)rep.hops[i],
		    (unsigned long long)st.hops[i]);
	ck_assert_uint_eq(rep.max_port_load, st.max_load);
	ck_assert_double_eq_tol(rep.mean_port_load, st.mean_load, 1e-9);
}

START_TEST(test_report_scrambled)
{
	struct fabric f;
	struct lft_set s;
	uint64_t x = 7;
	size_t i, n;

	/* 45 switches (not a multiple of 8), 315 LIDs (more than a tile) */
	fabric_init(&f);
	testfab_random(&f, 45, 6, 40, 3);
	route_minhop(&f, &s);
	assert_shortest(&f, &s, 0);
	assert_report_matches(&f, &s);

	/* scramble one entry in 20: loops, dead ends, wrong CAs, port 0 */
	n = (size_t)s.nsw * (s.max_lid + 1u);
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((x >> 33) % 20 == 0)
			s.port[i] = (x >> 45) % 4 == 0 ? LFT_NO_ROUTE :
			    (uint8_t)((x >> 50) % (TESTFAB_RANDOM_PORTS + 2));
	}
	f.ports[fabric_port_idx(&f, 3, 1)].state = PORT_DOWN;
	assert_report_matches(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_lft_set)
{
	struct fabric f;
	struct lft_set s;
	size_t i;

	fabric_init(&f);
	testfab_ring(&f, 4, 3);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_uint_eq(s.nsw, 4);
	ck_assert_uint_eq(s.max_lid, 4 + 4 * 3);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(s.sw_node[i], i);
		ck_assert_uint_eq(s.node_sw[i], i);
	}
	ck_assert_uint_eq(s.node_sw[4], FABRIC_NONE);
	for (i = 0; i < (size_t)s.nsw * (s.max_lid + 1u); i++)
		ck_assert_uint_eq(s.port[i], LFT_NO_ROUTE);
	lft_set_fini(&s);
	ck_assert_ptr_null(s.port);
	lft_set_fini(&s);               /* twice is harmless */
	fabric_fini(&f);
}
END_TEST

/* ---- LMC: every LID of a block routed, the block's LIDs apart ---- */

/* The busiest link over the base LIDs alone: the CA ports' blocks
 * shrunk to their base LID (which stays aligned). */
static uint64_t
base_max_link(struct fabric *f, const struct lft_set *s)
{
	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].lmc != 0)
			fabric_set_lid(f, p, f->ports[p].lid, 0);
	return routing_max_link_routes(f, s);
}

/*
 * Route shape with LMC 0 and with lmc; with lmc every LID arrives, the
 * base LIDs load the links no more than LMC 0's LIDs did, all LIDs no
 * more than 2^lmc times that, and at every switch with CAs the LIDs of a
 * remote port leave by distinct ports (to distinct neighbour switches
 * when apart says there are enough).
 */
static void
lmc_case(enum testfab_lmc_shape sh, uint8_t lmc, bool apart)
{
	struct fabric f0, f;
	struct lft_set s0, s;
	struct testfab_stats st;
	struct testfab_lmc sp;
	uint64_t m0, all, base;

	testfab_lmc_build(&f0, sh, 0);
	route_minhop(&f0, &s0);
	m0 = routing_max_link_routes(&f0, &s0);
	testfab_lmc_build(&f, sh, lmc);
	route_minhop(&f, &s);
	testfab_check(&f, &s, &st);
	ck_assert_uint_eq(st.unreached, 0);
	ck_assert_uint_gt(st.pairs, 0);
	ck_assert_uint_eq(st.bad, 0);
	testfab_lmc_spread(&f, &s, &sp);
	ck_assert_uint_gt(sp.blocks, 0);
	ck_assert_msg(sp.distinct_ports == sp.blocks, "shape %d lmc %u: %llu "
	    "of %llu blocks on distinct ports", sh, lmc,
	    (unsigned long long)sp.distinct_ports,
	    (unsigned long long)sp.blocks);
	if (apart)
		ck_assert_msg(sp.distinct_switches == sp.blocks, "shape %d "
		    "lmc %u: %llu of %llu blocks to distinct switches", sh,
		    lmc, (unsigned long long)sp.distinct_switches,
		    (unsigned long long)sp.blocks);
	all = routing_max_link_routes(&f, &s);
	base = base_max_link(&f, &s);
	ck_assert_msg(base <= m0, "shape %d lmc %u: base LIDs' busiest link "
	    "%llu, LMC 0's %llu", sh, lmc, (unsigned long long)base,
	    (unsigned long long)m0);
	ck_assert_msg(all <= m0 << lmc, "shape %d lmc %u: busiest link %llu, "
	    "LMC 0's %llu", sh, lmc, (unsigned long long)all,
	    (unsigned long long)m0);
	lft_set_fini(&s);
	lft_set_fini(&s0);
	fabric_fini(&f);
	fabric_fini(&f0);
}

START_TEST(test_lmc)
{
	lmc_case(TESTFAB_LMC_FT2_8, 1, true);
	lmc_case(TESTFAB_LMC_FT2_8, 2, true);
	lmc_case(TESTFAB_LMC_FT3_8, 2, true);
	lmc_case(TESTFAB_LMC_DOUBLED, 1, true);
	lmc_case(TESTFAB_LMC_DOUBLED, 2, false);
}
END_TEST

static Suite *
minhop_suite(void)
{
	Suite *s = suite_create("minhop");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lft_set);
	tcase_add_test(tc, test_ft2_8);
	tcase_add_test(tc, test_ft2_16);
	tcase_add_test(tc, test_ring6);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_ring_diameter);
	tcase_add_test(tc, test_removed_link);
	tcase_add_test(tc, test_port_down);
	tcase_add_test(tc, test_parallel_links);
	tcase_add_test(tc, test_unconnected_ca);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_chain_credit_loop);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_report_long_ring);
	tcase_add_test(tc, test_report_scrambled);
	tcase_add_test(tc, test_lmc);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(minhop_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
