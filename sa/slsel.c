/*
 * SL selection: see sa/slsel.h. OpenSM 3.3.23's osm_sa_path_record.c
 * (pr_rcv_get_path_parms) is the baseline for the order of SL sources.
 */
#include "autoconfig.h"

#include "sa/slsel.h"

#include <stddef.h>

#include "core/fabric.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "sa/scope.h"

struct end {
	struct qos_port p;
};

static const struct qos_port *
describe(const struct sa_view *v, uint32_t e, struct end *x)
{
	const struct fabric *f = v->f;
	const struct fabric_port *fp;
	const struct fabric_node *n;
	const struct pkey_table *t;

	if (e == FABRIC_NONE || f == NULL)
		return NULL;
	fp = &f->ports[sa_end_phys(v, e)];
	n = &f->nodes[fp->node];
	t = sa_scope_table(v, e);
	x->p.guid = sa_end_guid(v, e);
	x->p.node_type = n->type;
	x->p.num = fp->num;
	x->p.desc = n->desc_valid ? n->desc : NULL;
	x->p.self = e < f->nports && e == f->sm_port;
	x->p.keys = t != NULL ? t->keys : NULL;
	x->p.nkeys = t != NULL ? t->cap : 0;
	/* an empty table holds every key (sa_scope_has) */
	x->p.all_keys = true;
	for (uint16_t i = 0; i < x->p.nkeys; i++)
		if ((x->p.keys[i] & 0x7fff) != 0)
			x->p.all_keys = false;
	return &x->p;
}

const struct qos_level *
sa_sl_level(const struct sa_view *v, uint32_t s, uint32_t d,
    const struct sa_sl_req *r)
{
	struct end xs, xd;
	struct qos_query q = { 0 };

	if (!v->qos || v->qos_policy == NULL)
		return NULL;
	q.given = (r->has_sid ? QOS_Q_SERVICE_ID : 0) |
	    (r->has_pkey ? QOS_Q_PKEY : 0) |
	    (r->has_class ? QOS_Q_QOS_CLASS : 0);
	q.service_id = r->service_id;
	q.pkey = r->pkey;
	q.qos_class = r->qos_class;
	q.src = describe(v, s, &xs);
	q.dst = describe(v, d, &xd);
	return qos_policy_match(v->qos_policy, &q);
}

int
sa_sl_select(const struct sa_view *v, const struct qos_level *lvl,
    bool sl_given, uint8_t sl, uint16_t pkey)
{
	const struct pkey_partition *pt;

	if (!v->qos)
		return sl_given ? sl & 0xF : SA_SL_NO_QOS;
	if (sl_given) {
		if (lvl != NULL && (lvl->set & QOS_LF_SL) && lvl->sl != sl)
			return -1;
		return sl & 0xF;
	}
	if (lvl != NULL && (lvl->set & QOS_LF_SL))
		return lvl->sl;
	if (pkey != 0 && v->policy != NULL &&
	    (pt = pkey_policy_find(v->policy, PKEY_BASE(pkey))) != NULL)
		return pt->flags.sl;
	return 0;
}

size_t
sa_sl_group_ports(const struct sa_view *v, size_t g)
{
	struct end x;
	size_t n = 0;

	if (v->qos_policy == NULL || v->f == NULL)
		return 0;
	for (uint32_t p = 0; p < v->f->nports; p++)
		if (fabric_port_is_endport(v->f, p) && v->f->ports[p].lid != 0 &&
		    qos_group_has(v->qos_policy, g, describe(v, p, &x)))
			n++;
	return n;
}
