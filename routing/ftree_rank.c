/*
 * ftree, the shape of the tree: neighbour groups, ranks from the roots,
 * the meeting rank of every pair of switches, and the hub that serves the
 * pairs without an up-down route (see ftree.c for the engine as a whole).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/ftree.h"

int
ftree_refuse(struct ft *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, t->whylen, fmt, ap);
	va_end(ap);
	return -1;
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
	uint32_t sw, j, p, n = 0;
	uint16_t lid;

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
	t->lmask = xcalloc((size_t)t->out->max_lid + 1, 1);
	for (j = 0; j < n; j++) {
		lid = t->ca_lid[j];
		p = fabric_port_by_lid(t->f, lid);
		if (p == FABRIC_NONE || t->f->ports[p].lmc == 0 ||
		    !fabric_port_has_lid(&t->f->ports[p], lid))
			continue;
		t->lmask[lid] = (uint8_t)((1u << t->f->ports[p].lmc) - 1);
		if (t->lmask[lid] > t->maxmask)
			t->maxmask = t->lmask[lid];
	}
	t->hosts = xcalloc(t->nhosts, sizeof(*t->hosts));
	for (sw = 0, t->nhosts = 0; sw < t->nsw; sw++)
		if (t->ca_off[sw + 1] > t->ca_off[sw])
			t->hosts[t->nhosts++] = sw;
}

/* Configured GUIDs that name switches of this fabric, once each. */
static uint32_t
given(struct ft *t, const uint64_t *guids, size_t n, uint32_t *out)
{
	uint32_t mk = ftree_fresh(t), k = 0, node, sw;
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
			ftree_refuse(t, "switches 0x%016" PRIx64 " and 0x%016"
			    PRIx64 " are not connected", ftree_guid(t, 0),
			    ftree_guid(t, s));
			goto out;
		}
	if (o->nroots > 0) {
		if ((nsrc = given(t, o->roots, o->nroots, src)) == 0) {
			ftree_refuse(t, "none of the %zu root GUIDs is a "
			    "switch of this fabric", o->nroots);
			goto out;
		}
	} else {
		if (o->nleaves > 0) {
			if ((nsrc = given(t, o->leaves, o->nleaves, src)) == 0) {
				ftree_refuse(t, "none of the %zu leaf GUIDs is "
				    "a switch of this fabric", o->nleaves);
				goto out;
			}
		} else if ((nsrc = ca_leaves(t, src)) == 0) {
			ftree_refuse(t, "no switch has a CA, so no leaves to "
			    "rank from (configure root or leaf GUIDs)");
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
			ftree_refuse(t, "switch 0x%016" PRIx64 " is %u switches "
			    "below the roots, deeper than any fat tree",
			    ftree_guid(t, s), dist[s]);
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
				ftree_refuse(t, "not a fat tree: switch 0x%016"
				    PRIx64 " (rank %u) links to switch 0x%016"
				    PRIx64 " of the same rank", ftree_guid(t, s),
				    t->rank[s], ftree_guid(t, v));
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

	*mk = ftree_fresh(t);
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
	uint32_t mk = ftree_fresh(t), head = 0, tail = 0, c, g, v;
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
		mk = ftree_fresh(t);
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
			if (!kernel_link_usable(f, q) ||
			    f->nodes[fabric_peer_node(f, q)].type != NODE_SWITCH)
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
		c[n++].guid = ftree_guid(t, s);
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
int
ftree_plan_turns(struct ft *t)
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
				return ftree_refuse(t, "switch 0x%016" PRIx64
				    " has no up-down route to the CAs of switch "
				    "0x%016" PRIx64 ", not even through another "
				    "switch", ftree_guid(t, s), ftree_guid(t, tt));
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

int
ftree_rank(struct ft *t)
{
	build_groups(t);
	build_dests(t);
	if (rank_switches(t) == -1)
		return -1;
	split_groups(t);
	order_by_rank(t);
	meet_rows(t);
	down_rows(t);
	return 0;
}
