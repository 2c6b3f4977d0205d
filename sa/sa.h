/*
 * Subnet Administration: the SA agent on QP1 of the SM's port (management
 * class 0x03, version 2, RMPP). It answers only while this SM is master
 * and its first sweep is done, from the fabric model, forwarding tables
 * and P_Key tables of the last completed heavy sweep (a view sm/ hands
 * over), never from the wire. Requests are answered on the loop, at once:
 * no answer waits for a sweep.
 *
 * sm/ calls: sa_new() once the MAD engine exists; sa_set_view() after each
 * heavy sweep that programmed; sa_set_serving() when mastership changes;
 * sa_set_opts() on reload; sa_ports_changed() with the end ports that came
 * and went (GID in/out of service reports).
 */
#ifndef IBSMD_SA_H
#define IBSMD_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct alias_store;
struct devtab;
struct vport_set;
struct pkey_table;
struct ev_loop;
struct fabric;
struct lft_set;
struct mad_engine;
struct mcast_store;
struct mcast_mft;
struct pkey_policy;
struct pkey_tables;
struct qos_policy;
struct sa;

/* The SL of PathRecords and pre-created multicast groups with qos off,
 * whatever a partition's sl= says: no SL-to-VL mapping is programmed, so
 * any other SL goes to whatever VL the firmware's default maps it to.
 * With qos on, sa/slsel.h chooses. */
#define SA_SL_NO_QOS 0

/* The HopLimit of PathRecords to and from a vport that shares a LID (its
 * PF's): above 1, so that clients send with a GRH, whose DGID is what the
 * adapter tells the vport by. NVIDIA's SM default for vport ends. */
#define SA_VPORT_HOP_LIMIT 2

/* One SM known on the subnet, for SMInfoRecord (this SM is one of them). */
struct sa_sm {
	uint16_t lid;
	uint64_t guid;          /* port GUID */
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;
	uint8_t state;          /* SMInfo SMState: 1 discovering, 2 standby,
				 * 3 master */
};

/*
 * What the SA answers from. Everything is owned by sm/ and stays valid and
 * unchanged until the next sa_set_view() or sa_free(); the SA copies
 * nothing but the small fields.
 */
struct sa_view {
	const struct fabric *f;         /* LIDs assigned, PortInfo as read */
	const struct lft_set *lft;      /* switch indices refer to f */
	/* A VL-layered routing's SL for the route from slid to dlid (its
	 * layer: OpenSM's path_sl), or -1 when the routing has one layer
	 * and the SL is the SA's own choice (sa/slsel.h). NULL: -1. sm/
	 * sets it (sa/ does not see routing/). */
	int (*path_sl)(const void *arg, uint16_t slid, uint16_t dlid);
	const void *path_sl_arg;
	const struct pkey_tables *pk;   /* tables in effect; NULL: partitions
					 * not managed (every port shares
					 * every other's default key) */
	const struct pkey_policy *policy; /* partitions.conf in effect (SL,
					 * groups); NULL: none */
	uint64_t subnet_prefix;         /* host order */
	uint16_t sm_lid;
	const struct sa_sm *sms;        /* this SM first */
	size_t nsms;
	/* VF alias GUIDs (virtualization.mode enabled; NULL: not served,
	 * GUIDInfoRecord Set and Delete are denied). Owned by sm/, which
	 * also fills in what devices hold; the SA assigns and releases
	 * entries in it, then calls alias_changed for the end port (index in
	 * f) and GUIDInfo block whose assignment changed: sm/ saves the
	 * store and programs the device. */
	struct alias_store *alias;
	void (*alias_changed)(void *arg, uint32_t port, unsigned block);
	void *alias_arg;
	/* vports (vSwitch SR-IOV; NULL: none). An end index past the
	 * fabric's ports, f->nports + i, names vport i of the set: it
	 * answers to its own LID and GUID, is reached through its physical
	 * port, and is scoped by its own table vport_pk[i] (cap 0: not
	 * managed, shares with everyone as an unknown table does). */
	const struct vport_set *vports;
	const struct pkey_table *vport_pk;
	/* Tables read from the devices (SL-to-VL, VL arbitration, the P_Key
	 * tables of switch ports pk does not program; NULL: none; sm/ adds
	 * to it in place as reads arrive, the SA reads it at each request),
	 * and
	 * whether pk's tables of switch ports facing CAs are programmed
	 * (partition enforcement not off). */
	const struct devtab *devtab;
	bool enforce_tables;
	/* QoS (issue 27 point 2; sa/slsel.h): qos on, and the QoS policy
	 * in effect (NULL: no policy file, partitions' sl= only). */
	bool qos;
	const struct qos_policy *qos_policy;
};

