/*
 * Keeping tables with their credit loops broken (see routing/acyclic.h).
 *
 * Channels are the links of the switch graph (kernel_graph: one per
 * direction of a usable switch-to-switch cable). An entry makes the
 * dependency (e, q) when its LID's route crosses link e into a switch that
 * sends the LID on by port q; it is an edge of the graph when q leads to
 * a switch too (as routing/cdg.c counts them). cnt[] counts the entries
 * that make each edge (the engine's edges, seeded, count one more that
 * never goes), so that a LID's can be taken out again (log[]); succ[] and
 * pred[] mirror cnt[] as bits for the searches. An edge that closed a
 * cycle once is refused from then on (nope[]), without a search: the
 * graph only loses the edges of a LID that failed, so that is at worst
 * too careful.
 *
 * The order (Pearce and Kelly, "A dynamic topological sort algorithm for
 * directed acyclic graphs", 2006): ord[] numbers the links so that every
 * edge climbs; the engine's edges get theirs by Kahn's algorithm. An edge
 * x -> y with ord[y] < ord[x] closes a cycle when y reaches x; the search
 * forward from y visits only links placed below x, the search back from x
 * only links placed above y (turn about, a link at a time: a link both
 * reach is on a way from y to x), and when there is no cycle the links
 * found back from x take the lowest of their joint places, those found
 * forward from y the rest, each group in its old order.
 *
 * Per LID, a switch is decided once its entry is chosen and its
 * dependencies recorded. From the LID's own switch outwards, a switch
 * whose kept route delivers waits until the switch that route leads to is
 * settled (decided, delivering), then takes the kept entry, else the
 * engine's if the engine's next switch is settled; a switch only the
 * engine's tables deliver from takes theirs the same way. Every settled
 * switch leads into one settled before it, so the mix delivers without a
 * loop, and each settling adds one dependency (the one out of it: none
 * leads into it yet). When nothing is left waiting for a switch that can
 * still settle, the engine's entry is tried wherever it leads into
 * settled switches. A delivering switch left unsettled makes the LID fail
 * (its dependencies are taken out) and it is routed as the engine routes
 * it. Entries that deliver in neither table are decided last (kept's,
 * else the engine's, else no route), with the dependencies into and out
 * of them.
 */
#include "routing/acyclic.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/cdg.h"
#include "routing/kernel.h"

#define NONE            UINT32_MAX

enum { W_UNKNOWN, W_STACK, W_OK, W_BAD };

struct ac {
	struct kernel_graph g;
	uint32_t nsw, nl, stride;
	uint16_t max;
	uint32_t *nbr;          /* [nsw * 256] switch behind (switch, port) */
	uint32_t *eid;          /* [nsw * 256] its link */
	uint32_t *rev;          /* [nl] the link back over the same cable */
	uint32_t *lid_sw;       /* [max + 1] switch the LID hangs off */
	uint8_t *lid_port;      /* [max + 1] the port there that leads to it */
	/* the dependency graph */
	uint32_t *cnt;          /* [nl * stride] entries making (e, q) */
	uint8_t *nope;          /* [nl * stride] (e, q) closed a cycle */
	uint32_t words;         /* per link in succ and pred */
	uint64_t *succ;         /* [nl * words] bit q: an edge to the link
				 * out of e's far switch by port q */
	uint64_t *pred;         /* [nl * words] bit i: an edge from the link
				 * back over link off[sw] + i of the switch
				 * the link leaves */
	uint32_t *ord;          /* [nl] place in the topological order */
	uint32_t *mark, now;    /* [nl] visit marks */
	uint32_t *stk, *fwd, *bwd;      /* [nl] */
	uint64_t *key;          /* [nl] (place, link) to sort */
	uint32_t *ord_save;     /* [nl] revert_block() */
	uint32_t *del;          /* dependencies taken out, in order */
	size_t ndel, capdel;
	bool cache;             /* nope[] holds */
	uint64_t budget;
	bool spent;
	uint32_t *log;          /* dependencies recorded, in order */
	size_t nlog, caplog;
	/* the tables, and per LID */
	const struct lft_set *m, *c;
	struct lft_set *t;
	uint8_t *okm, *okc, *dec, *mfail, *cfail;
	uint32_t *queue, *path;
};

