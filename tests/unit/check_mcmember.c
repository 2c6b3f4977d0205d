/*
 * sa/mcrules.c and sa/mcpolicy.c: the MCMemberRecord codec against the
 * byte layout of OpenSM's ib_member_rec_t (include/iba/ib_types.h) and
 * libibmad's McastMem* fields, the create/join/leave rules, and the groups
 * a partition policy pre-creates.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "partitions/partitions.h"
#include "sa/attr.h"
#include "sa/mcrules.h"
#include "sa/mcpolicy.h"

/* ff1S:a01b:fe80::<n>, the form of SA-assigned MGIDs. */
static void
sa_mgid(uint8_t m[16], uint8_t scope, uint8_t n)
{
	memset(m, 0, 16);
	m[0] = 0xff;
	m[1] = (uint8_t)(0x10 | scope);
	m[2] = 0xa0;
	m[3] = 0x1b;
	m[4] = 0xfe;
	m[5] = 0x80;
	m[15] = n;
}

static void
sample(struct mcmember_rec *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 16; i++) {
		r->mgid[i] = (uint8_t)(0xf0 + i);
		r->port_gid[i] = (uint8_t)(0x10 + i);
	}
	r->mgid[0] = 0xff;
	r->qkey = 0x80010b1b;
	r->mlid = 0xc123;
	r->mtu_sel = 2;
	r->mtu = 4;
	r->tclass = 0x5a;
	r->pkey = 0x8001;
	r->rate_sel = 1;
	r->rate = 7;
	r->life_sel = 3;
	r->life = 18;
	r->sl = 0xb;
	r->flow_label = 0xabcde;
	r->hop_limit = 0x3f;
	r->scope = 5;
	r->join_state = 9;
	r->proxy = true;
}

/* Offsets of ib_member_rec_t: mgid 0, port_gid 16, qkey 32, mlid 36, mtu
 * 38, tclass 39, pkey 40, rate 42, pkt_life 43, sl_flow_hop 44, scope_state
 * 48, proxy_join 49, reserved 50-51, pad 52-55 (56 bytes). */
START_TEST(test_codec_layout)
{
	struct mcmember_rec r, back;
	uint8_t b[SA_MCMEMBER_REC_SIZE + 8];

	sample(&r);
	memset(b, 0xee, sizeof(b));
	mcmember_encode(&r, b);
	ck_assert_int_eq(memcmp(b, r.mgid, 16), 0);
	ck_assert_int_eq(memcmp(b + 16, r.port_gid, 16), 0);
	ck_assert_uint_eq(b[32], 0x80);
	ck_assert_uint_eq(b[33], 0x01);
	ck_assert_uint_eq(b[34], 0x0b);
	ck_assert_uint_eq(b[35], 0x1b);
	ck_assert_uint_eq(b[36], 0xc1);
	ck_assert_uint_eq(b[37], 0x23);
	ck_assert_uint_eq(b[38], 2 << 6 | 4);
	ck_assert_uint_eq(b[39], 0x5a);
	ck_assert_uint_eq(b[40], 0x80);
	ck_assert_uint_eq(b[41], 0x01);
	ck_assert_uint_eq(b[42], 1 << 6 | 7);
	ck_assert_uint_eq(b[43], 3 << 6 | 18);
	/* SL(4) FlowLabel(20) HopLimit(8), big-endian: 0xbabcde3f */
	ck_assert_uint_eq(b[44], 0xba);
	ck_assert_uint_eq(b[45], 0xbc);
	ck_assert_uint_eq(b[46], 0xde);
	ck_assert_uint_eq(b[47], 0x3f);
	ck_assert_uint_eq(b[48], 0x59);
	/* ProxyJoin is IBA bit 392: the top bit of byte 49 */
	ck_assert_uint_eq(b[49], 0x80);
	ck_assert_uint_eq(b[50], 0);
	ck_assert_uint_eq(b[55], 0);
	ck_assert_uint_eq(b[56], 0xee);          /* 56 bytes, no more */
	mcmember_decode(b, &back);
	ck_assert_int_eq(memcmp(&r, &back, sizeof(r)), 0);
}
END_TEST

/* The same bytes read through libibmad's field table, the one other
 * independent description of the record. */
