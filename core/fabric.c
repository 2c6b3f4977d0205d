#include "core/fabric.h"

#include <stdlib.h>
#include <string.h>

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

static uint32_t
hash_slot(uint64_t guid, uint32_t cap)
{
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (uint32_t)guid & (cap - 1);
}

static void
hash_put(struct fabric *f, uint64_t guid, uint32_t node)
{
	uint32_t i;

	if ((uint64_t)(f->nnodes + 1) * 2 > f->hash_cap) {
		uint64_t *og = f->hash_guid;
		uint32_t *on = f->hash_node, ocap = f->hash_cap;

		f->hash_cap = ocap ? ocap * 2 : 256;
		f->hash_guid = calloc(f->hash_cap, sizeof(*f->hash_guid));
		f->hash_node = malloc(f->hash_cap * sizeof(*f->hash_node));
		if (f->hash_guid == NULL || f->hash_node == NULL)
			fatal("fabric: out of memory");
		for (i = 0; i < ocap; i++)
			if (og[i] != 0) {
				uint32_t s = hash_slot(og[i], f->hash_cap);

				while (f->hash_guid[s] != 0)
					s = (s + 1) & (f->hash_cap - 1);
				f->hash_guid[s] = og[i];
				f->hash_node[s] = on[i];
			}
		free(og);
		free(on);
	}
	i = hash_slot(guid, f->hash_cap);
	while (f->hash_guid[i] != 0 && f->hash_guid[i] != guid)
		i = (i + 1) & (f->hash_cap - 1);
	f->hash_guid[i] = guid;
	f->hash_node[i] = node;
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
	free(f->hash_guid);
	free(f->hash_node);
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
		hash_put(f, guid, idx);
	return idx;
}

uint32_t
fabric_node_by_guid(const struct fabric *f, uint64_t guid)
{
	uint32_t i;

	if (f->hash_cap == 0 || guid == 0)
		return FABRIC_NONE;
	i = hash_slot(guid, f->hash_cap);
	while (f->hash_guid[i] != 0) {
		if (f->hash_guid[i] == guid)
			return f->hash_node[i];
		i = (i + 1) & (f->hash_cap - 1);
	}
	return FABRIC_NONE;
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
			if (f->nodes[f->ports[p].node].type != NODE_SWITCH)
				k->ca_ports++;
		}
		if (f->ports[p].peer != FABRIC_NONE && f->ports[p].peer > p)
			k->links++;
	}
}

uint16_t
fabric_max_lid(const struct fabric *f)
{
	uint16_t max = 0;

	for (uint32_t p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p) && f->ports[p].lid > max)
			max = f->ports[p].lid;
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
