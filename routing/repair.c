/*
 * Repairing the tables in use after losses (see routing/repair.h).
 *
 * Per destination LID, a walk from every switch along the previous entries
 * (memoised, so each switch is followed once) finds the entries whose
 * route still arrives: they are kept, with their length and whether the
 * route goes only down (D), up then down (U) or neither (X). The others
 * are broken; a route through a broken entry is broken too, so the broken
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
 * Credit loops (repair_run_acyclic, REPAIR_UPDOWN with a budget). The
 * channel dependencies of the kept entries are recorded (dep[]: after link
 * e, the port taken on), and every repaired hop adds its own. Where
 * up*down* is left (ftree's tables turn at the hub, and a switch cut from
 * the hub, e.g. a core that lost its cable into the hub's pod, must turn
 * somewhere new) a hop that would close a cycle is avoided when another
 * is there, hops whose dependency
 * already exists are preferred (new turns gather at few places instead of
 * spreading into each other), and LIDs are repaired most broken first, so
 * that the routes with the fewest ways left (a cut-off switch's own LID)
 * take theirs before the others fill the graph. untangle() is the last
 * resort when a fallback is given. Each dependency link the searches visit
 * (and each table entry a pass of untangle() lists) is charged to the
 * budget; when it is spent the rest is repaired without them, as
 * repair_run_ordered does (a LID that must turn anew then takes the
 * fallback's routes). Without a budget (repair_run_ordered) no dependency
 * is recorded, LIDs go in ascending order, and a LID whose repair turns
 * where the previous tables never turn takes the fallback's routes.
 */
#include "routing/repair.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"

#define NONE    UINT32_MAX
#define INF     UINT32_MAX

enum { ST_UNKNOWN, ST_STACK, ST_OK, ST_BAD };
enum { M_D, M_U, M_X };

struct rp {
	const struct fabric *f;
	struct kernel_graph g;
	uint32_t nsw;
	uint32_t *nbr;          /* [nsw * 256] switch behind (switch, port) */
	uint32_t *eid;          /* [nsw * 256] its link in g */
	uint8_t *turn;          /* [links][32] ports the previous tables go on
				 * by after crossing the link (bits) */
	uint32_t *broken;       /* [nsw] per LID: the broken switches */
	const uint8_t **prow;   /* [nsw] previous rows (NULL: none) */
	uint16_t *pmax;         /* [nsw] their last LIDs */
	uint32_t *pos;          /* [nsw] place in the up/down order */
	uint32_t *order;        /* [nsw] switches by place */
	uint32_t *lid_sw;       /* [max_lid + 1] switch the LID hangs off */
	uint8_t *lid_port;      /* [max_lid + 1] port there that leads to it */
	uint8_t *taken;         /* [max_lid + 1] LIDs routed as fallback */
	uint8_t *dep;           /* [links][32] REPAIR_UPDOWN: the dependency
				 * graph so far: after link e, port q of the
				 * switch it leads to (bits); NULL: none */
	uint32_t *dmark, dnow;  /* [links] visit marks */
	uint32_t *cidx;         /* [nsw] repair_run_local: place on the way
				 * local_chain() tries, NONE: not on it */
	uint32_t *ord, *at;     /* [links] repair_run_local: a topological
				 * order of dep[] (ord[link] = place,
				 * at[place] = link), kept as dependencies
				 * are added; NULL: none */
	bool ord_ok;            /* ord is one (else searches are unpruned) */
	uint32_t *dstk;         /* [links] */
	uint64_t budget;        /* dependency links left to visit; at 0 the
				 * dependencies are no longer consulted (spent) */
	bool spent;
	/* per LID */
	uint8_t *st, *mode;
	uint32_t *len, *stack;
	uint32_t *dv, *uv, *ev;
	uint8_t *m;
};

static inline uint8_t
entry(const struct lft_set *s, uint32_t sw, uint16_t lid)
{
	return lid <= s->max_lid ? lft_row(s, sw)[lid] : LFT_NO_ROUTE;
}

struct keyed {
	uint32_t height;
	uint64_t guid;
	uint32_t sw;
};

static int
keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->height != y->height)
		return x->height < y->height ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* Heights above the switches with CAs (0 for those; all 0 when there are
 * none), ties by node GUID: the up/down order. */
