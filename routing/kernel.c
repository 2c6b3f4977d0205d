/*
 * The routing kernel: the switch graph, searches over it, and the
 * balancing kit every engine shares.
 */
#include "routing/kernel.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

bool
kernel_link_usable(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != FABRIC_NONE && f->ports[p].state != PORT_DOWN &&
	    f->ports[q].state != PORT_DOWN && !f->ports[p].held &&
	    !f->ports[q].held;
}

uint32_t
kernel_attach(const struct fabric *f, const struct lft_set *s, uint32_t p,
    uint8_t *port)
{
	uint32_t node = f->ports[p].node, q;

	if (f->nodes[node].type == NODE_SWITCH) {
		*port = 0;
		return s->node_sw[node];
	}
	if (!kernel_link_usable(f, p))
		return FABRIC_NONE;
	q = f->ports[p].peer;
	if (f->nodes[f->ports[q].node].type != NODE_SWITCH)
		return FABRIC_NONE;
	*port = f->ports[q].num;
	return s->node_sw[f->ports[q].node];
}

static void
graph_links(const struct fabric *f, const struct lft_set *s,
    struct kernel_graph *g)
{
	const struct fabric_node *n;
	uint32_t sw, p, peer, e = 0, total = 0;
	unsigned num;

	for (sw = 0; sw < s->nsw; sw++)
		total += f->nodes[s->sw_node[sw]].nports;
	g->off = xcalloc(s->nsw + 1, sizeof(*g->off));
	g->sw = xcalloc(total, sizeof(*g->sw));
	g->port = xcalloc(total, sizeof(*g->port));
	for (sw = 0; sw < s->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		g->off[sw] = e;
		/* port 255 would read as LFT_NO_ROUTE */
		for (num = 1; num <= n->nports && num < LFT_NO_ROUTE; num++) {
			p = n->port0 + num;
			if (!kernel_link_usable(f, p))
				continue;
			peer = fabric_peer_node(f, p);
			/* a cable looped back into the same switch goes nowhere */
			if (f->nodes[peer].type != NODE_SWITCH ||
			    peer == s->sw_node[sw])
				continue;
			g->sw[e] = s->node_sw[peer];
			g->port[e++] = (uint8_t)num;
		}
	}
	g->off[s->nsw] = e;
}

static void
graph_dests(const struct fabric *f, const struct lft_set *s,
    struct kernel_graph *g)
{
	uint32_t max = s->max_lid, *lid_sw, *fill, p, lid, sw, top, l;
	uint8_t *lid_port, *lid_rank;

