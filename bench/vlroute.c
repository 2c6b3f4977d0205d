/*
 * bench/vlroute.c: route a fabric as ibnetdiscover saw it with one of
 * ibsmd's engines, offline, and write what an SM would program and hand
 * out, for tests/sim/fabcheck.py to check like tables read from a fabric
 * (bench/vlroute, the driver, runs it beside OpenSM on the same ibsim).
 *
 *     vlroute [-v VLS] [-c NODE[PORT]]... ENGINE TOPOLOGY OUTDIR
 *
 * TOPOLOGY is an ibnetdiscover output (node GUIDs, port numbers, cabling
 * and the LIDs the SM in charge gave, so both SMs' tables share their
 * LIDs). The engine routes through routing_run_layers() with VLS data VLs
 * (default 1). OUTDIR receives
 *     fts     the tables in dump_fts form (fabcheck --fts)
 *     sl      "SLID DLID SL" for every pair of end port LIDs: the SL
 *             routing_path_sl() gives (what the SA would hand out)
 * and one JSON line goes to stdout: the engine that routed, its time, the
 * VLs used, the busiest link for all-to-all CA traffic. With -c (dfsssp)
 * the cables named (by node description, as ibnetdiscover prints it, and
 * port) are then lost: dfsssp_repair() repairs the tables and layers, whose
 * fts and sl go to OUTDIR/cut/, and the JSON adds the LFT blocks that
 * differ, the entries, routes and SLs changed, and the SL2VL blocks the
 * layers would need written (those whose SL2VL table differs, one per
 * switch input/output port pair and per CA port).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/log.h"
#include "routing/dfsssp.h"
#include "routing/routing.h"

static void
die(const char *fmt, const char *a)
{
	fprintf(stderr, "vlroute: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	exit(2);
}

/* ------------------------------------------------------------ topology */

struct topo_node {
	uint64_t guid;
	char type;              /* 'S', 'H' */
	unsigned nports;
	char desc[65];
	uint16_t lid;           /* switch port 0 */
	uint8_t lmc;
};

/*
 * ibnetdiscover's lines: "Switch N "S-GUID" # "desc" ... port 0 lid L lmc
 * M", "Ca N "H-GUID" # "desc"", then per cabled port "[P] "X-GUID"[Q]"
 * (a switch) or "[P](PORTGUID) "X-GUID"[Q] # lid L lmc M" (a CA).
 */
static void
load(struct fabric *f, const char *path)
{
	char line[1024], kind[16], *q, *d;
	FILE *fp = fopen(path, "r");
	uint32_t cur = FABRIC_NONE, node, peer;
	unsigned n, p, pp, lid, lmc;
	unsigned long long guid, pg, peer_guid;
	int pass;
	long start;

	if (fp == NULL)
		die("%s: cannot open", path);
	start = ftell(fp);
	for (pass = 0; pass < 2; pass++) {
		fseek(fp, start, SEEK_SET);
		cur = FABRIC_NONE;
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (sscanf(line, "%15s %u \"%*c-%llx\"", kind, &n,
			    &guid) == 3 && (strcmp(kind, "Switch") == 0 ||
			    strcmp(kind, "Ca") == 0)) {
				if (pass == 0) {
					node = fabric_add_node(f, kind[0] == 'S' ?
					    NODE_SWITCH : NODE_CA, (uint8_t)n, guid,
					    NULL);
					if ((q = strstr(line, "# \"")) != NULL) {
						q += 3;
						d = strchr(q, '"');
						snprintf(f->nodes[node].desc,
						    sizeof(f->nodes[node].desc),
						    "%.*s", d ? (int)(d - q) : 0, q);
						f->nodes[node].desc_valid = 1;
					}
					if (kind[0] == 'S' && (q = strstr(line,
					    "port 0 lid ")) != NULL &&
					    sscanf(q, "port 0 lid %u lmc %u", &lid,
					    &lmc) == 2)
						fabric_set_lid(f, f->nodes[node].port0,
						    (uint16_t)lid, (uint8_t)lmc);
				}
				cur = fabric_node_by_guid(f, guid);
				continue;
			}
			if (line[0] != '[' || cur == FABRIC_NONE)
				continue;
			pg = 0;
			if (sscanf(line, "[%u](%llx) \"%*c-%llx\"[%u]", &p, &pg,
			    &peer_guid, &pp) != 4 &&
			    sscanf(line, "[%u] \"%*c-%llx\"[%u]", &p, &peer_guid,
			    &pp) != 3)
				continue;
			if (pass == 0) {
				if (f->nodes[cur].type != NODE_SWITCH) {
					uint32_t port = fabric_port_idx(f, cur,
					    (uint8_t)p);

					f->ports[port].present = 1;
					f->ports[port].guid = pg;
					if ((q = strstr(line, "# lid ")) != NULL &&
					    sscanf(q, "# lid %u lmc %u", &lid,
					    &lmc) == 2)
						fabric_set_lid(f, port, (uint16_t)lid,
						    (uint8_t)lmc);
				}
				continue;
			}
			peer = fabric_node_by_guid(f, peer_guid);
			if (peer == FABRIC_NONE)
				die("%s: a cable to a node not listed", path);
			fabric_link(f, fabric_port_idx(f, cur, (uint8_t)p),
			    fabric_port_idx(f, peer, (uint8_t)pp));
		}
	}
	fclose(fp);
	for (p = 0; p < f->nports; p++)
		if (f->ports[p].peer != FABRIC_NONE)
			f->ports[p].state = PORT_ACTIVE;
}

