/*
 * partitions/qos: the qos-policy.conf grammar over the corpus in
 * tests/qos (valid files against their golden -nv text, which must read
 * back to itself; invalid ones against the exact errors), and the
 * resolution of requests to levels as OpenSM's osm_qos_policy.c does.
 *
 * The corpus is found under $TOP_SRCDIR, else $srcdir, else "..".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"
#include "tests/unit/testfile.h"

/* The partitions every test parses against. */
static const char parts_text[] =
    "Default=0x7fff : ALL=full;\n"
    "Part1=0x0001 : ALL;\n"
    "Part2=0x1234 : 0x0002c90300000001=full;\n"
    "Store=0x0abc : ALL;\n";

static struct pkey_policy *parts;

static void
setup(void)
{
	struct pkey_errors e;

	pkey_errors_init(&e);
	parts = pkey_policy_parse("p.conf", parts_text, strlen(parts_text),
	    &e);
	ck_assert_ptr_nonnull(parts);
	pkey_errors_fini(&e);
}

static void
teardown(void)
{
	pkey_policy_free(parts);
}

static struct qos_policy *
parse(const char *text, char **msgs)
{
	struct pkey_errors e;
	struct qos_policy *p;

	pkey_errors_init(&e);
	p = qos_policy_parse("t.conf", text, strlen(text), parts, &e);
	if (msgs != NULL)
		*msgs = pkey_errors_text(&e, true);
	pkey_errors_fini(&e);
	return p;
}

static struct qos_policy *
parse_ok(const char *text)
{
	char *msgs;
	struct qos_policy *p = parse(text, &msgs);

	ck_assert_msg(p != NULL, "does not parse:\n%s", msgs);
	free(msgs);
	return p;
}

/* ---- the corpus ---------------------------------------------------------- */

static void
check_valid(const char *dir, const char *name)
{
	char path[4200], *text, *golden, *nv, *nv2, *msgs;
	struct pkey_errors e;
	struct qos_policy *p, *p2;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = test_slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	pkey_errors_init(&e);
	p = qos_policy_parse(name, text, len, parts, &e);
	msgs = pkey_errors_text(&e, false);
	ck_assert_msg(p != NULL, "%s does not parse:\n%s", name, msgs);
	free(msgs);
	pkey_errors_fini(&e);

	snprintf(path + strlen(path) - 5, 8, ".nv");
	golden = test_slurp(path, NULL);
	nv = qos_policy_format(p, NULL, 0);
	ck_assert_msg(golden != NULL, "no golden %s; -nv is:\n%s", path, nv);
	ck_assert_msg(strcmp(nv, golden) == 0, "%s: -nv differs from %s:\n%s",
	    name, path, nv);

	/* the normalized text reads back to itself */
	p2 = parse(nv, &msgs);
	ck_assert_msg(p2 != NULL, "%s: -nv does not parse:\n%s", name, msgs);
	free(msgs);
	nv2 = qos_policy_format(p2, NULL, 0);
	ck_assert_msg(strcmp(nv, nv2) == 0, "%s: -nv not stable:\n%s", name,
	    nv2);
	free(nv2);
	qos_policy_free(p2);
	free(nv);
	free(golden);
	free(text);
	qos_policy_free(p);
}

static void
check_invalid(const char *dir, const char *name)
{
	char path[4200], *text, *want, *got;
	struct pkey_errors e;
	struct qos_policy *p;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = test_slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	pkey_errors_init(&e);
	p = qos_policy_parse(name, text, len, parts, &e);
	ck_assert_msg(p == NULL, "%s parsed", name);
	ck_assert_uint_gt(e.nerrors, 0);
	got = pkey_errors_text(&e, false);
	snprintf(path + strlen(path) - 5, 8, ".err");
	want = test_slurp(path, NULL);
	ck_assert_msg(want != NULL, "no %s; errors are:\n%s", path, got);
	ck_assert_msg(strcmp(got, want) == 0, "%s: errors differ.\nwant:\n%s"
	    "got:\n%s", name, want, got);
	free(got);
	free(want);
	free(text);
	pkey_errors_fini(&e);
}

START_TEST(test_corpus_valid)
{
	ck_assert_uint_ge(test_corpus("qos", "valid", check_valid), 5);
}
END_TEST

START_TEST(test_corpus_invalid)
{
	ck_assert_uint_ge(test_corpus("qos", "invalid", check_invalid), 6);
}
END_TEST

/* ---- grammar ------------------------------------------------------------- */

