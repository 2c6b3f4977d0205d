/*
 * Routing: the engine registry and chain, and the report that walks
 * finished tables.
 */
#include "routing/routing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/query.h"
#include "routing/cdg.h"
#include "routing/kernel.h"

static uint64_t blocks_changed(const struct fabric *f, const struct lft_set *s,
    const struct routing_opts *o);

static const struct routing_engine *const engines[] = {
	&re_ftree,
	&re_updn,
	&re_minhop,
	&re_dfsssp,
};

const struct routing_engine *
routing_engine_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

const char *
routing_engine_name(size_t i)
{
	return i < sizeof(engines) / sizeof(engines[0]) ? engines[i]->name :
	    NULL;
}

static double
elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
say(void (*log_cb)(const char *), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(void (*log_cb)(const char *), const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	if (log_cb == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_cb(msg);
}

/*
 * out is sized here (callers pass it unsized); on success the caller owns
 * it and releases it with lft_set_fini(), on failure it is left empty.
 */
/* "0:12 1:96 2:288": (switch, LID) pairs by hop count, empty buckets
 * left out. */
static const char *
hops_text(const struct route_report *rep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned h = 0; h <= ROUTE_HOPS_MAX && used < len; h++)
		if (rep->hops[h] != 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%u%s:%llu",
			    used ? " " : "", h, h == ROUTE_HOPS_MAX ? "+" : "",
			    (unsigned long long)rep->hops[h]);
	return buf;
}

int
routing_run(const struct routing_engine *const *chain, size_t n,
    const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    struct route_report *rep, void (*log_cb)(const char *msg))
{
	return routing_run_layers(chain, n, f, o, out, NULL, rep, log_cb);
}

/* One engine of the chain: route, into lay too where it layers. */
static int
run_one(const struct routing_engine *re, const struct fabric *f,
    const struct routing_opts *o, struct lft_set *out,
    struct route_layers *lay, char *why, size_t whylen)
{
	if (lay == NULL || re->route_layers == NULL || o->vls <= 1)
		return re->route(f, o, out, why, whylen);
	return re->route_layers(f, o, out, lay, why, whylen);
}

int
routing_run_layers(const struct routing_engine *const *chain, size_t n,
    const struct fabric *f, const struct routing_opts *o, struct lft_set *out,
    struct route_layers *lay, struct route_report *rep,
    void (*log_cb)(const char *msg))
{
	static const struct routing_opts none;
	struct routing_opts fresh;
	const struct routing_opts *eo = &none;
	struct timespec t0, t1;
	char why[256], hops[ROUTE_HOPS_MAX * 24], vls[32];
	size_t i, entries;
	double secs;
	unsigned bad_vl = 0;
	int acyclic;

	memset(rep, 0, sizeof(*rep));
	if (lay != NULL)
		memset(lay, 0, sizeof(*lay));
	if (o != NULL && o->fresh) {
		fresh = *o;
		fresh.prev = NULL;
		fresh.prev_fabric = NULL;
		eo = &fresh;
	} else if (o != NULL)
		eo = o;
	if (lft_set_init(out, f) == -1) {
		say(log_cb, "routing: out of memory for the forwarding tables");
		return -1;
	}
	entries = (size_t)out->nsw * ((size_t)out->max_lid + 1);
	for (i = 0; i < n; i++) {
		/* a failed engine may have left half-written tables */
		if (i > 0)
			memset(out->port, LFT_NO_ROUTE, entries);
		if (lay != NULL) {
			route_layers_fini(lay);
			memset(lay, 0, sizeof(*lay));
		}
		why[0] = '\0';
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run_one(chain[i], f, eo, out, lay, why, sizeof(why)) != 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			say(log_cb, "routing: %s failed after %.3f s: %s",
			    chain[i]->name, elapsed(&t0, &t1),
			    why[0] ? why : "no reason given");
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = elapsed(&t0, &t1);
		/* Checked on the tables as they are, whatever the engine
		 * promises: the report must not take its word for it. A
		 * layered routing is checked per VL. */
		if (lay != NULL && lay->layer != NULL)
			acyclic = routing_layers_acyclic(f, out, lay, NULL,
			    &bad_vl);
		else
			acyclic = cdg_acyclic(f, out, NULL);
		if (!acyclic && chain[i]->deadlock_free) {
			if (i + 1 < n) {
				say(log_cb, "routing: %s failed after %.3f s: its "
				    "tables have a credit loop (channel dependency "
				    "cycle%s)", chain[i]->name, secs,
				    lay != NULL && lay->layer != NULL ?
				    " in a VL" : "");
				continue;
			}
			say(log_cb, "routing: %s: its tables have a credit loop "
			    "and no engine follows it in the chain; using them",
			    chain[i]->name);
		}
		snprintf(rep->engine, sizeof(rep->engine), "%s", chain[i]->name);
		rep->seconds = secs;
		routing_report_fill(f, out, rep);
		rep->blocks_changed = blocks_changed(f, out, o);
		rep->deadlock_free = acyclic;
		rep->vls = lay != NULL && lay->n > 1 ? lay->n : 1;
		vls[0] = '\0';
		if (rep->vls > 1)
			snprintf(vls, sizeof(vls), " on %u VLs", rep->vls);
		if (!acyclic && rep->vls > 1)
			snprintf(vls, sizeof(vls), " in VL %u of %u", bad_vl,
			    rep->vls);
		say(log_cb, "routing: %s routed %u LIDs on %u switches in %.3f s "
		    "(%llu unreachable pairs, port load max %u mean %.1f, %s%s, "
		    "%llu blocks changed, hops %s)",
		    chain[i]->name, rep->lids, out->nsw, secs,
		    (unsigned long long)rep->unreachable, rep->max_port_load,
		    rep->mean_port_load, acyclic ? "deadlock-free" :
		    "CREDIT LOOP", vls, (unsigned long long)rep->blocks_changed,
		    hops_text(rep, hops, sizeof(hops)));
		return 0;
	}
	say(log_cb, "routing: no engine of the chain (%zu tried) could route",
	    n);
	lft_set_fini(out);
	if (lay != NULL) {
		route_layers_fini(lay);
		memset(lay, 0, sizeof(*lay));
	}
	return -1;
}

int
route_layers_init(struct route_layers *lay, const struct lft_set *s,
    uint8_t vls)
{
	size_t bytes = (size_t)s->nsw * ((size_t)s->max_lid + 1);

	memset(lay, 0, sizeof(*lay));
	lay->layer = calloc(bytes ? bytes : 1, 1);
	if (lay->layer == NULL)
		return -1;
	lay->n = 1;
	lay->vls = vls > 1 ? vls : 1;
	lay->nsw = s->nsw;
	lay->max_lid = s->max_lid;
	return 0;
}

void
route_layers_fini(struct route_layers *lay)
{
	free(lay->layer);
	lay->layer = NULL;
}

int
route_layers_copy(struct route_layers *dst, const struct route_layers *src)
{
	size_t bytes = (size_t)src->nsw * ((size_t)src->max_lid + 1);

	*dst = *src;
	if (src->layer == NULL)
		return 0;
	dst->layer = malloc(bytes ? bytes : 1);
	if (dst->layer == NULL)
		return -1;
	memcpy(dst->layer, src->layer, bytes);
	return 0;
}

uint32_t
routing_source_switch(const struct fabric *f, const struct lft_set *s,
    uint16_t slid)
{
	uint32_t p = fabric_port_by_lid(f, slid);
	uint8_t port;

	if (p == FABRIC_NONE)
		return FABRIC_NONE;
	return kernel_attach(f, s, p, &port);
}

uint8_t
routing_path_sl(const struct route_layers *lay, const struct fabric *f,
    const struct lft_set *s, uint16_t slid, uint16_t dlid)
{
	if (lay == NULL || lay->engine == NULL || lay->engine->path_sl == NULL)
		return 0;
	return lay->engine->path_sl(lay, f, s, slid, dlid);
}

void
routing_update_sl2vl(const struct route_layers *lay, const struct fabric *f,
    uint32_t node, uint8_t in, uint8_t num, uint8_t sl2vl[ROUTE_SLS])
{
	if (lay != NULL && lay->engine != NULL &&
	    lay->engine->update_sl2vl != NULL)
		lay->engine->update_sl2vl(lay, f, node, in, num, sl2vl);
}

int
routing_layers_acyclic(const struct fabric *f, const struct lft_set *s,
    const struct route_layers *lay, const uint8_t *vl_of, unsigned *cyclic_vl)
{
	if (cyclic_vl != NULL)
		*cyclic_vl = 0;
	if (lay == NULL || lay->layer == NULL)
		return cdg_acyclic(f, s, NULL);
	if (lay->nsw != s->nsw || lay->max_lid != s->max_lid)
		return 0;       /* made for other tables: nothing holds */
	return cdg_acyclic_layers(f, s, lay->layer, lay->n, vl_of, cyclic_vl,
	    NULL);
}

uint8_t
routing_vls_supported(const struct fabric *f)
{
	unsigned vls = 0, v;

	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];
		uint32_t q = port->peer;

		if (f->nodes[port->node].type != NODE_SWITCH ||
		    port->num == 0 || q == FABRIC_NONE ||
		    f->nodes[f->ports[q].node].type != NODE_SWITCH ||
		    !port->info_valid)
			continue;
		v = query_vls(query_port_vl_cap(port));
		if (v != 0 && (vls == 0 || v < vls))
			vls = v;
	}
	return vls != 0 ? (uint8_t)vls : 1;
}

