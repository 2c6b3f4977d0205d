/*
 * The multicast groups partitions.conf pre-creates, and the ports that
 * could never join them. Pure: a policy (and a view) in, a list out.
 *
 * The ipoib flag of a partition pre-creates its IPv4 broadcast group
 * ff1S:401b:<P_Key | 0x8000>::ffff:ffff, one per scope S of the
 * partition (scope=, default 2), with its mtu, rate, sl, Q_Key (default
 * 0x0b1b), TClass and FlowLabel; each mgid= line pre-creates its group,
 * one per scope. As OpenSM (osm_prtn_config.c), the ipoib flag creates no
 * IPv6 group: IPoIB creates ff12:601b:... itself with a full create mask,
 * copying the broadcast group's parameters. HopLimit is 0 for link-local
 * groups, 0xFF otherwise (OpenSM's osm_prtn_add_mcgroup). A file without
 * ipoib anywhere has no broadcast group, as OpenSM: IPoIB stays down.
 */
#ifndef IBSMD_SA_MCPOLICY_H
#define IBSMD_SA_MCPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sa/sa.h"

struct pkey_policy;

struct mcpolicy_group {
	uint8_t mgid[16];
	uint16_t pkey;          /* the partition's, membership bit set */
	uint32_t qkey;
	uint8_t mtu, rate, sl, tclass, scope, hop_limit;
	uint32_t flow_label;
	bool broadcast;         /* the ipoib flag's IPv4 broadcast group */
	unsigned line;          /* of the partition (broadcast) or mgid= */
};

/* Every group the policy pre-creates, in partition order; *out is
 * malloc'd (NULL when there are none). A policy of NULL has none. */
size_t mcpolicy_groups(const struct pkey_policy *p,
    struct mcpolicy_group **out);

/*
 * Ports of the view that hold a broadcast group's P_Key but cannot take
 * its MTU (NeighborMTU) or rate: their IPoIB would never come up. cb is
 * called once per such (group, port) with a sentence naming both.
 * Returns the number of such pairs.
 */
size_t mcpolicy_check_ports(const struct sa_view *v,
    const struct mcpolicy_group *g, size_t n,
    void (*cb)(void *arg, const char *line), void *arg);

/* A port's active rate as an IBA rate code (the fastest code not above
 * its width x speed), 0 when unknown. */
uint8_t mcpolicy_port_rate(const struct fabric_port *p);

#endif
