/*
 * The sweep state machine. A heavy sweep discovers the fabric into a new
 * model, assigns LIDs, routes and programs the devices; a light sweep
 * (periodic) reads every switch's SwitchInfo and escalates to a heavy one
 * when a port changed state, a switch stopped answering, or the model in
 * use has holes (something the last heavy sweep could not reach). A heavy
 * sweep programs only when the SM state machine says this SM is master,
 * and is "up" only when complete. Requests (timer,
 * trap, SIGHUP) are coalesced and started from an idle watcher, never from
 * inside another sweep.
 */
#ifndef IBSMD_SWEEP_H
#define IBSMD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "core/fabric.h"
#include "partitions/partitions.h"
#include "sm/program.h"
#include "routing/routing.h"

struct ev_loop;
struct mkeys;
struct alias_store;
struct mad_engine;
struct sminfo;
struct smstate;
struct sweep;

#define SWEEP_MAX_ENGINES 8

struct sweep_opts {
	double interval;                /* light sweep period in s; 0 = none */
	const char *state_dir;          /* guid2lid and stats live here */
	uint8_t lmc;
	bool lmc_esp0;                  /* switch port 0 gets 2^lmc LIDs too */
	struct program_opts prog;
	const struct routing_engine *chain[SWEEP_MAX_ENGINES];
	size_t nchain;
	struct routing_opts ropts;      /* roots, leaves (prev is set here) */
	const struct pkey_policy *policy; /* NULL: leave P_Keys alone */
	bool allow_both_pkeys;
	int enforce;                    /* switch ports facing CAs: bit 0
					 * inbound, bit 1 outbound; 0 = off */
	unsigned max_failures;          /* heavy sweeps failing in a row before
					 * the up callback reports failure (0 = 1) */
	enum cfg_virt virt_mode;        /* off (no vport attribute sent),
					 * disabled (read, none written),
					 * enabled */
	unsigned virt_max_ports;        /* hosts worked on at once */
	struct alias_store *alias;      /* VF alias GUIDs: partitions members
					 * naming one go to its physical port;
					 * NULL: none */
	struct mkeys *mkeys;            /* M_Keys on the wire (sm/mkeys.h):
					 * classifies ports after discovery;
					 * NULL: none */
};

/* Called after every heavy sweep that programmed (or failed): ok, or not
 * with a reason. A sweep that found another master does not call it. */
typedef void (*sweep_up_cb)(void *arg, bool ok, const char *why);

/* Sweeps run only while ss says so (DISCOVERING, MASTER); each heavy one
 * ends with ss's election, and programs only when this SM is master. */
struct sweep *sweep_new(struct ev_loop *loop, struct mad_engine *mad,
    struct sminfo *sm, struct smstate *ss, const struct sweep_opts *o,
    sweep_up_cb cb, void *arg);
void sweep_free(struct sweep *sw);

/* Ask for a sweep; heavy wins over light. Coalesced. */
void sweep_request(struct sweep *sw, bool heavy);
/* A reload was applied: the next programming logs the P_Key blocks (and
 * other blocks) it wrote for it. */
void sweep_after_reload(struct sweep *sw);
/* ibsmctl sweep off (hold) and on: while held no sweep starts (periodic,
 * trap, reload or takeover); what was asked meanwhile starts on release. */
void sweep_hold(struct sweep *sw, bool hold);
bool sweep_held(const struct sweep *sw);
/* A heavy sweep that routes afresh, as on a fresh start, ignoring the
 * routes in use (ibsmctl reroute); asked again until one completes. */
void sweep_reroute(struct sweep *sw);

/* Another SM has written the fabric while this one was master (it handed
 * the subnet back, or this SM's own port was down meanwhile): what this
 * SM knew of the devices is void, and its next master sweep reads the
 * LIDs and routes in place, keeping those that deliver, as a takeover
 * does. */
void sweep_forget(struct sweep *sw);

/* The models M_Keys are looked up in (sm/mkeys.h): the one a heavy sweep
 * is reading (NULL between sweeps) and the one in use (NULL: none). */
void sweep_key_view(const struct sweep *sw, const struct fabric **fresh,
    const struct fabric **cur);

/* Write the stats file now (the SM state changed between sweeps). */
void sweep_write_stats(struct sweep *sw);

/* One line on what the last heavy sweep brought up. */
void sweep_summary(const struct sweep *sw, char *buf, size_t len);

/* What the fabric in use lacks because the last heavy sweep could not
 * reach it: one line per switch or port not read and per up port whose
 * peer did not answer (description, GUID, port), passed to cb; returns
 * how many. */
