#include "sm/vports.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/vattr.h"
#include "mad/mad.h"
#include "mad/smp.h"

#define VPORTS_ROUNDS 3         /* sends of an unanswered SMP */

/* What a vport was last given, by VPortGUID. */
struct vmem {
	uint64_t port_guid;     /* its physical port then */
	uint16_t index;
	uint16_t n;
	uint16_t *keys;
};

enum run_kind { RUN_NONE, RUN_DISCOVER, RUN_PROGRAM, RUN_POLL };

struct vports {
	struct mad_engine *mad;
	unsigned window;
	/* the run in progress */
	enum run_kind kind;
	unsigned gen;
	const struct fabric *f;
	struct vport_set *s;
	bool clear;
	unsigned pending;       /* requests in flight and hosts started */
	uint32_t next_host, hosts_active;
	unsigned *host_pending; /* [s->nh] */
	unsigned *vp_pending;   /* [s->n] (program) */
	struct vports_result res;
	vports_done_cb done;
	vports_poll_cb poll_done;
	bool changed;
	void *arg;
	/* memory of what was written */
	struct guid_hash by_guid;
	struct vmem *mem;
	uint32_t nmem, memcap;
	/* hosts (port GUIDs) told VClientReregister this mastership */
	struct guid_hash rereg;
	/* hosts (port GUIDs) whose VPortPKeyTable write read back wrong (the
	 * UNCONFIRMED modifier encoding, core/vattr.h, is not this adapter's):
	 * no vport attribute is written to them again until a restart */
	struct guid_hash unsafe;
	/* hosts (port GUIDs) told of their VirtualizationEnable clear */
	struct guid_hash told_disabled;
	/* the last finished poll: fabric ports whose VirtualizationInfo had
	 * VPortStateChange set or did not answer */
	uint8_t *dirty;         /* [ndirty] */
	uint32_t ndirty;
	const struct fabric *dirty_f;
	bool dirty_ok;
	/* discovery: hosts kept from the old set, not read */
	uint8_t *kept;          /* [s->nh] */
	/* programming: what this run wrote to each host (a vport state,
	 * VClientReregister) and whether it cleared VPortStateChange since */
	uint8_t *host_wrote;    /* [s->nh]: WROTE_* */
	/* programming: the vports of host h are by_host[host_first[h] ..
	 * host_first[h + 1] - 1] (one pass over the set, not one a host) */
	uint32_t *host_first;   /* [s->nh + 1] */
	uint32_t *by_host;      /* [s->n] */
	/* port GUIDs whose vport states, read after such a clear, differ from
	 * what this SM set: the next poll counts them as changed */
	struct guid_hash stale;
};

#define WROTE_STATE     0x01
#define WROTE_REREG     0x02    /* kept set by the clear's write */
#define WROTE_CLEARED   0x04    /* VPortStateChange cleared after them */

struct vreq {
	struct vports *v;
	unsigned gen;
	uint32_t host;
	uint32_t vport;         /* FABRIC_NONE: host-wide */
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	uint16_t block;         /* VPortGUIDInfo */
	uint8_t round;
	uint8_t has_data;
	uint8_t data[SMP_DATA_SIZE];
	/* the read-back guard of a VPortPKeyTable write: vport 0's block as
	 * read before it, and the block written */
	uint8_t pf_before[SMP_DATA_SIZE];
	uint8_t wrote[SMP_DATA_SIZE];
	void (*on)(struct vreq *q, const uint8_t *data);
};

static void start_hosts(struct vports *v);
static void program_vport_next(struct vports *v, uint32_t i);
static bool host_unsafe(const struct vports *v, uint32_t h);
static void host_stop(struct vports *v, const struct vreq *q,
    const char *attr, const char *what);

struct vports *
vports_new(struct mad_engine *mad)
{
	struct vports *v = xcalloc(1, sizeof(*v));

	v->mad = mad;
	v->window = 64;
	guid_hash_init(&v->by_guid);
	guid_hash_init(&v->rereg);
	guid_hash_init(&v->stale);
	guid_hash_init(&v->unsafe);
	guid_hash_init(&v->told_disabled);
	return v;
}

void
vports_forget(struct vports *v)
{
	for (uint32_t i = 0; i < v->nmem; i++)
		free(v->mem[i].keys);
	v->nmem = 0;
	guid_hash_clear(&v->by_guid);
	guid_hash_clear(&v->rereg);
	guid_hash_clear(&v->stale);
}

void
vports_free(struct vports *v)
{
	if (v == NULL)
		return;
	vports_abort(v);
	vports_forget(v);
	free(v->mem);
	guid_hash_fini(&v->by_guid);
	guid_hash_fini(&v->rereg);
	guid_hash_fini(&v->stale);
	guid_hash_fini(&v->unsafe);
	guid_hash_fini(&v->told_disabled);
	free(v->dirty);
	free(v);
}

void
vports_set_window(struct vports *v, unsigned hosts)
{
	v->window = hosts > 0 ? hosts : 1;
}

bool
vports_capable(const uint8_t *info)
{
	uint32_t cap = mad_get_field((void *)info, 0, IB_PORT_CAPMASK_F);
	uint32_t cap2 = mad_get_field((void *)info, 0, IB_PORT_CAPMASK2_F);

	return (cap & VATTR_CAP_MASK2_VALID) && (cap2 & VATTR_CAP2_VIRT);
}

