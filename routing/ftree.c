/*
 * ftree: routing for fat trees.
 *
 * Ranking. Switches are ranked from the roots (rank 0) down. The roots are
 * the configured root GUIDs, or else the switches farthest from the leaves:
 * the configured leaf GUIDs, or else the switches with CAs. When switches
 * with CAs sit on both sides of the (bipartite) switch graph, only the side
 * with more CA ports counts as leaves, so that CAs hung on upper switches do
 * not pass for leaves. A fat tree has every cable between adjacent ranks;
 * anything else is refused.
 *
 * Main paths. Each destination LID x on switch t gets P(x), a chain of up
 * links from t to a root, each link the one fewest earlier chains use (so
 * destinations spread evenly over the upper links), or the one the previous
 * tables show, when they show one still there.
 *
 * Routes. "Above t" means t itself or one of its ancestors.
 *  - A switch above t goes down, along P(x) when it is on it.
 *  - Another switch goes up to the node of P(x) at the meeting rank (the
 *    lowest rank at which it and t have a common ancestor) when that node
 *    is above it, so that traffic to x converges on P(x) and comes down one
 *    path; else up through any parent that keeps the meeting rank, least
 *    loaded port first. These routes climb then descend, and are the
 *    shortest such routes; on a complete tree they are shortest.
 *  - A switch with no ancestor in common with t (roots among themselves,
 *    switches of different planes of a three-level tree, CAs on upper
 *    switches seen from other upper switches) has no such route. It follows
 *    its route to one bottom switch, the hub, until it meets a switch that
 *    has one.
 * Free choices prefer the previous tables' port, so that after a change
 * few LFT blocks differ.
 *
 * Deadlock freedom. Routes that climb then descend have channel dependencies
 * without a cycle. Routes through the hub turn from down to up only at
 * switches above the hub, arriving from a switch above the hub; when every
 * switch above the hub has a single child above it (k-ary n-trees and what
 * remains of them after failures), a chain of dependencies from such a turn
 * back to another would need a U-turn, which no route makes. So on such
 * trees, when every root is above the hub, all routes are deadlock-free.
 * Damaged large trees may leave some root above no candidate hub: routes
 * between it and switches that share no ancestor with it take a shortest
 * path and may close a cycle. Those start at a switch or end at one (traffic
 * switches send, or management traffic to them); CA-to-CA routes never
 * need them, and when they would, ftree refuses.
 *
 * Cost. Meeting ranks of every pair of switches, computed once per set of
 * parents (a whole pod shares one); a walk up from each switch; then each
 * switch's table in one pass, row by row: forced choices first, free ones
 * spread over the least loaded ports after.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "routing/kernel.h"
#include "routing/routing.h"

#define NONE            UINT32_MAX
#define GNONE           0xFF    /* no group */
#define RANK_MAX        200     /* ranks fit a byte, with room for + 1 */
#define WITNESS_TRIES   4

struct ft {
	const struct fabric *f;
	const struct routing_opts *o;
	struct lft_set *out;
	uint32_t nsw;
	struct kernel_graph g;  /* usable links and destinations */
	char *why;
	size_t whylen;

	/* Neighbour groups: the usable cables from a switch to one other
	 * switch. After ranking, a switch's up groups come first. */
	uint32_t *g_off;        /* [nsw + 1] groups of each switch */
	uint32_t *g_sw;         /* [ng] neighbour switch */
	uint32_t *g_rev;        /* [ng] the neighbour's group back */
	uint32_t *g_poff;       /* [ng + 1] ports of each group */
	uint8_t *g_port;        /* local port numbers */
	uint8_t *nup;           /* [nsw] up groups */

	uint8_t *rank;          /* [nsw] 0: root */
	uint32_t h1;            /* highest rank + 1 */
	uint32_t *order;        /* [nsw] switches by rank, roots first */

	/* destination LIDs by the switch they hang off */
	uint32_t *ca_off;       /* [nsw + 1] CA (and router) LIDs */
	uint16_t *ca_lid;
	uint8_t *ca_port;
	uint16_t *sw_lid;       /* [nsw] the switch's own LID, 0: none */
	uint32_t *hosts;        /* switches with CA LIDs */
	uint32_t nhosts;

	/* [nsw * nsw] meeting rank + 1 of two switches, 0: no common
	 * ancestor (symmetric) */
	uint8_t *meet;
	/* [nsw * nsw] [s][t]: when s is above t, s's group towards t */
	uint8_t *down;

	/* main paths: [lid * h1 + r] node at rank r, and its port down */
	uint32_t *pnode;
	uint8_t *pport;

	uint32_t hub;           /* NONE: no hub */
	uint8_t *hubok;         /* [nsw] has an up-down route to the hub */
	uint8_t *fb;            /* [nsw * nsw] last-resort ports, or NULL */

	const uint8_t **prev;   /* [nsw] previous rows, NULL: none */
	uint16_t *prev_max;

	uint32_t *mark;         /* [nsw] visit marks */
	uint32_t mark_now;
	uint32_t *queue;        /* [nsw] */
};

struct item {
	const uint8_t *ports;   /* candidate ports */
	uint16_t lid;
	uint8_t n;
};

/* Work space of fill_row(), reused for every switch. */
struct scratch {
	/* [nsw] towards each switch above this one: the port when one cable
	 * leads there, 0 when several do (then see upg), LFT_NO_ROUTE when
	 * the switch is not above */
	uint8_t *upp;
	uint8_t *upg;           /* [nsw] the group towards it */
	/* [nsw] 1 when every parent of this switch meets that switch at
	 * the same rank as this one (any parent will do) */
	uint8_t *allok;
	uint32_t allok_for;     /* the switch allok is for */
	const uint8_t *allup;   /* this switch's up ports */
	uint8_t nallup;
	uint8_t upmask[256];    /* 1 for its up ports */
	struct item *items;     /* deferred free choices */
	uint32_t nitems;
	uint16_t *anyup;        /* deferred LIDs any up port will do for */
	uint32_t nanyup;
	uint16_t *run;          /* LIDs of one run of items */
	uint8_t *pool;          /* fallback candidate sets */
	size_t npool;
	uint32_t fb_t;          /* switch the current fallback set is for */
	const uint8_t *fb_ports;
	uint8_t fb_n;
	uint8_t hub_port;
	uint32_t cnt[256];
};

