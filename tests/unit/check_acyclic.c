/*
 * routing/acyclic on fabrics built in memory: tables to keep with a credit
 * loop (minhop's on fat trees, rings and irregular graphs, as another SM
 * leaves them) and an engine's acyclic tables for the same fabric. Judged
 * here, independently of the module: the result's channel dependency
 * graph is acyclic (cdg_acyclic), every entry is the kept one or the
 * engine's, every pair is delivered (testfab_check), tables already
 * acyclic are left alone, and what changed was forced: no changed block
 * (on fat trees, no changed entry) can go back to the kept entries alone
 * without a cycle or a lost route.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/acyclic.h"
#include "routing/cdg.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

static void
route(const struct routing_engine *re, const struct fabric *f,
    struct lft_set *s)
{
	char why[256] = "";

	ck_assert_int_eq(lft_set_init(s, f), 0);
	ck_assert_msg(re->route(f, &(struct routing_opts){ 0 }, s, why,
	    sizeof(why)) == 0, "%s failed: %s", re->name, why);
}

static void
copy(struct lft_set *dst, const struct lft_set *src, const struct fabric *f)
{
	ck_assert_int_eq(lft_set_copy(dst, src, f->nnodes), 0);
}

static size_t
bytes(const struct lft_set *s)
{
	return (size_t)s->nsw * ((size_t)s->max_lid + 1);
}

static uint64_t
unreached(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;

	testfab_check(f, s, &st);
	return st.unreached;
}

/* Is a switch's own LID (port 0) lid? */
static bool
switch_lid(const struct fabric *f, uint16_t lid)
{
	uint32_t p = fabric_port_by_lid(f, lid);

	return p != FABRIC_NONE && f->nodes[f->ports[p].node].type ==
	    NODE_SWITCH;
}

/* What every result must be: acyclic, made of kept's and engine's
 * entries, delivering every pair; the figures agree with the tables. */
static void
assert_result(const struct fabric *f, const struct lft_set *t,
    const struct lft_set *kept, const struct lft_set *engine,
    const struct acyclic_result *r)
{
	uint64_t changed = 0, blocks = 0;
	uint32_t sw, lid;
	bool blk;

	ck_assert_msg(cdg_acyclic(f, t, NULL), "the result has a credit loop");
	ck_assert_uint_eq(unreached(f, t), 0);
	for (sw = 0; sw < t->nsw; sw++)
		for (lid = 0; lid <= t->max_lid; lid++) {
			uint8_t p = lft_row(t, sw)[lid];

			ck_assert_msg(p == lft_row(kept, sw)[lid] ||
			    p == lft_row(engine, sw)[lid], "switch %u LID %u: "
			    "port %u is neither kept's %u nor the engine's %u",
			    sw, lid, p, lft_row(kept, sw)[lid],
			    lft_row(engine, sw)[lid]);
		}
	for (sw = 0; sw < t->nsw; sw++)
		for (lid = 0; lid <= t->max_lid; lid += 64) {
			blk = false;
			for (uint32_t l = lid; l < lid + 64 && l <= t->max_lid;
			    l++)
				if (lft_row(t, sw)[l] != lft_row(kept, sw)[l]) {
					changed++;
					blk = true;
				}
			blocks += blk;
		}
	ck_assert_uint_eq(r->changed, changed);
	ck_assert_uint_eq(r->blocks, blocks);
	ck_assert(!r->budget_spent);
}

/* No changed block of t goes back to kept's entries alone (in a copy)
 * without a credit loop or a pair no longer delivered. */
static void
assert_blocks_forced(const struct fabric *f, const struct lft_set *t,
    const struct lft_set *kept)
{
	struct lft_set x;
	uint32_t sw, lid, l;
	bool any;

	copy(&x, t, f);
	for (sw = 0; sw < t->nsw; sw++)
		for (lid = 0; lid <= t->max_lid; lid += 64) {
			any = false;
			for (l = lid; l < lid + 64 && l <= t->max_lid; l++)
				if (lft_row(&x, sw)[l] != lft_row(kept, sw)[l]) {
					lft_row(&x, sw)[l] = lft_row(kept, sw)[l];
					any = true;
				}
			if (!any)
				continue;
			ck_assert_msg(!cdg_acyclic(f, &x, NULL) ||
			    unreached(f, &x) > 0, "switch %u block %u went "
			    "back to the kept entries without harm", sw,
			    lid / 64);
			memcpy(lft_row(&x, sw) + lid, lft_row(t, sw) + lid,
			    (lid + 64 <= t->max_lid + 1u ? 64 :
			    t->max_lid + 1u - lid));
		}
	lft_set_fini(&x);
}

