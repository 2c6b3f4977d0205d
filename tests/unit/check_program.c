/*
 * Programmer tests: sm/program.c (with sm/discover.c to build the model it
 * works on) over the real MAD engine, the fake transport and the fake
 * fabric. What the devices end up holding, and exactly which blocks were
 * Set, are read from the fake fabric.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "routing/routing.h"
#include "sm/discover.h"
#include "sm/program.h"
#include "tests/unit/fakefab.h"
#include "tests/unit/testfab.h"

#define GUARD_SECS      60.0    /* safety net only */
#define CA_LID_BASE     64      /* CA LIDs in block 1, switch LIDs in 0 */
#define MAXNODES        16
#define MAXPORTS        8

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct fakefab *ff;
static struct fabric topo, model;
static struct lft_set lft;
static uint16_t sm_lid;
static uint32_t sm_node;
static const struct program_opts opts = {
	.subnet_prefix = 0xfe80000000000000ULL, .subnet_timeout = 18,
	.packet_life = 0x12,
};

/* The desired state, by fake-fabric node index (so by GUID, whatever the
 * order of a discovery): LFT rows and P_Key tables. */
static uint8_t want_lft[MAXNODES][CA_LID_BASE + MAXNODES];
static uint16_t want_keys[MAXNODES][MAXPORTS][FAKEFAB_ENFORCE_PKEYS];
static uint16_t want_nkeys[MAXNODES][MAXPORTS];
static struct pkey_want *pk;

struct pdone {
	int called;
	struct program_result r;
};

static bool
called(void *arg)
{
	return *(int *)arg > 0;
}

static void
disc_cb(void *arg, const struct discover_result *r)
{
	ck_assert_msg(r->ok, "discovery failed: %s", r->why);
	ck_assert_uint_eq(r->timeouts + r->errors, 0);
	(*(int *)arg)++;
}

static void
prog_cb(void *arg, const struct program_result *r)
{
	struct pdone *d = arg;

	d->called++;
	d->r = *r;
}

static uint32_t
ff_node(uint32_t model_node)
{
	uint32_t n = fakefab_node_by_guid(ff, model.nodes[model_node].guid);

	ck_assert(n != FABRIC_NONE);
	return n;
}

/* LIDs by fake-fabric index: switch i gets i + 1, CA i gets 64 + i. */
static void
assign_lids(void)
{
	for (uint32_t p = 0; p < model.nports; p++) {
		uint32_t n = model.ports[p].node;
		uint32_t i = ff_node(n);

		if (!fabric_port_is_endport(&model, p))
			continue;
		fabric_set_lid(&model, p, (uint16_t)(model.nodes[n].type ==
		    NODE_SWITCH ? i + 1 : CA_LID_BASE + i), 0);
	}
	sm_lid = model.ports[model.sm_port].lid;
}

/* The desired tables for the model of this run, from want_*. */
static void
build_wants(void)
{
	lft_set_fini(&lft);
	ck_assert_int_eq(lft_set_init(&lft, &model), 0);
	for (uint32_t sw = 0; sw < lft.nsw; sw++)
		memcpy(lft_row(&lft, sw), want_lft[ff_node(lft.sw_node[sw])],
		    lft.max_lid + 1u);
	free(pk);
	pk = calloc(model.nports, sizeof(*pk));
	ck_assert_ptr_nonnull(pk);
	for (uint32_t p = 0; p < model.nports; p++) {
		uint32_t i = ff_node(model.ports[p].node);
		uint8_t num = model.ports[p].num;

		pk[p].enforce = -1;
		if (want_nkeys[i][num] > 0) {
			pk[p].keys = want_keys[i][num];
			pk[p].n = want_nkeys[i][num];
		}
	}
}

static void
discover(void)
{
	int done = 0;

	fabric_fini(&model);
	fabric_init(&model);
	ck_assert_ptr_nonnull(discover_start(eng, &model, false, disc_cb, &done));
	ck_assert(fakefab_run(ff, loop, called, &done, GUARD_SECS));
	assign_lids();
	build_wants();
	fakefab_clear_log(ff);
}

