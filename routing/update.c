#include "routing/update.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/cdg.h"
#include "routing/kernel.h"
#include "routing/repair.h"

/* The balanced tables: the rows of the set last routed afresh (shared with
 * it), the GUIDs of their switches, and the switch links they knew. */
struct update {
	struct lft_set base;
	uint64_t *base_guid;            /* [base.nsw] */
	uint32_t base_links;
	bool have_base;
};

/* One update_run. */
struct run {
	struct update *u;
	const struct update_req *q;
	struct update_res *res;
	struct lft_set *lft;            /* the tables being chosen (res->lft) */
	struct route_report rep;        /* their report */
	const struct lft_set *held;     /* the routes in place, NULL */
	struct lft_set held_own;        /* held, when made from the tables in
					 * use (a subnet taken over) */
	bool base_next;                 /* lft is routed afresh: the balanced
					 * tables from now on */
};

static void __attribute__((format(printf, 3, 4)))
say(const struct run *r, enum update_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (r->q->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->q->log(r->q->log_arg, level, msg);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t switch_links(const struct fabric *f);

/* Remember lft, routed afresh, as the balanced tables: a reference to its
 * rows, not a copy (whoever writes them later owns them first). */
static void
save_base(struct run *r)
{
	struct update *u = r->u;
	const struct lft_set *s = r->lft;

	lft_set_fini(&u->base);
	free(u->base_guid);
	if (lft_set_share(&u->base, r->lft, r->q->f->nnodes) < 0)
		fatal("routing: out of memory");
	u->base_guid = xcalloc(s->nsw, sizeof(*u->base_guid));
	for (uint32_t i = 0; i < s->nsw; i++)
		u->base_guid[i] = r->q->f->nodes[s->sw_node[i]].guid;
	u->base_links = switch_links(r->q->f);
	u->have_base = true;
}

/* The balanced tables, laid out for the new model (switches it lacks are
 * left unrouted); -1 when there are none. */
static int
base_for_next(struct run *r, struct lft_set *out)
{
	const struct lft_set *b = &r->u->base;

	if (!r->u->have_base || lft_set_init(out, r->q->f) < 0)
		return -1;
	for (uint32_t i = 0; i < b->nsw; i++) {
		uint32_t n = fabric_node_by_guid(r->q->f, r->u->base_guid[i]), k;
		uint32_t last;

		if (n == FABRIC_NONE || (k = out->node_sw[n]) == FABRIC_NONE)
			continue;
		last = out->max_lid < b->max_lid ? out->max_lid : b->max_lid;
		memcpy(lft_row(out, k), lft_row(b, i), last + 1u);
	}
	return 0;
}

/* After a takeover, the tables in place are the ones the last heavy sweep
 * programmed: held, for the new fabric's switches (by GUID). */
static bool
held_from_cur(struct run *r)
{
	struct lft_set *h = &r->held_own;

	if (!r->q->keep_routes || r->q->cur_f == NULL)
		return false;
	if (lft_set_init(h, r->q->f) < 0)
		fatal("routing: out of memory");
	for (uint32_t i = 0; i < h->nsw; i++) {
		uint32_t n = fabric_node_by_guid(r->q->cur_f,
		    r->q->f->nodes[h->sw_node[i]].guid), ci;
		uint32_t last;

		if (n == FABRIC_NONE || (ci = r->q->cur->node_sw[n]) ==
		    FABRIC_NONE)
			continue;
		last = h->max_lid < r->q->cur->max_lid ? h->max_lid :
		    r->q->cur->max_lid;
		memcpy(lft_row(h, i), lft_row(r->q->cur, ci), last + 1u);
	}
	r->held = h;
	return true;
}

/* Keep the routes in place where they deliver (a takeover); the tables
 * must stay deadlock-free if the engine promised it. */
static void
keep_held_routes(struct run *r)
{
	const struct routing_engine *re = routing_engine_find(r->rep.engine);
	struct lft_set *out = r->lft;
	size_t bytes = (size_t)out->nsw * ((size_t)out->max_lid + 1);
	uint8_t *computed = malloc(bytes ? bytes : 1);
	struct keep_result ir;
	struct acyclic_result ar;
	struct lft_set eng;
	bool loop;

	if (computed == NULL || lft_set_own(out) < 0)
		fatal("routing: out of memory");
	memcpy(computed, out->port, bytes);
	keep_merge(r->q->f, r->held, out, &ir);
	eng = *out;
	eng.port = computed;
	loop = re != NULL && re->deadlock_free && !cdg_acyclic(r->q->f, out,
	    NULL);
	if (loop && keep_break_loops(r->q->f, r->held, &eng, out, &ir,
	    &ar) == 0) {
		say(r, UPDATE_INFO, "sweep: the routes in place and %s's mixed "
		    "have a credit loop: broken with %s's entries in %u LIDs (%"
		    PRIu64 " entries, %" PRIu64 " LFT blocks, %u LIDs wholly "
		    "%s's)", re->name, re->name, ar.lids, ar.changed,
		    ar.blocks, ar.engine_lids, re->name);
		routing_report_fill(r->q->f, out, &r->rep);
		r->rep.deadlock_free = 1;
	} else if (loop) {
		say(r, UPDATE_WARN, "sweep: the routes in place and %s's mixed "
		    "have a credit loop: %s's routes used", re->name, re->name);
		memcpy(out->port, computed, bytes);
		memset(&ir, 0, sizeof(ir));
		ir.computed = out->max_lid;
	} else {
		routing_report_fill(r->q->f, out, &r->rep);
		r->rep.deadlock_free = cdg_acyclic(r->q->f, out, NULL);
	}
	free(computed);
	r->res->held = true;
	if (r->q->takeover)
		r->res->kept = ir;
	say(r, r->q->takeover || ir.mixed > 0 || ir.computed > 0 ?
	    UPDATE_INFO : UPDATE_DEBUG, "sweep: routes in place kept for %u "
	    "LIDs, partly for %u, recomputed for %u", ir.kept, ir.mixed,
	    ir.computed);
}

/* A usable switch-to-switch link of the new model that the model in use
 * did not have or could not use (a link that came back, a switch added):
 * routes kept from the degraded fabric may now be less balanced than
 * fresh ones. */
static bool
links_came_back(const struct run *r)
{
	const struct fabric *nf = r->q->f, *cf = r->q->cur_f;

	for (uint32_t p = 0; p < nf->nports; p++) {
		const struct fabric_port *port = &nf->ports[p];
		uint32_t pn, cn, cp;

		if (port->num == 0 || port->peer == FABRIC_NONE ||
		    nf->nodes[port->node].type != NODE_SWITCH ||
		    nf->nodes[(pn = fabric_peer_node(nf, p))].type != NODE_SWITCH ||
		    !kernel_link_usable(nf, p))
			continue;
		cn = fabric_node_by_guid(cf, nf->nodes[port->node].guid);
		if (cn == FABRIC_NONE || port->num > cf->nodes[cn].nports)
			return true;
		cp = fabric_port_idx(cf, cn, port->num);
		/* a link the model in use had but routing could not use (a
		 * port DOWN at one end) comes back too */
		if (cf->ports[cp].peer == FABRIC_NONE ||
		    cf->nodes[fabric_peer_node(cf, cp)].guid != nf->nodes[pn].guid ||
		    !kernel_link_usable(cf, cp))
			return true;
	}
	return false;
}

/* Usable switch-to-switch links of f (each end counted). */
static uint32_t
switch_links(const struct fabric *f)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].num != 0 && f->ports[p].peer != FABRIC_NONE &&
		    f->nodes[f->ports[p].node].type == NODE_SWITCH &&
		    f->nodes[fabric_peer_node(f, p)].type == NODE_SWITCH &&
		    kernel_link_usable(f, p))
			n++;
	return n;
}

