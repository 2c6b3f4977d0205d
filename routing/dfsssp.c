/*
 * dfsssp: deadlock-free single-source shortest paths on VL layers
 * (OpenSM's name; Domke, Hoefler and Nagel, IPDPS 2011).
 *
 * Routes. Destination LIDs are routed one at a time, each along an in-tree
 * of shortest paths (in switch hops) towards the switch it hangs off: of
 * the neighbours one hop nearer, a switch takes the one whose way on has
 * the least busy busiest link, then the least sum (a link weighs 1 plus
 * the all-to-all routes, CA port to CA LID, already laid over it in that
 * direction). Once a LID is routed, each link of its tree counts the CA
 * ports whose routes now cross it, so later LIDs go round the busy links.
 * CA LIDs go first, those of the switches with the most CAs first
 * (OpenSM's order), switch LIDs last without weight. Then DFSSSP_ROUNDS
 * rounds of rip-up and reroute: each CA LID in turn taken off the loads
 * and routed again among all the others' routes, which its first route
 * could not see; the round with the least busy busiest link is kept.
 * OpenSM's dfsssp weighs paths of any length by the sum alone, in one
 * pass; here every route is a shortest one, and the bottleneck first and
 * the rounds spread all-to-all traffic better (bench/README.md).
 *
 * Layers. Each (source switch, destination LID) route, source by source,
 * goes into the lowest layer where the channel dependencies it makes (each
 * link it takes on the one it came over) close no cycle; every layer keeps
 * a topological order of its dependencies as they go in (Pearce and
 * Kelly), so a check costs only the links placed between the two ends.
 * OpenSM's dfsssp instead puts every route in layer 0 and breaks each
 * cycle by moving the routes of its weakest dependency up a layer, which
 * needed more layers for the same routes (bench/README.md, bench/vlroute).
 * More layers than the VLs given: the routes of the first pass (no
 * rounds), which usually turn less and need fewer layers, are layered
 * instead; more than the VLs again, and the engine fails, and the chain
 * goes on. A route's layer is its SL (path_sl), mapped to the VL of the
 * same number on every port (update_sl2vl).
 * Routes are not spread over unused VLs afterwards (OpenSM does, at random
 * per PathRecord): VLs the routes do not need are left to the QoS policy.
 *
 * Pure computation, no I/O.
 */
#include "routing/dfsssp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"

#define DF_NONE         UINT32_MAX
/* Rounds of rip-up and reroute after the first pass: in memory (2 HCAs
 * per switch) the busiest link 6-20 % lower on tori, dragonflies and
 * random fabrics (8 x 8 torus 298 -> 264, 4 x 4 x 4 160 -> 136, 9 x 4
 * dragonfly 92 -> 74) for a few ms, sometimes one layer more */
#define DFSSSP_ROUNDS   3
#define DFSSSP_PASSES   8       /* layer_routes(): passes at most */

struct dfsssp {
	const struct fabric *f;
	struct lft_set *out;
	struct kernel_graph g;
	uint32_t nsw, nlink;
	unsigned stride;        /* highest switch port + 1 */
	uint32_t *near;         /* [nlink] switch each link leaves */
	uint32_t *linkof;       /* [nsw * stride] link of (switch, port) */
	uint32_t *cas;          /* [nsw] CA ports cabled to each switch */
	uint32_t *lids;         /* [nsw] LIDs hanging off each switch */
	/* routing */
	uint64_t *load;         /* [nlink] all-to-all routes over each link */
	uint32_t *dist, *queue, *next, *walk;
	uint64_t *cost, *cmax, *sub;
	/* layering */
	uint8_t vls;
	uint8_t *layer;         /* [nsw][max_lid + 1] */
	unsigned nlayers;       /* opened */
	uint32_t *cnt[ROUTE_VLS_MAX]; /* [nlink * stride] per layer: source
				 * LIDs of the routes making each dependency
				 * (link, far egress port) */
	uint32_t *ord[ROUTE_VLS_MAX], *at[ROUTE_VLS_MAX]; /* [nlink] per
				 * layer: a topological order, link -> place
				 * and back */
	uint8_t *nope[ROUTE_VLS_MAX]; /* [nlink * stride] per layer: the
				 * dependency closed a cycle (layers only
				 * grow: it still would) */
	uint32_t *rev;          /* [nlink] the link the other way */
	uint32_t *fwd, *bwd, *place, *mark, *undo, epoch; /* [nlink] */
	uint64_t *slot;         /* [nlink] */
};

/* ------------------------------------------------------------ set-up */

