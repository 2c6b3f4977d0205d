/*
 * LID manager: assignment rules, persistence, and the map file's parser.
 * Every test works in its own temporary directory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* nftw */
#endif
#include <sys/stat.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm/lid.h"
#include "core/log.h"

#define LID_MAX		0xbfff
#define G(n)		(0x0002c90300000000ULL + (n))	/* a port GUID */

static char topdir[PATH_MAX / 4];	/* per test case, made in the parent */
static char tmpdir[PATH_MAX / 2];	/* per test, inside topdir */

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/*
 * A failed test exits its forked child before the checked teardown runs,
 * so the parent makes and removes topdir; each test gets a fresh tmpdir
 * in it and never sees another test's files.
 */
static void
setup_top(void)
{
	const char *t = getenv("TMPDIR");

	if (t == NULL || *t == '\0')
		t = "/tmp";
	snprintf(topdir, sizeof(topdir), "%s/check_lid.XXXXXX", t);
	if (mkdtemp(topdir) == NULL) {
		perror(topdir);
		exit(EXIT_FAILURE);
	}
}

static void
teardown_top(void)
{
	nftw(topdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path inside this test's directory (static buffer: use at once). */
static const char *
tpath(const char *name)
{
	static char buf[2][PATH_MAX];
	static int n;

	n = !n;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", tmpdir, name);
	return buf[n];
}

/* Logs go to tmpdir/log at debug level: every message is formatted (and
 * checked by valgrind), none clutters the output. */
static void
setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test.XXXXXX", topdir);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(log_init("check_lid", tpath("log"), LOG_LVL_DEBUG), 0);
}

static void
teardown(void)
{
	log_fini();
}

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
}

