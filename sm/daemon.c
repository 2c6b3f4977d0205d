/*
 * The go-between of the daemon's modules (sm/daemon.h): the SA's view of
 * each model the sweep adopts, the end of a sweep (dump files, multicast
 * programming, the device tables the SA shows, alias GUIDs, systemd), the
 * SM state machine's moves, traps, and what ctl and the stats file read.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/qos.h"
#include "core/query.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "routing/routing.h"
#include "sa/inform.h"
#include "sa/sa.h"
#include "sa/slsel.h"
#include "sm/ctl.h"
#include "sm/daemon.h"
#include "sm/devread.h"
#include "sm/program.h"
#include "sm/perfmgr.h"
#include "sm/dump.h"
#include "sm/mcast.h"
#include "sm/reload.h"
#include "sm/sdnotify.h"
#include "sm/sminfo.h"
#include "sm/mkeys.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/upkeep.h"
#include "sm/vfguid.h"

void
daemon_notify_status(struct daemon *d)
{
	struct ctl_status cs;
	char line[512];

	if (d->cd.sweep == NULL)
		return;
	ctl_status_get(&d->cd, &cs);
	show_status_line(&cs.st, line, sizeof(line));
	ctl_status_free(&cs);
	sdnotify_status(line);
}

static const char *
status_note(void *arg)
{
	struct daemon *d = arg;

	return d->note[0] ? d->note : NULL;
}

static void
notify_ready(struct daemon *d)
{
	if (!d->ready_sent) {
		sdnotify("READY=1");
		d->ready_sent = true;
	}
}

static void
print_unreached(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "ibsmd:   not reached: %s\n", line);
}

static void
sa_opts_from(const struct ibsmd_config *c, struct sa_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sa_key = c->sa_key;
	o->subnet_timeout = (uint8_t)c->subnet_timeout;
	o->service_lease = c->service_lease;
}

/* The SA changed an MLID's members: its tree and MFT blocks now. */
static void
on_mcast_changed(void *arg, uint16_t mlid)
{
	struct daemon *d = arg;

	sm_mcast_update(d->mcast, mlid);
}

static const struct mcast_mft *
on_mcast_mft(void *arg, uint64_t node_guid)
{
	struct daemon *d = arg;

	return sm_mcast_mft(d->mcast, node_guid);
}

void
daemon_sa_opts(struct daemon *d, struct sa_opts *o)
{
	sa_opts_from(&d->cfg, o);
	o->mcast = sm_mcast_store(d->mcast);
	o->mcast_changed = on_mcast_changed;
	o->mcast_arg = d;
	o->mcast_mft = on_mcast_mft;
}

/* This SM and the others smstate knows, for SMInfoRecord. */
static void
sa_sms_refresh(struct daemon *d)
{
	const struct fabric *f = sweep_fabric(d->sweep);
	struct smstate_status st;
	uint8_t smi[64];
	struct sa_sm *me = &d->sms[0];

	smstate_encode(d->ss, smi, true);
	memset(me, 0, sizeof(*me));
	me->guid = d->guid;
	me->lid = f != NULL && f->sm_port != FABRIC_NONE ?
	    f->ports[f->sm_port].lid : 0;
	me->sm_key = smstate_key(d->ss);
	me->act_count = (uint32_t)mad_get_field(smi, 0, IB_SMINFO_ACT_F);
	me->priority = smstate_priority(d->ss);
	me->state = (uint8_t)mad_get_field(smi, 0, IB_SMINFO_STATE_F);
	d->nsms = 1;
	smstate_get_status(d->ss, &st);
	for (size_t i = 0; i < st.npeers && d->nsms < SA_SMS_MAX; i++) {
		struct sa_sm *o = &d->sms[d->nsms++];
		const struct smstate_peer *p = &st.peers[i];

		memset(o, 0, sizeof(*o));
		o->guid = p->guid;
		o->lid = p->lid;
		o->priority = p->priority;
		/* enum sm_state is SMInfo's SMState */
		o->state = (uint8_t)p->state;
	}
}

/* The SA assigned or released alias GUIDs of port's block: program the
 * device; partitions may name them (the physical port's P_Key table holds
 * their keys), so one the policy names means a heavy sweep (coalesced with
 * others). */
