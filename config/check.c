/*
 * ibsmd.conf values: text to typed fields, checked against the schema,
 * with the error messages; and the helpers the module shares. See
 * config_int.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* vasprintf, strcasecmp */
#endif
#include "config/config_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/qos.h"
#include "core/log.h"

#define MAX_ERRORS	100		/* per load, then give up */

/* ------------------------------------------------------------------ */
/* Small helpers */

char *
config_strndup(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p == NULL)
		fatal("config");
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
config_strdup(const char *s)
{
	return s ? config_strndup(s, strlen(s)) : NULL;
}

static int
find_allowed(const char *const *allowed, const char *s)
{
	for (int i = 0; allowed[i] != NULL; i++)
		if (strcmp(allowed[i], s) == 0)
			return i;
	return -1;
}

void
config_join_allowed(const char *const *allowed, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; allowed[i] != NULL && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? ", " : "", allowed[i]);
}

const char *
config_show(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t o = 0, i;

	buf[o++] = '"';
	for (i = 0; i < len && o + 8 < buflen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 40) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, buflen - o, "\\%c", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

void
config_errors_fini(struct config_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		free(errs->line[i]);
	free(errs->line);
	for (size_t i = 0; i < errs->nnotes; i++)
		free(errs->note[i]);
	free(errs->note);
	memset(errs, 0, sizeof(*errs));
}

static void
push_line(char ***v, size_t *n, char *s)
{
	char **l = realloc(*v, (*n + 1) * sizeof(*l));

	if (l == NULL)
		fatal("config");
	*v = l;
	(*v)[(*n)++] = s;
}

void
config_errs_add(struct config_errors *errs, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("config");
	va_end(ap);
	push_line(&errs->line, &errs->n, s);
}

/* ------------------------------------------------------------------ */
/* Scalars from text */

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static unsigned
hexval(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* 0x and 1-16 hex digits. */
static int
parse_guid(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
		return -1;
	for (i = 2; s[i] != '\0'; i++) {
		if (!is_hex(s[i]) || i - 2 >= 16)
			return -1;
		v = v << 4 | hexval(s[i]);
	}
	*out = v;
	return 0;
}

enum { INT_OK, INT_BAD, INT_NEGATIVE, INT_TOO_BIG, INT_LEADING_ZERO };

/* Decimal, or 0x hex. A leading zero is refused: YAML 1.1 would read 010
 * as octal 8, a reader as 10 (partitions.conf refuses it too). */
static int
parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d;
	bool neg = false;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return INT_BAD;
	if (base == 10 && s[0] == '0' && s[1] >= '0' && s[1] <= '9' &&
	    s[strspn(s, "0123456789")] == '\0')
		return INT_LEADING_ZERO;
	for (; *s != '\0'; s++) {
		if (base == 16 ? !is_hex(*s) : (*s < '0' || *s > '9'))
			return INT_BAD;
		d = hexval(*s);
		if (v > (UINT64_MAX - d) / base)
			return neg ? INT_NEGATIVE : INT_TOO_BIG;
		v = v * base + d;
	}
	if (neg && v != 0)
		return INT_NEGATIVE;
	*out = v;
	return INT_OK;
}

static int
parse_double(const char *s, double *out)
{
	const char *p = s;
	char *end;

	/* Plain decimal notation only: no hex floats, inf or nan. */
	if (*p == '-' || *p == '+')
		p++;
	if (!((*p >= '0' && *p <= '9') || *p == '.') ||
	    (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(*out))
		return -1;
	return 0;
}

static int
parse_bool(const char *s, bool *out)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		*out = true;
	else if (!strcasecmp(s, "false") || !strcasecmp(s, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

int
config_format_double(double d, char *buf, size_t len)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int prec = 1; prec <= 17; prec++) {
			n = snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d &&
			    (pass == 1 || strchr(buf, 'e') == NULL))
				return n;
		}
	return n;
}

/* ------------------------------------------------------------------ */
/* Values of options */

bool
config_node_null(const struct cfg_node *n)
{
	return n->kind == CFG_NODE_SCALAR && n->plain && (n->len == 0 ||
	    !strcmp(n->text, "~") || !strcmp(n->text, "null") ||
	    !strcmp(n->text, "Null") || !strcmp(n->text, "NULL"));
}

const char *
config_kind_name(enum cfg_node_kind k)
{
	switch (k) {
	case CFG_NODE_LIST:
		return "a list";
	case CFG_NODE_MAP:
		return "a mapping";
	case CFG_NODE_ALIAS:
		return "an alias";
	default:
		return "a scalar";
	}
}

void
config_err_at(struct cfg_check *ck, unsigned line, unsigned col,
    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ck->stop)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ck->nerr == MAX_ERRORS) {
		config_errs_add(ck->errs, "%s: too many errors, giving up",
		    ck->name ? ck->name : "command line");
		ck->stop = true;
		return;
	}
	ck->nerr++;
	if (ck->name == NULL)
		config_errs_add(ck->errs, "command line: %s", msg);
	else
		config_errs_add(ck->errs, "%s:%u:%u: %s", ck->name, line, col,
		    msg);
}