static char *
read_file(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long len;

	ck_assert_ptr_nonnull(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return buf;
}

/* n requests for GUIDs G(first), G(first + 1), ..., no current LID. */
static struct lid_req *
reqs_new(size_t n, uint64_t first)
{
	struct lid_req *r = calloc(n ? n : 1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < n; i++)
		r[i].guid = G(first + i);
	return r;
}

/* Save m and load it into a new map; the file must parse cleanly. */
static struct lid_map *
reload(struct lid_map *m)
{
	struct lid_map *n = lid_map_new();
	unsigned bad = 99;

	ck_assert_int_eq(lid_map_save(m, tpath("reload")), 0);
	ck_assert_int_eq(lid_map_load(n, tpath("reload"), &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(lid_map_count(n), lid_map_count(m));
	return n;
}

/* No two requests share a LID, unless they share the GUID. */
static void
assert_unique(const struct lid_req *r, size_t n)
{
	static uint64_t owner[0x10000];

	memset(owner, 0, sizeof(owner));
	for (size_t i = 0; i < n; i++) {
		if (r[i].lid == 0)
			continue;
		ck_assert_msg(owner[r[i].lid] == 0 ||
		    owner[r[i].lid] == r[i].guid, "LID %u given twice",
		    r[i].lid);
		owner[r[i].lid] = r[i].guid;
	}
}

START_TEST(test_fresh)
{
	struct lid_map *m = lid_map_new();
	struct lid_req *r = reqs_new(10, 0x100);

	ck_assert_uint_eq(lid_map_count(m), 0);
	ck_assert_int_eq(lid_map_dirty(m), 0);
	ck_assert_int_eq(lid_assign(m, r, 10, 0), 0);
	/* The SM's port comes first and gets LID 1; the rest follow. */
	for (size_t i = 0; i < 10; i++) {
		ck_assert_uint_eq(r[i].lid, i + 1);
		ck_assert_uint_eq(lid_map_get(m, r[i].guid), i + 1);
	}
	assert_unique(r, 10);
	ck_assert_uint_eq(lid_map_count(m), 10);
	ck_assert_int_eq(lid_map_dirty(m), 1);
	ck_assert_uint_eq(lid_map_get(m, G(0x999)), 0);
	free(r);
	lid_map_free(m);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req *r = reqs_new(8, 0x100), *s = reqs_new(8, 0);
	uint16_t want[8];
	unsigned bad = 99;
	size_t i;

	r[3].cur = 100;		/* kept: conflicts with nothing */
	ck_assert_int_eq(lid_assign(m, r, 8, 0), 0);
	for (i = 0; i < 8; i++)
		want[i] = r[i].lid;
	ck_assert_uint_eq(want[3], 100);
	ck_assert_int_eq(lid_map_save(m, tpath("guid2lid")), 0);
	ck_assert_int_eq(lid_map_dirty(m), 0);

	n = lid_map_new();
	ck_assert_int_eq(lid_map_load(n, tpath("guid2lid"), &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(lid_map_count(n), 8);
	ck_assert_int_eq(lid_map_dirty(n), 0);
	/* Reverse order, every port holding another port's LID. */
	for (i = 0; i < 8; i++) {
		s[i].guid = r[7 - i].guid;
		s[i].cur = want[i];
	}
	ck_assert_int_eq(lid_assign(n, s, 8, 0), 0);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(s[i].lid, want[7 - i]);
	ck_assert_int_eq(lid_map_dirty(n), 0);	/* nothing changed */
	free(r);
	free(s);
	lid_map_free(m);
	lid_map_free(n);
}
END_TEST

START_TEST(test_cur_kept)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r[5] = {
		{ .guid = G(1), .cur = 77 },
		{ .guid = G(2), .cur = 0 },
		{ .guid = G(3), .cur = 0xc000 },	/* multicast: invalid */
		{ .guid = G(4), .cur = 0xffff },	/* permissive: invalid */
		{ .guid = G(5), .cur = LID_MAX },	/* highest unicast */
	};

	ck_assert_int_eq(lid_assign(m, r, 5, 0), 0);
	ck_assert_uint_eq(r[0].lid, 77);
	ck_assert_uint_eq(r[1].lid, 1);
	ck_assert_uint_eq(r[2].lid, 2);
	ck_assert_uint_eq(r[3].lid, 3);
	ck_assert_uint_eq(r[4].lid, LID_MAX);
	ck_assert_uint_eq(lid_map_get(m, G(1)), 77);
	lid_map_free(m);
}
END_TEST

START_TEST(test_cur_conflicts_remembered)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req b = { .guid = G(2), .cur = 5 };
	struct lid_req r[2] = {
		{ .guid = G(1), .cur = 5 },	/* holds B's remembered LID */
		{ .guid = G(2), .cur = 0 },
	};
	struct lid_req a = { .guid = G(1), .cur = 5 };

	ck_assert_int_eq(lid_assign(m, &b, 1, 0), 0);
	ck_assert_uint_eq(b.lid, 5);
	n = reload(m);
	/* B present, after A in priority: A still may not take 5. */
	ck_assert_int_eq(lid_assign(m, r, 2, 0), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 5);
	/* B absent: its LID stays reserved all the same. */
	ck_assert_int_eq(lid_assign(n, &a, 1, 0), 0);
	ck_assert_uint_eq(a.lid, 1);
	ck_assert_uint_eq(lid_map_get(n, G(2)), 5);
	lid_map_free(m);
	lid_map_free(n);
}
END_TEST

START_TEST(test_same_cur)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r[3] = {
		{ .guid = G(1), .cur = 9 },
		{ .guid = G(2), .cur = 9 },
		{ .guid = G(3), .cur = 1 },
	};

	ck_assert_int_eq(lid_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[0].lid, 9);
	ck_assert_uint_eq(r[1].lid, 1);		/* lowest free */
	ck_assert_uint_eq(r[2].lid, 2);		/* 1 went to G(2) first */
	assert_unique(r, 3);
	lid_map_free(m);
}
END_TEST

START_TEST(test_absent_reserved)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req *r = reqs_new(3, 1);
	struct lid_req s[2] = {
		{ .guid = G(1) },
		{ .guid = G(4), .cur = 2 },	/* absent G(2)'s LID */
	};

	ck_assert_int_eq(lid_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[2].lid, 3);
	ck_assert_int_eq(lid_assign(m, s, 2, 0), 0);
	ck_assert_uint_eq(s[0].lid, 1);
	ck_assert_uint_eq(s[1].lid, 4);
	ck_assert_uint_eq(lid_map_count(m), 4);
	ck_assert_uint_eq(lid_map_get(m, G(2)), 2);
	ck_assert_uint_eq(lid_map_get(m, G(3)), 3);
	n = reload(m);
	ck_assert_uint_eq(lid_map_get(n, G(2)), 2);
	ck_assert_uint_eq(lid_map_get(n, G(3)), 3);
	ck_assert_uint_eq(lid_map_get(n, G(4)), 4);
	free(r);
	lid_map_free(m);
	lid_map_free(n);
}
END_TEST

START_TEST(test_duplicate_guid)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r[3] = {
		{ .guid = G(1) },
		{ .guid = G(2) },
		{ .guid = G(1), .cur = 40 },
	};

	ck_assert_int_eq(lid_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 2);
	ck_assert_uint_eq(r[2].lid, 1);
	ck_assert_uint_eq(lid_map_count(m), 2);
	lid_map_free(m);
}
END_TEST