static inline uint32_t
next_sw(const struct ac *a, uint32_t sw, uint8_t p)
{
	return a->nbr[(size_t)sw * 256 + p];
}

static inline uint8_t
at(const struct lft_set *s, uint32_t sw, uint16_t lid)
{
	return lft_row(s, sw)[lid];
}

/* False when a cable is a link one way only (a port numbered 255 at one
 * end: the graph leaves it out), which this does not model. */
static bool
ac_init(struct ac *a, const struct fabric *f, struct lft_set *t)
{
	uint32_t sw, l, i, n, x;
	const struct fabric_node *nd;
	uint32_t maxp = 0;

	memset(a, 0, sizeof(*a));
	a->nsw = t->nsw;
	a->max = t->max_lid;
	a->t = t;
	kernel_graph_build(f, t, &a->g);
	a->nl = a->g.off[a->nsw];
	n = a->nsw ? a->nsw : 1;
	a->nbr = xcalloc((size_t)n * 256, sizeof(*a->nbr));
	a->eid = xcalloc((size_t)n * 256, sizeof(*a->eid));
	memset(a->nbr, 0xff, (size_t)n * 256 * sizeof(*a->nbr));
	memset(a->eid, 0xff, (size_t)n * 256 * sizeof(*a->eid));
	for (sw = 0; sw < a->nsw; sw++) {
		nd = &f->nodes[t->sw_node[sw]];
		if (nd->nports > maxp)
			maxp = nd->nports;
		for (l = a->g.off[sw]; l < a->g.off[sw + 1]; l++) {
			a->nbr[(size_t)sw * 256 + a->g.port[l]] = a->g.sw[l];
			a->eid[(size_t)sw * 256 + a->g.port[l]] = l;
		}
	}
	a->stride = maxp + 1 > 256 ? 256 : maxp + 1;
	a->rev = xcalloc(a->nl, sizeof(*a->rev));
	for (sw = 0; sw < a->nsw; sw++)
		for (l = a->g.off[sw]; l < a->g.off[sw + 1]; l++) {
			/* the far end's port of this cable */
			uint32_t p = f->nodes[t->sw_node[sw]].port0 + a->g.port[l];
			uint8_t q = f->ports[f->ports[p].peer].num;

			a->rev[l] = a->eid[(size_t)a->g.sw[l] * 256 + q];
		}
	a->lid_sw = xcalloc((size_t)a->max + 1, sizeof(*a->lid_sw));
	a->lid_port = xcalloc((size_t)a->max + 1, 1);
	for (i = 0; i <= a->max; i++)
		a->lid_sw[i] = NONE;
	for (sw = 0; sw < a->nsw; sw++)
		for (i = a->g.dst_off[sw]; i < a->g.dst_off[sw + 1]; i++) {
			a->lid_sw[a->g.dst_lid[i]] = sw;
			a->lid_port[a->g.dst_lid[i]] = a->g.dst_port[i];
		}
	x = a->nl ? a->nl : 1;
	a->cnt = xcalloc((size_t)x * a->stride, sizeof(*a->cnt));
	a->ord = xcalloc(x, sizeof(*a->ord));
	a->nope = xcalloc((size_t)x * a->stride, 1);
	a->words = (a->stride + 63) / 64;
	a->succ = xcalloc((size_t)x * a->words, sizeof(*a->succ));
	a->pred = xcalloc((size_t)x * a->words, sizeof(*a->pred));
	a->mark = xcalloc(x, sizeof(*a->mark));
	a->stk = xcalloc(x, sizeof(*a->stk));
	a->fwd = xcalloc(x, sizeof(*a->fwd));
	a->bwd = xcalloc(x, sizeof(*a->bwd));
	a->key = xcalloc(x, sizeof(*a->key));
	a->ord_save = xcalloc(x, sizeof(*a->ord_save));
	a->cache = true;
	a->okm = xcalloc(n, 1);
	a->okc = xcalloc(n, 1);
	a->dec = xcalloc(n, 1);
	a->mfail = xcalloc(n, 1);
	a->cfail = xcalloc(n, 1);
	a->queue = xcalloc(n, sizeof(*a->queue));
	a->path = xcalloc(n, sizeof(*a->path));
	for (l = 0; l < a->nl; l++)
		if (a->rev[l] == NONE)
			return false;
	return true;
}

