/*
 * Breaking the credit loops of tables that are kept, with the fewest
 * entries changed. At a takeover the routes in place (mixed with the
 * engine's where they do not deliver, sm/inherit.h) may have a cycle of
 * channel dependencies (routing/cdg.h) that the engine's own tables do
 * not: another SM's minhop routes between switches turn down then up
 * anywhere. Rather than throw every route in place away, the kept tables
 * are changed only where a cycle forces it, each changed entry taking the
 * engine's port. Pure computation, no I/O.
 *
 * The engine's channel dependencies are recorded first (they close no
 * cycle among themselves). Then per destination LID, CA LIDs first (the
 * traffic that matters), switch LIDs after: from the switch the LID hangs
 * off outwards, each switch takes the kept entry once the route it leads
 * on has its entries settled and the dependency the hop adds closes no
 * cycle of those recorded so far; else the engine's entry under the same
 * condition. A kept dependency that would close a cycle with the engine's
 * gives way, so the engine's entries, the fallback, fit where they are
 * needed. A LID whose switches cannot all settle so is routed as the
 * engine routes it (its dependencies are all there already). The graph
 * keeps a topological order as edges go in (Pearce and Kelly), so a check
 * costs only the channels between the two ends; the budget bounds the
 * time.
 */
#ifndef IBSMD_ACYCLIC_H
#define IBSMD_ACYCLIC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

struct acyclic_result {
	uint64_t changed;       /* entries changed (the engine's taken) */
	uint64_t blocks;        /* 64-entry blocks with an entry changed */
	uint32_t lids;          /* LIDs with an entry changed */
	uint32_t engine_lids;   /* LIDs routed wholly as the engine routes them */
	uint64_t searched;      /* dependency links visited */
	bool budget_spent;      /* the searches ran out: the LIDs left were
				 * routed as the engine routes them */
};

/* The daemon's budget of dependency-link visits. minhop's tables kept
 * against ftree's (bench/routing --kept minhop) need 7.5 M on a
 * 2,000-host fat tree (ft3 20: 0.25-0.4 s for the whole call), 37 M on
 * ft3 26, where the switch LIDs past the budget take ftree's routes
 * whole (about 1.5 s in all). */
#define ACYCLIC_BUDGET 20000000ULL

/*
 * kept (the tables to keep, for f) becomes tables whose channel
 * dependency graph on one VL is acyclic, each entry kept's or engine's
 * (engine: the engine's tables for f, same size as kept, acyclic). Every
 * (switch, LID) pair the engine's tables deliver is delivered, and so is
 * every pair kept's deliver except in the LIDs routed as the engine
 * routes them (r->engine_lids); a kept entry that delivers stays unless a
 * cycle forces the engine's. Then each changed block is tried back to
 * kept's entries whole (the graph rebuilt from the result, without the
 * engine's unused dependencies) until none goes back. The searches cost
 * up to budget visits of a dependency link (0: 1); once spent, the LIDs
 * left are routed as the engine routes them (that needs no search) and no
 * block is tried back. The result is checked with cdg_acyclic(). Returns
 * 0 (kept untouched when it has no credit loop); -1 with kept unchanged
 * when the tables do not match, engine has a cycle or the check fails:
 * then use engine's.
 */
int acyclic_keep(const struct fabric *f, struct lft_set *kept,
    const struct lft_set *engine, uint64_t budget, struct acyclic_result *r);

#endif
