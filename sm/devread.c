/*
 * Reading the port tables ibsmd does not program: see sm/devread.h.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/devtab.h"
#include "core/fabric.h"
#include "core/qos.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "partitions/partitions.h"
#include "sm/devread.h"

/* SMPs of this module in flight at once: the tables are for the SA's
 * records, never worth slowing a sweep down. */
#define DEVREAD_WINDOW 16
/* Before the ports go Active the tables are what the sweep waits for:
 * as many as the MAD engine's own window lets through. */
#define DEVREAD_WINDOW_DR 64

enum item_kind { ITEM_SL2VL, ITEM_VLARB, ITEM_PKEY };

struct item {
	uint64_t guid;          /* node */
	uint16_t lid;           /* where to send it */
	uint8_t kind;
	uint8_t port;           /* the port the table belongs to */
	uint8_t nports;
	bool sw;
	uint16_t idx;           /* SL-to-VL table index, VL arbitration block
				 * (0-3) or P_Key block */
	uint16_t cap;           /* P_Key table entries */
	uint32_t mod;
	/* issue 27: QoS tables written, not only read */
	bool set;               /* a Set of data (else a Get) */
	uint32_t ni;            /* the node's index in the round's model */
	uint32_t gen;           /* the round it was queued in */
	uint32_t path;          /* devread_qos_dr(): its directed route, an
				 * index of the model's paths (else
				 * FABRIC_NONE: LID-routed) */
	uint8_t data[QOS_VLARB_BLOCK_BYTES];
};

struct devread {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct devtab *tab;
	struct item *q;         /* to send: q[head .. n - 1] */
	size_t n, head, cap;
	unsigned inflight;
	double t0;
	bool said;              /* the end of this round logged */
	struct devread_stats st;
	/* issue 27: the round's model and QoS wants (NULL: read only) */
	const struct fabric *f;
	const struct qos_config *qc;
	uint32_t gen;
	/* devread_qos_dr(): by directed route, and who waits for the end */
	bool dr;
	devread_done_cb done;
	void *done_arg;
};

struct pending {
	struct devread *r;
	struct item it;
};

struct devread *
devread_new(struct ev_loop *loop, struct mad_engine *mad)
{
	struct devread *r = xcalloc(1, sizeof(*r));

	r->loop = loop;
	r->mad = mad;
	r->tab = devtab_new();
	return r;
}

void
devread_free(struct devread *r)
{
	if (r == NULL)
		return;
	devtab_free(r->tab);
	free(r->q);
	free(r);
}

const struct devtab *
devread_tables(const struct devread *r)
{
	return r != NULL ? r->tab : NULL;
}

void
devread_get_stats(const struct devread *r, struct devread_stats *st)
{
	*st = r->st;
	st->queued = (uint32_t)(r->n - r->head);
}

static void
push(struct devread *r, const struct item *it)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->q = xreallocarray(r->q, r->cap, sizeof(*r->q));
	}
	r->q[r->n++] = *it;
}

static void launch(struct devread *r);

/* The round is over for whoever waits for it (devread_qos_dr()). */
static void
finish(struct devread *r)
{
	devread_done_cb cb = r->done;

	r->done = NULL;
	if (cb != NULL)
		cb(r->done_arg);
}

static void
pending_drop(void *arg)
{
	free(arg);
}

static void
store(struct devread *r, const struct item *it, const uint8_t *d)
{
	struct devtab_node *n = devtab_node(r->tab, it->guid, it->nports,
	    it->sw);
	struct devtab_port *dp = &n->ports[it->port];
	uint16_t *keys;

	switch (it->kind) {
	case ITEM_SL2VL:
		memcpy(n->sl2vl + (size_t)it->idx * DEVTAB_SL2VL_SIZE, d,
		    DEVTAB_SL2VL_SIZE);
		n->sl2vl_valid[it->idx] = 1;
		break;
	case ITEM_VLARB:
		memcpy(dp->vlarb[it->idx], d, DEVTAB_VLARB_SIZE);
		dp->vlarb_valid |= (uint8_t)(1u << it->idx);
		break;
	case ITEM_PKEY:
		keys = devtab_port_pkeys(n, it->port, it->cap);
		for (unsigned k = 0; k < DEVTAB_PKEY_BLOCK &&
		    it->idx * DEVTAB_PKEY_BLOCK + k < it->cap; k++)
			keys[it->idx * DEVTAB_PKEY_BLOCK + k] =
			    (uint16_t)(d[2 * k] << 8 | d[2 * k + 1]);
		dp->pkey_valid |= UINT64_C(1) << it->idx;
		break;
	}
}