static void
reset_run(struct vports *v)
{
	free(v->host_pending);
	free(v->vp_pending);
	free(v->kept);
	free(v->host_wrote);
	free(v->host_first);
	free(v->by_host);
	v->host_first = NULL;
	v->by_host = NULL;
	v->host_wrote = NULL;
	v->host_pending = NULL;
	v->vp_pending = NULL;
	v->kept = NULL;
	v->kind = RUN_NONE;
}

void
vports_abort(struct vports *v)
{
	if (v->kind == RUN_NONE)
		return;
	v->gen++;               /* answers still in flight fall on the floor */
	reset_run(v);
}

static void
fail(struct vports *v, const struct vreq *q, int status)
{
	const struct fabric_port *p = &v->f->ports[v->s->h[q->host].port];
	char st[96];

	if (status == MAD_ETIMEDOUT || status == MAD_ESEND)
		v->res.timeouts++;
	else
		v->res.errors++;
	if (v->res.first_failure[0] == '\0')
		snprintf(v->res.first_failure, sizeof(v->res.first_failure),
		    "port 0x%016" PRIx64 ": %s %s (mod 0x%x): %s", p->guid,
		    mad_method_name(q->method),
		    mad_attr_name(MGMT_CLASS_SMP_LID, q->attr), q->mod,
		    mad_status_text(MGMT_CLASS_SMP_LID, status, st,
		    sizeof(st)));
	log_debug("vports: %s", v->res.first_failure);
	v->changed = true;
	if (v->kind == RUN_POLL && v->s->h[q->host].port < v->ndirty)
		v->dirty[v->s->h[q->host].port] = 1;
}

static void
run_finished(struct vports *v)
{
	enum run_kind kind = v->kind;
	struct vports_result r = v->res;

	reset_run(v);
	if (kind == RUN_POLL)
		v->dirty_ok = true;
	if (kind == RUN_POLL)
		v->poll_done(v->arg, v->changed);
	else
		v->done(v->arg, &r);
}

static void clear_state_change(struct vports *v, uint32_t h);

static void
host_finished(struct vports *v, uint32_t h)
{
	if (v->kind == RUN_PROGRAM && (v->host_wrote[h] &
	    (WROTE_STATE | WROTE_CLEARED)) == WROTE_STATE) {
		/* its state writes are answered: the latch they set is
		 * cleared before the host counts as done */
		clear_state_change(v, h);
		if (v->host_pending[h] > 0)
			return;
	}
	v->hosts_active--;
	start_hosts(v);
}

static int send_req(struct vreq *q);

static void
on_done(void *arg, int status, const uint8_t *resp)
{
	struct vreq *q = arg;
	struct vports *v = q->v;

	if (q->gen != v->gen || v->kind == RUN_NONE) {
		free(q);
		return;
	}
	if (status != 0 || resp == NULL) {
		if ((status == MAD_ETIMEDOUT || status == MAD_ESEND) &&
		    ++q->round < VPORTS_ROUNDS && send_req(q) == 0)
			return;
		fail(v, q, status);
	} else if (q->on != NULL) {
		q->on(q, resp + SMP_DATA_OFFSET);
	}
	if (q->vport != FABRIC_NONE && v->vp_pending != NULL &&
	    --v->vp_pending[q->vport] == 0)
		program_vport_next(v, q->vport);
	if (--v->host_pending[q->host] == 0)
		host_finished(v, q->host);
	free(q);
	if (--v->pending == 0)
		run_finished(v);
}

static int
send_req(struct vreq *q)
{
	struct vports *v = q->v;
	const struct fabric *f = v->f;
	const struct fabric_port *p = &f->ports[v->s->h[q->host].port];
	struct smp_req r = {
		.method = q->method, .attr = q->attr, .mod = q->mod,
		.path = fabric_port_path(f, v->s->h[q->host].port),
		.dest = f->nodes[p->node].guid,
		.data = q->has_data ? q->data : NULL,
	};

	v->res.smps++;
	return smp_request(v->mad, &r, on_done, q);
}

static void
ask_block(struct vports *v, uint32_t h, uint32_t vp, uint8_t method,
    uint16_t attr, uint32_t mod, uint16_t block, const uint8_t *data,
    void (*on)(struct vreq *, const uint8_t *))
{
	struct vreq *q = xcalloc(1, sizeof(*q));

	q->block = block;
	q->v = v;
	q->gen = v->gen;
	q->host = h;
	q->vport = vp;
	q->method = method;
	q->attr = attr;
	q->mod = mod;
	q->on = on;
	if (data != NULL) {
		memcpy(q->data, data, SMP_DATA_SIZE);
		q->has_data = 1;
	}
	v->pending++;
	v->host_pending[h]++;
	if (vp != FABRIC_NONE && v->vp_pending != NULL)
		v->vp_pending[vp]++;
	if (send_req(q) < 0) {
		v->pending--;
		v->host_pending[h]--;
		if (vp != FABRIC_NONE && v->vp_pending != NULL)
			v->vp_pending[vp]--;
		fail(v, q, MAD_ESEND);
		free(q);
	}
}

static void
ask(struct vports *v, uint32_t h, uint32_t vp, uint8_t method, uint16_t attr,
    uint32_t mod, const uint8_t *data, void (*on)(struct vreq *,
    const uint8_t *))
{
	ask_block(v, h, vp, method, attr, mod, 0, data, on);
}

/* ---- discovery ---- */

static void
on_vnode_desc(struct vreq *q, const uint8_t *d)
{
	struct vport *vp = &q->v->s->v[q->vport];

	memcpy(vp->desc, d, VATTR_DESC_LEN);
	vp->desc[VATTR_DESC_LEN] = '\0';
}

