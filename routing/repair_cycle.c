/*
 * The channel dependency graph of the cycle-avoiding repairs
 * (repair_run_acyclic, repair_run_local; see routing/repair.h).
 *
 * Credit loops (repair_run_acyclic, REPAIR_UPDOWN with a budget). The
 * channel dependencies of the kept entries are recorded (dep[]: after link
 * e, the port taken on), and every repaired hop adds its own. Where
 * up*down* is left (ftree's tables turn at the hub, and a switch cut from
 * the hub, e.g. a core that lost its cable into the hub's pod, must turn
 * somewhere new) a hop that would close a cycle is avoided when another
 * is there (rp_dep_safe), hops whose dependency already exists are
 * preferred (rp_safe_only: new turns gather at few places instead of
 * spreading into each other), and LIDs are repaired most broken first, so
 * that the routes with the fewest ways left (a cut-off switch's own LID)
 * take theirs before the others fill the graph. untangle() is the last
 * resort when a fallback is given. Each dependency link the searches visit
 * (and each table entry a pass of untangle() lists) is charged to the
 * budget; when it is spent the rest is repaired without them, as
 * repair_run_ordered does (a LID that must turn anew then takes the
 * fallback's routes). Without a budget (repair_run_ordered) no dependency
 * is recorded (c->dep NULL) and LIDs go in ascending order.
 * repair_run_local keeps a topological order of the graph besides
 * (rp_ord_build, rp_dep_try) to prune its searches.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/repair_priv.h"

/* Record that lid's route goes from switch sw by port p on as out says. */
void
rp_dep_add(struct rp *c, const struct lft_set *out, uint32_t sw, uint8_t p,
    uint16_t lid)
{
	uint32_t e1, n;

	if (c->dep == NULL || (e1 = c->eid[(size_t)sw * 256 + p]) == NONE)
		return;
	n = c->g.sw[e1];
	if (out_link(c, out, n, lid) == NONE)
		return;
	p = lft_row(out, n)[lid];
	if (c->ord == NULL || !c->ord_ok) {
		link_bit_set(c->dep, e1, p);
		return;
	}
	if (!rp_dep_try(c, e1, p)) {
		/* a cycle the caller was left with: no order any more */
		link_bit_set(c->dep, e1, p);
		c->ord_ok = false;
	}
}

/* Every dependency lid's route makes in out. */
void
rp_dep_add_lid(struct rp *c, const struct lft_set *out, uint16_t lid)
{
	for (uint32_t sw = 0; sw < c->nsw; sw++)
		if (sw != c->lid_sw[lid])
			rp_dep_add(c, out, sw, lft_row(out, sw)[lid], lid);
}

/* Can link from reach link to in the dependency graph? */
static bool
dep_reach(struct rp *c, uint32_t from, uint32_t to)
{
	uint32_t top = 0, e, n, e2;
	unsigned q;

	if (++c->dnow == 0) {
		memset(c->dmark, 0, (size_t)c->g.off[c->nsw] * sizeof(*c->dmark));
		c->dnow = 1;
	}
	if (c->ord_ok && c->ord[from] > c->ord[to])
		return false;   /* every path climbs the order */
	c->dmark[from] = c->dnow;
	c->dstk[top++] = from;
	while (top > 0) {
		if (c->budget == 0) {
			c->spent = true;
			return true;    /* not known to be safe */
		}
		c->budget--;
		e = c->dstk[--top];
		if (e == to)
			return true;
		n = c->g.sw[e];
		for (q = 0; q < 256; q++) {
			if (c->dep[(size_t)e * 32 + q / 8] == 0) {
				q |= 7;
				continue;
			}
			if (!dep_has(c, e, (uint8_t)q) ||
			    (e2 = c->eid[(size_t)n * 256 + q]) == NONE ||
			    c->dmark[e2] == c->dnow ||
			    (c->ord_ok && c->ord[e2] > c->ord[to]))
				continue;
			c->dmark[e2] = c->dnow;
			c->dstk[top++] = e2;
		}
	}
	return false;
}

