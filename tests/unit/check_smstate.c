/*
 * The SM state machine and the SMInfo responder, with a real libev loop,
 * the MAD engine and the in-memory transport: the election rule, every
 * row of the state table, SMInfo Sets and the SM_Key.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"
#include "core/fabric.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"

#define SELF    0x11ULL         /* our port GUID */
#define PEER_A  0x21ULL         /* another SM's port, LID 2 */
#define PEER_B  0x31ULL         /* a third, LID 3 */
#define KEY     0xabcdULL

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct smstate *ss;
static struct sminfo *si;
static struct fabric fab;
static uint64_t opt_mkey;       /* the M_Key start() gives the SM */

/* What the hooks saw. */
static unsigned sweeps;
static unsigned changes;
static enum sm_state last_from, last_to;
static int elect_calls, elect_master;

static void
hook_sweep(void *arg)
{
	(void)arg;
	sweeps++;
}

static unsigned foreigns;       /* the sweep told another SM wrote */

static void
hook_foreign(void *arg)
{
	(void)arg;
	foreigns++;
}

static void
hook_changed(void *arg, enum sm_state from, enum sm_state to, const char *why)
{
	(void)arg;
	ck_assert_ptr_nonnull(why);
	changes++;
	last_from = from;
	last_to = to;
}

static void
trap_cb(void *arg, unsigned trap, uint16_t issuer)
{
	(void)arg;
	(void)trap;
	(void)issuer;
}

static void
elect_cb(void *arg, bool master)
{
	(void)arg;
	elect_calls++;
	elect_master = master;
}

/* A CA port of its own node, seen through a one-hop path. */
static void
add_ca(uint64_t guid, uint16_t lid, bool is_sm, uint8_t exit_port)
{
	struct dr_path p = { .hops = 1, .port = { 0, exit_port } };
	uint32_t n = fabric_add_node(&fab, NODE_CA, 1, guid - 1, &p);
	uint32_t i = fabric_port_idx(&fab, n, 1);
	struct fabric_port *port = &fab.ports[i];

	port->guid = guid;
	port->present = 1;
	port->path = fabric_add_path(&fab, &p);
	port->info_valid = 1;
	port->state = PORT_ACTIVE;
	mad_set_field(port->info, 0, IB_PORT_LID_F, lid);
	mad_set_field(port->info, 0, IB_PORT_CAPMASK_F, is_sm ? 0x2 : 0);
	if (guid == SELF)
		fab.sm_port = i;
}

static void
start(uint8_t prio, uint64_t key)
{
	struct mad_opts mo = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = 1000, .retries = 0 };
	struct smstate_opts o = { .priority = prio, .sm_key = key,
	    .mkey = opt_mkey, .poll_interval = 0.01, .poll_retries = 2,
	    .elect_copies = 1 };
	struct smstate_hooks h = { .sweep = hook_sweep,
	    .changed = hook_changed, .foreign = hook_foreign };

	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, SELF, &mo);
	ck_assert_ptr_nonnull(eng);
	ck_assert_int_eq(smp_register(eng), 0);
	ss = smstate_new(loop, eng, &o, &h);
	si = sminfo_new(eng, ss, trap_cb, NULL);
	sweeps = changes = foreigns = 0;
	elect_calls = 0;
	fabric_init(&fab);
	add_ca(SELF, 1, true, 0);
	add_ca(PEER_A, 2, true, 2);
	add_ca(PEER_B, 3, false, 3);
}

static void
stop(void)
{
	sminfo_free(si);
	smstate_free(ss);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	fabric_fini(&fab);
}

static void
spin(void)
{
	for (int i = 0; i < 4; i++)
		ev_run(loop, EVRUN_NOWAIT);
}

static int guard_fired;

static void
guard_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	(void)l;
	(void)w;
	(void)revents;
	guard_fired = 1;
}

/* Run the loop until at least n MADs were sent, or a second passed. */
static void
run_until_sent(size_t n)
{
	ev_timer guard;

	ev_timer_init(&guard, guard_cb, 1.0, 0.);
	guard_fired = 0;
	ev_timer_start(loop, &guard);
	while (fake_nsent() < n && !guard_fired)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &guard);
	ck_assert_msg(fake_nsent() >= n, "only %zu MADs sent, %zu expected",
	    fake_nsent(), n);
}

static uint32_t
sent_field(size_t i, enum MAD_FIELDS f)
{
	return mad_get_field((void *)fake_sent(i)->mad, 0, f);
}

static uint32_t
sent_data(size_t i, enum MAD_FIELDS f)
{
	return mad_get_field((void *)(fake_sent(i)->mad + SMP_DATA_OFFSET), 0,
	    f);
}

static uint64_t
sent_data64(size_t i, enum MAD_FIELDS f)
{
	return mad_get_field64((void *)(fake_sent(i)->mad + SMP_DATA_OFFSET), 0,
	    f);
}

static void
smi(uint8_t *d, uint64_t guid, uint8_t prio, enum sm_state state,
    uint64_t key)
{
	memset(d, 0, SMP_DATA_SIZE);
	mad_set_field64(d, 0, IB_SMINFO_GUID_F, guid);
	mad_set_field64(d, 0, IB_SMINFO_KEY_F, key);
	mad_set_field(d, 0, IB_SMINFO_PRIO_F, prio);
	mad_set_field(d, 0, IB_SMINFO_STATE_F, state);
}

/* Answer sent MAD i (an SMInfo request) as the SM guid would. */
static void
answer(size_t i, uint64_t guid, uint8_t prio, enum sm_state state,
    uint64_t key)
{
	uint8_t d[SMP_DATA_SIZE];

	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRID_F), ATTR_SM_INFO);
	smi(d, guid, prio, state, key);
	fake_respond(i, 0, d);
	spin();
}

static void
no_answer(size_t i)
{
	fake_fail(i, ETIMEDOUT);
	spin();
}

