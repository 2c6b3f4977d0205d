/*
 * MCMemberRecord: the attribute module over the group store. See
 * sa/mcmember.h; the rules themselves are sa/mcrules.c.
 */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "core/query.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mcast/group.h"
#include "partitions/partitions.h"
#include "sa/inform.h"
#include "sa/mcmember.h"
#include "sa/mcpolicy.h"
#include "sa/mcrules.h"
#include "sa/scope.h"
#include "sa/slsel.h"

#define SCOPE_LINK_LOCAL        2
/* A creator port whose MTU or rate is not known (a switch's port 0):
 * OpenSM's defaults for groups, 2048 bytes and 10 Gb/s. */
#define FALLBACK_MTU            4
#define FALLBACK_RATE           3

struct mcm {
	struct sa *sa;                  /* NULL in unit tests */
	struct sa_opts o;               /* unit tests: their opts */
	struct mcast_store *own;        /* when the opts name none */
	const struct pkey_policy *policy;       /* last synced */
	const struct qos_policy *qos_policy;    /* last synced, and qos */
	bool qos;
	bool synced;
	char *unjoinable;               /* last report, to log changes only */
	struct sa_mcmember_stats st;
};

static const struct sa_opts *
opts(const struct mcm *m)
{
	return m->sa != NULL ? sa_get_opts(m->sa) : &m->o;
}

static struct mcast_store *
store(struct mcm *m)
{
	const struct sa_opts *o = opts(m);

	if (o->mcast != NULL)
		return o->mcast;
	if (m->own == NULL)
		m->own = mcast_store_new();
	return m->own;
}

static void
changed(struct mcm *m, uint16_t mlid)
{
	const struct sa_opts *o = opts(m);

	if (o->mcast_changed != NULL && o->mcast != NULL)
		o->mcast_changed(o->mcast_arg, mlid);
}

static const char *
gid_text(const uint8_t gid[16], char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/*
 * Traps 66 (MGID created) and 67 (MGID deleted), reported (sa/inform) to
 * InformInfo subscribers that hold the group's P_Key.
 */
static void
sa_mcmember_trap(struct mcm *m, uint16_t trap, const uint8_t mgid[16],
    uint16_t pkey)
{
	char t[64];

	m->st.traps++;
	log_debug("sa: multicast group %s (P_Key 0x%04x) %s: trap %u",
	    gid_text(mgid, t, sizeof(t)), pkey, trap == 66 ? "created" :
	    "deleted", trap);
	if (m->sa != NULL)
		sa_inform_gid_trap(m->sa, trap, mgid, pkey);
}

/* ---- the group as a record */

static void
group_rec(const struct mcast_group *g, struct mcmember_rec *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->mgid, g->mgid, 16);
	r->qkey = g->p.qkey;
	r->mlid = g->mlid;
	r->mtu_sel = MCM_SEL_EQ;
	r->mtu = g->p.mtu;
	r->tclass = g->p.tclass;
	r->pkey = g->p.pkey;
	r->rate_sel = MCM_SEL_EQ;
	r->rate = g->p.rate;
	r->life_sel = MCM_SEL_EQ;
	r->life = g->p.pkt_life;
	r->sl = g->p.sl;
	r->flow_label = g->p.flow_label;
	r->hop_limit = g->p.hop_limit;
	r->scope = g->p.scope;
}

/* ---- Get and GetTable */

static bool
member_selected(uint64_t mask, const struct mcmember_rec *q, uint8_t scope,
    uint8_t join_state, bool proxy)
{
	if ((mask & MCM_BIT(MCM_C_SCOPE)) && q->scope != scope)
		return false;
	if ((mask & MCM_BIT(MCM_C_JOIN_STATE)) && q->join_state != join_state)
		return false;
	if ((mask & MCM_BIT(MCM_C_PROXY)) && q->proxy != proxy)
		return false;
	return true;
}