/*
 * The report walks every (switch, LID) pair, which is hundreds of millions
 * on a large fabric, so what a walk reads is first put where the cache
 * wants it: the cabling of every switch port is flattened into slots
 * (switch base + port number), as struct fabric_port is large; and the
 * tables are read through a transposed tile of TILE LIDs x all switches,
 * as a column of the tables touches one page per switch, more than the TLB
 * holds.
 */
#define TILE            256
#define PREFETCH        32

/* slot.to: a switch index (< nsw), nsw + the index of an end port (port 0
 * of the switch itself included), or SLOT_DEAD. */
#define SLOT_DEAD       UINT32_MAX

/* walk.val: switch hops to the LID, or one of these. */
#define WALK_UNKNOWN    UINT32_MAX
#define WALK_UNREACH    (UINT32_MAX - 1)
#define WALK_BUSY       (UINT32_MAX - 2)        /* on this walk: a loop */

struct slot {
	uint32_t to;
	uint32_t lost;          /* LIDs leaving by this port, not reaching */
};

struct walk {
	uint32_t nsw;
	uint32_t *base;         /* [nsw + 1] first slot of each switch */
	struct slot *slot;      /* [base[nsw]] */
	uint8_t *tile;          /* [TILE][nsw] entries of LIDs lo .. */
	uint32_t lo;            /* first LID in the tile, 0: none */
	const uint8_t *entry;   /* [nsw] the tile's entries for this LID */
	uint32_t dest;          /* nsw + index of the port that owns the LID */
	uint32_t *val;          /* [nsw] WALK_* or hops */
	uint32_t *stack;        /* [nsw] switches of the walk in progress */
	uint32_t *egress;       /* [nsw] slot each of them leaves by */
	uint32_t missed;        /* switches that do not reach this LID */
	uint64_t unreachable;
	/* banks by switch: consecutive increments of one counter in memory
	 * would wait for each other */
	uint64_t hops[4][ROUTE_HOPS_MAX + 1];
};

