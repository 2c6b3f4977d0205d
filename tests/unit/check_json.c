/*
 * JSON writer: escaping (RFC 8259), UTF-8 repair of bytes from the wire,
 * numbers, and the commas and nesting it tracks for its callers.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/json.h"

/* The document produced by writing one string of n bytes. */
static char *
string_doc(const char *s, size_t n)
{
	struct json j;
	char *out;

	json_init(&j);
	json_stringn(&j, s, n);
	out = strdup(j.buf);
	json_fini(&j);
	return out;
}

static const struct {
	const char *in;
	size_t len;             /* 0: strlen(in) */
	const char *out;
} esc_cases[] = {
	{ "plain", 0, "\"plain\"" },
	{ "", 0, "\"\"" },
	{ "say \"hi\"", 0, "\"say \\\"hi\\\"\"" },
	{ "back\\slash", 0, "\"back\\\\slash\"" },
	{ "a/b", 0, "\"a/b\"" },
	{ "\b\f\n\r\t", 0, "\"\\b\\f\\n\\r\\t\"" },
	{ "\x01\x1f\x7f", 0, "\"\\u0001\\u001f\\u007f\"" },
	{ "\x1b[31mred", 0, "\"\\u001b[31mred\"" },
	{ "nul\0inside", 10, "\"nul\\u0000inside\"" },
	/* valid UTF-8 passes through */
	{ "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"" },
	{ "\xe2\x82\xac", 0, "\"\xe2\x82\xac\"" },
	{ "\xf0\x9f\x98\x80", 0, "\"\xf0\x9f\x98\x80\"" },
	{ "\xef\xbf\xbf", 0, "\"\xef\xbf\xbf\"" },
	{ "\xf4\x8f\xbf\xbf", 0, "\"\xf4\x8f\xbf\xbf\"" },
	/* invalid bytes become U+FFFD, one per byte that starts nothing */
	{ "\x80", 0, "\"\\ufffd\"" },
	{ "a\xbfz", 0, "\"a\\ufffdz\"" },
	{ "\xc0\x80", 0, "\"\\ufffd\\ufffd\"" },          /* overlong NUL */
	{ "\xc1\xbf", 0, "\"\\ufffd\\ufffd\"" },          /* overlong */
	{ "\xe0\x80\xaf", 0, "\"\\ufffd\\ufffd\\ufffd\"" }, /* overlong */
	{ "\xed\xa0\x80", 0, "\"\\ufffd\\ufffd\\ufffd\"" }, /* surrogate */
	{ "\xf0\x80\x80\xaf", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },           /* overlong */
	{ "\xf4\x90\x80\x80", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },           /* > U+10FFFF */
	{ "\xf5\x80", 0, "\"\\ufffd\\ufffd\"" },
	{ "\xff\xfe", 0, "\"\\ufffd\\ufffd\"" },
	{ "\xc3", 0, "\"\\ufffd\"" },                     /* cut short */
	{ "x\xe2\x82", 0, "\"x\\ufffd\\ufffd\"" },        /* cut short */
	{ "\xe2\x82" "A", 0, "\"\\ufffd\\ufffdA\"" },      /* bad continuation */
	{ "\xc3\xa9\xc3", 0, "\"\xc3\xa9\\ufffd\"" },
};

START_TEST(test_escape)
{
	size_t n = esc_cases[_i].len ? esc_cases[_i].len :
	    strlen(esc_cases[_i].in);
	char *out = string_doc(esc_cases[_i].in, n);

	ck_assert_str_eq(out, esc_cases[_i].out);
	free(out);
}
END_TEST

/* Every byte value alone: the output is ASCII or valid UTF-8 and holds no
 * raw control character. */
START_TEST(test_every_byte)
{
	for (unsigned b = 0; b < 256; b++) {
		char in = (char)b, *out = string_doc(&in, 1);
		size_t len = strlen(out);

		ck_assert_uint_ge(len, 3);
		for (size_t i = 0; i < len; i++) {
			ck_assert_uint_ge((unsigned char)out[i], 0x20);
			ck_assert_uint_lt((unsigned char)out[i], 0x7f);
		}
		free(out);
	}
}
END_TEST

START_TEST(test_utf8_len)
{
	ck_assert_uint_eq(json_utf8_len("a", 1), 1);
	ck_assert_uint_eq(json_utf8_len("\xc3\xa9", 2), 2);
	ck_assert_uint_eq(json_utf8_len("\xc3\xa9", 1), 0);
	ck_assert_uint_eq(json_utf8_len("\xe2\x82\xac", 3), 3);
	ck_assert_uint_eq(json_utf8_len("\xf0\x9f\x98\x80", 4), 4);
	ck_assert_uint_eq(json_utf8_len("\xed\x9f\xbf", 3), 3);  /* U+D7FF */
	ck_assert_uint_eq(json_utf8_len("\xed\xa0\x80", 3), 0);  /* U+D800 */
	ck_assert_uint_eq(json_utf8_len("\x80", 1), 0);
	ck_assert_uint_eq(json_utf8_len("", 0), 0);
}
END_TEST

START_TEST(test_structure)
{
	struct json j;

	json_init(&j);
	json_object_begin(&j);
	json_kv_string(&j, "name", "leaf0");
	json_kv_uint(&j, "ports", 36);
	json_key(&j, "lids");
	json_array_begin(&j);
	json_uint(&j, 1);
	json_uint(&j, 2);
	json_array_begin(&j);
	json_array_end(&j);
	json_object_begin(&j);
	json_object_end(&j);
	json_array_end(&j);
	json_key(&j, "peer");
	json_null(&j);
	json_kv_bool(&j, "up", true);
	json_kv_bool(&j, "down", false);
	json_key(&j, "we\"ird");
	json_string(&j, NULL);
	json_object_end(&j);
	ck_assert_str_eq(j.buf, "{\"name\":\"leaf0\",\"ports\":36,"
	    "\"lids\":[1,2,[],{}],\"peer\":null,\"up\":true,\"down\":false,"
	    "\"we\\\"ird\":null}");
	ck_assert_int_eq(j.depth, 0);
	json_fini(&j);
}
END_TEST

START_TEST(test_numbers)
{
	struct json j;

	json_init(&j);
	json_array_begin(&j);
	json_uint(&j, UINT64_MAX);
	json_int(&j, INT64_MIN);
	json_int(&j, -1);
	json_double(&j, 0.5);
	json_double(&j, 1e300);
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_double(&j, -INFINITY);
	json_guid(&j, 0x0002c90300001001ULL);
	json_guid(&j, 0);
	json_array_end(&j);
	ck_assert_str_eq(j.buf, "[18446744073709551615,-9223372036854775808,"
	    "-1,0.5,1e+300,null,null,null,\"0x0002c90300001001\","
	    "\"0x0000000000000000\"]");
	json_fini(&j);
}
END_TEST

/* Long documents grow the buffer; nothing is lost on the way. */
START_TEST(test_growth)
{
	struct json j;
	size_t i;

	json_init(&j);
	json_array_begin(&j);
	for (i = 0; i < 10000; i++)
		json_string(&j, "0123456789");
	json_array_end(&j);
	ck_assert_uint_eq(j.len, 2 + 10000 * 13 - 1);
	ck_assert_uint_eq(strlen(j.buf), j.len);
	ck_assert_str_eq(j.buf + j.len - 13, "\"0123456789\"]");
	json_fini(&j);
}
END_TEST

/* One document in the three forms: JSON, flat lines, the text tree. */
static void
tree_doc(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "version", "0.1");
	json_key(j, "sm");
	json_object_begin(j);
	json_kv_string(j, "state", "MASTER");
	json_key(j, "peers");
	json_array_begin(j);
	json_object_begin(j);
	json_kv_guid(j, "guid", 0x10);
	json_key(j, "x");
	json_object_begin(j);
	json_kv_uint(j, "a", 1);
	json_key(j, "deep");
	json_array_begin(j);
	json_object_begin(j);
	json_kv_uint(j, "q", 2);
	json_object_end(j);
	json_array_end(j);
	json_object_end(j);
	json_object_end(j);
	json_object_begin(j);
	json_kv_guid(j, "guid", 0x11);
	json_kv_uint(j, "lid", 5);
	json_object_end(j);
	json_array_end(j);
	json_key(j, "empty");
	json_array_begin(j);
	json_array_end(j);
	json_object_end(j);
	json_key(j, "hops");
	json_array_begin(j);
	json_uint(j, 0);
	json_uint(j, 5);
	json_array_end(j);
	json_kv_bool(j, "up", true);
	json_key(j, "n");
	json_null(j);
	json_kv_string(j, "why", "a\nb\x01");
	json_kv_double(j, "t", 0.25);
	json_object_end(j);
}

