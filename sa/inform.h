/*
 * Event forwarding: InformInfo (0x03) Set subscribes a port to traps and
 * unsubscribes it, InformInfoRecord (0xF3) Get/GetTable lists the
 * subscriptions, and Reports (method 0x06, attribute Notice 0x0002) carry
 * every notice the SM raises to each subscriber that asked for it, sent
 * again until a ReportResp comes or the retries run out.
 *
 * Rules (as OpenSM's): a subscription is kept with the requester's address
 * (LID, source QPN, SL, P_Key index); SubscriberGID is the requester's
 * port GID; Subscribe values above 1 and, from an untrusted requester, the
 * security traps 256-259 are refused (REQ_INVALID); the ports a
 * subscription names (GID, or a LID range other than 0xFFFF) must share a
 * partition with the requester. A notice goes to a subscriber when it
 * matches GID or LID range, IsGeneric, Type, TrapNumber/DeviceID and
 * ProducerType/VendorID (0xFFFF, 0xFFFFFF: any) and the subscriber shares
 * a partition with the notice's source.
 *
 * The SM raises traps 64 (GID in service) and 65 (GID out of service) for
 * every end port that comes or goes between two views. Subscriptions of a
 * port that leaves the fabric are dropped.
 */
#ifndef IBSMD_SA_INFORM_H
#define IBSMD_SA_INFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "sa/attr.h"

#define SA_INFORM_SIZE          36      /* InformInfo */
#define SA_INFORM_REC_SIZE      64      /* InformInfoRecord */
#define SA_NOTICE_SIZE          80      /* Notice, IssuerGID included */
#define SA_NOTICE_SMP_SIZE      64      /* a Notice in an SMP: no IssuerGID */
#define SA_NOTICE_DETAILS       54

/* Traps the SM issues (IBA 14.2.5.1). */
enum { SA_TRAP_GID_IN = 64, SA_TRAP_GID_OUT = 65, SA_TRAP_MGID_NEW = 66,
       SA_TRAP_MGID_GONE = 67 };

/* Bounds: subscriptions held, Reports in flight overall and to one
 * subscriber, and rounds of the MAD engine's retries per Report. */
#define SA_INFORM_MAX           16384
#define SA_INFORM_MAX_PER_PORT  64
#define SA_REPORT_MAX_INFLIGHT  1024
#define SA_REPORT_MAX_PER_SUB   32
#define SA_REPORT_ROUNDS        3

/* InformInfo, decoded. Generic subscriptions use trap and producer,
 * vendor ones read them as DeviceID and VendorID. */
struct sa_inform {
	uint8_t gid[16];
	uint16_t lid_begin, lid_end;
	uint8_t is_generic;
	uint8_t subscribe;
	uint16_t type;
	uint16_t trap;
	uint32_t qpn;           /* 24 bits */
	uint8_t resp_time;      /* 5 bits */
	uint32_t producer;      /* 24 bits */
};
void sa_inform_decode(const uint8_t *b, struct sa_inform *ii);
void sa_inform_encode(const struct sa_inform *ii, uint8_t *b);

/* A Notice (IBA 13.4.8.2). */
struct sa_notice {
	bool generic;
	uint8_t type;           /* 7 bits: 4 subnet management ... */
	uint32_t producer;      /* 24 bits: ProducerType or VendorID */
	uint16_t trap;          /* TrapNumber or DeviceID */
	uint16_t issuer_lid;
	uint16_t toggle_count;
	uint8_t details[SA_NOTICE_DETAILS];
	uint8_t issuer_gid[16];
	/* Not on the wire: for traps 66/67, the group's P_Key a subscriber
	 * must hold (0: check partition sharing with the source port). */
	uint16_t group_pkey;
};
void sa_notice_encode(const struct sa_notice *n, uint8_t *b);
void sa_notice_decode(const uint8_t *b, struct sa_notice *n);

/* Report n to every matching subscriber, in the view in use. */
void sa_inform_notice(struct sa *sa, const struct sa_notice *n);
/* A trap the SM issues about a GID (64-67): generic, type 4, producer 4
 * (class manager), the SM's LID and GID as issuer, the GID in the
 * details (bytes 6-21). group_pkey as in struct sa_notice. */
void sa_inform_gid_trap(struct sa *sa, uint16_t trap, const uint8_t gid[16],
    uint16_t group_pkey);

/* A trap the SM received (an SMP Notice, SA_NOTICE_SMP_SIZE bytes: no
 * IssuerGID) from source LID slid (0: the SM's own port): reported to the
 * matching subscribers with the IssuerGID of the port at slid, as OpenSM
 * does (trap 144 to srp_daemon, for one). Traps 129-131 are not. */
void sa_inform_trap(struct sa *sa, const uint8_t *smp_notice, uint16_t slid);

extern const struct sa_attr sa_attr_inform;
extern const struct sa_attr sa_attr_inform_rec;

/* One subscription as ibsmctl shows it. */
struct sa_subscription_info {
	uint8_t subscriber_gid[16];
	uint16_t enumv;
	uint16_t lid;           /* Reports go to this LID and QPN */
	uint32_t qpn;
	struct sa_inform ii;
	uint64_t reports_sent, reports_acked, reports_failed;
};
void sa_informs_foreach(struct sa *sa,
    void (*cb)(void *arg, const struct sa_subscription_info *si), void *arg);
/* Fill st's subscriptions and reports_* counters. */
void sa_inform_stats(struct sa *sa, struct sa_stats *st);

/* For unit tests: the module state without an SA, sending through mad
 * (NULL: Reports are counted as failed, not sent). */
void *sa_inform_state_new(struct ev_loop *loop, struct mad_engine *mad);
void sa_inform_state_free(void *state);
void sa_inform_state_notice(void *state, const struct sa_view *v,
    const struct sa_notice *n);
void sa_inform_state_trap(void *state, const struct sa_view *v,
    const uint8_t *smp_notice, uint16_t slid);
void sa_inform_state_foreach(void *state,
    void (*cb)(void *arg, const struct sa_subscription_info *si), void *arg);
void sa_inform_state_stats(void *state, struct sa_stats *st);

#endif