/* The poll under way (an SMInfo Get not answered yet), waiting for the
 * next one when there is none. */
static size_t
next_poll(void)
{
	for (size_t i = fake_nsent(); i-- > 0;) {
		if (mad_method_of(fake_sent(i)->mad) == MAD_GET &&
		    sent_field(i, IB_MAD_ATTRID_F) == ATTR_SM_INFO &&
		    !fake_sent(i)->answered)
			return i;
	}
	run_until_sent(fake_nsent() + 1);
	ck_assert_uint_eq(sent_field(fake_nsent() - 1, IB_MAD_METHOD_F),
	    MAD_GET);
	return fake_nsent() - 1;
}

/* The last MAD sent, which must be an SMInfo of this method. */
static size_t
last_sminfo(uint8_t method)
{
	size_t i = fake_nsent() - 1;

	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRID_F), ATTR_SM_INFO);
	ck_assert_uint_eq(mad_method_of(fake_sent(i)->mad), method);
	return i;
}

/* Start and elect: peer A answers (prio, state, key); returns the state. */
static enum sm_state
elect_with_a(uint8_t prio, enum sm_state state, uint64_t key)
{
	size_t n = fake_nsent();

	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 1);
	ck_assert_uint_eq(fake_sent(n)->dlid, 0xFFFF);         /* DR */
	ck_assert_uint_eq(sent_field(n, IB_DRSMP_HOPCNT_F), 1);
	ck_assert_uint_eq(fake_sent(n)->mad[128 + 1], 2);      /* A's path */
	answer(n, PEER_A, prio, state, key);
	return smstate_state(ss);
}

static void
become_master(void)
{
	smstate_start(ss);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(elect_with_a(1, SM_STANDBY, 0), SM_MASTER);
	ck_assert_int_eq(elect_master, 1);
}

static void
become_standby(void)
{
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(15, SM_MASTER, 0), SM_STANDBY);
	ck_assert_int_eq(elect_master, 0);
}

static size_t set_answer;      /* index of set_from()'s answer */

/* Deliver an SMInfo Set with modifier mod from SM guid in state state. */
static uint16_t
set_from(uint64_t guid, unsigned mod, enum sm_state state, uint64_t key)
{
	uint8_t mad[256] = { 0 };
	size_t n = fake_nsent();

	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_SMP_LID);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_method(mad, MAD_SET);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x777);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, ATTR_SM_INFO);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, mod);
	smi(mad + SMP_DATA_OFFSET, guid, 9, state, key);
	fake_deliver(mad, sizeof(mad), 0, 7);
	spin();
	/* The answer: the first GetResp sent after the Set came in (a poll
	 * may go out first). */
	while (n < fake_nsent() && mad_method_of(fake_sent(n)->mad) !=
	    MAD_GETRESP)
		n++;
	ck_assert_uint_lt(n, fake_nsent());
	ck_assert_uint_eq(fake_sent(n)->dlid, 7);
	set_answer = n;
	return (uint16_t)sent_field(n, IB_MAD_STATUS_F);
}

/* ---------------------------------------------------------- the rule */

START_TEST(test_decide)
{
	struct sm_candidate self = { .guid = 0x50, .priority = 5,
	    .state = SM_DISCOVERING, .trusted = true };
	struct sm_candidate p[3];
	size_t w = 99;

	ck_assert(smstate_higher(6, 0x99, 5, 0x10));
	ck_assert(smstate_higher(5, 0x10, 5, 0x11));
	ck_assert(!smstate_higher(5, 0x11, 5, 0x10));
	ck_assert_int_eq(smstate_decide(&self, NULL, 0, &w), SM_V_WIN);
	/* lower, equal-priority-higher-GUID and NOTACTIVE SMs lose */
	p[0] = (struct sm_candidate){ 0x40, 4, SM_STANDBY, true };
	p[1] = (struct sm_candidate){ 0x60, 5, SM_DISCOVERING, true };
	p[2] = (struct sm_candidate){ 0x01, 15, SM_NOTACTIVE, true };
	ck_assert_int_eq(smstate_decide(&self, p, 3, &w), SM_V_WIN);
	/* a higher discovering SM wins: the highest of two */
	p[0] = (struct sm_candidate){ 0x40, 5, SM_DISCOVERING, true };
	p[1] = (struct sm_candidate){ 0x30, 5, SM_STANDBY, false };
	ck_assert_int_eq(smstate_decide(&self, p, 2, &w), SM_V_DEFER);
	ck_assert_uint_eq(w, 1);
	/* a master present wins even at a lower standing */
	p[0] = (struct sm_candidate){ 0x90, 1, SM_MASTER, true };
	p[1] = (struct sm_candidate){ 0x30, 9, SM_STANDBY, true };
	ck_assert_int_eq(smstate_decide(&self, p, 2, &w), SM_V_DEFER);
	ck_assert_uint_eq(w, 0);
	/* of equal standing too, and a foreign one as well */
	p[0] = (struct sm_candidate){ 0x50, 5, SM_MASTER, false };
	ck_assert_int_eq(smstate_decide(&self, p, 1, &w), SM_V_DEFER);

	self.state = SM_MASTER;
	/* master: hand over to the highest trusted standby above us; a
	 * discovering one stands by first */
	p[0] = (struct sm_candidate){ 0x70, 7, SM_STANDBY, true };
	p[1] = (struct sm_candidate){ 0x80, 9, SM_STANDBY, true };
	p[2] = (struct sm_candidate){ 0x10, 12, SM_STANDBY, false };
	ck_assert_int_eq(smstate_decide(&self, p, 3, &w), SM_V_HANDOVER);
	ck_assert_uint_eq(w, 1);
	p[1].state = SM_DISCOVERING;
	ck_assert_int_eq(smstate_decide(&self, p, 3, &w), SM_V_HANDOVER);
	ck_assert_uint_eq(w, 0);
	ck_assert_int_eq(smstate_decide(&self, p + 1, 2, &w), SM_V_WIN);
	/* never to a foreign one: stay */
	ck_assert_int_eq(smstate_decide(&self, p + 2, 1, &w), SM_V_WIN);
	/* a trusted lower master hands over to us: wait */
	p[0] = (struct sm_candidate){ 0x70, 2, SM_MASTER, true };
	ck_assert_int_eq(smstate_decide(&self, p, 1, &w), SM_V_WAIT);
	ck_assert_uint_eq(w, 0);
	/* a trusted higher master: hand over to it */
	p[0].priority = 8;
	ck_assert_int_eq(smstate_decide(&self, p, 1, &w), SM_V_HANDOVER);
	/* any foreign master: step down, whatever its standing */
	p[0] = (struct sm_candidate){ 0x70, 0, SM_MASTER, false };
	p[1] = (struct sm_candidate){ 0x80, 9, SM_STANDBY, true };
	ck_assert_int_eq(smstate_decide(&self, p, 2, &w), SM_V_DEFER);
	ck_assert_uint_eq(w, 0);
	ck_assert_str_eq(smstate_verdict_name(SM_V_WAIT), "wait");
}
END_TEST

