/*
 * Discovery tests: sm/discover.c with the real MAD engine over the fake
 * transport, answered by a fake fabric (fakefab.c) built from testfab
 * topologies. The model discovery builds is compared with the topology the
 * fake devices were made from.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "core/alias.h"
#include "core/fabric.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "mad/transport.h"
#include "sm/discover.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/fakefab.h"
#include "tests/unit/testfab.h"

#define GUARD_SECS      60.0    /* safety net only */

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct fakefab *ff;
static struct fabric topo, model;

struct done {
	int called;
	struct discover_result r;
};

static void
done_cb(void *arg, const struct discover_result *r)
{
	struct done *d = arg;

	d->called++;
	d->r = *r;
}

static bool
is_done(void *arg)
{
	return ((struct done *)arg)->called > 0;
}

/* The engine and the fake devices for topo, the SM on (sm_node, sm_port).
 * timeout_ms matters only where a rule drops SMPs. */
static void
start(uint32_t sm_node, uint8_t sm_port, unsigned timeout_ms,
    unsigned retries)
{
	struct mad_opts o = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = timeout_ms, .retries = retries };

	loop = ev_loop_new(EVFLAG_AUTO);
	ck_assert_ptr_nonnull(loop);
	eng = mad_engine_new(loop, 0x1234, &o);
	ck_assert_ptr_nonnull(eng);
	ff = fakefab_new(&topo, sm_node, sm_port);
	fakefab_attach(ff);
	fabric_init(&model);
}

static void
discover(struct done *d)
{
	memset(d, 0, sizeof(*d));
	ck_assert_ptr_nonnull(discover_start(eng, &model, false, done_cb, d));
	ck_assert(fakefab_run(ff, loop, is_done, d, GUARD_SECS));
	/* Nothing left behind, and done was called once. */
	fakefab_serve(ff);
	ev_run(loop, EVRUN_NOWAIT);
	ck_assert_int_eq(d->called, 1);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	ck_assert_uint_eq(mad_queued(eng), 0);
}

static void
stop(void)
{
	fabric_fini(&model);
	fabric_fini(&topo);
	fakefab_free(ff);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
}

/* The model port for port num of the topology node with this GUID. */
static uint32_t
model_port(uint64_t guid, uint8_t num)
{
	uint32_t n = fabric_node_by_guid(&model, guid);

	ck_assert_msg(n != FABRIC_NONE, "node 0x%016" PRIx64 " not found",
	    guid);
	return fabric_port_idx(&model, n, num);
}

/*
 * The model holds exactly the nodes of want (a topology, cables that are
 * down already removed) with their types, port counts and cables at the
 * same port numbers; every node's path leads to it; the SM's port is the
 * one of (sm_node, sm_port).
 */
static void
assert_model(const struct fabric *want, uint32_t sm_node, uint8_t sm_port)
{
	struct fabric_counts kw, km;

	ck_assert_uint_eq(model.nnodes, want->nnodes);
	for (uint32_t i = 0; i < want->nnodes; i++) {
		const struct fabric_node *w = &want->nodes[i];
		uint32_t n = fabric_node_by_guid(&model, w->guid);
		const struct fabric_node *m;
		uint8_t in;

		ck_assert_msg(n != FABRIC_NONE, "node %u not discovered", i);
		m = &model.nodes[n];
		ck_assert_uint_eq(m->type, w->type);
		ck_assert_uint_eq(m->nports, w->nports);
		ck_assert(m->desc_valid);
		ck_assert_uint_eq(m->sw_info_valid, w->type == NODE_SWITCH);
		ck_assert_uint_eq(fakefab_dr_route(ff, &model.paths[m->path],
		    &in), i);
		for (unsigned j = 1; j <= w->nports; j++) {
			const struct fabric_port *wp =
			    &want->ports[w->port0 + j];
			const struct fabric_port *mp =
			    &model.ports[m->port0 + j];

			if (wp->peer == FABRIC_NONE) {
				ck_assert_msg(mp->peer == FABRIC_NONE,
				    "node %u port %u: a link that is not "
				    "there", i, j);
				continue;
			}
			ck_assert_msg(mp->peer == model_port(want->nodes[
			    want->ports[wp->peer].node].guid,
			    want->ports[wp->peer].num),
			    "node %u port %u: wrong or missing link", i, j);
			ck_assert(mp->info_valid);
			ck_assert_uint_ge(mp->state, PORT_INIT);
			if (w->type != NODE_SWITCH) {
				ck_assert(mp->present);
				ck_assert_uint_eq(mp->guid, wp->guid);
				/* a CA port's own path enters it there */
				ck_assert_uint_eq(fakefab_dr_route(ff,
				    fabric_port_path(&model, m->port0 + j),
				    &in), i);
				ck_assert_uint_eq(in, j);
			}
		}
	}
	fabric_count(want, &kw);
	fabric_count(&model, &km);
	ck_assert_uint_eq(km.links, kw.links);
	ck_assert_uint_eq(km.switches, kw.switches);
	ck_assert_uint_eq(km.ca_ports, kw.ca_ports);
	ck_assert_uint_eq(model.sm_port,
	    model_port(want->nodes[sm_node].guid, sm_port));
}

