/*
 * Multicast in the daemon: owns the group store (mcast/group.h), the
 * trees over the fabric in use (mcast/tree.h), and what each switch's
 * MulticastForwardingTable holds as far as this SM knows; writes only the
 * (block, position) pairs that differ, reading first those it does not
 * know (a new mastership, a switch never written). MulticastFDBTop is set
 * through SwitchInfo on switches whose port 0 CapabilityMask has bit 30
 * (IsMulticastFDBTopSupported).
 *
 * sm/daemon.c calls: sm_mcast_set_fabric() when a heavy sweep's model is
 * adopted (members of ports that left are dropped, every tree rebuilt),
 * sm_mcast_program() once that sweep brought the subnet up as master,
 * sm_mcast_update() from the SA's hook after a join or leave (one tree
 * rebuilt, its blocks written, no sweep), sm_mcast_forget() when this SM
 * stops being master.
 */
#ifndef IBSMD_SM_MCAST_H
#define IBSMD_SM_MCAST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ev_loop;
struct fabric;
struct vport_set;
struct mad_engine;
struct mcast_mft;
struct mcast_store;
struct sm_mcast;

struct sm_mcast *sm_mcast_new(struct mad_engine *mad);
/* Coalesce joins and leaves on loop: sm_mcast_update() marks the MLID
 * and the trees and blocks are brought in line 5 ms after the first
 * (without a loop, at once). */
void sm_mcast_set_loop(struct sm_mcast *m, struct ev_loop *loop);
void sm_mcast_free(struct sm_mcast *m);
struct mcast_store *sm_mcast_store(struct sm_mcast *m);

/* The model in use changed (f NULL: none). f must stay valid until the
 * next call. Rebuilds every tree; sends nothing. */
void sm_mcast_set_fabric(struct sm_mcast *m, const struct fabric *f);
/* The vports of that model (NULL: none): members named by a vport GUID
 * are reached through its physical port. Call before
 * sm_mcast_set_fabric(); s must stay valid as f does. */
void sm_mcast_set_vports(struct sm_mcast *m, const struct vport_set *s);
/* VF alias GUIDs may be members (IPoIB on a ConnectX-3 VF joins with its
 * alias GID): the store that says whose port each one is (NULL: none). */
struct alias_store;
void sm_mcast_set_alias(struct sm_mcast *m, const struct alias_store *a);
/* Write every switch's differing blocks (master only; the M_Key each
 * presents is mad/smp.h's source's). Returns true when Sets went out (or were
 * already in flight): done (NULL: none) is then called once no MFT or
 * MulticastFDBTop Set of this module is in flight any more (joins and
 * leaves flushed meanwhile included); false: nothing to wait for, done is
 * not called. */
typedef void (*sm_mcast_done_cb)(void *arg);
bool sm_mcast_program(struct sm_mcast *m, sm_mcast_done_cb done,
    void *arg);
/* A group's members changed: rebuild mlid's tree and write its block on
 * the switches where it differs (only once sm_mcast_program() ran);
 * with a loop, together with the others of the next 5 ms. */
void sm_mcast_update(struct sm_mcast *m, uint16_t mlid);
/* The MFT the trees give the switch of that node GUID (NULL: not a
 * switch of the model in use), for MulticastForwardingTableRecord. */
const struct mcast_mft *sm_mcast_mft(const struct sm_mcast *m,
    uint64_t node_guid);
/* Not master any more: stop writing, forget what devices hold. */
void sm_mcast_forget(struct sm_mcast *m);

struct sm_mcast_stats {
	uint64_t groups, members, mlids;        /* now */
	uint64_t created, deleted, joins, leaves, no_mlid, forgotten;
	uint64_t updates;       /* fast-path tree rebuilds */
	uint64_t rebuilds;      /* full rebuilds (heavy sweeps) */
	uint64_t mft_writes, mft_failures;
	uint64_t top_sets;      /* SwitchInfo MulticastFDBTop Sets */
	uint64_t left_out;      /* member ports no tree could reach, last
				 * build of each tree */
	unsigned mlid_limit;
};
void sm_mcast_get_stats(const struct sm_mcast *m, struct sm_mcast_stats *st);
/* The trees over the model in use and that model, for ibsmctl mcast
 * (sm/show_sa.c); NULL (and *f NULL): none built yet. */
struct mcast_trees;
const struct mcast_trees *sm_mcast_trees(const struct sm_mcast *m,
    const struct fabric **f);

#endif
