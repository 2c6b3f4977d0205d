/*
 * sa/service: ServiceRecord byte layout, Set/Get/Delete, RID, leases
 * (fake clock and a real loop), partition scoping, ports that leave.
 */
#include <check.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/partitions.h"
#include "sa/service.h"
#include "tests/unit/sa_stub.h"
#include "tests/unit/testfab.h"

#define PREFIX 0xFE80000000000000ull

static struct fabric F;
static struct pkey_tables PK;
static struct sa_view V;
static uint32_t ca[4];
static void *ST;
static struct sa_opts O;

static void
set_keys(unsigned i, uint16_t k0, uint16_t k1)
{
	struct pkey_table *t = &PK.v[i];
	const struct fabric_port *p = &F.ports[ca[i]];

	t->guid = p->guid;
	t->port = ca[i];
	t->num = p->num;
	t->kind = PKEY_TABLE_PORT;
	t->cap = 2;
	t->keys = calloc(2, sizeof(*t->keys));
	t->keys[0] = k0;
	t->keys[1] = k1;
}

static void
setup(void)
{
	uint32_t sw, n;

	fabric_init(&F);
	sw = testfab_switch(&F, 8);
	for (unsigned i = 0; i < 4; i++) {
		n = testfab_ca(&F, 1);
		testfab_connect(&F, sw, (uint8_t)(i + 1), n, 1);
		ca[i] = fabric_port_idx(&F, n, 1);
	}
	testfab_lids(&F);
	memset(&PK, 0, sizeof(PK));
	memset(&V, 0, sizeof(V));
	V.f = &F;
	V.subnet_prefix = PREFIX;
	memset(&O, 0, sizeof(O));
	ST = sa_service_state_new(NULL);
	sa_attr_service.view_changed(ST, NULL, &V);
}

static void
teardown(void)
{
	sa_service_state_free(ST);
	if (PK.v != NULL)
		pkey_tables_free(&PK);
	fabric_fini(&F);
}

/* Partitions: ca0 full 7fff + full 3, ca1 full 7fff, ca2 limited 3,
 * ca3 full 7fff only. */
static void
with_pkeys(void)
{
	PK.n = 4;
	PK.v = calloc(4, sizeof(*PK.v));
	set_keys(0, 0xFFFF, 0x8003);
	set_keys(1, 0xFFFF, 0);
	set_keys(2, 0x0003, 0);
	set_keys(3, 0xFFFF, 0);
	pkey_tables_sort(&PK);
	V.pk = &PK;
}

