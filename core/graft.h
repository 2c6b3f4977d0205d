/*
 * The silent parts of a fabric. A discovery that could not reach a node
 * (its SMPs lost, its management agent silent) while the port facing it
 * is up, or could not read a switch's SwitchInfo or a port's PortInfo,
 * has not learnt that anything changed there. fabric_graft_silent() keeps
 * what the model in use knew: the nodes behind such ports are copied into
 * the new model as they were (node and ports marked kept), linked as they
 * were, and so are the unread parts of nodes that were reached (marked
 * kept). Routing then keeps their routes; a node leaves the model only
 * when the port facing it is read and found down, or facing another node.
 * The sweep never programs what is kept, and a model with anything kept is
 * not complete (discover_holes() names it). Pure: no I/O.
 */
#ifndef IBSMD_GRAFT_H
#define IBSMD_GRAFT_H

#include "core/fabric.h"

/* Graft into next what cur knew behind next's silent ports; returns the
 * nodes copied in. LIDs are not set (the LID manager gives kept ports the
 * LIDs they held, from the PortInfo copied). */
unsigned fabric_graft_silent(struct fabric *next, const struct fabric *cur);

/* Nodes and ports of f marked kept. */
unsigned fabric_kept_nodes(const struct fabric *f);

#endif