static int
by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
setup(struct dfsssp *d, const struct fabric *f, struct lft_set *out)
{
	uint32_t sw, e, p, q;
	size_t n;
	uint8_t port;

	memset(d, 0, sizeof(*d));
	d->f = f;
	d->out = out;
	d->nsw = out->nsw;
	kernel_graph_build(f, out, &d->g);
	d->nlink = d->g.off[d->nsw];
	d->stride = 1;
	for (sw = 0; sw < d->nsw; sw++)
		if (f->nodes[out->sw_node[sw]].nports + 1u > d->stride)
			d->stride = f->nodes[out->sw_node[sw]].nports + 1u;
	if (d->stride > 256)
		d->stride = 256;
	d->near = xcalloc(d->nlink ? d->nlink : 1, sizeof(*d->near));
	d->linkof = xcalloc((size_t)d->nsw * d->stride, sizeof(*d->linkof));
	memset(d->linkof, 0xff, (size_t)d->nsw * d->stride *
	    sizeof(*d->linkof));
	for (sw = 0; sw < d->nsw; sw++)
		for (e = d->g.off[sw]; e < d->g.off[sw + 1]; e++) {
			d->near[e] = sw;
			d->linkof[(size_t)sw * d->stride + d->g.port[e]] = e;
		}
	d->cas = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->cas));
	d->lids = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->lids));
	for (p = 0; p < f->nports; p++) {
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH ||
		    !f->ports[p].present)
			continue;
		sw = kernel_attach(f, out, p, &port);
		if (sw != FABRIC_NONE)
			d->cas[sw]++;
	}
	for (sw = 0; sw < d->nsw; sw++)
		d->lids[sw] = d->g.dst_off[sw + 1] - d->g.dst_off[sw];
	d->load = xcalloc(d->nlink ? d->nlink : 1, sizeof(*d->load));
	d->dist = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->dist));
	d->queue = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->queue));
	d->walk = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->walk));
	d->next = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->next));
	d->cost = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->cost));
	d->cmax = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->cmax));
	d->sub = xcalloc(d->nsw ? d->nsw : 1, sizeof(*d->sub));
	n = d->nlink ? d->nlink : 1;
	d->rev = xcalloc(n, sizeof(*d->rev));
	for (e = 0; e < d->nlink; e++) {
		q = f->ports[fabric_port_idx(f, out->sw_node[d->near[e]],
		    d->g.port[e])].peer;
		d->rev[e] = d->linkof[(size_t)d->g.sw[e] * d->stride +
		    f->ports[q].num];
	}
	d->fwd = xcalloc(n, sizeof(*d->fwd));
	d->bwd = xcalloc(n, sizeof(*d->bwd));
	d->place = xcalloc(n, sizeof(*d->place));
	d->mark = xcalloc(n, sizeof(*d->mark));
	d->undo = xcalloc(d->nsw + 1, sizeof(*d->undo));
	d->slot = xcalloc(n, sizeof(*d->slot));
}

static void
teardown(struct dfsssp *d)
{
	kernel_graph_free(&d->g);
	free(d->near);
	free(d->linkof);
	free(d->cas);
	free(d->lids);
	free(d->load);
	free(d->dist);
	free(d->queue);
	free(d->walk);
	free(d->next);
	free(d->cost);
	free(d->cmax);
	free(d->sub);
	for (unsigned l = 0; l < ROUTE_VLS_MAX; l++) {
		free(d->cnt[l]);
		free(d->ord[l]);
		free(d->at[l]);
		free(d->nope[l]);
	}
	free(d->rev);
	free(d->fwd);
	free(d->bwd);
	free(d->place);
	free(d->mark);
	free(d->undo);
	free(d->slot);
}

/* ------------------------------------------------------------ routes */

/* Switches reached from t in BFS order, into d->queue; returns how many. */
static uint32_t
levels(struct dfsssp *d, uint32_t t)
{
	uint32_t n = 0, sw;

	kernel_bfs(&d->g, &t, 1, d->dist, d->queue);
	for (sw = 0; sw < d->nsw; sw++)
		n += d->dist[sw] != UINT32_MAX;
	return n;
}

/*
 * Of v's links to a switch one hop nearer the destination, the one whose
 * way on has the least busy busiest link, then the least sum of weights
 * (ties: the less loaded link, then port order); d->cmax[v] and
 * d->cost[v] become that way's. v has such a link (it is in the BFS
 * order).
 */
static uint32_t
nearer_link(struct dfsssp *d, uint32_t v)
{
	uint32_t e, u, best = DF_NONE;
	uint64_t c, bc = 0, cm, bm = 0;

	for (e = d->g.off[v]; e < d->g.off[v + 1]; e++) {
		u = d->g.sw[e];
		if (d->dist[u] + 1 != d->dist[v])
			continue;
		/* the busiest link on the way, then their sum */
		cm = d->load[e] > d->cmax[u] ? d->load[e] : d->cmax[u];
		c = d->cost[u] + d->load[e] + 1;
		if (best == DF_NONE || cm < bm || (cm == bm && (c < bc ||
		    (c == bc && d->load[e] < d->load[best])))) {
			best = e;
			bm = cm;
			bc = c;
		}
	}
	d->cmax[v] = bm;
	d->cost[v] = bc;
	return best;
}

