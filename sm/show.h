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

#include "core/fabric.h"
#include "sm/json.h"
#include "mad/mad.h"
#include "routing/routing.h"
#include "sa/inform.h"
#include "sa/service.h"
#include "sa/sa.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"

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

/* One MAD counter, names resolved. */
struct show_counter {
	char method[32];        /* "<class>.<method>" but for SMPs */
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
	uint64_t mad_sent, mad_unmatched, mad_malformed;
	unsigned mad_outstanding, mad_queued;
	const struct show_counter *counters;
	size_t ncounters;
	/* Other modules' figures (multicast): called last, in JSON inside the
	 * status object (it adds keys), in text after the rest. NULL: none. */
	void (*more)(struct show *s, const void *arg);
	const void *more_arg;
	const struct sa_stats *sa;              /* NULL: no SA agent */
	bool sa_serving;
};

void show_status(struct show *s, const struct show_status *st);
/* Every node: type, GUID, LIDs, ports, description. */
void show_nodes(struct show *s, const struct fabric *f);
/* The ports of the node named by what, or the one CA port it names. */
int show_ports(struct show *s, const struct fabric *f, const char *what);
/* The path from src to dst (a LID, or the first end port with a LID of
 * the node named) following lft, whose switch indices refer to f: every
 * node passed with its ingress and egress port. Returns -1 with the reason
 * when the tables do not deliver (no entry, a port without a link, a
 * loop, the wrong end port). */
int show_route(struct show *s, const struct fabric *f,
    const struct lft_set *lft, const char *src, const char *dst);

/* The SA's ServiceRecords and event subscriptions, as listed. */
void show_services(struct show *s, const struct sa_service_info *v,
    size_t n);
void show_subscriptions(struct show *s,
    const struct sa_subscription_info *v, size_t n);

#endif
