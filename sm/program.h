/*
 * Device programming: desired state (LIDs in the fabric model, forwarding
 * tables from routing) against what each device holds (read in discovery,
 * or remembered from what we wrote), Setting only what differs. Phases,
 * each waited out before the next:
 *   1. PortInfo of end ports (LID, LMC, SM LID, subnet prefix, M_Key;
 *      ClientReregister on each CA port once per mastership),
 *      link parameters of ports still in INIT (NeighborMTU, OpVLs, ...),
 *      which the same Set moves to ARMED, and partition enforcement of
 *      switch ports facing CAs;
 *   2. SwitchInfo (LinearFDBTop), LFT blocks and P_Key blocks, read before
 *      written when the device may already hold them;
 *   3. ARMED on every INIT port whose peer is up that phase 1 did not arm
 *      (a Set that failed there);
 *   4. ACTIVE on every ARMED port whose peer is ARMED or ACTIVE.
 */
#ifndef IBSMD_PROGRAM_H
#define IBSMD_PROGRAM_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/mkey.h"
#include "core/qos.h"
#include "routing/routing.h"

struct mad_engine;
struct programmer;

struct program_opts {
	uint64_t subnet_prefix;
	struct mkey_cfg mkeys;  /* the M_Key each end port is given */
	uint16_t mkey_lease;
	uint8_t mkey_protect;
	uint8_t subnet_timeout;
	uint8_t packet_life;    /* SwitchInfo LifeTimeValue */
	/* issue 27: OperationalVLs (max_op_vls, qos_*max_vls) and, with qos,
	 * VLHighLimit, written in PortInfo where they differ; the SL2VL and
	 * VLArb tables are sm/devread's */
	struct qos_config qos;
	/* Called once the forwarding and P_Key tables are written and the
	 * ports armed, before the first port is made Active, when some port
	 * is to be: the QoS tables go in then (sm/devread), so that no port
	 * carries data before its SL-to-VL table maps it. The programmer
	 * waits until program_resume(). NULL: ports go Active at once. */
	void (*before_activate)(void *arg, struct programmer *pr,
	    struct fabric *f);
	void *before_activate_arg;
};

/* Desired partition state of one port (an array indexed like
 * fabric->ports). */
struct pkey_want {
	const uint16_t *keys;   /* n keys, 0 = empty slot; NULL: leave the
				 * port's P_Key table alone */
	uint16_t n;             /* table size (capacity) to program */
	int8_t enforce;         /* switch external port: PortInfo partition
				 * enforcement, bit 0 inbound, bit 1 outbound;
				 * -1: leave alone */
};

struct program_result {
	int ok;                 /* every Set succeeded */
	char why[256];
	unsigned portinfo_sets;
	unsigned switchinfo_sets;
	unsigned lft_reads;
	unsigned lft_writes;
	unsigned pkey_reads;
	unsigned pkey_writes;
	unsigned armed, activated;
	unsigned client_reregs; /* CA ports told ClientReregister */
	unsigned failures;      /* requests that failed in every round */
	unsigned resent;        /* requests sent again (or verified) after
				 * a round failed */
	char first_failure[160]; /* the first of those failures */
	/* Seconds each phase took (CLOCK_MONOTONIC), for the stats file. */
	double ports_seconds, tables_seconds, arm_seconds, activate_seconds;
};

typedef void (*program_done_cb)(void *arg, const struct program_result *r);

struct programmer *program_new(struct mad_engine *mad);
void program_free(struct programmer *pr);

/* Program f to the state described by its LIDs, lft (whose switch indices
 * refer to f) and pk (f->nports entries, or NULL to leave partitions
 * alone). sm_lid is the SM port's LID. f's PortInfo copies are updated with
 * what the devices answered. lft and pk must stay valid until done. Only
 * one run at a time. */
void program_start(struct programmer *pr, struct fabric *f,
    const struct lft_set *lft, const struct pkey_want *pk, uint16_t sm_lid,
    const struct program_opts *o, program_done_cb done, void *arg);

/* Go on after program_opts.before_activate: the ports go Active. Nothing
 * when the programmer does not wait. */
void program_resume(struct programmer *pr);

/* Forget what devices hold: another SM may write them from now on (this
 * one stands by), so the next run reads before it writes. The next run
 * also sets PortInfo:ClientReregister on every CA port again, as at the
 * first run (a new mastership: hosts redo their SA registrations, their
 * subscriptions and multicast joins with this SM). */
void program_forget(struct programmer *pr);

/* Forget what one node's tables hold (a switch, or a CA's ports): it was
 * away from the fabric, and whoever ran it meanwhile may have written
 * it. */
void program_forget_node(struct programmer *pr, uint64_t guid);

/* What a switch's LFT block holds, read by someone else (the takeover's
 * reading of the routes in place): the next run compares with it instead
 * of reading the block again. top is the switch's LinearFDBTop. */
void program_seed_lft(struct programmer *pr, uint64_t guid, uint16_t top,
    uint32_t block, const uint8_t *data);

#endif
