/*
 * The multicast group store (mcast/group.h). Groups sit in an array sorted
 * by MGID (binary search; creates and deletes move pointers, which is
 * cheap at the thousands of groups a subnet holds), and in a table indexed
 * by MLID - MCAST_MLID_BASE whose slots chain the groups sharing an MLID.
 * Members of a group sit in an array sorted by port GUID.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "mcast/group.h"

struct mcast_store {
	struct mcast_group **v;         /* sorted by MGID */
	size_t n, cap;
	struct mcast_group **by_mlid;   /* [MCAST_MLID_COUNT] chains */
	unsigned limit;
	bool consolidate_snm;
	uint32_t mgid_counter;
	struct mcast_stats st;
};

struct mcast_store *
mcast_store_new(void)
{
	struct mcast_store *s = xcalloc(1, sizeof(*s));

	s->by_mlid = xcalloc(MCAST_MLID_COUNT, sizeof(*s->by_mlid));
	s->limit = MCAST_MLID_COUNT;
	return s;
}

static void
group_free(struct mcast_group *g)
{
	free(g->members);
	free(g);
}

void
mcast_store_free(struct mcast_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		group_free(s->v[i]);
	free(s->v);
	free(s->by_mlid);
	free(s);
}

void
mcast_set_mlid_limit(struct mcast_store *s, unsigned limit)
{
	if (limit > MCAST_MLID_COUNT)
		limit = MCAST_MLID_COUNT;
	s->limit = limit;
}

unsigned
mcast_mlid_limit(const struct mcast_store *s)
{
	return s->limit;
}

unsigned
mcast_mlids_beyond_limit(const struct mcast_store *s)
{
	unsigned i, k = 0;

	for (i = s->limit; i < MCAST_MLID_COUNT; i++)
		if (s->by_mlid[i] != NULL)
			k++;
	return k;
}

unsigned
mcast_relocate(struct mcast_store *s, mcast_moved_fn *fn, void *arg)
{
	unsigned i, to = 0, moved = 0;
	struct mcast_group *g;

	for (i = s->limit; i < MCAST_MLID_COUNT; i++) {
		if (s->by_mlid[i] == NULL)
			continue;
		while (to < s->limit && s->by_mlid[to] != NULL)
			to++;
		if (to >= s->limit)
			break;
		s->by_mlid[to] = s->by_mlid[i];
		s->by_mlid[i] = NULL;
		for (g = s->by_mlid[to]; g != NULL; g = g->mlid_next)
			g->mlid = (uint16_t)(MCAST_MLID_BASE + to);
		moved++;
		if (fn != NULL)
			fn(arg, (uint16_t)(MCAST_MLID_BASE + i),
			    (uint16_t)(MCAST_MLID_BASE + to));
	}
	return moved;
}

void
mcast_set_consolidate_snm(struct mcast_store *s, bool on)
{
	s->consolidate_snm = on;
}

void
mcast_get_stats(const struct mcast_store *s, struct mcast_stats *st)
{
	*st = s->st;
	st->groups = s->n;
}

const char *
mcast_err_name(enum mcast_err e)
{
	switch (e) {
	case MCAST_OK:
		return "ok";
	case MCAST_EXISTS:
		return "group exists";
	case MCAST_NO_MLID:
		return "no free MLID";
	case MCAST_BAD_MGID:
		return "not a multicast GID";
	}
	return "unknown";
}

/* ---- the MGID index */

/* Index of mgid in s->v, or the index it would be inserted at (*found
 * false). */
