/*
 * sa/mcmember.c: the MCMemberRecord handlers and the view hook over an
 * in-memory view (one switch, four CAs, P_Key tables by hand), with the
 * group store and a counting mcast_changed hook.
 *
 * Tables: ca0 and ca1 hold 0xffff and 0x8001, ca2 only 0x8002 (it shares
 * nothing with the others), ca3 0xffff and its NeighborMTU is 1024 bytes.
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mcast/group.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "sa/attr.h"
#include "sa/mcmember.h"
#include "sa/mcpolicy.h"
#include "sa/mcrules.h"
#include "tests/unit/testfab.h"

#define PREFIX UINT64_C(0xfe80000000000000)

static struct fabric F;
static struct pkey_tables PK;
static struct pkey_policy *POL;
static struct sa_view V;
static struct sa_opts O;
static struct mcast_store *S;
static void *ST;
static uint32_t ca[4], sw;
static unsigned nchanged;
static uint16_t last_changed;

static void
on_changed(void *arg, uint16_t mlid)
{
	(void)arg;
	nchanged++;
	last_changed = mlid;
}

static void
set_keys(struct pkey_table *t, unsigned i, uint16_t k0, uint16_t k1)
{
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
link_up(uint32_t p, unsigned mtu)
{
	struct fabric_port *port = &F.ports[p];

	port->state = PORT_ACTIVE;
	port->info_valid = 1;
	mad_set_field(port->info, 0, IB_PORT_STATE_F, PORT_ACTIVE);
	mad_set_field(port->info, 0, IB_PORT_NEIGHBOR_MTU_F, mtu);
	mad_set_field(port->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);  /* 4X */
	mad_set_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 1);  /* SDR */
}

static struct pkey_policy *
parse(const char *text)
{
	struct pkey_errors e;
	struct pkey_policy *p;

	pkey_errors_init(&e);
	p = pkey_policy_parse("t.conf", text, strlen(text), &e);
	pkey_errors_fini(&e);
	ck_assert_ptr_nonnull(p);
	return p;
}

static const char *const POLICY =
    "Default=0x7fff, ipoib : ALL=full ;\n"
    "one=0x0001, ipoib, scope=2, scope=5 : ALL=full ;\n"
    "two=0x0002, ipoib : ALL=full ;\n";

static void
setup(void)
{
	uint32_t n;
	unsigned i;

	fabric_init(&F);
	sw = testfab_switch(&F, 8);
	F.nodes[sw].sw_info_valid = 1;
	mad_set_field(F.nodes[sw].sw_info, 0, IB_SW_MCAST_FDB_CAP_F, 16);
	for (i = 0; i < 4; i++) {
		n = testfab_ca(&F, 1);
		testfab_connect(&F, sw, (uint8_t)(i + 1), n, 1);
		ca[i] = fabric_port_idx(&F, n, 1);
		link_up(ca[i], i == 3 ? 3 : 4);
	}
	testfab_lids(&F);
	PK.n = 4;
	PK.v = calloc(4, sizeof(*PK.v));
	set_keys(&PK.v[0], 0, 0xffff, 0x8001);
	set_keys(&PK.v[1], 1, 0xffff, 0x8001);
	set_keys(&PK.v[2], 2, 0x8002, 0);
	set_keys(&PK.v[3], 3, 0xffff, 0);
	pkey_tables_sort(&PK);
	POL = parse(POLICY);
	memset(&V, 0, sizeof(V));
	V.f = &F;
	V.pk = &PK;
	V.policy = POL;
	V.subnet_prefix = PREFIX;
	S = mcast_store_new();
	memset(&O, 0, sizeof(O));
	O.sa_key = 1;
	O.subnet_timeout = 18;
	O.mcast = S;
	O.mcast_changed = on_changed;
	ST = sa_mcmember_state_new(&O);
	nchanged = 0;
	sa_mcmember_state_view(ST, NULL, &V);
}

static void
teardown(void)
{
	sa_mcmember_state_free(ST);
	mcast_store_free(S);
	pkey_policy_free(POL);
	pkey_tables_free(&PK);
	fabric_fini(&F);
}

/* ---- requests */

