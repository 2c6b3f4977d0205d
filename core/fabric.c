#include "core/fabric.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"

static void *
grow(void *arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap;
	void *p;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	p = realloc(arr, (size_t)ncap * elem);
	if (p == NULL)
		fatal("fabric: out of memory");
	*cap = ncap;
	return p;
}

void
fabric_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->sm_port = FABRIC_NONE;
}

void
fabric_fini(struct fabric *f)
{
	free(f->nodes);
	free(f->ports);
	free(f->paths);
	free(f->by_lid);
	guid_hash_fini(&f->by_guid);
	fabric_init(f);
}

uint32_t
fabric_add_path(struct fabric *f, const struct dr_path *p)
{
	f->paths = grow(f->paths, &f->paths_cap, f->npaths + 1, sizeof(*p));
	f->paths[f->npaths] = *p;
	return f->npaths++;
}

uint32_t
fabric_add_node(struct fabric *f, enum node_type type, uint8_t nports,
    uint64_t guid, const struct dr_path *path)
{
	struct fabric_node *n;
	uint32_t idx = f->nnodes, i;

	f->nodes = grow(f->nodes, &f->nodes_cap, f->nnodes + 1, sizeof(*n));
	f->ports = grow(f->ports, &f->ports_cap, f->nports + nports + 1,
	    sizeof(*f->ports));
	n = &f->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = (uint8_t)type;
	n->nports = nports;
	n->port0 = f->nports;
	n->path = path ? fabric_add_path(f, path) : FABRIC_NONE;
	for (i = 0; i <= nports; i++) {
		struct fabric_port *p = &f->ports[f->nports + i];

		memset(p, 0, sizeof(*p));
		p->node = idx;
		p->num = (uint8_t)i;
		p->peer = FABRIC_NONE;
		p->path = FABRIC_NONE;
		if (type == NODE_SWITCH)
			p->guid = guid;
	}
	f->nports += nports + 1u;
	f->nnodes++;
	if (guid != 0)
		guid_hash_put(&f->by_guid, guid, idx);
	return idx;
}

uint32_t
fabric_node_by_guid(const struct fabric *f, uint64_t guid)
{
	return guid_hash_get(&f->by_guid, guid);
}

void
fabric_link(struct fabric *f, uint32_t pa, uint32_t pb)
{
	uint32_t old;

	if ((old = f->ports[pa].peer) != FABRIC_NONE && f->ports[old].peer == pa)
		f->ports[old].peer = FABRIC_NONE;
	if ((old = f->ports[pb].peer) != FABRIC_NONE && f->ports[old].peer == pb)
		f->ports[old].peer = FABRIC_NONE;
	f->ports[pa].peer = pb;
	f->ports[pb].peer = pa;
}

const struct dr_path *
fabric_port_path(const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const struct fabric_node *n = &f->nodes[port->node];

	if (n->type != NODE_SWITCH && port->path != FABRIC_NONE)
		return &f->paths[port->path];
	if (n->path != FABRIC_NONE)
		return &f->paths[n->path];
	return NULL;
}

bool
fabric_port_is_endport(const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];

	if (f->nodes[port->node].type == NODE_SWITCH)
		return port->num == 0;
	return port->num != 0 && port->present;
}

void
fabric_count(const struct fabric *f, struct fabric_counts *k)
{
	memset(k, 0, sizeof(*k));
	for (uint32_t n = 0; n < f->nnodes; n++)
		switch (f->nodes[n].type) {
		case NODE_SWITCH: k->switches++; break;
		case NODE_CA: k->cas++; break;
		case NODE_ROUTER: k->routers++; break;
		}
	for (uint32_t p = 0; p < f->nports; p++) {
		if (fabric_port_is_endport(f, p)) {
			k->endports++;
			if (f->ports[p].lid != 0)
				k->lids += 1u << f->ports[p].lmc;
			if (f->nodes[f->ports[p].node].type != NODE_SWITCH)
				k->ca_ports++;
		}
		if (f->ports[p].peer != FABRIC_NONE && f->ports[p].peer > p)
			k->links++;
	}
}

/* The lowest port other than p that holds lid, FABRIC_NONE if none. */
static uint32_t
other_owner(const struct fabric *f, uint32_t p, uint16_t lid)
{
	for (uint32_t q = 0; q < f->nports; q++)
		if (q != p && fabric_port_has_lid(&f->ports[q], lid))
			return q;
	return FABRIC_NONE;
}

void
fabric_set_lid(struct fabric *f, uint32_t p, uint16_t lid, uint8_t lmc)
{
	struct fabric_port *port = &f->ports[p];
	uint32_t l, n = 1u << (lmc & FABRIC_LMC_MAX), old, oldn, cap;

	if (lid != 0 && (lmc > FABRIC_LMC_MAX || (lid & (n - 1)) != 0 ||
	    (uint32_t)lid + n - 1 > FABRIC_MODEL_MAX_LID ||
	    !fabric_port_is_endport(f, p)))
		fatalx("fabric: port %u (node 0x%016" PRIx64 " port %u) "
		    "cannot take LID %u at LMC %u", p,
		    f->nodes[port->node].guid, port->num, lid, lmc);
	old = port->lid;
	oldn = 1u << port->lmc;
	/* Only fabric_set_lid writes these: see fabric.h. */
	*(uint16_t *)&port->lid = lid;
	*(uint8_t *)&port->lmc = lid != 0 ? lmc : 0;
	for (l = old; old != 0 && l < old + oldn; l++)
		if (f->by_lid[l] == p)
			f->by_lid[l] = f->lid_clashes == 0 ? FABRIC_NONE :
			    other_owner(f, p, (uint16_t)l);
	if (lid == 0)
		return;
	if (lid + n > f->nlids) {
		/* Doubling, so that numbering ports one by one stays linear. */
		cap = f->nlids < 64 ? 64 : 2 * f->nlids;
		if (cap < lid + n)
			cap = lid + n;
		if (cap > FABRIC_MODEL_MAX_LID + 1)
			cap = FABRIC_MODEL_MAX_LID + 1;
		f->by_lid = xreallocarray(f->by_lid, cap, sizeof(*f->by_lid));
		for (l = f->nlids; l < cap; l++)
			f->by_lid[l] = FABRIC_NONE;
		f->nlids = cap;
	}
	for (l = lid; l < lid + n; l++) {
		if (f->by_lid[l] == FABRIC_NONE || f->by_lid[l] == p)
			f->by_lid[l] = p;
		else {
			f->lid_clashes++;
			if (p < f->by_lid[l])
				f->by_lid[l] = p;
		}
	}
}

uint16_t
fabric_max_lid(const struct fabric *f)
{
	uint16_t max = 0;
	uint32_t top;

	for (uint32_t p = 0; p < f->nports; p++) {
		top = f->ports[p].lid + (1u << f->ports[p].lmc) - 1;
		if (fabric_port_is_endport(f, p) && f->ports[p].lid != 0 &&
		    top > max)
			max = (uint16_t)top;
	}
	return max;
}

const char *
fabric_node_type_name(uint8_t type)
{
	switch (type) {
	case NODE_CA: return "CA";
	case NODE_SWITCH: return "switch";
	case NODE_ROUTER: return "router";
	}
	return "unknown";
}