static void
up_order(struct rp *c, const struct lft_set *s)
{
	uint32_t *src = xcalloc(c->nsw ? c->nsw : 1, sizeof(*src));
	uint32_t *dist = xcalloc(c->nsw ? c->nsw : 1, sizeof(*dist));
	uint32_t *queue = xcalloc(c->nsw ? c->nsw : 1, sizeof(*queue));
	struct keyed *k = xcalloc(c->nsw ? c->nsw : 1, sizeof(*k));
	uint32_t nsrc = 0, sw, i;

	for (sw = 0; sw < c->nsw; sw++)
		for (i = c->g.dst_off[sw]; i < c->g.dst_off[sw + 1]; i++)
			if (c->g.dst_port[i] != 0) {
				src[nsrc++] = sw;
				break;
			}
	if (nsrc > 0)
		kernel_bfs(&c->g, src, nsrc, dist, queue);
	for (sw = 0; sw < c->nsw; sw++) {
		k[sw].height = nsrc > 0 ? dist[sw] : 0;
		k[sw].guid = c->f->nodes[s->sw_node[sw]].guid;
		k[sw].sw = sw;
	}
	qsort(k, c->nsw, sizeof(*k), keyed_cmp);
	for (i = 0; i < c->nsw; i++) {
		c->order[i] = k[i].sw;
		c->pos[k[i].sw] = i;
	}
	free(k);
	free(queue);
	free(dist);
	free(src);
}

/* The order the caller gives (repair_run_ordered). */
static void
given_order(struct rp *c, const uint32_t *up)
{
	struct keyed *k = xcalloc(c->nsw ? c->nsw : 1, sizeof(*k));
	uint32_t i;

	for (i = 0; i < c->nsw; i++) {
		k[i].height = up[i];
		k[i].sw = i;
	}
	qsort(k, c->nsw, sizeof(*k), keyed_cmp);
	for (i = 0; i < c->nsw; i++) {
		c->order[i] = k[i].sw;
		c->pos[k[i].sw] = i;
	}
	free(k);
}

static void
rp_init(struct rp *c, const struct fabric *f, const struct lft_set *s,
    const uint32_t *up)
{
	uint32_t sw, e, i, n;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->nsw = s->nsw;
	kernel_graph_build(f, s, &c->g);
	n = c->nsw ? c->nsw : 1;
	c->nbr = xcalloc((size_t)n * 256, sizeof(*c->nbr));
	c->eid = xcalloc((size_t)n * 256, sizeof(*c->eid));
	memset(c->nbr, 0xff, (size_t)n * 256 * sizeof(*c->nbr));
	memset(c->eid, 0xff, (size_t)n * 256 * sizeof(*c->eid));
	for (sw = 0; sw < c->nsw; sw++)
		for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
			c->nbr[(size_t)sw * 256 + c->g.port[e]] = c->g.sw[e];
			c->eid[(size_t)sw * 256 + c->g.port[e]] = e;
		}
	c->turn = xcalloc((size_t)c->g.off[c->nsw] + 1, 32);
	c->broken = xcalloc(n, sizeof(*c->broken));
	c->lid_sw = xcalloc((size_t)s->max_lid + 1, sizeof(*c->lid_sw));
	c->lid_port = xcalloc((size_t)s->max_lid + 1, sizeof(*c->lid_port));
	for (i = 0; i <= s->max_lid; i++)
		c->lid_sw[i] = NONE;
	for (sw = 0; sw < c->nsw; sw++)
		for (i = c->g.dst_off[sw]; i < c->g.dst_off[sw + 1]; i++) {
			c->lid_sw[c->g.dst_lid[i]] = sw;
			c->lid_port[c->g.dst_lid[i]] = c->g.dst_port[i];
		}
	c->pos = xcalloc(n, sizeof(*c->pos));
	c->order = xcalloc(n, sizeof(*c->order));
	if (up != NULL)
		given_order(c, up);
	else
		up_order(c, s);
	c->st = xcalloc(n, 1);
	c->mode = xcalloc(n, 1);
	c->m = xcalloc(n, 1);
	c->len = xcalloc(n, sizeof(*c->len));
	c->stack = xcalloc(n + 1, sizeof(*c->stack));
	c->dv = xcalloc(n, sizeof(*c->dv));
	c->uv = xcalloc(n, sizeof(*c->uv));
	c->ev = xcalloc(n, sizeof(*c->ev));
}

static void
rp_fini(struct rp *c)
{
	kernel_graph_free(&c->g);
	free(c->nbr);
	free(c->eid);
	free(c->turn);
	free(c->broken);
	free(c->lid_sw);
	free(c->lid_port);
	free(c->pos);
	free(c->order);
	free(c->st);
	free(c->mode);
	free(c->m);
	free(c->len);
	free(c->stack);
	free(c->dv);
	free(c->uv);
	free(c->ev);
}

