/*
 * Questions asked of a fabric model: where the forwarding tables take a
 * packet, what a port's PortInfo says about its link, which node or port a
 * name given by a user means. ibsmctl's views (sm/show.c) and Subnet
 * Administration ask them; both read the model, never the wire. Answers are
 * indices and reasons, never text: wording is the caller's.
 *
 * Which port answers to a LID is the fabric's own LID index,
 * fabric_port_by_lid() in core/fabric.h.
 */
#ifndef IBSMD_QUERY_H
#define IBSMD_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

/* ---- names of PortInfo values */

/* PortState ("Down", "Init", "Armed", "Active") and PhysState ("Polling",
 * "LinkUp", ...) names; "unknown" for codes IBA does not name. */
const char *query_port_state_name(uint8_t state);
const char *query_phys_state_name(uint8_t phys);

/* ---- the link of a port, from its PortInfo */

enum query_speed {
	QUERY_SPEED_UNKNOWN,    /* no code IBA names */
	QUERY_SPEED_SDR, QUERY_SPEED_DDR, QUERY_SPEED_QDR, QUERY_SPEED_FDR,
	QUERY_SPEED_EDR, QUERY_SPEED_HDR, QUERY_SPEED_NDR
};

struct query_link {
	unsigned lanes;         /* LinkWidthActive: 1, 2, 4, 8, 12; 0 unknown */
	enum query_speed speed; /* LinkSpeedExtActive, else LinkSpeedActive */
	unsigned mbps;          /* nominal data rate lanes x speed, as IBA's
	                         * rate codes name it (4X QDR: 40000); 0 when
	                         * width or speed is unknown */
};

/* Decode the active width and speed of port p. Returns -1 (and leaves l
 * alone) when there is no link to decode: p is a switch's port 0, its
 * PortInfo was not read, or its state is below Init. */
int query_port_link(const struct fabric_port *p, struct query_link *l);
/* "1X", "2X", "4X", "8X", "12X"; "?" for 0 lanes. */
const char *query_width_name(unsigned lanes);
/* "SDR" ... "NDR"; "?" for QUERY_SPEED_UNKNOWN. */
const char *query_speed_name(enum query_speed s);

/* MTUs are IBA codes, as PortInfo holds them: 1 = 256 bytes ... 5 = 4096.
 * MTUCap and NeighborMTU of p; 0 when its PortInfo was not read. */
unsigned query_port_mtu_cap(const struct fabric_port *p);
unsigned query_port_neighbor_mtu(const struct fabric_port *p);
/* Bytes of an MTU code, 0 for codes outside 1..5. */
unsigned query_mtu_bytes(unsigned code);

/* VLs are IBA codes too: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 =
 * VL0-14. VLCap and OperationalVLs of p; 0 when its PortInfo was not
 * read. */
unsigned query_port_vl_cap(const struct fabric_port *p);
unsigned query_port_op_vls(const struct fabric_port *p);
/* Data VLs of a VL code (1, 2, 4, 8, 15), 0 for codes outside 1..5. */
unsigned query_vls(unsigned code);

/* ---- walking the forwarding tables */

struct query_hop {
	uint32_t node;
	uint8_t in;             /* port it was entered by; 0 at the start */
	uint8_t out;            /* port it is left by; 0 at the end */
	uint16_t lid;           /* its LID: the CA port's, or switch port 0's */
};

enum query_walk_end {
	QUERY_WALK_ARRIVED,     /* the last hop is the port that owns dlid */
	QUERY_WALK_NO_ROUTE,    /* a switch has no entry for dlid */
	QUERY_WALK_SELF,        /* a switch keeps dlid, which is not its own */
	QUERY_WALK_BAD_PORT,    /* a switch sends dlid past its last port */
	QUERY_WALK_NO_LINK,     /* the port left by has no link */
	QUERY_WALK_WRONG_PORT,  /* delivered to a CA port without dlid */
	QUERY_WALK_LOOP,        /* back at a switch already passed */
	QUERY_WALK_TOO_LONG,    /* max hops used up */
	QUERY_WALK_END_MAX
};

const char *query_walk_end_name(enum query_walk_end e);

/*
 * Follow lft (whose switch indices refer to f) from end port src towards
 * dlid, hop by hop. hops[0] is src's node; each later hop is the node
 * reached, with the port it was entered by and, but for the last, the
 * port it is left by. At most max hops are filled; *n receives how many.
 * On any end but ARRIVED the last hop is where the walk stopped and its
 * out is the port the tables chose there, if any: the switch without a
 * route or past its ports, the node whose port has no link, the CA port
 * reached by mistake (its lid tells what it is), the switch met again.
 */
enum query_walk_end query_walk(const struct fabric *f,
    const struct lft_set *lft, uint32_t src, uint16_t dlid,
    struct query_hop *hops, unsigned max, unsigned *n);

/* ---- names given by users */

/* What a name stands for: a node, or one port of it. */
struct query_target {
	uint32_t node;
	uint32_t port;          /* a port index, or FABRIC_NONE: the node */
	uint16_t lid;           /* the LID the name gave, 0 if not a LID */
	uint64_t number;        /* the LID or GUID the name gave */
	unsigned matches;       /* nodes with the description the name gave */
};

enum query_name {
	QUERY_NAME_OK,
	QUERY_NAME_NOT_UNICAST, /* a LID outside 1 .. FABRIC_MAX_LID */
	QUERY_NAME_NO_LID,      /* no port answers to the LID */
	QUERY_NAME_NO_GUID,     /* no node or port has the GUID */
	QUERY_NAME_AMBIGUOUS,   /* several nodes have the description */
	QUERY_NAME_NO_MATCH,    /* not a number, and no node's description */
	QUERY_NAME_MAX
};

const char *query_name_name(enum query_name e);

/*
 * Resolve name, in this order: a LID (decimal up to 65535, or 0x and at
 * most four hex digits; "010" is decimal 10), a GUID (any other number:
 * node GUID, else port GUID), a node description (exact; must name one
 * node). A LID or port GUID of a CA port names that port; of a switch, the
 * whole switch.
 */
enum query_name query_resolve(const struct fabric *f, const char *name,
    struct query_target *t);

/* The node whose NodeDescription, or name in the node name map, is desc;
 * FABRIC_NONE if none or several;
 * *matches (if not NULL) receives how many have it. */
uint32_t query_node_by_desc(const struct fabric *f, const char *desc,
    unsigned *matches);
/* The port with port GUID guid (a switch's is its port 0), FABRIC_NONE. */
uint32_t query_port_by_guid(const struct fabric *f, uint64_t guid);

/* The name of node n for people: its name in the node name map in force
 * (core/nodemap), else its NodeDescription; printable ASCII, '"' and
 * control bytes as '?'; returns buf. */
const char *query_node_name(const struct fabric *f, uint32_t n, char *buf,
    size_t len);
/* Node n for a log line: its type, GUID and name, e.g.
 * switch 0x0000000000200000 "leaf3"; returns buf. */
const char *query_node_text(const struct fabric *f, uint32_t n, char *buf,
    size_t len);

/* The end port that stands for node n in a route: a switch's port 0, a
 * CA's first present port with a LID; FABRIC_NONE if it has none. */
uint32_t query_node_endport(const struct fabric *f, uint32_t n);
/* The end port a target starts a route from or leads to: the port of its
 * LID, the port it names if that is an end port, else its node's. */
uint32_t query_target_endport(const struct fabric *f,
    const struct query_target *t);

#endif
