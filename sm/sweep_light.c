/*
 * The light sweep (sm/sweep_priv.h): every switch's SwitchInfo read (sent
 * again once when unanswered) and, with virtualization on, every
 * virtualization-capable port's VPortStateChange polled. A switch or port
 * change, a switch that stops answering, or holes in the model in use
 * escalate to a heavy sweep; a change of vports alone, as master with
 * virtualization enabled, to a vport sweep.
 */
#include "sm/sweep.h"
#include "sm/sweep_priv.h"

#include <inttypes.h>
#include <stdlib.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/smstate.h"
#include "sm/vports.h"

/* Times a light sweep's SwitchInfo Get is sent when no round is
 * answered, before the switch is taken for changed. */
#define LIGHT_ROUNDS 2

struct lreq {
	struct sweep *sw;
	unsigned gen;
	uint32_t node;          /* in sw->cur */
	unsigned round;
};

static int light_send(struct lreq *q);
static void light_end(struct sweep *sw);

static void
on_light(void *arg, int status, const uint8_t *resp)
{
	struct lreq *q = arg;
	struct sweep *sw = q->sw;

	if (q->gen == sw->light_gen && sw->state == ST_LIGHT) {
		if ((status == MAD_ETIMEDOUT || status == MAD_ESEND) &&
		    ++q->round < LIGHT_ROUNDS && light_send(q) == 0)
			return;
		if (status != 0 || resp == NULL)
			sw->light_changed = true;
		else if (mad_get_field((void *)(resp + SMP_DATA_OFFSET), 0,
		    IB_SW_STATE_CHANGE_F))
			sw->light_changed = true;
		if (--sw->light_pending == 0)
			light_end(sw);
	}
	free(q);
}

static int
light_send(struct lreq *q)
{
	const struct fabric *f = q->sw->cur;
	struct smp_req r = {
		.method = MAD_GET, .attr = ATTR_SWITCH_INFO,
		.path = &f->paths[f->nodes[q->node].path],
		.dest = f->nodes[q->node].guid,
	};

	return smp_request(q->sw->mad, &r, on_light, q);
}

/* The fabric in use has holes (a heavy sweep left something unreached, or
 * failed since): only a heavy sweep can fill them. */
static bool
light_must_escalate(struct sweep *sw)
{
	unsigned holes;

	if (!sw->have_cur)
		return false;
	if (sw->failures_in_row > 0) {
		if (sw->persist[0])
			log_debug("sweep: light sweep: the last heavy sweep "
			    "did not complete; sweeping heavy");
		else
			log_info("sweep: light sweep: the last heavy sweep did "
			    "not complete; sweeping heavy");
		return true;
	}
	if ((holes = sw->cur_holes) > 0) {
		log_info("sweep: light sweep: %u port%s of the fabric not "
		    "reached; sweeping heavy", holes, holes == 1 ? "" : "s");
		return true;
	}
	return false;
}

/* The end of a light sweep: a switch or port change needs a heavy sweep;
 * a change of vports alone, as master, only a vport sweep. */
static void
light_end(struct sweep *sw)
{
	if (sw->light_changed)
		sw_fsm(sw, EV_CHANGED);
	else if (sw->light_vports) {
		log_info("sweep: light sweep: a vport changed state");
		sw_fsm(sw, smstate_may_write(sw->ss) &&
		    sw->o.virt_mode == CFG_VIRT_ENABLED ? EV_VPORTS : EV_CHANGED);
	} else
		sw_fsm(sw, EV_CLEAN);
}

static void
on_vpoll(void *arg, bool changed)
{
	struct sweep *sw = arg;

	if (sw->state != ST_LIGHT)
		return;
	if (changed)
		sw->light_vports = true;
	if (--sw->light_pending == 0)
		light_end(sw);
}

void
sw_light_start(struct sweep *sw)
{
	struct fabric *f = sw->cur;

	sw->sweeps++;
	sw->light_sweeps++;
	sw->light_gen++;
	sw->sweep_started = sw_now();
	sw->light_changed = false;
	sw->light_vports = false;
	if (light_must_escalate(sw)) {
		sw_fsm(sw, EV_CHANGED);
		return;
	}
	sw->light_pending = 1;
	for (uint32_t n = 0; sw->have_cur && n < f->nnodes; n++) {
		struct lreq *q;

		if (f->nodes[n].type != NODE_SWITCH)
			continue;
		q = xcalloc(1, sizeof(*q));
		q->sw = sw;
		q->gen = sw->light_gen;
		q->node = n;
		sw->light_pending++;
		if (light_send(q) < 0) {
			sw->light_pending--;
			free(q);
		}
	}
	/* vports: VPortStateChange of every virtualization-capable port */
	if (sw->have_cur && sw->o.virt_mode != CFG_VIRT_OFF && sw->cur_vp->nh > 0) {
		sw->light_pending++;
		vports_poll(sw->vports, sw->cur, sw->cur_vp, on_vpoll, sw);
	}
	if (--sw->light_pending == 0) {
		if (!sw->have_cur)
			sw_fsm(sw, EV_CHANGED);
		else
			light_end(sw);
	}
}

void
sw_light_done(struct sweep *sw)
{
	log_debug("sweep: light sweep %" PRIu64 ": no change", sw->light_sweeps);
	sw_finished(sw, "light", true);
	sw_write_stats(sw);
	sw_arm_timer(sw, sw->o.interval);
	sw_back_to_idle(sw);
}
