/*
 * partitions.conf: the grammar (OpenSM's, plus GUID ranges and members named
 * by node description) and the P_Key policy it yields. Pure code: text in,
 * per-port P_Key tables out. No I/O; allocation failure is fatal.
 *
 * Life cycle: pkey_policy_parse() a file's text (or pkey_policy_default()
 * when there is no file), then after every heavy sweep pkey_tables_build()
 * from the policy, the new fabric model and the tables of the previous
 * build, so that a P_Key keeps its index in a port's table for as long as
 * the port keeps the P_Key. A reload parses the new text completely and
 * swaps policies only when it parsed without error.
 *
 * Membership, per partition and port (OpenSM's rule): the last member entry
 * that names the port decides, in file order across all the statements of
 * that P_Key. An entry without "=..." takes its statement's defmember
 * (limited unless set). Full sets bit 15 of the P_Key; "both" gives the port
 * the full and the limited form when allow_both is on, the full form alone
 * otherwise. man/partitions.conf.5 has the details.
 */
#ifndef IBSMD_PARTITIONS_H
#define IBSMD_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

#define PKEY_DEFAULT            0x7fff  /* the Default partition */
#define PKEY_FULL               0x8000  /* membership bit of a table entry */
#define PKEY_BASE(k)            ((uint16_t)((k) & 0x7fff))
#define PKEY_IPOIB_QKEY         0x0b1bu /* Q_Key of IP groups unless set */

/* ---- diagnostics ------------------------------------------------------ */

/* A warning does not stop the file either, but is worth an operator's
 * attention (a file with no statement at all). */
enum pkey_msg_level { PKEY_MSG_ERROR, PKEY_MSG_NOTE, PKEY_MSG_WARNING };

struct pkey_msg {
	enum pkey_msg_level level;
	unsigned line, col;     /* 1-based; line 0: about the whole file */
	char *text;
};

/* What one parse had to say: errors, and notes that do not stop the file
 * (a generated P_Key, the Default partition added). Sorted by position. */
struct pkey_errors {
	char *file;             /* the name given to pkey_policy_parse() */
	struct pkey_msg *msgs;
	size_t n, cap;
	size_t nerrors;         /* messages of level PKEY_MSG_ERROR */
};

void pkey_errors_init(struct pkey_errors *e);
void pkey_errors_fini(struct pkey_errors *e);
/* Message i as "file:line:col: text" (an error), "file:line:col: note:
 * text" or "file:line:col: warning: text"; a message about the whole file
 * has no line and column. Returns what snprintf returns. */
int pkey_msg_format(const struct pkey_errors *e, size_t i, char *buf,
    size_t len);
/* Every message (notes only if notes is set; errors and warnings always),
 * one per line; malloc'd. */
char *pkey_errors_text(const struct pkey_errors *e, bool notes);

/* ---- the policy ------------------------------------------------------- */

enum pkey_membership {
	PKEY_LIMITED = 1,
	PKEY_FULL_MEMBER = 2,
	PKEY_BOTH = 3,          /* PKEY_LIMITED | PKEY_FULL_MEMBER */
};

/* Which struct pkey_group_flags fields a file set. */
enum {
	PKEY_GF_MTU = 1 << 0, PKEY_GF_RATE = 1 << 1, PKEY_GF_SL = 1 << 2,
	PKEY_GF_SCOPE = 1 << 3, PKEY_GF_QKEY = 1 << 4, PKEY_GF_TCLASS = 1 << 5,
	PKEY_GF_FLOWLABEL = 1 << 6,
};

/* Multicast group parameters: IBA codes (mtu 4 = 2048 bytes, rate 3 =
 * 10 Gb/s). Fields a file did not set hold the defaults: mtu 4, rate 3,
 * sl 0, scope link-local (2), Q_Key 0x0b1b for IP groups and 0 for others,
 * TClass 0, FlowLabel 0. */
struct pkey_group_flags {
	uint8_t set;            /* PKEY_GF_* */
	uint8_t mtu, rate, sl, tclass;
	uint16_t scope_mask;    /* bit s: a group of scope s */
	uint32_t qkey;
	uint32_t flow_label;
};

/* A group to create on behalf of the file (an mgid= line). One group per
 * scope bit: the scope nibble of mgid is replaced by each. */
