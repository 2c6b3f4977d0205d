/*
 * dfsssp: the VL-layered deadlock-free engine (re_dfsssp, registered in
 * routing/routing.c; see routing/dfsssp.c for how it routes and layers).
 * Pure computation, no I/O.
 */
#ifndef IBSMD_DFSSSP_H
#define IBSMD_DFSSSP_H

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/repair.h"
#include "routing/routing.h"

/*
 * The tables and layers in use (prev and prev_layers, made by dfsssp for
 * prev_fabric) repaired for f after losses (issue 27 point 7): only the
 * routes that no longer arrive change. Per destination LID, of the
 * switches whose route crossed a lost link or switch (or leads nowhere),
 * in order of distance, those whose next hop is no longer one hop nearer
 * (the lost link's own end, or where distances grew) take a neighbour one
 * hop nearer whose route arrives, by dfsssp's own choice (least busy
 * busiest link, all-to-all loads of the routes kept); every other entry
 * keeps its port, and every route stays a shortest one. Routes kept keep
 * their layer (an SL handed out for them stays true); each changed route
 * keeps its layer too where it closes no cycle there (traffic that goes on
 * with the SL it was given stays deadlock-free), else goes into the
 * lowest layer where it closes none, so every layer stays acyclic, within
 * prev_layers->vls layers: the SL2VL tables do not change. Switches are
 * matched by node GUID, LIDs by number. out and lay (sized here for
 * f; owned by the caller on success: lft_set_fini, route_layers_fini)
 * receive the result; r (routing/repair.h) counts the entries changed, the
 * LIDs, the routes rerouted and relayered, the layers used. Returns 0, or
 * -1 (nothing to release) when there is nothing to repair from or the VLs
 * do not do: then route afresh. re_dfsssp.repair_layers, through
 * repair_run_layers().
 */
int dfsssp_repair(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct route_layers *prev_layers,
    struct lft_set *out, struct route_layers *lay,
    struct repair_result *r);

#endif
