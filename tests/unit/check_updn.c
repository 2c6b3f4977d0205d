/*
 * updn on fabrics built in memory. Tables are judged here with our own
 * means: ranks recomputed by BFS from the roots the rule should pick (or
 * were given), every (switch, LID) walked hop by hop and its path checked
 * to be up then down, pairs left unrouted checked to have no legal path
 * at all, and the channel dependency graph checked both by cdg_acyclic()
 * and by a slow dependency matrix peeled here.
 */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "core/fabric.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

#define NONE UINT32_MAX

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	ck_assert_ptr_nonnull(p);
	return p;
}

static int
route_updn(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *s, char *why, size_t len)
{
	ck_assert_int_eq(lft_set_init(s, f), 0);
	return re_updn.route(f, o, s, why, len);
}

static void
route_ok(const struct fabric *f, const struct routing_opts *o,
    struct lft_set *s)
{
	char why[256] = "";

	ck_assert_msg(route_updn(f, o, s, why, sizeof(why)) == 0,
	    "updn failed: %s", why);
}

static const struct routing_opts no_opts;

/* ---- the fabric as the judge sees it ---- */

static int
live(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != FABRIC_NONE && f->ports[p].state != PORT_DOWN &&
	    f->ports[q].state != PORT_DOWN;
}

/* Switch index behind port p of a switch, NONE if none (or itself). */
static uint32_t
next_sw(const struct fabric *f, const struct lft_set *s, uint32_t p)
{
	uint32_t peer;

	if (!live(f, p))
		return NONE;
	peer = fabric_peer_node(f, p);
	if (f->nodes[peer].type != NODE_SWITCH || peer == f->ports[p].node)
		return NONE;
	return s->node_sw[peer];
}

static uint64_t
guid(const struct fabric *f, const struct lft_set *s, uint32_t sw)
{
	return f->nodes[s->sw_node[sw]].guid;
}

/* Plain BFS distances between all switches. */
static uint32_t *
all_dist(const struct fabric *f, const struct lft_set *s)
{
	uint32_t n = s->nsw, *d = xcalloc((size_t)n * n, sizeof(*d));
	uint32_t *q = xcalloc(n, sizeof(*q)), src, h, t, u, v, p;
	const struct fabric_node *nd;

	for (src = 0; src < n; src++) {
		uint32_t *row = d + (size_t)src * n;

		for (u = 0; u < n; u++)
			row[u] = NONE;
		row[src] = 0;
		h = t = 0;
		q[t++] = src;
		while (h < t) {
			u = q[h++];
			nd = &f->nodes[s->sw_node[u]];
			for (p = nd->port0 + 1; p <= nd->port0 + nd->nports; p++)
				if ((v = next_sw(f, s, p)) != NONE &&
				    row[v] == NONE) {
					row[v] = row[u] + 1;
					q[t++] = v;
				}
		}
	}
	free(q);
	return d;
}

/* The switch an end port hangs off, NONE if none. */
static uint32_t
home(const struct fabric *f, const struct lft_set *s, uint32_t p)
{
	uint32_t q;

	if (f->nodes[f->ports[p].node].type == NODE_SWITCH)
		return s->node_sw[f->ports[p].node];
	if (!live(f, p))
		return NONE;
	q = f->ports[p].peer;
	if (f->nodes[f->ports[q].node].type != NODE_SWITCH)
		return NONE;
	return s->node_sw[f->ports[q].node];
}

/*
 * The root the documented rule picks in the piece of switch `in`: least
 * eccentricity, then most CAs, then most inter-switch links, then lowest
 * GUID.
 */
static uint32_t
expected_root(const struct fabric *f, const struct lft_set *s, uint32_t in)
{
	uint32_t n = s->nsw, *d = all_dist(f, s), sw, p, best = NONE;
	uint32_t *links = xcalloc(n, sizeof(*links)), *ecc, *cas;
	const struct fabric_node *nd;
	int better;

	ecc = xcalloc(n, sizeof(*ecc));
	cas = xcalloc(n, sizeof(*cas));
	for (p = 0; p < f->nports; p++)
		if (f->nodes[f->ports[p].node].type != NODE_SWITCH &&
		    fabric_port_is_endport(f, p) && (sw = home(f, s, p)) != NONE)
			cas[sw]++;
	for (sw = 0; sw < n; sw++) {
		nd = &f->nodes[s->sw_node[sw]];
		for (p = nd->port0 + 1; p <= nd->port0 + nd->nports; p++)
			links[sw] += next_sw(f, s, p) != NONE;
		for (p = 0; p < n; p++)
			if (d[(size_t)sw * n + p] != NONE &&
			    d[(size_t)sw * n + p] > ecc[sw])
				ecc[sw] = d[(size_t)sw * n + p];
	}
	for (sw = 0; sw < n; sw++) {
		if (d[(size_t)in * n + sw] == NONE)
			continue;
		if (best == NONE)
			better = 1;
		else if (ecc[sw] != ecc[best])
			better = ecc[sw] < ecc[best];
		else if (cas[sw] != cas[best])
			better = cas[sw] > cas[best];
		else if (links[sw] != links[best])
			better = links[sw] > links[best];
		else
			better = guid(f, s, sw) < guid(f, s, best);
		if (better)
			best = sw;
	}
	free(d);
	free(links);
	free(cas);
	free(ecc);
	return best;
}

