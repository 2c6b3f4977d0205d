/*
 * What ibsmctl shows, on an in-memory fat tree routed by minhop: routes
 * hop by hop (and every way a forwarding table can fail to deliver), the
 * names a node or port goes by, the ports and nodes tables, status, and
 * the cleaning of text for a terminal.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fabric.h"
#include "routing/routing.h"
#include "sm/show.h"
#include "tests/unit/testfab.h"

/* ft2 with k = 4: leaves are nodes 0-3 (LIDs 1-4), spines 4-5 (LIDs 5-6),
 * HCA j of leaf i is node 6 + 2i + j with LID 7 + 2i + j on leaf port
 * j + 1; leaf port 3 + j goes to spine j. */
#define K 4
static struct fabric f;
static struct lft_set lft;
static struct show s;

static void
setup(void)
{
	char why[128] = "";

	fabric_init(&f);
	testfab_ft2(&f, K);
	ck_assert_int_eq(lft_set_init(&lft, &f), 0);
	ck_assert_msg(re_minhop.route(&f, &(struct routing_opts){ 0 }, &lft,
	    why, sizeof(why)) == 0, "minhop: %s", why);
}

static void
teardown(void)
{
	show_fini(&s);
	lft_set_fini(&lft);
	fabric_fini(&f);
}

/* Brackets and braces balance outside strings, and nothing follows the
 * document: a cheap check that the writer was driven right. */
static int
balanced(const char *j)
{
	int depth = 0, in = 0;

	for (; *j; j++) {
		if (in) {
			if (*j == '\\' && j[1])
				j++;
			else if (*j == '"')
				in = 0;
			continue;
		}
		if (*j == '"')
			in = 1;
		else if (*j == '{' || *j == '[')
			depth++;
		else if (*j == '}' || *j == ']') {
			if (--depth < 0)
				return 0;
			if (depth == 0 && j[1] != '\0')
				return 0;
		}
	}
	return depth == 0 && !in;
}

static unsigned
lines(const char *t)
{
	unsigned n = 0;

	for (; t && *t; t++)
		n += *t == '\n';
	return n;
}

static int
route_text(const char *from, const char *to)
{
	show_fini(&s);
	show_init(&s, false);
	return show_route(&s, &f, &lft, from, to);
}

/* Hops of the route from to, read from its JSON, -1 on an error. */
static int
route_hops(const char *from, const char *to)
{
	const char *h;

	show_fini(&s);
	show_init(&s, true);
	if (show_route(&s, &f, &lft, from, to) < 0)
		return -1;
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	h = strstr(s.j.buf, "\"hops\":");
	ck_assert_ptr_nonnull(h);
	return atoi(h + 7);
}