/* ---------------------------------------------------------- the table */

/* NOTACTIVE/start, DISCOVERING/won; MASTER/won; MASTER/DISCOVER. */
START_TEST(test_discover_to_master)
{
	start(5, 0);
	ck_assert_int_eq(smstate_state(ss), SM_NOTACTIVE);
	ck_assert(!smstate_may_sweep(ss));
	smstate_start(ss);
	ck_assert_uint_eq(sweeps, 1);
	ck_assert(smstate_may_sweep(ss));
	ck_assert(!smstate_may_write(ss));
	/* A lower standby does not stop us; B has no IsSM: not asked. */
	ck_assert_uint_eq(elect_with_a(4, SM_STANDBY, 0), SM_MASTER);
	ck_assert_int_eq(elect_calls, 1);
	ck_assert_int_eq(elect_master, 1);
	ck_assert(smstate_may_write(ss));
	ck_assert_uint_eq(last_from, SM_DISCOVERING);
	ck_assert_uint_eq(last_to, SM_MASTER);
	/* elected again as master: stays */
	ck_assert_uint_eq(elect_with_a(4, SM_STANDBY, 0), SM_MASTER);
	ck_assert_int_eq(elect_master, 1);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 2);
	stop();
}
END_TEST

/* An SM that does not answer is left out; no IsSM at all: no Get. */
START_TEST(test_unanswered_peer)
{
	size_t n;

	start(0, 0);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_int_eq(elect_calls, 0);
	no_answer(n);
	ck_assert_int_eq(elect_calls, 1);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	/* the peer loses IsSM: no Get, done at once */
	mad_set_field(fab.ports[fabric_port_idx(&fab, 1, 1)].info, 0,
	    IB_PORT_CAPMASK_F, 0);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_int_eq(elect_calls, 2);
	ck_assert_uint_eq(fake_nsent(), n);
	stop();
}
END_TEST

/* DISCOVERING/defer, STANDBY/alive, STANDBY/missed, STANDBY/lost. */
START_TEST(test_standby_poll_takeover)
{
	size_t i;

	start(0, 0);
	become_standby();
	ck_assert(!smstate_may_sweep(ss));
	ck_assert(!smstate_may_write(ss));
	ck_assert_uint_eq(last_to, SM_STANDBY);
	/* the first poll goes out at once, to A, by directed route */
	i = next_poll();
	ck_assert_uint_eq(fake_sent(i)->mad[128 + 1], 2);
	answer(i, PEER_A, 15, SM_MASTER, 0);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	/* A misses once, answers (alive resets), then misses twice */
	no_answer(next_poll());
	answer(next_poll(), PEER_A, 15, SM_MASTER, 0);
	no_answer(next_poll());
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	ck_assert_uint_eq(sweeps, 1);
	no_answer(next_poll());
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 2);
	/* no more polls once DISCOVERING */
	i = fake_nsent();
	spin();
	ck_assert_uint_eq(fake_nsent(), i);
	stop();
}
END_TEST

/* A master that answers as STANDBY (not our higher SM) is no master. */
START_TEST(test_standby_master_stepped_down)
{
	start(9, 0);
	become_standby();
	answer(next_poll(), PEER_A, 3, SM_STANDBY, 0);
	answer(next_poll(), PEER_A, 3, SM_STANDBY, 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	stop();
}
END_TEST

/* STANDBY/ACKNOWLEDGE, STANDBY/HANDOVER (with the ACKNOWLEDGE sent). */
START_TEST(test_standby_handover)
{
	struct smstate_status st;
	size_t n;

	start(3, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(15, SM_MASTER, KEY), SM_STANDBY);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_ACKNOWLEDGE, SM_STANDBY,
	    KEY), 0);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, KEY), 0);
	n = set_answer;
	/* the answer carries our state before the change */
	ck_assert_uint_eq(sent_data(n, IB_SMINFO_STATE_F), SM_STANDBY);
	ck_assert_uint_eq(sent_data64(n, IB_SMINFO_KEY_F), KEY);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	ck_assert(smstate_may_write(ss));
	ck_assert_uint_eq(sweeps, 2);
	/* then ACKNOWLEDGE to A, as a STANDBY with our key */
	ck_assert_uint_ge(fake_nsent(), n + 2);
	ck_assert_uint_eq(mad_method_of(fake_sent(n + 1)->mad), MAD_SET);
	ck_assert_uint_eq(sent_field(n + 1, IB_MAD_ATTRMOD_F),
	    SM_SIG_ACKNOWLEDGE);
	ck_assert_uint_eq(fake_sent(n + 1)->mad[128 + 1], 2);
	ck_assert_uint_eq(sent_data(n + 1, IB_SMINFO_STATE_F), SM_STANDBY);
	ck_assert_uint_eq(sent_data64(n + 1, IB_SMINFO_KEY_F), KEY);
	smstate_get_status(ss, &st);
	ck_assert_uint_eq(st.handovers_taken, 1);
	stop();
}
END_TEST

