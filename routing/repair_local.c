/*
 * The local repair (repair_run_local, see routing/repair.h). Per LID, the
 * roots are the switches whose own hop no longer goes on: their port leads
 * to no switch now (a lost link or switch) or, at the LID's own switch,
 * not to it. Every other
 * switch whose route does not arrive goes on into a root, and arrives
 * again once the roots do, so only the roots' entries change. A root
 * takes a neighbour whose route arrives (it cannot lead back through the
 * root: every route through a root is broken): the shortest whose
 * dependencies all exist already, else a shorter one whose new
 * dependencies go in without closing a cycle (the hop out of the root,
 * then on as the neighbour goes, and every link that brings the LID into
 * the root onto the new port). rp_dep_try() keeps a topological order of
 * the dependency graph as they go in, so each search walks only the links
 * placed between the two ends. Roots with no such neighbour wait for the
 * next round (another root may arrive by then). When a round changes
 * nothing, local_chain() looks for a way through switches that do not
 * arrive. LIDs with the most switches not arriving go first: theirs have
 * the fewest ways left. A LID neither routes is put back as it was and
 * repaired up*down* with the same dependency checks (rp_repair_lid(), as
 * repair_run_acyclic does); where that took fallback's routes, the cycles
 * left are untangled at the end. Once the budget is spent, the LIDs left
 * are repaired up*down* without checks, and the caller's credit loop
 * check decides.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/kernel.h"
#include "routing/repair_priv.h"

/* The links by which lid comes into switch r (the neighbours whose entries
 * lead onto r), in ins; returns how many. */
static uint32_t
in_links(struct rp *c, const struct lft_set *out, uint32_t r, uint16_t lid,
    uint32_t *ins)
{
	uint32_t e, u, ein, k = 0, i;

	for (e = c->g.off[r]; e < c->g.off[r + 1]; e++) {
		u = c->g.sw[e];
		if (u == c->lid_sw[lid])
			continue;
		ein = c->eid[(size_t)u * 256 + entry(out, u, lid)];
		if (ein == NONE || c->g.sw[ein] != r)
			continue;
		for (i = 0; i < k && ins[i] != ein; i++)
			;
		if (i == k)
			ins[k++] = ein;
	}
	return k;
}

/*
 * Give switches xs[0..k-1] the ports ps[] for lid, unless that closes a
 * cycle of dependencies: every dependency the change adds (out of each
 * switch, and from each link that brings the LID into one onto its new
 * port) is recorded, and if the link it starts from can be reached from
 * the one it leads to, the change and those records are undone. ins:
 * scratch for two words per link and per switch. Returns whether the
 * change was kept.
 */
static bool
local_apply(struct rp *c, struct lft_set *out, uint32_t *ins, uint16_t lid,
    const uint32_t *xs, const uint8_t *ps, uint8_t *was, uint32_t k,
    uint32_t *searched)
{
	uint32_t i, j, e, u, ein, e1, n, nnew = 0;
	uint8_t q;

	if (!deps_on(c))
		return false;
	for (i = 0; i < k; i++) {
		was[i] = lft_row(out, xs[i])[lid];
		lft_row(out, xs[i])[lid] = ps[i];
	}
	/* the dependencies into and out of each changed switch */
	for (i = 0; i < k; i++) {
		for (e = c->g.off[xs[i]]; e < c->g.off[xs[i] + 1]; e++) {
			u = c->g.sw[e];
			if (u == c->lid_sw[lid])
				continue;
			ein = c->eid[(size_t)u * 256 + entry(out, u, lid)];
			if (ein == NONE || c->g.sw[ein] != xs[i] ||
			    dep_has(c, ein, ps[i]))
				continue;
			ins[2 * nnew] = ein;
			ins[2 * nnew++ + 1] = ps[i];
		}
		e1 = c->eid[(size_t)xs[i] * 256 + ps[i]];
		n = c->g.sw[e1];
		if (n == c->lid_sw[lid])
			continue;
		q = lft_row(out, n)[lid];
		if (dep_has(c, e1, q))
			continue;
		ins[2 * nnew] = e1;
		ins[2 * nnew++ + 1] = q;
	}
	*searched += nnew > 0;
	for (j = 0; j < nnew; j++) {
		if (dep_has(c, ins[2 * j], (uint8_t)ins[2 * j + 1])) {
			ins[2 * j + 1] = 256;   /* a duplicate: not ours */
			continue;
		}
		if (!rp_dep_try(c, ins[2 * j], (uint8_t)ins[2 * j + 1]))
			break;
	}
	if (j == nnew) {
		for (i = 0; i < k; i++)
			c->cnt[(size_t)xs[i] * 256 + ps[i]]++;
		return true;
	}
	while (j-- > 0)
		if (ins[2 * j + 1] < 256)
			c->dep[(size_t)ins[2 * j] * 32 + ins[2 * j + 1] / 8] &=
			    (uint8_t)~(1u << (ins[2 * j + 1] % 8));
	for (i = k; i-- > 0;)
		lft_row(out, xs[i])[lid] = was[i];
	return false;
}

