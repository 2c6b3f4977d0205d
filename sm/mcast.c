/*
 * Multicast in the daemon (sm/mcast.h): the store, the trees of the model
 * in use, and the MFT state of each switch as far as this SM knows, kept
 * by switch GUID across models so that a heavy sweep writes only what a
 * topology change moved.
 */
#include "sm/mcast.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/inflight.h"
#include "core/log.h"
#include "core/query.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "mcast/group.h"
#include "mcast/tree.h"
#include "sm/json.h"

#define CAP_MCAST_FDB_TOP 0x40000000u   /* PortInfo CapabilityMask bit 30 */
#define NBLOCKS ((MCAST_MLID_COUNT + MCAST_BLOCK - 1) / MCAST_BLOCK)

/* What one switch's MFT holds, as far as we know. */
struct held {
	uint64_t guid;
	struct mcast_mft mft;   /* contents known where known[] says so */
	uint8_t *known;         /* [nblocks * npos] */
	uint8_t *busy;          /* [nblocks * npos] a request in flight */
	unsigned nslots;
	uint16_t top;           /* MulticastFDBTop we set, 0: not set */
};

struct sm_mcast {
	struct mad_engine *mad;
	struct mcast_store *store;
	const struct fabric *f;
	const struct vport_set *vports; /* members by vport GUID */
	const struct alias_store *alias; /* members by VF alias GUID */
	struct mcast_trees *trees;
	struct held *held;
	size_t nheld, heldcap;
	struct guid_hash by_guid;       /* switch GUID -> held index */
	bool programming;       /* master, first program done */
	uint64_t updates, rebuilds, writes, failures, top_sets;
	uint64_t left_out;
	struct mcast_tree_member *mbuf;
	size_t mbufcap;
	/* Joins and leaves coalesced: MLIDs whose tree is to be rebuilt and
	 * the blocks to bring in line, flushed FLUSH_DELAY after the first
	 * (at once without a loop). */
	struct ev_loop *loop;
	ev_timer flush;
	uint8_t *dirty;                 /* [MCAST_MLID_COUNT] */
	uint8_t dirty_block[NBLOCKS];
	bool pending;
	uint64_t flushes;
	struct inflight sets;   /* MFT and MulticastFDBTop Sets */
};

#define FLUSH_DELAY 0.005       /* seconds */

struct mreq {
	struct sm_mcast *m;
	uint64_t guid;
	unsigned block, pos;
	uint8_t data[64];
};

struct sm_mcast *
sm_mcast_new(struct mad_engine *mad)
{
	struct sm_mcast *m = xcalloc(1, sizeof(*m));

	m->mad = mad;
	m->store = mcast_store_new();
	m->dirty = xcalloc(MCAST_MLID_COUNT, 1);
	guid_hash_init(&m->by_guid);
	return m;
}

static void flush_now(struct sm_mcast *m);

static void
on_flush(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	flush_now(w->data);
}

void
sm_mcast_set_loop(struct sm_mcast *m, struct ev_loop *loop)
{
	m->loop = loop;
	ev_timer_init(&m->flush, on_flush, FLUSH_DELAY, 0.);
	m->flush.data = m;
}

void
sm_mcast_free(struct sm_mcast *m)
{
	size_t i;

	if (m == NULL)
		return;
	if (m->loop != NULL)
		ev_timer_stop(m->loop, &m->flush);
	free(m->dirty);
	for (i = 0; i < m->nheld; i++) {
		mcast_mft_fini(&m->held[i].mft);
		free(m->held[i].known);
		free(m->held[i].busy);
	}
	free(m->held);
	guid_hash_fini(&m->by_guid);
	mcast_trees_free(m->trees);
	mcast_store_free(m->store);
	free(m->mbuf);
	free(m);
}

struct mcast_store *
sm_mcast_store(struct sm_mcast *m)
{
	return m->store;
}

static struct held *
held_get(struct sm_mcast *m, uint64_t guid, uint8_t nports)
{
	uint32_t i = guid_hash_get(&m->by_guid, guid);
	struct held *h;

	if (i != GUID_HASH_NONE)
		return &m->held[i];
	if (m->nheld == m->heldcap) {
		m->heldcap = m->heldcap ? 2 * m->heldcap : 64;
		m->held = xreallocarray(m->held, m->heldcap, sizeof(*m->held));
	}
	h = &m->held[m->nheld];
	memset(h, 0, sizeof(*h));
	h->guid = guid;
	mcast_mft_init(&h->mft, nports);
	guid_hash_put(&m->by_guid, guid, (uint32_t)m->nheld++);
	return h;
}

