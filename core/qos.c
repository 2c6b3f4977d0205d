/*
 * QoS tables: see core/qos.h.
 *
 * OpenSM 3.3.23's rules, which this module keeps (the sim test
 * tests/sim/qos_tables.sh compares what both leave on a fabric):
 *
 * - OperationalVLs: the lower VLCap of a link's two ends (a port with no
 *   peer keeps what it runs), at least 1, at most max_op_vls; with qos
 *   ibsmd also caps it by the port type's qos_*max_vls (OpenSM reads that
 *   option and uses it nowhere).
 * - A VL in a table is ANDed with the port's OperationalVLs mask
 *   ((1 << (OperationalVLs - 1)) - 1: 0, 1, 3, 7, 15), not clamped: with
 *   4 data VLs, VL 5 becomes VL 1. VL 15 (drop) in an SL-to-VL table
 *   stays 15. A VL arbitration list's VL 15 would be read by OpenSM as 0
 *   (it takes the VL modulo 15); ibsmd refuses it in the options.
 * - VL arbitration: a list of up to 64 entries fills two blocks of 32;
 *   block 1 (low) and 3 (high) carry min(cap, 32) entries of the first,
 *   blocks 2 and 4 cap % 32 of the second (a cap of 64 leaves them
 *   alone), the rest of each block zero; none on a port with one data VL
 *   (VLHighLimit 0 there), nor on a base switch port 0.
 * - SL-to-VL: only on nodes whose port (a switch's port 0) has
 *   IsSLMappingSupported; a switch gets a table for every input port
 *   (0 included, up or down) to every output port that is not down,
 *   port 0 as output only when enhanced, each from qos_swe_sl2vl masked
 *   to the output port's OperationalVLs, except the enhanced port 0's own
 *   (0 to 0), from qos_sw0_sl2vl. OpenSM's "optimized" switch path
 *   (use_optimized_slvl, off by default) is not offered.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/qos.h"

#define CAP_SL_MAP      0x40u   /* PortInfo CapabilityMask bit 6 */

/* ------------------------------------------------------------------ */
/* Option texts */

static void
skip_spaces(const char *s, size_t *i)
{
	while (s[*i] == ' ' || s[*i] == '\t')
		(*i)++;
}

/* A decimal or 0x hex number at s[*i], at most max. */
static int
number(const char *s, size_t *i, unsigned max, unsigned *v,
    const char **why)
{
	unsigned long n = 0;
	size_t j = *i;
	int base = 10, digits = 0;

	if (s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
		base = 16;
		j += 2;
	}
	for (;; j++) {
		int c = s[j], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (n <= 0xffff)
			n = n * (unsigned long)base + (unsigned long)d;
		digits++;
	}
	if (digits == 0) {
		*why = "expected a number";
		return -1;
	}
	if (base == 10 && digits > 1 && s[*i] == '0') {
		*why = "leading zero (write decimal without it, or hex "
		    "after 0x)";
		return -1;
	}
	if (n > max) {
		*why = max == 14 ? "VL out of range (0 to 14)" :
		    max == 15 ? "VL out of range (0 to 15)" :
		    "weight out of range (0 to 255)";
		return -1;
	}
	*v = (unsigned)n;
	*i = j;
	return 0;
}

/* After an entry: a comma and more, or the end. 1: more, 0: end. */
static int
separator(const char *s, size_t *i, const char **why)
{
	skip_spaces(s, i);
	if (s[*i] == '\0')
		return 0;
	if (s[*i] != ',') {
		*why = "expected a comma";
		return -1;
	}
	(*i)++;
	return 1;
}

int
qos_parse_vlarb(const char *s, uint8_t blocks[2][QOS_VLARB_BLOCK_BYTES],
    size_t *at, const char **why)
{
	size_t i = 0;
	unsigned n = 0, vl, w;
	int more;

	memset(blocks, 0, 2 * QOS_VLARB_BLOCK_BYTES);
	for (;;) {
		skip_spaces(s, &i);
		if (n == QOS_VLARB_ENTRIES) {
			*why = "more than 64 VL:weight entries";
			goto bad;
		}
		if (number(s, &i, 14, &vl, why) < 0)
			goto bad;
		skip_spaces(s, &i);
		if (s[i] != ':') {
			*why = "expected VL:weight";
			goto bad;
		}
		i++;
		skip_spaces(s, &i);
		if (number(s, &i, 255, &w, why) < 0)
			goto bad;
		blocks[n / 32][2 * (n % 32)] = (uint8_t)vl;
		blocks[n / 32][2 * (n % 32) + 1] = (uint8_t)w;
		n++;
		if ((more = separator(s, &i, why)) < 0)
			goto bad;
		if (more == 0)
			return 0;
	}
bad:
	*at = i;
	return -1;
}

