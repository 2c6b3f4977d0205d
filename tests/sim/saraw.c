/*
 * saraw: one raw SA request for the simulated-fabric tests, for the cases
 * no standard client sends (every method and attribute of the class, a
 * ServiceRecord Delete by its name alone, ...). It sends one MAD of class
 * 0x03 version 2 to the SM LID of the port it runs on (under libumad2sim,
 * SIM_HOST picks the node) and prints the answer. The header is encoded
 * here byte by byte (IBA 13.4.2, 15.2.1), independently of ibsmd.
 *
 *   saraw [-t timeout_ms] [-k smkey] [-r] [-a] METHOD ATTR [MODIFIER [MASK [HEX]]]
 *   saraw -A [-t timeout_ms] [-k smkey]
 *
 * METHOD and ATTR are numbers (0x12 GetTable, 0x0011 NodeRecord), MASK
 * the component mask, HEX up to 200 bytes of record data (hex digits,
 * spaces and colons ignored). The agent takes RMPP (version 1), so a table
 * comes back whole under the umadfix fixture.
 *
 * -r sends the request as an RMPP transfer (RMPP header ACTIVE), as a
 * GetMulti must be (OpenSM refuses one without it); the umad layer
 * segments it. -a prints the whole answer.
 *
 * Prints "status=0xSSSS method=0xMM attr=0xAAAA attroff=N datalen=N" and,
 * when there is data, "data=HEX" (at most the first 400 bytes, all with
 * -a), or "timeout". Exit status 0 when an answer came, 2 on timeout, 1 on a
 * usage or setup error.
 *
 * -A sends every request method of the class (Get, Set, Report,
 * GetTable, GetTraceTable, GetMulti, Delete) with every attribute IBA
 * defines for it, an empty record and mask, one at a time, and prints a
 * line per pair: "method=0xMM attr=0xAAAA status=0xSSSS resp=0xMM" or
 * "method=0xMM attr=0xAAAA timeout".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "tests/fixture/bytes.h"

#define MAD_SIZE        256
#define SA_HDR          56
#define SA_DATA         200
#define QKEY_GSI        0x80010000u

static void
usage(void)
{
	fprintf(stderr, "usage: saraw [-t ms] [-k smkey] [-r] [-a] METHOD "
	    "ATTR [MODIFIER [MASK [HEX]]]\n");
	exit(1);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Every request method and attribute of the SA class (IBA 15.2.2,
 * 15.2.5), for -A. */
static const unsigned all_methods[] = { 0x01, 0x02, 0x06, 0x12, 0x13, 0x14,
    0x15 };
static const unsigned all_attrs[] = { 0x0001, 0x0002, 0x0003, 0x0011,
    0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0017, 0x0018, 0x0020, 0x0030,
    0x0031, 0x0033, 0x0035, 0x0036, 0x0038, 0x0039, 0x003A, 0x003B,
    0x00F3 };

struct conn {
	int fd, agent;
	umad_port_t port;
	uint8_t *umad;
	size_t cap;
	unsigned timeout, retries;
	uint64_t tid;
	bool rmpp;              /* send requests as RMPP transfers */
};

/* Send one request (data: n bytes); 0 with the answer in c->umad and its
 * length in *len, -1 on timeout. */
static int
request(struct conn *c, unsigned method, unsigned attr, unsigned mod,
    uint64_t smkey, uint64_t mask, const uint8_t *data, unsigned n, int *len)
{
	uint8_t *m = umad_get_mad(c->umad);
	uint64_t tid = ++c->tid;
	int r;

	memset(c->umad, 0, c->cap);
	m[0] = 1;
	m[1] = 0x03;
	m[2] = 2;
	m[3] = (uint8_t)method;
	put64(m + 8, tid);
	put16(m + 16, (uint16_t)attr);
	put32(m + 20, mod);
	put64(m + 36, smkey);
	put64(m + 48, mask);
	if (c->rmpp) {
		m[24] = 1;      /* RMPPVersion */
		m[25] = 1;      /* RMPPType DATA */
		m[26] = 0x01;   /* RMPPFlags: Active (the layer sets the rest) */
	}
	memcpy(m + SA_HDR, data, n);
	umad_set_addr(c->umad, c->port.sm_lid, 1, c->port.sm_sl, QKEY_GSI);
	if (umad_send(c->fd, c->agent, c->umad, MAD_SIZE, (int)c->timeout,
	    (int)c->retries) < 0) {
		fprintf(stderr, "saraw: umad_send failed\n");
		exit(1);
	}
	for (;;) {
		/* one MAD's room first, then what a longer (RMPP) answer
		 * says it needs */
		*len = MAD_SIZE;
		memset(c->umad, 0, c->cap);
		r = umad_recv(c->fd, c->umad, len,
		    (int)(c->timeout * (c->retries + 1) + 1000));
		if (r == -ENOSPC && *len > 0 &&
		    (size_t)*len + umad_size() <= c->cap) {
			memset(c->umad, 0, c->cap);
			r = umad_recv(c->fd, c->umad, len, 0);
		}
		if (r < 0 || umad_status(c->umad) != 0)
			return -1;
		/* the low 32 bits: the umad layer owns the high ones */
		if ((m[3] & 0x80) && (uint32_t)get64(m + 8) == (uint32_t)tid)
			return 0;
	}
}

