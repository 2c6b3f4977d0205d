/*
 * sa/sa: the agent's rules, driven through the MAD engine's listener over
 * the in-memory transport (a request delivered as the wire would, the
 * answer read from what was sent), and the component-mask matching of
 * each read-only record kind.
 *
 * Requests and answers are read and written at the byte offsets of the
 * SA MAD (IBA 13.4 and 15.2.1) and of the records as OpenSM's
 * include/iba/ib_types.h lays them out (ib_node_record_t,
 * ib_portinfo_record_t, ib_link_record_t, ib_lft_record_t,
 * ib_guidinfo_record_t, ib_switch_info_record_t) and with its component
 * bits (IB_NR_COMPMASK_*, IB_PIR_COMPMASK_*, ...), not with the agent's
 * own helpers, so that a wrong offset in sa/ shows.
 *
 * The attribute list is this suite's own (sa_attrs below, in place of
 * sa/attrs.c): the read-only records, and two test attributes that
 * answer Set, Delete and GetMulti, which no read-only record does.
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/devtab.h"
#include "core/fabric.h"
#include "core/lft.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mcast/tree.h"
#include "partitions/partitions.h"
#include "sa/attr.h"
#include "sa/guidinfo.h"
#include "sa/records.h"
#include "sa/sa.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/testfab.h"

/* ---- a test attribute: 8-byte records, Set and Delete echo the record,
 * Get answers as many records as the record's first byte says */
#define TEST_ATTR 0xFF10

static unsigned
test_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	(void)c;
	for (unsigned i = 0; i < q->rec[0] && !sa_out_full(out); i++)
		sa_out_add(out)[7] = (uint8_t)i;
	/* 0xEE: fail after the records (as a handler saying "this record,
	 * and an error") */
	return q->rec[1] == 0xEE ? SA_STATUS_REQ_INVALID : SA_STATUS_OK;
}

/* Set/Delete echo the record; 0xDD: dropped; 0xEE: REQ_INVALID with the
 * record's byte 2 cleared (InformInfo's Subscribe 0); 0xEF: REQ_INVALID
 * with no record. */
static unsigned
test_echo(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	uint8_t *r;

	(void)c;
	if (q->rec[1] == 0xEF)
		return SA_STATUS_REQ_INVALID;
	r = sa_out_add(out);
	memcpy(r, q->rec, 8);
	if (q->rec[1] == 0xEE) {
		r[2] = 0;
		return SA_STATUS_REQ_INVALID;
	}
	return q->rec[1] == 0xDD ? SA_STATUS_DROP : SA_STATUS_OK;
}

static const struct sa_attr test_attr = {
	.id = TEST_ATTR, .name = "TestRecord", .rec_size = 8,
	.get = test_get, .set = test_echo, .del = test_echo,
};
static const struct sa_attr test_multipath = {
	.id = SA_ATTR_MULTIPATH_REC, .name = "MultiPathRecord",
	.rec_size = 64, .get = test_get,
};

const struct sa_attr *const sa_attrs[] = {
	&sa_attr_classport, &sa_attr_node, &sa_attr_portinfo,
	&sa_attr_sminfo, &sa_attr_link, &sa_attr_switchinfo, &sa_attr_lft,
	&sa_attr_mft, &sa_attr_pkey, &sa_attr_guidinfo, &sa_attr_sl2vl,
	&sa_attr_vlarb, &test_attr, &test_multipath, NULL
};

/*
 * The fabric: switch A (8 ports, LID 1), switch B (4 ports, LID 2), A
 * port 8 to B port 1; CA c0 on A port 1 (LID 3, the requester), c1 on A
 * port 2 (LID 4), c2 on B port 2 (LID 5).
 */
#define SELF_GUID 0x77ULL
#define LID_A 1
#define LID_B 2
#define LID_C0 3
#define LID_C1 4
#define LID_C2 5
#define NENDPORTS 5

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct sa *sa;
static struct fabric F;
static struct lft_set L;
static struct sa_sm sms[1];
static struct sa_view V;
static uint32_t node_a, node_b, c[3];
static uint64_t tid = 0x100;

/* PortInfo as read: LID, CapabilityMask, LinkWidthActive, GUIDCap. */
static void
set_info(uint32_t p, uint16_t lid, uint8_t width)
{
	struct fabric_port *port = &F.ports[p];

	port->info_valid = 1;
	port->state = PORT_ACTIVE;
	mad_set_field(port->info, 0, IB_PORT_LID_F, lid);
	mad_set_field(port->info, 0, IB_PORT_CAPMASK_F, 0x0200);
	mad_set_field(port->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, width);
	mad_set_field(port->info, 0, IB_PORT_GUID_CAP_F, 1);
	mad_set_field(port->info, 0, IB_PORT_LOCAL_PORT_F, port->num);
	mad_set_field64(port->info, 0, IB_PORT_MKEY_F, 0x1122334455667788ULL);
}

static void
set_node_info(uint32_t n)
{
	struct fabric_node *node = &F.nodes[n];

	mad_set_field(node->node_info, 0, IB_NODE_BASE_VERS_F, 1);
	mad_set_field(node->node_info, 0, IB_NODE_CLASS_VERS_F, 1);
	mad_set_field(node->node_info, 0, IB_NODE_TYPE_F, node->type);
	mad_set_field(node->node_info, 0, IB_NODE_NPORTS_F, node->nports);
	mad_set_field64(node->node_info, 0, IB_NODE_GUID_F, node->guid);
	mad_set_field64(node->node_info, 0, IB_NODE_SYSTEM_GUID_F,
	    node->guid);
	snprintf(node->desc, sizeof(node->desc), "node %u", n);
	node->desc_valid = 1;
	if (node->type == NODE_SWITCH) {
		node->sw_info_valid = 1;
		mad_set_field(node->sw_info, 0, IB_SW_LINEAR_FDB_CAP_F,
		    0xC000 + n);
	}
}

static void
build_fabric(void)
{
	uint32_t n, p;
	unsigned i;

	fabric_init(&F);
	node_a = testfab_switch(&F, 8);
	node_b = testfab_switch(&F, 4);
	testfab_connect(&F, node_a, 8, node_b, 1);
	for (i = 0; i < 3; i++) {
		n = testfab_ca(&F, 1);
		testfab_connect(&F, i < 2 ? node_a : node_b,
		    (uint8_t)(i < 2 ? i + 1 : 2), n, 1);
		c[i] = fabric_port_idx(&F, n, 1);
	}
	testfab_lids(&F);
	for (n = 0; n < F.nnodes; n++) {
		set_node_info(n);
		for (i = 0; i <= F.nodes[n].nports; i++) {
			p = fabric_port_idx(&F, n, (uint8_t)i);
			if (F.nodes[n].type == NODE_SWITCH)
				F.ports[p].guid = F.nodes[n].guid;
			if (F.nodes[n].type == NODE_CA && i == 0)
				continue;
			/* widths differ per port: 1x on switch ports, 4x
			 * on CAs, so that a record shows whose it is */
			set_info(p, F.ports[F.nodes[n].type == NODE_SWITCH ?
			    F.nodes[n].port0 : p].lid,
			    F.nodes[n].type == NODE_SWITCH ? 1 : 2);
		}
	}
	F.sm_port = c[0];
	ck_assert_uint_eq(F.ports[F.nodes[node_a].port0].lid, LID_A);
	ck_assert_uint_eq(F.ports[F.nodes[node_b].port0].lid, LID_B);
	ck_assert_uint_eq(F.ports[c[0]].lid, LID_C0);
	ck_assert_uint_eq(F.ports[c[1]].lid, LID_C1);
	ck_assert_uint_eq(F.ports[c[2]].lid, LID_C2);
	/* Every LID routed: dlid d leaves switch sw by port 10 * sw + d. */
	ck_assert_int_eq(lft_set_init(&L, &F), 0);
	for (uint32_t sw = 0; sw < L.nsw; sw++)
		for (unsigned d = 0; d <= L.max_lid; d++)
			((uint8_t *)lft_row(&L, sw))[d] = (uint8_t)(10 * sw + d);
}

