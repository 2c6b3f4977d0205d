/*
 * Partition scoping: which end ports may see each other through the SA.
 * Two ports share a partition when their P_Key tables hold a key with the
 * same low 15 bits and at least one of the two holds it as a full member
 * (two limited members cannot talk), and a port always shares with
 * itself (the requester sees its own records, whatever its membership). A port whose table is unknown or
 * empty, or a view without P_Key tables, shares with every port (as
 * OpenSM). Pure: reads the view only. Lookups are a binary search in the
 * tables, then a scan of the two tables' entries: independent of the
 * fabric's size.
 */
#ifndef IBSMD_SA_SCOPE_H
#define IBSMD_SA_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "sa/sa.h"

struct guid_hash;

/* The P_Key table of end port p (indices as in v->f), NULL if unknown. */
const struct pkey_table *sa_scope_table(const struct sa_view *v, uint32_t p);

/* End indices past f->nports are vports (see struct sa_view). The
 * physical port an end index is reached through, its GUID, and the end
 * index answering to lid (a port, else a vport with a LID of its own;
 * FABRIC_NONE if none). */
uint32_t sa_end_phys(const struct sa_view *v, uint32_t e);
uint64_t sa_end_guid(const struct sa_view *v, uint32_t e);
uint32_t sa_end_by_lid(const struct sa_view *v, uint16_t lid);

/* Whether a and b share a partition; true when a == b. The key a path
 * between them uses is sa_scope_common_pkey's, which finds none for a
 * port that is a limited member of all its partitions, even to itself
 * (its own HCA would drop such a packet). */
bool sa_scope_share(const struct sa_view *v, uint32_t a, uint32_t b);

/*
 * Whether port p holds pkey (low 15 bits compared); *full receives
 * whether as a full member. A port with no known table holds every key,
 * as a full member.
 */
bool sa_scope_has(const struct sa_view *v, uint32_t p, uint16_t pkey,
    bool *full);

/*
 * The key a path between a and b uses when the request names none: the
 * lowest shared key (low 15 bits) with the membership bit as a holds it.
 * Returns false when they share none. Two ports without known tables get
 * 0xFFFF.
 */
bool sa_scope_common_pkey(const struct sa_view *v, uint32_t a, uint32_t b,
    uint16_t *pkey);

/* Fills h (cleared first) with the GUID -> port index of every end port
 * of v with a GUID; left empty when v or its fabric is NULL. */
void sa_scope_index_ends(struct guid_hash *h, const struct sa_view *v);

#endif
