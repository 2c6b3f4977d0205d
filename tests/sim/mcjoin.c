/*
 * mcjoin: a multicast client for the simulated-fabric tests. It sends
 * MCMemberRecord Set (join or create) and Delete (leave) requests to the
 * SA from the port it runs on (under the umadfix device, SIM_HOST picks the
 * node) and prints each answer on one line. The record is encoded here
 * byte by byte (IBA 15.2.5.17, OpenSM's ib_member_rec_t), independently
 * of ibsmd's own codec.
 *
 *   mcjoin [-t timeout_ms] [COMMAND ...]
 *
 * Without a command on the command line, commands are read from stdin,
 * one per line:
 *
 *   join  MGID JOINSTATE [key=value ...]
 *   leave MGID JOINSTATE [key=value ...]
 *   get   MGID                           (SubnAdmGet, trusted, this port)
 *
 * MGID is an IPv6-style address ("0" for an SA-assigned one); JOINSTATE
 * the 4 bits (1 full, 2 non, 4 send-only non, 8 send-only full). The mask
 * is MGID|PortGID|JoinState plus one component per key given:
 *   pkey= qkey= mtu= rate= sl= tclass= flow= hop= scope= life=
 * (mtu, rate, life with selector "exactly"; mtusel=, ratesel=, lifesel=
 * after them set another: 0 greater than, 1 less than, 2 exactly, 3
 * largest); "create" adds Q_Key, TClass,
 * P_Key, FlowLabel and SL (defaults: Q_Key 0x0b1b, P_Key 0xffff, others
 * 0); mask=HEX replaces the mask; port=GUID joins another port (proxy);
 * smkey=HEX sets the SM_Key (default 0).
 *
 * Answers: "status=0xSSSS mgid=... mlid=0x... join=0x. mtu=0x.. rate=0x..
 * qkey=0x... pkey=0x... sl=. proxy=. life=0x.." or "timeout" (no answer). Exit
 * status 0 unless the port cannot be opened.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "tests/fixture/bytes.h"

#define MAD_SIZE        256
#define SA_CLASS        0x03
#define SA_VERSION      2
#define ATTR_MCMEMBER   0x0038
#define METHOD_GET      0x01
#define METHOD_SET      0x02
#define METHOD_DELETE   0x15
#define SA_HDR          56
#define QKEY_GSI        0x80010000u

/* MCMemberRecord component bits. */
enum {
	C_MGID, C_PORT_GID, C_QKEY, C_MLID, C_MTU_SEL, C_MTU, C_TCLASS,
	C_PKEY, C_RATE_SEL, C_RATE, C_LIFE_SEL, C_LIFE, C_SL, C_FLOW, C_HOP,
	C_SCOPE, C_JOIN, C_PROXY,
};
#define BIT(c) (UINT64_C(1) << (c))

static int portid = -1, agent = -1;
static umad_port_t port;
static uint64_t tid = 0x10000;
static int timeout_ms = 1000;

/* The record of one request, in wire order (56 bytes). */
struct req {
	uint8_t method;
	uint8_t rec[56];
	uint64_t mask;
	uint64_t smkey;
	bool mask_given;
};

static int
parse_gid(const char *s, uint8_t gid[16])
{
	if (strcmp(s, "0") == 0) {
		memset(gid, 0, 16);
		return 0;
	}
	return inet_pton(AF_INET6, s, gid) == 1 ? 0 : -1;
}

