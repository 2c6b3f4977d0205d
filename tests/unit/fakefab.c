/*
 * A fake fabric answering SMPs from in-memory devices; see fakefab.h.
 */
#include "tests/unit/fakefab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"

#define MAD_SIZE        256
#define DATA_OFFSET     64
#define DR_PERMISSIVE   0xFFFF
#define LFT_BLOCK       64
#define PKEY_BLOCK      32

/* MAD status values (IBA 13.4.7): method unsupported, method/attribute
 * combination unsupported, bad attribute or modifier value. */
#define ST_BAD_METHOD   0x0008
#define ST_UNSUP_ATTR   0x000C
#define ST_BAD_VALUE    0x001C

struct fakefab_rule {
	struct fakefab_match m;
	enum fakefab_action action;
	uint16_t status;
	unsigned left;          /* 0: forever */
	bool spent;
};

static void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size)) == NULL) {
		perror("fakefab");
		abort();
	}
	return p;
}

/* ---- the fake transport ----------------------------------------------
 * Everything this file knows of the transport's test API is here: how
 * many MADs were sent, one of them (copied, with its destination LID and
 * timeout), and handing a MAD or a failed send back to the receiver. */

struct xport_mad {
	uint8_t mad[MAD_SIZE];
	uint16_t dlid;
	int timeout_ms;
};

static size_t
xport_nsent(void)
{
	return fake_nsent();
}

static void
xport_sent(size_t i, struct xport_mad *out)
{
	const struct fake_mad *m = fake_sent(i);

	memcpy(out->mad, m->mad, MAD_SIZE);
	out->dlid = m->dlid;
	out->timeout_ms = m->timeout_ms;
}

static void
xport_answer(const uint8_t *mad, uint16_t slid)
{
	fake_deliver(mad, MAD_SIZE, 0, slid);
}

static void
xport_timed_out(const uint8_t *req)
{
	fake_deliver(req, MAD_SIZE, ETIMEDOUT, 0);
}

/* ---- devices ---------------------------------------------------------- */

static uint32_t
get(const uint8_t *d, enum MAD_FIELDS f)
{
	return mad_get_field((void *)d, 0, f);
}

static void
set(uint8_t *d, enum MAD_FIELDS f, uint32_t v)
{
	mad_set_field(d, 0, f, v);
}

