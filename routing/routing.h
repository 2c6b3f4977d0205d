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
				 * 0 no (a cycle), -1 not checked; for a
				 * VL-layered routing, that of every VL */
	uint32_t vls;           /* VLs (layers) the routes use: 1 for the
				 * engines of one layer */
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
	/* Data VLs every switch-to-switch port supports and the SM will make
	 * operational (1, 2, 4, 8 or 15; 0 counts as 1; see
	 * routing_vls_supported). A VL-layered engine uses at most this many
	 * layers, and only when routed through routing_run_layers(): the
	 * caller must then program the SL2VL tables and hand out the SLs. */
	uint8_t vls;
};

#define ROUTE_SLS       16      /* SLs an SL2VL table maps */
#define ROUTE_VLS_MAX   15      /* data VLs IBA allows */

/*
 * The VL layers of a routing (issue 27). Routes are taken per source
 * switch: the route from switch sw, and from every CA port cabled to it,
 * to destination LID lid travels in layer layer[sw * (max_lid + 1) +
 * lid] (switches numbered as the lft_set they were made with). A layer is
 * an SL (the engine's path_sl) that the engine's SL2VL contribution maps
 * to one VL on every port, so that the channel dependencies of each
 * layer, taken alone, must be acyclic. An engine of one layer leaves
 * layer NULL and n 1. (An engine whose VLs change along a route, as
 * OpenSM's torus-2QoS does at datelines through per-port SL2VL tables,
 * would need the check over (channel, VL) pairs; none does here.)
 */
struct route_layers {
	const struct routing_engine *engine;    /* that made them */
	uint8_t n;              /* layers the routes use, 1 .. vls */
	uint8_t vls;            /* VLs the engine was given (routing_opts.vls,
				 * at least 1): its SL2VL contribution covers
				 * SLs 0 .. vls - 1, so that a repair may add
				 * a layer without an SL2VL write */
	uint32_t nsw;
	uint16_t max_lid;
	uint8_t *layer;         /* [nsw][max_lid + 1], or NULL: all layer 0 */
};

struct repair_result;   /* routing/repair.h */

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

	/*
	 * VL-layered engines (NULL for the engines of one layer, whose route()
	 * is all they have). route_layers() routes as route() does and puts
	 * every (source switch, destination LID) route in a layer, at most
	 * o->vls of them (lay is zeroed by the caller; the engine fills it,
	 * layer table included, and sets lay->engine); it fails, saying so
	 * in why, when o->vls are too few. route() of
	 * such an engine is its routing on one VL: it fails when its routes
	 * would need more.
	 */
	int (*route_layers)(const struct fabric *f, const struct routing_opts *o,
	    struct lft_set *out, struct route_layers *lay, char *why,
	    size_t whylen);
	/* The SL of the route from source LID slid to destination LID dlid
	 * (OpenSM's path_sl): its layer. NULL: 0. */
	uint8_t (*path_sl)(const struct route_layers *lay,
	    const struct fabric *f, const struct lft_set *s, uint16_t slid,
	    uint16_t dlid);
	/* The engine's part of an SL2VL table (OpenSM's update_sl2vl): that
	 * of port num of node (a CA's or router's port; for a switch, the
	 * table from input port in to output port num), sl2vl[sl] = VL, as
	 * the SM's QoS policy filled it. NULL: the policy's stands. */
	void (*update_sl2vl)(const struct route_layers *lay,
	    const struct fabric *f, uint32_t node, uint8_t in, uint8_t num,
	    uint8_t sl2vl[ROUTE_SLS]);
	/* The engine's incremental repair after losses, for a layered
	 * routing (routing/repair.h repair_run_layers says what it must
	 * give). NULL: the engine has none; a layered routing is then routed
	 * afresh after every loss. */
	int (*repair_layers)(const struct fabric *f,
	    const struct fabric *prev_fabric, const struct lft_set *prev,
	    const struct route_layers *prev_layers, struct lft_set *out,
	    struct route_layers *lay, struct repair_result *r);
};

