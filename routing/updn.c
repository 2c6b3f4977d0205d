/*
 * updn: up-down routing (up*-down* in the literature) on any topology,
 * deadlock-free.
 *
 * Switches are ranked by BFS distance from a set of roots, and every link
 * is given a direction: from u to v is "up" when v ranks lower (nearer a
 * root), ties going up towards the lower node GUID. That is a total order,
 * so a route that never goes up after it has gone down cannot close a
 * cycle of channel dependencies. Every destination is routed along the
 * shortest such legal path, balanced among equals as minhop does.
 *
 * Roots are the switches whose GUIDs the options give; a connected piece
 * of the fabric with none of them gets one root, chosen by roots_auto().
 *
 * Tables are per destination, not per route: a switch has one entry for a
 * LID whether the packet came up or down to it. So for each destination
 * switch t a BFS backwards from t gives every switch one label, its legal
 * distance to t and its state: D when its route to t goes only down, U
 * when it first goes up. A D switch may only forward down to a D switch
 * one step nearer, a U switch up to any switch one step nearer; a switch
 * reachable both ways at the same distance is D, which leaves the most
 * routes open to the switches above it. Packets that came down to a
 * switch therefore always keep going down. With one root every switch
 * has a legal path to every other of its piece (up to the root, then
 * down). With several, which only happens when they are given, a pair
 * whose ways up meet no common switch has none, the roots themselves to
 * begin with (every link from a root goes down): such a pair is left
 * without a route, as the rule demands.
 *
 * Work is ordered for large fabrics as in minhop: labels for 64
 * destinations per BFS pass (a bit per destination in a word), kept in a
 * switch x switch matrix; then each switch's table is filled in one go,
 * the candidate ports towards every destination switch found by
 * comparing its neighbours' rows of the matrix with its own, eight
 * destinations per vector operation.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "routing/routing.h"

/* label = 2 * legal distance + (1 if the route first goes up) */
#define LABEL_NONE      0xFFFF          /* not reached */
#define LABEL_NEVER     0xFFFE          /* matches no label */
#define UPDN_MAX_SW     32767           /* labels fit in 16 bits */
#define GROUP           16              /* neighbours per candidate plane */
#define MAX_GROUPS      16              /* 255 ports */

typedef uint16_t vlabel __attribute__((vector_size(16)));
#define VLANES          8

struct updn {
	const struct fabric *f;
	const struct routing_opts *o;
	struct lft_set *out;
	uint32_t nsw;
	size_t stride;          /* nsw rounded up to VLANES */
	/* usable inter-switch links, by switch, in port order */
	struct routing_graph g; /* usable links and destinations */
	uint8_t *adj_down;      /* 1: the link goes down from this side */
	/* the same links split by direction, for the BFS */
	uint32_t *dn_off, *dn_sw, *up_off, *up_sw;
	uint32_t *cas;          /* [nsw] CA and router ports cabled to it */
	uint32_t *comp;         /* [nsw] connected piece */
	uint32_t ncomp;
	uint8_t *root;          /* [nsw] */
	uint32_t *rank;         /* [nsw] */
	uint16_t *label;        /* [nsw][stride]: row u, column t */
};

/* Work space of fill_row(), reused for every switch. */
struct scratch {
	unsigned groups;        /* candidate planes in use */
	uint16_t *plane;        /* [MAX_GROUPS][stride], see build_planes() */
	uint16_t *want_dn;      /* [stride] label a down neighbour must have */
	uint16_t *want_up;      /* [stride] label | 1 an up neighbour must have */
	uint8_t cand[256];
	uint32_t *defer;        /* [nsw] destination switches with a choice */
	uint16_t *lids;         /* [all destination LIDs] one run of them */
};

static uint64_t
sw_guid(const struct updn *u, uint32_t sw)
{
	return u->f->nodes[u->out->sw_node[sw]].guid;
}

/* Usable inter-switch links of switch sw. */
static uint32_t
degree(const struct updn *u, uint32_t sw)
{
	return u->g.off[sw + 1] - u->g.off[sw];
}

/* The shared switch graph, and room for updn's own view of its links. */
static void
build_adj(struct updn *u)
{
	uint32_t total;

	routing_graph_build(u->f, u->out, &u->g);
	total = u->g.off[u->nsw];
	u->adj_down = routing_calloc(total, sizeof(*u->adj_down));
	u->dn_off = routing_calloc(u->nsw + 1, sizeof(*u->dn_off));
	u->dn_sw = routing_calloc(total, sizeof(*u->dn_sw));
	u->up_off = routing_calloc(u->nsw + 1, sizeof(*u->up_off));
	u->up_sw = routing_calloc(total, sizeof(*u->up_sw));
}

