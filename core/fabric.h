/*
 * The fabric model: what one discovery sweep found. Dense arrays with stable
 * indices (node i, port j), a GUID -> node hash, a LID -> end port index,
 * and helpers to build and walk it. Routing and policy read this model,
 * never the wire; it does no I/O, so unit tests build fabrics in memory
 * with the same calls discovery uses.
 */
#ifndef IBSMD_FABRIC_H
#define IBSMD_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/guidhash.h"

#define FABRIC_NONE     UINT32_MAX
#define FABRIC_MAX_LID  0xBFFF          /* highest unicast LID */
/* Highest LID the model holds. The daemon assigns unicast LIDs only (the
 * LID manager's range); in-memory fabrics of benchmarks and digests larger
 * than a subnet number past 0xBFFF, which routing does not care about.
 * 0xFFFF is the permissive LID and never a port's. */
#define FABRIC_MODEL_MAX_LID 0xFFFE
#define FABRIC_LMC_MAX  7               /* PortInfo:LMC has 3 bits */
#define FABRIC_DR_MAX   64              /* InitialPath bytes, index 0 unused */

enum node_type { NODE_CA = 1, NODE_SWITCH = 2, NODE_ROUTER = 3 };

/* PortState and PhysState values (IBA 14.2.5.6). */
enum { PORT_NOCHANGE = 0, PORT_DOWN = 1, PORT_INIT = 2, PORT_ARMED = 3,
       PORT_ACTIVE = 4 };
enum { PHYS_POLLING = 2, PHYS_DISABLED = 3, PHYS_LINKUP = 5 };

struct dr_path {
	uint8_t hops;                   /* 0 = the SM's own port */
	uint8_t port[FABRIC_DR_MAX];    /* port[1..hops]: egress port per hop */
};

struct fabric_port {
	uint64_t guid;          /* port GUID (a switch's ports share port 0's) */
	uint32_t node;          /* owning node index */
	uint32_t peer;          /* peer port index, FABRIC_NONE if none known */
	uint8_t num;            /* port number on its node */
	uint8_t state;          /* PortState as read, 0 = not read */
	uint8_t phys;           /* PhysState as read */
	uint8_t present;        /* CA/router port: seen through the fabric */
	/* The LIDs the SM assigns, lid .. lid + 2^lmc - 1 (lid 0: none yet).
	 * Only fabric_set_lid() writes them, keeping the LID index in step:
	 * they are const so that any other write fails to compile. */
	const uint16_t lid;
	const uint8_t lmc;
	uint8_t info_valid;     /* info[] holds a PortInfo read this sweep */
	uint8_t info[64];       /* raw PortInfo as read */
	uint32_t path;          /* CA/router port: index into fabric->paths */
	uint8_t kept;           /* not read this sweep: kept as the model in
				 * use knew it (core/graft.h) */
	uint8_t held;           /* switch link up but held out of routing
				 * while it flaps (sm/holddown.h) */
	uint8_t mkey_foreign;   /* managed port (a CA port, a switch's port
				 * 0) holding an M_Key this SM does not give
				 * (core/mkey.h: MKEY_HIDDEN or MKEY_OTHER;
				 * 0: ours): nothing is written to it */
};

struct fabric_node {
	uint64_t guid;          /* NodeGUID */
	uint64_t sysguid;
	uint8_t type;           /* enum node_type */
	uint8_t nports;         /* NumPorts; ports are port0 .. port0 + nports */
	uint8_t sw_info_valid;
	uint8_t desc_valid;
	uint32_t port0;         /* index of port 0 in fabric->ports */
	uint32_t path;          /* switch: index into fabric->paths */
	uint16_t partition_cap;
	uint16_t lft_cap;       /* switch: LinearFDBCap */
	uint16_t lft_top;       /* switch: LinearFDBTop as read */
	uint8_t psc;            /* switch: PortStateChange as read, 0 once
				 * discovery sent its clear */
	uint16_t enforce_cap;   /* switch: PartitionEnforcementCap */
	uint8_t sw_info[64];    /* switch: raw SwitchInfo as read */
	uint8_t node_info[64];  /* raw NodeInfo as read */
	char desc[65];          /* NodeDescription, NUL-terminated */
	uint8_t kept;           /* not reached this sweep: kept as the model
				 * in use knew it, ports and all */
};

