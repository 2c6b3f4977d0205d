/*
 * The sweep (sm/sweep.h): the table FSM, the requests, the heavy sweep's
 * sequence (discovery, election, LIDs, route selection, P_Keys,
 * programming), its completeness and retries, standing by and taking
 * over, and the life cycle. The light sweep, the vport sweep and the
 * status are in the files sm/sweep_priv.h lists.
 */
#include "sm/sweep.h"
#include "sm/sweep_priv.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "core/alias.h"
#include "core/graft.h"
#include "core/qos.h"
#include "core/query.h"
#include "sm/discover.h"
#include "sm/holddown.h"
#include "core/fabric.h"
#include "sm/inherit.h"
#include "sm/lid.h"
#include "sm/notes.h"
#include "sm/plan.h"
#include "core/log.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/vports.h"
#include "core/vport.h"
#include "core/vattr.h"
#include "routing/update.h"
#include "sm/mkeys.h"

/* Holes and failures named in one message. */
#define SWEEP_NAMED_MAX 4

struct transition {
	enum sweep_state state;
	enum sweep_event event;
	void (*action)(struct sweep *);
	enum sweep_state next;
};

static void start_heavy(struct sweep *);
static void compute(struct sweep *);
static void heavy_failed(struct sweep *);
static void heavy_incomplete(struct sweep *);
static void heavy_done(struct sweep *);
static void persist_end(struct sweep *, const char *);
static void standby_done(struct sweep *);
static void start_inherit(struct sweep *);
static void route_program(struct sweep *);

static const struct transition fsm_table[] = {
	{ ST_IDLE,     EV_HEAVY,      start_heavy,  ST_DISCOVER },
	{ ST_IDLE,     EV_LIGHT,      sw_light_start,  ST_LIGHT },
	{ ST_DISCOVER, EV_DISCOVERED, compute,      ST_PROGRAM },
	{ ST_DISCOVER, EV_FAILED,     heavy_failed, ST_IDLE },
	{ ST_DISCOVER, EV_STANDING_BY, standby_done, ST_IDLE },
	{ ST_DISCOVER, EV_INHERIT,    start_inherit, ST_INHERIT },
	{ ST_INHERIT,  EV_INHERITED,  route_program, ST_PROGRAM },
	{ ST_INHERIT,  EV_FAILED,     heavy_failed, ST_IDLE },
	{ ST_PROGRAM,  EV_PROGRAMMED, heavy_done,   ST_IDLE },
	{ ST_PROGRAM,  EV_INCOMPLETE, heavy_incomplete, ST_IDLE },
	{ ST_PROGRAM,  EV_FAILED,     heavy_failed, ST_IDLE },
	{ ST_LIGHT,    EV_CLEAN,      sw_light_done,   ST_IDLE },
	{ ST_LIGHT,    EV_CHANGED,    start_heavy,  ST_DISCOVER },
	{ ST_LIGHT,    EV_VPORTS,     sw_vports_start, ST_VPORT },
	{ ST_VPORT,    EV_PROGRAMMED, sw_vports_done,  ST_IDLE },
	{ ST_VPORT,    EV_CHANGED,    start_heavy,  ST_DISCOVER },
};

const char *
sw_state_name(enum sweep_state s)
{
	static const char *const n[] = { "idle", "discover", "program",
	    "light", "inherit", "vport" };
	return s < ST_COUNT ? n[s] : "?";
}

static const char *
event_name(enum sweep_event e)
{
	static const char *const n[] = { "heavy", "light", "discovered",
	    "failed", "programmed", "clean", "changed", "standing-by",
	    "inherit", "inherited", "incomplete", "vports" };
	return e < EV_COUNT ? n[e] : "?";
}

/* The state changes before the action runs, so that an action whose work
 * completes at once can post the next event itself. */
void
sw_fsm(struct sweep *sw, enum sweep_event ev)
{
	for (size_t i = 0; i < sizeof(fsm_table) / sizeof(fsm_table[0]); i++) {
		const struct transition *t = &fsm_table[i];

		if (t->state != sw->state || t->event != ev)
			continue;
		log_debug("sweep: %s --%s--> %s", sw_state_name(sw->state),
		    event_name(ev), sw_state_name(t->next));
		sw->state = t->next;
		t->action(sw);
		return;
	}
	log_debug("sweep: event %s ignored in state %s", event_name(ev),
	    sw_state_name(sw->state));
}

double
sw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- requests ---- */

static void
idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct sweep *sw = w->data;

	(void)revents;
	if (sw->state != ST_IDLE)
		return;         /* the end of the sweep in progress restarts us */
	ev_idle_stop(loop, w);
	/* ibsmctl sweep off: what is asked meanwhile waits for on */
	if (sw->paused) {
		ev_idle_stop(loop, w);
		log_debug("sweep: held (ibsmctl sweep off): %s sweep waits",
		    sw->want_heavy ? "heavy" : "light");
		return;
	}
	/* STANDBY and NOTACTIVE leave the fabric to the master. */
	if (!smstate_may_sweep(sw->ss)) {
		log_debug("sweep: %s: no sweep", smstate_detail(sw->ss));
		sw->want_heavy = sw->want_light = false;
		return;
	}
	if (sw->want_heavy) {
		sw->want_heavy = sw->want_light = false;
		sw_fsm(sw, EV_HEAVY);
	} else if (sw->want_light) {
		sw->want_light = false;
		sw_fsm(sw, EV_LIGHT);
	}
}

