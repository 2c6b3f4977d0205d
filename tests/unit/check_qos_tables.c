/*
 * core/qos: the option texts and the tables each port is to hold, against
 * OpenSM 3.3.23's rules (osm_qos.c, osm_port.c) and what it left on
 * ibsim's ports (tests/sim/qos_tables.sh compares whole fabrics).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/qos.h"
#include "tests/unit/testfab.h"

START_TEST(test_parse_vlarb)
{
	uint8_t b[2][QOS_VLARB_BLOCK_BYTES];
	const char *why;
	size_t at;

	ck_assert_int_eq(qos_parse_vlarb("0:4, 1:2 ,0x2:0x10", b, &at, &why),
	    0);
	ck_assert_int_eq(b[0][0], 0);
	ck_assert_int_eq(b[0][1], 4);
	ck_assert_int_eq(b[0][2], 1);
	ck_assert_int_eq(b[0][3], 2);
	ck_assert_int_eq(b[0][4], 2);
	ck_assert_int_eq(b[0][5], 16);
	ck_assert_int_eq(b[0][6], 0);
	ck_assert_int_eq(b[1][0], 0);
	/* OpenSM's default: 15 entries */
	ck_assert_int_eq(qos_parse_vlarb(QOS_DEFAULT_VLARB_LOW, b, &at, &why),
	    0);
	ck_assert_int_eq(b[0][28], 14);
	ck_assert_int_eq(b[0][29], 4);
	ck_assert_int_eq(b[0][30], 0);
	/* errors, with where */
	ck_assert_int_eq(qos_parse_vlarb("0:4,15:1", b, &at, &why), -1);
	ck_assert_uint_eq(at, 4);
	ck_assert_str_eq(why, "VL out of range (0 to 14)");
	ck_assert_int_eq(qos_parse_vlarb("0:256", b, &at, &why), -1);
	ck_assert_uint_eq(at, 2);
	ck_assert_int_eq(qos_parse_vlarb("0:4,1", b, &at, &why), -1);
	ck_assert_uint_eq(at, 5);
	ck_assert_int_eq(qos_parse_vlarb("0:4;1:2", b, &at, &why), -1);
	ck_assert_int_eq(qos_parse_vlarb("01:4", b, &at, &why), -1);
	ck_assert_int_eq(qos_parse_vlarb("", b, &at, &why), -1);
	ck_assert_int_eq(qos_parse_vlarb("0:4,", b, &at, &why), -1);
	/* 64 entries fill both blocks; 65 are too many */
	{
		char s[1024] = "";

		for (int i = 0; i < 64; i++)
			sprintf(s + strlen(s), "%s%d:%d", i ? "," : "", i % 15,
			    i);
		ck_assert_int_eq(qos_parse_vlarb(s, b, &at, &why), 0);
		ck_assert_int_eq(b[1][62], 63 % 15);
		ck_assert_int_eq(b[1][63], 63);
		strcat(s, ",1:1");
		ck_assert_int_eq(qos_parse_vlarb(s, b, &at, &why), -1);
	}
}
END_TEST

START_TEST(test_parse_sl2vl)
{
	uint8_t t[QOS_SL2VL_BYTES];
	const uint8_t dflt[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
	    0xe7 };
	const char *why;
	size_t at;

	ck_assert_int_eq(qos_parse_sl2vl(QOS_DEFAULT_SL2VL, t, &at, &why), 0);
	ck_assert_mem_eq(t, dflt, sizeof(dflt));
	ck_assert_uint_eq(qos_sl2vl_get(t, 15), 7);
	ck_assert_uint_eq(qos_sl2vl_get(t, 14), 14);
	ck_assert_int_eq(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14",
	    t, &at, &why), -1);
	ck_assert_str_eq(why, "fewer than 16 VLs (one per SL 0-15)");
	ck_assert_int_eq(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,"
	    "15,0", t, &at, &why), -1);
	ck_assert_int_eq(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,"
	    "16", t, &at, &why), -1);
	ck_assert_uint_eq(at, 35);
	ck_assert_int_eq(qos_parse_sl2vl("15,15,15,15,15,15,15,15,15,15,15,15,"
	    "15,15,15,15", t, &at, &why), 0);
	ck_assert_int_eq(t[0], 0xff);
}
END_TEST

