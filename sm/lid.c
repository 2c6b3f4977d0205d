/*
 * LID manager. The map is a dense array of entries (GUID, base, top), the
 * GUID hash of core/guidhash.h (GUID -> entry index) and a LID-indexed
 * ownership array. Ranges in the map never overlap, and every entry owns
 * at least one LID, so there are never more than LID_MAX entries: 16-bit
 * indices suffice. GUID 0 is no port's: it is never remembered.
 */
#include "sm/lid.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/guidhash.h"
#include "core/log.h"

#define LID_MAX		0xbfffu		/* highest unicast LID */
#define LID_END		(LID_MAX + 1)
#define LMC_MAX		7		/* PortInfo:LMC is 3 bits */
#define LOG_MOVES	16

struct ent {
	uint64_t guid;
	uint32_t present;	/* == gen: among this lid_assign's requests */
	uint32_t fixed;		/* == gen: assigned by this lid_assign */
	uint32_t line;		/* line of the loaded file, for messages */
	uint16_t base;
	uint16_t top;
};

struct lid_map {
	struct ent *ents;
	uint32_t nents;
	uint32_t cap;
	struct guid_hash by_guid;	/* GUID -> entry index */
	uint16_t *owner;	/* per LID: entry index + 1, 0 = free */
	uint32_t gen;		/* lid_assign call number */
	uint32_t step;		/* the current request's block: 2^lmc, or 1 */
	uint32_t lmc_step;	/* this call's 2^lmc */
	unsigned cls;		/* the current request's: 0 2^lmc, 1 one LID */
	uint32_t fblk[2];	/* this call, per cls: no free block below */
	uint32_t tblk[2];	/* this call, per cls: no block to take over below */
	int dirty;
	char why[160];		/* why the last load or save failed */
};

/* What happened to one request, for the logs. */
enum outcome { O_REMEMBERED, O_KEPT, O_NEW, O_TAKEN, O_DUP, O_FAILED,
	O_NO_GUID, O_MAX };

static const char *const outcome_names[O_MAX] = {
	"remembered", "kept", "new", "taken over", "duplicate", "failed",
	"no GUID"
};

static int
lookup(const struct lid_map *m, uint64_t guid)
{
	uint32_t idx = guid_hash_get(&m->by_guid, guid);

	return idx == GUID_HASH_NONE ? -1 : (int)idx;
}

static int
valid_base(uint32_t base, uint32_t step)
{
	return base != 0 && (base & (step - 1)) == 0 &&
	    base + step - 1 <= LID_MAX;
}

/* LIDs of base..top were given up: lower the scan hints to the lowest
 * one left free. Called after any reuse, so that LIDs freed and taken
 * again at once do not send the next scan back over the full space. */
static void
freed(struct lid_map *m, uint32_t base, uint32_t top)
{
	uint32_t lid, blk;
	unsigned c;

	for (lid = base; lid <= top; lid++)
		if (m->owner[lid] == 0) {
			for (c = 0; c < 2; c++) {
				blk = lid & ~((c ? 1 : m->lmc_step) - 1);
				if (blk < m->fblk[c])
					m->fblk[c] = blk;
				if (blk < m->tblk[c])
					m->tblk[c] = blk;
			}
			return;
		}
}

/* Append an entry owning base..top, which must be free. */
static int
add(struct lid_map *m, uint64_t guid, uint32_t base, uint32_t top)
{
	struct ent *e;
	uint32_t lid, idx = m->nents;

	if (m->nents == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->ents = reallocarray(m->ents, m->cap, sizeof(*m->ents));
		if (m->ents == NULL)
			fatal("lid: out of memory");
	}
	e = &m->ents[idx];
	memset(e, 0, sizeof(*e));
	e->guid = guid;
	e->base = (uint16_t)base;
	e->top = (uint16_t)top;
	m->nents++;
	guid_hash_put(&m->by_guid, guid, idx);
	for (lid = base; lid <= top; lid++)
		m->owner[lid] = (uint16_t)(idx + 1);
	m->dirty = 1;
	return (int)idx;
}

/* Remove entry idx; the last entry moves into its place. The caller
 * reports the LIDs left free with freed(). */