static struct vport_set VS;     /* test_vport_join: vports of ca0 */

/* p past the fabric's ports: vport p - F.nports of VS */
static void
port_gid(uint8_t gid[16], uint32_t p)
{
	uint64_t g = p < F.nports ? F.ports[p].guid : VS.v[p - F.nports].guid;

	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(g >> (56 - 8 * i));
	}
}

static unsigned
call(uint8_t method, uint32_t from, uint64_t mask, const struct mcmember_rec *r,
    bool trusted, struct sa_out *out, size_t limit)
{
	const struct sa_attr *a = &sa_attr_mcmember;
	uint8_t rec[SA_MCMEMBER_REC_SIZE];
	struct sa_req q;
	struct sa_ctx c = { .sa = NULL, .v = &V, .o = &O, .state = ST };

	mcmember_encode(r, rec);
	memset(&q, 0, sizeof(q));
	q.method = method;
	q.attr = SA_ATTR_MCMEMBER_REC;
	q.comp_mask = mask;
	q.trusted = trusted;
	q.rec = rec;
	q.requester = from;
	sa_out_init(out, SA_MCMEMBER_REC_SIZE, limit);
	if (method == MAD_SET)
		return a->set(&c, &q, out);
	if (method == MAD_DELETE)
		return a->del(&c, &q, out);
	return a->get(&c, &q, out);
}

/* A Set or Delete by port `from` for port `who`; the answer in *ans. */
static unsigned
req(uint8_t method, uint32_t from, uint32_t who, const uint8_t mgid[16],
    uint8_t js, uint64_t extra, const struct mcmember_rec *params,
    struct mcmember_rec *ans)
{
	struct mcmember_rec r;
	struct sa_out out;
	unsigned st;

	if (params != NULL)
		r = *params;
	else
		memset(&r, 0, sizeof(r));
	memcpy(r.mgid, mgid, 16);
	port_gid(r.port_gid, who);
	r.join_state = js;
	st = call(method, from, MCM_JOIN_MASK | extra, &r, false, &out, 1);
	if (st == SA_STATUS_OK) {
		ck_assert_uint_eq(out.n, 1);
		if (ans != NULL)
			mcmember_decode(out.recs, ans);
	}
	sa_out_fini(&out);
	return st;
}

#define JOIN(from, mgid, js) \
	req(MAD_SET, ca[from], ca[from], (mgid), (js), 0, NULL, NULL)
#define LEAVE(from, mgid, js) \
	req(MAD_DELETE, ca[from], ca[from], (mgid), (js), 0, NULL, NULL)

/* A create-capable record in the Default partition. */
static struct mcmember_rec
create_params(void)
{
	struct mcmember_rec r;

	memset(&r, 0, sizeof(r));
	r.qkey = 0x0b1b;
	r.pkey = 0xffff;
	return r;
}

static unsigned
create(unsigned from, const uint8_t mgid[16], uint8_t js,
    struct mcmember_rec *ans)
{
	struct mcmember_rec p = create_params();

	return req(MAD_SET, ca[from], ca[from], mgid, js, MCM_CREATE_MASK, &p,
	    ans);
}

static void
mgid_of(uint8_t m[16], uint8_t n)
{
	memset(m, 0, 16);
	m[0] = 0xff;
	m[1] = 0x15;
	m[2] = 0x12;
	m[3] = 0x34;
	m[15] = n;
}

/* ---- tests */

START_TEST(test_precreated)
{
	uint8_t b[16];
	const struct mcast_group *g;

	/* Default, one (two scopes), two */
	ck_assert_uint_eq(mcast_count(S), 4);
	ck_assert_uint_eq(mcast_mlid_limit(S), 16);
	mcmember_bcast_mgid(b, 0x7fff, 2);
	g = mcast_find(S, b);
	ck_assert_ptr_nonnull(g);
	ck_assert(g->well_known);
	ck_assert_uint_eq(g->p.qkey, 0x0b1b);
	ck_assert_uint_eq(g->p.mtu, 4);
	ck_assert_uint_eq(g->p.rate, 3);
	ck_assert_uint_eq(g->p.pkey, 0xffff);
	ck_assert_uint_eq(g->p.pkt_life, 18);
	ck_assert_uint_ge(g->mlid, 0xc000);
	ck_assert_uint_lt(g->mlid, 0xc000 + 16);
	mcmember_bcast_mgid(b, 0x0001, 5);
	g = mcast_find(S, b);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->p.hop_limit, 0xff);
	/* a second view with the same policy creates nothing more */
	sa_mcmember_state_view(ST, &V, &V);
	ck_assert_uint_eq(mcast_count(S), 4);
}
END_TEST

