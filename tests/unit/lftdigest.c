/*
 * lftdigest: one digest line per (fabric, engine, run) of the forwarding
 * tables every routing engine computes, and a check of those lines against
 * a golden file. It pins the tables byte for byte, so that a change meant
 * to leave routing alone (a refactor) is shown to, and one that changes
 * routing has to re-record the golden file on purpose.
 *
 *     lftdigest                   check tests/unit/lftdigest.golden (under
 *                                 $TOP_SRCDIR, else $srcdir, else the
 *                                 current directory), skipping cases
 *                                 whose tables pass 32 MiB
 *     lftdigest -a                the same, every case
 *     lftdigest -g FILE [-a]      check FILE instead
 *     lftdigest -p CASE...        print the lines of these cases
 *     lftdigest -c CHAIN CASE...  route these cases with the chain CHAIN
 *                                 (engines joined by commas) and print
 *                                 one verdict line per run, exit 1 when
 *                                 a run has a credit loop or fails
 *     lftdigest -v VLS -c CHAIN CASE...
 *                                 the same through routing_run_layers()
 *                                 with VLS data VLs: a VL-layered engine
 *                                 (dfsssp) routes on up to VLS layers,
 *                                 checked per VL; the line adds vls=N
 *
 * A case is an ibsim net file (a path ending in .net; relative paths are
 * taken under $TOP_SRCDIR when it is set) or a fabric built in memory by
 * tests/unit/testfab.c:
 *     ft2:K  ft3:K             fat trees of K-port switches
 *     ft2:K:F:S  ft3:K:F:S     the same with the fraction F of their
 *                              switch-to-switch cables removed (seed S)
 *     random:N:H:E:S           testfab_random(N switches, H HCAs each,
 *                              E extra links, seed S)
 * LIDs are numbered in port order (testfab_lids()). Each engine runs three
 * times through routing_run():
 *     base    the fabric, no previous tables;
 *     down    the fabric less about 1 in 20 switch-to-switch cables
 *             (testfab_remove_links, seed 1; at least one), with the base
 *             tables as the previous ones (the incremental path);
 *     up      the whole fabric again, with the down tables as previous.
 * A line reads
 *     CASE ENGINE RUN ok lft=DIGEST nsw=N max_lid=M lids=L unreach=U
 *         cdg=0|1 changed=B
 * (one line), or CASE ENGINE RUN refused: REASON. The digest is 64-bit
 * FNV-1a over every switch's node GUID and table row, in switch order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/log.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

#define GOLDEN          "tests/unit/lftdigest.golden"
#define SLOW_BYTES      (32u << 20)     /* tables larger than this: -a */
#define GUID_BASE       0x0002c90300000000ULL
#define LINE_MAX_       512

static const char *const engine_names[] = { "minhop", "updn", "ftree" };
#define NENGINES        (sizeof(engine_names) / sizeof(engine_names[0]))

static const char *srcdir;
static unsigned vls_opt;        /* -v: route through routing_run_layers */

static void *
must(void *p)
{
	if (p == NULL) {
		perror("lftdigest");
		exit(99);
	}
	return p;
}

/*
 * A minimal reader of ibsim net files: "Switch N "name"", "Hca N "name""
 * (or "Ca"), then "[P] "peer"[Q]" lines for the node's cabled ports.
 * Anything after those fields on a line is ignored, as are key=value
 * lines and comments, except "# sim-down: "node"[port]": that port is
 * DOWN (tests/sim/lib.sh unlinks it before the SM starts).
 */
struct netnode {
	char name[80];
	uint32_t idx;
};

static int
quoted(const char **s, char *out, size_t len)
{
	const char *p = *s, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '"' || (e = strchr(p + 1, '"')) == NULL ||
	    (size_t)(e - p - 1) >= len)
		return -1;
	memcpy(out, p + 1, (size_t)(e - p - 1));
	out[e - p - 1] = '\0';
	*s = e + 1;
	return 0;
}

static int
bracket(const char **s, unsigned *num)
{
	char *end;

	if (**s != '[')
		return -1;
	errno = 0;
	*num = (unsigned)strtoul(*s + 1, &end, 10);
	if (errno != 0 || *end != ']' || end == *s + 1 || *num == 0 ||
	    *num > 254)
		return -1;
	*s = end + 1;
	return 0;
}

static uint32_t
lookup(const struct netnode *nn, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (strcmp(nn[i].name, name) == 0)
			return nn[i].idx;
	return FABRIC_NONE;
}

static void
net_fail(const char *path, unsigned line, const char *what)
{
	fprintf(stderr, "lftdigest: %s:%u: %s\n", path, line, what);
	exit(99);
}

