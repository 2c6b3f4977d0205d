/*
 * PathRecord (0x35: Get, GetTable) and MultiPathRecord (0x3A: GetMulti,
 * answered with PathRecords). A path from end port s to LID d is the
 * route the forwarding tables of the view take, walked hop by hop:
 *   MTU   the smallest MTUCap of the source, of each switch's ingress and
 *         egress port and of the destination;
 *   rate  the slowest active width x speed of those ports, as a rate code;
 *   life  subnet_timeout (0 on a loopback path);
 *   P_Key the requested one if both ends hold it and one fully, else the
 *         lowest key they share; requester, source and destination must
 *         share partitions pairwise or the pair gives no path;
 *   SL    sa/slsel.h: with qos off the requested one, else 0; with qos
 *         on, the QoS policy's level, whose MTU, rate and packet-life
 *         limits and P_Keys bound the path too, then the partition's sl=.
 * Reversible when the reverse route arrives too. Selectors (>, <, =,
 * best) on MTU, rate and PacketLifeTime as IBA and OpenSM. An unknown or
 * foreign-prefix GID is answered ERR_REQ_INVALID_GID; an unknown LID
 * gives no records.
 *
 * Each module keeps a port GUID -> end port index, rebuilt when the view
 * changes: a query naming both ends costs two hash or LID lookups and two
 * walks (forward and reverse), independent of the fabric's size.
 */
#ifndef IBSMD_SA_PATH_H
#define IBSMD_SA_PATH_H

#include <stdint.h>

#include "sa/attr.h"

extern const struct sa_attr sa_attr_path_record;
extern const struct sa_attr sa_attr_multipath_record;

/* Work done by a module since its init, for tests and benchmarks. */
struct sa_path_counters {
	uint64_t pairs;         /* (source, destination) port pairs tried */
	uint64_t walks;         /* LFT walks */
	uint64_t hops;          /* hops visited by those walks */
};
void sa_path_counters(const void *state, struct sa_path_counters *c);

#endif
