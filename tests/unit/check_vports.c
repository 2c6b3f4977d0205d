/*
 * vports on the wire: sm/vports.c over the real MAD engine and the fake
 * transport. Each virtualization-capable HCA port is a simulated firmware
 * port (tests/fixture/vdev_state.c, the state machine the ibsim fixture
 * uses), answering the SMPs that reach it by directed route; the tests
 * assert on what the devices hold and on the SMPs sent.
 *
 * Fabric: one switch (node 0), the SM's CA on its port 1, NHOSTS host CAs
 * on ports 2 .. NHOSTS + 1; host h is reached by the path 1, h + 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <ev.h>
#include <infiniband/mad.h>

#include "core/fabric.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "sm/vports.h"
#include "tests/fixture/vdev_state.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/testfab.h"

#define NHOSTS          6
#define VPS             3       /* vports started per host (1 .. VPS) */
#define VCAP            8       /* VPortCap */
#define GUARD_ROUNDS    200000  /* safety net only */
#define DR_PATH_OFF     128     /* DR SMP InitialPath */

static struct ev_loop *loop;
static struct mad_engine *eng;
static struct vports *vp;
static struct fabric f;
static struct vport_set set, set2;
static struct vstate dev[NHOSTS];
static uint32_t host_port[NHOSTS];      /* fabric port of host h */
static size_t cursor;
/* the most hosts seen with SMPs in flight at once */
static unsigned max_hosts_busy;
/* a hook run before an SMP is served: may change the device */
static void (*before_serve)(unsigned h, unsigned method, uint16_t attr);
/* a host whose SMPs all fail to send (NHOSTS: none) */
static unsigned dead_host;

/* Per (host, method, attribute): SMPs served since the test's start. */
static unsigned served[NHOSTS][3][8];
/* Per host: SMPs sent to it (served or failed) since the test's start. */
static unsigned sent_to[NHOSTS];
/* Each SMP sent to the dead host, as method << 48 | attr << 32 |
 * modifier. */
#define MAX_DEAD        1024
static uint64_t dead_key[MAX_DEAD];
static unsigned ndead;

struct vdone {
	int called;
	struct vports_result r;
	bool changed;
};

static void
done_cb(void *arg, const struct vports_result *r)
{
	struct vdone *d = arg;

	d->called++;
	d->r = *r;
}

static void
poll_cb(void *arg, bool changed)
{
	struct vdone *d = arg;

	d->called++;
	d->changed = changed;
}

static uint64_t
vguid(unsigned h, unsigned i)
{
	return 0x0002c90300a00000ULL + h * 0x100 + i;
}

