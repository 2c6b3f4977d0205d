#include "core/pool.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

void
pool_init(struct pool *p, size_t size, unsigned max)
{
	p->free = NULL;
	p->size = size < sizeof(void *) ? sizeof(void *) : size;
	p->nfree = 0;
	p->max = max;
}

void *
pool_get(struct pool *p)
{
	void *o = p->free;

	if (o == NULL)
		return xcalloc(1, p->size);
	memcpy(&p->free, o, sizeof(void *));
	p->nfree--;
	memset(o, 0, p->size);
	return o;
}

void
pool_put(struct pool *p, void *o)
{
	if (o == NULL)
		return;
	if (p->nfree >= p->max) {
		free(o);
		return;
	}
	memcpy(o, &p->free, sizeof(void *));
	p->free = o;
	p->nfree++;
}

void
pool_fini(struct pool *p)
{
	void *o, *next;

	for (o = p->free; o != NULL; o = next) {
		memcpy(&next, o, sizeof(void *));
		free(o);
	}
	p->free = NULL;
	p->nfree = 0;
}