static void
put(struct sa_out *out, struct mcmember_rec *r, bool trusted)
{
	/* IBA o15-0.1.x: PortGID, JoinState and ProxyJoin only to trusted
	 * requesters. */
	if (!trusted) {
		memset(r->port_gid, 0, 16);
		r->join_state = 0;
		r->proxy = false;
	}
	mcmember_encode(r, sa_out_add(out));
}

static unsigned
mcm_get(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct mcm *m = c->state;
	struct mcast_store *s = store(m);
	const struct mcast_group *g;
	struct mcmember_rec want, r;
	uint64_t mask = q->comp_mask;
	size_t i;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	mcmember_decode(q->rec, &want);
	for (g = mcast_next(s, NULL); g != NULL && !sa_out_full(out);
	    g = mcast_next(s, g)) {
		if ((mask & MCM_BIT(MCM_C_MGID)) &&
		    memcmp(want.mgid, g->mgid, 16) != 0)
			continue;
		if ((mask & MCM_BIT(MCM_C_MLID)) && want.mlid != g->mlid)
			continue;
		/* Only groups of the requester's partitions. */
		if (!sa_scope_has(c->v, q->requester, g->p.pkey, NULL))
			continue;
		group_rec(g, &r);
		if (!mcmember_params_match(mask, true, &want, &r))
			continue;
		if (mask & MCM_BIT(MCM_C_PORT_GID)) {
			const struct mcast_member *mb = mcast_member_find(g,
			    sa_gid_guid(want.port_gid));

			if (mb == NULL || !member_selected(mask, &want,
			    r.scope, mb->join_state, mb->proxy))
				continue;
			memcpy(r.port_gid, mb->gid, 16);
			r.join_state = mb->join_state;
			r.proxy = mb->proxy;
			put(out, &r, q->trusted);
		} else if (q->trusted) {
			/* One record per member, as OpenSM. */
			for (i = 0; i < g->nmembers && !sa_out_full(out); i++) {
				const struct mcast_member *mb = &g->members[i];

				if (!member_selected(mask, &want, r.scope,
				    mb->join_state, mb->proxy))
					continue;
				memcpy(r.port_gid, mb->gid, 16);
				r.join_state = mb->join_state;
				r.proxy = mb->proxy;
				put(out, &r, true);
			}
		} else {
			if (!member_selected(mask, &want, r.scope, 0, false))
				continue;
			put(out, &r, false);
		}
	}
	return SA_STATUS_OK;
}

/* ---- Set and Delete: common checks */

struct target {
	struct mcmember_rec r;          /* the request, PortGID prefix made
					 * the subnet's */
	uint8_t asked_gid[16];          /* PortGID as sent */
	uint32_t port;                  /* the end port joining or leaving */
	bool proxy;                     /* on behalf of another port */
};

/* The request, its PortGID and port; an SA status. */
static unsigned
target_of(const struct sa_ctx *c, const struct sa_req *q, struct target *t)
{
	const struct fabric *f = c->v->f;
	uint64_t prefix, base;
	uint32_t i;
	unsigned st;

	mcmember_decode(q->rec, &t->r);
	memcpy(t->asked_gid, t->r.port_gid, 16);
	if ((st = mcmember_check_request(q->comp_mask, &t->r)) != 0)
		return st;
	prefix = sa_gid_prefix(t->r.port_gid);
	if (!sa_gid_prefix_ours(c->v, prefix))
		return SA_STATUS_INVALID_GID;
	prefix = c->v->subnet_prefix;
	for (i = 0; i < 8; i++)
		t->r.port_gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
	t->port = query_port_by_guid(f, sa_gid_guid(t->r.port_gid));
	/* a vport's GID: the end index past the ports (scoped by its
	 * VPortPKeyTable, reached through its physical port) */
	if (t->port == FABRIC_NONE && c->v->vports != NULL &&
	    (i = vport_by_guid(c->v->vports, sa_gid_guid(t->r.port_gid))) !=
	    FABRIC_NONE && c->v->vports->v[i].index != 0 &&
	    c->v->vports->v[i].lid != 0)
		t->port = f->nports + i;
	/* a VF alias GUID's GID (a ConnectX-3 VF's IPoIB joins with it):
	 * its physical port, the member kept by the alias GUID */
	if (t->port == FABRIC_NONE && c->v->alias != NULL &&
	    alias_find(c->v->alias, sa_gid_guid(t->r.port_gid), &base, NULL))
		t->port = query_port_by_guid(f, base);
	if (t->port == FABRIC_NONE || !fabric_port_is_endport(f,
	    sa_end_phys(c->v, t->port)))
		return SA_STATUS_REQ_INVALID;
	t->proxy = t->port != q->requester;
	return SA_STATUS_OK;
}

