/*
 * core/pool: objects come back zeroed, are reused (last put, first got),
 * and no more than max are kept.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"

START_TEST(reuse_zeroed)
{
	struct pool p;
	uint8_t *a, *b, *c;

	pool_init(&p, 40, 4);
	a = pool_get(&p);
	b = pool_get(&p);
	ck_assert_ptr_ne(a, b);
	for (int i = 0; i < 40; i++)
		ck_assert_uint_eq(a[i], 0);
	memset(a, 0xab, 40);
	memset(b, 0xcd, 40);
	pool_put(&p, a);
	pool_put(&p, b);
	ck_assert_uint_eq(p.nfree, 2);
	c = pool_get(&p);
	ck_assert_ptr_eq(c, b);
	for (int i = 0; i < 40; i++)
		ck_assert_uint_eq(c[i], 0);
	ck_assert_ptr_eq(pool_get(&p), a);
	ck_assert_uint_eq(p.nfree, 0);
	pool_put(&p, a);
	pool_put(&p, c);
	pool_put(&p, NULL);
	ck_assert_uint_eq(p.nfree, 2);
	pool_fini(&p);
	ck_assert_uint_eq(p.nfree, 0);
	ck_assert_ptr_null(p.free);
}
END_TEST

START_TEST(keeps_at_most_max)
{
	struct pool p;
	void *o[10];

	pool_init(&p, 1, 3);
	ck_assert_uint_ge(p.size, sizeof(void *));
	for (int i = 0; i < 10; i++)
		o[i] = pool_get(&p);
	for (int i = 0; i < 10; i++)
		pool_put(&p, o[i]);
	ck_assert_uint_eq(p.nfree, 3);
	/* the kept ones are the first three given back, last first */
	ck_assert_ptr_eq(pool_get(&p), o[2]);
	ck_assert_ptr_eq(pool_get(&p), o[1]);
	ck_assert_ptr_eq(pool_get(&p), o[0]);
	ck_assert_uint_eq(p.nfree, 0);
	pool_fini(&p);
	for (int i = 0; i < 3; i++)
		free(o[i]);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, reuse_zeroed);
	tcase_add_test(tc, keeps_at_most_max);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
