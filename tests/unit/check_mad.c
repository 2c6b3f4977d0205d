/*
 * MAD engine and SMP client tests: a real libev loop and the in-memory
 * transport.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"

static struct ev_loop *loop;
static struct mad_engine *eng;
static int in_smp;              /* set while a request is being queued */
static int seq;                 /* completion order */

struct rec {
	int called;
	int status;
	int had_resp;
	int seq;
	uint8_t resp[TRANSPORT_MAD_SIZE];
};

static void
rec_cb(void *arg, int status, const uint8_t *resp)
{
	struct rec *r = arg;

	ck_assert_msg(!in_smp, "callback called from inside the request");
	r->called++;
	r->status = status;
	r->had_resp = resp != NULL;
	if (resp != NULL)
		memcpy(r->resp, resp, TRANSPORT_MAD_SIZE);
	r->seq = ++seq;
}

static void
start(unsigned max_wire, unsigned max_per_node, unsigned timeout_ms,
    unsigned retries)
{
	struct mad_opts o = { .max_wire = max_wire,
	    .max_per_node = max_per_node, .timeout_ms = timeout_ms,
	    .retries = retries };

	loop = ev_loop_new(EVFLAG_AUTO);
	ck_assert_ptr_nonnull(loop);
	eng = mad_engine_new(loop, 0x1234, &o);
	ck_assert_ptr_nonnull(eng);
	in_smp = 0;
	seq = 0;
}

static void
stop(void)
{
	mad_engine_free(eng);
	eng = NULL;
	ck_assert_ptr_null(fake_transport());
	ev_loop_destroy(loop);
	loop = NULL;
}

static int
smp(const struct smp_req *q, smp_done_cb cb, void *arg)
{
	int save = in_smp, rc;

	in_smp = 1;
	rc = smp_request(eng, q, cb, arg);
	in_smp = save;
	return rc;
}

/* A LID-routed Get to dest (dlid = dest) with modifier mod. */
static int
get_lid(uint16_t dlid, uint16_t attr, uint32_t mod, struct rec *r)
{
	struct smp_req q = { .method = MAD_GET, .attr = attr, .mod = mod,
	    .dlid = dlid, .dest = dlid };

	return smp(&q, rec_cb, r);
}

/* The SM class's counters of (method, attr). */
static struct mad_counter
smpc(uint8_t method, uint16_t attr)
{
	return mad_counter_get(eng, MGMT_CLASS_SMP_LID, method, attr);
}

static void
spin(void)
{
	int i;

	for (i = 0; i < 4; i++)
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

/* Run the loop until pred() holds, or secs have passed. */
static void
run_until(int (*pred)(void *), void *arg, double secs)
{
	ev_timer guard;

	ev_timer_init(&guard, guard_cb, secs, 0.);
	guard_fired = 0;
	ev_timer_start(loop, &guard);
	while (!pred(arg) && !guard_fired)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &guard);
}

static int
rec_called(void *arg)
{
	return ((struct rec *)arg)->called > 0;
}

static int
sent_at_least(void *arg)
{
	return fake_nsent() >= *(size_t *)arg;
}

static uint32_t
field(size_t i, enum MAD_FIELDS f)
{
	return mad_get_field((void *)fake_sent(i)->mad, 0, f);
}

START_TEST(test_dr_encoding)
{
	struct dr_path p = { .hops = 3, .port = { 0, 1, 5, 7 } };
	uint8_t data[SMP_DATA_SIZE], path[64];
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_PORT_INFO,
	    .mod = 0x12345678, .path = &p, .dest = 42, .data = data };
	struct rec r = { 0 };
	const struct fake_mad *m;
	int i;

	start(8, 2, 20, 1);
	for (i = 0; i < SMP_DATA_SIZE; i++)
		data[i] = (uint8_t)(i * 3 + 1);
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	m = fake_sent(0);
	ck_assert_uint_eq(m->dlid, 0xFFFF);
	ck_assert_int_eq(m->timeout_ms, 20);
	ck_assert_uint_eq(field(0, IB_MAD_BASEVER_F), 1);
	ck_assert_uint_eq(field(0, IB_MAD_MGMTCLASS_F), 0x81);
	ck_assert_uint_eq(field(0, IB_MAD_CLASSVER_F), 1);
	ck_assert_uint_eq(field(0, IB_MAD_METHOD_F), MAD_GET);
	ck_assert_uint_eq(field(0, IB_MAD_RESPONSE_F), 0);
	ck_assert_uint_eq(field(0, IB_MAD_STATUS_F), 0);
	ck_assert_uint_eq(field(0, IB_DRSMP_DIRECTION_F), 0);
	ck_assert_uint_eq(field(0, IB_DRSMP_HOPPTR_F), 0);
	ck_assert_uint_eq(field(0, IB_DRSMP_HOPCNT_F), 3);
	ck_assert_uint_eq(field(0, IB_DRSMP_DRSLID_F), 0xFFFF);
	ck_assert_uint_eq(field(0, IB_DRSMP_DRDLID_F), 0xFFFF);
	ck_assert_uint_eq(field(0, IB_MAD_ATTRID_F), ATTR_PORT_INFO);
	ck_assert_uint_eq(field(0, IB_MAD_ATTRMOD_F), 0x12345678);
	ck_assert_uint_eq(mad_get_field64((void *)m->mad, 0, IB_MAD_MKEY_F),
	    0);
	ck_assert_uint_ne(fake_sent_tid(0), 0);
	mad_get_array((void *)m->mad, 0, IB_DRSMP_PATH_F, path);
	ck_assert_uint_eq(path[0], 0);
	ck_assert_uint_eq(path[1], 1);
	ck_assert_uint_eq(path[2], 5);
	ck_assert_uint_eq(path[3], 7);
	for (i = 4; i < 64; i++)
		ck_assert_uint_eq(path[i], 0);
	ck_assert_uint_eq(m->mad[128 + 2], 5);
	ck_assert_mem_eq(m->mad + SMP_DATA_OFFSET, data, SMP_DATA_SIZE);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_PORT_INFO).sent,
	    1);
	ck_assert_uint_eq(mad_total_sent(eng), 1);
	ck_assert_uint_eq(mad_outstanding(eng), 1);
	ck_assert_uint_eq(mad_queued(eng), 0);
	ck_assert_int_eq(r.called, 0);
	stop();
	ck_assert_int_eq(r.called, 0);  /* dropped by free, not called */
}
END_TEST

START_TEST(test_dr_zero_hops)
{
	struct dr_path p = { .hops = 0 };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .path = &p, .dest = 1 };
	struct rec r = { 0 };
	int i;

	start(8, 2, 20, 1);
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	ck_assert_uint_eq(field(0, IB_DRSMP_HOPCNT_F), 0);
	for (i = 128; i < 256; i++)
		ck_assert_uint_eq(fake_sent(0)->mad[i], 0);
	for (i = SMP_DATA_OFFSET; i < SMP_DATA_OFFSET + SMP_DATA_SIZE; i++)
		ck_assert_uint_eq(fake_sent(0)->mad[i], 0);
	stop();
}
END_TEST