/* The mode of a route that hops from x to n and goes on as n's does. */
static inline uint8_t
hop_mode(const struct rp *c, uint32_t x, uint32_t n, uint8_t next)
{
	if (c->pos[n] < c->pos[x])     /* down */
		return next == M_D ? M_D : M_X;
	return next == M_X ? M_X : M_U;
}

/*
 * Walk every switch towards lid along s: st[] OK where the route arrives
 * (len[] hops between switches, mode[]), BAD elsewhere. Returns how many
 * arrive.
 */
static uint32_t
walk_all(struct rp *c, const struct lft_set *s, uint16_t lid)
{
	uint32_t t = c->lid_sw[lid], sw, cur, top, x, n, ok = 0;
	uint8_t dp = c->lid_port[lid], e, res;
	int i;

	memset(c->st, ST_UNKNOWN, c->nsw);
	for (sw = 0; sw < c->nsw; sw++) {
		if (c->st[sw] != ST_UNKNOWN)
			continue;
		cur = sw;
		top = 0;
		for (;;) {
			if (c->st[cur] == ST_OK || c->st[cur] == ST_BAD) {
				res = c->st[cur];
				break;
			}
			if (c->st[cur] == ST_STACK) {   /* a loop */
				res = ST_BAD;
				break;
			}
			c->st[cur] = ST_STACK;
			c->stack[top++] = cur;
			e = entry(s, cur, lid);
			if (cur == t) {
				res = e == dp ? ST_OK : ST_BAD;
				break;
			}
			if ((n = c->nbr[(size_t)cur * 256 + e]) == NONE) {
				res = ST_BAD;
				break;
			}
			cur = n;
		}
		for (i = (int)top - 1; i >= 0; i--) {
			x = c->stack[i];
			if (res == ST_BAD) {
				c->st[x] = ST_BAD;
				continue;
			}
			c->st[x] = ST_OK;
			ok++;
			if (x == t) {
				c->len[x] = 0;
				c->mode[x] = M_D;
				continue;
			}
			n = c->nbr[(size_t)x * 256 + entry(s, x, lid)];
			c->len[x] = c->len[n] + 1;
			c->mode[x] = hop_mode(c, x, n, c->mode[n]);
		}
	}
	return ok;
}

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

/* turn[] and dep[]: per link, 256 bits, one per port of the switch the
 * link leads to: after link e, port q is taken on. */
static inline bool
link_bit(const uint8_t *bits, uint32_t e, uint8_t q)
{
	return (bits[(size_t)e * 32 + q / 8] >> (q % 8)) & 1;
}

static inline void
link_bit_set(uint8_t *bits, uint32_t e, uint8_t q)
{
	bits[(size_t)e * 32 + q / 8] |= (uint8_t)(1u << (q % 8));
}

/* Do the previous tables, after the link e, go on by port q? */
static inline bool
old_turn(const struct rp *c, uint32_t e, uint8_t q)
{
	return link_bit(c->turn, e, q);
}

/* The link lid's route takes out of switch n in out, NONE: it ends there. */
static inline uint32_t
out_link(const struct rp *c, const struct lft_set *out, uint32_t n,
    uint16_t lid)
{
	if (n == c->lid_sw[lid])
		return NONE;
	return c->eid[(size_t)n * 256 + lft_row(out, n)[lid]];
}

/* Repaired hops are kept from closing cycles: dependencies recorded, and
 * the budget for searching them not spent. */
static inline bool
deps_on(const struct rp *c)
{
	return c->dep != NULL && !c->spent;
}

static inline bool
dep_has(const struct rp *c, uint32_t e1, uint8_t q)
{
	return link_bit(c->dep, e1, q);
}

static bool dep_try(struct rp *c, uint32_t e1, uint8_t q);

/* Record that lid's route goes from switch sw by port p on as out says. */
static void
dep_add(struct rp *c, const struct lft_set *out, uint32_t sw, uint8_t p,
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
	if (!dep_try(c, e1, p)) {
		/* a cycle the caller was left with: no order any more */
		link_bit_set(c->dep, e1, p);
		c->ord_ok = false;
	}
}

