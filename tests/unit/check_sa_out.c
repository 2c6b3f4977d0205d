/*
 * sa/out.c: big-endian bit fields at any offset, component-mask matching
 * and the record buffer, against hand-made byte layouts.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sa/attr.h"

START_TEST(test_bits)
{
	uint8_t r[16] = { 0 };

	sa_set_bits(r, 0, 16, 0x1234);
	ck_assert_uint_eq(r[0], 0x12);
	ck_assert_uint_eq(r[1], 0x34);
	/* PortInfo PortState: 4 bits at bit 260 of a PortInfoRecord would
	 * be byte 32; here a nibble inside byte 2 */
	sa_set_bits(r, 20, 4, 0xA);
	ck_assert_uint_eq(r[2], 0x0A);
	sa_set_bits(r, 16, 4, 0x5);
	ck_assert_uint_eq(r[2], 0x5A);
	ck_assert_uint_eq(sa_get_bits(r, 16, 4), 0x5);
	ck_assert_uint_eq(sa_get_bits(r, 20, 4), 0xA);
	sa_set_bits(r, 64, 64, 0x0102030405060708ULL);
	ck_assert_uint_eq(r[8], 0x01);
	ck_assert_uint_eq(r[15], 0x08);
	ck_assert_uint_eq(sa_get_bits(r, 64, 64), 0x0102030405060708ULL);
	/* an unaligned field across bytes: 5 bits at bit 27 */
	memset(r, 0, sizeof(r));
	sa_set_bits(r, 27, 5, 0x1F);
	ck_assert_uint_eq(r[3], 0x1F);
	sa_set_bits(r, 27, 5, 0x10);
	ck_assert_uint_eq(r[3], 0x10);
	ck_assert_uint_eq(sa_get_bits(r, 27, 5), 0x10);
}
END_TEST

START_TEST(test_match)
{
	static const struct sa_comp t[] = { { 0, 16 }, { 16, 8 }, { 24, 8 },
	    { 32, 128 } };
	uint8_t want[24] = { 0 }, have[24] = { 0 };

	have[0] = 0x00; have[1] = 0x05; have[2] = 3; have[3] = 9;
	memset(have + 4, 0xAB, 16);
	ck_assert(sa_comp_match(t, 4, 0, want, have));
	ck_assert(!sa_comp_match(t, 4, 1, want, have));
	want[1] = 5;
	ck_assert(sa_comp_match(t, 4, 1, want, have));
	ck_assert(!sa_comp_match(t, 4, 1 | 2, want, have));
	want[2] = 3;
	ck_assert(sa_comp_match(t, 4, 1 | 2, want, have));
	ck_assert(!sa_comp_match(t, 4, 8, want, have));
	memset(want + 4, 0xAB, 16);
	ck_assert(sa_comp_match(t, 4, 1 | 2 | 8, want, have));
	/* bits beyond the table are ignored */
	ck_assert(sa_comp_match(t, 4, 1u << 10, want, have));
}
END_TEST

START_TEST(test_out)
{
	struct sa_out o;
	uint8_t *r;

	sa_out_init(&o, 72, 2);
	ck_assert(!sa_out_full(&o));
	r = sa_out_add(&o);
	r[0] = 1;
	r = sa_out_add(&o);
	ck_assert_uint_eq(r[0], 0);
	ck_assert(sa_out_full(&o));
	ck_assert_uint_eq(o.n, 2);
	ck_assert_uint_eq(o.recs[0], 1);
	sa_out_fini(&o);
	sa_out_init(&o, 8, 0);
	for (int i = 0; i < 100; i++)
		sa_out_add(&o)[0] = (uint8_t)i;
	ck_assert(!sa_out_full(&o));
	ck_assert_uint_eq(o.recs[8 * 99], 99);
	sa_out_fini(&o);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sa_out");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_bits);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_out);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