/* Whether the requester may change port's existing membership (IBA
 * o15-0.2.1): its own, or a proxy member's from within the group's
 * partition. */
static bool
may_modify(const struct sa_ctx *c, const struct sa_req *q,
    const struct mcast_group *g, const struct mcast_member *mb,
    uint32_t port)
{
	if (!mb->proxy)
		return q->requester == port;
	return sa_scope_has(c->v, q->requester, g->p.pkey, NULL);
}

static void
reply(struct sa_out *out, const struct mcmember_rec *grp,
    const uint8_t port_gid[16], uint8_t join_state, bool proxy)
{
	struct mcmember_rec r = *grp;

	memcpy(r.port_gid, port_gid, 16);
	r.join_state = join_state;
	r.proxy = proxy;
	mcmember_encode(&r, sa_out_add(out));
}

static void
port_caps(const struct fabric_port *p, uint8_t *mtu, uint8_t *rate)
{
	*mtu = (uint8_t)query_port_neighbor_mtu(p);
	*rate = mcpolicy_port_rate(p);
}

/* The SL of a group partitions.conf creates (sa/slsel.h): 0 with qos
 * off; with qos on the QoS level of a request giving that P_Key alone
 * (rules naming port groups do not apply to a group), else the
 * partition's sl=. */
static uint8_t
group_sl(const struct sa_view *v, uint16_t pkey)
{
	struct sa_sl_req r = { .has_pkey = true, .pkey = pkey };
	int sl = sa_sl_select(v, sa_sl_level(v, FABRIC_NONE, FABRIC_NONE, &r),
	    false, 0, pkey);

	return sl < 0 ? SA_SL_NO_QOS : (uint8_t)sl;
}

/* A Set naming an unknown MGID: check and create. */
static unsigned
create(const struct sa_ctx *c, const struct sa_req *q, struct target *t,
    struct mcast_group **gp)
{
	struct mcm *m = c->state;
	struct mcast_store *s = store(m);
	const struct fabric_port *port =
	    &c->v->f->ports[sa_end_phys(c->v, t->port)];
	struct mcmember_rec *r = &t->r, g;
	struct mcast_params p;
	uint8_t bcast[16], mtu, rate, scope;
	enum mcast_err err;
	unsigned st;

