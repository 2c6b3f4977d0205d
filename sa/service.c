/*
 * ServiceRecord: registration, lookup, deletion and leases. See service.h.
 */
#include "sa/service.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "sa/scope.h"

/* ComponentMask bits (IBA 15.2.5.14). */
enum {
	SR_ID = 0, SR_GID = 1, SR_PKEY = 2, SR_LEASE = 4, SR_KEY = 5,
};
#define SR_BIT(c) (UINT64_C(1) << (c))
#define RID_MASK (SR_BIT(SR_ID) | SR_BIT(SR_GID) | SR_BIT(SR_PKEY))

/* Byte offsets of what the component table and the RID need. */
#define SR_OFF_GID      8
#define SR_OFF_GUID     16      /* the GID's interface ID */
#define SR_OFF_RESV     26
#define SR_RID_BYTES    26      /* ServiceID, ServiceGID, ServiceP_Key */

/* Components in bits from the record's start: ID, GID, P_Key, reserved,
 * lease, key, name, then Data8[16], Data16[8], Data32[4], Data64[2]. */
static struct sa_comp sr_comps[37];
static const struct sa_comp sr_head[7] = {
	{ 0, 64 }, { 64, 128 }, { 192, 16 }, { 208, 16 }, { 224, 32 },
	{ 256, 128 }, { 384, 512 },
};

static void
comps_init(void)
{
	unsigned i, n = 0;

	if (sr_comps[1].bits != 0)
		return;
	for (i = 0; i < 7; i++)
		sr_comps[n++] = sr_head[i];
	for (i = 0; i < 16; i++)
		sr_comps[n++] = (struct sa_comp){ (uint16_t)(896 + 8 * i), 8 };
	for (i = 0; i < 8; i++)
		sr_comps[n++] = (struct sa_comp){ (uint16_t)(1024 + 16 * i), 16 };
	for (i = 0; i < 4; i++)
		sr_comps[n++] = (struct sa_comp){ (uint16_t)(1152 + 32 * i), 32 };
	for (i = 0; i < 2; i++)
		sr_comps[n++] = (struct sa_comp){ (uint16_t)(1280 + 64 * i), 64 };
}

struct svc {
	uint8_t rec[SA_SERVICE_REC_SIZE];       /* as granted, lease included */
	double expires;                         /* loop time; 0: never */
};

struct svc_state {
	struct ev_loop *loop;
	ev_timer timer;                 /* at the earliest expiry */
	struct svc *v;
	size_t n, cap;
	/* RID index: (ServiceID, ServiceGID, ServiceP_Key) -> position in
	 * v; open addressing, a slot holds position + 1 (0: empty), at most
	 * half full. Put on append, rebuilt when records move. */
	uint32_t *rslot;
	size_t rcap;            /* a power of two, 0 before the first */
	/* end port GUID -> port index in the view in use */
	struct guid_hash ports;
	double first;                   /* earliest expiry; 0: none */
	struct sa *sa;
};

static uint64_t
rec_guid(const uint8_t *rec)
{
	uint64_t g = 0;

	for (int i = 0; i < 8; i++)
		g = g << 8 | rec[SR_OFF_GUID + i];
	return g;
}

static uint16_t
rec_pkey(const uint8_t *rec)
{
	return (uint16_t)mad_get_field((void *)rec, 0, IB_SA_SR_PKEY_F);
}

static void
sync_stats(struct svc_state *st)
{
	if (st->sa != NULL)
		sa_stats_mut(st->sa)->services = st->n;
}

static bool
pkey_valid(uint16_t k)
{
	return (k & 0x7FFF) != 0;
}


/* FNV-1a over the RID's bytes. */
static size_t
rid_hash(const uint8_t *rid)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (unsigned i = 0; i < SR_RID_BYTES; i++)
		h = (h ^ rid[i]) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 32);
}

static void
rid_insert(struct svc_state *st, size_t i)
{
	size_t m = st->rcap - 1, h = rid_hash(st->v[i].rec) & m;

	while (st->rslot[h] != 0)
		h = (h + 1) & m;
	st->rslot[h] = (uint32_t)i + 1;
}

