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
 * LMC. The 2^lmc LIDs of a CA port get their main paths offset by offset
 * (every port's base LID first, then every second LID, ...), so that the
 * base LIDs, which most traffic uses, spread exactly as with LMC 0. Each
 * further LID climbs into the parents the block's earlier LIDs left
 * unused where there are any, at every rank: switches that reach it
 * through the main paths then send the block's LIDs out of different up
 * ports (different spines; on three levels different aggregation and
 * core switches). Free choices in the tables, too, avoid the ports the
 * block's other LIDs took, then even out each offset's LIDs on their own.
 * The up ports a block can take at a leaf are bounded by the fewest up
 * ports of the leaves on its way (a destination leaf with 3 uplinks
 * reaches 3 aggregation switches, so 3 groups of cores).
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
 *
 * Files. ftree_rank.c works out the shape of the tree (neighbour groups,
 * ranks, meeting ranks, the hub); this file makes the main paths and the
 * tables; routing/ftree.h holds what they share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/ftree.h"

#define WITNESS_TRIES   4

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
	const uint8_t *lmask;   /* t->lmask */
	/* [offset in the LMC block][port] LIDs so far (switch LIDs count
	 * as offset 0), when some port has LMC > 0 */
	uint32_t (*cnt_off)[256];       /* [t->maxmask + 1] */
};

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
load_prev(struct ft *t)
{
	uint32_t s;

	t->prev = xcalloc(t->nsw, sizeof(*t->prev));
	t->prev_max = xcalloc(t->nsw, sizeof(*t->prev_max));
	for (s = 0; s < t->nsw; s++)
		t->prev[s] = kernel_prev_row(t->o->prev_fabric, t->o->prev,
		    ftree_guid(t, s), &t->prev_max[s]);
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

/*
 * The main paths of lid's LMC block already made (those of lower offsets:
 * they are made first) counted in t->sibn by their node at rank r - 1
 * (add 1), or those counts taken back (add UINT32_MAX).
 */
static void
siblings_count(const struct ft *t, uint16_t lid, uint32_t r, uint32_t add)
{
	uint16_t base = (uint16_t)(lid & ~t->lmask[lid]), sib;

	for (sib = base; sib < lid; sib++)
		t->sibn[t->pnode[(size_t)sib * t->h1 + r - 1]] += add;
}

/* Of those that climb into parent p at rank r - 1, how many came from v
 * by the cable into p's port pnum. */
static uint32_t
siblings_cable(const struct ft *t, uint16_t lid, uint32_t v, uint32_t r,
    uint32_t p, uint8_t pnum)
{
	uint16_t base = (uint16_t)(lid & ~t->lmask[lid]), sib;
	uint32_t n = 0;
	size_t b;

	for (sib = base; sib < lid; sib++) {
		b = (size_t)sib * t->h1;
		n += t->pnode[b + r - 1] == p && t->pnode[b + r] == v &&
		    t->pport[b + r - 1] == pnum;
	}
	return n;
}

/* The up cable of v (at rank r) that the main path of lid takes: the
 * previous one, else, of those into the parents the fewest other LIDs of
 * lid's LMC block went through (then by the fewest of their cables), the
 * least used, then the one into the least used parent. */
static void
climb(const struct ft *t, uint32_t v, uint32_t r, uint32_t tt, uint16_t lid,
    const uint32_t *linkuse, const uint32_t *paruse, uint32_t *gout,
    uint8_t *numout)
{
	const struct fabric *f = t->f;
	uint32_t port0 = f->nodes[t->out->sw_node[v]].port0, g, k, bg = NONE;
	uint32_t p, q, lu, pu, blu = NONE, bpu = NONE;
	uint32_t sp = 0, sc = 0, bsp = NONE, bsc = NONE;
	uint8_t num, bnum = 0, old, off = lid & t->lmask[lid];

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
	if (off != 0)
		siblings_count(t, lid, r, 1);
	for (g = t->g_off[v]; g < t->g_off[v] + t->nup[v]; g++) {
		p = t->g_sw[g];
		pu = paruse[p];
		for (k = t->g_poff[g]; k < t->g_poff[g + 1]; k++) {
			num = t->g_port[k];
			lu = linkuse[port0 + num];
			if (off != 0 && (sp = t->sibn[p]) != 0) {
				q = f->ports[port0 + num].peer;
				sc = siblings_cable(t, lid, v, r, p,
				    f->ports[q].num);
			} else
				sc = 0;
			if (bg == NONE || sp < bsp || (sp == bsp && (sc < bsc ||
			    (sc == bsc && (lu < blu || (lu == blu &&
			    pu < bpu)))))) {
				bg = g;
				bnum = num;
				blu = lu;
				bpu = pu;
				bsp = sp;
				bsc = sc;
			}
		}
	}
	if (off != 0)
		siblings_count(t, lid, r, UINT32_MAX);
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
		climb(t, v, r, tt, lid, linkuse, paruse, &g, &num);
		p = t->g_sw[g];
		q = f->nodes[t->out->sw_node[v]].port0 + num;
		t->pnode[base + r - 1] = p;
		t->pport[base + r - 1] = f->ports[f->ports[q].peer].num;
		linkuse[q]++;
		paruse[p]++;
		v = p;
	}
}