static void
assert_psc_cleared(void)
{
	size_t sws = 0;

	for (uint32_t i = 0; i < ff->nnodes; i++) {
		if (ff->nodes[i].type != NODE_SWITCH)
			continue;
		sws++;
		ck_assert_uint_eq(mad_get_field(ff->nodes[i].sw_info, 0,
		    IB_SW_STATE_CHANGE_F), 0);
	}
	/* one Set per switch, each answered */
	ck_assert_uint_eq(fakefab_count(ff, MAD_SET, ATTR_SWITCH_INFO), sws);
	ck_assert_uint_eq(fakefab_count(ff, MAD_SET, FAKEFAB_ANY), sws);
}

/* The first CA of topo. */
static uint32_t
first_ca(const struct fabric *f)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == NODE_CA)
			return i;
	ck_abort_msg("no CA");
	return FABRIC_NONE;
}

START_TEST(test_fat_tree)
{
	struct done d;
	uint32_t sm;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);          /* 4 leaves, 2 spines, 8 HCAs */
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(d.r.timeouts, 0);
	ck_assert_uint_eq(d.r.errors, 0);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	assert_model(&topo, sm, 1);
	assert_psc_cleared();
	stop();
}
END_TEST

/*
 * VF alias GUIDs: with a store, the GUIDInfo table of every CA port whose
 * GUIDCap is above 1, every block of it, goes into the store's device
 * view; ports with GUIDCap 1 and switches get no GUIDInfo; without a
 * store (virtualization not enabled) no GUIDInfo at all.
 */
START_TEST(test_guidinfo)
{
	static uint64_t tab[32];
	struct alias_store *st = alias_store_new(0);
	struct done d;
	uint32_t sm, h = FABRIC_NONE;
	uint64_t g[8], pg;
	unsigned cap;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	for (uint32_t n = 0; n < topo.nnodes; n++)
		if (n != sm && topo.nodes[n].type == NODE_CA)
			h = n;
	ck_assert_uint_ne(h, FABRIC_NONE);
	start(sm, 1, 1000, 1);
	tab[3] = 0x33;
	tab[9] = 0x99;
	tab[31] = 0x3131;
	mad_set_field(ff->nodes[h].ports[1].info, 0, IB_PORT_GUID_CAP_F, 32);
	ff->nodes[h].ports[1].alias = tab;
	pg = ff->nodes[h].ports[1].guid;

	/* without a store: none */
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(fakefab_count(ff, IB_MAD_METHOD_GET,
	    IB_ATTR_GUID_INFO), 0);
	fabric_fini(&model);
	fabric_init(&model);

	memset(&d, 0, sizeof(d));
	discover_set_alias(discover_start(eng, &model, false, done_cb, &d),
	    st);
	ck_assert(fakefab_run(ff, loop, is_done, &d, GUARD_SECS));
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(d.r.errors, 0);
	ck_assert_uint_eq(fakefab_count(ff, IB_MAD_METHOD_GET,
	    IB_ATTR_GUID_INFO), 4);
	ck_assert(alias_device_get(st, pg, 0, g, &cap));
	ck_assert_uint_eq(cap, 32);
	ck_assert_uint_eq(g[0], pg);
	ck_assert_uint_eq(g[3], 0x33);
	ck_assert(alias_device_get(st, pg, 1, g, NULL));
	ck_assert_uint_eq(g[1], 0x99);
	ck_assert(alias_device_get(st, pg, 3, g, NULL));
	ck_assert_uint_eq(g[7], 0x3131);
	ck_assert(!alias_device_get(st, pg, 4, g, NULL));
	/* read, not assigned */
	ck_assert_uint_eq(alias_count_active(st), 0);
	/* the SM's own port (GUIDCap 1): not read */
	ck_assert(!alias_device_get(st, ff->nodes[sm].ports[1].guid, 0, g,
	    NULL));
	alias_store_free(st);
	stop();
}
END_TEST

