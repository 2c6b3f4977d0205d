/*
 * The SM state machine (IBA 14.4): NOTACTIVE, DISCOVERING, STANDBY and
 * MASTER, a table FSM that owns its timers, and the election between this
 * SM and every other SM the last discovery found.
 *
 * After each heavy discovery the sweep hands the new fabric model to
 * smstate_elect(): every other end port with IsSM is asked for its SMInfo
 * (directed route, our SM_Key presented) and the answers decide. The
 * winner is the higher priority, then the lower port GUID; a MASTER
 * already present wins over a DISCOVERING SM whatever its standing. The
 * sweep programs the fabric only when smstate_may_write() says so: an SM
 * that lost writes nothing.
 *
 * A STANDBY polls the SM it stands by for (SMInfo Get every poll_interval)
 * and, after poll_retries polls in a row without a living master behind
 * them, rediscovers. A MASTER that finds a trusted SM of higher standing
 * hands over (SMInfo Set HANDOVER; the GetResp or an ACKNOWLEDGE makes it
 * STANDBY; a DISCOVERING SM is not offered the subnet before it stands
 * by); one that finds a trusted lower MASTER waits for that SM's
 * HANDOVER, polling it meanwhile. A MASTER re-reads every known SM each
 * poll_interval, so a priority raised elsewhere or a second master is
 * noticed without a trap.
 *
 * An SM port found once stays known: when it comes back after its link or
 * host went away it is asked in the next election whether its port says
 * IsSM or not, and a port that announces itself as an SM with trap 144 is
 * asked too. A MASTER waiting for a lower master's HANDOVER sends that
 * master trap 144 at every poll, so that it looks again. Every SM port is
 * asked with several SMInfo Gets at once in an election (many more for a
 * master whose polls went unanswered), and a STANDBY whose master's polls
 * went unanswered takes over only when that master's port was reached and
 * stays silent, or its link is seen down: on a lossy fabric it stands by
 * for it again (up to a limit, see smstate.c).
 *
 * Trust is the SM_Key: a peer whose SMInfo carries a key other than ours
 * is foreign. Foreign SMs still count in the election (this SM never takes
 * a subnet that another master runs, nor fights one), but no handover is
 * offered to or accepted from them; a MASTER that meets a foreign MASTER
 * steps down to STANDBY.
 *
 * Internally MASTER has two more states, "MASTER (handing over)" and
 * "MASTER (waiting)"; SMInfo reports both as MASTER.
 */
#ifndef IBSMD_SMSTATE_H
#define IBSMD_SMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

struct ev_loop;
struct mad_engine;
struct smstate;

/* SMInfo:SMState. */
enum sm_state { SM_NOTACTIVE = 0, SM_DISCOVERING = 1, SM_STANDBY = 2,
		SM_MASTER = 3 };

/* SMInfo Set attribute modifiers. */
enum sm_signal { SM_SIG_HANDOVER = 1, SM_SIG_ACKNOWLEDGE = 2,
		 SM_SIG_DISABLE = 3, SM_SIG_STANDBY = 4, SM_SIG_DISCOVER = 5 };

struct smstate_opts {
	uint8_t priority;       /* 0-15 */
	uint64_t sm_key;
	uint64_t mkey;          /* M_Key our SMInfo requests present (the
				 * subnet's: other SMs' ports hold it too) */
	double poll_interval;   /* seconds between polls of another SM */
	unsigned poll_retries;  /* polls in a row without a master: gone */
	unsigned elect_copies;  /* SMInfo Gets sent at once to each SM port
				 * in an election (0: 4; four times as many
				 * to a master whose polls went unanswered) */
};

struct smstate_hooks {
	/* A heavy sweep is needed: rediscovery, or a first master sweep. */
	void (*sweep)(void *arg);
	/* Another master handed us a subnet we were master of already
	 * (it ran beside us meanwhile): what we knew of the devices is
	 * void. May be NULL. */
	void (*foreign)(void *arg);
	/* The SMInfo state changed (after the change). */
	void (*changed)(void *arg, enum sm_state from, enum sm_state to,
	    const char *why);
	/* What another SM told of itself changed (its priority or state,
	 * or it answered for the first time). May be NULL. */
	void (*peers)(void *arg);
	void *arg;
};

struct smstate *smstate_new(struct ev_loop *loop, struct mad_engine *mad,
    const struct smstate_opts *o, const struct smstate_hooks *h);
void smstate_free(struct smstate *s);
/* NOTACTIVE -> DISCOVERING: asks for the first heavy sweep. */
void smstate_start(struct smstate *s);
/* New priority, key and polling (reload). A STANDBY whose priority rose
 * above its master's tells the master with trap 144. */
