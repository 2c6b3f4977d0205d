/*
 * ibsmd.conf: the option schema, the YAML loader and the effective
 * configuration.
 *
 * One table (config_schema()) names every option with its type, range or
 * allowed values, default, whether a reload may change it, and a one-line
 * doc; the loader, the command-line overrides, `ibsmd -nv`, ibsmd.conf(5)
 * and contrib/ibsmd.conf are all checked against it.
 *
 * Layers, lowest first: built-in defaults, the common file
 * (CONFIG_COMMON_PATH), the per-instance file (config_instance_path()), a
 * file named with -c, the command line. Each load applies only the options
 * its file sets, and only when the whole file is valid: every error of a
 * file is reported at once as "FILE:LINE:COL: message" (1-based, in file
 * order) and the configuration is left untouched.
 *
 * Start-up and SIGHUP build a configuration the same way, into a fresh
 * one: config_init(), config_load() of each file, config_set() of each
 * command-line option. A reload that fails anywhere drops the new one;
 * otherwise config_reload_diff() says what changed and
 * config_apply_reloadable() takes what may change while running.
 *
 * Include it as "config/config.h" from outside config/: plain "config.h" is
 * autoconf's header.
 */
#ifndef IBSMD_CONFIG_H
#define IBSMD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/log.h"		/* enum log_level */

#ifndef IBSMD_SYSCONFDIR
#define IBSMD_SYSCONFDIR "/etc/ibsmd"
#endif
#ifndef IBSMD_STATEDIR
#define IBSMD_STATEDIR "/var/lib/ibsmd"
#endif
#ifndef IBSMD_RUNDIR
#define IBSMD_RUNDIR "/run/ibsmd"
#endif

#define CONFIG_COMMON_PATH	IBSMD_SYSCONFDIR "/ibsmd.conf"
/* Written in state_dir (and accepted in any path option): replaced by the
 * port GUID, 0x%016x, by config_expand(). */
#define CONFIG_GUID_PLACEHOLDER	"<port-guid>"

/* Where a value came from, lowest precedence first. */
enum cfg_source {
	CFG_DEFAULT,
	CFG_COMMON_FILE,	/* /etc/ibsmd/ibsmd.conf */
	CFG_INSTANCE_FILE,	/* /etc/ibsmd/ibsmd.<port-guid>.conf */
	CFG_CONFIG_FILE,	/* -c FILE */
	CFG_CMDLINE,
	CFG_NSOURCES
};

enum cfg_type {
	CFG_BOOL,		/* true, false, yes, no */
	CFG_UINT,		/* unsigned: decimal or 0x hex, in min..max */
	CFG_DOUBLE,		/* finite number in min..max */
	CFG_GUID,		/* uint64_t written 0x and 1-16 hex digits */
	CFG_STRING,		/* char *, not empty */
	CFG_PATH,		/* char *, not empty */
	CFG_ENUM,		/* an enum: index into allowed[] */
	CFG_ENUM_LIST,		/* struct cfg_name_list: min..max entries of
				 * allowed[], no repeats */
	CFG_GUID_LIST,		/* struct cfg_guid_list: up to max GUIDs */
	CFG_GUIDS_OR_ALL	/* struct cfg_guid_list: GUIDs, or "all" */
};

/* Every option, in schema (and -nv) order. */
/* The error counters of core/pcounter (PC_NERRORS). */
#define CFG_PERFMGR_NTHRESHOLDS 12

