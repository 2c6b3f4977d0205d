/*
 * partitions/: the grammar over the corpus in tests/partitions (valid files
 * against their golden -nv text, invalid ones against the exact errors),
 * and the P_Key tables on fabrics built in memory.
 *
 * The corpus is found under $TOP_SRCDIR, else $srcdir, else "..".
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/partitions.h"
#include "tests/unit/testfile.h"

#define G(x)    (0x0002c90300000000ULL + (x))

/* ---- helpers ---------------------------------------------------------- */

static struct pkey_policy *
parse_ok(const char *text)
{
	struct pkey_errors e;
	struct pkey_policy *p;
	char *msgs;

	pkey_errors_init(&e);
	p = pkey_policy_parse("t.conf", text, strlen(text), &e);
	msgs = pkey_errors_text(&e, false);
	ck_assert_msg(p != NULL, "parse failed:\n%s", msgs);
	free(msgs);
	pkey_errors_fini(&e);
	return p;
}

/* The errors of a text that must not parse, one per line. */
static char *
parse_errors(const char *text)
{
	struct pkey_errors e;
	struct pkey_policy *p;
	char *msgs;

	pkey_errors_init(&e);
	p = pkey_policy_parse("t.conf", text, strlen(text), &e);
	ck_assert_ptr_null(p);
	msgs = pkey_errors_text(&e, false);
	pkey_errors_fini(&e);
	return msgs;
}

static char *
strip_comments(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	while (*s != '\0') {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s + 1) : strlen(s);

		if (*s != '#') {
			memcpy(o, s, n);
			o += n;
		}
		s += n;
	}
	*o = '\0';
	return out;
}

/* A node with its ports; CA and router ports present, GUID guid + i. */
static uint32_t
node(struct fabric *f, uint8_t type, uint8_t nports, uint64_t guid,
    const char *desc, uint16_t cap, uint8_t enforce)
{
	uint32_t n = fabric_add_node(f, type, nports, guid, NULL);

	f->nodes[n].partition_cap = cap;
	f->nodes[n].enforce_cap = enforce;
	if (desc != NULL) {
		snprintf(f->nodes[n].desc, sizeof(f->nodes[n].desc), "%s", desc);
		f->nodes[n].desc_valid = 1;
	}
	for (uint8_t i = 1; type != NODE_SWITCH && i <= nports; i++) {
		uint32_t p = fabric_port_idx(f, n, i);

		f->ports[p].present = 1;
		f->ports[p].guid = guid + i;
	}
	return n;
}

static void
cable(struct fabric *f, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb)
{
	fabric_link(f, fabric_port_idx(f, a, pa), fabric_port_idx(f, b, pb));
}

/*
 * The test fabric: switch S (GUID G(0x100), 8 ports, PartitionCap 8,
 * enforcement cap 4); CAs h1 (port GUID G(0x11)), h2 (G(0x21)), h3 (G(0x31)),
 * each one port with PartitionCap 8 and desc "hN HCA-1", on S ports 1-3;
 * router R (G(0x91)) on port 4; the SM on h1.
 */
struct tfab {
	struct fabric f;
	uint32_t s, h1, h2, h3, r;
};

static void
tfab_init(struct tfab *t)
{
	fabric_init(&t->f);
	t->s = node(&t->f, NODE_SWITCH, 8, G(0x100), "spine S", 8, 4);
	t->h1 = node(&t->f, NODE_CA, 1, G(0x10), "h1 HCA-1", 8, 0);
	t->h2 = node(&t->f, NODE_CA, 1, G(0x20), "h2 HCA-1", 8, 0);
	t->h3 = node(&t->f, NODE_CA, 1, G(0x30), "h3 HCA-1", 8, 0);
	t->r = node(&t->f, NODE_ROUTER, 1, G(0x90), "router R", 8, 0);
	cable(&t->f, t->s, 1, t->h1, 1);
	cable(&t->f, t->s, 2, t->h2, 1);
	cable(&t->f, t->s, 3, t->h3, 1);
	cable(&t->f, t->s, 4, t->r, 1);
	t->f.sm_port = fabric_port_idx(&t->f, t->h1, 1);
}

/* Notes collected for assertions. */
struct notes {
	char text[8192];
	int info, warn;
};

static void
collect(void *arg, enum pkey_note_level level, const char *msg)
{
	struct notes *n = arg;
	size_t len = strlen(n->text);

	if (level == PKEY_NOTE_INFO)
		n->info++;
	else
		n->warn++;
	snprintf(n->text + len, sizeof(n->text) - len, "%s\n", msg);
}

static struct pkey_tables
build(const struct pkey_policy *p, const struct fabric *f,
    const struct pkey_tables *prev, bool both, struct notes *n)
{
	struct pkey_opts o = { .allow_both = both };
	struct pkey_tables t;

	if (n != NULL)
		memset(n, 0, sizeof(*n));
	pkey_tables_build(p, f, prev, &o, &t, n ? collect : NULL, n);
	return t;
}

static const uint16_t *
keys_of(const struct pkey_tables *t, uint64_t guid, uint8_t num)
{
	const struct pkey_table *x = pkey_tables_find(t, guid, num);

	ck_assert_msg(x != NULL, "no table for 0x%llx port %u",
	    (unsigned long long)guid, num);
	return x->keys;
}

/* Index of key in the table of (guid, num), -1 if absent. */
static int
index_of(const struct pkey_tables *t, uint64_t guid, uint8_t num, uint16_t key)
{
	const struct pkey_table *x = pkey_tables_find(t, guid, num);

	ck_assert_ptr_nonnull(x);
	for (int i = 0; i < x->cap; i++)
		if (x->keys[i] == key)
			return i;
	return -1;
}

/* ---- the corpus ------------------------------------------------------- */

