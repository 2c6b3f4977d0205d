/*
 * Node names (core/nodemap: the node name map of OpenSM and
 * ibnetdiscover) and OpenSM's dump formats (sm/dump): a map with every
 * kind of line and every kind of mistake; the subnet list, LFT and MFT
 * dumps of a small fabric against their exact text, names from a map.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/nodemap.h"
#include "core/query.h"
#include "mcast/tree.h"
#include "sm/dump.h"
#include "tests/unit/testfab.h"

static char errs[4096];

static void
collect(void *arg, const char *line)
{
	(void)arg;
	strcat(errs, line);
	strcat(errs, "\n");
}

START_TEST(test_map)
{
	static const char good[] =
	    "# comment\n"
	    "\n"
	    "0x0002c90300001001 \"node one\"   # trailing comment\n"
	    "  0x0002c90300001002 plain-name  \n"
	    "0x0002c90300001003\t\"with \\ and 'quote'\"\r\n"
	    "5 decimal\n";
	struct node_names *m;

	errs[0] = '\0';
	ck_assert_uint_eq(node_names_parse("map", good, strlen(good), &m,
	    collect, NULL), 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(node_names_count(m), 4);
	ck_assert_str_eq(node_names_get(m, 0x0002c90300001001), "node one");
	ck_assert_str_eq(node_names_get(m, 0x0002c90300001002), "plain-name");
	ck_assert_str_eq(node_names_get(m, 0x0002c90300001003),
	    "with \\ and 'quote'");
	ck_assert_str_eq(node_names_get(m, 5), "decimal");
	ck_assert_ptr_null(node_names_get(m, 6));
	node_names_free(m);

	static const char bad[] =
	    "0x0002c9030000zz01 \"x\"\n"
	    "0x10 \"unclosed\n"
	    "0x11\n"
	    "0x12 a\n"
	    "0x12 b\n";
	errs[0] = '\0';
	ck_assert_uint_eq(node_names_parse("map", bad, strlen(bad), &m,
	    collect, NULL), 4);
	ck_assert_ptr_null(m);
	ck_assert_str_eq(errs,
	    "map:1:1: bad GUID '0x0002c9030000zz01': expected 0x and up to 16 "
	    "hex digits\n"
	    "map:2:6: no closing '\"'\n"
	    "map:3:5: no name for 0x0000000000000011\n"
	    "map:5:1: 0x0000000000000012 is named twice (first \"a\")\n");
}
END_TEST

/* A switch (node 0, 4 ports) with two CAs on ports 1 and 2, CA 1 the SM. */
static void
small(struct fabric *f, struct lft_set *lft)
{
	uint32_t sw, a, b;

	fabric_init(f);
	sw = testfab_switch(f, 4);
	a = testfab_ca(f, 1);
	b = testfab_ca(f, 1);
	testfab_connect(f, sw, 1, a, 1);
	testfab_connect(f, sw, 2, b, 1);
	testfab_lids(f);
	f->sm_port = fabric_port_idx(f, a, 1);
	strcpy(f->nodes[sw].desc, "sw0");
	f->nodes[sw].desc_valid = 1;
	strcpy(f->nodes[a].desc, "ca-a");
	f->nodes[a].desc_valid = 1;
	f->nodes[b].desc_valid = 0;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		f->nodes[n].sysguid = f->nodes[n].guid;
		mad_set_field(f->nodes[n].node_info, 0, IB_NODE_VENDORID_F,
		    0x2c9);
		mad_set_field(f->nodes[n].node_info, 0, IB_NODE_DEVID_F,
		    0x1003);
		mad_set_field(f->nodes[n].node_info, 0, IB_NODE_REVISION_F,
		    0xa1);
	}
	for (uint32_t p = 0; p < f->nports; p++) {
		struct fabric_port *q = &f->ports[p];

		if (q->peer == FABRIC_NONE)
			continue;
		q->state = PORT_ACTIVE;
		mad_set_field(q->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
		mad_set_field(q->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
	}
	ck_assert_int_eq(lft_set_init(lft, f), 0);
	{
		uint8_t *row = lft_row(lft, 0);

		for (unsigned l = 0; l <= lft->max_lid; l++)
			row[l] = LFT_NO_ROUTE;
		row[1] = 0;     /* the switch */
		row[2] = 1;
		row[3] = 2;
	}
}

static char *
capture(void (*fn)(FILE *, const struct fabric *, const struct lft_set *),
    const struct fabric *f, const struct lft_set *lft)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	fn(fp, f, lft);
	fclose(fp);
	return out;
}

static void
subnet(FILE *fp, const struct fabric *f, const struct lft_set *lft)
{
	(void)lft;
	dump_subnet_lst(fp, f);
}