void
sweep_forget(struct sweep *sw)
{
	if (!sw->learn)
		log_info("sweep: another SM may have written the fabric: the "
		    "next sweep reads what the devices hold");
	program_forget(sw->prog);
	vports_forget(sw->vports);
	sw->learn = true;
}

void
sweep_hold(struct sweep *sw, bool hold)
{
	if (hold == sw->paused)
		return;
	sw->paused = hold;
	log_info("sweep: %s", hold ? "sweeps held (ibsmctl sweep off): no "
	    "sweep starts, periodic, trap or takeover, until sweep on" :
	    "sweeps resumed (ibsmctl sweep on)");
	if (!hold && (sw->want_heavy || sw->want_light) &&
	    sw->state == ST_IDLE)
		ev_idle_start(sw->loop, &sw->idle);
	sw_write_stats(sw);
}

bool
sweep_held(const struct sweep *sw)
{
	return sw->paused;
}

void
sweep_reroute(struct sweep *sw)
{
	sw->reroute = true;
	sweep_request(sw, true);
}

void
sweep_request(struct sweep *sw, bool heavy)
{
	if (heavy)
		sw->want_heavy = true;
	else
		sw->want_light = true;
	if (sw->state == ST_IDLE)
		ev_idle_start(sw->loop, &sw->idle);
}

void
sw_back_to_idle(struct sweep *sw)
{
	if (sw->want_heavy || sw->want_light)
		ev_idle_start(sw->loop, &sw->idle);
}

static void
timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sweep *sw = w->data;

	(void)loop;
	(void)revents;
	/* After a failed heavy sweep the timer retries it; else it is the
	 * light sweep period. */
	sweep_request(sw, sw->failures_in_row > 0 || !sw->have_cur);
}

void
sw_arm_timer(struct sweep *sw, double after)
{
	ev_timer_stop(sw->loop, &sw->timer);
	if (after <= 0)
		return;
	ev_timer_set(&sw->timer, after, 0.);
	ev_timer_start(sw->loop, &sw->timer);
}

/* ---- heavy sweep ---- */

/* The election after discovery decides whether this sweep programs. */
static void sw_lease_wait(struct sweep *sw, unsigned lease);

static void
on_elected(void *arg, bool master)
{
	struct sweep *sw = arg;

	if (sw->state != ST_DISCOVER)
		return;
	sw->t_elected = sw_now();
	sw->elect_secs = sw->t_elected - sw->t_discovered;
	if (!master) {
		sw_fsm(sw, EV_STANDING_BY);
		return;
	}
	/* ports holding keys we do not know, to be taken (the master's
	 * business only) */
	if (sw->foreign > 0)
		sw_lease_wait(sw, mkeys_provoke(sw->o.mkeys, sw->mad, sw->next));
	sw_fsm(sw, sw->learn ? EV_INHERIT : EV_DISCOVERED);
}

static void
on_vports_read(void *arg, const struct vports_result *r)
{
	struct sweep *sw = arg;
	unsigned up, own;

	sw->vport_clears += r->clears;
	(void)vport_mark_duplicates(sw->next_vp, sw->next, sw->o.alias);
	if (sw->o.virt_mode == CFG_VIRT_DISABLED) {
		/* disabled: VMs another SM brought up stay routed */
		unsigned kept = vport_keep_running(sw->next_vp);

		if (kept > 0)
			log_info("sweep: virtualization disabled: %u running "
			    "vport%s kept routed with the LID%s they hold (no "
			    "vport is written)", kept, kept == 1 ? "" : "s",
			    kept == 1 ? "" : "s");
	}
	/* counted as ibsmctl status counts them: vports up, INIT or
	 * better, the physical functions' not counted */
	sw_vset_counts(sw->next_vp, &up, &own);
	if (r->hosts > 0)
		log_info("sweep: vports: %u virtualization-capable port%s, %u "
		    "vport%s up (the physical functions not counted), %u "
		    "SMPs%s%s", r->hosts, r->hosts == 1 ? "" : "s", up,
		    up == 1 ? "" : "s", r->smps, r->first_failure[0] ? "; " :
		    "", r->first_failure);
	smstate_elect(sw->ss, sw->next, on_elected, sw);
}

static void
on_discovered(void *arg, const struct discover_result *r)
{
	struct sweep *sw = arg;

	sw->disc = NULL;
	sw->t_discovered = sw_now();
	sw->discover_secs = sw->t_discovered - sw->sweep_started;
	if (!r->ok) {
		snprintf(sw->why, sizeof(sw->why), "discovery failed: %s", r->why);
		/* A master blind to its fabric (its own port down) cannot
		 * tell what a standby that took over meanwhile wrote. */
		if (smstate_may_write(sw->ss) && sw->have_cur)
			sweep_forget(sw);
		sw_fsm(sw, EV_FAILED);
		return;
	}
	{
		struct timespec ts;

		fabric_count(sw->next, &sw->seen);
		sw->seen_nodes = sw->next->nnodes;
		sw->foreign = sw->o.mkeys == NULL ? 0 :
		    mkeys_classify(sw->o.mkeys, sw->next,
		    sw->have_cur ? sw->cur : NULL);
		clock_gettime(CLOCK_REALTIME, &ts);
		sw->seen_wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	}
	if (r->timeouts || r->errors || r->resent)
		log_info("sweep: discovery: %u SMPs sent again after a round "
		    "unanswered; %u unanswered in every round, %u answered "
		    "with an error", r->resent, r->timeouts, r->errors);
	if (sw->o.virt_mode == CFG_VIRT_OFF) {
		vport_set_clear(sw->next_vp);
		smstate_elect(sw->ss, sw->next, on_elected, sw);
		return;
	}
	/* where no table was programmed yet, the vports' are the start */
	sw->next_vp->read_pkeys = !sw->have_cur || sw->learn;
	vports_discover(sw->vports, sw->next, sw->next_vp,
	    smstate_may_write(sw->ss), on_vports_read, sw);
}

