/*
 * The VF alias GUID store (core/alias): generation, reuse after Delete and
 * after a reload of the text form, refusals, index 0, the byte, parsing.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alias.h"

#define P1	UINT64_C(0x0002c90300001001)
#define P2	UINT64_C(0x0002c90300001002)
#define GEN(b, n) (ALIAS_OUI << 40 | (uint64_t)(b) << 32 | (n))

/* The fabric's own GUIDs: P1, P2 and one that looks generated. */
static bool
taken(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == P1 || guid == P2 || guid == GEN(0x2a, 3);
}

START_TEST(test_generate_distinct)
{
	struct alias_store *s = alias_store_new(0x2a);
	uint64_t g[9];

	for (unsigned i = 1; i <= 8; i++) {
		g[i] = alias_set(s, P1, i, 0, taken, NULL);
		ck_assert_uint_ne(g[i], 0);
		ck_assert_uint_eq(g[i] >> 40, ALIAS_OUI);
		ck_assert_uint_eq((g[i] >> 32) & 0xff, 0x2a);
		ck_assert_uint_ne(g[i], GEN(0x2a, 3));	/* fabric's: skipped */
		for (unsigned j = 1; j < i; j++)
			ck_assert_uint_ne(g[i], g[j]);
		ck_assert_uint_eq(alias_get(s, P1, i), g[i]);
	}
	/* Set of 0 again keeps the GUID. */
	ck_assert_uint_eq(alias_set(s, P1, 4, 0, taken, NULL), g[4]);
	ck_assert_uint_eq(alias_count_active(s), 8);
	ck_assert(alias_store_dirty(s));
	alias_store_free(s);
}
END_TEST

START_TEST(test_delete_then_set_same)
{
	struct alias_store *s = alias_store_new(0);
	uint64_t a = alias_set(s, P1, 1, 0, taken, NULL);
	uint64_t b = alias_set(s, P2, 1, 0, taken, NULL);
	uint64_t port;
	unsigned idx;

	ck_assert(alias_find(s, a, &port, &idx));
	ck_assert_uint_eq(port, P1);
	ck_assert_uint_eq(idx, 1);
	ck_assert(alias_delete(s, P1, 1));
	ck_assert(!alias_delete(s, P1, 1));
	ck_assert_uint_eq(alias_get(s, P1, 1), 0);
	ck_assert(!alias_find(s, a, NULL, NULL));
	ck_assert_uint_eq(alias_saved(s, P1, 1), a);
	/* Nobody else gets it meanwhile. */
	ck_assert_uint_eq(alias_set(s, P2, 2, a, taken, NULL), 0);
	ck_assert_uint_ne(alias_set(s, P2, 2, 0, taken, NULL), a);
	ck_assert_uint_eq(alias_set(s, P1, 1, 0, taken, NULL), a);
	ck_assert_uint_ne(a, b);
	alias_store_free(s);
}
END_TEST

/* ibsmctl guids forget (issue 23 point 9): a released entry's GUID is
 * forgotten, so the next Set of 0 gets a new one; an active entry, or
 * nothing saved, is refused. */
START_TEST(test_forget)
{
	struct alias_store *s = alias_store_new(0);
	uint64_t a = alias_set(s, P1, 1, 0, taken, NULL), was = 7;

	ck_assert_int_eq(alias_forget(s, P1, 1, &was), -2);
	ck_assert(alias_delete(s, P1, 1));
	ck_assert_int_eq(alias_forget(s, P1, 1, &was), 0);
	ck_assert_uint_eq(was, a);
	ck_assert_uint_eq(alias_saved(s, P1, 1), 0);
	ck_assert_int_eq(alias_forget(s, P1, 1, &was), -1);
	ck_assert_int_eq(alias_forget(s, P1, 9, &was), -1);
	ck_assert_int_eq(alias_forget(s, P2, 1, &was), -1);
	ck_assert_uint_ne(alias_set(s, P1, 1, 0, taken, NULL), a);
	/* the forgotten GUID is free for another entry */
	ck_assert_uint_eq(alias_set(s, P2, 3, a, taken, NULL), a);
	alias_store_free(s);
}
END_TEST

