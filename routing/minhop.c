/*
 * minhop: balanced shortest paths over the switch graph.
 *
 * Every switch sends every destination LID out of a port on a shortest
 * path to the switch that LID hangs off; among equally short ports it picks
 * the one carrying the fewest LIDs so far (ties: lowest port number).
 *
 * Work is ordered for large fabrics (thousands of switches, tens of
 * thousands of LIDs): a bit-parallel BFS fills a switch x switch distance
 * matrix; then each switch's table is filled in one go (its row stays in
 * cache), destination switch by destination switch, so the candidate ports
 * towards a switch are found once for all the LIDs that hang off it.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "routing/routing.h"

/*
 * Distances are kept modulo 255 in a byte: a neighbour is at d - 1, d or
 * d + 1, which stay distinct modulo 255, so "one hop closer" is still
 * exact for any diameter. 255 itself means unreachable.
 */
#define DIST_NONE       255
#define DIST_MOD        255

struct minhop {
	struct lft_set *out;
	uint32_t nsw;
	size_t stride;          /* nsw rounded up to 8: rows are read by words */
	struct routing_graph g; /* switch links and destinations */
	uint8_t *dist;          /* [nsw][stride], see DIST_MOD */
};

/* Work space of fill_row(), reused for every switch. */
struct scratch {
	unsigned groups;        /* candidate planes in use: neighbours / 8 */
	uint8_t *plane;         /* [32][stride], see build_planes() */
	uint8_t *want;          /* [stride] distance of a closer neighbour */
	uint8_t cand[256];
	uint32_t *defer;        /* [nsw] destination switches with a choice */
	uint16_t *lids;         /* [all destination LIDs] one run of them */
};

/*
 * All-pairs distances, 64 BFSes at a time: each switch holds one bit per
 * source in a word, so a level costs one pass over the links for all 64.
 * A switch joins the next level when one of its own links leads into the
 * current one, so what lands in column src of row v is the distance from
 * v to src, the way fill_row() reads it, and each switch writes one
 * contiguous run per level.
 */
static void
distances(struct minhop *m)
{
	uint64_t *seen, *front, *next, *tmp, acc, bits, any;
	uint32_t base, nb, v, e, i, level;
	uint8_t *row;

	m->dist = routing_calloc(m->nsw * m->stride, 1);
	memset(m->dist, DIST_NONE, m->nsw * m->stride);
	seen = routing_calloc(m->nsw, sizeof(*seen));
	front = routing_calloc(m->nsw, sizeof(*front));
	next = routing_calloc(m->nsw, sizeof(*next));
	for (base = 0; base < m->nsw; base += 64) {
		nb = m->nsw - base < 64 ? m->nsw - base : 64;
		memset(seen, 0, m->nsw * sizeof(*seen));
		memset(front, 0, m->nsw * sizeof(*front));
		for (i = 0; i < nb; i++) {
			seen[base + i] = front[base + i] = 1ULL << i;
			m->dist[(base + i) * m->stride + base + i] = 0;
		}
		for (level = 1, any = 1; any != 0; level++) {
			any = 0;
			for (v = 0; v < m->nsw; v++) {
				acc = 0;
				for (e = m->g.off[v]; e < m->g.off[v + 1]; e++)
					acc |= front[m->g.sw[e]];
				next[v] = acc & ~seen[v];
				seen[v] |= next[v];
				any |= next[v];
			}
			for (v = 0; v < m->nsw; v++) {
				row = m->dist + v * m->stride + base;
				for (bits = next[v]; bits != 0; bits &= bits - 1)
					row[__builtin_ctzll(bits)] =
					    (uint8_t)(level % DIST_MOD);
			}
			tmp = front;
			front = next;
			next = tmp;
		}
	}
	free(seen);
	free(front);
	free(next);
}

/*
 * Give the k LIDs in lids, one by one, the candidate port with the fewest
 * LIDs so far (cnt), ties to the lowest port. Done in rounds over the
 * least-loaded candidates, which is the same choice without a scan per LID.
 */
static void
spread(uint8_t *row, uint32_t *cnt, const uint8_t *cand, unsigned c,
    const uint16_t *lids, uint32_t k)
{
	uint32_t j = 0, low;
	unsigned i;

	while (j < k) {
		low = UINT32_MAX;
		for (i = 0; i < c; i++)
			if (cnt[cand[i]] < low)
				low = cnt[cand[i]];
		for (i = 0; i < c && j < k; i++)
			if (cnt[cand[i]] == low) {
				row[lids[j++]] = cand[i];
				cnt[cand[i]]++;
			}
	}
}

#define BYTES_LO7       0x7f7f7f7f7f7f7f7fULL

/* 0x80 in each byte of a ^ b that is zero, 0 elsewhere (exact per byte). */
static inline uint64_t
equal_bytes(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b;

	return ~(((x & BYTES_LO7) + BYTES_LO7) | x | BYTES_LO7);
}

/*
 * Candidate planes of switch sw: bit b of plane[g][t] is set when neighbour
 * entry 8 * g + b is one hop closer to switch t. Eight destinations are
 * compared per word operation along the distance rows; this is the inner
 * loop of the engine.
 */
