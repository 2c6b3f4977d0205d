/*
 * The vSwitch (vport) SMP attributes, 0xFFB0-0xFFB6: ids, byte layouts and
 * attribute modifiers, encoded and decoded here and nowhere else. They are
 * vendor-defined; the layouts follow the design note VIRTUALIZATION.md
 * (settled from NVIDIA's published headers, with the sources). What is
 * marked UNCONFIRMED there (the attribute modifiers, VPortPKeyTable's
 * layout, the traps) is marked so here, and guarded at run time in
 * sm/vports.c; a correction is one edit. Pure: bytes in, structs out.
 */
#ifndef IBSMD_VATTR_H
#define IBSMD_VATTR_H

#include <stdint.h>

enum {
	VATTR_VIRT_INFO = 0xFFB0,       /* VirtualizationInfo */
	VATTR_VPORT_INFO = 0xFFB1,
	VATTR_VNODE_INFO = 0xFFB2,
	VATTR_VPORT_STATE = 0xFFB3,
	VATTR_VNODE_DESC = 0xFFB4,
	VATTR_VPORT_GUIDS = 0xFFB5,     /* VPortGUIDInfo */
	VATTR_VPORT_PKEYS = 0xFFB6,     /* VPortPKeyTable */
};

/* PortInfo: CapabilityMask bit 15 says CapabilityMask2 is valid; its bit 2
 * says the port supports virtualization. */
#define VATTR_CAP_MASK2_VALID   (1u << 15)
#define VATTR_CAP2_VIRT         (1u << 2)

/* Vendor traps (Notice TrapNumber, producer a CA port). */
#define VATTR_TRAP_VPORT_CHANGE 1144    /* capability or description; the
					 * vport index in the details */
#define VATTR_TRAP_VPORT_STATE  1146    /* a vport state changed on the
					 * port whose LID the notice carries */

#define VATTR_STATES_PER_BLOCK  128
#define VATTR_GUIDS_PER_BLOCK   8
#define VATTR_PKEYS_PER_BLOCK   32
#define VATTR_DESC_LEN          64
#define VATTR_REVISION          0       /* the VirtualizationRevision we know */

/* VPortState values: PortState's (1 Down .. 4 Active, 0 no change). */

/* VirtualizationInfo byte 4 */
#define VATTR_VI_ENABLE         0x80
#define VATTR_VI_CLIENT_REREG   0x40    /* the SM sets */
#define VATTR_VI_STATE_CHANGE   0x20    /* a vport changed state; writing
					 * it set clears it */

struct vattr_virt_info {
	uint16_t vport_cap;             /* highest vport index */
	uint16_t index_top;             /* highest enabled vport index */
	uint8_t flags;                  /* VATTR_VI_* */
	uint8_t revision;
	uint8_t capmask;
};

/* VPortInfo byte 0, low nibble */
#define VATTR_VP_CLIENT_REREG   0x08
#define VATTR_VP_LID_REQUIRED   0x04

struct vattr_vport_info {
	uint8_t state;                  /* high nibble of byte 0 */
	uint8_t flags;                  /* VATTR_VP_* */
	uint8_t vguid_cap;
	uint16_t capmask;
	uint16_t pkey_violations, qkey_violations;
	uint16_t lid;                   /* VPortLID */
	uint16_t lid_by_index;          /* LIDByVPortIndex */
	uint64_t guid;                  /* VPortGUID */
	uint64_t profile;
};

struct vattr_vnode_info {
	uint16_t partition_cap;         /* VPartitionCap */
	uint8_t local_port;
	uint8_t num_ports;
	uint64_t guid;                  /* VNodeGUID */
};

void vattr_virt_info_decode(const uint8_t d[64], struct vattr_virt_info *v);
void vattr_virt_info_encode(const struct vattr_virt_info *v, uint8_t d[64]);
void vattr_vport_info_decode(const uint8_t d[64], struct vattr_vport_info *v);
void vattr_vport_info_encode(const struct vattr_vport_info *v, uint8_t d[64]);
void vattr_vnode_info_decode(const uint8_t d[64], struct vattr_vnode_info *v);
/* VPortState: entry k (0..127) of a block. */
unsigned vattr_vport_state(const uint8_t d[64], unsigned k);
void vattr_vport_state_put(uint8_t d[64], unsigned k, unsigned state);
void vattr_guids_decode(const uint8_t d[64], uint64_t g[8]);
void vattr_pkeys_decode(const uint8_t d[64], uint16_t k[32]);
void vattr_pkeys_encode(const uint16_t k[32], uint8_t d[64]);

/*
 * Attribute modifiers, UNCONFIRMED: the vport index for VPortInfo,
 * VNodeInfo and VNodeDescription; the block for VPortState and
 * VirtualizationInfo 0; vport << 16 | block for VPortGUIDInfo and
 * VPortPKeyTable (as a switch's P_KeyTable puts the port in the high half).
 */
uint32_t vattr_mod_vport(unsigned vport);
uint32_t vattr_mod_state_block(unsigned block);
uint32_t vattr_mod_vport_block(unsigned vport, unsigned block);

#endif