/* The index anew, sized for st->n (records moved or went). */
static void
rid_rebuild(struct svc_state *st)
{
	size_t cap = 16;

	while (cap < 2 * st->n + 2)
		cap *= 2;
	if (cap != st->rcap) {
		free(st->rslot);
		st->rslot = xcalloc(cap, sizeof(*st->rslot));
		st->rcap = cap;
	} else
		memset(st->rslot, 0, cap * sizeof(*st->rslot));
	for (size_t i = 0; i < st->n; i++)
		rid_insert(st, i);
}

/* Record i (the last) was appended. */
static void
rid_add(struct svc_state *st, size_t i)
{
	if (2 * st->n + 2 > st->rcap)
		rid_rebuild(st);
	else
		rid_insert(st, i);
}

static void
drop(struct svc_state *st, size_t i)
{
	/* keep the order (ibsmctl shows oldest first) */
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*st->v));
	st->n--;
	rid_rebuild(st);
	sync_stats(st);
}

static void arm(struct svc_state *st);

/* Drop the records whose lease ran out, in one pass (keeping the order),
 * and set the next expiry. */
static void
purge(struct svc_state *st, double now)
{
	size_t i, k = 0;

	/* most requests find nothing due: no scan */
	if (st->first == 0 || now < st->first)
		return;
	for (i = 0; i < st->n; i++) {
		if (st->v[i].expires != 0 && st->v[i].expires <= now) {
			log_debug("sa: ServiceRecord 0x%016" PRIx64 " of port "
			    "0x%016" PRIx64 ": lease expired",
			    mad_get_field64(st->v[i].rec, 0, IB_SA_SR_ID_F),
			    rec_guid(st->v[i].rec));
			continue;
		}
		if (k != i)
			st->v[k] = st->v[i];
		k++;
	}
	if (k != st->n) {
		st->n = k;
		rid_rebuild(st);
		sync_stats(st);
	}
	arm(st);
}

/* Recompute the earliest expiry and put the timer there. */
static void
arm(struct svc_state *st)
{
	double first = 0;

	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].expires != 0 &&
		    (first == 0 || st->v[i].expires < first))
			first = st->v[i].expires;
	st->first = first;
	if (st->loop == NULL)
		return;
	ev_timer_stop(st->loop, &st->timer);
	if (first == 0)
		return;
	first -= ev_now(st->loop);
	ev_timer_set(&st->timer, first > 0 ? first : 0., 0.);
	ev_timer_start(st->loop, &st->timer);
}

/* One record more that expires at e (0: never): the timer moves only if
 * it is the earliest (a full arm() scans every record). */
static void
arm_one(struct svc_state *st, double e)
{
	if (e == 0 || (st->first != 0 && st->first <= e))
		return;
	st->first = e;
	if (st->loop == NULL)
		return;
	ev_timer_stop(st->loop, &st->timer);
	e -= ev_now(st->loop);
	ev_timer_set(&st->timer, e > 0 ? e : 0., 0.);
	ev_timer_start(st->loop, &st->timer);
}

static void
on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct svc_state *st = w->data;

	(void)revents;
	st->first = ev_now(loop);       /* due now: purge scans */
	purge(st, ev_now(loop));
}

/* The end port whose GUID is guid in the view in use, FABRIC_NONE. */
static uint32_t
port_of(const struct svc_state *st, uint64_t guid)
{
	uint32_t p = guid ? guid_hash_get(&st->ports, guid) : GUID_HASH_NONE;

	return p == GUID_HASH_NONE ? FABRIC_NONE : p;
}

/* Whether the requester may see or change rec (see service.h). A
 * requester unknown to the view (FABRIC_NONE) holds nothing unless the
 * view has no P_Key tables. */