/* A ring: every switch can be reached both ways round, and is one node. */
START_TEST(test_ring)
{
	struct done d;
	uint32_t sm;

	fabric_init(&topo);
	testfab_ring(&topo, 5, 1);
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	assert_model(&topo, sm, 1);
	/* Some node was reached over a second path (the ring closes). */
	ck_assert_uint_gt(fakefab_count(ff, MAD_GET, ATTR_NODE_INFO),
	    topo.nnodes);
	assert_psc_cleared();
	stop();
}
END_TEST

/*
 * Two switches, cabled to each other, a single-port HCA on each, and a
 * dual-homed HCA with port 1 on switch A and port 2 on switch B. The SM sits
 * on the single HCA of A (_i == 0) or on port 1 of the dual HCA (_i == 1),
 * which then finds its own node again through port 2.
 */
START_TEST(test_dual_homed)
{
	struct done d;
	uint32_t a, b, ha, hb, dual, sm;
	uint8_t sm_port = 1;

	fabric_init(&topo);
	a = testfab_switch(&topo, 4);
	b = testfab_switch(&topo, 4);
	testfab_connect(&topo, a, 1, b, 1);
	ha = testfab_ca(&topo, 1);
	hb = testfab_ca(&topo, 1);
	dual = testfab_ca(&topo, 2);
	testfab_connect(&topo, a, 2, ha, 1);
	testfab_connect(&topo, b, 2, hb, 1);
	testfab_connect(&topo, a, 3, dual, 1);
	testfab_connect(&topo, b, 3, dual, 2);
	sm = _i == 0 ? ha : dual;
	start(sm, sm_port, 1000, 1);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	assert_model(&topo, sm, sm_port);
	ck_assert_uint_eq(model.nnodes, 5);
	stop();
}
END_TEST

/* Has a NodeInfo Get been sent out through port num of node n? */
static bool
probed_through(uint32_t n, uint8_t num)
{
	for (size_t i = 0; i < ff->nlog; i++) {
		const struct fakefab_smp *s = &ff->log[i];
		struct dr_path p;

		if (s->attr != ATTR_NODE_INFO || !s->dr || s->hops == 0 ||
		    s->path[s->hops] != num)
			continue;
		p.hops = (uint8_t)(s->hops - 1);
		memcpy(p.port, s->path, sizeof(p.port));
		if (fakefab_dr_route(ff, &p, NULL) == n)
			return true;
	}
	return false;
}

/*
 * A cable that is down is not followed: a spine link of leaf 1 (the spine
 * is still reached through the other leaves), and the link of one HCA (the
 * HCA is then not found at all).
 */
