/*
 * M_Keys on the wire: the key every SMP presents (installed as mad/smp.h's
 * source), and what a heavy sweep finds of ports holding keys this SM does
 * not give (core/mkey.h says which port holds which key).
 *
 * A request names a destination by directed route or LID; the model being
 * read (fresh) and the model in use (cur) say which managed port that is
 * and what key it was last seen holding. A destination neither model knows
 * (a port not reached before) is presented the subnet key, or with
 * per-port keys the key derived from the port GUID the neighbour map
 * remembers there (sm/mkeys' own file in the state directory, written
 * after each heavy sweep), else none.
 */
#ifndef IBSMD_SM_MKEYS_H
#define IBSMD_SM_MKEYS_H

#include <stdint.h>

#include "core/fabric.h"
#include "core/mkey.h"
#include "mad/smp.h"

struct mkeys;

/* The models: fresh, the one a heavy sweep is reading (NULL: none), cur,
 * the one in use (NULL: none yet). */
typedef void (*mkeys_view_fn)(void *arg, const struct fabric **fresh,
    const struct fabric **cur);

/* own_guid: the SM's port GUID (its key is derived before any read);
 * neighbors: the file of the neighbour map, NULL for none. */
struct mkeys *mkeys_new(mkeys_view_fn view, void *arg, uint64_t own_guid,
    const char *neighbors);
void mkeys_free(struct mkeys *mk);

/* The keys to give (start and reload). */
void mkeys_configure(struct mkeys *mk, const struct mkey_cfg *c);

/* The M_Key a request presents (an smp_mkey_fn), and whether it is the
 * one its destination holds as far as we know (an smp_mkey_known_fn:
 * false for a port marked as holding another key). */
uint64_t mkeys_header(void *mk, const struct smp_req *q);
bool mkeys_known(void *mk, const struct smp_req *q);

/* After a discovery: classify every managed port read in fresh (the
 * PortInfo as read, against the key its Get presented), mark those that
 * hold a key this SM leaves alone (fabric_port.mkey_foreign), and say so
 * once per port and again when it changes. Returns how many are marked. */
unsigned mkeys_classify(struct mkeys *mk, struct fabric *fresh,
    const struct fabric *cur);

/* m_key_takeover: a port whose key is hidden from us can only be taken
 * once its lease runs out, and a lease starts at a request with a wrong
 * key: send each such port of f one (a SubnSet of NodeDescription, which
 * changes nothing even where it passes), once per call, when its lease
 * period is not 0. Returns the longest lease period (s) of those sent
 * one, 0 for none: a heavy sweep after it finds them readable. */
unsigned mkeys_provoke(struct mkeys *mk, struct mad_engine *mad,
    const struct fabric *f);

/* After a model is adopted: remember who is cabled to whom (the
 * neighbour map), saved when it changed. */
void mkeys_adopted(struct mkeys *mk, const struct fabric *f);

/* Trap 256 (Bad M_Key) received: counted, and logged naming the port
 * whose key was wrong and the requester (LIDADDR) from f, the model in
 * use (NULL: LIDs only); a flood is logged in part (the rest counted). */
void mkeys_bad_key(struct mkeys *mk, const struct fabric *f,
    const struct mkey_trap *t, double now);

struct mkeys_stats {
	bool key_set;           /* m_key is not 0 */
	bool per_port, takeover;
	uint64_t bad_key_traps; /* trap 256 received */
	char last_offender[192]; /* the last requester named, "" none */
	uint64_t foreign;       /* managed ports marked by the last classify */
	uint64_t hidden, other; /* of them: key hidden, another key shown */
	uint64_t unknown;       /* requests to a destination no model knew */
	uint64_t neighbors;     /* entries of the neighbour map */
};
void mkeys_stats(const struct mkeys *mk, struct mkeys_stats *st);

#endif
