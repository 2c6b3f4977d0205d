/*
 * The M_Key rules of the simulated devices (tests/fixture/mkeysma.h): the
 * check of a request against a port's state (IBA 14.2.4 as the qib/hfi1
 * SMAs apply it: protection levels, violations, the lease), the M_Key
 * components of a PortInfo answer, and the bytes of trap 256's Notice
 * against OpenSM's ntc_256 layout (include/iba/ib_types.h).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "tests/fixture/mkeysma.h"

#define KEY 0x1122334455667788ULL
#define BAD 0xdeadbeefULL

static struct mk_port
port(uint8_t prot, uint16_t lease)
{
	struct mk_port p;

	memset(&p, 0, sizeof(p));
	p.guid = 0x100007;
	p.type = 2;
	p.mkey = KEY;
	p.prot = prot;
	p.lease = lease;
	return p;
}

START_TEST(test_no_key)
{
	struct mk_port p = port(3, 0);
	int e;

	p.mkey = 0;
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_SET, BAD, 0, &e), MK_PASS);
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_GET, BAD, 0, &e), MK_PASS);
	ck_assert_uint_eq(p.viol, 0);
}
END_TEST

START_TEST(test_levels)
{
	static const struct {
		uint8_t prot, method;
		uint64_t key;
		enum mk_verdict v;
		uint16_t viol;
	} c[] = {
		{ 0, MK_METHOD_GET, BAD, MK_PASS, 0 },
		{ 0, MK_METHOD_SET, BAD, MK_DROP, 1 },
		{ 0, MK_METHOD_TRAP_REPRESS, BAD, MK_DROP, 1 },
		{ 1, MK_METHOD_GET, BAD, MK_PASS_HIDE, 0 },
		{ 1, MK_METHOD_SET, BAD, MK_DROP, 1 },
		{ 2, MK_METHOD_GET, BAD, MK_DROP, 1 },
		{ 2, MK_METHOD_GET, 0, MK_DROP, 1 },
		{ 3, MK_METHOD_GET, BAD, MK_DROP, 1 },
		{ 3, MK_METHOD_SET, BAD, MK_DROP, 1 },
		{ 3, MK_METHOD_GET, KEY, MK_PASS, 0 },
		{ 3, MK_METHOD_SET, KEY, MK_PASS, 0 },
		{ 3, MK_METHOD_TRAP_REPRESS, KEY, MK_PASS, 0 },
		{ 3, MK_METHOD_TRAP, BAD, MK_PASS, 0 },      /* not checked */
	};
	unsigned i;
	int e;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mk_port p = port(c[i].prot, 0);

		ck_assert_msg(mksma_check(&p, c[i].method, c[i].key, 5, &e) ==
		    c[i].v, "case %u", i);
		ck_assert_msg(p.viol == c[i].viol, "case %u: viol %u", i, p.viol);
		ck_assert_int_eq(e, 0);
		ck_assert(p.deadline == 0);     /* no lease period */
	}
}
END_TEST

START_TEST(test_lease)
{
	struct mk_port p = port(2, 2);
	int e;

	/* a violation starts the lease; another one does not restart it */
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_GET, BAD, 1000, &e), MK_DROP);
	ck_assert(p.deadline == 3000);
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_SET, BAD, 2500, &e), MK_DROP);
	ck_assert(p.deadline == 3000);
	ck_assert_uint_eq(p.viol, 2);
	/* it runs out: protection off, a wrong-key Get passes (key shown) */
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_GET, BAD, 3000, &e), MK_PASS);
	ck_assert_int_eq(e, 1);
	ck_assert_uint_eq(p.prot, 0);
	ck_assert(p.deadline == 0);
	/* a Set is still a violation at level 0, and starts a new lease */
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_SET, BAD, 4000, &e), MK_DROP);
	ck_assert_int_eq(e, 0);
	ck_assert(p.deadline == 6000);
	/* the owner's valid Get cancels it */
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_GET, KEY, 5000, &e), MK_PASS);
	ck_assert(p.deadline == 0);
	ck_assert_int_eq(mksma_check(&p, MK_METHOD_GET, BAD, 7000, &e), MK_PASS);
	ck_assert_int_eq(e, 0);
}
END_TEST

START_TEST(test_viol_saturates)
{
	struct mk_port p = port(2, 0);
	int e;

	p.viol = 0xfffe;
	mksma_check(&p, MK_METHOD_SET, BAD, 0, &e);
	mksma_check(&p, MK_METHOD_SET, BAD, 0, &e);
	ck_assert_uint_eq(p.viol, 0xffff);
}
END_TEST

