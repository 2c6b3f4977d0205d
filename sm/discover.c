#include "sm/discover.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/pool.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "partitions/partitions.h"

/* Requests kept for reuse: about the most on the wire and queued at once
 * in a large fabric's discovery. */
#define DISCOVER_SPARE 1024

struct discovery {
	struct mad_engine *mad;
	struct fabric *f;
	discover_done_cb done;
	void *arg;
	unsigned pending;
	struct pool spare;      /* struct dreq, kept for the next request */
	bool aborted;
	bool passive;           /* read only: not master (yet) */
	struct alias_store *alias;      /* read GUIDInfo into it; NULL: no */
	struct pkey_tables *pkeys;      /* read end ports' P_Key tables into
					 * it (unsorted); NULL: no */
	struct discover_result res;
	struct node_life *life;         /* [nlife], by node index */
	uint32_t nlife;
};

/* Whether a node answers. A node whose request went unanswered through
 * every round while it answered nothing else is dead (mute): its other
 * requests get one round, so that it does not hold the sweep up; an
 * answer makes it alive again. */
struct node_life {
	uint32_t answers;
	uint8_t mute;
};

/* One request in flight and what it was for. */
struct dreq {
	struct discovery *d;
	struct dr_path path;
	uint32_t node;          /* node asked about (FABRIC_NONE for NodeInfo) */
	uint32_t from;          /* NodeInfo: the port we probed through */
	uint8_t port;           /* PortInfo: port number */
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	uint8_t round;          /* times sent so far, less one */
	uint8_t has_data;
	uint32_t seen;          /* the node's answers when first sent */
	uint8_t data[SMP_DATA_SIZE];
	struct smp_call call;   /* built at each attempt from the above */
};

static int send_req(struct dreq *q);
static void read_guidinfo(struct discovery *d, const struct dreq *q,
    struct fabric_port *port);
static void read_pkeys(struct discovery *d, const struct dreq *q,
    const struct fabric_port *port);
static struct node_life *life(struct discovery *d, uint32_t node);

static void ask(struct discovery *d, uint16_t attr, uint32_t mod,
    const struct dr_path *path, uint32_t node, uint32_t from, uint8_t port,
    uint8_t method, const uint8_t *data);

static uint32_t
field(const uint8_t *data, enum MAD_FIELDS f)
{
	return mad_get_field((void *)data, 0, f);
}

static uint64_t
field64(const uint8_t *data, enum MAD_FIELDS f)
{
	return mad_get_field64((void *)data, 0, f);
}

static void
finish_one(struct discovery *d)
{
	if (--d->pending > 0)
		return;
	if (d->aborted) {
		pool_fini(&d->spare);
		free(d->life);
		free(d);
		return;
	}
	if (d->f->sm_port == FABRIC_NONE) {
		if (d->res.why[0] == '\0')
			snprintf(d->res.why, sizeof(d->res.why),
			    "the local node did not answer NodeInfo");
	} else if (d->f->ports[d->f->sm_port].state < PORT_INIT) {
		if (d->res.why[0] == '\0')
			snprintf(d->res.why, sizeof(d->res.why),
			    "the SM's own port did not answer PortInfo");
	} else {
		d->res.ok = 1;
	}
	d->done(d->arg, &d->res);
	pool_fini(&d->spare);
	free(d->life);
	free(d);
}

static void
probe(struct discovery *d, uint32_t node, uint8_t port)
{
	const struct dr_path *np = &d->f->paths[d->f->nodes[node].path];
	struct dr_path p = *np;

	if (p.hops + 1 >= FABRIC_DR_MAX) {
		log_warnx("discover: node 0x%016" PRIx64 " port %u: beyond "
		    "the directed-route hop limit", d->f->nodes[node].guid, port);
		return;
	}
	p.port[++p.hops] = port;
	ask(d, ATTR_NODE_INFO, 0, &p, FABRIC_NONE,
	    fabric_port_idx(d->f, node, port), 0, MAD_GET, NULL);
}

