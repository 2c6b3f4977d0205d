/*
 * Routing engines: pure functions from a fabric model (with LIDs assigned)
 * to linear forwarding tables. No I/O. Engines are const vtables in a
 * registry looked up by name; a chain tries them in order and the first
 * that succeeds routes.
 */
#ifndef IBSMD_ROUTING_H
#define IBSMD_ROUTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"

#define ROUTE_HOPS_MAX 16

/* Report figures: a hop is one switch-to-switch cable crossed (a switch's
 * own LID and its CAs' LIDs are 0 hops away); lids counts LIDs every switch
 * reaches; a port's load counts the destination LIDs whose routes leave
 * through it and arrive. */
struct route_report {
	char engine[16];        /* engine that routed */
	double seconds;         /* time the engine took */
	uint32_t lids;          /* destination LIDs routed */
	uint64_t unreachable;   /* (switch, LID) pairs left without a route */
	uint64_t hops[ROUTE_HOPS_MAX + 1]; /* switch->LID paths by switch hops;
					    * last bucket: that many or more */
	uint32_t max_port_load; /* most destination LIDs on one inter-switch port */
	double mean_port_load;  /* mean over inter-switch ports in use */
	int deadlock_free;      /* channel dependency graph acyclic: 1 yes,
				 * 0 no (a cycle), -1 not checked */
	uint64_t blocks_changed; /* 64-entry LFT blocks that differ from the
				  * previous tables (all, without them) */
	/* filled by the SM after routing: vport LIDs whose entries were
	 * copied from their physical port's, and the entries so set */
	uint32_t vport_lids;
	uint64_t vport_entries;
};

/* What an engine may be told besides the fabric. */
struct routing_opts {
	const uint64_t *roots;  /* node GUIDs of root switches (ftree, updn) */
	size_t nroots;
	const uint64_t *leaves; /* node GUIDs of leaf switches (ftree) */
	size_t nleaves;
	/* The tables in use before this run and the fabric they were made for
	 * (both NULL: none). ftree and updn prefer the previous egress port
	 * among equally good ones, so that after a small change few LFT blocks
	 * differ and need writing; minhop balances afresh every run. */
	const struct fabric *prev_fabric;
	const struct lft_set *prev;
	/* Route afresh, as on a fresh start: the previous tables are only
	 * compared with (the report's blocks_changed), never preferred. */
	bool fresh;
};

struct routing_engine {
	const char *name;
	/* The engine promises tables without credit loops: routing_run checks
	 * the promise and, when it is broken, moves on down the chain. */
	bool deadlock_free;
	/* Fill out (already sized by lft_set_init, every entry LFT_NO_ROUTE)
	 * for every switch. o is never NULL. Return 0, or -1 with a reason in
	 * why when this engine cannot route f. */
	int (*route)(const struct fabric *f, const struct routing_opts *o,
	    struct lft_set *out, char *why, size_t whylen);
	/* Deadlock-free engines whose up/down order is not the heights above
	 * the switches with CAs (routing/repair.h) may say theirs: up[sw]
	 * for every switch of s (sized for f), all distinct, a hop from a to
	 * b going up when up[b] > up[a]. Returns 0, or -1. NULL: heights. */
	int (*order)(const struct fabric *f, const struct routing_opts *o,
	    const struct lft_set *s, uint32_t *up);
};

extern const struct routing_engine re_minhop;
extern const struct routing_engine re_ftree;
extern const struct routing_engine re_updn;

const struct routing_engine *routing_engine_find(const char *name);
/* The name of the i-th engine of the registry, NULL past the last: the
 * one list of engine names (the configuration learns it from here). */
const char *routing_engine_name(size_t i);

/* Try the engines of chain in order; the first that succeeds fills out and
 * rep. out is sized here (lft_set_init) and reset between engines; on
 * success the caller owns it (lft_set_fini), on failure it is left empty.
 * Each attempt and its reason are logged through log_cb (may be NULL).
 * Returns 0, or -1 when no engine could route. */
int routing_run(const struct routing_engine *const *chain, size_t n,
    const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    struct route_report *rep, void (*log_cb)(const char *msg));

/* 64-entry LFT blocks of s (made for f) that differ from prev (made for
 * prev_fabric; switches matched by GUID); every block of a switch prev
 * lacks. */
uint64_t routing_blocks_changed(const struct fabric *f, const struct lft_set *s,
    const struct fabric *prev_fabric, const struct lft_set *prev);

/* The busiest inter-switch link for all-to-all traffic between CA ports:
 * every CA port sending to each LID (all 2^lmc) of every other CA port,
 * the routes crossing each directed inter-switch link counted, the most
 * returned (what fabcheck --loads calls max_link_load). This, not the
 * LIDs a port forwards, is what a cable carries when every host talks
 * to every other. Pairs that do not arrive count up to where they stop. */
uint64_t routing_max_link_routes(const struct fabric *f,
    const struct lft_set *s);

/* Walk every (switch, destination LID) through the tables and fill the
 * hop histogram, load figures and unreachable count of rep. */
void routing_report_fill(const struct fabric *f, const struct lft_set *s,
    struct route_report *rep);

#endif