static void
held_size(struct held *h, unsigned nblocks)
{
	unsigned n = nblocks * h->mft.npos;

	if (n <= h->nslots)
		return;
	h->known = xreallocarray(h->known, n, 1);
	h->busy = xreallocarray(h->busy, n, 1);
	memset(h->known + h->nslots, 0, n - h->nslots);
	memset(h->busy + h->nslots, 0, n - h->nslots);
	h->nslots = n;
}

/* ---- trees */

/* The end port a member GUID is reached through: a port's own, else a
 * vport's physical port (a VM joined from its vport GID). */
static uint32_t
member_port(const struct sm_mcast *m, uint64_t guid)
{
	uint32_t p = query_port_by_guid(m->f, guid), i;
	uint64_t phys;

	/* a VF alias GUID: its physical port's */
	if (p == FABRIC_NONE && m->alias != NULL &&
	    alias_find(m->alias, guid, &phys, NULL))
		p = query_port_by_guid(m->f, phys);
	/* a vport the SM manages (a duplicate GUID left down is not one) */
	if (p == FABRIC_NONE && m->vports != NULL &&
	    (i = vport_by_guid(m->vports, guid)) != FABRIC_NONE &&
	    vport_is_managed(&m->vports->v[i]) &&
	    m->vports->v[i].port < m->f->nports)
		p = m->vports->v[i].port;
	return p;
}

static unsigned
build_one(struct sm_mcast *m, uint16_t mlid)
{
	struct mcast_group *g;
	size_t n = 0, i;
	uint32_t p;

	for (g = mcast_by_mlid(m->store, mlid); g != NULL; g = g->mlid_next) {
		if (n + g->nmembers > m->mbufcap) {
			m->mbufcap = 2 * (n + g->nmembers);
			m->mbuf = xreallocarray(m->mbuf, m->mbufcap,
			    sizeof(*m->mbuf));
		}
		for (i = 0; i < g->nmembers; i++) {
			p = member_port(m, g->members[i].port_guid);
			if (p == FABRIC_NONE)
				continue;
			m->mbuf[n].port = p;
			m->mbuf[n++].receive = (g->members[i].join_state &
			    (MCAST_JOIN_FULL | MCAST_JOIN_NON)) != 0;
		}
	}
	return mcast_tree_build(m->trees, mlid, m->mbuf, n);
}

static bool
port_present(void *arg, uint64_t guid)
{
	return member_port(arg, guid) != FABRIC_NONE;
}

static void
on_moved(void *arg, uint16_t from, uint16_t to)
{
	log_warnx("mcast: MLID 0x%04x lies past the smallest MulticastFDBCap "
	    "(%u): its groups now use MLID 0x%04x", from,
	    *(const unsigned *)arg, to);
}

void
sm_mcast_set_alias(struct sm_mcast *m, const struct alias_store *a)
{
	m->alias = a;
}

void
sm_mcast_set_vports(struct sm_mcast *m, const struct vport_set *s)
{
	m->vports = s;
}

void
sm_mcast_set_fabric(struct sm_mcast *m, const struct fabric *f)
{
	unsigned limit = MCAST_MLID_COUNT, cap;
	uint16_t mlid;
	uint32_t n;
	size_t k;

	mcast_trees_free(m->trees);
	m->trees = NULL;
	m->f = f;
	if (f == NULL)
		return;
	for (n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type != NODE_SWITCH ||
		    !f->nodes[n].sw_info_valid)
			continue;
		cap = (unsigned)mad_get_field((void *)f->nodes[n].sw_info, 0,
		    IB_SW_MCAST_FDB_CAP_F);
		if (cap < limit)
			limit = cap;
	}
	mcast_set_mlid_limit(m->store, limit);
	/* A switch with a smaller table came: groups past it move to free
	 * MLIDs within it; those that cannot are reported, not programmed. */
	if (mcast_mlids_beyond_limit(m->store) > 0)
		mcast_relocate(m->store, on_moved, &limit);
	if (mcast_mlids_beyond_limit(m->store) > 0)
		log_warnx("mcast: %u MLIDs in use lie past the smallest "
		    "MulticastFDBCap (%u) and none is free below it: their "
		    "trees are not programmed",
		    mcast_mlids_beyond_limit(m->store), limit);
	k = mcast_prune(m->store, port_present, m, NULL, NULL);
	if (k > 0)
		log_info("mcast: %zu memberships of ports that left dropped", k);
	m->trees = mcast_trees_new(f);
	m->rebuilds++;
	m->left_out = 0;
	for (mlid = mcast_next_mlid(m->store, 0); mlid != 0;
	    mlid = mcast_next_mlid(m->store, mlid))
		if (mlid < MCAST_MLID_BASE + limit)
			m->left_out += build_one(m, mlid);
}