START_TEST(test_lid_encoding)
{
	uint8_t data[SMP_DATA_SIZE];
	struct smp_req q = { .method = MAD_SET, .attr = ATTR_LFT,
	    .mod = 7, .dlid = 0x42, .dest = 99, .data = data };
	struct rec r = { 0 };
	int i;

	start(8, 2, 30, 1);
	memset(data, 0xA5, sizeof(data));
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_uint_eq(fake_sent(0)->dlid, 0x42);
	ck_assert_int_eq(fake_sent(0)->timeout_ms, 30);
	ck_assert_uint_eq(field(0, IB_MAD_BASEVER_F), 1);
	ck_assert_uint_eq(field(0, IB_MAD_MGMTCLASS_F), 0x01);
	ck_assert_uint_eq(field(0, IB_MAD_CLASSVER_F), 1);
	ck_assert_uint_eq(field(0, IB_MAD_METHOD_F), MAD_SET);
	ck_assert_uint_eq(field(0, IB_MAD_RESPONSE_F), 0);
	ck_assert_uint_eq(field(0, IB_MAD_ATTRID_F), ATTR_LFT);
	ck_assert_uint_eq(field(0, IB_MAD_ATTRMOD_F), 7);
	ck_assert_mem_eq(fake_sent(0)->mad + SMP_DATA_OFFSET, data,
	    SMP_DATA_SIZE);
	for (i = 128; i < 256; i++)
		ck_assert_uint_eq(fake_sent(0)->mad[i], 0);
	ck_assert_uint_eq(smpc(MAD_SET, ATTR_LFT).sent, 1);
	stop();
}
END_TEST

START_TEST(test_response)
{
	struct rec r = { 0 };
	uint8_t data[SMP_DATA_SIZE];
	struct mad_counter c;

	start(8, 2, 1000, 1);
	ck_assert_uint_eq(mad_engine_port_guid(eng), 0x1234);
	ck_assert_ptr_eq(mad_engine_transport(eng), fake_transport());
	memset(data, 0x5A, sizeof(data));
	ck_assert_int_eq(get_lid(3, ATTR_NODE_INFO, 0, &r), 0);
	fake_respond(0, 0, data);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert(r.had_resp);
	ck_assert_uint_eq(mad_get_field(r.resp, 0, IB_MAD_RESPONSE_F), 1);
	ck_assert_mem_eq(r.resp + SMP_DATA_OFFSET, data, SMP_DATA_SIZE);
	c = smpc(MAD_GET, ATTR_NODE_INFO);
	ck_assert_uint_eq(c.sent, 1);
	ck_assert_uint_eq(c.recv, 1);
	ck_assert_uint_eq(c.error, 0);
	ck_assert_uint_eq(c.timeout, 0);
	c = smpc(MAD_GETRESP, ATTR_NODE_INFO);
	ck_assert_uint_eq(c.recv, 0);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	/* a second answer to the same TID is a duplicate */
	fake_respond(0, 0, data);
	ck_assert_int_eq(r.called, 1);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 1);
	spin();
	ck_assert_int_eq(r.called, 1);
	stop();
}
END_TEST

START_TEST(test_dr_status)
{
	struct dr_path p = { .hops = 1, .port = { 0, 1 } };
	struct smp_req q = { .method = MAD_SET, .attr = ATTR_PORT_INFO,
	    .mod = 2, .path = &p, .dest = 5 };
	struct rec r = { 0 };

	start(8, 2, 1000, 1);
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	fake_respond(0, 0x001C, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, 0x1C);
	ck_assert_uint_eq(mad_get_field(r.resp, 0, IB_MAD_STATUS_F), 0x801C);
	ck_assert_uint_eq(smpc(MAD_SET, ATTR_PORT_INFO).error,
	    1);
	ck_assert_uint_eq(smpc(MAD_SET, ATTR_PORT_INFO).recv,
	    1);
	stop();
}
END_TEST

START_TEST(test_lid_status)
{
	struct rec r = { 0 };

	start(8, 2, 1000, 1);
	ck_assert_int_eq(get_lid(9, ATTR_SWITCH_INFO, 0, &r), 0);
	fake_respond(0, 0x800C, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, 0x800C);     /* no D bit to mask */
	ck_assert_uint_eq(smpc(MAD_GET,
	    ATTR_SWITCH_INFO).error, 1);
	stop();
}
END_TEST

START_TEST(test_window_per_node)
{
	struct rec a[3] = { { 0 } }, b = { 0 };

	start(16, 2, 1000, 1);
	fake_check_windows(16, 2);
	ck_assert_int_eq(get_lid(1, ATTR_PORT_INFO, 1, &a[0]), 0);
	ck_assert_int_eq(get_lid(1, ATTR_PORT_INFO, 2, &a[1]), 0);
	ck_assert_int_eq(get_lid(1, ATTR_PORT_INFO, 3, &a[2]), 0);
	ck_assert_int_eq(get_lid(2, ATTR_PORT_INFO, 1, &b), 0);
	/* the third to dest 1 waits; dest 2 is not held up behind it */
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_uint_eq(fake_sent(2)->dlid, 2);
	ck_assert_uint_eq(mad_outstanding(eng), 3);
	ck_assert_uint_eq(mad_queued(eng), 1);
	spin();
	ck_assert_uint_eq(fake_nsent(), 3);
	fake_respond(1, 0, NULL);
	ck_assert_int_eq(a[1].called, 1);
	ck_assert_uint_eq(fake_nsent(), 4);
	ck_assert_uint_eq(fake_sent(3)->dlid, 1);
	ck_assert_uint_eq(field(3, IB_MAD_ATTRMOD_F), 3);
	ck_assert_uint_eq(mad_queued(eng), 0);
	fake_respond(0, 0, NULL);
	fake_respond(2, 0, NULL);
	fake_respond(3, 0, NULL);
	ck_assert_int_eq(a[0].called + a[2].called + b.called, 3);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	ck_assert_uint_eq(fake_violations(), 0);
	stop();
}
END_TEST

START_TEST(test_window_global)
{
	struct rec r[6] = { { 0 } };
	int i;

	start(2, 4, 1000, 1);
	fake_check_windows(2, 4);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(get_lid(10 + i, ATTR_NODE_INFO, 0, &r[i]), 0);
	ck_assert_uint_eq(fake_nsent(), 2);
	ck_assert_uint_eq(mad_outstanding(eng), 2);
	ck_assert_uint_eq(mad_queued(eng), 4);
	/* each completion lets exactly one more out, oldest dest first */
	for (i = 0; i < 6; i++) {
		fake_respond(i, 0, NULL);
		ck_assert_int_eq(r[i].called, 1);
		ck_assert_uint_eq(fake_nsent(), i + 3 > 6 ? 6 : i + 3);
		if (i + 2 < 6)
			ck_assert_uint_eq(fake_sent(i + 2)->dlid, 10 + i + 2);
		ck_assert_uint_le(mad_outstanding(eng), 2);
	}
	ck_assert_uint_eq(fake_violations(), 0);
	stop();
}
END_TEST

START_TEST(test_fifo)
{
	struct rec r[5] = { { 0 } }, other = { 0 };
	int i;

	start(8, 1, 1000, 1);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(get_lid(4, ATTR_LFT, i, &r[i]), 0);
	ck_assert_int_eq(get_lid(5, ATTR_LFT, 100, &other), 0);
	ck_assert_uint_eq(fake_nsent(), 2);
	for (i = 0; i < 5; i++) {
		size_t n = fake_nsent();

		ck_assert_uint_eq(fake_sent(n - 1 - (i == 0))->dlid, 4);
		ck_assert_uint_eq(field(n - 1 - (i == 0), IB_MAD_ATTRMOD_F), i);
		fake_respond(n - 1 - (i == 0), 0, NULL);
	}
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(r[i].called, 1);
		ck_assert_int_eq(r[i].seq, i + 1);
	}
	ck_assert_int_eq(other.called, 0);
	stop();
}
END_TEST

