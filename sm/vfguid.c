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

#include <ev.h>

#include "core/alias.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/file.h"
#include "core/guidhash.h"
#include "core/inflight.h"
#include "core/log.h"
#include "core/query.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/vfguid.h"

#define ALIAS_FILE "alias_guids"
#define VFGUID_MAX_BYTES (16u << 20)     /* the file read at start */

/* Changes are written at most this often (the last one within it). */
#define SAVE_DELAY 0.1

struct vfguid {
	struct ev_loop *loop;
	ev_timer save_timer;    /* a write is due */
	uint64_t writes;        /* times the file was written */
	struct mad_engine *mad;
	struct alias_store *st;
	const struct fabric *f;
	char path[4096];
	uint64_t sets, confirmed, failed;
	uint64_t adopted;       /* device entries taken into the store */
	uint64_t restored;      /* blocks written back: the device lost them */
	bool unsaved;           /* the file could not be replaced (said) */
	struct guid_hash said;  /* ports whose failed Set was logged */
	struct inflight pending; /* GUIDInfo Sets in flight */
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
	char *text, why[160];
	size_t len;

	switch (file_read(vg->path, VFGUID_MAX_BYTES, &text, &len, why,
	    sizeof(why))) {
	case FILE_MISSING:
		return;
	case FILE_INVALID:
		log_warnx("vfguid: cannot read %s: %s; starting with no alias "
		    "GUIDs", vg->path, why);
		return;
	}
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
	char why[160];
	size_t len;
	FILE *fp;
	int fd;

	if (!alias_store_dirty(vg->st))
		return;
	if (file_check_replace(vg->path, why, sizeof(why)) < 0) {
		/* said once; saved when it can be */
		if (!vg->unsaved)
			log_warnx("vfguid: cannot save %s: %s", vg->path, why);
		vg->unsaved = true;
		return;
	}
	vg->unsaved = false;
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
	vg->writes++;
}

static void
save_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct vfguid *vg = w->data;

	(void)loop;
	(void)revents;
	save(vg);
}

/* A write within SAVE_DELAY: the changes of a burst of Sets (a host
 * asking for all its VFs' GUIDs) go out in one write. */
static void
save_soon(struct vfguid *vg)
{
	if (!alias_store_dirty(vg->st) || ev_is_active(&vg->save_timer))
		return;
	if (vg->loop == NULL) {
		save(vg);
		return;
	}
	ev_timer_set(&vg->save_timer, SAVE_DELAY, 0.);
	ev_timer_start(vg->loop, &vg->save_timer);
}

struct vfguid *
vfguid_new(struct ev_loop *loop, struct mad_engine *mad,
    const char *state_dir, uint8_t guid_byte)
{
	struct vfguid *vg = xcalloc(1, sizeof(*vg));

	vg->loop = loop;
	ev_timer_init(&vg->save_timer, save_cb, SAVE_DELAY, 0.);
	vg->save_timer.data = vg;
	vg->mad = mad;
	vg->st = alias_store_new(guid_byte);
	guid_hash_init(&vg->said);
	snprintf(vg->path, sizeof(vg->path), "%s/%s", state_dir, ALIAS_FILE);
	load(vg);
	return vg;
}

void
vfguid_free(struct vfguid *vg)
{
	if (vg == NULL)
		return;
	if (vg->loop != NULL)
		ev_timer_stop(vg->loop, &vg->save_timer);
	save(vg);
	alias_store_free(vg->st);
	guid_hash_fini(&vg->said);
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
		char st[96];

		vg->failed++;
		/* said once per port until a Set goes through: it is tried
		 * again at every heavy sweep */
		if (guid_hash_get(&vg->said, q->port) == GUID_HASH_NONE) {
			guid_hash_put(&vg->said, q->port, 1);
			log_warnx("vfguid: port 0x%016" PRIx64 ": the adapter %s "
			    "the GUIDInfo Set of block %u (%s): its VFs' alias "
			    "GUIDs are not programmed; tried again at each "
			    "heavy sweep", q->port, status < 0 ? "did not "
			    "answer" : "refused", q->block, mad_status_text(
			    MGMT_CLASS_SMP_LID, status, st, sizeof(st)));
		} else
			log_debug("vfguid: port 0x%016" PRIx64 ": GUIDInfo Set "
			    "of block %u failed again (%s)", q->port, q->block,
			    mad_status_text(MGMT_CLASS_SMP_LID, status, st,
			    sizeof(st)));
		free(q);
		inflight_settled(&vg->pending);
		return;
	}
	if (guid_hash_del(&vg->said, q->port))
		log_info("vfguid: port 0x%016" PRIx64 ": GUIDInfo Set taken "
		    "again", q->port);
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
	inflight_settled(&vg->pending);
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
		.drop = req_drop,
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
		return;
	}
	inflight_add(&vg->pending);
}

void
vfguid_changed(void *arg, uint32_t port, unsigned block)
{
	struct vfguid *vg = arg;

	save_soon(vg);
	program(vg, port, block);
}

