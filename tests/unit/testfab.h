/*
 * In-memory fabrics for routing tests, built with the same fabric.h calls
 * discovery uses, and an independent checker of forwarding tables.
 *
 * Builders add to an initialised (usually empty) fabric and finish by
 * numbering LIDs with testfab_lids(). Port states stay 0 (not read), which
 * routing treats as usable.
 */
#ifndef IBSMD_TESTFAB_H
#define IBSMD_TESTFAB_H

#include <stdint.h>

#include "core/fabric.h"
#include "routing/routing.h"

/* A switch / a CA with nports ports (CA ports marked present). GUIDs are
 * made from the node count, so they are unique within one fabric. */
uint32_t testfab_switch(struct fabric *f, uint8_t nports);
uint32_t testfab_ca(struct fabric *f, uint8_t nports);
void testfab_connect(struct fabric *f, uint32_t na, uint8_t pa, uint32_t nb,
    uint8_t pb);
/* Forget the cable on port num of node n (both ends). */
void testfab_unlink(struct fabric *f, uint32_t n, uint8_t num);

/* LIDs 1, 2, ... to end ports (switch port 0, present CA ports) in port
 * index order; every other port gets 0. */
void testfab_lids(struct fabric *f);
/* The same with LMC lmc: each CA port an aligned block of 2^lmc LIDs
 * (the first at 2^lmc), each switch the next free LID, in port index
 * order; the LIDs given before are dropped first. */
void testfab_lids_lmc(struct fabric *f, uint8_t lmc);

/* Two-level fat tree of k-port switches (k even): leaves are nodes
 * 0 .. k-1, spines k .. k + k/2 - 1, then the HCAs. Leaf i ports 1 .. k/2
 * go to its HCAs, port k/2 + 1 + j to port i + 1 of spine j. */
void testfab_ft2(struct fabric *f, unsigned k);

/* Three-level k-ary fat tree of k-port switches (k even), added after the
 * fabric's existing nodes (base = their count): k pods of k/2 edge and k/2
 * aggregation switches, (k/2)^2 cores, k/2 HCAs per edge switch. Edge i of
 * pod p is node base + p*k/2 + i, aggregation j of pod p is base + k*k/2 +
 * p*k/2 + j, core (j, i) is base + k*k + j*k/2 + i, then the HCAs, edge by
 * edge. Edge ports 1 .. k/2 go to its HCAs, port k/2 + 1 + j to port i + 1
 * of aggregation j of its pod; aggregation j's port k/2 + 1 + i goes to
 * port p + 1 of core (j, i). */
void testfab_ft3(struct fabric *f, unsigned k);

/* Remove fraction (rounded) of the switch-to-switch cables, chosen by seed,
 * never one whose loss would split the switches; returns how many. */
unsigned testfab_remove_links(struct fabric *f, double fraction,
    uint64_t seed);

/* Ring of n switches (nodes 0 .. n-1): port 1 of switch i is cabled to
 * port 2 of switch i + 1 (mod n); ports 3 .. hcas + 2 go to HCAs. */
void testfab_ring(struct fabric *f, unsigned n, unsigned hcas);

/* Torus of x * y * z switches (z 1: two dimensions), switch (i, j, k) is
 * node i + x * (j + y * k). Dimension n (0, 1, 2) uses port 2n + 1 towards
 * + (the next switch, wrapping round) and port 2n + 2 towards -; a
 * dimension of size 2 has one cable, of size 1 none. Ports 7 .. hcas + 6
 * go to HCAs. */
void testfab_torus(struct fabric *f, unsigned x, unsigned y, unsigned z,
    unsigned hcas);

/* Dragonfly: groups of a switches (node g * a + i), every two switches of
 * a group cabled together (ports 1 .. a - 1 to the others in switch
 * order), one global cable between every two groups (group g's k-th, k =
 * (h < g ? h : h - 1) towards group h, on switch k % a, port a + k / a),
 * then hcas HCAs per switch on the ports after the global ones. */
void testfab_dragonfly(struct fabric *f, unsigned groups, unsigned a,
    unsigned hcas);

/* Connected irregular graph of n switches (nodes 0 .. n-1) of
 * TESTFAB_RANDOM_PORTS ports: a random spanning tree, extra random links
 * (parallel links allowed), hcas HCAs per switch on its last ports. */
#define TESTFAB_RANDOM_PORTS 16
void testfab_random(struct fabric *f, unsigned n, unsigned hcas,
    unsigned extra, uint64_t seed);

/* A switch with CAs sending to the 2^lmc LIDs of a CA port on another
 * switch (lmc > 0): how often its LIDs leave by distinct ports, and to
 * distinct neighbour switches. */
struct testfab_lmc {
	uint64_t blocks;
	uint64_t distinct_ports;
	uint64_t distinct_switches;
};
void testfab_lmc_spread(const struct fabric *f, const struct lft_set *s,
    struct testfab_lmc *r);

/* A two-level fat tree with every leaf cabled twice to each spine: 4
 * leaves of 8 ports (nodes 0-3; ports 1-4 HCAs, 5-6 to spine 0, 7-8 to
 * spine 1), 2 spines (nodes 4-5), then the HCAs; LIDs as testfab_lids(). */
void testfab_ft2_doubled(struct fabric *f);

/* The fabrics of the engines' LMC tests: ft2 k=8, ft3 k=8 or the doubly
 * cabled ft2, f initialised here, with LIDs at lmc (0: one each). */
enum testfab_lmc_shape { TESTFAB_LMC_FT2_8, TESTFAB_LMC_FT3_8,
	TESTFAB_LMC_DOUBLED };
void testfab_lmc_build(struct fabric *f, enum testfab_lmc_shape sh,
    uint8_t lmc);

struct testfab_stats {
	uint64_t pairs;         /* (switch, destination LID) pairs */
	uint64_t shortest;      /* reached along a shortest path */
	uint64_t unroutable;    /* no path in the graph, none in the tables */
	uint64_t bad;           /* missing, looping, wrong or too long */
	char first[200];        /* what went wrong first */
	/* the same figures as struct route_report, counted the slow way */
	uint64_t unreached;     /* pairs whose walk does not arrive */
	uint64_t hops[ROUTE_HOPS_MAX + 1];
	uint32_t max_load;
	double mean_load;
};

/* Follow every (switch, destination LID) through s hop by hop and compare
 * with shortest distances from the checker's own BFS. */
void testfab_check(const struct fabric *f, const struct lft_set *s,
    struct testfab_stats *st);
/* The same, for the destination LIDs with only[lid] != 0 (NULL: all). */
void testfab_check_lids(const struct fabric *f, const struct lft_set *s,
    const uint8_t *only, struct testfab_stats *st);

/* The per-VL deadlock check written the slow way, for routing/cdg.c's
 * cdg_acyclic_layers() to be compared with: every route from every switch
 * followed hop by hop, each (channel in, channel out) pair it takes set
 * in a channel x channel matrix of its VL (vl_of[layer], NULL: the
 * layer), then a depth-first search per VL. 1 when no VL has a cycle;
 * *edges (if not NULL) gets the dependencies of all VLs. */
int testfab_layers_acyclic(const struct fabric *f, const struct lft_set *s,
    const uint8_t *layer, unsigned nlayers, const uint8_t *vl_of,
    uint64_t *edges);

#endif