START_TEST(test_bcast_join)
{
	uint8_t b[16];
	struct mcmember_rec a;
	const struct mcast_group *g;

	mcmember_bcast_mgid(b, 0x7fff, 2);
	g = mcast_find(S, b);
	nchanged = 0;
	/* IPoIB's mask: MGID, PortGID, P_Key, JoinState */
	{
		struct mcmember_rec p = create_params();

		ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], b, 1,
		    MCM_BIT(MCM_C_PKEY), &p, &a), SA_STATUS_OK);
	}
	ck_assert_uint_eq(a.join_state, 1);
	ck_assert_uint_eq(a.qkey, 0x0b1b);
	ck_assert_uint_eq(a.mlid, g->mlid);
	ck_assert_uint_eq(a.mtu_sel, MCM_SEL_EQ);
	ck_assert_uint_eq(a.mtu, 4);
	ck_assert_uint_eq(a.rate, 3);
	ck_assert_uint_eq(a.scope, 2);
	ck_assert_uint_eq(nchanged, 1);
	ck_assert_uint_eq(last_changed, g->mlid);
	/* the merged JoinState comes back */
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], b, 2, 0, NULL, &a),
	    SA_STATUS_OK);
	ck_assert_uint_eq(a.join_state, 3);
	/* the same join again changes nothing: no tree work */
	nchanged = 0;
	ck_assert_uint_eq(JOIN(0, b, 2), SA_STATUS_OK);
	ck_assert_uint_eq(nchanged, 0);
	/* ca3's NeighborMTU (1024) is below the group's (2048) */
	ck_assert_uint_eq(JOIN(3, b, 1), SA_STATUS_REQ_INVALID);
	/* ca2 does not hold the Default P_Key */
	ck_assert_uint_eq(JOIN(2, b, 1), SA_STATUS_REQ_INVALID);
	/* a given component must match: Q_Key */
	{
		struct mcmember_rec p = create_params();

		p.qkey = 7;
		ck_assert_uint_eq(req(MAD_SET, ca[1], ca[1], b, 1,
		    MCM_BIT(MCM_C_QKEY), &p, NULL), SA_STATUS_REQ_INVALID);
	}
	/* JoinState 0 */
	ck_assert_uint_eq(JOIN(1, b, 0), SA_STATUS_REQ_INVALID);
	/* too few components */
	{
		struct mcmember_rec r;
		struct sa_out out;

		memset(&r, 0, sizeof(r));
		memcpy(r.mgid, b, 16);
		port_gid(r.port_gid, ca[1]);
		r.join_state = 1;
		ck_assert_uint_eq(call(MAD_SET, ca[1], MCM_BIT(MCM_C_MGID) |
		    MCM_BIT(MCM_C_JOIN_STATE), &r, false, &out, 1),
		    SA_STATUS_INSUFFICIENT_COMPONENTS);
		sa_out_fini(&out);
	}
}
END_TEST

START_TEST(test_gid_checks)
{
	uint8_t b[16];
	struct mcmember_rec r;
	struct sa_out out;

	mcmember_bcast_mgid(b, 0x7fff, 2);
	memset(&r, 0, sizeof(r));
	memcpy(r.mgid, b, 16);
	port_gid(r.port_gid, ca[0]);
	r.join_state = 1;
	/* another subnet's prefix */
	r.port_gid[0] = 0xfe;
	r.port_gid[1] = 0xc0;
	ck_assert_uint_eq(call(MAD_SET, ca[0], MCM_JOIN_MASK, &r, false, &out,
	    1), SA_STATUS_INVALID_GID);
	sa_out_fini(&out);
	/* an unknown port GUID */
	port_gid(r.port_gid, ca[0]);
	r.port_gid[15] ^= 0x55;
	ck_assert_uint_eq(call(MAD_SET, ca[0], MCM_JOIN_MASK, &r, false, &out,
	    1), SA_STATUS_REQ_INVALID);
	sa_out_fini(&out);
	/* a requester the view does not know: dropped, as OpenSM */
	port_gid(r.port_gid, ca[0]);
	ck_assert_uint_eq(call(MAD_SET, FABRIC_NONE, MCM_JOIN_MASK, &r, false,
	    &out, 1), SA_STATUS_DROP);
	sa_out_fini(&out);
	ck_assert_uint_eq(call(MAD_GETTABLE, FABRIC_NONE, 0, &r, false,
	    &out, 0), SA_STATUS_DROP);
	sa_out_fini(&out);
}
END_TEST

