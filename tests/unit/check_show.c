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
#include "partitions/partitions.h"
#include "sm/show.h"
#include "sm/show_sa.h"
#include "sm/stats.h"
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

/* The leaf paths of a JSON text ("a.b.0.c"), one per line, sorted: a
 * small reader of what json.c writes (no whitespace, escapes kept). */
static const char *
leaf_walk(const char *p, char *path, size_t len, char ***out, size_t *n)
{
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		unsigned idx = 0;

		p++;
		while (*p != close) {
			size_t l = len;

			if (len > 0)
				path[l++] = '.';
			if (close == '}') {
				const char *e = strchr(p + 1, '"');

				memcpy(path + l, p + 1, (size_t)(e - p - 1));
				l += (size_t)(e - p - 1);
				p = e + 2;      /* past the '"' and the ':' */
			} else
				l += (size_t)sprintf(path + l, "%u", idx++);
			path[l] = '\0';
			p = leaf_walk(p, path, l, out, n);
			path[len] = '\0';
			if (*p == ',')
				p++;
		}
		return p + 1;
	}
	*out = realloc(*out, (*n + 1) * sizeof(**out));
	(*out)[(*n)++] = strdup(path);
	if (*p == '"') {
		for (p++; *p != '"'; p++)
			if (*p == '\\')
				p++;
		return p + 1;
	}
	return p + strcspn(p, ",}]");
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
print_sorted(char **v, size_t n, FILE *fp)
{
	qsort(v, n, sizeof(*v), cmp_strp);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "\n%s", v[i]);
		free(v[i]);
	}
	fputc('\n', fp);
	free(v);
}

static void
json_leaf_paths(const char *json, FILE *fp)
{
	char path[1024] = "", **v = NULL;
	size_t n = 0;

	leaf_walk(json, path, 0, &v, &n);
	print_sorted(v, n, fp);
}

/* The first word of every line, sorted, as json_leaf_paths prints. */
static char *
flat_keys_only(const char *flat)
{
	char **v = NULL, *out = NULL;
	size_t n = 0, len = 0;
	FILE *fp = open_memstream(&out, &len);

	for (const char *p = flat; *p; ) {
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = strndup(p, strcspn(p, " \n"));
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	print_sorted(v, n, fp);
	fclose(fp);
	return out;
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

/* A policy over the ft2 of setup(): HCA node 6 (leaf 0, port 1) is a full
 * member of blue, every CA a limited one of red. */
static struct pkey_policy *
show_policy(struct pkey_tables *pk)
{
	struct pkey_errors e;
	struct pkey_policy *p;
	char text[512];
	uint64_t g6 = f.ports[fabric_port_idx(&f, 6, 1)].guid;

	for (uint32_t n = 0; n < f.nnodes; n++) {
		f.nodes[n].partition_cap = 8;
		f.nodes[n].enforce_cap = 8;
		snprintf(f.nodes[n].desc, sizeof(f.nodes[n].desc), "n%u", n);
		f.nodes[n].desc_valid = true;
	}
	snprintf(text, sizeof(text), "Default=0x7fff : ALL=full;\n"
	    "blue=0x0010, ipoib, mtu=5, scope=5 : 0x%016" PRIx64 "=full, "
	    "\"n7\";\nred=0x0020 : ALL_CAS=limited;\n", g6);
	pkey_errors_init(&e);
	p = pkey_policy_parse("p.conf", text, strlen(text), &e);
	ck_assert_msg(p != NULL, "%s", pkey_errors_text(&e, true));
	pkey_errors_fini(&e);
	if (pk != NULL)
		pkey_tables_build(p, &f, NULL, &(struct pkey_opts){ 0 }, pk,
		    NULL, NULL);
	return p;
}

START_TEST(test_ports_pkeys)
{
	struct pkey_tables pk = { 0 };
	struct pkey_policy *p = show_policy(&pk);
	char what[32];

	snprintf(what, sizeof(what), "0x%016" PRIx64, f.nodes[6].guid);
	show_init(&s, false);
	ck_assert_int_eq(show_ports_pkeys(&s, &f, &pk, what), 0);
	ck_assert_msg(strstr(s.text.p, "P_KEYS") != NULL, "%s", s.text.p);
	ck_assert_msg(strstr(s.text.p, "0xffff,0x8010,0x0020") != NULL, "%s",
	    s.text.p);
	show_fini(&s);
	show_init(&s, true);
	ck_assert_int_eq(show_ports_pkeys(&s, &f, &pk, what), 0);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_msg(strstr(s.j.buf, "\"pkeys\":[{\"index\":0,\"pkey\":65535,"
	    "\"membership\":\"full\"},{\"index\":1,\"pkey\":32784,"
	    "\"membership\":\"full\"},{\"index\":2,\"pkey\":32,"
	    "\"membership\":\"limited\"}],\"pkey_table\":\"port\"") != NULL,
	    "%s", s.j.buf);
	show_fini(&s);
	/* the leaf port facing it enforces the same set */
	show_init(&s, true);
	snprintf(what, sizeof(what), "0x%016" PRIx64, f.nodes[0].guid);
	ck_assert_int_eq(show_ports_pkeys(&s, &f, &pk, what), 0);
	ck_assert_msg(strstr(s.j.buf, "\"pkey_table\":\"enforcement\"") != NULL,
	    "%s", s.j.buf);
	/* without tables: null */
	show_fini(&s);
	show_init(&s, true);
	ck_assert_int_eq(show_ports(&s, &f, what), 0);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"pkeys\":null"));
	pkey_tables_free(&pk);
	pkey_policy_free(p);
}
END_TEST

