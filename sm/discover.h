/*
 * Discovery: a directed-route sweep of the whole fabric into a fabric
 * model. NodeInfo through every up port whose peer is unknown,
 * NodeDescription of every node, SwitchInfo of every switch (clearing its
 * PortStateChange), PortInfo of every switch port and every reached CA
 * port. Fully asynchronous: driven by MAD completions.
 */
#ifndef IBSMD_DISCOVER_H
#define IBSMD_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fabric.h"

struct mad_engine;
struct discovery;

struct discover_result {
	int ok;                 /* the SM's own port was found and is up */
	char why[160];          /* when !ok */
	unsigned timeouts;      /* SMPs that got no answer */
	unsigned errors;        /* SMPs answered with an error status */
};

typedef void (*discover_done_cb)(void *arg, const struct discover_result *r);

/* Start discovering into f (initialised, empty). done is called once from
 * the loop when every request has completed. passive: Gets only (an SM
 * that is not master writes nothing, not even a PortStateChange clear). */
struct discovery *discover_start(struct mad_engine *mad, struct fabric *f,
    bool passive, discover_done_cb done, void *arg);
/* Abandon a discovery in progress: done is not called; requests still
 * outstanding complete into nothing. */
void discover_abort(struct discovery *d);

#endif
