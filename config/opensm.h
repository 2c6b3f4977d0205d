/*
 * OpenSM's options as ibsmd knows them: one table of every option of
 * opensm.conf (OpenSM 3.3.23's `opensm -c` and NVIDIA's virtualization
 * options), each either an alias of an ibsmd option (same meaning, same
 * values), an ibsmd option in other units or form (converted), a
 * behaviour ibsmd has without an option (OpenSM's default), or nothing
 * ibsmd does. The loader reads the aliases in ibsmd.conf and -O and
 * refuses the others with what to write instead; `ibsmd
 * --convert-opensm-conf` turns a whole opensm.conf into an ibsmd.conf.
 *
 * Pure: files named by an opensm.conf (root_guid_file) are read through
 * the caller's reader.
 */
#ifndef IBSMD_CONFIG_OPENSM_H
#define IBSMD_CONFIG_OPENSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/config.h"

enum osm_kind {
	OSM_ALIAS,	/* an ibsmd option (maybe of the same name), same
			 * meaning and values */
	OSM_CONVERT,	/* an ibsmd option in other units or form */
	OSM_FIXED,	/* no option: ibsmd behaves as OpenSM's default */
	OSM_NONE	/* nothing ibsmd does */
};

/* OpenSM's default is not carried: ibsmd's own default differs on
 * purpose (why says how). */
#define OSM_F_OWN_DEFAULT	0x1

struct osm_option {
	const char *name;	/* OpenSM's */
	enum osm_kind kind;
	const char *ibsmd;	/* ALIAS, CONVERT: the ibsmd option */
	const char *def;	/* OpenSM's default as opensm -c writes it */
	const char *why;	/* FIXED, NONE: why not carried; CONVERT: the
				 * conversion; OWN_DEFAULT: why ibsmd's */
	unsigned flags;
};

/* The table (in opensm -c's order) and one entry by name, or NULL. */
const struct osm_option *opensm_options(size_t *n);
const struct osm_option *opensm_option(const char *name);

/*
 * Why ibsmd.conf refuses OpenSM's option o set to value (value may be
 * NULL): "OpenSM's X is ibsmd's Y: write Y: V" when it converts, else
 * what ibsmd does instead. Returns snprintf's.
 */
int opensm_refusal(const struct osm_option *o, const char *value, char *buf,
    size_t len);

/*
 * Whether text is an opensm.conf ("name value" lines of OpenSM's options)
 * rather than YAML; *line is the first such line.
 */
bool opensm_conf_like(const char *text, size_t len, unsigned *line);

/* Reads a file an opensm.conf names; config_read_file()'s results. */
struct opensm_reader {
	int (*read)(void *arg, const char *path, char **text, size_t *len,
	    char *why, size_t whylen);
	void *arg;
};

/*
 * Write on out an ibsmd.conf equivalent to the opensm.conf text (name is
 * its file name, for messages): every option ibsmd has an equivalent for,
 * converted and checked by ibsmd's schema, then each option not carried
 * named in a comment with the reason (default equal, not needed, no
 * equivalent). Returns 0, or -1 with errs filled when text is no
 * opensm.conf at all (a YAML ibsmd.conf, say). rd may be NULL (named
 * files are then not read). config_set_engine_names() comes first.
 */
int opensm_convert(const char *name, const char *text, size_t len,
    const struct opensm_reader *rd, FILE *out, struct config_errors *errs);

#endif
