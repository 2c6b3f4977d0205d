#include "sm/show.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/query.h"

#define SHOW_ROUTE_MAX 64       /* nodes on a route, at most */

/* ------------------------------------------------------------ buffers */

/* A wall-clock time (seconds since the epoch) as local ISO 8601 with its
 * offset: "2026-11-23T16:45:12+0100". */
void
show_time(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0)
		snprintf(buf, len, "%.0f", t);
}

/* Seconds as "3.2 s", "4m 05s", "2h 03m", "5d 04h". */
void
show_duration(double s, char *buf, size_t len)
{
	unsigned long long n = s > 0 ? (unsigned long long)s : 0;

	if (s < 60)
		snprintf(buf, len, "%.1f s", s > 0 ? s : 0);
	else if (n < 3600)
		snprintf(buf, len, "%llum %02llus", n / 60, n % 60);
	else if (n < 86400)
		snprintf(buf, len, "%lluh %02llum", n / 3600, n / 60 % 60);
	else
		snprintf(buf, len, "%llud %02lluh", n / 86400, n / 3600 % 24);
}

static void
ob_reserve(struct show_buf *o, size_t n)
{
	size_t cap;

	if (o->len + n + 1 <= o->cap)
		return;
	cap = o->cap ? o->cap : 512;
	while (cap < o->len + n + 1)
		cap *= 2;
	if ((o->p = realloc(o->p, cap)) == NULL)
		fatal("show: %zu bytes", cap);
	o->cap = cap;
}