static void
on_dev_pkeys(struct vreq *q, const uint8_t *d)
{
	struct vport *vp = &q->v->s->v[q->vport];
	uint16_t k[VATTR_PKEYS_PER_BLOCK];

	if (vp->dev_pkeys == NULL)
		return;
	vattr_pkeys_decode(d, k);
	for (unsigned j = 0; j < VATTR_PKEYS_PER_BLOCK &&
	    q->block * VATTR_PKEYS_PER_BLOCK + j < vp->pkey_cap; j++)
		vp->dev_pkeys[q->block * VATTR_PKEYS_PER_BLOCK + j] = k[j];
}

static void
on_vnode_info(struct vreq *q, const uint8_t *d)
{
	struct vattr_vnode_info ni;
	struct vport *vp = &q->v->s->v[q->vport];

	vattr_vnode_info_decode(d, &ni);
	vp->node_guid = ni.guid;
	vp->pkey_cap = ni.partition_cap;
	/* a VM up before this SM programmed it: the table it holds is where
	 * its keys' indices start (core/vport.h read_pkeys) */
	if (q->v->s->read_pkeys && vp->index != 0 && vp->pkey_cap > 0 &&
	    (vp->state == PORT_ARMED || vp->state == PORT_ACTIVE)) {
		free(vp->dev_pkeys);
		vp->dev_pkeys = xcalloc(vp->pkey_cap, sizeof(*vp->dev_pkeys));
		for (unsigned b = 0; b * VATTR_PKEYS_PER_BLOCK < vp->pkey_cap;
		    b++)
			ask_block(q->v, q->host, q->vport, MAD_GET,
			    VATTR_VPORT_PKEYS, vattr_mod_vport_block(vp->index,
			    b), (uint16_t)b, NULL, on_dev_pkeys);
	}
}

static void
on_vport_guids(struct vreq *q, const uint8_t *d)
{
	struct vport *vp = &q->v->s->v[q->vport];
	uint64_t g[VATTR_GUIDS_PER_BLOCK];

	vattr_guids_decode(d, g);
	for (unsigned k = 0; k < VATTR_GUIDS_PER_BLOCK; k++)
		if (vp->guids != NULL &&
		    q->block * VATTR_GUIDS_PER_BLOCK + k < vp->vguid_cap)
			vp->guids[q->block * VATTR_GUIDS_PER_BLOCK + k] = g[k];
}

static void
on_vport_info(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	struct vattr_vport_info vi;
	struct vport *vp = &v->s->v[q->vport];

	vattr_vport_info_decode(d, &vi);
	vp->info_valid = 1;
	if (vi.state != 0)
		vp->state = vi.state;
	vp->flags = vi.flags;
	vp->vguid_cap = vi.vguid_cap;
	vp->lid_by = vi.lid_by_index;
	vp->cur_lid = vi.lid;
	if (!vport_set_guid(v->s, q->vport, vi.guid) && vi.guid != 0)
		log_warnx("vports: port 0x%016" PRIx64 " vport %u: VPortGUID "
		    "0x%016" PRIx64 " is used twice; ignored here",
		    v->f->ports[vp->port].guid, vp->index, vi.guid);
	/* its VGUIDCap GUIDs (entry 0 is the VPortGUID), once per sweep */
	if (vp->guids == NULL && vport_guids_alloc(v->s, q->vport) != NULL)
		for (unsigned b = 0; b * VATTR_GUIDS_PER_BLOCK < vi.vguid_cap;
		    b++)
			ask_block(v, q->host, q->vport, MAD_GET,
			    VATTR_VPORT_GUIDS, vattr_mod_vport_block(vp->index,
			    b), (uint16_t)b, NULL, on_vport_guids);
}

static void
on_vport_state(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	struct vport_host *h = &v->s->h[q->host];
	unsigned first = q->mod * VATTR_STATES_PER_BLOCK;

	for (unsigned k = 0; k < VATTR_STATES_PER_BLOCK; k++) {
		unsigned i = first + k, st = vattr_vport_state(d, k);
		uint32_t x;

		if (i > h->top)
			break;
		if (st < PORT_INIT || st > PORT_ACTIVE)
			continue;
		x = vport_add(v->s, q->host, (uint16_t)i);
		v->s->v[x].state = (uint8_t)st;
		v->res.vports++;
		ask(v, q->host, x, MAD_GET, VATTR_VPORT_INFO,
		    vattr_mod_vport(i), NULL, on_vport_info);
		ask(v, q->host, x, MAD_GET, VATTR_VNODE_INFO,
		    vattr_mod_vport(i), NULL, on_vnode_info);
		ask(v, q->host, x, MAD_GET, VATTR_VNODE_DESC,
		    vattr_mod_vport(i), NULL, on_vnode_desc);
	}
}

