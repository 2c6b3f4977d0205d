/*
 * Sweep state machine tests: sm/sweep.c with the modules it drives
 * (discover, lid, program, sminfo), the routing and partition floors, the
 * real MAD engine over the fake transport, and the fake fabric answering.
 * Assertions are on what the devices hold and on the SMPs the fake fabric
 * saw, and on the sweep's status view.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "partitions/partitions.h"
#include "routing/routing.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "tests/unit/fakefab.h"
#include "tests/unit/testfab.h"

#define GUARD_SECS      60.0    /* safety net only */
#define NSW             6       /* testfab_ft2(4): leaves 0-3, spines 4-5 */
#define SM_NODE         6       /* the first HCA, on leaf 0 port 1 */

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct sminfo *smi;
static struct smstate *ss;
static struct sweep *sw;

/* The SM state machine asks for a heavy sweep when it starts (and after
 * an election elsewhere): the tests here ask for every sweep themselves,
 * so that what each one requests is what runs. */
static void
sm_sweep_cb(void *arg)
{
	(void)arg;
}
static struct fakefab *ff;
static struct fabric topo;
static struct sweep_opts so;
static struct pkey_policy *policy;

static struct {
	unsigned calls, oks;
	bool last_ok;
	char why[200];
} up;

static void
up_cb(void *arg, bool ok, const char *why)
{
	(void)arg;
	up.calls++;
	up.oks += ok;
	up.last_ok = ok;
	snprintf(up.why, sizeof(up.why), "%s", why ? why : "");
}

static void
trap_cb(void *arg, unsigned trap, uint16_t issuer)
{
	(void)arg;
	(void)trap;
	(void)issuer;
}

static struct sweep_status
status(void)
{
	struct sweep_status st;

	sweep_get_status(sw, &st);
	return st;
}

static bool
idle_with(uint64_t heavy, uint64_t light)
{
	struct sweep_status st = status();

	return strcmp(st.state, "idle") == 0 && st.heavy_sweeps >= heavy &&
	    st.light_sweeps >= light;
}

static uint64_t want_heavy, want_light;

static bool
reached(void *arg)
{
	(void)arg;
	return idle_with(want_heavy, want_light);
}

/* Run until the sweep is idle with at least heavy and light sweeps done. */
static void
run_until(uint64_t heavy, uint64_t light)
{
	want_heavy = heavy;
	want_light = light;
	ck_assert_msg(fakefab_run(ff, loop, reached, NULL, GUARD_SECS),
	    "sweep not idle after %" PRIu64 " heavy and %" PRIu64 " light",
	    heavy, light);
	ck_assert_uint_eq(status().heavy_sweeps, heavy);
	ck_assert_uint_eq(status().light_sweeps, light);
}

static void
start_opts(unsigned timeout_ms, unsigned max_failures)
{
	static const struct routing_engine *chain[] = { &re_minhop };
	struct mad_opts o = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = timeout_ms, .retries = 1 };

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, 0x1234, &o);
	ck_assert_ptr_nonnull(eng);
	ck_assert_int_eq(smp_register(eng), 0);
	ff = fakefab_new(&topo, SM_NODE, 1);
	fakefab_attach(ff);
	ss = smstate_new(loop, eng, &(struct smstate_opts){ .priority = 1,
	    .poll_interval = 10, .poll_retries = 4 },
	    &(struct smstate_hooks){ .sweep = sm_sweep_cb });
	smi = sminfo_new(eng, ss, trap_cb, NULL);
	memset(&so, 0, sizeof(so));
	so.prog.subnet_prefix = 0xfe80000000000000ULL;
	so.prog.subnet_timeout = 18;
	so.prog.packet_life = 0x12;
	so.chain[0] = chain[0];
	so.nchain = 1;
	so.max_failures = max_failures;
	so.policy = policy;
	memset(&up, 0, sizeof(up));
	sw = sweep_new(loop, eng, smi, ss, &so, up_cb, NULL);
	smstate_start(ss);
}

static void
start(void)
{
	start_opts(1000, 1);
}

static void
stop(void)
{
	sweep_free(sw);
	sminfo_free(smi);
	smstate_free(ss);
	fakefab_free(ff);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	fabric_fini(&topo);
	pkey_policy_free(policy);
	policy = NULL;
}

static size_t
sets(void)
{
	size_t n = 0;

	for (size_t i = 0; i < ff->nlog; i++)
		n += ff->log[i].method == MAD_SET;
	return n;
}

