/*
 * MAD engine, for any management class: requests with completion
 * callbacks, windows of outstanding requests (per destination and overall)
 * with a FIFO queue behind them, timeouts with retries, counters by class,
 * method and attribute, and a table of listeners for unsolicited MADs
 * (requests to us, traps) keyed by class, method and attribute. A response
 * that matches no outstanding request, a request nobody listens for, and a
 * malformed MAD are counted and dropped.
 *
 * Clients build their class's MADs on top of it: mad/smp.h for SMPs.
 */
#ifndef IBSMD_MAD_H
#define IBSMD_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/transport.h"

struct ev_loop;
struct mad_engine;

/* Management classes (IBA 13.4.4). The two SM classes (LID-routed and
 * directed route) count as one, "smp". */
enum { MGMT_CLASS_SMP_LID = 0x01, MGMT_CLASS_SA = 0x03,
       MGMT_CLASS_PERF = 0x04, MGMT_CLASS_BM = 0x05,
       MGMT_CLASS_DEV = 0x06, MGMT_CLASS_CM = 0x07, MGMT_CLASS_SNMP = 0x08,
       MGMT_CLASS_SMP_DR = 0x81 };

/* Methods (IBA 13.4.5, 15.2.2); a response has bit 7 (R) set. */
enum { MAD_GET = 0x01, MAD_SET = 0x02, MAD_SEND = 0x03, MAD_TRAP = 0x05,
       MAD_REPORT = 0x06, MAD_TRAPREPRESS = 0x07, MAD_GETTABLE = 0x12,
       MAD_GETTRACETABLE = 0x13, MAD_GETMULTI = 0x14, MAD_DELETE = 0x15,
       MAD_GETRESP = 0x81, MAD_REPORTRESP = 0x86, MAD_GETTABLERESP = 0x92,
       MAD_GETMULTIRESP = 0x94, MAD_DELETERESP = 0x95 };

#define MAD_BASE_VERSION 1
#define MAD_HDR_SIZE 24         /* the common MAD header */
#define MAD_ATTR_ANY 0x10000u   /* mad_listen: every attribute */

/* Completion status beyond the MAD status field. */
#define MAD_ETIMEDOUT   (-1)    /* no answer after all retries */
#define MAD_ESEND       (-2)    /* could not be sent */

struct mad_opts {
	unsigned max_wire;      /* outstanding requests overall */
	unsigned max_per_node;  /* outstanding requests to one destination */
	unsigned timeout_ms;    /* per attempt */
	unsigned retries;       /* attempts after the first */
};

/* Does resp (len bytes, class, attribute and TID already matched, R bit
 * set) answer req (NULL for a request the engine builds)? Returns its
 * status (>= 0), or -1 when it does not (it is then dropped as unmatched
 * and the request keeps waiting). */
typedef int (*mad_check_cb)(const uint8_t *req, const uint8_t *resp,
    size_t len);

struct mad_request {
	const uint8_t *mad;     /* the whole request; the engine sets its TID
				 * (copied); NULL: built by build */
	size_t len;             /* TRANSPORT_MAD_SIZE, more through RMPP */
	/* With mad NULL: writes the request (len bytes, zeroed before) at
	 * each attempt, called with the arg of mad_request(), which must
	 * keep what it reads valid until its callback; the engine then
	 * holds no copy of the MAD while it waits in a queue. Its header
	 * fields are given here. */
	void (*build)(void *arg, uint8_t *mad);
	uint8_t mgmt_class, class_version, method;
	uint16_t attr;
	struct transport_addr to;
	uint64_t dest;          /* window key: the destination node, any
				 * stable value (node GUID, or the path's
				 * parent); 0 is a key like any other */
	mad_check_cb check;     /* NULL: the method must be the request's
				 * response method, the status is the 16-bit
				 * Status field */
	void (*drop)(void *arg); /* NULL, or what mad_engine_free() calls
				 * on the arg of a request it drops */
	bool own_window;        /* sent at once, outside the engine's
				 * windows (max_wire, max_per_node): the
				 * caller bounds what it has in flight, and
				 * never takes a slot an SMP waits for */
};

/* status: 0 success; > 0 the status of the response; MAD_ETIMEDOUT or
 * MAD_ESEND. resp: the response (resp->from its address), NULL unless one
 * arrived, valid only during the call. Called exactly once per accepted
 * request, from the loop (the transport's receive callback, a timer, or an
 * idle watcher), never from inside mad_request(). A callback must not free
 * the engine. */
typedef void (*mad_done_cb)(void *arg, int status,
    const struct transport_rx *resp);

/* An unsolicited MAD (a request to us, a trap): at least
 * TRANSPORT_MAD_SIZE bytes, valid only during the call. */
typedef void (*mad_listen_cb)(void *arg, const struct transport_rx *rx);

/* o == NULL: defaults (64 on the wire, 4 per node, 200 ms, 3 retries).
 * The port is open; no class is registered yet. */
struct mad_engine *mad_engine_new(struct ev_loop *loop, uint64_t guid,
    const struct mad_opts *o);
/* Drops every request outstanding, queued or deferred without calling its
 * callback (but its drop hook). */
void mad_engine_free(struct mad_engine *e);
uint64_t mad_engine_port_guid(const struct mad_engine *e);
struct transport *mad_engine_transport(struct mad_engine *e);
void mad_engine_set_opts(struct mad_engine *e, const struct mad_opts *o);