static void
on_virt_info(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	struct vport_host *h = &v->s->h[q->host];
	struct vattr_virt_info vi;
	uint8_t set[SMP_DATA_SIZE];

	if (q->method == MAD_SET)
		return;
	vattr_virt_info_decode(d, &vi);
	if (vi.revision != VATTR_REVISION) {
		log_warnx("vports: port 0x%016" PRIx64 ": VirtualizationRevision "
		    "%u unknown; its vports are left alone",
		    v->f->ports[h->port].guid, vi.revision);
		return;
	}
	if (!(vi.flags & VATTR_VI_ENABLE) &&
	    guid_hash_get(&v->told_disabled, v->f->ports[h->port].guid) ==
	    GUID_HASH_NONE) {
		/* ibsmd does not set the bit (UNCONFIRMED whether an SM
		 * should): say so once, as no VM of this host will come up */
		guid_hash_put(&v->told_disabled, v->f->ports[h->port].guid, 1);
		log_warnx("vports: port 0x%016" PRIx64 " (%s): the adapter "
		    "reports VirtualizationEnable clear (virtualization off: "
		    "vport 0 is the port itself, VMs get no vport); ibsmd does "
		    "not set it: enable SR-IOV virtualization on the adapter "
		    "(firmware, hypervisor) if VMs are meant to run there",
		    v->f->ports[h->port].guid,
		    v->f->nodes[v->f->ports[h->port].node].desc);
	}
	h->valid = 1;
	h->vport_cap = vi.vport_cap;
	h->top = vi.index_top > VPORT_MAX_INDEX ? VPORT_MAX_INDEX : vi.index_top;
	h->flags = vi.flags;
	if (v->clear && (vi.flags & VATTR_VI_STATE_CHANGE)) {
		/* clear it before reading the states, so that a change after
		 * our reads sets it again for the next light sweep */
		memcpy(set, d, sizeof(set));
		v->res.clears++;
		ask(v, q->host, FABRIC_NONE, MAD_SET, VATTR_VIRT_INFO, 0, set,
		    on_virt_info);
	}
	for (unsigned b = 0; b <= h->top / VATTR_STATES_PER_BLOCK; b++)
		ask(v, q->host, FABRIC_NONE, MAD_GET, VATTR_VPORT_STATE,
		    vattr_mod_state_block(b), NULL, on_vport_state);
}

static void
on_poll(struct vreq *q, const uint8_t *d)
{
	struct vattr_virt_info vi;

	vattr_virt_info_decode(d, &vi);
	if (vi.flags & VATTR_VI_STATE_CHANGE) {
		q->v->changed = true;
		if (q->v->s->h[q->host].port < q->v->ndirty)
			q->v->dirty[q->v->s->h[q->host].port] = 1;
	}
}

/* ---- programming ---- */

static struct vmem *
mem_of(struct vports *v, uint64_t guid)
{
	uint32_t i = guid_hash_get(&v->by_guid, guid);

	if (i != GUID_HASH_NONE)
		return &v->mem[i];
	if (v->nmem == v->memcap) {
		v->memcap = v->memcap ? 2 * v->memcap : 64;
		v->mem = xreallocarray(v->mem, v->memcap, sizeof(*v->mem));
	}
	memset(&v->mem[v->nmem], 0, sizeof(v->mem[v->nmem]));
	guid_hash_put(&v->by_guid, guid, v->nmem);
	return &v->mem[v->nmem++];
}

/* Is g the GUID of one of host h's vports (vport 0, the PF, included)? */
static bool
host_has_guid(const struct vports *v, uint32_t h, uint64_t g)
{
	if (v->host_first == NULL)
		return false;
	for (uint32_t j = v->host_first[h]; j < v->host_first[h + 1]; j++)
		if (v->s->v[v->by_host[j]].guid == g)
			return true;
	return false;
}

static void
on_vport_set(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	struct vattr_vport_info vi;
	struct vport *vp = &v->s->v[q->vport];

	vattr_vport_info_decode(d, &vi);
	/* the answer is the record as held: another vport's of this host
	 * means the Set went elsewhere (the UNCONFIRMED modifier): stop the
	 * host. A GUID this SM does not know is a VM replaced since the read:
	 * the next sweep reads it again. */
	if (vi.guid != vp->guid) {
		if (host_has_guid(v, q->host, vi.guid))
			host_stop(v, q, "VPortInfo", "the answer names "
			    "another vport of this host (VPortGUID)");
		return;
	}
	vp->cur_lid = vi.lid;
	if (vi.state != 0) {
		if (vi.state == PORT_ARMED && vp->state != PORT_ARMED)
			v->res.armed++;
		if (vi.state == PORT_ACTIVE && vp->state != PORT_ACTIVE)
			v->res.activated++;
		vp->state = vi.state;
	}
}

static void
set_vport_info(struct vports *v, uint32_t i, uint8_t state, uint16_t lid,
    uint8_t rereg)
{
	struct vport *vp = &v->s->v[i];
	struct vattr_vport_info vi = {
		.state = state,
		.flags = (vp->flags & VATTR_VP_LID_REQUIRED) | rereg,
		.vguid_cap = vp->vguid_cap, .lid = lid,
		.lid_by_index = vp->lid_by, .guid = vp->guid,
	};
	uint8_t d[SMP_DATA_SIZE];

	if (host_unsafe(v, vp->host)) {
		v->res.unsafe_skipped++;
		return;
	}
	vattr_vport_info_encode(&vi, d);
	if (state != 0 && v->host_wrote != NULL)
		v->host_wrote[vp->host] |= WROTE_STATE;
	ask(v, vp->host, i, MAD_SET, VATTR_VPORT_INFO, vattr_mod_vport(vp->index),
	    d, on_vport_set);
}

/*
 * Vport 0 of a host whose VirtualizationEnable is set: it has a PortState
 * of its own (NVIDIA's layout of VirtualizationInfo: with the bit clear,
 * vport 0 is the physical port and tracks its PortState; with it set,
 * vport 0's state is independent), which this SM brings to ACTIVE as any
 * vport's, once its VPortLID is its port's.
 */
static bool
pf_own_state(const struct vports *v, const struct vport *vp)
{
	return vp->index == 0 && vp->info_valid && vp->guid != 0 &&
	    (v->s->h[vp->host].flags & VATTR_VI_ENABLE) &&
	    vp->state >= PORT_INIT && vp->state <= PORT_ACTIVE;
}

