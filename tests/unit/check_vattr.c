/*
 * core/vattr: the vport attribute codecs against the byte layouts of the
 * design note (VIRTUALIZATION.md, The attributes), written out here by hand.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "core/vattr.h"

START_TEST(test_virt_info)
{
	uint8_t d[64] = { 0 }, e[64];
	struct vattr_virt_info v;

	d[0] = 0x00; d[1] = 0x10;       /* VPortCap 16 */
	d[2] = 0x00; d[3] = 0x04;       /* VPortIndexTop 4 */
	d[4] = 0x80 | 0x20 | 0x01;      /* enable, state change, reserved bit */
	d[6] = 0;                       /* revision */
	d[7] = 0x5a;
	vattr_virt_info_decode(d, &v);
	ck_assert_uint_eq(v.vport_cap, 16);
	ck_assert_uint_eq(v.index_top, 4);
	ck_assert_uint_eq(v.flags, VATTR_VI_ENABLE | VATTR_VI_STATE_CHANGE);
	ck_assert_uint_eq(v.revision, 0);
	ck_assert_uint_eq(v.capmask, 0x5a);
	vattr_virt_info_encode(&v, e);
	d[4] &= 0xe0;
	ck_assert_mem_eq(d, e, 64);
}
END_TEST

START_TEST(test_vport_info)
{
	uint8_t d[64] = { 0 }, e[64];
	struct vattr_vport_info v;

	d[0] = 0x30 | 0x04;             /* ARMED, LIDRequired */
	d[1] = 1;                       /* VGUIDCap */
	d[2] = 0x12; d[3] = 0x34;
	d[4] = 0; d[5] = 7;             /* P_KeyViolations */
	d[6] = 0; d[7] = 9;
	d[8] = 0x01; d[9] = 0x23;       /* VPortLID 0x123 */
	d[10] = 0; d[11] = 3;           /* LIDByVPortIndex */
	for (int i = 0; i < 8; i++) {
		d[12 + i] = (uint8_t)(0xa0 + i);        /* VPortGUID */
		d[20 + i] = (uint8_t)(0xb0 + i);        /* VPortProfile */
	}
	vattr_vport_info_decode(d, &v);
	ck_assert_uint_eq(v.state, 3);
	ck_assert_uint_eq(v.flags, VATTR_VP_LID_REQUIRED);
	ck_assert_uint_eq(v.vguid_cap, 1);
	ck_assert_uint_eq(v.capmask, 0x1234);
	ck_assert_uint_eq(v.pkey_violations, 7);
	ck_assert_uint_eq(v.qkey_violations, 9);
	ck_assert_uint_eq(v.lid, 0x123);
	ck_assert_uint_eq(v.lid_by_index, 3);
	ck_assert_uint_eq(v.guid, UINT64_C(0xa0a1a2a3a4a5a6a7));
	ck_assert_uint_eq(v.profile, UINT64_C(0xb0b1b2b3b4b5b6b7));
	vattr_vport_info_encode(&v, e);
	ck_assert_mem_eq(d, e, 64);
	/* state ACTIVE with client reregister */
	v.state = 4;
	v.flags = VATTR_VP_CLIENT_REREG;
	vattr_vport_info_encode(&v, e);
	ck_assert_uint_eq(e[0], 0x48);
}
END_TEST

START_TEST(test_vnode_info)
{
	uint8_t d[64] = { 0x00, 0x20, 1, 1, 0x11, 0x22, 0x33, 0x44, 0x55,
	    0x66, 0x77, 0x88 };
	struct vattr_vnode_info v;

	vattr_vnode_info_decode(d, &v);
	ck_assert_uint_eq(v.partition_cap, 32);
	ck_assert_uint_eq(v.local_port, 1);
	ck_assert_uint_eq(v.num_ports, 1);
	ck_assert_uint_eq(v.guid, UINT64_C(0x1122334455667788));
}
END_TEST

START_TEST(test_vport_state)
{
	uint8_t d[64] = { 0 };

	d[0] = 0x41;    /* vport 0 ACTIVE, vport 1 DOWN */
	d[1] = 0x23;    /* vport 2 INIT, vport 3 ARMED */
	d[63] = 0x04;   /* vport 127 ACTIVE */
	ck_assert_uint_eq(vattr_vport_state(d, 0), 4);
	ck_assert_uint_eq(vattr_vport_state(d, 1), 1);
	ck_assert_uint_eq(vattr_vport_state(d, 2), 2);
	ck_assert_uint_eq(vattr_vport_state(d, 3), 3);
	ck_assert_uint_eq(vattr_vport_state(d, 127), 4);
	ck_assert_uint_eq(vattr_vport_state(d, 128 + 3), 3);  /* in-block */
	vattr_vport_state_put(d, 1, 2);
	ck_assert_uint_eq(d[0], 0x42);
	vattr_vport_state_put(d, 126, 3);
	ck_assert_uint_eq(d[63], 0x34);
}
END_TEST

START_TEST(test_tables)
{
	uint8_t d[64], e[64];
	uint64_t g[8];
	uint16_t k[32];

	for (int i = 0; i < 64; i++)
		d[i] = (uint8_t)i;
	vattr_guids_decode(d, g);
	ck_assert_uint_eq(g[0], UINT64_C(0x0001020304050607));
	ck_assert_uint_eq(g[7], UINT64_C(0x38393a3b3c3d3e3f));
	vattr_pkeys_decode(d, k);
	ck_assert_uint_eq(k[0], 0x0001);
	ck_assert_uint_eq(k[31], 0x3e3f);
	vattr_pkeys_encode(k, e);
	ck_assert_mem_eq(d, e, 64);
}
END_TEST

START_TEST(test_modifiers)
{
	ck_assert_uint_eq(vattr_mod_vport(5), 5);
	ck_assert_uint_eq(vattr_mod_state_block(1), 1);
	ck_assert_uint_eq(vattr_mod_vport_block(3, 2), 0x00030002);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vattr");
	TCase *tc = tcase_create("codecs");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_virt_info);
	tcase_add_test(tc, test_vport_info);
	tcase_add_test(tc, test_vnode_info);
	tcase_add_test(tc, test_vport_state);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_modifiers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
