/*
 * sa/inform: InformInfo and Notice byte layouts, subscribe/unsubscribe,
 * InformInfoRecord, the matching rules, Reports of traps 64/65 on a view
 * change (sent through the MAD engine over the fake transport), their
 * retries and bounds, subscriptions of ports that leave.
 */
#include <check.h>
#include <errno.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "mad/mad.h"
#include "partitions/partitions.h"
#include "sa/inform.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/sa_stub.h"
#include "tests/unit/testfab.h"

#define PREFIX 0xFE80000000000000ull

static struct fabric F, F3;     /* four CAs; the same without the fourth */
static struct pkey_tables PK;
static struct sa_view V, V3;
static uint32_t ca[4];
static void *ST;
static struct ev_loop *loop;
static struct mad_engine *eng;

static void
build(struct fabric *f, unsigned ncas, uint32_t *ports)
{
	uint32_t sw, n;

	fabric_init(f);
	sw = testfab_switch(f, 8);
	for (unsigned i = 0; i < ncas; i++) {
		n = testfab_ca(f, 1);
		testfab_connect(f, sw, (uint8_t)(i + 1), n, 1);
		if (ports != NULL)
			ports[i] = fabric_port_idx(f, n, 1);
	}
	testfab_lids(f);
	f->sm_port = fabric_port_idx(f, sw + 1, 1);    /* the first CA */
}

static void
setup(void)
{
	struct mad_opts o = { .max_wire = 64, .max_per_node = 4,
	    .timeout_ms = 2000, .retries = 0 };

	build(&F, 4, ca);
	build(&F3, 3, NULL);
	memset(&PK, 0, sizeof(PK));
	memset(&V, 0, sizeof(V));
	V.f = &F;
	V.subnet_prefix = PREFIX;
	V.sm_lid = F.ports[F.sm_port].lid;
	V3 = V;
	V3.f = &F3;
	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, 0x1234, &o);
	ST = sa_inform_state_new(loop, eng);
	sa_stub_state[SA_ATTR_INFORM_INFO] = ST;
	sa_stub_view = &V;
	sa_attr_inform.view_changed(ST, NULL, &V);
}

static void
teardown(void)
{
	sa_inform_state_free(ST);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	if (PK.v != NULL)
		pkey_tables_free(&PK);
	fabric_fini(&F);
	fabric_fini(&F3);
	sa_stub_state[SA_ATTR_INFORM_INFO] = NULL;
}

static void
gid_of(uint8_t *gid, uint32_t port)
{
	uint64_t g = F.ports[port].guid;

	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(g >> (56 - 8 * i));
	}
}

static struct sa_inform
ii_trap(uint16_t trap, uint8_t subscribe)
{
	struct sa_inform ii = {
		.lid_begin = 0xFFFF, .is_generic = 1, .subscribe = subscribe,
		.type = 0xFFFF, .trap = trap, .producer = 0xFFFFFF,
	};

	return ii;
}

/* A Set(InformInfo) from port req, LID and QPN of the address given. */
static unsigned
subscribe(uint32_t req, uint32_t qpn, const struct sa_inform *ii,
    bool trusted, uint8_t *reply)
{
	uint8_t rec[40] = { 0 };
	struct sa_out out;
	struct sa_ctx c = { .v = &V, .state = ST };
	struct sa_req q = {
		.method = 0x02, .attr = SA_ATTR_INFORM_INFO, .trusted = trusted,
		.rec = rec, .requester = req,
		.from = { .lid = req == FABRIC_NONE ? 99 : F.ports[req].lid,
		    .qpn = qpn, .qkey = 0x80010000, .sl = 0 },
	};
	unsigned st;

	sa_inform_encode(ii, rec);
	sa_out_init(&out, 40, 0);
	st = sa_attr_inform.set(&c, &q, &out);
	ck_assert_uint_eq(out.n, 1);
	if (reply != NULL)
		memcpy(reply, out.recs, 40);
	sa_out_fini(&out);
	return st;
}