static void
on_alias_changed(void *arg, uint32_t port, unsigned block)
{
	struct daemon *d = arg;
	const struct fabric *f = sweep_fabric(d->sweep);

	vfguid_changed(d->vg, port, block);
	if (d->policy == NULL || f == NULL || port >= f->nports)
		return;
	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		uint64_t g = alias_saved(vfguid_store(d->vg),
		    f->ports[port].guid, block * ALIAS_PER_BLOCK + i);

		if (g != 0 && pkey_policy_names_guid(d->policy, g)) {
			sweep_request(d->sweep, true);
			return;
		}
	}
}

/* sa_view.path_sl for a VL-layered routing: the layer of the route in
 * use (routing_path_sl), vport LIDs not their own taken at their
 * physical port's LID (the layers cover the routed LIDs). */
static int
layered_path_sl(const void *arg, uint16_t slid, uint16_t dlid)
{
	const struct daemon *d = arg;
	const struct fabric *f = sweep_fabric(d->sweep);
	const struct route_layers *lay = sweep_layers(d->sweep);
	const struct vport_set *vs = sweep_vports(d->sweep);
	uint32_t i;

	if (f == NULL || lay == NULL || lay->n <= 1)
		return -1;
	if (vs != NULL && fabric_port_by_lid(f, slid) == FABRIC_NONE &&
	    (i = vport_by_lid(vs, slid)) < vs->n)
		slid = f->ports[vs->v[i].port].lid;
	if (vs != NULL && fabric_port_by_lid(f, dlid) == FABRIC_NONE &&
	    (i = vport_by_lid(vs, dlid)) < vs->n)
		dlid = f->ports[vs->v[i].port].lid;
	return routing_path_sl(lay, f, sweep_lft(d->sweep), slid, dlid);
}

/* The sweep calls this (through on_adopt) while the previous model, which
 * the SA may still name, is allocated. */
void
daemon_sa_view_update(struct daemon *d)
{
	struct sa_view v = { 0 };
	const struct fabric *f = sweep_fabric(d->sweep);
	struct pkey_table *old_pk;

	if (d->sa == NULL)
		return;
	if (f == NULL) {
		sa_set_view(d->sa, NULL);
		return;
	}
	sa_sms_refresh(d);
	v.f = f;
	v.lft = sweep_lft(d->sweep);
	if (sweep_layers(d->sweep) != NULL &&
	    sweep_layers(d->sweep)->n > 1) {
		v.path_sl = layered_path_sl;
		v.path_sl_arg = d;
	}
	v.pk = sweep_pkeys(d->sweep);
	v.policy = d->policy;
	v.qos = d->cfg.qos;
	v.qos_policy = d->qos_policy;
	v.devtab = devread_tables(d->devread);
	v.enforce_tables = d->cfg.partition_enforcement != CFG_ENFORCE_OFF;
	v.subnet_prefix = d->cfg.subnet_prefix;
	v.sm_lid = d->sms[0].lid;
	v.sms = d->sms;
	v.nsms = d->nsms;
	if (d->vg != NULL) {
		vfguid_set_fabric(d->vg, f);
		v.alias = vfguid_store(d->vg);
		v.alias_changed = on_alias_changed;
		v.alias_arg = d;
	}
	old_pk = d->vport_pk;
	d->vport_pk = NULL;
	if ((v.vports = sweep_vports(d->sweep)) != NULL) {
		/* each vport's own table, as the SA's scope reads tables */
		d->vport_pk = xcalloc(v.vports->n,
		    sizeof(*d->vport_pk));
		for (uint32_t i = 0; i < v.vports->n; i++) {
			const struct vport *vp = &v.vports->v[i];

			d->vport_pk[i].guid = vp->guid;
			d->vport_pk[i].port = f->nports + i;
			d->vport_pk[i].keys = vp->pkeys;
			d->vport_pk[i].cap = vp->pkeys ? vp->pkey_cap : 0;
		}
		v.vport_pk = d->vport_pk;
	}
	sa_set_view(d->sa, &v);
	free(old_pk);
	/* what the QoS port groups hold, once per policy (ibsmd -nv cannot
	 * know without a fabric) */
	if (d->qos_policy != NULL && !d->qos_counted) {
		for (size_t g = 0; g < qos_policy_groups(d->qos_policy); g++)
			log_info("qos: port-group %s: %zu end ports",
			    qos_group_name(d->qos_policy, g), sa_sl_group_ports(&v, g));
		d->qos_counted = true;
	}
}