static void
check_valid(const char *dir, const char *name)
{
	char path[4200], *text, *golden, *nv, *nv2, *a, *b;
	struct pkey_errors e;
	struct pkey_policy *p, *p2;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = test_slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	pkey_errors_init(&e);
	p = pkey_policy_parse(name, text, len, &e);
	nv = pkey_errors_text(&e, false);
	ck_assert_msg(p != NULL, "%s does not parse:\n%s", name, nv);
	free(nv);
	pkey_errors_fini(&e);

	snprintf(path + strlen(path) - 5, 8, ".nv");
	golden = test_slurp(path, NULL);
	ck_assert_msg(golden != NULL, "no golden %s", path);
	nv = pkey_policy_format(p, NULL);
	ck_assert_msg(strcmp(nv, golden) == 0, "%s: -nv differs from %s:\n%s",
	    name, path, nv);

	/* the normalized text reads back to the same policy */
	pkey_errors_init(&e);
	p2 = pkey_policy_parse("nv", nv, strlen(nv), &e);
	ck_assert_msg(p2 != NULL, "%s: -nv text does not parse", name);
	nv2 = pkey_policy_format(p2, NULL);
	a = strip_comments(nv);
	b = strip_comments(nv2);
	ck_assert_msg(strcmp(a, b) == 0, "%s: -nv not stable:\n%s\n%s", name,
	    a, b);
	free(a);
	free(b);
	free(nv2);
	pkey_policy_free(p2);
	pkey_errors_fini(&e);
	free(nv);
	free(golden);
	free(text);
	pkey_policy_free(p);
}

static void
check_invalid(const char *dir, const char *name)
{
	char path[4200], *text, *want, *got;
	struct pkey_errors e;
	struct pkey_policy *p;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = test_slurp(path, &len);
	ck_assert_ptr_nonnull(text);
	pkey_errors_init(&e);
	p = pkey_policy_parse(name, text, len, &e);
	ck_assert_msg(p == NULL, "%s parsed", name);
	ck_assert_uint_gt(e.nerrors, 0);
	got = pkey_errors_text(&e, false);
	snprintf(path + strlen(path) - 5, 8, ".err");
	want = test_slurp(path, NULL);
	ck_assert_msg(want != NULL, "no %s", path);
	ck_assert_msg(strcmp(got, want) == 0, "%s: errors differ.\nwant:\n%s"
	    "got:\n%s", name, want, got);
	free(got);
	free(want);
	free(text);
	pkey_errors_fini(&e);
}

START_TEST(test_corpus_valid)
{
	ck_assert_uint_ge(test_corpus("partitions", "valid", check_valid), 15);
}
END_TEST

START_TEST(test_corpus_invalid)
{
	ck_assert_uint_ge(test_corpus("partitions", "invalid", check_invalid), 15);
}
END_TEST

static void
count(const char *dir, const char *name)
{
	(void)dir;
	(void)name;
}

START_TEST(test_corpus_size)
{
	ck_assert_uint_ge(test_corpus("partitions", "valid", count) + test_corpus("partitions", "invalid", count), 30);
}
END_TEST

/* ---- grammar ------------------------------------------------------------ */

START_TEST(test_seed_examples)
{
	struct pkey_policy *p;
	const struct pkey_partition *d;

	p = parse_ok("management=0x7fff,ipoib, sl=0, defmember=full : ALL, "
	    "ALL_SWITCHES=full,SELF=full;");
	d = pkey_policy_find(p, 0x7fff);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->name, "management");
	ck_assert(d->ipoib);
	ck_assert_uint_eq(pkey_policy_count(p), 1);
	pkey_policy_free(p);

	p = parse_ok("Default=0x7fff, ipoib, rate=3, mtu=4, scope=2: "
	    "mgid=ff12:401b::ffff:ffff # IPv4 Broadcast\n"
	    "  mgid=ff12:601b::1 # IPv6 all hosts\n"
	    "  ALL=full, ALL_SWITCHES=full;\n");
	d = pkey_policy_find(p, 0x7fff);
	ck_assert_uint_eq(d->nmgroups, 2);
	ck_assert_uint_eq(d->flags.rate, 3);
	ck_assert_uint_eq(d->flags.mtu, 4);
	/* the IPoIB P_Key is filled into bytes 4-5, full member */
	ck_assert_uint_eq(d->mgroups[0].mgid[4], 0xff);
	ck_assert_uint_eq(d->mgroups[0].mgid[5], 0xff);
	ck_assert(d->mgroups[0].ip);
	ck_assert_uint_eq(d->mgroups[0].flags.qkey, 0x0b1b);
	ck_assert_uint_eq(d->mgroups[0].flags.scope_mask, 1u << 2);
	pkey_policy_free(p);
}
END_TEST

