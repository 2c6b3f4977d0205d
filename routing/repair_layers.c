/*
 * Repairing a VL-layered routing after losses (routing/repair.h
 * repair_run_layers): the engine repairs its tables and layers, and the
 * result is checked here per VL before anyone may use it.
 */
#include "routing/repair.h"

#include <string.h>

int
repair_run_layers(const struct routing_engine *re, const struct fabric *f,
    const struct fabric *prev_fabric, const struct lft_set *prev,
    const struct route_layers *prev_layers, struct lft_set *out,
    struct route_layers *lay, struct repair_result *r)
{
	memset(r, 0, sizeof(*r));
	memset(out, 0, sizeof(*out));
	memset(lay, 0, sizeof(*lay));
	if (re == NULL || re->repair_layers == NULL || prev == NULL ||
	    prev_fabric == NULL || prev_layers == NULL ||
	    prev_layers->layer == NULL || prev_layers->engine != re)
		return -1;
	if (re->repair_layers(f, prev_fabric, prev, prev_layers, out, lay,
	    r) < 0)
		return -1;
	if (lay->n > prev_layers->vls ||
	    !routing_layers_acyclic(f, out, lay, NULL, NULL)) {
		route_layers_fini(lay);
		lft_set_fini(out);
		memset(out, 0, sizeof(*out));
		memset(lay, 0, sizeof(*lay));
		return -1;
	}
	return 0;
}
