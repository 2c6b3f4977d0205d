/*
 * qos-policy.conf: scanner, grammar, checks, resolution and the -nv
 * printer. See partitions/qos.h. Facts about the format and the matching
 * are those of OpenSM 3.3.23 (osm_qos_parser_l.l, osm_qos_parser_y.y,
 * osm_qos_policy.c, doc/QoS_management_in_OpenSM.txt); where ibsmd is
 * stricter, qos.h says so.
 */
#include "partitions/qos.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fabric.h"
#include "partitions/policy.h"

#define QOS_MAX_RANGE_WALK      0x8000  /* P_Key ranges are walked */
#define NT_SELF                 (1u << 6)
#define NT_ALL                  (1u << 7)

struct rlist {
	struct qos_range *v;
	size_t n, cap;
};

struct pname {
	char *desc;
	uint8_t num;
};

struct group {
	char *name;             /* NULL: made for a qos-ulps rule */
	char *use;
	struct rlist guids;
	struct pname *pnames;
	size_t npnames, pnames_cap;
	char **parts;           /* partition names as written */
	size_t nparts, parts_cap;
	struct rlist pkeys;     /* pkey: lines, as written */
	struct rlist ppkeys;    /* the P_Keys of parts */
	unsigned types;         /* 1 << NODE_*, NT_SELF, NT_ALL */
	unsigned line, col;
};

/* Where a name is referred to, for the checks after the parse. */
struct ref {
	char *name;
	unsigned line, col;
};

enum ulp {
	ULP_NONE, ULP_ANY_SID, ULP_ANY_PKEY, ULP_ANY_TARGET, ULP_ANY_SOURCE,
	ULP_ANY_SOURCE_TARGET, ULP_SDP, ULP_SDP_PORT, ULP_RDS, ULP_RDS_PORT,
	ULP_ISER, ULP_ISER_PORT, ULP_SRP, ULP_IPOIB, ULP_IPOIB_PKEY,
};

struct rule {
	char *use;
	struct rlist classes, sids, pkeys;
	struct ref *src, *dst;          /* group names */
	size_t nsrc, ndst, src_cap, dst_cap;
	size_t *srcg, *dstg;            /* resolved group indices */
	struct ref level_name;          /* name NULL: none given */
	size_t level;                   /* index; ULP rules: into simple[] */
	enum ulp ulp;
	struct rlist ulp_vals;          /* a ULP rule's list as written */
	size_t ulp_group;               /* its generated group, or SIZE_MAX */
	unsigned line;
};

struct qos_policy {
	struct group *groups;
	size_t ngroups, groups_cap;
	struct qos_level *levels;
	size_t nlevels, levels_cap;
	struct rule *rules;             /* match rules, then qos-ulps rules */
	size_t nrules, rules_cap, nmatch;
	struct qos_level simple[16];    /* the levels of qos-ulps rules */
	struct qos_level ulp_default;
	bool has_ulp_default;
	const struct qos_level *def;
	bool setup;                     /* had a qos-setup section */
};

/* ---- small helpers ---------------------------------------------------- */

static void
rl_add(struct rlist *l, uint64_t lo, uint64_t hi)
{
	GROW(l->v, l->n, l->cap);
	l->v[l->n].lo = lo;
	l->v[l->n].hi = hi;
	l->n++;
}

static bool
rl_has(const struct rlist *l, uint64_t x)
{
	for (size_t i = 0; i < l->n; i++)
		if (x >= l->v[i].lo && x <= l->v[i].hi)
			return true;
	return false;
}

/* Names compare case aside and without blanks (OpenSM's scanner drops
 * blanks inside names). */
static bool
name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t')
			a++;
		while (*b == ' ' || *b == '\t')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		if (*a == '\0')
			return true;
		a++;
		b++;
	}
}

/* ---- the scanner: one line at a time ------------------------------------ */

struct parser {
	struct qos_policy *p;
	struct pkey_errors *e;
	const struct pkey_policy *parts;
	unsigned line;
	const char *lstart;             /* the line's first byte */
	/* the block being read */
	enum { B_TOP, B_GROUPS, B_GROUP, B_LEVELS, B_LEVEL, B_RULES, B_RULE,
	    B_ULPS, B_SETUP } blk;
	unsigned blk_line;
	unsigned setup_depth;
	/* keywords given once per block: bit per keyword */
	unsigned seen;
};

#define ERR(ps, s, ...) \
	pkey_msg_add((ps)->e, PKEY_MSG_ERROR, (ps)->line, col_of(ps, s), \
	    __VA_ARGS__)

static unsigned
col_of(const struct parser *ps, const char *s)
{
	return (unsigned)(s - ps->lstart) + 1;
}

/* A span of the line. */
struct tok {
	const char *s;
	size_t n;
};

static struct tok
trim(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
	    s[n - 1] == '\r'))
		n--;
	return (struct tok){ s, n };
}

static bool
tok_is(struct tok t, const char *w)
{
	return t.n == strlen(w) && memcmp(t.s, w, t.n) == 0;
}

static bool
tok_ieq(struct tok t, const char *w)
{
	return t.n == strlen(w) && strncasecmp(t.s, w, t.n) == 0;
}