struct sa_opts {
	uint64_t sa_key;                /* SM_Key of trusted requests */
	uint8_t subnet_timeout;         /* PathRecord PacketLifeTime code */
	unsigned service_lease;         /* seconds; a ServiceRecord Set with
					 * lease 0 gets this ... see sa/service */
	unsigned report_timeout_ms;     /* one Report attempt */
	unsigned report_retries;
	/* Multicast: the group store (owned by sm/, lives as long as the
	 * daemon; NULL: the SA keeps a store of its own, and no tree is
	 * built), and the hook the SA calls, on the loop, after each join,
	 * leave or create/delete that changed the members of an MLID or
	 * their JoinStates (sm/ recomputes that MLID's tree and writes the
	 * MFT blocks that changed, without a sweep). */
	struct mcast_store *mcast;
	void (*mcast_changed)(void *arg, uint16_t mlid);
	void *mcast_arg;
	/* MulticastForwardingTableRecord: the table the trees give the
	 * switch of that node GUID (called with mcast_arg; NULL, or NULL
	 * returned: the switch has no multicast entry). */
	const struct mcast_mft *(*mcast_mft)(void *arg, uint64_t node_guid);
};

struct sa *sa_new(struct ev_loop *loop, struct mad_engine *mad,
    const struct sa_opts *o);
void sa_free(struct sa *sa);
/* Register the SA agent (class 0x03 v2, RMPP) and its listeners. Returns
 * 0, or -1 with a logged reason. */
int sa_start(struct sa *sa);
void sa_set_opts(struct sa *sa, const struct sa_opts *o);
/* v NULL: no view (before the first sweep); copied shallowly. */
void sa_set_view(struct sa *sa, const struct sa_view *v);
/* Master with a view: answer. Otherwise every request is dropped
 * (counted), as OpenSM does, and requesters time out. */
void sa_set_serving(struct sa *sa, bool serving);
/* Whether requests are answered now (serving, with a view). */
bool sa_is_serving(const struct sa *sa);

/* Distinct (attribute, status) pairs of answers counted one by one. */
#define SA_ANSWER_KINDS 64

/* Counters for ibsmctl status and the stats file (SA-specific; per
 * attribute and method counts are the MAD engine's). */
struct sa_stats {
	uint64_t requests;      /* requests received */
	uint64_t answered;      /* replies sent (any status) */
	uint64_t errors;        /* replies with a nonzero status */
	uint64_t not_serving;   /* dropped: not master / no view yet */
	uint64_t bad_key;       /* dropped: wrong nonzero SM_Key */
	uint64_t malformed;     /* dropped: too short, bad version ... */
	uint64_t unsupported;   /* answered 0x0008 or 0x000C: method, or
				 * attribute with that method, not served */
	uint64_t dropped;       /* dropped by a handler (SA_STATUS_DROP) */
	uint64_t answer_max_us; /* slowest answer, receive to send */
	uint64_t reports_sent, reports_acked, reports_failed;
	uint64_t services, subscriptions;       /* now held */
	/* answers sent by (attribute, status), in the order first seen;
	 * pairs beyond the table counted in answers_other */
	struct sa_answer_count {
		uint16_t attr, status;
		uint64_t n;
	} answers[SA_ANSWER_KINDS];
	unsigned nanswers;
	uint64_t answers_other;
};
void sa_get_stats(const struct sa *sa, struct sa_stats *st);

#endif
