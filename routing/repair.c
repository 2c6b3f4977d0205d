/*
 * Repairing the tables in use after losses (see routing/repair.h): the
 * entry points and what the repairs share (routing/repair_priv.h).
 *
 * Per destination LID, a walk from every switch along the previous entries
 * (memoised, so each switch is followed once) finds the entries whose
 * route still arrives: they are kept, with their length and whether the
 * route goes only down (D), up then down (U) or neither (X), in the
 * up/down order (heights above the switches with CAs, or the engine's).
 * The others are broken, and get new entries from one of the repairs:
 *
 *     repair_updn.c   repair_run, repair_run_ordered and, with the
 *                     dependency checks of repair_cycle.c,
 *                     repair_run_acyclic: every broken switch gets the
 *                     shortest route its discipline allows
 *     repair_local.c  repair_run_local: only the switches whose own hop no
 *                     longer goes on change
 *
 * Both start from the same set-up (rp_open: the previous tables laid onto
 * the model, their turns, the order, the scratch) and end in the same
 * tear-down (rp_close: the figures of the result, everything freed).
 */
#include "routing/repair.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"
#include "routing/repair_priv.h"

/* By height, then GUID, then index: the up/down order, and the order
 * LIDs are repaired in (height: their key, sw: the LID). */
int
rp_keyed_cmp(const void *a, const void *b)
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
	uint32_t *src = xcalloc(c->nsw, sizeof(*src));
	uint32_t *dist = xcalloc(c->nsw, sizeof(*dist));
	uint32_t *queue = xcalloc(c->nsw, sizeof(*queue));
	struct keyed *k = xcalloc(c->nsw, sizeof(*k));
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
	qsort(k, c->nsw, sizeof(*k), rp_keyed_cmp);
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
	struct keyed *k = xcalloc(c->nsw, sizeof(*k));
	uint32_t i;

	for (i = 0; i < c->nsw; i++) {
		k[i].height = up[i];
		k[i].sw = i;
	}
	qsort(k, c->nsw, sizeof(*k), rp_keyed_cmp);
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
	free(c->prow);
	free(c->pmax);
	free(c->cnt);
	free(c->xs);
	free(c->taken);
	free(c->dep);
	free(c->dmark);
	free(c->dstk);
	free(c->ord);
	free(c->at);
	free(c->cidx);
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
uint32_t
rp_walk(struct rp *c, const struct lft_set *s, uint16_t lid)
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

/* Each switch's load by port, over the entries out holds. */
void
rp_load(struct rp *c, const struct lft_set *out)
{
	const uint8_t *row;
	uint32_t sw;
	uint16_t lid;

	memset(c->cnt, 0, (size_t)(c->nsw ? c->nsw : 1) * 256 *
	    sizeof(*c->cnt));
	for (sw = 0; sw < c->nsw; sw++) {
		row = lft_row(out, sw);
		for (lid = 1; lid <= out->max_lid && lid != 0; lid++)
			if (row[lid] != LFT_NO_ROUTE && row[lid] != 0)
				c->cnt[(size_t)sw * 256 + row[lid]]++;
	}
}

/*
 * The set-up both repairs share: out sized for f and holding prev's rows
 * (made for prev_fabric, switches matched by node GUID), the entries of
 * the LIDs no switch leads to now cleared; the turns of prev; the up/down
 * order (up, NULL: the heights); the scratch. -1 when there are no
 * previous tables (r zeroed, nothing to free).
 */
static int
rp_open(struct rp *c, const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const uint32_t *up, struct lft_set *out,
    struct repair_result *r)
{
	uint32_t sw, last, n;
	uint16_t lid, max;

	memset(r, 0, sizeof(*r));
	if (prev == NULL || prev_fabric == NULL)
		return -1;
	if (lft_set_init(out, f) < 0)
		fatal("repair: out of memory");
	rp_init(c, f, out, up);
	max = out->max_lid;
	n = c->nsw ? c->nsw : 1;
	c->prow = xcalloc(n, sizeof(*c->prow));
	c->pmax = xcalloc(n, sizeof(*c->pmax));
	for (sw = 0; sw < c->nsw; sw++) {
		c->prow[sw] = kernel_prev_row(prev_fabric, prev,
		    f->nodes[out->sw_node[sw]].guid, &c->pmax[sw]);
		if (c->prow[sw] == NULL)
			continue;
		last = c->pmax[sw] < max ? c->pmax[sw] : max;
		memcpy(lft_row(out, sw), c->prow[sw], last + 1u);
	}
	old_turns(c, c->prow, c->pmax, max);
	for (lid = 1; lid <= max && lid != 0; lid++)
		if (c->lid_sw[lid] == NONE)
			for (sw = 0; sw < c->nsw; sw++)
				lft_row(out, sw)[lid] = LFT_NO_ROUTE;
	c->cnt = xcalloc((size_t)n * 256, sizeof(*c->cnt));
	c->xs = xcalloc(n, sizeof(*c->xs));
	c->taken = xcalloc((size_t)max + 1, 1);
	return 0;
}

/* The tear-down both repairs share: r's search and change figures. */
static void
rp_close(struct rp *c, const struct lft_set *out, struct repair_result *r)
{
	uint32_t sw;
	uint16_t lid;
	bool any;

	r->budget_spent = c->spent;
	r->searched = c->budget0 - c->budget;
	for (lid = 1; lid <= out->max_lid && lid != 0; lid++) {
		any = false;
		for (sw = 0; sw < c->nsw; sw++)
			if (lft_row(out, sw)[lid] != prev_entry(c, sw, lid)) {
				r->changed++;
				any = true;
			}
		r->lids += any;
	}
	rp_fini(c);
}

/* budget: repair_run_acyclic's (REPAIR_UPDOWN), 0: none. */
static int
run(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    enum repair_discipline d, const uint32_t *up, uint64_t budget,
    struct lft_set *out, struct repair_result *r)
{
	struct rp c;

	if (rp_open(&c, f, prev_fabric, prev, up, out, r) < 0)
		return -1;
	rp_updn(&c, out, d, fallback, budget, r);
	rp_close(&c, out, r);
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

int
repair_run_local(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct lft_set *fallback,
    uint64_t budget, struct lft_set *out, struct repair_result *r)
{
	struct rp c;

	if (rp_open(&c, f, prev_fabric, prev, NULL, out, r) < 0)
		return -1;
	rp_local(&c, out, fallback, budget ? budget : 1, r);
	rp_close(&c, out, r);
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
	ok = xcalloc(c.nsw, 1);
	for (lid = 1; lid <= s->max_lid && lid != 0; lid++) {
		if (c.lid_sw[lid] == NONE)
			continue;
		rp_walk(&c, ref, lid);
		for (sw = 0; sw < c.nsw; sw++)
			ok[sw] = c.st[sw] == ST_OK;
		rp_walk(&c, s, lid);
		for (sw = 0; sw < c.nsw; sw++)
			lost += ok[sw] && c.st[sw] != ST_OK;
	}
	free(ok);
	rp_fini(&c);
	return lost;
}
