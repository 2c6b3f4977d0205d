/*
 * The repairs of routing/repair.h, private to routing/repair*.c: the
 * context they share and the functions they call across files.
 *
 *     repair.c        the entry points; the shared set-up (the tables in
 *                     use laid onto the model, their turns, the up/down
 *                     order, the ports' load) and tear-down; the walk along
 *                     the tables that tells which routes still arrive
 *     repair_updn.c   the up/down (or shortest) repair, LID by LID
 *     repair_cycle.c  the channel dependency graph the cycle-avoiding
 *                     repairs keep, and the untangling of cycles left
 *     repair_local.c  the local repair
 *
 * Pure computation, no I/O.
 */
#ifndef IBSMD_REPAIR_PRIV_H
#define IBSMD_REPAIR_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/kernel.h"
#include "routing/repair.h"

#define NONE    UINT32_MAX
#define INF     UINT32_MAX

enum { ST_UNKNOWN, ST_STACK, ST_OK, ST_BAD };
enum { M_D, M_U, M_X };

/* Set up by rp_open() (repair.c), the dependency graph by rp_deps_start()
 * and rp_ord_build() (repair_cycle.c); everything freed by rp_fini(). */
struct rp {
	const struct fabric *f;
	struct kernel_graph g;
	uint32_t nsw;
	uint32_t *nbr;          /* [nsw * 256] switch behind (switch, port) */
	uint32_t *eid;          /* [nsw * 256] its link in g */
	uint8_t *turn;          /* [links][32] ports the previous tables go on
				 * by after crossing the link (bits) */
	uint32_t *broken;       /* [nsw] per LID: the broken switches */
	const uint8_t **prow;   /* [nsw] previous rows (NULL: none) */
	uint16_t *pmax;         /* [nsw] their last LIDs */
	uint32_t *pos;          /* [nsw] place in the up/down order */
	uint32_t *order;        /* [nsw] switches by place */
	uint32_t *lid_sw;       /* [max_lid + 1] switch the LID hangs off */
	uint8_t *lid_port;      /* [max_lid + 1] port there that leads to it */
	uint8_t *taken;         /* [max_lid + 1] LIDs routed as fallback */
	uint32_t *cnt;          /* [nsw * 256] each switch's load by port */
	uint32_t *xs;           /* [nsw] scratch (rp_repair_lid) */
	uint8_t *dep;           /* [links][32] REPAIR_UPDOWN: the dependency
				 * graph so far: after link e, port q of the
				 * switch it leads to (bits); NULL: none */
	uint32_t *dmark, dnow;  /* [links] visit marks */
	uint32_t *cidx;         /* [nsw] repair_run_local: place on the way
				 * local_chain() tries, NONE: not on it */
	uint32_t *ord, *at;     /* [links] repair_run_local: a topological
				 * order of dep[] (ord[link] = place,
				 * at[place] = link), kept as dependencies
				 * are added; NULL: none */
	bool ord_ok;            /* ord is one (else searches are unpruned) */
	uint32_t *dstk;         /* [links] */
	uint64_t budget;        /* dependency links left to visit; at 0 the
				 * dependencies are no longer consulted (spent) */
	uint64_t budget0;       /* the budget given (0: none) */
	bool spent;
	/* per LID */
	uint8_t *st, *mode;
	uint32_t *len, *stack;
	uint32_t *dv, *uv, *ev;
	uint8_t *m;
};

static inline uint8_t
entry(const struct lft_set *s, uint32_t sw, uint16_t lid)
{
	return lid <= s->max_lid ? lft_row(s, sw)[lid] : LFT_NO_ROUTE;
}

struct keyed {
	uint32_t height;
	uint64_t guid;
	uint32_t sw;
};

/* lid's entry at switch sw in the previous tables, LFT_NO_ROUTE: none. */
static inline uint8_t
prev_entry(const struct rp *c, uint32_t sw, uint16_t lid)
{
	return c->prow[sw] != NULL && lid <= c->pmax[sw] ? c->prow[sw][lid] :
	    LFT_NO_ROUTE;
}

/* turn[] and dep[]: per link, 256 bits, one per port of the switch the
 * link leads to: after link e, port q is taken on. */
static inline bool
link_bit(const uint8_t *bits, uint32_t e, uint8_t q)
{
	return (bits[(size_t)e * 32 + q / 8] >> (q % 8)) & 1;
}

static inline void
link_bit_set(uint8_t *bits, uint32_t e, uint8_t q)
{
	bits[(size_t)e * 32 + q / 8] |= (uint8_t)(1u << (q % 8));
}

/* Do the previous tables, after the link e, go on by port q? */
static inline bool
old_turn(const struct rp *c, uint32_t e, uint8_t q)
{
	return link_bit(c->turn, e, q);
}

/* The link lid's route takes out of switch n in out, NONE: it ends there. */
static inline uint32_t
out_link(const struct rp *c, const struct lft_set *out, uint32_t n,
    uint16_t lid)
{
	if (n == c->lid_sw[lid])
		return NONE;
	return c->eid[(size_t)n * 256 + lft_row(out, n)[lid]];
}

/* Repaired hops are kept from closing cycles: dependencies recorded, and
 * the budget for searching them not spent. */
static inline bool
deps_on(const struct rp *c)
{
	return c->dep != NULL && !c->spent;
}

static inline bool
dep_has(const struct rp *c, uint32_t e1, uint8_t q)
{
	return link_bit(c->dep, e1, q);
}

/* repair.c */
int rp_keyed_cmp(const void *a, const void *b);
uint32_t rp_walk(struct rp *c, const struct lft_set *s, uint16_t lid);
void rp_load(struct rp *c, const struct lft_set *out);

/* repair_updn.c */
void rp_updn(struct rp *c, struct lft_set *out, enum repair_discipline d,
    const struct lft_set *fallback, uint64_t budget, struct repair_result *r);
void rp_repair_lid(struct rp *c, struct lft_set *out, uint16_t lid,
    enum repair_discipline d, const struct lft_set *fallback,
    struct repair_result *r);

/* repair_cycle.c */
void rp_deps_start(struct rp *c, const struct lft_set *out, uint64_t budget);
void rp_ord_build(struct rp *c);
void rp_dep_add(struct rp *c, const struct lft_set *out, uint32_t sw,
    uint8_t p, uint16_t lid);
void rp_dep_add_lid(struct rp *c, const struct lft_set *out, uint16_t lid);
bool rp_dep_try(struct rp *c, uint32_t e1, uint8_t q);
bool rp_dep_safe(struct rp *c, const struct lft_set *out, uint32_t sw,
    uint8_t p, uint16_t lid);
unsigned rp_safe_only(struct rp *c, const struct lft_set *out, uint32_t sw,
    uint16_t lid, uint8_t *cand, unsigned k);
void rp_untangle_changed(struct rp *c, struct lft_set *out,
    const struct lft_set *fallback, struct repair_result *r);

/* repair_local.c */
void rp_local(struct rp *c, struct lft_set *out, const struct lft_set *fallback,
    uint64_t budget, struct repair_result *r);

#endif
