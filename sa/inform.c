/*
 * InformInfo, InformInfoRecord and Reports. See inform.h.
 */
#include "sa/inform.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "mad/mad.h"
#include "sa/scope.h"

/* InformInfo byte layout (IBA 13.4.8.3, OpenSM's ib_inform_info_t). */
#define II_GID          0
#define II_LID_BEGIN    16
#define II_LID_END      18
#define II_IS_GENERIC   22
#define II_SUBSCRIBE    23
#define II_TYPE         24
#define II_TRAP         26
#define II_QPN_RESP     28      /* QPN(24) reserved(3) RespTimeValue(5) */
#define II_PRODUCER     33      /* 24 bits */
/* InformInfoRecord: SubscriberGID, Enum, reserved(6), InformInfo, pad. */
#define IIR_ENUM        16
#define IIR_INFORM      24
/* Notice: IssuerGID after the 54 bytes of details. */
#define NOTICE_ISSUER_GID 64
#define NOTICE_GID_DETAILS 6    /* traps 64-67: 6 reserved, then the GID */

#define ANY16 0xFFFFu
#define ANY24 0xFFFFFFu

/* InformInfoRecord components, in bits (IBA 15.2.5.12). */
static const struct sa_comp iir_comps[] = {
	{ 0, 128 }, { 128, 16 }, { 144, 48 },           /* GID, Enum, resv */
	{ 192, 128 }, { 320, 16 }, { 336, 16 }, { 352, 16 },
	{ 368, 8 }, { 376, 8 }, { 384, 16 }, { 400, 16 },
	{ 416, 24 }, { 440, 3 }, { 443, 5 }, { 448, 8 }, { 456, 24 },
};
#define NIIR_COMPS (sizeof(iir_comps) / sizeof(iir_comps[0]))

static uint16_t
be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

void
sa_inform_decode(const uint8_t *b, struct sa_inform *ii)
{
	uint32_t w = (uint32_t)b[II_QPN_RESP] << 24 |
	    (uint32_t)b[II_QPN_RESP + 1] << 16 |
	    (uint32_t)b[II_QPN_RESP + 2] << 8 | b[II_QPN_RESP + 3];

	memcpy(ii->gid, b + II_GID, 16);
	ii->lid_begin = be16(b + II_LID_BEGIN);
	ii->lid_end = be16(b + II_LID_END);
	ii->is_generic = b[II_IS_GENERIC];
	ii->subscribe = b[II_SUBSCRIBE];
	ii->type = be16(b + II_TYPE);
	ii->trap = be16(b + II_TRAP);
	ii->qpn = w >> 8;
	ii->resp_time = w & 0x1F;
	ii->producer = (uint32_t)b[II_PRODUCER] << 16 |
	    (uint32_t)b[II_PRODUCER + 1] << 8 | b[II_PRODUCER + 2];
}

void
sa_inform_encode(const struct sa_inform *ii, uint8_t *b)
{
	uint32_t w = (ii->qpn & 0xFFFFFF) << 8 | (ii->resp_time & 0x1F);

	memset(b, 0, SA_INFORM_SIZE);
	memcpy(b + II_GID, ii->gid, 16);
	put16(b + II_LID_BEGIN, ii->lid_begin);
	put16(b + II_LID_END, ii->lid_end);
	b[II_IS_GENERIC] = ii->is_generic;
	b[II_SUBSCRIBE] = ii->subscribe;
	put16(b + II_TYPE, ii->type);
	put16(b + II_TRAP, ii->trap);
	b[II_QPN_RESP] = (uint8_t)(w >> 24);
	b[II_QPN_RESP + 1] = (uint8_t)(w >> 16);
	b[II_QPN_RESP + 2] = (uint8_t)(w >> 8);
	b[II_QPN_RESP + 3] = (uint8_t)w;
	b[II_PRODUCER] = (uint8_t)(ii->producer >> 16);
	b[II_PRODUCER + 1] = (uint8_t)(ii->producer >> 8);
	b[II_PRODUCER + 2] = (uint8_t)ii->producer;
}

