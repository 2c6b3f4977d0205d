/*
 * libFuzzer harness for the receive path: one received MAD, through the
 * in-memory transport (tests/unit/fake_transport.c), into a real MAD
 * engine (mad/mad.c) with the SMP client (mad/smp.c) and the SM's
 * listeners (sm/sminfo.c, sm/smstate.c) registered, the SA agent (sa/:
 * every attribute module, over a three-CA view) and the performance
 * class registered too, and requests outstanding so that responses are
 * matched. After the delivery the libev loop runs a step (EVRUN_NOWAIT),
 * so deferred callbacks and timers due run; then everything is freed, so
 * LeakSanitizer sees what a path forgot.
 *
 * An input is an 8-byte prefix and the MAD (0 to 2048 bytes, as received):
 *   [0] bits 0-2  the SM state set up before the delivery (see setup());
 *       bit 3     an M_Key is set on our port and in our SMInfo requests;
 *       bit 4     deliver with a nonzero status (a failed send, ETIMEDOUT);
 *       bit 5     run the loop a few milliseconds too (timeouts, retries,
 *                 polls) instead of one step;
 *       bits 6-7  0: the MAD as given; 1: the TID of the sent MAD chosen
 *                 by [1]; 2: also its class, version, attribute and
 *                 modifier; 3: also its M_Key, DR LIDs and DR paths
 *   [1]     which sent MAD (modulo how many were sent)
 *   [2-3]   source LID (big-endian; 0xFFFF: directed route)
 *   [4]     SL (low 4 bits), GRH (bit 7)
 *   [5]     source QP: 0, 1, or the byte itself
 *   [6]     P_Key index
 *   [7]     Q_Key: 0, the GSI Q_Key, or the byte itself; GID byte
 * The engine's own checks are the oracle: nothing may crash, leak or hit
 * undefined behaviour, and every completion gets a whole 256-byte response
 * (read to the end here, so ASan sees a short one).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"
#include "core/fabric.h"
#include "core/lft.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sa/sa.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"

#define SELF    0x11ULL         /* our port GUID, LID 1 */
#define PEER_A  0x21ULL         /* another SM's port, LID 2 */
#define PEER_B  0x31ULL         /* a CA without IsSM, LID 3 */
#define KEY     0xabcdULL
#define MKEY    0x5555aaaa5555aaaaULL
#define PREFIX  8
#define MAX_MAD 2048
#define SA_VERSION 2

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct smstate *ss;
static struct sminfo *si;
static struct fabric fab;
static struct lft_set lft;
static struct sa *sa;
static struct sa_sm sms[2];
static volatile unsigned sink;

static void
hook_sweep(void *arg)
{
	(void)arg;
}

static void
hook_changed(void *arg, enum sm_state from, enum sm_state to, const char *why)
{
	(void)arg;
	if (why == NULL || from > SM_MASTER || to > SM_MASTER)
		abort();
}

static void
trap_cb(void *arg, unsigned trap, uint16_t issuer)
{
	(void)arg;
	sink += trap + issuer;
}

static void
elect_cb(void *arg, bool master)
{
	(void)arg;
	sink += master;
}

static void
smp_done(void *arg, int status, const uint8_t *resp)
{
	(void)arg;
	if (resp == NULL)
		return;
	if (status < 0)
		abort();
	for (size_t i = 0; i < TRANSPORT_MAD_SIZE; i++)
		sink += resp[i];
}

static void
sa_done(void *arg, int status, const struct transport_rx *resp)
{
	(void)arg;
	if (resp == NULL)
		return;
	if (status < 0 || resp->len < MAD_HDR_SIZE)
		abort();
	for (size_t i = 0; i < resp->len; i++)
		sink += resp->mad[i];
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
	fabric_set_lid(&fab, i, lid, 0);
	mad_set_field(port->info, 0, IB_PORT_CAPMASK_F, is_sm ? 0x2 : 0);
	if (guid == SELF)
		fab.sm_port = i;
}

static void
spin(void)
{
	for (int i = 0; i < 4; i++)
		ev_run(loop, EVRUN_NOWAIT);
}

static void
guard_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	(void)revents;
	ev_timer_stop(l, w);
	ev_break(l, EVBREAK_ONE);
}

/* Run the loop for about ms milliseconds. */
static void
run_for(double ms)
{
	ev_timer guard;

	ev_timer_init(&guard, guard_cb, ms / 1000., 0.);
	ev_timer_start(loop, &guard);
	ev_run(loop, 0);
	ev_timer_stop(loop, &guard);
}