START_TEST(test_down_port_not_followed)
{
	struct fabric want;
	struct done d;
	uint32_t sm, hca, leaf_hca = 2, leaf_spine = 1;
	uint8_t spine_port = 3, hca_port = 2;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	fabric_init(&want);
	testfab_ft2(&want, 4);
	testfab_unlink(&want, leaf_spine, spine_port);
	hca = want.ports[fabric_port_idx(&want, leaf_hca, hca_port)].peer;
	hca = want.ports[hca].node;
	testfab_unlink(&want, leaf_hca, hca_port);
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	fakefab_link_down(ff, leaf_spine, spine_port);
	fakefab_link_down(ff, leaf_hca, hca_port);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	ck_assert(!probed_through(leaf_spine, spine_port));
	ck_assert(!probed_through(leaf_hca, hca_port));
	/* the model without the HCA behind the down cable */
	ck_assert_uint_eq(fabric_node_by_guid(&model, topo.nodes[hca].guid),
	    FABRIC_NONE);
	ck_assert_uint_eq(model.nnodes, topo.nnodes - 1);
	for (uint32_t i = 0; i < want.nnodes; i++) {
		uint32_t n = fabric_node_by_guid(&model, want.nodes[i].guid);

		if (i == hca)
			continue;
		ck_assert(n != FABRIC_NONE);
		for (unsigned j = 1; j <= want.nodes[i].nports; j++) {
			const struct fabric_port *wp =
			    &want.ports[want.nodes[i].port0 + j];
			const struct fabric_port *mp =
			    &model.ports[model.nodes[n].port0 + j];

			ck_assert_uint_eq(mp->peer == FABRIC_NONE,
			    wp->peer == FABRIC_NONE);
		}
	}
	ck_assert_uint_eq(model.ports[model_port(topo.nodes[leaf_spine].guid,
	    spine_port)].state, PORT_DOWN);
	ck_assert_uint_eq(model.ports[model_port(topo.nodes[leaf_hca].guid,
	    hca_port)].state, PORT_DOWN);
	fabric_fini(&want);
	stop();
}
END_TEST

/*
 * A NodeInfo that gets no answer: left unanswered until the engine's timer
 * gives up (_i == 0) or reported timed out at once (_i == 1). Discovery
 * sends it again for DISCOVER_ROUNDS rounds, then completes and counts one
 * timed-out request; the HCA behind it is missing and the leaf's port
 * stays without a peer (a hole, which the sweep will not call up). Only
 * the SM's own node and port make a discovery fail.
 */
START_TEST(test_dropped_nodeinfo)
{
	struct fakefab_match m = fakefab_match_any();
	struct done d;
	uint32_t sm, hca, leaf = 3;
	uint8_t port = 1;
	size_t lost = 0;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	hca = topo.ports[topo.ports[fabric_port_idx(&topo, leaf, port)].peer]
	    .node;
	start(sm, 1, 10, 2);
	m.attr = ATTR_NODE_INFO;
	m.node = hca;
	fakefab_rule(ff, &m, _i == 0 ? FAKEFAB_DROP : FAKEFAB_TIMEOUT, 0, 0);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(d.r.timeouts, 1);
	ck_assert_uint_eq(d.r.errors, 0);
	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].node == hca)
			lost++;
	/* each round: the first try and two retries */
	ck_assert_uint_eq(lost, 3 * DISCOVER_ROUNDS);
	ck_assert_uint_eq(fakefab_failed(ff), 3 * DISCOVER_ROUNDS);
	ck_assert_uint_eq(discover_holes(&model, NULL, NULL), 1);
	ck_assert_uint_eq(model.nnodes, topo.nnodes - 1);
	ck_assert_uint_eq(fabric_node_by_guid(&model, topo.nodes[hca].guid),
	    FABRIC_NONE);
	ck_assert_uint_eq(model.ports[model_port(topo.nodes[leaf].guid,
	    port)].peer, FABRIC_NONE);
	ck_assert_uint_eq(model.ports[model_port(topo.nodes[leaf].guid,
	    port)].state, PORT_INIT);
	stop();
}
END_TEST

/* A NodeInfo answered with an error status: counted as an error, and the
 * switch is not in the model... unless reached another way: a spine of a
 * fat tree is reached from every leaf, so drop it from one leaf only. */
