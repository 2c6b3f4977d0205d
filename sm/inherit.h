/*
 * Routes inherited from the previous master. An SM that takes a subnet
 * over (it was STANDBY, the master died or handed over) reads every
 * switch's forwarding table before it routes; after routing, the routes in
 * place are kept wherever they still deliver, so that a takeover on an
 * unchanged fabric writes no LFT block, whatever engine and discovery
 * order the previous master had, and a changed fabric gets new routes
 * only where the old ones broke.
 *
 * Kept per destination LID: the column of the tables in place when it
 * delivers from every switch in no more switch hops than the computed
 * route (so a cable that came back is used again); else that column with
 * the computed entry on the switches where it does not, when the mix
 * does; else the computed column. Delivering: following the entries from
 * the switch reaches the switch the LID hangs off and leaves through its
 * port, over usable cables, without a loop. (Deadlock freedom is the
 * caller's to check on the result.)
 */
#ifndef IBSMD_INHERIT_H
#define IBSMD_INHERIT_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/acyclic.h"

struct mad_engine;
struct inherit;

/* Every block read: the switch's GUID, its LinearFDBTop and the 64
 * entries as read (for the programmer's cache). */
typedef void (*inherit_block_cb)(void *arg, uint64_t guid, uint16_t top,
    uint32_t block, const uint8_t *data);
/* All read: how many reads failed. */
typedef void (*inherit_done_cb)(void *arg, unsigned failures);

/* Size held for f (LIDs assigned) and fill it with the LFT blocks every
 * switch holds up to its LinearFDBTop (entries past it: no route). f and
 * held must stay valid until done, which is called once from the loop. */
struct inherit *inherit_read(struct mad_engine *mad, const struct fabric *f,
    struct lft_set *held, inherit_block_cb block, inherit_done_cb done,
    void *arg);
/* Abandon a read in progress: done is not called. */
void inherit_abort(struct inherit *h);

struct inherit_result {
	uint32_t kept;          /* LIDs whose routes all stayed */
	uint32_t mixed;         /* LIDs with some switches' routes replaced */
	uint32_t computed;      /* LIDs routed as computed */
};
/* out holds the computed tables for f, held the tables in place (both
 * sized for f): out becomes the merge. */
void inherit_merge(const struct fabric *f, const struct lft_set *held,
    struct lft_set *out, struct inherit_result *res);
/* out, the merge (for f), has a credit loop and the engine promised
 * none: only the entries a loop forces take engine's (the engine's tables
 * for f; routing/acyclic.h), and res is counted again for the result.
 * Returns 0, or -1 with out and res unchanged (then use engine's). */
int inherit_break_loops(const struct fabric *f, const struct lft_set *held,
    const struct lft_set *engine, struct lft_set *out,
    struct inherit_result *res, struct acyclic_result *ar);

#endif
