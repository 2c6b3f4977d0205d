/*
 * qos-policy.conf: OpenSM's QoS policy file (qos_policy_file), its
 * essentials, and the resolution of a request to a QoS level. Pure: text
 * in, levels out; the ports a request names are described by the caller.
 *
 * The grammar is OpenSM's (3.3.23, osm_qos_parser_l.l/_y.y): sections
 * port-groups, qos-setup (read and ignored, with a note), qos-levels,
 * qos-match-rules and qos-ulps, each closed by end-<section>; one keyword
 * per line, "keyword: value", '#' to the end of the line a comment;
 * numbers decimal or 0x hexadecimal; lists comma-separated, numeric
 * lists of "a" or "a-b" ranges. Names of levels and groups are
 * compared case aside and blanks aside, as OpenSM does.
 *
 * Fail-closed: every mistake is reported in one go as file:line:col in
 * the partitions' pkey_errors, and a text with any error yields no policy.
 * As OpenSM, a level needs a name and an sl, a rule a qos-level-name,
 * a keyword of one value (name, use, sl, mtu-limit, ...) comes once per
 * block, an ipoib rule's P_Key must be a partition's, and a pkey no
 * partition has is only a warning. Beyond OpenSM, these are errors too: a
 * name defined twice, an unknown partition name, a value out of range
 * (an MTU or rate code IBA does not define, a packet-life above 63).
 *
 * Resolution (qos_policy_match()), as OpenSM's
 * osm_qos_policy_get_qos_level_by_pr/_by_mpr: the qos-match-rules in file
 * order, then the qos-ulps rules in file order (the "default" line
 * aside); the first whose every criterion holds gives its level, else the
 * DEFAULT level (a qos-level named DEFAULT, else qos-ulps' default). A
 * criterion on the service ID, P_Key or QoS class holds only when the
 * request gives that component. With source and destination groups, the
 * source must be in one of the source groups and the destination in one
 * of the destination groups (OpenSM's code; its documentation's "source
 * or target" for source-target-port-guid is not what it does).
 */
#ifndef IBSMD_PARTITIONS_QOS_H
#define IBSMD_PARTITIONS_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "partitions/partitions.h"

/* ULP service IDs (OpenSM's osm_qos_policy.h values). */
#define QOS_SDP_SERVICE_ID      0x0000000000010000ULL   /* + TCP port */
#define QOS_RDS_SERVICE_ID      0x0000000001060000ULL   /* + TCP port */
#define QOS_RDS_PORT            0x48CA
#define QOS_ISER_SERVICE_ID     0x0000000001060000ULL
#define QOS_ISER_PORT           0x0CBC

struct qos_range {
	uint64_t lo, hi;
};

/* Which of a level's fields the file set. */
enum {
	QOS_LF_SL = 1 << 0, QOS_LF_MTU = 1 << 1, QOS_LF_RATE = 1 << 2,
	QOS_LF_LIFE = 1 << 3,
};

struct qos_level {
	char *name;
	char *use;              /* NULL: none */
	uint8_t set;            /* QOS_LF_* */
	uint8_t sl;
	uint8_t mtu;            /* IBA MTU code (mtu-limit) */
	uint8_t rate;           /* IBA rate code (rate-limit) */
	uint8_t life;           /* PacketLifeTime code (packet-life) */
	struct qos_range *pkeys;        /* P_Key base ranges; none: any */
	size_t npkeys;
	unsigned line;          /* 0: made by qos-ulps */
};

/* The ports of a request as the caller sees them. */
struct qos_port {
	uint64_t guid;
	uint8_t node_type;      /* core/fabric.h enum node_type */
	uint8_t num;            /* port number (port-name's Pn) */
	const char *desc;       /* NodeDescription; NULL: unknown */
	bool self;              /* the SM's own port */
	/* The port's P_Key table (full or limited; 0 entries are empty
	 * slots); all_keys: it holds every key (an empty table, as the SA
	 * scopes it). Neither: it holds none. */
	const uint16_t *keys;
	uint16_t nkeys;
	bool all_keys;
};

/* What a request gives (PathRecord or MultiPathRecord). */
enum {
	QOS_Q_SERVICE_ID = 1 << 0, QOS_Q_PKEY = 1 << 1, QOS_Q_QOS_CLASS = 1 << 2,
};
struct qos_query {
	unsigned given;         /* QOS_Q_* */
	uint64_t service_id;
	uint16_t pkey;
	uint16_t qos_class;
	const struct qos_port *src, *dst;       /* NULL: not a port pair
						 * (multicast): a rule with
						 * groups does not match */
};

struct qos_policy;

/*
 * Parse a qos-policy.conf text of len bytes. parts: the partitions in
 * effect (partition names and the P_Keys of pkey criteria are checked
 * against it; NULL: none). Returns the policy, or NULL when the text has
 * any error; errs (initialised by the caller) gets every error, warning
 * and note.
 */
struct qos_policy *qos_policy_parse(const char *filename, const char *text,
    size_t len, const struct pkey_policy *parts, struct pkey_errors *errs);
void qos_policy_free(struct qos_policy *p);

/* The level of a request: never NULL on a parsed policy. */
const struct qos_level *qos_policy_match(const struct qos_policy *p,
    const struct qos_query *q);
/* Whether level l allows P_Key base pkey (a level without pkey: all). */
bool qos_level_has_pkey(const struct qos_level *l, uint16_t pkey);
/* The level's P_Key bases in ascending order, by index: false past the
 * last (a level without pkey has none). */
bool qos_level_pkey_at(const struct qos_level *l, size_t i, uint16_t *pkey);

/* Port group i (0 .. qos_policy_groups() - 1, the named ones in file
 * order): its name, and whether port pt is in it. */
const char *qos_group_name(const struct qos_policy *p, size_t i);
bool qos_group_has(const struct qos_policy *p, size_t i,
    const struct qos_port *pt);

/* Counts for -nv and logs. */
size_t qos_policy_groups(const struct qos_policy *p);
size_t qos_policy_levels(const struct qos_policy *p);
size_t qos_policy_rules(const struct qos_policy *p);    /* match + ulps */

/*
 * The normalized policy (ibsmd -nv), malloc'd: the sections in a fixed
 * order, one value per line, qos-ulps as written; it parses back to the
 * same policy. With ports (nports of them, NULL: none), each port group
 * is followed by a comment with the number of those ports it holds.
 */
char *qos_policy_format(const struct qos_policy *p,
    const struct qos_port *ports, size_t nports);

#endif