struct pkey_mgroup {
	uint8_t mgid[16];       /* IP groups: the partition's full P_Key in
				 * bytes 4-5 */
	struct pkey_group_flags flags;  /* effective */
	bool ip;                /* IPv4 (0x401b) or IPv6 (0x601b) signature */
	unsigned line;
};

struct pkey_member;             /* a member entry; see pkey_policy_format() */

struct pkey_partition {
	char *name;             /* NULL: unnamed (written as its P_Key) */
	uint16_t pkey;          /* the low 15 bits */
	bool ipoib;             /* create the IPoIB broadcast group */
	bool indx0;             /* members get this P_Key at index 0 */
	bool generated;         /* the file gave no P_Key: one was picked */
	bool implicit;          /* not in the file: added by ibsmd */
	struct pkey_group_flags flags;  /* effective */
	struct pkey_mgroup *mgroups;
	size_t nmgroups;
	struct pkey_member *members;
	size_t nmembers;
	unsigned line;          /* first statement */
};

struct pkey_policy;

/* Parse a partitions.conf text of len bytes (no NUL needed). Returns the
 * policy, or NULL when the text has any error; errs (initialised by the
 * caller) gets every error and note, each with file:line:col. A text
 * without a Default partition gets one: ALL=limited, SELF=full; a text
 * without any statement (empty, or only comments) is read as no file at
 * all (pkey_policy_default()), with a warning. */
struct pkey_policy *pkey_policy_parse(const char *filename, const char *text,
    size_t len, struct pkey_errors *errs);
/* No file at all: Default=0x7fff, ipoib : ALL=full ; */
struct pkey_policy *pkey_policy_default(void);
void pkey_policy_free(struct pkey_policy *p);

/* Partitions in ascending P_Key order. */
size_t pkey_policy_count(const struct pkey_policy *p);
const struct pkey_partition *pkey_policy_get(const struct pkey_policy *p,
    size_t i);
const struct pkey_partition *pkey_policy_find(const struct pkey_policy *p,
    uint16_t pkey);
/* Whether a member names guid itself (a GUID or a GUID range; not ALL and
 * the like): a VF alias GUID assigned or released changes its tables. */
bool pkey_policy_names_guid(const struct pkey_policy *p, uint64_t guid);

/* The normalized policy (ibsmd -nv), malloc'd: one statement per P_Key,
 * flags in a fixed order, every member with its membership spelt out; the
 * text parses back to the same policy. With a fabric, each partition is
 * followed by comment lines listing the ports it resolves to and the
 * members that name nothing in the fabric. */
char *pkey_policy_format(const struct pkey_policy *p, const struct fabric *f);

/* Members, as ibsmctl shows them. pkey_member_format(): member j of pt as
 * -nv writes it without its membership ("ALL_CAS", "0x...", "0x...-0x...",
 * "\"pattern\""); -1 if there is no member j. pkey_member_membership():
 * its enum pkey_membership. */
const char *pkey_membership_name(unsigned membership);  /* "full", ... */
int pkey_member_format(const struct pkey_partition *pt, size_t j, char *buf,
    size_t len);
unsigned pkey_member_membership(const struct pkey_partition *pt, size_t j);
/* The end ports of f that partition pt gives a P_Key (member < 0: all its
 * entries, the last naming a port deciding, the SM's port forced full in
 * the Default partition), or that entry member alone names; fn gets each,
 * in (GUID, port) order, with its membership. */
typedef void pkey_port_fn(void *arg, uint32_t port, unsigned membership,
    bool sm_forced);
void pkey_partition_ports(const struct pkey_partition *pt,
    const struct fabric *f, long member, pkey_port_fn *fn, void *arg);

/* Text for a GID, as inet_ntop() writes IPv6 addresses. */
void pkey_gid_format(const uint8_t gid[16], char *buf, size_t len);

/* What changed from policy a to policy b, one line per partition changed
 * (for a reload's log): "partition NAME=0xKEY added (N member entries)",
 * "... removed (...)", "partition NAME=0xKEY: members +N -M (+ENTRY ...
 * -ENTRY ...); flags: mtu 4 -> 5, ...". Returns the lines given to fn. */
typedef void pkey_diff_fn(void *arg, const char *line);
unsigned pkey_policy_diff(const struct pkey_policy *a,
    const struct pkey_policy *b, pkey_diff_fn *fn, void *arg);

/* ---- P_Key tables ----------------------------------------------------- */

