/*
 * The multicast group store: groups (by MGID), their members (by port
 * GUID) and the MLIDs they hold. Pure: no I/O, no clock, no wire format
 * (the SA decodes MCMemberRecords and calls these functions; sm/ builds
 * trees from what is held here).
 *
 * One predicate decides every keep/delete question: a group lives while it
 * is well-known (pre-created from partitions.conf) or has at least one
 * member whose JoinState is "full" (Full or SendOnlyFull,
 * mcast_join_is_full()); a member lives while its JoinState is not 0.
 * There is no second test that could disagree with the first (OpenSM's
 * PR #43 leak: join 0x9, leave 0x1 kept a member-less MLID).
 *
 * MLIDs: 0xC000 .. 0xC000 + limit - 1, where limit is set by sm/ from the
 * smallest MulticastFDBCap of the switches (mcast_set_mlid_limit()). A
 * create gets the MLID it asks for when that is in range and unused, else
 * (option) the MLID of an IPv6 solicited-node group of the same scope and
 * P_Key, else the lowest free one. Several groups share an MLID only
 * through that option; an MLID is free again when its last group goes.
 */
#ifndef IBSMD_MCAST_GROUP_H
#define IBSMD_MCAST_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MCAST_MLID_BASE  0xC000u
#define MCAST_MLID_COUNT 0x3FFFu        /* 0xC000 .. 0xFFFE (0xFFFF is the
					 * permissive LID) */

/* JoinState bits (MCMemberRecord, IBA 15.2.5.17). */
enum {
	MCAST_JOIN_FULL = 0x1,
	MCAST_JOIN_NON = 0x2,
	MCAST_JOIN_SENDONLY_NON = 0x4,
	MCAST_JOIN_SENDONLY_FULL = 0x8,
	MCAST_JOIN_ALL = 0xF,
};

/* The one "full" predicate: a member that keeps its group alive. */
static inline bool
mcast_join_is_full(uint8_t join_state)
{
	return (join_state &
	    (MCAST_JOIN_FULL | MCAST_JOIN_SENDONLY_FULL)) != 0;
}

/* A group's parameters, IBA codes as MCMemberRecord carries them. */
struct mcast_params {
	uint32_t qkey;
	uint16_t pkey;          /* as given, membership bit included */
	uint8_t mtu;            /* 1 = 256 ... 5 = 4096 */
	uint8_t rate;           /* IBA rate code (3 = 10 Gb/s) */
	uint8_t pkt_life;       /* PacketLifeTime code */
	uint8_t sl;
	uint8_t tclass;
	uint8_t hop_limit;
	uint8_t scope;          /* 4 bits, as in the MGID's second byte */
	uint32_t flow_label;    /* 20 bits */
};

struct mcast_member {
	uint64_t port_guid;     /* key: PortGID's interface ID */
	uint8_t gid[16];        /* PortGID as (last) joined */
	uint8_t join_state;     /* MCAST_JOIN_* bits, never 0 while held */
	bool proxy;             /* last joined on its behalf by another port */
};

/*
 * A group. Read its fields freely; p may be changed by the caller (a
 * reload of partitions.conf). well_known and the members change only
 * through the functions below, which keep the predicate.
 */
struct mcast_group {
	uint8_t mgid[16];
	uint16_t mlid;
	struct mcast_params p;
	bool well_known;        /* pre-created: kept without members */
	struct mcast_member *members;   /* sorted by port_guid */
	size_t nmembers;
	struct mcast_group *mlid_next;  /* next group sharing the MLID (read
					 * only; see mcast_by_mlid()) */
	size_t members_cap;     /* private to mcast/group.c */
};

struct mcast_store;

struct mcast_stats {
	uint64_t groups;        /* held now */
	uint64_t members;       /* (group, port) pairs held now */
	uint64_t mlids;         /* MLIDs in use now */
	uint64_t created, deleted;      /* groups, ever */
	uint64_t joins, leaves;         /* calls that changed something */
	uint64_t no_mlid;       /* creates refused: every MLID in use */
	uint64_t forgotten;     /* memberships dropped: port left */
};

struct mcast_store *mcast_store_new(void);
void mcast_store_free(struct mcast_store *s);

/* Number of MLIDs usable (1 .. MCAST_MLID_COUNT; larger is clamped):
 * the smallest MulticastFDBCap of the switches. Groups already holding an
 * MLID past a smaller new limit keep it until mcast_relocate() moves them
 * (mcast_mlids_beyond_limit() counts them; sm/ cannot program them).
 * Default MCAST_MLID_COUNT. */
void mcast_set_mlid_limit(struct mcast_store *s, unsigned limit);
unsigned mcast_mlid_limit(const struct mcast_store *s);
unsigned mcast_mlids_beyond_limit(const struct mcast_store *s);
/* Move every MLID in use past the limit, lowest first, with all the
 * groups sharing it, to the lowest free MLID within the limit; fn (may
 * be NULL) is told each move. MLIDs for which none is free stay where
 * they are (still counted by mcast_mlids_beyond_limit()). Returns how
 * many MLIDs moved. Members keep their JoinState; hosts learn the new
 * MLID from their next MCMemberRecord answer. */