/*
 * The order of the dependency graph (repair_run_local): built once
 * (rp_ord_build, Kahn's), then kept as dependencies are added (rp_dep_try): an
 * edge x -> y with x placed after y is a cycle when y reaches x among the
 * links placed up to x (the search dep_reach prunes to), and else the
 * links of that window that y reaches move, in their order, behind the
 * others (Marchetti-Spaccamela et al.), which keeps every edge climbing.
 * Removing an edge keeps an order one. Every step is charged to the
 * budget. When an edge has to be added that closes a cycle (rp_dep_add() of
 * a repair that had no other way), ord_ok is cleared and searches go
 * unpruned.
 */
void
rp_ord_build(struct rp *c)
{
	uint32_t ne = c->g.off[c->nsw], e, e2, n, head = 0, tail = 0;
	uint32_t *indeg = xcalloc(ne, sizeof(*indeg));
	unsigned q;

	c->ord = xcalloc((size_t)ne + 1, sizeof(*c->ord));
	c->at = xcalloc((size_t)ne + 1, sizeof(*c->at));

	for (e = 0; e < ne; e++) {
		n = c->g.sw[e];
		for (q = 0; q < 256; q++) {
			if (c->dep[(size_t)e * 32 + q / 8] == 0) {
				q |= 7;
				continue;
			}
			if (dep_has(c, e, (uint8_t)q) &&
			    (e2 = c->eid[(size_t)n * 256 + q]) != NONE)
				indeg[e2]++;
		}
	}
	for (e = 0; e < ne; e++)
		if (indeg[e] == 0)
			c->at[tail++] = e;
	while (head < tail) {
		e = c->at[head];
		c->ord[e] = head++;
		n = c->g.sw[e];
		for (q = 0; q < 256; q++) {
			if (c->dep[(size_t)e * 32 + q / 8] == 0) {
				q |= 7;
				continue;
			}
			if (dep_has(c, e, (uint8_t)q) &&
			    (e2 = c->eid[(size_t)n * 256 + q]) != NONE &&
			    --indeg[e2] == 0)
				c->at[tail++] = e2;
		}
	}
	c->ord_ok = tail == ne;         /* else the graph has a cycle */
	free(indeg);
}

/* Add the dependency after link e1, port q (of the switch e1 leads to),
 * unless it closes a cycle: returns false then (nothing added), or when
 * the budget is spent (not known to be safe). */
bool
rp_dep_try(struct rp *c, uint32_t e1, uint8_t q)
{
	uint32_t e2, lo, hi, i, j, e;

	if (dep_has(c, e1, q))
		return true;
	if ((e2 = c->eid[(size_t)c->g.sw[e1] * 256 + q]) == NONE) {
		link_bit_set(c->dep, e1, q);
		return true;
	}
	if (!c->ord_ok) {
		if (dep_reach(c, e2, e1))
			return false;
		link_bit_set(c->dep, e1, q);
		return true;
	}
	if (c->ord[e1] < c->ord[e2]) {
		link_bit_set(c->dep, e1, q);
		return true;
	}
	if (dep_reach(c, e2, e1))       /* marks what e2 reaches (dnow) */
		return false;
	lo = c->ord[e2];
	hi = c->ord[e1];
	if (c->budget < hi - lo + 1) {
		c->spent = true;
		return false;
	}
	c->budget -= hi - lo + 1;
	/* the window lo..hi: the links e2 does not reach first, then those
	 * it does (c->dstk as scratch), each group in its order */
	for (i = lo, j = 0; i <= hi; i++)
		if (c->dmark[e = c->at[i]] != c->dnow)
			c->dstk[j++] = e;
	for (i = lo; i <= hi; i++)
		if (c->dmark[e = c->at[i]] == c->dnow)
			c->dstk[j++] = e;
	for (i = 0; i < j; i++) {
		c->at[lo + i] = c->dstk[i];
		c->ord[c->dstk[i]] = lo + i;
	}
	link_bit_set(c->dep, e1, q);
	return true;
}

/* Does lid's route from switch sw by port p make no new dependency? */
static bool
dep_known(const struct rp *c, const struct lft_set *out, uint32_t sw,
    uint8_t p, uint16_t lid)
{
	uint32_t e1, n;

	if ((e1 = c->eid[(size_t)sw * 256 + p]) == NONE)
		return true;
	n = c->g.sw[e1];
	return out_link(c, out, n, lid) == NONE ||
	    dep_has(c, e1, lft_row(out, n)[lid]);
}