static void
ac_fini(struct ac *a)
{
	kernel_graph_free(&a->g);
	free(a->nbr);
	free(a->eid);
	free(a->rev);
	free(a->lid_sw);
	free(a->lid_port);
	free(a->cnt);
	free(a->nope);
	free(a->succ);
	free(a->pred);
	free(a->ord);
	free(a->mark);
	free(a->stk);
	free(a->fwd);
	free(a->bwd);
	free(a->key);
	free(a->ord_save);
	free(a->del);
	free(a->log);
	free(a->okm);
	free(a->okc);
	free(a->dec);
	free(a->mfail);
	free(a->cfail);
	free(a->queue);
	free(a->path);
}

static int
key_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Edge x -> y goes in: the links found back from x (bwd, nb) take the
 * lowest of the places both groups held, the links found forward from y
 * (fwd, nf) the rest, each group in its old order. */
static void
reorder(struct ac *a, uint32_t nb, uint32_t nf)
{
	uint32_t i, j, k, n = nb + nf, *pool = a->stk;
	uint64_t *key = a->key;

	for (i = 0; i < nb; i++)
		key[i] = (uint64_t)a->ord[a->bwd[i]] << 32 | a->bwd[i];
	for (i = 0; i < nf; i++)
		key[nb + i] = (uint64_t)a->ord[a->fwd[i]] << 32 | a->fwd[i];
	qsort(key, nb, sizeof(*key), key_cmp);
	qsort(key + nb, nf, sizeof(*key), key_cmp);
	/* the places, merged in order */
	for (i = 0, j = nb, k = 0; k < n; k++)
		if (j == n || (i < nb && key[i] < key[j]))
			pool[k] = (uint32_t)(key[i++] >> 32);
		else
			pool[k] = (uint32_t)(key[j++] >> 32);
	for (k = 0; k < n; k++)
		a->ord[(uint32_t)key[k]] = pool[k];
}

/* Edge e -> the link out of e's far switch by port q, in or out of the
 * masks the searches read. */
static void
edge_mask(struct ac *a, uint32_t e, uint8_t q, bool on)
{
	uint32_t y = a->eid[(size_t)a->g.sw[e] * 256 + q];
	uint32_t i = a->rev[e] - a->g.off[a->g.sw[e]];
	uint64_t *sm = &a->succ[(size_t)e * a->words + q / 64];
	uint64_t *pm = &a->pred[(size_t)y * a->words + i / 64];

	if (on) {
		*sm |= 1ULL << (q % 64);
		*pm |= 1ULL << (i % 64);
	} else {
		*sm &= ~(1ULL << (q % 64));
		*pm &= ~(1ULL << (i % 64));
	}
}

/* Can edge x -> y go in without closing a cycle? Then the order is made
 * to hold it. False too when the budget is spent (not known to be safe).
 * The two searches go a link at a time each, turn about: a link both
 * reach is on a way from y to x. */