START_TEST(test_build_layers)
{
	struct qos_config qc;
	struct qos_optset g = { .max_vls = 0, .high_limit = -1 };
	struct qos_optset k[QOS_NKINDS];

	for (int i = 0; i < QOS_NKINDS; i++)
		k[i] = (struct qos_optset){ .high_limit = -1 };
	/* nothing set: OpenSM's defaults everywhere */
	qos_config_build(&qc, true, 5, &g, k);
	ck_assert_int_eq(qc.kind[QOS_CA].max_vls, 15);
	ck_assert_int_eq(qc.kind[QOS_SWE].high_limit, 0);
	ck_assert_int_eq(qc.kind[QOS_RTR].sl2vl[7], 0xe7);
	ck_assert_int_eq(qc.kind[QOS_SW0].vlarb_high[0][1], 4);
	ck_assert_int_eq(qc.kind[QOS_SW0].vlarb_low[0][3], 4);
	/* the general set over the defaults, a type's over the general */
	g.high_limit = 7;
	g.max_vls = 4;
	g.sl2vl = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
	k[QOS_CA].high_limit = 0;
	k[QOS_CA].sl2vl = "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2";
	k[QOS_SWE].vlarb_low = "3:9";
	k[QOS_RTR].max_vls = 2;
	qos_config_build(&qc, true, 5, &g, k);
	ck_assert_int_eq(qc.kind[QOS_CA].high_limit, 0);
	ck_assert_int_eq(qc.kind[QOS_SWE].high_limit, 7);
	ck_assert_int_eq(qc.kind[QOS_CA].sl2vl[0], 0x22);
	ck_assert_int_eq(qc.kind[QOS_SW0].sl2vl[0], 0x11);
	ck_assert_int_eq(qc.kind[QOS_SWE].vlarb_low[0][0], 3);
	ck_assert_int_eq(qc.kind[QOS_SWE].vlarb_low[0][1], 9);
	ck_assert_int_eq(qc.kind[QOS_SWE].vlarb_low[0][3], 0);
	ck_assert_int_eq(qc.kind[QOS_CA].vlarb_low[0][3], 4);
	ck_assert_int_eq(qc.kind[QOS_RTR].max_vls, 2);
	ck_assert_int_eq(qc.kind[QOS_SW0].max_vls, 4);
	/* VL counts to OperationalVLs codes */
	ck_assert_uint_eq(qos_vls_code(1), 1);
	ck_assert_uint_eq(qos_vls_code(3), 2);
	ck_assert_uint_eq(qos_vls_code(4), 3);
	ck_assert_uint_eq(qos_vls_code(14), 4);
	ck_assert_uint_eq(qos_vls_code(15), 5);
}
END_TEST

/* ibsim's PortInfo: VLCap VL0-7 (4), OperVLs as VLCap, VL arbitration
 * caps 8 and 8, IsSLMappingSupported, state Active. */
static void
port_info(struct fabric *f, uint32_t p, unsigned vlcap, unsigned state)
{
	uint8_t *d = f->ports[p].info;

	memset(d, 0, sizeof(f->ports[p].info));
	mad_set_field(d, 0, IB_PORT_CAPMASK_F, 0xc048);
	mad_set_field(d, 0, IB_PORT_VL_CAP_F, vlcap);
	mad_set_field(d, 0, IB_PORT_OPER_VLS_F, vlcap);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 8);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8);
	mad_set_field(d, 0, IB_PORT_STATE_F, state);
	f->ports[p].info_valid = 1;
	f->ports[p].state = (uint8_t)state;
}

/* A switch of 4 ports (node 0), CAs on ports 1 and 2 (nodes 1, 2), port
 * 3 down, port 4 to a one-VL CA (node 3). */
static void
small(struct fabric *f)
{
	uint32_t sw, a, b, c;

	fabric_init(f);
	sw = testfab_switch(f, 4);
	a = testfab_ca(f, 1);
	b = testfab_ca(f, 1);
	c = testfab_ca(f, 1);
	testfab_connect(f, sw, 1, a, 1);
	testfab_connect(f, sw, 2, b, 1);
	testfab_connect(f, sw, 4, c, 1);
	testfab_lids(f);
	f->nodes[sw].sw_info_valid = 1;
	for (unsigned p = 0; p <= 4; p++)
		port_info(f, f->nodes[sw].port0 + p, 4, p == 3 ? 1 : 4);
	port_info(f, f->nodes[a].port0 + 1, 4, 4);
	port_info(f, f->nodes[b].port0 + 1, 4, 4);
	port_info(f, f->nodes[c].port0 + 1, 1, 4);
}

