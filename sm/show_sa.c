#include "sm/show_sa.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/query.h"
#include "mcast/group.h"
#include "mcast/tree.h"
#include "sm/json.h"

/* ------------------------------------------------------------ gathering */

static const char *
gid_str(const uint8_t *gid, char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* What a subscription watches: a GID, a LID range or every port. */
static const char *
watched(const struct sa_inform *ii, char *buf, size_t len)
{
	static const uint8_t zero[16];

	if (memcmp(ii->gid, zero, 16) != 0)
		return gid_str(ii->gid, buf, len);
	if (ii->lid_begin == 0xFFFF)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%u-%u", ii->lid_begin,
		    ii->lid_end ? ii->lid_end : ii->lid_begin);
	return buf;
}

/* One index of one port as the store and the device have it. */
struct guid_row {
	unsigned index;
	uint64_t guid;          /* saved (assigned or not), else the device's */
	const char *state;      /* assigned, saved, device */
	bool read;              /* the device's block was read */
	uint64_t device;
	bool match;
};

/* One port with alias GUIDs: its rows and how the fabric names it. */
struct guid_port {
	uint64_t guid;
	uint32_t lid;           /* 0: not in the model */
	char desc[65];
	const struct guid_row *rows;
	size_t nrows;
};

/* The rows of port (up to ALIAS_MAX_INDEX); returns how many. */
static size_t
guid_rows(const struct alias_store *st, uint64_t port, struct guid_row *r)
{
	uint64_t dev[ALIAS_PER_BLOCK];
	size_t n = 0;

	for (unsigned b = 0; b < ALIAS_MAX_INDEX / ALIAS_PER_BLOCK; b++) {
		unsigned cap = 0;
		bool read = alias_device_get(st, port, b, dev, &cap);

		for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
			unsigned idx = b * ALIAS_PER_BLOCK + i;
			uint64_t saved = alias_saved(st, port, idx);
			uint64_t act = alias_get(st, port, idx);
			uint64_t d = read && idx < cap ? dev[i] : 0;

			if (idx == 0 || (saved == 0 && d == 0))
				continue;
			r[n].index = idx;
			r[n].guid = saved != 0 ? saved : d;
			r[n].state = act != 0 ? "assigned" : saved != 0 ?
			    "saved" : "device";
			r[n].read = read && idx < cap;
			r[n].device = d;
			r[n].match = r[n].read && d == act;
			n++;
		}
	}
	return n;
}

static int
guid_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
guid_port_name(const struct fabric *f, struct guid_port *gp)
{
	uint32_t p = f != NULL ? query_port_by_guid(f, gp->guid) :
	    FABRIC_NONE;

	gp->lid = 0;
	gp->desc[0] = '\0';
	if (p == FABRIC_NONE)
		return;
	gp->lid = f->ports[p].lid;
	query_node_name(f, f->ports[p].node, gp->desc, sizeof(gp->desc));
}

/* The vports of host h: how many (the physical function's vport 0 is
 * not one, as status counts them) and how many up. */
static void
host_counts(const struct vport_set *vs, uint32_t h, unsigned *nv,
    unsigned *up)
{
	*nv = *up = 0;
	for (uint32_t i = 0; i < vs->n; i++)
		if (vs->v[i].host == h && vs->v[i].index != 0) {
			(*nv)++;
			*up += vs->v[i].state >= PORT_INIT;
		}
}

/* ------------------------------------------------------------ formats */

/*
 * One set of callbacks per format, as bgpctl's output.c and
 * output_json.c: the views below gather, then call the set the command
 * picked (s->json) without asking again.
 */
struct sa_output {
	void (*services)(struct show *, const struct sa_service_info *,
	    size_t);
	void (*subscriptions)(struct show *,
	    const struct sa_subscription_info *, size_t);
	void (*guids_head)(struct show *, bool enabled,
	    struct show_table *);
	void (*guids_port)(struct show *, const struct guid_port *,
	    struct show_table *);
	void (*guids_tail)(struct show *, bool enabled,
	    struct show_table *);
	void (*guid_forgotten)(struct show *, uint64_t, unsigned, uint64_t);
	void (*mcast_head)(struct show *, const struct show_mcast *);
	void (*mcast_group)(struct show *, const struct show_mcast *,
	    const struct mcast_group *, bool tree);
	void (*mcast_tail)(struct show *);
	void (*vports_head)(struct show *, bool any);
	void (*vports_host)(struct show *, const struct fabric *,
	    const struct vport_set *, uint32_t h);
	void (*vports_tail)(struct show *);
};

