/*
 * The desired state of a new model, built from the model, the policy and
 * the state in use, before the sweep programs it: the LID requests of its
 * end ports and vports, and the P_Key tables (with the programmer's view
 * of them and the managed vports' own tables). No I/O: what the policy
 * says goes to the caller's note function.
 */
#ifndef IBSMD_PLAN_H
#define IBSMD_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "core/alias.h"
#include "core/fabric.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "sm/lid.h"
#include "sm/program.h"

/* One LID request per end port of f, the SM's port first, then (virt_mode
 * not 0) one per vport of vs that wants a LID of its own; idx[i] is
 * request i's port, or f->nports + its vport index. Returns the count;
 * *reqsp and *idxp are the caller's to free. */
size_t plan_lid_requests(const struct fabric *f, const struct vport_set *vs,
    enum cfg_virt virt_mode, bool lmc_esp0, struct lid_req **reqsp,
    uint32_t **idxp);
/* Whether end port p takes one LID whatever the LMC (its request's
 * single): a switch's port 0, unless lmc_esp0 and the switch has an
 * enhanced port 0 (as OpenSM). vports take one LID each. */
bool plan_port_single(const struct fabric *f, uint32_t p, bool lmc_esp0);

struct plan_pkeys {
	const struct pkey_policy *policy;       /* NULL: leave P_Keys alone */
	const struct fabric *f;                 /* the model */
	struct vport_set *vps;                  /* its vports (their own
						 * tables are filled) */
	const struct vport_set *cur_vps;        /* the vports in use, NULL */
	const struct alias_store *alias;        /* VF alias GUIDs, NULL */
	struct pkey_tables *dev;                /* the tables the devices
						 * hold (read where none was
						 * programmed yet): sorted,
						 * used, then freed */
	const struct pkey_tables *cur;          /* the tables in use, NULL */
	bool allow_both;
	int enforce;                            /* sweep_opts.enforce */
	enum cfg_virt virt_mode;
	pkey_note_fn *note;
	void *note_arg;
	/* what a vport's keys do not fit (its VPartitionCap), said */
	void (*warn)(void *arg, const char *msg);
};

/* out: the P_Key tables for p->f (the previous ones keeping indices
 * stable), *want the programmer's view of them ([f->nports], NULL when
 * there is no policy), and each managed vport's own table. */
void plan_pkeys(const struct plan_pkeys *p, struct pkey_tables *out,
    struct pkey_want **want);

#endif
