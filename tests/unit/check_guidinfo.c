/*
 * sa/guidinfo: GUIDInfoRecord Set, Delete and Get as mlx4 hosts use them
 * (mask LID | BlockNum | GUIDi), on an in-memory fabric with an alias
 * store; ClassPortInfo's IsAdditionalGUIDsSupported; and PathRecord by an
 * alias DGID (sa/path resolves it to the physical port).
 */
#include "autoconfig.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/fabric.h"
#include "core/lft.h"
#include "mad/mad.h"
#include "routing/routing.h"
#include "sa/attr.h"
#include "sa/guidinfo.h"
#include "sa/path.h"
#include "sa/pathrec.h"
#include "sa/records.h"
#include "tests/unit/testfab.h"

#define PREFIX 0xFE80000000000000ULL
#define M(i)	(UINT64_C(1) << (i))
#define LIDBLK	(M(0) | M(1))
#define GUIDS	(0xffULL << 4)

static struct fabric F;
static struct lft_set L;
static struct sa_view V;
static struct sa_opts O = { .subnet_timeout = 18 };
static struct sa_ctx C, CP;
static void *ST, *PST;
static struct alias_store *AS;
static uint32_t A, B;
static unsigned nchanged, last_block;
static uint32_t last_port;

static void
changed(void *arg, uint32_t port, unsigned block)
{
	(void)arg;
	nchanged++;
	last_port = port;
	last_block = block;
}

static void
setup(void)
{
	uint32_t s, a, b;
	char why[200];

	fabric_init(&F);
	s = testfab_switch(&F, 4);
	a = testfab_ca(&F, 1);
	b = testfab_ca(&F, 1);
	testfab_connect(&F, s, 1, a, 1);
	testfab_connect(&F, s, 2, b, 1);
	testfab_lids(&F);
	A = fabric_port_idx(&F, a, 1);
	B = fabric_port_idx(&F, b, 1);
	for (uint32_t p = 0; p < F.nports; p++) {
		F.ports[p].info_valid = 1;
		F.ports[p].info[41] = 5;	/* MTUCap */
		F.ports[p].info[36] = 0x50;
		F.ports[p].info[31] = 2;	/* 4X */
		F.ports[p].info[35] = 0x47;
		F.ports[p].info[32] = 0x74;
		F.ports[p].state = 4;
	}
	F.ports[A].info[50] = 1;	/* no alias GUIDs */
	F.ports[B].info[50] = 32;	/* GUIDCap 32: 4 blocks */
	ck_assert_int_eq(lft_set_init(&L, &F), 0);
	ck_assert(re_minhop.route(&F, &(struct routing_opts){ 0 }, &L, why,
	    sizeof(why)) == 0);
	AS = alias_store_new(0x2a);
	memset(&V, 0, sizeof(V));
	V.f = &F;
	V.lft = &L;
	V.subnet_prefix = PREFIX;
	V.alias = AS;
	V.alias_changed = changed;
	ST = sa_attr_guidinfo.init(NULL, NULL);
	sa_attr_guidinfo.view_changed(ST, NULL, &V);
	PST = sa_attr_path_record.init(NULL, NULL);
	sa_attr_path_record.view_changed(PST, NULL, &V);
	C = (struct sa_ctx){ .v = &V, .o = &O, .state = ST };
	CP = (struct sa_ctx){ .v = &V, .o = &O, .state = PST };
	nchanged = 0;
}

static void
teardown(void)
{
	sa_attr_guidinfo.fini(ST);
	sa_attr_path_record.fini(PST);
	alias_store_free(AS);
	lft_set_fini(&L);
	fabric_fini(&F);
}

static uint8_t MAD[256];

static unsigned
run(sa_handler_fn fn, const struct sa_ctx *c, uint8_t method, uint64_t mask,
    const uint8_t *rec, size_t len, struct sa_out *o, uint16_t size)
{
	struct sa_req q = {
		.method = method, .attr = SA_ATTR_GUIDINFO_REC,
		.comp_mask = mask, .rec = MAD + SA_HDR_SIZE, .mad = MAD,
		.len = 256, .requester = A,
	};

	memset(MAD, 0, sizeof(MAD));
	memcpy(MAD + SA_HDR_SIZE, rec, len);
	sa_out_init(o, size, method == MAD_GET ? 2 : 0);
	return fn(c, &q, o);
}

/* A GUIDInfoRecord for port p, block b, GUIDs g[8] (NULL: zeros). */
static void
rec(uint8_t *r, uint32_t p, unsigned b, const uint64_t *g)
{
	memset(r, 0, SA_GUIDINFO_REC_SIZE);
	sa_set_bits(r, 0, 16, F.ports[p].lid);
	r[2] = (uint8_t)b;
	for (unsigned i = 0; g != NULL && i < 8; i++)
		sa_set_bits(r, 64 + 64 * i, 64, g[i]);
}