static void
put_be(uint8_t *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static uint64_t
get_be(const uint8_t *b, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | b[i];
	return v;
}

/* A record by raw offsets (IBA 15.2.5.14): ID 0, GID 8, P_Key 24,
 * lease 28, key 32, name 48, data 112. */
static void
make_rec(uint8_t *r, uint64_t id, uint32_t port, uint16_t pkey,
    uint32_t lease, const char *name)
{
	memset(r, 0, SA_SERVICE_REC_SIZE);
	put_be(r, id, 8);
	put_be(r + 8, PREFIX, 8);
	put_be(r + 16, F.ports[port].guid, 8);
	put_be(r + 24, pkey, 2);
	put_be(r + 28, lease, 4);
	memset(r + 32, 0xAB, 16);
	strncpy((char *)r + 48, name, 64);
	r[112] = 0x11;
	r[175] = 0x22;
}

#define M_ID    (1ull << 0)
#define M_GID   (1ull << 1)
#define M_PKEY  (1ull << 2)
#define M_LEASE (1ull << 4)
#define M_NAME  (1ull << 6)

static unsigned
call(sa_handler_fn fn, uint8_t method, uint32_t req, uint64_t mask,
    const uint8_t *rec, bool trusted, double now, struct sa_out *out)
{
	struct sa_ctx c = { .v = &V, .o = &O, .now = now, .state = ST };
	struct sa_req q = {
		.method = method, .attr = SA_ATTR_SERVICE_REC,
		.comp_mask = mask, .trusted = trusted, .rec = rec,
		.requester = req,
	};

	sa_out_init(out, SA_SERVICE_REC_SIZE, 0);
	return fn(&c, &q, out);
}

static unsigned
set(uint32_t req, uint64_t mask, const uint8_t *rec, double now,
    uint8_t *reply)
{
	struct sa_out out;
	unsigned st = call(sa_attr_service.set, 0x02, req, mask, rec, false,
	    now, &out);

	if (reply != NULL && out.n == 1)
		memcpy(reply, out.recs, SA_SERVICE_REC_SIZE);
	sa_out_fini(&out);
	return st;
}

static size_t
get(uint32_t req, uint64_t mask, const uint8_t *rec, bool trusted,
    double now, uint8_t *first)
{
	struct sa_out out;
	size_t n;

	ck_assert_uint_eq(call(sa_attr_service.get, 0x12, req, mask, rec,
	    trusted, now, &out), 0);
	n = out.n;
	if (first != NULL && n > 0)
		memcpy(first, out.recs, SA_SERVICE_REC_SIZE);
	sa_out_fini(&out);
	return n;
}

START_TEST(layout_and_set_get)
{
	uint8_t r[SA_SERVICE_REC_SIZE], reply[SA_SERVICE_REC_SIZE], q[176];

	make_rec(r, 0x1000000000000001ull, ca[0], 0xFFFF, 0xFFFFFFFF, "svc-a");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_PKEY | M_LEASE, r, 1,
	    reply), 0);
	/* the reply is the record, the key zeroed (untrusted) */
	ck_assert_uint_eq(get_be(reply, 8), 0x1000000000000001ull);
	ck_assert_uint_eq(get_be(reply + 16, 8), F.ports[ca[0]].guid);
	ck_assert_uint_eq(get_be(reply + 24, 2), 0xFFFF);
	ck_assert_uint_eq(get_be(reply + 28, 4), 0xFFFFFFFF);
	ck_assert_uint_eq(get_be(reply + 32, 8), 0);
	ck_assert_str_eq((char *)reply + 48, "svc-a");
	ck_assert_uint_eq(reply[112], 0x11);
	ck_assert_uint_eq(reply[175], 0x22);

	/* Get by name; by ID; nothing by another name */
	memset(q, 0, sizeof(q));
	strcpy((char *)q + 48, "svc-a");
	ck_assert_uint_eq(get(ca[1], M_NAME, q, false, 2, reply), 1);
	ck_assert_uint_eq(get_be(reply + 32, 8), 0);
	ck_assert_uint_eq(get(ca[1], M_NAME, q, true, 2, reply), 1);
	ck_assert_uint_eq(reply[32], 0xAB);     /* trusted: key kept */
	strcpy((char *)q + 48, "svc-b");
	ck_assert_uint_eq(get(ca[1], M_NAME, q, false, 2, NULL), 0);
	put_be(q, 0x1000000000000001ull, 8);
	ck_assert_uint_eq(get(ca[1], M_ID, q, false, 2, NULL), 1);
	ck_assert_uint_eq(get(ca[1], 0, q, false, 2, NULL), 1);
}
END_TEST

START_TEST(rid_update_and_defaults)
{
	uint8_t r[SA_SERVICE_REC_SIZE], reply[SA_SERVICE_REC_SIZE];

	make_rec(r, 7, ca[0], 0x1234, 60, "x");
	/* the RID (ID and GID) is required */
	ck_assert_uint_eq(set(ca[0], M_ID, r, 0, NULL), SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(set(ca[0], M_GID, r, 0, NULL), SA_STATUS_REQ_INVALID);
	/* no P_Key, no lease components: default key, infinite lease */
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID, r, 0, reply), 0);
	ck_assert_uint_eq(get_be(reply + 24, 2), 0xFFFF);
	ck_assert_uint_eq(get_be(reply + 28, 4), 0xFFFFFFFF);
	/* the same RID again replaces it */
	strcpy((char *)r + 48, "y");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID, r, 0, NULL), 0);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 0, reply), 1);
	ck_assert_str_eq((char *)reply + 48, "y");
	/* another P_Key is another record */
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_PKEY, r, 0, NULL), 0);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 0, NULL), 2);
	ck_assert_uint_eq(sa_attr_service.rec_size, 176);
}
END_TEST

