/*
 * The fabric's LID index and the queries of core/query.h, on a fabric
 * built here with core/fabric.h calls alone:
 *
 *   c1 (LID 3) -1- [A, LID 1] 3 === 3 [B, LID 2] -1- c2 (port 1 LID 4,
 *                             4 === 4                 port 2 LID 5, no link)
 *
 * c1 and c2 are CAs (c1 on A's port 1, c2 on B's port 1); A and B are
 * switches.
 *
 * A and B have 4 ports, cabled twice (3-3, 4-4); A's port 2 is free. The
 * forwarding tables are written by hand per test.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/query.h"

#define GUID(n)         (UINT64_C(0x0002c90300001000) + (n))

static struct fabric f;
static struct lft_set lft;
static uint32_t A, B, c1, c2;

static uint32_t
port(uint32_t n, uint8_t num)
{
	return fabric_port_idx(&f, n, num);
}

static uint32_t
ca(uint8_t nports, uint64_t guid)
{
	uint32_t n = fabric_add_node(&f, NODE_CA, nports, guid, NULL);

	for (uint8_t i = 1; i <= nports; i++) {
		f.ports[port(n, i)].present = 1;
		f.ports[port(n, i)].guid = guid + ((uint64_t)i << 40);
	}
	return n;
}

static void
setup(void)
{
	fabric_init(&f);
	A = fabric_add_node(&f, NODE_SWITCH, 4, GUID(1), NULL);
	B = fabric_add_node(&f, NODE_SWITCH, 4, GUID(2), NULL);
	c1 = ca(1, GUID(3));
	c2 = ca(2, GUID(4));
	fabric_link(&f, port(A, 1), port(c1, 1));
	fabric_link(&f, port(A, 3), port(B, 3));
	fabric_link(&f, port(A, 4), port(B, 4));
	fabric_link(&f, port(B, 1), port(c2, 1));
	fabric_set_lid(&f, port(A, 0), 1, 0);
	fabric_set_lid(&f, port(B, 0), 2, 0);
	fabric_set_lid(&f, port(c1, 1), 3, 0);
	fabric_set_lid(&f, port(c2, 1), 4, 0);
	fabric_set_lid(&f, port(c2, 2), 5, 0);
	strcpy(f.nodes[c1].desc, "c1 mlx5_0");
	f.nodes[c1].desc_valid = 1;
	strcpy(f.nodes[A].desc, "twin");
	f.nodes[A].desc_valid = 1;
	strcpy(f.nodes[B].desc, "twin");
	f.nodes[B].desc_valid = 1;
	ck_assert_int_eq(lft_set_init(&lft, &f), 0);
}

static void
teardown(void)
{
	lft_set_fini(&lft);
	fabric_fini(&f);
}

static uint8_t *
entry(uint32_t sw, uint16_t lid)
{
	return &lft_row(&lft, lft.node_sw[sw])[lid];
}

/* Tables that deliver every LID: c1 behind A.1, c2 behind B.1, across
 * the 3-3 cable. */
static void
route_all(void)
{
	for (uint16_t l = 1; l <= 5; l++) {
		*entry(A, l) = l == 1 ? 0 : l == 3 ? 1 : 3;
		*entry(B, l) = l == 2 ? 0 : l == 4 || l == 5 ? 1 : 3;
	}
}

/* ------------------------------------------------------------ LID index */

START_TEST(test_lid_index)
{
	ck_assert_uint_eq(fabric_port_by_lid(&f, 0), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 1), port(A, 0));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 2), port(B, 0));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), port(c1, 1));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 4), port(c2, 1));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 5), port(c2, 2));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 6), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, FABRIC_MAX_LID),
	    FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 0xFFFF), FABRIC_NONE);
	ck_assert_uint_eq(fabric_max_lid(&f), 5);

	/* a new LID replaces the old one in the index */
	fabric_set_lid(&f, port(c1, 1), 9, 0);
	ck_assert_uint_eq(f.ports[port(c1, 1)].lid, 9);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 9), port(c1, 1));
	/* the highest unicast LID, far past what the index held */
	fabric_set_lid(&f, port(c1, 1), FABRIC_MAX_LID, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 9), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, FABRIC_MAX_LID),
	    port(c1, 1));
	ck_assert_uint_eq(fabric_max_lid(&f), FABRIC_MAX_LID);
	/* LID 0: none */
	fabric_set_lid(&f, port(c1, 1), 0, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, FABRIC_MAX_LID),
	    FABRIC_NONE);
	ck_assert_uint_eq(f.ports[port(c1, 1)].lid, 0);
	/* ports that carry no LID may be given none */
	fabric_set_lid(&f, port(A, 2), 0, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 4), port(c2, 1));
}
END_TEST

