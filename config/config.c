/*
 * ibsmd.conf: the schema table, whole configurations (defaults, copy,
 * compare), the -nv printer, the reload diff and the schema queries. The
 * values are checked in check.c and loaded in load.c (config_int.h). See
 * config.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* open_memstream, strcasecmp */
#endif
#include "config/config_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/log.h"

#define MAX_GUIDS	4096		/* per GUID list */
#define PRINT_WIDTH	40		/* column of the -nv source comment */

_Static_assert(sizeof(enum log_level) == sizeof(unsigned) &&
    sizeof(enum cfg_enforcement) == sizeof(unsigned) &&
    sizeof(enum cfg_virt) == sizeof(unsigned),
    "enum options are stored as unsigned");
_Static_assert(LOG_LVL_ERROR == 0 && LOG_LVL_WARN == 1 && LOG_LVL_INFO == 2 &&
    LOG_LVL_DEBUG == 3, "log_levels[] follows enum log_level");

static const char *const log_levels[] = { "error", "warn", "info", "debug",
    NULL };
/* routing_engine's values: the engines routing/ has, which config/ may not
 * include; the daemon tells them with config_set_engine_names(). */
static const char *engines[CFG_ENGINES_MAX + 1];
static const char *const enforcements[] = { "both", "in", "out", "off",
    NULL };
static const char *const virt_modes[] = { "off", "disabled", "enabled",
    NULL };
_Static_assert(CFG_VIRT_OFF == 0 && CFG_VIRT_DISABLED == 1 &&
    CFG_VIRT_ENABLED == 2, "virt_modes[] follows enum cfg_virt");
/* NVIDIA's OpenSM (virt_enabled) numbers its modes 0 "ignore", 1
 * "disable", 2 "enable"; VMware's guides say "enable". Its "ignore" is
 * ibsmd's off, so ibsmd's disabled was once called ignore: the word is
 * refused rather than read one way or the other. */
static const struct cfg_word virt_words[] = {
	{ "0", CFG_VIRT_OFF, NULL },
	{ "1", CFG_VIRT_DISABLED, NULL },
	{ "2", CFG_VIRT_ENABLED, NULL },
	{ "disable", CFG_VIRT_DISABLED, "NVIDIA's word for its mode 1 "
	    "(vports read, none written)" },
	{ "enable", CFG_VIRT_ENABLED, "NVIDIA's and VMware's word for "
	    "mode 2" },
	{ "ignore", -1, "NVIDIA's ignore (virt_enabled 0) is ibsmd's off; "
	    "vports read but none written is disabled (NVIDIA's 1)" },
	{ NULL, 0, NULL },
};

#define OFF(f)	offsetof(struct ibsmd_config, f)