START_TEST(delete)
{
	uint8_t r[SA_SERVICE_REC_SIZE];
	struct sa_out out;

	make_rec(r, 9, ca[1], 0xFFFF, 0xFFFFFFFF, "d");
	ck_assert_uint_eq(set(ca[1], M_ID | M_GID | M_PKEY, r, 0, NULL), 0);
	ck_assert_uint_eq(call(sa_attr_service.del, 0x15, ca[1],
	    M_ID | M_GID | M_PKEY, r, false, 0, &out), 0);
	ck_assert_uint_eq(out.n, 1);
	ck_assert_str_eq((char *)out.recs + 48, "d");
	sa_out_fini(&out);
	ck_assert_uint_eq(get(ca[1], 0, r, false, 0, NULL), 0);
	ck_assert_uint_eq(call(sa_attr_service.del, 0x15, ca[1],
	    M_ID | M_GID | M_PKEY, r, false, 0, &out), SA_STATUS_NO_RECORDS);
	sa_out_fini(&out);
	/* issue 22 point 3: the record's own fields name it, whatever the
	 * mask: a Set with mask 0x57, then a Delete with 0x40 (name only) */
	make_rec(r, 10, ca[1], 0xFFFF, 0xFFFFFFFF, "named");
	ck_assert_uint_eq(set(ca[1], M_ID | M_GID | M_PKEY | M_LEASE | M_NAME,
	    r, 0, NULL), 0);
	ck_assert_uint_eq(call(sa_attr_service.del, 0x15, ca[1], M_NAME, r,
	    false, 0, &out), 0);
	ck_assert_uint_eq(out.n, 1);
	sa_out_fini(&out);
	ck_assert_uint_eq(get(ca[1], 0, r, false, 0, NULL), 0);
	/* a Set without P_Key stored the default one; a Delete without it
	 * (data P_Key 0) finds that */
	make_rec(r, 11, ca[1], 0, 0xFFFFFFFF, "nokey");
	ck_assert_uint_eq(set(ca[1], M_ID | M_GID, r, 0, NULL), 0);
	ck_assert_uint_eq(call(sa_attr_service.del, 0x15, ca[1], 0, r, false,
	    0, &out), 0);
	sa_out_fini(&out);
	ck_assert_uint_eq(get(ca[1], 0, r, false, 0, NULL), 0);
}
END_TEST

/* Many records: every one found through the RID index (Get with ID, GID
 * and P_Key; Set replacing; Delete) after appends, deletes, lease expiry
 * and a port leaving moved them. */
#define MANY 3000
static bool
found(unsigned i, uint32_t port, const char *name, double now)
{
	uint8_t r[SA_SERVICE_REC_SIZE], reply[SA_SERVICE_REC_SIZE];
	size_t n;

	make_rec(r, 0x5000 + i, port, 0xFFFF, 0, "");
	n = get(ca[0], M_ID | M_GID | M_PKEY, r, false, now, reply);
	ck_assert_uint_le(n, 1);
	if (n == 1 && name != NULL)
		ck_assert_str_eq((char *)reply + 48, name);
	return n == 1;
}

START_TEST(rid_index_many)
{
	uint8_t r[SA_SERVICE_REC_SIZE];
	char name[32];
	struct sa_out out;
	struct fabric F3;
	struct sa_view V3;
	unsigned i;

	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		/* every fifth with a 10 s lease */
		make_rec(r, 0x5000 + i, ca[i % 4], 0xFFFF,
		    i % 5 == 0 ? 10 : 0xFFFFFFFF, name);
		ck_assert_uint_eq(set(ca[i % 4], M_ID | M_GID | M_PKEY |
		    M_LEASE, r, 0, NULL), 0);
	}
	ck_assert_uint_eq(get(ca[0], 0, r, false, 1, NULL), MANY);
	/* the same RID again: replaced, not added */
	make_rec(r, 0x5000 + 7, ca[3], 0xFFFF, 0xFFFFFFFF, "again");
	ck_assert_uint_eq(set(ca[3], M_ID | M_GID | M_PKEY | M_LEASE, r, 1,
	    NULL), 0);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 1, NULL), MANY);
	ck_assert(found(7, ca[3], "again", 1));
	/* the same ID on another port's GID is another RID */
	ck_assert(!found(7, ca[2], NULL, 1));
	/* delete every third (not the leased ones) */
	for (i = 1; i < MANY; i += 3) {
		if (i % 5 == 0)
			continue;
		make_rec(r, 0x5000 + i, ca[i % 4], 0xFFFF, 0, "");
		ck_assert_uint_eq(call(sa_attr_service.del, 0x15, ca[i % 4],
		    M_ID | M_GID | M_PKEY, r, false, 1, &out), 0);
		sa_out_fini(&out);
	}
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		ck_assert_uint_eq(found(i, ca[i % 4], i == 7 ? "again" : name,
		    2), !(i % 3 == 1 && i % 5 != 0));
	}
	/* the leases run out (the Get at 11 purges first) */
	for (i = 0; i < MANY; i++)
		ck_assert_uint_eq(found(i, ca[i % 4], NULL, 11),
		    !(i % 3 == 1 && i % 5 != 0) && i % 5 != 0);
	/* the fourth port leaves: its records go, the rest are found */
	fabric_init(&F3);
	{
		uint32_t sw = testfab_switch(&F3, 8), n;

		for (unsigned k = 0; k < 3; k++) {
			n = testfab_ca(&F3, 1);
			testfab_connect(&F3, sw, (uint8_t)(k + 1), n, 1);
		}
		testfab_lids(&F3);
	}
	V3 = V;
	V3.f = &F3;
	ck_assert_uint_eq(F3.ports[ca[2]].guid, F.ports[ca[2]].guid);
	sa_attr_service.view_changed(ST, &V, &V3);
	for (i = 0; i < MANY; i++)
		ck_assert_uint_eq(found(i, ca[i % 4], NULL, 12),
		    !(i % 3 == 1 && i % 5 != 0) && i % 5 != 0 && i % 4 != 3);
	sa_attr_service.view_changed(ST, &V3, &V);
	fabric_fini(&F3);
}
END_TEST