START_TEST(test_error_format)
{
	struct pkey_errors e;
	char buf[256], *all;
	const char *text = "x=0x10, bogus : ALL;\nnoname : ALL;\n";

	pkey_errors_init(&e);
	ck_assert_ptr_null(pkey_policy_parse("/etc/p.conf", text, strlen(text),
	    &e));
	ck_assert_uint_eq(e.nerrors, 1);
	ck_assert_uint_eq(e.n, 2);      /* and the note of a generated P_Key */
	pkey_msg_format(&e, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/etc/p.conf:1:9: unknown partition flag 'bogus'");
	pkey_msg_format(&e, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/etc/p.conf:2:1: note: partition 'noname' has no "
	    "P_Key: using 0x0001 (write one to keep it stable when the file "
	    "changes)");
	all = pkey_errors_text(&e, true);
	ck_assert_ptr_nonnull(strstr(all, "1:9: unknown"));
	ck_assert_ptr_nonnull(strstr(all, "2:1: note:"));
	free(all);
	pkey_errors_fini(&e);
}
END_TEST

/* No statement at all is no file: everyone a full member of the Default
 * partition (not ALL=limited, which would cut hosts off from each other),
 * with a warning. */
START_TEST(test_no_statement)
{
	static const char *const texts[] = { "", "\n\n", "# only\n  # comments\n",
	    "\r\n\t \r\n" };
	struct pkey_policy *none = pkey_policy_default(), *p;
	struct pkey_errors e;
	char buf[256], *want = pkey_policy_format(none, NULL), *got, *all;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		pkey_errors_init(&e);
		p = pkey_policy_parse("/etc/p.conf", texts[i], strlen(texts[i]),
		    &e);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(e.nerrors, 0);
		ck_assert_uint_eq(e.n, 1);
		ck_assert_int_eq(e.msgs[0].level, PKEY_MSG_WARNING);
		pkey_msg_format(&e, 0, buf, sizeof(buf));
		ck_assert_str_eq(buf, "/etc/p.conf: warning: no partition "
		    "statement: every port is a full member of the Default "
		    "partition (0x7fff), as with no file");
		/* shown with the errors, not only with the notes */
		all = pkey_errors_text(&e, false);
		ck_assert_ptr_nonnull(strstr(all, "warning: no partition"));
		free(all);
		got = pkey_policy_format(p, NULL);
		ck_assert_str_eq(got, want);
		ck_assert_uint_eq(pkey_policy_count(p), 1);
		ck_assert(pkey_policy_get(p, 0)->ipoib);
		free(got);
		pkey_policy_free(p);
		pkey_errors_fini(&e);
	}
	/* one statement without the Default partition: OpenSM's rule */
	pkey_errors_init(&e);
	p = pkey_policy_parse("p", "x=0x10 : ALL;", 13, &e);
	ck_assert_ptr_nonnull(p);
	got = pkey_policy_format(p, NULL);
	ck_assert_ptr_nonnull(strstr(got, "ALL=limited"));
	free(got);
	pkey_policy_free(p);
	pkey_errors_fini(&e);
	free(want);
	pkey_policy_free(none);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "Default=0x7fff : ALL=full;\nx=0x10 : \0;\n";
	struct pkey_errors e;

	pkey_errors_init(&e);
	ck_assert_ptr_null(pkey_policy_parse("b", text, sizeof(text) - 1, &e));
	ck_assert_uint_eq(e.nerrors, 1);
	ck_assert_str_eq(e.msgs[0].text, "NUL byte: not a text file");
	ck_assert_uint_eq(e.msgs[0].line, 2);
	ck_assert_uint_eq(e.msgs[0].col, 10);
	pkey_errors_fini(&e);
}
END_TEST

START_TEST(test_error_positions)
{
	char *m;

	/* the missing ';' is reported just after the last token */
	m = parse_errors("Default=0x7fff : ALL=full   # comment\nx=0x10 : ALL;");
	ck_assert_str_eq(m, "t.conf:1:26: missing ';' at the end of partition "
	    "'Default'\n");
	free(m);
	m = parse_errors("Default=0x7fff : ALL=full;\n\tx = 0x10 : ALL");
	ck_assert_str_eq(m, "t.conf:2:16: missing ';' at the end of partition "
	    "'x'\n");
	free(m);
	/* several errors on one line, in order */
	m = parse_errors("Default=0x7fff, mtu=6, sl=99 : 0x0=full, ALL=ful;");
	ck_assert_str_eq(m,
	    "t.conf:1:21: bad mtu '6': expected an MTU code, 1 (256 bytes) to "
	    "5 (4096 bytes)\n"
	    "t.conf:1:27: bad sl '99': expected 0 to 15\n"
	    "t.conf:1:32: bad GUID '0x0': GUID 0 is invalid\n"
	    "t.conf:1:46: bad membership 'ful': expected full, limited or both "
	    "(did you mean 'full'?)\n");
	free(m);
	/* merge errors come out in file order with the scan errors */
	m = parse_errors("a=0x10 : ALL;\nb=0x11 : bad;\na=0x12 : ALL;\n"
	    "Default=0x7fff:ALL;");
	ck_assert_str_eq(m, "t.conf:2:10: unknown member 'bad' (members are "
	    "port GUIDs, GUID ranges, \"node descriptions\" and ALL, ALL_CAS, "
	    "ALL_SWITCHES, ALL_ROUTERS, SELF, NONE)\n"
	    "t.conf:3:1: partition name 'a' is already used for P_Key 0x0010 "
	    "(line 1)\n");
	free(m);
}
END_TEST

START_TEST(test_default_policies)
{
	struct pkey_policy *p = pkey_policy_default();
	const struct pkey_partition *d = pkey_policy_get(p, 0);
	char *nv;

	ck_assert_uint_eq(pkey_policy_count(p), 1);
	ck_assert_uint_eq(d->pkey, 0x7fff);
	ck_assert(d->implicit && d->ipoib);
	nv = pkey_policy_format(p, NULL);
	ck_assert_ptr_nonnull(strstr(nv, "Default=0x7fff, ipoib :\n\tALL=full;"));
	free(nv);
	pkey_policy_free(p);

	/* a file without the Default partition (an empty one reads as no
	 * file: test_no_statement) */
	p = parse_ok("# no Default\nx=0x10 : ALL;\n");
	d = pkey_policy_find(p, 0x7fff);
	ck_assert(d->implicit && !d->ipoib);
	nv = pkey_policy_format(p, NULL);
	ck_assert_ptr_nonnull(strstr(nv,
	    "Default=0x7fff :\n\tALL=limited,\n\tSELF=full;"));
	free(nv);
	pkey_policy_free(p);
	ck_assert_ptr_null(pkey_policy_find(p = parse_ok("Default:ALL;"),
	    0x10));
	ck_assert(!pkey_policy_find(p, 0x7fff)->implicit);
	pkey_policy_free(p);
}
END_TEST

START_TEST(test_glob)
{
	struct pkey_policy *p;
	struct tfab t;
	struct pkey_tables tb;

	tfab_init(&t);
	p = parse_ok("Default=0x7fff:ALL=full;\n"
	    "a=0x0001 : \"h[12] HCA-?\"=full;\n"
	    "b=0x0002 : \"h[!1]*\";\n"
	    "c=0x0003 : \"*R\", \"spine\\ S\"=full;\n"
	    "d=0x0004 : \"*\";\n");
	tb = build(p, &t.f, NULL, false, NULL);
	ck_assert_int_ge(index_of(&tb, G(0x11), 1, 0x8001), 1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8001), 1);
	ck_assert_int_eq(index_of(&tb, G(0x31), 1, 0x8001), -1);
	ck_assert_int_eq(index_of(&tb, G(0x11), 1, 0x0002), -1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x0002), 1);
	ck_assert_int_ge(index_of(&tb, G(0x31), 1, 0x0002), 1);
	ck_assert_int_ge(index_of(&tb, G(0x91), 1, 0x0003), 1);
	ck_assert_int_ge(index_of(&tb, G(0x100), 0, 0x8003), 1);
	ck_assert_int_ge(index_of(&tb, G(0x100), 0, 0x0004), 1);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

