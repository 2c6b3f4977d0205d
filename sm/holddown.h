/*
 * Link hold-down: a switch-to-switch link that went down (or trained
 * again) less than secs ago is held out of routing when it is seen up, so
 * that a flapping cable costs the writes of its first failure and of its
 * final return, not of every bounce (issue 31 point 9). The link still
 * comes up (the programmer arms and activates it); routes move onto it
 * once it has stayed up for secs, in the heavy sweep the caller starts
 * then. Only a link back to the switch it faced when it went down is
 * held, and never when holding would cut a switch off. Pure bookkeeping
 * over two models: no I/O.
 */
#ifndef IBSMD_HOLDDOWN_H
#define IBSMD_HOLDDOWN_H

#include "core/fabric.h"

#define HOLDDOWN_SECS 2.0

struct holddown;

struct holddown *holddown_new(double secs);
void holddown_free(struct holddown *h);

/* Note the links of cur (the model in use, may be NULL) that next shows
 * down, or retrained (INIT or ARMED where cur had ACTIVE), as gone down
 * at now; mark held (fabric_port.held, both ends) the links of next that
 * are up but went down less than secs before now. Returns how many links
 * are held and, in *release, when the first of them may be used (0 when
 * none is held). */
unsigned holddown_apply(struct holddown *h, struct fabric *next,
    const struct fabric *cur, double now, double *release);

#endif
