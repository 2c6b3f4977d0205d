/*
 * The vports of the sweep (sm/sweep_priv.h): the vport sweep, which reads
 * the vports of the fabric in use again after a light sweep saw one change
 * state, gives new ones their LIDs and programs them and the tables, the
 * fabric staying; and the vport LIDs of every sweep: their LFT entries
 * copied from their physical ports', their own LIDs, the counts, and the
 * LIDs remembered for a run with virtualization off (sm/vlids.h).
 */
#include "sm/sweep.h"
#include "sm/sweep_priv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "sm/lid.h"
#include "sm/vlids.h"
#include "sm/vports.h"

/* ---- vport LIDs ---- */

/* The LFT entries of vport LIDs become copies of their physical port's
 * (vport_lft_copy), counted in the routing report. */
void
sw_copy_vport_lids(struct sweep *sw, const struct fabric *f)
{
	uint32_t n = 0;

	sw->report.vport_entries = vport_lft_copy(sw->next_vp, f,
	    sw->next_lft);
	for (uint32_t i = 0; i < sw->next_vp->n; i++) {
		const struct vport *v = &sw->next_vp->v[i];

		n += v->lid != 0 && v->lid != f->ports[v->port].lid;
	}
	sw->report.vport_lids = n;
	/* The engine counted the blocks it changed without the vport
	 * entries, against tables that hold them: count again, whole. */
	if (sw->have_cur)
		sw->report.blocks_changed = routing_blocks_changed(f,
		    sw->next_lft, sw->cur, sw->cur_lft);
	if (n > 0)
		log_info("routing: %u vport LID%s forwarded as their physical "
		    "ports' (%" PRIu64 " LFT entries copied; %" PRIu64 " blocks "
		    "differ from the tables in use)", n, n == 1 ? "" : "s",
		    sw->report.vport_entries, sw->report.blocks_changed);
}

/* Vports up (INIT or better; not the physical function) and those with a
 * LID of their own, in vs: what the log, ibsmctl status and ibsmctl vports
 * all count. */
void
sw_vset_counts(const struct vport_set *vs, unsigned *up, unsigned *own)
{
	*up = *own = 0;
	for (uint32_t i = 0; vs != NULL && i < vs->n; i++) {
		const struct vport *vp = &vs->v[i];

		if (vp->index == 0)
			continue;
		*up += vp->state >= PORT_INIT;
		*own += vport_wants_lid(vp) && vp->lid != 0;
	}
}

/* A vport's own LID from the LID manager. With virtualization disabled no
 * VPortLID is written: a LID other than the one the VM holds would route
 * traffic to a LID it does not answer to, so the vport is left unrouted
 * (said once a sweep). */
void
sw_set_vport_own_lid(struct sweep *sw, struct vport *vp, uint16_t lid)
{
	if (sw->o.virt_mode == CFG_VIRT_DISABLED && lid != vp->cur_lid) {
		log_warnx("sweep: virtualization disabled: vport 0x%016" PRIx64
		    " holds LID %u, which is not free (the LID manager "
		    "offers %u): left unrouted", vp->guid, vp->cur_lid, lid);
		vp->idle = 1;
		vp->own_lid = 0;
		return;
	}
	vp->own_lid = lid;
}

/* disabled and enabled: the vport LIDs up are remembered for a later run
 * with virtualization off (sm/vlids.h). */
void
sw_save_vlids(struct sweep *sw)
{
	struct vlids now = { NULL, 0 };

	if (sw->o.virt_mode == CFG_VIRT_OFF || sw->vlids_path[0] == '\0')
		return;
	vlids_from_set(&now, sw->cur_vp, sw->cur);
	if (vlids_equal(&now, &sw->vlids)) {
		vlids_free(&now);
		return;
	}
	if (vlids_save(&now, sw->vlids_path) < 0)
		log_warn("sweep: cannot save %s", sw->vlids_path);
	vlids_free(&sw->vlids);
	sw->vlids = now;
}

/* off: the vport LIDs an earlier run saw up forward as their hosts'. */
void
sw_forward_vlids(struct sweep *sw, const struct fabric *f)
{
	long n = vlids_apply(&sw->vlids, f, sw->next_lft);

	if (n < 0)
		fatal("sweep: out of memory");
	if (n != sw->vlids_fwd)
		log_info("sweep: virtualization off: %ld of the %zu vport LIDs "
		    "seen running by an earlier run (%s) forwarded as their "
		    "physical ports' LIDs (no vport attribute is sent)", n,
		    sw->vlids.n, sw->vlids_path);
	sw->vlids_fwd = n;
	if (n > 0 && sw->have_cur)
		sw->report.blocks_changed = routing_blocks_changed(f,
		    sw->next_lft, sw->cur, sw->cur_lft);
}

/* ---- vport sweep: the fabric in use, its vports read again ---- */

static void
on_vport_sweep_programmed(void *arg, const struct vports_result *r)
{
	struct sweep *sw = arg;

	sw->last_vprog = *r;
	sw->vport_clears += r->clears;
	log_info("sweep: vport sweep: %u managed, %u P_Key blocks and %u LIDs "
	    "written, %u armed, %u activated, %u latches cleared, %u SMPs%s%s",
	    r->managed, r->pkey_writes, r->lid_writes, r->armed, r->activated,
	    r->clears, r->smps,
	    r->first_failure[0] ? "; " : "", r->first_failure);
	if (r->timeouts + r->errors > 0) {
		snprintf(sw->why, sizeof(sw->why), "vports: %s",
		    r->first_failure);
		sw_fsm(sw, EV_CHANGED);
		return;
	}
	sw_fsm(sw, EV_PROGRAMMED);
}