void
sa_notice_encode(const struct sa_notice *n, uint8_t *b)
{
	memset(b, 0, SA_NOTICE_SIZE);
	mad_set_field(b, 0, IB_NOTICE_IS_GENERIC_F, n->generic);
	mad_set_field(b, 0, IB_NOTICE_TYPE_F, n->type & 0x7F);
	mad_set_field(b, 0, IB_NOTICE_PRODUCER_F, n->producer & ANY24);
	mad_set_field(b, 0, IB_NOTICE_TRAP_NUMBER_F, n->trap);
	mad_set_field(b, 0, IB_NOTICE_ISSUER_LID_F, n->issuer_lid);
	mad_set_field(b, 0, IB_NOTICE_TOGGLE_F, n->toggle_count >> 15);
	mad_set_field(b, 0, IB_NOTICE_COUNT_F, n->toggle_count & 0x7FFF);
	mad_set_array(b, 0, IB_NOTICE_DATA_DETAILS_F, (void *)n->details);
	memcpy(b + NOTICE_ISSUER_GID, n->issuer_gid, 16);
}

void
sa_notice_decode(const uint8_t *b, struct sa_notice *n)
{
	void *p = (void *)b;

	memset(n, 0, sizeof(*n));
	n->generic = mad_get_field(p, 0, IB_NOTICE_IS_GENERIC_F);
	n->type = (uint8_t)mad_get_field(p, 0, IB_NOTICE_TYPE_F);
	n->producer = mad_get_field(p, 0, IB_NOTICE_PRODUCER_F);
	n->trap = (uint16_t)mad_get_field(p, 0, IB_NOTICE_TRAP_NUMBER_F);
	n->issuer_lid = (uint16_t)mad_get_field(p, 0, IB_NOTICE_ISSUER_LID_F);
	n->toggle_count = (uint16_t)(mad_get_field(p, 0, IB_NOTICE_TOGGLE_F)
	    << 15 | mad_get_field(p, 0, IB_NOTICE_COUNT_F));
	mad_get_array(p, 0, IB_NOTICE_DATA_DETAILS_F, n->details);
	memcpy(n->issuer_gid, b + NOTICE_ISSUER_GID, 16);
}

struct sub {
	uint8_t ii[SA_INFORM_SIZE];     /* as subscribed, QPN the requester's */
	struct sa_inform d;
	uint64_t guid;                  /* subscriber's port */
	uint8_t gid[16];                /* SubscriberGID */
	uint16_t enumv;
	struct transport_addr to;       /* where Reports go */
	unsigned inflight;
	uint64_t sent, acked, failed;
};

struct inform_state {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct sa *sa;
	struct sub *v;
	size_t n, cap;
	struct guid_hash ports;         /* end port GUID -> index, view in use */
	unsigned inflight;
	bool dead;                      /* freed once the last Report is done */
	uint64_t sent, acked, failed;
};

/* One Report on its way: its own copy, so that a subscription removed
 * meanwhile costs nothing but the lookup at completion. */
struct report {
	struct inform_state *st;
	uint64_t guid;
	uint16_t enumv;
	unsigned round;
	struct transport_addr to;
	uint8_t mad[TRANSPORT_MAD_SIZE];
};

static struct sub *
find_sub(struct inform_state *st, uint64_t guid, uint16_t enumv)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].guid == guid && st->v[i].enumv == enumv)
			return &st->v[i];
	return NULL;
}

/* The SA's counters follow the module's (ibsmctl status, stats file). */
static void
sync_stats(struct inform_state *st)
{
	struct sa_stats *ss;

	if (st->sa == NULL || st->dead)
		return;
	ss = sa_stats_mut(st->sa);
	ss->subscriptions = st->n;
	ss->reports_sent = st->sent;
	ss->reports_acked = st->acked;
	ss->reports_failed = st->failed;
}

static void
state_release(struct inform_state *st)
{
	guid_hash_fini(&st->ports);
	free(st->v);
	free(st);
}

static void report_done(void *arg, int status,
    const struct transport_rx *resp);
static void report_drop(void *arg);

static int
report_send(struct report *r)
{
	struct mad_request q = {
		.mad = r->mad, .len = sizeof(r->mad), .to = r->to,
		.dest = r->guid, .drop = report_drop,
	};

	return mad_request(r->st->mad, &q, report_done, r);
}

