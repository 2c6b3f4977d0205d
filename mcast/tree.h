/*
 * Multicast trees and forwarding tables. For one fabric model, one
 * spanning tree per MLID over the switches, reaching exactly the member
 * ports, and each switch's MulticastForwardingTable (port masks per MLID)
 * that the trees yield. Pure: a model and member ports in, tables out.
 *
 * A tree: the root is the switch with the smallest maximum hop count to
 * the members' switches (ties: the switch that roots the fewest trees,
 * then the lowest index). Every member switch climbs towards the root one
 * hop closer at a time, stopping at the first switch already in the tree;
 * at each step it takes a neighbour already in the tree if there is one,
 * else the least loaded link (load = trees using the link, kept across
 * every tree of this object), else the lowest port. Each switch but the
 * root has one parent strictly closer to the root, so the tree has no
 * loop. A switch's mask holds its tree links and the ports of members that
 * receive (JoinState Full or NonMember); a send-only member's switch is in
 * the tree (its packets must get out) but its port is not in the mask.
 *
 * One member: its switch alone, with the member's port if it receives
 * (OpenSM builds nothing below two members; the entry costs one block and
 * shows the group in the table, and a second member then only adds).
 */
#ifndef IBSMD_MCAST_TREE_H
#define IBSMD_MCAST_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

#define MCAST_BLOCK 32          /* MLIDs per MFT block */
#define MCAST_POS_PORTS 16      /* ports per MFT position */

/* One switch's multicast forwarding table. */
struct mcast_mft {
	uint8_t npos;           /* 16-port positions: (nports + 16) / 16 */
	uint16_t nblocks;       /* 32-MLID blocks held (grown on demand) */
	uint16_t *mask;         /* [nblocks * 32 * npos]: MLID i (from
				 * 0xC000), position p at i * npos + p;
				 * bit b = port 16p + b */
};

void mcast_mft_init(struct mcast_mft *m, uint8_t nports);
void mcast_mft_fini(struct mcast_mft *m);
void mcast_mft_copy(struct mcast_mft *dst, const struct mcast_mft *src);
uint16_t mcast_mft_get(const struct mcast_mft *m, uint16_t mlid,
    unsigned pos);
void mcast_mft_set(struct mcast_mft *m, uint16_t mlid, unsigned pos,
    uint16_t mask);
/* Whether port num is in mlid's mask. */
bool mcast_mft_has_port(const struct mcast_mft *m, uint16_t mlid,
    unsigned num);
/* The 32 masks of a block at a position, and the block as the
 * MulticastForwardingTable attribute carries it (64 bytes, big-endian). */
void mcast_mft_block(const struct mcast_mft *m, unsigned block,
    unsigned pos, uint16_t out[MCAST_BLOCK]);
void mcast_mft_block_encode(const struct mcast_mft *m, unsigned block,
    unsigned pos, uint8_t out[64]);
void mcast_mft_block_decode(struct mcast_mft *m, unsigned block,
    unsigned pos, const uint8_t in[64]);
/* Highest block with a nonzero mask, -1 if none. */
int mcast_mft_top_block(const struct mcast_mft *m);
/* The MulticastForwardingTable AttributeModifier of (block, pos). */
static inline uint32_t
mcast_mft_amod(unsigned block, unsigned pos)
{
	return (block & 0x1FFu) | ((uint32_t)pos << 28);
}

/* The (block, position) pairs in which a and b differ, over the blocks
 * either holds: fn is called for each, in ascending order. Returns how
 * many. */
typedef void mcast_block_fn(void *arg, unsigned block, unsigned pos);
unsigned mcast_mft_diff(const struct mcast_mft *a, const struct mcast_mft *b,
    mcast_block_fn *fn, void *arg);

/* ---- trees over one fabric */

struct mcast_trees;

/* A member port of a group: a CA (or router) port, or a switch's port 0. */
struct mcast_tree_member {
	uint32_t port;          /* index into f->ports */
	bool receive;           /* Full or NonMember: in the mask */
};

/* Trees over f, which must stay valid and unchanged while they live (a
 * topology change means a new object). Switch indices are f's switches in
 * node order. */
struct mcast_trees *mcast_trees_new(const struct fabric *f);
void mcast_trees_free(struct mcast_trees *t);

uint32_t mcast_trees_nsw(const struct mcast_trees *t);
uint32_t mcast_trees_sw_node(const struct mcast_trees *t, uint32_t sw);
/* The switch index of node n, FABRIC_NONE if n is not a switch. */
uint32_t mcast_trees_node_sw(const struct mcast_trees *t, uint32_t n);
const struct mcast_mft *mcast_trees_mft(const struct mcast_trees *t,
    uint32_t sw);

/* (Re)build mlid's tree from its members (n may be 0: no tree). Members
 * not reachable (a CA port not cabled to a switch, a switch cut off from
 * the rest) are left out and counted. Returns how many were left out. */
unsigned mcast_tree_build(struct mcast_trees *t, uint16_t mlid,
    const struct mcast_tree_member *m, size_t n);

/* mlid's tree: root switch (FABRIC_NONE if none) and switches in it. */
uint32_t mcast_tree_root(const struct mcast_trees *t, uint16_t mlid);
unsigned mcast_tree_size(const struct mcast_trees *t, uint16_t mlid);

/* Trees using the link of port p (index into f->ports). */
uint32_t mcast_trees_link_load(const struct mcast_trees *t, uint32_t p);

#endif