/* The next step of vport i once its last one is answered: ARMED after its
 * LID and P_Keys, ACTIVE after ARMED. */
static void
program_vport_next(struct vports *v, uint32_t i)
{
	struct vport *vp = &v->s->v[i];

	if (!(vport_is_managed(vp) || pf_own_state(v, vp)) || vp->lid == 0 ||
	    vp->cur_lid != vp->lid || host_unsafe(v, vp->host))
		return;
	if (vp->state == PORT_INIT) {
		set_vport_info(v, i, PORT_ARMED, vp->lid, 0);
	} else if (vp->state == PORT_ARMED) {
		/* a VM's vport that becomes ACTIVE (started, or moved here)
		 * is told to re-register its SA records (the PF's clients
		 * are told by its port's PortInfo) */
		if (vp->index != 0)
			v->res.rereg_vports++;
		set_vport_info(v, i, PORT_ACTIVE, vp->lid,
		    vp->index != 0 ? VATTR_VP_CLIENT_REREG : 0);
	}
}

/* Block b of vport vp's P_Key table as the policy wants it. */
static void
want_pkeys(const struct vport *vp, unsigned b, uint16_t k[VATTR_PKEYS_PER_BLOCK])
{
	memset(k, 0, VATTR_PKEYS_PER_BLOCK * sizeof(*k));
	for (unsigned j = 0; j < VATTR_PKEYS_PER_BLOCK &&
	    b * VATTR_PKEYS_PER_BLOCK + j < vp->pkey_cap; j++)
		k[j] = vp->pkeys[b * VATTR_PKEYS_PER_BLOCK + j];
}

/* The port GUID of host h, the key of the unsafe set. */
static uint64_t
host_guid(const struct vports *v, uint32_t h)
{
	return v->f->ports[v->s->h[h].port].guid;
}

static bool
host_unsafe(const struct vports *v, uint32_t h)
{
	return guid_hash_get(&v->unsafe, host_guid(v, h)) != GUID_HASH_NONE;
}

/* A VPortPKeyTable write that did not land where it was meant to: the
 * modifier encoding is not this adapter's, and any other write could hit
 * another VM's table or the PF's. Stop writing to the host, loudly. */
static void
host_stop(struct vports *v, const struct vreq *q, const char *attr,
    const char *what)
{
	const struct vport *vp = &v->s->v[q->vport];
	const struct fabric_port *p = &v->f->ports[v->s->h[q->host].port];

	if (host_unsafe(v, q->host))
		return;
	guid_hash_put(&v->unsafe, p->guid, 1);
	log_warnx("vports: node 0x%016" PRIx64 " (%s) port %u: %s after "
	    "writing vport %u's %s (modifier 0x%08x, an UNCONFIRMED "
	    "encoding): no vport attribute is written to this host again "
	    "until ibsmd restarts; check its adapter's vport modifier "
	    "encoding (core/vattr.h, VIRTUALIZATION.md)",
	    v->f->nodes[p->node].guid, v->f->nodes[p->node].desc, p->num,
	    what, vp->index, attr, q->mod);
}

/* 3: vport 0's block after the write must be as before it. */
static void
on_guard_after(struct vreq *q, const uint8_t *d)
{
	if (memcmp(d, q->pf_before, SMP_DATA_SIZE) != 0)
		host_stop(q->v, q, "VPortPKeyTable", "the physical "
		    "function's (vport 0's) table changed");
}

/* The guarded request of chain step on. */
static void
guard_ask(struct vreq *q, uint8_t method, uint32_t mod, const uint8_t *data,
    void (*on)(struct vreq *, const uint8_t *), const uint8_t *pf_before)
{
	struct vports *v = q->v;
	struct vreq *n = xcalloc(1, sizeof(*n));

	*n = *q;
	n->round = 0;
	n->method = method;
	n->mod = mod;
	n->on = on;
	n->has_data = data != NULL;
	if (data != NULL)
		memcpy(n->data, data, SMP_DATA_SIZE);
	if (pf_before != NULL)
		memcpy(n->pf_before, pf_before, SMP_DATA_SIZE);
	v->pending++;
	v->host_pending[n->host]++;
	if (v->vp_pending != NULL)
		v->vp_pending[n->vport]++;
	if (send_req(n) < 0) {
		v->pending--;
		v->host_pending[n->host]--;
		if (v->vp_pending != NULL)
			v->vp_pending[n->vport]--;
		fail(v, n, MAD_ESEND);
		free(n);
	}
}

/* 2: the answer to the Set is the target's block as now held: it must be
 * what was written; then vport 0's block is read again. */
static void
on_guard_set(struct vreq *q, const uint8_t *d)
{
	if (memcmp(d, q->data, SMP_DATA_SIZE) != 0) {
		host_stop(q->v, q, "VPortPKeyTable", "the target's table "
		    "does not read back as written");
		return;
	}
	guard_ask(q, MAD_GET, vattr_mod_vport_block(0, q->block), NULL,
	    on_guard_after, q->pf_before);
}

/* 1: vport 0's block before the write, then the write. */
static void
on_guard_before(struct vreq *q, const uint8_t *d)
{
	if (host_unsafe(q->v, q->host))
		return;
	q->v->res.pkey_writes++;
	guard_ask(q, MAD_SET, vattr_mod_vport_block(q->v->s->v[q->vport].index,
	    q->block), q->wrote, on_guard_set, d);
}

/*
 * Write block b of vport i's VPortPKeyTable, guarded while the modifier
 * encoding is UNCONFIRMED (core/vattr.h): read vport 0's (the PF's) block
 * b, write, check the Set's answer (the target as held) is what was
 * written, read vport 0's block b again: anything else stops the host
 * (host_stop). Three SMPs a write; writes are rare (a VM started or moved,
 * a policy changed).
 */