/* The CA and router ports cabled to every switch. */
static void
build_dests(struct updn *u)
{
	const struct fabric *f = u->f;
	uint32_t p, sw;
	uint8_t port;

	u->cas = routing_calloc(u->nsw, sizeof(*u->cas));
	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    fabric_port_is_endport(f, p) &&
		    (sw = routing_attach(f, u->out, p, &port)) != FABRIC_NONE)
			u->cas[sw]++;
}

/*
 * Plain BFS over the switch graph from the switches marked in src (all
 * at distance 0); dist gets UINT32_MAX where it does not reach.
 */
static void
bfs(const struct updn *u, const uint8_t *src, uint32_t *dist)
{
	uint32_t *queue = routing_calloc(u->nsw, sizeof(*queue));
	uint32_t head = 0, tail = 0, sw, e, v;

	for (sw = 0; sw < u->nsw; sw++) {
		dist[sw] = UINT32_MAX;
		if (src[sw]) {
			dist[sw] = 0;
			queue[tail++] = sw;
		}
	}
	while (head < tail) {
		sw = queue[head++];
		for (e = u->g.off[sw]; e < u->g.off[sw + 1]; e++) {
			v = u->g.sw[e];
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[sw] + 1;
				queue[tail++] = v;
			}
		}
	}
	free(queue);
}

static void
components(struct updn *u)
{
	uint32_t *queue = routing_calloc(u->nsw, sizeof(*queue));
	uint32_t head, tail, sw, s, e, v;

	u->comp = routing_calloc(u->nsw, sizeof(*u->comp));
	for (sw = 0; sw < u->nsw; sw++)
		u->comp[sw] = UINT32_MAX;
	for (s = 0; s < u->nsw; s++) {
		if (u->comp[s] != UINT32_MAX)
			continue;
		u->comp[s] = u->ncomp;
		head = tail = 0;
		queue[tail++] = s;
		while (head < tail) {
			sw = queue[head++];
			for (e = u->g.off[sw]; e < u->g.off[sw + 1]; e++) {
				v = u->g.sw[e];
				if (u->comp[v] == UINT32_MAX) {
					u->comp[v] = u->ncomp;
					queue[tail++] = v;
				}
			}
		}
		u->ncomp++;
	}
	free(queue);
}

/*
 * Eccentricity of every switch within its piece, 64 BFSes at a time (a
 * bit per source in a word, as in minhop's distances()).
 */
static uint32_t *
eccentricities(const struct updn *u)
{
	uint64_t *seen, *front, *next, *tmp, acc, any, bits;
	uint32_t *ecc, base, nb, v, e, i, level;

	ecc = routing_calloc(u->nsw, sizeof(*ecc));
	seen = routing_calloc(u->nsw, sizeof(*seen));
	front = routing_calloc(u->nsw, sizeof(*front));
	next = routing_calloc(u->nsw, sizeof(*next));
	for (base = 0; base < u->nsw; base += 64) {
		nb = u->nsw - base < 64 ? u->nsw - base : 64;
		memset(seen, 0, u->nsw * sizeof(*seen));
		memset(front, 0, u->nsw * sizeof(*front));
		for (i = 0; i < nb; i++)
			seen[base + i] = front[base + i] = 1ULL << i;
		for (level = 1, any = 1; any != 0; level++) {
			any = 0;
			for (v = 0; v < u->nsw; v++) {
				acc = 0;
				for (e = u->g.off[v]; e < u->g.off[v + 1]; e++)
					acc |= front[u->g.sw[e]];
				next[v] = acc & ~seen[v];
				seen[v] |= next[v];
				any |= next[v];
			}
			/* the sources that still reach further */
			for (bits = any; bits != 0; bits &= bits - 1)
				ecc[base + (uint32_t)__builtin_ctzll(bits)] = level;
			tmp = front;
			front = next;
			next = tmp;
		}
	}
	free(seen);
	free(front);
	free(next);
	return ecc;
}

