/*
 * mcast/tree: trees loop-free and reaching exactly the member ports on
 * in-memory fat trees (whole and with links removed), links balanced
 * across trees, and the MFT block format and diff.
 */
#include "autoconfig.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "mcast/group.h"
#include "mcast/tree.h"
#include "tests/unit/testfab.h"

static struct fabric F;

static void
setup(void)
{
	fabric_init(&F);
}

static void
teardown(void)
{
	fabric_fini(&F);
}

/* CA ports of F (port 1 of every CA), in node order. */
static uint32_t
ca_ports(uint32_t *out)
{
	uint32_t n, k = 0;

	for (n = 0; n < F.nnodes; n++)
		if (F.nodes[n].type == NODE_CA)
			out[k++] = fabric_port_idx(&F, n, 1);
	return k;
}

/*
 * The independent checker: from the masks alone, the switches with an
 * entry and the links between them must form one tree (symmetric, n - 1
 * links, connected), every CA port or switch port 0 in a mask must be a
 * receiving member and every receiving member must be in its switch's
 * mask, every leaf switch must hold a member, and every member's switch
 * must be in the tree.
 */
static void
check_tree(const struct mcast_trees *t, uint16_t mlid,
    const struct mcast_tree_member *m, size_t n)
{
	uint32_t nsw = mcast_trees_nsw(t), sw, i, links = 0, nodes = 0;
	uint32_t *deg = calloc(nsw, sizeof(*deg));
	uint8_t *seen = calloc(nsw, 1), *rx = calloc(F.nports, 1),
	    *member_sw = calloc(nsw, 1);
	uint32_t *queue = calloc(nsw, sizeof(*queue)), head = 0, tail = 0;
	unsigned members_sw = 0;

	for (i = 0; i < n; i++) {
		const struct fabric_port *p = &F.ports[m[i].port];
		uint32_t s;

		if (m[i].receive)
			rx[m[i].port] = 1;
		s = mcast_trees_node_sw(t, p->node);
		if (s == FABRIC_NONE)
			s = mcast_trees_node_sw(t, F.ports[p->peer].node);
		if (!member_sw[s])
			members_sw++;
		member_sw[s] = 1;
	}
	for (sw = 0; sw < nsw; sw++) {
		const struct mcast_mft *mft = mcast_trees_mft(t, sw);
		const struct fabric_node *nd =
		    &F.nodes[mcast_trees_sw_node(t, sw)];
		unsigned b;

		for (b = 0; b <= nd->nports; b++) {
			uint32_t p = nd->port0 + b, q;

			if (!mcast_mft_has_port(mft, mlid, b))
				continue;
			deg[sw] += 0;
			if (b == 0) {
				ck_assert_msg(rx[p], "switch %u port 0 not a "
				    "receiving member", sw);
				continue;
			}
			q = F.ports[p].peer;
			ck_assert_uint_ne(q, FABRIC_NONE);
			if (F.nodes[F.ports[q].node].type == NODE_SWITCH) {
				uint32_t s2 = mcast_trees_node_sw(t,
				    F.ports[q].node);

				ck_assert_msg(mcast_mft_has_port(
				    mcast_trees_mft(t, s2), mlid,
				    F.ports[q].num), "link %u:%u one-sided",
				    sw, b);
				deg[sw]++;
				links++;
			} else
				ck_assert_msg(rx[q], "CA port %u reached but "
				    "not a receiving member", q);
		}
	}
	for (i = 0; i < n; i++) {
		const struct fabric_port *p = &F.ports[m[i].port];
		uint32_t s = mcast_trees_node_sw(t, p->node);
		unsigned num = 0;

		if (s == FABRIC_NONE) {
			s = mcast_trees_node_sw(t, F.ports[p->peer].node);
			num = F.ports[p->peer].num;
		}
		ck_assert_int_eq(mcast_mft_has_port(mcast_trees_mft(t, s),
		    mlid, num), m[i].receive);
	}
	links /= 2;
	/* switches in the tree: those with a link, or the lone member
	 * switch */
	for (sw = 0; sw < nsw; sw++)
		if (deg[sw] > 0)
			nodes++;
	if (members_sw < 2) {
		ck_assert_uint_eq(links, 0);
		goto out;
	}
	ck_assert_uint_eq(links, nodes - 1);
	for (sw = 0; sw < nsw && deg[sw] == 0; sw++)
		;
	seen[sw] = 1;
	queue[tail++] = sw;
	while (head < tail) {
		uint32_t x = queue[head++];
		const struct fabric_node *nd =
		    &F.nodes[mcast_trees_sw_node(t, x)];
		unsigned b;

		for (b = 1; b <= nd->nports; b++) {
			uint32_t q = F.ports[nd->port0 + b].peer, y;

			if (!mcast_mft_has_port(mcast_trees_mft(t, x), mlid,
			    b) || F.nodes[F.ports[q].node].type != NODE_SWITCH)
				continue;
			y = mcast_trees_node_sw(t, F.ports[q].node);
			if (!seen[y]) {
				seen[y] = 1;
				queue[tail++] = y;
			}
		}
	}
	ck_assert_uint_eq(tail, nodes);
	for (sw = 0; sw < nsw; sw++) {
		if (member_sw[sw])
			ck_assert_msg(deg[sw] > 0, "member switch %u not in "
			    "the tree", sw);
		if (deg[sw] == 1)
			ck_assert_msg(member_sw[sw], "leaf switch %u holds "
			    "no member", sw);
	}
out:
	free(deg);
	free(seen);
	free(rx);
	free(member_sw);
	free(queue);
}

