/*
 * Loading: ibsmd.conf files (libyaml events) and command-line values into
 * values (config_int.h) for the checker. A load parses the whole file into
 * a scratch copy of the configuration and swaps it in only when no error
 * was found, so a bad file (at start or on SIGHUP) changes nothing.
 */
#include "config/config_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <yaml.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/log.h"
#include "config/opensm.h"

#define MAX_DEPTH	64	/* nested collections in a value */

/* ------------------------------------------------------------------ */
/* Values */

static void
value_free(struct cfg_value *v)
{
	free(v->head.text);
	for (size_t i = 0; i < v->n; i++)
		free(v->item[i].text);
	free(v->item);
	memset(v, 0, sizeof(*v));
}

static struct cfg_node *
value_push(struct cfg_value *v)
{
	struct cfg_node *p = realloc(v->item, (v->n + 1) * sizeof(*p));

	if (p == NULL)
		fatal("config");
	v->item = p;
	memset(&v->item[v->n], 0, sizeof(*p));
	return &v->item[v->n++];
}

/* ------------------------------------------------------------------ */
/* The YAML loader */

struct loader {
	yaml_parser_t parser;
	struct cfg_check ck;
	const char *text;
	size_t len;
	struct ibsmd_config *cfg;	/* the scratch copy */
	enum cfg_source source;
	unsigned seen[CFG_NOPTIONS];	/* line where this file set it */
};

/* Line and column (1-based, in characters) of byte offset off. */
static void
offset_pos(const char *text, size_t len, size_t off, unsigned *line,
    unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++;
	}
}

/* The byte at line:col (1-based, columns in characters), or -1. */
static int
char_at(const char *text, size_t len, unsigned line, unsigned col)
{
	size_t i = 0;

	for (unsigned l = 1; l < line; l++) {
		const char *nl = memchr(text + i, '\n', len - i);

		if (nl == NULL)
			return -1;
		i = (size_t)(nl - text) + 1;
	}
	for (unsigned c = 1; i < len; i++) {
		if (((unsigned char)text[i] & 0xc0) == 0x80)
			continue;
		if (c++ == col)
			return (unsigned char)text[i];
	}
	return -1;
}

/* Offset of the first byte that is not valid UTF-8, or len. */
static size_t
utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf) {
			n = 1;
			cp = s[i] & 0x1f;
		} else if (s[i] >= 0xe0 && s[i] <= 0xef) {
			n = 2;
			cp = s[i] & 0x0f;
		} else if (s[i] >= 0xf0 && s[i] <= 0xf4) {
			n = 3;
			cp = s[i] & 0x07;
		} else
			return i;
		if (i + n >= len)
			return i;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n + 1;
	}
	return len;
}

static void
syntax_error(struct loader *ld)
{
	yaml_parser_t *p = &ld->parser;
	unsigned line, col;
	char ctx[160] = "";
	int c;

	if (p->error == YAML_MEMORY_ERROR)
		fatalx("config: out of memory");
	if (p->error == YAML_READER_ERROR) {
		offset_pos(ld->text, ld->len, p->problem_offset, &line, &col);
		if (p->problem_value != -1)
			config_err_at(&ld->ck, line, col, "%s (0x%02x)",
			    p->problem, (unsigned)p->problem_value);
		else
			config_err_at(&ld->ck, line, col, "%s", p->problem);
		ld->ck.stop = true;
		return;
	}
	line = (unsigned)p->problem_mark.line + 1;
	col = (unsigned)p->problem_mark.column + 1;
	if (p->context != NULL)
		snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", p->context,
		    p->context_mark.line + 1, p->context_mark.column + 1);
	c = char_at(ld->text, ld->len, line, col);
	config_err_at(&ld->ck, line, col, "YAML syntax: %s%s%s", p->problem,
	    ctx, c == '\t' && !strstr(p->problem, "tab") ?
	    "; a tab: indent with spaces" : "");
	ld->ck.stop = true;
}

/* The next event; -1 (error reported, loading stops) on a syntax error. */
static int
next_event(struct loader *ld, yaml_event_t *ev)
{
	if (ld->ck.stop)
		return -1;
	if (!yaml_parser_parse(&ld->parser, ev)) {
		syntax_error(ld);
		return -1;
	}
	return 0;
}

static void
set_mark(struct cfg_node *nd, const yaml_event_t *ev)
{
	nd->line = (unsigned)ev->start_mark.line + 1;
	nd->col = (unsigned)ev->start_mark.column + 1;
}

/* Read the events of a collection whose start was just read. Nesting
 * deeper than MAX_DEPTH stops the load: libyaml's scanner takes time
 * quadratic in the depth (a 1 MiB file of '[' would take many minutes). */