/* A number: decimal or 0x hexadecimal, 64 bits. */
static bool
number(struct tok t, uint64_t *v)
{
	char buf[40], *end;

	if (t.n == 0 || t.n >= sizeof(buf) || !isdigit((unsigned char)t.s[0]))
		return false;
	memcpy(buf, t.s, t.n);
	buf[t.n] = '\0';
	errno = 0;
	if (t.n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		*v = strtoull(buf + 2, &end, 16);
	else
		*v = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0' && end != buf;
}

/* Split t at commas: fn gets each item, trimmed. Returns false if fn
 * said so for any. */
static bool
each_item(struct parser *ps, struct tok t, const char *what,
    bool (*fn)(struct parser *, struct tok, void *), void *arg)
{
	bool ok = true;

	if (t.n == 0) {
		ERR(ps, t.s, "%s: no value", what);
		return false;
	}
	for (;;) {
		const char *c = memchr(t.s, ',', t.n);
		size_t k = c ? (size_t)(c - t.s) : t.n;
		struct tok it = trim(t.s, k);

		if (it.n == 0) {
			ERR(ps, it.s, "%s: empty list item", what);
			ok = false;
		} else if (!fn(ps, it, arg))
			ok = false;
		if (c == NULL)
			break;
		t.s = c + 1;
		t.n -= k + 1;
	}
	return ok;
}

struct range_arg {
	struct rlist *l;
	const char *what;
	uint64_t max;
};

static bool
range_item(struct parser *ps, struct tok it, void *arg)
{
	struct range_arg *ra = arg;
	const char *dash = memchr(it.s, '-', it.n);
	struct tok a = it, b = it;
	uint64_t lo, hi, t;

	if (dash != NULL) {
		a = trim(it.s, (size_t)(dash - it.s));
		b = trim(dash + 1, it.n - (size_t)(dash - it.s) - 1);
	}
	if (!number(a, &lo)) {
		ERR(ps, a.s, "bad %s '%.*s': not a number", ra->what, (int)a.n,
		    a.s);
		return false;
	}
	hi = lo;
	if (dash != NULL && !number(b, &hi)) {
		ERR(ps, b.s, "bad %s '%.*s': not a number", ra->what, (int)b.n,
		    b.s);
		return false;
	}
	if (hi < lo) {          /* OpenSM reads b-a as a-b */
		t = lo;
		lo = hi;
		hi = t;
	}
	if (hi > ra->max) {
		ERR(ps, it.s, "bad %s '%.*s': expected 0 to 0x%" PRIx64,
		    ra->what, (int)it.n, it.s, ra->max);
		return false;
	}
	rl_add(ra->l, lo, hi);
	return true;
}

static bool
ranges(struct parser *ps, struct tok v, const char *what, uint64_t max,
    struct rlist *l)
{
	struct range_arg ra = { l, what, max };

	return each_item(ps, v, what, range_item, &ra);
}

/* A name as written, quotes removed. */
static char *
text_of(struct tok t)
{
	if (t.n >= 2 && t.s[0] == '"' && t.s[t.n - 1] == '"')
		return pkey_xstrndup(t.s + 1, t.n - 2);
	return pkey_xstrndup(t.s, t.n);
}

static bool
one_number(struct parser *ps, struct tok v, const char *what, uint64_t min,
    uint64_t max, uint8_t *out)
{
	uint64_t x;

	if (v.n == 0) {
		ERR(ps, v.s, "%s: no value", what);
		return false;
	}
	if (!number(v, &x)) {
		ERR(ps, v.s, "bad %s '%.*s': not a number", what, (int)v.n,
		    v.s);
		return false;
	}
	if (x < min || x > max) {
		ERR(ps, v.s, "bad %s '%.*s': expected %" PRIu64 " to %" PRIu64,
		    what, (int)v.n, v.s, min, max);
		return false;
	}
	*out = (uint8_t)x;
	return true;
}

/* A keyword that takes one value given twice in a block. */
static bool
once(struct parser *ps, unsigned bit, struct tok key)
{
	if (ps->seen & bit) {
		ERR(ps, key.s, "'%.*s' given twice in this block", (int)key.n,
		    key.s);
		return false;
	}
	ps->seen |= bit;
	return true;
}

/* ---- port-group --------------------------------------------------------- */

static struct group *
cur_group(struct parser *ps)
{
	return &ps->p->groups[ps->p->ngroups - 1];
}

static bool
pname_item(struct parser *ps, struct tok it, void *arg)
{
	struct group *g = arg;
	char *s = text_of(it), *slash = strrchr(s, '/'), *end;
	unsigned long num;

	if (slash == NULL || (slash[1] != 'P' && slash[1] != 'p') ||
	    slash[2] == '\0') {
		ERR(ps, it.s, "bad port-name '%s': expected "
		    "NodeDescription/Pnum", s);
		free(s);
		return false;
	}
	errno = 0;
	num = strtoul(slash + 2, &end, 0);
	if (errno || *end != '\0' || num == 0 || num > 254) {
		ERR(ps, it.s, "bad port-name '%s': port number 1 to 254 "
		    "expected after /P", s);
		free(s);
		return false;
	}
	*slash = '\0';
	GROW(g->pnames, g->npnames, g->pnames_cap);
	g->pnames[g->npnames].desc = s;
	g->pnames[g->npnames].num = (uint8_t)num;
	g->npnames++;
	return true;
}

static bool
part_item(struct parser *ps, struct tok it, void *arg)
{
	struct group *g = arg;
	char *s = text_of(it);
	size_t i;

	for (i = 0; ps->parts != NULL && i < pkey_policy_count(ps->parts);
	    i++) {
		const struct pkey_partition *pt = pkey_policy_get(ps->parts, i);

		if (pt->name != NULL && strcmp(pt->name, s) == 0)
			break;
	}
	if (ps->parts == NULL || i == pkey_policy_count(ps->parts)) {
		ERR(ps, it.s, "partition '%s' is not in the partitions file",
		    s);
		free(s);
		return false;
	}
	rl_add(&g->ppkeys, pkey_policy_get(ps->parts, i)->pkey,
	    pkey_policy_get(ps->parts, i)->pkey);
	GROW(g->parts, g->nparts, g->parts_cap);
	g->parts[g->nparts++] = s;
	return true;
}

static bool
type_item(struct parser *ps, struct tok it, void *arg)
{
	struct group *g = arg;

	if (tok_ieq(it, "CA"))
		g->types |= 1u << NODE_CA;
	else if (tok_ieq(it, "SWITCH"))
		g->types |= 1u << NODE_SWITCH;
	else if (tok_ieq(it, "ROUTER"))
		g->types |= 1u << NODE_ROUTER;
	else if (tok_ieq(it, "SELF"))
		g->types |= NT_SELF;
	else if (tok_ieq(it, "ALL"))
		g->types |= NT_ALL;
	else {
		ERR(ps, it.s, "bad node-type '%.*s': expected CA, SWITCH, "
		    "ROUTER, SELF or ALL", (int)it.n, it.s);
		return false;
	}
	return true;
}

/* Warn about P_Keys no partition has (OpenSM's ERR AC02, not fatal). */
static void
check_pkeys(struct parser *ps, const struct rlist *l, size_t from,
    const char *at)
{
	for (size_t i = from; i < l->n; i++)
		for (uint64_t k = l->v[i].lo; k <= l->v[i].hi &&
		    k - l->v[i].lo < QOS_MAX_RANGE_WALK; k++)
			if (ps->parts == NULL || pkey_policy_find(ps->parts,
			    (uint16_t)(k & 0x7fff)) == NULL) {
				pkey_msg_add(ps->e, PKEY_MSG_WARNING, ps->line,
				    col_of(ps, at), "pkey 0x%04x: no partition "
				    "has it", (unsigned)(k & 0x7fff));
				break;
			}
}

static void
group_line(struct parser *ps, struct tok key, struct tok v)
{
	struct group *g = cur_group(ps);
	size_t n0;

	if (tok_is(key, "name")) {
		if (once(ps, 1, key)) {
			if (v.n == 0)
				ERR(ps, v.s, "name: no value");
			else
				g->name = text_of(v);
		}
	} else if (tok_is(key, "use")) {
		if (once(ps, 2, key)) {
			free(g->use);
			g->use = text_of(v);
		}
	} else if (tok_is(key, "port-guid"))
		(void)ranges(ps, v, "port-guid", UINT64_MAX, &g->guids);
	else if (tok_is(key, "port-name"))
		(void)each_item(ps, v, "port-name", pname_item, g);
	else if (tok_is(key, "partition"))
		(void)each_item(ps, v, "partition", part_item, g);
	else if (tok_is(key, "pkey")) {
		n0 = g->pkeys.n;
		if (ranges(ps, v, "pkey", 0xffff, &g->pkeys))
			check_pkeys(ps, &g->pkeys, n0, v.s);
	} else if (tok_is(key, "node-type"))
		(void)each_item(ps, v, "node-type", type_item, g);
	else
		ERR(ps, key.s, "'%.*s' is not a port-group keyword (name, use, "
		    "port-guid, port-name, partition, pkey, node-type)",
		    (int)key.n, key.s);
}

/* ---- qos-level ---------------------------------------------------------- */

static void
level_line(struct parser *ps, struct tok key, struct tok v)
{
	struct qos_level *l = &ps->p->levels[ps->p->nlevels - 1];
	struct rlist rl = { 0 };
	size_t n0;

	if (tok_is(key, "name")) {
		if (once(ps, 1, key)) {
			if (v.n == 0)
				ERR(ps, v.s, "name: no value");
			else
				l->name = text_of(v);
		}
	} else if (tok_is(key, "use")) {
		if (once(ps, 2, key))
			l->use = text_of(v);
	} else if (tok_is(key, "sl")) {
		if (once(ps, 4, key) && one_number(ps, v, "sl", 0, 15, &l->sl))
			l->set |= QOS_LF_SL;
	} else if (tok_is(key, "mtu-limit")) {
		if (once(ps, 8, key) && one_number(ps, v, "mtu-limit", 1, 5,
		    &l->mtu))
			l->set |= QOS_LF_MTU;
	} else if (tok_is(key, "rate-limit")) {
		if (once(ps, 16, key) && one_number(ps, v, "rate-limit", 2, 24,
		    &l->rate)) {
			if (pkey_rate_gbps(l->rate) == NULL)
				ERR(ps, v.s, "bad rate-limit '%.*s': not an IBA "
				    "rate code", (int)v.n, v.s);
			else
				l->set |= QOS_LF_RATE;
		}
	} else if (tok_is(key, "packet-life")) {
		if (once(ps, 32, key) && one_number(ps, v, "packet-life", 0,
		    63, &l->life))
			l->set |= QOS_LF_LIFE;
	} else if (tok_is(key, "path-bits")) {
		/* read, checked and not used, as by OpenSM 3.3.23 */
		if (ranges(ps, v, "path-bits", 0xffff, &rl))
			pkey_msg_add(ps->e, PKEY_MSG_NOTE, ps->line,
			    col_of(ps, key.s), "path-bits: not used (OpenSM "
			    "does not use them either)");
		free(rl.v);
	} else if (tok_is(key, "pkey")) {
		struct rlist pk = { l->pkeys, l->npkeys, l->npkeys };

		n0 = pk.n;
		if (ranges(ps, v, "pkey", 0xffff, &pk)) {
			for (size_t i = n0; i < pk.n; i++) {
				pk.v[i].lo &= 0x7fff;
				pk.v[i].hi &= 0x7fff;
			}
			check_pkeys(ps, &pk, n0, v.s);
		}
		l->pkeys = pk.v;
		l->npkeys = pk.n;
	} else
		ERR(ps, key.s, "'%.*s' is not a qos-level keyword (name, use, "
		    "sl, mtu-limit, rate-limit, packet-life, path-bits, pkey)",
		    (int)key.n, key.s);
}

/* ---- qos-match-rule ----------------------------------------------------- */

struct ref_arg {
	struct ref **v;
	size_t *n, *cap;
};

static bool
ref_item(struct parser *ps, struct tok it, void *arg)
{
	struct ref_arg *ra = arg;

	GROW(*ra->v, *ra->n, *ra->cap);
	(*ra->v)[*ra->n].name = text_of(it);
	(*ra->v)[*ra->n].line = ps->line;
	(*ra->v)[*ra->n].col = col_of(ps, it.s);
	(*ra->n)++;
	return true;
}

static void
rule_line(struct parser *ps, struct tok key, struct tok v)
{
	struct rule *r = &ps->p->rules[ps->p->nrules - 1];
	size_t n0;

	if (tok_is(key, "use")) {
		if (once(ps, 1, key))
			r->use = text_of(v);
	} else if (tok_is(key, "qos-class"))
		(void)ranges(ps, v, "qos-class", 0xfff, &r->classes);
	else if (tok_is(key, "source")) {
		struct ref_arg ra = { &r->src, &r->nsrc, &r->src_cap };

		(void)each_item(ps, v, "source", ref_item, &ra);
	} else if (tok_is(key, "destination")) {
		struct ref_arg ra = { &r->dst, &r->ndst, &r->dst_cap };

		(void)each_item(ps, v, "destination", ref_item, &ra);
	} else if (tok_is(key, "service-id"))
		(void)ranges(ps, v, "service-id", UINT64_MAX, &r->sids);
	else if (tok_is(key, "pkey")) {
		n0 = r->pkeys.n;
		if (ranges(ps, v, "pkey", 0xffff, &r->pkeys)) {
			for (size_t i = n0; i < r->pkeys.n; i++) {
				r->pkeys.v[i].lo &= 0x7fff;
				r->pkeys.v[i].hi &= 0x7fff;
			}
			check_pkeys(ps, &r->pkeys, n0, v.s);
		}
	} else if (tok_is(key, "qos-level-name")) {
		if (once(ps, 2, key)) {
			if (v.n == 0)
				ERR(ps, v.s, "qos-level-name: no value");
			else {
				r->level_name.name = text_of(v);
				r->level_name.line = ps->line;
				r->level_name.col = col_of(ps, v.s);
			}
		}
	} else
		ERR(ps, key.s, "'%.*s' is not a qos-match-rule keyword (use, "
		    "qos-class, source, destination, service-id, pkey, "
		    "qos-level-name)", (int)key.n, key.s);
}

/* ---- qos-ulps ------------------------------------------------------------ */

static struct rule *
new_rule(struct qos_policy *p, unsigned line)
{
	struct rule *r;

	GROW(p->rules, p->nrules, p->rules_cap);
	r = &p->rules[p->nrules++];
	memset(r, 0, sizeof(*r));
	r->ulp_group = SIZE_MAX;
	r->line = line;
	return r;
}

static size_t
new_group(struct qos_policy *p, unsigned line, unsigned col)
{
	struct group *g;

	GROW(p->groups, p->ngroups, p->groups_cap);
	g = &p->groups[p->ngroups];
	memset(g, 0, sizeof(*g));
	g->line = line;
	g->col = col;
	return p->ngroups++;
}

static const struct {
	const char *ulp, *param;        /* param NULL: none */
	enum ulp kind;
} ulps[] = {
	{ "any", "service-id", ULP_ANY_SID },
	{ "any", "pkey", ULP_ANY_PKEY },
	{ "any", "target-port-guid", ULP_ANY_TARGET },
	{ "any", "source-port-guid", ULP_ANY_SOURCE },
	{ "any", "source-target-port-guid", ULP_ANY_SOURCE_TARGET },
	{ "sdp", NULL, ULP_SDP },
	{ "sdp", "port-num", ULP_SDP_PORT },
	{ "rds", NULL, ULP_RDS },
	{ "rds", "port-num", ULP_RDS_PORT },
	{ "iser", NULL, ULP_ISER },
	{ "iser", "port-num", ULP_ISER_PORT },
	{ "srp", "target-port-guid", ULP_SRP },
	{ "ipoib", NULL, ULP_IPOIB },
	{ "ipoib", "pkey", ULP_IPOIB_PKEY },
};

static const char *
ulp_max_what(enum ulp k, uint64_t *max)
{
	switch (k) {
	case ULP_ANY_SID:
		*max = UINT64_MAX;
		return "service-id";
	case ULP_ANY_PKEY: case ULP_IPOIB_PKEY:
		*max = 0xffff;
		return "pkey";
	case ULP_SDP_PORT: case ULP_RDS_PORT: case ULP_ISER_PORT:
		*max = 0xffff;
		return "port-num";
	default:
		*max = UINT64_MAX;
		return "port GUID";
	}
}

/* An ipoib rule's P_Key must be a partition's (OpenSM is strict there). */
static void
check_ipoib(struct parser *ps, const struct rlist *l, const char *at)
{
	for (size_t i = 0; i < l->n; i++)
		for (uint64_t k = l->v[i].lo; k <= l->v[i].hi &&
		    k - l->v[i].lo < QOS_MAX_RANGE_WALK; k++)
			if (ps->parts == NULL || pkey_policy_find(ps->parts,
			    (uint16_t)(k & 0x7fff)) == NULL) {
				ERR(ps, at, "ipoib, pkey 0x%04x: no partition "
				    "has this P_Key", (unsigned)(k & 0x7fff));
				return;
			}
}

/* Turn a ULP rule into the criteria OpenSM's parser gives it. */
static void
ulp_criteria(struct parser *ps, struct rule *r, const char *at)
{
	struct qos_policy *p = ps->p;
	uint64_t base = 0;
	size_t i, g;

	switch (r->ulp) {
	case ULP_ANY_SID:
		for (i = 0; i < r->ulp_vals.n; i++)
			rl_add(&r->sids, r->ulp_vals.v[i].lo,
			    r->ulp_vals.v[i].hi);
		break;
	case ULP_ANY_PKEY: case ULP_IPOIB_PKEY:
		for (i = 0; i < r->ulp_vals.n; i++)
			rl_add(&r->pkeys, r->ulp_vals.v[i].lo & 0x7fff,
			    r->ulp_vals.v[i].hi & 0x7fff);
		if (r->ulp == ULP_IPOIB_PKEY)
			check_ipoib(ps, &r->pkeys, at);
		else
			check_pkeys(ps, &r->pkeys, 0, at);
		break;
	case ULP_IPOIB:
		rl_add(&r->pkeys, PKEY_DEFAULT, PKEY_DEFAULT);
		break;
	case ULP_SDP:
		rl_add(&r->sids, QOS_SDP_SERVICE_ID, QOS_SDP_SERVICE_ID + 0xffff);
		break;
	case ULP_RDS:
		rl_add(&r->sids, QOS_RDS_SERVICE_ID + QOS_RDS_PORT,
		    QOS_RDS_SERVICE_ID + QOS_RDS_PORT);
		break;
	case ULP_ISER:
		rl_add(&r->sids, QOS_ISER_SERVICE_ID + QOS_ISER_PORT,
		    QOS_ISER_SERVICE_ID + QOS_ISER_PORT);
		break;
	case ULP_SDP_PORT: case ULP_RDS_PORT: case ULP_ISER_PORT:
		base = r->ulp == ULP_SDP_PORT ? QOS_SDP_SERVICE_ID :
		    r->ulp == ULP_RDS_PORT ? QOS_RDS_SERVICE_ID :
		    QOS_ISER_SERVICE_ID;
		for (i = 0; i < r->ulp_vals.n; i++)
			rl_add(&r->sids, base + r->ulp_vals.v[i].lo,
			    base + r->ulp_vals.v[i].hi);
		break;
	case ULP_ANY_TARGET: case ULP_ANY_SOURCE: case ULP_ANY_SOURCE_TARGET:
	case ULP_SRP:
		g = new_group(p, ps->line, col_of(ps, at));
		for (i = 0; i < r->ulp_vals.n; i++)
			rl_add(&p->groups[g].guids, r->ulp_vals.v[i].lo,
			    r->ulp_vals.v[i].hi);
		r->ulp_group = g;
		break;
	case ULP_NONE:
		break;
	}
}

static void
ulp_line(struct parser *ps, struct tok t)
{
	struct qos_policy *p = ps->p;
	const char *colon = NULL, *comma;
	struct tok head, sl, name, param = { NULL, 0 }, vals = { NULL, 0 };
	uint8_t slv;
	size_t i;
	struct rule *r;

	for (const char *c = t.s; c < t.s + t.n; c++)
		if (*c == ':')
			colon = c;
	if (colon == NULL) {
		ERR(ps, t.s, "qos-ulps: expected 'ULP[, criterion values] : "
		    "SL'");
		return;
	}
	head = trim(t.s, (size_t)(colon - t.s));
	sl = trim(colon + 1, t.n - (size_t)(colon - t.s) - 1);
	comma = memchr(head.s, ',', head.n);
	name = trim(head.s, comma ? (size_t)(comma - head.s) : head.n);
	if (comma != NULL) {
		struct tok rest = trim(comma + 1, head.n -
		    (size_t)(comma - head.s) - 1);
		size_t k = 0;

		while (k < rest.n && rest.s[k] != ' ' && rest.s[k] != '\t')
			k++;
		param = (struct tok){ rest.s, k };
		vals = trim(rest.s + k, rest.n - k);
	}
	if (!one_number(ps, sl, "SL", 0, 15, &slv))
		slv = 0xff;
	if (tok_ieq(name, "default") && comma == NULL) {
		if (p->has_ulp_default) {
			ERR(ps, name.s, "qos-ulps: default given twice");
			return;
		}
		if (slv != 0xff) {
			p->has_ulp_default = true;
			p->ulp_default.sl = slv;
			p->ulp_default.set = QOS_LF_SL;
			p->ulp_default.line = ps->line;
		}
		return;
	}
	for (i = 0; i < sizeof(ulps) / sizeof(ulps[0]); i++)
		if (tok_ieq(name, ulps[i].ulp) && (ulps[i].param == NULL ?
		    comma == NULL : param.n > 0 && tok_is(param,
		    ulps[i].param)))
			break;
	if (i == sizeof(ulps) / sizeof(ulps[0])) {
		for (i = 0; i < sizeof(ulps) / sizeof(ulps[0]); i++)
			if (tok_ieq(name, ulps[i].ulp) && ulps[i].param != NULL &&
			    comma == NULL) {
				ERR(ps, name.s, "qos-ulps: '%s' needs ', %s "
				    "VALUES'", ulps[i].ulp, ulps[i].param);
				return;
			}
		if (comma != NULL && param.n > 0)
			ERR(ps, param.s, "qos-ulps: '%.*s, %.*s' is not a ULP "
			    "rule (see qos-policy.conf(5))", (int)name.n, name.s,
			    (int)param.n, param.s);
		else
			ERR(ps, name.s, "qos-ulps: '%.*s' is not a ULP rule "
			    "(default, any, sdp, rds, iser, srp, ipoib)",
			    (int)head.n, head.s);
		return;
	}
	r = new_rule(p, ps->line);
	r->ulp = ulps[i].kind;
	if (ulps[i].param != NULL) {
		uint64_t max;
		const char *what = ulp_max_what(r->ulp, &max);

		if (vals.n == 0) {
			ERR(ps, param.s, "qos-ulps: %.*s needs values",
			    (int)param.n, param.s);
			p->nrules--;
			return;
		}
		if (!ranges(ps, vals, what, max, &r->ulp_vals)) {
			free(r->ulp_vals.v);
			p->nrules--;
			return;
		}
	}
	if (slv == 0xff) {
		free(r->ulp_vals.v);
		p->nrules--;
		return;
	}
	r->level = slv;
	ulp_criteria(ps, r, vals.n ? vals.s : name.s);
}

/* ---- blocks ---------------------------------------------------------------- */

static const struct {
	const char *open;
	int from, to;                   /* block kinds */
} opens[] = {
	{ "port-groups", B_TOP, B_GROUPS },
	{ "port-group", B_GROUPS, B_GROUP },
	{ "qos-levels", B_TOP, B_LEVELS },
	{ "qos-level", B_LEVELS, B_LEVEL },
	{ "qos-match-rules", B_TOP, B_RULES },
	{ "qos-match-rule", B_RULES, B_RULE },
	{ "qos-ulps", B_TOP, B_ULPS },
	{ "qos-setup", B_TOP, B_SETUP },
};

static const char *
blk_name(int b)
{
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		if (opens[i].to == b)
			return opens[i].open;
	return "file";
}

static int
blk_parent(int b)
{
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		if (opens[i].to == b)
			return opens[i].from;
	return B_TOP;
}

/* Inside qos-setup: only the nesting is followed. */
static void
setup_line(struct parser *ps, struct tok t)
{
	static const char *const sub[] = { "vlarb-tables", "vlarb-scope",
	    "sl2vl-tables", "sl2vl-scope" };

	for (size_t i = 0; i < 4; i++) {
		if (tok_is(t, sub[i]))
			ps->setup_depth++;
		else if (t.n == strlen(sub[i]) + 4 &&
		    memcmp(t.s, "end-", 4) == 0 &&
		    memcmp(t.s + 4, sub[i], t.n - 4) == 0) {
			if (ps->setup_depth == 0)
				ERR(ps, t.s, "'%.*s' closes nothing", (int)t.n,
				    t.s);
			else
				ps->setup_depth--;
		}
	}
}

static void
open_block(struct parser *ps, int to, struct tok t)
{
	struct qos_policy *p = ps->p;

	ps->blk = to;
	ps->blk_line = ps->line;
	ps->seen = 0;
	switch (to) {
	case B_GROUP:
		(void)new_group(p, ps->line, col_of(ps, t.s));
		break;
	case B_LEVEL:
		GROW(p->levels, p->nlevels, p->levels_cap);
		memset(&p->levels[p->nlevels], 0, sizeof(p->levels[0]));
		p->levels[p->nlevels].line = ps->line;
		p->nlevels++;
		break;
	case B_RULE:
		(void)new_rule(p, ps->line);
		p->nmatch++;
		break;
	case B_SETUP:
		ps->setup_depth = 0;
		if (!p->setup)
			pkey_msg_add(ps->e, PKEY_MSG_NOTE, ps->line,
			    col_of(ps, t.s), "qos-setup: read and ignored, as "
			    "by OpenSM: SL2VL and VL arbitration come from the "
			    "qos_* options of ibsmd.conf");
		p->setup = true;
		break;
	}
}

/* A block closes: what it must have. */
static void
close_block(struct parser *ps, struct tok t)
{
	struct qos_policy *p = ps->p;

	if (ps->blk == B_GROUP && cur_group(ps)->name == NULL)
		ERR(ps, t.s, "port-group (line %u) has no name", ps->blk_line);
	if (ps->blk == B_LEVEL && p->levels[p->nlevels - 1].name == NULL)
		ERR(ps, t.s, "qos-level (line %u) has no name", ps->blk_line);
	/* OpenSM requires an SL in every level */
	if (ps->blk == B_LEVEL && !(ps->seen & 4))
		ERR(ps, t.s, "qos-level (line %u) has no sl", ps->blk_line);
	if (ps->blk == B_RULE && p->rules[p->nrules - 1].level_name.name ==
	    NULL)
		ERR(ps, t.s, "qos-match-rule (line %u) has no qos-level-name",
		    ps->blk_line);
	ps->blk = blk_parent(ps->blk);
	ps->seen = 0;
}

static void
scan_line(struct parser *ps, struct tok t)
{
	const char *colon;
	struct tok key, v;
	size_t i;

	if (ps->blk == B_SETUP && !tok_is(t, "end-qos-setup")) {
		setup_line(ps, t);
		return;
	}
	for (i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		if (tok_is(t, opens[i].open)) {
			if ((int)ps->blk != opens[i].from) {
				if (ps->blk == B_TOP)
					ERR(ps, t.s, "'%s' outside %s",
					    opens[i].open,
					    blk_name(opens[i].from));
				else
					ERR(ps, t.s, "'%s' inside %s (line "
					    "%u): expected %s%s", opens[i].open,
					    blk_name(ps->blk), ps->blk_line,
					    opens[i].from == B_TOP ? "" : "in ",
					    opens[i].from == B_TOP ?
					    "at the top level" :
					    blk_name(opens[i].from));
				return;
			}
			open_block(ps, opens[i].to, t);
			return;
		}
		if (t.n == strlen(opens[i].open) + 4 &&
		    memcmp(t.s, "end-", 4) == 0 &&
		    memcmp(t.s + 4, opens[i].open, t.n - 4) == 0) {
			if ((int)ps->blk != opens[i].to) {
				ERR(ps, t.s, "'%.*s' without '%s'%s%s",
				    (int)t.n, t.s, opens[i].open,
				    ps->blk == B_TOP ? "" : ": open is ",
				    ps->blk == B_TOP ? "" : blk_name(ps->blk));
				return;
			}
			close_block(ps, t);
			return;
		}
	}
	if (ps->blk == B_ULPS) {
		ulp_line(ps, t);
		return;
	}
	colon = memchr(t.s, ':', t.n);
	if (ps->blk == B_TOP || ps->blk == B_GROUPS || ps->blk == B_LEVELS ||
	    ps->blk == B_RULES || colon == NULL) {
		ERR(ps, t.s, "unexpected '%.*s'%s%s", (int)t.n, t.s,
		    ps->blk == B_TOP ? "" : " in ",
		    ps->blk == B_TOP ? "" : blk_name(ps->blk));
		return;
	}
	key = trim(t.s, (size_t)(colon - t.s));
	v = trim(colon + 1, t.n - (size_t)(colon - t.s) - 1);
	if (ps->blk == B_GROUP)
		group_line(ps, key, v);
	else if (ps->blk == B_LEVEL)
		level_line(ps, key, v);
	else
		rule_line(ps, key, v);
}

/* ---- checks after the parse ---------------------------------------------- */

static size_t
find_group(const struct qos_policy *p, const char *name)
{
	for (size_t i = 0; i < p->ngroups; i++)
		if (p->groups[i].name != NULL && name_eq(p->groups[i].name,
		    name))
			return i;
	return SIZE_MAX;
}

static size_t
find_level(const struct qos_policy *p, const char *name)
{
	for (size_t i = 0; i < p->nlevels; i++)
		if (p->levels[i].name != NULL && name_eq(p->levels[i].name,
		    name))
			return i;
	return SIZE_MAX;
}

static void
resolve_refs(struct pkey_errors *e, const struct qos_policy *p,
    const struct ref *refs, size_t n, size_t **out, const char *what)
{
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++) {
		(*out)[i] = find_group(p, refs[i].name);
		if ((*out)[i] == SIZE_MAX)
			pkey_msg_add(e, PKEY_MSG_ERROR, refs[i].line,
			    refs[i].col, "%s: no port-group '%s'", what,
			    refs[i].name);
	}
}

