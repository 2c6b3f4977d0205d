/*
 * The routing kernel: what every engine routes from and with, and what the
 * deadlock check reads. The switch graph of a fabric with the destination
 * LIDs hanging off each switch, breadth-first searches over it, the
 * previous tables of a switch, and one balancing kit: spreading LIDs over
 * candidate ports, and filling a switch's table from its candidate planes.
 * Pure computation, no I/O; it knows nothing of engines or the chain.
 */
#ifndef IBSMD_KERNEL_H
#define IBSMD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

/* A cable that carries traffic: both ends known, neither DOWN, neither
 * held out of routing (sm/holddown.h). */
bool kernel_link_usable(const struct fabric *f, uint32_t p);

/* The switch (index of s) end port p hangs off and the port there that
 * leads to it (*port 0 for a switch's port 0); FABRIC_NONE for a CA port
 * cabled to nothing usable or to another CA. */
uint32_t kernel_attach(const struct fabric *f, const struct lft_set *s,
    uint32_t p, uint8_t *port);

/* The switch graph of a fabric and where its LIDs are. Neighbours of
 * switch i (indices of s) are sw[off[i]] .. sw[off[i+1]-1], reached
 * through port[] in port order, over usable cables (a cable looped back
 * into its own switch is left out). Destination LIDs hang off the switch
 * they are cabled to: those of switch i are dst_lid[dst_off[i]] ..
 * dst_lid[dst_off[i+1]-1] in LID order, each with the port there that
 * leads to it (0: the switch's own LID). A LID given twice keeps its first
 * port. Every LID of a port's 2^lmc is a destination: dst_rank says which
 * of its block (0: the base LID), so the LIDs of one port are the base
 * entry and the entries after it with ranks 1, 2, ... */
struct kernel_graph {
	uint32_t nsw;
	uint32_t *off;          /* [nsw + 1] */
	uint32_t *sw;
	uint8_t *port;
	uint32_t *dst_off;      /* [nsw + 1] */
	uint16_t *dst_lid;
	uint8_t *dst_port;
	uint8_t *dst_rank;      /* LID - its port's base LID */
	bool multi;             /* some rank is not 0 (LMC > 0) */
	uint64_t *sys;          /* [nsw] system image GUID (node GUID when
				 * none): switches of one chassis share it */
};
void kernel_graph_build(const struct fabric *f, const struct lft_set *s,
    struct kernel_graph *g);
void kernel_graph_free(struct kernel_graph *g);

/* Breadth-first distances over g from the nsrc switches of src (a switch
 * listed twice counts once); UINT32_MAX where it does not reach. queue
 * holds g->nsw switches. */
void kernel_bfs(const struct kernel_graph *g, const uint32_t *src,
    uint32_t nsrc, uint32_t *dist, uint32_t *queue);

/* Breadth-first search from 64 sources at once: in each switch's words,
 * bit i stands for source switch base + i, so a level costs one pass over
 * the links for all of them. */
struct kernel_bfs64 {
	uint32_t nsw;
	uint64_t *seen;         /* [nsw] sources that reached the switch */
	uint64_t *front;        /* [nsw] sources that reached it last level */
	uint64_t *next;         /* [nsw] work space */
};
void kernel_bfs64_init(struct kernel_bfs64 *b, uint32_t nsw);
void kernel_bfs64_fini(struct kernel_bfs64 *b);
/* Sources base .. base + n - 1 (n <= 64), each at its own switch. */
void kernel_bfs64_start(struct kernel_bfs64 *b, uint32_t base, uint32_t n);
/* One level further: afterwards front[v] holds the sources that first
 * reach switch v now (one of v's links leads into the previous level).
 * Returns the union of front, 0 when the search is over. */
uint64_t kernel_bfs64_step(struct kernel_bfs64 *b,
    const struct kernel_graph *g);

/* The table row the previous tables (prev, made for prev_fabric; either
 * NULL: none) held for the switch whose node GUID is guid, or NULL;
 * *max_lid receives the row's last LID. */
const uint8_t *kernel_prev_row(const struct fabric *prev_fabric,
    const struct lft_set *prev, uint64_t guid, uint16_t *max_lid);