	lid_sw = xcalloc((size_t)max + 1, sizeof(*lid_sw));
	lid_port = xcalloc((size_t)max + 1, sizeof(*lid_port));
	lid_rank = xcalloc((size_t)max + 1, sizeof(*lid_rank));
	for (lid = 0; lid <= max; lid++)
		lid_sw[lid] = FABRIC_NONE;
	/* every LID of a port's 2^lmc; a LID given twice is a LID manager
	 * bug: the first port keeps it */
	for (p = 0; p < f->nports; p++) {
		lid = f->ports[p].lid;
		if (lid == 0 || lid > max || !fabric_port_is_endport(f, p))
			continue;
		top = lid + (1u << f->ports[p].lmc) - 1;
		sw = kernel_attach(f, s, p, &lid_port[lid]);
		if (sw == FABRIC_NONE)
			sw = FABRIC_NONE - 1;   /* seen, unroutable */
		for (l = lid; l <= top && l <= max; l++)
			if (lid_sw[l] == FABRIC_NONE) {
				lid_sw[l] = sw;
				lid_port[l] = lid_port[lid];
				lid_rank[l] = (uint8_t)(l - lid);
			}
	}
	g->dst_off = xcalloc(s->nsw + 1, sizeof(*g->dst_off));
	for (lid = 1; lid <= max; lid++)
		if (lid_sw[lid] < s->nsw)
			g->dst_off[lid_sw[lid] + 1]++;
	for (sw = 0; sw < s->nsw; sw++)
		g->dst_off[sw + 1] += g->dst_off[sw];
	g->dst_lid = xcalloc(g->dst_off[s->nsw], sizeof(*g->dst_lid));
	g->dst_port = xcalloc(g->dst_off[s->nsw], sizeof(*g->dst_port));
	g->dst_rank = xcalloc(g->dst_off[s->nsw], sizeof(*g->dst_rank));
	fill = xcalloc(s->nsw, sizeof(*fill));
	for (lid = 1; lid <= max; lid++) {
		if ((sw = lid_sw[lid]) >= s->nsw)
			continue;
		/* a block cut short by a LID given twice: the rest stand
		 * alone */
		if (lid_rank[lid] != 0 && (fill[sw] == 0 ||
		    g->dst_lid[g->dst_off[sw] + fill[sw] - 1] != lid - 1))
			lid_rank[lid] = 0;
		g->multi |= lid_rank[lid] != 0;
		g->dst_rank[g->dst_off[sw] + fill[sw]] = lid_rank[lid];
		g->dst_lid[g->dst_off[sw] + fill[sw]] = (uint16_t)lid;
		g->dst_port[g->dst_off[sw] + fill[sw]++] = lid_port[lid];
	}
	free(fill);
	free(lid_sw);
	free(lid_port);
	free(lid_rank);
}

static void
graph_systems(const struct fabric *f, const struct lft_set *s,
    struct kernel_graph *g)
{
	const struct fabric_node *n;

	g->sys = xcalloc(s->nsw ? s->nsw : 1, sizeof(*g->sys));
	for (uint32_t sw = 0; sw < s->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		g->sys[sw] = n->sysguid != 0 ? n->sysguid : n->guid;
	}
}

void
kernel_graph_build(const struct fabric *f, const struct lft_set *s,
    struct kernel_graph *g)
{
	g->nsw = s->nsw;
	graph_links(f, s, g);
	graph_dests(f, s, g);
	graph_systems(f, s, g);
}

void
kernel_graph_free(struct kernel_graph *g)
{
	free(g->off);
	free(g->sw);
	free(g->port);
	free(g->dst_off);
	free(g->dst_lid);
	free(g->dst_port);
	free(g->dst_rank);
	free(g->sys);
	memset(g, 0, sizeof(*g));
}

