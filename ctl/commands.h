/*
 * The commands of the control protocol (sm/ctl.h): one table that ibsmctl
 * checks its command line against and prints in its help, and that the
 * daemon dispatches from, so that the two agree on every name and
 * argument count. The daemon attaches its handlers by enum ctl_cmd.
 *
 * Stands alone: ibsmctl links no floor, so this includes nothing of the
 * project but itself.
 */
#ifndef IBSMD_CTL_COMMANDS_H
#define IBSMD_CTL_COMMANDS_H

#include <stddef.h>

enum ctl_cmd {
	CTL_CMD_STATUS,
	CTL_CMD_NODES,
	CTL_CMD_PORTS,
	CTL_CMD_ROUTE,
	CTL_CMD_PARTITIONS,
	CTL_CMD_SWEEP,
	CTL_CMD_RELOAD,
	CTL_CMD_LOG_LEVEL,
	CTL_CMD_REROUTE,
	CTL_CMD_MCAST,
	CTL_CMD_SERVICES,
	CTL_CMD_SUBSCRIPTIONS,
	CTL_CMD_GUIDS,
	CTL_CMD_VPORTS,
	CTL_CMD_ERRORS,
	CTL_NCMDS
};

struct ctl_command {
	const char *name;
	int min, max;		/* words after the name in a request */
	/* The arguments as ibsmctl takes them (" SRC DST"), for its help
	 * and usage lines, and as a request carries them, for the daemon's
	 * "usage:" answer: ibsmctl's --heavy is the request's "heavy". */
	const char *args;
	const char *request_args;
	const char *doc;	/* ibsmctl -h: what it does, one line */
};

/* The table, CTL_NCMDS entries indexed by enum ctl_cmd. */
extern const struct ctl_command ctl_commands[CTL_NCMDS];

/* The command called name, or NULL. */
const struct ctl_command *ctl_command_find(const char *name);
/* "status, nodes, ..." into buf; returns what snprintf would. */
int ctl_command_names(char *buf, size_t len);

#endif
