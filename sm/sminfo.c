#include "sm/sminfo.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"

struct sminfo {
	struct mad_engine *mad;
	uint8_t priority;
	enum sm_state state;
	sminfo_trap_cb cb;
	void *arg;
	uint64_t traps;
};

/* MAD status "method/attribute combination not supported". */
#define STATUS_UNSUP_ATTR 0x000C

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

static void
answer_sminfo(struct sminfo *s, uint8_t *m, uint16_t slid)
{
	uint8_t *d = m + SMP_DATA_OFFSET;

	memset(d, 0, SMP_DATA_SIZE);
	mad_set_field64(d, 0, IB_SMINFO_GUID_F, mad_engine_port_guid(s->mad));
	mad_set_field64(d, 0, IB_SMINFO_KEY_F, 0);
	/* ActCount must keep growing while we work: SMPs sent does. */
	mad_set_field(d, 0, IB_SMINFO_ACT_F, (uint32_t)mad_total_sent(s->mad));
	mad_set_field(d, 0, IB_SMINFO_PRIO_F, s->priority);
	mad_set_field(d, 0, IB_SMINFO_STATE_F, s->state);
	make_response(m, 0);
	reply(s, m, slid);
}

static void
handle_trap(struct sminfo *s, uint8_t *m, uint16_t slid)
{
	const uint8_t *d = m + SMP_DATA_OFFSET;
	unsigned trap = hdr(d, IB_NOTICE_TRAP_NUMBER_F);
	uint16_t issuer = (uint16_t)hdr(d, IB_NOTICE_ISSUER_LID_F);

	s->traps++;
	log_info("trap %u from LID %u (issuer LID %u)", trap, slid, issuer);
	/* Hardware repeats a trap until it is repressed. */
	mad_set_method(m, MAD_TRAPREPRESS);
	if (slid != 0)
		reply(s, m, slid);
	s->cb(s->arg, trap, issuer);
}

/* The unsolicited SMPs handled here, on both SM classes: Get and Set of
 * attributes other than SMInfo are answered "unsupported". */
static const struct {
	uint8_t method;
	uint32_t attr;
} listens[] = {
	{ MAD_GET, ATTR_SM_INFO }, { MAD_SET, ATTR_SM_INFO },
	{ MAD_TRAP, ATTR_NOTICE },
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
			answer_sminfo(s, m, slid);
			return;
		}
		break;
	case MAD_SET:
		/* Handover and friends come with HA; until then a Set gets
		 * our SMInfo back, unchanged. */
		if (attr == ATTR_SM_INFO) {
			answer_sminfo(s, m, slid);
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
sminfo_new(struct mad_engine *mad, uint8_t priority, sminfo_trap_cb cb,
    void *arg)
{
	struct sminfo *s = calloc(1, sizeof(*s));

	if (s == NULL)
		fatal("sminfo: out of memory");
	s->mad = mad;
	s->priority = priority;
	s->state = SM_DISCOVERING;
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
sminfo_set_state(struct sminfo *s, enum sm_state state)
{
	if (s->state != state)
		log_info("sm: state %s -> %s", sminfo_state_name(s->state),
		    sminfo_state_name(state));
	s->state = state;
}

void
sminfo_set_priority(struct sminfo *s, uint8_t priority)
{
	s->priority = priority;
}

enum sm_state
sminfo_state(const struct sminfo *s)
{
	return s->state;
}

uint8_t
sminfo_priority(const struct sminfo *s)
{
	return s->priority;
}

uint64_t
sminfo_traps(const struct sminfo *s)
{
	return s->traps;
}

const char *
sminfo_state_name(enum sm_state state)
{
	switch (state) {
	case SM_NOTACTIVE: return "NOTACTIVE";
	case SM_DISCOVERING: return "DISCOVERING";
	case SM_STANDBY: return "STANDBY";
	case SM_MASTER: return "MASTER";
	}
	return "?";
}