START_TEST(test_partitions_json)
{
	struct pkey_policy *p = show_policy(NULL);
	char want[512];
	uint64_t g6 = f.ports[fabric_port_idx(&f, 6, 1)].guid;
	uint64_t g7 = f.ports[fabric_port_idx(&f, 7, 1)].guid;

	show_init(&s, true);
	show_partitions(&s, p, &f, "text");
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_msg(strstr(s.j.buf, "{\"name\":\"blue\",\"pkey\":16,"
	    "\"pkey_hex\":\"0x0010\",\"implicit\":false,\"generated\":false,"
	    "\"flags\":{\"ipoib\":true,\"indx0\":false,\"mtu\":5,\"rate\":3,"
	    "\"sl\":0,\"scope\":[5],\"qkey\":\"0x00000000\",\"tclass\":0,"
	    "\"flow_label\":0},\"groups\":[],\"members\":[") != NULL, "%s",
	    s.j.buf);
	snprintf(want, sizeof(want), "{\"member\":\"0x%016" PRIx64 "\","
	    "\"kind\":\"guid\",\"membership\":\"full\",\"ports\":[{\"guid\":"
	    "\"0x%016" PRIx64 "\",\"port\":1,\"lid\":%u,", g6, g6,
	    f.ports[fabric_port_idx(&f, 6, 1)].lid);
	ck_assert_msg(strstr(s.j.buf, want) != NULL, "%s\nin %s", want, s.j.buf);
	ck_assert_msg(strstr(s.j.buf, "{\"member\":\"\\\"n7\\\"\","
	    "\"kind\":\"description\",\"membership\":\"limited\"") != NULL,
	    "%s", s.j.buf);
	/* the partition's own ports: the GUID entry and n7's port */
	snprintf(want, sizeof(want), "\"desc\":\"n7\",\"name\":\"n7\","
	    "\"membership\":\"limited\"}]}],\"ports\":[");
	ck_assert_msg(strstr(s.j.buf, want) != NULL, "%s", s.j.buf);
	snprintf(want, sizeof(want), "\"guid\":\"0x%016" PRIx64 "\"", g7);
	ck_assert_ptr_nonnull(strstr(s.j.buf, want));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "{\"member\":\"ALL_CAS\","
	    "\"kind\":\"keyword\",\"membership\":\"limited\""));
	ck_assert_ptr_null(strstr(s.j.buf, "sm_port_forced_full"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"fabric\":true,"
	    "\"policy\":\"text\"}"));
	show_fini(&s);
	/* no fabric yet: ports are null */
	show_init(&s, true);
	show_partitions(&s, p, NULL, NULL);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"membership\":\"full\","
	    "\"ports\":null"));
	show_fini(&s);
	show_init(&s, false);
	show_partitions(&s, p, &f, "the text");
	ck_assert_str_eq(s.text.p, "the text\n");
	pkey_policy_free(p);
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
	    "null,\"name\":null,\"nports\":4,\"linked\":4,\"endports\":"
	    "[{\"port\":0,"));
}
END_TEST