START_TEST(test_every_error_at_once)
{
	char *msgs;
	struct qos_policy *p = parse(
	    "qos-levels\n"
	    "  qos-level\n"
	    "    name: DEFAULT\n"
	    "    sl: 99\n"
	    "    mtu-limit: 0\n"
	    "  end-qos-level\n"
	    "end-qos-levels\n"
	    "bogus\n", &msgs);

	ck_assert_ptr_null(p);
	ck_assert_str_eq(msgs,
	    "t.conf:4:9: bad sl '99': expected 0 to 15\n"
	    "t.conf:5:16: bad mtu-limit '0': expected 1 to 5\n"
	    "t.conf:8:1: unexpected 'bogus'\n");
	free(msgs);
}
END_TEST

START_TEST(test_setup_note)
{
	char *msgs;
	struct qos_policy *p = parse(
	    "qos-setup\n  sl2vl-tables\n  end-sl2vl-tables\nend-qos-setup\n"
	    "qos-ulps\n  default : 1\nend-qos-ulps\n", &msgs);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(msgs, "t.conf:1:1: note: qos-setup: "
	    "read and ignored"));
	free(msgs);
	qos_policy_free(p);
}
END_TEST

START_TEST(test_unknown_pkey_warns)
{
	char *msgs;
	struct qos_policy *p = parse(
	    "qos-ulps\n  default : 1\n  any, pkey 0x0777 : 2\nend-qos-ulps\n",
	    &msgs);

	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(msgs, "t.conf:3:13: warning: pkey 0x0777: no "
	    "partition has it\n");
	free(msgs);
	qos_policy_free(p);
}
END_TEST

/* ---- resolution ------------------------------------------------------------ */

#define G(x)    (0x0002c90300000000ULL + (x))

/* the test's ports: odd GUIDs hold 0x0abc too (one full, one limited) */
static const uint16_t keys_odd[] = { 0xffff, 0, 0x0abc };
static const uint16_t keys_even[] = { 0xffff, 0, 0 };

static struct qos_port
port(uint64_t guid, uint8_t type, const char *desc)
{
	return (struct qos_port){ .guid = guid, .node_type = type, .num = 1,
	    .desc = desc, .keys = (guid & 1) ? keys_odd : keys_even,
	    .nkeys = 3 };
}

static const char rules_text[] =
    "port-groups\n"
    "  port-group\n    name: storage\n    port-guid: 0x0002c90300000010-0x0002c9030000001f\n  end-port-group\n"
    "  port-group\n    name: compute\n    port-name: \"cn1 HCA-1/P1\"\n  end-port-group\n"
    "  port-group\n    name: store-part\n    partition: Store\n  end-port-group\n"
    "  port-group\n    name: sm\n    node-type: SELF\n  end-port-group\n"
    "end-port-groups\n"
    "qos-levels\n"
    "  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\n"
    "  qos-level\n    name: stor\n    sl: 5\n    mtu-limit: 4\n    rate-limit: 3\n    packet-life: 14\n    pkey: 0x0abc\n  end-qos-level\n"
    "  qos-level\n    name: cls\n    sl: 9\n  end-qos-level\n"
    "  qos-level\n    name: mgmt\n    sl: 12\n  end-qos-level\n"
    "  qos-level\n    name: pair\n    sl: 13\n  end-qos-level\n"
    "end-qos-levels\n"
    "qos-match-rules\n"
    "  qos-match-rule\n    qos-class: 7-9\n    qos-level-name: cls\n  end-qos-match-rule\n"
    "  qos-match-rule\n    source: compute\n    destination: storage\n    qos-level-name: pair\n  end-qos-match-rule\n"
    "  qos-match-rule\n    destination: storage\n    service-id: 0x100-0x1ff\n    qos-level-name: stor\n  end-qos-match-rule\n"
    "  qos-match-rule\n    source: sm\n    qos-level-name: mgmt\n  end-qos-match-rule\n"
    "  qos-match-rule\n    destination: store-part\n    pkey: 0x0abc\n    qos-level-name: stor\n  end-qos-match-rule\n"
    "end-qos-match-rules\n"
    "qos-ulps\n"
    "  default : 2\n"
    "  sdp : 3\n"
    "  rds : 4\n"
    "  iser, port-num 900 : 6\n"
    "  ipoib : 7\n"
    "  srp, target-port-guid 0x0002c90300000042 : 8\n"
    "  any, source-target-port-guid 0x0002c90300000050-0x0002c90300000051 : 10\n"
    "end-qos-ulps\n";

static uint8_t
sl_of(const struct qos_policy *p, const struct qos_port *s,
    const struct qos_port *d, unsigned given, uint64_t sid, uint16_t pkey,
    uint16_t cls)
{
	struct qos_query q = { .given = given, .service_id = sid, .pkey = pkey,
	    .qos_class = cls, .src = s, .dst = d };
	const struct qos_level *l = qos_policy_match(p, &q);

	ck_assert_ptr_nonnull(l);
	ck_assert(l->set & QOS_LF_SL);
	return l->sl;
}