/* DISCOVERING/HANDOVER: a master of lower standing hands over before our
 * election ends (OpenSM does so, and stands by at once). Its HANDOVER is
 * acknowledged and counted, and outweighs the MASTER answer it gave to
 * our election before; we become master, not its standby. */
START_TEST(test_discovering_handover)
{
	struct smstate_status st;
	size_t n, i;

	start(12, KEY);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 1);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, KEY), 0);
	ck_assert_uint_eq(sent_data(set_answer, IB_SMINFO_STATE_F),
	    SM_DISCOVERING);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 2);
	/* the sender wrote the fabric: the sweep reads what it holds (its
	 * routes kept, as at a takeover) */
	ck_assert_uint_eq(foreigns, 1);
	/* the ACKNOWLEDGE, as a STANDBY with our key, by A's route */
	i = set_answer + 1;
	ck_assert_uint_ge(fake_nsent(), i + 1);
	ck_assert_uint_eq(mad_method_of(fake_sent(i)->mad), MAD_SET);
	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRMOD_F), SM_SIG_ACKNOWLEDGE);
	ck_assert_uint_eq(fake_sent(i)->mad[128 + 1], 2);
	ck_assert_uint_eq(sent_data(i, IB_SMINFO_STATE_F), SM_STANDBY);
	/* A's answer to the election, sent before its HANDOVER */
	answer(n, PEER_A, 5, SM_MASTER, KEY);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	ck_assert_int_eq(elect_master, 1);
	smstate_get_status(ss, &st);
	ck_assert_uint_eq(st.handovers_taken, 1);
	/* the next election: A answers MASTER again, no HANDOVER: we are a
	 * master of higher standing and wait for it (not counted twice) */
	ck_assert_uint_eq(elect_with_a(5, SM_MASTER, KEY), SM_MASTER);
	smstate_get_status(ss, &st);
	ck_assert_uint_eq(st.handovers_taken, 1);
	stop();
}
END_TEST

/* Without the HANDOVER, the same answer makes us A's standby. */
START_TEST(test_discovering_no_handover)
{
	struct smstate_status st;

	start(12, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(5, SM_MASTER, KEY), SM_STANDBY);
	smstate_get_status(ss, &st);
	ck_assert_uint_eq(st.handovers_taken, 0);
	stop();
}
END_TEST

/* STANDBY/DISABLE, NOTACTIVE/STANDBY, STANDBY/DISCOVER,
 * NOTACTIVE/DISCOVER; NOTACTIVE stays quiet. */
START_TEST(test_disable_standby_discover)
{
	size_t n;

	start(0, 0);
	become_standby();
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_NOTACTIVE);
	ck_assert(!smstate_may_sweep(ss));
	/* quiet: no poll for a while */
	n = fake_nsent();
	{
		ev_timer guard;

		ev_timer_init(&guard, guard_cb, 0.05, 0.);
		guard_fired = 0;
		ev_timer_start(loop, &guard);
		while (!guard_fired)
			ev_run(loop, EVRUN_ONCE);
	}
	ck_assert_uint_eq(fake_nsent(), n);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_STANDBY, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	/* polling A again */
	ck_assert_uint_eq(fake_sent(next_poll())->mad[128 + 1], 2);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 2);
	/* back to NOTACTIVE, then DISCOVER */
	ck_assert_uint_eq(elect_with_a(15, SM_MASTER, 0), SM_STANDBY);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, 0), 0);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 3);
	stop();
}
END_TEST

/* MASTER/higher, HANDOVER/handed: then polling the new master. */
START_TEST(test_master_hands_over)
{
	struct smstate_status st;
	size_t i;

	start(5, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(1, SM_STANDBY, KEY), SM_MASTER);
	/* A's priority was raised: the next election hands over */
	ck_assert_uint_eq(elect_with_a(9, SM_STANDBY, KEY), SM_MASTER);
	ck_assert_int_eq(elect_master, 0);
	ck_assert(!smstate_may_write(ss));
	ck_assert_str_eq(smstate_detail(ss), "MASTER (handing over)");
	i = last_sminfo(MAD_SET);
	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRMOD_F), SM_SIG_HANDOVER);
	ck_assert_uint_eq(sent_data(i, IB_SMINFO_STATE_F), SM_MASTER);
	ck_assert_uint_eq(sent_data64(i, IB_SMINFO_KEY_F), KEY);
	ck_assert_uint_eq(sent_data64(i, IB_SMINFO_GUID_F), SELF);
	answer(i, PEER_A, 9, SM_STANDBY, KEY);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	smstate_get_status(ss, &st);
	ck_assert_uint_eq(st.handovers_sent, 1);
	ck_assert_uint_eq(st.master_guid, PEER_A);
	/* A, now master, is polled */
	answer(next_poll(), PEER_A, 9, SM_MASTER, KEY);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	stop();
}
END_TEST

/* HANDOVER/handover-failed (not offered again), HANDOVER/ACKNOWLEDGE,
 * HANDOVER/DISCOVER. */