START_TEST(test_refusals)
{
	struct alias_store *s = alias_store_new(0);
	uint64_t a = alias_set(s, P1, 1, 0, taken, NULL);
	uint64_t want = UINT64_C(0x0002c9feed000001);

	/* In use as another entry's alias, as a physical port GUID, as the
	 * port's own GUID: refused, nothing changes. */
	ck_assert_uint_eq(alias_set(s, P2, 1, a, taken, NULL), 0);
	ck_assert_uint_eq(alias_set(s, P1, 2, a, taken, NULL), 0);
	ck_assert_uint_eq(alias_set(s, P1, 2, P2, taken, NULL), 0);
	ck_assert_uint_eq(alias_set(s, P1, 2, P1, taken, NULL), 0);
	ck_assert_uint_eq(alias_get(s, P1, 2), 0);
	ck_assert_uint_eq(alias_get(s, P2, 1), 0);
	/* Index 0 and past the table: never. */
	ck_assert_uint_eq(alias_set(s, P1, 0, 0, taken, NULL), 0);
	ck_assert_uint_eq(alias_set(s, P1, ALIAS_MAX_INDEX, 0, taken, NULL),
	    0);
	ck_assert(!alias_delete(s, P1, 0));
	/* A specific GUID nobody uses is taken as asked, and the same again. */
	ck_assert_uint_eq(alias_set(s, P1, 2, want, taken, NULL), want);
	ck_assert_uint_eq(alias_set(s, P1, 2, want, taken, NULL), want);
	ck_assert_uint_eq(alias_set(s, P1, 2, 0, taken, NULL), want);
	/* Replacing an entry's GUID frees the old one. */
	ck_assert_uint_eq(alias_set(s, P1, 1, want + 1, taken, NULL), want + 1);
	ck_assert_uint_eq(alias_set(s, P2, 1, a, taken, NULL), a);
	alias_store_free(s);
}
END_TEST

static unsigned nbad;
static void
bad(void *arg, unsigned line, const char *why)
{
	(void)arg;
	(void)why;
	(void)line;
	nbad++;
}

START_TEST(test_text_roundtrip)
{
	struct alias_store *s = alias_store_new(7), *t;
	uint64_t g[4], tab[ALIAS_MAX_INDEX];
	char *text, *again;

	for (unsigned i = 1; i < 4; i++)
		g[i] = alias_set(s, P1, i, 0, taken, NULL);
	alias_delete(s, P1, 2);
	text = alias_store_format(s);
	/* A restart: a new store, the same file. */
	t = alias_store_new(7);
	nbad = 0;
	ck_assert_uint_eq(alias_store_parse(t, text, bad, NULL), 0);
	ck_assert(!alias_store_dirty(t));
	ck_assert_uint_eq(alias_get(t, P1, 1), g[1]);
	ck_assert_uint_eq(alias_get(t, P1, 2), 0);
	ck_assert_uint_eq(alias_get(t, P1, 3), g[3]);
	ck_assert_uint_eq(alias_port_table(t, P1, tab), 2);
	ck_assert_uint_eq(tab[3], g[3]);
	ck_assert_uint_eq(alias_set(t, P1, 2, 0, taken, NULL), g[2]);
	/* New ones do not collide with reloaded ones. */
	for (unsigned i = 4; i < 12; i++) {
		uint64_t n = alias_set(t, P1, i, 0, taken, NULL);

		ck_assert_uint_ne(n, 0);
		for (unsigned k = 1; k < 4; k++)
			ck_assert_uint_ne(n, g[k]);
	}
	again = alias_store_format(t);
	ck_assert_ptr_nonnull(strstr(again, "active"));
	free(text);
	free(again);
	alias_store_free(s);
	alias_store_free(t);
}
END_TEST

START_TEST(test_parse_bad)
{
	struct alias_store *s = alias_store_new(0);
	const char *text =
	    "# comment\n"
	    "\n"
	    "0x0002c90300001001 1 0x0014050000000001 active\n"
	    "0x0002c90300001001 0 0x0014050000000002 active\n"	/* index 0 */
	    "0x0002c90300001001 2 0x0014050000000001 active\n"	/* twice */
	    "0x0002c90300001001 1 0x0014050000000003 saved\n"	/* twice */
	    "nonsense\n"
	    "0x0002c90300001001 3 0x0014050000000004 maybe\n"
	    "0x0002c90300001001 300 0x0014050000000005 saved\n"
	    "0x0002c90300001002 1 0x0014050000000006 saved";	/* no \n */

	nbad = 0;
	ck_assert_uint_eq(alias_store_parse(s, text, bad, NULL), 6);
	ck_assert_uint_eq(nbad, 6);
	ck_assert_uint_eq(alias_get(s, P1, 1), UINT64_C(0x0014050000000001));
	ck_assert_uint_eq(alias_get(s, P2, 1), 0);
	ck_assert_uint_eq(alias_saved(s, P2, 1), UINT64_C(0x0014050000000006));
	alias_store_free(s);
}
END_TEST