static void
start_heavy(struct sweep *sw)
{
	sw->sweeps++;
	sw->heavy_sweeps++;
	sw->sweep_started = sw_now();
	ev_timer_stop(sw->loop, &sw->timer);
	fabric_fini(sw->next);
	fabric_init(sw->next);
	sw->next_live = true;
	if (sw->persist[0])
		log_debug("sweep: heavy sweep %" PRIu64 " started (retry %"
		    PRIu64 ")", sw->heavy_sweeps, sw->persist_tries);
	else
		log_info("sweep: heavy sweep %" PRIu64 " started",
		    sw->heavy_sweeps);
	sw->disc = discover_start(sw->mad, sw->next,
	    !smstate_may_write(sw->ss), on_discovered, sw);
	/* virtualization enabled: what alias-capable ports hold (alias
	 * GUIDs are served in every mode; only enabled reads the tables) */
	if (sw->o.alias != NULL && sw->o.virt_mode == CFG_VIRT_ENABLED)
		discover_set_alias(sw->disc, sw->o.alias);
	/* P_Key indices never move for a key that stays: where this SM has
	 * programmed no table yet, the devices' tables are the start */
	pkey_tables_free(&sw->dev_pk);
	if (sw->o.policy != NULL && (!sw->have_cur || sw->learn ||
	    sw->cur_pk->n == 0))
		discover_set_pkeys(sw->disc, &sw->dev_pk);
}

/* One LID request per end port of the new fabric and per vport that
 * wants one (sm/plan.h). */
static size_t
lid_requests(struct sweep *sw, struct lid_req **reqsp, uint32_t **idxp)
{
	return plan_lid_requests(sw->next, sw->next_vp, sw->o.virt_mode,
	    sw->o.lmc_esp0, reqsp, idxp);
}

void
sw_save_lids(struct sweep *sw)
{
	if (!lid_map_dirty(sw->lids) || sw->o.state_dir == NULL)
		return;
	if (lid_map_save(sw->lids, sw->guid2lid) == 0) {
		if (sw->lids_unsaved)
			log_info("sweep: %s saved again", sw->guid2lid);
		sw->lids_unsaved = false;
		return;
	}
	/* said once; the LIDs stay in memory and are saved when it can */
	if (sw->lids_unsaved)
		return;
	sw->lids_unsaved = true;
	if (lid_map_why(sw->lids)[0])
		log_warnx("sweep: cannot save %s: %s", sw->guid2lid,
		    lid_map_why(sw->lids));
	else
		log_warn("sweep: cannot save %s", sw->guid2lid);
}

/* Make the LID map say what the fabric holds (the master's LIDs). */
static void
learn_lids(struct sweep *sw)
{
	struct lid_req *reqs;
	uint32_t *idx;
	size_t n = lid_requests(sw, &reqs, &idx), changed;

	changed = lid_map_learn(sw->lids, reqs, n, sw->o.lmc);
	if (changed > 0)
		log_info("sweep: %zu LIDs learnt from the fabric", changed);
	sw_save_lids(sw);
	free(reqs);
	free(idx);
}

static int
assign_lids(struct sweep *sw)
{
	struct fabric *f = sw->next;
	struct lid_req *reqs;
	uint32_t *idx;
	size_t n = lid_requests(sw, &reqs, &idx);
	int rc;

	rc = lid_assign(sw->lids, reqs, n, sw->o.lmc);
	for (size_t i = 0; i < n; i++)
		if (idx[i] < f->nports)
			fabric_set_lid(f, idx[i], reqs[i].lid,
			    reqs[i].single ? 0 : sw->o.lmc);
		else
			sw_set_vport_own_lid(sw, &sw->next_vp->v[idx[i] -
			    f->nports], reqs[i].lid);
	if (sw->o.virt_mode != CFG_VIRT_OFF)
		vport_resolve_lids(sw->next_vp, f);
	if (rc < 0)
		log_warnx("sweep: LID space exhausted: some ports get no LID");
	sw_save_lids(sw);
	free(reqs);
	free(idx);
	return f->sm_port != FABRIC_NONE && f->ports[f->sm_port].lid != 0 ? 0 : -1;
}

static void
log_route(const char *msg)
{
	log_info("%s", msg);
}

static void __attribute__((format(printf, 2, 3)))
why_add(struct sweep *sw, const char *fmt, ...)
{
	size_t off = strlen(sw->why);
	va_list ap;

	if (off + 1 >= sizeof(sw->why))
		return;
	va_start(ap, fmt);
	vsnprintf(sw->why + off, sizeof(sw->why) - off, fmt, ap);
	va_end(ap);
}

struct hole_ctx {
	struct sweep *sw;
	unsigned n;
};

#define SWEEP_LOGGED_MAX 32     /* holes logged one by one */

static void
note_hole(void *arg, const struct discover_hole *h)
{
	struct hole_ctx *c = arg;
	char line[200];

	discover_hole_text(c->sw->next, h, line, sizeof(line));
	/* while a failure persists, retry_later() says whether it changed */
	if (c->n < SWEEP_LOGGED_MAX && c->sw->persist[0])
		log_debug("sweep: not reached: %s", line);
	else if (c->n < SWEEP_LOGGED_MAX)
		log_warnx("sweep: not reached: %s", line);
	if (c->n < SWEEP_NAMED_MAX)
		why_add(c->sw, "%s%s", c->n ? "; " : ": ", line);
	c->n++;
}

