/*
 * Transport: one local IB port through libibumad. Agents registered per
 * management class and version (vendor classes by OUI, RMPP or not), issm,
 * send and receive with the full address of the remote end. The umad fd is
 * non-blocking and watched by an ev_io on the caller's loop; each wake-up
 * reads what the kernel has queued (up to 256 MADs), so there is no thread.
 * A descriptor that cannot be watched (ibsim's libumad2sim hands out fake
 * ones) is refused; under ibsim the tests preload tests/fixture's umadfix
 * device, whose descriptors behave as the kernel's.
 *
 * Unit tests of the layers above link a fake implementation of this
 * header instead; tests/unit/check_transport drives this one over a fake
 * libibumad (tests/unit/fake_umad.c).
 */
#ifndef IBSMD_TRANSPORT_H
#define IBSMD_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct transport;

/* One MAD on the wire. An agent registered for RMPP sends and receives
 * longer ones: the kernel segments and reassembles them. */
#define TRANSPORT_MAD_SIZE 256

#define TRANSPORT_LID_PERMISSIVE 0xFFFF         /* directed route */
#define TRANSPORT_QKEY_GSI 0x80010000u          /* QP1's well-known Q_Key */

/* Where a MAD comes from or goes to, in host byte order. */
struct transport_addr {
	uint16_t lid;           /* TRANSPORT_LID_PERMISSIVE: directed route */
	uint8_t sl;
	uint32_t qpn;           /* 0 for SMPs, 1 for GS requests, any for a
				 * reply to a host's QP */
	uint32_t qkey;          /* 0 on QP0; TRANSPORT_QKEY_GSI on QP1 */
	uint16_t pkey_index;
	bool grh;               /* the fields below are valid */
	uint8_t gid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t gid[16];        /* remote GID, network byte order */
};

struct transport_rx {
	const uint8_t *mad;     /* the MAD (for a failed send: the request) */
	size_t len;             /* bytes in mad */
	int status;             /* 0, or the errno of a send that failed
				 * (ETIMEDOUT: no response) */
	struct transport_addr from;
};

/* An agent: which MADs of a class this port sends and receives. Responses
 * to what we send always come back; requests (methods without the R bit)
 * only for the methods set in methods. */
struct transport_agent {
	uint8_t mgmt_class;
	uint8_t class_version;
	bool rmpp;              /* the kernel does RMPP (version 1) */
	uint32_t oui;           /* vendor classes 0x30-0x4F: their OUI */
	uint32_t methods[4];    /* bit n of methods[n / 32]: method n */
};

/* Accept requests of method m (< 0x80: requests only). */
static inline void
transport_agent_method(struct transport_agent *a, uint8_t m)
{
	if (m < 0x80)
		a->methods[m / 32] |= UINT32_C(1) << (m % 32);
}

/* Called from the loop, never from inside transport_send(). */
typedef void (*transport_rx_cb)(void *arg, const struct transport_rx *rx);

/* Open the port whose GUID is guid (0: the first InfiniBand port, skipping
 * other link layers) and deliver every MAD its agents receive to cb from
 * the loop. No agent is registered yet. Returns NULL with a logged reason
 * (also for a umad fd that cannot be watched). */
struct transport *transport_open(struct ev_loop *loop, uint64_t guid,
    transport_rx_cb cb, void *arg);
void transport_close(struct transport *t);

/* Register an agent. One per (class, version); up to 16. Returns 0, or -1
 * with a logged reason (another process holds the class: another SM on the
 * port, for the SM classes). */
int transport_register(struct transport *t, const struct transport_agent *a);

/* Which port transport_open(guid) would open: its GUID in *out. Returns 0,
 * or -1 with a logged reason. */
int transport_resolve(uint64_t guid, uint64_t *out);

/* The GUIDs of every InfiniBand port (other link layers skipped), up to
 * max; returns how many there are, or -1. */
int transport_list(uint64_t *guids, size_t max);

uint64_t transport_port_guid(const struct transport *t);

/* Send one MAD of len bytes (TRANSPORT_MAD_SIZE, or through an RMPP
 * agent any length from the 24-byte common header up) to to, through
 * the agent registered for the MAD's class and version. timeout_ms > 0 lets the kernel match the response to this send
 * (it reports ETIMEDOUT through the rx callback if none comes); 0 for
 * responses and traps. Returns 0 or -1. */
int transport_send(struct transport *t, const uint8_t *mad, size_t len,
    const struct transport_addr *to, int timeout_ms);

/* A zeroed MAD of TRANSPORT_MAD_SIZE bytes in the transport's own send
 * buffer, to build a request in place: given to transport_send() it goes
 * out without being copied. Valid until the next transport_send() or
 * transport_mad_buf(). NULL without memory. */
uint8_t *transport_mad_buf(struct transport *t);

/* Take the SM role on the port: open its issm device, which sets IsSM in
 * the port's CapabilityMask (and, under ibsim, routes SMInfo and traps to
 * us). Returns 0 or -1. */
int transport_claim_sm(struct transport *t);

#endif