static void
on_node_info(struct dreq *q, const uint8_t *data)
{
	struct discovery *d = q->d;
	struct fabric *f = d->f;
	uint64_t guid = field64(data, IB_NODE_GUID_F);
	uint8_t type = (uint8_t)field(data, IB_NODE_TYPE_F);
	uint8_t nports = (uint8_t)field(data, IB_NODE_NPORTS_F);
	uint8_t local = (uint8_t)field(data, IB_NODE_LOCAL_PORT_F);
	uint32_t n, p;
	bool fresh = false;

	if (guid == 0 || type < NODE_CA || type > NODE_ROUTER || nports == 0 ||
	    (type != NODE_SWITCH && local == 0) || local > nports) {
		log_warnx("discover: malformed NodeInfo (GUID 0x%016" PRIx64
		    ", type %u, %u ports, local port %u); ignored", guid, type,
		    nports, local);
		d->res.errors++;
		return;
	}
	n = fabric_node_by_guid(f, guid);
	if (n != FABRIC_NONE && (f->nodes[n].type != type ||
	    f->nodes[n].nports != nports)) {
		log_warnx("discover: duplicate node GUID 0x%016" PRIx64
		    " (a %s and a %s); the second is ignored", guid,
		    fabric_node_type_name(f->nodes[n].type),
		    fabric_node_type_name(type));
		d->res.errors++;
		return;
	}
	if (n == FABRIC_NONE) {
		n = fabric_add_node(f, type, nports, guid, &q->path);
		memcpy(f->nodes[n].node_info, data, 64);
		f->nodes[n].sysguid = field64(data, IB_NODE_SYSTEM_GUID_F);
		f->nodes[n].partition_cap =
		    (uint16_t)field(data, IB_NODE_PARTITION_CAP_F);
		fresh = true;
	}
	p = fabric_port_idx(f, n, local);
	if (q->from != FABRIC_NONE)
		fabric_link(f, q->from, p);
	else if (f->sm_port == FABRIC_NONE)
		f->sm_port = p;
	if (type != NODE_SWITCH && !f->ports[p].present) {
		f->ports[p].present = 1;
		f->ports[p].guid = field64(data, IB_NODE_PORT_GUID_F);
		f->ports[p].path = fabric_add_path(f, &q->path);
		ask(d, ATTR_PORT_INFO, local, &q->path, n, FABRIC_NONE, local,
		    MAD_GET, NULL);
	}
	if (!fresh)
		return;
	ask(d, ATTR_NODE_DESC, 0, &q->path, n, FABRIC_NONE, 0, MAD_GET, NULL);
	if (type == NODE_SWITCH)
		ask(d, ATTR_SWITCH_INFO, 0, &q->path, n, FABRIC_NONE, 0,
		    MAD_GET, NULL);
}

static void
on_switch_info(struct dreq *q, const uint8_t *data)
{
	struct discovery *d = q->d;
	struct fabric_node *n = &d->f->nodes[q->node];
	uint8_t set[SMP_DATA_SIZE];
	unsigned i;

	memcpy(n->sw_info, data, 64);
	n->sw_info_valid = 1;
	n->lft_cap = (uint16_t)field(data, IB_SW_LINEAR_FDB_CAP_F);
	n->lft_top = (uint16_t)field(data, IB_SW_LINEAR_FDB_TOP_F);
	n->psc = (uint8_t)field(data, IB_SW_STATE_CHANGE_F);
	n->enforce_cap = (uint16_t)field(data, IB_SW_PARTITION_ENFORCE_CAP_F);
	/* Clear PortStateChange before reading the ports, so that a change
	 * after our reads sets it again for the next light sweep. Everything
	 * else is written back as read (a top of 0 would stop LID routing).
	 * Passive, the bit stays set for the programmer to clear. */
	if (n->psc && !d->passive) {
		memcpy(set, data, sizeof(set));
		mad_set_field(set, 0, IB_SW_STATE_CHANGE_F, 1);
		ask(d, ATTR_SWITCH_INFO, 0, &q->path, q->node, FABRIC_NONE, 0,
		    MAD_SET, set);
		n->psc = 0;
	}
	for (i = 0; i <= n->nports; i++)
		ask(d, ATTR_PORT_INFO, i, &q->path, q->node, FABRIC_NONE,
		    (uint8_t)i, MAD_GET, NULL);
}

