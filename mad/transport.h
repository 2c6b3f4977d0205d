/*
 * Transport: one local IB port through libibumad. QP0 agents for the LID-
 * routed (0x01) and directed-route (0x81) SM classes, issm, send and
 * receive. On a kernel umad fd the fd is watched by an ev_io; under ibsim's
 * libumad2sim (fake fds) a receiver thread blocks in umad_recv and hands
 * each MAD to the loop through a queue and an ev_async. Sends always happen
 * on the loop thread. Callers cannot tell the two modes apart.
 *
 * Unit tests link a fake implementation of this header instead.
 */
#ifndef IBSMD_TRANSPORT_H
#define IBSMD_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct transport;

#define TRANSPORT_MAD_SIZE 256

struct transport_rx {
	const uint8_t *mad;     /* the MAD (for a failed send: the request) */
	size_t len;             /* bytes in mad */
	int status;             /* 0, or the errno of a send that failed
				 * (ETIMEDOUT: no response) */
	uint16_t slid;          /* source LID of a LID-routed MAD */
};

/* Called from the loop, never from inside transport_send(). */
typedef void (*transport_rx_cb)(void *arg, const struct transport_rx *rx);

/* Open the port whose GUID is guid (0: the first InfiniBand port, skipping
 * other link layers), register the SM agents and deliver every received MAD
 * to cb on the loop thread. Returns NULL with a logged reason. */
struct transport *transport_open(struct ev_loop *loop, uint64_t guid,
    transport_rx_cb cb, void *arg);
void transport_close(struct transport *t);

/* Which port transport_open(guid) would open: its GUID in *out. Returns 0,
 * or -1 with a logged reason. */
int transport_resolve(uint64_t guid, uint64_t *out);

/* The GUIDs of every InfiniBand port (other link layers skipped), up to
 * max; returns how many there are, or -1. */
int transport_list(uint64_t *guids, size_t max);

uint64_t transport_port_guid(const struct transport *t);

/* Send one MAD of TRANSPORT_MAD_SIZE bytes. dlid 0xFFFF: directed route;
 * otherwise LID-routed to QP0 of dlid. timeout_ms > 0 lets the kernel match
 * the response to this send (it reports ETIMEDOUT through the rx callback if
 * none comes); 0 for responses and traps. Returns 0 or -1. */
int transport_send(struct transport *t, const uint8_t *mad, uint16_t dlid,
    int timeout_ms);

/* Take the SM role on the port: open its issm device, which sets IsSM in
 * the port's CapabilityMask (and, under ibsim, routes SMInfo and traps to
 * us). Returns 0 or -1. */
int transport_claim_sm(struct transport *t);

#endif