static bool
order_insert(struct ac *a, uint32_t x, uint32_t y)
{
	uint32_t lb, ub, tf = 0, tb = 0, hf = 0, hb = 0, w, v, b, q, l, j, fm,
	    bm;
	uint64_t bits;

	if (x == y)
		return false;
	lb = a->ord[y];
	ub = a->ord[x];
	if (lb > ub)
		return true;
	if (a->now >= UINT32_MAX - 2) {
		memset(a->mark, 0, (size_t)(a->nl ? a->nl : 1) *
		    sizeof(*a->mark));
		a->now = 0;
	}
	fm = ++a->now;
	bm = ++a->now;
	a->fwd[tf++] = y;
	a->mark[y] = fm;
	a->bwd[tb++] = x;
	a->mark[x] = bm;
	while (hf < tf || hb < tb) {
		if (a->budget < 2) {
			a->spent = true;
			return false;
		}
		a->budget -= (hf < tf) + (hb < tb);
		if (hf < tf) {
			/* forward from y over the links placed below x */
			w = a->fwd[hf++];
			b = a->g.sw[w];
			for (j = 0; j < a->words; j++)
				for (bits = a->succ[(size_t)w * a->words + j];
				    bits != 0; bits &= bits - 1) {
					q = j * 64 + (uint32_t)__builtin_ctzll(bits);
					v = a->eid[(size_t)b * 256 + q];
					if (a->mark[v] == bm)
						return false;   /* a cycle */
					if (a->mark[v] == fm || a->ord[v] > ub)
						continue;
					a->mark[v] = fm;
					a->fwd[tf++] = v;
				}
		}
		if (hb < tb) {
			/* back from x over the links placed above y */
			w = a->bwd[hb++];
			b = a->g.sw[a->rev[w]];         /* the switch w leaves */
			for (j = 0; j < a->words; j++)
				for (bits = a->pred[(size_t)w * a->words + j];
				    bits != 0; bits &= bits - 1) {
					l = a->g.off[b] + j * 64 +
					    (uint32_t)__builtin_ctzll(bits);
					v = a->rev[l];  /* a link into b */
					if (a->mark[v] == fm)
						return false;   /* a cycle */
					if (a->mark[v] == bm || a->ord[v] < lb)
						continue;
					a->mark[v] = bm;
					a->bwd[tb++] = v;
				}
		}
	}
	reorder(a, tb, tf);
	return true;
}

static void
journal(uint32_t **j, size_t *n, size_t *cap, uint32_t k)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*j = xreallocarray(*j, *cap, sizeof(**j));
	}
	(*j)[(*n)++] = k;
}

/* One more entry makes dependency (e, q): false, nothing recorded, when
 * it is an edge that would close a cycle. */
static bool
dep_add(struct ac *a, uint32_t e, uint8_t q)
{
	uint32_t y = a->eid[(size_t)a->g.sw[e] * 256 + q];
	size_t k;

	if (y == NONE)
		return true;            /* q leads to no switch: no edge */
	k = (size_t)e * a->stride + q;
	if (a->cache && a->nope[k])
		return false;   /* it closed a cycle before: it still would */
	if (a->cnt[k] == 0) {
		if (!order_insert(a, e, y)) {
			a->nope[k] = a->cache;
			return false;
		}
		edge_mask(a, e, q, true);
	}
	a->cnt[k]++;
	journal(&a->log, &a->nlog, &a->caplog, (uint32_t)k);
	return true;
}

/* Take out the dependencies recorded since the log held n (edges that
 * go keep the order one). */
static void
undo_to(struct ac *a, size_t n)
{
	uint32_t k;

	while (a->nlog > n) {
		k = a->log[--a->nlog];
		if (--a->cnt[k] == 0)
			edge_mask(a, k / a->stride, (uint8_t)(k % a->stride),
			    false);
	}
}

/*
 * Switch x takes port p for lid, with the dependencies it makes with the
 * decided entries: on from the switch p leads to, and (in) from each
 * decided neighbour whose entry leads into x (none while settling
 * outwards: a settled switch leads into one settled before it). False,
 * nothing changed, when one closes a cycle.
 */
static bool
set_entry(struct ac *a, uint32_t x, uint8_t p, uint16_t lid, bool in)
{
	size_t n0 = a->nlog;
	uint32_t e = a->eid[(size_t)x * 256 + p], l, r, u;

	if (e != NONE && a->dec[a->g.sw[e]] &&
	    !dep_add(a, e, at(a->t, a->g.sw[e], lid)))
		goto undo;
	if (in)
		for (l = a->g.off[x]; l < a->g.off[x + 1]; l++) {
			u = a->g.sw[l];
			r = a->rev[l];
			if (!a->dec[u] || at(a->t, u, lid) != a->g.port[r])
				continue;
			if (!dep_add(a, r, p))
				goto undo;
		}
	lft_row(a->t, x)[lid] = p;
	a->dec[x] = 1;
	return true;
undo:
	undo_to(a, n0);
	return false;
}