/* Cabled ports (both ends in the model) that programming left short of
 * ACTIVE; *first is the first of them. */
static unsigned
inactive_ports(const struct fabric *f, uint32_t *first)
{
	unsigned n = 0;

	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];

		if (port->num == 0 || port->peer == FABRIC_NONE ||
		    port->state == PORT_ACTIVE)
			continue;
		if (n++ == 0)
			*first = p;
	}
	return n;
}

/*
 * A heavy sweep is complete when nothing it asked went unanswered: every
 * port that is up leads to a node in the model, every switch and port was
 * read, every Set took effect and every cabled port is ACTIVE. Anything
 * less is named in sw->why, and the sweep is tried again: a subnet is
 * never said to be up with a node missing or unrouted.
 */
static bool
complete(struct sweep *sw)
{
	const struct fabric *f = sw->next;
	struct hole_ctx hc = { .sw = sw };
	unsigned holes, inactive;
	uint32_t first = 0;

	sw->why[0] = '\0';
	if ((holes = discover_holes(f, NULL, NULL)) > 0) {
		why_add(sw, "%u port%s not reached", holes,
		    holes == 1 ? "" : "s");
		discover_holes(f, note_hole, &hc);
		if (holes > SWEEP_NAMED_MAX)
			why_add(sw, "; and %u more", holes - SWEEP_NAMED_MAX);
	}
	if (!sw->last_prog.ok)
		why_add(sw, "%sprogramming: %s", sw->why[0] ? "; " : "",
		    sw->last_prog.why);
	if ((inactive = inactive_ports(f, &first)) > 0) {
		const struct fabric_port *p = &f->ports[first];
		const struct fabric_node *n = &f->nodes[p->node];

		why_add(sw, "%s%u cabled port%s not ACTIVE (first: %s "
		    "0x%016" PRIx64 " port %u, state %u)", sw->why[0] ? "; " : "",
		    inactive, inactive == 1 ? "" : "s",
		    fabric_node_type_name(n->type), n->guid, p->num, p->state);
	}
	return sw->why[0] == '\0';
}

static void
on_vports_programmed(void *arg, const struct vports_result *r)
{
	struct sweep *sw = arg;
	bool ok;

	sw->last_vprog = *r;
	sw->vport_clears += r->clears;
	log_info("sweep: vports: %u managed, %u P_Key blocks and %u LIDs "
	    "written, %u armed, %u activated, %u latches cleared, %u hosts "
	    "changed meanwhile, %u writes withheld from hosts a read-back "
	    "stopped%s%s", r->managed, r->pkey_writes,
	    r->lid_writes, r->armed, r->activated, r->clears, r->stale_hosts,
	    r->unsafe_skipped, r->first_failure[0] ? "; " : "",
	    r->first_failure);
	ok = complete(sw);
	if (r->timeouts + r->errors > 0) {
		why_add(sw, "%svports: %s", sw->why[0] ? "; " : "",
		    r->first_failure);
		ok = false;
	}
	sw_fsm(sw, ok ? EV_PROGRAMMED : EV_INCOMPLETE);
}

static void
on_programmed(void *arg, const struct program_result *r)
{
	struct sweep *sw = arg;

	sw->last_prog = *r;
	sw->programs++;
	sw->client_reregs += r->client_reregs;
	log_info("sweep: programmed: %u PortInfo (%u ClientReregister), %u "
	    "SwitchInfo, %u LFT blocks written (%u read), %u P_Key blocks "
	    "written (%u read), %u ports armed, %u activated%s%s",
	    r->portinfo_sets, r->client_reregs, r->switchinfo_sets,
	    r->lft_writes, r->lft_reads, r->pkey_writes, r->pkey_reads,
	    r->armed, r->activated, r->ok ? "" : "; ", r->ok ? "" : r->why);
	if (sw->after_reload) {
		sw->after_reload = false;
		log_info("reload: applied by heavy sweep %" PRIu64 ": %u P_Key "
		    "blocks written, %u PortInfo, %u LFT blocks", sw->heavy_sweeps,
		    r->pkey_writes, r->portinfo_sets, r->lft_writes);
	}
	if (r->resent)
		log_info("sweep: programming: %u SMPs sent again or verified "
		    "after a round failed", r->resent);
	if (sw->o.virt_mode == CFG_VIRT_ENABLED && sw->next_vp->nh > 0) {
		vports_program(sw->vports, sw->next, sw->next_vp,
		    on_vports_programmed, sw);
		return;
	}
	sw_fsm(sw, complete(sw) ? EV_PROGRAMMED : EV_INCOMPLETE);
}

/* Said when it first appears and when it goes, not at every sweep. */
static void
pkey_note(void *arg, enum pkey_note_level level, const char *msg)
{
	struct sweep *sw = arg;

	notes_add(&sw->pknotes, level == PKEY_NOTE_WARN, msg);
}

static void
pkey_warn(void *arg, const char *msg)
{
	(void)arg;
	log_warnx("%s", msg);
}

/* P_Key tables for the new fabric, the previous ones keeping indices
 * stable, and the programmer's view of them (sm/plan.h). */