/* ---- tables ------------------------------------------------------------- */

START_TEST(test_no_file_tables)
{
	struct pkey_policy *p = pkey_policy_default();
	struct tfab t;
	struct pkey_tables tb;

	tfab_init(&t);
	tb = build(p, &t.f, NULL, false, NULL);
	/* 4 end-port tables (h1 h2 h3 R) + switch port 0 + 4 enforcing */
	ck_assert_uint_eq(tb.n, 9);
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[0], 0xffff);
	ck_assert_uint_eq(keys_of(&tb, G(0x91), 1)[0], 0xffff);
	ck_assert_uint_eq(keys_of(&tb, G(0x100), 0)[0], 0xffff);
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[1], 0);
	ck_assert_uint_eq(pkey_tables_find(&tb, G(0x11), 1)->cap, 8);
	ck_assert_uint_eq(pkey_tables_find(&tb, G(0x11), 1)->kind,
	    PKEY_TABLE_PORT);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_implicit_default_tables)
{
	struct pkey_policy *p = parse_ok("x=0x0010 : ALL_CAS=full;");
	struct tfab t;
	struct pkey_tables tb;
	struct notes n;

	tfab_init(&t);
	tb = build(p, &t.f, NULL, false, &n);
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[0], 0xffff);  /* SM */
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[0], 0x7fff);
	ck_assert_uint_eq(keys_of(&tb, G(0x100), 0)[0], 0x7fff);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[1], 0x8010);
	ck_assert_int_eq(n.warn, 0);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_membership_rules)
{
	struct pkey_policy *p;
	struct tfab t;
	struct pkey_tables tb;

	tfab_init(&t);
	p = parse_ok("Default=0x7fff : ALL=full, 0x0002c90300000021=limited;\n"
	    "a=0x0001, defmember=full : 0x0002c90300000021, "
	    "0x0002c90300000031=limited;\n"
	    "a=0x0001 : 0x0002c90300000031, 0x0002c90300000021=limited, "
	    "0x0002c90300000021=full;\n"
	    "b=0x0002 : ALL_SWITCHES=full, ALL;\n"
	    "c=0x0003 : 0x0002c90300000011=both, ALL_ROUTERS=both;\n");
	tb = build(p, &t.f, NULL, false, NULL);
	/* last entry wins: h2 limited in Default, full in a (last = full) */
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[0], 0x7fff);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8001), 1);
	/* no '=': the statement's defmember (limited here) */
	ck_assert_int_ge(index_of(&tb, G(0x31), 1, 0x0001), 1);
	ck_assert_int_eq(index_of(&tb, G(0x31), 1, 0x8001), -1);
	/* ALL after ALL_SWITCHES=full: the switch is limited again */
	ck_assert_int_ge(index_of(&tb, G(0x100), 0, 0x0002), 1);
	ck_assert_int_eq(index_of(&tb, G(0x100), 0, 0x8002), -1);
	/* both without allow_both: full only */
	ck_assert_int_ge(index_of(&tb, G(0x11), 1, 0x8003), 1);
	ck_assert_int_eq(index_of(&tb, G(0x11), 1, 0x0003), -1);
	pkey_tables_free(&tb);

	tb = build(p, &t.f, NULL, true, NULL);
	ck_assert_int_ge(index_of(&tb, G(0x11), 1, 0x8003), 1);
	ck_assert_int_ge(index_of(&tb, G(0x11), 1, 0x0003), 1);
	ck_assert_int_ge(index_of(&tb, G(0x91), 1, 0x8003), 1);
	ck_assert_int_ge(index_of(&tb, G(0x91), 1, 0x0003), 1);
	/* a later full entry replaces limited, even with allow_both */
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x0001), -1);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_index0)
{
	struct pkey_policy *p;
	struct tfab t;
	struct pkey_tables tb, tb2;
	struct notes n;

	tfab_init(&t);
	p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "t1=0x0801, indx0 : 0x0002c90300000021=full;\n"
	    "t2=0x0802, indx0 : 0x0002c90300000021=full, 0x0002c90300000031;\n"
	    "x=0x0803 : ALL;\n"
	    "lonely=0x0804 : 0x0002c90300000091=full;\n");
	tb = build(p, &t.f, NULL, false, &n);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[0], 0x8801);
	ck_assert_uint_eq(keys_of(&tb, G(0x31), 1)[0], 0x0802);
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[0], 0xffff);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0xffff), 1);
	ck_assert_ptr_nonnull(strstr(n.text, "member of 2 indx0 partitions; "
	    "0x8801, first in the file, takes index 0"));
	pkey_policy_free(p);

	/* not in Default, no indx0: index 0 stays empty (OpenSM does too) */
	p = parse_ok("Default=0x7fff : 0x0002c90300000011=full;\n"
	    "x=0x0803 : ALL=full;\n");
	tb2 = build(p, &t.f, &tb, false, &n);
	ck_assert_uint_eq(keys_of(&tb2, G(0x21), 1)[0], 0);
	/* the full form takes the index the limited one had */
	ck_assert_int_eq(index_of(&tb2, G(0x21), 1, 0x8803),
	    index_of(&tb, G(0x21), 1, 0x0803));
	ck_assert_ptr_nonnull(strstr(n.text, "4 end port(s) are not members "
	    "of the Default partition"));
	pkey_tables_free(&tb);
	pkey_tables_free(&tb2);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_stable_indices)
{
	struct pkey_policy *p1, *p2;
	struct tfab t;
	struct pkey_tables a, b;
	int i5, i7;

	tfab_init(&t);
	p1 = parse_ok("Default=0x7fff : ALL=full;\n"
	    "p1=0x0001 : ALL_CAS; p2=0x0002 : ALL_CAS; p3=0x0003 : ALL_CAS;\n"
	    "p5=0x0005 : ALL_CAS; p7=0x0007 : ALL_CAS=full;\n");
	a = build(p1, &t.f, NULL, false, NULL);
	ck_assert_uint_eq(keys_of(&a, G(0x21), 1)[1], 0x0001);
	i5 = index_of(&a, G(0x21), 1, 0x0005);
	i7 = index_of(&a, G(0x21), 1, 0x8007);
	ck_assert_int_eq(i5, 4);
	ck_assert_int_eq(i7, 5);
	/* p1 and p3 go, p4 comes, p5 turns full, p7 turns limited */
	p2 = parse_ok("Default=0x7fff : ALL=full;\n"
	    "p2=0x0002 : ALL_CAS; p4=0x0004 : ALL_CAS;\n"
	    "p5=0x0005 : ALL_CAS=full; p7=0x0007 : ALL_CAS=limited;\n");
	b = build(p2, &t.f, &a, false, NULL);
	ck_assert_int_eq(index_of(&b, G(0x21), 1, 0x0002), 2);
	ck_assert_int_eq(index_of(&b, G(0x21), 1, 0x8005), i5);
	ck_assert_int_eq(index_of(&b, G(0x21), 1, 0x0007), i7);
	/* the new P_Key takes the lowest freed index */
	ck_assert_int_eq(index_of(&b, G(0x21), 1, 0x0004), 1);
	ck_assert_uint_eq(keys_of(&b, G(0x21), 1)[3], 0);
	ck_assert_uint_eq(keys_of(&b, G(0x21), 1)[0], 0xffff);
	/* without prev, the same policy packs them anew */
	pkey_tables_free(&b);
	b = build(p2, &t.f, NULL, false, NULL);
	ck_assert_int_eq(index_of(&b, G(0x21), 1, 0x0002), 1);
	pkey_tables_free(&a);
	pkey_tables_free(&b);
	pkey_policy_free(p1);
	pkey_policy_free(p2);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_prev_default_moves_to_0)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001 : ALL;\n");
	struct tfab t;
	struct pkey_tables prev = { 0 }, tb;
	uint16_t read[4] = { 0x0001, 0x0009, 0xffff, 0 };

	tfab_init(&t);
	/* a table as read from a device that another SM programmed */
	prev.v = calloc(1, sizeof(*prev.v));
	prev.n = 1;
	prev.v[0].guid = G(0x21);
	prev.v[0].num = 1;
	prev.v[0].cap = 4;
	prev.v[0].keys = read;
	pkey_tables_sort(&prev);
	tb = build(p, &t.f, &prev, false, NULL);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[0], 0xffff);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[1], 0x0001);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[2], 0);
	free(prev.v);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_capacity)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001:ALL; b=0x0002:ALL=full; c=0x0003:ALL; d=0x0004:ALL;\n");
	struct tfab t;
	struct pkey_tables tb;
	struct notes n;
	const struct pkey_table *x;

	tfab_init(&t);
	t.f.nodes[t.h2].partition_cap = 3;
	t.f.nodes[t.h3].partition_cap = 0;
	t.f.nodes[t.s].enforce_cap = 0;
	ck_assert_int_eq(pkey_tables_build(p, &t.f, NULL, NULL, &tb, collect,
	    memset(&n, 0, sizeof(n))), 2);
	x = pkey_tables_find(&tb, G(0x21), 1);
	ck_assert_uint_eq(x->cap, 3);
	ck_assert_uint_eq(x->dropped, 2);
	ck_assert_uint_eq(x->keys[0], 0xffff);
	ck_assert_uint_eq(x->keys[1], 0x0001);
	ck_assert_uint_eq(x->keys[2], 0x8002);
	ck_assert_ptr_nonnull(strstr(n.text, "CA 0x0002c90300000020 "
	    "port 1 (h2 HCA-1): 2 P_Key(s) do not fit its PartitionCap of 3: "
	    "0x0003 0x0004\n"));
	x = pkey_tables_find(&tb, G(0x31), 1);
	ck_assert_uint_eq(x->cap, 0);
	ck_assert_uint_eq(x->dropped, 5);
	ck_assert_int_eq(n.warn, 2);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_enforcement)
{
	struct pkey_policy *p;
	struct tfab t;
	struct pkey_tables tb;
	struct notes n;
	const struct pkey_table *x;
	uint32_t s2;

	tfab_init(&t);
	/* a second switch, without enforcement, on S port 8 */
	s2 = node(&t.f, NODE_SWITCH, 4, G(0x200), "leaf", 4, 0);
	cable(&t.f, t.s, 8, s2, 1);
	p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001 : 0x0002c90300000011=both, 0x0002c90300000021;\n"
	    "b=0x0002 : 0x0002c90300000021; c=0x0003 : 0x0002c90300000021;\n"
	    "d=0x0004 : 0x0002c90300000021; e=0x0005 : 0x0002c90300000091;\n");
	tb = build(p, &t.f, NULL, true, &n);
	x = pkey_tables_find(&tb, G(0x100), 1);        /* faces h1 */
	ck_assert_uint_eq(x->kind, PKEY_TABLE_ENFORCE);
	ck_assert_uint_eq(x->cap, 4);
	ck_assert(x->enforce);
	/* h1 has 0x8001 and 0x0001: the full form covers the limited one */
	ck_assert_uint_eq(x->keys[0], 0xffff);
	ck_assert_uint_eq(x->keys[1], 0x8001);
	ck_assert_uint_eq(x->keys[2], 0);
	/* h2: Default + a b c d = 5 keys, enforcement cap 4 */
	x = pkey_tables_find(&tb, G(0x100), 2);
	ck_assert(!x->enforce);
	ck_assert_uint_eq(x->dropped, 1);
	ck_assert_ptr_nonnull(strstr(n.text, "switch 0x0002c90300000100 port 2 "
	    "(spine S): the 5 P_Key(s) of its neighbour do not fit its "
	    "PartitionEnforcementCap of 4; partition enforcement stays off"));
	/* the router's switch port enforces too */
	x = pkey_tables_find(&tb, G(0x100), 4);
	ck_assert(x->enforce);
	ck_assert_uint_eq(x->keys[1], 0x0005);
	/* inter-switch ports and switches without the capability: nothing */
	ck_assert_ptr_null(pkey_tables_find(&tb, G(0x100), 8));
	ck_assert_ptr_null(pkey_tables_find(&tb, G(0x200), 1));
	ck_assert_ptr_null(pkey_tables_find(&tb, G(0x100), 5));
	ck_assert_uint_eq(keys_of(&tb, G(0x200), 0)[0], 0xffff);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_absent_members)
{
	struct pkey_policy *p;
	struct tfab t;
	struct pkey_tables tb;
	struct notes n;

	tfab_init(&t);
	p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001 : 0x0002c90300000099=full,\n"
	    "  0x0002c90300000010, 0x0002c90300005000-0x0002c903000050ff,\n"
	    "  \"nobody*\", 0x0002c90300000020-0x0002c90300000040=full;\n");
	tb = build(p, &t.f, NULL, false, &n);
	ck_assert_int_eq(n.info, 4);
	ck_assert_int_eq(n.warn, 0);
	ck_assert_ptr_nonnull(strstr(n.text, "partition 'a' "
	    "(0x0001), line 2: port GUID 0x0002c90300000099 is not in the "
	    "fabric (it may join later)\n"));
	ck_assert_ptr_nonnull(strstr(n.text, "line 3: 0x0002c90300000010 is the "
	    "node GUID of CA \"h1 HCA-1\", not a port GUID"));
	ck_assert_ptr_nonnull(strstr(n.text, "line 3: no port GUID in the "
	    "fabric is in this range"));
	ck_assert_ptr_nonnull(strstr(n.text, "line 4: no node description in "
	    "the fabric matches"));
	/* the range that matches takes h2 and h3 */
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8001), 1);
	ck_assert_int_ge(index_of(&tb, G(0x31), 1, 0x8001), 1);
	ck_assert_int_eq(index_of(&tb, G(0x11), 1, 0x8001), -1);
	pkey_tables_free(&tb);

	/* no SM port known: SELF names nothing */
	t.f.sm_port = FABRIC_NONE;
	pkey_policy_free(p);
	p = parse_ok("Default=0x7fff : ALL=limited, SELF=full;");
	tb = build(p, &t.f, NULL, false, &n);
	ck_assert_ptr_nonnull(strstr(n.text, "SELF: the SM's own port is not "
	    "known"));
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[0], 0x7fff);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_sm_port_forced_full)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=limited;");
	struct tfab t;
	struct pkey_tables tb;
	struct notes n;
	char *nv;

	tfab_init(&t);
	tb = build(p, &t.f, NULL, false, &n);
	ck_assert_uint_eq(keys_of(&tb, G(0x11), 1)[0], 0xffff);
	ck_assert_uint_eq(keys_of(&tb, G(0x21), 1)[0], 0x7fff);
	ck_assert_int_eq(n.warn, 1);
	ck_assert_ptr_nonnull(strstr(n.text, "does not make the SM's port CA "
	    "0x0002c90300000010 port 1 (h1 HCA-1) a full member"));
	nv = pkey_policy_format(p, &t.f);
	ck_assert_ptr_nonnull(strstr(nv, "#   0x0002c90300000011 port 1   both"
	    "    CA \"h1 HCA-1\" (the SM's port: always full)\n"));
	free(nv);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