/* Switch A's multicast table, as sm/ would hand it to the SA: MLID
 * 0xC021 (block 1, index 1) on ports 1, 2 and 8. */
static struct mcast_mft MFT_A;
#define MFT_A_MLID 0xC021
#define MFT_A_MASK 0x0106

static const struct mcast_mft *
test_mcast_mft(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == F.nodes[node_a].guid ? &MFT_A : NULL;
}

static void
setup(void)
{
	struct mad_opts mo = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = 100, .retries = 1 };
	struct sa_opts so = { .sa_key = 1, .subnet_timeout = 18,
	    .mcast_mft = test_mcast_mft };

	build_fabric();
	mcast_mft_init(&MFT_A, 8);
	mcast_mft_set(&MFT_A, MFT_A_MLID, 0, MFT_A_MASK);
	loop = ev_loop_new(EVFLAG_AUTO);
	ck_assert_ptr_nonnull(loop);
	eng = mad_engine_new(loop, SELF_GUID, &mo);
	ck_assert_ptr_nonnull(eng);
	sa = sa_new(loop, eng, &so);
	ck_assert_int_eq(sa_start(sa), 0);
	sms[0] = (struct sa_sm){ .lid = LID_C0, .guid = F.ports[c[0]].guid,
	    .sm_key = 0xABCD, .priority = 5, .state = 3 };
	V = (struct sa_view){ .f = &F, .lft = &L, .subnet_prefix =
	    0xfe80000000000000ULL, .sm_lid = LID_C0, .sms = sms, .nsms = 1 };
	sa_set_view(sa, &V);
	sa_set_serving(sa, true);
	fake_reset();
}

static void
teardown(void)
{
	sa_free(sa);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	lft_set_fini(&L);
	mcast_mft_fini(&MFT_A);
	fabric_fini(&F);
}

/* ---- the wire, by hand */

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void
put64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint16_t
get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint64_t
get64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/* An SA request: common header (base version 1, class 3, class version,
 * method, TID 8-15, attribute 16-17, modifier 20-23), SM_Key 36-43,
 * ComponentMask 48-55, the record from 56. */
static void
req(uint8_t *m, uint8_t version, uint8_t method, uint16_t attr,
    uint64_t smkey, uint64_t mask, const uint8_t *rec, size_t reclen)
{
	memset(m, 0, TRANSPORT_MAD_SIZE);
	m[0] = 1;
	m[1] = 0x03;
	m[2] = version;
	m[3] = method;
	put64(m + 8, tid++);
	put16(m + 16, attr);
	put64(m + 36, smkey);
	put64(m + 48, mask);
	if (rec != NULL)
		memcpy(m + 56, rec, reclen);
}

static const struct transport_addr from_c0 = { .lid = LID_C0, .qpn = 1,
    .qkey = TRANSPORT_QKEY_GSI };

/* Deliver through the engine; the reply (NULL: none) and its length. */
static const uint8_t *
ask_from(const uint8_t *m, const struct transport_addr *from, size_t *len)
{
	size_t n0 = fake_nsent();

	fake_deliver_from(m, TRANSPORT_MAD_SIZE, 0, from);
	ck_assert_uint_le(fake_nsent(), n0 + 1);
	if (fake_nsent() == n0)
		return NULL;
	if (len != NULL)
		*len = fake_sent(n0)->len;
	return fake_sent_bytes(n0);
}

static const uint8_t *
ask(uint8_t method, uint16_t attr, uint64_t smkey, uint64_t mask,
    const uint8_t *rec, size_t reclen, size_t *len)
{
	uint8_t m[TRANSPORT_MAD_SIZE];

	req(m, 2, method, attr, smkey, mask, rec, reclen);
	return ask_from(m, &from_c0, len);
}

static uint16_t
status_of(const uint8_t *r)
{
	return get16(r + 4);
}

static uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3];
}

/* RMPP PayloadLength (32-35): the SA header after the RMPP header (20
 * bytes) and the records. */
static uint32_t
payload(const uint8_t *r)
{
	return get32(r + 32);
}

/* Records in a GetTable answer of len bytes, rec_size each: RMPP ACTIVE,
 * AttributeOffset (44-45) the record size in 8-byte words, all of them
 * in the one buffer written (the kernel segments it). */
static size_t
nrecs(const uint8_t *r, size_t len, size_t rec_size)
{
	uint32_t pay = payload(r);

	ck_assert_uint_eq(r[26] & 1, 1);
	ck_assert_uint_eq(get16(r + 44), rec_size / 8);
	ck_assert_uint_ge(pay, 20);
	ck_assert_uint_eq((pay - 20) % rec_size, 0);
	ck_assert_uint_eq(len, 36 + pay);       /* the whole table, exactly */
	return (pay - 20) / rec_size;
}

static struct sa_stats
stats(void)
{
	struct sa_stats st;

	sa_get_stats(sa, &st);
	return st;
}

/* ---- the agent's rules */

START_TEST(gid_split_and_made)
{
	static const uint8_t want[16] = {
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x0b, 0x0c };
	uint8_t gid[16];

	memset(gid, 0x55, sizeof(gid));
	sa_gid_make(gid, 0xfe80000000000001ULL, 0x0002c903000a0b0cULL);
	ck_assert_mem_eq(gid, want, 16);
	ck_assert_uint_eq(sa_gid_prefix(want), 0xfe80000000000001ULL);
	ck_assert_uint_eq(sa_gid_guid(want), 0x0002c903000a0b0cULL);
}
END_TEST

START_TEST(get_none_is_no_records)
{
	uint8_t rec[112] = { 0 };
	const uint8_t *r;

	put16(rec, 99);
	r = ask(MAD_GET, SA_ATTR_NODE_REC, 0, 1u << 0, rec, sizeof(rec),
	    NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x81);
	ck_assert_uint_eq(status_of(r), 0x0300);
	ck_assert_uint_eq(get16(r + 44), 0);
	ck_assert_uint_eq(stats().errors, 1);
	/* counted by attribute and status (ibsmd_sa_answers_by_attribute) */
	ck_assert_uint_eq(stats().nanswers, 1);
	ck_assert_uint_eq(stats().answers[0].attr, SA_ATTR_NODE_REC);
	ck_assert_uint_eq(stats().answers[0].status, 0x0300);
	ck_assert_uint_eq(stats().answers[0].n, 1);
}
END_TEST