static const struct cfg_option schema[CFG_NOPTIONS] = {
	[CFG_OPT_PORT_GUID] = {
		.name = "port_guid", .type = CFG_GUID, .offset = OFF(port_guid),
		.def = "0x0000000000000000", .flags = CFG_F_NOT_INSTANCE,
		.doc = "GUID of the local port to drive; 0x0 means the first "
		    "InfiniBand port.",
	},
	[CFG_OPT_PORTS] = {
		.name = "ports", .type = CFG_GUIDS_OR_ALL, .offset = OFF(ports),
		.max = MAX_GUIDS, .def = "[]", .reloadable = true,
		.flags = CFG_F_NOT_INSTANCE,
		.doc = "Ports ibsmd.service starts an ibsmd on (all; [] is "
		    "port_guid's port).",
	},
	[CFG_OPT_STATE_DIR] = {
		.name = "state_dir", .type = CFG_PATH, .offset = OFF(state_dir),
		.def = IBSMD_STATEDIR "/" CONFIG_GUID_PLACEHOLDER,
		.doc = "Persistent state (guid2lid, stats); <port-guid> becomes "
		    "the port GUID.",
	},
	[CFG_OPT_RUNTIME_DIR] = {
		.name = "runtime_dir", .type = CFG_PATH,
		.offset = OFF(runtime_dir), .def = IBSMD_RUNDIR,
		.doc = "Directory of the lock file and the control socket.",
	},
	[CFG_OPT_LOG_LEVEL] = {
		.name = "log_level", .type = CFG_ENUM, .offset = OFF(log_level),
		.allowed = log_levels, .def = "info", .reloadable = true,
		.doc = "Least severe messages logged.",
	},
	[CFG_OPT_LOG_FILE] = {
		.name = "log_file", .type = CFG_STRING, .offset = OFF(log_file),
		.def = "\"-\"", .reloadable = true,
		.doc = "Where to log: \"-\" for standard error, syslog, or a "
		    "file path.",
	},
	[CFG_OPT_SWEEP_INTERVAL] = {
		.name = "sweep_interval", .type = CFG_DOUBLE,
		.offset = OFF(sweep_interval), .min = 0.1, .max = 86400,
		.flags = CFG_F_ZERO_OFF,
		.unit = "seconds", .def = "10", .reloadable = true,
		.doc = "Period of the light sweep; 0 turns periodic sweeps off.",
	},
	[CFG_OPT_ROUTING_ENGINE] = {
		.name = "routing_engine", .type = CFG_ENUM_LIST,
		.offset = OFF(routing_engine), .min = 1, .max = CFG_NAMES_MAX,
		.allowed = engines, .def = "[ftree, updn]", .reloadable = true,
		.doc = "Routing engines to try in order; the first routing "
		    "loop-free is used.",
	},
	[CFG_OPT_ROOT_GUIDS] = {
		.name = "root_guids", .type = CFG_GUID_LIST,
		.offset = OFF(root_guids), .max = MAX_GUIDS, .def = "[]",
		.reloadable = true,
		.doc = "Node GUIDs of the root switches (ftree, updn); [] lets "
		    "the engine choose.",
	},
	[CFG_OPT_LEAF_GUIDS] = {
		.name = "leaf_guids", .type = CFG_GUID_LIST,
		.offset = OFF(leaf_guids), .max = MAX_GUIDS, .def = "[]",
		.reloadable = true,
		.doc = "Node GUIDs of the leaf switches (ftree); [] lets the "
		    "engine choose.",
	},
	[CFG_OPT_MAX_WIRE_SMPS] = {
		.name = "max_wire_smps", .type = CFG_UINT,
		.offset = OFF(max_wire_smps), .min = 1, .max = 100000,
		.def = "64", .reloadable = true,
		.doc = "SMPs outstanding on the wire overall.",
	},
	[CFG_OPT_MAX_SMPS_PER_NODE] = {
		.name = "max_smps_per_node", .type = CFG_UINT,
		.offset = OFF(max_smps_per_node), .min = 1, .max = 100000,
		.def = "4", .reloadable = true,
		.doc = "SMPs outstanding to one node; other nodes proceed while "
		    "one is slow.",
	},
	[CFG_OPT_SMP_TIMEOUT] = {
		.name = "smp_timeout", .type = CFG_UINT,
		.offset = OFF(smp_timeout), .min = 10, .max = 60000,
		.unit = "milliseconds", .def = "200", .reloadable = true,
		.doc = "Time to wait for the answer to one SMP.",
	},
	[CFG_OPT_SMP_RETRIES] = {
		.name = "smp_retries", .type = CFG_UINT,
		.offset = OFF(smp_retries), .min = 0, .max = 20, .def = "3",
		.reloadable = true,
		.doc = "Retries of an unanswered SMP before its node is given up "
		    "for this sweep.",
	},
	[CFG_OPT_SM_PRIORITY] = {
		.name = "sm_priority", .type = CFG_UINT,
		.offset = OFF(sm_priority), .min = 0, .max = 15, .def = "0",
		.reloadable = true,
		.doc = "SM priority reported in SMInfo.",
	},
	[CFG_OPT_SM_KEY] = {
		.name = "sm_key", .type = CFG_GUID, .offset = OFF(sm_key),
		.flags = CFG_F_SECRET,
		.unit = "64-bit key", .def = "0x0000000000000001",
		.reloadable = true,
		.doc = "SM_Key: SMInfo Sets must carry it; no handover with "
		    "SMs of another key.",
	},
	[CFG_OPT_SM_POLL_INTERVAL] = {
		.name = "sm_poll_interval", .type = CFG_DOUBLE,
		.offset = OFF(sm_poll_interval), .min = 0.1, .max = 3600,
		.unit = "seconds", .def = "10", .reloadable = true,
		.doc = "Seconds between SMInfo polls of the master (standby) "
		    "or other SMs.",
	},
	[CFG_OPT_SM_POLL_RETRIES] = {
		.name = "sm_poll_retries", .type = CFG_UINT,
		.offset = OFF(sm_poll_retries), .min = 1, .max = 100,
		.def = "4", .reloadable = true,
		.doc = "Polls in a row without an answering master before a "
		    "standby takes over.",
	},
	[CFG_OPT_SUBNET_PREFIX] = {
		.name = "subnet_prefix", .type = CFG_GUID,
		.offset = OFF(subnet_prefix), .unit = "64-bit prefix",
		.def = "0xfe80000000000000",
		.doc = "Subnet prefix (GID prefix) written to every port.",
	},
	[CFG_OPT_LMC] = {
		.name = "lmc", .type = CFG_UINT, .offset = OFF(lmc),
		.min = 0, .max = 7, .def = "0",
		.doc = "LID mask control: 2^lmc LIDs per CA and router port, "
		    "over distinct paths.",
	},
	[CFG_OPT_LMC_ESP0] = {
		.name = "lmc_esp0", .type = CFG_BOOL, .offset = OFF(lmc_esp0),
		.def = "false",
		.doc = "Give switch port 0 2^lmc LIDs too, where it is an "
		    "enhanced port 0.",
	},
	[CFG_OPT_M_KEY] = {
		.name = "m_key", .type = CFG_GUID, .offset = OFF(m_key),
		.flags = CFG_F_SECRET,
		.unit = "64-bit key", .def = "0x0000000000000000", .reloadable = true,
		.doc = "M_Key written to every port (per-port keys' secret); 0x0 "
		    "means none.",
	},
	[CFG_OPT_M_KEY_LEASE_PERIOD] = {
		.name = "m_key_lease_period", .type = CFG_UINT,
		.offset = OFF(m_key_lease_period), .min = 0, .max = 65535,
		.unit = "seconds", .def = "0", .reloadable = true,
		.doc = "M_Key lease period; 0 means the lease never expires.",
	},
	[CFG_OPT_M_KEY_PROTECT_BITS] = {
		.name = "m_key_protect_bits", .type = CFG_UINT,
		.offset = OFF(m_key_protect_bits), .min = 0, .max = 3,
		.def = "0", .reloadable = true,
		.doc = "M_Key protection level, 0-3 (OpenSM: "
		    "m_key_protection_level).",
	},
	[CFG_OPT_M_KEY_PER_PORT] = {
		.name = "m_key_per_port", .type = CFG_BOOL,
		.offset = OFF(m_key_per_port), .def = "false",
		.reloadable = true,
		.doc = "Give each port its own M_Key, derived from m_key and the "
		    "port GUID.",
	},
	[CFG_OPT_M_KEY_TAKEOVER] = {
		.name = "m_key_takeover", .type = CFG_BOOL,
		.offset = OFF(m_key_takeover), .def = "false",
		.reloadable = true,
		.doc = "Take ports holding another M_Key once it can be read "
		    "(lease over).",
	},
	[CFG_OPT_PARTITIONS_FILE] = {
		.name = "partitions_file", .type = CFG_PATH,
		.offset = OFF(partitions_file),
		.def = IBSMD_SYSCONFDIR "/partitions.conf", .reloadable = true,
		.doc = "Partition definitions, see partitions.conf(5).",
	},
	[CFG_OPT_PARTITION_ENFORCEMENT] = {
		.name = "partition_enforcement", .type = CFG_ENUM,
		.offset = OFF(partition_enforcement), .allowed = enforcements,
		.def = "both", .reloadable = true,
		.doc = "P_Key filtering on switch ports to end nodes: both ways, "
		    "in, out, off.",
	},
	[CFG_OPT_ALLOW_BOTH_PKEYS] = {
		.name = "allow_both_pkeys", .type = CFG_BOOL,
		.offset = OFF(allow_both_pkeys), .def = "false",
		.reloadable = true,
		.doc = "Allow a port to be both a full and a limited member of "
		    "one partition.",
	},
	[CFG_OPT_SA_KEY] = {
		.name = "sa_key", .type = CFG_GUID, .offset = OFF(sa_key),
		.flags = CFG_F_SECRET,
		.unit = "64-bit key", .def = "0x0000000000000001",
		.reloadable = true,
		.doc = "SM_Key of trusted SA requests (0: all are); other "
		    "nonzero keys: dropped.",
	},
	[CFG_OPT_SUBNET_TIMEOUT] = {
		.name = "subnet_timeout", .type = CFG_UINT,
		.offset = OFF(subnet_timeout), .min = 0, .max = 31, .def = "18",
		.reloadable = true,
		.doc = "PathRecord PacketLifeTime: 4.096 us x 2^value "
		    "(18: about 1 s).",
	},
	[CFG_OPT_SERVICE_LEASE] = {
		.name = "service_lease", .type = CFG_UINT,
		.offset = OFF(service_lease), .min = 0, .max = 2147483647,
		.def = "0", .unit = "seconds", .reloadable = true,
		.doc = "Longest ServiceRecord lease granted; 0: no limit "
		    "(infinite leases allowed).",
	},
	[CFG_OPT_CONSOLIDATE_IPV6_SNM] = {
		.name = "consolidate_ipv6_snm", .type = CFG_BOOL,
		.offset = OFF(consolidate_ipv6_snm), .def = "false",
		.doc = "IPv6 solicited-node multicast groups of one scope and "
		    "P_Key share one MLID.",
	},
	[CFG_OPT_VIRT_MODE] = {
		.name = "virtualization.mode", .type = CFG_ENUM,
		.offset = OFF(virt_mode), .allowed = virt_modes,
		.words = virt_words, .def = "off",
		.doc = "SR-IOV: off sends no vport attribute, disabled keeps "
		    "vports down, enabled.",
	},
	[CFG_OPT_VIRT_MAX_PORTS] = {
		.name = "virtualization.max_ports_in_process", .type = CFG_UINT,
		.offset = OFF(virt_max_ports), .min = 1, .max = 4096,
		.def = "64", .reloadable = true,
		.doc = "Virtualization-capable ports whose vports are read or "
		    "set at once.",
	},
	[CFG_OPT_VIRT_GUID_BYTE] = {
		.name = "virtualization.assigned_guid_byte", .type = CFG_UINT,
		.offset = OFF(virt_guid_byte), .min = 0, .max = 255,
		.def = "0",
		.doc = "Byte 3 of generated alias GUIDs: give each subnet its "
		    "own.",
	},
	[CFG_OPT_DUMP_FILES_DIR] = {
		.name = "dump_files_dir", .type = CFG_PATH,
		.offset = OFF(dump_files_dir), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF, .reloadable = true,
		.doc = "OpenSM's opensm-subnet.lst, LFT, MFT and guid2lid dumps "
		    "go here; \"\": none.",
	},
	[CFG_OPT_NODE_NAME_MAP] = {
		.name = "node_name_map", .type = CFG_PATH,
		.offset = OFF(node_name_map), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF, .reloadable = true,
		.doc = "Node names by GUID (OpenSM's and ibnetdiscover's "
		    "format); \"\": descriptions.",
	},
	[CFG_OPT_PERFMGR] = {
		.name = "perfmgr", .type = CFG_BOOL, .offset = OFF(perfmgr),
		.def = "false", .reloadable = true,
		.doc = "As master, read every port's PerfMgt counters "
		    "periodically.",
	},
	[CFG_OPT_PERFMGR_SWEEP_TIME] = {
		.name = "perfmgr_sweep_time_s", .type = CFG_UINT,
		.offset = OFF(perfmgr_sweep_time_s), .min = 1, .max = 86400,
		.unit = "seconds", .def = "180", .reloadable = true,
		.doc = "Seconds between the starts of two reads of every "
		    "port's counters.",
	},
	[CFG_OPT_PERFMGR_CLEAR_SATURATED] = {
		.name = "perfmgr_clear_saturated", .type = CFG_BOOL,
		.offset = OFF(perfmgr_clear_saturated), .def = "false",
		.reloadable = true,
		.doc = "Clear a port's PortCounters counters read at their "
		    "maximum.",
	},
	[CFG_OPT_PERFMGR_THR_SYMBOL_ERROR] = {
		.name = "perfmgr_threshold_symbol_error", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[0]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "SymbolErrorCounter: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_LINK_ERROR_RECOVERY] = {
		.name = "perfmgr_threshold_link_error_recovery", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[1]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "LinkErrorRecoveryCounter: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_LINK_DOWNED] = {
		.name = "perfmgr_threshold_link_downed", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[2]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "LinkDownedCounter: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_RCV_ERRORS] = {
		.name = "perfmgr_threshold_receive_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[3]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "PortRcvErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_RCV_REMOTE_PHYS_ERRORS] = {
		.name = "perfmgr_threshold_receive_remote_physical_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[4]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "PortRcvRemotePhysicalErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_RCV_SWITCH_RELAY_ERRORS] = {
		.name = "perfmgr_threshold_receive_switch_relay_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[5]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "PortRcvSwitchRelayErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_XMIT_DISCARDS] = {
		.name = "perfmgr_threshold_transmit_discards", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[6]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "PortXmitDiscards: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_XMIT_CONSTRAINT_ERRORS] = {
		.name = "perfmgr_threshold_transmit_constraint_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[7]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "PortXmitConstraintErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_RCV_CONSTRAINT_ERRORS] = {
		.name = "perfmgr_threshold_receive_constraint_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[8]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "PortRcvConstraintErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_LOCAL_LINK_INTEGRITY_ERRORS] = {
		.name = "perfmgr_threshold_local_link_integrity_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[9]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "LocalLinkIntegrityErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = {
		.name = "perfmgr_threshold_excessive_buffer_overrun_errors", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[10]), .min = 0, .max = 65535,
		.def = "10", .reloadable = true,
		.doc = "ExcessiveBufferOverrunErrors: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_PERFMGR_THR_VL15_DROPPED] = {
		.name = "perfmgr_threshold_vl15_dropped", .type = CFG_UINT,
		.offset = OFF(perfmgr_threshold[11]), .min = 0, .max = 65535,
		.def = "100", .reloadable = true,
		.doc = "VL15Dropped: rising if one read adds more; "
		    "0: any rise.",
	},
	[CFG_OPT_METRICS_LISTEN] = {
		.name = "metrics_listen", .type = CFG_STRING,
		.offset = OFF(metrics_listen), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_HOSTPORT,
		.doc = "HOST:PORT serving Prometheus' GET /metrics; \"\": none.",
	},
	/* issue 27: QoS, OpenSM's option names and value formats */
	[CFG_OPT_QOS] = {
		.name = "qos", .type = CFG_BOOL, .offset = OFF(qos),
		.def = "false", .reloadable = true,
		.doc = "QoS: program SL2VL, VLArb; SLs from qos_policy_file, "
		    "sl=.",
	},
	[CFG_OPT_MAX_OP_VLS] = {
		.name = "max_op_vls", .type = CFG_UINT, .offset = OFF(max_op_vls),
		.min = 1, .max = 5, .def = "5", .reloadable = true,
		.doc = "OperationalVLs at most: 1 VL0, 2 VL0-1, 3 VL0-3, 4 "
		    "VL0-7, 5 VL0-14.",
	},
	[CFG_OPT_QOS_MAX_VLS] = {
		.name = "qos_max_vls", .type = CFG_UINT,
		.offset = OFF(qos_set[0].max_vls), .min = 1, .max = 15,
		.flags = CFG_F_ZERO_OFF | CFG_F_UNSET, .def = "0",
		.reloadable = true,
		.doc = "Data VLs at most on every port with qos; 0: OpenSM's default.",
	},
	[CFG_OPT_QOS_HIGH_LIMIT] = {
		.name = "qos_high_limit", .type = CFG_UINT,
		.offset = OFF(qos_set[0].high_limit), .min = 0, .max = 255,
		.flags = CFG_F_MINUS_ONE | CFG_F_UNSET, .def = "-1",
		.reloadable = true,
		.doc = "VLHighLimit of every port with qos; -1: OpenSM's default.",
	},
	[CFG_OPT_QOS_VLARB_HIGH] = {
		.name = "qos_vlarb_high", .type = CFG_STRING,
		.offset = OFF(qos_set[0].vlarb_high), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "High VLArb of every port, \"VL:weight,...\"; "
		    "\"\": OpenSM's default.",
	},
	[CFG_OPT_QOS_VLARB_LOW] = {
		.name = "qos_vlarb_low", .type = CFG_STRING,
		.offset = OFF(qos_set[0].vlarb_low), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "Low VLArb of every port, \"VL:weight,...\"; "
		    "\"\": OpenSM's default.",
	},
	[CFG_OPT_QOS_SL2VL] = {
		.name = "qos_sl2vl", .type = CFG_STRING,
		.offset = OFF(qos_set[0].sl2vl), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_SL2VL,
		.reloadable = true,
		.doc = "SL-to-VL table of every port, 16 VLs; \"\": OpenSM's default.",
	},
	[CFG_OPT_QOS_CA_MAX_VLS] = {
		.name = "qos_ca_max_vls", .type = CFG_UINT,
		.offset = OFF(qos_set[1].max_vls), .min = 1, .max = 15,
		.flags = CFG_F_ZERO_OFF | CFG_F_UNSET, .def = "0",
		.reloadable = true,
		.doc = "Data VLs at most on CA ports with qos; 0: qos_max_vls.",
	},
	[CFG_OPT_QOS_CA_HIGH_LIMIT] = {
		.name = "qos_ca_high_limit", .type = CFG_UINT,
		.offset = OFF(qos_set[1].high_limit), .min = 0, .max = 255,
		.flags = CFG_F_MINUS_ONE | CFG_F_UNSET, .def = "-1",
		.reloadable = true,
		.doc = "VLHighLimit of CA ports with qos; -1: qos_high_limit.",
	},
	[CFG_OPT_QOS_CA_VLARB_HIGH] = {
		.name = "qos_ca_vlarb_high", .type = CFG_STRING,
		.offset = OFF(qos_set[1].vlarb_high), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "High VLArb of CA ports, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_high.",
	},
	[CFG_OPT_QOS_CA_VLARB_LOW] = {
		.name = "qos_ca_vlarb_low", .type = CFG_STRING,
		.offset = OFF(qos_set[1].vlarb_low), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "Low VLArb of CA ports, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_low.",
	},
	[CFG_OPT_QOS_CA_SL2VL] = {
		.name = "qos_ca_sl2vl", .type = CFG_STRING,
		.offset = OFF(qos_set[1].sl2vl), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_SL2VL,
		.reloadable = true,
		.doc = "SL-to-VL table of CA ports, 16 VLs; \"\": qos_sl2vl.",
	},
	[CFG_OPT_QOS_SW0_MAX_VLS] = {
		.name = "qos_sw0_max_vls", .type = CFG_UINT,
		.offset = OFF(qos_set[2].max_vls), .min = 1, .max = 15,
		.flags = CFG_F_ZERO_OFF | CFG_F_UNSET, .def = "0",
		.reloadable = true,
		.doc = "Data VLs at most on switch ports 0 with qos; 0: qos_max_vls.",
	},
	[CFG_OPT_QOS_SW0_HIGH_LIMIT] = {
		.name = "qos_sw0_high_limit", .type = CFG_UINT,
		.offset = OFF(qos_set[2].high_limit), .min = 0, .max = 255,
		.flags = CFG_F_MINUS_ONE | CFG_F_UNSET, .def = "-1",
		.reloadable = true,
		.doc = "VLHighLimit of switch ports 0 with qos; -1: qos_high_limit.",
	},
	[CFG_OPT_QOS_SW0_VLARB_HIGH] = {
		.name = "qos_sw0_vlarb_high", .type = CFG_STRING,
		.offset = OFF(qos_set[2].vlarb_high), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "High VLArb of switch ports 0, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_high.",
	},
	[CFG_OPT_QOS_SW0_VLARB_LOW] = {
		.name = "qos_sw0_vlarb_low", .type = CFG_STRING,
		.offset = OFF(qos_set[2].vlarb_low), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "Low VLArb of switch ports 0, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_low.",
	},
	[CFG_OPT_QOS_SW0_SL2VL] = {
		.name = "qos_sw0_sl2vl", .type = CFG_STRING,
		.offset = OFF(qos_set[2].sl2vl), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_SL2VL,
		.reloadable = true,
		.doc = "SL-to-VL table of switch ports 0, 16 VLs; \"\": qos_sl2vl.",
	},
	[CFG_OPT_QOS_SWE_MAX_VLS] = {
		.name = "qos_swe_max_vls", .type = CFG_UINT,
		.offset = OFF(qos_set[3].max_vls), .min = 1, .max = 15,
		.flags = CFG_F_ZERO_OFF | CFG_F_UNSET, .def = "0",
		.reloadable = true,
		.doc = "Data VLs at most on switch ports 1-N with qos; 0: qos_max_vls.",
	},
	[CFG_OPT_QOS_SWE_HIGH_LIMIT] = {
		.name = "qos_swe_high_limit", .type = CFG_UINT,
		.offset = OFF(qos_set[3].high_limit), .min = 0, .max = 255,
		.flags = CFG_F_MINUS_ONE | CFG_F_UNSET, .def = "-1",
		.reloadable = true,
		.doc = "VLHighLimit of switch ports 1-N with qos; -1: qos_high_limit.",
	},
	[CFG_OPT_QOS_SWE_VLARB_HIGH] = {
		.name = "qos_swe_vlarb_high", .type = CFG_STRING,
		.offset = OFF(qos_set[3].vlarb_high), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "High VLArb of switch ports 1-N, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_high.",
	},
	[CFG_OPT_QOS_SWE_VLARB_LOW] = {
		.name = "qos_swe_vlarb_low", .type = CFG_STRING,
		.offset = OFF(qos_set[3].vlarb_low), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "Low VLArb of switch ports 1-N, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_low.",
	},
	[CFG_OPT_QOS_SWE_SL2VL] = {
		.name = "qos_swe_sl2vl", .type = CFG_STRING,
		.offset = OFF(qos_set[3].sl2vl), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_SL2VL,
		.reloadable = true,
		.doc = "SL-to-VL table of switch ports 1-N, 16 VLs; \"\": qos_sl2vl.",
	},
	[CFG_OPT_QOS_RTR_MAX_VLS] = {
		.name = "qos_rtr_max_vls", .type = CFG_UINT,
		.offset = OFF(qos_set[4].max_vls), .min = 1, .max = 15,
		.flags = CFG_F_ZERO_OFF | CFG_F_UNSET, .def = "0",
		.reloadable = true,
		.doc = "Data VLs at most on router ports with qos; 0: qos_max_vls.",
	},
	[CFG_OPT_QOS_RTR_HIGH_LIMIT] = {
		.name = "qos_rtr_high_limit", .type = CFG_UINT,
		.offset = OFF(qos_set[4].high_limit), .min = 0, .max = 255,
		.flags = CFG_F_MINUS_ONE | CFG_F_UNSET, .def = "-1",
		.reloadable = true,
		.doc = "VLHighLimit of router ports with qos; -1: qos_high_limit.",
	},
	[CFG_OPT_QOS_RTR_VLARB_HIGH] = {
		.name = "qos_rtr_vlarb_high", .type = CFG_STRING,
		.offset = OFF(qos_set[4].vlarb_high), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "High VLArb of router ports, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_high.",
	},
	[CFG_OPT_QOS_RTR_VLARB_LOW] = {
		.name = "qos_rtr_vlarb_low", .type = CFG_STRING,
		.offset = OFF(qos_set[4].vlarb_low), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_VLARB,
		.reloadable = true,
		.doc = "Low VLArb of router ports, \"VL:weight,...\"; "
		    "\"\": qos_vlarb_low.",
	},
	[CFG_OPT_QOS_RTR_SL2VL] = {
		.name = "qos_rtr_sl2vl", .type = CFG_STRING,
		.offset = OFF(qos_set[4].sl2vl), .def = "\"\"",
		.flags = CFG_F_EMPTY_OFF | CFG_F_UNSET | CFG_F_QOS_SL2VL,
		.reloadable = true,
		.doc = "SL-to-VL table of router ports, 16 VLs; \"\": qos_sl2vl.",
	},
	/* issue 27 point 2: the QoS policy file */
	[CFG_OPT_QOS_POLICY_FILE] = {
		.name = "qos_policy_file", .type = CFG_PATH,
		.offset = OFF(qos_policy_file),
		.def = IBSMD_SYSCONFDIR "/qos-policy.conf", .reloadable = true,
		.doc = "QoS policy (OpenSM's format), read when qos is on; see "
		    "qos-policy.conf(5).",
	},
};