START_TEST(test_timeout_retry)
{
	struct rec r = { 0 };
	struct mad_counter c;

	start(8, 2, 20, 2);
	ck_assert_int_eq(get_lid(7, ATTR_NODE_DESC, 0, &r), 0);
	run_until(rec_called, &r, 5.0);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, MAD_ETIMEDOUT);
	ck_assert(!r.had_resp);
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_uint_ne(fake_sent_tid(0), fake_sent_tid(1));
	ck_assert_uint_ne(fake_sent_tid(1), fake_sent_tid(2));
	ck_assert_uint_ne(fake_sent_tid(0), fake_sent_tid(2));
	ck_assert_uint_eq(field(2, IB_MAD_ATTRID_F), ATTR_NODE_DESC);
	ck_assert_uint_eq(fake_sent(2)->dlid, 7);
	c = smpc(MAD_GET, ATTR_NODE_DESC);
	ck_assert_uint_eq(c.sent, 3);
	ck_assert_uint_eq(c.timeout, 3);
	ck_assert_uint_eq(c.recv, 0);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	/* an answer to any attempt now is unmatched */
	fake_respond(2, 0, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 1);
	stop();
}
END_TEST

START_TEST(test_failed_send_report)
{
	struct rec r = { 0 };
	struct mad_counter c;

	start(8, 2, 10000, 1);
	ck_assert_int_eq(get_lid(7, ATTR_NODE_INFO, 0, &r), 0);
	fake_fail(0, ETIMEDOUT);
	ck_assert_int_eq(r.called, 0);
	ck_assert_uint_eq(fake_nsent(), 2);
	ck_assert_uint_ne(fake_sent_tid(0), fake_sent_tid(1));
	/* a second report for the old attempt changes nothing */
	fake_fail(0, ETIMEDOUT);
	ck_assert_uint_eq(fake_nsent(), 2);
	fake_fail(1, ETIMEDOUT);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, MAD_ETIMEDOUT);
	c = smpc(MAD_GET, ATTR_NODE_INFO);
	ck_assert_uint_eq(c.sent, 2);
	ck_assert_uint_eq(c.timeout, 2);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	ck_assert_uint_eq(mad_dropped_malformed(eng), 0);
	stop();
}
END_TEST

START_TEST(test_late_answer)
{
	struct rec r = { 0 };
	size_t two = 2;

	start(8, 2, 20, 2);
	ck_assert_int_eq(get_lid(8, ATTR_PORT_INFO, 1, &r), 0);
	run_until(sent_at_least, &two, 5.0);
	ck_assert_uint_eq(fake_nsent(), 2);
	ck_assert_int_eq(r.called, 0);
	fake_respond(0, 0, NULL);       /* answer to the first attempt */
	ck_assert_int_eq(r.called, 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 1);
	fake_respond(1, 0, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_PORT_INFO).timeout,
	    1);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_PORT_INFO).recv,
	    1);
	stop();
}
END_TEST

/* A GetResp to sent MAD i, to be spoiled by the test. */
static void
resp_of(size_t i, uint8_t *mad)
{
	memcpy(mad, fake_sent(i)->mad, TRANSPORT_MAD_SIZE);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, 0x01);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	if (mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == 0x81)
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
}

START_TEST(test_garbage)
{
	struct dr_path p = { .hops = 1, .port = { 0, 2 } };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .path = &p, .dest = 77 };
	struct rec r = { 0 }, rd = { 0 };
	uint8_t m[TRANSPORT_MAD_SIZE + 16];

	start(8, 2, 10000, 0);
	ck_assert_int_eq(get_lid(5, ATTR_NODE_INFO, 0, &r), 0);
	ck_assert_int_eq(smp(&q, rec_cb, &rd), 0);

	resp_of(0, m);                  /* unknown TID */
	mad_set_field64(m, 0, IB_MAD_TRID_F, fake_sent_tid(0) + 1000);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* wrong attribute */
	mad_set_field(m, 0, IB_MAD_ATTRID_F, ATTR_PORT_INFO);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* a response method but not GetResp */
	mad_set_field(m, 0, IB_MAD_METHOD_F, 0x06);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(1, m);                  /* DR response without the D bit */
	mad_set_field(m, 0, IB_DRSMP_DIRECTION_F, 0);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 0xFFFF);
	resp_of(1, m);                  /* LID-routed answer to a DR request */
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, 0x01);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* class version 2 */
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 2);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* another class, same TID */
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, 0x04);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 7);

	resp_of(0, m);                  /* short */
	fake_deliver(m, 100, 0, 5);
	fake_deliver(m, 0, 0, 5);
	fake_deliver(NULL, 0, 0, 5);
	resp_of(0, m);                  /* base version 2 */
	mad_set_field(m, 0, IB_MAD_BASEVER_F, 2);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* a request of a class not registered */
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, 0x03);
	mad_set_field(m, 0, IB_MAD_RESPONSE_F, 0);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	resp_of(0, m);                  /* an SMP request: no agent either */
	mad_set_field(m, 0, IB_MAD_RESPONSE_F, 0);
	fake_deliver(m, TRANSPORT_MAD_SIZE, 0, 5);
	fake_deliver(m, 10, ETIMEDOUT, 0);      /* too short a failed send */
	ck_assert_uint_eq(mad_dropped_malformed(eng), 7);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 7);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 0);

	spin();
	ck_assert_int_eq(r.called + rd.called, 0);
	ck_assert_uint_eq(mad_outstanding(eng), 2);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_NODE_INFO).recv,
	    0);

	/* longer than a MAD is fine; the real answers still match */
	resp_of(0, m);
	fake_deliver(m, sizeof(m), 0, 5);
	fake_respond(1, 0, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(rd.called, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(rd.status, 0);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_NODE_INFO).recv,
	    2);
	stop();
}
END_TEST

struct unsol_rec {
	int n;
	uint16_t slid;
	uint8_t mgmt_class;
	uint8_t method;
	uint16_t attr;
};

static void
unsol_cb(void *arg, const struct transport_rx *rx)
{
	struct unsol_rec *u = arg;

	u->n++;
	u->slid = rx->from.lid;
	u->mgmt_class = rx->mad[1];
	u->method = rx->mad[3];
	u->attr = mad_get_field((void *)rx->mad, 0, IB_MAD_ATTRID_F);
}

static void
make_mad(uint8_t *m, uint8_t class, uint8_t method, uint16_t attr)
{
	memset(m, 0, TRANSPORT_MAD_SIZE);
	mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, class);
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(m, 0, IB_MAD_METHOD_F, method & 0x7F);
	mad_set_field(m, 0, IB_MAD_RESPONSE_F, method >> 7);
	mad_set_field64(m, 0, IB_MAD_TRID_F, 0xABCD0000EEEEULL);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, attr);
}