/*
 * One root for every piece that was given none: the most central switch
 * (least eccentricity), then the one with the most CAs, then the most
 * inter-switch links, then the lowest GUID.
 *
 * One root, because two roots never have a legal path between them (every
 * link from a root goes down, and a path that has gone down cannot come
 * up again): with the top level of a fat tree as roots, the top switches
 * cannot reach each other's LIDs, nor, in three levels, the aggregation
 * switches of one pod. From a single root every switch reaches every
 * other, up to the root and down. The CAs break the tie between a fat
 * tree's levels, all equally central: ranked from a leaf, the leaves
 * still go up through every spine or core to reach each other, so routes
 * to CAs stay shortest and spread, while a spine as the only root would
 * draw every route through itself.
 */
static void
roots_auto(struct updn *u)
{
	uint32_t *ecc, *best, c, sw, b;
	uint8_t *has_root;
	int better;

	best = routing_calloc(u->ncomp, sizeof(*best));
	has_root = routing_calloc(u->ncomp, 1);
	for (sw = 0; sw < u->nsw; sw++)
		has_root[u->comp[sw]] |= u->root[sw];
	for (c = 0; c < u->ncomp && has_root[c]; c++)
		;
	if (c == u->ncomp) {
		free(best);
		free(has_root);
		return;         /* all given */
	}
	for (c = 0; c < u->ncomp; c++)
		best[c] = UINT32_MAX;
	ecc = eccentricities(u);
	for (sw = 0; sw < u->nsw; sw++) {
		c = u->comp[sw];
		if (has_root[c])
			continue;
		if ((b = best[c]) == UINT32_MAX) {
			best[c] = sw;
			continue;
		}
		if (ecc[sw] != ecc[b])
			better = ecc[sw] < ecc[b];
		else if (u->cas[sw] != u->cas[b])
			better = u->cas[sw] > u->cas[b];
		else if (degree(u, sw) != degree(u, b))
			better = degree(u, sw) > degree(u, b);
		else
			better = sw_guid(u, sw) < sw_guid(u, b);
		if (better)
			best[c] = sw;
	}
	for (c = 0; c < u->ncomp; c++)
		if (best[c] != UINT32_MAX)
			u->root[best[c]] = 1;
	free(ecc);
	free(best);
	free(has_root);
}

/*
 * Mark the roots given as GUIDs; -1 with the offending GUIDs in why when
 * some name no switch of f.
 */
static int
roots_given(struct updn *u, char *why, size_t whylen)
{
	const struct routing_opts *o = u->o;
	uint32_t n, bad = 0;
	size_t i, len = 0;

	for (i = 0; i < o->nroots; i++) {
		n = fabric_node_by_guid(u->f, o->roots[i]);
		if (n != FABRIC_NONE && n < u->f->nnodes &&
		    u->f->nodes[n].type == NODE_SWITCH) {
			u->root[u->out->node_sw[n]] = 1;
			continue;
		}
		if (bad++ == 0)
			len = (size_t)snprintf(why, whylen, "root GUID");
		if (bad <= 4 && len < whylen)
			len += (size_t)snprintf(why + len, whylen - len,
			    "%s 0x%016" PRIx64, bad > 1 ? "," : "",
			    o->roots[i]);
	}
	if (bad == 0)
		return 0;
	if (len < whylen)
		snprintf(why + len, whylen - len, "%s%s", bad > 4 ? ", ..." : "",
		    bad > 1 ? ": not switches of this fabric" :
		    ": not a switch of this fabric");
	return -1;
}

/* Ranks from the roots, and the direction of every link. */
static void
orient(struct updn *u)
{
	uint32_t sw, e, v, nd = 0, nu = 0;
	uint64_t gs, gv;

	bfs(u, u->root, u->rank);
	for (sw = 0; sw < u->nsw; sw++) {
		u->dn_off[sw] = nd;
		u->up_off[sw] = nu;
		gs = sw_guid(u, sw);
		for (e = u->g.off[sw]; e < u->g.off[sw + 1]; e++) {
			v = u->g.sw[e];
			gv = sw_guid(u, v);
			u->adj_down[e] = u->rank[v] > u->rank[sw] ||
			    (u->rank[v] == u->rank[sw] && gv > gs);
			if (u->adj_down[e])
				u->dn_sw[nd++] = v;
			else
				u->up_sw[nu++] = v;
		}
	}
	u->dn_off[u->nsw] = nd;
	u->up_off[u->nsw] = nu;
}