static void
on_port_info(struct dreq *q, const uint8_t *data)
{
	struct discovery *d = q->d;
	struct fabric *f = d->f;
	struct fabric_node *n = &f->nodes[q->node];
	uint32_t p = fabric_port_idx(f, q->node, q->port);
	struct fabric_port *port = &f->ports[p];
	uint32_t ingress;

	memcpy(port->info, data, 64);
	port->info_valid = 1;
	port->state = (uint8_t)field(data, IB_PORT_STATE_F);
	port->phys = (uint8_t)field(data, IB_PORT_PHYS_STATE_F);
	if (p == f->sm_port && port->state < PORT_INIT) {
		snprintf(d->res.why, sizeof(d->res.why), "the SM's own port "
		    "(GUID 0x%016" PRIx64 ") is down", port->guid);
		return;
	}
	if (n->type != NODE_SWITCH || q->port == 0)
		read_pkeys(d, q, port);
	if (n->type != NODE_SWITCH) {
		read_guidinfo(d, q, port);
		/* From our own CA port the neighbour is one hop away. */
		if (p == f->sm_port && n->path != FABRIC_NONE &&
		    f->paths[n->path].hops == 0)
			probe(d, q->node, q->port);
		return;
	}
	if (q->port == 0)
		return;
	if (port->state < PORT_INIT || port->peer != FABRIC_NONE)
		return;
	/* The port we came in through leads back to a known node. */
	ingress = f->nodes[q->node].path == FABRIC_NONE ? 0 :
	    (uint8_t)field(n->node_info, IB_NODE_LOCAL_PORT_F);
	if (q->port == ingress && f->paths[n->path].hops > 0)
		return;
	probe(d, q->node, q->port);
}

/* A CA port with room for alias GUIDs: ask for its whole table. */
static void
read_guidinfo(struct discovery *d, const struct dreq *q,
    struct fabric_port *port)
{
	unsigned cap = port->info[50];  /* GUIDCap */

	if (d->alias == NULL || cap <= 1 || port->guid == 0)
		return;
	/* What was known before is stale until read again. */
	alias_device_forget(d->alias, port->guid);
	if (cap > ALIAS_MAX_INDEX)
		cap = ALIAS_MAX_INDEX;
	for (unsigned b = 0; b * ALIAS_PER_BLOCK < cap; b++)
		ask(d, ATTR_GUID_INFO, b, &q->path, q->node, FABRIC_NONE,
		    q->port, MAD_GET, NULL);
}

static void
on_guid_info(struct dreq *q, const uint8_t *data)
{
	struct discovery *d = q->d;
	struct fabric *f = d->f;
	const struct fabric_port *port =
	    &f->ports[fabric_port_idx(f, q->node, q->port)];
	uint64_t g[ALIAS_PER_BLOCK];

	if (d->alias == NULL || q->method != MAD_GET)
		return;
	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		g[i] = 0;
		for (unsigned k = 0; k < 8; k++)
			g[i] = g[i] << 8 | data[8 * i + k];
	}
	alias_device_put(d->alias, port->guid, port->info[50], q->mod, g);
}

/* An end port (CA port, switch port 0): read its P_Key table, every
 * block of its node's PartitionCap, into a table of d->pkeys whose index
 * the requests carry (in from, unused for a known node). */
static void
read_pkeys(struct discovery *d, const struct dreq *q,
    const struct fabric_port *port)
{
	const struct fabric_node *n = &d->f->nodes[q->node];
	struct pkey_tables *t = d->pkeys;
	struct pkey_table *tab;
	uint16_t cap = n->partition_cap;
	uint32_t i;

	if (t == NULL || cap == 0 || port->state < PORT_INIT ||
	    (n->type != NODE_SWITCH && port->guid == 0))
		return;
	if (cap > 32 * 64)
		cap = 32 * 64;
	i = (uint32_t)t->n;
	t->v = xreallocarray(t->v, t->n + 1, sizeof(*t->v));
	t->n++;
	tab = &t->v[i];
	memset(tab, 0, sizeof(*tab));
	tab->guid = n->type == NODE_SWITCH ? n->guid : port->guid;
	tab->port = fabric_port_idx(d->f, q->node, q->port);
	tab->num = q->port;
	tab->kind = PKEY_TABLE_PORT;
	tab->cap = cap;
	tab->keys = xcalloc(cap, sizeof(*tab->keys));
	for (unsigned b = 0; b * 32u < cap; b++)
		ask(d, ATTR_PKEY_TABLE, n->type == NODE_SWITCH ?
		    (uint32_t)q->port << 16 | b : b, &q->path, q->node, i,
		    q->port, MAD_GET, NULL);
}

static void
on_pkey_table(struct dreq *q, const uint8_t *data)
{
	struct pkey_tables *t = q->d->pkeys;
	struct pkey_table *tab;
	unsigned b = q->mod & 0xffff;

	if (t == NULL || q->method != MAD_GET || q->from >= t->n)
		return;
	tab = &t->v[q->from];
	for (unsigned k = 0; k < 32 && b * 32 + k < tab->cap; k++)
		tab->keys[b * 32 + k] = (uint16_t)(data[2 * k] << 8 |
		    data[2 * k + 1]);
}