/* pass 0 adds the nodes, pass 1 the cables and the DOWN ports. */
static void
net_pass(FILE *fp, const char *path, int pass, struct fabric *f,
    struct netnode **nn, uint32_t *nnn)
{
	char buf[LINE_MAX_], name[80], peer[80];
	const char *s;
	unsigned line = 0, nports, pa, pb;
	uint32_t cur = FABRIC_NONE, other, n;
	uint64_t guid;
	int is_sw;

	rewind(fp);
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		line++;
		s = buf;
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, "# sim-down:", 11) == 0) {
			s += 11;
			if (pass == 0)
				continue;
			if (quoted(&s, name, sizeof(name)) == -1 ||
			    bracket(&s, &pa) == -1 ||
			    (n = lookup(*nn, *nnn, name)) == FABRIC_NONE ||
			    pa > f->nodes[n].nports)
				net_fail(path, line, "bad sim-down line");
			f->ports[fabric_port_idx(f, n, (uint8_t)pa)].state =
			    PORT_DOWN;
			continue;
		}
		if (*s == '#' || *s == '\n' || *s == '\0' ||
		    (*s != '[' && strchr(s, '=') != NULL))
			continue;
		if (*s == '[') {
			if (cur == FABRIC_NONE)
				net_fail(path, line, "port line before any node");
			if (bracket(&s, &pa) == -1)
				net_fail(path, line, "bad port number");
			if (*s == '(' && (s = strchr(s, ')')) != NULL)
				s++;    /* a port GUID: not used */
			if (s == NULL || quoted(&s, peer, sizeof(peer)) == -1 ||
			    bracket(&s, &pb) == -1)
				net_fail(path, line, "bad cable");
			if (pass == 0)
				continue;
			if ((other = lookup(*nn, *nnn, peer)) == FABRIC_NONE)
				net_fail(path, line, "cable to an unknown node");
			if (pa > f->nodes[cur].nports ||
			    pb > f->nodes[other].nports)
				net_fail(path, line, "port past the node's last");
			testfab_connect(f, cur, (uint8_t)pa, other, (uint8_t)pb);
			if (f->nodes[cur].type != NODE_SWITCH)
				f->ports[fabric_port_idx(f, cur,
				    (uint8_t)pa)].present = 1;
			if (f->nodes[other].type != NODE_SWITCH)
				f->ports[fabric_port_idx(f, other,
				    (uint8_t)pb)].present = 1;
			continue;
		}
		if (strncmp(s, "Switch", 6) == 0) {
			is_sw = 1;
			s += 6;
		} else if (strncmp(s, "Hca", 3) == 0) {
			is_sw = 0;
			s += 3;
		} else if (strncmp(s, "Ca", 2) == 0) {
			is_sw = 0;
			s += 2;
		} else
			net_fail(path, line, "not a node, a cable or a comment");
		nports = (unsigned)strtoul(s, (char **)&s, 10);
		if (nports == 0 || nports > 254 ||
		    quoted(&s, name, sizeof(name)) == -1)
			net_fail(path, line, "bad node line");
		if (pass == 1) {
			cur = lookup(*nn, *nnn, name);
			continue;
		}
		if (lookup(*nn, *nnn, name) != FABRIC_NONE)
			net_fail(path, line, "node named twice");
		/* GUIDs as testfab makes them: in file order */
		guid = GUID_BASE + f->nnodes + 1;
		*nn = must(realloc(*nn, (*nnn + 1) * sizeof(**nn)));
		snprintf((*nn)[*nnn].name, sizeof((*nn)[*nnn].name), "%s", name);
		(*nn)[(*nnn)++].idx = fabric_add_node(f, is_sw ? NODE_SWITCH :
		    NODE_CA, (uint8_t)nports, guid, NULL);
		cur = (*nn)[*nnn - 1].idx;
		if (!is_sw)
			for (pa = 1; pa <= nports; pa++)
				f->ports[fabric_port_idx(f, cur,
				    (uint8_t)pa)].guid = guid + ((uint64_t)pa << 40);
	}
}

static void
net_load(struct fabric *f, const char *path)
{
	struct netnode *nn = NULL;
	uint32_t nnn = 0;
	char full[4096];
	FILE *fp;

	if (path[0] != '/' && srcdir != NULL)
		snprintf(full, sizeof(full), "%s/%s", srcdir, path);
	else
		snprintf(full, sizeof(full), "%s", path);
	if ((fp = fopen(full, "r")) == NULL) {
		fprintf(stderr, "lftdigest: %s: %s\n", full, strerror(errno));
		exit(99);
	}
	net_pass(fp, path, 0, f, &nn, &nnn);
	net_pass(fp, path, 1, f, &nn, &nnn);
	fclose(fp);
	free(nn);
	testfab_lids(f);
}