/*
 * Labels towards every destination switch, 64 destinations per pass: a
 * switch joins the next level in state D when a link going down from it
 * leads to a D switch of the current level, in state U when a link going
 * up leads to any switch of it. A switch left without a label has no
 * legal path to that destination (possible only with several roots).
 */
static void
label(struct updn *u)
{
	uint64_t *seen, *fd, *fu, *nd, *nu, *tmp, acc_d, acc_u, any, bits;
	uint32_t base, nb, v, e, i, level;
	uint16_t *row;

	memset(u->label, 0xff, u->nsw * u->stride * sizeof(*u->label));
	seen = routing_calloc(u->nsw, sizeof(*seen));
	fd = routing_calloc(u->nsw, sizeof(*fd));
	fu = routing_calloc(u->nsw, sizeof(*fu));
	nd = routing_calloc(u->nsw, sizeof(*nd));
	nu = routing_calloc(u->nsw, sizeof(*nu));
	for (base = 0; base < u->nsw; base += 64) {
		nb = u->nsw - base < 64 ? u->nsw - base : 64;
		memset(seen, 0, u->nsw * sizeof(*seen));
		memset(fd, 0, u->nsw * sizeof(*fd));
		memset(fu, 0, u->nsw * sizeof(*fu));
		for (i = 0; i < nb; i++) {
			seen[base + i] = fd[base + i] = 1ULL << i;
			u->label[(base + i) * u->stride + base + i] = 0;
		}
		for (level = 1, any = 1; any != 0; level++) {
			any = 0;
			for (v = 0; v < u->nsw; v++) {
				acc_d = acc_u = 0;
				for (e = u->dn_off[v]; e < u->dn_off[v + 1]; e++)
					acc_d |= fd[u->dn_sw[e]];
				for (e = u->up_off[v]; e < u->up_off[v + 1]; e++)
					acc_u |= fd[u->up_sw[e]] | fu[u->up_sw[e]];
				nd[v] = acc_d & ~seen[v];
				nu[v] = acc_u & ~seen[v] & ~nd[v];
				any |= nd[v] | nu[v];
			}
			for (v = 0; any != 0 && v < u->nsw; v++) {
				seen[v] |= nd[v] | nu[v];
				row = u->label + v * u->stride + base;
				for (bits = nd[v]; bits != 0; bits &= bits - 1)
					row[__builtin_ctzll(bits)] =
					    (uint16_t)(2 * level);
				for (bits = nu[v]; bits != 0; bits &= bits - 1)
					row[__builtin_ctzll(bits)] =
					    (uint16_t)(2 * level + 1);
			}
			tmp = fd;
			fd = nd;
			nd = tmp;
			tmp = fu;
			fu = nu;
			nu = tmp;
		}
	}
	free(seen);
	free(fd);
	free(fu);
	free(nd);
	free(nu);
}

/*
 * Give the k LIDs in lids, one by one, the candidate port with the fewest
 * LIDs so far (cnt), ties to the lowest port. Done in rounds over the
 * least-loaded candidates, which is the same choice without a scan per LID;
 * once the candidates are level the rounds are plain turns, dealt without
 * looking at the counts.
 */
static void
spread(uint8_t *row, uint32_t *cnt, const uint8_t *cand, unsigned c,
    const uint16_t *lids, uint32_t k)
{
	uint32_t j = 0, low, high, left;
	unsigned i;

	while (j < k) {
		low = UINT32_MAX;
		high = 0;
		for (i = 0; i < c; i++) {
			if (cnt[cand[i]] < low)
				low = cnt[cand[i]];
			if (cnt[cand[i]] > high)
				high = cnt[cand[i]];
		}
		if (low == high)
			break;
		for (i = 0; i < c && j < k; i++)
			if (cnt[cand[i]] == low) {
				row[lids[j++]] = cand[i];
				cnt[cand[i]]++;
			}
	}
	left = k - j;
	for (i = 0; j < k; j++) {
		row[lids[j]] = cand[i];
		if (++i == c)
			i = 0;
	}
	for (i = 0; i < c; i++)
		cnt[cand[i]] += left / c + (i < left % c);
}

