/*
 * routing/repair on fabrics built in memory: the same fabric built twice,
 * one copy with cables taken out. Tables routed on the whole copy are
 * repaired for the damaged one and judged here, independently of the
 * module: every changed entry's route crossed a lost cable or led nowhere
 * on the whole fabric, every other entry is unchanged, every pair a fresh
 * route reaches is reached (testfab_check), and the channel dependency
 * graph has no cycle where the discipline promises it.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/cdg.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

enum shape { FT2, FT3 };

static void
build(struct fabric *f, enum shape sh, unsigned k)
{
	fabric_init(f);
	if (sh == FT2)
		testfab_ft2(f, k);
	else
		testfab_ft3(f, k);
	testfab_lids(f);
}

static void
route(const struct routing_engine *re, const struct fabric *f,
    struct lft_set *s)
{
	char why[256] = "";

	ck_assert_int_eq(lft_set_init(s, f), 0);
	ck_assert_msg(re->route(f, &(struct routing_opts){ 0 }, s, why,
	    sizeof(why)) == 0, "%s failed: %s", re->name, why);
}

/* Does the route of lid from switch sw in s (made for a, the whole
 * fabric) cross a cable of a that b lacks, or not arrive? */
static bool
affected(const struct fabric *a, const struct fabric *b,
    const struct lft_set *s, uint32_t sw, uint16_t lid)
{
	uint32_t node = s->sw_node[sw], p, q, hops;

	for (hops = 0; hops <= s->nsw; hops++) {
		uint8_t e = lft_row(s, s->node_sw[node])[lid];

		if (e == 0)
			return !fabric_port_has_lid(&a->ports[a->nodes[node].port0],
			    lid);
		if (e == LFT_NO_ROUTE || e > a->nodes[node].nports)
			return true;
		p = fabric_port_idx(a, node, e);
		if ((q = a->ports[p].peer) == FABRIC_NONE)
			return true;
		if (b->ports[p].peer != q)
			return true;            /* the lost cable */
		node = a->ports[q].node;
		if (a->nodes[node].type != NODE_SWITCH)
			return !fabric_port_has_lid(&a->ports[q], lid);
	}
	return true;                            /* a loop */
}

struct outcome {
	struct repair_result r;
	uint64_t changed, moved_unaffected, affected;
	struct testfab_stats st, fresh;
	int acyclic;
	uint64_t lost;
	uint64_t blocks, engine_blocks;  /* repair's, the engine's with prev */
};

/* Route a with re, repair for b, judge. */
static void
run(const struct routing_engine *re, enum repair_discipline d,
    const struct fabric *a, const struct fabric *b, struct outcome *o)
{
	struct lft_set old, rep, fresh;
	uint32_t sw;
	uint16_t lid;

	memset(o, 0, sizeof(*o));
	route(re, a, &old);
	ck_assert_int_eq(repair_run(b, a, &old, NULL, d, &rep, &o->r), 0);
	ck_assert_uint_eq(rep.nsw, old.nsw);
	for (sw = 0; sw < old.nsw; sw++)
		for (lid = 1; lid <= old.max_lid; lid++) {
			bool aff = affected(a, b, &old, sw, lid);
			bool chg = lft_row(&old, sw)[lid] !=
			    lft_row(&rep, sw)[lid];

			o->affected += aff;
			o->changed += chg;
			if (chg && !aff)
				o->moved_unaffected++;
		}
	testfab_check(b, &rep, &o->st);
	o->acyclic = cdg_acyclic(b, &rep, NULL);
	route(re, b, &fresh);
	testfab_check(b, &fresh, &o->fresh);
	o->lost = repair_lost_pairs(b, &rep, &fresh);
	lft_set_fini(&fresh);
	o->blocks = routing_blocks_changed(b, &rep, a, &old);
	{
		char why[256] = "";
		struct routing_opts ro = { .prev_fabric = a, .prev = &old };

		ck_assert_int_eq(lft_set_init(&fresh, b), 0);
		ck_assert_msg(re->route(b, &ro, &fresh, why, sizeof(why)) == 0,
		    "%s failed: %s", re->name, why);
		o->engine_blocks = routing_blocks_changed(b, &fresh, a, &old);
		lft_set_fini(&fresh);
	}
	lft_set_fini(&rep);
	lft_set_fini(&old);
}