/* Would lid's route from switch sw by port p close a cycle of
 * dependencies? */
bool
rp_dep_safe(struct rp *c, const struct lft_set *out, uint32_t sw, uint8_t p,
    uint16_t lid)
{
	uint32_t e1, e2, n;

	if (!deps_on(c) || (e1 = c->eid[(size_t)sw * 256 + p]) == NONE)
		return true;
	n = c->g.sw[e1];
	if ((e2 = out_link(c, out, n, lid)) == NONE)
		return true;
	if (dep_has(c, e1, lft_row(out, n)[lid]))
		return true;
	return !dep_reach(c, e2, e1);
}

/* Of the candidates, keep those whose dependency some route already makes,
 * else those that close no cycle, when there are any; returns how many are
 * left. */
unsigned
rp_safe_only(struct rp *c, const struct lft_set *out, uint32_t sw,
    uint16_t lid, uint8_t *cand, unsigned k)
{
	unsigned i, n = 0;

	if (!deps_on(c))
		return k;
	for (i = 0; i < k; i++)
		if (dep_known(c, out, sw, cand[i], lid))
			cand[n++] = cand[i];
	if (n > 0)
		return n;
	for (i = 0; i < k; i++)
		if (rp_dep_safe(c, out, sw, cand[i], lid))
			cand[n++] = cand[i];
	return n > 0 ? n : k;
}

/* A dependency between two links (channels) of c->g, made by lid's route. */
struct dep {
	uint32_t from, to;
	uint16_t lid;
};