/* Slot 0 of a switch leads to its own port 0, which owns the switch LID. */
static void
flatten(struct walk *w, const struct fabric *f, const struct lft_set *s)
{
	const struct fabric_node *n;
	struct slot *sl;
	uint32_t sw, q, p;
	unsigned num;

	w->base = xcalloc(s->nsw + 1, sizeof(*w->base));
	for (sw = 0; sw < s->nsw; sw++)
		w->base[sw + 1] = w->base[sw] + f->nodes[s->sw_node[sw]].nports
		    + 1;
	w->slot = xcalloc(w->base[s->nsw], sizeof(*w->slot));
	for (sw = 0; sw < s->nsw; sw++) {
		n = &f->nodes[s->sw_node[sw]];
		sl = w->slot + w->base[sw];
		sl[0].to = s->nsw + n->port0;
		for (num = 1; num <= n->nports; num++) {
			p = n->port0 + num;
			q = f->ports[p].peer;
			/* a DOWN port forwards nothing, whatever the table says */
			if (q == FABRIC_NONE || f->ports[p].state == PORT_DOWN ||
			    f->ports[q].state == PORT_DOWN)
				sl[num].to = SLOT_DEAD;
			else if (f->nodes[f->ports[q].node].type == NODE_SWITCH)
				sl[num].to = s->node_sw[f->ports[q].node];
			else
				sl[num].to = s->nsw + q;
		}
	}
}