/* One programming run of pr on the model; with_pk: P_Keys too. */
static struct program_result
program(struct programmer *pr, bool with_pk)
{
	struct pdone d = { 0 };

	program_start(pr, &model, &lft, with_pk ? pk : NULL, sm_lid, &opts,
	    prog_cb, &d);
	ck_assert(fakefab_run(ff, loop, called, &d.called, GUARD_SECS));
	fakefab_serve(ff);
	ev_run(loop, EVRUN_NOWAIT);
	ck_assert_int_eq(d.called, 1);
	ck_assert_uint_eq(mad_outstanding(eng) + mad_queued(eng), 0);
	return d.r;
}

/* Routes for every LID by minhop on a first model; P_Key tables holding
 * just the default key where given. */
static void
start(void)
{
	const struct routing_engine *chain[] = { &re_minhop };
	struct routing_opts ro = { 0 };
	struct route_report rep;
	struct mad_opts o = { .max_wire = 16, .max_per_node = 4,
	    .timeout_ms = 1000, .retries = 1 };

	fabric_init(&topo);
	testfab_ft2(&topo, 4);  /* leaves 0-3, spines 4-5, HCAs 6-13 */
	ck_assert_uint_le(topo.nnodes, MAXNODES);
	sm_node = 6;
	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, 0x1234, &o);
	ck_assert_ptr_nonnull(eng);
	ff = fakefab_new(&topo, sm_node, 1);
	fakefab_attach(ff);
	fabric_init(&model);
	memset(want_nkeys, 0, sizeof(want_nkeys));
	memset(want_keys, 0, sizeof(want_keys));
	discover();
	lft_set_fini(&lft);
	ck_assert_int_eq(routing_run(chain, 1, &model, &ro, &lft, &rep, NULL),
	    0);
	ck_assert_uint_lt(lft.max_lid, sizeof(want_lft[0]));
	ck_assert_uint_gt(lft.max_lid, 64);     /* two LFT blocks */
	memset(want_lft, LFT_NO_ROUTE, sizeof(want_lft));
	for (uint32_t sw = 0; sw < lft.nsw; sw++)
		memcpy(want_lft[ff_node(lft.sw_node[sw])], lft_row(&lft, sw),
		    lft.max_lid + 1u);
	for (uint32_t i = 0; i < ff->nnodes; i++)
		for (unsigned j = 0; j <= ff->nodes[i].nports; j++) {
			if ((ff->nodes[i].type == NODE_SWITCH) != (j == 0))
				continue;
			want_nkeys[i][j] = ff->nodes[i].ports[j].pkey_cap;
			want_keys[i][j][0] = 0xFFFF;
		}
	build_wants();
}

static void
stop(void)
{
	lft_set_fini(&lft);
	free(pk);
	pk = NULL;
	fabric_fini(&model);
	fabric_fini(&topo);
	fakefab_free(ff);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
}

/* Sets in the log (any outcome) of attribute attr. */
static size_t
sets(int attr)
{
	size_t n = 0;

	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].method == MAD_SET &&
		    (attr == FAKEFAB_ANY || ff->log[i].attr == attr))
			n++;
	return n;
}

/* PortInfo Sets carrying ClientReregister, all to CA ports. */
static size_t
rereg_sets(void)
{
	size_t n = 0;

	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].method == MAD_SET &&
		    ff->log[i].attr == ATTR_PORT_INFO &&
		    mad_get_field(ff->log[i].data, 0, IB_PORT_CLIENT_REREG_F)) {
			ck_assert_uint_ne(ff->log[i].node, FABRIC_NONE);
			ck_assert_uint_eq(ff->nodes[ff->log[i].node].type,
			    NODE_CA);
			n++;
		}
	return n;
}

static const struct fakefab_smp *
first_set(int attr)
{
	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].method == MAD_SET && ff->log[i].attr == attr)
			return &ff->log[i];
	return NULL;
}

/* The devices hold the desired state: LIDs, SM LID, every cabled port
 * ACTIVE, every switch's top and LFT blocks as wanted, and every LID
 * reaches its port through the LFTs from the SM. */
