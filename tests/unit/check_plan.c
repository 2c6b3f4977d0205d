/*
 * The desired state of a new model (sm/plan.h) on fabrics built in memory:
 * the LID requests (the SM's port first, end ports only, vports with a LID
 * of their own only when virtualization is on) and the P_Key tables with
 * the programmer's view of them (enforcement as configured, indices kept
 * from the tables in use or, where none, from the devices').
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "partitions/partitions.h"
#include "sm/plan.h"
#include "tests/unit/testfab.h"

/* testfab_ft2(4): leaves 0-3 (ports 1-2 HCAs), spines 4-5, HCAs 6-13. */
static struct fabric f;
static struct vport_set vs;

static void
setup(void)
{
	fabric_init(&f);
	testfab_ft2(&f, 4);
	for (uint32_t n = 0; n < f.nnodes; n++) {
		f.nodes[n].partition_cap = 8;
		f.nodes[n].enforce_cap = 8;
	}
	f.sm_port = fabric_port_idx(&f, 9, 1);
	vport_set_init(&vs);
}

static void
teardown(void)
{
	vport_set_fini(&vs);
	fabric_fini(&f);
}

/* A managed vport of index i on HCA node n's port, wanting a LID or not. */
static uint32_t
add_vport(uint32_t n, uint16_t i, uint64_t guid, bool lid)
{
	uint32_t p = fabric_port_idx(&f, n, 1), h = FABRIC_NONE, v;

	for (uint32_t k = 0; k < vs.nh; k++)
		if (vs.h[k].port == p)
			h = k;
	if (h == FABRIC_NONE)
		h = vport_host_add(&vs, p);
	v = vport_add(&vs, h, i);
	vs.v[v].info_valid = 1;
	vs.v[v].state = PORT_ACTIVE;
	vs.v[v].flags = lid ? VATTR_VP_LID_REQUIRED : 0;
	vs.v[v].cur_lid = 900 + i;
	vs.v[v].pkey_cap = 4;
	ck_assert(vport_set_guid(&vs, v, guid));
	return v;
}

START_TEST(test_lid_requests)
{
	struct lid_req *reqs;
	uint32_t *idx;
	size_t n, ends = 0;

	add_vport(10, 1, 0x1111, true);
	add_vport(10, 2, 0x2222, false);
	for (uint32_t p = 0; p < f.nports; p++)
		ends += fabric_port_is_endport(&f, p);
	/* virtualization off: the end ports, the SM's first */
	n = plan_lid_requests(&f, &vs, 0, false, &reqs, &idx);
	ck_assert_uint_eq(n, ends);
	ck_assert_uint_eq(idx[0], f.sm_port);
	ck_assert_uint_eq(reqs[0].guid, f.ports[f.sm_port].guid);
	for (size_t i = 0; i < n; i++) {
		ck_assert(fabric_port_is_endport(&f, idx[i]));
		ck_assert_uint_eq(reqs[i].guid, f.ports[idx[i]].guid);
		ck_assert_uint_eq(reqs[i].cur, 0);     /* nothing read */
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(idx[i], idx[j]);
	}
	free(reqs);
	free(idx);
	/* on: and the vport that wants a LID of its own, past the ports */
	n = plan_lid_requests(&f, &vs, 2, false, &reqs, &idx);
	ck_assert_uint_eq(n, ends + 1);
	ck_assert_uint_eq(idx[n - 1], f.nports + 0);
	ck_assert_uint_eq(reqs[n - 1].guid, 0x1111);
	ck_assert_uint_eq(reqs[n - 1].cur, 901);
	ck_assert(reqs[n - 1].single);          /* a vport: one LID */
	free(reqs);
	free(idx);
}
END_TEST

/* Which end ports take one LID whatever the LMC: switch ports 0, unless
 * lmc_esp0 and the switch says EnhancedPort0 (as OpenSM). */