START_TEST(test_formats)
{
	struct fabric f;
	struct lft_set lft;
	struct node_names *m;
	static const char map[] = "0x0002c90300000001 \"first switch\"\n";
	char *out;

	small(&f, &lft);
	out = capture(subnet, &f, &lft);
	ck_assert_str_eq(out,
	    "{ SW Ports:04 SystemGUID:0002c90300000001 NodeGUID:0002c90300000001 "
	    "PortGUID:0002c90300000001 VenID:0002C9 DevID:1003 Rev:000000A1 "
	    "{sw0} LID:0001 PN:01 } { CA-SM Ports:01 SystemGUID:0002c90300000002 "
	    "NodeGUID:0002c90300000002 PortGUID:0002ca0300000002 "
	    "VenID:000002C9 DevID:1003 Rev:000000A1 {ca-a} LID:0002 PN:01 } "
	    "PHY=4x LOG=ACT SPD=10\n"
	    "{ SW Ports:04 SystemGUID:0002c90300000001 NodeGUID:0002c90300000001 "
	    "PortGUID:0002c90300000001 VenID:0002C9 DevID:1003 Rev:000000A1 "
	    "{sw0} LID:0001 PN:02 } { CA Ports:01 SystemGUID:0002c90300000003 "
	    "NodeGUID:0002c90300000003 PortGUID:0002ca0300000003 "
	    "VenID:000002C9 DevID:1003 Rev:000000A1 {} LID:0003 PN:01 } "
	    "PHY=4x LOG=ACT SPD=10\n"
	    "{ CA-SM Ports:01 SystemGUID:0002c90300000002 NodeGUID:0002c90300000002 "
	    "PortGUID:0002ca0300000002 VenID:0002C9 DevID:1003 Rev:000000A1 "
	    "{ca-a} LID:0002 PN:01 } { SW Ports:04 SystemGUID:0002c90300000001 "
	    "NodeGUID:0002c90300000001 PortGUID:0002c90300000001 "
	    "VenID:000002C9 DevID:1003 Rev:000000A1 {sw0} LID:0001 PN:01 } "
	    "PHY=4x LOG=ACT SPD=10\n"
	    "{ CA Ports:01 SystemGUID:0002c90300000003 NodeGUID:0002c90300000003 "
	    "PortGUID:0002ca0300000003 VenID:0002C9 DevID:1003 Rev:000000A1 "
	    "{} LID:0003 PN:01 } { SW Ports:04 SystemGUID:0002c90300000001 "
	    "NodeGUID:0002c90300000001 PortGUID:0002c90300000001 "
	    "VenID:000002C9 DevID:1003 Rev:000000A1 {sw0} LID:0001 PN:02 } "
	    "PHY=4x LOG=ACT SPD=10\n");
	free(out);

	/* names from a map, in both files */
	ck_assert_uint_eq(node_names_parse("m", map, strlen(map), &m, collect,
	    NULL), 0);
	node_names_use(m);
	out = capture(dump_lfts, &f, &lft);
	ck_assert_str_eq(out,
	    "Unicast lids [0-3] of switch Lid 1 guid 0x0002c90300000001 "
	    "('first switch'):\n"
	    "0x0001 000 # Switch portguid 0x0002c90300000001: 'first switch'\n"
	    "0x0002 001 # Channel Adapter portguid 0x0002ca0300000002: 'ca-a'\n"
	    "0x0003 002 # Channel Adapter portguid 0x0002ca0300000003: ''\n"
	    "3 lids dumped\n");
	free(out);
	out = capture(subnet, &f, &lft);
	ck_assert_ptr_nonnull(strstr(out, "{first switch} LID:0001 PN:01 }"));
	free(out);
	node_names_free(m);
	ck_assert_ptr_null(node_names_current());
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

static struct mcast_mft mft;

static const struct mcast_mft *
one_mft(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == 0x0002c90300000001 ? &mft : NULL;
}

START_TEST(test_mcfdbs)
{
	struct fabric f;
	struct lft_set lft;
	char *out = NULL;
	size_t len = 0;
	FILE *fp;

	small(&f, &lft);
	mcast_mft_init(&mft, 4);
	mcast_mft_set(&mft, 0xc000, 0, 0x0006);    /* ports 1, 2 */
	mcast_mft_set(&mft, 0xc021, 0, 0x0004);    /* port 2 */
	fp = open_memstream(&out, &len);
	dump_mcfdbs(fp, &f, one_mft, NULL);
	fclose(fp);
	ck_assert_str_eq(out,
	    "\nSwitch 0x0002c90300000001\nLID    : Out Port(s)\n"
	    "0xC000 : 0x001  0x002 \n"
	    "0xC021 : 0x002 \n");
	free(out);
	mcast_mft_fini(&mft);
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("dump");
	TCase *tc = tcase_create("dump");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_map);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_mcfdbs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
