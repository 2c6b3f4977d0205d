/*
 * A fake fabric for unit tests: in-memory devices (switches and CAs with
 * NodeInfo, NodeDescription, PortInfo, SwitchInfo, LFT and P_Key tables,
 * GUIDInfo Get)
 * that answer the SMPs the fake transport (fake_transport.c) has seen, as
 * the subnet management agents of a real fabric would.
 *
 * Directed route follows IBA 14.2.2: the SMP leaves the SM's node through
 * InitialPath[1], each switch forwards it through InitialPath[hop], only
 * switches forward, every egress must have its link up (PhysState LinkUp on
 * both ends), and the response comes back with the D bit set, HopPointer 0
 * and ReturnPath[1..n] holding the port each hop received it on. LID routing
 * walks the switches' LFTs from the SM's node (every link on the way
 * ACTIVE, the LID within LinearFDBTop). An SMP that cannot be delivered is
 * reported to the sender as timed out at once (a kernel reports it when
 * the request's timeout has run out).
 *
 * Devices start as ibsim starts them: cabled ports INIT/LinkUp, uncabled
 * ports DOWN/Polling, switch port 0 ACTIVE, every switch's PortStateChange
 * set, LFTs empty (0xFF) with LinearFDBTop 0, LIDs 0, P_Key tables holding
 * 0xFFFF at index 0.
 *
 * Every SMP served is logged (what, to whom, with which outcome), so tests
 * assert on exactly what was read and written. Rules make chosen SMPs go
 * unanswered (the engine's timer expires), time out at once, or answer with
 * an error status.
 */
#ifndef IBSMD_FAKEFAB_H
#define IBSMD_FAKEFAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

struct ev_loop;

#define FAKEFAB_LFT_CAP         0xC000  /* LinearFDBCap of every switch */
#define FAKEFAB_CA_PKEYS        64      /* CA PartitionCap: 2 blocks */
#define FAKEFAB_SW_PKEYS        8       /* switch port 0 PartitionCap */
#define FAKEFAB_ENFORCE_PKEYS   64      /* PartitionEnforcementCap */

struct fakefab_port {
	uint64_t guid;          /* port GUID (switches: the node's) */
	uint32_t peer_node;     /* FABRIC_NONE: no cable */
	uint8_t peer_port;
	uint8_t info[64];       /* PortInfo as the device holds it */
	uint16_t pkey_cap;      /* P_Key table entries */
	uint16_t *pkeys;        /* [pkey_cap] */
	/* GUIDInfo (Get only) of CA ports: entry 0 the port GUID, entries
	 * 1..GUIDCap-1 from here when a test sets it (else 0); GUIDCap is
	 * PortInfo's, 1 unless a test changes info. */
	const uint64_t *alias;  /* [GUIDCap] or NULL */
};

struct fakefab_node {
	uint64_t guid;
	uint8_t type;           /* enum node_type */
	uint8_t nports;
	uint8_t node_info[64];  /* as answered (LocalPortNum filled per SMP) */
	char desc[64];
	uint8_t sw_info[64];    /* switches */
	uint8_t *lft;           /* switches: [FAKEFAB_LFT_CAP] */
	struct fakefab_port *ports;     /* [nports + 1], port 0 included */
};

/* What happened to one SMP. */
enum fakefab_outcome {
	FAKEFAB_ANSWERED,       /* a GetResp went back (status may be set) */
	FAKEFAB_DROPPED,        /* a rule: no answer at all */
	FAKEFAB_TIMEDOUT,       /* a rule: reported timed out at once
				 * (FAKEFAB_LOST_ANSWER: after the device
				 * took it) */
	FAKEFAB_UNDELIVERABLE,  /* no route to a device: timed out at once */
	FAKEFAB_MALFORMED,      /* not a request an SMA would take */
};

struct fakefab_smp {
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	bool dr;
	uint8_t hops;           /* DR hop count */
	uint8_t path[FABRIC_DR_MAX];    /* DR InitialPath, [0] unused */
	uint16_t dlid;          /* LID routed */
	uint32_t node;          /* device reached, FABRIC_NONE if none */
	uint8_t port;           /* port it entered that device through */
	uint8_t outcome;        /* enum fakefab_outcome */
	uint16_t status;        /* MAD status answered */
	uint8_t data[64];       /* the request's data */
};