/* "up since" and "for": ISO 8601 with an offset, and short durations. */
START_TEST(test_time_and_duration)
{
	char buf[64];

	show_duration(3.24, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3.2 s");
	show_duration(245, buf, sizeof(buf));
	ck_assert_str_eq(buf, "4m 05s");
	show_duration(7380, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2h 03m");
	show_duration(446400, buf, sizeof(buf));
	ck_assert_str_eq(buf, "5d 04h");
	show_duration(-1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0.0 s");
	setenv("TZ", "UTC", 1);
	tzset();
	show_time(1795451112.7, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-11-23T16:25:12+0000");
}
END_TEST

START_TEST(test_route_all_pairs)
{
	char a[8], b[8];
	unsigned i, j, want;

	for (i = 0; i < 2 * K; i++)
		for (j = 0; j < 2 * K; j++) {
			snprintf(a, sizeof(a), "%u", 7 + i);
			snprintf(b, sizeof(b), "%u", 7 + j);
			want = i == j ? 0 : i / 2 == j / 2 ? 2 : 4;
			ck_assert_int_eq(route_hops(a, b), (int)want);
		}
}
END_TEST

START_TEST(test_route_switches)
{
	ck_assert_int_eq(route_hops("7", "1"), 1);      /* own leaf */
	ck_assert_int_eq(route_hops("7", "2"), 3);      /* another leaf */
	ck_assert_int_eq(route_hops("7", "5"), 2);      /* a spine */
	ck_assert_int_eq(route_hops("1", "14"), 3);     /* leaf to CA */
	ck_assert_int_eq(route_hops("1", "1"), 0);
	ck_assert_int_eq(route_hops("5", "6"), 2);      /* spine to spine */
}
END_TEST

START_TEST(test_route_text)
{
	ck_assert_int_eq(route_text("7", "9"), 0);
	ck_assert_msg(strncmp(s.text.p, "LID 7 to LID 9: 4 hops\n", 23) == 0,
	    "%s", s.text.p);
	/* title, header, 5 nodes; the first leaves by its port 1 */
	ck_assert_uint_eq(lines(s.text.p), 7);
	ck_assert_ptr_nonnull(strstr(s.text.p, "\n  0  CA "));
	ck_assert_ptr_nonnull(strstr(s.text.p, "\n  4  CA "));
	ck_assert_int_eq(route_text("8", "8"), 0);
	ck_assert_ptr_nonnull(strstr(s.text.p, "0 hops"));
}
END_TEST

/* The JSON path: ports in and out of each node, ending at the CA. */
START_TEST(test_route_json_path)
{
	ck_assert_int_eq(route_hops("7", "8"), 2);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"src_lid\":7,\"dst_lid\":8,"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"lid\":7,\"in_port\":null,"
	    "\"out_port\":1}"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"lid\":1,\"in_port\":1,"
	    "\"out_port\":2}"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"lid\":8,\"in_port\":1,"
	    "\"out_port\":null}"));
}
END_TEST

static uint8_t *
entry(uint32_t node, uint16_t lid)
{
	return &lft_row(&lft, lft.node_sw[node])[lid];
}

static void
assert_route_error(const char *from, const char *to, const char *why)
{
	ck_assert_int_eq(route_text(from, to), -1);
	ck_assert_msg(s.err.p != NULL && strstr(s.err.p, why) != NULL,
	    "'%s' not in '%s'", why, s.err.p ? s.err.p : "");
}

START_TEST(test_route_broken)
{
	*entry(0, 9) = LFT_NO_ROUTE;
	assert_route_error("7", "9", "has no route to LID 9");
	*entry(0, 9) = 1;               /* to the CA with LID 7 */
	assert_route_error("8", "9", "which is LID 7");
	*entry(0, 9) = 0;
	assert_route_error("7", "9", "takes LID 9 for itself");
	*entry(0, 9) = K + 3;
	assert_route_error("7", "9", "sends LID 9 to port 7 of 4");
	*entry(0, 9) = 3;               /* up to spine 0 ... */
	*entry(4, 9) = 1;               /* ... which sends it back */
	assert_route_error("7", "9", "not reached after");
	testfab_unlink(&f, 0, 3);
	assert_route_error("7", "9", "port 3 of 0x");
	/* a CA without a link cannot start a route */
	testfab_unlink(&f, 6, 1);
	assert_route_error("7", "10", "port 1 of 0x");
}
END_TEST

static int
ports(const char *what, bool json)
{
	show_fini(&s);
	show_init(&s, json);
	return show_ports(&s, &f, what);
}

START_TEST(test_names)
{
	char g[32];

	strcpy(f.nodes[6].desc, "h0 mlx5_0");
	f.nodes[6].desc_valid = 1;
	strcpy(f.nodes[7].desc, "twin");
	f.nodes[7].desc_valid = 1;
	strcpy(f.nodes[8].desc, "twin");
	f.nodes[8].desc_valid = 1;

	/* a switch LID, decimal or short hex: the whole switch, ports 0-4 */
	ck_assert_int_eq(ports("1", false), 0);
	ck_assert_uint_eq(lines(s.text.p), 2 + K + 1);
	ck_assert_int_eq(ports("0x1", false), 0);
	ck_assert_uint_eq(lines(s.text.p), 2 + K + 1);
	/* a CA by LID, port GUID, node GUID, description: its one port */
	ck_assert_int_eq(ports("7", false), 0);
	ck_assert_uint_eq(lines(s.text.p), 3);
	ck_assert_ptr_nonnull(strstr(s.text.p, "\"h0 mlx5_0\""));
	snprintf(g, sizeof(g), "0x%016" PRIx64,
	    f.ports[fabric_port_idx(&f, 6, 1)].guid);
	ck_assert_int_eq(ports(g, false), 0);
	ck_assert_ptr_nonnull(strstr(s.text.p, "h0 mlx5_0"));
	snprintf(g, sizeof(g), "%" PRIu64, f.nodes[6].guid);
	ck_assert_int_eq(ports(g, false), 0);
	ck_assert_ptr_nonnull(strstr(s.text.p, "h0 mlx5_0"));
	ck_assert_int_eq(ports("h0 mlx5_0", true), 0);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"lid\":7,\"lmc\":0,"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"peer\":{\"node_guid\":"));
	/* the switch by node GUID, written long */
	snprintf(g, sizeof(g), "0x%016" PRIx64, f.nodes[0].guid);
	ck_assert_int_eq(ports(g, true), 0);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"nports\":4}"));

	/* decimal stays decimal: "010" is LID 10 and "08" LID 8, never octal */
	for (int lid = 1; lid <= 12; lid++) {
		char dec[8], padded[8];
		char *a, *b;
		int ra, rb;

		snprintf(dec, sizeof(dec), "%d", lid);
		snprintf(padded, sizeof(padded), "0%d", lid);
		ra = ports(dec, false);
		a = strdup(ra == 0 ? s.text.p : s.err.p);
		rb = ports(padded, false);
		b = strdup(rb == 0 ? s.text.p : s.err.p);
		ck_assert_int_eq(ra, rb);
		if (ra == 0)
			ck_assert_str_eq(a, b);
		free(a);
		free(b);
	}

	ck_assert_int_eq(ports("twin", false), -1);
	ck_assert_ptr_nonnull(strstr(s.err.p, "2 nodes are named 'twin'"));
	ck_assert_int_eq(ports("nosuch", false), -1);
	ck_assert_int_eq(ports("0", false), -1);
	ck_assert_ptr_nonnull(strstr(s.err.p, "not a unicast LID"));
	ck_assert_int_eq(ports("0xc000", false), -1);
	ck_assert_int_eq(ports("99", false), -1);
	ck_assert_ptr_nonnull(strstr(s.err.p, "no port has LID 99"));
	ck_assert_int_eq(ports("0x00000000000000ff", false), -1);
	ck_assert_ptr_nonnull(strstr(s.err.p, "no node or port has GUID"));
	ck_assert_int_eq(ports("99999999999999999999999", false), -1);
	ck_assert_int_eq(ports("", false), -1);
	ck_assert_int_eq(ports("\x1b[2J", false), -1);
	ck_assert_ptr_nonnull(strstr(s.err.p, "'?[2J'"));
}
END_TEST