/*
 * The way xs[k-1] (the start) .. xs[0] -> y, with the switches whose route
 * comes into a switch on it pulled onto a later one they have a link to
 * (the furthest): their routes then join the way there instead of
 * turning onto it where they came in (a core sending a pod's LID down
 * into an aggregation switch that now goes up again, e.g.). Appends them
 * to xs/ps; returns the new count.
 */
static uint32_t
local_pull(struct rp *c, const struct lft_set *out, uint16_t lid,
    uint32_t *xs, uint8_t *ps, uint32_t k, uint32_t y)
{
	uint32_t i, e, f, u, w, ein, best, n = k;
	uint8_t bp;

	for (i = 0; i < k; i++)
		c->cidx[xs[i]] = k - 1 - i;
	c->cidx[y] = k;
	for (i = k; i-- > 0;) {
		for (e = c->g.off[xs[i]]; e < c->g.off[xs[i] + 1]; e++) {
			u = c->g.sw[e];
			if (c->cidx[u] != NONE || u == c->lid_sw[lid])
				continue;
			ein = c->eid[(size_t)u * 256 + entry(out, u, lid)];
			if (ein == NONE || c->g.sw[ein] != xs[i])
				continue;
			best = k - 1 - i;
			bp = 0;
			for (f = c->g.off[u]; f < c->g.off[u + 1]; f++) {
				w = c->g.sw[f];
				if (c->cidx[w] != NONE && c->cidx[w] > best) {
					best = c->cidx[w];
					bp = c->g.port[f];
				}
			}
			if (bp == 0)
				continue;
			c->cidx[u] = best;      /* taken: not pulled twice */
			xs[n] = u;
			ps[n++] = bp;
		}
	}
	for (i = 0; i < n; i++)
		c->cidx[xs[i]] = NONE;
	c->cidx[y] = NONE;
	return n;
}

#define LOCAL_CHAINS 256        /* ways searched for a cycle per root */

/*
 * No root had a neighbour whose route arrives without closing a cycle
 * (in ftree's and updn's tables every switch of a pod sends a LID of it
 * through the same switch above it, so the way round a lost down cable
 * leads back through the root): from each switch that does not arrive
 * and has no way on (else, in a loop, any), breadth first over the
 * switches that do not arrive, the nearest with a neighbour whose route
 * arrives; the switches between take the way there, when that closes no
 * cycle (else the next way found; up to LOCAL_CHAINS that add a
 * dependency, which a search for a cycle must clear; a way whose
 * dependencies all exist, e.g. through the turns ftree's tables make at
 * its hub, costs no search). Once the budget is spent nothing is tried.
 * Returns how many switches changed (0: no way was found).
 */
static uint32_t
local_chain(struct rp *c, struct lft_set *out, uint32_t *ins, uint16_t lid)
{
	uint32_t *par = c->uv, *queue = c->dv, *xs = c->ev, head, tail, sw,
	    x, e, y, start, tries, k, k2, i;
	uint8_t *ps = c->mode, *was = c->m;
	uint8_t *seen;
	bool any_root = false;

	for (sw = 0; sw < c->nsw; sw++)
		if (c->st[sw] != ST_OK && sw != c->lid_sw[lid] &&
		    c->nbr[(size_t)sw * 256 + entry(out, sw, lid)] == NONE)
			any_root = true;
	seen = xcalloc(c->nsw, 1);
	for (start = 0; start < c->nsw; start++) {
		if (c->st[start] == ST_OK || start == c->lid_sw[lid] ||
		    (any_root && c->nbr[(size_t)start * 256 +
		    entry(out, start, lid)] != NONE))
			continue;
		memset(seen, 0, c->nsw);
		head = tail = tries = 0;
		seen[start] = 1;
		par[start] = NONE;
		queue[tail++] = start;
		while (head < tail && tries < LOCAL_CHAINS) {
			x = queue[head++];
			for (e = c->g.off[x]; e < c->g.off[x + 1] &&
			    tries < LOCAL_CHAINS; e++) {
				y = c->g.sw[e];
				if (c->st[y] != ST_OK) {
					if (!seen[y]) {
						seen[y] = 1;
						par[y] = x;
						queue[tail++] = y;
					}
					continue;
				}
				/* the way start .. x -> y */
				k = 0;
				xs[k] = x;
				ps[k++] = c->g.port[e];
				for (i = x; par[i] != NONE; i = par[i]) {
					uint32_t f2, pi = par[i];

					for (f2 = c->g.off[pi];
					    c->g.sw[f2] != i; f2++)
						;
					xs[k] = pi;
					ps[k++] = c->g.port[f2];
				}
				if (local_apply(c, out, ins, lid, xs, ps, was,
				    k, &tries)) {
					free(seen);
					return k;
				}
				/* the same way, with the routes that came in
				 * pulled onto it further on */
				if ((k2 = local_pull(c, out, lid, xs, ps, k,
				    y)) > k && local_apply(c, out, ins, lid,
				    xs, ps, was, k2, &tries)) {
					free(seen);
					return k2;
				}
			}
		}
	}
	free(seen);
	return 0;
}