static bool
visible(const struct svc_state *st, const struct sa_ctx *c, uint32_t req,
    const uint8_t *rec)
{
	uint16_t k = rec_pkey(rec);
	uint32_t port;

	if (c->v->pk == NULL)
		return true;
	if (req == FABRIC_NONE)
		return false;
	if (pkey_valid(k))
		return sa_scope_has(c->v, req, k, NULL);
	port = port_of(st, rec_guid(rec));
	return port == FABRIC_NONE || sa_scope_share(c->v, req, port);
}

/* Fill the reply record: the lease left, the key zeroed if untrusted. */
static void
answer(const struct sa_ctx *c, const struct sa_req *q, const struct svc *s,
    uint8_t *out)
{
	uint32_t lease;

	memcpy(out, s->rec, SA_SERVICE_REC_SIZE);
	if (s->expires != 0) {
		double left = ceil(s->expires - c->now);

		lease = left < 0 ? 0 : (uint32_t)left;
		mad_set_field(out, 0, IB_SA_SR_LEASE_F, lease);
	}
	if (!q->trusted)
		memset(out + 32, 0, 16);
}

/* The record whose RID (the first SR_RID_BYTES) is rid's, -1 if none:
 * a look in the index, whatever the number of records. */
static ssize_t
find_rid(const struct svc_state *st, const uint8_t *rid)
{
	size_t m, h;
	uint32_t x;

	if (st->rcap == 0)
		return -1;
	m = st->rcap - 1;
	for (h = rid_hash(rid) & m; (x = st->rslot[h]) != 0; h = (h + 1) & m)
		if (memcmp(st->v[x - 1].rec, rid, SR_RID_BYTES) == 0)
			return (ssize_t)(x - 1);
	return -1;
}

/* The request's record with the defaults a Set takes: the
 * default P_Key when the mask has none, an infinite lease when it has no
 * lease, the reserved field zeroed. */
static void
normalize(const struct sa_req *q, uint8_t *rec)
{
	memcpy(rec, q->rec, SA_SERVICE_REC_SIZE);
	if (!(q->comp_mask & SR_BIT(SR_PKEY)))
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0xFFFF);
	if (!(q->comp_mask & SR_BIT(SR_LEASE)))
		mad_set_field(rec, 0, IB_SA_SR_LEASE_F,
		    SA_SERVICE_LEASE_INFINITE);
	rec[SR_OFF_RESV] = rec[SR_OFF_RESV + 1] = 0;
}

/* Set: the RID is given, the requester holds the key, and the
 * service's port (a unicast GID) exists and holds it too (OpenSM's
 * validate_sr). */
static unsigned
check_change(const struct svc_state *st, const struct sa_ctx *c,
    const struct sa_req *q, const uint8_t *rec)
{
	uint16_t k = rec_pkey(rec);
	uint32_t port;

	if ((q->comp_mask & (SR_BIT(SR_ID) | SR_BIT(SR_GID))) !=
	    (SR_BIT(SR_ID) | SR_BIT(SR_GID)))
		return SA_STATUS_REQ_INVALID;
	if (q->requester == FABRIC_NONE)
		return SA_STATUS_REQ_INVALID;
	if (!(q->comp_mask & SR_BIT(SR_PKEY)))
		return SA_STATUS_OK;
	if (!sa_scope_has(c->v, q->requester, k, NULL))
		return SA_STATUS_REQ_INVALID;
	if (rec[SR_OFF_GID] != 0xFF) {          /* not multicast */
		port = port_of(st, rec_guid(rec));
		if (port == FABRIC_NONE ||
		    !sa_scope_has(c->v, port, k, NULL))
			return SA_STATUS_REQ_INVALID;
	}
	return SA_STATUS_OK;
}

static unsigned
sr_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct svc_state *st = c->state;

	purge(st, c->now);
	/* the whole RID given: at most one record, from the index */
	if ((q->comp_mask & RID_MASK) == RID_MASK) {
		ssize_t i = find_rid(st, q->rec);

		if (i >= 0 && sa_comp_match(sr_comps, 37, q->comp_mask, q->rec,
		    st->v[i].rec) && visible(st, c, q->requester, st->v[i].rec))
			answer(c, q, &st->v[i], sa_out_add(out));
		return SA_STATUS_OK;
	}
	for (size_t i = 0; i < st->n && !sa_out_full(out); i++) {
		const struct svc *s = &st->v[i];

		if (!sa_comp_match(sr_comps, 37, q->comp_mask, q->rec, s->rec))
			continue;
		if (!visible(st, c, q->requester, s->rec))
			continue;
		answer(c, q, s, sa_out_add(out));
	}
	return SA_STATUS_OK;
}