static const char *const source_names[CFG_NSOURCES] = {
	[CFG_DEFAULT] = "default",
	[CFG_COMMON_FILE] = "common file",
	[CFG_INSTANCE_FILE] = "instance file",
	[CFG_CONFIG_FILE] = "-c file",
	[CFG_CMDLINE] = "command line",
};

/* ------------------------------------------------------------------ */
/* Routing engine names */

void
config_set_engine_names(const char *(*name)(size_t i))
{
	const char *n;
	size_t i;

	for (i = 0; (n = name(i)) != NULL; i++) {
		if (i == CFG_ENGINES_MAX)
			fatalx("config: more than %d routing engines",
			    CFG_ENGINES_MAX);
		engines[i] = n;
	}
	engines[i] = NULL;
}

/* ------------------------------------------------------------------ */
/* Whole configurations */

static void
free_field(struct ibsmd_config *cfg, const struct cfg_option *o)
{
	void *f = config_field(cfg, o);

	switch (o->type) {
	case CFG_STRING:
	case CFG_PATH:
		free(*(char **)f);
		*(char **)f = NULL;
		break;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		config_guid_list_free(f);
		break;
	default:
		break;
	}
}

/* dst's field (freed before) becomes a deep copy of src's. */
static void
copy_field(struct ibsmd_config *dst, const struct ibsmd_config *src,
    const struct cfg_option *o)
{
	const struct cfg_guid_list *sl;
	struct cfg_guid_list *dl;
	void *df = config_field(dst, o);
	const void *sf = config_field(src, o);

	switch (o->type) {
	case CFG_BOOL:
		*(bool *)df = *(const bool *)sf;
		break;
	case CFG_UINT:
	case CFG_ENUM:
		config_put_enum(df, config_get_enum(sf));
		break;
	case CFG_DOUBLE:
		*(double *)df = *(const double *)sf;
		break;
	case CFG_GUID:
		*(uint64_t *)df = *(const uint64_t *)sf;
		break;
	case CFG_STRING:
	case CFG_PATH:
		*(char **)df = config_strdup(*(char *const *)sf);
		break;
	case CFG_ENUM_LIST:
		*(struct cfg_name_list *)df = *(const struct cfg_name_list *)sf;
		break;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		sl = sf;
		dl = df;
		*dl = *sl;
		dl->guid = NULL;
		if (sl->n) {
			dl->guid = xcalloc(sl->n, sizeof(uint64_t));
			memcpy(dl->guid, sl->guid, sl->n * sizeof(uint64_t));
		}
		break;
	}
	dst->source[o - schema] = src->source[o - schema];
	dst->line[o - schema] = src->line[o - schema];
}