START_TEST(test_nodeinfo_error_status)
{
	struct fakefab_match m = fakefab_match_any();
	struct done d;
	uint32_t sm;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	m.attr = ATTR_NODE_INFO;
	m.node = 4;                     /* the first spine */
	fakefab_rule(ff, &m, FAKEFAB_ERROR, 0x001C, 1);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(d.r.errors, 1);
	ck_assert_uint_eq(d.r.timeouts, 0);
	ck_assert_uint_eq(fakefab_failed(ff), 1);
	/* found all the same, over another leaf */
	assert_model(&topo, sm, 1);
	stop();
}
END_TEST

/* The SM's own node does not answer NodeInfo: discovery fails. */
START_TEST(test_local_nodeinfo_lost)
{
	struct fakefab_match m = fakefab_match_any();
	struct done d;
	uint32_t sm;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	start(sm, 1, 10, 1);
	m.attr = ATTR_NODE_INFO;
	m.hops = 0;
	fakefab_rule(ff, &m, FAKEFAB_TIMEOUT, 0, 0);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 0);
	ck_assert_uint_eq(d.r.timeouts, 1);
	ck_assert_ptr_nonnull(strstr(d.r.why, "NodeInfo"));
	ck_assert_uint_eq(model.nnodes, 0);
	/* two tries a round, nothing else */
	ck_assert_uint_eq(ff->nlog, 2 * DISCOVER_ROUNDS);
	stop();
}
END_TEST

/* The SM's own port is down: discovery fails and goes no further. */
START_TEST(test_own_port_down)
{
	struct done d;
	uint32_t sm;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	fakefab_link_down(ff, sm, 1);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 0);
	ck_assert_ptr_nonnull(strstr(d.r.why, "down"));
	ck_assert_uint_eq(model.nnodes, 1);
	ck_assert_uint_eq(fakefab_count(ff, MAD_GET, ATTR_NODE_INFO), 1);
	for (size_t i = 0; i < ff->nlog; i++)
		ck_assert_uint_eq(ff->log[i].hops, 0);
	stop();
}
END_TEST

/* Two nodes claiming one GUID, a switch and a CA: the second seen is
 * ignored and counted as an error. */
START_TEST(test_duplicate_guid)
{
	struct done d;
	uint32_t sm, a, b, h1, h2;

	fabric_init(&topo);
	a = testfab_switch(&topo, 4);
	b = testfab_switch(&topo, 4);
	testfab_connect(&topo, a, 1, b, 1);
	h1 = testfab_ca(&topo, 1);
	h2 = testfab_ca(&topo, 1);
	testfab_connect(&topo, a, 2, h1, 1);
	testfab_connect(&topo, b, 2, h2, 1);
	sm = h1;
	start(sm, 1, 1000, 1);
	ff->nodes[h2].guid = ff->nodes[b].guid;
	mad_set_field64(ff->nodes[h2].node_info, 0, IB_NODE_GUID_F,
	    ff->nodes[b].guid);
	discover(&d);
	ck_assert_int_eq(d.r.ok, 1);
	ck_assert_uint_eq(d.r.errors, 1);
	ck_assert_uint_eq(model.nnodes, 3);
	ck_assert_uint_eq(model.nodes[fabric_node_by_guid(&model,
	    topo.nodes[b].guid)].type, NODE_SWITCH);
	ck_assert_uint_eq(model.ports[model_port(topo.nodes[b].guid, 2)].peer,
	    FABRIC_NONE);
	stop();
}
END_TEST

/* An abandoned discovery never calls back, however its SMPs end. */
START_TEST(test_abort)
{
	struct done d = { 0 };
	struct discovery *disc;
	uint32_t sm;
	int i;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	sm = first_ca(&topo);
	start(sm, 1, 1000, 1);
	disc = discover_start(eng, &model, false, done_cb, &d);
	ck_assert_ptr_nonnull(disc);
	/* the local node, then a few of what it leads to */
	ck_assert_uint_eq(fakefab_serve_n(ff, 4), 4);
	ck_assert_uint_gt(mad_outstanding(eng), 0);
	discover_abort(disc);
	for (i = 0; i < 20; i++) {
		fakefab_serve(ff);
		ev_run(loop, EVRUN_NOWAIT);
	}
	ck_assert_int_eq(d.called, 0);
	ck_assert_uint_eq(mad_outstanding(eng), 0);
	stop();
}
END_TEST