/* ok[sw]: does s's route from sw to lid arrive (over usable cables,
 * without a loop, leaving the LID's switch by its port)? */
static void
walk(struct ac *a, const struct lft_set *s, uint16_t lid, uint8_t *ok)
{
	uint32_t t = a->lid_sw[lid], x, y, k;
	uint8_t p, v;

	memset(ok, W_UNKNOWN, a->nsw);
	for (x = 0; x < a->nsw; x++) {
		if (ok[x] != W_UNKNOWN)
			continue;
		for (k = 0, y = x;;) {
			if (ok[y] != W_UNKNOWN) {
				v = ok[y] == W_OK ? W_OK : W_BAD;
				break;
			}
			ok[y] = W_STACK;
			a->path[k++] = y;
			p = at(s, y, lid);
			if (y == t && p == a->lid_port[lid]) {
				v = W_OK;
				break;
			}
			if ((y = next_sw(a, y, p)) == NONE) {
				v = W_BAD;
				break;
			}
		}
		while (k > 0)
			ok[a->path[--k]] = v;
	}
	for (x = 0; x < a->nsw; x++)
		ok[x] = ok[x] == W_OK;
}

/* Try to settle switch u (see the top of this file). */
static bool
settle(struct ac *a, uint32_t u, uint16_t lid)
{
	uint8_t pm = at(a->m, u, lid), pc = at(a->c, u, lid);
	uint32_t nm = next_sw(a, u, pm), nc = next_sw(a, u, pc);

	if (a->okm[u] && nm != NONE) {
		if (!a->dec[nm])
			return false;   /* the kept route on is not settled yet */
		if (!a->mfail[u]) {
			if (set_entry(a, u, pm, lid, false))
				return true;
			a->mfail[u] = 1;
		}
		if (pc == pm)
			return false;
	}
	if (!a->okc[u] || a->cfail[u] || nc == NONE || !a->dec[nc])
		return false;
	if (set_entry(a, u, pc, lid, false))
		return true;
	a->cfail[u] = 1;
	return false;
}

/* lid mixed (see the top of this file); false with nothing recorded when
 * a switch that delivers cannot settle. */
static bool
lid_mix(struct ac *a, uint16_t lid)
{
	uint32_t t = a->lid_sw[lid], head = 0, tail = 0, x, l, u, nc;
	size_t n0 = a->nlog;
	bool more;

	walk(a, a->m, lid, a->okm);
	walk(a, a->c, lid, a->okc);
	memset(a->dec, 0, a->nsw);
	memset(a->mfail, 0, a->nsw);
	memset(a->cfail, 0, a->nsw);
	if (t != NONE) {
		/* its port out is no channel: nothing to record */
		if (a->okm[t])
			(void)set_entry(a, t, at(a->m, t, lid), lid, false);
		else if (a->okc[t])
			(void)set_entry(a, t, at(a->c, t, lid), lid, false);
		if (a->dec[t])
			a->queue[tail++] = t;
	}
	do {
		while (head < tail) {
			x = a->queue[head++];
			for (l = a->g.off[x]; l < a->g.off[x + 1]; l++) {
				u = a->g.sw[l];
				if (!a->dec[u] && settle(a, u, lid))
					a->queue[tail++] = u;
			}
		}
		/* nothing waits for a switch that can still settle: the
		 * engine's entry wherever it leads into settled switches */
		more = false;
		for (u = 0; u < a->nsw; u++) {
			if (a->dec[u] || !a->okc[u] || a->cfail[u] ||
			    (nc = next_sw(a, u, at(a->c, u, lid))) == NONE ||
			    !a->dec[nc])
				continue;
			if (set_entry(a, u, at(a->c, u, lid), lid, false)) {
				a->queue[tail++] = u;
				more = true;
			} else
				a->cfail[u] = 1;
		}
	} while (more);
	for (x = 0; x < a->nsw; x++)
		if (!a->dec[x] && (a->okm[x] || a->okc[x])) {
			undo_to(a, n0);
			return false;
		}
	/* the entries that deliver in neither table */
	for (x = 0; x < a->nsw; x++)
		if (!a->dec[x] && !set_entry(a, x, at(a->m, x, lid), lid, true) &&
		    !set_entry(a, x, at(a->c, x, lid), lid, true))
			(void)set_entry(a, x, LFT_NO_ROUTE, lid, true);
	return true;
}