/* GUID 0 names no port: no LID, nothing remembered, not a failure. */
START_TEST(test_guid_zero)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r[3] = {
		{ .guid = G(1) },
		{ .guid = 0, .cur = 5 },
		{ .guid = G(2) },
	};

	ck_assert_int_eq(lid_assign(m, r, 3, 0), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 0);
	ck_assert_uint_eq(r[2].lid, 2);
	ck_assert_uint_eq(lid_map_count(m), 2);
	ck_assert_uint_eq(lid_map_get(m, 0), 0);
	lid_map_free(m);
}
END_TEST

/*
 * Forgetting many ports: every 7th port of a full LID space leaves and as
 * many new ones take their LIDs over. Each takeover deletes an entry from
 * the map (the last entry moves into its place, and the GUID hash follows);
 * every port that stays must still be found, in the map and in its file.
 */
START_TEST(test_forget_many)
{
	struct lid_map *m = lid_map_new(), *n;
	size_t total = LID_MAX, k = total / 7, i, j = 0;
	struct lid_req *r = reqs_new(total, 1);

	ck_assert_int_eq(lid_assign(m, r, total, 0), 0);
	for (i = 1; i <= total; i++)
		if (i % 7 != 0) {
			r[j].guid = G(i);
			r[j++].cur = (uint16_t)i;
		}
	ck_assert_uint_eq(j, total - k);
	for (i = 0; i < k; i++) {
		r[j + i].guid = G(total + 1 + i);
		r[j + i].cur = 0;
	}
	ck_assert_int_eq(lid_assign(m, r, total, 0), 0);
	assert_unique(r, total);
	for (i = 0; i < k; i++)
		ck_assert_uint_eq(r[j + i].lid, 7 * (i + 1));
	ck_assert_uint_eq(lid_map_count(m), total);
	n = reload(m);
	for (i = 1; i <= total; i++) {
		ck_assert_uint_eq(lid_map_get(m, G(i)), (i % 7 ? i : 0));
		ck_assert_uint_eq(lid_map_get(n, G(i)), (i % 7 ? i : 0));
	}
	for (i = 0; i < k; i++) {
		ck_assert_uint_eq(lid_map_get(m, G(total + 1 + i)),
		    7 * (i + 1));
		ck_assert_uint_eq(lid_map_get(n, G(total + 1 + i)),
		    7 * (i + 1));
	}
	free(r);
	lid_map_free(m);
	lid_map_free(n);
}
END_TEST

START_TEST(test_exhaustion)
{
	struct lid_map *m = lid_map_new();
	size_t n = LID_MAX, i;
	struct lid_req *r = reqs_new(n + 1, 1);

	/* Fill the LID space. */
	ck_assert_int_eq(lid_assign(m, r, n, 0), 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(r[i].lid, i + 1);
	ck_assert_uint_eq(lid_map_count(m), n);

	/* G(1)..G(10) leave, G(n+1)..G(n+10) arrive: they get the lowest
	 * reservations of absent ports, which are forgotten. */
	for (i = 0; i < n; i++)
		r[i].guid = G(11 + i);
	for (i = 0; i < n; i++)
		r[i].cur = 0;
	ck_assert_int_eq(lid_assign(m, r, n, 0), 0);
	for (i = 0; i < n - 10; i++)
		ck_assert_uint_eq(r[i].lid, i + 11);
	for (i = n - 10; i < n; i++)
		ck_assert_uint_eq(r[i].lid, i - (n - 10) + 1);
	for (i = 1; i <= 10; i++)
		ck_assert_uint_eq(lid_map_get(m, G(i)), 0);
	ck_assert_uint_eq(lid_map_count(m), n);
	assert_unique(r, n);

	/* Nothing absent left: one more port gets no LID. */
	r[n].guid = G(n + 11);
	ck_assert_int_eq(lid_assign(m, r, n + 1, 0), -1);
	ck_assert_uint_eq(r[n].lid, 0);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(r[i].lid, 0);
	ck_assert_uint_eq(lid_map_get(m, G(n + 11)), 0);
	free(r);
	lid_map_free(m);
}
END_TEST

START_TEST(test_large_fabric)
{
	struct lid_map *m = lid_map_new();
	size_t n = 60000, i;
	struct lid_req *r = reqs_new(n, 1);

	for (i = 0; i < n; i += 3)
		r[i].cur = (uint16_t)(n - i);	/* some conflict, some not */
	ck_assert_int_eq(lid_assign(m, r, n, 0), -1);
	assert_unique(r, n);
	for (i = 0; i < LID_MAX; i++)
		ck_assert_uint_ne(r[i].lid, 0);
	for (; i < n; i++)
		ck_assert_uint_eq(r[i].lid, 0);
	ck_assert_uint_eq(lid_map_count(m), LID_MAX);
	free(r);
	lid_map_free(m);
}
END_TEST

START_TEST(test_lmc2)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req *r = reqs_new(6, 1);
	char *text;
	size_t i;

	r[4].cur = 64;		/* aligned: kept */
	r[5].cur = 66;		/* misaligned: moved */
	ck_assert_int_eq(lid_assign(m, r, 6, 2), 0);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].lid, 4 * (i + 1));
	ck_assert_uint_eq(r[4].lid, 64);
	ck_assert_uint_eq(r[5].lid, 20);
	n = reload(m);
	text = read_file(tpath("reload"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000001 4 7\n"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000005 64 67\n"));
	free(text);
	/* A port holding the base of an absent port's block moves. */
	r[0].guid = G(7);
	r[0].cur = 8;
	ck_assert_int_eq(lid_assign(n, r, 1, 2), 0);
	ck_assert_uint_eq(r[0].lid, 24);
	free(r);
	lid_map_free(m);
	lid_map_free(n);
}
END_TEST

