/*
 * Inside the config module: what its files share. config.c has the schema
 * table, whole configurations, printing and reload; check.c turns values
 * into typed fields with their error messages; load.c reads YAML files
 * and command-line values into values and hands them to the checker.
 * Nothing outside config/ includes this file.
 */
#ifndef IBSMD_CONFIG_INT_H
#define IBSMD_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/config.h"

/* A value as the loader and config_set() hand it to the checker. */
enum cfg_node_kind {
	CFG_NODE_SCALAR, CFG_NODE_LIST, CFG_NODE_MAP, CFG_NODE_ALIAS
};

struct cfg_node {
	enum cfg_node_kind kind;
	char *text;			/* SCALAR; ALIAS: anchor */
	size_t len;
	bool plain;			/* unquoted */
	unsigned line, col;		/* 1-based; 0 on the command line */
};

struct cfg_value {
	struct cfg_node head;		/* the value node itself */
	size_t n;			/* CFG_NODE_LIST: its entries */
	struct cfg_node *item;
};

/* Where errors go: a file (positions) or the command line (none). */
struct cfg_check {
	struct config_errors *errs;
	const char *name;		/* file name; NULL: command line */
	size_t nerr;
	bool stop;			/* a syntax error, or too many */
};

/* The field of o in cfg. */
static inline void *
config_field(const struct ibsmd_config *cfg, const struct cfg_option *o)
{
	return (char *)cfg + o->offset;
}

/* UINT and ENUM fields: an unsigned, or an enum of the same size. */
static inline unsigned
config_get_enum(const void *p)
{
	unsigned v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
config_put_enum(void *p, unsigned v)
{
	memcpy(p, &v, sizeof(v));
}

/* Index of o in the schema (enum cfg_opt_id). */
size_t config_option_id(const struct cfg_option *o);

/* check.c */
/* len bytes of s, NUL-terminated; s may hold NULs (YAML's "\0"). */
char *config_strndup(const char *s, size_t len);
/* A copy of s, or NULL if s is. */
char *config_strdup(const char *s);
/* "a, b, c" into buf. */
void config_join_allowed(const char *const *allowed, char *buf, size_t len);
/* A value quoted for a message: control bytes escaped, long text cut. */
const char *config_show(const char *s, size_t len, char *buf, size_t buflen);
void config_errs_add(struct config_errors *errs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* s as YAML: plain when that reads back the same, else double-quoted. */
int config_yaml_string(const char *s, char *buf, size_t len);
/* Shortest %g that reads back to the same double, without an exponent
 * when one does. */
int config_format_double(double d, char *buf, size_t len);
void config_guid_list_free(struct cfg_guid_list *l);

/* YAML's null: nothing, ~ or null as a plain scalar. */
bool config_node_null(const struct cfg_node *n);
/* "a list", "a mapping"... for messages. */
const char *config_kind_name(enum cfg_node_kind k);
/* An error at line:col of ck's file (no position on the command line). */
void config_err_at(struct cfg_check *ck, unsigned line, unsigned col,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A note (accepted, read another way than written) at line:col. */
void config_note_at(struct cfg_check *ck, unsigned line, unsigned col,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define CFG_ERR(ck, nd, ...) \
	config_err_at((ck), (nd)->line, (nd)->col, __VA_ARGS__)
/* Check v against o and store it in cfg; 0, or -1 with errors added. */
int config_check_value(struct cfg_check *ck, const struct cfg_option *o,
    struct cfg_value *v, struct ibsmd_config *cfg);

#endif