START_TEST(test_status)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "none",
	    .last_why = "" };
	struct show_counter c[2] = {
		{ "smp", "Get", "NodeInfo", { 5, 4, 1, 0 } },
		{ "smp", "Set", "PortInfo", { 7, 7, 0, 0 } },
	};
	struct route_report rep = { .engine = "minhop", .lids = 14,
	    .deadlock_free = -1 };
	struct show_status st = { .version = "0", .sm_state = "MASTER",
	    .log_level = "info", .sweep = &sw, .counters = c,
	    .ncounters = 2 };

	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"fabric\":null"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"routing\":null"));
	ck_assert_msg(strstr(s.j.buf, "\"counters\":{\"smp\":{\"Get\":{"
	    "\"NodeInfo\":{\"sent\":5,\"recv\":4,\"timeout\":1,\"error\":0}},"
	    "\"Set\":{\"PortInfo\":{\"sent\":7,\"recv\":7,\"timeout\":0,"
	    "\"error\":0}}}}") != NULL, "%s", s.j.buf);
	show_fini(&s);

	st.fabric = &f;
	st.report = &rep;
	rep.hops[0] = 6;
	rep.hops[2] = 9;
	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_msg(strstr(s.j.buf, "\"fabric\":{\"in_use\":true,\"nodes\":14,"
	    "\"switches\":6,\"cas\":8,\"routers\":0,\"ca_ports\":8,\"lids\":14,"
	    "\"links\":16}") != NULL, "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"deadlock_free\":null"));
	show_fini(&s);

	show_init(&s, false);
	show_status(&s, &st);
	ck_assert_msg(strstr(s.text.p, "\nfabric: {in_use: true, nodes: 14, "
	    "switches: 6, cas: 8, routers: 0, ca_ports: 8, lids: 14, links: "
	    "16}\n") != NULL, "%s", s.text.p);
	ck_assert_ptr_nonnull(strstr(s.text.p, "\n  hops: [6, 0, 9, 0,"));
	ck_assert_msg(strstr(s.text.p, "\n      Get:\n        NodeInfo: {sent: "
	    "5, recv: 4, timeout: 1, error: 0}\n") != NULL, "%s", s.text.p);
}
END_TEST

/* A standby tells the truth: the master it stands by for (GUID, LID,
 * priority), no subnet of its own up, the fabric as it last saw it;
 * the same in JSON, text, the stats file and the STATUS= line. A master
 * lists its standbys. */
