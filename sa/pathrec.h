/*
 * The PathRecord (IBA 15.2.5.16, 64 bytes) and the fixed part of the
 * MultiPathRecord (15.2.5.20, 24 bytes, then SGIDCount + DGIDCount GIDs):
 * their byte layout, component mask bits, and the rate, MTU and
 * selector codes they carry. libibmad has field ids for DGID, SGID, DLID,
 * SLID, NumbPath and SL only; everything else is encoded here by hand,
 * in this one place. Values are in host order. Pure.
 */
#ifndef IBSMD_SA_PATHREC_H
#define IBSMD_SA_PATHREC_H

#include <stdbool.h>
#include <stdint.h>

#define SA_PATH_REC_SIZE        64
#define SA_MPATH_FIXED_SIZE     24      /* GIDs follow */

/* PathRecord component mask bits. */
enum {
	PR_CM_SERVICE_ID_MSB = 1 << 0, PR_CM_SERVICE_ID_LSB = 1 << 1,
	PR_CM_DGID = 1 << 2, PR_CM_SGID = 1 << 3,
	PR_CM_DLID = 1 << 4, PR_CM_SLID = 1 << 5,
	PR_CM_RAW = 1 << 6, PR_CM_FLOW_LABEL = 1 << 8,
	PR_CM_HOP_LIMIT = 1 << 9, PR_CM_TCLASS = 1 << 10,
	PR_CM_REVERSIBLE = 1 << 11, PR_CM_NUMB_PATH = 1 << 12,
	PR_CM_PKEY = 1 << 13, PR_CM_QOS_CLASS = 1 << 14, PR_CM_SL = 1 << 15,
	PR_CM_MTU_SEL = 1 << 16, PR_CM_MTU = 1 << 17,
	PR_CM_RATE_SEL = 1 << 18, PR_CM_RATE = 1 << 19,
	PR_CM_LIFE_SEL = 1 << 20, PR_CM_LIFE = 1 << 21,
};
#define PR_CM_SERVICE_ID (PR_CM_SERVICE_ID_MSB | PR_CM_SERVICE_ID_LSB)

/* MultiPathRecord component mask bits. */
enum {
	MPR_CM_RAW = 1 << 0, MPR_CM_FLOW_LABEL = 1 << 2,
	MPR_CM_HOP_LIMIT = 1 << 3, MPR_CM_TCLASS = 1 << 4,
	MPR_CM_REVERSIBLE = 1 << 5, MPR_CM_NUMB_PATH = 1 << 6,
	MPR_CM_PKEY = 1 << 7, MPR_CM_QOS_CLASS = 1 << 8, MPR_CM_SL = 1 << 9,
	MPR_CM_MTU_SEL = 1 << 10, MPR_CM_MTU = 1 << 11,
	MPR_CM_RATE_SEL = 1 << 12, MPR_CM_RATE = 1 << 13,
	MPR_CM_LIFE_SEL = 1 << 14, MPR_CM_LIFE = 1 << 15,
	MPR_CM_SERVICE_ID_MSB = 1 << 16, MPR_CM_INDEP_SEL = 1 << 17,
	MPR_CM_SGID_COUNT = 1 << 19, MPR_CM_DGID_COUNT = 1 << 20,
	MPR_CM_SERVICE_ID_LSB = 1 << 21,
};
#define MPR_CM_SERVICE_ID (MPR_CM_SERVICE_ID_MSB | MPR_CM_SERVICE_ID_LSB)

/* Selectors of MTU, rate and PacketLifeTime. */
enum { SA_SEL_GT = 0, SA_SEL_LT = 1, SA_SEL_EQ = 2, SA_SEL_BEST = 3 };

struct sa_path {
	uint64_t service_id;
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid;
	bool raw;               /* RawTraffic */
	uint32_t flow_label;    /* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t numb_path;      /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class;     /* 12 bits */
	uint8_t sl;             /* 4 bits */
	uint8_t mtu_sel, mtu;   /* 2 bits, 6 bits: IBA MTU code */
	uint8_t rate_sel, rate; /* 2 bits, 6 bits: IBA rate code */
	uint8_t life_sel, life; /* 2 bits, 6 bits */
	uint8_t preference;
};

/* rec is SA_PATH_REC_SIZE bytes. encode writes every byte (reserved 0). */
void sa_path_decode(const uint8_t *rec, struct sa_path *p);
void sa_path_encode(const struct sa_path *p, uint8_t *rec);

/* The fixed part of a MultiPathRecord; GID i (sources first, then
 * destinations) is at byte SA_MPATH_FIXED_SIZE + 16 * i. */
struct sa_mpath {
	uint64_t service_id;    /* ServiceID8MSB and ServiceID56LSB */
	bool raw;
	uint32_t flow_label;
	uint8_t hop_limit, tclass;
	bool reversible;
	uint8_t numb_path;
	uint16_t pkey, qos_class;
	uint8_t sl;
	uint8_t mtu_sel, mtu, rate_sel, rate, life_sel, life;
	uint8_t independence;   /* IndependenceSelector, 2 bits */
	uint8_t sgid_count, dgid_count;
};
void sa_mpath_decode(const uint8_t *rec, struct sa_mpath *m);
void sa_mpath_encode(const struct sa_mpath *m, uint8_t *rec);

/* A MultiPathRecord's request as the PathRecord it asks for: the fields
 * both records have, and the PathRecord mask bits of the MultiPathRecord
 * mask's components. */
void sa_mpath_to_path(const struct sa_mpath *m, uint64_t mpr_mask,
    struct sa_path *p, uint64_t *pr_mask);

/*
 * IBA rate codes (2 = 2.5 Gb/s, 3 = 10, 4 = 30, 5 = 5, 6 = 20, 7 = 40,
 * 8 = 60, 9 = 80, 10 = 120, 11 = 14, 12 = 56, 13 = 112, 14 = 168, 15 = 25,
 * 16 = 100, 17 = 200, 18 = 300, 19 = 28, 20 = 50, 21 = 400, 22 = 600,
 * 23 = 800, 24 = 1200). They are not in order of speed, so rates are
 * compared through their Mb/s.
 */
/* Mb/s of a rate code, 0 for a code IBA does not define. */
unsigned sa_rate_mbps(unsigned code);
/* The code of the fastest defined rate not above mbps, 0 if none. */
unsigned sa_rate_code(unsigned mbps);
/* The code of the fastest defined rate slower than code, 0 if none. */
unsigned sa_rate_prev(unsigned code);
bool sa_mtu_valid(unsigned code);       /* 1 (256) .. 5 (4096) */

#endif
