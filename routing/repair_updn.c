/*
 * The up/down (or shortest) repair (repair_run, repair_run_ordered,
 * repair_run_acyclic; see routing/repair.h and the top of repair.c).
 *
 * A route through a broken entry is broken too (rp_walk), so the broken
 * switches are closed upwards and no kept route depends on them. Broken
 * switches then get the shortest route their discipline allows into the
 * kept ones and each other: D values in ascending switch order (a down hop
 * goes to an earlier switch), U values in descending order, then the rest
 * nearest first, each onto a neighbour already routed (settle()). Each
 * value is the length of the route the switch will take, and values fall
 * by one at every hop, so no loop can form. Ports are chosen among the
 * links to neighbours one step nearer: the previous port when it is one,
 * else the least loaded (kernel_spread).
 *
 * With a budget (repair_run_acyclic) every hop is checked against the
 * channel dependencies (repair_cycle.c) and LIDs go most broken first;
 * without one, a LID whose repair turns where the previous tables never
 * turn takes the fallback's routes.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"
#include "routing/repair_priv.h"

static inline uint32_t
plus1(uint32_t v)
{
	return v == INF ? INF : v + 1;
}

/* Values of the broken switches (see the file's header). */
static void
values(struct rp *c, enum repair_discipline d, uint16_t lid)
{
	uint32_t t = c->lid_sw[lid], i, sw, e, n, best;

	for (sw = 0; sw < c->nsw; sw++) {
		if (c->st[sw] == ST_OK) {
			c->dv[sw] = c->mode[sw] == M_D ? c->len[sw] : INF;
			c->uv[sw] = c->mode[sw] != M_X ? c->len[sw] : INF;
			c->ev[sw] = c->len[sw];
			c->m[sw] = c->mode[sw];
		} else {
			c->dv[sw] = c->uv[sw] = c->ev[sw] = INF;
			c->m[sw] = M_X;
		}
	}
	if (c->st[t] != ST_OK) {
		c->dv[t] = c->uv[t] = c->ev[t] = 0;
		c->m[t] = M_D;
	}
	if (d == REPAIR_UPDOWN) {
		for (i = 0; i < c->nsw; i++) {
			sw = c->order[i];
			if (c->st[sw] == ST_OK || sw == t)
				continue;
			best = INF;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				n = c->g.sw[e];
				if (c->pos[n] < c->pos[sw] && plus1(c->dv[n]) < best)
					best = plus1(c->dv[n]);
			}
			c->dv[sw] = best;
		}
		for (i = c->nsw; i-- > 0;) {
			sw = c->order[i];
			if (c->st[sw] == ST_OK || sw == t)
				continue;
			if (c->dv[sw] != INF) {
				c->uv[sw] = c->ev[sw] = c->dv[sw];
				c->m[sw] = M_D;
				continue;
			}
			best = INF;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				n = c->g.sw[e];
				if (c->pos[n] > c->pos[sw] && plus1(c->uv[n]) < best)
					best = plus1(c->uv[n]);
			}
			c->uv[sw] = c->ev[sw] = best;
			c->m[sw] = best != INF ? M_U : M_X;
		}
	}
}

/*
 * Give lid at switch sw one of the k candidate ports: the previous one
 * when it is among them (its route broke further on, and now goes on
 * from the same next switch), else the least loaded.
 */
static void
choose(const struct rp *c, struct lft_set *out, uint32_t sw, uint16_t lid,
    uint8_t *cand, unsigned k)
{
	uint8_t old = prev_entry(c, sw, lid);

	for (unsigned i = 0; i < k; i++)
		if (cand[i] == old) {
			lft_row(out, sw)[lid] = old;
			c->cnt[(size_t)sw * 256 + old]++;
			rp_dep_add((struct rp *)c, out, sw, old, lid);
			return;
		}
	kernel_spread(lft_row(out, sw), c->cnt + (size_t)sw * 256, cand, k,
	    &lid, 1);
	rp_dep_add((struct rp *)c, out, sw, lft_row(out, sw)[lid], lid);
}

