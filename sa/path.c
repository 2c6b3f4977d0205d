/*
 * PathRecord and MultiPathRecord: see sa/path.h. OpenSM's
 * osm_sa_path_record.c and osm_sa_multipath_record.c are the behaviour
 * baseline; where this differs, the comment says so.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/query.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "partitions/partitions.h"
#include "sa/path.h"
#include "sa/pathrec.h"
#include "sa/scope.h"

#define PATH_MAX_HOPS   64              /* as OpenSM's MAX_HOPS */
#define MPR_MAX_PATHS   127             /* NumbPath not given */

struct path_state {
	struct guid_hash by_guid;       /* port GUID -> end port index */
	uint32_t *ends;                 /* end ports, in index order */
	size_t nends, cap;
	struct sa_path_counters cnt;
};

/* One query: the request and what the answer has gathered so far. */
struct query {
	const struct sa_ctx *c;
	struct path_state *st;
	const struct sa_path *want;     /* requested values */
	uint64_t mask;                  /* PathRecord component mask */
	bool get;                       /* Get: one record in all */
	uint32_t requester;
	struct sa_out *out;
	size_t limit;                   /* records of this query, 0: none */
};

/* What one direction of a path carries. */
struct params {
	uint8_t mtu, rate, life, sl;
	uint16_t pkey;
};

/* ------------------------------------------------------------ the index */

static void *
path_init(struct sa *sa, struct ev_loop *loop)
{
	struct path_state *st = xcalloc(1, sizeof(*st));

	(void)sa;
	(void)loop;
	guid_hash_init(&st->by_guid);
	return st;
}

static void
path_fini(void *state)
{
	struct path_state *st = state;

	if (st == NULL)
		return;
	guid_hash_fini(&st->by_guid);
	free(st->ends);
	free(st);
}

static void
path_view_changed(void *state, const struct sa_view *old,
    const struct sa_view *v)
{
	struct path_state *st = state;
	const struct fabric *f;
	uint32_t p;

	(void)old;
	guid_hash_clear(&st->by_guid);
	st->nends = 0;
	if (v == NULL || v->f == NULL)
		return;
	f = v->f;
	for (p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p) || f->ports[p].guid == 0)
			continue;
		/* A GUID seen twice names its first port, as the LID index
		 * does. */
		if (guid_hash_get(&st->by_guid, f->ports[p].guid) ==
		    GUID_HASH_NONE)
			guid_hash_put(&st->by_guid, f->ports[p].guid, p);
		if (st->nends == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 64;
			st->ends = xreallocarray(st->ends, st->cap,
			    sizeof(*st->ends));
		}
		st->ends[st->nends++] = p;
	}
	/* vports with a LID: end indices past the ports */
	for (uint32_t i = 0; v->vports != NULL && i < v->vports->n; i++) {
		const struct vport *vp = &v->vports->v[i];

		if (vp->index == 0 || vp->lid == 0 || vp->guid == 0 ||
		    guid_hash_get(&st->by_guid, vp->guid) != GUID_HASH_NONE)
			continue;
		guid_hash_put(&st->by_guid, vp->guid, f->nports + i);
		if (st->nends == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 64;
			st->ends = xreallocarray(st->ends, st->cap,
			    sizeof(*st->ends));
		}
		st->ends[st->nends++] = f->nports + i;
	}
}

void
sa_path_counters(const void *state, struct sa_path_counters *c)
{
	const struct path_state *st = state;

	*c = st->cnt;
}

/*
 * The end port of a unicast GID of this subnet (the subnet prefix or the
 * link-local one). OpenSM classifies a bad GID as INVALID_GID but then
 * answers from an empty list (Get: NO_RECORDS, GetTable: empty); ibsmd
 * returns the status IBA names, which diagnostics can show.
 */
