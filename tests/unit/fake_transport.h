/*
 * Test hooks of the in-memory transport (fake_transport.c), which
 * implements transport.h for unit tests (and tests/fuzz/fuzz_mad.c): it
 * records every MAD sent and lets the test deliver MADs to the receive
 * callback.
 */
#ifndef IBSMD_FAKE_TRANSPORT_H
#define IBSMD_FAKE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mad/transport.h"

struct fake_mad {
	uint8_t mad[TRANSPORT_MAD_SIZE];        /* as sent (its first bytes;
					 * zeros past a short one) */
	uint16_t dlid;                          /* to.lid */
	int timeout_ms;
	int answered;   /* a response or failure for its TID was delivered */
	size_t len;                             /* bytes sent */
	struct transport_addr to;
};

/* The transport opened last, NULL when none is open. */
struct transport *fake_transport(void);
/* Forget sent MADs and window state; called by transport_open too. */
void fake_reset(void);

size_t fake_nsent(void);
const struct fake_mad *fake_sent(size_t i);
uint32_t fake_sent_tid(size_t i);               /* low 32 bits */
/* All len bytes of sent MAD i (more than mad[] for an RMPP send). */
const uint8_t *fake_sent_bytes(size_t i);

/* The agent registered for (class, version), NULL if none. The fake sends
 * MADs of any class, registered or not (so that tests need not register
 * what they only send); longer than TRANSPORT_MAD_SIZE needs an RMPP
 * agent, as on a real port. */
const struct transport_agent *fake_agent(uint8_t mgmt_class,
    uint8_t version);
/* Make the next n calls of transport_register fail. */
void fake_fail_registers(unsigned n);

/* Make the next n calls of transport_send fail (return -1, record nothing). */
void fake_fail_sends(unsigned n);

/* Deliver a MAD to the receive callback, as the transport would, from
 * LID slid (the rest of the address zero: QP0). */
void fake_deliver(const uint8_t *mad, size_t len, int status, uint16_t slid);
/* The same from a full address. */
void fake_deliver_from(const uint8_t *mad, size_t len, int status,
    const struct transport_addr *from);
/* Deliver a GetResp to sent MAD i: its header with method 0x81, the D bit
 * set for directed route, status and data (NULL: zeros). */
void fake_respond(size_t i, uint16_t status, const uint8_t *data);
/* Report sent MAD i as failed with errno err (rx->status). */
void fake_fail(size_t i, int err);

/*
 * Window check: requests sent with a timeout and not yet answered are "in
 * flight"; each send that takes them past max_wire overall or past
 * max_per_dlid to one dlid (0: no limit) counts a violation.
 */
void fake_check_windows(unsigned max_wire, unsigned max_per_dlid);
unsigned fake_in_flight(void);
unsigned fake_in_flight_dlid(uint16_t dlid);
unsigned fake_violations(void);
/* Indices of the sends in flight, oldest first; returns how many. */
size_t fake_pending(size_t *idx, size_t max);

#endif