START_TEST(test_status_sm)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "heavy",
	    .enabled = true,
	    .last_ok = true, .last_why = "", .sweeps = 3, .heavy_sweeps = 1,
	    .seen = { .switches = 6, .cas = 8, .endports = 14, .links = 16 },
	    .seen_nodes = 14, .seen_wall = 1795000000 };
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
	    .sweep = &sw, .port_guid = 0x100013, .now = 1795000012 };
	char line[512], *flat = NULL;
	size_t flen = 0;
	FILE *fp;

	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"sm_state\":\"STANDBY\""));
	ck_assert_msg(strstr(s.j.buf, "\"master\":{\"self\":false,\"guid\":"
	    "\"0x0000000000100001\",\"lid\":1,\"priority\":12},\"standbys\":[]")
	    != NULL, "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"subnet_up\":false"));
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"up_since\"") == NULL ? "" :
	    NULL);
	ck_assert_msg(strstr(s.j.buf, "\"fabric\":{\"in_use\":false,\"nodes\":14,"
	    "\"switches\":6,\"cas\":8,\"routers\":0,\"ca_ports\":0,\"lids\":14,"
	    "\"links\":16,\"seen_at\":") != NULL, "%s", s.j.buf);
	ck_assert_ptr_nonnull(strstr(s.j.buf, "\"seen_seconds_ago\":12}"));
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

	show_status_line(&st, line, sizeof(line));
	ck_assert_str_eq(line, "STANDBY for master 0x0000000000100001 (LID 1, "
	    "priority 12); fabric as last seen: 14 nodes, 14 LIDs; 3 sweeps");

	show_init(&s, false);
	show_status(&s, &st);
	ck_assert_msg(strstr(s.text.p, "\n  master: {self: false, guid: "
	    "0x0000000000100001, lid: 1, priority: 12}\n") != NULL, "%s",
	    s.text.p);
	ck_assert_ptr_nonnull(strstr(s.text.p, "\n  subnet_up: false\n"));
	ck_assert_ptr_nonnull(strstr(s.text.p, "\nsummary: STANDBY for master "));
	show_fini(&s);

	fp = open_memstream(&flat, &flen);
	show_status_flat(&st, fp);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(flat, "\nsm.master.guid 0x0000000000100001\n"
	    "sm.master.lid 1\nsm.master.priority 12\n"));
	ck_assert_ptr_nonnull(strstr(flat, "\nsweep.subnet_up 0\n"));
	ck_assert_ptr_nonnull(strstr(flat, "\nfabric.in_use 0\nfabric.nodes 14\n"));
	ck_assert_ptr_nonnull(strstr(flat, "\nsm.peers.1.guid 0x0000000000100035\n"));
	free(flat);

	/* the master: itself, and its standby */
	sm.sm_state = SM_MASTER;
	sm.state = "MASTER";
	sm.master_guid = 0;
	peers[0].state = SM_STANDBY;
	peers[0].state_name = "STANDBY";
	st.sm_state = "MASTER";
	st.fabric = &f;
	sw.subnet_up = true;
	show_master_of(&st, &(struct show_master){ 0 });
	show_status_line(&st, line, sizeof(line));
	ck_assert_str_eq(line, "MASTER, subnet up; 1 standby; fabric: 14 nodes, "
	    "14 LIDs; 3 sweeps");
	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(strstr(s.j.buf, "\"master\":{\"self\":true,\"guid\":"
	    "\"0x0000000000100013\",") != NULL, "%s", s.j.buf);
	ck_assert_msg(strstr(s.j.buf, "\"standbys\":[{\"guid\":"
	    "\"0x0000000000100001\",\"lid\":1,\"priority\":12,"
	    "\"sm_key_match\":true}]") != NULL, "%s", s.j.buf);
	show_fini(&s);
	/* a failure says why */
	sw.subnet_up = false;
	sw.last_ok = false;
	sw.last_why = "discovery failed: the SM's own port (GUID "
	    "0x0000000000100013) is down";
	st.note = "last reload rejected (2 errors, partitions), running "
	    "configuration and partitions kept";
	show_status_line(&st, line, sizeof(line));
	ck_assert_str_eq(line, "MASTER, subnet not up: discovery failed: the "
	    "SM's own port (GUID 0x0000000000100013) is down; 1 standby; "
	    "fabric: 14 nodes, 14 LIDs; 3 sweeps; last reload rejected (2 "
	    "errors, partitions), running configuration and partitions kept");
}
END_TEST

/* One document, three renderings, one set of keys: every "a.b.c" of the
 * stats file is a path of the JSON document and the other way round. */
