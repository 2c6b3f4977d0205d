/*
 * The contract between the SA agent (sa/sa.c: receive, check, dispatch,
 * answer) and the attribute modules (one per record kind, or a few small
 * ones together). A module exports one const struct sa_attr; sa/attrs.c
 * lists them. A handler is a function of the view, the module's state and
 * the request: it fills records and returns an SA status. The agent does
 * the rest: the Get rules (none: NO_RECORDS, several: TOO_MANY_RECORDS),
 * GetTable (RMPP when longer than one MAD, AttributeOffset, empty table),
 * the reply method (GetResp for Get and Set, GetTableResp, DeleteResp,
 * GetMultiResp), error replies, counters.
 *
 * Unit tests call handlers directly with a view built in memory.
 */
#ifndef IBSMD_SA_ATTR_H
#define IBSMD_SA_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/transport.h"
#include "sa/sa.h"

struct ev_loop;

/* The SA MAD: common header (24), RMPP header (24-35), SM_Key (36-43),
 * AttributeOffset in 8-byte words (44-45), ComponentMask (48-55), data. */
#define SA_HDR_SIZE     56
#define SA_DATA_SIZE    200     /* data bytes in one 256-byte MAD */
#define SA_CLASS_VERSION 2

/* SA attributes (IBA 15.2.5). */
enum {
	SA_ATTR_CLASS_PORT_INFO = 0x0001, SA_ATTR_NOTICE = 0x0002,
	SA_ATTR_INFORM_INFO = 0x0003, SA_ATTR_NODE_REC = 0x0011,
	SA_ATTR_PORTINFO_REC = 0x0012, SA_ATTR_SL2VL_REC = 0x0013,
	SA_ATTR_SWITCHINFO_REC = 0x0014, SA_ATTR_LFT_REC = 0x0015,
	SA_ATTR_RFT_REC = 0x0016, SA_ATTR_MFT_REC = 0x0017,
	SA_ATTR_SMINFO_REC = 0x0018, SA_ATTR_LINK_REC = 0x0020,
	SA_ATTR_GUIDINFO_REC = 0x0030, SA_ATTR_SERVICE_REC = 0x0031,
	SA_ATTR_PKEY_REC = 0x0033, SA_ATTR_PATH_REC = 0x0035,
	SA_ATTR_VLARB_REC = 0x0036, SA_ATTR_MCMEMBER_REC = 0x0038,
	SA_ATTR_TRACE_REC = 0x0039, SA_ATTR_MULTIPATH_REC = 0x003A,
	SA_ATTR_INFORM_INFO_REC = 0x00F3,
};

/* SA status codes: class-specific in bits 8-15, common in bits 2-4. */
enum {
	SA_STATUS_OK = 0x0000,
	SA_STATUS_BAD_VERSION = 0x0004,         /* class version */
	SA_STATUS_METHOD_UNSUPP = 0x0008,
	SA_STATUS_METHOD_ATTR_UNSUPP = 0x000C,
	SA_STATUS_INVALID_FIELD = 0x001C,
	SA_STATUS_NO_RESOURCES = 0x0100,
	SA_STATUS_REQ_INVALID = 0x0200,
	SA_STATUS_NO_RECORDS = 0x0300,
	SA_STATUS_TOO_MANY_RECORDS = 0x0400,
	SA_STATUS_INVALID_GID = 0x0500,
	SA_STATUS_INSUFFICIENT_COMPONENTS = 0x0600,
	SA_STATUS_DENIED = 0x0700,
};
/* Not a wire status: a handler returns it to have the request dropped
 * without an answer (OpenSM's silent cases); counted. */
#define SA_STATUS_DROP 0x10000u

/* One request, decoded by the agent. */
struct sa_req {
	uint8_t method;         /* Get, Set, GetTable, GetMulti, Delete */
	uint16_t attr;
	uint32_t attr_mod;
	uint64_t comp_mask;
	bool trusted;           /* carried SM_Key == sa_key (0 too, when
				 * sa_key is 0) */
	bool keys;              /* trusted with an sa_key no host knows by
				 * default (not 0 or OpenSM's 1): M_Keys
				 * and SM_Keys are shown */
	const uint8_t *rec;     /* the request's record: rec_size bytes of
				 * the attribute, zero-padded if the MAD was
				 * shorter */
	const uint8_t *mad;     /* the whole request */
	size_t len;
	uint32_t requester;     /* end port of from.lid in the view's fabric,
				 * FABRIC_NONE if none */
	struct transport_addr from;
};

/* Records of one answer, rec_size bytes each. For a Get the agent sets
 * limit 2 (one more than allowed tells TOO_MANY_RECORDS); handlers stop
 * adding when sa_out_full(). */
