#include "tests/unit/testfab.h"

#include <stdio.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define GUID_BASE       0x0002c90300000000ULL
#define DIST_INF        UINT32_MAX

static void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size)) == NULL) {
		perror("testfab");
		abort();
	}
	return p;
}

uint32_t
testfab_switch(struct fabric *f, uint8_t nports)
{
	return fabric_add_node(f, NODE_SWITCH, nports,
	    GUID_BASE + f->nnodes + 1, NULL);
}

uint32_t
testfab_ca(struct fabric *f, uint8_t nports)
{
	uint64_t guid = GUID_BASE + f->nnodes + 1;
	uint32_t n = fabric_add_node(f, NODE_CA, nports, guid, NULL);
	unsigned i;

	for (i = 1; i <= nports; i++) {
		f->ports[fabric_port_idx(f, n, (uint8_t)i)].present = 1;
		f->ports[fabric_port_idx(f, n, (uint8_t)i)].guid =
		    guid + ((uint64_t)i << 40);
	}
	return n;
}

void
testfab_connect(struct fabric *f, uint32_t na, uint8_t pa, uint32_t nb,
    uint8_t pb)
{
	fabric_link(f, fabric_port_idx(f, na, pa), fabric_port_idx(f, nb, pb));
}

void
testfab_unlink(struct fabric *f, uint32_t n, uint8_t num)
{
	uint32_t p = fabric_port_idx(f, n, num), q = f->ports[p].peer;

	if (q != FABRIC_NONE && f->ports[q].peer == p)
		f->ports[q].peer = FABRIC_NONE;
	f->ports[p].peer = FABRIC_NONE;
}

void
testfab_lids(struct fabric *f)
{
	uint32_t p;
	uint16_t lid = 1;

	for (p = 0; p < f->nports; p++)
		fabric_set_lid(f, p, fabric_port_is_endport(f, p) ? lid++ : 0,
		    0);
}

void
testfab_lids_lmc(struct fabric *f, uint8_t lmc)
{
	uint32_t p, n = 1u << lmc;
	uint32_t lid = n;       /* blocks aligned, from the first */

	for (p = 0; p < f->nports; p++)
		fabric_set_lid(f, p, 0, 0);
	for (p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p))
			continue;
		if (f->nodes[f->ports[p].node].type == NODE_SWITCH) {
			fabric_set_lid(f, p, (uint16_t)lid++, 0);
			continue;
		}
		lid = (lid + n - 1) & ~(n - 1);
		fabric_set_lid(f, p, (uint16_t)lid, lmc);
		lid += n;
	}
}

void
testfab_ft2(struct fabric *f, unsigned k)
{
	unsigned half = k / 2, i, j;
	uint32_t hca;

	for (i = 0; i < k + half; i++)
		testfab_switch(f, (uint8_t)k);
	for (i = 0; i < k; i++)
		for (j = 0; j < half; j++) {
			testfab_connect(f, i, (uint8_t)(half + 1 + j), k + j,
			    (uint8_t)(i + 1));
			hca = testfab_ca(f, 1);
			testfab_connect(f, i, (uint8_t)(j + 1), hca, 1);
		}
	testfab_lids(f);
}

void
testfab_ring(struct fabric *f, unsigned n, unsigned hcas)
{
	unsigned i, j;
	uint32_t hca;

	for (i = 0; i < n; i++)
		testfab_switch(f, (uint8_t)(hcas + 2));
	for (i = 0; n > 1 && i < n; i++)
		testfab_connect(f, i, 1, (i + 1) % n, 2);
	for (i = 0; i < n; i++)
		for (j = 0; j < hcas; j++) {
			hca = testfab_ca(f, 1);
			testfab_connect(f, i, (uint8_t)(j + 3), hca, 1);
		}
	testfab_lids(f);
}