typedef void mcast_moved_fn(void *arg, uint16_t from, uint16_t to);
unsigned mcast_relocate(struct mcast_store *s, mcast_moved_fn *fn,
    void *arg);
/* The IPv6 solicited-node consolidation (off by default). */
void mcast_set_consolidate_snm(struct mcast_store *s, bool on);

void mcast_get_stats(const struct mcast_store *s, struct mcast_stats *st);

/* ---- groups */

struct mcast_group *mcast_find(const struct mcast_store *s,
    const uint8_t mgid[16]);

/* An unused MGID for a create with MGID 0: ff1<scope>:a01b, then the
 * subnet prefix (8 bytes), then a 32-bit counter (bytes 12-15). Returns 0,
 * or -1 if none found in a thousand tries. */
int mcast_new_mgid(struct mcast_store *s, uint8_t scope,
    uint64_t subnet_prefix, uint8_t mgid[16]);

enum mcast_err {
	MCAST_OK,
	MCAST_EXISTS,           /* a group with the MGID exists */
	MCAST_NO_MLID,          /* every MLID in use */
	MCAST_BAD_MGID,         /* not a multicast GID (first byte 0xff) */
};
const char *mcast_err_name(enum mcast_err e);

/* Create a group without members. want_mlid: the MLID asked for, 0 for
 * any. NULL with *err set on failure (err may be NULL). */
struct mcast_group *mcast_create(struct mcast_store *s,
    const uint8_t mgid[16], uint16_t want_mlid, const struct mcast_params *p,
    bool well_known, enum mcast_err *err);

/* Whether mgid is an IPv6 solicited-node MGID, ff1S:601b:PKEY:0:0:1:ffXX:XXXX. */
bool mcast_mgid_is_snm(const uint8_t mgid[16]);

/* ---- members */

struct mcast_member *mcast_member_find(const struct mcast_group *g,
    uint64_t port_guid);

/* Add the bits of join_state (not 0) for port_guid, a member created if
 * needed; gid and proxy are recorded. Returns the merged JoinState. */
uint8_t mcast_join(struct mcast_store *s, struct mcast_group *g,
    uint64_t port_guid, const uint8_t gid[16], uint8_t join_state,
    bool proxy);

/* What a leave did. */
struct mcast_leave {
	uint8_t join_state;     /* the member's bits left (0: it is gone) */
	bool was_member;        /* port_guid was a member */
	bool member_removed;
	bool group_deleted;     /* g is freed: do not touch it again */
	bool mlid_freed;        /* no group holds mlid any more */
	uint16_t mlid;          /* the group's MLID */
};

/* Clear the bits of join_state from port_guid's membership; the member
 * goes when none are left, and the group when the predicate says so. */
void mcast_leave(struct mcast_store *s, struct mcast_group *g,
    uint64_t port_guid, uint8_t join_state, struct mcast_leave *r);

/* Drop or set well_known; a group that is no longer well-known and has no
 * full member is deleted at once. Returns true if g was deleted. */
bool mcast_set_well_known(struct mcast_store *s, struct mcast_group *g,
    bool well_known);

/* Delete a group whatever its members (each membership ends). */
void mcast_delete(struct mcast_store *s, struct mcast_group *g);

/* Called with each MLID whose members (or group) changed. */
typedef void mcast_changed_fn(void *arg, uint16_t mlid);

/* Forget every membership of a port that left the fabric: present() says
 * which port GUIDs are still there. Groups left without a full member go.
 * changed (may be NULL) is called for each MLID affected (an MLID shared
 * by several groups may be named more than once). Returns the
 * memberships dropped. */
size_t mcast_prune(struct mcast_store *s,
    bool (*present)(void *arg, uint64_t port_guid), void *parg,
    mcast_changed_fn *changed, void *carg);
/* The same with a predicate that sees the group: memberships keep()
 * refuses end (a port no longer in the group's partition). */
size_t mcast_prune_members(struct mcast_store *s,
    bool (*keep)(void *arg, const struct mcast_group *g, uint64_t port_guid),
    void *parg, mcast_changed_fn *changed, void *carg);
/* The same for one port. */
size_t mcast_forget_port(struct mcast_store *s, uint64_t port_guid,
    mcast_changed_fn *changed, void *carg);

/* ---- iteration */

/* Groups in ascending MGID order: first with NULL, then each next.
 * Deleting the current group while iterating is not allowed. */
struct mcast_group *mcast_next(const struct mcast_store *s,
    const struct mcast_group *g);
size_t mcast_count(const struct mcast_store *s);

/* MLIDs in use in ascending order: the first above after (0 to start),
 * 0 when none. */
uint16_t mcast_next_mlid(const struct mcast_store *s, uint16_t after);
/* The first group holding mlid (others via ->mlid_next), NULL if none. */
struct mcast_group *mcast_by_mlid(const struct mcast_store *s,
    uint16_t mlid);

#endif
