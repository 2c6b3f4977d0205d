/*
 * Routes inherited from the previous master. An SM that takes a subnet
 * over (it was STANDBY, the master died or handed over) reads every
 * switch's forwarding table before it routes; after routing, the routes in
 * place are kept wherever they still deliver (routing/keep.h), so that a
 * takeover on an unchanged fabric writes no LFT block, whatever engine and
 * discovery order the previous master had, and a changed fabric gets new
 * routes only where the old ones broke.
 */
#ifndef IBSMD_INHERIT_H
#define IBSMD_INHERIT_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

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

#endif