static uint32_t
alias_to_h2(void *arg, uint64_t guid)
{
	const struct tfab *t = arg;

	if (guid == 0x0014050000000001ULL || guid == 0x0014050000000002ULL)
		return fabric_port_idx(&t->f, t->h2, 1);
	return FABRIC_NONE;
}

START_TEST(test_names_guid)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "vm=0x0040 : 0x0014050000000001=full, "
	    "0x0014050000000100-0x01405000000010f=both;\n");

	ck_assert(pkey_policy_names_guid(p, 0x0014050000000001ULL));
	ck_assert(pkey_policy_names_guid(p, 0x0014050000000105ULL));
	ck_assert(!pkey_policy_names_guid(p, 0x0014050000000002ULL));
	pkey_policy_free(p);
}
END_TEST

START_TEST(test_alias_guids)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "vm=0x0040 : 0x0002c90300000021=limited, 0x0014050000000001=full;\n"
	    "vf=0x0041 : 0x0014050000000002=limited, 0x0014050000000003=full;\n");
	struct tfab t;
	struct pkey_opts o = { .allow_both = true, .alias_port = alias_to_h2 };
	struct pkey_tables tb;
	struct notes n;

	tfab_init(&t);
	o.alias_arg = &t;
	memset(&n, 0, sizeof(n));
	pkey_tables_build(p, &t.f, NULL, &o, &tb, collect, &n);
	/* PF limited + VF full: both forms in the physical table */
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x0040), 1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8040), 1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x0041), 1);
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x8041), -1);
	ck_assert_int_eq(n.info, 1);    /* ...03 is nobody's */
	pkey_tables_free(&tb);
	o.allow_both = false;
	pkey_tables_build(p, &t.f, NULL, &o, &tb, NULL, NULL);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8040), 1);
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x0040), -1);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

