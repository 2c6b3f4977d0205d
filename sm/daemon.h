/*
 * The daemon: its state, and the go-between of its modules. main.c creates
 * the modules in order and wires these callbacks into them; through them
 * a trap asks for a sweep, the SM state machine's moves reach the SA,
 * multicast, systemd and the stats file, each model the sweep adopts
 * becomes the SA's view and multicast's fabric, and the SA's joins and
 * alias GUID changes reach sm/mcast and sm/vfguid. reload.c re-reads the
 * configuration into the same state.
 */
#ifndef IBSMD_SM_DAEMON_H
#define IBSMD_SM_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ev.h>

#include "config/config.h"
#include "core/qos.h"
#include "sa/sa.h"
#include "sm/ctl.h"

struct devread;
struct fabric;
struct programmer;
struct perfmgr;
struct metrics;
struct mad_engine;
struct node_names;
struct pkey_policy;
struct qos_policy;
struct pkey_table;
struct sm_mcast;
struct sminfo;
struct smstate;
struct smstate_hooks;
struct sweep;
struct upkeep;
struct vfguid;

/* Exit codes (documented in ibsmd(8)). EXIT_USAGE is every mistake of
 * the command line or the configuration at start, the partitions file and
 * the log file included: ibsmd@.service does not restart on it
 * (RestartPreventExitStatus), since no restart mends a file. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_LOCKED = 3 };

#define MAX_CLI 64
#define SA_SMS_MAX 16

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
	struct mkeys *mkeys;     /* the M_Key each SMP presents */
	struct perfmgr *perfmgr; /* port counters (perfmgr; NULL with --once) */
	struct metrics *metrics; /* GET /metrics (metrics_listen), or NULL */
	struct upkeep *upkeep;  /* the steps after an up as master */
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
	/* issue 27: the qos tables sm/devread programs, from cfg at each
	 * subnet up */
	struct qos_config qos;
	struct pkey_policy *policy;
	struct qos_policy *qos_policy;  /* qos_policy_file (issue 27); NULL:
					 * qos off or no file */
	bool qos_counted;               /* its port groups' sizes logged */
	char state_dir[4096], runtime_dir[4096];
	bool ready_sent;
	int exit_code;
};

/* The callbacks main.c hands to the modules it creates (arg: the daemon):
 * smstate's hooks; sminfo's traps and the notices of every trap (for the
 * SA's InformInfo subscribers); the end of a sweep (--once ends the loop
 * there), the model it adopts, and its stats file. */
void daemon_smstate_hooks(struct daemon *d, struct smstate_hooks *h);
void daemon_on_trap(void *arg, unsigned trap, uint16_t issuer);
void daemon_on_trap_notice(void *arg, const uint8_t *notice, uint16_t slid);
/* The steps after an up as master (sm/upkeep), hooked to this daemon's
 * multicast, alias GUIDs, dump files, port tables and readiness. */
struct upkeep *daemon_upkeep_new(struct daemon *d);
void daemon_on_up(void *arg, bool ok, const char *why);
/* The model in use, for sm/perfmgr (arg: the daemon). */
const struct fabric *daemon_fabric(void *arg);
/* perfmgr's options from the running configuration; started at once
 * when it was turned on while master with the subnet up. */
void daemon_perfmgr_opts(struct daemon *d);
/* The M_Keys of the configuration to sm/mkeys, and the key of our own
 * port (what SMInfo requesters present) to sm/sminfo. */
void daemon_keys(struct daemon *d);
void daemon_on_adopt(void *arg);
void daemon_qos_before_activate(void *arg, struct programmer *pr,
    struct fabric *f);
void daemon_qos_build(struct daemon *d);
void daemon_stats_file(void *arg, FILE *fp);
/* The timer that lets a hypervisor's vport traps settle into one sweep
 * (after sweep_new). */
void daemon_vport_settle_init(struct daemon *d);
/* The SA's options from the running configuration, with multicast's
 * hooks. */
void daemon_sa_opts(struct daemon *d, struct sa_opts *o);
/* d->cd, what ctl, STATUS= and the stats file read (after every module
 * it names is created). */
void daemon_ctl_deps(struct daemon *d);
/* Hand the SA the model in use (again: the policy or options changed). */
void daemon_sa_view_update(struct daemon *d);
/* STATUS= for systemctl status: the line `ibsmctl status` would sum up. */
void daemon_notify_status(struct daemon *d);

#endif
