/*
 * OpenSM's options: the table, the refusals ibsmd.conf gives for them, the
 * recognition of an opensm.conf and its conversion. See opensm.h.
 *
 * Facts about OpenSM are those of its 3.3.23 sources (osm_subnet.c): a
 * line is "name value", '#' starts a comment anywhere, the value is the
 * rest of the line without surrounding blanks and quotes, the last line
 * of a name wins, a boolean is TRUE only when written TRUE, numbers are
 * read by strtoull base 0, "(null)" is no value.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* open_memstream, strcasecmp */
#endif
#include "config/opensm.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_int.h"
#include "core/alloc.h"
#include "core/log.h"

#define A(n, ib, d)		{ n, OSM_ALIAS, ib, d, NULL, 0 }
#define AD(n, ib, d, w)		{ n, OSM_ALIAS, ib, d, w, OSM_F_OWN_DEFAULT }
#define C(n, ib, d, w)		{ n, OSM_CONVERT, ib, d, w, 0 }
#define CD(n, ib, d, w)		{ n, OSM_CONVERT, ib, d, w, OSM_F_OWN_DEFAULT }
#define F(n, d, w)		{ n, OSM_FIXED, NULL, d, w, 0 }
#define N(n, d, w)		{ n, OSM_NONE, NULL, d, w, 0 }

/* issue 27: the qos options ibsmd carries; these two it has not */
#define QOS_NO_OPT	"ibsmd writes a switch's SL2VL tables per input " \
		"and output port, never the optimized all-ports form"
#define QOS_NO_SUPPRESS	"ibsmd logs every SL2VL or VLArb Set that " \
		"fails and reads the table again in its next round"
#define NO_CC	"ibsmd does no congestion control"
#define NO_PERF	"ibsmd's performance manager (perfmgr) has no such " \
		"setting"
#define NO_ENG(e) e " routing is not in ibsmd (ftree, updn, minhop)"

