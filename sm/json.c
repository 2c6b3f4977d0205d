#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* vasprintf */
#endif
#include "sm/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* ---- the tree of the flat and text forms ---- */

enum node_type { N_OBJECT, N_ARRAY, N_STRING, N_NUMBER, N_BOOL, N_NULL };

struct json_node {
	char *key;              /* NULL in an array (and for the root) */
	enum node_type type;
	char *value;            /* scalars: the text; bool "1" or "0" */
	struct json_node *kid;
	size_t nkids, cap;
};

static void
node_free(struct json_node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(&n->kid[i]);
	free(n->kid);
	free(n->key);
	free(n->value);
}

static char *
xstrdup_(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("json");
	return p;
}

void
json_init_mode(struct json *j, enum json_mode mode)
{
	memset(j, 0, sizeof(*j));
	j->empty[0] = true;
	j->mode = mode;
}

void
json_init(struct json *j)
{
	json_init_mode(j, JSON_MODE_JSON);
}

void
json_fini(struct json *j)
{
	free(j->buf);
	if (j->root != NULL) {
		node_free(j->root);
		free(j->root);
	}
	free(j->key);
	memset(j, 0, sizeof(*j));
}

static void
reserve(struct json *j, size_t n)
{
	size_t cap;

	if (j->len + n + 1 <= j->cap)
		return;
	cap = j->cap ? j->cap : 256;
	while (cap < j->len + n + 1)
		cap *= 2;
	if ((j->buf = realloc(j->buf, cap)) == NULL)
		fatal("json: %zu bytes", cap);
	j->cap = cap;
}

