/*
 * Linear forwarding tables of a fabric's switches, as the model holds them:
 * what routing computes, what the programmer writes, what queries walk.
 */
#ifndef IBSMD_LFT_H
#define IBSMD_LFT_H

#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

#define LFT_NO_ROUTE 0xFF

/* Forwarding tables for every switch of a fabric: entry [sw][lid] is the
 * egress port (0 = the switch itself, LFT_NO_ROUTE = none). */
struct lft_set {
	uint32_t nsw;           /* number of switches */
	uint32_t *sw_node;      /* [nsw] node index of switch i */
	uint32_t *node_sw;      /* [nnodes] switch index of node, FABRIC_NONE */
	uint16_t max_lid;       /* rows hold LIDs 0 .. max_lid */
	uint8_t *port;          /* nsw * (max_lid + 1) entries */
	uint32_t *refs;         /* NULL: the rows are this set's alone; else
				 * the count of sets sharing them */
};

/* Sizes the set for f (its switches, fabric_max_lid()) with every entry
 * LFT_NO_ROUTE. Returns 0, or -1 on allocation failure. */
int lft_set_init(struct lft_set *s, const struct fabric *f);
void lft_set_fini(struct lft_set *s);
/* Widen every row to hold LIDs up to max_lid (no change when it does
 * already); new entries are LFT_NO_ROUTE. Returns 0, or -1 on allocation
 * failure (s unchanged). */
int lft_set_grow(struct lft_set *s, uint16_t max_lid);
/* dst (uninitialised) becomes a copy of src. Returns 0 or -1. */
int lft_set_copy(struct lft_set *dst, const struct lft_set *src, uint32_t nnodes);
/* dst (uninitialised) becomes a set with src's switches that shares src's
 * rows (no copy; each set owns a reference, and the rows go with the
 * last lft_set_fini). Rows that are shared are read only: a set must be
 * made the only owner of its rows (lft_set_own, which copies them when
 * another set shares them) before they are written. Returns 0 or -1. */
int lft_set_share(struct lft_set *dst, struct lft_set *src, uint32_t nnodes);
int lft_set_own(struct lft_set *s);

static inline uint8_t *
lft_row(const struct lft_set *s, uint32_t sw)
{
	return s->port + (size_t)sw * ((size_t)s->max_lid + 1);
}

#endif