static uint64_t
guid_at(const struct sa_out *o, unsigned i)
{
	return sa_get_bits(o->recs, 64 + 64 * i, 64);
}

static unsigned
set(unsigned method, uint32_t p, unsigned b, const uint64_t *g,
    uint64_t mask, struct sa_out *o)
{
	uint8_t r[SA_GUIDINFO_REC_SIZE];

	rec(r, p, b, g);
	return run(method == MAD_DELETE ? sa_attr_guidinfo.del :
	    sa_attr_guidinfo.set, &C, (uint8_t)method, mask, r, sizeof(r), o,
	    SA_GUIDINFO_REC_SIZE);
}

/* 8 alias GUIDs asked with 0 (block 1: indices 8-15): 8 distinct ones,
 * the same again after Delete + Set; index 0 refused. */
START_TEST(test_set_delete_set)
{
	struct sa_out o;
	uint64_t got[8];

	ck_assert_uint_eq(set(MAD_SET, B, 1, NULL, LIDBLK | GUIDS, &o), 0);
	ck_assert_uint_eq(o.n, 1);
	ck_assert_uint_eq(o.recs[2], 1);
	for (unsigned i = 0; i < 8; i++) {
		got[i] = guid_at(&o, i);
		ck_assert_uint_eq(got[i] >> 40, ALIAS_OUI);
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(got[i], got[j]);
	}
	ck_assert_uint_eq(nchanged, 1);
	ck_assert_uint_eq(last_port, B);
	ck_assert_uint_eq(last_block, 1);
	sa_out_fini(&o);
	ck_assert_uint_eq(set(MAD_DELETE, B, 1, NULL, LIDBLK | GUIDS, &o), 0);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(guid_at(&o, i), 0);
	ck_assert_uint_eq(nchanged, 2);
	sa_out_fini(&o);
	ck_assert_uint_eq(set(MAD_SET, B, 1, NULL, LIDBLK | GUIDS, &o), 0);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(guid_at(&o, i), got[i]);
	sa_out_fini(&o);
	/* Nothing changes: no programming asked for. */
	ck_assert_uint_eq(set(MAD_SET, B, 1, NULL, LIDBLK | GUIDS, &o), 0);
	ck_assert_uint_eq(nchanged, 3);
	sa_out_fini(&o);
}
END_TEST

START_TEST(test_refusals)
{
	struct sa_out o;
	uint64_t g[8] = { 0 };

	/* Index 0 of block 0: REQ_INVALID, in Set and Delete. */
	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, LIDBLK | M(4), &o),
	    SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	ck_assert_uint_eq(set(MAD_DELETE, B, 0, NULL, LIDBLK | M(4), &o),
	    SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	/* No LID or BlockNum. */
	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, M(0) | M(5), &o),
	    SA_STATUS_INSUFFICIENT_COMPONENTS);
	sa_out_fini(&o);
	/* Past GUIDCap. */
	ck_assert_uint_eq(set(MAD_SET, B, 4, NULL, LIDBLK | M(4), &o),
	    SA_STATUS_REQ_INVALID);
	sa_out_fini(&o);
	/* A GUID in use: the other port's GUID, and an alias of another
	 * entry, come back 0; index 0 is the port's own. */
	g[1] = F.ports[A].guid;
	ck_assert_uint_eq(set(MAD_SET, B, 0, g, LIDBLK | M(5), &o), 0);
	ck_assert_uint_eq(guid_at(&o, 0), F.ports[B].guid);
	ck_assert_uint_eq(guid_at(&o, 1), 0);
	ck_assert_uint_eq(nchanged, 0);
	sa_out_fini(&o);
	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, LIDBLK | M(5), &o), 0);
	g[2] = guid_at(&o, 1);
	sa_out_fini(&o);
	ck_assert_uint_eq(set(MAD_SET, B, 0, g, LIDBLK | M(6), &o), 0);
	ck_assert_uint_eq(guid_at(&o, 2), 0);
	ck_assert_uint_eq(guid_at(&o, 1), g[2]);
	sa_out_fini(&o);
	/* A port with GUIDCap 1: every index refused with 0. */
	ck_assert_uint_eq(set(MAD_SET, A, 0, NULL, LIDBLK | M(5), &o), 0);
	ck_assert_uint_eq(guid_at(&o, 1), 0);
	sa_out_fini(&o);
	/* Without a store (virtualization not enabled): denied. */
	V.alias = NULL;
	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, LIDBLK | M(5), &o),
	    SA_STATUS_DENIED);
	sa_out_fini(&o);
}
END_TEST