static void
setup(void)
{
	struct mad_opts o = { .max_wire = 64, .max_per_node = 4,
	    .timeout_ms = 1000, .retries = 1 };
	uint32_t sw, sm;

	fabric_init(&f);
	sw = testfab_switch(&f, NHOSTS + 1);
	sm = testfab_ca(&f, 1);
	testfab_connect(&f, sw, 1, sm, 1);
	f.sm_port = fabric_port_idx(&f, sm, 1);
	for (unsigned h = 0; h < NHOSTS; h++) {
		uint32_t n = testfab_ca(&f, 1), p = fabric_port_idx(&f, n, 1);
		struct fabric_port *fp = &f.ports[p];
		struct dr_path path = { .hops = 2 };

		testfab_connect(&f, sw, (uint8_t)(h + 2), n, 1);
		path.port[1] = 1;
		path.port[2] = (uint8_t)(h + 2);
		fp->path = fabric_add_path(&f, &path);
		fp->present = 1;
		fp->state = PORT_ACTIVE;
		fp->info_valid = 1;
		mad_set_field(fp->info, 0, IB_PORT_CAPMASK_F,
		    VL_CAP_CAPMASK2_SUPPORTED);
		mad_set_field(fp->info, 0, IB_PORT_CAPMASK2_F,
		    VL_CAP2_VIRTUALIZATION);
		host_port[h] = p;
		memset(&dev[h], 0, sizeof(dev[h]));
		dev[h].node_guid = f.nodes[n].guid;
		dev[h].port_guid = fp->guid;
		dev[h].port_num = 1;
		dev[h].guid_cap = 1;
		dev[h].vport_cap = VCAP;
		dev[h].vguid_cap = 1;
		dev[h].pkey_cap = 32;
		ck_assert_int_eq(vstate_init(&dev[h], "h"), 0);
		for (unsigned i = 1; i <= VPS; i++)
			ck_assert_int_eq(vstate_vport_up(&dev[h], i,
			    vguid(h, i), 1, "h"), 0);
		dev[h].vi_flags &= (uint8_t)~VL_VI_STATE_CHANGE;
	}
	testfab_lids(&f);
	loop = ev_loop_new(EVFLAG_AUTO);
	eng = mad_engine_new(loop, 0x1234, &o);
	ck_assert_ptr_nonnull(eng);
	cursor = 0;
	max_hosts_busy = 0;
	memset(served, 0, sizeof(served));
	memset(sent_to, 0, sizeof(sent_to));
	ndead = 0;
	before_serve = NULL;
	dead_host = NHOSTS;
	vp = vports_new(eng);
	vport_set_init(&set);
	vport_set_init(&set2);
}

static void
teardown(void)
{
	vports_free(vp);
	vport_set_fini(&set);
	vport_set_fini(&set2);
	mad_engine_free(eng);
	ev_loop_destroy(loop);
	for (unsigned h = 0; h < NHOSTS; h++)
		vstate_fini(&dev[h]);
	fabric_fini(&f);
}

/* The host an SMP's directed route reaches. */
static unsigned
host_of(const uint8_t *mad)
{
	unsigned hops = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);

	ck_assert_uint_eq(hops, 2);
	ck_assert_uint_eq(mad[DR_PATH_OFF + 1], 1);
	ck_assert_uint_ge(mad[DR_PATH_OFF + 2], 2);
	ck_assert_uint_lt(mad[DR_PATH_OFF + 2], NHOSTS + 2);
	return mad[DR_PATH_OFF + 2] - 2u;
}

static void
count_busy(void)
{
	size_t idx[256], n = fake_pending(idx, 256);
	uint8_t busy[NHOSTS] = { 0 };
	unsigned nb = 0;

	for (size_t k = 0; k < n; k++) {
		unsigned h = host_of(fake_sent(idx[k])->mad);

		if (!busy[h]++)
			nb++;
	}
	if (nb > max_hosts_busy)
		max_hosts_busy = nb;
}


static unsigned
nserved(int h, unsigned method, uint16_t attr)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NHOSTS; i++)
		if (h < 0 || (unsigned)h == i)
			n += served[i][method][attr - VL_ATTR_VIRT_INFO];
	return n;
}

/* Answer every SMP sent so far, then let the engine run, until *called. */
static void
run(int *called)
{
	for (unsigned round = 0; *called == 0; round++) {
		ck_assert_uint_lt(round, GUARD_ROUNDS);
		count_busy();
		while (cursor < fake_nsent()) {
			size_t i = cursor++;
			const uint8_t *m = fake_sent(i)->mad;
			unsigned h = host_of(m);
			unsigned method = mad_get_field((void *)m, 0,
			    IB_MAD_METHOD_F);
			uint16_t attr = (uint16_t)mad_get_field((void *)m, 0,
			    IB_MAD_ATTRID_F);
			uint32_t mod = mad_get_field((void *)m, 0,
			    IB_MAD_ATTRMOD_F);
			uint8_t d[64];
			int st;

			ck_assert(attr >= VL_ATTR_VIRT_INFO &&
			    attr <= VL_ATTR_VPORT_PKEYS);
			ck_assert(method == 1 || method == 2);
			sent_to[h]++;
			if (h == dead_host) {
				ck_assert_uint_lt(ndead, MAX_DEAD);
				dead_key[ndead++] = (uint64_t)method << 48 |
				    (uint64_t)attr << 32 | mod;
				fake_fail(i, ETIMEDOUT);
				continue;
			}
			if (before_serve != NULL)
				before_serve(h, method, attr);
			served[h][method][attr - VL_ATTR_VIRT_INFO]++;
			memcpy(d, m + SMP_DATA_OFFSET, sizeof(d));
			st = vstate_serve(&dev[h], method, attr, mod, d);
			ck_assert_int_ge(st, 0);
			fake_respond(i, (uint16_t)st, d);
		}
		ev_run(loop, EVRUN_NOWAIT);
	}
	ck_assert_int_eq(*called, 1);
	ev_run(loop, EVRUN_NOWAIT);
	ck_assert_uint_eq(mad_outstanding(eng) + mad_queued(eng), 0);
}