static void
report_finish(struct report *r, bool acked)
{
	struct inform_state *st = r->st;
	struct sub *s = find_sub(st, r->guid, r->enumv);

	if (acked)
		st->acked++;
	else
		st->failed++;
	if (s != NULL) {
		s->inflight--;
		if (acked)
			s->acked++;
		else
			s->failed++;
	}
	st->inflight--;
	free(r);
	sync_stats(st);
	if (st->dead && st->inflight == 0)
		state_release(st);
}

static void
report_done(void *arg, int status, const struct transport_rx *resp)
{
	struct report *r = arg;

	(void)resp;
	if ((status == MAD_ETIMEDOUT || status == MAD_ESEND) && !r->st->dead &&
	    ++r->round < SA_REPORT_ROUNDS && find_sub(r->st, r->guid,
	    r->enumv) != NULL && report_send(r) == 0)
		return;
	if (status != 0)
		log_debug("sa: Report to port 0x%016" PRIx64 " (LID %u): %s",
		    r->guid, r->to.lid, status == MAD_ETIMEDOUT ? "no "
		    "ReportResp" : status == MAD_ESEND ? "not sent" :
		    "ReportResp with an error status");
	report_finish(r, status == 0);
}

static void
report_drop(void *arg)
{
	struct report *r = arg;

	report_finish(r, false);
}

/* Queue a Report of notice b to s. */
static void
report(struct inform_state *st, struct sub *s, const uint8_t *notice)
{
	struct report *r;

	st->sent++;
	s->sent++;
	if (st->mad == NULL || st->inflight >= SA_REPORT_MAX_INFLIGHT ||
	    s->inflight >= SA_REPORT_MAX_PER_SUB) {
		st->failed++;
		s->failed++;
		return;
	}
	r = xcalloc(1, sizeof(*r));
	r->st = st;
	r->guid = s->guid;
	r->enumv = s->enumv;
	r->to = s->to;
	mad_set_field(r->mad, 0, IB_MAD_BASEVER_F, MAD_BASE_VERSION);
	mad_set_field(r->mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_SA);
	mad_set_field(r->mad, 0, IB_MAD_CLASSVER_F, SA_CLASS_VERSION);
	mad_set_method(r->mad, MAD_REPORT);
	mad_set_field(r->mad, 0, IB_MAD_ATTRID_F, SA_ATTR_NOTICE);
	memcpy(r->mad + SA_HDR_SIZE, notice, SA_NOTICE_SIZE);
	st->inflight++;
	s->inflight++;
	if (report_send(r) < 0)
		report_finish(r, false);
}

static uint32_t
port_in(const struct guid_hash *h, uint64_t guid)
{
	uint32_t p = guid ? guid_hash_get(h, guid) : GUID_HASH_NONE;

	return p == GUID_HASH_NONE ? FABRIC_NONE : p;
}

/* Does s ask for n (OpenSM's matching rules, inform.h)? */
static bool
matches(const struct sub *s, const struct sa_notice *n)
{
	const struct sa_inform *d = &s->d;
	static const uint8_t zero[16];

	if (memcmp(d->gid, zero, 16) != 0) {
		if (memcmp(d->gid, n->issuer_gid, 16) != 0)
			return false;
	} else if (d->lid_begin != ANY16) {
		uint16_t end = d->lid_end ? d->lid_end : d->lid_begin;

		if (n->issuer_lid < d->lid_begin || n->issuer_lid > end)
			return false;
	}
	if ((d->is_generic != 0) != n->generic)
		return false;
	if (d->type != ANY16 && d->type != n->type)
		return false;
	if (d->trap != ANY16 && d->trap != n->trap)
		return false;
	if (d->producer != ANY24 && d->producer != n->producer)
		return false;
	return true;
}

/* Whether s may hear of n: its port shares a partition with the source
 * (the GID in the details for 64-67, else the issuer), or holds the
 * group's key. ports indexes v. *remove: a subscription for a LID range
 * that may not see the source is dropped (o13-17.1.2). */
