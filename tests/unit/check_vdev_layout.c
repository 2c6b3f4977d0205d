/*
 * The byte layouts of the simulated vport attributes and traps
 * (tests/fixture/vdev_layout.h), against hand-written bytes from
 * VIRTUALIZATION.md (The attributes), and the (UNCONFIRMED) modifier encodings.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture/vdev_layout.h"

START_TEST(test_virt_info)
{
	struct vl_virt_info vi = { .vport_cap = 0x0104, .vport_index_top = 3,
	    .flags = VL_VI_ENABLE | VL_VI_STATE_CHANGE, .revision = 0,
	    .capmask = 0x5a }, back;
	uint8_t d[64], want[64] = { 0x01, 0x04, 0x00, 0x03, 0xa0, 0, 0, 0x5a };

	vl_virt_info_encode(&vi, d);
	ck_assert_mem_eq(d, want, 64);
	vl_virt_info_decode(d, &back);
	ck_assert_uint_eq(back.vport_cap, 0x104);
	ck_assert_uint_eq(back.vport_index_top, 3);
	ck_assert_uint_eq(back.flags, VL_VI_ENABLE | VL_VI_STATE_CHANGE);
	ck_assert_uint_eq(back.capmask, 0x5a);
	d[4] = 0x40;
	vl_virt_info_decode(d, &back);
	ck_assert_uint_eq(back.flags, VL_VI_CLIENT_REREG);
}
END_TEST

START_TEST(test_vport_info)
{
	static const struct vl_vport_info vp = { .state = VL_VS_ACTIVE,
	    .flags = VL_VP_LID_REQUIRED | VL_VP_CLIENT_REREG, .vguid_cap = 2,
	    .capmask = 0x1234, .pkey_violations = 5, .qkey_violations = 6,
	    .lid = 0x0c01, .lid_by_vport_index = 7,
	    .guid = 0x0002c90300a1b2c3ULL, .profile = 0x1122334455667788ULL };
	struct vl_vport_info back;
	uint8_t d[64], want[64] = {
		0x4c, 0x02, 0x12, 0x34, 0x00, 0x05, 0x00, 0x06,
		0x0c, 0x01, 0x00, 0x07,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

	vl_vport_info_encode(&vp, d);
	ck_assert_mem_eq(d, want, 64);
	vl_vport_info_decode(d, &back);
	ck_assert_mem_eq(&back, &vp, sizeof(vp));
	d[0] = 0x24;    /* INIT, LIDRequired */
	vl_vport_info_decode(d, &back);
	ck_assert_uint_eq(back.state, VL_VS_INIT);
	ck_assert_uint_eq(back.flags, VL_VP_LID_REQUIRED);
}
END_TEST

START_TEST(test_vnode_info)
{
	static const struct vl_vnode_info vn = { .partition_cap = 64,
	    .local_port = 1, .num_ports = 1, .guid = 0x0102030405060708ULL };
	struct vl_vnode_info back;
	uint8_t d[64], want[64] = { 0x00, 0x40, 0x01, 0x01,
		1, 2, 3, 4, 5, 6, 7, 8 };

	vl_vnode_info_encode(&vn, d);
	ck_assert_mem_eq(d, want, 64);
	vl_vnode_info_decode(d, &back);
	ck_assert_mem_eq(&back, &vn, sizeof(vn));
}
END_TEST

START_TEST(test_vport_state)
{
	uint8_t d[64];

	memset(d, 0, sizeof(d));
	vl_vport_state_set(d, 0, VL_VS_ACTIVE);
	vl_vport_state_set(d, 1, VL_VS_DOWN);
	vl_vport_state_set(d, 2, VL_VS_INIT);
	vl_vport_state_set(d, 127, VL_VS_ARMED);
	ck_assert_uint_eq(d[0], 0x41);
	ck_assert_uint_eq(d[1], 0x20);
	ck_assert_uint_eq(d[63], 0x03);
	ck_assert_uint_eq(vl_vport_state_get(d, 0), VL_VS_ACTIVE);
	ck_assert_uint_eq(vl_vport_state_get(d, 1), VL_VS_DOWN);
	ck_assert_uint_eq(vl_vport_state_get(d, 127), VL_VS_ARMED);
	/* entries of block b are indexed k mod 128 */
	ck_assert_uint_eq(vl_vport_state_get(d, 128 + 2), VL_VS_INIT);
	vl_vport_state_set(d, 0, VL_VS_DOWN);
	ck_assert_uint_eq(d[0], 0x11);
}
END_TEST

START_TEST(test_tables)
{
	uint64_t g[8] = { 0x0102030405060708ULL, 0, 0, 0, 0, 0, 0,
	    0xf0e0d0c0b0a09080ULL }, gb[8];
	uint16_t k[32] = { 0xffff, 0x8001, 0x7fff }, kb[32];
	uint8_t d[64];

	vl_guids_encode(g, d);
	ck_assert_uint_eq(d[0], 0x01);
	ck_assert_uint_eq(d[7], 0x08);
	ck_assert_uint_eq(d[56], 0xf0);
	ck_assert_uint_eq(d[63], 0x80);
	vl_guids_decode(d, gb);
	ck_assert_mem_eq(g, gb, sizeof(g));
	vl_pkeys_encode(k, d);
	ck_assert_uint_eq(d[0], 0xff);
	ck_assert_uint_eq(d[2], 0x80);
	ck_assert_uint_eq(d[3], 0x01);
	ck_assert_uint_eq(d[4], 0x7f);
	vl_pkeys_decode(d, kb);
	ck_assert_mem_eq(k, kb, sizeof(k));
}
END_TEST

START_TEST(test_modifiers)
{
	unsigned v, b;

	ck_assert_uint_eq(vl_mod_vport(5), 5);
	ck_assert_uint_eq(vl_mod_vport_block(3, 1), 0x00030001);
	vl_mod_vport_block_split(0x00070002, &v, &b);
	ck_assert_uint_eq(v, 7);
	ck_assert_uint_eq(b, 2);
}
END_TEST

START_TEST(test_trap)
{
	static const struct vl_trap t = { .number = VL_TRAP_VPORT_CHANGE,
	    .issuer_lid = 9, .lid = 9, .vport = 3 };
	struct vl_trap back;
	uint8_t d[64], want[64] = { 0x04, 0x00, 0x02, 0xc9, 0x04, 0x78,
		0x00, 0x09, 0, 0, 0x00, 0x09, 0x00, 0x03 };

	vl_trap_encode(&t, d);
	ck_assert_mem_eq(d, want, 64);
	ck_assert_int_eq(vl_trap_decode(d, &back), 0);
	ck_assert_mem_eq(&back, &t, sizeof(t));
	d[0] |= 0x80;   /* generic: not ours */
	ck_assert_int_eq(vl_trap_decode(d, &back), -1);
	d[0] = 0x04;
	d[3] = 0x00;    /* another vendor */
	ck_assert_int_eq(vl_trap_decode(d, &back), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vdev_layout");
	TCase *tc = tcase_create("layout");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_virt_info);
	tcase_add_test(tc, test_vport_info);
	tcase_add_test(tc, test_vnode_info);
	tcase_add_test(tc, test_vport_state);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_modifiers);
	tcase_add_test(tc, test_trap);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
