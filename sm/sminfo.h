/*
 * Being an SM on the wire: answers SMInfo Get (directed route or LID
 * routed) with this SM's GUID, priority, activity count and state, the
 * SM_Key only to a requester that authenticates; takes SMInfo Set
 * (HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER) to the SM state
 * machine when its SM_Key is ours and the state machine accepts it, and
 * refuses it otherwise; receives traps, answers each with TrapRepress and
 * reports it. Other unsolicited requests get a "method/attribute
 * unsupported" answer.
 *
 * A requester authenticates with the SM_Key itself in its SMInfo, or with
 * the port's M_Key in the MAD header (IBA 14.2.5.13 and OpenSM): with no
 * M_Key set (0), every requester passes that check.
 */
#ifndef IBSMD_SMINFO_H
#define IBSMD_SMINFO_H

#include <stdint.h>

struct mad_engine;
struct sminfo;
struct smstate;

typedef void (*sminfo_trap_cb)(void *arg, unsigned trap, uint16_t issuer);

struct sminfo *sminfo_new(struct mad_engine *mad, struct smstate *ss,
    sminfo_trap_cb cb, void *arg);
void sminfo_free(struct sminfo *s);
/* Also hand every trap's Notice (the SMP's 64 data bytes) and its source
 * LID (0: from this node) to cb, after the trap callback: the SA forwards
 * it to subscribers. */
typedef void (*sminfo_notice_cb)(void *arg, const uint8_t *notice,
    uint16_t slid);
void sminfo_set_notice_cb(struct sminfo *s, sminfo_notice_cb cb, void *arg);
/* The M_Key this SM's port holds: requesters presenting it see the key. */
void sminfo_set_mkey(struct sminfo *s, uint64_t mkey);

struct sminfo_counters {
	uint64_t traps;
	uint64_t gets;          /* SMInfo Gets answered */
	uint64_t sets;          /* SMInfo Sets accepted */
	uint64_t refused;       /* SMInfo Sets refused: illegal here */
	uint64_t bad_key;       /* SMInfo Sets refused: wrong SM_Key */
};
void sminfo_get_counters(const struct sminfo *s, struct sminfo_counters *c);
uint64_t sminfo_traps(const struct sminfo *s);

#endif