START_TEST(test_nodes)
{
	show_init(&s, false);
	show_nodes(&s, &f);
	ck_assert_uint_eq(lines(s.text.p), f.nnodes + 1);
	ck_assert(strncmp(s.text.p, "TYPE ", 5) == 0);
	show_fini(&s);
	show_init(&s, true);
	show_nodes(&s, &f);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"type\":\"switch\",\"desc\":"
	    "null,\"nports\":4,\"linked\":4,\"endports\":[{\"port\":0,"));
}
END_TEST

START_TEST(test_status)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "none",
	    .last_why = "" };
	struct show_counter c = { "Get", "NodeInfo", { 5, 4, 1, 0 } };
	struct route_report rep = { .engine = "minhop", .lids = 14,
	    .deadlock_free = -1 };
	struct show_status st = { .version = "0", .sm_state = "MASTER",
	    .log_level = "info", .sweep = &sw, .counters = &c,
	    .ncounters = 1 };

	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"fabric\":null"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"routing\":null"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"attribute\":\"NodeInfo\","
	    "\"sent\":5,\"recv\":4,\"timeout\":1,\"error\":0"));
	show_fini(&s);

	st.fabric = &f;
	st.report = &rep;
	rep.hops[0] = 6;
	rep.hops[2] = 9;
	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"fabric\":{\"nodes\":14,"
	    "\"switches\":6,\"cas\":8,\"routers\":0,\"lids\":14,\"links\":16}"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"deadlock_free\":null"));
	show_fini(&s);

	show_init(&s, false);
	show_status(&s, &st);
	ck_assert_ptr_nonnull(strstr(s.text.p, "SM state "));
	ck_assert_ptr_nonnull(strstr(s.text.p, "14 nodes: 6 switches, 8 CAs"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "0:6 1:0 2:9\n"));
	ck_assert_ptr_nonnull(strstr(s.text.p,
	    "\nGet     NodeInfo      5     4        1      0\n"));
}
END_TEST