START_TEST(test_handover_refused_acked)
{
	/* DISCOVERING/defer to a higher SM that is not master yet */
	start(5, 0);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(9, SM_DISCOVERING, 0), SM_STANDBY);
	answer(next_poll(), PEER_A, 9, SM_DISCOVERING, 0);
	answer(next_poll(), PEER_A, 9, SM_MASTER, 0);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	stop();

	start(5, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(9, SM_STANDBY, 0), SM_MASTER);
	fake_respond(last_sminfo(MAD_SET), 0x1C, NULL);
	spin();
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert(smstate_may_write(ss));
	ck_assert_uint_eq(sweeps, 2);
	/* unchanged, A is not offered the subnet again */
	ck_assert_uint_eq(elect_with_a(9, SM_STANDBY, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	/* changed (raised again), it is; it acknowledges by a Set */
	ck_assert_uint_eq(elect_with_a(10, SM_STANDBY, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (handing over)");
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_ACKNOWLEDGE, SM_STANDBY, 0),
	    0);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	stop();

	start(5, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(9, SM_STANDBY, 0), SM_MASTER);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	stop();
}
END_TEST

/* MASTER/other-master, WAITING/alive, /missed, /lost. */
START_TEST(test_master_waits)
{
	start(9, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (waiting)");
	ck_assert(!smstate_may_write(ss));
	ck_assert(smstate_may_sweep(ss));
	ck_assert_int_eq(elect_master, 0);
	answer(next_poll(), PEER_A, 2, SM_MASTER, 0);
	no_answer(next_poll());
	ck_assert_str_eq(smstate_detail(ss), "MASTER (waiting)");
	no_answer(next_poll());
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert(smstate_may_write(ss));
	ck_assert_uint_eq(sweeps, 2);
	stop();
}
END_TEST

/* WAITING/HANDOVER, /won, /defer, /higher, /other-master, /DISCOVER. */
START_TEST(test_waiting_exits)
{
	start(9, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, 0), 0);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert_uint_eq(sweeps, 2);
	/* waiting, then the other master is gone from the election */
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_uint_eq(elect_with_a(2, SM_STANDBY, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert_int_eq(elect_master, 1);
	/* waiting, then it is still master: waiting still */
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (waiting)");
	/* waiting, then it outranks us: hand over */
	ck_assert_uint_eq(elect_with_a(12, SM_MASTER, 0), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (handing over)");
	stop();

	start(9, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	/* a foreign key now: step down */
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0x99), SM_STANDBY);
	stop();

	start(9, 0);
	become_master();
	ck_assert_uint_eq(elect_with_a(2, SM_MASTER, 0), SM_MASTER);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_MASTER, 0), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	stop();
}
END_TEST

/* MASTER/defer (a foreign master), MASTER/HANDOVER, DISCOVERING/HANDOVER;
 * a foreign higher SM never gets the subnet. */
START_TEST(test_foreign_and_signals)
{
	start(5, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, KEY), 0);
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	ck_assert_uint_eq(sweeps, 2);
	ck_assert_uint_eq(elect_with_a(9, SM_STANDBY, 0x77), SM_STANDBY);
	stop();

	start(5, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(1, SM_STANDBY, KEY), SM_MASTER);
	ck_assert_uint_eq(elect_with_a(15, SM_STANDBY, 0x77), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, KEY), 0);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	ck_assert_uint_eq(sweeps, 2);
	ck_assert_uint_eq(elect_with_a(0, SM_MASTER, 0x77), SM_STANDBY);
	ck_assert_int_eq(elect_master, 0);
	stop();
}
END_TEST

/* Illegal Sets are refused and change nothing. */
START_TEST(test_illegal_signals)
{
	struct sminfo_counters c;

	start(5, 0);
	/* NOTACTIVE takes only STANDBY and DISCOVER */
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, 0),
	    0x1C);
	ck_assert_int_eq(smstate_state(ss), SM_NOTACTIVE);
	become_master();
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, 0),
	    0x1C);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_STANDBY, SM_MASTER, 0),
	    0x1C);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_ACKNOWLEDGE, SM_STANDBY, 0),
	    0x1C);
	/* a HANDOVER from a standby, a DISCOVER from a standby */
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_STANDBY, 0),
	    0x1C);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISCOVER, SM_DISCOVERING,
	    0), 0x1C);
	/* unknown modifiers */
	ck_assert_uint_eq(set_from(PEER_A, 0, SM_MASTER, 0), 0x1C);
	ck_assert_uint_eq(set_from(PEER_A, 6, SM_MASTER, 0), 0x1C);
	ck_assert_str_eq(smstate_detail(ss), "MASTER");
	sminfo_get_counters(si, &c);
	ck_assert_uint_eq(c.refused, 8);
	ck_assert_uint_eq(c.sets, 0);
	stop();
}
END_TEST

/* ---------------------------------------------------------- SM_Key */

static size_t
get_sminfo(uint64_t mkey, uint64_t key)
{
	uint8_t mad[256] = { 0 };
	size_t n = fake_nsent();

	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_SMP_LID);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_method(mad, MAD_GET);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x99);
	mad_set_field64(mad, 0, IB_MAD_MKEY_F, mkey);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, ATTR_SM_INFO);
	mad_set_field64(mad + SMP_DATA_OFFSET, 0, IB_SMINFO_KEY_F, key);
	fake_deliver(mad, sizeof(mad), 0, 5);
	spin();
	while (n < fake_nsent() && mad_method_of(fake_sent(n)->mad) !=
	    MAD_GETRESP)
		n++;
	ck_assert_uint_lt(n, fake_nsent());
	ck_assert_uint_eq(fake_sent(n)->dlid, 5);
	ck_assert_uint_eq(sent_field(n, IB_MAD_STATUS_F), 0);
	ck_assert_uint_eq(sent_data64(n, IB_SMINFO_GUID_F), SELF);
	return n;
}