/* vSwitch vports (issue 23 point 5): a vport with a table of its own puts
 * its keys on the switch port facing its host, in its membership, and not
 * in the host's table; a shared-port alias still does. */
static bool
own_table_01(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == 0x0014050000000001ULL;
}

START_TEST(test_vport_keys_at_switch)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=limited;\n"
	    "t1=0x0101 : 0x0014050000000001=full;\n"
	    "t2=0x0102 : 0x0014050000000002=full;\n"
	    "t3=0x0103 : 0x0014050000000001=limited, 0x0002c90300000021;\n");
	struct tfab t;
	struct pkey_opts o = { .alias_port = alias_to_h2,
	    .alias_own_table = own_table_01 };
	struct pkey_tables tb;
	const struct pkey_table *x;

	tfab_init(&t);
	o.alias_arg = &t;
	pkey_tables_build(p, &t.f, NULL, &o, &tb, NULL, NULL);
	/* h2: ...02 (an alias, shared table) gives t2; ...01 (a vport)
	 * gives nothing; t3 by its own name, limited */
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x8101), -1);
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x0101), -1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x8102), 1);
	ck_assert_int_ge(index_of(&tb, G(0x21), 1, 0x0103), 1);
	ck_assert_int_eq(index_of(&tb, G(0x21), 1, 0x8103), -1);
	/* the switch port facing h2: its table, and the vport's t1 in full
	 * (t3: the host's limited form, the vport's limited too) */
	x = pkey_tables_find(&tb, G(0x100), 2);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->kind, PKEY_TABLE_ENFORCE);
	ck_assert_int_ge(index_of(&tb, G(0x100), 2, 0x8101), 0);
	ck_assert_int_ge(index_of(&tb, G(0x100), 2, 0x8102), 0);
	ck_assert_int_ge(index_of(&tb, G(0x100), 2, 0x0103), 0);
	ck_assert_int_eq(index_of(&tb, G(0x100), 2, 0x8103), -1);
	/* another host's switch port: none of them */
	ck_assert_int_eq(index_of(&tb, G(0x100), 1, 0x8101), -1);
	pkey_tables_free(&tb);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_format_fabric)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001 : \"h[23]*\"=both, 0x0002c90300000777;\n"
	    "b=0x0002 : NONE;\n");
	struct tfab t;
	char *nv;

	tfab_init(&t);
	nv = pkey_policy_format(p, &t.f);
	ck_assert_ptr_nonnull(strstr(nv, "a=0x0001 :\n"
	    "\t\"h[23]*\"=both,\n"
	    "\t0x0002c90300000777=limited;\n"
	    "# in this fabric:\n"
	    "#   names nothing (line 2): port GUID 0x0002c90300000777 is not in "
	    "the fabric\n"
	    "#   0x0002c90300000021 port 1   both    CA \"h2 HCA-1\"\n"
	    "#   0x0002c90300000031 port 1   both    CA \"h3 HCA-1\"\n"));
	ck_assert_ptr_nonnull(strstr(nv, "b=0x0002 :\n\tNONE;\n"
	    "# in this fabric:\n#   no port\n"));
	ck_assert_ptr_nonnull(strstr(nv, "#   0x0002c90300000100 port 0   full"
	    "    switch \"spine S\"\n"));
	free(nv);
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

