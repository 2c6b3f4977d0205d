#include "core/vport.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/vattr.h"

void
vport_set_init(struct vport_set *s)
{
	memset(s, 0, sizeof(*s));
	guid_hash_init(&s->by_guid);
	guid_hash_init(&s->by_lid);
}

static void
free_pkeys(struct vport_set *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		free(s->v[i].pkeys);
		s->v[i].pkeys = NULL;
		free(s->v[i].guids);
		s->v[i].guids = NULL;
		free(s->v[i].dev_pkeys);
		s->v[i].dev_pkeys = NULL;
	}
}

void
vport_set_fini(struct vport_set *s)
{
	free_pkeys(s);
	free(s->v);
	free(s->h);
	guid_hash_fini(&s->by_guid);
	guid_hash_fini(&s->by_lid);
	memset(s, 0, sizeof(*s));
}

void
vport_set_clear(struct vport_set *s)
{
	free_pkeys(s);
	s->n = 0;
	s->nh = 0;
	guid_hash_clear(&s->by_guid);
	guid_hash_clear(&s->by_lid);
}

uint16_t *
vport_pkeys_alloc(struct vport_set *s, uint32_t v)
{
	struct vport *vp = &s->v[v];

	free(vp->pkeys);
	vp->pkeys = vp->pkey_cap ? xcalloc(vp->pkey_cap, sizeof(uint16_t)) :
	    NULL;
	return vp->pkeys;
}

uint64_t *
vport_guids_alloc(struct vport_set *s, uint32_t v)
{
	struct vport *vp = &s->v[v];

	free(vp->guids);
	vp->guids = vp->vguid_cap ? xcalloc(vp->vguid_cap, sizeof(uint64_t)) :
	    NULL;
	return vp->guids;
}

uint32_t
vport_host_add(struct vport_set *s, uint32_t p)
{
	if (s->nh == s->hcap) {
		s->hcap = s->hcap ? 2 * s->hcap : 16;
		s->h = xreallocarray(s->h, s->hcap, sizeof(*s->h));
	}
	memset(&s->h[s->nh], 0, sizeof(s->h[s->nh]));
	s->h[s->nh].port = p;
	return s->nh++;
}

uint32_t
vport_add(struct vport_set *s, uint32_t h, uint16_t index)
{
	struct vport *v;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	v = &s->v[s->n];
	memset(v, 0, sizeof(*v));
	v->host = h;
	v->port = s->h[h].port;
	v->index = index;
	return s->n++;
}

bool
vport_set_guid(struct vport_set *s, uint32_t v, uint64_t guid)
{
	s->v[v].guid = guid;
	if (guid == 0 || guid_hash_get(&s->by_guid, guid) != GUID_HASH_NONE)
		return false;
	guid_hash_put(&s->by_guid, guid, v);
	return true;
}

/* The index in next of port cp of cur, FABRIC_NONE. */
static uint32_t
same_port(const struct fabric *next, const struct fabric *cur, uint32_t cp)
{
	uint32_t n = fabric_node_by_guid(next,
	    cur->nodes[cur->ports[cp].node].guid);

	if (n == FABRIC_NONE || cur->ports[cp].num > next->nodes[n].nports)
		return FABRIC_NONE;
	return fabric_port_idx(next, n, cur->ports[cp].num);
}