START_TEST(test_unsolicited)
{
	struct unsol_rec u = { 0 }, any = { 0 };
	uint8_t m[TRANSPORT_MAD_SIZE];

	start(8, 2, 1000, 1);
	ck_assert_int_eq(smp_register(eng), 0);
	ck_assert_int_eq(mad_listen(eng, 0x01, MAD_TRAP, ATTR_NOTICE, unsol_cb,
	    &u), 0);
	ck_assert_int_eq(mad_listen(eng, 0x81, MAD_GET, ATTR_SM_INFO, unsol_cb,
	    &u), 0);
	ck_assert_int_eq(mad_listen(eng, 0x01, MAD_SET, MAD_ATTR_ANY, unsol_cb,
	    &any), 0);
	make_mad(m, 0x01, MAD_TRAP, ATTR_NOTICE);
	fake_deliver(m, sizeof(m), 0, 7);
	ck_assert_int_eq(u.n, 1);
	ck_assert_uint_eq(u.slid, 7);
	ck_assert_uint_eq(u.method, MAD_TRAP);
	ck_assert_uint_eq(u.attr, ATTR_NOTICE);
	make_mad(m, 0x81, MAD_GET, ATTR_SM_INFO);
	fake_deliver(m, sizeof(m), 0, 0xFFFF);
	ck_assert_int_eq(u.n, 2);
	ck_assert_uint_eq(u.mgmt_class, 0x81);
	ck_assert_uint_eq(u.method, MAD_GET);
	ck_assert_uint_eq(u.attr, ATTR_SM_INFO);
	make_mad(m, 0x01, MAD_SET, ATTR_SM_INFO);
	fake_deliver(m, sizeof(m), 0, 3);
	ck_assert_int_eq(u.n, 2);
	ck_assert_int_eq(any.n, 1);
	ck_assert_uint_eq(any.method, MAD_SET);
	ck_assert_uint_eq(smpc(MAD_TRAP, ATTR_NOTICE).recv, 1);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_SM_INFO).recv, 1);
	ck_assert_uint_eq(smpc(MAD_SET, ATTR_SM_INFO).recv, 1);

	/* the same attribute on the other SM class: nobody listens */
	make_mad(m, 0x01, MAD_GET, ATTR_SM_INFO);
	fake_deliver(m, sizeof(m), 0, 3);
	ck_assert_int_eq(u.n + any.n, 3);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 1);

	/* no listener any more: counted and dropped */
	ck_assert_int_eq(mad_listen(eng, 0x01, MAD_TRAP, ATTR_NOTICE, NULL,
	    NULL), 0);
	make_mad(m, 0x01, MAD_TRAP, ATTR_NOTICE);
	fake_deliver(m, sizeof(m), 0, 7);
	ck_assert_int_eq(u.n, 2);
	ck_assert_uint_eq(smpc(MAD_TRAP, ATTR_NOTICE).recv, 2);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 2);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 0);
	ck_assert_uint_eq(mad_dropped_malformed(eng), 0);
	stop();
}
END_TEST

START_TEST(test_send_failure)
{
	struct rec r = { 0 }, r2 = { 0 }, r3 = { 0 };

	start(8, 1, 1000, 3);
	fake_fail_sends(1);
	ck_assert_int_eq(get_lid(6, ATTR_NODE_INFO, 0, &r), 0);
	ck_assert_int_eq(r.called, 0); /* not synchronous */
	ck_assert_uint_eq(fake_nsent(), 0);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	/* the failed one gave its slot back at once */
	ck_assert_int_eq(get_lid(6, ATTR_NODE_INFO, 1, &r2), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	spin();
	ck_assert_int_eq(r.called, 1);
	ck_assert_int_eq(r.status, MAD_ESEND);
	ck_assert(!r.had_resp);
	ck_assert_int_eq(r2.called, 0);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_NODE_INFO).sent,
	    1);

	/* a retry that cannot be sent ends the request with MAD_ESEND */
	fake_fail_sends(1);
	fake_fail(0, ETIMEDOUT);
	ck_assert_int_eq(r2.called, 0);
	spin();
	ck_assert_int_eq(r2.called, 1);
	ck_assert_int_eq(r2.status, MAD_ESEND);

	/* the destination works again afterwards */
	ck_assert_int_eq(get_lid(6, ATTR_NODE_INFO, 2, &r3), 0);
	ck_assert_uint_eq(fake_nsent(), 2);
	fake_respond(1, 0, NULL);
	ck_assert_int_eq(r3.called, 1);
	ck_assert_int_eq(r3.status, 0);
	stop();
}
END_TEST

struct chain {
	int left;
	int done;
	int status_sum;
};

static void
chain_cb(void *arg, int status, const uint8_t *resp)
{
	struct chain *c = arg;
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .dlid = 9, .dest = 9 };

	(void)resp;
	ck_assert(!in_smp);
	c->done++;
	c->status_sum += status;
	if (c->left-- > 0)
		ck_assert_int_eq(smp(&q, chain_cb, c), 0);
}

START_TEST(test_reentrant)
{
	struct chain c = { .left = 4 };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .dlid = 9, .dest = 9 };
	int i;

	start(1, 1, 1000, 1);
	ck_assert_int_eq(smp(&q, chain_cb, &c), 0);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_eq(fake_nsent(), (size_t)i + 1);
		fake_respond(i, 0, NULL);
		ck_assert_int_eq(c.done, i + 1);
	}
	ck_assert_uint_eq(fake_nsent(), 5);
	ck_assert_uint_eq(mad_outstanding(eng), 0);

	/* the same through deferred completions (every send fails) */
	c.left = 3;
	c.done = 0;
	fake_fail_sends(100);
	ck_assert_int_eq(smp(&q, chain_cb, &c), 0);
	for (i = 0; i < 20 && c.done < 4; i++)
		ev_run(loop, EVRUN_NOWAIT);
	ck_assert_int_eq(c.done, 4);
	ck_assert_int_eq(c.status_sum, 4 * MAD_ESEND);
	fake_fail_sends(0);
	stop();
}
END_TEST

#define BULK_N          10000
#define BULK_DESTS      100
#define BULK_WIRE       128     /* < BULK_DESTS * BULK_NODE: both bind */
#define BULK_NODE       2

struct bulk {
	int done;
	int bad;
	uint32_t next[BULK_DESTS];      /* next modifier expected per dest */
};

static struct bulk bulk;

static void
bulk_cb(void *arg, int status, const uint8_t *resp)
{
	uintptr_t i = (uintptr_t)arg;

	(void)resp;
	if (status != 0 || resp == NULL ||
	    mad_get_field((void *)resp, 0, IB_MAD_ATTRMOD_F) != i / BULK_DESTS)
		bulk.bad++;
	bulk.done++;
}