void
sw_build_pkeys(struct sweep *sw)
{
	struct plan_pkeys p = {
		.policy = sw->o.policy, .f = sw->pk_fabric, .vps = sw->next_vp,
		.cur_vps = sw->have_cur ? sw->cur_vp : NULL,
		.alias = sw->o.alias, .dev = &sw->dev_pk,
		.cur = sw->have_cur ? sw->cur_pk : NULL,
		.allow_both = sw->o.allow_both_pkeys, .enforce = sw->o.enforce,
		.virt_mode = sw->o.virt_mode, .note = pkey_note,
		.note_arg = sw, .warn = pkey_warn,
	};

	free(sw->want);
	if (sw->o.policy != NULL)
		notes_begin(&sw->pknotes);
	plan_pkeys(&p, sw->next_pk, &sw->want);
	if (sw->o.policy != NULL)
		notes_end(&sw->pknotes);
}

/* Nodes a discovery could not reach behind ports that are up (lost SMPs,
 * a silent management agent) are kept as the model in use knew them, with
 * their LIDs and routes, until their links are seen down
 * (core/graft.h): a sweep that lost SMPs must not withdraw the routes of
 * nodes that are still there. The sweep stays incomplete meanwhile. */
static void
keep_silent(struct sweep *sw)
{
	unsigned n;

	if (!sw->have_cur || (n = fabric_graft_silent(sw->next, sw->cur)) == 0)
		return;
	/* and the vports of kept hosts, with their LIDs */
	if (sw->o.virt_mode != CFG_VIRT_OFF)
		vport_graft(sw->next_vp, sw->next, sw->cur_vp, sw->cur);
	if (sw->persist[0])
		log_debug("sweep: %u node%s not read kept as they were", n,
		    n == 1 ? "" : "s");
	else
		log_info("sweep: %u node%s not read this sweep kept as they "
		    "were, routes and all, until their links are seen down", n,
		    n == 1 ? "" : "s");
}

/* Links back within HOLDDOWN_SECS of going down are held out of routing
 * until they stay up that long; a heavy sweep then moves routes onto
 * them. */
static void
hold_flapping(struct sweep *sw)
{
	double release, t = sw_now();
	unsigned n;

	n = holddown_apply(sw->hd, sw->next, sw->have_cur ? sw->cur : NULL, t,
	    &release);
	if (n == 0)
		return;
	log_info("routing: %u link%s back within %.0f s of going down: held "
	    "out of routing until %s up that long", n, n == 1 ? "" : "s",
	    HOLDDOWN_SECS, n == 1 ? "it stays" : "they stay");
	ev_timer_stop(sw->loop, &sw->hd_timer);
	ev_timer_set(&sw->hd_timer, release - t + 0.05, 0.);
	ev_timer_start(sw->loop, &sw->hd_timer);
}

static void
hd_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sweep *sw = w->data;

	(void)loop;
	(void)revents;
	sweep_request(sw, true);
}

/* Leases started on purpose (m_key_takeover): a heavy sweep once the
 * longest has run out reads those ports again. */
static void
sw_lease_wait(struct sweep *sw, unsigned lease)
{
	if (lease == 0 || ev_is_active(&sw->mkey_timer))
		return;
	ev_timer_set(&sw->mkey_timer, lease + 1.0, 0.);
	ev_timer_start(sw->loop, &sw->mkey_timer);
}

static void
compute(struct sweep *sw)
{
	keep_silent(sw);
	hold_flapping(sw);
	if (assign_lids(sw) < 0) {
		snprintf(sw->why, sizeof(sw->why), "no LID for the SM's port");
		sw_fsm(sw, EV_FAILED);
		return;
	}
	route_program(sw);
}

/* Nodes away from the model in use come back holding whatever was
 * written to them meanwhile (another SM, a reset): what the programmer
 * knew of them is void. */
static void
forget_returning(struct sweep *sw)
{
	const struct fabric *f = sw->next;

	if (!sw->have_cur)
		return;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct fabric_node *node = &f->nodes[n];

		if (fabric_node_by_guid(sw->cur, node->guid) != FABRIC_NONE)
			continue;
		program_forget_node(sw->prog, node->guid);
		for (uint8_t k = 1; node->type != NODE_SWITCH &&
		    k <= node->nports; k++)
			program_forget_node(sw->prog,
			    f->ports[fabric_port_idx(f, n, k)].guid);
	}
}

/* routing/update's lines, at their level. */
static void
update_log(void *arg, enum update_level level, const char *msg)
{
	(void)arg;
	if (level == UPDATE_WARN)
		log_warnx("%s", msg);
	else if (level == UPDATE_INFO)
		log_info("%s", msg);
	else
		log_debug("%s", msg);
}

/* The chain has a VL-layered engine. */
static bool
chain_layered(const struct sweep *sw)
{
	for (size_t i = 0; i < sw->o.nchain; i++)
		if (sw->o.chain[i]->route_layers != NULL)
			return true;
	return false;
}

/* The data VLs a VL-layered engine may use. With qos on: the fewest any
 * switch-to-switch port will run once programmed (OperationalVLs by
 * core/qos: both ends' VLCap, max_op_vls, qos_swe_max_vls), since the
 * SL-to-VL tables then carry the engine's layers (sm/daemon's
 * layered_sl2vl) and the SA hands out each route's layer as its SL. With
 * qos off ibsmd writes no SL-to-VL table, so one: such an engine routes
 * on one VL or declines, and the next engine of the chain routes (said
 * once). */
