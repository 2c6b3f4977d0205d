#include "sm/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void
json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->empty[0] = true;
}

void
json_fini(struct json *j)
{
	free(j->buf);
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

void
json_object_begin(struct json *j)
{
	open_(j, '{');
}

void
json_object_end(struct json *j)
{
	close_(j, '}');
}

void
json_array_begin(struct json *j)
{
	open_(j, '[');
}

void
json_array_end(struct json *j)
{
	close_(j, ']');
}

void
json_key(struct json *j, const char *key)
{
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
	value_start(j);
	putf(j, "%" PRIu64, v);
}

void
json_int(struct json *j, int64_t v)
{
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
	value_start(j);
	/* %g may print "1e+06" (valid JSON) but never "inf" or "nan" here;
	 * the daemon never calls setlocale, so the radix is '.'. */
	putf(j, "%.9g", v);
}

void
json_bool(struct json *j, bool v)
{
	value_start(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void
json_null(struct json *j)
{
	value_start(j);
	put(j, "null", 4);
}

void
json_guid(struct json *j, uint64_t guid)
{
	value_start(j);
	putf(j, "\"0x%016" PRIx64 "\"", guid);
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
