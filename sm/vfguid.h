/*
 * VF alias GUIDs on the daemon's side (virtualization.mode enabled): the
 * core/alias store, kept in <state_dir>/alias_guids (written atomically
 * after every change, like guid2lid), and the programming of the devices:
 * a change the SA made to a port's block is written with SMP GUIDInfo Set
 * and what the device answers is what the store records as held (the SA's
 * GUIDInfoRecord Get reports that). After every heavy sweep the blocks of
 * ports with active aliases are written again (a restart, a takeover, a
 * port that came back), so the devices hold what the store says.
 */
#ifndef IBSMD_SM_VFGUID_H
#define IBSMD_SM_VFGUID_H

#include <stdint.h>

struct alias_store;
struct fabric;
struct mad_engine;
struct vfguid;

/* Load <state_dir>/alias_guids (missing: empty; bad lines logged and
 * skipped). */
struct vfguid *vfguid_new(struct mad_engine *mad, const char *state_dir,
    uint8_t guid_byte, uint64_t m_key);
void vfguid_free(struct vfguid *vg);
struct alias_store *vfguid_store(struct vfguid *vg);
/* The model in use (what port indices of vfguid_changed refer to); with
 * program, every port's active blocks are written. */
void vfguid_set_fabric(struct vfguid *vg, const struct fabric *f,
    bool program);
/* The SA's alias_changed hook (arg: the struct vfguid). */
void vfguid_changed(void *arg, uint32_t port, unsigned block);
/* Counters: blocks written, taken (read back equal), failed. */
void vfguid_counters(const struct vfguid *vg, uint64_t *sets,
    uint64_t *confirmed, uint64_t *failed);

#endif