enum cfg_opt_id {
	CFG_OPT_PORT_GUID,
	CFG_OPT_PORTS,
	CFG_OPT_STATE_DIR,
	CFG_OPT_RUNTIME_DIR,
	CFG_OPT_LOG_LEVEL,
	CFG_OPT_LOG_FILE,
	CFG_OPT_SWEEP_INTERVAL,
	CFG_OPT_ROUTING_ENGINE,
	CFG_OPT_ROOT_GUIDS,
	CFG_OPT_LEAF_GUIDS,
	CFG_OPT_MAX_WIRE_SMPS,
	CFG_OPT_MAX_SMPS_PER_NODE,
	CFG_OPT_SMP_TIMEOUT,
	CFG_OPT_SMP_RETRIES,
	CFG_OPT_SM_PRIORITY,
	CFG_OPT_SM_KEY,
	CFG_OPT_SM_POLL_INTERVAL,
	CFG_OPT_SM_POLL_RETRIES,
	CFG_OPT_SUBNET_PREFIX,
	CFG_OPT_LMC,
	CFG_OPT_LMC_ESP0,
	CFG_OPT_M_KEY,
	CFG_OPT_M_KEY_LEASE_PERIOD,
	CFG_OPT_M_KEY_PROTECT_BITS,
	CFG_OPT_M_KEY_PER_PORT,
	CFG_OPT_M_KEY_TAKEOVER,
	CFG_OPT_PARTITIONS_FILE,
	CFG_OPT_PARTITION_ENFORCEMENT,
	CFG_OPT_ALLOW_BOTH_PKEYS,
	CFG_OPT_SA_KEY,
	CFG_OPT_SUBNET_TIMEOUT,
	CFG_OPT_SERVICE_LEASE,
	CFG_OPT_CONSOLIDATE_IPV6_SNM,
	CFG_OPT_VIRT_MODE,		/* the virtualization: section */
	CFG_OPT_VIRT_MAX_PORTS,
	CFG_OPT_VIRT_GUID_BYTE,
	CFG_OPT_DUMP_FILES_DIR,
	CFG_OPT_NODE_NAME_MAP,
	CFG_OPT_PERFMGR,
	CFG_OPT_PERFMGR_SWEEP_TIME,
	CFG_OPT_PERFMGR_CLEAR_SATURATED,
	CFG_OPT_PERFMGR_THR_SYMBOL_ERROR,		/* enum pcounter_id's order */
	CFG_OPT_PERFMGR_THR_LINK_ERROR_RECOVERY,
	CFG_OPT_PERFMGR_THR_LINK_DOWNED,
	CFG_OPT_PERFMGR_THR_RCV_ERRORS,
	CFG_OPT_PERFMGR_THR_RCV_REMOTE_PHYS_ERRORS,
	CFG_OPT_PERFMGR_THR_RCV_SWITCH_RELAY_ERRORS,
	CFG_OPT_PERFMGR_THR_XMIT_DISCARDS,
	CFG_OPT_PERFMGR_THR_XMIT_CONSTRAINT_ERRORS,
	CFG_OPT_PERFMGR_THR_RCV_CONSTRAINT_ERRORS,
	CFG_OPT_PERFMGR_THR_LOCAL_LINK_INTEGRITY_ERRORS,
	CFG_OPT_PERFMGR_THR_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	CFG_OPT_PERFMGR_THR_VL15_DROPPED,
	CFG_OPT_METRICS_LISTEN,
	CFG_OPT_QOS,			/* issue 27: QoS, OpenSM's options */
	CFG_OPT_MAX_OP_VLS,
	CFG_OPT_QOS_MAX_VLS,
	CFG_OPT_QOS_HIGH_LIMIT,
	CFG_OPT_QOS_VLARB_HIGH,
	CFG_OPT_QOS_VLARB_LOW,
	CFG_OPT_QOS_SL2VL,
	CFG_OPT_QOS_CA_MAX_VLS,
	CFG_OPT_QOS_CA_HIGH_LIMIT,
	CFG_OPT_QOS_CA_VLARB_HIGH,
	CFG_OPT_QOS_CA_VLARB_LOW,
	CFG_OPT_QOS_CA_SL2VL,
	CFG_OPT_QOS_SW0_MAX_VLS,
	CFG_OPT_QOS_SW0_HIGH_LIMIT,
	CFG_OPT_QOS_SW0_VLARB_HIGH,
	CFG_OPT_QOS_SW0_VLARB_LOW,
	CFG_OPT_QOS_SW0_SL2VL,
	CFG_OPT_QOS_SWE_MAX_VLS,
	CFG_OPT_QOS_SWE_HIGH_LIMIT,
	CFG_OPT_QOS_SWE_VLARB_HIGH,
	CFG_OPT_QOS_SWE_VLARB_LOW,
	CFG_OPT_QOS_SWE_SL2VL,
	CFG_OPT_QOS_RTR_MAX_VLS,
	CFG_OPT_QOS_RTR_HIGH_LIMIT,
	CFG_OPT_QOS_RTR_VLARB_HIGH,
	CFG_OPT_QOS_RTR_VLARB_LOW,
	CFG_OPT_QOS_RTR_SL2VL,
	CFG_OPT_QOS_POLICY_FILE,	/* issue 27 point 2 */
	CFG_NOPTIONS
};