/* ---- the judge: ranks from the roots, walks, legality ---- */

struct judge {
	const struct fabric *f;
	const struct lft_set *s;
	uint32_t n;
	uint32_t *rank;
	uint8_t *upc;           /* [n][n]: row u reaches column w going up */
	uint32_t *dist;
};

struct verdict {
	uint64_t pairs;         /* (switch, LID) */
	uint64_t reached;
	uint64_t shortest;      /* reached along a shortest path */
	uint64_t illegal;       /* reached, but went up after going down */
	uint64_t unreached;
	uint64_t missed;        /* unreached, though a legal path exists */
	uint64_t phantom;       /* reached, though no legal path exists */
	uint64_t ca_pairs;      /* pairs whose LID is a CA's */
	uint64_t ca_shortest;
	char first[240];
};

/* v nearer the roots than u: the hop u -> v goes up. */
static int
goes_up(const struct judge *j, uint32_t u, uint32_t v)
{
	return j->rank[v] < j->rank[u] || (j->rank[v] == j->rank[u] &&
	    guid(j->f, j->s, v) < guid(j->f, j->s, u));
}

static void
judge_init(struct judge *j, const struct fabric *f, const struct lft_set *s,
    const uint32_t *roots, size_t nroots)
{
	uint32_t n = s->nsw, *q = xcalloc(n, sizeof(*q)), h = 0, t = 0, u, v, p;
	uint32_t src;
	const struct fabric_node *nd;
	size_t i;

	memset(j, 0, sizeof(*j));
	j->f = f;
	j->s = s;
	j->n = n;
	j->rank = xcalloc(n, sizeof(*j->rank));
	for (u = 0; u < n; u++)
		j->rank[u] = NONE;
	for (i = 0; i < nroots; i++) {
		j->rank[roots[i]] = 0;
		q[t++] = roots[i];
	}
	while (h < t) {
		u = q[h++];
		nd = &f->nodes[s->sw_node[u]];
		for (p = nd->port0 + 1; p <= nd->port0 + nd->nports; p++)
			if ((v = next_sw(f, s, p)) != NONE && j->rank[v] == NONE) {
				j->rank[v] = j->rank[u] + 1;
				q[t++] = v;
			}
	}
	/* up-closures, by a search along up hops from every switch */
	j->upc = xcalloc((size_t)n * n, 1);
	for (src = 0; src < n; src++) {
		uint8_t *row = j->upc + (size_t)src * n;

		h = t = 0;
		row[src] = 1;
		q[t++] = src;
		while (h < t) {
			u = q[h++];
			nd = &f->nodes[s->sw_node[u]];
			for (p = nd->port0 + 1; p <= nd->port0 + nd->nports; p++)
				if ((v = next_sw(f, s, p)) != NONE && !row[v] &&
				    goes_up(j, u, v)) {
					row[v] = 1;
					q[t++] = v;
				}
		}
	}
	j->dist = all_dist(f, s);
	free(q);
}

static void
judge_fini(struct judge *j)
{
	free(j->rank);
	free(j->upc);
	free(j->dist);
}

/* A legal path u -> t exists: some switch both reach going up. */
static int
legal_exists(const struct judge *j, uint32_t u, uint32_t t)
{
	uint32_t w;

	for (w = 0; w < j->n; w++)
		if (j->upc[(size_t)u * j->n + w] && j->upc[(size_t)t * j->n + w])
			return 1;
	return 0;
}

/* Follow lid from sw: switch hops, or -1; *illegal set on up after down. */
static long
walk(const struct judge *j, uint32_t sw, uint16_t lid, uint32_t dport,
    int *illegal)
{
	const struct fabric *f = j->f;
	const struct fabric_node *nd;
	uint32_t q, next;
	int down = 0;
	long hops;
	uint8_t port;

	*illegal = 0;
	for (hops = 0; hops <= (long)j->n; hops++) {
		nd = &f->nodes[j->s->sw_node[sw]];
		port = lft_row(j->s, sw)[lid];
		if (port == 0)
			return dport == nd->port0 ? hops : -1;
		if (port == LFT_NO_ROUTE || port > nd->nports ||
		    !live(f, nd->port0 + port))
			return -1;
		q = f->ports[nd->port0 + port].peer;
		if (q == dport)
			return hops;
		if ((next = next_sw(f, j->s, nd->port0 + port)) == NONE)
			return -1;
		if (goes_up(j, sw, next)) {
			if (down)
				*illegal = 1;
		} else
			down = 1;
		sw = next;
	}
	return -1;
}

static void
note(struct verdict *v, uint32_t sw, uint16_t lid, const char *what)
{
	if (v->first[0] == '\0')
		snprintf(v->first, sizeof(v->first), "switch %u LID %u: %s",
		    sw, lid, what);
}