START_TEST(test_device)
{
	struct alias_store *s = alias_store_new(0);
	uint64_t b[8] = { P1, 0, 0x11 }, r[8];
	unsigned cap = 0;

	ck_assert(!alias_device_get(s, P1, 0, r, &cap));
	alias_device_put(s, P1, 32, 0, b);
	ck_assert(alias_device_get(s, P1, 0, r, &cap));
	ck_assert_uint_eq(cap, 32);
	ck_assert_uint_eq(r[2], 0x11);
	ck_assert(!alias_device_get(s, P1, 1, r, &cap));
	/* Device content is not an assignment. */
	ck_assert_uint_eq(alias_get(s, P1, 2), 0);
	ck_assert(!alias_store_dirty(s));
	alias_device_clear(s);
	ck_assert(!alias_device_get(s, P1, 0, r, &cap));
	alias_store_free(s);
}
END_TEST

static bool
taken_x(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == 0x99;
}

/* Takeover: what a device holds that the store does not know is adopted,
 * never a GUID active elsewhere, the port's own or one the fabric uses. */
START_TEST(test_adopt)
{
	struct alias_store *s = alias_store_new(0);
	uint64_t g, b[8] = { P1 };

	ck_assert(alias_adopt(s, P1, 3, 0x11, taken_x, NULL));
	ck_assert_uint_eq(alias_get(s, P1, 3), 0x11);
	ck_assert(alias_store_dirty(s));
	/* again: nothing new */
	ck_assert(alias_adopt(s, P1, 3, 0x11, taken_x, NULL));
	ck_assert(!alias_adopt(s, P2, 1, 0x11, taken_x, NULL));
	ck_assert(!alias_adopt(s, P1, 4, 0x99, taken_x, NULL));
	ck_assert(!alias_adopt(s, P1, 4, P1, taken_x, NULL));
	ck_assert(!alias_adopt(s, P1, 0, 0x12, taken_x, NULL));
	ck_assert(!alias_adopt(s, P1, 4, 0, taken_x, NULL));
	ck_assert_uint_eq(alias_get(s, P1, 4), 0);
	/* the device's GUID replaces the store's other one */
	g = alias_set(s, P1, 5, 0, NULL, NULL);
	ck_assert(g != 0);
	ck_assert(alias_adopt(s, P1, 5, 0x15, NULL, NULL));
	ck_assert_uint_eq(alias_get(s, P1, 5), 0x15);
	ck_assert(!alias_find(s, g, NULL, NULL));
	/* a GUID only saved elsewhere moves */
	ck_assert(alias_delete(s, P1, 3));
	ck_assert(alias_adopt(s, P2, 2, 0x11, NULL, NULL));
	ck_assert_uint_eq(alias_saved(s, P1, 3), 0);
	ck_assert_uint_eq(alias_get(s, P2, 2), 0x11);
	/* generated GUIDs avoid adopted ones */
	ck_assert(alias_adopt(s, P2, 3, UINT64_C(0x0014050000000002), NULL,
	    NULL));
	ck_assert_uint_ne(alias_set(s, P2, 4, 0, NULL, NULL),
	    UINT64_C(0x0014050000000002));
	/* forget: one port's device view only */
	alias_device_put(s, P1, 32, 0, b);
	alias_device_put(s, P2, 32, 0, b);
	alias_device_forget(s, P1);
	ck_assert(!alias_device_get(s, P1, 0, b, NULL));
	ck_assert(alias_device_get(s, P2, 0, b, NULL));
	alias_store_free(s);
}
END_TEST

static Suite *
alias_suite(void)
{
	Suite *s = suite_create("alias");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, test_generate_distinct);
	tcase_add_test(tc, test_delete_then_set_same);
	tcase_add_test(tc, test_forget);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_text_roundtrip);
	tcase_add_test(tc, test_parse_bad);
	tcase_add_test(tc, test_device);
	tcase_add_test(tc, test_adopt);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(alias_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
