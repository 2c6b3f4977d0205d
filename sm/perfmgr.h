/*
 * The performance manager (ibsmd.conf perfmgr, OpenSM's name): as master,
 * after subnet up, it reads the PortCounters (PerfMgt class 0x04,
 * attribute 0x0012) of every cabled switch external port and every cabled
 * CA port with a LID, every perfmgr_sweep_time_s, with LID-routed GMPs on
 * QP1 through the MAD engine, and PortCountersExtended (0x001D) too on
 * the ports whose ClassPortInfo CapabilityMask says they have it (read
 * once per node). It keeps a window of its own: at most PERFMGR_WINDOW
 * GMPs in flight, sent as the engine's own_window requests (outside
 * max_wire_smps and max_smps_per_node, under destination keys of their
 * own), so a sweep's SMPs never wait for a counter read. The totals of core/pcounter are kept per port across
 * sweeps by node GUID and port number. Off, it sends nothing and
 * registers no agent.
 */
#ifndef IBSMD_PERFMGR_H
#define IBSMD_PERFMGR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pcounter.h"

#define PERFMGR_WINDOW 16

struct ev_loop;
struct fabric;
struct mad_engine;
struct perfmgr;

/* The model in use, asked at each round (NULL: none). */
typedef const struct fabric *(*perfmgr_fabric_cb)(void *arg);

struct perfmgr *perfmgr_new(struct ev_loop *loop, struct mad_engine *mad,
    perfmgr_fabric_cb fabric, void *arg);
void perfmgr_free(struct perfmgr *pm);

/* enabled: perfmgr; interval: perfmgr_sweep_time_s; clear_saturated:
 * perfmgr_clear_saturated (a PortCounters counter read at its maximum is
 * cleared with a Set, unless the Extended set supersedes it). Turned off,
 * it stops; a new interval takes effect at once when running. */
void perfmgr_set_opts(struct perfmgr *pm, bool enabled, double interval,
    bool clear_saturated);
/*
 * The thresholds of the error counters (enum pcounter_id, the first
 * PC_NERRORS; ibsmd.conf perfmgr_threshold_*): a counter whose read adds
 * more than its threshold to its total is rising; it is logged once, with
 * the node, port and peer names, and logged again only after a read where
 * it was not rising. 0: any rise. Until set, pcounter_info's defaults.
 */
void perfmgr_set_thresholds(struct perfmgr *pm,
    const unsigned threshold[PC_NERRORS]);
/* Subnet up as master: start the rounds (the first at once) unless they
 * run already or perfmgr is off. */
void perfmgr_start(struct perfmgr *pm);
/* Not master: send nothing more (answers in flight are still counted). */
void perfmgr_stop(struct perfmgr *pm);

struct perfmgr_stats {
	bool enabled, running;
	uint64_t rounds;        /* rounds completed */
	uint64_t reads;         /* PortCounters(Extended) answers taken */
	uint64_t failed;        /* reads that got no answer or an error */
	uint64_t cpi_reads;     /* ClassPortInfo answers */
	uint64_t skipped;       /* rounds not started: the last still ran */
	uint64_t error_events;  /* error counters that rose past their
				 * threshold (logged) */
	uint64_t clears;        /* saturated counters' clears acknowledged */
	uint32_t ports;         /* ports with counters */
	uint32_t ext_ports;     /* of which read with Extended */
	double last_seconds;    /* duration of the last complete round */
	double last_end;        /* wall clock of its end, 0: none yet */
};
void perfmgr_get_stats(const struct perfmgr *pm, struct perfmgr_stats *st);

/* One port's counters. */
struct perfmgr_port {
	uint64_t guid;          /* node */
	uint8_t port;
	bool sw;
	bool ext;               /* read with PortCountersExtended */
	uint32_t rising;        /* error counters that rose past their
				 * threshold at the last read
				 * (1 << enum pcounter_id) */
	const unsigned *threshold;	/* [PC_NERRORS]: their thresholds */
	const struct pcounter_port *pc;
};
/* Visit every port with counters, by node GUID order of first read, then
 * port number. */
void perfmgr_foreach(const struct perfmgr *pm,
    void (*cb)(void *arg, const struct perfmgr_port *p), void *arg);

#endif