static void
set_pkeys(struct vports *v, uint32_t i, unsigned b)
{
	const struct vport *vp = &v->s->v[i];
	uint16_t k[VATTR_PKEYS_PER_BLOCK];
	struct vreq q;

	if (host_unsafe(v, vp->host)) {
		v->res.unsafe_skipped++;
		return;
	}
	want_pkeys(vp, b, k);
	memset(&q, 0, sizeof(q));
	q.v = v;
	q.gen = v->gen;
	q.host = vp->host;
	q.vport = i;
	q.attr = VATTR_VPORT_PKEYS;
	q.block = (uint16_t)b;
	vattr_pkeys_encode(k, q.wrote);
	memcpy(q.data, q.wrote, SMP_DATA_SIZE);
	guard_ask(&q, MAD_GET, vattr_mod_vport_block(0, b), NULL,
	    on_guard_before, NULL);
}

/* A block read from a vport this SM has not programmed yet (a restart, a
 * takeover): written only where it differs. */
static void
on_vport_pkeys(struct vreq *q, const uint8_t *d)
{
	const struct vport *vp = &q->v->s->v[q->vport];
	uint16_t have[VATTR_PKEYS_PER_BLOCK], want[VATTR_PKEYS_PER_BLOCK];

	vattr_pkeys_decode(d, have);
	want_pkeys(vp, q->block, want);
	if (memcmp(have, want, sizeof(have)) != 0)
		set_pkeys(q->v, q->vport, q->block);
}

static void
program_vport(struct vports *v, uint32_t i)
{
	struct vport *vp = &v->s->v[i];
	const struct fabric_port *p = &v->f->ports[vp->port];
	struct vmem *m;
	uint16_t n = vp->pkey_cap;
	bool fresh;

	if (vp->index == 0) {
		/* the physical function answers to its port's LID; with
		 * virtualization off it is the port itself: nothing to write */
		if (!pf_own_state(v, vp))
			return;
		if (vp->lid != 0 && vp->cur_lid != vp->lid) {
			v->res.lid_writes++;
			set_vport_info(v, i, 0, vp->lid, 0);
		} else if (v->vp_pending[i] == 0) {
			program_vport_next(v, i);
		}
		return;
	}
	if (!vport_is_managed(vp) || vp->lid == 0)
		return;
	v->res.managed++;
	m = mem_of(v, vp->guid);
	fresh = vp->state == PORT_INIT || m->port_guid != p->guid ||
	    m->index != vp->index;
	if (vp->pkeys != NULL && n > 0 && (fresh || m->n != n ||
	    memcmp(m->keys, vp->pkeys, n * sizeof(*m->keys)) != 0)) {
		/* A vport up before this SM knew it (a restart, a takeover)
		 * may hold the right table already: read it first, as the
		 * physical P_Key tables are, and write what differs. A new or
		 * moved VM, or a changed policy, is written at once. */
		bool unknown = m->port_guid == 0 && vp->state != PORT_INIT;

		for (unsigned b = 0; b * VATTR_PKEYS_PER_BLOCK < n; b++) {
			if (unknown)
				ask_block(v, vp->host, i, MAD_GET,
				    VATTR_VPORT_PKEYS,
				    vattr_mod_vport_block(vp->index, b), b, NULL,
				    on_vport_pkeys);
			else
				set_pkeys(v, i, b);
		}
		free(m->keys);
		m->keys = xcalloc(n, sizeof(*m->keys));
		memcpy(m->keys, vp->pkeys, n * sizeof(*m->keys));
		m->n = n;
	}
	m->port_guid = p->guid;
	m->index = vp->index;
	if (vp->cur_lid != vp->lid) {
		v->res.lid_writes++;
		set_vport_info(v, i, 0, vp->lid, 0);
	} else if (v->vp_pending[i] == 0) {
		program_vport_next(v, i);
	}
}

/* ---- the latch this SM's own state writes set ---- */

/* VPortState block q->mod of a host just cleared: each vport as this SM
 * left it? A vport changed by someone else between our writes and the
 * clear (its latch cleared with ours) is told to the next poll. */
static void
on_check_state(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	const struct vport_host *h = &v->s->h[q->host];
	unsigned first = q->mod * VATTR_STATES_PER_BLOCK;
	uint8_t want[VATTR_STATES_PER_BLOCK];
	bool same = true;

	memset(want, PORT_DOWN, sizeof(want));
	for (uint32_t j = v->host_first[q->host];
	    j < v->host_first[q->host + 1]; j++) {
		const struct vport *vp = &v->s->v[v->by_host[j]];

		if (vp->index >= first &&
		    vp->index < first + VATTR_STATES_PER_BLOCK)
			want[vp->index - first] = vp->state;
	}
	for (unsigned k = 0; k < VATTR_STATES_PER_BLOCK; k++) {
		unsigned st = vattr_vport_state(d, k);
		bool up = st >= PORT_INIT && st <= PORT_ACTIVE;
		bool wup = want[k] >= PORT_INIT && want[k] <= PORT_ACTIVE;

		if (first + k > h->top && !up)
			continue;
		if (up != wup || (up && st != want[k]))
			same = false;
	}
	if (!same) {
		v->res.stale_hosts++;
		guid_hash_put(&v->stale, v->f->ports[h->port].guid, 1);
	}
}