void
config_copy(struct ibsmd_config *dst, const struct ibsmd_config *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		copy_field(dst, src, &schema[i]);
	for (size_t s = 0; s < CFG_NSOURCES; s++)
		dst->path[s] = config_strdup(src->path[s]);
}

void
config_fini(struct ibsmd_config *cfg)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		free_field(cfg, &schema[i]);
	for (size_t s = 0; s < CFG_NSOURCES; s++) {
		free(cfg->path[s]);
		cfg->path[s] = NULL;
	}
}

bool
config_equal(const struct ibsmd_config *a, const struct ibsmd_config *b,
    const struct cfg_option *o)
{
	const void *fa = config_field(a, o), *fb = config_field(b, o);
	const struct cfg_name_list *na = fa, *nb = fb;
	const struct cfg_guid_list *ga = fa, *gb = fb;

	switch (o->type) {
	case CFG_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case CFG_UINT:
	case CFG_ENUM:
		return config_get_enum(fa) == config_get_enum(fb);
	case CFG_DOUBLE:
		return *(const double *)fa == *(const double *)fb;
	case CFG_GUID:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	case CFG_STRING:
	case CFG_PATH:
		return strcmp(*(char *const *)fa, *(char *const *)fb) == 0;
	case CFG_ENUM_LIST:
		return na->n == nb->n &&
		    memcmp(na->name, nb->name, na->n * sizeof(char *)) == 0;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		return ga->all == gb->all && ga->n == gb->n && (ga->n == 0 ||
		    memcmp(ga->guid, gb->guid, ga->n * sizeof(uint64_t)) == 0);
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Defaults */

void
config_init(struct ibsmd_config *cfg)
{
	struct config_errors errs = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if (engines[0] == NULL)
		fatalx("config: no routing engine names: "
		    "config_set_engine_names() comes first");
	/* The defaults go through the loader, so they are checked by the
	 * same rules as a file. */
	memset(cfg, 0, sizeof(*cfg));
	fp = open_memstream(&text, &len);
	if (fp == NULL)
		fatal("config");
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		fprintf(fp, "%s: %s\n", schema[i].name, schema[i].def);
	if (fclose(fp) != 0)
		fatal("config");
	if (config_load_buffer(cfg, "defaults", text, len, CFG_DEFAULT,
	    &errs) != CONFIG_OK)
		fatalx("config: bad built-in default: %s", errs.line[0]);
	free(text);
}


/* ------------------------------------------------------------------ */
/* Printing */

int
config_yaml_string(const char *s, char *buf, size_t len)
{
	static const char indicators[] = "-?:,[]{}#&*!|>'\"%@`";
	bool quote = *s == '\0' || strchr(indicators, *s) || *s == ' ' ||
	    s[strlen(s) - 1] == ' ' || strstr(s, ": ") || strstr(s, " #") ||
	    !strcmp(s, "~") || !strcasecmp(s, "null") ||
	    s[strlen(s) - 1] == ':';
	size_t o = 0;

	for (const char *p = s; *p && !quote; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			quote = true;
	if (!quote)
		return snprintf(buf, len, "%s", s);
	if (len < 3)
		return 0;
	buf[o++] = '"';
	for (; *s && o + 6 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return (int)o;
}

int
config_value_text(const struct ibsmd_config *cfg,
    const struct cfg_option *o, char *buf, size_t len)
{
	const void *f = config_field(cfg, o);
	const struct cfg_name_list *nl = f;
	const struct cfg_guid_list *gl = f;
	size_t off = 0, i;

	switch (o->type) {
	case CFG_BOOL:
		return snprintf(buf, len, "%s", *(const bool *)f ? "true" :
		    "false");
	case CFG_UINT:
		if ((o->flags & CFG_F_MINUS_ONE) &&
		    config_get_enum(f) == CFG_UINT_UNSET)
			return snprintf(buf, len, "-1");
		return snprintf(buf, len, "%u", config_get_enum(f));
	case CFG_DOUBLE:
		return config_format_double(*(const double *)f, buf, len);
	case CFG_GUID:
		return snprintf(buf, len, "0x%016" PRIx64, *(const uint64_t *)f);
	case CFG_STRING:
	case CFG_PATH:
		return config_yaml_string(*(char *const *)f, buf, len);
	case CFG_ENUM:
		return snprintf(buf, len, "%s", o->allowed[config_get_enum(f)]);
	case CFG_ENUM_LIST:
		off += (size_t)snprintf(buf, len, "[");
		for (i = 0; i < nl->n && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
			    i ? ", " : "", nl->name[i]);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "]");
		return (int)off;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		if (gl->all)
			return snprintf(buf, len, "all");
		off += (size_t)snprintf(buf, len, "[");
		for (i = 0; i < gl->n && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off,
			    "%s0x%016" PRIx64, i ? ", " : "", gl->guid[i]);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "]");
		return (int)off;
	}
	return 0;
}

void
config_print(const struct ibsmd_config *cfg, FILE *fp)
{
	size_t vlen = 64 + MAX_GUIDS * 20;
	char *val = xcalloc(vlen, 1);
	int n;

	for (size_t s = CFG_COMMON_FILE; s < CFG_CMDLINE; s++)
		if (cfg->path[s] != NULL)
			fprintf(fp, "# %s: %s\n", source_names[s], cfg->path[s]);
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		config_value_text(cfg, &schema[i], val, vlen);
		n = fprintf(fp, "%s: %s", schema[i].name, val);
		fprintf(fp, "%*s# %s", n < PRINT_WIDTH - 2 ? PRINT_WIDTH - n : 2,
		    "", source_names[cfg->source[i]]);
		if (cfg->line[i])
			fprintf(fp, ", line %u", cfg->line[i]);
		fputc('\n', fp);
	}
	free(val);
}

/* ------------------------------------------------------------------ */
/* Reload */

size_t
config_reload_diff(const struct ibsmd_config *cur,
    const struct ibsmd_config *next, config_diff_cb cb, void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (!config_equal(cur, next, &schema[i])) {
			n++;
			if (cb != NULL)
				cb(arg, &schema[i], cur, next);
		}
	return n;
}

void
config_apply_reloadable(struct ibsmd_config *cur,
    const struct ibsmd_config *next)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (schema[i].reloadable) {
			free_field(cur, &schema[i]);
			copy_field(cur, next, &schema[i]);
		}
	for (size_t s = 0; s < CFG_NSOURCES; s++) {
		free(cur->path[s]);
		cur->path[s] = config_strdup(next->path[s]);
	}
}

