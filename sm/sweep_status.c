/*
 * The sweep's status and reporting (sm/sweep_priv.h): the stats file
 * (written through the daemon's hook), the nodes and links a new model
 * gains and loses, named for the log, and the read-only views of
 * sm/sweep.h: the status, the one-line summary, what was not reached, the
 * model, tables, P_Keys and vports in use.
 */
#include "sm/sweep.h"
#include "sm/sweep_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "core/log.h"
#include "core/query.h"
#include "mad/mad.h"
#include "sm/discover.h"
#include "sm/smstate.h"
#include "sm/vports.h"

/* ---- stats file ---- */

void
sw_write_stats(struct sweep *sw)
{
	char tmp[4200], why[160];
	FILE *fp;

	if (sw->o.state_dir == NULL || sw->stats_cb == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", sw->stats);
	if (file_check_replace(sw->stats, why, sizeof(why)) < 0) {
		if (!sw->stats_unwritten)
			log_warnx("sweep: cannot write %s: %s", sw->stats, why);
		sw->stats_unwritten = true;
		return;
	}
	if ((fp = fopen(tmp, "w")) == NULL) {
		if (!sw->stats_unwritten)
			log_warn("sweep: cannot write %s", tmp);
		sw->stats_unwritten = true;
		return;
	}
	/* the status document (ibsmctl status), one line per value */
	sw->stats_cb(sw->stats_arg, fp);
	if (fflush(fp) != 0 || fclose(fp) != 0 ||
	    rename(tmp, sw->stats) != 0) {
		if (!sw->stats_unwritten)
			log_warn("sweep: cannot write %s", sw->stats);
		sw->stats_unwritten = true;
	} else {
		if (sw->stats_unwritten)
			log_info("sweep: %s written again", sw->stats);
		sw->stats_unwritten = false;
	}
}

void
sweep_write_stats(struct sweep *sw)
{
	sw_write_stats(sw);
}

/* ---- the model's changes, for the log ---- */

/* Lines of sw_log_changes() before it only counts. */
#define CHANGES_NAMED_MAX 16

/* Nodes and links of a that b lacks ("lost"/"new" by what): a node by GUID,
 * a link by both ends' node GUIDs and port numbers, each link once. */
static unsigned
diff_models(const struct fabric *a, const struct fabric *b, const char *what,
    unsigned named)
{
	char na[128], nb[128];

	for (uint32_t n = 0; n < a->nnodes; n++)
		if (fabric_node_by_guid(b, a->nodes[n].guid) == FABRIC_NONE &&
		    named++ < CHANGES_NAMED_MAX)
			log_info("sweep: %s node: %s", what,
			    query_node_text(a, n, na, sizeof(na)));
	for (uint32_t p = 0; p < a->nports; p++) {
		const struct fabric_port *port = &a->ports[p];
		const struct fabric_port *peer;
		uint32_t bn, bq, pn;

		if (port->peer == FABRIC_NONE || port->num == 0)
			continue;
		peer = &a->ports[port->peer];
		pn = peer->node;
		/* once per link; links of a lost or new node go with it */
		if (port->peer < p && a->ports[port->peer].peer == p)
			continue;
		if ((bn = fabric_node_by_guid(b, a->nodes[port->node].guid)) ==
		    FABRIC_NONE || fabric_node_by_guid(b, a->nodes[pn].guid) ==
		    FABRIC_NONE)
			continue;
		if (port->num <= b->nodes[bn].nports) {
			bq = fabric_port_idx(b, bn, port->num);
			if (b->ports[bq].peer != FABRIC_NONE &&
			    b->nodes[fabric_peer_node(b, bq)].guid ==
			    a->nodes[pn].guid &&
			    b->ports[b->ports[bq].peer].num == peer->num)
				continue;
		}
		if (named++ < CHANGES_NAMED_MAX)
			log_info("sweep: %s link: %s port %u -- %s port %u", what,
			    query_node_text(a, port->node, na, sizeof(na)),
			    port->num, query_node_text(a, pn, nb, sizeof(nb)),
			    peer->num);
	}
	return named;
}

/* What the new model changes in the one in use, named for the log. */
void
sw_log_changes(struct sweep *sw)
{
	unsigned named;

	if (!sw->have_cur)
		return;
	named = diff_models(sw->cur, sw->next, "lost", 0);
	named = diff_models(sw->next, sw->cur, "new", named);
	if (named > CHANGES_NAMED_MAX)
		log_info("sweep: and %u more node and link changes",
		    named - CHANGES_NAMED_MAX);
}

/* ---- views ---- */

/* Up as this SM's subnet: a master whose last heavy sweep was complete
 * (one that handed over keeps its flag until its next sweep). */
static bool
up_now(const struct sweep *sw)
{
	return sw->up && smstate_state(sw->ss) == SM_MASTER;
}

/* The same in the vport set in use. */
static void
vport_counts(const struct sweep *sw, unsigned *up, unsigned *own)
{
	sw_vset_counts(sw->have_cur ? sw->cur_vp : NULL, up, own);
}

void
sweep_get_status(const struct sweep *sw, struct sweep_status *st)
{
	unsigned up = 0, own = 0;

	memset(st, 0, sizeof(*st));
	st->state = sw_state_name(sw->state);
	st->enabled = !sw->paused;
	st->subnet_up = up_now(sw);
	st->up_seconds = sw->up_at > 0 ? sw->up_at - sw->started : 0;
	st->up_since = st->subnet_up ? sw->up_wall : 0;
	st->up_for = st->subnet_up ? sw_now() - sw->up_mono : 0;
	st->seen = sw->seen;
	st->seen_nodes = sw->seen_nodes;
	st->seen_wall = sw->seen_wall;
	st->holes = sw->cur_holes;
	st->discover_seconds = sw->discover_secs;
	st->elect_seconds = sw->elect_secs;
	st->compute_seconds = sw->compute_secs;
	st->inherit_kept = sw->inherited.kept;
	st->inherit_mixed = sw->inherited.mixed;
	st->inherit_computed = sw->inherited.computed;
	st->rebalances = sw->rebalances;
	st->repairs = sw->repairs;
	st->client_reregs = sw->client_reregs;
	st->vport_clears = sw->vport_clears;
	st->sweeps = sw->sweeps;
	st->heavy_sweeps = sw->heavy_sweeps;
	st->light_sweeps = sw->light_sweeps;
	st->last_kind = sw->last_kind ? sw->last_kind : "none";
	st->last_seconds = sw->last_secs;
	st->last_ok = sw->last_ok;
	st->last_why = sw->last_ok ? "" : sw->why;
	st->failures_in_row = sw->failures_in_row;
	st->programs = sw->programs;
	st->last_program = sw->last_prog;
	if (sw->o.virt_mode != CFG_VIRT_OFF) {
		vport_counts(sw, &up, &own);
		st->virt = true;
		st->vport_hosts = sw->have_cur ? sw->cur_vp->nh : 0;
		st->vports_up = up;
		st->vport_own_lids = own;
		st->vports_managed = sw->last_vprog.managed;
		st->vport_sweeps = sw->vport_sweeps;
	}
}

void
sweep_key_view(const struct sweep *sw, const struct fabric **fresh,
    const struct fabric **cur)
{
	*fresh = sw->next_live ? sw->next : NULL;
	*cur = sw->have_cur ? sw->cur : NULL;
}

const struct fabric *
sweep_fabric(const struct sweep *sw)
{
	return sw->have_cur ? sw->cur : NULL;
}

const struct lft_set *
sweep_lft(const struct sweep *sw)
{
	return sw->have_cur ? sw->cur_lft : NULL;
}

const struct route_layers *
sweep_layers(const struct sweep *sw)
{
	return sw->have_cur ? sw->cur_layers : NULL;
}

const struct route_layers *
sweep_layers_of(const struct sweep *sw, const struct fabric *f)
{
	if (sw->have_cur && f == sw->cur)
		return sw->cur_layers;
	if (f == sw->next)
		return sw->next_layers;
	return NULL;
}

const struct pkey_tables *
sweep_pkeys(const struct sweep *sw)
{
	return sw->have_cur && sw->o.policy != NULL ? sw->cur_pk : NULL;
}

const struct route_report *
sweep_report(const struct sweep *sw)
{
	return sw->have_cur ? &sw->report : NULL;
}

const struct vport_set *
sweep_vports(const struct sweep *sw)
{
	return sw->have_cur && sw->o.virt_mode != CFG_VIRT_OFF ? sw->cur_vp : NULL;
}

void
sweep_vport_stats(const struct sweep *sw, struct vports_result *r)
{
	*r = sw->last_vprog;
}

struct unreached_ctx {
	const struct fabric *f;
	void (*cb)(void *, const char *);
	void *arg;
};

static void
unreached_line(void *arg, const struct discover_hole *h)
{
	struct unreached_ctx *c = arg;
	char line[200];

	discover_hole_text(c->f, h, line, sizeof(line));
	c->cb(c->arg, line);
}

unsigned
sweep_unreached(const struct sweep *sw,
    void (*cb)(void *arg, const char *line), void *arg)
{
	struct unreached_ctx c = { .f = sw->cur, .cb = cb, .arg = arg };

	if (!sw->have_cur)
		return 0;
	return discover_holes(sw->cur, cb != NULL ? unreached_line : NULL, &c);
}

void
sweep_summary(const struct sweep *sw, char *buf, size_t len)
{
	struct fabric_counts k;
	uint16_t lo = 0, hi = 0;
	const struct fabric *f = sw->cur;

	if (!sw->have_cur) {
		snprintf(buf, len, "no fabric yet");
		return;
	}
	fabric_count(f, &k);
	for (uint32_t p = 0; p < f->nports; p++) {
		uint16_t l = f->ports[p].lid;
		uint32_t top = l + (1u << f->ports[p].lmc) - 1;

		if (!fabric_port_is_endport(f, p) || l == 0)
			continue;
		if (lo == 0 || l < lo)
			lo = l;
		if (top > hi)
			hi = (uint16_t)top;
	}
	snprintf(buf, len, "%u nodes (%u switches, %u CA ports), %u LIDs "
	    "(%u-%u), routed by %s, %" PRIu64 " SMPs sent, %.3f s since start",
	    f->nnodes, k.switches, k.ca_ports, k.lids, lo, hi,
	    sw->report.engine,
	    mad_total_sent(sw->mad), sw_now() - sw->started);
}