static size_t
records(uint32_t req, uint64_t mask, const uint8_t *want, uint8_t *first)
{
	uint8_t zero[64] = { 0 };
	struct sa_out out;
	struct sa_ctx c = { .v = &V, .state = NULL };
	struct sa_req q = { .method = 0x12, .attr = SA_ATTR_INFORM_INFO_REC,
	    .comp_mask = mask, .rec = want ? want : zero, .requester = req };
	size_t n;

	sa_out_init(&out, 64, 0);
	ck_assert_uint_eq(sa_attr_inform_rec.get(&c, &q, &out), 0);
	n = out.n;
	if (first != NULL && n > 0)
		memcpy(first, out.recs, 64);
	sa_out_fini(&out);
	return n;
}

START_TEST(inform_layout)
{
	struct sa_inform ii = {
		.lid_begin = 0x1234, .lid_end = 0x5678, .is_generic = 1,
		.subscribe = 1, .type = 0x0004, .trap = 0x0040,
		.qpn = 0xABCDEF, .resp_time = 0x13, .producer = 0x010203,
	}, back;
	uint8_t b[SA_INFORM_SIZE];
	static const uint8_t want[SA_INFORM_SIZE] = {
		[0] = 0xFE, [15] = 0x01,
		[16] = 0x12, 0x34, 0x56, 0x78, 0, 0, 1, 1, 0x00, 0x04,
		0x00, 0x40, 0xAB, 0xCD, 0xEF, 0x13, 0, 0x01, 0x02, 0x03,
	};

	ii.gid[0] = 0xFE;
	ii.gid[15] = 0x01;
	sa_inform_encode(&ii, b);
	ck_assert_mem_eq(b, want, SA_INFORM_SIZE);
	sa_inform_decode(want, &back);
	sa_inform_encode(&back, b);
	ck_assert_mem_eq(b, want, SA_INFORM_SIZE);
	ck_assert_uint_eq(back.qpn, 0xABCDEF);
	ck_assert_uint_eq(back.resp_time, 0x13);
	ck_assert_uint_eq(back.producer, 0x010203);
	ck_assert_uint_eq(sa_attr_inform.rec_size, 40);
	ck_assert_uint_eq(sa_attr_inform_rec.rec_size, 64);
}
END_TEST

START_TEST(notice_layout)
{
	struct sa_notice n = { .generic = true, .type = 4, .producer = 4,
	    .trap = 64, .issuer_lid = 0x0102, .toggle_count = 0x8003 }, back;
	uint8_t b[SA_NOTICE_SIZE];

	for (int i = 0; i < 16; i++) {
		n.details[6 + i] = (uint8_t)(0xA0 + i);
		n.issuer_gid[i] = (uint8_t)(0xC0 + i);
	}
	sa_notice_encode(&n, b);
	ck_assert_uint_eq(b[0], 0x84);          /* IsGeneric | type 4 */
	ck_assert_uint_eq(b[1], 0);
	ck_assert_uint_eq(b[2], 0);
	ck_assert_uint_eq(b[3], 4);             /* ProducerType */
	ck_assert_uint_eq(b[4], 0);
	ck_assert_uint_eq(b[5], 64);            /* TrapNumber */
	ck_assert_uint_eq(b[6], 1);
	ck_assert_uint_eq(b[7], 2);             /* IssuerLID */
	ck_assert_uint_eq(b[8], 0x80);          /* toggle, count 3 */
	ck_assert_uint_eq(b[9], 3);
	ck_assert_uint_eq(b[10], 0);            /* details: 6 reserved */
	ck_assert_uint_eq(b[16], 0xA0);         /* then the GID */
	ck_assert_uint_eq(b[31], 0xAF);
	ck_assert_uint_eq(b[64], 0xC0);         /* IssuerGID */
	ck_assert_uint_eq(b[79], 0xCF);
	sa_notice_decode(b, &back);
	ck_assert_mem_eq(&back, &n, sizeof(n));
}
END_TEST

