/*
 * Port tables as read from the devices, for what ibsmd does not program:
 * SL-to-VL mapping tables (SMP 0x17), VL arbitration tables (0x18), and
 * the P_Key tables (0x16) of switch ports whose table ibsmd leaves alone
 * (inter-switch ports; every external port with partition enforcement
 * off). sm/devread fills it after subnet up, the SA serves
 * SL2VLTableRecord, VLArbitrationTableRecord and those P_KeyTableRecords
 * from it. Keyed by node GUID, kept across sweeps: what a port held when
 * read stays until the port is read again (a new peer, a node that came
 * back). Pure memory, no I/O.
 */
#ifndef IBSMD_DEVTAB_H
#define IBSMD_DEVTAB_H

#include <stdbool.h>
#include <stdint.h>

#define DEVTAB_SL2VL_SIZE       8       /* 16 SLs, 4 bits each */
#define DEVTAB_VLARB_BLOCKS     4       /* 1, 2: low priority; 3, 4: high */
#define DEVTAB_VLARB_SIZE       64      /* 32 entries of VL and weight */
#define DEVTAB_PKEY_BLOCK       32      /* P_Keys per block */

struct devtab_port {
	/* VL arbitration block b + 1 in vlarb[b] when bit b of vlarb_valid */
	uint8_t vlarb[DEVTAB_VLARB_BLOCKS][DEVTAB_VLARB_SIZE];
	uint8_t vlarb_valid;
	/* P_Key table (switch external ports ibsmd does not program):
	 * pkey_cap entries, block b read when bit b of pkey_valid (at most
	 * 64 blocks); NULL when not read */
	uint16_t *pkeys;
	uint16_t pkey_cap;
	uint64_t pkey_valid;
	/* what the port was linked to when read (0: nothing) */
	uint64_t peer_guid;
	uint8_t peer_num;
};

struct devtab_node {
	uint64_t guid;
	bool sw;
	uint8_t nports;         /* ports 0 .. nports */
	/* SL-to-VL tables, DEVTAB_SL2VL_SIZE bytes each: a switch's
	 * [in * (nports + 1) + out], a CA's or router's [port] (the one
	 * table of each port); sl2vl_valid: one byte per table, 1 = read */
	uint8_t *sl2vl;
	uint8_t *sl2vl_valid;
	struct devtab_port *ports;      /* [nports + 1] */
};

struct devtab;

struct devtab *devtab_new(void);
void devtab_free(struct devtab *t);

/* The node of guid, created empty (nothing read) when absent, or emptied
 * when it was known with another type or port count. */
struct devtab_node *devtab_node(struct devtab *t, uint64_t guid,
    uint8_t nports, bool sw);
/* The node of guid, NULL when never read. */
const struct devtab_node *devtab_find(const struct devtab *t, uint64_t guid);

/* Index of the SL-to-VL table of (in, out) on n (a CA's: out's). */
static inline unsigned
devtab_sl2vl_idx(const struct devtab_node *n, unsigned in, unsigned out)
{
	return n->sw ? in * (n->nports + 1u) + out : out;
}
/* How many SL-to-VL tables n has. */
static inline unsigned
devtab_sl2vl_count(const struct devtab_node *n)
{
	return n->sw ? (n->nports + 1u) * (n->nports + 1u) : n->nports + 1u;
}

/* Forget what was read of port p of n (its SL-to-VL tables in and out on
 * a switch, its VL arbitration and P_Key tables): it is to be read
 * again. */
void devtab_port_forget(struct devtab_node *n, unsigned p);
/* The P_Key table of port p of n with cap entries (allocated, emptied
 * when cap changed). */
uint16_t *devtab_port_pkeys(struct devtab_node *n, unsigned p, uint16_t cap);

#endif
