/*
 * The daemon's configuration, loaded at start and at every reload
 * (sm/reload.h). Both are all-or-nothing: at start a mistake stops us, at
 * reload (SIGHUP, ibsmctl reload) it changes nothing, and the running
 * daemon keeps its last good configuration and policy.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/log.h"
#include "core/mkey.h"
#include "core/nodemap.h"
#include "core/qos.h"
#include "mad/mad.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "routing/routing.h"
#include "sa/sa.h"
#include "sm/daemon.h"
#include "sm/reload.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/vfguid.h"

#define PARTITIONS_MAX_BYTES (16u << 20)	/* see ibsmd(8) */
#define QOS_POLICY_MAX_BYTES (16u << 20)

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

int
reload_config_build(const struct daemon *d, uint64_t guid,
    struct ibsmd_config *out, struct config_errors *errs)
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
log_notes_as(const char *what, const struct pkey_errors *errs)
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
			log_warnx("%s: %s%s: %s", what, file, at, m->text);
		else
			log_info("%s: %s%s: %s", what, file, at, m->text);
	}
}

static void
log_notes(const struct pkey_errors *errs)
{
	log_notes_as("partitions", errs);
}

/* With qos off no SL-to-VL table is programmed and the SA hands out
 * SA_SL_NO_QOS (sa/sa.h): say so once per partition that sets an sl=,
 * at each load. With qos on the SA takes it (sa/slsel.h). */
static void
log_unused_sl(const char *file, const struct pkey_policy *p)
{
	for (size_t i = 0; i < pkey_policy_count(p); i++) {
		const struct pkey_partition *pt = pkey_policy_get(p, i);

		if (!(pt->flags.set & PKEY_GF_SL) ||
		    pt->flags.sl == SA_SL_NO_QOS)
			continue;
		log_warnx("partitions: %s:%u: partition %s (0x%04x): "
		    "sl=%u not mapped: qos is off, so ibsmd programs "
		    "no SL-to-VL tables; its paths and multicast "
		    "groups get SL %u, as OpenSM without QoS", file,
		    pt->line, pt->name != NULL ? pt->name :
		    "(unnamed)", pt->pkey, pt->flags.sl, SA_SL_NO_QOS);
	}
}

struct pkey_policy *
reload_policy_load(const struct ibsmd_config *cfg, struct pkey_errors *errs,
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
		if (!cfg->qos)
			log_unused_sl(cfg->partitions_file, p);
	}
	return p;
}

int
reload_qos_load(const struct ibsmd_config *cfg,
    const struct pkey_policy *parts, struct qos_policy **out,
    struct pkey_errors *errs, bool *missing, struct config_errors *ce)
{
	char why[160], *text;
	size_t len = 0;
	int r;

	*out = NULL;
	*missing = false;
	if (!cfg->qos)
		return 0;
	r = config_read_file(cfg->qos_policy_file, QOS_POLICY_MAX_BYTES,
	    &text, &len, why, sizeof(why));
	if (r == CONFIG_MISSING) {
		*missing = true;
		return 0;
	}
	if (r != CONFIG_OK) {
		add_error(ce, "%s: %s (qos_policy_file)", cfg->qos_policy_file,
		    why);
		return -1;
	}
	*out = qos_policy_parse(cfg->qos_policy_file, text, len, parts, errs);
	free(text);
	if (*out == NULL)
		return -1;
	log_notes_as("qos", errs);
	return 0;
}

static void
names_error(void *arg, const char *line)
{
	add_error(arg, "%s", line);
}

