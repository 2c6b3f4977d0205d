/*
 * The one GUID hash: a 64-bit GUID (never 0) -> a 32-bit value, most often
 * an index into a dense array. Open addressing with linear probing, grown
 * to keep the load under one half; deletion shifts the run back, so there
 * are no tombstones. Every module that keys by GUID uses this.
 */
#ifndef IBSMD_GUIDHASH_H
#define IBSMD_GUIDHASH_H

#include <stdbool.h>
#include <stdint.h>

#define GUID_HASH_NONE UINT32_MAX

struct guid_hash {
	uint64_t *key;          /* 0 = empty slot */
	uint32_t *val;
	uint32_t cap;           /* slots, a power of two (0 before first put) */
	uint32_t n;             /* keys held */
};

void guid_hash_init(struct guid_hash *h);
void guid_hash_fini(struct guid_hash *h);
/* Forget every key, keep the memory. */
void guid_hash_clear(struct guid_hash *h);
/* Insert guid (not 0) or replace its value. */
void guid_hash_put(struct guid_hash *h, uint64_t guid, uint32_t val);
/* The value of guid, GUID_HASH_NONE when absent. */
uint32_t guid_hash_get(const struct guid_hash *h, uint64_t guid);
/* Remove guid; true if it was there. */
bool guid_hash_del(struct guid_hash *h, uint64_t guid);

#endif
