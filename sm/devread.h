/*
 * The port tables the SA shows and ibsmd does not program in PortInfo
 * (core/devtab): SL-to-VL mapping tables, VL arbitration tables, and the
 * P_Key tables of switch ports ibsmd leaves alone; with qos, the QoS
 * tables written where a port holds others. A round after each subnet up
 * as master reads, LID-routed and a few SMPs at a time beside the sweeps,
 * what the store lacks: every table of a node new to it, and those of a
 * port whose link now goes elsewhere; what was read stays. With qos, a
 * sweep that makes ports Active first runs a round by directed route
 * (devread_qos_dr). Switch SL-to-VL tables are per input and output
 * port, (N + 1)^2 of them per switch.
 */
#ifndef IBSMD_DEVREAD_H
#define IBSMD_DEVREAD_H

#include <stdbool.h>
#include <stdint.h>

struct devread;
struct devtab;
struct ev_loop;
struct fabric;
struct mad_engine;
struct pkey_tables;
struct qos_config;

struct devread *devread_new(struct ev_loop *loop, struct mad_engine *mad);
void devread_free(struct devread *r);

/*
 * Read what the store lacks of the ports of f, which must stay valid until
 * the next devread_start(), devread_adopt() of another model or
 * devread_stop() (reads in flight then finish into the store by node
 * GUID, nothing more is compared with f). pk: the P_Key
 * tables ibsmd programs (NULL: none); enforce_tables: those of switch
 * ports facing CAs are programmed too (partition enforcement not off).
 * Reads still queued from an earlier call are dropped.
 */
/*
 * qc (issue 27): with qos on, the SL-to-VL tables and VL arbitration
 * blocks core/qos wants are written where the port holds something else:
 * a table known from an earlier round (read or written) is compared at
 * once, an unknown one is read first; a restart on a programmed fabric
 * reads every table once and writes none. What a Set's answer says the port holds is
 * what the store (and the SA) shows. qc must stay valid as f does; NULL
 * or qos off: read only.
 */
void devread_start(struct devread *r, const struct fabric *f,
    const struct pkey_tables *pk, bool enforce_tables,
    const struct qos_config *qc);
/*
 * Before ports go Active (sm/program's before_activate): the SL-to-VL tables
 * and VL arbitration blocks qc wants (qos on) written into every port of
 * f, by directed route (a LID-routed SMP crosses only Active links),
 * unknown tables read first as above; no P_Key table. done(arg) is
 * called once, when every request of the round is answered or has
 * failed, or at once when a later devread_qos_dr() or devread_stop() ends
 * the round first; a devread_start() meanwhile does nothing (the next
 * subnet up starts that round again). Only tables that may have to be
 * written are read. f and qc must stay valid until done. Reads queued
 * from an earlier call are dropped.
 */
typedef void (*devread_done_cb)(void *arg);
void devread_qos_dr(struct devread *r, const struct fabric *f,
    const struct qos_config *qc, devread_done_cb done, void *arg);
/* The sweep adopted the model cur: a round that compares with another
 * model (which may go now) compares nothing more; its reads in flight
 * still fill the store. */
void devread_adopt(struct devread *r, const struct fabric *cur);
/* Send nothing more (not master). */
void devread_stop(struct devread *r);
const struct devtab *devread_tables(const struct devread *r);

struct devread_stats {
	uint64_t reads;         /* tables read */
	uint64_t failed;        /* reads or Sets that got no answer or an
				 * error */
	uint64_t sl2vl_sets;    /* SL-to-VL tables written (issue 27) */
	uint64_t vlarb_sets;    /* VL arbitration blocks written */
	uint32_t queued;        /* still to send */
};
void devread_get_stats(const struct devread *r, struct devread_stats *st);

#endif