START_TEST(get_several_is_too_many)
{
	const uint8_t *r;

	r = ask(MAD_GET, SA_ATTR_NODE_REC, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x81);
	ck_assert_uint_eq(status_of(r), 0x0400);
}
END_TEST

START_TEST(gettable_none_is_empty)
{
	uint8_t rec[112] = { 0 };
	const uint8_t *r;
	size_t len;

	put16(rec, 99);
	r = ask(MAD_GETTABLE, SA_ATTR_NODE_REC, 0, 1u << 0, rec, sizeof(rec),
	    &len);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x92);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(get16(r + 44), 0);            /* AttributeOffset */
	ck_assert_uint_eq(len, 56);     /* the header alone: no padding */
	ck_assert_uint_eq(r[26] & 1, 1);                /* RMPP ACTIVE */
	ck_assert_uint_eq(payload(r), 20);           /* no records */
	ck_assert_uint_eq(stats().errors, 0);
}
END_TEST

START_TEST(gettable_error_has_offset_0)
{
	const uint8_t *r;

	/* P_KeyTableRecord untrusted (SM_Key 0, sa_key 1): REQ_INVALID */
	r = ask(MAD_GETTABLE, SA_ATTR_PKEY_REC, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x92);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(get16(r + 44), 0);
	ck_assert_uint_eq(r[26] & 1, 0);                /* one MAD, no RMPP */
	ck_assert_uint_eq(stats().errors, 1);
}
END_TEST

START_TEST(gettable_is_rmpp_active)
{
	const uint8_t *r;
	size_t len;

	r = ask(MAD_GETTABLE, SA_ATTR_NODE_REC, 1, 0, NULL, 0, &len);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x92);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(r[24], 1);                    /* RMPP version */
	ck_assert_uint_eq(r[25], 1);                    /* DATA */
	ck_assert_uint_eq(r[26] & 1, 1);                /* ACTIVE */
	ck_assert_uint_eq(get16(r + 44), 112 / 8);
	ck_assert_uint_eq(len, 56 + NENDPORTS * 112);   /* written whole */
	ck_assert_uint_eq(payload(r), 20 + NENDPORTS * 112);
	ck_assert_uint_eq(get64(r + 36), 0);            /* SM_Key 0 */
	ck_assert_uint_eq(stats().answered, 1);
}
END_TEST

/* Issue 22 point 2: every request of the class is answered, an
 * unsupported pair at once with the proper status, never left to the
 * requester's timeout (OpenSM drops some of these). */
START_TEST(set_read_only_answered)
{
	uint8_t rec[112] = { 0 };
	const uint8_t *r;
	struct sa_stats st;

	put16(rec, LID_C1);
	r = ask(MAD_SET, SA_ATTR_NODE_REC, 0, 1, rec, sizeof(rec), NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], MAD_GETRESP);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	r = ask(MAD_DELETE, SA_ATTR_LINK_REC, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], MAD_DELETERESP);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	/* GetMulti is MultiPathRecord's only */
	r = ask(MAD_GETMULTI, SA_ATTR_NODE_REC, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], MAD_GETMULTIRESP);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	/* InformInfo is Set only */
	r = ask(MAD_GET, SA_ATTR_INFORM_INFO, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	st = stats();
	ck_assert_uint_eq(st.unsupported, 4);
	ck_assert_uint_eq(st.answered, 4);
}
END_TEST

START_TEST(unknown_attr_or_method_answered)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct transport_rx rx = { .mad = m, .len = sizeof(m),
	    .from = from_c0 };
	const uint8_t *r;

	/* RandomForwardingTableRecord is not served; 0x0099 is nothing */
	r = ask(MAD_GET, SA_ATTR_RFT_REC, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	r = ask(MAD_GETTABLE, 0x0099, 0, 0, NULL, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], MAD_GETTABLERESP);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_ATTR_UNSUPP);
	ck_assert_uint_eq(get16(r + 44), 0);    /* AttributeOffset */
	/* GetTraceTable (0x13) serves nothing: method unsupported */
	req(m, 2, MAD_GETTRACETABLE, SA_ATTR_NODE_REC, 0, 0, NULL, 0);
	r = ask_from(m, &from_c0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], MAD_GETTRACETABLE | 0x80);
	ck_assert_uint_eq(status_of(r), SA_STATUS_METHOD_UNSUPP);
	/* a short MAD is malformed, not answered */
	req(m, 2, MAD_GETTRACETABLE, SA_ATTR_NODE_REC, 0, 0, NULL, 0);
	rx.len = 40;
	sa_dispatch(sa, &rx);
	ck_assert_uint_eq(stats().unsupported, 3);
	ck_assert_uint_eq(stats().requests, 4);
	ck_assert_uint_eq(stats().answered, 3);
	/* three (attribute, status) pairs, one answer each */
	ck_assert_uint_eq(stats().nanswers, 3);
	ck_assert_uint_eq(stats().answers[0].attr, SA_ATTR_RFT_REC);
	ck_assert_uint_eq(stats().answers[0].status,
	    SA_STATUS_METHOD_ATTR_UNSUPP);
	ck_assert_uint_eq(stats().answers[1].attr, 0x0099);
	ck_assert_uint_eq(stats().answers[2].attr, SA_ATTR_NODE_REC);
	ck_assert_uint_eq(stats().answers[2].status, SA_STATUS_METHOD_UNSUPP);
	ck_assert_uint_eq(stats().answers[2].n, 1);
}
END_TEST

START_TEST(bad_class_version)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct transport_rx rx = { .mad = m, .len = sizeof(m),
	    .from = from_c0 };
	const uint8_t *r;

	req(m, 1, MAD_GET, SA_ATTR_NODE_REC, 0, 0, NULL, 0);
	sa_dispatch(sa, &rx);
	ck_assert_uint_eq(fake_nsent(), 1);
	r = fake_sent(0)->mad;
	ck_assert_uint_eq(r[3], 0x81);
	ck_assert_uint_eq(status_of(r), 0x0004);
	ck_assert_uint_eq(stats().malformed, 1);
	/* too short to be an SA MAD: counted, no answer */
	rx.len = 40;
	sa_dispatch(sa, &rx);
	ck_assert_uint_eq(fake_nsent(), 1);
	ck_assert_uint_eq(stats().malformed, 2);
}
END_TEST

START_TEST(wrong_key_dropped)
{
	ck_assert_ptr_null(ask(MAD_GET, SA_ATTR_CLASS_PORT_INFO, 7, 0, NULL,
	    0, NULL));
	ck_assert_uint_eq(stats().bad_key, 1);
	ck_assert_uint_eq(stats().answered, 0);
	/* the right key and 0 are answered */
	ck_assert_ptr_nonnull(ask(MAD_GET, SA_ATTR_CLASS_PORT_INFO, 1, 0,
	    NULL, 0, NULL));
	ck_assert_ptr_nonnull(ask(MAD_GET, SA_ATTR_CLASS_PORT_INFO, 0, 0,
	    NULL, 0, NULL));
	ck_assert_uint_eq(stats().bad_key, 1);
}
END_TEST