static uint8_t
layer_vls(struct sweep *sw)
{
	const struct fabric *f = sw->next;
	const struct qos_config *qc = &sw->o.prog.qos;
	unsigned vls = 0, v;

	if (!qc->on) {
		if (!sw->said_layers_qos && chain_layered(sw)) {
			log_warnx("routing: qos is off, so a VL-layered engine "
			    "routes on one VL (ibsmd programs SL-to-VL tables "
			    "only with qos: true)");
			sw->said_layers_qos = true;
		}
		return 1;
	}
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];

		if (f->nodes[port->node].type != NODE_SWITCH ||
		    port->num == 0 || port->peer == FABRIC_NONE ||
		    f->nodes[f->ports[port->peer].node].type != NODE_SWITCH ||
		    !port->info_valid)
			continue;
		if ((v = query_vls(qos_oper_vls(qc, f, p))) == 0)
			continue;
		if (vls == 0 || v < vls)
			vls = v;
	}
	return vls != 0 ? (uint8_t)vls : routing_vls_supported(f);
}

/* The tables to program for the new model (routing/update.h), then the
 * vport LIDs, the P_Key tables, and programming. */
static void
route_program(struct sweep *sw)
{
	struct update_req q = {
		.chain = sw->o.chain, .nchain = sw->o.nchain,
		.ropts = sw->o.ropts, .f = sw->next,
		.cur_f = sw->have_cur ? sw->cur : NULL,
		.cur = sw->have_cur ? sw->cur_lft : NULL,
		.cur_layers = sw->have_cur ? sw->cur_layers : NULL,
		.held = &sw->held, .reroute = sw->reroute,
		.keep_routes = sw->keep_routes, .takeover = sw->learn,
		.log = update_log, .route_log = log_route,
	};
	struct update_res res;
	uint16_t sm_lid;
	bool vp;

	sm_lid = sw->next->ports[sw->next->sm_port].lid;
	lft_set_fini(sw->next_lft);
	route_layers_fini(sw->next_layers);
	memset(sw->next_layers, 0, sizeof(*sw->next_layers));
	q.ropts.vls = layer_vls(sw);
	if (update_run(sw->upd, &q, &res) < 0) {
		snprintf(sw->why, sizeof(sw->why), "no routing engine could "
		    "route the fabric");
		sw_fsm(sw, EV_FAILED);
		return;
	}
	*sw->next_lft = res.lft;
	*sw->next_layers = res.layers;
	sw->report = res.report;
	sw->rebalances += res.rebalanced;
	sw->repairs += res.repaired;
	if (res.held) {
		if (sw->learn)
			sw->inherited = res.kept;
		lft_set_fini(&sw->held);
		memset(&sw->held, 0, sizeof(sw->held));
	}
	vp = (sw->o.virt_mode != CFG_VIRT_OFF && sw->next_vp->n > 0) ||
	    (sw->o.virt_mode == CFG_VIRT_OFF && sw->vlids.n > 0);
	/* vport LIDs forward where their physical port's do: the rows are
	 * this set's alone before they are written */
	if (vp && lft_set_own(sw->next_lft) < 0)
		fatal("sweep: out of memory");
	if (vp && sw->o.virt_mode == CFG_VIRT_OFF)
		sw_forward_vlids(sw, sw->next);
	else if (vp) {
		if (lft_set_grow(sw->next_lft, vport_max_lid(sw->next_vp)) < 0)
			fatal("sweep: out of memory");
		sw_copy_vport_lids(sw, sw->next);
	}
	sw->pk_fabric = sw->next;
	sw_build_pkeys(sw);
	forget_returning(sw);
	sw->t_programming = sw_now();
	sw->compute_secs = sw->t_programming - sw->t_elected;
	program_start(sw->prog, sw->next, sw->next_lft, sw->want, sm_lid,
	    &sw->o.prog,
	    on_programmed, sw);
}

static void
adopt_next(struct sweep *sw)
{
	struct fabric *tf = sw->cur;
	struct lft_set *tl = sw->cur_lft;
	struct pkey_tables *tp = sw->cur_pk;
	struct vport_set *tv = sw->cur_vp;
	struct route_layers *ty = sw->cur_layers;

	if (sw->have_cur)
		vport_log_moves(sw->cur_vp, sw->cur, sw->next_vp, sw->next);
	sw->cur_layers = sw->next_layers;
	sw->next_layers = ty;
	sw->cur_vp = sw->next_vp;
	sw->next_vp = tv;
	sw->cur = sw->next;
	sw->next_live = false;
	sw->cur_lft = sw->next_lft;
	sw->cur_pk = sw->next_pk;
	sw->next = tf;
	sw->next_lft = tl;
	sw->next_pk = tp;
	sw->have_cur = true;
	if (sw->o.mkeys != NULL)
		mkeys_adopted(sw->o.mkeys, sw->cur);
	/* Readers of the old model let go of it before it is freed. */
	if (sw->adopt_cb != NULL)
		sw->adopt_cb(sw->adopt_arg);
	pkey_tables_free(sw->next_pk);
	memset(sw->next_pk, 0, sizeof(*sw->next_pk));
	vport_set_clear(sw->next_vp);
	fabric_fini(sw->next);
	lft_set_fini(sw->next_lft);
	memset(sw->next_lft, 0, sizeof(*sw->next_lft));
	route_layers_fini(sw->next_layers);
	memset(sw->next_layers, 0, sizeof(*sw->next_layers));
	/* The model in use changes only here: count its holes once, not at
	 * every light sweep and stats write. */
	sw->cur_holes = discover_holes(sw->cur, NULL, NULL);
	sw_save_vlids(sw);
}

/* The end of a sweep, for status and stats. */
void
sw_finished(struct sweep *sw, const char *kind, bool ok)
{
	sw->last_kind = kind;
	sw->last_secs = sw_now() - sw->sweep_started;
	sw->last_ok = ok;
}