static void
ob_put(struct show_buf *o, const char *s, size_t n)
{
	ob_reserve(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void
ob_puts(struct show_buf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static void __attribute__((format(printf, 2, 0)))
ob_vprintf(struct show_buf *o, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		fatalx("show: bad format");
	ob_reserve(o, (size_t)n);
	vsnprintf(o->p + o->len, (size_t)n + 1, fmt, ap);
	o->len += (size_t)n;
}

static void __attribute__((format(printf, 2, 3)))
ob_printf(struct show_buf *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ob_vprintf(o, fmt, ap);
	va_end(ap);
}

static void
ob_free(struct show_buf *o)
{
	free(o->p);
	memset(o, 0, sizeof(*o));
}

const char *
show_clean(const char *s, char *buf, size_t len)
{
	size_t i = 0, o = 0, n = strlen(s), k;

	if (n == 0)
		return "-";
	while (i < n && o + 5 < len) {
		k = json_utf8_len(s + i, n - i);
		if (k == 0 || (k == 1 && ((unsigned char)s[i] < 0x20 ||
		    s[i] == 0x7F))) {
			buf[o++] = '?';
			i++;
			continue;
		}
		memcpy(buf + o, s + i, k);
		o += k;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}

/* ------------------------------------------------------------ tables */


void
show_table_init(struct show_table *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncols = strlen(align);
}

void
show_table_cell(struct show_table *t, const char *fmt, ...)
{
	struct show_buf o = { 0 };
	va_list ap;

	va_start(ap, fmt);
	ob_vprintf(&o, fmt, ap);
	va_end(ap);
	if (t->ncells == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		if ((t->cells = realloc(t->cells, t->cap * sizeof(*t->cells)))
		    == NULL)
			fatal("show: table");
	}
	t->cells[t->ncells++] = o.p;
}

/* Display width of a cell: UTF-8 sequences count one column. */
static size_t
width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void
show_table_print(struct show_table *t, struct show_buf *o)
{
	size_t w[16] = { 0 }, i, c, pad;

	if (t->ncols > sizeof(w) / sizeof(w[0]))
		fatalx("show: table of %zu columns", t->ncols);
	for (i = 0; i < t->ncells; i++) {
		c = i % t->ncols;
		if (width(t->cells[i]) > w[c])
			w[c] = width(t->cells[i]);
	}
	for (i = 0; i < t->ncells; i++) {
		c = i % t->ncols;
		pad = w[c] - width(t->cells[i]);
		if (t->align[c] == 'r')
			for (; pad > 0; pad--)
				ob_put(o, " ", 1);
		ob_puts(o, t->cells[i]);
		if (c == t->ncols - 1 || i == t->ncells - 1) {
			ob_put(o, "\n", 1);
			continue;
		}
		if (t->align[c] != 'r')
			for (; pad > 0; pad--)
				ob_put(o, " ", 1);
		ob_put(o, "  ", 2);
	}
}

void
show_table_free(struct show_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ the answer */

void
show_init(struct show *s, bool json)
{
	memset(s, 0, sizeof(*s));
	s->json = json;
	json_init(&s->j);
}

void
show_fini(struct show *s)
{
	json_fini(&s->j);
	ob_free(&s->text);
	ob_free(&s->err);
}

void
show_printf(struct show *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ob_vprintf(&s->text, fmt, ap);
	va_end(ap);
}

int
show_error(struct show *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ob_vprintf(&s->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* ------------------------------------------------------------ formats */

/*
 * One set of callbacks per format, as bgpctl's output.c and
 * output_json.c: a view resolves its names and gathers, then calls the
 * set the command picked (s->json) without asking again.
 */
struct ports_view;
struct fabric_output {
	void (*nodes)(struct show *, const struct fabric *, const bool *);
	void (*ports)(struct show *, const struct ports_view *);
	void (*ports_many)(struct show *, const struct ports_view *, size_t);
	void (*route)(struct show *, const struct fabric *,
	    const struct query_hop *, int, uint16_t, uint16_t);
	void (*partitions)(struct show *, const struct pkey_policy *,
	    const struct fabric *, const char *);
	void (*reloaded)(struct show *);
	void (*sweeps_enabled)(struct show *, bool);
	void (*requested)(struct show *, const char *);
	void (*log_level)(struct show *, const char *, const char *);
};

static const struct fabric_output text_output, json_output;

static const struct fabric_output *
output(const struct show *s)
{
	return s->json ? &json_output : &text_output;
}

/* ------------------------------------------------------------ the fabric */

/* Link width and speed of a port whose link is up, else NULL. */
static const char *
port_width(const struct fabric_port *p)
{
	struct query_link l;

	return query_port_link(p, &l) < 0 ? NULL : query_width_name(l.lanes);
}

static const char *
port_speed(const struct fabric_port *p)
{
	struct query_link l;

	return query_port_link(p, &l) < 0 ? NULL : query_speed_name(l.speed);
}

/* "0x<guid> "<description>"" of node n, for messages. */
static const char *
node_name(const struct fabric *f, uint32_t n, char *buf, size_t len)
{
	const struct fabric_node *node = &f->nodes[n];
	char desc[260];

	snprintf(buf, len, "0x%016" PRIx64 " \"%s\"", node->guid,
	    query_node_name(f, n, desc, sizeof(desc)));
	return buf;
}

/* Node n for people: its node_name_map name, else its description
 * (cleaned), "-" when it has neither. */
static const char *
name_of(const struct fabric *f, uint32_t n, char *buf, size_t len)
{
	query_node_name(f, n, buf, len);
	return buf[0] ? buf : "-";
}

/* The "desc" (as the node says) and "name" (as people call it) of n. */
static void
json_desc_name(struct json *j, const struct fabric *f, uint32_t n)
{
	const struct fabric_node *node = &f->nodes[n];
	char name[260];

	json_kv_string(j, "desc", node->desc_valid ? node->desc : NULL);
	query_node_name(f, n, name, sizeof(name));
	json_kv_string(j, "name", name[0] ? name : NULL);
}

/* t for the node or port that name stands for, or -1 with the reason. */
static int
resolve(const struct fabric *f, const char *name, struct query_target *t,
    struct show *s)
{
	char buf[80];

	switch (query_resolve(f, name, t)) {
	case QUERY_NAME_OK:
		return 0;
	case QUERY_NAME_NOT_UNICAST:
		return show_error(s, "%s is not a unicast LID", name);
	case QUERY_NAME_NO_LID:
		return show_error(s, "no port has LID %" PRIu64, t->number);
	case QUERY_NAME_NO_GUID:
		return show_error(s, "no node or port has GUID 0x%016" PRIx64,
		    t->number);
	case QUERY_NAME_AMBIGUOUS:
		return show_error(s, "%u nodes are named '%s': use a GUID or "
		    "a LID", t->matches, show_clean(name, buf, sizeof(buf)));
	default:
		return show_error(s, "no LID, GUID or node description "
		    "matches '%s'", show_clean(name, buf, sizeof(buf)));
	}
}

/* ------------------------------------------------------------ nodes */

static unsigned
linked_ports(const struct fabric *f, const struct fabric_node *node)
{
	unsigned linked = 0;

	for (unsigned i = 1; i <= node->nports; i++)
		if (f->ports[node->port0 + i].peer != FABRIC_NONE)
			linked++;
	return linked;
}

static void
node_json(const struct fabric *f, struct json *j, uint32_t n)
{
	const struct fabric_node *node = &f->nodes[n];

	json_object_begin(j);
	json_kv_guid(j, "guid", node->guid);
	json_kv_string(j, "type", fabric_node_type_name(node->type));
	json_desc_name(j, f, n);
	json_kv_uint(j, "nports", node->nports);
	json_kv_uint(j, "linked", linked_ports(f, node));
	json_key(j, "endports");
	json_array_begin(j);
	for (unsigned i = 0; i <= node->nports; i++) {
		uint32_t p = node->port0 + i;

		if (!fabric_port_is_endport(f, p))
			continue;
		json_object_begin(j);
		json_kv_uint(j, "port", i);
		json_kv_guid(j, "guid", f->ports[p].guid);
		json_kv_uint(j, "lid", f->ports[p].lid);
		json_kv_uint(j, "lmc", f->ports[p].lmc);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
node_row(const struct fabric *f, struct show_table *t, uint32_t n)
{
	const struct fabric_node *node = &f->nodes[n];
	struct show_buf lids = { 0 };
	char desc[260];

	for (unsigned i = 0; i <= node->nports; i++) {
		uint32_t p = node->port0 + i;

		if (fabric_port_is_endport(f, p) && f->ports[p].lid)
			ob_printf(&lids, "%s%u", lids.len ? "," : "",
			    f->ports[p].lid);
	}
	show_table_cell(t, "%s", fabric_node_type_name(node->type));
	show_table_cell(t, "0x%016" PRIx64, node->guid);
	show_table_cell(t, "%s", lids.len ? lids.p : "-");
	show_table_cell(t, "%u", node->nports);
	show_table_cell(t, "%u", linked_ports(f, node));
	show_table_cell(t, "%s", name_of(f, n, desc, sizeof(desc)));
	ob_free(&lids);
}

static bool
is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Whether node n's name (node_name_map) or description matches the shell
 * pattern pat. */
static bool
node_matches(const struct fabric *f, uint32_t n, const char *pat)
{
	char name[260];

	query_node_name(f, n, name, sizeof(name));
	return fnmatch(pat, name, 0) == 0 || (f->nodes[n].desc_valid &&
	    fnmatch(pat, f->nodes[n].desc, 0) == 0);
}

/* The nodes filter names: every node (NULL), the one a LID, GUID or name
 * gives, or those a pattern matches (want[n] set); -1 with the reason. */
static int
select_nodes(struct show *s, const struct fabric *f, const char *filter,
    bool *want)
{
	struct query_target tg;
	unsigned k = 0;
	char buf[80];

	for (uint32_t n = 0; n < f->nnodes; n++)
		want[n] = filter == NULL;
	if (filter == NULL)
		return 0;
	if (!is_glob(filter)) {
		if (resolve(f, filter, &tg, s) < 0)
			return -1;
		want[tg.node] = true;
		return 0;
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		k += want[n] = node_matches(f, n, filter);
	if (k == 0)
		return show_error(s, "no node name or description matches '%s'",
		    show_clean(filter, buf, sizeof(buf)));
	return 0;
}

static void
nodes_json(struct show *s, const struct fabric *f, const bool *want)
{
	json_object_begin(&s->j);
	json_key(&s->j, "nodes");
	json_array_begin(&s->j);
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (want[n])
			node_json(f, &s->j, n);
	json_array_end(&s->j);
	json_object_end(&s->j);
}

static void
nodes_text(struct show *s, const struct fabric *f, const bool *want)
{
	struct show_table t;

	show_table_init(&t, "llrrrl");
	show_table_cell(&t, "TYPE");
	show_table_cell(&t, "GUID");
	show_table_cell(&t, "LID");
	show_table_cell(&t, "PORTS");
	show_table_cell(&t, "LINKED");
	show_table_cell(&t, "NAME");
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (want[n])
			node_row(f, &t, n);
	show_table_print(&t, &s->text);
	show_table_free(&t);
}

int
show_nodes_filter(struct show *s, const struct fabric *f, const char *filter)
{
	bool *want = xcalloc(f->nnodes, sizeof(*want));

	if (select_nodes(s, f, filter, want) < 0) {
		free(want);
		return -1;
	}
	output(s)->nodes(s, f, want);
	free(want);
	return 0;
}

void
show_nodes(struct show *s, const struct fabric *f)
{
	(void)show_nodes_filter(s, f, NULL);
}

/* ------------------------------------------------------------ ports */

/* The P_Key table in effect for port p (NULL: none). */
static const struct pkey_table *
port_pkeys(const struct fabric *f, const struct pkey_tables *pk, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];

	return pk != NULL ? pkey_tables_find(pk, port->guid, port->num) : NULL;
}

static void
pkeys_json(struct json *j, const struct pkey_table *t)
{
	json_key(j, "pkeys");
	if (t == NULL) {
		json_null(j);
		return;
	}
	json_array_begin(j);
	for (unsigned i = 0; i < t->cap; i++) {
		if ((t->keys[i] & 0x7fff) == 0)
			continue;
		json_object_begin(j);
		json_kv_uint(j, "index", i);
		json_kv_uint(j, "pkey", t->keys[i]);
		json_kv_string(j, "membership", t->keys[i] & PKEY_FULL ?
		    "full" : "limited");
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_string(j, "pkey_table", t->kind == PKEY_TABLE_ENFORCE ?
	    "enforcement" : "port");
}

static void
pkeys_cell(struct show_table *tb, const struct pkey_table *t)
{
	char buf[512];
	size_t off = 0;
	unsigned n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; t != NULL && i < t->cap; i++) {
		if ((t->keys[i] & 0x7fff) == 0)
			continue;
		if (off + 16 >= sizeof(buf)) {
			snprintf(buf + off, sizeof(buf) - off, ",...");
			break;
		}
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		    "%s0x%04x", n++ ? "," : "", t->keys[i]);
	}
	show_table_cell(tb, "%s", n ? buf : "-");
}

static void
port_json(const struct fabric *f, const struct pkey_tables *pk,
    struct json *j, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const char *s;

	json_object_begin(j);
	json_kv_uint(j, "port", port->num);
	json_kv_guid(j, "guid", port->guid);
	/* 0: never read (a CA port without a link, say) */
	json_kv_string(j, "state", port->state ?
	    query_port_state_name(port->state) : NULL);
	json_kv_string(j, "phys", port->phys ?
	    query_phys_state_name(port->phys) : NULL);
	json_key(j, "lid");
	if (fabric_port_is_endport(f, p)) {
		json_uint(j, port->lid);
		json_kv_uint(j, "lmc", port->lmc);
	} else
		json_null(j);
	json_key(j, "width");
	json_string(j, (s = port_width(port)) ? s : NULL);
	json_key(j, "speed");
	json_string(j, (s = port_speed(port)) ? s : NULL);
	json_key(j, "peer");
	if (port->peer == FABRIC_NONE)
		json_null(j);
	else {
		const struct fabric_port *q = &f->ports[port->peer];
		const struct fabric_node *qn = &f->nodes[q->node];

		json_object_begin(j);
		json_kv_guid(j, "node_guid", qn->guid);
		json_kv_string(j, "type", fabric_node_type_name(qn->type));
		json_desc_name(j, f, q->node);
		json_kv_uint(j, "port", q->num);
		json_kv_guid(j, "port_guid", q->guid);
		json_object_end(j);
	}
	pkeys_json(j, port_pkeys(f, pk, p));
	json_object_end(j);
}

static void
port_row(const struct fabric *f, const struct pkey_tables *pk,
    struct show_table *t, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const char *s;
	char desc[260];

	show_table_cell(t, "%u", port->num);
	if (port->guid)
		show_table_cell(t, "0x%016" PRIx64, port->guid);
	else
		show_table_cell(t, "-");
	show_table_cell(t, "%s", port->state ?
	    query_port_state_name(port->state) : "-");
	show_table_cell(t, "%s", port->phys ?
	    query_phys_state_name(port->phys) : "-");
	if (fabric_port_is_endport(f, p) && port->lid) {
		if (port->lmc)
			show_table_cell(t, "%u-%u", port->lid,
			    port->lid + (1u << port->lmc) - 1);
		else
			show_table_cell(t, "%u", port->lid);
	} else
		show_table_cell(t, "-");
	show_table_cell(t, "%s", (s = port_width(port)) ? s : "-");
	show_table_cell(t, "%s", (s = port_speed(port)) ? s : "-");
	if (port->peer == FABRIC_NONE) {
		show_table_cell(t, "-");
		show_table_cell(t, "-");
	} else {
		const struct fabric_port *q = &f->ports[port->peer];
		const struct fabric_node *qn = &f->nodes[q->node];

		show_table_cell(t, "0x%016" PRIx64 "[%u]", qn->guid, q->num);
		show_table_cell(t, "%s", name_of(f, q->node, desc, sizeof(desc)));
	}
	pkeys_cell(t, port_pkeys(f, pk, p));
}

/* The ports first to last of node n (a whole node, or one CA port). */
struct ports_view {
	const struct fabric *f;
	const struct pkey_tables *pk;
	uint32_t node, first, last;
};

static void
ports_view(const struct fabric *f, const struct pkey_tables *pk, uint32_t n,
    uint32_t port, struct ports_view *v)
{
	const struct fabric_node *node = &f->nodes[n];

	v->f = f;
	v->pk = pk;
	v->node = n;
	if (port != FABRIC_NONE)
		v->first = v->last = port;
	else {
		v->first = node->port0 + (node->type == NODE_SWITCH ? 0 : 1);
		v->last = node->port0 + node->nports;
	}
}

static void
ports_json(struct show *s, const struct ports_view *v)
{
	const struct fabric_node *node = &v->f->nodes[v->node];
	struct json *j = &s->j;

	json_object_begin(j);
	json_key(j, "node");
	json_object_begin(j);
	json_kv_guid(j, "guid", node->guid);
	json_kv_string(j, "type", fabric_node_type_name(node->type));
	json_desc_name(j, v->f, v->node);
	json_kv_uint(j, "nports", node->nports);
	json_object_end(j);
	json_key(j, "ports");
	json_array_begin(j);
	for (uint32_t p = v->first; p <= v->last; p++)
		port_json(v->f, v->pk, j, p);
	json_array_end(j);
	json_object_end(j);
}

static void
ports_text(struct show *s, const struct ports_view *v)
{
	const struct fabric_node *node = &v->f->nodes[v->node];
	struct show_table t;
	char desc[260];

	ob_printf(&s->text, "%s 0x%016" PRIx64 " \"%s\", %u ports\n",
	    fabric_node_type_name(node->type), node->guid,
	    query_node_name(v->f, v->node, desc, sizeof(desc)), node->nports);
	show_table_init(&t, "rlllllllll");
	show_table_cell(&t, "PORT");
	show_table_cell(&t, "GUID");
	show_table_cell(&t, "STATE");
	show_table_cell(&t, "PHYS");
	show_table_cell(&t, "LID");
	show_table_cell(&t, "WIDTH");
	show_table_cell(&t, "SPEED");
	show_table_cell(&t, "PEER");
	show_table_cell(&t, "PEER DESCRIPTION");
	show_table_cell(&t, "P_KEYS");
	for (uint32_t p = v->first; p <= v->last; p++)
		port_row(v->f, v->pk, &t, p);
	show_table_print(&t, &s->text);
	show_table_free(&t);
}

/* Several nodes' ports: JSON {"nodes": [{"node": ..., "ports": [...]},
 * ...]}; text the blocks one after the other, a blank line between. */
static void
ports_many_json(struct show *s, const struct ports_view *v, size_t n)
{
	json_object_begin(&s->j);
	json_key(&s->j, "nodes");
	json_array_begin(&s->j);
	for (size_t i = 0; i < n; i++)
		ports_json(s, &v[i]);
	json_array_end(&s->j);
	json_object_end(&s->j);
}

static void
ports_many_text(struct show *s, const struct ports_view *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			show_printf(s, "\n");
		ports_text(s, &v[i]);
	}
}

/* The ports of every node a pattern matches. */
static int
ports_matching(struct show *s, const struct fabric *f,
    const struct pkey_tables *pk, const char *pat)
{
	bool *want = xcalloc(f->nnodes, sizeof(*want));
	struct ports_view *v;
	size_t k = 0;

	if (select_nodes(s, f, pat, want) < 0) {
		free(want);
		return -1;
	}
	v = xcalloc(f->nnodes, sizeof(*v));
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (want[n])
			ports_view(f, pk, n, FABRIC_NONE, &v[k++]);
	output(s)->ports_many(s, v, k);
	free(v);
	free(want);
	return 0;
}

int
show_ports(struct show *s, const struct fabric *f, const char *what)
{
	return show_ports_pkeys(s, f, NULL, what);
}

int
show_ports_pkeys(struct show *s, const struct fabric *f,
    const struct pkey_tables *pk, const char *what)
{
	struct query_target tg;
	struct ports_view v;

	if (is_glob(what))
		return ports_matching(s, f, pk, what);
	if (resolve(f, what, &tg, s) < 0)
		return -1;
	ports_view(f, pk, tg.node, tg.port, &v);
	output(s)->ports(s, &v);
	return 0;
}

/* ------------------------------------------------------------ route */

/* Follow the forwarding tables from src (an end port) to dlid into hops;
 * returns the number of entries, or -1 with the reason in s. */
static int
walk(const struct fabric *f, const struct lft_set *lft, uint32_t src,
    uint16_t dlid, struct query_hop *hops, unsigned max, struct show *s)
{
	const struct query_hop *h;
	const struct fabric_node *node;
	enum query_walk_end end;
	unsigned n;
	char name[300];

	end = query_walk(f, lft, src, dlid, hops, max, &n);
	if (end == QUERY_WALK_ARRIVED)
		return (int)n;
	h = &hops[n - 1];
	node = &f->nodes[h->node];
	node_name(f, h->node, name, sizeof(name));
	switch (end) {
	case QUERY_WALK_WRONG_PORT:
		return show_error(s, "route: LID %u arrives at %s port %u, "
		    "which is LID %u", dlid, name, h->in, h->lid);
	case QUERY_WALK_SELF:
		return show_error(s, "route: switch %s takes LID %u for "
		    "itself", name, dlid);
	case QUERY_WALK_NO_ROUTE:
		return show_error(s, "route: switch %s has no route to LID %u",
		    name, dlid);
	case QUERY_WALK_BAD_PORT:
		return show_error(s, "route: switch %s sends LID %u to port %u "
		    "of %u", name, dlid, h->out, node->nports);
	case QUERY_WALK_NO_LINK:
		return show_error(s, "route: port %u of %s has no link",
		    h->out, name);
	case QUERY_WALK_LOOP:
		return show_error(s, "route: LID %u not reached after %u hops: "
		    "back at switch %s (a loop)", dlid, n - 1, name);
	default:
		return show_error(s, "route: LID %u not reached after %u hops, "
		    "the most a route may take", dlid, max - 1);
	}
}

static void
route_json(struct show *s, const struct fabric *f,
    const struct query_hop *hops, int n, uint16_t slid, uint16_t dlid)
{
	struct json *j = &s->j;

	json_object_begin(j);
	json_kv_uint(j, "src_lid", slid);
	json_kv_uint(j, "dst_lid", dlid);
	json_kv_uint(j, "hops", (uint64_t)n - 1);
	json_key(j, "path");
	json_array_begin(j);
	for (int i = 0; i < n; i++) {
		const struct fabric_node *node = &f->nodes[hops[i].node];

		json_object_begin(j);
		json_kv_guid(j, "guid", node->guid);
		json_kv_string(j, "type", fabric_node_type_name(node->type));
		json_desc_name(j, f, hops[i].node);
		json_kv_uint(j, "lid", hops[i].lid);
		json_key(j, "in_port");
		if (i == 0)
			json_null(j);
		else
			json_uint(j, hops[i].in);
		json_key(j, "out_port");
		if (i == n - 1)
			json_null(j);
		else
			json_uint(j, hops[i].out);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
route_text(struct show *s, const struct fabric *f,
    const struct query_hop *hops, int n, uint16_t slid, uint16_t dlid)
{
	struct show_buf *o = &s->text;
	struct show_table t;
	char desc[260];

	ob_printf(o, "LID %u to LID %u: %d hop%s\n", slid, dlid, n - 1,
	    n == 2 ? "" : "s");
	show_table_init(&t, "rllrrrl");
	show_table_cell(&t, "HOP");
	show_table_cell(&t, "TYPE");
	show_table_cell(&t, "GUID");
	show_table_cell(&t, "LID");
	show_table_cell(&t, "IN");
	show_table_cell(&t, "OUT");
	show_table_cell(&t, "DESCRIPTION");
	for (int i = 0; i < n; i++) {
		const struct fabric_node *node = &f->nodes[hops[i].node];

		show_table_cell(&t, "%d", i);
		show_table_cell(&t, "%s", fabric_node_type_name(node->type));
		show_table_cell(&t, "0x%016" PRIx64, node->guid);
		show_table_cell(&t, "%u", hops[i].lid);
		if (i == 0)
			show_table_cell(&t, "-");
		else
			show_table_cell(&t, "%u", hops[i].in);
		if (i == n - 1)
			show_table_cell(&t, "-");
		else
			show_table_cell(&t, "%u", hops[i].out);
		show_table_cell(&t, "%s", name_of(f, hops[i].node, desc,
		    sizeof(desc)));
	}
	show_table_print(&t, o);
	show_table_free(&t);
}

int
show_route(struct show *s, const struct fabric *f, const struct lft_set *lft,
    const char *from, const char *to)
{
	struct query_target ts, td;
	struct query_hop hops[SHOW_ROUTE_MAX];
	uint32_t src, dst;
	uint16_t dlid;
	char buf[80];
	int n;

	if (resolve(f, from, &ts, s) < 0 || resolve(f, to, &td, s) < 0)
		return -1;
	if ((src = query_target_endport(f, &ts)) == FABRIC_NONE)
		return show_error(s, "route: %s has no port with a LID to "
		    "start from", show_clean(from, buf, sizeof(buf)));
	if ((dst = query_target_endport(f, &td)) == FABRIC_NONE)
		return show_error(s, "route: %s has no port with a LID",
		    show_clean(to, buf, sizeof(buf)));
	dlid = td.lid ? td.lid : f->ports[dst].lid;
	if ((n = walk(f, lft, src, dlid, hops, SHOW_ROUTE_MAX, s)) < 0)
		return -1;
	output(s)->route(s, f, hops, n, f->ports[src].lid, dlid);
	return 0;
}

/* ------------------------------------------------------------ partitions */

static void
scopes_json(struct json *j, uint16_t mask)
{
	json_key(j, "scope");
	json_array_begin(j);
	for (unsigned b = 0; b < 16; b++)
		if (mask & (1u << b))
			json_uint(j, b);
	json_array_end(j);
}

static void
group_flags_json(struct json *j, const struct pkey_group_flags *g)
{
	char hex[16];

	json_kv_uint(j, "mtu", g->mtu);
	json_kv_uint(j, "rate", g->rate);
	json_kv_uint(j, "sl", g->sl);
	scopes_json(j, g->scope_mask);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, g->qkey);
	json_kv_string(j, "qkey", hex);
	json_kv_uint(j, "tclass", g->tclass);
	json_kv_uint(j, "flow_label", g->flow_label);
}

static const char *
member_kind(const char *text)
{
	if (text[0] == '"')
		return "description";
	if (strncmp(text, "0x", 2) == 0)
		return strchr(text, '-') ? "range" : "guid";
	return "keyword";
}

struct ports_ctx {
	const struct fabric *f;
	struct json *j;
};

static void
partition_port_json(void *arg, uint32_t p, unsigned membership, bool forced)
{
	struct ports_ctx *c = arg;
	const struct fabric_port *port = &c->f->ports[p];
	const struct fabric_node *n = &c->f->nodes[port->node];

	json_object_begin(c->j);
	json_kv_guid(c->j, "guid", port->guid);
	json_kv_uint(c->j, "port", port->num);
	json_kv_uint(c->j, "lid", port->lid);
	json_kv_guid(c->j, "node_guid", n->guid);
	json_kv_string(c->j, "type", fabric_node_type_name(n->type));
	json_desc_name(c->j, c->f, port->node);
	json_kv_string(c->j, "membership", pkey_membership_name(membership));
	if (forced)
		json_kv_bool(c->j, "sm_port_forced_full", true);
	json_object_end(c->j);
}

static void
partition_ports_json(struct json *j, const struct pkey_partition *pt,
    const struct fabric *f, long member)
{
	struct ports_ctx c = { f, j };

	json_key(j, "ports");
	if (f == NULL) {
		json_null(j);
		return;
	}
	json_array_begin(j);
	pkey_partition_ports(pt, f, member, partition_port_json, &c);
	json_array_end(j);
}

static void
partition_json(struct json *j, const struct pkey_partition *pt,
    const struct fabric *f)
{
	char text[300], hex[8];

	json_object_begin(j);
	json_kv_string(j, "name", pt->name);
	json_kv_uint(j, "pkey", pt->pkey);
	snprintf(hex, sizeof(hex), "0x%04x", pt->pkey);
	json_kv_string(j, "pkey_hex", hex);
	json_kv_bool(j, "implicit", pt->implicit);
	json_kv_bool(j, "generated", pt->generated);
	json_key(j, "flags");
	json_object_begin(j);
	json_kv_bool(j, "ipoib", pt->ipoib);
	json_kv_bool(j, "indx0", pt->indx0);
	group_flags_json(j, &pt->flags);
	json_object_end(j);
	json_key(j, "groups");
	json_array_begin(j);
	for (size_t i = 0; i < pt->nmgroups; i++) {
		pkey_gid_format(pt->mgroups[i].mgid, text, sizeof(text));
		json_object_begin(j);
		json_kv_string(j, "mgid", text);
		json_kv_bool(j, "ip", pt->mgroups[i].ip);
		group_flags_json(j, &pt->mgroups[i].flags);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "members");
	json_array_begin(j);
	for (size_t i = 0; i < pt->nmembers; i++) {
		if (pkey_member_format(pt, i, text, sizeof(text)) < 0)
			continue;
		json_object_begin(j);
		json_kv_string(j, "member", text);
		json_kv_string(j, "kind", member_kind(text));
		json_kv_string(j, "membership",
		    pkey_membership_name(pkey_member_membership(pt, i)));
		partition_ports_json(j, pt, f, (long)i);
		json_object_end(j);
	}
	json_array_end(j);
	partition_ports_json(j, pt, f, -1);
	json_object_end(j);
}

static void
partitions_text(struct show *s, const struct pkey_policy *p,
    const struct fabric *f, const char *text)
{
	size_t n;

	(void)p;
	(void)f;
	if (text == NULL) {
		show_printf(s, "no partition policy\n");
		return;
	}
	n = strlen(text);
	show_printf(s, "%s%s", text, n && text[n - 1] == '\n' ? "" : "\n");
}

static void
partitions_json(struct show *s, const struct pkey_policy *p,
    const struct fabric *f, const char *text)
{
	json_object_begin(&s->j);
	json_key(&s->j, "partitions");
	if (p == NULL)
		json_null(&s->j);
	else {
		json_array_begin(&s->j);
		for (size_t i = 0; i < pkey_policy_count(p); i++)
			partition_json(&s->j, pkey_policy_get(p, i), f);
		json_array_end(&s->j);
	}
	json_kv_bool(&s->j, "fabric", f != NULL);
	json_kv_string(&s->j, "policy", text);
	json_object_end(&s->j);
}

void
show_partitions(struct show *s, const struct pkey_policy *p,
    const struct fabric *f, const char *text)
{
	output(s)->partitions(s, p, f, text);
}

/* ------------------------------------------------------------ answers */

static void
reloaded_text(struct show *s)
{
	show_printf(s, "configuration reloaded\n");
}

static void
reloaded_json(struct show *s)
{
	json_object_begin(&s->j);
	json_kv_bool(&s->j, "reloaded", true);
	json_object_end(&s->j);
}

void
show_reloaded(struct show *s)
{
	output(s)->reloaded(s);
}

static void
sweeps_enabled_text(struct show *s, bool on)
{
	show_printf(s, "sweeps %s\n", on ? "resumed" : "held: none starts "
	    "until sweep on");
}

static void
sweeps_enabled_json(struct show *s, bool on)
{
	json_object_begin(&s->j);
	json_kv_bool(&s->j, "enabled", on);
	json_object_end(&s->j);
}

void
show_sweeps_enabled(struct show *s, bool on)
{
	output(s)->sweeps_enabled(s, on);
}

static void
requested_text(struct show *s, const char *what)
{
	if (strcmp(what, "reroute") == 0)
		show_printf(s, "full reroute requested\n");
	else
		show_printf(s, "%s sweep requested\n", what);
}

static void
requested_json(struct show *s, const char *what)
{
	json_object_begin(&s->j);
	json_kv_string(&s->j, "requested", what);
	json_object_end(&s->j);
}

void
show_requested(struct show *s, const char *what)
{
	output(s)->requested(s, what);
}

static void
log_level_text(struct show *s, const char *now, const char *was)
{
	show_printf(s, "log level %s (was %s)\n", now, was);
}

static void
log_level_json(struct show *s, const char *now, const char *was)
{
	json_object_begin(&s->j);
	json_kv_string(&s->j, "log_level", now);
	json_kv_string(&s->j, "previous", was);
	json_object_end(&s->j);
}

void
show_log_level(struct show *s, const char *now, const char *was)
{
	output(s)->log_level(s, now, was);
}

/* ------------------------------------------------------------ formats */

static const struct fabric_output text_output = {
	.nodes = nodes_text,
	.ports = ports_text,
	.ports_many = ports_many_text,
	.route = route_text,
	.partitions = partitions_text,
	.reloaded = reloaded_text,
	.sweeps_enabled = sweeps_enabled_text,
	.requested = requested_text,
	.log_level = log_level_text,
};

static const struct fabric_output json_output = {
	.nodes = nodes_json,
	.ports = ports_json,
	.ports_many = ports_many_json,
	.route = route_json,
	.partitions = partitions_json,
	.reloaded = reloaded_json,
	.sweeps_enabled = sweeps_enabled_json,
	.requested = requested_json,
	.log_level = log_level_json,
};