static void
on_vport_sweep_ports(void *arg, const struct program_result *r)
{
	struct sweep *sw = arg;

	sw->last_prog = *r;
	log_info("sweep: vport sweep: %u LFT blocks, %u P_Key blocks written",
	    r->lft_writes, r->pkey_writes);
	if (!r->ok) {
		snprintf(sw->why, sizeof(sw->why), "programming: %s", r->why);
		sw_fsm(sw, EV_CHANGED);
		return;
	}
	vports_program(sw->vports, sw->cur, sw->next_vp,
	    on_vport_sweep_programmed, sw);
}

static void
on_vports_reread(void *arg, const struct vports_result *r)
{
	struct sweep *sw = arg;
	struct fabric *f = sw->cur;
	struct lid_req *reqs;
	uint32_t *idx;
	size_t n = 0;

	sw->vport_clears += r->clears;
	if (r->timeouts + r->errors > 0) {
		snprintf(sw->why, sizeof(sw->why), "vports: %s",
		    r->first_failure);
		sw_fsm(sw, EV_CHANGED);
		return;
	}
	(void)vport_mark_duplicates(sw->next_vp, f, sw->o.alias);
	/* LIDs of their own: the same map, the vports' requests only (the
	 * ports' LIDs stay remembered, so none is given twice) */
	reqs = xcalloc(sw->next_vp->n + 1, sizeof(*reqs));
	idx = xcalloc(sw->next_vp->n + 1, sizeof(*idx));
	for (uint32_t v = 0; v < sw->next_vp->n; v++)
		if (vport_wants_lid(&sw->next_vp->v[v])) {
			reqs[n].guid = sw->next_vp->v[v].guid;
			reqs[n].cur = sw->next_vp->v[v].cur_lid;
			reqs[n].single = true;
			idx[n++] = v;
		}
	if (lid_assign(sw->lids, reqs, n, sw->o.lmc) < 0)
		log_warnx("sweep: LID space exhausted: some vports get no LID");
	for (size_t i = 0; i < n; i++)
		sw->next_vp->v[idx[i]].own_lid = reqs[i].lid;
	sw_save_lids(sw);
	free(reqs);
	free(idx);
	vport_resolve_lids(sw->next_vp, f);
	/* the tables in use, the vport entries made again */
	lft_set_fini(sw->next_lft);
	if (lft_set_copy(sw->next_lft, sw->cur_lft, f->nnodes) < 0 ||
	    lft_set_grow(sw->next_lft, vport_max_lid(sw->next_vp)) < 0)
		fatal("sweep: out of memory");
	for (uint32_t i = 0; i < sw->cur_vp->n; i++) {
		const struct vport *v = &sw->cur_vp->v[i];

		if (v->lid == 0 || v->lid == f->ports[v->port].lid ||
		    v->lid > sw->next_lft->max_lid ||
		    fabric_port_by_lid(f, v->lid) != FABRIC_NONE)
			continue;
		for (uint32_t s = 0; s < sw->next_lft->nsw; s++)
			lft_row(sw->next_lft, s)[v->lid] = LFT_NO_ROUTE;
	}
	sw_copy_vport_lids(sw, f);
	sw->pk_fabric = f;
	sw_build_pkeys(sw);
	program_start(sw->prog, f, sw->next_lft, sw->want,
	    f->ports[f->sm_port].lid, &sw->o.prog, on_vport_sweep_ports, sw);
}

void
sw_vports_start(struct sweep *sw)
{
	sw->vport_sweeps++;
	vport_set_clear(sw->next_vp);
	vports_discover_changed(sw->vports, sw->cur, sw->next_vp, sw->cur_vp,
	    true, on_vports_reread, sw);
}

/* The new vports, tables and P_Keys are the ones in use; the fabric
 * stays. */
void
sw_vports_done(struct sweep *sw)
{
	struct lft_set *tl = sw->cur_lft;
	struct pkey_tables *tp = sw->cur_pk;
	struct vport_set *tv = sw->cur_vp;

	sw->cur_lft = sw->next_lft;
	sw->next_lft = tl;
	sw->cur_pk = sw->next_pk;
	sw->next_pk = tp;
	vport_log_moves(sw->cur_vp, sw->cur, sw->next_vp, sw->cur);
	sw->cur_vp = sw->next_vp;
	sw->next_vp = tv;
	if (sw->adopt_cb != NULL)
		sw->adopt_cb(sw->adopt_arg);
	pkey_tables_free(sw->next_pk);
	memset(sw->next_pk, 0, sizeof(*sw->next_pk));
	vport_set_clear(sw->next_vp);
	lft_set_fini(sw->next_lft);
	memset(sw->next_lft, 0, sizeof(*sw->next_lft));
	sw_save_vlids(sw);
	sw_finished(sw, "vport", true);
	log_info("sweep: vport sweep %" PRIu64 " done", sw->vport_sweeps);
	sw_write_stats(sw);
	sw_arm_timer(sw, sw->o.interval);
	sw_back_to_idle(sw);
}