/* The same, entry by entry. */
static void
assert_entries_forced(const struct fabric *f, const struct lft_set *t,
    const struct lft_set *kept)
{
	struct lft_set x;
	uint32_t sw, lid;
	uint8_t p;

	copy(&x, t, f);
	for (sw = 0; sw < t->nsw; sw++)
		for (lid = 1; lid <= t->max_lid; lid++) {
			if ((p = lft_row(&x, sw)[lid]) ==
			    lft_row(kept, sw)[lid])
				continue;
			lft_row(&x, sw)[lid] = lft_row(kept, sw)[lid];
			ck_assert_msg(!cdg_acyclic(f, &x, NULL) ||
			    unreached(f, &x) > 0, "switch %u LID %u went "
			    "back to the kept entry without harm", sw, lid);
			lft_row(&x, sw)[lid] = p;
		}
	lft_set_fini(&x);
}

/* Tables already acyclic are not touched, whatever the engine's. */
START_TEST(test_acyclic_untouched)
{
	struct fabric f;
	struct lft_set a, b, was;
	struct acyclic_result r;

	fabric_init(&f);
	testfab_ft3(&f, 8);
	testfab_lids(&f);
	route(&re_ftree, &f, &a);
	route(&re_updn, &f, &b);
	ck_assert(cdg_acyclic(&f, &a, NULL) && cdg_acyclic(&f, &b, NULL));
	ck_assert(memcmp(a.port, b.port, bytes(&a)) != 0);
	copy(&was, &a, &f);
	ck_assert_int_eq(acyclic_keep(&f, &a, &b, ACYCLIC_BUDGET, &r), 0);
	ck_assert(memcmp(a.port, was.port, bytes(&a)) == 0);
	ck_assert_uint_eq(r.changed, 0);
	ck_assert_uint_eq(r.blocks, 0);
	lft_set_fini(&was);
	copy(&was, &b, &f);
	ck_assert_int_eq(acyclic_keep(&f, &b, &a, ACYCLIC_BUDGET, &r), 0);
	ck_assert(memcmp(b.port, was.port, bytes(&b)) == 0);
	ck_assert_uint_eq(r.changed, 0);
	lft_set_fini(&was);
	lft_set_fini(&a);
	lft_set_fini(&b);
	fabric_fini(&f);
}
END_TEST

/*
 * Known answer: the engine's tables with one entry moved to another port
 * that still delivers and closes a cycle. Only that entry may change, and
 * it must (the rest is the engine's either way): the result is exactly
 * the engine's, one entry and one block changed.
 */
static void
one_entry(struct fabric *f, const struct routing_engine *re)
{
	struct lft_set c, m;
	struct acyclic_result r;
	uint32_t sw, lid, e;
	bool found = false;

	route(re, f, &c);
	ck_assert(cdg_acyclic(f, &c, NULL));
	copy(&m, &c, f);
	for (lid = 1; lid <= m.max_lid && !found; lid++)
		for (sw = 0; sw < m.nsw && !found; sw++) {
			const struct fabric_node *n = &f->nodes[m.sw_node[sw]];
			uint8_t was = lft_row(&m, sw)[lid];

			for (e = 1; e <= n->nports && !found; e++) {
				if (e == was)
					continue;
				lft_row(&m, sw)[lid] = (uint8_t)e;
				found = unreached(f, &m) == 0 &&
				    !cdg_acyclic(f, &m, NULL);
			}
			if (!found)
				lft_row(&m, sw)[lid] = was;
		}
	ck_assert_msg(found, "no entry of %s's closes a cycle by itself",
	    re->name);
	ck_assert_int_eq(acyclic_keep(f, &m, &c, ACYCLIC_BUDGET, &r), 0);
	ck_assert(memcmp(m.port, c.port, bytes(&m)) == 0);
	ck_assert_uint_eq(r.changed, 1);
	ck_assert_uint_eq(r.blocks, 1);
	ck_assert_uint_eq(r.lids, 1);
	lft_set_fini(&c);
	lft_set_fini(&m);
}

