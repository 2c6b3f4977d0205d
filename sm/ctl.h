/*
 * Control socket: a Unix stream socket (root-only permissions) on which
 * ibsmctl asks a running ibsmd what it is doing and tells it to sweep,
 * reload or change its log level.
 *
 * Protocol: one request per connection. The client sends one line,
 *   [json|text] COMMAND [ARG...]\n
 * and the server answers "ok\n" or "error\n" followed by the body (JSON or
 * human-readable text as asked; an error body is text: one line, or for a
 * rejected reload a summary line and the errors, one per line) and
 * closes. Commands: status, nodes, ports GUID|LID, route SRC DST,
 * partitions, sweep [heavy], reload, log-level LEVEL, services,
 * subscriptions, guids. A request that cannot
 * be parsed gets an error, never a crash; a client that sends nothing or
 * too much is dropped.
 */
#ifndef IBSMD_CTL_H
#define IBSMD_CTL_H

#include <stdint.h>

#include "sa/sa.h"
#include "sm/show.h"
#include "sm/stats.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/vfguid.h"

struct ev_loop;
struct mad_engine;
struct sa;
struct sminfo;
struct sm_mcast;
struct smstate;
struct sweep;
struct vfguid;
struct ctl;
struct pkey_policy;

struct ctl_deps {
	struct sweep *sweep;
	struct mad_engine *mad;
	struct sminfo *sm;
	struct smstate *ss;
	struct sa *sa;          /* NULL: no SA agent (services and
				 * subscriptions say so) */
	struct vfguid *vg;      /* NULL: alias GUIDs off (not enabled) */
	uint64_t port_guid;
	/* Actions the daemon's main owns. reload: re-read configuration and
	 * partitions; 0, or -1 with *errors (malloc'd, one error per line).
	 * partitions: the normalized policy text (malloc'd), or NULL when
	 * there is none. Both are required. */
	int (*reload)(void *arg, char **errors);
	char *(*partitions)(void *arg);
	void *arg;
	struct sm_mcast *mcast;         /* NULL: no multicast */
	struct perfmgr *perfmgr;        /* NULL: none (--once) */
	struct mkeys *mkeys;            /* NULL: none */
	/* The policy in force, for partitions --json (NULL: none). */
	const struct pkey_policy *(*policy)(void *arg);
	/* What status should add ("last reload rejected: ..."), or NULL;
	 * the hook may be NULL. */
	const char *(*note)(void *arg);
};

/* What `ibsmctl status` shows, gathered from d: the daemon's STATUS= line
 * and stats file are built from the same. Valid until the loop runs
 * again; free with ctl_status_free(). */
struct ctl_status {
	struct show_status st;
	struct sweep_status sw;
	struct smstate_status ss;
	struct sminfo_counters ic;
	struct sa_stats sas;
	struct vfguid_stats vs;
	struct vports_result vr;
	struct sa_mcmember_stats mcm;
	struct sm_mcast_stats mcs;
	struct perfmgr_stats pms;
	struct mkeys_stats mks;
	struct show_counter *counters;
};
void ctl_status_get(const struct ctl_deps *d, struct ctl_status *cs);
void ctl_status_free(struct ctl_status *cs);

/* Listen on path (a stale socket file is replaced; mode 0600). Returns
 * NULL with a logged reason. */
struct ctl *ctl_open(struct ev_loop *loop, const char *path,
    const struct ctl_deps *d);
/* Stop listening, drop clients, remove the socket file. */
void ctl_close(struct ctl *c);

#endif