static void
assert_devices(void)
{
	for (uint32_t p = 0; p < model.nports; p++) {
		const struct fabric_port *port = &model.ports[p];
		uint32_t i = ff_node(port->node);
		uint8_t in;

		if (port->num != 0 && ff->nodes[i].ports[port->num].peer_node !=
		    FABRIC_NONE)
			ck_assert_uint_eq(fakefab_port_state(ff, i, port->num),
			    PORT_ACTIVE);
		if (!fabric_port_is_endport(&model, p))
			continue;
		ck_assert_uint_eq(fakefab_port_lid(ff, i, port->num), port->lid);
		ck_assert_uint_eq(mad_get_field(ff->nodes[i].ports[port->num].info,
		    0, IB_PORT_SMLID_F), sm_lid);
		ck_assert_uint_eq(fakefab_lid_route(ff, port->lid, &in), i);
		ck_assert_uint_eq(in, port->num);
	}
	for (uint32_t i = 0; i < ff->nnodes; i++) {
		if (ff->nodes[i].type != NODE_SWITCH)
			continue;
		ck_assert_uint_eq(mad_get_field(ff->nodes[i].sw_info, 0,
		    IB_SW_LINEAR_FDB_TOP_F), lft.max_lid);
		ck_assert_mem_eq(ff->nodes[i].lft, want_lft[i],
		    lft.max_lid + 1u);
	}
}

struct rec {
	int called, status;
	uint64_t guid;
};

static void
rec_cb(void *arg, int status, const uint8_t *resp)
{
	struct rec *r = arg;

	r->called++;
	r->status = status;
	if (resp != NULL)
		r->guid = mad_get_field64((void *)(resp + SMP_DATA_OFFSET), 0,
		    IB_NODE_GUID_F);
}

/* A LID-routed NodeInfo Get to every end port answers with its node:
 * the programmed fabric routes. */
static void
assert_lid_routed(void)
{
	for (uint32_t p = 0; p < model.nports; p++) {
		struct rec r = { 0 };
		struct smp_req q = { .method = MAD_GET,
		    .attr = ATTR_NODE_INFO, .dlid = model.ports[p].lid,
		    .dest = model.ports[p].lid };

		if (!fabric_port_is_endport(&model, p))
			continue;
		ck_assert_int_eq(smp_request(eng, &q, rec_cb, &r), 0);
		ck_assert(fakefab_run(ff, loop, called, &r.called, GUARD_SECS));
		ck_assert_int_eq(r.status, 0);
		ck_assert_uint_eq(r.guid, model.nodes[model.ports[p].node].guid);
	}
}

/* First run on a fresh fabric: everything written, nothing read back
 * (tops of 0 hold no routes); the second run with the same desired state
 * writes nothing at all. */
START_TEST(test_program_then_nothing)
{
	struct programmer *pr;
	struct program_result r;
	size_t nsw = 6, nca = 8, nblocks = 2;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(fakefab_failed(ff), 0);
	ck_assert_uint_eq(r.lft_reads, 0);
	ck_assert_uint_eq(r.lft_writes, nsw * nblocks);
	ck_assert_uint_eq(sets(ATTR_LFT), nsw * nblocks);
	ck_assert_uint_eq(r.switchinfo_sets, nsw);
	ck_assert_uint_eq(sets(ATTR_SWITCH_INFO), nsw);
	ck_assert_uint_eq(sets(ATTR_PKEY_TABLE), 0);
	/* every end port addressed, every switch port with a cable given
	 * its link parameters (CA ports get theirs with their address), and
	 * both ends of every cable armed by that same Set, then activated:
	 * no Set of its own for ARMED */
	ck_assert_uint_eq(r.portinfo_sets, nsw + nca + 2 * 8 + nca);
	ck_assert_uint_eq(r.armed, 2 * (8 + nca));
	ck_assert_uint_eq(r.activated, 2 * (8 + nca));
	ck_assert_uint_eq(sets(ATTR_PORT_INFO),
	    r.portinfo_sets + r.activated);
	assert_devices();
	assert_lid_routed();

	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 0);
	ck_assert_uint_eq(r.lft_reads + r.lft_writes + r.portinfo_sets +
	    r.switchinfo_sets + r.armed + r.activated, 0);
	ck_assert_uint_eq(fakefab_count(ff, MAD_GET, ATTR_LFT), 0);
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