/* ---- the wire */

static void send_slot(struct sm_mcast *m, uint32_t sw, struct held *h,
    unsigned block, unsigned pos);

static const struct fabric_node *
node_of_guid(const struct sm_mcast *m, uint64_t guid, uint32_t *sw)
{
	uint32_t n;

	if (m->f == NULL || m->trees == NULL)
		return NULL;
	n = fabric_node_by_guid(m->f, guid);
	if (n == FABRIC_NONE || m->f->nodes[n].type != NODE_SWITCH)
		return NULL;
	*sw = mcast_trees_node_sw(m->trees, n);
	return &m->f->nodes[n];
}

static void
on_drop(void *arg)
{
	free(arg);
}

static void
on_done(void *arg, int status, const uint8_t *resp)
{
	struct mreq *q = arg;
	struct sm_mcast *m = q->m;
	uint32_t gi = guid_hash_get(&m->by_guid, q->guid), sw;
	struct held *h;
	unsigned slot;

	if (gi == GUID_HASH_NONE) {
		free(q);
		inflight_settled(&m->sets);
		return;
	}
	h = &m->held[gi];
	slot = q->block * h->mft.npos + q->pos;
	h->busy[slot] = 0;
	if (status != 0 || resp == NULL) {
		m->failures++;
		h->known[slot] = 0;
		log_warnx("mcast: switch 0x%016" PRIx64 ": MFT block %u "
		    "position %u Set failed (%d)", q->guid, q->block, q->pos,
		    status);
		free(q);
		inflight_settled(&m->sets);
		return;
	}
	mcast_mft_block_decode(&h->mft, q->block, q->pos,
	    resp + SMP_DATA_OFFSET);
	h->known[slot] = 1;
	/* What the trees want may have moved meanwhile: compare again. */
	if (m->programming && node_of_guid(m, q->guid, &sw) != NULL &&
	    sw != FABRIC_NONE)
		send_slot(m, sw, h, q->block, q->pos);
	free(q);
	inflight_settled(&m->sets);
}

/* Set one (block, position) of switch n's MFT to data. */
static void
request(struct sm_mcast *m, const struct fabric_node *n, struct held *h,
    unsigned block, unsigned pos, const uint8_t *data)
{
	struct mreq *q = xcalloc(1, sizeof(*q));
	struct smp_req r = {
		.method = MAD_SET, .attr = ATTR_MFT,
		.mod = mcast_mft_amod(block, pos),
		.path = &m->f->paths[n->path], .dest = n->guid,
		.drop = on_drop,
	};

	q->m = m;
	q->guid = n->guid;
	q->block = block;
	q->pos = pos;
	memcpy(q->data, data, 64);
	r.data = q->data;
	if (smp_request(m->mad, &r, on_done, q) < 0) {
		m->failures++;
		free(q);
		return;
	}
	h->busy[block * h->mft.npos + pos] = 1;
	m->writes++;
	inflight_add(&m->sets);
}

static bool
block_empty(const uint16_t v[MCAST_BLOCK])
{
	for (unsigned i = 0; i < MCAST_BLOCK; i++)
		if (v[i] != 0)
			return false;
	return true;
}