/* The stats file: the status document (ibsmctl status), flat; and
 * systemd's STATUS= line from the same. */
void
daemon_stats_file(void *arg, FILE *fp)
{
	struct daemon *d = arg;
	struct ctl_status cs;

	if (d->cd.sweep == NULL)
		return;         /* not yet: the loop has not run */
	ctl_status_get(&d->cd, &cs);
	show_status_flat(&cs.st, fp);
	{
		/* STATUS= is refreshed with the file (every sweep) */
		char line[512];

		show_status_line(&cs.st, line, sizeof(line));
		sdnotify_status(line);
	}
	ctl_status_free(&cs);
}

void
daemon_on_adopt(void *arg)
{
	struct daemon *d = arg;

	/* No trees while the SA moves to the new model (it drops the members
	 * of ports that left, with traps 67, and names the MLIDs changed);
	 * then every tree over the new model. */
	sm_mcast_set_fabric(d->mcast, NULL);
	/* the model a round of port tables compares with may go now */
	devread_adopt(d->devread, sweep_fabric(d->sweep));
	daemon_sa_view_update(arg);
	sm_mcast_set_vports(d->mcast, sweep_vports(d->sweep));
	sm_mcast_set_fabric(d->mcast, sweep_fabric(d->sweep));
}

/* The SA answers as master once a heavy sweep completed as master. */
static void
sa_serving_update(struct daemon *d)
{
	if (smstate_state(d->ss) != SM_MASTER)
		d->sa_swept = false;
	if (d->sa != NULL)
		sa_set_serving(d->sa, d->sa_swept);
}

static const struct mcast_mft *
dump_mft(void *arg, uint64_t node_guid)
{
	return sm_mcast_mft(arg, node_guid);
}

/* OpenSM's dump files into dump_files_dir, after a sweep that brought the
 * subnet up as master; a failure is said when it starts and ends. */
static void
write_dumps(struct daemon *d)
{
	char g2l[4200], why[512];
	struct dump_in in = { .f = sweep_fabric(d->sweep),
	    .lft = sweep_lft(d->sweep), .mft = dump_mft,
	    .mft_arg = d->mcast, .guid2lid = g2l };

	if (d->cfg.dump_files_dir[0] == '\0' || in.f == NULL)
		return;
	snprintf(g2l, sizeof(g2l), "%s/guid2lid", d->state_dir);
	if (dump_write(d->cfg.dump_files_dir, &in, why, sizeof(why)) < 0) {
		if (!d->dump_failing)
			log_warnx("dump_files_dir: %s (said again when it "
			    "works)", why);
		d->dump_failing = true;
	} else if (d->dump_failing) {
		log_info("dump_files_dir: %s written again",
		    d->cfg.dump_files_dir);
		d->dump_failing = false;
	}
}

/* ---- the steps after an up as master (sm/upkeep) */

static void
mcast_settled(void *arg)
{
	struct daemon *d = arg;

	upkeep_settled(d->upkeep, UPKEEP_MCAST);
}

static bool
upkeep_mcast(void *arg)
{
	struct daemon *d = arg;

	return sm_mcast_program(d->mcast, mcast_settled, d);
}

static void
alias_settled(void *arg)
{
	struct daemon *d = arg;

	upkeep_settled(d->upkeep, UPKEEP_ALIAS);
}

/* Devices hold the alias GUIDs assigned (restart, takeover, a port
 * back). */
static bool
upkeep_alias(void *arg)
{
	struct daemon *d = arg;

	return d->vg != NULL && vfguid_program(d->vg, alias_settled, d);
}

/* qos_config.sl2vl_fn: a VL-layered routing's part of each SL-to-VL
 * table (its engine's update_sl2vl: the layers' SLs on their VLs),
 * applied to the table the qos options give before it is masked to the
 * output port's OperationalVLs. No change for a routing of one layer. */