static void
on_cleared(struct vreq *q, const uint8_t *d)
{
	struct vports *v = q->v;
	struct vport_host *h = &v->s->h[q->host];
	struct vattr_virt_info vi;

	vattr_virt_info_decode(d, &vi);
	h->top = vi.index_top > VPORT_MAX_INDEX ? VPORT_MAX_INDEX :
	    vi.index_top;
	for (unsigned b = 0; b <= h->top / VATTR_STATES_PER_BLOCK; b++)
		ask(v, q->host, FABRIC_NONE, MAD_GET, VATTR_VPORT_STATE,
		    vattr_mod_state_block(b), NULL, on_check_state);
}

/* Clear host h's VPortStateChange (written as 1), then read its vport
 * states: a change between our writes and this clear is found by the
 * read, one after it latches again. */
static void
clear_state_change(struct vports *v, uint32_t h)
{
	const struct vport_host *vh = &v->s->h[h];
	struct vattr_virt_info vi = {
		.vport_cap = vh->vport_cap, .index_top = vh->top,
		.flags = (uint8_t)((vh->flags & VATTR_VI_ENABLE) |
		    VATTR_VI_STATE_CHANGE | ((v->host_wrote[h] & WROTE_REREG) ?
		    VATTR_VI_CLIENT_REREG : 0)),
		.revision = VATTR_REVISION,
	};
	uint8_t d[SMP_DATA_SIZE];

	v->host_wrote[h] |= WROTE_CLEARED;
	vattr_virt_info_encode(&vi, d);
	v->res.clears++;
	ask(v, h, FABRIC_NONE, MAD_SET, VATTR_VIRT_INFO, 0, d, on_cleared);
}

/* ---- hosts, a window at a time ---- */

/* VirtualizationInfo.VClientReregister, once per host per mastership (a
 * restart or a takeover: the clients of every vport re-register their SA
 * records with the new master). The other fields are written back as
 * read; VPortStateChange is not written, so a change stays latched. */
static void
rereg_host(struct vports *v, uint32_t h)
{
	const struct vport_host *vh = &v->s->h[h];
	uint64_t guid = v->f->ports[vh->port].guid;
	struct vattr_virt_info vi = {
		.vport_cap = vh->vport_cap, .index_top = vh->top,
		.flags = (uint8_t)((vh->flags & VATTR_VI_ENABLE) |
		    VATTR_VI_CLIENT_REREG),
		.revision = VATTR_REVISION,
	};
	uint8_t d[SMP_DATA_SIZE];

	if (!vh->valid || guid_hash_get(&v->rereg, guid) != GUID_HASH_NONE)
		return;
	guid_hash_put(&v->rereg, guid, 1);
	vattr_virt_info_encode(&vi, d);
	v->res.rereg_hosts++;
	v->host_wrote[h] |= WROTE_REREG;
	ask(v, h, FABRIC_NONE, MAD_SET, VATTR_VIRT_INFO, 0, d, NULL);
}

static void
start_host(struct vports *v, uint32_t h)
{
	v->hosts_active++;
	v->pending++;           /* the host itself, until its first asks */
	v->host_pending[h]++;
	switch (v->kind) {
	case RUN_DISCOVER:
	case RUN_POLL:
		ask(v, h, FABRIC_NONE, MAD_GET, VATTR_VIRT_INFO, 0, NULL,
		    v->kind == RUN_DISCOVER ? on_virt_info : on_poll);
		break;
	case RUN_PROGRAM:
		rereg_host(v, h);
		for (uint32_t j = v->host_first[h]; j < v->host_first[h + 1];
		    j++)
			program_vport(v, v->by_host[j]);
		break;
	default:
		break;
	}
	if (--v->host_pending[h] == 0) {
		v->hosts_active--;
		/* nothing asked: the next host starts from the loop below */
	}
	v->pending--;
}

static void
start_hosts(struct vports *v)
{
	while (v->kind != RUN_NONE && v->hosts_active < v->window &&
	    v->next_host < v->s->nh) {
		uint32_t h = v->next_host++;

		if (v->kind != RUN_DISCOVER && !v->s->h[h].valid)
			continue;
		if (v->kind == RUN_DISCOVER && v->kept != NULL && v->kept[h])
			continue;
		start_host(v, h);
	}
}

/* v->by_host and v->host_first: the vports of set s grouped by host, in
 * set order (a counting sort; programming starts a host's vports from it
 * instead of a pass over the whole set per host). */
static void
index_hosts(struct vports *v, const struct vport_set *s)
{
	uint32_t *at = xcalloc(s->nh, sizeof(*at));

	v->host_first = xcalloc(s->nh + 1, sizeof(*v->host_first));
	v->by_host = xcalloc(s->n, sizeof(*v->by_host));
	for (uint32_t i = 0; i < s->n; i++)
		v->host_first[s->v[i].host + 1]++;
	for (uint32_t h = 0; h < s->nh; h++)
		v->host_first[h + 1] += v->host_first[h];
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t h = s->v[i].host;

		v->by_host[v->host_first[h] + at[h]++] = i;
	}
	free(at);
}