/* The subnet is up on the devices: every cable ACTIVE, every end port of
 * the sweep's model with a distinct LID that routes to it from the SM, the
 * SM LID everywhere, PortStateChange cleared. */
static void
assert_up(void)
{
	const struct fabric *f = sweep_fabric(sw);
	uint16_t sm_lid;
	uint8_t seen[FABRIC_MAX_LID + 1] = { 0 };

	ck_assert_ptr_nonnull(f);
	sm_lid = f->ports[f->sm_port].lid;
	ck_assert_uint_ne(sm_lid, 0);
	ck_assert_uint_eq(fakefab_port_lid(ff, SM_NODE, 1), sm_lid);
	for (uint32_t i = 0; i < ff->nnodes; i++) {
		const struct fakefab_node *n = &ff->nodes[i];

		if (n->type == NODE_SWITCH)
			ck_assert_uint_eq(mad_get_field((void *)n->sw_info, 0,
			    IB_SW_STATE_CHANGE_F), 0);
		for (unsigned j = 1; j <= n->nports; j++)
			if (n->ports[j].peer_node != FABRIC_NONE &&
			    mad_get_field((void *)n->ports[j].info, 0,
			    IB_PORT_PHYS_STATE_F) == PHYS_LINKUP)
				ck_assert_uint_eq(fakefab_port_state(ff, i,
				    (uint8_t)j), PORT_ACTIVE);
	}
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];
		uint32_t i = fakefab_node_by_guid(ff, f->nodes[port->node].guid);
		uint8_t in;

		if (!fabric_port_is_endport(f, p))
			continue;
		ck_assert_uint_ne(port->lid, 0);
		ck_assert(!seen[port->lid]);
		seen[port->lid] = 1;
		ck_assert_uint_eq(fakefab_port_lid(ff, i, port->num), port->lid);
		ck_assert_uint_eq(mad_get_field((void *)ff->nodes[i].ports[
		    port->num].info, 0, IB_PORT_SMLID_F), sm_lid);
		ck_assert_uint_eq(fakefab_lid_route(ff, port->lid, &in), i);
		ck_assert_uint_eq(in, port->num);
	}
}

/* Start to "subnet up" in one heavy sweep: discovery, LIDs, routes,
 * programming, activation; the SM is master. With the default partition
 * policy (_i == 1) P_Key tables are read too, and need no write. */
START_TEST(test_heavy_to_up)
{
	struct sweep_status st;

	if (_i == 1)
		policy = pkey_policy_default();
	start();
	ck_assert_ptr_null(sweep_fabric(sw));
	ck_assert(!status().subnet_up);
	sweep_request(sw, true);
	run_until(1, 0);
	ck_assert_uint_eq(up.calls, 1);
	ck_assert(up.last_ok);
	st = status();
	ck_assert(st.subnet_up);
	ck_assert(st.last_ok);
	ck_assert_str_eq(st.last_kind, "heavy");
	ck_assert_uint_eq(st.sweeps, 1);
	ck_assert_uint_eq(st.failures_in_row, 0);
	ck_assert(st.last_program.ok);
	ck_assert_uint_eq(smstate_state(ss), SM_MASTER);
	ck_assert_uint_eq(sweep_fabric(sw)->nnodes, topo.nnodes);
	ck_assert_ptr_nonnull(sweep_lft(sw));
	ck_assert_str_eq(sweep_report(sw)->engine, "minhop");
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	ck_assert_uint_eq(fakefab_count(ff, MAD_SET, ATTR_PKEY_TABLE), 0);
	ck_assert_uint_eq(st.last_program.pkey_reads,
	    _i == 1 ? 8 * 2 + NSW : 0);
	assert_up();
	stop();
}
END_TEST

/* A light sweep on an unchanged fabric reads every switch's SwitchInfo
 * and nothing else, writes nothing, and does not call up again. */
START_TEST(test_light_no_change)
{
	start();
	sweep_request(sw, true);
	run_until(1, 0);
	fakefab_clear_log(ff);
	sweep_request(sw, false);
	run_until(1, 1);
	ck_assert_uint_eq(ff->nlog, NSW);
	ck_assert_uint_eq(fakefab_count(ff, MAD_GET, ATTR_SWITCH_INFO), NSW);
	ck_assert_uint_eq(sets(), 0);
	ck_assert_uint_eq(up.calls, 1);
	ck_assert_str_eq(status().last_kind, "light");
	ck_assert(status().last_ok);
	stop();
}
END_TEST