START_TEST(test_one_entry_ring)
{
	struct fabric f;

	fabric_init(&f);
	testfab_ring(&f, 5, 1);
	testfab_lids(&f);
	one_entry(&f, &re_updn);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_one_entry_ft3)
{
	struct fabric f;

	fabric_init(&f);
	testfab_ft3(&f, 4);
	testfab_lids(&f);
	one_entry(&f, &re_ftree);
	fabric_fini(&f);
}
END_TEST

/*
 * minhop's tables on a three-level fat tree turn down then up between
 * switches anywhere (a credit loop), kept against ftree's: the routes to
 * CAs stay (they go up then down only), only entries for switch LIDs
 * change, and each changed entry (ft3 4, 6) or block (ft3 8) was forced.
 */
static void
minhop_ft3(unsigned k)
{
	struct fabric f;
	struct lft_set c, m, t;
	struct acyclic_result r;
	uint32_t sw, lid;

	fabric_init(&f);
	testfab_ft3(&f, k);
	testfab_lids(&f);
	route(&re_minhop, &f, &m);
	route(&re_ftree, &f, &c);
	ck_assert(!cdg_acyclic(&f, &m, NULL));
	copy(&t, &m, &f);
	ck_assert_int_eq(acyclic_keep(&f, &t, &c, ACYCLIC_BUDGET, &r), 0);
	assert_result(&f, &t, &m, &c, &r);
	ck_assert_uint_gt(r.changed, 0);
	ck_assert_uint_eq(r.engine_lids, 0);
	for (sw = 0; sw < t.nsw; sw++)
		for (lid = 1; lid <= t.max_lid; lid++)
			ck_assert_msg(switch_lid(&f, (uint16_t)lid) ||
			    lft_row(&t, sw)[lid] == lft_row(&m, sw)[lid],
			    "switch %u: the route to CA LID %u changed", sw, lid);
	if (k <= 6)
		assert_entries_forced(&f, &t, &m);
	else
		assert_blocks_forced(&f, &t, &m);
	printf("acyclic: ft3 %u minhop kept against ftree: %llu entries, "
	    "%llu of %llu blocks changed (ftree's differ in %llu)\n", k,
	    (unsigned long long)r.changed, (unsigned long long)r.blocks,
	    (unsigned long long)t.nsw * (t.max_lid / 64u + 1),
	    (unsigned long long)routing_blocks_changed(&f, &c, &f, &m));
	lft_set_fini(&c);
	lft_set_fini(&m);
	lft_set_fini(&t);
	fabric_fini(&f);
}

START_TEST(test_minhop_ft3_4)
{
	minhop_ft3(4);
}
END_TEST

START_TEST(test_minhop_ft3_6)
{
	minhop_ft3(6);
}
END_TEST

START_TEST(test_minhop_ft3_8)
{
	minhop_ft3(8);
}
END_TEST

/* Irregular graphs and rings: minhop's kept against updn's. */
START_TEST(test_minhop_irregular)
{
	struct fabric f;
	struct lft_set c, m, t;
	struct acyclic_result r;
	unsigned cyclic = 0;

	for (unsigned i = 0; i < 16; i++) {
		fabric_init(&f);
		if (i < 4)
			testfab_ring(&f, 4 + i * 2, 2);
		else
			testfab_random(&f, 8 + i * 2, 2, 4 + i * 2, 100 + i);
		testfab_lids(&f);
		route(&re_minhop, &f, &m);
		route(&re_updn, &f, &c);
		copy(&t, &m, &f);
		ck_assert_int_eq(acyclic_keep(&f, &t, &c, ACYCLIC_BUDGET, &r),
		    0);
		assert_result(&f, &t, &m, &c, &r);
		if (!cdg_acyclic(&f, &m, NULL)) {
			cyclic++;
			ck_assert_uint_gt(r.changed, 0);
			assert_blocks_forced(&f, &t, &m);
		} else
			ck_assert_uint_eq(r.changed, 0);
		lft_set_fini(&c);
		lft_set_fini(&m);
		lft_set_fini(&t);
		fabric_fini(&f);
	}
	ck_assert_uint_ge(cyclic, 12);
}
END_TEST