static const struct osm_option table[] = {
	/* device attributes */
	A("guid", "port_guid", "0x0000000000000000"),
	A("m_key", "m_key", "0x0000000000000000"),
	A("m_key_lease_period", "m_key_lease_period", "0"),
	A("m_key_protection_level", "m_key_protect_bits", "0"),
	N("m_key_lookup", "TRUE", "ibsmd keeps no guid2mkey file: every port "
	    "is given m_key, or with m_key_per_port a key derived from it"),
	A("sm_key", "sm_key", "0x0000000000000001"),
	A("sa_key", "sa_key", "0x0000000000000001"),
	A("subnet_prefix", "subnet_prefix", "0xfe80000000000000"),
	A("lmc", "lmc", "0"),
	A("lmc_esp0", "lmc_esp0", "FALSE"),
	F("sm_sl", "0", "ibsmd writes SMSL 0 to every port"),
	F("packet_life_time", "0x12", "ibsmd writes LifeTimeValue 0x12 to "
	    "every switch"),
	F("vl_stall_count", "0x07", "ibsmd writes VLStallCount 7 to every "
	    "switch port"),
	F("leaf_vl_stall_count", "0x07", "ibsmd writes VLStallCount 7 to "
	    "every switch port"),
	F("head_of_queue_lifetime", "0x12", "ibsmd writes HOQLife 0x12 to "
	    "switch ports between switches"),
	F("leaf_head_of_queue_lifetime", "0x10", "ibsmd writes HOQLife 0x10 "
	    "to switch ports facing a CA or router"),
	A("max_op_vls", "max_op_vls", "5"),
	N("force_link_speed", "15", "ibsmd leaves LinkSpeedEnabled as the "
	    "port holds it"),
	N("force_link_speed_ext", "31", "ibsmd leaves LinkSpeedExtEnabled as "
	    "the port holds it"),
	N("force_link_width", "255", "ibsmd leaves LinkWidthEnabled as the "
	    "port holds it"),
	N("fdr10", "1", "ibsmd sends no ExtendedPortInfo: FDR10 stays as the "
	    "link negotiates it"),
	A("subnet_timeout", "subnet_timeout", "18"),
	N("local_phy_errors_threshold", "0x08", "ibsmd leaves the port's "
	    "LocalPhyErrors threshold as it is"),
	N("overrun_errors_threshold", "0x08", "ibsmd leaves the port's "
	    "OverrunErrors threshold as it is"),
	F("use_mfttop", "TRUE", "ibsmd sets MulticastFDBTop where the switch "
	    "advertises it"),
	/* partitioning */
	A("partition_config_file", "partitions_file",
	    "/etc/opensm/partitions.conf"),
	C("no_partition_enforcement", "partition_enforcement", "FALSE",
	    "TRUE is partition_enforcement: off"),
	A("part_enforce", "partition_enforcement", "both"),
	A("allow_both_pkeys", "allow_both_pkeys", "FALSE"),
	F("keep_pkey_indexes", "TRUE", "ibsmd keeps every P_Key at its index "
	    "in the tables"),
	A("sm_assigned_guid", "virtualization.assigned_guid_byte", "0x00"),
	/* sweeps */
	A("sweep_interval", "sweep_interval", "10"),
	N("reassign_lids", "FALSE", "ibsmd keeps the LIDs ports hold and "
	    "remembers (to renumber, stop it and remove guid2lid)"),
	N("force_heavy_sweep", "FALSE", "a light sweep escalates on any "
	    "change; ibsmctl sweep --heavy forces a heavy one"),
	F("sweep_on_trap", "TRUE", "traps 128 and 144 start a heavy sweep"),
	/* routing */
	N("port_profile_switch_nodes", "FALSE", "ibsmd's engines balance "
	    "routes per port without profiling options"),
	N("port_prof_ignore_file", "(null)", "ibsmd's engines balance routes "
	    "per port without profiling options"),
	N("hop_weights_file", "(null)", "ibsmd's engines take no port "
	    "weights"),
	N("port_search_ordering_file", "(null)", "ibsmd's engines take no "
	    "port order"),
	CD("routing_engine", "routing_engine", "(null)", "OpenSM routes with "
	    "minhop; ibsmd's default [ftree, updn] is deadlock-free on every "
	    "topology (routing_engine: [minhop] is OpenSM's)"),
	N("avoid_throttled_links", "FALSE", "ibsmd's dfsssp takes no "
	    "such option; Nue and SSSP routing are not in ibsmd"),
	N("connect_roots", "FALSE", "ibsmd's updn and ftree have no such "
	    "option"),
	N("use_ucast_cache", "FALSE", "ibsmd repairs the tables in use after "
	    "a change, always"),
	N("lid_matrix_dump_file", "(null)", "ibsmd routes afresh at every "
	    "heavy sweep"),
	N("lfts_file", "(null)", NO_ENG("file")),
	C("root_guid_file", "root_guids", "(null)", "a list of the file's "
	    "GUIDs"),
	N("cn_guid_file", "(null)", "ibsmd's ftree tells compute nodes "
	    "itself"),
	N("io_guid_file", "(null)", "ibsmd's ftree has no I/O node class"),
	N("quasi_ftree_indexing", "FALSE", "ibsmd's ftree has no such "
	    "option"),
	N("max_reverse_hops", "0", "ibsmd's ftree has no I/O node class"),
	N("ids_guid_file", "(null)", "ibsmd's updn ranks from root_guids"),
	N("guid_routing_order_file", "(null)", "ibsmd's engines take no "
	    "routing order"),
	N("do_mesh_analysis", "FALSE", NO_ENG("LASH")),
	N("lash_start_vl", "0", NO_ENG("LASH")),
	N("nue_max_num_vls", "1", NO_ENG("Nue")),
	N("nue_include_switches", "FALSE", NO_ENG("Nue")),
	N("port_shifting", "FALSE", "ibsmd's engines have no such option"),
	N("scatter_ports", "0", "ibsmd's engines balance deterministically"),
	N("guid_routing_order_no_scatter", "FALSE", "ibsmd's engines take no "
	    "routing order"),
	N("sa_db_file", "(null)", "ibsmd keeps no SA database: hosts "
	    "register again after a restart or takeover"),
	N("sa_db_dump", "FALSE", "ibsmd keeps no SA database: hosts register "
	    "again after a restart or takeover"),
	N("torus_config", "/etc/opensm/torus-2QoS.conf",
	    NO_ENG("torus-2QoS")),
	/* handover */
	A("sm_priority", "sm_priority", "0"),
	N("ignore_other_sm", "FALSE", "ibsmd always takes part in the "
	    "election"),
	C("sminfo_polling_timeout", "sm_poll_interval", "10000",
	    "in seconds, not milliseconds"),
	A("polling_retry_number", "sm_poll_retries", "4"),
	F("honor_guid2lid_file", "FALSE", "at a takeover ibsmd keeps the "
	    "LIDs the ports hold and learns them into guid2lid"),
	/* timing */
	AD("max_wire_smps", "max_wire_smps", "4", "ibsmd's 64 in flight, at "
	    "most max_smps_per_node to one node, is its own tuning"),
	N("max_wire_smps2", "4", "ibsmd limits SMPs per node instead "
	    "(max_smps_per_node)"),
	N("max_smps_timeout", "600000", "ibsmd limits SMPs per node instead "
	    "(max_smps_per_node)"),
	A("transaction_timeout", "smp_timeout", "200"),
	A("transaction_retries", "smp_retries", "3"),
	N("long_transaction_timeout", "500", "ibsmd sends no optimized "
	    "SL2VL tables"),
	N("max_msg_fifo_timeout", "10000", "the SA answers from the loop, "
	    "with no queue to time out"),
	N("single_thread", "FALSE", "ibsmd is one thread"),
	/* misc */
	N("daemon", "FALSE", "ibsmd stays in the foreground (ibsmd@.service)"),
	N("sm_inactive", "FALSE", "ibsmd has no inactive mode: do not run it "
	    "on that port"),
	N("babbling_port_policy", "FALSE", "ibsmd disables no port"),
	N("drop_event_subscriptions", "FALSE", "ibsmd drops a port's "
	    "subscriptions and services when the port leaves"),
	F("ipoib_mcgroup_creation_validation", "TRUE", "ibsmd checks IPoIB "
	    "groups against the broadcast group"),
	F("mcgroup_join_validation", "TRUE", "ibsmd checks joins against the "
	    "group's parameters"),
	N("use_original_extended_sa_rates_only", "FALSE", "ibsmd's "
	    "PathRecords carry the rate codes of the spec"),
	N("use_optimized_slvl", "FALSE", QOS_NO_OPT),
	F("fsync_high_avail_files", "TRUE", "ibsmd syncs guid2lid and "
	    "alias_guids to storage before replacing them"),
	A("perfmgr", "perfmgr", "FALSE"),
	N("perfmgr_redir", "TRUE", NO_PERF),
	A("perfmgr_sweep_time_s", "perfmgr_sweep_time_s", "180"),
	N("perfmgr_max_outstanding_queries", "500", NO_PERF),
	N("perfmgr_ignore_cas", "FALSE", NO_PERF),
	N("perfmgr_rm_nodes", "TRUE", NO_PERF),
	N("perfmgr_log_errors", "TRUE", NO_PERF),
	N("perfmgr_query_cpi", "TRUE", NO_PERF),
	N("perfmgr_xmit_wait_log", "FALSE", NO_PERF),
	N("perfmgr_xmit_wait_threshold", "65535", NO_PERF),
	N("event_db_dump_file", "(null)", "ibsmd has no event database"),
	N("event_plugin_name", "(null)", "ibsmd loads no plugins"),
	N("event_plugin_options", "(null)", "ibsmd loads no plugins"),
	A("node_name_map_name", "node_name_map", "(null)"),
	/* debugging */
	C("log_flags", "log_level", "0x03", "ERROR is error, INFO info, "
	    "VERBOSE or DEBUG debug"),
	F("force_log_flush", "FALSE", "ibsmd writes every log line at once"),
	AD("log_file", "log_file", "/var/log/opensm.log", "ibsmd logs to "
	    "standard error, the journal under systemd"),
	N("log_max_size", "0", "ibsmd never cuts its log: rotate it and send "
	    "SIGUSR1"),
	F("accum_log_file", "TRUE", "ibsmd appends to its log file"),
	N("per_module_logging_file", "/etc/opensm/per-module-logging.conf",
	    "ibsmd has one log_level"),
	AD("dump_files_dir", "dump_files_dir", "/var/log/", "ibsmd writes "
	    "OpenSM's dump files only where dump_files_dir says"),
	N("enable_quirks", "FALSE", "ibsmd has no quirks options"),
	N("no_clients_rereg", "FALSE", "ibsmd sets ClientReregister once per "
	    "CA port and mastership"),
	N("disable_multicast", "FALSE", "ibsmd always runs multicast"),
	N("exit_on_fatal", "TRUE", "nothing from the wire is fatal to ibsmd"),
	N("console", "off", "ibsmctl talks to ibsmd over a local socket"),
	N("console_port", "10000", "ibsmctl talks to ibsmd over a local "
	    "socket"),
	/* QoS */
	A("qos", "qos", "FALSE"),
	A("qos_policy_file", "qos_policy_file", "/etc/opensm/qos-policy.conf"),
	N("suppress_sl2vl_mad_status_errors", "FALSE", QOS_NO_SUPPRESS),
	A("qos_max_vls", "qos_max_vls", "0"),
	A("qos_high_limit", "qos_high_limit", "-1"),
	A("qos_vlarb_high", "qos_vlarb_high", "(null)"),
	A("qos_vlarb_low", "qos_vlarb_low", "(null)"),
	A("qos_sl2vl", "qos_sl2vl", "(null)"),
	A("qos_ca_max_vls", "qos_ca_max_vls", "0"),
	A("qos_ca_high_limit", "qos_ca_high_limit", "-1"),
	A("qos_ca_vlarb_high", "qos_ca_vlarb_high", "(null)"),
	A("qos_ca_vlarb_low", "qos_ca_vlarb_low", "(null)"),
	A("qos_ca_sl2vl", "qos_ca_sl2vl", "(null)"),
	A("qos_sw0_max_vls", "qos_sw0_max_vls", "0"),
	A("qos_sw0_high_limit", "qos_sw0_high_limit", "-1"),
	A("qos_sw0_vlarb_high", "qos_sw0_vlarb_high", "(null)"),
	A("qos_sw0_vlarb_low", "qos_sw0_vlarb_low", "(null)"),
	A("qos_sw0_sl2vl", "qos_sw0_sl2vl", "(null)"),
	A("qos_swe_max_vls", "qos_swe_max_vls", "0"),
	A("qos_swe_high_limit", "qos_swe_high_limit", "-1"),
	A("qos_swe_vlarb_high", "qos_swe_vlarb_high", "(null)"),
	A("qos_swe_vlarb_low", "qos_swe_vlarb_low", "(null)"),
	A("qos_swe_sl2vl", "qos_swe_sl2vl", "(null)"),
	A("qos_rtr_max_vls", "qos_rtr_max_vls", "0"),
	A("qos_rtr_high_limit", "qos_rtr_high_limit", "-1"),
	A("qos_rtr_vlarb_high", "qos_rtr_vlarb_high", "(null)"),
	A("qos_rtr_vlarb_low", "qos_rtr_vlarb_low", "(null)"),
	A("qos_rtr_sl2vl", "qos_rtr_sl2vl", "(null)"),
	/* congestion control */
	N("congestion_control", "FALSE", NO_CC),
	N("cc_key", "0x0000000000000000", NO_CC),
	N("cc_max_outstanding_mads", "500", NO_CC),
	N("cc_sw_cong_setting_control_map", "0x0", NO_CC),
	N("cc_sw_cong_setting_victim_mask", "0x000000000000000000000000000000"
	    "0000000000000000000000000000000000", NO_CC),
	N("cc_sw_cong_setting_credit_mask", "0x000000000000000000000000000000"
	    "0000000000000000000000000000000000", NO_CC),
	N("cc_sw_cong_setting_threshold", "0x00", NO_CC),
	N("cc_sw_cong_setting_packet_size", "0", NO_CC),
	N("cc_sw_cong_setting_credit_starvation_threshold", "0x00", NO_CC),
	N("cc_sw_cong_setting_credit_starvation_return_delay", "0:0", NO_CC),
	N("cc_sw_cong_setting_marking_rate", "0", NO_CC),
	N("cc_ca_cong_setting_port_control", "0x0000", NO_CC),
	N("cc_ca_cong_setting_control_map", "0x0000", NO_CC),
	N("cc_ca_cong_setting_ccti_timer", "0 0", NO_CC),
	N("cc_ca_cong_setting_ccti_increase", "0 0", NO_CC),
	N("cc_ca_cong_setting_trigger_threshold", "0 0", NO_CC),
	N("cc_ca_cong_setting_ccti_min", "0 0", NO_CC),
	N("cc_cct", "(null)", NO_CC),
	N("prefix_routes_file", "/etc/opensm/prefix-routes.conf", "ibsmd "
	    "does not route to other subnets"),
	A("consolidate_ipv6_snm_req", "consolidate_ipv6_snm", "FALSE"),
	N("log_prefix", "(null)", "ibsmd's log lines carry its name"),
	/* NVIDIA's OpenSM (not in 3.3.23): virtualization */
	A("virt_enabled", "virtualization.mode", NULL),
	A("virt_max_ports_in_process", "virtualization.max_ports_in_process",
	    NULL),
	N("virt_default_hop_limit", NULL, "ibsmd has no such option"),
};