START_TEST(test_proxy)
{
	uint8_t b[16];
	struct mcmember_rec a;

	mcmember_bcast_mgid(b, 0x0001, 2);
	/* ca0 joins ca1 (they share 0x8001) */
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[1], b, 1, 0, NULL, &a),
	    SA_STATUS_OK);
	ck_assert(a.proxy);
	/* ca2 shares nothing with ca1: no proxy join */
	mcmember_bcast_mgid(b, 0x0002, 2);
	ck_assert_uint_eq(req(MAD_SET, ca[2], ca[1], b, 1, 0, NULL, NULL),
	    SA_STATUS_REQ_INVALID);
	/* ca0's own membership: only ca0 changes it */
	mcmember_bcast_mgid(b, 0x7fff, 2);
	ck_assert_uint_eq(JOIN(0, b, 1), SA_STATUS_OK);
	ck_assert_uint_eq(req(MAD_DELETE, ca[1], ca[0], b, 1, 0, NULL, NULL),
	    SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(req(MAD_SET, ca[1], ca[0], b, 2, 0, NULL, NULL),
	    SA_STATUS_REQ_INVALID);
	/* a proxy membership: any port of the group's partition */
	mcmember_bcast_mgid(b, 0x0001, 2);
	ck_assert_uint_eq(req(MAD_DELETE, ca[1], ca[1], b, 1, 0, NULL, &a),
	    SA_STATUS_OK);
	ck_assert_uint_eq(a.join_state, 0);
}
END_TEST