/* This SM's state machine and the other SMs it sees. */
START_TEST(test_status_sm)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "none",
	    .last_why = "" };
	struct smstate_peer peers[2] = {
		{ .guid = 0x100001, .lid = 1, .priority = 12,
		  .state = SM_MASTER, .state_name = "MASTER", .answered = true,
		  .trusted = true, .target = true, .last_answer = 0.25 },
		{ .guid = 0x100035, .lid = 9, .priority = 3,
		  .state = SM_STANDBY, .state_name = "STANDBY",
		  .last_answer = -1, .misses = 4 },
	};
	struct smstate_status sm = { .state = "STANDBY",
	    .sm_state = SM_STANDBY, .priority = 5, .key_set = true,
	    .poll_interval = 10, .poll_retries = 4, .misses = 1,
	    .master_guid = 0x100001, .handovers_taken = 2, .transitions = 7,
	    .npeers = 2, .peers = peers };
	struct sminfo_counters ic = { .gets = 3, .sets = 1, .refused = 2,
	    .bad_key = 6 };
	struct show_status st = { .version = "0", .sm_state = "STANDBY",
	    .sm = &sm, .sminfo = &ic, .priority = 5, .log_level = "info",
	    .sweep = &sw };

	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"sm_state\":\"STANDBY\""));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"master_guid\":"
	    "\"0x0000000000100001\""));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"sminfo\":{\"gets\":3,"
	    "\"sets\":1,\"refused\":2,\"bad_key\":6}"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "{\"guid\":\"0x0000000000100001\","
	    "\"lid\":1,\"priority\":12,\"state\":\"MASTER\","
	    "\"sm_key_match\":true,\"polled\":true,"
	    "\"last_answer_seconds\":0.25,\"misses\":0}"));
	/* never answered: no state, no time */
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"state\":null,"
	    "\"sm_key_match\":false,\"polled\":false,"
	    "\"last_answer_seconds\":null,\"misses\":4}"));
	show_fini(&s);

	show_init(&s, false);
	show_status(&s, &st);
	ck_assert_ptr_nonnull(strstr(s.text.p, "STANDBY (priority 5"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "0x0000000000100001 every 10.0 s, "
	    "1 of 4 polls missed"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "0 sent, 2 taken; 7 state changes"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "6 with a wrong SM_Key"));
	ck_assert_msg(strstr(s.text.p, "0x0000000000100001 *    1    12  "
	    "MASTER  match     0.2 s ago       0\n") != NULL, "%s", s.text.p);
	ck_assert_msg(strstr(s.text.p, "0x0000000000100035      9     3  "
	    "-       other         never       4\n") != NULL, "%s", s.text.p);
}
END_TEST