START_TEST(test_bulk)
{
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_LFT };
	size_t pend[BULK_WIRE + 1], n, k;
	uint32_t rnd = 12345, mod;
	uint16_t dlid;
	uintptr_t i;

	memset(&bulk, 0, sizeof(bulk));
	start(BULK_WIRE, BULK_NODE, 10000, 0);
	fake_check_windows(BULK_WIRE, BULK_NODE);
	for (i = 0; i < BULK_N; i++) {
		q.dest = i % BULK_DESTS;
		q.dlid = 1 + i % BULK_DESTS;
		q.mod = i / BULK_DESTS;
		ck_assert_int_eq(smp(&q, bulk_cb, (void *)i), 0);
	}
	ck_assert_uint_eq(fake_nsent(), BULK_WIRE);
	ck_assert_uint_eq(mad_queued(eng), BULK_N - BULK_WIRE);
	/* the first 128 fill the wire: two each to dests 0-27, one to the rest */
	ck_assert_uint_eq(fake_in_flight_dlid(1), 2);
	ck_assert_uint_eq(fake_in_flight_dlid(BULK_DESTS), 1);
	while (bulk.done < BULK_N) {
		n = fake_pending(pend, BULK_WIRE + 1);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_le(n, BULK_WIRE);
		ck_assert_uint_le(mad_outstanding(eng), BULK_WIRE);
		/* answer the requests on the wire in a scrambled order */
		rnd = rnd * 1103515245 + 12345;
		fake_respond(pend[(rnd >> 16) % n], 0, NULL);
		if ((rnd >> 8) % 7 == 0)
			ev_run(loop, EVRUN_NOWAIT);
	}
	ck_assert_int_eq(bulk.bad, 0);
	ck_assert_uint_eq(fake_violations(), 0);
	ck_assert_uint_eq(fake_nsent(), BULK_N);
	ck_assert_uint_eq(fake_in_flight(), 0);
	/* FIFO per destination: modifiers go out in order for each dlid */
	for (k = 0; k < fake_nsent(); k++) {
		dlid = fake_sent(k)->dlid;
		mod = field(k, IB_MAD_ATTRMOD_F);
		ck_assert_uint_eq(mod, bulk.next[dlid - 1]);
		bulk.next[dlid - 1]++;
	}
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_LFT).sent, BULK_N);
	ck_assert_uint_eq(smpc(MAD_GET, ATTR_LFT).recv, BULK_N);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	ck_assert_uint_eq(mad_queued(eng), 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 0);
	stop();
}
END_TEST

START_TEST(test_set_opts)
{
	struct mad_opts o = { .max_wire = 8, .max_per_node = 3,
	    .timeout_ms = 40, .retries = 1 };
	struct rec r[3] = { { 0 } };
	int i;

	start(8, 1, 1000, 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(get_lid(2, ATTR_PORT_INFO, i, &r[i]), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	mad_engine_set_opts(eng, &o);
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_int_eq(fake_sent(1)->timeout_ms, 40);
	ck_assert_int_eq(r[0].called + r[1].called + r[2].called, 0);
	/* a narrower window holds later requests back */
	o.max_per_node = 1;
	mad_engine_set_opts(eng, &o);
	ck_assert_int_eq(get_lid(2, ATTR_PORT_INFO, 3, &r[0]), 0);
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_uint_eq(mad_queued(eng), 1);
	stop();
}
END_TEST

START_TEST(test_bad_request)
{
	struct dr_path p = { .hops = FABRIC_DR_MAX };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .dlid = 1 };
	struct rec r = { 0 };

	start(8, 2, 1000, 1);
	q.method = MAD_GETRESP;
	ck_assert_int_eq(smp(&q, rec_cb, &r), -1);
	q.method = MAD_TRAP;
	ck_assert_int_eq(smp(&q, rec_cb, &r), -1);
	q.method = MAD_GET;
	ck_assert_int_eq(smp(&q, NULL, &r), -1);
	q.dlid = 0;
	ck_assert_int_eq(smp(&q, rec_cb, &r), -1);
	q.dlid = 0xFFFF;
	ck_assert_int_eq(smp(&q, rec_cb, &r), -1);
	q.path = &p;
	ck_assert_int_eq(smp(&q, rec_cb, &r), -1);
	p.hops = FABRIC_DR_MAX - 1;
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	ck_assert_uint_eq(field(0, IB_DRSMP_HOPCNT_F), FABRIC_DR_MAX - 1);
	ck_assert_uint_eq(fake_nsent(), 1);
	spin();
	ck_assert_int_eq(r.called, 0);
	stop();
}
END_TEST

struct seen {
	int n;
	int vendor;
	int other_class;
	uint64_t sent;
};

static void
seen_cb(void *arg, uint8_t mgmt_class, uint8_t method, uint16_t attr,
    const struct mad_counter *c)
{
	struct seen *s = arg;

	s->n++;
	if (mgmt_class != MGMT_CLASS_SMP_LID)
		s->other_class++;
	s->sent += c->sent;
	if (method == MAD_GET && attr == 0xFF10)
		s->vendor++;
}

START_TEST(test_reply_and_counters)
{
	struct smp_req q = { .method = MAD_GET, .attr = 0xFF10, .dlid = 4,
	    .dest = 4 };
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct seen s = { 0 };
	struct rec r = { 0 };

	start(8, 2, 1000, 1);
	make_mad(m, 0x81, MAD_GETRESP, ATTR_SM_INFO);
	ck_assert_int_eq(smp_reply(eng, m, 0xFFFF), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_uint_eq(fake_sent(0)->dlid, 0xFFFF);
	ck_assert_uint_eq(fake_sent(0)->to.qpn, 0);
	ck_assert_uint_eq(fake_sent(0)->to.qkey, 0);
	ck_assert_uint_eq(fake_sent(0)->len, TRANSPORT_MAD_SIZE);
	ck_assert_int_eq(fake_sent(0)->timeout_ms, 0);
	ck_assert_mem_eq(fake_sent(0)->mad, m, sizeof(m));
	make_mad(m, 0x01, MAD_TRAPREPRESS, ATTR_NOTICE);
	ck_assert_int_eq(smp_reply(eng, m, 12), 0);
	ck_assert_uint_eq(fake_sent(1)->dlid, 12);
	fake_fail_sends(1);
	ck_assert_int_eq(smp_reply(eng, m, 12), -1);
	ck_assert_uint_eq(smpc(MAD_GETRESP, ATTR_SM_INFO).sent,
	    1);
	ck_assert_uint_eq(smpc(MAD_TRAPREPRESS,
	    ATTR_NOTICE).sent, 1);
	ck_assert_uint_eq(mad_outstanding(eng), 0);

	/* vendor attributes are counted too */
	ck_assert_int_eq(smp(&q, rec_cb, &r), 0);
	fake_respond(2, 0, NULL);
	ck_assert_int_eq(r.called, 1);
	ck_assert_uint_eq(smpc(MAD_GET, 0xFF10).sent, 1);
	ck_assert_uint_eq(smpc(MAD_GET, 0xFF10).recv, 1);
	ck_assert_uint_eq(smpc(MAD_GET, 0xFF11).sent, 0);
	ck_assert_uint_eq(mad_counter_get(NULL, MGMT_CLASS_SMP_LID, MAD_GET, 0x11).sent, 0);
	ck_assert_uint_eq(mad_total_sent(eng), 3);
	mad_counters_foreach(eng, seen_cb, &s);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.vendor, 1);
	ck_assert_int_eq(s.other_class, 0);
	ck_assert_uint_eq(s.sent, 3);
	stop();
}
END_TEST

START_TEST(test_free_outstanding)
{
	struct dr_path p = { .hops = 2, .port = { 0, 1, 2 } };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .path = &p, .dest = 1 };
	struct rec r[6] = { { 0 } };
	int i;

	start(4, 2, 20, 3);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(smp(&q, rec_cb, &r[i]), 0);
	fake_fail_sends(1);
	q.dest = 2;
	ck_assert_int_eq(smp(&q, rec_cb, &r[4]), 0);   /* deferred ESEND */
	ck_assert_int_eq(get_lid(3, ATTR_NODE_INFO, 0, &r[5]), 0);
	ck_assert_uint_eq(mad_outstanding(eng), 3);
	ck_assert_uint_eq(mad_queued(eng), 2);
	stop();
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(r[i].called, 0);
}
END_TEST

/* ---- the class-neutral engine ---- */

