/*
 * OpenSM's options (config/opensm.c): the table against the file
 * `opensm -c` writes (OpenSM 3.3.23, tests/config/opensm/), the conversion
 * of that file and of one with a dozen and more options changed (golden
 * output, and the output loaded back by ibsmd's loader), OpenSM's names
 * in ibsmd.conf and on the command line (aliases read, the others refused
 * with what to write), an opensm.conf passed as an ibsmd.conf, and
 * NVIDIA's virtualization numbers and words.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/opensm.h"

static char srcdir[PATH_MAX];
static const char *const engines[] = { "ftree", "updn", "minhop", NULL };

static const char *
engine_name(size_t i)
{
	return engines[i];
}

static char *
slurp(const char *rel, size_t *len)
{
	char path[PATH_MAX + 64];
	FILE *fp;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/config/opensm/%s", srcdir, rel);
	fp = fopen(path, "r");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

/* A reader that knows one file, /etc/opensm/roots.txt. */
static int
fake_read(void *arg, const char *path, char **text, size_t *len, char *why,
    size_t whylen)
{
	(void)arg;
	if (strcmp(path, "/etc/opensm/roots.txt") != 0) {
		snprintf(why, whylen, "no such file");
		*text = NULL;
		return CONFIG_MISSING;
	}
	*text = slurp("roots.txt", len);
	return CONFIG_OK;
}

static char *
convert(const char *rel, struct config_errors *errs, int *rc)
{
	struct opensm_reader rd = { .read = fake_read };
	char *text, *out = NULL;
	size_t len, olen = 0;
	FILE *fp = open_memstream(&out, &olen);

	ck_assert_ptr_nonnull(fp);
	text = slurp(rel, &len);
	*rc = opensm_convert(rel, text, len, &rd, fp, errs);
	fclose(fp);
	free(text);
	return out;
}

static char *
value_of(const struct ibsmd_config *cfg, const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	ck_assert_ptr_nonnull(config_option(name));
	config_value_text(cfg, config_option(name), buf[k], sizeof(buf[k]));
	return buf[k];
}

/* ------------------------------------------------------------------ */

/* Every option `opensm -c` writes is in the table, in its order, with the
 * default it writes; the table has nothing else but NVIDIA's virt_*. */
START_TEST(test_table_complete)
{
	char *text = slurp("opensm-3.3.23.conf", NULL), *line, *save = NULL;
	size_t n, next = 0, seen = 0;
	const struct osm_option *t = opensm_options(&n);

	for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		const char *val;

		if (line[0] == '#' || sscanf(line, "%127s", name) != 1)
			continue;
		val = line + strlen(name) + 1;
		ck_assert_msg(next < n && strcmp(t[next].name, name) == 0,
		    "table entry %zu is %s, opensm -c writes %s", next,
		    next < n ? t[next].name : "(end)", name);
		ck_assert_msg(t[next].def && strcmp(t[next].def, val) == 0,
		    "%s: default %s in the table, %s written", name,
		    t[next].def, val);
		if (t[next].kind == OSM_ALIAS || t[next].kind == OSM_CONVERT)
			ck_assert_msg(config_option(t[next].ibsmd) != NULL,
			    "%s names %s, no ibsmd option", name,
			    t[next].ibsmd);
		else
			ck_assert_msg(t[next].why != NULL, "%s: no reason",
			    name);
		next++;
		seen++;
	}
	ck_assert_uint_eq(seen, 160);
	for (; next < n; next++)
		ck_assert_msg(strncmp(t[next].name, "virt_", 5) == 0,
		    "%s is not written by opensm -c", t[next].name);
	free(text);
}
END_TEST

/* OpenSM's defaults: nothing carried but the partitions file (ibsmd reads
 * OpenSM's grammar where OpenSM kept it); every line named. */
