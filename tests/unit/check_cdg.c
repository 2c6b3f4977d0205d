/*
 * Channel dependency graph: cdg_acyclic() on hand-made tables whose
 * dependencies can be counted by hand, and on scrambled tables against a
 * slow checker written here (a dependency matrix and a depth-first
 * search).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "core/fabric.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

static void
route_minhop(const struct fabric *f, struct lft_set *s)
{
	char why[128] = "";

	ck_assert_int_eq(lft_set_init(s, f), 0);
	ck_assert_msg(re_minhop.route(f, &(struct routing_opts){ 0 }, s, why,
	    sizeof(why)) == 0, "minhop failed: %s", why);
}

/* LID of port num of node n. */
static uint16_t
lid_of(const struct fabric *f, uint32_t n, uint8_t num)
{
	return f->ports[fabric_port_idx(f, n, num)].lid;
}

/*
 * The slow checker. Channels are numbered (switch, port) in a plain
 * matrix; a dependency is set for every (switch, LID) whose next switch
 * forwards the LID on over another channel.
 */
struct slow {
	uint32_t nch;
	uint32_t *id;           /* [nsw * 256] channel or UINT32_MAX */
	uint8_t *dep;           /* [nch][nch] */
	uint8_t *color;         /* DFS: 0 new, 1 on the stack, 2 done */
};

static int
slow_live(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != FABRIC_NONE && f->ports[p].state != PORT_DOWN &&
	    f->ports[q].state != PORT_DOWN;
}

/* The switch behind channel c's far end, through (sw, port). */
static uint32_t
slow_far(const struct fabric *f, const struct lft_set *s, uint32_t sw,
    unsigned port)
{
	uint32_t p = f->nodes[s->sw_node[sw]].port0 + port;

	return s->node_sw[f->ports[f->ports[p].peer].node];
}

static int
slow_cycle_from(struct slow *g, uint32_t c)
{
	uint32_t b;

	g->color[c] = 1;
	for (b = 0; b < g->nch; b++) {
		if (!g->dep[(size_t)c * g->nch + b])
			continue;
		if (g->color[b] == 1)
			return 1;
		if (g->color[b] == 0 && slow_cycle_from(g, b))
			return 1;
	}
	g->color[c] = 2;
	return 0;
}

/* 1 when acyclic, like cdg_acyclic(); *edges gets the dependency count. */
static int
slow_acyclic(const struct fabric *f, const struct lft_set *s,
    uint64_t *edges)
{
	const struct fabric_node *n;
	struct slow g;
	uint32_t sw, far, a, b, lid, c;
	unsigned port, q;
	int cyclic = 0;
	size_t i;

	memset(&g, 0, sizeof(g));
	g.id = calloc((size_t)s->nsw * 256, sizeof(*g.id));
	ck_assert_ptr_nonnull(g.id);
	for (i = 0; i < (size_t)s->nsw * 256; i++)
		g.id[i] = UINT32_MAX;
	for (sw = 0; sw < s->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		for (port = 1; port <= n->nports && port < 255; port++)
			if (slow_live(f, n->port0 + port) &&
			    f->nodes[fabric_peer_node(f, n->port0 + port)].type ==
			    NODE_SWITCH)
				g.id[sw * 256 + port] = g.nch++;
	}
	g.dep = calloc((size_t)g.nch * g.nch + 1, 1);
	g.color = calloc(g.nch + 1, 1);
	ck_assert_ptr_nonnull(g.dep);
	ck_assert_ptr_nonnull(g.color);
	for (lid = 1; lid <= s->max_lid; lid++)
		for (sw = 0; sw < s->nsw; sw++) {
			port = lft_row(s, sw)[lid];
			if ((a = g.id[sw * 256 + port]) == UINT32_MAX)
				continue;
			far = slow_far(f, s, sw, port);
			q = lft_row(s, far)[lid];
			if ((b = g.id[far * 256 + q]) == UINT32_MAX)
				continue;
			g.dep[(size_t)a * g.nch + b] = 1;
		}
	*edges = 0;
	for (i = 0; i < (size_t)g.nch * g.nch; i++)
		*edges += g.dep[i];
	for (c = 0; c < g.nch && !cyclic; c++)
		if (g.color[c] == 0)
			cyclic = slow_cycle_from(&g, c);
	free(g.id);
	free(g.dep);
	free(g.color);
	return !cyclic;
}

