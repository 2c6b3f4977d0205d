/*
 * Discovery's holes: what a sweep that lost SMPs leaves unknown in the
 * model (a switch or port not read, an up port whose peer was not reached),
 * on fabrics built in memory as discovery would have left them.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/log.h"
#include "sm/discover.h"
#include "tests/unit/testfab.h"

/* Everything read: switches, every switch port, every present CA port;
 * cabled ports ACTIVE, the rest DOWN. */
static void
all_read(struct fabric *f)
{
	for (uint32_t n = 0; n < f->nnodes; n++) {
		struct fabric_node *node = &f->nodes[n];
		bool sw = node->type == NODE_SWITCH;

		node->sw_info_valid = sw;
		node->desc_valid = 1;
		snprintf(node->desc, sizeof(node->desc), "%s%u", sw ? "sw" : "h",
		    n);
		for (unsigned num = sw ? 0 : 1; num <= node->nports; num++) {
			struct fabric_port *p =
			    &f->ports[fabric_port_idx(f, n, (uint8_t)num)];

			if (!sw && !p->present)
				continue;
			p->info_valid = 1;
			p->state = p->peer != FABRIC_NONE || num == 0 ?
			    PORT_ACTIVE : PORT_DOWN;
		}
	}
}

struct seen {
	unsigned n;
	struct discover_hole h[16];
};

static void
collect(void *arg, const struct discover_hole *h)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->h[s->n] = *h;
	s->n++;
}

START_TEST(test_whole_fabric)
{
	struct fabric f;
	struct seen s = { 0 };

	fabric_init(&f);
	testfab_ft2(&f, 4);
	all_read(&f);
	ck_assert_uint_eq(discover_holes(&f, collect, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	fabric_fini(&f);
}
END_TEST

/* A probe lost through an up port: the port is up and has no peer; a DOWN
 * port without one is no hole. */
START_TEST(test_peer_not_reached)
{
	struct fabric f;
	struct seen s = { 0 };
	uint32_t leaf = 0, spine = 4, p;

	fabric_init(&f);
	testfab_ft2(&f, 4);         /* leaf 0 port 3 - spine 4 port 1 */
	all_read(&f);
	testfab_unlink(&f, leaf, 3);
	p = fabric_port_idx(&f, leaf, 3);
	ck_assert_uint_eq(f.ports[p].peer, FABRIC_NONE);
	/* the spine end is DOWN now: not a hole; the leaf end stays up */
	f.ports[fabric_port_idx(&f, spine, 1)].state = PORT_DOWN;
	f.ports[p].state = PORT_INIT;
	ck_assert_uint_eq(discover_holes(&f, collect, &s), 1);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.h[0].node, leaf);
	ck_assert_uint_eq(s.h[0].port, 3);
	ck_assert_int_eq(s.h[0].kind, HOLE_PEER);
	/* no callback: the count alone */
	ck_assert_uint_eq(discover_holes(&f, NULL, NULL), 1);
	fabric_fini(&f);
}
END_TEST

/* SwitchInfo not read: one hole for the switch, none for its ports, which
 * were never asked about. */
START_TEST(test_switch_not_read)
{
	struct fabric f;
	struct seen s = { 0 };

	fabric_init(&f);
	testfab_ft2(&f, 4);
	all_read(&f);
	f.nodes[5].sw_info_valid = 0;
	for (unsigned num = 0; num <= f.nodes[5].nports; num++)
		f.ports[fabric_port_idx(&f, 5, (uint8_t)num)].info_valid = 0;
	ck_assert_uint_eq(discover_holes(&f, collect, &s), 1);
	ck_assert_uint_eq(s.h[0].node, 5);
	ck_assert_int_eq(s.h[0].kind, HOLE_SWITCH_INFO);
	fabric_fini(&f);
}
END_TEST

/* PortInfo not read: of a switch port (port 0 too), of a CA port reached;
 * a CA port never reached is not asked about. */
START_TEST(test_port_not_read)
{
	struct fabric f;
	struct seen s = { 0 };
	uint32_t ca, sw;

	fabric_init(&f);
	sw = testfab_switch(&f, 4);
	ca = testfab_ca(&f, 2);
	testfab_connect(&f, sw, 1, ca, 1);
	f.ports[fabric_port_idx(&f, ca, 2)].present = 0;
	testfab_lids(&f);
	all_read(&f);
	ck_assert_uint_eq(discover_holes(&f, NULL, NULL), 0);
	f.ports[fabric_port_idx(&f, sw, 0)].info_valid = 0;
	f.ports[fabric_port_idx(&f, ca, 1)].info_valid = 0;
	ck_assert_uint_eq(discover_holes(&f, collect, &s), 2);
	ck_assert_uint_eq(s.h[0].node, sw);
	ck_assert_uint_eq(s.h[0].port, 0);
	ck_assert_int_eq(s.h[0].kind, HOLE_PORT_INFO);
	ck_assert_uint_eq(s.h[1].node, ca);
	ck_assert_uint_eq(s.h[1].port, 1);
	ck_assert_int_eq(s.h[1].kind, HOLE_PORT_INFO);
	fabric_fini(&f);
}
END_TEST

/* The line names the node by description and GUID, and the port; a
 * description from the wire is printed with printable characters only. */
START_TEST(test_hole_text)
{
	struct fabric f;
	struct discover_hole h = { .node = 0, .port = 7, .kind = HOLE_PEER };
	char buf[200], guid[32];

	fabric_init(&f);
	testfab_switch(&f, 8);
	all_read(&f);
	memcpy(f.nodes[0].desc, "leaf\n3\x1b[31m\xff", 12);
	f.nodes[0].desc[12] = '\0';
	discover_hole_text(&f, &h, buf, sizeof(buf));
	snprintf(guid, sizeof(guid), "0x%016llx",
	    (unsigned long long)f.nodes[0].guid);
	ck_assert_ptr_nonnull(strstr(buf, guid));
	ck_assert_ptr_nonnull(strstr(buf, "\"leaf?3?[31m?\""));
	ck_assert_ptr_nonnull(strstr(buf, "port 7"));
	for (const char *c = buf; *c; c++)
		ck_assert(*c >= 0x20 && *c < 0x7f);
	h.kind = HOLE_SWITCH_INFO;
	discover_hole_text(&f, &h, buf, sizeof(buf));
	ck_assert_ptr_null(strstr(buf, "port"));
	ck_assert_ptr_nonnull(strstr(buf, "SwitchInfo"));
	/* cut short, still a string */
	discover_hole_text(&f, &h, buf, 8);
	ck_assert_uint_eq(strlen(buf), 7);
	fabric_fini(&f);
}
END_TEST

static Suite *
discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("holes");

	tcase_add_test(tc, test_whole_fabric);
	tcase_add_test(tc, test_peer_not_reached);
	tcase_add_test(tc, test_switch_not_read);
	tcase_add_test(tc, test_port_not_read);
	tcase_add_test(tc, test_hole_text);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(discover_suite());
	int failed;

	log_init("check_discover", NULL, LOG_LVL_ERROR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