struct grec {
	int called;
	int status;
	size_t len;
	struct transport_addr from;
	uint8_t method;
};

static void
grec_cb(void *arg, int status, const struct transport_rx *resp)
{
	struct grec *g = arg;

	ck_assert_msg(!in_smp, "callback called from inside the request");
	g->called++;
	g->status = status;
	if (resp != NULL) {
		g->len = resp->len;
		g->from = resp->from;
		g->method = mad_method_of(resp->mad);
	}
}

/* A request header of any class (version 2 for SA, 1 otherwise). */
static void
gs_mad(uint8_t *m, size_t len, uint8_t mgmt_class, uint8_t method,
    uint16_t attr)
{
	memset(m, 0, len);
	m[0] = 1;
	m[1] = mgmt_class;
	m[2] = mgmt_class == MGMT_CLASS_SA ? 2 : 1;
	mad_set_method(m, method);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, attr);
}

static int
greq(const struct mad_request *q, struct grec *g)
{
	int rc;

	in_smp = 1;
	rc = mad_request(eng, q, grec_cb, g);
	in_smp = 0;
	return rc;
}

/* The response to sent MAD i: method, status, from its destination. */
static void
answer(size_t i, uint8_t method, uint16_t status, size_t len)
{
	uint8_t m[1024];

	ck_assert_uint_le(len, sizeof(m));
	memset(m, 0, sizeof(m));
	memcpy(m, fake_sent(i)->mad, TRANSPORT_MAD_SIZE);
	mad_set_method(m, method);
	mad_set_field(m, 0, IB_MAD_STATUS_F, status);
	fake_deliver_from(m, len, 0, &fake_sent(i)->to);
}

START_TEST(test_gsi_request)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 0x77 };
	struct grec g = { 0 };
	struct mad_counter c;

	start(8, 2, 1000, 1);
	/* an SA NodeRecord Get over QP1 to a host's QP */
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_GET, 0x11);
	memset(m + 100, 0xC3, 20);
	q.to.lid = 9;
	q.to.qpn = 0x1234;
	q.to.qkey = TRANSPORT_QKEY_GSI;
	q.to.sl = 3;
	q.to.pkey_index = 2;
	ck_assert_int_eq(greq(&q, &g), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_uint_eq(fake_sent(0)->to.lid, 9);
	ck_assert_uint_eq(fake_sent(0)->to.qpn, 0x1234);
	ck_assert_uint_eq(fake_sent(0)->to.qkey, 0x80010000u);
	ck_assert_uint_eq(fake_sent(0)->to.sl, 3);
	ck_assert_uint_eq(fake_sent(0)->to.pkey_index, 2);
	ck_assert_uint_eq(fake_sent(0)->mad[1], MGMT_CLASS_SA);
	ck_assert_uint_eq(fake_sent(0)->mad[2], 2);
	ck_assert_uint_ne(fake_sent_tid(0), 0);
	/* the payload went out as given, the TID is the engine's */
	ck_assert_mem_eq(fake_sent(0)->mad + 24, m + 24, sizeof(m) - 24);
	/* a GetTableResp does not answer a Get */
	answer(0, MAD_GETTABLERESP, 0, TRANSPORT_MAD_SIZE);
	ck_assert_int_eq(g.called, 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 1);
	answer(0, MAD_GETRESP, 0x0200, TRANSPORT_MAD_SIZE);
	ck_assert_int_eq(g.called, 1);
	ck_assert_int_eq(g.status, 0x0200);
	ck_assert_uint_eq(g.from.qpn, 0x1234);
	ck_assert_uint_eq(g.from.lid, 9);
	/* counted as SA NodeRecord, not as the SMP NodeInfo it numbers like */
	c = mad_counter_get(eng, MGMT_CLASS_SA, MAD_GET, 0x11);
	ck_assert_uint_eq(c.sent, 1);
	ck_assert_uint_eq(c.recv, 1);
	ck_assert_uint_eq(c.error, 1);
	c = smpc(MAD_GET, 0x11);
	ck_assert_uint_eq(c.sent + c.recv + c.error, 0);
	ck_assert_uint_eq(mad_total_sent(eng), 1);
	stop();
}
END_TEST

/* A request with its own window (PerfMgt reads, sm/perfmgr) goes out at
 * once whatever the engine's windows hold, and takes no slot an SMP
 * waits for. */
START_TEST(test_own_window)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 0x50,
	    .own_window = true };
	struct rec a = { 0 }, b = { 0 };
	struct grec g[3] = { { 0 } };

	start(1, 1, 1000, 1);
	gs_mad(m, sizeof(m), MGMT_CLASS_PERF, MAD_GET, 0x12);
	q.to.lid = 7;
	q.to.qpn = 1;
	q.to.qkey = TRANSPORT_QKEY_GSI;
	ck_assert_int_eq(get_lid(3, ATTR_NODE_INFO, 0, &a), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	/* the overall window (1) is full: two PerfMgt Gets go out anyway,
	 * one to the same key twice (no per-node window either) */
	ck_assert_int_eq(greq(&q, &g[0]), 0);
	ck_assert_int_eq(greq(&q, &g[1]), 0);
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_uint_eq(fake_sent(1)->mad[1], MGMT_CLASS_PERF);
	ck_assert_uint_eq(mad_outstanding(eng), 3);
	ck_assert_uint_eq(mad_queued(eng), 0);
	/* an SMP still waits for the SMP's slot only */
	ck_assert_int_eq(get_lid(4, ATTR_NODE_INFO, 0, &b), 0);
	ck_assert_uint_eq(fake_nsent(), 3);
	ck_assert_uint_eq(mad_queued(eng), 1);
	/* a PerfMgt answer does not free a slot for it */
	answer(1, MAD_GETRESP, 0, TRANSPORT_MAD_SIZE);
	ck_assert_int_eq(g[0].called, 1);
	ck_assert_uint_eq(fake_nsent(), 3);
	/* the SMP answered: the next SMP goes */
	fake_respond(0, 0, NULL);
	ck_assert_int_eq(a.called, 1);
	ck_assert_uint_eq(fake_nsent(), 4);
	ck_assert_uint_eq(fake_sent(3)->dlid, 4);
	/* a send that fails completes later, from the loop */
	fake_fail_sends(1);
	ck_assert_int_eq(greq(&q, &g[2]), 0);
	ck_assert_int_eq(g[2].called, 0);
	spin();
	ck_assert_int_eq(g[2].called, 1);
	ck_assert_int_eq(g[2].status, MAD_ESEND);
	answer(2, MAD_GETRESP, 0, TRANSPORT_MAD_SIZE);
	fake_respond(3, 0, NULL);
	ck_assert_int_eq(g[1].called + b.called, 2);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	stop();
}
END_TEST