static const struct sa_output text_output, json_output;

static const struct sa_output *
output(const struct show *s)
{
	return s->json ? &json_output : &text_output;
}

/* Calls cb for every switch of mlid's tree with the ports it forwards
 * the group to. */
typedef void tree_cb(struct show *s, const struct fabric_node *n,
    const uint8_t *ports, size_t nports);

static void
tree_walk(const struct show_mcast *m, uint16_t mlid, tree_cb *cb,
    struct show *s)
{
	uint8_t ports[256];

	if (m->trees == NULL || m->f == NULL)
		return;
	for (uint32_t sw = 0; sw < mcast_trees_nsw(m->trees); sw++) {
		const struct mcast_mft *mft = mcast_trees_mft(m->trees, sw);
		const struct fabric_node *n =
		    &m->f->nodes[mcast_trees_sw_node(m->trees, sw)];
		size_t k = 0;

		for (uint32_t num = 0; num <= n->nports; num++)
			if (mcast_mft_has_port(mft, mlid, num))
				ports[k++] = (uint8_t)num;
		if (k > 0)
			cb(s, n, ports, k);
	}
}

/* ------------------------------------------------------------ the views */

void
show_services(struct show *s, const struct sa_service_info *v, size_t n)
{
	output(s)->services(s, v, n);
}

void
show_subscriptions(struct show *s, const struct sa_subscription_info *v,
    size_t n)
{
	output(s)->subscriptions(s, v, n);
}

void
show_guids(struct show *s, const struct fabric *f,
    const struct alias_store *st)
{
	const struct sa_output *o = output(s);
	struct guid_row *rows;
	struct guid_port gp;
	struct show_table t;
	uint64_t *ports = NULL;
	size_t np = 0;

	if (st != NULL) {
		np = alias_ports(st, NULL, 0);
		ports = xcalloc(np + 1, sizeof(*ports));
		np = alias_ports(st, ports, np);
		qsort(ports, np, sizeof(*ports), guid_cmp);
	}
	rows = xcalloc(ALIAS_MAX_INDEX, sizeof(*rows));
	o->guids_head(s, st != NULL, &t);
	for (size_t i = 0; i < np; i++) {
		memset(&gp, 0, sizeof(gp));
		gp.guid = ports[i];
		gp.rows = rows;
		if ((gp.nrows = guid_rows(st, ports[i], rows)) == 0)
			continue;
		guid_port_name(f, &gp);
		o->guids_port(s, &gp, &t);
	}
	o->guids_tail(s, st != NULL, &t);
	free(rows);
	free(ports);
}

void
show_guid_forgotten(struct show *s, uint64_t port, unsigned index,
    uint64_t was)
{
	output(s)->guid_forgotten(s, port, index, was);
}

void
show_mcast(struct show *s, const struct show_mcast *m)
{
	const struct sa_output *o = output(s);
	struct mcast_group *g;

	o->mcast_head(s, m);
	for (g = mcast_next(m->store, NULL); g != NULL;
	    g = mcast_next(m->store, g))
		o->mcast_group(s, m, g, g == mcast_by_mlid(m->store, g->mlid));
	o->mcast_tail(s);
}

void
show_vports(struct show *s, const struct fabric *f,
    const struct vport_set *vs)
{
	const struct sa_output *o = output(s);
	bool any = vs != NULL && f != NULL;

	o->vports_head(s, any);
	for (uint32_t h = 0; any && h < vs->nh; h++)
		o->vports_host(s, f, vs, h);
	o->vports_tail(s);
}

/* ------------------------------------------------------------ text */

static void
services_text(struct show *s, const struct sa_service_info *v, size_t n)
{
	char gid[64], name[200];
	struct show_table t;

	if (n == 0) {
		show_printf(s, "no services registered\n");
		return;
	}
	show_table_init(&t, "llrrrl");
	show_table_cell(&t, "ID");
	show_table_cell(&t, "GID");
	show_table_cell(&t, "P_KEY");
	show_table_cell(&t, "LEASE");
	show_table_cell(&t, "LEFT");
	show_table_cell(&t, "NAME");
	for (size_t i = 0; i < n; i++) {
		show_table_cell(&t, "0x%016" PRIx64, v[i].id);
		show_table_cell(&t, "%s", gid_str(v[i].gid, gid, sizeof(gid)));
		show_table_cell(&t, "0x%04x", v[i].pkey);
		if (v[i].lease == SA_SERVICE_LEASE_INFINITE) {
			show_table_cell(&t, "infinite");
			show_table_cell(&t, "-");
		} else {
			show_table_cell(&t, "%" PRIu32, v[i].lease);
			show_table_cell(&t, "%.0f", v[i].remaining);
		}
		show_table_cell(&t, "%s", show_clean(v[i].name, name,
		    sizeof(name)));
	}
	show_table_print(&t, &s->text);
	show_table_free(&t);
}