START_TEST(lease_fake_clock)
{
	uint8_t r[SA_SERVICE_REC_SIZE], reply[SA_SERVICE_REC_SIZE];

	make_rec(r, 1, ca[0], 0xFFFF, 10, "l");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 100, reply), 0);
	ck_assert_uint_eq(get_be(reply + 28, 4), 10);
	/* the lease left is what Get says */
	ck_assert_uint_eq(get(ca[0], 0, r, false, 104.5, reply), 1);
	ck_assert_uint_eq(get_be(reply + 28, 4), 6);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 109.9, NULL), 1);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 110.0, NULL), 0);
	/* a renewal (Set again) restarts it */
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 200, NULL), 0);
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 208, NULL), 0);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 215, NULL), 1);
	/* lease 0: gone at the next look */
	make_rec(r, 2, ca[0], 0xFFFF, 0, "z");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 300, NULL), 0);
	put_be(r, 2, 8);
	ck_assert_uint_eq(get(ca[0], M_ID, r, false, 300.001, NULL), 0);
}
END_TEST

START_TEST(lease_cap)
{
	uint8_t r[SA_SERVICE_REC_SIZE], reply[SA_SERVICE_REC_SIZE];

	O.service_lease = 30;
	make_rec(r, 1, ca[0], 0xFFFF, 0xFFFFFFFF, "c");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 0, reply), 0);
	ck_assert_uint_eq(get_be(reply + 28, 4), 30);
	make_rec(r, 2, ca[0], 0xFFFF, 20, "c");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_LEASE, r, 0, reply), 0);
	ck_assert_uint_eq(get_be(reply + 28, 4), 20);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 29, NULL), 1);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 31, NULL), 0);
}
END_TEST

static int expired_now;

static void
count_cb(void *arg, const struct sa_service_info *si)
{
	(void)si;
	(*(int *)arg)++;
}

static void
stop_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	expired_now = 1;
	ev_break(loop, EVBREAK_ALL);
}

START_TEST(lease_timer)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	void *st = sa_service_state_new(loop);
	uint8_t r[SA_SERVICE_REC_SIZE];
	struct sa_out out;
	struct sa_ctx c = { .v = &V, .o = &O, .state = st };
	struct sa_req q = { .method = 0x02, .comp_mask = M_ID | M_GID |
	    M_LEASE, .rec = r, .requester = ca[0] };
	ev_timer stop;
	int n = 0;

	sa_attr_service.view_changed(st, NULL, &V);
	make_rec(r, 1, ca[0], 0xFFFF, 1, "t");
	c.now = ev_now(loop);
	sa_out_init(&out, SA_SERVICE_REC_SIZE, 0);
	ck_assert_uint_eq(sa_attr_service.set(&c, &q, &out), 0);
	sa_out_fini(&out);
	sa_service_state_foreach(st, ev_now(loop), count_cb, &n);
	ck_assert_int_eq(n, 1);
	/* nothing asks: the module's own timer drops it */
	ev_timer_init(&stop, stop_cb, 1.3, 0.);
	ev_timer_start(loop, &stop);
	ev_run(loop, 0);
	n = 0;
	sa_service_state_foreach(st, ev_now(loop), count_cb, &n);
	ck_assert_int_eq(n, 0);
	sa_service_state_free(st);
	ev_loop_destroy(loop);
}
END_TEST

