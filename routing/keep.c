#include "routing/keep.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "routing/kernel.h"

enum { W_UNKNOWN, W_ACTIVE, W_OK, W_BAD };

struct column {
	const struct fabric *f;
	const struct lft_set *s;
	const uint8_t *entry;   /* [nsw]: the egress port of each switch */
	uint32_t target;        /* switch the LID hangs off */
	uint8_t tport;          /* and its port towards it (0: itself) */
	uint8_t *val;           /* [nsw] W_* */
	uint32_t *hops;         /* [nsw] switch hops to the target, if W_OK */
	uint32_t *stack;        /* [nsw] */
};

/* The switch entry e of switch sw leads to, FABRIC_NONE if none. */
static uint32_t
next_switch(const struct column *c, uint32_t sw, uint8_t e)
{
	const struct fabric *f = c->f;
	uint32_t node = c->s->sw_node[sw], p, peer;

	if (e == 0 || e == LFT_NO_ROUTE || e > f->nodes[node].nports)
		return FABRIC_NONE;
	p = fabric_port_idx(f, node, e);
	if (!kernel_link_usable(f, p) ||
	    (peer = fabric_peer_node(f, p)) == FABRIC_NONE)
		return FABRIC_NONE;
	return c->s->node_sw[peer];
}

/* Follow the column from sw; every switch on the way gets the verdict
 * and, when it delivers, its distance in switch hops. */
static void
walk(struct column *c, uint32_t sw)
{
	uint32_t depth = 0, x = sw, h = 0;
	uint8_t v;

	for (;;) {
		if (c->val[x] == W_OK) {
			v = W_OK;
			h = c->hops[x];
			break;
		}
		if (c->val[x] != W_UNKNOWN) {   /* bad, or a loop */
			v = W_BAD;
			break;
		}
		c->val[x] = W_ACTIVE;
		if (x == c->target) {
			if (c->entry[x] == c->tport) {
				c->val[x] = W_OK;
				c->hops[x] = 0;
				v = W_OK;
			} else {
				c->stack[depth++] = x;
				v = W_BAD;
			}
			break;
		}
		c->stack[depth++] = x;
		if ((x = next_switch(c, x, c->entry[x])) == FABRIC_NONE) {
			v = W_BAD;
			break;
		}
	}
	while (depth > 0) {
		x = c->stack[--depth];
		c->val[x] = v;
		if (v == W_OK)
			c->hops[x] = ++h;
	}
}

/* Walk every switch; true when the column delivers from all of them, in
 * no more hops than best[] (UINT32_MAX: any) where best is not NULL. A
 * switch that does not gets W_BAD. */
static bool
delivers(struct column *c, const uint32_t *best)
{
	bool all = true;

	memset(c->val, W_UNKNOWN, c->s->nsw);
	for (uint32_t sw = 0; sw < c->s->nsw; sw++)
		if (c->val[sw] == W_UNKNOWN)
			walk(c, sw);
	for (uint32_t sw = 0; sw < c->s->nsw; sw++) {
		if (c->val[sw] == W_OK && best != NULL &&
		    c->hops[sw] > best[sw])
			c->val[sw] = W_BAD;
		if (c->val[sw] != W_OK)
			all = false;
	}
	return all;
}

/* The end port each LID of s (sized for f) belongs to, FABRIC_NONE. */
static uint32_t *
owners(const struct fabric *f, const struct lft_set *s)
{
	uint32_t *owner = xcalloc((size_t)s->max_lid + 1, sizeof(*owner));

	for (uint32_t lid = 0; lid <= s->max_lid; lid++)
		owner[lid] = fabric_port_by_lid(f, (uint16_t)lid);
	return owner;
}

void
keep_merge(const struct fabric *f, const struct lft_set *held,
    struct lft_set *out, struct keep_result *res)
{
	uint32_t nsw = out->nsw, *owner, sw, replaced;
	size_t m = nsw ? nsw : 1;
	uint8_t *col = xcalloc(m, 1);
	uint32_t *best = xcalloc(m, sizeof(*best));
	struct column c = {
		.f = f, .s = out, .entry = col, .val = xcalloc(m, 1),
		.hops = xcalloc(m, sizeof(uint32_t)),
		.stack = xcalloc(m, sizeof(uint32_t)),
	};

	memset(res, 0, sizeof(*res));
	owner = owners(f, out);
	for (uint32_t lid = 1; lid <= out->max_lid && held->nsw == nsw &&
	    held->max_lid == out->max_lid; lid++) {
		if (owner[lid] == FABRIC_NONE ||
		    (c.target = kernel_attach(f, out, owner[lid], &c.tport)) ==
		    FABRIC_NONE)
			continue;
		/* The computed routes' lengths: a route in place may be as
		 * long, not longer (a cable back up is used again). */
		for (sw = 0; sw < nsw; sw++)
			col[sw] = lft_row(out, sw)[lid];
		(void)delivers(&c, NULL);
		for (sw = 0; sw < nsw; sw++)
			best[sw] = c.val[sw] == W_OK ? c.hops[sw] : UINT32_MAX;
		for (sw = 0; sw < nsw; sw++)
			col[sw] = lft_row(held, sw)[lid];
		replaced = 0;
		if (!delivers(&c, best)) {
			for (sw = 0; sw < nsw; sw++)
				if (c.val[sw] != W_OK) {
					col[sw] = lft_row(out, sw)[lid];
					replaced++;
				}
			if (replaced == nsw || !delivers(&c, best)) {
				res->computed++;
				continue;
			}
		}
		for (sw = 0; sw < nsw; sw++)
			lft_row(out, sw)[lid] = col[sw];
		if (replaced > 0)
			res->mixed++;
		else
			res->kept++;
	}
	free(owner);
	free(col);
	free(best);
	free(c.val);
	free(c.hops);
	free(c.stack);
}

int
keep_break_loops(const struct fabric *f, const struct lft_set *held,
    const struct lft_set *engine, struct lft_set *out,
    struct keep_result *res, struct acyclic_result *ar)
{
	uint32_t *owner, sw;
	uint8_t tp;
	bool as_held, as_engine;

	if (held->nsw != out->nsw || held->max_lid != out->max_lid ||
	    acyclic_keep(f, out, engine, ACYCLIC_BUDGET, ar) < 0)
		return -1;
	memset(res, 0, sizeof(*res));
	owner = owners(f, out);
	for (uint32_t lid = 1; lid <= out->max_lid; lid++) {
		if (owner[lid] == FABRIC_NONE ||
		    kernel_attach(f, out, owner[lid], &tp) == FABRIC_NONE)
			continue;
		as_held = as_engine = true;
		for (sw = 0; sw < out->nsw; sw++) {
			as_held &= lft_row(out, sw)[lid] == lft_row(held, sw)[lid];
			as_engine &= lft_row(out, sw)[lid] ==
			    lft_row(engine, sw)[lid];
		}
		if (as_held)
			res->kept++;
		else if (as_engine)
			res->computed++;
		else
			res->mixed++;
	}
	free(owner);
	return 0;
}