static int refuse(struct ft *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
refuse(struct ft *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, t->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t
guid(const struct ft *t, uint32_t sw)
{
	return t->f->nodes[t->out->sw_node[sw]].guid;
}

static uint32_t
fresh(struct ft *t)
{
	if (++t->mark_now == 0) {
		memset(t->mark, 0, t->nsw * sizeof(*t->mark));
		t->mark_now = 1;
	}
	return t->mark_now;
}

static inline int
in_ports(uint8_t port, const uint8_t *ports, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (ports[i] == port)
			return 1;
	return 0;
}

static void
build_groups(struct ft *t)
{
	uint32_t s, total = t->g.off[t->nsw], ng = 0, np = 0, i, n, links, g;
	uint32_t *seen, *gix, nbs[256], cnt[256], gnb[256];
	uint8_t ports[256];

	t->g_off = xcalloc(t->nsw + 1, sizeof(*t->g_off));
	t->g_sw = xcalloc(total, sizeof(*t->g_sw));
	t->g_rev = xcalloc(total, sizeof(*t->g_rev));
	t->g_poff = xcalloc(total + 1, sizeof(*t->g_poff));
	t->g_port = xcalloc(total, 1);
	seen = xcalloc(t->nsw, sizeof(*seen));
	gix = xcalloc(t->nsw, sizeof(*gix));
	for (s = 0; s < t->nsw; s++) {
		links = 0;
		for (uint32_t e = t->g.off[s]; e < t->g.off[s + 1]; e++) {
			nbs[links] = t->g.sw[e];
			ports[links++] = t->g.port[e];
		}
		t->g_off[s] = ng;
		for (i = 0, n = 0; i < links; i++) {
			if (seen[nbs[i]] != s + 1) {
				seen[nbs[i]] = s + 1;
				gix[nbs[i]] = n;
				gnb[n] = nbs[i];
				cnt[n++] = 0;
			}
			cnt[gix[nbs[i]]]++;
		}
		for (i = 0; i < n; i++) {
			t->g_sw[ng + i] = gnb[i];
			t->g_poff[ng + i] = np;
			np += cnt[i];
			cnt[i] = 0;
		}
		for (i = 0; i < links; i++) {
			g = gix[nbs[i]];
			t->g_port[t->g_poff[ng + g] + cnt[g]++] = ports[i];
		}
		ng += n;
	}
	t->g_off[t->nsw] = ng;
	t->g_poff[ng] = np;
	free(seen);
	free(gix);
}

/*
 * Put each switch's up groups first (ranks are known now) and pair every
 * group with the neighbour's group back.
 */
static void
split_groups(struct ft *t)
{
	uint32_t ng = t->g_off[t->nsw], s, g, h, k, np = 0, pass, n;
	uint32_t *sw = xcalloc(ng, sizeof(*sw)), *poff;
	uint8_t *port = xcalloc(t->g_poff[ng], 1);

	poff = xcalloc(ng + 1, sizeof(*poff));
	t->nup = xcalloc(t->nsw, 1);
	for (s = 0, k = 0; s < t->nsw; s++)
		for (pass = 0; pass < 2; pass++)
			for (g = t->g_off[s]; g < t->g_off[s + 1]; g++) {
				if ((t->rank[t->g_sw[g]] < t->rank[s]) != (pass == 0))
					continue;
				if (pass == 0)
					t->nup[s]++;
				sw[k] = t->g_sw[g];
				poff[k++] = np;
				n = t->g_poff[g + 1] - t->g_poff[g];
				memcpy(port + np, t->g_port + t->g_poff[g], n);
				np += n;
			}
	poff[ng] = np;
	free(t->g_sw);
	free(t->g_poff);
	free(t->g_port);
	t->g_sw = sw;
	t->g_poff = poff;
	t->g_port = port;
	for (s = 0; s < t->nsw; s++)
		for (g = t->g_off[s]; g < t->g_off[s + 1]; g++) {
			n = t->g_sw[g];
			for (h = t->g_off[n]; h < t->g_off[n + 1]; h++)
				if (t->g_sw[h] == s)
					break;
			t->g_rev[g] = h;
		}
}

/* The kernel's destinations, with the switches' own LIDs (port 0) set
 * apart from those of the CAs that hang off them. */
static void
build_dests(struct ft *t)
{
	uint32_t sw, j, n = 0;

	t->sw_lid = xcalloc(t->nsw, sizeof(*t->sw_lid));
	t->ca_off = xcalloc(t->nsw + 1, sizeof(*t->ca_off));
	t->ca_lid = xcalloc(t->g.dst_off[t->nsw], sizeof(*t->ca_lid));
	t->ca_port = xcalloc(t->g.dst_off[t->nsw], 1);
	for (sw = 0; sw < t->nsw; sw++) {
		t->ca_off[sw] = n;
		for (j = t->g.dst_off[sw]; j < t->g.dst_off[sw + 1]; j++) {
			if (t->g.dst_port[j] == 0) {
				t->sw_lid[sw] = t->g.dst_lid[j];
				continue;
			}
			t->ca_lid[n] = t->g.dst_lid[j];
			t->ca_port[n++] = t->g.dst_port[j];
		}
		t->nhosts += t->ca_off[sw] < n;
	}
	t->ca_off[t->nsw] = n;
	t->hosts = xcalloc(t->nhosts, sizeof(*t->hosts));
	for (sw = 0, t->nhosts = 0; sw < t->nsw; sw++)
		if (t->ca_off[sw + 1] > t->ca_off[sw])
			t->hosts[t->nhosts++] = sw;
}

/* Configured GUIDs that name switches of this fabric, once each. */
static uint32_t
given(struct ft *t, const uint64_t *guids, size_t n, uint32_t *out)
{
	uint32_t mk = fresh(t), k = 0, node, sw;
	size_t i;

	for (i = 0; i < n; i++) {
		node = fabric_node_by_guid(t->f, guids[i]);
		if (node == FABRIC_NONE || t->f->nodes[node].type != NODE_SWITCH)
			continue;
		sw = t->out->node_sw[node];
		if (t->mark[sw] != mk) {
			t->mark[sw] = mk;
			out[k++] = sw;
		}
	}
	return k;
}

/*
 * Switches with CAs; on a bipartite switch graph with such switches on
 * both sides, those of the side with more CA ports (a tie: the side of the
 * first one).
 */
static uint32_t
ca_leaves(struct ft *t, uint32_t *out)
{
	uint8_t *color = xcalloc(t->nsw, 1);
	uint64_t w[3] = { 0, 0, 0 };
	uint32_t s, u, g, v, head, tail, k = 0, first = NONE;
	int bipartite = 1;
	uint8_t pick = 0;

	for (s = 0; s < t->nsw; s++) {
		if (color[s] != 0)
			continue;
		color[s] = 1;
		head = tail = 0;
		t->queue[tail++] = s;
		while (head < tail) {
			u = t->queue[head++];
			for (g = t->g_off[u]; g < t->g_off[u + 1]; g++) {
				v = t->g_sw[g];
				if (color[v] == 0) {
					color[v] = (uint8_t)(3 - color[u]);
					t->queue[tail++] = v;
				} else if (color[v] == color[u])
					bipartite = 0;
			}
		}
	}
	for (s = 0; s < t->nsw; s++) {
		if (t->ca_off[s + 1] == t->ca_off[s])
			continue;
		w[color[s]] += t->ca_off[s + 1] - t->ca_off[s];
		if (first == NONE)
			first = s;
	}
	if (bipartite && first != NONE)
		pick = w[1] > w[2] ? 1 : w[2] > w[1] ? 2 : color[first];
	for (s = 0; s < t->nsw; s++)
		if (t->ca_off[s + 1] > t->ca_off[s] &&
		    (pick == 0 || color[s] == pick))
			out[k++] = s;
	free(color);
	return k;
}

static int
rank_switches(struct ft *t)
{
	const struct routing_opts *o = t->o;
	uint32_t *src = xcalloc(t->nsw, sizeof(*src)), nsrc, s, g, maxh;
	uint32_t *dist = xcalloc(t->nsw, sizeof(*dist)), v;
	int rc = -1;

	t->rank = xcalloc(t->nsw, 1);
	src[0] = 0;
	kernel_bfs(&t->g, src, 1, dist, t->queue);
	for (s = 0; s < t->nsw; s++)
		if (dist[s] == NONE) {
			refuse(t, "switches 0x%016" PRIx64 " and 0x%016" PRIx64
			    " are not connected", guid(t, 0), guid(t, s));
			goto out;
		}
	if (o->nroots > 0) {
		if ((nsrc = given(t, o->roots, o->nroots, src)) == 0) {
			refuse(t, "none of the %zu root GUIDs is a switch of "
			    "this fabric", o->nroots);
			goto out;
		}
	} else {
		if (o->nleaves > 0) {
			if ((nsrc = given(t, o->leaves, o->nleaves, src)) == 0) {
				refuse(t, "none of the %zu leaf GUIDs is a "
				    "switch of this fabric", o->nleaves);
				goto out;
			}
		} else if ((nsrc = ca_leaves(t, src)) == 0) {
			refuse(t, "no switch has a CA, so no leaves to rank "
			    "from (configure root or leaf GUIDs)");
			goto out;
		}
		/* the roots: the switches farthest from the leaves */
		kernel_bfs(&t->g, src, nsrc, dist, t->queue);
		for (s = 0, maxh = 0; s < t->nsw; s++)
			if (dist[s] != NONE && dist[s] > maxh)
				maxh = dist[s];
		for (s = 0, nsrc = 0; s < t->nsw; s++)
			if (dist[s] == maxh)
				src[nsrc++] = s;
	}
	kernel_bfs(&t->g, src, nsrc, dist, t->queue);
	for (s = 0; s < t->nsw; s++) {
		/* connected: every switch has a rank */
		if (dist[s] > RANK_MAX) {
			refuse(t, "switch 0x%016" PRIx64 " is %u switches below "
			    "the roots, deeper than any fat tree", guid(t, s),
			    dist[s]);
			goto out;
		}
		t->rank[s] = (uint8_t)dist[s];
		if (dist[s] + 1 > t->h1)
			t->h1 = dist[s] + 1;
	}
	/* breadth-first ranks never skip one: a bad cable joins equals */
	for (s = 0; s < t->nsw; s++)
		for (g = t->g_off[s]; g < t->g_off[s + 1]; g++) {
			v = t->g_sw[g];
			if (t->rank[v] == t->rank[s]) {
				refuse(t, "not a fat tree: switch 0x%016" PRIx64
				    " (rank %u) links to switch 0x%016" PRIx64
				    " of the same rank", guid(t, s), t->rank[s],
				    guid(t, v));
				goto out;
			}
		}
	rc = 0;
out:
	free(src);
	free(dist);
	return rc;
}

static void
order_by_rank(struct ft *t)
{
	uint32_t *start = xcalloc(t->h1 + 1, sizeof(*start)), s, r;

	t->order = xcalloc(t->nsw, sizeof(*t->order));
	for (s = 0; s < t->nsw; s++)
		start[t->rank[s] + 1]++;
	for (r = 0; r < t->h1; r++)
		start[r + 1] += start[r];
	for (s = 0; s < t->nsw; s++)
		t->order[start[t->rank[s]]++] = s;
	free(start);
}

/* The parents of s as a sorted list, into buf; returns how many. */
static uint32_t
parents(const struct ft *t, uint32_t s, uint32_t *buf)
{
	uint32_t n = t->nup[s], i, j, v;

	for (i = 0; i < n; i++) {
		v = t->g_sw[t->g_off[s] + i];
		for (j = i; j > 0 && buf[j - 1] > v; j--)
			buf[j] = buf[j - 1];
		buf[j] = v;
	}
	return n;
}

/* Mark the n switches of src and everything above them with a fresh mark;
 * they are left in t->queue, as many as returned. */
static uint32_t
mark_above(struct ft *t, const uint32_t *src, uint32_t n, uint32_t *mk)
{
	uint32_t head = 0, tail = 0, u, g, v, i;

	*mk = fresh(t);
	for (i = 0; i < n; i++)
		if (t->mark[src[i]] != *mk) {
			t->mark[src[i]] = *mk;
			t->queue[tail++] = src[i];
		}
	while (head < tail) {
		u = t->queue[head++];
		for (g = t->g_off[u]; g < t->g_off[u] + t->nup[u]; g++) {
			v = t->g_sw[g];
			if (t->mark[v] != *mk) {
				t->mark[v] = *mk;
				t->queue[tail++] = v;
			}
		}
	}
	return tail;
}

/*
 * Meeting ranks of the switches of one class (same parents) with every
 * switch, into val: what is above the parents is marked, then each switch,
 * roots first, takes the deepest mark among its own and its parents'.
 */
static void
class_meet(struct ft *t, uint32_t rep, uint8_t *val)
{
	uint32_t mk, g, i, s;
	uint8_t best;

	mark_above(t, t->g_sw + t->g_off[rep], t->nup[rep], &mk);
	for (i = 0; i < t->nsw; i++) {
		s = t->order[i];
		if (t->mark[s] == mk) {
			val[s] = (uint8_t)(t->rank[s] + 1);
			continue;
		}
		best = 0;
		for (g = t->g_off[s]; g < t->g_off[s] + t->nup[s]; g++)
			if (val[t->g_sw[g]] > best)
				best = val[t->g_sw[g]];
		val[s] = best;
	}
}

/* Everything below u (u included) meets u at u's rank. */
static void
below_meet(struct ft *t, uint32_t u, uint8_t *row)
{
	uint32_t mk = fresh(t), head = 0, tail = 0, c, g, v;
	uint8_t r = (uint8_t)(t->rank[u] + 1);

	t->mark[u] = mk;
	row[u] = r;
	t->queue[tail++] = u;
	while (head < tail) {
		c = t->queue[head++];
		for (g = t->g_off[c] + t->nup[c]; g < t->g_off[c + 1]; g++) {
			v = t->g_sw[g];
			if (t->mark[v] != mk) {
				t->mark[v] = mk;
				row[v] = r;
				t->queue[tail++] = v;
			}
		}
	}
}

static uint64_t
list_hash(const uint32_t *l, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ l[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static void
meet_rows(struct ft *t)
{
	size_t nsw = t->nsw;
	uint32_t *poff = xcalloc(nsw + 1, sizeof(*poff)), *par, *slot;
	uint32_t *cls = xcalloc(nsw, sizeof(*cls)), *head, *next, *tail;
	uint32_t hcap = 16, s, i, r, n, u;
	uint8_t *val = xcalloc(nsw, 1);

	for (s = 0; s < nsw; s++)
		poff[s + 1] = poff[s] + t->nup[s];
	par = xcalloc(poff[nsw], sizeof(*par));
	for (s = 0; s < nsw; s++)
		parents(t, s, par + poff[s]);
	while (hcap < 2 * nsw)
		hcap *= 2;
	slot = xcalloc(hcap, sizeof(*slot));
	for (i = 0; i < hcap; i++)
		slot[i] = NONE;
	/* classes: switches with the same parents */
	for (s = 0; s < nsw; s++) {
		n = poff[s + 1] - poff[s];
		i = (uint32_t)list_hash(par + poff[s], n) & (hcap - 1);
		for (;; i = (i + 1) & (hcap - 1)) {
			if ((r = slot[i]) == NONE) {
				slot[i] = cls[s] = s;
				break;
			}
			if (poff[r + 1] - poff[r] == n && memcmp(par + poff[r],
			    par + poff[s], n * sizeof(*par)) == 0) {
				cls[s] = r;
				break;
			}
		}
	}
	head = xcalloc(nsw, sizeof(*head));
	tail = xcalloc(nsw, sizeof(*tail));
	next = xcalloc(nsw, sizeof(*next));
	for (s = 0; s < nsw; s++)
		head[s] = tail[s] = next[s] = NONE;
	for (s = 0; s < nsw; s++) {
		r = cls[s];
		if (head[r] == NONE)
			head[r] = s;
		else
			next[tail[r]] = s;
		tail[r] = s;
	}
	t->meet = xcalloc(nsw * nsw, 1);
	for (r = 0; r < nsw; r++) {
		if (cls[r] != r)
			continue;
		class_meet(t, r, val);
		for (u = head[r]; u != NONE; u = next[u]) {
			memcpy(t->meet + u * nsw, val, nsw);
			below_meet(t, u, t->meet + u * nsw);
		}
	}
	free(poff);
	free(par);
	free(slot);
	free(cls);
	free(head);
	free(tail);
	free(next);
	free(val);
}

/* For each t, each switch above it: the group towards t (breadth-first up
 * from t, the first found). */
static void
down_rows(struct ft *t)
{
	size_t nsw = t->nsw;
	uint32_t tt, mk, head, tail, c, g, v;

	t->down = xcalloc(nsw * nsw, 1);
	memset(t->down, GNONE, nsw * nsw);
	for (tt = 0; tt < nsw; tt++) {
		mk = fresh(t);
		head = tail = 0;
		t->mark[tt] = mk;
		t->queue[tail++] = tt;
		while (head < tail) {
			c = t->queue[head++];
			for (g = t->g_off[c]; g < t->g_off[c] + t->nup[c]; g++) {
				v = t->g_sw[g];
				if (t->mark[v] == mk)
					continue;
				t->mark[v] = mk;
				t->down[v * nsw + tt] =
				    (uint8_t)(t->g_rev[g] - t->g_off[v]);
				t->queue[tail++] = v;
			}
		}
	}
}

/* 1 when every switch above s (s excluded) has one child above s. */
static int
single_children(struct ft *t, uint32_t s)
{
	uint32_t mk, n = mark_above(t, &s, 1, &mk), i, u, g, kids;

	for (i = 1; i < n; i++) {
		u = t->queue[i];
		kids = 0;
		for (g = t->g_off[u] + t->nup[u]; g < t->g_off[u + 1]; g++)
			if (t->mark[t->g_sw[g]] == mk)
				kids++;
		if (kids != 1)
			return 0;
	}
	return 1;
}

static uint32_t
coverage(const struct ft *t, uint32_t s)
{
	const uint8_t *row = t->meet + (size_t)s * t->nsw;
	uint32_t i, n = 0;

	for (i = 0; i < t->nsw; i++)
		n += row[i] != 0;
	return n;
}

/*
 * The deepest switch the previous tables take roots to on their way to
 * other roots, which is where they turned: the previous hub, or NONE.
 */
static uint32_t
prev_hub(struct ft *t)
{
	const struct fabric *f = t->f;
	uint32_t roots[16], nr = 0, i, u, dst, steps, best = NONE, p, q, node;
	uint16_t lid;
	uint8_t port;

	if (t->o->prev == NULL)
		return NONE;
	for (i = 0; i < t->nsw && t->rank[t->order[i]] == 0; i++)
		;
	if (i < 2)
		return NONE;
	/* pairs half the roots apart: in other planes, where there are any */
	nr = i < 16 ? i : 16;
	for (p = 0; p < nr; p++)
		roots[p] = t->order[p * i / nr];
	for (p = 0; p < nr; p++) {
		u = roots[p];
		dst = t->order[(p * i / nr + i / 2) % i];
		if (dst == u || (lid = t->sw_lid[dst]) == 0)
			continue;
		node = NONE;
		for (steps = 0; steps < 4 * t->h1 + 4; steps++) {
			if (t->prev[u] == NULL || lid > t->prev_max[u])
				break;
			port = t->prev[u][lid];
			if (port == 0) {
				if (u == dst && node != NONE && (best == NONE ||
				    t->rank[node] > t->rank[best]))
					best = node;
				break;
			}
			if (port > f->nodes[t->out->sw_node[u]].nports)
				break;
			q = f->nodes[t->out->sw_node[u]].port0 + port;
			if (!kernel_link_usable(f, q) || f->nodes[fabric_peer_node(f, q)].type
			    != NODE_SWITCH)
				break;
			u = t->out->node_sw[fabric_peer_node(f, q)];
			if (node == NONE || t->rank[u] > t->rank[node])
				node = u;
		}
	}
	return best;
}

struct cand {
	uint32_t sw;
	uint32_t cov;
	uint8_t rank;
	uint64_t guid;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cov != y->cov)
		return x->cov > y->cov ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * The hub: of the switches with a LID, one with single children above it,
 * then the one with an up-down route to and from the most switches, the
 * deepest, the lowest GUID; the previous hub when it is as good.
 */
static void
pick_hub(struct ft *t)
{
	struct cand *c = xcalloc(t->nsw, sizeof(*c));
	uint32_t s, n = 0, i, bp;
	int uq = 0;

	for (s = 0; s < t->nsw; s++) {
		if (t->sw_lid[s] == 0)
			continue;
		c[n].sw = s;
		c[n].cov = coverage(t, s);
		c[n].rank = t->rank[s];
		c[n++].guid = guid(t, s);
	}
	t->hub = NONE;
	if (n == 0) {
		free(c);
		return;
	}
	qsort(c, n, sizeof(*c), cand_cmp);
	for (i = 0; i < n && !uq; i++)
		uq = single_children(t, c[i].sw);
	i = uq ? i - 1 : 0;
	t->hub = c[i].sw;
	bp = prev_hub(t);
	if (bp != NONE && bp != t->hub && t->sw_lid[bp] != 0 &&
	    t->rank[bp] == c[i].rank && coverage(t, bp) == c[i].cov &&
	    single_children(t, bp) == uq)
		t->hub = bp;
	free(c);
}

/*
 * Last resort for a switch LID that neither an up-down route nor the hub
 * serves from s: a shortest path.
 */
static void
fallback_paths(struct ft *t, uint32_t tt, const uint8_t *lost)
{
	uint32_t *dist = xcalloc(t->nsw, sizeof(*dist)), s, g;

	kernel_bfs(&t->g, &tt, 1, dist, t->queue);
	for (s = 0; s < t->nsw; s++) {
		if (!lost[s] || dist[s] == NONE)
			continue;
		for (g = t->g_off[s]; g < t->g_off[s + 1]; g++)
			if (dist[t->g_sw[g]] + 1 == dist[s]) {
				t->fb[(size_t)s * t->nsw + tt] =
				    t->g_port[t->g_poff[g]];
				break;
			}
	}
	free(dist);
}

/*
 * Pairs without an up-down route: pick the hub; refuse when CAs stay out of
 * reach of other CAs; shortest paths for the pairs the hub cannot serve
 * (from switches without CAs: switch-originated traffic).
 */
static int
plan_turns(struct ft *t)
{
	size_t nsw = t->nsw, i;
	uint32_t s, tt;
	uint8_t *lost;
	int any = 0;

	t->hub = NONE;
	t->hubok = xcalloc(nsw, 1);
	for (i = 0; i < nsw * nsw && !any; i++)
		any = t->meet[i] == 0;
	if (!any)
		return 0;
	pick_hub(t);
	for (s = 0; s < nsw; s++)
		t->hubok[s] = t->hub != NONE &&
		    t->meet[s * nsw + t->hub] != 0;
	lost = xcalloc(nsw, 1);
	for (tt = 0; tt < nsw; tt++) {
		any = 0;
		for (s = 0; s < nsw; s++) {
			lost[s] = t->meet[s * nsw + tt] == 0 &&
			    !(t->hubok[s] && t->hubok[tt]);
			any |= lost[s];
		}
		if (!any)
			continue;
		/* CA to CA traffic must stay deadlock-free; what else is lost
		 * starts at a switch and is management traffic */
		for (s = 0; s < nsw && t->ca_off[tt + 1] > t->ca_off[tt]; s++)
			if (lost[s] && t->ca_off[s + 1] > t->ca_off[s]) {
				free(lost);
				return refuse(t, "switch 0x%016" PRIx64 " has no "
				    "up-down route to the CAs of switch 0x%016"
				    PRIx64 ", not even through another switch",
				    guid(t, s), guid(t, tt));
			}
		if (t->fb == NULL) {
			t->fb = xcalloc(nsw * nsw, 1);
			memset(t->fb, LFT_NO_ROUTE, nsw * nsw);
		}
		fallback_paths(t, tt, lost);
	}
	free(lost);
	return 0;
}

static void
load_prev(struct ft *t)
{
	uint32_t s;

	t->prev = xcalloc(t->nsw, sizeof(*t->prev));
	t->prev_max = xcalloc(t->nsw, sizeof(*t->prev_max));
	for (s = 0; s < t->nsw; s++)
		t->prev[s] = kernel_prev_row(t->o->prev_fabric, t->o->prev,
		    guid(t, s), &t->prev_max[s]);
}

static inline uint8_t
prev_entry(const struct ft *t, uint32_t s, uint16_t lid)
{
	if (t->prev[s] == NULL || lid > t->prev_max[s])
		return LFT_NO_ROUTE;
	return t->prev[s][lid];
}

/*
 * Did the previous main path of lid (on tt) climb from v to the parent of
 * group g? Asked of a sibling of v under that parent that meets tt there:
 * its previous entry pointed at its target on the old path. 1 yes, 0 no,
 * -1 no witness.
 */
static int
witness(const struct ft *t, uint32_t g, uint32_t v, uint32_t tt, uint16_t lid)
{
	uint32_t p = t->g_sw[g], h, w, back, tries = 0;
	uint8_t need = (uint8_t)(t->rank[p] + 1), port;

	for (h = t->g_off[p] + t->nup[p]; h < t->g_off[p + 1]; h++) {
		w = t->g_sw[h];
		if (w == v || t->meet[(size_t)w * t->nsw + tt] != need)
			continue;
		if ((port = prev_entry(t, w, lid)) == LFT_NO_ROUTE) {
			if (++tries == WITNESS_TRIES)
				break;
			continue;
		}
		back = t->g_rev[h];
		return in_ports(port, t->g_port + t->g_poff[back],
		    t->g_poff[back + 1] - t->g_poff[back]);
	}
	return -1;
}

/* The up cable of v that the main path of lid takes: the previous one,
 * else the least used, then the one into the least used parent. */
static void
climb(const struct ft *t, uint32_t v, uint32_t tt, uint16_t lid,
    const uint32_t *linkuse, const uint32_t *paruse, uint32_t *gout,
    uint8_t *numout)
{
	const struct fabric *f = t->f;
	uint32_t port0 = f->nodes[t->out->sw_node[v]].port0, g, k, bg = NONE;
	uint32_t p, q, lu, pu, blu = NONE, bpu = NONE;
	uint8_t num, bnum = 0, old;

	for (g = t->g_off[v]; g < t->g_off[v] + t->nup[v] && t->o->prev != NULL;
	    g++) {
		if (witness(t, g, v, tt, lid) != 1)
			continue;
		/* of parallel cables, the one the parent sent lid down */
		p = t->g_sw[g];
		old = prev_entry(t, p, lid);
		bg = g;
		bnum = t->g_port[t->g_poff[g]];
		for (k = t->g_poff[g]; k < t->g_poff[g + 1]; k++) {
			q = f->ports[port0 + t->g_port[k]].peer;
			if (f->ports[q].num == old)
				bnum = t->g_port[k];
		}
		*gout = bg;
		*numout = bnum;
		return;
	}
	for (g = t->g_off[v]; g < t->g_off[v] + t->nup[v]; g++) {
		p = t->g_sw[g];
		pu = paruse[p];
		for (k = t->g_poff[g]; k < t->g_poff[g + 1]; k++) {
			num = t->g_port[k];
			lu = linkuse[port0 + num];
			if (bg == NONE || lu < blu || (lu == blu && pu < bpu)) {
				bg = g;
				bnum = num;
				blu = lu;
				bpu = pu;
			}
		}
	}
	*gout = bg;
	*numout = bnum;
}

static void
main_path(struct ft *t, uint32_t tt, uint16_t lid, uint32_t *linkuse,
    uint32_t *paruse)
{
	const struct fabric *f = t->f;
	size_t base = (size_t)lid * t->h1;
	uint32_t v = tt, r, g, p, q;
	uint8_t num;

	t->pnode[base + t->rank[tt]] = tt;
	for (r = t->rank[tt]; r > 0; r--) {
		climb(t, v, tt, lid, linkuse, paruse, &g, &num);
		p = t->g_sw[g];
		q = f->nodes[t->out->sw_node[v]].port0 + num;
		t->pnode[base + r - 1] = p;
		t->pport[base + r - 1] = f->ports[f->ports[q].peer].num;
		linkuse[q]++;
		paruse[p]++;
		v = p;
	}
}

/* CA LIDs first, so that switch LIDs do not skew how CAs spread. */
static void
main_paths(struct ft *t)
{
	uint32_t *linkuse = xcalloc(t->f->nports, sizeof(*linkuse));
	uint32_t *paruse = xcalloc(t->nsw, sizeof(*paruse)), i, j, tt;
	size_t n = ((size_t)t->out->max_lid + 1) * t->h1;

	t->pnode = xcalloc(n, sizeof(*t->pnode));
	t->pport = xcalloc(n, 1);
	for (i = 0; i < t->nhosts; i++) {
		tt = t->hosts[i];
		for (j = t->ca_off[tt]; j < t->ca_off[tt + 1]; j++)
			main_path(t, tt, t->ca_lid[j], linkuse, paruse);
	}
	for (tt = 0; tt < t->nsw; tt++)
		if (t->sw_lid[tt] != 0)
			main_path(t, tt, t->sw_lid[tt], linkuse, paruse);
	free(linkuse);
	free(paruse);
}

/* Walk up from s: its way towards each switch above it. */
static void
ancestors(struct ft *t, struct scratch *x, uint32_t s)
{
	uint32_t mk = fresh(t), head = 0, tail = 0, u, g, v;

	memset(x->upp, LFT_NO_ROUTE, t->nsw);
	for (g = t->g_off[s]; g < t->g_off[s] + t->nup[s]; g++) {
		v = t->g_sw[g];
		if (t->mark[v] != mk) {
			t->mark[v] = mk;
			x->upg[v] = (uint8_t)(g - t->g_off[s]);
			x->upp[v] = t->g_poff[g + 1] - t->g_poff[g] == 1 ?
			    t->g_port[t->g_poff[g]] : 0;
			t->queue[tail++] = v;
		}
	}
	while (head < tail) {
		u = t->queue[head++];
		for (g = t->g_off[u]; g < t->g_off[u] + t->nup[u]; g++) {
			v = t->g_sw[g];
			if (t->mark[v] != mk) {
				t->mark[v] = mk;
				x->upg[v] = x->upg[u];
				x->upp[v] = x->upp[u];
				t->queue[tail++] = v;
			}
		}
	}
}

/* Which switches every parent of s meets at s's own meeting rank: for
 * those, any parent will do. Eight at a time along the rows. */
static void
parents_ok(struct ft *t, struct scratch *x, uint32_t s)
{
	const uint8_t *ms = t->meet + (size_t)s * t->nsw, *mp;
	uint8_t *ok = x->allok;
	uint32_t g, i, first = t->g_off[s], nsw = t->nsw, n8 = nsw & ~7u;
	uint64_t a, b, o;

	memset(ok, 1, nsw);
	for (g = first; g < first + t->nup[s]; g++) {
		mp = t->meet + (size_t)t->g_sw[g] * nsw;
		for (i = 0; i < n8; i += 8) {
			memcpy(&a, mp + i, 8);
			memcpy(&b, ms + i, 8);
			memcpy(&o, ok + i, 8);
			o &= kernel_equal_bytes(a, b) >> 7;
			memcpy(ok + i, &o, 8);
		}
		for (; i < nsw; i++)
			ok[i] &= mp[i] == ms[i];
	}
	x->allok_for = s;
}

/*
 * The ports of s's parents that keep meeting tt at rank m - 1: all up
 * ports (one shared set, so that runs of choices stay long) or a subset
 * kept in the pool.
 */
static void
fallback_set(struct ft *t, struct scratch *x, uint32_t s, uint32_t tt,
    uint8_t m)
{
	uint32_t g, k, first = t->g_off[s];
	uint8_t *set = x->pool + x->npool;
	unsigned n = 0;

	x->fb_t = tt;
	if (x->allok_for != s)
		parents_ok(t, x, s);
	if (x->allok[tt]) {
		x->fb_ports = x->allup;
		x->fb_n = x->nallup;
		return;
	}
	for (g = first; g < first + t->nup[s]; g++) {
		if (t->meet[(size_t)t->g_sw[g] * t->nsw + tt] != m)
			continue;
		for (k = t->g_poff[g]; k < t->g_poff[g + 1]; k++)
			set[n++] = t->g_port[k];
	}
	x->fb_ports = set;
	x->fb_n = (uint8_t)n;
	x->npool += n;
}

static inline void
put(struct scratch *x, uint8_t *row, uint16_t lid, uint8_t port)
{
	row[lid] = port;
	x->cnt[port]++;
}

/* A choice among ports: made now when there is none to make. */
static inline void
choose(struct scratch *x, uint8_t *row, uint16_t lid, const uint8_t *ports,
    unsigned n)
{
	struct item *it;

	if (n == 1) {
		put(x, row, lid, ports[0]);
		return;
	}
	it = &x->items[x->nitems++];
	it->ports = ports;
	it->n = (uint8_t)n;
	it->lid = lid;
}

static inline const uint8_t *
group_ports(const struct ft *t, uint32_t g, unsigned *n)
{
	*n = t->g_poff[g + 1] - t->g_poff[g];
	return t->g_port + t->g_poff[g];
}

/*
 * The ports of s for the n LIDs on tt (local: their ports on tt), decided
 * or deferred. What depends on tt alone is worked out once.
 */
static void
route_dest(struct ft *t, struct scratch *x, uint32_t s, uint8_t *row,
    uint32_t tt, const uint16_t *lids, const uint8_t *local, uint32_t n)
{
	uint8_t m = t->meet[(size_t)s * t->nsw + tt], rs = t->rank[s], port;
	const uint32_t *pnode = t->pnode;
	const uint8_t *ports, *upg = x->upg, *upp = x->upp;
	uint32_t i, v, h1 = t->h1, first = t->g_off[s];
	unsigned np;
	size_t base;

	if (s == tt) {
		for (i = 0; i < n; i++)
			put(x, row, lids[i], local ? local[i] : 0);
	} else if (m == rs + 1) {
		/* above tt: down, along the main path when on it */
		ports = group_ports(t, first + t->down[(size_t)s * t->nsw + tt],
		    &np);
		for (i = 0; i < n; i++) {
			base = (size_t)lids[i] * h1 + rs;
			if (pnode[base] == s)
				put(x, row, lids[i], t->pport[base]);
			else
				choose(x, row, lids[i], ports, np);
		}
	} else if (m != 0) {
		/* up, to the main path where it meets ours */
		for (i = 0; i < n; i++) {
			v = pnode[(size_t)lids[i] * h1 + m - 1];
			if ((port = upp[v]) != 0 && port != LFT_NO_ROUTE) {
				put(x, row, lids[i], port);
				continue;
			}
			if (port == 0) {
				ports = group_ports(t, first + upg[v], &np);
				choose(x, row, lids[i], ports, np);
				continue;
			}
			if (x->fb_t != tt)
				fallback_set(t, x, s, tt, m);
			if (x->fb_ports == x->allup && x->fb_n > 1)
				x->anyup[x->nanyup++] = lids[i];
			else
				choose(x, row, lids[i], x->fb_ports, x->fb_n);
		}
	} else {
		port = LFT_NO_ROUTE;
		if (t->hubok[s] && t->hubok[tt])
			port = x->hub_port;
		else if (t->fb != NULL)
			port = t->fb[(size_t)s * t->nsw + tt];
		if (port != LFT_NO_ROUTE)
			for (i = 0; i < n; i++)
				put(x, row, lids[i], port);
	}
}

/* Keep the previous port of each deferred LID that can; returns how many
 * are left, moved to the front. */
static uint32_t
keep_prev(struct ft *t, struct scratch *x, uint32_t s, uint8_t *row)
{
	uint32_t i, k = 0;
	uint16_t lid;
	uint8_t old;

	if (t->prev[s] == NULL)
		return x->nitems;
	for (i = 0; i < x->nitems; i++) {
		old = prev_entry(t, s, x->items[i].lid);
		if (old != LFT_NO_ROUTE && in_ports(old, x->items[i].ports,
		    x->items[i].n))
			put(x, row, x->items[i].lid, old);
		else
			x->items[k++] = x->items[i];
	}
	for (i = 0, x->nitems = k, k = 0; i < x->nanyup; i++) {
		lid = x->anyup[i];
		old = prev_entry(t, s, lid);
		if (old != LFT_NO_ROUTE && x->upmask[old])
			put(x, row, lid, old);
		else
			x->anyup[k++] = lid;
	}
	x->nanyup = k;
	return x->nitems;
}

/* The deferred choices: previous ports where still candidates, then the
 * rest spread, the most constrained first, runs with the same candidates
 * together. */
static void
flush(struct ft *t, struct scratch *x, uint32_t s, uint8_t *row)
{
	uint32_t i, j, k = keep_prev(t, x, s, row), n;

	for (i = 0; i < k; i = j) {
		for (j = i, n = 0; j < k && x->items[j].ports ==
		    x->items[i].ports && x->items[j].n == x->items[i].n; j++)
			x->run[n++] = x->items[j].lid;
		kernel_spread(row, x->cnt, x->items[i].ports, x->items[i].n,
		    x->run, n);
	}
	kernel_spread(row, x->cnt, x->allup, x->nallup, x->anyup,
	    x->nanyup);
	x->nitems = 0;
	x->nanyup = 0;
	x->npool = 0;
	x->fb_t = NONE;
}

/* s's port towards the hub, decided at once: others follow it. Of free
 * choices, the port its routes that turn at the hub took before. */
static void
hub_port(struct ft *t, struct scratch *x, uint32_t s, uint8_t *row)
{
	const uint8_t *ms = t->meet + (size_t)s * t->nsw;
	uint32_t i, votes[256];
	uint16_t lid;
	uint8_t old = LFT_NO_ROUTE;

	x->hub_port = LFT_NO_ROUTE;
	if (t->hub == NONE || !t->hubok[s])
		return;
	lid = t->sw_lid[t->hub];
	route_dest(t, x, s, row, t->hub, &lid, NULL, 1);
	if (x->nitems + x->nanyup > 0) {
		/* most of those turned there before too (a failure makes a
		 * few more): the majority's previous port */
		memset(votes, 0, sizeof(votes));
		for (i = 0; i < t->nsw && t->prev[s] != NULL; i++)
			if (ms[i] == 0 && t->hubok[i] && t->sw_lid[i] != 0)
				votes[prev_entry(t, s, t->sw_lid[i])]++;
		for (i = 0; i < LFT_NO_ROUTE; i++)
			if (votes[i] > 0 && (old == LFT_NO_ROUTE ||
			    votes[i] > votes[old]))
				old = (uint8_t)i;
		if (old != LFT_NO_ROUTE && (x->nitems > 0 ?
		    in_ports(old, x->items[0].ports, x->items[0].n) :
		    x->upmask[old])) {
			row[lid] = old;
			x->nitems = x->nanyup = 0;
		}
		/* counted again when the hub's LID comes up in turn */
		flush(t, x, s, row);
	}
	x->hub_port = row[lid];
	for (i = 0; i < 256; i++)
		x->cnt[i] = 0;
}

static void
fill_row(struct ft *t, struct scratch *x, uint32_t s)
{
	uint8_t *row = lft_row(t->out, s);
	uint32_t i, j, tt;

	memset(x->cnt, 0, sizeof(x->cnt));
	x->nitems = 0;
	x->nanyup = 0;
	x->npool = 0;
	x->fb_t = NONE;
	ancestors(t, x, s);
	x->allok_for = NONE;
	x->allup = t->g_port + t->g_poff[t->g_off[s]];
	x->nallup = (uint8_t)(t->g_poff[t->g_off[s] + t->nup[s]] -
	    t->g_poff[t->g_off[s]]);
	memset(x->upmask, 0, sizeof(x->upmask));
	for (i = 0; i < x->nallup; i++)
		x->upmask[x->allup[i]] = 1;
	hub_port(t, x, s, row);
	for (i = 0; i < t->nhosts; i++) {
		tt = t->hosts[i];
		j = t->ca_off[tt];
		route_dest(t, x, s, row, tt, t->ca_lid + j, t->ca_port + j,
		    t->ca_off[tt + 1] - j);
	}
	flush(t, x, s, row);
	for (tt = 0; tt < t->nsw; tt++) {
		if (t->sw_lid[tt] == 0)
			continue;
		if (tt == t->hub && x->hub_port != LFT_NO_ROUTE)
			put(x, row, t->sw_lid[tt], x->hub_port);
		else
			route_dest(t, x, s, row, tt, &t->sw_lid[tt], NULL, 1);
	}
	flush(t, x, s, row);
}

static void
cleanup(struct ft *t)
{
	free(t->g_off);
	free(t->g_sw);
	free(t->g_rev);
	free(t->g_poff);
	free(t->g_port);
	free(t->nup);
	free(t->rank);
	free(t->order);
	free(t->ca_off);
	free(t->ca_lid);
	free(t->ca_port);
	free(t->sw_lid);
	free(t->hosts);
	free(t->meet);
	free(t->down);
	free(t->pnode);
	free(t->pport);
	free(t->hubok);
	free(t->fb);
	free(t->prev);
	free(t->prev_max);
	free(t->mark);
	free(t->queue);
	kernel_graph_free(&t->g);
}

static int
route(const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    char *why, size_t whylen)
{
	struct ft t;
	struct scratch x;
	uint32_t s;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	t.f = f;
	t.o = o;
	t.out = out;
	t.nsw = out->nsw;
	t.why = why;
	t.whylen = whylen;
	if (t.nsw == 0)
		return refuse(&t, "no switch in the fabric, nothing to route");
	t.mark = xcalloc(t.nsw, sizeof(*t.mark));
	t.queue = xcalloc(t.nsw, sizeof(*t.queue));
	kernel_graph_build(f, out, &t.g);
	build_groups(&t);
	build_dests(&t);
	if (rank_switches(&t) == -1)
		goto out;
	split_groups(&t);
	order_by_rank(&t);
	meet_rows(&t);
	down_rows(&t);
	load_prev(&t);
	if (plan_turns(&t) == -1)
		goto out;
	main_paths(&t);

	memset(&x, 0, sizeof(x));
	x.upg = xcalloc(t.nsw, 1);
	x.upp = xcalloc(t.nsw, 1);
	x.allok = xcalloc(t.nsw, 1);
	x.items = xcalloc((size_t)out->max_lid + 1, sizeof(*x.items));
	x.anyup = xcalloc((size_t)out->max_lid + 1, sizeof(*x.anyup));
	x.run = xcalloc((size_t)out->max_lid + 1, sizeof(*x.run));
	x.pool = xcalloc((size_t)t.nsw * 256, 1);
	for (s = 0; s < t.nsw; s++)
		fill_row(&t, &x, s);
	free(x.upg);
	free(x.upp);
	free(x.allok);
	free(x.items);
	free(x.anyup);
	free(x.run);
	free(x.pool);
	rc = 0;
out:
	cleanup(&t);
	return rc;
}

const struct routing_engine re_ftree = {
	.name = "ftree",
	.route = route,
	.deadlock_free = true,
};