START_TEST(test_sm_key)
{
	struct sminfo_counters c;

	start(7, KEY);
	/* no M_Key on the port: the check passes, the key is shown */
	ck_assert_uint_eq(sent_data64(get_sminfo(0, 0), IB_SMINFO_KEY_F), KEY);
	ck_assert_uint_eq(sent_data(get_sminfo(0, 0), IB_SMINFO_PRIO_F), 7);
	sminfo_set_mkey(si, 0x5555);
	ck_assert_uint_eq(sent_data64(get_sminfo(0, 0), IB_SMINFO_KEY_F), 0);
	ck_assert_uint_eq(sent_data64(get_sminfo(0x4444, 0), IB_SMINFO_KEY_F),
	    0);
	ck_assert_uint_eq(sent_data64(get_sminfo(0x5555, 0), IB_SMINFO_KEY_F),
	    KEY);
	ck_assert_uint_eq(sent_data64(get_sminfo(0, KEY), IB_SMINFO_KEY_F),
	    KEY);
	ck_assert_uint_eq(sent_data(get_sminfo(0, 0), IB_SMINFO_STATE_F),
	    SM_NOTACTIVE);
	/* Sets with another key are refused and counted, whatever they ask */
	become_standby();
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_HANDOVER, SM_MASTER, 0),
	    0x1C);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, KEY + 1),
	    0x1C);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	sminfo_get_counters(si, &c);
	ck_assert_uint_eq(c.bad_key, 2);
	ck_assert_uint_eq(c.refused, 0);
	/* the refusal does not show the key */
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, 0),
	    0x1C);
	ck_assert_uint_eq(sent_data64(set_answer, IB_SMINFO_KEY_F), 0);
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_DISABLE, SM_MASTER, KEY), 0);
	ck_assert_int_eq(smstate_state(ss), SM_NOTACTIVE);
	sminfo_get_counters(si, &c);
	ck_assert_uint_eq(c.sets, 1);
	ck_assert_uint_eq(c.bad_key, 3);
	stop();
}
END_TEST

/* ---------------------------------------------------------- watching */

/* A master re-reads the other SMs: one that became master, or one that
 * now outranks it, starts an election. A raised standby sends trap 144. */
START_TEST(test_watch_and_trap)
{
	struct smstate_opts o = { .priority = 12, .poll_interval = 0.01,
	    .poll_retries = 2 };
	size_t i;

	start(5, 0);
	become_master();
	answer(next_poll(), PEER_A, 1, SM_STANDBY, 0);
	ck_assert_uint_eq(sweeps, 1);
	answer(next_poll(), PEER_A, 6, SM_STANDBY, 0);
	ck_assert_uint_eq(sweeps, 2);
	stop();

	/* a standby raised above its master tells it (trap 144, LID
	 * routed to the master's LID, from ours) */
	start(5, 0);
	become_standby();
	answer(next_poll(), PEER_A, 8, SM_MASTER, 0);
	i = fake_nsent();
	smstate_set_opts(ss, &o);
	ck_assert_uint_eq(fake_nsent(), i + 1);
	ck_assert_uint_eq(fake_sent(i)->dlid, 2);
	ck_assert_uint_eq(mad_method_of(fake_sent(i)->mad), MAD_TRAP);
	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRID_F), ATTR_NOTICE);
	ck_assert_uint_eq(sent_data(i, IB_NOTICE_TRAP_NUMBER_F), 144);
	ck_assert_uint_eq(sent_data(i, IB_NOTICE_ISSUER_LID_F), 1);
	ck_assert_uint_eq(smstate_priority(ss), 12);
	stop();
}
END_TEST

/* With an M_Key, our SMInfo requests present it (and our key is not in
 * them): a peer ibsmd with the same m_key shows us its SM_Key. */
START_TEST(test_requests_present_mkey)
{
	size_t n;

	opt_mkey = 0x5555;
	start(5, KEY);
	sminfo_set_mkey(si, 0x5555);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(mad_get_field64((void *)fake_sent(n)->mad, 0,
	    IB_MAD_MKEY_F), 0x5555);
	ck_assert_uint_eq(sent_data64(n, IB_SMINFO_KEY_F), 0);
	answer(n, PEER_A, 1, SM_STANDBY, KEY);
	/* and what such a request gets from us */
	ck_assert_uint_eq(sent_data64(get_sminfo(0x5555, 0), IB_SMINFO_KEY_F),
	    KEY);
	opt_mkey = 0;
	stop();
}
END_TEST

/* Issue 31 point 2: an SM port that answered once is asked again when it
 * comes back, even with no IsSM bit (a link that trained again); and a
 * port away from the fabric is neither asked nor forgotten. */
START_TEST(test_returning_sm)
{
	uint32_t pa;
	struct fabric away;
	size_t n;

	start(5, KEY);
	pa = fabric_port_idx(&fab, 1, 1);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(1, SM_STANDBY, KEY), SM_MASTER);
	/* A's port is gone: an election without it asks nobody */
	fabric_init(&away);
	{
		struct dr_path p = { .hops = 0 };
		uint32_t nn = fabric_add_node(&away, NODE_CA, 1, SELF - 1, &p);
		uint32_t i = fabric_port_idx(&away, nn, 1);

		away.ports[i].guid = SELF;
		away.ports[i].present = 1;
		away.ports[i].info_valid = 1;
		away.ports[i].state = PORT_ACTIVE;
		mad_set_field(away.ports[i].info, 0, IB_PORT_LID_F, 1);
		mad_set_field(away.ports[i].info, 0, IB_PORT_CAPMASK_F, 2);
		away.sm_port = i;
	}
	n = fake_nsent();
	smstate_elect(ss, &away, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	fabric_fini(&away);
	/* back, its PortInfo without IsSM, an SM there that thinks itself
	 * master: asked, and the higher one gets the subnet */
	mad_set_field(fab.ports[pa].info, 0, IB_PORT_CAPMASK_F, 0);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 1);
	answer(n, PEER_A, 9, SM_MASTER, KEY);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (handing over)");
	ck_assert_uint_eq(sent_field(last_sminfo(MAD_SET), IB_MAD_ATTRMOD_F),
	    SM_SIG_HANDOVER);
	stop();
}
END_TEST

/* A port that announces itself as an SM with trap 144 (IsSM in the
 * notice) is asked in the next election although its PortInfo says
 * nothing of it. */
