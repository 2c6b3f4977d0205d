/*
 * PathRecord and MultiPathRecord byte layouts: see sa/pathrec.h.
 *
 * PathRecord bytes: ServiceID 0-7, DGID 8-23, SGID 24-39, DLID 40-41,
 * SLID 42-43, RawTraffic(1) Reserved(3) FlowLabel(20) HopLimit(8) 44-47,
 * TClass 48, Reversible(1) NumbPath(7) 49, P_Key 50-51, QoSClass(12) SL(4)
 * 52-53, MTUSelector(2) MTU(6) 54, RateSelector(2) Rate(6) 55,
 * PacketLifeTimeSelector(2) PacketLifeTime(6) 56, Preference 57,
 * reserved 58-63.
 *
 * MultiPathRecord bytes: RawTraffic(1) Reserved(3) FlowLabel(20)
 * HopLimit(8) 0-3, TClass 4, Reversible(1) NumbPath(7) 5, P_Key 6-7,
 * QoSClass(12) SL(4) 8-9, MTU 10, Rate 11, PacketLifeTime 12,
 * ServiceID8MSB 13, IndependenceSelector(2) Reserved(6) 14, SGIDCount 15,
 * DGIDCount 16, ServiceID56LSB 17-23, GIDs from 24.
 */
#include "autoconfig.h"

#include <string.h>

#include <infiniband/mad.h>

#include "sa/pathrec.h"

static uint16_t
get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3];
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void
put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/* The 32-bit RawTraffic / FlowLabel / HopLimit word. */
static void
get_hfr(const uint8_t *b, bool *raw, uint32_t *flow, uint8_t *hop)
{
	uint32_t w = get32(b);

	*raw = (w >> 31) != 0;
	*flow = (w >> 8) & 0xFFFFF;
	*hop = (uint8_t)w;
}

static void
put_hfr(uint8_t *b, bool raw, uint32_t flow, uint8_t hop)
{
	put32(b, (raw ? 1u << 31 : 0) | (flow & 0xFFFFF) << 8 | hop);
}

void
sa_path_decode(const uint8_t *rec, struct sa_path *p)
{
	void *r = (void *)(uintptr_t)rec;       /* libibmad takes void * */
	uint64_t sid = 0;
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 8; i++)
		sid = sid << 8 | rec[i];
	p->service_id = sid;
	mad_get_array(r, 0, IB_SA_PR_DGID_F, p->dgid);
	mad_get_array(r, 0, IB_SA_PR_SGID_F, p->sgid);
	p->dlid = (uint16_t)mad_get_field(r, 0, IB_SA_PR_DLID_F);
	p->slid = (uint16_t)mad_get_field(r, 0, IB_SA_PR_SLID_F);
	get_hfr(rec + 44, &p->raw, &p->flow_label, &p->hop_limit);
	p->tclass = rec[48];
	p->reversible = (rec[49] & 0x80) != 0;
	p->numb_path = (uint8_t)mad_get_field(r, 0, IB_SA_PR_NPATH_F);
	p->pkey = get16(rec + 50);
	p->qos_class = get16(rec + 52) >> 4;
	p->sl = (uint8_t)mad_get_field(r, 0, IB_SA_PR_SL_F);
	p->mtu_sel = rec[54] >> 6;
	p->mtu = rec[54] & 0x3F;
	p->rate_sel = rec[55] >> 6;
	p->rate = rec[55] & 0x3F;
	p->life_sel = rec[56] >> 6;
	p->life = rec[56] & 0x3F;
	p->preference = rec[57];
}

void
sa_path_encode(const struct sa_path *p, uint8_t *rec)
{
	unsigned i;

	memset(rec, 0, SA_PATH_REC_SIZE);
	for (i = 0; i < 8; i++)
		rec[i] = (uint8_t)(p->service_id >> (56 - 8 * i));
	mad_set_array(rec, 0, IB_SA_PR_DGID_F, (void *)(uintptr_t)p->dgid);
	mad_set_array(rec, 0, IB_SA_PR_SGID_F, (void *)(uintptr_t)p->sgid);
	mad_set_field(rec, 0, IB_SA_PR_DLID_F, p->dlid);
	mad_set_field(rec, 0, IB_SA_PR_SLID_F, p->slid);
	put_hfr(rec + 44, p->raw, p->flow_label, p->hop_limit);
	rec[48] = p->tclass;
	rec[49] = p->reversible ? 0x80 : 0;
	mad_set_field(rec, 0, IB_SA_PR_NPATH_F, p->numb_path & 0x7F);
	put16(rec + 50, p->pkey);
	put16(rec + 52, (uint16_t)((p->qos_class & 0xFFF) << 4));
	mad_set_field(rec, 0, IB_SA_PR_SL_F, p->sl & 0xF);
	rec[54] = (uint8_t)((p->mtu_sel & 3) << 6 | (p->mtu & 0x3F));
	rec[55] = (uint8_t)((p->rate_sel & 3) << 6 | (p->rate & 0x3F));
	rec[56] = (uint8_t)((p->life_sel & 3) << 6 | (p->life & 0x3F));
	rec[57] = p->preference;
}

