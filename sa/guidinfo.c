/*
 * GUIDInfoRecord: see sa/guidinfo.h. OpenSM's osm_sa_guidinfo_record.c is
 * the behaviour baseline for Set and Delete.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "core/vport.h"
#include "mcast/group.h"
#include "sa/guidinfo.h"
#include "sa/records.h"
#include "sa/scope.h"

#define BITS(off, n) { (off), (n) }
#define BIT(n) (UINT64_C(1) << (n))
#define NCOMP(t) (sizeof(t) / sizeof((t)[0]))

static const struct sa_comp guidinfo_comp[] = {
	BITS(0, 16), BITS(16, 8), BITS(24, 8), BITS(32, 32),
	BITS(64, 64), BITS(128, 64), BITS(192, 64), BITS(256, 64),
	BITS(320, 64), BITS(384, 64), BITS(448, 64), BITS(512, 64),
};

struct gi_state {
	struct guid_hash used;          /* port and node GUIDs of the view */
	struct guid_hash refused;       /* refusals said once (refused_key) */
};

/* One refusal of (port, index, GUID asked for), for saying it once while
 * a driver retries. */
static uint64_t
refused_key(uint64_t port, unsigned index, uint64_t want)
{
	uint64_t k = port ^ (index + 1) * UINT64_C(0x9E3779B97F4A7C15) ^ want;

	return k != 0 ? k : 1;
}

static void *
gi_init(struct sa *sa, struct ev_loop *loop)
{
	struct gi_state *st = xcalloc(1, sizeof(*st));

	(void)sa;
	(void)loop;
	guid_hash_init(&st->used);
	guid_hash_init(&st->refused);
	return st;
}

static void
gi_fini(void *state)
{
	struct gi_state *st = state;

	if (st == NULL)
		return;
	guid_hash_fini(&st->used);
	guid_hash_fini(&st->refused);
	free(st);
}

static void
gi_view_changed(void *state, const struct sa_view *old,
    const struct sa_view *v)
{
	struct gi_state *st = state;
	const struct fabric *f = v != NULL ? v->f : NULL;

	(void)old;
	guid_hash_clear(&st->used);
	if (f == NULL)
		return;
	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].guid != 0)
			guid_hash_put(&st->used, f->ports[p].guid, p);
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].guid != 0)
			guid_hash_put(&st->used, f->nodes[n].guid, n);
	/* a vport's GUID (a VM's GID) is in use as much as a port's: an
	 * alias GUID equal to it would be a duplicate GID */
	for (uint32_t i = 0; v->vports != NULL && i < v->vports->n; i++)
		if (v->vports->v[i].guid != 0)
			guid_hash_put(&st->used, v->vports->v[i].guid, i);
}

/* Whether guid is a member of a multicast group (its GID joined one) of
 * the daemon's group store. */
static bool
mcast_member(const struct sa_opts *o, uint64_t guid)
{
	const struct mcast_store *s = o != NULL ? o->mcast : NULL;

	for (const struct mcast_group *g = s != NULL ? mcast_next(s, NULL) :
	    NULL; g != NULL; g = mcast_next(s, g))
		if (mcast_member_find(g, guid) != NULL)
			return true;
	return false;
}

/* A GUID the fabric uses itself (alias_taken_fn). */
static bool
taken(void *arg, uint64_t guid)
{
	const struct gi_state *st = arg;

	return guid_hash_get(&st->used, guid) != GUID_HASH_NONE;
}

/* GUIDCap: PortInfo byte 50, entries in the port's table. */
static unsigned
guid_cap(const struct fabric_port *port)
{
	unsigned cap = port->info_valid ? port->info[50] : 1;

	return cap == 0 ? 1 : cap;
}

/* The record of block b of end port p as the device holds it. */
static void
device_rec(const struct sa_ctx *c, uint32_t p, unsigned b, uint8_t *r)
{
	const struct fabric_port *port = &c->v->f->ports[p];
	uint64_t g[ALIAS_PER_BLOCK];

	memset(r, 0, SA_GUIDINFO_REC_SIZE);
	sa_set_bits(r, 0, 16, port->lid);
	r[2] = (uint8_t)b;
	if (c->v->alias != NULL &&
	    alias_device_get(c->v->alias, port->guid, b, g, NULL)) {
		for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++)
			sa_set_bits(r, 64 + 64 * i, 64, g[i]);
	}
	/* Index 0 is the port GUID whatever was read. */
	if (b == 0)
		sa_set_bits(r, 64, 64, port->guid);
}

