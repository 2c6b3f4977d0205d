/*
 * VF alias GUIDs: the assignment store. See core/alias.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* open_memstream */
#endif
#include "core/alias.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/guidhash.h"
#include "core/log.h"

#define NBLOCKS	(ALIAS_MAX_INDEX / ALIAS_PER_BLOCK)

struct aport {
	uint64_t guid;
	uint64_t saved[ALIAS_MAX_INDEX];
	uint8_t active[ALIAS_MAX_INDEX / 8];	/* bit per index */
	uint64_t dev[ALIAS_MAX_INDEX];
	uint32_t dev_read;			/* bit per block */
	uint16_t cap;				/* GUIDCap as read */
};

struct alias_store {
	struct aport *ports;
	uint32_t nports, cap;
	struct guid_hash byport;	/* port GUID -> ports[] */
	struct guid_hash byalias;	/* saved GUID -> port << 8 | index */
	uint8_t byte;
	uint32_t counter;		/* next generated low 32 bits */
	bool dirty;
};

struct alias_store *
alias_store_new(uint8_t guid_byte)
{
	struct alias_store *s = xcalloc(1, sizeof(*s));

	guid_hash_init(&s->byport);
	guid_hash_init(&s->byalias);
	s->byte = guid_byte;
	s->counter = 1;
	return s;
}

void
alias_store_free(struct alias_store *s)
{
	if (s == NULL)
		return;
	guid_hash_fini(&s->byport);
	guid_hash_fini(&s->byalias);
	free(s->ports);
	free(s);
}

void
alias_store_set_byte(struct alias_store *s, uint8_t guid_byte)
{
	s->byte = guid_byte;
}

static struct aport *
port_find(const struct alias_store *s, uint64_t port)
{
	uint32_t i = guid_hash_get(&s->byport, port);

	return i == GUID_HASH_NONE ? NULL : &s->ports[i];
}

static struct aport *
port_get(struct alias_store *s, uint64_t port)
{
	struct aport *p = port_find(s, port);

	if (p != NULL)
		return p;
	if (s->nports == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->ports = xreallocarray(s->ports, s->cap, sizeof(*s->ports));
	}
	p = &s->ports[s->nports];
	memset(p, 0, sizeof(*p));
	p->guid = port;
	guid_hash_put(&s->byport, port, s->nports++);
	return p;
}

static bool
is_active(const struct aport *p, unsigned i)
{
	return (p->active[i / 8] >> (i % 8)) & 1;
}