#define SWAP8(a, b, sh, m) do { \
	uint64_t t_ = (((a) >> (sh)) ^ (b)) & (m); \
	(b) ^= t_; \
	(a) ^= t_ << (sh); \
} while (0)

/* Transpose an 8 x 8 byte matrix held in 8 words (word = row). */
static inline void
transpose8(uint64_t r[8])
{
	const uint64_t m1 = 0x00ff00ff00ff00ffULL, m2 = 0x0000ffff0000ffffULL,
	    m4 = 0x00000000ffffffffULL;

	SWAP8(r[0], r[1], 8, m1); SWAP8(r[2], r[3], 8, m1);
	SWAP8(r[4], r[5], 8, m1); SWAP8(r[6], r[7], 8, m1);
	SWAP8(r[0], r[2], 16, m2); SWAP8(r[1], r[3], 16, m2);
	SWAP8(r[4], r[6], 16, m2); SWAP8(r[5], r[7], 16, m2);
	SWAP8(r[0], r[4], 32, m4); SWAP8(r[1], r[5], 32, m4);
	SWAP8(r[2], r[6], 32, m4); SWAP8(r[3], r[7], 32, m4);
}

/*
 * Load the tile with LIDs lo .. lo + TILE - 1 (as far as the tables go),
 * by 8 x 8 blocks where whole blocks fit.
 */
static void
transpose(struct walk *w, const struct lft_set *s, uint32_t lo)
{
	uint32_t sw, l, i, n = s->max_lid + 1u - lo, n8, sw8;
	const uint8_t *row[8];
	uint64_t r[8];

	if (n > TILE)
		n = TILE;
	n8 = n & ~7u;
	sw8 = s->nsw & ~7u;
	w->lo = lo;
	for (sw = 0; sw < sw8; sw += 8) {
		for (i = 0; i < 8; i++) {
			row[i] = lft_row(s, sw + i) + lo;
			/* rows are far apart: the hardware will not guess */
			if (sw + 8 + i < s->nsw)
				__builtin_prefetch(lft_row(s, sw + 8 + i) + lo);
		}
		for (l = 0; l < n8; l += 8) {
			for (i = 0; i < 8; i++)
				memcpy(&r[i], row[i] + l, 8);
			transpose8(r);
			for (i = 0; i < 8; i++)
				memcpy(w->tile + (size_t)(l + i) * s->nsw + sw,
				    &r[i], 8);
		}
	}
	/* the ragged edges, entry by entry */
	for (sw = 0; sw < s->nsw; sw++)
		for (l = sw < sw8 ? n8 : 0; l < n; l++)
			w->tile[(size_t)l * s->nsw + sw] = lft_row(s, sw)[lo + l];
}