void
testfab_torus(struct fabric *f, unsigned x, unsigned y, unsigned z,
    unsigned hcas)
{
	unsigned dim[3] = { x, y, z }, n = x * y * z, i, c[3], d, j;
	uint32_t base = f->nnodes, nb, hca;

	for (i = 0; i < n; i++)
		testfab_switch(f, (uint8_t)(6 + hcas));
	for (i = 0; i < n; i++) {
		c[0] = i % x;
		c[1] = i / x % y;
		c[2] = i / (x * y);
		for (d = 0; d < 3; d++) {
			unsigned save = c[d];

			if (dim[d] < 2 || (dim[d] == 2 && c[d] == 1))
				continue;
			c[d] = (c[d] + 1) % dim[d];
			nb = c[0] + x * (c[1] + y * c[2]);
			c[d] = save;
			testfab_connect(f, base + i, (uint8_t)(2 * d + 1),
			    base + nb, (uint8_t)(2 * d + 2));
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < hcas; j++) {
			hca = testfab_ca(f, 1);
			testfab_connect(f, base + i, (uint8_t)(j + 7), hca, 1);
		}
	testfab_lids(f);
}

void
testfab_dragonfly(struct fabric *f, unsigned groups, unsigned a,
    unsigned hcas)
{
	unsigned g, h, i, j, k, gl = (groups - 1 + a - 1) / a;
	uint32_t base = f->nnodes, hca;

	for (i = 0; i < groups * a; i++)
		testfab_switch(f, (uint8_t)(a - 1 + gl + hcas));
	for (g = 0; g < groups; g++)
		for (i = 0; i < a; i++)
			for (j = i + 1; j < a; j++)
				testfab_connect(f, base + g * a + i,
				    (uint8_t)(j), base + g * a + j,
				    (uint8_t)(i + 1));
	/* group g's k-th global cable: switch k % a, port a + k / a */
	for (g = 0; g < groups; g++)
		for (h = g + 1; h < groups; h++) {
			k = h - 1;              /* g's cable towards h */
			j = g;                  /* h's cable towards g */
			testfab_connect(f, base + g * a + k % a,
			    (uint8_t)(a + k / a), base + h * a + j % a,
			    (uint8_t)(a + j / a));
		}
	for (i = 0; i < groups * a; i++)
		for (j = 0; j < hcas; j++) {
			hca = testfab_ca(f, 1);
			testfab_connect(f, base + i, (uint8_t)(a + gl + j), hca,
			    1);
		}
	testfab_lids(f);
}

void
testfab_ft3(struct fabric *f, unsigned k)
{
	unsigned half = k / 2, p, i, j;
	uint32_t base = f->nnodes, edge, agg, core, hca;

	for (i = 0; i < k * k + half * half; i++)
		testfab_switch(f, (uint8_t)k);
	for (p = 0; p < k; p++)
		for (i = 0; i < half; i++) {
			edge = base + p * half + i;
			for (j = 0; j < half; j++) {
				agg = base + k * half + p * half + j;
				testfab_connect(f, edge, (uint8_t)(half + 1 + j),
				    agg, (uint8_t)(i + 1));
			}
		}
	for (p = 0; p < k; p++)
		for (j = 0; j < half; j++) {
			agg = base + k * half + p * half + j;
			for (i = 0; i < half; i++) {
				core = base + k * k + j * half + i;
				testfab_connect(f, agg, (uint8_t)(half + 1 + i),
				    core, (uint8_t)(p + 1));
			}
		}
	for (p = 0; p < k; p++)
		for (i = 0; i < half; i++) {
			edge = base + p * half + i;
			for (j = 0; j < half; j++) {
				hca = testfab_ca(f, 1);
				testfab_connect(f, edge, (uint8_t)(j + 1), hca, 1);
			}
		}
	testfab_lids(f);
}

/* splitmix64: tiny, seedable, good enough to shuffle test fabrics. */
static uint64_t
rnd(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
testfab_random(struct fabric *f, unsigned n, unsigned hcas, unsigned extra,
    uint64_t seed)
{
	unsigned links = TESTFAB_RANDOM_PORTS - hcas, i, j, tries;
	uint8_t *used = xcalloc(n, 1);  /* inter-switch ports taken */
	uint32_t hca;

	for (i = 0; i < n; i++)
		testfab_switch(f, TESTFAB_RANDOM_PORTS);
	/* spanning tree: each switch hangs off an earlier one with room */
	for (i = 1; i < n; i++) {
		j = (unsigned)(rnd(&seed) % i);
		for (tries = 0; used[j] >= links && tries < i; tries++)
			j = (j + 1) % i;
		if (used[j] >= links)
			abort();        /* hcas leaves no room for a tree */
		testfab_connect(f, j, (uint8_t)(++used[j]), i,
		    (uint8_t)(++used[i]));
	}
	for (tries = 0; extra > 0 && tries < 100 * (extra + 1); tries++) {
		i = (unsigned)(rnd(&seed) % n);
		j = (unsigned)(rnd(&seed) % n);
		if (i == j || used[i] >= links || used[j] >= links)
			continue;
		testfab_connect(f, i, (uint8_t)(++used[i]), j,
		    (uint8_t)(++used[j]));
		extra--;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < hcas; j++) {
			hca = testfab_ca(f, 1);
			testfab_connect(f, i, (uint8_t)(links + 1 + j), hca, 1);
		}
	free(used);
	testfab_lids(f);
}

/* The checker's own view: which cables carry traffic. */
static int
live(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != FABRIC_NONE && f->ports[p].state != PORT_DOWN &&
	    f->ports[q].state != PORT_DOWN;
}

static int
is_switch(const struct fabric *f, uint32_t node)
{
	return f->nodes[node].type == NODE_SWITCH;
}

/* Every switch reaches every other one over live cables. */
static int
switches_connected(const struct fabric *f)
{
	uint32_t *queue = xcalloc(f->nnodes, sizeof(*queue)), head = 0, tail = 0;
	uint8_t *seen = xcalloc(f->nnodes, 1);
	uint32_t n, u, p, v, nsw = 0;
	int ok;

	for (n = 0; n < f->nnodes; n++)
		if (is_switch(f, n)) {
			nsw++;
			if (tail == 0) {
				seen[n] = 1;
				queue[tail++] = n;
			}
		}
	while (head < tail) {
		u = queue[head++];
		for (p = f->nodes[u].port0 + 1;
		    p <= f->nodes[u].port0 + f->nodes[u].nports; p++) {
			if (!live(f, p))
				continue;
			v = fabric_peer_node(f, p);
			if (is_switch(f, v) && !seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	ok = tail == nsw;
	free(queue);
	free(seen);
	return ok;
}

unsigned
testfab_remove_links(struct fabric *f, double fraction, uint64_t seed)
{
	uint32_t *links = xcalloc(f->nports, sizeof(*links)), n = 0, p, q, i, j;
	uint32_t tmp;
	unsigned want, removed = 0;

	for (p = 0; p < f->nports; p++) {
		q = f->ports[p].peer;
		if (q != FABRIC_NONE && p < q && is_switch(f, f->ports[p].node) &&
		    is_switch(f, f->ports[q].node))
			links[n++] = p;
	}
	want = (unsigned)(fraction * n + 0.5);
	for (i = n; i > 1; i--) {
		j = (uint32_t)(rnd(&seed) % i);
		tmp = links[i - 1];
		links[i - 1] = links[j];
		links[j] = tmp;
	}
	for (i = 0; i < n && removed < want; i++) {
		p = links[i];
		q = f->ports[p].peer;
		f->ports[p].peer = f->ports[q].peer = FABRIC_NONE;
		if (switches_connected(f))
			removed++;
		else
			fabric_link(f, p, q);
	}
	free(links);
	return removed;
}

/* All-pairs switch distances, by plain BFS on the fabric's ports. */
static uint32_t *
distances(const struct fabric *f, const struct lft_set *s)
{
	uint32_t nsw = s->nsw, *d = xcalloc((size_t)nsw * nsw, sizeof(*d));
	uint32_t *queue = xcalloc(nsw, sizeof(*queue));
	uint32_t src, head, tail, u, v, p, i;

	for (i = 0; i < nsw * nsw; i++)
		d[i] = DIST_INF;
	for (src = 0; src < nsw; src++) {
		uint32_t *row = d + (size_t)src * nsw;

		row[src] = 0;
		head = tail = 0;
		queue[tail++] = src;
		while (head < tail) {
			const struct fabric_node *n;

			u = queue[head++];
			n = &f->nodes[s->sw_node[u]];
			for (p = n->port0 + 1; p <= n->port0 + n->nports; p++) {
				if (!live(f, p))
					continue;
				v = fabric_peer_node(f, p);
				if (f->nodes[v].type != NODE_SWITCH)
					continue;
				v = s->node_sw[v];
				if (row[v] == DIST_INF) {
					row[v] = row[u] + 1;
					queue[tail++] = v;
				}
			}
		}
	}
	free(queue);
	return d;
}

/* Switch index an end port hangs off, DIST_INF if none. */
static uint32_t
home(const struct fabric *f, const struct lft_set *s, uint32_t p)
{
	uint32_t q;

	if (f->nodes[f->ports[p].node].type == NODE_SWITCH)
		return s->node_sw[f->ports[p].node];
	if (!live(f, p))
		return DIST_INF;
	q = f->ports[p].peer;
	if (f->nodes[f->ports[q].node].type != NODE_SWITCH)
		return DIST_INF;
	return s->node_sw[f->ports[q].node];
}

/* Follow lid from switch sw; the switch hops taken, or -1 with why.
 * *out: the port index the walk first left by. */
static long
follow(const struct fabric *f, const struct lft_set *s, uint32_t sw,
    uint16_t lid, uint32_t dport, uint32_t *out, char *why, size_t len)
{
	const struct fabric_node *n;
	uint32_t q, peer;
	long hops;
	uint8_t port;

	for (hops = 0; hops <= (long)s->nsw; hops++) {
		n = &f->nodes[s->sw_node[sw]];
		port = lid <= s->max_lid ? lft_row(s, sw)[lid] : LFT_NO_ROUTE;
		if (port == 0) {
			if (dport == n->port0)
				return hops;
			snprintf(why, len, "port 0 of a switch not owning it");
			return -1;
		}
		if (port == LFT_NO_ROUTE || port > n->nports) {
			snprintf(why, len, "no route (entry %u)", port);
			return -1;
		}
		q = n->port0 + port;
		if (hops == 0)
			*out = q;
		if (!live(f, q)) {
			snprintf(why, len, "port %u is down or uncabled", port);
			return -1;
		}
		peer = f->ports[q].peer;
		if (peer == dport)
			return hops;
		if (f->nodes[f->ports[peer].node].type != NODE_SWITCH) {
			snprintf(why, len, "delivered to the wrong CA");
			return -1;
		}
		sw = s->node_sw[f->ports[peer].node];
	}
	snprintf(why, len, "loop");
	return -1;
}

static void
record(struct testfab_stats *st, long hops, uint32_t *load, uint32_t out)
{
	if (hops < 0) {
		st->unreached++;
		return;
	}
	st->hops[hops < ROUTE_HOPS_MAX ? hops : ROUTE_HOPS_MAX]++;
	if (hops > 0)
		load[out]++;
}

static void
loads(const struct fabric *f, const uint32_t *load, struct testfab_stats *st)
{
	uint64_t total = 0;
	uint32_t p, used = 0;

	for (p = 0; p < f->nports; p++)
		if (load[p] != 0) {
			used++;
			total += load[p];
			if (load[p] > st->max_load)
				st->max_load = load[p];
		}
	st->mean_load = used ? (double)total / used : 0.0;
}

void
testfab_check(const struct fabric *f, const struct lft_set *s,
    struct testfab_stats *st)
{
	testfab_check_lids(f, s, NULL, st);
}

void
testfab_check_lids(const struct fabric *f, const struct lft_set *s,
    const uint8_t *only, struct testfab_stats *st)
{
	uint32_t *d = distances(f, s), p, sw, t, out = 0, dist;
	uint32_t *load = xcalloc(f->nports, sizeof(*load));
	uint8_t *seen = xcalloc((size_t)UINT16_MAX + 1, 1);
	uint32_t lid, top;
	char why[120];
	long hops;

	memset(st, 0, sizeof(*st));
	/* every LID of each end port's 2^lmc */
	for (p = 0; p < f->nports; p++) {
	    top = f->ports[p].lid + (1u << f->ports[p].lmc);
	    for (lid = f->ports[p].lid; lid < top && lid <= UINT16_MAX; lid++) {
		if (!fabric_port_is_endport(f, p) || lid == 0 || seen[lid] ||
		    (only != NULL && !only[lid]))
			continue;
		seen[lid] = 1;
		t = home(f, s, p);
		for (sw = 0; sw < s->nsw; sw++) {
			st->pairs++;
			hops = follow(f, s, sw, (uint16_t)lid, p, &out, why,
			    sizeof(why));
			record(st, hops, load, out);
			dist = t == DIST_INF ? DIST_INF : d[(size_t)sw * s->nsw + t];
			if (dist == DIST_INF && hops < 0) {
				st->unroutable++;
				continue;
			}
			if (hops >= 0 && hops == (long)dist) {
				st->shortest++;
				continue;
			}
			if (dist == DIST_INF)
				snprintf(why, sizeof(why), "reached, but no path "
				    "exists");
			else if (hops >= 0)
				snprintf(why, sizeof(why), "%ld hops, shortest "
				    "%u", hops, dist);
			if (st->bad++ == 0)
				snprintf(st->first, sizeof(st->first),
				    "switch %u (node %u) LID %u: %s", sw,
				    s->sw_node[sw], lid, why);
		}
	    }
	}
	loads(f, load, st);
	free(load);
	free(seen);
	free(d);
}

void
testfab_ft2_doubled(struct fabric *f)
{
	uint32_t leaf[4], spine[2], i, j;

	for (i = 0; i < 4; i++)
		leaf[i] = testfab_switch(f, 8);
	for (i = 0; i < 2; i++)
		spine[i] = testfab_switch(f, 8);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++)
			testfab_connect(f, leaf[i], (uint8_t)(1 + j),
			    testfab_ca(f, 1), 1);
		for (j = 0; j < 4; j++)
			testfab_connect(f, leaf[i], (uint8_t)(5 + j),
			    spine[j / 2], (uint8_t)(1 + 2 * i + j % 2));
	}
	testfab_lids(f);
}

/* Does switch node n have a CA cabled to it? */
static int
has_ca(const struct fabric *f, uint32_t n)
{
	uint32_t q;

	for (unsigned num = 1; num <= f->nodes[n].nports; num++) {
		q = f->ports[f->nodes[n].port0 + num].peer;
		if (q != FABRIC_NONE &&
		    f->nodes[f->ports[q].node].type != NODE_SWITCH)
			return 1;
	}
	return 0;
}

void
testfab_lmc_spread(const struct fabric *f, const struct lft_set *s,
    struct testfab_lmc *r)
{
	uint32_t sw, p, q, n, i, j, far[256], lids;
	uint8_t e[256];
	int ports, sws;

	memset(r, 0, sizeof(*r));
	for (sw = 0; sw < s->nsw; sw++) {
		n = s->sw_node[sw];
		if (!has_ca(f, n))
			continue;
		for (p = 0; p < f->nports; p++) {
			if (f->ports[p].lmc == 0 || f->ports[p].lid == 0 ||
			    (q = f->ports[p].peer) == FABRIC_NONE ||
			    f->ports[q].node == n)
				continue;
			lids = 1u << f->ports[p].lmc;
			ports = sws = 1;
			for (i = 0; i < lids; i++) {
				e[i] = lft_row(s, sw)[f->ports[p].lid + i];
				far[i] = e[i] == 0 || e[i] > f->nodes[n].nports ||
				    (q = f->ports[fabric_port_idx(f, n,
				    e[i])].peer) == FABRIC_NONE ? FABRIC_NONE :
				    f->ports[q].node;
				for (j = 0; j < i; j++) {
					ports &= e[j] != e[i];
					sws &= far[j] != far[i];
				}
			}
			r->blocks++;
			r->distinct_ports += ports;
			r->distinct_switches += sws;
		}
	}
}

void
testfab_lmc_build(struct fabric *f, enum testfab_lmc_shape sh, uint8_t lmc)
{
	fabric_init(f);
	if (sh == TESTFAB_LMC_FT2_8)
		testfab_ft2(f, 8);
	else if (sh == TESTFAB_LMC_FT3_8)
		testfab_ft3(f, 8);
	else
		testfab_ft2_doubled(f);
	if (lmc > 0)
		testfab_lids_lmc(f, lmc);
}

/* ------------------------------------------------ per-VL check, slowly */

struct slowvl {
	uint32_t nch;
	uint8_t *dep;           /* [nch][nch] */
	uint8_t *color;
};

static int
slowvl_cycle(struct slowvl *g, uint32_t c)
{
	g->color[c] = 1;
	for (uint32_t b = 0; b < g->nch; b++) {
		if (!g->dep[(size_t)c * g->nch + b])
			continue;
		if (g->color[b] == 1)
			return 1;
		if (g->color[b] == 0 && slowvl_cycle(g, b))
			return 1;
	}
	g->color[c] = 2;
	return 0;
}

int
testfab_layers_acyclic(const struct fabric *f, const struct lft_set *s,
    const uint8_t *layer, unsigned nlayers, const uint8_t *vl_of,
    uint64_t *edges)
{
	uint32_t *id = calloc((size_t)s->nsw * 256, sizeof(*id)), nch = 0;
	uint32_t sw, cur, lid, prev, c, p, hops;
	unsigned nvl = 1, v, l, port;
	struct slowvl *g;
	uint64_t total = 0;
	int cyclic = 0;

	assert(id != NULL);
	for (size_t i = 0; i < (size_t)s->nsw * 256; i++)
		id[i] = UINT32_MAX;
	for (sw = 0; sw < s->nsw; sw++) {
		const struct fabric_node *n = &f->nodes[s->sw_node[sw]];

		for (port = 1; port <= n->nports && port < 255; port++) {
			p = n->port0 + port;
			if (f->ports[p].peer != FABRIC_NONE &&
			    f->ports[p].state != PORT_DOWN &&
			    f->ports[f->ports[p].peer].state != PORT_DOWN &&
			    f->nodes[fabric_peer_node(f, p)].type == NODE_SWITCH)
				id[sw * 256 + port] = nch++;
		}
	}
	for (l = 0; l < nlayers; l++)
		if ((vl_of ? vl_of[l] : l) + 1u > nvl)
			nvl = (vl_of ? vl_of[l] : l) + 1u;
	g = calloc(nvl, sizeof(*g));
	assert(g != NULL);
	for (v = 0; v < nvl; v++) {
		g[v].nch = nch;
		g[v].dep = calloc((size_t)nch * nch + 1, 1);
		g[v].color = calloc(nch + 1, 1);
		assert(g[v].dep != NULL && g[v].color != NULL);
	}
	for (lid = 1; lid <= s->max_lid; lid++)
		for (sw = 0; sw < s->nsw; sw++) {
			l = layer[(size_t)sw * (s->max_lid + 1u) + lid];
			v = l < nlayers ? (vl_of ? vl_of[l] : l) : 0;
			prev = UINT32_MAX;
			for (cur = sw, hops = 0; hops <= s->nsw; hops++) {
				port = lft_row(s, cur)[lid];
				c = id[cur * 256 + port];
				if (c == UINT32_MAX)
					break;
				if (prev != UINT32_MAX)
					g[v].dep[(size_t)prev * nch + c] = 1;
				prev = c;
				p = f->nodes[s->sw_node[cur]].port0 + port;
				cur = s->node_sw[fabric_peer_node(f, p)];
			}
		}
	for (v = 0; v < nvl; v++) {
		for (size_t i = 0; i < (size_t)nch * nch; i++)
			total += g[v].dep[i];
		for (c = 0; c < nch && !cyclic; c++)
			if (g[v].color[c] == 0)
				cyclic = slowvl_cycle(&g[v], c);
		free(g[v].dep);
		free(g[v].color);
	}
	free(g);
	free(id);
	if (edges != NULL)
		*edges = total;
	return !cyclic;
}
