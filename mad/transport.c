#include "mad/transport.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>
#include <infiniband/umad.h>

#include "core/alloc.h"
#include "core/log.h"

/* MADs read per wake-up of the loop: a burst longer than this waits for
 * the next turn of the loop, after the other watchers. */
#define IO_BATCH 256
#define AGENTS_MAX 16

/* A umad buffer: the umad header, then room for cap bytes of MAD. */
struct umad_buf {
	uint8_t *p;
	size_t cap;
};

struct agent {
	struct transport_agent a;
	int id;
};

struct transport {
	struct ev_loop *loop;
	transport_rx_cb cb;
	void *cb_arg;
	char ca_name[UMAD_CA_NAME_LEN];
	int portnum;
	uint64_t guid;
	int portid;             /* libibumad port id (its fd) */
	struct agent agents[AGENTS_MAX];
	unsigned nagents;
	int issm_fd;
	ev_io io;               /* the umad fd */
	bool failing;           /* a receive error was logged */
	struct umad_buf rbuf;   /* receive buffer */
	struct umad_buf sbuf;   /* send buffer */
};

/* Make room for len bytes of MAD. Returns 0, or -1 when memory is short:
 * the wire asked for it, so that is not fatal. The header is the one with
 * the P_Key index: libibumad's umad_size() says so only once a port is
 * open (before, it gives the older, shorter one). */
static int
buf_reserve(struct umad_buf *b, size_t len)
{
	uint8_t *p;

	if (b->p != NULL && len <= b->cap)
		return 0;
	if ((p = realloc(b->p, sizeof(struct ib_user_mad) + len)) == NULL) {
		log_warnx("transport: no memory for a %zu-byte MAD", len);
		return -1;
	}
	b->p = p;
	b->cap = len;
	return 0;
}

/* Fill it from one received umad buffer. */
static void
decode(const uint8_t *umad, size_t len, struct transport_rx *rx)
{
	const ib_mad_addr_t *a = umad_get_mad_addr((void *)umad);
	struct transport_addr *f = &rx->from;

	rx->mad = umad_get_mad((void *)umad);
	rx->len = len;
	rx->status = umad_status((void *)umad);
	memset(f, 0, sizeof(*f));
	f->lid = be16toh(a->lid);
	f->sl = a->sl;
	f->qpn = be32toh(a->qpn);
	f->qkey = be32toh(a->qkey);
	f->pkey_index = (uint16_t)umad_get_pkey((void *)umad);
	if (a->grh_present) {
		f->grh = true;
		f->gid_index = a->gid_index;
		f->hop_limit = a->hop_limit;
		f->traffic_class = a->traffic_class;
		f->flow_label = be32toh(a->flow_label);
		memcpy(f->gid, a->gid, sizeof(f->gid));
	}
}

/*
 * Receive one MAD into b without waiting, growing b when the kernel holds
 * a longer one (RMPP reassembled): the kernel then keeps the MAD queued
 * and says how long it is. Returns the MAD's length, or a negative errno
 * (-EAGAIN: nothing queued).
 */
static int
recv_one(struct transport *t, struct umad_buf *b)
{
	int len, r;

	for (;;) {
		len = (int)b->cap;
		r = umad_recv(t->portid, b->p, &len, 0);
		if (r == -ENOSPC && len > (int)b->cap) {
			if (buf_reserve(b, (size_t)len) < 0)
				return -ENOMEM;
			continue;
		}
		if (r < 0)
			return r;
		if (len < 0)
			len = 0;
		if ((size_t)len > b->cap)
			len = (int)b->cap;
		return len;
	}
}

/*
 * The umad fd is readable: read what is queued, up to IO_BATCH MADs (the
 * fd stays readable for the rest, so the loop comes back after its other
 * watchers), until the kernel says EAGAIN.
 */