/* A port group by P_Key: the membership bit ignored on both sides, a
 * range, and a port whose table is empty (it holds every key, as the SA
 * scopes it) or that has none. */
START_TEST(test_group_pkeys)
{
	static const char text[] =
	    "port-groups\n"
	    "  port-group\n    name: full\n    pkey: 0x8abc\n  end-port-group\n"
	    "  port-group\n    name: wide\n    pkey: 0x0100-0x7ffe\n  end-port-group\n"
	    "end-port-groups\n"
	    "qos-levels\n"
	    "  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\n"
	    "  qos-level\n    name: a\n    sl: 3\n  end-qos-level\n"
	    "  qos-level\n    name: b\n    sl: 4\n  end-qos-level\n"
	    "end-qos-levels\n"
	    "qos-match-rules\n"
	    "  qos-match-rule\n    destination: full\n    qos-level-name: a\n  end-qos-match-rule\n"
	    "  qos-match-rule\n    destination: wide\n    qos-level-name: b\n  end-qos-match-rule\n"
	    "end-qos-match-rules\n";
	static const uint16_t limited_abc[] = { 0x0abc }, only_def[] = { 0xffff },
	    mid[] = { 0, 0x0200 }, empty[] = { 0, 0 };
	struct qos_policy *p = parse_ok(text);
	struct qos_port src = port(G(2), NODE_CA, "s");
	struct qos_port d = port(G(4), NODE_CA, "d");

	d.keys = limited_abc;           /* 0x0abc limited: in "full" too */
	d.nkeys = 1;
	ck_assert_uint_eq(sl_of(p, &src, &d, 0, 0, 0, 0), 3);
	d.keys = mid;                   /* 0x0200: in "wide" only */
	d.nkeys = 2;
	ck_assert_uint_eq(sl_of(p, &src, &d, 0, 0, 0, 0), 4);
	d.keys = only_def;              /* 0x7fff: in neither */
	d.nkeys = 1;
	ck_assert_uint_eq(sl_of(p, &src, &d, 0, 0, 0, 0), 1);
	d.keys = empty;                 /* an empty table: every key */
	d.nkeys = 2;
	d.all_keys = true;
	ck_assert_uint_eq(sl_of(p, &src, &d, 0, 0, 0, 0), 3);
	d.keys = NULL;                  /* no table: no key */
	d.nkeys = 0;
	d.all_keys = false;
	ck_assert_uint_eq(sl_of(p, &src, &d, 0, 0, 0, 0), 1);
	qos_policy_free(p);
}
END_TEST

START_TEST(test_match_order)
{
	struct qos_policy *p = parse_ok(rules_text);
	struct qos_port ca = port(G(2), NODE_CA, "cn2 HCA-1");
	struct qos_port cn1 = port(G(4), NODE_CA, "cn1 HCA-1");
	struct qos_port st = port(G(0x12), NODE_CA, "st HCA-1");
	struct qos_port st_odd = port(G(0x13), NODE_CA, "st HCA-1");
	struct qos_port sm = port(G(1), NODE_CA, "sm HCA-1");
	struct qos_port srp = port(G(0x42), NODE_CA, "srp");
	struct qos_port a = port(G(0x50), NODE_CA, "a"), b = port(G(0x51),
	    NODE_CA, "b");

	sm.self = true;
	/* nothing given, no group: the DEFAULT qos-level wins over the
	 * qos-ulps default */
	ck_assert_uint_eq(sl_of(p, &ca, &ca, 0, 0, 0, 0), 1);
	/* a QoS class criterion needs the component */
	ck_assert_uint_eq(sl_of(p, &ca, &ca, 0, 0, 0, 8), 1);
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_QOS_CLASS, 0, 0, 8), 9);
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_QOS_CLASS, 0, 0, 10), 1);
	/* source and destination both in their groups */
	ck_assert_uint_eq(sl_of(p, &cn1, &st, 0, 0, 0, 0), 13);
	ck_assert_uint_eq(sl_of(p, &st, &cn1, 0, 0, 0, 0), 1);
	/* first match wins: class before pair */
	ck_assert_uint_eq(sl_of(p, &cn1, &st, QOS_Q_QOS_CLASS, 0, 0, 7), 9);
	/* destination group and service ID */
	ck_assert_uint_eq(sl_of(p, &ca, &st, QOS_Q_SERVICE_ID, 0x150, 0, 0),
	    5);
	ck_assert_uint_eq(sl_of(p, &ca, &st, QOS_Q_SERVICE_ID, 0x250, 0, 0),
	    1);
	/* node-type SELF */
	ck_assert_uint_eq(sl_of(p, &sm, &ca, 0, 0, 0, 0), 12);
	/* a partition group: the port must hold the P_Key */
	ck_assert_uint_eq(sl_of(p, &ca, &st_odd, QOS_Q_PKEY, 0, 0x8abc, 0), 5);
	ck_assert_uint_eq(sl_of(p, &ca, &st, QOS_Q_PKEY, 0, 0x8abc, 0), 1);
	/* the ULPs come after every match rule */
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_SERVICE_ID, 0x1abcd, 0, 0),
	    3);
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_SERVICE_ID,
	    QOS_RDS_SERVICE_ID + QOS_RDS_PORT, 0, 0), 4);
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_SERVICE_ID,
	    QOS_ISER_SERVICE_ID + 900, 0, 0), 6);
	ck_assert_uint_eq(sl_of(p, &ca, &ca, QOS_Q_PKEY, 0, 0xffff, 0), 7);
	ck_assert_uint_eq(sl_of(p, &ca, &srp, 0, 0, 0, 0), 8);
	ck_assert_uint_eq(sl_of(p, &srp, &ca, 0, 0, 0, 0), 1);
	/* source-target: both ends in the GUIDs, as OpenSM's code */
	ck_assert_uint_eq(sl_of(p, &a, &b, 0, 0, 0, 0), 10);
	ck_assert_uint_eq(sl_of(p, &a, &ca, 0, 0, 0, 0), 1);
	/* no port pair (multicast): rules with groups never match */
	ck_assert_uint_eq(sl_of(p, NULL, NULL, QOS_Q_PKEY, 0, 0x7fff, 0), 7);
	qos_policy_free(p);
}
END_TEST

