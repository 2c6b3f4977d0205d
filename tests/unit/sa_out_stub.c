/*
 * sa_out_* for suites that test attribute handlers before the agent's
 * sa/out.c is in libsa.a (sa-core). Same contract as sa/attr.h.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "sa/attr.h"

void
sa_out_init(struct sa_out *o, uint16_t rec_size, size_t limit)
{
	memset(o, 0, sizeof(*o));
	o->rec_size = rec_size;
	o->limit = limit;
}

void
sa_out_fini(struct sa_out *o)
{
	free(o->recs);
	memset(o, 0, sizeof(*o));
}

uint8_t *
sa_out_add(struct sa_out *o)
{
	uint8_t *r;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->recs = xreallocarray(o->recs, o->cap, o->rec_size);
	}
	r = o->recs + o->n++ * o->rec_size;
	memset(r, 0, o->rec_size);
	return r;
}
