/*
 * qos-policy.conf: scanner, grammar and checks, text in, policy out (its
 * representation: partitions/qos_int.h; resolution and -nv:
 * qos_match.c). See partitions/qos.h. Facts about the format and the matching
 * are those of OpenSM 3.3.23 (osm_qos_parser_l.l, osm_qos_parser_y.y,
 * osm_qos_policy.c, doc/QoS_management_in_OpenSM.txt); where ibsmd is
 * stricter, qos.h says so.
 */
#include "partitions/qos_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fabric.h"
#include "partitions/policy.h"

/* ---- small helpers ---------------------------------------------------- */

static void
rl_add(struct rlist *l, uint64_t lo, uint64_t hi)
{
	GROW(l->v, l->n, l->cap);
	l->v[l->n].lo = lo;
	l->v[l->n].hi = hi;
	l->n++;
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

/* A number: decimal or 0x hexadecimal, 64 bits; NULL, else what is
 * wrong. A decimal with a leading zero is refused: OpenSM's strtoul reads
 * it as octal (as partitions.conf's numbers). */
static const char *
number(struct tok t, uint64_t *v)
{
	char buf[40], *end;
	bool hex;

	if (t.n == 0 || t.n >= sizeof(buf) || !isdigit((unsigned char)t.s[0]))
		return "not a number";
	memcpy(buf, t.s, t.n);
	buf[t.n] = '\0';
	hex = t.n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
	if (!hex && t.n > 1 && buf[0] == '0' && isdigit((unsigned char)buf[1]))
		return "a leading zero (OpenSM would read it as octal)";
	errno = 0;
	*v = hex ? strtoull(buf + 2, &end, 16) : strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0' && end != buf ? NULL :
	    "not a number";
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
		const char *c = NULL;
		bool q = false;
		size_t k;

		/* a comma between double quotes is text */
		for (size_t i = 0; i < t.n && c == NULL; i++)
			if (t.s[i] == '"')
				q = !q;
			else if (t.s[i] == ',' && !q)
				c = t.s + i;
		k = c ? (size_t)(c - t.s) : t.n;
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
	const char *dash = memchr(it.s, '-', it.n), *why;
	struct tok a = it, b = it;
	uint64_t lo, hi, t;

	if (dash != NULL) {
		a = trim(it.s, (size_t)(dash - it.s));
		b = trim(dash + 1, it.n - (size_t)(dash - it.s) - 1);
	}
	if ((why = number(a, &lo)) != NULL) {
		ERR(ps, a.s, "bad %s '%.*s': %s", ra->what, (int)a.n, a.s, why);
		return false;
	}
	hi = lo;
	if (dash != NULL && (why = number(b, &hi)) != NULL) {
		ERR(ps, b.s, "bad %s '%.*s': %s", ra->what, (int)b.n, b.s, why);
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

/* A text value as written, without the double quotes that may enclose
 * the whole of it; a quote anywhere else is an error (the text is still
 * returned: the parse fails anyway). */
static char *
text_of(struct parser *ps, struct tok t)
{
	const char *q = memchr(t.s, '"', t.n);

	if (q == NULL)
		return pkey_xstrndup(t.s, t.n);
	if (q == t.s && t.n >= 2 && t.s[t.n - 1] == '"' &&
	    memchr(t.s + 1, '"', t.n - 2) == NULL)
		return pkey_xstrndup(t.s + 1, t.n - 2);
	ERR(ps, q, "stray '\"': double quotes enclose a whole value");
	return pkey_xstrndup(t.s, t.n);
}

/* A name: not empty, quotes or not. */
static char *
name_of(struct parser *ps, struct tok key, struct tok v)
{
	char *s = text_of(ps, v);

	if (*s == '\0') {
		ERR(ps, v.n ? v.s : key.s, "%.*s: no value", (int)key.n, key.s);
		free(s);
		return NULL;
	}
	return s;
}

static bool
one_number(struct parser *ps, struct tok v, const char *what, uint64_t min,
    uint64_t max, uint8_t *out)
{
	uint64_t x;
	const char *why;

	if (v.n == 0) {
		ERR(ps, v.s, "%s: no value", what);
		return false;
	}
	if ((why = number(v, &x)) != NULL) {
		ERR(ps, v.s, "bad %s '%.*s': %s", what, (int)v.n, v.s, why);
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
	char *s = text_of(ps, it), *slash = strrchr(s, '/'), *end;
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
	char *s = text_of(ps, it);
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

/* The first P_Key of l's ranges from `from` on (in each range, from its
 * low end) that no partition has: true and its base in *key. */
static bool
unknown_pkey(const struct parser *ps, const struct rlist *l, size_t from,
    uint16_t *key)
{
	for (size_t i = from; i < l->n; i++)
		for (uint64_t k = l->v[i].lo; k <= l->v[i].hi &&
		    k - l->v[i].lo < QOS_MAX_RANGE_WALK; k++)
			if (ps->parts == NULL || pkey_policy_find(ps->parts,
			    (uint16_t)(k & 0x7fff)) == NULL) {
				*key = (uint16_t)(k & 0x7fff);
				return true;
			}
	return false;
}

/* Warn about P_Keys no partition has (OpenSM's ERR AC02, not fatal): the
 * first of each range. */
static void
check_pkeys(struct parser *ps, const struct rlist *l, size_t from,
    const char *at)
{
	uint16_t k;

	for (size_t i = from; i < l->n; i++) {
		struct rlist one = { &l->v[i], 1, 1 };

		if (unknown_pkey(ps, &one, 0, &k))
			pkey_msg_add(ps->e, PKEY_MSG_WARNING, ps->line,
			    col_of(ps, at), "pkey 0x%04x: no partition has it",
			    (unsigned)k);
	}
}

/* A level's or a rule's pkey list: P_Key bases (the membership bit
 * dropped), each range's first key no partition has warned about. */
static void
pkey_list(struct parser *ps, struct tok v, struct rlist *l)
{
	size_t n0 = l->n;

	if (!ranges(ps, v, "pkey", 0xffff, l))
		return;
	for (size_t i = n0; i < l->n; i++) {
		l->v[i].lo &= 0x7fff;
		l->v[i].hi &= 0x7fff;
	}
	check_pkeys(ps, l, n0, v.s);
}

static void
group_line(struct parser *ps, struct tok key, struct tok v)
{
	struct group *g = cur_group(ps);
	size_t n0;

	if (tok_is(key, "name")) {
		if (once(ps, 1, key)) {
			g->name = name_of(ps, key, v);
		}
	} else if (tok_is(key, "use")) {
		if (once(ps, 2, key))
			g->use = text_of(ps, v);
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

	if (tok_is(key, "name")) {
		if (once(ps, 1, key)) {
			l->name = name_of(ps, key, v);
		}
	} else if (tok_is(key, "use")) {
		if (once(ps, 2, key))
			l->use = text_of(ps, v);
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

		pkey_list(ps, v, &pk);
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
	(*ra->v)[*ra->n].name = text_of(ps, it);
	(*ra->v)[*ra->n].line = ps->line;
	(*ra->v)[*ra->n].col = col_of(ps, it.s);
	(*ra->n)++;
	return true;
}

static void
rule_line(struct parser *ps, struct tok key, struct tok v)
{
	struct rule *r = &ps->p->rules[ps->p->nrules - 1];

	if (tok_is(key, "use")) {
		if (once(ps, 1, key))
			r->use = text_of(ps, v);
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
	else if (tok_is(key, "pkey"))
		pkey_list(ps, v, &r->pkeys);
	else if (tok_is(key, "qos-level-name")) {
		if (once(ps, 2, key)) {
			r->level_name.name = name_of(ps, key, v);
			r->level_name.line = ps->line;
			r->level_name.col = col_of(ps, v.s);
		}
	} else
		ERR(ps, key.s, "'%.*s' is not a qos-match-rule keyword (use, "
		    "qos-class, source, destination, service-id, pkey, "
		    "qos-level-name)", (int)key.n, key.s);
}

/* ---- qos-ulps ------------------------------------------------------------ */

static struct rule *
new_rule(struct qos_policy *p)
{
	struct rule *r;

	GROW(p->rules, p->nrules, p->rules_cap);
	r = &p->rules[p->nrules++];
	memset(r, 0, sizeof(*r));
	r->ulp_group = SIZE_MAX;
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



/* An ipoib rule's P_Key must be a partition's (OpenSM is strict there). */
static void
check_ipoib(struct parser *ps, const struct rlist *l, const char *at)
{
	uint16_t k;

	if (unknown_pkey(ps, l, 0, &k))
		ERR(ps, at, "ipoib, pkey 0x%04x: no partition has this P_Key",
		    (unsigned)k);
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
	for (i = 0; i < qos_nulps; i++)
		if (tok_ieq(name, qos_ulps[i].ulp) && (qos_ulps[i].param == NULL ?
		    comma == NULL : param.n > 0 && tok_is(param,
		    qos_ulps[i].param)))
			break;
	if (i == qos_nulps) {
		for (i = 0; i < qos_nulps; i++)
			if (tok_ieq(name, qos_ulps[i].ulp) && qos_ulps[i].param != NULL &&
			    comma == NULL) {
				ERR(ps, name.s, "qos-ulps: '%s' needs ', %s "
				    "VALUES'", qos_ulps[i].ulp, qos_ulps[i].param);
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
	r = new_rule(p);
	r->ulp = qos_ulps[i].kind;
	if (qos_ulps[i].param != NULL) {
		uint64_t max;
		const char *what = qos_ulp_what(r->ulp, &max);

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
		(void)new_rule(p);
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
	/* a name given but refused has its error already */
	if (ps->blk == B_GROUP && !(ps->seen & 1))
		ERR(ps, t.s, "port-group (line %u) has no name", ps->blk_line);
	if (ps->blk == B_LEVEL && !(ps->seen & 1))
		ERR(ps, t.s, "qos-level (line %u) has no name", ps->blk_line);
	/* OpenSM requires an SL in every level */
	if (ps->blk == B_LEVEL && !(ps->seen & 4))
		ERR(ps, t.s, "qos-level (line %u) has no sl", ps->blk_line);
	/* (a name given but refused has its error already) */
	if (ps->blk == B_RULE && !(ps->seen & 2))
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

const struct qos_ulp_name qos_ulps[] = {
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
const size_t qos_nulps = sizeof(qos_ulps) / sizeof(qos_ulps[0]);

const char *
qos_ulp_what(enum ulp k, uint64_t *max)
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

bool
qos_rl_has(const struct rlist *l, uint64_t x)
{
	for (size_t i = 0; i < l->n; i++)
		if (x >= l->v[i].lo && x <= l->v[i].hi)
			return true;
	return false;
}