/* One LFT entry changes: exactly its block is Set, to its switch. */
START_TEST(test_one_lft_entry)
{
	struct programmer *pr;
	struct program_result r;
	const struct fakefab_smp *s;
	uint32_t leaf = 1;
	uint16_t lid = CA_LID_BASE + 12;        /* an HCA on leaf 3 */
	uint8_t old, port;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	old = want_lft[leaf][lid];
	port = old == 3 ? 4 : 3;                /* the other spine */
	want_lft[leaf][lid] = port;
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 1);
	ck_assert_uint_eq(r.lft_writes, 1);
	ck_assert_uint_eq(r.lft_reads, 0);
	s = first_set(ATTR_LFT);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->node, leaf);
	ck_assert_uint_eq(s->mod, lid / 64);
	ck_assert_uint_eq(s->data[lid % 64], port);
	ck_assert_uint_eq(ff->nodes[leaf].lft[lid], port);
	ck_assert_mem_eq(ff->nodes[leaf].lft, want_lft[leaf], lft.max_lid + 1u);
	program_free(pr);
	stop();
}
END_TEST

/* What the programmer remembers of a block is a digest, not its bytes:
 * a change of any one entry, at every position of every block, is still
 * seen and written, and nothing else is. */
START_TEST(test_every_lft_entry)
{
	struct programmer *pr;
	struct program_result r;
	uint32_t leaf = 0;
	uint8_t old;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	for (uint32_t lid = 1; lid <= lft.max_lid; lid++) {
		old = want_lft[leaf][lid];
		want_lft[leaf][lid] = (uint8_t)(old == 1 ? 2 : 1);
		discover();
		r = program(pr, false);
		ck_assert_msg(r.ok, "%s", r.why);
		ck_assert_uint_eq(r.lft_writes, 1);
		ck_assert_uint_eq(first_set(ATTR_LFT)->mod, lid / 64);
		ck_assert_uint_eq(ff->nodes[leaf].lft[lid], want_lft[leaf][lid]);
		want_lft[leaf][lid] = old;
		discover();
		r = program(pr, false);
		ck_assert_uint_eq(r.lft_writes, 1);
		ck_assert_uint_eq(ff->nodes[leaf].lft[lid], old);
	}
	discover();
	r = program(pr, false);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 0);
	program_free(pr);
	stop();
}
END_TEST

/*
 * P_Keys: the first run reads every block it was given and writes none
 * (the devices already hold 0xFFFF alone); one CA port's policy then gains
 * a key in its second block, and one switch port facing a CA a table of
 * its own: exactly those blocks are Set, with their modifiers.
 */
