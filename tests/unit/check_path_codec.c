/*
 * sa/path: the PathRecord and MultiPathRecord codec against byte layouts
 * written from the specification, and the rate and MTU codes (the
 * handlers on an in-memory fabric: check_path.c).
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sa/pathrec.h"

/* ------------------------------------------------------------ codec */

/* A PathRecord written byte by byte from IBA 15.2.5.16 / ib_path_rec_t. */
static const uint8_t REC[64] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,         /* ServiceID */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,                           /* DGID */
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x11,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,                           /* SGID */
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x22,
	0x12, 0x34,                                             /* DLID */
	0x00, 0x56,                                             /* SLID */
	0x81, 0x23, 0x45, 0x07,         /* Raw 1, FlowLabel 0x12345, Hop 7 */
	0x9a,                                                   /* TClass */
	0x85,                           /* Reversible, NumbPath 5 */
	0x80, 0x10,                                             /* P_Key */
	0xabc >> 4, (0xabc & 0xf) << 4 | 0x9,   /* QoSClass 0xabc, SL 9 */
	0x84,                           /* MTUSelector 2, MTU 4 */
	0x47,                           /* RateSelector 1, Rate 7 */
	0xd2,                           /* LifeSelector 3, Life 18 */
	0x02,                                                   /* Preference */
	0, 0, 0, 0, 0, 0,
};

START_TEST(codec_layout)
{
	struct sa_path p;
	uint8_t back[64];

	sa_path_decode(REC, &p);
	ck_assert_uint_eq(p.service_id, 0x0102030405060708ULL);
	ck_assert_uint_eq(p.dgid[0], 0xfe);
	ck_assert_uint_eq(p.dgid[15], 0x11);
	ck_assert_uint_eq(p.sgid[15], 0x22);
	ck_assert_uint_eq(p.dlid, 0x1234);
	ck_assert_uint_eq(p.slid, 0x56);
	ck_assert(p.raw);
	ck_assert_uint_eq(p.flow_label, 0x12345);
	ck_assert_uint_eq(p.hop_limit, 7);
	ck_assert_uint_eq(p.tclass, 0x9a);
	ck_assert(p.reversible);
	ck_assert_uint_eq(p.numb_path, 5);
	ck_assert_uint_eq(p.pkey, 0x8010);
	ck_assert_uint_eq(p.qos_class, 0xabc);
	ck_assert_uint_eq(p.sl, 9);
	ck_assert_uint_eq(p.mtu_sel, 2);
	ck_assert_uint_eq(p.mtu, 4);
	ck_assert_uint_eq(p.rate_sel, 1);
	ck_assert_uint_eq(p.rate, 7);
	ck_assert_uint_eq(p.life_sel, 3);
	ck_assert_uint_eq(p.life, 18);
	ck_assert_uint_eq(p.preference, 2);
	memset(back, 0xEE, sizeof(back));
	sa_path_encode(&p, back);
	ck_assert_mem_eq(back, REC, 64);
}
END_TEST

/* A MultiPathRecord's fixed part, IBA 15.2.5.20 / ib_multipath_rec_t. */
static const uint8_t MREC[24] = {
	0x00, 0x12, 0x34, 0x05,         /* FlowLabel 0x1234, HopLimit 5 */
	0x11,                           /* TClass */
	0x83,                           /* Reversible, NumbPath 3 */
	0xff, 0xff,                     /* P_Key */
	0x00, 0x14,                     /* QoSClass 1, SL 4 */
	0x85, 0x87, 0x92,               /* MTU, Rate, Life */
	0xaa,                           /* ServiceID8MSB */
	0x40,                           /* IndependenceSelector 1 */
	2, 3,                           /* SGIDCount, DGIDCount */
	0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x02,       /* ServiceID56LSB */
};

START_TEST(codec_multipath)
{
	struct sa_mpath m;
	struct sa_path p;
	uint8_t back[24];
	uint64_t pm;

	sa_mpath_decode(MREC, &m);
	ck_assert_uint_eq(m.flow_label, 0x1234);
	ck_assert_uint_eq(m.hop_limit, 5);
	ck_assert_uint_eq(m.tclass, 0x11);
	ck_assert(m.reversible);
	ck_assert_uint_eq(m.numb_path, 3);
	ck_assert_uint_eq(m.pkey, 0xffff);
	ck_assert_uint_eq(m.qos_class, 1);
	ck_assert_uint_eq(m.sl, 4);
	ck_assert_uint_eq(m.mtu_sel, 2);
	ck_assert_uint_eq(m.mtu, 5);
	ck_assert_uint_eq(m.rate, 7);
	ck_assert_uint_eq(m.life, 18);
	ck_assert_uint_eq(m.independence, 1);
	ck_assert_uint_eq(m.sgid_count, 2);
	ck_assert_uint_eq(m.dgid_count, 3);
	ck_assert_uint_eq(m.service_id, 0xaabbccddeeff0102ULL);
	sa_mpath_encode(&m, back);
	ck_assert_mem_eq(back, MREC, 24);
	sa_mpath_to_path(&m, MPR_CM_MTU_SEL | MPR_CM_MTU | MPR_CM_SL |
	    MPR_CM_SGID_COUNT | MPR_CM_SERVICE_ID, &p, &pm);
	ck_assert_uint_eq(pm, PR_CM_MTU_SEL | PR_CM_MTU | PR_CM_SL |
	    PR_CM_SERVICE_ID);
	ck_assert_uint_eq(p.mtu, 5);
	ck_assert_uint_eq(p.sl, 4);
}
END_TEST

START_TEST(rate_codes)
{
	ck_assert_uint_eq(sa_rate_code(2500), 2);
	ck_assert_uint_eq(sa_rate_code(10000), 3);
	ck_assert_uint_eq(sa_rate_code(40000), 7);
	ck_assert_uint_eq(sa_rate_code(56000), 12);
	ck_assert_uint_eq(sa_rate_code(100000), 16);
	ck_assert_uint_eq(sa_rate_code(200000), 17);
	ck_assert_uint_eq(sa_rate_code(28000), 19);
	ck_assert_uint_eq(sa_rate_code(1200000), 24);
	ck_assert_uint_eq(sa_rate_code(35000), 4);      /* 30, the next below */
	ck_assert_uint_eq(sa_rate_code(1000), 0);
	ck_assert_uint_eq(sa_rate_mbps(11), 14000);
	ck_assert_uint_eq(sa_rate_mbps(1), 0);
	ck_assert_uint_eq(sa_rate_mbps(25), 0);
	ck_assert_uint_eq(sa_rate_prev(7), 4);          /* 40 -> 30 */
	ck_assert_uint_eq(sa_rate_prev(3), 5);          /* 10 -> 5 */
	ck_assert_uint_eq(sa_rate_prev(2), 0);
	ck_assert(sa_mtu_valid(1) && sa_mtu_valid(5));
	ck_assert(!sa_mtu_valid(0) && !sa_mtu_valid(6));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("path_codec");
	TCase *tc = tcase_create("codec");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, codec_layout);
	tcase_add_test(tc, codec_multipath);
	tcase_add_test(tc, rate_codes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