#define NTABLE	(sizeof(table) / sizeof(table[0]))

const struct osm_option *
opensm_options(size_t *n)
{
	*n = NTABLE;
	return table;
}

const struct osm_option *
opensm_option(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Values */

static bool
is_null(const char *v)
{
	return v == NULL || *v == '\0' || strcmp(v, "(null)") == 0;
}

/* OpenSM's strtoull base 0 on the whole value. */
static int
osm_number(const char *v, unsigned long long *out)
{
	char *end;

	if (v == NULL || *v == '\0' || *v == '-')
		return -1;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return *end != '\0' || errno == ERANGE ? -1 : 0;
}

/* Two OpenSM values alike: as numbers when both are, else as words. */
static bool
same_value(const char *a, const char *b)
{
	unsigned long long x, y;

	if (is_null(a) || is_null(b))
		return is_null(a) && is_null(b);
	if (osm_number(a, &x) == 0 && osm_number(b, &y) == 0)
		return x == y;
	return strcasecmp(a, b) == 0;
}

/* The converters of options whose value changes form (convert_value). */
static int
conv_polling(const char *v, char *out, size_t len, char *why, size_t wlen)
{
	unsigned long long n;
	char d[32];

	if (osm_number(v, &n) < 0) {
		snprintf(why, wlen, "not a number of milliseconds");
		return -1;
	}
	config_format_double(n / 1000.0, d, sizeof(d));
	snprintf(out, len, "%s", d);
	return 0;
}

static int
conv_log_flags(const char *v, char *out, size_t len, char *why, size_t wlen)
{
	unsigned long long n;

	if (osm_number(v, &n) < 0) {
		snprintf(why, wlen, "not a number");
		return -1;
	}
	/* 0x01 ERROR, 0x02 INFO, 0x04 VERBOSE, 0x08 DEBUG, the rest (FUNCS,
	 * FRAMES, ROUTING, SYS) extra detail */
	snprintf(out, len, "%s", n & 0xfc ? "debug" : n & 0x02 ? "info" :
	    "error");
	return 0;
}

static int
conv_routing_engine(const char *v, char *out, size_t len, char *why,
    size_t wlen)
{
	char copy[512], *tok, *save = NULL;
	size_t off = 0, k = 0;
	bool fallback = true, minhop = false;

	if (is_null(v))
		return 1;
	snprintf(copy, sizeof(copy), "%s", v);
	why[0] = '\0';
	off += (size_t)snprintf(out, len, "[");
	for (tok = strtok_r(copy, ", \t", &save); tok;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if (strcmp(tok, "no_fallback") == 0) {
			fallback = false;
			continue;
		}
		/* ibsmd's names, and OpenSM's "minhop" for its default
		 * engine */
		if (strcmp(tok, "ftree") && strcmp(tok, "updn") &&
		    strcmp(tok, "minhop")) {
			size_t w = strlen(why);

			snprintf(why + w, wlen - w, "%s%s", w ? ", " :
			    "not in ibsmd: ", tok);
			continue;
		}
		minhop |= strcmp(tok, "minhop") == 0;
		if (off < len)
			off += (size_t)snprintf(out + off, len - off, "%s%s",
			    k++ ? ", " : "", tok);
	}
	if (k == 0) {
		size_t w = strlen(why);

		snprintf(why + w, wlen - w, "%s; ibsmd's default [ftree, "
		    "updn] is deadlock-free", w ? "" : "no engine named");
		return -1;
	}
	/* OpenSM falls back to minhop unless told not to */
	if (fallback && !minhop && off < len)
		off += (size_t)snprintf(out + off, len - off, ", minhop");
	if (off < len)
		snprintf(out + off, len - off, "]");
	return 0;
}

static int
conv_root_guid_file(const char *v, const struct opensm_reader *rd,
    char *out, size_t len, char *why, size_t wlen)
{
	char *text = NULL, *line, *save = NULL, err[160];
	size_t tlen, off = 0, k = 0;
	unsigned long long n;

	if (is_null(v))
		return 1;
	if (rd == NULL || rd->read == NULL) {
		snprintf(why, wlen, "list the GUIDs of %s in root_guids", v);
		return -1;
	}
	err[0] = '\0';
	switch (rd->read(rd->arg, v, &text, &tlen, err, sizeof(err))) {
	case CONFIG_OK:
		break;
	case CONFIG_MISSING:
		snprintf(err, sizeof(err), "no such file");
		/* FALLTHROUGH */
	default:
		snprintf(why, wlen, "cannot read %s: %s: list its GUIDs in "
		    "root_guids", v, err);
		return -1;
	}
	off += (size_t)snprintf(out, len, "[");
	for (line = strtok_r(text, "\r\n", &save); line;
	    line = strtok_r(NULL, "\r\n", &save)) {
		char *hash = strchr(line, '#');

		if (hash != NULL)
			*hash = '\0';
		line += strspn(line, " \t");
		line[strcspn(line, " \t")] = '\0';
		if (*line == '\0')
			continue;
		if (osm_number(line, &n) < 0) {
			snprintf(why, wlen, "%s: \"%.40s\" is not a GUID", v,
			    line);
			free(text);
			return -1;
		}
		if (off < len)
			off += (size_t)snprintf(out + off, len - off,
			    "%s0x%016llx", k++ ? ", " : "", n);
	}
	free(text);
	if (off < len)
		snprintf(out + off, len - off, "]");
	return 0;
}

/* An alias: the same value in ibsmd's syntax, by the option's type. */
static int
conv_alias(const struct cfg_option *io, const char *v, char *out,
    size_t len, char *why, size_t wlen)
{
	unsigned long long n;

	if (io == NULL)
		abort();	/* the table names an option ibsmd has not */
	switch (io->type) {
	case CFG_BOOL:
		/* OpenSM: TRUE is true, anything else false */
		snprintf(out, len, "%s", strcmp(v, "TRUE") == 0 ? "true" :
		    "false");
		return 0;
	case CFG_UINT:
	case CFG_DOUBLE:
	case CFG_GUID:
		/* OpenSM's -1: unset (qos_*high_limit) */
		if ((io->flags & CFG_F_MINUS_ONE) && strcmp(v, "-1") == 0) {
			snprintf(out, len, "-1");
			return 0;
		}
		if (osm_number(v, &n) < 0) {
			snprintf(why, wlen, "not a number");
			return -1;
		}
		snprintf(out, len, io->type == CFG_GUID ? "0x%016llx" :
		    "%llu", n);
		return 0;
	case CFG_ENUM:
		if (is_null(v))
			return 1;
		snprintf(out, len, "%s", v);
		return 0;
	case CFG_STRING:
	case CFG_PATH:
		if (is_null(v))
			return 1;
		config_yaml_string(v, out, len);
		return 0;
	default:
		snprintf(why, wlen, "no conversion");
		return -1;
	}
}

/*
 * OpenSM's value v of o as ibsmd's option text, in out. Returns 0; 1 when
 * v says nothing (OpenSM's "(null)": ibsmd's default then); -1 with the
 * reason in why.
 */
static int
convert_value(const struct osm_option *o, const char *v,
    const struct opensm_reader *rd, char *out, size_t len, char *why,
    size_t wlen)
{
	if (strcmp(o->name, "sminfo_polling_timeout") == 0)
		return conv_polling(v, out, len, why, wlen);
	if (strcmp(o->name, "log_flags") == 0)
		return conv_log_flags(v, out, len, why, wlen);
	if (strcmp(o->name, "no_partition_enforcement") == 0) {
		if (strcmp(v, "TRUE") != 0)
			return 1;
		snprintf(out, len, "off");
		return 0;
	}
	if (strcmp(o->name, "routing_engine") == 0)
		return conv_routing_engine(v, out, len, why, wlen);
	if (strcmp(o->name, "root_guid_file") == 0)
		return conv_root_guid_file(v, rd, out, len, why, wlen);
	return conv_alias(config_option(o->ibsmd), v, out, len, why, wlen);
}

int
opensm_refusal(const struct osm_option *o, const char *value, char *buf,
    size_t len)
{
	char conv[512], why[256];

	switch (o->kind) {
	case OSM_ALIAS:
		return snprintf(buf, len, "OpenSM's %s is ibsmd's %s", o->name,
		    o->ibsmd);
	case OSM_CONVERT:
		if (value != NULL && strcmp(o->name, "root_guid_file") != 0 &&
		    convert_value(o, value, NULL, conv, sizeof(conv), why,
		    sizeof(why)) == 0)
			return snprintf(buf, len, "OpenSM's %s is ibsmd's %s, "
			    "%s: write %s: %s", o->name, o->ibsmd, o->why,
			    o->ibsmd, conv);
		return snprintf(buf, len, "OpenSM's %s is ibsmd's %s, %s",
		    o->name, o->ibsmd, o->why);
	case OSM_FIXED:
		return snprintf(buf, len, "OpenSM's %s is no option in ibsmd: "
		    "%s", o->name, o->why);
	case OSM_NONE:
		break;
	}
	return snprintf(buf, len, "OpenSM's %s has no equivalent in ibsmd: %s",
	    o->name, o->why);
}

/* ------------------------------------------------------------------ */
/* Reading an opensm.conf */

struct osm_line {
	const struct osm_option *o;	/* NULL: unknown to the table */
	char *name, *value;		/* value NULL: none on the line */
	unsigned line, times;		/* times: lines naming it */
};

/* One line of text (NUL-terminated copy) into name and value, as
 * OpenSM's parser: '#' ends it, the first token is the name, the value
 * the rest without blanks around it or quotes. 0: nothing there. */
static int
split_line(char *s, char **name, char **value)
{
	char *p, *e;

	if ((p = strchr(s, '#')) != NULL)
		*p = '\0';
	s += strspn(s, " \t\r\n");
	if (*s == '\0')
		return 0;
	*name = s;
	s += strcspn(s, " \t\r\n");
	if (*s != '\0')
		*s++ = '\0';
	s += strspn(s, " \t\r\n");
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (e - s >= 2 && ((*s == '"' && e[-1] == '"') ||
	    (*s == '\'' && e[-1] == '\''))) {
		e[-1] = '\0';
		s++;
	}
	*value = *s != '\0' ? s : NULL;
	return 1;
}

/* Lines of "name value" with a name OpenSM has, and lines that look like
 * YAML ("name:"). */
static void
count_lines(const char *text, size_t len, unsigned *osm, unsigned *yaml,
    unsigned *first)
{
	size_t i = 0;
	unsigned line = 0;

	*osm = *yaml = *first = 0;
	while (i < len) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t n = nl ? (size_t)(nl - s) : len - i, t;
		char name[128];

		i += n + 1;
		line++;
		if (n == 0 || *s == '#' || *s == ' ' || *s == '\t' ||
		    *s == '\r')
			continue;
		for (t = 0; t < n && t < sizeof(name) - 1 &&
		    (isalnum((unsigned char)s[t]) || s[t] == '_' ||
		    s[t] == '.' || s[t] == '-'); t++)
			name[t] = s[t];
		name[t] = '\0';
		if (t < n && s[t] == ':') {
			(*yaml)++;
			continue;
		}
		if (t == 0 || (t < n && s[t] != ' ' && s[t] != '\t' &&
		    s[t] != '\r'))
			continue;
		if (opensm_option(name) != NULL) {
			if ((*osm)++ == 0)
				*first = line;
		}
	}
}

