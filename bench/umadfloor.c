/*
 * umadfloor: the cheapest client of a umad port, to measure what the
 * transport alone costs per SMP. It sends N directed-route NodeInfo Gets,
 * one hop out of the local port (to the node cabled to it), keeping W on
 * the wire, from one thread, receiving with a blocking umad_recv(): no
 * event loop, no receiver thread, no model, no routing. Whatever CPU it
 * spends per SMP is the floor any SM pays on that transport (on ibsim: the
 * umadfix device, tests/fixture, which bench/bringup preloads into every
 * client, as into ibsmd).
 *
 * Not part of the build: bench/bringup compiles it at run time:
 *
 *     cc -O2 -o umadfloor umadfloor.c -libumad -libmad
 *     umadfloor N W
 *
 * Prints "key value" lines: smps, answered, wall_s, user_s, sys_s, and
 * us_per_smp_user, us_per_smp_sys. Exit 0 when every SMP was answered.
 */
#define _GNU_SOURCE
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAD_BYTES 256

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A DR SMP NodeInfo Get, one hop out through port 1, with transaction id
 * tid, in umad (umad_size() header, then the MAD). */
static void
build(void *umad, uint64_t tid)
{
	uint8_t *m = umad_get_mad(umad);
	uint8_t path[64] = { 0, 1 };

	memset(m, 0, MAD_BYTES);
	mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS);
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(m, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
	mad_set_field64(m, 0, IB_MAD_TRID_F, tid);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, IB_ATTR_NODE_INFO);
	mad_set_field(m, 0, IB_DRSMP_HOPCNT_F, 1);
	mad_set_field(m, 0, IB_DRSMP_DRSLID_F, 0xffff);
	mad_set_field(m, 0, IB_DRSMP_DRDLID_F, 0xffff);
	/* initial path: byte 0 unused, byte 1 the port out of the source */
	mad_set_array(m, 0, IB_DRSMP_PATH_F, path);
	umad_set_addr(umad, 0xffff, 0, 0, 0);
}

int
main(int argc, char **argv)
{
	long n, w, sent = 0, got = 0;
	int port, agent, len;
	void *sbuf, *rbuf;
	double t0, t1;
	struct rusage ru;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (w = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: umadfloor N W\n");
		return 2;
	}
	if (umad_init() < 0 || (port = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "umadfloor: no umad port\n");
		return 2;
	}
	if ((agent = umad_register(port, IB_SMI_DIRECT_CLASS, 1, 0, NULL)) < 0) {
		fprintf(stderr, "umadfloor: cannot register the DR SMP class\n");
		return 2;
	}
	sbuf = calloc(1, umad_size() + MAD_BYTES);
	rbuf = calloc(1, umad_size() + MAD_BYTES);
	if (sbuf == NULL || rbuf == NULL)
		return 2;
	t0 = mono();
	while (got < n) {
		while (sent < n && sent - got < w) {
			build(sbuf, (uint64_t)sent + 1);
			if (umad_send(port, agent, sbuf, MAD_BYTES, 1000, 0) < 0) {
				fprintf(stderr, "umadfloor: umad_send failed\n");
				return 1;
			}
			sent++;
		}
		len = MAD_BYTES;
		if (umad_recv(port, rbuf, &len, 5000) < 0) {
			fprintf(stderr, "umadfloor: no answer within 5 s "
			    "(%ld of %ld answered)\n", got, n);
			break;
		}
		if (umad_status(rbuf) == 0)
			got++;
		else
			sent--;         /* timed out in the transport: again */
	}
	t1 = mono();
	getrusage(RUSAGE_SELF, &ru);
	printf("smps %ld\nanswered %ld\nwall_s %.6f\nuser_s %.6f\nsys_s %.6f\n"
	    "us_per_smp_user %.3f\nus_per_smp_sys %.3f\n", sent, got, t1 - t0,
	    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	    ((double)ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec) / (double)got,
	    ((double)ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec) / (double)got);
	return got == n ? 0 : 1;
}