static struct vports_result
discover(struct vport_set *s, bool clear)
{
	struct vdone d = { 0 };

	vports_discover(vp, &f, s, clear, done_cb, &d);
	run(&d.called);
	return d.r;
}

/* LIDs 100 + k to the managed vports, a P_Key table of 0xFFFF. */
static void
give_lids(struct vport_set *s)
{
	uint16_t next = 100;

	for (uint32_t i = 0; i < s->n; i++) {
		struct vport *v = &s->v[i];

		if (!vport_is_managed(v))
			continue;
		if (vport_wants_lid(v))
			v->own_lid = next++;
		if (v->pkey_cap > 0)
			vport_pkeys_alloc(s, i)[0] = 0xFFFF;
	}
	vport_resolve_lids(s, &f);
}

static struct vports_result
program(struct vport_set *s)
{
	struct vdone d = { 0 };

	vports_program(vp, &f, s, done_cb, &d);
	run(&d.called);
	return d.r;
}

static bool
poll_changed(const struct vport_set *s)
{
	struct vdone d = { 0 };

	vports_poll(vp, &f, s, poll_cb, &d);
	run(&d.called);
	return d.changed;
}

/* Discovery reads every capable host and its vports; only the SM's port
 * is not sent a vport attribute. */
START_TEST(test_discover)
{
	struct vports_result r = discover(&set, false);

	ck_assert_uint_eq(r.hosts, NHOSTS);
	ck_assert_uint_eq(set.nh, NHOSTS);
	ck_assert_uint_eq(r.timeouts + r.errors, 0);
	/* the PF and VPS vports per host */
	ck_assert_uint_eq(set.n, NHOSTS * (VPS + 1));
	for (unsigned h = 0; h < NHOSTS; h++)
		for (unsigned i = 1; i <= VPS; i++) {
			uint32_t x = vport_by_guid(&set, vguid(h, i));

			ck_assert_uint_ne(x, FABRIC_NONE);
			ck_assert_uint_eq(set.v[x].port, host_port[h]);
			ck_assert_uint_eq(set.v[x].state, PORT_INIT);
			ck_assert(vport_wants_lid(&set.v[x]));
		}
	ck_assert_uint_eq(nserved(-1, 1, VL_ATTR_VIRT_INFO), NHOSTS);
	ck_assert_uint_eq(nserved(-1, 2, VL_ATTR_VIRT_INFO), 0);
}
END_TEST

/* Programming brings every vport to ACTIVE with its LID and P_Key table,
 * and clears the VPortStateChange its own writes latched: the next poll
 * finds nothing changed. */