void
config_note_at(struct cfg_check *ck, unsigned line, unsigned col,
    const char *fmt, ...)
{
	char msg[512], *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ck->name == NULL)
		r = asprintf(&s, "command line: note: %s", msg);
	else
		r = asprintf(&s, "%s:%u:%u: note: %s", ck->name, line, col, msg);
	if (r < 0)
		fatal("config");
	push_line(&ck->errs->note, &ck->errs->nnotes, s);
}

/* What a value of o must look like, for "expected ..." messages. */
static void
expected(const struct cfg_option *o, char *buf, size_t len)
{
	char list[128];

	switch (o->type) {
	case CFG_BOOL:
		snprintf(buf, len, "true or false");
		break;
	case CFG_UINT:
		snprintf(buf, len, "an integer");
		break;
	case CFG_DOUBLE:
		snprintf(buf, len, "a number");
		break;
	case CFG_GUID:
		snprintf(buf, len, "a %s (0x and up to 16 hex digits)",
		    o->unit ? o->unit : "GUID");
		break;
	case CFG_STRING:
		snprintf(buf, len, "a string");
		break;
	case CFG_PATH:
		snprintf(buf, len, "a path");
		break;
	case CFG_ENUM:
		config_join_allowed(o->allowed, list, sizeof(list));
		snprintf(buf, len, "one of %s", list);
		break;
	case CFG_ENUM_LIST:
		config_join_allowed(o->allowed, list, sizeof(list));
		snprintf(buf, len, "a list of %s", list);
		break;
	case CFG_GUID_LIST:
		snprintf(buf, len, "a list of GUIDs");
		break;
	case CFG_GUIDS_OR_ALL:
		snprintf(buf, len, "all or a list of GUIDs");
		break;
	}
}

static void
err_kind(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd)
{
	char exp[160];

	expected(o, exp, sizeof(exp));
	if (nd->kind == CFG_NODE_ALIAS)
		CFG_ERR(ck, nd, "%s: aliases (*%s) are not supported", o->name,
		    nd->text);
	else
		CFG_ERR(ck, nd, "%s: expected %s, got %s", o->name, exp,
		    config_kind_name(nd->kind));
}

/* Range check and store of an integer or a number given as text. */
static int
check_range(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd, double v)
{
	char lo[32], hi[32];

	if ((v >= o->min && v <= o->max) ||
	    (v == 0 && (o->flags & CFG_F_ZERO_OFF)))
		return 0;
	config_format_double(o->min, lo, sizeof(lo));
	config_format_double(o->max, hi, sizeof(hi));
	if (o->flags & CFG_F_MINUS_ONE)
		CFG_ERR(ck, nd, "%s: %s is out of range (-1 for unset, or %s "
		    "to %s)", o->name, nd->text, lo, hi);
	else if (o->flags & CFG_F_ZERO_OFF)
		CFG_ERR(ck, nd, "%s: %s is out of range (0 for %s, or %s to "
		    "%s%s%s)", o->name, nd->text, o->flags & CFG_F_UNSET ?
		    "unset" : "off", lo, hi, o->unit ? " " : "",
		    o->unit ? o->unit : "");
	else if (o->min == o->max)
		CFG_ERR(ck, nd, "%s: %s is out of range (only %s is supported)",
		    o->name, nd->text, lo);
	else
		CFG_ERR(ck, nd, "%s: %s is out of range (%s to %s%s%s)",
		    o->name, nd->text, lo, hi, o->unit ? " " : "",
		    o->unit ? o->unit : "");
	return -1;
}

/* The index an ENUM's other word stands for (with its note); -2 when the
 * word is refused (error given), -1 when it is none of them. */
