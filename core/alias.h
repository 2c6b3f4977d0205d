/*
 * VF alias GUIDs (shared-port SR-IOV, ConnectX-3): the assignment store.
 * Pure: no I/O; sm/ loads and saves the text form, the SA asks it.
 *
 * Per physical port (by port GUID) and GUIDInfo index (block * 8 + i,
 * 0..ALIAS_MAX_INDEX-1) it keeps:
 *   saved   the GUID this (port, index) was last given: it comes back on a
 *           later Set of 0 (after a Delete, a restart or a takeover);
 *           persisted;
 *   active  whether the entry is assigned now (Set and not Deleted);
 *           persisted, so a restarted SM programs the same table;
 *   device  what the port's GUIDInfo table holds as last read (discovery,
 *           or the answer to a GUIDInfo Set); not persisted.
 * Index 0 is the port GUID and never changes: it is not stored.
 *
 * A GUID saved for one (port, index) is never given to another, nor
 * accepted there on request; neither is a GUID the fabric uses (the caller
 * says which, a physical port or node GUID). Generated GUIDs are
 * ALIAS_OUI << 40 | byte << 32 | counter, the byte configured per subnet
 * (virtualization.assigned_guid_byte), as OpenSM does.
 */
#ifndef IBSMD_ALIAS_H
#define IBSMD_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALIAS_MAX_INDEX	256	/* GUIDCap is one byte: 32 blocks of 8 */
#define ALIAS_PER_BLOCK	8
#define ALIAS_OUI	0x001405ULL

struct alias_store;

/* Whether guid is in use in the fabric outside the store (a physical port
 * or node GUID). */
typedef bool alias_taken_fn(void *arg, uint64_t guid);

struct alias_store *alias_store_new(uint8_t guid_byte);
void alias_store_free(struct alias_store *s);
/* Generated GUIDs use this byte from now on (already saved ones stay). */
void alias_store_set_byte(struct alias_store *s, uint8_t guid_byte);

/*
 * A Set of index (1..ALIAS_MAX_INDEX-1) of port to want (0: the SM
 * chooses). Returns the GUID the entry now holds, or 0 when refused (want
 * is used elsewhere, or no GUID is free); a refusal changes nothing. With
 * want 0: the active GUID stays; else the saved one comes back; else one
 * is generated.
 */
uint64_t alias_set(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t want, alias_taken_fn *taken, void *arg);
/* A Delete: the entry is no longer active; its GUID stays saved for it.
 * Returns whether it was active. */
bool alias_delete(struct alias_store *s, uint64_t port, unsigned index);
/* Forget the GUID saved for (port, index), so that a later Set of 0 gets
 * a new one (an operator clearing a stale assignment). 0 with the GUID in
 * *was; -1 when nothing is saved there; -2 when it is active (the host
 * must Delete it first). */
int alias_forget(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t *was);
/* The active GUID of (port, index); index 0 and inactive entries: 0. */
uint64_t alias_get(const struct alias_store *s, uint64_t port,
    unsigned index);
/* The GUID saved for (port, index), active or not; 0 if none. */
uint64_t alias_saved(const struct alias_store *s, uint64_t port,
    unsigned index);
/* The (port, index) an active alias GUID belongs to; false if none. */
bool alias_find(const struct alias_store *s, uint64_t guid, uint64_t *port,
    unsigned *index);
/* Active entries of one port: fills guids[ALIAS_MAX_INDEX] (0: none) and
 * returns how many are active. */
size_t alias_port_table(const struct alias_store *s, uint64_t port,
    uint64_t *guids);
/* Every port the store knows (a saved entry, or its device read), in no
 * order: port GUIDs into
 * out (up to max), returns how many there are. */
size_t alias_ports(const struct alias_store *s, uint64_t *out, size_t max);
size_t alias_count_active(const struct alias_store *s);

/* What the device of port holds: block b (8 GUIDs) as read; cap is
 * PortInfo.GUIDCap. */
void alias_device_put(struct alias_store *s, uint64_t port, unsigned cap,
    unsigned block, const uint64_t *guids);
/* The device's block as last read; false if never read. */
bool alias_device_get(const struct alias_store *s, uint64_t port,
    unsigned block, uint64_t *guids, unsigned *cap);
/*
 * The device of port holds guid at index (read by discovery) while this
 * store has another GUID or none active there: the store takes the
 * device's (a takeover: the previous master assigned it; this store is
 * per instance). Refused (false, nothing changed) when guid is 0, is the
 * port's own, is taken in the fabric, or is active for another (port,
 * index); a GUID only saved for another entry moves to this one.
 */
bool alias_adopt(struct alias_store *s, uint64_t port, unsigned index,
    uint64_t guid, alias_taken_fn *taken, void *arg);
/* Forget what the device of one port holds (it is being read again). */
void alias_device_forget(struct alias_store *s, uint64_t port);
/* Forget what devices hold (a new discovery reads it again). */
void alias_device_clear(struct alias_store *s);

/* Whether saved or active entries changed since the last clean. */
bool alias_store_dirty(const struct alias_store *s);
void alias_store_clean(struct alias_store *s);

/*
 * The text form, one line per saved entry:
 *   0x<port guid> <index> 0x<alias guid> active|saved
 * '#' starts a comment. format returns a malloc'd NUL-terminated text.
 * parse replaces s's saved and active entries; a bad line is reported to
 * bad (line number, reason) and skipped; returns the number of bad lines.
 */
char *alias_store_format(const struct alias_store *s);
typedef void alias_bad_fn(void *arg, unsigned line, const char *why);
unsigned alias_store_parse(struct alias_store *s, const char *text,
    alias_bad_fn *bad, void *arg);

#endif