/* lid as the engine routes it; false with nothing recorded when that
 * closes a cycle. */
static bool
lid_engine(struct ac *a, uint16_t lid)
{
	size_t n0 = a->nlog;
	uint32_t x;

	memset(a->dec, 0, a->nsw);
	for (x = 0; x < a->nsw; x++)
		if (!set_entry(a, x, at(a->c, x, lid), lid, true)) {
			undo_to(a, n0);
			return false;
		}
	return true;
}

/* Destination LIDs in the order they are taken: CAs', switches', then
 * LIDs no port holds; returns how many. */
static uint32_t
lid_order(const struct ac *a, uint16_t *lids)
{
	uint32_t n = 0, lid;
	int pass;

	for (pass = 0; pass < 3; pass++)
		for (lid = 1; lid <= a->max; lid++) {
			int kind = a->lid_sw[lid] == NONE ? 2 :
			    a->lid_port[lid] == 0 ? 1 : 0;

			if (kind == pass)
				lids[n++] = (uint16_t)lid;
		}
	return n;
}

/*
 * The graph of s's dependencies, each counted once (virtual: held by no
 * entry, the engine's seeded) or once per entry that makes it, in an order
 * by Kahn's algorithm. False when it has a cycle.
 */
static bool
load(struct ac *a, const struct lft_set *s, bool virtual)
{
	uint32_t sw, e, y, *indeg, head = 0, tail = 0, w, b, q, x;
	uint16_t lid;
	uint8_t p;
	size_t k;

	x = a->nl ? a->nl : 1;
	memset(a->cnt, 0, (size_t)x * a->stride * sizeof(*a->cnt));
	memset(a->succ, 0, (size_t)x * a->words * sizeof(*a->succ));
	memset(a->pred, 0, (size_t)x * a->words * sizeof(*a->pred));
	memset(a->nope, 0, (size_t)x * a->stride);
	a->nlog = 0;
	for (sw = 0; sw < a->nsw; sw++)
		for (lid = 1; lid <= a->max && lid != 0; lid++) {
			if ((e = a->eid[(size_t)sw * 256 + at(s, sw, lid)]) ==
			    NONE)
				continue;
			p = at(s, a->g.sw[e], lid);
			if (a->eid[(size_t)a->g.sw[e] * 256 + p] == NONE)
				continue;
			k = (size_t)e * a->stride + p;
			if (a->cnt[k] == 0)
				edge_mask(a, e, p, true);
			if (a->cnt[k] == 0 || !virtual)
				a->cnt[k]++;
		}
	indeg = xcalloc(x, sizeof(*indeg));
	for (e = 0; e < a->nl; e++)
		for (q = 1, b = a->g.sw[e]; q < a->stride; q++)
			if (a->cnt[(size_t)e * a->stride + q] > 0)
				indeg[a->eid[(size_t)b * 256 + q]]++;
	for (e = 0; e < a->nl; e++)
		if (indeg[e] == 0)
			a->stk[tail++] = e;
	while (head < tail) {
		w = a->stk[head];
		a->ord[w] = head++;
		for (q = 1, b = a->g.sw[w]; q < a->stride; q++) {
			k = (size_t)w * a->stride + q;
			if (a->cnt[k] > 0 &&
			    --indeg[y = a->eid[(size_t)b * 256 + q]] == 0)
				a->stk[tail++] = y;
		}
	}
	free(indeg);
	return tail == a->nl;
}