START_TEST(test_response_methods)
{
	static const uint8_t req[] = { MAD_GET, MAD_SET, MAD_GETTABLE,
	    MAD_GETTRACETABLE, MAD_REPORT, MAD_DELETE, MAD_GETMULTI };
	static const uint8_t resp[] = { MAD_GETRESP, MAD_GETRESP,
	    MAD_GETTABLERESP, MAD_GETTABLERESP, MAD_REPORTRESP,
	    MAD_DELETERESP, MAD_GETMULTIRESP };
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 5 };
	struct grec g[7];
	size_t i;

	memset(g, 0, sizeof(g));
	start(16, 16, 1000, 1);
	for (i = 0; i < 7; i++) {
		gs_mad(m, sizeof(m), MGMT_CLASS_SA, req[i], 0x35);
		ck_assert_int_eq(greq(&q, &g[i]), 0);
	}
	/* answers with the wrong response method first: all dropped */
	for (i = 0; i < 7; i++)
		answer(i, resp[(i + 2) % 7] == resp[i] ? MAD_GETMULTIRESP :
		    resp[(i + 2) % 7], 0, TRANSPORT_MAD_SIZE);
	for (i = 0; i < 7; i++)
		ck_assert_int_eq(g[i].called, 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 7);
	for (i = 0; i < 7; i++) {
		answer(i, resp[i], 0, TRANSPORT_MAD_SIZE);
		ck_assert_int_eq(g[i].called, 1);
		ck_assert_uint_eq(g[i].method, resp[i]);
	}
	stop();
}
END_TEST

START_TEST(test_bad_generic_request)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 5 };
	struct grec g = { 0 };

	start(8, 2, 1000, 1);
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_GETRESP, 0x11);
	ck_assert_int_eq(greq(&q, &g), -1);
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_TRAP, 0x02);
	ck_assert_int_eq(greq(&q, &g), -1);
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_TRAPREPRESS, 0x02);
	ck_assert_int_eq(greq(&q, &g), -1);
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_GET, 0x11);
	q.len = TRANSPORT_MAD_SIZE - 1;
	ck_assert_int_eq(greq(&q, &g), -1);
	q.len = sizeof(m);
	m[0] = 0x80;                    /* base version */
	ck_assert_int_eq(greq(&q, &g), -1);
	m[0] = 1;
	q.mad = NULL;
	ck_assert_int_eq(greq(&q, &g), -1);
	q.mad = m;
	ck_assert_int_eq(mad_request(eng, &q, NULL, &g), -1);
	ck_assert_uint_eq(fake_nsent(), 0);
	ck_assert_int_eq(greq(&q, &g), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	stop();
}
END_TEST

/* An RMPP agent sends and receives MADs longer than 256 bytes; another
 * cannot send them. */
START_TEST(test_rmpp_length)
{
	uint8_t m[900];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 5,
	    .to = { .lid = 4, .qpn = 1, .qkey = TRANSPORT_QKEY_GSI } };
	struct transport_agent a = { .mgmt_class = MGMT_CLASS_SA,
	    .class_version = 2, .rmpp = true };
	struct grec g = { 0 }, g2 = { 0 };
	size_t i;

	start(8, 2, 1000, 0);
	gs_mad(m, sizeof(m), MGMT_CLASS_SA, MAD_GETMULTI, 0x3A);
	for (i = 24; i < sizeof(m); i++)
		m[i] = (uint8_t)i;
	/* no agent that does RMPP: the send fails, reported later */
	ck_assert_int_eq(greq(&q, &g), 0);
	ck_assert_uint_eq(fake_nsent(), 0);
	spin();
	ck_assert_int_eq(g.called, 1);
	ck_assert_int_eq(g.status, MAD_ESEND);

	ck_assert_int_eq(mad_register(eng, &a), 0);
	ck_assert_ptr_nonnull(fake_agent(MGMT_CLASS_SA, 2));
	ck_assert(fake_agent(MGMT_CLASS_SA, 2)->rmpp);
	ck_assert_int_eq(greq(&q, &g2), 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_uint_eq(fake_sent(0)->len, sizeof(m));
	ck_assert_mem_eq(fake_sent_bytes(0) + 24, m + 24, sizeof(m) - 24);
	/* a long answer arrives whole */
	answer(0, MAD_GETMULTIRESP, 0, 700);
	ck_assert_int_eq(g2.called, 1);
	ck_assert_int_eq(g2.status, 0);
	ck_assert_uint_eq(g2.len, 700);
	/* a reply of that length goes through mad_send_reply too */
	m[3] = MAD_GETRESP;
	ck_assert_int_eq(mad_send_reply(eng, m, sizeof(m), &q.to), 0);
	ck_assert_uint_eq(fake_sent(1)->len, sizeof(m));
	/* shorter than a MAD through an RMPP agent: sent at its length (the
	 * kernel takes the payload length from it); never under a header */
	ck_assert_int_eq(mad_send_reply(eng, m, 100, &q.to), 0);
	ck_assert_uint_eq(fake_sent(2)->len, 100);
	ck_assert_int_eq(mad_send_reply(eng, m, 20, &q.to), -1);
	stop();
}
END_TEST

static int
check_odd(const uint8_t *req, const uint8_t *resp, size_t len)
{
	(void)req;
	(void)len;
	/* accepts only answers whose byte 100 is odd, and says so */
	return resp[100] & 1 ? 0x42 : -1;
}

START_TEST(test_check_hook)
{
	uint8_t m[TRANSPORT_MAD_SIZE], a[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 5,
	    .check = check_odd };
	struct grec g = { 0 };

	start(8, 2, 1000, 0);
	gs_mad(m, sizeof(m), MGMT_CLASS_PERF, MAD_GET, 0x14);
	ck_assert_int_eq(greq(&q, &g), 0);
	memcpy(a, fake_sent(0)->mad, sizeof(a));
	mad_set_method(a, MAD_GETRESP);
	a[100] = 2;
	fake_deliver(a, sizeof(a), 0, 0);
	ck_assert_int_eq(g.called, 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 1);
	a[100] = 3;
	fake_deliver(a, sizeof(a), 0, 0);
	ck_assert_int_eq(g.called, 1);
	ck_assert_int_eq(g.status, 0x42);
	ck_assert_uint_eq(mad_counter_get(eng, MGMT_CLASS_PERF, MAD_GET,
	    0x14).error, 1);
	stop();
}
END_TEST

/* Destination key 0 (the local node, in discovery) has a window too. */
START_TEST(test_dest_zero)
{
	struct dr_path p = { .hops = 0 };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .path = &p, .dest = 0 };
	struct rec r[4] = { { 0 } };
	int i;

	start(8, 2, 1000, 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(smp(&q, rec_cb, &r[i]), 0);
	q.dest = 1;
	ck_assert_int_eq(smp(&q, rec_cb, &r[3]), 0);
	ck_assert_uint_eq(fake_nsent(), 3);     /* two to 0, one to 1 */
	ck_assert_uint_eq(mad_queued(eng), 1);
	fake_respond(0, 0, NULL);
	ck_assert_uint_eq(fake_nsent(), 4);
	ck_assert_uint_eq(mad_queued(eng), 0);
	for (i = 1; i < 4; i++)
		fake_respond(i, 0, NULL);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(r[i].called, 1);
	/* its slot is reused cleanly afterwards */
	q.dest = 0;
	ck_assert_int_eq(smp(&q, rec_cb, &r[0]), 0);
	ck_assert_uint_eq(fake_nsent(), 5);
	fake_respond(4, 0, NULL);
	ck_assert_int_eq(r[0].called, 2);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	stop();
}
END_TEST

struct order {
	int n;
	uint32_t keys[16];
};

static void
order_cb(void *arg, uint8_t mgmt_class, uint8_t method, uint16_t attr,
    const struct mad_counter *c)
{
	struct order *o = arg;

	(void)c;
	ck_assert_int_lt(o->n, 16);
	o->keys[o->n++] = (uint32_t)mgmt_class << 24 | method << 16 | attr;
}

