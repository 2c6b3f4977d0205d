/*
 * Device programming: desired state (LIDs in the fabric model, forwarding
 * tables from routing) against what each device holds (read in discovery,
 * or remembered from what we wrote), Setting only what differs. Phases,
 * each waited out before the next:
 *   1. PortInfo of end ports (LID, LMC, SM LID, subnet prefix, M_Key) and
 *      link parameters of ports still in INIT (NeighborMTU, OpVLs, ...);
 *   2. SwitchInfo (LinearFDBTop) and LFT blocks, read before written when
 *      the switch may already hold them;
 *   3. ARMED on every INIT port whose peer is up;
 *   4. ACTIVE on every ARMED port whose peer is ARMED or ACTIVE.
 */
#ifndef IBSMD_PROGRAM_H
#define IBSMD_PROGRAM_H

#include <stdint.h>

#include "fabric.h"
#include "routing.h"

struct mad_engine;
struct programmer;

struct program_opts {
	uint64_t subnet_prefix;
	uint64_t mkey;
	uint16_t mkey_lease;
	uint8_t mkey_protect;
	uint8_t lmc;
	uint8_t subnet_timeout;
	uint8_t packet_life;    /* SwitchInfo LifeTimeValue */
};

struct program_result {
	int ok;                 /* every Set succeeded */
	char why[160];
	unsigned portinfo_sets;
	unsigned switchinfo_sets;
	unsigned lft_reads;
	unsigned lft_writes;
	unsigned armed, activated;
	unsigned failures;
};

typedef void (*program_done_cb)(void *arg, const struct program_result *r);

struct programmer *program_new(struct mad_engine *mad);
void program_free(struct programmer *pr);

/* Program f to the state described by its LIDs and lft (whose switch
 * indices refer to f). sm_lid is the SM port's LID. f's PortInfo copies
 * are updated with what the devices answered. Only one run at a time. */
void program_start(struct programmer *pr, struct fabric *f,
    const struct lft_set *lft, uint16_t sm_lid, const struct program_opts *o,
    program_done_cb done, void *arg);
/* Abandon the run in progress: done is not called. */
void program_abort(struct programmer *pr);

/* Forget what we remember of every switch's LFT (next run reads again). */
void program_forget(struct programmer *pr);

#endif
