/*
 * What partitions/ shares inside: allocation that never fails (it is
 * fatal), a growable text buffer, the diagnostics of a parse, and the names
 * of IBA MTU and rate codes.
 */
#include "partitions/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* ---- memory (core/alloc: out of memory is fatal) ------------------ */

char *
pkey_xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *
pkey_xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	char *s;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		fatalx("partitions: bad message format");
	s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

void
pkey_buf_printf(struct pkey_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("partitions: bad format");
	if (b->len + (size_t)n + 1 > b->cap) {
		while (b->len + (size_t)n + 1 > b->cap)
			b->cap = b->cap ? 2 * b->cap : 256;
		b->s = xreallocarray(b->s, b->cap, 1);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---- diagnostics ----------------------------------------------------- */

void
pkey_errors_init(struct pkey_errors *e)
{
	memset(e, 0, sizeof(*e));
}

void
pkey_errors_fini(struct pkey_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->msgs[i].text);
	free(e->msgs);
	free(e->file);
	memset(e, 0, sizeof(*e));
}

void
pkey_msg_add(struct pkey_errors *e, enum pkey_msg_level level, unsigned line,
    unsigned col, const char *fmt, ...)
{
	va_list ap;

	GROW(e->msgs, e->n, e->cap);
	va_start(ap, fmt);
	e->msgs[e->n].text = pkey_xvasprintf(fmt, ap);
	va_end(ap);
	e->msgs[e->n].level = level;
	e->msgs[e->n].line = line;
	e->msgs[e->n].col = col;
	e->n++;
	if (level == PKEY_MSG_ERROR)
		e->nerrors++;
}

int
pkey_msg_format(const struct pkey_errors *e, size_t i, char *buf, size_t len)
{
	const struct pkey_msg *m = &e->msgs[i];
	const char *file = e->file ? e->file : "partitions.conf";
	const char *kind = m->level == PKEY_MSG_NOTE ? "note: " :
	    m->level == PKEY_MSG_WARNING ? "warning: " : "";

	if (m->line == 0)
		return snprintf(buf, len, "%s: %s%s", file, kind, m->text);
	return snprintf(buf, len, "%s:%u:%u: %s%s", file, m->line, m->col,
	    kind, m->text);
}

char *
pkey_errors_text(const struct pkey_errors *e, bool notes)
{
	struct pkey_buf b = { 0 };
	char line[1024];

	pkey_buf_printf(&b, "%s", "");
	for (size_t i = 0; i < e->n; i++) {
		if (e->msgs[i].level == PKEY_MSG_NOTE && !notes)
			continue;
		pkey_msg_format(e, i, line, sizeof(line));
		pkey_buf_printf(&b, "%s\n", line);
	}
	return b.s;
}

struct msg_order {
	struct pkey_msg m;
	size_t seq;
};

static int
msg_cmp(const void *a, const void *b)
{
	const struct msg_order *x = a, *y = b;
	/* messages about the whole file come last */
	unsigned xl = x->m.line ? x->m.line : ~0u;
	unsigned yl = y->m.line ? y->m.line : ~0u;

	if (xl != yl)
		return xl < yl ? -1 : 1;
	if (x->m.col != y->m.col)
		return x->m.col < y->m.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* File order, stable: the merge pass reports after the scan. */
void
pkey_msgs_sort(struct pkey_errors *e, size_t from)
{
	size_t n = e->n - from, i;
	struct msg_order *o;

	if (n < 2)
		return;
	o = xmalloc(n * sizeof(*o));
	for (i = 0; i < n; i++) {
		o[i].m = e->msgs[from + i];
		o[i].seq = i;
	}
	qsort(o, n, sizeof(*o), msg_cmp);
	for (i = 0; i < n; i++)
		e->msgs[from + i] = o[i].m;
	free(o);
}

/* ---- IBA codes ------------------------------------------------------- */

const char *
pkey_mtu_bytes(unsigned mtu)
{
	static const char *const bytes[] = { NULL, "256", "512", "1024",
	    "2048", "4096" };

	return mtu < sizeof(bytes) / sizeof(bytes[0]) ? bytes[mtu] : NULL;
}

const char *
pkey_rate_gbps(unsigned rate)
{
	static const char *const gbps[] = { NULL, NULL, "2.5", "10", "30",
	    "5", "20", "40", "60", "80", "120", "14", "56", "112", "168", "25",
	    "100", "200", "300", "28", "50", "400", "600", "800", "1200" };

	return rate < sizeof(gbps) / sizeof(gbps[0]) ? gbps[rate] : NULL;
}