START_TEST(test_trap144_noted)
{
	uint8_t mad[256] = { 0 }, *d = mad + SMP_DATA_OFFSET;
	size_t n;

	start(5, KEY);
	become_master();
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_SMP_LID);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_method(mad, MAD_TRAP);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, ATTR_NOTICE);
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, 144);
	mad_set_field(d, 0, IB_NOTICE_ISSUER_LID_F, 3);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_CAPMASK_F, 2);
	fake_deliver(mad, sizeof(mad), 0, 3);
	spin();
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	/* A (IsSM) and B (trap 144): two Gets */
	ck_assert_uint_eq(fake_nsent(), n + 2);
	stop();
}
END_TEST

/* A master waiting for a lower master's HANDOVER sends it trap 144 at
 * every poll (it may have missed our port coming back). */
START_TEST(test_waiting_sends_trap144)
{
	size_t i, j, traps = 0;

	start(9, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(1, SM_STANDBY, KEY), SM_MASTER);
	ck_assert_uint_eq(elect_with_a(3, SM_MASTER, KEY), SM_MASTER);
	ck_assert_str_eq(smstate_detail(ss), "MASTER (waiting)");
	/* a trap for every poll A answers as MASTER (on a loaded machine a
	 * poll may time out before the test answers it: up to ten polls) */
	i = fake_nsent();
	for (int polls = 0; polls < 10 && traps < 2; polls++) {
		answer(next_poll(), PEER_A, 3, SM_MASTER, KEY);
		for (traps = 0, j = i; j < fake_nsent(); j++)
			if (mad_method_of(fake_sent(j)->mad) == MAD_TRAP &&
			    sent_data(j, IB_NOTICE_TRAP_NUMBER_F) == 144 &&
			    fake_sent(j)->dlid == 2)
				traps++;
	}
	ck_assert_uint_ge(traps, 2);
	stop();
}
END_TEST

/* Copies: each SM port is asked several times at once; the first answer
 * decides, the others are ignored; a peer is left out only when every
 * copy failed. */
START_TEST(test_elect_copies)
{
	struct smstate_opts o = { .priority = 5, .sm_key = KEY,
	    .poll_interval = 0.01, .poll_retries = 2, .elect_copies = 3 };
	size_t n;

	start(5, KEY);
	smstate_set_opts(ss, &o);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 3);
	no_answer(n);
	ck_assert_int_eq(elect_calls, 0);
	answer(n + 1, PEER_A, 15, SM_MASTER, KEY);
	ck_assert_int_eq(elect_calls, 1);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	answer(n + 2, PEER_A, 1, SM_STANDBY, KEY);      /* too late */
	ck_assert_int_eq(elect_calls, 1);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	stop();
}
END_TEST

/* An elect_copies past reason (a caller's uninitialised field once asked
 * millions of times, until memory ran out) is taken as the maximum. */
START_TEST(test_elect_copies_bounded)
{
	struct smstate_opts o = { .priority = 5, .sm_key = KEY,
	    .poll_interval = 0.01, .poll_retries = 2,
	    .elect_copies = 6540190 };
	size_t n;

	start(5, KEY);
	smstate_set_opts(ss, &o);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 16);
	stop();
}
END_TEST

/* Issue 31 point 3: a standby whose master's polls went unanswered takes
 * over only when the master's port was reached and stays silent, or its
 * link is down; while neither its port nor a down link is seen, it
 * stands by for it again. The lost master is asked with four times the
 * copies. */
START_TEST(test_lost_master_hold)
{
	struct smstate_opts o = { .priority = 5, .sm_key = KEY,
	    .poll_interval = 0.01, .poll_retries = 2, .elect_copies = 2 };
	struct dr_path sp = { .hops = 1, .port = { 0, 4 } };
	uint32_t sw, swp, pa;
	struct fabric gone;
	size_t n;

	start(5, KEY);
	/* A hangs off port 3 of a switch */
	sw = fabric_add_node(&fab, NODE_SWITCH, 4, 0x99, &sp);
	for (uint8_t k = 0; k <= 4; k++) {
		fab.ports[fabric_port_idx(&fab, sw, k)].info_valid = 1;
		fab.ports[fabric_port_idx(&fab, sw, k)].state = PORT_ACTIVE;
	}
	swp = fabric_port_idx(&fab, sw, 3);
	pa = fabric_port_idx(&fab, 1, 1);
	fabric_link(&fab, pa, swp);
	smstate_set_opts(ss, &o);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 2);
	answer(n, PEER_A, 15, SM_MASTER, KEY);
	no_answer(n + 1);                               /* the other copy */
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	/* the polls go unanswered */
	no_answer(next_poll());
	no_answer(next_poll());
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	/* discovery did not reach A; the switch port to it is up */
	fabric_init(&gone);
	{
		struct dr_path p = { .hops = 0 };
		uint32_t nn = fabric_add_node(&gone, NODE_CA, 1, SELF - 1, &p);
		uint32_t i = fabric_port_idx(&gone, nn, 1);

		gone.ports[i].guid = SELF;
		gone.ports[i].present = 1;
		gone.ports[i].info_valid = 1;
		gone.ports[i].state = PORT_ACTIVE;
		mad_set_field(gone.ports[i].info, 0, IB_PORT_LID_F, 1);
		gone.sm_port = i;
		nn = fabric_add_node(&gone, NODE_SWITCH, 4, 0x99, &sp);
		for (uint8_t k = 0; k <= 4; k++) {
			i = fabric_port_idx(&gone, nn, k);
			gone.ports[i].info_valid = 1;
			gone.ports[i].state = PORT_ACTIVE;
		}
	}
	n = fake_nsent();
	smstate_elect(ss, &gone, elect_cb, NULL);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	ck_assert_int_eq(elect_master, 0);
	/* polling A again, still unanswered */
	ck_assert_uint_eq(fake_sent(next_poll())->mad[128 + 1], 2);
	no_answer(next_poll());
	no_answer(next_poll());
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	/* now the switch port is seen down: A is gone, take over */
	gone.ports[fabric_port_idx(&gone, 1, 3)].state = PORT_DOWN;
	smstate_elect(ss, &gone, elect_cb, NULL);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	ck_assert_int_eq(elect_master, 1);
	stop();
	fabric_fini(&gone);

	/* A's port reached but silent through all its copies: dead */
	start(5, KEY);
	smstate_set_opts(ss, &o);
	smstate_start(ss);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	answer(n, PEER_A, 15, SM_MASTER, KEY);
	no_answer(n + 1);
	no_answer(next_poll());
	no_answer(next_poll());
	ck_assert_int_eq(smstate_state(ss), SM_DISCOVERING);
	n = fake_nsent();
	smstate_elect(ss, &fab, elect_cb, NULL);
	ck_assert_uint_eq(fake_nsent(), n + 8);         /* 2 x 4 copies */
	for (size_t i = n; i < n + 8; i++)
		no_answer(i);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	stop();
}
END_TEST

