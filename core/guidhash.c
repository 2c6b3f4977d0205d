#include "core/guidhash.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

static uint32_t
slot(uint64_t guid, uint32_t cap)
{
	/* GUIDs share vendor prefixes and count up in their low bits: mix
	 * (the finalizer of MurmurHash3) before masking. */
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (uint32_t)guid & (cap - 1);
}

void
guid_hash_init(struct guid_hash *h)
{
	memset(h, 0, sizeof(*h));
}

void
guid_hash_fini(struct guid_hash *h)
{
	free(h->key);
	free(h->val);
	memset(h, 0, sizeof(*h));
}

void
guid_hash_clear(struct guid_hash *h)
{
	if (h->cap)
		memset(h->key, 0, (size_t)h->cap * sizeof(*h->key));
	h->n = 0;
}

static void
grow(struct guid_hash *h)
{
	uint64_t *ok = h->key;
	uint32_t *ov = h->val, ocap = h->cap, i, s;

	h->cap = ocap ? ocap * 2 : 64;
	h->key = xcalloc(h->cap, sizeof(*h->key));
	h->val = xmalloc((size_t)h->cap * sizeof(*h->val));
	for (i = 0; i < ocap; i++) {
		if (ok[i] == 0)
			continue;
		s = slot(ok[i], h->cap);
		while (h->key[s] != 0)
			s = (s + 1) & (h->cap - 1);
		h->key[s] = ok[i];
		h->val[s] = ov[i];
	}
	free(ok);
	free(ov);
}

void
guid_hash_put(struct guid_hash *h, uint64_t guid, uint32_t val)
{
	uint32_t i;

	if ((uint64_t)(h->n + 1) * 2 > h->cap)
		grow(h);
	i = slot(guid, h->cap);
	while (h->key[i] != 0 && h->key[i] != guid)
		i = (i + 1) & (h->cap - 1);
	if (h->key[i] == 0)
		h->n++;
	h->key[i] = guid;
	h->val[i] = val;
}

static uint32_t
find(const struct guid_hash *h, uint64_t guid)
{
	uint32_t i;

	if (h->cap == 0 || guid == 0)
		return UINT32_MAX;
	i = slot(guid, h->cap);
	while (h->key[i] != 0) {
		if (h->key[i] == guid)
			return i;
		i = (i + 1) & (h->cap - 1);
	}
	return UINT32_MAX;
}

uint32_t
guid_hash_get(const struct guid_hash *h, uint64_t guid)
{
	uint32_t i = find(h, guid);

	return i == UINT32_MAX ? GUID_HASH_NONE : h->val[i];
}

bool
guid_hash_del(struct guid_hash *h, uint64_t guid)
{
	uint32_t i = find(h, guid), j, k, mask = h->cap - 1;

	if (i == UINT32_MAX)
		return false;
	h->key[i] = 0;
	h->n--;
	/* Shift later members of the run back into the hole when their home
	 * slot does not lie cyclically in (i, j]. */
	for (j = (i + 1) & mask; h->key[j] != 0; j = (j + 1) & mask) {
		k = slot(h->key[j], h->cap);
		if (((j - k) & mask) < ((j - i) & mask))
			continue;
		h->key[i] = h->key[j];
		h->val[i] = h->val[j];
		h->key[j] = 0;
		i = j;
	}
	return true;
}