START_TEST(test_pkey_blocks)
{
	struct programmer *pr;
	struct program_result r;
	const struct fakefab_smp *s;
	uint32_t ca = 9, leaf = 1;
	uint8_t leaf_port = 2;          /* faces HCA 9 */
	size_t blocks = 8 * 2 + 6 * 1;

	start();
	pr = program_new(eng);
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.pkey_reads, blocks);
	ck_assert_uint_eq(fakefab_count(ff, MAD_GET, ATTR_PKEY_TABLE), blocks);
	ck_assert_uint_eq(r.pkey_writes, 0);
	ck_assert_uint_eq(sets(ATTR_PKEY_TABLE), 0);

	/* index 40: block 1 of the CA port */
	want_keys[ca][1][40] = 0x8123;
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.pkey_reads, 0);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 1);
	ck_assert_uint_eq(r.pkey_writes, 1);
	s = first_set(ATTR_PKEY_TABLE);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->node, ca);
	ck_assert_uint_eq(s->port, 1);
	ck_assert_uint_eq(s->mod, 1);
	ck_assert_uint_eq(ff->nodes[ca].ports[1].pkeys[40], 0x8123);
	ck_assert_uint_eq(ff->nodes[ca].ports[1].pkeys[0], 0xFFFF);

	/* a switch external port: the port in the upper 16 bits */
	want_nkeys[leaf][leaf_port] = FAKEFAB_ENFORCE_PKEYS;
	want_keys[leaf][leaf_port][0] = 0xFFFF;
	want_keys[leaf][leaf_port][1] = 0x8123;
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	/* unknown blocks are read first: only the one that differs is Set */
	ck_assert_uint_eq(r.pkey_reads, 2);
	ck_assert_uint_eq(r.pkey_writes, 1);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 1);
	s = first_set(ATTR_PKEY_TABLE);
	ck_assert_uint_eq(s->node, leaf);
	ck_assert_uint_eq(s->mod, (uint32_t)leaf_port << 16 | 0);
	ck_assert_uint_eq(ff->nodes[leaf].ports[leaf_port].pkeys[1], 0x8123);
	ck_assert_uint_eq(ff->nodes[leaf].ports[leaf_port + 1].pkeys[1], 0);

	/* and the same again: nothing */
	discover();
	r = program(pr, true);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 0);
	ck_assert_uint_eq(r.pkey_reads, 0);
	program_free(pr);
	stop();
}
END_TEST

/*
 * A restart: a new programmer knows nothing of what the devices hold. On
 * a fabric already right it reads the LFT and P_Key blocks and writes
 * nothing; where one device block differs, it writes just that block.
 */
START_TEST(test_restart)
{
	struct programmer *pr;
	struct program_result r;
	const struct fakefab_smp *s;
	size_t nsw = 6, nblocks = 2, pkey_blocks = 8 * 2 + 6;
	uint32_t spine = 5;
	uint16_t lid = 3;

	start();
	want_keys[10][1][2] = 0x8002;
	build_wants();
	pr = program_new(eng);
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(ff->nodes[10].ports[1].pkeys[2], 0x8002);
	program_free(pr);

	/* a new mastership: nothing but ClientReregister, once per CA port */
	pr = program_new(eng);
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(rereg_sets(), 8);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 8);
	ck_assert_uint_eq(r.client_reregs, 8);
	ck_assert_uint_eq(r.portinfo_sets, 8);
	ck_assert_uint_eq(r.lft_reads, nsw * nblocks);
	ck_assert_uint_eq(fakefab_count(ff, MAD_GET, ATTR_LFT), nsw * nblocks);
	ck_assert_uint_eq(r.pkey_reads, pkey_blocks);
	ck_assert_uint_eq(r.lft_writes + r.pkey_writes + r.switchinfo_sets +
	    r.armed + r.activated, 0);
	assert_devices();
	/* the next sweep of the same mastership: nothing at all */
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 0);
	ck_assert_uint_eq(r.client_reregs, 0);
	/* standing by and master again: ClientReregister again */
	program_forget(pr);
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(rereg_sets(), 8);
	ck_assert_uint_eq(r.client_reregs, 8);
	program_free(pr);

	/* someone else changed one entry of a spine: only it is rewritten */
	ff->nodes[spine].lft[lid] = ff->nodes[spine].lft[lid] == 1 ? 2 : 1;
	pr = program_new(eng);
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.lft_reads, nsw * nblocks);
	ck_assert_uint_eq(r.lft_writes, 1);
	ck_assert_uint_eq(sets(FAKEFAB_ANY) - rereg_sets(), 1);
	s = first_set(ATTR_LFT);
	ck_assert_uint_eq(s->node, spine);
	ck_assert_uint_eq(s->mod, 0);
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

/* A switch that was reset (LFT empty, top 0) while the programmer kept
 * its memory of it: all its blocks are written again, and only its. */