static unsigned
gid_port(const struct query *qy, const uint8_t *gid, uint32_t *port)
{
	uint64_t prefix = sa_gid_prefix(gid), base;

	if (gid[0] == 0xFF)
		return SA_STATUS_INVALID_GID;
	if (!sa_gid_prefix_ours(qy->c->v, prefix))
		return SA_STATUS_INVALID_GID;       /* no routers */
	*port = guid_hash_get(&qy->st->by_guid, sa_gid_guid(gid));
	/* A VF alias GUID names its physical port (shared-port SR-IOV). */
	if (*port == GUID_HASH_NONE && qy->c->v->alias != NULL &&
	    alias_find(qy->c->v->alias, sa_gid_guid(gid), &base, NULL))
		*port = guid_hash_get(&qy->st->by_guid, base);
	if (*port == GUID_HASH_NONE) {
		*port = FABRIC_NONE;
		return SA_STATUS_INVALID_GID;
	}
	return SA_STATUS_OK;
}

/* ------------------------------------------------------------ one route */

static void
take_port(const struct fabric_port *p, unsigned *mtu, unsigned *mbps)
{
	struct query_link l;
	unsigned m = query_port_mtu_cap(p);

	if (m != 0 && (*mtu == 0 || m < *mtu))
		*mtu = m;
	if (query_port_link(p, &l) == 0 && l.mbps != 0 &&
	    (*mbps == 0 || l.mbps < *mbps))
		*mbps = l.mbps;
}

/*
 * Walk from end port s to dlid; the smallest MTUCap and rate over the
 * source, every switch's ingress and egress port, and the destination.
 * Returns false when the route does not arrive or a figure is unknown.
 */
static bool
route_limits(struct query *qy, uint32_t s, uint16_t dlid, unsigned *mtu,
    unsigned *mbps)
{
	const struct fabric *f = qy->c->v->f;
	struct query_hop hops[PATH_MAX_HOPS];
	unsigned n, k;
	enum query_walk_end e;

	if (qy->c->v->lft == NULL)
		return false;
	e = query_walk(f, qy->c->v->lft, s, dlid, hops, PATH_MAX_HOPS, &n);
	qy->st->cnt.walks++;
	qy->st->cnt.hops += n;
	if (e != QUERY_WALK_ARRIVED)
		return false;
	*mtu = *mbps = 0;
	take_port(&f->ports[s], mtu, mbps);
	for (k = 0; k < n; k++) {
		uint32_t node = hops[k].node;

		if (k > 0)
			take_port(&f->ports[fabric_port_idx(f, node, hops[k].in)],
			    mtu, mbps);
		if (hops[k].out != 0)
			take_port(&f->ports[fabric_port_idx(f, node,
			    hops[k].out)], mtu, mbps);
	}
	/* The destination: a CA port was the last ingress; a switch is
	 * reached at its port 0, which has an MTUCap but no link. */
	take_port(&f->ports[fabric_port_by_lid(f, dlid)], mtu, mbps);
	if (*mbps == 0 && f->ports[s].num == 0) {
		/* A switch's path to itself crosses no link: its port 0's
		 * PortInfo names a width and speed, as OpenSM reads them. */
		struct fabric_port p0 = f->ports[s];
		struct query_link l;

		p0.num = 1;
		if (query_port_link(&p0, &l) == 0)
			*mbps = l.mbps;
	}
	return *mtu != 0 && *mbps != 0;
}

/* Apply a selector to a value where a bigger code is better (MTU, and
 * life, whose "best" is the computed one). Returns false when the path
 * cannot satisfy it. */
static bool
select_code(unsigned sel, unsigned req, uint8_t *have)
{
	switch (sel) {
	case SA_SEL_GT:
		return *have > req;
	case SA_SEL_LT:
		if (*have < req)
			return true;
		if (req <= 1)
			return false;
		*have = (uint8_t)(req - 1);
		return true;
	case SA_SEL_EQ:
		if (*have < req)
			return false;
		*have = (uint8_t)req;
		return true;
	}
	return true;
}

static bool
select_rate(unsigned sel, unsigned req, uint8_t *have)
{
	unsigned h = sa_rate_mbps(*have), r = sa_rate_mbps(req);

	switch (sel) {
	case SA_SEL_GT:
		return h > r;
	case SA_SEL_LT:
		if (h < r)
			return true;
		*have = (uint8_t)sa_rate_prev(req);
		return *have != 0;
	case SA_SEL_EQ:
		/* OpenSM: exactly the requested rate (a faster path is not
		 * slowed down to it) */
		return h == r;
	}
	return true;
}

