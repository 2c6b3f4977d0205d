/*
 * core/pcounter: totals never go backwards, whatever the device's narrow
 * counters do (saturate, get cleared, switch to the Extended set), and the
 * answers are decoded at the IBA's offsets.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "core/pcounter.h"

START_TEST(first_read_counts)
{
	struct pcounter c = { 0 };

	ck_assert_uint_eq(pcounter_add(&c, 7, 16, false), 7);
	ck_assert_uint_eq(c.total, 7);
	ck_assert(c.valid);
	ck_assert_uint_eq(pcounter_add(&c, 10, 16, false), 3);
	ck_assert_uint_eq(c.total, 10);
	ck_assert_uint_eq(pcounter_add(&c, 10, 16, false), 0);
	ck_assert_uint_eq(c.total, 10);
}
END_TEST

START_TEST(saturation_holds)
{
	struct pcounter c = { 0 };

	/* a 32-bit data counter climbing to its top and staying there */
	pcounter_add(&c, 0xfffffff0u, 32, false);
	ck_assert_uint_eq(pcounter_add(&c, 0xffffffffu, 32, false), 0xf);
	ck_assert(c.saturated);
	ck_assert_uint_eq(pcounter_add(&c, 0xffffffffu, 32, false), 0);
	ck_assert_uint_eq(c.total, 0xffffffffu);
	/* a 4-bit counter (LocalLinkIntegrityErrors) at 15 */
	struct pcounter e = { 0 };
	pcounter_add(&e, 3, 4, false);
	ck_assert_uint_eq(pcounter_add(&e, 15, 4, false), 12);
	ck_assert(e.saturated);
	ck_assert_uint_eq(pcounter_add(&e, 15, 4, false), 0);
	ck_assert_uint_eq(e.total, 15);
	/* a value past the width is taken as the width's maximum */
	struct pcounter w = { 0 };
	ck_assert_uint_eq(pcounter_add(&w, 300, 8, false), 255);
}
END_TEST

START_TEST(clear_keeps_total_monotonic)
{
	struct pcounter c = { 0 };

	pcounter_add(&c, 100, 16, false);
	/* cleared by someone, then 5 more counted */
	ck_assert_uint_eq(pcounter_add(&c, 5, 16, false), 5);
	ck_assert_uint_eq(c.total, 105);
	ck_assert(!c.saturated);
	/* cleared again, nothing since */
	ck_assert_uint_eq(pcounter_add(&c, 0, 16, false), 0);
	ck_assert_uint_eq(c.total, 105);
	ck_assert_uint_eq(pcounter_add(&c, 2, 16, false), 2);
	ck_assert_uint_eq(c.total, 107);
	/* saturated, then cleared (OpenSM's perfmgr clears saturated
	 * counters): the total carries on from the top */
	struct pcounter s = { 0 };
	pcounter_add(&s, 0xffff, 16, false);
	ck_assert_uint_eq(pcounter_add(&s, 1, 16, false), 1);
	ck_assert_uint_eq(s.total, 0x10000);
}
END_TEST

START_TEST(extended_64bit)
{
	struct pcounter c = { 0 };
	uint64_t big = UINT64_C(0x123456789abcdef0);

	ck_assert_uint_eq(pcounter_add(&c, big, 64, true), big);
	ck_assert_uint_eq(pcounter_add(&c, big + 10, 64, true), 10);
	ck_assert(!c.saturated);
	/* cleared */
	ck_assert_uint_eq(pcounter_add(&c, 4, 64, true), 4);
	ck_assert_uint_eq(c.total, big + 14);
	/* the total sticks at the top rather than wrap */
	struct pcounter t = { 0 };
	pcounter_add(&t, UINT64_MAX - 1, 64, true);
	pcounter_add(&t, 0, 64, true);
	pcounter_add(&t, 5, 64, true);
	ck_assert_uint_eq(t.total, UINT64_MAX);
}
END_TEST

START_TEST(source_change_is_a_baseline)
{
	struct pcounter c = { 0 };

	pcounter_add(&c, 1000, 32, false);
	/* the Extended counter counts more (it never saturated): a new
	 * baseline, not an increment */
	ck_assert_uint_eq(pcounter_add(&c, 5000000000ull, 64, true), 0);
	ck_assert_uint_eq(c.total, 1000);
	ck_assert_uint_eq(pcounter_add(&c, 5000000100ull, 64, true), 100);
	ck_assert_uint_eq(c.total, 1100);
}
END_TEST

/* Bytes of a PortCounters data field (IBA Table 247, big-endian), from
 * the start of the MAD's data. */
static void
put(uint8_t *d, unsigned bitoff, unsigned bits, uint64_t v)
{
	for (unsigned i = 0; i < bits; i++) {
		unsigned b = bitoff + bits - 1 - i;

		if (v >> i & 1)
			d[b / 8] |= (uint8_t)(0x80u >> (b % 8));
	}
}