static void
check_policy(struct qos_policy *p, struct pkey_errors *e)
{
	size_t i, j;

	for (i = 0; i < p->ngroups; i++)
		for (j = 0; j < i && p->groups[i].name != NULL; j++)
			if (p->groups[j].name != NULL &&
			    name_eq(p->groups[i].name, p->groups[j].name)) {
				pkey_msg_add(e, PKEY_MSG_ERROR,
				    p->groups[i].line, p->groups[i].col,
				    "port-group '%s' defined twice (first at "
				    "line %u)", p->groups[i].name,
				    p->groups[j].line);
				break;
			}
	for (i = 0; i < p->nlevels; i++)
		for (j = 0; j < i && p->levels[i].name != NULL; j++)
			if (p->levels[j].name != NULL &&
			    name_eq(p->levels[i].name, p->levels[j].name)) {
				pkey_msg_add(e, PKEY_MSG_ERROR,
				    p->levels[i].line, 1, "qos-level '%s' "
				    "defined twice (first at line %u)",
				    p->levels[i].name, p->levels[j].line);
				break;
			}
	for (i = 0; i < p->nmatch; i++) {
		struct rule *r = &p->rules[i];

		resolve_refs(e, p, r->src, r->nsrc, &r->srcg, "source");
		resolve_refs(e, p, r->dst, r->ndst, &r->dstg, "destination");
		if (r->level_name.name != NULL) {
			r->level = find_level(p, r->level_name.name);
			if (r->level == SIZE_MAX)
				pkey_msg_add(e, PKEY_MSG_ERROR,
				    r->level_name.line, r->level_name.col,
				    "qos-level-name: no qos-level '%s'",
				    r->level_name.name);
		}
	}
	i = find_level(p, "DEFAULT");
	if (i != SIZE_MAX)
		p->def = &p->levels[i];
	else if (p->has_ulp_default)
		p->def = &p->ulp_default;
	else
		pkey_msg_add(e, PKEY_MSG_ERROR, 0, 0, "no DEFAULT level: "
		    "define a qos-level named DEFAULT or a 'default : SL' "
		    "line in qos-ulps");
}

