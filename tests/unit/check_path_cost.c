/*
 * sa/path: the cost of one PathRecord Get on a big fabric (ft2 48) stays
 * proportional to the route's hops, not to the fabric's size (the
 * handlers' behaviour: check_path.c).
 */
#include "autoconfig.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "mad/mad.h"
#include "routing/routing.h"
#include "sa/attr.h"
#include "sa/path.h"
#include "sa/pathrec.h"
#include "tests/unit/testfab.h"

#define PREFIX 0xFE80000000000000ULL

static struct sa_opts opts = { .subnet_timeout = 18 };

/* ------------------------------------------------------------ cost */

START_TEST(get_is_o_hops)
{
	struct fabric big;
	struct lft_set bl;
	struct sa_view bv = { 0 };
	struct sa_path w = { 0 };
	struct sa_path_counters k0, k1;
	struct sa_out o;
	struct sa_ctx bc;
	struct timespec t0, t1;
	uint32_t s = FABRIC_NONE, d = FABRIC_NONE, p, nends = 0;
	void *st;
	char why[200];
	uint8_t rec[64];
	unsigned i, reps = 2000;
	double us;

	fabric_init(&big);
	testfab_ft2(&big, 48);          /* 48 leaves, 24 spines, 1152 HCAs */
	testfab_lids(&big);
	for (p = 0; p < big.nports; p++) {
		struct fabric_port *q = &big.ports[p];

		nends += fabric_port_is_endport(&big, p);
		if (!fabric_port_is_endport(&big, p) &&
		    q->peer == FABRIC_NONE)
			continue;
		q->info[31] = 2;
		q->info[32] = 0x70 | PORT_ACTIVE;
		q->info[35] = 4 << 4 | 7;
		q->info[41] = 5;
		q->info_valid = 1;
		q->state = PORT_ACTIVE;
		if (big.nodes[q->node].type == NODE_CA && q->num != 0) {
			if (s == FABRIC_NONE)
				s = p;
			d = p;          /* the last: on another leaf */
		}
	}
	ck_assert_int_eq(lft_set_init(&bl, &big), 0);
	ck_assert(re_minhop.route(&big, &(struct routing_opts){ 0 }, &bl, why,
	    sizeof(why)) == 0);
	bv.f = &big;
	bv.lft = &bl;
	bv.subnet_prefix = PREFIX;
	st = sa_attr_path_record.init(NULL, NULL);
	sa_attr_path_record.view_changed(st, NULL, &bv);
	bc = (struct sa_ctx){ .v = &bv, .o = &opts, .state = st };
	for (i = 0; i < 8; i++) {
		w.sgid[i] = (uint8_t)(PREFIX >> (56 - 8 * i));
		w.dgid[i] = w.sgid[i];
		w.sgid[8 + i] = (uint8_t)(big.ports[s].guid >> (56 - 8 * i));
		w.dgid[8 + i] = (uint8_t)(big.ports[d].guid >> (56 - 8 * i));
	}
	sa_path_encode(&w, rec);
	sa_path_counters(st, &k0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < reps; i++) {
		struct sa_req q = {
			.method = MAD_GET, .attr = SA_ATTR_PATH_REC,
			.comp_mask = PR_CM_SGID | PR_CM_DGID, .rec = rec,
			.mad = rec, .len = 256, .requester = s,
		};

		sa_out_init(&o, 64, 2);
		ck_assert_uint_eq(sa_attr_path_record.get(&bc, &q, &o),
		    SA_STATUS_OK);
		ck_assert_uint_eq(o.n, 1);
		sa_out_fini(&o);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sa_path_counters(st, &k1);
	us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	    1e3 / reps;
	/* one pair, two walks (there and back) of leaf-spine-leaf: 5 hops
	 * each counting both CAs */
	ck_assert_uint_eq(k1.pairs - k0.pairs, reps);
	ck_assert_uint_eq(k1.walks - k0.walks, 2 * reps);
	ck_assert_uint_le(k1.hops - k0.hops, 10 * reps);
	printf("check_path: one PathRecord Get on ft2(48), %u end ports: "
	    "%.2f us, %.1f hops walked\n", nends, us,
	    (double)(k1.hops - k0.hops) / reps);
	sa_attr_path_record.fini(st);
	lft_set_fini(&bl);
	fabric_fini(&big);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("path_cost");
	TCase *tb = tcase_create("cost");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tb, 60);
	tcase_add_test(tb, get_is_o_hops);
	suite_add_tcase(s, tb);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
