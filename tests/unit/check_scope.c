/*
 * sa/scope: which end ports share a partition, and the key a path uses.
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>

#include "core/fabric.h"
#include "partitions/partitions.h"
#include "sa/scope.h"
#include "tests/unit/testfab.h"

static struct fabric F;
static struct pkey_tables PK;
static struct sa_view V;
static uint32_t ca[4];          /* port index of each CA's port 1 */

/* Table of CA i: up to four keys. */
static void
set_keys(unsigned i, uint16_t k0, uint16_t k1, uint16_t k2, uint16_t k3)
{
	struct pkey_table *t = &PK.v[i];
	const struct fabric_port *p = &F.ports[ca[i]];

	t->guid = p->guid;
	t->port = ca[i];
	t->num = p->num;
	t->kind = PKEY_TABLE_PORT;
	t->cap = 4;
	t->keys = calloc(4, sizeof(*t->keys));
	t->keys[0] = k0;
	t->keys[1] = k1;
	t->keys[2] = k2;
	t->keys[3] = k3;
}

static void
setup(void)
{
	uint32_t sw, n;
	unsigned i;

	fabric_init(&F);
	sw = testfab_switch(&F, 8);
	for (i = 0; i < 4; i++) {
		n = testfab_ca(&F, 1);
		testfab_connect(&F, sw, (uint8_t)(i + 1), n, 1);
		ca[i] = fabric_port_idx(&F, n, 1);
	}
	testfab_lids(&F);
	PK.n = 4;
	PK.v = calloc(4, sizeof(*PK.v));
	set_keys(0, 0xFFFF, 0x8001, 0x0002, 0);        /* full 7fff, 1; limited 2 */
	set_keys(1, 0x7FFF, 0x0002, 0x8003, 0);        /* limited 7fff, 2; full 3 */
	set_keys(2, 0x7FFF, 0x0001, 0x0003, 0);        /* all limited */
	set_keys(3, 0, 0, 0, 0);                       /* empty: shares all */
	pkey_tables_sort(&PK);
	V.f = &F;
	V.pk = &PK;
}

static void
teardown(void)
{
	pkey_tables_free(&PK);
	fabric_fini(&F);
}

START_TEST(share_needs_one_full)
{
	uint16_t k;

	ck_assert(sa_scope_share(&V, ca[0], ca[1]));    /* 7fff: 0 is full */
	ck_assert(sa_scope_common_pkey(&V, ca[0], ca[1], &k));
	ck_assert_uint_eq(k, 0xFFFF);                   /* a's form */
	ck_assert(sa_scope_common_pkey(&V, ca[1], ca[0], &k));
	ck_assert_uint_eq(k, 0x7FFF);
	/* 1 and 2: 7fff both limited, 3 full in 1 and limited in 2 */
	ck_assert(sa_scope_common_pkey(&V, ca[1], ca[2], &k));
	ck_assert_uint_eq(k, 0x8003);
	ck_assert(sa_scope_common_pkey(&V, ca[0], ca[2], &k));
	ck_assert_uint_eq(k, 0x8001);
}
END_TEST

START_TEST(limited_pairs_share_nothing)
{
	struct pkey_table *t = NULL;
	uint16_t k;
	size_t i;

	/* make 0 limited in everything: 0 and 2 then share nothing */
	for (i = 0; i < PK.n; i++)
		if (PK.v[i].port == ca[0])
			t = &PK.v[i];
	ck_assert_ptr_nonnull(t);
	t->keys[0] = 0x7FFF;
	t->keys[1] = 0x0001;
	ck_assert(!sa_scope_share(&V, ca[0], ca[2]));
	ck_assert(!sa_scope_common_pkey(&V, ca[0], ca[2], &k));
}
END_TEST

/* Issue 22 point 1: a limited member of every partition is in scope of
 * itself and of every full member of its partitions, of no limited one;
 * a loopback path still needs a key one end holds in full. */
START_TEST(self_in_scope)
{
	uint16_t k;

	ck_assert(sa_scope_share(&V, ca[2], ca[2]));    /* all limited */
	ck_assert(!sa_scope_common_pkey(&V, ca[2], ca[2], &k));
	ck_assert(sa_scope_share(&V, ca[2], ca[0]));    /* 0 full in 7fff */
	ck_assert(sa_scope_share(&V, ca[2], ca[1]));    /* 1 full in 3 */
	ck_assert(sa_scope_share(&V, ca[0], ca[0]));
	ck_assert(sa_scope_common_pkey(&V, ca[0], ca[0], &k));
	ck_assert_uint_eq(k, 0x8001);
}
END_TEST

START_TEST(empty_and_unknown_share_all)
{
	uint16_t k;
	bool full;

	ck_assert(sa_scope_share(&V, ca[3], ca[2]));
	ck_assert(sa_scope_has(&V, ca[3], 0x1234, &full));
	ck_assert(full);
	ck_assert(sa_scope_common_pkey(&V, ca[2], ca[3], &k));
	ck_assert_uint_eq(k, 0x0001);           /* 2's lowest, limited */
	ck_assert(sa_scope_has(&V, ca[1], 0x8002, &full));
	ck_assert(!full);
	ck_assert(!sa_scope_has(&V, ca[1], 0x0001, NULL));
	V.pk = NULL;
	ck_assert(sa_scope_common_pkey(&V, ca[0], ca[2], &k));
	ck_assert_uint_eq(k, 0xFFFF);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("scope");
	TCase *tc = tcase_create("scope");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, share_needs_one_full);
	tcase_add_test(tc, limited_pairs_share_nothing);
	tcase_add_test(tc, self_in_scope);
	tcase_add_test(tc, empty_and_unknown_share_all);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