/* The rules' ULPs sit after the match rules: OpenSM tries the
 * qos-match-rules first whatever the order of the sections. */
static void
order_rules(struct qos_policy *p)
{
	struct rule *v = xcalloc(p->nrules ? p->nrules : 1, sizeof(*v));
	size_t n = 0, i;

	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].ulp == ULP_NONE)
			v[n++] = p->rules[i];
	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].ulp != ULP_NONE)
			v[n++] = p->rules[i];
	free(p->rules);
	p->rules = v;
	p->rules_cap = p->nrules;
}

struct qos_policy *
qos_policy_parse(const char *filename, const char *text, size_t len,
    const struct pkey_policy *parts, struct pkey_errors *errs)
{
	struct qos_policy *p = xcalloc(1, sizeof(*p));
	struct parser ps = { .p = p, .e = errs, .parts = parts };
	const char *s = text, *end = text + len;
	size_t nerr0 = errs->nerrors, nmsg0 = errs->n;

	free(errs->file);
	errs->file = filename ? pkey_xstrndup(filename, strlen(filename)) :
	    NULL;
	for (unsigned i = 0; i < 16; i++) {
		p->simple[i].sl = (uint8_t)i;
		p->simple[i].set = QOS_LF_SL;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *c;
		bool q = false;
		struct tok t;

		ps.line++;
		ps.lstart = s;
		/* '#' starts a comment, but not inside quotes */
		for (c = s; c < le; c++) {
			if (*c == '"')
				q = !q;
			else if (*c == '#' && !q)
				break;
			else if (*c == '\0') {
				pkey_msg_add(errs, PKEY_MSG_ERROR, ps.line,
				    col_of(&ps, c), "NUL byte in the text");
				break;
			}
		}
		t = trim(s, (size_t)(c - s));
		if (t.n > 0)
			scan_line(&ps, t);
		s = nl ? nl + 1 : end;
	}
	if (ps.blk != B_TOP) {
		int b = ps.blk;

		/* name the innermost block left open, with its line */
		pkey_msg_add(errs, PKEY_MSG_ERROR, ps.line ? ps.line : 1, 1,
		    "end of file inside %s (line %u): 'end-%s' missing",
		    blk_name(b), ps.blk_line, blk_name(b));
	}
	order_rules(p);
	check_policy(p, errs);
	pkey_msgs_sort(errs, nmsg0);
	if (errs->nerrors != nerr0) {
		qos_policy_free(p);
		return NULL;
	}
	return p;
}

