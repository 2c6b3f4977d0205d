/*
 * Multicast trees and MFTs (mcast/tree.h). The switch graph and its
 * all-pairs hop counts are computed once per fabric model; each tree is
 * then a climb from every member switch towards the root.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "mcast/group.h"
#include "mcast/tree.h"

#define HOP_INF 0xFF

/* ---- one switch's table */

void
mcast_mft_init(struct mcast_mft *m, uint8_t nports)
{
	memset(m, 0, sizeof(*m));
	m->npos = (uint8_t)((nports + MCAST_POS_PORTS) / MCAST_POS_PORTS);
}

void
mcast_mft_fini(struct mcast_mft *m)
{
	free(m->mask);
	m->mask = NULL;
	m->nblocks = 0;
}

void
mcast_mft_copy(struct mcast_mft *dst, const struct mcast_mft *src)
{
	size_t sz = (size_t)src->nblocks * MCAST_BLOCK * src->npos;

	free(dst->mask);
	*dst = *src;
	dst->mask = xcalloc(sz, sizeof(*dst->mask));
	if (sz)
		memcpy(dst->mask, src->mask, sz * sizeof(*dst->mask));
}

static void
mft_grow(struct mcast_mft *m, unsigned nblocks)
{
	size_t old = (size_t)m->nblocks * MCAST_BLOCK * m->npos;
	size_t sz = (size_t)nblocks * MCAST_BLOCK * m->npos;

	if (nblocks <= m->nblocks)
		return;
	m->mask = xreallocarray(m->mask, sz, sizeof(*m->mask));
	memset(m->mask + old, 0, (sz - old) * sizeof(*m->mask));
	m->nblocks = (uint16_t)nblocks;
}

uint16_t
mcast_mft_get(const struct mcast_mft *m, uint16_t mlid, unsigned pos)
{
	unsigned i;

	if (mlid < MCAST_MLID_BASE || pos >= m->npos)
		return 0;
	i = mlid - MCAST_MLID_BASE;
	if (i >= (unsigned)m->nblocks * MCAST_BLOCK)
		return 0;
	return m->mask[(size_t)i * m->npos + pos];
}

void
mcast_mft_set(struct mcast_mft *m, uint16_t mlid, unsigned pos, uint16_t mask)
{
	unsigned i;

	if (mlid < MCAST_MLID_BASE || pos >= m->npos)
		fatalx("mcast: MFT entry 0x%04x position %u out of range",
		    mlid, pos);
	i = mlid - MCAST_MLID_BASE;
	if (i >= (unsigned)m->nblocks * MCAST_BLOCK) {
		if (mask == 0)
			return;
		mft_grow(m, i / MCAST_BLOCK + 1);
	}
	m->mask[(size_t)i * m->npos + pos] = mask;
}

bool
mcast_mft_has_port(const struct mcast_mft *m, uint16_t mlid, unsigned num)
{
	return (mcast_mft_get(m, mlid, num / MCAST_POS_PORTS) >>
	    (num % MCAST_POS_PORTS)) & 1;
}

void
mcast_mft_block(const struct mcast_mft *m, unsigned block, unsigned pos,
    uint16_t out[MCAST_BLOCK])
{
	unsigned i;

	for (i = 0; i < MCAST_BLOCK; i++)
		out[i] = mcast_mft_get(m,
		    (uint16_t)(MCAST_MLID_BASE + block * MCAST_BLOCK + i), pos);
}

void
mcast_mft_block_encode(const struct mcast_mft *m, unsigned block,
    unsigned pos, uint8_t out[64])
{
	uint16_t v[MCAST_BLOCK];
	unsigned i;

	mcast_mft_block(m, block, pos, v);
	for (i = 0; i < MCAST_BLOCK; i++) {
		out[2 * i] = (uint8_t)(v[i] >> 8);
		out[2 * i + 1] = (uint8_t)v[i];
	}
}

