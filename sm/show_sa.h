/*
 * What ibsmctl shows of the SA and of virtualization: the SA's
 * ServiceRecords and event subscriptions, multicast groups with their
 * trees, VF alias GUIDs and vports. Like show.c (the fabric views) it
 * renders only what the caller passes; each view has one text and one
 * JSON rendering, picked once per command (s->json).
 */
#ifndef IBSMD_SHOW_SA_H
#define IBSMD_SHOW_SA_H

#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/vport.h"
#include "sa/inform.h"
#include "sa/service.h"
#include "sm/mcast.h"
#include "sm/show.h"

struct alias_store;
struct mcast_store;
struct mcast_trees;

/* The SA's ServiceRecords and event subscriptions, as listed. */
void show_services(struct show *s, const struct sa_service_info *v,
    size_t n);
void show_subscriptions(struct show *s,
    const struct sa_subscription_info *v, size_t n);

/* VF alias GUIDs per physical port (st NULL: virtualization not enabled):
 * every index with a GUID saved or held by the device, its GUID, state
 * (assigned: active; saved: kept for a later Set of 0; device: only the
 * device holds one), what the device held when last read and whether it
 * matches. f (may be NULL) names the ports. */
void show_guids(struct show *s, const struct fabric *f,
    const struct alias_store *st);
/* The answer to guids forget: index of port no longer holds was. */
void show_guid_forgotten(struct show *s, uint64_t port, unsigned index,
    uint64_t was);

/* Multicast as sm/mcast.c holds it: its counters, the group store, the
 * trees over the model in use and that model (both NULL: none yet). */
struct show_mcast {
	struct sm_mcast_stats st;
	const struct mcast_store *store;
	const struct mcast_trees *trees;
	const struct fabric *f;
};
/* Every group, its parameters, members and tree. */
void show_mcast(struct show *s, const struct show_mcast *m);

/* The vports of vs per virtualization-capable port of f, as the last
 * heavy sweep read and programmed them (either NULL: none). */
void show_vports(struct show *s, const struct fabric *f,
    const struct vport_set *vs);

#endif