/* Every dependency lid's route makes in out. */
static void
dep_add_lid(struct rp *c, const struct lft_set *out, uint16_t lid)
{
	for (uint32_t sw = 0; sw < c->nsw; sw++)
		if (sw != c->lid_sw[lid])
			dep_add(c, out, sw, lft_row(out, sw)[lid], lid);
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
 * (ord_build, Kahn's), then kept as dependencies are added (dep_try): an
 * edge x -> y with x placed after y is a cycle when y reaches x among the
 * links placed up to x (the search dep_reach prunes to), and else the
 * links of that window that y reaches move, in their order, behind the
 * others (Marchetti-Spaccamela et al.), which keeps every edge climbing.
 * Removing an edge keeps an order one. Every step is charged to the
 * budget. When an edge has to be added that closes a cycle (dep_add() of
 * a repair that had no other way), ord_ok is cleared and searches go
 * unpruned.
 */
static void
ord_build(struct rp *c)
{
	uint32_t ne = c->g.off[c->nsw], e, e2, n, head = 0, tail = 0;
	uint32_t *indeg = xcalloc(ne ? ne : 1, sizeof(*indeg));
	unsigned q;

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
static bool
dep_try(struct rp *c, uint32_t e1, uint8_t q)
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
static bool
dep_safe(struct rp *c, const struct lft_set *out, uint32_t sw, uint8_t p,
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
static unsigned
safe_only(struct rp *c, const struct lft_set *out, uint32_t sw,
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
		if (dep_safe(c, out, sw, cand[i], lid))
			cand[n++] = cand[i];
	return n > 0 ? n : k;
}

/*
 * Give lid at switch sw one of the k candidate ports: the previous one
 * when it is among them (its route broke further on, and now goes on
 * from the same next switch), else the least loaded.
 */
static void
choose(const struct rp *c, struct lft_set *out, uint32_t *cnt, uint32_t sw,
    uint16_t lid, uint8_t *cand, unsigned k)
{
	uint8_t old = c->prow[sw] != NULL && lid <= c->pmax[sw] ?
	    c->prow[sw][lid] : LFT_NO_ROUTE;

	for (unsigned i = 0; i < k; i++)
		if (cand[i] == old) {
			lft_row(out, sw)[lid] = old;
			cnt[(size_t)sw * 256 + old]++;
			dep_add((struct rp *)c, out, sw, old, lid);
			return;
		}
	kernel_spread(lft_row(out, sw), cnt + (size_t)sw * 256, cand, k, &lid,
	    1);
	dep_add((struct rp *)c, out, sw, lft_row(out, sw)[lid], lid);
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
settle(struct rp *c, struct lft_set *out, uint32_t *cnt, uint16_t lid,
    bool turns, const uint32_t *list, uint32_t nx)
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
				    !dep_safe(c, out, sw, c->g.port[e], lid))
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
				if (tier < 2 && !dep_safe(c, out, sw, c->g.port[e],
				    lid))
					continue;
				if (tier == 0 && n != t && !old_turn(c, e, q))
					continue;
				cand[k++] = c->g.port[e];
			}
			if (k == 0)
				continue;
			if (tier < 2)
				k = safe_only(c, out, sw, lid, cand, k);
			choose(c, out, cnt, sw, lid, cand, k);
			c->len[sw] = v;    /* ev set after the round */
			newt += turns && tier == 2;
		}
		for (i = 0; i < nx; i++)
			if (c->ev[sw = list[i]] == INF &&
			    lft_row(out, sw)[lid] != LFT_NO_ROUTE)
				c->ev[sw] = c->len[sw];
	}
}

/* The turns of the previous tables, over the links still there. */
static void
old_turns(struct rp *c, const uint8_t *const *prow, const uint16_t *pmax,
    uint16_t max)
{
	uint32_t sw, n, e;
	uint16_t lid, top;
	uint8_t p, q;

	for (sw = 0; sw < c->nsw; sw++) {
		if (prow[sw] == NULL)
			continue;
		top = pmax[sw] < max ? pmax[sw] : max;
		for (lid = 1; lid <= top && lid != 0; lid++) {
			p = prow[sw][lid];
			if ((e = c->eid[(size_t)sw * 256 + p]) == NONE)
				continue;
			n = c->g.sw[e];
			if (prow[n] == NULL || lid > pmax[n])
				continue;
			q = prow[n][lid];
			link_bit_set(c->turn, e, q);
		}
	}
}

/* New entries for the broken switches of lid (out holds the kept ones). */
static void
repair_lid(struct rp *c, struct lft_set *out, uint32_t *cnt, uint32_t *xs,
    uint16_t lid, enum repair_discipline d, const struct lft_set *fallback,
    struct repair_result *r)
{
	uint32_t t = c->lid_sw[lid], sw, nb = 0, nx = 0, vmax = 0, v, i, newt;
	uint8_t cand[256];
	unsigned k;