bool
opensm_conf_like(const char *text, size_t len, unsigned *line)
{
	unsigned osm, yaml, first;

	count_lines(text, len, &osm, &yaml, &first);
	*line = first;
	return osm > 0 && osm >= yaml;
}

/* ------------------------------------------------------------------ */
/* Conversion */

enum { NOT_EQUAL, NOT_NEEDED, NOT_EQUIV, NOT_NCATS };

static const char *const not_heads[NOT_NCATS] = {
	[NOT_EQUAL] = "default equal (ibsmd does the same without a line)",
	[NOT_NEEDED] = "not needed (OpenSM's default; what ibsmd does instead)",
	[NOT_EQUIV] = "no equivalent in ibsmd (what this file asked is not "
	    "done)",
};

struct carried {
	char *value;			/* ibsmd's text */
	const struct osm_line *from;
};

struct conv {
	struct osm_line *l;
	size_t n;
	struct carried *c;		/* by ibsmd option id */
	FILE *nc[NOT_NCATS];		/* comment lines, per category */
	char *nctext[NOT_NCATS];
	size_t nclen[NOT_NCATS];
	struct ibsmd_config def;
};

static void __attribute__((format(printf, 4, 5)))
not_carried(struct conv *cv, int cat, const struct osm_line *l,
    const char *fmt, ...)
{
	va_list ap;

	fprintf(cv->nc[cat], "#   %s %s", l->name, l->value ? l->value :
	    "(no value)");
	if (l->times > 1)
		fprintf(cv->nc[cat], " (line %u, the last of %u)", l->line,
		    l->times);
	if (fmt != NULL) {
		fputs(": ", cv->nc[cat]);
		va_start(ap, fmt);
		vfprintf(cv->nc[cat], fmt, ap);
		va_end(ap);
	}
	fputc('\n', cv->nc[cat]);
}

