/*
 * Until sa/out.c lands from sa-core: the record buffer and component
 * matching the modules under test call (attr.h). Removed at the merge.
 */
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
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4;
		o->recs = xreallocarray(o->recs, o->cap, o->rec_size);
	}
	memset(o->recs + o->n * o->rec_size, 0, o->rec_size);
	return o->recs + o->n++ * o->rec_size;
}

uint64_t
sa_get_bits(const uint8_t *rec, unsigned off, unsigned bits)
{
	uint64_t v = 0;

	for (unsigned i = off; i < off + bits; i++)
		v = v << 1 | ((rec[i / 8] >> (7 - i % 8)) & 1u);
	return v;
}

bool
sa_comp_match(const struct sa_comp *t, size_t n, uint64_t mask,
    const uint8_t *want, const uint8_t *have)
{
	for (size_t i = 0; i < n && i < 64; i++) {
		if (!(mask >> i & 1))
			continue;
		if (t[i].bits > 64) {
			if (memcmp(want + t[i].off / 8, have + t[i].off / 8,
			    t[i].bits / 8) != 0)
				return false;
		} else if (sa_get_bits(want, t[i].off, t[i].bits) !=
		    sa_get_bits(have, t[i].off, t[i].bits))
			return false;
	}
	return true;
}