static unsigned
guidinfo_get(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	uint64_t mask = q->comp_mask & ~BIT(SA_GUIDINFO_COMP_LID);
	uint16_t lid = (uint16_t)sa_get_bits(q->rec, 0, 16);
	uint8_t tmp[SA_GUIDINFO_REC_SIZE];
	uint32_t p, b, blocks;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	for (p = 0; p < f->nports && !sa_out_full(out); p++) {
		const struct fabric_port *port = &f->ports[p];

		if (!fabric_port_is_endport(f, p) || port->lid == 0 ||
		    !sa_scope_share(c->v, q->requester, p))
			continue;
		if ((q->comp_mask & BIT(SA_GUIDINFO_COMP_LID)) &&
		    !fabric_port_has_lid(port, lid))
			continue;
		blocks = (guid_cap(port) + ALIAS_PER_BLOCK - 1) /
		    ALIAS_PER_BLOCK;
		for (b = 0; b < blocks && !sa_out_full(out); b++) {
			device_rec(c, p, b, tmp);
			if (!sa_comp_match(guidinfo_comp, NCOMP(guidinfo_comp),
			    mask, q->rec, tmp))
				continue;
			memcpy(sa_out_add(out), tmp, sizeof(tmp));
		}
	}
	/* vports with a LID: their VPortGUIDInfo as read (VGUIDCap entries,
	 * the VPortGUID at index 0), else block 0 with the VPortGUID */
	for (p = 0; c->v->vports != NULL && p < c->v->vports->n &&
	    !sa_out_full(out); p++) {
		const struct vport *vp = &c->v->vports->v[p];

		if (vp->index == 0 || vp->guid == 0 || vp->lid == 0 ||
		    !sa_scope_share(c->v, q->requester, f->nports + p))
			continue;
		if ((q->comp_mask & BIT(SA_GUIDINFO_COMP_LID)) &&
		    vp->lid != lid)
			continue;
		for (unsigned vb = 0; vb == 0 || (vp->guids != NULL &&
		    vb * 8 < vp->vguid_cap && !sa_out_full(out)); vb++) {
			memset(tmp, 0, sizeof(tmp));
			sa_set_bits(tmp, 0, 16, vp->lid);
			sa_set_bits(tmp, 16, 8, vb);
			for (unsigned k = 0; k < 8; k++) {
				unsigned e = vb * 8 + k;
				uint64_t g = vp->guids != NULL &&
				    e < vp->vguid_cap ? vp->guids[e] : 0;

				if (e == 0 && g == 0)
					g = vp->guid;
				sa_set_bits(tmp, 64 + 64 * k, 64, g);
			}
			if (!sa_comp_match(guidinfo_comp, NCOMP(guidinfo_comp),
			    mask, q->rec, tmp))
				continue;
			memcpy(sa_out_add(out), tmp, sizeof(tmp));
		}
	}
	return SA_STATUS_OK;
}

/* The checks Set and Delete share; the end port in *pp. */
static unsigned
modify_check(const struct sa_ctx *c, const struct sa_req *q, uint32_t *pp,
    unsigned *block)
{
	const struct fabric *f = c->v->f;
	uint16_t lid = (uint16_t)sa_get_bits(q->rec, 0, 16);
	uint32_t p;
	unsigned cap;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	if ((q->comp_mask & (BIT(SA_GUIDINFO_COMP_LID) |
	    BIT(SA_GUIDINFO_COMP_BLOCK))) != (BIT(SA_GUIDINFO_COMP_LID) |
	    BIT(SA_GUIDINFO_COMP_BLOCK)))
		return SA_STATUS_INSUFFICIENT_COMPONENTS;
	p = fabric_port_by_lid(f, lid);
	if (p == FABRIC_NONE)
		return SA_STATUS_NO_RECORDS;
	if (!sa_scope_share(c->v, q->requester, p))
		return SA_STATUS_DROP;	/* as OpenSM: not a word */
	if (c->v->alias == NULL)
		return SA_STATUS_DENIED;
	*block = q->rec[2];
	cap = guid_cap(&f->ports[p]);
	if (*block * ALIAS_PER_BLOCK >= cap ||
	    *block * ALIAS_PER_BLOCK >= ALIAS_MAX_INDEX)
		return SA_STATUS_REQ_INVALID;
	if (*block == 0 && (q->comp_mask & BIT(SA_GUIDINFO_COMP_GUID0)))
		return SA_STATUS_REQ_INVALID;	/* the port GUID */
	*pp = p;
	return SA_STATUS_OK;
}

/* The block as assigned now; refused entries of this request read 0. */
static void
assigned_rec(const struct sa_ctx *c, uint32_t p, unsigned b,
    const bool *refused, uint8_t *r)
{
	const struct fabric_port *port = &c->v->f->ports[p];

	memset(r, 0, SA_GUIDINFO_REC_SIZE);
	sa_set_bits(r, 0, 16, port->lid);
	r[2] = (uint8_t)b;
	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = b * ALIAS_PER_BLOCK + i;
		uint64_t g = idx == 0 ? port->guid :
		    alias_get(c->v->alias, port->guid, idx);

		sa_set_bits(r, 64 + 64 * i, 64, refused[i] ? 0 : g);
	}
}