START_TEST(test_lid_index_lmc)
{
	/* LMC 2: LIDs 8 .. 11 */
	fabric_set_lid(&f, port(c2, 1), 8, 2);
	ck_assert_uint_eq(f.ports[port(c2, 1)].lmc, 2);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 4), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 7), FABRIC_NONE);
	for (uint16_t l = 8; l <= 11; l++) {
		ck_assert_uint_eq(fabric_port_by_lid(&f, l), port(c2, 1));
		ck_assert(fabric_port_has_lid(&f.ports[port(c2, 1)], l));
	}
	ck_assert_uint_eq(fabric_port_by_lid(&f, 12), FABRIC_NONE);
	ck_assert_uint_eq(fabric_max_lid(&f), 11);
	ck_assert(!fabric_port_has_lid(&f.ports[port(c2, 1)], 12));
	ck_assert(!fabric_port_has_lid(&f.ports[port(c2, 1)], 7));
	/* back to LMC 0 in the middle of the old range */
	fabric_set_lid(&f, port(c2, 1), 10, 0);
	ck_assert_uint_eq(f.ports[port(c2, 1)].lmc, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 8), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 9), FABRIC_NONE);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 10), port(c2, 1));
	ck_assert_uint_eq(fabric_port_by_lid(&f, 11), FABRIC_NONE);
	/* no LID, no LMC */
	fabric_set_lid(&f, port(c2, 1), 16, 3);
	fabric_set_lid(&f, port(c2, 1), 0, 3);
	ck_assert_uint_eq(f.ports[port(c2, 1)].lmc, 0);
	for (uint16_t l = 16; l < 24; l++)
		ck_assert_uint_eq(fabric_port_by_lid(&f, l), FABRIC_NONE);
}
END_TEST

/* Two ports given one LID (a port GUID seen twice): the lower index
 * answers while it holds it, the other once it lets go. */
START_TEST(test_lid_index_shared)
{
	uint32_t lo = port(c1, 1), hi = port(c2, 2);

	fabric_set_lid(&f, hi, 3, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), lo);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 5), FABRIC_NONE);
	fabric_set_lid(&f, lo, 7, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), hi);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 7), lo);
	/* the lower one claims it again, and the higher one lets go */
	fabric_set_lid(&f, lo, 3, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), lo);
	fabric_set_lid(&f, hi, 0, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), lo);
	fabric_set_lid(&f, lo, 0, 0);
	ck_assert_uint_eq(fabric_port_by_lid(&f, 3), FABRIC_NONE);
}
END_TEST

/* Broken invariants are fatal (exit 1): a misaligned base, a range past
 * the unicast LIDs, a LID on a switch port other than 0. */
START_TEST(test_lid_misaligned)
{
	fabric_set_lid(&f, port(c1, 1), 6, 2);
}
END_TEST

START_TEST(test_lid_past_model)
{
	fabric_set_lid(&f, port(c1, 1), FABRIC_MODEL_MAX_LID + 1, 0);
}
END_TEST

START_TEST(test_lid_not_endport)
{
	fabric_set_lid(&f, port(A, 2), 20, 0);
}
END_TEST

/* ------------------------------------------------------------ walks */

struct hopv { uint32_t node; uint8_t in, out; uint16_t lid; };

static void
assert_hops(const struct query_hop *h, unsigned n, const struct hopv *want,
    unsigned nwant)
{
	ck_assert_uint_eq(n, nwant);
	for (unsigned i = 0; i < n; i++) {
		ck_assert_msg(h[i].node == want[i].node && h[i].in == want[i].in
		    && h[i].out == want[i].out && h[i].lid == want[i].lid,
		    "hop %u: node %u in %u out %u lid %u, want node %u in %u "
		    "out %u lid %u", i, h[i].node, h[i].in, h[i].out, h[i].lid,
		    want[i].node, want[i].in, want[i].out, want[i].lid);
	}
}

