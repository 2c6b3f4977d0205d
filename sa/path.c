/*
 * PathRecord and MultiPathRecord: see sa/path.h. OpenSM's
 * osm_sa_path_record.c and osm_sa_multipath_record.c are the behaviour
 * baseline; where this differs, the comment says so.
 *
 * With LMC a port pair has several (SLID, DLID) pairs. The order of the
 * records, as OpenSM's (osm_sa_path_record.c, pr_rcv_get_port_pair_paths;
 * osm_sa_multipath_record.c, mpr_rcv_get_port_pair_paths), for source
 * LIDs s0 .. sm and destination LIDs d0 .. dn (a port's block, or the
 * one LID a request gives in SLID or DLID):
 *   1. (s0, d0), (s1, d1), ... until either range is used up:
 *      preference 0, the paths the engines spread over distinct routes;
 *   2. every other pair, source LID major, destination LID minor, skipping
 *      the pairs of 1 (equal offsets): preference 2;
 *   a pair whose route does not arrive (or fails the request's selectors,
 *   partitions or reversibility) is skipped. A PathRecord GetTable stops
 *   each port pair after NumbPath records when the mask has NumbPath (0:
 *   none), else gives every pair; a Get gives one. A MultiPathRecord
 *   counts NumbPath (127 without it) over the whole answer, and with two
 *   sources, two destinations and NumbPath 2 answers APM's two paths
 *   (apm_paths). Each record is computed from its own LIDs: MTU and rate
 *   along the forwarding tables' route to its DLID, reversibility along
 *   the route back to its SLID (sa/path.h).
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
#include "partitions/qos.h"
#include "sa/path.h"
#include "sa/pathrec.h"
#include "sa/scope.h"
#include "sa/slsel.h"

#define PATH_MAX_HOPS   64              /* as OpenSM's MAX_HOPS */
#define MPR_MAX_PATHS   127             /* NumbPath not given */

struct path_state {
	struct guid_hash by_guid;       /* port GUID -> end port index */
	uint32_t *ends;                 /* end ports, in index order */
	size_t nends, cap;
	uint8_t lmc;                    /* the subnet's: the largest of its
					 * end ports' (CA ports all have it) */
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
	/* path_level's answers for the last two (s, d): a port pair's
	 * LID pairs ask it for (s, d) and (d, s) each */
	struct level_memo {
		uint32_t s, d;
		const struct qos_level *lvl;
		bool set;
	} memo[2];
};

/* What one direction of a path carries. */
struct params {
	uint8_t mtu, rate, life, sl;
	uint16_t pkey;
	unsigned links;         /* crossed by the route */
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
	st->lmc = 0;
	if (v == NULL || v->f == NULL)
		return;
	f = v->f;
	for (p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p) || f->ports[p].guid == 0)
			continue;
		if (f->ports[p].lid != 0 && f->ports[p].lmc > st->lmc)
			st->lmc = f->ports[p].lmc;
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
 * source, every switch's ingress and egress port, and the destination,
 * and the links crossed (*links). Returns false when the route does not
 * arrive or a figure is unknown.
 */
static bool
route_limits(struct query *qy, uint32_t s, uint16_t dlid, unsigned *mtu,
    unsigned *mbps, unsigned *links)
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
	*links = n - 1;         /* hops[0] is the source's node */
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

/* The P_Key of a path whose QoS level names P_Keys and whose request
 * names none: the first of the level's that both ends share, with the
 * membership bit as s holds it (OpenSM: osm_qos_level_get_shared_pkey). */
static bool
level_pkey(const struct sa_view *v, const struct qos_level *lvl, uint32_t s,
    uint32_t d, uint16_t *pkey)
{
	const struct pkey_table *t[2] = { sa_scope_table(v, s),
	    sa_scope_table(v, d) };
	bool full;

	/* In the level's order, the lowest key of each range both share.
	 * A shared key is in s's table, or in d's (s holds every key), or
	 * is any key (both do): the candidates are the two tables' keys and
	 * the range's lowest non-zero key, not every key of the range. */
	for (size_t r = 0; r < lvl->npkeys; r++) {
		uint64_t lo = lvl->pkeys[r].lo, hi = lvl->pkeys[r].hi;
		uint16_t best = 0, k;

		for (unsigned i = 0; i < 2; i++)
			for (uint16_t j = 0; t[i] != NULL && j < t[i]->cap; j++) {
				k = t[i]->keys[j] & 0x7FFF;
				if (k >= lo && k <= hi && (best == 0 || k < best) &&
				    share_key(v, s, d, k))
					best = k;
			}
		k = (uint16_t)(lo != 0 ? lo : 1);
		if (k <= hi && (best == 0 || k < best) && share_key(v, s, d, k))
			best = k;
		if (best != 0) {
			(void)sa_scope_has(v, s, best, &full);
			*pkey = (uint16_t)(best | (full ? PKEY_FULL : 0));
			return true;
		}
	}
	return false;
}