static unsigned
guidinfo_set(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	bool refused[ALIAS_PER_BLOCK] = { false }, changed = false;
	unsigned block, st, cap, i;
	uint32_t p;

	if ((st = modify_check(c, q, &p, &block)) != SA_STATUS_OK)
		return st;
	cap = guid_cap(&f->ports[p]);
	for (i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = block * ALIAS_PER_BLOCK + i;
		uint64_t want, before, got;

		if (!(q->comp_mask & BIT(SA_GUIDINFO_COMP_GUID0 + i)))
			continue;
		if (idx >= cap) {
			refused[i] = true;
			continue;
		}
		want = sa_get_bits(q->rec, 64 + 64 * i, 64);
		before = alias_get(c->v->alias, f->ports[p].guid, idx);
		got = alias_set(c->v->alias, f->ports[p].guid, idx, want,
		    taken, c->state);
		if (got == 0) {
			struct gi_state *gs = c->state;
			uint64_t k = refused_key(f->ports[p].guid, idx, want);

			refused[i] = true;
			/* said once: the driver retries for as long */
			if (guid_hash_get(&gs->refused, k) == GUID_HASH_NONE) {
				guid_hash_put(&gs->refused, k, 1);
				if (want != 0)
					log_info("sa: alias GUID 0x%016" PRIx64
					    " refused to port 0x%016" PRIx64
					    " index %u: in use (a port, node, "
					    "vport or another alias)", want,
					    f->ports[p].guid, idx);
				else
					log_warnx("sa: port 0x%016" PRIx64
					    " index %u: no alias GUID left "
					    "to assign", f->ports[p].guid, idx);
			}
		} else if (got != before) {
			changed = true;
			log_info("sa: alias GUID 0x%016" PRIx64 " assigned to "
			    "port 0x%016" PRIx64 " (LID %u) index %u", got,
			    f->ports[p].guid, f->ports[p].lid, idx);
		}
	}
	assigned_rec(c, p, block, refused, sa_out_add(out));
	if (changed && c->v->alias_changed != NULL)
		c->v->alias_changed(c->v->alias_arg, p, block);
	return SA_STATUS_OK;
}

static unsigned
guidinfo_del(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	const struct fabric *f = c->v->f;
	bool refused[ALIAS_PER_BLOCK] = { false }, changed = false;
	unsigned block, st, i;
	uint32_t p;

	if ((st = modify_check(c, q, &p, &block)) != SA_STATUS_OK)
		return st;
	/* an alias still a multicast member stays (as OpenSM): its groups
	 * would keep a member that no longer exists */
	for (i = 0; i < ALIAS_PER_BLOCK; i++) {
		uint64_t g;

		if (!(q->comp_mask & BIT(SA_GUIDINFO_COMP_GUID0 + i)))
			continue;
		g = alias_get(c->v->alias, f->ports[p].guid,
		    block * ALIAS_PER_BLOCK + i);
		if (g != 0 && mcast_member(c->o, g)) {
			log_info("sa: alias GUID 0x%016" PRIx64 " of port "
			    "0x%016" PRIx64 " index %u not deleted: still a "
			    "multicast group member", g, f->ports[p].guid,
			    block * ALIAS_PER_BLOCK + i);
			return SA_STATUS_DENIED;
		}
	}
	for (i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = block * ALIAS_PER_BLOCK + i;
		uint64_t g;

		if (!(q->comp_mask & BIT(SA_GUIDINFO_COMP_GUID0 + i)))
			continue;
		g = alias_get(c->v->alias, f->ports[p].guid, idx);
		if (alias_delete(c->v->alias, f->ports[p].guid, idx)) {
			changed = true;
			log_info("sa: alias GUID 0x%016" PRIx64 " released by "
			    "port 0x%016" PRIx64 " index %u (kept for it)", g,
			    f->ports[p].guid, idx);
		}
	}
	assigned_rec(c, p, block, refused, sa_out_add(out));
	if (changed && c->v->alias_changed != NULL)
		c->v->alias_changed(c->v->alias_arg, p, block);
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_guidinfo = {
	.id = SA_ATTR_GUIDINFO_REC,
	.name = "GUIDInfoRecord",
	.rec_size = SA_GUIDINFO_REC_SIZE,
	.get = guidinfo_get,
	.set = guidinfo_set,
	.del = guidinfo_del,
	.init = gi_init,
	.fini = gi_fini,
	.view_changed = gi_view_changed,
};