/* What ibsmd wants in the table of it (qos on), into want; false: the
 * table is left alone. */
static bool
wanted(const struct devread *r, const struct item *it, uint8_t *want)
{
	if (r->qc == NULL || r->f == NULL || it->gen != r->gen)
		return false;
	if (it->kind == ITEM_SL2VL)
		return qos_sl2vl_want(r->qc, r->f, it->ni, it->sw ?
		    it->idx / (it->nports + 1u) : 0, it->port, want);
	if (it->kind == ITEM_VLARB)
		return qos_vlarb_want(r->qc, r->f, r->f->nodes[it->ni].port0 +
		    it->port, it->idx, want);
	return false;
}

static size_t
table_bytes(const struct item *it)
{
	return it->kind == ITEM_SL2VL ? DEVTAB_SL2VL_SIZE : DEVTAB_VLARB_SIZE;
}

/* A table read or known that differs from what is wanted: its Set. */
static void
push_set(struct devread *r, const struct item *it, const uint8_t *want)
{
	struct item s = *it;

	s.set = true;
	memset(s.data, 0, sizeof(s.data));
	memcpy(s.data, want, table_bytes(it));
	push(r, &s);
}

/* A Set that failed: what the table holds is unknown (read again next
 * round). */
static void
unknown(struct devread *r, const struct item *it)
{
	struct devtab_node *n = devtab_node(r->tab, it->guid, it->nports,
	    it->sw);

	if (it->kind == ITEM_SL2VL)
		n->sl2vl_valid[it->idx] = 0;
	else if (it->kind == ITEM_VLARB)
		n->ports[it->port].vlarb_valid &= (uint8_t)~(1u << it->idx);
}

static void
done(void *arg, int status, const uint8_t *resp)
{
	struct pending *p = arg;
	struct devread *r = p->r;
	uint8_t want[QOS_VLARB_BLOCK_BYTES];

	r->inflight--;
	if (status == 0 && resp != NULL && p->it.set) {
		/* the answer is the table the port now holds */
		store(r, &p->it, resp + SMP_DATA_OFFSET);
		if (p->it.kind == ITEM_SL2VL)
			r->st.sl2vl_sets++;
		else
			r->st.vlarb_sets++;
	} else if (status == 0 && resp != NULL) {
		store(r, &p->it, resp + SMP_DATA_OFFSET);
		r->st.reads++;
		if (wanted(r, &p->it, want) && memcmp(want, resp +
		    SMP_DATA_OFFSET, table_bytes(&p->it)) != 0)
			push_set(r, &p->it, want);
	} else if (p->it.set) {
		r->st.failed++;
		unknown(r, &p->it);
		log_warnx("devread: node 0x%016" PRIx64 " port %u: %s Set "
		    "(modifier 0x%08x) failed: status %d", p->it.guid,
		    p->it.port, p->it.kind == ITEM_SL2VL ? "SLtoVLMappingTable" :
		    "VLArbitrationTable", p->it.mod, status);
	} else {
		r->st.failed++;
		log_debug("devread: node 0x%016" PRIx64 " port %u: attribute "
		    "0x%04x modifier 0x%08x: status %d", p->it.guid,
		    p->it.port, p->it.kind == ITEM_SL2VL ? ATTR_SL2VL :
		    p->it.kind == ITEM_VLARB ? ATTR_VL_ARB : ATTR_PKEY_TABLE,
		    p->it.mod, status);
	}
	free(p);
	launch(r);
}

static void
launch(struct devread *r)
{
	static const uint16_t attr[] = { ATTR_SL2VL, ATTR_VL_ARB,
	    ATTR_PKEY_TABLE };

	while (r->inflight < (r->dr ? DEVREAD_WINDOW_DR : DEVREAD_WINDOW) &&
	    r->head < r->n) {
		const struct item *it = &r->q[r->head++];
		struct smp_req q = {
			.method = it->set ? MAD_SET : MAD_GET,
			.attr = attr[it->kind], .data = it->set ? it->data : NULL,
			.mod = it->mod, .dlid = it->lid, .dest = it->guid,
			.drop = pending_drop,
		};
		struct pending *p;

		if (it->path != FABRIC_NONE) {
			/* the round's model is valid while its items are */
			if (it->gen != r->gen || r->f == NULL)
				continue;
			q.path = &r->f->paths[it->path];
		}
		p = xmalloc(sizeof(*p));

		p->r = r;
		p->it = *it;
		if (smp_request(r->mad, &q, done, p) < 0) {
			free(p);
			r->st.failed++;
			continue;
		}
		r->inflight++;
	}
	if (r->head == r->n && r->inflight == 0 && !r->said) {
		r->said = true;
		if (r->st.reads + r->st.failed + r->st.sl2vl_sets +
		    r->st.vlarb_sets > 0)
			log_info("devread: %s: %" PRIu64 " read, %"
			    PRIu64 " SL2VL and %" PRIu64 " VLArb written, %"
			    PRIu64 " failed (%.2f s)", r->dr ? "QoS tables "
			    "before the ports go Active" : "port tables",
			    r->st.reads, r->st.sl2vl_sets, r->st.vlarb_sets,
			    r->st.failed, ev_now(r->loop) - r->t0);
		finish(r);
	}
}

