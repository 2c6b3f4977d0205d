/*
 * mcast/group: the group store, its one "full" predicate, MLID allocation
 * and release, forgetting ports, generated MGIDs, SNM consolidation.
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mcast/group.h"

static struct mcast_store *S;
static const struct mcast_params P = {
	.qkey = 0x0b1b, .pkey = 0xffff, .mtu = 4, .rate = 3, .scope = 2,
};

static void
setup(void)
{
	S = mcast_store_new();
}

static void
teardown(void)
{
	mcast_store_free(S);
}

/* ff12:401b:ffff::<n> */
static void
mgid_n(uint8_t mgid[16], unsigned n)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[2] = 0x40;
	mgid[3] = 0x1b;
	mgid[4] = 0xff;
	mgid[5] = 0xff;
	mgid[12] = (uint8_t)(n >> 24);
	mgid[13] = (uint8_t)(n >> 16);
	mgid[14] = (uint8_t)(n >> 8);
	mgid[15] = (uint8_t)n;
}

static const uint8_t GID0[16];

static struct mcast_group *
create_n(unsigned n, uint16_t want)
{
	uint8_t mgid[16];
	enum mcast_err e;
	struct mcast_group *g;

	mgid_n(mgid, n);
	g = mcast_create(S, mgid, want, &P, false, &e);
	ck_assert_msg(g != NULL, "create %u: %s", n, mcast_err_name(e));
	return g;
}

static void
assert_empty(void)
{
	struct mcast_stats st;

	mcast_get_stats(S, &st);
	ck_assert_uint_eq(st.groups, 0);
	ck_assert_uint_eq(st.members, 0);
	ck_assert_uint_eq(st.mlids, 0);
	ck_assert_uint_eq(mcast_count(S), 0);
	ck_assert_uint_eq(mcast_next_mlid(S, 0), 0);
	ck_assert_ptr_null(mcast_next(S, NULL));
}

START_TEST(predicate)
{
	ck_assert(!mcast_join_is_full(0));
	ck_assert(mcast_join_is_full(MCAST_JOIN_FULL));
	ck_assert(!mcast_join_is_full(MCAST_JOIN_NON));
	ck_assert(!mcast_join_is_full(MCAST_JOIN_SENDONLY_NON));
	ck_assert(mcast_join_is_full(MCAST_JOIN_SENDONLY_FULL));
	ck_assert(mcast_join_is_full(0x6 | 0x8));
}
END_TEST

START_TEST(create_find_mlid)
{
	struct mcast_group *a, *b, *c;
	uint8_t mgid[16];
	enum mcast_err e;

	a = create_n(1, 0);
	ck_assert_uint_eq(a->mlid, 0xC000);
	b = create_n(2, 0);
	ck_assert_uint_eq(b->mlid, 0xC001);
	c = create_n(3, 0xC005);        /* requested and free: granted */
	ck_assert_uint_eq(c->mlid, 0xC005);
	mgid_n(mgid, 2);
	ck_assert_ptr_eq(mcast_find(S, mgid), b);
	ck_assert_ptr_null(mcast_create(S, mgid, 0, &P, false, &e));
	ck_assert_int_eq(e, MCAST_EXISTS);
	mgid[0] = 0xfe;
	ck_assert_ptr_null(mcast_create(S, mgid, 0, &P, false, &e));
	ck_assert_int_eq(e, MCAST_BAD_MGID);
	/* requested but taken: the lowest free */
	ck_assert_uint_eq(create_n(4, 0xC000)->mlid, 0xC002);
	/* requested out of range: the lowest free */
	ck_assert_uint_eq(create_n(5, 0xBFFF)->mlid, 0xC003);
	ck_assert_uint_eq(mcast_next_mlid(S, 0), 0xC000);
	ck_assert_uint_eq(mcast_next_mlid(S, 0xC003), 0xC005);
	ck_assert_uint_eq(mcast_next_mlid(S, 0xC005), 0);
	ck_assert_ptr_eq(mcast_by_mlid(S, 0xC005), c);
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC004));
	ck_assert_ptr_null(mcast_by_mlid(S, 0x10));
	ck_assert_uint_eq(mcast_count(S), 5);
}
END_TEST

