/*
 * ibsmd: an InfiniBand subnet manager. One instance drives one local port:
 * it discovers the fabric, assigns LIDs, routes, programs the switches and
 * keeps the subnet up. Foreground, one libev loop.
 *
 * Configuration: built-in defaults < /etc/ibsmd/ibsmd.conf < the
 * per-instance /etc/ibsmd/ibsmd.<port-guid>.conf (or only -c FILE) < the
 * command line. The partition policy comes from partitions_file. Both are
 * all-or-nothing: at start a mistake stops us, at reload (SIGHUP, ibsmctl
 * reload) it changes nothing.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <ev.h>
#include <infiniband/mad.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "config/config.h"
#include "config/opensm.h"
#include "sm/ctl.h"
#include "sm/devread.h"
#include "mcast/group.h"
#include "sm/mcast.h"
#include "core/log.h"
#include "core/query.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "partitions/partitions.h"
#include "routing/routing.h"
#include "sa/inform.h"
#include "sa/mcmember.h"
#include "sa/sa.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "core/alias.h"
#include "core/alloc.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "sm/vfguid.h"
#include "sm/dump.h"
#include "core/nodemap.h"
#include "mad/transport.h"

/* Exit codes (documented in ibsmd(8)). EXIT_USAGE is every mistake of
 * the command line or the configuration at start, the partitions file and
 * the log file included: ibsmd@.service does not restart on it
 * (RestartPreventExitStatus), since no restart mends a file. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_LOCKED = 3 };

#define MAX_CLI 64
#define SA_SMS_MAX 16
#define PARTITIONS_MAX_BYTES (16u << 20)	/* see ibsmd(8) */

struct daemon {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct smstate *ss;
	struct sminfo *sm;
	struct sweep *sweep;
	struct sa *sa;
	struct pkey_table *vport_pk;    /* the SA view's vport tables */
	struct vfguid *vg;      /* VF alias GUIDs; NULL unless
				 * virtualization.mode is enabled */
	struct sm_mcast *mcast;  /* groups, trees, MFTs */
	struct devread *devread; /* port tables for the SA's records */
	/* SMs for the SA's SMInfoRecords: this one first; refreshed in place
	 * whenever the SM state changes or a view is handed over */
	struct sa_sm sms[SA_SMS_MAX];
	size_t nsms;
	bool sa_swept;          /* a complete heavy sweep as master */
	struct ctl *ctl;
	struct ctl_deps cd;     /* what ctl, STATUS= and the stats file read */
	char note[256];         /* STATUS= and status: "last reload rejected..." */
	struct node_names *names;       /* node_name_map in force, or NULL */
	bool dump_failing;      /* the last dump_files_dir write failed (said) */
	ev_signal sig_term, sig_int, sig_hup, sig_usr1;
	ev_timer watchdog;
	ev_timer vport_settle;  /* vendor vport traps, coalesced */
	bool vport_heavy;       /* one of them was a 1144 */
	/* what the command line said: replayed over every (re)load */
	const char *config_file;        /* -c, or NULL */
	const char *config_dir;         /* --config-dir */
	struct { const char *name; const char *value; } cli[MAX_CLI];
	size_t ncli;
	bool once, check, verbose, list_ports;
	bool leaving;           /* SIGTERM: handing over before exiting */
	const char *convert;            /* --convert-opensm-conf FILE */
	/* running state */
	uint64_t guid;
	struct ibsmd_config cfg;
	struct pkey_policy *policy;
	char state_dir[4096], runtime_dir[4096];
	bool ready_sent;
	int exit_code;
};

static void
usage(FILE *fp)
{
	fprintf(fp,
"usage: ibsmd [options]\n"
"  -c, --config FILE          read only FILE (default: DIR/ibsmd.conf, then\n"
"                             DIR/ibsmd.<port-guid>.conf)\n"
"      --config-dir DIR       where those two live (default " IBSMD_SYSCONFDIR ")\n"
"  -n, --check                check configuration and partitions, then exit\n"
"  -v, --verbose              with -n: print both, normalized\n"
"  -g, --guid GUID            port to drive (default: the first InfiniBand port)\n"
"  -o, --once                 sweep until the subnet is up, then exit 0 (1:\n"
"                             not up, naming what could not be reached)\n"
"  -s, --sweep-interval SEC   light sweep period, 0.1 to 86400 seconds (default\n"
"                             10; 0 = off)\n"
"  -d, --state-dir DIR        state (guid2lid, alias_guids, stats) (default " IBSMD_STATEDIR "/<port-guid>)\n"
"  -r, --runtime-dir DIR      lock and control socket (default " IBSMD_RUNDIR ")\n"
"  -R, --routing-engine LIST  routing engines to try in order (default\n"
"                             ftree,updn): ftree, updn, minhop\n"
"  -P, --partitions FILE      partitions.conf (default " IBSMD_SYSCONFDIR "/partitions.conf)\n"
"      --allow-both-pkeys     '=both' members get full and limited P_Keys\n"
"      --partition-enforcement MODE  both, in, out or off (default both)\n"
"      --virtualization MODE  SR-IOV: off, disabled or enabled (default off)\n"
"  -p, --priority N           SM priority 0-15 (default 0)\n"
"  -l, --log-level LEVEL      error, warn, info or debug (default info)\n"
"  -f, --log-file FILE        log to FILE, 'syslog' or '-' for stderr (default -)\n"
"      --max-wire-smps N      SMPs outstanding overall (default 64)\n"
"      --max-smps-per-node N  SMPs outstanding to one node (default 4)\n"
"      --smp-timeout MS       time to wait for an SMP answer (default 200)\n"
"      --smp-retries N        retries of an unanswered SMP (default 3)\n"
"  -O, --option NAME=VALUE    set any ibsmd.conf option (repeatable)\n"
"      --list-ports           print the port GUIDs of the instances to run\n"
"      --convert-opensm-conf FILE  print FILE (an opensm.conf) as an ibsmd.conf\n"
"  -h, --help                 this help\n"
"  -V, --version              print the version\n");
}