void
mcast_mft_block_decode(struct mcast_mft *m, unsigned block, unsigned pos,
    const uint8_t in[64])
{
	unsigned i;

	if (pos >= m->npos)
		return;
	for (i = 0; i < MCAST_BLOCK; i++)
		mcast_mft_set(m,
		    (uint16_t)(MCAST_MLID_BASE + block * MCAST_BLOCK + i), pos,
		    (uint16_t)(in[2 * i] << 8 | in[2 * i + 1]));
}

static bool
block_zero(const struct mcast_mft *m, unsigned block)
{
	size_t i, n = (size_t)MCAST_BLOCK * m->npos;
	const uint16_t *v;

	if (block >= m->nblocks)
		return true;
	v = m->mask + (size_t)block * n;
	for (i = 0; i < n; i++)
		if (v[i] != 0)
			return false;
	return true;
}

int
mcast_mft_top_block(const struct mcast_mft *m)
{
	int b;

	for (b = (int)m->nblocks - 1; b >= 0; b--)
		if (!block_zero(m, (unsigned)b))
			return b;
	return -1;
}

unsigned
mcast_mft_diff(const struct mcast_mft *a, const struct mcast_mft *b,
    mcast_block_fn *fn, void *arg)
{
	unsigned nb = a->nblocks > b->nblocks ? a->nblocks : b->nblocks;
	unsigned np = a->npos > b->npos ? a->npos : b->npos;
	uint16_t va[MCAST_BLOCK], vb[MCAST_BLOCK];
	unsigned blk, pos, k = 0;

	for (blk = 0; blk < nb; blk++)
		for (pos = 0; pos < np; pos++) {
			mcast_mft_block(a, blk, pos, va);
			mcast_mft_block(b, blk, pos, vb);
			if (memcmp(va, vb, sizeof(va)) == 0)
				continue;
			k++;
			if (fn != NULL)
				fn(arg, blk, pos);
		}
	return k;
}

/* ---- the switch graph */

struct edge {
	uint32_t port;          /* this end, index into f->ports */
	uint32_t peer_port;
	uint32_t peer_sw;
	uint8_t num;            /* this end's port number */
};

struct tree_rec {
	uint32_t root;
	uint32_t *sws;          /* switches with a nonzero mask */
	uint32_t nsws;
	uint32_t *links;        /* child-side port of each tree link */
	uint32_t nlinks;
};

struct mcast_trees {
	const struct fabric *f;
	uint32_t nsw;
	uint32_t *sw_node;
	uint32_t *node_sw;
	struct edge **adj;      /* [nsw] */
	uint32_t *nadj;
	uint8_t *hops;          /* [nsw * nsw], a row once row_known */
	uint8_t *row_known;     /* [nsw] */
	uint32_t *queue;        /* [nsw] scratch of hops_from() */
	struct mcast_mft *mft;  /* [nsw] */
	uint32_t *load;         /* [f->nports] */
	uint32_t *rooted;       /* [nsw] trees rooted at each switch */
	struct tree_rec **rec;  /* [MCAST_MLID_COUNT] */
	/* scratch for one build, [nsw] */
	uint32_t *parent_port;  /* child-side port index; FABRIC_NONE */
	uint8_t *in_tree, *terminal;
	uint32_t *order;
};

static bool
link_usable(const struct fabric *f, uint32_t p)
{
	const struct fabric_port *fp = &f->ports[p];

	return fp->peer != FABRIC_NONE && fp->state != PORT_DOWN &&
	    f->ports[fp->peer].state != PORT_DOWN;
}

static void
hops_from(struct mcast_trees *t, uint32_t src)
{
	uint8_t *h = t->hops + (size_t)src * t->nsw;
	uint32_t *queue = t->queue, head = 0, tail = 0, x, i;

	memset(h, HOP_INF, t->nsw);
	h[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		x = queue[head++];
		if (h[x] == HOP_INF - 1)
			continue;
		for (i = 0; i < t->nadj[x]; i++) {
			uint32_t y = t->adj[x][i].peer_sw;

			if (h[y] == HOP_INF) {
				h[y] = (uint8_t)(h[x] + 1);
				queue[tail++] = y;
			}
		}
	}
}

