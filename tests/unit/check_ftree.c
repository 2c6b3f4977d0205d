/*
 * ftree on fabrics built in memory. Paths are judged by testfab_check(),
 * which has its own BFS; deadlock freedom by a channel dependency graph
 * built and searched here, independently of the engine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

#define NONE    UINT32_MAX

static const struct routing_opts no_opts;

/* Route f with ftree into s (sized here). */
static void
route_with(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *s)
{
	char why[256] = "";

	ck_assert_int_eq(lft_set_init(s, f), 0);
	ck_assert_msg(re_ftree.route(f, o, s, why, sizeof(why)) == 0,
	    "ftree failed: %s", why);
}

static void
route_ftree(const struct fabric *f, struct lft_set *s)
{
	route_with(f, &no_opts, s);
}

/* ftree must refuse f, with a reason containing what. */
static void
assert_refuses(const struct fabric *f, const struct routing_opts *o,
    const char *what)
{
	struct lft_set s;
	char why[256] = "";

	ck_assert_int_eq(lft_set_init(&s, f), 0);
	ck_assert_msg(re_ftree.route(f, o, &s, why, sizeof(why)) == -1,
	    "ftree routed a fabric it should refuse (%s)", what);
	ck_assert_msg(strstr(why, what) != NULL, "reason \"%s\" does not say "
	    "\"%s\"", why, what);
	lft_set_fini(&s);
}

static int
live(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != FABRIC_NONE && f->ports[p].state != PORT_DOWN &&
	    f->ports[q].state != PORT_DOWN;
}

/* LIDs of CA ports: mask[lid] = 1 (caller frees). */
static uint8_t *
ca_lids(const struct fabric *f)
{
	uint8_t *mask = calloc((size_t)UINT16_MAX + 1, 1);
	uint32_t p;

	ck_assert_ptr_nonnull(mask);
	for (p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p) &&
		    f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    f->ports[p].lid != 0)
			mask[f->ports[p].lid] = 1;
	return mask;
}

/* Every pair reached along a shortest path. */
static void
assert_all_shortest(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;

	testfab_check(f, s, &st);
	ck_assert_msg(st.bad == 0, "%llu bad pairs, first: %s",
	    (unsigned long long)st.bad, st.first);
	ck_assert_uint_eq(st.unroutable, 0);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_uint_gt(st.pairs, 0);
}

/* Every switch reaches every CA LID along a shortest path. */
static void
assert_ca_shortest(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;
	uint8_t *ca = ca_lids(f);

	testfab_check_lids(f, s, ca, &st);
	ck_assert_msg(st.bad == 0, "%llu bad pairs to CAs, first: %s",
	    (unsigned long long)st.bad, st.first);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_uint_gt(st.pairs, 0);
	free(ca);
}

/* Every switch reaches every LID (by some path). */
static void
assert_all_reached(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;

	testfab_check(f, s, &st);
	ck_assert_msg(st.unreached == 0, "%llu pairs unreached (first bad: %s)",
	    (unsigned long long)st.unreached, st.first);
	ck_assert_uint_eq(st.unroutable, 0);
	ck_assert_uint_gt(st.pairs, 0);
}

/*
 * Channel dependency graph: a channel is a live switch-to-switch port (one
 * direction of a cable); a route to LID d that enters switch v by channel a
 * and leaves it by channel b makes b depend on a. Routes are walked from
 * the switches with from[node] set to the LIDs with only[lid] set (NULL:
 * all). Returns 1 when the graph has a cycle (depth-first, three colours).
 */
static int
cdg_cycle_of(const struct fabric *f, const struct lft_set *s,
    const uint8_t *from, const uint8_t *only)
{
	uint32_t *chan = malloc(f->nports * sizeof(*chan)), nch = 0;
	uint32_t *stack, *next, sw, p, q, v, lid, a, b, top, c, i, hops;
	const struct fabric_node *n;
	uint8_t *edge, *color, port;
	int cycle = 0;

	ck_assert_ptr_nonnull(chan);
	for (p = 0; p < f->nports; p++)
		chan[p] = NONE;
	for (p = 0; p < f->nports; p++) {
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH ||
		    f->ports[p].num == 0 || !live(f, p))
			continue;
		q = f->ports[p].peer;
		if (f->nodes[f->ports[q].node].type == NODE_SWITCH &&
		    f->ports[q].node != f->ports[p].node)
			chan[p] = nch++;
	}
	edge = calloc((size_t)nch * nch + 1, 1);
	for (sw = 0; sw < s->nsw; sw++) {
		if (from != NULL && !from[s->sw_node[sw]])
			continue;
		for (lid = 1; lid <= s->max_lid; lid++) {
			if (only != NULL && !only[lid])
				continue;
			for (v = sw, a = NONE, hops = 0; hops <= s->nsw; hops++) {
				n = &f->nodes[s->sw_node[v]];
				port = lft_row(s, v)[lid];
				if (port == 0 || port > n->nports ||
				    (b = chan[n->port0 + port]) == NONE)
					break;
				if (a != NONE)
					edge[(size_t)a * nch + b] = 1;
				a = b;
				v = s->node_sw[fabric_peer_node(f, n->port0 + port)];
			}
		}
	}
	color = calloc(nch + 1, 1);     /* 0 new, 1 on the path, 2 done */
	stack = calloc(nch + 1, sizeof(*stack));
	next = calloc(nch + 1, sizeof(*next));
	for (i = 0; i < nch && !cycle; i++) {
		if (color[i] != 0)
			continue;
		top = 0;
		stack[top++] = i;
		color[i] = 1;
		next[i] = 0;
		while (top > 0 && !cycle) {
			c = stack[top - 1];
			while (next[c] < nch && !edge[(size_t)c * nch + next[c]])
				next[c]++;
			if (next[c] == nch) {
				color[c] = 2;
				top--;
				continue;
			}
			v = next[c]++;
			if (color[v] == 1)
				cycle = 1;
			else if (color[v] == 0) {
				color[v] = 1;
				next[v] = 0;
				stack[top++] = v;
			}
		}
	}
	free(chan);
	free(edge);
	free(color);
	free(stack);
	free(next);
	return cycle;
}

