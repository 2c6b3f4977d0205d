/*
 * core/mkey: SipHash-2-4 gives its authors' test vectors; per-port keys
 * are the same for the same secret and GUID (a standby, a restart), differ
 * between ports and secrets, and are not related by XOR (knowing some
 * ports' keys gives no other's); keys are shown masked.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/mkey.h"

START_TEST(siphash_vectors)
{
	uint8_t k[16], m[64];
	unsigned i;

	for (i = 0; i < 16; i++)
		k[i] = (uint8_t)i;
	for (i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)i;
	/* the reference implementation's vectors.h: key 00..0f, message
	 * 00..len-1 */
	ck_assert_uint_eq(siphash24(k, m, 0), 0x726fdb47dd0e0e31ULL);
	ck_assert_uint_eq(siphash24(k, m, 1), 0x74f839c593dc67fdULL);
	ck_assert_uint_eq(siphash24(k, m, 15), 0xa129ca6149be45e5ULL);
}
END_TEST

START_TEST(same_config_same_keys)
{
	uint64_t s = 0x0123456789abcdefULL, g = 0x0002c90300001234ULL;

	ck_assert_uint_eq(mkey_derive(s, g), mkey_derive(s, g));
	ck_assert_uint_ne(mkey_derive(s, g), 0);
	ck_assert_uint_ne(mkey_derive(s, g), s);
	ck_assert_uint_ne(mkey_derive(s, g), mkey_derive(s, g + 1));
	ck_assert_uint_ne(mkey_derive(s, g), mkey_derive(s + 1, g));
	/* one key for the subnet without per_port; 0 stays none */
	ck_assert_uint_eq(mkey_for_port(s, 0, g), s);
	ck_assert_uint_eq(mkey_for_port(s, 1, g), mkey_derive(s, g));
	ck_assert_uint_eq(mkey_for_port(0, 1, g), 0);
}
END_TEST

/* Keys of related GUIDs are unrelated: for GUIDs a^b == c^d the keys do
 * not share that XOR, no key is its GUID under a fixed mask, and flipping
 * one GUID bit flips about half of the key's bits. */
START_TEST(no_xor_relation)
{
	uint64_t s = 0xfeedfacecafebeefULL, base = 0x0008f10400411000ULL;
	uint64_t k[64], mask0;
	unsigned i, same_mask = 0, flips = 0;

	for (i = 0; i < 64; i++)
		k[i] = mkey_derive(s, base + i);
	/* (base+1)^(base+2) == (base+5)^(base+6) == 3 */
	ck_assert_uint_eq((base + 1) ^ (base + 2), (base + 5) ^ (base + 6));
	ck_assert_uint_ne(k[1] ^ k[2], k[5] ^ k[6]);
	mask0 = k[0] ^ base;
	for (i = 1; i < 64; i++) {
		if ((k[i] ^ (base + i)) == mask0)
			same_mask++;
		ck_assert_uint_ne(k[i], k[0]);
	}
	ck_assert_uint_eq(same_mask, 0);
	for (i = 0; i < 64; i++)
		flips += (unsigned)__builtin_popcountll(mkey_derive(s, base) ^
		    mkey_derive(s, base ^ (1ULL << i)));
	/* 64 flips of 64 bits: about 2048 bits change (a PRF) */
	ck_assert_uint_gt(flips, 1700);
	ck_assert_uint_lt(flips, 2400);
}
END_TEST

START_TEST(keys_shown_masked)
{
	char b[KEY_TEXT_LEN];

	ck_assert_str_eq(key_text(0, b), "none");
	ck_assert_str_eq(key_text(0x0123456789abcdefULL, b), "0x...cdef");
	ck_assert_ptr_null(strstr(key_text(0x0123456789abcdefULL, b),
	    "89ab"));
}
END_TEST

/* Trap 256's bytes as OpenSM's ib_types.h lays out ntc_256 (the Notice's
 * data details at byte 10: pad 2, LIDADDR 2, DRSLID 2, Method 1, pad 1,
 * AttributeID 2, AttributeModifier 4, M_Key 8, pad 1, DR bits and hop
 * count 1, return path 30), the generic fields where libibmad puts them. */