/* The last SMInfo Get sent and not answered, or SIZE_MAX. */
static size_t
pending_sminfo(void)
{
	for (size_t i = fake_nsent(); i-- > 0;) {
		const struct fake_mad *m = fake_sent(i);

		if (mad_method_of(m->mad) == MAD_GET && !m->answered &&
		    mad_get_field((void *)m->mad, 0, IB_MAD_ATTRID_F) ==
		    ATTR_SM_INFO)
			return i;
	}
	return SIZE_MAX;
}

/* Elect, peer A answering (prio, state, key). */
static void
elect_with_a(uint8_t prio, enum sm_state state, uint64_t key)
{
	uint8_t d[SMP_DATA_SIZE] = { 0 };
	size_t i;

	smstate_elect(ss, &fab, elect_cb, NULL);
	if ((i = pending_sminfo()) == SIZE_MAX)
		return;
	mad_set_field64(d, 0, IB_SMINFO_GUID_F, PEER_A);
	mad_set_field64(d, 0, IB_SMINFO_KEY_F, key);
	mad_set_field(d, 0, IB_SMINFO_PRIO_F, prio);
	mad_set_field(d, 0, IB_SMINFO_STATE_F, state);
	fake_respond(i, 0, d);
	spin();
}

/*
 * The SM state before the delivery:
 *   0 NOTACTIVE               4 STANDBY under a trusted MASTER
 *   1 DISCOVERING             5 MASTER handing over to a higher STANDBY
 *   2 DISCOVERING, electing   6 MASTER waiting for a lower trusted MASTER
 *   3 MASTER over a STANDBY   7 STANDBY under a foreign MASTER
 * and SMPs outstanding: NodeInfo (directed route), PortInfo and
 * SwitchInfo (LID-routed), NodeDescription two hops away, an SA Get.
 */
static void
setup(uint8_t how)
{
	struct mad_opts mo = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = 2, .retries = 1 };
	struct smstate_opts o = { .priority = 8, .sm_key = KEY,
	    .mkey = how & 8 ? MKEY : 0, .poll_interval = 0.002,
	    .poll_retries = 2 };
	struct smstate_hooks h = { .sweep = hook_sweep,
	    .changed = hook_changed };
	struct sa_opts sao = { .sa_key = 1, .subnet_timeout = 18 };
	struct sa_view v = { .f = &fab, .lft = &lft, .subnet_prefix =
	    0xfe80000000000000ULL, .sm_lid = 1, .sms = sms, .nsms = 2 };
	struct transport_agent perf = { .mgmt_class = MGMT_CLASS_PERF,
	    .class_version = 1 };
	struct dr_path p1 = { .hops = 1, .port = { 0, 1 } };
	struct dr_path p2 = { .hops = 2, .port = { 0, 1, 7 } };
	struct smp_req r[] = {
		{ .method = MAD_GET, .attr = ATTR_NODE_INFO, .path = &p1,
		    .dest = 1 },
		{ .method = MAD_GET, .attr = ATTR_PORT_INFO, .mod = 1,
		    .dlid = 2, .dest = 2 },
		{ .method = MAD_GET, .attr = ATTR_SWITCH_INFO, .dlid = 3,
		    .dest = 3, .mkey = MKEY },
		{ .method = MAD_GET, .attr = ATTR_NODE_DESC, .path = &p2,
		    .dest = 4 },
	};
	uint8_t samad[TRANSPORT_MAD_SIZE] = { 0 };
	struct mad_request q = { .mad = samad, .len = sizeof(samad),
	    .to = { .lid = 1, .qpn = 1, .qkey = TRANSPORT_QKEY_GSI },
	    .dest = 5 };

	loop = ev_loop_new(EVFLAG_AUTO);
	if (loop == NULL || (eng = mad_engine_new(loop, SELF, &mo)) == NULL ||
	    smp_register(eng) != 0)
		abort();
	transport_agent_method(&perf, MAD_GET);
	/* The SA agent registers class 0x03 itself (RMPP, its methods). */
	if ((sa = sa_new(loop, eng, &sao)) == NULL || sa_start(sa) != 0 ||
	    mad_register(eng, &perf) != 0)
		abort();
	ss = smstate_new(loop, eng, &o, &h);
	si = sminfo_new(eng, ss, trap_cb, NULL);
	if (ss == NULL || si == NULL)
		abort();
	if (how & 8)
		sminfo_set_mkey(si, MKEY);
	fabric_init(&fab);
	add_ca(SELF, 1, true, 0);
	add_ca(PEER_A, 2, true, 2);
	add_ca(PEER_B, 3, false, 3);
	if (lft_set_init(&lft, &fab) != 0)
		abort();
	sms[0] = (struct sa_sm){ .lid = 1, .guid = SELF, .state = 3 };
	sms[1] = (struct sa_sm){ .lid = 2, .guid = PEER_A, .state = 2 };
	/* The SA answers from this fabric unless NOTACTIVE (state 0), so
	 * its handlers run; state 0 covers the not-serving drops. */
	sa_set_view(sa, &v);
	sa_set_serving(sa, (how & 7) != 0);

	switch (how & 7) {
	case 0:
		break;
	case 1:
		smstate_start(ss);
		break;
	case 2:
		smstate_start(ss);
		smstate_elect(ss, &fab, elect_cb, NULL);
		break;
	case 3:
		smstate_start(ss);
		elect_with_a(1, SM_STANDBY, KEY);
		break;
	case 4:
		smstate_start(ss);
		elect_with_a(15, SM_MASTER, KEY);
		break;
	case 5:
		smstate_start(ss);
		elect_with_a(15, SM_STANDBY, KEY);
		break;
	case 6:
		smstate_start(ss);
		elect_with_a(1, SM_MASTER, KEY);
		break;
	case 7:
		smstate_start(ss);
		elect_with_a(15, SM_MASTER, KEY + 1);
		break;
	}

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (smp_request(eng, &r[i], smp_done, NULL) != 0)
			abort();
	samad[0] = MAD_BASE_VERSION;
	samad[1] = MGMT_CLASS_SA;
	samad[2] = SA_VERSION;
	mad_set_method(samad, MAD_GET);
	mad_set_field(samad, 0, IB_MAD_ATTRID_F, 0x11);  /* NodeRecord */
	if (mad_request(eng, &q, sa_done, NULL) != 0)
		abort();
	spin();
}