START_TEST(subscribe_records_unsubscribe)
{
	struct sa_inform ii = ii_trap(64, 1);
	uint8_t reply[40], r[64], want[64] = { 0 }, gid[16];

	ck_assert_uint_eq(subscribe(ca[1], 0x55, &ii, false, reply), 0);
	ck_assert_uint_eq(reply[23], 1);                /* Subscribe echoed */
	/* the record: SubscriberGID, Enum 0, the InformInfo with its QPN */
	ck_assert_uint_eq(records(ca[0], 0, NULL, r), 1);
	gid_of(gid, ca[1]);
	ck_assert_mem_eq(r, gid, 16);
	ck_assert_uint_eq(r[16] << 8 | r[17], 0);
	ck_assert_uint_eq(r[24 + 26] << 8 | r[24 + 27], 64);
	ck_assert_uint_eq(r[24 + 28] << 16 | r[24 + 29] << 8 | r[24 + 30],
	    0x55);
	/* the same again is one subscription; another trap a second */
	ck_assert_uint_eq(subscribe(ca[1], 0x55, &ii, false, NULL), 0);
	ck_assert_uint_eq(records(ca[0], 0, NULL, NULL), 1);
	ii.trap = 65;
	ck_assert_uint_eq(subscribe(ca[1], 0x55, &ii, false, NULL), 0);
	ck_assert_uint_eq(records(ca[0], 0, NULL, NULL), 2);
	/* by Enum 1 (component 1) */
	want[17] = 1;
	ck_assert_uint_eq(records(ca[0], 1u << 1, want, r), 1);
	ck_assert_uint_eq(r[24 + 27], 65);
	/* by SubscriberGID (component 0): another port has none */
	gid_of(want, ca[2]);
	ck_assert_uint_eq(records(ca[0], 1u << 0, want, NULL), 0);
	/* unsubscribe; twice is an error with Subscribe 0 in the reply */
	ii.subscribe = 0;
	ck_assert_uint_eq(subscribe(ca[1], 0x55, &ii, false, NULL), 0);
	ck_assert_uint_eq(records(ca[0], 0, NULL, NULL), 1);
	ck_assert_uint_eq(subscribe(ca[1], 0x55, &ii, false, reply),
	    SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(reply[23], 0);
}
END_TEST

START_TEST(subscribe_rules)
{
	struct sa_inform ii = ii_trap(256, 1);
	uint8_t reply[40];

	/* security traps need a trusted requester */
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, reply),
	    SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(reply[23], 0);
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, true, NULL), 0);
	ii.trap = 259;
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	ii.trap = 260;
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL), 0);
	/* Subscribe above 1; an unknown requester */
	ii = ii_trap(64, 2);
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	ii.subscribe = 1;
	ck_assert_uint_eq(subscribe(FABRIC_NONE, 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	/* a GID no port has */
	ii.gid[0] = 0xFE;
	ii.gid[15] = 0x77;
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	/* a bound per port */
	for (unsigned i = 0; i < SA_INFORM_MAX_PER_PORT; i++) {
		ii = ii_trap((uint16_t)(1000 + i), 1);
		ck_assert_uint_eq(subscribe(ca[2], 1, &ii, false, NULL), 0);
	}
	ii = ii_trap(2000, 1);
	ck_assert_uint_eq(subscribe(ca[2], 1, &ii, false, NULL),
	    SA_STATUS_NO_RESOURCES);
}
END_TEST

static void
set_keys(unsigned i, uint32_t port, uint16_t k0)
{
	struct pkey_table *t = &PK.v[i];

	t->guid = F.ports[port].guid;
	t->port = port;
	t->num = F.ports[port].num;
	t->kind = PKEY_TABLE_PORT;
	t->cap = 1;
	t->keys = calloc(1, sizeof(*t->keys));
	t->keys[0] = k0;
}

START_TEST(subscribe_partitions)
{
	struct sa_inform ii = ii_trap(64, 1);

	PK.n = 4;
	PK.v = calloc(4, sizeof(*PK.v));
	set_keys(0, ca[0], 0xFFFF);
	set_keys(1, ca[1], 0x8001);
	set_keys(2, ca[2], 0x8001);
	set_keys(3, ca[3], 0x8002);
	pkey_tables_sort(&PK);
	V.pk = &PK;
	/* watching ca3 by GID from ca1: no shared partition */
	gid_of(ii.gid, ca[3]);
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	gid_of(ii.gid, ca[2]);
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL), 0);
	/* a LID range over ca2 and ca3 */
	ii = ii_trap(64, 1);
	ii.lid_begin = F.ports[ca[2]].lid;
	ii.lid_end = F.ports[ca[3]].lid;
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL),
	    SA_STATUS_REQ_INVALID);
	ii.lid_end = 0;         /* ca2 alone */
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL), 0);
	/* records of ca1's subscriptions: not for ca3 */
	ck_assert_uint_eq(records(ca[2], 0, NULL, NULL), 2);
	ck_assert_uint_eq(records(ca[3], 0, NULL, NULL), 0);
}
END_TEST