START_TEST(test_portinfo)
{
	struct mk_port p = port(1, 60), q;
	uint8_t pi[64];

	p.viol = 7;
	memset(pi, 0xaa, sizeof(pi));
	mksma_portinfo(&p, pi, 0);
	ck_assert(mad_get_field64(pi, 0, IB_PORT_MKEY_F) == KEY);
	ck_assert_uint_eq(mad_get_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F), 1);
	ck_assert_uint_eq(mad_get_field(pi, 0, IB_PORT_MKEY_LEASE_F), 60);
	ck_assert_uint_eq(mad_get_field(pi, 0, IB_PORT_MKEY_VIOL_F), 7);
	/* the other fields are left alone */
	ck_assert_uint_eq(pi[8], 0xaa);
	ck_assert_uint_eq(pi[16], 0xaa);
	mksma_portinfo(&p, pi, 1);
	ck_assert(mad_get_field64(pi, 0, IB_PORT_MKEY_F) == 0);
	ck_assert_uint_eq(mad_get_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F), 1);
	/* what a Set carries is learnt */
	memset(pi, 0, sizeof(pi));
	mad_set_field64(pi, 0, IB_PORT_MKEY_F, BAD);
	mad_set_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F, 3);
	mad_set_field(pi, 0, IB_PORT_MKEY_LEASE_F, 9);
	mad_set_field(pi, 0, IB_PORT_LID_F, 12);
	mad_set_field(pi, 0, IB_PORT_SMLID_F, 1);
	q = port(0, 0);
	q.viol = 5;
	mksma_learn(&q, pi);
	ck_assert(q.mkey == BAD);
	ck_assert_uint_eq(q.prot, 3);
	ck_assert_uint_eq(q.lease, 9);
	ck_assert_uint_eq(q.viol, 0);   /* M_KeyViolations is RW */
	ck_assert_uint_eq(q.lid, 12);
	ck_assert_uint_eq(q.smlid, 1);
}
END_TEST

/* A DR Set of LFT block 0 to a switch, with a wrong key: every byte. */
START_TEST(test_notice_dr)
{
	struct mk_bad_mkey n = {
		.producer = 2, .issuer_lid = 4, .issuer_guid = 0x100007,
		.lidaddr = 7, .dr_slid = 0xffff, .method = MK_METHOD_SET,
		.attr_id = 0x0019, .attr_mod = 0x12345678, .mkey = BAD,
		.dr = 1, .hops = 3,
	};
	static const uint8_t want[MK_NOTICE_LEN] = {
		0x82, 0x00, 0x00, 0x02,         /* generic, type 2, switch */
		0x01, 0x00,                     /* trap 256 */
		0x00, 0x04,                     /* IssuerLID */
		0x00, 0x00,                     /* toggle, count */
		0x00, 0x00,                     /* ntc_256: pad1 */
		0x00, 0x07,                     /* lid (LIDADDR) */
		0xff, 0xff,                     /* dr_slid */
		0x02, 0x00,                     /* method, pad2 */
		0x00, 0x19,                     /* attr_id */
		0x12, 0x34, 0x56, 0x78,         /* attr_mod */
		0x00, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, /* mkey */
		0x00,                           /* pad3 */
		0xc3,                           /* DR notice, truncated, 3 hops */
		[64] = 0xfe, 0x80, 0, 0, 0, 0, 0, 0,     /* IssuerGID */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x07,
	};
	uint8_t out[MK_NOTICE_LEN];
	unsigned i;

	memset(out, 0x55, sizeof(out));
	mksma_notice_256(&n, out);
	for (i = 0; i < MK_NOTICE_LEN; i++)
		ck_assert_msg(out[i] == want[i], "byte %u: 0x%02x, not 0x%02x",
		    i, out[i], want[i]);
	/* libibmad reads the header the same way */
	ck_assert_uint_eq(mad_get_field(out, 0, IB_NOTICE_TRAP_NUMBER_F), 256);
	ck_assert_uint_eq(mad_get_field(out, 0, IB_NOTICE_PRODUCER_F), 2);
	ck_assert_uint_eq(mad_get_field(out, 0, IB_NOTICE_TYPE_F), 2);
}
END_TEST

START_TEST(test_notice_path_and_lid)
{
	struct mk_bad_mkey n = {
		.producer = 1, .issuer_lid = 6, .issuer_guid = 0x100009,
		.lidaddr = 7, .dr_slid = 0xffff, .method = MK_METHOD_GET,
		.attr_id = 0x0015, .mkey = 0, .dr = 1, .hops = 2,
		.rpath_known = 1, .rpath = { 0, 2, 1 },
	};
	uint8_t out[MK_NOTICE_LEN];

	mksma_notice_256(&n, out);
	ck_assert_uint_eq(out[3], 1);           /* CA */
	ck_assert_uint_eq(out[10 + 23], 0x82);  /* DR notice, 2 hops */
	ck_assert_uint_eq(out[10 + 24], 0);
	ck_assert_uint_eq(out[10 + 25], 2);
	ck_assert_uint_eq(out[10 + 26], 0);     /* hops bytes only */
	/* past 30 hops the path does not fit: truncated */
	n.hops = 31;
	mksma_notice_256(&n, out);
	ck_assert_uint_eq(out[10 + 23], 0xc0 | 31);
	/* LID-routed: no DR fields */
	memset(&n, 0, sizeof(n));
	n.producer = 1;
	n.lidaddr = 7;
	n.method = MK_METHOD_SET;
	mksma_notice_256(&n, out);
	ck_assert_uint_eq(out[10 + 4], 0);
	ck_assert_uint_eq(out[10 + 5], 0);
	ck_assert_uint_eq(out[10 + 23], 0);
	ck_assert_uint_eq(out[12], 0);
	ck_assert_uint_eq(out[13], 7);
}
END_TEST

static Suite *
mkeyfix_suite(void)
{
	Suite *s = suite_create("mkeyfix");
	TCase *tc = tcase_create("sma");

	tcase_add_test(tc, test_no_key);
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_lease);
	tcase_add_test(tc, test_viol_saturates);
	tcase_add_test(tc, test_portinfo);
	tcase_add_test(tc, test_notice_dr);
	tcase_add_test(tc, test_notice_path_and_lid);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(mkeyfix_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
