/*
 * Listener dispatch of the MAD engine: unsolicited MADs of several classes,
 * fed through the in-memory transport, reach the listener of their (class,
 * method, attribute), or are counted and dropped; short and garbage MADs
 * are counted as malformed and never reach anyone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"

#define SA_VERSION 2

static struct ev_loop *loop;
static struct mad_engine *eng;

struct hit {
	int n;
	uint8_t mgmt_class;
	uint8_t method;
	uint16_t attr;
	size_t len;
	struct transport_addr from;
	uint8_t mark;                   /* byte 100 of the MAD */
};

static void
hit_cb(void *arg, const struct transport_rx *rx)
{
	struct hit *h = arg;

	ck_assert_ptr_nonnull(rx->mad);
	ck_assert_uint_ge(rx->len, TRANSPORT_MAD_SIZE);
	ck_assert_int_eq(rx->status, 0);
	h->n++;
	h->mgmt_class = rx->mad[1];
	h->method = mad_method_of(rx->mad);
	h->attr = (uint16_t)mad_get_field((void *)rx->mad, 0, IB_MAD_ATTRID_F);
	h->len = rx->len;
	h->from = rx->from;
	h->mark = rx->mad[100];
}

/* The engine with the SM classes, SA (version 2, RMPP) and performance
 * management registered. */
static void
start(void)
{
	struct transport_agent sa = { .mgmt_class = MGMT_CLASS_SA,
	    .class_version = SA_VERSION, .rmpp = true };
	struct transport_agent perf = { .mgmt_class = MGMT_CLASS_PERF,
	    .class_version = 1 };

	loop = ev_loop_new(EVFLAG_AUTO);
	ck_assert_ptr_nonnull(loop);
	eng = mad_engine_new(loop, 0x1234, NULL);
	ck_assert_ptr_nonnull(eng);
	ck_assert_int_eq(smp_register(eng), 0);
	transport_agent_method(&sa, MAD_GET);
	transport_agent_method(&sa, MAD_SET);
	transport_agent_method(&sa, MAD_GETTABLE);
	transport_agent_method(&sa, MAD_DELETE);
	ck_assert_int_eq(mad_register(eng, &sa), 0);
	transport_agent_method(&perf, MAD_GET);
	ck_assert_int_eq(mad_register(eng, &perf), 0);
}

static void
stop(void)
{
	mad_engine_free(eng);
	eng = NULL;
	ev_loop_destroy(loop);
	loop = NULL;
}

static uint8_t
version_of(uint8_t mgmt_class)
{
	return mgmt_class == MGMT_CLASS_SA ? SA_VERSION : 1;
}

static void
make(uint8_t *m, uint8_t mgmt_class, uint8_t method, uint16_t attr,
    uint8_t mark)
{
	memset(m, 0, TRANSPORT_MAD_SIZE);
	m[0] = MAD_BASE_VERSION;
	m[1] = mgmt_class;
	m[2] = version_of(mgmt_class);
	mad_set_method(m, method);
	mad_set_field64(m, 0, IB_MAD_TRID_F, 0x0000ABCD00001234ULL);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, attr);
	m[100] = mark;
}

static void
feed(uint8_t mgmt_class, uint8_t method, uint16_t attr, uint8_t mark)
{
	uint8_t m[TRANSPORT_MAD_SIZE];

	make(m, mgmt_class, method, attr, mark);
	fake_deliver(m, sizeof(m), 0, 17);
}

static int
hits(const struct hit *h, size_t n)
{
	int sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += h[i].n;
	return sum;
}