static void
opts(struct qos_config *qc, bool on, unsigned max_op_vls)
{
	struct qos_optset g = {
		.high_limit = 4,
		.vlarb_high = "0:4,1:2,2:1",
		.vlarb_low = "0:8,1:8,2:16,3:32,4:4,5:4,6:1,7:1,0:1,1:1",
		.sl2vl = "0,1,2,3,4,5,6,7,0,1,2,3,15,5,6,7",
	};
	struct qos_optset k[QOS_NKINDS];

	for (int i = 0; i < QOS_NKINDS; i++)
		k[i] = (struct qos_optset){ .high_limit = -1 };
	k[QOS_CA].sl2vl = "3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0";
	k[QOS_SW0].sl2vl = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
	k[QOS_SWE].high_limit = 9;
	qos_config_build(qc, on, max_op_vls, &g, k);
}

START_TEST(test_oper_vls)
{
	struct fabric f;
	struct qos_config qc;
	uint32_t s0;

	small(&f);
	s0 = f.nodes[0].port0;
	opts(&qc, false, 5);
	/* qos off: the lower VLCap of the two ends, max_op_vls over it */
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0 + 1), 4);
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0 + 4), 1);
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0 + 3), 0);  /* down */
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0), 0);      /* base port 0 */
	opts(&qc, false, 3);
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0 + 1), 3);
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, f.nodes[1].port0 + 1), 3);
	/* qos on: qos_max_vls caps it too (ibsmd's), by port type */
	opts(&qc, true, 5);
	qc.kind[QOS_CA].max_vls = 2;
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, s0 + 1), 4);
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, f.nodes[1].port0 + 1), 2);
	qc.apply_max_vls = false;
	ck_assert_uint_eq(qos_oper_vls(&qc, &f, f.nodes[1].port0 + 1), 4);
	/* VLHighLimit: per type, 0 on a one-VL port, none on a base port 0
	 * or with qos off */
	opts(&qc, true, 3);
	ck_assert_int_eq(qos_high_limit(&qc, &f, s0 + 1), 9);
	ck_assert_int_eq(qos_high_limit(&qc, &f, f.nodes[1].port0 + 1), 4);
	ck_assert_int_eq(qos_high_limit(&qc, &f, f.nodes[3].port0 + 1), 0);
	ck_assert_int_eq(qos_high_limit(&qc, &f, s0), -1);
	opts(&qc, false, 3);
	ck_assert_int_eq(qos_high_limit(&qc, &f, s0 + 1), -1);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_sl2vl_tables)
{
	struct fabric f;
	struct qos_config qc;
	uint8_t t[QOS_SL2VL_BYTES];
	/* qos_sl2vl masked to VL0-3 (3): 4->0, 5->1, 6->2, 7->3, 15 kept */
	const uint8_t swe3[] = { 0x01, 0x23, 0x01, 0x23, 0x01, 0x23, 0xf1,
	    0x23 };
	const uint8_t ca[] = { 0x32, 0x10, 0x32, 0x10, 0x32, 0x10, 0x32,
	    0x10 };
	const uint8_t one[] = { 0, 0, 0, 0, 0, 0, 0xf0, 0 };

	small(&f);
	opts(&qc, true, 3);
	/* every input port (0 and the down port 3 too) to output port 1 */
	for (unsigned in = 0; in <= 4; in++) {
		ck_assert(qos_sl2vl_want(&qc, &f, 0, in, 1, t));
		ck_assert_mem_eq(t, swe3, sizeof(swe3));
	}
	/* no table out of a down port, nor out of a base port 0 */
	ck_assert(!qos_sl2vl_want(&qc, &f, 0, 1, 3, t));
	ck_assert(!qos_sl2vl_want(&qc, &f, 0, 1, 0, t));
	ck_assert(!qos_sl2vl_want(&qc, &f, 0, 0, 0, t));
	/* out of the one-VL port: everything VL 0 but the drop */
	ck_assert(qos_sl2vl_want(&qc, &f, 0, 2, 4, t));
	ck_assert_mem_eq(t, one, sizeof(one));
	/* a CA port's table: qos_ca_sl2vl */
	ck_assert(qos_sl2vl_want(&qc, &f, 1, 0, 1, t));
	ck_assert_mem_eq(t, ca, sizeof(ca));
	ck_assert(!qos_sl2vl_want(&qc, &f, 1, 1, 1, t));
	/* an enhanced port 0: its own table from qos_sw0_sl2vl, the others
	 * into it from qos_swe_sl2vl */
	mad_set_field(f.nodes[0].sw_info, 0, IB_SW_ENHANCED_PORT0_F, 1);
	ck_assert(qos_sl2vl_want(&qc, &f, 0, 0, 0, t));
	ck_assert_int_eq(t[0], 0x11);
	ck_assert(qos_sl2vl_want(&qc, &f, 0, 2, 0, t));
	ck_assert_mem_eq(t, swe3, sizeof(swe3));
	/* no IsSLMappingSupported on port 0: no switch table at all */
	mad_set_field(f.ports[f.nodes[0].port0].info, 0, IB_PORT_CAPMASK_F,
	    0xc008);
	ck_assert(!qos_sl2vl_want(&qc, &f, 0, 1, 2, t));
	/* qos off: nothing */
	opts(&qc, false, 3);
	ck_assert(!qos_sl2vl_want(&qc, &f, 1, 0, 1, t));
	fabric_fini(&f);
}
END_TEST