enum pkey_table_kind {
	PKEY_TABLE_PORT,        /* end port: CA/router port, switch port 0 */
	PKEY_TABLE_ENFORCE,     /* switch port facing a CA or router */
};

struct pkey_table {
	uint64_t guid;          /* port GUID; switch ports: the switch's */
	uint32_t port;          /* index into the fabric's ports */
	uint8_t num;            /* port number */
	uint8_t kind;           /* enum pkey_table_kind */
	bool enforce;           /* PKEY_TABLE_ENFORCE: the neighbour's whole
				 * set fit, turn enforcement on; off if not */
	uint16_t cap;           /* entries: PartitionCap of the node, or the
				 * switch's PartitionEnforcementCap */
	uint16_t *keys;         /* [cap]; 0 = empty; bit 15 = full member */
	uint16_t dropped;       /* P_Keys the port should have that did not
				 * fit (reported through the notes) */
};

/* Sorted by (guid, num). */
struct pkey_tables {
	struct pkey_table *v;
	size_t n;
};

struct pkey_opts {
	bool allow_both;        /* allow_both_pkeys: "both" gives both forms */
	/* Shared-port SR-IOV: the index of the physical port that owns alias
	 * (VF) GUID guid, or FABRIC_NONE. NULL: no alias GUIDs. A member
	 * naming an alias puts its P_Key in the physical port's table, as a
	 * union with the other functions' memberships. */
	uint32_t (*alias_port)(void *arg, uint64_t guid);
	void *alias_arg;
	/* vSwitch SR-IOV: whether guid (one alias_port resolves) is a vport
	 * with a P_Key table of its own (VPortPKeyTable). Its keys then go
	 * to the switch port facing its physical port (what enforcement must
	 * let through) and not to the physical port's table: the hypervisor
	 * gets only the keys the file gives it, and tenants stay apart.
	 * NULL: none such (every alias shares its port's table). */
	bool (*alias_own_table)(void *arg, uint64_t guid);
};

enum pkey_note_level { PKEY_NOTE_INFO, PKEY_NOTE_WARN };
typedef void pkey_note_fn(void *arg, enum pkey_note_level level,
    const char *msg);

/*
 * Tables for every end port of f (capacity: its node's PartitionCap) and,
 * on switches with a PartitionEnforcementCap, for every external port that
 * faces a CA or router (the union of that neighbour's table). Index 0 of an
 * end port holds its indx0 partition, else the Default P_Key, else stays
 * empty; a P_Key that prev (NULL: none; sorted like out) had on the same
 * port (guid, num) keeps its index; new P_Keys take the lowest free index in
 * P_Key order. What does not fit, members naming nothing in f and other
 * surprises go to note (may be NULL). out is overwritten. Returns the number
 * of tables with P_Keys that did not fit.
 */
int pkey_tables_build(const struct pkey_policy *p, const struct fabric *f,
    const struct pkey_tables *prev, const struct pkey_opts *opts,
    struct pkey_tables *out, pkey_note_fn *note, void *note_arg);
void pkey_tables_free(struct pkey_tables *t);
/* Sort tables filled by hand (e.g. read from devices) for use as prev. */
void pkey_tables_sort(struct pkey_tables *t);
const struct pkey_table *pkey_tables_find(const struct pkey_tables *t,
    uint64_t guid, uint8_t num);

/*
 * The P_Key table of a vport (vSwitch SR-IOV) of cap entries into out: the
 * partitions with a member naming guid (by GUID or a range holding it),
 * ALL, ALL_CAS, or a description pattern desc matches (its
 * VNodeDescription; NULL: none); the last member naming it wins, as for
 * ports. Index 0 holds the indx0 partition first in the file, else the
 * Default P_Key, else stays empty; a P_Key prev (nprev entries, NULL:
 * none) held keeps its index. The physical port's own table gets the
 * union through pkey_opts.alias_port. Returns how many P_Keys did not fit.
 */
size_t pkey_vport_table(const struct pkey_policy *p, uint64_t guid,
    const char *desc, bool allow_both, const uint16_t *prev, uint16_t nprev,
    uint16_t *out, uint16_t cap);

/* Names for -nv, logs and the man page: "2048" for mtu 4, "10" (Gb/s)
 * for rate 3; NULL for a code IBA does not define. */
const char *pkey_mtu_bytes(unsigned mtu);
const char *pkey_rate_gbps(unsigned rate);

#endif