START_TEST(test_program_clears_latch)
{
	struct vports_result r;

	discover(&set, false);
	give_lids(&set);
	r = program(&set);
	ck_assert_uint_eq(r.timeouts + r.errors, 0);
	ck_assert_uint_eq(r.managed, NHOSTS * VPS);
	/* each host's VMs and its vport 0 (VirtualizationEnable set: the
	 * PF's vport has a state of its own) */
	ck_assert_uint_eq(r.activated, NHOSTS * (VPS + 1));
	ck_assert_uint_eq(r.clears, NHOSTS);
	ck_assert_uint_eq(r.stale_hosts, 0);
	for (unsigned h = 0; h < NHOSTS; h++) {
		ck_assert_uint_eq(dev[h].vi_flags & VL_VI_STATE_CHANGE, 0);
		ck_assert_uint_eq(dev[h].vp[0].state, VL_VS_ACTIVE);
		for (unsigned i = 1; i <= VPS; i++) {
			uint32_t x = vport_by_guid(&set, vguid(h, i));

			ck_assert_uint_eq(dev[h].vp[i].state, VL_VS_ACTIVE);
			ck_assert_uint_eq(dev[h].vp[i].lid, set.v[x].lid);
			ck_assert_uint_ge(dev[h].vp[i].lid, 100);
			ck_assert_uint_eq(dev[h].vp[i].pkeys[0], 0xFFFF);
		}
	}
	ck_assert(!poll_changed(&set));
}
END_TEST

/* Without the clear the latch stays: shows the poll would see every host
 * (what test_program_clears_latch guards against). */
START_TEST(test_own_writes_latch)
{
	discover(&set, false);
	give_lids(&set);
	for (unsigned h = 0; h < NHOSTS; h++)
		ck_assert_uint_eq(dev[h].vi_flags & VL_VI_STATE_CHANGE, 0);
	/* a state write by hand, as the SM's own would be without a clear */
	{
		uint8_t d[64] = { 0 };
		struct vattr_vport_info vi = { .state = PORT_ARMED,
		    .lid = 100 };

		vattr_vport_info_encode(&vi, d);
		ck_assert_int_eq(vstate_serve(&dev[0], 2, VL_ATTR_VPORT_INFO,
		    1, d), 0);
	}
	ck_assert_uint_ne(dev[0].vi_flags & VL_VI_STATE_CHANGE, 0);
	ck_assert(poll_changed(&set));
}
END_TEST

/* A vport that a VM takes down between the SM's last state write on its
 * host and the SM's clear: the clear wipes that latch too, but the state
 * read after the clear shows it, and the next poll reports the host. */
static void
down_before_clear(unsigned h, unsigned method, uint16_t attr)
{
	if (h == 2 && method == 2 && attr == VL_ATTR_VIRT_INFO &&
	    dev[h].vp[2].state == VL_VS_ACTIVE)
		vstate_vport_down(&dev[h], 2);
}

START_TEST(test_change_before_clear_kept)
{
	struct vports_result r;

	discover(&set, false);
	give_lids(&set);
	before_serve = down_before_clear;
	r = program(&set);
	before_serve = NULL;
	ck_assert_uint_eq(dev[2].vp[2].state, VL_VS_DOWN);
	ck_assert_uint_eq(dev[2].vi_flags & VL_VI_STATE_CHANGE, 0);
	ck_assert_uint_eq(r.stale_hosts, 1);
	ck_assert(poll_changed(&set));
}
END_TEST

/* After the clear, a real change latches again; the poll sees it and the
 * vport sweep that follows reads only that host. */