unsigned
vport_graft(struct vport_set *next_s, const struct fabric *next,
    const struct vport_set *cur_s, const struct fabric *cur)
{
	unsigned copied = 0;

	for (uint32_t h = 0; h < cur_s->nh; h++) {
		uint32_t np = same_port(next, cur, cur_s->h[h].port), nh;

		if (np == FABRIC_NONE || (!next->ports[np].kept &&
		    !next->nodes[next->ports[np].node].kept))
			continue;
		nh = vport_host_add(next_s, np);
		next_s->h[nh].vport_cap = cur_s->h[h].vport_cap;
		next_s->h[nh].top = cur_s->h[h].top;
		next_s->h[nh].flags = cur_s->h[h].flags;
		next_s->h[nh].valid = 0;        /* not read: nothing sent */
		for (uint32_t i = 0; i < cur_s->n; i++) {
			const struct vport *c = &cur_s->v[i];
			struct vport *v;
			uint32_t k;

			if (c->host != h)
				continue;
			k = vport_add(next_s, nh, c->index);
			v = &next_s->v[k];
			v->node_guid = c->node_guid;
			v->state = c->state;
			v->flags = c->flags;
			v->info_valid = c->info_valid;
			v->vguid_cap = c->vguid_cap;
			v->lid_by = c->lid_by;
			/* the LID it answered to is the one it holds */
			v->cur_lid = c->own_lid ? c->own_lid : c->cur_lid;
			v->pkey_cap = c->pkey_cap;
			memcpy(v->desc, c->desc, sizeof(v->desc));
			if (c->pkeys != NULL &&
			    vport_pkeys_alloc(next_s, k) != NULL)
				memcpy(next_s->v[k].pkeys, c->pkeys,
				    c->pkey_cap * sizeof(*c->pkeys));
			if (c->guids != NULL &&
			    vport_guids_alloc(next_s, k) != NULL)
				memcpy(next_s->v[k].guids, c->guids,
				    c->vguid_cap * sizeof(*c->guids));
			vport_set_guid(next_s, k, c->guid);
			copied++;
		}
	}
	return copied;
}

uint32_t
vport_by_guid(const struct vport_set *s, uint64_t guid)
{
	uint32_t v = guid_hash_get(&s->by_guid, guid);

	return v == GUID_HASH_NONE ? FABRIC_NONE : v;
}

uint32_t
vport_find(const struct vport_set *s, uint32_t h, uint16_t i)
{
	/* a host's vports are few and added together: a scan is enough */
	for (uint32_t v = 0; v < s->n; v++)
		if (s->v[v].host == h && s->v[v].index == i)
			return v;
	return FABRIC_NONE;
}

bool
vport_is_managed(const struct vport *v)
{
	return v->index != 0 && v->info_valid && v->guid != 0 && !v->dup &&
	    !v->idle && v->state >= PORT_INIT && v->state <= PORT_ACTIVE;
}

unsigned
vport_keep_running(struct vport_set *s)
{
	unsigned kept = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];

		v->idle = 0;
		if (!vport_is_managed(v))
			continue;
		if ((v->state != PORT_ARMED && v->state != PORT_ACTIVE) ||
		    v->cur_lid == 0)
			v->idle = 1;
		else
			kept++;
	}
	return kept;
}

unsigned
vport_mark_duplicates(struct vport_set *s, const struct fabric *f,
    const struct alias_store *alias)
{
	struct guid_hash seen;
	unsigned n = 0;
	uint64_t owner;
	unsigned idx;

	guid_hash_init(&seen);
	/* end ports' GUIDs first: one pass, not one per vport */
	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].guid != 0 && fabric_port_is_endport(f, p))
			guid_hash_put(&seen, f->ports[p].guid, UINT32_MAX - 1);
	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];
		uint32_t other;
		const char *what = NULL;

		v->dup = 0;
		if (v->index == 0 || v->guid == 0 || !v->info_valid ||
		    v->state < PORT_INIT || v->state > PORT_ACTIVE)
			continue;
		if (fabric_node_by_guid(f, v->guid) != FABRIC_NONE)
			what = "a node's GUID";
		else if ((other = guid_hash_get(&seen, v->guid)) !=
		    GUID_HASH_NONE)
			what = other == UINT32_MAX - 1 ? "a port's GUID" :
			    "another vport's GUID";
		if (what == NULL && alias != NULL &&
		    alias_find(alias, v->guid, &owner, &idx))
			what = "an alias GUID assigned";
		if (what == NULL) {
			guid_hash_put(&seen, v->guid, i);
			continue;
		}
		v->dup = 1;
		n++;
		log_warnx("vports: port %u of node 0x%016" PRIx64 " vport %u: "
		    "VPortGUID 0x%016" PRIx64 " is already %s: a duplicate "
		    "GID, left down and unmanaged", f->ports[v->port].num,
		    f->nodes[f->ports[v->port].node].guid, v->index, v->guid,
		    what);
	}
	guid_hash_fini(&seen);
	return n;
}

bool
vport_wants_lid(const struct vport *v)
{
	return vport_is_managed(v) && (v->flags & VATTR_VP_LID_REQUIRED);
}