static size_t
mgid_search(const struct mcast_store *s, const uint8_t mgid[16], bool *found)
{
	size_t lo = 0, hi = s->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = memcmp(s->v[mid]->mgid, mgid, 16);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

struct mcast_group *
mcast_find(const struct mcast_store *s, const uint8_t mgid[16])
{
	bool found;
	size_t i = mgid_search(s, mgid, &found);

	return found ? s->v[i] : NULL;
}

size_t
mcast_count(const struct mcast_store *s)
{
	return s->n;
}

struct mcast_group *
mcast_next(const struct mcast_store *s, const struct mcast_group *g)
{
	bool found;
	size_t i;

	if (g == NULL)
		return s->n > 0 ? s->v[0] : NULL;
	i = mgid_search(s, g->mgid, &found);
	if (found)
		i++;
	return i < s->n ? s->v[i] : NULL;
}

int
mcast_new_mgid(struct mcast_store *s, uint8_t scope, uint64_t subnet_prefix,
    uint8_t mgid[16])
{
	unsigned i, b;

	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | (scope & 0x0f));
	mgid[2] = 0xa0;
	mgid[3] = 0x1b;
	for (b = 0; b < 8; b++)
		mgid[4 + b] = (uint8_t)(subnet_prefix >> (56 - 8 * b));
	for (i = 0; i < 1000; i++) {
		uint32_t c = s->mgid_counter++;

		mgid[12] = (uint8_t)(c >> 24);
		mgid[13] = (uint8_t)(c >> 16);
		mgid[14] = (uint8_t)(c >> 8);
		mgid[15] = (uint8_t)c;
		if (mcast_find(s, mgid) == NULL)
			return 0;
	}
	return -1;
}

/* ---- MLIDs */

static inline struct mcast_group **
mlid_slot(const struct mcast_store *s, uint16_t mlid)
{
	return &s->by_mlid[mlid - MCAST_MLID_BASE];
}

static bool
mlid_valid(uint16_t mlid)
{
	return mlid >= MCAST_MLID_BASE &&
	    mlid < MCAST_MLID_BASE + MCAST_MLID_COUNT;
}

struct mcast_group *
mcast_by_mlid(const struct mcast_store *s, uint16_t mlid)
{
	return mlid_valid(mlid) ? *mlid_slot(s, mlid) : NULL;
}

uint16_t
mcast_next_mlid(const struct mcast_store *s, uint16_t after)
{
	unsigned i = after < MCAST_MLID_BASE ? 0 :
	    (unsigned)(after - MCAST_MLID_BASE) + 1;

	for (; i < MCAST_MLID_COUNT; i++)
		if (s->by_mlid[i] != NULL)
			return (uint16_t)(MCAST_MLID_BASE + i);
	return 0;
}

bool
mcast_mgid_is_snm(const uint8_t mgid[16])
{
	static const uint8_t mid[7] = { 0, 0, 0, 0, 0, 1, 0xff };

	return mgid[0] == 0xff && (mgid[1] & 0xf0) == 0x10 &&
	    mgid[2] == 0x60 && mgid[3] == 0x1b &&
	    memcmp(mgid + 6, mid, sizeof(mid)) == 0;
}

/* The MLID of an SNM group that agrees with mgid in all but its last three
 * bytes (same scope and P_Key), 0 if none. */
static uint16_t
snm_mlid(const struct mcast_store *s, const uint8_t mgid[16])
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (mcast_mgid_is_snm(s->v[i]->mgid) &&
		    memcmp(s->v[i]->mgid, mgid, 13) == 0)
			return s->v[i]->mlid;
	return 0;
}

static uint16_t
mlid_pick(const struct mcast_store *s, const uint8_t mgid[16],
    uint16_t want)
{
	unsigned i;
	uint16_t m;

	if (want >= MCAST_MLID_BASE && want < MCAST_MLID_BASE + s->limit &&
	    *mlid_slot(s, want) == NULL)
		return want;
	if (s->consolidate_snm && mcast_mgid_is_snm(mgid) &&
	    (m = snm_mlid(s, mgid)) != 0)
		return m;
	for (i = 0; i < s->limit; i++)
		if (s->by_mlid[i] == NULL)
			return (uint16_t)(MCAST_MLID_BASE + i);
	return 0;
}

