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

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"
#include "routing/routing.h"

/* label = 2 * legal distance + (1 if the route first goes up) */
#define LABEL_NONE      0xFFFF          /* not reached */
#define LABEL_NEVER     0xFFFE          /* matches no label */
#define UPDN_MAX_SW     32767           /* labels fit in 16 bits */

typedef uint16_t vlabel __attribute__((vector_size(16)));
typedef uint8_t vmark __attribute__((vector_size(8)));
#define VLANES          8

struct updn {
	const struct fabric *f;
	const struct routing_opts *o;
	struct lft_set *out;
	uint32_t nsw;
	size_t stride;          /* nsw rounded up to VLANES */
	struct kernel_graph g;  /* usable links and destinations */
	uint8_t *adj_down;      /* 1: the link goes down from this side */
	/* the same links split by direction, for the BFS */
	uint32_t *dn_off, *dn_sw, *up_off, *up_sw;
	uint32_t *cas;          /* [nsw] CA and router ports cabled to it */
	uint32_t *comp;         /* [nsw] connected piece */
	uint32_t ncomp;
	uint8_t *root;          /* [nsw] */
	uint32_t *rank;         /* [nsw] */
	uint16_t *label;        /* [nsw][stride]: row u, column t */
	struct kernel_row x;    /* fill_row()'s work space */
	uint16_t *want_dn;      /* [stride] label a down neighbour must have */
	uint16_t *want_up;      /* [stride] label | 1 an up neighbour must have */
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

	kernel_graph_build(u->f, u->out, &u->g);
	total = u->g.off[u->nsw];
	u->adj_down = xcalloc(total, sizeof(*u->adj_down));
	u->dn_off = xcalloc(u->nsw + 1, sizeof(*u->dn_off));
	u->dn_sw = xcalloc(total, sizeof(*u->dn_sw));
	u->up_off = xcalloc(u->nsw + 1, sizeof(*u->up_off));
	u->up_sw = xcalloc(total, sizeof(*u->up_sw));
}

/* The CA and router ports cabled to every switch. */
static void
build_dests(struct updn *u)
{
	const struct fabric *f = u->f;
	uint32_t p, sw;
	uint8_t port;

	u->cas = xcalloc(u->nsw, sizeof(*u->cas));
	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    fabric_port_is_endport(f, p) &&
		    (sw = kernel_attach(f, u->out, p, &port)) != FABRIC_NONE)
			u->cas[sw]++;
}