/* key=value of a command; returns -1 on an unknown key. */
static int
option(struct req *r, const char *kv)
{
	const char *eq = strchr(kv, '=');
	unsigned long long v = eq != NULL ? strtoull(eq + 1, NULL, 0) : 0;
	uint8_t *b = r->rec;
	size_t n = eq != NULL ? (size_t)(eq - kv) : strlen(kv);

#define KEY(k) (n == strlen(k) && strncmp(kv, (k), n) == 0)
	if (KEY("create")) {
		r->mask |= BIT(C_QKEY) | BIT(C_TCLASS) | BIT(C_PKEY) |
		    BIT(C_FLOW) | BIT(C_SL);
		if (get32(b + 32) == 0)
			put32(b + 32, 0x0b1b);
		if (get16(b + 40) == 0)
			put16(b + 40, 0xffff);
	} else if (KEY("pkey")) {
		r->mask |= BIT(C_PKEY);
		put16(b + 40, (uint16_t)v);
	} else if (KEY("qkey")) {
		r->mask |= BIT(C_QKEY);
		put32(b + 32, (uint32_t)v);
	} else if (KEY("mtu")) {
		r->mask |= BIT(C_MTU_SEL) | BIT(C_MTU);
		b[38] = (uint8_t)(2 << 6 | (v & 0x3f));
	} else if (KEY("rate")) {
		r->mask |= BIT(C_RATE_SEL) | BIT(C_RATE);
		b[42] = (uint8_t)(2 << 6 | (v & 0x3f));
	} else if (KEY("life")) {
		r->mask |= BIT(C_LIFE_SEL) | BIT(C_LIFE);
		b[43] = (uint8_t)(2 << 6 | (v & 0x3f));
	} else if (KEY("mtusel")) {
		r->mask |= BIT(C_MTU_SEL);
		b[38] = (uint8_t)((b[38] & 0x3f) | (v & 3) << 6);
	} else if (KEY("ratesel")) {
		r->mask |= BIT(C_RATE_SEL);
		b[42] = (uint8_t)((b[42] & 0x3f) | (v & 3) << 6);
	} else if (KEY("lifesel")) {
		r->mask |= BIT(C_LIFE_SEL);
		b[43] = (uint8_t)((b[43] & 0x3f) | (v & 3) << 6);
	} else if (KEY("tclass")) {
		r->mask |= BIT(C_TCLASS);
		b[39] = (uint8_t)v;
	} else if (KEY("sl")) {
		r->mask |= BIT(C_SL);
		b[44] = (uint8_t)((b[44] & 0x0f) | (v & 0xf) << 4);
	} else if (KEY("flow")) {
		r->mask |= BIT(C_FLOW);
		b[44] = (uint8_t)((b[44] & 0xf0) | ((v >> 16) & 0xf));
		b[45] = (uint8_t)(v >> 8);
		b[46] = (uint8_t)v;
	} else if (KEY("hop")) {
		r->mask |= BIT(C_HOP);
		b[47] = (uint8_t)v;
	} else if (KEY("scope")) {
		r->mask |= BIT(C_SCOPE);
		b[48] = (uint8_t)((b[48] & 0x0f) | (v & 0xf) << 4);
	} else if (KEY("mlid")) {
		r->mask |= BIT(C_MLID);
		put16(b + 36, (uint16_t)v);
	} else if (KEY("port")) {
		put64(b + 24, (uint64_t)v);
	} else if (KEY("mask")) {
		r->mask = v;
		r->mask_given = true;
	} else if (KEY("smkey")) {
		r->smkey = v;
	} else {
		return -1;
	}
	return 0;
#undef KEY
}

static void
print_answer(const uint8_t *m)
{
	const uint8_t *b = m + SA_HDR;
	char g[64];

	if (inet_ntop(AF_INET6, b, g, sizeof(g)) == NULL)
		strcpy(g, "?");
	printf("status=0x%04x mgid=%s mlid=0x%04x join=0x%x mtu=0x%02x "
	    "rate=0x%02x qkey=0x%08" PRIx32 " pkey=0x%04x sl=%u tclass=%u "
	    "flow=0x%05" PRIx32 " hop=%u scope=%u proxy=%u life=0x%02x\n",
	    get16(m + 4), g, get16(b + 36), b[48] & 0xf, b[38], b[42],
	    get32(b + 32), get16(b + 40), b[44] >> 4, b[39],
	    get32(b + 44) >> 8 & 0xfffff, b[47], b[48] >> 4, b[49] >> 7,
	    b[43]);
	fflush(stdout);
}

