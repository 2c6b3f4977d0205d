/*
 * M_Keys (IBA 14.2.4): the key each port is given, and how a key is shown.
 *
 * One key for the subnet (m_key), or with m_key_per_port a key per port,
 * derived from the configured secret and the port GUID by a keyed hash
 * (SipHash-2-4, a pseudo-random function of its 128-bit key): every SM
 * with the same configuration derives the same keys, nothing is stored,
 * and one port's key (or many) tells nothing of another's nor of the
 * secret. The port a key protects is the managed port: a CA or router
 * port, or a switch as a whole (its port 0).
 *
 * Keys are secrets: logs and ibsmctl show them only through key_text().
 */
#ifndef IBSMD_CORE_MKEY_H
#define IBSMD_CORE_MKEY_H

#include <stddef.h>
#include <stdint.h>

/* SipHash-2-4 of len bytes under the 16-byte key k (the reference
 * algorithm; k as bytes, little-endian words, as its authors define). */
uint64_t siphash24(const uint8_t k[16], const void *data, size_t len);

/* The M_Key of the managed port guid under secret (never 0: a derived 0
 * becomes 1, since 0 means no key). */
uint64_t mkey_derive(uint64_t secret, uint64_t port_guid);

/* The key written to a managed port: the secret's derivation with
 * per_port, else the subnet key itself (0: none). */
static inline uint64_t
mkey_for_port(uint64_t key, int per_port, uint64_t port_guid)
{
	return key != 0 && per_port ? mkey_derive(key, port_guid) : key;
}

/* ---------------------------------------------------------------- */
/* Which port holds which key, in a fabric model (core/fabric.h) */

struct fabric;
struct dr_path;

struct mkey_cfg {
	uint64_t key;           /* m_key: the subnet's key, or the secret */
	int per_port;           /* m_key_per_port */
	int takeover;           /* m_key_takeover: ports holding another
				 * key are taken once it can be read */
};

/* The managed port of port p: p for a CA or router port, port 0 of a
 * switch (a switch's M_Key is its port 0's). */
uint32_t mkey_managed(const struct fabric *f, uint32_t p);

/* The GUID a managed port's key derives from: a CA or router port's GUID,
 * a switch's port-0 GUID as its NodeInfo says (0: not known yet). */
uint64_t mkey_managed_guid(const struct fabric *f, uint32_t mp);

/* The key this SM gives managed port mp (0: none, or GUID not known). */
uint64_t mkey_desired(const struct mkey_cfg *c, const struct fabric *f,
    uint32_t mp);

/* The port a directed route from the SM's port arrives at in f, or
 * FABRIC_NONE where f does not know the whole way. */
uint32_t mkey_port_by_path(const struct fabric *f, const struct dr_path *p);

/* The key to present to managed port mp of f: the key it was last seen
 * holding (its PortInfo as read shows it, and it is not another SM's we
 * leave alone), else the one we give it. 0: none known. */
uint64_t mkey_present(const struct mkey_cfg *c, const struct fabric *f,
    uint32_t mp);

/* The key to present to managed port mp of the model being read (fresh),
 * the model in use (cur, NULL: none) knowing what it held: fresh's
 * PortInfo once read, else cur's of the same node and port, else ours. */
uint64_t mkey_presented(const struct mkey_cfg *c, const struct fabric *fresh,
    const struct fabric *cur, uint32_t mp);
/* What it presents before fresh has read mp's PortInfo (that read's own
 * key): cur's knowledge of the port, else ours. */
uint64_t mkey_before_read(const struct mkey_cfg *c, const struct fabric *fresh,
    const struct fabric *cur, uint32_t mp);

/* What a PortInfo read through managed port mp's key check says of its
 * key, sent is the M_Key the Get presented: */
enum mkey_seen {
	MKEY_OURS,              /* it holds what we give it, or no key, or a
				 * key we presented (ours of before) */
	MKEY_HIDDEN,            /* protected and our key was wrong: another
				 * SM's, or a lost secret (protection shown
				 * with M_Key 0) */
	MKEY_OTHER,             /* readable (protection 0, e.g. a lease ran
				 * out) but another key than ours */
};
enum mkey_seen mkey_classify(const struct mkey_cfg *c, const struct fabric *f,
    uint32_t mp, const uint8_t *portinfo, uint64_t sent);

/* Trap 256, Bad M_Key (IBA 14.2.5.1, Notice): the Notice attribute's
 * data as received. The data details' layout (libibmad has no fields for
 * it) is OpenSM's include/iba/ib_types.h ntc_256, by byte offset in the
 * Notice: LIDADDR 12, DRSLID 14, Method 16, AttributeID 18,
 * AttributeModifier 20, M_Key 24, DR notice/truncated/hop count 33,
 * return path 34-63; the issuer's LID at 6. (An SMP's 64 data bytes end
 * before the Notice's IssuerGID.) */
#define MKEY_TRAP_BAD_MKEY 256
struct mkey_trap {
	uint16_t issuer;        /* the port whose key was wrong (its LID) */
	uint16_t lid;           /* LIDADDR: the requester's */
	uint16_t dr_slid;
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	uint64_t mkey;          /* the key the requester presented */
	uint8_t dr;             /* the request was directed route */
	uint8_t truncated;      /* its return path did not fit */
	uint8_t hops;
};
/* notice: the Notice attribute's first 64 bytes. 0, or -1 when it is not
 * trap 256. */
int mkey_trap_decode(const uint8_t *notice, struct mkey_trap *t);

/* A key as logs show it: "none" for 0, else its last 16 bits only
 * ("0x...1a2b"), enough to tell two keys apart in an operator's eyes and
 * useless to an attacker. */
#define KEY_TEXT_LEN 16
const char *key_text(uint64_t key, char buf[KEY_TEXT_LEN]);

#endif
