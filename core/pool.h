/*
 * A free list of fixed-size objects: what a request engine allocates and
 * frees once per MAD (a request, its completion record) is kept for the
 * next one instead of going back to malloc, which costs about a tenth of
 * the SM's user CPU per SMP otherwise
 * (bench/results/2026-11-23-bringup-issue14.md). At most max objects are
 * kept; the rest are freed. Not thread-safe: one pool per loop.
 */
#ifndef IBSMD_POOL_H
#define IBSMD_POOL_H

#include <stddef.h>

struct pool {
	void *free;             /* kept objects, linked through their first
	                         * pointer-sized bytes */
	size_t size;
	unsigned nfree, max;
};

void pool_init(struct pool *p, size_t size, unsigned max);
/* A zeroed object of the pool's size; never NULL (out of memory is
 * fatal, as with xcalloc). */
void *pool_get(struct pool *p);
/* Give o back (NULL: nothing). */
void pool_put(struct pool *p, void *o);
/* Free every kept object; the pool stays usable. */
void pool_fini(struct pool *p);

#endif
