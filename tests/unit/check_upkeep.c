/*
 * The steps after an up as master (sm/upkeep.h) with fake hooks: the
 * order (multicast, alias GUIDs, finish), a step with nothing to send
 * ended at once, a step waiting for its Sets, a new up while a step is
 * under way, a stop, and late or foreign "settled" calls ignored.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/inflight.h"
#include "sm/upkeep.h"

static char trail[64];          /* 'm' multicast, 'a' alias, 'f' finish */
static bool mcast_waits, alias_waits;
static struct upkeep *u;

static void
note(char c)
{
	size_t n = strlen(trail);

	ck_assert_uint_lt(n + 1, sizeof(trail));
	trail[n] = c;
	trail[n + 1] = '\0';
}

static bool
h_mcast(void *arg)
{
	(void)arg;
	note('m');
	return mcast_waits;
}

static bool
h_alias(void *arg)
{
	(void)arg;
	note('a');
	return alias_waits;
}

static void
h_finish(void *arg)
{
	(void)arg;
	note('f');
}

static void
setup(void)
{
	const struct upkeep_hooks h = {
		.mcast = h_mcast, .alias = h_alias, .finish = h_finish,
	};

	trail[0] = '\0';
	mcast_waits = alias_waits = false;
	u = upkeep_new(&h);
}

static void
teardown(void)
{
	upkeep_free(u);
}

static enum upkeep_step
step(void)
{
	struct upkeep_stats st;

	upkeep_get_stats(u, &st);
	return st.step;
}

/* Nothing to send anywhere: the three steps in order, at once. */
START_TEST(test_order_nothing_to_wait)
{
	ck_assert_int_eq(step(), UPKEEP_IDLE);
	upkeep_up(u);
	ck_assert_str_eq(trail, "maf");
	ck_assert_int_eq(step(), UPKEEP_DONE);
	/* the next up runs them again */
	upkeep_up(u);
	ck_assert_str_eq(trail, "mafmaf");
}
END_TEST

/* Each step waits for its own Sets; another step's settling is not its. */
START_TEST(test_waits_for_each_step)
{
	struct upkeep_stats st;

	mcast_waits = alias_waits = true;
	upkeep_up(u);
	ck_assert_str_eq(trail, "m");
	ck_assert_int_eq(step(), UPKEEP_MCAST);
	upkeep_settled(u, UPKEEP_ALIAS);        /* not under way */
	ck_assert_str_eq(trail, "m");
	upkeep_settled(u, UPKEEP_MCAST);
	ck_assert_str_eq(trail, "ma");
	ck_assert_int_eq(step(), UPKEEP_ALIAS);
	upkeep_settled(u, UPKEEP_MCAST);        /* late */
	ck_assert_str_eq(trail, "ma");
	upkeep_settled(u, UPKEEP_ALIAS);
	ck_assert_str_eq(trail, "maf");
	ck_assert_int_eq(step(), UPKEEP_DONE);
	upkeep_settled(u, UPKEEP_ALIAS);        /* nothing more */
	ck_assert_str_eq(trail, "maf");
	upkeep_get_stats(u, &st);
	ck_assert_uint_eq(st.rounds, 1);
	ck_assert_uint_eq(st.finished, 1);
	ck_assert_uint_eq(st.restarts, 0);
}
END_TEST

/* A new up while alias GUIDs are written starts again from multicast; the
 * abandoned alias step settling then moves nothing. */
START_TEST(test_up_restarts)
{
	struct upkeep_stats st;

	mcast_waits = alias_waits = true;
	upkeep_up(u);
	upkeep_settled(u, UPKEEP_MCAST);
	ck_assert_int_eq(step(), UPKEEP_ALIAS);
	upkeep_up(u);
	ck_assert_str_eq(trail, "mam");
	ck_assert_int_eq(step(), UPKEEP_MCAST);
	upkeep_settled(u, UPKEEP_ALIAS);
	ck_assert_str_eq(trail, "mam");
	alias_waits = false;
	upkeep_settled(u, UPKEEP_MCAST);
	ck_assert_str_eq(trail, "mamaf");
	upkeep_get_stats(u, &st);
	ck_assert_uint_eq(st.rounds, 2);
	ck_assert_uint_eq(st.restarts, 1);
	ck_assert_uint_eq(st.finished, 1);
}
END_TEST

/* No longer master: the steps are abandoned, nothing finishes, and a stop
 * when idle is nothing. */
START_TEST(test_stop)
{
	upkeep_stop(u);
	ck_assert_int_eq(step(), UPKEEP_IDLE);
	mcast_waits = true;
	upkeep_up(u);
	upkeep_stop(u);
	ck_assert_int_eq(step(), UPKEEP_IDLE);
	upkeep_settled(u, UPKEEP_MCAST);
	ck_assert_str_eq(trail, "m");
	ck_assert_int_eq(step(), UPKEEP_IDLE);
	ck_assert_str_eq(upkeep_step_name(UPKEEP_ALIAS), "alias-guids");
}
END_TEST

/* core/inflight, what the steps' modules count their Sets with: nothing
 * in flight is nothing to wait for; the last one settled calls back
 * once; a forgotten waiter is not called. */
static int called;

static void
on_none(void *arg)
{
	(void)arg;
	called++;
}

START_TEST(test_inflight)
{
	struct inflight w = { 0 };

	ck_assert(!inflight_wait(&w, on_none, NULL));
	inflight_add(&w);
	inflight_add(&w);
	ck_assert(inflight_wait(&w, on_none, NULL));
	inflight_settled(&w);
	ck_assert_int_eq(called, 0);
	inflight_settled(&w);
	ck_assert_int_eq(called, 1);
	inflight_settled(&w);           /* a stray one: nothing more */
	ck_assert_int_eq(called, 1);
	inflight_add(&w);
	ck_assert(inflight_wait(&w, on_none, NULL));
	inflight_forget(&w);
	inflight_settled(&w);
	ck_assert_int_eq(called, 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("upkeep");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_order_nothing_to_wait);
	tcase_add_test(tc, test_waits_for_each_step);
	tcase_add_test(tc, test_up_restarts);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_inflight);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