static void
init_port(struct fakefab_node *n, uint8_t num, bool cabled)
{
	struct fakefab_port *p = &n->ports[num];
	uint8_t *i = p->info;
	bool sw = n->type == NODE_SWITCH;

	memset(i, 0, 64);
	set(i, IB_PORT_LOCAL_PORT_F, num);
	set(i, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);      /* 1x, 4x */
	set(i, IB_PORT_LINK_WIDTH_ENABLED_F, 3);
	set(i, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	set(i, IB_PORT_LINK_SPEED_SUPPORTED_F, 1);
	set(i, IB_PORT_LINK_SPEED_ENABLED_F, 1);
	set(i, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
	set(i, IB_PORT_LINK_DOWN_DEF_F, PHYS_POLLING);
	set(i, IB_PORT_MTU_CAP_F, sw && num == 0 ? 3 : 4);
	set(i, IB_PORT_NEIGHBOR_MTU_F, 1);
	set(i, IB_PORT_VL_CAP_F, 4);
	set(i, IB_PORT_OPER_VLS_F, 1);
	set(i, IB_PORT_GUID_CAP_F, 1);
	if (sw && num == 0) {
		set(i, IB_PORT_STATE_F, PORT_ACTIVE);
		set(i, IB_PORT_PHYS_STATE_F, PHYS_LINKUP);
	} else if (cabled) {
		set(i, IB_PORT_STATE_F, PORT_INIT);
		set(i, IB_PORT_PHYS_STATE_F, PHYS_LINKUP);
	} else {
		set(i, IB_PORT_STATE_F, PORT_DOWN);
		set(i, IB_PORT_PHYS_STATE_F, PHYS_POLLING);
	}
	if (sw)
		p->pkey_cap = num == 0 ? FAKEFAB_SW_PKEYS : FAKEFAB_ENFORCE_PKEYS;
	else
		p->pkey_cap = num == 0 ? 0 : FAKEFAB_CA_PKEYS;
	if (p->pkey_cap > 0) {
		p->pkeys = xcalloc(p->pkey_cap, sizeof(*p->pkeys));
		p->pkeys[0] = 0xFFFF;
	}
}

/* A node as it powers on: NodeInfo, SwitchInfo, an empty LFT, every port
 * as init_port() has it. Its GUIDs and cables are already set. */
static void
power_on(struct fakefab_node *n, uint32_t idx)
{
	uint8_t *ni = n->node_info;

	for (unsigned i = 0; i <= n->nports; i++) {
		free(n->ports[i].pkeys);
		n->ports[i].pkeys = NULL;
		init_port(n, (uint8_t)i, n->ports[i].peer_node != FABRIC_NONE);
	}
	memset(ni, 0, 64);
	set(ni, IB_NODE_BASE_VERS_F, 1);
	set(ni, IB_NODE_CLASS_VERS_F, 1);
	set(ni, IB_NODE_TYPE_F, n->type);
	set(ni, IB_NODE_NPORTS_F, n->nports);
	mad_set_field64(ni, 0, IB_NODE_SYSTEM_GUID_F, n->guid);
	mad_set_field64(ni, 0, IB_NODE_GUID_F, n->guid);
	set(ni, IB_NODE_PARTITION_CAP_F, n->type == NODE_SWITCH ?
	    FAKEFAB_SW_PKEYS : FAKEFAB_CA_PKEYS);
	set(ni, IB_NODE_DEVID_F, 0xfab);
	set(ni, IB_NODE_VENDORID_F, 0x2c9);
	snprintf(n->desc, sizeof(n->desc), "%s%u",
	    n->type == NODE_SWITCH ? "sw" : "ca", idx);
	if (n->type != NODE_SWITCH)
		return;
	memset(n->sw_info, 0, 64);
	set(n->sw_info, IB_SW_LINEAR_FDB_CAP_F, FAKEFAB_LFT_CAP);
	set(n->sw_info, IB_SW_STATE_CHANGE_F, 1);
	set(n->sw_info, IB_SW_PARTITION_ENFORCE_CAP_F, FAKEFAB_ENFORCE_PKEYS);
	if (n->lft == NULL && (n->lft = malloc(FAKEFAB_LFT_CAP)) == NULL)
		abort();
	memset(n->lft, 0xFF, FAKEFAB_LFT_CAP);
}

static void
init_node(struct fakefab *ff, const struct fabric *f, uint32_t idx)
{
	const struct fabric_node *src = &f->nodes[idx];
	struct fakefab_node *n = &ff->nodes[idx];

	n->guid = src->guid;
	n->type = src->type;
	n->nports = src->nports;
	n->ports = xcalloc(n->nports + 1u, sizeof(*n->ports));
	for (unsigned i = 0; i <= n->nports; i++) {
		const struct fabric_port *sp = &f->ports[src->port0 + i];
		struct fakefab_port *p = &n->ports[i];

		p->guid = n->type == NODE_SWITCH || sp->guid == 0 ?
		    n->guid : sp->guid;
		p->peer_node = sp->peer == FABRIC_NONE ? FABRIC_NONE :
		    f->ports[sp->peer].node;
		p->peer_port = sp->peer == FABRIC_NONE ? 0 :
		    f->ports[sp->peer].num;
	}
	power_on(n, idx);
}

struct fakefab *
fakefab_new(const struct fabric *f, uint32_t sm_node, uint8_t sm_port)
{
	struct fakefab *ff = xcalloc(1, sizeof(*ff));

	ff->nnodes = f->nnodes;
	ff->nodes = xcalloc(f->nnodes, sizeof(*ff->nodes));
	for (uint32_t i = 0; i < f->nnodes; i++)
		init_node(ff, f, i);
	ff->sm_node = sm_node;
	ff->sm_port = sm_port;
	set(ff->nodes[sm_node].ports[sm_port].info, IB_PORT_CAPMASK_F, 0x2);
	return ff;
}

void
fakefab_free(struct fakefab *ff)
{
	if (ff == NULL)
		return;
	for (uint32_t i = 0; i < ff->nnodes; i++) {
		struct fakefab_node *n = &ff->nodes[i];

		for (unsigned j = 0; j <= n->nports; j++)
			free(n->ports[j].pkeys);
		free(n->ports);
		free(n->lft);
	}
	free(ff->nodes);
	free(ff->log);
	free(ff->rules);
	free(ff);
}

void
fakefab_attach(struct fakefab *ff)
{
	ff->cursor = 0;
}

static struct fakefab_port *
port_of(const struct fakefab *ff, uint32_t n, uint8_t p)
{
	return &ff->nodes[n].ports[p];
}

uint8_t
fakefab_port_state(const struct fakefab *ff, uint32_t n, uint8_t p)
{
	return (uint8_t)get(port_of(ff, n, p)->info, IB_PORT_STATE_F);
}

uint16_t
fakefab_port_lid(const struct fakefab *ff, uint32_t n, uint8_t p)
{
	return (uint16_t)get(port_of(ff, n, p)->info, IB_PORT_LID_F);
}

uint32_t
fakefab_node_by_guid(const struct fakefab *ff, uint64_t guid)
{
	for (uint32_t i = 0; i < ff->nnodes; i++)
		if (ff->nodes[i].guid == guid)
			return i;
	return FABRIC_NONE;
}

static bool
link_up(const struct fakefab *ff, uint32_t n, uint8_t p)
{
	const struct fakefab_port *a = port_of(ff, n, p), *b;

	if (p == 0 || a->peer_node == FABRIC_NONE)
		return false;
	b = port_of(ff, a->peer_node, a->peer_port);
	return get(a->info, IB_PORT_PHYS_STATE_F) == PHYS_LINKUP &&
	    get(b->info, IB_PORT_PHYS_STATE_F) == PHYS_LINKUP;
}

static void
state_change(struct fakefab *ff, uint32_t n)
{
	if (ff->nodes[n].type == NODE_SWITCH)
		set(ff->nodes[n].sw_info, IB_SW_STATE_CHANGE_F, 1);
}

/* Both ends of the cable on (n, p) to state and phys. */
static void
link_set(struct fakefab *ff, uint32_t n, uint8_t p, uint8_t state,
    uint8_t phys)
{
	struct fakefab_port *a = port_of(ff, n, p);
	uint32_t m = a->peer_node;

	set(a->info, IB_PORT_STATE_F, state);
	set(a->info, IB_PORT_PHYS_STATE_F, phys);
	state_change(ff, n);
	if (m == FABRIC_NONE)
		return;
	set(port_of(ff, m, a->peer_port)->info, IB_PORT_STATE_F, state);
	set(port_of(ff, m, a->peer_port)->info, IB_PORT_PHYS_STATE_F, phys);
	state_change(ff, m);
}

void
fakefab_replace(struct fakefab *ff, uint32_t idx, uint64_t guid)
{
	struct fakefab_node *n = &ff->nodes[idx];

	n->guid = guid;
	for (unsigned i = 0; i <= n->nports; i++)
		n->ports[i].guid = n->type == NODE_SWITCH ? guid : guid + i;
	power_on(n, idx);
	for (unsigned i = 1; i <= n->nports; i++)
		if (n->ports[i].peer_node != FABRIC_NONE)
			link_set(ff, idx, (uint8_t)i, PORT_INIT, PHYS_LINKUP);
}

void
fakefab_link_down(struct fakefab *ff, uint32_t n, uint8_t p)
{
	link_set(ff, n, p, PORT_DOWN, PHYS_POLLING);
}

void
fakefab_link_up(struct fakefab *ff, uint32_t n, uint8_t p)
{
	link_set(ff, n, p, PORT_INIT, PHYS_LINKUP);
}

/* ---- routing ---------------------------------------------------------- */

struct dest {
	uint32_t node;
	uint8_t port;           /* entered through */
	uint8_t rpath[FABRIC_DR_MAX];
};

/* IBA 14.2.2.2: the SMP leaves the SM's node through InitialPath[1] (a CA
 * sends only through the SM's port), and from then on only switches
 * forward it; every link crossed must be up. */
static bool
dr_walk(const struct fakefab *ff, uint8_t hops, const uint8_t *path,
    struct dest *d)
{
	uint32_t n = ff->sm_node;
	uint8_t in = ff->sm_port;

	memset(d->rpath, 0, sizeof(d->rpath));
	for (unsigned h = 1; h <= hops; h++) {
		const struct fakefab_node *node = &ff->nodes[n];
		uint8_t out = path[h];

		if (node->type != NODE_SWITCH && (h > 1 || out != in))
			return false;
		if (out == 0 || out > node->nports || !link_up(ff, n, out))
			return false;
		in = node->ports[out].peer_port;
		n = node->ports[out].peer_node;
		d->rpath[h] = in;
	}
	d->node = n;
	d->port = in;
	return true;
}

uint32_t
fakefab_dr_route(const struct fakefab *ff, const struct dr_path *p,
    uint8_t *port)
{
	struct dest d;

	if (p->hops >= FABRIC_DR_MAX || !dr_walk(ff, p->hops, p->port, &d))
		return FABRIC_NONE;
	if (port != NULL)
		*port = d.port;
	return d.node;
}

/* The port of node n that owns dlid, or -1. */
static int
lid_owner(const struct fakefab *ff, uint32_t n, uint16_t dlid)
{
	const struct fakefab_node *node = &ff->nodes[n];

	for (unsigned p = 0; p <= node->nports; p++) {
		const uint8_t *i = node->ports[p].info;
		unsigned base = get(i, IB_PORT_LID_F);
		unsigned lmc = get(i, IB_PORT_LMC_F);

		if ((node->type == NODE_SWITCH) != (p == 0))
			continue;
		if (base != 0 && dlid >= base && dlid < base + (1u << lmc))
			return (int)p;
	}
	return -1;
}

static bool
link_active(const struct fakefab *ff, uint32_t n, uint8_t p)
{
	const struct fakefab_port *a = port_of(ff, n, p);

	return link_up(ff, n, p) &&
	    get(a->info, IB_PORT_STATE_F) == PORT_ACTIVE &&
	    get(port_of(ff, a->peer_node, a->peer_port)->info,
	    IB_PORT_STATE_F) == PORT_ACTIVE;
}

/* From the SM's node through the LFTs, every link ACTIVE. */
static bool
lid_walk(const struct fakefab *ff, uint16_t dlid, struct dest *d)
{
	uint32_t n = ff->sm_node;
	uint8_t in = ff->sm_port, out;
	int own;

	memset(d->rpath, 0, sizeof(d->rpath));
	for (unsigned h = 0; h < FABRIC_DR_MAX; h++) {
		const struct fakefab_node *node = &ff->nodes[n];

		own = lid_owner(ff, n, dlid);
		if (own >= 0 && (node->type == NODE_SWITCH || own == in)) {
			d->node = n;
			d->port = in;
			return true;
		}
		if (node->type != NODE_SWITCH) {
			if (h > 0)
				return false;
			out = in;
		} else {
			if (dlid > get(node->sw_info, IB_SW_LINEAR_FDB_TOP_F) ||
			    dlid >= FAKEFAB_LFT_CAP)
				return false;
			out = node->lft[dlid];
			if (out == 0 || out > node->nports)
				return false;
		}
		if (!link_active(ff, n, out))
			return false;
		in = node->ports[out].peer_port;
		n = node->ports[out].peer_node;
	}
	return false;
}

uint32_t
fakefab_lid_route(const struct fakefab *ff, uint16_t dlid, uint8_t *port)
{
	struct dest d;

	if (!lid_walk(ff, dlid, &d))
		return FABRIC_NONE;
	if (port != NULL)
		*port = ff->nodes[d.node].type == NODE_SWITCH ? 0 : d.port;
	return d.node;
}

/* ---- attributes ------------------------------------------------------- */

struct call {
	uint8_t method;
	uint32_t mod;
	uint32_t node;
	uint8_t in;             /* port entered */
	const uint8_t *req;     /* request data */
	uint8_t *resp;          /* response data */
};

static uint16_t
node_info(struct fakefab *ff, struct call *c)
{
	struct fakefab_node *n = &ff->nodes[c->node];

	if (c->method != IB_MAD_METHOD_GET)
		return ST_UNSUP_ATTR;
	memcpy(c->resp, n->node_info, 64);
	set(c->resp, IB_NODE_LOCAL_PORT_F, c->in);
	mad_set_field64(c->resp, 0, IB_NODE_PORT_GUID_F, n->ports[c->in].guid);
	return 0;
}

static uint16_t
node_desc(struct fakefab *ff, struct call *c)
{
	if (c->method != IB_MAD_METHOD_GET)
		return ST_UNSUP_ATTR;
	mad_set_array(c->resp, 0, IB_NODE_DESC_F, ff->nodes[c->node].desc);
	return 0;
}

/* PortInfo fields a Set writes as given (IBA 14.2.5.6, the RW ones). */
static const enum MAD_FIELDS port_rw[] = {
	IB_PORT_LID_F, IB_PORT_SMLID_F, IB_PORT_MKEY_LEASE_F,
	IB_PORT_MKEY_PROT_BITS_F, IB_PORT_LMC_F, IB_PORT_NEIGHBOR_MTU_F,
	IB_PORT_SMSL_F, IB_PORT_VL_HIGH_LIMIT_F, IB_PORT_VL_STALL_COUNT_F,
	IB_PORT_HOQ_LIFE_F, IB_PORT_OPER_VLS_F, IB_PORT_PART_EN_INB_F,
	IB_PORT_PART_EN_OUTB_F, IB_PORT_FILTER_RAW_INB_F,
	IB_PORT_FILTER_RAW_OUTB_F, IB_PORT_SUBN_TIMEOUT_F,
	IB_PORT_RESP_TIME_VAL_F, IB_PORT_LOCAL_PHYS_ERR_F,
	IB_PORT_OVERRUN_ERR_F,
};

/* Whether the state the Set asks for is allowed: Armed from Init with the
 * peer up, Active from Armed with the peer Armed or Active, Down on a
 * cabled external port; Init cannot be set and is ignored (as ibsim). */
static bool
state_ok(const struct fakefab *ff, uint32_t n, uint8_t p, unsigned want)
{
	const struct fakefab_port *port = port_of(ff, n, p);
	unsigned cur = get(port->info, IB_PORT_STATE_F), peer;

	if (want == PORT_NOCHANGE || want == PORT_INIT)
		return true;
	if (want > PORT_ACTIVE || p == 0 || !link_up(ff, n, p))
		return false;
	if (want == PORT_DOWN)
		return true;
	peer = get(port_of(ff, port->peer_node, port->peer_port)->info,
	    IB_PORT_STATE_F);
	if (want == PORT_ARMED)
		return cur == PORT_INIT && peer >= PORT_INIT;
	return cur == PORT_ARMED && peer >= PORT_ARMED;
}

static uint16_t
port_info_set(struct fakefab *ff, struct call *c, uint8_t p)
{
	struct fakefab_port *port = port_of(ff, c->node, p);
	uint8_t *i = port->info;
	const uint8_t *q = c->req;
	unsigned state = get(q, IB_PORT_STATE_F), v;

	if (ff->nodes[c->node].type != NODE_SWITCH && p != c->in)
		return ST_BAD_VALUE;
	/* The SM never writes PhysState; links go down through the test. */
	if (get(q, IB_PORT_PHYS_STATE_F) != 0 || !state_ok(ff, c->node, p,
	    state))
		return ST_BAD_VALUE;
	if ((v = get(q, IB_PORT_OPER_VLS_F)) != 0 &&
	    v > get(i, IB_PORT_VL_CAP_F))
		return ST_BAD_VALUE;
	if ((v = get(q, IB_PORT_NEIGHBOR_MTU_F)) != 0 &&
	    v > get(i, IB_PORT_MTU_CAP_F))
		return ST_BAD_VALUE;
	mad_set_field64(i, 0, IB_PORT_MKEY_F,
	    mad_get_field64((void *)q, 0, IB_PORT_MKEY_F));
	mad_set_field64(i, 0, IB_PORT_GID_PREFIX_F,
	    mad_get_field64((void *)q, 0, IB_PORT_GID_PREFIX_F));
	for (size_t k = 0; k < sizeof(port_rw) / sizeof(port_rw[0]); k++)
		set(i, port_rw[k], get(q, port_rw[k]));
	if ((v = get(q, IB_PORT_OPER_VLS_F)) == 0)
		set(i, IB_PORT_OPER_VLS_F, 1);
	/* 0: no change; all ones: everything supported. */
	if ((v = get(q, IB_PORT_LINK_DOWN_DEF_F)) != 0)
		set(i, IB_PORT_LINK_DOWN_DEF_F, v);
	if ((v = get(q, IB_PORT_LINK_WIDTH_ENABLED_F)) != 0)
		set(i, IB_PORT_LINK_WIDTH_ENABLED_F, v == 255 ?
		    get(i, IB_PORT_LINK_WIDTH_SUPPORTED_F) : v);
	if ((v = get(q, IB_PORT_LINK_SPEED_ENABLED_F)) != 0)
		set(i, IB_PORT_LINK_SPEED_ENABLED_F, v == 15 ?
		    get(i, IB_PORT_LINK_SPEED_SUPPORTED_F) : v);
	if (state == PORT_DOWN)         /* the link trains again */
		link_set(ff, c->node, p, PORT_INIT, PHYS_LINKUP);
	else if (state == PORT_ARMED || state == PORT_ACTIVE)
		set(i, IB_PORT_STATE_F, state);
	return 0;
}

static uint16_t
port_info(struct fakefab *ff, struct call *c)
{
	const struct fakefab_node *n = &ff->nodes[c->node];
	unsigned p = c->mod & 0xFF;
	uint16_t st = 0;

	if (n->type != NODE_SWITCH && p == 0)
		p = c->in;              /* a CA: the port entered */
	if (p > n->nports || (n->type != NODE_SWITCH && p == 0))
		return ST_BAD_VALUE;
	if (c->method == IB_MAD_METHOD_SET && (st = port_info_set(ff, c, (uint8_t)p)))
		return st;
	memcpy(c->resp, n->ports[p].info, 64);
	return 0;
}

static uint16_t
switch_info(struct fakefab *ff, struct call *c)
{
	static const enum MAD_FIELDS rw[] = {
		IB_SW_LINEAR_FDB_TOP_F, IB_SW_DEF_PORT_F,
		IB_SW_DEF_MCAST_PRIM_F, IB_SW_DEF_MCAST_NOT_PRIM_F,
		IB_SW_LIFE_TIME_F, IB_SW_PARTITION_ENF_INB_F,
		IB_SW_PARTITION_ENF_OUTB_F, IB_SW_FILTER_RAW_INB_F,
		IB_SW_FILTER_RAW_OUTB_F, IB_SW_MCAST_FDB_TOP_F,
	};
	struct fakefab_node *n = &ff->nodes[c->node];

	if (n->type != NODE_SWITCH)
		return ST_UNSUP_ATTR;
	if (c->method == IB_MAD_METHOD_SET) {
		if (get(c->req, IB_SW_LINEAR_FDB_TOP_F) >= FAKEFAB_LFT_CAP)
			return ST_BAD_VALUE;
		for (size_t k = 0; k < sizeof(rw) / sizeof(rw[0]); k++)
			set(n->sw_info, rw[k], get(c->req, rw[k]));
		/* Writing 1 clears PortStateChange; 0 leaves it. */
		if (get(c->req, IB_SW_STATE_CHANGE_F))
			set(n->sw_info, IB_SW_STATE_CHANGE_F, 0);
	}
	memcpy(c->resp, n->sw_info, 64);
	return 0;
}

static uint16_t
lft(struct fakefab *ff, struct call *c)
{
	struct fakefab_node *n = &ff->nodes[c->node];
	uint8_t *block;

	if (n->type != NODE_SWITCH)
		return ST_UNSUP_ATTR;
	if ((uint64_t)c->mod * LFT_BLOCK >= FAKEFAB_LFT_CAP)
		return ST_BAD_VALUE;
	block = n->lft + (size_t)c->mod * LFT_BLOCK;
	if (c->method == IB_MAD_METHOD_SET)
		mad_get_array((void *)c->req, 0, IB_LINEAR_FORW_TBL_F, block);
	mad_set_array(c->resp, 0, IB_LINEAR_FORW_TBL_F, block);
	return 0;
}

/* libibmad names no P_KeyTable fields: 32 big-endian 16-bit keys. */
static uint16_t
pkey_table(struct fakefab *ff, struct call *c)
{
	const struct fakefab_node *n = &ff->nodes[c->node];
	unsigned p = n->type == NODE_SWITCH ? c->mod >> 16 : c->in;
	unsigned b = c->mod & 0xFFFF;
	struct fakefab_port *port;

	if (p > n->nports)
		return ST_BAD_VALUE;
	port = &n->ports[p];
	if (b * PKEY_BLOCK >= port->pkey_cap)
		return ST_BAD_VALUE;
	/* Entries past the end of a short table (switch port 0) in its
	 * last block hold nothing: zeros read, writes ignored. */
	for (unsigned k = 0; k < PKEY_BLOCK &&
	    b * PKEY_BLOCK + k < port->pkey_cap; k++) {
		uint16_t *key = &port->pkeys[b * PKEY_BLOCK + k];

		if (c->method == IB_MAD_METHOD_SET)
			*key = (uint16_t)(c->req[2 * k] << 8 | c->req[2 * k + 1]);
		c->resp[2 * k] = (uint8_t)(*key >> 8);
		c->resp[2 * k + 1] = (uint8_t)*key;
	}
	return 0;
}

/* GUIDInfo of a CA port: 8 big-endian GUIDs per block. */
static uint16_t
guid_info(struct fakefab *ff, struct call *c)
{
	const struct fakefab_node *n = &ff->nodes[c->node];
	const struct fakefab_port *port;
	unsigned cap, b = c->mod;

	if (n->type == NODE_SWITCH)
		return ST_UNSUP_ATTR;
	if (c->method != IB_MAD_METHOD_GET)
		return ST_BAD_METHOD;
	port = &n->ports[c->in];
	cap = get(port->info, IB_PORT_GUID_CAP_F);
	if (b * 8 >= cap)
		return ST_BAD_VALUE;
	for (unsigned i = 0; i < 8; i++) {
		unsigned idx = b * 8 + i;
		uint64_t g = idx == 0 ? port->guid : idx < cap &&
		    port->alias != NULL ? port->alias[idx] : 0;

		for (unsigned k = 0; k < 8; k++)
			c->resp[8 * i + k] = (uint8_t)(g >> (56 - 8 * k));
	}
	return 0;
}

static uint16_t
attribute(struct fakefab *ff, uint16_t attr, struct call *c)
{
	if (c->method != IB_MAD_METHOD_GET && c->method != IB_MAD_METHOD_SET)
		return ST_BAD_METHOD;
	switch (attr) {
	case IB_ATTR_NODE_INFO:
		return node_info(ff, c);
	case IB_ATTR_NODE_DESC:
		return node_desc(ff, c);
	case IB_ATTR_PORT_INFO:
		return port_info(ff, c);
	case IB_ATTR_SWITCH_INFO:
		return switch_info(ff, c);
	case IB_ATTR_LINEARFORWTBL:
		return lft(ff, c);
	case IB_ATTR_PKEY_TBL:
		return pkey_table(ff, c);
	case IB_ATTR_GUID_INFO:
		return guid_info(ff, c);
	}
	return ST_UNSUP_ATTR;
}

/* ---- rules and log ---------------------------------------------------- */

struct fakefab_match
fakefab_match_any(void)
{
	struct fakefab_match m = { .method = FAKEFAB_ANY, .attr = FAKEFAB_ANY,
	    .mod = FAKEFAB_ANY, .node = FAKEFAB_ANY, .hops = FAKEFAB_ANY };

	return m;
}

void
fakefab_rule(struct fakefab *ff, const struct fakefab_match *m,
    enum fakefab_action action, uint16_t status, unsigned times)
{
	struct fakefab_rule *r;

	r = realloc(ff->rules, (ff->nrules + 1) * sizeof(*r));
	if (r == NULL)
		abort();
	ff->rules = r;
	r = &ff->rules[ff->nrules++];
	r->m = *m;
	r->action = action;
	r->status = status;
	r->left = times;
	r->spent = false;
}

void
fakefab_clear_rules(struct fakefab *ff)
{
	free(ff->rules);
	ff->rules = NULL;
	ff->nrules = 0;
}

static bool
matches(const struct fakefab_match *m, const struct fakefab_smp *s)
{
	return (m->method == FAKEFAB_ANY || m->method == s->method) &&
	    (m->attr == FAKEFAB_ANY || m->attr == s->attr) &&
	    (m->mod == FAKEFAB_ANY || m->mod == s->mod) &&
	    (m->node == FAKEFAB_ANY || m->node == s->node) &&
	    (m->hops == FAKEFAB_ANY || (s->dr && m->hops == s->hops));
}

static const struct fakefab_rule *
rule_for(struct fakefab *ff, const struct fakefab_smp *s)
{
	for (size_t i = 0; i < ff->nrules; i++) {
		struct fakefab_rule *r = &ff->rules[i];

		if (r->spent || !matches(&r->m, s))
			continue;
		if (r->left > 0 && --r->left == 0)
			r->spent = true;
		return r;
	}
	return NULL;
}

static struct fakefab_smp *
log_add(struct fakefab *ff)
{
	if (ff->nlog == ff->log_cap) {
		ff->log_cap = ff->log_cap ? ff->log_cap * 2 : 256;
		ff->log = realloc(ff->log, ff->log_cap * sizeof(*ff->log));
		if (ff->log == NULL)
			abort();
	}
	memset(&ff->log[ff->nlog], 0, sizeof(ff->log[0]));
	return &ff->log[ff->nlog++];
}

void
fakefab_clear_log(struct fakefab *ff)
{
	ff->nlog = 0;
}

size_t
fakefab_count(const struct fakefab *ff, int method, int attr)
{
	size_t n = 0;

	for (size_t i = 0; i < ff->nlog; i++) {
		const struct fakefab_smp *s = &ff->log[i];

		if ((method == FAKEFAB_ANY || method == s->method) &&
		    (attr == FAKEFAB_ANY || attr == s->attr) &&
		    s->outcome == FAKEFAB_ANSWERED && s->status == 0)
			n++;
	}
	return n;
}

size_t
fakefab_failed(const struct fakefab *ff)
{
	size_t n = 0;

	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].outcome != FAKEFAB_ANSWERED ||
		    ff->log[i].status != 0)
			n++;
	return n;
}