static void
build_planes(struct minhop *m, struct scratch *x, uint32_t sw)
{
	const uint8_t *own = m->dist + sw * m->stride, *nrow;
	uint32_t first = m->g.off[sw], deg = m->g.off[sw + 1] - first;
	uint64_t a, b, p;
	uint8_t *plane;
	size_t t, w;
	uint32_t e;

	x->groups = (deg + 7) / 8;
	for (t = 0; t < m->stride; t++)
		x->want[t] = own[t] == 0 ? DIST_MOD - 1 : own[t] - 1;
	memset(x->plane, 0, x->groups * m->stride);
	for (e = 0; e < deg; e++) {
		nrow = m->dist + m->g.sw[first + e] * m->stride;
		plane = x->plane + (e / 8) * m->stride;
		for (w = 0; w < m->stride; w += 8) {
			memcpy(&a, nrow + w, 8);
			memcpy(&b, x->want + w, 8);
			memcpy(&p, plane + w, 8);
			p |= equal_bytes(a, b) >> (7 - e % 8);
			memcpy(plane + w, &p, 8);
		}
	}
}

/* Candidate ports (in port order) of switch sw towards t. */
static unsigned
candidates(const struct minhop *m, struct scratch *x, uint32_t sw,
    uint32_t t)
{
	uint32_t first = m->g.off[sw];
	unsigned g, bits, c = 0;

	for (g = 0; g < x->groups; g++)
		for (bits = x->plane[g * m->stride + t]; bits != 0;
		    bits &= bits - 1)
			x->cand[c++] = m->g.port[first + 8 * g +
			    (unsigned)__builtin_ctz(bits)];
	return c;
}

static int
same_choice(const struct minhop *m, const struct scratch *x, uint32_t a,
    uint32_t b)
{
	unsigned g;

	for (g = 0; g < x->groups; g++)
		if (x->plane[g * m->stride + a] != x->plane[g * m->stride + b])
			return 0;
	return 1;
}

/*
 * Fill the table of switch sw. Destinations with a single shortest port
 * go first, so that the free choices that follow can even out around
 * them; consecutive destination switches with the same candidate ports are
 * then spread as one run of LIDs.
 */
static void
fill_row(struct minhop *m, struct scratch *x, uint32_t sw)
{
	const uint8_t *own = m->dist + sw * m->stride;
	uint8_t *row = lft_row(m->out, sw);
	uint32_t cnt[256], t, j, i, k, n, nd = 0, nl;
	unsigned c;

	memset(cnt, 0, sizeof(cnt));
	build_planes(m, x, sw);
	for (t = 0; t < m->nsw; t++) {
		if ((n = m->g.dst_off[t + 1] - m->g.dst_off[t]) == 0)
			continue;
		if (t == sw) {
			for (j = m->g.dst_off[t]; j < m->g.dst_off[t + 1]; j++)
				row[m->g.dst_lid[j]] = m->g.dst_port[j];
			continue;
		}
		if (own[t] == DIST_NONE)
			continue;
		if ((c = candidates(m, x, sw, t)) == 0)
			continue;       /* cannot happen after a sound BFS */
		if (c > 1) {
			x->defer[nd++] = t;
			continue;
		}
		for (j = m->g.dst_off[t]; j < m->g.dst_off[t + 1]; j++)
			row[m->g.dst_lid[j]] = x->cand[0];
		cnt[x->cand[0]] += n;
	}
	for (i = 0; i < nd; i = k) {
		nl = 0;
		for (k = i; k < nd && same_choice(m, x, x->defer[i],
		    x->defer[k]); k++) {
			t = x->defer[k];
			n = m->g.dst_off[t + 1] - m->g.dst_off[t];
			memcpy(x->lids + nl, m->g.dst_lid + m->g.dst_off[t],
			    n * sizeof(*x->lids));
			nl += n;
		}
		c = candidates(m, x, sw, x->defer[i]);
		spread(row, cnt, x->cand, c, x->lids, nl);
	}
}

static void
cleanup(struct minhop *m)
{
	routing_graph_free(&m->g);
	free(m->dist);
}

static int
route(const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    char *why, size_t whylen)
{
	(void)o;	/* minhop needs no options and keeps no memory */
	struct minhop m;
	struct scratch x;
	uint32_t sw;

	if (out->nsw == 0) {
		snprintf(why, whylen, "no switch in the fabric, nothing to route");
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.out = out;
	m.nsw = out->nsw;
	m.stride = ((size_t)m.nsw + 7) & ~(size_t)7;
	routing_graph_build(f, out, &m.g);
	distances(&m);

	memset(&x, 0, sizeof(x));
	x.plane = routing_calloc(32 * m.stride, 1);
	x.want = routing_calloc(m.stride, 1);
	x.defer = routing_calloc(m.nsw, sizeof(*x.defer));
	x.lids = routing_calloc(m.g.dst_off[m.nsw], sizeof(*x.lids));
	for (sw = 0; sw < m.nsw; sw++)
		fill_row(&m, &x, sw);
	free(x.plane);
	free(x.want);
	free(x.defer);
	free(x.lids);
	cleanup(&m);
	return 0;
}

const struct routing_engine re_minhop = {
	.name = "minhop",
	.route = route,
};