struct diff_lines {
	char text[2048];
};

static void
diff_line(void *arg, const char *line)
{
	struct diff_lines *d = arg;

	strncat(d->text, line, sizeof(d->text) - strlen(d->text) - 2);
	strcat(d->text, "\n");
}

START_TEST(test_policy_diff)
{
	struct pkey_policy *a = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001, ipoib : 0x0002c90300000011, 0x0002c90300000021=full;\n"
	    "gone=0x0003 : ALL_CAS;\n"
	    "same=0x0004 : SELF=full;\n");
	struct pkey_policy *b = parse_ok("Default=0x7fff : ALL=full;\n"
	    "a=0x0001, ipoib, mtu=5 : 0x0002c90300000021=full, "
	    "0x0002c90300000031, 0x0002c90300000041=both;\n"
	    "same=0x0004 : SELF=full;\n"
	    "new=0x0005 : ALL=limited;\n");
	struct diff_lines d = { "" };

	ck_assert_uint_eq(pkey_policy_diff(a, b, diff_line, &d), 3);
	ck_assert_str_eq(d.text,
	    "partition a=0x0001: members +2 -1 (+0x0002c90300000031=limited "
	    "+0x0002c90300000041=both -0x0002c90300000011=limited); flags: "
	    "mtu 4 -> 5\n"
	    "partition gone=0x0003 removed (1 member entry)\n"
	    "partition new=0x0005 added (1 member entry)\n");
	d.text[0] = '\0';
	ck_assert_uint_eq(pkey_policy_diff(a, a, diff_line, &d), 0);
	ck_assert_str_eq(d.text, "");
	pkey_policy_free(a);
	pkey_policy_free(b);
	a = parse_ok("p=0x0010 : ALL_CAS=full;\n");
	b = parse_ok("p=0x0010, ipoib, sl=2 : ALL_CAS=limited;\n");
	ck_assert_uint_eq(pkey_policy_diff(a, b, diff_line, &d), 1);
	ck_assert_str_eq(d.text, "partition p=0x0010: members +1 -1 "
	    "(+ALL_CAS=limited -ALL_CAS=full); flags: ipoib off -> on, "
	    "sl 0 -> 2\n");
	pkey_policy_free(a);
	pkey_policy_free(b);
}
END_TEST

struct port_list {
	char text[1024];
	const struct fabric *f;
};

static void
list_port(void *arg, uint32_t port, unsigned membership, bool forced)
{
	struct port_list *l = arg;
	char line[128];

	snprintf(line, sizeof(line), "%016" PRIx64 "/%u=%s%s ",
	    l->f->ports[port].guid, l->f->ports[port].num,
	    pkey_membership_name(membership), forced ? "!" : "");
	strncat(l->text, line, sizeof(l->text) - strlen(l->text) - 1);
}