/* ---- serving ---------------------------------------------------------- */

/* Header checks and where the SMP goes; false: not deliverable (s->outcome
 * says why). */
static bool
route(const struct fakefab *ff, const struct xport_mad *x,
    struct fakefab_smp *s, struct dest *d)
{
	void *m = (void *)x->mad;
	unsigned class = get(m, IB_MAD_MGMTCLASS_F);

	if (get(m, IB_MAD_BASEVER_F) != 1 || get(m, IB_MAD_CLASSVER_F) != 1 ||
	    (class != IB_SMI_DIRECT_CLASS && class != IB_SMI_CLASS)) {
		s->outcome = FAKEFAB_MALFORMED;
		return false;
	}
	s->dr = class == IB_SMI_DIRECT_CLASS;
	if (s->dr) {
		s->hops = (uint8_t)get(m, IB_DRSMP_HOPCNT_F);
		mad_get_array(m, 0, IB_DRSMP_PATH_F, s->path);
		/* A request: D = 0, from hop 0, pure directed route. */
		if (x->dlid != DR_PERMISSIVE || get(m, IB_DRSMP_DIRECTION_F) ||
		    get(m, IB_DRSMP_HOPPTR_F) != 0 || s->hops >= FABRIC_DR_MAX ||
		    get(m, IB_DRSMP_DRSLID_F) != DR_PERMISSIVE ||
		    get(m, IB_DRSMP_DRDLID_F) != DR_PERMISSIVE) {
			s->outcome = FAKEFAB_MALFORMED;
			return false;
		}
		if (!dr_walk(ff, s->hops, s->path, d)) {
			s->outcome = FAKEFAB_UNDELIVERABLE;
			return false;
		}
	} else {
		s->dlid = x->dlid;
		if (x->dlid == 0 || x->dlid > FABRIC_MAX_LID) {
			s->outcome = FAKEFAB_MALFORMED;
			return false;
		}
		if (!lid_walk(ff, x->dlid, d)) {
			s->outcome = FAKEFAB_UNDELIVERABLE;
			return false;
		}
	}
	s->node = d->node;
	s->port = d->port;
	return true;
}

