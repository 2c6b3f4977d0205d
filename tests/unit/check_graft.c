/*
 * core/graft: the silent parts of a fabric kept from the model in use.
 * Models are built as discovery leaves them: what was reached read
 * (PortInfo, SwitchInfo), ports facing an unreached node up with no peer.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/graft.h"
#include "core/lft.h"
#include "core/log.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

/* Every node read; cabled ports ACTIVE, the rest DOWN; PortInfo carries
 * the port's LID. */
static void
all_read(struct fabric *f)
{
	for (uint32_t n = 0; n < f->nnodes; n++) {
		struct fabric_node *node = &f->nodes[n];
		bool sw = node->type == NODE_SWITCH;

		node->sw_info_valid = sw;
		node->desc_valid = 1;
		node->desc[0] = sw ? 's' : 'h';
		if (sw)
			mad_set_field(node->sw_info, 0, IB_SW_LINEAR_FDB_TOP_F,
			    40);
		for (unsigned num = sw ? 0 : 1; num <= node->nports; num++) {
			struct fabric_port *p =
			    &f->ports[fabric_port_idx(f, n, (uint8_t)num)];

			p->info_valid = 1;
			p->state = p->peer != FABRIC_NONE || num == 0 ?
			    PORT_ACTIVE : PORT_DOWN;
			mad_set_field(p->info, 0, IB_PORT_LID_F, p->lid);
			mad_set_field(p->info, 0, IB_PORT_STATE_F, p->state);
		}
	}
}

/* next: src as a discovery that did not reach the nodes with skip[n] set
 * would leave it (their neighbours' ports up, facing nobody); down[n]:
 * those neighbours read their ports DOWN instead (the nodes are gone). */
static void
discovered(struct fabric *next, const struct fabric *src, const bool *skip,
    bool down)
{
	uint32_t *map = calloc(src->nnodes, sizeof(*map));

	fabric_init(next);
	for (uint32_t n = 0; n < src->nnodes; n++) {
		const struct fabric_node *s = &src->nodes[n];
		uint32_t m;

		map[n] = FABRIC_NONE;
		if (skip[n])
			continue;
		m = fabric_add_node(next, s->type, s->nports, s->guid, NULL);
		map[n] = m;
		next->nodes[m].sw_info_valid = s->sw_info_valid;
		memcpy(next->nodes[m].sw_info, s->sw_info, 64);
		for (uint8_t k = 0; k <= s->nports; k++) {
			const struct fabric_port *sp =
			    &src->ports[fabric_port_idx(src, n, k)];
			struct fabric_port *np =
			    &next->ports[fabric_port_idx(next, m, k)];

			np->guid = sp->guid;
			np->present = sp->present;
			np->info_valid = sp->info_valid;
			np->state = sp->state;
			memcpy(np->info, sp->info, 64);
			if (down && sp->peer != FABRIC_NONE &&
			    skip[src->ports[sp->peer].node])
				np->state = PORT_DOWN;
		}
	}
	for (uint32_t p = 0; p < src->nports; p++) {
		const struct fabric_port *sp = &src->ports[p];
		const struct fabric_port *sq;

		if (sp->peer == FABRIC_NONE || sp->peer < p)
			continue;
		sq = &src->ports[sp->peer];
		if (skip[sp->node] || skip[sq->node])
			continue;
		fabric_link(next,
		    fabric_port_idx(next, map[sp->node], sp->num),
		    fabric_port_idx(next, map[sq->node], sq->num));
	}
	free(map);
}

/* Every link of a is in b (by node GUID and port number). */
static void
assert_links(const struct fabric *a, const struct fabric *b)
{
	for (uint32_t p = 0; p < a->nports; p++) {
		const struct fabric_port *ap = &a->ports[p], *aq;
		uint32_t bn, bp;

		if (ap->peer == FABRIC_NONE)
			continue;
		aq = &a->ports[ap->peer];
		bn = fabric_node_by_guid(b, a->nodes[ap->node].guid);
		ck_assert_uint_ne(bn, FABRIC_NONE);
		bp = fabric_port_idx(b, bn, ap->num);
		ck_assert_uint_ne(b->ports[bp].peer, FABRIC_NONE);
		ck_assert_uint_eq(b->nodes[b->ports[b->ports[bp].peer].node].guid,
		    a->nodes[aq->node].guid);
		ck_assert_uint_eq(b->ports[b->ports[bp].peer].num, aq->num);
	}
}

/* LIDs of next's end ports from their PortInfo (as the LID manager would
 * keep them). */
static void
lids_from_info(struct fabric *f)
{
	for (uint32_t p = 0; p < f->nports; p++)
		if (fabric_port_is_endport(f, p))
			fabric_set_lid(f, p, (uint16_t)mad_get_field(
			    f->ports[p].info, 0, IB_PORT_LID_F), 0);
}

/* b routes every LID a routes, over shortest paths (node order differs
 * after grafting, so fresh routes may balance differently; the sweep's
 * repair keeps the tables in use where nothing was lost). */
static void
assert_same_routes(const struct fabric *a, const struct fabric *b)
{
	const struct routing_engine *chain[] = { &re_minhop };
	struct routing_opts ro = { 0 };
	struct route_report rb;
	struct testfab_stats st;
	struct lft_set lb;

	ck_assert_uint_eq(fabric_max_lid(a), fabric_max_lid(b));
	ck_assert_int_eq(routing_run(chain, 1, b, &ro, &lb, &rb, NULL), 0);
	ck_assert_uint_eq(rb.unreachable, 0);
	testfab_check(b, &lb, &st);
	ck_assert_msg(st.bad == 0, "%s", st.first);
	ck_assert_uint_eq(st.unreached, 0);
	ck_assert_uint_eq(st.pairs, st.shortest);
	lft_set_fini(&lb);
}