static void
layered_sl2vl(void *arg, const struct fabric *f, uint32_t port, unsigned in,
    uint8_t t[QOS_SL2VL_BYTES])
{
	const struct daemon *d = arg;
	const struct route_layers *lay = sweep_layers_of(d->sweep, f);
	uint8_t map[ROUTE_SLS];

	if (lay == NULL)
		return;
	for (unsigned sl = 0; sl < ROUTE_SLS; sl++)
		map[sl] = (uint8_t)qos_sl2vl_get(t, sl);
	routing_update_sl2vl(lay, f, f->ports[port].node, (uint8_t)in,
	    f->ports[port].num, map);
	for (unsigned sl = 0; sl < ROUTE_SLS; sl += 2)
		t[sl / 2] = (uint8_t)((map[sl] & 0xf) << 4 | (map[sl + 1] & 0xf));
}

static void
qos_written(void *arg)
{
	program_resume(arg);
}

/* program_opts.before_activate (qos on): every port's SL-to-VL and VL
 * arbitration tables written, by directed route, before a port goes
 * Active (OpenSM writes them before it arms the ports), so that no port
 * carries data on tables the options and the routing's layers do not
 * give; then the ports go Active. The
 * round after the subnet is up (upkeep_finish) then finds them known and
 * equal. */
void
daemon_qos_before_activate(void *arg, struct programmer *pr, struct fabric *f)
{
	struct daemon *d = arg;

	if (d->devread == NULL) {
		program_resume(pr);
		return;
	}
	devread_qos_dr(d->devread, f, &d->qos, qos_written, pr);
}

/* d->qos from the configuration (at start and each reload, by
 * reload_sweep_opts), with a VL-layered routing's part of each table. */
void
daemon_qos_build(struct daemon *d)
{
	reload_qos_config(&d->cfg, &d->qos);
	d->qos.sl2vl_fn = layered_sl2vl;
	d->qos.sl2vl_arg = d;
}

static void
upkeep_finish(void *arg)
{
	struct daemon *d = arg;

	write_dumps(d);
	/* what the SA's SL2VL, VLArb and P_Key records need and the store
	 * lacks, beside the sweeps */
	devread_start(d->devread, sweep_fabric(d->sweep),
	    sweep_pkeys(d->sweep), d->cfg.partition_enforcement !=
	    CFG_ENFORCE_OFF, &d->qos);
	perfmgr_start(d->perfmgr);
	notify_ready(d);
	daemon_notify_status(d);
}

struct upkeep *
daemon_upkeep_new(struct daemon *d)
{
	const struct upkeep_hooks h = {
		.arg = d, .mcast = upkeep_mcast, .alias = upkeep_alias,
		.finish = upkeep_finish,
	};

	return upkeep_new(&h);
}

void
daemon_on_up(void *arg, bool ok, const char *why)
{
	struct daemon *d = arg;

	if (d->once) {
		/* no steps after the up: the loop ends here (the dump files
		 * are still written, as before the steps were a machine) */
		if (ok && smstate_state(d->ss) == SM_MASTER)
			write_dumps(d);
		d->exit_code = ok ? EXIT_OK : EXIT_FAIL;
		if (!ok) {
			fprintf(stderr, "ibsmd: subnet not up: %s\n", why);
			sweep_unreached(d->sweep, print_unreached, NULL);
		}
		ev_break(d->loop, EVBREAK_ALL);
		return;
	}
	if (ok && smstate_state(d->ss) == SM_MASTER) {
		/* the SA answers at once (hosts join again after
		 * ClientReregister); the tables follow in order */
		d->sa_swept = true;
		upkeep_up(d->upkeep);
	}
	sa_serving_update(d);
	daemon_notify_status(d);
}

const struct fabric *
daemon_fabric(void *arg)
{
	struct daemon *d = arg;

	return sweep_fabric(d->sweep);
}

_Static_assert(CFG_PERFMGR_NTHRESHOLDS == PC_NERRORS,
    "a perfmgr_threshold_* option for each error counter");

static void
key_view(void *arg, const struct fabric **fresh, const struct fabric **cur)
{
	struct daemon *d = arg;

	*fresh = *cur = NULL;
	if (d->sweep != NULL)
		sweep_key_view(d->sweep, fresh, cur);
}