/* A second heavy sweep of an unchanged fabric writes nothing: the LIDs,
 * routes and programmer's memory carry over. */
START_TEST(test_heavy_again_writes_nothing)
{
	start();
	sweep_request(sw, true);
	run_until(1, 0);
	fakefab_clear_log(ff);
	sweep_request(sw, true);
	run_until(2, 0);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert(up.last_ok);
	ck_assert_uint_eq(sets(), 0);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	assert_up();
	stop();
}
END_TEST

/*
 * A cable goes down: the switches at its ends raise PortStateChange, the
 * light sweep sees it and escalates to a heavy sweep, which finds the
 * fabric without the cable and brings it up again around it.
 */
START_TEST(test_port_state_change_escalates)
{
	const struct fabric *f;
	uint32_t leaf = 1, p;
	uint8_t port = 4;       /* to spine 5: on no switch's directed route
				 * (the SM's leaf 0 reaches both spines,
				 * spine 4 the other leaves) */

	start();
	sweep_request(sw, true);
	run_until(1, 0);
	fakefab_link_down(ff, leaf, port);
	fakefab_clear_log(ff);
	sweep_request(sw, false);
	run_until(2, 1);
	/* every switch answered: the change, not a silence, escalated */
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert(up.last_ok);
	ck_assert_str_eq(status().last_kind, "heavy");
	f = sweep_fabric(sw);
	p = fabric_port_idx(f, fabric_node_by_guid(f, topo.nodes[leaf].guid),
	    port);
	ck_assert_uint_eq(f->ports[p].peer, FABRIC_NONE);
	ck_assert_uint_eq(f->ports[p].state, PORT_DOWN);
	assert_up();
	stop();
}
END_TEST

/* A switch that does not answer the light sweep's SwitchInfo escalates to
 * a heavy sweep as well. */
START_TEST(test_silent_switch_escalates)
{
	struct fakefab_match m = fakefab_match_any();

	start();
	sweep_request(sw, true);
	run_until(1, 0);
	m.method = MAD_GET;
	m.attr = ATTR_SWITCH_INFO;
	m.node = 5;
	/* try and retry, in both of the light sweep's rounds */
	fakefab_rule(ff, &m, FAKEFAB_TIMEOUT, 0, 4);
	sweep_request(sw, false);
	run_until(2, 1);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert(up.last_ok);
	assert_up();
	stop();
}
END_TEST

/* A switch replaced by another (new GUID, powered on with nothing
 * programmed): its PortStateChange escalates the light sweep, and the
 * heavy sweep finds it in place of the old one and programs it. */
START_TEST(test_replaced_switch_escalates)
{
	const struct fabric *f;
	uint32_t spine = 5;
	uint64_t old, new = 0x0002c903deadbeefULL;

	start();
	old = topo.nodes[spine].guid;
	sweep_request(sw, true);
	run_until(1, 0);
	fakefab_replace(ff, spine, new);
	sweep_request(sw, false);
	run_until(2, 1);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert(up.last_ok);
	f = sweep_fabric(sw);
	ck_assert_uint_eq(f->nnodes, topo.nnodes);
	ck_assert_uint_eq(fabric_node_by_guid(f, old), FABRIC_NONE);
	ck_assert(fabric_node_by_guid(f, new) != FABRIC_NONE);
	assert_up();
	stop();
}
END_TEST

/* A light sweep asked for before any heavy one has nothing to compare
 * with: it escalates. */
START_TEST(test_light_first_escalates)
{
	start();
	sweep_request(sw, false);
	run_until(1, 1);
	ck_assert_uint_eq(up.calls, 1);
	ck_assert(up.last_ok);
	assert_up();
	stop();
}
END_TEST

/* Requests made while idle are coalesced into one sweep, heavy winning
 * over light. */
START_TEST(test_requests_coalesce)
{
	start();
	sweep_request(sw, false);
	sweep_request(sw, true);
	sweep_request(sw, true);
	sweep_request(sw, false);
	run_until(1, 0);
	/* nothing else pending: a few more turns of the loop start nothing */
	for (int i = 0; i < 5; i++) {
		fakefab_serve(ff);
		ev_run(loop, EVRUN_NOWAIT);
	}
	ck_assert_uint_eq(status().sweeps, 1);
	ck_assert_uint_eq(up.calls, 1);
	stop();
}
END_TEST