START_TEST(test_poll_then_read_changed_only)
{
	struct vports_result r;
	struct vdone d = { 0 };

	discover(&set, false);
	give_lids(&set);
	program(&set);
	ck_assert(!poll_changed(&set));
	/* a VM moves from host 1 to host 4 */
	ck_assert_int_eq(vstate_vport_down(&dev[1], 3), 0);
	ck_assert_int_eq(vstate_vport_up(&dev[4], 5, vguid(1, 3), 1, "h"),
	    0);
	ck_assert(poll_changed(&set));
	memset(served, 0, sizeof(served));
	vports_discover_changed(vp, &f, &set2, &set, true, done_cb, &d);
	run(&d.called);
	r = d.r;
	ck_assert_uint_eq(r.timeouts + r.errors, 0);
	/* only hosts 1 and 4 were read */
	for (unsigned h = 0; h < NHOSTS; h++) {
		unsigned n = 0;

		for (unsigned m = 1; m <= 2; m++)
			for (unsigned a = 0; a < 8; a++)
				n += served[h][m][a];
		if (h == 1 || h == 4)
			ck_assert_uint_gt(n, 0);
		else
			ck_assert_uint_eq(n, 0);
	}
	ck_assert_uint_eq(set2.n, set.n);
	{
		uint32_t x = vport_by_guid(&set2, vguid(1, 3));

		ck_assert_uint_ne(x, FABRIC_NONE);
		ck_assert_uint_eq(set2.v[x].port, host_port[4]);
		ck_assert_uint_eq(set2.v[x].index, 5);
		ck_assert_uint_eq(set2.v[x].state, PORT_INIT);
	}
	ck_assert_uint_ne(vport_by_guid(&set2, vguid(0, 1)), FABRIC_NONE);
}
END_TEST

/* max_ports_in_process: at most that many hosts have SMPs in flight at
 * once, and more than one does when it allows. */
static unsigned
busy_with(unsigned window)
{
	vports_set_window(vp, window);
	max_hosts_busy = 0;
	discover(&set, false);
	give_lids(&set);
	program(&set);
	return max_hosts_busy;
}

START_TEST(test_window_one)
{
	ck_assert_uint_eq(busy_with(1), 1);
}
END_TEST

START_TEST(test_window_cap)
{
	unsigned b = busy_with(4);

	ck_assert_uint_gt(b, 1);
	ck_assert_uint_le(b, 4);
}
END_TEST

START_TEST(test_window_all)
{
	ck_assert_uint_eq(busy_with(64), NHOSTS);
}
END_TEST

/* A host that never answers: counted as timed out, the others are
 * programmed, the run ends. */
START_TEST(test_dead_host)
{
	struct vports_result r;

	discover(&set, false);
	give_lids(&set);
	dead_host = 3;
	r = program(&set);
	ck_assert_uint_gt(r.timeouts, 0);
	ck_assert_str_ne(r.first_failure, "");
	for (unsigned h = 0; h < NHOSTS; h++)
		for (unsigned i = 1; i <= VPS; i++)
			ck_assert_uint_eq(dev[h].vp[i].state, h == 3 ?
			    VL_VS_INIT : VL_VS_ACTIVE);
}
END_TEST

/* Ports that do not advertise virtualization (CapabilityMask2 bit 2
 * clear, or no CapabilityMask2 at all) are never sent a vendor
 * attribute: not by discovery, programming, the poll, nor the sweep of
 * changed hosts, even with their device's latch set. */
START_TEST(test_not_capable_untouched)
{
	struct vports_result r;
	struct vdone d = { 0 };

	/* host 2: CapabilityMask2 without bit 2 */
	mad_set_field(f.ports[host_port[2]].info, 0, IB_PORT_CAPMASK2_F,
	    0xFFFF & ~VL_CAP2_VIRTUALIZATION);
	/* host 5: bit 2 set but CapabilityMask says CapabilityMask2 is not
	 * there */
	mad_set_field(f.ports[host_port[5]].info, 0, IB_PORT_CAPMASK_F, 0);
	ck_assert(!vports_capable(f.ports[host_port[2]].info));
	ck_assert(!vports_capable(f.ports[host_port[5]].info));
	dev[2].vi_flags |= VL_VI_STATE_CHANGE;
	dev[5].vi_flags |= VL_VI_STATE_CHANGE;

	r = discover(&set, true);
	ck_assert_uint_eq(r.hosts, NHOSTS - 2);
	ck_assert_uint_eq(set.nh, NHOSTS - 2);
	ck_assert_uint_eq(vport_by_guid(&set, vguid(2, 1)), FABRIC_NONE);
	ck_assert_uint_eq(vport_by_guid(&set, vguid(5, 1)), FABRIC_NONE);
	ck_assert_uint_ne(vport_by_guid(&set, vguid(0, 1)), FABRIC_NONE);
	give_lids(&set);
	r = program(&set);
	ck_assert_uint_eq(r.activated, (NHOSTS - 2) * (VPS + 1));
	ck_assert(!poll_changed(&set));
	/* a change on a capable host: the sweep of changed hosts */
	ck_assert_int_eq(vstate_vport_down(&dev[1], 3), 0);
	ck_assert(poll_changed(&set));
	vports_discover_changed(vp, &f, &set2, &set, true, done_cb, &d);
	run(&d.called);
	for (unsigned h = 0; h < NHOSTS; h++)
		if (h == 2 || h == 5)
			ck_assert_uint_eq(sent_to[h], 0);
		else
			ck_assert_uint_gt(sent_to[h], 0);
	/* their devices were never programmed */
	for (unsigned i = 1; i <= VPS; i++) {
		ck_assert_uint_eq(dev[2].vp[i].state, VL_VS_INIT);
		ck_assert_uint_eq(dev[5].vp[i].state, VL_VS_INIT);
	}
}
END_TEST