/* ------------------------------------------------------------------ */
/* Schema queries */

const struct cfg_option *
config_schema(size_t *n)
{
	*n = CFG_NOPTIONS;
	return schema;
}

size_t
config_option_id(const struct cfg_option *o)
{
	return (size_t)(o - schema);
}

const struct cfg_option *
config_option(const char *name)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (strcmp(schema[i].name, name) == 0)
			return &schema[i];
	return NULL;
}

/* Case and - vs _ do not count as differences. */
static char
fold(char c)
{
	return c == '-' ? '_' : (c >= 'A' && c <= 'Z') ? (char)(c | 0x20) : c;
}

/* Edit distance with adjacent transpositions (optimal string alignment). */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t *d, r;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(x, y) d[(x) * (lb + 1) + (y)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			size_t cost = fold(a[i - 1]) != fold(b[j - 1]);

			best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
			    fold(a[i - 2]) == fold(b[j - 1]) &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

/* needle (folded) occurs in hay. */
static bool
folded_in(const char *needle, const char *hay)
{
	size_t ln = strlen(needle), lh = strlen(hay), i, j;

	for (i = 0; i + ln <= lh; i++) {
		for (j = 0; j < ln && fold(needle[j]) == fold(hay[i + j]); j++)
			;
		if (j == ln)
			return true;
	}
	return false;
}

const char *
config_nearest(const char *name)
{
	size_t len = strlen(name), best = SIZE_MAX, d, limit;
	const char *pick = NULL;

	/* A typo: at most 1 edit in short names, 2 or 3 in longer ones. */
	limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		d = distance(name, schema[i].name);
		if (d <= limit && d < best) {
			best = d;
			pick = schema[i].name;
		}
	}
	if (pick != NULL || len < 4)
		return pick;
	/* Part of a name ("priority"), or a name with more around it. */
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		if (!folded_in(name, schema[i].name) &&
		    !folded_in(schema[i].name, name))
			continue;
		d = distance(name, schema[i].name);
		if (d < best) {
			best = d;
			pick = schema[i].name;
		}
	}
	return pick;
}

