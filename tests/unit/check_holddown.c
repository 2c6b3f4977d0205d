/*
 * sm/holddown: a switch link back within the hold-down of going down is
 * held out of routing (kernel_link_usable says no) until it has stayed up
 * that long; links that never flapped are never held.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/log.h"
#include "routing/kernel.h"
#include "sm/holddown.h"
#include "tests/unit/testfab.h"

static struct fabric a, b;

/* ft2 of 4-port switches, every port read, cabled ones ACTIVE. */
static void
build(struct fabric *f)
{
	fabric_init(f);
	testfab_ft2(f, 4);      /* leaves 0-3, spines 4-5 */
	for (uint32_t p = 0; p < f->nports; p++) {
		f->ports[p].info_valid = 1;
		f->ports[p].state = f->ports[p].peer != FABRIC_NONE ||
		    f->ports[p].num == 0 ? PORT_ACTIVE : PORT_DOWN;
	}
}

/* Leaf 0's uplink to spine 0 is port 3 (k/2 + 1). */
static uint32_t
uplink(struct fabric *f)
{
	return fabric_port_idx(f, 0, 3);
}

static void
set_state(struct fabric *f, uint8_t st)
{
	uint32_t p = uplink(f);

	f->ports[p].state = st;
	f->ports[f->ports[p].peer].state = st;
}

START_TEST(test_never_flapped)
{
	struct holddown *h = holddown_new(2.0);
	double rel;

	build(&a);
	build(&b);
	ck_assert_uint_eq(holddown_apply(h, &b, &a, 100.0, &rel), 0);
	ck_assert(rel == 0);
	ck_assert(kernel_link_usable(&b, uplink(&b)));
	holddown_free(h);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/* down at 100 (seen), up at 101: held until 102; at 102.5 free. */
START_TEST(test_down_then_up)
{
	struct holddown *h = holddown_new(2.0);
	struct fabric c;
	double rel;

	build(&a);
	build(&b);
	set_state(&b, PORT_DOWN);
	ck_assert_uint_eq(holddown_apply(h, &b, &a, 100.0, &rel), 0);
	ck_assert(!kernel_link_usable(&b, uplink(&b)));
	build(&c);                      /* up again, trained: INIT */
	set_state(&c, PORT_INIT);
	ck_assert_uint_eq(holddown_apply(h, &c, &b, 101.0, &rel), 1);
	ck_assert(rel == 102.0);
	ck_assert(!kernel_link_usable(&c, uplink(&c)));
	ck_assert(c.ports[c.ports[uplink(&c)].peer].held);
	/* still up (ACTIVE now) after the hold-down: free */
	fabric_fini(&a);
	build(&a);
	ck_assert_uint_eq(holddown_apply(h, &a, &c, 102.5, &rel), 0);
	ck_assert(kernel_link_usable(&a, uplink(&a)));
	holddown_free(h);
	fabric_fini(&a);
	fabric_fini(&b);
	fabric_fini(&c);
}
END_TEST

/* A bounce between two sweeps: ACTIVE before, INIT now (it trained
 * again): that is a flap too. */
START_TEST(test_retrained)
{
	struct holddown *h = holddown_new(2.0);
	double rel;

	build(&a);
	build(&b);
	set_state(&b, PORT_INIT);
	ck_assert_uint_eq(holddown_apply(h, &b, &a, 50.0, &rel), 1);
	ck_assert(rel == 52.0);
	holddown_free(h);
	fabric_fini(&a);
	fabric_fini(&b);
}
END_TEST

/* Every bounce restarts the hold-down: a link flapping every 0.1 s stays
 * held until it has been up 2 s. */
START_TEST(test_flapping)
{
	struct holddown *h = holddown_new(2.0);
	struct fabric m[2];
	double rel, t = 10.0;
	int k = 0;

	build(&m[0]);
	for (int i = 0; i < 40; i++, t += 0.1) {
		build(&m[1 - k]);
		set_state(&m[1 - k], i % 2 ? PORT_INIT : PORT_DOWN);
		holddown_apply(h, &m[1 - k], &m[k], t, &rel);
		ck_assert(!kernel_link_usable(&m[1 - k], uplink(&m[1 - k])));
		fabric_fini(&m[k]);
		k = 1 - k;
	}
	/* stays up: ACTIVE from now on */
	build(&m[1 - k]);
	ck_assert_uint_eq(holddown_apply(h, &m[1 - k], &m[k], t, &rel), 1);
	fabric_fini(&m[k]);
	k = 1 - k;
	build(&m[1 - k]);
	ck_assert_uint_eq(holddown_apply(h, &m[1 - k], &m[k], rel, &rel), 0);
	ck_assert(kernel_link_usable(&m[1 - k], uplink(&m[1 - k])));
	fabric_fini(&m[0]);
	fabric_fini(&m[1]);
	holddown_free(h);
}
END_TEST

/* Only one end saw the link go down (the other's node was not read then,
 * kept as it was): the link is held all the same and counted, so that
 * the caller's timer frees it. Both ends are marked whichever is visited
 * first. */
START_TEST(test_one_end_seen)
{
	struct holddown *h = holddown_new(2.0);
	struct fabric c;
	double rel;

	build(&a);
	build(&b);
	set_state(&b, PORT_DOWN);
	b.nodes[0].kept = 1;            /* leaf 0 not read: its end unknown */
	holddown_apply(h, &b, &a, 100.0, &rel);
	build(&c);
	set_state(&c, PORT_INIT);
	ck_assert_uint_eq(holddown_apply(h, &c, &b, 101.0, &rel), 1);
	ck_assert(rel == 102.0);
	ck_assert(!kernel_link_usable(&c, uplink(&c)));
	holddown_free(h);
	fabric_fini(&a);
	fabric_fini(&b);
	fabric_fini(&c);
}
END_TEST

/* A link that is the only way to a switch is never held. */
START_TEST(test_never_cuts_off)
{
	struct holddown *h = holddown_new(2.0);
	struct fabric c;
	double rel;
	uint32_t p;

	build(&a);
	/* leaf 0 hangs on spine 0 only */
	testfab_unlink(&a, 0, 4);
	build(&b);
	testfab_unlink(&b, 0, 4);
	set_state(&b, PORT_DOWN);
	holddown_apply(h, &b, &a, 100.0, &rel);
	build(&c);
	testfab_unlink(&c, 0, 4);
	set_state(&c, PORT_INIT);
	ck_assert_uint_eq(holddown_apply(h, &c, &b, 100.5, &rel), 0);
	p = uplink(&c);
	ck_assert(kernel_link_usable(&c, p));
	holddown_free(h);
	fabric_fini(&a);
	fabric_fini(&b);
	fabric_fini(&c);
}
END_TEST

static Suite *
holddown_suite(void)
{
	Suite *s = suite_create("holddown");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_never_flapped);
	tcase_add_test(tc, test_down_then_up);
	tcase_add_test(tc, test_retrained);
	tcase_add_test(tc, test_flapping);
	tcase_add_test(tc, test_never_cuts_off);
	tcase_add_test(tc, test_one_end_seen);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(holddown_suite());
	int failed;

	log_set_level(LOG_LVL_ERROR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
