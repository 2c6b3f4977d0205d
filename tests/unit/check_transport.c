/*
 * mad/transport.c on its fd path, the one a host takes: the umad fd is
 * watched by an ev_io and read without blocking until the kernel says
 * EAGAIN. Driven over a fake libibumad (tests/unit/fake_umad.c) whose fd
 * is a real eventfd, readable while MADs are queued, and a real libev
 * loop: partial queues, spurious wake-ups (EAGAIN), a long RMPP message
 * (ENOSPC, the buffer grows, the MAD stays queued until read whole), a
 * burst longer than one pass (the rest waits for the loop's next turn,
 * after the other watchers), send errors and failed sends reported back
 * with their status, and a descriptor that cannot be watched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <ev.h>

#include "core/log.h"
#include "mad/transport.h"
#include "tests/unit/fake_umad.h"

#define MAXREC 2048

static struct ev_loop *loop;
static struct transport *t;
static struct {
	unsigned n;
	size_t len[MAXREC];
	int status[MAXREC];
	uint32_t tag[MAXREC];           /* bytes 12-15 of the MAD */
	uint16_t lid[MAXREC];
	uint8_t last[4096];
} got;
/* called from inside the rx callback, to queue more while it runs */
static unsigned refill;

/* A MAD of len bytes (256, or longer for an RMPP-reassembled one) whose
 * bytes 12-15 (the low TID) say tag, and the rest a pattern of it. */
static void
mk(uint8_t *m, size_t len, uint32_t tag)
{
	for (size_t i = 0; i < len; i++)
		m[i] = (uint8_t)(i * 7 + tag);
	m[0] = 1;
	m[1] = 0x03;
	m[2] = 2;
	m[3] = 0x92;
	m[12] = (uint8_t)(tag >> 24);
	m[13] = (uint8_t)(tag >> 16);
	m[14] = (uint8_t)(tag >> 8);
	m[15] = (uint8_t)tag;
}

static void
queue(unsigned n, uint32_t first)
{
	uint8_t m[TRANSPORT_MAD_SIZE];

	for (unsigned i = 0; i < n; i++) {
		mk(m, sizeof(m), first + i);
		fake_umad_queue(m, sizeof(m), 0, (uint16_t)(first + i));
	}
}

static void
rx_cb(void *arg, const struct transport_rx *rx)
{
	unsigned i = got.n++;

	(void)arg;
	ck_assert_uint_lt(i, MAXREC);
	got.len[i] = rx->len;
	got.status[i] = rx->status;
	got.tag[i] = (uint32_t)rx->mad[12] << 24 | (uint32_t)rx->mad[13] << 16 |
	    (uint32_t)rx->mad[14] << 8 | rx->mad[15];
	got.lid[i] = rx->from.lid;
	memcpy(got.last, rx->mad, rx->len < sizeof(got.last) ? rx->len :
	    sizeof(got.last));
	if (refill > 0) {
		refill--;
		queue(1, 5000 + refill);
	}
}

static void
setup(void)
{
	log_init("check_transport", NULL, LOG_LVL_ERROR);
	fake_umad_reset();
	memset(&got, 0, sizeof(got));
	refill = 0;
	loop = ev_loop_new(EVFLAG_AUTO);
	ck_assert_ptr_nonnull(loop);
	t = transport_open(loop, 0, rx_cb, NULL);
	ck_assert_ptr_nonnull(t);
}

static void
teardown(void)
{
	ck_assert_uint_eq(fake_umad_short_buffers(), 0);
	transport_close(t);
	ev_loop_destroy(loop);
	fake_umad_reset();
}

/* One turn of the loop (no wait if nothing is ready). */
static void
turn(void)
{
	ev_run(loop, EVRUN_NOWAIT);
}