/* Errors, then the notes on values read another way than written. */
static void
print_errors(const struct config_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(stderr, "%s\n", e->line[i]);
	for (size_t i = 0; i < e->nnotes; i++)
		fprintf(stderr, "%s\n", e->note[i]);
}

/* An error of our own among the loader's, in the same list. */
static void __attribute__((format(printf, 2, 3)))
add_error(struct config_errors *errs, const char *fmt, ...)
{
	char *line;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	errs->line = realloc(errs->line, (errs->n + 1) * sizeof(*errs->line));
	if (errs->line == NULL)
		fatal("out of memory");
	errs->line[errs->n++] = line;
}

/* Defaults, then the files, then the command line, into out. guid names
 * the per-instance file (0: none). */
static int
build_config(const struct daemon *d, uint64_t guid, struct ibsmd_config *out,
    struct config_errors *errs)
{
	char inst[4096];
	int rc = 0;

	config_init(out);
	if (d->config_file != NULL) {
		rc = config_load(out, d->config_file, CFG_CONFIG_FILE, errs);
		if (rc == CONFIG_MISSING) {
			add_error(errs, "%s: no such file", d->config_file);
			rc = CONFIG_INVALID;
		}
	} else {
		snprintf(inst, sizeof(inst), "%s/ibsmd.conf", d->config_dir);
		rc = config_load(out, inst, CFG_COMMON_FILE, errs);
		snprintf(inst, sizeof(inst), "%s/ibsmd.0x%016" PRIx64 ".conf",
		    d->config_dir, guid);
		if (rc != CONFIG_INVALID && guid != 0 &&
		    config_load(out, inst, CFG_INSTANCE_FILE, errs) ==
		    CONFIG_INVALID)
			rc = CONFIG_INVALID;
	}
	for (size_t i = 0; i < d->ncli; i++)
		if (config_set(out, d->cli[i].name, d->cli[i].value, CFG_CMDLINE,
		    errs) != CONFIG_OK)
			rc = CONFIG_INVALID;
	return rc == CONFIG_INVALID ? -1 : 0;
}

/* What the parser noticed in a valid file (a Default partition added, a
 * P_Key picked for a name...): worth saying, not worth refusing. */
static void
log_notes(const struct pkey_errors *errs)
{
	const char *file = errs->file ? errs->file : "partitions.conf";
	char at[64];

	for (size_t i = 0; i < errs->n; i++) {
		const struct pkey_msg *m = &errs->msgs[i];

		/* the log's level says warning or note: no second tag */
		at[0] = '\0';
		if (m->line != 0)
			snprintf(at, sizeof(at), ":%u:%u", m->line, m->col);
		if (m->level == PKEY_MSG_WARNING)
			log_warnx("partitions: %s%s: %s", file, at, m->text);
		else
			log_info("partitions: %s%s: %s", file, at, m->text);
	}
}

/* A partition's sl= is not used while ibsmd programs no SL-to-VL
 * mapping (sa/sa.h SA_SL_NO_QOS): say so, naming each partition. */
static void
log_unused_sl(const char *file, const struct pkey_policy *p)
{
	for (size_t i = 0; i < pkey_policy_count(p); i++) {
		const struct pkey_partition *pt = pkey_policy_get(p, i);

		if ((pt->flags.set & PKEY_GF_SL) && pt->flags.sl != SA_SL_NO_QOS)
			log_warnx("partitions: %s:%u: partition %s (0x%04x): "
			    "sl=%u not used, its paths and multicast groups "
			    "get SL %u: ibsmd programs no SL-to-VL mapping "
			    "(no QoS), as OpenSM without QoS", file, pt->line,
			    pt->name != NULL ? pt->name : "(unnamed)",
			    pt->pkey, pt->flags.sl, SA_SL_NO_QOS);
	}
}

/* The partition policy named by cfg: a missing file means the default
 * partition only. NULL with errs filled when the file has mistakes, or with
 * "file: reason" in ce when it cannot be read (not a regular file, too
 * large: config_read_file never blocks). */
static struct pkey_policy *
load_policy(const struct ibsmd_config *cfg, struct pkey_errors *errs,
    bool *missing, struct config_errors *ce)
{
	struct pkey_policy *p;
	char why[160], *text;
	size_t len = 0;
	int r;

	*missing = false;
	r = config_read_file(cfg->partitions_file, PARTITIONS_MAX_BYTES, &text,
	    &len, why, sizeof(why));
	if (r == CONFIG_MISSING) {
		*missing = true;
		return pkey_policy_default();
	}
	if (r != CONFIG_OK) {
		add_error(ce, "%s: %s", cfg->partitions_file, why);
		return NULL;
	}
	p = pkey_policy_parse(cfg->partitions_file, text, len, errs);
	free(text);
	if (p != NULL) {
		log_notes(errs);
		log_unused_sl(cfg->partitions_file, p);
	}
	return p;
}

static void
names_error(void *arg, const char *line)
{
	add_error(arg, "%s", line);
}

/* The node name map cfg names (*out NULL when none is): 0, or -1 with
 * every mistake, or why it cannot be read, in ce. */
static int
load_names(const struct ibsmd_config *cfg, struct node_names **out,
    struct config_errors *ce)
{
	char why[160], *text;
	size_t len = 0;
	int r;

	*out = NULL;
	if (cfg->node_name_map[0] == '\0')
		return 0;
	r = config_read_file(cfg->node_name_map, CONFIG_MAX_BYTES * 16, &text,
	    &len, why, sizeof(why));
	if (r != CONFIG_OK) {
		add_error(ce, "%s: %s (node_name_map)", cfg->node_name_map,
		    r == CONFIG_MISSING ? "no such file" : why);
		return -1;
	}
	r = node_names_parse(cfg->node_name_map, text, len, out, names_error,
	    ce) > 0 ? -1 : 0;
	free(text);
	return r;
}