	if ((st = mcmember_check_create(q->comp_mask, r)) != 0)
		return st;
	if (mcmember_ipoib_needs_bcast(r->mgid, bcast)) {
		const struct mcast_group *b = mcast_find(s, bcast);
		struct mcmember_rec br;

		if (b == NULL)
			return SA_STATUS_REQ_INVALID;
		group_rec(b, &br);
		if (!mcmember_params_match(q->comp_mask, false, r, &br))
			return SA_STATUS_REQ_INVALID;
	}
	port_caps(port, &mtu, &rate);
	memset(&g, 0, sizeof(g));
	if (!mcmember_realize(q->comp_mask, r, mtu ? mtu : FALLBACK_MTU,
	    rate ? rate : FALLBACK_RATE, &g))
		return SA_STATUS_REQ_INVALID;
	if (!sa_scope_has(c->v, t->port, r->pkey, NULL))
		return SA_STATUS_REQ_INVALID;
	if (memcmp(r->mgid, (uint8_t[16]){ 0 }, 16) == 0) {
		scope = (q->comp_mask & MCM_BIT(MCM_C_SCOPE)) && r->scope ?
		    r->scope : SCOPE_LINK_LOCAL;
		if (mcast_new_mgid(s, scope, c->v->subnet_prefix, r->mgid) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	memset(&p, 0, sizeof(p));
	p.qkey = r->qkey;
	p.pkey = r->pkey;
	p.mtu = g.mtu;
	p.rate = g.rate;
	p.pkt_life = (q->comp_mask & MCM_BIT(MCM_C_LIFE)) ? r->life :
	    c->o->subnet_timeout;
	/* the creator's SL: a create must give one (as OpenSM), and IPoIB
	 * gives its broadcast group's, which the policy chose (group_sl) */
	p.sl = r->sl;
	p.tclass = r->tclass;
	p.hop_limit = (q->comp_mask & MCM_BIT(MCM_C_HOP)) ? r->hop_limit : 0;
	p.scope = r->mgid[1] & 0x0f;
	p.flow_label = r->flow_label;
	*gp = mcast_create(s, r->mgid, (q->comp_mask & MCM_BIT(MCM_C_MLID)) ?
	    r->mlid : 0, &p, false, &err);
	if (*gp == NULL)
		return err == MCAST_NO_MLID ? SA_STATUS_NO_RESOURCES :
		    SA_STATUS_REQ_INVALID;
	m->st.creates++;
	sa_mcmember_trap(m, 66, r->mgid, p.pkey);
	return SA_STATUS_OK;
}

static unsigned
join(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct mcm *m = c->state;
	struct mcast_store *s = store(m);
	struct target t;
	struct mcast_group *g;
	const struct mcast_member *mb;
	struct mcmember_rec gr;
	uint8_t mtu, rate, merged, before;
	bool created = false;
	unsigned st;

	if ((st = target_of(c, q, &t)) != 0)
		return st;
	if (t.proxy && !sa_scope_share(c->v, q->requester, t.port))
		return SA_STATUS_REQ_INVALID;
	if ((q->comp_mask & MCM_BIT(MCM_C_PKEY)) && (t.r.pkey & 0x7fff) == 0)
		return SA_STATUS_REQ_INVALID;
	if (t.r.join_state == 0)
		return SA_STATUS_REQ_INVALID;
	g = mcast_find(s, t.r.mgid);
	if (g != NULL) {
		group_rec(g, &gr);
		if (!mcmember_params_match(q->comp_mask, false, &t.r,
		    &gr))
			return SA_STATUS_REQ_INVALID;
		port_caps(&c->v->f->ports[sa_end_phys(c->v, t.port)], &mtu,
		    &rate);
		if (!mcmember_port_can_join(&gr, mtu ? mtu : gr.mtu,
		    rate ? rate : gr.rate))
			return SA_STATUS_REQ_INVALID;
		if (!sa_scope_has(c->v, t.port, g->p.pkey, NULL))
			return SA_STATUS_REQ_INVALID;
		mb = mcast_member_find(g, sa_gid_guid(t.r.port_gid));
		if (mb != NULL && !may_modify(c, q, g, mb, t.port))
			return SA_STATUS_REQ_INVALID;
	} else {
		if ((st = create(c, q, &t, &g)) != 0)
			return st;
		created = true;
		mb = NULL;
	}
	/* Trees depend on JoinState too (send-only members receive
	 * nothing): any change of it is a change of the MLID. */
	before = mb != NULL ? mb->join_state : 0;
	merged = mcast_join(s, g, sa_gid_guid(t.r.port_gid), t.r.port_gid,
	    t.r.join_state, t.proxy);
	m->st.joins++;
	if (merged != before || created)
		changed(m, g->mlid);
	group_rec(g, &gr);
	reply(out, &gr, t.asked_gid, merged, t.proxy);
	return SA_STATUS_OK;
}

/* A Set or Delete: dropped without a requester port, counted when
 * refused. */
static unsigned
counted(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out,
    unsigned (*op)(const struct sa_ctx *, const struct sa_req *,
    struct sa_out *))
{
	struct mcm *m = c->state;
	unsigned st;

	if (q->requester == FABRIC_NONE)
		return SA_STATUS_DROP;
	st = op(c, q, out);
	if (st != SA_STATUS_OK)
		m->st.refused++;
	return st;
}

static unsigned
mcm_set(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	return counted(c, q, out, join);
}

static unsigned
leave(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	struct mcm *m = c->state;
	struct mcast_store *s = store(m);
	struct target t;
	struct mcast_group *g;
	const struct mcast_member *mb;
	struct mcmember_rec gr;
	struct mcast_leave lr;
	bool proxy;
	unsigned st;

	if ((st = target_of(c, q, &t)) != 0)
		return st;
	if ((g = mcast_find(s, t.r.mgid)) == NULL)
		return SA_STATUS_REQ_INVALID;
	mb = mcast_member_find(g, sa_gid_guid(t.r.port_gid));
	if (mb == NULL || !mcmember_leave_ok(t.r.join_state, mb->join_state) ||
	    !may_modify(c, q, g, mb, t.port))
		return SA_STATUS_REQ_INVALID;
	proxy = mb->proxy;
	group_rec(g, &gr);
	mcast_leave(s, g, sa_gid_guid(t.r.port_gid), t.r.join_state & 0x0f, &lr);
	m->st.leaves++;
	/* leave_ok: some bits went, so the member's JoinState changed */
	changed(m, lr.mlid);
	if (lr.group_deleted)
		sa_mcmember_trap(m, 67, gr.mgid, gr.pkey);
	reply(out, &gr, t.asked_gid, lr.join_state, proxy);
	return SA_STATUS_OK;
}

static unsigned
mcm_del(const struct sa_ctx *c, const struct sa_req *q, struct sa_out *out)
{
	return counted(c, q, out, leave);
}

/* ---- the view: MLID limit, pre-created groups, ports gone, MTU report */

static void
set_mlid_limit(struct mcm *m, const struct fabric *f)
{
	unsigned cap, lim = 0;
	uint32_t n;

	for (n = 0; n < f->nnodes; n++) {
		const struct fabric_node *node = &f->nodes[n];

		if (node->type != NODE_SWITCH || !node->sw_info_valid)
			continue;
		cap = mad_get_field((void *)node->sw_info, 0,
		    IB_SW_MCAST_FDB_CAP_F);
		if (lim == 0 || cap < lim)
			lim = cap;
	}
	if (lim != 0)
		mcast_set_mlid_limit(store(m), lim);
}

static void
params_of(const struct mcpolicy_group *pg, uint8_t life,
    struct mcast_params *p)
{
	memset(p, 0, sizeof(*p));
	p->qkey = pg->qkey;
	p->pkey = pg->pkey;
	p->mtu = pg->mtu;
	p->rate = pg->rate;
	p->pkt_life = life;
	p->sl = pg->sl;
	p->tclass = pg->tclass;
	p->hop_limit = pg->hop_limit;
	p->scope = pg->scope;
	p->flow_label = pg->flow_label;
}

/* Groups the policy names are created or updated and well-known; the
 * pre-created groups it no longer names are not. */
static void
sync_policy(struct mcm *m, const struct sa_view *v)
{
	const struct pkey_policy *pol = v->policy;
	struct mcast_store *s = store(m);
	struct mcpolicy_group *pg;
	struct mcast_group *g, *next;
	struct mcast_params p;
	enum mcast_err err;
	size_t n, i, k;
	uint8_t (*keep)[16];
	char t[64];

	n = mcpolicy_groups(pol, &pg);
	keep = xcalloc(n + 1, 16);
	for (i = 0; i < n; i++) {
		memcpy(keep[i], pg[i].mgid, 16);
		params_of(&pg[i], opts(m)->subnet_timeout, &p);
		p.sl = group_sl(v, p.pkey);
		g = mcast_find(s, pg[i].mgid);
		if (g == NULL) {
			g = mcast_create(s, pg[i].mgid, 0, &p, true, &err);
			if (g == NULL) {
				log_warnx("sa: partitions.conf line %u: "
				    "multicast group %s not created: %s",
				    pg[i].line, gid_text(pg[i].mgid, t,
				    sizeof(t)), mcast_err_name(err));
				continue;
			}
			sa_mcmember_trap(m, 66, g->mgid, p.pkey);
			changed(m, g->mlid);
			continue;
		}
		/* Pre-created before: the file's parameters now. A group a
		 * client created keeps its own (OpenSM's find-or-create). */
		if (g->well_known)
			g->p = p;
		else
			mcast_set_well_known(s, g, true);
	}
	/* Pre-created groups the policy dropped. */
	for (g = mcast_next(s, NULL); g != NULL; g = next) {
		uint8_t mgid[16];
		uint16_t pkey = g->p.pkey, mlid = g->mlid;

		next = mcast_next(s, g);
		if (!g->well_known)
			continue;
		for (k = 0; k < n && memcmp(keep[k], g->mgid, 16) != 0; k++)
			;
		if (k < n)
			continue;
		memcpy(mgid, g->mgid, 16);
		/* next is another group: still valid after g goes */
		if (mcast_set_well_known(s, g, false)) {
			sa_mcmember_trap(m, 67, mgid, pkey);
			changed(m, mlid);
		}
	}
	free(keep);
	free(pg);
}

static bool
present(void *arg, uint64_t guid)
{
	return guid_hash_get(arg, guid) != GUID_HASH_NONE;
}

static void
on_pruned(void *arg, uint16_t mlid)
{
	changed(arg, mlid);
}

struct pk_ctx {
	const struct sa_view *v;
	struct guid_hash *ends;
};

/* A member whose port no longer holds the group's P_Key (a partition
 * removed or changed by a reload) is no member any more: multicast
 * follows the partitions, and the MFTs stop forwarding to it. */
static bool
in_partition(void *arg, const struct mcast_group *g, uint64_t guid)
{
	const struct pk_ctx *c = arg;
	uint32_t e = guid_hash_get(c->ends, guid);
	bool full;

	if (e == GUID_HASH_NONE || c->v->pk == NULL)
		return true;
	return sa_scope_has(c->v, e, g->p.pkey, &full);
}

/* Members of ports that left, or that left the group's partition; groups
 * that went with them are reported. */
static void
prune(struct mcm *m, const struct sa_view *v)
{
	const struct fabric *f = v->f;
	struct mcast_store *s = store(m);
	struct guid_hash ends;
	struct mcast_group *g;
	uint8_t (*before)[16];
	uint16_t *pkeys;
	size_t n = mcast_count(s), i = 0;
	uint32_t p;

	if (n == 0)
		return;
	/* The end ports' GUIDs, once: members are checked in O(1) each. */
	guid_hash_init(&ends);
	for (p = 0; p < f->nports; p++)
		if (f->ports[p].guid != 0 && fabric_port_is_endport(f, p))
			guid_hash_put(&ends, f->ports[p].guid, p);
	/* vports with a LID are end ports too */
	for (p = 0; v->vports != NULL && p < v->vports->n; p++)
		if (v->vports->v[p].index != 0 && v->vports->v[p].lid != 0 &&
		    v->vports->v[p].guid != 0)
			guid_hash_put(&ends, v->vports->v[p].guid,
			    f->nports + p);
	/* so are the active VF alias GUIDs of present ports */
	if (v->alias != NULL) {
		size_t np = alias_ports(v->alias, NULL, 0), k;
		uint64_t *ports = xcalloc(np + 1, sizeof(*ports));
		uint64_t *tab = xcalloc(ALIAS_MAX_INDEX, sizeof(*tab));

		np = alias_ports(v->alias, ports, np);
		for (k = 0; k < np; k++) {
			uint32_t pp = guid_hash_get(&ends, ports[k]);

			if (pp == GUID_HASH_NONE || pp >= f->nports)
				continue;
			alias_port_table(v->alias, ports[k], tab);
			for (unsigned x = 1; x < ALIAS_MAX_INDEX; x++)
				if (tab[x] != 0)
					guid_hash_put(&ends, tab[x], pp);
		}
		free(tab);
		free(ports);
	}
	before = xcalloc(n, 16);
	pkeys = xcalloc(n, sizeof(*pkeys));
	for (g = mcast_next(s, NULL); g != NULL && i < n; g = mcast_next(s, g)) {
		memcpy(before[i], g->mgid, 16);
		pkeys[i++] = g->p.pkey;
	}
	{
		struct pk_ctx pc = { .v = v, .ends = &ends };
		size_t gone = mcast_prune(s, present, &ends, on_pruned, m);

		gone += mcast_prune_members(s, in_partition, &pc, on_pruned,
		    m);
		if (gone > 0)
			for (i = 0; i < n; i++)
				if (mcast_find(s, before[i]) == NULL)
					sa_mcmember_trap(m, 67, before[i],
					    pkeys[i]);
	}
	free(before);
	free(pkeys);
	guid_hash_fini(&ends);
}

struct report {
	char *text;
	size_t len;
};

static void
report_line(void *arg, const char *line)
{
	struct report *r = arg;
	size_t l = strlen(line);

	r->text = xreallocarray(r->text, r->len + l + 2, 1);
	memcpy(r->text + r->len, line, l);
	r->len += l;
	r->text[r->len++] = '\n';
	r->text[r->len] = '\0';
}

static void
check_ports(struct mcm *m, const struct sa_view *v)
{
	struct mcpolicy_group *pg;
	struct report r = { 0 };
	size_t n;

	n = mcpolicy_groups(v->policy, &pg);
	m->st.unjoinable = mcpolicy_check_ports(v, pg, n, report_line, &r);
	free(pg);
	if (r.text == NULL && m->unjoinable == NULL)
		return;
	if (r.text != NULL && (m->unjoinable == NULL ||
	    strcmp(r.text, m->unjoinable) != 0)) {
		char *line, *save = NULL, *copy = xstrdup(r.text);

		for (line = strtok_r(copy, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save))
			log_warnx("sa: %s", line);
		free(copy);
	}
	free(m->unjoinable);
	m->unjoinable = r.text;
}

void
sa_mcmember_state_view(void *state, const struct sa_view *old,
    const struct sa_view *v)
{
	struct mcm *m = state;

	(void)old;
	if (v == NULL || v->f == NULL)
		return;
	set_mlid_limit(m, v->f);
	if (!m->synced || v->policy != m->policy || v->qos != m->qos ||
	    v->qos_policy != m->qos_policy) {
		sync_policy(m, v);
		m->policy = v->policy;
		m->qos = v->qos;
		m->qos_policy = v->qos_policy;
		m->synced = true;
	}
	prune(m, v);
	check_ports(m, v);
}

void *
sa_mcmember_state_new(const struct sa_opts *o)
{
	struct mcm *m = xcalloc(1, sizeof(*m));

	if (o != NULL)
		m->o = *o;
	return m;
}

void
sa_mcmember_state_free(void *state)
{
	struct mcm *m = state;

	if (m == NULL)
		return;
	mcast_store_free(m->own);
	free(m->unjoinable);
	free(m);
}

static void *
mcm_init(struct sa *sa, struct ev_loop *loop)
{
	struct mcm *m = sa_mcmember_state_new(NULL);

	(void)loop;
	m->sa = sa;
	return m;
}

struct mcast_store *
sa_mcmember_store(struct sa *sa)
{
	struct mcm *m = sa_attr_state(sa, SA_ATTR_MCMEMBER_REC);

	return m != NULL ? store(m) : NULL;
}

void
sa_mcmember_stats(struct sa *sa, struct sa_mcmember_stats *st)
{
	struct mcm *m = sa_attr_state(sa, SA_ATTR_MCMEMBER_REC);

	if (m != NULL)
		*st = m->st;
	else
		memset(st, 0, sizeof(*st));
}

const struct sa_attr sa_attr_mcmember = {
	.id = SA_ATTR_MCMEMBER_REC,
	.name = "MCMemberRecord",
	.rec_size = SA_MCMEMBER_REC_SIZE,
	.get = mcm_get,
	.set = mcm_set,
	.del = mcm_del,
	.init = mcm_init,
	.fini = sa_mcmember_state_free,
	.view_changed = sa_mcmember_state_view,
};