unsigned sweep_unreached(const struct sweep *sw,
    void (*cb)(void *arg, const char *line), void *arg);

/* Read-only views for the control socket: valid until the next return to
 * the loop. */
struct sweep_status {
	const char *state;              /* idle, discover, program, light */
	bool enabled;                   /* false: held (ibsmctl sweep off) */
	bool subnet_up;                 /* brought up by this SM, master */
	double up_seconds;              /* from start to first subnet up, 0 */
	double up_since;                /* wall clock (s since the epoch) of
					 * the sweep that brought the subnet
					 * up this time; 0 when not up */
	double up_for;                  /* seconds since then (monotonic) */
	uint64_t sweeps, heavy_sweeps, light_sweeps;
	const char *last_kind;          /* "heavy", "light" or "none" */
	double last_seconds;            /* duration of the last sweep */
	bool last_ok;
	const char *last_why;           /* when !last_ok */
	uint64_t failures_in_row;
	uint64_t programs;              /* heavy sweeps that programmed */
	struct program_result last_program;
	/* vports (virtualization disabled or enabled; else all 0, virt
	 * false): hosts, vports up (INIT or better, not the physical
	 * function), those with a LID of their own, managed by the last
	 * vport programming, and vport sweeps */
	bool virt;
	unsigned vport_hosts, vports_up, vport_own_lids, vports_managed;
	uint64_t vport_sweeps;
	/* the fabric as the last complete discovery saw it (as master or
	 * not), and when (wall clock; 0: never) */
	struct fabric_counts seen;
	unsigned seen_nodes;
	double seen_wall;
	/* the last heavy sweep: holes left in the model in use, seconds of
	 * discovery, election and LIDs + routing + partitions; the routes
	 * kept at the last takeover; heals routed afresh, losses repaired in
	 * place, ClientReregister Sets and VPortStateChange clears, all runs */
	unsigned holes;
	double discover_seconds, elect_seconds, compute_seconds;
	uint32_t inherit_kept, inherit_mixed, inherit_computed;
	uint64_t rebalances, repairs, client_reregs, vport_clears;
};
void sweep_get_status(const struct sweep *sw, struct sweep_status *st);
/* The fabric and tables of the last completed heavy sweep (NULL before). */
const struct fabric *sweep_fabric(const struct sweep *sw);
const struct lft_set *sweep_lft(const struct sweep *sw);
const struct route_report *sweep_report(const struct sweep *sw);
/* The VL layers of sweep_lft()'s routes (issue 27; routing/routing.h):
 * for routing_path_sl(layers, sweep_fabric(), sweep_lft(), slid, dlid)
 * and routing_update_sl2vl(). NULL before the first routing; without a
 * layer table (engine NULL) for the engines of one VL, whose SL is 0. */
const struct route_layers *sweep_layers(const struct sweep *sw);
/* The VL layers of f's routes: sweep_layers() for sweep_fabric(), those of
 * the model being programmed for it (program_opts.before_activate), else NULL. */
const struct route_layers *sweep_layers_of(const struct sweep *sw,
    const struct fabric *f);
/* The P_Key tables in effect with that fabric (NULL before, or when
 * partitions are not managed). */
const struct pkey_tables *sweep_pkeys(const struct sweep *sw);
/* The vports of that fabric (NULL before, or with virtualization off). */
const struct vport_set *sweep_vports(const struct sweep *sw);
/* What the last vport programming did (zeros before). */
struct vports_result;
void sweep_vport_stats(const struct sweep *sw, struct vports_result *r);

/* Called when a heavy sweep's model becomes the one in use, while the
 * previous model (fabric, tables) is still allocated and the new one is
 * already what sweep_fabric(), sweep_lft() and sweep_pkeys() return: a
 * reader holding the old one moves to the new one here. The models never
 * move in memory while in use. */
typedef void (*sweep_adopt_cb)(void *arg);
void sweep_set_adopt_hook(struct sweep *sw, sweep_adopt_cb cb, void *arg);
/* What the stats file holds (the daemon's status document, flat): cb
 * writes it whenever the file is replaced (after every sweep and SM state
 * change); without a hook no stats file is written. */
typedef void (*sweep_stats_cb)(void *arg, FILE *fp);
void sweep_set_stats_hook(struct sweep *sw, sweep_stats_cb cb, void *arg);
/* Change options that may change at run time (windows, interval, routing
 * chain and options, programming values); takes effect from the next
 * sweep. */
void sweep_set_opts(struct sweep *sw, const struct sweep_opts *o);

#endif
