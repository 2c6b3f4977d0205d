/*
 * A small JSON writer for the control socket: values appended to a growable
 * buffer, commas and nesting tracked for the caller. Strings are escaped as
 * RFC 8259 requires and made valid UTF-8 (a byte that does not start a valid
 * sequence becomes U+FFFD), because node descriptions come from the wire.
 * Out of memory is fatal. No I/O.
 */
#ifndef IBSMD_JSON_H
#define IBSMD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 32

/*
 * One document, three renderings with the same keys: JSON; "flat" lines
 * "a.b.c value" (list entries by index, booleans 1 and 0, null "-"), for
 * files a shell reads with grep; and "text", an indented "key: value"
 * tree for people (objects and lists of plain values on one line, lists
 * of objects as "- " entries). The flat and text forms are built as a
 * tree and rendered into buf when the outermost value closes.
 */
enum json_mode { JSON_MODE_JSON, JSON_MODE_FLAT, JSON_MODE_TEXT };

struct json_node;

struct json {
	char *buf;              /* NUL-terminated text so far */
	size_t len, cap;
	int depth;              /* open objects and arrays */
	bool empty[JSON_MAX_DEPTH + 1]; /* nothing yet at that depth */
	bool after_key;         /* the next value belongs to a key */
	enum json_mode mode;
	/* flat and text: the tree, the open containers, the pending key */
	struct json_node *root, *open[JSON_MAX_DEPTH + 1];
	char *key;
};

void json_init(struct json *j);
void json_init_mode(struct json *j, enum json_mode mode);
void json_fini(struct json *j);

void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
/* Inside an object: the key of the next value. */
void json_key(struct json *j, const char *key);

void json_string(struct json *j, const char *s);       /* NULL: null */
void json_stringn(struct json *j, const char *s, size_t n);
void json_uint(struct json *j, uint64_t v);
void json_int(struct json *j, int64_t v);
void json_double(struct json *j, double v);             /* NaN, inf: null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A 64-bit GUID as the string "0x%016x" (a JSON number would lose bits in
 * most readers). */
void json_guid(struct json *j, uint64_t guid);

/* A value already written as JSON by another writer (JSON mode only). */
void json_raw(struct json *j, const char *text);

/* key and value in one call */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_uint(struct json *j, const char *key, uint64_t v);
void json_kv_double(struct json *j, const char *key, double v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_guid(struct json *j, const char *key, uint64_t guid);

/* Length of the valid UTF-8 sequence that starts s (at most n bytes): 1 for
 * ASCII, 0 when s[0] starts no valid sequence. */
size_t json_utf8_len(const char *s, size_t n);

/* Append s to buf as the body of a JSON string (no quotes): escaped, and
 * invalid UTF-8 replaced. Exposed for the tests. */
void json_escape(struct json *j, const char *s, size_t n);

#endif
