/*
 * The SA's read-only records computed from the view (sa/records.c) and
 * ClassPortInfo (sa/classport.c): one const struct sa_attr each, listed in
 * sa/attrs.c. Record layouts and component numbers are IBA 15.2.5's (as
 * OpenSM's include/iba/ib_types.h has them).
 */
#ifndef IBSMD_SA_RECORDS_H
#define IBSMD_SA_RECORDS_H

#include "sa/attr.h"

extern const struct sa_attr sa_attr_classport;
extern const struct sa_attr sa_attr_node;
extern const struct sa_attr sa_attr_portinfo;
extern const struct sa_attr sa_attr_sminfo;
extern const struct sa_attr sa_attr_link;
extern const struct sa_attr sa_attr_switchinfo;
extern const struct sa_attr sa_attr_lft;
extern const struct sa_attr sa_attr_mft;
extern const struct sa_attr sa_attr_pkey;
/* sa/vlrec.c: the tables the devices hold (sa_view.devtab) */
extern const struct sa_attr sa_attr_sl2vl;
extern const struct sa_attr sa_attr_vlarb;

/* Record sizes in bytes (a multiple of 8: the AttributeOffset unit). */
#define SA_NODE_REC_SIZE        112
#define SA_PORTINFO_REC_SIZE    72
#define SA_SMINFO_REC_SIZE      32
#define SA_LINK_REC_SIZE        8
#define SA_SWITCHINFO_REC_SIZE  24
#define SA_LFT_REC_SIZE         72
#define SA_MFT_REC_SIZE         72
#define SA_PKEY_REC_SIZE        72
#define SA_GUIDINFO_REC_SIZE    72
#define SA_SL2VL_REC_SIZE       16
#define SA_VLARB_REC_SIZE       72

#endif