void
daemon_keys(struct daemon *d)
{
	struct mkey_cfg c = { .key = d->cfg.m_key,
	    .per_port = d->cfg.m_key_per_port,
	    .takeover = d->cfg.m_key_takeover };
	char path[4200];

	if (d->mkeys == NULL) {
		snprintf(path, sizeof(path), "%s/mkey_neighbors", d->state_dir);
		d->mkeys = mkeys_new(key_view, d, d->guid, path);
		smp_set_mkey_source(mkeys_header, mkeys_known, d->mkeys);
	}
	mkeys_configure(d->mkeys, &c);
	/* SMInfo requesters that pass our own port's key check see our
	 * SM_Key (sm/sminfo.c) */
	if (d->sm != NULL)
		sminfo_set_mkey(d->sm, mkey_for_port(c.key, c.per_port,
		    d->guid));
}

void
daemon_perfmgr_opts(struct daemon *d)
{
	perfmgr_set_opts(d->perfmgr, d->cfg.perfmgr,
	    d->cfg.perfmgr_sweep_time_s, d->cfg.perfmgr_clear_saturated);
	perfmgr_set_thresholds(d->perfmgr, d->cfg.perfmgr_threshold);
	if (d->sa_swept && smstate_state(d->ss) == SM_MASTER)
		perfmgr_start(d->perfmgr);
}

/* The SM state machine moved: say so to systemd; a STANDBY has found its
 * master, which is as ready as it gets. */
static void
on_sm_state(void *arg, enum sm_state from, enum sm_state to, const char *why)
{
	struct daemon *d = arg;

	(void)from;
	if (d->once && to == SM_STANDBY) {
		fprintf(stderr, "ibsmd: not master: %s\n", why);
		d->exit_code = EXIT_FAIL;
		ev_break(d->loop, EVBREAK_ALL);
		return;
	}
	if (to == SM_STANDBY)
		notify_ready(d);
	if (to != SM_MASTER) {
		upkeep_stop(d->upkeep);
		sm_mcast_forget(d->mcast);
		devread_stop(d->devread);
		perfmgr_stop(d->perfmgr);
	}
	if (sweep_fabric(d->sweep) != NULL)
		sa_sms_refresh(d);
	sa_serving_update(d);
	daemon_notify_status(d);
	sweep_write_stats(d->sweep);
}

/* Another SM's SMInfo changed: the status document lists the SMs. */
static void
on_sm_peers(void *arg)
{
	struct daemon *d = arg;

	daemon_notify_status(d);
	sweep_write_stats(d->sweep);
}

static void
on_sm_foreign(void *arg)
{
	struct daemon *d = arg;

	sweep_forget(d->sweep);
}

static void
on_sm_sweep(void *arg)
{
	struct daemon *d = arg;

	sweep_request(d->sweep, true);
}

#define VPORT_SETTLE_S 0.2      /* quiet time after a vport trap */

static void
on_vport_settle(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct daemon *d = w->data;

	(void)loop;
	(void)revents;
	ev_timer_stop(d->loop, w);
	/* a state change (1146) latches VPortStateChange, which the light
	 * sweep's poll turns into a vport sweep; a capability or
	 * description change (1144) is read by a heavy sweep */
	sweep_request(d->sweep, d->vport_heavy);
	d->vport_heavy = false;
}

void
daemon_on_trap(void *arg, unsigned trap, uint16_t issuer)
{
	struct daemon *d = arg;
	const struct fabric *f = sweep_fabric(d->sweep);
	uint32_t p = f != NULL ? fabric_port_by_lid(f, issuer) : FABRIC_NONE;
	char name[128];

	/* Bad M_Key: sm/mkeys names the port and the requester */
	if (trap == MKEY_TRAP_BAD_MKEY)
		return;
	/* Name the issuer from the model in use (its LID is the switch's
	 * or the CA port's). */
	if (p != FABRIC_NONE && f->nodes[f->ports[p].node].type == NODE_SWITCH)
		log_info("trap %u from %s (LID %u)", trap, query_node_text(f,
		    f->ports[p].node, name, sizeof(name)), issuer);
	else if (p != FABRIC_NONE)
		log_info("trap %u from %s port %u (LID %u)", trap,
		    query_node_text(f, f->ports[p].node, name, sizeof(name)),
		    f->ports[p].num, issuer);
	else
		log_info("trap %u from LID %u, not in the fabric in use", trap,
		    issuer);
	/* Link state changes (128) and port capability changes (144) can
	 * change the topology or what must be programmed. */
	if (trap == 128 || trap == 144)
		sweep_request(d->sweep, true);
	/* vendor vport traps (1144 capability or description, 1146 state):
	 * a sweep at once, unless virtualization is off; the traps of one
	 * hypervisor action (a migration is a stop on one host and a start
	 * on another) are let settle briefly, so that one sweep sees the
	 * whole move and rewrites each switch's entry once */
	if ((trap == VATTR_TRAP_VPORT_CHANGE || trap == VATTR_TRAP_VPORT_STATE) &&
	    d->cfg.virt_mode != CFG_VIRT_OFF) {
		if (trap == VATTR_TRAP_VPORT_CHANGE)
			d->vport_heavy = true;
		ev_timer_again(d->loop, &d->vport_settle);
	}
}