START_TEST(test_lmc_change)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req r[5] = {
		{ .guid = G(1), .cur = 4 },
		{ .guid = G(2), .cur = 5 },
		{ .guid = G(3), .cur = 6 },
		{ .guid = G(4), .cur = 8 },
		{ .guid = G(5), .cur = 13 },
	};
	struct lid_req s[2] = {
		{ .guid = G(2), .cur = 5 },
		{ .guid = G(1), .cur = 4 },
	};
	struct lid_req f = { .guid = G(6), .cur = 5 };

	ck_assert_int_eq(lid_assign(m, r, 5, 0), 0);
	ck_assert_uint_eq(r[4].lid, 13);
	/* LMC 2: G(2)'s 5 is misaligned, it moves past the reserved 8 and
	 * 13; G(1)'s 4 is aligned and keeps it, pushing out the absent
	 * misaligned G(3) at 6. G(4) at 8 and G(5) at 13 stay reserved. */
	ck_assert_int_eq(lid_assign(m, s, 2, 2), 0);
	ck_assert_uint_eq(s[0].lid, 16);
	ck_assert_uint_eq(s[1].lid, 4);
	ck_assert_uint_eq(lid_map_get(m, G(3)), 0);
	ck_assert_uint_eq(lid_map_get(m, G(4)), 8);
	ck_assert_uint_eq(lid_map_get(m, G(5)), 13);
	ck_assert_uint_eq(lid_map_count(m), 4);
	n = reload(m);
	lid_map_free(n);
	/* Back to LMC 0: blocks shrink to their base, freeing 5. */
	ck_assert_int_eq(lid_assign(m, s, 2, 0), 0);
	ck_assert_uint_eq(s[0].lid, 16);
	ck_assert_uint_eq(s[1].lid, 4);
	ck_assert_int_eq(lid_assign(m, &f, 1, 0), 0);
	ck_assert_uint_eq(f.lid, 5);
	n = reload(m);
	lid_map_free(n);
	lid_map_free(m);
}
END_TEST

/* Single requests (base switch ports 0, vports) take one LID, unaligned,
 * between the aligned blocks of the others; a port that becomes single
 * (lmc_esp0 turned off) keeps its base and gives the rest back; the file
 * says base and top as OpenSM writes them. */