START_TEST(test_status_same_keys)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "heavy",
	    .last_ok = true, .last_why = "", .subnet_up = true,
	    .seen_wall = 1795000000 };
	struct show_counter c[1] = { { "sa", "GetResp", "NodeRecord",
	    { 1, 1, 0, 0 } } };
	struct smstate_peer peers[1] = {
		{ .guid = 0x100035, .lid = 9, .priority = 3,
		  .state = SM_STANDBY, .state_name = "STANDBY",
		  .answered = true, .last_answer = 1 },
	};
	struct smstate_status sm = { .state = "MASTER", .sm_state = SM_MASTER,
	    .npeers = 1, .peers = peers };
	struct route_report rep = { .engine = "ftree", .deadlock_free = 1 };
	struct show_status st = { .version = "0", .sm_state = "MASTER",
	    .sm = &sm, .log_level = "info", .sweep = &sw, .fabric = &f,
	    .report = &rep, .counters = c, .ncounters = 1 };
	char *flat = NULL, *json_paths = NULL, *text;
	size_t flen = 0, jlen = 0;
	FILE *fp;

	fp = open_memstream(&flat, &flen);
	show_status_flat(&st, fp);
	fclose(fp);
	/* the JSON's leaf paths, by a walk of the text */
	show_init(&s, true);
	show_status(&s, &st);
	fp = open_memstream(&json_paths, &jlen);
	json_leaf_paths(s.j.buf, fp);
	fclose(fp);
	show_fini(&s);
	text = flat_keys_only(flat);
	ck_assert_msg(strcmp(text, json_paths) == 0, "flat keys:\n%s\nJSON "
	    "paths:\n%s", text, json_paths);
	ck_assert_ptr_nonnull(strstr(text, "\nmad.counters.sa.GetResp."
	    "NodeRecord.sent\n"));
	free(text);
	free(flat);
	free(json_paths);
}
END_TEST

/* Every section of the counter table (sm/stats.c) present, each counter
 * a distinct value: the stats file holds each value under the key of its
 * own field, the JSON has the same paths and the text tree the same
 * names. */