START_TEST(test_lid_single)
{
	struct lid_req *reqs;
	uint32_t *idx, sw = FABRIC_NONE, ca = FABRIC_NONE;
	size_t n;

	for (uint32_t p = 0; p < f.nports; p++) {
		if (!fabric_port_is_endport(&f, p))
			continue;
		if (f.nodes[f.ports[p].node].type == NODE_SWITCH)
			sw = p;
		else
			ca = p;
	}
	ck_assert_uint_ne(sw, FABRIC_NONE);
	ck_assert_uint_ne(ca, FABRIC_NONE);
	ck_assert(plan_port_single(&f, sw, false));
	ck_assert(!plan_port_single(&f, ca, false));
	ck_assert(!plan_port_single(&f, ca, true));
	/* a base port 0 stays single with lmc_esp0 */
	f.nodes[f.ports[sw].node].sw_info_valid = 1;
	mad_set_field(f.nodes[f.ports[sw].node].sw_info, 0,
	    IB_SW_ENHANCED_PORT0_F, 0);
	ck_assert(plan_port_single(&f, sw, true));
	mad_set_field(f.nodes[f.ports[sw].node].sw_info, 0,
	    IB_SW_ENHANCED_PORT0_F, 1);
	ck_assert(!plan_port_single(&f, sw, true));
	ck_assert(plan_port_single(&f, sw, false));
	/* and the requests say so */
	n = plan_lid_requests(&f, &vs, 0, true, &reqs, &idx);
	for (size_t i = 0; i < n; i++)
		ck_assert(reqs[i].single == (idx[i] == sw ? false :
		    f.nodes[f.ports[idx[i]].node].type == NODE_SWITCH));
	free(reqs);
	free(idx);
}
END_TEST

static struct pkey_policy *
policy(const char *text)
{
	struct pkey_errors e;
	struct pkey_policy *p;

	pkey_errors_init(&e);
	p = pkey_policy_parse("partitions.conf", text, strlen(text), &e);
	pkey_errors_fini(&e);
	ck_assert_ptr_nonnull(p);
	return p;
}

static bool
has_key(const uint16_t *keys, uint16_t n, uint16_t key)
{
	for (uint16_t i = 0; i < n; i++)
		if ((keys[i] & 0x7fff) == (key & 0x7fff))
			return true;
	return false;
}

START_TEST(test_no_policy)
{
	struct pkey_tables out, dev;
	struct pkey_want *want = (void *)1;
	struct plan_pkeys p = { .f = &f, .vps = &vs, .dev = &dev,
	    .enforce = 3 };

	memset(&out, 0, sizeof(out));
	memset(&dev, 0, sizeof(dev));
	plan_pkeys(&p, &out, &want);
	ck_assert_ptr_null(want);
	ck_assert_uint_eq(out.n, 0);
}
END_TEST

/* Enforcement as configured on switch ports facing CAs; every end port's
 * table holds its keys; ports with no table are left alone. */
START_TEST(test_pkeys_enforce)
{
	static const int modes[] = { 3, 0 };
	struct pkey_policy *pol = policy("Default=0x7fff, ipoib : ALL=full ;\n"
	    "p1=0x8001 : 0x0002c9030000000b=full ;\n");

	for (size_t m = 0; m < 2; m++) {
		struct pkey_tables out, dev;
		struct pkey_want *want;
		struct plan_pkeys p = { .policy = pol, .f = &f, .vps = &vs,
		    .dev = &dev, .enforce = modes[m] };
		uint32_t hca = fabric_port_idx(&f, 10, 1);
		uint32_t sw = fabric_port_idx(&f, 2, 1); /* leaf 2 to HCA 10 */

		memset(&out, 0, sizeof(out));
		memset(&dev, 0, sizeof(dev));
		plan_pkeys(&p, &out, &want);
		ck_assert_ptr_nonnull(want);
		ck_assert_uint_gt(out.n, 0);
		ck_assert_ptr_nonnull(want[hca].keys);
		ck_assert(has_key(want[hca].keys, want[hca].n, 0x7fff));
		ck_assert_int_eq(want[hca].enforce, -1);
		ck_assert_int_eq(want[sw].enforce, modes[m]);
		if (modes[m] == 0)
			ck_assert_ptr_null(want[sw].keys);
		else
			ck_assert(has_key(want[sw].keys, want[sw].n, 0x7fff));
		/* a switch port facing a switch: left alone */
		ck_assert_int_eq(want[fabric_port_idx(&f, 2, 3)].enforce, -1);
		ck_assert_ptr_null(want[fabric_port_idx(&f, 2, 3)].keys);
		free(want);
		pkey_tables_free(&out);
	}
	pkey_policy_free(pol);
}
END_TEST