/* Whether both ends hold pkey and at least one fully. */
static bool
share_key(const struct sa_view *v, uint32_t a, uint32_t b, uint16_t pkey)
{
	bool fa, fb;

	return (pkey & 0x7FFF) != 0 && sa_scope_has(v, a, pkey, &fa) &&
	    sa_scope_has(v, b, pkey, &fb) && (fa || fb);
}

/* The parameters of the path from s to d (dlid one of d's LIDs), or
 * false when there is none that satisfies the request. */
static bool
path_params(struct query *qy, uint32_t s, uint32_t d, uint16_t dlid,
    struct params *pp)
{
	const struct sa_view *v = qy->c->v;
	const struct sa_path *w = qy->want;
	uint64_t m = qy->mask;
	unsigned mtu, mbps;
	uint32_t ps = sa_end_phys(v, s), pd = sa_end_phys(v, d);

	/* a vport's route is its physical port's: walk to that LID (the
	 * vport LID's entries are copies of it) */
	if (!route_limits(qy, ps, pd != d ? v->f->ports[pd].lid : dlid, &mtu,
	    &mbps))
		return false;
	pp->mtu = (uint8_t)mtu;
	pp->rate = (uint8_t)sa_rate_code(mbps);
	pp->life = s == d ? 0 : qy->c->o->subnet_timeout;
	if ((m & PR_CM_MTU_SEL) && (m & PR_CM_MTU) &&
	    !select_code(w->mtu_sel, w->mtu, &pp->mtu))
		return false;
	if ((m & PR_CM_RATE_SEL) && (m & PR_CM_RATE) &&
	    !select_rate(w->rate_sel, w->rate, &pp->rate))
		return false;
	if ((m & PR_CM_LIFE_SEL) && (m & PR_CM_LIFE) &&
	    !select_code(w->life_sel, w->life, &pp->life))
		return false;

	if ((m & PR_CM_PKEY) && !((m & PR_CM_RAW) && w->raw)) {
		if (!share_key(v, s, d, w->pkey))
			return false;
		pp->pkey = w->pkey;
	} else if (!sa_scope_common_pkey(v, s, d, &pp->pkey))
		return false;

	/* SL: ibsmd has no QoS policy and programs no SL-to-VL tables, so a
	 * partition's sl= would move traffic onto whatever VL the firmware's
	 * default maps it to: SL 0, as OpenSM without QoS (sm/reload.c says so
	 * once per partition that sets another). A requested SL is the
	 * requester's choice, as OpenSM's. */
	pp->sl = (m & PR_CM_SL) ? w->sl : SA_SL_NO_QOS;
	if ((m & PR_CM_RAW) && w->raw)
		pp->pkey = 0;
	return true;
}

static bool
done(const struct query *qy)
{
	return (qy->get && qy->out->n >= 1) || sa_out_full(qy->out) ||
	    (qy->limit != 0 && qy->out->n >= qy->limit);
}

/* End e is a vport whose LID is not its own. */
static bool
shares_lid(const struct sa_view *v, uint32_t e)
{
	return e >= v->f->nports && e - v->f->nports < v->vports->n &&
	    !(v->vports->v[e - v->f->nports].flags & VATTR_VP_LID_REQUIRED);
}