/* Run the loop until nothing more happens for a while. */
static void
settle(void)
{
	for (int i = 0; i < 20; i++) {
		ev_run(loop, EVRUN_NOWAIT);
		ev_sleep(0.002);
		ev_now_update(loop);
	}
	ev_run(loop, EVRUN_NOWAIT);
}

/* Answer sent MAD i with a ReportResp. */
static void
report_resp(size_t i)
{
	const struct fake_mad *m = fake_sent(i);
	uint8_t resp[256];
	struct transport_addr from = m->to;

	memcpy(resp, m->mad, sizeof(resp));
	mad_set_method(resp, MAD_REPORTRESP);
	fake_deliver_from(resp, sizeof(resp), 0, &from);
}

static const uint8_t *
reported_gid(size_t i, uint16_t *trap)
{
	const uint8_t *m = fake_sent(i)->mad;

	ck_assert_uint_eq(m[1], MGMT_CLASS_SA);
	ck_assert_uint_eq(m[2], 2);
	ck_assert_uint_eq(mad_method_of(m), MAD_REPORT);
	ck_assert_uint_eq(mad_get_field((void *)m, 0, IB_MAD_ATTRID_F),
	    SA_ATTR_NOTICE);
	*trap = (uint16_t)(m[56 + 4] << 8 | m[56 + 5]);
	return m + 56 + 16;
}

static struct sa_stats
stats(void)
{
	struct sa_stats s;

	memset(&s, 0, sizeof(s));
	sa_inform_state_stats(ST, &s);
	return s;
}

START_TEST(reports_64_65)
{
	struct sa_inform ii = ii_trap(65, 1);
	uint8_t gid[16];
	uint16_t trap;
	size_t base;

	ck_assert_uint_eq(subscribe(ca[1], 0x77, &ii, false, NULL), 0);
	ii.trap = 64;
	ck_assert_uint_eq(subscribe(ca[1], 0x77, &ii, false, NULL), 0);
	/* the fourth CA leaves: trap 65 with its GID, to ca1's LID/QPN */
	base = fake_nsent();
	sa_attr_inform.view_changed(ST, &V, &V3);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 1);
	gid_of(gid, ca[3]);
	ck_assert_mem_eq(reported_gid(base, &trap), gid, 16);
	ck_assert_uint_eq(trap, 65);
	ck_assert_uint_eq(fake_sent(base)->to.lid, F.ports[ca[1]].lid);
	ck_assert_uint_eq(fake_sent(base)->to.qpn, 0x77);
	ck_assert_uint_eq(fake_sent(base)->mad[56 + 6] << 8 |
	    fake_sent(base)->mad[56 + 7], V.sm_lid);      /* IssuerLID */
	report_resp(base);
	settle();
	ck_assert_uint_eq(stats().reports_acked, 1);
	/* and comes back: trap 64 */
	sa_attr_inform.view_changed(ST, &V3, &V);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 2);
	ck_assert_mem_eq(reported_gid(base + 1, &trap), gid, 16);
	ck_assert_uint_eq(trap, 64);
	report_resp(base + 1);
	settle();
	ck_assert_uint_eq(stats().reports_sent, 2);
	ck_assert_uint_eq(stats().reports_acked, 2);
	ck_assert_uint_eq(stats().reports_failed, 0);
	/* the same view again: nothing to tell */
	sa_attr_inform.view_changed(ST, &V, &V);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 2);
}
END_TEST

