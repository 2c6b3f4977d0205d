#include "core/graft.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

/* A link to make: next's port p faces what cur's port cq faced. */
struct graft_link {
	uint32_t p, cq;
};

struct graft {
	struct fabric *next;
	const struct fabric *cur;
	struct graft_link *q;
	size_t n, cap;
	unsigned nodes;
};

static void
push(struct graft *g, uint32_t p, uint32_t cq)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->q = xreallocarray(g->q, g->cap, sizeof(*g->q));
	}
	g->q[g->n].p = p;
	g->q[g->n].cq = cq;
	g->n++;
}

static bool
up(const struct fabric_port *p)
{
	return p->info_valid && p->state >= PORT_INIT;
}

/* A port's PortInfo as cur knew it. */
static void
copy_port(struct fabric_port *to, const struct fabric_port *from)
{
	to->state = from->state;
	to->phys = from->phys;
	to->info_valid = from->info_valid;
	memcpy(to->info, from->info, sizeof(to->info));
	to->kept = 1;
}

/* Copy node cn of cur into next, kept; its links are queued. */
static uint32_t
graft_node(struct graft *g, uint32_t cn)
{
	const struct fabric *cur = g->cur;
	struct fabric *next = g->next;
	const struct fabric_node *c = &cur->nodes[cn];
	struct fabric_node *n;
	uint32_t nn;

	nn = fabric_add_node(next, c->type, c->nports, c->guid,
	    c->path != FABRIC_NONE ? &cur->paths[c->path] : NULL);
	n = &next->nodes[nn];
	n->sysguid = c->sysguid;
	n->sw_info_valid = c->sw_info_valid;
	n->desc_valid = c->desc_valid;
	n->partition_cap = c->partition_cap;
	n->lft_cap = c->lft_cap;
	n->lft_top = c->lft_top;
	n->enforce_cap = c->enforce_cap;
	memcpy(n->sw_info, c->sw_info, sizeof(n->sw_info));
	memcpy(n->node_info, c->node_info, sizeof(n->node_info));
	memcpy(n->desc, c->desc, sizeof(n->desc));
	n->kept = 1;
	g->nodes++;
	for (uint8_t k = 0; k <= c->nports; k++) {
		uint32_t cp = fabric_port_idx(cur, cn, k);
		uint32_t np = fabric_port_idx(next, nn, k);
		const struct fabric_port *from = &cur->ports[cp];
		struct fabric_port *to = &next->ports[np];

		to->guid = from->guid;
		to->present = from->present;
		if (from->path != FABRIC_NONE)
			to->path = fabric_add_path(next, &cur->paths[from->path]);
		copy_port(to, from);
		if (k != 0 && from->peer != FABRIC_NONE)
			push(g, np, from->peer);
	}
	return nn;
}

/* The unread parts of a node that was reached, from cur; links behind its
 * silent ports queued. */
static void
fill_node(struct graft *g, uint32_t nn)
{
	struct fabric *next = g->next;
	const struct fabric *cur = g->cur;
	struct fabric_node *n = &next->nodes[nn];
	uint32_t cn = fabric_node_by_guid(cur, n->guid);
	const struct fabric_node *c;

	if (cn == FABRIC_NONE || n->kept)
		return;
	c = &cur->nodes[cn];
	if (c->type != n->type || c->nports != n->nports)
		return;         /* another device behind the same GUID */
	if (n->type == NODE_SWITCH && !n->sw_info_valid && c->sw_info_valid) {
		/* SwitchInfo not read: the switch is known, its ports not;
		 * nothing of it can be programmed */
		n->sw_info_valid = 1;
		memcpy(n->sw_info, c->sw_info, sizeof(n->sw_info));
		n->lft_cap = c->lft_cap;
		n->lft_top = c->lft_top;
		n->enforce_cap = c->enforce_cap;
		n->kept = 1;
		g->nodes++;
	}
	for (uint8_t k = n->type == NODE_SWITCH ? 0 : 1; k <= n->nports; k++) {
		uint32_t np = fabric_port_idx(next, nn, k);
		uint32_t cp = fabric_port_idx(cur, cn, k);
		struct fabric_port *port = &next->ports[np];
		const struct fabric_port *from = &cur->ports[cp];

		if (n->type != NODE_SWITCH && !port->present)
			continue;       /* a CA port this sweep did not reach */
		if (!port->info_valid && from->info_valid)
			copy_port(port, from);
		if (k != 0 && port->peer == FABRIC_NONE && up(port) &&
		    from->peer != FABRIC_NONE)
			push(g, np, from->peer);
	}
}

unsigned
fabric_graft_silent(struct fabric *next, const struct fabric *cur)
{
	struct graft g = { .next = next, .cur = cur };
	uint32_t reached = next->nnodes;

	if (cur == NULL || cur->nnodes == 0)
		return 0;
	for (uint32_t n = 0; n < reached; n++)
		fill_node(&g, n);
	for (size_t i = 0; i < g.n; i++) {
		uint32_t p = g.q[i].p, cq = g.q[i].cq;
		const struct fabric_port *cport = &cur->ports[cq];
		uint64_t guid = cur->nodes[cport->node].guid;
		uint32_t nn = fabric_node_by_guid(next, guid), q;

		if (nn == FABRIC_NONE)
			nn = graft_node(&g, cport->node);
		else if (next->nodes[nn].type != cur->nodes[cport->node].type ||
		    cport->num > next->nodes[nn].nports)
			continue;
		q = fabric_port_idx(next, nn, cport->num);
		/* only where both ends still face nothing: a port read down,
		 * or facing another node now, is the end of that link */
		if (next->ports[p].peer != FABRIC_NONE ||
		    next->ports[q].peer != FABRIC_NONE || !up(&next->ports[q]))
			continue;
		fabric_link(next, p, q);
	}
	free(g.q);
	return g.nodes;
}

unsigned
fabric_kept_nodes(const struct fabric *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		n += f->nodes[i].kept;
	return n;
}
