/*
 * Port tables read from the devices: see core/devtab.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/devtab.h"
#include "core/guidhash.h"

struct devtab {
	struct devtab_node **v;
	uint32_t n, cap;
	struct guid_hash by_guid;       /* node GUID -> index in v */
};

struct devtab *
devtab_new(void)
{
	struct devtab *t = xcalloc(1, sizeof(*t));

	guid_hash_init(&t->by_guid);
	return t;
}

static void
node_clear(struct devtab_node *n)
{
	if (n->ports != NULL)
		for (unsigned p = 0; p <= n->nports; p++)
			free(n->ports[p].pkeys);
	free(n->ports);
	free(n->sl2vl);
	free(n->sl2vl_valid);
	n->ports = NULL;
	n->sl2vl = NULL;
	n->sl2vl_valid = NULL;
}

void
devtab_free(struct devtab *t)
{
	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		node_clear(t->v[i]);
		free(t->v[i]);
	}
	free(t->v);
	guid_hash_fini(&t->by_guid);
	free(t);
}

static void
node_shape(struct devtab_node *n, uint8_t nports, bool sw)
{
	unsigned k;

	node_clear(n);
	n->nports = nports;
	n->sw = sw;
	k = devtab_sl2vl_count(n);
	n->sl2vl = xcalloc(k, DEVTAB_SL2VL_SIZE);
	n->sl2vl_valid = xcalloc(k, 1);
	n->ports = xcalloc(nports + 1u, sizeof(*n->ports));
}

struct devtab_node *
devtab_node(struct devtab *t, uint64_t guid, uint8_t nports, bool sw)
{
	uint32_t i = guid_hash_get(&t->by_guid, guid);
	struct devtab_node *n;

	if (i != GUID_HASH_NONE) {
		n = t->v[i];
		if (n->nports != nports || n->sw != sw)
			node_shape(n, nports, sw);
		return n;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	n = xcalloc(1, sizeof(*n));
	n->guid = guid;
	node_shape(n, nports, sw);
	t->v[t->n] = n;
	guid_hash_put(&t->by_guid, guid, t->n++);
	return n;
}

const struct devtab_node *
devtab_find(const struct devtab *t, uint64_t guid)
{
	uint32_t i;

	if (t == NULL || (i = guid_hash_get(&t->by_guid, guid)) ==
	    GUID_HASH_NONE)
		return NULL;
	return t->v[i];
}

void
devtab_port_forget(struct devtab_node *n, unsigned p)
{
	struct devtab_port *dp;

	if (p > n->nports)
		return;
	if (n->sw)
		for (unsigned q = 0; q <= n->nports; q++) {
			n->sl2vl_valid[devtab_sl2vl_idx(n, p, q)] = 0;
			n->sl2vl_valid[devtab_sl2vl_idx(n, q, p)] = 0;
		}
	else
		n->sl2vl_valid[p] = 0;
	dp = &n->ports[p];
	dp->vlarb_valid = 0;
	dp->pkey_valid = 0;
	dp->peer_guid = 0;
	dp->peer_num = 0;
}

uint16_t *
devtab_port_pkeys(struct devtab_node *n, unsigned p, uint16_t cap)
{
	struct devtab_port *dp = &n->ports[p];

	if (dp->pkeys == NULL || dp->pkey_cap != cap) {
		free(dp->pkeys);
		dp->pkeys = xcalloc(cap, sizeof(*dp->pkeys));
		dp->pkey_cap = cap;
		dp->pkey_valid = 0;
	}
	return dp->pkeys;
}