START_TEST(iteration_sorted)
{
	struct mcast_group *g;
	unsigned n = 0, order[] = { 7, 3, 9, 1, 5 }, i;
	uint8_t prev[16];

	for (i = 0; i < 5; i++)
		create_n(order[i], 0);
	for (g = mcast_next(S, NULL); g != NULL; g = mcast_next(S, g)) {
		if (n > 0)
			ck_assert_int_lt(memcmp(prev, g->mgid, 16), 0);
		memcpy(prev, g->mgid, 16);
		n++;
	}
	ck_assert_uint_eq(n, 5);
}
END_TEST

START_TEST(mlid_limit)
{
	uint8_t mgid[16];
	enum mcast_err e;
	struct mcast_leave r;
	struct mcast_group *g;
	struct mcast_stats st;

	mcast_set_mlid_limit(S, 3);
	create_n(1, 0);
	g = create_n(2, 0);
	create_n(3, 0);
	mgid_n(mgid, 4);
	ck_assert_ptr_null(mcast_create(S, mgid, 0, &P, false, &e));
	ck_assert_int_eq(e, MCAST_NO_MLID);
	ck_assert_ptr_null(mcast_create(S, mgid, 0xC010, &P, false, &e));
	mcast_get_stats(S, &st);
	ck_assert_uint_eq(st.no_mlid, 2);
	/* freed by the last leave, then reused */
	mcast_join(S, g, 0x10, GID0, MCAST_JOIN_FULL, false);
	mcast_leave(S, g, 0x10, MCAST_JOIN_FULL, &r);
	ck_assert(r.group_deleted && r.mlid_freed);
	ck_assert_uint_eq(r.mlid, 0xC001);
	ck_assert_uint_eq(create_n(4, 0)->mlid, 0xC001);
	/* a smaller limit keeps what is held past it, and says so */
	mcast_set_mlid_limit(S, 2);
	ck_assert_uint_eq(mcast_mlids_beyond_limit(S), 1);
	mcast_set_mlid_limit(S, 100000);
	ck_assert_uint_eq(mcast_mlid_limit(S), MCAST_MLID_COUNT);
}
END_TEST

/* A smaller limit: MLIDs past it move to free ones within it, lowest
 * first, groups sharing an MLID together, members kept; those for which
 * nothing is free stay and are counted. */
static void snm(uint8_t mgid[16], uint8_t scope, uint16_t pkey,
    uint32_t low);
static unsigned moves;
static uint16_t moved_from[8], moved_to[8];

static void
on_moved(void *arg, uint16_t from, uint16_t to)
{
	(void)arg;
	moved_from[moves] = from;
	moved_to[moves++] = to;
}

START_TEST(mlid_limit_relocate)
{
	struct mcast_group *g[6], *a, *b;
	struct mcast_leave r;
	uint8_t m[16];
	unsigned i;

	moves = 0;
	for (i = 0; i < 6; i++)
		g[i] = create_n(i + 1, 0);              /* 0xC000 .. 0xC005 */
	mcast_join(S, g[4], 0x44, GID0, MCAST_JOIN_FULL, false);
	/* two SNM groups sharing 0xC006 */
	mcast_set_consolidate_snm(S, true);
	snm(m, 2, 0xffff, 1);
	a = mcast_create(S, m, 0, &P, false, NULL);
	snm(m, 2, 0xffff, 2);
	b = mcast_create(S, m, 0, &P, false, NULL);
	ck_assert_uint_eq(a->mlid, 0xC006);
	ck_assert_uint_eq(b->mlid, 0xC006);
	/* 0xC001 and 0xC003 freed */
	mcast_delete(S, g[1]);
	mcast_delete(S, g[3]);
	/* limit 4: 0xC004 (g[4]), 0xC005 (g[5]) and 0xC006 (a, b) are past
	 * it, two MLIDs free within it */
	mcast_set_mlid_limit(S, 4);
	ck_assert_uint_eq(mcast_mlids_beyond_limit(S), 3);
	ck_assert_uint_eq(mcast_relocate(S, on_moved, NULL), 2);
	ck_assert_uint_eq(moves, 2);
	ck_assert_uint_eq(moved_from[0], 0xC004);
	ck_assert_uint_eq(moved_to[0], 0xC001);
	ck_assert_uint_eq(moved_from[1], 0xC005);
	ck_assert_uint_eq(moved_to[1], 0xC003);
	ck_assert_uint_eq(g[4]->mlid, 0xC001);
	ck_assert_ptr_eq(mcast_by_mlid(S, 0xC001), g[4]);
	ck_assert_ptr_nonnull(mcast_member_find(g[4], 0x44));
	ck_assert_uint_eq(g[5]->mlid, 0xC003);
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC004));
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC005));
	/* nothing free for the shared one: it stays, counted */
	ck_assert_uint_eq(mcast_mlids_beyond_limit(S), 1);
	ck_assert_uint_eq(a->mlid, 0xC006);
	ck_assert_uint_eq(mcast_relocate(S, NULL, NULL), 0);
	/* one freed within the limit: the shared MLID moves, both groups */
	mcast_delete(S, g[0]);
	ck_assert_uint_eq(mcast_relocate(S, on_moved, NULL), 1);
	ck_assert_uint_eq(moved_from[2], 0xC006);
	ck_assert_uint_eq(moved_to[2], 0xC000);
	ck_assert_uint_eq(a->mlid, 0xC000);
	ck_assert_uint_eq(b->mlid, 0xC000);
	ck_assert_uint_eq(mcast_mlids_beyond_limit(S), 0);
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC006));
	/* the moved MLID is released by the last leave as before */
	mcast_leave(S, g[4], 0x44, MCAST_JOIN_FULL, &r);
	ck_assert(r.group_deleted && r.mlid_freed);
	ck_assert_uint_eq(r.mlid, 0xC001);
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC001));
}
END_TEST