START_TEST(test_lmc_single)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req r[5] = {
		{ .guid = G(1), .single = true },	/* the SM's switch */
		{ .guid = G(2) },
		{ .guid = G(3), .single = true },
		{ .guid = G(4), .single = true, .cur = 9 },
		{ .guid = G(5) },
	};
	struct lid_req e = { .guid = G(1) };
	char *text;

	ck_assert_int_eq(lid_assign(m, r, 5, 2), 0);
	ck_assert_uint_eq(r[0].lid, 1);
	ck_assert_uint_eq(r[1].lid, 4);
	ck_assert_uint_eq(r[2].lid, 2);
	ck_assert_uint_eq(r[3].lid, 9);		/* in no block yet: kept */
	ck_assert_uint_eq(r[4].lid, 12);	/* 8-11 holds 9 */
	n = reload(m);
	text = read_file(tpath("reload"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000001 1 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000002 4 7\n"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000004 9 9\n"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000005 12 15\n"));
	free(text);
	lid_map_free(n);
	/* A block for G(1): its 1 is misaligned, the lowest free block is
	 * 16 (8-11 still holds G(4)'s 9), and 1 is free again. */
	ck_assert_int_eq(lid_assign(m, &e, 1, 2), 0);
	ck_assert_uint_eq(e.lid, 16);
	/* single again: the base is kept, 17-19 given back */
	e.single = true;
	e.cur = 16;
	ck_assert_int_eq(lid_assign(m, &e, 1, 2), 0);
	ck_assert_uint_eq(e.lid, 16);
	n = reload(m);
	text = read_file(tpath("reload"));
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000001 16 16\n"));
	free(text);
	lid_map_free(n);
	/* a new block port now finds 8-11 free only if 9 goes: it does not */
	e = (struct lid_req){ .guid = G(6) };
	ck_assert_int_eq(lid_assign(m, &e, 1, 2), 0);
	ck_assert_uint_eq(e.lid, 20);
	/* and a new single one takes the lowest free LID, 1 */
	e = (struct lid_req){ .guid = G(7), .single = true };
	ck_assert_int_eq(lid_assign(m, &e, 1, 2), 0);
	ck_assert_uint_eq(e.lid, 1);
	lid_map_free(m);
}
END_TEST

/* A range given up in the middle of a call is found again by the next
 * port looking for the lowest free range. */
START_TEST(test_lowest_after_move)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r[2] = {
		{ .guid = G(1), .cur = 2 },
		{ .guid = G(2), .cur = 5 },
	};
	struct lid_req s[3] = {
		{ .guid = G(3) },		/* 2-3 has G(1), 4-5 has G(2) */
		{ .guid = G(2), .cur = 10 },	/* 5 misaligned: keeps 10 */
		{ .guid = G(4) },		/* 4-5 is free again */
	};

	ck_assert_int_eq(lid_assign(m, r, 2, 0), 0);
	ck_assert_int_eq(lid_assign(m, s, 3, 1), 0);
	ck_assert_uint_eq(s[0].lid, 6);
	ck_assert_uint_eq(s[1].lid, 10);
	ck_assert_uint_eq(s[2].lid, 4);
	ck_assert_uint_eq(lid_map_get(m, G(1)), 2);
	lid_map_free(m);
}
END_TEST

START_TEST(test_bad_lmc)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r = { .guid = G(1), .cur = 1, .lid = 9 };

	errno = 0;
	ck_assert_int_eq(lid_assign(m, &r, 1, 8), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(r.lid, 0);
	ck_assert_uint_eq(lid_map_count(m), 0);
	lid_map_free(m);
}
END_TEST

/*
 * The map file. Each case is one line between two good ones (or after
 * them, without a newline): line 2 (or 3) is bad for the given reason,
 * or good and then read as guid -> lid.
 */
struct file_case {
	const char *what;
	const char *text;
	size_t len;
	int last;		/* the line ends the file, no newline */
	const char *reason;	/* NULL: a good line */
	uint64_t guid;
	uint16_t lid;
};

#define BAD(what, text, reason) \
	{ what, text, sizeof(text) - 1, 0, reason, 0, 0 }

static const struct file_case file_cases[] = {
	BAD("GUID 0", "0x0000000000000000 2 2", "GUID 0 is not a port GUID"),
	BAD("bad hex", "0x00000000000000zz 2 2", "GUID '0x00000000000000zz' "
	    "is not a number"),
	BAD("empty hex", "0x 2 2", "GUID '0x' is not a number"),
	BAD("GUID over 64 bits", "0x10000000000000000 2 2",
	    "is longer than 64 bits"),
	BAD("negative LID", "0x2 -2 -2", "base LID '-2' is not a number"),
	BAD("LID 0", "0x2 0 0", "base LID '0' out of range"),
	BAD("LID 0xC000", "0x2 0xC000 0xC000", "base LID '0xC000' out of range"),
	BAD("top 49152", "0x2 2 49152", "top LID '49152' out of range"),
	BAD("huge LID", "0x2 99999999999999999999 2", "out of range"),
	BAD("top < base", "0x2 5 4", "top LID 4 below base LID 5"),
	BAD("duplicate GUID", "0x1 2 2", "duplicate GUID 0x0000000000000001, "
	    "keeping line 2"),
	BAD("duplicate LID", "0x2 1 1", "LID 1 of GUID 0x0000000000000002 "
	    "already belongs to GUID 0x0000000000000001, keeping line 2"),
	BAD("two fields", "0x2 2", "found 2 fields"),
	BAD("one field", "0x2", "found 1 field"),
	BAD("four fields", "0x2 2 2 junk", "unexpected 'junk'"),
	BAD("binary garbage",
	    "\x7f" "ELF\x02\x01\x01\x00\x00\xff\xfe\x80\x13 \x01\x02 \x03",
	    "GUID '?ELF?\?\?\?\?\?\?\?\?' is not a number"),
	{ "truncated last line", "0x0000000000000002 2", 20, 1,
	    "found 2 fields", 0, 0 },
	{ "last line without newline", "0x0000000000000002 2 2", 22, 1,
	    NULL, 2, 2 },
	{ "decimal GUID, not octal", "010 10 10", 9, 0, NULL, 10, 10 },
	{ "hex LIDs", "0X2 0x10 0x0011", 15, 0, NULL, 2, 16 },
	{ "blanks and comment", " \t 0x2\t\t2   2  # spare\r", 23, 0,
	    NULL, 2, 2 },
	{ "comment only", "   # 0x2 2 2", 12, 0, NULL, 0, 0 },
	{ "blank line", " \t\r", 3, 0, NULL, 0, 0 },
	{ "CRLF", "0x2 2 2\r", 8, 0, NULL, 2, 2 },
};

