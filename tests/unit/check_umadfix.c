/*
 * The RMPP arithmetic and byte layouts of the umadfix test fixture
 * (tests/fixture/rmpp.h), against the numbers the kernel's MAD layer
 * produces: segment count, padding, PayloadLength of the first and last
 * segments, the reassembled length, and the bytes of a segment and of an
 * ACK.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture/rmpp.h"

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

START_TEST(test_classes)
{
	ck_assert(rmpp_class_is_rmpp(0x03));
	ck_assert(rmpp_class_is_rmpp(0x30));
	ck_assert(rmpp_class_is_rmpp(0x4f));
	ck_assert(!rmpp_class_is_rmpp(0x01));
	ck_assert(!rmpp_class_is_rmpp(0x81));
	ck_assert(!rmpp_class_is_rmpp(0x04));
	ck_assert_uint_eq(rmpp_data_offset(0x03), 56);
	ck_assert_uint_eq(rmpp_data_offset(0x06), 64);
	ck_assert_uint_eq(rmpp_data_offset(0x31), 40);
	ck_assert_uint_eq(rmpp_data_offset(0x81), 24);
}
END_TEST

START_TEST(test_layout_sa)
{
	struct rmpp_layout l;

	/* one NodeRecord: 56 + 112 bytes (OpenSM writes no more) */
	rmpp_layout(0x03, 168, &l);
	ck_assert_uint_eq(l.hdr, 56);
	ck_assert_uint_eq(l.seg_data, 200);
	ck_assert_uint_eq(l.nseg, 1);
	ck_assert_uint_eq(l.pad, 88);
	ck_assert_uint_eq(rmpp_paylen(&l, 1), 132);
	ck_assert_uint_eq(rmpp_reassembled_len(0x03, 1, 132), 168);

	/* exactly one segment */
	rmpp_layout(0x03, 256, &l);
	ck_assert_uint_eq(l.nseg, 1);
	ck_assert_uint_eq(l.pad, 0);
	ck_assert_uint_eq(rmpp_paylen(&l, 1), 220);

	/* two full segments: the first counts both, 220 each */
	rmpp_layout(0x03, 456, &l);
	ck_assert_uint_eq(l.nseg, 2);
	ck_assert_uint_eq(l.pad, 0);
	ck_assert_uint_eq(rmpp_paylen(&l, 1), 440);
	ck_assert_uint_eq(rmpp_paylen(&l, 2), 220);

	/* one byte into a third segment */
	rmpp_layout(0x03, 457, &l);
	ck_assert_uint_eq(l.nseg, 3);
	ck_assert_uint_eq(l.pad, 199);
	ck_assert_uint_eq(rmpp_paylen(&l, 1), 3 * 220 - 199);
	ck_assert_uint_eq(rmpp_paylen(&l, 2), 0);
	ck_assert_uint_eq(rmpp_paylen(&l, 3), 21);
	ck_assert_uint_eq(rmpp_reassembled_len(0x03, 3, 21), 457);

	/* header only: one segment, all padding */
	rmpp_layout(0x03, 56, &l);
	ck_assert_uint_eq(l.nseg, 1);
	ck_assert_uint_eq(l.pad, 200);
	ck_assert_uint_eq(rmpp_paylen(&l, 1), 20);
	ck_assert_uint_eq(rmpp_reassembled_len(0x03, 1, 20), 56);

	/* a bogus PayloadLength means no padding, as in the kernel */
	ck_assert_uint_eq(rmpp_reassembled_len(0x03, 2, 1000), 56 + 400);
}
END_TEST

/* The reassembled length is the written length, for every length and the
 * three header sizes. */
START_TEST(test_length_roundtrip)
{
	static const uint8_t cls[] = { 0x03, 0x06, 0x30 };
	struct rmpp_layout l;

	for (unsigned c = 0; c < sizeof(cls); c++)
		for (size_t len = rmpp_data_offset(cls[c]); len < 9000; len++) {
			rmpp_layout(cls[c], len, &l);
			ck_assert_uint_eq(rmpp_reassembled_len(cls[c], l.nseg,
			    rmpp_paylen(&l, l.nseg)), len);
		}
}
END_TEST