static struct fabric cur, next;
static bool skip[64];

static void
setup(void)
{
	fabric_init(&cur);
	testfab_ft2(&cur, 4);   /* leaves 0-3, spines 4-5, HCAs 6-13 */
	all_read(&cur);
	memset(skip, 0, sizeof(skip));
}

static void
teardown(void)
{
	fabric_fini(&cur);
	fabric_fini(&next);
}

/* A leaf that did not answer, and its two HCAs behind it: kept, linked as
 * they were, routed as before; nothing else marked. */
START_TEST(test_silent_leaf)
{
	uint32_t leaf = 1;

	skip[leaf] = true;
	skip[8] = skip[9] = true;       /* its HCAs */
	discovered(&next, &cur, skip, false);
	ck_assert_uint_eq(next.nnodes, cur.nnodes - 3);
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 3);
	ck_assert_uint_eq(next.nnodes, cur.nnodes);
	ck_assert_uint_eq(fabric_kept_nodes(&next), 3);
	ck_assert(next.nodes[fabric_node_by_guid(&next,
	    cur.nodes[leaf].guid)].kept);
	ck_assert(!next.nodes[fabric_node_by_guid(&next,
	    cur.nodes[0].guid)].kept);
	assert_links(&cur, &next);
	assert_links(&next, &cur);
	lids_from_info(&next);
	assert_same_routes(&cur, &next);
}
END_TEST

/* The same leaf, its neighbours reading their ports to it DOWN: gone,
 * nothing kept. */
START_TEST(test_gone_leaf)
{
	skip[1] = skip[8] = skip[9] = true;
	discovered(&next, &cur, skip, true);
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 0);
	ck_assert_uint_eq(next.nnodes, cur.nnodes - 3);
	ck_assert_uint_eq(fabric_kept_nodes(&next), 0);
}
END_TEST

/* A spine that did not answer: every leaf reaches it again. */
START_TEST(test_silent_spine)
{
	skip[4] = true;
	discovered(&next, &cur, skip, false);
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 1);
	assert_links(&cur, &next);
	lids_from_info(&next);
	assert_same_routes(&cur, &next);
}
END_TEST

/* A switch reached whose SwitchInfo and PortInfo were not read (its
 * ports were never asked about, the HCAs behind it not reached): the
 * switch is kept (nothing of it can be programmed), its HCAs grafted. */
START_TEST(test_switchinfo_not_read)
{
	uint32_t leaf = 2, n;

	skip[10] = skip[11] = true;     /* HCAs of leaf 2 */
	discovered(&next, &cur, skip, false);
	n = fabric_node_by_guid(&next, cur.nodes[leaf].guid);
	next.nodes[n].sw_info_valid = 0;
	memset(next.nodes[n].sw_info, 0, 64);
	for (uint8_t k = 0; k <= next.nodes[n].nports; k++) {
		struct fabric_port *p = &next.ports[fabric_port_idx(&next, n, k)];

		p->info_valid = 0;
		p->state = 0;
	}
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 3);
	ck_assert(next.nodes[n].kept);
	ck_assert(next.nodes[n].sw_info_valid);
	ck_assert_uint_eq(mad_get_field(next.nodes[n].sw_info, 0,
	    IB_SW_LINEAR_FDB_TOP_F), 40);
	assert_links(&cur, &next);
	lids_from_info(&next);
	assert_same_routes(&cur, &next);
}
END_TEST

/* One switch port whose PortInfo was not read: its PortInfo kept (the
 * port marked), the node not. */
START_TEST(test_port_not_read)
{
	uint32_t n, p;

	discovered(&next, &cur, skip, false);
	n = fabric_node_by_guid(&next, cur.nodes[4].guid);
	p = fabric_port_idx(&next, n, 2);
	next.ports[p].info_valid = 0;
	next.ports[p].state = 0;
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 0);
	ck_assert(next.ports[p].kept);
	ck_assert(next.ports[p].info_valid);
	ck_assert_uint_eq(next.ports[p].state, PORT_ACTIVE);
	ck_assert(!next.nodes[n].kept);
}
END_TEST

/* A node kept in the model in use, still silent: kept again, from the
 * copy. */
START_TEST(test_kept_twice)
{
	struct fabric third;

	skip[1] = skip[8] = skip[9] = true;
	discovered(&next, &cur, skip, false);
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 3);
	discovered(&third, &cur, skip, false);
	ck_assert_uint_eq(fabric_graft_silent(&third, &next), 3);
	assert_links(&cur, &third);
	fabric_fini(&third);
}
END_TEST

/* Another device answering behind the same port (a replaced HCA): the
 * old one is not grafted over it. */
START_TEST(test_no_graft_over_a_new_device)
{
	uint32_t n;

	discovered(&next, &cur, skip, false);
	ck_assert_uint_eq(fabric_graft_silent(&next, &cur), 0);
	ck_assert_uint_eq(next.nnodes, cur.nnodes);
	n = fabric_node_by_guid(&next, cur.nodes[0].guid);
	ck_assert(!next.nodes[n].kept);
	ck_assert_uint_eq(fabric_kept_nodes(&next), 0);
}
END_TEST

static Suite *
graft_suite(void)
{
	Suite *s = suite_create("graft");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_silent_leaf);
	tcase_add_test(tc, test_gone_leaf);
	tcase_add_test(tc, test_silent_spine);
	tcase_add_test(tc, test_switchinfo_not_read);
	tcase_add_test(tc, test_port_not_read);
	tcase_add_test(tc, test_kept_twice);
	tcase_add_test(tc, test_no_graft_over_a_new_device);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(graft_suite());
	int failed;

	log_set_level(LOG_LVL_ERROR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