static void
run_start(struct vports *v, enum run_kind kind, const struct fabric *f,
    struct vport_set *s, uint8_t *kept)
{
	vports_abort(v);
	v->kept = kept;
	v->kind = kind;
	v->gen++;
	v->f = f;
	v->s = s;
	v->changed = false;
	memset(&v->res, 0, sizeof(v->res));
	/* vports kept from the old set count as read */
	for (uint32_t i = 0; kept != NULL && i < s->n; i++)
		v->res.vports++;
	v->next_host = 0;
	v->hosts_active = 0;
	v->host_pending = xcalloc(s->nh, sizeof(unsigned));
	v->vp_pending = kind == RUN_PROGRAM ?
	    xcalloc(s->n, sizeof(unsigned)) : NULL;
	if (kind == RUN_PROGRAM) {
		v->host_wrote = xcalloc(s->nh, 1);
		index_hosts(v, s);
	}
	if (kind == RUN_DISCOVER)
		guid_hash_clear(&v->stale);
	v->res.hosts = s->nh;
	if (kind == RUN_POLL) {
		free(v->dirty);
		v->ndirty = f->nports;
		v->dirty = xcalloc(f->nports, 1);
		v->dirty_f = f;
		v->dirty_ok = false;
		for (uint32_t h = 0; v->stale.n > 0 && h < s->nh; h++)
			if (s->h[h].port < f->nports &&
			    guid_hash_get(&v->stale,
			    f->ports[s->h[h].port].guid) != GUID_HASH_NONE) {
				v->dirty[s->h[h].port] = 1;
				v->changed = true;
			}
	}
	v->pending = 1;         /* held until every host is started */
	start_hosts(v);
	/* nothing to send: done is called from inside this call */
	if (--v->pending == 0)
		run_finished(v);
}

void
vports_discover(struct vports *v, const struct fabric *f,
    struct vport_set *s, bool clear, vports_done_cb done, void *arg)
{
	vport_set_clear(s);
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];

		/* a host holding another SM's M_Key is left alone */
		if (f->nodes[port->node].type != NODE_CA || !port->present ||
		    !port->info_valid || port->state < PORT_INIT ||
		    !vports_capable(port->info) || port->mkey_foreign)
			continue;
		vport_host_add(s, p);
	}
	v->clear = clear;
	v->done = done;
	v->arg = arg;
	run_start(v, RUN_DISCOVER, f, s, NULL);
}

/* Copy host oh of old, and its vports, into s as host h (its P_Key table
 * is left to be built again, its LIDs to be resolved again). */
static void
keep_host(struct vport_set *s, uint32_t h, const struct vport_set *old,
    uint32_t oh)
{
	s->h[h].vport_cap = old->h[oh].vport_cap;
	s->h[h].top = old->h[oh].top;
	s->h[h].flags = old->h[oh].flags;
	s->h[h].valid = old->h[oh].valid;
	for (uint32_t i = 0; i < old->n; i++) {
		const struct vport *o = &old->v[i];
		struct vport *n;
		uint32_t x;

		if (o->host != oh)
			continue;
		x = vport_add(s, h, o->index);
		n = &s->v[x];
		n->node_guid = o->node_guid;
		n->state = o->state;
		n->flags = o->flags;
		n->info_valid = o->info_valid;
		n->vguid_cap = o->vguid_cap;
		n->lid_by = o->lid_by;
		n->cur_lid = o->cur_lid;
		n->pkey_cap = o->pkey_cap;
		memcpy(n->desc, o->desc, sizeof(n->desc));
		if (o->guids != NULL && vport_guids_alloc(s, x) != NULL)
			memcpy(s->v[x].guids, o->guids,
			    o->vguid_cap * sizeof(*o->guids));
		vport_set_guid(s, x, o->guid);
	}
}

void
vports_discover_changed(struct vports *v, const struct fabric *f,
    struct vport_set *s, const struct vport_set *old, bool clear,
    vports_done_cb done, void *arg)
{
	uint32_t *old_of;
	uint8_t *kept;
	unsigned nkept = 0;

	if (old == NULL || !v->dirty_ok || v->dirty_f != f ||
	    v->ndirty != f->nports) {
		vports_discover(v, f, s, clear, done, arg);
		return;
	}
	v->dirty_ok = false;    /* one vport sweep per poll */
	vport_set_clear(s);
	old_of = xcalloc(f->nports, sizeof(*old_of));
	for (uint32_t p = 0; p < f->nports; p++)
		old_of[p] = FABRIC_NONE;
	for (uint32_t h = 0; h < old->nh; h++)
		if (old->h[h].port < f->nports)
			old_of[old->h[h].port] = h;
	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];

		/* a host holding another SM's M_Key is left alone */
		if (f->nodes[port->node].type != NODE_CA || !port->present ||
		    !port->info_valid || port->state < PORT_INIT ||
		    !vports_capable(port->info) || port->mkey_foreign)
			continue;
		vport_host_add(s, p);
	}
	kept = xcalloc(s->nh, 1);
	for (uint32_t h = 0; h < s->nh; h++) {
		uint32_t p = s->h[h].port, oh = old_of[p];

		if (v->dirty[p] || oh == FABRIC_NONE || !old->h[oh].valid)
			continue;
		keep_host(s, h, old, oh);
		kept[h] = 1;
		nkept++;
	}
	free(old_of);
	log_info("vports: %u of %u hosts unchanged, kept; %u read", nkept,
	    s->nh, s->nh - nkept);
	v->clear = clear;
	v->done = done;
	v->arg = arg;
	run_start(v, RUN_DISCOVER, f, s, kept);
}

void
vports_program(struct vports *v, const struct fabric *f,
    struct vport_set *s, vports_done_cb done, void *arg)
{
	v->done = done;
	v->arg = arg;
	run_start(v, RUN_PROGRAM, f, s, NULL);
}

void
vports_poll(struct vports *v, const struct fabric *f,
    const struct vport_set *s, vports_poll_cb done, void *arg)
{
	v->poll_done = done;
	v->arg = arg;
	run_start(v, RUN_POLL, f, (struct vport_set *)s, NULL);
}
