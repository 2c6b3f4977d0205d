/*
 * Channel dependency graph of a set of forwarding tables.
 *
 * A channel is one direction of a usable switch-to-switch cable. Routes
 * to LID d make channel b = (S -> B) depend on channel a = (A -> S) when
 * A's entry for d leaves by a and S's entry for d leaves by b. The graph
 * has one vertex per channel and at most one edge per (a, b) pair, so it
 * is small (channels x ports of the far switch) even when the tables are
 * hundreds of millions of entries.
 *
 * Work is ordered for those large tables: LIDs are taken a tile at a time,
 * the tile's slice of every row copied into one compact buffer that stays
 * in cache, and each channel keeps one byte per port of its far switch,
 * set when it feeds that port (the dedup: plain stores, no read-modify-
 * write chains). Edges are then read from the marks and the graph peeled
 * by Kahn's algorithm: acyclic when every channel is peeled.
 */
#include "routing/cdg.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/kernel.h"

#define CHAN_NONE       UINT32_MAX
#define TILE_BYTES      (1u << 21)      /* compact tile: about L2 (measured) */

struct cdg {
	uint32_t nsw;
	uint32_t nchan;
	uint32_t *chan;         /* [nsw * stride] channel of (switch, port) */
	uint32_t *far;          /* [nchan] far switch of each channel */
	uint32_t stride;        /* marks per channel: highest port + 1 */
	uint8_t *mark;          /* [nchan + 1][stride] far egress ports fed;
				 * the last row takes entries that are not
				 * channels */
};

/* Number the channels, switch by switch in port order. */
static void
channels(struct cdg *g, const struct fabric *f, const struct lft_set *s)
{
	const struct fabric_node *n;
	uint32_t sw, p, peer;
	unsigned num;

	g->stride = 1;
	for (sw = 0; sw < g->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		if (n->nports + 1u > g->stride)
			g->stride = n->nports + 1u;
	}
	g->chan = xcalloc((size_t)g->nsw * g->stride, sizeof(*g->chan));
	memset(g->chan, 0xff, (size_t)g->nsw * g->stride * sizeof(*g->chan));
	for (sw = 0; sw < g->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		/* port 255 is LFT_NO_ROUTE and never a channel */
		for (num = 1; num <= n->nports && num < LFT_NO_ROUTE; num++) {
			p = n->port0 + num;
			if (!kernel_link_usable(f, p))
				continue;
			peer = fabric_peer_node(f, p);
			if (f->nodes[peer].type == NODE_SWITCH)
				g->chan[(size_t)sw * g->stride + num] =
				    g->nchan++;
		}
	}
	g->far = xcalloc(g->nchan, sizeof(*g->far));
	for (sw = 0; sw < g->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		for (num = 1; num <= n->nports && num < LFT_NO_ROUTE; num++)
			if (g->chan[(size_t)sw * g->stride + num] != CHAN_NONE)
				g->far[g->chan[(size_t)sw * g->stride + num]] =
				    s->node_sw[fabric_peer_node(f,
				    n->port0 + num)];
	}
}

/*
 * Mark, for every channel, the far switch's egress ports it feeds. Marks
 * record whatever the far entry says, ports that are not channels
 * included (entries past the highest port land on port 0, never a
 * channel); successors() drops them. This loop runs for every table
 * entry, so it has no branch: an entry that is not a channel marks the
 * spare row, reading a slice of the tile kept at zero.
 */
static void
collect(struct cdg *g, const struct lft_set *s)
{
	uint32_t nlid = (uint32_t)s->max_lid + 1, tile, lo, n, sw, d, c;
	uint32_t *fartile, *chan;
	const uint32_t *ch;
	const uint8_t *row;
	uint8_t *buf, qmap[256];
	unsigned i;

	for (i = 0; i < 256; i++)
		qmap[i] = i < g->stride ? (uint8_t)i : 0;
	tile = TILE_BYTES / (g->nsw ? g->nsw : 1);
	tile = tile < 64 ? 64 : tile > 4096 ? 4096 : tile & ~63u;
	/* no wider than the LIDs: on ft3 20 a 4096-byte tile of 2,501 LIDs
	 * left 0.8 MiB untouched by the tables but resident */
	if (tile > ((nlid + 63u) & ~63u))
		tile = (nlid + 63u) & ~63u;
	buf = xcalloc((size_t)(g->nsw + 1) * tile, 1);
	/* channel numbers with the spare row for the rest, and where each
	 * channel's far switch has its slice of the tile */
	chan = xcalloc((size_t)g->nsw * 256, sizeof(*chan));
	for (sw = 0; sw < g->nsw; sw++)
		for (i = 0; i < 256; i++) {
			c = i < g->stride ? g->chan[(size_t)sw * g->stride + i] :
			    CHAN_NONE;
			chan[(size_t)sw * 256 + i] = c == CHAN_NONE ? g->nchan : c;
		}
	fartile = xcalloc(g->nchan + 1, sizeof(*fartile));
	for (c = 0; c < g->nchan; c++)
		fartile[c] = g->far[c] * tile;
	fartile[g->nchan] = g->nsw * tile;
	for (lo = 0; lo < nlid; lo += tile) {
		n = nlid - lo < tile ? nlid - lo : tile;
		for (sw = 0; sw < g->nsw; sw++) {
			/* rows are far apart: the hardware will not guess */
			if (sw + 4 < g->nsw)
				__builtin_prefetch(lft_row(s, sw + 4) + lo);
			memcpy(buf + (size_t)sw * tile, lft_row(s, sw) + lo, n);
		}
		for (sw = 0; sw < g->nsw; sw++) {
			row = buf + (size_t)sw * tile;
			ch = chan + (size_t)sw * 256;
			/* LID 0 is reserved: nothing is routed to it */
			for (d = lo == 0 ? 1 : 0; d < n; d++) {
				c = ch[row[d]];
				g->mark[(size_t)c * g->stride +
				    qmap[buf[fartile[c] + d]]] = 1;
			}
		}
	}
	free(chan);
	free(fartile);
	free(buf);
}