START_TEST(test_walk)
{
	struct query_hop h[16];
	unsigned n;

	route_all();
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 3, 1 },
	    { B, 3, 1, 2 }, { c2, 1, 0, 4 } }, 4);
	/* to a switch, from a switch, to oneself */
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 2, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 3, 1 },
	    { B, 3, 0, 2 } }, 3);
	ck_assert_int_eq(query_walk(&f, &lft, port(B, 0), 3, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { B, 0, 3, 2 }, { A, 3, 1, 1 },
	    { c1, 1, 0, 3 } }, 3);
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 3, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 0, 3 } }, 1);
	ck_assert_int_eq(query_walk(&f, &lft, port(A, 0), 1, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	ck_assert_uint_eq(n, 1);
	/* the other cable */
	*entry(A, 4) = 4;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 4, 1 },
	    { B, 4, 1, 2 }, { c2, 1, 0, 4 } }, 4);
}
END_TEST

START_TEST(test_walk_lmc)
{
	struct query_hop h[16];
	unsigned n;

	fabric_set_lid(&f, port(c2, 1), 8, 1);  /* LIDs 8, 9 */
	lft_set_fini(&lft);
	ck_assert_int_eq(lft_set_init(&lft, &f), 0);
	route_all();
	*entry(A, 9) = 3;
	*entry(B, 9) = 1;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 9, h, 16, &n),
	    QUERY_WALK_ARRIVED);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 3, 1 },
	    { B, 3, 1, 2 }, { c2, 1, 0, 8 } }, 4);
}
END_TEST

START_TEST(test_walk_broken)
{
	struct query_hop h[16];
	unsigned n;
	const struct hopv at_a[] = { { c1, 0, 1, 3 }, { A, 1, 0, 1 } };

	route_all();
	/* no entry */
	*entry(A, 4) = LFT_NO_ROUTE;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_NO_ROUTE);
	assert_hops(h, n, at_a, 2);
	/* a LID past the tables */
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 200, h, 16, &n),
	    QUERY_WALK_NO_ROUTE);
	assert_hops(h, n, at_a, 2);
	/* kept by a switch that is not LID 4 */
	*entry(A, 4) = 0;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_SELF);
	assert_hops(h, n, at_a, 2);
	/* past the switch's ports */
	*entry(A, 4) = 7;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_BAD_PORT);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 7, 1 } },
	    2);
	/* out of a port without a cable */
	*entry(A, 4) = 2;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_NO_LINK);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 2, 1 } },
	    2);
	/* back to the CA it came from */
	*entry(A, 4) = 1;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_WRONG_PORT);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 1, 1 },
	    { c1, 1, 0, 3 } }, 3);
	/* A to B by one cable, B back to A by the other: a loop, seen when
	 * A comes round again */
	*entry(A, 4) = 3;
	*entry(B, 4) = 4;
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 16, &n),
	    QUERY_WALK_LOOP);
	assert_hops(h, n, (struct hopv[]){ { c1, 0, 1, 3 }, { A, 1, 3, 1 },
	    { B, 3, 4, 2 }, { A, 4, 0, 1 } }, 4);
	/* the same loop from a switch */
	ck_assert_int_eq(query_walk(&f, &lft, port(B, 0), 4, h, 16, &n),
	    QUERY_WALK_LOOP);
	assert_hops(h, n, (struct hopv[]){ { B, 0, 4, 2 }, { A, 4, 3, 1 },
	    { B, 3, 0, 2 } }, 3);
	/* a CA whose port has no cable starts nowhere */
	ck_assert_int_eq(query_walk(&f, &lft, port(c2, 2), 3, h, 16, &n),
	    QUERY_WALK_NO_LINK);
	assert_hops(h, n, (struct hopv[]){ { c2, 0, 2, 5 } }, 1);
}
END_TEST

START_TEST(test_walk_too_long)
{
	struct query_hop h[3];
	unsigned n;

	route_all();
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 3, &n),
	    QUERY_WALK_TOO_LONG);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(h[2].node, B);
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 4, h, 0, &n),
	    QUERY_WALK_TOO_LONG);
	ck_assert_uint_eq(n, 0);
	/* exactly enough room */
	ck_assert_int_eq(query_walk(&f, &lft, port(c1, 1), 2, h, 3, &n),
	    QUERY_WALK_ARRIVED);
	ck_assert_uint_eq(n, 3);
	for (int e = 0; e < QUERY_WALK_END_MAX; e++)
		ck_assert_str_ne(query_walk_end_name(e), "unknown");
	ck_assert_str_eq(query_walk_end_name(QUERY_WALK_END_MAX), "unknown");
}
END_TEST