/*
 * Route lid (hanging off d->queue[0] by port dport) from the n switches of
 * the BFS order: each takes, of its links one hop nearer, the one whose way
 * on has the least busy busiest link, then the least sum of weights (ties:
 * the less loaded link, then port order). With weigh, the links of the
 * tree then count the CA ports behind them.
 */
static void
route_lid(struct dfsssp *d, uint32_t n, uint16_t lid, uint8_t dport,
    bool weigh)
{
	uint32_t i, v, e, best;

	d->cost[d->queue[0]] = 0;
	d->cmax[d->queue[0]] = 0;
	d->next[d->queue[0]] = DF_NONE;
	lft_row(d->out, d->queue[0])[lid] = dport;
	for (i = 1; i < n; i++) {
		v = d->queue[i];
		d->next[v] = best = nearer_link(d, v);
		lft_row(d->out, v)[lid] = d->g.port[best];
	}
	if (!weigh)
		return;
	for (i = 0; i < n; i++)
		d->sub[d->queue[i]] = d->cas[d->queue[i]];
	for (i = n; i-- > 1;) {
		v = d->queue[i];
		e = d->next[v];
		d->load[e] += d->sub[v];
		d->sub[d->g.sw[e]] += d->sub[v];
	}
}

/* Destination switches in order, those with the most CA ports first
 * (ties in switch order). */
static uint32_t *
by_cas(const struct dfsssp *d)
{
	uint32_t *order = xcalloc(d->nsw ? d->nsw : 1, sizeof(*order));
	uint32_t *start, i, most = 0;

	for (i = 0; i < d->nsw; i++)
		if (d->cas[i] > most)
			most = d->cas[i];
	start = xcalloc((size_t)most + 2, sizeof(*start));
	for (i = 0; i < d->nsw; i++)
		start[most - d->cas[i] + 1]++;
	for (i = 1; i <= most + 1; i++)
		start[i] += start[i - 1];
	for (i = 0; i < d->nsw; i++)
		order[start[most - d->cas[i]]++] = i;
	free(start);
	return order;
}

/* CA LIDs (weighed: pass 0) or switch LIDs (pass 1), destination switch
 * by destination switch in order. */
static void
route_pass(struct dfsssp *d, const uint32_t *order, int pass)
{
	uint32_t i, t, k, n;

	for (i = 0; i < d->nsw; i++) {
		t = order[i];
		n = 0;
		for (k = d->g.dst_off[t]; k < d->g.dst_off[t + 1]; k++) {
			if ((d->g.dst_port[k] == 0) != (pass == 1))
				continue;
			if (n == 0)
				n = levels(d, t);
			route_lid(d, n, d->g.dst_lid[k], d->g.dst_port[k],
			    pass == 0);
		}
	}
}

/* The all-to-all routes on the busiest link. */
static uint64_t
busiest(const struct dfsssp *d)
{
	uint64_t most = 0;

	for (uint32_t e = 0; e < d->nlink; e++)
		if (d->load[e] > most)
			most = d->load[e];
	return most;
}

/*
 * A round of rip-up and reroute: each CA LID, in the same order, taken off
 * the loads (its tree as the tables hold it) and routed again among all
 * the others' routes, which the first pass could not see yet.
 */
static void
reroute(struct dfsssp *d, const uint32_t *order)
{
	uint32_t i, t, k, n, j, v, e;
	uint16_t lid;

	for (i = 0; i < d->nsw; i++) {
		t = order[i];
		n = 0;
		for (k = d->g.dst_off[t]; k < d->g.dst_off[t + 1]; k++) {
			if (d->g.dst_port[k] == 0)
				continue;
			if (n == 0)
				n = levels(d, t);
			lid = d->g.dst_lid[k];
			for (j = 0; j < n; j++)
				d->sub[d->queue[j]] = d->cas[d->queue[j]];
			for (j = n; j-- > 1;) {
				v = d->queue[j];
				e = d->linkof[(size_t)v * d->stride +
				    lft_row(d->out, v)[lid]];
				d->load[e] -= d->sub[v];
				d->sub[d->g.sw[e]] += d->sub[v];
			}
			route_lid(d, n, lid, d->g.dst_port[k], true);
		}
	}
}

/* The tables and loads of a routing, to come back to. */
struct snapshot {
	uint8_t *port;
	uint64_t *load;
	uint64_t busiest;
};

static void
snap_take(const struct dfsssp *d, struct snapshot *sn)
{
	size_t bytes = (size_t)d->nsw * ((size_t)d->out->max_lid + 1);

	if (sn->port == NULL) {
		sn->port = xcalloc(bytes ? bytes : 1, 1);
		sn->load = xcalloc(d->nlink ? d->nlink : 1, sizeof(*sn->load));
	}
	memcpy(sn->port, d->out->port, bytes);
	memcpy(sn->load, d->load, (size_t)d->nlink * sizeof(*d->load));
	sn->busiest = busiest(d);
}