START_TEST(test_level_fields)
{
	struct qos_policy *p = parse_ok(rules_text);
	struct qos_port ca = port(G(2), NODE_CA, "x");
	struct qos_port st = port(G(0x12), NODE_CA, "st");
	struct qos_query q = { .given = QOS_Q_SERVICE_ID, .service_id = 0x100,
	    .src = &ca, .dst = &st };
	const struct qos_level *l = qos_policy_match(p, &q);
	uint16_t k;

	ck_assert_str_eq(l->name, "stor");
	ck_assert_uint_eq(l->set, QOS_LF_SL | QOS_LF_MTU | QOS_LF_RATE |
	    QOS_LF_LIFE);
	ck_assert_uint_eq(l->mtu, 4);
	ck_assert_uint_eq(l->rate, 3);
	ck_assert_uint_eq(l->life, 14);
	ck_assert(qos_level_has_pkey(l, 0x8abc));
	ck_assert(!qos_level_has_pkey(l, 0x7fff));
	ck_assert(qos_level_pkey_at(l, 0, &k));
	ck_assert_uint_eq(k, 0x0abc);
	ck_assert(!qos_level_pkey_at(l, 1, &k));
	ck_assert_uint_eq(qos_policy_groups(p), 4);
	ck_assert_uint_eq(qos_policy_levels(p), 5);
	ck_assert_uint_eq(qos_policy_rules(p), 12);
	qos_policy_free(p);
}
END_TEST

START_TEST(test_ulp_default_only)
{
	struct qos_policy *p = parse_ok("qos-ulps\n default : 6\n"
	    "end-qos-ulps\n");

	ck_assert_uint_eq(sl_of(p, NULL, NULL, 0, 0, 0, 0), 6);
	qos_policy_free(p);
}
END_TEST

START_TEST(test_format_counts_ports)
{
	struct qos_policy *p = parse_ok(rules_text);
	struct qos_port ports[3] = { port(G(0x11), NODE_CA, "a"),
	    port(G(0x12), NODE_CA, "b"), port(G(4), NODE_CA, "cn1 HCA-1") };
	char *nv = qos_policy_format(p, ports, 3);

	ck_assert_ptr_nonnull(strstr(nv, "# storage: 2 of 3 end ports\n"));
	ck_assert_ptr_nonnull(strstr(nv, "# compute: 1 of 3 end ports\n"));
	ck_assert_ptr_nonnull(strstr(nv, "# store-part: 1 of 3 end ports\n"));
	free(nv);
	qos_policy_free(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("qos");
	TCase *g = tcase_create("grammar"), *r = tcase_create("resolution");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(g, setup, teardown);
	tcase_add_checked_fixture(r, setup, teardown);
	tcase_add_test(g, test_corpus_valid);
	tcase_add_test(g, test_corpus_invalid);
	tcase_add_test(g, test_every_error_at_once);
	tcase_add_test(g, test_setup_note);
	tcase_add_test(g, test_unknown_pkey_warns);
	tcase_add_test(r, test_match_order);
	tcase_add_test(r, test_group_pkeys);
	tcase_add_test(r, test_level_fields);
	tcase_add_test(r, test_ulp_default_only);
	tcase_add_test(r, test_format_counts_ports);
	suite_add_tcase(s, g);
	suite_add_tcase(s, r);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