/* The PR #43 case: join 0x9, leave 0x1, leave 0x8 leaves nothing. */
START_TEST(join9_leave1_leave8)
{
	struct mcast_group *g = create_n(1, 0);
	struct mcast_leave r;

	ck_assert_uint_eq(mcast_join(S, g, 0x42, GID0, 0x9, false), 0x9);
	mcast_leave(S, g, 0x42, MCAST_JOIN_FULL, &r);
	ck_assert(r.was_member && !r.member_removed && !r.group_deleted);
	ck_assert_uint_eq(r.join_state, 0x8);
	mcast_leave(S, g, 0x42, MCAST_JOIN_SENDONLY_FULL, &r);
	ck_assert(r.member_removed && r.group_deleted && r.mlid_freed);
	ck_assert_uint_eq(r.mlid, 0xC000);
	assert_empty();
}
END_TEST

START_TEST(non_members_do_not_keep)
{
	struct mcast_group *g = create_n(1, 0);
	struct mcast_leave r;

	mcast_join(S, g, 1, GID0, MCAST_JOIN_FULL, false);
	mcast_join(S, g, 2, GID0, MCAST_JOIN_NON, false);
	mcast_join(S, g, 3, GID0, MCAST_JOIN_SENDONLY_NON, false);
	ck_assert_uint_eq(g->nmembers, 3);
	ck_assert_uint_eq(mcast_member_find(g, 2)->join_state, MCAST_JOIN_NON);
	/* leaving bits one does not hold changes nothing */
	mcast_leave(S, g, 2, MCAST_JOIN_FULL, &r);
	ck_assert(r.was_member && !r.member_removed);
	mcast_leave(S, g, 9, MCAST_JOIN_FULL, &r);
	ck_assert(!r.was_member && !r.group_deleted);
	/* the last full member goes: so do the group and its non members */
	mcast_leave(S, g, 1, MCAST_JOIN_ALL, &r);
	ck_assert(r.group_deleted && r.mlid_freed);
	assert_empty();
}
END_TEST

START_TEST(well_known)
{
	uint8_t mgid[16];
	struct mcast_group *g;
	struct mcast_leave r;

	mgid_n(mgid, 1);
	g = mcast_create(S, mgid, 0, &P, true, NULL);
	ck_assert_ptr_nonnull(g);
	mcast_join(S, g, 1, GID0, MCAST_JOIN_FULL, false);
	mcast_leave(S, g, 1, MCAST_JOIN_FULL, &r);
	ck_assert(r.member_removed && !r.group_deleted);
	ck_assert_ptr_eq(mcast_find(S, mgid), g);
	/* unpinned with a full member: stays until that member leaves */
	mcast_join(S, g, 1, GID0, MCAST_JOIN_SENDONLY_FULL, false);
	ck_assert(!mcast_set_well_known(S, g, false));
	mcast_leave(S, g, 1, MCAST_JOIN_SENDONLY_FULL, &r);
	ck_assert(r.group_deleted);
	/* unpinned without members: deleted at once */
	g = mcast_create(S, mgid, 0, &P, true, NULL);
	ck_assert(mcast_set_well_known(S, g, false));
	assert_empty();
}
END_TEST

