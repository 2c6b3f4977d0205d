/*
 * ibsmctl errors: see sm/show_perf.h.
 */
#include "sm/show_perf.h"

#include <inttypes.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/pcounter.h"
#include "core/query.h"
#include "sm/json.h"
#include "sm/perfmgr.h"
#include "sm/show.h"

struct err_rows {
	struct perfmgr_port *v;
	size_t n, cap;
};

static void
add_port(void *arg, const struct perfmgr_port *p)
{
	struct err_rows *r = arg;

	if (pcounter_port_errors(p->pc) == 0 && p->rising == 0)
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	r->v[r->n++] = *p;
}

/* Node and peer of a row in the model in use: FABRIC_NONE when unknown. */
static void
locate(const struct fabric *f, const struct perfmgr_port *p, uint32_t *node,
    uint32_t *peer)
{
	*node = *peer = FABRIC_NONE;
	if (f == NULL || (*node = fabric_node_by_guid(f, p->guid)) ==
	    FABRIC_NONE || p->port > f->nodes[*node].nports)
		return;
	*peer = f->ports[f->nodes[*node].port0 + p->port].peer;
}

static void
errors_json(struct show *s, const struct perfmgr_stats *st,
    const struct fabric *f, const struct err_rows *r)
{
	struct json *j = &s->j;
	uint32_t n, q;
	char name[200];

	json_object_begin(j);
	json_kv_bool(j, "enabled", st->enabled);
	json_kv_bool(j, "running", st->running);
	json_kv_uint(j, "rounds", st->rounds);
	json_kv_uint(j, "ports_read", st->ports);
	json_key(j, "ports");
	json_array_begin(j);
	for (size_t i = 0; i < r->n; i++) {
		const struct perfmgr_port *p = &r->v[i];

		locate(f, p, &n, &q);
		json_object_begin(j);
		json_kv_guid(j, "guid", p->guid);
		json_kv_string(j, "type", p->sw ? "switch" : "ca");
		json_kv_string(j, "name", n == FABRIC_NONE ? NULL :
		    query_node_name(f, n, name, sizeof(name)));
		json_kv_uint(j, "port", p->port);
		json_key(j, "peer");
		if (q == FABRIC_NONE) {
			json_null(j);
		} else {
			json_object_begin(j);
			json_kv_guid(j, "guid", f->nodes[f->ports[q].node].guid);
			json_kv_string(j, "name", query_node_name(f,
			    f->ports[q].node, name, sizeof(name)));
			json_kv_uint(j, "port", f->ports[q].num);
			json_object_end(j);
		}
		json_key(j, "counters");
		json_object_begin(j);
		for (unsigned id = 0; id < PC_NERRORS; id++) {
			const struct pcounter *c = &p->pc->c[id];

			if (c->total == 0)
				continue;
			json_key(j, pcounter_info(id)->name);
			json_object_begin(j);
			json_kv_uint(j, "total", c->total);
			json_kv_uint(j, "last_increase", c->delta);
			json_kv_bool(j, "rising",
			    (p->rising & UINT32_C(1) << id) != 0);
			json_kv_uint(j, "threshold", p->threshold[id]);
			json_kv_bool(j, "saturated", c->saturated);
			json_object_end(j);
		}
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
errors_text(struct show *s, const struct perfmgr_stats *st,
    const struct fabric *f, const struct err_rows *r)
{
	char a[200], b[200];
	struct show_table t;
	uint32_t n, q;

	show_printf(s, "perfmgr %s, %s: %" PRIu64 " rounds, %" PRIu32
	    " ports read\n", st->enabled ? "on" : "off", st->running ?
	    "running" : "stopped", st->rounds, st->ports);
	if (r->n == 0) {
		show_printf(s, "no port has error counters above 0\n");
		return;
	}
	show_table_init(&t, "lrlllrr");
	show_table_cell(&t, "NODE");
	show_table_cell(&t, "PORT");
	show_table_cell(&t, "PEER");
	show_table_cell(&t, "COUNTER");
	show_table_cell(&t, "STATE");
	show_table_cell(&t, "TOTAL");
	show_table_cell(&t, "LAST");
	for (size_t i = 0; i < r->n; i++) {
		const struct perfmgr_port *p = &r->v[i];

		locate(f, p, &n, &q);
		for (unsigned id = 0; id < PC_NERRORS; id++) {
			const struct pcounter *c = &p->pc->c[id];

			if (c->total == 0)
				continue;
			if (n == FABRIC_NONE)
				show_table_cell(&t, "0x%016" PRIx64, p->guid);
			else
				show_table_cell(&t, "%s", query_node_text(f, n,
				    a, sizeof(a)));
			show_table_cell(&t, "%u", p->port);
			if (q == FABRIC_NONE)
				show_table_cell(&t, "-");
			else
				show_table_cell(&t, "%s port %u",
				    query_node_text(f, f->ports[q].node, b,
				    sizeof(b)), f->ports[q].num);
			show_table_cell(&t, "%s", pcounter_info(id)->name);
			show_table_cell(&t, "%s%s", (p->rising &
			    UINT32_C(1) << id) ? "rising" : "steady",
			    c->saturated ? ",saturated" : "");
			show_table_cell(&t, "%" PRIu64, c->total);
			show_table_cell(&t, "+%" PRIu64, c->delta);
		}
	}
	show_table_print(&t, &s->text);
	show_table_free(&t);
}

void
show_errors(struct show *s, const struct perfmgr *pm, const struct fabric *f)
{
	struct perfmgr_stats st;
	struct err_rows r = { 0 };

	perfmgr_get_stats(pm, &st);
	perfmgr_foreach(pm, add_port, &r);
	if (s->json)
		errors_json(s, &st, f, &r);
	else
		errors_text(s, &st, f, &r);
	free(r.v);
}