/* ---- groups */

struct mcast_group *
mcast_create(struct mcast_store *s, const uint8_t mgid[16], uint16_t want_mlid,
    const struct mcast_params *p, bool well_known, enum mcast_err *err)
{
	struct mcast_group *g, **slot;
	enum mcast_err e = MCAST_OK;
	uint16_t mlid = 0;
	bool found;
	size_t at;

	at = mgid_search(s, mgid, &found);
	if (mgid[0] != 0xff)
		e = MCAST_BAD_MGID;
	else if (found)
		e = MCAST_EXISTS;
	else if ((mlid = mlid_pick(s, mgid, want_mlid)) == 0) {
		e = MCAST_NO_MLID;
		s->st.no_mlid++;
	}
	if (err != NULL)
		*err = e;
	if (e != MCAST_OK)
		return NULL;

	g = xcalloc(1, sizeof(*g));
	memcpy(g->mgid, mgid, 16);
	g->mlid = mlid;
	g->p = *p;
	g->well_known = well_known;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof(*s->v));
	s->v[at] = g;
	s->n++;
	/* Chain at the end: the first group of an MLID stays first. */
	slot = mlid_slot(s, mlid);
	if (*slot == NULL)
		s->st.mlids++;
	while (*slot != NULL)
		slot = &(*slot)->mlid_next;
	*slot = g;
	s->st.created++;
	return g;
}

/* Take g out of both indices and free it; true if its MLID is now free. */
static bool
group_remove(struct mcast_store *s, struct mcast_group *g)
{
	struct mcast_group **slot;
	bool found, freed;
	size_t at;

	at = mgid_search(s, g->mgid, &found);
	if (!found || s->v[at] != g)
		fatalx("mcast: group %p not in the store", (void *)g);
	memmove(s->v + at, s->v + at + 1, (s->n - at - 1) * sizeof(*s->v));
	s->n--;
	slot = mlid_slot(s, g->mlid);
	while (*slot != g)
		slot = &(*slot)->mlid_next;
	*slot = g->mlid_next;
	freed = *mlid_slot(s, g->mlid) == NULL;
	if (freed)
		s->st.mlids--;
	s->st.members -= g->nmembers;
	s->st.deleted++;
	group_free(g);
	return freed;
}

void
mcast_delete(struct mcast_store *s, struct mcast_group *g)
{
	group_remove(s, g);
}

/* The predicate, for a whole group. */
static bool
group_keeps(const struct mcast_group *g)
{
	size_t i;

	if (g->well_known)
		return true;
	for (i = 0; i < g->nmembers; i++)
		if (mcast_join_is_full(g->members[i].join_state))
			return true;
	return false;
}

bool
mcast_set_well_known(struct mcast_store *s, struct mcast_group *g,
    bool well_known)
{
	g->well_known = well_known;
	if (group_keeps(g))
		return false;
	group_remove(s, g);
	return true;
}

/* ---- members */