/* The life record of a known node (NULL for a probe's unknown one). */
static struct node_life *
life(struct discovery *d, uint32_t node)
{
	uint32_t n;

	if (node == FABRIC_NONE)
		return NULL;
	if (node >= d->nlife) {
		n = node + 64;
		d->life = xreallocarray(d->life, n, sizeof(*d->life));
		memset(d->life + d->nlife, 0, (n - d->nlife) * sizeof(*d->life));
		d->nlife = n;
	}
	return &d->life[node];
}

/* No answer (or no way to send): try again while rounds are left (none
 * for a mute node). An error status is an answer and is not asked
 * again. */
static bool
send_again(struct dreq *q, int status)
{
	struct discovery *d = q->d;
	struct node_life *l = life(d, q->node);

	if ((status != MAD_ETIMEDOUT && status != MAD_ESEND) ||
	    (l != NULL && l->mute) || q->round + 1 >= DISCOVER_ROUNDS)
		return false;
	q->round++;
	d->res.resent++;
	log_debug("discover: %s %s at hop %u: no answer, round %u",
	    mad_method_name(q->method), mad_attr_name(MGMT_CLASS_SMP_LID, q->attr), q->path.hops,
	    q->round + 1);
	return send_req(q) == 0;
}

static void
on_done(void *arg, int status, const uint8_t *resp)
{
	struct dreq *q = arg;
	struct discovery *d = q->d;
	uint16_t attr;

	if (d->aborted || resp == NULL || status != 0) {
		if (!d->aborted) {
			if (send_again(q, status))
				return;
			if (status == MAD_ETIMEDOUT) {
				struct node_life *l = life(d, q->node);

				d->res.timeouts++;
				if (l != NULL && l->answers == q->seen)
					l->mute = 1;
			} else {
				d->res.errors++;
			}
			char st[96];

			log_debug("discover: %s %s at hop %u failed (%s)",
			    mad_method_name(q->method),
			    mad_attr_name(MGMT_CLASS_SMP_LID, q->attr),
			    q->path.hops, mad_status_text(MGMT_CLASS_SMP_DR,
			    status, st, sizeof(st)));
		}
		goto out;
	}
	if (q->node != FABRIC_NONE) {
		struct node_life *l = life(d, q->node);

		l->answers++;
		l->mute = 0;
	}
	attr = mad_be16(resp + MAD_OFF_ATTR);
	resp += SMP_DATA_OFFSET;
	switch (attr) {
	case ATTR_NODE_INFO:
		on_node_info(q, resp);
		break;
	case ATTR_NODE_DESC:
		memcpy(d->f->nodes[q->node].desc, resp, 64);
		d->f->nodes[q->node].desc[64] = '\0';
		d->f->nodes[q->node].desc_valid = 1;
		break;
	case ATTR_SWITCH_INFO:
		if (q->method == MAD_GET)
			on_switch_info(q, resp);
		break;
	case ATTR_PORT_INFO:
		on_port_info(q, resp);
		break;
	case ATTR_GUID_INFO:
		on_guid_info(q, resp);
		break;
	case ATTR_PKEY_TABLE:
		on_pkey_table(q, resp);
		break;
	}
out:
	pool_put(&d->spare, q);
	finish_one(d);
}

/* Send q (again); 0, or -1 when the engine refused it. */
static int
send_req(struct dreq *q)
{
	struct discovery *d = q->d;
	struct smp_req *r = &q->call.req;

	memset(r, 0, sizeof(*r));
	r->method = q->method;
	r->attr = q->attr;
	r->mod = q->mod;
	r->path = &q->path;
	r->data = q->has_data ? q->data : NULL;
	q->call.cb = on_done;
	q->call.arg = q;

	/* Window key: the node when known. A probe's node is not known yet:
	 * the port it leaves through stands for it (port indices are small,
	 * the top bit keeps them apart from GUIDs). */
	if (q->node != FABRIC_NONE)
		r->dest = d->f->nodes[q->node].guid;
	else if (q->from != FABRIC_NONE)
		r->dest = UINT64_C(1) << 63 | q->from;
	else
		r->dest = 0;
	return smp_submit(d->mad, &q->call);
}

