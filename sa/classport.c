/*
 * ClassPortInfo (attribute 0x0001), Get only: what this SA supports and
 * how long a client should wait for it. CapabilityMask names only what is
 * served: it follows the attribute list (sa/attrs.c).
 */
#include "autoconfig.h"

#include <string.h>

#include <infiniband/mad.h>

#include "mad/mad.h"
#include "mad/transport.h"
#include "sa/attr.h"

#define CLASSPORT_SIZE 72

/* CapabilityMask bits (IBA 15.2.5.1, OpenSM include/opensm/osm_base.h). */
#define CAP_UD_MCAST            (1u << 9)
#define CAP_MULTIPATH           (1u << 10)
#define CAP_PORTINFO_CAPMASK    (1u << 13)
/* CapabilityMask2: SendOnlyFullMember joins; IsAdditionalGUIDsSupported
 * (alias GUIDs through GUIDInfoRecord Set and Delete);
 * IsMulticastFDBTopSupported (sm/mcast programs SwitchInfo's
 * MulticastFDBTop wherever a switch has one, so SwitchInfoRecords carry
 * it: saquery shows the field only with this bit). */
#define CAP2_SEND_ONLY_FULL     (1u << 12)
#define CAP2_ADDITIONAL_GUIDS   (1u << 5)
#define CAP2_MCAST_FDB_TOP      (1u << 3)

static uint16_t
capmask(void)
{
	uint16_t m = 0;

	if (sa_attr_find(SA_ATTR_MCMEMBER_REC) != NULL)
		m |= CAP_UD_MCAST;
	if (sa_attr_find(SA_ATTR_MULTIPATH_REC) != NULL)
		m |= CAP_MULTIPATH;
	/* PortInfoRecord matches CapabilityMask as a bit set (saquery -s). */
	if (sa_attr_find(SA_ATTR_PORTINFO_REC) != NULL)
		m |= CAP_PORTINFO_CAPMASK;
	return m;
}

static unsigned
classport_get(const struct sa_ctx *c, const struct sa_req *q,
    struct sa_out *out)
{
	uint8_t *r;

	if (q->method != MAD_GET)
		return SA_STATUS_METHOD_ATTR_UNSUPP;
	r = sa_out_add(out);
	mad_set_field(r, 0, IB_CPI_BASEVER_F, MAD_BASE_VERSION);
	mad_set_field(r, 0, IB_CPI_CLASSVER_F, SA_CLASS_VERSION);
	mad_set_field(r, 0, IB_CPI_CAPMASK_F, capmask());
	mad_set_field(r, 0, IB_CPI_CAPMASK2_F,
	    (sa_attr_find(SA_ATTR_MCMEMBER_REC) != NULL ? CAP2_SEND_ONLY_FULL |
	    CAP2_MCAST_FDB_TOP : 0) | (c->v->alias != NULL ?
	    CAP2_ADDITIONAL_GUIDS : 0));
	mad_set_field(r, 0, IB_CPI_RESP_TIME_VALUE_F,
	    sa_resp_time_value(c->sa));
	/* Not redirected: QP1 with its well-known Q_Key, as OpenSM says;
	 * Reports come from QP1 with that Q_Key too. */
	mad_set_field(r, 0, IB_CPI_REDIRECT_QP_F, 1);
	mad_set_field(r, 0, IB_CPI_REDIRECT_QKEY_F, TRANSPORT_QKEY_GSI);
	mad_set_field(r, 0, IB_CPI_TRAP_QKEY_F, TRANSPORT_QKEY_GSI);
	return SA_STATUS_OK;
}

const struct sa_attr sa_attr_classport = {
	.id = SA_ATTR_CLASS_PORT_INFO,
	.name = "ClassPortInfo",
	.rec_size = CLASSPORT_SIZE,
	.get = classport_get,
};
