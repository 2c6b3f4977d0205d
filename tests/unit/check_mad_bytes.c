/*
 * mad/: what needs no engine running: method, class and attribute names,
 * MAD statuses as log lines say them, and the header fields the engine and
 * the SMP client code by byte offset (checked against libibmad's field
 * ids). The engine's own behaviour: check_mad.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/mad.h>

#include "mad/mad.h"
#include "mad/smp.h"

START_TEST(test_names)
{
	ck_assert_str_eq(mad_method_name(MAD_GET), "Get");
	ck_assert_str_eq(mad_method_name(MAD_SET), "Set");
	ck_assert_str_eq(mad_method_name(MAD_GETRESP), "GetResp");
	ck_assert_str_eq(mad_method_name(MAD_TRAP), "Trap");
	ck_assert_str_eq(mad_method_name(MAD_TRAPREPRESS), "TrapRepress");
	ck_assert_str_eq(mad_method_name(MAD_GETTABLE), "GetTable");
	ck_assert_str_eq(mad_method_name(MAD_GETTABLERESP), "GetTableResp");
	ck_assert_str_eq(mad_method_name(0x33), "0x33");
	ck_assert_str_eq(mad_class_name(0x01), "smp");
	ck_assert_str_eq(mad_class_name(0x81), "smp");
	ck_assert_str_eq(mad_class_name(0x03), "sa");
	ck_assert_str_eq(mad_class_name(0x04), "perf");
	ck_assert_str_eq(mad_class_name(0x0A), "0x0a");
	for (int c = 0; c < 2; c++) {
		uint8_t k = c ? MGMT_CLASS_SMP_DR : MGMT_CLASS_SMP_LID;

		ck_assert_str_eq(mad_attr_name(k, ATTR_NOTICE), "Notice");
		ck_assert_str_eq(mad_attr_name(k, ATTR_NODE_DESC),
		    "NodeDescription");
		ck_assert_str_eq(mad_attr_name(k, ATTR_NODE_INFO), "NodeInfo");
		ck_assert_str_eq(mad_attr_name(k, ATTR_SWITCH_INFO),
		    "SwitchInfo");
		ck_assert_str_eq(mad_attr_name(k, ATTR_GUID_INFO), "GUIDInfo");
		ck_assert_str_eq(mad_attr_name(k, ATTR_PORT_INFO), "PortInfo");
		ck_assert_str_eq(mad_attr_name(k, ATTR_PKEY_TABLE),
		    "P_KeyTable");
		ck_assert_str_eq(mad_attr_name(k, ATTR_SL2VL),
		    "SLtoVLMappingTable");
		ck_assert_str_eq(mad_attr_name(k, ATTR_VL_ARB),
		    "VLArbitrationTable");
		ck_assert_str_eq(mad_attr_name(k, ATTR_LFT),
		    "LinearForwardingTable");
		ck_assert_str_eq(mad_attr_name(k, ATTR_MFT),
		    "MulticastForwardingTable");
		ck_assert_str_eq(mad_attr_name(k, ATTR_SM_INFO), "SMInfo");
		ck_assert_str_eq(mad_attr_name(k, 0xFF10), "0xff10");
		ck_assert_str_eq(mad_attr_name(k, 0x0001), "0x0001");
	}
	/* the same numbers name other things in other classes */
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_SA, 0x11), "NodeRecord");
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_SA, 0x35), "PathRecord");
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_SA, 0x01), "ClassPortInfo");
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_SA, 0x19), "0x0019");
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_PERF, 0x01),
	    "ClassPortInfo");
	ck_assert_str_eq(mad_attr_name(MGMT_CLASS_PERF, 0x11), "0x0011");
}
END_TEST

/* Statuses in log lines: decoded, never a bare number. */
START_TEST(test_status_text)
{
	char b[128];

	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_LID, MAD_ETIMEDOUT, b,
	    sizeof(b)), "no answer");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_LID, MAD_ESEND, b,
	    sizeof(b)), "cannot send");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_LID, 0x0008, b,
	    sizeof(b)), "status 0x0008: method not supported");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_DR, 0x801c, b,
	    sizeof(b)), "status 0x001c: invalid value in the attribute or its "
	    "modifier");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_LID, 0x0c00, b,
	    sizeof(b)), "status 0x0c00: vendor or SMP class-specific code "
	    "0x0c");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SMP_LID, 0x0001, b,
	    sizeof(b)), "status 0x0001: busy");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SA, 0x0300, b, sizeof(b)),
	    "status 0x0300: ERR_NO_RECORDS");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SA, 0x0706, b, sizeof(b)),
	    "status 0x0706: redirect required, bad version, ERR_REQ_DENIED");
	ck_assert_str_eq(mad_status_text(MGMT_CLASS_SA, 0x000c, b, sizeof(b)),
	    "status 0x000c: method/attribute combination not supported");
}
END_TEST