START_TEST(test_codec_libibmad)
{
	struct mcmember_rec r;
	uint8_t b[SA_MCMEMBER_REC_SIZE];
	uint8_t gid[16];

	sample(&r);
	mcmember_encode(&r, b);
	mad_get_array(b, 0, IB_SA_MCM_MGID_F, gid);
	ck_assert_int_eq(memcmp(gid, r.mgid, 16), 0);
	mad_get_array(b, 0, IB_SA_MCM_PORTGID_F, gid);
	ck_assert_int_eq(memcmp(gid, r.port_gid, 16), 0);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_QKEY_F), r.qkey);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_MLID_F), r.mlid);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_MTU_F), r.mtu);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_TCLASS_F), r.tclass);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_PKEY_F), r.pkey);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_RATE_F), r.rate);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_SL_F), r.sl);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_FLOW_LABEL_F),
	    r.flow_label);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_JOIN_STATE_F),
	    r.join_state);
	ck_assert_uint_eq(mad_get_field(b, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
}
END_TEST

START_TEST(test_check_request)
{
	struct mcmember_rec r;

	memset(&r, 0, sizeof(r));
	ck_assert_uint_eq(mcmember_check_request(MCM_BIT(MCM_C_MGID) |
	    MCM_BIT(MCM_C_JOIN_STATE), &r), SA_STATUS_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(mcmember_check_request(MCM_JOIN_MASK, &r),
	    SA_STATUS_OK);
	/* an MTU given with its selector must be defined */
	r.mtu = 6;
	ck_assert_uint_eq(mcmember_check_request(MCM_JOIN_MASK |
	    MCM_BIT(MCM_C_MTU) | MCM_BIT(MCM_C_MTU_SEL), &r),
	    SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(mcmember_check_request(MCM_JOIN_MASK |
	    MCM_BIT(MCM_C_MTU), &r), SA_STATUS_OK);
	r.mtu = 4;
	r.rate = 1;
	ck_assert_uint_eq(mcmember_check_request(MCM_JOIN_MASK |
	    MCM_BIT(MCM_C_RATE) | MCM_BIT(MCM_C_RATE_SEL), &r),
	    SA_STATUS_REQ_INVALID);
}
END_TEST

/* The masks real clients send (SA.md section 1). */
#define IPOIB_BCAST_JOIN (MCM_JOIN_MASK | MCM_BIT(MCM_C_PKEY))
#define IPOIB_CREATE (MCM_JOIN_MASK | MCM_BIT(MCM_C_PKEY) | \
	MCM_BIT(MCM_C_QKEY) | MCM_BIT(MCM_C_MTU_SEL) | MCM_BIT(MCM_C_MTU) | \
	MCM_BIT(MCM_C_TCLASS) | MCM_BIT(MCM_C_RATE_SEL) | \
	MCM_BIT(MCM_C_RATE) | MCM_BIT(MCM_C_SL) | MCM_BIT(MCM_C_FLOW) | \
	MCM_BIT(MCM_C_HOP))

START_TEST(test_check_create)
{
	struct mcmember_rec r;

	memset(&r, 0, sizeof(r));
	mcmember_bcast_mgid(r.mgid, 0xffff, 2);
	r.pkey = 0xffff;
	r.join_state = MCM_JOIN_FULL;
	/* IPoIB's broadcast join cannot create the group */
	ck_assert_uint_eq(mcmember_check_create(IPOIB_BCAST_JOIN, &r),
	    SA_STATUS_INSUFFICIENT_COMPONENTS);
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_OK);
	ck_assert_uint_eq(mcmember_check_create(MCM_CREATE_MASK, &r),
	    SA_STATUS_OK);
	ck_assert_uint_eq(mcmember_check_create(MCM_CREATE_MASK &
	    ~MCM_BIT(MCM_C_SL), &r), SA_STATUS_INSUFFICIENT_COMPONENTS);
	/* non members and send-only non members cannot create */
	r.join_state = MCM_JOIN_NON | MCM_JOIN_SEND_ONLY_NON;
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_REQ_INVALID);
	r.join_state = MCM_JOIN_SEND_ONLY_FULL;
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_OK);
	/* P_Key 0 is invalid */
	r.pkey = 0x8000;
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_REQ_INVALID);
	r.pkey = 0xffff;
	/* MGID 0: the SA picks one */
	memset(r.mgid, 0, 16);
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_OK);
	/* not multicast */
	r.mgid[0] = 0xfe;
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_REQ_INVALID);
	/* reserved flags */
	r.mgid[0] = 0xff;
	r.mgid[1] = 0x35;
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_REQ_INVALID);
	/* the SA signature with link-local scope is the SA's own */
	sa_mgid(r.mgid, 2, 7);
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_REQ_INVALID);
	sa_mgid(r.mgid, 5, 7);
	ck_assert_uint_eq(mcmember_check_create(IPOIB_CREATE, &r),
	    SA_STATUS_OK);
}
END_TEST