static void
respond(struct fakefab *ff, const struct xport_mad *x,
    const struct fakefab_smp *s, const struct dest *d, const uint8_t *data)
{
	uint8_t r[MAD_SIZE];
	const struct fakefab_node *n = &ff->nodes[s->node];
	uint16_t slid = DR_PERMISSIVE;

	memcpy(r, x->mad, MAD_SIZE);
	/* GetResp, 0x81: the method bits of Get and the R bit */
	set(r, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
	set(r, IB_MAD_RESPONSE_F, 1);
	if (s->dr) {
		/* Back at the SM: D set, the hop pointer down to 0 and the
		 * return path as the hops recorded it. */
		set(r, IB_DRSMP_STATUS_F, s->status);
		set(r, IB_DRSMP_DIRECTION_F, 1);
		set(r, IB_DRSMP_HOPPTR_F, 0);
		mad_set_array(r, 0, IB_DRSMP_RPATH_F, (void *)d->rpath);
	} else {
		set(r, IB_MAD_STATUS_F, s->status);
		slid = (uint16_t)get(n->ports[n->type == NODE_SWITCH ? 0 :
		    s->port].info, IB_PORT_LID_F);
	}
	memcpy(r + DATA_OFFSET, data, 64);
	xport_answer(r, slid);
}

static void
serve_one(struct fakefab *ff, const struct xport_mad *x)
{
	void *m = (void *)x->mad;
	struct fakefab_smp *s;
	const struct fakefab_rule *rule;
	struct dest d;
	struct call c;
	uint8_t resp[64] = { 0 };

	/* Replies and traps of the SM's own are not requests to a device. */
	if (x->timeout_ms <= 0 || get(m, IB_MAD_RESPONSE_F))
		return;
	s = log_add(ff);
	s->method = (uint8_t)get(m, IB_MAD_METHOD_F);
	s->attr = (uint16_t)get(m, IB_MAD_ATTRID_F);
	s->mod = get(m, IB_MAD_ATTRMOD_F);
	s->node = FABRIC_NONE;
	memcpy(s->data, x->mad + DATA_OFFSET, 64);
	(void)route(ff, x, s, &d);
	if ((rule = rule_for(ff, s)) != NULL) {
		if (rule->action == FAKEFAB_DROP) {
			s->outcome = FAKEFAB_DROPPED;
			return;
		}
		if (rule->action == FAKEFAB_TIMEOUT) {
			s->outcome = FAKEFAB_TIMEDOUT;
			xport_timed_out(x->mad);
			return;
		}
	}
	if (s->node == FABRIC_NONE) {         /* malformed, undeliverable */
		xport_timed_out(x->mad);
		return;
	}
	if (rule != NULL && rule->action != FAKEFAB_LOST_ANSWER) {
		s->status = rule->status;
	} else {
		c.method = s->method;
		c.mod = s->mod;
		c.node = s->node;
		c.in = s->port;
		c.req = s->data;
		c.resp = resp;
		s->status = attribute(ff, s->attr, &c);
	}
	if (rule != NULL && rule->action == FAKEFAB_LOST_ANSWER) {
		s->outcome = FAKEFAB_TIMEDOUT;
		xport_timed_out(x->mad);
		return;
	}
	respond(ff, x, s, &d, resp);
}

size_t
fakefab_serve(struct fakefab *ff)
{
	return fakefab_serve_n(ff, SIZE_MAX);
}

size_t
fakefab_serve_n(struct fakefab *ff, size_t max)
{
	struct xport_mad x;
	size_t n = 0;

	while (n < max && ff->cursor < xport_nsent()) {
		xport_sent(ff->cursor++, &x);
		serve_one(ff, &x);
		n++;
	}
	return n;
}

static void
guard_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	*(bool *)w->data = true;
}

bool
fakefab_run(struct fakefab *ff, struct ev_loop *loop,
    bool (*done)(void *arg), void *arg, double secs)
{
	ev_timer guard;
	bool fired = false;

	ev_now_update(loop);
	ev_timer_init(&guard, guard_cb, secs, 0.);
	guard.data = &fired;
	ev_timer_start(loop, &guard);
	while (!done(arg) && !fired) {
		if (fakefab_serve(ff) > 0)
			continue;
		ev_run(loop, EVRUN_ONCE);
	}
	ev_timer_stop(loop, &guard);
	return done(arg);
}
