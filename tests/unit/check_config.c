/*
 * ibsmd.conf: the golden corpus (tests/config: valid files against their
 * -nv output, invalid ones against their exact error lines), layering and
 * precedence, reload, did-you-mean, command-line values, and the schema
 * against ibsmd.conf(5) and contrib/ibsmd.conf.
 *
 * Built-in directories depend on configure's prefix; expected texts are
 * written with the packaged ones (/etc/ibsmd, /var/lib/ibsmd, /run/ibsmd)
 * and canon() maps the compiled-in ones to those before comparing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* nftw, open_memstream, asprintf */
#endif
#include <sys/stat.h>

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"

static char srcdir[PATH_MAX];		/* absolute top source directory */
static char topdir[PATH_MAX / 4];	/* per test case, made in the parent */
static char tmpdir[PATH_MAX / 2];	/* per test, inside topdir */

#define MAX_CASES 256
static char *valid_cases[MAX_CASES], *invalid_cases[MAX_CASES];
static int nvalid, ninvalid;

/* The routing engines, as ibsmd's registry (routing/) lists them: the
 * golden files, ibsmd.conf(5) and contrib/ibsmd.conf name these. This suite
 * links no routing/, so it tells config/ the names itself, the way main.c
 * passes routing_engine_name(). */
static const char *const *engines;
static const char *const ibsmd_engines[] = { "ftree", "updn", "minhop",
    "dfsssp", NULL };

static const char *
engine_name(size_t i)
{
	return engines[i];
}

/* ------------------------------------------------------------------ */
/* Helpers */

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
setup_top(void)
{
	const char *t = getenv("TMPDIR");

	if (t == NULL || *t == '\0')
		t = "/tmp";
	snprintf(topdir, sizeof(topdir), "%s/check_config.XXXXXX", t);
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

static void
setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test.XXXXXX", topdir);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
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

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fputs(text, fp) >= 0, 1);
	ck_assert_int_eq(fclose(fp), 0);
}

/* The whole file, NUL-terminated; NULL if it cannot be read. */
static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long len;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	return buf;
}

/* s with every from replaced by to (s is freed). */
static char *
replace_all(char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	char *out, *o, *p;

	if (strcmp(from, to) == 0)
		return s;
	for (p = strstr(s, from); p; p = strstr(p + lf, from))
		n++;
	out = malloc(strlen(s) + n * lt + 1);
	ck_assert_ptr_nonnull(out);
	for (o = out, p = s;;) {
		char *q = strstr(p, from);

		if (q == NULL) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, lt);
		o += lt;
		p = q + lf;
	}
	free(s);
	return out;
}

/* Compiled-in directories to the packaged ones the expected texts use. */
static char *
canon(char *s)
{
	s = replace_all(s, IBSMD_STATEDIR, "/var/lib/ibsmd");
	s = replace_all(s, IBSMD_RUNDIR, "/run/ibsmd");
	return replace_all(s, IBSMD_SYSCONFDIR, "/etc/ibsmd");
}

/* -nv text with canon() directories, the source comments padded again
 * as config_print() pads them (a longer directory moved them). */
static char *
printed(const struct ibsmd_config *cfg)
{
	char *text = NULL, *out = NULL, *line, *save = NULL, *c;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(fp);
	config_print(cfg, fp);
	ck_assert_int_eq(fclose(fp), 0);
	text = canon(text);
	fp = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(fp);
	for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		c = NULL;
		for (char *p = strstr(line, " # "); p; p = strstr(p + 1, " # "))
			c = p;
		if (line[0] == '#' || c == NULL) {
			fprintf(fp, "%s\n", line);
			continue;
		}
		while (c > line && c[-1] == ' ')
			c--;
		*c = '\0';
		c++;
		c += strspn(c, " ");
		fprintf(fp, "%s%*s%s\n", line, strlen(line) < 38 ?
		    40 - (int)strlen(line) : 2, "", c);
	}
	ck_assert_int_eq(fclose(fp), 0);
	free(text);
	return out;
}

static char *
joined(const struct config_errors *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < e->n; i++)
		fprintf(fp, "%s\n", e->line[i]);
	ck_assert_int_eq(fclose(fp), 0);
	return text;
}