START_TEST(bad_mkey_trap_bytes)
{
	uint8_t n[80] = { 0 };
	struct mkey_trap t;

	mad_set_field(n, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(n, 0, IB_NOTICE_TYPE_F, 2);
	mad_set_field(n, 0, IB_NOTICE_PRODUCER_F, 2);
	mad_set_field(n, 0, IB_NOTICE_TRAP_NUMBER_F, 256);
	mad_set_field(n, 0, IB_NOTICE_ISSUER_LID_F, 0x0011);
	/* libibmad's data-details LID (trap 128's, byte 10) is not
	 * ntc_256's LIDADDR, which follows 2 bytes of padding */
	mad_set_field(n, 0, IB_NOTICE_DATA_LID_F, 0x7777);
	n[12] = 0x02; n[13] = 0x03;             /* LIDADDR */
	n[14] = 0xff; n[15] = 0xff;             /* DRSLID */
	n[16] = 0x02;                           /* SubnSet */
	n[18] = 0x00; n[19] = 0x19;             /* LinearForwardingTable */
	n[20] = 0; n[21] = 0; n[22] = 0; n[23] = 0x05;
	n[24] = 0xde; n[25] = 0xad; n[26] = 0xbe; n[27] = 0xef;
	n[28] = 0x01; n[29] = 0x02; n[30] = 0x03; n[31] = 0x04;
	n[33] = 0x80 | 3;                       /* DR notice, 3 hops */
	ck_assert_int_eq(mkey_trap_decode(n, &t), 0);
	ck_assert_uint_eq(t.issuer, 0x11);
	ck_assert_uint_eq(t.lid, 0x0203);
	ck_assert_uint_eq(t.dr_slid, 0xffff);
	ck_assert_uint_eq(t.method, 2);
	ck_assert_uint_eq(t.attr, 0x19);
	ck_assert_uint_eq(t.mod, 5);
	ck_assert_uint_eq(t.mkey, 0xdeadbeef01020304ULL);
	ck_assert(t.dr);
	ck_assert(!t.truncated);
	ck_assert_uint_eq(t.hops, 3);
	/* another trap, or a vendor notice, is not one */
	mad_set_field(n, 0, IB_NOTICE_TRAP_NUMBER_F, 128);
	ck_assert_int_eq(mkey_trap_decode(n, &t), -1);
	mad_set_field(n, 0, IB_NOTICE_TRAP_NUMBER_F, 256);
	mad_set_field(n, 0, IB_NOTICE_IS_GENERIC_F, 0);
	ck_assert_int_eq(mkey_trap_decode(n, &t), -1);
}
END_TEST

/* A CA a (the SM's port) - switch s port 1; s port 3 - CA b. */
struct mini {
	struct fabric f;
	uint32_t a, s, b;       /* node indices */
};

static void
mini_build(struct mini *m)
{
	struct dr_path p0 = { .hops = 0 }, p1 = { .hops = 1, .port = { 0, 1 } },
	    p2 = { .hops = 2, .port = { 0, 1, 3 } };
	uint32_t pa, pb;

	fabric_init(&m->f);
	m->a = fabric_add_node(&m->f, NODE_CA, 1, 0xa0, &p0);
	pa = fabric_port_idx(&m->f, m->a, 1);
	m->f.ports[pa].guid = 0xa1;
	m->f.ports[pa].present = 1;
	m->f.sm_port = pa;
	m->s = fabric_add_node(&m->f, NODE_SWITCH, 4, 0x50, &p1);
	mad_set_field64(m->f.nodes[m->s].node_info, 0, IB_NODE_PORT_GUID_F,
	    0x50);
	fabric_link(&m->f, pa, fabric_port_idx(&m->f, m->s, 1));
	m->b = fabric_add_node(&m->f, NODE_CA, 1, 0xb0, &p2);
	pb = fabric_port_idx(&m->f, m->b, 1);
	m->f.ports[pb].guid = 0xb1;
	m->f.ports[pb].present = 1;
	fabric_link(&m->f, fabric_port_idx(&m->f, m->s, 3), pb);
}

static void
show_key(struct fabric_port *port, uint64_t key, unsigned bits)
{
	port->info_valid = 1;
	mad_set_field64(port->info, 0, IB_PORT_MKEY_F, key);
	mad_set_field(port->info, 0, IB_PORT_MKEY_PROT_BITS_F, bits);
}

/* Which port a directed route reaches, and which port holds its key. */
START_TEST(paths_and_managed_ports)
{
	struct mini m;
	struct dr_path to_s = { .hops = 1, .port = { 0, 1 } },
	    to_b = { .hops = 2, .port = { 0, 1, 3 } },
	    nowhere = { .hops = 2, .port = { 0, 1, 2 } },
	    self = { .hops = 0 };
	uint32_t pb;

	mini_build(&m);
	pb = fabric_port_idx(&m.f, m.b, 1);
	ck_assert_uint_eq(mkey_port_by_path(&m.f, &self), m.f.sm_port);
	/* arriving at the switch's port 1: its key is port 0's */
	ck_assert_uint_eq(mkey_port_by_path(&m.f, &to_s),
	    fabric_port_idx(&m.f, m.s, 1));
	ck_assert_uint_eq(mkey_managed(&m.f, mkey_port_by_path(&m.f, &to_s)),
	    m.f.nodes[m.s].port0);
	ck_assert_uint_eq(mkey_port_by_path(&m.f, &to_b), pb);
	ck_assert_uint_eq(mkey_managed(&m.f, pb), pb);
	ck_assert_uint_eq(mkey_port_by_path(&m.f, &nowhere), FABRIC_NONE);
	ck_assert_uint_eq(mkey_managed_guid(&m.f, m.f.nodes[m.s].port0), 0x50);
	ck_assert_uint_eq(mkey_managed_guid(&m.f, pb), 0xb1);
	fabric_fini(&m.f);
}
END_TEST

/* What is presented: the key a port was seen holding, else ours; what a
 * PortInfo read says of a port's key. */
START_TEST(presented_and_classified)
{
	struct mini m, cur;
	struct mkey_cfg c = { .key = 0x1234, .per_port = 1 };
	uint32_t pb, cb;
	uint64_t want;

	mini_build(&m);
	mini_build(&cur);
	pb = fabric_port_idx(&m.f, m.b, 1);
	cb = fabric_port_idx(&cur.f, cur.b, 1);
	want = mkey_derive(0x1234, 0xb1);
	ck_assert_uint_eq(mkey_desired(&c, &m.f, pb), want);
	/* nothing read anywhere: ours */
	ck_assert_uint_eq(mkey_presented(&c, &m.f, NULL, pb), want);
	/* the model in use saw it hold another key (ours of an older
	 * secret): that one, until fresh reads it */
	show_key(&cur.f.ports[cb], 0x7777, 1);
	ck_assert_uint_eq(mkey_presented(&c, &m.f, &cur.f, pb), 0x7777);
	/* ... unless that port was another SM's */
	cur.f.ports[cb].mkey_foreign = MKEY_OTHER;
	ck_assert_uint_eq(mkey_presented(&c, &m.f, &cur.f, pb), want);
	c.takeover = 1;
	ck_assert_uint_eq(mkey_presented(&c, &m.f, &cur.f, pb), 0x7777);
	c.takeover = 0;
	/* fresh has read it: fresh's word */
	show_key(&m.f.ports[pb], want, 1);
	ck_assert_uint_eq(mkey_presented(&c, &m.f, &cur.f, pb), want);

	/* classify: ours; hidden at level 1 from a wrong key; another key
	 * readable at level 0; ours of before (the key presented) */
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, want),
	    MKEY_OURS);
	show_key(&m.f.ports[pb], 0, 1);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, want),
	    MKEY_HIDDEN);
	show_key(&m.f.ports[pb], 0, 0);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, want),
	    MKEY_OURS);
	show_key(&m.f.ports[pb], 0x9999, 0);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, want),
	    MKEY_OTHER);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info,
	    0x9999), MKEY_OURS);
	/* no key configured: a protected port shows a key we do not know
	 * (OpenSM's "unknown M_Key"), a readable one another key */
	c.key = 0;
	show_key(&m.f.ports[pb], 0, 2);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, 0),
	    MKEY_HIDDEN);
	show_key(&m.f.ports[pb], 0x5555, 0);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, 0),
	    MKEY_OTHER);
	show_key(&m.f.ports[pb], 0, 0);
	ck_assert_int_eq(mkey_classify(&c, &m.f, pb, m.f.ports[pb].info, 0),
	    MKEY_OURS);
	fabric_fini(&m.f);
	fabric_fini(&cur.f);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mkey");
	TCase *tc = tcase_create("mkey");

	tcase_add_test(tc, siphash_vectors);
	tcase_add_test(tc, same_config_same_keys);
	tcase_add_test(tc, no_xor_relation);
	tcase_add_test(tc, keys_shown_masked);
	tcase_add_test(tc, bad_mkey_trap_bytes);
	tcase_add_test(tc, paths_and_managed_ports);
	tcase_add_test(tc, presented_and_classified);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