/* plane[t] |= bit where hv[t] (| 1 when up) equals want[t]. */
static void
mark(uint16_t *plane, const uint16_t *hv, const uint16_t *want, size_t n,
    uint16_t bit, int up)
{
	const vlabel ones = (vlabel){ 0 } + 1, b = (vlabel){ 0 } + bit;
	vlabel h, w, p;
	size_t t;

	for (t = 0; t < n; t += VLANES) {
		memcpy(&h, hv + t, sizeof(h));
		memcpy(&w, want + t, sizeof(w));
		memcpy(&p, plane + t, sizeof(p));
		if (up)
			h |= ones;
		p |= (vlabel)(h == w) & b;
		memcpy(plane + t, &p, sizeof(p));
	}
}

/*
 * Candidate planes of switch sw: bit b of plane[g][t] is set when
 * neighbour entry GROUP * g + b is a legal next hop one step nearer to
 * switch t. Down neighbours must hold exactly own - 2 (a D label), which
 * only a D switch asks for; up neighbours own - 2 in either state, which
 * only a U switch asks for.
 */
static void
build_planes(struct updn *u, struct scratch *x, uint32_t sw)
{
	const uint16_t *own = u->label + sw * u->stride;
	uint32_t first = u->g.off[sw], deg = u->g.off[sw + 1] - first, e;
	uint16_t l;
	size_t t;

	x->groups = (deg + GROUP - 1) / GROUP;
	for (t = 0; t < u->stride; t++) {
		l = own[t];
		x->want_dn[t] = x->want_up[t] = LABEL_NEVER;
		if (l == LABEL_NONE || l == 0)
			continue;
		if (l & 1)
			x->want_up[t] = (uint16_t)(l - 2);
		else
			x->want_dn[t] = (uint16_t)(l - 2);
	}
	memset(x->plane, 0, x->groups * u->stride * sizeof(*x->plane));
	for (e = 0; e < deg; e++)
		mark(x->plane + (e / GROUP) * u->stride,
		    u->label + u->g.sw[first + e] * u->stride,
		    u->adj_down[first + e] ? x->want_dn : x->want_up,
		    u->stride, (uint16_t)(1u << (e % GROUP)),
		    !u->adj_down[first + e]);
}

/* Candidate ports (in port order) of switch sw towards t. */
static unsigned
candidates(const struct updn *u, struct scratch *x, uint32_t sw, uint32_t t)
{
	uint32_t first = u->g.off[sw];
	unsigned g, bits, c = 0;

	for (g = 0; g < x->groups; g++)
		for (bits = x->plane[g * u->stride + t]; bits != 0;
		    bits &= bits - 1)
			x->cand[c++] = u->g.port[first + GROUP * g +
			    (unsigned)__builtin_ctz(bits)];
	return c;
}

static int
same_choice(const struct updn *u, const struct scratch *x, uint32_t a,
    uint32_t b)
{
	unsigned g;

	for (g = 0; g < x->groups; g++)
		if (x->plane[g * u->stride + a] != x->plane[g * u->stride + b])
			return 0;
	return 1;
}

/*
 * Keep the previous table's port for the LIDs of t where it is still a
 * candidate; the others are set to LFT_NO_ROUTE for spreading. Returns
 * how many are left.
 */
static uint32_t
keep_prev(const struct updn *u, const struct scratch *x, unsigned c,
    uint32_t t, uint8_t *row, uint32_t *cnt, const uint8_t *prev,
    uint16_t prev_max)
{
	uint64_t ok[4] = { 0, 0, 0, 0 };
	uint32_t j, left = 0;
	uint16_t lid;
	uint8_t p;
	unsigned i;

	for (i = 0; i < c; i++)
		ok[x->cand[i] >> 6] |= 1ULL << (x->cand[i] & 63);
	for (j = u->g.dst_off[t]; j < u->g.dst_off[t + 1]; j++) {
		lid = u->g.dst_lid[j];
		p = lid <= prev_max ? prev[lid] : LFT_NO_ROUTE;
		if (p != LFT_NO_ROUTE && (ok[p >> 6] >> (p & 63) & 1)) {
			row[lid] = p;
			cnt[p]++;
		} else {
			row[lid] = LFT_NO_ROUTE;
			left++;
		}
	}
	return left;
}

/*
 * Fill the table of switch sw. Destinations with a single candidate port
 * go first, and LIDs that can stay where the previous tables had them,
 * so that the free choices that follow can even out around them;
 * consecutive destination switches with the same candidate ports are then
 * spread as one run of LIDs.
 */