/* Block b of port must be written: the device, as last read, holds
 * otherwise than the store says; never read: the block has active
 * aliases. */
static bool
block_differs(const struct vfguid *vg, const struct fabric_port *port,
    unsigned b, const uint64_t *tab)
{
	uint64_t dev[ALIAS_PER_BLOCK];
	unsigned cap = 0;
	bool any = false, known = alias_device_get(vg->st, port->guid, b, dev,
	    &cap);

	for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
		unsigned idx = b * ALIAS_PER_BLOCK + i;

		if (idx == 0)
			continue;
		any |= tab[idx] != 0;
		if (known && idx < cap && dev[i] != tab[idx])
			return true;
	}
	return any && !known;
}

/* A GUID the fabric uses itself (a port's or a node's). */
static bool
fabric_taken(void *arg, uint64_t guid)
{
	const struct fabric *f = arg;

	return query_port_by_guid(f, guid) != FABRIC_NONE ||
	    fabric_node_by_guid(f, guid) != FABRIC_NONE;
}

/*
 * What the devices hold (read by the discovery of f) and the store does
 * not: the device's alias GUID is taken into the store, so that an SM that
 * takes over from another keeps the GUIDs hosts were given. An entry the
 * store has active and the device lost (a host that reset its table) is
 * left to programming.
 */
static void
adopt(struct vfguid *vg, const struct fabric *f)
{
	uint64_t dev[ALIAS_PER_BLOCK];
	unsigned cap;

	for (uint32_t p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];

		if (!fabric_port_is_endport(f, p) || port->guid == 0)
			continue;
		for (unsigned b = 0; b < ALIAS_MAX_INDEX / ALIAS_PER_BLOCK;
		    b++) {
			if (!alias_device_get(vg->st, port->guid, b, dev, &cap))
				continue;
			for (unsigned i = 0; i < ALIAS_PER_BLOCK; i++) {
				unsigned idx = b * ALIAS_PER_BLOCK + i;
				uint64_t have;

				if (idx == 0 || idx >= cap || dev[i] == 0)
					continue;
				have = alias_get(vg->st, port->guid, idx);
				if (have == dev[i])
					continue;
				/* Deleted here: the Delete stands (a read
				 * may predate its GUIDInfo Set). */
				if (have == 0 && alias_saved(vg->st,
				    port->guid, idx) == dev[i])
					continue;
				if (alias_adopt(vg->st, port->guid, idx, dev[i],
				    fabric_taken, (void *)f)) {
					vg->adopted++;
					log_info("vfguid: port 0x%016" PRIx64
					    " index %u: alias GUID 0x%016"
					    PRIx64 " as the device holds it%s",
					    port->guid, idx, dev[i], have ?
					    " (the store had another)" : "");
				} else
					log_warnx("vfguid: port 0x%016" PRIx64
					    " index %u holds 0x%016" PRIx64
					    ", in use elsewhere: written over",
					    port->guid, idx, dev[i]);
			}
		}
	}
}

void
vfguid_set_fabric(struct vfguid *vg, const struct fabric *f)
{
	if (f != NULL && f != vg->f)
		adopt(vg, f);
	vg->f = f;
	save_soon(vg);
}

bool
vfguid_program(struct vfguid *vg, vfguid_done_cb done_cb, void *arg)
{
	const struct fabric *f = vg->f;
	uint64_t tab[ALIAS_MAX_INDEX], dev[ALIAS_PER_BLOCK];

	for (uint32_t p = 0; f != NULL && p < f->nports; p++) {
		/* a port holding another SM's M_Key is left alone */
		if (!fabric_port_is_endport(f, p) || f->ports[p].guid == 0 ||
		    f->ports[p].mkey_foreign)
			continue;
		alias_port_table(vg->st, f->ports[p].guid, tab);
		for (unsigned b = 0; b < ALIAS_MAX_INDEX / ALIAS_PER_BLOCK; b++)
			if (block_differs(vg, &f->ports[p], b, tab)) {
				if (alias_device_get(vg->st, f->ports[p].guid,
				    b, dev, NULL))
					vg->restored++;
				program(vg, p, b);
			}
	}
	return inflight_wait(&vg->pending, done_cb, arg);
}

int
vfguid_forget(struct vfguid *vg, uint64_t port, unsigned index,
    uint64_t *was)
{
	int r = alias_forget(vg->st, port, index, was);

	if (r == 0) {
		log_info("vfguid: port 0x%016" PRIx64 " index %u: alias GUID "
		    "0x%016" PRIx64 " forgotten (ibsmctl); a new Set of 0 "
		    "gets another", port, index, *was);
		save_soon(vg);
	}
	return r;
}

void
vfguid_get_stats(const struct vfguid *vg, struct vfguid_stats *st)
{
	st->sets = vg->sets;
	st->confirmed = vg->confirmed;
	st->failed = vg->failed;
	st->restored = vg->restored;
	st->adopted = vg->adopted;
	st->writes = vg->writes;
	st->active = alias_count_active(vg->st);
}