/* Collect the lines: the last of each name counts, as in OpenSM. */
static void
collect(struct conv *cv, const char *text, size_t len)
{
	size_t i = 0;
	unsigned line = 0;

	while (i < len) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t n = nl ? (size_t)(nl - s) : len - i, k;
		char *copy = config_strndup(s, n), *name, *value;

		i += n + 1;
		line++;
		if (!split_line(copy, &name, &value)) {
			free(copy);
			continue;
		}
		for (k = 0; k < cv->n; k++)
			if (strcmp(cv->l[k].name, name) == 0)
				break;
		if (k == cv->n) {
			cv->l = xreallocarray(cv->l, cv->n + 1, sizeof(*cv->l));
			memset(&cv->l[k], 0, sizeof(cv->l[k]));
			cv->n++;
		} else {
			free(cv->l[k].name);
			free(cv->l[k].value);
		}
		cv->l[k].o = opensm_option(name);
		cv->l[k].name = config_strdup(name);
		cv->l[k].value = config_strdup(value);
		cv->l[k].line = line;
		cv->l[k].times++;
		free(copy);
	}
}

static const struct osm_line *
find_line(const struct conv *cv, const char *name)
{
	for (size_t k = 0; k < cv->n; k++)
		if (strcmp(cv->l[k].name, name) == 0)
			return &cv->l[k];
	return NULL;
}