START_TEST(test_routing)
{
	static const struct {
		uint8_t mgmt_class, method;
		uint32_t attr;
	} keys[] = {
		{ 0x01, MAD_GET, ATTR_SM_INFO },
		{ 0x81, MAD_GET, ATTR_SM_INFO },
		{ 0x01, MAD_TRAP, ATTR_NOTICE },
		{ 0x03, MAD_GET, 0x11 },
		{ 0x03, MAD_GETTABLE, MAD_ATTR_ANY },
		{ 0x04, MAD_GET, 0x01 },
	};
	enum { N = sizeof(keys) / sizeof(keys[0]) };
	struct hit h[N];
	size_t i;

	memset(h, 0, sizeof(h));
	start();
	for (i = 0; i < N; i++)
		ck_assert_int_eq(mad_listen(eng, keys[i].mgmt_class,
		    keys[i].method, keys[i].attr, hit_cb, &h[i]), 0);
	/* each key reaches its listener and no other */
	for (i = 0; i < N; i++) {
		uint16_t attr = keys[i].attr == MAD_ATTR_ANY ? 0x35 :
		    (uint16_t)keys[i].attr;

		feed(keys[i].mgmt_class, keys[i].method, attr, (uint8_t)(i + 1));
		ck_assert_int_eq(h[i].n, 1);
		ck_assert_int_eq(hits(h, N), (int)i + 1);
		ck_assert_uint_eq(h[i].mgmt_class, keys[i].mgmt_class);
		ck_assert_uint_eq(h[i].method, keys[i].method);
		ck_assert_uint_eq(h[i].attr, attr);
		ck_assert_uint_eq(h[i].mark, i + 1);
		ck_assert_uint_eq(h[i].from.lid, 17);
	}
	/* same numbers, other keys: nobody listens */
	feed(0x01, MAD_SET, ATTR_SM_INFO, 0);           /* other method */
	feed(0x81, MAD_TRAP, ATTR_NOTICE, 0);           /* other SM class */
	feed(0x03, MAD_GET, 0x35, 0);                   /* other attribute */
	feed(0x04, MAD_GET, 0x11, 0);                   /* other class */
	feed(0x03, MAD_SET, 0x11, 0);
	ck_assert_int_eq(hits(h, N), N);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 5);
	ck_assert_uint_eq(mad_dropped_malformed(eng), 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 0);
	/* counted per class: the SA NodeRecord is not the SMP NodeInfo */
	ck_assert_uint_eq(mad_counter_get(eng, 0x03, MAD_GET, 0x11).recv, 1);
	ck_assert_uint_eq(mad_counter_get(eng, 0x01, MAD_GET, 0x11).recv, 0);
	ck_assert_uint_eq(mad_counter_get(eng, 0x03, MAD_GET, 0x35).recv, 1);
	ck_assert_uint_eq(mad_counter_get(eng, 0x03, MAD_GETTABLE,
	    0x35).recv, 1);
	/* both SM classes count as one */
	ck_assert_uint_eq(mad_counter_get(eng, 0x01, MAD_GET,
	    ATTR_SM_INFO).recv, 2);
	stop();
}
END_TEST

START_TEST(test_exact_beats_any)
{
	struct hit any = { 0 }, exact = { 0 };

	start();
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, MAD_ATTR_ANY, hit_cb,
	    &any), 0);
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, 0x11, hit_cb, &exact),
	    0);
	feed(0x03, MAD_GET, 0x11, 1);
	feed(0x03, MAD_GET, 0x12, 2);
	feed(0x03, MAD_GET, 0xFFFF, 3);
	ck_assert_int_eq(exact.n, 1);
	ck_assert_int_eq(any.n, 2);
	ck_assert_uint_eq(any.attr, 0xFFFF);
	/* without the exact one, the wildcard takes it */
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, 0x11, NULL, NULL), 0);
	feed(0x03, MAD_GET, 0x11, 4);
	ck_assert_int_eq(exact.n, 1);
	ck_assert_int_eq(any.n, 3);
	ck_assert_uint_eq(any.mark, 4);
	/* a second listener for a key replaces the first */
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, MAD_ATTR_ANY, hit_cb,
	    &exact), 0);
	feed(0x03, MAD_GET, 0x20, 5);
	ck_assert_int_eq(any.n, 3);
	ck_assert_int_eq(exact.n, 2);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 0);
	stop();
}
END_TEST

START_TEST(test_address)
{
	struct hit h = { 0 };
	struct transport_addr from = { .lid = 0x21, .sl = 4, .qpn = 0x55AA,
	    .qkey = TRANSPORT_QKEY_GSI, .pkey_index = 3, .grh = true,
	    .gid_index = 1, .hop_limit = 63, .traffic_class = 7,
	    .flow_label = 0x12345 };
	uint8_t m[600];

	start();
	for (int i = 0; i < 16; i++)
		from.gid[i] = (uint8_t)(0xF0 + i);
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_SET, 0x38, hit_cb, &h), 0);
	memset(m, 0, sizeof(m));
	make(m, 0x03, MAD_SET, 0x38, 9);
	/* reassembled by RMPP on real hardware: longer than one MAD */
	fake_deliver_from(m, sizeof(m), 0, &from);
	ck_assert_int_eq(h.n, 1);
	ck_assert_uint_eq(h.len, sizeof(m));
	ck_assert_mem_eq(&h.from, &from, sizeof(from));
	stop();
}
END_TEST

static int reply_rc;