START_TEST(report_retried_then_failed)
{
	struct sa_inform ii = ii_trap(65, 1);
	struct mad_opts o = { .max_wire = 64, .max_per_node = 4,
	    .timeout_ms = 5, .retries = 0 };
	size_t base;

	mad_engine_set_opts(eng, &o);
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL), 0);
	base = fake_nsent();
	sa_attr_inform.view_changed(ST, &V, &V3);
	for (int i = 0; i < 50 && stats().reports_failed == 0; i++)
		settle();
	/* SA_REPORT_ROUNDS rounds of one attempt each (retries 0) */
	ck_assert_uint_eq(fake_nsent(), base + SA_REPORT_ROUNDS);
	ck_assert_uint_eq(stats().reports_failed, 1);
	ck_assert_uint_eq(stats().reports_acked, 0);
}
END_TEST

START_TEST(matching)
{
	struct sa_inform ii = ii_trap(0xFFFF, 1);
	struct sa_notice n = { .generic = true, .type = 4, .producer = 4,
	    .trap = 128, .issuer_lid = 3 };
	size_t base = fake_nsent();

	/* any trap from LIDs 2-4, type 1 only, vendor notices */
	ii.lid_begin = 2;
	ii.lid_end = 4;
	ck_assert_uint_eq(subscribe(ca[0], 1, &ii, false, NULL), 0);
	ii.type = 1;
	ck_assert_uint_eq(subscribe(ca[1], 1, &ii, false, NULL), 0);
	ii = ii_trap(0xFFFF, 1);
	ii.is_generic = 0;
	ck_assert_uint_eq(subscribe(ca[2], 1, &ii, false, NULL), 0);
	/* issuer GID = a switch's port: partition check passes (no pk) */
	sa_inform_state_notice(ST, &V, &n);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 1);
	ck_assert_uint_eq(fake_sent(base)->to.lid, F.ports[ca[0]].lid);
	n.issuer_lid = 5;
	sa_inform_state_notice(ST, &V, &n);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 1);
	n.generic = false;
	sa_inform_state_notice(ST, &V, &n);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 2);
	ck_assert_uint_eq(fake_sent(base + 1)->to.lid, F.ports[ca[2]].lid);
}
END_TEST

/* A trap in an SMP (64 bytes, no IssuerGID): generic, type 4, producer
 * 1 (CA), the trap number, IssuerLID, a detail byte. */
