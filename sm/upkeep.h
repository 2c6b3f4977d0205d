/*
 * What a heavy sweep that brought the subnet up as master is followed by,
 * in order, as a table state machine beside the sweep's: the multicast
 * forwarding tables (every switch's blocks that differ from the trees),
 * then the VF alias GUIDs the devices do not hold, then the finish (the
 * dump files, the port tables the SA shows read, readiness told). A step
 * that sends Sets ends when they settle (answered or failed); one that has
 * nothing to send ends at once. A new "up" while a step is under way
 * starts again from the multicast tables (the model changed); "stop" (no
 * longer master) abandons the steps, and a late "settled" of a step not
 * under way is ignored. The end of a sweep has one owner: this.
 *
 * Pure sequencing, no I/O: the daemon's hooks do the work (sm/daemon.c);
 * tests/unit/check_upkeep.c drives it with fake hooks.
 */
#ifndef IBSMD_SM_UPKEEP_H
#define IBSMD_SM_UPKEEP_H

#include <stdbool.h>
#include <stdint.h>

enum upkeep_step {
	UPKEEP_IDLE,            /* not master, or never up */
	UPKEEP_MCAST,           /* MFT and MulticastFDBTop Sets in flight */
	UPKEEP_ALIAS,           /* GUIDInfo Sets in flight */
	UPKEEP_DONE,            /* finished, until the next up */
	UPKEEP_COUNT
};

struct upkeep_hooks {
	void *arg;
	/* Start a step's Sets; true: they are in flight, and the daemon
	 * calls upkeep_settled() with that step once they settle (never
	 * from within the hook); false: nothing to wait for. */
	bool (*mcast)(void *arg);
	bool (*alias)(void *arg);
	/* the last step, done at once */
	void (*finish)(void *arg);
};

struct upkeep_stats {
	enum upkeep_step step;
	uint64_t rounds;        /* ups taken */
	uint64_t restarts;      /* ups that came while a step was under way */
	uint64_t finished;      /* rounds that reached the finish */
};

struct upkeep;

struct upkeep *upkeep_new(const struct upkeep_hooks *h);
void upkeep_free(struct upkeep *u);
/* A heavy sweep brought the subnet up as master. */
void upkeep_up(struct upkeep *u);
/* This SM is no longer master. */
void upkeep_stop(struct upkeep *u);
/* The Sets of that step settled. */
void upkeep_settled(struct upkeep *u, enum upkeep_step step);
void upkeep_get_stats(const struct upkeep *u, struct upkeep_stats *st);
const char *upkeep_step_name(enum upkeep_step s);

#endif
