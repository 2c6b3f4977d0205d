/*
 * core/vport: which LID each vport answers to (LIDRequired, LIDByVPortIndex,
 * the physical port's), and the copy of forwarding entries: a vport LID
 * forwards where its physical port's LID does in every switch, and moving a
 * vport to another host changes exactly that one entry per switch.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "tests/unit/testfab.h"

/* ft2 of 4-port switches: 4 leaves, 2 spines, 8 HCAs; LIDs 1.. */
static void
build(struct fabric *f, struct lft_set *lft)
{
	fabric_init(f);
	testfab_ft2(f, 4);
	testfab_lids(f);
	ck_assert_int_eq(lft_set_init(lft, f), 0);
	/* a made-up route: each switch sends LID l out of port l % 4 + 1 */
	for (uint32_t sw = 0; sw < lft->nsw; sw++)
		for (unsigned l = 1; l <= lft->max_lid; l++)
			lft_row(lft, sw)[l] = (uint8_t)((l + sw) % 4 + 1);
}

/* The port index of the first port of HCA number i (0-based). */
static uint32_t
hca_port(const struct fabric *f, unsigned i)
{
	unsigned seen = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == NODE_CA && seen++ == i)
			return fabric_port_idx(f, n, 1);
	ck_abort_msg("no HCA %u", i);
	return FABRIC_NONE;
}

static uint32_t
up(struct vport_set *s, uint32_t h, uint16_t i, uint64_t guid, bool lidreq,
    uint16_t lid_by)
{
	uint32_t v = vport_add(s, h, i);

	s->v[v].info_valid = 1;
	s->v[v].state = PORT_INIT;
	s->v[v].flags = lidreq ? VATTR_VP_LID_REQUIRED : 0;
	s->v[v].lid_by = lid_by;
	ck_assert(vport_set_guid(s, v, guid));
	return v;
}