static void
judge_tables(const struct judge *j, struct verdict *v)
{
	const struct fabric *f = j->f;
	uint8_t *seen = xcalloc((size_t)UINT16_MAX + 1, 1);
	uint32_t p, sw, t;
	uint16_t lid;
	long hops;
	int illegal, exists, is_ca;

	memset(v, 0, sizeof(*v));
	for (p = 0; p < f->nports; p++) {
		lid = f->ports[p].lid;
		if (!fabric_port_is_endport(f, p) || lid == 0 || seen[lid])
			continue;
		seen[lid] = 1;
		t = home(f, j->s, p);
		is_ca = f->nodes[f->ports[p].node].type != NODE_SWITCH;
		for (sw = 0; sw < j->n; sw++) {
			v->pairs++;
			v->ca_pairs += is_ca;
			hops = walk(j, sw, lid, p, &illegal);
			exists = t != NONE && legal_exists(j, sw, t);
			if (hops < 0) {
				v->unreached++;
				if (exists) {
					v->missed++;
					note(v, sw, lid, "no route, a legal path "
					    "exists");
				}
				continue;
			}
			v->reached++;
			if (illegal) {
				v->illegal++;
				note(v, sw, lid, "goes up after going down");
			}
			if (!exists) {
				v->phantom++;
				note(v, sw, lid, "reached with no legal path");
			}
			if ((uint32_t)hops == j->dist[(size_t)sw * j->n + t]) {
				v->shortest++;
				v->ca_shortest += is_ca;
			}
		}
	}
	free(seen);
}

/* Every route legal, every pair with a legal path routed. */
static void
judge(const struct fabric *f, const struct lft_set *s, const uint32_t *roots,
    size_t nroots, struct verdict *v)
{
	struct judge j;

	judge_init(&j, f, s, roots, nroots);
	judge_tables(&j, v);
	judge_fini(&j);
	ck_assert_msg(v->illegal == 0 && v->missed == 0 && v->phantom == 0,
	    "illegal %" PRIu64 ", missed %" PRIu64 ", phantom %" PRIu64
	    "; first: %s", v->illegal, v->missed, v->phantom, v->first);
	ck_assert_uint_gt(v->pairs, 0);
}

/* Judged against the root the rule picks; every pair reached. */
static void
judge_auto(const struct fabric *f, const struct lft_set *s)
{
	struct verdict v;
	uint32_t root = expected_root(f, s, 0);

	judge(f, s, &root, 1, &v);
	ck_assert_uint_eq(v.unreached, 0);
}

/* ---- channel dependencies, the slow way ---- */

/* 1 when the dependency matrix peels completely (Kahn). */
static int
slow_acyclic(const struct fabric *f, const struct lft_set *s)
{
	uint32_t n = 0, *id = xcalloc((size_t)s->nsw * 256, sizeof(*id));
	uint32_t sw, far, a, b, c, lid, *indeg, *queue, h = 0, t = 0;
	const struct fabric_node *nd;
	unsigned port, q;
	uint8_t *dep;

	for (sw = 0; sw < s->nsw; sw++) {
		nd = &f->nodes[s->sw_node[sw]];
		for (port = 0; port < 256; port++)
			id[sw * 256 + port] = port >= 1 && port <= nd->nports &&
			    port < 255 && live(f, nd->port0 + port) &&
			    f->nodes[fabric_peer_node(f, nd->port0 + port)].type ==
			    NODE_SWITCH ? n++ : NONE;
	}
	dep = xcalloc((size_t)n * n, 1);
	for (lid = 1; lid <= s->max_lid; lid++)
		for (sw = 0; sw < s->nsw; sw++) {
			port = lft_row(s, sw)[lid];
			if ((a = id[sw * 256 + port]) == NONE)
				continue;
			nd = &f->nodes[s->sw_node[sw]];
			far = s->node_sw[fabric_peer_node(f, nd->port0 + port)];
			q = lft_row(s, far)[lid];
			if ((b = id[far * 256 + q]) != NONE)
				dep[(size_t)a * n + b] = 1;
		}
	indeg = xcalloc(n, sizeof(*indeg));
	queue = xcalloc(n, sizeof(*queue));
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			indeg[b] += dep[(size_t)a * n + b];
	for (c = 0; c < n; c++)
		if (indeg[c] == 0)
			queue[t++] = c;
	while (h < t) {
		a = queue[h++];
		for (b = 0; b < n; b++)
			if (dep[(size_t)a * n + b] && --indeg[b] == 0)
				queue[t++] = b;
	}
	free(id);
	free(dep);
	free(indeg);
	free(queue);
	return t == n;
}

static void
assert_acyclic(const struct fabric *f, const struct lft_set *s)
{
	uint64_t edges = 0;

	ck_assert_int_eq(cdg_acyclic(f, s, &edges), 1);
	ck_assert_int_eq(slow_acyclic(f, s), 1);
}

/* ---- fabrics the builders do not make ---- */

/* x by y torus: +x port 1, -x port 2, +y port 3, -y port 4, HCAs 5... */
static void
torus(struct fabric *f, unsigned x, unsigned y, unsigned hcas)
{
	unsigned i, k, h;
	uint32_t ca;

	for (i = 0; i < x * y; i++)
		testfab_switch(f, (uint8_t)(4 + hcas));
	for (i = 0; i < x; i++)
		for (k = 0; k < y; k++) {
			testfab_connect(f, i * y + k, 1, ((i + 1) % x) * y + k, 2);
			testfab_connect(f, i * y + k, 3, i * y + (k + 1) % y, 4);
		}
	for (i = 0; i < x * y; i++)
		for (h = 0; h < hcas; h++) {
			ca = testfab_ca(f, 1);
			testfab_connect(f, i, (uint8_t)(5 + h), ca, 1);
		}
	testfab_lids(f);
}