START_TEST(test_status_every_counter)
{
	struct sweep_status sw = { .state = "idle", .last_kind = "heavy",
	    .last_ok = true, .last_why = "", .virt = true, .vport_hosts = 2,
	    .vports_up = 3, .vport_own_lids = 4, .vports_managed = 5,
	    .vport_sweeps = 6, .vport_clears = 7, .inherit_kept = 8,
	    .inherit_mixed = 9, .inherit_computed = 10 };
	struct sa_stats sa = { .requests = 21, .answered = 22, .errors = 23,
	    .not_serving = 24, .bad_key = 25, .malformed = 26,
	    .unsupported = 27, .dropped = 28, .answer_max_us = 29,
	    .reports_sent = 30, .reports_acked = 31, .reports_failed = 32,
	    .services = 33, .subscriptions = 34 };
	struct sa_mcmember_stats mcm = { .joins = 41, .leaves = 42,
	    .creates = 43, .refused = 44, .traps = 45, .unjoinable = 46 };
	struct vfguid_stats vg = { .sets = 51, .confirmed = 52, .failed = 53,
	    .restored = 54, .adopted = 55, .writes = 56, .active = 57 };
	struct vports_result vr = { .pkey_writes = 61, .lid_writes = 62,
	    .armed = 63, .activated = 64, .smps = 65, .timeouts = 66,
	    .errors = 100, .rereg_hosts = 67, .rereg_vports = 68 };
	struct sm_mcast_stats ms = { .groups = 71, .members = 72, .mlids = 73,
	    .created = 74, .deleted = 75, .joins = 76, .leaves = 77,
	    .no_mlid = 78, .forgotten = 79, .updates = 80, .rebuilds = 81,
	    .mft_writes = 82, .mft_failures = 83, .top_sets = 84,
	    .mlid_limit = 85 };
	struct show_status st = { .version = "0", .sm_state = "MASTER",
	    .log_level = "info", .sweep = &sw, .sa = &sa, .sa_serving = true,
	    .mcm = &mcm, .vfguid = &vg, .vprog = &vr, .mcast = &ms };
	char *flat = NULL, *json_paths = NULL, *keys;
	size_t flen = 0, jlen = 0;
	FILE *fp;

	fp = open_memstream(&flat, &flen);
	show_status_flat(&st, fp);
	fclose(fp);
	ck_assert_msg(strstr(flat, "\nsweep.inherit.lids_kept 8\n"
	    "sweep.inherit.lids_mixed 9\nsweep.inherit.lids_computed 10\n")
	    != NULL, "%s", flat);
	ck_assert_msg(strstr(flat, "\nsa.serving 1\nsa.requests 21\n"
	    "sa.answered 22\nsa.errors 23\nsa.not_serving 24\nsa.bad_key 25\n"
	    "sa.malformed 26\nsa.unsupported 27\nsa.dropped 28\n"
	    "sa.answer_max_us 29\nsa.services 33\nsa.subscriptions 34\n"
	    "sa.reports_sent 30\nsa.reports_acked 31\nsa.reports_failed 32\n"
	    "sa.mcmember.joins 41\nsa.mcmember.leaves 42\n"
	    "sa.mcmember.creates 43\nsa.mcmember.refused 44\n"
	    "sa.mcmember.unjoinable 46\n") != NULL, "%s", flat);
	ck_assert_msg(strstr(flat, "\nalias_guids.assigned 57\n"
	    "alias_guids.sets 51\nalias_guids.confirmed 52\n"
	    "alias_guids.failed 53\nalias_guids.restored 54\n"
	    "alias_guids.adopted 55\nalias_guids.file_writes 56\n"
	    "vports.hosts 2\nvports.up 3\nvports.own_lids 4\n"
	    "vports.managed 5\nvports.vport_sweeps 6\nvports.clears 7\n"
	    "vports.last_program.pkey_writes 61\n"
	    "vports.last_program.lid_writes 62\nvports.last_program.armed 63\n"
	    "vports.last_program.activated 64\nvports.last_program.smps 65\n"
	    "vports.last_program.failures 166\n"
	    "vports.last_program.rereg_hosts 67\n"
	    "vports.last_program.rereg_vports 68\n") != NULL, "%s", flat);
	ck_assert_msg(strstr(flat, "\nmcast.groups 71\nmcast.members 72\n"
	    "mcast.mlids 73\nmcast.mlid_limit 85\nmcast.created 74\n"
	    "mcast.deleted 75\nmcast.joins 76\nmcast.leaves 77\n"
	    "mcast.no_mlid 78\nmcast.forgotten 79\nmcast.updates 80\n"
	    "mcast.rebuilds 81\nmcast.mft_writes 82\nmcast.mft_failures 83\n"
	    "mcast.top_sets 84\n") != NULL, "%s", flat);

	show_init(&s, true);
	show_status(&s, &st);
	ck_assert_msg(balanced(s.j.buf), "%s", s.j.buf);
	fp = open_memstream(&json_paths, &jlen);
	json_leaf_paths(s.j.buf, fp);
	fclose(fp);
	show_fini(&s);
	keys = flat_keys_only(flat);
	ck_assert_msg(strcmp(keys, json_paths) == 0, "flat keys:\n%s\nJSON "
	    "paths:\n%s", keys, json_paths);

	show_init(&s, false);
	show_status(&s, &st);
	ck_assert_msg(strstr(s.text.p, "\nmcast:\n  groups: 71\n  members: 72\n")
	    != NULL, "%s", s.text.p);
	ck_assert_ptr_nonnull(strstr(s.text.p, "\n  top_sets: 84\n"));
	ck_assert_msg(strstr(s.text.p, "\nalias_guids: {assigned: 57, sets: 51,")
	    != NULL, "%s", s.text.p);
	show_fini(&s);
	free(keys);
	free(flat);
	free(json_paths);
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
	tcase_add_test(tc, test_ports_pkeys);
	tcase_add_test(tc, test_partitions_json);
	tcase_add_test(tc, test_route_text);
	tcase_add_test(tc, test_route_json_path);
	tcase_add_test(tc, test_route_broken);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_nodes);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_clean);
	tcase_add_test(tc, test_status_sm);
	tcase_add_test(tc, test_status_same_keys);
	tcase_add_test(tc, test_status_every_counter);
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
