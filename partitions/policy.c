/*
 * The policy against a fabric: members resolved to ports, the normalized
 * text of ibsmd -nv, and the P_Key tables of every end port and of the
 * switch ports that enforce partitions for their CA or router neighbour.
 */
#include "partitions/policy.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- shell wildcards ------------------------------------------------- */

/* The set at p (just after '['): where it ends (past ']'), NULL if it
 * does not; *hit: whether c is in it. */
static const char *
glob_set(const char *p, unsigned char c, bool *hit)
{
	bool neg = false, first = true;
	unsigned char lo, hi;

	*hit = false;
	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	while (*p != '\0' && (first || *p != ']')) {
		first = false;
		if (*p == '\\' && *++p == '\0')
			return NULL;
		lo = hi = (unsigned char)*p++;
		if (p[0] == '-' && p[1] != '\0' && p[1] != ']') {
			p++;
			if (*p == '\\' && *++p == '\0')
				return NULL;
			hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			*hit = true;
	}
	if (*p != ']')
		return NULL;
	if (neg)
		*hit = !*hit;
	return p + 1;
}

const char *
pkey_glob_check(const char *pat)
{
	bool hit;

	for (const char *p = pat; *p != '\0'; p++) {
		if (*p == '\\') {
			if (*++p == '\0')
				return "node description pattern ends with a "
				    "lone '\\'";
		} else if (*p == '[') {
			const char *e = glob_set(p + 1, 0, &hit);

			if (e == NULL)
				return "unclosed '[' in node description "
				    "pattern";
			p = e - 1;
		}
	}
	return NULL;
}

/* Does the pattern element at *p match c? Moves *p past it. */
static bool
glob_one(const char **p, unsigned char c)
{
	const char *q = *p, *e;
	bool hit;

	switch (*q) {
	case '?':
		*p = q + 1;
		return true;
	case '[':
		if ((e = glob_set(q + 1, c, &hit)) != NULL) {
			*p = e;
			return hit;
		}
		break;
	case '\\':
		if (q[1] != '\0')
			q++;
		break;
	}
	*p = q + 1;
	return (unsigned char)*q == c;
}

/* Greedy with one backtrack point: enough for '*' and O(len * len). */
bool
pkey_glob_match(const char *pat, const char *s)
{
	const char *star_p = NULL, *star_s = NULL, *p = pat, *q;

	while (*s != '\0') {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		q = p;
		if (*p != '\0' && glob_one(&q, (unsigned char)*s)) {
			p = q;
			s++;
			continue;
		}
		if (star_p == NULL)
			return false;
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

void
pkey_gid_format(const uint8_t gid[16], char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

/* ---- resolution ------------------------------------------------------ */

struct guid_port {
	uint64_t guid;
	uint32_t port;
};

struct alias_state {
	uint64_t guid;
	uint32_t port;          /* physical port */
	uint8_t state;
	uint8_t own_table;      /* a vport with its own P_Key table */
};

struct resolver;
/* A member that names nothing in the fabric; why says how. */
typedef void miss_fn(struct resolver *r, const struct pkey_partition *pt,
    const struct pkey_member *m, const char *why);

struct resolver {
	const struct fabric *f;
	const struct pkey_opts *o;
	uint32_t *ends;         /* end ports, in port order */
	size_t nends;
	struct guid_port *byguid;       /* end ports by GUID */
	uint8_t *state;         /* [nports] membership in the partition */
	uint32_t *touched;      /* ports with state != 0 */
	size_t ntouched;
	struct alias_state *al;
	size_t nal, alcap;
	miss_fn *miss;
	void *arg;              /* for miss */
	uint32_t sm_forced;     /* SM port made a full Default member, or NONE */
};

static int
guid_port_cmp(const void *a, const void *b)
{
	const struct guid_port *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static void
resolver_init(struct resolver *r, const struct fabric *f,
    const struct pkey_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->o = o;
	r->ends = xcalloc(f->nports, sizeof(*r->ends));
	r->byguid = xcalloc(f->nports, sizeof(*r->byguid));
	for (uint32_t p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p)) {
			r->byguid[r->nends].guid = f->ports[p].guid;
			r->byguid[r->nends].port = p;
			r->ends[r->nends++] = p;
		}
	qsort(r->byguid, r->nends, sizeof(*r->byguid), guid_port_cmp);
	r->state = xcalloc(f->nports, 1);
	r->touched = xcalloc(f->nports, sizeof(*r->touched));
	r->sm_forced = FABRIC_NONE;
}

static void
resolver_fini(struct resolver *r)
{
	free(r->ends);
	free(r->byguid);
	free(r->state);
	free(r->touched);
	free(r->al);
}

/* First index in byguid with a GUID >= guid. */
static size_t
lower_bound(const struct resolver *r, uint64_t guid)
{
	size_t lo = 0, hi = r->nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->byguid[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
set_state(struct resolver *r, uint32_t p, uint8_t membership)
{
	if (r->state[p] == 0)
		r->touched[r->ntouched++] = p;
	r->state[p] = membership;
}

static void
reset_states(struct resolver *r)
{
	for (size_t i = 0; i < r->ntouched; i++)
		r->state[r->touched[i]] = 0;
	r->ntouched = 0;
	r->nal = 0;
}

static uint8_t
node_type_of(const struct fabric *f, uint32_t p)
{
	return f->nodes[f->ports[p].node].type;
}

/* A GUID no end port has: a VF alias, a node GUID, or absent. */
static bool
resolve_other_guid(struct resolver *r, const struct pkey_partition *pt,
    const struct pkey_member *m)
{
	const struct fabric *f = r->f;
	uint32_t phys, n;
	char why[160];
	size_t i;

	if (r->o != NULL && r->o->alias_port != NULL &&
	    (phys = r->o->alias_port(r->o->alias_arg, m->lo)) != FABRIC_NONE &&
	    phys < f->nports && fabric_port_is_endport(f, phys)) {
		for (i = 0; i < r->nal; i++)
			if (r->al[i].guid == m->lo)
				break;
		if (i == r->nal) {
			if (r->nal == r->alcap) {
				r->alcap = r->alcap ? 2 * r->alcap : 8;
				r->al = xreallocarray(r->al, r->alcap,
				    sizeof(*r->al));
			}
			r->al[r->nal++] = (struct alias_state){ m->lo, phys, 0,
			    r->o->alias_own_table != NULL &&
			    r->o->alias_own_table(r->o->alias_arg, m->lo) };
		}
		r->al[i].state = m->membership;
		return true;
	}
	n = fabric_node_by_guid(f, m->lo);
	if (n != FABRIC_NONE && f->nodes[n].type != NODE_SWITCH)
		snprintf(why, sizeof(why), "0x%016" PRIx64 " is the node GUID "
		    "of %s \"%s\", not a port GUID", m->lo,
		    fabric_node_type_name(f->nodes[n].type),
		    f->nodes[n].desc_valid ? f->nodes[n].desc : "");
	else
		snprintf(why, sizeof(why), "port GUID 0x%016" PRIx64 " is not "
		    "in the fabric", m->lo);
	if (r->miss != NULL)
		r->miss(r, pt, m, why);
	return false;
}

/* Last entry naming a port wins (OpenSM's rule); returns ports named. */
static size_t
resolve_member(struct resolver *r, const struct pkey_partition *pt,
    const struct pkey_member *m)
{
	const struct fabric *f = r->f;
	size_t hits = 0, i;
	uint32_t p;

	switch (m->kind) {
	case MK_ALL:
	case MK_ALL_CAS:
	case MK_ALL_SWITCHES:
	case MK_ALL_ROUTERS:
		for (i = 0; i < r->nends; i++) {
			uint8_t t = node_type_of(f, r->ends[i]);

			if (m->kind == MK_ALL ||
			    (m->kind == MK_ALL_CAS && t == NODE_CA) ||
			    (m->kind == MK_ALL_SWITCHES && t == NODE_SWITCH) ||
			    (m->kind == MK_ALL_ROUTERS && t == NODE_ROUTER)) {
				set_state(r, r->ends[i], m->membership);
				hits++;
			}
		}
		return hits;
	case MK_SELF:
		if (f->sm_port != FABRIC_NONE && f->sm_port < f->nports &&
		    fabric_port_is_endport(f, f->sm_port)) {
			set_state(r, f->sm_port, m->membership);
			return 1;
		}
		if (r->miss != NULL)
			r->miss(r, pt, m, "SELF: the SM's own port is not known");
		return 0;
	case MK_GUID:
	case MK_RANGE:
		for (i = lower_bound(r, m->lo);
		    i < r->nends && r->byguid[i].guid <= m->hi; i++) {
			set_state(r, r->byguid[i].port, m->membership);
			hits++;
		}
		if (hits == 0 && m->kind == MK_GUID)
			return resolve_other_guid(r, pt, m) ? 1 : 0;
		if (hits == 0 && r->miss != NULL)
			r->miss(r, pt, m, "no port GUID in the fabric is in "
			    "this range");
		return hits;
	case MK_DESC:
		for (uint32_t n = 0; n < f->nnodes; n++) {
			const struct fabric_node *nd = &f->nodes[n];

			if (!nd->desc_valid || !pkey_glob_match(m->pattern,
			    nd->desc))
				continue;
			for (p = nd->port0; p <= nd->port0 + nd->nports; p++)
				if (fabric_port_is_endport(f, p)) {
					set_state(r, p, m->membership);
					hits++;
				}
		}
		if (hits == 0 && r->miss != NULL)
			r->miss(r, pt, m, "no node description in the fabric "
			    "matches");
		return hits;
	}
	return 0;
}

/* States of every port for partition pt (reset before). The SM's port is
 * always a full member of the Default partition: without it hosts could
 * not reach Subnet Administration. */
static void
resolve_partition(struct resolver *r, const struct pkey_partition *pt)
{
	const struct fabric *f = r->f;

	reset_states(r);
	for (size_t i = 0; i < pt->nmembers; i++)
		resolve_member(r, pt, &pt->members[i]);
	/* the functions behind one physical port add up (vports with a
	 * table of their own: only at the switch port facing it, below) */
	for (size_t i = 0; i < r->nal; i++) {
		uint8_t s = r->state[r->al[i].port];

		if (!r->al[i].own_table)
			set_state(r, r->al[i].port,
			    (uint8_t)(s | r->al[i].state));
	}
	r->sm_forced = FABRIC_NONE;
	if (pt->pkey == PKEY_DEFAULT && f->sm_port != FABRIC_NONE &&
	    f->sm_port < f->nports && fabric_port_is_endport(f, f->sm_port) &&
	    !(r->state[f->sm_port] & PKEY_FULL_MEMBER)) {
		set_state(r, f->sm_port,
		    (uint8_t)(r->state[f->sm_port] | PKEY_FULL_MEMBER));
		r->sm_forced = f->sm_port;
	}
}

/* ---- the normalized text --------------------------------------------- */

static const char *
membership_name(uint8_t m)
{
	switch (m) {
	case PKEY_LIMITED: return "limited";
	case PKEY_FULL_MEMBER: return "full";
	case PKEY_BOTH: return "both";
	}
	return "none";
}

static void
put_member(struct pkey_buf *b, const struct pkey_member *m)
{
	static const char *const kw[] = { "ALL", "ALL_CAS", "ALL_SWITCHES",
	    "ALL_ROUTERS", "SELF" };

	switch (m->kind) {
	case MK_GUID:
		pkey_buf_printf(b, "0x%016" PRIx64, m->lo);
		break;
	case MK_RANGE:
		pkey_buf_printf(b, "0x%016" PRIx64 "-0x%016" PRIx64, m->lo,
		    m->hi);
		break;
	case MK_DESC:
		pkey_buf_printf(b, "\"%s\"", m->pattern);
		break;
	default:
		pkey_buf_printf(b, "%s", kw[m->kind]);
	}
}

static void
put_scopes(struct pkey_buf *b, uint16_t mask)
{
	for (unsigned s = 0; s < 16; s++)
		if (mask & (1u << s))
			pkey_buf_printf(b, ", scope=%u", s);
}

/* The flags a partition's statements set, in a fixed order. */
static void
put_partition_flags(struct pkey_buf *b, const struct pkey_partition *pt)
{
	const struct pkey_group_flags *f = &pt->flags;

	if (pt->ipoib)
		pkey_buf_printf(b, ", ipoib");
	if (pt->indx0)
		pkey_buf_printf(b, ", indx0");
	if (f->set & PKEY_GF_MTU)
		pkey_buf_printf(b, ", mtu=%u", f->mtu);
	if (f->set & PKEY_GF_RATE)
		pkey_buf_printf(b, ", rate=%u", f->rate);
	if (f->set & PKEY_GF_SL)
		pkey_buf_printf(b, ", sl=%u", f->sl);
	if (f->set & PKEY_GF_SCOPE)
		put_scopes(b, f->scope_mask);
	if (f->set & PKEY_GF_QKEY)
		pkey_buf_printf(b, ", Q_Key=0x%08" PRIx32, f->qkey);
	if (f->set & PKEY_GF_TCLASS)
		pkey_buf_printf(b, ", TClass=%u", f->tclass);
	if (f->set & PKEY_GF_FLOWLABEL)
		pkey_buf_printf(b, ", FlowLabel=0x%05" PRIx32, f->flow_label);
}

/* Every effective value of a group, so that nothing is left implicit. */
static void
put_group_flags(struct pkey_buf *b, const struct pkey_group_flags *f)
{
	pkey_buf_printf(b, ", mtu=%u, rate=%u, sl=%u", f->mtu, f->rate, f->sl);
	put_scopes(b, f->scope_mask);
	if (f->qkey != 0)
		pkey_buf_printf(b, ", Q_Key=0x%08" PRIx32, f->qkey);
	pkey_buf_printf(b, ", TClass=%u, FlowLabel=0x%05" PRIx32, f->tclass,
	    f->flow_label);
}

static void
put_ipoib_comment(struct pkey_buf *b, const struct pkey_partition *pt)
{
	const struct pkey_group_flags *f = &pt->flags;
	uint8_t gid[16] = { 0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff, 0xff, 0xff };
	char text[64];

	gid[4] = (uint8_t)((pt->pkey | PKEY_FULL) >> 8);
	gid[5] = (uint8_t)pt->pkey;
	for (unsigned s = 0; s < 16; s++) {
		if (!(f->scope_mask & (1u << s)))
			continue;
		gid[1] = (uint8_t)(0x10 | s);
		pkey_gid_format(gid, text, sizeof(text));
		pkey_buf_printf(b, "# IPoIB broadcast group %s: mtu %u (%s "
		    "bytes), rate %u (%s Gb/s), sl %u, Q_Key 0x%08" PRIx32 "\n",
		    text, f->mtu, pkey_mtu_bytes(f->mtu), f->rate,
		    pkey_rate_gbps(f->rate), f->sl,
		    f->qkey ? f->qkey : PKEY_IPOIB_QKEY);
	}
}

struct format_ctx {
	struct pkey_buf *b;
};

static void
format_miss(struct resolver *r, const struct pkey_partition *pt,
    const struct pkey_member *m, const char *why)
{
	struct format_ctx *c = r->arg;

	(void)pt;
	pkey_buf_printf(c->b, "#   names nothing (line %u): %s\n", m->line,
	    why);
}

static void
put_resolved(struct pkey_buf *b, struct resolver *r,
    const struct pkey_partition *pt)
{
	const struct fabric *f = r->f;
	struct guid_port *ports;

	pkey_buf_printf(b, "# in this fabric:\n");
	resolve_partition(r, pt);
	ports = xcalloc(r->ntouched, sizeof(*ports));
	for (size_t i = 0; i < r->ntouched; i++) {
		ports[i].port = r->touched[i];
		ports[i].guid = f->ports[r->touched[i]].guid;
	}
	qsort(ports, r->ntouched, sizeof(*ports), guid_port_cmp);
	for (size_t i = 0; i < r->ntouched; i++) {
		const struct fabric_port *p = &f->ports[ports[i].port];
		const struct fabric_node *n = &f->nodes[p->node];

		pkey_buf_printf(b, "#   0x%016" PRIx64 " port %-3u %-7s %s "
		    "\"%s\"%s\n", p->guid, p->num,
		    membership_name(r->state[ports[i].port]),
		    fabric_node_type_name(n->type), n->desc_valid ? n->desc : "",
		    ports[i].port == r->sm_forced ? " (the SM's port: always full)" :
		    "");
	}
	if (r->ntouched == 0)
		pkey_buf_printf(b, "#   no port\n");
	free(ports);
}

/* Member j of pt names what a later member names too. */
static bool
written_again(const struct pkey_partition *pt, size_t j)
{
	const struct pkey_member *a = &pt->members[j];

	for (size_t k = j + 1; k < pt->nmembers; k++) {
		const struct pkey_member *b = &pt->members[k];

		if (a->kind == b->kind && a->lo == b->lo && a->hi == b->hi &&
		    (a->kind != MK_DESC || strcmp(a->pattern, b->pattern) == 0))
			return true;
	}
	return false;
}

char *
pkey_policy_format(const struct pkey_policy *p, const struct fabric *f)
{
	struct pkey_buf b = { 0 };
	struct format_ctx ctx = { &b };
	struct resolver r;
	char text[64];

	if (f != NULL) {
		resolver_init(&r, f, NULL);
		r.miss = format_miss;
		r.arg = &ctx;
	}
	pkey_buf_printf(&b, "# partitions.conf as ibsmd reads it (ibsmd -nv)\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct pkey_partition *pt = &p->v[i];
		size_t nm = 0;

		pkey_buf_printf(&b, "\n");
		if (pt->implicit)
			pkey_buf_printf(&b, "# not in the file: added by "
			    "ibsmd, as OpenSM does\n");
		if (pt->generated)
			pkey_buf_printf(&b, "# P_Key generated: the file gives "
			    "none\n");
		if (pt->ipoib)
			put_ipoib_comment(&b, pt);
		if (pt->name != NULL)
			pkey_buf_printf(&b, "%s=0x%04x", pt->name, pt->pkey);
		else
			pkey_buf_printf(&b, "0x%04x", pt->pkey);
		put_partition_flags(&b, pt);
		pkey_buf_printf(&b, " :\n");
		for (size_t j = 0; j < pt->nmgroups; j++) {
			pkey_gid_format(pt->mgroups[j].mgid, text, sizeof(text));
			pkey_buf_printf(&b, "\tmgid=%s", text);
			put_group_flags(&b, &pt->mgroups[j].flags);
			pkey_buf_printf(&b, "\n");
		}
		for (size_t j = 0; j < pt->nmembers; j++) {
			/* a member written again later: the later one counts
			 * (last entry wins), printed once, there */
			if (written_again(pt, j))
				continue;
			pkey_buf_printf(&b, "%s\t", nm++ ? ",\n" : "");
			put_member(&b, &pt->members[j]);
			pkey_buf_printf(&b, "=%s",
			    membership_name(pt->members[j].membership));
		}
		pkey_buf_printf(&b, "%s;\n", nm ? "" : "\tNONE");
		if (f != NULL)
			put_resolved(&b, &r, pt);
	}
	if (f != NULL)
		resolver_fini(&r);
	return b.s;
}

/* ---- P_Key tables ---------------------------------------------------- */

struct want {
	uint32_t port;
	uint16_t key;
	bool indx0;
	unsigned line;          /* the partition's first statement */
};

struct builder {
	const struct fabric *f;
	const struct pkey_policy *pol;
	const struct pkey_opts *o;
	const struct pkey_tables *prev;
	pkey_note_fn *note;
	void *note_arg;
	struct resolver r;
	struct want *w;
	size_t nw, wcap;
	/* keys of vports with tables of their own, by physical port: what
	 * the switch port facing it must also let through */
	struct want *ew;
	size_t new, ewcap;
	struct pkey_tables *out;
	size_t outcap;
	uint32_t *table_of;     /* [nports] index in out, or FABRIC_NONE */
	int short_tables;
	uint8_t seen[0x8000];   /* build_enforce_table(): by base P_Key; all
				 * zero between calls */
};

static void __attribute__((format(printf, 3, 4)))
note(struct builder *bd, enum pkey_note_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (bd->note == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bd->note(bd->note_arg, level, msg);
}

static const char *
part_name(const struct pkey_partition *pt, char *buf, size_t len)
{
	if (pt->name != NULL)
		snprintf(buf, len, "partition '%s' (0x%04x)", pt->name, pt->pkey);
	else
		snprintf(buf, len, "partition 0x%04x", pt->pkey);
	return buf;
}

static const char *
port_name(const struct fabric *f, uint32_t p, char *buf, size_t len)
{
	const struct fabric_port *port = &f->ports[p];
	const struct fabric_node *n = &f->nodes[port->node];

	snprintf(buf, len, "%s 0x%016" PRIx64 " port %u%s%s%s",
	    fabric_node_type_name(n->type), n->guid, port->num,
	    n->desc_valid ? " (" : "", n->desc_valid ? n->desc : "",
	    n->desc_valid ? ")" : "");
	return buf;
}

static void
build_miss(struct resolver *r, const struct pkey_partition *pt,
    const struct pkey_member *m, const char *why)
{
	struct builder *bd = r->arg;
	char pn[96];

	note(bd, PKEY_NOTE_INFO, "%s, line %u: %s (it may join "
	    "later)", part_name(pt, pn, sizeof(pn)), m->line, why);
}

static void
want_add(struct builder *bd, uint32_t port, uint16_t key,
    const struct pkey_partition *pt)
{
	if (bd->nw == bd->wcap) {
		bd->wcap = bd->wcap ? 2 * bd->wcap : 256;
		bd->w = xreallocarray(bd->w, bd->wcap, sizeof(*bd->w));
	}
	bd->w[bd->nw++] = (struct want){ port, key, pt->indx0, pt->line };
}

static void
enforce_want_add(struct builder *bd, uint32_t port, uint16_t key,
    const struct pkey_partition *pt)
{
	if (bd->new == bd->ewcap) {
		bd->ewcap = bd->ewcap ? 2 * bd->ewcap : 64;
		bd->ew = xreallocarray(bd->ew, bd->ewcap, sizeof(*bd->ew));
	}
	bd->ew[bd->new++] = (struct want){ port, key, pt->indx0, pt->line };
}

/* Resolve every partition into wants, in ascending P_Key (full form
 * first); sorted by port afterwards, stably. */
static void
collect_wants(struct builder *bd)
{
	const struct fabric *f = bd->f;
	struct resolver *r = &bd->r;
	bool both = bd->o != NULL && bd->o->allow_both;
	char pn[96];

	for (size_t i = 0; i < bd->pol->n; i++) {
		const struct pkey_partition *pt = &bd->pol->v[i];

		resolve_partition(r, pt);
		if (r->sm_forced != FABRIC_NONE)
			note(bd, PKEY_NOTE_WARN, "the Default "
			    "partition does not make the SM's port %s a full "
			    "member; it is one all the same, or hosts could not "
			    "reach Subnet Administration",
			    port_name(f, r->sm_forced, pn, sizeof(pn)));
		if (pt->pkey == PKEY_DEFAULT && r->ntouched < r->nends) {
			uint32_t first = FABRIC_NONE;

			for (size_t j = 0; j < r->nends && first == FABRIC_NONE;
			    j++)
				if (r->state[r->ends[j]] == 0)
					first = r->ends[j];
			note(bd, PKEY_NOTE_WARN, "%zu end port(s) "
			    "are not members of the Default partition (0x7fff) "
			    "and cannot reach Subnet Administration, e.g. %s",
			    r->nends - r->ntouched,
			    port_name(f, first, pn, sizeof(pn)));
		}
		for (size_t j = 0; j < r->ntouched; j++) {
			uint32_t p = r->touched[j];
			uint8_t s = r->state[p];

			if (s & PKEY_FULL_MEMBER)
				want_add(bd, p, (uint16_t)(pt->pkey | PKEY_FULL),
				    pt);
			if ((s & PKEY_LIMITED) &&
			    (both || !(s & PKEY_FULL_MEMBER)))
				want_add(bd, p, pt->pkey, pt);
		}
		for (size_t j = 0; j < r->nal; j++) {
			const struct alias_state *a = &r->al[j];

			if (!a->own_table || a->state == 0)
				continue;
			enforce_want_add(bd, a->port, (uint16_t)(pt->pkey |
			    (a->state & PKEY_FULL_MEMBER ? PKEY_FULL : 0)), pt);
		}
	}
	reset_states(r);
}

/* Stable counting sort of the wants by port. Counted into start[p + 2],
 * summed so that start[p + 1] is where port p begins, then filled through
 * start + 1, which leaves port p at start[p] .. start[p + 1]. */
static uint32_t *
wants_by_port(struct builder *bd)
{
	uint32_t n = bd->f->nports, *start = xcalloc(n + 2, sizeof(*start));
	struct want *sorted = xcalloc(bd->nw, sizeof(*sorted));
	uint32_t *fill;

	for (size_t i = 0; i < bd->nw; i++)
		start[bd->w[i].port + 2]++;
	for (uint32_t p = 0; p < n; p++)
		start[p + 2] += start[p + 1];
	fill = start + 1;
	for (size_t i = 0; i < bd->nw; i++)
		sorted[fill[bd->w[i].port]++] = bd->w[i];
	free(bd->w);
	bd->w = sorted;
	return start;
}

/* The key of keys[0..n) equal to k (base only when by_base), not taken. */
static long
find_key(const uint16_t *keys, const bool *taken, size_t n, uint16_t k,
    bool by_base)
{
	for (size_t i = 0; i < n; i++)
		if (!taken[i] && (by_base ? PKEY_BASE(keys[i]) == PKEY_BASE(k) :
		    keys[i] == k))
			return (long)i;
	return -1;
}

/*
 * keys[0..n) into out[0..cap): k0 (if any, 0 = none) at index 0, which
 * nothing else takes when reserve0; keys prev had keep their index (exact
 * match first, then same P_Key in another membership); the rest fill the
 * lowest free indices in the order given. What does not fit goes to drop[];
 * returns how many.
 */
static size_t
place(const uint16_t *keys, size_t n, uint16_t k0, bool reserve0,
    const struct pkey_table *prev, uint16_t *out, uint16_t cap,
    uint16_t *drop)
{
	bool *taken = xcalloc(n, sizeof(*taken));
	bool *used = xcalloc(cap, sizeof(*used));
	size_t ndrop = 0, i, first = 0, pcap;
	long j;

	memset(out, 0, cap * sizeof(*out));
	if (reserve0) {
		first = 1;
		j = k0 ? find_key(keys, taken, n, k0, false) : -1;
		if (j >= 0 && cap > 0) {
			out[0] = k0;
			taken[j] = true;
		}
		if (cap > 0)
			used[0] = true;
	}
	pcap = prev != NULL ? (prev->cap < cap ? prev->cap : cap) : 0;
	for (int pass = 0; pass < 2; pass++)
		for (i = first; i < pcap; i++) {
			if (used[i] || prev->keys[i] == 0)
				continue;
			j = find_key(keys, taken, n, prev->keys[i], pass == 1);
			if (j < 0)
				continue;
			out[i] = keys[j];
			used[i] = taken[j] = true;
		}
	i = first;
	for (size_t k = 0; k < n; k++) {
		if (taken[k])
			continue;
		while (i < cap && used[i])
			i++;
		if (i < cap) {
			out[i] = keys[k];
			used[i++] = true;
		} else {
			drop[ndrop++] = keys[k];
		}
	}
	free(taken);
	free(used);
	return ndrop;
}

static struct pkey_table *
table_new(struct builder *bd, uint32_t p, uint8_t kind, uint16_t cap)
{
	struct pkey_tables *out = bd->out;
	struct pkey_table *t;

	if (out->n == bd->outcap) {
		bd->outcap = bd->outcap ? 2 * bd->outcap : 64;
		out->v = xreallocarray(out->v, bd->outcap, sizeof(*out->v));
	}
	t = &out->v[out->n];
	memset(t, 0, sizeof(*t));
	t->guid = bd->f->ports[p].guid;
	t->port = p;
	t->num = bd->f->ports[p].num;
	t->kind = kind;
	t->cap = cap;
	t->keys = xcalloc(cap, sizeof(*t->keys));
	bd->table_of[p] = (uint32_t)out->n++;
	return t;
}

static void
list_keys(char *buf, size_t len, const uint16_t *keys, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off + 16 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " 0x%04x", keys[i]);
	if (off + 16 >= len)
		snprintf(buf + off, len - off, " ...");
}

/* Index 0: the indx0 partition first in the file, else Default. */
static uint16_t
index0_key(struct builder *bd, uint32_t p, const struct want *w, size_t n)
{
	const struct want *best = NULL;
	uint16_t k0 = 0;
	char pn[160];
	size_t nindx0 = 0;

	for (size_t i = 0; i < n; i++)
		if (w[i].indx0) {
			if (best == NULL || w[i].line < best->line ||
			    (w[i].line == best->line &&
			    PKEY_BASE(w[i].key) == PKEY_BASE(best->key) &&
			    (w[i].key & PKEY_FULL)))
				best = &w[i];
			if (i == 0 || PKEY_BASE(w[i].key) !=
			    PKEY_BASE(w[i - 1].key))
				nindx0++;
		}
	if (best != NULL) {
		if (nindx0 > 1)
			note(bd, PKEY_NOTE_INFO, "%s is a member of "
			    "%zu indx0 partitions; 0x%04x, first in the file, "
			    "takes index 0", port_name(bd->f, p, pn, sizeof(pn)),
			    nindx0, best->key);
		return best->key;
	}
	for (size_t i = 0; i < n; i++)
		if (PKEY_BASE(w[i].key) == PKEY_DEFAULT &&
		    (k0 == 0 || (w[i].key & PKEY_FULL)))
			k0 = w[i].key;
	return k0;
}

static void
build_port_table(struct builder *bd, uint32_t p, const struct want *w,
    size_t n)
{
	const struct fabric *f = bd->f;
	const struct fabric_node *nd = &f->nodes[f->ports[p].node];
	uint16_t *keys = xcalloc(n, sizeof(*keys));
	uint16_t *drop = xcalloc(n, sizeof(*drop));
	const struct pkey_table *prev = NULL;
	struct pkey_table *t;
	char pn[160], list[160];

	for (size_t i = 0; i < n; i++)
		keys[i] = w[i].key;
	if (bd->prev != NULL)
		prev = pkey_tables_find(bd->prev, f->ports[p].guid,
		    f->ports[p].num);
	t = table_new(bd, p, PKEY_TABLE_PORT, nd->partition_cap);
	t->dropped = (uint16_t)place(keys, n, index0_key(bd, p, w, n), true,
	    prev, t->keys, t->cap, drop);
	if (t->dropped > 0) {
		bd->short_tables++;
		list_keys(list, sizeof(list), drop, t->dropped);
		note(bd, PKEY_NOTE_WARN, "%s: %u P_Key(s) do not "
		    "fit its PartitionCap of %u:%s",
		    port_name(f, p, pn, sizeof(pn)), t->dropped, t->cap, list);
	}
	free(keys);
	free(drop);
}

/* A switch port facing a CA or router: what that neighbour may send. A
 * limited key is left out where the full form is there (it covers it). */
static void
build_enforce_table(struct builder *bd, uint32_t p, const struct pkey_table *peer)
{
	const struct fabric *f = bd->f;
	const struct fabric_node *nd = &f->nodes[f->ports[p].node];
	uint16_t *keys = xcalloc(peer->cap, sizeof(*keys));
	uint16_t *drop = xcalloc(peer->cap, sizeof(*drop));
	const struct pkey_table *prev = NULL;
	struct pkey_table *t;
	size_t n = 0;
	char pn[160];

	/* Two passes over a bitmap of the P_Keys seen (2 bits per base key:
	 * full, limited) instead of comparing every entry with every other:
	 * this runs for every CA-facing switch port of every heavy sweep. */
	for (size_t i = 0; i < peer->cap; i++)
		if (peer->keys[i] != 0)
			bd->seen[PKEY_BASE(peer->keys[i])] |=
			    peer->keys[i] & PKEY_FULL ? 1 : 2;
	for (size_t i = 0; i < peer->cap; i++) {
		uint16_t k = peer->keys[i];
		uint8_t *seen = &bd->seen[PKEY_BASE(k)];

		if (k == 0)
			continue;
		/* first of its form, and a limited key only without the full */
		if ((k & PKEY_FULL) ? (*seen & 4) : (*seen & (1 | 8)))
			continue;
		*seen |= k & PKEY_FULL ? 4 : 8;
		keys[n++] = k;
	}
	for (size_t i = 0; i < peer->cap; i++)
		bd->seen[PKEY_BASE(peer->keys[i])] = 0;
	if (bd->prev != NULL)
		prev = pkey_tables_find(bd->prev, f->ports[p].guid,
		    f->ports[p].num);
	t = table_new(bd, p, PKEY_TABLE_ENFORCE, nd->enforce_cap);
	t->dropped = (uint16_t)place(keys, n, 0, false, prev, t->keys, t->cap,
	    drop);
	t->enforce = t->dropped == 0;
	if (t->dropped > 0) {
		bd->short_tables++;
		note(bd, PKEY_NOTE_WARN, "%s: the %zu P_Key(s) of "
		    "its neighbour do not fit its PartitionEnforcementCap of %u; "
		    "partition enforcement stays off on this port",
		    port_name(f, p, pn, sizeof(pn)), n, t->cap);
	}
	free(keys);
	free(drop);
}

static int
want_port_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return (int)x->key - (int)y->key;
}

/* The enforcement table of switch port p facing end port q: q's table and
 * the keys of q's vports that have tables of their own (ew[from..]). */
static void
build_enforce_with_vports(struct builder *bd, uint32_t p, uint32_t q,
    const struct pkey_table *peer)
{
	struct pkey_table all = *peer;
	size_t lo = 0, hi = bd->new, i, n;

	while (lo < hi) {               /* the first extra of port q */
		size_t mid = lo + (hi - lo) / 2;

		if (bd->ew[mid].port < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	for (n = 0; i + n < bd->new && bd->ew[i + n].port == q; n++)
		;
	if (n == 0) {
		build_enforce_table(bd, p, peer);
		return;
	}
	all.keys = xcalloc((size_t)peer->cap + n, sizeof(*all.keys));
	memcpy(all.keys, peer->keys, peer->cap * sizeof(*all.keys));
	for (size_t j = 0; j < n; j++)
		all.keys[peer->cap + j] = bd->ew[i + j].key;
	all.cap = (uint16_t)(peer->cap + n);
	build_enforce_table(bd, p, &all);
	free(all.keys);
}

static int
table_cmp(const void *a, const void *b)
{
	const struct pkey_table *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->num - (int)y->num;
}

int
pkey_tables_build(const struct pkey_policy *p, const struct fabric *f,
    const struct pkey_tables *prev, const struct pkey_opts *opts,
    struct pkey_tables *out, pkey_note_fn *note_cb, void *note_arg)
{
	struct builder bd = { .f = f, .pol = p, .o = opts, .prev = prev,
	    .note = note_cb, .note_arg = note_arg, .out = out };
	uint32_t *start;

	memset(out, 0, sizeof(*out));
	resolver_init(&bd.r, f, opts);
	bd.r.miss = build_miss;
	bd.r.arg = &bd;
	bd.table_of = xmalloc((f->nports + 1) * sizeof(*bd.table_of));
	for (uint32_t i = 0; i < f->nports; i++)
		bd.table_of[i] = FABRIC_NONE;
	collect_wants(&bd);
	start = wants_by_port(&bd);
	/* by physical port, for the lookups of build_enforce_with_vports */
	if (bd.new > 1)
		qsort(bd.ew, bd.new, sizeof(*bd.ew), want_port_cmp);
	for (size_t i = 0; i < bd.r.nends; i++) {
		uint32_t port = bd.r.ends[i];

		build_port_table(&bd, port, bd.w + start[port],
		    start[port + 1] - start[port]);
	}
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct fabric_node *nd = &f->nodes[n];

		if (nd->type != NODE_SWITCH || nd->enforce_cap == 0)
			continue;
		for (uint32_t port = nd->port0 + 1;
		    port <= nd->port0 + nd->nports; port++) {
			uint32_t q = f->ports[port].peer;

			if (q == FABRIC_NONE || q >= f->nports ||
			    node_type_of(f, q) == NODE_SWITCH ||
			    bd.table_of[q] == FABRIC_NONE)
				continue;
			/* out->v may move as tables are added: copy */
			struct pkey_table peer = out->v[bd.table_of[q]];

			build_enforce_with_vports(&bd, port, q, &peer);
		}
	}
	qsort(out->v, out->n, sizeof(*out->v), table_cmp);
	free(start);
	free(bd.w);
	free(bd.ew);
	free(bd.table_of);
	resolver_fini(&bd.r);
	return bd.short_tables;
}

void
pkey_tables_free(struct pkey_tables *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].keys);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void
pkey_tables_sort(struct pkey_tables *t)
{
	qsort(t->v, t->n, sizeof(*t->v), table_cmp);
}

const struct pkey_table *
pkey_tables_find(const struct pkey_tables *t, uint64_t guid, uint8_t num)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pkey_table *x = &t->v[mid];

		if (x->guid == guid && x->num == num)
			return x;
		if (x->guid < guid || (x->guid == guid && x->num < num))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- vports (vSwitch SR-IOV) ----------------------------------------- */

/* The membership a partition gives a vport: the last member naming it. */
static uint8_t
vport_membership(const struct pkey_partition *pt, uint64_t guid,
    const char *desc)
{
	uint8_t s = 0;

	for (size_t i = 0; i < pt->nmembers; i++) {
		const struct pkey_member *m = &pt->members[i];

		switch (m->kind) {
		case MK_ALL:
		case MK_ALL_CAS:
			s = m->membership;
			break;
		case MK_GUID:
		case MK_RANGE:
			if (guid >= m->lo && guid <= (m->kind == MK_GUID ?
			    m->lo : m->hi))
				s = m->membership;
			break;
		case MK_DESC:
			if (desc != NULL && desc[0] != '\0' &&
			    pkey_glob_match(m->pattern, desc))
				s = m->membership;
			break;
		default:
			break;
		}
	}
	return s;
}

size_t
pkey_vport_table(const struct pkey_policy *p, uint64_t guid,
    const char *desc, bool allow_both, const uint16_t *prev, uint16_t nprev,
    uint16_t *out, uint16_t cap)
{
	uint16_t *keys = xcalloc(2 * p->n + 1, sizeof(*keys));
	uint16_t *drop = xcalloc(2 * p->n + 1, sizeof(*drop));
	struct pkey_table pt = { .keys = (uint16_t *)prev, .cap = nprev };
	uint16_t k0 = 0, kdef = 0;
	unsigned k0_line = 0;
	size_t n = 0, ndrop;

	for (size_t i = 0; i < p->n; i++) {
		const struct pkey_partition *part = &p->v[i];
		uint8_t s = vport_membership(part, guid, desc);
		uint16_t full = (uint16_t)(part->pkey | PKEY_FULL);

		if (s == 0)
			continue;
		if (s & PKEY_FULL_MEMBER)
			keys[n++] = full;
		if ((s & PKEY_LIMITED) && (allow_both || !(s & PKEY_FULL_MEMBER)))
			keys[n++] = part->pkey;
		/* index 0: the indx0 partition first in the file, else
		 * Default (full form preferred) */
		if (part->indx0 && (k0 == 0 || part->line < k0_line)) {
			k0 = (s & PKEY_FULL_MEMBER) ? full : part->pkey;
			k0_line = part->line;
		}
		if (part->pkey == PKEY_DEFAULT)
			kdef = (s & PKEY_FULL_MEMBER) ? full : part->pkey;
	}
	ndrop = place(keys, n, k0 ? k0 : kdef, true, prev != NULL ? &pt : NULL,
	    out, cap, drop);
	free(keys);
	free(drop);
	return ndrop;
}

/* ---- members and ports, for ibsmctl ----------------------------------- */

const char *
pkey_membership_name(unsigned m)
{
	return membership_name((uint8_t)m);
}

int
pkey_member_format(const struct pkey_partition *pt, size_t j, char *buf,
    size_t len)
{
	struct pkey_buf b = { 0 };
	int n;

	if (j >= pt->nmembers)
		return -1;
	put_member(&b, &pt->members[j]);
	n = snprintf(buf, len, "%s", b.s ? b.s : "");
	free(b.s);
	return n;
}

unsigned
pkey_member_membership(const struct pkey_partition *pt, size_t j)
{
	return j < pt->nmembers ? pt->members[j].membership : 0;
}

void
pkey_partition_ports(const struct pkey_partition *pt, const struct fabric *f,
    long member, pkey_port_fn *fn, void *arg)
{
	struct guid_port *ports;
	struct resolver r;

	resolver_init(&r, f, NULL);
	if (member < 0)
		resolve_partition(&r, pt);
	else if ((size_t)member < pt->nmembers)
		resolve_member(&r, pt, &pt->members[member]);
	ports = xcalloc(r.ntouched, sizeof(*ports));
	for (size_t i = 0; i < r.ntouched; i++) {
		ports[i].port = r.touched[i];
		ports[i].guid = f->ports[r.touched[i]].guid;
	}
	qsort(ports, r.ntouched, sizeof(*ports), guid_port_cmp);
	for (size_t i = 0; i < r.ntouched; i++)
		fn(arg, ports[i].port, r.state[ports[i].port],
		    ports[i].port == r.sm_forced);
	free(ports);
	resolver_fini(&r);
}

/* ---- what a reload changed ------------------------------------------- */

#define DIFF_NAMED_MAX 4        /* members named in one line */

static void
part_label(const struct pkey_partition *pt, char *buf, size_t len)
{
	if (pt->name != NULL)
		snprintf(buf, len, "%s=0x%04x", pt->name, pt->pkey);
	else
		snprintf(buf, len, "0x%04x", pt->pkey);
}

static char *
member_text(const struct pkey_member *m)
{
	struct pkey_buf b = { 0 };

	put_member(&b, m);
	pkey_buf_printf(&b, "=%s", membership_name(m->membership));
	return b.s;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **
member_texts(const struct pkey_partition *pt)
{
	char **v = xcalloc(pt->nmembers + 1, sizeof(*v));

	for (size_t i = 0; i < pt->nmembers; i++)
		v[i] = member_text(&pt->members[i]);
	qsort(v, pt->nmembers, sizeof(*v), str_cmp);
	return v;
}

static void
texts_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Members of a and b compared as sorted lists of "member=membership":
 * counts and the first few names of those only in b (+) and only in a
 * (-). Returns whether anything differs. */
static bool
diff_members(const struct pkey_partition *a, const struct pkey_partition *b,
    struct pkey_buf *out)
{
	char **x = member_texts(a), **y = member_texts(b);
	struct pkey_buf plus = { 0 }, minus = { 0 };
	size_t i = 0, j = 0, np = 0, nm = 0;
	int c;

	while (i < a->nmembers || j < b->nmembers) {
		c = i == a->nmembers ? 1 : j == b->nmembers ? -1 :
		    strcmp(x[i], y[j]);
		if (c == 0) {
			i++, j++;
		} else if (c < 0) {
			if (nm++ < DIFF_NAMED_MAX)
				pkey_buf_printf(&minus, " -%s", x[i]);
			i++;
		} else {
			if (np++ < DIFF_NAMED_MAX)
				pkey_buf_printf(&plus, " +%s", y[j]);
			j++;
		}
	}
	if (np > DIFF_NAMED_MAX)
		pkey_buf_printf(&plus, " ...");
	if (nm > DIFF_NAMED_MAX)
		pkey_buf_printf(&minus, " ...");
	if (np + nm > 0)
		pkey_buf_printf(out, "members +%zu -%zu (%s%s%s)", np, nm,
		    plus.s ? plus.s + 1 : "", plus.s && minus.s ? " " : "",
		    minus.s ? minus.s + 1 : "");
	free(plus.s);
	free(minus.s);
	texts_free(x, a->nmembers);
	texts_free(y, b->nmembers);
	return np + nm > 0;
}

/* Flags that differ, as "name old -> new" joined by ", ". */
static void
diff_flags(const struct pkey_partition *a, const struct pkey_partition *b,
    struct pkey_buf *out)
{
	const struct pkey_group_flags *x = &a->flags, *y = &b->flags;
	size_t start = out->len;
#define SEP (out->len > start ? ", " : "")

	if (a->ipoib != b->ipoib)
		pkey_buf_printf(out, "%sipoib %s -> %s", SEP,
		    a->ipoib ? "on" : "off", b->ipoib ? "on" : "off");
	if (a->indx0 != b->indx0)
		pkey_buf_printf(out, "%sindx0 %s -> %s", SEP,
		    a->indx0 ? "on" : "off", b->indx0 ? "on" : "off");
	if (x->mtu != y->mtu)
		pkey_buf_printf(out, "%smtu %u -> %u", SEP, x->mtu, y->mtu);
	if (x->rate != y->rate)
		pkey_buf_printf(out, "%srate %u -> %u", SEP, x->rate, y->rate);
	if (x->sl != y->sl)
		pkey_buf_printf(out, "%ssl %u -> %u", SEP, x->sl, y->sl);
	if (x->scope_mask != y->scope_mask)
		pkey_buf_printf(out, "%sscopes 0x%04x -> 0x%04x", SEP,
		    x->scope_mask, y->scope_mask);
	if (x->qkey != y->qkey)
		pkey_buf_printf(out, "%sQ_Key 0x%08" PRIx32 " -> 0x%08" PRIx32,
		    SEP, x->qkey, y->qkey);
	if (x->tclass != y->tclass)
		pkey_buf_printf(out, "%sTClass %u -> %u", SEP, x->tclass,
		    y->tclass);
	if (x->flow_label != y->flow_label)
		pkey_buf_printf(out, "%sFlowLabel 0x%05" PRIx32 " -> 0x%05"
		    PRIx32, SEP, x->flow_label, y->flow_label);
	if (a->nmgroups != b->nmgroups)
		pkey_buf_printf(out, "%smgid groups %zu -> %zu", SEP,
		    a->nmgroups, b->nmgroups);
	if ((a->name == NULL) != (b->name == NULL) ||
	    (a->name != NULL && strcmp(a->name, b->name) != 0))
		pkey_buf_printf(out, "%sname %s -> %s", SEP,
		    a->name ? a->name : "(none)", b->name ? b->name : "(none)");
#undef SEP
}

unsigned
pkey_policy_diff(const struct pkey_policy *a, const struct pkey_policy *b,
    pkey_diff_fn *fn, void *arg)
{
	size_t i = 0, j = 0;
	unsigned lines = 0;
	char label[160];

	while (i < a->n || j < b->n) {
		const struct pkey_partition *x = i < a->n ? &a->v[i] : NULL;
		const struct pkey_partition *y = j < b->n ? &b->v[j] : NULL;
		struct pkey_buf line = { 0 };

		if (y == NULL || (x != NULL && x->pkey < y->pkey)) {
			part_label(x, label, sizeof(label));
			pkey_buf_printf(&line, "partition %s removed (%zu member "
			    "entr%s)", label, x->nmembers,
			    x->nmembers == 1 ? "y" : "ies");
			i++;
		} else if (x == NULL || y->pkey < x->pkey) {
			part_label(y, label, sizeof(label));
			pkey_buf_printf(&line, "partition %s added (%zu member "
			    "entr%s)", label, y->nmembers,
			    y->nmembers == 1 ? "y" : "ies");
			j++;
		} else {
			struct pkey_buf m = { 0 }, f = { 0 };

			part_label(y, label, sizeof(label));
			diff_members(x, y, &m);
			diff_flags(x, y, &f);
			if (m.s != NULL || f.s != NULL)
				pkey_buf_printf(&line, "partition %s: %s%s%s%s",
				    label, m.s ? m.s : "", m.s && f.s ? "; " : "",
				    f.s ? "flags: " : "", f.s ? f.s : "");
			free(m.s);
			free(f.s);
			i++, j++;
		}
		if (line.s != NULL) {
			fn(arg, line.s);
			lines++;
		}
		free(line.s);
	}
	return lines;
}