static int
skip_collection(struct loader *ld)
{
	yaml_event_t ev;
	int depth = 1;

	while (depth > 0) {
		if (next_event(ld, &ev) < 0)
			return -1;
		if ((ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) &&
		    depth == MAX_DEPTH) {
			config_err_at(&ld->ck,
			    (unsigned)ev.start_mark.line + 1,
			    (unsigned)ev.start_mark.column + 1,
			    "nested deeper than %d levels", MAX_DEPTH);
			ld->ck.stop = true;
			yaml_event_delete(&ev);
			return -1;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
		    ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&ev);
	}
	return 0;
}

/* A node from its first event; collections are skipped to their end. */
static int
read_node(struct loader *ld, yaml_event_t *ev, struct cfg_node *nd)
{
	set_mark(nd, ev);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		nd->kind = CFG_NODE_SCALAR;
		nd->text = config_strndup((const char *)ev->data.scalar.value,
		    ev->data.scalar.length);
		nd->len = ev->data.scalar.length;
		nd->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		return 0;
	case YAML_ALIAS_EVENT:
		nd->kind = CFG_NODE_ALIAS;
		nd->text = config_strdup((const char *)ev->data.alias.anchor);
		nd->len = strlen(nd->text);
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		nd->kind = CFG_NODE_LIST;
		return skip_collection(ld);
	case YAML_MAPPING_START_EVENT:
		nd->kind = CFG_NODE_MAP;
		return skip_collection(ld);
	default:
		abort();	/* libyaml gives only nodes here */
	}
}

/* The value of an option, from its first event ev (deleted here): a node,
 * and the entries of a list. */
static int
read_value_from(struct loader *ld, yaml_event_t *first, struct cfg_value *v)
{
	yaml_event_t ev;
	int r = 0;

	if (first->type != YAML_SEQUENCE_START_EVENT) {
		r = read_node(ld, first, &v->head);
		yaml_event_delete(first);
		return r;
	}
	v->head.kind = CFG_NODE_LIST;
	set_mark(&v->head, first);
	yaml_event_delete(first);
	for (;;) {
		if (next_event(ld, &ev) < 0)
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		r = read_node(ld, &ev, value_push(v));
		yaml_event_delete(&ev);
		if (r < 0)
			return -1;
	}
	yaml_event_delete(&ev);
	return 0;
}

/* name is a section: some option is called "name.key". */
static bool
is_section(const char *name)
{
	size_t n, len = strlen(name);
	const struct cfg_option *s = config_schema(&n);

	for (size_t i = 0; i < n; i++)
		if (strncmp(s[i].name, name, len) == 0 &&
		    s[i].name[len] == CFG_SECTION_SEP)
			return true;
	return false;
}

/*
 * The option called name: ibsmd's, or one OpenSM calls so with the same
 * meaning (then *as is the name to show in messages: "virt_enabled
 * (virtualization.mode)"). NULL with the error in msg when name is
 * unknown, or OpenSM's for something ibsmd does otherwise.
 */
static const struct cfg_option *
lookup(const char *name, size_t len, const char *value, char *as,
    size_t aslen, char *msg, size_t mlen)
{
	const struct cfg_option *o = config_option(name);
	const struct osm_option *osm;
	const char *near;
	char got[160];

	if (o != NULL) {
		snprintf(as, aslen, "%s", o->name);
		return o;
	}
	if ((osm = opensm_option(name)) != NULL) {
		if (osm->kind == OSM_ALIAS) {
			snprintf(as, aslen, "%s (%s)", osm->name, osm->ibsmd);
			return config_option(osm->ibsmd);
		}
		opensm_refusal(osm, value, msg, mlen);
		return NULL;
	}
	config_show(name, len, got, sizeof(got));
	near = config_nearest(name);
	if (near != NULL)
		snprintf(msg, mlen, "unknown option %s (did you mean %s?)", got,
		    near);
	else
		snprintf(msg, mlen, "unknown option %s", got);
	return NULL;
}

static void
load_option(struct loader *ld, const struct cfg_node *key, struct cfg_value *v)
{
	const struct cfg_option *o;
	struct cfg_option named;
	char msg[512], as[128];
	size_t id;

	o = lookup(key->text, key->len, v->head.kind == CFG_NODE_SCALAR ?
	    v->head.text : NULL, as, sizeof(as), msg, sizeof(msg));
	if (o == NULL) {
		CFG_ERR(&ld->ck, key, "%s", msg);
		return;
	}
	id = config_option_id(o);
	if (ld->source == CFG_INSTANCE_FILE &&
	    (o->flags & CFG_F_NOT_INSTANCE)) {
		CFG_ERR(&ld->ck, key, "%s: not allowed in a per-instance file "
		    "(only in the common file)", o->name);
		return;
	}
	if (ld->seen[id]) {
		CFG_ERR(&ld->ck, key, "%s: set twice (first on line %u)",
		    as, ld->seen[id]);
		return;
	}
	ld->seen[id] = key->line;
	/* messages name the option as written */
	named = *o;
	named.name = as;
	if (config_check_value(&ld->ck, &named, v, ld->cfg) == 0) {
		ld->cfg->source[id] = ld->source;
		ld->cfg->line[id] = ld->source == CFG_DEFAULT ? 0 : key->line;
	}
}

