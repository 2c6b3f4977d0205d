/*
 * VF alias GUIDs: persistence and device programming. See sm/vfguid.h.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/vfguid.h"

#define ALIAS_FILE "alias_guids"

struct vfguid {
	struct mad_engine *mad;
	struct alias_store *st;
	const struct fabric *f;
	char path[4096];
	uint64_t m_key;
	uint64_t sets, confirmed, failed;
};

struct vreq {
	struct vfguid *vg;
	uint64_t port;          /* port GUID */
	unsigned block;
	unsigned cap;
	uint64_t sent[ALIAS_PER_BLOCK];
};

static void
bad_line(void *arg, unsigned line, const char *why)
{
	log_warnx("%s:%u: %s; line skipped", (const char *)arg, line, why);
}

static void
load(struct vfguid *vg)
{
	FILE *fp = fopen(vg->path, "r");
	char *text = NULL;
	size_t cap = 0, len = 0, n;

	if (fp == NULL) {
		if (errno != ENOENT)
			log_warn("vfguid: %s", vg->path);
		return;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			text = xreallocarray(text, cap, 1);
		}
		n = fread(text + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	fclose(fp);
	text[len] = '\0';
	alias_store_parse(vg->st, text, bad_line, vg->path);
	free(text);
	log_info("vfguid: %zu alias GUIDs active from %s",
	    alias_count_active(vg->st), vg->path);
}

/* Temporary file, fsync, rename, as guid2lid. */
static void
save(struct vfguid *vg)
{
	char tmp[sizeof(vg->path) + 8], *text, *slash, dir[sizeof(vg->path)];
	size_t len;
	FILE *fp;
	int fd;

	if (!alias_store_dirty(vg->st))
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", vg->path);
	text = alias_store_format(vg->st);
	len = strlen(text);
	fp = fopen(tmp, "w");
	if (fp == NULL || fwrite(text, 1, len, fp) != len ||
	    fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
		log_warn("vfguid: cannot write %s", tmp);
		if (fp != NULL)
			fclose(fp);
		unlink(tmp);
		free(text);
		return;
	}
	free(text);
	if (fclose(fp) == EOF || rename(tmp, vg->path) == -1) {
		log_warn("vfguid: cannot replace %s", vg->path);
		unlink(tmp);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", vg->path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if ((fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) != -1) {
			(void)fsync(fd);
			close(fd);
		}
	}
	alias_store_clean(vg->st);
}

struct vfguid *
vfguid_new(struct mad_engine *mad, const char *state_dir, uint8_t guid_byte,
    uint64_t m_key)
{
	struct vfguid *vg = xcalloc(1, sizeof(*vg));

	vg->mad = mad;
	vg->m_key = m_key;
	vg->st = alias_store_new(guid_byte);
	snprintf(vg->path, sizeof(vg->path), "%s/%s", state_dir, ALIAS_FILE);
	load(vg);
	return vg;
}

void
vfguid_free(struct vfguid *vg)
{
	if (vg == NULL)
		return;
	save(vg);
	alias_store_free(vg->st);
	free(vg);
}

struct alias_store *
vfguid_store(struct vfguid *vg)
{
	return vg->st;
}

static void
req_drop(void *arg)
{
	free(arg);
}

static void
done(void *arg, int status, const uint8_t *resp)
{
	struct vreq *q = arg;
	struct vfguid *vg = q->vg;
	uint64_t got[ALIAS_PER_BLOCK];
	const uint8_t *d;
	bool same = true;

	if (status != 0 || resp == NULL) {
		vg->failed++;
		log_warnx("vfguid: port 0x%016" PRIx64 ": GUIDInfo Set of block "
		    "%u %s (status %d)", q->port, q->block, status < 0 ?
		    "unanswered" : "refused", status);
		free(q);
		return;
	}
	d = resp + SMP_DATA_OFFSET;
	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		got[i] = 0;
		for (unsigned k = 0; k < 8; k++)
			got[i] = got[i] << 8 | d[8 * i + k];
		if (!(q->block == 0 && i == 0) && got[i] != q->sent[i])
			same = false;
	}
	/* The answer to a Set is the table as the device now holds it. */
	alias_device_put(vg->st, q->port, q->cap, q->block, got);
	if (same)
		vg->confirmed++;
	else {
		vg->failed++;
		log_warnx("vfguid: port 0x%016" PRIx64 ": GUIDInfo block %u "
		    "reads back otherwise than set", q->port, q->block);
	}
	free(q);
}

static void
program(struct vfguid *vg, uint32_t p, unsigned block)
{
	const struct fabric *f = vg->f;
	const struct fabric_port *port;
	uint8_t data[SMP_DATA_SIZE] = { 0 };
	struct vreq *q;

	if (f == NULL || p >= f->nports)
		return;
	port = &f->ports[p];
	q = xcalloc(1, sizeof(*q));
	q->vg = vg;
	q->port = port->guid;
	q->block = block;
	q->cap = port->info_valid ? port->info[50] : 0;
	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = block * ALIAS_PER_BLOCK + i;

		q->sent[i] = idx == 0 ? port->guid :
		    alias_get(vg->st, port->guid, idx);
		for (unsigned k = 0; k < 8; k++)
			data[8 * i + k] = (uint8_t)(q->sent[i] >> (56 - 8 * k));
	}
	struct smp_req r = {
		.method = MAD_SET, .attr = ATTR_GUID_INFO, .mod = block,
		.path = fabric_port_path(f, p),
		.dest = f->nodes[port->node].guid, .data = data,
		.mkey = vg->m_key, .drop = req_drop,
	};
	if (r.path == NULL) {
		r.dlid = port->lid;
		if (r.dlid == 0) {
			free(q);
			return;
		}
	}
	vg->sets++;
	if (smp_request(vg->mad, &r, done, q) != 0) {
		vg->failed++;
		free(q);
	}
}

void
vfguid_changed(void *arg, uint32_t port, unsigned block)
{
	struct vfguid *vg = arg;

	save(vg);
	program(vg, port, block);
}

/* Block b of port holds active aliases the device is not known to hold. */
static bool
block_differs(const struct vfguid *vg, const struct fabric_port *port,
    unsigned b, const uint64_t *tab)
{
	uint64_t dev[ALIAS_PER_BLOCK];
	bool any = false, known = alias_device_get(vg->st, port->guid, b, dev,
	    NULL);

	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = b * ALIAS_PER_BLOCK + i;

		if (idx == 0)
			continue;
		any |= tab[idx] != 0;
		if (!known || dev[i] != tab[idx])
			known = false;
	}
	return any && !known;
}

void
vfguid_set_fabric(struct vfguid *vg, const struct fabric *f, bool prog)
{
	uint64_t tab[ALIAS_MAX_INDEX];

	vg->f = f;
	if (f == NULL || !prog)
		return;
	for (uint32_t p = 0; p < f->nports; p++) {
		if (!fabric_port_is_endport(f, p) || f->ports[p].guid == 0 ||
		    alias_port_table(vg->st, f->ports[p].guid, tab) == 0)
			continue;
		for (unsigned b = 0; b < ALIAS_MAX_INDEX / ALIAS_PER_BLOCK; b++)
			if (block_differs(vg, &f->ports[p], b, tab))
				program(vg, p, b);
	}
}

void
vfguid_counters(const struct vfguid *vg, uint64_t *sets, uint64_t *confirmed,
    uint64_t *failed)
{
	*sets = vg->sets;
	*confirmed = vg->confirmed;
	*failed = vg->failed;
}