struct mcast_trees *
mcast_trees_new(const struct fabric *f)
{
	struct mcast_trees *t = xcalloc(1, sizeof(*t));
	uint32_t n, sw, i;

	t->f = f;
	t->node_sw = xcalloc(f->nnodes, sizeof(*t->node_sw));
	for (n = 0; n < f->nnodes; n++) {
		t->node_sw[n] = FABRIC_NONE;
		if (f->nodes[n].type == NODE_SWITCH)
			t->nsw++;
	}
	t->sw_node = xcalloc(t->nsw, sizeof(*t->sw_node));
	for (n = 0, sw = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == NODE_SWITCH) {
			t->sw_node[sw] = n;
			t->node_sw[n] = sw++;
		}
	t->adj = xcalloc(t->nsw, sizeof(*t->adj));
	t->nadj = xcalloc(t->nsw, sizeof(*t->nadj));
	t->mft = xcalloc(t->nsw, sizeof(*t->mft));
	for (sw = 0; sw < t->nsw; sw++) {
		const struct fabric_node *nd = &f->nodes[t->sw_node[sw]];

		mcast_mft_init(&t->mft[sw], nd->nports);
		t->adj[sw] = xcalloc(nd->nports,
		    sizeof(**t->adj));
		for (i = 1; i <= nd->nports; i++) {
			uint32_t p = nd->port0 + i, q, ps;

			if (!link_usable(f, p))
				continue;
			q = f->ports[p].peer;
			ps = t->node_sw[f->ports[q].node];
			if (ps == FABRIC_NONE || ps == sw)
				continue;
			t->adj[sw][t->nadj[sw]++] = (struct edge){ .port = p,
			    .peer_port = q, .peer_sw = ps, .num = (uint8_t)i };
		}
	}
	/* Hops between switches are found row by row when a tree needs
	 * them (its terminals' and its root's): a fabric's groups seldom
	 * reach every switch, and a bring-up builds its trees before the
	 * first group can be joined. */
	t->hops = xcalloc((size_t)t->nsw * t->nsw, 1);
	t->row_known = xcalloc(t->nsw, 1);
	t->queue = xcalloc(t->nsw, sizeof(*t->queue));
	t->load = xcalloc(f->nports, sizeof(*t->load));
	t->rooted = xcalloc(t->nsw, sizeof(*t->rooted));
	t->rec = xcalloc(MCAST_MLID_COUNT, sizeof(*t->rec));
	t->parent_port = xcalloc(t->nsw, sizeof(uint32_t));
	t->in_tree = xcalloc(t->nsw, 1);
	t->terminal = xcalloc(t->nsw, 1);
	t->order = xcalloc(t->nsw, sizeof(uint32_t));
	return t;
}

static void
rec_free(struct tree_rec *r)
{
	if (r == NULL)
		return;
	free(r->sws);
	free(r->links);
	free(r);
}

void
mcast_trees_free(struct mcast_trees *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nsw; i++) {
		mcast_mft_fini(&t->mft[i]);
		free(t->adj[i]);
	}
	for (i = 0; i < MCAST_MLID_COUNT; i++)
		rec_free(t->rec[i]);
	free(t->rec);
	free(t->adj);
	free(t->nadj);
	free(t->mft);
	free(t->hops);
	free(t->row_known);
	free(t->queue);
	free(t->load);
	free(t->rooted);
	free(t->sw_node);
	free(t->node_sw);
	free(t->parent_port);
	free(t->in_tree);
	free(t->terminal);
	free(t->order);
	free(t);
}

uint32_t
mcast_trees_nsw(const struct mcast_trees *t)
{
	return t->nsw;
}

uint32_t
mcast_trees_sw_node(const struct mcast_trees *t, uint32_t sw)
{
	return t->sw_node[sw];
}

uint32_t
mcast_trees_node_sw(const struct mcast_trees *t, uint32_t n)
{
	return n < t->f->nnodes ? t->node_sw[n] : FABRIC_NONE;
}