static int
find_word(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd)
{
	for (const struct cfg_word *w = o->words; w && w->text; w++) {
		if (strcmp(w->text, nd->text) != 0)
			continue;
		if (w->value < 0) {
			CFG_ERR(ck, nd, "%s: \"%s\" is refused: %s", o->name,
			    w->text, w->note);
			return -2;
		}
		if (w->note != NULL)
			config_note_at(ck, nd->line, nd->col, "%s: \"%s\" read "
			    "as %s: %s", o->name, w->text,
			    o->allowed[w->value], w->note);
		return w->value;
	}
	return -1;
}

/* issue 27: a QoS table text (core/qos.h's grammar), the error at the
 * column of what is wrong (a plain or single-line quoted scalar). */
static int
check_qos_text(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd)
{
	uint8_t blocks[2][QOS_VLARB_BLOCK_BYTES], t[QOS_SL2VL_BYTES];
	const char *why = "";
	size_t at = 0;
	int r;

	if (o->flags & CFG_F_QOS_VLARB)
		r = qos_parse_vlarb(nd->text, blocks, &at, &why);
	else
		r = qos_parse_sl2vl(nd->text, t, &at, &why);
	if (r == 0)
		return 0;
	if (nd->text[at] == '\0')
		config_err_at(ck, nd->line, nd->col + (unsigned)at +
		    (nd->plain || nd->line == 0 ? 0u : 1u), "%s: %s at the end",
		    o->name, why);
	else
		config_err_at(ck, nd->line, nd->col + (unsigned)at +
		    (nd->plain || nd->line == 0 ? 0u : 1u), "%s: %s at "
		    "\"%.20s\"", o->name, why, nd->text + at);
	return -1;
}

/* One scalar node into the field of a scalar option. */
static int
check_scalar(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd, void *f)
{
	char exp[160], got[160], host[256];
	const char *why;
	unsigned port;
	uint64_t u;
	double d;
	bool b;
	int r;

	if (nd->kind != CFG_NODE_SCALAR) {
		err_kind(ck, o, nd);
		return -1;
	}
	if (config_node_null(nd)) {
		CFG_ERR(ck, nd, "%s: missing value", o->name);
		return -1;
	}
	expected(o, exp, sizeof(exp));
	config_show(nd->text, nd->len, got, sizeof(got));
	if (strlen(nd->text) != nd->len) {
		CFG_ERR(ck, nd, "%s: NUL character in %s", o->name, got);
		return -1;
	}
	switch (o->type) {
	case CFG_BOOL:
	case CFG_UINT:
	case CFG_DOUBLE:
	case CFG_GUID:
		/* YAML types: a quoted 10 is a string, not a number. */
		if (!nd->plain) {
			CFG_ERR(ck, nd, "%s: expected %s, got the string %s "
			    "(write it without quotes)", o->name, exp, got);
			return -1;
		}
		break;
	default:
		break;
	}
	switch (o->type) {
	case CFG_BOOL:
		if (parse_bool(nd->text, &b) < 0) {
			CFG_ERR(ck, nd, "%s: expected %s, got %s", o->name, exp,
			    got);
			return -1;
		}
		*(bool *)f = b;
		return 0;
	case CFG_UINT:
		r = parse_uint(nd->text, &u);
		if (r == INT_BAD) {
			CFG_ERR(ck, nd, "%s: expected %s, got %s", o->name, exp,
			    got);
			return -1;
		}
		if (r == INT_LEADING_ZERO) {
			CFG_ERR(ck, nd, "%s: %s has a leading zero (write "
			    "decimal without it, or hex after 0x)", o->name,
			    nd->text);
			return -1;
		}
		if (r == INT_NEGATIVE && (o->flags & CFG_F_MINUS_ONE) &&
		    strcmp(nd->text, "-1") == 0) {
			*(unsigned *)f = CFG_UINT_UNSET;
			return 0;
		}
		if (r == INT_NEGATIVE)
			return check_range(ck, o, nd, -1);
		if (r == INT_TOO_BIG || u > UINT_MAX)
			return check_range(ck, o, nd, INFINITY);
		if (check_range(ck, o, nd, (double)u) < 0)
			return -1;
		*(unsigned *)f = (unsigned)u;
		return 0;
	case CFG_DOUBLE:
		if (parse_double(nd->text, &d) < 0) {
			CFG_ERR(ck, nd, "%s: expected %s, got %s", o->name, exp,
			    got);
			return -1;
		}
		if (check_range(ck, o, nd, d) < 0)
			return -1;
		*(double *)f = d;
		return 0;
	case CFG_GUID:
		if (parse_guid(nd->text, &u) < 0) {
			CFG_ERR(ck, nd, "%s: %s is not %s", o->name, got, exp);
			return -1;
		}
		*(uint64_t *)f = u;
		return 0;
	case CFG_STRING:
	case CFG_PATH:
		if (nd->len == 0 && !(o->flags & CFG_F_EMPTY_OFF)) {
			CFG_ERR(ck, nd, "%s: empty %s", o->name,
			    o->type == CFG_PATH ? "path" : "string");
			return -1;
		}
		if ((o->flags & CFG_F_HOSTPORT) && nd->len > 0 &&
		    config_hostport(nd->text, host, sizeof(host), &port,
		    &why) < 0) {
			CFG_ERR(ck, nd, "%s: %s is not HOST:PORT: %s", o->name,
			    got, why);
			return -1;
		}
		if ((o->flags & (CFG_F_QOS_VLARB | CFG_F_QOS_SL2VL)) &&
		    nd->len > 0 && check_qos_text(ck, o, nd) < 0)
			return -1;
		free(*(char **)f);
		*(char **)f = config_strdup(nd->text);
		return 0;
	case CFG_ENUM:
		r = find_allowed(o->allowed, nd->text);
		if (r < 0 && (r = find_word(ck, o, nd)) == -2)
			return -1;
		if (r < 0) {
			CFG_ERR(ck, nd, "%s: %s is not %s", o->name, got, exp);
			return -1;
		}
		config_put_enum(f, (unsigned)r);
		return 0;
	default:
		abort();
	}
}