/* One line of an option ibsmd has (alias or conversion). */
static void
carry(struct conv *cv, const struct osm_line *l,
    const struct opensm_reader *rd)
{
	const struct osm_option *o = l->o;
	const struct cfg_option *io = config_option(o->ibsmd);
	struct config_errors errs = { 0 };
	struct ibsmd_config scratch;
	char val[8192], why[512], *p;
	size_t id = config_option_id(io);
	int r;

	if (l->value == NULL) {
		not_carried(cv, NOT_EQUIV, l, "no value");
		return;
	}
	if ((o->flags & OSM_F_OWN_DEFAULT) && o->def != NULL &&
	    same_value(l->value, o->def)) {
		not_carried(cv, NOT_NEEDED, l, "%s", o->why);
		return;
	}
	if (strcmp(o->name, "part_enforce") == 0) {
		const struct osm_line *npe = find_line(cv,
		    "no_partition_enforcement");

		if (npe != NULL && npe->value != NULL &&
		    strcmp(npe->value, "TRUE") == 0) {
			not_carried(cv, NOT_EQUAL, l, "no_partition_"
			    "enforcement TRUE wins, as in OpenSM");
			return;
		}
	}
	r = convert_value(o, l->value, rd, val, sizeof(val), why, sizeof(why));
	if (r > 0) {
		/* "(null)", or no_partition_enforcement FALSE */
		not_carried(cv, NOT_EQUAL, l, NULL);
		return;
	}
	if (r < 0) {
		not_carried(cv, NOT_EQUIV, l, "%s", why);
		return;
	}
	/* ibsmd's own checks, and its form of the value */
	config_copy(&scratch, &cv->def);
	if (io->type == CFG_STRING || io->type == CFG_PATH) {
		/* config_set takes the text literally: unquote ours */
		if (strcmp(l->value, "(null)") != 0)
			snprintf(val, sizeof(val), "%s", l->value);
	}
	if (config_set(&scratch, io->name, val, CFG_CONFIG_FILE, &errs) !=
	    CONFIG_OK) {
		p = errs.n ? errs.line[0] : "refused";
		if (strncmp(p, "command line: ", 14) == 0)
			p += 14;
		not_carried(cv, NOT_EQUIV, l, "ibsmd refuses it: %s", p);
		config_errors_fini(&errs);
		config_fini(&scratch);
		return;
	}
	config_errors_fini(&errs);
	if (config_equal(&scratch, &cv->def, io)) {
		not_carried(cv, NOT_EQUAL, l, o->ibsmd && strcmp(o->ibsmd,
		    o->name) ? "ibsmd's %s" : NULL, o->ibsmd);
		config_fini(&scratch);
		return;
	}
	config_value_text(&scratch, io, val, sizeof(val));
	config_fini(&scratch);
	if (cv->c[id].from != NULL) {
		/* two OpenSM options for one ibsmd option: the later line */
		const struct osm_line *prev = cv->c[id].from;

		if (prev->line > l->line) {
			not_carried(cv, NOT_EQUAL, l, "line %u's %s wins",
			    prev->line, prev->name);
			return;
		}
		not_carried(cv, NOT_EQUAL, prev, "line %u's %s wins", l->line,
		    l->name);
		free(cv->c[id].value);
	}
	cv->c[id].value = config_strdup(val);
	cv->c[id].from = l;
}

