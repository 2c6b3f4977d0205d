/*
 * Keeping the routes in place (routing/keep.c) on fabrics built in memory:
 * routes that deliver as short as the engine's stay, the others are
 * replaced, per switch where that is enough, per destination otherwise.
 * testfab_check() judges the result with its own BFS.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/cdg.h"
#include "routing/routing.h"
#include "routing/keep.h"
#include "tests/unit/testfab.h"

/* testfab_ft2(4): leaves 0-3 (ports 1-2 HCAs, 3-4 spines 0-1), spines 4-5
 * (port i+1 to leaf i). */
static struct fabric f;
static struct lft_set computed, held;

static void
setup(void)
{
	char why[128] = "";

	fabric_init(&f);
	testfab_ft2(&f, 4);
	ck_assert_int_eq(lft_set_init(&computed, &f), 0);
	ck_assert_int_eq(re_minhop.route(&f, &(struct routing_opts){ 0 },
	    &computed, why, sizeof(why)), 0);
	ck_assert_int_eq(lft_set_init(&held, &f), 0);
	memcpy(held.port, computed.port,
	    (size_t)computed.nsw * (computed.max_lid + 1u));
}

static void
teardown(void)
{
	lft_set_fini(&computed);
	lft_set_fini(&held);
	fabric_fini(&f);
}

static uint8_t *
entry(struct lft_set *s, uint32_t node, uint16_t lid)
{
	return &lft_row(s, s->node_sw[node])[lid];
}

/* The LID of HCA port j (0-based) of leaf i. */
static uint16_t
hca_lid(unsigned leaf, unsigned j)
{
	uint32_t n = 6 + leaf * 2 + j;

	return f.ports[fabric_port_idx(&f, n, 1)].lid;
}

static void
assert_good(const struct lft_set *s)
{
	struct testfab_stats st;

	testfab_check(&f, s, &st);
	ck_assert_msg(st.bad == 0, "%llu bad pairs, first: %s",
	    (unsigned long long)st.bad, st.first);
	ck_assert_uint_eq(st.shortest + st.unroutable, st.pairs);
}

/* Every leaf sends what goes to an HCA of another leaf through the other
 * spine: as short, so it all stays. */
START_TEST(test_keep_equal)
{
	struct keep_result r;

	for (unsigned leaf = 0; leaf < 4; leaf++)
		for (unsigned h = 0; h < 8; h++) {
			uint8_t *e = entry(&held, leaf, hca_lid(h / 2, h % 2));

			if (*e == 3)
				*e = 4;
			else if (*e == 4)
				*e = 3;
		}
	ck_assert(memcmp(held.port, computed.port, (size_t)held.nsw *
	    (held.max_lid + 1u)) != 0);
	keep_merge(&f, &held, &computed, &r);
	ck_assert_mem_eq(computed.port, held.port, (size_t)held.nsw *
	    (held.max_lid + 1u));
	ck_assert_uint_eq(r.mixed, 0);
	ck_assert_uint_eq(r.computed, 0);
	ck_assert_uint_eq(r.kept, held.max_lid);
	assert_good(&computed);
}
END_TEST

/* Spine 1 sends one HCA's LID to the wrong leaf (a loop back up there):
 * that switch takes the computed entry, the rest of the column stays. */
START_TEST(test_fix_one_switch)
{
	struct keep_result r;
	uint16_t lid = hca_lid(2, 0);

	/* leaf 0 reaches it through spine 1, which sends it back */
	*entry(&held, 0, lid) = 4;
	*entry(&held, 5, lid) = 1;              /* spine 1 -> leaf 0: a loop */
	keep_merge(&f, &held, &computed, &r);
	ck_assert_uint_eq(r.mixed, 1);
	ck_assert_uint_eq(r.computed, 0);
	ck_assert_uint_eq(r.kept, held.max_lid - 1);
	ck_assert_uint_eq(*entry(&computed, 5, lid), 3);
	/* spine 0 and the leaf it hangs off did fine: theirs stayed */
	ck_assert_uint_eq(*entry(&computed, 4, lid), *entry(&held, 4, lid));
	ck_assert_uint_eq(*entry(&computed, 2, lid), *entry(&held, 2, lid));
	assert_good(&computed);
}
END_TEST

/* A detour (spine 0 sends a LID down to the wrong leaf, which sends it up
 * again): longer than the engine's route, so replaced at spine 0. */
START_TEST(test_no_longer_than_computed)
{
	struct keep_result r;
	uint16_t lid = hca_lid(2, 1);

	*entry(&held, 4, lid) = 2;              /* spine 0 -> leaf 1 */
	*entry(&held, 1, lid) = 4;              /* leaf 1 -> spine 1 */
	keep_merge(&f, &held, &computed, &r);
	ck_assert_uint_eq(r.mixed, 1);
	ck_assert_uint_eq(*entry(&computed, 4, lid), 3);
	assert_good(&computed);
}
END_TEST