/* Option flags. */
#define CFG_F_NOT_INSTANCE	0x1	/* refused in a per-instance file */
#define CFG_F_ZERO_OFF		0x2	/* UINT, DOUBLE: 0 (off) is allowed
					 * besides min to max */
#define CFG_F_EMPTY_OFF		0x4	/* STRING, PATH: "" (off) is allowed */
#define CFG_F_HOSTPORT		0x8	/* STRING: HOST:PORT (config_hostport) */
#define CFG_F_SECRET		0x10	/* a key: logs show it masked (core/mkey.h) */
/* issue 27 (QoS) */
#define CFG_F_UNSET		0x20	/* UINT: 0 (with ZERO_OFF) or -1 (with
					 * MINUS_ONE) means unset, not off */
#define CFG_F_MINUS_ONE		0x40	/* UINT: -1 is allowed besides min to
					 * max, stored as CFG_UINT_UNSET */
#define CFG_F_QOS_VLARB		0x80	/* STRING: a VL arbitration list,
					 * "VL:weight,..." (core/qos.h) */
#define CFG_F_QOS_SL2VL		0x100	/* STRING: 16 comma-separated VLs */
#define CFG_UINT_UNSET		0xffffffffu

/*
 * Other words an ENUM option reads (OpenSM's numbers, another vendor's
 * names): value is the index in allowed[] it stands for, with a note
 * saying how it was read (NULL: none); or -1 when the word is refused
 * because it means something else elsewhere, note saying what to write.
 */
struct cfg_word {
	const char *text;
	int value;
	const char *note;
};

struct cfg_option {
	const char *name;
	enum cfg_type type;
	size_t offset;			/* of the field in struct ibsmd_config */
	double min, max;		/* UINT, DOUBLE: value range; lists:
					 * number of entries */
	const char *unit;		/* UINT, DOUBLE: "seconds"...; GUID: what
					 * the 64 bits are if not a GUID */
	const char *const *allowed;	/* ENUM, ENUM_LIST: NULL-terminated */
	const struct cfg_word *words;	/* ENUM: more words, {NULL}-ended */
	const char *def;		/* default, as it would be written */
	bool reloadable;		/* SIGHUP applies a change at once */
	unsigned flags;			/* CFG_F_* */
	const char *doc;		/* one line */
};

#define CFG_NAMES_MAX 8

struct cfg_name_list {			/* names point into allowed[] */
	size_t n;
	const char *name[CFG_NAMES_MAX];
};

struct cfg_guid_list {
	bool all;			/* "all" (CFG_GUIDS_OR_ALL only) */
	size_t n;
	uint64_t *guid;
};

enum cfg_enforcement {			/* order of its allowed[] */
	CFG_ENFORCE_BOTH, CFG_ENFORCE_IN, CFG_ENFORCE_OUT, CFG_ENFORCE_OFF
};

/* virtualization.mode: off, disabled, enabled; the values are NVIDIA's
 * OpenSM virt_enabled 0 (its "ignore"), 1 ("disable") and 2 ("enable"). */
enum cfg_virt {
	CFG_VIRT_OFF,		/* no vport attribute is ever sent */
	CFG_VIRT_DISABLED,	/* "disabled": vports read, none written (running VMs kept routed) */
	CFG_VIRT_ENABLED	/* vports and alias GUIDs managed */
};

/*
 * Sections: an option named "section.key" is written either so or as
 * key: value inside a "section:" mapping; -nv prints the dotted form.
 */
#define CFG_SECTION_SEP	'.'