START_TEST(test_switch_reset)
{
	struct programmer *pr;
	struct program_result r;
	uint32_t sw = 2;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	memset(ff->nodes[sw].lft, LFT_NO_ROUTE, FAKEFAB_LFT_CAP);
	mad_set_field(ff->nodes[sw].sw_info, 0, IB_SW_LINEAR_FDB_TOP_F, 0);
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.lft_writes, 2);
	ck_assert_uint_eq(r.lft_reads, 0);
	ck_assert_uint_eq(r.switchinfo_sets, 1);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 3);
	for (size_t i = 0; i < ff->nlog; i++)
		if (ff->log[i].method == MAD_SET)
			ck_assert_uint_eq(ff->log[i].node, sw);
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

/* A link that trained again (INIT) is armed with its parameters in one
 * Set per end, then activated; nothing else is touched. */
START_TEST(test_link_retrained)
{
	struct programmer *pr;
	struct program_result r;
	uint32_t leaf = 0, spine = 4;
	uint8_t port = 3;               /* leaf 0 port 3 -> spine 4 port 1 */

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	fakefab_link_down(ff, leaf, port);
	fakefab_link_up(ff, leaf, port);
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.portinfo_sets, 2);
	ck_assert_uint_eq(r.armed, 2);
	ck_assert_uint_eq(r.activated, 2);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 4);
	for (size_t i = 0; i < ff->nlog; i++) {
		const struct fakefab_smp *s = &ff->log[i];

		if (s->method != MAD_SET)
			continue;
		ck_assert_uint_eq(s->attr, ATTR_PORT_INFO);
		ck_assert(s->node == leaf || s->node == spine);
		ck_assert_uint_eq(s->mod, s->node == leaf ? port : 1);
	}
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

/* A Set answered with an error: the run still ends, not ok, and says how
 * many SMPs failed. */
START_TEST(test_set_fails)
{
	struct fakefab_match m = fakefab_match_any();
	struct programmer *pr;
	struct program_result r;

	start();
	m.method = MAD_SET;
	m.attr = ATTR_LFT;
	m.node = 3;
	m.mod = 1;
	fakefab_rule(ff, &m, FAKEFAB_ERROR, 0x001C, 0);
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.failures, 1);
	ck_assert_ptr_nonnull(strstr(r.why, "1 SMPs failed"));
	ck_assert_uint_eq(fakefab_failed(ff), 1);
	/* a block that failed is not taken as written: the next run tries
	 * it again, and only it */
	fakefab_clear_rules(ff);
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(sets(FAKEFAB_ANY), 1);
	ck_assert_uint_eq(first_set(ATTR_LFT)->node, 3);
	ck_assert_uint_eq(first_set(ATTR_LFT)->mod, 1);
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

/* An LFT Set the switch took but whose every answer was lost (issue 31
 * point 1): the run fails, and the block is not taken for what it was
 * before either. When the routes go back to the old entry, the next run
 * reads the block and writes it; before, the old digest matched and the
 * switch kept the entry of the failed run for good. */
START_TEST(test_set_taken_answer_lost)
{
	struct fakefab_match m = fakefab_match_any();
	struct programmer *pr;
	struct program_result r;
	uint32_t leaf = 1;
	uint16_t lid = CA_LID_BASE + 12;
	uint8_t old, port;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	old = want_lft[leaf][lid];
	port = old == 3 ? 4 : 3;
	want_lft[leaf][lid] = port;
	m.method = MAD_SET;
	m.attr = ATTR_LFT;
	m.node = leaf;
	fakefab_rule(ff, &m, FAKEFAB_LOST_ANSWER, 0, 0);
	discover();
	r = program(pr, false);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.failures, 1);
	ck_assert_uint_eq(ff->nodes[leaf].lft[lid], port);      /* taken */
	/* the routes go back to what the block held before */
	fakefab_clear_rules(ff);
	want_lft[leaf][lid] = old;
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.lft_reads, 1);
	ck_assert_uint_eq(r.lft_writes, 1);
	assert_devices();
	/* and a P_Key block the same way */
	want_keys[leaf][0][1] = 0x8001;
	m.attr = ATTR_PKEY_TABLE;
	fakefab_rule(ff, &m, FAKEFAB_LOST_ANSWER, 0, 0);
	discover();
	r = program(pr, true);
	ck_assert(!r.ok);
	ck_assert_uint_eq(ff->nodes[leaf].ports[0].pkeys[1], 0x8001);
	fakefab_clear_rules(ff);
	want_keys[leaf][0][1] = 0;
	discover();
	r = program(pr, true);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.pkey_writes, 1);
	ck_assert_uint_eq(ff->nodes[leaf].ports[0].pkeys[1], 0);
	program_free(pr);
	stop();
}
END_TEST