/* PortInfoRecord of c1 (by LID): its M_Key (bytes 4-11) as answered. */
static uint64_t
mkey_seen(uint64_t smkey)
{
	uint8_t rec[72] = { 0 };
	const uint8_t *r;

	put16(rec, LID_C1);
	r = ask(MAD_GET, SA_ATTR_PORTINFO_REC, smkey, 1u << 0, rec,
	    sizeof(rec), NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(status_of(r), 0);
	return get64(r + 56 + 4);
}

START_TEST(sa_key_trusts)
{
	struct sa_opts o = { .sa_key = 1, .subnet_timeout = 18 };
	const uint8_t *r;

	/* SM_Key == sa_key: trusted (P_KeyTableRecord), but 1 is every
	 * host's key (OpenSM's default): no M_Key, no SM_Key shown */
	r = ask(MAD_GETTABLE, SA_ATTR_PKEY_REC, 1, 0, NULL, 0, NULL);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(mkey_seen(1), 0);
	r = ask(MAD_GET, SA_ATTR_SMINFO_REC, 1, 0, NULL, 0, NULL);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(get64(r + 56 + 12), 0);       /* SMInfo SM_Key */
	/* SM_Key 0 with sa_key 1: untrusted */
	r = ask(MAD_GETTABLE, SA_ATTR_PKEY_REC, 0, 0, NULL, 0, NULL);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(mkey_seen(0), 0);
	r = ask(MAD_GET, SA_ATTR_SMINFO_REC, 0, 0, NULL, 0, NULL);
	ck_assert_uint_eq(get64(r + 56 + 12), 0);
	/* sa_key 0, as OpenSM: SM_Key 0 equals it, so trusted; and 1 is now
	 * a wrong nonzero key */
	o.sa_key = 0;
	sa_set_opts(sa, &o);
	r = ask(MAD_GETTABLE, SA_ATTR_PKEY_REC, 0, 0, NULL, 0, NULL);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(mkey_seen(0), 0);     /* every host sends 0 */
	ck_assert_ptr_null(ask(MAD_GETTABLE, SA_ATTR_PKEY_REC, 1, 0, NULL, 0,
	    NULL));
	ck_assert_uint_eq(stats().bad_key, 1);
	/* a secret sa_key: its holder sees the keys, nobody else */
	o.sa_key = 0x5A5A;
	sa_set_opts(sa, &o);
	ck_assert_uint_eq(mkey_seen(0x5A5A), 0x1122334455667788ULL);
	r = ask(MAD_GET, SA_ATTR_SMINFO_REC, 0x5A5A, 0, NULL, 0, NULL);
	ck_assert_uint_eq(get64(r + 56 + 12), 0xABCD);
	ck_assert_uint_eq(mkey_seen(0), 0);
}
END_TEST

START_TEST(not_serving_dropped)
{
	sa_set_serving(sa, false);
	ck_assert(!sa_is_serving(sa));
	ck_assert_ptr_null(ask(MAD_GET, SA_ATTR_CLASS_PORT_INFO, 0, 0, NULL,
	    0, NULL));
	ck_assert_uint_eq(stats().not_serving, 1);
	/* serving but without a view: still dropped */
	sa_set_serving(sa, true);
	sa_set_view(sa, NULL);
	ck_assert(!sa_is_serving(sa));
	ck_assert_ptr_null(ask(MAD_GETTABLE, SA_ATTR_NODE_REC, 0, 0, NULL, 0,
	    NULL));
	ck_assert_uint_eq(stats().not_serving, 2);
	sa_set_view(sa, &V);
	ck_assert(sa_is_serving(sa));
	ck_assert_ptr_nonnull(ask(MAD_GET, SA_ATTR_CLASS_PORT_INFO, 0, 0,
	    NULL, 0, NULL));
	ck_assert_uint_eq(stats().answered, 1);
}
END_TEST

START_TEST(reply_to_requester)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	struct transport_addr from = { .lid = LID_C1, .sl = 3,
	    .qpn = 0x1234, .qkey = 0x80010000, .pkey_index = 2 };
	const struct fake_mad *f;

	/* Open MPI style: a private QP; the answer goes back to it */
	req(m, 2, MAD_GET, SA_ATTR_CLASS_PORT_INFO, 0, 0, NULL, 0);
	ck_assert_ptr_nonnull(ask_from(m, &from, NULL));
	f = fake_sent(0);
	ck_assert_uint_eq(f->to.lid, LID_C1);
	ck_assert_uint_eq(f->to.qpn, 0x1234);
	ck_assert_uint_eq(f->to.sl, 3);
	ck_assert_uint_eq(f->to.pkey_index, 2);
	ck_assert_uint_eq(f->to.qkey, 0x80010000);
	/* the TID comes back */
	ck_assert(memcmp(f->mad + 8, m + 8, 8) == 0);
	/* a GRH comes back too */
	from.grh = true;
	from.hop_limit = 7;
	from.gid[15] = 0x42;
	req(m, 2, MAD_GET, SA_ATTR_CLASS_PORT_INFO, 0, 0, NULL, 0);
	ck_assert_ptr_nonnull(ask_from(m, &from, NULL));
	f = fake_sent(1);
	ck_assert(f->to.grh);
	ck_assert_uint_eq(f->to.gid[15], 0x42);
	ck_assert_uint_eq(f->to.hop_limit, 7);
}
END_TEST

