/*
 * MAD engine: SMP requests with completion callbacks, windows of
 * outstanding SMPs (per destination node and overall) with a FIFO queue
 * behind them, timeouts with retries, and counters by attribute and method.
 * A response that matches no outstanding request, or is malformed, is
 * counted and dropped. Unsolicited requests and traps go to one handler.
 */
#ifndef IBSMD_MAD_H
#define IBSMD_MAD_H

#include <stdint.h>

#include "core/fabric.h"

struct ev_loop;
struct mad_engine;

/* SMP methods and attributes (IBA 14.2.5). */
enum { MAD_GET = 0x01, MAD_SET = 0x02, MAD_GETRESP = 0x81, MAD_TRAP = 0x05,
       MAD_TRAPREPRESS = 0x07 };
enum { ATTR_NOTICE = 0x02, ATTR_NODE_DESC = 0x10, ATTR_NODE_INFO = 0x11,
       ATTR_SWITCH_INFO = 0x12, ATTR_GUID_INFO = 0x14, ATTR_PORT_INFO = 0x15,
       ATTR_PKEY_TABLE = 0x16, ATTR_SL2VL = 0x17, ATTR_VL_ARB = 0x18,
       ATTR_LFT = 0x19, ATTR_MFT = 0x1B, ATTR_SM_INFO = 0x20 };
enum { MGMT_CLASS_SMP_LID = 0x01, MGMT_CLASS_SMP_DR = 0x81 };

#define MAD_DATA_OFFSET 64
#define MAD_DATA_SIZE   64

/* Completion status beyond the MAD status field. */
#define MAD_ETIMEDOUT   (-1)    /* no answer after all retries */
#define MAD_ESEND       (-2)    /* could not be sent */

struct mad_opts {
	unsigned max_wire;      /* outstanding SMPs overall */
	unsigned max_per_node;  /* outstanding SMPs to one destination */
	unsigned timeout_ms;    /* per attempt */
	unsigned retries;       /* attempts after the first */
};

struct smp_req {
	uint8_t method;         /* MAD_GET or MAD_SET */
	uint16_t attr;
	uint32_t mod;           /* attribute modifier */
	const struct dr_path *path; /* directed route when not NULL (copied) */
	uint16_t dlid;          /* LID-routed destination when path is NULL */
	uint64_t dest;          /* window key: the destination node, any stable
				 * value (node GUID, or the path's parent) */
	const uint8_t *data;    /* MAD_DATA_SIZE bytes to send, NULL for zeros */
	uint64_t mkey;          /* M_Key in the header (0: none) */
};

/* Completions run from the loop (the transport's receive callback or a
 * timer); resp is valid only during the call. A callback must not free the
 * engine. */
/* status: 0 success; > 0 the MAD status field of the response (DR D bit
 * masked off); MAD_ETIMEDOUT or MAD_ESEND. resp: the 256-byte response,
 * NULL unless one arrived. Called exactly once per accepted request, from
 * the loop, never from inside mad_smp(). */
typedef void (*mad_done_cb)(void *arg, int status, const uint8_t *resp);

/* Unsolicited MAD: a Get/Set request to the SM, or a trap. slid is the
 * source LID of LID-routed MADs. */
typedef void (*mad_unsol_cb)(void *arg, const uint8_t *mad, uint16_t slid);

/* o == NULL: defaults (64 on the wire, 4 per node, 200 ms, 3 retries). */
struct mad_engine *mad_engine_new(struct ev_loop *loop, uint64_t guid,
    const struct mad_opts *o);
/* Drops every request outstanding, queued or deferred without calling its
 * callback. */
void mad_engine_free(struct mad_engine *e);
uint64_t mad_engine_port_guid(const struct mad_engine *e);
struct transport *mad_engine_transport(struct mad_engine *e);
void mad_engine_set_opts(struct mad_engine *e, const struct mad_opts *o);

/* Queue one SMP. Returns 0 (cb will be called) or -1 (bad request). */
int mad_smp(struct mad_engine *e, const struct smp_req *r, mad_done_cb cb,
    void *arg);

void mad_set_unsolicited(struct mad_engine *e, mad_unsol_cb cb, void *arg);

/* Send a complete MAD outside the request machinery (a GetResp to a
 * request we received, a TrapRepress): counted by method and attribute.
 * dlid 0xFFFF for directed route. Returns 0 or -1. */
int mad_send_reply(struct mad_engine *e, const uint8_t *mad, uint16_t dlid);

/* Requests sent and not completed, and queued behind the windows. */
unsigned mad_outstanding(const struct mad_engine *e);
unsigned mad_queued(const struct mad_engine *e);

struct mad_counter {
	uint64_t sent;          /* attempts put on the wire (retries included) */
	uint64_t recv;          /* responses matched, or unsolicited received */
	uint64_t timeout;       /* attempts that timed out */
	uint64_t error;         /* responses with a nonzero MAD status */
};

/* Counters of (method, attr); NULL-safe zeroes for pairs never seen. */
struct mad_counter mad_counter_get(const struct mad_engine *e, uint8_t method,
    uint16_t attr);
/* Visit every (method, attr) pair with a nonzero counter. */
void mad_counters_foreach(const struct mad_engine *e,
    void (*cb)(void *arg, uint8_t method, uint16_t attr,
	const struct mad_counter *c), void *arg);
uint64_t mad_total_sent(const struct mad_engine *e);
uint64_t mad_dropped_unmatched(const struct mad_engine *e);
uint64_t mad_dropped_malformed(const struct mad_engine *e);

/* The whole method byte (GetResp is 0x81) of a MAD, and setting it:
 * libibmad's METHOD field alone is 7 bits. */
uint8_t mad_method_of(const uint8_t *mad);
void mad_set_method(uint8_t *mad, uint8_t method);

const char *mad_method_name(uint8_t method);
const char *mad_attr_name(uint16_t attr);

#endif
