/*
 * What ibsmctl shows of the fabric: the model's nodes and ports, paths
 * through forwarding tables and the partition policy, rendered as JSON or
 * as aligned text tables; and what every view shares (the answer being
 * built, text tables, cleaning names for a terminal). The SA and
 * virtualization views are show_sa.h's, the daemon's figures stats.h's.
 * No I/O and no daemon state beyond what the caller passes, so Check
 * tests drive it with in-memory fabrics; the control socket (ctl.c)
 * gathers the inputs and sends the result.
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
#include "partitions/partitions.h"
#include "routing/routing.h"

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

/* Aligned text tables for the views (show.c, show_sa.c): columns two
 * spaces apart, the last one not padded. align holds 'l' or 'r' per
 * column; the first row is the header. */
struct show_table {
	const char *align;
	size_t ncols;
	char **cells;
	size_t ncells, cap;
};
void show_table_init(struct show_table *t, const char *align);
void show_table_cell(struct show_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append the table to o (the answer's text: &s->text). */
void show_table_print(struct show_table *t, struct show_buf *o);
void show_table_free(struct show_table *t);

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

/* The partition policy: text (the -nv form, given as text) or JSON: every
 * partition with its name, P_Key, flags (ipoib, indx0, mtu, rate, sl,
 * scope, qkey, tclass, flow_label), groups, members (as written, kind,
 * membership and the ports each names in f) and the ports it gives a P_Key
 * in f (each with its membership); ports are null without a fabric. */
void show_partitions(struct show *s, const struct pkey_policy *p,
    const struct fabric *f, const char *text);

/* The answers of the actions: reload done; sweeps resumed (on) or held;
 * what was requested ("heavy", "light" or "reroute"); the log level now
 * and before. */
void show_reloaded(struct show *s);
void show_sweeps_enabled(struct show *s, bool on);
void show_requested(struct show *s, const char *what);
void show_log_level(struct show *s, const char *now, const char *was);

#endif