void
qos_policy_free(struct qos_policy *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	for (i = 0; i < p->ngroups; i++) {
		struct group *g = &p->groups[i];

		free(g->name);
		free(g->use);
		free(g->guids.v);
		for (j = 0; j < g->npnames; j++)
			free(g->pnames[j].desc);
		free(g->pnames);
		for (j = 0; j < g->nparts; j++)
			free(g->parts[j]);
		free(g->parts);
		free(g->pkeys.v);
		free(g->ppkeys.v);
	}
	free(p->groups);
	for (i = 0; i < p->nlevels; i++) {
		free(p->levels[i].name);
		free(p->levels[i].use);
		free(p->levels[i].pkeys);
	}
	free(p->levels);
	for (i = 0; i < p->nrules; i++) {
		struct rule *r = &p->rules[i];

		free(r->use);
		free(r->classes.v);
		free(r->sids.v);
		free(r->pkeys.v);
		for (j = 0; j < r->nsrc; j++)
			free(r->src[j].name);
		for (j = 0; j < r->ndst; j++)
			free(r->dst[j].name);
		free(r->src);
		free(r->dst);
		free(r->srcg);
		free(r->dstg);
		free(r->level_name.name);
		free(r->ulp_vals.v);
	}
	free(p->rules);
	free(p);
}