/* Destination LIDs that switch node n sends out of port num. */
static unsigned
port_lids(const struct lft_set *s, uint32_t n, uint8_t num)
{
	const uint8_t *row = lft_row(s, s->node_sw[n]);
	unsigned lid, c = 0;

	for (lid = 1; lid <= s->max_lid; lid++)
		c += row[lid] == num;
	return c;
}

/* ---- the tests ---- */

static void
check_ft2(unsigned k)
{
	struct fabric f;
	struct lft_set s;
	struct testfab_stats st;
	unsigned half = k / 2, i, j, c, lo = ~0u, hi = 0, llo, lhi;

	fabric_init(&f);
	testfab_ft2(&f, k);
	route_ok(&f, &no_opts, &s);
	/* the rule roots a fat tree at a leaf: the first, all being equal */
	ck_assert_uint_eq(expected_root(&f, &s, 0), 0);
	judge_auto(&f, &s);
	/* two levels: every pair, switches included, along a shortest path */
	testfab_check(&f, &s, &st);
	ck_assert_msg(st.bad == 0, "%" PRIu64 " bad, first: %s", st.bad,
	    st.first);
	ck_assert_uint_eq(st.shortest, st.pairs);
	assert_acyclic(&f, &s);
	/* as balanced as minhop: up ports within 1, on a leaf and overall */
	for (i = 0; i < k; i++) {
		llo = ~0u;
		lhi = 0;
		for (j = 0; j < half; j++) {
			c = port_lids(&s, i, (uint8_t)(half + 1 + j));
			llo = c < llo ? c : llo;
			lhi = c > lhi ? c : lhi;
		}
		ck_assert_msg(lhi - llo <= 1, "leaf %u: %u..%u", i, llo, lhi);
		lo = llo < lo ? llo : lo;
		hi = lhi > hi ? lhi : hi;
	}
	ck_assert_msg(hi - lo <= 1, "up ports carry %u..%u", lo, hi);
	lft_set_fini(&s);
	fabric_fini(&f);
}

START_TEST(test_ft2)
{
	check_ft2(8);
	check_ft2(16);
}
END_TEST

static void
check_ft3(unsigned k)
{
	struct fabric f;
	struct lft_set s;
	struct verdict v;
	uint32_t root;

	fabric_init(&f);
	testfab_ft3(&f, k);
	route_ok(&f, &no_opts, &s);
	root = expected_root(&f, &s, 0);
	ck_assert_uint_eq(root, 0);     /* edge 0 of pod 0 */
	judge(&f, &s, &root, 1, &v);
	ck_assert_uint_eq(v.unreached, 0);
	/* every route to a CA is a shortest one */
	ck_assert_uint_eq(v.ca_shortest, v.ca_pairs);
	ck_assert_uint_eq(v.ca_pairs, (uint64_t)s.nsw * (k * k * k / 4));
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}

START_TEST(test_ft3)
{
	check_ft3(4);
	check_ft3(8);
}
END_TEST

START_TEST(test_roots_top_level)
{
	struct fabric f;
	struct lft_set s;
	struct verdict v;
	uint64_t guids[16];
	uint32_t roots[16], i;
	struct routing_opts o;

	/* spines as roots: every CA reached by a shortest path; a spine
	 * cannot reach another spine by a legal path, so those 4 x 3 pairs
	 * are all that stay unrouted */
	fabric_init(&f);
	testfab_ft2(&f, 8);
	for (i = 0; i < 4; i++) {
		roots[i] = 8 + i;
		guids[i] = f.nodes[8 + i].guid;
	}
	memset(&o, 0, sizeof(o));
	o.roots = guids;
	o.nroots = 4;
	route_ok(&f, &o, &s);
	judge(&f, &s, roots, 4, &v);
	ck_assert_uint_eq(v.ca_shortest, v.ca_pairs);
	ck_assert_uint_eq(v.unreached, 4 * 3);
	ck_assert_uint_eq(v.shortest, v.reached);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);

	/* cores of a 3-level tree: more switch pairs without a legal path
	 * (aggregations of one pod too), every CA still shortest */
	fabric_init(&f);
	testfab_ft3(&f, 4);
	for (i = 0; i < 4; i++) {
		roots[i] = 16 + i;
		guids[i] = f.nodes[16 + i].guid;
	}
	o.roots = guids;
	o.nroots = 4;
	route_ok(&f, &o, &s);
	judge(&f, &s, roots, 4, &v);
	ck_assert_uint_eq(v.ca_shortest, v.ca_pairs);
	ck_assert_uint_gt(v.unreached, 0);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * A fat tree with the SM's HCA on a spine: the spine has a CA too, but
 * fewer than the leaves, so the root is still a leaf and every pair is
 * routed along a shortest path.
 */