/* Ports of the broken switch sw (mode D or U) one step nearer. */
static unsigned
candidates(const struct rp *c, uint32_t sw, uint8_t *cand)
{
	uint32_t e, n, want = c->ev[sw] - 1;
	unsigned k = 0;

	for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
		n = c->g.sw[e];
		if (c->m[sw] == M_D ? c->pos[n] < c->pos[sw] &&
		    c->dv[n] == want : c->pos[n] > c->pos[sw] &&
		    c->uv[n] == want)
			cand[k++] = c->g.port[e];
	}
	return k;
}

/*
 * The switches left without a route up*down* (all broken ones with
 * REPAIR_SHORTEST), nearest first, over the switches whose port is set
 * (ev finite): each takes the set neighbours one step nearer. With turns,
 * a route outside up*down* turns where the previous tables already turn
 * when it can, even if longer (the engine placed its own such turns,
 * ftree's hub, where they close no cycle); else it takes the nearest hop
 * that closes no cycle of dependencies; else any. Returns how many
 * switches took a hop that closes a cycle.
 */
static uint32_t
settle(struct rp *c, struct lft_set *out, uint16_t lid, bool turns,
    const uint32_t *list, uint32_t nx)
{
	uint32_t t = c->lid_sw[lid], i, e, n, sw, v, best[3], newt = 0;
	uint8_t q, cand[256];
	unsigned k, tier;
	bool ot;

	for (;;) {
		best[0] = best[1] = best[2] = INF;
		for (i = 0; i < nx; i++) {
			if (c->ev[sw = list[i]] != INF)
				continue;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				if ((v = plus1(c->ev[n = c->g.sw[e]])) == INF)
					continue;
				if (v < best[2])
					best[2] = v;
				if (!turns)
					continue;
				q = n == t ? c->lid_port[lid] : lft_row(out, n)[lid];
				ot = n == t || old_turn(c, e, q);
				if ((v >= best[1] && (!ot || v >= best[0])) ||
				    !rp_dep_safe(c, out, sw, c->g.port[e], lid))
					continue;
				if (v < best[1])
					best[1] = v;
				if (ot && v < best[0])
					best[0] = v;
			}
		}
		if (best[2] == INF)
			return newt;
		/* tier 0: turning where the previous tables turn, 1: closing
		 * no cycle of dependencies, 2: any (without turns: any) */
		tier = !turns ? 2 : best[0] != INF ? 0 :
		    best[1] != INF && deps_on(c) ? 1 : 2;
		v = best[tier];
		for (i = 0; i < nx; i++) {
			if (c->ev[sw = list[i]] != INF)
				continue;
			k = 0;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				if (plus1(c->ev[n = c->g.sw[e]]) != v)
					continue;
				q = n == t ? c->lid_port[lid] : lft_row(out, n)[lid];
				if (tier < 2 && !rp_dep_safe(c, out, sw,
				    c->g.port[e], lid))
					continue;
				if (tier == 0 && n != t && !old_turn(c, e, q))
					continue;
				cand[k++] = c->g.port[e];
			}
			if (k == 0)
				continue;
			if (tier < 2)
				k = rp_safe_only(c, out, sw, lid, cand, k);
			choose(c, out, sw, lid, cand, k);
			c->len[sw] = v;    /* ev set after the round */
			newt += turns && tier == 2;
		}
		for (i = 0; i < nx; i++)
			if (c->ev[sw = list[i]] == INF &&
			    lft_row(out, sw)[lid] != LFT_NO_ROUTE)
				c->ev[sw] = c->len[sw];
	}
}

/* New entries for the broken switches of lid (out holds the kept ones). */
void
rp_repair_lid(struct rp *c, struct lft_set *out, uint16_t lid,
    enum repair_discipline d, const struct lft_set *fallback,
    struct repair_result *r)
{
	uint32_t t = c->lid_sw[lid], sw, nb = 0, nx = 0, vmax = 0, v, i, newt;
	uint32_t *xs = c->xs;
	uint8_t cand[256];
	unsigned k;