START_TEST(test_realize)
{
	struct mcmember_rec r, g;
	uint64_t m = MCM_BIT(MCM_C_MTU) | MCM_BIT(MCM_C_MTU_SEL) |
	    MCM_BIT(MCM_C_RATE) | MCM_BIT(MCM_C_RATE_SEL);

	memset(&r, 0, sizeof(r));
	memset(&g, 0, sizeof(g));
	/* nothing given: the creator port's */
	ck_assert(mcmember_realize(0, &r, 5, 7, &g));
	ck_assert_uint_eq(g.mtu, 5);
	ck_assert_uint_eq(g.rate, 7);
	ck_assert_uint_eq(g.mtu_sel, MCM_SEL_EQ);
	/* exactly */
	r.mtu_sel = MCM_SEL_EQ;
	r.mtu = 4;
	r.rate_sel = MCM_SEL_EQ;
	r.rate = 3;
	ck_assert(mcmember_realize(m, &r, 5, 7, &g));
	ck_assert_uint_eq(g.mtu, 4);
	ck_assert_uint_eq(g.rate, 3);
	/* greater than: the port's, if it is greater */
	r.mtu_sel = MCM_SEL_GT;
	r.rate_sel = MCM_SEL_GT;
	ck_assert(mcmember_realize(m, &r, 5, 7, &g));
	ck_assert_uint_eq(g.mtu, 5);
	ck_assert_uint_eq(g.rate, 7);
	r.mtu = 5;
	ck_assert(!mcmember_realize(m, &r, 5, 7, &g));
	r.mtu = 4;
	r.rate = 7;
	ck_assert(!mcmember_realize(m, &r, 5, 7, &g));
	/* less than: one lower, or the port's when that is lower */
	r.mtu_sel = MCM_SEL_LT;
	r.rate_sel = MCM_SEL_LT;
	r.mtu = 4;
	r.rate = 3;             /* 10 Gb/s: the next slower is 5 Gb/s (5) */
	ck_assert(mcmember_realize(m, &r, 5, 7, &g));
	ck_assert_uint_eq(g.mtu, 3);
	ck_assert_uint_eq(g.rate, 5);
	r.mtu = 1;
	ck_assert(!mcmember_realize(m, &r, 5, 7, &g));
	/* an unknown port: exactly what was asked, else refused */
	ck_assert(!mcmember_realize(0, &r, 0, 0, &g));
}
END_TEST

/* a query's match: the selectors count */
static bool
mcmember_params_match_q(uint64_t mask, const struct mcmember_rec *r,
    const struct mcmember_rec *g)
{
	return mcmember_params_match(mask, true, r, g);
}