void smstate_set_opts(struct smstate *s, const struct smstate_opts *o);

enum sm_state smstate_state(const struct smstate *s);
const char *smstate_name(enum sm_state state);
/* The state machine's own state name: "MASTER (waiting)"... */
const char *smstate_detail(const struct smstate *s);
uint8_t smstate_priority(const struct smstate *s);
uint64_t smstate_key(const struct smstate *s);
/* Whether sweeps may run (DISCOVERING or MASTER) and whether they may
 * write to the fabric (MASTER, neither handing over nor waiting). */
bool smstate_may_sweep(const struct smstate *s);
bool smstate_may_write(const struct smstate *s);

/* The 64 bytes of our SMInfo; the key only when with_key. */
void smstate_encode(const struct smstate *s, uint8_t *data, bool with_key);

/* Election after a discovery into f (f must stay valid until done). done
 * is called once, from the loop, never from inside this call unless there
 * is no other SM to ask: master tells whether the sweep may program. */
typedef void (*smstate_elect_cb)(void *arg, bool master);
void smstate_elect(struct smstate *s, const struct fabric *f,
    smstate_elect_cb done, void *arg);

/* An SMInfo Set from another SM (sminfo.c checked its SM_Key): smi is the
 * sender's SMInfo. smstate_signal_ok() says whether this state accepts it
 * (the sender must be MASTER for HANDOVER, DISABLE, STANDBY and DISCOVER,
 * STANDBY for ACKNOWLEDGE); answer, then smstate_signal() acts. */
bool smstate_signal_ok(const struct smstate *s, unsigned mod,
    const uint8_t *smi);
void smstate_signal(struct smstate *s, unsigned mod, const uint8_t *smi);

/* A trap 144 from LID lid said its port is an SM (CapabilityMask IsSM):
 * the next election asks it even when its PortInfo does not say so. */
void smstate_note_sm(struct smstate *s, uint16_t lid);

/* Leave the subnet (SIGTERM): a MASTER with a trusted STANDBY hands the
 * subnet over to the best of them and calls done once the standby took it
 * (or after a few seconds); true. false, without calling done, when there
 * is nothing to hand over (not master, or no standby known). */
typedef void (*smstate_left_cb)(void *arg, bool handed);
bool smstate_leave(struct smstate *s, smstate_left_cb done, void *arg);

/* Other SMs seen, for ibsmctl. */
struct smstate_peer {
	uint64_t guid;          /* port GUID */
	uint16_t lid;           /* as the port held it at discovery */
	uint8_t priority;
	enum sm_state state;
	const char *state_name; /* smstate_name(state) */
	bool answered;          /* ever answered SMInfo */
	bool trusted;           /* its SM_Key matches ours */
	bool target;            /* the SM we stand by for, or poll */
	bool present;           /* in the fabric at the last election */
	double last_answer;     /* seconds ago; < 0: never */
	unsigned misses;        /* requests in a row without an answer */
};
struct smstate_status {
	const char *state;      /* smstate_detail() */
	enum sm_state sm_state;
	uint8_t priority;
	bool key_set;
	double poll_interval;
	unsigned poll_retries;
	unsigned misses;        /* polls in a row without a master */
	uint64_t master_guid;   /* the SM stood by for / waited on, 0 */
	uint64_t handovers_sent, handovers_taken, transitions;
	size_t npeers;
	const struct smstate_peer *peers;
};
/* Valid until the next return to the loop. */
void smstate_get_status(struct smstate *s, struct smstate_status *st);

/*
 * The election rule, without I/O (unit tests call it). self and peers give
 * (priority, port GUID, state, trusted); NOTACTIVE peers are ignored.
 * Returns what self should do and, in *which, the peer concerned.
 */
struct sm_candidate {
	uint64_t guid;
	uint8_t priority;
	enum sm_state state;
	bool trusted;
};
enum sm_verdict {
	SM_V_WIN,               /* be (or stay) master */
	SM_V_DEFER,             /* stand by for *which */
	SM_V_HANDOVER,          /* master: hand over to *which (a trusted
				 * STANDBY or MASTER above us) */
	SM_V_WAIT,              /* master: wait for *which's HANDOVER */
};
enum sm_verdict smstate_decide(const struct sm_candidate *self,
    const struct sm_candidate *peers, size_t n, size_t *which);
/* Whether SM a has a higher standing than SM b (14.4.1.2). */
bool smstate_higher(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b,
    uint64_t guid_b);
const char *smstate_verdict_name(enum sm_verdict v);

#endif