/* The option: value pairs of a mapping whose start was just read; inside
 * a section, the keys are prefixed with "section.". */
static void
load_mapping(struct loader *ld, const char *section)
{
	yaml_event_t ev;
	struct cfg_node key;
	struct cfg_value v;
	char name[128];

	for (;;) {
		if (next_event(ld, &ev) < 0)
			return;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return;
		}
		memset(&key, 0, sizeof(key));
		memset(&v, 0, sizeof(v));
		if (read_node(ld, &ev, &key) < 0) {
			yaml_event_delete(&ev);
			return;
		}
		yaml_event_delete(&ev);
		if (next_event(ld, &ev) < 0) {
			free(key.text);
			return;
		}
		if (section == NULL && ev.type == YAML_MAPPING_START_EVENT &&
		    key.kind == CFG_NODE_SCALAR && is_section(key.text)) {
			yaml_event_delete(&ev);
			load_mapping(ld, key.text);
			free(key.text);
			if (ld->ck.stop)
				return;
			continue;
		}
		if (read_value_from(ld, &ev, &v) < 0) {
			free(key.text);
			value_free(&v);
			return;
		}
		if (key.kind != CFG_NODE_SCALAR || config_node_null(&key))
			CFG_ERR(&ld->ck, &key, "expected an option name, got "
			    "%s", key.kind == CFG_NODE_SCALAR ? "nothing" :
			    config_kind_name(key.kind));
		else if (section != NULL) {
			struct cfg_node full = key;

			snprintf(name, sizeof(name), "%s%c%s", section,
			    CFG_SECTION_SEP, key.text);
			full.text = name;
			full.len = strlen(name);
			load_option(ld, &full, &v);
		} else
			load_option(ld, &key, &v);
		free(key.text);
		value_free(&v);
	}
}

/* The document: one mapping of option: value (or nothing at all). */
static void
load_document(struct loader *ld)
{
	yaml_event_t ev;
	struct cfg_node nd = { 0 };

	if (next_event(ld, &ev) < 0)
		return;
	if (ev.type == YAML_MAPPING_START_EVENT) {
		yaml_event_delete(&ev);
		load_mapping(ld, NULL);
		return;
	}
	if (read_node(ld, &ev, &nd) == 0 && !config_node_null(&nd)) {
		char got[160];

		if (nd.kind == CFG_NODE_SCALAR)
			config_show(nd.text, nd.len, got, sizeof(got));
		CFG_ERR(&ld->ck, &nd, "expected option: value lines, got %s",
		    nd.kind == CFG_NODE_SCALAR ? got :
		    config_kind_name(nd.kind));
	}
	free(nd.text);
	yaml_event_delete(&ev);
}

static void
load_stream(struct loader *ld)
{
	yaml_event_t ev;
	int docs = 0;

	if (next_event(ld, &ev) < 0)	/* stream start */
		return;
	yaml_event_delete(&ev);
	for (;;) {
		if (next_event(ld, &ev) < 0)
			return;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			return;
		}
		if (docs++ > 0) {	/* a second document start */
			config_err_at(&ld->ck, (unsigned)ev.start_mark.line + 1,
			    (unsigned)ev.start_mark.column + 1,
			    "a second YAML document: a file holds only one");
			yaml_event_delete(&ev);
			return;
		}
		yaml_event_delete(&ev);
		load_document(ld);
		if (next_event(ld, &ev) < 0)	/* document end */
			return;
		yaml_event_delete(&ev);
	}
}