/* A cable gone: the routes over it are replaced, the others stay. */
START_TEST(test_cable_gone)
{
	struct keep_result r;
	char why[128] = "";

	testfab_unlink(&f, 0, 3);               /* leaf 0 - spine 0 */
	memset(computed.port, LFT_NO_ROUTE, (size_t)computed.nsw *
	    (computed.max_lid + 1u));
	ck_assert_int_eq(re_minhop.route(&f, &(struct routing_opts){ 0 },
	    &computed, why, sizeof(why)), 0);
	keep_merge(&f, &held, &computed, &r);
	ck_assert_uint_gt(r.mixed + r.computed, 0);
	ck_assert_uint_gt(r.kept, 0);
	assert_good(&computed);
}
END_TEST

/* Nothing in place (fresh switches): everything as computed. */
START_TEST(test_nothing_held)
{
	struct keep_result r;
	uint8_t *copy = malloc((size_t)computed.nsw * (computed.max_lid + 1u));

	memcpy(copy, computed.port, (size_t)computed.nsw *
	    (computed.max_lid + 1u));
	memset(held.port, LFT_NO_ROUTE, (size_t)held.nsw *
	    (held.max_lid + 1u));
	keep_merge(&f, &held, &computed, &r);
	ck_assert_uint_eq(r.kept + r.mixed, 0);
	ck_assert_uint_eq(r.computed, held.max_lid);
	ck_assert_mem_eq(computed.port, copy, (size_t)computed.nsw *
	    (computed.max_lid + 1u));
	free(copy);
}
END_TEST

/*
 * Another SM's minhop tables on a three-level fat tree (a credit loop
 * between switch routes), ftree computing: the merge keeps them all and
 * has the loop; keep_break_loops() gives the engine's entries only to
 * switch LIDs, the result is acyclic and delivers, and the LIDs are
 * counted again (those routed as in place, partly, as computed).
 */
START_TEST(test_break_loops)
{
	struct fabric g;
	struct lft_set mh, ft, out;
	struct keep_result r;
	struct acyclic_result ar;
	struct testfab_stats st;
	char why[128] = "";
	uint32_t sw, lid, cas = 0, kept = 0;

	fabric_init(&g);
	testfab_ft3(&g, 4);
	testfab_lids(&g);
	ck_assert_int_eq(lft_set_init(&mh, &g), 0);
	ck_assert_int_eq(lft_set_init(&ft, &g), 0);
	ck_assert_int_eq(re_minhop.route(&g, &(struct routing_opts){ 0 }, &mh,
	    why, sizeof(why)), 0);
	ck_assert_int_eq(re_ftree.route(&g, &(struct routing_opts){ 0 }, &ft,
	    why, sizeof(why)), 0);
	ck_assert_int_eq(lft_set_copy(&out, &ft, g.nnodes), 0);
	keep_merge(&g, &mh, &out, &r);
	ck_assert_uint_eq(r.kept, out.max_lid);
	ck_assert(!cdg_acyclic(&g, &out, NULL));
	ck_assert_int_eq(keep_break_loops(&g, &mh, &ft, &out, &r, &ar), 0);
	ck_assert(cdg_acyclic(&g, &out, NULL));
	testfab_check(&g, &out, &st);
	ck_assert_uint_eq(st.unreached, 0);
	ck_assert_uint_gt(ar.lids, 0);
	ck_assert_uint_eq(r.kept + r.mixed + r.computed, out.max_lid);
	ck_assert_uint_eq(r.mixed + r.computed, ar.lids);
	for (lid = 1; lid <= out.max_lid; lid++) {
		uint32_t p = fabric_port_by_lid(&g, (uint16_t)lid);
		bool same = true;

		for (sw = 0; sw < out.nsw; sw++)
			same &= lft_row(&out, sw)[lid] == lft_row(&mh, sw)[lid];
		kept += same;
		if (g.nodes[g.ports[p].node].type == NODE_SWITCH)
			continue;
		cas++;
		ck_assert_msg(same, "the routes to CA LID %u changed", lid);
	}
	ck_assert_uint_eq(r.kept, kept);
	ck_assert_uint_eq(cas, 16);
	lft_set_fini(&mh);
	lft_set_fini(&ft);
	lft_set_fini(&out);
	fabric_fini(&g);
}
END_TEST

static Suite *
inherit_suite(void)
{
	Suite *s = suite_create("inherit");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_keep_equal);
	tcase_add_test(tc, test_fix_one_switch);
	tcase_add_test(tc, test_no_longer_than_computed);
	tcase_add_test(tc, test_cable_gone);
	tcase_add_test(tc, test_nothing_held);
	tcase_add_test(tc, test_break_loops);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(inherit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