START_TEST(test_ca_on_spine)
{
	struct fabric f;
	struct lft_set s;
	struct testfab_stats st;
	unsigned i, j;
	uint32_t ca;

	fabric_init(&f);
	for (i = 0; i < 8; i++)
		testfab_switch(&f, 8);
	for (j = 0; j < 4; j++)
		testfab_switch(&f, 9);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 4; j++) {
			testfab_connect(&f, i, (uint8_t)(5 + j), 8 + j,
			    (uint8_t)(i + 1));
			ca = testfab_ca(&f, 1);
			testfab_connect(&f, i, (uint8_t)(1 + j), ca, 1);
		}
	ca = testfab_ca(&f, 1);
	testfab_connect(&f, 8, 9, ca, 1);
	testfab_lids(&f);
	route_ok(&f, &no_opts, &s);
	ck_assert_uint_lt(expected_root(&f, &s, 0), 8);
	judge_auto(&f, &s);
	testfab_check(&f, &s, &st);
	ck_assert_msg(st.bad == 0, "%" PRIu64 " bad, first: %s", st.bad,
	    st.first);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_degraded)
{
	struct fabric f;
	struct lft_set s;
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		fabric_init(&f);
		testfab_ft3(&f, 8);
		ck_assert_uint_gt(testfab_remove_links(&f, 0.05, seed), 0);
		route_ok(&f, &no_opts, &s);
		judge_auto(&f, &s);
		assert_acyclic(&f, &s);
		lft_set_fini(&s);
		fabric_fini(&f);

		fabric_init(&f);
		testfab_ft2(&f, 16);
		ck_assert_uint_gt(testfab_remove_links(&f, 0.05, seed), 0);
		route_ok(&f, &no_opts, &s);
		judge_auto(&f, &s);
		assert_acyclic(&f, &s);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
}
END_TEST

