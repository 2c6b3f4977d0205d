/*
 * Port counters as cumulative totals: see core/pcounter.h.
 */
#include <stddef.h>

#include <infiniband/mad.h>

#include "core/log.h"
#include "core/pcounter.h"

/* Widths from IBA Table 247 (PortCounters); the names are perfquery's, the
 * metric suffixes treydock/infiniband_exporter's, the thresholds those of
 * infiniband-diags' error_thresholds (10 for the link-level errors, 100 for
 * discards, relay, constraint and VL15 drops). */
static const struct pcounter_info infos[PC_NCOUNTERS] = {
	[PC_SYMBOL_ERROR] = { "SymbolErrorCounter",
	    "port_symbol_error_total", 16, true, 10 },
	[PC_LINK_ERROR_RECOVERY] = { "LinkErrorRecoveryCounter",
	    "port_link_error_recovery_total", 8, true, 10 },
	[PC_LINK_DOWNED] = { "LinkDownedCounter",
	    "port_link_downed_total", 8, true, 10 },
	[PC_RCV_ERRORS] = { "PortRcvErrors",
	    "port_receive_errors_total", 16, true, 10 },
	[PC_RCV_REMOTE_PHYS_ERRORS] = { "PortRcvRemotePhysicalErrors",
	    "port_receive_remote_physical_errors_total", 16, true, 100 },
	[PC_RCV_SWITCH_RELAY_ERRORS] = { "PortRcvSwitchRelayErrors",
	    "port_receive_switch_relay_errors_total", 16, true, 100 },
	[PC_XMIT_DISCARDS] = { "PortXmitDiscards",
	    "port_transmit_discards_total", 16, true, 100 },
	[PC_XMIT_CONSTRAINT_ERRORS] = { "PortXmitConstraintErrors",
	    "port_transmit_constraint_errors_total", 8, true, 100 },
	[PC_RCV_CONSTRAINT_ERRORS] = { "PortRcvConstraintErrors",
	    "port_receive_constraint_errors_total", 8, true, 100 },
	[PC_LOCAL_LINK_INTEGRITY_ERRORS] = { "LocalLinkIntegrityErrors",
	    "port_local_link_integrity_errors_total", 4, true, 10 },
	[PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = {
	    "ExcessiveBufferOverrunErrors",
	    "port_excessive_buffer_overrun_errors_total", 4, true, 10 },
	[PC_VL15_DROPPED] = { "VL15Dropped",
	    "port_vl15_dropped_total", 16, true, 100 },
	[PC_XMIT_DATA] = { "PortXmitData",
	    "port_transmit_data_bytes_total", 32, false },
	[PC_RCV_DATA] = { "PortRcvData",
	    "port_receive_data_bytes_total", 32, false },
	[PC_XMIT_PKTS] = { "PortXmitPkts",
	    "port_transmit_packets_total", 32, false },
	[PC_RCV_PKTS] = { "PortRcvPkts",
	    "port_receive_packets_total", 32, false },
	[PC_XMIT_WAIT] = { "PortXmitWait",
	    "port_transmit_wait_total", 32, false },
	[PC_UNICAST_XMIT_PKTS] = { "PortUnicastXmitPkts",
	    "port_unicast_transmit_packets_total", 64, false },
	[PC_UNICAST_RCV_PKTS] = { "PortUnicastRcvPkts",
	    "port_unicast_receive_packets_total", 64, false },
	[PC_MULTICAST_XMIT_PKTS] = { "PortMulticastXmitPkts",
	    "port_multicast_transmit_packets_total", 64, false },
	[PC_MULTICAST_RCV_PKTS] = { "PortMulticastRcvPkts",
	    "port_multicast_receive_packets_total", 64, false },
};

/* libibmad's field of each counter in PortCounters (0: none) and in
 * PortCountersExtended (0: none). */
static const enum MAD_FIELDS basic_field[PC_NCOUNTERS] = {
	[PC_SYMBOL_ERROR] = IB_PC_ERR_SYM_F,
	[PC_LINK_ERROR_RECOVERY] = IB_PC_LINK_RECOVERS_F,
	[PC_LINK_DOWNED] = IB_PC_LINK_DOWNED_F,
	[PC_RCV_ERRORS] = IB_PC_ERR_RCV_F,
	[PC_RCV_REMOTE_PHYS_ERRORS] = IB_PC_ERR_PHYSRCV_F,
	[PC_RCV_SWITCH_RELAY_ERRORS] = IB_PC_ERR_SWITCH_REL_F,
	[PC_XMIT_DISCARDS] = IB_PC_XMT_DISCARDS_F,
	[PC_XMIT_CONSTRAINT_ERRORS] = IB_PC_ERR_XMTCONSTR_F,
	[PC_RCV_CONSTRAINT_ERRORS] = IB_PC_ERR_RCVCONSTR_F,
	[PC_LOCAL_LINK_INTEGRITY_ERRORS] = IB_PC_ERR_LOCALINTEG_F,
	[PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = IB_PC_ERR_EXCESS_OVR_F,
	[PC_VL15_DROPPED] = IB_PC_VL15_DROPPED_F,
	[PC_XMIT_DATA] = IB_PC_XMT_BYTES_F,
	[PC_RCV_DATA] = IB_PC_RCV_BYTES_F,
	[PC_XMIT_PKTS] = IB_PC_XMT_PKTS_F,
	[PC_RCV_PKTS] = IB_PC_RCV_PKTS_F,
	[PC_XMIT_WAIT] = IB_PC_XMT_WAIT_F,
};

static const enum MAD_FIELDS ext_field[PC_NCOUNTERS] = {
	[PC_XMIT_DATA] = IB_PC_EXT_XMT_BYTES_F,
	[PC_RCV_DATA] = IB_PC_EXT_RCV_BYTES_F,
	[PC_XMIT_PKTS] = IB_PC_EXT_XMT_PKTS_F,
	[PC_RCV_PKTS] = IB_PC_EXT_RCV_PKTS_F,
	[PC_UNICAST_XMIT_PKTS] = IB_PC_EXT_XMT_UPKTS_F,
	[PC_UNICAST_RCV_PKTS] = IB_PC_EXT_RCV_UPKTS_F,
	[PC_MULTICAST_XMIT_PKTS] = IB_PC_EXT_XMT_MPKTS_F,
	[PC_MULTICAST_RCV_PKTS] = IB_PC_EXT_RCV_MPKTS_F,
};

const struct pcounter_info *
pcounter_info(enum pcounter_id id)
{
	if ((unsigned)id >= PC_NCOUNTERS)
		fatalx("pcounter: no counter %d", (int)id);
	return &infos[id];
}

uint64_t
pcounter_add(struct pcounter *c, uint64_t v, unsigned bits, bool ext)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t d;

	if (v > max)
		v = max;        /* a device cannot count past its width */
	if (!c->valid)
		d = v;          /* what it counted before we first looked */
	else if (c->ext != ext)
		d = 0;          /* another counter: a new baseline */
	else if (v >= c->last)
		d = v - c->last;        /* stuck at max adds nothing */
	else
		d = v;          /* cleared since: v counted after the clear */
	c->last = v;
	c->valid = true;
	c->ext = ext;
	c->saturated = bits < 64 && v == max;
	c->delta = d;
	/* 2^64 events will not happen; a total stuck at the top is still
	 * never lower than before */
	c->total = UINT64_MAX - c->total < d ? UINT64_MAX : c->total + d;
	return d;
}

uint32_t
pcounter_port_basic(struct pcounter_port *p, const uint8_t *data,
    bool traffic_from_ext)
{
	uint32_t rose = 0;

	for (unsigned id = 0; id < PC_NCOUNTERS; id++) {
		if (basic_field[id] == 0)
			continue;
		if (traffic_from_ext && ext_field[id] != 0)
			continue;
		if (pcounter_add(&p->c[id], mad_get_field((void *)data, 0,
		    basic_field[id]), infos[id].bits, false) > 0 &&
		    infos[id].error)
			rose |= UINT32_C(1) << id;
	}
	p->reads++;
	return rose;
}

void
pcounter_port_ext(struct pcounter_port *p, const uint8_t *data)
{
	for (unsigned id = 0; id < PC_NCOUNTERS; id++)
		if (ext_field[id] != 0)
			(void)pcounter_add(&p->c[id], mad_get_field64(
			    (void *)data, 0, ext_field[id]), 64, true);
}

uint64_t
pcounter_port_errors(const struct pcounter_port *p)
{
	uint64_t s = 0;

	for (unsigned id = 0; id < PC_NERRORS; id++)
		s += p->c[id].total;
	return s;
}
