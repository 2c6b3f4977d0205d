/*
 * SL2VLTableRecord (0x13) and VLArbitrationTableRecord (0x36): the tables
 * the devices hold, as sm/devread read them or, with qos (issue 27), wrote
 * them (core/devtab: what each Set's answer says the port holds). A table not read (yet, or the device refused it)
 * has no record. Scoped like the other port records: a switch's tables to
 * requesters that share a partition with its port 0, a CA port's to those
 * that share one with the port.
 *
 * SL2VLTableRecord: LID, InputPortNum, OutputPortNum, reserved (4),
 * SLtoVLMappingTable (8): a switch has one per (input, output) pair of
 * its ports 0..N, a CA port one (ports 0 and 0 in the record, as OpenSM).
 * VLArbitrationTableRecord: LID, OutputPortNum, BlockNum (1, 2 low
 * priority, 3, 4 high), reserved (4), 32 entries of VL and weight: the
 * blocks the port's VLArbitrationLowCap and HighCap give (OpenSM also
 * answers the others, zeros).
 */
#include "autoconfig.h"

#include <string.h>

#include "core/devtab.h"
#include "core/fabric.h"
#include "sa/records.h"
#include "sa/scope.h"

#define BITS(off, n) { (off), (n) }
#define NCOMP(t) (sizeof(t) / sizeof((t)[0]))

static const struct sa_comp sl2vl_comp[] = {
	BITS(0, 16), BITS(16, 8), BITS(24, 8), BITS(32, 32), BITS(64, 64),
};

static const struct sa_comp vlarb_comp[] = {
	BITS(0, 16), BITS(16, 8), BITS(24, 8), BITS(32, 32), BITS(64, 512),
};
#define LID_COMP 0

/* The LID of port p of node n for these records: a switch's port 0's, a
 * CA port's own. */
static uint16_t
rec_lid(const struct fabric *f, const struct fabric_node *n, unsigned p)
{
	return f->ports[n->type == NODE_SWITCH ? n->port0 :
	    n->port0 + p].lid;
}

static bool
in_scope(const struct sa_ctx *c, const struct sa_req *q,
    const struct fabric_node *n, unsigned p)
{
	return sa_scope_share(c->v, q->requester, n->type == NODE_SWITCH ?
	    n->port0 : n->port0 + p);
}

static void
keep(const struct sa_comp *t, size_t nt, const struct sa_req *q,
    const uint8_t *rec, size_t len, struct sa_out *out)
{
	uint64_t mask = q->comp_mask;
	uint16_t lid = (uint16_t)sa_get_bits(q->rec, 0, 16);

	/* LID as any of the port's LMC range: equality is enough at LMC 0 */
	if ((mask & (UINT64_C(1) << LID_COMP)) &&
	    lid != (uint16_t)sa_get_bits(rec, 0, 16))
		return;
	mask &= ~(UINT64_C(1) << LID_COMP);
	if (!sa_comp_match(t, nt, mask, q->rec, rec))
		return;
	memcpy(sa_out_add(out), rec, len);
}

static unsigned
sl2vl_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint8_t tmp[SA_SL2VL_REC_SIZE];

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	for (uint32_t ni = 0; ni < f->nnodes && !sa_out_full(out); ni++) {
		const struct fabric_node *n = &f->nodes[ni];
		const struct devtab_node *d = devtab_find(c->v->devtab,
		    n->guid);
		bool sw = n->type == NODE_SWITCH;

		if (d == NULL || d->sw != sw || d->nports != n->nports)
			continue;
		for (unsigned out_p = sw ? 0 : 1; out_p <= n->nports &&
		    !sa_out_full(out); out_p++) {
			uint16_t lid = rec_lid(f, n, out_p);

			if (lid == 0 || !in_scope(c, q, n, out_p))
				continue;
			for (unsigned in = 0; in <= (sw ? n->nports : 0u) &&
			    !sa_out_full(out); in++) {
				unsigned k = devtab_sl2vl_idx(d, in, out_p);

				if (!d->sl2vl_valid[k])
					continue;
				memset(tmp, 0, sizeof(tmp));
				sa_set_bits(tmp, 0, 16, lid);
				tmp[2] = sw ? (uint8_t)in : 0;
				tmp[3] = sw ? (uint8_t)out_p : 0;
				memcpy(tmp + 8, d->sl2vl + (size_t)k *
				    DEVTAB_SL2VL_SIZE, DEVTAB_SL2VL_SIZE);
				keep(sl2vl_comp, NCOMP(sl2vl_comp), q, tmp,
				    sizeof(tmp), out);
			}
		}
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_sl2vl = {
	.id = SA_ATTR_SL2VL_REC,
	.name = "SL2VLTableRecord",
	.rec_size = SA_SL2VL_REC_SIZE,
	.get = sl2vl_get,
};

static unsigned
vlarb_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint8_t tmp[SA_VLARB_REC_SIZE];

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	for (uint32_t ni = 0; ni < f->nnodes && !sa_out_full(out); ni++) {
		const struct fabric_node *n = &f->nodes[ni];
		const struct devtab_node *d = devtab_find(c->v->devtab,
		    n->guid);
		bool sw = n->type == NODE_SWITCH;

		if (d == NULL || d->sw != sw || d->nports != n->nports)
			continue;
		for (unsigned p = sw ? 0 : 1; p <= n->nports &&
		    !sa_out_full(out); p++) {
			uint16_t lid = rec_lid(f, n, p);

			if (lid == 0 || d->ports[p].vlarb_valid == 0 ||
			    !in_scope(c, q, n, p))
				continue;
			for (unsigned b = 0; b < DEVTAB_VLARB_BLOCKS &&
			    !sa_out_full(out); b++) {
				if (!(d->ports[p].vlarb_valid & (1u << b)))
					continue;
				memset(tmp, 0, sizeof(tmp));
				sa_set_bits(tmp, 0, 16, lid);
				tmp[2] = (uint8_t)p;
				tmp[3] = (uint8_t)(b + 1);
				memcpy(tmp + 8, d->ports[p].vlarb[b],
				    DEVTAB_VLARB_SIZE);
				keep(vlarb_comp, NCOMP(vlarb_comp), q, tmp,
				    sizeof(tmp), out);
			}
		}
	}
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_vlarb = {
	.id = SA_ATTR_VLARB_REC,
	.name = "VLArbitrationTableRecord",
	.rec_size = SA_VLARB_REC_SIZE,
	.get = vlarb_get,
};
