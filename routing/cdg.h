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

/*
 * The same check per VL, for routes that keep one VL from their source to
 * their destination. layer[sw * (s->max_lid + 1) + lid] (nlayers of them)
 * is the layer of the route from switch sw to lid, and vl_of[layer] its VL
 * (NULL: the layer). A route from sw adds, to its VL's graph, the
 * dependency of each channel it takes on the one it came over, and only
 * those: the route from a switch it passes may be in another VL. 1 when
 * the graph of every VL is acyclic; 0 when one has a cycle (the lowest
 * such VL in *cyclic_vl, if not NULL). *edges_out (if not NULL) gets the
 * dependencies of all VLs.
 */
int cdg_acyclic_layers(const struct fabric *f, const struct lft_set *s,
    const uint8_t *layer, unsigned nlayers, const uint8_t *vl_of,
    unsigned *cyclic_vl, uint64_t *edges_out);

#endif