static int left_calls;
static bool left_handed;

static void
left_cb(void *arg, bool handed)
{
	(void)arg;
	left_calls++;
	left_handed = handed;
}

/* Issue 31 point 8: leaving (SIGTERM), a master hands the subnet to its
 * best trusted standby and is done when the standby acknowledges; with
 * no standby there is nothing to wait for. */
START_TEST(test_leave_hands_over)
{
	size_t i;

	start(9, KEY);
	smstate_start(ss);
	ck_assert(!smstate_leave(ss, left_cb, NULL));   /* not master */
	ck_assert_uint_eq(elect_with_a(3, SM_STANDBY, KEY), SM_MASTER);
	left_calls = 0;
	/* the other SMs asked once more first (two Gets each) */
	i = fake_nsent();
	ck_assert(smstate_leave(ss, left_cb, NULL));
	ck_assert_uint_eq(fake_nsent(), i + 2);
	ck_assert_uint_eq(mad_method_of(fake_sent(i)->mad), MAD_GET);
	answer(i, PEER_A, 3, SM_STANDBY, KEY);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);       /* one left */
	answer(i + 1, PEER_A, 3, SM_STANDBY, KEY);
	i = last_sminfo(MAD_SET);
	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRMOD_F), SM_SIG_HANDOVER);
	ck_assert_uint_eq(fake_sent(i)->mad[128 + 1], 2);
	answer(i, PEER_A, 3, SM_STANDBY, KEY);
	ck_assert_int_eq(smstate_state(ss), SM_STANDBY);
	ck_assert_int_eq(left_calls, 0);                /* waits for the ACK */
	ck_assert_uint_eq(set_from(PEER_A, SM_SIG_ACKNOWLEDGE, SM_STANDBY,
	    KEY), 0);
	ck_assert_int_eq(left_calls, 1);
	ck_assert(left_handed);
	stop();

	/* an untrusted standby (another key) is not handed the subnet */
	start(9, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(3, SM_STANDBY, 0x1), SM_MASTER);
	ck_assert(!smstate_leave(ss, left_cb, NULL));
	stop();

	/* an SM last seen DISCOVERING and STANDBY by now gets the subnet:
	 * the probe reads its state again */
	start(9, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(3, SM_DISCOVERING, KEY), SM_MASTER);
	left_calls = 0;
	i = fake_nsent();
	ck_assert(smstate_leave(ss, left_cb, NULL));
	answer(i, PEER_A, 3, SM_STANDBY, KEY);
	no_answer(i + 1);
	i = last_sminfo(MAD_SET);
	ck_assert_uint_eq(sent_field(i, IB_MAD_ATTRMOD_F), SM_SIG_HANDOVER);
	stop();

	/* nobody standing by after the probe: done at once, not handed */
	start(9, KEY);
	smstate_start(ss);
	ck_assert_uint_eq(elect_with_a(3, SM_STANDBY, KEY), SM_MASTER);
	left_calls = 0;
	i = fake_nsent();
	ck_assert(smstate_leave(ss, left_cb, NULL));
	answer(i, PEER_A, 3, SM_DISCOVERING, KEY);
	answer(i + 1, PEER_A, 3, SM_DISCOVERING, KEY);
	ck_assert_int_eq(left_calls, 1);
	ck_assert(!left_handed);
	ck_assert_int_eq(smstate_state(ss), SM_MASTER);
	stop();
}
END_TEST

static Suite *
smstate_suite(void)
{
	Suite *s = suite_create("smstate");
	TCase *tc = tcase_create("fsm");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_decide);
	tcase_add_test(tc, test_discover_to_master);
	tcase_add_test(tc, test_unanswered_peer);
	tcase_add_test(tc, test_standby_poll_takeover);
	tcase_add_test(tc, test_standby_master_stepped_down);
	tcase_add_test(tc, test_discovering_handover);
	tcase_add_test(tc, test_discovering_no_handover);
	tcase_add_test(tc, test_standby_handover);
	tcase_add_test(tc, test_disable_standby_discover);
	tcase_add_test(tc, test_master_hands_over);
	tcase_add_test(tc, test_handover_refused_acked);
	tcase_add_test(tc, test_master_waits);
	tcase_add_test(tc, test_waiting_exits);
	tcase_add_test(tc, test_foreign_and_signals);
	tcase_add_test(tc, test_illegal_signals);
	tcase_add_test(tc, test_sm_key);
	tcase_add_test(tc, test_watch_and_trap);
	tcase_add_test(tc, test_requests_present_mkey);
	tcase_add_test(tc, test_returning_sm);
	tcase_add_test(tc, test_trap144_noted);
	tcase_add_test(tc, test_waiting_sends_trap144);
	tcase_add_test(tc, test_elect_copies);
	tcase_add_test(tc, test_elect_copies_bounded);
	tcase_add_test(tc, test_lost_master_hold);
	tcase_add_test(tc, test_leave_hands_over);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(smstate_suite());
	int failed;

	if (getenv("CHECK_SMSTATE_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