static void
io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct transport *t = w->data;
	struct transport_rx rx;
	int len, n;

	(void)loop;
	(void)revents;
	for (n = 0; n < IO_BATCH; n++) {
		if ((len = recv_one(t, &t->rbuf)) < 0) {
			if (len == -EAGAIN || len == -EWOULDBLOCK ||
			    len == -EINTR)
				break;
			/* the MAD stays queued: said once, not per wake-up */
			if (!t->failing)
				log_warnx("transport: %s port %d: receive: %s",
				    t->ca_name, t->portnum, strerror(-len));
			t->failing = true;
			break;
		}
		t->failing = false;
		decode(t->rbuf.p, (size_t)len, &rx);
		t->cb(t->cb_arg, &rx);
	}
}

/* Old kernels leave the link layer empty; libumad2sim says "IB". */
static bool
is_ib(const umad_port_t *port)
{
	return port->link_layer[0] == '\0' ||
	    strcmp(port->link_layer, "InfiniBand") == 0 ||
	    strcmp(port->link_layer, "IB") == 0;
}

/* The ports an SM can drive: a CA's (or router's) ports 1 .. NumPorts, or
 * a switch's management port 0 (an SM running on a managed switch). */
static int
first_port(const umad_ca_t *ca)
{
	return ca->node_type == 2 ? 0 : 1;
}

static int
last_port(const umad_ca_t *ca)
{
	if (ca->node_type == 2)
		return 0;
	return ca->numports < UMAD_CA_MAX_PORTS - 1 ? ca->numports :
	    UMAD_CA_MAX_PORTS - 1;
}

/* Find the port: by GUID, or the first InfiniBand port, preferring one
 * whose link is up. */
static int
find_port(uint64_t guid, char *ca_out, int *port_out, uint64_t *guid_out)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas, i, p, found = 0;

	ncas = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
	if (ncas <= 0) {
		log_warnx("transport: no InfiniBand devices found");
		return -1;
	}
	for (i = 0; i < ncas && found < 2; i++) {
		umad_ca_t ca;

		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		for (p = first_port(&ca); p <= last_port(&ca); p++) {
			umad_port_t *port = ca.ports[p];
			uint64_t g;
			bool ib;

			if (port == NULL)
				continue;
			g = be64toh(port->port_guid);
			ib = is_ib(port);
			if (guid != 0 ? g != guid : !ib)
				continue;
			if (guid != 0 && !ib) {
				log_warnx("transport: port 0x%016" PRIx64 " (%s "
				    "port %d) has link layer %s, not InfiniBand",
				    g, cas[i], p, port->link_layer);
				umad_release_ca(&ca);
				return -1;
			}
			/* Keep the first match; a later one with its link up
			 * wins over a first one that is down. */
			if (found == 0 || port->phys_state == 5) {
				strcpy(ca_out, cas[i]);
				*port_out = p;
				*guid_out = g;
				found = port->phys_state == 5 || guid != 0 ? 2 : 1;
			}
			if (found == 2)
				break;
		}
		umad_release_ca(&ca);
	}
	if (found == 0) {
		if (guid != 0)
			log_warnx("transport: no port with GUID 0x%016" PRIx64,
			    guid);
		else
			log_warnx("transport: no InfiniBand port found");
		return -1;
	}
	return 0;
}

int
transport_resolve(uint64_t guid, uint64_t *out)
{
	char ca[UMAD_CA_NAME_LEN];
	int port;

	if (umad_init() < 0) {
		log_warnx("transport: cannot initialise libibumad");
		return -1;
	}
	return find_port(guid, ca, &port, out);
}

int
transport_list(uint64_t *guids, size_t max)
{
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int ncas, n = 0;

	if (umad_init() < 0 ||
	    (ncas = umad_get_cas_names(cas, UMAD_MAX_DEVICES)) < 0)
		return -1;
	for (int i = 0; i < ncas; i++) {
		umad_ca_t ca;

		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		for (int p = first_port(&ca); p <= last_port(&ca); p++) {
			umad_port_t *port = ca.ports[p];

			if (port == NULL || !is_ib(port))
				continue;
			if ((size_t)n < max)
				guids[n] = be64toh(port->port_guid);
			n++;
		}
		umad_release_ca(&ca);
	}
	return n;
}