static void
any16(struct show_table *t, unsigned v)
{
	if (v == 0xFFFF)
		show_table_cell(t, "any");
	else
		show_table_cell(t, "%u", v);
}

static void
subscriptions_text(struct show *s, const struct sa_subscription_info *v,
    size_t n)
{
	char gid[64], w[64];
	struct show_table t;

	if (n == 0) {
		show_printf(s, "no subscriptions\n");
		return;
	}
	show_table_init(&t, "lrrrrrlrrr");
	show_table_cell(&t, "SUBSCRIBER");
	show_table_cell(&t, "ENUM");
	show_table_cell(&t, "LID");
	show_table_cell(&t, "QPN");
	show_table_cell(&t, "TRAP");
	show_table_cell(&t, "TYPE");
	show_table_cell(&t, "WATCHES");
	show_table_cell(&t, "SENT");
	show_table_cell(&t, "ACKED");
	show_table_cell(&t, "FAILED");
	for (size_t i = 0; i < n; i++) {
		const struct sa_inform *ii = &v[i].ii;

		show_table_cell(&t, "%s", gid_str(v[i].subscriber_gid, gid,
		    sizeof(gid)));
		show_table_cell(&t, "%u", v[i].enumv);
		show_table_cell(&t, "%u", v[i].lid);
		show_table_cell(&t, "%" PRIu32, v[i].qpn);
		if (ii->is_generic)
			any16(&t, ii->trap);
		else
			show_table_cell(&t, "dev %u", ii->trap);
		any16(&t, ii->type);
		show_table_cell(&t, "%s", watched(ii, w, sizeof(w)));
		show_table_cell(&t, "%" PRIu64, v[i].reports_sent);
		show_table_cell(&t, "%" PRIu64, v[i].reports_acked);
		show_table_cell(&t, "%" PRIu64, v[i].reports_failed);
	}
	show_table_print(&t, &s->text);
	show_table_free(&t);
}

static void
guids_head_text(struct show *s, bool enabled, struct show_table *t)
{
	if (!enabled) {
		show_printf(s, "alias GUIDs are off (virtualization mode is "
		    "not enabled)\n");
		return;
	}
	show_table_init(t, "llrrllll");
	show_table_cell(t, "PORT GUID");
	show_table_cell(t, "DESCRIPTION");
	show_table_cell(t, "LID");
	show_table_cell(t, "INDEX");
	show_table_cell(t, "ALIAS GUID");
	show_table_cell(t, "STATE");
	show_table_cell(t, "DEVICE");
	show_table_cell(t, "MATCH");
}

static void
guids_port_text(struct show *s, const struct guid_port *gp,
    struct show_table *t)
{
	(void)s;
	for (size_t k = 0; k < gp->nrows; k++) {
		const struct guid_row *r = &gp->rows[k];

		show_table_cell(t, "0x%016" PRIx64, gp->guid);
		show_table_cell(t, "%s", gp->desc);
		show_table_cell(t, "%" PRIu32, gp->lid);
		show_table_cell(t, "%u", r->index);
		show_table_cell(t, "0x%016" PRIx64, r->guid);
		show_table_cell(t, "%s", r->state);
		if (r->read)
			show_table_cell(t, "0x%016" PRIx64, r->device);
		else
			show_table_cell(t, "unread");
		show_table_cell(t, "%s", !r->read ? "-" : r->match ?
		    "yes" : "no");
	}
}

static void
guids_tail_text(struct show *s, bool enabled, struct show_table *t)
{
	if (!enabled)
		return;
	show_table_print(t, &s->text);
	show_table_free(t);
}

static void
guid_forgotten_text(struct show *s, uint64_t port, unsigned index,
    uint64_t was)
{
	show_printf(s, "port 0x%016" PRIx64 " index %u: alias GUID 0x%016"
	    PRIx64 " forgotten\n", port, index, was);
}

static void
gid_text(const uint8_t g[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
	    "%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1], g[2], g[3],
	    g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13],
	    g[14], g[15]);
}

