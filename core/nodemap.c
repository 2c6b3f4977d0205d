/*
 * Node names by GUID. See nodemap.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* asprintf */
#endif
#include "core/nodemap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/guidhash.h"
#include "core/log.h"

struct node_names {
	struct guid_hash idx;   /* GUID -> index in name[] */
	char **name;
	size_t n;
};

static const struct node_names *current;

static void __attribute__((format(printf, 6, 7)))
mistake(void (*err)(void *, const char *), void *arg, const char *file,
    unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[256], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (asprintf(&s, "%s:%u:%u: %s", file, line, col, msg) < 0)
		fatal("node names");
	err(arg, s);
	free(s);
}

unsigned
node_names_parse(const char *file, const char *text, size_t len,
    struct node_names **out, void (*err)(void *arg, const char *line),
    void *arg)
{
	struct node_names *m = xcalloc(1, sizeof(*m));
	unsigned bad = 0, line = 0;
	size_t off = 0;

	guid_hash_init(&m->idx);
	while (off < len) {
		const char *s = text + off, *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off, i = 0, start;
		unsigned long long g;
		char num[32], *end;

		off += n + 1;
		line++;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i == n || s[i] == '#')
			continue;
		start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '#' &&
		    s[i] != '\r' && i - start < sizeof(num) - 1)
			i++;
		memcpy(num, s + start, i - start);
		num[i - start] = '\0';
		errno = 0;
		g = strtoull(num, &end, 0);
		if (*end != '\0' || errno != 0 || num[0] == '-' || g == 0) {
			mistake(err, arg, file, line, (unsigned)start + 1,
			    "bad GUID '%s': expected 0x and up to 16 hex "
			    "digits", num);
			bad++;
			continue;
		}
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < n && s[i] == '"') {
			const char *q = memchr(s + i + 1, '"', n - i - 1);

			if (q == NULL) {
				mistake(err, arg, file, line, (unsigned)i + 1,
				    "no closing '\"'");
				bad++;
				continue;
			}
			start = i + 1;
			i = (size_t)(q - s);
		} else {
			size_t e = n;

			/* an unquoted name: to the end, without a comment
			 * or trailing blanks */
			start = i;
			for (size_t k = i; k < n; k++)
				if (s[k] == '#') {
					e = k;
					break;
				}
			while (e > start && (s[e - 1] == ' ' ||
			    s[e - 1] == '\t' || s[e - 1] == '\r'))
				e--;
			i = e;
		}
		if (i == start) {
			mistake(err, arg, file, line, (unsigned)start + 1,
			    "no name for 0x%016llx", g);
			bad++;
			continue;
		}
		if (guid_hash_get(&m->idx, g) != GUID_HASH_NONE) {
			mistake(err, arg, file, line, 1, "0x%016llx is named "
			    "twice (first \"%s\")", g,
			    m->name[guid_hash_get(&m->idx, g)]);
			bad++;
			continue;
		}
		m->name = xreallocarray(m->name, m->n + 1, sizeof(*m->name));
		m->name[m->n] = xmalloc(i - start + 1);
		memcpy(m->name[m->n], s + start, i - start);
		m->name[m->n][i - start] = '\0';
		guid_hash_put(&m->idx, g, (uint32_t)m->n);
		m->n++;
	}
	if (bad > 0) {
		node_names_free(m);
		m = NULL;
	}
	*out = m;
	return bad;
}

void
node_names_free(struct node_names *m)
{
	if (m == NULL)
		return;
	if (current == m)
		current = NULL;
	for (size_t i = 0; i < m->n; i++)
		free(m->name[i]);
	free(m->name);
	guid_hash_fini(&m->idx);
	free(m);
}

size_t
node_names_count(const struct node_names *m)
{
	return m ? m->n : 0;
}

const char *
node_names_get(const struct node_names *m, uint64_t guid)
{
	uint32_t i;

	if (m == NULL || guid == 0 ||
	    (i = guid_hash_get(&m->idx, guid)) == GUID_HASH_NONE)
		return NULL;
	return m->name[i];
}

void
node_names_use(const struct node_names *m)
{
	current = m;
}

const struct node_names *
node_names_current(void)
{
	return current;
}