/* The balanced tables themselves as a candidate: when they reach every
 * pair the engine's route does (and have no credit loop where its tables
 * have none), the fabric is whole again as they knew it. */
static int
base_itself(struct run *r, const struct lft_set *base, struct lft_set *out,
    struct route_report *rep)
{
	size_t bytes = (size_t)base->nsw * ((size_t)base->max_lid + 1);
	int acyclic;

	if (lft_set_init(out, r->q->f) < 0)
		fatal("routing: out of memory");
	memcpy(out->port, base->port, bytes);
	acyclic = cdg_acyclic(r->q->f, out, NULL);
	if (repair_lost_pairs(r->q->f, out, r->lft) > 0 ||
	    (!acyclic && r->rep.deadlock_free == 1)) {
		lft_set_fini(out);
		return -1;
	}
	*rep = r->rep;
	routing_report_fill(r->q->f, out, rep);
	rep->deadlock_free = acyclic;
	return 0;
}

/* The tables in use, laid out for the new model, as a candidate: a link
 * that came back may change nothing fresh routing would improve. */
static int
in_use_itself(struct run *r, struct lft_set *out, struct route_report *rep)
{
	struct lft_set *h = out;
	int acyclic;

	if (lft_set_init(h, r->q->f) < 0)
		fatal("routing: out of memory");
	for (uint32_t i = 0; i < h->nsw; i++) {
		uint32_t n = fabric_node_by_guid(r->q->cur_f,
		    r->q->f->nodes[h->sw_node[i]].guid), ci, last;

		if (n == FABRIC_NONE || (ci = r->q->cur->node_sw[n]) ==
		    FABRIC_NONE)
			continue;
		last = h->max_lid < r->q->cur->max_lid ? h->max_lid :
		    r->q->cur->max_lid;
		memcpy(lft_row(h, i), lft_row(r->q->cur, ci), last + 1u);
	}
	acyclic = cdg_acyclic(r->q->f, h, NULL);
	if (repair_lost_pairs(r->q->f, h, r->lft) > 0 ||
	    (!acyclic && r->rep.deadlock_free == 1)) {
		lft_set_fini(h);
		return -1;
	}
	*rep = r->rep;
	routing_report_fill(r->q->f, h, rep);
	rep->deadlock_free = acyclic;
	return 0;
}