START_TEST(test_params_match)
{
	struct mcmember_rec g, r;

	memset(&g, 0, sizeof(g));
	g.qkey = 0x0b1b;
	g.pkey = 0xffff;
	g.mtu = 4;
	g.rate = 3;
	g.life = 18;
	g.sl = 1;
	g.tclass = 0;
	r = g;
	ck_assert(mcmember_params_match_q(UINT64_MAX & ~MCM_BIT(MCM_C_MTU_SEL) &
	    ~MCM_BIT(MCM_C_RATE_SEL) & ~MCM_BIT(MCM_C_LIFE_SEL), &r, &g));
	r.qkey = 1;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_QKEY), &r, &g));
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_SL), &r, &g));
	r = g;
	/* P_Key: same base, at least one full */
	r.pkey = 0x7fff;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_PKEY), &r, &g));
	g.pkey = 0x7fff;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_PKEY), &r, &g));
	g.pkey = 0xffff;
	r.pkey = 0x8001;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_PKEY), &r, &g));
	r = g;
	r.sl = 2;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_SL), &r, &g));
	r = g;
	r.flow_label = 3;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_FLOW), &r, &g));
	r = g;
	r.hop_limit = 3;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_HOP), &r, &g));
	/* selectors */
	r = g;
	r.mtu_sel = MCM_SEL_EQ;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_MTU_SEL), &r, &g));
	r.mtu = 5;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_MTU_SEL), &r, &g));
	r.mtu_sel = MCM_SEL_LT;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_MTU_SEL), &r, &g));
	r.mtu_sel = MCM_SEL_GT;
	r.mtu = 3;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_MTU_SEL), &r, &g));
	r.mtu_sel = MCM_SEL_MAX;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_MTU_SEL), &r, &g));
	/* rates by bandwidth, not by code: 5 (5 Gb/s) < 3 (10 Gb/s) */
	r = g;
	r.rate_sel = MCM_SEL_GT;
	r.rate = 5;
	ck_assert(mcmember_params_match_q(MCM_BIT(MCM_C_RATE_SEL), &r, &g));
	r.rate = 4;             /* 30 Gb/s */
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_RATE_SEL), &r, &g));
	/* a join goes without selectors (issue 22 point 4): a group created
	 * with LIFE|LIFE_SEL "greater than 0" has life 0 and takes the
	 * creator's identical re-join; MTU and rate selectors likewise */
	r = g;
	g.life = 0;
	r.life_sel = MCM_SEL_GT;
	r.life = 0;
	ck_assert(!mcmember_params_match_q(MCM_BIT(MCM_C_LIFE_SEL) |
	    MCM_BIT(MCM_C_LIFE), &r, &g));
	ck_assert(mcmember_params_match(MCM_BIT(MCM_C_LIFE_SEL) |
	    MCM_BIT(MCM_C_LIFE), false, &r, &g));
	r.mtu_sel = MCM_SEL_GT;
	r.mtu = 5;
	r.rate_sel = MCM_SEL_LT;
	r.rate = 2;
	ck_assert(mcmember_params_match(MCM_BIT(MCM_C_MTU_SEL) |
	    MCM_BIT(MCM_C_MTU) | MCM_BIT(MCM_C_RATE_SEL) |
	    MCM_BIT(MCM_C_RATE), false, &r, &g));
	/* the other components still count */
	r.qkey = 7;
	ck_assert(!mcmember_params_match(MCM_BIT(MCM_C_QKEY), false, &r, &g));
}
END_TEST

START_TEST(test_port_and_leave)
{
	struct mcmember_rec g;

	memset(&g, 0, sizeof(g));
	g.mtu = 4;
	g.rate = 3;
	ck_assert(mcmember_port_can_join(&g, 4, 3));
	ck_assert(mcmember_port_can_join(&g, 5, 7));
	ck_assert(!mcmember_port_can_join(&g, 3, 7));
	ck_assert(!mcmember_port_can_join(&g, 5, 5));     /* 5 Gb/s */
	ck_assert(!mcmember_port_can_join(&g, 5, 2));
	/* leave: some bit in common, none it lacks */
	ck_assert(mcmember_leave_ok(1, 9));
	ck_assert(mcmember_leave_ok(8, 9));
	ck_assert(mcmember_leave_ok(9, 9));
	ck_assert(!mcmember_leave_ok(2, 9));
	ck_assert(!mcmember_leave_ok(3, 9));
	ck_assert(!mcmember_leave_ok(0, 9));
	ck_assert(!mcmember_leave_ok(1, 0));
}
END_TEST

START_TEST(test_mgids)
{
	uint8_t m[16], b[16];
	static const uint8_t bc[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x01,
	    0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	mcmember_bcast_mgid(m, 0x0001, 2);
	ck_assert_int_eq(memcmp(m, bc, 16), 0);
	/* the broadcast group itself needs no other */
	ck_assert(!mcmember_ipoib_needs_bcast(m, b));
	/* the IPv6 all-nodes group needs the broadcast group */
	m[2] = 0x60;
	memset(m + 12, 0, 4);
	m[15] = 1;
	ck_assert(mcmember_ipoib_needs_bcast(m, b));
	ck_assert_int_eq(memcmp(b, bc, 16), 0);
	/* an IPv4 group of scope 5: the scope-5 broadcast group */
	mcmember_bcast_mgid(m, 0x0001, 5);
	m[15] = 0xfb;
	ck_assert(mcmember_ipoib_needs_bcast(m, b));
	ck_assert_uint_eq(b[1], 0x15);
	ck_assert_uint_eq(b[15], 0xff);
	/* other signatures: no */
	sa_mgid(m, 5, 1);
	ck_assert(!mcmember_ipoib_needs_bcast(m, b));
}
END_TEST

static struct pkey_policy *
parse(const char *text)
{
	struct pkey_errors e;
	struct pkey_policy *p;

	pkey_errors_init(&e);
	p = pkey_policy_parse("t.conf", text, strlen(text), &e);
	if (p == NULL)
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "%s\n", e.msgs[i].text);
	pkey_errors_fini(&e);
	ck_assert_ptr_nonnull(p);
	return p;
}