START_TEST(test_clean)
{
	char buf[16];

	ck_assert_str_eq(show_clean("", buf, sizeof(buf)), "-");
	ck_assert_str_eq(show_clean("leaf0", buf, sizeof(buf)), "leaf0");
	ck_assert_str_eq(show_clean("a\tb\x7f\x1b", buf, sizeof(buf)),
	    "a?b??");
	ck_assert_str_eq(show_clean("caf\xc3\xa9", buf, sizeof(buf)),
	    "caf\xc3\xa9");
	ck_assert_str_eq(show_clean("\xc3(\x9b", buf, sizeof(buf)), "?(?");
	/* cut to fit, never in the middle of a character */
	ck_assert_uint_lt(strlen(show_clean("0123456789abcdefghij", buf,
	    sizeof(buf))), sizeof(buf));
	ck_assert_uint_lt(strlen(show_clean("\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", buf,
	    sizeof(buf))) % 3, 1);
}
END_TEST

/* ibsmctl services and subscriptions: a row each, text and JSON. */
START_TEST(test_sa_lists)
{
	struct sa_service_info sv[2] = {
		{ .id = 0x10000ce1, .pkey = 0xFFFF, .lease = 0xFFFFFFFF,
		    .remaining = -1, .name = "svc-a" },
		{ .id = 2, .pkey = 0x8001, .lease = 60, .remaining = 42.2,
		    .name = "bad\x01name" },
	};
	struct sa_subscription_info sb = {
		.enumv = 1, .lid = 15, .qpn = 1, .reports_sent = 3,
		.reports_acked = 2, .reports_failed = 1,
		.ii = { .lid_begin = 0xFFFF, .is_generic = 1, .type = 0xFFFF,
		    .trap = 65, .producer = 0xFFFFFF },
	};
	struct show s;

	sv[0].gid[0] = 0xFE;
	sv[0].gid[1] = 0x80;
	sv[0].gid[15] = 0x10;
	sb.subscriber_gid[0] = 0xFE;
	sb.subscriber_gid[1] = 0x80;
	sb.subscriber_gid[15] = 0x11;
	show_init(&s, false);
	show_services(&s, sv, 2);
	ck_assert_ptr_nonnull(strstr(s.text.p, "0x0000000010000ce1  fe80::10"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "infinite"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "  42  bad?name\n"));
	show_fini(&s);
	show_init(&s, true);
	show_services(&s, sv, 1);
	ck_assert_str_eq(s.j.buf, "{\"services\":[{\"id\":\"0x0000000010000ce1\","
	    "\"gid\":\"fe80::10\",\"pkey\":65535,\"lease\":null,"
	    "\"remaining\":null,\"name\":\"svc-a\"}]}");
	show_fini(&s);
	show_init(&s, false);
	show_subscriptions(&s, &sb, 1);
	ck_assert_ptr_nonnull(strstr(s.text.p, "SUBSCRIBER  ENUM  LID  QPN  TRAP"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "\nfe80::11 "));
	ck_assert_ptr_nonnull(strstr(s.text.p, " 15    1    65   any  all "));
	ck_assert_ptr_nonnull(strstr(s.text.p, " 3      2       1\n"));
	show_fini(&s);
	show_init(&s, true);
	show_subscriptions(&s, &sb, 1);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"subscriber\":\"fe80::11\","
	    "\"enum\":1,\"lid\":15,\"qpn\":1,\"generic\":true,"
	    "\"type\":65535,\"trap\":65,"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"watches\":\"all\","
	    "\"reports_sent\":3,\"reports_acked\":2,\"reports_failed\":1}"));
	show_fini(&s);
	show_init(&s, false);
	show_subscriptions(&s, NULL, 0);
	ck_assert_str_eq(s.text.p, "no subscriptions\n");
	show_fini(&s);
}
END_TEST

static Suite *
show_suite(void)
{
	Suite *su = suite_create("show");
	TCase *tc = tcase_create("show");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_time_and_duration);
	tcase_add_test(tc, test_route_all_pairs);
	tcase_add_test(tc, test_route_switches);
	tcase_add_test(tc, test_route_text);
	tcase_add_test(tc, test_route_json_path);
	tcase_add_test(tc, test_route_broken);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_nodes);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_clean);
	tcase_add_test(tc, test_status_sm);
	tcase_add_test(tc, test_sa_lists);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr = srunner_create(show_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