static void
put(struct json *j, const char *s, size_t n)
{
	reserve(j, n);
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void
putc_(struct json *j, char c)
{
	put(j, &c, 1);
}

static void __attribute__((format(printf, 2, 3)))
putf(struct json *j, const char *fmt, ...)
{
	char small[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("json: bad format");
	if ((size_t)n < sizeof(small)) {
		put(j, small, (size_t)n);
		return;
	}
	reserve(j, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(j->buf + j->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	j->len += (size_t)n;
}

/* Before any value: the comma that separates it from the previous one,
 * unless it follows its key. */
static void
value_start(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->empty[j->depth])
		putc_(j, ',');
	j->empty[j->depth] = false;
}

static void
open_(struct json *j, char c)
{
	value_start(j);
	if (j->depth == JSON_MAX_DEPTH)
		fatalx("json: nested deeper than %d", JSON_MAX_DEPTH);
	putc_(j, c);
	j->empty[++j->depth] = true;
}

static void
close_(struct json *j, char c)
{
	if (j->depth == 0 || j->after_key)
		fatalx("json: '%c' without an open value", c);
	j->depth--;
	putc_(j, c);
}

static void render(struct json *j);

/* A value of the tree under the open container (or the root). */
static struct json_node *
t_add(struct json *j, enum node_type type, char *value)
{
	struct json_node *parent = j->depth ? j->open[j->depth] : NULL, *n;

	if (parent == NULL) {
		if (j->root != NULL)
			fatalx("json: a second document");
		if ((j->root = calloc(1, sizeof(*j->root))) == NULL)
			fatal("json");
		n = j->root;
	} else {
		if (parent->nkids == parent->cap) {
			parent->cap = parent->cap ? 2 * parent->cap : 8;
			parent->kid = realloc(parent->kid,
			    parent->cap * sizeof(*parent->kid));
			if (parent->kid == NULL)
				fatal("json");
		}
		n = &parent->kid[parent->nkids++];
		memset(n, 0, sizeof(*n));
	}
	if ((parent == NULL || parent->type == N_OBJECT) != (j->key != NULL) &&
	    parent != NULL)
		fatalx("json: a value %s a key", j->key ? "with" : "without");
	n->key = j->key;
	j->key = NULL;
	n->type = type;
	n->value = value;
	if (type == N_OBJECT || type == N_ARRAY) {
		if (j->depth == JSON_MAX_DEPTH)
			fatalx("json: nested deeper than %d", JSON_MAX_DEPTH);
		j->open[++j->depth] = n;
	}
	return n;
}

static void
t_close(struct json *j)
{
	if (j->depth == 0 || j->key != NULL)
		fatalx("json: a close without an open value");
	if (--j->depth == 0)
		render(j);
}

static void __attribute__((format(printf, 3, 4)))
t_scalar(struct json *j, enum node_type type, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		fatal("json");
	va_end(ap);
	t_add(j, type, v);
	if (j->depth == 0)
		render(j);
}

#define TREE(j)	((j)->mode != JSON_MODE_JSON)

void
json_object_begin(struct json *j)
{
	if (TREE(j)) {
		t_add(j, N_OBJECT, NULL);
		return;
	}
	open_(j, '{');
}

void
json_object_end(struct json *j)
{
	if (TREE(j)) {
		t_close(j);
		return;
	}
	close_(j, '}');
}

void
json_array_begin(struct json *j)
{
	if (TREE(j)) {
		t_add(j, N_ARRAY, NULL);
		return;
	}
	open_(j, '[');
}

void
json_array_end(struct json *j)
{
	if (TREE(j)) {
		t_close(j);
		return;
	}
	close_(j, ']');
}

void
json_key(struct json *j, const char *key)
{
	if (TREE(j)) {
		free(j->key);
		j->key = xstrdup_(key);
		return;
	}
	value_start(j);
	putc_(j, '"');
	json_escape(j, key, strlen(key));
	put(j, "\":", 2);
	j->after_key = true;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if there is
 * none (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

size_t
json_utf8_len(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	if ((unsigned char)s[0] < 0x80)
		return 1;
	return utf8_len((const unsigned char *)s, n);
}

void
json_escape(struct json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run;

	while (i < n) {
		/* copy plain ASCII in one go */
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x7F &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		if (run > i) {
			put(j, (const char *)s + i, run - i);
			i = run;
			continue;
		}
		switch (s[i]) {
		case '"':  put(j, "\\\"", 2); break;
		case '\\': put(j, "\\\\", 2); break;
		case '\b': put(j, "\\b", 2); break;
		case '\f': put(j, "\\f", 2); break;
		case '\n': put(j, "\\n", 2); break;
		case '\r': put(j, "\\r", 2); break;
		case '\t': put(j, "\\t", 2); break;
		default:
			if (s[i] < 0x80) {      /* other controls, DEL */
				putf(j, "\\u%04x", s[i]);
				break;
			}
			run = utf8_len(s + i, n - i);
			if (run == 0) {
				put(j, "\\ufffd", 6);
				break;
			}
			put(j, (const char *)s + i, run);
			i += run;
			continue;
		}
		i++;
	}
}

void
json_stringn(struct json *j, const char *s, size_t n)
{
	if (TREE(j)) {
		char *v = malloc(n + 1);

		if (v == NULL)
			fatal("json");
		memcpy(v, s, n);
		v[n] = '\0';
		t_add(j, N_STRING, v);
		if (j->depth == 0)
			render(j);
		return;
	}
	value_start(j);
	putc_(j, '"');
	json_escape(j, s, n);
	putc_(j, '"');
}

void
json_string(struct json *j, const char *s)
{
	if (s == NULL)
		json_null(j);
	else
		json_stringn(j, s, strlen(s));
}

void
json_uint(struct json *j, uint64_t v)
{
	if (TREE(j)) {
		t_scalar(j, N_NUMBER, "%" PRIu64, v);
		return;
	}
	value_start(j);
	putf(j, "%" PRIu64, v);
}

void
json_int(struct json *j, int64_t v)
{
	if (TREE(j)) {
		t_scalar(j, N_NUMBER, "%" PRId64, v);
		return;
	}
	value_start(j);
	putf(j, "%" PRId64, v);
}

void
json_double(struct json *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	if (TREE(j)) {
		t_scalar(j, N_NUMBER, "%.6g", v);
		return;
	}
	value_start(j);
	/* %g may print "1e+06" (valid JSON) but never "inf" or "nan" here;
	 * the daemon never calls setlocale, so the radix is '.'. */
	putf(j, "%.9g", v);
}

void
json_bool(struct json *j, bool v)
{
	if (TREE(j)) {
		t_scalar(j, N_BOOL, "%s", v ? "true" : "false");
		return;
	}
	value_start(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void
json_null(struct json *j)
{
	if (TREE(j)) {
		t_scalar(j, N_NULL, "-");
		return;
	}
	value_start(j);
	put(j, "null", 4);
}

void
json_guid(struct json *j, uint64_t guid)
{
	if (TREE(j)) {
		t_scalar(j, N_STRING, "0x%016" PRIx64, guid);
		return;
	}
	value_start(j);
	putf(j, "\"0x%016" PRIx64 "\"", guid);
}

void
json_raw(struct json *j, const char *text)
{
	if (TREE(j))
		fatalx("json: raw text in a tree");
	value_start(j);
	put(j, text, strlen(text));
}

void
json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void
json_kv_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void
json_kv_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void
json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void
json_kv_guid(struct json *j, const char *key, uint64_t guid)
{
	json_key(j, key);
	json_guid(j, guid);
}

/* ---- rendering the tree ---- */

/* A scalar for a line: control bytes shown as '?' (text) or escaped as
 * \n, \t, \xHH (flat, so that one value is one line). */
static void
put_value(struct json *j, const struct json_node *n)
{
	const unsigned char *v = (const unsigned char *)n->value;

	if (j->mode == JSON_MODE_FLAT && n->type == N_BOOL) {
		putc_(j, v[0] == 't' ? '1' : '0');
		return;
	}
	for (; *v; v++) {
		if (*v >= 0x20 && *v != 0x7f)
			putc_(j, (char)*v);
		else if (j->mode == JSON_MODE_TEXT)
			putc_(j, '?');
		else if (*v == '\n')
			put(j, "\\n", 2);
		else if (*v == '\t')
			put(j, "\\t", 2);
		else
			putf(j, "\\x%02x", *v);
	}
}

static void
flat(struct json *j, const struct json_node *n, char *path, size_t len)
{
	size_t k;

	if (n->type != N_OBJECT && n->type != N_ARRAY) {
		put(j, path, len);
		putc_(j, ' ');
		put_value(j, n);
		putc_(j, '\n');
		return;
	}
	for (size_t i = 0; i < n->nkids; i++) {
		const struct json_node *c = &n->kid[i];
		char idx[24];
		const char *name = c->key;

		if (n->type == N_ARRAY) {
			snprintf(idx, sizeof(idx), "%zu", i);
			name = idx;
		}
		k = strlen(name);
		if (len + k + 2 > 1024)
			continue;       /* no key that long: skip, not cut */
		if (len > 0)
			path[len] = '.';
		memcpy(path + len + (len > 0), name, k + 1);
		flat(j, c, path, len + (len > 0) + k);
		path[len] = '\0';
	}
}

static bool
scalar(const struct json_node *n)
{
	return n->type != N_OBJECT && n->type != N_ARRAY;
}

#define INLINE_MAX	8       /* plain values an object may show on one line */

/* An object or list of at most INLINE_MAX plain values: on one line. */
static bool
inline_ok(const struct json_node *n)
{
	/* a list of plain values, however long, or a small object of them */
	if (n->type == N_OBJECT && n->nkids > INLINE_MAX)
		return false;
	for (size_t i = 0; i < n->nkids; i++)
		if (!scalar(&n->kid[i]))
			return false;
	return true;
}

static void
indent(struct json *j, int ind)
{
	for (int i = 0; i < ind; i++)
		putc_(j, ' ');
}

static void
text_inline(struct json *j, const struct json_node *n)
{
	putc_(j, n->type == N_OBJECT ? '{' : '[');
	for (size_t i = 0; i < n->nkids; i++) {
		if (i > 0)
			put(j, ", ", 2);
		if (n->type == N_OBJECT) {
			put(j, n->kid[i].key, strlen(n->kid[i].key));
			put(j, ": ", 2);
		}
		put_value(j, &n->kid[i]);
	}
	putc_(j, n->type == N_OBJECT ? '}' : ']');
}

static void text_children(struct json *j, const struct json_node *n, int ind,
    bool positioned);

/* One member or entry at indentation ind: "key: value", "key:" and what it
 * holds under it, or in a list "- value". positioned: the line is started
 * already (the "- " of a list entry that is an object). */
static void
text_one(struct json *j, const struct json_node *c, int ind, bool positioned)
{
	bool entry = c->key == NULL;

	if (!positioned)
		indent(j, ind);
	if (entry)
		put(j, "- ", 2);
	else {
		put(j, c->key, strlen(c->key));
		putc_(j, ':');
	}
	if (scalar(c) || inline_ok(c)) {
		if (!entry)
			putc_(j, ' ');
		if (scalar(c))
			put_value(j, c);
		else
			text_inline(j, c);
		putc_(j, '\n');
		return;
	}
	if (entry && c->type == N_OBJECT) {
		/* its first member on the "- " line, the others under it */
		text_children(j, c, ind + 2, true);
		return;
	}
	putc_(j, '\n');
	text_children(j, c, ind + 2, false);
}

static void
text_children(struct json *j, const struct json_node *n, int ind,
    bool positioned)
{
	for (size_t i = 0; i < n->nkids; i++)
		text_one(j, &n->kid[i], ind, positioned && i == 0);
}

static void
render(struct json *j)
{
	char path[1024] = "";

	if (j->root == NULL)
		return;
	if (j->mode == JSON_MODE_FLAT)
		flat(j, j->root, path, 0);
	else if (scalar(j->root))
		put_value(j, j->root);
	else if (inline_ok(j->root))
		text_inline(j, j->root);
	else
		text_children(j, j->root, 0, false);
	if (j->buf == NULL)
		put(j, "", 0);
}