struct ibsmd_config {
	uint64_t port_guid;		/* 0: the first InfiniBand port */
	struct cfg_guid_list ports;	/* empty: port_guid's port */
	char *state_dir;		/* may hold CONFIG_GUID_PLACEHOLDER */
	char *runtime_dir;
	enum log_level log_level;
	char *log_file;			/* "-" stderr, "syslog", or a path */
	double sweep_interval;		/* seconds, 0 = no light sweeps */
	struct cfg_name_list routing_engine;
	struct cfg_guid_list root_guids;
	struct cfg_guid_list leaf_guids;
	unsigned max_wire_smps;
	unsigned max_smps_per_node;
	unsigned smp_timeout;		/* ms */
	unsigned smp_retries;
	unsigned sm_priority;
	uint64_t sm_key;
	double sm_poll_interval;	/* seconds */
	unsigned sm_poll_retries;
	uint64_t subnet_prefix;
	unsigned lmc;
	bool lmc_esp0;			/* switch port 0 gets 2^lmc LIDs too */
	uint64_t m_key;
	unsigned m_key_lease_period;	/* seconds */
	unsigned m_key_protect_bits;
	bool m_key_per_port;		/* m_key is the secret of per-port keys */
	bool m_key_takeover;		/* take ports holding other keys */
	char *partitions_file;
	enum cfg_enforcement partition_enforcement;
	bool allow_both_pkeys;
	uint64_t sa_key;		/* SM_Key of trusted SA requests */
	unsigned subnet_timeout;	/* PacketLifeTime code, 0..31 */
	unsigned service_lease;		/* longest ServiceRecord lease, s; 0: none */
	bool consolidate_ipv6_snm;	/* IPv6 SNM groups share an MLID */
	enum cfg_virt virt_mode;	/* virtualization.mode */
	unsigned virt_max_ports;	/* virtualization.max_ports_in_process */
	unsigned virt_guid_byte;	/* virtualization.assigned_guid_byte */
	char *dump_files_dir;		/* OpenSM's files after each sweep;
					 * "": none */
	char *node_name_map;		/* node names; "": descriptions */
	bool perfmgr;			/* read every port's counters */
	unsigned perfmgr_sweep_time_s;	/* seconds between those reads */
	bool perfmgr_clear_saturated;	/* clear counters found saturated */
	/* perfmgr_threshold_*: the rise per read above which an error
	 * counter is rising, in enum pcounter_id's order (its first
	 * PC_NERRORS) */
	unsigned perfmgr_threshold[CFG_PERFMGR_NTHRESHOLDS];
	char *metrics_listen;		/* HOST:PORT of /metrics; "": none */
	/* issue 27: QoS, OpenSM's qos options (core/qos.h) */
	bool qos;			/* SL2VL, VLArb, VLHighLimit managed */
	unsigned max_op_vls;		/* OperationalVLs code cap, 1-5 */
	/* [0] qos_*, then qos_ca_*, qos_sw0_*, qos_swe_*, qos_rtr_*: unset
	 * values (0, CFG_UINT_UNSET, "") take the general set's */
	struct cfg_qos_set {
		unsigned max_vls;	/* 0: unset */
		unsigned high_limit;	/* CFG_UINT_UNSET: unset */
		char *vlarb_high;	/* "": unset */
		char *vlarb_low;
		char *sl2vl;
	} qos_set[5];
	char *qos_policy_file;		/* issue 27 point 2: read when qos is on */

	/* Where each value came from, and its line in that file (0: none). */
	enum cfg_source source[CFG_NOPTIONS];
	unsigned line[CFG_NOPTIONS];
	char *path[CFG_NSOURCES];	/* each file loaded, NULL if none */
};

/* Error lines, "FILE:LINE:COL: message", in the order found; and notes,
 * "FILE:LINE:COL: note: message", on what was accepted but read another
 * way than written (another SM's word for a value), kept whether the
 * load succeeds or not. Start zeroed; loads append; free with
 * config_errors_fini(). */
struct config_errors {
	size_t n;
	char **line;
	size_t nnotes;
	char **note;
};
void config_errors_fini(struct config_errors *errs);

#define CFG_ENGINES_MAX 8

/*
 * The routing engines this ibsmd has, the values routing_engine allows:
 * name(i) for i = 0, 1, ... until NULL (routing_engine_name() is such a
 * function; config/ may not include routing/). Call it before the first
 * config_init(); the names must outlive every configuration.
 */
void config_set_engine_names(const char *(*name)(size_t i));

/* Every option set to its default (source CFG_DEFAULT). */
void config_init(struct ibsmd_config *cfg);
void config_fini(struct ibsmd_config *cfg);
/* dst becomes a deep copy of src (dst need not be initialised). */
void config_copy(struct ibsmd_config *dst, const struct ibsmd_config *src);