static void
mcast_head_text(struct show *s, const struct show_mcast *m)
{
	show_printf(s, "%" PRIu64 " groups, %" PRIu64 " MLIDs in use "
	    "(limit %u)\n", m->st.groups, m->st.mlids, m->st.mlid_limit);
}

static void
tree_switch_text(struct show *s, const struct fabric_node *n,
    const uint8_t *ports, size_t nports)
{
	char d[80];

	show_printf(s, "    switch 0x%016" PRIx64 " \"%s\":", n->guid,
	    show_clean(n->desc, d, sizeof(d)));
	for (size_t i = 0; i < nports; i++)
		show_printf(s, " %u", ports[i]);
	show_printf(s, "\n");
}

static void
mcast_group_text(struct show *s, const struct show_mcast *m,
    const struct mcast_group *g, bool tree)
{
	const struct mcast_params *p = &g->p;
	char gid[48];

	gid_text(g->mgid, gid, sizeof(gid));
	show_printf(s, "%s mlid 0x%04x pkey 0x%04x qkey 0x%08x "
	    "mtu %u rate %u sl %u scope %u tclass %u "
	    "flow_label 0x%05x%s\n", gid, g->mlid, p->pkey,
	    p->qkey, p->mtu, p->rate, p->sl, p->scope,
	    p->tclass, p->flow_label,
	    g->well_known ? " well-known" : "");
	for (size_t i = 0; i < g->nmembers; i++) {
		const struct mcast_member *mb = &g->members[i];

		show_printf(s, "  member 0x%016" PRIx64 " join_state 0x%x%s\n",
		    mb->port_guid, mb->join_state, mb->proxy ? " proxy" : "");
	}
	if (tree)
		tree_walk(m, g->mlid, tree_switch_text, s);
	else
		show_printf(s, "    (tree shared with the MLID's first "
		    "group)\n");
}

static void
mcast_tail_text(struct show *s)
{
	(void)s;
}

static void
vports_head_text(struct show *s, bool any)
{
	if (!any)
		show_printf(s, "no vports (virtualization off, or no sweep "
		    "yet)\n");
}

static void
vports_host_text(struct show *s, const struct fabric *f,
    const struct vport_set *vs, uint32_t h)
{
	const struct fabric_port *p = &f->ports[vs->h[h].port];
	unsigned nv, up;
	char desc[80];

	host_counts(vs, h, &nv, &up);
	query_node_name(f, p->node, desc, sizeof(desc));
	show_printf(s, "port 0x%016" PRIx64 " \"%s\" port %u LID "
	    "%u: %u vports read, %u up (VPortIndexTop %u, "
	    "VPortCap %u)\n", p->guid, desc, p->num, p->lid, nv,
	    up, vs->h[h].top, vs->h[h].vport_cap);
	for (uint32_t i = 0; i < vs->n; i++) {
		const struct vport *v = &vs->v[i];

		if (v->host != h)
			continue;
		show_printf(s, "  vport %-4u 0x%016" PRIx64 " LID "
		    "%-5u %-6s %s P_Keys", v->index, v->guid,
		    v->lid, vport_state_name(v->state),
		    vport_wants_lid(v) ? "own-LID" : "shared");
		for (uint16_t k = 0; v->pkeys != NULL && k < v->pkey_cap; k++)
			if ((v->pkeys[k] & 0x7fff) != 0)
				show_printf(s, " 0x%04x", v->pkeys[k]);
		show_clean(v->desc, desc, sizeof(desc));
		show_printf(s, "%s \"%s\"\n", v->pkeys ? "" : " -", desc);
	}
}

static void
vports_tail_text(struct show *s)
{
	(void)s;
}

static const struct sa_output text_output = {
	.services = services_text,
	.subscriptions = subscriptions_text,
	.guids_head = guids_head_text,
	.guids_port = guids_port_text,
	.guids_tail = guids_tail_text,
	.guid_forgotten = guid_forgotten_text,
	.mcast_head = mcast_head_text,
	.mcast_group = mcast_group_text,
	.mcast_tail = mcast_tail_text,
	.vports_head = vports_head_text,
	.vports_host = vports_host_text,
	.vports_tail = vports_tail_text,
};

/* ------------------------------------------------------------ JSON */