static bool
permitted(const struct sub *s, const struct sa_notice *n,
    const struct sa_view *v, const struct guid_hash *ports, bool *remove)
{
	uint32_t dst = port_in(ports, s->guid), src;
	const uint8_t *src_gid = n->issuer_gid;

	*remove = false;
	if (v == NULL || v->pk == NULL)
		return true;
	if (dst == FABRIC_NONE)
		return false;
	if (n->generic && n->trap >= SA_TRAP_GID_IN &&
	    n->trap <= SA_TRAP_MGID_GONE) {
		if (n->trap >= SA_TRAP_MGID_NEW && n->group_pkey != 0)
			return sa_scope_has(v, dst, n->group_pkey, NULL);
		src_gid = n->details + NOTICE_GID_DETAILS;
	}
	src = port_in(ports, sa_gid_guid(src_gid));
	if (src == FABRIC_NONE)
		return false;
	if (sa_scope_share(v, src, dst))
		return true;
	*remove = s->d.lid_begin != ANY16;
	return false;
}

static void
drop_sub(struct inform_state *st, size_t i)
{
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*st->v));
	st->n--;
	sync_stats(st);
}

static void
notice(struct inform_state *st, const struct sa_view *v,
    const struct guid_hash *ports, const struct sa_notice *n)
{
	uint8_t b[SA_NOTICE_SIZE];
	bool remove;

	/* only the master forwards events (a standby's subscriptions wait
	 * for it to be master again, or for ClientReregister elsewhere) */
	if (st->sa != NULL && !sa_is_serving(st->sa))
		return;
	sa_notice_encode(n, b);
	for (size_t i = 0; i < st->n;) {
		struct sub *s = &st->v[i];

		if (!matches(s, n)) {
			i++;
			continue;
		}
		if (permitted(s, n, v, ports, &remove)) {
			report(st, s, b);
		} else if (remove) {
			log_info("sa: subscription of port 0x%016" PRIx64
			    " dropped: it may not see the source of trap %u",
			    s->guid, n->trap);
			drop_sub(st, i);
			continue;
		}
		i++;
	}
	sync_stats(st);
}

void
sa_inform_state_notice(void *state, const struct sa_view *v,
    const struct sa_notice *n)
{
	struct inform_state *st = state;

	notice(st, v, &st->ports, n);
}

void
sa_inform_notice(struct sa *sa, const struct sa_notice *n)
{
	struct inform_state *st = sa_attr_state(sa, SA_ATTR_INFORM_INFO);

	if (st != NULL)
		notice(st, sa_current_view(sa), &st->ports, n);
}

/* A trap a port sent the SM, as a Notice to forward: its IssuerGID is the
 * GID of the port at the trap's source LID (0: the SM's own port), as
 * OpenSM fills it. False: not forwarded (traps 129-131, a port's error
 * thresholds, are the SM's business; an unknown source). */
static bool
trap_notice(struct sa_notice *n, const struct sa_view *v,
    const uint8_t *smp_notice, uint16_t slid)
{
	uint8_t b[SA_NOTICE_SIZE] = { 0 };
	uint32_t p;

	if (v == NULL || v->f == NULL)
		return false;
	memcpy(b, smp_notice, SA_NOTICE_SMP_SIZE);
	sa_notice_decode(b, n);
	if (n->generic && n->trap >= 129 && n->trap <= 131)
		return false;
	p = sa_end_by_lid(v, slid != 0 ? slid : v->sm_lid);
	if (p == FABRIC_NONE)
		return false;
	sa_gid_make(n->issuer_gid, v->subnet_prefix, sa_end_guid(v, p));
	return true;
}

void
sa_inform_trap(struct sa *sa, const uint8_t *smp_notice, uint16_t slid)
{
	struct inform_state *st = sa_attr_state(sa, SA_ATTR_INFORM_INFO);
	struct sa_notice n;

	if (st != NULL && trap_notice(&n, sa_current_view(sa), smp_notice,
	    slid))
		notice(st, sa_current_view(sa), &st->ports, &n);
}

void
sa_inform_state_trap(void *state, const struct sa_view *v,
    const uint8_t *smp_notice, uint16_t slid)
{
	struct inform_state *st = state;
	struct sa_notice n;

	if (trap_notice(&n, v, smp_notice, slid))
		notice(st, v, &st->ports, &n);
}

