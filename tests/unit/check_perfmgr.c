/*
 * sm/perfmgr over the fake transport: off, no PerfMgt agent and no MAD;
 * on, a round asks each node's ClassPortInfo once, then each cabled port's
 * PortCounters (PortSelect the port), and PortCountersExtended where the
 * capability mask says so; an answer for another port is not taken; the
 * totals follow core/pcounter; stopped, nothing more is sent; an error
 * counter is rising (an event, logged once) only above its threshold.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/fabric.h"
#include "mad/mad.h"
#include "sm/perfmgr.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/testfab.h"

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct fabric fab;
static uint32_t sw, ca1, ca2;

static const struct fabric *
fab_cb(void *arg)
{
	(void)arg;
	return &fab;
}

static void
setup(void)
{
	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, 0x1234, NULL);
	ck_assert_ptr_nonnull(eng);
	fabric_init(&fab);
	sw = testfab_switch(&fab, 3);
	ca1 = testfab_ca(&fab, 1);
	ca2 = testfab_ca(&fab, 1);
	testfab_connect(&fab, sw, 1, ca1, 1);
	testfab_connect(&fab, sw, 2, ca2, 1);      /* port 3: no cable */
	testfab_lids(&fab);
}

static void
teardown(void)
{
	mad_engine_free(eng);
	fabric_fini(&fab);
	ev_loop_destroy(loop);
}

static uint16_t
attr(size_t i)
{
	return (uint16_t)mad_get_field((void *)fake_sent(i)->mad, 0,
	    IB_MAD_ATTRID_F);
}

/* Answer sent MAD i with its own data (PortSelect echoed), the capability
 * mask cap for a ClassPortInfo, SymbolErrorCounter sym for a
 * PortCounters, PortSelect changed to other when nonzero. */
static void
reply(size_t i, uint32_t cap, unsigned sym, unsigned other)
{
	uint8_t d[64];

	memcpy(d, fake_sent(i)->mad + 64, sizeof(d));
	if (attr(i) == 0x0001)
		mad_set_field(d, 0, IB_CPI_CAPMASK_F, cap);
	if (attr(i) == 0x0012)
		mad_set_field(d, 0, IB_PC_ERR_SYM_F, sym);
	if (other)
		mad_set_field(d, 0, IB_PC_PORT_SELECT_F, other);
	fake_respond(i, 0, d);
}

struct found {
	unsigned n;
	uint64_t sym;           /* switch port 1's symbol errors */
	bool ext;
	bool rising;            /* ... rising */
	unsigned sym_threshold; /* ... their threshold */
};

static void
count_port(void *arg, const struct perfmgr_port *p)
{
	struct found *f = arg;

	f->n++;
	if (p->sw && p->port == 1) {
		f->sym = p->pc->c[PC_SYMBOL_ERROR].total;
		f->ext = p->ext;
		f->rising = (p->rising & 1u << PC_SYMBOL_ERROR) != 0;
		f->sym_threshold = p->threshold[PC_SYMBOL_ERROR];
	}
}

START_TEST(test_off_sends_nothing)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);

	perfmgr_set_opts(pm, false, 10, false);
	perfmgr_start(pm);
	ev_run(loop, EVRUN_NOWAIT);
	ck_assert_uint_eq(fake_nsent(), 0);
	ck_assert_ptr_null(fake_agent(MGMT_CLASS_PERF, 1));
	perfmgr_free(pm);
}
END_TEST

