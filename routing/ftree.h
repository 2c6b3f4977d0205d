/*
 * ftree's own header, shared by its two files and by nothing else (the
 * engine's contract is re_ftree in routing/routing.h): ftree_rank.c works
 * out the shape of the tree (neighbour groups, ranks, meeting ranks, the
 * hub and the turns through it), ftree.c the main paths and the tables.
 * ftree.c's opening comment describes the whole engine.
 */
#ifndef IBSMD_FTREE_H
#define IBSMD_FTREE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/kernel.h"
#include "routing/routing.h"

#define NONE            UINT32_MAX
#define GNONE           0xFF    /* no group */
#define RANK_MAX        200     /* ranks fit a byte, with room for + 1 */

struct ft {
	const struct fabric *f;
	const struct routing_opts *o;
	struct lft_set *out;
	uint32_t nsw;
	struct kernel_graph g;  /* usable links and destinations */
	char *why;
	size_t whylen;

	/* Neighbour groups: the usable cables from a switch to one other
	 * switch. After ranking, a switch's up groups come first. */
	uint32_t *g_off;        /* [nsw + 1] groups of each switch */
	uint32_t *g_sw;         /* [ng] neighbour switch */
	uint32_t *g_rev;        /* [ng] the neighbour's group back */
	uint32_t *g_poff;       /* [ng + 1] ports of each group */
	uint8_t *g_port;        /* local port numbers */
	uint8_t *nup;           /* [nsw] up groups */

	uint8_t *rank;          /* [nsw] 0: root */
	uint32_t h1;            /* highest rank + 1 */
	uint32_t *order;        /* [nsw] switches by rank, roots first */

	/* destination LIDs by the switch they hang off */
	uint32_t *ca_off;       /* [nsw + 1] CA (and router) LIDs */
	uint16_t *ca_lid;
	uint8_t *ca_port;
	uint16_t *sw_lid;       /* [nsw] the switch's own LID, 0: none */
	uint32_t *hosts;        /* switches with CA LIDs */
	uint32_t nhosts;
	/* [max_lid + 1] 2^lmc - 1 of the CA port a LID belongs to (LMC
	 * blocks are aligned: lid & mask is its offset in the block), 0 for
	 * switch LIDs and LIDs of ports with LMC 0 */
	uint8_t *lmask;
	uint8_t maxmask;        /* the largest of them */
	uint32_t *sibn;         /* [nsw] main paths of a block per node */

	/* [nsw * nsw] meeting rank + 1 of two switches, 0: no common
	 * ancestor (symmetric) */
	uint8_t *meet;
	/* [nsw * nsw] [s][t]: when s is above t, s's group towards t */
	uint8_t *down;

	/* main paths: [lid * h1 + r] node at rank r, and its port down */
	uint32_t *pnode;
	uint8_t *pport;

	uint32_t hub;           /* NONE: no hub */
	uint8_t *hubok;         /* [nsw] has an up-down route to the hub */
	uint8_t *fb;            /* [nsw * nsw] last-resort ports, or NULL */

	const uint8_t **prev;   /* [nsw] previous rows, NULL: none */
	uint16_t *prev_max;

	uint32_t *mark;         /* [nsw] visit marks */
	uint32_t mark_now;
	uint32_t *queue;        /* [nsw] */
};

/* Write the reason ftree cannot route into t->why; returns -1. */
int ftree_refuse(struct ft *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline uint64_t
ftree_guid(const struct ft *t, uint32_t sw)
{
	return t->f->nodes[t->out->sw_node[sw]].guid;
}

/* A visit mark no switch holds yet. */
static inline uint32_t
ftree_fresh(struct ft *t)
{
	if (++t->mark_now == 0) {
		memset(t->mark, 0, t->nsw * sizeof(*t->mark));
		t->mark_now = 1;
	}
	return t->mark_now;
}

/* Neighbour groups, destinations, ranks (up groups first), the order by
 * rank, meeting ranks and down rows; -1 (with the reason) when the
 * switches do not form a fat tree. Needs t->g, t->mark and t->queue. */
int ftree_rank(struct ft *t);
/* Pairs without an up-down route: the hub and, where it cannot serve,
 * last-resort paths; -1 when CAs would be left out. Needs the previous
 * rows (t->prev). */
int ftree_plan_turns(struct ft *t);

#endif