/* Bring one (block, position) of switch sw in line with its tree. */
static void
send_slot(struct sm_mcast *m, uint32_t sw, struct held *h, unsigned block,
    unsigned pos)
{
	const struct mcast_mft *want = mcast_trees_mft(m->trees, sw);
	const struct fabric_node *n = &m->f->nodes[mcast_trees_sw_node(
	    m->trees, sw)];
	static const uint8_t zero[64];
	uint16_t a[MCAST_BLOCK], b[MCAST_BLOCK];
	uint8_t data[64];
	unsigned slot;

	held_size(h, block + 1);
	slot = block * h->mft.npos + pos;
	if (h->busy[slot])
		return;
	mcast_mft_block(want, block, pos, a);
	if (!h->known[slot]) {
		/* Never read: the trees decide the whole block (32 MLIDs, 0
		 * where none is in use), so a block that wants entries is
		 * written as it should be, and one that wants none is left
		 * alone (an entry of an MLID no group has forwards nothing
		 * anyone sends; the block is written whole once an MLID in
		 * it gets a group). A Get first would cost as much as the
		 * Set, and the store is empty at every mastership's start
		 * (hosts join again after ClientReregister), so nothing read
		 * could ever be kept. */
		if (block_empty(a)) {
			mcast_mft_block_decode(&h->mft, block, pos, zero);
			h->known[slot] = 1;
			return;
		}
	} else {
		mcast_mft_block(&h->mft, block, pos, b);
		if (memcmp(a, b, sizeof(a)) == 0)
			return;
	}
	mcast_mft_block_encode(want, block, pos, data);
	request(m, n, h, block, pos, data);
}

/* SwitchInfo MulticastFDBTop, where the switch says it has one. */
struct topreq {
	struct sm_mcast *m;
	uint64_t guid;
	uint16_t top;
};

/* MulticastFDBTop is taken for set only when the switch answered: a lost
 * Set is sent again the next time the switch is programmed. */
static void
on_top_done(void *arg, int status, const uint8_t *resp)
{
	struct topreq *q = arg;
	struct sm_mcast *m = q->m;
	uint32_t gi = guid_hash_get(&m->by_guid, q->guid);

	if (status != 0 || resp == NULL) {
		m->failures++;
		log_warnx("mcast: switch 0x%016" PRIx64 ": MulticastFDBTop Set "
		    "failed (%d)", q->guid, status);
	} else if (gi != GUID_HASH_NONE) {
		m->held[gi].top = q->top;
	}
	free(q);
	inflight_settled(&m->sets);
}

static void
set_top(struct sm_mcast *m, uint32_t sw, struct held *h)
{
	const struct fabric_node *n = &m->f->nodes[mcast_trees_sw_node(
	    m->trees, sw)];
	const struct fabric_port *p0 = &m->f->ports[n->port0];
	int tb = mcast_mft_top_block(mcast_trees_mft(m->trees, sw));
	uint16_t top = tb < 0 ? MCAST_MLID_BASE - 1 :
	    (uint16_t)(MCAST_MLID_BASE + (tb + 1) * MCAST_BLOCK - 1);
	uint8_t si[64];
	struct topreq *q;
	struct smp_req r = {
		.method = MAD_SET, .attr = ATTR_SWITCH_INFO,
		.path = &m->f->paths[n->path], .dest = n->guid,
		.data = si,
	};

	if (!p0->info_valid || !n->sw_info_valid ||
	    !(mad_get_field((void *)p0->info, 0, IB_PORT_CAPMASK_F) &
	    CAP_MCAST_FDB_TOP))
		return;
	if (h->top == top || (h->top == 0 && mad_get_field(
	    (void *)n->sw_info, 0, IB_SW_MCAST_FDB_TOP_F) == top)) {
		h->top = top;
		return;
	}
	memcpy(si, n->sw_info, sizeof(si));
	mad_set_field(si, 0, IB_SW_MCAST_FDB_TOP_F, top);
	/* PortStateChange is cleared by writing 1: never clear a change the
	 * light sweep has not seen */
	mad_set_field(si, 0, IB_SW_STATE_CHANGE_F, 0);
	q = xcalloc(1, sizeof(*q));
	q->m = m;
	q->guid = n->guid;
	q->top = top;
	r.drop = on_drop;
	if (smp_request(m->mad, &r, on_top_done, q) == 0) {
		m->top_sets++;
		inflight_add(&m->sets);
	} else {
		free(q);
	}
}