/* Random members (about one in three CA ports, a quarter of them
 * send-only) for each of ngroups MLIDs; builds and checks every tree. */
static void
random_groups(struct mcast_trees *t, unsigned ngroups, unsigned seed)
{
	uint32_t *ca = calloc(F.nports, sizeof(*ca)), nca = ca_ports(ca);
	struct mcast_tree_member *m = calloc(nca + 1, sizeof(*m));
	unsigned g, i, n;

	srandom(seed);
	for (g = 0; g < ngroups; g++) {
		n = 0;
		for (i = 0; i < nca; i++)
			if (random() % 3 == 0) {
				m[n].port = ca[i];
				m[n++].receive = random() % 4 != 0;
			}
		if (g % 7 == 0)         /* a switch joins too */
			m[n++] = (struct mcast_tree_member){
			    .port = F.nodes[0].port0, .receive = true };
		ck_assert_uint_eq(mcast_tree_build(t,
		    (uint16_t)(MCAST_MLID_BASE + g), m, n), 0);
		check_tree(t, (uint16_t)(MCAST_MLID_BASE + g), m, n);
	}
	free(ca);
	free(m);
}

START_TEST(ft2_trees)
{
	struct mcast_trees *t;

	testfab_ft2(&F, 8);
	testfab_lids(&F);
	t = mcast_trees_new(&F);
	random_groups(t, 50, 1);
	mcast_trees_free(t);
}
END_TEST

START_TEST(ft3_trees)
{
	struct mcast_trees *t;

	testfab_ft3(&F, 8);
	testfab_lids(&F);
	t = mcast_trees_new(&F);
	random_groups(t, 100, 2);
	mcast_trees_free(t);
}
END_TEST

START_TEST(ft3_link_removed)
{
	struct mcast_trees *t;

	testfab_ft3(&F, 8);
	ck_assert_uint_gt(testfab_remove_links(&F, 0.1, 7), 0);
	testfab_lids(&F);
	t = mcast_trees_new(&F);
	random_groups(t, 100, 3);
	mcast_trees_free(t);
}
END_TEST

START_TEST(ft2_one_link_down)
{
	struct mcast_trees *t;
	uint32_t ca[64], nca;
	struct mcast_tree_member m[64];
	unsigned i;

	testfab_ft2(&F, 8);
	/* leaf 0's link to spine 0 (port 5) goes */
	testfab_unlink(&F, 0, 5);
	testfab_lids(&F);
	nca = ca_ports(ca);
	for (i = 0; i < nca; i++)
		m[i] = (struct mcast_tree_member){ .port = ca[i],
		    .receive = true };
	t = mcast_trees_new(&F);
	ck_assert_uint_eq(mcast_tree_build(t, 0xC000, m, nca), 0);
	check_tree(t, 0xC000, m, nca);
	mcast_trees_free(t);
}
END_TEST

/* Many groups over every leaf: the roots and the leaf-spine links are
 * shared out evenly, and rebuilding a tree does not leak load. */
START_TEST(balanced)
{
	struct mcast_trees *t;
	uint32_t ca[64], nca, n, i, lo = UINT32_MAX, hi = 0, sum = 0;
	struct mcast_tree_member m[64];
	unsigned g;

	testfab_ft2(&F, 8);
	testfab_lids(&F);
	nca = ca_ports(ca);
	for (i = 0; i < nca; i++)
		m[i] = (struct mcast_tree_member){ .port = ca[i],
		    .receive = true };
	t = mcast_trees_new(&F);
	for (g = 0; g < 400; g++)
		mcast_tree_build(t, (uint16_t)(0xC000 + g), m, nca);
	for (g = 0; g < 400; g += 3)       /* rebuilt: same loads */
		mcast_tree_build(t, (uint16_t)(0xC000 + g), m, nca);
	/* leaves are nodes 0..7, their uplinks ports 5..8 */
	for (n = 0; n < 8; n++)
		for (i = 5; i <= 8; i++) {
			uint32_t l = mcast_trees_link_load(t,
			    fabric_port_idx(&F, n, (uint8_t)i));

			lo = l < lo ? l : lo;
			hi = l > hi ? l : hi;
			sum += l;
		}
	/* each tree: a spine root, one uplink per leaf */
	ck_assert_uint_eq(sum, 400 * 8);
	ck_assert_uint_le(hi - lo, 1);
	/* and emptied, nothing is left */
	for (g = 0; g < 400; g++)
		mcast_tree_build(t, (uint16_t)(0xC000 + g), NULL, 0);
	for (i = 0; i < F.nports; i++)
		ck_assert_uint_eq(mcast_trees_link_load(t, i), 0);
	for (n = 0; n < mcast_trees_nsw(t); n++)
		ck_assert_int_eq(mcast_mft_top_block(mcast_trees_mft(t, n)),
		    -1);
	mcast_trees_free(t);
}
END_TEST