/* One list entry; -1 on error. */
static int
check_entry(struct cfg_check *ck, const struct cfg_option *o,
    const struct cfg_node *nd, uint64_t *guid, int *index)
{
	char got[160], list[128];

	if (nd->kind != CFG_NODE_SCALAR) {
		if (nd->kind == CFG_NODE_ALIAS)
			CFG_ERR(ck, nd, "%s: aliases (*%s) are not supported",
			    o->name, nd->text);
		else
			CFG_ERR(ck, nd, "%s: expected %s in the list, got %s",
			    o->name, o->type == CFG_ENUM_LIST ? "a name" :
			    "a GUID", config_kind_name(nd->kind));
		return -1;
	}
	config_show(nd->text, nd->len, got, sizeof(got));
	if (config_node_null(nd)) {
		CFG_ERR(ck, nd, "%s: empty list entry", o->name);
		return -1;
	}
	if (strlen(nd->text) != nd->len) {
		CFG_ERR(ck, nd, "%s: NUL character in %s", o->name, got);
		return -1;
	}
	if (o->type == CFG_ENUM_LIST) {
		*index = find_allowed(o->allowed, nd->text);
		if (*index >= 0)
			return 0;
		config_join_allowed(o->allowed, list, sizeof(list));
		CFG_ERR(ck, nd, "%s: %s is not one of %s%s", o->name, got, list,
		    strchr(nd->text, ',') && nd->plain ?
		    " (write a list: [a, b])" : "");
		return -1;
	}
	if (o->type == CFG_GUIDS_OR_ALL && !strcmp(nd->text, "all")) {
		CFG_ERR(ck, nd, "%s: all stands alone, not in a list (write "
		    "%s: all)", o->name, o->name);
		return -1;
	}
	if (!nd->plain) {
		CFG_ERR(ck, nd, "%s: expected a GUID, got the string %s (write "
		    "it without quotes)", o->name, got);
		return -1;
	}
	if (parse_guid(nd->text, guid) < 0) {
		CFG_ERR(ck, nd, "%s: %s is not a GUID (0x and up to 16 hex "
		    "digits)", o->name, got);
		return -1;
	}
	return 0;
}

void
config_guid_list_free(struct cfg_guid_list *l)
{
	free(l->guid);
	memset(l, 0, sizeof(*l));
}

/* A list option from a list node (or one scalar, a list of one). */
static int
check_list(struct cfg_check *ck, const struct cfg_option *o,
    struct cfg_value *v, void *f)
{
	struct cfg_name_list names = { 0 };
	struct cfg_guid_list guids = { 0 };
	const struct cfg_node *items = v->item;
	size_t n = v->n, i, j;
	char list[128];
	int bad = 0, idx = 0;
	uint64_t g = 0;

