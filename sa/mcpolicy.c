/*
 * Pre-created multicast groups from the partition policy: see
 * sa/mcpolicy.h.
 */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/query.h"
#include "partitions/partitions.h"
#include "sa/mcrules.h"
#include "sa/mcpolicy.h"
#include "sa/scope.h"

#define SCOPE_LINK_LOCAL 2

struct glist {
	struct mcpolicy_group *v;
	size_t n, cap;
};

static void
add(struct glist *l, const uint8_t mgid[16], uint16_t pkey,
    const struct pkey_group_flags *f, uint32_t qkey, uint8_t scope,
    bool bcast, unsigned line)
{
	struct mcpolicy_group *g;
	uint8_t id[16];
	size_t i;

	memcpy(id, mgid, 16);
	id[1] = (uint8_t)((id[1] & 0xf0) | scope);
	/* A group named twice (ipoib and an mgid= line for the broadcast
	 * MGID) is created once, by the first, as OpenSM's find-or-create. */
	for (i = 0; i < l->n; i++)
		if (memcmp(l->v[i].mgid, id, 16) == 0)
			return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	g = &l->v[l->n++];
	memset(g, 0, sizeof(*g));
	memcpy(g->mgid, id, 16);
	g->pkey = (uint16_t)(pkey | PKEY_FULL);
	g->qkey = qkey;
	g->mtu = f->mtu;
	g->rate = f->rate;
	g->sl = SA_SL_NO_QOS;	/* not f->sl: no SL-to-VL mapping (sa/path.c) */
	g->tclass = f->tclass;
	g->flow_label = f->flow_label & 0xfffff;
	g->scope = scope;
	g->hop_limit = scope == SCOPE_LINK_LOCAL ? 0 : 0xff;
	g->broadcast = bcast;
	g->line = line;
}

size_t
mcpolicy_groups(const struct pkey_policy *p, struct mcpolicy_group **out)
{
	struct glist l = { 0 };
	size_t i, j;
	unsigned s;

	for (i = 0; p != NULL && i < pkey_policy_count(p); i++) {
		const struct pkey_partition *pt = pkey_policy_get(p, i);
		const struct pkey_group_flags *f = &pt->flags;

		if (pt->ipoib) {
			uint8_t mgid[16];

			mcmember_bcast_mgid(mgid, pt->pkey, 0);
			for (s = 0; s < 16; s++)
				if (f->scope_mask & (1u << s))
					add(&l, mgid, pt->pkey, f, f->qkey ?
					    f->qkey : PKEY_IPOIB_QKEY,
					    (uint8_t)s, true, pt->line);
		}
		for (j = 0; j < pt->nmgroups; j++) {
			const struct pkey_mgroup *m = &pt->mgroups[j];

			for (s = 0; s < 16; s++)
				if (m->flags.scope_mask & (1u << s))
					add(&l, m->mgid, pt->pkey, &m->flags,
					    m->flags.qkey, (uint8_t)s, false,
					    m->line);
		}
	}
	*out = l.v;
	return l.n;
}

uint8_t
mcpolicy_port_rate(const struct fabric_port *p)
{
	struct query_link ql;
	unsigned best = 0, t;
	uint8_t code = 0, c;

	if (query_port_link(p, &ql) < 0 || ql.mbps == 0)
		return 0;
	for (c = 2; c < 64; c++) {
		t = mcmember_rate_tenths(c);
		if (t != 0 && t * 100 <= ql.mbps && t > best) {
			best = t;
			code = c;
		}
	}
	return code;
}

size_t
mcpolicy_check_ports(const struct sa_view *v, const struct mcpolicy_group *g,
    size_t n, void (*cb)(void *arg, const char *line), void *arg)
{
	const struct fabric *f = v->f;
	size_t i, bad = 0;
	uint32_t p;
	char gid[64], line[512];

	for (i = 0; i < n; i++) {
		if (!g[i].broadcast)
			continue;
		for (p = 0; p < f->nports; p++) {
			const struct fabric_port *port = &f->ports[p];
			const struct fabric_node *node = &f->nodes[port->node];
			unsigned mtu;
			uint8_t rate;

			if (!fabric_port_is_endport(f, p) ||
			    node->type == NODE_SWITCH || v->pk == NULL ||
			    !sa_scope_has(v, p, g[i].pkey, NULL))
				continue;
			mtu = query_port_neighbor_mtu(port);
			rate = mcpolicy_port_rate(port);
			if ((mtu == 0 || mtu >= g[i].mtu) && (rate == 0 ||
			    mcmember_rate_tenths(rate) >=
			    mcmember_rate_tenths(g[i].rate)))
				continue;
			bad++;
			if (cb == NULL)
				continue;
			if (inet_ntop(AF_INET6, g[i].mgid, gid, sizeof(gid)) ==
			    NULL)
				strcpy(gid, "?");
			snprintf(line, sizeof(line), "IPoIB broadcast group %s "
			    "(P_Key 0x%04x, partitions.conf line %u) has mtu %u "
			    "(%s bytes) and rate %u (%s Gb/s); port 0x%016"
			    PRIx64 " (\"%s\" port %u) takes only NeighborMTU %u "
			    "(%u bytes), rate %u: it can never join, its IPoIB "
			    "stays down", gid, g[i].pkey, g[i].line, g[i].mtu,
			    pkey_mtu_bytes(g[i].mtu), g[i].rate,
			    pkey_rate_gbps(g[i].rate) ?
			    pkey_rate_gbps(g[i].rate) : "?", port->guid,
			    node->desc, port->num, mtu, query_mtu_bytes(mtu),
			    rate);
			cb(arg, line);
		}
	}
	return bad;
}