START_TEST(single_member)
{
	struct mcast_trees *t;
	uint32_t ca[64];
	struct mcast_tree_member m;
	uint32_t sw;

	testfab_ft2(&F, 8);
	testfab_lids(&F);
	ca_ports(ca);
	t = mcast_trees_new(&F);
	m = (struct mcast_tree_member){ .port = ca[0], .receive = true };
	mcast_tree_build(t, 0xC001, &m, 1);
	check_tree(t, 0xC001, &m, 1);
	ck_assert_uint_eq(mcast_tree_size(t, 0xC001), 1);
	sw = mcast_tree_root(t, 0xC001);
	ck_assert_uint_eq(mcast_trees_sw_node(t, sw), 0);
	ck_assert(mcast_mft_has_port(mcast_trees_mft(t, sw), 0xC001, 1));
	/* send-only alone: nothing in any mask */
	m.receive = false;
	mcast_tree_build(t, 0xC001, &m, 1);
	ck_assert_int_eq(mcast_mft_top_block(mcast_trees_mft(t, sw)), -1);
	mcast_trees_free(t);
}
END_TEST

static unsigned diff_n;
static unsigned diff_b[8], diff_p[8];

static void
on_block(void *arg, unsigned block, unsigned pos)
{
	(void)arg;
	diff_b[diff_n] = block;
	diff_p[diff_n++] = pos;
}

START_TEST(mft_blocks)
{
	struct mcast_mft a, b;
	uint8_t wire[64];

	mcast_mft_init(&a, 36);         /* ports 0..36: 3 positions */
	ck_assert_uint_eq(a.npos, 3);
	mcast_mft_init(&b, 36);
	ck_assert_uint_eq(mcast_mft_amod(5, 2), 0x20000005u);
	ck_assert_uint_eq(mcast_mft_amod(0x1FF, 1), 0x100001FFu);
	mcast_mft_set(&a, 0xC021, 2, 0x0010);   /* port 36: block 1, pos 2 */
	mcast_mft_set(&a, 0xC000, 0, 0x0003);   /* ports 0, 1 */
	ck_assert(mcast_mft_has_port(&a, 0xC021, 36));
	ck_assert(!mcast_mft_has_port(&a, 0xC021, 35));
	ck_assert_int_eq(mcast_mft_top_block(&a), 1);
	mcast_mft_block_encode(&a, 1, 2, wire);
	ck_assert_uint_eq(wire[2], 0x00);       /* entry 1, big-endian */
	ck_assert_uint_eq(wire[3], 0x10);
	ck_assert_uint_eq(wire[0] | wire[1] | wire[4], 0);
	/* a set to zero past the end does not grow the table */
	mcast_mft_set(&b, 0xC400, 0, 0);
	ck_assert_uint_eq(b.nblocks, 0);
	diff_n = 0;
	ck_assert_uint_eq(mcast_mft_diff(&a, &b, on_block, NULL), 2);
	ck_assert_uint_eq(diff_b[0], 0);
	ck_assert_uint_eq(diff_p[0], 0);
	ck_assert_uint_eq(diff_b[1], 1);
	ck_assert_uint_eq(diff_p[1], 2);
	/* decoding what was encoded makes them equal */
	mcast_mft_block_decode(&b, 1, 2, wire);
	mcast_mft_block_encode(&a, 0, 0, wire);
	mcast_mft_block_decode(&b, 0, 0, wire);
	ck_assert_uint_eq(mcast_mft_diff(&a, &b, NULL, NULL), 0);
	mcast_mft_copy(&b, &a);
	ck_assert_uint_eq(mcast_mft_diff(&a, &b, NULL, NULL), 0);
	mcast_mft_set(&b, 0xC021, 2, 0);
	ck_assert_uint_eq(mcast_mft_diff(&a, &b, NULL, NULL), 1);
	mcast_mft_fini(&a);
	mcast_mft_fini(&b);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mcast_tree");
	TCase *t = tcase_create("tree");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, ft2_trees);
	tcase_add_test(t, ft3_trees);
	tcase_add_test(t, ft3_link_removed);
	tcase_add_test(t, ft2_one_link_down);
	tcase_add_test(t, balanced);
	tcase_add_test(t, single_member);
	tcase_add_test(t, mft_blocks);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