START_TEST(test_convert_defaults)
{
	struct config_errors errs = { 0 };
	struct ibsmd_config def, cfg;
	char *out, *text, *line, *save = NULL;
	size_t n;
	const struct cfg_option *s = config_schema(&n);
	int rc;

	out = convert("opensm-3.3.23.conf", &errs, &rc);
	ck_assert_int_eq(rc, 0);
	config_init(&def);
	config_init(&cfg);
	ck_assert_msg(config_load_buffer(&cfg, "converted", out, strlen(out),
	    CFG_CONFIG_FILE, &errs) == CONFIG_OK, "%s", errs.n ?
	    errs.line[0] : "");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s[i].name, "partitions_file") == 0)
			ck_assert_str_eq(value_of(&cfg, s[i].name),
			    "/etc/opensm/partitions.conf");
		else
			ck_assert_msg(config_equal(&def, &cfg, &s[i]),
			    "%s: %s converted from OpenSM's defaults",
			    s[i].name, value_of(&cfg, s[i].name));
	}
	/* each line of the input: carried or named */
	text = slurp("opensm-3.3.23.conf", NULL);
	for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		char name[128], want[160];

		if (line[0] == '#' || sscanf(line, "%127s", name) != 1)
			continue;
		snprintf(want, sizeof(want), "#   %s ", name);
		ck_assert_msg(strstr(out, want) != NULL ||
		    strcmp(name, "partition_config_file") == 0, "%s is "
		    "neither carried nor named", name);
	}
	free(text);
	free(out);
	config_fini(&def);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* A dozen and more options changed: the golden output, and what it loads
 * to. */
