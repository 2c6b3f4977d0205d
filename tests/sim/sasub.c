/*
 * sasub: a small SA client for the simulated-fabric tests (libibumad +
 * libibmad, run under the umadfix device like the diags). It asks the SM
 * whose LID the local port holds, on QP1, and prints one line per event:
 *
 *   sasub [-t SECONDS] subscribe TRAP[,TRAP...]
 *       InformInfo Set (Subscribe 1, generic, any type and producer,
 *       LIDRangeBegin 0xFFFF) for each trap, then prints every Report it
 *       gets and answers it with a ReportResp, until SECONDS (default 60)
 *       have passed:
 *         subscribed trap 65 status 0x0000
 *         report trap 65 gid fe80::2:c903:0:5 issuer_lid 1 type 4 producer 4 issuer_gid fe80::2:c903:0:1
 *       (gid: the GID in the details of traps 64-67, bytes 16-31 of the
 *       Notice; issuer_gid: the IssuerGID, bytes 64-79)
 *   sasub [-t SECONDS] service ID NAME LEASE|inf
 *       ServiceRecord Set of service ID (hex) for this port's GID, then
 *       exits:
 *         service 0x1234 status 0x0000 lease 3600 name NAME
 *   sasub [-t SECONDS] unservice ID
 *       ServiceRecord Delete of the same RID.
 *
 * Under ibsim only a port's issm client receives requests sent to QP1:
 * run it with SIM_SET_ISSM=1 (and SIM_HOST=<another node than the SM's>)
 * to receive Reports. It registers the SM classes as well, so that the
 * SMInfo Get an SM sends to an IsSM port finds an agent (it is not
 * answered: this port runs no SM).
 *
 * Exit status: 0, 1 on a usage or setup error, 2 when a Set was refused or
 * got no answer.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define MAD_SIZE 256
#define SA_DATA 56
#define QKEY_GSI 0x80010000u

static int fd, sa_agent;
static uint16_t sm_lid;
static uint64_t port_guid, gid_prefix;  /* host order */
static uint32_t tid = 0x5a000000;
static double deadline;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
put_be(uint8_t *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static uint64_t
get_be(const uint8_t *b, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | b[i];
	return v;
}

static const char *
gid_str(const uint8_t *gid, char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* A request to the SM's SA: header, SM_Key 0, mask, record. */
static uint32_t
send_sa(uint8_t method, uint16_t attr, uint64_t mask, const uint8_t *rec,
    size_t reclen)
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad *um = (struct ib_user_mad *)buf;
	uint8_t *m = umad_get_mad(um);

	memset(buf, 0, sizeof(buf));
	tid++;
	mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
	mad_set_field(m, 0, IB_MAD_CLASSVER_F, 2);
	mad_set_field(m, 0, IB_MAD_METHOD_F, method);
	mad_set_field64(m, 0, IB_MAD_TRID_F, tid);
	mad_set_field(m, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field64(m, 0, IB_SA_COMPMASK_F, mask);
	memcpy(m + SA_DATA, rec, reclen);
	umad_set_addr(um, sm_lid, 1, 0, QKEY_GSI);
	/* With a timeout, as the kernel matches a response only to a send
	 * that waits for one. */
	if (umad_send(fd, sa_agent, um, MAD_SIZE, 1000, 0) < 0) {
		fprintf(stderr, "sasub: umad_send failed\n");
		exit(1);
	}
	return tid;
}

/* A Report: print it, answer it with a ReportResp to where it came from. */
static void
on_report(const struct ib_user_mad *um, const uint8_t *m)
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad *r = (struct ib_user_mad *)buf;
	const uint8_t *n = m + SA_DATA;
	char gid[64], issuer[64];

	printf("report trap %u gid %s issuer_lid %u type %u producer %u "
	    "issuer_gid %s\n",
	    (unsigned)get_be(n + 4, 2), gid_str(n + 16, gid, sizeof(gid)),
	    (unsigned)get_be(n + 6, 2), n[0] & 0x7F,
	    (unsigned)get_be(n + 1, 3), gid_str(n + 64, issuer, sizeof(issuer)));
	fflush(stdout);
	memset(buf, 0, sizeof(buf));
	memcpy(umad_get_mad(r), m, MAD_SIZE);
	mad_set_field(umad_get_mad(r), 0, IB_MAD_METHOD_F, 0x06);
	mad_set_field(umad_get_mad(r), 0, IB_MAD_RESPONSE_F, 1);
	umad_set_addr(r, ntohs(um->addr.lid), ntohl(um->addr.qpn),
	    um->addr.sl, QKEY_GSI);
	if (umad_send(fd, sa_agent, r, MAD_SIZE, 0, 0) < 0)
		fprintf(stderr, "sasub: ReportResp not sent\n");
}

/* Receive until the answer to tid comes (returns its MAD in out) or the
 * deadline; Reports met meanwhile are handled. want_tid 0: only Reports,
 * until the deadline. Returns 0 when the answer came. */
static int
pump(uint32_t want_tid, uint8_t *out)
{
	uint8_t buf[sizeof(struct ib_user_mad) + 4096];
	struct ib_user_mad *um = (struct ib_user_mad *)buf;
	const uint8_t *m;
	int len, left;

	while ((left = (int)((deadline - now()) * 1000)) > 0) {
		len = (int)(sizeof(buf) - sizeof(struct ib_user_mad));
		if (umad_recv(fd, um, &len, left > 500 ? 500 : left) < 0)
			continue;
		m = umad_get_mad(um);
		if (um->status != 0)
			continue;       /* a request of ours timed out */
		if (m[1] != IB_SA_CLASS)
			continue;       /* SMInfo and the like: no SM here */
		if (m[3] == 0x06 && get_be(m + 16, 2) == 0x0002) {
			on_report(um, m);
			continue;
		}
		if ((m[3] & 0x80) && want_tid != 0 &&
		    (uint32_t)get_be(m + 12, 4) == want_tid) {
			memcpy(out, m, MAD_SIZE);
			return 0;
		}
	}
	return -1;
}

static int
subscribe(const char *list, uint8_t on)
{
	uint8_t ii[36], resp[MAD_SIZE];
	char *dup = strdup(list), *save = NULL, *w;
	int rc = 0;

	for (w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned trap = (unsigned)strtoul(w, NULL, 0);
		uint32_t t;

		memset(ii, 0, sizeof(ii));
		put_be(ii + 16, 0xFFFF, 2);     /* LIDRangeBegin: all */
		ii[22] = 1;                     /* IsGeneric */
		ii[23] = on;                    /* Subscribe */
		put_be(ii + 24, 0xFFFF, 2);     /* Type: any */
		put_be(ii + 26, trap, 2);
		/* QPN: ours (QP1); OpenSM matches an unsubscription by it */
		put_be(ii + 28, 1u << 8, 4);
		put_be(ii + 33, 0xFFFFFF, 3);   /* ProducerType: any */
		t = send_sa(0x02, 0x0003, 0, ii, sizeof(ii));
		if (pump(t, resp) < 0) {
			printf("%ssubscribed trap %u no answer\n", on ? "" :
			    "un", trap);
			rc = 2;
			continue;
		}
		printf("%ssubscribed trap %u status 0x%04x\n", on ? "" : "un",
		    trap, (unsigned)get_be(resp + 4, 2));
		if (get_be(resp + 4, 2) != 0)
			rc = 2;
	}
	fflush(stdout);
	free(dup);
	return rc;
}

static int
service(uint8_t method, uint64_t id, const char *name, const char *lease)
{
	uint8_t r[176], resp[MAD_SIZE];
	uint64_t mask = 1u << 0 | 1u << 1 | 1u << 6;  /* ID, GID, name */
	uint32_t t;
	unsigned st;

	memset(r, 0, sizeof(r));
	put_be(r, id, 8);
	put_be(r + 8, gid_prefix, 8);
	put_be(r + 16, port_guid, 8);
	put_be(r + 24, 0xFFFF, 2);
	if (name != NULL)
		strncpy((char *)r + 48, name, 63);
	if (lease != NULL && strcmp(lease, "inf") != 0) {
		put_be(r + 28, strtoul(lease, NULL, 0), 4);
		mask |= 1u << 4;
	}
	t = send_sa(method, 0x0031, mask, r, sizeof(r));
	if (pump(t, resp) < 0) {
		printf("service 0x%" PRIx64 " no answer\n", id);
		return 2;
	}
	st = (unsigned)get_be(resp + 4, 2);
	printf("%s 0x%" PRIx64 " status 0x%04x lease %" PRIu64 " name %.64s\n",
	    method == 0x15 ? "unservice" : "service", id, st,
	    get_be(resp + SA_DATA + 28, 4), (char *)resp + SA_DATA + 48);
	fflush(stdout);
	return st ? 2 : 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: sasub [-t SECONDS] subscribe TRAP[,TRAP...]\n"
	    "       sasub [-t SECONDS] unsubscribe TRAP[,TRAP...]\n"
	    "       sasub [-t SECONDS] service ID NAME LEASE|inf\n"
	    "       sasub [-t SECONDS] unservice ID\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	long methods[16 / sizeof(long)];
	double secs = 60;
	umad_port_t port;
	int i = 1, rc;

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		secs = atof(argv[2]);
		i = 3;
	}
	if (argc - i < 1)
		usage();
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0) {
		fprintf(stderr, "sasub: no port\n");
		return 1;
	}
	sm_lid = (uint16_t)port.sm_lid;
	port_guid = be64toh(port.port_guid);
	gid_prefix = be64toh(port.gid_prefix);
	if ((fd = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "sasub: cannot open the port\n");
		return 1;
	}
	/* SA: requests of method Report come to us */
	memset(methods, 0, sizeof(methods));
	((uint8_t *)methods)[0] = 1u << 6;
	if ((sa_agent = umad_register(fd, IB_SA_CLASS, 2, 0, methods)) < 0) {
		fprintf(stderr, "sasub: cannot register the SA class\n");
		return 1;
	}
	/* the SM classes: an SMInfo Get must find an agent under ibsim */
	memset(methods, 0, sizeof(methods));
	((uint8_t *)methods)[0] = 1u << 1 | 1u << 2;
	umad_register(fd, IB_SMI_CLASS, 1, 0, methods);
	umad_register(fd, IB_SMI_DIRECT_CLASS, 1, 0, methods);
	printf("port guid 0x%016" PRIx64 " lid %u sm_lid %u\n", port_guid,
	    (unsigned)port.base_lid, sm_lid);
	fflush(stdout);
	deadline = now() + secs;
	if (strcmp(argv[i], "subscribe") == 0 && argc - i == 2) {
		rc = subscribe(argv[i + 1], 1);
		pump(0, NULL);
	} else if (strcmp(argv[i], "unsubscribe") == 0 && argc - i == 2) {
		rc = subscribe(argv[i + 1], 0);
	} else if (strcmp(argv[i], "service") == 0 && argc - i == 4) {
		rc = service(0x02, strtoull(argv[i + 1], NULL, 16),
		    argv[i + 2], argv[i + 3]);
	} else if (strcmp(argv[i], "unservice") == 0 && argc - i == 2) {
		rc = service(0x15, strtoull(argv[i + 1], NULL, 16), NULL,
		    NULL);
	} else
		usage();
	umad_close_port(fd);
	umad_done();
	return rc;
}
