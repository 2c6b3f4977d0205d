/*
 * MCMemberRecord codec and rules: see sa/mcrules.h. Bit offsets are IBA's,
 * MSB first (as libibmad's McastMem* fields and OpenSM's ib_member_rec_t).
 */
#include "autoconfig.h"

#include <string.h>

#include "sa/attr.h"
#include "sa/mcrules.h"

/* Bit offsets of the fields. */
#define O_QKEY          256
#define O_MLID          288
#define O_MTU_SEL       304
#define O_MTU           306
#define O_TCLASS        312
#define O_PKEY          320
#define O_RATE_SEL      336
#define O_RATE          338
#define O_LIFE_SEL      344
#define O_LIFE          346
#define O_SL            352
#define O_FLOW          356
#define O_HOP           376
#define O_SCOPE         384
#define O_JOIN          388
#define O_PROXY         392

void
mcmember_decode(const uint8_t *b, struct mcmember_rec *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->mgid, b, 16);
	memcpy(r->port_gid, b + 16, 16);
	r->qkey = (uint32_t)sa_get_bits(b, O_QKEY, 32);
	r->mlid = (uint16_t)sa_get_bits(b, O_MLID, 16);
	r->mtu_sel = (uint8_t)sa_get_bits(b, O_MTU_SEL, 2);
	r->mtu = (uint8_t)sa_get_bits(b, O_MTU, 6);
	r->tclass = (uint8_t)sa_get_bits(b, O_TCLASS, 8);
	r->pkey = (uint16_t)sa_get_bits(b, O_PKEY, 16);
	r->rate_sel = (uint8_t)sa_get_bits(b, O_RATE_SEL, 2);
	r->rate = (uint8_t)sa_get_bits(b, O_RATE, 6);
	r->life_sel = (uint8_t)sa_get_bits(b, O_LIFE_SEL, 2);
	r->life = (uint8_t)sa_get_bits(b, O_LIFE, 6);
	r->sl = (uint8_t)sa_get_bits(b, O_SL, 4);
	r->flow_label = (uint32_t)sa_get_bits(b, O_FLOW, 20);
	r->hop_limit = (uint8_t)sa_get_bits(b, O_HOP, 8);
	r->scope = (uint8_t)sa_get_bits(b, O_SCOPE, 4);
	r->join_state = (uint8_t)sa_get_bits(b, O_JOIN, 4);
	r->proxy = sa_get_bits(b, O_PROXY, 1) != 0;
}

void
mcmember_encode(const struct mcmember_rec *r, uint8_t *b)
{
	memset(b, 0, SA_MCMEMBER_REC_SIZE);
	memcpy(b, r->mgid, 16);
	memcpy(b + 16, r->port_gid, 16);
	sa_set_bits(b, O_QKEY, 32, r->qkey);
	sa_set_bits(b, O_MLID, 16, r->mlid);
	sa_set_bits(b, O_MTU_SEL, 2, r->mtu_sel);
	sa_set_bits(b, O_MTU, 6, r->mtu);
	sa_set_bits(b, O_TCLASS, 8, r->tclass);
	sa_set_bits(b, O_PKEY, 16, r->pkey);
	sa_set_bits(b, O_RATE_SEL, 2, r->rate_sel);
	sa_set_bits(b, O_RATE, 6, r->rate);
	sa_set_bits(b, O_LIFE_SEL, 2, r->life_sel);
	sa_set_bits(b, O_LIFE, 6, r->life);
	sa_set_bits(b, O_SL, 4, r->sl);
	sa_set_bits(b, O_FLOW, 20, r->flow_label);
	sa_set_bits(b, O_HOP, 8, r->hop_limit);
	sa_set_bits(b, O_SCOPE, 4, r->scope);
	sa_set_bits(b, O_JOIN, 4, r->join_state);
	sa_set_bits(b, O_PROXY, 1, r->proxy);
}