static void
heavy_done(struct sweep *sw)
{
	bool first = sw->up_at == 0, was_up = sw->up;
	char line[256];

	sw_log_changes(sw);
	adopt_next(sw);
	persist_end(sw, "cleared");
	sw->reroute = false;
	sw->failures_in_row = 0;
	sw->up = true;
	if (sw->learn)
		sw->keep_routes = true;
	sw->learn = false;
	lft_set_fini(&sw->held);
	memset(&sw->held, 0, sizeof(sw->held));
	sw_finished(sw, "heavy", true);
	if (first)
		sw->up_at = sw_now();
	if (!was_up) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		sw->up_wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		sw->up_mono = sw_now();
	}
	sweep_summary(sw, line, sizeof(line));
	log_info("%s%s", was_up ? "sweep: done: " : "SUBNET UP: ", line);
	sw_write_stats(sw);
	sw_arm_timer(sw, sw->o.interval);
	sw_back_to_idle(sw);
	sw->cb(sw->cb_arg, true, NULL);
}

/* The end of a persistent failure (how: "cleared", "changed"). */
static void
persist_end(struct sweep *sw, const char *how)
{
	if (sw->persist[0] == '\0')
		return;
	log_info("sweep: %s after %" PRIu64 " heavy sweep%s in %.1f s: %s", how,
	    sw->persist_tries, sw->persist_tries == 1 ? "" : "s",
	    sw_now() - sw->persist_since, sw->persist);
	sw->persist[0] = '\0';
	sw->persist_tries = 0;
}

/* Retries back off from 1 s (or a shorter sweep interval), doubling, to
 * the sweep interval (30 s without one): a fabric settling after a change
 * often answers the second time, a lossy one needs patience. */