START_TEST(test_partial_queues)
{
	queue(3, 100);
	turn();
	ck_assert_uint_eq(got.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(got.tag[i], 100 + i);
		ck_assert_uint_eq(got.len[i], TRANSPORT_MAD_SIZE);
		ck_assert_uint_eq(got.lid[i], 100 + i);
	}
	/* read until the kernel said EAGAIN, once */
	ck_assert_uint_eq(fake_umad_recv_calls(), 4);
	ck_assert_uint_eq(fake_umad_eagain(), 1);
	/* nothing queued: the fd is not readable, no read is made */
	turn();
	turn();
	ck_assert_uint_eq(fake_umad_recv_calls(), 4);
	/* more later: the next turn reads them */
	queue(2, 200);
	turn();
	ck_assert_uint_eq(got.n, 5);
	ck_assert_uint_eq(got.tag[3], 200);
	ck_assert_uint_eq(got.tag[4], 201);
	/* MADs that arrive while the callback runs are read in the same pass */
	refill = 3;
	queue(1, 300);
	turn();
	ck_assert_uint_eq(got.n, 9);
	ck_assert_uint_eq(got.tag[5], 300);
	ck_assert_uint_eq(got.tag[6], 5002);
	ck_assert_uint_eq(got.tag[8], 5000);
	ck_assert_uint_eq(fake_umad_queued(), 0);
}
END_TEST

START_TEST(test_eagain)
{
	/* readable, nothing there: one read, EAGAIN, no MAD, no error */
	fake_umad_kick();
	turn();
	ck_assert_uint_eq(got.n, 0);
	ck_assert_uint_eq(fake_umad_recv_calls(), 1);
	ck_assert_uint_eq(fake_umad_eagain(), 1);
	/* and the transport still reads what comes next */
	queue(1, 7);
	turn();
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(got.tag[0], 7);
}
END_TEST

START_TEST(test_enospc_growth)
{
	uint8_t big[1800], big2[3000];

	mk(big, sizeof(big), 42);
	mk(big2, sizeof(big2), 43);
	queue(1, 41);
	fake_umad_queue(big, sizeof(big), 0, 9);
	queue(1, 44);
	turn();
	ck_assert_uint_eq(got.n, 3);
	ck_assert_uint_eq(got.tag[0], 41);
	/* the long one: ENOSPC with its length, then read whole */
	ck_assert_uint_eq(got.tag[1], 42);
	ck_assert_uint_eq(got.len[1], sizeof(big));
	ck_assert_uint_eq(got.tag[2], 44);
	ck_assert_uint_eq(fake_umad_enospc(), 1);
	/* 256-byte MADs, the long one twice (ENOSPC), the EAGAIN */
	ck_assert_uint_eq(fake_umad_recv_calls(), 5);
	/* the buffer stays grown: no ENOSPC for one as long or shorter */
	fake_umad_queue(big, sizeof(big), 0, 9);
	turn();
	ck_assert_uint_eq(got.n, 4);
	ck_assert_uint_eq(fake_umad_enospc(), 1);
	ck_assert_int_eq(memcmp(got.last, big, sizeof(big)), 0);
	/* a longer one grows it again */
	fake_umad_queue(big2, sizeof(big2), 0, 9);
	turn();
	ck_assert_uint_eq(got.n, 5);
	ck_assert_uint_eq(got.len[4], sizeof(big2));
	ck_assert_uint_eq(fake_umad_enospc(), 2);
	ck_assert_int_eq(memcmp(got.last, big2, sizeof(big2)), 0);
}
END_TEST

static unsigned other_ran;
static unsigned got_when_other_ran;

static void
other_cb(struct ev_loop *l, ev_io *w, int revents)
{
	char c;

	(void)l;
	(void)revents;
	if (read(w->fd, &c, 1) == 1) {
		other_ran++;
		got_when_other_ran = got.n;
	}
}

