#include "sm/holddown.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/guidhash.h"

/* The last time each port of a switch was seen going down, for the
 * switches that ever had a link go down. */
struct hd_switch {
	double down[256];
	uint64_t peer[256];     /* the switch the port faced then */
};

struct holddown {
	double secs;
	struct guid_hash by_guid;       /* switch GUID -> index in sw */
	struct hd_switch *sw;
	uint32_t n, cap;
};

struct holddown *
holddown_new(double secs)
{
	struct holddown *h = xcalloc(1, sizeof(*h));

	h->secs = secs;
	guid_hash_init(&h->by_guid);
	return h;
}

void
holddown_free(struct holddown *h)
{
	if (h == NULL)
		return;
	guid_hash_fini(&h->by_guid);
	free(h->sw);
	free(h);
}

static struct hd_switch *
last_down(struct holddown *h, uint64_t guid, bool create)
{
	uint32_t i = guid_hash_get(&h->by_guid, guid);

	if (i == GUID_HASH_NONE) {
		if (!create)
			return NULL;
		if (h->n == h->cap) {
			h->cap = h->cap ? 2 * h->cap : 16;
			h->sw = xreallocarray(h->sw, h->cap, sizeof(*h->sw));
		}
		i = h->n++;
		memset(&h->sw[i], 0, sizeof(h->sw[i]));
		guid_hash_put(&h->by_guid, guid, i);
	}
	return &h->sw[i];
}

/* A switch-to-switch link at port p of f, up: the port and its peer
 * read, neither DOWN. */
static bool
isl_up(const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	uint32_t q = port->peer;

	return port->num != 0 && q != FABRIC_NONE &&
	    f->nodes[port->node].type == NODE_SWITCH &&
	    f->nodes[f->ports[q].node].type == NODE_SWITCH &&
	    port->state != PORT_DOWN && f->ports[q].state != PORT_DOWN;
}

/* Port num of the node with this GUID in f, FABRIC_NONE. */
static uint32_t
port_of(const struct fabric *f, uint64_t guid, uint8_t num)
{
	uint32_t n = fabric_node_by_guid(f, guid);

	if (n == FABRIC_NONE || num > f->nodes[n].nports)
		return FABRIC_NONE;
	return fabric_port_idx(f, n, num);
}

/* The same link in both models: port p of cur faces, in next, the same
 * node's same port. */
static bool
same_link(const struct fabric *cur, uint32_t cp, const struct fabric *next,
    uint32_t np)
{
	uint32_t cq = cur->ports[cp].peer, nq = next->ports[np].peer;

	return cq != FABRIC_NONE && nq != FABRIC_NONE &&
	    cur->nodes[cur->ports[cq].node].guid ==
	    next->nodes[next->ports[nq].node].guid &&
	    cur->ports[cq].num == next->ports[nq].num;
}

/* Switches of f that reach the first switch over usable links (held ones
 * excluded) all do: holding links never cuts a switch off. */
static bool
switches_connected(const struct fabric *f)
{
	uint32_t *queue = xcalloc(f->nnodes + 1, sizeof(*queue));
	uint8_t *seen = xcalloc(f->nnodes + 1, 1);
	uint32_t head = 0, tail = 0, nsw = 0, reached = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == NODE_SWITCH && nsw++ == 0) {
			queue[tail++] = n;
			seen[n] = 1;
		}
	while (head < tail) {
		uint32_t n = queue[head++];

		reached++;
		for (uint8_t k = 1; k <= f->nodes[n].nports; k++) {
			uint32_t p = fabric_port_idx(f, n, k), m;

			if (!isl_up(f, p) || f->ports[p].held)
				continue;
			m = f->ports[f->ports[p].peer].node;
			if (!seen[m]) {
				seen[m] = 1;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	free(seen);
	return reached == nsw;
}

unsigned
holddown_apply(struct holddown *h, struct fabric *next,
    const struct fabric *cur, double now, double *release)
{
	unsigned held = 0;
	struct hd_switch *d;

	*release = 0;
	/* what went down since the model in use */
	for (uint32_t cp = 0; cur != NULL && cp < cur->nports; cp++) {
		uint64_t guid = cur->nodes[cur->ports[cp].node].guid;
		uint8_t num = cur->ports[cp].num;
		uint32_t np;

		if (!isl_up(cur, cp))
			continue;
		np = port_of(next, guid, num);
		if (np != FABRIC_NONE && next->nodes[next->ports[np].node].kept)
			continue;       /* not read: nothing known */
		if (np == FABRIC_NONE || !isl_up(next, np) ||
		    !same_link(cur, cp, next, np) ||
		    (cur->ports[cp].state == PORT_ACTIVE &&
		    next->ports[np].info_valid && !next->ports[np].kept &&
		    next->ports[np].state < PORT_ACTIVE)) {
			d = last_down(h, guid, true);
			d->down[num] = now;
			d->peer[num] = cur->nodes[cur->ports[cur->ports[cp].peer]
			    .node].guid;
		}
	}
	/* what is up again too soon */
	for (uint32_t np = 0; np < next->nports; np++) {
		struct fabric_port *port = &next->ports[np];
		double until;

		port->held = 0;
		/* the same link again (a new device behind the port is no
		 * flap) */
		if (!isl_up(next, np) ||
		    (d = last_down(h, next->nodes[port->node].guid, false)) ==
		    NULL || d->down[port->num] == 0 ||
		    (until = d->down[port->num] + h->secs) <= now ||
		    d->peer[port->num] !=
		    next->nodes[next->ports[port->peer].node].guid)
			continue;
		port->held = 1;
		next->ports[port->peer].held = 1;
		if (*release == 0 || until < *release)
			*release = until;
	}
	/* links, not their two ends: counted once both ends are marked (an
	 * end visited first may have no flap of its own, its node unread
	 * when the link went down, and its mark comes from the other end) */
	for (uint32_t np = 0; np < next->nports; np++)
		held += next->ports[np].held && np < next->ports[np].peer;
	if (held > 0 && !switches_connected(next)) {
		for (uint32_t np = 0; np < next->nports; np++)
			next->ports[np].held = 0;
		held = 0;
		*release = 0;
	}
	return held;
}
