#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size ? size : 1)) == NULL)
		fatalx("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xmalloc(size_t size)
{
	void *p;

	if ((p = malloc(size ? size : 1)) == NULL)
		fatalx("out of memory (%zu bytes)", size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

	if (size != 0 && n > SIZE_MAX / size)
		fatalx("out of memory (%zu x %zu bytes overflows)", n, size);
	if ((q = realloc(p, n && size ? n * size : 1)) == NULL)
		fatalx("out of memory (%zu x %zu bytes)", n, size);
	return q;
}

char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		fatalx("out of memory (string of %zu bytes)", strlen(s) + 1);
	return p;
}