int
main(int argc, char **argv)
{
	struct conn c = { .timeout = 1000, .retries = 2 };
	uint8_t data[SA_DATA] = { 0 }, *m;
	unsigned method = 0, attr = 0, mod = 0, n = 0;
	uint64_t smkey = 0, mask = 0;
	int ch, len;
	long rmpp_len;
	bool all = false, whole = false;
	const char *p;

	while ((ch = getopt(argc, argv, "At:k:ra")) != -1) {
		switch (ch) {
		case 'A': all = true; break;
		case 'r': c.rmpp = true; break;
		case 'a': whole = true; break;
		case 't': c.timeout = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'k': smkey = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!all && argc - optind < 2)
		usage();
	if (!all) {
		method = (unsigned)strtoul(argv[optind], NULL, 0);
		attr = (unsigned)strtoul(argv[optind + 1], NULL, 0);
		if (argc - optind > 2)
			mod = (unsigned)strtoul(argv[optind + 2], NULL, 0);
		if (argc - optind > 3)
			mask = strtoull(argv[optind + 3], NULL, 0);
	}
	if (!all && argc - optind > 4) {
		for (p = argv[optind + 4]; *p != '\0'; p++) {
			int hi, lo;

			if (*p == ' ' || *p == ':')
				continue;
			if ((hi = hexval(p[0])) < 0 || (lo = hexval(p[1])) < 0 ||
			    n >= SA_DATA)
				usage();
			data[n++] = (uint8_t)(hi << 4 | lo);
			p++;
		}
	}

	c.cap = sizeof(struct ib_user_mad) + 65536;
	if ((c.umad = calloc(1, c.cap)) == NULL)
		return 1;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &c.port) < 0) {
		fprintf(stderr, "saraw: no umad port\n");
		return 1;
	}
	if (c.port.sm_lid == 0) {
		fprintf(stderr, "saraw: no SM LID\n");
		return 1;
	}
	if ((c.fd = umad_open_port(c.port.ca_name, c.port.portnum)) < 0 ||
	    (c.agent = umad_register(c.fd, 0x03, 2, 1, NULL)) < 0) {
		fprintf(stderr, "saraw: cannot open the port or register SA\n");
		return 1;
	}
	/* where the MAD sits depends on the umad ABI the open found */
	m = umad_get_mad(c.umad);
	c.tid = (uint64_t)(getpid() & 0xffff) << 16;

	if (all) {
		/* one line per pair: what came back, or timeout */
		c.retries = 1;
		for (size_t i = 0; i < sizeof(all_methods) /
		    sizeof(all_methods[0]); i++)
			for (size_t j = 0; j < sizeof(all_attrs) /
			    sizeof(all_attrs[0]); j++) {
				printf("method=0x%02x attr=0x%04x ",
				    all_methods[i], all_attrs[j]);
				if (request(&c, all_methods[i], all_attrs[j],
				    0, smkey, 0, data, 0, &len) < 0)
					printf("timeout\n");
				else
					printf("status=0x%04x resp=0x%02x\n",
					    get16(m + 4), m[3]);
				fflush(stdout);
			}
		umad_close_port(c.fd);
		return 0;
	}

	if (request(&c, method, attr, mod, smkey, mask, data, n, &len) < 0) {
		printf("timeout\n");
		return 2;
	}
	rmpp_len = len - SA_HDR;
	printf("status=0x%04x method=0x%02x attr=0x%04x attroff=%u "
	    "datalen=%ld\n", get16(m + 4), m[3], get16(m + 16),
	    get16(m + 44), rmpp_len > 0 ? rmpp_len : 0);
	if (rmpp_len > 0) {
		printf("data=");
		for (long i = 0; i < rmpp_len && (whole || i < 400); i++)
			printf("%02x", m[SA_HDR + i]);
		printf("\n");
	}
	umad_close_port(c.fd);
	return 0;
}