static struct agent *
find_agent(struct transport *t, uint8_t mgmt_class, uint8_t version)
{
	for (unsigned i = 0; i < t->nagents; i++)
		if (t->agents[i].a.mgmt_class == mgmt_class &&
		    t->agents[i].a.class_version == version)
			return &t->agents[i];
	return NULL;
}

int
transport_register(struct transport *t, const struct transport_agent *a)
{
	long mask[16 / sizeof(long)];
	const unsigned lbits = 8 * sizeof(long);
	bool vendor2 = a->mgmt_class >= 0x30 && a->mgmt_class <= 0x4F;
	int id;

	/* libibumad registers OUI classes as version 1. */
	if (a->mgmt_class == 0 || (a->oui != 0) != vendor2 ||
	    a->oui > 0xFFFFFF || (vendor2 && a->class_version != 1)) {
		log_warnx("transport: class 0x%02x: %s", a->mgmt_class,
		    vendor2 ? "vendor classes 0x30-0x4F need an OUI and "
		    "version 1" : "only vendor classes 0x30-0x4F take an OUI");
		return -1;
	}
	if (find_agent(t, a->mgmt_class, a->class_version) != NULL ||
	    t->nagents == AGENTS_MAX) {
		log_warnx("transport: class 0x%02x version %u: %s",
		    a->mgmt_class, a->class_version, t->nagents == AGENTS_MAX ?
		    "too many agents" : "already registered");
		return -1;
	}
	memset(mask, 0, sizeof(mask));
	for (unsigned m = 0; m < 128; m++)
		if (a->methods[m / 32] & UINT32_C(1) << (m % 32))
			mask[m / lbits] |= 1UL << (m % lbits);
	if (vendor2) {
		uint8_t oui[3] = { a->oui >> 16, a->oui >> 8, a->oui };

		id = umad_register_oui(t->portid, a->mgmt_class,
		    a->rmpp ? 1 : 0, oui, mask);
	} else {
		id = umad_register(t->portid, a->mgmt_class, a->class_version,
		    a->rmpp ? 1 : 0, mask);
	}
	if (id < 0) {
		log_warnx("transport: %s port %d: cannot register an agent for "
		    "class 0x%02x version %u%s", t->ca_name, t->portnum,
		    a->mgmt_class, a->class_version,
		    a->mgmt_class == 0x01 || a->mgmt_class == 0x81 ?
		    " (is another SM running on this port?)" : "");
		return -1;
	}
	t->agents[t->nagents].a = *a;
	t->agents[t->nagents].id = id;
	t->nagents++;
	log_debug("transport: agent %d: class 0x%02x version %u%s", id,
	    a->mgmt_class, a->class_version, a->rmpp ? " (RMPP)" : "");
	return 0;
}

struct transport *
transport_open(struct ev_loop *loop, uint64_t guid, transport_rx_cb cb,
    void *arg)
{
	struct transport *t;
	int fd, flags;

	if (umad_init() < 0) {
		log_warnx("transport: cannot initialise libibumad");
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->loop = loop;
	t->cb = cb;
	t->cb_arg = arg;
	t->issm_fd = -1;
	t->portid = -1;
	if (buf_reserve(&t->rbuf, TRANSPORT_MAD_SIZE) < 0 ||
	    buf_reserve(&t->sbuf, TRANSPORT_MAD_SIZE) < 0)
		fatalx("transport: out of memory");
	if (find_port(guid, t->ca_name, &t->portnum, &t->guid) < 0)
		goto fail;
	t->portid = umad_open_port(t->ca_name, t->portnum);
	if (t->portid < 0) {
		log_warnx("transport: cannot open %s port %d: %s", t->ca_name,
		    t->portnum, strerror(-t->portid));
		goto fail;
	}
	fd = umad_get_fd(t->portid);
	/* The kernel's umad fd can be watched. A number the kernel does not
	 * know (ibsim's libumad2sim hands out such fake fds) cannot. */
	if ((flags = fcntl(fd, F_GETFL)) < 0) {
		log_warnx("transport: %s port %d: umad fd %d is not a file "
		    "descriptor (a simulator's fake one? under ibsim, preload "
		    "the umadfix device, tests/fixture/umadfix.so)",
		    t->ca_name, t->portnum, fd);
		goto fail;
	}
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		log_warn("transport: %s port %d: umad fd %d: O_NONBLOCK",
		    t->ca_name, t->portnum, fd);
		goto fail;
	}
	ev_io_init(&t->io, io_cb, fd, EV_READ);
	t->io.data = t;
	ev_io_start(loop, &t->io);
	log_info("transport: %s port %d, port GUID 0x%016" PRIx64 ", umad fd "
	    "%d watched by the loop", t->ca_name, t->portnum, t->guid, fd);
	return t;
fail:
	transport_close(t);
	return NULL;
}

