/*
 * Test hooks of the in-memory transport (fake_transport.c), which
 * implements transport.h for unit tests: it records every MAD sent and lets
 * the test deliver MADs to the receive callback.
 */
#ifndef IBSMD_FAKE_TRANSPORT_H
#define IBSMD_FAKE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mad/transport.h"

struct fake_mad {
	uint8_t mad[TRANSPORT_MAD_SIZE];        /* as sent */
	uint16_t dlid;
	int timeout_ms;
	int answered;   /* a response or failure for its TID was delivered */
};

/* The transport opened last, NULL when none is open. */
struct transport *fake_transport(void);
/* Forget sent MADs and window state; called by transport_open too. */
void fake_reset(void);

size_t fake_nsent(void);
const struct fake_mad *fake_sent(size_t i);
uint32_t fake_sent_tid(size_t i);               /* low 32 bits */

/* Make the next n calls of transport_send fail (return -1, record nothing). */
void fake_fail_sends(unsigned n);

/* Deliver a MAD to the receive callback, as the transport would. */
void fake_deliver(const uint8_t *mad, size_t len, int status, uint16_t slid);
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