/* ---- resolution ------------------------------------------------------------- */

static bool
has_any_pkey(const struct qos_port *pt, const struct rlist *l)
{
	if (pt->has_pkey == NULL)
		return false;
	for (size_t i = 0; i < l->n; i++)
		for (uint64_t k = l->v[i].lo; k <= l->v[i].hi &&
		    k - l->v[i].lo < QOS_MAX_RANGE_WALK; k++)
			if (pt->has_pkey(pt, (uint16_t)(k & 0x7fff)))
				return true;
	return false;
}

static bool
in_group(const struct group *g, const struct qos_port *pt)
{
	if ((g->types & NT_ALL) || (g->types & (1u << pt->node_type)) ||
	    ((g->types & NT_SELF) && pt->self))
		return true;
	if (rl_has(&g->guids, pt->guid))
		return true;
	for (size_t i = 0; i < g->npnames; i++)
		if (pt->desc != NULL && pt->num == g->pnames[i].num &&
		    strcmp(pt->desc, g->pnames[i].desc) == 0)
			return true;
	return has_any_pkey(pt, &g->pkeys) || has_any_pkey(pt, &g->ppkeys);
}

static bool
in_groups(const struct qos_policy *p, const size_t *gs, size_t n,
    size_t extra, const struct qos_port *pt)
{
	if (pt == NULL)
		return false;
	if (extra != SIZE_MAX && in_group(&p->groups[extra], pt))
		return true;
	for (size_t i = 0; i < n; i++)
		if (in_group(&p->groups[gs[i]], pt))
			return true;
	return false;
}