/*
 * Links came back (issue 31 point 4). The target is the balance of the
 * engine's fresh tables for the fabric as it is now (a route of it now, or
 * the balanced tables when they were routed afresh for this whole fabric),
 * whatever the SM saw when it started or took over: the busiest link for all-to-all traffic
 * between CAs (routing_max_link_routes; the LIDs a port forwards do not
 * show how routes pile up on a cable) no worse than theirs, no longer in
 * switch hops, nothing less reachable. Reached with the fewest block writes among the tables that
 * meet it: the tables in use as they are, the engine's route preferring
 * their ports (next_lft on entry), the balanced tables last routed afresh
 * and the route preferring their ports, and the fresh tables themselves;
 * the balanced tables whenever they meet it (a heal then undoes exactly
 * what the faults changed).
 */
enum { CAND_IN_USE, CAND_PREFER_IN_USE, CAND_BASE, CAND_TOWARDS_BASE,
       CAND_FRESH, CAND_N };

/* Switch hops over every (switch, LID) pair: tables no longer than the
 * fresh ones take no detour the fabric no longer needs. */
static uint64_t
total_hops(const struct route_report *r)
{
	uint64_t t = 0;

	for (unsigned i = 1; i <= ROUTE_HOPS_MAX; i++)
		t += (uint64_t)i * r->hops[i];
	return t;
}