/* slot: what the switch's entry pointed at, when it pointed at a port. */
static inline void
record(struct walk *w, uint32_t sw, uint32_t hops, uint32_t slot)
{
	if (hops != WALK_UNREACH) {
		w->hops[sw & 3][hops < ROUTE_HOPS_MAX ? hops : ROUTE_HOPS_MAX]++;
		return;
	}
	w->unreachable++;
	w->missed++;
	if (slot != SLOT_DEAD && w->slot[slot].to < w->nsw)
		w->slot[slot].lost++;
}

/*
 * Follow the LID from sw until a switch whose answer is known from this
 * LID's earlier walks, then unwind: each switch is looked up once per LID.
 */
static void
walk(struct walk *w, uint32_t sw)
{
	uint32_t n = 0, cur = sw, v, slot, to;
	uint8_t p;

	for (;;) {
		p = w->entry[cur];
		slot = w->base[cur] + p;
		if (p == LFT_NO_ROUTE || slot >= w->base[cur + 1])
			to = slot = SLOT_DEAD;
		else
			to = w->slot[slot].to;
		if (to == w->dest || to >= w->nsw) {
			/* delivered here, or dropped here */
			v = to == w->dest ? 0 : WALK_UNREACH;
			w->val[cur] = v;
			record(w, cur, v, slot);
			break;
		}
		w->val[cur] = WALK_BUSY;
		w->stack[n] = cur;
		w->egress[n++] = slot;
		cur = to;
		if (w->val[cur] != WALK_UNKNOWN) {
			v = w->val[cur] == WALK_BUSY ? WALK_UNREACH : w->val[cur];
			break;
		}
	}
	/* v is the answer of the switch after stack[n - 1] */
	while (n > 0) {
		n--;
		if (v != WALK_UNREACH)
			v++;
		cur = w->stack[n];
		w->val[cur] = v;
		record(w, cur, v, w->egress[n]);
	}
}

/*
 * One switch not yet known for this LID: where its entry delivers the LID
 * or hands it to a switch already known, its answer is one step away (as
 * walk() would find it, without its stack); else walk() from it.
 */
static inline void
step(struct walk *w, uint32_t sw)
{
	uint8_t p = w->entry[sw];
	uint32_t slot = w->base[sw] + p, to, v;

	if (p != LFT_NO_ROUTE && slot < w->base[sw + 1]) {
		to = w->slot[slot].to;
		if (to == w->dest) {
			w->val[sw] = 0;
			record(w, sw, 0, slot);
			return;
		}
		if (to < w->nsw && (v = w->val[to]) != WALK_UNKNOWN) {
			/* no walk is under way: v is hops or WALK_UNREACH */
			if (v != WALK_UNREACH)
				v++;
			w->val[sw] = v;
			record(w, sw, v, slot);
			return;
		}
	}
	walk(w, sw);
}

/* The slot a switch will read is the likely cache miss: ask for it early. */
static inline void
ask_slot(const struct walk *w, uint32_t sw)
{
	uint32_t slot = w->base[sw] + w->entry[sw];

	if (slot < w->base[sw + 1])
		__builtin_prefetch(&w->slot[slot]);
}

/*
 * Port loads: an inter-switch port carries the destination LIDs its
 * switch's entries send to it, less those that never arrive. Counting
 * entries along each row is cheaper than counting in the walks.
 */
static void
sum_loads(const struct walk *w, const struct lft_set *s, const uint8_t *dest,
    uint32_t max, struct route_report *rep)
{
	uint32_t cnt[4][256], sw, lid, p, load, used = 0, nports;
	const struct slot *sl;
	const uint8_t *row;
	uint64_t total = 0;

	for (sw = 0; sw < s->nsw; sw++) {
		/* four banks, as in struct walk's hops */
		memset(cnt, 0, sizeof(cnt));
		row = lft_row(s, sw);
		for (lid = 1; lid <= max; lid++)
			cnt[lid & 3][row[lid]] += dest[lid];
		sl = w->slot + w->base[sw];
		nports = w->base[sw + 1] - w->base[sw];
		for (p = 1; p < nports; p++) {
			if (sl[p].to >= w->nsw)
				continue;
			load = cnt[0][p] + cnt[1][p] + cnt[2][p] + cnt[3][p] -
			    sl[p].lost;
			if (load == 0)
				continue;
			used++;
			total += load;
			if (load > rep->max_port_load)
				rep->max_port_load = load;
		}
	}
	rep->mean_port_load = used ? (double)total / used : 0.0;
}

