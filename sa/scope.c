/*
 * Partition scoping for the SA: see sa/scope.h.
 */
#include "autoconfig.h"

#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "sa/scope.h"

const struct pkey_table *
sa_scope_table(const struct sa_view *v, uint32_t p)
{
	const struct fabric_port *port;

	if (p != FABRIC_NONE && p >= v->f->nports && v->vports != NULL &&
	    v->vport_pk != NULL && p - v->f->nports < v->vports->n)
		return v->vport_pk[p - v->f->nports].cap ?
		    &v->vport_pk[p - v->f->nports] : NULL;
	if (v->pk == NULL || p == FABRIC_NONE || p >= v->f->nports)
		return NULL;
	port = &v->f->ports[p];
	return pkey_tables_find(v->pk, port->guid, port->num);
}

uint32_t
sa_end_phys(const struct sa_view *v, uint32_t e)
{
	if (e != FABRIC_NONE && e >= v->f->nports && v->vports != NULL &&
	    e - v->f->nports < v->vports->n)
		return v->vports->v[e - v->f->nports].port;
	return e;
}

uint64_t
sa_end_guid(const struct sa_view *v, uint32_t e)
{
	if (e >= v->f->nports && v->vports != NULL &&
	    e - v->f->nports < v->vports->n)
		return v->vports->v[e - v->f->nports].guid;
	return v->f->ports[e].guid;
}

uint32_t
sa_end_by_lid(const struct sa_view *v, uint16_t lid)
{
	uint32_t p = fabric_port_by_lid(v->f, lid), i;

	if (p == FABRIC_NONE && v->vports != NULL &&
	    (i = vport_by_lid(v->vports, lid)) != FABRIC_NONE)
		p = v->f->nports + i;
	return p;
}

static bool
table_empty(const struct pkey_table *t)
{
	uint16_t i;

	if (t == NULL)
		return true;
	for (i = 0; i < t->cap; i++)
		if ((t->keys[i] & 0x7FFF) != 0)
			return false;
	return true;
}

bool
sa_scope_has(const struct sa_view *v, uint32_t p, uint16_t pkey, bool *full)
{
	const struct pkey_table *t = sa_scope_table(v, p);
	bool found = false, fm = false;
	uint16_t i;

	if (table_empty(t)) {
		if (full != NULL)
			*full = true;
		return true;
	}
	for (i = 0; i < t->cap; i++)
		if ((t->keys[i] & 0x7FFF) != 0 &&
		    (t->keys[i] & 0x7FFF) == (pkey & 0x7FFF)) {
			found = true;
			fm = fm || (t->keys[i] & 0x8000) != 0;
		}
	if (full != NULL)
		*full = fm;
	return found;
}

/* The lowest key (low 15 bits) both hold, one of them fully, or 0. *ka
 * receives the form a holds it in (full if a holds both forms). */
static uint16_t
lowest_shared(const struct pkey_table *a, const struct pkey_table *b,
    uint16_t *ka)
{
	uint16_t best = 0, i, j, x, y;

	for (i = 0; i < a->cap; i++) {
		x = a->keys[i];
		if ((x & 0x7FFF) == 0 || (best != 0 && (x & 0x7FFF) > best))
			continue;
		for (j = 0; j < b->cap; j++) {
			y = b->keys[j];
			if ((y & 0x7FFF) != (x & 0x7FFF) ||
			    ((x | y) & 0x8000) == 0)
				continue;
			if (best == 0 || (x & 0x7FFF) < best ||
			    (x & 0x8000) != 0) {
				best = x & 0x7FFF;
				*ka = x;
			}
		}
	}
	return best;
}

bool
sa_scope_common_pkey(const struct sa_view *v, uint32_t a, uint32_t b,
    uint16_t *pkey)
{
	const struct pkey_table *ta = sa_scope_table(v, a);
	const struct pkey_table *tb = sa_scope_table(v, b);
	uint16_t ka = 0, i;
	bool full;

	if (table_empty(ta) && table_empty(tb)) {
		*pkey = 0xFFFF;
		return true;
	}
	if (table_empty(ta) || table_empty(tb)) {
		/* The known table's lowest key; the unknown port holds every
		 * key in full. */
		const struct pkey_table *t = table_empty(ta) ? tb : ta;
		uint16_t best = 0;

		for (i = 0; i < t->cap; i++)
			if ((t->keys[i] & 0x7FFF) != 0 &&
			    (best == 0 || (t->keys[i] & 0x7FFF) < best))
				best = t->keys[i] & 0x7FFF;
		if (best == 0)
			return false;
		full = true;
		if (t == ta)
			(void)sa_scope_has(v, a, best, &full);
		*pkey = (uint16_t)(best | (full ? 0x8000 : 0));
		return true;
	}
	if (lowest_shared(ta, tb, &ka) == 0)
		return false;
	*pkey = ka;
	return true;
}

bool
sa_scope_share(const struct sa_view *v, uint32_t a, uint32_t b)
{
	uint16_t k;

	/* A port is always in scope of itself (IBA 10.9.2; OpenSM's
	 * osm_physp_share_pkey): a limited member of every partition still
	 * sees its own records and asks for paths from itself. */
	if (a == b && a != FABRIC_NONE)
		return true;
	return sa_scope_common_pkey(v, a, b, &k);
}

void
sa_scope_index_ends(struct guid_hash *h, const struct sa_view *v)
{
	guid_hash_clear(h);
	if (v == NULL || v->f == NULL)
		return;
	for (uint32_t p = 0; p < v->f->nports; p++)
		if (v->f->ports[p].guid != 0 && fabric_port_is_endport(v->f, p))
			guid_hash_put(h, v->f->ports[p].guid, p);
}
