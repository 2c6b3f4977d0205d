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
 * With --replay FILE it sends instead the SMPs an SM sent, as the
 * smpcount shim recorded them (bench/smpcount.c, SMPCOUNT_RECORD): the
 * same MADs (attribute, method, directed-route path or LID, payload), in
 * the same order, with transaction ids of its own, W on the wire. The
 * simulator then does the same work per SMP as for the SM (a NodeInfo Get
 * one hop out is among the cheapest SMPs it answers; an LFT block Set
 * six hops out is not), so the floor is what the transport costs for the
 * same SMPs. The file is mapped into memory first (load_s, printed:
 * bench/bringup leaves it out of the floor's time).
 *
 * Not part of the build: bench/bringup compiles it at run time:
 *
 *     cc -O2 -o umadfloor umadfloor.c -libumad -libmad
 *     umadfloor N W
 *     umadfloor --replay FILE W
 *
 * Prints "key value" lines: smps, answered, wall_s, user_s, sys_s, and
 * us_per_smp_user, us_per_smp_sys (replay: also load_s, failed, lid_routed).
 * Exit 0 when every SMP was answered.
 */
#define _GNU_SOURCE
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

static void
report(long sent, long got, double t0, double t1)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("smps %ld\nanswered %ld\nwall_s %.6f\nuser_s %.6f\nsys_s %.6f\n"
	    "us_per_smp_user %.3f\nus_per_smp_sys %.3f\n", sent, got, t1 - t0,
	    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	    ((double)ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec) / (double)got,
	    ((double)ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec) / (double)got);
}

/* The whole file in memory (mapped, its pages populated now); NULL with a
 * message when it cannot be. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat st;
	void *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0 ||
	    (b = mmap(NULL, (size_t)st.st_size, PROT_READ,
	    MAP_PRIVATE | MAP_POPULATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "umadfloor: cannot read %s\n", path);
		return NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/* One answer: 1 when it came back, 0 when the transport timed the request
 * out, -1 when nothing came within 5 s (said on stderr). */
static int
take(int port, void *rbuf, long got, long of)
{
	int len = MAD_BYTES;

	if (umad_recv(port, rbuf, &len, 5000) < 0) {
		fprintf(stderr, "umadfloor: no answer within 5 s "
		    "(%ld of %ld answered)\n", got, of);
		return -1;
	}
	return umad_status(rbuf) == 0;
}

/* --replay FILE W: the recorded SMPs, in order, W on the wire. */
static int
replay(const char *path, long w)
{
	long sent = 0, got = 0, failed = 0, lidr = 0, total = 0;
	int port, agent_dr, agent_lid, r;
	size_t flen, off;
	uint8_t *rec, *m;
	void *sbuf, *rbuf;
	double t0, t1, tl = mono();

	if ((rec = slurp(path, &flen)) == NULL)
		return 2;
	for (off = 0; off + 5 <= flen; total++)
		off += 5 + (size_t)(rec[off] | rec[off + 1] << 8);
	if (off != flen || total == 0) {
		fprintf(stderr, "umadfloor: %s: not a whole SMP record\n", path);
		return 2;
	}
	tl = mono() - tl;
	if (umad_init() < 0 || (port = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "umadfloor: no umad port\n");
		return 2;
	}
	agent_dr = umad_register(port, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	agent_lid = umad_register(port, IB_SMI_CLASS, 1, 0, NULL);
	if (agent_dr < 0 || agent_lid < 0) {
		fprintf(stderr, "umadfloor: cannot register the SMP classes\n");
		return 2;
	}
	sbuf = calloc(1, umad_size() + MAD_BYTES);
	rbuf = calloc(1, umad_size() + MAD_BYTES);
	if (sbuf == NULL || rbuf == NULL)
		return 2;
	m = umad_get_mad(sbuf);
	t0 = mono();
	off = 0;
	while (got + failed < total) {
		while (sent < total && sent - got - failed < w) {
			size_t n = (size_t)(rec[off] | rec[off + 1] << 8);
			uint16_t lid;

			memcpy(&lid, rec + off + 2, 2);
			memset(m, 0, MAD_BYTES);
			memcpy(m, rec + off + 5, n > MAD_BYTES ? MAD_BYTES : n);
			mad_set_field64(m, 0, IB_MAD_TRID_F, (uint64_t)sent + 1);
			umad_set_addr(sbuf, ntohs(lid), 0, rec[off + 4], 0);
			if (m[1] == IB_SMI_CLASS)
				lidr++;
			if (umad_send(port, m[1] == IB_SMI_CLASS ? agent_lid :
			    agent_dr, sbuf, MAD_BYTES, 1000, 0) < 0) {
				fprintf(stderr, "umadfloor: umad_send failed\n");
				return 1;
			}
			off += 5 + n;
			sent++;
		}
		if ((r = take(port, rbuf, got, total)) < 0)
			break;
		if (r)
			got++;
		else
			failed++;       /* timed out in the transport */
	}
	t1 = mono();
	report(sent, got, t0, t1);
	printf("load_s %.6f\nfailed %ld\nlid_routed %ld\n", tl, failed, lidr);
	return got == total ? 0 : 1;
}

int
main(int argc, char **argv)
{
	long n, w, sent = 0, got = 0;
	int port, agent, r;
	void *sbuf, *rbuf;
	double t0, t1;

	if (argc == 4 && strcmp(argv[1], "--replay") == 0 &&
	    (w = atol(argv[3])) > 0)
		return replay(argv[2], w);
	if (argc != 3 || (n = atol(argv[1])) <= 0 || (w = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: umadfloor N W | umadfloor --replay FILE W\n");
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
		if ((r = take(port, rbuf, got, n)) < 0)
			break;
		if (r)
			got++;
		else
			sent--;         /* timed out in the transport: again */
	}
	t1 = mono();
	report(sent, got, t0, t1);
	return got == n ? 0 : 1;
}