START_TEST(test_file_case)
{
	const struct file_case *c = &file_cases[_i];
	static const char head[] = "# comment\n0x1 1 1\n";
	static const char tail[] = "0x0000000000000003 3 3\n";
	const char *path = tpath("guid2lid"), *log = tpath("log");
	struct lid_map *m = lid_map_new();
	unsigned bad = 99, line = c->last ? 4 : 3;
	char buf[256], want[PATH_MAX + 256], *text;
	size_t len = 0;

	memcpy(buf, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	if (c->last) {
		memcpy(buf + len, tail, sizeof(tail) - 1);
		len += sizeof(tail) - 1;
	}
	memcpy(buf + len, c->text, c->len);
	len += c->len;
	if (!c->last) {
		buf[len++] = '\n';
		memcpy(buf + len, tail, sizeof(tail) - 1);
		len += sizeof(tail) - 1;
	}
	write_file(path, buf, len);
	ck_assert_int_eq(lid_map_load(m, path, &bad), 0);
	log_fini();

	ck_assert_msg(bad == (c->reason ? 1u : 0u), "%s: %u bad lines",
	    c->what, bad);
	ck_assert_uint_eq(lid_map_count(m), 2 + (c->guid != 0));
	ck_assert_uint_eq(lid_map_get(m, 1), 1);
	ck_assert_uint_eq(lid_map_get(m, 3), 3);
	if (c->guid != 0)
		ck_assert_uint_eq(lid_map_get(m, c->guid), c->lid);
	else
		ck_assert_uint_eq(lid_map_get(m, 2), 0);
	text = read_file(log);
	if (c->reason != NULL) {
		snprintf(want, sizeof(want), "%s:%u: ", path, line);
		ck_assert_msg(strstr(text, want) != NULL, "%s: no '%s' in '%s'",
		    c->what, want, text);
		ck_assert_msg(strstr(text, c->reason) != NULL,
		    "%s: no '%s' in '%s'", c->what, c->reason, text);
	} else
		ck_assert_msg(text[0] == '\0', "%s: logged '%s'", c->what, text);
	free(text);
	lid_map_free(m);
}
END_TEST

START_TEST(test_file_many_bad)
{
	static const char text[] =
	    "0x1 1 1\n"
	    "junk\n"
	    "0x2 0 0\n"
	    "0x3 3 3\n"
	    "0x1 4 4\n"
	    "0x4 2 3\n"
	    "0x6 6 9\n"
	    "0x7 9 12\n"
	    "0x5 5 5";
	static const char *const want[] = {
	    ":2: expected '<guid> <base lid> <top lid>', found 1 field\n",
	    ":3: base LID '0' out of range",
	    ":5: duplicate GUID 0x0000000000000001, keeping line 1",
	    ":6: LID 3 of GUID 0x0000000000000004 already belongs to GUID "
	    "0x0000000000000003, keeping line 4",
	    ":8: LID 9 of GUID 0x0000000000000007 already belongs to GUID "
	    "0x0000000000000006, keeping line 7",
	};
	struct lid_map *m = lid_map_new();
	unsigned bad = 0;
	char *log;

	write_file(tpath("guid2lid"), text, sizeof(text) - 1);
	ck_assert_int_eq(lid_map_load(m, tpath("guid2lid"), &bad), 0);
	ck_assert_uint_eq(lid_map_count(m), 4);
	/* The NULL count is allowed too. */
	ck_assert_int_eq(lid_map_load(m, tpath("guid2lid"), NULL), 0);
	log_fini();
	/* Every bad line is reported, not only the first. */
	ck_assert_uint_eq(bad, 5);
	log = read_file(tpath("log"));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(log, want[i]) != NULL, "no '%s' in '%s'",
		    want[i], log);
	free(log);
	ck_assert_uint_eq(lid_map_count(m), 4);
	ck_assert_uint_eq(lid_map_get(m, 1), 1);
	ck_assert_uint_eq(lid_map_get(m, 3), 3);
	ck_assert_uint_eq(lid_map_get(m, 5), 5);
	ck_assert_uint_eq(lid_map_get(m, 6), 6);
	lid_map_free(m);
}
END_TEST