START_TEST(test_counter_order)
{
	static const struct { uint8_t k, method; uint16_t attr; } sends[] = {
		{ 0x03, MAD_GETRESP, 0x11 }, { 0x81, MAD_TRAPREPRESS, 0x02 },
		{ 0x01, MAD_GETRESP, 0x20 }, { 0x81, MAD_GETRESP, 0x10 },
		{ 0x03, MAD_GETTABLERESP, 0x11 }, { 0x01, MAD_SET, 0x19 },
	};
	static const uint32_t want[] = {
		0x01020019, 0x01810010, 0x01810020, 0x01070002,
		0x03810011, 0x03920011,
	};
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct transport_addr to = { .lid = 1 };
	struct order o = { 0 };
	size_t i;

	start(8, 2, 1000, 1);
	for (i = 0; i < sizeof(sends) / sizeof(sends[0]); i++) {
		gs_mad(m, sizeof(m), sends[i].k, sends[i].method,
		    sends[i].attr);
		ck_assert_int_eq(mad_send_reply(eng, m, sizeof(m), &to), 0);
	}
	mad_counters_foreach(eng, order_cb, &o);
	ck_assert_int_eq(o.n, 6);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(o.keys[i], want[i]);
	/* the two SM classes share their counters */
	ck_assert_uint_eq(mad_counter_get(eng, 0x81, MAD_GETRESP, 0x20).sent,
	    1);
	ck_assert_uint_eq(mad_counter_get(eng, 0x01, MAD_GETRESP, 0x10).sent,
	    1);
	stop();
}
END_TEST

/* Keys past the table's bound are not counted, and nothing breaks. */
START_TEST(test_counter_bound)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct transport_addr to = { .lid = 1 };
	unsigned i;

	start(8, 2, 1000, 1);
	for (i = 0; i < 5000; i++) {
		gs_mad(m, sizeof(m), 0x04, MAD_GETRESP, (uint16_t)i);
		ck_assert_int_eq(mad_send_reply(eng, m, sizeof(m), &to), 0);
	}
	ck_assert_uint_eq(mad_counter_get(eng, 0x04, MAD_GETRESP, 10).sent, 1);
	ck_assert_uint_eq(mad_counter_get(eng, 0x04, MAD_GETRESP, 4999).sent,
	    0);
	ck_assert_uint_eq(mad_total_sent(eng), 5000);
	stop();
}
END_TEST

static int drops;

static void
count_drop(void *arg)
{
	(void)arg;
	drops++;
}

/* What the engine drops on free goes through the request's drop hook. */
START_TEST(test_drop_hook)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct mad_request q = { .mad = m, .len = sizeof(m), .dest = 5,
	    .drop = count_drop };
	struct grec g[3];

	memset(g, 0, sizeof(g));
	drops = 0;
	start(8, 1, 1000, 1);
	gs_mad(m, sizeof(m), MGMT_CLASS_PERF, MAD_GET, 0x12);
	ck_assert_int_eq(greq(&q, &g[0]), 0);   /* on the wire */
	ck_assert_int_eq(greq(&q, &g[1]), 0);   /* queued behind it */
	fake_fail_sends(1);
	q.dest = 6;
	ck_assert_int_eq(greq(&q, &g[2]), 0);   /* a deferred ESEND */
	ck_assert_uint_eq(mad_outstanding(eng), 1);
	ck_assert_uint_eq(mad_queued(eng), 1);
	stop();
	ck_assert_int_eq(drops, 3);
	ck_assert_int_eq(g[0].called + g[1].called + g[2].called, 0);
}
END_TEST

/* An SMP the engine drops on free goes through the caller's drop hook
 * (smstate.c frees its queries there), and only the SMP client's. */
START_TEST(test_smp_drop_hook)
{
	struct dr_path p = { .hops = 1, .port = { 0, 1 } };
	struct smp_req q = { .method = MAD_GET, .attr = ATTR_NODE_INFO,
	    .path = &p, .dest = 1, .drop = count_drop };
	struct rec r[3] = { { 0 } };

	drops = 0;
	start(8, 1, 1000, 1);
	ck_assert_int_eq(smp(&q, rec_cb, &r[0]), 0);    /* on the wire */
	ck_assert_int_eq(smp(&q, rec_cb, &r[1]), 0);    /* queued */
	q.drop = NULL;
	q.dest = 2;
	ck_assert_int_eq(smp(&q, rec_cb, &r[2]), 0);    /* no hook */
	fake_respond(0, 0, NULL);
	spin();
	ck_assert_int_eq(r[0].called, 1);
	stop();
	ck_assert_int_eq(drops, 1);                     /* r[1] only */
	ck_assert_int_eq(r[1].called + r[2].called, 0);
}
END_TEST

START_TEST(test_smp_register)
{
	const struct transport_agent *a;
	int k;

	start(8, 2, 1000, 1);
	ck_assert_ptr_null(fake_agent(0x01, 1));
	ck_assert_int_eq(smp_register(eng), 0);
	for (k = 0; k < 2; k++) {
		a = fake_agent(k ? 0x81 : 0x01, 1);
		ck_assert_ptr_nonnull(a);
		ck_assert(!a->rmpp);
		ck_assert_uint_eq(a->oui, 0);
		/* Get, Set, Trap, TrapRepress */
		ck_assert_uint_eq(a->methods[0], 1u << 1 | 1u << 2 | 1u << 5 |
		    1u << 7);
		ck_assert_uint_eq(a->methods[1] | a->methods[2] | a->methods[3],
		    0);
	}
	ck_assert_int_eq(smp_register(eng), -1);        /* already there */
	stop();
	start(8, 2, 1000, 1);
	fake_fail_registers(1);
	ck_assert_int_eq(smp_register(eng), -1);
	stop();
}
END_TEST

static Suite *
mad_suite(void)
{
	Suite *s = suite_create("mad");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dr_encoding);
	tcase_add_test(tc, test_dr_zero_hops);
	tcase_add_test(tc, test_lid_encoding);
	tcase_add_test(tc, test_response);
	tcase_add_test(tc, test_dr_status);
	tcase_add_test(tc, test_lid_status);
	tcase_add_test(tc, test_window_per_node);
	tcase_add_test(tc, test_window_global);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_timeout_retry);
	tcase_add_test(tc, test_failed_send_report);
	tcase_add_test(tc, test_late_answer);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_unsolicited);
	tcase_add_test(tc, test_send_failure);
	tcase_add_test(tc, test_reentrant);
	tcase_add_test(tc, test_bulk);
	tcase_add_test(tc, test_set_opts);
	tcase_add_test(tc, test_bad_request);
	tcase_add_test(tc, test_reply_and_counters);
	tcase_add_test(tc, test_free_outstanding);
	tcase_add_test(tc, test_gsi_request);
	tcase_add_test(tc, test_own_window);
	tcase_add_test(tc, test_response_methods);
	tcase_add_test(tc, test_bad_generic_request);
	tcase_add_test(tc, test_rmpp_length);
	tcase_add_test(tc, test_check_hook);
	tcase_add_test(tc, test_dest_zero);
	tcase_add_test(tc, test_counter_order);
	tcase_add_test(tc, test_counter_bound);
	tcase_add_test(tc, test_smp_register);
	tcase_add_test(tc, test_drop_hook);
	tcase_add_test(tc, test_smp_drop_hook);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(mad_suite());
	int failed;

	/* exercise the debug log lines too */
	if (getenv("CHECK_MAD_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