/* Every route to every LID. */
static int
cdg_cycle(const struct fabric *f, const struct lft_set *s)
{
	return cdg_cycle_of(f, s, NULL, NULL);
}

/* The routes CA-to-CA traffic takes: from switches with CAs to CA LIDs. */
static int
cdg_cycle_ca(const struct fabric *f, const struct lft_set *s)
{
	uint8_t *from = calloc(f->nnodes + 1, 1), *ca = ca_lids(f);
	uint32_t p;
	int cycle;

	for (p = 0; p < f->nports; p++)
		if (ca[f->ports[p].lid] && fabric_port_is_endport(f, p) &&
		    live(f, p))
			from[fabric_peer_node(f, p)] = 1;
	cycle = cdg_cycle_of(f, s, from, ca);
	free(from);
	free(ca);
	return cycle;
}

/* CA LIDs that switch node n sends out of port num. */
static unsigned
ca_load(const struct lft_set *s, const uint8_t *ca, uint32_t n, uint8_t num)
{
	const uint8_t *row = lft_row(s, s->node_sw[n]);
	unsigned lid, c = 0;

	for (lid = 1; lid <= s->max_lid; lid++)
		if (ca[lid] && row[lid] == num)
			c++;
	return c;
}

/* Loads of a class of ports: the spread must be at most one. */
struct spread {
	unsigned lo, hi, ports;
	char name[48];
};

static void
spread_init(struct spread *sp, const char *name)
{
	sp->lo = ~0u;
	sp->hi = 0;
	sp->ports = 0;
	snprintf(sp->name, sizeof(sp->name), "%s", name);
}

static void
spread_add(struct spread *sp, unsigned load)
{
	sp->lo = load < sp->lo ? load : sp->lo;
	sp->hi = load > sp->hi ? load : sp->hi;
	sp->ports++;
}

static void
spread_assert(const struct spread *sp)
{
	ck_assert_uint_gt(sp->ports, 0);
	ck_assert_msg(sp->hi - sp->lo <= 1, "%s: %u ports carry %u .. %u CA "
	    "LIDs", sp->name, sp->ports, sp->lo, sp->hi);
}

/* 64-entry blocks that differ between two sets of tables of one fabric. */
static uint64_t
blocks_differ(const struct lft_set *a, const struct lft_set *b,
    uint64_t *total)
{
	uint32_t sw, blk, nb = a->max_lid / 64u + 1, lo, n;
	uint64_t changed = 0;

	ck_assert_uint_eq(a->nsw, b->nsw);
	ck_assert_uint_eq(a->max_lid, b->max_lid);
	for (sw = 0; sw < a->nsw; sw++)
		for (blk = 0; blk < nb; blk++) {
			lo = blk * 64;
			n = lo + 64 > a->max_lid + 1u ? a->max_lid + 1u - lo : 64;
			if (memcmp(lft_row(a, sw) + lo, lft_row(b, sw) + lo, n))
				changed++;
		}
	*total = (uint64_t)nb * a->nsw;
	return changed;
}