/* One record for (s, slid) -> (d, dlid), if there is a path. */
static bool
lid_pair(struct query *qy, uint32_t s, uint16_t slid, uint32_t d,
    uint16_t dlid, uint8_t preference)
{
	const struct sa_view *v = qy->c->v;
	struct params fwd, rev;
	struct sa_path r;
	bool reversible;

	if (!path_params(qy, s, d, dlid, &fwd))
		return false;
	reversible = path_params(qy, d, s, slid, &rev);
	if ((qy->mask & PR_CM_REVERSIBLE) && qy->want->reversible &&
	    !reversible)
		return false;
	memset(&r, 0, sizeof(r));
	/* A given SGID comes back as given (it may be link-local); the DGID
	 * is always the subnet's. ServiceID, TClass, FlowLabel and
	 * QoSClass come back 0, as OpenSM answers; HopLimit 0 (no routers)
	 * but to and from a vport that shares a LID (below). */
	if (qy->mask & PR_CM_SGID)
		memcpy(r.sgid, qy->want->sgid, 16);
	else
		sa_gid_make(r.sgid, v->subnet_prefix, sa_end_guid(v, s));
	/* A DGID naming a VF alias comes back with that alias. */
	if ((qy->mask & PR_CM_DGID) && sa_gid_guid(qy->want->dgid) !=
	    sa_end_guid(v, d) && v->alias != NULL &&
	    alias_find(v->alias, sa_gid_guid(qy->want->dgid), NULL, NULL))
		sa_gid_make(r.dgid, v->subnet_prefix,
		    sa_gid_guid(qy->want->dgid));
	else
		sa_gid_make(r.dgid, v->subnet_prefix, sa_end_guid(v, d));
	r.dlid = dlid;
	r.slid = slid;
	r.reversible = reversible;
	r.pkey = fwd.pkey;
	r.sl = fwd.sl;
	r.mtu_sel = r.rate_sel = r.life_sel = SA_SEL_EQ;
	r.mtu = fwd.mtu;
	r.rate = fwd.rate;
	r.life = fwd.life;
	r.preference = preference;
	/* A vport that answers to a LID not its own (no LIDRequired: its
	 * PF's, or another vport's) is told apart only by the DGID of a GRH:
	 * a HopLimit above 1 makes clients build address handles with one
	 * (NVIDIA's SM gives vport ends 2 by default, virt_default_hop_limit).
	 * Without it the traffic reaches the PF. */
	if (shares_lid(v, s) || shares_lid(v, d))
		r.hop_limit = SA_VPORT_HOP_LIMIT;
	sa_path_encode(&r, sa_out_add(qy->out));
	return true;
}

static void
lid_range(const struct sa_view *v, uint32_t e, bool given, uint16_t lid,
    unsigned *lo, unsigned *hi)
{
	const struct fabric_port *p;

	if (given) {
		*lo = *hi = lid;
		return;
	}
	if (e >= v->f->nports) {        /* a vport: its one LID */
		*lo = *hi = v->vports->v[e - v->f->nports].lid;
		return;
	}
	p = &v->f->ports[e];
	*lo = p->lid;
	*hi = p->lid == 0 ? 0 : p->lid + (1u << p->lmc) - 1;
}

/*
 * The paths between end ports s and d: with LMC, first the pairs of LIDs
 * at the same offset (preference 0), then the others (preference 2), at
 * most want NumbPath of them (Get: 1).
 */
static void
port_pair(struct query *qy, uint32_t s, uint32_t d)
{
	const struct sa_view *v = qy->c->v;
	unsigned slo, shi, dlo, dhi, sl, dl, so, dof, want, n = 0;

	qy->st->cnt.pairs++;
	if (!sa_scope_share(v, qy->requester, s) ||
	    !sa_scope_share(v, qy->requester, d) || !sa_scope_share(v, s, d))
		return;
	lid_range(v, s, qy->mask & PR_CM_SLID, qy->want->slid, &slo, &shi);
	lid_range(v, d, qy->mask & PR_CM_DLID, qy->want->dlid, &dlo, &dhi);
	if (slo == 0 || dlo == 0)
		return;
	if (qy->get)
		want = 1;
	else if (qy->mask & PR_CM_NUMB_PATH)
		want = qy->want->numb_path;
	else
		want = UINT32_MAX;
	for (sl = slo, dl = dlo; n < want && !done(qy);) {
		if (lid_pair(qy, s, (uint16_t)sl, d, (uint16_t)dl, 0))
			n++;
		if (++sl > shi || ++dl > dhi)
			break;
	}
	for (so = 0; so <= shi - slo && n < want && !done(qy); so++)
		for (dof = 0; dof <= dhi - dlo && n < want && !done(qy);
		    dof++) {
			if (so == dof)
				continue;       /* given above */
			if (lid_pair(qy, s, (uint16_t)(slo + so), d,
			    (uint16_t)(dlo + dof), 2))
				n++;
		}
}

