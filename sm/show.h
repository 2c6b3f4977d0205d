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