/* Get reports what the device holds, not the assignment. */
START_TEST(test_get_device)
{
	struct sa_out o;
	uint8_t r[SA_GUIDINFO_REC_SIZE];
	uint64_t dev[8] = { 0, 0x11, 0x22 };

	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, LIDBLK | M(5), &o), 0);
	sa_out_fini(&o);
	rec(r, B, 0, NULL);
	ck_assert_uint_eq(run(sa_attr_guidinfo.get, &C, MAD_GETTABLE, M(0),
	    r, sizeof(r), &o, SA_GUIDINFO_REC_SIZE), 0);
	ck_assert_uint_eq(o.n, 4);		/* GUIDCap 32 */
	ck_assert_uint_eq(guid_at(&o, 0), F.ports[B].guid);
	ck_assert_uint_eq(guid_at(&o, 1), 0);	/* not read from the device */
	sa_out_fini(&o);
	alias_device_put(AS, F.ports[B].guid, 32, 0, dev);
	ck_assert_uint_eq(run(sa_attr_guidinfo.get, &C, MAD_GET, LIDBLK, r,
	    sizeof(r), &o, SA_GUIDINFO_REC_SIZE), 0);
	ck_assert_uint_eq(o.n, 1);
	ck_assert_uint_eq(guid_at(&o, 0), F.ports[B].guid);
	ck_assert_uint_eq(guid_at(&o, 1), 0x11);
	ck_assert_uint_eq(guid_at(&o, 2), 0x22);
	sa_out_fini(&o);
}
END_TEST

START_TEST(test_classport_bit)
{
	struct sa_out o;
	uint8_t r[72] = { 0 };
	struct sa *sa = sa_new(NULL, NULL, NULL);

	C.sa = sa;
	ck_assert_uint_eq(run(sa_attr_classport.get, &C, MAD_GET, 0, r, 72,
	    &o, 72), 0);
	ck_assert(mad_get_field(o.recs, 0, IB_CPI_CAPMASK2_F) & (1u << 5));
	sa_out_fini(&o);
	V.alias = NULL;
	ck_assert_uint_eq(run(sa_attr_classport.get, &C, MAD_GET, 0, r, 72,
	    &o, 72), 0);
	ck_assert(!(mad_get_field(o.recs, 0, IB_CPI_CAPMASK2_F) & (1u << 5)));
	sa_out_fini(&o);
	sa_free(sa);
}
END_TEST

/* A PathRecord to an alias GID goes to its physical port. */
START_TEST(test_path_alias)
{
	struct sa_out o;
	struct sa_path w = { 0 }, p;
	uint8_t r[64];
	uint64_t alias;

	ck_assert_uint_eq(set(MAD_SET, B, 0, NULL, LIDBLK | M(5), &o), 0);
	alias = guid_at(&o, 1);
	sa_out_fini(&o);
	for (int i = 0; i < 8; i++) {
		w.sgid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		w.dgid[i] = w.sgid[i];
		w.sgid[8 + i] = (uint8_t)(F.ports[A].guid >> (56 - 8 * i));
		w.dgid[8 + i] = (uint8_t)(alias >> (56 - 8 * i));
	}
	sa_path_encode(&w, r);
	ck_assert_uint_eq(run(sa_attr_path_record.get, &CP, MAD_GET,
	    PR_CM_SGID | PR_CM_DGID, r, 64, &o, 64), 0);
	ck_assert_uint_eq(o.n, 1);
	sa_path_decode(o.recs, &p);
	ck_assert_uint_eq(p.dlid, F.ports[B].lid);
	ck_assert_mem_eq(p.dgid, w.dgid, 16);
	sa_out_fini(&o);
	/* Deleted: the alias names nothing. */
	ck_assert_uint_eq(set(MAD_DELETE, B, 0, NULL, LIDBLK | M(5), &o), 0);
	sa_out_fini(&o);
	ck_assert_uint_eq(run(sa_attr_path_record.get, &CP, MAD_GET,
	    PR_CM_SGID | PR_CM_DGID, r, 64, &o, 64), SA_STATUS_INVALID_GID);
	sa_out_fini(&o);
}
END_TEST

static Suite *
guidinfo_suite(void)
{
	Suite *s = suite_create("guidinfo");
	TCase *tc = tcase_create("records");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_set_delete_set);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_get_device);
	tcase_add_test(tc, test_classport_bit);
	tcase_add_test(tc, test_path_alias);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(guidinfo_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
