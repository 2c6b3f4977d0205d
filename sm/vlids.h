/*
 * sm/vlids.h: the vport LIDs last seen running, remembered in the state
 * directory (file vport_lids) so that ibsmd with virtualization.mode off,
 * which sends no vport attribute, still forwards the LIDs of VMs an
 * earlier run (disabled or enabled) saw up: each as its host's LID.
 */
#ifndef IBSMD_VLIDS_H
#define IBSMD_VLIDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/vport.h"

struct vlid {
	uint64_t guid;          /* VPortGUID */
	uint64_t host;          /* its physical port's GUID */
	uint16_t lid;           /* its VPortLID */
};

struct vlids {
	struct vlid *v;
	size_t n;
};

void vlids_free(struct vlids *l);
/* The vports of s up (ARMED or ACTIVE, managed) with a LID of their own
 * (not their physical port's), over f. */
void vlids_from_set(struct vlids *l, const struct vport_set *s,
    const struct fabric *f);
bool vlids_equal(const struct vlids *a, const struct vlids *b);
/* Lines "VPORTGUID LID HOSTGUID" (hex GUIDs, decimal LID), '#' comments.
 * load: 0 (a missing file is empty), -1 with why; lines that do not
 * parse are skipped and counted in *bad. save: 0, or -1 with errno. */
int vlids_load(struct vlids *l, const char *path, unsigned *bad, char *why,
    size_t whylen);
int vlids_save(const struct vlids *l, const char *path);
/* Forward each remembered LID as its host's on every switch of lft (grown
 * as needed): skipped when the host is not an end port of f with a LID, or
 * when the LID is an end port's of f. Returns the LIDs forwarded; -1 when
 * out of memory. */
long vlids_apply(const struct vlids *l, const struct fabric *f,
    struct lft_set *lft);

#endif