static void
rebalance(struct run *r, const struct routing_opts *base_opts)
{
	static const char *const how[CAND_N] = { "kept as they are",
	    "towards the tables in use", "back to the balanced tables",
	    "towards the balanced tables", "afresh" };
	struct routing_opts o = *base_opts;
	struct lft_set cand[CAND_N], base;
	struct route_report rep[CAND_N];
	uint64_t cost[CAND_N], links[CAND_N], target;
	int best = -1, have[CAND_N] = { 0 }, i;

	memset(cand, 0, sizeof(cand));
	memset(&base, 0, sizeof(base));
	o.prev_fabric = r->q->cur_f;
	o.prev = r->q->cur;
	o.fresh = true;
	have[CAND_FRESH] = routing_run(r->q->chain, r->q->nchain, r->q->f,
	    &o, &cand[CAND_FRESH], &rep[CAND_FRESH], NULL) == 0;
	if (!have[CAND_FRESH])
		return;         /* the route in next_lft stands */
	/* next_lft: the engine's route of this fabric preferring the ports
	 * in use */
	if (lft_set_copy(&cand[CAND_PREFER_IN_USE], r->lft,
	    r->q->f->nnodes) < 0)
		fatal("routing: out of memory");
	rep[CAND_PREFER_IN_USE] = r->rep;
	have[CAND_PREFER_IN_USE] = 1;
	have[CAND_IN_USE] = in_use_itself(r, &cand[CAND_IN_USE],
	    &rep[CAND_IN_USE]) == 0;
	if (base_for_next(r, &base) == 0) {
		o.prev_fabric = r->q->f;
		o.prev = &base;
		o.fresh = false;
		have[CAND_TOWARDS_BASE] = routing_run(r->q->chain,
		    r->q->nchain, r->q->f, &o, &cand[CAND_TOWARDS_BASE],
		    &rep[CAND_TOWARDS_BASE], NULL) == 0;
		have[CAND_BASE] = base_itself(r, &base, &cand[CAND_BASE],
		    &rep[CAND_BASE]) == 0;
	}
	for (i = 0; i < CAND_N; i++)
		if (have[i])
			links[i] = routing_max_link_routes(r->q->f, &cand[i]);
	/* The balanced tables, routed afresh for a fabric with every link
	 * this one has, are the engine's fresh tables as much as a route of
	 * it now (ties broken another way); routed for a degraded fabric (a
	 * start or a takeover with a cable down) they are not. */
	target = links[CAND_FRESH];
	if (have[CAND_BASE] && r->u->base_links >= switch_links(r->q->f) &&
	    links[CAND_BASE] > target)
		target = links[CAND_BASE];
	for (i = 0; i < CAND_N; i++) {
		if (!have[i])
			continue;
		cost[i] = routing_blocks_changed(r->q->f, &cand[i], r->q->cur_f,
		    r->q->cur);
		if (links[i] > target ||
		    rep[i].unreachable > rep[CAND_FRESH].unreachable ||
		    total_hops(&rep[i]) > total_hops(&rep[CAND_FRESH]))
			continue;
		/* back to the balanced tables when they meet it: a heal
		 * undoes what the faults changed, and the routes are those
		 * of the fresh start again */
		if (best == CAND_BASE)
			continue;
		if (best < 0 || i == CAND_BASE || cost[i] < cost[best])
			best = i;
	}
	if (best < 0)
		best = CAND_FRESH;
	say(r, UPDATE_INFO, "routing: links came back: %s tables %s (busiest "
	    "link %" PRIu64 " all-to-all routes, as routed afresh %" PRIu64
	    "; %" PRIu64 " blocks changed)", rep[best].engine, how[best],
	    links[best], target, cost[best]);
	if (best != CAND_PREFER_IN_USE) {
		lft_set_fini(r->lft);
		*r->lft = cand[best];
		memset(&cand[best], 0, sizeof(cand[best]));
		r->rep = rep[best];
	}
	r->rep.blocks_changed = cost[best];
	if (best != CAND_IN_USE)
		r->res->rebalanced = true;
	/* the tables routed afresh on a fabric still missing links the
	 * balanced tables knew are not the whole fabric's balance */
	r->base_next = best == CAND_FRESH &&
	    switch_links(r->q->f) >= r->u->base_links;
	for (i = 0; i < CAND_N; i++)
		lft_set_fini(&cand[i]);
	lft_set_fini(&base);
}

/* Every node of the new model was in the model in use (and, as
 * links_came_back() said no, every switch link too): nothing but losses. */
static bool
only_losses(const struct run *r)
{
	for (uint32_t n = 0; n < r->q->f->nnodes; n++)
		if (fabric_node_by_guid(r->q->cur_f, r->q->f->nodes[n].guid) ==
		    FABRIC_NONE)
			return false;
	return true;
}

/* The engine's up/down order for the switches of the new model (numbered
 * as next_lft): as it ranked the fabric of the tables in use (the order
 * those tables keep), or the new model (the order of its own route of it,
 * which a repair's fallback LIDs follow). NULL when the engine cannot say
 * or a switch is new. */
static uint32_t *
repair_order(struct run *r, const struct routing_engine *re, bool next)
{
	uint32_t *upc, *up, i, j, n;

	up = xcalloc(r->lft->nsw, sizeof(*up));
	if (next) {
		if (re->order(r->q->f, &r->q->ropts, r->lft, up) == 0)
			return up;
		free(up);
		return NULL;
	}
	upc = xcalloc(r->q->cur->nsw, sizeof(*upc));
	if (re->order(r->q->cur_f, &r->q->ropts, r->q->cur, upc) < 0)
		goto fail;
	for (i = 0; i < r->lft->nsw; i++) {
		n = fabric_node_by_guid(r->q->cur_f,
		    r->q->f->nodes[r->lft->sw_node[i]].guid);
		if (n == FABRIC_NONE ||
		    (j = r->q->cur->node_sw[n]) == FABRIC_NONE)
			goto fail;
		up[i] = upc[j];
	}
	free(upc);
	return up;
fail:
	free(upc);
	free(up);
	return NULL;
}