START_TEST(test_create_and_leak)
{
	uint8_t m[16], z[16] = { 0 };
	struct mcmember_rec a, p;
	uint16_t mlid;
	size_t n0 = mcast_count(S);

	mgid_of(m, 1);
	/* non members cannot create; the join mask alone cannot either */
	ck_assert_uint_eq(JOIN(0, m, 2), SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(create(0, m, 2, NULL), SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(JOIN(0, m, 1), SA_STATUS_INSUFFICIENT_COMPONENTS);
	nchanged = 0;
	ck_assert_uint_eq(create(0, m, 9, &a), SA_STATUS_OK);
	ck_assert_uint_eq(a.join_state, 9);
	ck_assert_uint_eq(a.mtu, 4);            /* the creator's NeighborMTU */
	ck_assert_uint_eq(a.rate, 3);           /* 4X SDR */
	ck_assert_uint_eq(a.life, 18);
	ck_assert_uint_eq(nchanged, 1);
	mlid = a.mlid;
	ck_assert_uint_eq(mcast_count(S), n0 + 1);
	ck_assert_uint_eq(JOIN(1, m, 2), SA_STATUS_OK);
	/* leave bits one does not have: refused */
	ck_assert_uint_eq(LEAVE(0, m, 2), SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(LEAVE(0, m, 1), SA_STATUS_OK);
	ck_assert_ptr_nonnull(mcast_find(S, m));        /* 8 is full */
	ck_assert_uint_eq(LEAVE(0, m, 8), SA_STATUS_OK);
	/* no full member left: the group and ca1's non membership go */
	ck_assert_ptr_null(mcast_find(S, m));
	ck_assert_uint_eq(mcast_count(S), n0);
	ck_assert_uint_eq(LEAVE(1, m, 2), SA_STATUS_REQ_INVALID);
	/* the MLID is free again */
	mgid_of(m, 2);
	ck_assert_uint_eq(create(1, m, 1, &a), SA_STATUS_OK);
	ck_assert_uint_eq(a.mlid, mlid);
	ck_assert_uint_eq(LEAVE(1, m, 1), SA_STATUS_OK);
	/* MGID 0: the SA names the group, link-local unless Scope is given */
	ck_assert_uint_eq(create(0, z, 1, &a), SA_STATUS_OK);
	ck_assert_uint_eq(a.mgid[0], 0xff);
	ck_assert_uint_eq(a.mgid[1], 0x12);
	ck_assert_uint_eq(a.mgid[2], 0xa0);
	ck_assert_uint_eq(a.mgid[3], 0x1b);
	ck_assert_ptr_nonnull(mcast_find(S, a.mgid));
	ck_assert_uint_eq(LEAVE(0, a.mgid, 1), SA_STATUS_OK);
	/* an IPoIB group copies its broadcast group; partition two's
	 * broadcast group exists, a 0x601b group of partition 3 has none */
	p = create_params();
	p.pkey = 0xffff;
	mcmember_bcast_mgid(m, 0x7fff, 2);
	m[2] = 0x60;
	memset(m + 12, 0, 4);
	m[15] = 1;
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], m, 1, MCM_CREATE_MASK, &p,
	    NULL), SA_STATUS_OK);
	p.qkey = 0x1234;
	m[15] = 2;
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], m, 1, MCM_CREATE_MASK, &p,
	    NULL), SA_STATUS_REQ_INVALID);
	p.qkey = 0x0b1b;
	p.pkey = 0x8003;
	m[4] = 0x80;
	m[5] = 0x03;
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], m, 1, MCM_CREATE_MASK, &p,
	    NULL), SA_STATUS_REQ_INVALID);
	/* a port without the P_Key cannot create in that partition */
	mgid_of(m, 3);
	p = create_params();
	p.pkey = 0x8002;
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], m, 1, MCM_CREATE_MASK, &p,
	    NULL), SA_STATUS_REQ_INVALID);
}
END_TEST

START_TEST(test_mlids_run_out)
{
	uint8_t m[16];
	unsigned i, ok = 0;

	/* 16 MLIDs, 4 held by pre-created groups */
	for (i = 0; i < 20; i++) {
		mgid_of(m, (uint8_t)(10 + i));
		if (create(0, m, 1, NULL) == SA_STATUS_OK)
			ok++;
		else
			ck_assert_uint_eq(create(0, m, 1, NULL),
			    SA_STATUS_NO_RESOURCES);
	}
	ck_assert_uint_eq(ok, 12);
}
END_TEST

START_TEST(test_get_scoping)
{
	uint8_t b[16];
	struct mcmember_rec r, a;
	struct sa_out out;
	size_t i;

	mcmember_bcast_mgid(b, 0x7fff, 2);
	ck_assert_uint_eq(JOIN(0, b, 1), SA_STATUS_OK);
	ck_assert_uint_eq(JOIN(1, b, 2), SA_STATUS_OK);
	memset(&r, 0, sizeof(r));
	/* untrusted, no PortGID: one record per group, port fields zero */
	ck_assert_uint_eq(call(MAD_GETTABLE, ca[0], 0, &r, false, &out, 0),
	    SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 3);    /* Default, one x2; not two */
	for (i = 0; i < out.n; i++) {
		mcmember_decode(out.recs + i * SA_MCMEMBER_REC_SIZE, &a);
		ck_assert_uint_eq(a.join_state, 0);
		ck_assert_uint_eq(a.port_gid[15], 0);
		ck_assert(a.pkey == 0xffff || a.pkey == 0x8001);
	}
	sa_out_fini(&out);
	/* ca2 sees only its partition's group */
	ck_assert_uint_eq(call(MAD_GETTABLE, ca[2], 0, &r, false, &out, 0),
	    SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 1);
	mcmember_decode(out.recs, &a);
	ck_assert_uint_eq(a.pkey, 0x8002);
	sa_out_fini(&out);
	/* trusted: one record per member */
	memcpy(r.mgid, b, 16);
	ck_assert_uint_eq(call(MAD_GETTABLE, ca[3], MCM_BIT(MCM_C_MGID), &r,
	    true, &out, 0), SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 2);
	mcmember_decode(out.recs, &a);
	ck_assert_uint_ne(a.join_state, 0);
	sa_out_fini(&out);
	/* ... selected by JoinState */
	r.join_state = 2;
	ck_assert_uint_eq(call(MAD_GETTABLE, ca[3], MCM_BIT(MCM_C_MGID) |
	    MCM_BIT(MCM_C_JOIN_STATE), &r, true, &out, 0), SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 1);
	mcmember_decode(out.recs, &a);
	port_gid(r.port_gid, ca[1]);
	ck_assert_int_eq(memcmp(a.port_gid, r.port_gid, 16), 0);
	sa_out_fini(&out);
	/* a Get by MGID and PortGID */
	ck_assert_uint_eq(call(MAD_GET, ca[1], MCM_BIT(MCM_C_MGID) |
	    MCM_BIT(MCM_C_PORT_GID), &r, true, &out, 2), SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 1);
	mcmember_decode(out.recs, &a);
	ck_assert_uint_eq(a.join_state, 2);
	sa_out_fini(&out);
	/* ca2 cannot see the Default group even by MGID */
	ck_assert_uint_eq(call(MAD_GETTABLE, ca[2], MCM_BIT(MCM_C_MGID), &r,
	    true, &out, 0), SA_STATUS_OK);
	ck_assert_uint_eq(out.n, 0);
	sa_out_fini(&out);
}
END_TEST