START_TEST(test_policy_groups)
{
	struct pkey_policy *p;
	struct mcpolicy_group *g;
	size_t n;
	static const uint8_t bc[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
	    0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	/* no file: Default with its broadcast group, OpenSM's defaults */
	p = pkey_policy_default();
	n = mcpolicy_groups(p, &g);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(memcmp(g[0].mgid, bc, 16), 0);
	ck_assert_uint_eq(g[0].pkey, 0xffff);
	ck_assert_uint_eq(g[0].qkey, 0x0b1b);
	ck_assert_uint_eq(g[0].mtu, 4);
	ck_assert_uint_eq(g[0].rate, 3);
	ck_assert_uint_eq(g[0].scope, 2);
	ck_assert_uint_eq(g[0].hop_limit, 0);
	ck_assert(g[0].broadcast);
	free(g);
	pkey_policy_free(p);

	/* a file without ipoib: no broadcast group */
	p = parse("Default=0x7fff : ALL=full ;\n");
	n = mcpolicy_groups(p, &g);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(g);
	pkey_policy_free(p);

	/* parameters, two scopes, an mgid= line */
	p = parse("Default=0x7fff : ALL=full ;\n"
	    "storage=0x0002, ipoib, mtu=5, rate=7, sl=1, scope=2, scope=5, "
	    "Q_Key=0x11, TClass=3, FlowLabel=0x12 : ALL=full ;\n"
	    "storage=0x0002 : mgid=ff15:a01b:1::42, Q_Key=0x22\n"
	    "  mgid=ff12:401b::ffff:ffff\n ;\n");
	n = mcpolicy_groups(p, &g);
	/* the partition's scopes apply to its mgid= lines; the broadcast
	 * group named again by mgid= is not created twice */
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(g[0].mgid[1], 0x12);
	ck_assert_uint_eq(g[0].mgid[4], 0x80);
	ck_assert_uint_eq(g[0].mgid[5], 0x02);
	ck_assert_uint_eq(g[0].pkey, 0x8002);
	ck_assert_uint_eq(g[0].mtu, 5);
	ck_assert_uint_eq(g[0].rate, 7);
	ck_assert_uint_eq(g[0].sl, SA_SL_NO_QOS);	/* sl=1: no SL-to-VL map */
	ck_assert_uint_eq(g[0].qkey, 0x11);
	ck_assert_uint_eq(g[0].tclass, 3);
	ck_assert_uint_eq(g[0].flow_label, 0x12);
	ck_assert_uint_eq(g[0].line, 2);
	ck_assert_uint_eq(g[1].mgid[1], 0x15);
	ck_assert_uint_eq(g[1].scope, 5);
	ck_assert_uint_eq(g[1].hop_limit, 0xff);
	ck_assert(g[1].broadcast);
	ck_assert(!g[2].broadcast);
	ck_assert_uint_eq(g[2].mgid[1], 0x12);
	ck_assert_uint_eq(g[3].mgid[1], 0x15);
	ck_assert_uint_eq(g[2].mgid[15], 0x42);
	ck_assert_uint_eq(g[2].qkey, 0x22);
	ck_assert_uint_eq(g[2].pkey, 0x8002);
	ck_assert_uint_eq(g[2].line, 3);
	free(g);
	pkey_policy_free(p);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mcmember");
	TCase *t = tcase_create("rules");

	tcase_add_test(t, test_codec_layout);
	tcase_add_test(t, test_codec_libibmad);
	tcase_add_test(t, test_check_request);
	tcase_add_test(t, test_check_create);
	tcase_add_test(t, test_realize);
	tcase_add_test(t, test_params_match);
	tcase_add_test(t, test_port_and_leave);
	tcase_add_test(t, test_mgids);
	tcase_add_test(t, test_policy_groups);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