/* One repair in the order up (NULL: heights): 0 with out, blocks and
 * acyclic set when it writes fewer blocks than the engine's route, reaches
 * every pair it does and, where the engine's tables are free of credit
 * loops, is too; else the reason in why and -2 when it would merely write
 * as many blocks or more (not worth an info line), -1 otherwise. */
static int
repair_try(struct run *r, enum repair_discipline d, const uint32_t *up,
    uint64_t budget, bool local, struct lft_set *out,
    struct repair_result *rr, uint64_t *blocks, int *acyclic, char *why,
    size_t whylen)
{
	uint64_t lost;
	int rc = -1;

	if ((local ? repair_run_local(r->q->f, r->q->cur_f, r->q->cur,
	    r->lft, budget, out, rr) : budget > 0 ?
	    repair_run_acyclic(r->q->f, r->q->cur_f, r->q->cur,
	    r->lft, up, budget, out, rr) : repair_run_ordered(r->q->f,
	    r->q->cur_f, r->q->cur, r->lft, d, up, out, rr)) < 0) {
		snprintf(why, whylen, "no tables in use");
		return -1;
	}
	*blocks = routing_blocks_changed(r->q->f, out, r->q->cur_f, r->q->cur);
	if (*blocks >= r->rep.blocks_changed) {
		snprintf(why, whylen, "repair in place would change %" PRIu64
		    " blocks, %s %" PRIu64, *blocks, r->rep.engine,
		    r->rep.blocks_changed);
		rc = -2;
		goto fail;
	}
	if ((lost = repair_lost_pairs(r->q->f, out, r->lft)) > 0) {
		snprintf(why, whylen, "repair in place leaves %" PRIu64 " pairs "
		    "unreachable that %s reaches", lost, r->rep.engine);
		goto fail;
	}
	*acyclic = cdg_acyclic(r->q->f, out, NULL);
	if (!*acyclic && r->rep.deadlock_free == 1) {
		snprintf(why, whylen, "repair in place has a credit loop (%u "
		    "routes outside up*down*, %u hops turning anew)",
		    rr->not_updown, rr->new_turns);
		goto fail;
	}
	return 0;
fail:
	lft_set_fini(out);
	memset(out, 0, sizeof(*out));
	return rc;
}

/*
 * Links or switches lost (or nothing changed): the tables in use with only
 * the entries whose routes no longer arrive changed (routing/repair.h;
 * a LID whose repair would turn where the tables never turned is routed
 * as the engine routes it; where that left LIDs to the engine or a credit
 * loop, a repair that keeps each hop from closing a cycle of channel
 * dependencies is tried too, within REPAIR_BUDGET per order; for a
 * deadlock-free engine the local repair as well, which changes only the
 * switches whose own next hop was lost, within REPAIR_LOCAL_BUDGET; the
 * fewest blocks win), when that writes fewer blocks than the
 * engine's route, reaches every pair the engine's does, and, where the
 * engine's tables are free of credit loops, is too. Otherwise the
 * engine's route stands. Up/down repairs are tried in the heights above
 * the switches with CAs and, for an engine that says its order (updn),
 * in that order as it ranked the tables in use and as it ranks the new
 * model; the fewest blocks win.
 */
