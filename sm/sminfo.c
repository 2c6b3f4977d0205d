#include "sm/sminfo.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/smstate.h"

struct sminfo {
	struct mad_engine *mad;
	struct smstate *ss;
	uint64_t mkey;
	sminfo_trap_cb cb;
	void *arg;
	sminfo_notice_cb notice_cb;
	void *notice_arg;
	struct sminfo_counters c;
};

/* MAD status "method/attribute combination not supported". */
#define STATUS_UNSUP_ATTR 0x000C
/* MAD status "invalid value in attribute or modifier" (also an illegal
 * SM state change). */
#define STATUS_BAD_VALUE  0x001C
#define TRAP_SM_LOCAL_CHANGES 144
#define CAP_IS_SM         0x00000002u

static uint32_t
hdr(const uint8_t *mad, enum MAD_FIELDS f)
{
	return mad_get_field((void *)mad, 0, f);
}

/* Turn a received request into its response in place: GetResp, and for
 * directed route the D bit; hop fields and paths stay as they came. */
static void
make_response(uint8_t *m, uint16_t status)
{
	bool dr = hdr(m, IB_MAD_MGMTCLASS_F) == MGMT_CLASS_SMP_DR;

	mad_set_method(m, MAD_GETRESP);
	if (dr) {
		mad_set_field(m, 0, IB_DRSMP_STATUS_F, status);
		mad_set_field(m, 0, IB_DRSMP_DIRECTION_F, 1);
	} else {
		mad_set_field(m, 0, IB_MAD_STATUS_F, status);
	}
}

static void
reply(struct sminfo *s, uint8_t *m, uint16_t slid)
{
	bool dr = hdr(m, IB_MAD_MGMTCLASS_F) == MGMT_CLASS_SMP_DR;

	if (smp_reply(s->mad, m, dr ? 0xFFFF : slid) < 0)
		log_debug("sminfo: reply to LID %u not sent", slid);
}

/* The requester knows the SM_Key, or passes the port's M_Key check. */
static bool
authenticated(const struct sminfo *s, const uint8_t *m)
{
	uint64_t key = smstate_key(s->ss);

	return key == 0 ||
	    mad_get_field64((void *)(m + SMP_DATA_OFFSET), 0,
	    IB_SMINFO_KEY_F) == key ||
	    mad_get_field64((void *)m, 0, IB_MAD_MKEY_F) == s->mkey;
}

static void
answer_sminfo(struct sminfo *s, uint8_t *m, uint16_t slid, uint16_t status,
    bool with_key)
{
	smstate_encode(s->ss, m + SMP_DATA_OFFSET, with_key);
	make_response(m, status);
	reply(s, m, slid);
}

static const char *
from(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64, mad_get_field64((void *)(m +
	    SMP_DATA_OFFSET), 0, IB_SMINFO_GUID_F));
	return buf;
}

/* HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER: the key first, then
 * whether the state machine takes it; the answer carries our state before
 * the change. */
static void
set_sminfo(struct sminfo *s, uint8_t *m, uint16_t slid)
{
	uint8_t smi[SMP_DATA_SIZE];
	unsigned mod = hdr(m, IB_MAD_ATTRMOD_F);
	char g[24];

	memcpy(smi, m + SMP_DATA_OFFSET, sizeof(smi));
	if (mad_get_field64(smi, 0, IB_SMINFO_KEY_F) != smstate_key(s->ss)) {
		s->c.bad_key++;
		log_warnx("sminfo: SMInfo Set (modifier %u) from %s with a "
		    "wrong SM_Key refused", mod, from(m, g, sizeof(g)));
		answer_sminfo(s, m, slid, STATUS_BAD_VALUE, false);
		return;
	}
	if (!smstate_signal_ok(s->ss, mod, smi)) {
		s->c.refused++;
		log_info("sminfo: SMInfo Set (modifier %u) from %s (state %u) "
		    "refused in state %s", mod, from(m, g, sizeof(g)),
		    (unsigned)mad_get_field(smi, 0, IB_SMINFO_STATE_F),
		    smstate_detail(s->ss));
		answer_sminfo(s, m, slid, STATUS_BAD_VALUE, true);
		return;
	}
	s->c.sets++;
	answer_sminfo(s, m, slid, 0, true);
	smstate_signal(s->ss, mod, smi);
}

