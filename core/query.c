#include "core/query.h"
#include "core/nodemap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

/* ------------------------------------------------------------ names */

const char *
query_port_state_name(uint8_t s)
{
	static const char *const n[] = { "unknown", "Down", "Init", "Armed",
	    "Active" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

const char *
query_phys_state_name(uint8_t s)
{
	static const char *const n[] = { "unknown", "Sleep", "Polling",
	    "Disabled", "PortConfigurationTraining", "LinkUp",
	    "LinkErrorRecovery", "PhyTest" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

/* ------------------------------------------------------------ links */

static unsigned
info_field(const struct fabric_port *p, enum MAD_FIELDS fld)
{
	return p->info_valid ? mad_get_field((void *)p->info, 0, fld) : 0;
}

static const struct {
	const char *name;
	unsigned lane_mbps;     /* nominal, as IBA's rate codes count */
} speeds[] = {
	[QUERY_SPEED_UNKNOWN] = { "?", 0 },
	[QUERY_SPEED_SDR] = { "SDR", 2500 },
	[QUERY_SPEED_DDR] = { "DDR", 5000 },
	[QUERY_SPEED_QDR] = { "QDR", 10000 },
	[QUERY_SPEED_FDR] = { "FDR", 14000 },
	[QUERY_SPEED_EDR] = { "EDR", 25000 },
	[QUERY_SPEED_HDR] = { "HDR", 50000 },
	[QUERY_SPEED_NDR] = { "NDR", 100000 },
};

static unsigned
lanes(unsigned width_active)
{
	switch (width_active) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return 0;
}

static enum query_speed
speed(const struct fabric_port *p)
{
	/* An extended speed, when one is active, overrides LinkSpeedActive. */
	switch (info_field(p, IB_PORT_LINK_SPEED_EXT_ACTIVE_F)) {
	case 1: return QUERY_SPEED_FDR;
	case 2: return QUERY_SPEED_EDR;
	case 4: return QUERY_SPEED_HDR;
	case 8: return QUERY_SPEED_NDR;
	}
	switch (info_field(p, IB_PORT_LINK_SPEED_ACTIVE_F)) {
	case 1: return QUERY_SPEED_SDR;
	case 2: return QUERY_SPEED_DDR;
	case 4: return QUERY_SPEED_QDR;
	}
	return QUERY_SPEED_UNKNOWN;
}

int
query_port_link(const struct fabric_port *p, struct query_link *l)
{
	if (p->num == 0 || p->state < PORT_INIT || !p->info_valid)
		return -1;
	l->lanes = lanes(info_field(p, IB_PORT_LINK_WIDTH_ACTIVE_F));
	l->speed = speed(p);
	l->mbps = l->lanes * speeds[l->speed].lane_mbps;
	return 0;
}

const char *
query_width_name(unsigned n)
{
	switch (n) {
	case 1: return "1X";
	case 2: return "2X";
	case 4: return "4X";
	case 8: return "8X";
	case 12: return "12X";
	}
	return "?";
}

const char *
query_speed_name(enum query_speed s)
{
	return (unsigned)s < sizeof(speeds) / sizeof(speeds[0]) ?
	    speeds[s].name : "?";
}

unsigned
query_port_mtu_cap(const struct fabric_port *p)
{
	return info_field(p, IB_PORT_MTU_CAP_F);
}

unsigned
query_port_neighbor_mtu(const struct fabric_port *p)
{
	return info_field(p, IB_PORT_NEIGHBOR_MTU_F);
}

unsigned
query_port_vl_cap(const struct fabric_port *p)
{
	return info_field(p, IB_PORT_VL_CAP_F);
}

unsigned
query_port_op_vls(const struct fabric_port *p)
{
	return info_field(p, IB_PORT_OPER_VLS_F);
}

unsigned
query_vls(unsigned code)
{
	static const unsigned vls[] = { 0, 1, 2, 4, 8, 15 };

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

unsigned
query_mtu_bytes(unsigned code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}

/* ------------------------------------------------------------ walks */

const char *
query_walk_end_name(enum query_walk_end e)
{
	static const char *const n[QUERY_WALK_END_MAX] = {
		[QUERY_WALK_ARRIVED] = "arrived",
		[QUERY_WALK_NO_ROUTE] = "no route",
		[QUERY_WALK_SELF] = "kept by a switch",
		[QUERY_WALK_BAD_PORT] = "no such port",
		[QUERY_WALK_NO_LINK] = "no link",
		[QUERY_WALK_WRONG_PORT] = "wrong port",
		[QUERY_WALK_LOOP] = "loop",
		[QUERY_WALK_TOO_LONG] = "too long",
	};

	return (unsigned)e < QUERY_WALK_END_MAX ? n[e] : "unknown";
}

/* Whether switch node appears among hops[0 .. k-1]. The tables take one
 * LID the same way every time, so meeting a switch again is a loop. */
static bool
passed(const struct query_hop *hops, unsigned k, uint32_t node)
{
	for (unsigned i = 0; i < k; i++)
		if (hops[i].node == node)
			return true;
	return false;
}

/* The port switch node's table sends dlid to: LFT_NO_ROUTE when the set
 * holds no table for it or no entry for dlid. */
static uint8_t
entry(const struct lft_set *lft, uint32_t node, uint16_t dlid)
{
	uint32_t sw = lft->node_sw[node];

	return sw == FABRIC_NONE || dlid > lft->max_lid ? LFT_NO_ROUTE :
	    lft_row(lft, sw)[dlid];
}

enum query_walk_end
query_walk(const struct fabric *f, const struct lft_set *lft, uint32_t src,
    uint16_t dlid, struct query_hop *hops, unsigned max, unsigned *n)
{
	const struct fabric_node *next;
	uint32_t at = src, q;   /* at: the port we are at */
	unsigned k = 0;
	uint8_t e;

	*n = 0;
	if (max == 0)
		return QUERY_WALK_TOO_LONG;
	hops[0] = (struct query_hop){ .node = f->ports[src].node };
	for (;;) {
		const struct fabric_port *port = &f->ports[at];
		const struct fabric_node *node = &f->nodes[port->node];

		*n = k + 1;
		if (node->type != NODE_SWITCH) {
			hops[k].lid = port->lid;
			if (fabric_port_has_lid(port, dlid))
				return QUERY_WALK_ARRIVED;
			if (k > 0)
				return QUERY_WALK_WRONG_PORT;
			e = port->num;          /* leave the CA where we are */
		} else {
			hops[k].lid = f->ports[node->port0].lid;
			e = entry(lft, port->node, dlid);
			if (e == 0 && fabric_port_has_lid(
			    &f->ports[node->port0], dlid))
				return QUERY_WALK_ARRIVED;
			if (e == 0)
				return QUERY_WALK_SELF;
			if (e == LFT_NO_ROUTE)
				return QUERY_WALK_NO_ROUTE;
		}
		hops[k].out = e;
		if (e > node->nports)
			return QUERY_WALK_BAD_PORT;
		q = f->ports[node->port0 + e].peer;
		if (q == FABRIC_NONE)
			return QUERY_WALK_NO_LINK;
		if (k + 1 >= max)
			return QUERY_WALK_TOO_LONG;
		at = q;
		k++;
		hops[k] = (struct query_hop){ .node = f->ports[q].node,
		    .in = f->ports[q].num };
		next = &f->nodes[hops[k].node];
		if (next->type == NODE_SWITCH && passed(hops, k, hops[k].node)) {
			*n = k + 1;
			hops[k].lid = f->ports[next->port0].lid;
			return QUERY_WALK_LOOP;
		}
	}
}

/* ------------------------------------------------------------ names */

const char *
query_name_name(enum query_name e)
{
	static const char *const n[QUERY_NAME_MAX] = {
		[QUERY_NAME_OK] = "ok",
		[QUERY_NAME_NOT_UNICAST] = "not a unicast LID",
		[QUERY_NAME_NO_LID] = "no such LID",
		[QUERY_NAME_NO_GUID] = "no such GUID",
		[QUERY_NAME_AMBIGUOUS] = "ambiguous description",
		[QUERY_NAME_NO_MATCH] = "no match",
	};

	return (unsigned)e < QUERY_NAME_MAX ? n[e] : "unknown";
}

/* A number: 1 for a LID (decimal up to 65535, or hex of at most four
 * digits), 2 for a GUID (any other number), 0 for not a number. */
static int
number(const char *name, uint64_t *v)
{
	bool hex = name[0] == '0' && (name[1] == 'x' || name[1] == 'X');
	char *end;

	if (name[0] < '0' || name[0] > '9')
		return 0;
	errno = 0;
	/* Decimal means decimal: "010" is LID 10, never octal 8. */
	*v = strtoull(name, &end, hex ? 16 : 10);
	if (errno != 0 || *end != '\0' || end == name + (hex ? 2 : 0))
		return 0;
	if (hex)
		return strlen(name + 2) <= 4 ? 1 : 2;
	return *v <= 0xFFFF ? 1 : 2;
}

uint32_t
query_node_by_desc(const struct fabric *f, const char *desc,
    unsigned *matches)
{
	uint32_t n, found = FABRIC_NONE;
	unsigned k = 0;

	const struct node_names *nm = node_names_current();
	const char *name;

	for (n = 0; n < f->nnodes && desc[0] != '\0'; n++)
		if ((f->nodes[n].desc_valid &&
		    strcmp(f->nodes[n].desc, desc) == 0) ||
		    ((name = node_names_get(nm, f->nodes[n].guid)) != NULL &&
		    strcmp(name, desc) == 0)) {
			found = n;
			k++;
		}
	if (matches != NULL)
		*matches = k;
	return k == 1 ? found : FABRIC_NONE;
}

uint32_t
query_port_by_guid(const struct fabric *f, uint64_t guid)
{
	uint32_t n, p;

	if (guid == 0)
		return FABRIC_NONE;
	if ((n = fabric_node_by_guid(f, guid)) != FABRIC_NONE &&
	    f->nodes[n].type == NODE_SWITCH)
		return f->nodes[n].port0;
	for (p = 0; p < f->nports; p++)
		if (f->ports[p].guid == guid)
			return p;
	return FABRIC_NONE;
}

/* t for the port p named by a LID or a port GUID. */
static void
target_port(const struct fabric *f, uint32_t p, struct query_target *t)
{
	t->node = f->ports[p].node;
	if (f->nodes[t->node].type != NODE_SWITCH)
		t->port = p;
}

enum query_name
query_resolve(const struct fabric *f, const char *name,
    struct query_target *t)
{
	uint32_t p;
	uint64_t v;

	memset(t, 0, sizeof(*t));
	t->node = FABRIC_NONE;
	t->port = FABRIC_NONE;
	switch (number(name, &v)) {
	case 1:
		t->number = v;
		if (v == 0 || v > FABRIC_MAX_LID)
			return QUERY_NAME_NOT_UNICAST;
		if ((p = fabric_port_by_lid(f, (uint16_t)v)) == FABRIC_NONE)
			return QUERY_NAME_NO_LID;
		t->lid = (uint16_t)v;
		target_port(f, p, t);
		return QUERY_NAME_OK;
	case 2:
		t->number = v;
		if ((t->node = fabric_node_by_guid(f, v)) != FABRIC_NONE)
			return QUERY_NAME_OK;
		if ((p = query_port_by_guid(f, v)) == FABRIC_NONE)
			return QUERY_NAME_NO_GUID;
		target_port(f, p, t);
		return QUERY_NAME_OK;
	}
	t->node = query_node_by_desc(f, name, &t->matches);
	if (t->matches == 1)
		return QUERY_NAME_OK;
	return t->matches > 1 ? QUERY_NAME_AMBIGUOUS : QUERY_NAME_NO_MATCH;
}

const char *
query_node_name(const struct fabric *f, uint32_t n, char *buf, size_t len)
{
	const struct fabric_node *node = &f->nodes[n];
	const char *src = node_names_get(node_names_current(), node->guid);
	size_t i, max = src ? strlen(src) : sizeof(node->desc);

	if (src == NULL)
		src = node->desc_valid ? node->desc : "";
	/* a description is the device's bytes: printable ASCII only */
	for (i = 0; i < max && i + 1 < len && src[i]; i++)
		buf[i] = src[i] >= 0x20 && src[i] < 0x7f && src[i] != '"' ?
		    src[i] : '?';
	if (len > 0)
		buf[i < len ? i : len - 1] = '\0';
	return buf;
}

const char *
query_node_text(const struct fabric *f, uint32_t n, char *buf, size_t len)
{
	const struct fabric_node *node = &f->nodes[n];
	char name[256];

	snprintf(buf, len, "%s 0x%016" PRIx64 " \"%s\"",
	    fabric_node_type_name(node->type), node->guid,
	    query_node_name(f, n, name, sizeof(name)));
	return buf;
}

uint32_t
query_node_endport(const struct fabric *f, uint32_t n)
{
	const struct fabric_node *node = &f->nodes[n];

	if (node->type == NODE_SWITCH)
		return node->port0;
	for (unsigned i = 1; i <= node->nports; i++) {
		uint32_t p = node->port0 + i;

		if (fabric_port_is_endport(f, p) && f->ports[p].lid != 0)
			return p;
	}
	return FABRIC_NONE;
}

uint32_t
query_target_endport(const struct fabric *f, const struct query_target *t)
{
	if (t->lid != 0)
		return fabric_port_by_lid(f, t->lid);
	if (t->port != FABRIC_NONE)
		return fabric_port_is_endport(f, t->port) ? t->port :
		    FABRIC_NONE;
	return query_node_endport(f, t->node);
}