/* Build the fabric a case names; exits on a malformed case. */
static void
build(struct fabric *f, const char *c)
{
	unsigned k, n, h, e;
	unsigned long long seed;
	double frac;
	int got;
	size_t len = strlen(c);

	fabric_init(f);
	if (len > 4 && strcmp(c + len - 4, ".net") == 0) {
		net_load(f, c);
		return;
	}
	if (strncmp(c, "ft2:", 4) == 0 || strncmp(c, "ft3:", 4) == 0) {
		got = sscanf(c + 4, "%u:%lf:%llu", &k, &frac, &seed);
		if ((got != 1 && got != 3) || k < 2 || k % 2 || k > 254) {
			fprintf(stderr, "lftdigest: bad case %s\n", c);
			exit(99);
		}
		if (c[2] == '2')
			testfab_ft2(f, k);
		else
			testfab_ft3(f, k);
		if (got == 3) {
			testfab_remove_links(f, frac, seed);
			testfab_lids(f);
		}
		return;
	}
	if (strncmp(c, "random:", 7) == 0 &&
	    sscanf(c + 7, "%u:%u:%u:%llu", &n, &h, &e, &seed) == 4 && n > 0 &&
	    h < TESTFAB_RANDOM_PORTS) {
		testfab_random(f, n, h, e, seed);
		return;
	}
	fprintf(stderr, "lftdigest: bad case %s\n", c);
	exit(99);
}

static unsigned
switch_links(const struct fabric *f)
{
	unsigned n = 0;
	uint32_t p, q;

	for (p = 0; p < f->nports; p++) {
		q = f->ports[p].peer;
		if (q != FABRIC_NONE && p < q &&
		    f->nodes[f->ports[p].node].type == NODE_SWITCH &&
		    f->nodes[f->ports[q].node].type == NODE_SWITCH)
			n++;
	}
	return n;
}

static uint64_t
fnv(uint64_t h, const void *buf, size_t n)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t
digest(const struct fabric *f, const struct lft_set *s)
{
	uint64_t h = 0xcbf29ce484222325ULL, guid;
	uint32_t sw;

	h = fnv(h, &s->nsw, sizeof(s->nsw));
	h = fnv(h, &s->max_lid, sizeof(s->max_lid));
	for (sw = 0; sw < s->nsw; sw++) {
		guid = f->nodes[s->sw_node[sw]].guid;
		h = fnv(h, &guid, sizeof(guid));
		h = fnv(h, lft_row(s, sw), (size_t)s->max_lid + 1);
	}
	return h;
}

/* One run of one engine: its line into line; the tables into out (empty
 * when it refused). */
static void
run(const char *c, const struct routing_engine *re, const char *tag,
    const struct fabric *f, const struct fabric *pf, const struct lft_set *prev,
    struct lft_set *out, char *line, size_t len)
{
	const struct routing_engine *chain[1] = { re };
	struct routing_opts o;
	struct route_report rep;
	struct lft_set tmp;
	char why[256];

	memset(&o, 0, sizeof(o));
	o.prev_fabric = pf;
	o.prev = prev;
	if (routing_run(chain, 1, f, &o, out, &rep, NULL) == 0) {
		snprintf(line, len, "%s %s %s ok lft=%016" PRIx64 " nsw=%u "
		    "max_lid=%u lids=%u unreach=%" PRIu64 " cdg=%d changed=%"
		    PRIu64, c, re->name, tag, digest(f, out), out->nsw,
		    out->max_lid, rep.lids, rep.unreachable, rep.deadlock_free,
		    rep.blocks_changed);
		return;
	}
	/* routing_run logs the reason with the time it took: ask again */
	why[0] = '\0';
	if (lft_set_init(&tmp, f) == -1)
		must(NULL);
	if (re->route(f, &o, &tmp, why, sizeof(why)) == 0)
		snprintf(why, sizeof(why), "routes when asked alone");
	lft_set_fini(&tmp);
	memset(out, 0, sizeof(*out));
	snprintf(line, len, "%s %s %s refused: %s", c, re->name, tag,
	    why[0] ? why : "no reason given");
}

/*
 * The chain's verdict on case c, for the base, down and up runs:
 *     CASE chain=CHAIN RUN engine=E cdg=0|1 unreach=U
 * or CASE chain=CHAIN RUN no route. 0 when every run routed with an
 * acyclic channel dependency graph, else 1.
 */