/* ------------------------------------------------------------ links */

/* PortInfo bytes (IBA 14.2.5.6) written by hand, not by libibmad. */
static struct fabric_port *
with_info(uint8_t state, uint8_t width, uint8_t speed, uint8_t ext,
    uint8_t mtu_cap, uint8_t neighbor_mtu)
{
	struct fabric_port *p = &f.ports[port(c1, 1)];

	memset(p->info, 0, sizeof(p->info));
	p->info[31] = width;                    /* LinkWidthActive */
	p->info[32] = 0x70 | state;     /* LinkSpeedSupported, PortState */
	p->info[33] = 0x52;             /* PhysState LinkUp, LinkDownDefault */
	p->info[35] = (uint8_t)(speed << 4 | 7); /* LinkSpeedActive, Enabled */
	p->info[36] = (uint8_t)(neighbor_mtu << 4);
	p->info[41] = mtu_cap;                  /* InitTypeReply 0, MTUCap */
	p->info[62] = (uint8_t)(ext << 4 | 3);  /* LinkSpeedExtActive, Supp. */
	p->info_valid = 1;
	p->state = state;
	return p;
}

START_TEST(test_link)
{
	struct query_link l;
	struct fabric_port *p;

	p = with_info(PORT_ACTIVE, 0x02, 4, 0, 5, 4);   /* 4X QDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_uint_eq(l.lanes, 4);
	ck_assert_int_eq(l.speed, QUERY_SPEED_QDR);
	ck_assert_uint_eq(l.mbps, 40000);
	ck_assert_str_eq(query_width_name(l.lanes), "4X");
	ck_assert_str_eq(query_speed_name(l.speed), "QDR");
	ck_assert_uint_eq(query_port_mtu_cap(p), 5);
	ck_assert_uint_eq(query_port_neighbor_mtu(p), 4);
	ck_assert_uint_eq(query_mtu_bytes(query_port_mtu_cap(p)), 4096);
	ck_assert_uint_eq(query_mtu_bytes(query_port_neighbor_mtu(p)), 2048);

	p = with_info(PORT_INIT, 0x01, 1, 0, 1, 1);     /* 1X SDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_uint_eq(l.lanes, 1);
	ck_assert_str_eq(query_speed_name(l.speed), "SDR");
	ck_assert_uint_eq(l.mbps, 2500);
	ck_assert_uint_eq(query_mtu_bytes(query_port_mtu_cap(p)), 256);

	/* an extended speed overrides LinkSpeedActive */
	p = with_info(PORT_ACTIVE, 0x08, 4, 2, 5, 5);   /* 12X EDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_str_eq(query_width_name(l.lanes), "12X");
	ck_assert_str_eq(query_speed_name(l.speed), "EDR");
	ck_assert_uint_eq(l.mbps, 300000);
	p = with_info(PORT_ARMED, 0x10, 4, 4, 5, 5);    /* 2X HDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_str_eq(query_width_name(l.lanes), "2X");
	ck_assert_str_eq(query_speed_name(l.speed), "HDR");
	ck_assert_uint_eq(l.mbps, 100000);
	p = with_info(PORT_ACTIVE, 0x04, 2, 8, 5, 5);   /* 8X NDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_str_eq(query_width_name(l.lanes), "8X");
	ck_assert_str_eq(query_speed_name(l.speed), "NDR");
	p = with_info(PORT_ACTIVE, 0x02, 2, 1, 5, 5);   /* 4X FDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_uint_eq(l.mbps, 56000);
	/* an unnamed extended speed falls back to LinkSpeedActive */
	p = with_info(PORT_ACTIVE, 0x02, 2, 3, 5, 5);   /* 4X DDR */
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_str_eq(query_speed_name(l.speed), "DDR");

	/* codes IBA does not name */
	p = with_info(PORT_ACTIVE, 0x03, 3, 0, 7, 0);
	ck_assert_int_eq(query_port_link(p, &l), 0);
	ck_assert_uint_eq(l.lanes, 0);
	ck_assert_int_eq(l.speed, QUERY_SPEED_UNKNOWN);
	ck_assert_uint_eq(l.mbps, 0);
	ck_assert_str_eq(query_width_name(l.lanes), "?");
	ck_assert_str_eq(query_speed_name(l.speed), "?");
	ck_assert_str_eq(query_speed_name((enum query_speed)99), "?");
	ck_assert_uint_eq(query_mtu_bytes(query_port_mtu_cap(p)), 0);
	ck_assert_uint_eq(query_mtu_bytes(0), 0);

	/* no link to decode: down, not read, a switch's port 0 */
	p = with_info(PORT_DOWN, 0x02, 4, 0, 5, 4);
	ck_assert_int_eq(query_port_link(p, &l), -1);
	p = with_info(PORT_ACTIVE, 0x02, 4, 0, 5, 4);
	p->info_valid = 0;
	ck_assert_int_eq(query_port_link(p, &l), -1);
	ck_assert_uint_eq(query_port_mtu_cap(p), 0);
	p = &f.ports[port(A, 0)];
	memcpy(p->info, f.ports[port(c1, 1)].info, sizeof(p->info));
	p->info_valid = 1;
	p->state = PORT_ACTIVE;
	ck_assert_int_eq(query_port_link(p, &l), -1);
	ck_assert_uint_eq(query_port_mtu_cap(p), 5);
}
END_TEST