START_TEST(test_convert_changed)
{
	struct config_errors errs = { 0 };
	struct ibsmd_config cfg;
	char *out, *want;
	int rc;

	out = convert("changed.conf", &errs, &rc);
	ck_assert_int_eq(rc, 0);
	{
		/* what it gave, for a look when it differs */
		FILE *fp = fopen("check_opensm.changed.out", "w");

		if (fp != NULL) {
			fputs(out, fp);
			fclose(fp);
		}
	}
	want = slurp("changed.ibsmd", NULL);
	ck_assert_msg(strcmp(out, want) == 0, "the conversion of changed.conf "
	    "differs from changed.ibsmd (see check_opensm.changed.out)");
	remove("check_opensm.changed.out");
	config_init(&cfg);
	ck_assert_msg(config_load_buffer(&cfg, "converted", out, strlen(out),
	    CFG_CONFIG_FILE, &errs) == CONFIG_OK, "%s", errs.n ?
	    errs.line[0] : "");
	ck_assert_str_eq(value_of(&cfg, "sm_priority"), "12");
	ck_assert_str_eq(value_of(&cfg, "sm_poll_interval"), "2.5");
	ck_assert_str_eq(value_of(&cfg, "sm_poll_retries"), "6");
	ck_assert_str_eq(value_of(&cfg, "smp_timeout"), "150");
	ck_assert_str_eq(value_of(&cfg, "smp_retries"), "5");
	ck_assert_str_eq(value_of(&cfg, "partitions_file"),
	    "/etc/opensm/site-partitions.conf");
	ck_assert_str_eq(value_of(&cfg, "m_key"), "0x00000000deadbeef");
	ck_assert_str_eq(value_of(&cfg, "m_key_protect_bits"), "1");
	ck_assert_str_eq(value_of(&cfg, "m_key_lease_period"), "60");
	ck_assert_str_eq(value_of(&cfg, "virtualization.assigned_guid_byte"),
	    "42");
	ck_assert_str_eq(value_of(&cfg, "routing_engine"),
	    "[ftree, updn, minhop]");
	ck_assert_str_eq(value_of(&cfg, "root_guids"),
	    "[0x0002c90300000a01, 0x0002c90300000a02]");
	ck_assert_str_eq(value_of(&cfg, "log_level"), "debug");
	ck_assert_str_eq(value_of(&cfg, "log_file"), "/var/log/ibsm-site.log");
	ck_assert_str_eq(value_of(&cfg, "partition_enforcement"), "in");
	ck_assert_str_eq(value_of(&cfg, "sweep_interval"), "30");
	ck_assert_str_eq(value_of(&cfg, "max_wire_smps"), "8");
	ck_assert_str_eq(value_of(&cfg, "consolidate_ipv6_snm"), "true");
	ck_assert_str_eq(value_of(&cfg, "sm_key"), "0x00000000000000aa");
	ck_assert_str_eq(value_of(&cfg, "node_name_map"),
	    "/etc/opensm/node-names");
	ck_assert_str_eq(value_of(&cfg, "dump_files_dir"),
	    "/var/log/opensm-dumps/");
	ck_assert_str_eq(value_of(&cfg, "virtualization.mode"), "enabled");
	ck_assert_str_eq(value_of(&cfg,
	    "virtualization.max_ports_in_process"), "32");
	ck_assert_str_eq(value_of(&cfg, "lmc"), "2");
	ck_assert_str_eq(value_of(&cfg, "qos"), "true");	/* issue 27 */
	/* and what was not carried says why */
	ck_assert_ptr_nonnull(strstr(out, "#   lash_start_vl 2: LASH routing "
	    "is not in ibsmd"));
	free(out);
	free(want);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* The details of the conversion, on small files. */
static char *
convert_text(const char *text, int *rc, struct config_errors *errs)
{
	struct opensm_reader rd = { .read = fake_read };
	char *out = NULL;
	size_t olen = 0;
	FILE *fp = open_memstream(&out, &olen);

	*rc = opensm_convert("t.conf", text, strlen(text), &rd, fp, errs);
	fclose(fp);
	return out;
}

START_TEST(test_convert_details)
{
	struct config_errors errs = { 0 };
	char *out;
	int rc;

	/* the last line of a name counts; no_partition_enforcement wins */
	out = convert_text("sm_priority 3\nsm_priority 5  # again\n"
	    "part_enforce out\nno_partition_enforcement TRUE\n", &rc, &errs);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "\nsm_priority: 5 "));
	ck_assert_ptr_nonnull(strstr(out, "\npartition_enforcement: off "));
	ck_assert_ptr_nonnull(strstr(out, "#   part_enforce out: "
	    "no_partition_enforcement TRUE wins, as in OpenSM\n"));
	free(out);
	/* OpenSM's booleans: TRUE or false; quotes stripped; unknown named */
	out = convert_text("allow_both_pkeys true\nconsolidate_ipv6_snm_req "
	    "TRUE\nlog_file \"/var/log/sm log\"\nfrobnicate 1\n", &rc, &errs);
	ck_assert_ptr_null(strstr(out, "\nallow_both_pkeys:"));
	ck_assert_ptr_nonnull(strstr(out, "\nconsolidate_ipv6_snm: true "));
	ck_assert_ptr_nonnull(strstr(out, "\nlog_file: /var/log/sm log "));
	ck_assert_ptr_nonnull(strstr(out, "#   frobnicate 1: not an option of "
	    "OpenSM 3.3.23 or of ibsmd\n"));
	free(out);
	/* routing engines ibsmd lacks; no_fallback; a file not readable */
	out = convert_text("routing_engine lash,updn,no_fallback\n"
	    "root_guid_file /nowhere\n", &rc, &errs);
	ck_assert_ptr_nonnull(strstr(out, "\nrouting_engine: [updn] "));
	ck_assert_ptr_nonnull(strstr(out, "#   root_guid_file /nowhere: cannot "
	    "read /nowhere: no such file: list its GUIDs in root_guids\n"));
	free(out);
	out = convert_text("routing_engine dfsssp\n", &rc, &errs);
	ck_assert_ptr_nonnull(strstr(out, "#   routing_engine dfsssp: not in "
	    "ibsmd: dfsssp; ibsmd's default [ftree, updn] is deadlock-free\n"));
	free(out);
	/* milliseconds to seconds; log flags to levels */
	out = convert_text("sminfo_polling_timeout 500\nlog_flags 0x01\n", &rc,
	    &errs);
	ck_assert_ptr_nonnull(strstr(out, "\nsm_poll_interval: 0.5 "));
	ck_assert_ptr_nonnull(strstr(out, "\nlog_level: error "));
	free(out);
	/* NVIDIA's virt_enabled numbers */
	for (int v = 0; v < 3; v++) {
		static const char *const mode[] = { NULL, "disabled",
		    "enabled" };
		char in[64], want[64];

		snprintf(in, sizeof(in), "virt_enabled %d\n", v);
		out = convert_text(in, &rc, &errs);
		if (mode[v] == NULL)
			ck_assert_ptr_nonnull(strstr(out, "#   virt_enabled 0: "
			    "ibsmd's virtualization.mode\n"));
		else {
			snprintf(want, sizeof(want), "\nvirtualization.mode: "
			    "%s ", mode[v]);
			ck_assert_ptr_nonnull(strstr(out, want));
		}
		free(out);
	}
	/* a YAML file is no opensm.conf */
	out = convert_text("sm_priority: 3\nsweep_interval: 2\n", &rc, &errs);
	ck_assert_int_eq(rc, -1);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], "t.conf: not an opensm.conf (its lines "
	    "are YAML's \"name: value\": an ibsmd.conf?)");
	free(out);
	config_errors_fini(&errs);
}
END_TEST