/* The end port that owns each LID, every LID of a 2^lmc block (the
 * first, if a LID is given twice). */
static uint32_t *
lid_owners(const struct fabric *f, uint32_t max)
{
	uint32_t *owner = xcalloc((size_t)max + 1, sizeof(*owner)), lid;

	for (lid = 0; lid <= max; lid++)
		owner[lid] = fabric_port_by_lid(f, (uint16_t)lid);
	return owner;
}

/*
 * Switch hops = inter-switch links crossed: a switch's own LID and the CAs
 * cabled to it are 0 hops away. rep->lids counts destination LIDs that
 * every switch reaches.
 */
void
routing_report_fill(const struct fabric *f, const struct lft_set *s,
    struct route_report *rep)
{
	struct walk w;
	uint32_t *owner, sw, lid, i, max = fabric_max_lid(f);
	uint8_t *dest;

	memset(&w, 0, sizeof(w));
	w.nsw = s->nsw;
	flatten(&w, f, s);
	w.tile = xcalloc((size_t)s->nsw * TILE, 1);
	w.val = xcalloc(s->nsw, sizeof(*w.val));
	w.stack = xcalloc(s->nsw, sizeof(*w.stack));
	w.egress = xcalloc(s->nsw, sizeof(*w.egress));
	owner = lid_owners(f, max);
	dest = xcalloc((size_t)max + 1, 1);
	for (lid = 1; lid <= max; lid++)
		dest[lid] = owner[lid] != FABRIC_NONE;
	rep->lids = 0;
	for (lid = 1; lid <= max; lid++) {
		if (owner[lid] == FABRIC_NONE)
			continue;
		if (lid > s->max_lid) {
			/* tables too short to hold it: nobody reaches it */
			w.unreachable += s->nsw;
			continue;
		}
		if (w.lo == 0 || lid >= w.lo + TILE)   /* lo 0: none yet */
			transpose(&w, s, lid);
		w.entry = w.tile + (size_t)(lid - w.lo) * s->nsw;
		w.dest = s->nsw + owner[lid];
		w.missed = 0;
		memset(w.val, 0xff, s->nsw * sizeof(*w.val));  /* UNKNOWN */
		for (sw = 0; sw < s->nsw; sw++) {
			if (sw + PREFETCH < s->nsw)
				ask_slot(&w, sw + PREFETCH);
			if (w.val[sw] == WALK_UNKNOWN)
				step(&w, sw);
		}
		if (w.missed == 0 && s->nsw > 0)
			rep->lids++;
	}
	rep->unreachable = w.unreachable;
	for (i = 0; i <= ROUTE_HOPS_MAX; i++)
		rep->hops[i] = w.hops[0][i] + w.hops[1][i] + w.hops[2][i] +
		    w.hops[3][i];
	rep->max_port_load = 0;
	sum_loads(&w, s, dest, max < s->max_lid ? max : s->max_lid, rep);

	free(owner);
	free(dest);
	free(w.base);
	free(w.slot);
	free(w.tile);
	free(w.val);
	free(w.stack);
	free(w.egress);
}

/* Add to load the routes from every switch with CAs (cas of them) to lid,
 * each directed inter-switch port crossed; returns the most on one. */