static int
dep_cmp(const void *a, const void *b)
{
	const struct dep *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* The first of d (nd, sorted) not below key. */
static size_t
dep_first(const struct dep *d, size_t nd, const struct dep *key)
{
	size_t lo = 0, hi = nd, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (dep_cmp(&d[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The dependencies of s's routes, sorted by link; returns how many. */
static size_t
deps_of(const struct rp *c, const struct lft_set *s, struct dep *d)
{
	uint32_t sw, e1, e2, n;
	uint16_t lid;
	size_t k = 0;

	for (sw = 0; sw < c->nsw; sw++)
		for (lid = 1; lid <= s->max_lid && lid != 0; lid++) {
			if ((e1 = c->eid[(size_t)sw * 256 +
			    lft_row(s, sw)[lid]]) == NONE)
				continue;
			n = c->g.sw[e1];
			if ((e2 = c->eid[(size_t)n * 256 +
			    lft_row(s, n)[lid]]) == NONE)
				continue;
			d[k].from = e1;
			d[k].to = e2;
			d[k++].lid = lid;
		}
	qsort(d, k, sizeof(*d), dep_cmp);
	return k;
}

/*
 * A cycle of the dependency graph d (nd, sorted): the links on it in cyc,
 * returns its length, 0 when there is none. Depth first, iteratively.
 */
static uint32_t
find_cycle(const struct rp *c, const struct dep *d, size_t nd, uint32_t *cyc)
{
	uint32_t ne = c->g.off[c->nsw], *off, *stk, *it, top, e, v, w, i, n = 0;
	uint8_t *col;
	size_t k;

	off = xcalloc((size_t)ne + 1, sizeof(*off));
	for (k = 0; k < nd; k++)
		off[d[k].from + 1]++;
	for (e = 0; e < ne; e++)
		off[e + 1] += off[e];
	col = xcalloc(ne, 1);
	stk = xcalloc(ne, sizeof(*stk));
	it = xcalloc(ne, sizeof(*it));
	for (e = 0; e < ne && n == 0; e++) {
		if (col[e] != 0)
			continue;
		top = 0;
		stk[top++] = e;
		col[e] = 1;
		it[e] = off[e];
		while (top > 0 && n == 0) {
			v = stk[top - 1];
			if (it[v] == off[v + 1]) {
				col[v] = 2;
				top--;
				continue;
			}
			w = d[it[v]++].to;
			if (col[w] == 0) {
				col[w] = 1;
				it[w] = off[w];
				stk[top++] = w;
			} else if (col[w] == 1) {
				for (i = top; i-- > 0;)
					if (stk[i] == w)
						break;
				for (; i < top; i++)
					cyc[n++] = stk[i];
			}
		}
	}
	free(it);
	free(stk);
	free(col);
	free(off);
	return n;
}

/*
 * Credit loops the repair closed: while the dependencies of out have a
 * cycle, the LIDs whose routes make its dependencies (those the repair
 * changed first; never one already taken) are routed as fallback routes
 * them. Ends acyclic (returns 1) or when a cycle is made only of LIDs
 * fallback routes already (0). fallback alone is acyclic, so taking every
 * LID ends the loop.
 */
static int
untangle(struct rp *c, struct lft_set *out, const struct lft_set *fallback,
    const uint8_t *changed, uint8_t *taken, struct repair_result *r)
{
	size_t nmax = (size_t)c->nsw * ((size_t)out->max_lid + 1) + 1, nd, k;
	struct dep *d, key;
	uint32_t *cyc, n, i, sw, pick;
	uint16_t lid, *lids;
	int pass, ok = 0;

	/* every pass lists every dependency: it is charged to the budget
	 * (the list alone is 12 bytes per table entry) */
	if (c->spent || c->budget < nmax) {
		c->spent = true;
		return 0;
	}
	d = xcalloc(nmax, sizeof(*d));
	cyc = xcalloc((size_t)c->g.off[c->nsw] + 1, sizeof(*cyc));
	lids = xcalloc((size_t)out->max_lid + 1, sizeof(*lids));
	for (;;) {
		if (c->budget < nmax) {
			c->spent = true;
			break;
		}
		c->budget -= nmax;
		nd = deps_of(c, out, d);
		if ((n = find_cycle(c, d, nd, cyc)) == 0) {
			ok = 1;
			break;
		}
		pick = 0;
		for (pass = 0; pass < 2 && pick == 0; pass++)
			for (i = 0; i < n; i++) {
				key.from = cyc[i];
				key.to = cyc[(i + 1) % n];
				key.lid = 0;
				for (k = dep_first(d, nd, &key); k < nd && d[k].from == key.from &&
				    d[k].to == key.to; k++) {
					lid = d[k].lid;
					if (taken[lid] || lid > fallback->max_lid ||
					    (pass == 0 && !changed[lid]))
						continue;
					taken[lid] = 1;
					lids[pick++] = lid;
				}
			}
		if (pick == 0)
			break;
		for (i = 0; i < pick; i++) {
			for (sw = 0; sw < c->nsw; sw++)
				lft_row(out, sw)[lids[i]] =
				    lft_row(fallback, sw)[lids[i]];
			r->engine_lids++;
		}
	}
	free(lids);
	free(cyc);
	free(d);
	return ok;
}

/*
 * The dependencies of out's routes recorded (dep[]), with budget visits of
 * a dependency link to spend on searching them (budget0 for the report).
 */
void
rp_deps_start(struct rp *c, const struct lft_set *out, uint64_t budget)
{
	uint16_t lid;

	c->budget = c->budget0 = budget;
	c->dep = xcalloc((size_t)c->g.off[c->nsw] + 1, 32);
	c->dmark = xcalloc((size_t)c->g.off[c->nsw] + 1, sizeof(*c->dmark));
	c->dstk = xcalloc((size_t)c->g.off[c->nsw] + 1, sizeof(*c->dstk));
	for (lid = 1; lid <= out->max_lid && lid != 0; lid++)
		if (c->lid_sw[lid] != NONE)
			rp_dep_add_lid(c, out, lid);
}

/* untangle() over the LIDs whose entries differ from the previous tables'. */
void
rp_untangle_changed(struct rp *c, struct lft_set *out,
    const struct lft_set *fallback, struct repair_result *r)
{
	uint8_t *need = xcalloc((size_t)out->max_lid + 1, 1);
	uint32_t sw;
	uint16_t lid;

	for (lid = 1; lid <= out->max_lid && lid != 0; lid++)
		for (sw = 0; sw < c->nsw; sw++)
			if (lft_row(out, sw)[lid] != prev_entry(c, sw, lid)) {
				need[lid] = 1;
				break;
			}
	untangle(c, out, fallback, need, c->taken, r);
	free(need);
}
