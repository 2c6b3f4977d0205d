/*
 * M_Key derivation and display (core/mkey.h). SipHash-2-4 written from
 * the algorithm's description (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012): four 64-bit words of state, two rounds per
 * message word, four at the end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/mkey.h"

static inline uint64_t
rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void
round_(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void
absorb(struct sip *s, uint64_t m, int rounds)
{
	int i;

	s->v3 ^= m;
	for (i = 0; i < rounds; i++)
		round_(s);
	s->v0 ^= m;
}

uint64_t
siphash24(const uint8_t k[16], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = le64(k), k1 = le64(k + 8), last;
	struct sip s = {
		.v0 = k0 ^ 0x736f6d6570736575ULL,
		.v1 = k1 ^ 0x646f72616e646f6dULL,
		.v2 = k0 ^ 0x6c7967656e657261ULL,
		.v3 = k1 ^ 0x7465646279746573ULL,
	};
	uint8_t tail[8] = { 0 };
	size_t n = len;
	int i;

	for (; n >= 8; n -= 8, p += 8)
		absorb(&s, le64(p), 2);
	memcpy(tail, p, n);
	last = le64(tail) | (uint64_t)(len & 0xff) << 56;
	absorb(&s, last, 2);
	s.v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		round_(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t
mkey_derive(uint64_t secret, uint64_t port_guid)
{
	/* The 128-bit PRF key: the secret, and the secret under a fixed
	 * label (a domain of our own, so that the same secret used for
	 * anything else gives other values). The message: the label and
	 * the port GUID, big-endian as on the wire. */
	static const char label[] = "ibsmd M_Key v1";
	uint8_t k[16], m[sizeof(label) - 1 + 8];
	uint64_t key;
	int i;

	for (i = 0; i < 8; i++) {
		k[i] = (uint8_t)(secret >> (8 * i));
		k[8 + i] = (uint8_t)((secret ^ 0x6962736d644d4b31ULL) >>
		    (8 * i));
	}
	memcpy(m, label, sizeof(label) - 1);
	for (i = 0; i < 8; i++)
		m[sizeof(label) - 1 + i] = (uint8_t)(port_guid >> (56 - 8 * i));
	key = siphash24(k, m, sizeof(m));
	return key != 0 ? key : 1;
}

const char *
key_text(uint64_t key, char buf[KEY_TEXT_LEN])
{
	if (key == 0)
		snprintf(buf, KEY_TEXT_LEN, "none");
	else
		snprintf(buf, KEY_TEXT_LEN, "0x...%04" PRIx64, key & 0xffff);
	return buf;
}

/* ---------------------------------------------------------------- */

uint32_t
mkey_managed(const struct fabric *f, uint32_t p)
{
	const struct fabric_node *n;

	if (p == FABRIC_NONE || p >= f->nports)
		return FABRIC_NONE;
	n = &f->nodes[f->ports[p].node];
	return n->type == NODE_SWITCH ? n->port0 : p;
}

uint64_t
mkey_managed_guid(const struct fabric *f, uint32_t mp)
{
	const struct fabric_node *n;
	uint64_t g;

	if (mp == FABRIC_NONE || mp >= f->nports)
		return 0;
	n = &f->nodes[f->ports[mp].node];
	if (n->type != NODE_SWITCH)
		return f->ports[mp].guid;
	g = mad_get_field64((void *)n->node_info, 0, IB_NODE_PORT_GUID_F);
	return g != 0 ? g : n->guid;
}

uint64_t
mkey_desired(const struct mkey_cfg *c, const struct fabric *f, uint32_t mp)
{
	uint64_t g;

	if (c->key == 0 || !c->per_port)
		return c->key;
	g = mkey_managed_guid(f, mp);
	return g != 0 ? mkey_derive(c->key, g) : 0;
}

