/*
 * The routing kernel on its own: the switch graph of hand-made fabrics,
 * both breadth-first searches against each other, kernel_spread() against
 * the plain one-LID-at-a-time rule it must equal, previous rows found by
 * GUID, and kernel_fill_row() from planes marked here by the shortest-path
 * rule, with and without previous rows.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "routing/kernel.h"
#include "tests/unit/testfab.h"

/*
 * Three 6-port switches: two parallel cables 0-1, a cable looped back
 * into switch 0, a usable cable 1-2 and one whose far end is DOWN; a CA on
 * switch 2, a CA cabled to another CA, and a CA port with no cable.
 */
static void
odd_fabric(struct fabric *f)
{
	uint32_t s0, s1, s2, ca0, ca1, ca2;

	fabric_init(f);
	s0 = testfab_switch(f, 6);
	s1 = testfab_switch(f, 6);
	s2 = testfab_switch(f, 6);
	ca0 = testfab_ca(f, 1);
	ca1 = testfab_ca(f, 2);
	ca2 = testfab_ca(f, 1);
	testfab_connect(f, s0, 1, s1, 1);
	testfab_connect(f, s0, 2, s1, 2);
	testfab_connect(f, s0, 4, s0, 5);
	testfab_connect(f, s1, 3, s2, 1);
	testfab_connect(f, s1, 4, s2, 2);
	f->ports[fabric_port_idx(f, s2, 2)].state = PORT_DOWN;
	testfab_connect(f, s2, 3, ca0, 1);
	testfab_connect(f, ca1, 1, ca2, 1);
	/* LIDs 1-3 the switches, 4 ca0, 5-6 ca1, 7 ca2 ... */
	testfab_lids(f);
	/* ... but ca2 is given ca0's LID: the first port keeps it */
	fabric_set_lid(f, fabric_port_idx(f, ca2, 1), 4, 0);
}