static unsigned
sr_set(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct svc_state *st = c->state;
	uint8_t rec[SA_SERVICE_REC_SIZE];
	uint32_t lease, cap = c->o ? c->o->service_lease : 0;
	unsigned status;
	ssize_t i;
	struct svc *s;
	bool update;

	purge(st, c->now);
	normalize(q, rec);
	if ((status = check_change(st, c, q, rec)) != SA_STATUS_OK)
		return status;
	lease = (uint32_t)mad_get_field(rec, 0, IB_SA_SR_LEASE_F);
	if (cap != 0 && lease > cap) {
		lease = cap;
		mad_set_field(rec, 0, IB_SA_SR_LEASE_F, lease);
	}
	if ((update = (i = find_rid(st, rec)) >= 0))
		s = &st->v[i];
	else {
		if (st->n >= SA_SERVICE_MAX)
			return SA_STATUS_NO_RESOURCES;
		if (st->n == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 16;
			st->v = xreallocarray(st->v, st->cap, sizeof(*st->v));
		}
		s = &st->v[st->n++];
		memcpy(s->rec, rec, sizeof(rec));
		rid_add(st, st->n - 1);
		sync_stats(st);
	}
	memcpy(s->rec, rec, sizeof(rec));
	/* lease 0: gone at the next look, as OpenSM's next timer tick */
	s->expires = lease == SA_SERVICE_LEASE_INFINITE ? 0 :
	    c->now + (double)lease;
	if (s->expires == 0 && lease != SA_SERVICE_LEASE_INFINITE)
		s->expires = 1e-9;
	log_debug("sa: ServiceRecord 0x%016" PRIx64 " of port 0x%016" PRIx64
	    " registered, lease %" PRIu32, mad_get_field64(rec, 0,
	    IB_SA_SR_ID_F), rec_guid(rec), lease);
	answer(c, q, s, sa_out_add(out));
	if (update)
		arm(st);
	else
		arm_one(st, s->expires);
	return SA_STATUS_OK;
}

/*
 * Delete: the record is named by its own RID, the ServiceID, ServiceGID and
 * ServiceP_Key of the request's data, whatever the mask names (as OpenSM:
 * a Delete with only ServiceName in the mask deletes the record whose RID
 * the data carries). A Set without P_Key stored the default one, so a
 * Delete without P_Key in the mask finds that too. The requester must
 * see the record (hold its key, or share a partition with its port).
 */
static unsigned
sr_del(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct svc_state *st = c->state;
	uint8_t rec[SA_SERVICE_REC_SIZE];
	ssize_t i;

	purge(st, c->now);
	memcpy(rec, q->rec, SA_SERVICE_REC_SIZE);
	if (q->requester == FABRIC_NONE)
		return SA_STATUS_REQ_INVALID;
	if ((q->comp_mask & SR_BIT(SR_PKEY)) &&
	    !sa_scope_has(c->v, q->requester, rec_pkey(rec), NULL))
		return SA_STATUS_REQ_INVALID;
	if ((i = find_rid(st, rec)) < 0 && !(q->comp_mask & SR_BIT(SR_PKEY))) {
		mad_set_field(rec, 0, IB_SA_SR_PKEY_F, 0xFFFF);
		i = find_rid(st, rec);
	}
	if (i < 0 || !visible(st, c, q->requester, st->v[i].rec))
		return SA_STATUS_NO_RECORDS;
	answer(c, q, &st->v[i], sa_out_add(out));
	drop(st, (size_t)i);
	arm(st);
	return SA_STATUS_OK;
}

/* Records of a port that left the fabric go with it. No view (v NULL)
 * tells nothing: everything is kept. */
