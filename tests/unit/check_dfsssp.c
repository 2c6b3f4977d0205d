/*
 * dfsssp, and the VL hooks of the engine interface (issue 27 points 5 and
 * 6): on rings, tori, dragonflies, random and fat-tree fabrics its routes
 * are shortest (testfab_check's own BFS) and every layer's channel
 * dependencies are acyclic (testfab_layers_acyclic, the slow checker, not
 * the engine's data); it fails on one VL where shortest routes close a
 * cycle, so the chain falls back; path_sl and update_sl2vl answer from
 * its layers; routing_run_layers checks each layer and reports the VLs.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/cdg.h"
#include "routing/dfsssp.h"
#include "routing/routing.h"
#include "routing/update.h"
#include "tests/unit/testfab.h"

/* Route f with dfsssp on up to vls VLs, straight through the engine. */
static int
layered(const struct fabric *f, uint8_t vls, struct lft_set *s,
    struct route_layers *lay, char *why, size_t whylen)
{
	struct routing_opts o = { .vls = vls };

	memset(lay, 0, sizeof(*lay));
	ck_assert_int_eq(lft_set_init(s, f), 0);
	why[0] = '\0';
	return re_dfsssp.route_layers(f, &o, s, lay, why, whylen);
}

/* Every route shortest and delivered, every layer acyclic by the slow
 * checker and by the per-VL check; returns the layers. */
static unsigned
check_layered(const struct fabric *f, uint8_t vls)
{
	struct route_layers lay;
	struct testfab_stats st;
	struct lft_set s;
	char why[200];
	unsigned n;

	ck_assert_msg(layered(f, vls, &s, &lay, why, sizeof(why)) == 0,
	    "dfsssp failed: %s", why);
	ck_assert_ptr_eq(lay.engine, &re_dfsssp);
	ck_assert_ptr_nonnull(lay.layer);
	ck_assert_uint_ge(lay.n, 1);
	ck_assert_uint_le(lay.n, vls);
	ck_assert_uint_eq(lay.vls, vls);
	testfab_check(f, &s, &st);
	ck_assert_msg(st.bad == 0, "%s", st.first);
	ck_assert_uint_eq(st.unroutable, 0);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_int_eq(testfab_layers_acyclic(f, &s, lay.layer, lay.n, NULL,
	    NULL), 1);
	ck_assert_int_eq(routing_layers_acyclic(f, &s, &lay, NULL, NULL), 1);
	/* no layer past n is used */
	for (size_t i = 0; i < (size_t)s.nsw * (s.max_lid + 1u); i++)
		ck_assert_uint_lt(lay.layer[i], lay.n);
	n = lay.n;
	route_layers_fini(&lay);
	lft_set_fini(&s);
	return n;
}

