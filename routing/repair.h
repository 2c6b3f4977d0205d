/*
 * Repairing forwarding tables after losses: the tables in use, laid onto
 * the model a sweep found, with only the (switch, LID) entries changed
 * whose route no longer arrives (it crossed a lost link or switch, or now
 * leads nowhere). Every other entry keeps its port, so a link failure
 * writes only the blocks its routes touched. Pure computation, no I/O.
 *
 * Discipline. With REPAIR_UPDOWN (engines that promise deadlock freedom)
 * switches are ordered by height above the switches with CAs, ties by GUID,
 * or in the order the caller gives (repair_run_ordered: the engine's own,
 * routing_engine.order); a hop to a later switch goes up. A repaired entry keeps its route
 * up*down*: a switch that can still reach the LID going only down does so
 * (then whatever comes down into it stays legal); else it goes up to a
 * switch whose route is up*down*; only where no such route is left (a fat
 * tree switch cut from the LID's subtree) it takes the shortest route
 * that turns only where the previous tables turn (ftree's hub), and if
 * there is none, the shortest there is, or the LID as the engine routes
 * it (fallback); repair_run_acyclic also takes, before the shortest there
 * is, the shortest that closes no cycle of channel dependencies. The
 * caller checks the result for credit loops (routing/cdg.h) and falls
 * back to a full route. With
 * REPAIR_SHORTEST (minhop) every repaired route is the shortest given the
 * routes kept. Among equally short choices the port carrying the fewest
 * LIDs of the switch's table is taken (kernel_spread).
 */
#ifndef IBSMD_REPAIR_H
#define IBSMD_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/routing.h"

enum repair_discipline { REPAIR_SHORTEST, REPAIR_UPDOWN };

struct repair_result {
	uint64_t kept;          /* (switch, LID) entries whose route arrives */
	uint64_t changed;       /* entries given another port */
	uint64_t unroutable;    /* entries left without a route */
	uint32_t lids;          /* destination LIDs with an entry changed */
	uint32_t not_updown;    /* entries repaired outside up*down* */
	uint32_t new_turns;     /* hops repaired turning where the previous
				 * tables did not (repair_run_acyclic: that
				 * may close a cycle of channel dependencies) */
	uint32_t engine_lids;   /* LIDs taken from fallback */
	uint32_t updown_lids;   /* repair_run_local: LIDs it left to the
				 * up*down* repair */
	bool budget_spent;      /* repair_run_acyclic: the search ran out */
	uint64_t searched;      /* dependency links it visited */
	/* repair_run_layers */
	uint64_t rerouted;      /* (source switch, LID) routes that changed */
	uint64_t relayered;     /* of those, routes now in another layer */
	uint32_t layers;        /* layers used after the repair */
};

/*
 * out (sized here for f, owned by the caller on success: lft_set_fini)
 * receives prev (made for prev_fabric; switches matched by node GUID)
 * repaired for f. fallback (the engine's tables for f, or NULL): a LID
 * whose repair would turn where prev never turns takes its entries from
 * it instead. Returns 0, or -1 when there are no previous tables.
 */
int repair_run(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, struct lft_set *out, struct repair_result *r);

/* repair_run in a given up/down order (REPAIR_UPDOWN): up[sw] for every
 * switch of f as lft_set_init numbers them, all distinct, a hop from a to b
 * going up when up[b] > up[a] (the engine's, routing_engine.order); NULL:
 * the heights above the switches with CAs, ties by GUID. */
int repair_run_ordered(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, const uint32_t *up, struct lft_set *out,
    struct repair_result *r);

#define REPAIR_BUDGET 1000000ULL

/* repair_run_ordered with REPAIR_UPDOWN, keeping each repaired hop from
 * closing a cycle of channel dependencies (see the top of this file): the
 * dependencies of the kept entries and of every repaired hop are recorded,
 * a hop that would close a cycle is avoided where another is there, the
 * LIDs with the most broken entries go first, and with a fallback the
 * LIDs of any cycle left are routed as fallback routes them. The search
 * costs up to budget visits of a dependency link (0: 1), each pass over
 * the cycles left one per table entry; when they are spent, the rest is
 * repaired as repair_run_ordered does, cycles are no longer untangled, and
 * r->budget_spent is set. REPAIR_BUDGET is the daemon's, per order
 * tried: about 0.1 s of search on a 2,000-host fat tree. */
int repair_run_acyclic(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    const uint32_t *up, uint64_t budget, struct lft_set *out,
    struct repair_result *r);

/* prev laid onto f with only the entries changed whose own hop no longer
 * goes on (the switches next to a lost link or switch): every route that
 * went through one goes on from it by a neighbour whose route arrives,
 * the shortest whose new channel dependencies close no cycle, whether or
 * not the route stays up*down*; where every way leads back through it,
 * the few switches on the nearest way that closes no cycle change with it
 * (and those whose routes came into that way may be pulled onto it).
 * Upstream entries otherwise keep their ports, so a cable's failure
 * changes few entries beyond the two switches it joined. A LID this
 * cannot route is repaired up*down* as repair_run_acyclic does
 * (r->updown_lids; fallback's entries where that fails, cycles then
 * untangled). The searches cost up to budget visits of a dependency link
 * (0: 1); once spent, the rest is repaired up*down* unchecked. The caller
 * checks for credit loops (routing/cdg.h). Returns 0, or -1 when there
 * are no previous tables. */
#define REPAIR_LOCAL_BUDGET 8000000ULL   /* the daemon's: a visit costs
					 * less here (searches pruned by the
					 * order, no untangle passes): on a
					 * 2,000-host fat tree most cables
					 * need under 0.1 M (0.03-0.06 s),
					 * the worst seen 5.9 M (0.25 s) */
int repair_run_local(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    uint64_t budget, struct lft_set *out, struct repair_result *r);

/*
 * A VL-layered routing (routing/routing.h struct route_layers) repaired
 * after losses by its engine's own repair (routing_engine.repair_layers;
 * issue 27 point 7): prev and prev_layers (made by re for prev_fabric)
 * laid onto f with only the routes changed that no longer arrive; the
 * routes kept keep their layer (an SL handed out for them stays true),
 * the changed ones stay within prev_layers->vls layers (the SL2VL tables
 * the layers need do not change), and every layer's channel dependencies
 * stay acyclic: checked here per VL (routing_layers_acyclic) whatever the
 * engine says. out and lay (sized here for f) are the caller's on success
 * (lft_set_fini, route_layers_fini). Returns 0; -1 (nothing to release)
 * when re has no such repair, there is nothing to repair from, or the
 * engine could not keep within the VLs or acyclic: route afresh then.
 */
int repair_run_layers(const struct routing_engine *re, const struct fabric *f,
    const struct fabric *prev_fabric, const struct lft_set *prev,
    const struct route_layers *prev_layers, struct lft_set *out,
    struct route_layers *lay, struct repair_result *r);

/* (switch, LID) pairs of f that ref's tables deliver and s's do not. */
uint64_t repair_lost_pairs(const struct fabric *f, const struct lft_set *s,
    const struct lft_set *ref);

#endif