/* Lose the cable of "desc"[port]. */
static void
cut(struct fabric *f, const char *ref)
{
	char desc[128];
	unsigned port, q;
	uint32_t n;
	const char *b = strrchr(ref, '[');

	if (b == NULL || sscanf(b, "[%u]", &port) != 1 ||
	    (size_t)(b - ref) >= sizeof(desc))
		die("-c %s: want NODE[PORT]", ref);
	snprintf(desc, sizeof(desc), "%.*s", (int)(b - ref), ref);
	for (n = 0; n < f->nnodes; n++)
		if (strcmp(f->nodes[n].desc, desc) == 0 &&
		    port <= f->nodes[n].nports)
			break;
	if (n == f->nnodes)
		die("-c %s: no such node port", ref);
	q = f->ports[fabric_port_idx(f, n, (uint8_t)port)].peer;
	if (q == FABRIC_NONE)
		die("-c %s: not cabled", ref);
	f->ports[fabric_port_idx(f, n, (uint8_t)port)].state = PORT_DOWN;
	f->ports[q].state = PORT_DOWN;
	f->ports[fabric_port_idx(f, n, (uint8_t)port)].peer = FABRIC_NONE;
	f->ports[q].peer = FABRIC_NONE;
}

/* ------------------------------------------------------------ output */

static FILE *
create(const char *dir, const char *name)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		die("cannot write %s", path);
	return fp;
}

static void
write_fts(const struct fabric *f, const struct lft_set *s, const char *dir)
{
	FILE *fp = create(dir, "fts");

	for (uint32_t sw = 0; sw < s->nsw; sw++) {
		const struct fabric_node *n = &f->nodes[s->sw_node[sw]];

		fprintf(fp, "Unicast lids [0x0-0x%x] of switch Lid %u guid "
		    "0x%016" PRIx64 " (%s):\n", s->max_lid,
		    f->ports[n->port0].lid, n->guid, n->desc);
		for (uint32_t lid = 1; lid <= s->max_lid; lid++)
			if (lft_row(s, sw)[lid] != LFT_NO_ROUTE)
				fprintf(fp, "0x%04x %03u\n", lid,
				    lft_row(s, sw)[lid]);
	}
	fclose(fp);
}

/* Every end port LID, in port order. */
static uint16_t *
end_lids(const struct fabric *f, size_t *n)
{
	uint16_t *v = calloc((size_t)fabric_max_lid(f) + 1, sizeof(*v));

	*n = 0;
	for (uint32_t p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p) && f->ports[p].lid != 0 &&
		    (f->nodes[f->ports[p].node].type == NODE_SWITCH ||
		    f->ports[p].peer != FABRIC_NONE))
			for (unsigned k = 0; k < (1u << f->ports[p].lmc); k++)
				v[(*n)++] = (uint16_t)(f->ports[p].lid + k);
	return v;
}

static void
write_sl(const struct fabric *f, const struct lft_set *s,
    const struct route_layers *lay, const char *dir)
{
	FILE *fp = create(dir, "sl");
	size_t n;
	uint16_t *v = end_lids(f, &n);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j)
				fprintf(fp, "%u %u %u\n", v[i], v[j],
				    routing_path_sl(lay, f, s, v[i], v[j]));
	free(v);
	fclose(fp);
}

/* SL2VL blocks (switch input/output port pairs, CA ports) whose table the
 * routing's contribution makes differ between a and b. */