/* Does the route from x (in the tables being made) arrive? */
static bool
arrives(const struct ac *a, uint32_t x, uint16_t lid)
{
	uint32_t t = a->lid_sw[lid], hops;
	uint8_t p;

	for (hops = 0; hops <= a->nsw && x != NONE; hops++) {
		p = at(a->t, x, lid);
		if (x == t && p == a->lid_port[lid])
			return true;
		x = next_sw(a, x, p);
	}
	return false;
}

/* One entry fewer makes dependency (e, q): journalled in del[] so that
 * it can be put back. */
static void
dep_del(struct ac *a, uint32_t e, uint8_t q)
{
	size_t k;

	if (a->eid[(size_t)a->g.sw[e] * 256 + q] == NONE)
		return;
	k = (size_t)e * a->stride + q;
	if (--a->cnt[k] == 0)
		edge_mask(a, e, q, false);
	journal(&a->del, &a->ndel, &a->capdel, (uint32_t)k);
}

/*
 * Entry (x, lid) of the tables being made goes from its port to p: the
 * dependencies of the old port out of x and into it are taken out, the
 * new ones recorded. False when one closes a cycle, with the new ones
 * taken out again and the old ones left out (the caller puts the block
 * back).
 */
static bool
swap_entry(struct ac *a, uint32_t x, uint16_t lid, uint8_t p)
{
	uint8_t old = at(a->t, x, lid);
	uint32_t e, l, u, r;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint8_t port = pass == 0 ? old : p;

		if (pass == 1)
			lft_row(a->t, x)[lid] = p;
		if ((e = a->eid[(size_t)x * 256 + port]) != NONE) {
			if (pass == 0)
				dep_del(a, e, at(a->t, a->g.sw[e], lid));
			else if (!dep_add(a, e, at(a->t, a->g.sw[e], lid)))
				return false;
		}
		for (l = a->g.off[x]; l < a->g.off[x + 1]; l++) {
			u = a->g.sw[l];
			r = a->rev[l];
			if (at(a->t, u, lid) != a->g.port[r])
				continue;
			if (pass == 0)
				dep_del(a, r, port);
			else if (!dep_add(a, r, port))
				return false;
		}
	}
	return true;
}

/*
 * Block b of switch sw back to the kept entries, all or none: each must
 * still arrive where the route did and close no cycle. Undone, the
 * dependencies go back as they were and so does the order (saved).
 */
static bool
revert_block(struct ac *a, uint32_t sw, uint32_t b)
{
	uint32_t lid, hi = b * 64 + 63 < a->max ? b * 64 + 63 : a->max;
	uint8_t was[64];
	size_t k;
	bool ok = true, arrived;

	memcpy(a->ord_save, a->ord, (size_t)a->nl * sizeof(*a->ord));
	a->nlog = a->ndel = 0;
	for (lid = b * 64; lid <= hi; lid++)
		was[lid - b * 64] = at(a->t, sw, (uint16_t)lid);
	for (lid = b * 64 < 1 ? 1 : b * 64; lid <= hi && ok; lid++) {
		if (at(a->t, sw, (uint16_t)lid) == at(a->m, sw, (uint16_t)lid))
			continue;
		arrived = arrives(a, sw, (uint16_t)lid);
		ok = swap_entry(a, sw, (uint16_t)lid, at(a->m, sw,
		    (uint16_t)lid)) && (!arrived || arrives(a, sw,
		    (uint16_t)lid));
	}
	if (ok)
		return true;
	undo_to(a, 0);
	while (a->ndel > 0) {
		k = a->del[--a->ndel];
		if (a->cnt[k]++ == 0)
			edge_mask(a, (uint32_t)(k / a->stride),
			    (uint8_t)(k % a->stride), true);
	}
	for (lid = b * 64; lid <= hi; lid++)
		lft_row(a->t, sw)[lid] = was[lid - b * 64];
	memcpy(a->ord, a->ord_save, (size_t)a->nl * sizeof(*a->ord));
	return false;
}

/*
 * The blocks changed, each tried back whole (the fewest entries changed
 * first), over the dependencies the result makes (the engine's unused
 * ones gone, which may have held a kept entry off), until none goes back
 * or the budget is spent (then the rest stay changed). Cycles are not
 * cached here: the graph loses edges.
 */