/* Register a transport agent for a class: needed to send its MADs and to
 * receive requests of the methods it lists. Returns 0 or -1. */
int mad_register(struct mad_engine *e, const struct transport_agent *a);

/* Queue one request (a method without the R bit that has a response).
 * Returns 0 (cb will be called) or -1 (bad request). */
int mad_request(struct mad_engine *e, const struct mad_request *q,
    mad_done_cb cb, void *arg);

/*
 * Listen for requests (no R bit) of (class, method, attr); attr
 * MAD_ATTR_ANY for the attributes no one listens to exactly. One listener
 * per key: a second replaces the first; cb NULL removes it. The SM classes
 * are distinct here (LID-routed 0x01, directed route 0x81). Returns 0 or
 * -1 (a response method, an attribute out of range).
 */
int mad_listen(struct mad_engine *e, uint8_t mgmt_class, uint8_t method,
    uint32_t attr, mad_listen_cb cb, void *arg);

/* Send a complete MAD outside the request machinery (a response to a
 * request we received, a TrapRepress): counted by class, method and
 * attribute. len is 256, or through an RMPP agent the whole payload's
 * length, shorter or longer. Returns 0 or -1. */
int mad_send_reply(struct mad_engine *e, const uint8_t *mad, size_t len,
    const struct transport_addr *to);

/* Requests sent and not completed (own_window ones included), and queued
 * behind the windows. */
unsigned mad_outstanding(const struct mad_engine *e);
unsigned mad_queued(const struct mad_engine *e);
/* Requests on the wire when one was sent, averaged over every request
 * attempt sent since the engine started. */
double mad_mean_in_flight(const struct mad_engine *e);
/* The most requests ever queued behind the windows at once. */
unsigned mad_max_queued(const struct mad_engine *e);

struct mad_counter {
	uint64_t sent;          /* attempts put on the wire (retries included) */
	uint64_t recv;          /* responses matched, or unsolicited received */
	uint64_t timeout;       /* attempts that timed out */
	uint64_t error;         /* responses with a nonzero status */
};

/* Counters of (class, method, attr), zeroes for keys never seen; class
 * MGMT_CLASS_SMP_DR reads the SM class's (the same as MGMT_CLASS_SMP_LID). */
struct mad_counter mad_counter_get(const struct mad_engine *e,
    uint8_t mgmt_class, uint8_t method, uint16_t attr);
/* Visit every key with a nonzero counter, by class, then method (Get,
 * Set, GetResp, Trap, TrapRepress, then the others by value), then
 * attribute. The SM classes come as MGMT_CLASS_SMP_LID. */
void mad_counters_foreach(const struct mad_engine *e,
    void (*cb)(void *arg, uint8_t mgmt_class, uint8_t method, uint16_t attr,
	const struct mad_counter *c), void *arg);
uint64_t mad_total_sent(const struct mad_engine *e);
uint64_t mad_dropped_unmatched(const struct mad_engine *e);
uint64_t mad_dropped_malformed(const struct mad_engine *e);
/* Requests (no R bit) no listener took. */
uint64_t mad_dropped_unhandled(const struct mad_engine *e);

/* The whole method byte (GetResp is 0x81) of a MAD, and setting it:
 * libibmad's METHOD field alone is 7 bits. */
uint8_t mad_method_of(const uint8_t *mad);
void mad_set_method(uint8_t *mad, uint8_t method);

/*
 * The common MAD header's fields the engine reads or writes at every
 * request and response, by byte offset (IBA 13.4.3, big-endian): libibmad's
 * mad_get_field()/mad_set_field() cost about 50 instructions a field, and
 * a request with its response used about 16 of them. Everything else goes
 * through libibmad's field ids; tests/unit/check_mad.c checks these offsets
 * against libibmad's.
 */
enum { MAD_OFF_BASEVER = 0, MAD_OFF_CLASS = 1, MAD_OFF_CLASSVER = 2,
       MAD_OFF_METHOD = 3,     /* R bit and method */
       MAD_OFF_STATUS = 4,     /* 16 bits; DR SMP: D bit and 15 bits */
       MAD_OFF_TID = 8, MAD_OFF_ATTR = 16, MAD_OFF_MOD = 20 };

static inline uint16_t
mad_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
mad_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
mad_be64(const uint8_t *p)
{
	return (uint64_t)mad_be32(p) << 32 | mad_be32(p + 4);
}

static inline void
mad_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
mad_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
mad_put_be64(uint8_t *p, uint64_t v)
{
	mad_put_be32(p, (uint32_t)(v >> 32));
	mad_put_be32(p + 4, (uint32_t)v);
}

/* Names for logs, ibsmctl and the stats file. The class name is short and
 * lower case ("smp", "sa", "perf"...); attributes are named per class. An
 * unknown value is formatted in hex into a static buffer, one per
 * function: valid until the next call of the same function. */
const char *mad_class_name(uint8_t mgmt_class);
const char *mad_method_name(uint8_t method);
const char *mad_attr_name(uint8_t mgmt_class, uint16_t attr);
/*
 * A completion status for a log line: "no answer", "cannot send", or the
 * response's Status field decoded (IBA 13.4.7: busy, redirect, the invalid
 * field code; the class-specific bits by name for SA, else as the vendor's
 * or class's own code), e.g. "status 0x0008: method not supported".
 * Returns buf.
 */
const char *mad_status_text(uint8_t mgmt_class, int status, char *buf,
    size_t len);

#endif