static const char *
sweep_engines(const struct ibsmd_config *cfg, struct sweep_opts *so)
{
	so->nchain = 0;
	for (size_t i = 0; i < cfg->routing_engine.n && i < SWEEP_MAX_ENGINES;
	    i++) {
		const struct routing_engine *re =
		    routing_engine_find(cfg->routing_engine.name[i]);

		if (re == NULL)
			return cfg->routing_engine.name[i];
		so->chain[so->nchain++] = re;
	}
	return NULL;
}

/* The sweep's options from the running configuration and policy. */
static void
sweep_opts_from(const struct daemon *d, struct sweep_opts *so)
{
	static const int enforce_bits[] = {
		[CFG_ENFORCE_BOTH] = 3, [CFG_ENFORCE_IN] = 1,
		[CFG_ENFORCE_OUT] = 2, [CFG_ENFORCE_OFF] = 0,
	};
	const struct ibsmd_config *c = &d->cfg;

	memset(so, 0, sizeof(*so));
	so->interval = c->sweep_interval;
	so->state_dir = d->state_dir;
	so->lmc = (uint8_t)c->lmc;
	so->prog.subnet_prefix = c->subnet_prefix;
	so->prog.mkey = c->m_key;
	so->prog.mkey_lease = (uint16_t)c->m_key_lease_period;
	so->prog.mkey_protect = (uint8_t)c->m_key_protect_bits;
	so->prog.lmc = (uint8_t)c->lmc;
	so->prog.subnet_timeout = 18;
	so->prog.packet_life = 0x12;
	(void)sweep_engines(c, so);
	so->ropts.roots = c->root_guids.guid;
	so->ropts.nroots = c->root_guids.n;
	so->ropts.leaves = c->leaf_guids.guid;
	so->ropts.nleaves = c->leaf_guids.n;
	so->policy = d->policy;
	so->allow_both_pkeys = c->allow_both_pkeys;
	so->enforce = enforce_bits[c->partition_enforcement];
	so->max_failures = d->once ? 3 : 1;
	so->virt_mode = (int)c->virt_mode;
	so->virt_max_ports = c->virt_max_ports;
	so->alias = d->vg != NULL ? vfguid_store(d->vg) : NULL;
}

static void
smstate_opts_from(const struct ibsmd_config *c, struct smstate_opts *o)
{
	o->priority = (uint8_t)c->sm_priority;
	o->sm_key = c->sm_key;
	o->mkey = c->m_key;
	o->poll_interval = c->sm_poll_interval;
	o->poll_retries = c->sm_poll_retries;
}

static void
mad_opts_from(const struct ibsmd_config *c, struct mad_opts *mo)
{
	mo->max_wire = c->max_wire_smps;
	mo->max_per_node = c->max_smps_per_node;
	mo->timeout_ms = c->smp_timeout;
	mo->retries = c->smp_retries;
}