/* A heavy sweep asked for during one runs after it. */
static bool
discovering(void *arg)
{
	(void)arg;
	return strcmp(status().state, "discover") == 0;
}

START_TEST(test_request_during_sweep)
{
	start();
	sweep_request(sw, true);
	ck_assert(fakefab_run(ff, loop, discovering, NULL, GUARD_SECS));
	sweep_request(sw, true);
	run_until(2, 0);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert_uint_eq(up.oks, 2);
	stop();
}
END_TEST

/*
 * An SMP failure during a heavy sweep: the SM's own NodeInfo is lost
 * (discovery fails) or an LFT Set is refused (programming fails). The
 * sweep ends in the failure path: up reports it, the status says why, the
 * previous model (none) is kept. The retry timer then sweeps again, and
 * with the fault gone the subnet comes up.
 */
START_TEST(test_heavy_failure)
{
	struct fakefab_match m = fakefab_match_any();
	struct sweep_status st;

	start();
	if (_i == 0) {
		m.attr = ATTR_NODE_INFO;
		m.hops = 0;
		fakefab_rule(ff, &m, FAKEFAB_TIMEOUT, 0, 0);
	} else {
		m.method = MAD_SET;
		m.attr = ATTR_LFT;
		m.node = 2;
		fakefab_rule(ff, &m, FAKEFAB_ERROR, 0x001C, 0);
	}
	sweep_request(sw, true);
	run_until(1, 0);
	ck_assert_uint_eq(up.calls, 1);
	ck_assert(!up.last_ok);
	ck_assert_ptr_nonnull(strstr(up.why, _i == 0 ? "discovery failed" :
	    "programming"));
	st = status();
	ck_assert(!st.subnet_up);
	ck_assert(!st.last_ok);
	ck_assert_str_eq(st.last_kind, "heavy");
	ck_assert_str_eq(st.last_why, up.why);
	ck_assert_uint_eq(st.failures_in_row, 1);
	/* A discovery that failed leaves no model; a programming that went
	 * part of the way leaves the model it programmed in use (and the
	 * subnet not up). */
	if (_i == 0)
		ck_assert_ptr_null(sweep_fabric(sw));
	else
		ck_assert_ptr_nonnull(sweep_fabric(sw));
	/* The election follows discovery: an SM that could not discover has
	 * not been elected; one that failed to program has, and stays master
	 * while it retries. */
	if (_i == 0)
		ck_assert_uint_ne(smstate_state(ss), SM_MASTER);
	else
		ck_assert_uint_eq(smstate_state(ss), SM_MASTER);

	fakefab_clear_rules(ff);
	run_until(2, 0);
	ck_assert_uint_eq(up.calls, 2);
	ck_assert(up.last_ok);
	st = status();
	ck_assert(st.subnet_up);
	ck_assert_uint_eq(st.failures_in_row, 0);
	assert_up();
	stop();
}
END_TEST

/* With max_failures 2, one failed heavy sweep is not reported; the second
 * in a row is. */
START_TEST(test_failures_in_row)
{
	struct fakefab_match m = fakefab_match_any();

	start_opts(1000, 2);
	m.attr = ATTR_NODE_INFO;
	m.hops = 0;
	fakefab_rule(ff, &m, FAKEFAB_TIMEOUT, 0, 0);
	sweep_request(sw, true);
	run_until(1, 0);
	ck_assert_uint_eq(status().failures_in_row, 1);
	ck_assert_uint_eq(up.calls, 0);
	run_until(2, 0);                /* the retry timer */
	ck_assert_uint_eq(status().failures_in_row, 2);
	ck_assert_uint_eq(up.calls, 1);
	ck_assert(!up.last_ok);
	stop();
}
END_TEST

static Suite *
sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_heavy_to_up, 0, 2);
	tcase_add_test(tc, test_light_no_change);
	tcase_add_test(tc, test_heavy_again_writes_nothing);
	tcase_add_test(tc, test_port_state_change_escalates);
	tcase_add_test(tc, test_silent_switch_escalates);
	tcase_add_test(tc, test_replaced_switch_escalates);
	tcase_add_test(tc, test_light_first_escalates);
	tcase_add_test(tc, test_requests_coalesce);
	tcase_add_test(tc, test_request_during_sweep);
	tcase_add_loop_test(tc, test_heavy_failure, 0, 2);
	tcase_add_test(tc, test_failures_in_row);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sweep_suite());
	int failed;

	if (getenv("CHECK_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	else
		log_set_level(LOG_LVL_ERROR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