/* The QoS level of the request for the path from s to d (sa/slsel.h):
 * it depends on the two ports and the request, not on the LIDs. */
static const struct qos_level *
path_level(struct query *qy, uint32_t s, uint32_t d)
{
	const struct sa_path *w = qy->want;
	uint64_t m = qy->mask;
	struct sa_sl_req r = {
		.has_sid = (m & PR_CM_SERVICE_ID) == PR_CM_SERVICE_ID,
		.has_pkey = (m & PR_CM_PKEY) != 0,
		.has_class = (m & PR_CM_QOS_CLASS) != 0,
		.service_id = w->service_id, .pkey = w->pkey,
		.qos_class = w->qos_class,
	};

	for (unsigned i = 0; i < 2; i++)
		if (qy->memo[i].set && qy->memo[i].s == s && qy->memo[i].d == d)
			return qy->memo[i].lvl;
	qy->memo[1] = qy->memo[0];
	qy->memo[0] = (struct level_memo){ .s = s, .d = d, .set = true,
	    .lvl = sa_sl_level(qy->c->v, s, d, &r) };
	return qy->memo[0].lvl;
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
	const struct qos_level *lvl;
	int sl;

	/* a vport's route is its physical port's: walk to that LID (the
	 * vport LID's entries are copies of it) */
	if (!route_limits(qy, ps, pd != d ? v->f->ports[pd].lid : dlid, &mtu,
	    &mbps, &pp->links))
		return false;
	pp->mtu = (uint8_t)mtu;
	pp->rate = (uint8_t)sa_rate_code(mbps);
	pp->life = s == d ? 0 : qy->c->o->subnet_timeout;
	/* QoS: the level's limits come before the request's selectors */
	lvl = path_level(qy, s, d);
	if (lvl != NULL && (lvl->set & QOS_LF_MTU) && pp->mtu > lvl->mtu)
		pp->mtu = lvl->mtu;
	if (lvl != NULL && (lvl->set & QOS_LF_RATE) &&
	    sa_rate_mbps(pp->rate) > sa_rate_mbps(lvl->rate))
		pp->rate = lvl->rate;
	if (lvl != NULL && (lvl->set & QOS_LF_LIFE) && s != d)
		pp->life = lvl->life;
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
		if (lvl != NULL && !qos_level_has_pkey(lvl, w->pkey))
			return false;
		pp->pkey = w->pkey;
	} else if (lvl != NULL && lvl->npkeys > 0) {
		if (!level_pkey(v, lvl, s, d, &pp->pkey))
			return false;
	} else if (!sa_scope_common_pkey(v, s, d, &pp->pkey))
		return false;

	/* SL: sa/slsel.h. With qos off, SL 0 unless the requester asks
	 * for one: nothing maps a partition's sl= to a VL (sm/reload.c says
	 * so once per partition that sets another). */
	sl = sa_sl_select(v, lvl, (m & PR_CM_SL) != 0, w->sl, pp->pkey);
	if (sl < 0)
		return false;
	pp->sl = (uint8_t)sl;
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

/* The record for (s, slid) -> (d, dlid) in *rec, and the links its
 * route crosses in *links, if there is a path. */
static bool
lid_pair_make(struct query *qy, uint32_t s, uint16_t slid, uint32_t d,
    uint16_t dlid, uint8_t preference, uint8_t *rec, unsigned *links)
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
	*links = fwd.links;
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
	/* A VL-layered routing's SL is the layer of this route, whatever
	 * the policy chose (OpenSM's dfsssp path_sl takes it as a hint
	 * only): an SL asked for must be that one. */
	if (v->path_sl != NULL) {
		int psl = v->path_sl(v->path_sl_arg, slid, dlid);

		if (psl >= 0) {
			if ((qy->mask & PR_CM_SL) && qy->want->sl != psl)
				return false;
			r.sl = (uint8_t)psl;
		}
	}
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
	sa_path_encode(&r, rec);
	return true;
}