/* ---- the fake fabric itself: the oracle of these tests ---- */

struct rec {
	int called;
	int status;
	uint8_t resp[256];
};

static void
rec_cb(void *arg, int status, const uint8_t *resp)
{
	struct rec *r = arg;

	r->called++;
	r->status = status;
	if (resp != NULL)
		memcpy(r->resp, resp, sizeof(r->resp));
}

static bool
rec_called(void *arg)
{
	return ((struct rec *)arg)->called > 0;
}

static struct rec
get_dr(uint16_t attr, uint32_t mod, const struct dr_path *p)
{
	struct smp_req q = { .method = MAD_GET, .attr = attr, .mod = mod,
	    .path = p, .dest = 1 };
	struct rec r = { 0 };

	ck_assert_int_eq(smp_request(eng, &q, rec_cb, &r), 0);
	ck_assert(fakefab_run(ff, loop, rec_called, &r, GUARD_SECS));
	return r;
}

/*
 * Directed route as IBA 14.2.2 has it: the response comes back with the D
 * bit, HopPointer 0 and the return path the hops recorded; a CA does not
 * forward, a down link does not carry, and an SMP that is not a fresh
 * request (HopPointer not 0) is not taken.
 */
START_TEST(test_fakefab_dr)
{
	/* HCA 6 -> leaf 0 port 3 -> spine 4 port 2 -> leaf 1 port 1 -> HCA 8 */
	struct dr_path p = { .hops = 4, .port = { 0, 1, 3, 2, 1 } };
	struct rec r;
	uint8_t rpath[64], mad[256];
	struct transport *t;

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	start(6, 1, 1000, 0);
	r = get_dr(ATTR_NODE_INFO, 0, &p);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(mad_get_field(r.resp, 0, IB_DRSMP_DIRECTION_F), 1);
	ck_assert_uint_eq(mad_get_field(r.resp, 0, IB_DRSMP_HOPPTR_F), 0);
	ck_assert_uint_eq(mad_get_field(r.resp, 0, IB_DRSMP_HOPCNT_F), 4);
	mad_get_array(r.resp, 0, IB_DRSMP_RPATH_F, rpath);
	/* entered leaf 0 at 1, spine 4 at 1, leaf 1 at 3, HCA 8 at 1 */
	ck_assert_uint_eq(rpath[1], 1);
	ck_assert_uint_eq(rpath[2], 1);
	ck_assert_uint_eq(rpath[3], 3);
	ck_assert_uint_eq(rpath[4], 1);
	ck_assert_uint_eq(mad_get_field64(r.resp + 64, 0, IB_NODE_GUID_F),
	    topo.nodes[8].guid);
	ck_assert_uint_eq(mad_get_field(r.resp + 64, 0, IB_NODE_LOCAL_PORT_F),
	    1);
	ck_assert_uint_eq(mad_get_field64(r.resp + 64, 0, IB_NODE_PORT_GUID_F),
	    topo.ports[fabric_port_idx(&topo, 8, 1)].guid);

	/* on through the HCA: it does not forward */
	p.hops = 5;
	p.port[5] = 1;
	r = get_dr(ATTR_NODE_INFO, 0, &p);
	ck_assert_int_eq(r.status, MAD_ETIMEDOUT);
	ck_assert_uint_eq(ff->log[ff->nlog - 1].outcome, FAKEFAB_UNDELIVERABLE);

	/* a down link does not carry */
	p.hops = 2;
	fakefab_link_down(ff, 0, 3);
	r = get_dr(ATTR_NODE_INFO, 0, &p);
	ck_assert_int_eq(r.status, MAD_ETIMEDOUT);
	fakefab_link_up(ff, 0, 3);
	r = get_dr(ATTR_NODE_INFO, 0, &p);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(mad_get_field64(r.resp + 64, 0, IB_NODE_GUID_F),
	    topo.nodes[4].guid);

	/* a switch attribute asked of a CA, a port past the last */
	p.hops = 0;
	r = get_dr(ATTR_SWITCH_INFO, 0, &p);
	ck_assert_int_eq(r.status, 0x000C);
	p.hops = 1;
	r = get_dr(ATTR_PORT_INFO, 9, &p);
	ck_assert_int_eq(r.status, 0x001C);

	/* not a fresh request: HopPointer 1 */
	memcpy(mad, fake_sent(0)->mad, sizeof(mad));
	mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 1);
	t = mad_engine_transport(eng);
	ck_assert_int_eq(transport_send(t, mad, sizeof(mad),
	    &(struct transport_addr){ .lid = TRANSPORT_LID_PERMISSIVE }, 1000), 0);
	fakefab_serve(ff);
	ck_assert_uint_eq(ff->log[ff->nlog - 1].outcome, FAKEFAB_MALFORMED);
	stop();
}
END_TEST

