/*
 * vports (vSwitch SR-IOV, ConnectX-4 and later): what discovery found
 * behind each virtualization-capable port, beside the fabric model and
 * indexed into it by port. Pure: the LID each vport answers to, and the
 * forwarding entries of vport LIDs, which copy their physical port's in
 * every switch (no route of their own: a VM that starts, stops or moves
 * changes one entry per switch).
 */
#ifndef IBSMD_VPORT_H
#define IBSMD_VPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/lft.h"

#define VPORT_MAX_INDEX 4095    /* vports per physical port we handle */

struct vport {
	uint64_t guid;          /* VPortGUID (0: not read) */
	uint64_t node_guid;     /* VNodeGUID */
	uint32_t port;          /* its physical port, an index of the fabric */
	uint32_t host;          /* its host entry in the set */
	uint16_t index;         /* vport index; 0 is the physical function */
	uint8_t state;          /* VPortState as read (PORT_* values) */
	uint8_t flags;          /* VATTR_VP_* as read */
	uint8_t info_valid;     /* VPortInfo read this sweep */
	uint8_t vguid_cap;
	uint16_t lid_by;        /* LIDByVPortIndex as read */
	uint16_t cur_lid;       /* VPortLID as read */
	uint16_t own_lid;       /* LIDRequired: the LID manager's, else 0 */
	uint16_t lid;           /* the LID it answers to (vport_resolve_lids) */
	uint16_t pkey_cap;      /* VPartitionCap */
	char desc[65];          /* VNodeDescription, NUL-terminated */
	uint16_t *pkeys;        /* [pkey_cap] the P_Key table to program, NULL:
				 * leave it alone; owned by the set */
	uint64_t *guids;        /* [vguid_cap] VPortGUIDInfo as read, NULL:
				 * not read; owned by the set */
	uint16_t *dev_pkeys;    /* [pkey_cap] VPortPKeyTable as read where
				 * the set asked (read_pkeys), NULL: not read;
				 * owned by the set */
	uint8_t dup;            /* its VPortGUID is already in use (a port,
				 * another vport, an alias GUID): never
				 * managed (vport_mark_duplicates) */
	uint8_t idle;           /* virtualization ignore: not running (no
				 * VPortLID, or not ARMED/ACTIVE): neither
				 * routed nor given a LID (vport_keep_running) */
};

/* A virtualization-capable port and its vports. */
struct vport_host {
	uint32_t port;          /* fabric port index */
	uint16_t vport_cap;     /* VPortCap */
	uint16_t top;           /* VPortIndexTop */
	uint8_t flags;          /* VirtualizationInfo VATTR_VI_* as read */
	uint8_t valid;          /* VirtualizationInfo read and understood */
};

struct vport_set {
	struct vport *v;
	uint32_t n, cap;
	struct vport_host *h;
	uint32_t nh, hcap;
	struct guid_hash by_guid;       /* VPortGUID -> vport */
	struct guid_hash by_lid;        /* own LID -> vport (resolve_lids) */
	/* discovery also reads the VPortPKeyTable of every vport up (ARMED
	 * or ACTIVE) into dev_pkeys: where this SM programmed no table yet
	 * (a start, a takeover), so that a key keeps the index it has */
	bool read_pkeys;
};

void vport_set_init(struct vport_set *s);
void vport_set_fini(struct vport_set *s);
void vport_set_clear(struct vport_set *s);
/* Give vport v a zeroed P_Key table of its pkey_cap entries (replacing
 * any); returns it, NULL when pkey_cap is 0. */
uint16_t *vport_pkeys_alloc(struct vport_set *s, uint32_t v);

/* Give vport v a zeroed GUID table of its vguid_cap entries (replacing
 * any); returns it, NULL when vguid_cap is 0. */