/* ------------------------------------------------------------------ */
/* OpenSM's names in ibsmd.conf and -O */

static int
load(const char *text, struct ibsmd_config *cfg, struct config_errors *errs)
{
	config_init(cfg);
	return config_load_buffer(cfg, "t.conf", text, strlen(text),
	    CFG_CONFIG_FILE, errs);
}

/* Every alias sets its ibsmd option; every other name is refused with
 * "OpenSM's NAME ...", at its position. */
START_TEST(test_names_everywhere)
{
	size_t n;
	const struct osm_option *t = opensm_options(&n);

	for (size_t i = 0; i < n; i++) {
		struct ibsmd_config cfg;
		struct config_errors errs = { 0 };
		char text[512], want[256];
		const char *val = t[i].def;
		int rc;

		if (config_option(t[i].name) != NULL)
			continue;	/* the same name in ibsmd */
		if (t[i].kind == OSM_ALIAS) {
			const struct cfg_option *o = config_option(t[i].ibsmd);
			char mid[32];

			snprintf(mid, sizeof(mid), "%.0f", (o->min + o->max) / 2);

			/* a value ibsmd reads, other than its default */
			val = o->type == CFG_BOOL ? "true" :
			    o->type == CFG_PATH ? "/some/where" :
			    o->type == CFG_GUID ? "0x2" :
			    o->type == CFG_ENUM ? o->allowed[1] : mid;
			snprintf(text, sizeof(text), "%s: %s\n", t[i].name, val);
			rc = load(text, &cfg, &errs);
			ck_assert_msg(rc == CONFIG_OK, "%s: %s", t[i].name,
			    errs.n ? errs.line[0] : "");
			ck_assert_int_eq(cfg.source[o - config_schema(&(size_t)
			    { 0 })], CFG_CONFIG_FILE);
			config_fini(&cfg);
			config_init(&cfg);
			rc = config_set(&cfg, t[i].name, val, CFG_CMDLINE, &errs);
			ck_assert_msg(rc == CONFIG_OK, "-O %s: %s", t[i].name,
			    errs.n ? errs.line[0] : "");
			config_fini(&cfg);
			config_errors_fini(&errs);
			continue;
		}
		snprintf(text, sizeof(text), "sm_priority: 3\n%s: %s\n",
		    t[i].name, val && strcmp(val, "(null)") ? val : "1");
		rc = load(text, &cfg, &errs);
		ck_assert_int_eq(rc, CONFIG_INVALID);
		ck_assert_uint_eq(errs.n, 1);
		snprintf(want, sizeof(want), "t.conf:2:1: OpenSM's %s ",
		    t[i].name);
		ck_assert_msg(strncmp(errs.line[0], want, strlen(want)) == 0,
		    "%s", errs.line[0]);
		config_fini(&cfg);
		config_errors_fini(&errs);
		config_init(&cfg);
		ck_assert_int_eq(config_set(&cfg, t[i].name, "1", CFG_CMDLINE,
		    &errs), CONFIG_INVALID);
		snprintf(want, sizeof(want), "command line: OpenSM's %s ",
		    t[i].name);
		ck_assert_msg(strncmp(errs.line[0], want, strlen(want)) == 0,
		    "%s", errs.line[0]);
		config_fini(&cfg);
		config_errors_fini(&errs);
	}
}
END_TEST