START_TEST(test_file_missing)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r = { .guid = G(1) };
	unsigned bad = 99;

	ck_assert_int_eq(lid_map_load(m, tpath("nothing"), &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(lid_map_count(m), 0);
	/* Loading replaces the content, also with an empty map. */
	ck_assert_int_eq(lid_assign(m, &r, 1, 0), 0);
	ck_assert_int_eq(lid_map_load(m, tpath("no/such/dir"), &bad), 0);
	ck_assert_uint_eq(lid_map_count(m), 0);
	ck_assert_uint_eq(lid_map_get(m, G(1)), 0);
	ck_assert_int_eq(lid_map_dirty(m), 0);
	lid_map_free(m);
}
END_TEST

START_TEST(test_file_unreadable)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r = { .guid = G(1) };
	unsigned bad = 99;

	ck_assert_int_eq(mkdir(tpath("dir"), 0755), 0);
	ck_assert_int_eq(lid_assign(m, &r, 1, 0), 0);
	ck_assert_int_eq(lid_map_load(m, tpath("dir"), &bad), -1);
	ck_assert_int_ne(errno, 0);
	/* A failed load leaves the map as it was. */
	ck_assert_uint_eq(lid_map_count(m), 1);
	ck_assert_uint_eq(lid_map_get(m, G(1)), 1);
	lid_map_free(m);
}
END_TEST

