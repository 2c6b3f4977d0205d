/*
 * The sweep of sm/sweep.h, private to sm/sweep*.c: the state the parts
 * share and the functions they call across files.
 *
 *     sweep.c         the table FSM, requests (coalesced, held, retried),
 *                     the heavy sweep's sequence (discovery, election,
 *                     LIDs, route selection, P_Keys, programming), its
 *                     completeness and retries, standing by and taking
 *                     over, the life cycle
 *     sweep_light.c   the light sweep: SwitchInfo of every switch and the
 *                     vports' VPortStateChange poll, escalating when needed
 *     sweep_vports.c  the vport sweep (vports read again and programmed on
 *                     the fabric in use), and the vport LIDs: their LFT
 *                     entries, their own LIDs, those remembered for a run
 *                     with virtualization off
 *     sweep_status.c  the stats file, the status and summary, what was not
 *                     reached, the model's changes for the log, the views
 */
#ifndef IBSMD_SWEEP_PRIV_H
#define IBSMD_SWEEP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "routing/update.h"
#include "sm/notes.h"
#include "sm/program.h"
#include "sm/sweep.h"
#include "sm/vlids.h"
#include "sm/vports.h"

enum sweep_state { ST_IDLE, ST_DISCOVER, ST_PROGRAM, ST_LIGHT, ST_INHERIT,
		   ST_VPORT, ST_COUNT };
enum sweep_event { EV_HEAVY, EV_LIGHT, EV_DISCOVERED, EV_FAILED,
		   EV_PROGRAMMED, EV_CLEAN, EV_CHANGED, EV_STANDING_BY,
		   EV_INHERIT, EV_INHERITED, EV_INCOMPLETE, EV_VPORTS,
		   EV_COUNT };