static void
repair(struct run *r)
{
	const struct routing_engine *re = routing_engine_find(r->rep.engine);
	enum repair_discipline d = re != NULL && re->deadlock_free ?
	    REPAIR_UPDOWN : REPAIR_SHORTEST;
	struct repair_result rr, best_rr;
	struct route_report rep = r->rep;
	struct lft_set out, best;
	uint64_t blocks, best_blocks = 0;
	uint32_t *up;
	int acyclic, best_acyclic = 0, have = 0, k, n, best_k = 0, rc = -1;
	char msg[384], why[192];
	double t0 = 0;
	bool spent = false;

	memset(&out, 0, sizeof(out));
	memset(&best, 0, sizeof(best));
	memset(&best_rr, 0, sizeof(best_rr));
	n = d == REPAIR_UPDOWN && re->order != NULL ? 3 : 1;
	/* k < n: the fast repair in each order; n <= k < 2n: where it left
	 * LIDs to the engine or a credit loop, the repair that keeps each hop
	 * from closing a cycle, in the same orders, within a bounded search;
	 * k = 2n: the local repair (only the switches next to the loss change,
	 * detours checked for cycles within REPAIR_LOCAL_BUDGET) */
	for (k = 0; k <= 2 * n; k++) {
		if ((d != REPAIR_UPDOWN && k >= n) ||
		    (k == n && have && best_blocks == 0))
			break;          /* nothing to gain */
		if (k == n && have && best_rr.engine_lids == 0)
			k = 2 * n;
		if (k == n || k == 2 * n) {
			if (t0 > 0)
				say(r, UPDATE_DEBUG, "routing: repair keeping "
				    "hops from closing cycles: %.3f s%s",
				    now() - t0, spent ? " (search budget spent)" :
				    "");
			t0 = now();
			spent = false;
		}
		up = k % n == 0 || k == 2 * n ? NULL :
		    repair_order(r, re, k % n == 2);
		if (k % n > 0 && k < 2 * n && up == NULL)
			continue;
		rc = repair_try(r, d, up, k < n ? 0 : k < 2 * n ?
		    REPAIR_BUDGET : REPAIR_LOCAL_BUDGET, k == 2 * n, &out, &rr,
		    &blocks, &acyclic, why, sizeof(why));
		if (k >= n)
			spent |= rr.budget_spent;
		if (rc == 0 && (!have || blocks < best_blocks)) {
			lft_set_fini(&best);
			best = out;
			memset(&out, 0, sizeof(out));
			best_rr = rr;
			best_blocks = blocks;
			best_acyclic = acyclic;
			best_k = k;
			have = 1;
		}
		lft_set_fini(&out);
		memset(&out, 0, sizeof(out));
		free(up);
	}
	if (t0 > 0)
		say(r, UPDATE_DEBUG, "routing: local repair: %.3f s%s",
		    now() - t0, spent ? " (search budget spent)" : "");
	if (!have) {
		say(r, rc == -2 ? UPDATE_DEBUG : UPDATE_INFO, "routing: %s: "
		    "%s's routes used", why, r->rep.engine);
		return;
	}
	routing_report_fill(r->q->f, &best, &rep);
	rep.deadlock_free = best_acyclic;
	rep.blocks_changed = best_blocks;
	snprintf(msg, sizeof(msg), "routing: repaired in place (%s): %" PRIu64
	    " entries of %u LIDs changed (%u outside up*down*, %u LIDs as %s "
	    "routes them), %" PRIu64 " blocks instead of %s's %" PRIu64
	    " (busiest port %u LIDs, %s)", best_k == 2 * n ? "local" :
	    best_k >= n ? "avoiding cycles" : "fast", best_rr.changed,
	    best_rr.lids,
	    best_rr.not_updown, best_rr.engine_lids, r->rep.engine,
	    best_blocks, r->rep.engine, r->rep.blocks_changed,
	    rep.max_port_load, best_acyclic ? "deadlock-free" : "CREDIT LOOP");
	say(r, best_rr.changed > 0 ? UPDATE_INFO : UPDATE_DEBUG, "%s", msg);
	lft_set_fini(r->lft);
	*r->lft = best;
	r->rep = rep;
	r->res->repaired = true;
}

/*
 * A VL-layered routing (update_res.layers): after losses, the engine's own
 * repair of the tables and layers in use (repair_run_layers: only the
 * routes that no longer arrive change, every layer stays acyclic, the
 * VLs stay those the tables in use had), when it writes fewer blocks
 * than the fresh route and reaches every pair it does; otherwise, and
 * whenever links came back or the routes in place are another SM's, the
 * engine's fresh route with its layers.
 */