/*
 * CA LIDs first, so that switch LIDs do not skew how CAs spread; with LMC,
 * the base LIDs of every port first (they spread as they would with LMC
 * 0), then the second LIDs of every block, and so on.
 */
static void
main_paths(struct ft *t)
{
	uint32_t *linkuse = xcalloc(t->f->nports, sizeof(*linkuse));
	uint32_t *paruse = xcalloc(t->nsw, sizeof(*paruse)), i, j, tt, off;
	size_t n = ((size_t)t->out->max_lid + 1) * t->h1;
	uint16_t lid;

	t->pnode = xcalloc(n, sizeof(*t->pnode));
	t->pport = xcalloc(n, 1);
	t->sibn = xcalloc(t->nsw, sizeof(*t->sibn));
	for (off = 0; off <= t->maxmask; off++)
		for (i = 0; i < t->nhosts; i++) {
			tt = t->hosts[i];
			for (j = t->ca_off[tt]; j < t->ca_off[tt + 1]; j++) {
				lid = t->ca_lid[j];
				if ((lid & t->lmask[lid]) == off)
					main_path(t, tt, lid, linkuse, paruse);
			}
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
	uint32_t mk = ftree_fresh(t), head = 0, tail = 0, u, g, v;

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
	x->cnt_off[lid & x->lmask[lid]][port]++;
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

/*
 * With LMC: the candidate for lid with the fewest other LIDs of its block
 * already on it, then the fewest LIDs of its offset, then the fewest LIDs;
 * ties to the earliest. A base LID too avoids the ports its block's other
 * LIDs were forced to: on a complete tree its traffic has no choice to
 * make, on a damaged one (a main path that cannot be followed) this keeps
 * the block apart where the forced ones would otherwise meet it.
 */
static void
spread_lmc(struct scratch *x, uint8_t *row, uint16_t lid, const uint8_t *cand,
    unsigned c)
{
	uint8_t mask = x->lmask[lid], off = lid & mask, port, best = cand[0];
	uint32_t sib, bsib = NONE, bo = NONE, bn = NONE, k;
	unsigned i;

	for (i = 0; i < c; i++) {
		port = cand[i];
		sib = 0;
		for (k = 0; mask != 0 && k <= mask; k++)
			sib += k != off && row[(lid & ~mask) + k] == port;
		if (sib < bsib || (sib == bsib && (x->cnt_off[off][port] < bo ||
		    (x->cnt_off[off][port] == bo && x->cnt[port] < bn)))) {
			best = port;
			bsib = sib;
			bo = x->cnt_off[off][port];
			bn = x->cnt[port];
		}
	}
	put(x, row, lid, best);
}

/* The deferred choices with LMC: offset by offset, base LIDs first. */
static void
flush_lmc(struct ft *t, struct scratch *x, uint32_t k, uint8_t *row)
{
	uint32_t i, off;
	uint16_t lid;

	for (off = 0; off <= t->maxmask; off++) {
		for (i = 0; i < k; i++) {
			lid = x->items[i].lid;
			if ((lid & x->lmask[lid]) == off)
				spread_lmc(x, row, lid, x->items[i].ports,
				    x->items[i].n);
		}
		for (i = 0; i < x->nanyup; i++) {
			lid = x->anyup[i];
			if ((lid & x->lmask[lid]) == off)
				spread_lmc(x, row, lid, x->allup, x->nallup);
		}
	}
}

/* The deferred choices: previous ports where still candidates, then the
 * rest spread, the most constrained first, runs with the same candidates
 * together (with LMC, see flush_lmc()). */
static void
flush(struct ft *t, struct scratch *x, uint32_t s, uint8_t *row)
{
	uint32_t i, j, k = keep_prev(t, x, s, row), n;

	if (t->maxmask != 0) {
		flush_lmc(t, x, k, row);
		k = 0;
		x->nanyup = 0;
	}
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
	memset(x->cnt_off, 0, (size_t)(t->maxmask + 1) * sizeof(x->cnt_off[0]));
}

static void
fill_row(struct ft *t, struct scratch *x, uint32_t s)
{
	uint8_t *row = lft_row(t->out, s);
	uint32_t i, j, tt;

	memset(x->cnt, 0, sizeof(x->cnt));
	memset(x->cnt_off, 0, (size_t)(t->maxmask + 1) * sizeof(x->cnt_off[0]));
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
	free(t->lmask);
	free(t->sibn);
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
		return ftree_refuse(&t, "no switch in the fabric, nothing to "
		    "route");
	t.mark = xcalloc(t.nsw, sizeof(*t.mark));
	t.queue = xcalloc(t.nsw, sizeof(*t.queue));
	kernel_graph_build(f, out, &t.g);
	if (ftree_rank(&t) == -1)
		goto out;
	load_prev(&t);
	if (ftree_plan_turns(&t) == -1)
		goto out;
	main_paths(&t);

	memset(&x, 0, sizeof(x));
	x.lmask = t.lmask;
	x.cnt_off = xcalloc((size_t)t.maxmask + 1, sizeof(x.cnt_off[0]));
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
	free(x.cnt_off);
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
