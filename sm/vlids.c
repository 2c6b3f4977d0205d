/*
 * sm/vlids.c: the vport LIDs last seen running (sm/vlids.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/query.h"
#include "sm/vlids.h"

#define VLIDS_MAX_FILE (4u << 20)

void
vlids_free(struct vlids *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
add(struct vlids *l, uint64_t guid, uint16_t lid, uint64_t host)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].guid = guid;
	l->v[l->n].lid = lid;
	l->v[l->n].host = host;
	l->n++;
}

void
vlids_from_set(struct vlids *l, const struct vport_set *s,
    const struct fabric *f)
{
	vlids_free(l);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct vport *v = &s->v[i];

		if (v->index == 0 || !vport_is_managed(v) || v->lid == 0 ||
		    (v->state != PORT_ARMED && v->state != PORT_ACTIVE) ||
		    v->port >= f->nports || f->ports[v->port].guid == 0 ||
		    v->lid == f->ports[v->port].lid)
			continue;
		add(l, v->guid, v->lid, f->ports[v->port].guid);
	}
}

bool
vlids_equal(const struct vlids *a, const struct vlids *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].guid != b->v[i].guid || a->v[i].lid != b->v[i].lid ||
		    a->v[i].host != b->v[i].host)
			return false;
	return true;
}

int
vlids_load(struct vlids *l, const char *path, unsigned *bad, char *why,
    size_t whylen)
{
	char *text, *line, *save = NULL;
	size_t len;
	int rc;

	vlids_free(l);
	*bad = 0;
	rc = file_read(path, VLIDS_MAX_FILE, &text, &len, why, whylen);
	if (rc == FILE_MISSING)
		return 0;
	if (rc != FILE_OK)
		return -1;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		unsigned long long g, h;
		unsigned lid;
		char extra;

		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '#' || *line == '\0')
			continue;
		if (sscanf(line, "%llx %u %llx %c", &g, &lid, &h, &extra) != 3 ||
		    g == 0 || h == 0 || lid == 0 || lid > 0xbfff) {
			(*bad)++;
			continue;
		}
		add(l, g, (uint16_t)lid, h);
	}
	free(text);
	return 0;
}

static int
write_vlids(FILE *fp, void *arg)
{
	const struct vlids *l = arg;

	fprintf(fp, "# ibsmd: vport LIDs last seen running: VPortGUID LID "
	    "physical port GUID\n");
	for (size_t i = 0; i < l->n; i++)
		fprintf(fp, "0x%016" PRIx64 " %u 0x%016" PRIx64 "\n",
		    l->v[i].guid, l->v[i].lid, l->v[i].host);
	return 0;
}

int
vlids_save(const struct vlids *l, const char *path)
{
	return file_replace(path, write_vlids, (void *)l);
}

long
vlids_apply(const struct vlids *l, const struct fabric *f,
    struct lft_set *lft)
{
	uint16_t max = 0;
	long n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].lid > max)
			max = l->v[i].lid;
	if (max > lft->max_lid && lft_set_grow(lft, max) < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		const struct vlid *v = &l->v[i];
		uint32_t p = query_port_by_guid(f, v->host);
		uint16_t plid;

		if (p == FABRIC_NONE || !fabric_port_is_endport(f, p) ||
		    (plid = f->ports[p].lid) == 0 || plid > lft->max_lid ||
		    fabric_port_by_lid(f, v->lid) != FABRIC_NONE)
			continue;
		for (uint32_t s = 0; s < lft->nsw; s++) {
			uint8_t *row = lft_row(lft, s);

			row[v->lid] = row[plid];
		}
		n++;
	}
	return n;
}