static void
set_active(struct aport *p, unsigned i, bool on)
{
	if (on)
		p->active[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		p->active[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* (port, index) becomes the owner of guid (0: none). */
static void
save(struct alias_store *s, struct aport *p, unsigned i, uint64_t guid)
{
	uint32_t pi = (uint32_t)(p - s->ports);

	if (p->saved[i] == guid)
		return;
	if (p->saved[i] != 0)
		guid_hash_del(&s->byalias, p->saved[i]);
	p->saved[i] = guid;
	if (guid != 0)
		guid_hash_put(&s->byalias, guid, pi << 8 | i);
	s->dirty = true;
}

static uint64_t
generate(struct alias_store *s, alias_taken_fn *taken, void *arg)
{
	for (uint64_t tries = 0; tries < UINT32_MAX; tries++) {
		uint64_t g = ALIAS_OUI << 40 | (uint64_t)s->byte << 32 |
		    s->counter;

		s->counter = s->counter == UINT32_MAX ? 1 : s->counter + 1;
		if (guid_hash_get(&s->byalias, g) != GUID_HASH_NONE)
			continue;
		if (taken != NULL && taken(arg, g))
			continue;
		return g;
	}
	return 0;
}

uint64_t
alias_set(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t want, alias_taken_fn *taken, void *arg)
{
	struct aport *p;
	uint32_t owner;
	uint64_t g;

	if (index == 0 || index >= ALIAS_MAX_INDEX || port == 0)
		return 0;
	p = port_find(s, port);
	if (want == 0) {
		if (p != NULL && is_active(p, index))
			return p->saved[index];
		g = p != NULL ? p->saved[index] : 0;
		/* A saved GUID the fabric now uses (a new HCA) is given up. */
		if (g != 0 && taken != NULL && taken(arg, g))
			g = 0;
		if (g == 0 && (g = generate(s, taken, arg)) == 0)
			return 0;
	} else {
		g = want;
		owner = guid_hash_get(&s->byalias, want);
		if (owner != GUID_HASH_NONE) {
			if (&s->ports[owner >> 8] != p ||
			    (owner & 0xff) != index)
				return 0;	/* another entry's */
		} else if (want == port || (taken != NULL && taken(arg, want)))
			return 0;
	}
	p = port_get(s, port);
	save(s, p, index, g);
	if (!is_active(p, index)) {
		set_active(p, index, true);
		s->dirty = true;
	}
	return g;
}

bool
alias_delete(struct alias_store *s, uint64_t port, unsigned index)
{
	struct aport *p = port_find(s, port);

	if (p == NULL || index == 0 || index >= ALIAS_MAX_INDEX ||
	    !is_active(p, index))
		return false;
	set_active(p, index, false);
	s->dirty = true;
	return true;
}

int
alias_forget(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t *was)
{
	struct aport *p = port_find(s, port);

	*was = 0;
	if (p == NULL || index == 0 || index >= ALIAS_MAX_INDEX ||
	    p->saved[index] == 0)
		return -1;
	if (is_active(p, index))
		return -2;
	*was = p->saved[index];
	save(s, p, index, 0);
	return 0;
}

uint64_t
alias_get(const struct alias_store *s, uint64_t port, unsigned index)
{
	const struct aport *p = port_find(s, port);

	if (p == NULL || index == 0 || index >= ALIAS_MAX_INDEX ||
	    !is_active(p, index))
		return 0;
	return p->saved[index];
}

uint64_t
alias_saved(const struct alias_store *s, uint64_t port, unsigned index)
{
	const struct aport *p = port_find(s, port);

	if (p == NULL || index >= ALIAS_MAX_INDEX)
		return 0;
	return p->saved[index];
}

bool
alias_find(const struct alias_store *s, uint64_t guid, uint64_t *port,
    unsigned *index)
{
	uint32_t v = guid == 0 ? GUID_HASH_NONE :
	    guid_hash_get(&s->byalias, guid);
	const struct aport *p;

	if (v == GUID_HASH_NONE)
		return false;
	p = &s->ports[v >> 8];
	if (!is_active(p, v & 0xff))
		return false;
	if (port != NULL)
		*port = p->guid;
	if (index != NULL)
		*index = v & 0xff;
	return true;
}

size_t
alias_port_table(const struct alias_store *s, uint64_t port, uint64_t *guids)
{
	const struct aport *p = port_find(s, port);
	size_t n = 0;

	memset(guids, 0, ALIAS_MAX_INDEX * sizeof(*guids));
	if (p == NULL)
		return 0;
	for (unsigned i = 1; i < ALIAS_MAX_INDEX; i++)
		if (is_active(p, i)) {
			guids[i] = p->saved[i];
			n++;
		}
	return n;
}

size_t
alias_ports(const struct alias_store *s, uint64_t *out, size_t max)
{
	for (uint32_t i = 0; i < s->nports && i < max; i++)
		out[i] = s->ports[i].guid;
	return s->nports;
}

size_t
alias_count_active(const struct alias_store *s)
{
	size_t n = 0;

	for (uint32_t i = 0; i < s->nports; i++)
		for (unsigned k = 1; k < ALIAS_MAX_INDEX; k++)
			n += is_active(&s->ports[i], k);
	return n;
}

void
alias_device_put(struct alias_store *s, uint64_t port, unsigned cap,
    unsigned block, const uint64_t *guids)
{
	struct aport *p;

	if (block >= NBLOCKS || port == 0)
		return;
	p = port_get(s, port);
	p->cap = (uint16_t)cap;
	memcpy(&p->dev[block * ALIAS_PER_BLOCK], guids,
	    ALIAS_PER_BLOCK * sizeof(*guids));
	p->dev_read |= 1u << block;
}

bool
alias_device_get(const struct alias_store *s, uint64_t port, unsigned block,
    uint64_t *guids, unsigned *cap)
{
	const struct aport *p = port_find(s, port);

	if (p == NULL || block >= NBLOCKS || !(p->dev_read >> block & 1))
		return false;
	memcpy(guids, &p->dev[block * ALIAS_PER_BLOCK],
	    ALIAS_PER_BLOCK * sizeof(*guids));
	if (cap != NULL)
		*cap = p->cap;
	return true;
}

bool
alias_adopt(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t guid, alias_taken_fn *taken, void *arg)
{
	struct aport *p, *o;
	uint32_t owner;

	if (guid == 0 || guid == port || port == 0 || index == 0 ||
	    index >= ALIAS_MAX_INDEX || (taken != NULL && taken(arg, guid)))
		return false;
	p = port_get(s, port);
	owner = guid_hash_get(&s->byalias, guid);
	if (owner != GUID_HASH_NONE) {
		o = &s->ports[owner >> 8];
		if (o == p && (owner & 0xff) == index) {
			if (!is_active(p, index)) {
				set_active(p, index, true);
				s->dirty = true;
			}
			return true;
		}
		if (is_active(o, owner & 0xff))
			return false;
		save(s, o, owner & 0xff, 0);
	}
	save(s, p, index, guid);
	set_active(p, index, true);
	s->dirty = true;
	return true;
}

void
alias_device_forget(struct alias_store *s, uint64_t port)
{
	struct aport *p = port_find(s, port);

	if (p != NULL) {
		p->dev_read = 0;
		p->cap = 0;
	}
}

void
alias_device_clear(struct alias_store *s)
{
	for (uint32_t i = 0; i < s->nports; i++) {
		s->ports[i].dev_read = 0;
		s->ports[i].cap = 0;
	}
}

bool
alias_store_dirty(const struct alias_store *s)
{
	return s->dirty;
}

void
alias_store_clean(struct alias_store *s)
{
	s->dirty = false;
}

char *
alias_store_format(const struct alias_store *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (fp == NULL)
		fatal("alias");
	fprintf(fp, "# ibsmd VF alias GUIDs: port GUID, GUIDInfo index, "
	    "alias GUID, state\n");
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct aport *p = &s->ports[i];

		for (unsigned k = 1; k < ALIAS_MAX_INDEX; k++)
			if (p->saved[k] != 0)
				fprintf(fp, "0x%016" PRIx64 " %u 0x%016" PRIx64
				    " %s\n", p->guid, k, p->saved[k],
				    is_active(p, k) ? "active" : "saved");
	}
	if (fclose(fp) != 0)
		fatal("alias");
	return text;
}

static bool
parse_guid(const char *w, uint64_t *g)
{
	char *end;

	if (strncmp(w, "0x", 2) != 0 || strlen(w) > 18 || w[2] == '\0')
		return false;
	*g = strtoull(w + 2, &end, 16);
	return *end == '\0' && *g != 0;
}

unsigned
alias_store_parse(struct alias_store *s, const char *text, alias_bad_fn *bad,
    void *arg)
{
	unsigned line = 0, nbad = 0;
	const char *p = text;

	/* Start empty, but keep what devices hold. */
	for (uint32_t i = 0; i < s->nports; i++) {
		struct aport *ap = &s->ports[i];

		for (unsigned k = 1; k < ALIAS_MAX_INDEX; k++)
			save(s, ap, k, 0);
		memset(ap->active, 0, sizeof(ap->active));
	}
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[160], w[4][40], extra[2];
		const char *why = NULL;
		uint64_t port = 0, g = 0;
		unsigned long idx = 0;
		char *end;
		int n;

		line++;
		if (len >= sizeof(buf))
			why = "line too long";
		else {
			memcpy(buf, p, len);
			buf[len] = '\0';
			if (strchr(buf, '#'))
				*strchr(buf, '#') = '\0';
			n = sscanf(buf, "%39s %39s %39s %39s %1s", w[0], w[1],
			    w[2], w[3], extra);
			if (n <= 0)
				;	/* blank */
			else if (n != 4)
				why = "expected 4 fields: port GUID, index, "
				    "alias GUID, active|saved";
			else if (!parse_guid(w[0], &port))
				why = "bad port GUID";
			else if ((idx = strtoul(w[1], &end, 10)) == 0 ||
			    *end != '\0' || idx >= ALIAS_MAX_INDEX)
				why = "bad index (1 to 255)";
			else if (!parse_guid(w[2], &g))
				why = "bad alias GUID";
			else if (strcmp(w[3], "active") && strcmp(w[3], "saved"))
				why = "state is active or saved";
			else if (guid_hash_get(&s->byalias, g) !=
			    GUID_HASH_NONE || g == port)
				why = "alias GUID listed twice";
			else {
				struct aport *ap = port_get(s, port);

				if (ap->saved[idx] != 0)
					why = "port and index listed twice";
				else {
					save(s, ap, (unsigned)idx, g);
					set_active(ap, (unsigned)idx,
					    strcmp(w[3], "active") == 0);
				}
			}
		}
		if (why != NULL) {
			nbad++;
			if (bad != NULL)
				bad(arg, line, why);
		}
		p += len + (nl != NULL);
	}
	s->dirty = false;
	return nbad;
}