/* Fails with the first line where got and want differ. */
static void
assert_text(const char *what, const char *got, const char *want)
{
	const char *g = got, *w = want;
	int line = 1;

	if (strcmp(got, want) == 0)
		return;
	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	while (g > got && g[-1] != '\n') {
		g--;
		w--;
	}
	ck_abort_msg("%s: line %d differs:\n  got:  %.*s\n  want: %.*s", what,
	    line, (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

static char *
value_of(const struct ibsmd_config *cfg, const char *name)
{
	static char buf[4][256];
	static int n;

	n = (n + 1) % 4;
	ck_assert_ptr_nonnull(config_option(name));
	config_value_text(cfg, config_option(name), buf[n], sizeof(buf[n]));
	return buf[n];
}

/* One -nv line: the source comment starts at column 41. */
static const char *
nvline(const char *setting, const char *source)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "\n%-40s# %s\n", setting, source);
	return buf;
}

#define ID(name)	((size_t)(config_option(name) - config_schema(&(size_t){0})))

/* ------------------------------------------------------------------ */
/* The golden corpus */

static void
corpus_chdir(void)
{
	char dir[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/tests/config", srcdir);
	ck_assert_msg(chdir(dir) == 0, "cannot enter %s", dir);
}

START_TEST(test_valid)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char conf[PATH_MAX], nv[PATH_MAX];
	char *want, *got;
	int r;

	corpus_chdir();
	snprintf(conf, sizeof(conf), "valid/%s.conf", valid_cases[_i]);
	snprintf(nv, sizeof(nv), "valid/%s.nv", valid_cases[_i]);
	want = slurp(nv);
	ck_assert_msg(want != NULL, "%s is missing", nv);
	config_init(&cfg);
	r = config_load(&cfg, conf, CFG_CONFIG_FILE, &errs);
	ck_assert_msg(r == CONFIG_OK, "%s: %s", conf, errs.n ? errs.line[0] :
	    "not loaded");
	got = printed(&cfg);
	assert_text(nv, got, want);
	free(got);
	free(want);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* What -nv prints loads back to the same values. */
START_TEST(test_valid_roundtrip)
{
	struct ibsmd_config a, b;
	struct config_errors errs = { 0 };
	char conf[PATH_MAX], *text;
	size_t n;
	const struct cfg_option *s = config_schema(&n);

	corpus_chdir();
	snprintf(conf, sizeof(conf), "valid/%s.conf", valid_cases[_i]);
	config_init(&a);
	config_init(&b);
	ck_assert_int_eq(config_load(&a, conf, CFG_CONFIG_FILE, &errs), 0);
	text = NULL;
	{
		size_t len = 0;
		FILE *fp = open_memstream(&text, &len);

		ck_assert_ptr_nonnull(fp);
		config_print(&a, fp);
		fclose(fp);
		ck_assert_int_eq(config_load_buffer(&b, "printed", text, len,
		    CFG_CONFIG_FILE, &errs), CONFIG_OK);
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(config_equal(&a, &b, &s[i]), "%s: %s printed "
		    "differs", conf, s[i].name);
	ck_assert_uint_eq(config_reload_diff(&a, &b, NULL, NULL), 0);
	free(text);
	config_fini(&a);
	config_fini(&b);
	config_errors_fini(&errs);
}
END_TEST

START_TEST(test_invalid)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char conf[PATH_MAX], err[PATH_MAX];
	char *want, *got, *before, *after;

	corpus_chdir();
	snprintf(conf, sizeof(conf), "invalid/%s.conf", invalid_cases[_i]);
	snprintf(err, sizeof(err), "invalid/%s.err", invalid_cases[_i]);
	want = slurp(err);
	ck_assert_msg(want != NULL, "%s is missing", err);
	config_init(&cfg);
	/* Over a non-default configuration, which must survive intact. */
	ck_assert_int_eq(config_set(&cfg, "sm_priority", "9", CFG_CMDLINE,
	    &errs), 0);
	before = printed(&cfg);
	ck_assert_int_eq(config_load(&cfg, conf, CFG_CONFIG_FILE, &errs),
	    CONFIG_INVALID);
	ck_assert_uint_gt(errs.n, 0);
	got = joined(&errs);
	assert_text(err, got, want);
	after = printed(&cfg);
	assert_text("configuration after a failed load", after, before);
	free(got);
	free(want);
	free(before);
	free(after);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

static bool
has_file(const char *dir, const char *name, const char *ext)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext);
	return access(path, F_OK) == 0;
}

/* Every case has its expected file and every expected file its case. */
START_TEST(test_corpus_complete)
{
	static const struct { const char *dir, *ext, *other; } d[] = {
		{ "valid", ".nv", ".conf" }, { "invalid", ".err", ".conf" },
	};

	corpus_chdir();
	ck_assert_int_ge(ninvalid, 20);
	ck_assert_int_ge(nvalid, 5);
	for (size_t k = 0; k < 2; k++) {
		DIR *dp = opendir(d[k].dir);
		struct dirent *de;

		ck_assert_ptr_nonnull(dp);
		while ((de = readdir(dp)) != NULL) {
			char name[256];
			size_t len = strlen(de->d_name);

			if (de->d_name[0] == '.')
				continue;
			snprintf(name, sizeof(name), "%s", de->d_name);
			if (len > 5 && !strcmp(name + len - 5, ".conf")) {
				name[len - 5] = '\0';
				ck_assert_msg(has_file(d[k].dir, name, d[k].ext),
				    "%s/%s%s is missing", d[k].dir, name,
				    d[k].ext);
			} else if (len > strlen(d[k].ext) &&
			    !strcmp(name + len - strlen(d[k].ext), d[k].ext)) {
				name[len - strlen(d[k].ext)] = '\0';
				ck_assert_msg(has_file(d[k].dir, name, ".conf"),
				    "%s/%s has no .conf", d[k].dir, de->d_name);
			} else
				ck_abort_msg("stray file %s/%s", d[k].dir,
				    de->d_name);
		}
		closedir(dp);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Schema and defaults */

START_TEST(test_schema_sane)
{
	size_t n;
	const struct cfg_option *s = config_schema(&n);

	ck_assert_uint_eq(n, CFG_NOPTIONS);
	for (size_t i = 0; i < n; i++) {
		const char *p;

		ck_assert_ptr_nonnull(s[i].name);
		for (p = s[i].name; *p; p++)
			ck_assert_msg((*p >= 'a' && *p <= 'z') || *p == '_' ||
			    (*p >= '0' && *p <= '9') || *p == CFG_SECTION_SEP,
			    "%s: not snake_case (section.name)",
			    s[i].name);
		ck_assert_ptr_eq(config_option(s[i].name), &s[i]);
		ck_assert_str_eq(config_nearest(s[i].name), s[i].name);
		ck_assert_msg(s[i].doc && s[i].doc[0] >= 'A' &&
		    s[i].doc[0] <= 'Z' && s[i].doc[strlen(s[i].doc) - 1] == '.',
		    "%s: doc must be a sentence", s[i].name);
		/* It is one comment line in contrib/ibsmd.conf. */
		ck_assert_msg(strlen(s[i].doc) <= 76, "%s: doc longer than 76",
		    s[i].name);
		ck_assert_ptr_nonnull(s[i].def);
		ck_assert(s[i].min <= s[i].max);
		if (s[i].type == CFG_ENUM || s[i].type == CFG_ENUM_LIST)
			ck_assert_ptr_nonnull(s[i].allowed);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(s[i].name, s[j].name);
	}
}
END_TEST

/* Each default prints exactly as the schema writes it. */
START_TEST(test_defaults)
{
	struct ibsmd_config cfg;
	size_t n;
	const struct cfg_option *s = config_schema(&n);
	char buf[512];

	config_init(&cfg);
	for (size_t i = 0; i < n; i++) {
		config_value_text(&cfg, &s[i], buf, sizeof(buf));
		ck_assert_str_eq(buf, s[i].def);
		ck_assert_int_eq(cfg.source[i], CFG_DEFAULT);
		ck_assert_uint_eq(cfg.line[i], 0);
	}
	for (size_t k = 0; k < CFG_NSOURCES; k++)
		ck_assert_ptr_null(cfg.path[k]);
	/* Typed fields, as sm/reload.c reads them. */
	ck_assert_uint_eq(cfg.port_guid, 0);
	ck_assert(!cfg.ports.all && cfg.ports.n == 0);
	ck_assert_int_eq(cfg.log_level, LOG_LVL_INFO);
	ck_assert_str_eq(cfg.log_file, "-");
	ck_assert(cfg.sweep_interval == 10);
	/* deadlock-free everywhere: ftree on fat trees, updn elsewhere */
	ck_assert_uint_eq(cfg.routing_engine.n, 2);
	ck_assert_str_eq(cfg.routing_engine.name[0], "ftree");
	ck_assert_str_eq(cfg.routing_engine.name[1], "updn");
	ck_assert_uint_eq(cfg.max_wire_smps, 64);
	ck_assert_uint_eq(cfg.max_smps_per_node, 4);
	ck_assert_uint_eq(cfg.smp_timeout, 200);
	ck_assert_uint_eq(cfg.smp_retries, 3);
	ck_assert_uint_eq(cfg.sm_priority, 0);
	ck_assert_uint_eq(cfg.subnet_prefix, 0xfe80000000000000ULL);
	ck_assert_uint_eq(cfg.lmc, 0);
	ck_assert_uint_eq(cfg.m_key, 0);
	ck_assert_int_eq(cfg.partition_enforcement, CFG_ENFORCE_BOTH);
	ck_assert(!cfg.allow_both_pkeys);
	ck_assert_str_eq(cfg.runtime_dir, IBSMD_RUNDIR);
	ck_assert_str_eq(cfg.state_dir, IBSMD_STATEDIR "/<port-guid>");
	ck_assert_str_eq(cfg.partitions_file, IBSMD_SYSCONFDIR
	    "/partitions.conf");
	config_fini(&cfg);
}
END_TEST

START_TEST(test_typed_fields)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	static const char text[] =
	    "log_level: debug\n"
	    "partition_enforcement: out\n"
	    "routing_engine: [updn, minhop]\n"
	    "root_guids: [0x0002c90300000a01, 0xa02]\n"
	    "ports: all\n"
	    "sweep_interval: 0.25\n"
	    "m_key: 0xffffffffffffffff\n"
	    "allow_both_pkeys: YES\n";

	config_init(&cfg);
	ck_assert_int_eq(config_load_buffer(&cfg, "t", text, strlen(text),
	    CFG_COMMON_FILE, &errs), CONFIG_OK);
	ck_assert_int_eq(cfg.log_level, LOG_LVL_DEBUG);
	ck_assert_int_eq(cfg.partition_enforcement, CFG_ENFORCE_OUT);
	ck_assert_uint_eq(cfg.routing_engine.n, 2);
	ck_assert_str_eq(cfg.routing_engine.name[0], "updn");
	ck_assert_str_eq(cfg.routing_engine.name[1], "minhop");
	ck_assert_uint_eq(cfg.root_guids.n, 2);
	ck_assert_uint_eq(cfg.root_guids.guid[0], 0x0002c90300000a01ULL);
	ck_assert_uint_eq(cfg.root_guids.guid[1], 0xa02);
	ck_assert(cfg.ports.all);
	ck_assert(cfg.sweep_interval == 0.25);
	ck_assert_uint_eq(cfg.m_key, UINT64_MAX);
	ck_assert(cfg.allow_both_pkeys);
	ck_assert_str_eq(cfg.path[CFG_COMMON_FILE], "t");
	config_fini(&cfg);
}
END_TEST

/* routing_engine allows the names it was told, no others, and says so. */
START_TEST(test_engine_names)
{
	static const char *const other[] = { "lash", "updn", "ftree",
	    NULL };
	const struct cfg_option *o = config_option("routing_engine");
	struct config_errors errs = { 0 };
	struct ibsmd_config cfg;
	char buf[512];

	engines = other;
	config_set_engine_names(engine_name);
	config_init(&cfg);
	ck_assert_int_eq(config_set(&cfg, "routing_engine", "lash,updn",
	    CFG_CMDLINE, &errs), CONFIG_OK);
	ck_assert_uint_eq(cfg.routing_engine.n, 2);
	ck_assert_str_eq(cfg.routing_engine.name[0], "lash");
	ck_assert_int_eq(config_set(&cfg, "routing_engine", "minhop",
	    CFG_CMDLINE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], "command line: routing_engine: "
	    "\"minhop\" is not one of lash, updn, ftree");
	ck_assert_str_eq(cfg.routing_engine.name[0], "lash");
	config_option_summary(o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "list of lash, updn, ftree; default: "
	    "[ftree, updn]; reloadable");
	config_fini(&cfg);
	config_errors_fini(&errs);
	engines = ibsmd_engines;
	config_set_engine_names(engine_name);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Layers */

START_TEST(test_precedence)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char *out, want[4096];

	write_file(tpath("common.conf"),
	    "sweep_interval: 1\nsm_priority: 1\nlog_level: warn\n"
	    "smp_retries: 1\nports: all\n");
	write_file(tpath("instance.conf"),
	    "# instance\nsweep_interval: 2\nsm_priority: 2\nsmp_timeout: 20\n");
	write_file(tpath("c.conf"), "sweep_interval: 3\nsmp_timeout: 30\n");
	config_init(&cfg);
	ck_assert_int_eq(config_load(&cfg, tpath("common.conf"),
	    CFG_COMMON_FILE, &errs), CONFIG_OK);
	ck_assert_int_eq(config_load(&cfg, tpath("instance.conf"),
	    CFG_INSTANCE_FILE, &errs), CONFIG_OK);
	ck_assert_int_eq(config_load(&cfg, tpath("c.conf"), CFG_CONFIG_FILE,
	    &errs), CONFIG_OK);
	ck_assert_int_eq(config_set(&cfg, "sweep_interval", "4", CFG_CMDLINE,
	    &errs), CONFIG_OK);
	ck_assert_uint_eq(errs.n, 0);

	ck_assert_str_eq(value_of(&cfg, "sweep_interval"), "4");
	ck_assert_int_eq(cfg.source[ID("sweep_interval")], CFG_CMDLINE);
	ck_assert_str_eq(value_of(&cfg, "smp_timeout"), "30");
	ck_assert_int_eq(cfg.source[ID("smp_timeout")], CFG_CONFIG_FILE);
	ck_assert_str_eq(value_of(&cfg, "sm_priority"), "2");
	ck_assert_int_eq(cfg.source[ID("sm_priority")], CFG_INSTANCE_FILE);
	ck_assert_uint_eq(cfg.line[ID("sm_priority")], 3);
	ck_assert_str_eq(value_of(&cfg, "log_level"), "warn");
	ck_assert_int_eq(cfg.source[ID("log_level")], CFG_COMMON_FILE);
	ck_assert_str_eq(value_of(&cfg, "smp_retries"), "1");
	ck_assert_str_eq(value_of(&cfg, "max_wire_smps"), "64");
	ck_assert_int_eq(cfg.source[ID("max_wire_smps")], CFG_DEFAULT);

	/* -nv names every file and each value's source and line. */
	out = printed(&cfg);
	snprintf(want, sizeof(want), "# common file: %s\n",
	    tpath("common.conf"));
	ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
	snprintf(want, sizeof(want), "# instance file: %s\n",
	    tpath("instance.conf"));
	ck_assert_ptr_nonnull(strstr(out, want));
	snprintf(want, sizeof(want), "# -c file: %s\n", tpath("c.conf"));
	ck_assert_ptr_nonnull(strstr(out, want));
	ck_assert_ptr_nonnull(strstr(out, nvline("ports: all",
	    "common file, line 5")));
	ck_assert_ptr_nonnull(strstr(out, nvline("sweep_interval: 4",
	    "command line")));
	ck_assert_ptr_nonnull(strstr(out, nvline("smp_timeout: 30",
	    "-c file, line 2")));
	ck_assert_ptr_nonnull(strstr(out, nvline("sm_priority: 2",
	    "instance file, line 3")));
	ck_assert_ptr_nonnull(strstr(out, nvline("max_wire_smps: 64",
	    "default")));
	free(out);
	config_fini(&cfg);
}
END_TEST

/* A later file overrides only what it sets; a list is replaced whole. */
START_TEST(test_layer_replaces_lists)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };

	write_file(tpath("a"), "routing_engine: [ftree, updn]\n"
	    "root_guids: [0x1, 0x2]\n");
	write_file(tpath("b"), "routing_engine: [minhop]\nroot_guids: []\n");
	config_init(&cfg);
	ck_assert_int_eq(config_load(&cfg, tpath("a"), CFG_COMMON_FILE,
	    &errs), 0);
	ck_assert_int_eq(config_load(&cfg, tpath("b"), CFG_INSTANCE_FILE,
	    &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "routing_engine"), "[minhop]");
	ck_assert_str_eq(value_of(&cfg, "root_guids"), "[]");
	ck_assert_int_eq(cfg.source[ID("root_guids")], CFG_INSTANCE_FILE);
	config_fini(&cfg);
}
END_TEST