START_TEST(test_round)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);
	struct perfmgr_stats st;
	struct found f = { 0 };
	size_t i, n;
	unsigned pc = 0, pcx = 0, sel[4] = { 0 };

	perfmgr_set_opts(pm, true, 10, false);
	perfmgr_start(pm);
	ck_assert_ptr_nonnull(fake_agent(MGMT_CLASS_PERF, 1));
	/* one ClassPortInfo per node, LID-routed GMPs on QP1 */
	ck_assert_uint_eq(fake_nsent(), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(fake_sent(i)->mad[1], MGMT_CLASS_PERF);
		ck_assert_uint_eq(attr(i), 0x0001);
		ck_assert_uint_eq(fake_sent(i)->to.qpn, 1);
		ck_assert_uint_eq(fake_sent(i)->to.qkey, TRANSPORT_QKEY_GSI);
	}
	/* the switch has PortCountersExtended (bit 9), the CAs not */
	for (i = 0; i < 3; i++)
		reply(i, fake_sent(i)->dlid == fab.ports[fab.nodes[sw].port0].lid
		    ? 1u << 9 : 0, 0, 0);
	/* switch ports 1 and 2 (PortCounters and Extended), each CA port */
	n = fake_nsent();
	ck_assert_uint_eq(n, 3 + 2 * 2 + 2);
	for (i = 3; i < n; i++) {
		if (attr(i) == 0x0012) {
			pc++;
			if (fake_sent(i)->dlid ==
			    fab.ports[fab.nodes[sw].port0].lid)
				sel[mad_get_field((void *)(fake_sent(i)->mad +
				    64), 0, IB_PC_PORT_SELECT_F)]++;
		} else {
			ck_assert_uint_eq(attr(i), 0x001D);
			pcx++;
		}
	}
	ck_assert_uint_eq(pc, 4);
	ck_assert_uint_eq(pcx, 2);
	ck_assert_uint_eq(sel[1], 1);
	ck_assert_uint_eq(sel[2], 1);
	ck_assert_uint_eq(sel[3], 0);
	for (i = 3; i < n; i++) {
		bool sw1 = attr(i) == 0x0012 && mad_get_field((void *)(
		    fake_sent(i)->mad + 64), 0, IB_PC_PORT_SELECT_F) == 1 &&
		    fake_sent(i)->dlid == fab.ports[fab.nodes[sw].port0].lid;

		reply(i, 0, sw1 ? 7 : 0, 0);
	}
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.rounds, 1);
	ck_assert_uint_eq(st.cpi_reads, 3);
	ck_assert_uint_eq(st.ports, 4);
	ck_assert_uint_eq(st.ext_ports, 2);
	ck_assert_uint_eq(st.failed, 0);
	perfmgr_foreach(pm, count_port, &f);
	ck_assert_uint_eq(f.n, 4);
	ck_assert_uint_eq(f.sym, 7);
	ck_assert(f.ext);
	perfmgr_free(pm);
}
END_TEST

START_TEST(test_wrong_port_and_stop)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);
	struct perfmgr_stats st;
	struct found f = { 0 };
	size_t i, n;

	perfmgr_set_opts(pm, true, 10, false);
	perfmgr_start(pm);
	for (i = 0; i < 3; i++)
		reply(i, 0, 0, 0);
	n = fake_nsent();
	ck_assert_uint_eq(n, 3 + 4);    /* no Extended anywhere */
	/* every answer names port 3: none is taken */
	for (i = 3; i < n; i++)
		reply(i, 0, 5, 3);
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.failed, 4);
	perfmgr_foreach(pm, count_port, &f);
	ck_assert_uint_eq(f.n, 0);
	/* stopped: the next timer sends nothing */
	perfmgr_stop(pm);
	ev_run(loop, EVRUN_NOWAIT);
	ck_assert_uint_eq(fake_nsent(), n);
	perfmgr_get_stats(pm, &st);
	ck_assert(!st.running);
	perfmgr_free(pm);
}
END_TEST

/* A saturated counter is cleared (a PortCounters Set selecting just it)
 * only with clear_saturated. */
static size_t
round_with_saturated(bool clear)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);
	struct perfmgr_stats st;
	size_t i, n, sets = 0;

	perfmgr_set_opts(pm, true, 10, clear);
	perfmgr_start(pm);
	for (i = 0; i < 3; i++)
		reply(i, 0, 0, 0);
	n = fake_nsent();
	ck_assert_uint_eq(n, 3 + 4);
	/* switch port 1: SymbolErrorCounter at its 16-bit maximum */
	for (i = 3; i < n; i++)
		reply(i, 0, fake_sent(i)->dlid ==
		    fab.ports[fab.nodes[sw].port0].lid &&
		    mad_get_field((void *)(fake_sent(i)->mad + 64), 0,
		    IB_PC_PORT_SELECT_F) == 1 ? 0xFFFF : 3, 0);
	for (i = n; i < fake_nsent(); i++) {
		const uint8_t *d = fake_sent(i)->mad + 64;

		ck_assert_uint_eq(mad_get_field((void *)fake_sent(i)->mad, 0,
		    IB_MAD_METHOD_F), MAD_SET);
		ck_assert_uint_eq(attr(i), 0x0012);
		ck_assert_uint_eq(mad_get_field((void *)d, 0,
		    IB_PC_PORT_SELECT_F), 1);
		ck_assert_uint_eq(mad_get_field((void *)d, 0,
		    IB_PC_COUNTER_SELECT_F), 1u << PC_SYMBOL_ERROR);
		ck_assert_uint_eq(mad_get_field((void *)d, 0,
		    IB_PC_COUNTER_SELECT2_F), 0);
		reply(i, 0, 0, 0);
		sets++;
	}
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.clears, sets);
	ck_assert_uint_eq(st.rounds, 1);
	perfmgr_free(pm);
	return sets;
}

