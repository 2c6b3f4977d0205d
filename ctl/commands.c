/*
 * The control protocol's command table. See commands.h.
 */
#include "ctl/commands.h"

#include <stdio.h>
#include <string.h>

const struct ctl_command ctl_commands[CTL_NCMDS] = {
	[CTL_CMD_STATUS] = {
		.name = "status", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "SM state, sweeps, fabric, MAD counters, SA, routing",
	},
	[CTL_CMD_NODES] = {
		.name = "nodes", .min = 0, .max = 1,
		.args = " [LID|GUID|NAME|PATTERN]",
		.request_args = " [LID|GUID|NAME|PATTERN]",
		.doc = "nodes (all, or those named): type, GUID, LIDs, ports, name",
	},
	[CTL_CMD_PORTS] = {
		.name = "ports", .min = 1, .max = 1,
		.args = " LID|GUID|NAME|PATTERN",
		.request_args = " LID|GUID|NAME|PATTERN",
		.doc = "the ports of a node (or of every node a pattern matches)",
	},
	[CTL_CMD_ROUTE] = {
		.name = "route", .min = 2, .max = 2,
		.args = " SRC DST", .request_args = " SRC DST",
		.doc = "the path between two ports, as programmed",
	},
	[CTL_CMD_PARTITIONS] = {
		.name = "partitions", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "the partition policy in force",
	},
	[CTL_CMD_SWEEP] = {
		.name = "sweep", .min = 0, .max = 1,
		.args = " [--heavy|off|on]", .request_args = " [heavy|light|off|on]",
		.doc = "start a light (or heavy) sweep; off holds sweeps, on "
		    "resumes",
	},
	[CTL_CMD_RELOAD] = {
		.name = "reload", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "re-read the configuration and partitions",
	},
	[CTL_CMD_LOG_LEVEL] = {
		.name = "log-level", .min = 1, .max = 1,
		.args = " LEVEL", .request_args = " LEVEL",
		.doc = "error, warn, info or debug",
	},
	[CTL_CMD_REROUTE] = {
		.name = "reroute", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "heavy sweep routing afresh, as on a fresh start",
	},
	[CTL_CMD_MCAST] = {
		.name = "mcast", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "multicast groups: parameters, members, trees",
	},
	[CTL_CMD_SERVICES] = {
		.name = "services", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "the ServiceRecords registered with the SA",
	},
	[CTL_CMD_SUBSCRIPTIONS] = {
		.name = "subscriptions", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "the event subscriptions (InformInfo) and their Reports",
	},
	[CTL_CMD_GUIDS] = {
		.name = "guids", .min = 0, .max = 3,
		.args = " [forget PORT-GUID INDEX]",
		.request_args = " [forget PORT-GUID INDEX]",
		.doc = "VF alias GUIDs per port: index, GUID, state, device; "
		    "forget a stale (released) assignment",
	},
	[CTL_CMD_VPORTS] = {
		.name = "vports", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "vports per physical port: GUID, LID, state, P_Keys",
	},
	[CTL_CMD_ERRORS] = {
		.name = "errors", .min = 0, .max = 0,
		.args = "", .request_args = "",
		.doc = "ports with error counters above 0 (perfmgr): node, "
		    "port, peer, counter, rising or not",
	},
};

const struct ctl_command *
ctl_command_find(const char *name)
{
	for (size_t i = 0; i < CTL_NCMDS; i++)
		if (strcmp(ctl_commands[i].name, name) == 0)
			return &ctl_commands[i];
	return NULL;
}

int
ctl_command_names(char *buf, size_t len)
{
	size_t off = 0;
	int n;

	if (len > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < CTL_NCMDS; i++) {
		n = snprintf(off < len ? buf + off : NULL, off < len ?
		    len - off : 0, "%s%s", i ? ", " : "", ctl_commands[i].name);
		if (n < 0)
			return n;
		off += (size_t)n;
	}
	return (int)off;
}