	walk_all(c, out, lid);
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
			k = safe_only(c, out, sw, lid, cand, k);
			choose(c, out, cnt, sw, lid, cand, k);
		}
	newt = settle(c, out, cnt, lid, d == REPAIR_UPDOWN, xs, nx);
	r->new_turns += newt;
	if (newt > 0 && fallback != NULL && lid <= fallback->max_lid) {
		/* turns the tables in use never made may close a cycle: this
		 * LID is routed as the engine routes it */
		for (sw = 0; sw < c->nsw; sw++)
			lft_row(out, sw)[lid] = lft_row(fallback, sw)[lid];
		r->engine_lids++;
		c->taken[lid] = 1;
		if (c->dep != NULL)
			dep_add_lid(c, out, lid);
		return;
	}
	for (i = 0; i < nx; i++) {
		if (c->ev[xs[i]] == INF)
			r->unroutable++;
		else if (d == REPAIR_UPDOWN)
			r->not_updown++;
	}
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
	col = xcalloc(ne ? ne : 1, 1);
	stk = xcalloc(ne ? ne : 1, sizeof(*stk));
	it = xcalloc(ne ? ne : 1, sizeof(*it));
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

static int
run(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, const uint32_t *up, uint64_t budget,
    struct lft_set *out, struct repair_result *r)
{
	struct rp c;
	const uint8_t **prow;
	uint16_t *pmax, lid, max;
	uint8_t *need, *row, old;
	uint32_t *cnt, *xs, sw, last, *nbroken, nneed, i;
	struct keyed *byb;
	bool any;

	memset(r, 0, sizeof(*r));
	if (prev == NULL || prev_fabric == NULL)
		return -1;
	if (lft_set_init(out, f) < 0)
		fatal("repair: out of memory");
	rp_init(&c, f, out, up);
	max = out->max_lid;
	c.prow = prow = xcalloc(c.nsw ? c.nsw : 1, sizeof(*prow));
	c.pmax = pmax = xcalloc(c.nsw ? c.nsw : 1, sizeof(*pmax));
	for (sw = 0; sw < c.nsw; sw++) {
		prow[sw] = kernel_prev_row(prev_fabric, prev,
		    f->nodes[out->sw_node[sw]].guid, &pmax[sw]);
		if (prow[sw] == NULL)
			continue;
		last = pmax[sw] < max ? pmax[sw] : max;
		memcpy(lft_row(out, sw), prow[sw], last + 1u);
	}
	old_turns(&c, prow, pmax, max);
	/* what still arrives; the rest cleared */
	need = xcalloc((size_t)max + 1, 1);
	nbroken = xcalloc((size_t)max + 1, sizeof(*nbroken));
	byb = xcalloc((size_t)max + 1, sizeof(*byb));
	for (lid = 1; lid <= max && lid != 0; lid++) {
		if (c.lid_sw[lid] == NONE) {
			for (sw = 0; sw < c.nsw; sw++)
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
			continue;
		}
		r->kept += walk_all(&c, out, lid);
		for (sw = 0; sw < c.nsw; sw++)
			if (c.st[sw] != ST_OK) {
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
				need[lid] = 1;
				nbroken[lid]++;
			}
	}
	/* each switch's load by port, over the entries kept */
	cnt = xcalloc((size_t)(c.nsw ? c.nsw : 1) * 256, sizeof(*cnt));
	xs = xcalloc(c.nsw ? c.nsw : 1, sizeof(*xs));
	for (sw = 0; sw < c.nsw; sw++) {
		row = lft_row(out, sw);
		for (lid = 1; lid <= max && lid != 0; lid++)
			if (row[lid] != LFT_NO_ROUTE && row[lid] != 0)
				cnt[(size_t)sw * 256 + row[lid]]++;
	}
	if (d == REPAIR_UPDOWN && budget > 0) {
		c.budget = budget;
		c.dep = xcalloc((size_t)c.g.off[c.nsw] + 1, 32);
		c.dmark = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.dmark));
		c.dstk = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.dstk));
		for (lid = 1; lid <= max && lid != 0; lid++)
			if (c.lid_sw[lid] != NONE)
				dep_add_lid(&c, out, lid);
	}
	c.taken = xcalloc((size_t)max + 1, 1);
	/* keeping hops from closing cycles, the LIDs with the most broken
	 * entries first: their routes have the fewest ways left, the others
	 * fit around them; else in LID order */
	for (lid = 1, nneed = 0; lid <= max && lid != 0; lid++)
		if (need[lid]) {
			byb[nneed].height = c.dep == NULL ? lid :
			    UINT32_MAX - nbroken[lid];
			byb[nneed].guid = 0;
			byb[nneed++].sw = lid;
		}
	qsort(byb, nneed, sizeof(*byb), keyed_cmp);
	for (i = 0; i < nneed; i++)
		repair_lid(&c, out, cnt, xs, (uint16_t)byb[i].sw, d, fallback, r);
	free(byb);
	free(nbroken);
	if (fallback != NULL && c.dep != NULL) {
		for (lid = 1; lid <= max && lid != 0; lid++)
			for (sw = 0, need[lid] = 0; sw < c.nsw; sw++)
				if (lft_row(out, sw)[lid] != (prow[sw] != NULL &&
				    lid <= pmax[sw] ? prow[sw][lid] :
				    LFT_NO_ROUTE)) {
					need[lid] = 1;
					break;
				}
		untangle(&c, out, fallback, need, c.taken, r);
	}
	r->budget_spent = c.spent;
	r->searched = budget > 0 ? budget - c.budget : 0;
	free(c.taken);
	free(c.dep);
	free(c.dmark);
	free(c.dstk);
	c.dep = NULL;
	for (lid = 1; lid <= max && lid != 0; lid++) {
		any = false;
		for (sw = 0; sw < c.nsw; sw++) {
			old = prow[sw] != NULL && lid <= pmax[sw] ?
			    prow[sw][lid] : LFT_NO_ROUTE;
			if (lft_row(out, sw)[lid] != old) {
				r->changed++;
				any = true;
			}
		}
		r->lids += any;
	}
	free(cnt);
	free(xs);
	free(need);
	free(prow);
	free(pmax);
	rp_fini(&c);
	return 0;
}

