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

#include "core/alloc.h"
#include "routing/kernel.h"
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
	struct kernel_graph g;  /* switch links and destinations */
	uint8_t *dist;          /* [nsw][stride], see DIST_MOD */
	struct kernel_row x;    /* fill_row()'s work space */
	uint8_t *want;          /* [stride] distance of a closer neighbour */
};

/*
 * All-pairs distances, 64 BFSes at a time; what lands in column src of
 * row v is the distance from v to src, the way build_planes() reads it,
 * and each switch writes one contiguous run per level.
 */
static void
distances(struct minhop *m)
{
	struct kernel_bfs64 b;
	uint32_t base, nb, v, i, level;
	uint64_t bits;
	uint8_t *row;

	m->dist = xcalloc(m->nsw * m->stride, 1);
	memset(m->dist, DIST_NONE, m->nsw * m->stride);
	kernel_bfs64_init(&b, m->nsw);
	for (base = 0; base < m->nsw; base += 64) {
		nb = m->nsw - base < 64 ? m->nsw - base : 64;
		kernel_bfs64_start(&b, base, nb);
		for (i = 0; i < nb; i++)
			m->dist[(base + i) * m->stride + base + i] = 0;
		for (level = 1; kernel_bfs64_step(&b, &m->g) != 0; level++)
			for (v = 0; v < m->nsw; v++) {
				row = m->dist + v * m->stride + base;
				for (bits = b.front[v]; bits != 0;
				    bits &= bits - 1)
					row[__builtin_ctzll(bits)] =
					    (uint8_t)(level % DIST_MOD);
			}
	}
	kernel_bfs64_fini(&b);
}

/*
 * Candidate planes of switch sw: a neighbour is a candidate towards t
 * when it is one hop closer to t. Eight destinations are compared per
 * word operation along the distance rows; this is the inner loop of the
 * engine.
 */
static void
build_planes(struct minhop *m, uint32_t sw)
{
	const uint8_t *own = m->dist + sw * m->stride, *nrow;
	uint32_t first = m->g.off[sw], deg = m->g.off[sw + 1] - first;
	uint8_t *planes = kernel_row_planes(&m->x, &m->g, sw), *plane;
	uint64_t a, b, p;
	size_t t, w;
	uint32_t e;

	for (t = 0; t < m->stride; t++)
		m->want[t] = own[t] == 0 ? DIST_MOD - 1 : own[t] - 1;
	for (e = 0; e < deg; e++) {
		nrow = m->dist + m->g.sw[first + e] * m->stride;
		plane = planes + (e / 8) * m->stride;
		for (w = 0; w < m->stride; w += 8) {
			memcpy(&a, nrow + w, 8);
			memcpy(&b, m->want + w, 8);
			memcpy(&p, plane + w, 8);
			p |= kernel_equal_bytes(a, b) >> (7 - e % 8);
			memcpy(plane + w, &p, 8);
		}
	}
}

static int
route(const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    char *why, size_t whylen)
{
	(void)o;	/* minhop needs no options and keeps no memory */
	struct minhop m;
	uint32_t sw;

	if (out->nsw == 0) {
		snprintf(why, whylen, "no switch in the fabric, nothing to route");
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.out = out;
	m.nsw = out->nsw;
	m.stride = ((size_t)m.nsw + 7) & ~(size_t)7;
	kernel_graph_build(f, out, &m.g);
	distances(&m);
	kernel_row_init(&m.x, &m.g, m.stride);
	m.want = xcalloc(m.stride, 1);
	/* the switches no neighbour is closer to are in another piece of
	 * the fabric: kernel_fill_row() leaves them without a route */
	for (sw = 0; sw < m.nsw; sw++) {
		build_planes(&m, sw);
		kernel_fill_row(&m.g, &m.x, sw, lft_row(out, sw), NULL, 0);
	}
	free(m.want);
	kernel_row_fini(&m.x);
	kernel_graph_free(&m.g);
	free(m.dist);
	return 0;
}

const struct routing_engine re_minhop = {
	.name = "minhop",
	.route = route,
};
