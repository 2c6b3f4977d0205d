/*
 * Read-only SA records computed from the view: NodeRecord, PortInfoRecord,
 * SMInfoRecord, LinkRecord, SwitchInfoRecord, LinearForwardingTableRecord,
 * MulticastForwardingTableRecord, P_KeyTableRecord, GUIDInfoRecord (Get).
 * Each handler builds the candidate records, keeps those the component
 * mask selects, and stops when the answer is full (a Get needs at most
 * two to tell "too many").
 *
 * Partition scoping follows OpenSM: Node, PortInfo, Link, P_KeyTable and
 * GUIDInfo records name only ports that share a partition with the
 * requester; the switch-wide records (SwitchInfo, LFT, MFT) and SMInfo
 * records are not filtered. A requester whose LID names no port of the
 * view gets no answer (OpenSM drops those too).
 */
#include "autoconfig.h"

#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "mad/mad.h"
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
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_node = {
	.id = SA_ATTR_NODE_REC,
	.name = "NodeRecord",
	.rec_size = SA_NODE_REC_SIZE,
	.get = node_get,
};