START_TEST(test_reload)
{
	uint8_t b1[16], b5[16], bd[16];
	struct pkey_policy *np;
	struct sa_view nv;

	mcmember_bcast_mgid(b1, 0x0001, 2);
	mcmember_bcast_mgid(b5, 0x0001, 5);
	mcmember_bcast_mgid(bd, 0x7fff, 2);
	ck_assert_uint_eq(JOIN(0, b1, 1), SA_STATUS_OK);
	/* partition one loses ipoib, Default gets mtu=3 */
	np = parse("Default=0x7fff, ipoib, mtu=3 : ALL=full ;\n"
	    "one=0x0001 : ALL=full ;\n"
	    "two=0x0002, ipoib : ALL=full ;\n");
	nv = V;
	nv.policy = np;
	nchanged = 0;
	sa_mcmember_state_view(ST, &V, &nv);
	ck_assert_ptr_null(mcast_find(S, b5));          /* no member: gone */
	ck_assert_ptr_nonnull(mcast_find(S, b1));       /* ca0 is full */
	ck_assert(!mcast_find(S, b1)->well_known);
	ck_assert_uint_eq(mcast_find(S, bd)->p.mtu, 3);
	ck_assert_uint_ge(nchanged, 1);
	ck_assert_uint_eq(LEAVE(0, b1, 1), SA_STATUS_OK);
	ck_assert_ptr_null(mcast_find(S, b1));
	/* back: created again */
	sa_mcmember_state_view(ST, &nv, &V);
	ck_assert_ptr_nonnull(mcast_find(S, b5));
	ck_assert_uint_eq(mcast_find(S, bd)->p.mtu, 4);
	pkey_policy_free(np);
}
END_TEST