static void
sr_view_changed(void *state, const struct sa_view *old,
    const struct sa_view *v)
{
	struct svc_state *st = state;
	struct guid_hash was;
	size_t i, k = 0;

	sa_scope_index_ends(&st->ports, v);
	if (old == NULL || v == NULL || v->f == NULL) {
		arm(st);
		return;
	}
	guid_hash_init(&was);
	sa_scope_index_ends(&was, old);
	for (i = 0; i < st->n; i++) {
		uint64_t g = rec_guid(st->v[i].rec);

		if (g != 0 && guid_hash_get(&was, g) != GUID_HASH_NONE &&
		    guid_hash_get(&st->ports, g) == GUID_HASH_NONE) {
			log_info("sa: ServiceRecord 0x%016" PRIx64 " dropped: "
			    "port 0x%016" PRIx64 " left the fabric",
			    mad_get_field64(st->v[i].rec, 0, IB_SA_SR_ID_F), g);
			continue;
		}
		if (k != i)
			st->v[k] = st->v[i];
		k++;
	}
	st->n = k;
	rid_rebuild(st);
	sync_stats(st);
	guid_hash_fini(&was);
	arm(st);
}

void *
sa_service_state_new(struct ev_loop *loop)
{
	struct svc_state *st = xcalloc(1, sizeof(*st));

	comps_init();
	st->loop = loop;
	guid_hash_init(&st->ports);
	ev_timer_init(&st->timer, on_timer, 0., 0.);
	st->timer.data = st;
	return st;
}

void
sa_service_state_free(void *state)
{
	struct svc_state *st = state;

	if (st == NULL)
		return;
	if (st->loop != NULL)
		ev_timer_stop(st->loop, &st->timer);
	guid_hash_fini(&st->ports);
	free(st->rslot);
	free(st->v);
	free(st);
}

static void *
sr_init(struct sa *sa, struct ev_loop *loop)
{
	struct svc_state *st = sa_service_state_new(loop);

	st->sa = sa;
	return st;
}

void
sa_service_state_foreach(void *state, double now,
    void (*cb)(void *arg, const struct sa_service_info *si), void *arg)
{
	struct svc_state *st = state;
	struct sa_service_info si;

	for (size_t i = 0; st != NULL && i < st->n; i++) {
		const uint8_t *r = st->v[i].rec;

		memset(&si, 0, sizeof(si));
		si.id = mad_get_field64((void *)r, 0, IB_SA_SR_ID_F);
		memcpy(si.gid, r + SR_OFF_GID, 16);
		si.pkey = rec_pkey(r);
		si.lease = (uint32_t)mad_get_field((void *)r, 0,
		    IB_SA_SR_LEASE_F);
		si.remaining = st->v[i].expires == 0 ? -1 :
		    st->v[i].expires - now;
		if (si.remaining < -0.0 && st->v[i].expires != 0)
			si.remaining = 0;
		memcpy(si.name, r + 48, 64);
		si.name[64] = '\0';
		cb(arg, &si);
	}
}

void
sa_services_foreach(struct sa *sa,
    void (*cb)(void *arg, const struct sa_service_info *si), void *arg)
{
	struct svc_state *st = sa_attr_state(sa, SA_ATTR_SERVICE_REC);

	if (st == NULL)
		return;
	if (st->loop != NULL)
		purge(st, ev_now(st->loop));
	sa_service_state_foreach(st, st->loop ? ev_now(st->loop) : 0, cb, arg);
}

uint64_t
sa_service_count(struct sa *sa)
{
	struct svc_state *st = sa_attr_state(sa, SA_ATTR_SERVICE_REC);

	return st == NULL ? 0 : st->n;
}

const struct sa_attr sa_attr_service = {
	.id = SA_ATTR_SERVICE_REC,
	.name = "ServiceRecord",
	.rec_size = SA_SERVICE_REC_SIZE,
	.get = sr_get,
	.set = sr_set,
	.del = sr_del,
	.init = sr_init,
	.fini = sa_service_state_free,
	.view_changed = sr_view_changed,
};
