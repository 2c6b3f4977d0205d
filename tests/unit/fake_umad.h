/*
 * A fake libibumad for tests/unit/check_transport: the functions
 * mad/transport.c calls, over one port (CA "fake0", port 1, GUID
 * FAKE_UMAD_GUID) whose umad fd is a real eventfd, readable while the
 * fake's receive queue holds a MAD, as a kernel umad fd is. umad_recv
 * follows the kernel's read: -EAGAIN when empty, -ENOSPC with the needed
 * length for a MAD longer than the buffer (which stays queued), else the
 * MAD and its umad header. Linked instead of libibumad (its definitions
 * win over the shared library's).
 */
#ifndef FAKE_UMAD_H
#define FAKE_UMAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_UMAD_GUID 0x0002c90300001234ULL

/* Back to an empty queue, no counts, no failures. */
void fake_umad_reset(void);

/* Queue a MAD of len bytes for the application, with umad status status
 * (0, or the errno of a failed send) from LID lid. */
void fake_umad_queue(const uint8_t *mad, size_t len, int status,
    uint16_t lid);

/* Make the fd readable with nothing queued (a spurious wake-up). */
void fake_umad_kick(void);

/* MADs still queued; umad_recv calls, and those that said EAGAIN or
 * ENOSPC. */
size_t fake_umad_queued(void);
unsigned fake_umad_recv_calls(void);
unsigned fake_umad_eagain(void);
unsigned fake_umad_enospc(void);

/* Calls whose buffer was too short for umad_size() + the length given
 * (umad_size() grows when the port is opened, as libibumad's does). */
unsigned fake_umad_short_buffers(void);

/* umad_send: 0 or a negative errno to return from now on; what was sent. */
void fake_umad_send_result(int r);
unsigned fake_umad_sent(void);
const uint8_t *fake_umad_last_sent(size_t *len, int *timeout_ms);

/* The fd umad_get_fd gives: true makes it a number that is not open (as
 * libumad2sim's are). */
void fake_umad_fake_fd(bool on);

#endif