/* Give the k LIDs of lids, one by one, the candidate port (cand, c of
 * them, no port twice) with the fewest LIDs so far in cnt, ties to the
 * earliest candidate; row and cnt are updated. */
void kernel_spread(uint8_t *row, uint32_t *cnt, const uint8_t *cand,
    unsigned c, const uint16_t *lids, uint32_t k);

#define KERNEL_BYTES_LO7        0x7f7f7f7f7f7f7f7fULL

/* 0x80 in each byte where a and b agree, 0 elsewhere (exact per byte):
 * eight byte comparisons in one word operation. */
static inline uint64_t
kernel_equal_bytes(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b;

	return ~(((x & KERNEL_BYTES_LO7) + KERNEL_BYTES_LO7) | x |
	    KERNEL_BYTES_LO7);
}

/*
 * Filling a switch's table from candidate planes. An engine that routes
 * along a distance (minhop: shortest paths; updn: legal up-down paths)
 * marks, for switch sw, which of its links lead one step nearer to each
 * destination switch t: bit b of plane[q * stride + t] stands for link
 * g->off[sw] + 8 * q + b. kernel_fill_row() then gives every destination
 * LID a port, balanced over the candidates.
 */
#define KERNEL_PLANES   32      /* of 8 links each: 255 ports */

struct kernel_row {
	size_t stride;          /* destination switches per plane (>= nsw) */
	unsigned planes;        /* in use for the current switch */
	uint8_t *plane;         /* [KERNEL_PLANES][stride] */
	uint8_t cand[256];
	uint32_t cand_sw[256];  /* the switch each candidate leads to */
	uint32_t extra[256];    /* LIDs past the base ones given each port */
	uint32_t *defer;        /* [nsw] destination switches with a choice */
	uint16_t *lids;         /* [all destination LIDs] one run of them */
};
void kernel_row_init(struct kernel_row *x, const struct kernel_graph *g,
    size_t stride);
void kernel_row_fini(struct kernel_row *x);
/* The planes of switch sw, cleared, for the engine to mark. */
uint8_t *kernel_row_planes(struct kernel_row *x, const struct kernel_graph *g,
    uint32_t sw);
/* Candidate ports of switch sw towards switch t, into x->cand in port
 * order (and the switch each leads to in x->cand_sw); returns how many. */
unsigned kernel_candidates(const struct kernel_graph *g, struct kernel_row *x,
    uint32_t sw, uint32_t t);
/*
 * Fill row, the table of switch sw, from the planes marked for it: its own
 * LIDs get their ports; LIDs of a switch with one candidate port take it;
 * with prev (the switch's previous row, up to prev_max; NULL: none), the
 * LIDs whose previous port is still a candidate keep it; the others are
 * spread over the candidates, the destination switches that share a set
 * of candidates as one run of LIDs, after the forced choices so that the
 * free ones even out around them. Only base LIDs are spread so: with
 * LMC > 0 they fall as they would with LMC 0; then the other LIDs, offset
 * by offset over the whole row (all offsets 1, then 2, ...), each by
 * kernel_lmc_port. Returns how many destination switches (with LIDs, sw excluded) no
 * candidate leads to: they are left without a route.
 */
uint32_t kernel_fill_row(const struct kernel_graph *g, struct kernel_row *x,
    uint32_t sw, uint8_t *row, const uint8_t *prev, uint16_t prev_max);

/* The port for a LID past the base one of the block whose entries of g
 * are b .. e - 1, among the c candidates of x (x->cand, x->cand_sw),
 * given the block's LIDs routed so far in row. As OpenSM's minhop with LMC
 * prefers: a port no LID of the block takes, leading to a system none of
 * them reaches, else to a switch none reaches; among those the one with
 * the fewest LIDs (cnt: base LIDs, x->extra: the others); ties to the
 * earlier candidate. */
uint8_t kernel_lmc_port(const struct kernel_graph *g, const struct kernel_row *x,
    unsigned c, const uint8_t *row, uint32_t b, uint32_t e,
    const uint32_t *cnt);

#endif