struct sa_out {
	uint8_t *recs;
	size_t n, cap;
	uint16_t rec_size;
	size_t limit;           /* 0: none */
};

/* A zeroed slot for one more record (never NULL: allocation aborts). */
uint8_t *sa_out_add(struct sa_out *o);
static inline bool
sa_out_full(const struct sa_out *o)
{
	return o->limit != 0 && o->n >= o->limit;
}
void sa_out_init(struct sa_out *o, uint16_t rec_size, size_t limit);
void sa_out_fini(struct sa_out *o);

struct sa_ctx {
	struct sa *sa;
	const struct sa_view *v;        /* never NULL in a handler */
	const struct sa_opts *o;
	double now;                     /* loop time, seconds */
	void *state;                    /* the module's, from init */
};

/* Returns an SA status; records in out (for Set/Delete: the one record
 * the reply carries). An error status from a Get, Set or Delete handler
 * with exactly one record in out has that record in the error reply
 * (otherwise the request's record comes back). */
typedef unsigned (*sa_handler_fn)(const struct sa_ctx *c,
    const struct sa_req *q, struct sa_out *out);

struct sa_attr {
	uint16_t id;
	const char *name;               /* "NodeRecord", for logs and stats */
	uint16_t rec_size;              /* bytes, a multiple of 8 */
	sa_handler_fn get;              /* Get and GetTable (GetMulti for
					 * MultiPathRecord); NULL: none */
	sa_handler_fn set;              /* NULL: Set not served */
	sa_handler_fn del;              /* NULL: Delete not served */
	/* Optional module state and hooks. */
	void *(*init)(struct sa *sa, struct ev_loop *loop);
	void (*fini)(void *state);
	/* A new view replaced old (old may be NULL): forget or report what
	 * went away. Called before the new view serves requests. */
	void (*view_changed)(void *state, const struct sa_view *old,
	    const struct sa_view *v);
};

/* The attribute modules (sa/attrs.c), NULL-terminated. */
extern const struct sa_attr *const sa_attrs[];
/* The state of the module serving attribute id, NULL if none. */
void *sa_attr_state(struct sa *sa, uint16_t id);
/* The view in use (NULL before the first). */
const struct sa_view *sa_current_view(const struct sa *sa);
struct mad_engine *sa_mad(struct sa *sa);
const struct sa_opts *sa_get_opts(const struct sa *sa);
/* The module serving attribute id in sa_attrs, NULL if none. */
const struct sa_attr *sa_attr_find(uint16_t id);
/* The counters, for modules that keep some (reports, services). */
struct sa_stats *sa_stats_mut(struct sa *sa);
/* ClassPortInfo:RespTimeValue: 16 (268 ms, as OpenSM) or more when
 * answers were measured slower. */
unsigned sa_resp_time_value(const struct sa *sa);
/* The receive path of one request (the MAD engine's listener calls it;
 * unit tests and the fuzzer call it directly). */
void sa_dispatch(struct sa *sa, const struct transport_rx *rx);

/*
 * Component masks. Component i of a record is entry i of its table: its
 * offset from the record's start and its width, in bits (reserved fields
 * are components too, IBA numbers them). A record matches when every
 * component set in mask is equal in want and have. Fields wider than 64
 * bits (GIDs) must be byte-aligned.
 */
struct sa_comp {
	uint16_t off;           /* bits from the record's start, MSB first */
	uint16_t bits;
};
bool sa_comp_match(const struct sa_comp *t, size_t n, uint64_t mask,
    const uint8_t *want, const uint8_t *have);
/* Big-endian bit fields of at most 64 bits at any bit offset. */
uint64_t sa_get_bits(const uint8_t *rec, unsigned off, unsigned bits);
void sa_set_bits(uint8_t *rec, unsigned off, unsigned bits, uint64_t v);
/* A GID's subnet prefix (bytes 0-7) and interface ID (bytes 8-15), and
 * the GID made of the two, all big-endian. */
uint64_t sa_gid_prefix(const uint8_t gid[16]);
uint64_t sa_gid_guid(const uint8_t gid[16]);
void sa_gid_make(uint8_t gid[16], uint64_t prefix, uint64_t guid);
/* Whether a GID prefix is link-local (fe80::/10: the top ten bits
 * 1111111010, whatever the next 54, as IBA 4.1.1 and OpenSM's
 * ib_gid_is_link_local), and whether it names a port of this subnet
 * (link-local, or the subnet prefix). */
bool sa_gid_link_local(uint64_t prefix);
bool sa_gid_prefix_ours(const struct sa_view *v, uint64_t prefix);

#endif