static void
layered(struct run *r)
{
	const struct routing_engine *re = r->res->layers.engine;
	const struct update_req *q = r->q;
	struct repair_result rr;
	struct route_report rep = r->rep;
	struct route_layers lay;
	struct lft_set out;
	uint64_t blocks, lost;

	if (q->reroute || q->cur_f == NULL)
		return;
	if (r->held != NULL || q->takeover)
		say(r, UPDATE_INFO, "routing: %s's routes on %u VLs replace the "
		    "routes in place (their VL layers are not known)", re->name,
		    r->rep.vls);
	if (links_came_back(r)) {
		say(r, UPDATE_INFO, "routing: links came back: %s's routes on "
		    "%u VLs taken afresh (%" PRIu64 " blocks changed)", re->name,
		    r->rep.vls, r->rep.blocks_changed);
		r->res->rebalanced = true;
		r->base_next = true;
		return;
	}
	if (!only_losses(r))
		return;
	if (repair_run_layers(re, q->f, q->cur_f, q->cur, q->cur_layers, &out,
	    &lay, &rr) < 0) {
		say(r, UPDATE_INFO, "routing: %s could not repair its layered "
		    "routes in place: its fresh routes used", re->name);
		return;
	}
	blocks = routing_blocks_changed(q->f, &out, q->cur_f, q->cur);
	lost = repair_lost_pairs(q->f, &out, r->lft);
	if (lost > 0 || (blocks > 0 && blocks >= r->rep.blocks_changed)) {
		say(r, lost > 0 ? UPDATE_INFO : UPDATE_DEBUG, "routing: %s's "
		    "repair in place would %s: its fresh routes used", re->name,
		    lost > 0 ? "leave pairs unreachable" :
		    "change as many blocks");
		route_layers_fini(&lay);
		lft_set_fini(&out);
		return;
	}
	routing_report_fill(q->f, &out, &rep);
	rep.deadlock_free = 1;          /* checked per VL by the repair */
	rep.vls = lay.n;
	rep.blocks_changed = blocks;
	say(r, rr.changed > 0 ? UPDATE_INFO : UPDATE_DEBUG, "routing: %s "
	    "repaired in place: %" PRIu64 " entries of %u LIDs changed, %"
	    PRIu64 " routes rerouted (%" PRIu64 " into another VL), %u VLs, %"
	    PRIu64 " blocks instead of %" PRIu64, re->name, rr.changed, rr.lids,
	    rr.rerouted, rr.relayered, rr.layers, blocks,
	    r->rep.blocks_changed);
	lft_set_fini(r->lft);
	*r->lft = out;
	route_layers_fini(&r->res->layers);
	r->res->layers = lay;
	r->rep = rep;
	r->res->repaired = true;
}

int
update_run(struct update *u, const struct update_req *q,
    struct update_res *res)
{
	struct routing_opts ropts = q->ropts;
	struct run r = { .u = u, .q = q, .res = res, .lft = &res->lft };
	bool rebalanced = false, hold;

	memset(res, 0, sizeof(*res));
	if (q->cur_f != NULL) {
		ropts.prev_fabric = q->cur_f;
		ropts.prev = q->cur;
	}
	ropts.fresh = q->reroute;
	if (q->reroute)
		say(&r, UPDATE_INFO, "routing: full reroute requested: routing "
		    "afresh");
	if (routing_run_layers(q->chain, q->nchain, q->f, &ropts, r.lft,
	    &res->layers, &r.rep, q->route_log) < 0)
		return -1;
	r.held = q->held != NULL && q->held->nsw > 0 ? q->held : NULL;
	r.base_next = q->reroute || q->cur_f == NULL;
	if (res->layers.engine != NULL) {
		layered(&r);
		if (r.base_next)
			save_base(&r);
		res->report = r.rep;
		return 0;
	}
	if (q->reroute)
		res->rebalanced = true;
	else if (q->cur_f != NULL && r.held == NULL && links_came_back(&r)) {
		rebalance(&r, &ropts);
		rebalanced = true;
	} else if (q->cur_f != NULL && r.held == NULL && !q->keep_routes &&
	    only_losses(&r))
		repair(&r);
	/* a subnet taken over keeps the routes in place that deliver, but
	 * not against a rebalance: links that came back are the engine's */
	hold = !q->reroute && !rebalanced && (r.held != NULL ||
	    held_from_cur(&r));
	if (r.base_next)
		save_base(&r);
	if (hold)
		keep_held_routes(&r);
	lft_set_fini(&r.held_own);
	res->report = r.rep;
	return 0;
}

struct update *
update_new(void)
{
	return xcalloc(1, sizeof(struct update));
}

void
update_free(struct update *u)
{
	if (u == NULL)
		return;
	lft_set_fini(&u->base);
	free(u->base_guid);
	free(u);
}