/* The messages, exactly, every error of the file at once. */
START_TEST(test_names_messages)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	static const char *const want[] = {
		"t.conf:1:1: OpenSM's sminfo_polling_timeout is ibsmd's "
		    "sm_poll_interval, in seconds, not milliseconds: write "
		    "sm_poll_interval: 2.5",
		"t.conf:2:1: OpenSM's log_flags is ibsmd's log_level, ERROR is "
		    "error, INFO info, VERBOSE or DEBUG debug: write log_level: "
		    "info",
		"t.conf:3:1: OpenSM's no_partition_enforcement is ibsmd's "
		    "partition_enforcement, TRUE is partition_enforcement: off: "
		    "write partition_enforcement: off",
		"t.conf:4:1: OpenSM's root_guid_file is ibsmd's root_guids, a "
		    "list of the file's GUIDs",
		"t.conf:5:1: OpenSM's use_optimized_slvl has no equivalent in "
		    "ibsmd: ibsmd writes a switch's SL2VL tables per input and "
		    "output port, never the optimized all-ports form",
		"t.conf:6:1: OpenSM's packet_life_time is no option in ibsmd: "
		    "ibsmd writes LifeTimeValue 0x12 to every switch",
		"t.conf:7:25: m_key_protection_level (m_key_protect_bits): 4 is "
		    "out of range (0 to 3)",
		"t.conf:9:1: part_enforce (partition_enforcement): set twice "
		    "(first on line 8)",
	};

	ck_assert_int_eq(load("sminfo_polling_timeout: 2500\n"
	    "log_flags: 0x03\nno_partition_enforcement: TRUE\n"
	    "root_guid_file: /etc/opensm/roots\nuse_optimized_slvl: TRUE\n"
	    "packet_life_time: 0x12\nm_key_protection_level: 4\n"
	    "partition_enforcement: out\npart_enforce: in\n", &cfg, &errs),
	    CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < errs.n; i++)
		ck_assert_str_eq(errs.line[i], want[i]);
	config_fini(&cfg);
	config_errors_fini(&errs);
	/* aliases: the value goes to ibsmd's option; -nv shows ibsmd's name */
	ck_assert_int_eq(load("partition_config_file: /etc/opensm/p.conf\n"
	    "transaction_timeout: 300\nguid: 0x0002c90300001001\n"
	    "consolidate_ipv6_snm_req: yes\n", &cfg, &errs), CONFIG_OK);
	ck_assert_str_eq(value_of(&cfg, "partitions_file"),
	    "/etc/opensm/p.conf");
	ck_assert_str_eq(value_of(&cfg, "smp_timeout"), "300");
	ck_assert_str_eq(value_of(&cfg, "port_guid"), "0x0002c90300001001");
	ck_assert_str_eq(value_of(&cfg, "consolidate_ipv6_snm"), "true");
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

/* An opensm.conf given where an ibsmd.conf is expected. */
START_TEST(test_opensm_conf_refused)
{
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };
	char *text = slurp("opensm-3.3.23.conf", NULL);
	unsigned line;

	ck_assert(opensm_conf_like(text, strlen(text), &line));
	ck_assert_uint_eq(line, 5);
	ck_assert_int_eq(load(text, &cfg, &errs), CONFIG_INVALID);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_str_eq(errs.line[0], "t.conf:5:1: this is an opensm.conf "
	    "(OpenSM's \"name value\" lines), not an ibsmd.conf (YAML): "
	    "convert it with ibsmd --convert-opensm-conf t.conf");
	config_fini(&cfg);
	config_errors_fini(&errs);
	/* two lines are enough; YAML with one slip is still YAML */
	ck_assert(opensm_conf_like("sm_priority 5\nsweep_interval 3\n", 33,
	    &line));
	ck_assert(!opensm_conf_like("sm_priority: 5\nsweep_interval 3\n"
	    "log_level: info\n", 48, &line));
	ck_assert(!opensm_conf_like("# nothing\n", 10, &line));
	free(text);
}
END_TEST