int
reload_names_load(const struct ibsmd_config *cfg, struct node_names **out,
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

const char *
reload_engines(const struct ibsmd_config *cfg, struct sweep_opts *so)
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

/* issue 27: the qos options as core/qos takes them. */
void
reload_qos_config(const struct ibsmd_config *c, struct qos_config *qc)
{
	struct qos_optset set[5];

	for (int i = 0; i < 5; i++) {
		const struct cfg_qos_set *q = &c->qos_set[i];

		set[i] = (struct qos_optset){
			.max_vls = q->max_vls,
			.high_limit = q->high_limit == CFG_UINT_UNSET ? -1 :
			    (int)q->high_limit,
			.vlarb_high = q->vlarb_high, .vlarb_low = q->vlarb_low,
			.sl2vl = q->sl2vl,
		};
	}
	/* qos_set[1 ..] are ca, sw0, swe, rtr: enum qos_kind's order */
	qos_config_build(qc, c->qos, c->max_op_vls, &set[0], &set[1]);
}

void
reload_sweep_opts(struct daemon *d, struct sweep_opts *so)
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
	so->lmc_esp0 = c->lmc_esp0;
	so->prog.subnet_prefix = c->subnet_prefix;
	so->prog.mkeys = (struct mkey_cfg){ .key = c->m_key,
	    .per_port = c->m_key_per_port, .takeover = c->m_key_takeover };
	so->mkeys = d->mkeys;
	so->prog.mkey_lease = (uint16_t)c->m_key_lease_period;
	/* protection without a key protects nothing, and would make the
	 * port look as if it held a key nobody knows (core/mkey.h) */
	so->prog.mkey_protect = c->m_key != 0 ?
	    (uint8_t)c->m_key_protect_bits : 0;
	so->prog.subnet_timeout = 18;
	so->prog.packet_life = 0x12;
	daemon_qos_build(d);
	so->prog.qos = d->qos;
	/* with qos, the QoS tables go in before the ports go Active */
	so->prog.before_activate = c->qos ? daemon_qos_before_activate : NULL;
	so->prog.before_activate_arg = d;
	(void)reload_engines(c, so);
	so->ropts.roots = c->root_guids.guid;
	so->ropts.nroots = c->root_guids.n;
	so->ropts.leaves = c->leaf_guids.guid;
	so->ropts.nleaves = c->leaf_guids.n;
	so->policy = d->policy;
	so->allow_both_pkeys = c->allow_both_pkeys;
	so->enforce = enforce_bits[c->partition_enforcement];
	so->max_failures = d->once ? 3 : 1;
	so->virt_mode = c->virt_mode;
	so->virt_max_ports = c->virt_max_ports;
	so->alias = d->vg != NULL ? vfguid_store(d->vg) : NULL;
}

void
reload_smstate_opts(const struct ibsmd_config *c, struct smstate_opts *o)
{
	memset(o, 0, sizeof(*o));	/* fields not set here: their defaults */
	o->priority = (uint8_t)c->sm_priority;
	o->sm_key = c->sm_key;
	o->mkey = 0;	/* sm/mkeys presents each port's */
	o->poll_interval = c->sm_poll_interval;
	o->poll_retries = c->sm_poll_retries;
}

