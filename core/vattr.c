#include "core/vattr.h"

#include <string.h>

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

void
vattr_virt_info_decode(const uint8_t d[64], struct vattr_virt_info *v)
{
	v->vport_cap = get16(d);
	v->index_top = get16(d + 2);
	v->flags = d[4] & 0xe0;
	v->revision = d[6];
	v->capmask = d[7];
}

void
vattr_virt_info_encode(const struct vattr_virt_info *v, uint8_t d[64])
{
	memset(d, 0, 64);
	put16(d, v->vport_cap);
	put16(d + 2, v->index_top);
	d[4] = v->flags & 0xe0;
	d[6] = v->revision;
	d[7] = v->capmask;
}

void
vattr_vport_info_decode(const uint8_t d[64], struct vattr_vport_info *v)
{
	v->state = d[0] >> 4;
	v->flags = d[0] & 0x0c;
	v->vguid_cap = d[1];
	v->capmask = get16(d + 2);
	v->pkey_violations = get16(d + 4);
	v->qkey_violations = get16(d + 6);
	v->lid = get16(d + 8);
	v->lid_by_index = get16(d + 10);
	v->guid = get64(d + 12);
	v->profile = get64(d + 20);
}

void
vattr_vport_info_encode(const struct vattr_vport_info *v, uint8_t d[64])
{
	memset(d, 0, 64);
	d[0] = (uint8_t)((v->state & 0x0f) << 4 | (v->flags & 0x0c));
	d[1] = v->vguid_cap;
	put16(d + 2, v->capmask);
	put16(d + 4, v->pkey_violations);
	put16(d + 6, v->qkey_violations);
	put16(d + 8, v->lid);
	put16(d + 10, v->lid_by_index);
	put64(d + 12, v->guid);
	put64(d + 20, v->profile);
}

void
vattr_vnode_info_decode(const uint8_t d[64], struct vattr_vnode_info *v)
{
	v->partition_cap = get16(d);
	v->local_port = d[2];
	v->num_ports = d[3];
	v->guid = get64(d + 4);
}

unsigned
vattr_vport_state(const uint8_t d[64], unsigned k)
{
	uint8_t b = d[(k % VATTR_STATES_PER_BLOCK) / 2];

	return k % 2 == 0 ? b >> 4 : b & 0x0f;
}

void
vattr_vport_state_put(uint8_t d[64], unsigned k, unsigned state)
{
	uint8_t *b = &d[(k % VATTR_STATES_PER_BLOCK) / 2];

	if (k % 2 == 0)
		*b = (uint8_t)((*b & 0x0f) | (state & 0x0f) << 4);
	else
		*b = (uint8_t)((*b & 0xf0) | (state & 0x0f));
}

void
vattr_guids_decode(const uint8_t d[64], uint64_t g[8])
{
	for (int i = 0; i < 8; i++)
		g[i] = get64(d + 8 * i);
}

void
vattr_pkeys_decode(const uint8_t d[64], uint16_t k[32])
{
	for (int i = 0; i < 32; i++)
		k[i] = get16(d + 2 * i);
}

void
vattr_pkeys_encode(const uint16_t k[32], uint8_t d[64])
{
	for (int i = 0; i < 32; i++)
		put16(d + 2 * i, k[i]);
}

uint32_t
vattr_mod_vport(unsigned vport)
{
	return vport;
}

uint32_t
vattr_mod_state_block(unsigned block)
{
	return block;
}

uint32_t
vattr_mod_vport_block(unsigned vport, unsigned block)
{
	return (uint32_t)vport << 16 | (block & 0xffff);
}