/* Which SMPs a rule applies to; FAKEFAB_ANY in a field matches anything. */
#define FAKEFAB_ANY     (-1)
struct fakefab_match {
	int method;
	int attr;
	int64_t mod;
	int64_t node;           /* index of the device the SMP would reach */
	int hops;               /* DR hop count (LID routed: never matches
				 * a value other than FAKEFAB_ANY) */
};

enum fakefab_action {
	FAKEFAB_DROP,           /* never answer: the engine's timer fires */
	FAKEFAB_TIMEOUT,        /* report the send as timed out at once */
	FAKEFAB_ERROR,          /* answer with the rule's status */
	FAKEFAB_LOST_ANSWER,    /* the device takes the SMP, but its answer
				 * is lost: reported timed out at once */
};

struct fakefab {
	struct fakefab_node *nodes;
	uint32_t nnodes;
	uint32_t sm_node;       /* where the SM's port is */
	uint8_t sm_port;
	/* the log */
	struct fakefab_smp *log;
	size_t nlog, log_cap;
	/* private: rules and the fake transport's send list cursor */
	struct fakefab_rule *rules;
	size_t nrules;
	size_t cursor;
};

/* Devices for the topology of f (node types, port counts, GUIDs, cables;
 * testfab.h builds such fabrics), the SM on port sm_port of CA sm_node.
 * Node i of the fake fabric is node i of f. */
struct fakefab *fakefab_new(const struct fabric *f, uint32_t sm_node,
    uint8_t sm_port);
void fakefab_free(struct fakefab *ff);

/* Start from the first MAD of a transport opened afresh (a new engine). */
void fakefab_attach(struct fakefab *ff);

/* Answer every MAD sent since the last call, in order, including those
 * sent by completions of earlier answers. Returns how many were served. */
size_t fakefab_serve(struct fakefab *ff);
/* The same, stopping after max MADs. */
size_t fakefab_serve_n(struct fakefab *ff, size_t max);

/* Serve and run loop until done(arg) holds or secs have passed (a safety
 * net for broken code, never a measurement). Returns done(arg). */
bool fakefab_run(struct fakefab *ff, struct ev_loop *loop,
    bool (*done)(void *arg), void *arg, double secs);

/* Add a rule; the first rule that matches an SMP decides. times: how many
 * SMPs it applies to before it is spent (0: forever). */
struct fakefab_match fakefab_match_any(void);
void fakefab_rule(struct fakefab *ff, const struct fakefab_match *m,
    enum fakefab_action action, uint16_t status, unsigned times);
void fakefab_clear_rules(struct fakefab *ff);

/* The log. */
void fakefab_clear_log(struct fakefab *ff);
/* SMPs logged with this method and attribute (FAKEFAB_ANY allowed) and
 * outcome FAKEFAB_ANSWERED with status 0. */
size_t fakefab_count(const struct fakefab *ff, int method, int attr);
/* SMPs logged with an outcome other than FAKEFAB_ANSWERED, or with a
 * nonzero status. */
size_t fakefab_failed(const struct fakefab *ff);

/* Device helpers. */
uint32_t fakefab_node_by_guid(const struct fakefab *ff, uint64_t guid);
uint8_t fakefab_port_state(const struct fakefab *ff, uint32_t n, uint8_t p);
uint16_t fakefab_port_lid(const struct fakefab *ff, uint32_t n, uint8_t p);
/* Take the cable on port p of node n down (both ends DOWN/Polling) or
 * bring it up again (both ends INIT/LinkUp); either way the switches at
 * its ends get PortStateChange set. */
void fakefab_link_down(struct fakefab *ff, uint32_t n, uint8_t p);
void fakefab_link_up(struct fakefab *ff, uint32_t n, uint8_t p);
/* Follow a directed route from the SM's node: the node reached and the
 * port it was entered through, or FABRIC_NONE. */
uint32_t fakefab_dr_route(const struct fakefab *ff, const struct dr_path *p,
    uint8_t *port);
/* Swap the device at index n for a new one with GUID guid (CA port k:
 * guid + k), as it powers on: LIDs 0, empty LFT, PortStateChange set,
 * default P_Key tables; the cables it takes over train again (INIT). */
void fakefab_replace(struct fakefab *ff, uint32_t n, uint64_t guid);
/* LID-route from the SM's node to dlid through the LFTs: the node and port
 * that own dlid, or FABRIC_NONE. */
uint32_t fakefab_lid_route(const struct fakefab *ff, uint16_t dlid,
    uint8_t *port);

#endif