/* IBA rate codes 2..24 in Gb/s x 10. */
static const uint16_t rate_tenths[] = {
	[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400,
	[8] = 600, [9] = 800, [10] = 1200, [11] = 140, [12] = 560,
	[13] = 1120, [14] = 1680, [15] = 250, [16] = 1000, [17] = 2000,
	[18] = 3000, [19] = 280, [20] = 500, [21] = 4000, [22] = 6000,
	[23] = 8000, [24] = 12000,
};
#define NRATES (sizeof(rate_tenths) / sizeof(rate_tenths[0]))

unsigned
mcmember_rate_tenths(uint8_t rate)
{
	return rate < NRATES ? rate_tenths[rate] : 0;
}

bool
mcmember_mtu_valid(uint8_t mtu)
{
	return mtu >= 1 && mtu <= 5;
}

/* -1, 0, 1 as a is slower, as fast as, faster than b. */
static int
rate_cmp(uint8_t a, uint8_t b)
{
	unsigned x = mcmember_rate_tenths(a), y = mcmember_rate_tenths(b);

	return x < y ? -1 : x > y;
}

/* The next faster (dir 1) or slower (dir -1) defined rate, 0 if none. */
static uint8_t
rate_step(uint8_t rate, int dir)
{
	unsigned cur = mcmember_rate_tenths(rate), best = 0;
	uint8_t code = 0, i;

	for (i = 2; i < NRATES; i++) {
		unsigned t = rate_tenths[i];

		if (dir > 0 && t > cur && (best == 0 || t < best))
			best = t, code = i;
		if (dir < 0 && t < cur && t != 0 && t > best)
			best = t, code = i;
	}
	return code;
}

unsigned
mcmember_check_request(uint64_t mask, const struct mcmember_rec *r)
{
	if ((mask & MCM_JOIN_MASK) != MCM_JOIN_MASK)
		return SA_STATUS_INSUFFICIENT_COMPONENTS;
	if ((mask & MCM_BIT(MCM_C_MTU_SEL)) && (mask & MCM_BIT(MCM_C_MTU)) &&
	    !mcmember_mtu_valid(r->mtu))
		return SA_STATUS_REQ_INVALID;
	if ((mask & MCM_BIT(MCM_C_RATE_SEL)) && (mask & MCM_BIT(MCM_C_RATE)) &&
	    mcmember_rate_tenths(r->rate) == 0)
		return SA_STATUS_REQ_INVALID;
	return SA_STATUS_OK;
}

static bool
gid_zero(const uint8_t g[16])
{
	static const uint8_t z[16];

	return memcmp(g, z, 16) == 0;
}

unsigned
mcmember_check_create(uint64_t mask, const struct mcmember_rec *r)
{
	uint16_t sig;

	if (!(r->join_state & (MCM_JOIN_FULL | MCM_JOIN_SEND_ONLY_FULL)))
		return SA_STATUS_REQ_INVALID;
	if ((mask & MCM_CREATE_MASK) != MCM_CREATE_MASK)
		return SA_STATUS_INSUFFICIENT_COMPONENTS;
	if ((r->pkey & 0x7fff) == 0)
		return SA_STATUS_REQ_INVALID;
	if (gid_zero(r->mgid))
		return SA_STATUS_OK;
	if (r->mgid[0] != 0xff)
		return SA_STATUS_REQ_INVALID;
	sig = (uint16_t)(r->mgid[2] << 8 | r->mgid[3]);
	if (sig == 0x401b || sig == 0x601b)
		return SA_STATUS_OK;
	/* Flags 000T: the three upper ones are reserved. */
	if (r->mgid[1] & 0xe0)
		return SA_STATUS_REQ_INVALID;
	/* SA-assigned MGIDs are the only link-local 0xA01B ones. */
	if (sig == 0xa01b && (r->mgid[1] & 0x0f) == 0x2)
		return SA_STATUS_REQ_INVALID;
	return SA_STATUS_OK;
}

bool
mcmember_realize(uint64_t mask, const struct mcmember_rec *r,
    uint8_t port_mtu, uint8_t port_rate, struct mcmember_rec *g)
{
	uint8_t sel, want, mtu, rate;

	/* MTU: the port's unless a selector says otherwise. */
	sel = r->mtu_sel;
	if (!(mask & MCM_BIT(MCM_C_MTU)) || !(mask & MCM_BIT(MCM_C_MTU_SEL)) ||
	    sel == MCM_SEL_MAX) {
		mtu = port_mtu;
	} else {
		want = r->mtu;
		mtu = want;
		if (sel == MCM_SEL_GT) {
			if (port_mtu != 0 && want >= port_mtu)
				return false;
			mtu = port_mtu != 0 ? port_mtu : (uint8_t)(want + 1);
		} else if (sel == MCM_SEL_LT) {
			mtu = port_mtu != 0 && want > port_mtu ? port_mtu :
			    (uint8_t)(want - 1);
		}
	}
	if (!mcmember_mtu_valid(mtu))
		return false;

	sel = r->rate_sel;
	if (!(mask & MCM_BIT(MCM_C_RATE)) ||
	    !(mask & MCM_BIT(MCM_C_RATE_SEL)) || sel == MCM_SEL_MAX) {
		rate = port_rate;
	} else {
		want = r->rate;
		rate = want;
		if (sel == MCM_SEL_GT) {
			if (port_rate != 0 && rate_cmp(want, port_rate) >= 0)
				return false;
			rate = port_rate != 0 ? port_rate : rate_step(want, 1);
		} else if (sel == MCM_SEL_LT) {
			rate = port_rate != 0 && rate_cmp(want, port_rate) > 0 ?
			    port_rate : rate_step(want, -1);
		}
	}
	if (mcmember_rate_tenths(rate) == 0)
		return false;
	g->mtu_sel = MCM_SEL_EQ;
	g->mtu = mtu;
	g->rate_sel = MCM_SEL_EQ;
	g->rate = rate;
	return true;
}

/* Whether have satisfies want under selector sel (cmp(have, want)). */
static bool
sel_ok(uint8_t sel, int cmp)
{
	switch (sel) {
	case MCM_SEL_GT:
		return cmp > 0;
	case MCM_SEL_LT:
		return cmp < 0;
	case MCM_SEL_EQ:
		return cmp == 0;
	}
	return true;            /* largest available: anything */
}

bool
mcmember_params_match(uint64_t mask, bool selectors,
    const struct mcmember_rec *r,
    const struct mcmember_rec *g)
{
#define GIVEN(c) ((mask & MCM_BIT(c)) != 0)
	if (GIVEN(MCM_C_QKEY) && r->qkey != g->qkey)
		return false;
	if (GIVEN(MCM_C_PKEY) && (((r->pkey | g->pkey) & 0x8000) == 0 ||
	    (r->pkey & 0x7fff) != (g->pkey & 0x7fff)))
		return false;
	if (GIVEN(MCM_C_TCLASS) && r->tclass != g->tclass)
		return false;
	if (GIVEN(MCM_C_SL) && r->sl != g->sl)
		return false;
	if (GIVEN(MCM_C_FLOW) && r->flow_label != g->flow_label)
		return false;
	if (GIVEN(MCM_C_HOP) && r->hop_limit != g->hop_limit)
		return false;
	if (!selectors)
		return true;
	/* A selector without its value compares against 0, as OpenSM. */
	if (GIVEN(MCM_C_MTU_SEL) &&
	    !sel_ok(r->mtu_sel, (int)g->mtu - (int)r->mtu))
		return false;
	if (GIVEN(MCM_C_RATE_SEL) &&
	    !sel_ok(r->rate_sel, rate_cmp(g->rate, r->rate)))
		return false;
	if (GIVEN(MCM_C_LIFE_SEL) &&
	    !sel_ok(r->life_sel, (int)g->life - (int)r->life))
		return false;
	return true;
#undef GIVEN
}

bool
mcmember_port_can_join(const struct mcmember_rec *g, uint8_t port_mtu,
    uint8_t port_rate)
{
	return port_mtu >= g->mtu && rate_cmp(port_rate, g->rate) >= 0;
}

bool
mcmember_leave_ok(uint8_t bits, uint8_t have)
{
	bits &= 0x0f;
	return (bits & have) != 0 && (bits & ~have) == 0;
}

void
mcmember_bcast_mgid(uint8_t mgid[16], uint16_t pkey, uint8_t scope)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | (scope & 0x0f));
	mgid[2] = 0x40;
	mgid[3] = 0x1b;
	mgid[4] = (uint8_t)((pkey | 0x8000) >> 8);
	mgid[5] = (uint8_t)pkey;
	memset(mgid + 12, 0xff, 4);
}

bool
mcmember_ipoib_needs_bcast(const uint8_t mgid[16], uint8_t bcast[16])
{
	uint16_t sig = (uint16_t)(mgid[2] << 8 | mgid[3]);

	if (mgid[0] != 0xff || (sig != 0x401b && sig != 0x601b))
		return false;
	/* ff1S:401b:PPPP::ffff:ffff with mgid's scope and P_Key bytes. */
	memset(bcast, 0, 16);
	bcast[0] = 0xff;
	bcast[1] = (uint8_t)(0x10 | (mgid[1] & 0x0f));
	bcast[2] = 0x40;
	bcast[3] = 0x1b;
	bcast[4] = mgid[4];
	bcast[5] = mgid[5];
	memset(bcast + 12, 0xff, 4);
	return sig != 0x401b || memcmp(bcast, mgid, 16) != 0;
}