/* cdg_acyclic() agrees with the slow checker; returns its answer. */
static int
agree(const struct fabric *f, const struct lft_set *s, uint64_t *edges)
{
	uint64_t fast_edges = 12345, slow_edges = 0;
	int fast = cdg_acyclic(f, s, &fast_edges);
	int slow = slow_acyclic(f, s, &slow_edges);

	ck_assert_int_eq(fast, slow);
	ck_assert_uint_eq(fast_edges, slow_edges);
	ck_assert_int_eq(cdg_acyclic(f, s, NULL), fast);
	if (edges != NULL)
		*edges = fast_edges;
	return fast;
}

/*
 * Every LID of a ring goes clockwise: out of port 1 until it reaches its
 * switch. Each switch's route two hops on makes one dependency per
 * channel, so the n channels clockwise close a cycle of n dependencies
 * (for n >= 3).
 */
static void
clockwise(const struct fabric *f, struct lft_set *s)
{
	uint32_t sw, p;
	uint16_t lid;

	ck_assert_int_eq(lft_set_init(s, f), 0);
	for (p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p) || (lid = f->ports[p].lid) == 0)
			continue;
		for (sw = 0; sw < s->nsw; sw++)
			lft_row(s, sw)[lid] = 1;
		/* the switch the LID hangs off delivers it */
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH)
			lft_row(s, s->node_sw[f->ports[p].node])[lid] = 0;
		else
			lft_row(s, s->node_sw[fabric_peer_node(f, p)])[lid] =
			    f->ports[f->ports[p].peer].num;
	}
}