/* The header fields the engine and the SMP client code by byte offset
 * (mad/mad.h MAD_OFF_*, mad/smp.h SMP_OFF_*) sit where libibmad's field
 * ids put them: each written one way is read back the other, with every
 * other byte left untouched. */
static void
hdr_field(enum MAD_FIELDS f, size_t off, size_t width, uint64_t v)
{
	uint8_t a[TRANSPORT_MAD_SIZE], b[TRANSPORT_MAD_SIZE];

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	if (width == 8)
		mad_set_field64(a, 0, f, v);
	else
		mad_set_field(a, 0, f, (uint32_t)v);
	switch (width) {
	case 1: b[off] = (uint8_t)v; break;
	case 2: mad_put_be16(b + off, (uint16_t)v); break;
	case 4: mad_put_be32(b + off, (uint32_t)v); break;
	case 8: mad_put_be64(b + off, v); break;
	}
	ck_assert_mem_eq(a, b, sizeof(a));
	switch (width) {
	case 1: ck_assert_uint_eq(a[off], v); break;
	case 2: ck_assert_uint_eq(mad_be16(a + off), v); break;
	case 4: ck_assert_uint_eq(mad_be32(a + off), v); break;
	case 8: ck_assert_uint_eq(mad_be64(a + off), v); break;
	}
}

START_TEST(test_hdr_offsets)
{
	uint8_t m[TRANSPORT_MAD_SIZE], path[64];
	unsigned i;

	hdr_field(IB_MAD_BASEVER_F, MAD_OFF_BASEVER, 1, 0xA5);
	hdr_field(IB_MAD_MGMTCLASS_F, MAD_OFF_CLASS, 1, 0x81);
	hdr_field(IB_MAD_CLASSVER_F, MAD_OFF_CLASSVER, 1, 0x5A);
	hdr_field(IB_MAD_STATUS_F, MAD_OFF_STATUS, 2, 0x8123);
	hdr_field(IB_MAD_TRID_F, MAD_OFF_TID, 8, 0x0102030405060708ULL);
	hdr_field(IB_MAD_ATTRID_F, MAD_OFF_ATTR, 2, 0xFF91);
	hdr_field(IB_MAD_ATTRMOD_F, MAD_OFF_MOD, 4, 0x80010203);
	hdr_field(IB_MAD_MKEY_F, SMP_OFF_MKEY, 8, 0xF1E2D3C4B5A69788ULL);
	hdr_field(IB_DRSMP_HOPPTR_F, SMP_OFF_HOPPTR, 1, 0x3C);
	hdr_field(IB_DRSMP_HOPCNT_F, SMP_OFF_HOPCNT, 1, 0x3F);
	hdr_field(IB_DRSMP_DRSLID_F, SMP_OFF_DRSLID, 2, 0xFFFF);
	hdr_field(IB_DRSMP_DRDLID_F, SMP_OFF_DRDLID, 2, 0xC001);
	/* the method byte: 7-bit method and the R bit */
	memset(m, 0, sizeof(m));
	mad_set_method(m, MAD_GETTABLERESP);
	ck_assert_uint_eq(mad_get_field(m, 0, IB_MAD_METHOD_F), 0x12);
	ck_assert_uint_eq(mad_get_field(m, 0, IB_MAD_RESPONSE_F), 1);
	mad_set_field(m, 0, IB_MAD_RESPONSE_F, 0);
	ck_assert_uint_eq(mad_method_of(m), 0x12);
	/* the D bit and the 15-bit status of a directed-route SMP */
	memset(m, 0, sizeof(m));
	mad_set_field(m, 0, IB_DRSMP_DIRECTION_F, 1);
	ck_assert_uint_eq(mad_be16(m + MAD_OFF_STATUS), SMP_DR_DIRECTION);
	mad_set_field(m, 0, IB_DRSMP_STATUS_F, 0x1234);
	ck_assert_uint_eq(mad_be16(m + MAD_OFF_STATUS),
	    SMP_DR_DIRECTION | 0x1234);
	/* the initial path */
	memset(m, 0, sizeof(m));
	for (i = 0; i < sizeof(path); i++)
		path[i] = (uint8_t)(i * 7 + 1);
	mad_set_array(m, 0, IB_DRSMP_PATH_F, path);
	ck_assert_mem_eq(m + SMP_OFF_INITPATH, path, sizeof(path));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mad_bytes");
	TCase *tc = tcase_create("bytes");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_status_text);
	tcase_add_test(tc, test_hdr_offsets);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