/* Answer a request from inside its listener, to where it came from. */
static void
reply_cb(void *arg, const struct transport_rx *rx)
{
	uint8_t m[TRANSPORT_MAD_SIZE];

	(void)arg;
	memcpy(m, rx->mad, sizeof(m));
	mad_set_method(m, MAD_GETRESP);
	reply_rc = mad_send_reply(eng, m, sizeof(m), &rx->from);
}

START_TEST(test_reply_from_listener)
{
	struct transport_addr from = { .lid = 0x30, .qpn = 0x99,
	    .qkey = TRANSPORT_QKEY_GSI, .pkey_index = 1, .sl = 2 };
	uint8_t m[TRANSPORT_MAD_SIZE];

	start();
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, 0x11, reply_cb, NULL),
	    0);
	make(m, 0x03, MAD_GET, 0x11, 0);
	reply_rc = -5;
	fake_deliver_from(m, sizeof(m), 0, &from);
	ck_assert_int_eq(reply_rc, 0);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_mem_eq(&fake_sent(0)->to, &from, sizeof(from));
	ck_assert_int_eq(fake_sent(0)->timeout_ms, 0);
	ck_assert_uint_eq(mad_method_of(fake_sent(0)->mad), MAD_GETRESP);
	ck_assert_uint_eq(mad_counter_get(eng, 0x03, MAD_GETRESP, 0x11).sent,
	    1);
	ck_assert_uint_eq(mad_counter_get(eng, 0x03, MAD_GET, 0x11).recv, 1);
	/* a reply sends nothing the engine waits for */
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	stop();
}
END_TEST

static struct hit later;

/* Removes itself and adds many listeners (the table moves) while called. */
static void
churn_cb(void *arg, const struct transport_rx *rx)
{
	struct hit *h = arg;

	hit_cb(h, rx);
	ck_assert_int_eq(mad_listen(eng, 0x04, MAD_GET, 0x10, NULL, NULL), 0);
	for (uint16_t a = 0x100; a < 0x140; a++)
		ck_assert_int_eq(mad_listen(eng, 0x04, MAD_GET, a, hit_cb,
		    &later), 0);
}

START_TEST(test_changes_from_listener)
{
	struct hit h = { 0 };

	memset(&later, 0, sizeof(later));
	start();
	ck_assert_int_eq(mad_listen(eng, 0x04, MAD_GET, 0x10, churn_cb, &h),
	    0);
	feed(0x04, MAD_GET, 0x10, 1);
	ck_assert_int_eq(h.n, 1);
	feed(0x04, MAD_GET, 0x10, 2);
	ck_assert_int_eq(h.n, 1);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 1);
	feed(0x04, MAD_GET, 0x13F, 3);
	ck_assert_int_eq(later.n, 1);
	ck_assert_uint_eq(later.mark, 3);
	stop();
}
END_TEST

START_TEST(test_bad_listen)
{
	struct hit h = { 0 };

	start();
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GETRESP, 0x11, hit_cb, &h),
	    -1);
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, MAD_ATTR_ANY + 1,
	    hit_cb, &h), -1);
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, UINT32_MAX, hit_cb,
	    &h), -1);
	ck_assert_int_eq(mad_listen(NULL, 0x03, MAD_GET, 0x11, hit_cb, &h), -1);
	/* removing what is not there is harmless */
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, 0x11, NULL, NULL), 0);
	feed(0x03, MAD_GET, 0x11, 0);
	ck_assert_int_eq(h.n, 0);
	stop();
}
END_TEST

/* Responses never go to listeners, even for a key someone listens to. */
START_TEST(test_responses_not_listened)
{
	struct hit h = { 0 };

	start();
	ck_assert_int_eq(mad_listen(eng, 0x03, MAD_GET, 0x11, hit_cb, &h), 0);
	feed(0x03, MAD_GETRESP, 0x11, 0);
	feed(0x03, MAD_GETTABLERESP, 0x11, 0);
	ck_assert_int_eq(h.n, 0);
	ck_assert_uint_eq(mad_dropped_unmatched(eng), 2);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 0);
	stop();
}
END_TEST

