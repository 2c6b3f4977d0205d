/*
 * The helpers every SA attribute module uses (sa/attr.h): the growing
 * record buffer of an answer, component-mask matching, and big-endian bit
 * fields at any offset, GIDs split and made.
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
	o->recs = NULL;
	o->n = o->cap = 0;
}

uint8_t *
sa_out_add(struct sa_out *o)
{
	uint8_t *r;

	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 8;
		o->recs = xreallocarray(o->recs, o->cap, o->rec_size);
	}
	r = o->recs + o->n * (size_t)o->rec_size;
	memset(r, 0, o->rec_size);
	o->n++;
	return r;
}

uint64_t
sa_get_bits(const uint8_t *rec, unsigned off, unsigned bits)
{
	uint64_t v = 0;
	unsigned i;

	/* Bit by bit is slow but obviously right; fields are few and the
	 * fast path below takes the byte-aligned ones. */
	if (off % 8 == 0 && bits % 8 == 0) {
		for (i = 0; i < bits / 8; i++)
			v = v << 8 | rec[off / 8 + i];
		return v;
	}
	for (i = 0; i < bits; i++) {
		unsigned b = off + i;

		v = v << 1 | ((rec[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

void
sa_set_bits(uint8_t *rec, unsigned off, unsigned bits, uint64_t v)
{
	unsigned i;

	for (i = 0; i < bits; i++) {
		unsigned b = off + bits - 1 - i;
		uint8_t m = (uint8_t)(1u << (7 - b % 8));

		if ((v >> i) & 1u)
			rec[b / 8] |= m;
		else
			rec[b / 8] &= (uint8_t)~m;
	}
}

bool
sa_comp_match(const struct sa_comp *t, size_t n, uint64_t mask,
    const uint8_t *want, const uint8_t *have)
{
	size_t i;

	for (i = 0; i < n && i < 64; i++) {
		const struct sa_comp *c = &t[i];

		if (!(mask & (UINT64_C(1) << i)) || c->bits == 0)
			continue;
		if (c->bits > 64) {
			/* byte-aligned wide fields (GIDs) */
			if (memcmp(want + c->off / 8, have + c->off / 8,
			    c->bits / 8) != 0)
				return false;
		} else if (sa_get_bits(want, c->off, c->bits) !=
		    sa_get_bits(have, c->off, c->bits)) {
			return false;
		}
	}
	return true;
}

uint64_t
sa_gid_prefix(const uint8_t gid[16])
{
	return sa_get_bits(gid, 0, 64);
}

uint64_t
sa_gid_guid(const uint8_t gid[16])
{
	return sa_get_bits(gid, 64, 64);
}

bool
sa_gid_link_local(uint64_t prefix)
{
	return (prefix & UINT64_C(0xFFC0000000000000)) ==
	    UINT64_C(0xFE80000000000000);
}

bool
sa_gid_prefix_ours(const struct sa_view *v, uint64_t prefix)
{
	return sa_gid_link_local(prefix) || prefix == v->subnet_prefix;
}

void
sa_gid_make(uint8_t gid[16], uint64_t prefix, uint64_t guid)
{
	/* bytewise: sa_set_bits goes bit by bit, and paths make many GIDs */
	for (unsigned i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}