START_TEST(test_member_ports)
{
	struct pkey_policy *p = parse_ok("Default=0x7fff : ALL_CAS=limited;\n"
	    "a=0x0001 : \"h[23]*\"=both, 0x0002c90300000021=full, "
	    "0x0002c90300000777;\n");
	const struct pkey_partition *pt = pkey_policy_find(p, 1);
	struct tfab t;
	struct port_list l = { "", NULL };
	char buf[64];

	tfab_init(&t);
	l.f = &t.f;
	ck_assert_ptr_nonnull(pt);
	ck_assert_int_gt(pkey_member_format(pt, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "\"h[23]*\"");
	ck_assert_uint_eq(pkey_member_membership(pt, 0), PKEY_BOTH);
	pkey_member_format(pt, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x0002c90300000021");
	ck_assert_int_eq(pkey_member_format(pt, 3, buf, sizeof(buf)), -1);
	/* the entry alone */
	pkey_partition_ports(pt, &t.f, 0, list_port, &l);
	ck_assert_str_eq(l.text, "0002c90300000021/1=both "
	    "0002c90300000031/1=both ");
	/* the partition: the last entry naming a port decides */
	l.text[0] = '\0';
	pkey_partition_ports(pt, &t.f, -1, list_port, &l);
	ck_assert_str_eq(l.text, "0002c90300000021/1=full "
	    "0002c90300000031/1=both ");
	l.text[0] = '\0';
	pkey_partition_ports(pt, &t.f, 2, list_port, &l);
	ck_assert_str_eq(l.text, "");
	pkey_policy_free(p);
	fabric_fini(&t.f);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(pkey_mtu_bytes(4), "2048");
	ck_assert_str_eq(pkey_mtu_bytes(5), "4096");
	ck_assert_ptr_null(pkey_mtu_bytes(6));
	ck_assert_str_eq(pkey_rate_gbps(3), "10");
	ck_assert_str_eq(pkey_rate_gbps(2), "2.5");
	ck_assert_str_eq(pkey_rate_gbps(16), "100");
	ck_assert_ptr_null(pkey_rate_gbps(1));
	ck_assert_ptr_null(pkey_rate_gbps(25));
}
END_TEST

/* vports: their own table from members naming their GUID, ALL, ALL_CAS or
 * their description; index 0 Default; =both gives both forms; a previous
 * table keeps indices; what does not fit is counted. */
START_TEST(test_vport_table)
{
	struct pkey_policy *p = parse_ok(
	    "Default=0x7fff : ALL=limited, SELF=full ;\n"
	    "red=0x0010 : 0x00000000000a0001=full, 0x00000000000a0003 ;\n"
	    "blue=0x0020 : 0x00000000000a0002=both ;\n"
	    "vms=0x0030 : \"vm-*\"=full ;\n"
	    "sw=0x0040 : ALL_SWITCHES=full ;\n");
	uint16_t t[4], prev[4] = { 0x7fff, 0, 0, 0x8010 }, small[2];

	ck_assert_uint_eq(pkey_vport_table(p, 0xa0001, "host", false, NULL, 0,
	    t, 4), 0);
	ck_assert_uint_eq(t[0], 0x7fff);
	ck_assert_uint_eq(t[1], 0x8010);
	ck_assert_uint_eq(t[2], 0);
	/* limited member (default membership) */
	pkey_vport_table(p, 0xa0003, NULL, false, NULL, 0, t, 4);
	ck_assert_uint_eq(t[1], 0x0010);
	/* =both: one form without allow_both_pkeys, both with it */
	pkey_vport_table(p, 0xa0002, NULL, false, NULL, 0, t, 4);
	ck_assert_uint_eq(t[1], 0x8020);
	ck_assert_uint_eq(t[2], 0);
	pkey_vport_table(p, 0xa0002, NULL, true, NULL, 0, t, 4);
	ck_assert_uint_eq(t[1], 0x8020);
	ck_assert_uint_eq(t[2], 0x0020);
	/* by description */
	pkey_vport_table(p, 0xa0009, "vm-7", false, NULL, 0, t, 4);
	ck_assert_uint_eq(t[1], 0x8030);
	/* indices stay */
	pkey_vport_table(p, 0xa0001, NULL, false, prev, 4, t, 4);
	ck_assert_uint_eq(t[0], 0x7fff);
	ck_assert_uint_eq(t[3], 0x8010);
	ck_assert_uint_eq(t[1], 0);
	/* too small */
	ck_assert_uint_eq(pkey_vport_table(p, 0xa0001, "vm-1", false, NULL, 0,
	    small, 2), 1);
	ck_assert_uint_eq(small[0], 0x7fff);
	pkey_policy_free(p);
}
END_TEST

static Suite *
partitions_suite(void)
{
	Suite *s = suite_create("partitions");
	TCase *grammar = tcase_create("grammar");
	TCase *tables = tcase_create("tables");

	tcase_add_test(grammar, test_corpus_valid);
	tcase_add_test(grammar, test_corpus_invalid);
	tcase_add_test(grammar, test_corpus_size);
	tcase_add_test(grammar, test_seed_examples);
	tcase_add_test(grammar, test_error_format);
	tcase_add_test(grammar, test_no_statement);
	tcase_add_test(grammar, test_nul_byte);
	tcase_add_test(grammar, test_error_positions);
	tcase_add_test(grammar, test_default_policies);
	tcase_add_test(grammar, test_names);
	suite_add_tcase(s, grammar);
	tcase_add_test(tables, test_glob);
	tcase_add_test(tables, test_no_file_tables);
	tcase_add_test(tables, test_implicit_default_tables);
	tcase_add_test(tables, test_membership_rules);
	tcase_add_test(tables, test_index0);
	tcase_add_test(tables, test_stable_indices);
	tcase_add_test(tables, test_prev_default_moves_to_0);
	tcase_add_test(tables, test_capacity);
	tcase_add_test(tables, test_enforcement);
	tcase_add_test(tables, test_absent_members);
	tcase_add_test(tables, test_sm_port_forced_full);
	tcase_add_test(tables, test_alias_guids);
	tcase_add_test(tables, test_vport_keys_at_switch);
	tcase_add_test(tables, test_names_guid);
	tcase_add_test(tables, test_format_fabric);
	tcase_add_test(tables, test_vport_table);
	tcase_add_test(tables, test_policy_diff);
	tcase_add_test(tables, test_member_ports);
	suite_add_tcase(s, tables);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(partitions_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