START_TEST(test_malformed)
{
	struct hit h = { 0 };
	uint8_t m[TRANSPORT_MAD_SIZE];
	size_t len;

	start();
	for (uint8_t k = 0; k < 8; k++)
		ck_assert_int_eq(mad_listen(eng, k == 7 ? 0x81 : k, MAD_GET,
		    MAD_ATTR_ANY, hit_cb, &h), 0);
	make(m, 0x05, MAD_GET, 0x11, 0);        /* no agent for the class */
	fake_deliver(m, sizeof(m), 0, 1);
	make(m, 0x03, MAD_GET, 0x11, 0);        /* SA but version 1 */
	m[2] = 1;
	fake_deliver(m, sizeof(m), 0, 1);
	make(m, 0x03, MAD_GET, 0x11, 0);        /* base version 2 */
	m[0] = 2;
	fake_deliver(m, sizeof(m), 0, 1);
	make(m, 0x03, MAD_GET, 0x11, 0);        /* short */
	for (len = 0; len < TRANSPORT_MAD_SIZE; len += 17)
		fake_deliver(m, len, 0, 1);
	fake_deliver(m, TRANSPORT_MAD_SIZE - 1, 0, 1);
	fake_deliver(NULL, 0, 0, 1);
	fake_deliver(NULL, TRANSPORT_MAD_SIZE, 0, 1);
	ck_assert_int_eq(h.n, 0);
	ck_assert_uint_eq(mad_dropped_malformed(eng), 3 + 16 + 3);
	ck_assert_uint_eq(mad_dropped_unhandled(eng), 0);
	/* and a good one still goes through */
	make(m, 0x03, MAD_GET, 0x11, 0);
	fake_deliver(m, sizeof(m), 0, 1);
	ck_assert_int_eq(h.n, 1);
	stop();
}
END_TEST

static uint32_t rnd_state;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/*
 * Random MADs, biased towards the registered classes and versions so that
 * they get past the first checks: every one is either taken by a listener
 * or counted (unhandled, unmatched or malformed), exactly once.
 */
START_TEST(test_garbage)
{
	static const size_t lens[] = { 0, 1, 23, 24, 255, 256, 257, 300,
	    1000 };
	static const uint8_t classes[] = { 0x01, 0x81, 0x03, 0x04, 0x05,
	    0x00, 0xFF };
	struct hit h = { 0 };
	uint8_t m[1000];
	uint64_t before, after;
	int i;

	rnd_state = 42;
	start();
	for (uint8_t k = 0; k < 8; k++) {
		uint8_t c = classes[k % 4];

		mad_listen(eng, c, MAD_GET, MAD_ATTR_ANY, hit_cb, &h);
		mad_listen(eng, c, MAD_SET, ATTR_SM_INFO, hit_cb, &h);
		mad_listen(eng, c, MAD_TRAP, ATTR_NOTICE, hit_cb, &h);
	}
	for (i = 0; i < 20000; i++) {
		size_t len = lens[rnd() % (sizeof(lens) / sizeof(lens[0]))];
		uint8_t k = classes[rnd() % sizeof(classes)];

		for (size_t b = 0; b < sizeof(m); b++)
			m[b] = (uint8_t)rnd();
		if (rnd() % 4 != 0)
			m[0] = MAD_BASE_VERSION;
		m[1] = k;
		if (rnd() % 4 != 0)
			m[2] = version_of(k);
		if (rnd() % 2)
			m[3] = (uint8_t)(rnd() % 3);    /* Get, Set or 0 */
		before = h.n + mad_dropped_unhandled(eng) +
		    mad_dropped_unmatched(eng) + mad_dropped_malformed(eng);
		fake_deliver(rnd() % 50 ? m : NULL, len, 0, (uint16_t)rnd());
		after = h.n + mad_dropped_unhandled(eng) +
		    mad_dropped_unmatched(eng) + mad_dropped_malformed(eng);
		ck_assert_uint_eq(after, before + 1);
	}
	ck_assert_int_gt(h.n, 100);
	ck_assert_uint_gt(mad_dropped_unhandled(eng), 100);
	ck_assert_uint_gt(mad_dropped_malformed(eng), 100);
	ck_assert_uint_gt(mad_dropped_unmatched(eng), 100);
	/* failed-send reports of MADs we never sent: nothing to do */
	for (i = 0; i < 2000; i++) {
		for (size_t b = 0; b < sizeof(m); b++)
			m[b] = (uint8_t)rnd();
		fake_deliver(m, lens[rnd() % (sizeof(lens) / sizeof(lens[0]))],
		    rnd() % 2 ? ETIMEDOUT : EIO, 0);
	}
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	stop();
}
END_TEST

static Suite *
listen_suite(void)
{
	Suite *s = suite_create("listen");
	TCase *tc = tcase_create("dispatch");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_routing);
	tcase_add_test(tc, test_exact_beats_any);
	tcase_add_test(tc, test_address);
	tcase_add_test(tc, test_reply_from_listener);
	tcase_add_test(tc, test_changes_from_listener);
	tcase_add_test(tc, test_bad_listen);
	tcase_add_test(tc, test_responses_not_listened);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(listen_suite());
	int failed;

	if (getenv("CHECK_MAD_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