struct fabric {
	struct fabric_node *nodes;
	uint32_t nnodes, nodes_cap;
	struct fabric_port *ports;
	uint32_t nports, ports_cap;
	struct dr_path *paths;
	uint32_t npaths, paths_cap;
	uint32_t sm_port;       /* index of the SM's own port, FABRIC_NONE */
	struct guid_hash by_guid;       /* node GUID -> node index */
	uint32_t *by_lid;       /* LID -> end port index, FABRIC_NONE */
	uint32_t nlids;         /* by_lid covers LIDs 0 .. nlids - 1 */
	uint32_t lid_clashes;   /* LIDs ever given to a second port */
};

void fabric_init(struct fabric *f);
void fabric_fini(struct fabric *f);

/* Add a node with nports + 1 ports (port 0 included, unused on CAs);
 * returns its index. path may be NULL (in-memory fabrics). */
uint32_t fabric_add_node(struct fabric *f, enum node_type type, uint8_t nports,
    uint64_t guid, const struct dr_path *path);
uint32_t fabric_node_by_guid(const struct fabric *f, uint64_t guid);

/* Port index of port num on node n. */
static inline uint32_t
fabric_port_idx(const struct fabric *f, uint32_t n, uint8_t num)
{
	return f->nodes[n].port0 + num;
}

/* Record a link between two ports (both directions). A port's earlier
 * link, if any, is replaced. */
void fabric_link(struct fabric *f, uint32_t pa, uint32_t pb);

/* Store a DR path and return its index. */
uint32_t fabric_add_path(struct fabric *f, const struct dr_path *p);
const struct dr_path *fabric_port_path(const struct fabric *f, uint32_t port);

/* Peer node of port p, FABRIC_NONE if unlinked. */
static inline uint32_t
fabric_peer_node(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q == FABRIC_NONE ? FABRIC_NONE : f->ports[q].node;
}

/* True for a port that carries a LID: CA/router ports present in the
 * fabric and switch port 0. */
bool fabric_port_is_endport(const struct fabric *f, uint32_t p);

struct fabric_counts {
	unsigned switches, cas, routers;        /* nodes by type */
	unsigned endports;      /* ports that carry a LID */
	unsigned ca_ports;      /* of those, CA and router ports */
	unsigned lids;          /* LIDs they answer to (2^lmc each) */
	unsigned links;
};
void fabric_count(const struct fabric *f, struct fabric_counts *k);

/*
 * The LID index. A port's LIDs change only through fabric_set_lid(), which
 * updates the index at once, so the index cannot lag behind the ports (a
 * direct write to fabric_port.lid does not compile). Give end port p the
 * LIDs lid .. lid + 2^lmc - 1, or none with lid 0; its earlier LIDs, if
 * any, are dropped. lid must be aligned to 2^lmc and the range end at
 * FABRIC_MODEL_MAX_LID or below; anything else, or a LID for a port that
 * is not an end port, is a bug of the caller and fatal. Two ports may hold the same LID (the LID manager
 * gives one LID to a port GUID that appears twice): the index then names
 * the one with the lower index.
 */
void fabric_set_lid(struct fabric *f, uint32_t p, uint16_t lid, uint8_t lmc);

/* The end port that answers to lid, FABRIC_NONE if none. O(1). */
static inline uint32_t
fabric_port_by_lid(const struct fabric *f, uint16_t lid)
{
	return lid < f->nlids ? f->by_lid[lid] : FABRIC_NONE;
}

/* Whether lid is one of the LIDs of port. */
static inline bool
fabric_port_has_lid(const struct fabric_port *port, uint16_t lid)
{
	return port->lid != 0 && lid >= port->lid &&
	    (unsigned)(lid - port->lid) < (1u << port->lmc);
}

/* Highest LID assigned in the model (the top of its port's LMC range). */
uint16_t fabric_max_lid(const struct fabric *f);

const char *fabric_node_type_name(uint8_t type);

#endif