START_TEST(test_clear_saturated)
{
	ck_assert_uint_eq(round_with_saturated(true), 1);
}
END_TEST

START_TEST(test_no_clear_by_default)
{
	ck_assert_uint_eq(round_with_saturated(false), 0);
}
END_TEST

/*
 * One round with switch port 1's SymbolErrorCounter read as sym (the
 * other ports 0), started at once (stop, start); returns whether that
 * counter is rising after it.
 */
static bool
round_sym(struct perfmgr *pm, unsigned sym)
{
	size_t i, n0 = fake_nsent();
	struct found f = { 0 };

	perfmgr_stop(pm);
	perfmgr_start(pm);
	for (i = n0; i < fake_nsent(); i++) {
		bool sw1 = attr(i) == 0x0012 && mad_get_field((void *)(
		    fake_sent(i)->mad + 64), 0, IB_PC_PORT_SELECT_F) == 1 &&
		    fake_sent(i)->dlid == fab.ports[fab.nodes[sw].port0].lid;

		reply(i, 0, sw1 ? sym : 0, 0);
	}
	perfmgr_foreach(pm, count_port, &f);
	ck_assert_uint_eq(f.sym_threshold, 10);
	return f.rising;
}

/* A rise above the counter's threshold (more than it per read) is an
 * event, logged once until a read where it is not rising; a rise of the
 * threshold or less is counted but is none. */
START_TEST(test_thresholds)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);
	struct perfmgr_stats st;
	unsigned thr[PC_NERRORS];

	for (unsigned id = 0; id < PC_NERRORS; id++)
		thr[id] = 1000;
	thr[PC_SYMBOL_ERROR] = 10;
	perfmgr_set_opts(pm, true, 10, false);
	perfmgr_set_thresholds(pm, thr);
	ck_assert(!round_sym(pm, 5));   /* the first read: a baseline */
	ck_assert(!round_sym(pm, 15));  /* +10: not more than 10 */
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.error_events, 0);
	ck_assert(round_sym(pm, 26));   /* +11 */
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.error_events, 1);
	ck_assert(round_sym(pm, 100));  /* +74: still rising, not again */
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.error_events, 1);
	ck_assert(!round_sym(pm, 101)); /* +1 */
	ck_assert(round_sym(pm, 200));  /* +99: a new event */
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.error_events, 2);
	ck_assert_uint_eq(st.rounds, 6);
	perfmgr_free(pm);
}
END_TEST

/* Until set, the thresholds are pcounter_info's (infiniband-diags'). */
START_TEST(test_default_thresholds)
{
	struct perfmgr *pm = perfmgr_new(loop, eng, fab_cb, NULL);
	struct perfmgr_stats st;

	perfmgr_set_opts(pm, true, 10, false);
	ck_assert_uint_eq(pcounter_info(PC_SYMBOL_ERROR)->threshold, 10);
	ck_assert_uint_eq(pcounter_info(PC_VL15_DROPPED)->threshold, 100);
	ck_assert(!round_sym(pm, 0));
	ck_assert(!round_sym(pm, 10));
	ck_assert(round_sym(pm, 21));
	perfmgr_get_stats(pm, &st);
	ck_assert_uint_eq(st.error_events, 1);
	perfmgr_free(pm);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("perfmgr");
	TCase *tc = tcase_create("rounds");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_off_sends_nothing);
	tcase_add_test(tc, test_round);
	tcase_add_test(tc, test_wrong_port_and_stop);
	tcase_add_test(tc, test_clear_saturated);
	tcase_add_test(tc, test_no_clear_by_default);
	tcase_add_test(tc, test_thresholds);
	tcase_add_test(tc, test_default_thresholds);
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
	return failed == 0 ? 0 : 1;
}