static bool
rule_matches(const struct qos_policy *p, const struct rule *r,
    const struct qos_query *q)
{
	size_t sx = SIZE_MAX, dx = SIZE_MAX;
	bool hs, hd;

	if (r->ulp == ULP_ANY_SOURCE || r->ulp == ULP_ANY_SOURCE_TARGET)
		sx = r->ulp_group;
	if (r->ulp == ULP_ANY_TARGET || r->ulp == ULP_SRP ||
	    r->ulp == ULP_ANY_SOURCE_TARGET)
		dx = r->ulp_group;
	hs = r->nsrc > 0 || sx != SIZE_MAX;
	hd = r->ndst > 0 || dx != SIZE_MAX;
	if (hs && !in_groups(p, r->srcg, r->nsrc, sx, q->src))
		return false;
	if (hd && !in_groups(p, r->dstg, r->ndst, dx, q->dst))
		return false;
	if (r->classes.n > 0 && (!(q->given & QOS_Q_QOS_CLASS) ||
	    !rl_has(&r->classes, q->qos_class)))
		return false;
	if (r->sids.n > 0 && (!(q->given & QOS_Q_SERVICE_ID) ||
	    !rl_has(&r->sids, q->service_id)))
		return false;
	if (r->pkeys.n > 0 && (!(q->given & QOS_Q_PKEY) ||
	    !rl_has(&r->pkeys, q->pkey & 0x7fff)))
		return false;
	return true;
}

const struct qos_level *
qos_policy_match(const struct qos_policy *p, const struct qos_query *q)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];

		if (rule_matches(p, r, q))
			return r->ulp == ULP_NONE ? &p->levels[r->level] :
			    &p->simple[r->level];
	}
	return p->def;
}

bool
qos_level_has_pkey(const struct qos_level *l, uint16_t pkey)
{
	if (l->npkeys == 0)
		return true;
	for (size_t i = 0; i < l->npkeys; i++)
		if ((pkey & 0x7fff) >= l->pkeys[i].lo &&
		    (pkey & 0x7fff) <= l->pkeys[i].hi)
			return true;
	return false;
}

bool
qos_level_pkey_at(const struct qos_level *l, size_t i, uint16_t *pkey)
{
	for (size_t r = 0; r < l->npkeys; r++) {
		uint64_t n = l->pkeys[r].hi - l->pkeys[r].lo + 1;

		if (i < n) {
			*pkey = (uint16_t)(l->pkeys[r].lo + i);
			return true;
		}
		i -= n;
	}
	return false;
}

size_t
qos_policy_groups(const struct qos_policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ngroups; i++)
		n += p->groups[i].name != NULL;
	return n;
}

static const struct group *
named_group(const struct qos_policy *p, size_t i)
{
	for (size_t k = 0; k < p->ngroups; k++)
		if (p->groups[k].name != NULL && i-- == 0)
			return &p->groups[k];
	return NULL;
}

const char *
qos_group_name(const struct qos_policy *p, size_t i)
{
	const struct group *g = named_group(p, i);

	return g != NULL ? g->name : NULL;
}

bool
qos_group_has(const struct qos_policy *p, size_t i, const struct qos_port *pt)
{
	const struct group *g = named_group(p, i);

	return g != NULL && in_group(g, pt);
}

size_t
qos_policy_levels(const struct qos_policy *p)
{
	return p->nlevels;
}

size_t
qos_policy_rules(const struct qos_policy *p)
{
	return p->nrules + p->has_ulp_default;
}

/* ---- -nv ----------------------------------------------------------------- */

static void
put_ranges(struct pkey_buf *b, const struct rlist *l, bool hex, int width)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *sep = i ? ", " : "";

		if (!hex && l->v[i].lo == l->v[i].hi)
			pkey_buf_printf(b, "%s%" PRIu64, sep, l->v[i].lo);
		else if (!hex)
			pkey_buf_printf(b, "%s%" PRIu64 "-%" PRIu64, sep,
			    l->v[i].lo, l->v[i].hi);
		else if (l->v[i].lo == l->v[i].hi)
			pkey_buf_printf(b, "%s0x%0*" PRIx64, sep, width,
			    l->v[i].lo);
		else
			pkey_buf_printf(b, "%s0x%0*" PRIx64 "-0x%0*" PRIx64, sep,
			    width, l->v[i].lo, width, l->v[i].hi);
	}
}

static void
put_text(struct pkey_buf *b, const char *key, const char *s)
{
	if (s != NULL && (strpbrk(s, "#,") != NULL))
		pkey_buf_printf(b, "        %s: \"%s\"\n", key, s);
	else if (s != NULL)
		pkey_buf_printf(b, "        %s: %s\n", key, s);
}