static void
other(struct conv *cv, const struct osm_line *l)
{
	const struct osm_option *o = l->o;

	if (o == NULL) {
		not_carried(cv, NOT_EQUIV, l, "not an option of OpenSM 3.3.23 "
		    "or of ibsmd");
		return;
	}
	if (o->kind == OSM_FIXED && strcmp(o->name, "force_log_flush") == 0) {
		not_carried(cv, NOT_NEEDED, l, "%s", o->why);
		return;
	}
	if (o->def != NULL && same_value(l->value, o->def))
		not_carried(cv, NOT_NEEDED, l, "%s", o->why);
	else
		not_carried(cv, NOT_EQUIV, l, "%s", o->why);
}

int
opensm_convert(const char *name, const char *text, size_t len,
    const struct opensm_reader *rd, FILE *out, struct config_errors *errs)
{
	struct conv cv = { 0 };
	unsigned osm, yaml, first;
	size_t nopt, k, id;
	const struct cfg_option *s = config_schema(&nopt);
	int n;

	count_lines(text, len, &osm, &yaml, &first);
	if (yaml > osm || memchr(text, '\0', len) != NULL) {
		config_errs_add(errs, "%s: not an opensm.conf (%s)", name,
		    yaml > osm ? "its lines are YAML's \"name: value\": an "
		    "ibsmd.conf?" : "a NUL byte");
		return -1;
	}
	config_init(&cv.def);
	cv.c = xcalloc(nopt, sizeof(*cv.c));
	for (int c = 0; c < NOT_NCATS; c++)
		if ((cv.nc[c] = open_memstream(&cv.nctext[c],
		    &cv.nclen[c])) == NULL)
			fatal("config");
	collect(&cv, text, len);
	/* in the table's order, then the unknown ones in the file's */
	for (size_t t = 0; t < NTABLE; t++) {
		const struct osm_line *l = find_line(&cv, table[t].name);

		if (l == NULL)
			continue;
		if (table[t].kind == OSM_ALIAS || table[t].kind == OSM_CONVERT)
			carry(&cv, l, rd);
		else
			other(&cv, l);
	}
	for (k = 0; k < cv.n; k++)
		if (cv.l[k].o == NULL)
			other(&cv, &cv.l[k]);

	fprintf(out, "# ibsmd.conf converted by ibsmd --convert-opensm-conf "
	    "from the opensm.conf\n#   %s\n# Each option carried names the "
	    "OpenSM line it comes from; every other\n# line of that file is "
	    "named below with why it was not carried. Check\n# the result "
	    "with ibsmd -n -c FILE before use.\n", name);
	n = 0;
	for (id = 0; id < nopt; id++)
		if (cv.c[id].from != NULL) {
			const struct osm_line *l = cv.c[id].from;
			int w;

			if (n++ == 0)
				fputc('\n', out);
			w = fprintf(out, "%s: %s", s[id].name, cv.c[id].value);
			fprintf(out, "%*s# %s %s (line %u)\n", w < 38 ? 40 - w :
			    2, "", l->name, l->value, l->line);
		}
	{
		/* ibsmd@.service lets ibsmd write only its state and runtime
		 * directories (ProtectSystem=strict) */
		const struct carried *lf = &cv.c[CFG_OPT_LOG_FILE],
		    *dd = &cv.c[CFG_OPT_DUMP_FILES_DIR];
		bool lfile = lf->from != NULL && lf->value[0] == '/';

		if (lfile || dd->from != NULL)
			fprintf(out, "# Under ibsmd@.service, a drop-in must "
			    "let ibsmd write to %s%s%s\n# (ReadWritePaths=).\n",
			    lfile ? lf->value : "", lfile && dd->from ?
			    " and " : "", dd->from ? dd->value : "");
	}
	for (int c = 0; c < NOT_NCATS; c++) {
		if (fclose(cv.nc[c]) != 0)
			fatal("config");
		if (cv.nclen[c] > 0)
			fprintf(out, "\n# Not carried over, %s:\n%s",
			    not_heads[c], cv.nctext[c]);
		free(cv.nctext[c]);
	}
	for (id = 0; id < nopt; id++)
		free(cv.c[id].value);
	free(cv.c);
	for (k = 0; k < cv.n; k++) {
		free(cv.l[k].name);
		free(cv.l[k].value);
	}
	free(cv.l);
	config_fini(&cv.def);
	return 0;
}
