/*
 * Allocation that never returns NULL: out of memory is fatal (STYLE.md 8).
 * n may be 0; the result is then a valid pointer to free().
 */
#ifndef IBSMD_ALLOC_H
#define IBSMD_ALLOC_H

#include <stddef.h>

void *xcalloc(size_t n, size_t size);
void *xmalloc(size_t size);
/* realloc to n elements of size bytes, checking n * size for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

#endif