/* The model carries the SwitchInfo the switches took (issue 22 point 5):
 * LinearFDBTop and LifeTimeValue as written, PortStateChange cleared; a
 * second run on the same model (a vport sweep's) writes no SwitchInfo. */
START_TEST(test_switchinfo_in_model)
{
	struct programmer *pr;
	struct program_result r;

	start();
	pr = program_new(eng);
	r = program(pr, false);
	ck_assert(r.ok);
	ck_assert_uint_gt(r.switchinfo_sets, 0);
	for (uint32_t n = 0; n < model.nnodes; n++) {
		const struct fabric_node *node = &model.nodes[n];

		if (node->type != NODE_SWITCH)
			continue;
		ck_assert_uint_eq(node->lft_top, lft.max_lid);
		ck_assert_uint_eq(mad_get_field((void *)node->sw_info, 0,
		    IB_SW_LINEAR_FDB_TOP_F), lft.max_lid);
		ck_assert_uint_eq(mad_get_field((void *)node->sw_info, 0,
		    IB_SW_LIFE_TIME_F), opts.packet_life);
		ck_assert_uint_eq(mad_get_field((void *)node->sw_info, 0,
		    IB_SW_STATE_CHANGE_F), 0);
		ck_assert_mem_eq(node->sw_info, ff->nodes[ff_node(n)].sw_info,
		    20);
	}
	fakefab_clear_log(ff);
	r = program(pr, false);
	ck_assert(r.ok);
	ck_assert_uint_eq(sets(ATTR_SWITCH_INFO), 0);
	ck_assert_uint_eq(r.switchinfo_sets, 0);
	program_free(pr);
	stop();
}
END_TEST

/* A SwitchInfo Set the switch took but never answered: the top is not
 * known, so the next run reads the blocks within what the switch says
 * its top is instead of trusting what it wrote. */
START_TEST(test_switchinfo_lost)
{
	struct fakefab_match m = fakefab_match_any();
	struct programmer *pr;
	struct program_result r;

	start();
	pr = program_new(eng);
	m.method = MAD_SET;
	m.attr = ATTR_SWITCH_INFO;
	m.node = 2;
	fakefab_rule(ff, &m, FAKEFAB_LOST_ANSWER, 0, 0);
	r = program(pr, false);
	ck_assert(!r.ok);
	fakefab_clear_rules(ff);
	discover();
	r = program(pr, false);
	ck_assert_msg(r.ok, "%s", r.why);
	ck_assert_uint_eq(r.lft_reads, (lft.max_lid / 64) + 1);
	ck_assert_uint_eq(r.lft_writes, 0);
	assert_devices();
	program_free(pr);
	stop();
}
END_TEST

static Suite *
program_suite(void)
{
	Suite *s = suite_create("program");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_program_then_nothing);
	tcase_add_test(tc, test_one_lft_entry);
	tcase_add_test(tc, test_every_lft_entry);
	tcase_add_test(tc, test_pkey_blocks);
	tcase_add_test(tc, test_restart);
	tcase_add_test(tc, test_switch_reset);
	tcase_add_test(tc, test_link_retrained);
	tcase_add_test(tc, test_set_fails);
	tcase_add_test(tc, test_set_taken_answer_lost);
	tcase_add_test(tc, test_switchinfo_in_model);
	tcase_add_test(tc, test_switchinfo_lost);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(program_suite());
	int failed;

	if (getenv("CHECK_DEBUG") != NULL)
		log_set_level(LOG_LVL_DEBUG);
	else
		log_set_level(LOG_LVL_ERROR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