START_TEST(decode_basic)
{
	struct pcounter_port p;
	uint8_t d[192];
	uint32_t rose;

	memset(&p, 0, sizeof(p));
	memset(d, 0, sizeof(d));
	put(d, 8, 8, 3);                /* PortSelect */
	put(d, 32, 16, 0x1234);         /* SymbolErrorCounter */
	put(d, 48, 8, 2);               /* LinkErrorRecoveryCounter */
	put(d, 56, 8, 1);               /* LinkDownedCounter */
	put(d, 64, 16, 7);              /* PortRcvErrors */
	put(d, 112, 16, 9);             /* PortXmitDiscards */
	put(d, 156, 4, 0xf);            /* ExcessiveBufferOverrunErrors */
	put(d, 192, 32, 0xdeadbeef);    /* PortXmitData */
	put(d, 320, 32, 44);            /* PortXmitWait */
	rose = pcounter_port_basic(&p, d, false);
	ck_assert_uint_eq(p.c[PC_SYMBOL_ERROR].total, 0x1234);
	ck_assert_uint_eq(p.c[PC_LINK_ERROR_RECOVERY].total, 2);
	ck_assert_uint_eq(p.c[PC_LINK_DOWNED].total, 1);
	ck_assert_uint_eq(p.c[PC_RCV_ERRORS].total, 7);
	ck_assert_uint_eq(p.c[PC_XMIT_DISCARDS].total, 9);
	ck_assert_uint_eq(p.c[PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS].total, 15);
	ck_assert(p.c[PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS].saturated);
	ck_assert_uint_eq(p.c[PC_XMIT_DATA].total, 0xdeadbeef);
	ck_assert_uint_eq(p.c[PC_XMIT_WAIT].total, 44);
	ck_assert_uint_eq(rose, 1u << PC_SYMBOL_ERROR |
	    1u << PC_LINK_ERROR_RECOVERY | 1u << PC_LINK_DOWNED |
	    1u << PC_RCV_ERRORS | 1u << PC_XMIT_DISCARDS |
	    1u << PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS);
	ck_assert_uint_eq(pcounter_port_errors(&p), 0x1234 + 2 + 1 + 7 + 9 +
	    15);
	/* the symbol errors cleared by perfquery -R, then one more */
	memset(d + 4, 0, 2);
	put(d, 32, 16, 1);
	rose = pcounter_port_basic(&p, d, false);
	ck_assert_uint_eq(rose, 1u << PC_SYMBOL_ERROR);
	ck_assert_uint_eq(p.c[PC_SYMBOL_ERROR].total, 0x1235);
	ck_assert_uint_eq(p.reads, 2);
}
END_TEST

START_TEST(decode_extended)
{
	struct pcounter_port p;
	uint8_t d[192], e[192];

	memset(&p, 0, sizeof(p));
	memset(d, 0, sizeof(d));
	memset(e, 0, sizeof(e));
	put(d, 192, 32, 0xffffffff);    /* PortXmitData, saturated */
	put(d, 320, 32, 5);             /* PortXmitWait */
	/* PortCountersExtended: PortXmitData at bit 64, PortRcvData 128,
	 * ... PortMulticastRcvPkts at 512 */
	put(e, 64, 64, UINT64_C(0x100000000));
	put(e, 128, 64, 77);
	put(e, 512, 64, 3);
	pcounter_port_basic(&p, d, true);
	pcounter_port_ext(&p, e);
	ck_assert_uint_eq(p.c[PC_XMIT_DATA].total, UINT64_C(0x100000000));
	ck_assert(p.c[PC_XMIT_DATA].ext);
	ck_assert(!p.c[PC_XMIT_DATA].saturated);
	ck_assert_uint_eq(p.c[PC_RCV_DATA].total, 77);
	ck_assert_uint_eq(p.c[PC_MULTICAST_RCV_PKTS].total, 3);
	ck_assert_uint_eq(p.c[PC_XMIT_WAIT].total, 5);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(pcounter_info(PC_SYMBOL_ERROR)->metric,
	    "port_symbol_error_total");
	ck_assert_str_eq(pcounter_info(PC_XMIT_DATA)->name, "PortXmitData");
	for (unsigned id = 0; id < PC_NCOUNTERS; id++) {
		ck_assert_ptr_nonnull(pcounter_info(id)->name);
		ck_assert_uint_eq(pcounter_info(id)->error, id < PC_NERRORS);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("pcounter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, first_read_counts);
	tcase_add_test(tc, saturation_holds);
	tcase_add_test(tc, clear_keeps_total_monotonic);
	tcase_add_test(tc, extended_64bit);
	tcase_add_test(tc, source_change_is_a_baseline);
	tcase_add_test(tc, decode_basic);
	tcase_add_test(tc, decode_extended);
	tcase_add_test(tc, names);
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
	return failed == 0 ? 0 : 1;
}
