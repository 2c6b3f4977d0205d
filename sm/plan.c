#include "sm/plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/query.h"

bool
plan_port_single(const struct fabric *f, uint32_t p, bool lmc_esp0)
{
	const struct fabric_node *n = &f->nodes[f->ports[p].node];

	return n->type == NODE_SWITCH && (!lmc_esp0 || !n->sw_info_valid ||
	    !mad_get_field((void *)n->sw_info, 0, IB_SW_ENHANCED_PORT0_F));
}

size_t
plan_lid_requests(const struct fabric *f, const struct vport_set *vs,
    enum cfg_virt virt_mode, bool lmc_esp0, struct lid_req **reqsp,
    uint32_t **idxp)
{
	size_t cap = (size_t)f->nports + vs->n + 1, n = 0;
	struct lid_req *reqs = xcalloc(cap, sizeof(*reqs));
	uint32_t *idx = xcalloc(cap, sizeof(*idx));

	/* The SM's port first: its LID is the SM LID. */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t p = 0; p < f->nports; p++) {
			const struct fabric_port *port = &f->ports[p];

			if ((pass == 0) != (p == f->sm_port) ||
			    !fabric_port_is_endport(f, p))
				continue;
			reqs[n].guid = port->guid;
			reqs[n].cur = port->info_valid ? (uint16_t)mad_get_field(
			    (void *)port->info, 0, IB_PORT_LID_F) : 0;
			reqs[n].single = plan_port_single(f, p, lmc_esp0);
			idx[n++] = p;
		}
	/* vports with LIDRequired (enabled; ignore: those running, see
	 * vport_keep_running): idx past the ports */
	for (uint32_t v = 0; virt_mode != CFG_VIRT_OFF && v < vs->n; v++) {
		const struct vport *vp = &vs->v[v];

		if (!vport_wants_lid(vp))
			continue;
		reqs[n].guid = vp->guid;
		reqs[n].cur = vp->cur_lid;
		reqs[n].single = true;
		idx[n++] = f->nports + v;
	}
	*reqsp = reqs;
	*idxp = idx;
	return n;
}

/* pkey_opts.alias_port: the physical port of an active VF alias GUID in
 * the model. */
static uint32_t
alias_port_of(void *arg, uint64_t guid)
{
	const struct plan_pkeys *p = arg;
	uint64_t port;

	if (p->alias == NULL || !alias_find(p->alias, guid, &port, NULL))
		return FABRIC_NONE;
	return query_port_by_guid(p->f, port);
}

/* A vport GUID named in partitions.conf: its physical port (whose switch
 * neighbour carries its keys, vport_own_table); else a VF alias GUID. */
static uint32_t
vport_phys(void *arg, uint64_t guid)
{
	const struct plan_pkeys *p = arg;
	uint32_t v = vport_by_guid(p->vps, guid);

	if (v != FABRIC_NONE && vport_is_managed(&p->vps->v[v]))
		return p->vps->v[v].port;
	return alias_port_of(arg, guid);
}

/* A managed vport has its own VPortPKeyTable: its keys stay out of its
 * physical port's table (tenants apart from the hypervisor). */
static bool
vport_own_table(void *arg, uint64_t guid)
{
	const struct plan_pkeys *p = arg;
	uint32_t v = vport_by_guid(p->vps, guid);

	return v != FABRIC_NONE && vport_is_managed(&p->vps->v[v]);
}

/* Each managed vport's own table, the one it had (by GUID) keeping its
 * indices. */
static void
vport_pkeys(const struct plan_pkeys *p)
{
	struct vport_set *s = p->vps;

	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];
		const struct vport *old = NULL;
		uint32_t o;
		size_t dropped;
		char msg[160];

		if (!vport_is_managed(v) || v->pkey_cap == 0 ||
		    vport_pkeys_alloc(s, i) == NULL)
			continue;
		if (p->cur_vps != NULL &&
		    (o = vport_by_guid(p->cur_vps, v->guid)) != FABRIC_NONE)
			old = &p->cur_vps->v[o];
		/* the table it had (by GUID), else the one it holds */
		dropped = pkey_vport_table(p->policy, v->guid, v->desc,
		    p->allow_both, old && old->pkeys ? old->pkeys :
		    v->dev_pkeys, old && old->pkeys ? old->pkey_cap :
		    v->dev_pkeys ? v->pkey_cap : 0, v->pkeys, v->pkey_cap);
		if (dropped > 0 && p->warn != NULL) {
			snprintf(msg, sizeof(msg), "partitions: vport 0x%016"
			    PRIx64 ": %zu P_Key(s) do not fit its "
			    "VPartitionCap of %u", v->guid, dropped,
			    v->pkey_cap);
			p->warn(p->note_arg, msg);
		}
	}
}

void
plan_pkeys(const struct plan_pkeys *p, struct pkey_tables *out,
    struct pkey_want **wantp)
{
	struct pkey_opts po = { .allow_both = p->allow_both,
	    .alias_port = p->alias != NULL ? alias_port_of : NULL,
	    .alias_arg = (void *)p };
	const struct fabric *f = p->f;
	struct pkey_want *want;

	if (p->virt_mode != CFG_VIRT_OFF && p->vps->n > 0) {
		po.alias_port = vport_phys;
		po.alias_own_table = vport_own_table;
	}
	*wantp = NULL;
	pkey_tables_free(out);
	if (p->policy == NULL)
		return;
	if (p->dev->n > 0)
		pkey_tables_sort(p->dev);
	pkey_tables_build(p->policy, f, p->dev->n > 0 ? p->dev : p->cur, &po,
	    out, p->note, p->note_arg);
	pkey_tables_free(p->dev);
	want = xcalloc(f->nports, sizeof(*want));
	for (uint32_t i = 0; i < f->nports; i++)
		want[i].enforce = -1;
	for (size_t i = 0; i < out->n; i++) {
		const struct pkey_table *t = &out->v[i];
		struct pkey_want *w = &want[t->port];

		if (t->kind == PKEY_TABLE_ENFORCE) {
			/* Enforcement only where the neighbour's whole set
			 * fits; off leaves the switch tables alone. */
			w->enforce = (int8_t)(t->enforce ? p->enforce : 0);
			if (p->enforce == 0)
				continue;
		}
		w->keys = t->keys;
		w->n = t->cap;
	}
	*wantp = want;
	if (p->virt_mode != CFG_VIRT_OFF)
		vport_pkeys(p);
}