static void
gid_notice(struct sa_notice *n, const struct sa_view *v, uint16_t trap,
    const uint8_t gid[16], uint16_t group_pkey)
{
	memset(n, 0, sizeof(*n));
	n->generic = true;
	n->type = 4;            /* subnet management */
	n->producer = 4;        /* class manager */
	n->trap = trap;
	n->group_pkey = group_pkey;
	memcpy(n->details + NOTICE_GID_DETAILS, gid, 16);
	if (v != NULL) {
		n->issuer_lid = v->sm_lid;
		if (v->f != NULL && v->f->sm_port != FABRIC_NONE)
			sa_gid_make(n->issuer_gid, v->subnet_prefix,
			    v->f->ports[v->f->sm_port].guid);
	}
}

void
sa_inform_gid_trap(struct sa *sa, uint16_t trap, const uint8_t gid[16],
    uint16_t group_pkey)
{
	struct sa_notice n;

	gid_notice(&n, sa_current_view(sa), trap, gid, group_pkey);
	sa_inform_notice(sa, &n);
}

/* Ports a subscription names must share a partition with the requester
 * (OpenSM's validate_ports_access_rights). */
static bool
may_watch(const struct inform_state *st, const struct sa_ctx *c,
    uint32_t req, const struct sa_inform *ii)
{
	static const uint8_t zero[16];
	const struct fabric *f = c->v->f;
	uint32_t p, end;

	if (memcmp(ii->gid, zero, 16) != 0) {
		p = port_in(&st->ports, sa_gid_guid(ii->gid));
		return p != FABRIC_NONE && sa_scope_share(c->v, p, req);
	}
	if (ii->lid_begin == ANY16)
		return true;
	if (f == NULL || ii->lid_begin >= f->nlids)
		return false;
	end = ii->lid_end ? ii->lid_end : ii->lid_begin;
	if (end >= f->nlids)
		end = f->nlids - 1;
	for (uint32_t lid = ii->lid_begin; lid <= end; lid++) {
		p = fabric_port_by_lid(f, (uint16_t)lid);
		if (p != FABRIC_NONE && !sa_scope_share(c->v, p, req))
			return false;
	}
	return true;
}

/* The same subscription: same requester address and the same events. */
static bool
same_sub(const struct sub *s, const struct transport_addr *from,
    const struct sa_inform *ii)
{
	static const uint8_t zero[16];

	if (s->to.lid != from->lid || s->to.qpn != from->qpn)
		return false;
	if (memcmp(ii->gid, zero, 16) != 0) {
		if (memcmp(s->d.gid, ii->gid, 16) != 0)
			return false;
	} else if (s->d.lid_begin != ii->lid_begin ||
	    s->d.lid_end != ii->lid_end || memcmp(s->d.gid, zero, 16) != 0)
		return false;
	return s->d.is_generic == ii->is_generic && s->d.type == ii->type &&
	    s->d.trap == ii->trap && s->d.producer == ii->producer;
}