static void
revert_blocks(struct ac *a)
{
	uint32_t sw, b, nb = a->max / 64u + 1, n, i, lid;
	uint64_t *blk;
	bool more;

	if (!load(a, a->t, false))
		return;                 /* cannot be: the result is checked */
	a->cache = false;
	blk = xcalloc((size_t)(a->nsw ? a->nsw : 1) * nb, sizeof(*blk));
	do {
		more = false;
		for (sw = 0, n = 0; sw < a->nsw; sw++)
			for (b = 0; b < nb; b++) {
				uint32_t c = 0;

				for (lid = b * 64; lid <= a->max &&
				    lid < b * 64 + 64; lid++)
					c += at(a->t, sw, (uint16_t)lid) !=
					    at(a->m, sw, (uint16_t)lid);
				if (c > 0)
					blk[n++] = (uint64_t)c << 40 |
					    (uint64_t)sw << 16 | b;
			}
		qsort(blk, n, sizeof(*blk), key_cmp);
		for (i = 0; i < n && !a->spent; i++)
			if (revert_block(a, (uint32_t)(blk[i] >> 16 & 0xffffff),
			    (uint32_t)(blk[i] & 0xffff)))
				more = true;
	} while (more && !a->spent);
	free(blk);
}

static void
tally(const struct ac *a, const struct lft_set *m, struct acyclic_result *r)
{
	uint32_t sw, lid, b;
	uint8_t *lidc = xcalloc((size_t)a->max + 1, 1);
	const uint8_t *tr, *mr;
	bool blk;

	for (sw = 0; sw < a->nsw; sw++) {
		tr = lft_row(a->t, sw);
		mr = lft_row(m, sw);
		for (b = 0; b <= a->max / 64u; b++) {
			blk = false;
			for (lid = b * 64; lid < b * 64 + 64 && lid <= a->max;
			    lid++)
				if (tr[lid] != mr[lid]) {
					r->changed++;
					lidc[lid] = 1;
					blk = true;
				}
			r->blocks += blk;
		}
	}
	for (lid = 0; lid <= a->max; lid++)
		r->lids += lidc[lid];
	free(lidc);
}

int
acyclic_keep(const struct fabric *f, struct lft_set *kept,
    const struct lft_set *engine, uint64_t budget, struct acyclic_result *r)
{
	struct ac a;
	struct lft_set m;
	size_t bytes = (size_t)kept->nsw * ((size_t)kept->max_lid + 1);
	uint16_t *lids;
	uint32_t n, i;
	int rc = -1;
	bool ok;

	memset(r, 0, sizeof(*r));
	if (kept->nsw != engine->nsw || kept->max_lid != engine->max_lid)
		return -1;
	if (cdg_acyclic(f, kept, NULL))
		return 0;               /* nothing to break */
	m = *kept;
	m.port = xmalloc(bytes);
	memcpy(m.port, kept->port, bytes);
	ok = ac_init(&a, f, kept);
	a.m = &m;
	a.c = engine;
	a.budget = budget ? budget : 1;
	lids = xcalloc((size_t)a.max + 1, sizeof(*lids));
	if (!ok)
		goto out;
	n = lid_order(&a, lids);
	/* the engine's dependencies first (see the top of routing/acyclic.h) */
	if (!load(&a, engine, true))
		goto out;
	for (i = 0; i < n; i++) {
		a.nlog = 0;     /* a LID undoes only its own */
		if (!a.spent && lid_mix(&a, lids[i]))
			continue;
		/* every dependency the engine's entries make is there: no
		 * search, whatever the budget */
		if (!lid_engine(&a, lids[i]))
			goto out;
		r->engine_lids++;
	}
	r->budget_spent = a.spent;
	if (!a.spent)
		revert_blocks(&a);
	if (cdg_acyclic(f, kept, NULL)) {
		tally(&a, &m, r);
		rc = 0;
	}
out:
	r->searched = (budget ? budget : 1) - a.budget;
	if (rc < 0)
		memcpy(kept->port, m.port, bytes);
	free(lids);
	free(m.port);
	ac_fini(&a);
	return rc;
}