uint32_t
mkey_port_by_path(const struct fabric *f, const struct dr_path *path)
{
	uint32_t p = f->sm_port, node;
	unsigned i;

	if (p == FABRIC_NONE || p >= f->nports)
		return FABRIC_NONE;
	node = f->ports[p].node;
	for (i = 1; i <= path->hops; i++) {
		uint8_t num = path->port[i];

		if (num > f->nodes[node].nports)
			return FABRIC_NONE;
		p = f->ports[fabric_port_idx(f, node, num)].peer;
		if (p == FABRIC_NONE)
			return FABRIC_NONE;
		node = f->ports[p].node;
	}
	return p;
}

static uint64_t
shown(const struct fabric_port *port)
{
	return port->info_valid ? mad_get_field64((void *)port->info, 0,
	    IB_PORT_MKEY_F) : 0;
}

uint64_t
mkey_present(const struct mkey_cfg *c, const struct fabric *f, uint32_t mp)
{
	const struct fabric_port *port;
	uint64_t k;

	if (mp == FABRIC_NONE || mp >= f->nports)
		return 0;
	port = &f->ports[mp];
	k = shown(port);
	if (k != 0 && (!port->mkey_foreign || c->takeover))
		return k;
	return mkey_desired(c, f, mp);
}

enum mkey_seen
mkey_classify(const struct mkey_cfg *c, const struct fabric *f, uint32_t mp,
    const uint8_t *pi, uint64_t sent)
{
	uint64_t k = mad_get_field64((void *)pi, 0, IB_PORT_MKEY_F);
	unsigned bits = (unsigned)mad_get_field((void *)pi, 0,
	    IB_PORT_MKEY_PROT_BITS_F);
	uint64_t want = mkey_desired(c, f, mp);

	if (k == 0)
		/* none, or hidden from a wrong key (protection 1 and up:
		 * with the right one the key shows); protection without a
		 * key is taken for a key we do not know, as OpenSM does
		 * ("unknown M_Key"): ibsmd never writes it */
		return bits >= 1 ? MKEY_HIDDEN : MKEY_OURS;
	if (k == want || k == sent)
		return MKEY_OURS;
	return MKEY_OTHER;
}

uint64_t
mkey_presented(const struct mkey_cfg *c, const struct fabric *fresh,
    const struct fabric *cur, uint32_t mp)
{
	if (mp == FABRIC_NONE || mp >= fresh->nports)
		return 0;
	if (fresh->ports[mp].info_valid)
		return mkey_present(c, fresh, mp);
	return mkey_before_read(c, fresh, cur, mp);
}

uint64_t
mkey_before_read(const struct mkey_cfg *c, const struct fabric *fresh,
    const struct fabric *cur, uint32_t mp)
{
	const struct fabric_port *port;
	uint32_t n;

	if (mp == FABRIC_NONE || mp >= fresh->nports)
		return 0;
	port = &fresh->ports[mp];
	if (cur == NULL)
		return mkey_desired(c, fresh, mp);
	n = fabric_node_by_guid(cur, fresh->nodes[port->node].guid);
	if (n == FABRIC_NONE || port->num > cur->nodes[n].nports)
		return mkey_desired(c, fresh, mp);
	return mkey_present(c, cur, fabric_port_idx(cur, n, port->num));
}

static uint64_t
be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

int
mkey_trap_decode(const uint8_t *m, struct mkey_trap *t)
{
	memset(t, 0, sizeof(*t));
	if (!(m[0] & 0x80) || be(m + 4, 2) != MKEY_TRAP_BAD_MKEY)
		return -1;
	t->issuer = (uint16_t)be(m + 6, 2);
	t->lid = (uint16_t)be(m + 12, 2);
	t->dr_slid = (uint16_t)be(m + 14, 2);
	t->method = m[16];
	t->attr = (uint16_t)be(m + 18, 2);
	t->mod = (uint32_t)be(m + 20, 4);
	t->mkey = be(m + 24, 8);
	t->dr = (m[33] & 0x80) != 0;
	t->truncated = (m[33] & 0x40) != 0;
	t->hops = m[33] & 0x3f;
	return 0;
}
