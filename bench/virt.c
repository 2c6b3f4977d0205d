/*
 * bench/virt.c: vports on a k-ary three-level fat tree built in memory
 * (testfab_ft3), with the daemon's own pure code: ftree routing, then
 * core/vport (LID choice, LFT copy). Measures
 *   - bring-up: routing the fabric alone, then adding V LIDRequired vports
 *     per HCA (LIDs, lft_set_grow, the LFT copy), and the LFT blocks
 *     either needs written;
 *   - M VM migrations (a random vport moves to a random other host with
 *     its GUID and LID): the time to recompute the vport entries as a
 *     heavy sweep does, the LFT blocks that differ afterwards (total and
 *     per switch, what the programmer writes), and the time and blocks of
 *     a full re-route of the same fabric for comparison.
 * Prints figures; a benchmark, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fabric.h"
#include "core/lft.h"
#include "core/vattr.h"
#include "core/vport.h"
#include "routing/routing.h"
#include "tests/unit/testfab.h"

#define BLOCK 64

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Blocks that differ between a and b (same shape); *maxsw: the most in
 * one switch. */
static size_t
diff_blocks(const struct lft_set *a, const struct lft_set *b, size_t *maxsw)
{
	size_t total = 0, w = (size_t)a->max_lid + 1;

	*maxsw = 0;
	for (uint32_t sw = 0; sw < a->nsw; sw++) {
		size_t n = 0;

		for (size_t blk = 0; blk * BLOCK < w; blk++) {
			size_t len = w - blk * BLOCK < BLOCK ? w - blk * BLOCK :
			    BLOCK;

			if (memcmp(a->port + sw * w + blk * BLOCK,
			    b->port + sw * w + blk * BLOCK, len) != 0)
				n++;
		}
		total += n;
		if (n > *maxsw)
			*maxsw = n;
	}
	return total;
}

static void
copy_set(struct lft_set *dst, const struct lft_set *src)
{
	size_t bytes = (size_t)src->nsw * ((size_t)src->max_lid + 1);

	*dst = *src;
	dst->port = malloc(bytes);
	dst->sw_node = NULL;
	dst->node_sw = NULL;
	memcpy(dst->port, src->port, bytes);
}

int
main(int argc, char **argv)
{
	unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
	unsigned per = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
	unsigned moves = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	const struct routing_engine *re = routing_engine_find("ftree");
	static const struct routing_opts none;
	struct routing_opts again = { 0 };
	struct fabric f;
	struct lft_set s, before, rerouted;
	struct vport_set vs;
	char why[256];
	double t, t_route, t_vp, t_mig = 0, t_reroute;
	uint16_t lid;
	size_t blocks_phys, blocks_all, mig_total = 0, mig_max = 0, d, m;
	uint64_t guid = 0x00c0ffee00000000ULL;

	fabric_init(&f);
	testfab_ft3(&f, k);
	if (lft_set_init(&s, &f) < 0)
		return 1;
	t = now();
	if (re->route(&f, &none, &s, why, sizeof(why)) < 0) {
		fprintf(stderr, "virt-bench: ftree: %s\n", why);
		return 1;
	}
	t_route = now() - t;
	blocks_phys = (size_t)s.nsw * (s.max_lid / BLOCK + 1u);

	/* V vports on every HCA port, LIDRequired, LIDs after the ports' */
	vport_set_init(&vs);
	lid = fabric_max_lid(&f);
	t = now();
	for (uint32_t p = 0; p < f.nports; p++) {
		uint32_t h;

		if (f.nodes[f.ports[p].node].type != NODE_CA ||
		    !fabric_port_is_endport(&f, p))
			continue;
		h = vport_host_add(&vs, p);
		for (unsigned i = 1; i <= per; i++) {
			uint32_t v = vport_add(&vs, h, (uint16_t)i);

			vs.v[v].info_valid = 1;
			vs.v[v].state = PORT_ACTIVE;
			vs.v[v].flags = VATTR_VP_LID_REQUIRED;
			vs.v[v].own_lid = ++lid;
			vport_set_guid(&vs, v, ++guid);
		}
	}
	vport_resolve_lids(&vs, &f);
	if (lft_set_grow(&s, vport_max_lid(&vs)) < 0)
		return 1;
	vport_lft_copy(&vs, &f, &s);
	t_vp = now() - t;
	blocks_all = (size_t)s.nsw * (s.max_lid / BLOCK + 1u);

	printf("ft3 %u: %u switches, %u HCA ports, %u vports (%u per HCA), "
	    "LIDs 1-%u\n", k, s.nsw, vs.nh, vs.n, per, s.max_lid);
	printf("bring-up: route (ftree) %.3f s, %zu LFT blocks; with vports "
	    "+%.3f s (LIDs, grow, copy), %zu LFT blocks (%.2fx)\n", t_route,
	    blocks_phys, t_vp, blocks_all, (double)blocks_all / blocks_phys);

	for (unsigned i = 0; i < moves; i++) {
		uint32_t v = rnd(vs.n), h;

		do
			h = rnd(vs.nh);
		while (h == vs.v[v].host);
		copy_set(&before, &s);
		vs.v[v].host = h;
		vs.v[v].port = vs.h[h].port;
		t = now();
		vport_resolve_lids(&vs, &f);
		vport_lft_copy(&vs, &f, &s);
		t_mig += now() - t;
		d = diff_blocks(&before, &s, &m);
		mig_total += d;
		if (m > mig_max)
			mig_max = m;
		free(before.port);
	}
	/* a full re-route of the same fabric, tables sized as in use */
	copy_set(&before, &s);
	if (lft_set_init(&rerouted, &f) < 0 ||
	    lft_set_grow(&rerouted, s.max_lid) < 0)
		return 1;
	again.prev_fabric = &f;
	again.prev = &before;
	t = now();
	if (re->route(&f, &again, &rerouted, why, sizeof(why)) < 0)
		return 1;
	vport_lft_copy(&vs, &f, &rerouted);
	t_reroute = now() - t;
	d = diff_blocks(&before, &rerouted, &m);
	printf("%u migrations: %.6f s each to recompute the vport entries, "
	    "%.2f LFT blocks written each (%zu in all), at most %zu per "
	    "switch per migration (%u switches)\n", moves,
	    moves ? t_mig / moves : 0, moves ? (double)mig_total / moves : 0,
	    mig_total, mig_max, s.nsw);
	printf("full re-route of the same fabric: %.3f s, %zu LFT blocks "
	    "differ (an engine that rebalances would write up to %zu)\n",
	    t_reroute, d, blocks_all);
	printf("RESULT k=%u vports=%u route_s=%.6f vport_s=%.6f blocks_phys=%zu "
	    "blocks_all=%zu mig_s=%.6f mig_blocks=%.2f mig_max_per_switch=%zu "
	    "reroute_s=%.6f\n", k, vs.n, t_route, t_vp, blocks_phys,
	    blocks_all, moves ? t_mig / moves : 0,
	    moves ? (double)mig_total / moves : 0, mig_max, t_reroute);
	free(before.port);
	lft_set_fini(&rerouted);
	lft_set_fini(&s);
	vport_set_fini(&vs);
	fabric_fini(&f);
	return 0;
}