static void
format_group(struct pkey_buf *b, const struct group *g,
    const struct qos_port *ports, size_t nports)
{
	static const char *const tn[] = { [NODE_CA] = "CA",
	    [NODE_SWITCH] = "SWITCH", [NODE_ROUTER] = "ROUTER" };
	size_t i, n = 0;
	const char *sep = "";

	pkey_buf_printf(b, "    port-group\n");
	put_text(b, "name", g->name);
	put_text(b, "use", g->use);
	if (g->guids.n) {
		pkey_buf_printf(b, "        port-guid: ");
		put_ranges(b, &g->guids, true, 16);
		pkey_buf_printf(b, "\n");
	}
	for (i = 0; i < g->npnames; i++)
		pkey_buf_printf(b, "        port-name: \"%s/P%u\"\n",
		    g->pnames[i].desc, g->pnames[i].num);
	for (i = 0; i < g->nparts; i++)
		pkey_buf_printf(b, "        partition: %s\n", g->parts[i]);
	if (g->pkeys.n) {
		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &g->pkeys, true, 4);
		pkey_buf_printf(b, "\n");
	}
	if (g->types) {
		pkey_buf_printf(b, "        node-type: ");
		for (i = NODE_CA; i <= NODE_ROUTER; i++)
			if (g->types & (1u << i)) {
				pkey_buf_printf(b, "%s%s", sep, tn[i]);
				sep = ", ";
			}
		if (g->types & NT_SELF) {
			pkey_buf_printf(b, "%sSELF", sep);
			sep = ", ";
		}
		if (g->types & NT_ALL)
			pkey_buf_printf(b, "%sALL", sep);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "    end-port-group\n");
	if (ports != NULL) {
		for (i = 0; i < nports; i++)
			n += in_group(g, &ports[i]);
		pkey_buf_printf(b, "    # %s: %zu of %zu end ports\n", g->name,
		    n, nports);
	}
}

static void
format_level(struct pkey_buf *b, const struct qos_level *l)
{
	pkey_buf_printf(b, "    qos-level\n");
	put_text(b, "name", l->name);
	put_text(b, "use", l->use);
	if (l->set & QOS_LF_SL)
		pkey_buf_printf(b, "        sl: %u\n", l->sl);
	if (l->set & QOS_LF_MTU)
		pkey_buf_printf(b, "        mtu-limit: %u\n", l->mtu);
	if (l->set & QOS_LF_RATE)
		pkey_buf_printf(b, "        rate-limit: %u\n", l->rate);
	if (l->set & QOS_LF_LIFE)
		pkey_buf_printf(b, "        packet-life: %u\n", l->life);
	if (l->npkeys) {
		struct rlist pk = { l->pkeys, l->npkeys, l->npkeys };

		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &pk, true, 4);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "    end-qos-level\n");
}

static void
format_refs(struct pkey_buf *b, const char *key, const struct ref *r,
    size_t n)
{
	if (n == 0)
		return;
	pkey_buf_printf(b, "        %s: ", key);
	for (size_t i = 0; i < n; i++)
		pkey_buf_printf(b, "%s%s", i ? ", " : "", r[i].name);
	pkey_buf_printf(b, "\n");
}

static void
format_rule(struct pkey_buf *b, const struct qos_policy *p,
    const struct rule *r)
{
	pkey_buf_printf(b, "    qos-match-rule\n");
	put_text(b, "use", r->use);
	if (r->classes.n) {
		pkey_buf_printf(b, "        qos-class: ");
		put_ranges(b, &r->classes, false, 0);
		pkey_buf_printf(b, "\n");
	}
	format_refs(b, "source", r->src, r->nsrc);
	format_refs(b, "destination", r->dst, r->ndst);
	if (r->sids.n) {
		pkey_buf_printf(b, "        service-id: ");
		put_ranges(b, &r->sids, true, 16);
		pkey_buf_printf(b, "\n");
	}
	if (r->pkeys.n) {
		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &r->pkeys, true, 4);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "        qos-level-name: %s\n",
	    p->levels[r->level].name);
	pkey_buf_printf(b, "    end-qos-match-rule\n");
}

static void
format_ulp(struct pkey_buf *b, const struct rule *r)
{
	size_t i;
	uint64_t max;
	bool hex;

	for (i = 0; i < sizeof(ulps) / sizeof(ulps[0]); i++)
		if (ulps[i].kind == r->ulp)
			break;
	pkey_buf_printf(b, "    %s", ulps[i].ulp);
	if (ulps[i].param != NULL) {
		(void)ulp_max_what(r->ulp, &max);
		hex = r->ulp != ULP_SDP_PORT && r->ulp != ULP_RDS_PORT &&
		    r->ulp != ULP_ISER_PORT;
		pkey_buf_printf(b, ", %s ", ulps[i].param);
		put_ranges(b, &r->ulp_vals, hex, max == 0xffff ? 4 : 1);
	}
	pkey_buf_printf(b, " : %zu\n", r->level);
}

char *
qos_policy_format(const struct qos_policy *p, const struct qos_port *ports,
    size_t nports)
{
	struct pkey_buf b = { 0 };
	size_t i;

	pkey_buf_printf(&b, "%s", "");
	if (qos_policy_groups(p) > 0) {
		pkey_buf_printf(&b, "port-groups\n");
		for (i = 0; i < p->ngroups; i++)
			if (p->groups[i].name != NULL)
				format_group(&b, &p->groups[i], ports, nports);
		pkey_buf_printf(&b, "end-port-groups\n");
	}
	if (p->nlevels > 0) {
		pkey_buf_printf(&b, "qos-levels\n");
		for (i = 0; i < p->nlevels; i++)
			format_level(&b, &p->levels[i]);
		pkey_buf_printf(&b, "end-qos-levels\n");
	}
	if (p->nmatch > 0) {
		pkey_buf_printf(&b, "qos-match-rules\n");
		for (i = 0; i < p->nrules; i++)
			if (p->rules[i].ulp == ULP_NONE)
				format_rule(&b, p, &p->rules[i]);
		pkey_buf_printf(&b, "end-qos-match-rules\n");
	}
	if (p->nrules > p->nmatch || p->has_ulp_default) {
		pkey_buf_printf(&b, "qos-ulps\n");
		if (p->has_ulp_default)
			pkey_buf_printf(&b, "    default : %u\n",
			    p->ulp_default.sl);
		for (i = 0; i < p->nrules; i++)
			if (p->rules[i].ulp != ULP_NONE)
				format_ulp(&b, &p->rules[i]);
		pkey_buf_printf(&b, "end-qos-ulps\n");
	}
	pkey_buf_printf(&b, "# default level: %s (SL %u)\n",
	    p->def == &p->ulp_default ? "qos-ulps default" : p->def->name,
	    p->def->sl);
	return b.s;
}