static int
chain_case(const char *c, const char *chain_text)
{
	const struct routing_engine *chain[8];
	const char *tags[3] = { "base", "down", "up" };
	struct lft_set tables[3];
	struct fabric f, g;
	struct routing_opts o;
	struct route_report rep;
	struct route_layers lay;
	char names[256], *tok, *save = NULL, vls[16];
	unsigned links, cut;
	size_t n = 0;
	int bad = 0, rc;

	snprintf(names, sizeof(names), "%s", chain_text);
	for (tok = strtok_r(names, ",", &save); tok && n < 8;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((chain[n++] = routing_engine_find(tok)) == NULL) {
			fprintf(stderr, "lftdigest: no engine %s\n", tok);
			exit(2);
		}
	}
	build(&f, c);
	build(&g, c);
	links = switch_links(&g);
	cut = links / 20 ? links / 20 : 1;
	if (links > 0)
		testfab_remove_links(&g, ((double)cut - 0.25) / links, 1);
	testfab_lids(&g);
	for (int r = 0; r < 3; r++) {
		const struct fabric *cur = r == 1 ? &g : &f;

		memset(&o, 0, sizeof(o));
		if (r > 0 && tables[r - 1].port != NULL) {
			o.prev_fabric = r == 1 ? &f : &g;
			o.prev = &tables[r - 1];
		}
		o.vls = (uint8_t)vls_opt;
		if (vls_opt > 0) {
			rc = routing_run_layers(chain, n, cur, &o, &tables[r],
			    &lay, &rep, NULL);
			route_layers_fini(&lay);
		} else
			rc = routing_run(chain, n, cur, &o, &tables[r], &rep,
			    NULL);
		if (rc != 0) {
			memset(&tables[r], 0, sizeof(tables[r]));
			printf("%s chain=%s %s no route\n", c, chain_text, tags[r]);
			bad = 1;
			continue;
		}
		vls[0] = '\0';
		if (vls_opt > 0)
			snprintf(vls, sizeof(vls), " vls=%u", rep.vls);
		printf("%s chain=%s %s engine=%s cdg=%d unreach=%" PRIu64 "%s\n",
		    c, chain_text, tags[r], rep.engine, rep.deadlock_free,
		    rep.unreachable, vls);
		if (rep.deadlock_free != 1)
			bad = 1;
	}
	for (int r = 0; r < 3; r++)
		if (tables[r].port != NULL)
			lft_set_fini(&tables[r]);
	fabric_fini(&f);
	fabric_fini(&g);
	fflush(stdout);
	return bad;
}

struct lines {
	char **v;
	size_t n;
};

static void
emit(struct lines *l, const char *line)
{
	l->v = must(realloc(l->v, (l->n + 1) * sizeof(*l->v)));
	l->v[l->n++] = must(strdup(line));
}

/*
 * Every line of case c into l; 1 when skipped for being slow (all == 0
 * and tables past SLOW_BYTES), else 0.
 */
static int
run_case(const char *c, int all, struct lines *l)
{
	struct lft_set base, down, up;
	struct fabric f, g;
	char line[LINE_MAX_];
	unsigned links, cut;
	uint64_t bytes;
	size_t i;

	build(&f, c);
	if (lft_set_init(&base, &f) == -1)
		must(NULL);
	bytes = (uint64_t)base.nsw * ((uint64_t)base.max_lid + 1);
	lft_set_fini(&base);
	if (!all && bytes > SLOW_BYTES) {
		fabric_fini(&f);
		return 1;
	}
	build(&g, c);
	links = switch_links(&g);
	cut = links / 20 ? links / 20 : 1;
	if (links > 0)
		testfab_remove_links(&g, ((double)cut - 0.25) / links, 1);
	testfab_lids(&g);
	for (i = 0; i < NENGINES; i++) {
		const struct routing_engine *re =
		    routing_engine_find(engine_names[i]);

		if (re == NULL) {
			snprintf(line, sizeof(line), "%s %s base absent", c,
			    engine_names[i]);
			emit(l, line);
			continue;
		}
		run(c, re, "base", &f, NULL, NULL, &base, line, sizeof(line));
		emit(l, line);
		run(c, re, "down", &g, base.port ? &f : NULL,
		    base.port ? &base : NULL, &down, line, sizeof(line));
		emit(l, line);
		run(c, re, "up", &f, down.port ? &g : NULL,
		    down.port ? &down : NULL, &up, line, sizeof(line));
		emit(l, line);
		lft_set_fini(&base);
		lft_set_fini(&down);
		lft_set_fini(&up);
	}
	fabric_fini(&f);
	fabric_fini(&g);
	return 0;
}

