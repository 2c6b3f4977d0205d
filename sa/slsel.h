/*
 * The SL (and the QoS level's limits) of what the SA hands out: paths
 * (PathRecord, MultiPathRecord) and multicast groups (MCMemberRecord).
 * One place, so that the routing engine's per-path SL (the path_sl hook,
 * issue 27) can later take this SL as its hint, as OpenSM passes the
 * policy's SL to its engine's path_sl.
 *
 * With qos off (sa_view.qos false), as before QoS: a requested SL is the
 * requester's choice, anything else is SA_SL_NO_QOS, and no level limits
 * the path. With qos on, as OpenSM's osm_sa_path_record.c with qos:
 *   1. the QoS level: the policy's resolution of the request
 *      (partitions/qos.h: match rules, then qos-ulps, then DEFAULT); no
 *      policy file: no level;
 *   2. the SL: the requested one, but no path when the level sets
 *      another; else the level's SL; else the sl= of the partition of
 *      the path's P_Key; else 0;
 *   3. the level's mtu-limit and rate-limit cap the path's MTU and rate
 *      (before the request's selectors), its packet-life replaces
 *      subnet_timeout (not on a loopback path), and its pkey ranges
 *      restrict the P_Key: a requested P_Key outside them gives no path,
 *      and without one the first of them both ends share is used.
 * Pure: reads the view only.
 */
#ifndef IBSMD_SA_SLSEL_H
#define IBSMD_SA_SLSEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sa/sa.h"

struct qos_level;

/* What a path request gives the policy to match on. */
struct sa_sl_req {
	bool has_sid, has_pkey, has_class;
	uint64_t service_id;
	uint16_t pkey;
	uint16_t qos_class;
};

/*
 * The QoS level of a path request from end s to end d of v (end indices
 * as sa/scope.h: past f->nports a vport), or of a multicast group's
 * P_Key (s and d FABRIC_NONE: rules naming port groups do not match).
 * NULL when qos is off or there is no policy file.
 */
const struct qos_level *sa_sl_level(const struct sa_view *v, uint32_t s,
    uint32_t d, const struct sa_sl_req *r);

/*
 * The SL of a path or group with level lvl (sa_sl_level's, may be NULL)
 * and P_Key pkey (0: none), sl_given/sl the request's SL component.
 * Returns 0 to 15, or -1 when the request's SL contradicts the level's
 * (no path). See the top of this file for the order.
 */
int sa_sl_select(const struct sa_view *v, const struct qos_level *lvl,
    bool sl_given, uint8_t sl, uint16_t pkey);

/* The end ports of v's fabric (CA and router ports, switch port 0) in
 * port group g of v's QoS policy (partitions/qos.h qos_group_name()); 0
 * without a policy. For the log: what the groups resolve to. */
size_t sa_sl_group_ports(const struct sa_view *v, size_t g);

#endif
