/*
 * VF alias GUIDs on the daemon's side (virtualization.mode enabled): the
 * core/alias store, kept in <state_dir>/alias_guids (written atomically,
 * like guid2lid, within 100 ms of a change, at most once per 100 ms, and
 * on exit), and the programming of the devices:
 * a change the SA made to a port's block is written with SMP GUIDInfo Set
 * and what the device answers is what the store records as held (the SA's
 * GUIDInfoRecord Get reports that). After every heavy sweep the blocks of
 * ports with active aliases are written where the device does not hold
 * them (discovery reads GUIDInfo of alias-capable ports: a restart, a
 * host that reset its table, a port that came back), so the devices hold
 * what the store says. Before that, what a device holds that the store
 * does not know is adopted into the store (a takeover: this store is per
 * instance, the previous master assigned those GUIDs).
 */
#ifndef IBSMD_SM_VFGUID_H
#define IBSMD_SM_VFGUID_H

#include <stdbool.h>
#include <stdint.h>

struct alias_store;
struct ev_loop;
struct fabric;
struct mad_engine;
struct vfguid;

/* Load <state_dir>/alias_guids (missing: empty; bad lines logged and
 * skipped). */
struct vfguid *vfguid_new(struct ev_loop *loop, struct mad_engine *mad,
    const char *state_dir, uint8_t guid_byte);
void vfguid_free(struct vfguid *vg);
struct alias_store *vfguid_store(struct vfguid *vg);
/* The model in use (what port indices of vfguid_changed refer to); a new
 * one: device entries adopted. */
void vfguid_set_fabric(struct vfguid *vg, const struct fabric *f);
/* Write every port's blocks the device does not hold as the store says
 * (the model set last). Returns true when GUIDInfo Sets are in flight:
 * done (NULL: none) is then called once none is (the SA's own Sets
 * included); false: nothing to wait for, done is not called. */
typedef void (*vfguid_done_cb)(void *arg);
bool vfguid_program(struct vfguid *vg, vfguid_done_cb done, void *arg);
/* The SA's alias_changed hook (arg: the struct vfguid). */
void vfguid_changed(void *arg, uint32_t port, unsigned block);
/* ibsmctl guids forget: forget the GUID saved for (port GUID, index),
 * released but remembered (a later Set of 0 would give it back), and save
 * the file. 0 with the GUID in *was, -1 nothing saved there, -2 still
 * active (the host must Delete it first). Logged. */
int vfguid_forget(struct vfguid *vg, uint64_t port, unsigned index,
    uint64_t *was);
struct vfguid_stats {
	uint64_t sets;          /* GUIDInfo blocks written */
	uint64_t confirmed;     /* ... and read back equal */
	uint64_t failed;        /* ... unanswered, refused or read back other */
	uint64_t restored;      /* blocks written because the device, as
	                         * read, had lost entries of the store */
	uint64_t adopted;       /* device entries taken into the store */
	uint64_t writes;        /* times the file was written */
	uint64_t active;        /* alias GUIDs assigned now */
};
void vfguid_get_stats(const struct vfguid *vg, struct vfguid_stats *st);

#endif