/* Does the root's hop by link e (lid going on from there as out says),
 * with the links ins (nin) bringing lid into the root, add no dependency?
 * Then it closes no cycle. */
static bool
local_known(const struct rp *c, const struct lft_set *out, uint32_t e,
    uint16_t lid, const uint32_t *ins, uint32_t nin)
{
	uint32_t n = c->g.sw[e], i;
	uint8_t p = c->g.port[e];

	if (out_link(c, out, n, lid) != NONE &&
	    !dep_has(c, e, lft_row(out, n)[lid]))
		return false;
	for (i = 0; i < nin; i++)
		if (!dep_has(c, ins[i], p))
			return false;
	return true;
}

/* Hops (links out of sw) by the length of the route they lead on to, then
 * by the load of their port (insertion: a switch has few). */
static void
sort_hops(const struct rp *c, uint32_t sw, uint32_t *h, unsigned n)
{
	unsigned i, j;
	uint32_t x;

	for (i = 1; i < n; i++) {
		x = h[i];
		for (j = i; j > 0; j--) {
			uint32_t a = c->len[c->g.sw[h[j - 1]]],
			    b = c->len[c->g.sw[x]];

			if (a < b || (a == b && c->cnt[(size_t)sw * 256 +
			    c->g.port[h[j - 1]]] <= c->cnt[(size_t)sw * 256 +
			    c->g.port[x]]))
				break;
			h[j] = h[j - 1];
		}
		h[j] = x;
	}
}

/* Add the dependencies of root sw's hop by link e for lid (on from its
 * neighbour as out says; the links ins bring lid into sw), unless one
 * closes a cycle: then none is added. */
static bool
local_hop(struct rp *c, const struct lft_set *out, uint32_t sw, uint32_t e,
    uint16_t lid, const uint32_t *ins, uint32_t nin)
{
	uint32_t n = c->g.sw[e], i, j, add[257], na = 0;
	uint8_t p = c->g.port[e], qs[257];

	(void)sw;
	if (out_link(c, out, n, lid) != NONE) {
		add[na] = e;
		qs[na++] = lft_row(out, n)[lid];
	}
	for (i = 0; i < nin && na < 257; i++) {
		add[na] = ins[i];
		qs[na++] = p;
	}
	for (i = 0; i < na; i++) {
		if (dep_has(c, add[i], qs[i])) {
			add[i] = NONE;          /* there already */
			continue;
		}
		if (!rp_dep_try(c, add[i], qs[i]))
			break;
	}
	if (i == na)
		return true;
	for (j = 0; j < i; j++)
		if (add[j] != NONE)
			c->dep[(size_t)add[j] * 32 + qs[j] / 8] &=
			    (uint8_t)~(1u << (qs[j] % 8));
	return false;
}

/* One round over lid's roots (st[], len[] from rp_walk): returns how many
 * took a hop. */