/* One record for (s, slid) -> (d, dlid) added to the answer, if there is
 * a path. */
static bool
lid_pair(struct query *qy, uint32_t s, uint16_t slid, uint32_t d,
    uint16_t dlid, uint8_t preference)
{
	uint8_t rec[SA_PATH_REC_SIZE];
	unsigned links;

	if (!lid_pair_make(qy, s, slid, d, dlid, preference, rec, &links))
		return false;
	memcpy(sa_out_add(qy->out), rec, SA_PATH_REC_SIZE);
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

/* Whether the requester may see paths between s and d: the three share
 * a partition pairwise. */
static bool
pair_visible(const struct query *qy, uint32_t s, uint32_t d)
{
	const struct sa_view *v = qy->c->v;

	return sa_scope_share(v, qy->requester, s) &&
	    sa_scope_share(v, qy->requester, d) && sa_scope_share(v, s, d);
}

/*
 * The paths between end ports s and d, in OpenSM's order (see the top of
 * this file): the LID ranges are s's and d's blocks, or the one LID the
 * request gives (SLID, DLID); first the pairs at the same offset into
 * the two ranges, both offsets rising together until either range ends
 * (preference 0); then every other pair, source offset major and
 * destination offset minor, skipping equal offsets (preference 2). A
 * pair with no path is skipped and does not count. At most want NumbPath
 * records (every one without NumbPath; Get: 1).
 */
static void
port_pair(struct query *qy, uint32_t s, uint32_t d)
{
	const struct sa_view *v = qy->c->v;
	unsigned slo, shi, dlo, dhi, sl, dl, so, dof, want, n = 0;

	qy->st->cnt.pairs++;
	if (!pair_visible(qy, s, d))
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

/* A path for APM between s and d (osm_sa_multipath_record.c,
 * mpr_rcv_get_apm_port_pair_paths): start at offset base % (size of the
 * range) into each end's LID block, try as many pairs as the smaller
 * block has LIDs, both offsets rising together and wrapping, and take the
 * first pair with a path (preference 0). */
struct apm_path {
	bool found;
	unsigned links;
	uint8_t rec[SA_PATH_REC_SIZE];
};

static void
apm_pair(struct query *qy, uint32_t s, uint32_t d, unsigned base,
    struct apm_path *ap)
{
	const struct sa_view *v = qy->c->v;
	unsigned slo, shi, dlo, dhi, ns, nd, so, dof, k;

	ap->found = false;
	qy->st->cnt.pairs++;
	if (!pair_visible(qy, s, d))
		return;
	lid_range(v, s, false, 0, &slo, &shi);
	lid_range(v, d, false, 0, &dlo, &dhi);
	if (slo == 0 || dlo == 0)
		return;
	ns = shi - slo + 1;
	nd = dhi - dlo + 1;
	so = base % ns;
	dof = base % nd;
	for (k = 0; k < (ns < nd ? ns : nd); k++) {
		if (lid_pair_make(qy, s, (uint16_t)(slo + so), d,
		    (uint16_t)(dlo + dof), 0, ap->rec, &ap->links)) {
			ap->found = true;
			return;
		}
		so = (so + 1) % ns;
		dof = (dof + 1) % nd;
	}
}

/* The physical port's GUID of end e, by which OpenSM orders APM ends. */
static uint64_t
apm_guid(const struct sa_view *v, uint32_t e)
{
	return v->f->ports[sa_end_phys(v, e)].guid;
}

/*
 * Two sources, two destinations, NumbPath 2: two paths for Automatic Path
 * Migration, from different sources to different destinations, on
 * different LID offsets. The facts are OpenSM's
 * (osm_sa_multipath_record.c: mpr_rcv_get_apm_paths):
 *   - each side's two ends are ordered by their physical port's GUID,
 *     S0 < S1, D0 < D1;
 *   - with a, b the base LIDs of S0 and D0 as OpenSM holds them, in
 *     network byte order read as a host integer (on the little-endian
 *     hosts it runs on, the two bytes swapped: LID 4 is 1024), lo and hi
 *     the smaller and the larger of those, and l the subnet's LMC, the
 *     base offset is ((lo >> l) << 4 | (hi >> l)) mod 103 (ibsmd swaps
 *     on every host, so that it answers as OpenSM on x86 and ARM);
 *   - (S0, D0) and (S0, D1) start at that offset, (S1, D0) and (S1, D1)
 *     at the next (apm_pair);
 *   - of the two diagonals {(S0, D0), (S1, D1)} and {(S0, D1), (S1, D0)},
 *     the one whose shorter path crosses fewer links wins, the first on a
 *     tie; its records go out in that order.
 * Where ibsmd differs: a diagonal with more paths found wins over one with
 * fewer (OpenSM compares the shorter path of each, counting a diagonal
 * with none as 0 links, so it can answer with fewer paths, or none, where
 * the other diagonal had two); and the requester must share a partition
 * with both ends of a path, as for every other PathRecord (OpenSM does
 * not check the requester here).
 */
static void
apm_paths(struct query *qy, const uint32_t *ends)
{
	const struct sa_view *v = qy->c->v;
	uint32_t s0 = ends[0], s1 = ends[1], d0 = ends[2], d1 = ends[3], t;
	unsigned a, b, lo, hi, t_hi, base, l = qy->st->lmc;
	struct apm_path m[2][2];
	unsigned found[2], mins[2], i;
	const struct apm_path *win[2];

	if (apm_guid(v, s1) < apm_guid(v, s0)) {
		t = s0;
		s0 = s1;
		s1 = t;
	}
	if (apm_guid(v, d1) < apm_guid(v, d0)) {
		t = d0;
		d0 = d1;
		d1 = t;
	}
	lid_range(v, s0, false, 0, &a, &t_hi);
	lid_range(v, d0, false, 0, &b, &t_hi);
	a = (a & 0xFF) << 8 | a >> 8;
	b = (b & 0xFF) << 8 | b >> 8;
	lo = a < b ? a : b;
	hi = a < b ? b : a;
	base = (((lo >> l) << 4) | (hi >> l)) % 103;
	apm_pair(qy, s0, d0, base, &m[0][0]);
	apm_pair(qy, s0, d1, base, &m[0][1]);
	apm_pair(qy, s1, d0, base + 1, &m[1][0]);
	apm_pair(qy, s1, d1, base + 1, &m[1][1]);
	for (i = 0; i < 2; i++) {
		/* diagonal 0: (0,0), (1,1); diagonal 1: (0,1), (1,0) */
		const struct apm_path *x = &m[0][i], *y = &m[1][1 - i];

		found[i] = x->found + y->found;
		mins[i] = 0;
		if (x->found)
			mins[i] = x->links;
		if (y->found && (mins[i] == 0 || y->links < mins[i]))
			mins[i] = y->links;
	}
	i = found[1] > found[0] ||
	    (found[1] == found[0] && mins[1] < mins[0]);
	win[0] = &m[0][i];
	win[1] = &m[1][1 - i];
	for (unsigned k = 0; k < 2 && !done(qy); k++)
		if (win[k]->found)
			memcpy(sa_out_add(qy->out), win[k]->rec,
			    SA_PATH_REC_SIZE);
}

/*
 * GetMulti(MultiPathRecord), answered with PathRecords, as OpenSM's
 * osm_mpr_rcv_process: two source GIDs, two destination GIDs and a
 * NumbPath field of 2 (OpenSM reads the field whether or not the mask
 * has it) ask for APM's two paths (apm_paths); otherwise every source GID
 * with every destination GID, in the order given, each pair's paths in
 * port_pair's order (the disjoint, same-offset ones first), up to
 * NumbPath paths in all (127 without it: mpr_rcv_process_pairs). Not
 * done: the IndependenceSelector, which OpenSM ignores too.
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
	if (rc == SA_STATUS_OK && m.sgid_count == 2 && m.dgid_count == 2 &&
	    m.numb_path == 2)
		apm_paths(&qy, ports);
	else
		for (i = 0; i < m.sgid_count && rc == SA_STATUS_OK &&
		    !done(&qy); i++)
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