static void
fill_row(struct updn *u, struct scratch *x, uint32_t sw)
{
	const uint16_t *own = u->label + sw * u->stride;
	uint8_t *row = lft_row(u->out, sw);
	uint32_t cnt[256], t, j, i, k, n, nd = 0, nl;
	const uint8_t *prev;
	uint16_t prev_max = 0, lid;
	unsigned c;

	memset(cnt, 0, sizeof(cnt));
	prev = routing_prev_row(u->o, sw_guid(u, sw), &prev_max);
	build_planes(u, x, sw);
	for (t = 0; t < u->nsw; t++) {
		if ((n = u->g.dst_off[t + 1] - u->g.dst_off[t]) == 0)
			continue;
		if (t == sw) {
			for (j = u->g.dst_off[t]; j < u->g.dst_off[t + 1]; j++)
				row[u->g.dst_lid[j]] = u->g.dst_port[j];
			continue;
		}
		if (own[t] == LABEL_NONE)
			continue;
		if ((c = candidates(u, x, sw, t)) == 0)
			fatalx("updn: switch %u has no next hop to switch %u",
			    sw, t);
		if (c > 1 && (prev == NULL ||
		    keep_prev(u, x, c, t, row, cnt, prev, prev_max) > 0)) {
			x->defer[nd++] = t;
			continue;
		}
		if (c > 1)
			continue;       /* all kept */
		for (j = u->g.dst_off[t]; j < u->g.dst_off[t + 1]; j++)
			row[u->g.dst_lid[j]] = x->cand[0];
		cnt[x->cand[0]] += n;
	}
	for (i = 0; i < nd; i = k) {
		nl = 0;
		for (k = i; k < nd && same_choice(u, x, x->defer[i],
		    x->defer[k]); k++) {
			t = x->defer[k];
			for (j = u->g.dst_off[t]; j < u->g.dst_off[t + 1]; j++) {
				lid = u->g.dst_lid[j];
				if (prev == NULL || row[lid] == LFT_NO_ROUTE)
					x->lids[nl++] = lid;
			}
		}
		c = candidates(u, x, sw, x->defer[i]);
		spread(row, cnt, x->cand, c, x->lids, nl);
	}
}

static void
cleanup(struct updn *u)
{
	routing_graph_free(&u->g);
	free(u->adj_down);
	free(u->dn_off);
	free(u->dn_sw);
	free(u->up_off);
	free(u->up_sw);
	free(u->cas);
	free(u->comp);
	free(u->root);
	free(u->rank);
	free(u->label);
}

static int
route(const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    char *why, size_t whylen)
{
	struct updn u;
	struct scratch x;
	uint32_t sw;

	if (out->nsw == 0) {
		snprintf(why, whylen, "no switch in the fabric, nothing to route");
		return -1;
	}
	if (out->nsw > UPDN_MAX_SW) {
		snprintf(why, whylen, "%u switches, more than the %u it can rank",
		    out->nsw, UPDN_MAX_SW);
		return -1;
	}
	memset(&u, 0, sizeof(u));
	u.f = f;
	u.o = o;
	u.out = out;
	u.nsw = out->nsw;
	u.stride = ((size_t)u.nsw + VLANES - 1) & ~(size_t)(VLANES - 1);
	u.root = routing_calloc(u.nsw, 1);
	if (roots_given(&u, why, whylen) == -1) {
		free(u.root);
		return -1;
	}
	build_adj(&u);
	build_dests(&u);
	components(&u);
	roots_auto(&u);
	u.rank = routing_calloc(u.nsw, sizeof(*u.rank));
	u.label = routing_calloc(u.nsw * u.stride, sizeof(*u.label));
	orient(&u);
	label(&u);

	memset(&x, 0, sizeof(x));
	x.plane = routing_calloc(MAX_GROUPS * u.stride, sizeof(*x.plane));
	x.want_dn = routing_calloc(u.stride, sizeof(*x.want_dn));
	x.want_up = routing_calloc(u.stride, sizeof(*x.want_up));
	x.defer = routing_calloc(u.nsw, sizeof(*x.defer));
	x.lids = routing_calloc(u.g.dst_off[u.nsw], sizeof(*x.lids));
	for (sw = 0; sw < u.nsw; sw++)
		fill_row(&u, &x, sw);
	free(x.plane);
	free(x.want_dn);
	free(x.want_up);
	free(x.defer);
	free(x.lids);
	cleanup(&u);
	return 0;
}

const struct routing_engine re_updn = {
	.name = "updn",
	.route = route,
	.deadlock_free = true,
};