START_TEST(test_burst)
{
	int p[2];
	ev_io other;

	/* another watcher ready at the same time: a burst of 600 MADs must
	 * not hold it up behind all of them */
	ck_assert_int_eq(pipe(p), 0);
	ev_io_init(&other, other_cb, p[0], EV_READ);
	ev_io_start(loop, &other);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	queue(600, 1000);
	turn();
	ck_assert_uint_eq(got.n, 256);
	ck_assert_uint_eq(other_ran, 1);
	ck_assert_uint_le(got_when_other_ran, 256);
	ck_assert_uint_eq(fake_umad_eagain(), 0);
	turn();
	ck_assert_uint_eq(got.n, 512);
	turn();
	ck_assert_uint_eq(got.n, 600);
	ck_assert_uint_eq(fake_umad_eagain(), 1);
	for (unsigned i = 0; i < 600; i++)
		ck_assert_uint_eq(got.tag[i], 1000 + i);
	ck_assert_uint_eq(fake_umad_queued(), 0);
	ev_io_stop(loop, &other);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_send_errors)
{
	struct transport_agent a = { .mgmt_class = 0x81, .class_version = 1 };
	struct transport_addr to = { .lid = TRANSPORT_LID_PERMISSIVE };
	uint8_t m[TRANSPORT_MAD_SIZE];
	const uint8_t *s;
	size_t len;
	int tmo;

	ck_assert_int_eq(transport_register(t, &a), 0);
	mk(m, sizeof(m), 77);
	m[1] = 0x81;
	m[2] = 1;
	m[3] = 0x01;
	ck_assert_int_eq(transport_send(t, m, sizeof(m), &to, 200), 0);
	ck_assert_uint_eq(fake_umad_sent(), 1);
	s = fake_umad_last_sent(&len, &tmo);
	ck_assert_uint_eq(len, sizeof(m));
	ck_assert_int_eq(tmo, 200);
	ck_assert_int_eq(memcmp(s, m, sizeof(m)), 0);
	/* the kernel refuses the send: -1, nothing sent, no rx */
	fake_umad_send_result(-EIO);
	ck_assert_int_eq(transport_send(t, m, sizeof(m), &to, 200), -1);
	fake_umad_send_result(-ENOMEM);
	ck_assert_int_eq(transport_send(t, m, sizeof(m), &to, 200), -1);
	ck_assert_uint_eq(fake_umad_sent(), 1);
	turn();
	ck_assert_uint_eq(got.n, 0);
	/* no agent for the class, or a long MAD without RMPP: refused here */
	fake_umad_send_result(0);
	m[1] = 0x04;
	ck_assert_int_eq(transport_send(t, m, sizeof(m), &to, 200), -1);
	m[1] = 0x81;
	ck_assert_int_eq(transport_send(t, m, sizeof(m) - 1, &to, 200), -1);
	ck_assert_uint_eq(fake_umad_sent(), 1);
	/* a send that failed later comes back as a completion with its
	 * status: the request's header (24 bytes), ETIMEDOUT or another */
	fake_umad_queue(m, 24, ETIMEDOUT, 0);
	fake_umad_queue(m, 24, EIO, 0);
	queue(1, 78);
	turn();
	ck_assert_uint_eq(got.n, 3);
	ck_assert_int_eq(got.status[0], ETIMEDOUT);
	ck_assert_uint_eq(got.len[0], 24);
	ck_assert_uint_eq(got.tag[0], 77);
	ck_assert_int_eq(got.status[1], EIO);
	ck_assert_int_eq(got.status[2], 0);
	ck_assert_uint_eq(got.tag[2], 78);
}
END_TEST

START_TEST(test_unwatchable)
{
	struct transport *u;

	transport_close(t);
	fake_umad_fake_fd(true);
	u = transport_open(loop, 0, rx_cb, NULL);
	ck_assert_ptr_null(u);
	fake_umad_fake_fd(false);
	t = transport_open(loop, 0, rx_cb, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(transport_port_guid(t), FAKE_UMAD_GUID);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("transport");
	TCase *tc = tcase_create("fd");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_partial_queues);
	tcase_add_test(tc, test_eagain);
	tcase_add_test(tc, test_enospc_growth);
	tcase_add_test(tc, test_burst);
	tcase_add_test(tc, test_send_errors);
	tcase_add_test(tc, test_unwatchable);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