static size_t
member_search(const struct mcast_group *g, uint64_t guid, bool *found)
{
	size_t lo = 0, hi = g->nmembers, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->members[mid].port_guid == guid) {
			*found = true;
			return mid;
		}
		if (g->members[mid].port_guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

struct mcast_member *
mcast_member_find(const struct mcast_group *g, uint64_t port_guid)
{
	bool found;
	size_t i = member_search(g, port_guid, &found);

	return found ? &g->members[i] : NULL;
}

uint8_t
mcast_join(struct mcast_store *s, struct mcast_group *g, uint64_t port_guid,
    const uint8_t gid[16], uint8_t join_state, bool proxy)
{
	struct mcast_member *m;
	bool found;
	size_t at;

	join_state &= MCAST_JOIN_ALL;
	at = member_search(g, port_guid, &found);
	if (!found) {
		if (join_state == 0)
			return 0;
		if (g->nmembers == g->members_cap) {
			g->members_cap = g->members_cap ? g->members_cap * 2 : 4;
			g->members = xreallocarray(g->members, g->members_cap,
			    sizeof(*g->members));
		}
		memmove(g->members + at + 1, g->members + at,
		    (g->nmembers - at) * sizeof(*g->members));
		g->nmembers++;
		s->st.members++;
		m = &g->members[at];
		memset(m, 0, sizeof(*m));
		m->port_guid = port_guid;
	} else
		m = &g->members[at];
	memcpy(m->gid, gid, 16);
	m->proxy = proxy;
	m->join_state |= join_state;
	s->st.joins++;
	return m->join_state;
}

static void
member_drop(struct mcast_store *s, struct mcast_group *g, size_t at)
{
	memmove(g->members + at, g->members + at + 1,
	    (g->nmembers - at - 1) * sizeof(*g->members));
	g->nmembers--;
	s->st.members--;
}

void
mcast_leave(struct mcast_store *s, struct mcast_group *g, uint64_t port_guid,
    uint8_t join_state, struct mcast_leave *r)
{
	bool found;
	size_t at;

	memset(r, 0, sizeof(*r));
	r->mlid = g->mlid;
	at = member_search(g, port_guid, &found);
	if (!found)
		return;
	r->was_member = true;
	g->members[at].join_state &= (uint8_t)~join_state;
	r->join_state = g->members[at].join_state;
	s->st.leaves++;
	if (r->join_state == 0) {
		member_drop(s, g, at);
		r->member_removed = true;
	}
	if (!group_keeps(g)) {
		r->group_deleted = true;
		r->mlid_freed = group_remove(s, g);
	}
}

/* Drop the memberships of ports present() denies in one group; returns
 * how many went. The group itself is left to the caller. */
struct prune_by_port {
	bool (*present)(void *, uint64_t);
	void *arg;
};

static bool
by_port(void *arg, const struct mcast_group *g, uint64_t guid)
{
	const struct prune_by_port *b = arg;

	(void)g;
	return b->present(b->arg, guid);
}

static size_t
group_prune(struct mcast_store *s, struct mcast_group *g,
    bool (*keep)(void *, const struct mcast_group *, uint64_t), void *parg)
{
	size_t i = 0, k = 0;

	while (i < g->nmembers) {
		if (!keep(parg, g, g->members[i].port_guid)) {
			member_drop(s, g, i);
			k++;
		} else
			i++;
	}
	return k;
}

size_t
mcast_prune(struct mcast_store *s, bool (*present)(void *, uint64_t),
    void *parg, mcast_changed_fn *changed, void *carg)
{
	struct prune_by_port b = { present, parg };

	return mcast_prune_members(s, by_port, &b, changed, carg);
}

size_t
mcast_prune_members(struct mcast_store *s,
    bool (*keep)(void *arg, const struct mcast_group *g, uint64_t port_guid),
    void *parg, mcast_changed_fn *changed, void *carg)
{
	struct mcast_group *g;
	size_t i = 0, k, total = 0;
	uint16_t mlid, last = 0;

	while (i < s->n) {
		g = s->v[i];
		k = group_prune(s, g, keep, parg);
		total += k;
		if (k == 0) {
			i++;
			continue;
		}
		mlid = g->mlid;
		if (!group_keeps(g))
			group_remove(s, g);
		else
			i++;
		/* MGID order groups an MLID's sharers only by chance:
		 * changed may see an MLID twice, which is harmless. */
		if (changed != NULL && mlid != last)
			changed(carg, mlid);
		last = mlid;
	}
	s->st.forgotten += total;
	return total;
}

static bool
not_this(void *arg, uint64_t guid)
{
	return guid != *(const uint64_t *)arg;
}

size_t
mcast_forget_port(struct mcast_store *s, uint64_t port_guid,
    mcast_changed_fn *changed, void *carg)
{
	return mcast_prune(s, not_this, &port_guid, changed, carg);
}