START_TEST(test_vlarb_blocks)
{
	struct fabric f;
	struct qos_config qc;
	uint8_t b[QOS_VLARB_BLOCK_BYTES];
	/* the low list masked to VL0-3, cut at the cap of 8 entries */
	const uint8_t low[16] = { 0, 8, 1, 8, 2, 16, 3, 32, 0, 4, 1, 4, 2, 1,
	    3, 1 };
	const uint8_t high[16] = { 0, 4, 1, 2, 2, 1 };
	uint8_t zero[QOS_VLARB_BLOCK_BYTES] = { 0 };
	uint32_t ca;

	small(&f);
	ca = f.nodes[1].port0 + 1;
	opts(&qc, true, 3);
	ck_assert(qos_vlarb_want(&qc, &f, ca, 0, b));
	ck_assert_mem_eq(b, low, sizeof(low));
	ck_assert_mem_eq(b + 16, zero, sizeof(b) - 16);
	ck_assert(qos_vlarb_want(&qc, &f, ca, 2, b));
	ck_assert_mem_eq(b, high, sizeof(high));
	/* caps of 8: no second blocks */
	ck_assert(!qos_vlarb_want(&qc, &f, ca, 1, b));
	ck_assert(!qos_vlarb_want(&qc, &f, ca, 3, b));
	/* a cap of 40: block 2 has the entries 32 .. 39 */
	mad_set_field(f.ports[ca].info, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 40);
	ck_assert(qos_vlarb_want(&qc, &f, ca, 1, b));
	ck_assert_mem_eq(b, zero, sizeof(zero));
	/* a cap of 64: block 2 left alone, as OpenSM does */
	mad_set_field(f.ports[ca].info, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 64);
	ck_assert(!qos_vlarb_want(&qc, &f, ca, 1, b));
	/* the one-VL port, a base port 0, a down port: none */
	ck_assert(!qos_vlarb_want(&qc, &f, f.nodes[3].port0 + 1, 0, b));
	ck_assert(!qos_vlarb_want(&qc, &f, f.nodes[0].port0, 0, b));
	ck_assert(!qos_vlarb_want(&qc, &f, f.nodes[0].port0 + 3, 0, b));
	/* VL0-7: the list's VLs 4 and 5 kept */
	opts(&qc, true, 4);
	ck_assert(qos_vlarb_want(&qc, &f, f.nodes[0].port0 + 1, 0, b));
	ck_assert_int_eq(b[8], 4);
	ck_assert_int_eq(b[10], 5);
	fabric_fini(&f);
}
END_TEST

/* A caller's override: SL 1 to VL 2 on the (in 1, out 2) pair only. */
static void
override(void *arg, const struct fabric *f, uint32_t port, unsigned in,
    uint8_t t[QOS_SL2VL_BYTES])
{
	(void)arg;
	if (in == 1 && f->ports[port].num == 2)
		t[0] = (uint8_t)((t[0] & 0xf0) | 2);
}

START_TEST(test_sl2vl_hook)
{
	struct fabric f;
	struct qos_config qc;
	uint8_t t[QOS_SL2VL_BYTES];

	small(&f);
	opts(&qc, true, 3);
	qc.sl2vl_fn = override;
	ck_assert(qos_sl2vl_want(&qc, &f, 0, 1, 2, t));
	ck_assert_uint_eq(qos_sl2vl_get(t, 1), 2);
	ck_assert(qos_sl2vl_want(&qc, &f, 0, 2, 1, t));
	ck_assert_uint_eq(qos_sl2vl_get(t, 1), 1);
	fabric_fini(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("qos");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_parse_vlarb);
	tcase_add_test(tc, test_parse_sl2vl);
	tcase_add_test(tc, test_build_layers);
	tcase_add_test(tc, test_oper_vls);
	tcase_add_test(tc, test_sl2vl_tables);
	tcase_add_test(tc, test_vlarb_blocks);
	tcase_add_test(tc, test_sl2vl_hook);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