static void
snap_put(struct dfsssp *d, const struct snapshot *sn)
{
	memcpy(d->out->port, sn->port, (size_t)d->nsw *
	    ((size_t)d->out->max_lid + 1));
	memcpy(d->load, sn->load, (size_t)d->nlink * sizeof(*d->load));
}

static void
snap_free(struct snapshot *sn)
{
	free(sn->port);
	free(sn->load);
	memset(sn, 0, sizeof(*sn));
}

/* ------------------------------------------------------------ layers */

static inline uint8_t *
layer_of(struct dfsssp *d, uint32_t sw, uint16_t lid)
{
	return d->layer + (size_t)sw * ((size_t)d->out->max_lid + 1) + lid;
}

/* The link the route to lid leaves sw by, DF_NONE when it leaves the
 * switch graph there (delivered, or lost). */
static inline uint32_t
out_link(const struct dfsssp *d, uint32_t sw, uint16_t lid)
{
	uint8_t p = lft_row(d->out, sw)[lid];

	return p < d->stride ? d->linkof[(size_t)sw * d->stride + p] : DF_NONE;
}

/* The link that depends on link x through far egress port q. */
static inline uint32_t
dep_link(const struct dfsssp *d, uint32_t x, unsigned q)
{
	return d->linkof[(size_t)d->g.sw[x] * d->stride + q];
}

/* Switch-to-switch hops of the route from sw to lid (a loop: more than
 * nsw). */
static uint32_t
hops(const struct dfsssp *d, uint32_t sw, uint16_t lid)
{
	uint32_t e, n = 0;

	while ((e = out_link(d, sw, lid)) != DF_NONE && n <= d->nsw) {
		n++;
		sw = d->g.sw[e];
	}
	return n;
}

/* The route's weight: the LIDs that send along it. */
static inline uint32_t
weight(const struct dfsssp *d, uint32_t sw)
{
	return d->lids[sw] ? d->lids[sw] : 1;
}

static void
layer_open(struct dfsssp *d, unsigned l)
{
	size_t n = d->nlink ? d->nlink : 1;

	d->cnt[l] = xcalloc(n * d->stride, sizeof(uint32_t));
	d->ord[l] = xcalloc(n, sizeof(uint32_t));
	d->at[l] = xcalloc(n, sizeof(uint32_t));
	d->nope[l] = xcalloc(n * d->stride, 1);
	for (uint32_t x = 0; x < d->nlink; x++)
		d->ord[l][x] = d->at[l][x] = x;
	d->nlayers = l + 1;
}

/* Every layer emptied and closed, every route back in layer 0. */
static void
layers_reset(struct dfsssp *d)
{
	for (unsigned l = 0; l < d->nlayers; l++) {
		free(d->cnt[l]);
		free(d->ord[l]);
		free(d->at[l]);
		free(d->nope[l]);
		d->cnt[l] = d->ord[l] = d->at[l] = NULL;
		d->nope[l] = NULL;
	}
	d->nlayers = 0;
	memset(d->layer, 0, (size_t)d->nsw * ((size_t)d->out->max_lid + 1));
}

/*
 * Edge x -> y (y depends on x) into layer l, keeping ord[] a topological
 * order of its graph (Pearce and Kelly 2006): when y is placed below x,
 * the links y reaches placed up to x, and those reaching x placed from y
 * up, are found (x among the first: a cycle, refused); the second take
 * the lowest of their joint places, the first the rest, each in its old
 * order.
 */
static bool
order_insert(struct dfsssp *d, unsigned l, uint32_t x, uint32_t y)
{
	uint32_t *ord = d->ord[l], *cnt = d->cnt[l], lb = ord[y], ub = ord[x];
	uint32_t nf = 0, nb = 0, hf = 0, hb = 0, w, v, r, fm, bm, i, k;
	unsigned q;

	if (lb > ub)
		return true;
	if (x == y)
		return false;
	fm = ++d->epoch;
	bm = ++d->epoch;
	d->fwd[nf++] = y;
	d->mark[y] = fm;
	while (hf < nf) {
		w = d->fwd[hf++];
		for (q = 1; q < d->stride; q++) {
			if (cnt[(size_t)w * d->stride + q] == 0 ||
			    (v = dep_link(d, w, q)) == DF_NONE)
				continue;
			if (v == x)
				return false;   /* y reaches x: a cycle */
			if (d->mark[v] == fm || ord[v] > ub)
				continue;
			d->mark[v] = fm;
			d->fwd[nf++] = v;
		}
	}
	d->bwd[nb++] = x;
	d->mark[x] = bm;
	while (hb < nb) {
		/* the links into w's switch that w depends on */
		w = d->bwd[hb++];
		k = d->near[w];
		for (r = d->g.off[k]; r < d->g.off[k + 1]; r++) {
			v = d->rev[r];
			if (cnt[(size_t)v * d->stride + d->g.port[w]] == 0 ||
			    d->mark[v] == bm || ord[v] < lb)
				continue;
			d->mark[v] = bm;
			d->bwd[nb++] = v;
		}
	}
	/* the joint places, lowest first: the back set's, then the forward
	 * set's, each sorted by old place */
	for (i = 0; i < nb; i++)
		d->slot[i] = (uint64_t)ord[d->bwd[i]] << 32 | d->bwd[i];
	for (i = 0; i < nf; i++)
		d->slot[nb + i] = (uint64_t)ord[d->fwd[i]] << 32 | d->fwd[i];
	qsort(d->slot, nb, sizeof(*d->slot), by_u64);
	qsort(d->slot + nb, nf, sizeof(*d->slot), by_u64);
	for (i = 0; i < nb + nf; i++)
		d->place[i] = (uint32_t)(d->slot[i] >> 32);
	qsort(d->place, nb + nf, sizeof(*d->place), by_u32);
	for (i = 0; i < nb + nf; i++) {
		v = (uint32_t)d->slot[i];
		ord[v] = d->place[i];
		d->at[l][d->place[i]] = v;
	}
	return true;
}