void
transport_close(struct transport *t)
{
	if (t == NULL)
		return;
	if (ev_is_active(&t->io))
		ev_io_stop(t->loop, &t->io);
	if (t->issm_fd >= 0)
		close(t->issm_fd);
	if (t->portid >= 0)
		umad_close_port(t->portid);
	free(t->rbuf.p);
	free(t->sbuf.p);
	free(t);
}

uint64_t
transport_port_guid(const struct transport *t)
{
	return t->guid;
}

int
transport_send(struct transport *t, const uint8_t *mad, size_t len,
    const struct transport_addr *to, int timeout_ms)
{
	struct agent *ag;
	ib_mad_addr_t *a;
	int r;

	/* An RMPP agent sends any length from the common header up: the
	 * kernel takes the payload length from it (a table of one short
	 * record is shorter than a MAD); other MADs are whole. */
	if (len < 24 || len > INT32_MAX ||
	    (ag = find_agent(t, mad[1], mad[2])) == NULL ||
	    (len != TRANSPORT_MAD_SIZE && !ag->a.rmpp)) {
		log_debug("transport: no agent sends a %zu-byte MAD of class "
		    "0x%02x version %u", len, mad[1], mad[2]);
		return -1;
	}
	if (t->sbuf.p == NULL || mad != umad_get_mad(t->sbuf.p) ||
	    len > t->sbuf.cap) {
		/* not built in place by transport_mad_buf() */
		if (buf_reserve(&t->sbuf, len < TRANSPORT_MAD_SIZE ?
		    TRANSPORT_MAD_SIZE : len) < 0)
			return -1;
		memset(t->sbuf.p, 0,
		    sizeof(struct ib_user_mad) + TRANSPORT_MAD_SIZE);
		memcpy(umad_get_mad(t->sbuf.p), mad, len);
	}
	umad_set_addr(t->sbuf.p, to->lid, (int)to->qpn, to->sl, (int)to->qkey);
	umad_set_pkey(t->sbuf.p, to->pkey_index);
	if (to->grh) {
		a = umad_get_mad_addr(t->sbuf.p);
		a->grh_present = 1;
		a->gid_index = to->gid_index;
		a->hop_limit = to->hop_limit;
		a->traffic_class = to->traffic_class;
		a->flow_label = htobe32(to->flow_label);
		memcpy(a->gid, to->gid, sizeof(a->gid));
	}
	r = umad_send(t->portid, ag->id, t->sbuf.p, (int)len, timeout_ms, 0);
	if (r < 0) {
		log_debug("transport: umad_send: %s", strerror(-r));
		return -1;
	}
	return 0;
}

uint8_t *
transport_mad_buf(struct transport *t)
{
	if (buf_reserve(&t->sbuf, TRANSPORT_MAD_SIZE) < 0)
		return NULL;
	memset(t->sbuf.p, 0, sizeof(struct ib_user_mad) + TRANSPORT_MAD_SIZE);
	return umad_get_mad(t->sbuf.p);
}

int
transport_claim_sm(struct transport *t)
{
	char path[256];

	if (t->issm_fd >= 0)
		return 0;
	if (umad_get_issm_path(t->ca_name, t->portnum, path, sizeof(path)) < 0) {
		log_warnx("transport: %s port %d: no issm device", t->ca_name,
		    t->portnum);
		return -1;
	}
	t->issm_fd = open(path, O_RDWR);
	if (t->issm_fd < 0) {
		log_warn("transport: open %s", path);
		return -1;
	}
	return 0;
}