const struct mcast_mft *
mcast_trees_mft(const struct mcast_trees *t, uint32_t sw)
{
	return &t->mft[sw];
}

uint32_t
mcast_trees_link_load(const struct mcast_trees *t, uint32_t p)
{
	return p < t->f->nports ? t->load[p] : 0;
}

static struct tree_rec *
rec_of(const struct mcast_trees *t, uint16_t mlid)
{
	if (mlid < MCAST_MLID_BASE || mlid - MCAST_MLID_BASE >= MCAST_MLID_COUNT)
		return NULL;
	return t->rec[mlid - MCAST_MLID_BASE];
}

uint32_t
mcast_tree_root(const struct mcast_trees *t, uint16_t mlid)
{
	const struct tree_rec *r = rec_of(t, mlid);

	return r != NULL ? r->root : FABRIC_NONE;
}

unsigned
mcast_tree_size(const struct mcast_trees *t, uint16_t mlid)
{
	const struct tree_rec *r = rec_of(t, mlid);

	return r != NULL ? r->nsws : 0;
}

static void
mask_or(struct mcast_trees *t, uint32_t sw, uint16_t mlid, unsigned num)
{
	struct mcast_mft *m = &t->mft[sw];
	unsigned pos = num / MCAST_POS_PORTS;

	mcast_mft_set(m, mlid, pos, (uint16_t)(mcast_mft_get(m, mlid, pos) |
	    1u << (num % MCAST_POS_PORTS)));
}

/* Undo mlid's tree: masks, link loads, root count. */
static void
tree_clear(struct mcast_trees *t, uint16_t mlid)
{
	struct tree_rec *r = rec_of(t, mlid);
	uint32_t i, p;
	unsigned pos;

	if (r == NULL)
		return;
	for (i = 0; i < r->nsws; i++)
		for (pos = 0; pos < t->mft[r->sws[i]].npos; pos++)
			mcast_mft_set(&t->mft[r->sws[i]], mlid, pos, 0);
	for (i = 0; i < r->nlinks; i++) {
		p = r->links[i];
		t->load[p]--;
		t->load[t->f->ports[p].peer]--;
	}
	if (r->root != FABRIC_NONE)
		t->rooted[r->root]--;
	rec_free(r);
	t->rec[mlid - MCAST_MLID_BASE] = NULL;
}

/* The switch a member hangs off and the port number there; false if it
 * hangs off none. */
static bool
attach(const struct mcast_trees *t, uint32_t port, uint32_t *sw,
    unsigned *num)
{
	const struct fabric *f = t->f;
	const struct fabric_port *fp;
	uint32_t s;

	if (port >= f->nports)
		return false;
	fp = &f->ports[port];
	s = t->node_sw[fp->node];
	if (s != FABRIC_NONE) {         /* a switch's own port 0 */
		*sw = s;
		*num = 0;
		return true;
	}
	if (fp->peer == FABRIC_NONE || !link_usable(f, port))
		return false;
	s = t->node_sw[f->ports[fp->peer].node];
	if (s == FABRIC_NONE)
		return false;
	*sw = s;
	*num = f->ports[fp->peer].num;
	return true;
}

/* Switch src's hops to every switch. */
static const uint8_t *
row(struct mcast_trees *t, uint32_t src)
{
	if (!t->row_known[src]) {
		hops_from(t, src);
		t->row_known[src] = 1;
	}
	return t->hops + (size_t)src * t->nsw;
}

static uint32_t
pick_root(struct mcast_trees *t, const uint32_t *term, uint32_t nterm)
{
	uint32_t best = FABRIC_NONE, r, i;
	unsigned best_max = 0, mx;

	/* Links are both ways: r's hops to a terminal are the terminal's to
	 * r, so only the terminals' rows are needed. */
	for (i = 0; i < nterm; i++)
		(void)row(t, term[i]);
	for (r = 0; r < t->nsw; r++) {
		mx = 0;
		for (i = 0; i < nterm; i++) {
			unsigned h = t->hops[(size_t)term[i] * t->nsw + r];

			if (h > mx)
				mx = h;
		}
		if (best == FABRIC_NONE || mx < best_max ||
		    (mx == best_max && t->rooted[r] < t->rooted[best])) {
			best = r;
			best_max = mx;
		}
	}
	return best;
}