static void
program_switch(struct sm_mcast *m, uint32_t sw, int only_block)
{
	const struct fabric_node *n = &m->f->nodes[mcast_trees_sw_node(
	    m->trees, sw)];
	const struct mcast_mft *want = mcast_trees_mft(m->trees, sw);
	struct held *h;
	unsigned nb, b, pos;

	/* a switch holding another SM's M_Key is left alone (core/mkey.h) */
	if (m->f->ports[n->port0].mkey_foreign)
		return;
	h = held_get(m, n->guid, n->nports);
	if (only_block >= 0) {
		for (pos = 0; pos < want->npos; pos++)
			send_slot(m, sw, h, (unsigned)only_block, pos);
	} else {
		/* The blocks the trees use on this switch, and those it
		 * holds entries in from earlier trees. */
		nb = (unsigned)(mcast_mft_top_block(want) + 1);
		b = (unsigned)(mcast_mft_top_block(&h->mft) + 1);
		if (b > nb)
			nb = b;
		for (b = 0; b < nb; b++)
			for (pos = 0; pos < want->npos; pos++)
				send_slot(m, sw, h, b, pos);
	}
	set_top(m, sw, h);
}

bool
sm_mcast_program(struct sm_mcast *m, sm_mcast_done_cb done, void *arg)
{
	uint32_t sw;

	if (m->trees != NULL) {
		m->programming = true;
		for (sw = 0; sw < mcast_trees_nsw(m->trees); sw++)
			program_switch(m, sw, -1);
	}
	return inflight_wait(&m->sets, done, arg);
}

/* Rebuild the dirty trees, then bring their blocks in line on every
 * switch: joins and leaves that came together write each block once. */
static void
flush_now(struct sm_mcast *m)
{
	unsigned lim = mcast_mlid_limit(m->store), i, b;
	uint32_t sw;

	if (m->loop != NULL)
		ev_timer_stop(m->loop, &m->flush);
	if (!m->pending)
		return;
	m->pending = false;
	m->flushes++;
	for (i = 0; i < lim && m->trees != NULL; i++) {
		if (!m->dirty[i])
			continue;
		m->dirty[i] = 0;
		m->updates++;
		build_one(m, (uint16_t)(MCAST_MLID_BASE + i));
		m->dirty_block[i / MCAST_BLOCK] = 1;
	}
	for (b = 0; b < NBLOCKS; b++) {
		if (!m->dirty_block[b])
			continue;
		m->dirty_block[b] = 0;
		if (!m->programming || m->trees == NULL)
			continue;
		for (sw = 0; sw < mcast_trees_nsw(m->trees); sw++)
			program_switch(m, sw, (int)b);
	}
}

void
sm_mcast_update(struct sm_mcast *m, uint16_t mlid)
{
	if (m->trees == NULL || mlid < MCAST_MLID_BASE ||
	    mlid >= MCAST_MLID_BASE + mcast_mlid_limit(m->store))
		return;
	m->dirty[mlid - MCAST_MLID_BASE] = 1;
	if (m->pending)
		return;
	m->pending = true;
	if (m->loop == NULL)
		flush_now(m);
	else
		ev_timer_start(m->loop, &m->flush);
}

const struct mcast_mft *
sm_mcast_mft(const struct sm_mcast *m, uint64_t node_guid)
{
	uint32_t sw;

	if (node_of_guid(m, node_guid, &sw) == NULL || sw == FABRIC_NONE)
		return NULL;
	return mcast_trees_mft(m->trees, sw);
}

void
sm_mcast_forget(struct sm_mcast *m)
{
	size_t i;

	m->programming = false;
	inflight_forget(&m->sets);
	for (i = 0; i < m->nheld; i++) {
		if (m->held[i].known != NULL)
			memset(m->held[i].known, 0, m->held[i].nslots);
		m->held[i].top = 0;
	}
}

/* ---- counters and views */

void
sm_mcast_get_stats(const struct sm_mcast *m, struct sm_mcast_stats *st)
{
	struct mcast_stats s;

	mcast_get_stats(m->store, &s);
	memset(st, 0, sizeof(*st));
	st->groups = s.groups;
	st->members = s.members;
	st->mlids = s.mlids;
	st->created = s.created;
	st->deleted = s.deleted;
	st->joins = s.joins;
	st->leaves = s.leaves;
	st->no_mlid = s.no_mlid;
	st->forgotten = s.forgotten;
	st->updates = m->updates;
	st->rebuilds = m->rebuilds;
	st->mft_writes = m->writes;
	st->mft_failures = m->failures;
	st->top_sets = m->top_sets;
	st->left_out = m->left_out;
	st->mlid_limit = mcast_mlid_limit(m->store);
}

const struct mcast_trees *
sm_mcast_trees(const struct sm_mcast *m, const struct fabric **f)
{
	*f = m->f;
	return m->trees;
}
