/*
 * What ibsmctl shows: the fabric model, paths through forwarding tables and
 * the daemon's figures, rendered as JSON or as aligned text tables. No I/O
 * and no daemon state beyond what the caller passes, so Check tests drive
 * it with in-memory fabrics; the control socket (ctl.c) gathers the inputs
 * and sends the result.
 *
 * Nodes and ports are named by a LID (decimal up to 65535, or hex of at
 * most four digits), a GUID (any other number: node GUID or port GUID) or
 * a node description (exact; must name one node).
 */
#ifndef IBSMD_SHOW_H
#define IBSMD_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/fabric.h"
#include "sm/json.h"
#include "mad/mad.h"
#include "partitions/partitions.h"
#include "routing/routing.h"
#include "sa/inform.h"
#include "sa/service.h"
#include "sa/mcmember.h"
#include "sa/sa.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/vfguid.h"
#include "sm/vports.h"

struct alias_store;

struct show_buf {
	char *p;                /* NUL-terminated once anything was added */
	size_t len, cap;
};

struct show {
	bool json;              /* render as JSON into j, else text */
	struct json j;
	struct show_buf text;
	struct show_buf err;    /* why the last call returned -1 */
};

void show_init(struct show *s, bool json);
void show_fini(struct show *s);

/* Append to the text answer / the error. Out of memory is fatal. */
void show_printf(struct show *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Returns -1, for "return show_error(...)". */
int show_error(struct show *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copy str into buf for a terminal: control characters and bytes that are
 * not valid UTF-8 become '?'; "" becomes "-". Returns buf (or "-"). */
const char *show_clean(const char *str, char *buf, size_t len);
/* Wall-clock seconds since the epoch as local ISO 8601 with the UTC offset
 * ("2026-11-23T16:45:12+0100"); a duration in seconds as "3.2 s", "4m 05s",
 * "2h 03m" or "5d 04h". */
void show_time(double t, char *buf, size_t len);
void show_duration(double s, char *buf, size_t len);

/* One MAD counter, names resolved; the engine lists them by class, then
 * method, then attribute. */
struct show_counter {
	char cls[16];           /* "smp", "sa"... */
	char method[32];
	char attr[32];
	struct mad_counter c;
};

struct show_status {
	const char *version;
	const char *sm_state;                   /* SMInfo's name */
	const struct smstate_status *sm;        /* NULL: not shown */
	const struct sminfo_counters *sminfo;   /* NULL: not shown */
	uint64_t port_guid;
	unsigned priority;
	const char *log_level;
	uint64_t traps;
	const struct sweep_status *sweep;
	const struct fabric *fabric;            /* NULL: not discovered yet */
	const struct route_report *report;      /* NULL: not routed yet */
	uint64_t mad_sent, mad_unmatched, mad_malformed, mad_unhandled;
	unsigned mad_outstanding, mad_queued, mad_max_queued;
	double mad_mean_in_flight;
	const struct show_counter *counters;
	size_t ncounters;
	/* Other modules' figures (multicast): called last, in JSON inside the
	 * status object (it adds keys), in text after the rest. NULL: none. */
	void (*more)(struct show *s, const void *arg);
	const void *more_arg;
	const struct sa_stats *sa;              /* NULL: no SA agent */
	bool sa_serving;
	const struct vfguid_stats *vfguid;      /* NULL: alias GUIDs off */
	const struct vports_result *vprog;      /* the last vport programming
						 * (NULL: none shown) */
	const struct sa_mcmember_stats *mcm;    /* NULL: none shown */
	double now;                             /* wall clock, s since the
						 * epoch (for "seen ... ago") */
	const char *note;                       /* the daemon's own ("last
						 * reload rejected..."), or
						 * NULL */
};

/* The status document: JSON, or its text (the same keys, indented). */
void show_status(struct show *s, const struct show_status *st);
/* The same document as the stats file: one "a.b.c value" line per value
 * (booleans 1 and 0, null "-"). */
void show_status_flat(const struct show_status *st, FILE *fp);

/* The master as this SM sees it: itself, the SM it stands by for or waits
 * on, or a peer that answered MASTER; none (known false) otherwise. */
struct show_master {
	bool known, self;
	uint64_t guid;
	uint16_t lid;
	uint8_t priority;
};
void show_master_of(const struct show_status *st, struct show_master *m);
/* Standbys this SM knows (peers that answered STANDBY). */
size_t show_standbys(const struct show_status *st);
/* The one line systemd's STATUS= shows: the state, the master, the subnet
 * or why it is not up, the fabric as last seen, the note. */
void show_status_line(const struct show_status *st, char *buf, size_t len);
/* Every node: type, GUID, LIDs, ports, name (node_name_map, else the
 * description). */
void show_nodes(struct show *s, const struct fabric *f);
/* The same for the nodes filter names: a LID, a GUID or a name gives one
 * node; a shell pattern (*, ?, [...]) every node whose name or
 * description matches. -1 with the reason when none does. */
int show_nodes_filter(struct show *s, const struct fabric *f,
    const char *filter);
/* The ports of the node named by what, or the one CA port it names, or
 * of every node a pattern matches (JSON: {"nodes": [{"node", "ports"}]}). */
int show_ports(struct show *s, const struct fabric *f, const char *what);
/* The same with each port's P_Keys from pk (the tables in effect:
 * sweep_pkeys(); NULL: none shown): text column P_KEYS, JSON "pkeys". */
int show_ports_pkeys(struct show *s, const struct fabric *f,
    const struct pkey_tables *pk, const char *what);
/* The path from src to dst (a LID, or the first end port with a LID of
 * the node named) following lft, whose switch indices refer to f: every
 * node passed with its ingress and egress port. Returns -1 with the reason
 * when the tables do not deliver (no entry, a port without a link, a
 * loop, the wrong end port). */
int show_route(struct show *s, const struct fabric *f,
    const struct lft_set *lft, const char *src, const char *dst);
/* VF alias GUIDs per physical port (st NULL: virtualization not enabled):
 * every index with a GUID saved or held by the device, its GUID, state
 * (assigned: active; saved: kept for a later Set of 0; device: only the
 * device holds one), what the device held when last read and whether it
 * matches. f (may be NULL) names the ports. */
void show_guids(struct show *s, const struct fabric *f,
    const struct alias_store *st);

/* The SA's ServiceRecords and event subscriptions, as listed. */
void show_services(struct show *s, const struct sa_service_info *v,
    size_t n);
void show_subscriptions(struct show *s,
    const struct sa_subscription_info *v, size_t n);

/* The partition policy: text (the -nv form, given as text) or JSON: every
 * partition with its name, P_Key, flags (ipoib, indx0, mtu, rate, sl,
 * scope, qkey, tclass, flow_label), groups, members (as written, kind,
 * membership and the ports each names in f) and the ports it gives a P_Key
 * in f (each with its membership); ports are null without a fabric. */
void show_partitions(struct show *s, const struct pkey_policy *p,
    const struct fabric *f, const char *text);

#endif