/* Kept entries that deliver nothing (no route, a loop, a port without a
 * cable) take the engine's wherever the engine's deliver. */
START_TEST(test_dead_entries)
{
	struct fabric f;
	struct lft_set c, m, t;
	struct acyclic_result r;
	uint32_t sw, lid, n = 0;

	fabric_init(&f);
	testfab_ft3(&f, 6);
	testfab_lids(&f);
	route(&re_minhop, &f, &m);
	route(&re_ftree, &f, &c);
	for (sw = 0; sw < m.nsw; sw++)
		for (lid = 1 + sw % 7; lid <= m.max_lid; lid += 7) {
			uint8_t *e = &lft_row(&m, sw)[lid];

			if (*e == 0 || lft_row(&c, sw)[lid] == 0)
				continue;
			/* no route, or another port: a loop, a CA, a
			 * longer way */
			*e = n % 3 == 0 ? LFT_NO_ROUTE : n % 3 == 1 ?
			    lft_row(&c, sw)[lid] % 6 + 1 : 6;
			n++;
		}
	ck_assert(unreached(&f, &m) > 0);
	copy(&t, &m, &f);
	ck_assert_int_eq(acyclic_keep(&f, &t, &c, ACYCLIC_BUDGET, &r), 0);
	assert_result(&f, &t, &m, &c, &r);
	lft_set_fini(&c);
	lft_set_fini(&m);
	lft_set_fini(&t);
	fabric_fini(&f);
}
END_TEST

/* A budget spent early: the LIDs left take the engine's routes whole
 * (no search needed), and the result is still acyclic and delivers. */
START_TEST(test_budget_spent)
{
	struct fabric f;
	struct lft_set c, m, t;
	struct acyclic_result r;

	fabric_init(&f);
	testfab_ft3(&f, 6);
	testfab_lids(&f);
	route(&re_minhop, &f, &m);
	route(&re_ftree, &f, &c);
	copy(&t, &m, &f);
	ck_assert_int_eq(acyclic_keep(&f, &t, &c, 1, &r), 0);
	ck_assert(r.budget_spent);
	ck_assert_uint_gt(r.engine_lids, 0);
	r.budget_spent = false;
	assert_result(&f, &t, &m, &c, &r);
	lft_set_fini(&c);
	lft_set_fini(&m);
	lft_set_fini(&t);
	fabric_fini(&f);
}
END_TEST

/* No result: the engine's tables with a cycle, tables of other sizes.
 * The kept tables are left as they were. */
START_TEST(test_no_result)
{
	struct fabric f;
	struct lft_set c, m, was, small;
	struct acyclic_result r;

	fabric_init(&f);
	testfab_ft3(&f, 6);
	testfab_lids(&f);
	route(&re_minhop, &f, &m);
	route(&re_ftree, &f, &c);
	copy(&was, &m, &f);
	ck_assert_int_eq(acyclic_keep(&f, &m, &was, ACYCLIC_BUDGET, &r), -1);
	ck_assert(memcmp(m.port, was.port, bytes(&m)) == 0);
	copy(&small, &c, &f);
	small.max_lid--;
	ck_assert_int_eq(acyclic_keep(&f, &m, &small, ACYCLIC_BUDGET, &r), -1);
	small.max_lid++;
	ck_assert(memcmp(m.port, was.port, bytes(&m)) == 0);
	lft_set_fini(&small);
	lft_set_fini(&was);
	lft_set_fini(&c);
	lft_set_fini(&m);
	fabric_fini(&f);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("acyclic");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_acyclic_untouched);
	tcase_add_test(tc, test_one_entry_ring);
	tcase_add_test(tc, test_one_entry_ft3);
	tcase_add_test(tc, test_minhop_ft3_4);
	tcase_add_test(tc, test_minhop_ft3_6);
	tcase_add_test(tc, test_minhop_ft3_8);
	tcase_add_test(tc, test_minhop_irregular);
	tcase_add_test(tc, test_dead_entries);
	tcase_add_test(tc, test_budget_spent);
	tcase_add_test(tc, test_no_result);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
