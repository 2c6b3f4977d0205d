/*
 * MCMemberRecord (0x38): Get, GetTable, Set (create or join) and Delete
 * (leave) over the multicast group store (mcast/group.h), with the rules
 * of sa/mcrules.h; and the groups partitions.conf pre-creates
 * (sa/mcpolicy.h), kept in step with the policy of each view.
 *
 * The store is struct sa_opts' mcast (sm/'s, which builds the trees); when
 * that is NULL the module keeps one of its own (unit tests, the fuzzer, a
 * daemon without multicast programming). After every change of an MLID's
 * members or of their JoinStates (send-only members receive nothing: the
 * tree depends on them), and every create or delete, sa_opts'
 * mcast_changed is called with the MLID.
 *
 * At each new view: MLIDs are bounded by the smallest MulticastFDBCap of
 * the switches; when the policy changed (or at the first view), the
 * groups it names are created, or updated if they were pre-created
 * before, and marked well-known, and pre-created groups it no longer
 * names lose that mark (and go, when no full member is left); members of
 * ports that left the fabric are forgotten; and every port that holds a
 * broadcast group's P_Key but cannot take its MTU or rate is logged, once
 * per change of that list.
 *
 * Traps 66 (group created) and 67 (group deleted) go to InformInfo
 * subscribers through sa_mcmember_trap().
 */
#ifndef IBSMD_SA_MCMEMBER_H
#define IBSMD_SA_MCMEMBER_H

#include <stdint.h>

#include "sa/attr.h"

extern const struct sa_attr sa_attr_mcmember;

struct mcast_store;

/* What the module counts (ibsmctl status, the stats file). */
struct sa_mcmember_stats {
	uint64_t joins, leaves;         /* answered with success */
	uint64_t creates;               /* groups created by a Set */
	uint64_t refused;               /* Set/Delete answered with an error */
	uint64_t traps;                 /* traps 66/67 raised */
	uint64_t unjoinable;            /* (broadcast group, port) pairs that
					 * can never join, last check */
};
void sa_mcmember_stats(struct sa *sa, struct sa_mcmember_stats *st);

/* The store the SA uses now (sm/'s, or the module's own). */
struct mcast_store *sa_mcmember_store(struct sa *sa);

/* For unit tests: the module's state without an SA agent, and its view
 * hook; handlers take it as their context's state. */
void *sa_mcmember_state_new(const struct sa_opts *o);
void sa_mcmember_state_free(void *state);
void sa_mcmember_state_view(void *state, const struct sa_view *old,
    const struct sa_view *v);

#endif