struct sweep {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct sminfo *sm;
	struct smstate *ss;
	struct sweep_opts o;
	sweep_up_cb cb;
	void *cb_arg;
	enum sweep_state state;
	bool want_heavy, want_light;
	bool paused;            /* ibsmctl sweep off: requests wait */
	struct notes pknotes;   /* what partitions say, once per appearance */
	bool up;                /* the last heavy sweep was complete */
	double up_mono, up_wall; /* when it last became up */
	unsigned cur_holes;     /* discover_holes() of cur, kept by adopt_next */
	/* the fabric as the last complete discovery saw it (a standby's
	 * only view of it), and when */
	struct fabric_counts seen;
	unsigned seen_nodes;
	double seen_wall;
	ev_idle idle;           /* starts requested sweeps when idle */
	ev_timer timer;         /* light sweep period / retry after failure */
	struct holddown *hd;    /* flapping links held out of routing */
	ev_timer hd_timer;      /* a heavy sweep when the first is released */
	ev_timer mkey_timer;    /* a heavy sweep once provoked leases ran out */
	struct lid_map *lids;
	struct programmer *prog;
	char guid2lid[4096], stats[4096], vlids_path[4096];
	/* vport LIDs last seen running (sm/vlids.h): saved by disabled and
	 * enabled, forwarded by off */
	struct vlids vlids;
	long vlids_fwd;         /* forwarded by the last routing (off) */
	/* the model in use and the one a heavy sweep builds: adopting the
	 * new one swaps the pointers, so the model in use never moves while
	 * readers (the SA's view) hold it */
	struct fabric fab[2], *cur, *next;
	bool next_live;         /* a heavy sweep is building next */
	unsigned foreign;       /* its managed ports holding other M_Keys */
	struct lft_set lfts[2], *cur_lft, *next_lft;
	/* the VL layers of each set's routes (issue 27: a layered engine's,
	 * else empty), swapped with the models in adopt_next() only: a vport
	 * sweep keeps the routes and so the layers in use */
	struct route_layers layers[2], *cur_layers, *next_layers;
	struct pkey_tables pks[2], *cur_pk, *next_pk;
	/* the end ports' P_Key tables as the devices hold them, read by
	 * discovery where this SM has programmed none yet (a start, a
	 * takeover): the indices sw_build_pkeys keeps */
	struct pkey_tables dev_pk;
	/* vports behind virtualization-capable ports, beside each model */
	struct vport_set vps[2], *cur_vp, *next_vp;
	struct vports *vports;
	struct vports_result last_vprog;
	uint64_t vport_clears;  /* VPortStateChange clears, every read run */
	sweep_adopt_cb adopt_cb;
	void *adopt_arg;
	sweep_stats_cb stats_cb;
	void *stats_arg;
	struct pkey_want *want;         /* next_pk as the programmer takes it */
	bool have_cur;
	struct discovery *disc;
	/* the first master sweep after standing by: learn the LIDs in
	 * place, read the routes in place and keep those that deliver */
	bool learn;
	/* a subnet taken over: every heavy sweep keeps the routes that
	 * deliver as short as the engine's */
	bool keep_routes;
	/* ibsmctl reroute: the next complete heavy sweep routes afresh */
	bool reroute;
	uint64_t rebalances;            /* heals routed afresh, reroutes */
	uint64_t repairs;               /* losses repaired in place */
	/* route selection, and the balanced tables it keeps */
	struct update *upd;
	struct inherit *inh;
	struct lft_set held;            /* the tables in place */
	struct route_report report;
	struct keep_result inherited;        /* of the last takeover */
	struct program_result last_prog;
	/* light sweep */
	unsigned light_pending;
	bool light_changed;
	bool light_vports;      /* only vports changed */
	unsigned light_gen;
	uint64_t vport_sweeps;
	const struct fabric *pk_fabric; /* the model sw_build_pkeys works on */
	/* figures */
	double started, up_at;          /* up_at: first subnet up, 0 before */
	double sweep_started, last_secs;
	/* the last heavy sweep's phases: discovery (to the election), the
	 * election, LIDs + routing + partitions; programming's are in
	 * last_prog */
	double t_discovered, t_elected, t_programming;
	double discover_secs, elect_secs, compute_secs;
	const char *last_kind;
	bool last_ok;
	uint64_t sweeps, heavy_sweeps, light_sweeps, failures_in_row;
	uint64_t programs;
	uint64_t client_reregs;         /* ClientReregister Sets, all runs */
	char why[1024];
	/* A failure that persists (the SM's own port down, a node that never
	 * answers) is logged when it starts and when it ends; the retries in
	 * between, with the same reason, log at debug level only. */
	char persist[1024];             /* the failure logged; "" when none */
	bool lids_unsaved;              /* guid2lid could not be saved (said) */
	bool said_layers_qos;           /* a layered engine on one VL: qos off */
	bool stats_unwritten;           /* the stats file neither (said) */
	bool after_reload;              /* the next programming says what
					 * a reload made it write */
	double persist_since;
	uint64_t persist_tries;
};

/* sweep.c: the FSM (the state changes before the action runs), the
 * clock, the end of a sweep, the LID map saved, the P_Key tables built */
void sw_fsm(struct sweep *sw, enum sweep_event ev);
const char *sw_state_name(enum sweep_state s);
double sw_now(void);
void sw_back_to_idle(struct sweep *sw);
void sw_arm_timer(struct sweep *sw, double after);
void sw_finished(struct sweep *sw, const char *kind, bool ok);
void sw_save_lids(struct sweep *sw);
void sw_build_pkeys(struct sweep *sw);

/* sweep_light.c: the FSM's actions */
void sw_light_start(struct sweep *sw);
void sw_light_done(struct sweep *sw);

/* sweep_vports.c: the FSM's actions, and the vport LIDs */
void sw_vports_start(struct sweep *sw);
void sw_vports_done(struct sweep *sw);
void sw_copy_vport_lids(struct sweep *sw, const struct fabric *f);
void sw_vset_counts(const struct vport_set *vs, unsigned *up, unsigned *own);
void sw_set_vport_own_lid(struct sweep *sw, struct vport *vp, uint16_t lid);
void sw_save_vlids(struct sweep *sw);
void sw_forward_vlids(struct sweep *sw, const struct fabric *f);

/* sweep_status.c */
void sw_write_stats(struct sweep *sw);
void sw_log_changes(struct sweep *sw);

#endif