static void
ask(struct discovery *d, uint16_t attr, uint32_t mod,
    const struct dr_path *path, uint32_t node, uint32_t from, uint8_t port,
    uint8_t method, const uint8_t *data)
{
	struct dreq *q = pool_get(&d->spare);

	q->d = d;
	q->path = *path;
	q->node = node;
	q->from = from;
	q->port = port;
	q->method = method;
	q->attr = attr;
	q->mod = mod;
	if (data != NULL) {
		memcpy(q->data, data, sizeof(q->data));
		q->has_data = 1;
	}
	if (node != FABRIC_NONE)
		q->seen = life(d, node)->answers;
	d->pending++;
	if (send_req(q) < 0) {
		d->pending--;
		d->res.errors++;
		pool_put(&d->spare, q);
	}
}

struct discovery *
discover_start(struct mad_engine *mad, struct fabric *f, bool passive,
    discover_done_cb done, void *arg)
{
	struct discovery *d = calloc(1, sizeof(*d));
	struct dreq *q;

	if (d == NULL || (q = calloc(1, sizeof(*q))) == NULL)
		fatal("discover: out of memory");
	pool_init(&d->spare, sizeof(*q), DISCOVER_SPARE);
	d->mad = mad;
	d->f = f;
	d->done = done;
	d->arg = arg;
	d->passive = passive;
	q->d = d;
	q->node = FABRIC_NONE;
	q->from = FABRIC_NONE;
	q->method = MAD_GET;
	q->attr = ATTR_NODE_INFO;
	d->pending = 1;
	if (send_req(q) < 0)
		fatalx("discover: cannot query the local node");
	return d;
}

void
discover_set_alias(struct discovery *d, struct alias_store *alias)
{
	d->alias = alias;
}

void
discover_set_pkeys(struct discovery *d, struct pkey_tables *out)
{
	d->pkeys = out;
}

void
discover_abort(struct discovery *d)
{
	d->aborted = true;
}

static unsigned
hole(uint32_t n, uint8_t port, enum discover_hole_kind kind,
    void (*cb)(void *, const struct discover_hole *), void *arg)
{
	struct discover_hole h = { .node = n, .port = port, .kind = kind };

	if (cb != NULL)
		cb(arg, &h);
	return 1;
}

unsigned
discover_holes(const struct fabric *f,
    void (*cb)(void *arg, const struct discover_hole *h), void *arg)
{
	unsigned count = 0;

	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct fabric_node *node = &f->nodes[n];
		bool sw = node->type == NODE_SWITCH;

		if (node->kept) {
			/* not reached: kept as the model in use knew it */
			count += hole(n, 0, HOLE_KEPT, cb, arg);
			continue;
		}
		if (sw && !node->sw_info_valid) {
			/* its ports were never asked about */
			count += hole(n, 0, HOLE_SWITCH_INFO, cb, arg);
			continue;
		}
		for (unsigned num = sw ? 0 : 1; num <= node->nports; num++) {
			uint32_t p = fabric_port_idx(f, n, (uint8_t)num);
			const struct fabric_port *port = &f->ports[p];

			if (!sw && !port->present)
				continue;       /* a CA port not reached */
			if (!port->info_valid || port->kept)
				count += hole(n, (uint8_t)num, HOLE_PORT_INFO, cb,
				    arg);
			else if (num != 0 && port->state >= PORT_INIT &&
			    port->peer == FABRIC_NONE)
				count += hole(n, (uint8_t)num, HOLE_PEER, cb, arg);
		}
	}
	return count;
}

void
discover_hole_text(const struct fabric *f, const struct discover_hole *h,
    char *buf, size_t len)
{
	static const char *const what[] = {
		[HOLE_SWITCH_INFO] = "SwitchInfo not read",
		[HOLE_PORT_INFO] = "PortInfo not read",
		[HOLE_PEER] = "up, but the node behind it did not answer",
		[HOLE_KEPT] = "did not answer; kept as it was, routes and all",
	};
	const struct fabric_node *n = &f->nodes[h->node];
	char desc[65];
	size_t i;

	/* NodeDescription comes from the wire: printable characters only */
	for (i = 0; n->desc_valid && n->desc[i] != '\0' && i + 1 < sizeof(desc);
	    i++)
		desc[i] = n->desc[i] >= 0x20 && n->desc[i] < 0x7f ? n->desc[i] :
		    '?';
	desc[i] = '\0';
	if (h->kind == HOLE_SWITCH_INFO || h->kind == HOLE_KEPT)
		snprintf(buf, len, "%s \"%s\" 0x%016" PRIx64 ": %s",
		    fabric_node_type_name(n->type), desc, n->guid,
		    what[h->kind]);
	else
		snprintf(buf, len, "%s \"%s\" 0x%016" PRIx64 " port %u: %s",
		    fabric_node_type_name(n->type), desc, n->guid, h->port,
		    what[h->kind]);
}