	rp_walk(c, out, lid);
	values(c, d, lid);
	for (sw = 0; sw < c->nsw; sw++) {
		if (c->st[sw] == ST_OK)
			continue;
		if (sw == t) {
			lft_row(out, sw)[lid] = c->lid_port[lid];
			continue;
		}
		if (c->ev[sw] == INF) {
			xs[nx++] = sw;
			continue;
		}
		c->broken[nb++] = sw;
		if (c->ev[sw] > vmax)
			vmax = c->ev[sw];
	}
	for (v = 1; v <= vmax; v++)
		for (i = 0; i < nb; i++) {
			if (c->ev[sw = c->broken[i]] != v)
				continue;
			k = candidates(c, sw, cand);
			if (k == 0)
				fatalx("repair: no port one step nearer");
			k = rp_safe_only(c, out, sw, lid, cand, k);
			choose(c, out, sw, lid, cand, k);
		}
	newt = settle(c, out, lid, d == REPAIR_UPDOWN, xs, nx);
	r->new_turns += newt;
	if (newt > 0 && fallback != NULL && lid <= fallback->max_lid) {
		/* turns the tables in use never made may close a cycle: this
		 * LID is routed as the engine routes it */
		for (sw = 0; sw < c->nsw; sw++)
			lft_row(out, sw)[lid] = lft_row(fallback, sw)[lid];
		r->engine_lids++;
		c->taken[lid] = 1;
		if (c->dep != NULL)
			rp_dep_add_lid(c, out, lid);
		return;
	}
	for (i = 0; i < nx; i++) {
		if (c->ev[xs[i]] == INF)
			r->unroutable++;
		else if (d == REPAIR_UPDOWN)
			r->not_updown++;
	}
}

/*
 * Every LID with an entry that no longer arrives is repaired: its broken
 * entries cleared, then given new ones (rp_repair_lid). With a budget
 * (REPAIR_UPDOWN) the dependencies of the kept entries are recorded first
 * and each repaired hop is kept from closing a cycle; then, with a
 * fallback, the cycles left are untangled.
 */
void
rp_updn(struct rp *c, struct lft_set *out, enum repair_discipline d,
    const struct lft_set *fallback, uint64_t budget, struct repair_result *r)
{
	uint16_t lid, max = out->max_lid;
	uint32_t *nbroken, sw, nneed, i;
	struct keyed *byb;

	/* what still arrives; the rest cleared */
	nbroken = xcalloc((size_t)max + 1, sizeof(*nbroken));
	byb = xcalloc((size_t)max + 1, sizeof(*byb));
	for (lid = 1; lid <= max && lid != 0; lid++) {
		if (c->lid_sw[lid] == NONE)
			continue;
		r->kept += rp_walk(c, out, lid);
		for (sw = 0; sw < c->nsw; sw++)
			if (c->st[sw] != ST_OK) {
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
				nbroken[lid]++;
			}
	}
	/* each switch's load by port, over the entries kept */
	rp_load(c, out);
	if (d == REPAIR_UPDOWN && budget > 0)
		rp_deps_start(c, out, budget);
	/* keeping hops from closing cycles, the LIDs with the most broken
	 * entries first: their routes have the fewest ways left, the others
	 * fit around them; else in LID order */
	for (lid = 1, nneed = 0; lid <= max && lid != 0; lid++)
		if (nbroken[lid] > 0) {
			byb[nneed].height = c->dep == NULL ? lid :
			    UINT32_MAX - nbroken[lid];
			byb[nneed].guid = 0;
			byb[nneed++].sw = lid;
		}
	qsort(byb, nneed, sizeof(*byb), rp_keyed_cmp);
	for (i = 0; i < nneed; i++)
		rp_repair_lid(c, out, (uint16_t)byb[i].sw, d, fallback, r);
	free(byb);
	free(nbroken);
	if (fallback != NULL && c->dep != NULL)
		rp_untangle_changed(c, out, fallback, r);
}