/* VL arbitration blocks a port has: 1-2 for the low-priority table, 3-4
 * for the high one, as its PortInfo caps say (32 entries a block). */
static unsigned
vlarb_blocks(const struct fabric_port *port)
{
	unsigned lo, hi, m = 0;

	if (!port->info_valid)
		return 0;
	lo = mad_get_field((void *)port->info, 0,
	    IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	hi = mad_get_field((void *)port->info, 0,
	    IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	if (lo > 0)
		m |= 1u;
	if (lo > 32)
		m |= 2u;
	if (hi > 0)
		m |= 4u;
	if (hi > 32)
		m |= 8u;
	return m;
}

/* Whether ibsmd programs the P_Key table of port p (its own copy serves
 * the SA then). */
static bool
pkeys_managed(const struct pkey_tables *pk, bool enforce_tables,
    const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const struct pkey_table *t;

	if (pk == NULL || (t = pkey_tables_find(pk, port->guid,
	    port->num)) == NULL)
		return false;
	return t->kind == PKEY_TABLE_PORT || enforce_tables;
}

/* The link identity of port p now: its peer's node GUID and number. */
static void
peer_of(const struct fabric *f, uint32_t p, uint64_t *g, uint8_t *num)
{
	uint32_t q = f->ports[p].peer;

	*g = 0;
	*num = 0;
	if (q != FABRIC_NONE) {
		*g = f->nodes[f->ports[q].node].guid;
		*num = f->ports[q].num;
	}
}

static void
queue_node(struct devread *r, const struct fabric *f, uint32_t ni,
    const struct pkey_tables *pk, bool enforce_tables)
{
	const struct fabric_node *fn = &f->nodes[ni];
	bool sw = fn->type == NODE_SWITCH;
	struct devtab_node *n = devtab_node(r->tab, fn->guid, fn->nports, sw);
	struct item it = { .guid = fn->guid, .nports = fn->nports, .sw = sw,
	    .ni = ni, .gen = r->gen, .path = FABRIC_NONE };
	uint8_t want[QOS_VLARB_BLOCK_BYTES];
	unsigned p, q, b, blocks;
	uint64_t g;
	uint8_t num;

	if (r->dr && sw)
		it.path = fn->path;
	if (r->dr && sw && it.path == FABRIC_NONE)
		return;
	if (!r->dr && sw && (it.lid = f->ports[fn->port0].lid) == 0)
		return;
	/* a port linked elsewhere than when read: read it again */
	for (p = sw ? 0 : 1; p <= fn->nports; p++) {
		peer_of(f, fn->port0 + p, &g, &num);
		if (n->ports[p].peer_guid != g || n->ports[p].peer_num != num) {
			devtab_port_forget(n, p);
			n->ports[p].peer_guid = g;
			n->ports[p].peer_num = num;
		}
	}
	for (p = sw ? 0 : 1; p <= fn->nports; p++) {
		const struct fabric_port *port = &f->ports[fn->port0 + p];

		if (r->dr && !sw && (!port->present ||
		    (it.path = port->path) == FABRIC_NONE))
			continue;
		if (!r->dr && !sw && (it.lid = port->lid) == 0)
			continue;
		it.port = (uint8_t)p;
		/* SL-to-VL: a switch's from every input port to p */
		it.kind = ITEM_SL2VL;
		for (q = 0; q <= (sw ? fn->nports : 0u); q++) {
			it.idx = (uint16_t)devtab_sl2vl_idx(n, q, p);
			it.mod = sw ? (uint32_t)(q << 8 | p) : 0;
			if (n->sl2vl_valid[it.idx]) {
				/* known: written only where it differs */
				if (wanted(r, &it, want) && memcmp(want,
				    n->sl2vl + (size_t)it.idx *
				    DEVTAB_SL2VL_SIZE, DEVTAB_SL2VL_SIZE) != 0)
					push_set(r, &it, want);
				continue;
			}
			/* before Active, only what may have to be written */
			if (!r->dr || wanted(r, &it, want))
				push(r, &it);
		}
		it.kind = ITEM_VLARB;
		/* a base switch port 0 has no VL arbitration (IBA 7.6.9;
		 * smpquery says "BSP0"), an enhanced one has */
		blocks = sw && p == 0 && !(fn->sw_info_valid &&
		    mad_get_field((void *)fn->sw_info, 0,
		    IB_SW_ENHANCED_PORT0_F)) ? 0 : vlarb_blocks(port);
		for (b = 0; b < DEVTAB_VLARB_BLOCKS; b++) {
			if (!(blocks & (1u << b)))
				continue;
			it.idx = (uint16_t)b;
			it.mod = (uint32_t)((b + 1) << 16 | (sw ? p : 0));
			if (n->ports[p].vlarb_valid & (1u << b)) {
				if (wanted(r, &it, want) && memcmp(want,
				    n->ports[p].vlarb[b], DEVTAB_VLARB_SIZE) != 0)
					push_set(r, &it, want);
				continue;
			}
			if (!r->dr || wanted(r, &it, want))
				push(r, &it);
		}
		/* P_Keys of switch external ports ibsmd leaves alone */
		if (r->dr || !sw || p == 0 || fn->enforce_cap == 0 ||
		    pkeys_managed(pk, enforce_tables, f, fn->port0 + p))
			continue;
		it.kind = ITEM_PKEY;
		it.cap = fn->enforce_cap;
		if (n->ports[p].pkeys == NULL ||
		    n->ports[p].pkey_cap != it.cap)
			(void)devtab_port_pkeys(n, p, it.cap);
		for (b = 0; b * DEVTAB_PKEY_BLOCK < it.cap && b < 64; b++) {
			if (n->ports[p].pkey_valid & (UINT64_C(1) << b))
				continue;
			it.idx = (uint16_t)b;
			it.mod = (uint32_t)(p << 16 | b);
			push(r, &it);
		}
	}
}

/* A new round: the one under way ends (whoever waits for it goes on),
 * what it queued is dropped, every node of f with ports is queued. */
static void
round_start(struct devread *r, const struct fabric *f,
    const struct pkey_tables *pk, bool enforce_tables,
    const struct qos_config *qc, bool dr)
{
	r->dr = dr;
	r->gen++;
	r->f = f;
	r->qc = qc != NULL && qc->on ? qc : NULL;
	r->n = r->head = 0;
	r->said = false;
	r->t0 = ev_now(r->loop);
	memset(&r->st, 0, sizeof(r->st));
	if (f != NULL && (!dr || r->qc != NULL))
		for (uint32_t ni = 0; ni < f->nnodes; ni++)
			if (f->nodes[ni].nports > 0)
				queue_node(r, f, ni, pk, enforce_tables);
}

void
devread_start(struct devread *r, const struct fabric *f,
    const struct pkey_tables *pk, bool enforce_tables,
    const struct qos_config *qc)
{
	if (r == NULL)
		return;
	/* The QoS tables before the ports go Active come first: a sweep
	 * waits for them. This round is the SA's and the next subnet up
	 * starts it again. */
	if (r->done != NULL) {
		log_debug("devread: a round of port tables waits for the QoS "
		    "tables of the sweep under way");
		return;
	}
	round_start(r, f, pk, enforce_tables, qc, false);
	if (f == NULL)
		return;
	if (r->n > 0)
		log_debug("devread: %zu port tables to read", r->n);
	launch(r);
}

void
devread_qos_dr(struct devread *r, const struct fabric *f,
    const struct qos_config *qc, devread_done_cb cb, void *arg)
{
	/* a sweep waits for one such round at a time */
	finish(r);
	round_start(r, f, NULL, false, qc, true);
	r->done = cb;
	r->done_arg = arg;
	log_debug("devread: %zu QoS tables to read or write before the "
	    "ports go Active", r->n);
	launch(r);
}

void
devread_adopt(struct devread *r, const struct fabric *cur)
{
	if (r == NULL || r->f == NULL || r->f == cur)
		return;
	/* reads in flight go on into the store by GUID; nothing is compared
	 * with the model that goes (the next subnet up compares again) */
	r->f = NULL;
	r->gen++;
}

void
devread_stop(struct devread *r)
{
	if (r != NULL) {
		r->n = r->head = 0;
		r->gen++;
		r->f = NULL;
		r->qc = NULL;
		finish(r);
	}
}