int
qos_parse_sl2vl(const char *s, uint8_t t[QOS_SL2VL_BYTES], size_t *at,
    const char **why)
{
	size_t i = 0;
	unsigned sl = 0, vl;
	int more;

	memset(t, 0, QOS_SL2VL_BYTES);
	for (;;) {
		skip_spaces(s, &i);
		if (sl == 16) {
			*why = "more than 16 VLs (one per SL 0-15)";
			goto bad;
		}
		if (number(s, &i, 15, &vl, why) < 0)
			goto bad;
		t[sl / 2] |= (uint8_t)(sl & 1 ? vl : vl << 4);
		sl++;
		if ((more = separator(s, &i, why)) < 0)
			goto bad;
		if (more == 0)
			break;
	}
	if (sl < 16) {
		*why = "fewer than 16 VLs (one per SL 0-15)";
		goto bad;
	}
	return 0;
bad:
	*at = i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Option sets */

static bool
set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

/* own's text, else the general set's, else dflt. */
static const char *
pick(const char *own, const char *general, const char *dflt)
{
	return set(own) ? own : set(general) ? general : dflt;
}

static void
params_build(struct qos_params *p, const struct qos_optset *own,
    const struct qos_optset *g)
{
	size_t at;
	const char *why;

	memset(p, 0, sizeof(*p));
	p->max_vls = (uint8_t)(own->max_vls > 0 && own->max_vls <= 15 ?
	    own->max_vls : g->max_vls > 0 && g->max_vls <= 15 ? g->max_vls :
	    QOS_DEFAULT_MAX_VLS);
	p->high_limit = (uint8_t)(own->high_limit >= 0 &&
	    own->high_limit <= 255 ? own->high_limit : g->high_limit >= 0 &&
	    g->high_limit <= 255 ? g->high_limit : QOS_DEFAULT_HIGH_LIMIT);
	if (qos_parse_vlarb(pick(own->vlarb_high, g->vlarb_high,
	    QOS_DEFAULT_VLARB_HIGH), p->vlarb_high, &at, &why) < 0)
		(void)qos_parse_vlarb(QOS_DEFAULT_VLARB_HIGH, p->vlarb_high,
		    &at, &why);
	if (qos_parse_vlarb(pick(own->vlarb_low, g->vlarb_low,
	    QOS_DEFAULT_VLARB_LOW), p->vlarb_low, &at, &why) < 0)
		(void)qos_parse_vlarb(QOS_DEFAULT_VLARB_LOW, p->vlarb_low,
		    &at, &why);
	if (qos_parse_sl2vl(pick(own->sl2vl, g->sl2vl, QOS_DEFAULT_SL2VL),
	    p->sl2vl, &at, &why) < 0)
		(void)qos_parse_sl2vl(QOS_DEFAULT_SL2VL, p->sl2vl, &at, &why);
}

void
qos_config_build(struct qos_config *qc, bool on, unsigned max_op_vls,
    const struct qos_optset *general,
    const struct qos_optset kinds[QOS_NKINDS])
{
	memset(qc, 0, sizeof(*qc));
	qc->on = on;
	qc->max_op_vls = (uint8_t)(max_op_vls >= 1 && max_op_vls <= 5 ?
	    max_op_vls : 5);
	qc->apply_max_vls = true;
	for (unsigned k = 0; k < QOS_NKINDS; k++)
		params_build(&qc->kind[k], &kinds[k], general);
}

/* ------------------------------------------------------------------ */
/* Ports */

static unsigned
pi(const struct fabric_port *port, enum MAD_FIELDS fld)
{
	return mad_get_field((void *)port->info, 0, fld);
}

static bool
enhanced_port0(const struct fabric *f, uint32_t ni)
{
	const struct fabric_node *n = &f->nodes[ni];

	return n->sw_info_valid &&
	    mad_get_field((void *)n->sw_info, 0, IB_SW_ENHANCED_PORT0_F);
}

enum qos_kind
qos_port_kind(const struct fabric *f, uint32_t p)
{
	const struct fabric_node *n = &f->nodes[f->ports[p].node];

	if (n->type == NODE_SWITCH)
		return f->ports[p].num == 0 ? QOS_SW0 : QOS_SWE;
	return n->type == NODE_ROUTER ? QOS_RTR : QOS_CA;
}

const char *
qos_kind_name(enum qos_kind k)
{
	static const char *const n[QOS_NKINDS] = { "ca", "sw0", "swe",
	    "rtr" };

	return k < QOS_NKINDS ? n[k] : "?";
}

unsigned
qos_vls_code(unsigned vls)
{
	return vls >= 15 ? 5 : vls >= 8 ? 4 : vls >= 4 ? 3 : vls >= 2 ? 2 : 1;
}

/* A port the tables of which are programmed: read, not down; a switch's
 * port 0 only when enhanced; a CA's or router's when seen. */
static bool
managed(const struct fabric *f, uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	const struct fabric_node *n = &f->nodes[port->node];

	if (!port->info_valid || port->kept || n->kept)
		return false;
	if (n->type == NODE_SWITCH && port->num == 0)
		return enhanced_port0(f, port->node);
	if (n->type != NODE_SWITCH && (!port->present || port->num == 0))
		return false;
	return port->state != PORT_DOWN && port->state != 0;
}

unsigned
qos_oper_vls(const struct qos_config *qc, const struct fabric *f,
    uint32_t p)
{
	const struct fabric_port *port = &f->ports[p];
	unsigned v, cap;

	if (!managed(f, p))
		return 0;
	if (port->peer != FABRIC_NONE && f->ports[port->peer].info_valid) {
		v = pi(port, IB_PORT_VL_CAP_F);
		cap = pi(&f->ports[port->peer], IB_PORT_VL_CAP_F);
		if (cap < v)
			v = cap;
	} else {
		v = pi(port, IB_PORT_OPER_VLS_F);
	}
	if (v == 0)
		v = 1;
	if (v > qc->max_op_vls)
		v = qc->max_op_vls;
	if (qc->on && qc->apply_max_vls) {
		cap = qos_vls_code(qc->kind[qos_port_kind(f, p)].max_vls);
		if (v > cap)
			v = cap;
	}
	return v;
}

/* The mask of the VLs port p runs once programmed. */
static unsigned
vl_mask(const struct qos_config *qc, const struct fabric *f, uint32_t p)
{
	unsigned v = qos_oper_vls(qc, f, p);

	if (v == 0)
		v = pi(&f->ports[p], IB_PORT_OPER_VLS_F);
	if (v == 0)
		v = 1;
	return (1u << (v - 1)) - 1;
}

int
qos_high_limit(const struct qos_config *qc, const struct fabric *f,
    uint32_t p)
{
	if (!qc->on || !managed(f, p))
		return -1;
	if (pi(&f->ports[p], IB_PORT_VL_CAP_F) == 1)
		return 0;
	return qc->kind[qos_port_kind(f, p)].high_limit;
}

bool
qos_sl2vl_want(const struct qos_config *qc, const struct fabric *f,
    uint32_t ni, unsigned in, unsigned out, uint8_t t[QOS_SL2VL_BYTES])
{
	const struct fabric_node *n = &f->nodes[ni];
	bool sw = n->type == NODE_SWITCH;
	const struct fabric_port *cap_port;
	enum qos_kind k;
	uint32_t p;
	unsigned mask;

	if (!qc->on || out > n->nports || in > n->nports || (!sw && in != 0))
		return false;
	p = n->port0 + out;
	if (!managed(f, p))
		return false;
	cap_port = sw ? &f->ports[n->port0] : &f->ports[p];
	if (!cap_port->info_valid ||
	    !(pi(cap_port, IB_PORT_CAPMASK_F) & CAP_SL_MAP))
		return false;
	k = sw ? (in == 0 && out == 0 ? QOS_SW0 : QOS_SWE) :
	    n->type == NODE_ROUTER ? QOS_RTR : QOS_CA;
	memcpy(t, qc->kind[k].sl2vl, QOS_SL2VL_BYTES);
	if (qc->sl2vl_fn != NULL)
		qc->sl2vl_fn(qc->sl2vl_arg, f, p, in, t);
	mask = vl_mask(qc, f, p);
	for (unsigned i = 0; i < QOS_SL2VL_BYTES; i++) {
		unsigned a = t[i] >> 4, b = t[i] & 0xfu;

		if (a != 15)
			a &= mask;
		if (b != 15)
			b &= mask;
		t[i] = (uint8_t)(a << 4 | b);
	}
	return true;
}

bool
qos_vlarb_want(const struct qos_config *qc, const struct fabric *f,
    uint32_t p, unsigned b, uint8_t blk[QOS_VLARB_BLOCK_BYTES])
{
	const struct fabric_port *port = &f->ports[p];
	const struct qos_params *q;
	const uint8_t *src;
	unsigned cap, len, mask;

	if (!qc->on || b >= QOS_VLARB_BLOCKS || !managed(f, p) ||
	    pi(port, IB_PORT_VL_CAP_F) == 1)
		return false;
	cap = pi(port, b < 2 ? IB_PORT_VL_ARBITRATION_LOW_CAP_F :
	    IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	if (b % 2 == 0)
		len = cap < 32 ? cap : 32;
	else
		len = cap > 32 ? cap % 32 : 0;
	if (len == 0)
		return false;
	q = &qc->kind[qos_port_kind(f, p)];
	src = b < 2 ? q->vlarb_low[b % 2] : q->vlarb_high[b % 2];
	mask = vl_mask(qc, f, p);
	memset(blk, 0, QOS_VLARB_BLOCK_BYTES);
	for (unsigned i = 0; i < len; i++) {
		blk[2 * i] = (uint8_t)(src[2 * i] & mask);
		blk[2 * i + 1] = src[2 * i + 1];
	}
	return true;
}