/* The channels that depend on channel c, into succ; returns how many. */
static inline uint32_t
successors(const struct cdg *g, uint32_t c, uint32_t *succ)
{
	const uint32_t *chan = g->chan + (size_t)g->far[c] * g->stride;
	const uint8_t *m = g->mark + (size_t)c * g->stride;
	uint32_t q, k = 0;

	for (q = 1; q < g->stride; q++)
		if (m[q] && chan[q] != CHAN_NONE)
			succ[k++] = chan[q];
	return k;
}

/* Kahn's algorithm; returns 1 when every channel peels. */
static int
peel(struct cdg *g, uint64_t *edges)
{
	uint32_t *indeg, *queue, head = 0, tail = 0, c, k, i, succ[256];
	uint64_t total = 0;

	indeg = xcalloc(g->nchan, sizeof(*indeg));
	queue = xcalloc(g->nchan, sizeof(*queue));
	for (c = 0; c < g->nchan; c++) {
		k = successors(g, c, succ);
		for (i = 0; i < k; i++)
			indeg[succ[i]]++;
		total += k;
	}
	for (c = 0; c < g->nchan; c++)
		if (indeg[c] == 0)
			queue[tail++] = c;
	while (head < tail) {
		c = queue[head++];
		k = successors(g, c, succ);
		for (i = 0; i < k; i++)
			if (--indeg[succ[i]] == 0)
				queue[tail++] = succ[i];
	}
	free(indeg);
	free(queue);
	*edges = total;
	return tail == g->nchan;
}

int
cdg_acyclic(const struct fabric *f, const struct lft_set *s,
    uint64_t *edges_out)
{
	struct cdg g;
	uint64_t edges = 0;
	int acyclic;

	memset(&g, 0, sizeof(g));
	g.nsw = s->nsw;
	channels(&g, f, s);
	g.mark = xcalloc(((size_t)g.nchan + 1) * g.stride, 1);
	collect(&g, s);
	acyclic = peel(&g, &edges);
	if (edges_out != NULL)
		*edges_out = edges;
	free(g.chan);
	free(g.far);
	free(g.mark);
	return acyclic;
}

/*
 * Per VL. A route is followed from its source switch through the tables;
 * the routes of one VL towards one LID that reach a switch share what
 * follows, so each switch is walked once per (LID, VL): a stamp says it
 * was, and a route that joins there adds only the dependency of its last
 * hop on the joint.
 */
int
cdg_acyclic_layers(const struct fabric *f, const struct lft_set *s,
    const uint8_t *layer, unsigned nlayers, const uint8_t *vl_of,
    unsigned *cyclic_vl, uint64_t *edges_out)
{
	struct cdg g;
	uint8_t *marks;
	uint32_t *stamp, nlid = (uint32_t)s->max_lid + 1, lid, sw, cur, c, prev;
	unsigned nvl = 0, v, l;
	size_t rowlen;
	uint64_t edges = 0, e;
	int acyclic = 1;
	uint8_t p;

	for (l = 0; l < nlayers; l++) {
		v = vl_of != NULL ? vl_of[l] : l;
		if (v + 1 > nvl)
			nvl = v + 1;
	}
	if (nvl == 0)
		nvl = 1;
	memset(&g, 0, sizeof(g));
	g.nsw = s->nsw;
	channels(&g, f, s);
	rowlen = ((size_t)g.nchan + 1) * g.stride;
	marks = xcalloc(rowlen * nvl, 1);
	stamp = xcalloc((size_t)nvl * (g.nsw ? g.nsw : 1), sizeof(*stamp));
	for (lid = 1; lid < nlid; lid++) {
		for (sw = 0; sw < g.nsw; sw++) {
			l = layer[(size_t)sw * nlid + lid];
			v = l < nlayers ? (vl_of != NULL ? vl_of[l] : l) : 0;
			prev = CHAN_NONE;
			for (cur = sw;;) {
				p = lft_row(s, cur)[lid];
				if (prev != CHAN_NONE)
					marks[v * rowlen + (size_t)prev * g.stride +
					    (p < g.stride ? p : 0)] = 1;
				if (stamp[(size_t)v * g.nsw + cur] == lid)
					break;          /* walked from here */
				stamp[(size_t)v * g.nsw + cur] = lid;
				c = p < g.stride ? g.chan[(size_t)cur * g.stride +
				    p] : CHAN_NONE;
				if (c == CHAN_NONE)
					break;          /* delivered, or lost */
				prev = c;
				cur = g.far[c];
			}
		}
	}
	for (v = 0; v < nvl; v++) {
		g.mark = marks + v * rowlen;
		if (!peel(&g, &e) && acyclic) {
			acyclic = 0;
			if (cyclic_vl != NULL)
				*cyclic_vl = v;
		}
		edges += e;
	}
	if (edges_out != NULL)
		*edges_out = edges;
	free(g.chan);
	free(g.far);
	free(marks);
	free(stamp);
	return acyclic;
}
