/*
 * Read-only SA records computed from the view: NodeRecord, PortInfoRecord,
 * SMInfoRecord, LinkRecord, SwitchInfoRecord, LinearForwardingTableRecord,
 * MulticastForwardingTableRecord, P_KeyTableRecord (GUIDInfoRecord is in
 * sa/guidinfo.c).
 * Each handler builds the candidate records, keeps those the component
 * mask selects, and stops when the answer is full (a Get needs at most
 * two to tell "too many").
 *
 * Partition scoping follows OpenSM: Node, PortInfo, Link, P_KeyTable and
 * GUIDInfo records name only ports that share a partition with the
 * requester; the switch-wide records (SwitchInfo, LFT) and SMInfo
 * records are not filtered, MFT records (as OpenSM's) only to requesters
 * that share a partition with the switch's port 0. A requester whose LID names no port of the
 * view gets no answer (OpenSM drops those too).
 *
 * vports (the view's vport set): a vport with a LID (see
 * vport_resolve_lids) has a NodeRecord and a PortInfoRecord of its own
 * after the physical ports', as the VM's HCA shows them: its physical
 * port's NodeInfo and PortInfo with the vport's VNodeGUID, VPortGUID,
 * LID, VNodeDescription and VPortState, scoped by its own VPortPKeyTable.
 * The physical function (vport 0) is the physical port itself and gets
 * no second record.
 */
#include "autoconfig.h"

#include <string.h>

#include <infiniband/mad.h>

#include "core/devtab.h"
#include "core/fabric.h"
#include "core/lft.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mcast/tree.h"
#include "partitions/partitions.h"
#include "sa/records.h"
#include "sa/scope.h"

#define BITS(off, n) { (off), (n) }

static bool
sees(const struct sa_ctx *c, const struct sa_req *q, uint32_t p)
{
	return sa_scope_share(c->v, q->requester, p);
}

/* Whether a requested LID (component bit) selects a port: any of its LMC
 * range, as OpenSM. */
static bool
lid_selects(const struct fabric_port *port, uint16_t lid)
{
	return fabric_port_has_lid(port, lid);
}

/* vport i of the view when it has records of its own (else NULL): not
 * the physical function, a GUID and a LID, its physical port known. */
static const struct vport *
rec_vport(const struct sa_view *v, uint32_t i)
{
	const struct vport *vp = &v->vports->v[i];

	if (vp->index == 0 || vp->guid == 0 || vp->lid == 0 ||
	    vp->port >= v->f->nports || !v->f->ports[vp->port].info_valid)
		return NULL;
	return vp;
}

#define NVPORTS(v) ((v)->vports != NULL ? (v)->vports->n : 0u)

/* ---- NodeRecord (0x11): LID, reserved, NodeInfo (40), NodeDescription */

static const struct sa_comp node_comp[] = {
	BITS(0, 16), BITS(16, 16), BITS(32, 8), BITS(40, 8), BITS(48, 8),
	BITS(56, 8), BITS(64, 64), BITS(128, 64), BITS(192, 64),
	BITS(256, 16), BITS(272, 16), BITS(288, 32), BITS(320, 8),
	BITS(328, 24), BITS(352, 512),
};
#define NODE_COMP_LID 0

static void
node_fill(uint8_t *r, const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const struct fabric_node *n = &f->nodes[port->node];

	sa_set_bits(r, 0, 16, port->lid);
	memcpy(r + 4, n->node_info, 40);
	/* This port's GUID and number, as OpenSM: NodeInfo as read names
	 * the port discovery came in by. */
	sa_set_bits(r, 192, 64, port->guid);
	sa_set_bits(r, 320, 8, port->num);
	memcpy(r + 44, n->desc, strnlen(n->desc, 64));
}

/* A vport's NodeRecord: its physical port's, with the VNodeGUID (when
 * read), VPortGUID, VPartitionCap, its LID and its VNodeDescription (when
 * not empty). */