int
repair_run(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, struct lft_set *out, struct repair_result *r)
{
	return repair_run_ordered(f, prev_fabric, prev, fallback, d, NULL, out,
	    r);
}

int
repair_run_ordered(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, const uint32_t *up, struct lft_set *out,
    struct repair_result *r)
{
	return run(f, prev_fabric, prev, fallback, d, up, 0, out, r);
}

int
repair_run_acyclic(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    const uint32_t *up, uint64_t budget, struct lft_set *out,
    struct repair_result *r)
{
	return run(f, prev_fabric, prev, fallback, REPAIR_UPDOWN, up,
	    budget ? budget : 1, out, r);
}

/*
 * Local repair (repair_run_local). Per LID, the roots are the switches whose
 * own hop no longer goes on: their port leads to no switch now (a lost
 * link or switch) or, at the LID's own switch, not to it. Every other
 * switch whose route does not arrive goes on into a root, and arrives
 * again once the roots do, so only the roots' entries change. A root
 * takes a neighbour whose route arrives (it cannot lead back through the
 * root: every route through a root is broken): the shortest whose
 * dependencies all exist already, else a shorter one whose new
 * dependencies go in without closing a cycle (the hop out of the root,
 * then on as the neighbour goes, and every link that brings the LID into
 * the root onto the new port). dep_try() keeps a topological order of the
 * dependency graph as they go in, so each search walks only the links
 * placed between the two ends. Roots with no such neighbour wait for the
 * next round (another root may arrive by then). When a round changes
 * nothing, local_chain() looks for a way through switches that do not
 * arrive. LIDs with the most switches not arriving go first: theirs have
 * the fewest ways left. A LID neither routes is put back as it was and
 * repaired up*down* with the same dependency checks (repair_lid(), as
 * repair_run_acyclic does); where that took fallback's routes, the cycles
 * left are untangled at the end. Once the budget is spent, the LIDs left
 * are repaired up*down* without checks, and the caller's credit loop
 * check decides.
 */

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
local_apply(struct rp *c, struct lft_set *out, uint32_t *cnt, uint32_t *ins,
    uint16_t lid, const uint32_t *xs, const uint8_t *ps, uint8_t *was,
    uint32_t k, uint32_t *searched)
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
		if (!dep_try(c, ins[2 * j], (uint8_t)ins[2 * j + 1]))
			break;
	}
	if (j == nnew) {
		for (i = 0; i < k; i++)
			cnt[(size_t)xs[i] * 256 + ps[i]]++;
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
local_chain(struct rp *c, struct lft_set *out, uint32_t *cnt, uint32_t *ins,
    uint16_t lid)
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
	seen = xcalloc(c->nsw ? c->nsw : 1, 1);
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
				if (local_apply(c, out, cnt, ins, lid, xs, ps,
				    was, k, &tries)) {
					free(seen);
					return k;
				}
				/* the same way, with the routes that came in
				 * pulled onto it further on */
				if ((k2 = local_pull(c, out, lid, xs, ps, k,
				    y)) > k && local_apply(c, out, cnt, ins, lid,
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
sort_hops(const struct rp *c, const uint32_t *cnt, uint32_t sw, uint32_t *h,
    unsigned n)
{
	unsigned i, j;
	uint32_t x;

	for (i = 1; i < n; i++) {
		x = h[i];
		for (j = i; j > 0; j--) {
			uint32_t a = c->len[c->g.sw[h[j - 1]]],
			    b = c->len[c->g.sw[x]];

			if (a < b || (a == b && cnt[(size_t)sw * 256 +
			    c->g.port[h[j - 1]]] <= cnt[(size_t)sw * 256 +
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
		if (!dep_try(c, add[i], qs[i]))
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

/* One round over lid's roots (st[], len[] from walk_all): returns how many
 * took a hop. */
static uint32_t
local_round(struct rp *c, struct lft_set *out, uint32_t *cnt, uint32_t *ins,
    uint16_t lid)
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
		sort_hops(c, cnt, sw, try, kn);
		for (i = 0; i < kn; i++)
			if (local_hop(c, out, sw, try[i], lid, ins, nin))
				break;
		if (i < kn) {
			p = c->g.port[try[i]];
			lft_row(out, sw)[lid] = p;
			cnt[(size_t)sw * 256 + p]++;
			fixed++;
			continue;
		}
		if (k == 0)
			continue;
		kernel_spread(lft_row(out, sw), cnt + (size_t)sw * 256, cand, k,
		    &lid, 1);
		fixed++;
	}
	return fixed;
}

int
repair_run_local(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    uint64_t budget, struct lft_set *out, struct repair_result *r)
{
	struct rp c;
	const uint8_t **prow;
	uint16_t *pmax, lid, max;
	uint8_t *row, *col, old;
	uint32_t *cnt, *ins, *pairs, *xs, sw, last, nneed, ib, ok;
	struct keyed *byb;
	bool any;

	memset(r, 0, sizeof(*r));
	if (prev == NULL || prev_fabric == NULL)
		return -1;
	if (lft_set_init(out, f) < 0)
		fatal("repair: out of memory");
	rp_init(&c, f, out, NULL);
	max = out->max_lid;
	c.prow = prow = xcalloc(c.nsw ? c.nsw : 1, sizeof(*prow));
	c.pmax = pmax = xcalloc(c.nsw ? c.nsw : 1, sizeof(*pmax));
	for (sw = 0; sw < c.nsw; sw++) {
		prow[sw] = kernel_prev_row(prev_fabric, prev,
		    f->nodes[out->sw_node[sw]].guid, &pmax[sw]);
		if (prow[sw] == NULL)
			continue;
		last = pmax[sw] < max ? pmax[sw] : max;
		memcpy(lft_row(out, sw), prow[sw], last + 1u);
	}
	old_turns(&c, prow, pmax, max);
	for (lid = 1; lid <= max && lid != 0; lid++)
		if (c.lid_sw[lid] == NONE)
			for (sw = 0; sw < c.nsw; sw++)
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
	cnt = xcalloc((size_t)(c.nsw ? c.nsw : 1) * 256, sizeof(*cnt));
	ins = xcalloc(c.nsw ? c.nsw : 1, sizeof(*ins));
	pairs = xcalloc(2 * ((size_t)c.g.off[c.nsw] + c.nsw) + 2,
	    sizeof(*pairs));
	xs = xcalloc(c.nsw ? c.nsw : 1, sizeof(*xs));
	col = xcalloc(c.nsw ? c.nsw : 1, 1);
	for (sw = 0; sw < c.nsw; sw++) {
		row = lft_row(out, sw);
		for (lid = 1; lid <= max && lid != 0; lid++)
			if (row[lid] != LFT_NO_ROUTE && row[lid] != 0)
				cnt[(size_t)sw * 256 + row[lid]]++;
	}
	c.budget = budget ? budget : 1;
	c.dep = xcalloc((size_t)c.g.off[c.nsw] + 1, 32);
	c.dmark = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.dmark));
	c.dstk = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.dstk));
	for (lid = 1; lid <= max && lid != 0; lid++)
		if (c.lid_sw[lid] != NONE)
			dep_add_lid(&c, out, lid);
	c.ord = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.ord));
	c.at = xcalloc((size_t)c.g.off[c.nsw] + 1, sizeof(*c.at));
	ord_build(&c);
	c.taken = xcalloc((size_t)max + 1, 1);
	c.cidx = xcalloc(c.nsw ? c.nsw : 1, sizeof(*c.cidx));
	memset(c.cidx, 0xff, (size_t)(c.nsw ? c.nsw : 1) * sizeof(*c.cidx));
	/* the LIDs with the most switches not arriving first (as
	 * repair_run_acyclic: those with the fewest ways left take theirs
	 * before the others' detours fill the dependency graph) */
	byb = xcalloc((size_t)max + 1, sizeof(*byb));
	for (lid = 1, nneed = 0; lid <= max && lid != 0; lid++) {
		if (c.lid_sw[lid] == NONE ||
		    (ok = walk_all(&c, out, lid)) == c.nsw)
			continue;
		byb[nneed].height = ok;
		byb[nneed].guid = 0;
		byb[nneed++].sw = lid;
	}
	qsort(byb, nneed, sizeof(*byb), keyed_cmp);
	for (ib = 0; ib < nneed; ib++) {
		lid = (uint16_t)byb[ib].sw;
		walk_all(&c, out, lid);
		for (sw = 0; sw < c.nsw; sw++)
			col[sw] = lft_row(out, sw)[lid];
		while (local_round(&c, out, cnt, ins, lid) > 0 ||
		    local_chain(&c, out, cnt, pairs, lid) > 0)
			if (walk_all(&c, out, lid) == c.nsw)
				break;
		if (walk_all(&c, out, lid) == c.nsw)
			continue;
		/* stuck: this LID is repaired up*down* instead (the
		 * dependencies its partial repair recorded stay, which
		 * only makes later choices more careful) */
		for (sw = 0; sw < c.nsw; sw++)
			lft_row(out, sw)[lid] = col[sw];
		walk_all(&c, out, lid);
		for (sw = 0; sw < c.nsw; sw++)
			if (c.st[sw] != ST_OK)
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
		repair_lid(&c, out, cnt, xs, lid, REPAIR_UPDOWN, fallback, r);
		r->updown_lids++;
	}
	if (fallback != NULL && r->engine_lids > 0) {
		/* the fallback's LIDs among repaired ones may close a cycle:
		 * untangled as repair_run_acyclic does */
		uint8_t *need = xcalloc((size_t)max + 1, 1);

		for (lid = 1; lid <= max && lid != 0; lid++)
			for (sw = 0; sw < c.nsw; sw++)
				if (lft_row(out, sw)[lid] != (prow[sw] != NULL &&
				    lid <= pmax[sw] ? prow[sw][lid] :
				    LFT_NO_ROUTE)) {
					need[lid] = 1;
					break;
				}
		untangle(&c, out, fallback, need, c.taken, r);
		free(need);
	}
	r->budget_spent = c.spent;
	r->searched = (budget ? budget : 1) - c.budget;
	free(c.taken);
	free(c.dep);
	free(c.dmark);
	free(c.dstk);
	c.dep = NULL;
	for (lid = 1; lid <= max && lid != 0; lid++) {
		any = false;
		for (sw = 0; sw < c.nsw; sw++) {
			old = prow[sw] != NULL && lid <= pmax[sw] ?
			    prow[sw][lid] : LFT_NO_ROUTE;
			if (lft_row(out, sw)[lid] != old) {
				r->changed++;
				any = true;
			}
		}
		r->lids += any;
	}
	free(byb);
	free(col);
	free(cnt);
	free(ins);
	free(pairs);
	free(c.cidx);
	free(c.ord);
	free(c.at);
	free(xs);
	free(prow);
	free(pmax);
	rp_fini(&c);
	return 0;
}

uint64_t
repair_lost_pairs(const struct fabric *f, const struct lft_set *s,
    const struct lft_set *ref)
{
	struct rp c;
	uint8_t *ok;
	uint64_t lost = 0;
	uint32_t sw;
	uint16_t lid;

	rp_init(&c, f, s, NULL);
	ok = xcalloc(c.nsw ? c.nsw : 1, 1);
	for (lid = 1; lid <= s->max_lid && lid != 0; lid++) {
		if (c.lid_sw[lid] == NONE)
			continue;
		walk_all(&c, ref, lid);
		for (sw = 0; sw < c.nsw; sw++)
			ok[sw] = c.st[sw] == ST_OK;
		walk_all(&c, s, lid);
		for (sw = 0; sw < c.nsw; sw++)
			lost += ok[sw] && c.st[sw] != ST_OK;
	}
	free(ok);
	rp_fini(&c);
	return lost;
}
