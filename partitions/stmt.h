/*
 * Inside the partitions module: statements as parse.c reads them, before
 * merge.c binds them to P_Keys and merges them into a policy. Nothing
 * outside partitions/ includes this file.
 */
#ifndef IBSMD_PARTITIONS_STMT_H
#define IBSMD_PARTITIONS_STMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "partitions/policy.h"

struct pos {
	unsigned line, col;
};

struct stmt_mgroup {
	struct pkey_mgroup g;
	struct pos at;
	char text[64];          /* the GID as written */
};

/* One statement as written, before the merge. */
struct stmt {
	struct pos at;
	char *name;             /* NULL: none */
	struct pos name_at;
	bool has_pkey;
	uint16_t pkey;
	struct pos pkey_at;
	bool bad;               /* the header had errors: not merged */
	bool ipoib, indx0;
	uint8_t defmember;
	struct pkey_group_flags flags;
	struct pos flag_at[7];  /* by PKEY_GF_* bit */
	struct pkey_member *members;
	size_t nmembers, members_cap;
	struct stmt_mgroup *mgroups;
	size_t nmgroups, mgroups_cap;
};

/* The policy of the n statements (file order) of one parse; errors and
 * notes go to errs. Members and patterns move from the statements into
 * the policy. Never NULL: the caller drops it when errs has new errors. */
struct pkey_policy *pkey_merge(struct stmt *stmts, size_t n,
    struct pkey_errors *errs);

/* "partition 'name'", "partition 0x8001" or "the partition", into buf. */
const char *pkey_stmt_desc(const struct stmt *st, char *buf, size_t len);
/* a (alen bytes) equals the string b, case aside. */
bool pkey_caseeq(const char *a, size_t alen, const char *b);
/* The index of a PKEY_GF_* bit: 0 for PKEY_GF_MTU ... 6. */
int pkey_gf_index(unsigned bit);

#endif