/*
 * The route from sw to lid into layer l, unless one of its dependencies
 * closes a cycle there (then the layer is left as it was). Each link it
 * takes depends on the one it came over.
 */
static bool
route_into(struct dfsssp *d, unsigned l, uint32_t sw, uint16_t lid)
{
	uint32_t w = weight(d, sw), prev = DF_NONE, e, cur, n = 0, i;
	bool grown = false;
	uint32_t *c;

	for (cur = sw; (e = out_link(d, cur, lid)) != DF_NONE && n <= d->nsw;
	    cur = d->g.sw[e]) {
		if (prev != DF_NONE) {
			c = &d->cnt[l][(size_t)prev * d->stride +
			    d->g.port[e]];
			if (*c == 0 && (d->nope[l][c - d->cnt[l]] ||
			    !order_insert(d, l, prev, e))) {
				/* refused for good only if the layer had
				 * nothing of this route's yet */
				if (!grown)
					d->nope[l][c - d->cnt[l]] = 1;
				/* take out what went in: no edge that goes
				 * breaks the order */
				for (i = 0; i < n; i++)
					d->cnt[l][d->undo[i]] -= w;
				return false;
			}
			grown |= *c == 0;
			*c += w;
			d->undo[n++] = (uint32_t)(c - d->cnt[l]);
		}
		prev = e;
	}
	return true;
}

/* Route from sw to lid into the lowest layer that takes it; its layer,
 * or d->vls when none does. */
static unsigned
fit(struct dfsssp *d, uint32_t sw, uint16_t lid)
{
	unsigned l;

	if (hops(d, sw, lid) < 2)
		return 0;       /* one hop or none: no dependency */
	for (l = 0; l < d->vls; l++) {
		if (l == d->nlayers)
			layer_open(d, l);
		if (route_into(d, l, sw, lid))
			break;
	}
	return l;
}

/*
 * Every route into the lowest layer where it closes no cycle, source
 * switch by source switch (in switch order), each one's routes in LID
 * order; with hard, the routes it marks first, in the same order. The
 * shortest routes from one switch close no cycle among themselves (along
 * a dependency the distance from the source grows); taken together they
 * fit where the routes of the sources before left room. This order needed
 * fewer layers than the longest routes first or destination by
 * destination (a 6 x 6 x 6 torus: 11 against 13; a 10 x 10 torus: 6
 * against 8), and far fewer than all of a source's routes in one layer.
 * Returns the layers used, 0 when d->vls do not do (the route that did
 * not fit then reads as in the top layer).
 */
static unsigned
layer_pass(struct dfsssp *d, const uint8_t *hard)
{
	size_t nlid = (size_t)d->out->max_lid + 1;
	uint32_t lid, sw;
	unsigned l, used = 1;
	int ph;

	layer_open(d, 0);
	for (ph = hard != NULL ? 0 : 1; ph < 2; ph++)
		for (sw = 0; sw < d->nsw; sw++)
			for (lid = 1; lid < nlid; lid++) {
				if (hard != NULL && (hard[sw * nlid + lid] != 0) !=
				    (ph == 0))
					continue;
				l = fit(d, sw, (uint16_t)lid);
				d->layer[sw * nlid + lid] = (uint8_t)(l < d->vls ?
				    l : d->vls - 1u);
				if (l == d->vls)
					return 0;
				if (l + 1 > used)
					used = l + 1;
			}
	return used;
}

/*
 * Layers for every route, as few as a few passes find: after the first,
 * the routes that ended in the top layer (or did not fit) are marked hard
 * and go first in the next pass, the marks adding up, up to
 * DFSSSP_PASSES passes, stopping after four that find no fewer (in
 * memory, 2 HCAs per switch: 8 x 8 torus 6 -> 5 layers, 4 x 4 x 4 6 -> 5,
 * 5 x 5 x 5 8 -> 7; each pass costs a layering, 0.5 s on a 6 x 6 x 6
 * torus). The fewest kept. Returns the layers used, 0 when d->vls do not
 * do.
 */
