/*
 * SMP client: Subnet Management Packets of the SM class, directed route
 * (0x81) or LID-routed (0x01), built and checked on top of the
 * class-neutral MAD engine (mad/mad.h), which carries them, keeps their
 * windows, timeouts and retries, and counts them as class "smp".
 */
#ifndef IBSMD_SMP_H
#define IBSMD_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "mad/mad.h"

/* SMP attributes (IBA 14.2.5). */
enum { ATTR_NOTICE = 0x02, ATTR_NODE_DESC = 0x10, ATTR_NODE_INFO = 0x11,
       ATTR_SWITCH_INFO = 0x12, ATTR_GUID_INFO = 0x14, ATTR_PORT_INFO = 0x15,
       ATTR_PKEY_TABLE = 0x16, ATTR_SL2VL = 0x17, ATTR_VL_ARB = 0x18,
       ATTR_LFT = 0x19, ATTR_MFT = 0x1B, ATTR_SM_INFO = 0x20 };

#define SMP_CLASS_VERSION 1
#define SMP_DATA_OFFSET 64      /* the attribute's data in an SMP */
#define SMP_DATA_SIZE   64
/* The SMP header beyond the common MAD header (IBA 14.2.1.1, 14.2.1.2),
 * by byte offset, for the request path (see mad/mad.h's MAD_OFF_*). */
#define SMP_OFF_HOPPTR   6      /* directed route: hop pointer */
#define SMP_OFF_HOPCNT   7      /* directed route: hop count */
#define SMP_OFF_MKEY     24
#define SMP_OFF_DRSLID   32
#define SMP_OFF_DRDLID   34
#define SMP_OFF_INITPATH 128    /* 64 bytes */
#define SMP_DR_DIRECTION 0x8000u /* the D bit of the 16-bit status word */

struct smp_req {
	uint8_t method;         /* MAD_GET or MAD_SET */
	uint16_t attr;
	uint32_t mod;           /* attribute modifier */
	const struct dr_path *path; /* directed route when not NULL (copied) */
	uint16_t dlid;          /* LID-routed destination when path is NULL */
	uint64_t dest;          /* window key: the destination node, any stable
				 * value (node GUID, or the path's parent) */
	const uint8_t *data;    /* SMP_DATA_SIZE bytes to send, NULL for zeros */
	uint64_t mkey;          /* M_Key in the header (0: none) */
	void (*drop)(void *arg); /* NULL, or what mad_engine_free() calls
				 * on the arg of a request it drops */
};

/* status: 0 success; > 0 the MAD status field of the response (DR D bit
 * masked off); MAD_ETIMEDOUT or MAD_ESEND. resp: the 256-byte response,
 * NULL unless one arrived, valid only during the call. Called exactly once
 * per accepted request, from the loop, never from inside smp_request(). */
typedef void (*smp_done_cb)(void *arg, int status, const uint8_t *resp);

/* The M_Key of a request that names none (req.mkey 0): fn(arg, req) is
 * asked at every attempt (the key a port holds may change between two:
 * our own PortInfo Set). One source for the process (an SM owns one
 * port); fn NULL: none. */
typedef uint64_t (*smp_mkey_fn)(void *arg, const struct smp_req *q);
/* known(arg, req): false when the destination holds a key the source
 * does not know (the key it gives is then a guess, and a wrong one is a
 * violation: nothing optional is sent there). NULL: always known. */
typedef bool (*smp_mkey_known_fn)(void *arg, const struct smp_req *q);
void smp_set_mkey_source(smp_mkey_fn fn, smp_mkey_known_fn known,
    void *arg);
/* The M_Key the source gives a destination (0 without a source): for
 * MADs built outside the request machinery (a TrapRepress). */
uint64_t smp_mkey_for(const struct smp_req *q);
bool smp_mkey_known(const struct smp_req *q);

/* Register the agents of both SM classes on the engine's port, accepting
 * the requests an SM is sent: Get and Set (SMInfo), Trap, TrapRepress.
 * Returns 0, or -1 (another SM holds the port). */
int smp_register(struct mad_engine *e);

/* An SMP its caller keeps, with req.path and req.data, until cb is called
 * (or req.drop): the engine builds the MAD from it at each attempt and
 * holds no copy while it waits in a queue. */
struct smp_call {
	struct smp_req req;
	smp_done_cb cb;
	void *arg;
};

/* Queue c. Returns 0 (c->cb will be called) or -1 (bad request). */
int smp_submit(struct mad_engine *e, struct smp_call *c);

/* Queue one SMP. Returns 0 (cb will be called) or -1 (bad request). */
int smp_request(struct mad_engine *e, const struct smp_req *r,
    smp_done_cb cb, void *arg);

/* Send a complete SMP outside the request machinery (a GetResp to a
 * request we received, a TrapRepress): dlid TRANSPORT_LID_PERMISSIVE for
 * directed route, else QP0 of that LID. Returns 0 or -1. */
int smp_reply(struct mad_engine *e, const uint8_t *mad, uint16_t dlid);

#endif
