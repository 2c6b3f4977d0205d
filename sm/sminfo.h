/*
 * Being the SM on the wire: answers SMInfo Get (directed route or LID
 * routed) with our GUID, priority, activity count and state; receives traps,
 * answers each with TrapRepress and reports it to the sweep. Other
 * unsolicited requests get a "method/attribute unsupported" answer.
 */
#ifndef IBSMD_SMINFO_H
#define IBSMD_SMINFO_H

#include <stdint.h>

struct mad_engine;
struct sminfo;

enum sm_state { SM_NOTACTIVE = 0, SM_DISCOVERING = 1, SM_STANDBY = 2,
		SM_MASTER = 3 };

typedef void (*sminfo_trap_cb)(void *arg, unsigned trap, uint16_t issuer);

struct sminfo *sminfo_new(struct mad_engine *mad, uint8_t priority,
    sminfo_trap_cb cb, void *arg);
void sminfo_free(struct sminfo *s);
void sminfo_set_state(struct sminfo *s, enum sm_state state);
void sminfo_set_priority(struct sminfo *s, uint8_t priority);
enum sm_state sminfo_state(const struct sminfo *s);
uint8_t sminfo_priority(const struct sminfo *s);
const char *sminfo_state_name(enum sm_state state);
uint64_t sminfo_traps(const struct sminfo *s);

#endif
