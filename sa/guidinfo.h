/*
 * GUIDInfoRecord (SA attribute 0x30): LID (16 bits), BlockNum (8),
 * reserved (8), reserved (32), then 8 GUIDs. Component mask: 0 LID,
 * 1 BlockNum, 2-3 reserved, 4+i GUID i.
 *
 * Get and GetTable report what each end port's GUIDInfo table holds as
 * the SM last read it (the store's device blocks), else index 0 only (the
 * port GUID). Set and Delete (virtualization.mode enabled: the view has an
 * alias store) assign and release VF alias GUIDs the way mlx4 hosts ask
 * for them: mask LID | BlockNum | GUIDi; a GUID of 0 asks the SM to pick.
 * The reply carries the block as assigned (0 where refused); the view's
 * alias_changed hook then has sm/ program the device. Index 0 of block 0
 * can never be set or deleted (REQ_INVALID). As OpenSM: a requester that
 * shares no partition with the port gets no answer.
 */
#ifndef IBSMD_SA_GUIDINFO_H
#define IBSMD_SA_GUIDINFO_H

#include "sa/attr.h"

extern const struct sa_attr sa_attr_guidinfo;

#define SA_GUIDINFO_COMP_LID    0
#define SA_GUIDINFO_COMP_BLOCK  1
#define SA_GUIDINFO_COMP_GUID0  4       /* + i for GUID i */

#endif