static bool
present_odd(void *arg, uint64_t guid)
{
	(void)arg;
	return guid & 1;
}

static unsigned changed_calls;
static uint16_t changed_last;

static void
on_changed(void *arg, uint16_t mlid)
{
	(void)arg;
	changed_calls++;
	changed_last = mlid;
}

START_TEST(prune)
{
	struct mcast_group *a = create_n(1, 0), *b = create_n(2, 0),
	    *c = create_n(3, 0);
	struct mcast_stats st;

	mcast_join(S, a, 2, GID0, MCAST_JOIN_FULL, false);     /* a: goes */
	mcast_join(S, a, 3, GID0, MCAST_JOIN_NON, false);
	mcast_join(S, b, 4, GID0, MCAST_JOIN_NON, false);      /* b: stays */
	mcast_join(S, b, 5, GID0, MCAST_JOIN_FULL, false);
	mcast_join(S, c, 7, GID0, MCAST_JOIN_FULL, false);     /* untouched */
	changed_calls = 0;
	ck_assert_uint_eq(mcast_prune(S, present_odd, NULL, on_changed, NULL),
	    2);
	ck_assert_uint_eq(changed_calls, 2);
	ck_assert_uint_eq(mcast_count(S), 2);
	ck_assert_ptr_null(mcast_by_mlid(S, 0xC000));
	ck_assert_uint_eq(b->nmembers, 1);
	mcast_get_stats(S, &st);
	ck_assert_uint_eq(st.members, 2);
	ck_assert_uint_eq(st.forgotten, 2);
	changed_calls = 0;
	ck_assert_uint_eq(mcast_forget_port(S, 7, on_changed, NULL), 1);
	ck_assert_uint_eq(changed_calls, 1);
	ck_assert_uint_eq(changed_last, 0xC002);
	ck_assert_uint_eq(mcast_count(S), 1);
}
END_TEST

START_TEST(new_mgid)
{
	uint8_t m1[16], m2[16];
	static const uint8_t head[12] = { 0xff, 0x15, 0xa0, 0x1b,
	    0xfe, 0x80, 0, 0, 0, 0, 0, 0 };

	ck_assert_int_eq(mcast_new_mgid(S, 5, 0xfe80000000000000ull, m1), 0);
	ck_assert_mem_eq(m1, head, 12);
	ck_assert_ptr_nonnull(mcast_create(S, m1, 0, &P, false, NULL));
	ck_assert_int_eq(mcast_new_mgid(S, 5, 0xfe80000000000000ull, m2), 0);
	ck_assert_int_ne(memcmp(m1, m2, 16), 0);
}
END_TEST

/* ff12:601b:ffff:0:0:1:ffXX:XXXX */
static void
snm(uint8_t mgid[16], uint8_t scope, uint16_t pkey, uint32_t low)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | scope);
	mgid[2] = 0x60;
	mgid[3] = 0x1b;
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
	mgid[11] = 1;
	mgid[12] = 0xff;
	mgid[13] = (uint8_t)(low >> 16);
	mgid[14] = (uint8_t)(low >> 8);
	mgid[15] = (uint8_t)low;
}

START_TEST(snm_consolidation)
{
	uint8_t m[16];
	struct mcast_group *a, *b, *c, *d;
	struct mcast_leave r;
	struct mcast_stats st;

	snm(m, 2, 0xffff, 0x123456);
	ck_assert(mcast_mgid_is_snm(m));
	mgid_n(m, 1);
	ck_assert(!mcast_mgid_is_snm(m));

	/* off: one MLID each */
	snm(m, 2, 0xffff, 1);
	a = mcast_create(S, m, 0, &P, false, NULL);
	snm(m, 2, 0xffff, 2);
	b = mcast_create(S, m, 0, &P, false, NULL);
	ck_assert_uint_ne(a->mlid, b->mlid);
	mcast_delete(S, a);
	mcast_delete(S, b);
	assert_empty();

	mcast_set_consolidate_snm(S, true);
	snm(m, 2, 0xffff, 1);
	a = mcast_create(S, m, 0, &P, false, NULL);
	snm(m, 2, 0xffff, 2);
	b = mcast_create(S, m, 0, &P, false, NULL);
	snm(m, 5, 0xffff, 3);           /* other scope */
	c = mcast_create(S, m, 0, &P, false, NULL);
	snm(m, 2, 0x8001, 4);           /* other P_Key */
	d = mcast_create(S, m, 0, &P, false, NULL);
	ck_assert_uint_eq(a->mlid, b->mlid);
	ck_assert_uint_ne(a->mlid, c->mlid);
	ck_assert_uint_ne(a->mlid, d->mlid);
	ck_assert_ptr_eq(mcast_by_mlid(S, a->mlid), a);
	ck_assert_ptr_eq(a->mlid_next, b);
	mcast_get_stats(S, &st);
	ck_assert_uint_eq(st.mlids, 3);
	/* the shared MLID is free only when both are gone */
	mcast_join(S, a, 1, GID0, MCAST_JOIN_FULL, false);
	mcast_join(S, b, 2, GID0, MCAST_JOIN_FULL, false);
	mcast_leave(S, a, 1, MCAST_JOIN_FULL, &r);
	ck_assert(r.group_deleted && !r.mlid_freed);
	ck_assert_ptr_eq(mcast_by_mlid(S, r.mlid), b);
	mcast_leave(S, b, 2, MCAST_JOIN_FULL, &r);
	ck_assert(r.group_deleted && r.mlid_freed);
}
END_TEST

