/*
 * OpenSM's dump files, for the tools that read them, written into
 * dump_files_dir after every heavy sweep that brought the subnet up as
 * master, each replaced atomically (written beside, then renamed):
 *
 *   opensm-subnet.lst   every link, both ends: node type (-SM on the SM's
 *                       port), ports, system, node and port GUIDs, vendor,
 *                       device, revision, name, LID, port; width, state,
 *                       speed (OpenSM's dump_topology_node format)
 *   opensm-lfts.dump    every switch's forwarding table, LID by LID, with
 *                       what each LID names (OpenSM's dump_ucast_lfts)
 *   opensm.mcfdbs       every switch's multicast forwarding entries, MLID
 *                       by MLID (OpenSM's dump_mcast_routes)
 *   guid2lid            the state's guid2lid (OpenSM's format already)
 *
 * Nodes are named as people see them (core/nodemap: the node name map,
 * else the NodeDescription), as OpenSM does. Lines come in node GUID
 * order. OpenSM's opensm-sa.dump is not written: only OpenSM reads it
 * back, and ibsmd keeps no SA database.
 */
#ifndef IBSMD_DUMP_H
#define IBSMD_DUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/fabric.h"
#include "core/lft.h"

struct mcast_mft;

/* The multicast table of switch node_guid, NULL when it has none. */
typedef const struct mcast_mft *(*dump_mft_fn)(void *arg, uint64_t node_guid);

void dump_subnet_lst(FILE *fp, const struct fabric *f);
void dump_lfts(FILE *fp, const struct fabric *f, const struct lft_set *lft);
void dump_mcfdbs(FILE *fp, const struct fabric *f, dump_mft_fn mft,
    void *arg);

struct dump_in {
	const struct fabric *f;
	const struct lft_set *lft;
	dump_mft_fn mft;                /* NULL: no multicast file */
	void *mft_arg;
	const char *guid2lid;           /* the state's file, copied; NULL:
					 * none */
};

/* Write every file into dir; 0, or -1 with the first failure in why
 * (the files that could be written are). */
int dump_write(const char *dir, const struct dump_in *in, char *why,
    size_t whylen);

#endif