START_TEST(test_ring)
{
	struct route_layers lay;
	struct fabric f;
	struct lft_set s;
	char why[200];
	unsigned n;

	for (n = 5; n <= 9; n++) {
		fabric_init(&f);
		testfab_ring(&f, n, 2);
		/* shortest ways round a ring of 5 or more close a cycle */
		ck_assert_uint_eq(check_layered(&f, 8), 2);
		/* one VL: fails, and says why */
		ck_assert_int_eq(layered(&f, 1, &s, &lay, why, sizeof(why)), -1);
		ck_assert_msg(strstr(why, "more than 1 VL") != NULL, "%s", why);
		ck_assert_ptr_null(lay.layer);
		lft_set_fini(&s);
		ck_assert_int_eq(lft_set_init(&s, &f), 0);
		ck_assert_int_eq(re_dfsssp.route(&f, &(struct routing_opts){ 0 },
		    &s, why, sizeof(why)), -1);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	/* a ring of 4 or fewer: no route goes two hops the same way round
	 * twice... a 4-ring's ties do; 3 has no cycle on one VL */
	fabric_init(&f);
	testfab_ring(&f, 3, 1);
	ck_assert_uint_eq(check_layered(&f, 8), 1);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_torus)
{
	static const unsigned dims[][3] = { { 4, 4, 1 }, { 6, 6, 1 },
	    { 5, 3, 1 }, { 3, 3, 3 }, { 4, 4, 4 } };
	struct fabric f;
	unsigned i, n;

	for (i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		fabric_init(&f);
		testfab_torus(&f, dims[i][0], dims[i][1], dims[i][2], 2);
		n = check_layered(&f, 8);
		ck_assert_uint_ge(n, 2);
		fabric_fini(&f);
	}
}
END_TEST

START_TEST(test_dragonfly)
{
	struct fabric f;

	fabric_init(&f);
	testfab_dragonfly(&f, 9, 4, 2);
	ck_assert_uint_ge(check_layered(&f, 8), 2);
	fabric_fini(&f);
	fabric_init(&f);
	testfab_dragonfly(&f, 5, 2, 3);
	check_layered(&f, 8);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_random)
{
	struct fabric f;
	uint64_t seed;

	for (seed = 1; seed <= 6; seed++) {
		fabric_init(&f);
		testfab_random(&f, 20 + 5 * (unsigned)seed, 2, 10 * (unsigned)seed,
		    seed);
		check_layered(&f, 8);
		fabric_fini(&f);
	}
}
END_TEST

/* Fat trees: shortest routes, deadlock-free layers (switch LIDs' routes
 * may turn down then up, so one layer is not promised). */
START_TEST(test_fat_tree)
{
	struct fabric f;

	fabric_init(&f);
	testfab_ft2(&f, 8);
	check_layered(&f, 8);
	fabric_fini(&f);
	fabric_init(&f);
	testfab_ft3(&f, 8);
	check_layered(&f, 8);
	fabric_fini(&f);
}
END_TEST

/* Too few VLs for a torus: the engine fails and names the budget. */
START_TEST(test_too_few)
{
	struct route_layers lay;
	struct fabric f;
	struct lft_set s;
	char why[200];
	unsigned n;

	fabric_init(&f);
	testfab_torus(&f, 4, 4, 4, 1);
	n = check_layered(&f, 8);
	ck_assert_int_eq(layered(&f, (uint8_t)(n - 1), &s, &lay, why,
	    sizeof(why)), -1);
	ck_assert_msg(strstr(why, "need more than") != NULL, "%s", why);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* The chain: routing_run gives every engine one VL, so on a ring dfsssp
 * fails and updn routes; routing_run_layers with 8 VLs keeps dfsssp,
 * checks it per VL and reports its VLs. */
START_TEST(test_chain)
{
	const struct routing_engine *chain[] = { routing_engine_find("dfsssp"),
	    routing_engine_find("updn") };
	struct routing_opts o = { .vls = 8 };
	struct route_layers lay;
	struct route_report rep;
	struct fabric f;
	struct lft_set s;

	ck_assert_ptr_eq(chain[0], &re_dfsssp);
	ck_assert_ptr_nonnull(chain[1]);
	fabric_init(&f);
	testfab_ring(&f, 6, 1);
	ck_assert_int_eq(routing_run(chain, 2, &f, &o, &s, &rep, NULL), 0);
	ck_assert_str_eq(rep.engine, "updn");
	ck_assert_uint_eq(rep.vls, 1);
	lft_set_fini(&s);
	ck_assert_int_eq(routing_run_layers(chain, 2, &f, &o, &s, &lay, &rep,
	    NULL), 0);
	ck_assert_str_eq(rep.engine, "dfsssp");
	ck_assert_uint_eq(rep.vls, 2);
	ck_assert_int_eq(rep.deadlock_free, 1);
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(lay.n, 2);
	/* the same tables on one VL have a credit loop */
	ck_assert_int_eq(cdg_acyclic(&f, &s, NULL), 0);
	route_layers_fini(&lay);
	lft_set_fini(&s);
	/* without VLs to spare, dfsssp alone fails */
	o.vls = 1;
	ck_assert_int_eq(routing_run_layers(chain, 1, &f, &o, &s, &lay, &rep,
	    NULL), -1);
	ck_assert_ptr_null(lay.layer);
	/* an engine of one layer leaves no table */
	chain[0] = &re_minhop;
	o.vls = 8;
	ck_assert_int_eq(routing_run_layers(chain, 1, &f, &o, &s, &lay, &rep,
	    NULL), 0);
	ck_assert_ptr_null(lay.layer);
	ck_assert_uint_eq(rep.vls, 1);
	ck_assert_int_eq(rep.deadlock_free, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* path_sl: the layer of the route from the source's switch; 0 for a LID
 * that is nobody's and for engines of one layer. */
START_TEST(test_path_sl)
{
	struct route_layers lay;
	struct fabric f;
	struct lft_set s;
	char why[200];
	uint32_t p, q, sw;
	uint16_t slid, dlid;
	unsigned seen[2] = { 0, 0 };

	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	ck_assert_int_eq(layered(&f, 4, &s, &lay, why, sizeof(why)), 0);
	for (p = 0; p < f.nports; p++) {
		if (!fabric_port_is_endport(&f, p) || f.ports[p].lid == 0)
			continue;
		slid = f.ports[p].lid;
		sw = f.nodes[f.ports[p].node].type == NODE_SWITCH ?
		    s.node_sw[f.ports[p].node] :
		    s.node_sw[fabric_peer_node(&f, p)];
		ck_assert_uint_eq(routing_source_switch(&f, &s, slid), sw);
		for (q = 0; q < f.nports; q++) {
			if (!fabric_port_is_endport(&f, q) || f.ports[q].lid == 0)
				continue;
			dlid = f.ports[q].lid;
			ck_assert_uint_eq(routing_path_sl(&lay, &f, &s, slid,
			    dlid), lay.layer[(size_t)sw * (s.max_lid + 1u) +
			    dlid]);
			seen[routing_path_sl(&lay, &f, &s, slid, dlid)]++;
			ck_assert_uint_eq(routing_path_sl(NULL, &f, &s, slid,
			    dlid), 0);
		}
	}
	ck_assert_uint_gt(seen[0], 0);
	ck_assert_uint_gt(seen[1], 0);
	ck_assert_uint_eq(routing_source_switch(&f, &s, 0), FABRIC_NONE);
	ck_assert_uint_eq(routing_path_sl(&lay, &f, &s, s.max_lid + 1u, 1), 0);
	ck_assert_uint_eq(routing_path_sl(&lay, &f, &s, 1, 0xbfff), 0);
	route_layers_fini(&lay);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* update_sl2vl: SL i on VL i for each of the VLs given, the rest as the
 * policy had them; nothing with one VL or for an engine of one layer. */
START_TEST(test_update_sl2vl)
{
	struct route_layers lay;
	struct fabric f;
	struct lft_set s;
	uint8_t t[ROUTE_SLS], i;
	char why[200];

	fabric_init(&f);
	testfab_ring(&f, 6, 1);
	ck_assert_int_eq(layered(&f, 4, &s, &lay, why, sizeof(why)), 0);
	memset(t, 7, sizeof(t));
	routing_update_sl2vl(&lay, &f, s.sw_node[0], 1, 2, t);
	for (i = 0; i < ROUTE_SLS; i++)
		ck_assert_uint_eq(t[i], i < 4 ? i : 7);
	memset(t, 7, sizeof(t));
	routing_update_sl2vl(NULL, &f, s.sw_node[0], 1, 2, t);
	lay.vls = 1;
	routing_update_sl2vl(&lay, &f, s.sw_node[0], 1, 2, t);
	lay.engine = &re_minhop;
	lay.vls = 4;
	routing_update_sl2vl(&lay, &f, s.sw_node[0], 1, 2, t);
	for (i = 0; i < ROUTE_SLS; i++)
		ck_assert_uint_eq(t[i], 7);
	lay.engine = &re_dfsssp;
	route_layers_fini(&lay);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* The VLs every switch-to-switch port supports, from VLCap. */
START_TEST(test_vls_supported)
{
	struct fabric f;
	uint32_t p;

	fabric_init(&f);
	testfab_ring(&f, 4, 1);
	ck_assert_uint_eq(routing_vls_supported(&f), 1);   /* none read */
	for (p = 0; p < f.nports; p++) {
		f.ports[p].info_valid = 1;
		f.ports[p].info[37] = 0x40;     /* VL0-7 */
	}
	ck_assert_uint_eq(routing_vls_supported(&f), 8);
	/* a CA port's VLCap does not count: no credit loop runs through it */
	for (p = 0; p < f.nports; p++)
		if (f.nodes[f.ports[p].node].type != NODE_SWITCH)
			f.ports[p].info[37] = 0x10;
	ck_assert_uint_eq(routing_vls_supported(&f), 8);
	f.ports[fabric_port_idx(&f, 2, 1)].info[37] = 0x30;      /* VL0-3 */
	ck_assert_uint_eq(routing_vls_supported(&f), 4);
	fabric_fini(&f);
}
END_TEST

/* Balance: on a torus, all-to-all routes on the busiest link no more than
 * minhop's (which balances LIDs per port, not routes per link). */
START_TEST(test_balance)
{
	struct route_layers lay;
	struct fabric f;
	struct lft_set s, m;
	char why[200];
	uint64_t df, mh;

	fabric_init(&f);
	testfab_torus(&f, 6, 6, 1, 2);
	ck_assert_int_eq(layered(&f, 8, &s, &lay, why, sizeof(why)), 0);
	ck_assert_int_eq(lft_set_init(&m, &f), 0);
	ck_assert_int_eq(re_minhop.route(&f, &(struct routing_opts){ 0 }, &m,
	    why, sizeof(why)), 0);
	df = routing_max_link_routes(&f, &s);
	mh = routing_max_link_routes(&f, &m);
	ck_assert_msg(df <= mh, "dfsssp %llu, minhop %llu",
	    (unsigned long long)df, (unsigned long long)mh);
	route_layers_fini(&lay);
	lft_set_fini(&s);
	lft_set_fini(&m);
	fabric_fini(&f);
}
END_TEST

/* ------------------------------------------------------------ repair */

/* Did the route from switch sw to lid in s (made for f) cross the cable
 * of port num of node n, either way? */
static bool
crossed(const struct fabric *f, const struct lft_set *s, uint32_t sw,
    uint16_t lid, uint32_t n, uint8_t num)
{
	uint32_t a = fabric_port_idx(f, n, num), b = f->ports[a].peer, p;
	unsigned hops = 0;
	uint8_t e;

	while (hops++ <= s->nsw) {
		e = lft_row(s, sw)[lid];
		if (e == 0 || e == LFT_NO_ROUTE)
			return false;
		p = fabric_port_idx(f, s->sw_node[sw], e);
		if (p == a || p == b)
			return true;
		if (f->ports[p].peer == FABRIC_NONE ||
		    f->nodes[fabric_peer_node(f, p)].type != NODE_SWITCH)
			return false;
		sw = s->node_sw[fabric_peer_node(f, p)];
	}
	return false;
}

/* Switch hops from every switch of s to switch t over f's live cables
 * (UINT32_MAX: none). */
static void
hops_to(const struct fabric *f, const struct lft_set *s, uint32_t t,
    uint32_t *dist)
{
	uint32_t *q = calloc(s->nsw, sizeof(*q)), h = 0, n = 0, v, p, w;

	ck_assert_ptr_nonnull(q);
	for (v = 0; v < s->nsw; v++)
		dist[v] = UINT32_MAX;
	dist[t] = 0;
	q[n++] = t;
	while (h < n) {
		v = q[h++];
		for (unsigned k = 1; k <= f->nodes[s->sw_node[v]].nports; k++) {
			p = fabric_port_idx(f, s->sw_node[v], (uint8_t)k);
			if (f->ports[p].peer == FABRIC_NONE ||
			    f->nodes[fabric_peer_node(f, p)].type != NODE_SWITCH)
				continue;
			w = s->node_sw[fabric_peer_node(f, p)];
			if (dist[w] == UINT32_MAX) {
				dist[w] = dist[v] + 1;
				q[n++] = w;
			}
		}
	}
	free(q);
}

/* The switch (index of s) lid hangs off. */
static uint32_t
lid_switch(const struct fabric *f, const struct lft_set *s, uint16_t lid)
{
	uint32_t p = fabric_port_by_lid(f, lid);

	if (f->nodes[f->ports[p].node].type == NODE_SWITCH)
		return s->node_sw[f->ports[p].node];
	return s->node_sw[fabric_peer_node(f, p)];
}

/*
 * Cut the cable of port num of node n (a switch) in a copy of the fabric
 * and repair: shortest and delivered everywhere, every layer acyclic
 * (slow checker), within the VLs given; an entry or a layer changed only
 * where the route crossed the cable; fewer blocks than routing afresh.
 */
static void
repair_cut(void (*build)(struct fabric *), uint32_t n, uint8_t num,
    uint64_t *blocks, uint64_t *fresh_blocks)
{
	struct repair_result r;
	struct route_layers lay, lay2, lay3;
	struct testfab_stats st;
	struct fabric f, g;
	struct lft_set s, s2, s3;
	char why[200];
	uint32_t sw, lid, *dist;
	uint8_t p;

	fabric_init(&f);
	build(&f);
	fabric_init(&g);
	build(&g);
	ck_assert_int_eq(layered(&f, 8, &s, &lay, why, sizeof(why)), 0);
	testfab_unlink(&g, n, num);
	ck_assert_int_eq(dfsssp_repair(&g, &f, &s, &lay, &s2, &lay2, &r), 0);
	ck_assert_ptr_eq(lay2.engine, &re_dfsssp);
	ck_assert_uint_eq(lay2.vls, 8);
	ck_assert_uint_eq(lay2.n, r.layers);
	ck_assert_uint_le(lay2.n, 8);
	testfab_check(&g, &s2, &st);
	ck_assert_msg(st.bad == 0, "%s", st.first);
	ck_assert_uint_eq(st.unroutable, 0);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_int_eq(testfab_layers_acyclic(&g, &s2, lay2.layer, lay2.n,
	    NULL, NULL), 1);
	ck_assert_int_eq(routing_layers_acyclic(&g, &s2, &lay2, NULL, NULL), 1);
	ck_assert_uint_gt(r.changed, 0);
	ck_assert_uint_gt(r.rerouted, 0);
	for (sw = 0; sw < s.nsw; sw++)
		for (lid = 1; lid <= s.max_lid; lid++) {
			if (crossed(&f, &s, sw, (uint16_t)lid, n, num))
				continue;
			ck_assert_msg(lft_row(&s2, sw)[lid] == lft_row(&s, sw)[lid],
			    "switch %u LID %u changed, its route did not cross "
			    "the cable", sw, lid);
			ck_assert_msg(route_layer(&lay2, sw, (uint16_t)lid) ==
			    route_layer(&lay, sw, (uint16_t)lid), "switch %u LID "
			    "%u changed layer, its route did not cross the cable",
			    sw, lid);
		}
	/* and only where the old next hop is lost or no longer one hop
	 * nearer */
	dist = calloc(s.nsw, sizeof(*dist));
	ck_assert_ptr_nonnull(dist);
	for (lid = 1; lid <= s.max_lid; lid++) {
		hops_to(&g, &s, lid_switch(&g, &s, (uint16_t)lid), dist);
		for (sw = 0; sw < s.nsw; sw++) {
			if ((p = lft_row(&s, sw)[lid]) == lft_row(&s2, sw)[lid])
				continue;
			uint32_t q = fabric_port_idx(&g, s.sw_node[sw], p);

			ck_assert_msg(g.ports[q].peer == FABRIC_NONE ||
			    dist[s.node_sw[fabric_peer_node(&g, q)]] + 1 !=
			    dist[sw], "switch %u LID %u changed though its next "
			    "hop is still one hop nearer", sw, lid);
		}
	}
	free(dist);
	*blocks = routing_blocks_changed(&g, &s2, &f, &s);
	/* against routing afresh */
	ck_assert_int_eq(layered(&g, 8, &s3, &lay3, why, sizeof(why)), 0);
	*fresh_blocks = routing_blocks_changed(&g, &s3, &f, &s);
	route_layers_fini(&lay);
	route_layers_fini(&lay2);
	route_layers_fini(&lay3);
	lft_set_fini(&s);
	lft_set_fini(&s2);
	lft_set_fini(&s3);
	fabric_fini(&f);
	fabric_fini(&g);
}

static void
torus66(struct fabric *f)
{
	testfab_torus(f, 6, 6, 1, 2);
}

static void
torus444(struct fabric *f)
{
	testfab_torus(f, 4, 4, 4, 1);
}

static void
dragonfly94(struct fabric *f)
{
	testfab_dragonfly(f, 9, 4, 2);
}

START_TEST(test_repair)
{
	uint64_t b, fb, sum = 0, fsum = 0;
	unsigned i;

	/* +X and +Y cables of a few switches, a 3-D torus's +Z, a
	 * dragonfly's local and global cables */
	for (i = 0; i < 36; i += 7) {
		repair_cut(torus66, i, (uint8_t)(1 + 2 * (i % 2)), &b, &fb);
		sum += b;
		fsum += fb;
	}
	repair_cut(torus444, 21, 5, &b, &fb);
	sum += b;
	fsum += fb;
	repair_cut(dragonfly94, 5, 1, &b, &fb);
	sum += b;
	fsum += fb;
	repair_cut(dragonfly94, 0, 4, &b, &fb);        /* global */
	sum += b;
	fsum += fb;
	ck_assert_msg(sum * 2 < fsum, "repairs wrote %llu blocks, routing "
	    "afresh %llu", (unsigned long long)sum, (unsigned long long)fsum);
}
END_TEST

/* Nothing lost: nothing changes. Nothing to repair from: -1. */
START_TEST(test_repair_nothing)
{
	struct repair_result r;
	struct route_layers lay, lay2;
	struct fabric f;
	struct lft_set s, s2;
	char why[200];

	fabric_init(&f);
	testfab_torus(&f, 5, 4, 1, 2);
	ck_assert_int_eq(layered(&f, 8, &s, &lay, why, sizeof(why)), 0);
	ck_assert_int_eq(dfsssp_repair(&f, &f, &s, &lay, &s2, &lay2, &r), 0);
	ck_assert_uint_eq(r.changed, 0);
	ck_assert_uint_eq(r.rerouted, 0);
	ck_assert_uint_eq(routing_blocks_changed(&f, &s2, &f, &s), 0);
	ck_assert_mem_eq(lay2.layer, lay.layer, (size_t)s.nsw * (s.max_lid +
	    1u));
	ck_assert_uint_eq(lay2.n, lay.n);
	route_layers_fini(&lay2);
	lft_set_fini(&s2);
	ck_assert_int_eq(dfsssp_repair(&f, &f, &s, NULL, &s2, &lay2, &r), -1);
	ck_assert_int_eq(dfsssp_repair(&f, NULL, &s, &lay, &s2, &lay2, &r), -1);
	route_layers_fini(&lay);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * LMC: every LID of a port's 2^lmc block is a destination of its own
 * (kernel_graph's list holds them all), routed shortest and layered like
 * a base LID; the LIDs of one block spread over the links they can take.
 */
START_TEST(test_lmc)
{
	struct route_layers lay;
	struct testfab_stats st;
	struct fabric f;
	struct lft_set s;
	char why[200];
	uint32_t p, sw, differ = 0, blocks = 0;

	fabric_init(&f);
	testfab_torus(&f, 4, 4, 1, 1);
	testfab_lids_lmc(&f, 2);
	ck_assert_msg(layered(&f, 8, &s, &lay, why, sizeof(why)) == 0,
	    "dfsssp failed: %s", why);
	testfab_check(&f, &s, &st);
	ck_assert_msg(st.bad == 0, "%s", st.first);
	ck_assert_uint_eq(st.unroutable, 0);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_int_eq(testfab_layers_acyclic(&f, &s, lay.layer, lay.n, NULL,
	    NULL), 1);
	/* every LID of every CA block has an entry on every switch, and a
	 * block's LIDs do not all leave a switch by one port */
	for (p = 0; p < f.nports; p++) {
		uint16_t base = f.ports[p].lid;

		if (f.nodes[f.ports[p].node].type == NODE_SWITCH || base == 0)
			continue;
		ck_assert_uint_eq(f.ports[p].lmc, 2);
		blocks++;
		for (sw = 0; sw < s.nsw; sw++) {
			const uint8_t *row = lft_row(&s, sw);

			for (unsigned k = 0; k < 4; k++)
				ck_assert_uint_ne(row[base + k], LFT_NO_ROUTE);
			differ += row[base] != row[base + 1] ||
			    row[base] != row[base + 2] ||
			    row[base] != row[base + 3];
		}
	}
	ck_assert_uint_eq(blocks, 16);
	ck_assert_uint_gt(differ, 0);
	route_layers_fini(&lay);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* ---------------------------------------- through routing/update (daemon) */

static const struct routing_engine *const chain_du[] = { &re_dfsssp,
	&re_updn };

static int
upd(struct update *u, const struct fabric *f, const struct fabric *cur_f,
    const struct lft_set *cur, const struct route_layers *cur_layers,
    uint8_t vls, bool keep, struct update_res *res)
{
	struct update_req q = {
		.chain = chain_du, .nchain = 2, .f = f, .cur_f = cur_f,
		.cur = cur, .cur_layers = cur_layers, .keep_routes = keep,
	};

	q.ropts.vls = vls;
	return update_run(u, &q, res);
}

/*
 * As the sweep runs it: with the ports' VLs dfsssp routes the torus on
 * several VLs and the layers come with the tables (update_res.layers);
 * a cable lost is repaired in place by dfsssp_repair through
 * repair_run_layers: only entries whose route crossed it change, fewer
 * blocks than routing afresh, every pair delivered and shortest, every
 * layer acyclic (slow checker), within the VLs of the tables in use. On
 * one VL the chain falls back to updn, without layers. Links back: the
 * fresh layered route.
 */
START_TEST(test_update)
{
	struct update *u = update_new();
	struct update_res r1, r2, r3, r4, fr;
	struct testfab_stats st;
	struct fabric f, g;
	uint32_t sw, lid;

	fabric_init(&f);
	testfab_torus(&f, 6, 6, 1, 2);
	fabric_init(&g);
	testfab_torus(&g, 6, 6, 1, 2);
	testfab_unlink(&g, 14, 1);
	ck_assert_int_eq(upd(u, &f, NULL, NULL, NULL, 8, false, &r1), 0);
	ck_assert_str_eq(r1.report.engine, "dfsssp");
	ck_assert_ptr_eq(r1.layers.engine, &re_dfsssp);
	ck_assert_uint_gt(r1.report.vls, 1);
	ck_assert_uint_eq(r1.report.vls, r1.layers.n);
	ck_assert_int_eq(r1.report.deadlock_free, 1);
	ck_assert_int_eq(testfab_layers_acyclic(&f, &r1.lft, r1.layers.layer,
	    r1.layers.n, NULL, NULL), 1);

	/* the cable lost */
	ck_assert_int_eq(upd(u, &g, &f, &r1.lft, &r1.layers, 8, false, &r2), 0);
	ck_assert(r2.repaired);
	ck_assert_ptr_eq(r2.layers.engine, &re_dfsssp);
	ck_assert_uint_le(r2.layers.n, 8);
	ck_assert_uint_eq(r2.report.vls, r2.layers.n);
	testfab_check(&g, &r2.lft, &st);
	ck_assert_msg(st.bad == 0, "%s", st.first);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_int_eq(testfab_layers_acyclic(&g, &r2.lft, r2.layers.layer,
	    r2.layers.n, NULL, NULL), 1);
	for (sw = 0; sw < r1.lft.nsw; sw++)
		for (lid = 1; lid <= r1.lft.max_lid; lid++) {
			if (crossed(&f, &r1.lft, sw, (uint16_t)lid, 14, 1))
				continue;
			ck_assert_uint_eq(lft_row(&r2.lft, sw)[lid],
			    lft_row(&r1.lft, sw)[lid]);
			ck_assert_uint_eq(route_layer(&r2.layers, sw,
			    (uint16_t)lid), route_layer(&r1.layers, sw,
			    (uint16_t)lid));
		}
	/* fewer blocks than dfsssp's fresh route of the cut fabric */
	ck_assert_int_eq(upd(u, &g, NULL, NULL, NULL, 8, false, &fr), 0);
	ck_assert_uint_gt(r2.report.blocks_changed, 0);
	ck_assert_uint_lt(r2.report.blocks_changed,
	    routing_blocks_changed(&g, &fr.lft, &f, &r1.lft));
	ck_assert_uint_eq(r2.report.blocks_changed,
	    routing_blocks_changed(&g, &r2.lft, &f, &r1.lft));

	/* the tables in use grown past the layers (vport LIDs the SM adds
	 * after routing): the repair is the same */
	{
		struct update_res rg;
		struct lft_set grown;

		ck_assert_int_eq(lft_set_copy(&grown, &r1.lft, f.nnodes), 0);
		ck_assert_int_eq(lft_set_grow(&grown, (uint16_t)(r1.lft.max_lid +
		    100u)), 0);
		ck_assert_int_eq(upd(u, &g, &f, &grown, &r1.layers, 8, false,
		    &rg), 0);
		ck_assert(rg.repaired);
		ck_assert_mem_eq(rg.lft.port, r2.lft.port, (size_t)r2.lft.nsw *
		    (r2.lft.max_lid + 1u));
		lft_set_fini(&grown);
		lft_set_fini(&rg.lft);
		route_layers_fini(&rg.layers);
	}

	/* the cable back: dfsssp's fresh layered routes */
	ck_assert_int_eq(upd(u, &f, &g, &r2.lft, &r2.layers, 8, false, &r3), 0);
	ck_assert(!r3.repaired);
	ck_assert(r3.rebalanced);
	ck_assert_ptr_eq(r3.layers.engine, &re_dfsssp);
	ck_assert_mem_eq(r3.lft.port, r1.lft.port, (size_t)r1.lft.nsw *
	    (r1.lft.max_lid + 1u));

	/* one VL: dfsssp declines the torus, updn routes, no layers */
	ck_assert_int_eq(upd(u, &f, NULL, NULL, NULL, 1, false, &r4), 0);
	ck_assert_str_eq(r4.report.engine, "updn");
	ck_assert_ptr_null(r4.layers.engine);
	ck_assert_uint_eq(r4.report.vls, 1);

	lft_set_fini(&r1.lft);
	route_layers_fini(&r1.layers);
	lft_set_fini(&r2.lft);
	route_layers_fini(&r2.layers);
	lft_set_fini(&r3.lft);
	route_layers_fini(&r3.layers);
	lft_set_fini(&r4.lft);
	route_layers_fini(&r4.layers);
	lft_set_fini(&fr.lft);
	route_layers_fini(&fr.layers);
	update_free(u);
	fabric_fini(&f);
	fabric_fini(&g);
}
END_TEST

static Suite *
dfsssp_suite(void)
{
	Suite *s = suite_create("dfsssp");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ring);
	tcase_add_test(tc, test_lmc);
	tcase_add_test(tc, test_update);
	tcase_add_test(tc, test_torus);
	tcase_add_test(tc, test_dragonfly);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_fat_tree);
	tcase_add_test(tc, test_too_few);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_path_sl);
	tcase_add_test(tc, test_update_sl2vl);
	tcase_add_test(tc, test_vls_supported);
	tcase_add_test(tc, test_balance);
	tcase_add_test(tc, test_repair);
	tcase_add_test(tc, test_repair_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(dfsssp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