static uint64_t
sl2vl_blocks(const struct fabric *f, const struct route_layers *a,
    const struct route_layers *b)
{
	uint8_t ta[ROUTE_SLS], tb[ROUTE_SLS];
	uint64_t n = 0;

	for (uint32_t node = 0; node < f->nnodes; node++) {
		const struct fabric_node *nd = &f->nodes[node];
		unsigned ins = nd->type == NODE_SWITCH ? nd->nports + 1u : 1u;

		for (unsigned in = 0; in < ins; in++)
			for (unsigned out = nd->type == NODE_SWITCH ? 0 : 1;
			    out <= nd->nports; out++) {
				memset(ta, 0, sizeof(ta));
				memset(tb, 0, sizeof(tb));
				routing_update_sl2vl(a, f, node, (uint8_t)in,
				    (uint8_t)out, ta);
				routing_update_sl2vl(b, f, node, (uint8_t)in,
				    (uint8_t)out, tb);
				n += memcmp(ta, tb, sizeof(ta)) != 0;
			}
	}
	return n;
}

static void
subdir(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		die("cannot make %s", buf);
}

int
main(int argc, char **argv)
{
	const struct routing_engine *chain[1];
	const char *cuts[16];
	struct routing_opts o;
	struct route_report rep;
	struct route_layers lay, lay2;
	struct repair_result r;
	struct fabric f, g;
	struct lft_set s, s2;
	char dir2[4096];
	struct timespec t0, t1;
	unsigned vls = 1, ncut = 0;
	int i;

	log_set_level(LOG_LVL_WARN);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-v") == 0 && i + 1 < argc)
			vls = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && ncut < 16)
			cuts[ncut++] = argv[++i];
		else
			break;
	}
	if (argc - i != 3 || vls < 1 || vls > ROUTE_VLS_MAX) {
		fprintf(stderr, "usage: vlroute [-v VLS] [-c NODE[PORT]]... "
		    "ENGINE TOPOLOGY OUTDIR\n");
		return 2;
	}
	if ((chain[0] = routing_engine_find(argv[i])) == NULL)
		die("no engine %s", argv[i]);
	fabric_init(&f);
	load(&f, argv[i + 1]);
	memset(&o, 0, sizeof(o));
	o.vls = (uint8_t)vls;
	if (routing_run_layers(chain, 1, &f, &o, &s, &lay, &rep, NULL) != 0) {
		printf("{\"engine\": \"%s\", \"routed\": false}\n", argv[i]);
		return 1;
	}
	write_fts(&f, &s, argv[i + 2]);
	write_sl(&f, &s, &lay, argv[i + 2]);
	printf("{\"engine\": \"%s\", \"routed\": true, \"seconds\": %.4f, "
	    "\"vls\": %u, \"deadlock_free\": %d, \"unreachable\": %" PRIu64
	    ", \"max_link_routes\": %" PRIu64, rep.engine, rep.seconds,
	    rep.vls, rep.deadlock_free, rep.unreachable,
	    routing_max_link_routes(&f, &s));
	if (ncut > 0) {
		fabric_init(&g);
		load(&g, argv[i + 1]);
		for (unsigned k = 0; k < ncut; k++)
			cut(&g, cuts[k]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (dfsssp_repair(&g, &f, &s, &lay, &s2, &lay2, &r) != 0) {
			printf(", \"repaired\": false}\n");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		subdir(dir2, sizeof(dir2), argv[i + 2], "cut");
		write_fts(&g, &s2, dir2);
		write_sl(&g, &s2, &lay2, dir2);
		printf(", \"repaired\": true, \"cut_seconds\": %.4f, "
		    "\"cut_lft_blocks\": %" PRIu64
		    ", \"cut_entries\": %" PRIu64 ", \"cut_routes\": %" PRIu64
		    ", \"cut_relayered\": %" PRIu64 ", \"cut_vls\": %u, "
		    "\"cut_sl2vl_blocks\": %" PRIu64 ", \"cut_deadlock_free\": %d",
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec -
		    t0.tv_nsec) / 1e9, routing_blocks_changed(&g, &s2, &f, &s),
		    r.changed,
		    r.rerouted, r.relayered, r.layers,
		    sl2vl_blocks(&g, &lay, &lay2),
		    routing_layers_acyclic(&g, &s2, &lay2, NULL, NULL));
		route_layers_fini(&lay2);
		lft_set_fini(&s2);
		fabric_fini(&g);
	}
	printf("}\n");
	route_layers_fini(&lay);
	lft_set_fini(&s);
	fabric_fini(&f);
	return 0;
}