/* ------------------------------------------------------------ requests */

/* The end port the request names as one end: by GID, by LID, or both
 * (which must agree). *port FABRIC_NONE: not named. Returns a status;
 * *none set: named by an unknown LID, so no records. */
static unsigned
end_port(const struct query *qy, uint64_t gid_bit, const uint8_t *gid,
    uint64_t lid_bit, uint16_t lid, uint32_t *port, bool *none)
{
	uint32_t byg = FABRIC_NONE, byl = FABRIC_NONE;
	unsigned st;

	if (qy->mask & gid_bit) {
		st = gid_port(qy, gid, &byg);
		if (st != SA_STATUS_OK)
			return st;
	}
	if (qy->mask & lid_bit) {
		byl = sa_end_by_lid(qy->c->v, lid);
		if (byl == FABRIC_NONE) {
			*none = true;
			return SA_STATUS_OK;
		}
	}
	if (byg != FABRIC_NONE && byl != FABRIC_NONE && byg != byl)
		return SA_STATUS_REQ_INVALID;
	*port = byg != FABRIC_NONE ? byg : byl;
	return SA_STATUS_OK;
}

static unsigned
check_codes(const struct sa_path *w, uint64_t m)
{
	if ((m & PR_CM_RATE_SEL) && (m & PR_CM_RATE) &&
	    sa_rate_mbps(w->rate) == 0)
		return SA_STATUS_REQ_INVALID;
	if ((m & PR_CM_MTU_SEL) && (m & PR_CM_MTU) && !sa_mtu_valid(w->mtu))
		return SA_STATUS_REQ_INVALID;
	if ((m & PR_CM_SERVICE_ID) != 0 &&
	    (m & PR_CM_SERVICE_ID) != PR_CM_SERVICE_ID)
		return SA_STATUS_INSUFFICIENT_COMPONENTS;
	return SA_STATUS_OK;
}

static unsigned
path_query(struct query *qy)
{
	const struct sa_path *w = qy->want;
	struct path_state *st = qy->st;
	uint32_t s = FABRIC_NONE, d = FABRIC_NONE;
	bool none = false;
	unsigned rc;
	size_t i, j;

	rc = check_codes(w, qy->mask);
	if (rc != SA_STATUS_OK)
		return rc;
	/* A requester the fabric does not know: OpenSM drops the request. */
	if (qy->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	/* A multicast DGID: no records (paths to multicast groups are not
	 * computed; a client learns the group's MLID, rate and MTU from its
	 * MCMemberRecord answer). */
	if ((qy->mask & PR_CM_DGID) && w->dgid[0] == 0xFF)
		return SA_STATUS_OK;
	rc = end_port(qy, PR_CM_SGID, w->sgid, PR_CM_SLID, w->slid, &s, &none);
	if (rc == SA_STATUS_OK)
		rc = end_port(qy, PR_CM_DGID, w->dgid, PR_CM_DLID, w->dlid, &d,
		    &none);
	if (rc != SA_STATUS_OK || none)
		return rc;
	if (s != FABRIC_NONE && d != FABRIC_NONE)
		port_pair(qy, s, d);
	else if (s != FABRIC_NONE)
		for (i = 0; i < st->nends && !done(qy); i++)
			port_pair(qy, s, st->ends[i]);
	else if (d != FABRIC_NONE)
		for (i = 0; i < st->nends && !done(qy); i++)
			port_pair(qy, st->ends[i], d);
	else    /* the world: every pair, loopbacks too */
		for (i = 0; i < st->nends && !done(qy); i++)
			for (j = 0; j < st->nends && !done(qy); j++)
				port_pair(qy, st->ends[j], st->ends[i]);
	return SA_STATUS_OK;
}

static unsigned
path_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct sa_path want;
	struct query qy = {
		.c = c, .st = c->state, .want = &want, .mask = q->comp_mask,
		.get = q->method == MAD_GET, .requester = q->requester,
		.out = out,
	};

	if (q->method != MAD_GET && q->method != MAD_GETTABLE)
		return SA_STATUS_METHOD_ATTR_UNSUPP;
	sa_path_decode(q->rec, &want);
	return path_query(&qy);
}