START_TEST(test_segment_bytes)
{
	uint8_t mad[1234], seg[RMPP_MAD_SIZE];
	struct rmpp_layout l;

	for (size_t i = 0; i < sizeof(mad); i++)
		mad[i] = (uint8_t)(i * 7 + 1);
	mad[1] = 0x03;
	mad[24] = 0;            /* whatever the writer left there */
	mad[25] = 9;
	mad[26] = 0xA8 | RMPP_FLAG_ACTIVE;      /* RRespTime 0x15 */
	rmpp_layout(0x03, sizeof(mad), &l);
	ck_assert_uint_eq(l.nseg, 6);           /* 1178 data bytes */
	ck_assert_uint_eq(l.pad, 22);

	rmpp_segment(mad, sizeof(mad), &l, 2, 1, seg);
	ck_assert_mem_eq(seg, mad, 24);         /* common header */
	ck_assert_uint_eq(seg[24], 1);          /* RMPPVersion */
	ck_assert_uint_eq(seg[25], RMPP_TYPE_DATA);
	ck_assert_uint_eq(seg[26], 0xA8 | RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(seg[27], 0);
	ck_assert_uint_eq(be32(seg + 28), 2);
	ck_assert_uint_eq(be32(seg + 32), 0);
	ck_assert_mem_eq(seg + 36, mad + 36, 20);       /* SM_Key etc. */
	ck_assert_mem_eq(seg + 56, mad + 56 + 200, 200);

	rmpp_segment(mad, sizeof(mad), &l, 1, 1, seg);
	ck_assert_uint_eq(seg[26], 0xA8 | RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST);
	ck_assert_uint_eq(be32(seg + 28), 1);
	ck_assert_uint_eq(be32(seg + 32), 6 * 220 - 22);
	ck_assert_mem_eq(seg + 56, mad + 56, 200);

	rmpp_segment(mad, sizeof(mad), &l, 6, 1, seg);
	ck_assert_uint_eq(seg[26], 0xA8 | RMPP_FLAG_ACTIVE | RMPP_FLAG_LAST);
	ck_assert_uint_eq(be32(seg + 28), 6);
	ck_assert_uint_eq(be32(seg + 32), 220 - 22);
	ck_assert_mem_eq(seg + 56, mad + 56 + 5 * 200, 178);
	for (int i = 56 + 178; i < RMPP_MAD_SIZE; i++)
		ck_assert_uint_eq(seg[i], 0);

	ck_assert_uint_eq(rmpp_get_version(seg), 1);
	ck_assert_uint_eq(rmpp_get_type(seg), RMPP_TYPE_DATA);
	ck_assert_uint_eq(rmpp_get_flags(seg), RMPP_FLAG_ACTIVE | RMPP_FLAG_LAST);
	ck_assert_uint_eq(rmpp_get_seg(seg), 6);
	ck_assert_uint_eq(rmpp_get_paylen(seg), 198);
}
END_TEST

/* Segment, then put the data back together as the receiver does: the
 * first segment whole, the data of the others after it, cut to the
 * reassembled length. */
START_TEST(test_reassembly)
{
	size_t lens[] = { 60, 256, 257, 3001 };

	for (unsigned k = 0; k < 4; k++) {
		size_t len = lens[k], got;
		uint8_t *mad = malloc(len), *back = malloc(len + 256 * 20);
		uint8_t seg[RMPP_MAD_SIZE];
		struct rmpp_layout l;

		for (size_t i = 0; i < len; i++)
			mad[i] = (uint8_t)rand();
		mad[1] = 0x03;
		memset(mad + 24, 0, 12);
		rmpp_layout(0x03, len, &l);
		got = 0;
		for (unsigned s = 1; s <= l.nseg; s++) {
			rmpp_segment(mad, len, &l, s, 1, seg);
			if (s == 1) {
				memcpy(back, seg, RMPP_MAD_SIZE);
				got = RMPP_MAD_SIZE;
			} else {
				memcpy(back + got, seg + 56, 200);
				got += 200;
			}
		}
		got = rmpp_reassembled_len(0x03, l.nseg, rmpp_get_paylen(seg));
		ck_assert_uint_eq(got, len);
		ck_assert_mem_eq(back, mad, 24);
		ck_assert_mem_eq(back + 36, mad + 36, len - 36);
		free(mad);
		free(back);
	}
}
END_TEST

START_TEST(test_ack_bytes)
{
	uint8_t data[RMPP_MAD_SIZE], ack[RMPP_MAD_SIZE];

	memset(data, 0x5a, sizeof(data));
	data[0] = 1;
	data[1] = 0x03;
	data[2] = 2;
	data[3] = 0x92;         /* GetTableResp */
	data[26] = 0x70 | RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST;
	rmpp_reply(data, RMPP_TYPE_ACK, 0, 5, 37, ack);
	ck_assert_mem_eq(ack, data, 3);
	ck_assert_uint_eq(ack[3], 0x12);        /* travels as a GetTable */
	ck_assert_mem_eq(ack + 4, data + 4, 20);
	ck_assert_uint_eq(ack[24], 1);
	ck_assert_uint_eq(ack[25], RMPP_TYPE_ACK);
	ck_assert_uint_eq(ack[26], 0x70 | RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(ack[27], 0);
	ck_assert_uint_eq(be32(ack + 28), 5);
	ck_assert_uint_eq(be32(ack + 32), 37);
	ck_assert_mem_eq(ack + 36, data + 36, 20);
	for (int i = 56; i < RMPP_MAD_SIZE; i++)
		ck_assert_uint_eq(ack[i], 0);

	data[3] = 0x12;         /* an ACK of a request goes as a response */
	rmpp_reply(data, RMPP_TYPE_ABORT, RMPP_STATUS_TMR, 0, 0, ack);
	ck_assert_uint_eq(ack[3], 0x92);
	ck_assert_uint_eq(ack[25], RMPP_TYPE_ABORT);
	ck_assert_uint_eq(ack[27], RMPP_STATUS_TMR);
}
END_TEST

static Suite *
umadfix_suite(void)
{
	Suite *s = suite_create("umadfix");
	TCase *tc = tcase_create("rmpp");

	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_layout_sa);
	tcase_add_test(tc, test_length_roundtrip);
	tcase_add_test(tc, test_segment_bytes);
	tcase_add_test(tc, test_reassembly);
	tcase_add_test(tc, test_ack_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(umadfix_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