static void
check_ft2(unsigned k)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	struct spread up, down;
	unsigned half = k / 2, i, j;
	uint8_t *ca;

	fabric_init(&f);
	testfab_ft2(&f, k);
	route_ftree(&f, &s);
	/* two levels: switch LIDs too are shortest (spine to spine through
	 * the hub leaf is two hops, as any path) */
	assert_all_shortest(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);

	ca = ca_lids(&f);
	spread_init(&up, "leaf up ports");
	spread_init(&down, "spine down ports");
	for (i = 0; i < k; i++)
		for (j = 0; j < half; j++)
			spread_add(&up, ca_load(&s, ca, i, (uint8_t)(half + 1 + j)));
	for (j = 0; j < half; j++)
		for (i = 0; i < k; i++)
			spread_add(&down, ca_load(&s, ca, k + j, (uint8_t)(i + 1)));
	spread_assert(&up);
	spread_assert(&down);
	/* a leaf's up ports share the other leaves' HCAs exactly */
	ck_assert_uint_eq(up.lo, k - 1);
	ck_assert_uint_eq(up.hi, k - 1);
	free(ca);

	memset(&rep, 0, sizeof(rep));
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.lids, s.max_lid);
	ck_assert_uint_eq(rep.unreachable, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

START_TEST(test_ft2_8)
{
	check_ft2(8);
}
END_TEST

START_TEST(test_ft2_16)
{
	check_ft2(16);
}
END_TEST

/* Node numbers of testfab_ft3(). */
static uint32_t
ft3_edge(unsigned k, unsigned pod, unsigned i)
{
	return pod * (k / 2) + i;
}

static uint32_t
ft3_agg(unsigned k, unsigned pod, unsigned j)
{
	return k * (k / 2) + pod * (k / 2) + j;
}

static uint32_t
ft3_core(unsigned k, unsigned j, unsigned i)
{
	return k * k + j * (k / 2) + i;
}

/*
 * Walks of the tables from some switches to some LIDs, against distances
 * from a BFS of its own: pairs walked, not arriving, arriving by a longer
 * path than the shortest, and the worst excess.
 */
struct walks {
	uint64_t pairs, unreached, longer;
	long worst;
};

/* The switch (index) a LID's port hangs off, NONE if none. */
static uint32_t
lid_home(const struct fabric *f, const struct lft_set *s, uint32_t p)
{
	if (f->nodes[f->ports[p].node].type == NODE_SWITCH)
		return s->node_sw[f->ports[p].node];
	if (!live(f, p) || f->nodes[fabric_peer_node(f, p)].type != NODE_SWITCH)
		return NONE;
	return s->node_sw[fabric_peer_node(f, p)];
}

static void
walk_from(const struct fabric *f, const struct lft_set *s, uint32_t first,
    uint32_t n, const uint8_t *only, struct walks *w)
{
	uint32_t *dist = calloc(s->nsw, sizeof(*dist));
	uint32_t *queue = calloc(s->nsw, sizeof(*queue));
	uint32_t src, head, tail, u, v, p, q, home, cur, hops;
	const struct fabric_node *node;
	uint8_t port;
	uint16_t lid;

	memset(w, 0, sizeof(*w));
	for (src = first; src < first + n; src++) {
		for (u = 0; u < s->nsw; u++)
			dist[u] = NONE;
		dist[src] = 0;
		head = tail = 0;
		queue[tail++] = src;
		while (head < tail) {
			u = queue[head++];
			node = &f->nodes[s->sw_node[u]];
			for (p = node->port0 + 1; p <= node->port0 + node->nports;
			    p++) {
				if (!live(f, p) || f->nodes[fabric_peer_node(f,
				    p)].type != NODE_SWITCH)
					continue;
				v = s->node_sw[fabric_peer_node(f, p)];
				if (dist[v] == NONE) {
					dist[v] = dist[u] + 1;
					queue[tail++] = v;
				}
			}
		}
		for (p = 0; p < f->nports; p++) {
			lid = f->ports[p].lid;
			if (!fabric_port_is_endport(f, p) || lid == 0 ||
			    (only != NULL && !only[lid]) ||
			    (home = lid_home(f, s, p)) == NONE)
				continue;
			w->pairs++;
			for (cur = src, hops = 0; hops <= s->nsw; hops++) {
				node = &f->nodes[s->sw_node[cur]];
				port = lft_row(s, cur)[lid];
				if (port == 0 || port > node->nports)
					break;
				q = node->port0 + port;
				if (!live(f, q) || f->ports[q].peer == p)
					break;
				if (f->nodes[fabric_peer_node(f, q)].type !=
				    NODE_SWITCH)
					break;
				cur = s->node_sw[fabric_peer_node(f, q)];
			}
			if (cur != home || hops > s->nsw || (port == 0 &&
			    s->sw_node[cur] != f->ports[p].node)) {
				w->unreached++;
				continue;
			}
			if (hops > dist[home]) {
				w->longer++;
				if ((long)(hops - dist[home]) > w->worst)
					w->worst = (long)(hops - dist[home]);
			}
		}
	}
	free(dist);
	free(queue);
}

/* Routes from switches first .. first + n - 1 to every CA LID arrive by
 * shortest paths. */
static void
assert_ca_shortest_from(const struct fabric *f, const struct lft_set *s,
    uint32_t first, uint32_t n)
{
	uint8_t *ca = ca_lids(f);
	struct walks w;

	walk_from(f, s, first, n, ca, &w);
	ck_assert_uint_gt(w.pairs, 0);
	ck_assert_uint_eq(w.unreached, 0);
	ck_assert_msg(w.longer == 0, "%llu of %llu routes longer than needed",
	    (unsigned long long)w.longer, (unsigned long long)w.pairs);
	free(ca);
}

/* Worst excess hops of the routes to switch LIDs: those without an
 * up-down route turn at the hub, the price of having no cycle. */
static long
switch_stretch(const struct fabric *f, const struct lft_set *s)
{
	uint8_t *sw = calloc((size_t)UINT16_MAX + 1, 1);
	struct walks w;
	uint32_t p;

	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH &&
		    f->ports[p].num == 0)
			sw[f->ports[p].lid] = 1;
	walk_from(f, s, 0, s->nsw, sw, &w);
	ck_assert_uint_eq(w.unreached, 0);
	free(sw);
	return w.worst;
}