START_TEST(partition_scoping)
{
	uint8_t r[SA_SERVICE_REC_SIZE];

	with_pkeys();
	/* key 3: ca0 holds it fully, ca2 as a limited member */
	make_rec(r, 3, ca[0], 0x8003, 0xFFFFFFFF, "p3");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_PKEY, r, 0, NULL), 0);
	ck_assert_uint_eq(get(ca[0], 0, r, false, 0, NULL), 1);
	ck_assert_uint_eq(get(ca[2], 0, r, false, 0, NULL), 1);
	ck_assert_uint_eq(get(ca[1], 0, r, false, 0, NULL), 0);
	ck_assert_uint_eq(get(FABRIC_NONE, 0, r, false, 0, NULL), 0);
	/* a key the requester does not hold, or the service port lacks */
	ck_assert_uint_eq(set(ca[1], M_ID | M_GID | M_PKEY, r, 0, NULL),
	    SA_STATUS_REQ_INVALID);
	make_rec(r, 4, ca[1], 0x8003, 0xFFFFFFFF, "p3");
	ck_assert_uint_eq(set(ca[0], M_ID | M_GID | M_PKEY, r, 0, NULL),
	    SA_STATUS_REQ_INVALID);
	/* a requester the view does not know */
	ck_assert_uint_eq(set(FABRIC_NONE, M_ID | M_GID, r, 0, NULL),
	    SA_STATUS_REQ_INVALID);
	/* no valid key: visible to ports sharing with the service port */
	make_rec(r, 5, ca[2], 0, 0xFFFFFFFF, "nokey");
	ck_assert_uint_eq(set(ca[2], M_ID | M_GID | M_PKEY, r, 0, NULL),
	    SA_STATUS_REQ_INVALID);     /* key 0 is held by no one */
	ck_assert_uint_eq(set(ca[2], M_ID | M_GID, r, 0, NULL), 0);
	/* stored with the default key, so seen by 7fff holders only */
	put_be(r, 5, 8);
	ck_assert_uint_eq(get(ca[0], M_ID, r, false, 0, NULL), 1);
	ck_assert_uint_eq(get(ca[2], M_ID, r, false, 0, NULL), 0);
}
END_TEST

START_TEST(port_leaves)
{
	struct fabric F2;
	struct sa_view V2 = V;
	uint8_t r[SA_SERVICE_REC_SIZE];
	uint32_t sw, n;
	int k = 0;

	make_rec(r, 1, ca[3], 0xFFFF, 0xFFFFFFFF, "gone");
	ck_assert_uint_eq(set(ca[3], M_ID | M_GID, r, 0, NULL), 0);
	make_rec(r, 2, ca[1], 0xFFFF, 0xFFFFFFFF, "stays");
	ck_assert_uint_eq(set(ca[1], M_ID | M_GID, r, 0, NULL), 0);
	/* the same fabric without the fourth CA */
	fabric_init(&F2);
	sw = testfab_switch(&F2, 8);
	for (unsigned i = 0; i < 3; i++) {
		n = testfab_ca(&F2, 1);
		testfab_connect(&F2, sw, (uint8_t)(i + 1), n, 1);
	}
	testfab_lids(&F2);
	V2.f = &F2;
	sa_attr_service.view_changed(ST, &V, &V2);
	sa_service_state_foreach(ST, 0, count_cb, &k);
	ck_assert_int_eq(k, 1);
	ck_assert_uint_eq(get(FABRIC_NONE, 0, r, false, 0, r), 1);
	ck_assert_str_eq((char *)r + 48, "stays");
	sa_attr_service.view_changed(ST, &V2, &V);
	/* no view at all says nothing about ports: nothing dropped */
	sa_attr_service.view_changed(ST, &V, NULL);
	sa_attr_service.view_changed(ST, NULL, &V);
	k = 0;
	sa_service_state_foreach(ST, 0, count_cb, &k);
	ck_assert_int_eq(k, 1);
	fabric_fini(&F2);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("service");
	TCase *tc = tcase_create("service");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, layout_and_set_get);
	tcase_add_test(tc, rid_update_and_defaults);
	tcase_add_test(tc, delete);
	tcase_add_test(tc, lease_fake_clock);
	tcase_add_test(tc, lease_cap);
	tcase_add_test(tc, lease_timer);
	tcase_add_test(tc, partition_scoping);
	tcase_add_test(tc, port_leaves);
	tcase_add_test(tc, rid_index_many);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