static void
vnode_fill(uint8_t *r, const struct fabric *f, const struct vport *vp)
{
	node_fill(r, f, vp->port);
	sa_set_bits(r, 0, 16, vp->lid);
	if (vp->node_guid != 0)
		mad_set_field64(r + 4, 0, IB_NODE_GUID_F, vp->node_guid);
	mad_set_field64(r + 4, 0, IB_NODE_PORT_GUID_F, vp->guid);
	if (vp->pkey_cap != 0)
		mad_set_field(r + 4, 0, IB_NODE_PARTITION_CAP_F, vp->pkey_cap);
	if (vp->desc[0] != '\0') {
		memset(r + 44, 0, 64);
		memcpy(r + 44, vp->desc, strnlen(vp->desc, 64));
	}
}

static unsigned
node_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint64_t mask = q->comp_mask & ~(UINT64_C(1) << NODE_COMP_LID);
	uint16_t lid = (uint16_t)sa_get_bits(q->rec, 0, 16);
	uint8_t tmp[SA_NODE_REC_SIZE];
	uint32_t p;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	for (p = 0; p < f->nports && !sa_out_full(out); p++) {
		if (!fabric_port_is_endport(f, p) || !sees(c, q, p))
			continue;
		if ((q->comp_mask & (UINT64_C(1) << NODE_COMP_LID)) &&
		    !lid_selects(&f->ports[p], lid))
			continue;
		memset(tmp, 0, sizeof(tmp));
		node_fill(tmp, f, p);
		if (!sa_comp_match(node_comp, sizeof(node_comp) /
		    sizeof(node_comp[0]), mask, q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
	for (p = 0; p < NVPORTS(c->v) && !sa_out_full(out); p++) {
		const struct vport *vp = rec_vport(c->v, p);

		if (vp == NULL || !sees(c, q, f->nports + p))
			continue;
		if ((q->comp_mask & (UINT64_C(1) << NODE_COMP_LID)) &&
		    vp->lid != lid)
			continue;
		memset(tmp, 0, sizeof(tmp));
		vnode_fill(tmp, f, vp);
		if (!sa_comp_match(node_comp, sizeof(node_comp) /
		    sizeof(node_comp[0]), mask, q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_node = {
	.id = SA_ATTR_NODE_REC,
	.name = "NodeRecord",
	.rec_size = SA_NODE_REC_SIZE,
	.get = node_get,
};

/* The end port that stands for port p in records: p itself for a CA or
 * router port, port 0 of p's switch. */
static uint32_t
endport_of(const struct fabric *f, uint32_t p)
{
	const struct fabric_node *n = &f->nodes[f->ports[p].node];

	return n->type == NODE_SWITCH ? n->port0 : p;
}

#define NCOMP(t) (sizeof(t) / sizeof((t)[0]))
#define BIT(i) (UINT64_C(1) << (i))

/* ---- PortInfoRecord (0x12): EndportLID, PortNum, Options, PortInfo */

#define PI(off, n) { 32 + (off), (n) }
static const struct sa_comp portinfo_comp[] = {
	BITS(0, 16), BITS(16, 8), BITS(24, 8),
	PI(0, 64), PI(64, 64), PI(128, 16), PI(144, 16), PI(160, 32),
	PI(192, 16), PI(208, 16), PI(224, 8), PI(232, 8), PI(240, 8),
	PI(248, 8), PI(256, 4), PI(260, 4), PI(264, 4), PI(268, 4),
	PI(272, 2), PI(274, 3), PI(277, 3), PI(280, 4), PI(284, 4),
	PI(288, 4), PI(292, 4), PI(296, 4), PI(300, 4), PI(304, 8),
	PI(312, 8), PI(320, 8), PI(328, 4), PI(332, 4), PI(336, 3),
	PI(339, 5), PI(344, 4), PI(348, 1), PI(349, 1), PI(350, 1),
	PI(351, 1), PI(352, 16), PI(368, 16), PI(384, 16), PI(400, 8),
	PI(408, 1), PI(409, 2), PI(411, 5), PI(416, 3), PI(419, 5),
	PI(424, 4), PI(428, 4), PI(432, 16), PI(448, 8), PI(456, 24),
	PI(480, 16), PI(496, 4), PI(500, 4), PI(504, 3), PI(507, 5),
};
#define PIR_COMP_LID 0
#define PIR_COMP_CAPMASK 7

/* Hide the M_Key from requesters without a secret sa_key, select, add. */
static void
portinfo_keep(const struct sa_req *q, uint64_t mask, bool capbits,
    uint32_t want_cap, uint8_t *tmp, struct sa_out *out)
{
	if (!q->keys)
		memset(tmp + 4, 0, 8);          /* M_Key */
	if (capbits && (sa_get_bits(tmp, 32 + 160, 32) & want_cap) !=
	    want_cap)
		return;
	if (!sa_comp_match(portinfo_comp, NCOMP(portinfo_comp), mask,
	    q->rec, tmp))
		return;
	memcpy(sa_out_add(out), tmp, SA_PORTINFO_REC_SIZE);
}

static unsigned
portinfo_get(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint64_t mask = q->comp_mask & ~BIT(PIR_COMP_LID);
	uint16_t lid = (uint16_t)sa_get_bits(q->rec, 0, 16);
	uint32_t want_cap = (uint32_t)sa_get_bits(q->rec, 32 + 160, 32);
	/* AttributeModifier bit 31: CapabilityMask is matched as a set of
	 * bits the port must have (saquery -s), not for equality. */
	bool capbits = (q->attr_mod & 0x80000000u) != 0 &&
	    (q->comp_mask & BIT(PIR_COMP_CAPMASK));
	uint8_t tmp[SA_PORTINFO_REC_SIZE];
	uint32_t p, ep;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	if (capbits)
		mask &= ~BIT(PIR_COMP_CAPMASK);
	for (p = 0; p < f->nports && !sa_out_full(out); p++) {
		const struct fabric_port *port = &f->ports[p];

		if (!port->info_valid)
			continue;
		ep = endport_of(f, p);
		if (!fabric_port_is_endport(f, ep) || f->ports[ep].lid == 0 ||
		    !sees(c, q, ep))
			continue;
		if ((q->comp_mask & BIT(PIR_COMP_LID)) &&
		    !lid_selects(&f->ports[ep], lid))
			continue;
		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, f->ports[ep].lid);
		tmp[2] = port->num;
		memcpy(tmp + 4, port->info, 64);
		portinfo_keep(q, mask, capbits, want_cap, tmp, out);
	}
	for (p = 0; p < NVPORTS(c->v) && !sa_out_full(out); p++) {
		const struct vport *vp = rec_vport(c->v, p);

		if (vp == NULL || !sees(c, q, f->nports + p))
			continue;
		if ((q->comp_mask & BIT(PIR_COMP_LID)) && vp->lid != lid)
			continue;
		/* the physical port's PortInfo as the VM sees it: the
		 * vport's LID (no LMC) and VPortState */
		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, vp->lid);
		tmp[2] = f->ports[vp->port].num;
		memcpy(tmp + 4, f->ports[vp->port].info, 64);
		mad_set_field(tmp + 4, 0, IB_PORT_LID_F, vp->lid);
		mad_set_field(tmp + 4, 0, IB_PORT_LMC_F, 0);
		if (vp->state != 0)
			mad_set_field(tmp + 4, 0, IB_PORT_STATE_F, vp->state);
		portinfo_keep(q, mask, capbits, want_cap, tmp, out);
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_portinfo = {
	.id = SA_ATTR_PORTINFO_REC,
	.name = "PortInfoRecord",
	.rec_size = SA_PORTINFO_REC_SIZE,
	.get = portinfo_get,
};

/* ---- SMInfoRecord (0x18): LID, reserved, SMInfo */

static const struct sa_comp sminfo_comp[] = {
	BITS(0, 16), BITS(16, 16), BITS(32, 64), BITS(96, 64),
	BITS(160, 32), BITS(192, 4), BITS(196, 4),
};

static unsigned
sminfo_get(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	uint8_t tmp[SA_SMINFO_REC_SIZE];
	size_t i;

	for (i = 0; i < c->v->nsms && !sa_out_full(out); i++) {
		const struct sa_sm *s = &c->v->sms[i];

		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, s->lid);
		sa_set_bits(tmp, 32, 64, s->guid);
		/* The SM_Key only to requesters with a secret sa_key. */
		sa_set_bits(tmp, 96, 64, q->keys ? s->sm_key : 0);
		sa_set_bits(tmp, 160, 32, s->act_count);
		sa_set_bits(tmp, 192, 4, s->priority);
		sa_set_bits(tmp, 196, 4, s->state);
		if (!sa_comp_match(sminfo_comp, NCOMP(sminfo_comp),
		    q->comp_mask, q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_sminfo = {
	.id = SA_ATTR_SMINFO_REC,
	.name = "SMInfoRecord",
	.rec_size = SA_SMINFO_REC_SIZE,
	.get = sminfo_get,
};

/* ---- LinkRecord (0x20): FromLID, FromPort, ToPort, ToLID */

static const struct sa_comp link_comp[] = {
	BITS(0, 16), BITS(16, 8), BITS(24, 8), BITS(32, 16),
};

static unsigned
link_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint8_t tmp[SA_LINK_REC_SIZE];
	uint32_t p, from, to;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	for (p = 0; p < f->nports && !sa_out_full(out); p++) {
		const struct fabric_port *port = &f->ports[p];

		if (port->peer == FABRIC_NONE || port->num == 0)
			continue;
		from = endport_of(f, p);
		to = endport_of(f, port->peer);
		if (f->ports[from].lid == 0 || f->ports[to].lid == 0 ||
		    !sees(c, q, from) || !sees(c, q, to))
			continue;
		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, f->ports[from].lid);
		tmp[2] = port->num;
		tmp[3] = f->ports[port->peer].num;
		sa_set_bits(tmp, 32, 16, f->ports[to].lid);
		if (!sa_comp_match(link_comp, NCOMP(link_comp), q->comp_mask,
		    q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_link = {
	.id = SA_ATTR_LINK_REC,
	.name = "LinkRecord",
	.rec_size = SA_LINK_REC_SIZE,
	.get = link_get,
};

/* ---- SwitchInfoRecord (0x14): LID, reserved, SwitchInfo (20 bytes) */

#define SI(off, n) { 32 + (off), (n) }
static const struct sa_comp switchinfo_comp[] = {
	BITS(0, 16), BITS(16, 16),
	SI(0, 16), SI(16, 16), SI(32, 16), SI(48, 16), SI(64, 8), SI(72, 8),
	SI(80, 8), SI(88, 5), SI(93, 1), SI(94, 2), SI(96, 16), SI(112, 16),
	SI(128, 1), SI(129, 1), SI(130, 1), SI(131, 1), SI(132, 1),
};

static unsigned
switchinfo_get(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint8_t tmp[SA_SWITCHINFO_REC_SIZE];
	uint32_t n;

	for (n = 0; n < f->nnodes && !sa_out_full(out); n++) {
		const struct fabric_node *node = &f->nodes[n];

		if (node->type != NODE_SWITCH || !node->sw_info_valid ||
		    f->ports[node->port0].lid == 0)
			continue;
		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, f->ports[node->port0].lid);
		memcpy(tmp + 4, node->sw_info, 20);
		if (!sa_comp_match(switchinfo_comp, NCOMP(switchinfo_comp),
		    q->comp_mask, q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_switchinfo = {
	.id = SA_ATTR_SWITCHINFO_REC,
	.name = "SwitchInfoRecord",
	.rec_size = SA_SWITCHINFO_REC_SIZE,
	.get = switchinfo_get,
};

/* ---- LinearForwardingTableRecord (0x15): LID, BlockNum, 64 ports */

static const struct sa_comp lft_comp[] = {
	BITS(0, 16), BITS(16, 16), BITS(32, 32),
};

static unsigned
lft_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	const struct lft_set *l = c->v->lft;
	uint8_t tmp[SA_LFT_REC_SIZE];
	uint32_t sw, b, i;

	if (l == NULL)
		return SA_STATUS_OK;
	for (sw = 0; sw < l->nsw && !sa_out_full(out); sw++) {
		uint32_t n = l->sw_node[sw];
		uint16_t lid;
		const uint8_t *row = lft_row(l, sw);

		if (n >= f->nnodes || (lid = f->ports[f->nodes[n].port0].lid)
		    == 0)
			continue;
		/* Blocks up to the top LID the tables route. */
		for (b = 0; b <= l->max_lid / 64u && !sa_out_full(out); b++) {
			memset(tmp, 0, sizeof(tmp));
			sa_set_bits(tmp, 0, 16, lid);
			sa_set_bits(tmp, 16, 16, b);
			for (i = 0; i < 64; i++) {
				uint32_t d = b * 64 + i;

				tmp[8 + i] = d <= l->max_lid ? row[d] :
				    LFT_NO_ROUTE;
			}
			if (!sa_comp_match(lft_comp, NCOMP(lft_comp),
			    q->comp_mask, q->rec, tmp))
				continue;
			memcpy(sa_out_add(out), tmp, sizeof(tmp));
		}
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_lft = {
	.id = SA_ATTR_LFT_REC,
	.name = "LinearForwardingTableRecord",
	.rec_size = SA_LFT_REC_SIZE,
	.get = lft_get,
};

/* ---- MulticastForwardingTableRecord (0x17): LID, Position (4 bits),
 * reserved (3), BlockNum (9), reserved (32), 32 port masks of 16 bits.
 * As OpenSM: one record per (block, position) of each switch from block 0
 * to the highest block with an entry and every position of its ports;
 * BlockNum or Position given: that one only; LID given: the switch whose
 * port 0 has it; only switches whose port 0 shares a partition with the
 * requester. The tables are the ones the trees give (sm/ writes them). */

/* component bits: LID 0, Position 1, reserved 2, BlockNum 3, reserved 4 */
#define MFT_COMP_LID    0
#define MFT_COMP_POS    1
#define MFT_COMP_BLOCK  3

static unsigned
mft_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	const struct mcast_mft *t;
	uint8_t tmp[SA_MFT_REC_SIZE];
	uint64_t mask = q->comp_mask;
	unsigned want_pos = (unsigned)sa_get_bits(q->rec, 16, 4);
	unsigned want_block = (unsigned)sa_get_bits(q->rec, 23, 9);
	uint16_t want_lid = (uint16_t)sa_get_bits(q->rec, 0, 16);
	uint32_t n, p0;
	int top;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	if (c->o->mcast_mft == NULL)
		return SA_STATUS_OK;
	for (n = 0; n < f->nnodes && !sa_out_full(out); n++) {
		const struct fabric_node *node = &f->nodes[n];
		unsigned b, pos, b0, b1, p0s, p1s;

		if (node->type != NODE_SWITCH || node->port0 == FABRIC_NONE)
			continue;
		p0 = node->port0;
		if (f->ports[p0].lid == 0 || !sees(c, q, p0))
			continue;
		if ((mask & BIT(MFT_COMP_LID)) &&
		    !lid_selects(&f->ports[p0], want_lid))
			continue;
		t = c->o->mcast_mft(c->o->mcast_arg, node->guid);
		if (t == NULL || (top = mcast_mft_top_block(t)) < 0)
			continue;
		b0 = 0;
		b1 = (unsigned)top;
		if (mask & BIT(MFT_COMP_BLOCK)) {
			if (want_block > b1)
				continue;
			b0 = b1 = want_block;
		}
		p0s = 0;
		p1s = t->npos - 1u;
		if (mask & BIT(MFT_COMP_POS)) {
			if (want_pos > p1s)
				continue;
			p0s = p1s = want_pos;
		}
		for (b = b0; b <= b1 && !sa_out_full(out); b++)
			for (pos = p0s; pos <= p1s && !sa_out_full(out);
			    pos++) {
				memset(tmp, 0, sizeof(tmp));
				sa_set_bits(tmp, 0, 16, f->ports[p0].lid);
				sa_set_bits(tmp, 16, 4, pos);
				sa_set_bits(tmp, 23, 9, b);
				mcast_mft_block_encode(t, b, pos, tmp + 8);
				memcpy(sa_out_add(out), tmp, sizeof(tmp));
			}
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_mft = {
	.id = SA_ATTR_MFT_REC,
	.name = "MulticastForwardingTableRecord",
	.rec_size = SA_MFT_REC_SIZE,
	.get = mft_get,
};

/* ---- P_KeyTableRecord (0x33): LID, BlockNum, PortNum, 32 P_Keys.
 * Trusted requesters only, else REQ_INVALID (as OpenSM). Every port: the
 * tables ibsmd programs (end ports; switch ports facing a CA with
 * partition enforcement on), and, for the switch ports it leaves alone
 * (inter-switch ports; all external ports with enforcement off), what
 * the device holds (sm/devread). */

static const struct sa_comp pkey_comp[] = {
	BITS(0, 16), BITS(16, 16), BITS(32, 8), BITS(40, 24),
};

/* Add the records of one port's table: keys[cap], blocks whose bit is
 * set in valid (all of them: UINT64_MAX). */
static void
pkey_port_recs(const struct sa_req *q, uint16_t lid, uint8_t num,
    const uint16_t *keys, uint16_t cap, uint64_t valid, struct sa_out *out)
{
	uint8_t tmp[SA_PKEY_REC_SIZE];

	for (uint32_t b = 0; b * 32u < cap && b < 64 && !sa_out_full(out);
	    b++) {
		if (!(valid & (UINT64_C(1) << b)))
			continue;
		memset(tmp, 0, sizeof(tmp));
		sa_set_bits(tmp, 0, 16, lid);
		sa_set_bits(tmp, 16, 16, b);
		tmp[4] = num;
		for (uint32_t k = 0; k < 32 && b * 32 + k < cap; k++)
			sa_set_bits(tmp, 64 + 16 * k, 16, keys[b * 32 + k]);
		if (!sa_comp_match(pkey_comp, NCOMP(pkey_comp), q->comp_mask,
		    q->rec, tmp))
			continue;
		memcpy(sa_out_add(out), tmp, sizeof(tmp));
	}
}

static unsigned
pkey_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	const struct pkey_tables *pk = c->v->pk;
	uint32_t p, ep;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	if (!q->trusted)
		return SA_STATUS_REQ_INVALID;
	for (p = 0; p < f->nports && !sa_out_full(out); p++) {
		const struct fabric_port *port = &f->ports[p];
		const struct fabric_node *n = &f->nodes[port->node];
		const struct pkey_table *t;
		const struct devtab_node *d;

		if (n->type != NODE_SWITCH && port->num == 0)
			continue;
		ep = endport_of(f, p);
		if (f->ports[ep].lid == 0 || !sees(c, q, ep))
			continue;
		t = pk != NULL ? pkey_tables_find(pk, port->guid, port->num) :
		    NULL;
		if (t != NULL && (t->kind == PKEY_TABLE_PORT ||
		    c->v->enforce_tables)) {
			pkey_port_recs(q, f->ports[ep].lid, port->num, t->keys,
			    t->cap, UINT64_MAX, out);
			continue;
		}
		if (n->type != NODE_SWITCH || port->num == 0 ||
		    (d = devtab_find(c->v->devtab, n->guid)) == NULL ||
		    d->nports != n->nports || !d->sw ||
		    d->ports[port->num].pkeys == NULL)
			continue;
		pkey_port_recs(q, f->ports[ep].lid, port->num,
		    d->ports[port->num].pkeys, d->ports[port->num].pkey_cap,
		    d->ports[port->num].pkey_valid, out);
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_pkey = {
	.id = SA_ATTR_PKEY_REC,
	.name = "P_KeyTableRecord",
	.rec_size = SA_PKEY_REC_SIZE,
	.get = pkey_get,
};