/* VLCap and OperationalVLs (PortInfo bytes 37 and 43, high nibbles, as
 * ibsim's switch ports hold them: VL0-7 capable, VL0 operational). */
START_TEST(test_vls)
{
	struct fabric_port *p = with_info(PORT_ACTIVE, 0x02, 4, 0, 5, 4);

	p->info[37] = 0x40;
	p->info[43] = 0x10;
	ck_assert_uint_eq(query_port_vl_cap(p), 4);
	ck_assert_uint_eq(query_port_op_vls(p), 1);
	ck_assert_uint_eq(query_vls(query_port_vl_cap(p)), 8);
	ck_assert_uint_eq(query_vls(query_port_op_vls(p)), 1);
	ck_assert_uint_eq(query_vls(2), 2);
	ck_assert_uint_eq(query_vls(3), 4);
	ck_assert_uint_eq(query_vls(5), 15);
	ck_assert_uint_eq(query_vls(0), 0);
	ck_assert_uint_eq(query_vls(6), 0);
	p->info_valid = 0;
	ck_assert_uint_eq(query_port_vl_cap(p), 0);
}
END_TEST

START_TEST(test_state_names)
{
	ck_assert_str_eq(query_port_state_name(PORT_DOWN), "Down");
	ck_assert_str_eq(query_port_state_name(PORT_INIT), "Init");
	ck_assert_str_eq(query_port_state_name(PORT_ARMED), "Armed");
	ck_assert_str_eq(query_port_state_name(PORT_ACTIVE), "Active");
	ck_assert_str_eq(query_port_state_name(0), "unknown");
	ck_assert_str_eq(query_port_state_name(5), "unknown");
	ck_assert_str_eq(query_phys_state_name(PHYS_POLLING), "Polling");
	ck_assert_str_eq(query_phys_state_name(PHYS_DISABLED), "Disabled");
	ck_assert_str_eq(query_phys_state_name(PHYS_LINKUP), "LinkUp");
	ck_assert_str_eq(query_phys_state_name(7), "PhyTest");
	ck_assert_str_eq(query_phys_state_name(8), "unknown");
}
END_TEST

/* ------------------------------------------------------------ names */

static enum query_name
resolve(const char *name, struct query_target *t)
{
	return query_resolve(&f, name, t);
}