START_TEST(reply_methods)
{
	uint8_t rec[64] = { 0 };
	const uint8_t *r;
	size_t len;

	rec[0] = 1;
	r = ask(MAD_GET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(r[3], 0x81);
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(get16(r + 44), 1);
	ck_assert_uint_eq(get64(r + 36), 0);
	r = ask(MAD_SET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(r[3], 0x81);                  /* GetResp */
	ck_assert_uint_eq(status_of(r), 0);
	ck_assert_uint_eq(get64(r + 36), 0);
	ck_assert_uint_eq(r[26] & 1, 0);
	r = ask(MAD_DELETE, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(r[3], 0x95);                  /* DeleteResp */
	ck_assert_uint_eq(status_of(r), 0);
	rec[0] = 3;
	r = ask(MAD_GETTABLE, TEST_ATTR, 1, 0, rec, 8, &len);
	ck_assert_uint_eq(r[3], 0x92);                  /* GetTableResp */
	ck_assert_uint_eq(len, 56 + 3 * 8);     /* exact: shorter than a MAD */
	ck_assert_uint_eq(nrecs(r, len, 8), 3);
	ck_assert_uint_eq(r[56 + 2 * 8 + 7], 2);
	/* GetMulti of MultiPathRecord: GetMultiResp of PathRecords */
	rec[0] = 2;
	r = ask(MAD_GETMULTI, SA_ATTR_MULTIPATH_REC, 1, 0, rec, 64, &len);
	ck_assert_uint_eq(r[3], 0x94);
	ck_assert_uint_eq(get16(r + 16), SA_ATTR_PATH_REC);
	ck_assert_uint_eq(r[26] & 1, 1);
	ck_assert_uint_eq(payload(r), 20 + 2 * 64);
	/* a handler's silent drop */
	rec[1] = 0xDD;
	ck_assert_ptr_null(ask(MAD_SET, TEST_ATTR, 1, 0, rec, 8, NULL));
	ck_assert_uint_eq(stats().dropped, 1);
	/* a Get of three: TOO_MANY_RECORDS */
	rec[0] = 3;
	rec[1] = 0;
	r = ask(MAD_GET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(status_of(r), 0x0400);
	/* none: NO_RECORDS, GetTable empty */
	rec[0] = 0;
	r = ask(MAD_GET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(status_of(r), 0x0300);
}
END_TEST

/* An error reply carries the handler's one record when it gave one
 * (InformInfo answers a refused Set with Subscribe 0, as OpenSM), else the
 * request's; a table's partial records never. */
START_TEST(error_reply_record)
{
	uint8_t rec[64] = { 0 };
	const uint8_t *r;

	rec[0] = 1;
	rec[1] = 0xEE;
	rec[2] = 0x42;
	rec[7] = 0x99;
	r = ask(MAD_SET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r[3], 0x81);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(r[56 + 1], 0xEE);
	ck_assert_uint_eq(r[56 + 2], 0);                /* the handler's */
	ck_assert_uint_eq(r[56 + 7], 0x99);
	ck_assert_uint_eq(get16(r + 44), 0);
	r = ask(MAD_DELETE, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(r[3], 0x95);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(r[56 + 2], 0);
	/* no record from the handler: the request's comes back */
	rec[1] = 0xEF;
	r = ask(MAD_SET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(r[56 + 1], 0xEF);
	ck_assert_uint_eq(r[56 + 2], 0x42);
	/* a Get with one record and an error: that record */
	rec[1] = 0xEE;
	r = ask(MAD_GET, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(r[56 + 1], 0);
	ck_assert_uint_eq(r[56 + 2], 0);
	ck_assert_uint_eq(r[56 + 7], 0);
	/* a GetTable with one record and an error: the request's */
	r = ask(MAD_GETTABLE, TEST_ATTR, 1, 0, rec, 8, NULL);
	ck_assert_uint_eq(r[3], 0x92);
	ck_assert_uint_eq(status_of(r), 0x0200);
	ck_assert_uint_eq(r[56 + 1], 0xEE);
	ck_assert_uint_eq(r[56 + 2], 0x42);
	ck_assert_uint_eq(stats().errors, 5);
}
END_TEST

/* ---- component masks, per record kind (bits of ib_types.h) */

/* GetTable with mask over rec: the answer's records (copied to *out, to
 * be freed) and their number. */
static size_t
table_from(const struct transport_addr *from, uint16_t attr, uint64_t smkey,
    uint64_t mask, const uint8_t *rec, size_t rec_size, uint8_t **out)
{
	uint8_t m[TRANSPORT_MAD_SIZE];
	const uint8_t *r;
	size_t len, n;

	req(m, 2, MAD_GETTABLE, attr, smkey, mask, rec, rec_size);
	r = ask_from(m, from, &len);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(status_of(r), 0);
	n = payload(r) > 20 ? nrecs(r, len, rec_size) : 0;
	*out = malloc(n * rec_size + 1);
	memcpy(*out, r + 56, n * rec_size);
	return n;
}

static size_t
table(uint16_t attr, uint64_t smkey, uint64_t mask, const uint8_t *rec,
    size_t rec_size, uint8_t **out)
{
	return table_from(&from_c0, attr, smkey, mask, rec, rec_size, out);
}

#define NR_LID          (1ULL << 0)
#define NR_NODETYPE     (1ULL << 4)
#define NR_NODEGUID     (1ULL << 7)
#define NR_PORTGUID     (1ULL << 8)

START_TEST(node_record_masks)
{
	uint8_t rec[112] = { 0 }, *o;
	size_t n;

	/* by LID: LID 0-1, NodeType 6, NumPorts 7, NodeGUID 16, PortGUID
	 * 24, LocalPortNum 40, NodeDescription 44 */
	put16(rec, LID_C1);
	n = table(SA_ATTR_NODE_REC, 0, NR_LID, rec, 112, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_C1);
	ck_assert_uint_eq(o[6], NODE_CA);
	ck_assert_uint_eq(o[7], 1);
	ck_assert_uint_eq(get64(o + 16), F.nodes[F.ports[c[1]].node].guid);
	ck_assert_uint_eq(get64(o + 24), F.ports[c[1]].guid);
	ck_assert_uint_eq(o[40], 1);
	ck_assert_str_eq((char *)o + 44,
	    F.nodes[F.ports[c[1]].node].desc);
	free(o);
	/* by NodeType: the two switches, port 0 each */
	memset(rec, 0, sizeof(rec));
	rec[6] = NODE_SWITCH;
	n = table(SA_ATTR_NODE_REC, 0, NR_NODETYPE, rec, 112, &o);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(get16(o), LID_A);
	ck_assert_uint_eq(get16(o + 112), LID_B);
	ck_assert_uint_eq(o[6], NODE_SWITCH);
	ck_assert_uint_eq(o[7], 8);
	ck_assert_uint_eq(o[112 + 7], 4);
	ck_assert_uint_eq(o[40], 0);
	free(o);
	/* CAs: three */
	rec[6] = NODE_CA;
	n = table(SA_ATTR_NODE_REC, 0, NR_NODETYPE, rec, 112, &o);
	ck_assert_uint_eq(n, 3);
	free(o);
	/* by NodeGUID of switch B */
	memset(rec, 0, sizeof(rec));
	put64(rec + 16, F.nodes[node_b].guid);
	n = table(SA_ATTR_NODE_REC, 0, NR_NODEGUID, rec, 112, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	free(o);
	/* by PortGUID of c2 */
	memset(rec, 0, sizeof(rec));
	put64(rec + 24, F.ports[c[2]].guid);
	n = table(SA_ATTR_NODE_REC, 0, NR_PORTGUID, rec, 112, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_C2);
	free(o);
	/* NodeType and a GUID that disagree: none */
	rec[6] = NODE_SWITCH;
	n = table(SA_ATTR_NODE_REC, 0, NR_PORTGUID | NR_NODETYPE, rec, 112,
	    &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	/* bits not in the mask do not count */
	n = table(SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	ck_assert_uint_eq(n, NENDPORTS);
	free(o);
}
END_TEST

#define PIR_LID         (1ULL << 0)
#define PIR_PORTNUM     (1ULL << 1)

START_TEST(portinfo_record_masks)
{
	uint8_t rec[72] = { 0 }, *o;
	size_t n;

	/* EndportLID 0-1, PortNum 2, PortInfo from 4: its LID at 4 + 16,
	 * CapabilityMask at 4 + 20, LinkWidthActive at 4 + 31 */
	put16(rec, LID_A);
	rec[2] = 8;
	n = table(SA_ATTR_PORTINFO_REC, 0, PIR_LID | PIR_PORTNUM, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_A);
	ck_assert_uint_eq(o[2], 8);
	ck_assert_uint_eq(get16(o + 20), LID_A);
	ck_assert_uint_eq(get16(o + 24 + 2), 0x0200);
	ck_assert_uint_eq(o[35], 1);
	free(o);
	/* the switch by LID: ports 0 .. 8 */
	n = table(SA_ATTR_PORTINFO_REC, 0, PIR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 9);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(get16(o + 72 * i), LID_A);
		ck_assert_uint_eq(o[72 * i + 2], i);
	}
	free(o);
	/* a CA by LID and port */
	put16(rec, LID_C2);
	rec[2] = 1;
	n = table(SA_ATTR_PORTINFO_REC, 0, PIR_LID | PIR_PORTNUM, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o + 20), LID_C2);
	ck_assert_uint_eq(o[35], 2);
	free(o);
	/* port 2 of a CA with one port: none */
	rec[2] = 2;
	n = table(SA_ATTR_PORTINFO_REC, 0, PIR_LID | PIR_PORTNUM, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 0);
	free(o);
}
END_TEST

#define LR_FROM_LID     (1ULL << 0)
#define LR_TO_LID       (1ULL << 3)

START_TEST(link_record_masks)
{
	uint8_t rec[8] = { 0 }, *o;
	size_t n, i;
	int seen = 0;

	/* FromLID 0-1, FromPort 2, ToPort 3, ToLID 4-5 */
	put16(rec, LID_A);
	n = table(SA_ATTR_LINK_REC, 0, LR_FROM_LID, rec, 8, &o);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < n; i++) {
		const uint8_t *l = o + 8 * i;

		ck_assert_uint_eq(get16(l), LID_A);
		if (l[2] == 1) {
			ck_assert_uint_eq(l[3], 1);
			ck_assert_uint_eq(get16(l + 4), LID_C0);
			seen |= 1;
		} else if (l[2] == 2) {
			ck_assert_uint_eq(get16(l + 4), LID_C1);
			seen |= 2;
		} else {
			ck_assert_uint_eq(l[2], 8);
			ck_assert_uint_eq(l[3], 1);
			ck_assert_uint_eq(get16(l + 4), LID_B);
			seen |= 4;
		}
	}
	ck_assert_int_eq(seen, 7);
	free(o);
	/* into c2: one, from B port 2 */
	memset(rec, 0, sizeof(rec));
	put16(rec + 4, LID_C2);
	n = table(SA_ATTR_LINK_REC, 0, LR_TO_LID, rec, 8, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(o[2], 2);
	ck_assert_uint_eq(o[3], 1);
	free(o);
	/* all: every cable both ways */
	n = table(SA_ATTR_LINK_REC, 0, 0, rec, 8, &o);
	ck_assert_uint_eq(n, 2 * 4);
	free(o);
}
END_TEST

#define LFTR_LID        (1ULL << 0)
#define LFTR_BLOCK      (1ULL << 1)

START_TEST(lft_record_masks)
{
	uint8_t rec[72] = { 0 }, *o;
	size_t n;
	uint32_t sw;

	/* LID 0-1, BlockNum 2-3, 64 ports from 8 */
	put16(rec, LID_B);
	n = table(SA_ATTR_LFT_REC, 0, LFTR_LID | LFTR_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(get16(o + 2), 0);
	for (sw = 0; sw < L.nsw && L.sw_node[sw] != node_b; sw++)
		;
	ck_assert_uint_lt(sw, L.nsw);
	for (unsigned d = 0; d <= L.max_lid; d++)
		ck_assert_uint_eq(o[8 + d], lft_row(&L, sw)[d]);
	ck_assert_uint_eq(o[8 + L.max_lid + 1], LFT_NO_ROUTE);
	free(o);
	/* block 1 is past the top LID: none */
	put16(rec + 2, 1);
	n = table(SA_ATTR_LFT_REC, 0, LFTR_LID | LFTR_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	/* block 0 of every switch */
	put16(rec, 0);
	put16(rec + 2, 0);
	n = table(SA_ATTR_LFT_REC, 0, LFTR_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 2);
	free(o);
}
END_TEST

/* ib_mft_record_t: lid 0-1, position_block_num 2-3 (position << 12 |
 * block), reserved 4-7, mft[32] from 8; IB_MFTR_COMPMASK_LID bit 0,
 * POSITION 1, BLOCK 3. */
#define MFTR_LID        (1ULL << 0)
#define MFTR_POSITION   (1ULL << 1)
#define MFTR_BLOCK      (1ULL << 3)

START_TEST(mft_record_masks)
{
	uint8_t rec[72] = { 0 }, *o;
	size_t n;

	/* every switch: A's blocks 0 and 1 (one position: 8 ports), none
	 * of B (no entry) */
	n = table(SA_ATTR_MFT_REC, 0, 0, rec, 72, &o);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(get16(o), LID_A);
	ck_assert_uint_eq(get16(o + 2), 0);
	for (unsigned i = 0; i < 32; i++)
		ck_assert_uint_eq(get16(o + 8 + 2 * i), 0);
	ck_assert_uint_eq(get16(o + 72), LID_A);
	ck_assert_uint_eq(get16(o + 72 + 2), 1);
	ck_assert_uint_eq(get16(o + 72 + 8 + 2 * (MFT_A_MLID - 0xC020)),
	    MFT_A_MASK);
	ck_assert_uint_eq(get16(o + 72 + 8), 0);
	free(o);
	/* BlockNum 1 alone */
	put16(rec + 2, 1);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o + 2), 1);
	free(o);
	/* block 2 is past A's top block */
	put16(rec + 2, 2);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	/* position 1 does not exist on an 8-port switch */
	put16(rec + 2, 1u << 12 | 1);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_BLOCK | MFTR_POSITION, rec, 72, &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	put16(rec + 2, 0u << 12 | 1);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_BLOCK | MFTR_POSITION, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	free(o);
	/* by LID: B has none, A both blocks */
	put16(rec, LID_B);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	put16(rec, LID_A);
	n = table(SA_ATTR_MFT_REC, 0, MFTR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 2);
	free(o);
}
END_TEST

#define GIR_LID (1ULL << 0)

START_TEST(guidinfo_record_masks)
{
	uint8_t rec[72] = { 0 }, *o;
	size_t n;

	/* LID 0-1, BlockNum 2, GUIDs from 8 */
	put16(rec, LID_C2);
	n = table(SA_ATTR_GUIDINFO_REC, 0, GIR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_C2);
	ck_assert_uint_eq(o[2], 0);
	ck_assert_uint_eq(get64(o + 8), F.ports[c[2]].guid);
	ck_assert_uint_eq(get64(o + 16), 0);
	free(o);
	n = table(SA_ATTR_GUIDINFO_REC, 0, 0, rec, 72, &o);
	ck_assert_uint_eq(n, NENDPORTS);
	free(o);
}
END_TEST


/*
 * vports behind c2 (LID 5): vport 1 (LID 9, its own, red 0x8001), vport 2
 * (LID 10, blue 0x8002), vport 3 down (no LID), and the physical
 * function (index 0), which has no records of its own. Physical ports
 * have no known table: they share with every vport.
 */
#define VLID1 9
#define VLID2 10
#define VGUID(i) (0xc0ffee0000000000ULL + (i))
#define VNGUID(i) (0xbeef000000000000ULL + (i))

static struct vport_set VS;
static struct pkey_table VPK[4];
static uint16_t vkeys[4][1];

static void
vport_view(void)
{
	uint32_t h, v;

	vport_set_init(&VS);
	h = vport_host_add(&VS, c[2]);
	for (unsigned i = 0; i < 4; i++) {
		v = vport_add(&VS, h, (uint16_t)i);
		VS.v[v].info_valid = 1;
		VS.v[v].state = i == 3 ? PORT_DOWN : PORT_ACTIVE;
		VS.v[v].flags = 0x04;           /* LIDRequired */
		VS.v[v].own_lid = i == 1 ? VLID1 : i == 2 ? VLID2 : 0;
		VS.v[v].node_guid = VNGUID(i);
		snprintf(VS.v[v].desc, sizeof(VS.v[v].desc), "vm%u", i);
		ck_assert(vport_set_guid(&VS, v, i == 0 ?
		    F.ports[c[2]].guid : VGUID(i)));
		vkeys[v][0] = i == 1 ? 0x8001 : i == 2 ? 0x8002 : 0;
		VPK[v] = (struct pkey_table){ .guid = VS.v[v].guid,
		    .port = F.nports + v, .keys = vkeys[v],
		    .cap = i == 1 || i == 2 ? 1 : 0 };
	}
	vport_resolve_lids(&VS, &F);
	ck_assert_uint_eq(VS.v[1].lid, VLID1);
	ck_assert_uint_eq(VS.v[2].lid, VLID2);
	ck_assert_uint_eq(VS.v[3].lid, 0);
	V.vports = &VS;
	V.vport_pk = VPK;
	sa_set_view(sa, &V);
}

static const struct transport_addr from_v1 = { .lid = VLID1, .qpn = 1,
    .qkey = TRANSPORT_QKEY_GSI };

START_TEST(vport_records)
{
	uint8_t rec[112] = { 0 }, *o;
	size_t n;

	vport_view();
	/* NodeRecord by a vport LID: the VM's node */
	put16(rec, VLID1);
	n = table(SA_ATTR_NODE_REC, 0, NR_LID, rec, 112, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), VLID1);
	ck_assert_uint_eq(o[6], NODE_CA);
	ck_assert_uint_eq(get64(o + 16), VNGUID(1));
	ck_assert_uint_eq(get64(o + 24), VGUID(1));
	ck_assert_uint_eq(o[40], 1);
	ck_assert_str_eq((char *)o + 44, "vm1");
	free(o);
	/* by the vport GUID */
	memset(rec, 0, sizeof(rec));
	put64(rec + 24, VGUID(2));
	n = table(SA_ATTR_NODE_REC, 0, NR_PORTGUID, rec, 112, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), VLID2);
	free(o);
	/* all: the ports and the two vports with a LID; the PF is c2 */
	n = table(SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	ck_assert_uint_eq(n, NENDPORTS + 2);
	free(o);
	/* from vport 1 (red): not vport 2 (blue), nor its GUID */
	n = table_from(&from_v1, SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	ck_assert_uint_eq(n, NENDPORTS + 1);
	free(o);
	n = table_from(&from_v1, SA_ATTR_NODE_REC, 0, NR_PORTGUID, rec, 112,
	    &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	/* PortInfoRecord by a vport LID: its LID in PortInfo, the physical
	 * port's number and width */
	memset(rec, 0, sizeof(rec));
	put16(rec, VLID2);
	n = table(SA_ATTR_PORTINFO_REC, 0, PIR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), VLID2);
	ck_assert_uint_eq(o[2], 1);
	ck_assert_uint_eq(get16(o + 20), VLID2);
	ck_assert_uint_eq(o[4 + 32] & 0x0f, PORT_ACTIVE);
	ck_assert_uint_eq(o[35], 2);
	ck_assert_uint_eq(get64(o + 4), 0);             /* M_Key hidden */
	free(o);
	/* from vport 1: vport 2's PortInfoRecord is out of scope */
	n = table_from(&from_v1, SA_ATTR_PORTINFO_REC, 0, PIR_LID, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	put16(rec, VLID1);
	n = table_from(&from_v1, SA_ATTR_PORTINFO_REC, 0, PIR_LID, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 1);
	free(o);
	/* GUIDInfoRecord: block 0 with the VPortGUID */
	put16(rec, VLID1);
	n = table(SA_ATTR_GUIDINFO_REC, 0, GIR_LID, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), VLID1);
	ck_assert_uint_eq(get64(o + 8), VGUID(1));
	free(o);
	put16(rec, VLID2);
	n = table_from(&from_v1, SA_ATTR_GUIDINFO_REC, 0, GIR_LID, rec, 72,
	    &o);
	ck_assert_uint_eq(n, 0);
	free(o);
	V.vports = NULL;
	V.vport_pk = NULL;
	sa_set_view(sa, &V);
	vport_set_fini(&VS);
}
END_TEST

/* Issue 23 point 5: a vport that answers to its PF's LID (no LIDRequired)
 * is the requester when its request's GRH names it (SGID): its requests
 * are scoped by its own table, not its host's. An SGID naming a vport of
 * another LID changes nothing. */
START_TEST(vport_requester_by_sgid)
{
	uint8_t rec[112] = { 0 }, *o;
	struct transport_addr from = { .lid = LID_C2, .qpn = 1,
	    .qkey = TRANSPORT_QKEY_GSI };
	static uint16_t green[1] = { 0x8003 };
	size_t host, vm, other;

	vport_view();
	/* vport 3 up without a LID of its own: it answers to c2's */
	VS.v[3].state = PORT_ACTIVE;
	VS.v[3].flags = 0;
	VPK[3] = (struct pkey_table){ .guid = VS.v[3].guid,
	    .port = F.nports + 3, .keys = green, .cap = 1 };
	vport_resolve_lids(&VS, &F);
	ck_assert_uint_eq(VS.v[3].lid, LID_C2);
	sa_set_view(sa, &V);
	host = table_from(&from, SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	free(o);
	/* the GRH names vport 3 (green): red vport 1 and blue vport 2 are
	 * out of its scope */
	from.grh = true;
	for (int i = 0; i < 8; i++)
		from.gid[i] = (uint8_t)(V.subnet_prefix >> (56 - 8 * i));
	for (int i = 0; i < 8; i++)
		from.gid[8 + i] = (uint8_t)(VGUID(3) >> (56 - 8 * i));
	vm = table_from(&from, SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	free(o);
	ck_assert_uint_eq(vm + 2, host);
	/* vport 1 has a LID of its own: its GUID behind c2's LID is not it */
	for (int i = 0; i < 8; i++)
		from.gid[8 + i] = (uint8_t)(VGUID(1) >> (56 - 8 * i));
	other = table_from(&from, SA_ATTR_NODE_REC, 0, 0, rec, 112, &o);
	free(o);
	ck_assert_uint_eq(other, host);
	V.vports = NULL;
	V.vport_pk = NULL;
	sa_set_view(sa, &V);
	vport_set_fini(&VS);
}
END_TEST

#define SWIR_LID (1ULL << 0)

START_TEST(switchinfo_record_masks)
{
	uint8_t rec[24] = { 0 }, *o;
	size_t n;

	/* LID 0-1, SwitchInfo from 4: LinearFDBCap at 4 */
	put16(rec, LID_B);
	n = table(SA_ATTR_SWITCHINFO_REC, 0, SWIR_LID, rec, 24, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(get16(o + 4), 0xC000 + node_b);
	free(o);
	n = table(SA_ATTR_SWITCHINFO_REC, 0, 0, rec, 24, &o);
	ck_assert_uint_eq(n, 2);
	free(o);
	/* a CA's LID: no switch */
	put16(rec, LID_C0);
	n = table(SA_ATTR_SWITCHINFO_REC, 0, SWIR_LID, rec, 24, &o);
	ck_assert_uint_eq(n, 0);
	free(o);
}
END_TEST

/* Issue 22 points 2 and 6: the tables the devices hold (core/devtab, as
 * sm/devread fills it) in SL2VLTableRecord (LID 0-1, InputPortNum 2,
 * OutputPortNum 3, table 8-15), VLArbitrationTableRecord (LID 0-1,
 * OutputPortNum 2, BlockNum 3, table 8-71) and the P_KeyTableRecords of
 * switch ports ibsmd does not program (LID 0-1, BlockNum 2-3, PortNum 4). */
#define SLVL_LID        (1ULL << 0)
#define SLVL_IN         (1ULL << 1)
#define SLVL_OUT        (1ULL << 2)
#define VLA_OUT         (1ULL << 1)
#define VLA_BLOCK       (1ULL << 2)

START_TEST(device_table_records)
{
	struct devtab *dt = devtab_new();
	struct devtab_node *b = devtab_node(dt, F.nodes[node_b].guid, 4, true);
	struct devtab_node *ca = devtab_node(dt,
	    F.nodes[F.ports[c[2]].node].guid, 1, false);
	uint8_t rec[72] = { 0 }, *o;
	uint16_t *keys;
	size_t n;

	/* B: in 1 -> out 2 and in 0 -> out 0 read; c2's one table */
	memset(b->sl2vl + devtab_sl2vl_idx(b, 1, 2) * 8, 0x12, 8);
	b->sl2vl_valid[devtab_sl2vl_idx(b, 1, 2)] = 1;
	b->sl2vl_valid[devtab_sl2vl_idx(b, 0, 0)] = 1;
	memset(ca->sl2vl + 8, 0x77, 8);
	ca->sl2vl_valid[1] = 1;
	/* B port 1 (to A): VLArb blocks 1 and 3, P_Keys block 1 of 2 */
	b->ports[1].vlarb[0][1] = 0x40;
	b->ports[1].vlarb_valid = 1u | 4u;
	keys = devtab_port_pkeys(b, 1, 64);
	keys[33] = 0xFFFF;
	b->ports[1].pkey_valid = 2;
	V.devtab = dt;
	sa_set_view(sa, &V);

	n = table(SA_ATTR_SL2VL_REC, 0, 0, rec, 16, &o);
	ck_assert_uint_eq(n, 3);
	free(o);
	put16(rec, LID_B);
	rec[2] = 1;
	rec[3] = 2;
	n = table(SA_ATTR_SL2VL_REC, 0, SLVL_LID | SLVL_IN | SLVL_OUT, rec,
	    16, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(o[2], 1);
	ck_assert_uint_eq(o[3], 2);
	ck_assert_uint_eq(o[8], 0x12);
	free(o);
	/* a CA port's: its LID, ports 0 and 0 */
	put16(rec, LID_C2);
	n = table(SA_ATTR_SL2VL_REC, 0, SLVL_LID, rec, 16, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(o[2] | o[3], 0);
	ck_assert_uint_eq(o[15], 0x77);
	free(o);

	memset(rec, 0, sizeof(rec));
	n = table(SA_ATTR_VLARB_REC, 0, 0, rec, 72, &o);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(o[2], 1);
	ck_assert_uint_eq(o[3], 1);
	ck_assert_uint_eq(o[9], 0x40);
	ck_assert_uint_eq(o[72 + 3], 3);
	free(o);
	rec[2] = 1;
	rec[3] = 3;
	n = table(SA_ATTR_VLARB_REC, 0, VLA_OUT | VLA_BLOCK, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	free(o);

	/* P_KeyTableRecord: no table ibsmd programs here (pk NULL); B port
	 * 1's block 1 as read, BlockNum big-endian */
	memset(rec, 0, sizeof(rec));
	n = table(SA_ATTR_PKEY_REC, 1, 0, rec, 72, &o);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(get16(o), LID_B);
	ck_assert_uint_eq(get16(o + 2), 1);
	ck_assert_uint_eq(o[4], 1);
	ck_assert_uint_eq(get16(o + 8 + 2), 0xFFFF);
	free(o);
	V.devtab = NULL;
	sa_set_view(sa, &V);
	devtab_free(dt);
}
END_TEST

static Suite *
sa_suite(void)
{
	Suite *s = suite_create("sa");
	TCase *t = tcase_create("agent");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, gid_split_and_made);
	tcase_add_test(t, get_none_is_no_records);
	tcase_add_test(t, get_several_is_too_many);
	tcase_add_test(t, gettable_none_is_empty);
	tcase_add_test(t, gettable_error_has_offset_0);
	tcase_add_test(t, gettable_is_rmpp_active);
	tcase_add_test(t, error_reply_record);
	tcase_add_test(t, set_read_only_answered);
	tcase_add_test(t, unknown_attr_or_method_answered);
	tcase_add_test(t, bad_class_version);
	tcase_add_test(t, wrong_key_dropped);
	tcase_add_test(t, sa_key_trusts);
	tcase_add_test(t, not_serving_dropped);
	tcase_add_test(t, reply_to_requester);
	tcase_add_test(t, reply_methods);
	suite_add_tcase(s, t);
	t = tcase_create("records");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, node_record_masks);
	tcase_add_test(t, portinfo_record_masks);
	tcase_add_test(t, link_record_masks);
	tcase_add_test(t, lft_record_masks);
	tcase_add_test(t, mft_record_masks);
	tcase_add_test(t, guidinfo_record_masks);
	tcase_add_test(t, switchinfo_record_masks);
	tcase_add_test(t, device_table_records);
	tcase_add_test(t, vport_records);
	tcase_add_test(t, vport_requester_by_sgid);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(sa_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