static unsigned
ii_set(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct inform_state *st = c->state;
	struct sa_inform ii;
	uint8_t *reply = sa_out_add(out);
	uint64_t guid;
	size_t i, mine = 0;
	struct sub *s;
	uint16_t e;

	memcpy(reply, q->rec, SA_INFORM_SIZE);
	sa_inform_decode(q->rec, &ii);
	/* o13-13.1.1: an error reply says "not subscribed" */
	reply[II_SUBSCRIBE] = 0;
	if (q->requester == FABRIC_NONE || ii.subscribe > 1)
		return SA_STATUS_REQ_INVALID;
	if (!q->trusted && ii.is_generic && ii.trap >= 256 && ii.trap <= 259)
		return SA_STATUS_REQ_INVALID;
	guid = c->v->f->ports[q->requester].guid;
	for (i = 0; i < st->n; i++) {
		if (same_sub(&st->v[i], &q->from, &ii))
			break;
		mine += st->v[i].guid == guid;
	}
	if (!ii.subscribe) {
		if (i == st->n)
			return SA_STATUS_REQ_INVALID;
		log_debug("sa: port 0x%016" PRIx64 " unsubscribed (trap %u)",
		    guid, ii.trap);
		drop_sub(st, i);
		memcpy(reply, q->rec, SA_INFORM_SIZE);
		return SA_STATUS_OK;
	}
	if (!may_watch(st, c, q->requester, &ii))
		return SA_STATUS_REQ_INVALID;
	if (i == st->n) {
		if (st->n >= SA_INFORM_MAX || mine >= SA_INFORM_MAX_PER_PORT)
			return SA_STATUS_NO_RESOURCES;
		/* the lowest Enum this subscriber does not use */
		for (e = 0; ; e++)
			if (find_sub(st, guid, e) == NULL)
				break;
		if (st->n == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 16;
			st->v = xreallocarray(st->v, st->cap, sizeof(*st->v));
		}
		s = &st->v[st->n++];
		memset(s, 0, sizeof(*s));
		s->enumv = e;
		s->guid = guid;
	} else
		s = &st->v[i];
	/* Reports go back where the Set came from */
	ii.qpn = q->from.qpn & 0xFFFFFF;
	s->d = ii;
	sa_inform_encode(&ii, s->ii);
	sa_gid_make(s->gid, c->v->subnet_prefix, guid);
	s->to = q->from;
	if (s->to.qkey == 0)
		s->to.qkey = TRANSPORT_QKEY_GSI;
	log_debug("sa: port 0x%016" PRIx64 " (LID %u QPN %u) subscribed to "
	    "trap %u", guid, q->from.lid, q->from.qpn, ii.trap);
	sync_stats(st);
	memcpy(reply, q->rec, SA_INFORM_SIZE);
	return SA_STATUS_OK;
}

static void
iir_fill(const struct sub *s, uint8_t *r)
{
	memset(r, 0, SA_INFORM_REC_SIZE);
	memcpy(r, s->gid, 16);
	put16(r + IIR_ENUM, s->enumv);
	memcpy(r + IIR_INFORM, s->ii, SA_INFORM_SIZE);
}

static unsigned
iir_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct inform_state *st = c->state;
	uint8_t r[SA_INFORM_REC_SIZE];
	uint32_t sp;

	if (st == NULL)
		st = sa_attr_state(c->sa, SA_ATTR_INFORM_INFO);
	if (st == NULL)
		return SA_STATUS_OK;
	for (size_t i = 0; i < st->n && !sa_out_full(out); i++) {
		iir_fill(&st->v[i], r);
		if (!sa_comp_match(iir_comps, NIIR_COMPS, q->comp_mask,
		    q->rec, r))
			continue;
		/* only subscriptions of ports the requester shares with */
		if (c->v->pk != NULL) {
			sp = port_in(&st->ports, st->v[i].guid);
			if (q->requester == FABRIC_NONE || sp == FABRIC_NONE ||
			    !sa_scope_share(c->v, q->requester, sp))
				continue;
		}
		memcpy(sa_out_add(out), r, SA_INFORM_REC_SIZE);
	}
	return SA_STATUS_OK;
}

/* Traps 65 for the end ports that went (told in the old view, where
 * they still are), then 64 for those that came; subscriptions of ports
 * that went are dropped first, and the others follow their port's LID. */
