/*
 * Discovery: a directed-route sweep of the whole fabric into a fabric
 * model. NodeInfo through every up port whose peer is unknown,
 * NodeDescription of every node, SwitchInfo of every switch (clearing its
 * PortStateChange), PortInfo of every switch port and every reached CA
 * port (and, when asked, GUIDInfo of alias-capable CA ports). Fully asynchronous: driven by MAD completions.
 */
#ifndef IBSMD_DISCOVER_H
#define IBSMD_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fabric.h"

struct mad_engine;
struct discovery;

struct discover_result {
	int ok;                 /* the SM's own port was found and is up */
	char why[160];          /* when !ok */
	unsigned timeouts;      /* SMPs that got no answer in any round */
	unsigned errors;        /* SMPs answered with an error status */
	unsigned resent;        /* SMPs sent again after a round unanswered */
};

/* An SMP that got no answer after the engine's retries is sent again, up
 * to this many times in all: on a lossy fabric one lost SMP is a node
 * missing from the subnet, and another round costs little (a dead node
 * costs this many rounds once, then one per request). */
#define DISCOVER_ROUNDS 8

typedef void (*discover_done_cb)(void *arg, const struct discover_result *r);

/* Start discovering into f (initialised, empty). done is called once from
 * the loop when every request has completed. passive: Gets only (an SM
 * that is not master writes nothing, not even a PortStateChange clear). */
struct discovery *discover_start(struct mad_engine *mad, struct fabric *f,
    bool passive, discover_done_cb done, void *arg);
/* Abandon a discovery in progress: done is not called; requests still
 * outstanding complete into nothing. */
void discover_abort(struct discovery *d);

/* VF alias GUIDs (virtualization.mode enabled only): also read the
 * GUIDInfo table of every CA port reached whose PortInfo GUIDCap is above
 * 1 (every block of it), into alias's device view (alias_device_put). A
 * failed read leaves that port's view unknown. Call right after
 * discover_start, before the loop runs; NULL (the default) reads none. */
struct alias_store;
void discover_set_alias(struct discovery *d, struct alias_store *alias);

/* The P_Key tables the devices hold, where this SM has programmed none
 * yet (a start, a takeover): also read every block of the P_Key table of
 * each end port reached (CA ports, switch port 0; PartitionCap entries)
 * into out (appended, unsorted: pkey_tables_sort() it), so that the keys
 * in place keep their indices. A block not read stays empty. out must
 * outlive the discovery; NULL (the default) reads none. */
struct pkey_tables;
void discover_set_pkeys(struct discovery *d, struct pkey_tables *out);

/* What a discovery left unknown in f, so that a sweep that lost an SMP is
 * never taken for a whole fabric: a switch whose SwitchInfo was not read, a
 * port (of a switch, or a CA port reached) whose PortInfo was not read, or
 * a port that is up but whose peer was not reached; once the silent parts
 * are kept from the model in use (core/graft.h), a node kept (one hole
 * for the node) or a port kept. */
enum discover_hole_kind { HOLE_SWITCH_INFO, HOLE_PORT_INFO, HOLE_PEER,
			  HOLE_KEPT };

struct discover_hole {
	uint32_t node;
	uint8_t port;
	enum discover_hole_kind kind;
};

/* Calls cb (may be NULL) for each hole of f in node and port order and
 * returns how many there are. */
unsigned discover_holes(const struct fabric *f,
    void (*cb)(void *arg, const struct discover_hole *h), void *arg);
/* One line naming the hole: description, node GUID, port, what is
 * missing. */
void discover_hole_text(const struct fabric *f, const struct discover_hole *h,
    char *buf, size_t len);

#endif