extern const struct routing_engine re_minhop;
extern const struct routing_engine re_ftree;
extern const struct routing_engine re_updn;
extern const struct routing_engine re_dfsssp;

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

/*
 * routing_run() for a caller that programs VLs: a VL-layered engine routes
 * with up to o->vls layers into lay (zeroed here; the caller releases it
 * with route_layers_fini, also on failure), and its tables are checked for
 * credit loops per VL (routing_layers_acyclic). An engine of one layer
 * leaves lay with n 1 and no table. routing_run() is this with lay NULL:
 * every engine then routes on one VL.
 *
 * How the daemon uses it (issue 27): the sweep passes o->vls
 * (routing_vls_supported()) to routing/update, which routes through here
 * and keeps lay beside the tables (update_res.layers; the sweep's
 * sweep_layers()). Still to be wired (points 1-3): the SL2VL programming
 * writes on every port the table its QoS policy gives passed through
 * routing_update_sl2vl(), and the SA answers a PathRecord's SL with
 * routing_path_sl().
 */
int routing_run_layers(const struct routing_engine *const *chain, size_t n,
    const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    struct route_layers *lay, struct route_report *rep,
    void (*log_cb)(const char *msg));

/* lay sized for s (every route in layer 0, n 1, vls at least 1). Returns
 * 0, or -1 on allocation failure. */
int route_layers_init(struct route_layers *lay, const struct lft_set *s,
    uint8_t vls);
void route_layers_fini(struct route_layers *lay);
/* dst (uninitialised) becomes a copy of src. Returns 0 or -1. */
int route_layers_copy(struct route_layers *dst, const struct route_layers *src);

/* The layer of the route from switch sw (index of the tables) to lid: 0
 * without a table or outside it. */
static inline uint8_t
route_layer(const struct route_layers *lay, uint32_t sw, uint16_t lid)
{
	if (lay == NULL || lay->layer == NULL || sw >= lay->nsw ||
	    lid > lay->max_lid)
		return 0;
	return lay->layer[(size_t)sw * ((size_t)lay->max_lid + 1) + lid];
}

/* The switch (index of s) the routes from source LID slid start at: its
 * own for a switch LID, the one a CA port is cabled to; FABRIC_NONE when
 * slid is nobody's or cabled to no switch. */
uint32_t routing_source_switch(const struct fabric *f, const struct lft_set *s,
    uint16_t slid);

/* The SL of the route from slid to dlid: the engine's path_sl, 0 for an
 * engine of one layer (lay NULL included). */
uint8_t routing_path_sl(const struct route_layers *lay, const struct fabric *f,
    const struct lft_set *s, uint16_t slid, uint16_t dlid);

/* The SL2VL table of port num of node (from input port in, for a switch)
 * as the routing needs it: sl2vl as the QoS policy fills it, passed
 * through the engine's update_sl2vl. No change for an engine of one
 * layer. */
void routing_update_sl2vl(const struct route_layers *lay,
    const struct fabric *f, uint32_t node, uint8_t in, uint8_t num,
    uint8_t sl2vl[ROUTE_SLS]);

/* The deadlock check per VL: 1 when the channel dependencies of the
 * routes of every VL are acyclic, 0 when one VL has a cycle (its number
 * in *cyclic_vl, if not NULL). A route's VL is vl_of[its layer] (NULL:
 * the layer itself, as the engine's SL2VL maps it), the same on every
 * port it crosses. lay NULL or without a table: cdg_acyclic(). */
int routing_layers_acyclic(const struct fabric *f, const struct lft_set *s,
    const struct route_layers *lay, const uint8_t *vl_of,
    unsigned *cyclic_vl);

/* Data VLs every switch-to-switch port of f supports (VLCap, of those
 * whose PortInfo was read: 1, 2, 4, 8 or 15), 1 when none was read. */
uint8_t routing_vls_supported(const struct fabric *f);

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