START_TEST(test_tree_modes)
{
	struct json j;

	json_init_mode(&j, JSON_MODE_FLAT);
	tree_doc(&j);
	ck_assert_str_eq(j.buf,
	    "version 0.1\n"
	    "sm.state MASTER\n"
	    "sm.peers.0.guid 0x0000000000000010\n"
	    "sm.peers.0.x.a 1\n"
	    "sm.peers.0.x.deep.0.q 2\n"
	    "sm.peers.1.guid 0x0000000000000011\n"
	    "sm.peers.1.lid 5\n"
	    "hops.0 0\n"
	    "hops.1 5\n"
	    "up 1\n"
	    "n -\n"
	    "why a\\nb\\x01\n"
	    "t 0.25\n");
	json_fini(&j);
	json_init_mode(&j, JSON_MODE_TEXT);
	tree_doc(&j);
	ck_assert_str_eq(j.buf,
	    "version: 0.1\n"
	    "sm:\n"
	    "  state: MASTER\n"
	    "  peers:\n"
	    "    - guid: 0x0000000000000010\n"
	    "      x:\n"
	    "        a: 1\n"
	    "        deep:\n"
	    "          - {q: 2}\n"
	    "    - {guid: 0x0000000000000011, lid: 5}\n"
	    "  empty: []\n"
	    "hops: [0, 5]\n"
	    "up: true\n"
	    "n: -\n"
	    "why: a?b?\n"
	    "t: 0.25\n");
	json_fini(&j);
	json_init(&j);
	tree_doc(&j);
	ck_assert_str_eq(j.buf, "{\"version\":\"0.1\",\"sm\":{\"state\":\"MASTER\","
	    "\"peers\":[{\"guid\":\"0x0000000000000010\",\"x\":{\"a\":1,"
	    "\"deep\":[{\"q\":2}]}},{\"guid\":\"0x0000000000000011\",\"lid\":5}],"
	    "\"empty\":[]},\"hops\":[0,5],\"up\":true,\"n\":null,"
	    "\"why\":\"a\\nb\\u0001\",\"t\":0.25}");
	json_fini(&j);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("json");

	tcase_add_loop_test(tc, test_escape, 0,
	    sizeof(esc_cases) / sizeof(esc_cases[0]));
	tcase_add_test(tc, test_every_byte);
	tcase_add_test(tc, test_utf8_len);
	tcase_add_test(tc, test_structure);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_tree_modes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(json_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