START_TEST(test_resolve)
{
	struct query_target t;
	char g[32];

	/* a switch LID names the whole switch, decimal or short hex */
	ck_assert_int_eq(resolve("2", &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.node, B);
	ck_assert_uint_eq(t.port, FABRIC_NONE);
	ck_assert_uint_eq(t.lid, 2);
	ck_assert_int_eq(resolve("0x0002", &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.node, B);
	ck_assert_uint_eq(query_target_endport(&f, &t), port(B, 0));
	/* a CA LID names its port; "05" is decimal 5 */
	ck_assert_int_eq(resolve("05", &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.node, c2);
	ck_assert_uint_eq(t.port, port(c2, 2));
	ck_assert_uint_eq(query_target_endport(&f, &t), port(c2, 2));
	/* a node GUID names the node; a CA's stands for its first port */
	snprintf(g, sizeof(g), "0x%016" PRIx64, GUID(4));
	ck_assert_int_eq(resolve(g, &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.node, c2);
	ck_assert_uint_eq(t.port, FABRIC_NONE);
	ck_assert_uint_eq(t.lid, 0);
	ck_assert_uint_eq(query_target_endport(&f, &t), port(c2, 1));
	/* a port GUID, in decimal, names the port */
	snprintf(g, sizeof(g), "%" PRIu64, f.ports[port(c2, 2)].guid);
	ck_assert_int_eq(resolve(g, &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.port, port(c2, 2));
	ck_assert_uint_eq(query_port_by_guid(&f, GUID(1)), port(A, 0));
	ck_assert_uint_eq(query_port_by_guid(&f, 0), FABRIC_NONE);
	/* a description */
	ck_assert_int_eq(resolve("c1 mlx5_0", &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.node, c1);
	ck_assert_uint_eq(query_target_endport(&f, &t), port(c1, 1));

	ck_assert_int_eq(resolve("twin", &t), QUERY_NAME_AMBIGUOUS);
	ck_assert_uint_eq(t.matches, 2);
	ck_assert_int_eq(resolve("nosuch", &t), QUERY_NAME_NO_MATCH);
	ck_assert_int_eq(resolve("", &t), QUERY_NAME_NO_MATCH);
	ck_assert_int_eq(resolve("0", &t), QUERY_NAME_NOT_UNICAST);
	ck_assert_int_eq(resolve("0xc000", &t), QUERY_NAME_NOT_UNICAST);
	ck_assert_int_eq(resolve("65535", &t), QUERY_NAME_NOT_UNICAST);
	ck_assert_int_eq(resolve("99", &t), QUERY_NAME_NO_LID);
	ck_assert_uint_eq(t.number, 99);
	ck_assert_int_eq(resolve("65536", &t), QUERY_NAME_NO_GUID);
	ck_assert_uint_eq(t.number, 65536);
	/* GUID 0 is nobody's, not even a port whose GUID was never read */
	ck_assert_int_eq(resolve("0x00000", &t), QUERY_NAME_NO_GUID);
	ck_assert_int_eq(resolve("99999999999999999999999", &t),
	    QUERY_NAME_NO_MATCH);
	ck_assert_int_eq(resolve("0x", &t), QUERY_NAME_NO_MATCH);
	ck_assert_int_eq(resolve("12ab", &t), QUERY_NAME_NO_MATCH);

	/* the index follows a LID change */
	fabric_set_lid(&f, port(c1, 1), 40, 0);
	ck_assert_int_eq(resolve("3", &t), QUERY_NAME_NO_LID);
	ck_assert_int_eq(resolve("40", &t), QUERY_NAME_OK);
	ck_assert_uint_eq(t.port, port(c1, 1));
	/* a CA with no LID has no end port to stand for it */
	fabric_set_lid(&f, port(c1, 1), 0, 0);
	ck_assert_uint_eq(query_node_endport(&f, c1), FABRIC_NONE);
	ck_assert_uint_eq(query_node_by_desc(&f, "twin", NULL), FABRIC_NONE);
	for (int e = 0; e < QUERY_NAME_MAX; e++)
		ck_assert_str_ne(query_name_name(e), "unknown");
}
END_TEST

static Suite *
query_suite(void)
{
	Suite *s = suite_create("query");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lid_index);
	tcase_add_test(tc, test_lid_index_lmc);
	tcase_add_test(tc, test_lid_index_shared);
	tcase_add_exit_test(tc, test_lid_misaligned, 1);
	tcase_add_exit_test(tc, test_lid_past_model, 1);
	tcase_add_exit_test(tc, test_lid_not_endport, 1);
	tcase_add_test(tc, test_walk);
	tcase_add_test(tc, test_walk_lmc);
	tcase_add_test(tc, test_walk_broken);
	tcase_add_test(tc, test_walk_too_long);
	tcase_add_test(tc, test_link);
	tcase_add_test(tc, test_vls);
	tcase_add_test(tc, test_state_names);
	tcase_add_test(tc, test_resolve);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(query_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