static void
teardown(void)
{
	sa_free(sa);
	sminfo_free(si);
	smstate_free(ss);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	lft_set_fini(&lft);
	fabric_fini(&fab);
}

/* Copy bytes [from, to) of sent MAD s into m (len bytes), within both. */
static void
take(uint8_t *m, size_t len, const uint8_t *s, size_t from, size_t to)
{
	if (to > len)
		to = len;
	if (from < to)
		memcpy(m + from, s + from, to - from);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Debug messages are formatted (their arguments checked by UBSan)
	 * and thrown away. */
	if (log_init("fuzz_mad", "/dev/null", LOG_LVL_DEBUG) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct transport_addr from = { 0 };
	uint8_t *mad;
	size_t len, n;
	unsigned mode;

	if (size < PREFIX || size - PREFIX > MAX_MAD)
		return -1;      /* not added to the corpus */
	len = size - PREFIX;
	setup(data[0]);

	/* exactly len bytes, so ASan sees any read past the MAD */
	if ((mad = malloc(len ? len : 1)) == NULL)
		abort();
	memcpy(mad, data + PREFIX, len);
	mode = data[0] >> 6;
	n = fake_nsent();
	if (mode > 0 && n > 0) {
		const uint8_t *s = fake_sent(data[1] % n)->mad;

		take(mad, len, s, 8, 16);                       /* TID */
		if (mode >= 2) {
			take(mad, len, s, 0, 3);        /* versions, class */
			take(mad, len, s, 16, 24);      /* attribute, mod */
		}
		if (mode >= 3) {
			take(mad, len, s, 24, 64);      /* M_Key, DR LIDs */
			take(mad, len, s, 128, 256);    /* DR paths */
		}
	}
	from.lid = (uint16_t)(data[2] << 8 | data[3]);
	from.sl = data[4] & 0xF;
	from.grh = data[4] >> 7;
	from.qpn = data[5] < 2 ? data[5] : data[5] | 0x100u;
	from.pkey_index = data[6];
	from.qkey = data[7] == 0 ? 0 : data[7] == 1 ? TRANSPORT_QKEY_GSI :
	    data[7];
	if (from.grh) {
		from.hop_limit = 64;
		memset(from.gid, data[7], sizeof(from.gid));
	}
	fake_deliver_from(mad, len, data[0] & 0x10 ? ETIMEDOUT : 0, &from);
	free(mad);
	if (data[0] & 0x20)
		run_for(5);
	else
		ev_run(loop, EVRUN_NOWAIT);
	spin();
	teardown();
	return 0;
}