START_TEST(test_save_atomic)
{
	struct lid_map *m = lid_map_new(), *n;
	struct lid_req r[4] = {
		{ .guid = G(0x30) }, { .guid = G(0x10), .cur = 500 },
		{ .guid = G(0x40) }, { .guid = G(0x20) },
	};
	const char *dirpath = tpath("state"), *path;
	char pathbuf[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	char *text, *p;
	uint64_t prev = 0, guid;
	unsigned lines = 0, bad = 99;
	int files = 0;

	ck_assert_int_eq(mkdir(dirpath, 0755), 0);
	snprintf(pathbuf, sizeof(pathbuf), "%s/guid2lid", dirpath);
	path = pathbuf;
	/* A stale temporary file from a crash is replaced, not kept. */
	write_file(tpath("state/guid2lid.tmp"), "junk", 4);
	write_file(path, "0x99 7 7\n", 9);
	ck_assert_int_eq(lid_assign(m, r, 4, 0), 0);
	ck_assert_int_eq(lid_map_save(m, path), 0);
	ck_assert_int_eq(lid_map_dirty(m), 0);

	ck_assert_ptr_nonnull(dir = opendir(dirpath));
	while ((de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.') {
			ck_assert_str_eq(de->d_name, "guid2lid");
			files++;
		}
	closedir(dir);
	ck_assert_int_eq(files, 1);

	/* A '#' header, then lines sorted by GUID. */
	text = read_file(path);
	ck_assert_int_eq(text[0], '#');
	for (p = strchr(text, '\n') + 1; *p != '\0'; p = strchr(p, '\n') + 1) {
		ck_assert_int_eq(sscanf(p, "0x%" SCNx64, &guid), 1);
		ck_assert_msg(guid > prev, "not sorted at 0x%" PRIx64, guid);
		prev = guid;
		lines++;
	}
	ck_assert_uint_eq(lines, 4);
	ck_assert_ptr_nonnull(strstr(text, "0x0002c90300000010 500 500\n"));
	free(text);

	n = lid_map_new();
	ck_assert_int_eq(lid_map_load(n, path, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(lid_map_count(n), 4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(lid_map_get(n, r[i].guid), r[i].lid);
	ck_assert_uint_eq(lid_map_get(n, 0x99), 0);
	lid_map_free(n);

	/* An empty map saves as the header alone. */
	n = lid_map_new();
	ck_assert_int_eq(lid_map_save(n, path), 0);
	ck_assert_int_eq(lid_map_load(m, path, &bad), 0);
	ck_assert_uint_eq(lid_map_count(m), 0);
	lid_map_free(n);
	lid_map_free(m);
}
END_TEST

START_TEST(test_file_not_regular)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r = { .guid = G(1) };
	char target[64];
	ssize_t n;

	ck_assert_int_eq(lid_assign(m, &r, 1, 0), 0);
	/* guid2lid linked to /dev/zero: refused at once, never read */
	ck_assert_int_eq(symlink("/dev/zero", tpath("zero")), 0);
	ck_assert_int_eq(lid_map_load(m, tpath("zero"), NULL), -1);
	ck_assert_str_eq(lid_map_why(m),
	    "not a regular file (a character device)");
	ck_assert_uint_eq(lid_map_count(m), 1);
	/* and not replaced by a save */
	ck_assert_int_eq(lid_map_save(m, tpath("zero")), -1);
	ck_assert_str_eq(lid_map_why(m),
	    "not a regular file (a character device): not replaced");
	n = readlink(tpath("zero"), target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	ck_assert_str_eq(target, "/dev/zero");
	ck_assert_int_eq(lid_map_dirty(m), 1);
	/* a FIFO without a writer: no blocking */
	ck_assert_int_eq(mkfifo(tpath("fifo"), 0600), 0);
	ck_assert_int_eq(lid_map_load(m, tpath("fifo"), NULL), -1);
	ck_assert_str_eq(lid_map_why(m), "not a regular file (a FIFO)");
	ck_assert_int_eq(lid_map_save(m, tpath("fifo")), -1);
	ck_assert_int_eq(access(tpath("fifo.tmp"), F_OK), -1);
	/* a directory */
	ck_assert_int_eq(mkdir(tpath("d"), 0755), 0);
	ck_assert_int_eq(lid_map_save(m, tpath("d")), -1);
	ck_assert_str_eq(lid_map_why(m),
	    "not a regular file (a directory): not replaced");
	/* a link to a regular file is fine */
	ck_assert_int_eq(lid_map_save(m, tpath("real")), 0);
	ck_assert_int_eq(symlink(tpath("real"), tpath("link")), 0);
	ck_assert_int_eq(lid_map_load(m, tpath("link"), NULL), 0);
	ck_assert_uint_eq(lid_map_get(m, G(1)), 1);
	lid_map_free(m);
}
END_TEST

START_TEST(test_save_no_dir)
{
	struct lid_map *m = lid_map_new();
	struct lid_req r = { .guid = G(1) };

	ck_assert_int_eq(lid_assign(m, &r, 1, 0), 0);
	errno = 0;
	ck_assert_int_eq(lid_map_save(m, tpath("missing/guid2lid")), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(lid_map_dirty(m), 1);
	ck_assert_int_eq(access(tpath("missing"), F_OK), -1);
	lid_map_free(m);
}
END_TEST

static Suite *
lid_suite(void)
{
	Suite *s = suite_create("lid");
	TCase *tc;

	tc = tcase_create("assign");
	tcase_add_unchecked_fixture(tc, setup_top, teardown_top);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fresh);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_cur_kept);
	tcase_add_test(tc, test_cur_conflicts_remembered);
	tcase_add_test(tc, test_same_cur);
	tcase_add_test(tc, test_absent_reserved);
	tcase_add_test(tc, test_duplicate_guid);
	tcase_add_test(tc, test_guid_zero);
	tcase_add_test(tc, test_forget_many);
	tcase_add_test(tc, test_exhaustion);
	tcase_add_test(tc, test_large_fabric);
	tcase_add_test(tc, test_lmc2);
	tcase_add_test(tc, test_lmc_change);
	tcase_add_test(tc, test_lmc_single);
	tcase_add_test(tc, test_lowest_after_move);
	tcase_add_test(tc, test_bad_lmc);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_add_unchecked_fixture(tc, setup_top, teardown_top);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_file_case, 0,
	    sizeof(file_cases) / sizeof(file_cases[0]));
	tcase_add_test(tc, test_file_many_bad);
	tcase_add_test(tc, test_file_missing);
	tcase_add_test(tc, test_file_unreadable);
	tcase_add_test(tc, test_save_atomic);
	tcase_add_test(tc, test_save_no_dir);
	tcase_add_test(tc, test_file_not_regular);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(lid_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