START_TEST(test_resolve)
{
	struct fabric f;
	struct lft_set lft;
	struct vport_set s;
	uint32_t p = 0, h, pf, a, b, c, d, down;

	build(&f, &lft);
	vport_set_init(&s);
	p = hca_port(&f, 0);
	h = vport_host_add(&s, p);
	pf = vport_add(&s, h, 0);
	s.v[pf].info_valid = 1;
	s.v[pf].state = PORT_ACTIVE;
	a = up(&s, h, 1, 0x1001, true, 0);
	b = up(&s, h, 2, 0x1002, false, 1);     /* shares vport 1's */
	c = up(&s, h, 3, 0x1003, false, 0);     /* the physical port's */
	d = up(&s, h, 4, 0x1004, false, 3);     /* 3 has no LID of its own */
	down = up(&s, h, 5, 0x1005, true, 0);
	s.v[down].state = PORT_DOWN;
	ck_assert(!vport_set_guid(&s, d, 0x1001));      /* duplicate */
	s.v[d].guid = 0x1004;
	s.v[a].own_lid = 100;
	s.v[down].own_lid = 101;        /* down: not used */
	ck_assert_uint_eq(vport_resolve_lids(&s, &f), 1);
	ck_assert_uint_eq(s.v[pf].lid, f.ports[p].lid);
	ck_assert_uint_eq(s.v[a].lid, 100);
	ck_assert_uint_eq(s.v[b].lid, 100);
	ck_assert_uint_eq(s.v[c].lid, f.ports[p].lid);
	ck_assert_uint_eq(s.v[d].lid, f.ports[p].lid);
	ck_assert_uint_eq(s.v[down].lid, 0);
	ck_assert(vport_wants_lid(&s.v[a]));
	ck_assert(!vport_wants_lid(&s.v[down]));
	ck_assert(!vport_is_managed(&s.v[pf]));
	ck_assert_uint_eq(vport_by_guid(&s, 0x1002), b);
	ck_assert_uint_eq(vport_by_guid(&s, 0x9999), FABRIC_NONE);
	ck_assert_uint_eq(vport_max_lid(&s), 100);
	vport_set_fini(&s);
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

/* Virtualization ignore: a VM another SM brought up (ARMED or ACTIVE with
 * a VPortLID) stays managed for its LID and routes; a VM in INIT, or up
 * without a LID, is idle: no LID, not routed. */
START_TEST(test_keep_running)
{
	struct fabric f;
	struct lft_set lft;
	struct vport_set s;
	uint32_t h, act, arm, init, nolid, shared;

	build(&f, &lft);
	vport_set_init(&s);
	h = vport_host_add(&s, hca_port(&f, 0));
	act = up(&s, h, 1, 0x2001, true, 0);
	s.v[act].state = PORT_ACTIVE;
	s.v[act].cur_lid = 200;
	arm = up(&s, h, 2, 0x2002, true, 0);
	s.v[arm].state = PORT_ARMED;
	s.v[arm].cur_lid = 201;
	init = up(&s, h, 3, 0x2003, true, 0);   /* a VM starting now */
	nolid = up(&s, h, 4, 0x2004, true, 0);
	s.v[nolid].state = PORT_ACTIVE;         /* up, but no VPortLID */
	shared = up(&s, h, 5, 0x2005, false, 0);
	s.v[shared].state = PORT_ACTIVE;
	s.v[shared].cur_lid = f.ports[hca_port(&f, 0)].lid;
	ck_assert_uint_eq(vport_keep_running(&s), 3);
	ck_assert(vport_is_managed(&s.v[act]) && vport_wants_lid(&s.v[act]));
	ck_assert(vport_is_managed(&s.v[arm]));
	ck_assert(vport_is_managed(&s.v[shared]));
	ck_assert(!vport_is_managed(&s.v[init]) && !vport_wants_lid(&s.v[init]));
	ck_assert(!vport_is_managed(&s.v[nolid]));
	s.v[act].own_lid = 200;
	s.v[arm].own_lid = 201;
	s.v[init].own_lid = 202;        /* not used: idle */
	ck_assert_uint_eq(vport_resolve_lids(&s, &f), 2);
	ck_assert_uint_eq(s.v[init].lid, 0);
	ck_assert_uint_eq(s.v[shared].lid, f.ports[hca_port(&f, 0)].lid);
	/* again: the marks follow the states of this read */
	s.v[init].state = PORT_ACTIVE;
	s.v[init].cur_lid = 202;
	ck_assert_uint_eq(vport_keep_running(&s), 4);
	ck_assert(vport_is_managed(&s.v[init]));
	vport_set_fini(&s);
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_lft_copy_and_move)
{
	struct fabric f;
	struct lft_set lft, before;
	struct vport_set s;
	uint32_t pa, pb, ha, hb, v;
	uint16_t vl = 200;
	size_t width, diffs = 0;

	build(&f, &lft);
	vport_set_init(&s);
	pa = hca_port(&f, 0);
	pb = hca_port(&f, 5);
	ha = vport_host_add(&s, pa);
	hb = vport_host_add(&s, pb);
	v = up(&s, ha, 1, 0x2001, true, 0);
	s.v[v].own_lid = vl;
	vport_resolve_lids(&s, &f);
	ck_assert_int_eq(lft_set_grow(&lft, vport_max_lid(&s)), 0);
	ck_assert_uint_eq(lft.max_lid, vl);
	ck_assert_uint_eq(vport_lft_copy(&s, &f, &lft), lft.nsw);
	for (uint32_t sw = 0; sw < lft.nsw; sw++)
		ck_assert_uint_eq(lft_row(&lft, sw)[vl],
		    lft_row(&lft, sw)[f.ports[pa].lid]);
	/* keep a copy, then move the VM to host b with the same GUID */
	width = (size_t)lft.max_lid + 1;
	before = lft;
	before.port = malloc(lft.nsw * width);
	memcpy(before.port, lft.port, lft.nsw * width);
	vport_set_clear(&s);
	ha = vport_host_add(&s, pa);
	hb = vport_host_add(&s, pb);
	(void)ha;
	v = up(&s, hb, 2, 0x2001, true, 0);
	s.v[v].own_lid = vl;
	vport_resolve_lids(&s, &f);
	vport_lft_copy(&s, &f, &lft);
	for (uint32_t sw = 0; sw < lft.nsw; sw++) {
		ck_assert_uint_eq(lft_row(&lft, sw)[vl],
		    lft_row(&lft, sw)[f.ports[pb].lid]);
		for (size_t l = 0; l < width; l++)
			if (lft.port[sw * width + l] != before.port[sw * width + l]) {
				ck_assert_uint_eq(l, vl);
				diffs++;
			}
	}
	ck_assert_uint_gt(diffs, 0);
	ck_assert_uint_le(diffs, lft.nsw);
	free(before.port);
	vport_set_fini(&s);
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

START_TEST(test_grow_keeps_rows)
{
	struct fabric f;
	struct lft_set lft;
	uint16_t old;

	build(&f, &lft);
	old = lft.max_lid;
	ck_assert_int_eq(lft_set_grow(&lft, old), 0);
	ck_assert_int_eq(lft_set_grow(&lft, (uint16_t)(old + 70)), 0);
	for (uint32_t sw = 0; sw < lft.nsw; sw++) {
		for (unsigned l = 1; l <= old; l++)
			ck_assert_uint_eq(lft_row(&lft, sw)[l],
			    (l + sw) % 4 + 1);
		for (unsigned l = old + 1u; l <= lft.max_lid; l++)
			ck_assert_uint_eq(lft_row(&lft, sw)[l], LFT_NO_ROUTE);
	}
	lft_set_fini(&lft);
	fabric_fini(&f);
}
END_TEST

/* Hosts a sweep could not read (their port or node kept from the model
 * in use) keep their vports, LIDs and tables; hosts read are left to the
 * sweep's own reading. */
START_TEST(test_graft_kept_hosts)
{
	struct fabric cur, next;
	struct lft_set l1, l2;
	struct vport_set cs, ns;
	uint32_t h, v, p;

	build(&cur, &l1);
	build(&next, &l2);
	vport_set_init(&cs);
	vport_set_init(&ns);
	h = vport_host_add(&cs, hca_port(&cur, 2));
	cs.h[h].valid = 1;
	cs.h[h].vport_cap = 8;
	up(&cs, h, 0, 0x500, false, 0);
	v = up(&cs, h, 1, 0x501, true, 0);
	cs.v[v].own_lid = 70;
	cs.v[v].pkey_cap = 2;
	ck_assert_ptr_nonnull(vport_pkeys_alloc(&cs, v));
	cs.v[v].pkeys[1] = 0x8010;
	h = vport_host_add(&cs, hca_port(&cur, 5));
	cs.h[h].valid = 1;
	up(&cs, h, 1, 0x601, true, 0);
	/* HCA 2's node was not read this sweep; HCA 5 was */
	p = hca_port(&next, 2);
	next.nodes[next.ports[p].node].kept = 1;
	ck_assert_uint_eq(vport_graft(&ns, &next, &cs, &cur), 2);
	ck_assert_uint_eq(ns.nh, 1);
	ck_assert_uint_eq(ns.h[0].port, p);
	ck_assert(!ns.h[0].valid);
	v = vport_by_guid(&ns, 0x501);
	ck_assert_uint_ne(v, FABRIC_NONE);
	ck_assert_uint_eq(ns.v[v].cur_lid, 70);
	ck_assert(vport_wants_lid(&ns.v[v]));
	ck_assert_uint_eq(ns.v[v].pkeys[1], 0x8010);
	ck_assert_uint_eq(vport_by_guid(&ns, 0x601), FABRIC_NONE);
	vport_set_fini(&cs);
	vport_set_fini(&ns);
	lft_set_fini(&l1);
	lft_set_fini(&l2);
	fabric_fini(&cur);
	fabric_fini(&next);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("vport");
	TCase *tc = tcase_create("model");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_keep_running);
	tcase_add_test(tc, test_lft_copy_and_move);
	tcase_add_test(tc, test_grow_keeps_rows);
	tcase_add_test(tc, test_graft_kept_hosts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