static unsigned
layer_routes(struct dfsssp *d)
{
	size_t npair = (size_t)d->nsw * ((size_t)d->out->max_lid + 1), i;
	unsigned used = layer_pass(d, NULL), best = used, top, k, worse = 0;
	uint8_t *hard, *keep;

	if (used == 1)
		return used;
	hard = xcalloc(npair ? npair : 1, 1);
	keep = xcalloc(npair ? npair : 1, 1);
	memcpy(keep, d->layer, npair);
	for (k = 1; k < DFSSSP_PASSES && worse < 4 && best != 1; k++) {
		top = (used != 0 ? used : d->vls) - 1u;
		for (i = 0; i < npair; i++)
			hard[i] |= d->layer[i] == top;
		layers_reset(d);
		used = layer_pass(d, hard);
		if (used != 0 && (best == 0 || used < best)) {
			best = used;
			worse = 0;
			memcpy(keep, d->layer, npair);
		} else
			worse++;
	}
	memcpy(d->layer, keep, npair);
	free(hard);
	free(keep);
	return best;
}

/* ------------------------------------------------------------ repair */

/*
 * Which switches' routes to the LID at (t, dport) arrive: broken[sw] 1
 * when the route from sw crosses a lost link, leads nowhere or loops.
 * Memoised along each walk (d->mark holds 0 unknown, 1 arrives, 2 broken,
 * 3 on this walk). Returns how many are broken.
 */
static uint32_t
find_broken(struct dfsssp *d, uint16_t lid, uint32_t t, uint8_t dport,
    uint8_t *broken)
{
	uint32_t sw, cur, n, e, nb = 0;
	uint8_t ans;

	memset(broken, 0, d->nsw);
	for (sw = 0; sw < d->nsw; sw++) {
		if (broken[sw] != 0)
			continue;
		for (n = 0, cur = sw;;) {
			if (broken[cur] == 1 || broken[cur] == 2) {
				ans = broken[cur];
				break;
			}
			if (broken[cur] == 3) {
				ans = 2;        /* a loop */
				break;
			}
			if (cur == t) {
				ans = lft_row(d->out, t)[lid] == dport ? 1 : 2;
				broken[cur] = 3;
				d->walk[n++] = cur;
				break;
			}
			broken[cur] = 3;
			d->walk[n++] = cur;
			if ((e = out_link(d, cur, lid)) == DF_NONE) {
				ans = 2;        /* lost, or out to a CA */
				break;
			}
			cur = d->g.sw[e];
		}
		while (n > 0)
			broken[d->walk[--n]] = ans;
	}
	for (sw = 0; sw < d->nsw; sw++) {
		broken[sw] = broken[sw] == 2;
		nb += broken[sw];
	}
	return nb;
}

/* All-to-all loads of the tables as they are: every CA port's switch to
 * every CA LID, the links of the routes that arrive counted. */
static void
loads_of(struct dfsssp *d, uint8_t *broken)
{
	uint32_t t, k, sw, e, cur;
	uint16_t lid;

	memset(d->load, 0, (size_t)d->nlink * sizeof(*d->load));
	for (t = 0; t < d->nsw; t++)
		for (k = d->g.dst_off[t]; k < d->g.dst_off[t + 1]; k++) {
			if (d->g.dst_port[k] == 0)
				continue;
			lid = d->g.dst_lid[k];
			find_broken(d, lid, t, d->g.dst_port[k], broken);
			for (sw = 0; sw < d->nsw; sw++) {
				if (d->cas[sw] == 0 || broken[sw])
					continue;
				for (cur = sw; cur != t; cur = d->g.sw[e]) {
					e = out_link(d, cur, lid);
					d->load[e] += d->cas[sw];
				}
			}
		}
}

/*
 * Repair lid's broken switches over the n switches of the BFS order from
 * t: a broken switch whose next hop is still one hop nearer keeps it;
 * another takes, of its neighbours one hop nearer, the one whose way on
 * (kept, or repaired before it) has the least busy busiest link, then the
 * least sum; the others keep theirs. The loads then count
 * the CA ports behind the repaired switches on their new links. Returns
 * the entries changed.
 */