static void
smp_notice(uint8_t *b, uint16_t trap, uint16_t issuer)
{
	memset(b, 0, SA_NOTICE_SMP_SIZE);
	mad_set_field(b, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(b, 0, IB_NOTICE_TYPE_F, 4);
	mad_set_field(b, 0, IB_NOTICE_PRODUCER_F, 1);
	mad_set_field(b, 0, IB_NOTICE_TRAP_NUMBER_F, trap);
	mad_set_field(b, 0, IB_NOTICE_ISSUER_LID_F, issuer);
	b[16 + 9] = 0x5A;       /* trap 144: a CapabilityMask byte */
}

/* Traps the SM receives go to the subscribers asking for them, with the
 * IssuerGID of the source port (OpenSM: of the port at the SLID); not
 * 129-131, not from an unknown LID. */
START_TEST(traps_forwarded)
{
	struct sa_inform ii = ii_trap(144, 1);
	uint8_t b[SA_NOTICE_SMP_SIZE], gid[16];
	const uint8_t *m;
	uint16_t lid2 = F.ports[ca[2]].lid;
	size_t base;

	ck_assert_uint_eq(subscribe(ca[1], 0x66, &ii, false, NULL), 0);
	ii = ii_trap(0xFFFF, 1);        /* every trap */
	ck_assert_uint_eq(subscribe(ca[3], 0x67, &ii, false, NULL), 0);
	base = fake_nsent();
	smp_notice(b, 144, lid2);
	sa_inform_state_trap(ST, &V, b, lid2);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 2);
	for (size_t i = base; i < base + 2; i++) {
		m = fake_sent(i)->mad;
		ck_assert_uint_eq(mad_method_of(m), MAD_REPORT);
		ck_assert_uint_eq(m[56 + 4] << 8 | m[56 + 5], 144);
		ck_assert_uint_eq(m[56 + 6] << 8 | m[56 + 7], lid2);
		ck_assert_uint_eq(m[56 + 16 + 9], 0x5A);
		gid_of(gid, ca[2]);
		ck_assert_mem_eq(m + 56 + 64, gid, 16);    /* IssuerGID */
	}
	ck_assert(fake_sent(base)->to.lid == F.ports[ca[1]].lid ||
	    fake_sent(base + 1)->to.lid == F.ports[ca[1]].lid);
	ck_assert(fake_sent(base)->to.lid == F.ports[ca[3]].lid ||
	    fake_sent(base + 1)->to.lid == F.ports[ca[3]].lid);
	/* another trap: only the subscriber of every trap */
	smp_notice(b, 128, lid2);
	sa_inform_state_trap(ST, &V, b, lid2);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 3);
	ck_assert_uint_eq(fake_sent(base + 2)->to.lid, F.ports[ca[3]].lid);
	/* from this node (SLID 0): the SM's port is the issuer */
	sa_inform_state_trap(ST, &V, b, 0);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 4);
	gid_of(gid, F.sm_port);
	ck_assert_mem_eq(fake_sent(base + 3)->mad + 56 + 64, gid, 16);
	/* not forwarded: 129-131, an unknown source */
	for (uint16_t t = 129; t <= 131; t++) {
		smp_notice(b, t, lid2);
		sa_inform_state_trap(ST, &V, b, lid2);
	}
	smp_notice(b, 144, 999);
	sa_inform_state_trap(ST, &V, b, 999);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 4);
}
END_TEST

START_TEST(subscriber_leaves)
{
	struct sa_inform ii = ii_trap(64, 1);
	size_t base;

	ck_assert_uint_eq(subscribe(ca[3], 1, &ii, false, NULL), 0);
	ck_assert_uint_eq(subscribe(ca[0], 1, &ii, false, NULL), 0);
	/* no view says nothing: both kept */
	sa_attr_inform.view_changed(ST, &V, NULL);
	sa_attr_inform.view_changed(ST, NULL, &V);
	ck_assert_uint_eq(records(FABRIC_NONE, 0, NULL, NULL), 2);
	sa_attr_inform.view_changed(ST, &V, &V3);
	ck_assert_uint_eq(records(FABRIC_NONE, 0, NULL, NULL), 1);
	ck_assert_uint_eq(stats().subscriptions, 1);
	/* comes back: ca0 hears of it, ca3 subscribes anew */
	base = fake_nsent();
	sa_attr_inform.view_changed(ST, &V3, &V);
	settle();
	ck_assert_uint_eq(fake_nsent(), base + 1);
	ck_assert_uint_eq(fake_sent(base)->to.lid, F.ports[ca[0]].lid);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("inform");
	TCase *tc = tcase_create("inform");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, inform_layout);
	tcase_add_test(tc, notice_layout);
	tcase_add_test(tc, subscribe_records_unsubscribe);
	tcase_add_test(tc, subscribe_rules);
	tcase_add_test(tc, subscribe_partitions);
	tcase_add_test(tc, reports_64_65);
	tcase_add_test(tc, report_retried_then_failed);
	tcase_add_test(tc, matching);
	tcase_add_test(tc, subscriber_leaves);
	tcase_add_test(tc, traps_forwarded);
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