/* Climb from switch x to the tree; returns false if it cannot be
 * reached. */
static bool
climb(struct mcast_trees *t, uint32_t root, uint32_t x)
{
	const uint8_t *hr = row(t, root);
	const struct edge *e, *best;
	uint32_t i;

	if (hr[x] == HOP_INF)
		return false;
	while (!t->in_tree[x]) {
		best = NULL;
		for (i = 0; i < t->nadj[x]; i++) {
			e = &t->adj[x][i];
			if (hr[e->peer_sw] + 1 != hr[x])
				continue;
			if (best == NULL) {
				best = e;
				continue;
			}
			if (t->in_tree[e->peer_sw] != t->in_tree[best->peer_sw]) {
				if (t->in_tree[e->peer_sw])
					best = e;
				continue;
			}
			if (t->load[e->port] < t->load[best->port])
				best = e;
		}
		if (best == NULL)
			fatalx("mcast: switch %u has no neighbour closer to "
			    "the root", x);
		t->in_tree[x] = 1;
		t->parent_port[x] = best->port;
		t->load[best->port]++;
		t->load[best->peer_port]++;
		x = best->peer_sw;
	}
	return true;
}

unsigned
mcast_tree_build(struct mcast_trees *t, uint16_t mlid,
    const struct mcast_tree_member *m, size_t n)
{
	const struct fabric *f = t->f;
	struct tree_rec *r;
	uint32_t *term, nterm = 0, root, sw, i, x;
	unsigned num, left_out = 0;

	if (mlid < MCAST_MLID_BASE || mlid - MCAST_MLID_BASE >= MCAST_MLID_COUNT)
		fatalx("mcast: MLID 0x%04x out of range", mlid);
	tree_clear(t, mlid);
	if (n == 0 || t->nsw == 0)
		return (unsigned)n;
	memset(t->terminal, 0, t->nsw);
	memset(t->in_tree, 0, t->nsw);
	term = t->order;
	for (i = 0; i < n; i++) {
		if (!attach(t, m[i].port, &sw, &num)) {
			left_out++;
			continue;
		}
		if (!t->terminal[sw]) {
			t->terminal[sw] = 1;
			term[nterm++] = sw;
		}
	}
	if (nterm == 0)
		return left_out;
	root = pick_root(t, term, nterm);
	r = xcalloc(1, sizeof(*r));
	r->root = root;
	r->sws = xcalloc(t->nsw, sizeof(*r->sws));
	r->links = xcalloc(t->nsw, sizeof(*r->links));
	t->rec[mlid - MCAST_MLID_BASE] = r;
	t->rooted[root]++;
	t->in_tree[root] = 1;
	t->parent_port[root] = FABRIC_NONE;
	for (i = 0; i < nterm; i++)
		if (!climb(t, root, term[i]))
			t->terminal[term[i]] = 0;       /* cut off */
	/* Masks: each switch's link to its parent, both ends. */
	for (x = 0; x < t->nsw; x++) {
		uint32_t p, q;

		if (!t->in_tree[x])
			continue;
		r->sws[r->nsws++] = x;
		if (x == root)
			continue;
		p = t->parent_port[x];
		q = f->ports[p].peer;
		r->links[r->nlinks++] = p;
		mask_or(t, x, mlid, f->ports[p].num);
		mask_or(t, t->node_sw[f->ports[q].node], mlid,
		    f->ports[q].num);
	}
	for (i = 0; i < n; i++) {
		if (!attach(t, m[i].port, &sw, &num))
			continue;
		if (!t->in_tree[sw]) {
			left_out++;
			continue;
		}
		if (m[i].receive)
			mask_or(t, sw, mlid, num);
	}
	return left_out;
}
