/*
 * Route selection: the tables to program for a new model. The engine chain
 * routes the model; then, against the tables in use:
 *   - a reroute (ibsmctl reroute) takes the engine's route afresh;
 *   - links back (a cable, a switch): the balance of routing afresh now is
 *     the target, met by the balanced tables (the last routed afresh for
 *     the whole fabric) when they meet it, else by the candidate writing
 *     the fewest blocks (rebalance);
 *   - only losses: the tables in use repaired in place (routing/repair.h),
 *     the repair writing the fewest blocks, when it writes fewer than the
 *     engine's route, reaches every pair it does and, where the engine is
 *     deadlock-free, has no credit loop;
 *   - a subnet taken over (routes read at a takeover, or kept at every
 *     sweep after one): the routes in place kept where they deliver
 *     (routing/keep.h), their credit loops broken where they force it,
 *     never against a rebalance.
 * A VL-layered routing (dfsssp on more than one VL) is handled apart: see
 * update_res.layers.
 * The balanced tables live in struct update across runs, as a reference
 * to the rows of the set routed afresh (core/lft.h lft_set_share): no copy
 * unless the caller writes the rows it gets (lft_set_own first). Pure: no
 * I/O; messages go to the caller's log function.
 */
#ifndef IBSMD_UPDATE_H
#define IBSMD_UPDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/keep.h"
#include "routing/routing.h"

struct update;

struct update *update_new(void);
void update_free(struct update *u);

enum update_level { UPDATE_DEBUG, UPDATE_INFO, UPDATE_WARN };

struct update_req {
	const struct routing_engine *const *chain;
	size_t nchain;
	struct routing_opts ropts;      /* roots, leaves; prev and fresh are
					 * set here */
	const struct fabric *f;         /* the new model, LIDs assigned */
	const struct fabric *cur_f;     /* the model in use, NULL: none */
	const struct lft_set *cur;      /* its tables */
	const struct route_layers *cur_layers; /* their VL layers (the
					 * update_res.layers that came with
					 * them), NULL: none */
	const struct lft_set *held;     /* the routes read from the switches
					 * at a takeover, sized for f; NULL
					 * or empty: none */
	bool reroute;                   /* route afresh */
	bool keep_routes;               /* a subnet taken over: the routes in
					 * place (cur) kept where they deliver */
	bool takeover;                  /* count what held kept in
					 * update_res.kept */
	/* log lines (may be NULL), and the engine chain's own */
	void (*log)(void *arg, enum update_level level, const char *msg);
	void *log_arg;
	void (*route_log)(const char *msg);
};

struct update_res {
	struct lft_set lft;             /* the tables (the caller owns them;
					 * their rows may be shared with the
					 * balanced tables: lft_set_own()
					 * before writing them) */
	struct route_report report;
	/* The VL layers of a layered engine's routes (ropts.vls > 1 and the
	 * engine has route_layers: layers.engine set), else empty; the
	 * caller owns them (route_layers_fini) and hands them back as
	 * cur_layers with the tables. A layered routing is never merged
	 * with other tables (a rebalance takes the engine's fresh routes,
	 * routes kept at a takeover are replaced: their layers are not
	 * known); after losses it is repaired by its engine
	 * (repair_run_layers). */
	struct route_layers layers;
	bool repaired;                  /* repaired in place */
	bool rebalanced;                /* a reroute, or links back moved
					 * routes */
	bool held;                      /* the routes in place were merged */
	struct keep_result kept;        /* of held, when takeover */
};

/* 0, or -1 when no engine could route the model (res left empty). */
int update_run(struct update *u, const struct update_req *q,
    struct update_res *res);

#endif