static void
drop(struct lid_map *m, int idx)
{
	struct ent *e = &m->ents[idx];
	uint32_t lid, last = m->nents - 1;

	for (lid = e->base; lid <= e->top; lid++)
		m->owner[lid] = 0;
	guid_hash_del(&m->by_guid, e->guid);
	if ((uint32_t)idx != last) {
		*e = m->ents[last];
		for (lid = e->base; lid <= e->top; lid++)
			m->owner[lid] = (uint16_t)(idx + 1);
		guid_hash_put(&m->by_guid, e->guid, (uint32_t)idx);
	}
	m->nents--;
	m->dirty = 1;
}

static void
clear(struct lid_map *m)
{
	m->nents = 0;
	guid_hash_clear(&m->by_guid);
	memset(m->owner, 0, LID_END * sizeof(*m->owner));
	m->dirty = 0;
}

struct lid_map *
lid_map_new(void)
{
	struct lid_map *m;

	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->owner = calloc(LID_END, sizeof(*m->owner))) == NULL)
		fatal("lid: out of memory");
	guid_hash_init(&m->by_guid);
	m->step = m->lmc_step = 1;
	return m;
}

void
lid_map_free(struct lid_map *m)
{
	if (m == NULL)
		return;
	free(m->ents);
	guid_hash_fini(&m->by_guid);
	free(m->owner);
	free(m);
}

size_t
lid_map_count(const struct lid_map *m)
{
	return m->nents;
}

uint16_t
lid_map_get(const struct lid_map *m, uint64_t guid)
{
	int idx = lookup(m, guid);

	return idx < 0 ? 0 : m->ents[idx].base;
}

int
lid_map_dirty(const struct lid_map *m)
{
	return m->dirty;
}

/*
 * Loading.
 */