#define CONFIG_OK	 0
#define CONFIG_INVALID	-1
#define CONFIG_MISSING	-2

/*
 * Parse the YAML file path and apply the options it sets over cfg with
 * that source. Returns CONFIG_OK; CONFIG_INVALID with every error appended
 * to errs and cfg untouched; or CONFIG_MISSING (cfg and errs untouched)
 * when path does not exist: the caller decides whether that matters (the
 * common and per-instance files are optional, a -c file is not).
 */
int config_load(struct ibsmd_config *cfg, const char *path,
    enum cfg_source source, struct config_errors *errs);
/*
 * Read a whole configuration-like file (ibsmd.conf, partitions.conf) without
 * ever blocking: core/file.h's file_read() with CONFIG_* results.
 */
#define CONFIG_MAX_BYTES	(1u << 20)	/* ibsmd.conf */
int config_read_file(const char *path, size_t max, char **text, size_t *len,
    char *why, size_t whylen);

/* The same on text in memory; name is used in error lines. */
int config_load_buffer(struct ibsmd_config *cfg, const char *name,
    const char *text, size_t len, enum cfg_source source,
    struct config_errors *errs);

/*
 * Set one option from command-line text, validated by the same schema.
 * Lists are comma- or space-separated. Errors read "command line: name:
 * message". Returns CONFIG_OK or CONFIG_INVALID (cfg untouched).
 */
int config_set(struct ibsmd_config *cfg, const char *name, const char *value,
    enum cfg_source source, struct config_errors *errs);

/*
 * `ibsmd -nv`: a comment line per file loaded, then one line per option in
 * schema order, "name: value", padded, "# source[, line N]". Values are
 * normalised (GUIDs 0x%016x, lists [a, b]); the output loads back to the
 * same values.
 */
void config_print(const struct ibsmd_config *cfg, FILE *fp);
/* An option's value as config_print() writes it; returns snprintf's. */
int config_value_text(const struct ibsmd_config *cfg,
    const struct cfg_option *opt, char *buf, size_t len);
bool config_equal(const struct ibsmd_config *a, const struct ibsmd_config *b,
    const struct cfg_option *opt);

/*
 * Reload: call cb (may be NULL) for every option whose value differs
 * between cur and next, in schema order (opt->reloadable tells which
 * kind); returns how many differ. config_apply_reloadable() then copies the reloadable ones
 * (with their sources) from next into cur and leaves the rest as running.
 */
typedef void (*config_diff_cb)(void *arg, const struct cfg_option *opt,
    const struct ibsmd_config *cur, const struct ibsmd_config *next);
size_t config_reload_diff(const struct ibsmd_config *cur,
    const struct ibsmd_config *next, config_diff_cb cb, void *arg);
void config_apply_reloadable(struct ibsmd_config *cur,
    const struct ibsmd_config *next);

/* The table, CFG_NOPTIONS entries indexed by enum cfg_opt_id. */
const struct cfg_option *config_schema(size_t *n);
const struct cfg_option *config_option(const char *name);
/* The option name closest to a misspelt one, or NULL if none is close. */
const char *config_nearest(const char *name);
/* "integer, 1 to 100000 milliseconds; default: 200; reloadable": the line
 * ibsmd.conf(5) and contrib/ibsmd.conf carry for each option. */
int config_option_summary(const struct cfg_option *opt, char *buf,
    size_t len);

const char *config_source_name(enum cfg_source source);
/* tmpl with CONFIG_GUID_PLACEHOLDER replaced by guid; -1 if too long. */
int config_expand(const char *tmpl, uint64_t guid, char *buf, size_t len);
/* HOST:PORT (HOST a name, an IPv4 address, [an IPv6 address] or * for
 * every address; PORT 1 to 65535) into host (without brackets; "" for *)
 * and *port. Returns 0, or -1 with why set. */
int config_hostport(const char *s, char *host, size_t hlen, unsigned *port,
    const char **why);
/* IBSMD_SYSCONFDIR/ibsmd.0x%016x.conf; -1 if too long. */
int config_instance_path(uint64_t guid, char *buf, size_t len);

#endif