static uint32_t
repair_lid(struct dfsssp *d, uint32_t n, uint16_t lid, const uint8_t *broken)
{
	uint32_t i, v, e, u, best, changed = 0;
	uint8_t old;

	d->cost[d->queue[0]] = 0;
	d->cmax[d->queue[0]] = 0;
	for (i = 1; i < n; i++) {
		v = d->queue[i];
		e = out_link(d, v, lid);
		/* a broken switch whose own next hop is still one hop nearer
		 * keeps it: the switches it leads to are repaired, so its
		 * route arrives again (and stays a shortest one) */
		if (!broken[v] || (e != DF_NONE && d->dist[d->g.sw[e]] + 1 ==
		    d->dist[v])) {
			u = d->g.sw[e];
			d->next[v] = e;
			d->cmax[v] = d->load[e] > d->cmax[u] ? d->load[e] :
			    d->cmax[u];
			d->cost[v] = d->cost[u] + d->load[e] + 1;
			continue;
		}
		d->next[v] = best = nearer_link(d, v);
		old = lft_row(d->out, v)[lid];
		lft_row(d->out, v)[lid] = d->g.port[best];
		changed += old != d->g.port[best];
	}
	for (i = 0; i < n; i++)
		d->sub[d->queue[i]] = broken[d->queue[i]] ? d->cas[d->queue[i]] : 0;
	for (i = n; i-- > 1;) {
		v = d->queue[i];
		if (!broken[v])
			continue;
		e = d->next[v];
		d->load[e] += d->sub[v];
		d->sub[d->g.sw[e]] += d->sub[v];
	}
	return changed;
}

int
dfsssp_repair(const struct fabric *f, const struct fabric *prev_fabric,
    const struct lft_set *prev, const struct route_layers *prev_layers,
    struct lft_set *out, struct route_layers *lay,
    struct repair_result *r)
{
	struct dfsssp d;
	const uint8_t *row;
	uint8_t *broken, *fresh;
	uint16_t old_max, lid, last;
	uint32_t sw, t, k, n, ch, ps;
	size_t nlid, i;
	unsigned l;

	memset(r, 0, sizeof(*r));
	if (prev == NULL || prev_fabric == NULL || prev_layers == NULL ||
	    prev_layers->nsw != prev->nsw ||
	    prev_layers->max_lid > prev->max_lid)
		return -1;
	if (lft_set_init(out, f) < 0)
		fatalx("dfsssp: out of memory");
	if (out->nsw == 0 || route_layers_init(lay, out, prev_layers->vls) < 0) {
		lft_set_fini(out);
		return -1;
	}
	lay->engine = &re_dfsssp;
	nlid = (size_t)out->max_lid + 1;
	/* the tables and layers in use, laid onto f by switch GUID */
	for (sw = 0; sw < out->nsw; sw++) {
		row = kernel_prev_row(prev_fabric, prev,
		    f->nodes[out->sw_node[sw]].guid, &old_max);
		if (row == NULL)
			continue;
		last = old_max < out->max_lid ? old_max : out->max_lid;
		memcpy(lft_row(out, sw), row, (size_t)last + 1);
		ps = prev->node_sw[fabric_node_by_guid(prev_fabric,
		    f->nodes[out->sw_node[sw]].guid)];
		/* the tables may run past the layers: LIDs the SM added
		 * after routing (vports) forward as their port's, in its
		 * layer */
		if (prev_layers->layer != NULL)
			memcpy(lay->layer + sw * nlid, prev_layers->layer +
			    (size_t)ps * ((size_t)prev_layers->max_lid + 1),
			    (size_t)(last < prev_layers->max_lid ? last :
			    prev_layers->max_lid) + 1);
	}
	setup(&d, f, out);
	d.vls = lay->vls;
	d.layer = lay->layer;
	broken = xcalloc(d.nsw, 1);
	/* fresh[sw][lid]: the route changed, its layer is to be found */
	fresh = xcalloc(d.nsw * nlid, 1);
	loads_of(&d, broken);
	for (t = 0; t < d.nsw; t++) {
		n = 0;
		for (k = d.g.dst_off[t]; k < d.g.dst_off[t + 1]; k++) {
			lid = d.g.dst_lid[k];
			if (find_broken(&d, lid, t, d.g.dst_port[k], broken) == 0)
				continue;
			if (n == 0)
				n = levels(&d, t);
			/* levels() took the queue find_broken() used */
			lft_row(out, t)[lid] = d.g.dst_port[k];
			ch = repair_lid(&d, n, lid, broken);
			for (sw = 0; sw < d.nsw; sw++) {
				if (!broken[sw])
					continue;
				fresh[sw * nlid + lid] = 1;
				r->rerouted++;
				/* cut off from the LID: no route */
				if (d.dist[sw] == UINT32_MAX &&
				    lft_row(out, sw)[lid] != LFT_NO_ROUTE) {
					lft_row(out, sw)[lid] = LFT_NO_ROUTE;
					ch++;
				}
			}
			r->changed += ch;
			r->lids += ch > 0;
		}
	}
	/* routes kept, in their layers (acyclic there: a subset of what
	 * was); then the changed ones, source by source, each into its old
	 * layer if it fits there (the SL handed out for it stays right for
	 * the traffic that keeps using it), else the lowest that takes it */
	for (l = 0; l < d.vls; l++)
		layer_open(&d, l);
	for (sw = 0; sw < d.nsw; sw++)
		for (i = 1; i < nlid; i++) {
			if (fresh[sw * nlid + i])
				continue;
			l = d.layer[sw * nlid + i];
			if (l >= d.vls || !route_into(&d, l, sw, (uint16_t)i)) {
				/* not acyclic as kept: nothing to repair from */
				goto fail;
			}
		}
	for (sw = 0; sw < d.nsw; sw++)
		for (i = 1; i < nlid; i++) {
			if (!fresh[sw * nlid + i])
				continue;
			l = d.layer[sw * nlid + i];
			if (hops(&d, sw, (uint16_t)i) < 2)
				l = 0;
			else if (l >= d.vls || !route_into(&d, l, sw, (uint16_t)i))
				l = fit(&d, sw, (uint16_t)i);
			if (l == d.vls)
				goto fail;
			r->relayered += d.layer[sw * nlid + i] != l;
			d.layer[sw * nlid + i] = (uint8_t)l;
		}
	lay->n = 1;
	for (i = 0; i < d.nsw * nlid; i++)
		if (d.layer[i] + 1u > lay->n)
			lay->n = (uint8_t)(d.layer[i] + 1u);
	r->layers = lay->n;
	free(broken);
	free(fresh);
	teardown(&d);
	return 0;
fail:
	free(broken);
	free(fresh);
	teardown(&d);
	route_layers_fini(lay);
	lft_set_fini(out);
	return -1;
}

