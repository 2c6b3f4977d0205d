/*
 * Port counters (PerfMgt PortCounters and PortCountersExtended, IBA
 * 16.1.3.5 and 16.1.4.11) kept as cumulative 64-bit totals from successive
 * reads. A device's counter is narrow (4 to 32 bits; 64 for the Extended
 * ones), saturates rather than wraps, and anyone may clear it (perfquery
 * -R, another performance manager): a total never goes backwards. A read
 * lower than the last one is taken as a clear, the new value being what
 * was counted since; a counter that stays saturated adds nothing (its
 * total is then a lower bound). The first read of a counter adds its
 * whole value: what the port counted before it was first read belongs to
 * the total too. Pure: the decoding by libibmad's field ids, no I/O.
 */
#ifndef IBSMD_PCOUNTER_H
#define IBSMD_PCOUNTER_H

#include <stdbool.h>
#include <stdint.h>

enum pcounter_id {
	/* PortCounters, errors */
	PC_SYMBOL_ERROR,
	PC_LINK_ERROR_RECOVERY,
	PC_LINK_DOWNED,
	PC_RCV_ERRORS,
	PC_RCV_REMOTE_PHYS_ERRORS,
	PC_RCV_SWITCH_RELAY_ERRORS,
	PC_XMIT_DISCARDS,
	PC_XMIT_CONSTRAINT_ERRORS,
	PC_RCV_CONSTRAINT_ERRORS,
	PC_LOCAL_LINK_INTEGRITY_ERRORS,
	PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	PC_VL15_DROPPED,
	/* PortCounters, traffic (from Extended where the port has it) */
	PC_XMIT_DATA,
	PC_RCV_DATA,
	PC_XMIT_PKTS,
	PC_RCV_PKTS,
	PC_XMIT_WAIT,
	/* PortCountersExtended only */
	PC_UNICAST_XMIT_PKTS,
	PC_UNICAST_RCV_PKTS,
	PC_MULTICAST_XMIT_PKTS,
	PC_MULTICAST_RCV_PKTS,
	PC_NCOUNTERS
};

#define PC_NERRORS (PC_VL15_DROPPED + 1)   /* the error counters first */

struct pcounter_info {
	const char *name;       /* the IBA's (and perfquery's) name */
	const char *metric;     /* treydock/infiniband_exporter's suffix after
				 * infiniband_{switch,hca}_ */
	unsigned bits;          /* width in PortCounters (64: Extended only) */
	bool error;
	/* error counters: the default of the rise per read above which the
	 * performance manager calls the counter rising (ibsmd.conf
	 * perfmgr_threshold_*): the values infiniband-diags ships in its
	 * error_thresholds file for ibqueryerrors */
	unsigned threshold;
};

const struct pcounter_info *pcounter_info(enum pcounter_id id);

/* One counter of one port. */
struct pcounter {
	uint64_t total;         /* cumulative since first read */
	uint64_t last;          /* the device's value at the last read */
	uint64_t delta;         /* what the last read added */
	bool valid;             /* read at least once */
	bool ext;               /* last fed from a 64-bit Extended counter */
	bool saturated;         /* the last read was the counter's maximum */
};

/*
 * Add a read v of a counter bits wide (1..64) to c: returns what it adds
 * to c->total (also in c->delta). ext says the read comes from a 64-bit
 * Extended counter: a change of source (a port first read without, then
 * with Extended) takes the new read as the baseline and adds nothing.
 */
uint64_t pcounter_add(struct pcounter *c, uint64_t v, unsigned bits,
    bool ext);

struct pcounter_port {
	struct pcounter c[PC_NCOUNTERS];
	uint32_t reads;         /* PortCounters reads taken */
};

/*
 * A PortCounters answer: data is the MAD's data (from byte 64), read with
 * libibmad's IB_PC_* fields. With traffic_from_ext the data and packet
 * counters are left to pcounter_port_ext (PortXmitWait is always read
 * here). Returns a bit mask (1 << id) of the error counters that rose.
 */
uint32_t pcounter_port_basic(struct pcounter_port *p, const uint8_t *data,
    bool traffic_from_ext);
/* A PortCountersExtended answer (IB_PC_EXT_* fields). */
void pcounter_port_ext(struct pcounter_port *p, const uint8_t *data);

/* The sum of the port's error totals. */
uint64_t pcounter_port_errors(const struct pcounter_port *p);

#endif
