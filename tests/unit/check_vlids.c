/*
 * sm/vlids: the vport LIDs last seen up survive a save and a load, lines
 * that do not parse are skipped, and with virtualization off each LID
 * forwards as its physical port's LID in every switch, unless the port is
 * gone or a port holds the LID now.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "sm/vlids.h"
#include "tests/unit/testfab.h"

static char dir[] = "/tmp/check_vlids.XXXXXX", path[256];

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vport_lids", dir);
}

static void
teardown(void)
{
	unlink(path);
	rmdir(dir);
	strcpy(dir, "/tmp/check_vlids.XXXXXX");
}

START_TEST(test_save_load)
{
	struct vlids a = { NULL, 0 }, b = { NULL, 0 };
	struct vlid v[2] = { { 0x0002c90300ee0001ULL, 0x100004ULL, 15 },
	    { 0x0002c90300ee0003ULL, 0x100007ULL, 16 } };
	unsigned bad = 9;
	char why[128];

	ck_assert_int_eq(vlids_load(&a, path, &bad, why, sizeof(why)), 0);
	ck_assert_uint_eq(a.n, 0);      /* missing: empty */
	a.v = malloc(sizeof(v));
	memcpy(a.v, v, sizeof(v));
	a.n = 2;
	ck_assert_int_eq(vlids_save(&a, path), 0);
	ck_assert_int_eq(vlids_load(&b, path, &bad, why, sizeof(why)), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert(vlids_equal(&a, &b));
	vlids_free(&a);
	vlids_free(&b);
}
END_TEST

START_TEST(test_bad_lines)
{
	struct vlids l = { NULL, 0 };
	unsigned bad = 0;
	char why[128];
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	fputs("# comment\n\n0x11 15 0x22\n0x11 x 0x22\n0x0 3 0x22\n"
	    "0x12 0 0x22\n0x13 49152 0x22\n0x14 16 0x22 junk\n"
	    "  0x15 17 0x23\n", fp);
	fclose(fp);
	ck_assert_int_eq(vlids_load(&l, path, &bad, why, sizeof(why)), 0);
	ck_assert_uint_eq(bad, 5);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.v[0].guid, 0x11);
	ck_assert_uint_eq(l.v[0].lid, 15);
	ck_assert_uint_eq(l.v[0].host, 0x22);
	ck_assert_uint_eq(l.v[1].lid, 17);
	vlids_free(&l);
}
END_TEST

START_TEST(test_apply)
{
	struct fabric f;
	struct lft_set lft;
	struct vlids l = { NULL, 0 };
	uint32_t h0, h1, p0, p1;
	uint16_t lid0, lid1, taken;

	fabric_init(&f);
	testfab_ft2(&f, 4);
	h0 = h1 = FABRIC_NONE;
	for (uint32_t n = 0; n < f.nnodes; n++) {
		if (f.nodes[n].type != NODE_CA)
			continue;
		if (h0 == FABRIC_NONE)
			h0 = n;
		else
			h1 = n;
	}
	ck_assert_uint_ne(h1, FABRIC_NONE);
	p0 = fabric_port_idx(&f, h0, 1);
	p1 = fabric_port_idx(&f, h1, 1);
	lid0 = f.ports[p0].lid;
	lid1 = f.ports[p1].lid;
	ck_assert_uint_ne(lid0, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, lid1), p1);
	taken = lid1;
	ck_assert_int_eq(lft_set_init(&lft, &f), 0);
	for (uint32_t s = 0; s < lft.nsw; s++) {
		uint8_t *row = lft_row(&lft, s);

		row[lid0] = (uint8_t)(1 + s % 3);
		row[lid1] = (uint8_t)(2 + s % 2);
	}
	l.v = calloc(4, sizeof(*l.v));
	/* a VM on h0, one on h1, one on a host gone, one on a LID in use */
	l.v[0] = (struct vlid){ 0xa1, f.ports[p0].guid, 200 };
	l.v[1] = (struct vlid){ 0xa2, f.ports[p1].guid, 201 };
	l.v[2] = (struct vlid){ 0xa3, 0xdeadbeefULL, 202 };
	l.v[3] = (struct vlid){ 0xa4, f.ports[p0].guid, taken };
	l.n = 4;
	ck_assert_int_eq(vlids_apply(&l, &f, &lft), 2);
	ck_assert_uint_ge(lft.max_lid, 202);
	for (uint32_t s = 0; s < lft.nsw; s++) {
		const uint8_t *row = lft_row(&lft, s);

		ck_assert_uint_eq(row[200], row[lid0]);
		ck_assert_uint_eq(row[201], row[lid1]);
		ck_assert_uint_eq(row[202], LFT_NO_ROUTE);
		ck_assert_uint_eq(row[taken], (uint8_t)(2 + s % 2));
	}
	vlids_free(&l);
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vlids");
	TCase *tc = tcase_create("vlids");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_save_load);
	tcase_add_test(tc, test_bad_lines);
	tcase_add_test(tc, test_apply);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