START_TEST(test_qos_groups)
{
	uint8_t bd[16], b1[16], b2[16], m[16];
	struct pkey_policy *np;
	struct qos_policy *qp;
	struct pkey_errors e;
	struct sa_view nv;
	struct mcmember_rec ans, p = create_params();
	static const char qtext[] =
	    "qos-ulps\n"
	    "  default : 1\n"
	    "  ipoib : 4\n"
	    "  any, pkey 0x0002 : 11\n"
	    "  any, source-port-guid 0x0002c90300000001-0xffffffffffffffff : 9\n"
	    "end-qos-ulps\n";

	mcmember_bcast_mgid(bd, 0x7fff, 2);
	mcmember_bcast_mgid(b1, 0x0001, 2);
	mcmember_bcast_mgid(b2, 0x0002, 2);
	/* qos off: SL 0 whatever sl= says */
	np = parse("Default=0x7fff, ipoib : ALL=full ;\n"
	    "one=0x0001, ipoib, sl=7 : ALL=full ;\n"
	    "two=0x0002, ipoib, sl=6 : ALL=full ;\n");
	nv = V;
	nv.policy = np;
	sa_mcmember_state_view(ST, &V, &nv);
	ck_assert_uint_eq(mcast_find(S, b1)->p.sl, SA_SL_NO_QOS);
	/* qos on, no policy file: the partitions' sl= */
	nv.qos = true;
	sa_mcmember_state_view(ST, &V, &nv);
	ck_assert_uint_eq(mcast_find(S, bd)->p.sl, 0);
	ck_assert_uint_eq(mcast_find(S, b1)->p.sl, 7);
	ck_assert_uint_eq(mcast_find(S, b2)->p.sl, 6);
	/* a policy: its level by P_Key first (rules naming ports do not
	 * apply), the DEFAULT level for the rest */
	pkey_errors_init(&e);
	qp = qos_policy_parse("q.conf", qtext, sizeof(qtext) - 1, np, &e);
	ck_assert_ptr_nonnull(qp);
	pkey_errors_fini(&e);
	nv.qos_policy = qp;
	sa_mcmember_state_view(ST, &V, &nv);
	ck_assert_uint_eq(mcast_find(S, bd)->p.sl, 4);
	ck_assert_uint_eq(mcast_find(S, b1)->p.sl, 1);
	ck_assert_uint_eq(mcast_find(S, b2)->p.sl, 11);
	/* a group a client creates keeps the SL it gives */
	mgid_of(m, 9);
	p.sl = 2;
	V = nv;
	ck_assert_uint_eq(req(MAD_SET, ca[0], ca[0], m, 1, MCM_CREATE_MASK,
	    &p, &ans), SA_STATUS_OK);
	ck_assert_uint_eq(ans.sl, 2);
	/* back to qos off */
	V.qos = false;
	V.qos_policy = NULL;
	V.policy = POL;
	sa_mcmember_state_view(ST, &nv, &V);
	ck_assert_uint_eq(mcast_find(S, bd)->p.sl, SA_SL_NO_QOS);
	qos_policy_free(qp);
	pkey_policy_free(np);
}
END_TEST

START_TEST(test_port_gone)
{
	uint8_t m[16];
	struct fabric_port *p;

	mgid_of(m, 7);
	ck_assert_uint_eq(create(1, m, 1, NULL), SA_STATUS_OK);
	ck_assert_uint_eq(JOIN(0, m, 2), SA_STATUS_OK);
	/* ca1 leaves the fabric: its membership goes, and with it the
	 * group (ca0 is only a non member) */
	testfab_unlink(&F, F.ports[ca[1]].node, 1);
	p = &F.ports[ca[1]];
	p->present = 0;
	sa_mcmember_state_view(ST, &V, &V);
	ck_assert_ptr_null(mcast_find(S, m));
}
END_TEST

/* vports 1 (red 0x8001) and 2 (blue 0x8002) of ca0 (LIDs of their
 * own), joining from their own GIDs */