unsigned
vport_resolve_lids(struct vport_set *s, const struct fabric *f)
{
	unsigned own = 0;

	guid_hash_clear(&s->by_lid);
	/* own LIDs first, so that LIDByVPortIndex can name any of them */
	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];

		v->lid = 0;
		if (v->index == 0)
			v->lid = f->ports[v->port].lid;
		else if (vport_wants_lid(v) && v->own_lid != 0) {
			v->lid = v->own_lid;
			own++;
			if (guid_hash_get(&s->by_lid, v->lid) == GUID_HASH_NONE)
				guid_hash_put(&s->by_lid, v->lid, i);
		}
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];
		uint32_t k;

		if (v->index == 0 || !vport_is_managed(v) || vport_wants_lid(v))
			continue;
		v->lid = f->ports[v->port].lid;
		if (v->lid_by != 0 && v->lid_by != v->index &&
		    (k = vport_find(s, v->host, v->lid_by)) != FABRIC_NONE &&
		    vport_wants_lid(&s->v[k]) && s->v[k].lid != 0)
			v->lid = s->v[k].lid;
	}
	return own;
}

uint32_t
vport_by_lid(const struct vport_set *s, uint16_t lid)
{
	uint32_t v = lid ? guid_hash_get(&s->by_lid, lid) : GUID_HASH_NONE;

	return v == GUID_HASH_NONE ? FABRIC_NONE : v;
}

uint16_t
vport_max_lid(const struct vport_set *s)
{
	uint16_t m = 0;

	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i].lid > m)
			m = s->v[i].lid;
	return m;
}

size_t
vport_lft_copy(const struct vport_set *s, const struct fabric *f,
    struct lft_set *lft)
{
	size_t set = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		const struct vport *v = &s->v[i];
		uint16_t plid = f->ports[v->port].lid;

		if (v->lid == 0 || plid == 0 || v->lid == plid ||
		    v->lid > lft->max_lid || plid > lft->max_lid)
			continue;
		for (uint32_t sw = 0; sw < lft->nsw; sw++) {
			uint8_t *row = lft_row(lft, sw);

			row[v->lid] = row[plid];
			set++;
		}
	}
	return set;
}

const char *
vport_state_name(uint8_t state)
{
	static const char *const n[] = { "nochange", "down", "init", "armed",
	    "active" };

	return state < sizeof(n) / sizeof(n[0]) ? n[state] : "?";
}

/* "node 0x... (desc) port p vport i" of v over f */
static void
where(const struct fabric *f, const struct vport *v, char *buf, size_t len)
{
	const struct fabric_node *n;

	if (v->port >= f->nports) {
		snprintf(buf, len, "vport %u", v->index);
		return;
	}
	n = &f->nodes[f->ports[v->port].node];
	snprintf(buf, len, "node 0x%016" PRIx64 " (%s) port %u vport %u",
	    n->guid, n->desc, f->ports[v->port].num, v->index);
}

void
vport_log_moves(const struct vport_set *old, const struct fabric *of,
    const struct vport_set *nw, const struct fabric *nf)
{
	char a[160], b[160];
	uint32_t o;

	if (old == NULL || of == NULL)
		return;
	for (uint32_t i = 0; i < nw->n; i++) {
		const struct vport *v = &nw->v[i];
		const struct vport *w;

		if (!vport_is_managed(v))
			continue;
		o = vport_by_guid(old, v->guid);
		w = o != FABRIC_NONE ? &old->v[o] : NULL;
		if (w != NULL && !vport_is_managed(w))
			w = NULL;
		where(nf, v, b, sizeof(b));
		if (w == NULL) {
			log_info("vports: VM 0x%016" PRIx64 " up on %s",
			    v->guid, b);
			continue;
		}
		where(of, w, a, sizeof(a));
		if (strcmp(a, b) != 0)
			log_info("vports: VM 0x%016" PRIx64 " moved from %s "
			    "to %s", v->guid, a, b);
	}
	for (uint32_t i = 0; i < old->n; i++) {
		const struct vport *w = &old->v[i];

		if (!vport_is_managed(w))
			continue;
		o = vport_by_guid(nw, w->guid);
		if (o != FABRIC_NONE && vport_is_managed(&nw->v[o]))
			continue;
		where(of, w, a, sizeof(a));
		log_info("vports: VM 0x%016" PRIx64 " gone from %s", w->guid,
		    a);
	}
}