static void
request(struct req *r)
{
	size_t sz = umad_size() + MAD_SIZE;
	void *u = calloc(1, sz), *in = calloc(1, sz);
	uint8_t *m = umad_get_mad(u);
	uint64_t my_tid = ++tid;
	int len, rc, tries = 0;

	m[0] = 1;
	m[1] = SA_CLASS;
	m[2] = SA_VERSION;
	m[3] = r->method;
	put64(m + 8, my_tid);
	put16(m + 16, ATTR_MCMEMBER);
	put64(m + 36, r->smkey);
	put64(m + 48, r->mask);
	memcpy(m + SA_HDR, r->rec, 56);
	umad_set_addr(u, port.sm_lid, 1, 0, QKEY_GSI);
	umad_set_pkey(u, 0);
	if (umad_send(portid, agent, u, MAD_SIZE, timeout_ms, 0) < 0) {
		printf("send-error %s\n", strerror(errno));
		goto out;
	}
	for (;;) {
		len = MAD_SIZE;
		rc = umad_recv(portid, in, &len, timeout_ms + 1000);
		if (rc < 0 || umad_status(in) != 0) {
			printf("timeout\n");
			fflush(stdout);
			goto out;
		}
		m = umad_get_mad(in);
		/* Our answer, by TID (the low 32 bits carry the agent's). */
		if ((uint32_t)(be64toh(*(uint64_t *)(m + 8))) ==
		    (uint32_t)my_tid && (m[3] & 0x80))
			break;
		if (++tries > 10) {
			printf("timeout\n");
			fflush(stdout);
			goto out;
		}
	}
	print_answer(m);
out:
	free(u);
	free(in);
}

static int
command(int argc, char **argv)
{
	struct req r;
	int i;

	if (argc == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	if (strcmp(argv[0], "join") == 0)
		r.method = METHOD_SET;
	else if (strcmp(argv[0], "leave") == 0)
		r.method = METHOD_DELETE;
	else if (strcmp(argv[0], "get") == 0)
		r.method = METHOD_GET;
	else {
		fprintf(stderr, "mcjoin: unknown command %s\n", argv[0]);
		return -1;
	}
	if (argc < 2 || parse_gid(argv[1], r.rec) < 0) {
		fprintf(stderr, "mcjoin: %s: MGID missing or bad\n", argv[0]);
		return -1;
	}
	/* PortGID: this port (its subnet prefix and GUID), big-endian as
	 * umad gives them */
	memcpy(r.rec + 16, &port.gid_prefix, 8);
	memcpy(r.rec + 24, &port.port_guid, 8);
	r.mask = BIT(C_MGID) | BIT(C_PORT_GID) | BIT(C_JOIN);
	if (r.method == METHOD_GET) {
		r.smkey = 1;
		i = 2;
	} else {
		if (argc < 3) {
			fprintf(stderr, "mcjoin: %s: JoinState missing\n",
			    argv[0]);
			return -1;
		}
		r.rec[48] = (uint8_t)(strtoul(argv[2], NULL, 0) & 0xf);
		i = 3;
	}
	if (r.method == METHOD_GET)
		r.mask = BIT(C_MGID) | BIT(C_PORT_GID);
	for (; i < argc; i++)
		if (option(&r, argv[i]) < 0) {
			fprintf(stderr, "mcjoin: unknown option %s\n", argv[i]);
			return -1;
		}
	request(&r);
	return 0;
}

int
main(int argc, char **argv)
{
	long method_mask[16 / sizeof(long)];
	char line[1024], *words[32], *save, *w;
	int opt, n;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		switch (opt) {
		case 't':
			timeout_ms = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: mcjoin [-t ms] [command]\n");
			return 2;
		}
	}
	if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
	    umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "mcjoin: cannot open the local port\n");
		return 1;
	}
	memset(method_mask, 0, sizeof(method_mask));
	agent = umad_register(portid, SA_CLASS, SA_VERSION, 1, method_mask);
	if (agent < 0) {
		fprintf(stderr, "mcjoin: cannot register an SA agent\n");
		return 1;
	}
	if (optind < argc) {
		command(argc - optind, argv + optind);
	} else {
		while (fgets(line, sizeof(line), stdin) != NULL) {
			n = 0;
			for (w = strtok_r(line, " \t\n", &save); w != NULL &&
			    n < 32; w = strtok_r(NULL, " \t\n", &save))
				words[n++] = w;
			if (n > 0 && words[0][0] != '#')
				command(n, words);
		}
	}
	umad_unregister(portid, agent);
	umad_close_port(portid);
	umad_release_port(&port);
	return 0;
}