void
reload_mad_opts(const struct ibsmd_config *c, struct mad_opts *mo)
{
	memset(mo, 0, sizeof(*mo));
	mo->max_wire = c->max_wire_smps;
	mo->max_per_node = c->max_smps_per_node;
	mo->timeout_ms = c->smp_timeout;
	mo->retries = c->smp_retries;
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
	if (opt->flags & CFG_F_SECRET) {
		char ka[KEY_TEXT_LEN], kb[KEY_TEXT_LEN];

		snprintf(a, sizeof(a), "%s", key_text(*(const uint64_t *)
		    ((const char *)cur + opt->offset), ka));
		snprintf(b, sizeof(b), "%s", key_text(*(const uint64_t *)
		    ((const char *)next + opt->offset), kb));
	}
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

/* A rejected reload: said in the log, in STATUS= and status, and in
 * *errors when the caller wants them; nothing else changes. */
static void
reject(struct daemon *d, const struct config_errors *ce,
    const struct pkey_errors *pe, char **errors)
{
	char *text = join_errors(ce, pe);
	unsigned nerr = 0;

	for (const char *p = text; *p; p++)
		nerr += *p == '\n';
	snprintf(d->note, sizeof(d->note), "last reload rejected (%u "
	    "error%s%s), running configuration and partitions kept",
	    nerr, nerr == 1 ? "" : "s", pe->nerrors ? ", partitions" :
	    "");
	log_rejected(text);
	daemon_notify_status(d);
	if (errors != NULL)
		*errors = text;
	else
		free(text);
}

/* The reloadable options of next in force (next is freed); the others
 * are said to wait for a restart. */
static void
apply_config(struct daemon *d, struct ibsmd_config *next,
    const struct config_errors *ce)
{
	struct diff_ctx dc = { .restart = "" };

	for (size_t i = 0; i < ce->nnotes; i++)
		log_info("reload: %s", ce->note[i]);
	config_reload_diff(&d->cfg, next, on_diff, &dc);
	if (dc.restart[0])
		log_warnx("reload: changed but only applied after a restart: %s",
		    dc.restart);
	if (strcmp(d->cfg.log_file, next->log_file) != 0) {
		log_fini();
		if (log_init("ibsmd", next->log_file, next->log_level) < 0)
			log_init("ibsmd", NULL, next->log_level);
	}
	config_apply_reloadable(&d->cfg, next);
	config_fini(next);
}

/* The new names from now on (NULL: descriptions again). */
static void
apply_names(struct daemon *d, struct node_names *names)
{
	node_names_use(names);
	node_names_free(d->names);
	d->names = names;
	if (names != NULL)
		log_info("reload: node_name_map %s: %zu names",
		    d->cfg.node_name_map, node_names_count(names));
}

/* The SA's view names the policy: move it to the new one before the old
 * is freed. */
static void
apply_policy(struct daemon *d, struct pkey_policy *pol)
{
	struct pkey_policy *old = d->policy;
	struct sa_opts sao;

	if (old != NULL && pkey_policy_diff(old, pol, log_pkey_diff,
	    NULL) == 0)
		log_info("reload: partitions: unchanged");
	d->policy = pol;
	daemon_sa_opts(d, &sao);
	if (d->sa != NULL) {
		sa_set_opts(d->sa, &sao);
		if (sweep_fabric(d->sweep) != NULL)
			daemon_sa_view_update(d);
	}
	pkey_policy_free(old);
}

/* The running configuration to the modules. */
static void
apply_opts(struct daemon *d)
{
	struct sweep_opts so;
	struct mad_opts mo;
	struct smstate_opts sso;

	log_set_level(d->cfg.log_level);
	reload_mad_opts(&d->cfg, &mo);
	mad_engine_set_opts(d->mad, &mo);
	reload_smstate_opts(&d->cfg, &sso);
	smstate_set_opts(d->ss, &sso);
	daemon_keys(d);
	reload_sweep_opts(d, &so);
	sweep_set_opts(d->sweep, &so);
	daemon_perfmgr_opts(d);
}

/* reload_qos_load() for a reload: its errors, each "file:line:col: ...",
 * join the others in ce. */
static int
reload_qos_checked(const struct ibsmd_config *cfg,
    const struct pkey_policy *parts, struct qos_policy **out,
    struct config_errors *ce)
{
	struct pkey_errors qe;
	bool missing;
	int rc;

	pkey_errors_init(&qe);
	rc = reload_qos_load(cfg, parts, out, &qe, &missing, ce);
	if (rc < 0) {
		char line[1024];

		for (size_t i = 0; i < qe.n; i++)
			if (qe.msgs[i].level != PKEY_MSG_NOTE) {
				pkey_msg_format(&qe, i, line, sizeof(line));
				add_error(ce, "%s", line);
			}
	} else if (missing)
		log_warnx("reload: qos: no %s: SLs from the partitions' sl= "
		    "only", cfg->qos_policy_file);
	pkey_errors_fini(&qe);
	return rc;
}

/* The new QoS policy from now on (NULL: none); the old one is returned,
 * to be freed once the SA's view has moved (apply_policy moves it). */
static struct qos_policy *
apply_qos(struct daemon *d, struct qos_policy *qos)
{
	struct qos_policy *old = d->qos_policy;

	d->qos_policy = qos;
	d->qos_counted = false;
	if (qos != NULL)
		log_info("reload: qos: %s: %zu port groups, %zu levels, %zu "
		    "rules", d->cfg.qos_policy_file, qos_policy_groups(qos),
		    qos_policy_levels(qos), qos_policy_rules(qos));
	return old;
}

int
reload_run(void *arg, char **errors)
{
	struct daemon *d = arg;
	struct ibsmd_config next;
	struct config_errors ce = { 0 };
	struct pkey_errors pe;
	struct pkey_policy *pol = NULL;
	struct node_names *names = NULL;
	struct qos_policy *qos = NULL, *old_qos;
	struct sweep_opts so;
	const char *bad;
	bool missing = false;
	int rc = -1;

	pkey_errors_init(&pe);
	if (reload_config_build(d, d->guid, &next, &ce) == 0 &&
	    (bad = reload_engines(&next, &so)) != NULL) {
		add_error(&ce, "routing_engine: %s is not built into this ibsmd",
		    bad);
	} else if (ce.n == 0 &&
	    (pol = reload_policy_load(&next, &pe, &missing, &ce)) != NULL) {
		rc = reload_names_load(&next, &names, &ce);
		if (reload_qos_checked(&next, pol, &qos, &ce) < 0)
			rc = -1;
		if (rc < 0) {
			pkey_policy_free(pol);
			pol = NULL;
			node_names_free(names);
			names = NULL;
			qos_policy_free(qos);
			qos = NULL;
		}
	}
	if (rc < 0) {
		reject(d, &ce, &pe, errors);
		config_fini(&next);
		config_errors_fini(&ce);
		pkey_errors_fini(&pe);
		return -1;
	}
	apply_config(d, &next, &ce);
	apply_names(d, names);
	old_qos = apply_qos(d, qos);
	apply_policy(d, pol);   /* the SA's view: both new policies */
	qos_policy_free(old_qos);
	apply_opts(d);
	log_info("reload: configuration and partitions%s applied",
	    missing ? " (no partitions file: default partition only)" : "");
	d->note[0] = '\0';
	daemon_notify_status(d);
	sweep_after_reload(d->sweep);
	sweep_request(d->sweep, true);
	config_errors_fini(&ce);
	pkey_errors_fini(&pe);
	return 0;
}