/* 1,000 random join/leave cycles on a few groups and ports, in mixed
 * JoinState orders: at the end every port leaves everything, and nothing
 * (group, member, MLID) is left behind. The store is checked against a
 * model of its own after every step. */
#define NG 6
#define NPORT 8
START_TEST(random_cycles)
{
	uint8_t js[NG][NPORT];
	uint8_t mgid[16];
	struct mcast_group *g;
	struct mcast_leave r;
	struct mcast_stats st;
	unsigned i, k, p, live, members;
	uint8_t bits, exp;

	memset(js, 0, sizeof(js));
	srandom(4242);
	for (i = 0; i < 1000; i++) {
		k = (unsigned)random() % NG;
		p = (unsigned)random() % NPORT;
		bits = (uint8_t)(1 + random() % 15);
		mgid_n(mgid, k);
		g = mcast_find(S, mgid);
		if (random() % 2) {
			if (g == NULL) {
				if (!mcast_join_is_full(bits))
					continue;       /* no create */
				g = mcast_create(S, mgid, 0, &P, false, NULL);
				ck_assert_ptr_nonnull(g);
			}
			exp = js[k][p] | bits;
			ck_assert_uint_eq(mcast_join(S, g, p + 1, GID0, bits,
			    false), exp);
			js[k][p] = exp;
		} else if (g != NULL) {
			mcast_leave(S, g, p + 1, bits, &r);
			js[k][p] &= (uint8_t)~bits;
			ck_assert_uint_eq(r.join_state, js[k][p]);
			live = 0;
			for (p = 0; p < NPORT; p++)
				live += mcast_join_is_full(js[k][p]);
			ck_assert_int_eq(r.group_deleted, live == 0);
			if (live == 0)
				memset(js[k], 0, sizeof(js[k]));
		}
		members = 0;
		for (k = 0; k < NG; k++)
			for (p = 0; p < NPORT; p++)
				members += js[k][p] != 0;
		mcast_get_stats(S, &st);
		ck_assert_uint_eq(st.members, members);
		ck_assert_uint_eq(st.mlids, st.groups);
	}
	/* everyone leaves, in a mixed order of partial leaves */
	for (p = 0; p < NPORT; p++)
		for (k = 0; k < NG; k++) {
			mgid_n(mgid, k);
			if ((g = mcast_find(S, mgid)) != NULL)
				mcast_leave(S, g, p + 1, 0x1, &r);
			if ((g = mcast_find(S, mgid)) != NULL)
				mcast_leave(S, g, p + 1, 0xE, &r);
		}
	assert_empty();
	mcast_get_stats(S, &st);
	ck_assert_uint_eq(st.created, st.deleted);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mcast_group");
	TCase *t = tcase_create("store");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, predicate);
	tcase_add_test(t, create_find_mlid);
	tcase_add_test(t, iteration_sorted);
	tcase_add_test(t, mlid_limit);
	tcase_add_test(t, mlid_limit_relocate);
	tcase_add_test(t, join9_leave1_leave8);
	tcase_add_test(t, non_members_do_not_keep);
	tcase_add_test(t, well_known);
	tcase_add_test(t, prune);
	tcase_add_test(t, new_mgid);
	tcase_add_test(t, snm_consolidation);
	tcase_add_test(t, random_cycles);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