/* ------------------------------------------------------------ MultiPath */

/*
 * GetMulti(MultiPathRecord): every source GID with every destination GID,
 * in order, up to NumbPath paths in all (127 without it), answered with
 * PathRecords. Not done: the IndependenceSelector and OpenSM's special
 * case of two sources, two destinations and NumbPath 2 (disjoint paths
 * for APM); with LMC 0 each pair has one path anyway.
 */
static unsigned
mpath_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	const uint8_t *data;
	struct sa_mpath m;
	struct sa_path want;
	uint32_t *ports;
	size_t avail, ngids, i, j;
	unsigned rc = SA_STATUS_OK;
	struct query qy = {
		.c = c, .st = c->state, .want = &want, .requester = q->requester,
		.out = out,
	};

	if (q->method != MAD_GETMULTI)
		return SA_STATUS_METHOD_ATTR_UNSUPP;
	if (q->len < SA_HDR_SIZE + SA_MPATH_FIXED_SIZE)
		return SA_STATUS_REQ_INVALID;
	data = q->mad + SA_HDR_SIZE;
	sa_mpath_decode(data, &m);
	if (!(q->comp_mask & MPR_CM_SGID_COUNT) ||
	    !(q->comp_mask & MPR_CM_DGID_COUNT))
		return SA_STATUS_INSUFFICIENT_COMPONENTS;
	sa_mpath_to_path(&m, q->comp_mask, &want, &qy.mask);
	qy.mask &= ~(uint64_t)PR_CM_NUMB_PATH;  /* a limit on the whole */
	qy.limit = (q->comp_mask & MPR_CM_NUMB_PATH) ? m.numb_path :
	    MPR_MAX_PATHS;
	rc = check_codes(&want, qy.mask);
	if (rc != SA_STATUS_OK)
		return rc;
	ngids = (size_t)m.sgid_count + m.dgid_count;
	avail = (q->len - SA_HDR_SIZE - SA_MPATH_FIXED_SIZE) / 16;
	if (m.sgid_count == 0 || m.dgid_count == 0 || ngids > avail)
		return SA_STATUS_REQ_INVALID;
	if (qy.requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	if (qy.limit == 0)
		return SA_STATUS_OK;
	ports = xcalloc(ngids, sizeof(*ports));
	for (i = 0; i < ngids && rc == SA_STATUS_OK; i++) {
		const uint8_t *gid = data + SA_MPATH_FIXED_SIZE + 16 * i;

		if (i < m.sgid_count && gid[0] == 0xFF)
			rc = SA_STATUS_INVALID_GID;
		else
			rc = gid_port(&qy, gid, &ports[i]);
	}
	for (i = 0; i < m.sgid_count && rc == SA_STATUS_OK && !done(&qy); i++)
		for (j = m.sgid_count; j < ngids && !done(&qy); j++)
			port_pair(&qy, ports[i], ports[j]);
	free(ports);
	return rc;
}

const struct sa_attr sa_attr_path_record = {
	.id = SA_ATTR_PATH_REC,
	.name = "PathRecord",
	.rec_size = SA_PATH_REC_SIZE,
	.get = path_get,
	.init = path_init,
	.fini = path_fini,
	.view_changed = path_view_changed,
};

const struct sa_attr sa_attr_multipath_record = {
	.id = SA_ATTR_MULTIPATH_REC,
	.name = "MultiPathRecord",
	.rec_size = SA_PATH_REC_SIZE,   /* of the PathRecords answered */
	.get = mpath_get,
	.init = path_init,
	.fini = path_fini,
	.view_changed = path_view_changed,
};