int
config_option_summary(const struct cfg_option *o, char *buf, size_t len)
{
	char type[160], lo[32], hi[32], list[128];

	switch (o->type) {
	case CFG_BOOL:
		snprintf(type, sizeof(type), "boolean");
		break;
	case CFG_UINT:
	case CFG_DOUBLE:
		config_format_double(o->min, lo, sizeof(lo));
		config_format_double(o->max, hi, sizeof(hi));
		if (o->min == o->max)
			snprintf(type, sizeof(type), "%s, only %s",
			    o->type == CFG_UINT ? "integer" : "number", lo);
		else if (o->flags & CFG_F_MINUS_ONE)
			snprintf(type, sizeof(type), "integer, -1 (unset) or %s "
			    "to %s", lo, hi);
		else if (o->flags & CFG_F_ZERO_OFF)
			snprintf(type, sizeof(type), "%s, 0 (%s) or %s to "
			    "%s%s%s", o->type == CFG_UINT ? "integer" : "number",
			    o->flags & CFG_F_UNSET ? "unset" : "off",
			    lo, hi, o->unit ? " " : "", o->unit ? o->unit : "");
		else
			snprintf(type, sizeof(type), "%s, %s to %s%s%s",
			    o->type == CFG_UINT ? "integer" : "number", lo, hi,
			    o->unit ? " " : "", o->unit ? o->unit : "");
		break;
	case CFG_GUID:
		snprintf(type, sizeof(type), "%s", o->unit ? o->unit : "GUID");
		break;
	case CFG_STRING:
		snprintf(type, sizeof(type), "%s",
		    o->flags & CFG_F_QOS_VLARB ? "string, \"VL:weight,...\" "
		    "or \"\" (unset)" : o->flags & CFG_F_QOS_SL2VL ?
		    "string, 16 VLs or \"\" (unset)" : "string");
		break;
	case CFG_PATH:
		snprintf(type, sizeof(type), "path%s",
		    o->flags & CFG_F_EMPTY_OFF ? ", or \"\" (off)" : "");
		break;
	case CFG_ENUM:
		config_join_allowed(o->allowed, list, sizeof(list));
		snprintf(type, sizeof(type), "one of %s", list);
		break;
	case CFG_ENUM_LIST:
		config_join_allowed(o->allowed, list, sizeof(list));
		snprintf(type, sizeof(type), "list of %s", list);
		break;
	case CFG_GUID_LIST:
		snprintf(type, sizeof(type), "list of GUIDs");
		break;
	case CFG_GUIDS_OR_ALL:
		snprintf(type, sizeof(type), "all, or a list of GUIDs");
		break;
	}
	return snprintf(buf, len, "%s; default: %s; %s", type, o->def,
	    o->reloadable ? "reloadable" : "restart to change");
}

const char *
config_source_name(enum cfg_source source)
{
	return (unsigned)source < CFG_NSOURCES ? source_names[source] : "?";
}

int
config_expand(const char *tmpl, uint64_t guid, char *buf, size_t len)
{
	const char *p = strstr(tmpl, CONFIG_GUID_PLACEHOLDER);
	int n;

	if (p == NULL)
		n = snprintf(buf, len, "%s", tmpl);
	else
		n = snprintf(buf, len, "%.*s0x%016" PRIx64 "%s",
		    (int)(p - tmpl), tmpl, guid,
		    p + strlen(CONFIG_GUID_PLACEHOLDER));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
config_instance_path(uint64_t guid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/ibsmd.0x%016" PRIx64 ".conf",
	    IBSMD_SYSCONFDIR, guid);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
