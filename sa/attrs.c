/*
 * The attribute modules the SA serves (sa/attr.h), NULL-terminated. An
 * attribute absent here is dropped unanswered, as OpenSM does with those
 * it does not know; ClassPortInfo's CapabilityMask follows this list.
 */
#include "autoconfig.h"

#include <stddef.h>

#include "sa/attr.h"
#include "sa/guidinfo.h"
#include "sa/inform.h"
#include "sa/mcmember.h"
#include "sa/path.h"
#include "sa/records.h"
#include "sa/service.h"

const struct sa_attr *const sa_attrs[] = {
	&sa_attr_classport,
	&sa_attr_node,
	&sa_attr_portinfo,
	&sa_attr_sminfo,
	&sa_attr_link,
	&sa_attr_switchinfo,
	&sa_attr_lft,
	&sa_attr_mft,
	&sa_attr_pkey,
	&sa_attr_sl2vl,
	&sa_attr_vlarb,
	&sa_attr_guidinfo,
	&sa_attr_mcmember,
	&sa_attr_service,
	&sa_attr_inform,
	&sa_attr_inform_rec,
	&sa_attr_path_record,
	&sa_attr_multipath_record,
	NULL
};
