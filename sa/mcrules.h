/*
 * MCMemberRecord (SA attribute 0x38): the record codec and the rules a
 * create, join, leave or query must pass, as pure functions of records
 * and port capabilities (sa/mcmember.c serves the attribute with them).
 *
 * Rules, as IBA 15.2.5.17 and OpenSM (osm_sa_mcmember_record.c):
 * - Set and Delete need MGID, PortGID and JoinState (else
 *   INSUFFICIENT_COMPONENTS); an MTU or rate given with its selector must
 *   be a code IBA defines (else REQ_INVALID).
 * - A Set naming an unknown MGID creates the group: JoinState must hold
 *   Full or SendOnlyFull, the mask must also give Q_Key, TClass, P_Key,
 *   FlowLabel and SL, MGID 0 gets an SA-assigned ff1S:a01b:<prefix>::<n>,
 *   an IPoIB-signature MGID other than the IPv4 broadcast one needs the
 *   partition's broadcast group of the same scope and must match its
 *   parameters; MTU and rate follow their selectors from the creator
 *   port's NeighborMTU and rate.
 * - A join must match the group in every component it gives, its port's
 *   NeighborMTU and rate must reach the group's, the port must hold the
 *   group's P_Key, and a requester joining another port (proxy) must
 *   share a partition with it. Only the port itself (or, for a proxy
 *   member, a port of the group's partition) may change a membership.
 * - A leave clears JoinState bits the member has (and only those).
 * - Queries see only groups whose P_Key the requester holds; PortGID,
 *   JoinState and ProxyJoin are given only to trusted requesters.
 */
#ifndef IBSMD_SA_MCRULES_H
#define IBSMD_SA_MCRULES_H

#include <stdbool.h>
#include <stdint.h>

#include "sa/attr.h"

#define SA_MCMEMBER_REC_SIZE    56

/* Component mask bits (IBA table 205). */
enum {
	MCM_C_MGID, MCM_C_PORT_GID, MCM_C_QKEY, MCM_C_MLID, MCM_C_MTU_SEL,
	MCM_C_MTU, MCM_C_TCLASS, MCM_C_PKEY, MCM_C_RATE_SEL, MCM_C_RATE,
	MCM_C_LIFE_SEL, MCM_C_LIFE, MCM_C_SL, MCM_C_FLOW, MCM_C_HOP,
	MCM_C_SCOPE, MCM_C_JOIN_STATE, MCM_C_PROXY,
};
#define MCM_BIT(c)      (UINT64_C(1) << (c))
#define MCM_JOIN_MASK   (MCM_BIT(MCM_C_MGID) | MCM_BIT(MCM_C_PORT_GID) | \
	MCM_BIT(MCM_C_JOIN_STATE))
#define MCM_CREATE_MASK (MCM_JOIN_MASK | MCM_BIT(MCM_C_QKEY) | \
	MCM_BIT(MCM_C_TCLASS) | MCM_BIT(MCM_C_PKEY) | MCM_BIT(MCM_C_FLOW) | \
	MCM_BIT(MCM_C_SL))

/* JoinState bits. */
enum {
	MCM_JOIN_FULL = 0x1, MCM_JOIN_NON = 0x2, MCM_JOIN_SEND_ONLY_NON = 0x4,
	MCM_JOIN_SEND_ONLY_FULL = 0x8,
};

/* Path selectors: greater than, less than, exactly, largest available. */
enum { MCM_SEL_GT, MCM_SEL_LT, MCM_SEL_EQ, MCM_SEL_MAX };

/* The record, decoded (host order). */
struct mcmember_rec {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu;           /* 2 + 6 bits */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate;         /* 2 + 6 bits */
	uint8_t life_sel, life;         /* 2 + 6 bits */
	uint8_t sl;                     /* 4 bits */
	uint32_t flow_label;            /* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;                  /* 4 bits */
	uint8_t join_state;             /* 4 bits */
	bool proxy;                     /* ProxyJoin (IBA bit 392) */
};

void mcmember_decode(const uint8_t *b, struct mcmember_rec *r);
/* Writes all 56 bytes (reserved ones zero). */
void mcmember_encode(const struct mcmember_rec *r, uint8_t *b);

/* ---- rules (pure) */

/* Rate codes ordered by bandwidth: the code's nominal Gb/s x 10 (2.5
 * Gb/s -> 25), 0 for a code IBA does not define. */
unsigned mcmember_rate_tenths(uint8_t rate);
bool mcmember_mtu_valid(uint8_t mtu);

/* Set or Delete: the components every join or leave needs, and the MTU
 * and rate codes if given. Returns an SA status. */
unsigned mcmember_check_request(uint64_t mask, const struct mcmember_rec *r);

/* A create (unknown MGID): JoinState, create components, P_Key and the
 * MGID's form (0xFF prefix, reserved flags clear, the SA signature 0xA01B
 * never link-local; an MGID of all zeros asks the SA for one). Returns an
 * SA status. */
unsigned mcmember_check_create(uint64_t mask, const struct mcmember_rec *r);

/* The MTU and rate of a group created by r from a port whose NeighborMTU
 * is port_mtu and rate code port_rate (0: unknown), in g->mtu and
 * g->rate (selector: exactly). false: not realizable (REQ_INVALID). */
bool mcmember_realize(uint64_t mask, const struct mcmember_rec *r,
    uint8_t port_mtu, uint8_t port_rate, struct mcmember_rec *g);

/* Whether the components of r that mask gives match the group g (its
 * parameters as a record): Q_Key, P_Key (base equal, not both limited),
 * TClass, SL, FlowLabel, HopLimit, and, with selectors (a query), MTU,
 * rate and PacketLifeTime by their selectors. A join or an IPoIB group's
 * check against its broadcast group goes without (as OpenSM: a joiner's
 * MTU and rate are held against its port's instead, and a group created
 * with a PacketLifeTime selector can be joined again with the same
 * components). MGID, PortGID, MLID, JoinState, Scope and ProxyJoin are
 * the caller's. */
bool mcmember_params_match(uint64_t mask, bool selectors,
    const struct mcmember_rec *r,
    const struct mcmember_rec *g);

/* Whether a port with NeighborMTU port_mtu and rate code port_rate can
 * take the group g's MTU and rate. */
bool mcmember_port_can_join(const struct mcmember_rec *g, uint8_t port_mtu,
    uint8_t port_rate);

/* A leave of bits from a member holding have: at least one bit in
 * common, none it does not have. */
bool mcmember_leave_ok(uint8_t bits, uint8_t have);

/* IPoIB MGIDs (signature 0x401B or 0x601B in bytes 2-3). If mgid is one
 * and not the IPv4 broadcast group itself, bcast receives the IPv4
 * broadcast MGID of the same scope and P_Key and the function returns
 * true: a create of mgid needs that group. */
bool mcmember_ipoib_needs_bcast(const uint8_t mgid[16], uint8_t bcast[16]);
/* The IPv4 broadcast MGID of P_Key pkey (0x8000 forced) and scope. */
void mcmember_bcast_mgid(uint8_t mgid[16], uint16_t pkey, uint8_t scope);

#endif