START_TEST(test_ring)
{
	struct fabric f;
	struct lft_set s;
	unsigned n;

	for (n = 6; n <= 8; n += 2) {
		fabric_init(&f);
		testfab_ring(&f, n, 2);
		route_ok(&f, &no_opts, &s);
		/* all equally central: the lowest GUID */
		ck_assert_uint_eq(expected_root(&f, &s, 0), 0);
		judge_auto(&f, &s);
		assert_acyclic(&f, &s);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	/* minhop's tables on the same ring have a cycle: the check bites */
	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(re_minhop.route(&f, &no_opts, &s, NULL, 0), 0);
	ck_assert_int_eq(cdg_acyclic(&f, &s, NULL), 0);
	ck_assert_int_eq(slow_acyclic(&f, &s), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_random)
{
	struct fabric f;
	struct lft_set s;
	uint64_t seed;

	for (seed = 1; seed <= 6; seed++) {
		fabric_init(&f);
		testfab_random(&f, 40, 3, 30, seed);
		route_ok(&f, &no_opts, &s);
		judge_auto(&f, &s);
		assert_acyclic(&f, &s);
		lft_set_fini(&s);
		fabric_fini(&f);
	}
	/* more than 64 switches: labels take several passes */
	fabric_init(&f);
	testfab_random(&f, 150, 2, 120, 99);
	route_ok(&f, &no_opts, &s);
	judge_auto(&f, &s);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_torus)
{
	struct fabric f;
	struct lft_set s;

	fabric_init(&f);
	torus(&f, 4, 4, 2);
	route_ok(&f, &no_opts, &s);
	judge_auto(&f, &s);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);

	fabric_init(&f);
	torus(&f, 6, 3, 1);
	route_ok(&f, &no_opts, &s);
	judge_auto(&f, &s);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_roots_given)
{
	struct fabric f;
	struct lft_set s, mine;
	struct verdict v;
	struct routing_opts o;
	uint64_t g[2];
	uint32_t roots[2];

	/* one root: switch 4 of a ring of 8, not the one the rule picks */
	fabric_init(&f);
	testfab_ring(&f, 8, 2);
	route_ok(&f, &no_opts, &s);
	memset(&o, 0, sizeof(o));
	g[0] = f.nodes[4].guid;
	o.roots = g;
	o.nroots = 1;
	route_ok(&f, &o, &mine);
	roots[0] = 4;
	judge(&f, &mine, roots, 1, &v);
	ck_assert_uint_eq(v.unreached, 0);
	ck_assert_int_ne(memcmp(s.port, mine.port,
	    (size_t)s.nsw * (s.max_lid + 1u)), 0);
	assert_acyclic(&f, &mine);
	lft_set_fini(&s);
	lft_set_fini(&mine);
	fabric_fini(&f);

	/* two roots on an irregular fabric, and duplicates are harmless */
	fabric_init(&f);
	testfab_random(&f, 40, 3, 30, 3);
	g[0] = f.nodes[7].guid;
	g[1] = f.nodes[31].guid;
	o.roots = g;
	o.nroots = 2;
	route_ok(&f, &o, &mine);
	roots[0] = 7;
	roots[1] = 31;
	judge(&f, &mine, roots, 2, &v);
	assert_acyclic(&f, &mine);
	g[1] = g[0];
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_int_eq(re_updn.route(&f, &o, &s, NULL, 0), 0);
	judge(&f, &s, roots, 1, &v);
	ck_assert_uint_eq(v.unreached, 0);
	lft_set_fini(&s);
	lft_set_fini(&mine);
	fabric_fini(&f);
}
END_TEST

/*
 * A switch reachable both ways at the same distance takes the down way,
 * which keeps it open to the switches above it. Root r; ranks 1: x, y;
 * 2: u, w (w lower GUID: u -> w goes up); 3: v, t (t higher GUID: v -> t
 * goes down). u reaches t in two hops up (via w) or down (via v); x above
 * u reaches t in three only through u going down.
 */
START_TEST(test_tie_goes_down)
{
	enum { R, X, Y, W, U, V, T };
	struct fabric f;
	struct lft_set s;
	struct verdict v;
	struct routing_opts o;
	struct judge j;
	uint64_t g;
	uint32_t root = R;
	uint16_t lid;
	int illegal;

	fabric_init(&f);
	for (int i = R; i <= T; i++)
		testfab_switch(&f, 4);
	testfab_connect(&f, R, 1, X, 1);
	testfab_connect(&f, R, 2, Y, 1);
	testfab_connect(&f, X, 2, U, 1);
	testfab_connect(&f, Y, 2, W, 1);
	testfab_connect(&f, U, 2, W, 2);
	testfab_connect(&f, U, 3, V, 1);
	testfab_connect(&f, W, 3, T, 1);
	testfab_connect(&f, V, 2, T, 2);
	testfab_lids(&f);
	memset(&o, 0, sizeof(o));
	g = f.nodes[R].guid;
	o.roots = &g;
	o.nroots = 1;
	route_ok(&f, &o, &s);
	judge(&f, &s, &root, 1, &v);
	ck_assert_uint_eq(v.unreached, 0);
	lid = f.ports[fabric_port_idx(&f, T, 0)].lid;
	ck_assert_uint_eq(lft_row(&s, U)[lid], 3);     /* down to v */
	ck_assert_uint_eq(lft_row(&s, X)[lid], 2);
	judge_init(&j, &f, &s, &root, 1);
	ck_assert_int_eq(walk(&j, X, lid, fabric_port_idx(&f, T, 0),
	    &illegal), 3);
	ck_assert_int_eq(illegal, 0);
	judge_fini(&j);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_roots_unknown)
{
	struct fabric f;
	struct lft_set s;
	struct routing_opts o;
	uint64_t g[3];
	char why[256] = "", ca[32];

	fabric_init(&f);
	testfab_ft2(&f, 8);
	g[0] = f.nodes[8].guid;
	g[1] = 0xdeadbeefULL;
	g[2] = f.nodes[20].guid;        /* an HCA */
	memset(&o, 0, sizeof(o));
	o.roots = g;
	o.nroots = 3;
	ck_assert_int_eq(route_updn(&f, &o, &s, why, sizeof(why)), -1);
	snprintf(ca, sizeof(ca), "0x%016" PRIx64, g[2]);
	ck_assert_msg(strstr(why, "0x00000000deadbeef") != NULL &&
	    strstr(why, ca) != NULL && strstr(why, "root") != NULL,
	    "why: %s", why);
	/* nothing written */
	for (size_t i = 0; i < (size_t)s.nsw * (s.max_lid + 1u); i++)
		ck_assert_uint_eq(s.port[i], LFT_NO_ROUTE);
	lft_set_fini(&s);

	/* one unknown is named alone */
	o.nroots = 2;
	why[0] = '\0';
	ck_assert_int_eq(route_updn(&f, &o, &s, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "0x00000000deadbeef") != NULL &&
	    strstr(why, ca) == NULL, "why: %s", why);
	lft_set_fini(&s);
	o.nroots = 1;
	route_ok(&f, &o, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* Entries, and 64-entry blocks, that differ between a and b. */
static unsigned
differ(const struct lft_set *a, const struct lft_set *b, unsigned *blocks)
{
	unsigned sw, lid, n = 0, in_block = 0;

	ck_assert_uint_eq(a->nsw, b->nsw);
	ck_assert_uint_eq(a->max_lid, b->max_lid);
	*blocks = 0;
	for (sw = 0; sw < a->nsw; sw++)
		for (lid = 0; lid <= a->max_lid; lid++) {
			if (lid % 64 == 0)
				in_block = 0;
			if (lft_row(a, sw)[lid] == lft_row(b, sw)[lid])
				continue;
			n++;
			if (!in_block++)
				(*blocks)++;
		}
	return n;
}

/*
 * ft3 k=8 routed, one cable lost, routed again with the previous tables:
 * only entries whose port is no longer among the best change, a fraction
 * of those that change when routed afresh, and few blocks.
 */
static void
check_incremental(uint32_t node, uint8_t port, unsigned most)
{
	const struct routing_engine *chain[1] = { &re_updn };
	struct fabric old, now;
	struct lft_set was, is, fresh;
	struct route_report rep;
	struct routing_opts o;
	unsigned total, kept, kept_blocks, afresh, afresh_blocks;

	fabric_init(&old);
	testfab_ft3(&old, 8);
	fabric_init(&now);
	testfab_ft3(&now, 8);
	testfab_unlink(&now, node, port);
	ck_assert_int_eq(routing_run(chain, 1, &old, NULL, &was, &rep, NULL), 0);
	total = was.nsw * (was.max_lid / 64u + 1u);
	ck_assert_uint_eq(rep.blocks_changed, total);   /* no previous */

	memset(&o, 0, sizeof(o));
	o.prev_fabric = &old;
	o.prev = &was;
	ck_assert_int_eq(routing_run(chain, 1, &now, &o, &is, &rep, NULL), 0);
	ck_assert_str_eq(rep.engine, "updn");
	ck_assert_uint_eq(rep.unreachable, 0);
	kept = differ(&was, &is, &kept_blocks);
	ck_assert_uint_eq(rep.blocks_changed, kept_blocks);
	route_ok(&now, &no_opts, &fresh);
	afresh = differ(&was, &fresh, &afresh_blocks);
	ck_assert_msg(kept > 0 && kept * 2 <= afresh && kept_blocks <= most &&
	    kept_blocks <= afresh_blocks, "%u entries, %u of %u blocks "
	    "changed (afresh: %u entries, %u blocks)", kept, kept_blocks,
	    total, afresh, afresh_blocks);
	judge_auto(&now, &is);
	assert_acyclic(&now, &is);
	lft_set_fini(&was);
	lft_set_fini(&is);
	lft_set_fini(&fresh);
	fabric_fini(&old);
	fabric_fini(&now);
}

START_TEST(test_incremental)
{
	/* edge 0 of pod 1 (node 4) to its aggregation 0 (port 5): every
	 * switch moves some of that edge's 5 LIDs off the lost cable; 4
	 * blocks of 64 LIDs a switch make that a quarter of the blocks */
	check_incremental(4, 5, 80);
	/* aggregation 0 of pod 1 (node 36) to its first core (port 5) */
	check_incremental(36, 5, 32);
}
END_TEST

START_TEST(test_deterministic)
{
	struct fabric f;
	struct lft_set a, b;

	fabric_init(&f);
	testfab_random(&f, 150, 2, 120, 7);
	route_ok(&f, &no_opts, &a);
	route_ok(&f, &no_opts, &b);
	ck_assert_int_eq(memcmp(a.port, b.port,
	    (size_t)a.nsw * (a.max_lid + 1u)), 0);
	lft_set_fini(&a);
	lft_set_fini(&b);
	fabric_fini(&f);

	fabric_init(&f);
	testfab_ft3(&f, 8);
	route_ok(&f, &no_opts, &a);
	route_ok(&f, &no_opts, &b);
	ck_assert_int_eq(memcmp(a.port, b.port,
	    (size_t)a.nsw * (a.max_lid + 1u)), 0);
	lft_set_fini(&a);
	lft_set_fini(&b);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_pieces)
{
	struct fabric f;
	struct lft_set s;
	struct verdict v;
	uint32_t roots[2];

	/* a ring of 6 cut twice: lines 1-2-3 and 4-5-0, each rooted at
	 * its centre; LIDs of the other piece stay unrouted */
	fabric_init(&f);
	testfab_ring(&f, 6, 2);
	testfab_unlink(&f, 0, 1);
	testfab_unlink(&f, 3, 1);
	route_ok(&f, &no_opts, &s);
	roots[0] = expected_root(&f, &s, 1);
	roots[1] = expected_root(&f, &s, 4);
	ck_assert_uint_eq(roots[0], 2);
	ck_assert_uint_eq(roots[1], 5);
	judge(&f, &s, roots, 2, &v);
	ck_assert_uint_eq(v.unreached, 6 * 3 * 3);
	assert_acyclic(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_odd_cabling)
{
	struct fabric f;
	struct lft_set s;
	struct verdict v;
	uint32_t a, b, hca, lone, roots[1];
	unsigned i;

	/* two parallel cables share the load; a looped-back cable, a DOWN
	 * port and a CA cabled to nothing are ignored */
	fabric_init(&f);
	a = testfab_switch(&f, 10);
	b = testfab_switch(&f, 10);
	testfab_connect(&f, a, 1, b, 1);
	testfab_connect(&f, a, 2, b, 2);
	testfab_connect(&f, a, 9, a, 10);
	testfab_connect(&f, b, 9, a, 8);
	for (i = 0; i < 5; i++) {
		hca = testfab_ca(&f, 1);
		testfab_connect(&f, a, (uint8_t)(3 + i), hca, 1);
		hca = testfab_ca(&f, 1);
		testfab_connect(&f, b, (uint8_t)(3 + i), hca, 1);
	}
	lone = testfab_ca(&f, 1);
	testfab_lids(&f);
	roots[0] = 0;
	f.ports[fabric_port_idx(&f, b, 9)].state = PORT_DOWN;
	route_ok(&f, &no_opts, &s);
	ck_assert_uint_eq(port_lids(&s, a, 1), 3);
	ck_assert_uint_eq(port_lids(&s, a, 2), 3);
	ck_assert_uint_eq(port_lids(&s, b, 1), 3);
	ck_assert_uint_eq(port_lids(&s, b, 2), 3);
	ck_assert_uint_eq(port_lids(&s, a, 8), 0);
	ck_assert_uint_eq(port_lids(&s, a, 9), 0);
	ck_assert_uint_eq(port_lids(&s, a, 10), 0);
	ck_assert_uint_eq(lft_row(&s, 0)[f.ports[fabric_port_idx(&f, lone,
	    1)].lid], LFT_NO_ROUTE);
	ck_assert_uint_eq(expected_root(&f, &s, 0), 0);
	judge(&f, &s, roots, 1, &v);
	ck_assert_uint_eq(v.unreached, 2);     /* the lone CA */
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_no_switch)
{
	const struct routing_engine *chain[1] = { &re_updn };
	struct fabric f;
	struct lft_set s;
	struct route_report rep;
	char why[128] = "";

	fabric_init(&f);
	testfab_ca(&f, 1);
	testfab_lids(&f);
	ck_assert_int_eq(route_updn(&f, &no_opts, &s, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "no switch") != NULL, "why: %s", why);
	lft_set_fini(&s);
	ck_assert_int_eq(routing_run(chain, 1, &f, NULL, &s, &rep, NULL), -1);
	fabric_fini(&f);

	/* one lone switch with CAs routes them */
	fabric_init(&f);
	testfab_ring(&f, 1, 3);
	route_ok(&f, &no_opts, &s);
	judge_auto(&f, &s);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_report)
{
	const struct routing_engine *chain[1] = { &re_updn };
	struct fabric f;
	struct lft_set s;
	struct route_report rep;

	fabric_init(&f);
	testfab_ft2(&f, 8);
	ck_assert_int_eq(routing_run(chain, 1, &f, NULL, &s, &rep, NULL), 0);
	ck_assert_str_eq(rep.engine, "updn");
	ck_assert_uint_eq(rep.lids, s.max_lid);
	ck_assert_uint_eq(rep.unreachable, 0);
	/* leaf to leaf through a spine, nothing longer */
	ck_assert_uint_gt(rep.hops[2], 0);
	ck_assert_uint_eq(rep.hops[3], 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* ---- LMC: every LID of a block routed, the block's LIDs apart ---- */

static void
route_ok_lmc(const struct fabric *f, struct lft_set *s)
{
	route_ok(f, &no_opts, s);
}

/* The busiest link over the base LIDs alone: the CA ports' blocks
 * shrunk to their base LID (which stays aligned). */
static uint64_t
base_max_link(struct fabric *f, const struct lft_set *s)
{
	for (uint32_t p = 0; p < f->nports; p++)
		if (f->ports[p].lmc != 0)
			fabric_set_lid(f, p, f->ports[p].lid, 0);
	return routing_max_link_routes(f, s);
}

/*
 * Route shape with LMC 0 and with lmc; with lmc every LID arrives, the
 * base LIDs load the links no more than LMC 0's LIDs did, all LIDs no
 * more than 2^lmc times that, and at every switch with CAs the LIDs of a
 * remote port leave by distinct ports (to distinct neighbour switches
 * when apart says there are enough).
 */
static void
lmc_case(enum testfab_lmc_shape sh, uint8_t lmc, bool apart)
{
	struct fabric f0, f;
	struct lft_set s0, s;
	struct testfab_stats st;
	struct testfab_lmc sp;
	uint64_t m0, all, base;

	testfab_lmc_build(&f0, sh, 0);
	route_ok_lmc(&f0, &s0);
	m0 = routing_max_link_routes(&f0, &s0);
	testfab_lmc_build(&f, sh, lmc);
	route_ok_lmc(&f, &s);
	testfab_check(&f, &s, &st);
	ck_assert_uint_eq(st.unreached, 0);
	ck_assert_uint_gt(st.pairs, 0);
	ck_assert_msg(cdg_acyclic(&f, &s, NULL), "shape %d lmc %u: a credit loop",
	    sh, lmc);
	testfab_lmc_spread(&f, &s, &sp);
	ck_assert_uint_gt(sp.blocks, 0);
	ck_assert_msg(sp.distinct_ports == sp.blocks, "shape %d lmc %u: %llu "
	    "of %llu blocks on distinct ports", sh, lmc,
	    (unsigned long long)sp.distinct_ports,
	    (unsigned long long)sp.blocks);
	if (apart)
		ck_assert_msg(sp.distinct_switches == sp.blocks, "shape %d "
		    "lmc %u: %llu of %llu blocks to distinct switches", sh,
		    lmc, (unsigned long long)sp.distinct_switches,
		    (unsigned long long)sp.blocks);
	all = routing_max_link_routes(&f, &s);
	base = base_max_link(&f, &s);
	ck_assert_msg(base <= m0, "shape %d lmc %u: base LIDs' busiest link "
	    "%llu, LMC 0's %llu", sh, lmc, (unsigned long long)base,
	    (unsigned long long)m0);
	ck_assert_msg(all <= m0 << lmc, "shape %d lmc %u: busiest link %llu, "
	    "LMC 0's %llu", sh, lmc, (unsigned long long)all,
	    (unsigned long long)m0);
	lft_set_fini(&s);
	lft_set_fini(&s0);
	fabric_fini(&f);
	fabric_fini(&f0);
}

START_TEST(test_lmc)
{
	lmc_case(TESTFAB_LMC_FT2_8, 1, true);
	lmc_case(TESTFAB_LMC_FT2_8, 2, true);
	lmc_case(TESTFAB_LMC_FT3_8, 2, true);
	lmc_case(TESTFAB_LMC_DOUBLED, 1, true);
	lmc_case(TESTFAB_LMC_DOUBLED, 2, false);
}
END_TEST

static Suite *
updn_suite(void)
{
	Suite *s = suite_create("updn");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ft2);
	tcase_add_test(tc, test_ft3);
	tcase_add_test(tc, test_roots_top_level);
	tcase_add_test(tc, test_ca_on_spine);
	tcase_add_test(tc, test_degraded);
	tcase_add_test(tc, test_ring);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_torus);
	tcase_add_test(tc, test_roots_given);
	tcase_add_test(tc, test_tie_goes_down);
	tcase_add_test(tc, test_roots_unknown);
	tcase_add_test(tc, test_incremental);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_pieces);
	tcase_add_test(tc, test_odd_cabling);
	tcase_add_test(tc, test_no_switch);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_lmc);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(updn_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