/* Parse text over a copy of cfg; on success the copy replaces cfg. */
static int
load(struct ibsmd_config *cfg, const char *name, const char *text,
    size_t len, enum cfg_source source, struct config_errors *errs)
{
	struct loader ld = { .ck = { .errs = errs, .name = name },
	    .text = text, .len = len, .source = source };
	struct ibsmd_config scratch;
	size_t bad = utf8_check((const unsigned char *)text, len);
	unsigned line, col;

	if (bad < len) {
		offset_pos(text, len, bad, &line, &col);
		config_err_at(&ld.ck, line, col, "invalid UTF-8 (byte 0x%02x): "
		    "the file must be UTF-8", (unsigned char)text[bad]);
		return CONFIG_INVALID;
	}
	if (opensm_conf_like(text, len, &line)) {
		config_err_at(&ld.ck, line, 1, "this is an opensm.conf "
		    "(OpenSM's \"name value\" lines), not an ibsmd.conf "
		    "(YAML): convert it with ibsmd --convert-opensm-conf %s",
		    name);
		return CONFIG_INVALID;
	}
	config_copy(&scratch, cfg);
	ld.cfg = &scratch;
	if (!yaml_parser_initialize(&ld.parser))
		fatalx("config: out of memory");
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text,
	    len);
	load_stream(&ld);
	yaml_parser_delete(&ld.parser);
	if (ld.ck.nerr > 0 || ld.ck.stop) {
		config_fini(&scratch);
		return CONFIG_INVALID;
	}
	if (source != CFG_DEFAULT) {
		free(scratch.path[source]);
		scratch.path[source] = config_strdup(name);
	}
	config_fini(cfg);
	*cfg = scratch;
	return CONFIG_OK;
}

int
config_load_buffer(struct ibsmd_config *cfg, const char *name,
    const char *text, size_t len, enum cfg_source source,
    struct config_errors *errs)
{
	return load(cfg, name, text, len, source, errs);
}

int
config_read_file(const char *path, size_t max, char **text, size_t *len,
    char *why, size_t whylen)
{
	switch (file_read(path, max, text, len, why, whylen)) {
	case FILE_OK:
		return CONFIG_OK;
	case FILE_MISSING:
		return CONFIG_MISSING;
	}
	return CONFIG_INVALID;
}

int
config_load(struct ibsmd_config *cfg, const char *path,
    enum cfg_source source, struct config_errors *errs)
{
	char why[160], *text;
	size_t got;
	int r;

	r = config_read_file(path, CONFIG_MAX_BYTES, &text, &got, why,
	    sizeof(why));
	if (r == CONFIG_MISSING)
		return CONFIG_MISSING;
	if (r != CONFIG_OK) {
		config_errs_add(errs, "%s: %s", path, why);
		return CONFIG_INVALID;
	}
	r = load(cfg, path, text, got, source, errs);
	free(text);
	return r;
}

/* ------------------------------------------------------------------ */
/* The command line */

int
config_set(struct ibsmd_config *cfg, const char *name, const char *value,
    enum cfg_source source, struct config_errors *errs)
{
	const struct cfg_option *o;
	struct cfg_option named;
	struct cfg_check ck = { .errs = errs };
	struct ibsmd_config scratch;
	struct cfg_value v = { 0 };
	const char *p;
	char msg[512], as[128];
	size_t id, len;
	int r;

	o = lookup(name, strlen(name), value, as, sizeof(as), msg, sizeof(msg));
	if (o == NULL) {
		config_err_at(&ck, 0, 0, "%s", msg);
		return CONFIG_INVALID;
	}
	named = *o;
	named.name = as;
	id = config_option_id(o);
	/* No quotes on a command line: text is literal for strings, and
	 * "null" is a name there, not YAML's null. */
	v.head.kind = CFG_NODE_SCALAR;
	v.head.plain = o->type != CFG_STRING && o->type != CFG_PATH;
	if (o->type == CFG_ENUM_LIST || o->type == CFG_GUID_LIST ||
	    (o->type == CFG_GUIDS_OR_ALL && strcmp(value, "all") != 0)) {
		/* "a,b", "a b" or "[a, b]"; "" is the empty list. */
		v.head.kind = CFG_NODE_LIST;
		p = value + (*value == '[');
		len = strlen(p);
		if (*value == '[' && len > 0 && p[len - 1] == ']')
			len--;
		while (len > 0) {
			size_t w = strcspn(p, ", \t");

			if (w > len)
				w = len;
			if (w > 0) {
				struct cfg_node *nd = value_push(&v);

				nd->kind = CFG_NODE_SCALAR;
				nd->plain = true;
				nd->text = config_strndup(p, w);
				nd->len = w;
			}
			if (w < len)
				w++;
			p += w;
			len -= w;
		}
	} else {
		v.head.text = config_strdup(value);
		v.head.len = strlen(value);
	}
	config_copy(&scratch, cfg);
	r = config_check_value(&ck, &named, &v, &scratch);
	value_free(&v);
	if (r < 0) {
		config_fini(&scratch);
		return CONFIG_INVALID;
	}
	scratch.source[id] = source;
	scratch.line[id] = 0;
	config_fini(cfg);
	*cfg = scratch;
	return CONFIG_OK;
}