	if (v->head.kind == CFG_NODE_MAP || v->head.kind == CFG_NODE_ALIAS) {
		err_kind(ck, o, &v->head);
		return -1;
	}
	if (v->head.kind == CFG_NODE_SCALAR) {
		if (config_node_null(&v->head)) {
			CFG_ERR(ck, &v->head, "%s: missing value (write [] "
			    "for an empty list)", o->name);
			return -1;
		}
		if (o->type == CFG_GUIDS_OR_ALL &&
		    !strcmp(v->head.text, "all")) {
			config_guid_list_free(f);
			((struct cfg_guid_list *)f)->all = true;
			return 0;
		}
		items = &v->head;
		n = 1;
	}
	if (n < o->min) {
		if (o->type == CFG_ENUM_LIST) {
			config_join_allowed(o->allowed, list, sizeof(list));
			CFG_ERR(ck, &v->head, "%s: empty list (give at least "
			    "one of %s)", o->name, list);
		} else
			CFG_ERR(ck, &v->head, "%s: empty list", o->name);
		return -1;
	}
	if (n > o->max) {
		CFG_ERR(ck, &v->head, "%s: %zu entries, at most %.0f", o->name,
		    n, o->max);
		return -1;
	}
	if (o->type != CFG_ENUM_LIST)
		guids.guid = xcalloc(n, sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		if (check_entry(ck, o, &items[i], &g, &idx) < 0) {
			bad = -1;
			continue;
		}
		if (o->type == CFG_ENUM_LIST) {
			for (j = 0; j < names.n; j++)
				if (names.name[j] == o->allowed[idx])
					break;
			if (j < names.n) {
				CFG_ERR(ck, &items[i], "%s: %s is listed twice",
				    o->name, o->allowed[idx]);
				bad = -1;
			} else
				names.name[names.n++] = o->allowed[idx];
			continue;
		}
		for (j = 0; j < guids.n; j++)
			if (guids.guid[j] == g)
				break;
		if (j < guids.n) {
			CFG_ERR(ck, &items[i], "%s: 0x%016" PRIx64 " is listed "
			    "twice", o->name, g);
			bad = -1;
		} else
			guids.guid[guids.n++] = g;
	}
	if (bad < 0) {
		free(guids.guid);
		return -1;
	}
	if (o->type == CFG_ENUM_LIST)
		*(struct cfg_name_list *)f = names;
	else {
		config_guid_list_free(f);
		*(struct cfg_guid_list *)f = guids;
	}
	return 0;
}

int
config_check_value(struct cfg_check *ck, const struct cfg_option *o,
    struct cfg_value *v, struct ibsmd_config *cfg)
{
	switch (o->type) {
	case CFG_ENUM_LIST:
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		return check_list(ck, o, v, config_field(cfg, o));
	default:
		return check_scalar(ck, o, &v->head, config_field(cfg, o));
	}
}

int
config_hostport(const char *s, char *host, size_t hlen, unsigned *port,
    const char **why)
{
	const char *colon, *h = s, *he;
	char *end;
	unsigned long v;

	if (s[0] == '[') {
		h = s + 1;
		if ((he = strchr(h, ']')) == NULL || he[1] != ':') {
			*why = "an IPv6 address is written [ADDRESS]:PORT";
			return -1;
		}
		colon = he + 1;
	} else {
		if ((colon = strrchr(s, ':')) == NULL) {
			*why = "no :PORT";
			return -1;
		}
		if (memchr(s, ':', (size_t)(colon - s)) != NULL) {
			*why = "an IPv6 address is written [ADDRESS]:PORT";
			return -1;
		}
		he = colon;
	}
	if (he == h) {
		*why = "no host (* for every address)";
		return -1;
	}
	for (const char *c = h; c < he; c++)
		if (!(isalnum((unsigned char)*c) || *c == '.' || *c == '-' ||
		    *c == ':' || *c == '_' || (*c == '*' && he - h == 1))) {
			*why = "a host is a name or an address";
			return -1;
		}
	if ((size_t)(he - h) >= hlen) {
		*why = "host name too long";
		return -1;
	}
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (!isdigit((unsigned char)colon[1]) || *end != '\0' || errno != 0 ||
	    v < 1 || v > 65535) {
		*why = "the port is a number from 1 to 65535";
		return -1;
	}
	if (he - h == 1 && *h == '*')
		host[0] = '\0';
	else {
		memcpy(host, h, (size_t)(he - h));
		host[he - h] = '\0';
	}
	*port = (unsigned)v;
	return 0;
}
