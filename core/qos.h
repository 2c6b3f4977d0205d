/*
 * QoS tables: what each port of a model is to hold with OpenSM's QoS
 * options (qos, max_op_vls, qos_max_vls, qos_high_limit, qos_vlarb_high,
 * qos_vlarb_low, qos_sl2vl and their qos_ca_, qos_sw0_, qos_swe_,
 * qos_rtr_ variants): OperationalVLs and VLHighLimit (PortInfo), the
 * SL-to-VL mapping tables (SMP 0x17; a switch's per input and output
 * port) and the VL arbitration blocks (0x18, blocks 1-4). Pure: the
 * option texts and a model in, tables out; no I/O.
 *
 * The rules are OpenSM 3.3.23's (osm_qos.c, osm_port.c's
 * osm_physp_calc_link_op_vls): see qos.c's head comment for each.
 */
#ifndef IBSMD_QOS_H
#define IBSMD_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fabric;

#define QOS_SL2VL_BYTES         8       /* 16 SLs, 4 bits each */
#define QOS_VLARB_BLOCK_BYTES   64      /* 32 entries: VL byte, weight */
#define QOS_VLARB_ENTRIES       64      /* two blocks */
#define QOS_VLARB_BLOCKS        4       /* 1-2 low priority, 3-4 high */

/* The port types of OpenSM's option sets. */
enum qos_kind { QOS_CA, QOS_SW0, QOS_SWE, QOS_RTR, QOS_NKINDS };

/* One option set as written; an unset value is the general set's, and
 * the general set's unset values are OpenSM's defaults. */
struct qos_optset {
	unsigned max_vls;       /* 1-15; 0: unset */
	int high_limit;         /* 0-255; -1: unset */
	const char *vlarb_high; /* "VL:weight,..."; NULL or "": unset */
	const char *vlarb_low;
	const char *sl2vl;      /* 16 VLs, comma-separated */
};

/* One port type's values, resolved and parsed. */
struct qos_params {
	uint8_t max_vls;        /* data VLs, 1-15 */
	uint8_t high_limit;
	uint8_t vlarb_high[2][QOS_VLARB_BLOCK_BYTES];   /* wire layout */
	uint8_t vlarb_low[2][QOS_VLARB_BLOCK_BYTES];
	uint8_t sl2vl[QOS_SL2VL_BYTES];                 /* wire layout */
};

/*
 * A caller's say on a table before it is masked to the output port's
 * OperationalVLs (OpenSM's routing engine update_sl2vl): called with the
 * table the options give, for a switch's (in, out) pair (port: the
 * output port's index in the model) or a CA's or router's port (in 0).
 * It may rewrite t.
 */
typedef void (*qos_sl2vl_fn)(void *arg, const struct fabric *f,
    uint32_t port, unsigned in, uint8_t t[QOS_SL2VL_BYTES]);

struct qos_config {
	bool on;                /* qos: SL2VL, VLArb, VLHighLimit managed */
	uint8_t max_op_vls;     /* OperationalVLs code cap, 1-5 */
	bool apply_max_vls;     /* qos_*max_vls caps OperationalVLs (ibsmd;
				 * OpenSM ignores it) */
	struct qos_params kind[QOS_NKINDS];
	qos_sl2vl_fn sl2vl_fn;  /* NULL: the options' tables */
	void *sl2vl_arg;
};

/* Default texts (OpenSM's OSM_DEFAULT_QOS_*). */
#define QOS_DEFAULT_MAX_VLS     15
#define QOS_DEFAULT_HIGH_LIMIT  0
#define QOS_DEFAULT_VLARB_HIGH  "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0," \
	"10:0,11:0,12:0,13:0,14:0"
#define QOS_DEFAULT_VLARB_LOW   "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4," \
	"10:4,11:4,12:4,13:4,14:4"
#define QOS_DEFAULT_SL2VL       "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

/*
 * Parse a VL arbitration list, "VL:weight" pairs separated by commas
 * (1 to 64 of them, VL 0-14, weight 0-255, numbers decimal or 0x hex,
 * spaces around them allowed), into two blocks of 32 entries (unlisted
 * entries VL 0 weight 0). Returns 0, or -1 with *at the offset in s of
 * what is wrong and *why saying what.
 */
int qos_parse_vlarb(const char *s, uint8_t blocks[2][QOS_VLARB_BLOCK_BYTES],
    size_t *at, const char **why);
/* Parse 16 comma-separated VLs (0-15) into a table; as above. */
int qos_parse_sl2vl(const char *s, uint8_t t[QOS_SL2VL_BYTES], size_t *at,
    const char **why);

/*
 * qc from the options: general and kinds[] as written (texts already
 * checked: a text that does not parse is taken as unset). sl2vl_fn
 * stays NULL.
 */
void qos_config_build(struct qos_config *qc, bool on, unsigned max_op_vls,
    const struct qos_optset *general,
    const struct qos_optset kinds[QOS_NKINDS]);

/* The option set that applies to port p (a switch's port 0: sw0, its
 * other ports: swe). */
enum qos_kind qos_port_kind(const struct fabric *f, uint32_t p);
const char *qos_kind_name(enum qos_kind k);
/* OperationalVLs code (1: VL0 ... 5: VL0-14) for a number of data VLs. */
unsigned qos_vls_code(unsigned vls);

/*
 * The OperationalVLs port p is to run (the PortInfo code), or 0 when it
 * is left as it is: a port with a peer runs the lower VLCap of both
 * ends, one without (a switch's port 0) what it runs; capped by
 * max_op_vls, and with qos on and apply_max_vls by its type's
 * qos_*max_vls.
 */
unsigned qos_oper_vls(const struct qos_config *qc, const struct fabric *f,
    uint32_t p);
/* The VLHighLimit port p is to hold, or -1 when it is left alone (qos
 * off, a base switch port 0). */
int qos_high_limit(const struct qos_config *qc, const struct fabric *f,
    uint32_t p);

/*
 * The SL-to-VL table wanted on node ni from input port in to output port
 * out (a CA or router: in 0, out the port's number) into t; false when
 * ibsmd leaves that table alone (qos off, no SL map, a port down, a base
 * switch port 0 as output).
 */
bool qos_sl2vl_want(const struct qos_config *qc, const struct fabric *f,
    uint32_t ni, unsigned in, unsigned out, uint8_t t[QOS_SL2VL_BYTES]);
/*
 * VL arbitration block b (0-3: blocks 1-4) wanted at port p into blk;
 * false when it is left alone (qos off, the port's caps have no such
 * block, a single data VL, a base switch port 0, a port down).
 */
bool qos_vlarb_want(const struct qos_config *qc, const struct fabric *f,
    uint32_t p, unsigned b, uint8_t blk[QOS_VLARB_BLOCK_BYTES]);

/* SL sl's VL in a wire-layout table. */
static inline unsigned
qos_sl2vl_get(const uint8_t t[QOS_SL2VL_BYTES], unsigned sl)
{
	return sl & 1 ? t[sl / 2] & 0xfu : t[sl / 2] >> 4;
}

#endif