static void
check_ft3(unsigned k)
{
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	struct spread eup, adown, aup, cdown;
	unsigned half = k / 2, p, i, j;
	uint8_t *ca;

	fabric_init(&f);
	testfab_ft3(&f, k);
	route_ftree(&f, &s);
	assert_ca_shortest(&f, &s);
	assert_all_reached(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ck_assert_int_le(switch_stretch(&f, &s), 4);

	ca = ca_lids(&f);
	spread_init(&eup, "edge up ports");
	spread_init(&adown, "aggregation down ports");
	spread_init(&aup, "aggregation up ports");
	spread_init(&cdown, "core down ports");
	for (p = 0; p < k; p++)
		for (i = 0; i < half; i++)
			for (j = 0; j < half; j++) {
				spread_add(&eup, ca_load(&s, ca,
				    ft3_edge(k, p, i), (uint8_t)(half + 1 + j)));
				spread_add(&adown, ca_load(&s, ca,
				    ft3_agg(k, p, i), (uint8_t)(j + 1)));
				spread_add(&aup, ca_load(&s, ca,
				    ft3_agg(k, p, i), (uint8_t)(half + 1 + j)));
			}
	for (j = 0; j < half; j++)
		for (i = 0; i < half; i++)
			for (p = 0; p < k; p++)
				spread_add(&cdown, ca_load(&s, ca,
				    ft3_core(k, j, i), (uint8_t)(p + 1)));
	spread_assert(&eup);
	spread_assert(&adown);
	spread_assert(&aup);
	spread_assert(&cdown);
	free(ca);

	memset(&rep, 0, sizeof(rep));
	routing_report_fill(&f, &s, &rep);
	ck_assert_uint_eq(rep.lids, s.max_lid);
	ck_assert_uint_eq(rep.unreachable, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

START_TEST(test_ft3_4)
{
	check_ft3(4);
}
END_TEST

START_TEST(test_ft3_8)
{
	check_ft3(8);
}
END_TEST

START_TEST(test_ft3_12)
{
	check_ft3(12);
}
END_TEST

/*
 * Main paths: traffic to one HCA from every other pod comes down through
 * one core, and the cores share the HCAs of each pod evenly.
 */
START_TEST(test_ft3_converges)
{
	const unsigned k = 8, half = k / 2;
	struct fabric f;
	struct lft_set s;
	uint32_t hca, lid, edge, agg, core, node, per_core[16];
	unsigned p, i, j, c, ncores;
	uint8_t port;

	fabric_init(&f);
	testfab_ft3(&f, k);
	route_ftree(&f, &s);
	memset(per_core, 0, sizeof(per_core));
	/* the HCAs of pod 3 */
	for (i = 0; i < half; i++)
		for (c = 0; c < half; c++) {
			hca = k * k + half * half + ft3_edge(k, 3, i) * half + c;
			lid = f.ports[fabric_port_idx(&f, hca, 1)].lid;
			ncores = 0;
			core = NONE;
			for (p = 0; p < k; p++) {
				if (p == 3)
					continue;
				/* from an edge of pod p: up, up */
				edge = ft3_edge(k, p, 0);
				port = lft_row(&s, s.node_sw[edge])[lid];
				ck_assert_uint_gt(port, half);
				agg = ft3_agg(k, p, port - half - 1u);
				port = lft_row(&s, s.node_sw[agg])[lid];
				ck_assert_uint_gt(port, half);
				node = fabric_peer_node(&f,
				    fabric_port_idx(&f, agg, port));
				if (node != core) {
					core = node;
					ncores++;
				}
			}
			ck_assert_uint_eq(ncores, 1);
			for (j = 0; j < half * half; j++)
				if (core == ft3_core(k, j / half, j % half))
					per_core[j]++;
		}
	for (j = 0; j < half * half; j++)
		ck_assert_uint_eq(per_core[j], 1);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_ft3_links_removed)
{
	struct fabric f;
	struct lft_set s;
	uint64_t seed;
	unsigned removed;

	for (seed = 1; seed <= 8; seed++) {
		fabric_init(&f);
		testfab_ft3(&f, 8);
		removed = testfab_remove_links(&f, 0.05, seed);
		ck_assert_uint_eq(removed, 13);         /* 5% of 256 */
		route_ftree(&f, &s);
		assert_all_reached(&f, &s);
		ck_assert_msg(cdg_cycle(&f, &s) == 0, "seed %llu: a cycle",
		    (unsigned long long)seed);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	/*
	 * Larger trees lose cables above every bottom switch, so some root
	 * is above no hub candidate; routes from switches to it take
	 * shortest paths. CA-to-CA traffic keeps no cycle and every pair is
	 * reached.
	 */
	for (seed = 1; seed <= 3; seed++) {
		fabric_init(&f);
		testfab_ft3(&f, 12);
		ck_assert_uint_eq(testfab_remove_links(&f, 0.05, seed), 43);
		route_ftree(&f, &s);
		assert_all_reached(&f, &s);
		ck_assert_int_eq(cdg_cycle_ca(&f, &s), 0);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	/*
	 * A fifth of the cables of a two-level tree: no leaf sees every
	 * spine any more, so no hub serves every pair. Spines without CAs
	 * reach the leaves they lost by shortest paths, which only traffic
	 * they send themselves takes; CA-to-CA traffic stays free of cycles.
	 */
	for (seed = 1; seed <= 4; seed++) {
		fabric_init(&f);
		testfab_ft2(&f, 16);
		ck_assert_uint_eq(testfab_remove_links(&f, 0.2, seed), 26);
		route_ftree(&f, &s);
		assert_all_reached(&f, &s);
		assert_ca_shortest_from(&f, &s, 0, 16);
		ck_assert_int_eq(cdg_cycle_ca(&f, &s), 0);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
}
END_TEST

START_TEST(test_port_down)
{
	struct fabric f;
	struct lft_set s;
	uint8_t *ca;

	fabric_init(&f);
	testfab_ft2(&f, 8);
	/* leaf 0 <-> spine 0 stays cabled, but one end reads DOWN */
	f.ports[fabric_port_idx(&f, 0, 5)].state = PORT_DOWN;
	route_ftree(&f, &s);
	assert_all_reached(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ca = ca_lids(&f);
	ck_assert_uint_eq(ca_load(&s, ca, 0, 5), 0);
	ck_assert_uint_eq(ca_load(&s, ca, 8, 1), 0);
	free(ca);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_refuses)
{
	struct routing_opts o;
	struct fabric f;
	uint64_t seed, bogus = 0x1234;
	uint32_t n;

	/* an even ring ranks (it is bipartite), but roots cannot reach the
	 * leaves across the ring by climbing then descending */
	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	assert_refuses(&f, &no_opts, "no up-down route");
	fabric_fini(&f);

	fabric_init(&f);
	testfab_ring(&f, 5, 2);
	assert_refuses(&f, &no_opts, "of the same rank");
	fabric_fini(&f);

	for (seed = 1; seed <= 5; seed++) {
		fabric_init(&f);
		testfab_random(&f, 40, 3, 30, seed);
		assert_refuses(&f, &no_opts, "not a fat tree");
		fabric_fini(&f);
	}

	/* no switch */
	fabric_init(&f);
	testfab_ca(&f, 1);
	testfab_lids(&f);
	assert_refuses(&f, &no_opts, "no switch");
	fabric_fini(&f);

	/* two trees side by side */
	fabric_init(&f);
	testfab_ft2(&f, 4);
	n = f.nnodes;
	testfab_switch(&f, 4);
	testfab_switch(&f, 4);
	testfab_connect(&f, n, 1, n + 1, 1);
	testfab_connect(&f, n, 2, testfab_ca(&f, 1), 1);
	testfab_lids(&f);
	assert_refuses(&f, &no_opts, "not connected");
	fabric_fini(&f);

	/* root GUIDs naming nothing in the fabric */
	fabric_init(&f);
	testfab_ft2(&f, 4);
	memset(&o, 0, sizeof(o));
	o.roots = &bogus;
	o.nroots = 1;
	assert_refuses(&f, &o, "none of the 1 root GUIDs");
	fabric_fini(&f);
}
END_TEST

START_TEST(test_ring4_is_a_tree)
{
	struct fabric f;
	struct lft_set s;

	/* four switches in a ring are two roots over two leaves */
	fabric_init(&f);
	testfab_ring(&f, 4, 2);
	route_ftree(&f, &s);
	assert_all_shortest(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * Two levels: `leaves` switches of `ports` ports, `roots` spines, one
 * cable from every leaf to every spine (leaf port hcas + 1 + j to spine j,
 * spine port i + 1 to leaf i), hcas HCAs per leaf on ports 1 .., sca HCAs
 * per spine on its ports after the leaves. Leaves are nodes 0 .., spines
 * follow.
 */
static void
two_level(struct fabric *f, unsigned leaves, unsigned roots, unsigned hcas,
    unsigned sca)
{
	unsigned i, j;

	fabric_init(f);
	for (i = 0; i < leaves; i++)
		testfab_switch(f, (uint8_t)(hcas + roots));
	for (j = 0; j < roots; j++)
		testfab_switch(f, (uint8_t)(leaves + sca));
	for (i = 0; i < leaves; i++)
		for (j = 0; j < roots; j++)
			testfab_connect(f, i, (uint8_t)(hcas + 1 + j), leaves + j,
			    (uint8_t)(i + 1));
	for (i = 0; i < leaves; i++)
		for (j = 0; j < hcas; j++)
			testfab_connect(f, i, (uint8_t)(j + 1), testfab_ca(f, 1), 1);
	for (j = 0; j < roots; j++)
		for (i = 0; i < sca; i++)
			testfab_connect(f, leaves + j, (uint8_t)(leaves + 1 + i),
			    testfab_ca(f, 1), 1);
	testfab_lids(f);
}

/* As testfab_ft3(4), with two more HCAs on every aggregation switch
 * (ports 5 and 6). */
static void
ft3_agg_cas(struct fabric *f)
{
	const unsigned k = 4, half = 2;
	unsigned p, i, j;

	fabric_init(f);
	for (p = 0; p < k * half; p++)
		testfab_switch(f, k);
	for (p = 0; p < k * half; p++)
		testfab_switch(f, k + 2);
	for (p = 0; p < half * half; p++)
		testfab_switch(f, k);
	for (p = 0; p < k; p++)
		for (i = 0; i < half; i++)
			for (j = 0; j < half; j++) {
				testfab_connect(f, ft3_edge(k, p, i),
				    (uint8_t)(half + 1 + j), ft3_agg(k, p, j),
				    (uint8_t)(i + 1));
				testfab_connect(f, ft3_agg(k, p, j),
				    (uint8_t)(half + 1 + i), ft3_core(k, j, i),
				    (uint8_t)(p + 1));
			}
	for (p = 0; p < k * half; p++)
		for (i = 0; i < half; i++)
			testfab_connect(f, ft3_edge(k, p / half, p % half),
			    (uint8_t)(i + 1), testfab_ca(f, 1), 1);
	for (p = 0; p < k * half; p++)
		for (i = 0; i < 2; i++)
			testfab_connect(f, ft3_agg(k, p / half, p % half),
			    (uint8_t)(k + 1 + i), testfab_ca(f, 1), 1);
	testfab_lids(f);
}

START_TEST(test_cas_on_two_levels)
{
	struct fabric f;
	struct lft_set s;
	struct spread up;
	uint8_t *ca;
	unsigned i, j;

	/* HCAs on the spines too: still ranked with the spines on top */
	two_level(&f, 8, 4, 4, 2);
	route_ftree(&f, &s);
	assert_all_reached(&f, &s);
	assert_ca_shortest_from(&f, &s, 0, 8);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ca = ca_lids(&f);
	spread_init(&up, "leaf up ports");
	for (i = 0; i < 8; i++)
		for (j = 0; j < 4; j++)
			spread_add(&up, ca_load(&s, ca, i, (uint8_t)(5 + j)));
	spread_assert(&up);
	free(ca);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* a three-level tree whose aggregation switches carry HCAs too */
	ft3_agg_cas(&f);
	route_ftree(&f, &s);
	assert_all_reached(&f, &s);
	assert_ca_shortest_from(&f, &s, 0, 8);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_root_guids)
{
	struct routing_opts o;
	struct fabric f;
	struct lft_set s, t;
	struct spread up;
	uint64_t guids[8];
	uint8_t *ca;
	unsigned i, j;

	/*
	 * One HCA per leaf, three per spine: on their own, the spines look
	 * like the leaves (more CA ports on their side). Told the roots, or
	 * the leaves, ftree ranks it the other way up and routes the leaves'
	 * HCAs by shortest, balanced paths.
	 */
	two_level(&f, 8, 4, 1, 3);
	route_ftree(&f, &s);
	assert_all_reached(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	/* upside down: leaf to leaf is down to the hub spine and up again,
	 * so all of it crosses that one spine */
	ca = ca_lids(&f);
	spread_init(&up, "leaf up ports");
	for (i = 0; i < 8; i++)
		for (j = 0; j < 4; j++)
			spread_add(&up, ca_load(&s, ca, i, (uint8_t)(2 + j)));
	ck_assert_uint_gt(up.hi - up.lo, 1);
	free(ca);
	lft_set_fini(&s);

	memset(&o, 0, sizeof(o));
	for (j = 0; j < 4; j++)
		guids[j] = f.nodes[8 + j].guid;
	guids[4] = 0xdeadbeef;          /* not in the fabric: ignored */
	o.roots = guids;
	o.nroots = 5;
	route_with(&f, &o, &s);
	assert_all_reached(&f, &s);
	assert_ca_shortest_from(&f, &s, 0, 8);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ca = ca_lids(&f);
	spread_init(&up, "leaf up ports");
	for (i = 0; i < 8; i++)
		for (j = 0; j < 4; j++)
			spread_add(&up, ca_load(&s, ca, i, (uint8_t)(2 + j)));
	spread_assert(&up);
	free(ca);

	/* the leaves instead of the roots: the same tables */
	memset(&o, 0, sizeof(o));
	for (i = 0; i < 8; i++)
		guids[i] = f.nodes[i].guid;
	o.leaves = guids;
	o.nleaves = 8;
	route_with(&f, &o, &t);
	ck_assert_int_eq(memcmp(s.port, t.port,
	    (size_t)s.nsw * (s.max_lid + 1u)), 0);
	lft_set_fini(&t);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* no CA at all: nothing to rank from, unless told the roots */
	fabric_init(&f);
	for (i = 0; i < 6; i++)
		testfab_switch(&f, 4);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 2; j++)
			testfab_connect(&f, i, (uint8_t)(j + 1), 4 + j,
			    (uint8_t)(i + 1));
	testfab_lids(&f);
	assert_refuses(&f, &no_opts, "no switch has a CA");
	memset(&o, 0, sizeof(o));
	guids[0] = f.nodes[4].guid;
	guids[1] = f.nodes[5].guid;
	o.roots = guids;
	o.nroots = 2;
	route_with(&f, &o, &s);
	assert_all_shortest(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * Route a complete ft3 k=8, lose the cable on port pa of node a, route
 * again from the first tables: the blocks that differ, in percent of all,
 * at most pct, and no more than routing afresh changes.
 */
static void
check_incremental(uint32_t a, uint8_t pa, unsigned pct)
{
	struct fabric old, f;
	struct lft_set before, after, fresh;
	struct routing_opts o;
	uint64_t changed, afresh, total;

	fabric_init(&old);
	testfab_ft3(&old, 8);
	route_ftree(&old, &before);

	fabric_init(&f);
	testfab_ft3(&f, 8);
	testfab_unlink(&f, a, pa);
	memset(&o, 0, sizeof(o));
	o.prev = &before;
	o.prev_fabric = &old;
	route_with(&f, &o, &after);
	assert_all_reached(&f, &after);
	ck_assert_int_eq(cdg_cycle(&f, &after), 0);
	changed = blocks_differ(&before, &after, &total);
	ck_assert_uint_eq(total, 80 * 4);
	ck_assert_msg(changed > 0 && changed * 100 < total * pct,
	    "node %u port %u: %llu of %llu blocks changed", a, pa,
	    (unsigned long long)changed, (unsigned long long)total);

	route_ftree(&f, &fresh);
	afresh = blocks_differ(&before, &fresh, &total);
	ck_assert_msg(changed <= afresh, "node %u port %u: %llu blocks changed "
	    "with the previous tables, %llu without", a, pa,
	    (unsigned long long)changed, (unsigned long long)afresh);
	lft_set_fini(&fresh);
	lft_set_fini(&after);
	lft_set_fini(&before);
	fabric_fini(&f);
	fabric_fini(&old);
}

START_TEST(test_incremental)
{
	/* aggregation 1 of pod 5 <-> core (1, 2) */
	check_incremental(ft3_agg(8, 5, 1), 4 + 1 + 2, 15);
	/*
	 * Edge 2 of pod 6 <-> aggregation 3: the HCA whose main path climbed
	 * that cable comes down another plane now, and every edge switch's
	 * route to it follows (at k = 8 one LID is a quarter of a row).
	 */
	check_incremental(ft3_edge(8, 6, 2), 4 + 1 + 3, 25);
	/* above the hub (edge 0 of pod 0): the hub moves to another pod and
	 * the routes that turn there with it */
	check_incremental(ft3_agg(8, 0, 0), 4 + 1 + 0, 35);
}
END_TEST

START_TEST(test_repair_keeps_hub)
{
	struct fabric broken, f;
	struct lft_set before, after, fresh;
	struct routing_opts o;
	uint64_t changed, afresh, total;

	/* the hub moved away from pod 0 when a cable above it broke; once
	 * repaired, pod 0 is as good again but the hub stays */
	fabric_init(&broken);
	testfab_ft3(&broken, 8);
	testfab_unlink(&broken, ft3_agg(8, 0, 0), 4 + 1 + 0);
	route_ftree(&broken, &before);
	fabric_init(&f);
	testfab_ft3(&f, 8);
	memset(&o, 0, sizeof(o));
	o.prev = &before;
	o.prev_fabric = &broken;
	route_with(&f, &o, &after);
	assert_ca_shortest(&f, &after);
	ck_assert_int_eq(cdg_cycle(&f, &after), 0);
	route_ftree(&f, &fresh);
	changed = blocks_differ(&before, &after, &total);
	afresh = blocks_differ(&before, &fresh, &total);
	ck_assert_msg(changed * 100 < total * 15 && changed * 2 < afresh,
	    "%llu blocks changed, %llu afresh, of %llu",
	    (unsigned long long)changed, (unsigned long long)afresh,
	    (unsigned long long)total);
	lft_set_fini(&fresh);
	lft_set_fini(&after);
	lft_set_fini(&before);
	fabric_fini(&f);
	fabric_fini(&broken);
}
END_TEST

START_TEST(test_deterministic)
{
	struct fabric f;
	struct lft_set s, again;

	fabric_init(&f);
	testfab_ft3(&f, 8);
	testfab_remove_links(&f, 0.05, 3);
	route_ftree(&f, &s);
	route_ftree(&f, &again);
	ck_assert_int_eq(memcmp(s.port, again.port,
	    (size_t)s.nsw * (s.max_lid + 1u)), 0);
	lft_set_fini(&again);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_parallel_links)
{
	struct fabric f;
	struct lft_set s;
	struct spread up, down;
	uint8_t *ca;
	unsigned i, j;
	uint32_t hca;

	/* 4 leaves with two cables to each of 2 spines, 6 HCAs each */
	fabric_init(&f);
	for (i = 0; i < 4; i++)
		testfab_switch(&f, 10);
	for (j = 0; j < 2; j++)
		testfab_switch(&f, 8);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			testfab_connect(&f, i, (uint8_t)(7 + j), 4 + j / 2,
			    (uint8_t)(2 * i + j % 2 + 1));
	for (i = 0; i < 4; i++)
		for (j = 0; j < 6; j++) {
			hca = testfab_ca(&f, 1);
			testfab_connect(&f, i, (uint8_t)(j + 1), hca, 1);
		}
	testfab_lids(&f);
	route_ftree(&f, &s);
	assert_all_shortest(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ca = ca_lids(&f);
	spread_init(&up, "leaf up cables");
	spread_init(&down, "spine down cables");
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			spread_add(&up, ca_load(&s, ca, i, (uint8_t)(7 + j)));
	for (j = 0; j < 2; j++)
		for (i = 0; i < 8; i++)
			spread_add(&down, ca_load(&s, ca, 4 + j,
			    (uint8_t)(i + 1)));
	spread_assert(&up);
	spread_assert(&down);
	free(ca);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_unconnected_ca)
{
	struct fabric f;
	struct lft_set s;
	struct testfab_stats st;
	uint32_t lone, sw;
	uint16_t lid;

	fabric_init(&f);
	testfab_ft2(&f, 4);
	lone = testfab_ca(&f, 1);       /* cabled to nothing */
	testfab_lids(&f);
	lid = f.ports[fabric_port_idx(&f, lone, 1)].lid;
	route_ftree(&f, &s);
	for (sw = 0; sw < s.nsw; sw++)
		ck_assert_uint_eq(lft_row(&s, sw)[lid], LFT_NO_ROUTE);
	testfab_check(&f, &s, &st);
	ck_assert_uint_eq(st.bad, 0);
	ck_assert_uint_eq(st.unroutable, s.nsw);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

static char logged[2048];

static void
capture(const char *msg)
{
	size_t len = strlen(logged);

	snprintf(logged + len, sizeof(logged) - len, "%s\n", msg);
}

START_TEST(test_chain)
{
	const struct routing_engine *chain[2] = { &re_ftree, &re_minhop };
	struct fabric f;
	struct lft_set s;
	struct route_report rep;

	/* not a tree: ftree says why and minhop routes */
	fabric_init(&f);
	testfab_ring(&f, 5, 2);
	logged[0] = '\0';
	ck_assert_int_eq(routing_run(chain, 2, &f, NULL, &s, &rep, capture), 0);
	ck_assert_str_eq(rep.engine, "minhop");
	ck_assert_msg(strstr(logged, "ftree failed") != NULL &&
	    strstr(logged, "same rank") != NULL, "logged: %s", logged);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* a tree: ftree routes */
	fabric_init(&f);
	testfab_ft3(&f, 4);
	ck_assert_int_eq(routing_run(chain, 2, &f, NULL, &s, &rep, NULL), 0);
	ck_assert_str_eq(rep.engine, "ftree");
	ck_assert_uint_eq(rep.unreachable, 0);
	ck_assert_uint_eq(rep.lids, s.max_lid);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* The cycle search finds one where there is one: minhop on a ring. */
START_TEST(test_checker_sees_cycles)
{
	struct fabric f;
	struct lft_set s;
	char why[64];

	fabric_init(&f);
	testfab_ring(&f, 6, 1);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(re_minhop.route(&f, &no_opts, &s, why, sizeof(why)), 0);
	ck_assert_int_eq(cdg_cycle(&f, &s), 1);
	ck_assert_int_eq(cdg_cycle_ca(&f, &s), 1);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* ------------------------------------------------------------ LMC */

/* LIDs in port order as testfab_lids() gives them, but each CA port an
 * aligned block of 2^lmc (switch port 0: one LID). */
static void
lids_lmc(struct fabric *f, uint8_t lmc)
{
	uint32_t p;
	uint16_t lid = 1, n = (uint16_t)(1u << lmc);

	for (p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p))
			fabric_set_lid(f, p, 0, 0);
	for (p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p))
			continue;
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH) {
			fabric_set_lid(f, p, lid++, 0);
			continue;
		}
		lid = (uint16_t)((lid + n - 1) & ~(n - 1));
		fabric_set_lid(f, p, lid, lmc);
		lid = (uint16_t)(lid + n);
	}
}

/* Every switch reaches every LID of every CA port along a shortest path. */
static void
assert_lids_shortest(const struct fabric *f, const struct lft_set *s)
{
	struct testfab_stats st;
	uint8_t *ca = calloc((size_t)UINT16_MAX + 1, 1);
	uint32_t p, k;

	ck_assert_ptr_nonnull(ca);
	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    f->ports[p].lid != 0)
			for (k = 0; k < (1u << f->ports[p].lmc); k++)
				ca[f->ports[p].lid + k] = 1;
	testfab_check_lids(f, s, ca, &st);
	ck_assert_msg(st.bad == 0, "%llu bad pairs to CAs, first: %s",
	    (unsigned long long)st.bad, st.first);
	ck_assert_uint_eq(st.shortest, st.pairs);
	ck_assert_uint_gt(st.pairs, 0);
	free(ca);
}

/* The switch node a CA port hangs off, FABRIC_NONE if none. */
static uint32_t
leaf_of(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	if (q == FABRIC_NONE || f->nodes[f->ports[q].node].type != NODE_SWITCH)
		return FABRIC_NONE;
	return f->ports[q].node;
}

/*
 * The share (in percent) of CA ports whose LIDs leave every other leaf
 * through pairwise different up ports (as many different as the leaf has
 * up ports, when it has fewer than 2^lmc). Leaves: switches with CAs; up
 * ports: their ports cabled to switches.
 */
static unsigned
lmc_spread_share(const struct fabric *f, const struct lft_set *s)
{
	uint32_t p, sw, n, q, k, nup, distinct, nca = 0, good = 0, own, nl;
	const struct fabric_node *nd;
	uint8_t *leaf = calloc(f->nnodes, 1), seen[256];
	const uint8_t *row;
	int ok;

	ck_assert_ptr_nonnull(leaf);
	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    (n = leaf_of(f, p)) != FABRIC_NONE)
			leaf[n] = 1;
	for (p = 0; p < f->nports; p++) {
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH ||
		    f->ports[p].lid == 0 ||
		    (own = leaf_of(f, p)) == FABRIC_NONE)
			continue;
		nl = 1u << f->ports[p].lmc;
		nca++;
		ok = 1;
		for (sw = 0; sw < s->nsw && ok; sw++) {
			n = s->sw_node[sw];
			if (!leaf[n] || n == own)
				continue;
			nd = &f->nodes[n];
			for (k = 1, nup = 0; k <= nd->nports; k++) {
				q = f->ports[nd->port0 + k].peer;
				nup += q != FABRIC_NONE && f->nodes[
				    f->ports[q].node].type == NODE_SWITCH;
			}
			row = lft_row(s, sw);
			memset(seen, 0, sizeof(seen));
			for (k = 0, distinct = 0; k < nl; k++)
				if (!seen[row[f->ports[p].lid + k]]++)
					distinct++;
			if (distinct < (nl < nup ? nl : nup))
				ok = 0;
		}
		good += ok;
	}
	free(leaf);
	ck_assert_uint_gt(nca, 0);
	return good * 100 / nca;
}

/*
 * All-to-all traffic: every CA port sends to every other CA port's base
 * LID (base != 0) or to every LID of its block; load[p] counts the routes
 * that leave by switch port p (fabric port index), walked over the tables.
 */
static void
traffic(const struct fabric *f, const struct lft_set *s, int base,
    uint32_t *load)
{
	uint32_t a, b, v, n, k, hops, nl;
	uint16_t lid;
	uint8_t port;

	memset(load, 0, f->nports * sizeof(*load));
	for (a = 0; a < f->nports; a++) {
		if (f->nodes[f->ports[a].node].type == NODE_SWITCH ||
		    f->ports[a].lid == 0 || leaf_of(f, a) == FABRIC_NONE)
			continue;
		for (b = 0; b < f->nports; b++) {
			if (b == a || f->nodes[f->ports[b].node].type ==
			    NODE_SWITCH || f->ports[b].lid == 0)
				continue;
			nl = base ? 1 : 1u << f->ports[b].lmc;
			for (k = 0; k < nl; k++) {
				lid = (uint16_t)(f->ports[b].lid + k);
				n = leaf_of(f, a);
				for (hops = 0; hops < 16; hops++) {
					v = s->node_sw[n];
					port = lft_row(s, v)[lid];
					ck_assert_uint_ne(port, LFT_NO_ROUTE);
					load[f->nodes[n].port0 + port]++;
					n = fabric_peer_node(f,
					    f->nodes[n].port0 + port);
					if (f->nodes[n].type != NODE_SWITCH)
						break;
				}
				ck_assert_uint_eq(n, f->ports[b].node);
			}
		}
	}
}

/*
 * A fat tree (ft2 or ft3 of k) with LMC lmc: every LID delivered along a
 * shortest path; the LIDs of every CA port leave every other leaf through
 * different up ports; all-to-all traffic to the base LIDs loads every
 * port exactly as with LMC 0; to every LID, no port carries more than
 * 2^lmc times the busiest with LMC 0.
 */
static void
check_lmc(int three, unsigned k, uint8_t lmc)
{
	struct fabric f0, f;
	struct lft_set s0, s;
	uint32_t p, *l0, *l, busy0 = 0, busy = 0;

	fabric_init(&f0);
	fabric_init(&f);
	if (three) {
		testfab_ft3(&f0, k);
		testfab_ft3(&f, k);
	} else {
		testfab_ft2(&f0, k);
		testfab_ft2(&f, k);
	}
	lids_lmc(&f, lmc);
	route_ftree(&f0, &s0);
	route_ftree(&f, &s);
	assert_all_reached(&f, &s);
	assert_lids_shortest(&f, &s);
	ck_assert_int_eq(cdg_cycle(&f, &s), 0);
	ck_assert_uint_eq(lmc_spread_share(&f0, &s0), 100);
	ck_assert_uint_eq(lmc_spread_share(&f, &s), 100);
	ck_assert_uint_eq(f.nports, f0.nports);
	l0 = calloc(f.nports, sizeof(*l0));
	l = calloc(f.nports, sizeof(*l));
	ck_assert_ptr_nonnull(l0);
	ck_assert_ptr_nonnull(l);
	traffic(&f0, &s0, 1, l0);
	traffic(&f, &s, 1, l);
	for (p = 0; p < f.nports; p++)
		ck_assert_msg(l[p] == l0[p], "port %u of node %u: %u routes to "
		    "base LIDs with LMC %u, %u with LMC 0", f.ports[p].num,
		    f.ports[p].node, l[p], lmc, l0[p]);
	traffic(&f, &s, 0, l);
	for (p = 0; p < f.nports; p++) {
		busy0 = l0[p] > busy0 ? l0[p] : busy0;
		busy = l[p] > busy ? l[p] : busy;
	}
	ck_assert_uint_le(busy, busy0 << lmc);
	free(l0);
	free(l);
	lft_set_fini(&s0);
	lft_set_fini(&s);
	fabric_fini(&f0);
	fabric_fini(&f);
}

START_TEST(test_lmc_ft2)
{
	check_lmc(0, 8, 1);
	check_lmc(0, 8, 2);
	check_lmc(0, 16, 3);
}
END_TEST

START_TEST(test_lmc_ft3)
{
	check_lmc(1, 4, 1);
	check_lmc(1, 8, 1);
	check_lmc(1, 8, 2);
}
END_TEST

static Suite *
ftree_suite(void)
{
	Suite *s = suite_create("ftree");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_checker_sees_cycles);
	tcase_add_test(tc, test_ft2_8);
	tcase_add_test(tc, test_ft2_16);
	tcase_add_test(tc, test_ft3_4);
	tcase_add_test(tc, test_ft3_8);
	tcase_add_test(tc, test_ft3_12);
	tcase_add_test(tc, test_ft3_converges);
	tcase_add_test(tc, test_ft3_links_removed);
	tcase_add_test(tc, test_port_down);
	tcase_add_test(tc, test_refuses);
	tcase_add_test(tc, test_ring4_is_a_tree);
	tcase_add_test(tc, test_cas_on_two_levels);
	tcase_add_test(tc, test_root_guids);
	tcase_add_test(tc, test_incremental);
	tcase_add_test(tc, test_repair_keeps_hub);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_parallel_links);
	tcase_add_test(tc, test_unconnected_ca);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_lmc_ft2);
	tcase_add_test(tc, test_lmc_ft3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ftree_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