static void
components(struct updn *u)
{
	uint32_t *queue = xcalloc(u->nsw, sizeof(*queue));
	uint32_t head, tail, sw, s, e, v;

	u->comp = xcalloc(u->nsw, sizeof(*u->comp));
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
 * Eccentricity of every switch within its piece, 64 BFSes at a time.
 */
static uint32_t *
eccentricities(const struct updn *u)
{
	struct kernel_bfs64 b;
	uint32_t *ecc, base, level;
	uint64_t any, bits;

	ecc = xcalloc(u->nsw, sizeof(*ecc));
	kernel_bfs64_init(&b, u->nsw);
	for (base = 0; base < u->nsw; base += 64) {
		kernel_bfs64_start(&b, base,
		    u->nsw - base < 64 ? u->nsw - base : 64);
		/* the sources that still reach further */
		for (level = 1; (any = kernel_bfs64_step(&b, &u->g)) != 0;
		    level++)
			for (bits = any; bits != 0; bits &= bits - 1)
				ecc[base + (uint32_t)__builtin_ctzll(bits)] =
				    level;
	}
	kernel_bfs64_fini(&b);
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

	best = xcalloc(u->ncomp, sizeof(*best));
	has_root = xcalloc(u->ncomp, 1);
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
	uint32_t *src = xcalloc(u->nsw, sizeof(*src));
	uint32_t *queue = xcalloc(u->nsw, sizeof(*queue));
	uint32_t sw, e, v, nd = 0, nu = 0, nsrc = 0;
	uint64_t gs, gv;

	for (sw = 0; sw < u->nsw; sw++)
		if (u->root[sw])
			src[nsrc++] = sw;
	kernel_bfs(&u->g, src, nsrc, u->rank, queue);
	free(src);
	free(queue);
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
	seen = xcalloc(u->nsw, sizeof(*seen));
	fd = xcalloc(u->nsw, sizeof(*fd));
	fu = xcalloc(u->nsw, sizeof(*fu));
	nd = xcalloc(u->nsw, sizeof(*nd));
	nu = xcalloc(u->nsw, sizeof(*nu));
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

/* plane[t] |= bit where hv[t] (| 1 when up) equals want[t]. */
static void
mark(uint8_t *plane, const uint16_t *hv, const uint16_t *want, size_t n,
    uint8_t bit, int up)
{
	const vlabel ones = (vlabel){ 0 } + 1;
	const vmark b = (vmark){ 0 } + bit;
	vlabel h, w;
	vmark p;
	size_t t;

	for (t = 0; t < n; t += VLANES) {
		memcpy(&h, hv + t, sizeof(h));
		memcpy(&w, want + t, sizeof(w));
		memcpy(&p, plane + t, sizeof(p));
		if (up)
			h |= ones;
		p |= __builtin_convertvector(h == w, vmark) & b;
		memcpy(plane + t, &p, sizeof(p));
	}
}

/*
 * Candidate planes of switch sw: a neighbour is a candidate towards t
 * when it is a legal next hop one step nearer to t. Down neighbours must
 * hold exactly own - 2 (a D label), which only a D switch asks for; up
 * neighbours own - 2 in either state, which only a U switch asks for.
 */
static void
build_planes(struct updn *u, uint32_t sw)
{
	const uint16_t *own = u->label + sw * u->stride;
	uint32_t first = u->g.off[sw], deg = u->g.off[sw + 1] - first, e;
	uint8_t *planes = kernel_row_planes(&u->x, &u->g, sw);
	uint16_t l;
	size_t t;

	for (t = 0; t < u->stride; t++) {
		l = own[t];
		u->want_dn[t] = u->want_up[t] = LABEL_NEVER;
		if (l == LABEL_NONE || l == 0)
			continue;
		if (l & 1)
			u->want_up[t] = (uint16_t)(l - 2);
		else
			u->want_dn[t] = (uint16_t)(l - 2);
	}
	for (e = 0; e < deg; e++)
		mark(planes + (e / 8) * u->stride,
		    u->label + u->g.sw[first + e] * u->stride,
		    u->adj_down[first + e] ? u->want_dn : u->want_up,
		    u->stride, (uint8_t)(1u << (e % 8)),
		    !u->adj_down[first + e]);
}

/*
 * Fill the table of switch sw; the LIDs that can stay where the previous
 * tables had them do. Every destination switch with a label has a legal
 * next hop: those without one are exactly the unlabelled.
 */
static void
fill_row(struct updn *u, uint32_t sw)
{
	const uint16_t *own = u->label + sw * u->stride;
	const uint8_t *prev;
	uint16_t prev_max = 0;
	uint32_t t, none = 0, lost;

	prev = kernel_prev_row(u->o->prev_fabric, u->o->prev, sw_guid(u, sw),
	    &prev_max);
	build_planes(u, sw);
	lost = kernel_fill_row(&u->g, &u->x, sw, lft_row(u->out, sw), prev,
	    prev_max);
	for (t = 0; t < u->nsw; t++)
		none += t != sw && own[t] == LABEL_NONE &&
		    u->g.dst_off[t + 1] > u->g.dst_off[t];
	if (lost != none)
		fatalx("updn: switch %u: %u destination switches without a "
		    "next hop, %u without a label", sw, lost, none);
}

static void
cleanup(struct updn *u)
{
	kernel_graph_free(&u->g);
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

/* u for f's switches as s numbers them, roots chosen, ranked and links
 * oriented: what route() and order() share. Returns 0, or -1 with why. */
static int
rank_switches(struct updn *u, const struct fabric *f,
    const struct routing_opts *o, struct lft_set *s, char *why, size_t whylen)
{
	memset(u, 0, sizeof(*u));
	u->f = f;
	u->o = o;
	u->out = s;
	u->nsw = s->nsw;
	u->stride = ((size_t)u->nsw + VLANES - 1) & ~(size_t)(VLANES - 1);
	u->root = xcalloc(u->nsw, 1);
	if (roots_given(u, why, whylen) == -1) {
		free(u->root);
		return -1;
	}
	build_adj(u);
	build_dests(u);
	components(u);
	roots_auto(u);
	u->rank = xcalloc(u->nsw, sizeof(*u->rank));
	orient(u);
	return 0;
}

static int
route(const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    char *why, size_t whylen)
{
	struct updn u;
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
	if (rank_switches(&u, f, o, out, why, whylen) < 0)
		return -1;
	u.label = xcalloc(u.nsw * u.stride, sizeof(*u.label));
	label(&u);

	kernel_row_init(&u.x, &u.g, u.stride);
	u.want_dn = xcalloc(u.stride, sizeof(*u.want_dn));
	u.want_up = xcalloc(u.stride, sizeof(*u.want_up));
	for (sw = 0; sw < u.nsw; sw++)
		fill_row(&u, sw);
	free(u.want_dn);
	free(u.want_up);
	kernel_row_fini(&u.x);
	cleanup(&u);
	return 0;
}

struct upkey {
	uint32_t rank;
	uint64_t guid;
	uint32_t sw;
};

/* Farther from a root first; on a tie the higher GUID first (a link goes
 * up towards the lower GUID). */
static int
upkey_cmp(const void *a, const void *b)
{
	const struct upkey *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid > y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* The order route() ranks s's switches in (routing_engine.order). */
static int
order(const struct fabric *f, const struct routing_opts *o,
    const struct lft_set *s, uint32_t *up)
{
	struct updn u;
	struct upkey *k;
	char why[256];
	uint32_t sw;

	if (s->nsw == 0 || s->nsw > UPDN_MAX_SW ||
	    rank_switches(&u, f, o, (struct lft_set *)s /* read only */, why,
	    sizeof(why)) < 0)
		return -1;
	k = xcalloc(u.nsw, sizeof(*k));
	for (sw = 0; sw < u.nsw; sw++) {
		k[sw].rank = u.rank[sw];
		k[sw].guid = sw_guid(&u, sw);
		k[sw].sw = sw;
	}
	qsort(k, u.nsw, sizeof(*k), upkey_cmp);
	for (sw = 0; sw < u.nsw; sw++)
		up[k[sw].sw] = sw;
	free(k);
	cleanup(&u);
	return 0;
}

const struct routing_engine re_updn = {
	.name = "updn",
	.route = route,
	.order = order,
	.deadlock_free = true,
};