/* The case of a golden line: its first field. */
static size_t
case_len(const char *line)
{
	return strcspn(line, " \t\n");
}

static int
check(const char *golden, int all)
{
	struct lines want = { NULL, 0 }, got;
	char buf[LINE_MAX_], cname[LINE_MAX_], full[4096];
	size_t i, j, k, n, cases = 0, skipped = 0, lines = 0;
	int bad = 0, bad_case, found;
	FILE *fp;

	if (golden[0] != '/' && srcdir != NULL)
		snprintf(full, sizeof(full), "%s/%s", srcdir, golden);
	else
		snprintf(full, sizeof(full), "%s", golden);
	if ((fp = fopen(full, "r")) == NULL) {
		fprintf(stderr, "lftdigest: %s: %s\n", full, strerror(errno));
		return 99;
	}
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] != '#' && buf[0] != '\0')
			emit(&want, buf);
	}
	fclose(fp);
	for (i = 0; i < want.n; i = j) {
		n = case_len(want.v[i]);
		for (j = i + 1; j < want.n && case_len(want.v[j]) == n &&
		    strncmp(want.v[j], want.v[i], n) == 0; j++)
			;
		memcpy(cname, want.v[i], n);
		cname[n] = '\0';
		memset(&got, 0, sizeof(got));
		if (run_case(cname, all, &got)) {
			printf("skip %s: tables past %u MiB (-a checks it)\n",
			    cname, SLOW_BYTES >> 20);
			skipped++;
			continue;
		}
		cases++;
		bad_case = 0;
		for (k = 0; k < got.n; k++) {
			found = 0;
			for (size_t w = i; w < j && !found; w++)
				found = strcmp(want.v[w], got.v[k]) == 0;
			if (!found) {
				printf("FAIL %s\n     not in the golden file\n",
				    got.v[k]);
				bad_case = 1;
			}
			lines++;
		}
		for (size_t w = i; w < j; w++) {
			found = 0;
			for (k = 0; k < got.n && !found; k++)
				found = strcmp(want.v[w], got.v[k]) == 0;
			if (!found) {
				printf("FAIL %s\n     golden, not computed\n",
				    want.v[w]);
				bad_case = 1;
			}
		}
		printf("%s %s\n", bad_case ? "FAIL" : "ok", cname);
		bad |= bad_case;
		for (k = 0; k < got.n; k++)
			free(got.v[k]);
		free(got.v);
	}
	printf("lftdigest: %zu lines of %zu cases %s the golden file %s; "
	    "%zu cases skipped\n", lines, cases, bad ? "DIFFER from" : "match",
	    golden, skipped);
	for (i = 0; i < want.n; i++)
		free(want.v[i]);
	free(want.v);
	if (cases == 0) {
		printf("lftdigest: no case checked\n");
		return 1;
	}
	return bad;
}

static void
usage(void)
{
	fprintf(stderr, "usage: lftdigest [-a] [-g GOLDEN]\n"
	    "       lftdigest -p CASE...\n"
	    "       lftdigest [-v VLS] -c ENGINE[,ENGINE...] CASE...\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *golden = GOLDEN;
	struct lines out;
	int all = 0, print = 0, i, bad = 0;
	const char *chain = NULL;
	size_t k;

	if ((srcdir = getenv("TOP_SRCDIR")) == NULL)
		srcdir = getenv("srcdir");
	log_set_level(LOG_LVL_WARN);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-a") == 0)
			all = 1;
		else if (strcmp(argv[i], "-p") == 0)
			print = 1;
		else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc)
			golden = argv[++i];
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			chain = argv[++i];
		else if (strcmp(argv[i], "-v") == 0 && i + 1 < argc &&
		    (vls_opt = (unsigned)atoi(argv[++i])) >= 1 &&
		    vls_opt <= ROUTE_VLS_MAX)
			;
		else
			usage();
	}
	if (chain != NULL) {
		if (i == argc)
			usage();
		for (; i < argc; i++)
			bad |= chain_case(argv[i], chain);
		return bad;
	}
	if (!print) {
		if (i != argc)
			usage();
		return check(golden, all);
	}
	if (i == argc)
		usage();
	for (; i < argc; i++) {
		memset(&out, 0, sizeof(out));
		run_case(argv[i], 1, &out);
		for (k = 0; k < out.n; k++) {
			printf("%s\n", out.v[k]);
			free(out.v[k]);
		}
		free(out.v);
		fflush(stdout);
	}
	return 0;
}