static void
set_state(uint32_t n, uint8_t p, uint8_t state)
{
	mad_set_field(ff->nodes[n].ports[p].info, 0, IB_PORT_STATE_F, state);
}

/* LID routing needs an LFT entry, a top covering the LID and ACTIVE
 * links all the way. */
START_TEST(test_fakefab_lid)
{
	uint8_t in;
	uint32_t leaf = 0, sm = 6, hca = 7;     /* on leaf 0 ports 1 and 2 */

	fabric_init(&topo);
	testfab_ft2(&topo, 4);
	start(sm, 1, 1000, 0);
	mad_set_field(ff->nodes[hca].ports[1].info, 0, IB_PORT_LID_F, 9);
	ck_assert_uint_eq(fakefab_lid_route(ff, 9, &in), FABRIC_NONE);
	ff->nodes[leaf].lft[9] = 2;
	mad_set_field(ff->nodes[leaf].sw_info, 0, IB_SW_LINEAR_FDB_TOP_F, 9);
	ck_assert_uint_eq(fakefab_lid_route(ff, 9, &in), FABRIC_NONE);
	set_state(sm, 1, PORT_ACTIVE);
	set_state(leaf, 1, PORT_ACTIVE);
	set_state(leaf, 2, PORT_ACTIVE);
	ck_assert_uint_eq(fakefab_lid_route(ff, 9, &in), FABRIC_NONE);
	set_state(hca, 1, PORT_ACTIVE);
	ck_assert_uint_eq(fakefab_lid_route(ff, 9, &in), hca);
	ck_assert_uint_eq(in, 1);
	mad_set_field(ff->nodes[leaf].sw_info, 0, IB_SW_LINEAR_FDB_TOP_F, 8);
	ck_assert_uint_eq(fakefab_lid_route(ff, 9, &in), FABRIC_NONE);
	stop();
}
END_TEST

static Suite *
discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fat_tree);
	tcase_add_test(tc, test_ring);
	tcase_add_loop_test(tc, test_dual_homed, 0, 2);
	tcase_add_test(tc, test_down_port_not_followed);
	tcase_add_loop_test(tc, test_dropped_nodeinfo, 0, 2);
	tcase_add_test(tc, test_nodeinfo_error_status);
	tcase_add_test(tc, test_local_nodeinfo_lost);
	tcase_add_test(tc, test_own_port_down);
	tcase_add_test(tc, test_duplicate_guid);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_guidinfo);
	suite_add_tcase(s, tc);

	tc = tcase_create("fakefab");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fakefab_dr);
	tcase_add_test(tc, test_fakefab_lid);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(discover_suite());
	int failed;

	if (getenv("CHECK_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	else
		log_set_level(LOG_LVL_ERROR);   /* the failures are on purpose */
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