static void
lease_read(void *arg, int status, const uint8_t *resp)
{
	(void)arg;
	(void)status;
	(void)resp;
}

/* Trap 256: say who presented a wrong M_Key where, and answer the port
 * with its own key (a PortInfo Get), which stops the lease the wrong key
 * started, as the spec means the SM to (IBA 14.2.4.2): a host cannot run
 * a port's protection out by failing on purpose. */
static void
bad_key(struct daemon *d, const uint8_t *notice)
{
	const struct fabric *f = sweep_fabric(d->sweep);
	struct mkey_trap t;
	uint32_t p;
	struct timespec ts;

	if (mkey_trap_decode(notice, &t) < 0 || d->mkeys == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mkeys_bad_key(d->mkeys, f, &t, (double)ts.tv_sec + ts.tv_nsec / 1e9);
	if (!smstate_may_write(d->ss) || f == NULL ||
	    (p = fabric_port_by_lid(f, t.issuer)) == FABRIC_NONE ||
	    f->ports[mkey_managed(f, p)].mkey_foreign)
		return;
	{
		struct smp_req r = {
			.method = MAD_GET, .attr = ATTR_PORT_INFO,
			.mod = f->nodes[f->ports[p].node].type == NODE_SWITCH ?
			    0 : f->ports[p].num,
			.dlid = t.issuer, .dest = f->nodes[f->ports[p].node].guid,
		};

		if (smp_request(d->mad, &r, lease_read, NULL) < 0)
			log_debug("mkey: lease read of LID %u not sent",
			    t.issuer);
	}
}

/* Every trap received goes to the InformInfo subscribers asking for it
 * (sa/inform decides which are forwarded; only a serving master does);
 * trap 256 to sm/mkeys first. */
void
daemon_on_trap_notice(void *arg, const uint8_t *notice, uint16_t slid)
{
	struct daemon *d = arg;

	if (mad_get_field((void *)notice, 0, IB_NOTICE_TRAP_NUMBER_F) ==
	    MKEY_TRAP_BAD_MKEY)
		bad_key(d, notice);
	if (d->sa != NULL)
		sa_inform_trap(d->sa, notice, slid);
}

static const struct pkey_policy *
policy_in_force(void *arg)
{
	return ((struct daemon *)arg)->policy;
}

static char *
partitions_text(void *arg)
{
	struct daemon *d = arg;

	return d->policy ? pkey_policy_format(d->policy, sweep_fabric(d->sweep)) :
	    NULL;
}

void
daemon_vport_settle_init(struct daemon *d)
{
	ev_init(&d->vport_settle, on_vport_settle);
	d->vport_settle.repeat = VPORT_SETTLE_S;
	d->vport_settle.data = d;
}

void
daemon_smstate_hooks(struct daemon *d, struct smstate_hooks *h)
{
	*h = (struct smstate_hooks){ .sweep = on_sm_sweep,
	    .changed = on_sm_state, .foreign = on_sm_foreign,
	    .peers = on_sm_peers, .arg = d };
}

void
daemon_ctl_deps(struct daemon *d)
{
	d->cd = (struct ctl_deps){ .sweep = d->sweep, .mad = d->mad,
	    .sm = d->sm, .ss = d->ss, .sa = d->sa, .vg = d->vg,
	    .port_guid = d->guid, .reload = reload_run,
	    .partitions = partitions_text, .arg = d, .mcast = d->mcast,
	    .perfmgr = d->perfmgr, .mkeys = d->mkeys,
	    .policy = policy_in_force, .note = status_note };
}
