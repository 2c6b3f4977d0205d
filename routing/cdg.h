/*
 * Channel dependency graph: from a fabric and its forwarding tables, the
 * dependencies between inter-switch channels (a route to some LID arriving
 * over channel a and leaving over channel b makes b depend on a), and
 * whether that graph has a cycle (credit-loop deadlock possible on one VL).
 * Pure computation, no I/O.
 */
#ifndef IBSMD_CDG_H
#define IBSMD_CDG_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

/* 1 when the channel dependency graph of s over f is acyclic, 0 when it
 * has a cycle; *edges_out (if not NULL) gets the number of dependencies. */
int cdg_acyclic(const struct fabric *f, const struct lft_set *s,
    uint64_t *edges_out);

#endif