uint64_t *vport_guids_alloc(struct vport_set *s, uint32_t v);
/* Add a host for fabric port p; returns its index. */
uint32_t vport_host_add(struct vport_set *s, uint32_t p);
/* Add vport index of host h (zeroed but for port, host, index); returns
 * its index. Pointers into s->v do not survive the next add. */
uint32_t vport_add(struct vport_set *s, uint32_t h, uint16_t index);
/* Index a vport by its GUID once read (a GUID seen twice keeps the
 * first). Returns false for 0 or a duplicate. */
bool vport_set_guid(struct vport_set *s, uint32_t v, uint64_t guid);
uint32_t vport_by_guid(const struct vport_set *s, uint64_t guid);
/* The vport of host h with index i, FABRIC_NONE if none. */
uint32_t vport_find(const struct vport_set *s, uint32_t h, uint16_t i);

/* Whether the vport is one the SM manages: not the physical function,
 * read, with a GUID, and up (INIT or better). */
bool vport_is_managed(const struct vport *v);

/*
 * A vport whose VPortGUID another port, node, vport or an active VF alias
 * GUID already uses would make a duplicate GID, unreachable: mark it dup
 * (never managed: no LID, no P_Keys, left down) and say so, naming both.
 * alias may be NULL. Returns how many were marked.
 */
/*
 * Log what changed between two vport sets (the one in use, old over of,
 * and the new one over nf): each VM (a managed vport, by its GUID) that
 * moved, naming the host, port and vport it left and the ones it is on
 * now, that started or that stopped. old may be NULL (nothing said).
 */
void vport_log_moves(const struct vport_set *old, const struct fabric *of,
    const struct vport_set *nw, const struct fabric *nf);

struct alias_store;
unsigned vport_mark_duplicates(struct vport_set *s, const struct fabric *f,
    const struct alias_store *alias);
/*
 * Virtualization ignore: this SM writes no vport, but a VM another SM
 * brought up (ARMED or ACTIVE, a VPortLID set) must stay reachable: such
 * vports stay managed for LIDs, routes and the physical ports' P_Keys;
 * every other vport (a VM that starts now stays in INIT) is marked idle,
 * neither routed nor given a LID. Returns how many are kept.
 */
unsigned vport_keep_running(struct vport_set *s);
/* Whether it wants a LID of its own (LIDRequired). */
bool vport_wants_lid(const struct vport *v);

/*
 * Each vport's lid: the physical function (index 0) answers to its port's
 * LID; a managed vport with LIDRequired to own_lid (0 until the LID
 * manager gave one); one without to the LID of the vport LIDByVPortIndex
 * names on the same host, when that one has a LID of its own, else to its
 * physical port's. Vports not managed get 0. Returns how many vports have
 * a LID of their own.
 */
unsigned vport_resolve_lids(struct vport_set *s, const struct fabric *f);

/* The vport that answers to lid with a LID of its own, FABRIC_NONE if
 * none (as of the last vport_resolve_lids()). */
uint32_t vport_by_lid(const struct vport_set *s, uint16_t lid);

/* The highest vport LID (0: none). */
uint16_t vport_max_lid(const struct vport_set *s);

/*
 * Forwarding of vport LIDs: in every switch of lft, the entry of each LID
 * a vport owns (its lid differs from its physical port's) becomes a copy
 * of the physical port's base LID entry. lft must hold those LIDs (see
 * lft_set_grow()). Returns the number of entries set.
 */
size_t vport_lft_copy(const struct vport_set *s, const struct fabric *f,
    struct lft_set *lft);

/*
 * The vports of hosts whose physical port a sweep could not read, kept
 * (core/graft.h: the port or its node marked kept in next): copied from
 * cur's set as cur knew them, with the LIDs they answered to offered as
 * their current ones, so that the routes to them stay. The host is marked
 * not valid, so nothing is sent to it. Returns the vports copied.
 */
unsigned vport_graft(struct vport_set *next_s, const struct fabric *next,
    const struct vport_set *cur_s, const struct fabric *cur);

const char *vport_state_name(uint8_t state);

#endif