static void
handle_trap(struct sminfo *s, uint8_t *m, uint16_t slid)
{
	const uint8_t *d = m + SMP_DATA_OFFSET;
	unsigned trap = hdr(d, IB_NOTICE_TRAP_NUMBER_F);
	uint16_t issuer = (uint16_t)hdr(d, IB_NOTICE_ISSUER_LID_F);

	s->c.traps++;
	log_debug("sminfo: trap %u from LID %u (issuer LID %u)", trap, slid,
	    issuer);
	/* An SM telling us of itself (a standby above us, a master waiting
	 * for our HANDOVER): the next election asks it. */
	if (trap == TRAP_SM_LOCAL_CHANGES &&
	    (hdr(d, IB_NOTICE_DATA_144_CAPMASK_F) & CAP_IS_SM))
		smstate_note_sm(s->ss, issuer);
	/* Hardware repeats a trap until it is repressed; the TrapRepress
	 * passes the port's M_Key check like any SMP (a wrong key is a
	 * violation: a trap 256, repressed wrongly again...). */
	mad_set_method(m, MAD_TRAPREPRESS);
	if (slid != 0) {
		struct smp_req to = { .dlid = slid };

		/* not where our key would be wrong: an unrepressed trap
		 * comes again now and then, a wrongly repressed one at
		 * once, with a trap 256 */
		if (smp_mkey_known(&to)) {
			mad_set_field64(m, 0, IB_MAD_MKEY_F,
			    smp_mkey_for(&to));
			reply(s, m, slid);
		}
	}
	s->cb(s->arg, trap, issuer);
	if (s->notice_cb != NULL)
		s->notice_cb(s->notice_arg, d, slid);
}

void
sminfo_set_notice_cb(struct sminfo *s, sminfo_notice_cb cb, void *arg)
{
	s->notice_cb = cb;
	s->notice_arg = arg;
}

/* The unsolicited SMPs handled here, on both SM classes: SMInfo Get and
 * Set, traps and the TrapRepress of a trap (dropped); Get and Set of other
 * attributes are answered "unsupported". */
static const struct {
	uint8_t method;
	uint32_t attr;
} listens[] = {
	{ MAD_GET, ATTR_SM_INFO }, { MAD_SET, ATTR_SM_INFO },
	{ MAD_TRAP, ATTR_NOTICE }, { MAD_TRAPREPRESS, ATTR_NOTICE },
	{ MAD_GET, MAD_ATTR_ANY }, { MAD_SET, MAD_ATTR_ANY },
};

static void
listen_all(struct sminfo *s, mad_listen_cb cb)
{
	static const uint8_t classes[] = { MGMT_CLASS_SMP_LID,
	    MGMT_CLASS_SMP_DR };

	size_t c, i;

	for (c = 0; c < sizeof(classes); c++)
		for (i = 0; i < sizeof(listens) / sizeof(listens[0]); i++)
			mad_listen(s->mad, classes[c], listens[i].method,
			    listens[i].attr, cb, s);
}

/* The receive entry point: every unsolicited SMP listened for above. */
static void
unsolicited(void *arg, const struct transport_rx *rx)
{
	struct sminfo *s = arg;
	const uint8_t *mad = rx->mad;
	uint16_t slid = rx->from.lid;
	uint8_t m[256];
	unsigned method = mad_method_of(mad);
	unsigned attr = hdr(mad, IB_MAD_ATTRID_F);

	memcpy(m, mad, sizeof(m));
	switch (method) {
	case MAD_GET:
		if (attr == ATTR_SM_INFO) {
			s->c.gets++;
			answer_sminfo(s, m, slid, 0, authenticated(s, m));
			return;
		}
		break;
	case MAD_SET:
		if (attr == ATTR_SM_INFO) {
			set_sminfo(s, m, slid);
			return;
		}
		break;
	case MAD_TRAP:
		if (attr == ATTR_NOTICE) {
			handle_trap(s, m, slid);
			return;
		}
		log_debug("sminfo: trap with attribute 0x%04x dropped", attr);
		return;
	case MAD_TRAPREPRESS:
		return;
	default:
		log_debug("sminfo: unsolicited method 0x%02x dropped", method);
		return;
	}
	make_response(m, STATUS_UNSUP_ATTR);
	reply(s, m, slid);
}

struct sminfo *
sminfo_new(struct mad_engine *mad, struct smstate *ss, sminfo_trap_cb cb,
    void *arg)
{
	struct sminfo *s = xcalloc(1, sizeof(*s));

	s->mad = mad;
	s->ss = ss;
	s->cb = cb;
	s->arg = arg;
	listen_all(s, unsolicited);
	return s;
}

void
sminfo_free(struct sminfo *s)
{
	if (s == NULL)
		return;
	listen_all(s, NULL);
	free(s);
}

void
sminfo_set_mkey(struct sminfo *s, uint64_t mkey)
{
	s->mkey = mkey;
}

void
sminfo_get_counters(const struct sminfo *s, struct sminfo_counters *c)
{
	*c = s->c;
}

uint64_t
sminfo_traps(const struct sminfo *s)
{
	return s->c.traps;
}