static void
services_json(struct show *s, const struct sa_service_info *v, size_t n)
{
	struct json *j = &s->j;
	char gid[64];

	json_object_begin(j);
	json_key(j, "services");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		json_object_begin(j);
		json_kv_guid(j, "id", v[i].id);
		json_kv_string(j, "gid", gid_str(v[i].gid, gid, sizeof(gid)));
		json_kv_uint(j, "pkey", v[i].pkey);
		json_key(j, "lease");
		if (v[i].lease == SA_SERVICE_LEASE_INFINITE)
			json_null(j);
		else
			json_uint(j, v[i].lease);
		json_key(j, "remaining");
		if (v[i].remaining < 0)
			json_null(j);
		else
			json_double(j, v[i].remaining);
		json_kv_string(j, "name", v[i].name);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
subscriptions_json(struct show *s, const struct sa_subscription_info *v,
    size_t n)
{
	struct json *j = &s->j;
	char gid[64], w[64];

	json_object_begin(j);
	json_key(j, "subscriptions");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct sa_inform *ii = &v[i].ii;

		json_object_begin(j);
		json_kv_string(j, "subscriber", gid_str(v[i].subscriber_gid,
		    gid, sizeof(gid)));
		json_kv_uint(j, "enum", v[i].enumv);
		json_kv_uint(j, "lid", v[i].lid);
		json_kv_uint(j, "qpn", v[i].qpn);
		json_kv_bool(j, "generic", ii->is_generic != 0);
		json_kv_uint(j, "type", ii->type);
		json_kv_uint(j, ii->is_generic ? "trap" : "device_id",
		    ii->trap);
		json_kv_uint(j, ii->is_generic ? "producer" : "vendor_id",
		    ii->producer);
		json_kv_string(j, "watches", watched(ii, w, sizeof(w)));
		json_kv_uint(j, "reports_sent", v[i].reports_sent);
		json_kv_uint(j, "reports_acked", v[i].reports_acked);
		json_kv_uint(j, "reports_failed", v[i].reports_failed);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
guids_head_json(struct show *s, bool enabled, struct show_table *t)
{
	(void)t;
	json_object_begin(&s->j);
	json_kv_bool(&s->j, "enabled", enabled);
	json_key(&s->j, "ports");
	json_array_begin(&s->j);
}

static void
guids_port_json(struct show *s, const struct guid_port *gp,
    struct show_table *t)
{
	struct json *j = &s->j;

	(void)t;
	json_object_begin(j);
	json_kv_guid(j, "port_guid", gp->guid);
	json_kv_string(j, "description", gp->desc);
	json_kv_uint(j, "lid", gp->lid);
	json_key(j, "guids");
	json_array_begin(j);
	for (size_t k = 0; k < gp->nrows; k++) {
		const struct guid_row *r = &gp->rows[k];

		json_object_begin(j);
		json_kv_uint(j, "index", r->index);
		json_kv_guid(j, "guid", r->guid);
		json_kv_string(j, "state", r->state);
		json_key(j, "device");
		if (r->read)
			json_guid(j, r->device);
		else
			json_null(j);
		json_kv_bool(j, "match", r->match);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
guids_tail_json(struct show *s, bool enabled, struct show_table *t)
{
	(void)enabled;
	(void)t;
	json_array_end(&s->j);
	json_object_end(&s->j);
}

static void
guid_forgotten_json(struct show *s, uint64_t port, unsigned index,
    uint64_t was)
{
	json_object_begin(&s->j);
	json_kv_guid(&s->j, "port_guid", port);
	json_kv_uint(&s->j, "index", index);
	json_kv_guid(&s->j, "forgotten", was);
	json_object_end(&s->j);
}

static void
mcast_head_json(struct show *s, const struct show_mcast *m)
{
	struct json *j = &s->j;

	json_object_begin(j);
	json_kv_uint(j, "groups", m->st.groups);
	json_kv_uint(j, "mlids", m->st.mlids);
	json_kv_uint(j, "mlid_limit", m->st.mlid_limit);
	json_key(j, "group");
	json_array_begin(j);
}

static void
tree_switch_json(struct show *s, const struct fabric_node *n,
    const uint8_t *ports, size_t nports)
{
	struct json *j = &s->j;

	json_object_begin(j);
	json_kv_guid(j, "switch", n->guid);
	json_kv_string(j, "desc", n->desc);
	json_key(j, "ports");
	json_array_begin(j);
	for (size_t i = 0; i < nports; i++)
		json_uint(j, ports[i]);
	json_array_end(j);
	json_object_end(j);
}

static void
mcast_group_json(struct show *s, const struct show_mcast *m,
    const struct mcast_group *g, bool tree)
{
	const struct mcast_params *p = &g->p;
	struct json *j = &s->j;
	char gid[48];

	gid_text(g->mgid, gid, sizeof(gid));
	json_object_begin(j);
	json_kv_string(j, "mgid", gid);
	json_kv_uint(j, "mlid", g->mlid);
	json_kv_uint(j, "pkey", p->pkey);
	json_kv_uint(j, "qkey", p->qkey);
	json_kv_uint(j, "mtu", p->mtu);
	json_kv_uint(j, "rate", p->rate);
	json_kv_uint(j, "sl", p->sl);
	json_kv_uint(j, "scope", p->scope);
	json_kv_uint(j, "tclass", p->tclass);
	json_kv_uint(j, "flow_label", p->flow_label);
	json_kv_uint(j, "hop_limit", p->hop_limit);
	json_kv_uint(j, "pkt_life", p->pkt_life);
	json_kv_bool(j, "well_known", g->well_known);
	json_key(j, "members");
	json_array_begin(j);
	for (size_t i = 0; i < g->nmembers; i++) {
		const struct mcast_member *mb = &g->members[i];

		json_object_begin(j);
		json_kv_guid(j, "port_guid", mb->port_guid);
		json_kv_uint(j, "join_state", mb->join_state);
		json_kv_bool(j, "proxy", mb->proxy);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "tree");
	json_array_begin(j);
	if (tree)
		tree_walk(m, g->mlid, tree_switch_json, s);
	json_array_end(j);
	json_object_end(j);
}

static void
mcast_tail_json(struct show *s)
{
	json_array_end(&s->j);
	json_object_end(&s->j);
}

static void
vports_head_json(struct show *s, bool any)
{
	(void)any;
	json_object_begin(&s->j);
	json_key(&s->j, "hosts");
	json_array_begin(&s->j);
}

static void
vport_json(struct json *j, const struct vport *v)
{
	char desc[80];

	json_object_begin(j);
	json_kv_uint(j, "index", v->index);
	json_kv_guid(j, "guid", v->guid);
	json_kv_uint(j, "lid", v->lid);
	json_kv_bool(j, "lid_required", vport_wants_lid(v));
	json_kv_string(j, "state", vport_state_name(v->state));
	show_clean(v->desc, desc, sizeof(desc));
	json_kv_string(j, "description", desc);
	json_key(j, "pkeys");
	json_array_begin(j);
	for (uint16_t k = 0; v->pkeys != NULL && k < v->pkey_cap; k++)
		if ((v->pkeys[k] & 0x7fff) != 0)
			json_uint(j, v->pkeys[k]);
	json_array_end(j);
	json_object_end(j);
}

static void
vports_host_json(struct show *s, const struct fabric *f,
    const struct vport_set *vs, uint32_t h)
{
	const struct fabric_port *p = &f->ports[vs->h[h].port];
	struct json *j = &s->j;
	unsigned nv, up;
	char desc[80];

	host_counts(vs, h, &nv, &up);
	query_node_name(f, p->node, desc, sizeof(desc));
	json_object_begin(j);
	json_kv_guid(j, "port_guid", p->guid);
	json_kv_uint(j, "port", p->num);
	json_kv_uint(j, "lid", p->lid);
	json_kv_string(j, "description", desc);
	json_kv_uint(j, "vport_cap", vs->h[h].vport_cap);
	json_kv_uint(j, "vport_index_top", vs->h[h].top);
	json_kv_uint(j, "vports_read", nv);
	json_kv_uint(j, "vports_up", up);
	json_key(j, "vports");
	json_array_begin(j);
	for (uint32_t i = 0; i < vs->n; i++)
		if (vs->v[i].host == h)
			vport_json(j, &vs->v[i]);
	json_array_end(j);
	json_object_end(j);
}

static void
vports_tail_json(struct show *s)
{
	json_array_end(&s->j);
	json_object_end(&s->j);
}

static const struct sa_output json_output = {
	.services = services_json,
	.subscriptions = subscriptions_json,
	.guids_head = guids_head_json,
	.guids_port = guids_port_json,
	.guids_tail = guids_tail_json,
	.guid_forgotten = guid_forgotten_json,
	.mcast_head = mcast_head_json,
	.mcast_group = mcast_group_json,
	.mcast_tail = mcast_tail_json,
	.vports_head = vports_head_json,
	.vports_host = vports_host_json,
	.vports_tail = vports_tail_json,
};