/* An unanswered vport SMP is sent again (by the engine, retries = 1 in
 * setup, and by vports.c's own rounds), then counted once and reported;
 * the run goes on and ends, the other hosts are discovered. Checks that
 * every distinct SMP to the dead host went out the same number of times,
 * at least twice, and that each is one timeout in r. */
static void
check_dead_retried(const struct vports_result *r)
{
	unsigned distinct = 0, first = 0;

	ck_assert_uint_gt(ndead, 0);
	for (unsigned i = 0; i < ndead; i++) {
		unsigned same = 0, seen = 0;

		for (unsigned j = 0; j < ndead; j++) {
			same += dead_key[j] == dead_key[i];
			seen += j < i && dead_key[j] == dead_key[i];
		}
		ck_assert_uint_ge(same, 2);
		if (first == 0)
			first = same;
		ck_assert_uint_eq(same, first);
		distinct += seen == 0;
	}
	ck_assert_uint_eq(r->timeouts, distinct);
	ck_assert_uint_eq(r->errors, 0);
}

START_TEST(test_unanswered_retried_reported)
{
	struct vports_result r;

	dead_host = 4;
	r = discover(&set, false);
	check_dead_retried(&r);
	ck_assert_uint_gt(r.timeouts, 0);
	ck_assert_str_ne(r.first_failure, "");
	for (unsigned h = 0; h < NHOSTS; h++) {
		if (h == 4)
			continue;
		for (unsigned i = 1; i <= VPS; i++)
			ck_assert_uint_ne(vport_by_guid(&set, vguid(h, i)),
			    FABRIC_NONE);
	}
	/* the others are still programmed */
	give_lids(&set);
	r = program(&set);
	ck_assert_uint_eq(r.activated, (NHOSTS - 1) * (VPS + 1));
	for (unsigned h = 0; h < NHOSTS; h++)
		if (h != 4)
			for (unsigned i = 1; i <= VPS; i++)
				ck_assert_uint_eq(dev[h].vp[i].state,
				    VL_VS_ACTIVE);
}
END_TEST

static Suite *
vports_suite(void)
{
	Suite *s = suite_create("vports");
	TCase *tc = tcase_create("wire");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_discover);
	tcase_add_test(tc, test_program_clears_latch);
	tcase_add_test(tc, test_own_writes_latch);
	tcase_add_test(tc, test_change_before_clear_kept);
	tcase_add_test(tc, test_poll_then_read_changed_only);
	tcase_add_test(tc, test_window_one);
	tcase_add_test(tc, test_window_cap);
	tcase_add_test(tc, test_window_all);
	tcase_add_test(tc, test_dead_host);
	tcase_add_test(tc, test_not_capable_untouched);
	tcase_add_test(tc, test_unanswered_retried_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(vports_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