static double
retry_delay(const struct sweep *sw)
{
	double iv = sw->o.interval, d = iv > 0 && iv < 1 ? iv : 1.0;
	double cap = iv > d ? iv : iv > 0 ? d : 30.0;

	for (uint64_t i = 1; i < sw->failures_in_row && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

static void
retry_later(struct sweep *sw, const char *what)
{
	double after;

	sw->failures_in_row++;
	sw->up = false;
	sw_finished(sw, "heavy", false);
	after = retry_delay(sw);
	if (strcmp(sw->persist, sw->why) == 0) {
		sw->persist_tries++;
		log_debug("sweep: heavy sweep %s again (%" PRIu64 " tries, "
		    "%.1f s): %s; next try in %.1f s", what, sw->persist_tries,
		    sw_now() - sw->persist_since, sw->why, after);
	} else {
		persist_end(sw, "changed");
		log_warnx("sweep: heavy sweep %s: %s; next try in %.1f s (the "
		    "retries are logged when this changes or ends)", what,
		    sw->why, after);
		snprintf(sw->persist, sizeof(sw->persist), "%s", sw->why);
		sw->persist_since = sw_now();
		sw->persist_tries = 1;
	}
	sw_write_stats(sw);
	sw_arm_timer(sw, after);
	sw_back_to_idle(sw);
	if (sw->failures_in_row >= sw->o.max_failures)
		sw->cb(sw->cb_arg, false, sw->why);
}

static void
heavy_failed(struct sweep *sw)
{
	retry_later(sw, "failed");
}

/* Programmed, but not all of it: the devices hold the new model's state
 * as far as it went, so it is the model in use from now on (this SM,
 * elected before programming, stays master: a node that never answers
 * keeps the subnet from being up, not this SM from being master). */
static void
heavy_incomplete(struct sweep *sw)
{
	adopt_next(sw);
	retry_later(sw, "incomplete");
}

/* ---- standing by, taking over ---- */

/* Another SM is master: nothing was written. The LIDs it gave are
 * learnt (they are what a takeover keeps), and what this SM knew of the
 * devices' tables is void from now on. */
static void
standby_done(struct sweep *sw)
{
	sw->up = false;         /* the subnet is the master's now */
	learn_lids(sw);
	program_forget(sw->prog);
	vports_forget(sw->vports);
	sw->learn = true;
	persist_end(sw, "cleared");
	sw_finished(sw, "heavy", true);
	log_info("sweep: standing by (%s): nothing written",
	    smstate_detail(sw->ss));
	sw_write_stats(sw);
	sw_back_to_idle(sw);
}

static void
seed_block(void *arg, uint64_t guid, uint16_t top, uint32_t block,
    const uint8_t *data)
{
	struct sweep *sw = arg;

	program_seed_lft(sw->prog, guid, top, block, data);
}

static void
on_inherited(void *arg, unsigned failures)
{
	struct sweep *sw = arg;

	sw->inh = NULL;
	if (failures > 0)
		log_info("sweep: %u LFT blocks in place could not be read",
		    failures);
	sw_fsm(sw, EV_INHERITED);
}

/* The first sweep as master after standing by (a takeover, a handover):
 * keep the LIDs the ports hold and read the routes the switches hold
 * before routing. */
static void
start_inherit(struct sweep *sw)
{
	keep_silent(sw);
	learn_lids(sw);
	if (assign_lids(sw) < 0) {
		snprintf(sw->why, sizeof(sw->why), "no LID for the SM's port");
		sw_fsm(sw, EV_FAILED);
		return;
	}
	lft_set_fini(&sw->held);
	memset(&sw->held, 0, sizeof(sw->held));
	sw->inh = inherit_read(sw->mad, sw->next, &sw->held, seed_block,
	    on_inherited, sw);
}

void
sweep_after_reload(struct sweep *sw)
{
	sw->after_reload = true;
}

void
sweep_set_stats_hook(struct sweep *sw, sweep_stats_cb cb, void *arg)
{
	sw->stats_cb = cb;
	sw->stats_arg = arg;
}

void
sweep_set_adopt_hook(struct sweep *sw, sweep_adopt_cb cb, void *arg)
{
	sw->adopt_cb = cb;
	sw->adopt_arg = arg;
}

void
sweep_set_opts(struct sweep *sw, const struct sweep_opts *o)
{
	const char *state_dir = sw->o.state_dir;
	double old = sw->o.interval;

	sw->o = *o;
	sw->o.state_dir = state_dir;    /* fixed for the life of the daemon */
	vports_set_window(sw->vports, o->virt_max_ports);
	if (o->interval != old && sw->state == ST_IDLE && sw->have_cur &&
	    sw->failures_in_row == 0)
		sw_arm_timer(sw, o->interval);
}

/* ---- life cycle ---- */

struct sweep *
sweep_new(struct ev_loop *loop, struct mad_engine *mad, struct sminfo *sm,
    struct smstate *ss, const struct sweep_opts *o, sweep_up_cb cb, void *arg)
{
	struct sweep *sw = calloc(1, sizeof(*sw));
	unsigned bad = 0;
	char why[256];

	if (sw == NULL)
		fatal("sweep: out of memory");
	notes_init(&sw->pknotes, "partitions");
	sw->loop = loop;
	sw->mad = mad;
	sw->sm = sm;
	sw->ss = ss;
	sw->o = *o;
	sw->cb = cb;
	sw->cb_arg = arg;
	sw->started = sw_now();
	sw->cur = &sw->fab[0];
	sw->next = &sw->fab[1];
	sw->cur_lft = &sw->lfts[0];
	sw->next_lft = &sw->lfts[1];
	sw->cur_layers = &sw->layers[0];
	sw->next_layers = &sw->layers[1];
	sw->cur_pk = &sw->pks[0];
	sw->next_pk = &sw->pks[1];
	sw->cur_vp = &sw->vps[0];
	sw->next_vp = &sw->vps[1];
	vport_set_init(sw->cur_vp);
	vport_set_init(sw->next_vp);
	sw->vports = vports_new(mad);
	vports_set_window(sw->vports, o->virt_max_ports);
	fabric_init(sw->cur);
	fabric_init(sw->next);
	sw->lids = lid_map_new();
	sw->prog = program_new(mad);
	sw->upd = update_new();
	if (o->state_dir != NULL) {
		snprintf(sw->guid2lid, sizeof(sw->guid2lid), "%s/guid2lid",
		    o->state_dir);
		snprintf(sw->stats, sizeof(sw->stats), "%s/stats", o->state_dir);
		if (lid_map_load(sw->lids, sw->guid2lid, &bad) < 0)
			log_warnx("sweep: cannot read %s: %s; starting with no "
			    "remembered LIDs", sw->guid2lid,
			    lid_map_why(sw->lids));
		else if (lid_map_count(sw->lids) > 0 || bad > 0)
			log_info("sweep: %zu LIDs remembered in %s%s",
			    lid_map_count(sw->lids), sw->guid2lid,
			    bad ? " (some lines skipped)" : "");
		snprintf(sw->vlids_path, sizeof(sw->vlids_path),
		    "%s/vport_lids", o->state_dir);
		if (vlids_load(&sw->vlids, sw->vlids_path, &bad, why,
		    sizeof(why)) < 0)
			log_warnx("sweep: cannot read %s: %s", sw->vlids_path,
			    why);
		else if (sw->vlids.n > 0 || bad > 0)
			log_info("sweep: %zu vport LIDs remembered in %s%s%s",
			    sw->vlids.n, sw->vlids_path,
			    bad ? " (some lines skipped)" : "",
			    o->virt_mode == CFG_VIRT_OFF ? ": forwarded as their "
			    "physical ports' (virtualization off)" : "");
	}
	ev_idle_init(&sw->idle, idle_cb);
	sw->idle.data = sw;
	ev_timer_init(&sw->timer, timer_cb, 0., 0.);
	sw->timer.data = sw;
	sw->hd = holddown_new(HOLDDOWN_SECS);
	ev_timer_init(&sw->hd_timer, hd_timer_cb, 0., 0.);
	sw->hd_timer.data = sw;
	ev_timer_init(&sw->mkey_timer, hd_timer_cb, 0., 0.);
	sw->mkey_timer.data = sw;
	return sw;
}

void
sweep_free(struct sweep *sw)
{
	if (sw == NULL)
		return;
	notes_fini(&sw->pknotes);
	if (sw->disc != NULL)
		discover_abort(sw->disc);
	inherit_abort(sw->inh);
	lft_set_fini(&sw->held);
	ev_idle_stop(sw->loop, &sw->idle);
	ev_timer_stop(sw->loop, &sw->timer);
	ev_timer_stop(sw->loop, &sw->hd_timer);
	ev_timer_stop(sw->loop, &sw->mkey_timer);
	holddown_free(sw->hd);
	program_free(sw->prog);
	vports_free(sw->vports);
	vport_set_fini(sw->cur_vp);
	vport_set_fini(sw->next_vp);
	vlids_free(&sw->vlids);
	lid_map_free(sw->lids);
	fabric_fini(sw->cur);
	fabric_fini(sw->next);
	lft_set_fini(sw->cur_lft);
	lft_set_fini(sw->next_lft);
	route_layers_fini(sw->cur_layers);
	route_layers_fini(sw->next_layers);
	pkey_tables_free(sw->cur_pk);
	pkey_tables_free(sw->next_pk);
	pkey_tables_free(&sw->dev_pk);
	free(sw->want);
	update_free(sw->upd);
	free(sw);
}