START_TEST(test_graph)
{
	static const uint32_t off[] = { 0, 2, 5, 6 };
	static const uint32_t sw[] = { 1, 1, 0, 0, 2, 1 };
	static const uint8_t port[] = { 1, 2, 1, 2, 3, 1 };
	static const uint32_t dst_off[] = { 0, 1, 2, 4 };
	static const uint16_t dst_lid[] = { 1, 2, 3, 4 };
	static const uint8_t dst_port[] = { 0, 0, 0, 3 };
	struct kernel_graph g;
	struct lft_set s;
	struct fabric f;
	uint8_t p = 99;

	odd_fabric(&f);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_uint_eq(s.max_lid, 6);
	kernel_graph_build(&f, &s, &g);
	ck_assert_uint_eq(g.nsw, 3);
	ck_assert_mem_eq(g.off, off, sizeof(off));
	ck_assert_mem_eq(g.sw, sw, sizeof(sw));
	ck_assert_mem_eq(g.port, port, sizeof(port));
	ck_assert_mem_eq(g.dst_off, dst_off, sizeof(dst_off));
	ck_assert_mem_eq(g.dst_lid, dst_lid, sizeof(dst_lid));
	ck_assert_mem_eq(g.dst_port, dst_port, sizeof(dst_port));

	ck_assert(!kernel_link_usable(&f, fabric_port_idx(&f, 1, 4)));
	ck_assert(!kernel_link_usable(&f, fabric_port_idx(&f, 1, 5)));
	ck_assert(kernel_link_usable(&f, fabric_port_idx(&f, 0, 4)));
	ck_assert_uint_eq(kernel_attach(&f, &s, fabric_port_idx(&f, 3, 1), &p),
	    2);
	ck_assert_uint_eq(p, 3);
	ck_assert_uint_eq(kernel_attach(&f, &s, fabric_port_idx(&f, 1, 0), &p),
	    1);
	ck_assert_uint_eq(p, 0);
	ck_assert_uint_eq(kernel_attach(&f, &s, fabric_port_idx(&f, 4, 1), &p),
	    FABRIC_NONE);
	ck_assert_uint_eq(kernel_attach(&f, &s, fabric_port_idx(&f, 4, 2), &p),
	    FABRIC_NONE);

	kernel_graph_free(&g);
	ck_assert_ptr_null(g.off);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* Every switch's distances to all others, both ways, on random fabrics
 * of more than 64 switches (two bfs64 passes, the second partial). */
START_TEST(test_bfs_agree)
{
	uint32_t *dist, *queue, *bfs, base, nb, i, v, level;
	struct kernel_bfs64 b;
	struct kernel_graph g;
	struct lft_set s;
	struct fabric f;
	uint64_t bits, any;

	fabric_init(&f);
	testfab_random(&f, 90, 2, 40, 5 + (uint64_t)_i);
	/* a switch of its own: nothing reaches it */
	testfab_switch(&f, 4);
	testfab_lids(&f);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	kernel_graph_build(&f, &s, &g);
	dist = calloc(s.nsw, sizeof(*dist));
	queue = calloc(s.nsw, sizeof(*queue));
	bfs = calloc((size_t)s.nsw * s.nsw, sizeof(*bfs));
	ck_assert(dist != NULL && queue != NULL && bfs != NULL);
	for (i = 0; i < (size_t)s.nsw * s.nsw; i++)
		bfs[i] = UINT32_MAX;
	kernel_bfs64_init(&b, s.nsw);
	for (base = 0; base < s.nsw; base += 64) {
		nb = s.nsw - base < 64 ? s.nsw - base : 64;
		kernel_bfs64_start(&b, base, nb);
		for (i = 0; i < nb; i++)
			bfs[(size_t)(base + i) * s.nsw + base + i] = 0;
		for (level = 1; (any = kernel_bfs64_step(&b, &g)) != 0;
		    level++) {
			for (v = 0, bits = 0; v < s.nsw; v++) {
				bits |= b.front[v];
				for (uint64_t w = b.front[v]; w; w &= w - 1)
					bfs[(size_t)v * s.nsw + base +
					    (uint32_t)__builtin_ctzll(w)] = level;
			}
			ck_assert_uint_eq(bits, any);
		}
	}
	kernel_bfs64_fini(&b);
	for (v = 0; v < s.nsw; v++) {
		kernel_bfs(&g, &v, 1, dist, queue);
		for (i = 0; i < s.nsw; i++)
			ck_assert_msg(bfs[(size_t)i * s.nsw + v] == dist[i],
			    "switch %u to %u: bfs64 %u, bfs %u", i, v,
			    bfs[(size_t)i * s.nsw + v], dist[i]);
	}
	ck_assert_uint_eq(dist[s.nsw - 2], UINT32_MAX);
	free(dist);
	free(queue);
	free(bfs);
	kernel_graph_free(&g);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* 0 .. n - 1, from libc's reentrant generator (the same for a seed). */
static unsigned
roll(unsigned *seed, unsigned n)
{
	return (unsigned)rand_r(seed) % n;
}

/* kernel_spread() deals in rounds and turns; each LID, one at a time,
 * to the first candidate with the fewest LIDs is what it must equal. */
START_TEST(test_spread)
{
	uint32_t cnt[256], ref[256], k, j, best;
	uint8_t row[512], want[512], cand[16], used[256];
	uint16_t lids[300];
	unsigned seed = 42, c, i, trial;

	for (trial = 0; trial < 2000; trial++) {
		c = 1 + roll(&seed, 12);
		memset(used, 0, sizeof(used));
		for (i = 0; i < c; i++) {
			do
				cand[i] = (uint8_t)(1 + roll(&seed, 40));
			while (used[cand[i]]);
			used[cand[i]] = 1;
		}
		for (i = 0; i < 256; i++)
			cnt[i] = ref[i] = (uint32_t)(trial % 3 == 0 ? 0 :
			    roll(&seed, 6));
		k = roll(&seed, 300);
		for (j = 0; j < k; j++)
			lids[j] = (uint16_t)(j + 1 + roll(&seed, 2) * 200);
		memset(row, 0xff, sizeof(row));
		memset(want, 0xff, sizeof(want));
		for (j = 0; j < k; j++) {
			for (i = 1, best = 0; i < c; i++)
				if (ref[cand[i]] < ref[cand[best]])
					best = i;
			want[lids[j]] = cand[best];
			ref[cand[best]]++;
		}
		kernel_spread(row, cnt, cand, c, lids, k);
		ck_assert_mem_eq(row, want, sizeof(row));
		ck_assert_mem_eq(cnt, ref, sizeof(cnt));
	}
}
END_TEST

START_TEST(test_prev_row)
{
	struct fabric f, g;
	struct lft_set s;
	uint16_t max = 0;
	uint32_t lone;
	const uint8_t *r;

	fabric_init(&f);
	testfab_ft2(&f, 4);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	memset(lft_row(&s, 2), 7, (size_t)s.max_lid + 1);
	ck_assert_ptr_null(kernel_prev_row(NULL, &s, f.nodes[2].guid, &max));
	ck_assert_ptr_null(kernel_prev_row(&f, NULL, f.nodes[2].guid, &max));
	r = kernel_prev_row(&f, &s, f.nodes[2].guid, &max);
	ck_assert_ptr_eq(r, lft_row(&s, 2));
	ck_assert_uint_eq(max, s.max_lid);
	/* a CA's GUID and a GUID the fabric lacks: no row */
	ck_assert_ptr_null(kernel_prev_row(&f, &s,
	    f.nodes[f.nnodes - 1].guid, &max));
	fabric_init(&g);
	testfab_ft2(&g, 6);
	lone = testfab_switch(&g, 4);
	ck_assert_ptr_null(kernel_prev_row(&f, &s, g.nodes[lone].guid, &max));
	fabric_fini(&g);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/* Planes by the shortest-path rule, the slow way. */
static void
mark_shortest(const struct kernel_graph *g, struct kernel_row *x,
    uint32_t sw, const uint32_t *d)
{
	uint8_t *pl = kernel_row_planes(x, g, sw);
	uint32_t e, t, n = g->nsw;

	for (e = g->off[sw]; e < g->off[sw + 1]; e++)
		for (t = 0; t < n; t++)
			if (d[(size_t)sw * n + t] != UINT32_MAX &&
			    d[(size_t)g->sw[e] * n + t] + 1 ==
			    d[(size_t)sw * n + t])
				pl[(e - g->off[sw]) / 8 * x->stride + t] |=
				    (uint8_t)(1u << ((e - g->off[sw]) % 8));
}

/*
 * Leaf 0 of a two-level tree of 4-port switches (ports 1-2 its HCAs, 3-4
 * the two spines), with a switch no cable reaches: its own LIDs direct,
 * the spines' forced, the nine other LIDs spread over both up ports, the
 * previous ports kept where they are candidates.
 */
START_TEST(test_fill_row)
{
	struct kernel_graph g;
	struct kernel_row x;
	struct lft_set s;
	struct fabric f;
	uint32_t *d, *q, sw, lone, cnt[256], lid, kept = 0;
	uint8_t *row, prev[64];

	fabric_init(&f);
	testfab_ft2(&f, 4);
	lone = testfab_switch(&f, 4);
	testfab_connect(&f, lone, 1, testfab_ca(&f, 1), 1);
	testfab_lids(&f);
	ck_assert_int_eq(lft_set_init(&s, &f), 0);
	ck_assert_uint_lt(s.max_lid, sizeof(prev));
	kernel_graph_build(&f, &s, &g);
	d = calloc((size_t)g.nsw * g.nsw, sizeof(*d));
	q = calloc(g.nsw, sizeof(*q));
	ck_assert(d != NULL && q != NULL);
	for (sw = 0; sw < g.nsw; sw++)
		kernel_bfs(&g, &sw, 1, d + (size_t)sw * g.nsw, q);
	kernel_row_init(&x, &g, (g.nsw + 7) & ~7u);
	row = lft_row(&s, 0);

	mark_shortest(&g, &x, 0, d);
	ck_assert_uint_eq(kernel_candidates(&g, &x, 0, 1), 2);
	ck_assert_uint_eq(x.cand[0], 3);
	ck_assert_uint_eq(x.cand[1], 4);
	ck_assert_uint_eq(kernel_fill_row(&g, &x, 0, row, NULL, 0), 1);
	memset(cnt, 0, sizeof(cnt));
	for (lid = 1; lid <= s.max_lid; lid++)
		cnt[row[lid]]++;
	/* own LID, two HCAs; spines 5 and 6 forced; 9 LIDs over 3 and 4 */
	ck_assert_uint_eq(row[f.ports[fabric_port_idx(&f, 0, 0)].lid], 0);
	ck_assert_uint_eq(cnt[0], 1);
	ck_assert_uint_eq(cnt[1], 1);
	ck_assert_uint_eq(cnt[2], 1);
	ck_assert_uint_eq(row[f.ports[fabric_port_idx(&f, 4, 0)].lid], 3);
	ck_assert_uint_eq(row[f.ports[fabric_port_idx(&f, 5, 0)].lid], 4);
	ck_assert_uint_eq(cnt[3] + cnt[4], 11);
	ck_assert_uint_le(cnt[3] > cnt[4] ? cnt[3] - cnt[4] : cnt[4] - cnt[3],
	    1);
	/* the lone switch and its CA: no route */
	ck_assert_uint_eq(cnt[LFT_NO_ROUTE], 2);

	/* previous: every LID on port 3 but the odd ones on port 1, no
	 * candidate: those move, the others stay */
	for (lid = 0; lid < sizeof(prev); lid++)
		prev[lid] = lid % 2 ? 1 : 3;
	memset(row, LFT_NO_ROUTE, (size_t)s.max_lid + 1);
	ck_assert_uint_eq(kernel_fill_row(&g, &x, 0, row, prev, s.max_lid), 1);
	memset(cnt, 0, sizeof(cnt));
	for (lid = 1; lid <= s.max_lid; lid++) {
		cnt[row[lid]]++;
		if (row[lid] == 3 || row[lid] == 4)
			kept += (lid % 2 == 0) == (row[lid] == 3);
	}
	ck_assert_uint_eq(cnt[3] + cnt[4], 11);
	/* of the nine LIDs with a choice, the five even kept port 3 and the
	 * four odd went to the less loaded port 4; the spines' LIDs (5 to
	 * port 3, 6 to port 4) are forced and not counted */
	ck_assert_uint_eq(row[5], 3);
	ck_assert_uint_eq(row[6], 4);
	ck_assert_uint_eq(kept, 9);

	free(d);
	free(q);
	kernel_row_fini(&x);
	kernel_graph_free(&g);
	lft_set_fini(&s);
	fabric_fini(&f);
}
END_TEST

/*
 * The turns the LIDs of a block take: six candidates to four switches of
 * three systems (ports 1-2 to switch 0, 3 to switch 1, both of system 1;
 * 4-5 to switch 2 of system 2; 6 to switch 3 of system 3): one port to
 * each system first, then the other switch of system 1, then the second
 * ports. A block of four LIDs whose base took port 4 steps on from it.
 */
/* kernel_lmc_port: candidates 1-6 lead to switches 0 0 1 2 2 3, of
 * systems 1 2 3 4 (one each) or, later, 1 1 3 1 (switches 0, 1, 3 one
 * system). */
START_TEST(test_lmc_port)
{
	uint64_t sys[4] = { 1, 2, 3, 4 };
	uint32_t dst_off[2] = { 0, 8 }, cnt[256];
	uint16_t dst_lid[8] = { 4, 5, 6, 7, 8, 9, 10, 11 };
	uint8_t dst_rank[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	uint8_t row[16];
	struct kernel_graph g = { .nsw = 4, .sys = sys, .dst_off = dst_off,
	    .dst_lid = dst_lid, .dst_rank = dst_rank, .multi = true };
	struct kernel_row x;
	unsigned i;

	memset(&x, 0, sizeof(x));
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 6; i++) {
		x.cand[i] = (uint8_t)(i + 1);
		x.cand_sw[i] = i < 2 ? 0 : i < 3 ? 1 : i < 5 ? 2 : 3;
	}
	memset(row, LFT_NO_ROUTE, sizeof(row));
	/* base on port 4 (switch 2): another switch, the least loaded
	 * (port 1 carries 2 base LIDs, port 2 one more past the base) */
	row[4] = 4;
	cnt[1] = 2;
	x.extra[2] = 1;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 3);
	row[5] = 3;
	/* switches 0 and 3 left: port 2 (load 1) before 1 (2) and 6 (3) */
	cnt[6] = 3;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 2);
	row[6] = 2;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 6);
	/* every switch reached: a port the block does not take, on a switch
	 * it reaches (5 beside 4, 1 beside 2), the least loaded */
	row[7] = 6;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 5);
	/* a LID kept at a higher rank counts as taken too */
	memset(row, LFT_NO_ROUTE, sizeof(row));
	row[8] = 1;
	row[10] = 3;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 4, 8, cnt), 4);
	/* another system before another switch of a system reached */
	sys[1] = sys[3] = 1;
	memset(cnt, 0, sizeof(cnt));
	memset(x.extra, 0, sizeof(x.extra));
	memset(row, LFT_NO_ROUTE, sizeof(row));
	row[4] = 1;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 4);
	row[5] = 4;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 6, row, 0, 4, cnt), 3);
	/* all ports taken: the least loaded of them */
	memset(row, LFT_NO_ROUTE, sizeof(row));
	row[4] = 2;
	row[5] = 1;
	x.extra[1] = 1;
	ck_assert_uint_eq(kernel_lmc_port(&g, &x, 2, row, 0, 4, cnt), 2);
}
END_TEST

static Suite *
kernel_suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_graph);
	tcase_add_loop_test(tc, test_bfs_agree, 0, 3);
	tcase_add_test(tc, test_spread);
	tcase_add_test(tc, test_prev_row);
	tcase_add_test(tc, test_fill_row);
	tcase_add_test(tc, test_lmc_port);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(kernel_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
