/*
 * Inside partitions/qos: the policy's representation, shared by qos.c
 * (text -> policy: scanner, grammar, checks) and qos_match.c (policy ->
 * levels, and the -nv text). Nothing outside partitions/ includes it.
 */
#ifndef IBSMD_PARTITIONS_QOS_INT_H
#define IBSMD_PARTITIONS_QOS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "partitions/qos.h"

#define QOS_MAX_RANGE_WALK      0x8000  /* P_Key ranges are walked */
#define NT_SELF                 (1u << 6)
#define NT_ALL                  (1u << 7)

struct rlist {
	struct qos_range *v;
	size_t n, cap;
};

struct pname {
	char *desc;
	uint8_t num;
};

struct group {
	char *name;             /* NULL: made for a qos-ulps rule */
	char *use;
	struct rlist guids;
	struct pname *pnames;
	size_t npnames, pnames_cap;
	char **parts;           /* partition names as written */
	size_t nparts, parts_cap;
	struct rlist pkeys;     /* pkey: lines, as written */
	struct rlist ppkeys;    /* the P_Keys of parts */
	unsigned types;         /* 1 << NODE_*, NT_SELF, NT_ALL */
	unsigned line, col;
};

/* Where a name is referred to, for the checks after the parse. */
struct ref {
	char *name;
	unsigned line, col;
};

enum ulp {
	ULP_NONE, ULP_ANY_SID, ULP_ANY_PKEY, ULP_ANY_TARGET, ULP_ANY_SOURCE,
	ULP_ANY_SOURCE_TARGET, ULP_SDP, ULP_SDP_PORT, ULP_RDS, ULP_RDS_PORT,
	ULP_ISER, ULP_ISER_PORT, ULP_SRP, ULP_IPOIB, ULP_IPOIB_PKEY,
};

struct rule {
	char *use;
	struct rlist classes, sids, pkeys;
	struct ref *src, *dst;          /* group names */
	size_t nsrc, ndst, src_cap, dst_cap;
	size_t *srcg, *dstg;            /* resolved group indices */
	struct ref level_name;          /* name NULL: none given */
	size_t level;                   /* index; ULP rules: into simple[] */
	enum ulp ulp;
	struct rlist ulp_vals;          /* a ULP rule's list as written */
	size_t ulp_group;               /* its generated group, or SIZE_MAX */
};

struct qos_policy {
	struct group *groups;
	size_t ngroups, groups_cap;
	struct qos_level *levels;
	size_t nlevels, levels_cap;
	struct rule *rules;             /* match rules, then qos-ulps rules */
	size_t nrules, rules_cap, nmatch;
	struct qos_level simple[16];    /* the levels of qos-ulps rules */
	struct qos_level ulp_default;
	bool has_ulp_default;
	const struct qos_level *def;
	bool setup;                     /* had a qos-setup section */
};

/* The qos-ulps rules by keyword and criterion (param NULL: none). */
struct qos_ulp_name {
	const char *ulp, *param;
	enum ulp kind;
};
extern const struct qos_ulp_name qos_ulps[];
extern const size_t qos_nulps;
/* What a ULP rule's values are ("port-num", ...) and their maximum. */
const char *qos_ulp_what(enum ulp k, uint64_t *max);

bool qos_rl_has(const struct rlist *l, uint64_t x);
/* Whether port pt is in group g. */
bool qos_in_group(const struct group *g, const struct qos_port *pt);

#endif