static int
mkdirs(const char *path, mode_t mode)
{
	char buf[4096], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* One instance per port: an flock on <runtime-dir>/<guid>.lock, released by
 * the kernel however we exit. Returns the fd, -1 on error, -2 when held. */
static int
take_lock(const char *dir, uint64_t guid)
{
	char path[4200], pid[32];
	int fd;

	if (mkdirs(dir, 0755) < 0) {
		log_warn("cannot create %s", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/0x%016" PRIx64 ".lock", dir, guid);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		log_warn("cannot open %s", path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = read(fd, pid, sizeof(pid) - 1);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		fprintf(stderr, "ibsmd: port 0x%016" PRIx64 " is already driven "
		    "by another ibsmd (pid %s, lock %s)\n", guid,
		    pid[0] ? pid : "?", path);
		close(fd);
		return -2;
	}
	if (ftruncate(fd, 0) == 0) {
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (write(fd, pid, strlen(pid)) < 0)
			log_debug("cannot write pid to %s", path);
	}
	return fd;
}

/* STATUS= for systemctl status: the line `ibsmctl status` would sum up. */
static void
notify_status(struct daemon *d)
{
#ifdef HAVE_LIBSYSTEMD
	struct ctl_status cs;
	char line[512];

	if (d->cd.sweep == NULL)
		return;
	ctl_status_get(&d->cd, &cs);
	show_status_line(&cs.st, line, sizeof(line));
	ctl_status_free(&cs);
	sd_notifyf(0, "STATUS=%s", line);
#else
	(void)d;
#endif
}

/* A STATUS= before exiting on a start failure (the journal has the rest). */
static void __attribute__((format(printf, 1, 2)))
notify_failure(const char *fmt, ...)
{
#ifdef HAVE_LIBSYSTEMD
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", line);
#else
	(void)fmt;
#endif
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
#ifdef HAVE_LIBSYSTEMD
	if (!d->ready_sent) {
		sd_notify(0, "READY=1");
		d->ready_sent = true;
	}
#else
	(void)d;
#endif
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

static void
sa_opts_mcast(struct daemon *d, struct sa_opts *o)
{
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
 * their keys), so one the policy names means a heavy sweep (coalesced with others). */
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

/* Hand the SA the model in use (the sweep calls this while the previous
 * model, which the SA may still name, is allocated). */
static void
sa_view_update(struct daemon *d)
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
	v.pk = sweep_pkeys(d->sweep);
	v.policy = d->policy;
	v.devtab = devread_tables(d->devread);
	v.enforce_tables = d->cfg.partition_enforcement != CFG_ENFORCE_OFF;
	v.subnet_prefix = d->cfg.subnet_prefix;
	v.sm_lid = d->sms[0].lid;
	v.sms = d->sms;
	v.nsms = d->nsms;
	if (d->vg != NULL) {
		vfguid_set_fabric(d->vg, f, false);
		v.alias = vfguid_store(d->vg);
		v.alias_changed = on_alias_changed;
		v.alias_arg = d;
	}
	old_pk = d->vport_pk;
	d->vport_pk = NULL;
	if ((v.vports = sweep_vports(d->sweep)) != NULL) {
		/* each vport's own table, as the SA's scope reads tables */
		d->vport_pk = xcalloc(v.vports->n ? v.vports->n : 1,
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
}

/* The stats file: the status document (ibsmctl status), flat; and
 * systemd's STATUS= line from the same. */
static void
stats_file(void *arg, FILE *fp)
{
	struct daemon *d = arg;
	struct ctl_status cs;

	if (d->cd.sweep == NULL)
		return;         /* not yet: the loop has not run */
	ctl_status_get(&d->cd, &cs);
	show_status_flat(&cs.st, fp);
#ifdef HAVE_LIBSYSTEMD
	{
		/* STATUS= is refreshed with the file (every sweep) */
		char line[512];

		show_status_line(&cs.st, line, sizeof(line));
		sd_notifyf(0, "STATUS=%s", line);
	}
#endif
	ctl_status_free(&cs);
}


static void
on_adopt(void *arg)
{
	struct daemon *d = arg;

	/* No trees while the SA moves to the new model (it drops the members
	 * of ports that left, with traps 67, and names the MLIDs changed);
	 * then every tree over the new model. */
	sm_mcast_set_fabric(d->mcast, NULL);
	sa_view_update(arg);
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

static void
on_up(void *arg, bool ok, const char *why)
{
	struct daemon *d = arg;

	if (ok && smstate_state(d->ss) == SM_MASTER)
		write_dumps(d);
	if (d->once) {
		d->exit_code = ok ? EXIT_OK : EXIT_FAIL;
		if (!ok) {
			fprintf(stderr, "ibsmd: subnet not up: %s\n", why);
			sweep_unreached(d->sweep, print_unreached, NULL);
		}
		ev_break(d->loop, EVBREAK_ALL);
		return;
	}
	if (ok && smstate_state(d->ss) == SM_MASTER) {
		sm_mcast_program(d->mcast, d->cfg.m_key);
		d->sa_swept = true;
		/* what the SA's SL2VL, VLArb and P_Key records need and
		 * the store lacks, beside the sweeps */
		devread_start(d->devread, sweep_fabric(d->sweep),
		    sweep_pkeys(d->sweep), d->cfg.partition_enforcement !=
		    CFG_ENFORCE_OFF, d->cfg.m_key);
		/* Devices hold the alias GUIDs assigned (restart, takeover,
		 * a port back). */
		if (d->vg != NULL)
			vfguid_set_fabric(d->vg, sweep_fabric(d->sweep), true);
		notify_ready(d);
	}
	sa_serving_update(d);
	notify_status(d);
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
		sm_mcast_forget(d->mcast);
		devread_stop(d->devread);
	}
	if (sweep_fabric(d->sweep) != NULL)
		sa_sms_refresh(d);
	sa_serving_update(d);
	notify_status(d);
	sweep_write_stats(d->sweep);
}

/* Another SM's SMInfo changed: the status document lists the SMs. */
static void
on_sm_peers(void *arg)
{
	struct daemon *d = arg;

	notify_status(d);
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

static void
on_trap(void *arg, unsigned trap, uint16_t issuer)
{
	struct daemon *d = arg;
	const struct fabric *f = sweep_fabric(d->sweep);
	uint32_t p = f != NULL ? fabric_port_by_lid(f, issuer) : FABRIC_NONE;
	char name[128];

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

/* Every trap received goes to the InformInfo subscribers asking for it
 * (sa/inform decides which are forwarded; only a serving master does). */
static void
on_trap_notice(void *arg, const uint8_t *notice, uint16_t slid)
{
	struct daemon *d = arg;

	if (d->sa != NULL)
		sa_inform_trap(d->sa, notice, slid);
}

struct diff_ctx {
	char restart[1024];
};

static void
on_diff(void *arg, const struct cfg_option *opt,
    const struct ibsmd_config *cur, const struct ibsmd_config *next)
{
	struct diff_ctx *dc = arg;
	char a[256], b[256];

	config_value_text(cur, opt, a, sizeof(a));
	config_value_text(next, opt, b, sizeof(b));
	if (opt->reloadable) {
		log_info("reload: %s: %s -> %s", opt->name, a, b);
		return;
	}
	if (dc->restart[0])
		strncat(dc->restart, ", ", sizeof(dc->restart) -
		    strlen(dc->restart) - 1);
	strncat(dc->restart, opt->name, sizeof(dc->restart) -
	    strlen(dc->restart) - 1);
}

static char *
join_errors(const struct config_errors *ce, const struct pkey_errors *pe)
{
	size_t len = 1;
	char *out, *pt = pe ? pkey_errors_text(pe, false) : NULL;

	for (size_t i = 0; i < ce->n; i++)
		len += strlen(ce->line[i]) + 1;
	len += pt ? strlen(pt) : 0;
	if ((out = malloc(len)) == NULL)
		fatal("out of memory");
	out[0] = '\0';
	for (size_t i = 0; i < ce->n; i++) {
		strcat(out, ce->line[i]);
		strcat(out, "\n");
	}
	if (pt)
		strcat(out, pt);
	free(pt);
	return out;
}

static void
log_pkey_diff(void *arg, const char *line)
{
	(void)arg;
	log_info("reload: partitions: %s", line);
}

/* Every error of a rejected reload as a log line of its own, so that each
 * carries the log's timestamp and level (a file, syslog). */
static void
log_rejected(const char *text)
{
	const char *p = text, *nl;
	unsigned n = 0;

	for (p = text; *p != '\0'; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		n += nl > p;
	}
	log_warnx("reload: rejected, nothing changed: %u error%s", n,
	    n == 1 ? "" : "s");
	for (p = text; *p != '\0'; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if (nl > p)
			log_warnx("reload: %.*s", (int)(nl - p), p);
	}
}

/* Re-read configuration and partitions; apply all of it or nothing. */
static int
reload(void *arg, char **errors)
{
	struct daemon *d = arg;
	struct ibsmd_config next;
	struct config_errors ce = { 0 };
	struct pkey_errors pe;
	struct pkey_policy *pol = NULL;
	struct node_names *names = NULL;
	struct diff_ctx dc = { .restart = "" };
	struct sweep_opts so;
	struct mad_opts mo;
	struct smstate_opts sso;
	const char *bad;
	bool missing = false;
	int rc = -1;

	pkey_errors_init(&pe);
	if (build_config(d, d->guid, &next, &ce) == 0 &&
	    (bad = sweep_engines(&next, &so)) != NULL) {
		add_error(&ce, "routing_engine: %s is not built into this ibsmd",
		    bad);
	} else if (ce.n == 0 &&
	    (pol = load_policy(&next, &pe, &missing, &ce)) != NULL) {
		rc = load_names(&next, &names, &ce);
		if (rc < 0) {
			pkey_policy_free(pol);
			pol = NULL;
		}
	}
	if (rc < 0) {
		char *text = join_errors(&ce, &pe);
		unsigned nerr = 0;

		for (const char *p = text; *p; p++)
			nerr += *p == '\n';
		snprintf(d->note, sizeof(d->note), "last reload rejected (%u "
		    "error%s%s), running configuration and partitions kept",
		    nerr, nerr == 1 ? "" : "s", pe.nerrors ? ", partitions" :
		    "");
		log_rejected(text);
		notify_status(d);
		if (errors != NULL)
			*errors = text;
		else
			free(text);
		config_fini(&next);
		config_errors_fini(&ce);
		pkey_errors_fini(&pe);
		return -1;
	}
	for (size_t i = 0; i < ce.nnotes; i++)
		log_info("reload: %s", ce.note[i]);
	config_reload_diff(&d->cfg, &next, on_diff, &dc);
	if (dc.restart[0])
		log_warnx("reload: changed but only applied after a restart: %s",
		    dc.restart);
	if (strcmp(d->cfg.log_file, next.log_file) != 0) {
		log_fini();
		if (log_init("ibsmd", next.log_file, next.log_level) < 0)
			log_init("ibsmd", NULL, next.log_level);
	}
	config_apply_reloadable(&d->cfg, &next);
	config_fini(&next);
	/* the new names from now on (NULL: descriptions again) */
	node_names_use(names);
	node_names_free(d->names);
	d->names = names;
	if (names != NULL)
		log_info("reload: node_name_map %s: %zu names",
		    d->cfg.node_name_map, node_names_count(names));
	{
		struct pkey_policy *old = d->policy;
		struct sa_opts sao;

		/* The SA's view names the policy: move it to the new one
		 * before the old is freed. */
		if (old != NULL && pkey_policy_diff(old, pol, log_pkey_diff,
		    NULL) == 0)
			log_info("reload: partitions: unchanged");
		d->policy = pol;
		sa_opts_from(&d->cfg, &sao);
		sa_opts_mcast(d, &sao);
		if (d->sa != NULL) {
			sa_set_opts(d->sa, &sao);
			if (sweep_fabric(d->sweep) != NULL)
				sa_view_update(d);
		}
		pkey_policy_free(old);
	}
	log_set_level(d->cfg.log_level);
	mad_opts_from(&d->cfg, &mo);
	mad_engine_set_opts(d->mad, &mo);
	smstate_opts_from(&d->cfg, &sso);
	smstate_set_opts(d->ss, &sso);
	sminfo_set_mkey(d->sm, d->cfg.m_key);
	sweep_opts_from(d, &so);
	sweep_set_opts(d->sweep, &so);
	log_info("reload: configuration and partitions%s applied",
	    missing ? " (no partitions file: default partition only)" : "");
	d->note[0] = '\0';
	notify_status(d);
	sweep_after_reload(d->sweep);
	sweep_request(d->sweep, true);
	config_errors_fini(&ce);
	pkey_errors_fini(&pe);
	return 0;
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

/* Leaving: the standby took the subnet (or the wait is over). */
static void
on_left(void *arg, bool handed)
{
	struct daemon *d = arg;

	log_info("%s: exiting", handed ? "subnet handed over" :
	    "no standby took the subnet");
	ev_break(d->loop, EVBREAK_ALL);
}

static void
on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct daemon *d = w->data;

	(void)revents;
	switch (w->signum) {
	case SIGTERM:
	case SIGINT:
		/* A master with a standby hands the subnet over first (a
		 * few seconds at most): a planned stop then costs no more
		 * than a handover. A second signal exits at once. */
		if (!d->leaving && !d->once &&
		    smstate_leave(d->ss, on_left, d)) {
			d->leaving = true;
			log_info("signal %d: handing the subnet to a standby "
			    "before exiting", w->signum);
			break;
		}
		log_info("signal %d: exiting", w->signum);
		ev_break(loop, EVBREAK_ALL);
		break;
	case SIGHUP:
		log_info("SIGHUP: reloading configuration and partitions");
		if (reload(d, NULL) < 0)
			sweep_request(d->sweep, true);
		break;
	case SIGUSR1:
		if (log_reopen() < 0)
			log_warn_all("SIGUSR1: cannot reopen the log file %s; "
			    "still writing to the one open before",
			    d->cfg.log_file);
		else
			log_info("SIGUSR1: log file %s reopened",
			    d->cfg.log_file);
		break;
	}
}

static void
watch_signal(struct daemon *d, ev_signal *w, int signum)
{
	ev_signal_init(w, on_signal, signum);
	w->data = d;
	ev_signal_start(d->loop, w);
}

#ifdef HAVE_LIBSYSTEMD
static void
on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	sd_notify(0, "WATCHDOG=1");
}
#endif

/* systemd's watchdog is fed from the loop itself: a stuck loop is what
 * it should catch. */
static void
start_watchdog(struct daemon *d)
{
#ifdef HAVE_LIBSYSTEMD
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
		return;
	ev_timer_init(&d->watchdog, on_watchdog, 0., usec / 2e6);
	ev_timer_again(d->loop, &d->watchdog);
#else
	(void)d;
#endif
}

static int
add_cli(struct daemon *d, const char *name, const char *value)
{
	if (d->ncli == MAX_CLI) {
		fprintf(stderr, "ibsmd: too many options\n");
		return -1;
	}
	d->cli[d->ncli].name = name;
	d->cli[d->ncli].value = value;
	d->ncli++;
	return 0;
}

static int
parse_args(struct daemon *d, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "guid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, 'o' },
		{ "sweep-interval", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "runtime-dir", required_argument, NULL, 'r' },
		{ "routing-engine", required_argument, NULL, 'R' },
		{ "partitions", required_argument, NULL, 'P' },
		{ "priority", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-file", required_argument, NULL, 'f' },
		{ "option", required_argument, NULL, 'O' },
		{ "max-wire-smps", required_argument, NULL, 1 },
		{ "max-smps-per-node", required_argument, NULL, 2 },
		{ "smp-timeout", required_argument, NULL, 3 },
		{ "smp-retries", required_argument, NULL, 4 },
		{ "allow-both-pkeys", no_argument, NULL, 5 },
		{ "partition-enforcement", required_argument, NULL, 6 },
		{ "list-ports", no_argument, NULL, 7 },
		{ "config-dir", required_argument, NULL, 8 },
		{ "virtualization", required_argument, NULL, 9 },
		{ "convert-opensm-conf", required_argument, NULL, 10 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char guidbuf[32];
	const char *name;
	char *eq, *end;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "c:nvg:os:d:r:R:P:p:l:f:O:hV",
	    longopts, NULL)) != -1) {
		name = NULL;
		switch (ch) {
		case 'c': d->config_file = optarg; break;
		case 'n': d->check = true; break;
		case 'v': d->verbose = true; break;
		case 'o': d->once = true; break;
		case 7: d->list_ports = true; break;
		case 8: d->config_dir = optarg; break;
		case 'g': {
			/* The schema wants 0x-hex; accept decimal too. */
			unsigned long long g;

			errno = 0;
			g = strtoull(optarg, &end, 0);
			if (errno || *end != '\0' || *optarg == '-') {
				fprintf(stderr, "ibsmd: bad port GUID '%s'\n",
				    optarg);
				return -1;
			}
			snprintf(guidbuf, sizeof(guidbuf), "0x%016llx", g);
			rc |= add_cli(d, "port_guid", guidbuf);
			break;
		}
		case 's': name = "sweep_interval"; break;
		case 'd': name = "state_dir"; break;
		case 'r': name = "runtime_dir"; break;
		case 'R': name = "routing_engine"; break;
		case 'P': name = "partitions_file"; break;
		case 'p': name = "sm_priority"; break;
		case 'l': name = "log_level"; break;
		case 'f': name = "log_file"; break;
		case 1: name = "max_wire_smps"; break;
		case 2: name = "max_smps_per_node"; break;
		case 3: name = "smp_timeout"; break;
		case 4: name = "smp_retries"; break;
		case 5: rc |= add_cli(d, "allow_both_pkeys", "true"); break;
		case 6: name = "partition_enforcement"; break;
		case 9: name = "virtualization.mode"; break;
		case 10: d->convert = optarg; break;
		case 'O':
			if ((eq = strchr(optarg, '=')) == NULL) {
				fprintf(stderr, "ibsmd: -O wants NAME=VALUE, not "
				    "'%s'\n", optarg);
				return -1;
			}
			*eq = '\0';
			rc |= add_cli(d, optarg, eq + 1);
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("ibsmd %s\n", PACKAGE_VERSION);
			exit(EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
		if (name != NULL)
			rc |= add_cli(d, name, optarg);
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	return rc;
}

/* --list-ports: the GUIDs ibsmd.service starts an instance for. */
static int
list_ports(const struct ibsmd_config *cfg)
{
	uint64_t guids[256], g;
	int n;

	if (cfg->ports.all) {
		if ((n = transport_list(guids, 256)) < 0)
			return EXIT_FAIL;
		for (int i = 0; i < n && i < 256; i++)
			printf("0x%016" PRIx64 "\n", guids[i]);
		return EXIT_OK;
	}
	if (cfg->ports.n > 0) {
		for (size_t i = 0; i < cfg->ports.n; i++)
			printf("0x%016" PRIx64 "\n", cfg->ports.guid[i]);
		return EXIT_OK;
	}
	if (transport_resolve(cfg->port_guid, &g) < 0)
		return EXIT_FAIL;
	printf("0x%016" PRIx64 "\n", g);
	return EXIT_OK;
}

static int
read_named(void *arg, const char *path, char **text, size_t *len, char *why,
    size_t whylen)
{
	(void)arg;
	why[0] = '\0';
	return config_read_file(path, CONFIG_MAX_BYTES, text, len, why,
	    whylen);
}

/* --convert-opensm-conf: the opensm.conf as an ibsmd.conf on stdout. */
static int
convert_opensm(const char *path)
{
	struct opensm_reader rd = { .read = read_named };
	struct config_errors ce = { 0 };
	char why[160], *text;
	size_t len;
	int r;

	r = config_read_file(path, CONFIG_MAX_BYTES, &text, &len, why,
	    sizeof(why));
	if (r != CONFIG_OK) {
		fprintf(stderr, "ibsmd: %s: %s\n", path, r == CONFIG_MISSING ?
		    "no such file" : why);
		return EXIT_FAIL;
	}
	r = opensm_convert(path, text, len, &rd, stdout, &ce);
	free(text);
	print_errors(&ce);
	config_errors_fini(&ce);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "ibsmd: cannot write the conversion: %s\n",
		    strerror(errno));
		return EXIT_FAIL;
	}
	return r < 0 ? EXIT_FAIL : EXIT_OK;
}

/* -n: configuration and partitions checked; -nv: printed back. */
static int
check_mode(struct daemon *d)
{
	struct pkey_errors pe;
	struct config_errors ce = { 0 };
	struct pkey_policy *pol;
	bool missing;
	int rc = EXIT_OK;

	pkey_errors_init(&pe);
	pol = load_policy(&d->cfg, &pe, &missing, &ce);
	{
		struct node_names *names;

		if (load_names(&d->cfg, &names, &ce) < 0)
			rc = EXIT_FAIL;
		node_names_free(names);
	}
	print_errors(&ce);
	config_errors_fini(&ce);
	{
		/* errors when refused; warnings (an empty file) either way */
		char *t = pkey_errors_text(&pe, false);

		fputs(t ? t : "", stderr);
		free(t);
	}
	if (pol == NULL)
		rc = EXIT_FAIL;
	if (d->verbose && pol != NULL) {
		char *t = pkey_policy_format(pol, NULL);

		config_print(&d->cfg, stdout);
		printf("\n# partitions: %s%s\n", d->cfg.partitions_file,
		    missing ? " (missing: the default partition only)" : "");
		fputs(t, stdout);
		free(t);
	}
	pkey_policy_free(pol);
	pkey_errors_fini(&pe);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct daemon d = { .exit_code = EXIT_OK,
	    .config_dir = IBSMD_SYSCONFDIR };
	struct ibsmd_config first;
	struct config_errors ce = { 0 };
	struct pkey_errors pe;
	struct sweep_opts so;
	struct mad_opts mo;
	struct smstate_opts sso;
	struct smstate_hooks ssh = { .sweep = on_sm_sweep,
	    .changed = on_sm_state, .foreign = on_sm_foreign,
	    .peers = on_sm_peers, .arg = &d };
	const char *bad;
	bool missing;
	int lock_fd;

	if (parse_args(&d, argc, argv) < 0)
		return EXIT_USAGE;
	log_init("ibsmd", NULL, LOG_LVL_INFO);
	config_set_engine_names(routing_engine_name);
	if (d.convert != NULL)
		return convert_opensm(d.convert);

	/* The port GUID names the per-instance file: from the command line
	 * or the common file, else the first InfiniBand port. */
	if (build_config(&d, 0, &first, &ce) < 0) {
		print_errors(&ce);
		return d.check ? EXIT_FAIL : EXIT_USAGE;
	}
	if ((bad = sweep_engines(&first, &so)) != NULL) {
		fprintf(stderr, "ibsmd: unknown routing engine '%s'\n", bad);
		return d.check ? EXIT_FAIL : EXIT_USAGE;
	}
	d.guid = first.port_guid;
	config_fini(&first);
	config_errors_fini(&ce);	/* its notes come again below */
	if (d.list_ports) {
		if (build_config(&d, d.guid, &d.cfg, &ce) < 0) {
			print_errors(&ce);
			return EXIT_USAGE;
		}
		return list_ports(&d.cfg);
	}
	/* Checking a configuration needs no port: don't warn about one. */
	if (d.check)
		log_set_level(LOG_LVL_ERROR);
	if (transport_resolve(d.guid, &d.guid) < 0) {
		if (!d.check) {
			fprintf(stderr, "ibsmd: cannot find the port to drive"
			    "%s\n", d.guid ? "" : " (no InfiniBand port)");
			return EXIT_FAIL;
		}
		/* Checking a configuration needs no port: the per-instance
		 * file is then only read when -g names it. */
	}
	if (build_config(&d, d.guid, &d.cfg, &ce) < 0) {
		print_errors(&ce);
		if (!d.check)
			notify_failure("configuration rejected (%zu error%s); "
			    "not starting", ce.n, ce.n == 1 ? "" : "s");
		return d.check ? EXIT_FAIL : EXIT_USAGE;
	}
	print_errors(&ce);		/* the notes */
	config_errors_fini(&ce);
	if ((bad = sweep_engines(&d.cfg, &so)) != NULL) {
		/* the per-instance file named one */
		fprintf(stderr, "ibsmd: unknown routing engine '%s'\n", bad);
		return d.check ? EXIT_FAIL : EXIT_USAGE;
	}
	if (d.check)
		return check_mode(&d);

	if (log_init("ibsmd", d.cfg.log_file, d.cfg.log_level) < 0) {
		fprintf(stderr, "ibsmd: cannot open log %s: %s\n",
		    d.cfg.log_file, strerror(errno));
		notify_failure("log file %s cannot be opened: %s; not "
		    "starting", d.cfg.log_file, strerror(errno));
		return EXIT_USAGE;
	}
	pkey_errors_init(&pe);
	if ((d.policy = load_policy(&d.cfg, &pe, &missing, &ce)) == NULL) {
		char *t = pkey_errors_text(&pe, false);

		print_errors(&ce);
		/* Fail closed: never fall back to everyone in the default
		 * partition because the file has a mistake. */
		fprintf(stderr, "%sibsmd: %s rejected; not starting\n",
		    t ? t : "", d.cfg.partitions_file);
		notify_failure("partitions rejected: %s (%zu error%s); not "
		    "starting", d.cfg.partitions_file, pe.nerrors + ce.n,
		    pe.nerrors + ce.n == 1 ? "" : "s");
		free(t);
		return EXIT_USAGE;
	}
	pkey_errors_fini(&pe);
	if (missing)
		log_info("partitions: no %s: every port is a full member of "
		    "the default partition", d.cfg.partitions_file);
	else
		log_info("partitions: %s accepted: %zu partition%s",
		    d.cfg.partitions_file, pkey_policy_count(d.policy),
		    pkey_policy_count(d.policy) == 1 ? "" : "s");
	if (load_names(&d.cfg, &d.names, &ce) < 0) {
		print_errors(&ce);
		fprintf(stderr, "ibsmd: %s rejected; not starting\n",
		    d.cfg.node_name_map);
		notify_failure("node_name_map rejected: %s (%zu error%s); "
		    "not starting", d.cfg.node_name_map, ce.n, ce.n == 1 ?
		    "" : "s");
		return EXIT_USAGE;
	}
	if (d.names != NULL) {
		node_names_use(d.names);
		log_info("node_name_map %s: %zu names", d.cfg.node_name_map,
		    node_names_count(d.names));
	}

	if (config_expand(d.cfg.state_dir, d.guid, d.state_dir,
	    sizeof(d.state_dir)) < 0 ||
	    config_expand(d.cfg.runtime_dir, d.guid, d.runtime_dir,
	    sizeof(d.runtime_dir)) < 0) {
		fprintf(stderr, "ibsmd: state or runtime directory too long\n");
		return EXIT_USAGE;
	}
	lock_fd = take_lock(d.runtime_dir, d.guid);
	if (lock_fd < 0)
		return lock_fd == -2 ? EXIT_LOCKED : EXIT_FAIL;
	if (mkdirs(d.state_dir, 0755) < 0) {
		log_warn("cannot create state directory %s", d.state_dir);
		return EXIT_FAIL;
	}

	signal(SIGPIPE, SIG_IGN);
	d.loop = ev_default_loop(EVFLAG_AUTO);
	mad_opts_from(&d.cfg, &mo);
	d.mad = mad_engine_new(d.loop, d.guid, &mo);
	if (d.mad == NULL || smp_register(d.mad) < 0) {
		fprintf(stderr, "ibsmd: cannot open port 0x%016" PRIx64 "\n",
		    d.guid);
		mad_engine_free(d.mad);
		return EXIT_FAIL;
	}
	if (transport_claim_sm(mad_engine_transport(d.mad)) < 0)
		log_warnx("cannot set IsSM on the port; other nodes may not "
		    "find this SM");
	smstate_opts_from(&d.cfg, &sso);
	d.ss = smstate_new(d.loop, d.mad, &sso, &ssh);
	d.sm = sminfo_new(d.mad, d.ss, on_trap, &d);
	sminfo_set_mkey(d.sm, d.cfg.m_key);
	/* VF alias GUIDs need no vport support: served in every mode, as
	 * upstream OpenSM does (a ConnectX-3 VF is down until its alias
	 * GUID is granted) */
	d.vg = vfguid_new(d.loop, d.mad, d.state_dir,
	    (uint8_t)d.cfg.virt_guid_byte, d.cfg.m_key);
	sweep_opts_from(&d, &so);
	d.sweep = sweep_new(d.loop, d.mad, d.sm, d.ss, &so, on_up, &d);
	ev_init(&d.vport_settle, on_vport_settle);
	d.vport_settle.repeat = VPORT_SETTLE_S;
	d.vport_settle.data = &d;
	{
		struct sa_opts sao;

		d.mcast = sm_mcast_new(d.mad);
		sm_mcast_set_alias(d.mcast, vfguid_store(d.vg));
		sm_mcast_set_loop(d.mcast, d.loop);
		mcast_set_consolidate_snm(sm_mcast_store(d.mcast),
		    d.cfg.consolidate_ipv6_snm);
		sa_opts_from(&d.cfg, &sao);
		sa_opts_mcast(&d, &sao);
		d.sa = sa_new(d.loop, d.mad, &sao);
		if (sa_start(d.sa) < 0) {
			log_warnx("no Subnet Administration on this port");
			sa_free(d.sa);
			d.sa = NULL;
		}
		if (d.sa != NULL && !d.once)
			d.devread = devread_new(d.loop, d.mad);
		if (d.sa != NULL)
			sminfo_set_notice_cb(d.sm, on_trap_notice, &d);
		sweep_set_adopt_hook(d.sweep, on_adopt, &d);
		sweep_set_stats_hook(d.sweep, stats_file, &d);
	}
	{
		char sock[4200];

		d.cd = (struct ctl_deps){ .sweep = d.sweep, .mad = d.mad,
		    .sm = d.sm, .ss = d.ss, .sa = d.sa, .vg = d.vg,
		    .port_guid = d.guid, .reload = reload,
		    .partitions = partitions_text, .arg = &d, .mcast = d.mcast,
		    .policy = policy_in_force, .note = status_note };
		snprintf(sock, sizeof(sock), "%s/0x%016" PRIx64 ".sock",
		    d.runtime_dir, d.guid);
		if ((d.ctl = ctl_open(d.loop, sock, &d.cd)) == NULL)
			log_warnx("no control socket: ibsmctl cannot reach "
			    "this instance");
	}
	watch_signal(&d, &d.sig_term, SIGTERM);
	watch_signal(&d, &d.sig_int, SIGINT);
	watch_signal(&d, &d.sig_hup, SIGHUP);
	watch_signal(&d, &d.sig_usr1, SIGUSR1);
	if (!d.once)
		start_watchdog(&d);
	log_info("ibsmd %s on port 0x%016" PRIx64 ", state in %s",
	    PACKAGE_VERSION, d.guid, d.state_dir);
	smstate_start(d.ss);

	ev_run(d.loop, 0);

	if (d.once && d.exit_code == EXIT_OK) {
		char line[256];

		sweep_summary(d.sweep, line, sizeof(line));
		printf("ibsmd: subnet up: %s\n", line);
	}
	ctl_close(d.ctl);
	sa_free(d.sa);
	devread_free(d.devread);
	free(d.vport_pk);
	sweep_free(d.sweep);
	vfguid_free(d.vg);
	sminfo_free(d.sm);
	smstate_free(d.ss);
	mad_engine_free(d.mad);
	sm_mcast_free(d.mcast);
	ev_timer_stop(d.loop, &d.vport_settle);
	ev_loop_destroy(d.loop);
	pkey_policy_free(d.policy);
	node_names_free(d.names);
	config_fini(&d.cfg);
	close(lock_fd);
	log_fini();
	return d.exit_code;
}