static uint32_t
local_round(struct rp *c, struct lft_set *out, uint32_t *ins, uint16_t lid)
{
	uint32_t t = c->lid_sw[lid], sw, e, n, v, bknown, nin, fixed = 0, i,
	    try[256];
	uint8_t cand[256], p;
	unsigned k, kn;

	if (!deps_on(c))
		return 0;       /* the budget is spent: up*down* instead */
	for (sw = 0; sw < c->nsw; sw++) {
		if (c->st[sw] == ST_OK)
			continue;
		if (sw == t) {
			lft_row(out, sw)[lid] = c->lid_port[lid];
			fixed++;
			continue;
		}
		if (c->nbr[(size_t)sw * 256 + entry(out, sw, lid)] != NONE)
			continue;               /* goes on into a root */
		nin = in_links(c, out, sw, lid, ins);
		/* the shortest hops whose dependencies all exist already
		 * (nothing to search) */
		bknown = INF;
		k = 0;
		for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
			n = c->g.sw[e];
			if (c->st[n] != ST_OK || (v = c->len[n] + 1) > bknown ||
			    !local_known(c, out, e, lid, ins, nin))
				continue;
			if (v < bknown) {
				bknown = v;
				k = 0;
			}
			cand[k++] = c->g.port[e];
		}
		/* else a shorter one whose dependencies go in without closing
		 * a cycle, shortest and least loaded first */
		for (kn = 0, e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
			n = c->g.sw[e];
			if (c->st[n] == ST_OK && c->len[n] + 1 < bknown &&
			    !local_known(c, out, e, lid, ins, nin))
				try[kn++] = e;
		}
		sort_hops(c, sw, try, kn);
		for (i = 0; i < kn; i++)
			if (local_hop(c, out, sw, try[i], lid, ins, nin))
				break;
		if (i < kn) {
			p = c->g.port[try[i]];
			lft_row(out, sw)[lid] = p;
			c->cnt[(size_t)sw * 256 + p]++;
			fixed++;
			continue;
		}
		if (k == 0)
			continue;
		kernel_spread(lft_row(out, sw), c->cnt + (size_t)sw * 256, cand,
		    k, &lid, 1);
		fixed++;
	}
	return fixed;
}

/*
 * lid routed locally (rounds over its roots, then ways through switches
 * that do not arrive), else put back as it was (col: its entries before)
 * and repaired up*down* (the dependencies its partial repair recorded
 * stay, which only makes later choices more careful).
 */
static void
local_lid(struct rp *c, struct lft_set *out, const struct lft_set *fallback,
    uint32_t *ins, uint32_t *pairs, uint8_t *col, uint16_t lid,
    struct repair_result *r)
{
	uint32_t sw;

	rp_walk(c, out, lid);
	for (sw = 0; sw < c->nsw; sw++)
		col[sw] = lft_row(out, sw)[lid];
	while (local_round(c, out, ins, lid) > 0 ||
	    local_chain(c, out, pairs, lid) > 0)
		if (rp_walk(c, out, lid) == c->nsw)
			break;
	if (rp_walk(c, out, lid) == c->nsw)
		return;
	for (sw = 0; sw < c->nsw; sw++)
		lft_row(out, sw)[lid] = col[sw];
	rp_walk(c, out, lid);
	for (sw = 0; sw < c->nsw; sw++)
		if (c->st[sw] != ST_OK)
			lft_row(out, sw)[lid] = LFT_NO_ROUTE;
	rp_repair_lid(c, out, lid, REPAIR_UPDOWN, fallback, r);
	r->updown_lids++;
}

/* Every LID with a switch not arriving, repaired locally (see above). */
void
rp_local(struct rp *c, struct lft_set *out, const struct lft_set *fallback,
    uint64_t budget, struct repair_result *r)
{
	uint16_t lid, max = out->max_lid;
	uint32_t *ins, *pairs, nneed, ib, ok, n = c->nsw ? c->nsw : 1;
	uint8_t *col;
	struct keyed *byb;

	rp_load(c, out);
	ins = xcalloc(n, sizeof(*ins));
	pairs = xcalloc(2 * ((size_t)c->g.off[c->nsw] + c->nsw) + 2,
	    sizeof(*pairs));
	col = xcalloc(n, 1);
	rp_deps_start(c, out, budget);
	rp_ord_build(c);
	c->cidx = xcalloc(n, sizeof(*c->cidx));
	memset(c->cidx, 0xff, (size_t)n * sizeof(*c->cidx));
	/* the LIDs with the most switches not arriving first (as
	 * repair_run_acyclic: those with the fewest ways left take theirs
	 * before the others' detours fill the dependency graph) */
	byb = xcalloc((size_t)max + 1, sizeof(*byb));
	for (lid = 1, nneed = 0; lid <= max && lid != 0; lid++) {
		if (c->lid_sw[lid] == NONE ||
		    (ok = rp_walk(c, out, lid)) == c->nsw)
			continue;
		byb[nneed].height = ok;
		byb[nneed].guid = 0;
		byb[nneed++].sw = lid;
	}
	qsort(byb, nneed, sizeof(*byb), rp_keyed_cmp);
	for (ib = 0; ib < nneed; ib++)
		local_lid(c, out, fallback, ins, pairs, col,
		    (uint16_t)byb[ib].sw, r);
	/* the fallback's LIDs among repaired ones may close a cycle:
	 * untangled as repair_run_acyclic does */
	if (fallback != NULL && r->engine_lids > 0)
		rp_untangle_changed(c, out, fallback, r);
	free(byb);
	free(col);
	free(ins);
	free(pairs);
}
