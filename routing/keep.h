/*
 * The routes in place kept where they still deliver (a takeover keeps the
 * previous master's, a subnet taken over keeps them at every heavy sweep).
 * Kept per destination LID: the column of the tables in place when it
 * delivers from every switch in no more switch hops than the computed
 * route (so a cable that came back is used again); else that column with
 * the computed entry on the switches where it does not, when the mix
 * does; else the computed column. Delivering: following the entries from
 * the switch reaches the switch the LID hangs off and leaves through its
 * port, over usable cables, without a loop. Deadlock freedom is checked
 * by the caller; keep_break_loops() breaks the credit loops of a merge
 * with the engine's entries only where a loop forces them. Pure: no I/O.
 */
#ifndef IBSMD_KEEP_H
#define IBSMD_KEEP_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/acyclic.h"

struct keep_result {
	uint32_t kept;          /* LIDs whose routes all stayed */
	uint32_t mixed;         /* LIDs with some switches' routes replaced */
	uint32_t computed;      /* LIDs routed as computed */
};
/* out holds the computed tables for f, held the tables in place (both
 * sized for f): out becomes the merge. */
void keep_merge(const struct fabric *f, const struct lft_set *held,
    struct lft_set *out, struct keep_result *res);
/* out, the merge (for f), has a credit loop and the engine promised
 * none: only the entries a loop forces take engine's (the engine's tables
 * for f; routing/acyclic.h), and res is counted again for the result.
 * Returns 0, or -1 with out and res unchanged (then use engine's). */
int keep_break_loops(const struct fabric *f, const struct lft_set *held,
    const struct lft_set *engine, struct lft_set *out,
    struct keep_result *res, struct acyclic_result *ar);

#endif