/* NVIDIA's virt_enabled: 0 ignore (ibsmd's off), 1 disable (ibsmd's
 * disabled), 2 enable; VMware's "enable"; "ignore" refused. */
START_TEST(test_virt_words)
{
	static const struct {
		const char *text, *mode;
		bool note;
	} ok[] = {
		{ "virt_enabled: 0", "off", false },
		{ "virt_enabled: 1", "disabled", false },
		{ "virt_enabled: 2", "enabled", false },
		{ "virtualization.mode: 2", "enabled", false },
		{ "virtualization:\n  mode: 1", "disabled", false },
		{ "virtualization.mode: disable", "disabled", true },
		{ "virtualization.mode: enable", "enabled", true },
		{ "virt_enabled: enable", "enabled", true },
		{ "virtualization.mode: disabled", "disabled", false },
	};
	struct ibsmd_config cfg;
	struct config_errors errs = { 0 };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(load(ok[i].text, &cfg, &errs) == CONFIG_OK,
		    "%s: %s", ok[i].text, errs.n ? errs.line[0] : "");
		ck_assert_str_eq(value_of(&cfg, "virtualization.mode"),
		    ok[i].mode);
		ck_assert_uint_eq(errs.nnotes, ok[i].note ? 1 : 0);
		config_fini(&cfg);
		config_errors_fini(&errs);
	}
	ck_assert_int_eq(load("virtualization.mode: enable\n", &cfg, &errs),
	    CONFIG_OK);
	ck_assert_str_eq(errs.note[0], "t.conf:1:22: note: virtualization.mode: "
	    "\"enable\" read as enabled: NVIDIA's and VMware's word for mode 2");
	config_fini(&cfg);
	config_errors_fini(&errs);
	ck_assert_int_eq(load("virtualization.mode: ignore\n", &cfg, &errs),
	    CONFIG_INVALID);
	ck_assert_str_eq(errs.line[0], "t.conf:1:22: virtualization.mode: "
	    "\"ignore\" is refused: NVIDIA's ignore (virt_enabled 0) is "
	    "ibsmd's off; vports read but none written is disabled "
	    "(NVIDIA's 1)");
	config_fini(&cfg);
	config_errors_fini(&errs);
	ck_assert_int_eq(load("virt_enabled: 3\n", &cfg, &errs),
	    CONFIG_INVALID);
	ck_assert_str_eq(errs.line[0], "t.conf:1:15: virt_enabled "
	    "(virtualization.mode): \"3\" is not one of off, disabled, enabled");
	config_fini(&cfg);
	config_errors_fini(&errs);
	config_init(&cfg);
	ck_assert_int_eq(config_set(&cfg, "virt_enabled", "1", CFG_CMDLINE,
	    &errs), CONFIG_OK);
	ck_assert_str_eq(value_of(&cfg, "virtualization.mode"), "disabled");
	ck_assert_int_eq(config_set(&cfg, "virtualization.mode", "ignore",
	    CFG_CMDLINE, &errs), CONFIG_INVALID);
	config_fini(&cfg);
	config_errors_fini(&errs);
}
END_TEST

static Suite *
opensm_suite(void)
{
	Suite *s = suite_create("opensm");
	TCase *tc = tcase_create("opensm");

	tcase_add_test(tc, test_table_complete);
	tcase_add_test(tc, test_convert_defaults);
	tcase_add_test(tc, test_convert_changed);
	tcase_add_test(tc, test_convert_details);
	tcase_add_test(tc, test_names_everywhere);
	tcase_add_test(tc, test_names_messages);
	tcase_add_test(tc, test_opensm_conf_refused);
	tcase_add_test(tc, test_virt_words);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *dir = getenv("srcdir");
	SRunner *sr;
	int failed;

	if (dir == NULL || *dir == '\0')
		dir = getenv("TOP_SRCDIR");
	if (dir == NULL || *dir == '\0')
		dir = ".";
	if (realpath(dir, srcdir) == NULL) {
		perror(dir);
		return EXIT_FAILURE;
	}
	config_set_engine_names(engine_name);
	sr = srunner_create(opensm_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