/* Hex with 0x, else decimal (never octal). -1: not a number, -2: > 64 bits. */
static int
number(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d, c;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -2;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* A field made printable for a log line: the file may hold anything. */
static const char *
quote(char *buf, size_t bufsz, const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 4 < bufsz; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[n++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	if (i < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

struct field {
	const char *s;
	size_t len;
};

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

/* Split into at most nf fields; returns how many were found (nf + 1 if
 * there are more). */
static int
split(const char *s, size_t len, struct field *f, int nf)
{
	size_t i = 0, start;
	int n = 0;

	for (;;) {
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			return n;
		if (n == nf)
			return n + 1;
		start = i;
		while (i < len && !is_space(s[i]))
			i++;
		f[n].s = s + start;
		f[n].len = i - start;
		n++;
	}
}

/* One LID field: a number in 1..LID_MAX. */
static int
parse_lid(const char *path, unsigned line, const char *what,
    const struct field *f, uint32_t *lid)
{
	char q[40];
	uint64_t v;
	int rc;

	if ((rc = number(f->s, f->len, &v)) == -1) {
		log_warnx("%s:%u: %s '%s' is not a number", path, line, what,
		    quote(q, sizeof(q), f->s, f->len));
		return -1;
	}
	if (rc == -2 || v == 0 || v > LID_MAX) {
		log_warnx("%s:%u: %s '%s' out of range 1..%u (0x0001..0x%04x)",
		    path, line, what, quote(q, sizeof(q), f->s, f->len),
		    LID_MAX, LID_MAX);
		return -1;
	}
	*lid = (uint32_t)v;
	return 0;
}

/* Parse one line into m. 0: entry added or nothing there, -1: bad line. */
static int
parse_line(struct lid_map *m, const char *path, unsigned line,
    const char *s, size_t len)
{
	struct field f[4];
	const struct ent *o;
	const char *hash;
	char q[40];
	uint64_t guid;
	uint32_t base, top, lid;
	int n, idx;

	if ((hash = memchr(s, '#', len)) != NULL)
		len = (size_t)(hash - s);
	if ((n = split(s, len, f, 4)) == 0)
		return 0;
	if (n < 3) {
		log_warnx("%s:%u: expected '<guid> <base lid> <top lid>', "
		    "found %d field%s", path, line, n, n == 1 ? "" : "s");
		return -1;
	}
	if (n > 3) {
		log_warnx("%s:%u: unexpected '%s' after the top LID", path, line,
		    quote(q, sizeof(q), f[3].s, f[3].len));
		return -1;
	}
	if ((n = number(f[0].s, f[0].len, &guid)) != 0) {
		log_warnx("%s:%u: GUID '%s' %s", path, line,
		    quote(q, sizeof(q), f[0].s, f[0].len),
		    n == -1 ? "is not a number" : "is longer than 64 bits");
		return -1;
	}
	if (guid == 0) {
		log_warnx("%s:%u: GUID 0 is not a port GUID", path, line);
		return -1;
	}
	if (parse_lid(path, line, "base LID", &f[1], &base) == -1 ||
	    parse_lid(path, line, "top LID", &f[2], &top) == -1)
		return -1;
	if (top < base) {
		log_warnx("%s:%u: top LID %u below base LID %u", path, line,
		    top, base);
		return -1;
	}
	if ((idx = lookup(m, guid)) >= 0) {
		log_warnx("%s:%u: duplicate GUID 0x%016" PRIx64 ", keeping "
		    "line %u", path, line, guid, m->ents[idx].line);
		return -1;
	}
	for (lid = base; lid <= top; lid++)
		if (m->owner[lid] != 0) {
			o = &m->ents[m->owner[lid] - 1];
			log_warnx("%s:%u: LID %u of GUID 0x%016" PRIx64 " already "
			    "belongs to GUID 0x%016" PRIx64 ", keeping line %u",
			    path, line, lid, guid, o->guid, o->line);
			return -1;
		}
	idx = add(m, guid, base, top);
	m->ents[idx].line = line;
	return 0;
}

int
lid_map_load(struct lid_map *m, const char *path, unsigned *bad)
{
	struct lid_map *t, swap;
	char *text;
	const char *p, *nl, *end;
	size_t len;
	unsigned line = 0, nbad = 0;

	if (bad != NULL)
		*bad = 0;
	m->why[0] = '\0';
	switch (file_read(path, LID_MAP_MAX_BYTES, &text, &len, m->why,
	    sizeof(m->why))) {
	case FILE_MISSING:
		clear(m);
		return 0;
	case FILE_INVALID:
		return -1;
	}
	/* Parse aside, so that a bad file leaves m as it was. */
	t = lid_map_new();
	end = text + len;
	for (p = text; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (parse_line(t, path, ++line, p, (size_t)(nl - p)) == -1)
			nbad++;
	}
	free(text);
	swap = *m;
	*m = *t;
	*t = swap;
	lid_map_free(t);
	m->dirty = 0;
	if (bad != NULL)
		*bad = nbad;
	return 0;
}

const char *
lid_map_why(const struct lid_map *m)
{
	return m->why;
}

/*
 * Saving.
 */

static int
cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct ent *)a)->guid;
	uint64_t y = ((const struct ent *)b)->guid;

	return x < y ? -1 : x > y;
}

/* Make the rename durable. */
static int
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, rc, serrno;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (dir == NULL)
		fatal("lid: out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	serrno = errno;
	free(dir);
	if (fd == -1) {
		errno = serrno;
		return -1;
	}
	/* Some file systems cannot sync a directory; nothing more to do. */
	rc = fsync(fd);
	if (rc == -1 && errno == EINVAL)
		rc = 0;
	serrno = errno;
	close(fd);
	errno = serrno;
	return rc;
}

static int
write_ents(FILE *fp, const struct lid_map *m)
{
	struct ent *sorted;
	uint32_t i;

	if (m->nents > 0) {
		sorted = reallocarray(NULL, m->nents, sizeof(*sorted));
		if (sorted == NULL)
			fatal("lid: out of memory");
		memcpy(sorted, m->ents, m->nents * sizeof(*sorted));
		/* Sorted by GUID, so that successive files diff well. */
		qsort(sorted, m->nents, sizeof(*sorted), cmp_guid);
	} else
		sorted = NULL;
	fprintf(fp, "# ibsmd guid2lid: <port guid> <base lid> "
	    "<top lid = base + 2^lmc - 1>\n");
	for (i = 0; i < m->nents; i++)
		fprintf(fp, "0x%016" PRIx64 " %u %u\n", sorted[i].guid,
		    sorted[i].base, sorted[i].top);
	free(sorted);
	if (ferror(fp)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
lid_map_save(struct lid_map *m, const char *path)
{
	size_t plen = strlen(path);
	char *tmp;
	FILE *fp;
	int fd, serrno;

	m->why[0] = '\0';
	if (file_check_replace(path, m->why, sizeof(m->why)) < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((tmp = malloc(plen + sizeof(".tmp"))) == NULL)
		fatal("lid: out of memory");
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", sizeof(".tmp"));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	if (fd == -1) {
		serrno = errno;
		free(tmp);
		errno = serrno;
		return -1;
	}
	if ((fp = fdopen(fd, "w")) == NULL) {
		serrno = errno;
		close(fd);
		goto fail;
	}
	if (write_ents(fp, m) == -1 || fflush(fp) == EOF ||
	    fsync(fileno(fp)) == -1) {
		serrno = errno;
		fclose(fp);
		goto fail;
	}
	if (fclose(fp) == EOF || rename(tmp, path) == -1) {
		serrno = errno;
		goto fail;
	}
	free(tmp);
	if (sync_dir(path) == -1)
		return -1;
	/* The map is not modified, only its saved-state flag: the object is
	 * never const itself (lid_map_new allocates it). */
	m->dirty = 0;
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = serrno;
	return -1;
}

/*
 * Assignment.
 */

/* Give entry idx (or a new entry for guid when idx < 0) the range at base.
 * Every LID of the range must be free or already idx's. */
static int
settle(struct lid_map *m, int idx, uint64_t guid, uint32_t base)
{
	struct ent *e;
	uint32_t lid, top = base + m->step - 1, obase, otop;

	if (idx < 0)
		idx = add(m, guid, base, top);
	e = &m->ents[idx];
	if (e->base != base || e->top != top) {
		obase = e->base;
		otop = e->top;
		for (lid = obase; lid <= otop; lid++)
			if (lid < base || lid > top)
				m->owner[lid] = 0;
		for (lid = base; lid <= top; lid++) {
			if (m->owner[lid] != 0 && m->owner[lid] != idx + 1)
				fatalx("lid: LID %u of 0x%016" PRIx64 " is taken",
				    lid, guid);
			m->owner[lid] = (uint16_t)(idx + 1);
		}
		e->base = (uint16_t)base;
		e->top = (uint16_t)top;
		m->dirty = 1;
		freed(m, obase, otop);
	}
	e->present = e->fixed = m->gen;
	return idx;
}

/* Whether every LID of the block at base is free or idx's own. */
static int
usable(const struct lid_map *m, uint32_t base, int idx)
{
	uint32_t lid;

	for (lid = base; lid < base + m->step; lid++)
		if (m->owner[lid] != 0 && m->owner[lid] != idx + 1)
			return 0;
	return 1;
}

/* Like usable(), also counting LIDs reserved for absent GUIDs. */
static int
takeable(const struct lid_map *m, uint32_t base, int idx)
{
	uint32_t lid;
	uint16_t o;

	for (lid = base; lid < base + m->step; lid++) {
		o = m->owner[lid];
		if (o != 0 && o != idx + 1 && m->ents[o - 1].present == m->gen)
			return 0;
	}
	return 1;
}

/* Lowest block for which ok() holds, scanning from *hint, or from idx's
 * own LIDs when lower; 0 if none. A block that fails for one port fails
 * for all (only a port's own LIDs differ), so *hint only moves up here. */
static uint32_t
scan(struct lid_map *m, int idx, uint32_t *hint,
    int (*ok)(const struct lid_map *, uint32_t, int))
{
	uint32_t b, start = *hint;

	if (idx >= 0) {
		b = m->ents[idx].base & ~(m->step - 1);
		if (b < start)
			start = b;
	}
	if (start < m->step)
		start = m->step;
	for (b = start; b + m->step - 1 <= LID_MAX; b += m->step) {
		if (ok(m, b, idx))
			return b;
		if (b >= *hint)
			*hint = b + m->step;
	}
	return 0;
}

/*
 * Give guid (entry idx, or -1) the block at base, forgetting whoever else
 * holds LIDs in it. Two callers: rule 1, where a remembered aligned block
 * can collide only with entries whose base lies inside it, misaligned
 * (ranges never overlap, so any other range reaching into the block must
 * start in it; such a base, left from a smaller LMC, is never honoured at
 * this one); and the last resort (full), where the block was reserved for
 * absent GUIDs. Returns the entry's index.
 */
static int
claim_block(struct lid_map *m, int idx, uint64_t guid, uint32_t base,
    bool full)
{
	struct ent gone[1u << LMC_MAX];
	uint32_t lid, i, n = 0;
	uint16_t o;

	for (lid = base; lid < base + m->step; lid++) {
		if ((o = m->owner[lid]) == 0 || o == idx + 1)
			continue;
		gone[n] = m->ents[o - 1];
		if (full)
			log_warnx("lid: LID space full: port 0x%016" PRIx64
			    " takes LID %u, reserved for absent port 0x%016"
			    PRIx64 " (LIDs %u-%u, forgotten)", guid, lid,
			    gone[n].guid, gone[n].base, gone[n].top);
		else
			log_info("lid: LMC block %u-%u of port 0x%016" PRIx64
			    " replaces the misaligned range %u-%u of port "
			    "0x%016" PRIx64, base, base + m->step - 1, guid,
			    gone[n].base, gone[n].top, gone[n].guid);
		drop(m, o - 1);
		idx = lookup(m, guid);
		n++;
	}
	idx = settle(m, idx, guid, base);
	for (i = 0; i < n; i++)
		freed(m, gone[i].base, gone[i].top);
	return idx;
}

static enum outcome
assign_one(struct lid_map *m, struct lid_req *r)
{
	int idx = lookup(m, r->guid);
	uint32_t base;

	m->cls = r->single ? 1 : 0;
	m->step = r->single ? 1 : m->lmc_step;
	if (r->guid == 0) {
		r->lid = 0;
		log_warnx("lid: a port without a GUID gets no LID");
		return O_NO_GUID;
	}
	if (idx >= 0 && m->ents[idx].fixed == m->gen) {
		r->lid = m->ents[idx].base;
		log_warnx("lid: port GUID 0x%016" PRIx64 " requested twice, "
		    "both get LID %u", r->guid, r->lid);
		return O_DUP;
	}
	/* A remembered base misaligned for this LMC counts as none. */
	if (idx >= 0 && valid_base(m->ents[idx].base, m->step)) {
		base = m->ents[idx].base;
		claim_block(m, idx, r->guid, base, false);
		r->lid = (uint16_t)base;
		return O_REMEMBERED;
	}
	if (valid_base(r->cur, m->step) && usable(m, r->cur, idx)) {
		settle(m, idx, r->guid, r->cur);
		r->lid = r->cur;
		return O_KEPT;
	}
	if ((base = scan(m, idx, &m->fblk[m->cls], usable)) != 0) {
		idx = settle(m, idx, r->guid, base);
		r->lid = (uint16_t)base;
		return O_NEW;
	}
	/* Last resort: the lowest block reserved for absent GUIDs. */
	if ((base = scan(m, idx, &m->tblk[m->cls], takeable)) != 0) {
		claim_block(m, idx, r->guid, base, true);
		r->lid = (uint16_t)base;
		return O_TAKEN;
	}
	r->lid = 0;
	return O_FAILED;
}

/* Ports whose LID changes are logged one by one up to LOG_MOVES per call;
 * a fabric of thousands renumbered at once gets a count. */
static void
report(const struct lid_req *r, enum outcome o, unsigned *moved)
{
	if (o != O_DUP && o != O_FAILED && o != O_NO_GUID && r->cur != 0 &&
	    r->cur != r->lid &&
	    (*moved)++ < LOG_MOVES)
		log_info("lid: port 0x%016" PRIx64 ": LID %u -> %u (%s)",
		    r->guid, r->cur, r->lid, outcome_names[o]);
	else
		log_debug("lid: port 0x%016" PRIx64 ": LID %u -> %u (%s)",
		    r->guid, r->cur, r->lid, outcome_names[o]);
}

/* A new call number; entries stamped with it belong to this call. */
static void
next_gen(struct lid_map *m)
{
	uint32_t i;

	if (++m->gen == 0) {
		for (i = 0; i < m->nents; i++)
			m->ents[i].present = m->ents[i].fixed = 0;
		m->gen = 1;
	}
}

int
lid_assign(struct lid_map *m, struct lid_req *reqs, size_t n, uint8_t lmc)
{
	unsigned count[O_MAX] = { 0 }, moved = 0;
	enum outcome o;
	size_t i;
	int idx;

	if (lmc > LMC_MAX) {
		log_warnx("lid: LMC %u out of range 0..%u", lmc, LMC_MAX);
		for (i = 0; i < n; i++)
			reqs[i].lid = 0;
		errno = EINVAL;
		return -1;
	}
	next_gen(m);
	m->lmc_step = 1u << lmc;
	m->fblk[0] = m->tblk[0] = m->lmc_step;
	m->fblk[1] = m->tblk[1] = 1;
	/* Absent GUIDs, whose reservations may be taken over, are those
	 * not stamped here. */
	for (i = 0; i < n; i++)
		if ((idx = lookup(m, reqs[i].guid)) >= 0)
			m->ents[idx].present = m->gen;
	for (i = 0; i < n; i++) {
		o = assign_one(m, &reqs[i]);
		count[o]++;
		report(&reqs[i], o, &moved);
	}
	if (count[O_FAILED] > 0)
		log_warnx("lid: LID space exhausted at LMC %u: %u port%s left "
		    "without a LID", lmc, count[O_FAILED],
		    count[O_FAILED] == 1 ? "" : "s");
	if (count[O_REMEMBERED] + count[O_DUP] == n && moved == 0)
		log_debug("lid: %zu ports, all LIDs remembered", n);
	else
		log_info("lid: %zu ports at LMC %u: %u remembered, %u kept, "
		    "%u new, %u taken over, %u duplicate, %u failed, %u without "
		    "a GUID; %u changed LID%s", n, lmc, count[O_REMEMBERED],
		    count[O_KEPT], count[O_NEW], count[O_TAKEN], count[O_DUP],
		    count[O_FAILED], count[O_NO_GUID], moved,
		    moved > LOG_MOVES ? " (the first ones logged)" : "");
	return count[O_FAILED] > 0 ? -1 : 0;
}

/*
 * Learning what the fabric holds (an SM coming out of STANDBY).
 */

size_t
lid_map_learn(struct lid_map *m, const struct lid_req *reqs, size_t n,
    uint8_t lmc)
{
	uint32_t lstep = 1u << (lmc > LMC_MAX ? 0 : lmc), step, lid, top;
	uint8_t *count;
	size_t i, changed = 0;
	int idx;
	uint16_t o;

	if ((count = calloc(LID_END, 1)) == NULL)
		fatal("lid: out of memory");
	for (i = 0; i < n; i++)
		if (valid_base(reqs[i].cur, reqs[i].single ? 1 : lstep) &&
		    count[reqs[i].cur] < 2)
			count[reqs[i].cur]++;
	for (i = 0; i < n; i++) {
		const struct lid_req *r = &reqs[i];

		step = r->single ? 1 : lstep;
		/* A LID two ports claim is nobody's to learn. */
		if (!valid_base(r->cur, step) || count[r->cur] != 1)
			continue;
		top = r->cur + step - 1;
		idx = lookup(m, r->guid);
		if (idx >= 0 && m->ents[idx].base == r->cur &&
		    m->ents[idx].top == top)
			continue;
		for (lid = r->cur; lid <= top; lid++)
			if ((o = m->owner[lid]) != 0 && o != idx + 1) {
				log_debug("lid: LIDs %u-%u of port 0x%016" PRIx64
				    " forgotten: the fabric gives LID %u to "
				    "port 0x%016" PRIx64, m->ents[o - 1].base,
				    m->ents[o - 1].top, m->ents[o - 1].guid,
				    r->cur, r->guid);
				drop(m, o - 1);
				idx = lookup(m, r->guid);
			}
		if (idx >= 0)
			drop(m, idx);
		add(m, r->guid, r->cur, top);
		changed++;
	}
	free(count);
	return changed;
}