static void
ii_view_changed(void *state, const struct sa_view *old,
    const struct sa_view *v)
{
	struct inform_state *st = state;
	struct guid_hash was;
	struct sa_notice n;
	uint8_t gid[16];
	uint32_t p;

	sa_scope_index_ends(&st->ports, v);
	if (v == NULL || v->f == NULL)
		return;         /* no view tells nothing: everything kept */
	guid_hash_init(&was);
	sa_scope_index_ends(&was, old);
	for (size_t i = 0; i < st->n;) {
		p = port_in(&st->ports, st->v[i].guid);
		if (p == FABRIC_NONE && old != NULL &&
		    port_in(&was, st->v[i].guid) != FABRIC_NONE) {
			log_info("sa: subscription of port 0x%016" PRIx64
			    " dropped: the port left the fabric",
			    st->v[i].guid);
			drop_sub(st, i);
			continue;
		}
		if (p != FABRIC_NONE && v->f->ports[p].lid != 0)
			st->v[i].to.lid = v->f->ports[p].lid;
		i++;
	}
	if (old != NULL && old->f != NULL) {
		for (p = 0; p < old->f->nports; p++) {
			uint64_t g = old->f->ports[p].guid;

			if (g == 0 || !fabric_port_is_endport(old->f, p) ||
			    port_in(&st->ports, g) != FABRIC_NONE)
				continue;
			sa_gid_make(gid, old->subnet_prefix, g);
			gid_notice(&n, v, SA_TRAP_GID_OUT, gid, 0);
			notice(st, old, &was, &n);
		}
		for (p = 0; p < v->f->nports; p++) {
			uint64_t g = v->f->ports[p].guid;

			if (g == 0 || !fabric_port_is_endport(v->f, p) ||
			    port_in(&was, g) != FABRIC_NONE)
				continue;
			sa_gid_make(gid, v->subnet_prefix, g);
			gid_notice(&n, v, SA_TRAP_GID_IN, gid, 0);
			notice(st, v, &st->ports, &n);
		}
	}
	guid_hash_fini(&was);
}

void *
sa_inform_state_new(struct ev_loop *loop, struct mad_engine *mad)
{
	struct inform_state *st = xcalloc(1, sizeof(*st));

	st->loop = loop;
	st->mad = mad;
	guid_hash_init(&st->ports);
	return st;
}

void
sa_inform_state_free(void *state)
{
	struct inform_state *st = state;

	if (st == NULL)
		return;
	/* Reports in flight still point here: the last one frees it (or
	 * the engine's drop hook, when the engine goes first). */
	st->n = 0;
	st->dead = true;
	if (st->inflight == 0)
		state_release(st);
}

static void *
ii_init(struct sa *sa, struct ev_loop *loop)
{
	struct inform_state *st = sa_inform_state_new(loop, sa_mad(sa));

	st->sa = sa;
	return st;
}

void
sa_inform_state_foreach(void *state,
    void (*cb)(void *arg, const struct sa_subscription_info *si), void *arg)
{
	struct inform_state *st = state;
	struct sa_subscription_info si;

	for (size_t i = 0; st != NULL && i < st->n; i++) {
		const struct sub *s = &st->v[i];

		memset(&si, 0, sizeof(si));
		memcpy(si.subscriber_gid, s->gid, 16);
		si.enumv = s->enumv;
		si.lid = s->to.lid;
		si.qpn = s->to.qpn;
		si.ii = s->d;
		si.reports_sent = s->sent;
		si.reports_acked = s->acked;
		si.reports_failed = s->failed;
		cb(arg, &si);
	}
}

void
sa_informs_foreach(struct sa *sa,
    void (*cb)(void *arg, const struct sa_subscription_info *si), void *arg)
{
	sa_inform_state_foreach(sa_attr_state(sa, SA_ATTR_INFORM_INFO), cb,
	    arg);
}

void
sa_inform_state_stats(void *state, struct sa_stats *st)
{
	struct inform_state *is = state;

	if (is == NULL)
		return;
	st->subscriptions = is->n;
	st->reports_sent = is->sent;
	st->reports_acked = is->acked;
	st->reports_failed = is->failed;
}

void
sa_inform_stats(struct sa *sa, struct sa_stats *st)
{
	sa_inform_state_stats(sa_attr_state(sa, SA_ATTR_INFORM_INFO), st);
}

/* InformInfo is 36 bytes; the SA carries it in 40 (AttributeOffset 5). */
const struct sa_attr sa_attr_inform = {
	.id = SA_ATTR_INFORM_INFO,
	.name = "InformInfo",
	.rec_size = 40,
	.set = ii_set,
	.init = ii_init,
	.fini = sa_inform_state_free,
	.view_changed = ii_view_changed,
};

const struct sa_attr sa_attr_inform_rec = {
	.id = SA_ATTR_INFORM_INFO_REC,
	.name = "InformInfoRecord",
	.rec_size = SA_INFORM_REC_SIZE,
	.get = iir_get,
};