static void
assert_good(const struct outcome *o, bool acyclic)
{
	ck_assert_msg(o->moved_unaffected == 0, "%llu entries changed whose "
	    "route crossed no lost cable", (unsigned long long)
	    o->moved_unaffected);
	ck_assert_uint_eq(o->changed, o->r.changed);
	ck_assert_msg(o->changed <= o->affected, "changed %llu > affected %llu",
	    (unsigned long long)o->changed, (unsigned long long)o->affected);
	ck_assert_msg(o->lost == 0, "%llu pairs a fresh route reaches are lost",
	    (unsigned long long)o->lost);
	ck_assert_msg(o->st.unreached <= o->fresh.unreached,
	    "unreached %llu, fresh %llu", (unsigned long long)o->st.unreached,
	    (unsigned long long)o->fresh.unreached);
	if (acyclic)
		ck_assert_msg(o->acyclic, "the repaired tables have a credit loop");
}

/* Nothing lost: nothing changes. */
START_TEST(test_nothing_lost)
{
	struct fabric a, b;
	struct outcome o;

	build(&a, FT3, 4);
	build(&b, FT3, 4);
	run(&re_ftree, REPAIR_UPDOWN, &a, &b, &o);
	ck_assert_uint_eq(o.changed, 0);
	ck_assert_uint_eq(o.r.lids, 0);
	ck_assert_uint_eq(o.st.unreached, 0);
	run(&re_minhop, REPAIR_SHORTEST, &a, &b, &o);
	ck_assert_uint_eq(o.changed, 0);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/* ft2_8, ftree: one leaf-spine cable lost. The spine cannot go down to
 * that leaf any more; the other leaves move what they sent through it. */
START_TEST(test_ft2_leaf_spine)
{
	struct fabric a, b;
	struct outcome o;

	build(&a, FT2, 8);
	build(&b, FT2, 8);
	/* leaf 2, port 8 goes to spine 3 */
	testfab_unlink(&b, 2, 8);
	run(&re_ftree, REPAIR_UPDOWN, &a, &b, &o);
	assert_good(&o, true);
	ck_assert_uint_eq(o.st.unreached, 0);
	ck_assert_uint_eq(o.st.shortest, o.st.pairs);
	ck_assert_uint_gt(o.changed, 0);
	/* spine 3 to leaf 2's five LIDs, leaf 2 to spine 3's: through the hub */
	ck_assert_uint_eq(o.r.not_updown, 6);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

START_TEST(test_ft2_minhop)
{
	struct fabric a, b;
	struct outcome o;

	build(&a, FT2, 8);
	build(&b, FT2, 8);
	testfab_unlink(&b, 5, 6);
	testfab_unlink(&b, 0, 5);
	run(&re_minhop, REPAIR_SHORTEST, &a, &b, &o);
	assert_good(&o, false);
	ck_assert_uint_eq(o.st.unreached, 0);
	ck_assert_uint_eq(o.st.shortest, o.st.pairs);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/* ft3, ftree and updn: one edge-aggregation cable, one aggregation-core
 * cable, then both. */
static void
ft3_case(const struct routing_engine *re, unsigned k, int which)
{
	struct fabric a, b;
	struct outcome o;
	uint32_t agg0 = k * k / 2;

	build(&a, FT3, k);
	build(&b, FT3, k);
	if (which & 1)          /* edge 1 of pod 0, up port to aggregation 0 */
		testfab_unlink(&b, 1, k / 2 + 1);
	if (which & 2)          /* aggregation 0 of pod 1, to a core */
		testfab_unlink(&b, agg0 + k / 2, k / 2 + 1);
	run(re, REPAIR_UPDOWN, &a, &b, &o);
	fprintf(stderr, "%s k=%u cut %d: changed %llu of %llu affected, "
	    "not up/down %u (new turns %u), acyclic %d, blocks %llu (engine "
	    "%llu)\n", re->name, k, which,
	    (unsigned long long)o.changed, (unsigned long long)o.affected,
	    o.r.not_updown, o.r.new_turns, o.acyclic,
	    (unsigned long long)o.blocks, (unsigned long long)o.engine_blocks);
	assert_good(&o, true);
	ck_assert_uint_eq(o.st.unreached, 0);
	ck_assert_uint_gt(o.changed, 0);
	fabric_fini(&a);
	fabric_fini(&b);
}

START_TEST(test_ft3_ftree)
{
	for (int w = 1; w <= 3; w++)
		ft3_case(&re_ftree, 4, w);
	for (int w = 1; w <= 3; w++)
		ft3_case(&re_ftree, 8, w);
}
END_TEST

START_TEST(test_ft3_updn)
{
	for (int w = 1; w <= 3; w++)
		ft3_case(&re_updn, 8, w);
}
END_TEST

/* A share of the cables lost at random, every discipline. */
START_TEST(test_ft3_random)
{
	static const double frac[] = { 0.02, 0.05, 0.1 };
	struct fabric a, b;
	struct outcome o;
	unsigned i, seed;

	for (i = 0; i < 3; i++)
		for (seed = 1; seed <= 4; seed++) {
			build(&a, FT3, 8);
			build(&b, FT3, 8);
			ck_assert_uint_gt(testfab_remove_links(&b, frac[i],
			    seed), 0);
			run(&re_ftree, REPAIR_UPDOWN, &a, &b, &o);
			fprintf(stderr, "ftree ft3_8 %.2f seed %u: changed %llu, "
			    "not up/down %u (new turns %u), acyclic %d, blocks "
			    "%llu (engine %llu)\n", frac[i], seed,
			    (unsigned long long)o.changed, o.r.not_updown,
			    o.r.new_turns, o.acyclic, (unsigned long long)o.blocks,
			    (unsigned long long)o.engine_blocks);
			assert_good(&o, false);
			ck_assert_uint_eq(o.st.unreached, o.fresh.unreached);
			run(&re_minhop, REPAIR_SHORTEST, &a, &b, &o);
			assert_good(&o, false);
			ck_assert_uint_eq(o.st.unreached, 0);
			ck_assert_uint_eq(o.st.shortest, o.st.pairs);
			fabric_fini(&a);
			fabric_fini(&b);
		}
}
END_TEST

/* A spine cut off: every route through it moves, its own LID goes. */
START_TEST(test_ft2_spine_lost)
{
	struct fabric a, b;
	struct outcome o;
	unsigned i;

	build(&a, FT2, 8);
	build(&b, FT2, 8);
	for (i = 1; i <= 8; i++)
		testfab_unlink(&b, 9, (uint8_t)i);
	run(&re_updn, REPAIR_UPDOWN, &a, &b, &o);
	assert_good(&o, true);
	ck_assert_uint_eq(o.st.unreached, o.fresh.unreached);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/*
 * ft3_8, ftree, one cable lost (node n's port p) where ftree's tables turn
 * at the hub (the bottom switch through which it routes between switches
 * with no common ancestor): an uplink of the hub, or a cable between an
 * aggregation switch of the hub's pod and a core, which leaves that core
 * without a down route to the hub (ftree then picks another hub and
 * rewrites every route through it). The repair, alone and with the
 * engine's tables as fallback, changes only entries whose route crossed
 * the cable, takes no LID from the engine, reaches every pair, is free of
 * credit loops and writes fewer blocks than the engine's own route.
 */
static void
hub_case(uint32_t n, uint8_t p, uint64_t max_blocks)
{
	struct fabric a, b;
	struct lft_set old, eng, rep;
	struct repair_result r;
	struct testfab_stats st;
	uint64_t blocks, eblocks;
	uint32_t sw;
	uint16_t lid;
	char why[256] = "";

	build(&a, FT3, 8);
	build(&b, FT3, 8);
	testfab_unlink(&b, n, p);
	route(&re_ftree, &a, &old);
	ck_assert_int_eq(lft_set_init(&eng, &b), 0);
	ck_assert_msg(re_ftree.route(&b, &(struct routing_opts){ .prev = &old,
	    .prev_fabric = &a }, &eng, why, sizeof(why)) == 0, "%s", why);
	eblocks = routing_blocks_changed(&b, &eng, &a, &old);
	for (int fb = 0; fb < 2; fb++) {
		ck_assert_int_eq(repair_run_acyclic(&b, &a, &old, fb ? &eng :
		    NULL, NULL, REPAIR_BUDGET, &rep, &r), 0);
		blocks = routing_blocks_changed(&b, &rep, &a, &old);
		fprintf(stderr, "hub case %u[%u] fallback %d: changed %llu of %u "
		    "LIDs, %u outside up*down*, %u closing a cycle, %u LIDs as "
		    "ftree, %llu blocks (ftree %llu), %llu links searched\n", n,
		    p, fb, (unsigned long long)r.changed, r.lids, r.not_updown,
		    r.new_turns, r.engine_lids, (unsigned long long)blocks,
		    (unsigned long long)eblocks, (unsigned long long)r.searched);
		ck_assert(!r.budget_spent);
		for (sw = 0; sw < old.nsw; sw++)
			for (lid = 1; lid <= old.max_lid; lid++)
				if (lft_row(&old, sw)[lid] !=
				    lft_row(&rep, sw)[lid])
					ck_assert_msg(affected(&a, &b, &old, sw,
					    lid), "switch %u LID %u changed, "
					    "not affected", sw, lid);
		ck_assert_msg(cdg_acyclic(&b, &rep, NULL), "credit loop");
		ck_assert_uint_eq(r.new_turns, 0);
		ck_assert_uint_eq(r.engine_lids, 0);
		ck_assert_uint_eq(repair_lost_pairs(&b, &rep, &eng), 0);
		testfab_check(&b, &rep, &st);
		ck_assert_uint_eq(st.unreached, 0);
		ck_assert_uint_lt(blocks, eblocks);
		ck_assert_uint_le(blocks, max_blocks);
		lft_set_fini(&rep);
	}
	lft_set_fini(&eng);
	lft_set_fini(&old);
	fabric_fini(&a);
	fabric_fini(&b);
}

/* the hub (edge 0 of pod 0) loses its uplink to aggregation 0 */
START_TEST(test_hub_uplink)
{
	hub_case(0, 5, 80);
}
END_TEST

/* aggregation 2 of pod 0 (node 34) loses its cable to core 9, as
 * pod0agg2[6]-core9[1] in tests/fabrics/ft3_8.net: core 9 is cut from the
 * hub, its own routes to the other planes and the other cores' routes to
 * it must turn where the tables never did, without closing a cycle */
START_TEST(test_agg_core_hub_pod)
{
	uint32_t agg;

	hub_case(34, 6, 30);
	for (agg = 32; agg < 36; agg++)  /* every aggregation switch of pod 0 */
		hub_case(agg, (uint8_t)(5 + agg % 4), 30);
}
END_TEST

/* The cycle-avoiding search stops at its budget: spent is reported, the
 * visits stay within it (a pass of untangle() is never begun without room
 * for it), and the rest is repaired the fast way: every pair the engine's
 * route reaches is reached, and with the engine's tables as fallback only
 * entries whose route crossed the cable change. */
START_TEST(test_budget)
{
	static const uint64_t budgets[] = { 1, 1000, 20000 };
	struct fabric a, b;
	struct lft_set old, eng, rep;
	struct repair_result r;
	uint32_t sw;
	uint16_t lid;
	char why[256] = "";

	build(&a, FT3, 8);
	build(&b, FT3, 8);
	testfab_unlink(&b, 34, 6);      /* pod0agg2[6]-core9[1] */
	route(&re_ftree, &a, &old);
	ck_assert_int_eq(lft_set_init(&eng, &b), 0);
	ck_assert_msg(re_ftree.route(&b, &(struct routing_opts){ .prev = &old,
	    .prev_fabric = &a }, &eng, why, sizeof(why)) == 0, "%s", why);
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		ck_assert_int_eq(repair_run_acyclic(&b, &a, &old, &eng, NULL,
		    budgets[i], &rep, &r), 0);
		ck_assert(r.budget_spent);
		ck_assert_uint_le(r.searched, budgets[i]);
		ck_assert_uint_eq(repair_lost_pairs(&b, &rep, &eng), 0);
		for (sw = 0; sw < old.nsw; sw++)
			for (lid = 1; lid <= old.max_lid; lid++)
				if (lft_row(&old, sw)[lid] !=
				    lft_row(&rep, sw)[lid] && lft_row(&eng,
				    sw)[lid] != lft_row(&rep, sw)[lid])
					ck_assert_msg(affected(&a, &b, &old, sw,
					    lid), "budget %llu: switch %u LID %u "
					    "changed, not affected",
					    (unsigned long long)budgets[i], sw, lid);
		lft_set_fini(&rep);
	}
	/* enough budget: nothing spent */
	ck_assert_int_eq(repair_run_acyclic(&b, &a, &old, &eng, NULL,
	    REPAIR_BUDGET, &rep, &r), 0);
	ck_assert(!r.budget_spent);
	ck_assert_uint_gt(r.searched, 20000);
	lft_set_fini(&rep);
	lft_set_fini(&eng);
	lft_set_fini(&old);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/*
 * The local repair on ft3_8, updn and ftree, every switch-to-switch cable
 * cut in turn: every changed entry's route crossed the cable (or the LID
 * is routed as the engine routes it, after untangling), the tables are
 * free of credit loops, the search stays within the daemon's budget, and
 * every pair the engine's route reaches is reached. Every cable is
 * repaired without the up/down repair or the engine (a core that lost its
 * cable into a pod goes round through another pod; an aggregation switch
 * cut from an edge goes up a core, its plane's cores joining it there, and
 * round through the hub), writing no more blocks than the up/down repair;
 * summed over the cables, fewer.
 */
static void
local_every_cable(const struct routing_engine *re)
{
	struct fabric a, b;
	struct lft_set old, eng, rep, fast;
	struct repair_result r, rf;
	uint64_t blocks = 0, fblocks = 0, far = 0, ud = 0, el = 0;
	uint32_t n, m, p, q, sw, cables = 0, bad = 0, local = 0;
	uint16_t lid;
	char why[256] = "";

	build(&a, FT3, 8);
	route(re, &a, &old);
	for (n = 0; n < a.nnodes; n++) {
		if (a.nodes[n].type != NODE_SWITCH)
			continue;
		for (uint8_t num = 1; num <= a.nodes[n].nports; num++) {
			p = fabric_port_idx(&a, n, num);
			if ((q = a.ports[p].peer) == FABRIC_NONE || q < p)
				continue;
			m = a.ports[q].node;
			if (a.nodes[m].type != NODE_SWITCH)
				continue;
			build(&b, FT3, 8);
			testfab_unlink(&b, n, num);
			ck_assert_int_eq(lft_set_init(&eng, &b), 0);
			ck_assert_msg(re->route(&b, &(struct routing_opts){
			    .prev = &old, .prev_fabric = &a }, &eng, why,
			    sizeof(why)) == 0, "%s", why);
			ck_assert_int_eq(repair_run_local(&b, &a, &old, &eng,
			    REPAIR_LOCAL_BUDGET, &rep, &r), 0);
			if (r.budget_spent || !cdg_acyclic(&b, &rep, NULL)) {
				fprintf(stderr, "%s node %u[%u]: %u LIDs as the "
				    "engine, %u hops closing a cycle, spent %d, "
				    "acyclic %d\n", re->name, n, num,
				    r.engine_lids, r.new_turns, r.budget_spent,
				    cdg_acyclic(&b, &rep, NULL));
				bad++;
			}
			for (sw = 0; sw < old.nsw; sw++)
				for (lid = 1; lid <= old.max_lid; lid++) {
					if (lft_row(&old, sw)[lid] ==
					    lft_row(&rep, sw)[lid] ||
					    (r.engine_lids > 0 &&
					    lft_row(&eng, sw)[lid] ==
					    lft_row(&rep, sw)[lid]))
						continue;
					ck_assert_msg(affected(&a, &b, &old, sw,
					    lid), "%s node %u[%u]: switch %u LID "
					    "%u changed, not affected", re->name,
					    n, num, sw, lid);
					far += old.sw_node[sw] != n &&
					    old.sw_node[sw] != m;
				}
			ck_assert_uint_eq(repair_lost_pairs(&b, &rep, &eng), 0);
			blocks += routing_blocks_changed(&b, &rep, &a, &old);
			ud += r.updown_lids;
			el += r.engine_lids;
			ck_assert_int_eq(repair_run(&b, &a, &old, &eng,
			    REPAIR_UPDOWN, &fast, &rf), 0);
			fblocks += routing_blocks_changed(&b, &fast, &a, &old);
			/* every cable is repaired locally, ftree's hub's
			 * and its pod's included, writing no more blocks
			 * than the up/down repair */
			ck_assert_msg(r.updown_lids == 0 && r.engine_lids == 0,
			    "%s node %u[%u]: %u LIDs left to up/down, %u to "
			    "the engine", re->name, n, num, r.updown_lids,
			    r.engine_lids);
			ck_assert_uint_le(routing_blocks_changed(&b, &rep, &a,
			    &old), routing_blocks_changed(&b, &fast, &a, &old));
			local++;
			cables++;
			lft_set_fini(&fast);
			lft_set_fini(&rep);
			lft_set_fini(&eng);
			fabric_fini(&b);
		}
	}
	fprintf(stderr, "local repair, %s, %u cables: %llu blocks (up/down "
	    "repair %llu), %llu entries changed away from the cable, %llu "
	    "LIDs left to the up/down repair, %llu taken from the engine, "
	    "%u cables repaired without either, %u failed\n", re->name, cables,
	    (unsigned long long)blocks, (unsigned long long)fblocks,
	    (unsigned long long)far, (unsigned long long)ud,
	    (unsigned long long)el, local, bad);
	ck_assert_uint_eq(cables, 256);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_lt(blocks, fblocks);
	lft_set_fini(&old);
	fabric_fini(&a);
}

START_TEST(test_local_every_cable)
{
	local_every_cable(&re_updn);
	local_every_cable(&re_ftree);
}
END_TEST

/* No previous tables: nothing to repair. */
START_TEST(test_no_prev)
{
	struct fabric a;
	struct lft_set s;
	struct repair_result r;

	build(&a, FT2, 4);
	ck_assert_int_eq(repair_run(&a, NULL, NULL, NULL, REPAIR_UPDOWN, &s, &r), -1);
	fabric_fini(&a);
}
END_TEST

/* Hops of s's routes on f that go up after going down in the order up
 * (a hop from x to y goes up when up[y] > up[x]). */
static uint64_t
order_violations(const struct fabric *f, const struct lft_set *s,
    const uint32_t *up)
{
	uint64_t bad = 0;
	uint32_t sw, node, p, q, x, y, hops;
	uint16_t lid;
	bool down;

	for (sw = 0; sw < s->nsw; sw++)
		for (lid = 1; lid <= s->max_lid; lid++) {
			node = s->sw_node[sw];
			down = false;
			for (hops = 0; hops <= s->nsw; hops++) {
				uint8_t e = lft_row(s, s->node_sw[node])[lid];

				if (e == 0 || e == LFT_NO_ROUTE ||
				    e > f->nodes[node].nports)
					break;
				p = fabric_port_idx(f, node, e);
				if ((q = f->ports[p].peer) == FABRIC_NONE ||
				    f->nodes[f->ports[q].node].type !=
				    NODE_SWITCH)
					break;
				x = s->node_sw[node];
				node = f->ports[q].node;
				y = s->node_sw[node];
				if (up[y] > up[x]) {
					if (down) {
						bad++;
						break;
					}
				} else
					down = true;
			}
		}
	return bad;
}

/* updn says its order (routing_engine.order): a permutation in which its
 * own tables are up*down*, and a repair in it after losses changes only
 * affected entries and reaches every pair. */
START_TEST(test_updn_order)
{
	struct fabric a, b;
	struct lft_set old, rep;
	struct repair_result r;
	uint32_t *up, *seen, sw;
	uint16_t lid;
	unsigned k = 8;

	build(&a, FT3, k);
	build(&b, FT3, k);
	testfab_unlink(&b, 1, k / 2 + 1);
	testfab_unlink(&b, k * k / 2 + k / 2, k / 2 + 1);
	route(&re_updn, &a, &old);
	ck_assert_ptr_nonnull(re_updn.order);
	ck_assert_ptr_null(re_ftree.order);
	up = calloc(old.nsw, sizeof(*up));
	seen = calloc(old.nsw, sizeof(*seen));
	ck_assert_int_eq(re_updn.order(&a, &(struct routing_opts){ 0 }, &old,
	    up), 0);
	for (sw = 0; sw < old.nsw; sw++) {
		ck_assert_uint_lt(up[sw], old.nsw);
		ck_assert_uint_eq(seen[up[sw]]++, 0);
	}
	ck_assert_uint_eq(order_violations(&a, &old, up), 0);
	/* the check bites: reversed, the order breaks the routes */
	for (sw = 0; sw < old.nsw; sw++)
		seen[sw] = old.nsw - 1 - up[sw];
	ck_assert_uint_gt(order_violations(&a, &old, seen), 0);
	/* the same fabric built twice numbers its switches alike */
	ck_assert_int_eq(repair_run_ordered(&b, &a, &old, NULL, REPAIR_UPDOWN,
	    up, &rep, &r), 0);
	for (sw = 0; sw < old.nsw; sw++)
		for (lid = 1; lid <= old.max_lid; lid++)
			if (lft_row(&old, sw)[lid] != lft_row(&rep, sw)[lid])
				ck_assert_msg(affected(&a, &b, &old, sw, lid),
				    "switch %u LID %u changed, not affected",
				    sw, lid);
	{
		struct testfab_stats st;

		testfab_check(&b, &rep, &st);
		ck_assert_uint_eq(st.unreached, 0);
	}
	fprintf(stderr, "updn order: repaired %llu entries, %u outside "
	    "up*down*, acyclic %d\n", (unsigned long long)r.changed,
	    r.not_updown, cdg_acyclic(&b, &rep, NULL));
	lft_set_fini(&rep);
	lft_set_fini(&old);
	free(up);
	free(seen);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/*
 * LMC 2 and 1: every LID of a block is repaired like a LID of its own (its
 * entries changed only where its route crossed the lost cable, every
 * LID delivered, as a fresh route would), and up/down repairs stay free
 * of credit loops over every LID.
 */
START_TEST(test_lmc)
{
	struct fabric a, b;
	struct outcome o;
	uint32_t agg0 = 8 * 8 / 2;

	build(&a, FT2, 8);
	build(&b, FT2, 8);
	testfab_lids_lmc(&a, 2);
	testfab_lids_lmc(&b, 2);
	testfab_unlink(&b, 0, 5);
	testfab_unlink(&b, 5, 6);
	run(&re_minhop, REPAIR_SHORTEST, &a, &b, &o);
	assert_good(&o, false);
	ck_assert_uint_eq(o.st.unreached, 0);
	ck_assert_uint_eq(o.st.shortest, o.st.pairs);
	ck_assert_uint_gt(o.changed, 0);
	/* LIDs beyond the base ones were moved too */
	ck_assert_uint_gt(o.r.lids, 16);
	fabric_fini(&a);
	fabric_fini(&b);

	build(&a, FT3, 8);
	build(&b, FT3, 8);
	testfab_lids_lmc(&a, 1);
	testfab_lids_lmc(&b, 1);
	testfab_unlink(&b, 1, 8 / 2 + 1);
	testfab_unlink(&b, agg0 + 8 / 2, 8 / 2 + 1);
	run(&re_updn, REPAIR_UPDOWN, &a, &b, &o);
	assert_good(&o, true);
	ck_assert_uint_eq(o.st.unreached, 0);
	ck_assert_uint_gt(o.changed, 0);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("repair");
	TCase *tc = tcase_create("repair");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_nothing_lost);
	tcase_add_test(tc, test_ft2_leaf_spine);
	tcase_add_test(tc, test_ft2_minhop);
	tcase_add_test(tc, test_ft3_ftree);
	tcase_add_test(tc, test_ft3_updn);
	tcase_add_test(tc, test_ft3_random);
	tcase_add_test(tc, test_ft2_spine_lost);
	tcase_add_test(tc, test_hub_uplink);
	tcase_add_test(tc, test_agg_core_hub_pod);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_local_every_cable);
	tcase_add_test(tc, test_no_prev);
	tcase_add_test(tc, test_updn_order);
	tcase_add_test(tc, test_lmc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