START_TEST(test_vport_join)
{
	struct pkey_table vpk[3];
	uint16_t keys[3] = { 0, 0x8001, 0x8002 };
	struct mcmember_rec a;
	uint8_t b1[16], b2[16];
	uint32_t h, v, v1, v2;
	const struct mcast_group *g;

	vport_set_init(&VS);
	h = vport_host_add(&VS, ca[0]);
	memset(vpk, 0, sizeof(vpk));
	for (unsigned i = 0; i < 3; i++) {
		v = vport_add(&VS, h, (uint16_t)i);
		VS.v[v].info_valid = 1;
		VS.v[v].state = PORT_ACTIVE;
		VS.v[v].flags = 0x04;
		VS.v[v].own_lid = i ? (uint16_t)(100 + i) : 0;
		ck_assert(vport_set_guid(&VS, v, i ? 0xc0ffee00ULL + i :
		    F.ports[ca[0]].guid));
		vpk[v] = (struct pkey_table){ .guid = VS.v[v].guid,
		    .port = F.nports + v, .keys = &keys[i], .cap = i ? 1 : 0 };
	}
	vport_resolve_lids(&VS, &F);
	V.vports = &VS;
	V.vport_pk = vpk;
	sa_mcmember_state_view(ST, &V, &V);
	v1 = F.nports + 1;
	v2 = F.nports + 2;
	mcmember_bcast_mgid(b1, 0x0001, 2);
	mcmember_bcast_mgid(b2, 0x0002, 2);
	/* vport 1 joins red's IPoIB group from its own GID: not a proxy */
	ck_assert_uint_eq(req(MAD_SET, v1, v1, b1, 1, 0, NULL, &a),
	    SA_STATUS_OK);
	ck_assert(!a.proxy);
	ck_assert_uint_eq(a.pkey & 0x7fff, 0x0001);
	g = mcast_find(S, b1);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(mcast_member_find(g, 0xc0ffee01ULL));
	/* ... and not blue's (its VPortPKeyTable lacks 0x0002) */
	ck_assert_uint_eq(req(MAD_SET, v1, v1, b2, 1, 0, NULL, NULL),
	    SA_STATUS_REQ_INVALID);
	/* vport 2 may not join for vport 1 (no shared partition) */
	ck_assert_uint_eq(req(MAD_SET, v2, v1, b2, 1, 0, NULL, NULL),
	    SA_STATUS_REQ_INVALID);
	ck_assert_uint_eq(req(MAD_SET, v2, v2, b2, 1, 0, NULL, NULL),
	    SA_STATUS_OK);
	/* the physical port (Default only) may not join blue */
	ck_assert_uint_eq(JOIN(0, b2, 1), SA_STATUS_REQ_INVALID);
	/* Get from vport 1: red's and Default's groups, not blue's */
	{
		struct mcmember_rec r;
		struct sa_out out;

		memset(&r, 0, sizeof(r));
		call(MAD_GETTABLE, v1, 0, &r, false, &out, 100);
		for (size_t i = 0; i < out.n; i++) {
			mcmember_decode(out.recs + i * SA_MCMEMBER_REC_SIZE,
			    &r);
			ck_assert_uint_ne(r.pkey & 0x7fff, 0x0002);
		}
		sa_out_fini(&out);
	}
	/* vport 1 leaves */
	ck_assert_uint_eq(req(MAD_DELETE, v1, v1, b1, 1, 0, NULL, &a),
	    SA_STATUS_OK);
	ck_assert_ptr_null(mcast_member_find(mcast_find(S, b1),
	    0xc0ffee01ULL));
	/* the VM stops: vport 2's membership goes with it */
	VS.v[2].state = PORT_DOWN;
	vport_resolve_lids(&VS, &F);
	sa_mcmember_state_view(ST, &V, &V);
	ck_assert_ptr_null(mcast_member_find(mcast_find(S, b2),
	    0xc0ffee02ULL));
	V.vports = NULL;
	V.vport_pk = NULL;
	vport_set_fini(&VS);
}
END_TEST

static void
count_line(void *arg, const char *line)
{
	(*(unsigned *)arg)++;
	ck_assert_ptr_nonnull(strstr(line, "port 1"));
}

START_TEST(test_unjoinable_ports)
{
	struct mcpolicy_group *g;
	struct sa_mcmember_stats st;
	unsigned lines = 0;
	size_t n;

	n = mcpolicy_groups(POL, &g);
	/* ca3 holds 0xffff with NeighborMTU 1024 < 2048 */
	ck_assert_uint_eq(mcpolicy_check_ports(&V, g, n, count_line, &lines),
	    1);
	ck_assert_uint_eq(lines, 1);
	free(g);
	(void)st;
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("sa_mcmember");
	TCase *t = tcase_create("handlers");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_precreated);
	tcase_add_test(t, test_bcast_join);
	tcase_add_test(t, test_gid_checks);
	tcase_add_test(t, test_proxy);
	tcase_add_test(t, test_create_and_leak);
	tcase_add_test(t, test_mlids_run_out);
	tcase_add_test(t, test_get_scoping);
	tcase_add_test(t, test_reload);
	tcase_add_test(t, test_qos_groups);
	tcase_add_test(t, test_port_gone);
	tcase_add_test(t, test_vport_join);
	tcase_add_test(t, test_unjoinable_ports);
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
