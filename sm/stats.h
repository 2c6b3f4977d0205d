/*
 * The daemon's figures, one counter table: the status document that
 * `ibsmctl status --json` sends, that `ibsmctl status` prints as an
 * indented tree and that the stats file holds one "a.b.c value" line per
 * value. Every key is named once, in stats.c, so the three agree (the
 * stats file's keys are the JSON paths; ibsmctl(8), STATUS). No I/O
 * beyond the FILE the caller opens, no daemon state beyond what the
 * caller gathers (ctl_status_get()).
 */
#ifndef IBSMD_STATS_H
#define IBSMD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/fabric.h"
#include "mad/mad.h"
#include "routing/routing.h"
#include "sa/mcmember.h"
#include "sa/sa.h"
#include "sm/mcast.h"
#include "sm/perfmgr.h"
#include "sm/mkeys.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/vfguid.h"
#include "sm/vports.h"

struct show;

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
	const struct sa_stats *sa;              /* NULL: no SA agent */
	bool sa_serving;
	const struct vfguid_stats *vfguid;      /* NULL: alias GUIDs off */
	const struct vports_result *vprog;      /* the last vport programming
						 * (NULL: none shown) */
	const struct sa_mcmember_stats *mcm;    /* NULL: none shown */
	const struct sm_mcast_stats *mcast;     /* NULL: no multicast */
	const struct perfmgr_stats *perfmgr;    /* NULL: none (--once) */
	const struct mkeys_stats *mkeys;        /* NULL: none shown */
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

#endif
