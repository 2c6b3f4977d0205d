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

/* Do the previous tables, after the link e, go on by port q? */
static inline bool
old_turn(const struct rp *c, uint32_t e, uint8_t q)
{
	return (c->turn[(size_t)e * 32 + q / 8] >> (q % 8)) & 1;
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
			return;
		}
	kernel_spread(lft_row(out, sw), cnt + (size_t)sw * 256, cand, k, &lid,
	    1);
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
 * when it can, even if longer: the engine placed its own such turns
 * (ftree's hub) where they close no cycle, and a turn anywhere else may.
 * Returns how many switches took a turn the previous tables lack.
 */
static uint32_t
settle(struct rp *c, struct lft_set *out, uint32_t *cnt, uint16_t lid,
    bool turns, const uint32_t *list, uint32_t nx)
{
	uint32_t t = c->lid_sw[lid], i, e, n, sw, v, vt, va, newt = 0;
	uint8_t q, cand[256];
	unsigned k;
	bool ok, any;

	for (;;) {
		vt = va = INF;
		for (i = 0; i < nx; i++) {
			if (c->ev[sw = list[i]] != INF)
				continue;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				if ((v = plus1(c->ev[n = c->g.sw[e]])) == INF)
					continue;
				q = n == t ? c->lid_port[lid] : lft_row(out, n)[lid];
				ok = !turns || n == t || old_turn(c, e, q);
				if (ok && v < vt)
					vt = v;
				if (v < va)
					va = v;
			}
		}
		if (va == INF)
			return newt;
		any = vt != INF;
		v = any ? vt : va;
		for (i = 0; i < nx; i++) {
			if (c->ev[sw = list[i]] != INF)
				continue;
			k = 0;
			for (e = c->g.off[sw]; e < c->g.off[sw + 1]; e++) {
				if (plus1(c->ev[n = c->g.sw[e]]) != v)
					continue;
				q = n == t ? c->lid_port[lid] : lft_row(out, n)[lid];
				if (!any || !turns || n == t || old_turn(c, e, q))
					cand[k++] = c->g.port[e];
			}
			if (k == 0)
				continue;
			choose(c, out, cnt, sw, lid, cand, k);
			c->len[sw] = v;    /* ev set after the round */
			newt += !any;
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
			c->turn[(size_t)e * 32 + q / 8] |= (uint8_t)(1u << (q % 8));
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
		return;
	}
	for (i = 0; i < nx; i++) {
		if (c->ev[xs[i]] == INF)
			r->unroutable++;
		else if (d == REPAIR_UPDOWN)
			r->not_updown++;
	}
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
	struct rp c;
	const uint8_t **prow;
	uint16_t *pmax, lid, max;
	uint8_t *need, *row, old;
	uint32_t *cnt, *xs, sw, last;
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
	for (lid = 1; lid <= max && lid != 0; lid++)
		if (need[lid])
			repair_lid(&c, out, cnt, xs, lid, d, fallback, r);
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
