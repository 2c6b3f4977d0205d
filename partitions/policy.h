/*
 * Inside the partitions module: the policy's representation, shared by
 * parse.c and merge.c (text -> policy) and policy.c (policy -> -nv text and
 * P_Key tables). Nothing outside partitions/ includes this file.
 */
#ifndef IBSMD_PARTITIONS_POLICY_H
#define IBSMD_PARTITIONS_POLICY_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/alloc.h"
#include "partitions/partitions.h"

enum member_kind {
	MK_ALL, MK_ALL_CAS, MK_ALL_SWITCHES, MK_ALL_ROUTERS, MK_SELF,
	MK_GUID, MK_RANGE, MK_DESC,
};

struct pkey_member {
	uint8_t kind;           /* enum member_kind */
	uint8_t membership;     /* enum pkey_membership, defmember applied */
	uint64_t lo, hi;        /* MK_GUID: lo; MK_RANGE: lo .. hi */
	char *pattern;          /* MK_DESC: as written between the quotes */
	unsigned line, col;
};

struct pkey_policy {
	struct pkey_partition *v;       /* ascending P_Key */
	size_t n;
};

#define PKEY_PATTERN_MAX        128     /* bytes between the quotes */
#define PKEY_DEFAULT_MTU        4       /* 2048 bytes */
#define PKEY_DEFAULT_RATE       3       /* 10 Gb/s */
#define PKEY_DEFAULT_SCOPE      2       /* link-local */

char *pkey_xstrndup(const char *s, size_t n);
char *pkey_xvasprintf(const char *fmt, va_list ap);

/* Make room for one more element of arr (n used, cap allocated). */
#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? 2 * (cap) : 8; \
		(arr) = xreallocarray((arr), (cap), sizeof(*(arr))); \
	} \
} while (0)

/* Diagnostics of a parse (errors.c). */
void pkey_msg_add(struct pkey_errors *e, enum pkey_msg_level level,
    unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Sort messages from index from on into file order, stably. */
void pkey_msgs_sort(struct pkey_errors *e, size_t from);

/* Shell wildcards: * ? [set] [!set] [a-z], backslash quotes the next
 * character. pkey_glob_check(): NULL if pat is well formed, else why. */
bool pkey_glob_match(const char *pat, const char *s);
const char *pkey_glob_check(const char *pat);


/* Growable text. */
struct pkey_buf {
	char *s;
	size_t len, cap;
};
void pkey_buf_printf(struct pkey_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