/* ------------------------------------------------------------ engine */

static int
route_vls(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *out, struct route_layers *lay, uint8_t vls, char *why,
    size_t whylen)
{
	struct snapshot first, best;
	struct dfsssp d;
	uint32_t *order;
	unsigned n, round;

	if (out->nsw == 0) {
		snprintf(why, whylen, "no switch in the fabric, nothing to route");
		return -1;
	}
	(void)o;        /* routes afresh: no option changes them */
	setup(&d, f, out);
	order = by_cas(&d);
	memset(&first, 0, sizeof(first));
	memset(&best, 0, sizeof(best));
	route_pass(&d, order, 0);
	snap_take(&d, &first);
	best.busiest = first.busiest;
	for (round = 0; round < DFSSSP_ROUNDS; round++) {
		reroute(&d, order);
		if (busiest(&d) < best.busiest)
			snap_take(&d, &best);
	}
	if (route_layers_init(lay, out, vls) < 0)
		fatalx("dfsssp: out of memory");
	lay->engine = &re_dfsssp;
	d.vls = lay->vls;
	d.layer = lay->layer;
	/* the best balanced; where its routes need more layers than the VLs
	 * given, the first pass's */
	snap_put(&d, best.port != NULL ? &best : &first);
	route_pass(&d, order, 1);
	n = layer_routes(&d);
	if (n == 0 && best.port != NULL) {
		layers_reset(&d);
		snap_put(&d, &first);
		route_pass(&d, order, 1);
		n = layer_routes(&d);
	}
	snap_free(&first);
	snap_free(&best);
	free(order);
	teardown(&d);
	if (n == 0) {
		snprintf(why, whylen, "its routes need more than %u VL%s to be "
		    "free of credit loops", lay->vls, lay->vls == 1 ? "" : "s");
		route_layers_fini(lay);
		return -1;
	}
	lay->n = (uint8_t)n;
	return 0;
}

static int
route_one(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *out, char *why, size_t whylen)
{
	struct route_layers lay;
	int rc;

	memset(&lay, 0, sizeof(lay));
	rc = route_vls(f, o, out, &lay, 1, why, whylen);
	route_layers_fini(&lay);
	return rc;
}

static int
route_layered(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *out, struct route_layers *lay, char *why, size_t whylen)
{
	uint8_t vls = o->vls > ROUTE_VLS_MAX ? ROUTE_VLS_MAX : o->vls;

	return route_vls(f, o, out, lay, vls, why, whylen);
}

static uint8_t
path_sl(const struct route_layers *lay, const struct fabric *f,
    const struct lft_set *s, uint16_t slid, uint16_t dlid)
{
	return route_layer(lay, routing_source_switch(f, s, slid), dlid);
}

/* SL i on VL i, for every VL the engine was given: a repair that opens a
 * layer then writes no SL2VL block. */
static void
update_sl2vl(const struct route_layers *lay, const struct fabric *f,
    uint32_t node, uint8_t in, uint8_t num, uint8_t sl2vl[ROUTE_SLS])
{
	(void)f;
	(void)node;
	(void)in;
	(void)num;
	if (lay->vls <= 1)
		return;
	for (unsigned sl = 0; sl < lay->vls && sl < ROUTE_SLS; sl++)
		sl2vl[sl] = (uint8_t)sl;
}

const struct routing_engine re_dfsssp = {
	.name = "dfsssp",
	.deadlock_free = true,
	.route = route_one,
	.route_layers = route_layered,
	.path_sl = path_sl,
	.update_sl2vl = update_sl2vl,
	.repair_layers = dfsssp_repair,
};
