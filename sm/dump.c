/*
 * OpenSM's dump files. See dump.h; the formats are those of OpenSM 3.3's
 * osm_dump.c, read back by the tools that parse them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* qsort_r */
#endif
#include "sm/dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/query.h"
#include "mcast/tree.h"

#define CAP_EXT_SPEEDS	0x4000u         /* PortInfo CapabilityMask bit 14 */

static uint32_t
get(const uint8_t *buf, enum MAD_FIELDS fld)
{
	return mad_get_field((void *)buf, 0, fld);
}

static int
cmp_guid(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint64_t x = f->nodes[*(const uint32_t *)a].guid;
	uint64_t y = f->nodes[*(const uint32_t *)b].guid;

	return x < y ? -1 : x > y;
}

/* Node indices by node GUID (malloc'd). */
static uint32_t *
by_guid(const struct fabric *f)
{
	uint32_t *v = xcalloc(f->nnodes, sizeof(*v));

	for (uint32_t n = 0; n < f->nnodes; n++)
		v[n] = n;
	qsort_r(v, f->nnodes, sizeof(*v), cmp_guid, (void *)f);
	return v;
}

/* The port carrying node n's LID: a switch's port 0, else port p. */
static const struct fabric_port *
lid_port(const struct fabric *f, uint32_t n, uint32_t p)
{
	return f->nodes[n].type == NODE_SWITCH ? &f->ports[f->nodes[n].port0] :
	    &f->ports[p];
}

static uint16_t
sm_lid(const struct fabric *f)
{
	return f->sm_port != FABRIC_NONE ? f->ports[f->sm_port].lid : 0;
}

/* One end of a link: "{ SW Ports:08 ... PN:01 } ". vendor_width: OpenSM
 * prints the local end's VenID with 6 digits, the remote one's with 8. */
static void
link_end(FILE *fp, const struct fabric *f, uint32_t p, int vendor_width)
{
	const struct fabric_port *port = &f->ports[p];
	const struct fabric_node *node = &f->nodes[port->node];
	const struct fabric_port *lp = lid_port(f, port->node, p);
	char name[256];

	fprintf(fp, "{ %s%s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016"
	    PRIx64 " PortGUID:%016" PRIx64 " VenID:%0*X DevID:%04X Rev:%08X "
	    "{%s} LID:%04X PN:%02X } ", node->type == NODE_SWITCH ? "SW" :
	    node->type == NODE_CA ? "CA" : node->type == NODE_ROUTER ? "Rt" :
	    "**", lp->lid != 0 && lp->lid == sm_lid(f) ? "-SM" : "",
	    node->nports, node->sysguid, node->guid, port->guid, vendor_width,
	    get(node->node_info, IB_NODE_VENDORID_F),
	    get(node->node_info, IB_NODE_DEVID_F),
	    get(node->node_info, IB_NODE_REVISION_F),
	    query_node_name(f, port->node, name, sizeof(name)), lp->lid,
	    port->num);
}

static const char *
width_text(const struct fabric_port *p)
{
	switch (get(p->info, IB_PORT_LINK_WIDTH_ACTIVE_F)) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	}
	return "??";
}

static const char *
speed_text(const struct fabric *f, const struct fabric_port *p)
{
	const struct fabric_port *lp = lid_port(f, p->node,
	    (uint32_t)(p - f->ports));
	const char *s;

	switch (get(p->info, IB_PORT_LINK_SPEED_ACTIVE_F)) {
	case 1: s = "2.5"; break;
	case 2: s = "5"; break;
	case 4: s = "10"; break;
	default: s = "??"; break;
	}
	if (lp->info_valid && (get(lp->info, IB_PORT_CAPMASK_F) &
	    CAP_EXT_SPEEDS)) {
		switch (get(p->info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F)) {
		case 0: break;
		case 1: s = "14"; break;
		case 2: s = "25"; break;
		case 4: s = "50"; break;
		default: s = "??"; break;
		}
	}
	return s;
}

static const char *
state_text(const struct fabric_port *p)
{
	switch (p->state) {
	case PORT_ACTIVE: return "ACT";
	case PORT_ARMED: return "ARM";
	case PORT_INIT: return "INI";
	}
	return "DWN";
}

void
dump_subnet_lst(FILE *fp, const struct fabric *f)
{
	uint32_t *order = by_guid(f);

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct fabric_node *node = &f->nodes[order[i]];

		for (unsigned num = 1; num <= node->nports; num++) {
			uint32_t p = node->port0 + num;
			const struct fabric_port *port = &f->ports[p];

			if (port->peer == FABRIC_NONE)
				continue;
			link_end(fp, f, p, 6);
			link_end(fp, f, port->peer, 8);
			fprintf(fp, "PHY=%s LOG=%s SPD=%s\n", width_text(port),
			    state_text(port), speed_text(f, port));
		}
	}
	free(order);
}

static const char *
type_text(const struct fabric_node *n)
{
	return n->type == NODE_SWITCH ? "Switch" : n->type == NODE_CA ?
	    "Channel Adapter" : n->type == NODE_ROUTER ? "Router" : "???";
}

