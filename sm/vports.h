/*
 * vports on the wire (vSwitch SR-IOV): reading the vport attributes of
 * every virtualization-capable port into a vport set, and programming the
 * vports the SM manages (P_Key table, VPortLID, INIT -> ARMED -> ACTIVE).
 * Only ports whose PortInfo advertises virtualization (CapabilityMask bit
 * 15 and CapabilityMask2 bit 2) are ever sent a vport attribute. Layouts:
 * core/vattr.h. Asynchronous, driven by MAD completions; hosts are worked
 * on a bounded number at a time.
 */
#ifndef IBSMD_VPORTS_H
#define IBSMD_VPORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/vport.h"

struct mad_engine;
struct vports;

struct vports_result {
	unsigned hosts;         /* virtualization-capable ports */
	unsigned vports;        /* vports read (not Down) */
	unsigned managed;       /* of those, the SM's to bring up */
	unsigned smps;          /* SMPs sent */
	unsigned timeouts, errors;
	unsigned pkey_writes, lid_writes, armed, activated, clears;
	unsigned rereg_hosts;   /* VirtualizationInfo.VClientReregister set */
	unsigned stale_hosts;   /* vport states found changed after a clear */
	unsigned rereg_vports;  /* VPortClientReregister with ACTIVE */
	/* vport writes withheld from hosts a read-back guard stopped
	 * (sm/vports.c host_stop) */
	unsigned unsafe_skipped;
	char first_failure[160];
};

typedef void (*vports_done_cb)(void *arg, const struct vports_result *r);

struct vports *vports_new(struct mad_engine *mad);
void vports_free(struct vports *v);
/* Hosts worked on at once (virtualization.max_ports_in_process). */
void vports_set_window(struct vports *v, unsigned hosts);

/* Whether PortInfo info (64 bytes as read) advertises virtualization. */
bool vports_capable(const uint8_t *info);

/* Read every virtualization-capable CA port of f into s (cleared first).
 * clear: write VirtualizationInfo back to clear VPortStateChange (master
 * only). done is called once, from inside this call when there is
 * nothing to send. One run at a time (a new one abandons the old). */
void vports_discover(struct vports *v, const struct fabric *f,
    struct vport_set *s, bool clear, vports_done_cb done, void *arg);

/* The same, after a poll (vports_poll) of the same fabric f: only the
 * hosts whose VPortStateChange that poll found set (or that did not
 * answer it) are read; the others, and their vports, are copied from old
 * (the set in use). Without such a poll, or with old NULL, every host is
 * read. A poll serves one such discovery. */
void vports_discover_changed(struct vports *v, const struct fabric *f,
    struct vport_set *s, const struct vport_set *old, bool clear,
    vports_done_cb done, void *arg);

/* Program the vports of s the SM manages: each vport's P_Key table (its
 * pkeys, when not NULL) and LID, then ARMED, then ACTIVE. What a vport was
 * last given (by GUID) is remembered, so that a sweep writes only what
 * changed. */
void vports_program(struct vports *v, const struct fabric *f,
    struct vport_set *s, vports_done_cb done, void *arg);

/* Abandon a run: done is not called. */
void vports_abort(struct vports *v);
/* Forget what was written (another SM may write from now on). */
void vports_forget(struct vports *v);

/* Poll VirtualizationInfo of every host of s: done gets changed = true
 * when one has VPortStateChange set or does not answer. */
typedef void (*vports_poll_cb)(void *arg, bool changed);
void vports_poll(struct vports *v, const struct fabric *f,
    const struct vport_set *s, vports_poll_cb done, void *arg);

#endif