START_TEST(test_ring_cycle)
{
	struct fabric f;
	struct lft_set s;
	uint64_t edges;
	unsigned n;

	for (n = 3; n <= 4; n++) {
		fabric_init(&f);
		testfab_ring(&f, n, 1);
		clockwise(&f, &s);
		ck_assert_int_eq(agree(&f, &s, &edges), 0);
		/* (i -> i+1) feeds (i+1 -> i+2), for each of the n channels */
		ck_assert_uint_eq(edges, n);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
}
END_TEST

START_TEST(test_ring_minhop)
{
	struct fabric f;
	struct lft_set s;
	uint16_t lid;
	uint64_t edges;
	uint32_t sw;

	/* minhop on a ring of 3: every route is one hop, no dependency */
	fabric_init(&f);
	testfab_ring(&f, 3, 2);
	route_minhop(&f, &s);
	ck_assert_int_eq(agree(&f, &s, &edges), 1);
	ck_assert_uint_eq(edges, 0);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* ring of 4: the opposite switch is two hops either way; sent
	 * clockwise by everyone, its LIDs close the cycle */
	fabric_init(&f);
	testfab_ring(&f, 4, 1);
	route_minhop(&f, &s);
	agree(&f, &s, NULL);
	for (sw = 0; sw < 4; sw++) {
		/* switch sw + 2 and its HCA */
		lid = lid_of(&f, (sw + 2) % 4, 0);
		lft_row(&s, sw)[lid] = 1;
		lft_row(&s, (sw + 1) % 4)[lid] = 1;
		lid = lid_of(&f, 4 + (sw + 2) % 4, 1);
		lft_row(&s, sw)[lid] = 1;
		lft_row(&s, (sw + 1) % 4)[lid] = 1;
	}
	ck_assert_int_eq(agree(&f, &s, NULL), 0);

	/* a DOWN port cuts the ring: the channels across it are gone */
	f.ports[fabric_port_idx(&f, 0, 1)].state = PORT_DOWN;
	ck_assert_int_eq(agree(&f, &s, NULL), 1);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* A - B - C, one CA on A and one on C (as check_minhop's build_line). */
START_TEST(test_line)
{
	struct fabric f;
	struct lft_set s;
	uint64_t edges;
	uint32_t ca;

	fabric_init(&f);
	testfab_switch(&f, 3);
	testfab_switch(&f, 3);
	testfab_switch(&f, 3);
	testfab_connect(&f, 0, 2, 1, 1);
	testfab_connect(&f, 1, 2, 2, 1);
	ca = testfab_ca(&f, 1);
	testfab_connect(&f, 0, 3, ca, 1);
	ca = testfab_ca(&f, 1);
	testfab_connect(&f, 2, 3, ca, 1);
	testfab_lids(&f);
	route_minhop(&f, &s);
	/* A->B feeds B->C (LIDs of C and its CA), C->B feeds B->A: two
	 * dependencies however many LIDs use them */
	ck_assert_int_eq(agree(&f, &s, &edges), 1);
	ck_assert_uint_eq(edges, 2);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_ping_pong)
{
	struct fabric f;
	struct lft_set s;
	uint64_t edges;
	uint32_t a, b, ca;
	uint16_t lid;

	fabric_init(&f);
	a = testfab_switch(&f, 2);
	b = testfab_switch(&f, 2);
	testfab_connect(&f, a, 1, b, 1);
	ca = testfab_ca(&f, 1);
	testfab_connect(&f, b, 2, ca, 1);
	testfab_lids(&f);
	route_minhop(&f, &s);
	/* LID 0 is reserved: whatever its entries say is no route */
	lft_row(&s, s.node_sw[a])[0] = 1;
	lft_row(&s, s.node_sw[b])[0] = 1;
	ck_assert_int_eq(cdg_acyclic(&f, &s, &edges), 1);
	ck_assert_uint_eq(edges, 0);
	/* B bounces the CA's LID back to A, which sends it to B again */
	lid = lid_of(&f, ca, 1);
	lft_row(&s, s.node_sw[b])[lid] = 1;
	ck_assert_int_eq(agree(&f, &s, &edges), 0);
	ck_assert_uint_eq(edges, 2);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_fat_tree)
{
	struct fabric f;
	struct lft_set s;
	uint16_t lid;
	uint32_t sp, other;
	uint64_t edges;

	/* minhop sends spine-to-spine LIDs down to a leaf and up again; with
	 * those blanked out every route is up then down */
	fabric_init(&f);
	testfab_ft2(&f, 8);
	route_minhop(&f, &s);
	agree(&f, &s, NULL);
	for (sp = 8; sp < 12; sp++)
		for (other = 8; other < 12; other++)
			if (other != sp) {
				lid = lid_of(&f, other, 0);
				lft_row(&s, s.node_sw[sp])[lid] = LFT_NO_ROUTE;
			}
	ck_assert_int_eq(agree(&f, &s, &edges), 1);
	/* each leaf's up channel feeds the 7 other leaves' down channels of
	 * that spine: 8 leaves x 4 spines x 7 */
	ck_assert_uint_eq(edges, 8 * 4 * 7);
	lft_set_fini(&s);
	fabric_fini(&f);

	fabric_init(&f);
	testfab_ft2(&f, 16);
	route_minhop(&f, &s);
	agree(&f, &s, NULL);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* splitmix64, as testfab's */
static uint64_t
rnd(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Change one entry in every `every`: any byte (past the ports, 255, 0). */
static void
scramble(struct lft_set *s, uint64_t seed, unsigned every)
{
	size_t i, n = (size_t)s->nsw * (s->max_lid + 1u);
	uint64_t x;

	for (i = 0; i < n; i++) {
		x = rnd(&seed);
		if (x % every == 0)
			s->port[i] = (uint8_t)(x >> 32);
		else if (x % every == 1)
			s->port[i] = (uint8_t)((x >> 32) % 20);
	}
}

START_TEST(test_scrambled)
{
	struct fabric f;
	struct lft_set s;
	uint64_t seed;
	int cyclic = 0, acyclic = 0;

	for (seed = 1; seed <= 12; seed++) {
		fabric_init(&f);
		testfab_random(&f, 30, 4, 10, seed);
		route_minhop(&f, &s);
		/* lightly scrambled: some of these keep no cycle */
		scramble(&s, seed, seed < 6 ? 400 : 20);
		f.ports[fabric_port_idx(&f, seed % 30, 1)].state = PORT_DOWN;
		if (agree(&f, &s, NULL))
			acyclic++;
		else
			cyclic++;
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	ck_assert_int_gt(cyclic, 0);
	(void)acyclic;
}
END_TEST

START_TEST(test_many_lids)
{
	struct fabric f;
	struct lft_set s;

	/* 300 switches, 3,600 LIDs: more than one tile of LIDs, the last
	 * one partial */
	fabric_init(&f);
	testfab_random(&f, 300, 11, 60, 5);
	route_minhop(&f, &s);
	ck_assert_uint_gt(s.max_lid, 3500);
	agree(&f, &s, NULL);
	scramble(&s, 77, 1000);
	agree(&f, &s, NULL);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_empty)
{
	struct fabric f;
	struct lft_set s;
	uint64_t edges = 99;

	/* no switch */
	fabric_init(&f);
	testfab_ca(&f, 1);
	testfab_lids(&f);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(cdg_acyclic(&f, &s, &edges), 1);
	ck_assert_uint_eq(edges, 0);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* switches but no inter-switch link, tables empty */
	fabric_init(&f);
	testfab_ring(&f, 1, 3);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(agree(&f, &s, &edges), 1);
	ck_assert_uint_eq(edges, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * LMC 1 on a ring of four switches routed by updn (no credit loop), then
 * the second LIDs of the HCAs on switches 1 and 3 sent clockwise all the
 * way: only those non-base LIDs close the cycle, and the check sees it.
 */
START_TEST(test_lmc_cycle)
{
	struct fabric f;
	struct lft_set s;
	char why[128] = "";
	uint32_t p, q, home, sw;
	uint16_t lid;

	fabric_init(&f);
	testfab_ring(&f, 4, 1);
	testfab_lids_lmc(&f, 1);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(re_updn.route(&f, &(struct routing_opts){ 0 }, &s,
	    why, sizeof(why)), 0);
	ck_assert_int_eq(cdg_acyclic(&f, &s, NULL), 1);
	for (p = 0; p < f.nports; p++) {
		if (f.nodes[f.ports[p].node].type == NODE_SWITCH ||
		    f.ports[p].lmc != 1 || (q = f.ports[p].peer) == FABRIC_NONE)
			continue;
		home = f.ports[q].node;
		if (home != 1 && home != 3)
			continue;
		lid = (uint16_t)(f.ports[p].lid + 1);
		for (sw = 0; sw < s.nsw; sw++)
			lft_row(&s, sw)[lid] = s.sw_node[sw] == home ?
			    f.ports[q].num : 1;
	}
	ck_assert_int_eq(cdg_acyclic(&f, &s, NULL), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* ---------------------------------------------------- per VL (issue 27) */

/* The switch (table index) each LID hangs off, and the port there. */
static void
lid_switches(const struct fabric *f, const struct lft_set *s, uint32_t *sw_of,
    uint8_t *port_of)
{
	for (uint32_t p = 0; p < f->nports; p++) {
		uint16_t lid = f->ports[p].lid;

		if (!fabric_port_is_endport(f, p) || lid == 0)
			continue;
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH) {
			sw_of[lid] = s->node_sw[f->ports[p].node];
			port_of[lid] = 0;
		} else {
			sw_of[lid] = s->node_sw[fabric_peer_node(f, p)];
			port_of[lid] = f->ports[f->ports[p].peer].num;
		}
	}
}

/* Tables from a next-hop rule (port of switch sw towards switch t), and
 * layers from a layer rule; both rules get the switches' table indices,
 * which testfab's builders make the node numbers. */
typedef uint8_t (*hop_fn)(uint32_t sw, uint32_t t);
typedef uint8_t (*layer_fn)(uint32_t sw, uint32_t t);

static uint8_t *
build(const struct fabric *f, struct lft_set *s, hop_fn hop, layer_fn lay)
{
	uint32_t *sw_of, lid, sw;
	uint8_t *port_of, *layer;

	ck_assert_int_eq(lft_set_init(s, f), 0);
	sw_of = calloc((size_t)s->max_lid + 1, sizeof(*sw_of));
	port_of = calloc((size_t)s->max_lid + 1, 1);
	layer = calloc((size_t)s->nsw * (s->max_lid + 1u), 1);
	ck_assert(sw_of && port_of && layer);
	lid_switches(f, s, sw_of, port_of);
	for (lid = 1; lid <= s->max_lid; lid++)
		for (sw = 0; sw < s->nsw; sw++) {
			lft_row(s, sw)[lid] = sw == sw_of[lid] ? port_of[lid] :
			    hop(sw, sw_of[lid]);
			layer[(size_t)sw * (s->max_lid + 1u) + lid] =
			    lay(sw, sw_of[lid]);
		}
	free(sw_of);
	free(port_of);
	return layer;
}

/* cdg_acyclic_layers() agrees with testfab's slow checker; its answer. */
static int
agree_layers(const struct fabric *f, const struct lft_set *s,
    const uint8_t *layer, unsigned n, const uint8_t *vl_of, unsigned *bad)
{
	uint64_t fast_edges = 12345, slow_edges = 0;
	unsigned vl = 99;
	int fast = cdg_acyclic_layers(f, s, layer, n, vl_of, &vl, &fast_edges);
	int slow = testfab_layers_acyclic(f, s, layer, n, vl_of, &slow_edges);

	ck_assert_int_eq(fast, slow);
	ck_assert_uint_eq(fast_edges, slow_edges);
	if (fast)
		ck_assert_uint_eq(vl, 99);      /* untouched */
	if (bad != NULL)
		*bad = vl;
	return fast;
}

/* A ring of RING switches, shortest ways, ties (half way round) clockwise
 * (port 1); a route crossing the dateline, the cable between the last
 * switch and the first, in either direction, is in layer 1. */
#define RING 6
static uint8_t
ring_hop(uint32_t sw, uint32_t t)
{
	return (t + RING - sw) % RING <= RING / 2 ? 1 : 2;
}

static uint8_t
ring_dateline(uint32_t sw, uint32_t t)
{
	unsigned cw = (t + RING - sw) % RING;

	return cw <= RING / 2 ? sw + cw >= RING : sw < RING - cw;
}

static uint8_t
layer_zero(uint32_t sw, uint32_t t)
{
	(void)sw;
	(void)t;
	return 0;
}

START_TEST(test_layers_ring)
{
	static const uint8_t both_vl0[2] = { 0, 0 }, both_vl1[2] = { 1, 1 },
	    swapped[2] = { 1, 0 };
	struct fabric f;
	struct lft_set s;
	uint8_t *layer;
	unsigned bad;

	fabric_init(&f);
	testfab_ring(&f, RING, 1);
	/* one layer: the shortest ways round a ring close a cycle */
	layer = build(&f, &s, ring_hop, layer_zero);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 1, NULL, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(cdg_acyclic(&f, &s, NULL), 0);
	free(layer);
	lft_set_fini(&s);

	/* the dateline's routes in layer 1: no cycle in either layer, though
	 * the same tables on one VL have one */
	layer = build(&f, &s, ring_hop, ring_dateline);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 2, NULL, NULL), 1);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 2, swapped, NULL), 1);
	/* both layers on one VL: the cycle is back, in that VL */
	ck_assert_int_eq(agree_layers(&f, &s, layer, 2, both_vl0, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 2, both_vl1, &bad), 0);
	ck_assert_uint_eq(bad, 1);
	/* a layer number the count leaves out travels on VL 0 */
	ck_assert_int_eq(agree_layers(&f, &s, layer, 1, NULL, &bad), 0);
	free(layer);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* A 4 x 4 torus, dimension order: X first (port 1 +, 2 -), then Y (3 +,
 * 4 -), ties (two hops) towards +. A dateline per dimension: the cable
 * from coordinate 3 to 0. */
#define TX 4
static uint8_t
dor_hop(uint32_t sw, uint32_t t)
{
	unsigned x = sw % TX, y = sw / TX, tx = t % TX, ty = t / TX;

	if (x != tx)
		return (tx + TX - x) % TX <= TX / 2 ? 1 : 2;
	return (ty + TX - y) % TX <= TX / 2 ? 3 : 4;
}

static unsigned
crosses(unsigned a, unsigned b)
{
	unsigned fwd = (b + TX - a) % TX;

	if (fwd == 0)
		return 0;
	return fwd <= TX / 2 ? a + fwd >= TX : a < TX - fwd;
}

static uint8_t
dor_two_datelines(uint32_t sw, uint32_t t)
{
	return (uint8_t)(crosses(sw % TX, t % TX) + 2 * crosses(sw / TX,
	    t / TX));
}

static uint8_t
dor_either_dateline(uint32_t sw, uint32_t t)
{
	return crosses(sw % TX, t % TX) || crosses(sw / TX, t / TX);
}

START_TEST(test_layers_torus)
{
	struct fabric f;
	struct lft_set s;
	uint8_t *layer;

	fabric_init(&f);
	testfab_torus(&f, TX, TX, 1, 1);
	layer = build(&f, &s, dor_hop, layer_zero);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 1, NULL, NULL), 0);
	free(layer);
	lft_set_fini(&s);
	/* a layer for each set of datelines crossed: four, all acyclic */
	layer = build(&f, &s, dor_hop, dor_two_datelines);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 4, NULL, NULL), 1);
	free(layer);
	lft_set_fini(&s);
	/* either dateline in one layer: a row's X ring closes in layer 1
	 * (X routes over its dateline with Y-only crossers' X parts) */
	layer = build(&f, &s, dor_hop, dor_either_dateline);
	ck_assert_int_eq(agree_layers(&f, &s, layer, 2, NULL, NULL), 0);
	free(layer);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* Random layers over minhop's tables of random fabrics (trees among them,
 * acyclic whatever the layers): cdg_acyclic_layers() agrees with the slow
 * checker, and one layer agrees with cdg_acyclic(). */
START_TEST(test_layers_scrambled)
{
	struct fabric f;
	struct lft_set s;
	uint64_t seed, x, e1, e2;
	uint8_t *layer;
	size_t n, i;
	int cyclic = 0, acyclic = 0;

	for (seed = 1; seed <= 10; seed++) {
		fabric_init(&f);
		testfab_random(&f, 12 + seed, 2, seed % 3 ? (unsigned)seed : 0,
		    seed);
		route_minhop(&f, &s);
		n = (size_t)s.nsw * (s.max_lid + 1u);
		layer = calloc(n, 1);
		ck_assert_ptr_nonnull(layer);
		ck_assert_int_eq(cdg_acyclic_layers(&f, &s, layer, 1, NULL, NULL,
		    &e1), cdg_acyclic(&f, &s, &e2));
		ck_assert_uint_eq(e1, e2);
		for (x = seed * 7919, i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			layer[i] = (uint8_t)((x >> 33) % (1 + seed % 4));
		}
		if (agree_layers(&f, &s, layer, 1 + seed % 4, NULL, NULL))
			acyclic++;
		else
			cyclic++;
		free(layer);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	ck_assert_int_gt(cyclic, 0);
	ck_assert_int_gt(acyclic, 0);
}
END_TEST

static Suite *
cdg_suite(void)
{
	Suite *s = suite_create("cdg");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ring_cycle);
	tcase_add_test(tc, test_ring_minhop);
	tcase_add_test(tc, test_line);
	tcase_add_test(tc, test_ping_pong);
	tcase_add_test(tc, test_fat_tree);
	tcase_add_test(tc, test_scrambled);
	tcase_add_test(tc, test_many_lids);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_lmc_cycle);
	suite_add_tcase(s, tc);
	tc = tcase_create("layers");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_layers_ring);
	tcase_add_test(tc, test_layers_torus);
	tcase_add_test(tc, test_layers_scrambled);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(cdg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