START_TEST(test_missing_file)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char *before, *after;

	config_init(&cfg);
	before = printed(&cfg);
	ck_assert_int_eq(config_load(&cfg, tpath("none.conf"),
	    CFG_INSTANCE_FILE, &errs), CONFIG_MISSING);
	ck_assert_uint_eq(errs.n, 0);
	after = printed(&cfg);
	ck_assert_str_eq(after, before);
	ck_assert_ptr_null(cfg.path[CFG_INSTANCE_FILE]);
	free(before);
	free(after);
	config_fini(&cfg);
}
END_TEST

START_TEST(test_unreadable_file)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char want[PATH_MAX + 64];

	config_init(&cfg);
	ck_assert_int_eq(config_load(&cfg, tmpdir, CFG_CONFIG_FILE, &errs),
	    CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	snprintf(want, sizeof(want), "%s: not a regular file (a directory)",
	    tmpdir);
	ck_assert_str_eq(errs.line[0], want);
	/* A FIFO is refused at once, without waiting for a writer. */
	ck_assert_int_eq(mkfifo(tpath("fifo"), 0600), 0);
	ck_assert_int_eq(config_load(&cfg, tpath("fifo"), CFG_CONFIG_FILE,
	    &errs), CONFIG_INVALID);
	snprintf(want, sizeof(want), "%s: not a regular file (a FIFO)",
	    tpath("fifo"));
	ck_assert_str_eq(errs.line[1], want);
	unlink(tpath("fifo"));
	/* A symlink loop, and a device that never ends. */
	ck_assert_int_eq(symlink("loop", tpath("loop")), 0);
	ck_assert_int_eq(config_load(&cfg, tpath("loop"), CFG_CONFIG_FILE,
	    &errs), CONFIG_INVALID);
	ck_assert_ptr_nonnull(strstr(errs.line[2], "loop: Too many levels of "
	    "symbolic links"));
	unlink(tpath("loop"));
	ck_assert_int_eq(config_load(&cfg, "/dev/zero", CFG_CONFIG_FILE,
	    &errs), CONFIG_INVALID);
	ck_assert_str_eq(errs.line[3], "/dev/zero: not a regular file (a "
	    "character device)");
	ck_assert_uint_eq(errs.n, 4);
	/* /dev/null is an empty configuration. */
	ck_assert_int_eq(config_load(&cfg, "/dev/null", CFG_CONFIG_FILE,
	    &errs), CONFIG_OK);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

START_TEST(test_too_large)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	FILE *fp = fopen(tpath("big"), "w");

	ck_assert_ptr_nonnull(fp);
	for (int i = 0; i < 40000; i++)
		fputs("# a comment line of some thirty chars\n", fp);
	fclose(fp);
	config_init(&cfg);
	ck_assert_int_eq(config_load(&cfg, tpath("big"), CFG_CONFIG_FILE,
	    &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.line[0], ": too large: 1520000 "
	    "bytes (1048576 at most)"));
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* Deep nesting stops the load at once: libyaml's scanner is quadratic in
 * the depth, and 200000 '[' took over a minute. */
START_TEST(test_too_deep)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	size_t n = 200000;
	char *text = malloc(n + 16);

	ck_assert_ptr_nonnull(text);
	strcpy(text, "log_level: ");
	memset(text + 11, '[', n);
	text[11 + n] = '\0';
	config_init(&cfg);
	ck_assert_int_eq(config_load_buffer(&cfg, "t", text, strlen(text),
	    CFG_CONFIG_FILE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], "t:1:77: nested deeper than 64 levels");
	/* a list of 64 nested lists is only the wrong value */
	strcpy(text, "m: ");
	memset(text + 3, '[', 65);
	memset(text + 68, ']', 65);
	text[133] = '\0';
	config_errors_fini(&errs);
	ck_assert_int_eq(config_load_buffer(&cfg, "t", text, strlen(text),
	    CFG_CONFIG_FILE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], "t:1:1: unknown option \"m\"");
	free(text);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* port_guid and ports belong to the common file (or -c), not an
 * instance's own. */
START_TEST(test_instance_only_options)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	static const char text[] = "sm_priority: 1\nport_guid: 0x1\n"
	    "ports: all\n";

	config_init(&cfg);
	ck_assert_int_eq(config_load_buffer(&cfg, "i.conf", text,
	    strlen(text), CFG_INSTANCE_FILE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 2);
	ck_assert_str_eq(errs.line[0], "i.conf:2:1: port_guid: not allowed in "
	    "a per-instance file (only in the common file)");
	ck_assert_str_eq(errs.line[1], "i.conf:3:1: ports: not allowed in a "
	    "per-instance file (only in the common file)");
	ck_assert_str_eq(value_of(&cfg, "sm_priority"), "0");
	ck_assert_int_eq(config_load_buffer(&cfg, "c.conf", text,
	    strlen(text), CFG_CONFIG_FILE, &errs), CONFIG_OK);
	ck_assert_int_eq(config_load_buffer(&cfg, "c.conf", text,
	    strlen(text), CFG_COMMON_FILE, &errs), CONFIG_OK);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

START_TEST(test_too_many_errors)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	for (int i = 0; i < 150; i++)
		fprintf(fp, "bogus_%d: 1\n", i);
	fclose(fp);
	config_init(&cfg);
	ck_assert_int_eq(config_load_buffer(&cfg, "m.conf", text, len,
	    CFG_CONFIG_FILE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 101);
	ck_assert_str_eq(errs.line[0], "m.conf:1:1: unknown option "
	    "\"bogus_0\"");
	ck_assert_str_eq(errs.line[99], "m.conf:100:1: unknown option "
	    "\"bogus_99\"");
	ck_assert_str_eq(errs.line[100], "m.conf: too many errors, giving up");
	free(text);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The command line */

START_TEST(test_set_values)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };

	config_init(&cfg);
	ck_assert_int_eq(config_set(&cfg, "routing_engine", "ftree,minhop",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "routing_engine"), "[ftree, minhop]");
	ck_assert_int_eq(config_set(&cfg, "routing_engine", "[updn, minhop]",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "routing_engine"), "[updn, minhop]");
	ck_assert_int_eq(config_set(&cfg, "routing_engine", "updn ftree",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "routing_engine"), "[updn, ftree]");
	ck_assert_int_eq(config_set(&cfg, "ports", "all", CFG_CMDLINE, &errs),
	    0);
	ck_assert_str_eq(value_of(&cfg, "ports"), "all");
	ck_assert_int_eq(config_set(&cfg, "ports", "0x1,0x2", CFG_CMDLINE,
	    &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "ports"),
	    "[0x0000000000000001, 0x0000000000000002]");
	ck_assert_int_eq(config_set(&cfg, "root_guids", "", CFG_CMDLINE,
	    &errs), 0);
	ck_assert_str_eq(value_of(&cfg, "root_guids"), "[]");
	ck_assert_int_eq(config_set(&cfg, "port_guid", "0x0002C90300001001",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_uint_eq(cfg.port_guid, 0x0002c90300001001ULL);
	ck_assert_int_eq(config_set(&cfg, "sweep_interval", "0.5",
	    CFG_CMDLINE, &errs), 0);
	ck_assert(cfg.sweep_interval == 0.5);
	ck_assert_int_eq(config_set(&cfg, "max_wire_smps", "0x100",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_uint_eq(cfg.max_wire_smps, 256);
	ck_assert_int_eq(config_set(&cfg, "allow_both_pkeys", "yes",
	    CFG_CMDLINE, &errs), 0);
	ck_assert(cfg.allow_both_pkeys);
	/* No YAML on the command line: these are just strings. */
	ck_assert_int_eq(config_set(&cfg, "log_file", "-", CFG_CMDLINE,
	    &errs), 0);
	ck_assert_str_eq(cfg.log_file, "-");
	ck_assert_int_eq(config_set(&cfg, "log_file", "null", CFG_CMDLINE,
	    &errs), 0);
	ck_assert_str_eq(cfg.log_file, "null");
	ck_assert_int_eq(config_set(&cfg, "state_dir", "rel/dir #1",
	    CFG_CMDLINE, &errs), 0);
	ck_assert_str_eq(cfg.state_dir, "rel/dir #1");
	/* " #" would start a comment: -nv quotes it. */
	ck_assert_str_eq(value_of(&cfg, "state_dir"), "\"rel/dir #1\"");
	ck_assert_uint_eq(errs.n, 0);
	config_fini(&cfg);
}
END_TEST

static const struct {
	const char *name, *value, *error;
} bad_sets[] = {
	{ "sm_priority", "16",
	  "command line: sm_priority: 16 is out of range (0 to 15)" },
	{ "sm_priority", "high",
	  "command line: sm_priority: expected an integer, got \"high\"" },
	{ "sm_priority", "",
	  "command line: sm_priority: missing value" },
	{ "sweep_interval", "-1",
	  "command line: sweep_interval: -1 is out of range (0 for off, or "
	  "0.1 to 86400 seconds)" },
	{ "sweep_interval", "1e-9",
	  "command line: sweep_interval: 1e-9 is out of range (0 for off, or "
	  "0.1 to 86400 seconds)" },
	{ "log_level", "loud",
	  "command line: log_level: \"loud\" is not one of error, warn, info, "
	  "debug" },
	{ "routing_engine", "",
	  "command line: routing_engine: empty list (give at least one of "
	  "ftree, updn, minhop, dfsssp)" },
	{ "routing_engine", "minhop,dor",
	  "command line: routing_engine: \"dor\" is not one of ftree, updn, "
	  "minhop, dfsssp" },
	{ "routing_engine", "minhop,minhop",
	  "command line: routing_engine: minhop is listed twice" },
	{ "port_guid", "12",
	  "command line: port_guid: \"12\" is not a GUID (0x and up to 16 hex "
	  "digits)" },
	{ "ports", "[all]",
	  "command line: ports: all stands alone, not in a list (write ports: "
	  "all)" },
	{ "root_guids", "all",
	  "command line: root_guids: \"all\" is not a GUID (0x and up to 16 "
	  "hex digits)" },
	{ "state_dir", "",
	  "command line: state_dir: empty path" },
	{ "lmc", "8",
	  "command line: lmc: 8 is out of range (0 to 7)" },
	{ "smp_timeout", "010",
	  "command line: smp_timeout: 010 has a leading zero (write decimal "
	  "without it, or hex after 0x)" },
	{ "smp_retries", "3x",
	  "command line: smp_retries: expected an integer, got \"3x\"" },
	{ "allow_both_pkeys", "2",
	  "command line: allow_both_pkeys: expected true or false, got \"2\"" },
	{ "sweep-interval", "5",
	  "command line: unknown option \"sweep-interval\" (did you mean "
	  "sweep_interval?)" },
	{ "colour", "5",
	  "command line: unknown option \"colour\"" },
};

START_TEST(test_set_errors)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char *before, *after;

	config_init(&cfg);
	before = printed(&cfg);
	ck_assert_int_eq(config_set(&cfg, bad_sets[_i].name,
	    bad_sets[_i].value, CFG_CMDLINE, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], bad_sets[_i].error);
	after = printed(&cfg);
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reload */

struct diff_seen {
	char now[512], later[512];
};

static void
on_diff(void *arg, const struct cfg_option *opt,
    const struct ibsmd_config *cur, const struct ibsmd_config *next)
{
	struct diff_seen *d = arg;
	char *l = opt->reloadable ? d->now : d->later;
	char a[128], b[128];

	config_value_text(cur, opt, a, sizeof(a));
	config_value_text(next, opt, b, sizeof(b));
	snprintf(l + strlen(l), 512 - strlen(l), "%s%s %s->%s", *l ? ", " : "",
	    opt->name, a, b);
}

START_TEST(test_reload_diff)
{
	struct ibsmd_config cur, next;
	struct config_errors errs = { 0 };
	struct diff_seen d = { "", "" };
	static const char a[] = "sweep_interval: 10\nport_guid: 0x1\n"
	    "log_level: info\nstate_dir: /a\nsm_priority: 3\n";
	static const char b[] = "sweep_interval: 5\nport_guid: 0x2\n"
	    "log_level: debug\nstate_dir: /b\nsm_priority: 3\n"
	    "routing_engine: [updn, minhop]\nsubnet_prefix: 0xfe80000000000001\n";

	config_init(&cur);
	config_init(&next);
	ck_assert_int_eq(config_load_buffer(&cur, "a", a, strlen(a),
	    CFG_COMMON_FILE, &errs), 0);
	ck_assert_int_eq(config_load_buffer(&next, "b", b, strlen(b),
	    CFG_COMMON_FILE, &errs), 0);
	ck_assert_uint_eq(config_reload_diff(&cur, &next, on_diff, &d), 6);
	ck_assert_str_eq(d.now, "log_level info->debug, sweep_interval 10->5, "
	    "routing_engine [ftree, updn]->[updn, minhop]");
	ck_assert_str_eq(d.later, "port_guid 0x0000000000000001->"
	    "0x0000000000000002, state_dir /a->/b, subnet_prefix "
	    "0xfe80000000000000->0xfe80000000000001");

	/* Reloadable values are taken; the others stay as running. */
	config_apply_reloadable(&cur, &next);
	ck_assert(cur.sweep_interval == 5);
	ck_assert_int_eq(cur.log_level, LOG_LVL_DEBUG);
	ck_assert_str_eq(value_of(&cur, "routing_engine"), "[updn, minhop]");
	ck_assert_uint_eq(cur.port_guid, 1);
	ck_assert_str_eq(cur.state_dir, "/a");
	ck_assert_uint_eq(cur.subnet_prefix, 0xfe80000000000000ULL);
	ck_assert_int_eq(cur.source[ID("routing_engine")], CFG_COMMON_FILE);
	ck_assert_uint_eq(cur.line[ID("routing_engine")], 6);
	memset(&d, 0, sizeof(d));
	ck_assert_uint_eq(config_reload_diff(&cur, &next, on_diff, &d), 3);
	ck_assert_str_eq(d.now, "");
	config_fini(&cur);
	config_fini(&next);
}
END_TEST

/* The way sm/reload.c reloads: a fresh configuration from all layers; one bad
 * file and the running one is kept. */
START_TEST(test_reload_bad_file_changes_nothing)
{
	struct ibsmd_config cur, next;
	struct config_errors errs = { 0 };
	char *before, *after;

	write_file(tpath("common"), "sweep_interval: 3\n");
	write_file(tpath("inst"), "sm_priority: 4\n");
	config_init(&cur);
	ck_assert_int_eq(config_load(&cur, tpath("common"), CFG_COMMON_FILE,
	    &errs), 0);
	ck_assert_int_eq(config_load(&cur, tpath("inst"), CFG_INSTANCE_FILE,
	    &errs), 0);
	before = printed(&cur);

	write_file(tpath("common"), "sweep_interval: 7\n");
	write_file(tpath("inst"), "sm_priority: 44\nlog_level: debug\n");
	config_init(&next);
	ck_assert_int_eq(config_load(&next, tpath("common"), CFG_COMMON_FILE,
	    &errs), 0);
	ck_assert_int_eq(config_load(&next, tpath("inst"), CFG_INSTANCE_FILE,
	    &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_ptr_nonnull(strstr(errs.line[0], "inst:1:14: sm_priority: "
	    "44 is out of range (0 to 15)"));
	config_fini(&next);	/* the caller drops it: cur is untouched */
	after = printed(&cur);
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
	config_fini(&cur);
	config_errors_fini(&errs);
}
END_TEST

START_TEST(test_copy_is_deep)
{
	struct ibsmd_config a, b;
	struct config_errors errs = { 0 };
	static const char t[] = "root_guids: [0x1, 0x2]\nstate_dir: /x\n";

	config_init(&a);
	ck_assert_int_eq(config_load_buffer(&a, "t", t, strlen(t),
	    CFG_COMMON_FILE, &errs), 0);
	config_copy(&b, &a);
	ck_assert_ptr_ne(a.root_guids.guid, b.root_guids.guid);
	ck_assert_ptr_ne(a.state_dir, b.state_dir);
	ck_assert_ptr_ne(a.path[CFG_COMMON_FILE], b.path[CFG_COMMON_FILE]);
	config_fini(&a);
	ck_assert_str_eq(value_of(&b, "root_guids"),
	    "[0x0000000000000001, 0x0000000000000002]");
	ck_assert_str_eq(b.state_dir, "/x");
	config_fini(&b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Did you mean, helpers */

static const struct {
	const char *typo, *want;
} nearest_cases[] = {
	{ "sweep_intervl", "sweep_interval" },
	{ "sweep-interval", "sweep_interval" },
	{ "SweepInterval", "sweep_interval" },
	{ "sweep_interval_s", "sweep_interval" },
	{ "sweep_inetrval", "sweep_interval" },
	{ "loglevel", "log_level" },
	{ "log_levels", "log_level" },
	{ "priority", "sm_priority" },
	{ "routing_engines", "routing_engine" },
	{ "engine", "routing_engine" },
	{ "mkey", "m_key" },
	{ "partition_file", "partitions_file" },
	{ "root_guid", "root_guids" },
	{ "smp_timeout_ms", "smp_timeout" },
	{ "max_smps_per_nodes", "max_smps_per_node" },
	{ "lcm", "lmc" },
	{ "log", NULL },
	{ "x", NULL },
	{ "frobnicate", NULL },
	{ "", NULL },
};

START_TEST(test_nearest)
{
	const char *got = config_nearest(nearest_cases[_i].typo);

	if (nearest_cases[_i].want == NULL)
		ck_assert_msg(got == NULL, "%s: got %s", nearest_cases[_i].typo,
		    got);
	else
		ck_assert_msg(got && !strcmp(got, nearest_cases[_i].want),
		    "%s: got %s, want %s", nearest_cases[_i].typo,
		    got ? got : "nothing", nearest_cases[_i].want);
}
END_TEST

START_TEST(test_paths)
{
	char buf[128];

	ck_assert_int_eq(config_expand("/var/lib/ibsmd/<port-guid>",
	    0x0002c90300001001ULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/var/lib/ibsmd/0x0002c90300001001");
	ck_assert_int_eq(config_expand("/a/<port-guid>/b", 1, buf,
	    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/a/0x0000000000000001/b");
	ck_assert_int_eq(config_expand("/plain", 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/plain");
	ck_assert_int_eq(config_expand("/a/<port-guid>", 1, buf, 10), -1);
	ck_assert_int_eq(config_instance_path(0x0002c90300001001ULL, buf,
	    sizeof(buf)), 0);
	ck_assert_str_eq(buf, IBSMD_SYSCONFDIR "/ibsmd.0x0002c90300001001.conf");
	ck_assert_int_eq(config_instance_path(1, buf, 8), -1);
	ck_assert_str_eq(CONFIG_COMMON_PATH, IBSMD_SYSCONFDIR "/ibsmd.conf");
	ck_assert_str_eq(config_source_name(CFG_DEFAULT), "default");
	ck_assert_str_eq(config_source_name(CFG_CMDLINE), "command line");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Documentation against the schema */

/* s as roff text: backslashes escaped, hyphens as \-. */
static char *
roff(const char *s)
{
	char *out = malloc(strlen(s) * 2 + 3), *o = out;

	ck_assert_ptr_nonnull(out);
	if (*s == '.' || *s == '\'') {
		*o++ = '\\';
		*o++ = '&';
	}
	for (; *s; s++) {
		if (*s == '\\' || *s == '-')
			*o++ = '\\';
		*o++ = *s == '\\' ? 'e' : *s;
	}
	*o = '\0';
	return out;
}

static char *
summary(const struct cfg_option *o)
{
	char buf[512];

	config_option_summary(o, buf, sizeof(buf));
	return canon(strdup(buf));
}

/* The lines of ibsmd.conf(5)'s entry for name (".TP" ".B name" up to the
 * next .TP or .SH), or NULL. */
static char *
man_entry(const char *man, const char *name)
{
	char head[128];
	const char *p, *end, *e2;

	snprintf(head, sizeof(head), "\n.TP\n.B %s\n", name);
	p = strstr(man, head);
	if (p == NULL)
		return NULL;
	p += strlen(head);
	end = strstr(p, "\n.TP\n");
	e2 = strstr(p, "\n.SH ");
	if (end == NULL || (e2 != NULL && e2 < end))
		end = e2;
	return strndup(p - 1, end ? (size_t)(end - p) + 2 : strlen(p) + 1);
}

static bool
has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

static char *
read_src(const char *rel)
{
	char path[PATH_MAX + 64];
	char *text;

	snprintf(path, sizeof(path), "%s/%s", srcdir, rel);
	text = slurp(path);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	return text;
}

/* Every option has an entry, in schema order, carrying the schema's
 * summary (type, range, default, reloadable) and doc line verbatim. */
START_TEST(test_man_page)
{
	char *man = read_src("man/ibsmd.conf.5");
	const char *opts = strstr(man, "\n.SH OPTIONS\n"), *p, *last = NULL;
	size_t n;
	const struct cfg_option *s = config_schema(&n);

	ck_assert_ptr_nonnull(opts);
	for (size_t i = 0; i < n; i++) {
		char head[128], *entry = man_entry(opts, s[i].name);
		char *sum = summary(&s[i]), *rs = roff(sum), *rd = roff(s[i].doc);

		ck_assert_msg(entry != NULL, "ibsmd.conf.5: no entry for %s",
		    s[i].name);
		ck_assert_msg(has_line(entry, rs), "ibsmd.conf.5: %s: the line "
		    "\"%s\" is missing", s[i].name, rs);
		ck_assert_msg(has_line(entry, rd), "ibsmd.conf.5: %s: the line "
		    "\"%s\" is missing", s[i].name, rd);
		snprintf(head, sizeof(head), "\n.TP\n.B %s\n", s[i].name);
		p = strstr(opts, head);
		ck_assert_msg(last == NULL || p > last, "ibsmd.conf.5: %s is "
		    "out of schema order", s[i].name);
		last = p;
		free(entry);
		free(sum);
		free(rs);
		free(rd);
	}
	/* And nothing else is documented as an option. */
	for (p = strstr(opts, "\n.TP\n.B "); p; p = strstr(p + 1, "\n.TP\n.B ")) {
		const char *sect = strstr(opts + 1, "\n.SH ");
		char name[64];

		if (sect != NULL && p > sect)
			break;
		sscanf(p + 8, "%63s", name);
		ck_assert_msg(config_option(name) != NULL, "ibsmd.conf.5 "
		    "documents %s, which is not an option", name);
	}
	free(man);
}
END_TEST

/* contrib/ibsmd.conf: each option commented out at its default, under its
 * doc and summary; with the '#' removed it loads to the defaults. */
START_TEST(test_contrib_example)
{
	char *text = read_src("contrib/ibsmd.conf"), *p, *line, *save = NULL;
	char *uncommented = calloc(1, strlen(text) + 1);
	struct ibsmd_config def, cfg;
	struct config_errors errs = { 0 };
	size_t n, nset = 0;
	const struct cfg_option *s = config_schema(&n);
	char want[512], *sum;

	ck_assert_ptr_nonnull(uncommented);
	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "# %s", s[i].doc);
		ck_assert_msg(has_line(text, want), "contrib/ibsmd.conf: no "
		    "line \"%s\"", want);
		sum = summary(&s[i]);
		snprintf(want, sizeof(want), "# %s", sum);
		free(sum);
		ck_assert_msg(has_line(text, want), "contrib/ibsmd.conf: no "
		    "line \"%s\"", want);
		snprintf(want, sizeof(want), "#%s: ", s[i].name);
		ck_assert_msg(strstr(text, want) != NULL, "contrib/ibsmd.conf: "
		    "%s is missing", s[i].name);
	}
	/* "#name: value" lines, uncommented; every name must be an option. */
	for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '#' || line[1] < 'a' || line[1] > 'z')
			continue;
		p = line + 1 + strspn(line + 1,
		    "abcdefghijklmnopqrstuvwxyz0123456789_.");
		if (*p != ':')
			continue;
		*p = '\0';
		ck_assert_msg(config_option(line + 1) != NULL, "contrib/"
		    "ibsmd.conf: %s is not an option", line + 1);
		*p = ':';
		strcat(uncommented, line + 1);
		strcat(uncommented, "\n");
		nset++;
	}
	ck_assert_uint_eq(nset, n);
	/* The example is written with the packaged directories. */
	uncommented = replace_all(uncommented, "/var/lib/ibsmd", IBSMD_STATEDIR);
	uncommented = replace_all(uncommented, "/run/ibsmd", IBSMD_RUNDIR);
	uncommented = replace_all(uncommented, "/etc/ibsmd", IBSMD_SYSCONFDIR);
	config_init(&def);
	config_init(&cfg);
	ck_assert_msg(config_load_buffer(&cfg, "contrib/ibsmd.conf",
	    uncommented, strlen(uncommented), CFG_CONFIG_FILE, &errs) == 0,
	    "%s", errs.n ? errs.line[0] : "?");
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(config_equal(&def, &cfg, &s[i]), "contrib/"
		    "ibsmd.conf: %s is not at its default", s[i].name);
		ck_assert_int_eq(cfg.source[i], CFG_CONFIG_FILE);
	}
	/* And as shipped (all commented out) it changes nothing. */
	config_fini(&cfg);
	config_init(&cfg);
	free(text);
	text = read_src("contrib/ibsmd.conf");
	ck_assert_int_eq(config_load_buffer(&cfg, "contrib/ibsmd.conf", text,
	    strlen(text), CFG_COMMON_FILE, &errs), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(cfg.source[i], CFG_DEFAULT);
	free(text);
	free(uncommented);
	config_fini(&def);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* ------------------------------------------------------------------ */

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Case names (file names without .conf) of srcdir/tests/config/dir. */
static int
list_cases(const char *dir, char **out)
{
	char path[PATH_MAX + 32];
	struct dirent *de;
	DIR *dp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/tests/config/%s", srcdir, dir);
	if ((dp = opendir(path)) == NULL) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	while ((de = readdir(dp)) != NULL && n < MAX_CASES) {
		size_t len = strlen(de->d_name);

		if (len > 5 && !strcmp(de->d_name + len - 5, ".conf"))
			out[n++] = strndup(de->d_name, len - 5);
	}
	closedir(dp);
	qsort(out, (size_t)n, sizeof(*out), cmp_names);
	return n;
}

static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("corpus");
	tcase_add_loop_test(tc, test_valid, 0, nvalid);
	tcase_add_loop_test(tc, test_valid_roundtrip, 0, nvalid);
	tcase_add_loop_test(tc, test_invalid, 0, ninvalid);
	tcase_add_test(tc, test_corpus_complete);
	suite_add_tcase(s, tc);

	tc = tcase_create("schema");
	tcase_add_test(tc, test_schema_sane);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_typed_fields);
	tcase_add_test(tc, test_engine_names);
	tcase_add_loop_test(tc, test_nearest, 0,
	    sizeof(nearest_cases) / sizeof(nearest_cases[0]));
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_man_page);
	tcase_add_test(tc, test_contrib_example);
	suite_add_tcase(s, tc);

	tc = tcase_create("layers");
	tcase_add_unchecked_fixture(tc, setup_top, teardown_top);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_precedence);
	tcase_add_test(tc, test_layer_replaces_lists);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_unreadable_file);
	tcase_add_test(tc, test_too_large);
	tcase_add_test(tc, test_too_deep);
	tcase_add_test(tc, test_instance_only_options);
	tcase_add_test(tc, test_too_many_errors);
	tcase_add_test(tc, test_set_values);
	tcase_add_loop_test(tc, test_set_errors, 0,
	    sizeof(bad_sets) / sizeof(bad_sets[0]));
	tcase_add_test(tc, test_reload_diff);
	tcase_add_test(tc, test_reload_bad_file_changes_nothing);
	tcase_add_test(tc, test_copy_is_deep);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *dir = getenv("srcdir");
	SRunner *sr;
	int failed;

	/* automake's harness exports srcdir (relative to the build
	 * directory); TOP_SRCDIR is the project's own. */
	if (dir == NULL || *dir == '\0')
		dir = getenv("TOP_SRCDIR");
	if (dir == NULL || *dir == '\0')
		dir = ".";
	if (realpath(dir, srcdir) == NULL) {
		perror(dir);
		return EXIT_FAILURE;
	}
	engines = ibsmd_engines;
	config_set_engine_names(engine_name);
	nvalid = list_cases("valid", valid_cases);
	ninvalid = list_cases("invalid", invalid_cases);
	sr = srunner_create(config_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < nvalid; i++)
		free(valid_cases[i]);
	for (int i = 0; i < ninvalid; i++)
		free(invalid_cases[i]);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