void
sa_mpath_decode(const uint8_t *rec, struct sa_mpath *m)
{
	void *r = (void *)(uintptr_t)rec;
	uint64_t sid = rec[13];
	unsigned i;

	memset(m, 0, sizeof(*m));
	get_hfr(rec, &m->raw, &m->flow_label, &m->hop_limit);
	m->tclass = rec[4];
	m->reversible = (rec[5] & 0x80) != 0;
	m->numb_path = (uint8_t)mad_get_field(r, 0, IB_SA_MP_NPATH_F);
	m->pkey = get16(rec + 6);
	m->qos_class = get16(rec + 8) >> 4;
	m->sl = rec[9] & 0xF;
	m->mtu_sel = rec[10] >> 6;
	m->mtu = rec[10] & 0x3F;
	m->rate_sel = rec[11] >> 6;
	m->rate = rec[11] & 0x3F;
	m->life_sel = rec[12] >> 6;
	m->life = rec[12] & 0x3F;
	m->independence = rec[14] >> 6;
	m->sgid_count = (uint8_t)mad_get_field(r, 0, IB_SA_MP_NSRC_F);
	m->dgid_count = (uint8_t)mad_get_field(r, 0, IB_SA_MP_NDEST_F);
	for (i = 17; i < 24; i++)
		sid = sid << 8 | rec[i];
	m->service_id = sid;
}

void
sa_mpath_encode(const struct sa_mpath *m, uint8_t *rec)
{
	unsigned i;

	memset(rec, 0, SA_MPATH_FIXED_SIZE);
	put_hfr(rec, m->raw, m->flow_label, m->hop_limit);
	rec[4] = m->tclass;
	rec[5] = (uint8_t)((m->reversible ? 0x80 : 0) | (m->numb_path & 0x7F));
	put16(rec + 6, m->pkey);
	put16(rec + 8, (uint16_t)((m->qos_class & 0xFFF) << 4 | (m->sl & 0xF)));
	rec[10] = (uint8_t)((m->mtu_sel & 3) << 6 | (m->mtu & 0x3F));
	rec[11] = (uint8_t)((m->rate_sel & 3) << 6 | (m->rate & 0x3F));
	rec[12] = (uint8_t)((m->life_sel & 3) << 6 | (m->life & 0x3F));
	rec[13] = (uint8_t)(m->service_id >> 56);
	rec[14] = (uint8_t)((m->independence & 3) << 6);
	rec[15] = m->sgid_count;
	rec[16] = m->dgid_count;
	for (i = 17; i < 24; i++)
		rec[i] = (uint8_t)(m->service_id >> (8 * (23 - i)));
}

void
sa_mpath_to_path(const struct sa_mpath *m, uint64_t mm, struct sa_path *p,
    uint64_t *pm)
{
	static const struct { uint64_t mpr, pr; } bits[] = {
		{ MPR_CM_RAW, PR_CM_RAW },
		{ MPR_CM_FLOW_LABEL, PR_CM_FLOW_LABEL },
		{ MPR_CM_HOP_LIMIT, PR_CM_HOP_LIMIT },
		{ MPR_CM_TCLASS, PR_CM_TCLASS },
		{ MPR_CM_REVERSIBLE, PR_CM_REVERSIBLE },
		{ MPR_CM_NUMB_PATH, PR_CM_NUMB_PATH },
		{ MPR_CM_PKEY, PR_CM_PKEY },
		{ MPR_CM_QOS_CLASS, PR_CM_QOS_CLASS },
		{ MPR_CM_SL, PR_CM_SL },
		{ MPR_CM_MTU_SEL, PR_CM_MTU_SEL }, { MPR_CM_MTU, PR_CM_MTU },
		{ MPR_CM_RATE_SEL, PR_CM_RATE_SEL },
		{ MPR_CM_RATE, PR_CM_RATE },
		{ MPR_CM_LIFE_SEL, PR_CM_LIFE_SEL },
		{ MPR_CM_LIFE, PR_CM_LIFE },
		{ MPR_CM_SERVICE_ID_MSB, PR_CM_SERVICE_ID_MSB },
		{ MPR_CM_SERVICE_ID_LSB, PR_CM_SERVICE_ID_LSB },
	};
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->service_id = m->service_id;
	p->raw = m->raw;
	p->flow_label = m->flow_label;
	p->hop_limit = m->hop_limit;
	p->tclass = m->tclass;
	p->reversible = m->reversible;
	p->numb_path = m->numb_path;
	p->pkey = m->pkey;
	p->qos_class = m->qos_class;
	p->sl = m->sl;
	p->mtu_sel = m->mtu_sel;
	p->mtu = m->mtu;
	p->rate_sel = m->rate_sel;
	p->rate = m->rate;
	p->life_sel = m->life_sel;
	p->life = m->life;
	*pm = 0;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (mm & bits[i].mpr)
			*pm |= bits[i].pr;
}

/* ------------------------------------------------------------ codes */

static const unsigned rate_mbps[] = {
	[2] = 2500, [3] = 10000, [4] = 30000, [5] = 5000, [6] = 20000,
	[7] = 40000, [8] = 60000, [9] = 80000, [10] = 120000, [11] = 14000,
	[12] = 56000, [13] = 112000, [14] = 168000, [15] = 25000,
	[16] = 100000, [17] = 200000, [18] = 300000, [19] = 28000,
	[20] = 50000, [21] = 400000, [22] = 600000, [23] = 800000,
	[24] = 1200000,
};
#define NRATES (sizeof(rate_mbps) / sizeof(rate_mbps[0]))

unsigned
sa_rate_mbps(unsigned code)
{
	return code < NRATES ? rate_mbps[code] : 0;
}

unsigned
sa_rate_code(unsigned mbps)
{
	unsigned best = 0, c;

	for (c = 0; c < NRATES; c++)
		if (rate_mbps[c] != 0 && rate_mbps[c] <= mbps &&
		    (best == 0 || rate_mbps[c] > rate_mbps[best]))
			best = c;
	return best;
}

unsigned
sa_rate_prev(unsigned code)
{
	unsigned m = sa_rate_mbps(code);

	return m == 0 ? 0 : sa_rate_code(m - 1);
}

bool
sa_mtu_valid(unsigned code)
{
	return code >= 1 && code <= 5;
}