void
dump_lfts(FILE *fp, const struct fabric *f, const struct lft_set *lft)
{
	uint32_t *order = by_guid(f);
	char name[256];

	for (uint32_t i = 0; i < f->nnodes; i++) {
		uint32_t n = order[i], sw = lft->node_sw[n];
		const struct fabric_node *node = &f->nodes[n];
		const uint8_t *row;

		if (node->type != NODE_SWITCH || sw == FABRIC_NONE)
			continue;
		row = lft_row(lft, sw);
		fprintf(fp, "Unicast lids [0-%u] of switch Lid %u guid 0x%016"
		    PRIx64 " ('%s'):\n", lft->max_lid,
		    f->ports[node->port0].lid, node->guid,
		    query_node_name(f, n, name, sizeof(name)));
		for (uint32_t lid = 0; lid <= lft->max_lid; lid++) {
			uint32_t p;

			if (row[lid] > node->nports)
				continue;
			fprintf(fp, "0x%04x %03u # ", lid, row[lid]);
			p = lid < f->nlids ? f->by_lid[lid] : FABRIC_NONE;
			if (p != FABRIC_NONE)
				fprintf(fp, "%s portguid 0x%016" PRIx64 ": '%s'",
				    type_text(&f->nodes[f->ports[p].node]),
				    f->ports[p].guid, query_node_name(f,
				    f->ports[p].node, name, sizeof(name)));
			else
				fprintf(fp, "unknown node and type");
			fputc('\n', fp);
		}
		fprintf(fp, "%u lids dumped\n", lft->max_lid);
	}
	free(order);
}

void
dump_mcfdbs(FILE *fp, const struct fabric *f, dump_mft_fn mft, void *arg)
{
	uint32_t *order = by_guid(f);

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct fabric_node *node = &f->nodes[order[i]];
		const struct mcast_mft *m;
		bool header = false;
		int top;

		if (node->type != NODE_SWITCH ||
		    (m = mft(arg, node->guid)) == NULL)
			continue;
		top = mcast_mft_top_block(m);
		for (int b = 0; b <= top; b++)
			for (unsigned k = 0; k < 32; k++) {
				uint16_t mlid = (uint16_t)(0xC000 + b * 32 + k);
				bool first = true;

				for (unsigned pos = 0; pos < m->npos; pos++) {
					uint16_t mask = mcast_mft_get(m, mlid,
					    pos);

					for (unsigned j = 0; j < 16; j++) {
						if (!(mask & (1u << j)))
							continue;
						if (!header)
							fprintf(fp, "\nSwitch "
							    "0x%016" PRIx64
							    "\nLID    : Out "
							    "Port(s)\n",
							    node->guid);
						header = true;
						if (first)
							fprintf(fp, "0x%04X :",
							    mlid);
						first = false;
						fprintf(fp, " 0x%03X ",
						    j + pos * 16);
					}
				}
				if (!first)
					fputc('\n', fp);
			}
	}
	free(order);
}

/* dir/name replaced by what fill writes (or, with copy, by that file). */
static int
write_one(const char *dir, const char *name, const struct dump_in *in,
    void (*fill)(FILE *, const struct dump_in *), const char *copy,
    char *why, size_t whylen)
{
	char path[4200], tmp[4300], buf[8192], reason[160];
	FILE *fp, *src = NULL;
	size_t n;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	if (file_check_replace(path, reason, sizeof(reason)) < 0) {
		snprintf(why, whylen, "%s: %s", path, reason);
		return -1;
	}
	if (copy != NULL && (src = fopen(copy, "r")) == NULL) {
		snprintf(why, whylen, "%s: %s", copy, strerror(errno));
		return -1;
	}
	if ((fp = fopen(tmp, "w")) == NULL) {
		snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
		if (src != NULL)
			fclose(src);
		return -1;
	}
	if (src != NULL) {
		while ((n = fread(buf, 1, sizeof(buf), src)) > 0)
			if (fwrite(buf, 1, n, fp) != n)
				break;
		err = ferror(src);
		fclose(src);
	} else
		fill(fp, in);
	if (err || fflush(fp) != 0 || ferror(fp) || fclose(fp) != 0 ||
	    rename(tmp, path) != 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno ? errno :
		    EIO));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void
fill_subnet(FILE *fp, const struct dump_in *in)
{
	dump_subnet_lst(fp, in->f);
}

static void
fill_lfts(FILE *fp, const struct dump_in *in)
{
	dump_lfts(fp, in->f, in->lft);
}

static void
fill_mcfdbs(FILE *fp, const struct dump_in *in)
{
	dump_mcfdbs(fp, in->f, in->mft, in->mft_arg);
}

int
dump_write(const char *dir, const struct dump_in *in, char *why,
    size_t whylen)
{
	char w[4400];
	int rc = 0;

	why[0] = '\0';
#define ONE(name, fill, copy) do { \
	if (write_one(dir, name, in, fill, copy, w, sizeof(w)) < 0) { \
		if (rc == 0) \
			snprintf(why, whylen, "%s", w); \
		rc = -1; \
	} \
} while (0)
	ONE("opensm-subnet.lst", fill_subnet, NULL);
	if (in->lft != NULL)
		ONE("opensm-lfts.dump", fill_lfts, NULL);
	if (in->mft != NULL)
		ONE("opensm.mcfdbs", fill_mcfdbs, NULL);
	if (in->guid2lid != NULL && access(in->guid2lid, R_OK) == 0)
		ONE("guid2lid", NULL, in->guid2lid);
#undef ONE
	return rc;
}