void
kernel_bfs(const struct kernel_graph *g, const uint32_t *src, uint32_t nsrc,
    uint32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, u, e, v, i;

	for (i = 0; i < g->nsw; i++)
		dist[i] = UINT32_MAX;
	for (i = 0; i < nsrc; i++)
		if (dist[src[i]] == UINT32_MAX) {
			dist[src[i]] = 0;
			queue[tail++] = src[i];
		}
	while (head < tail) {
		u = queue[head++];
		for (e = g->off[u]; e < g->off[u + 1]; e++) {
			v = g->sw[e];
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

void
kernel_bfs64_init(struct kernel_bfs64 *b, uint32_t nsw)
{
	b->nsw = nsw;
	b->seen = xcalloc(nsw, sizeof(*b->seen));
	b->front = xcalloc(nsw, sizeof(*b->front));
	b->next = xcalloc(nsw, sizeof(*b->next));
}

void
kernel_bfs64_fini(struct kernel_bfs64 *b)
{
	free(b->seen);
	free(b->front);
	free(b->next);
	memset(b, 0, sizeof(*b));
}

void
kernel_bfs64_start(struct kernel_bfs64 *b, uint32_t base, uint32_t n)
{
	uint32_t i;

	memset(b->seen, 0, b->nsw * sizeof(*b->seen));
	memset(b->front, 0, b->nsw * sizeof(*b->front));
	for (i = 0; i < n; i++)
		b->seen[base + i] = b->front[base + i] = 1ULL << i;
}

/*
 * A switch joins the next level when one of its own links leads into the
 * current one: each switch writes only its own words, and the level at
 * which a source's bit lands there is the switch's distance to that
 * source, the way engines read it.
 */
uint64_t
kernel_bfs64_step(struct kernel_bfs64 *b, const struct kernel_graph *g)
{
	uint64_t acc, any = 0, *tmp;
	uint32_t v, e;

	for (v = 0; v < b->nsw; v++) {
		acc = 0;
		for (e = g->off[v]; e < g->off[v + 1]; e++)
			acc |= b->front[g->sw[e]];
		b->next[v] = acc & ~b->seen[v];
		b->seen[v] |= b->next[v];
		any |= b->next[v];
	}
	tmp = b->front;
	b->front = b->next;
	b->next = tmp;
	return any;
}

const uint8_t *
kernel_prev_row(const struct fabric *prev_fabric, const struct lft_set *prev,
    uint64_t guid, uint16_t *max_lid)
{
	uint32_t n, sw;

	if (prev == NULL || prev_fabric == NULL)
		return NULL;
	n = fabric_node_by_guid(prev_fabric, guid);
	if (n == FABRIC_NONE || n >= prev_fabric->nnodes ||
	    prev->node_sw == NULL || (sw = prev->node_sw[n]) == FABRIC_NONE)
		return NULL;
	*max_lid = prev->max_lid;
	return lft_row(prev, sw);
}

/*
 * Done in rounds over the least-loaded candidates, which is the same
 * choice without a scan per LID; once the candidates are level the rounds
 * are plain turns, dealt without looking at the counts.
 */
void
kernel_spread(uint8_t *row, uint32_t *cnt, const uint8_t *cand, unsigned c,
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

void
kernel_row_init(struct kernel_row *x, const struct kernel_graph *g,
    size_t stride)
{
	memset(x, 0, sizeof(*x));
	x->stride = stride;
	x->plane = xcalloc(KERNEL_PLANES * stride, 1);
	x->defer = xcalloc(g->nsw, sizeof(*x->defer));
	x->lids = xcalloc(g->dst_off[g->nsw], sizeof(*x->lids));
}

void
kernel_row_fini(struct kernel_row *x)
{
	free(x->plane);
	free(x->defer);
	free(x->lids);
	memset(x, 0, sizeof(*x));
}

uint8_t *
kernel_row_planes(struct kernel_row *x, const struct kernel_graph *g,
    uint32_t sw)
{
	x->planes = (g->off[sw + 1] - g->off[sw] + 7) / 8;
	memset(x->plane, 0, x->planes * x->stride);
	return x->plane;
}

unsigned
kernel_candidates(const struct kernel_graph *g, struct kernel_row *x,
    uint32_t sw, uint32_t t)
{
	uint32_t first = g->off[sw], e;
	unsigned q, bits, c = 0;

	for (q = 0; q < x->planes; q++)
		for (bits = x->plane[q * x->stride + t]; bits != 0;
		    bits &= bits - 1) {
			e = first + 8 * q + (unsigned)__builtin_ctz(bits);
			x->cand_sw[c] = g->sw[e];
			x->cand[c++] = g->port[e];
		}
	return c;
}

/* Whether kernel_candidates() would list none (0), one (1) or more (2),
 * without listing them. */
static unsigned
some_candidates(const struct kernel_row *x, uint32_t t)
{
	unsigned q, bits, c = 0;

	for (q = 0; q < x->planes; q++)
		if ((bits = x->plane[q * x->stride + t]) != 0) {
			if (c != 0 || (bits & (bits - 1)) != 0)
				return 2;
			c = 1;
		}
	return c;
}

static int
same_choice(const struct kernel_row *x, uint32_t a, uint32_t b)
{
	unsigned q;

	for (q = 0; q < x->planes; q++)
		if (x->plane[q * x->stride + a] != x->plane[q * x->stride + b])
			return 0;
	return 1;
}

/*
 * Keep the previous port for the LIDs of t where it is still one of the
 * c candidates; the others are set to LFT_NO_ROUTE for spreading. Returns
 * how many are left.
 */
static uint32_t
keep_prev(const struct kernel_graph *g, struct kernel_row *x,
    unsigned c, uint32_t t, uint8_t *row, uint32_t *cnt, const uint8_t *prev,
    uint16_t prev_max)
{
	uint64_t ok[4] = { 0, 0, 0, 0 };
	uint32_t j, left = 0;
	uint16_t lid;
	uint8_t p;
	unsigned i;

	for (i = 0; i < c; i++)
		ok[x->cand[i] >> 6] |= 1ULL << (x->cand[i] & 63);
	for (j = g->dst_off[t]; j < g->dst_off[t + 1]; j++) {
		lid = g->dst_lid[j];
		p = lid <= prev_max ? prev[lid] : LFT_NO_ROUTE;
		if (p != LFT_NO_ROUTE && (ok[p >> 6] >> (p & 63) & 1)) {
			row[lid] = p;
			cnt[p] += g->dst_rank[j] == 0;
			x->extra[p] += g->dst_rank[j] != 0;
		} else {
			row[lid] = LFT_NO_ROUTE;
			left++;
		}
	}
	return left;
}

/* How far switch s is from those of used (n of them) a LID of the block
 * reaches: 0 another system, 1 another switch of a system reached, 2 a
 * switch reached. */
static unsigned
lmc_class(const struct kernel_graph *g, const uint32_t *used, unsigned n,
    uint32_t s)
{
	unsigned i, cls = 0;

	for (i = 0; i < n; i++) {
		if (used[i] == s)
			return 2;
		if (g->sys[used[i]] == g->sys[s])
			cls = 1;
	}
	return cls;
}

uint8_t
kernel_lmc_port(const struct kernel_graph *g, const struct kernel_row *x,
    unsigned c, const uint8_t *row, uint32_t b, uint32_t e,
    const uint32_t *cnt)
{
	uint64_t used[4] = { 0, 0, 0, 0 }, key, best = UINT64_MAX;
	uint32_t sws[256];
	unsigned i, n = 0, cls;
	uint8_t p, choice = x->cand[0];

	for (; b < e; b++) {
		if ((p = row[g->dst_lid[b]]) == LFT_NO_ROUTE ||
		    (used[p >> 6] >> (p & 63) & 1))
			continue;
		used[p >> 6] |= 1ULL << (p & 63);
		for (i = 0; i < c; i++)
			if (x->cand[i] == p) {
				sws[n++] = x->cand_sw[i];
				break;
			}
	}
	for (i = 0; i < c; i++) {
		p = x->cand[i];
		cls = (used[p >> 6] >> (p & 63) & 1) ? 3 :
		    lmc_class(g, sws, n, x->cand_sw[i]);
		key = (uint64_t)cls << 56 | (uint64_t)(cnt[p] + x->extra[p]) << 8 |
		    i;
		if (key < best) {
			best = key;
			choice = p;
		}
	}
	return choice;
}

/* The LIDs past the base ones of the nd deferred destination switches,
 * offset by offset over the whole row (every offset 1 first, then 2 ...),
 * as OpenSM routes with LMC: each by kernel_lmc_port. */
static void
lmc_fill(const struct kernel_graph *g, struct kernel_row *x, uint32_t sw,
    uint8_t *row, const uint32_t *cnt, uint32_t nd)
{
	uint32_t i, k, m, t, j, end, b, e, r;
	unsigned c;
	bool more = true;

	for (r = 1; more; r++) {
		more = false;
		for (i = 0; i < nd; i = k) {
			for (k = i; k < nd && same_choice(x, x->defer[i],
			    x->defer[k]); k++)
				;
			c = kernel_candidates(g, x, sw, x->defer[i]);
			for (m = i; m < k; m++) {
				t = x->defer[m];
				end = g->dst_off[t + 1];
				for (j = g->dst_off[t]; j < end; j++) {
					if (g->dst_rank[j] != r)
						continue;
					more = true;
					if (row[g->dst_lid[j]] != LFT_NO_ROUTE)
						continue;
					b = j - r;
					for (e = j + 1; e < end &&
					    g->dst_rank[e] == e - b; e++)
						;
					row[g->dst_lid[j]] = kernel_lmc_port(g,
					    x, c, row, b, e, cnt);
					x->extra[row[g->dst_lid[j]]]++;
				}
			}
		}
	}
}

/* Base LIDs (rank 0) among the destinations of switch t. */
static uint32_t
base_lids(const struct kernel_graph *g, uint32_t t)
{
	uint32_t j, n = 0;

	if (!g->multi)
		return g->dst_off[t + 1] - g->dst_off[t];
	for (j = g->dst_off[t]; j < g->dst_off[t + 1]; j++)
		n += g->dst_rank[j] == 0;
	return n;
}

uint32_t
kernel_fill_row(const struct kernel_graph *g, struct kernel_row *x,
    uint32_t sw, uint8_t *row, const uint8_t *prev, uint16_t prev_max)
{
	uint32_t cnt[256], t, j, i, k, n, nd = 0, nl, lost = 0;
	uint16_t lid;
	unsigned c;

	memset(cnt, 0, sizeof(cnt));
	memset(x->extra, 0, sizeof(x->extra));
	for (t = 0; t < g->nsw; t++) {
		if ((n = g->dst_off[t + 1] - g->dst_off[t]) == 0)
			continue;
		if (t == sw) {
			for (j = g->dst_off[t]; j < g->dst_off[t + 1]; j++)
				row[g->dst_lid[j]] = g->dst_port[j];
			continue;
		}
		/* a choice without a previous table is deferred, and its
		 * candidates listed then: here only how many */
		if ((c = some_candidates(x, t)) == 0) {
			lost++;
			continue;
		}
		if (c == 1 || prev != NULL)
			c = kernel_candidates(g, x, sw, t);
		if (c > 1 && (prev == NULL ||
		    keep_prev(g, x, c, t, row, cnt, prev, prev_max) > 0)) {
			x->defer[nd++] = t;
			continue;
		}
		if (c > 1)
			continue;       /* all kept */
		for (j = g->dst_off[t]; j < g->dst_off[t + 1]; j++)
			row[g->dst_lid[j]] = x->cand[0];
		n = base_lids(g, t);
		cnt[x->cand[0]] += n;
		x->extra[x->cand[0]] += g->dst_off[t + 1] - g->dst_off[t] - n;
	}
	for (i = 0; i < nd; i = k) {
		nl = 0;
		for (k = i; k < nd && same_choice(x, x->defer[i], x->defer[k]);
		    k++) {
			t = x->defer[k];
			if (prev == NULL && !g->multi) {
				n = g->dst_off[t + 1] - g->dst_off[t];
				memcpy(x->lids + nl, g->dst_lid + g->dst_off[t],
				    n * sizeof(*x->lids));
				nl += n;
				continue;
			}
			/* base LIDs spread; the others of a block follow */
			for (j = g->dst_off[t]; j < g->dst_off[t + 1]; j++) {
				lid = g->dst_lid[j];
				if (prev == NULL)
					row[lid] = LFT_NO_ROUTE;
				if (row[lid] == LFT_NO_ROUTE &&
				    g->dst_rank[j] == 0)
					x->lids[nl++] = lid;
			}
		}
		c = kernel_candidates(g, x, sw, x->defer[i]);
		kernel_spread(row, cnt, x->cand, c, x->lids, nl);
	}
	if (g->multi)
		lmc_fill(g, x, sw, row, cnt, nd);
	return lost;
}