static uint64_t
lid_load(const struct fabric *f, const struct lft_set *s,
    const uint32_t *cas, uint64_t *load, uint16_t lid)
{
	uint64_t max = 0;

	for (uint32_t from = 0; from < s->nsw; from++) {
		uint32_t sw = from, hops = 0;

		if (cas[from] == 0)
			continue;
		while (hops++ < s->nsw) {
			uint32_t n = s->sw_node[sw], out, q;
			uint8_t e = lft_row(s, sw)[lid];

			if (e == LFT_NO_ROUTE || e == 0 ||
			    e > f->nodes[n].nports)
				break;
			out = fabric_port_idx(f, n, e);
			if ((q = f->ports[out].peer) == FABRIC_NONE ||
			    f->nodes[f->ports[q].node].type != NODE_SWITCH)
				break;          /* delivered, or lost */
			load[out] += cas[from];
			if (load[out] > max)
				max = load[out];
			sw = s->node_sw[f->ports[q].node];
			if (sw == FABRIC_NONE)
				break;
		}
	}
	return max;
}

uint64_t
routing_max_link_routes(const struct fabric *f, const struct lft_set *s)
{
	uint32_t *cas = xcalloc(s->nsw, sizeof(*cas));
	uint64_t *load = xcalloc(f->nports, sizeof(*load));
	uint64_t max = 0, m;

	/* CA ports (sources) per switch they are cabled to */
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];
		uint32_t q = port->peer, n;

		if (f->nodes[port->node].type == NODE_SWITCH || !port->present ||
		    q == FABRIC_NONE || port->state == PORT_DOWN)
			continue;
		n = f->ports[q].node;
		if (f->nodes[n].type == NODE_SWITCH &&
		    s->node_sw[n] != FABRIC_NONE)
			cas[s->node_sw[n]]++;
	}
	/* to every LID of each CA port's 2^lmc, each sent to as often */
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *dst = &f->ports[p];
		uint32_t lid, top = dst->lid + (1u << dst->lmc) - 1;

		if (f->nodes[dst->node].type == NODE_SWITCH || !dst->present ||
		    dst->lid == 0)
			continue;
		for (lid = dst->lid; lid <= top && lid <= s->max_lid; lid++)
			if ((m = lid_load(f, s, cas, load, (uint16_t)lid)) > max)
				max = m;
	}
	free(cas);
	free(load);
	return max;
}

uint64_t
routing_blocks_changed(const struct fabric *f, const struct lft_set *s,
    const struct fabric *prev_fabric, const struct lft_set *prev)
{
	struct routing_opts o = { .prev_fabric = prev_fabric, .prev = prev };

	return blocks_changed(f, s, &o);
}

/* 64-entry blocks of s that differ from the previous tables (every block
 * of a switch that had none). */
static uint64_t
blocks_changed(const struct fabric *f, const struct lft_set *s,
    const struct routing_opts *o)
{
	uint32_t nb = s->max_lid / 64u + 1u;
	uint64_t changed = 0;

	for (uint32_t sw = 0; sw < s->nsw; sw++) {
		const uint8_t *row = lft_row(s, sw), *old;
		uint16_t old_max = 0;
		uint32_t whole;

		old = o == NULL ? NULL : kernel_prev_row(o->prev_fabric, o->prev,
		    f->nodes[s->sw_node[sw]].guid, &old_max);
		if (old == NULL) {
			changed += nb;
			continue;
		}
		/* Blocks both rows hold whole compare as bytes; only a block
		 * that runs past either row's end is compared entry by entry. */
		whole = ((uint32_t)(s->max_lid < old_max ? s->max_lid : old_max) +
		    1u) / 64u;
		for (uint32_t b = 0; b < whole; b++)
			changed += memcmp(row + 64u * b, old + 64u * b, 64) != 0;
		for (uint32_t b = whole; b < nb; b++)
			for (uint32_t lid = b * 64u; lid < b * 64u + 64u; lid++) {
				uint8_t now = lid <= s->max_lid ? row[lid] :
				    LFT_NO_ROUTE;
				uint8_t was = lid <= old_max ? old[lid] :
				    LFT_NO_ROUTE;

				if (now != was) {
					changed++;
					break;
				}
			}
	}
	return changed;
}