/* dst (empty) a copy of src. */
static void
tables_copy(struct pkey_tables *dst, const struct pkey_tables *src)
{
	dst->v = calloc(src->n ? src->n : 1, sizeof(*dst->v));
	ck_assert_ptr_nonnull(dst->v);
	dst->n = src->n;
	for (size_t i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].keys = calloc(src->v[i].cap ? src->v[i].cap : 1,
		    sizeof(uint16_t));
		ck_assert_ptr_nonnull(dst->v[i].keys);
		memcpy(dst->v[i].keys, src->v[i].keys,
		    src->v[i].cap * sizeof(uint16_t));
	}
}

/* The index of a key that stays comes from the tables in use, or, where
 * there are none, from what the devices hold (then freed). */
START_TEST(test_pkeys_indices)
{
	struct pkey_policy *pol = policy("Default=0x7fff : ALL=full ;\n"
	    "p1=0x8001 : ALL=full ;\n");
	struct pkey_tables first, second, dev;
	struct pkey_want *want;
	struct plan_pkeys p = { .policy = pol, .f = &f, .vps = &vs,
	    .dev = &dev, .enforce = 3 };
	uint32_t hca = fabric_port_idx(&f, 10, 1);
	size_t t;

	memset(&first, 0, sizeof(first));
	memset(&second, 0, sizeof(second));
	memset(&dev, 0, sizeof(dev));
	plan_pkeys(&p, &first, &want);
	free(want);
	for (t = 0; t < first.n && first.v[t].port != hca; t++)
		;
	ck_assert_uint_lt(t, first.n);
	/* the tables in use with p1 at the last index (the default key
	 * always takes index 0) */
	for (uint16_t i = 0; i < first.v[t].cap; i++)
		if ((first.v[t].keys[i] & 0x7fff) == 0x0001)
			first.v[t].keys[i] = 0;
	first.v[t].keys[first.v[t].cap - 1] = 0x8001;
	p.cur = &first;
	plan_pkeys(&p, &second, &want);
	ck_assert_uint_eq(want[hca].keys[want[hca].n - 1], 0x8001);
	free(want);
	pkey_tables_free(&second);
	/* the devices' tables first where there are some: then freed */
	tables_copy(&dev, &first);
	p.cur = NULL;
	plan_pkeys(&p, &second, &want);
	ck_assert_uint_eq(dev.n, 0);
	ck_assert_uint_eq(want[hca].keys[want[hca].n - 1], 0x8001);
	free(want);
	pkey_tables_free(&second);
	pkey_tables_free(&first);
	pkey_policy_free(pol);
}
END_TEST

/* Virtualization on: a managed vport named in the policy gets its own
 * table, its keys kept out of the physical port's. */
START_TEST(test_vport_tables)
{
	struct pkey_policy *pol = policy("Default=0x7fff : ALL=full ;\n"
	    "tenant=0x8005 : 0x0000000000001111=full ;\n");
	struct pkey_tables out, dev;
	struct pkey_want *want;
	struct plan_pkeys p = { .policy = pol, .f = &f, .vps = &vs,
	    .dev = &dev, .enforce = 3, .virt_mode = CFG_VIRT_ENABLED };
	uint32_t v = add_vport(10, 1, 0x1111, true);
	uint32_t hca = fabric_port_idx(&f, 10, 1);

	memset(&out, 0, sizeof(out));
	memset(&dev, 0, sizeof(dev));
	plan_pkeys(&p, &out, &want);
	ck_assert_ptr_nonnull(vs.v[v].pkeys);
	ck_assert(has_key(vs.v[v].pkeys, vs.v[v].pkey_cap, 0x0005));
	ck_assert(!has_key(want[hca].keys, want[hca].n, 0x0005));
	free(want);
	pkey_tables_free(&out);
	/* virtualization off: no vport table */
	vport_pkeys_alloc(&vs, v);
	memset(vs.v[v].pkeys, 0, vs.v[v].pkey_cap * sizeof(uint16_t));
	p.virt_mode = CFG_VIRT_OFF;
	plan_pkeys(&p, &out, &want);
	ck_assert(!has_key(vs.v[v].pkeys, vs.v[v].pkey_cap, 0x0005));
	free(want);
	pkey_tables_free(&out);
	pkey_policy_free(pol);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lid_requests);
	tcase_add_test(tc, test_lid_single);
	tcase_add_test(tc, test_no_policy);
	tcase_add_test(tc, test_pkeys_enforce);
	tcase_add_test(tc, test_pkeys_indices);
	tcase_add_test(tc, test_vport_tables);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
