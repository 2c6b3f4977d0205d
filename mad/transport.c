#include "mad/transport.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/queue.h>

#include <ev.h>
#include <infiniband/umad.h>

#include "core/log.h"

/* Receiver thread's queue bound: past it MADs are dropped (and counted)
 * rather than growing without limit while the loop is busy. */
#define RXQ_MAX 65536

struct rx_item {
	STAILQ_ENTRY(rx_item) entry;
	int status;
	uint16_t slid;
	size_t len;
	uint8_t mad[TRANSPORT_MAD_SIZE];
};

struct transport {
	struct ev_loop *loop;
	transport_rx_cb cb;
	void *cb_arg;
	char ca_name[UMAD_CA_NAME_LEN];
	int portnum;
	uint64_t guid;
	int portid;             /* libibumad port id (its fd) */
	int agent_lid;          /* class 0x01 */
	int agent_dr;           /* class 0x81 */
	int issm_fd;
	bool threaded;          /* fake fd (libumad2sim): receiver thread */
	ev_io io;               /* kernel fd */
	/* receiver thread bridge */
	pthread_t thread;
	atomic_bool stop;
	pthread_mutex_t lock;
	STAILQ_HEAD(, rx_item) rxq;
	unsigned rxq_len;
	uint64_t rxq_dropped;
	ev_async wake;
	uint8_t *buf;           /* umad buffer of the loop thread */
	uint8_t *tbuf;          /* umad buffer of the receiver thread */
};

/* libumad2sim's read() copies more than the length it is given (its
 * whole internal message): receive buffers get ample room past the MAD. */
static size_t
umad_buf_size(void)
{
	return umad_size() + 4096;
}

/* Fill it from one received umad buffer. */
static void
decode(const uint8_t *umad, int len, struct transport_rx *rx)
{
	ib_mad_addr_t *addr = umad_get_mad_addr((void *)umad);

	rx->mad = umad_get_mad((void *)umad);
	rx->len = len < 0 ? 0 : (size_t)len;
	if (rx->len > TRANSPORT_MAD_SIZE)
		rx->len = TRANSPORT_MAD_SIZE;
	rx->status = umad_status((void *)umad);
	rx->slid = be16toh(addr->lid);
}

static void
io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct transport *t = w->data;
	struct transport_rx rx;
	int len, n;

	(void)loop;
	(void)revents;
	for (n = 0; n < 256; n++) {
		len = TRANSPORT_MAD_SIZE;
		if (umad_recv(t->portid, t->buf, &len, 0) < 0)
			break;
		decode(t->buf, len, &rx);
		t->cb(t->cb_arg, &rx);
	}
}

static void *
receiver(void *arg)
{
	struct transport *t = arg;
	struct rx_item *it;
	struct transport_rx rx;
	int len, r;

	while (!atomic_load(&t->stop)) {
		len = TRANSPORT_MAD_SIZE;
		/* Short waits: transport_close joins within one. */
		r = umad_recv(t->portid, t->tbuf, &len, 50);
		if (r < 0) {
			if (r != -ETIMEDOUT && r != -EWOULDBLOCK && r != -EINTR)
				usleep(10000);
			continue;
		}
		decode(t->tbuf, len, &rx);
		it = malloc(sizeof(*it));
		if (it == NULL)
			continue;
		it->status = rx.status;
		it->slid = rx.slid;
		it->len = rx.len;
		memcpy(it->mad, rx.mad, rx.len);
		memset(it->mad + rx.len, 0, sizeof(it->mad) - rx.len);
		pthread_mutex_lock(&t->lock);
		if (t->rxq_len >= RXQ_MAX) {
			t->rxq_dropped++;
			free(it);
		} else {
			STAILQ_INSERT_TAIL(&t->rxq, it, entry);
			t->rxq_len++;
		}
		pthread_mutex_unlock(&t->lock);
		ev_async_send(t->loop, &t->wake);
	}
	return NULL;
}

static void
wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct transport *t = w->data;
	STAILQ_HEAD(, rx_item) q = STAILQ_HEAD_INITIALIZER(q);
	struct rx_item *it;
	struct transport_rx rx;

	(void)loop;
	(void)revents;
	pthread_mutex_lock(&t->lock);
	STAILQ_CONCAT(&q, &t->rxq);
	t->rxq_len = 0;
	pthread_mutex_unlock(&t->lock);
	while ((it = STAILQ_FIRST(&q)) != NULL) {
		STAILQ_REMOVE_HEAD(&q, entry);
		rx.mad = it->mad;
		rx.len = it->len;
		rx.status = it->status;
		rx.slid = it->slid;
		t->cb(t->cb_arg, &rx);
		free(it);
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
		for (p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
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
		for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
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

static int
register_agents(struct transport *t)
{
	long mask[16 / sizeof(long)];
	uint8_t *m = (uint8_t *)mask;

	/* Unsolicited methods we accept: Get and Set (SMInfo), Trap,
	 * TrapRepress. Bit n of the mask is method n. */
	memset(mask, 0, sizeof(mask));
	m[0] = (1u << 1) | (1u << 2) | (1u << 5) | (1u << 7);
	t->agent_lid = umad_register(t->portid, 0x01, 1, 0, mask);
	t->agent_dr = umad_register(t->portid, 0x81, 1, 0, mask);
	if (t->agent_lid < 0 || t->agent_dr < 0) {
		log_warnx("transport: %s port %d: cannot register SM agents "
		    "(is another SM running on this port?)", t->ca_name,
		    t->portnum);
		return -1;
	}
	return 0;
}

struct transport *
transport_open(struct ev_loop *loop, uint64_t guid, transport_rx_cb cb,
    void *arg)
{
	struct transport *t;
	int fd;

	if (umad_init() < 0) {
		log_warnx("transport: cannot initialise libibumad");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		fatal("transport: out of memory");
	t->loop = loop;
	t->cb = cb;
	t->cb_arg = arg;
	t->issm_fd = -1;
	t->portid = -1;
	STAILQ_INIT(&t->rxq);
	pthread_mutex_init(&t->lock, NULL);
	t->buf = malloc(umad_buf_size());
	t->tbuf = malloc(umad_buf_size());
	if (t->buf == NULL || t->tbuf == NULL)
		fatal("transport: out of memory");
	if (find_port(guid, t->ca_name, &t->portnum, &t->guid) < 0)
		goto fail;
	t->portid = umad_open_port(t->ca_name, t->portnum);
	if (t->portid < 0) {
		log_warnx("transport: cannot open %s port %d: %s", t->ca_name,
		    t->portnum, strerror(-t->portid));
		goto fail;
	}
	if (register_agents(t) < 0)
		goto fail;
	fd = umad_get_fd(t->portid);
	/* libumad2sim's fds are fake numbers the kernel does not know:
	 * epoll cannot watch them, so a thread blocks in umad_recv. */
	t->threaded = fcntl(fd, F_GETFD) < 0;
	if (t->threaded) {
		ev_async_init(&t->wake, wake_cb);
		t->wake.data = t;
		ev_async_start(loop, &t->wake);
		if (pthread_create(&t->thread, NULL, receiver, t) != 0) {
			log_warnx("transport: cannot start receiver thread");
			ev_async_stop(loop, &t->wake);
			t->threaded = false;
			goto fail;
		}
	} else {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		ev_io_init(&t->io, io_cb, fd, EV_READ);
		t->io.data = t;
		ev_io_start(loop, &t->io);
	}
	log_info("transport: %s port %d, port GUID 0x%016" PRIx64 "%s",
	    t->ca_name, t->portnum, t->guid,
	    t->threaded ? " (simulated: receiver thread)" : "");
	return t;
fail:
	transport_close(t);
	return NULL;
}

void
transport_close(struct transport *t)
{
	struct rx_item *it;

	if (t == NULL)
		return;
	if (t->threaded) {
		atomic_store(&t->stop, true);
		pthread_join(t->thread, NULL);
		ev_async_stop(t->loop, &t->wake);
	} else if (ev_is_active(&t->io)) {
		ev_io_stop(t->loop, &t->io);
	}
	while ((it = STAILQ_FIRST(&t->rxq)) != NULL) {
		STAILQ_REMOVE_HEAD(&t->rxq, entry);
		free(it);
	}
	if (t->issm_fd >= 0)
		close(t->issm_fd);
	if (t->portid >= 0)
		umad_close_port(t->portid);
	pthread_mutex_destroy(&t->lock);
	free(t->buf);
	free(t->tbuf);
	free(t);
}

uint64_t
transport_port_guid(const struct transport *t)
{
	return t->guid;
}

int
transport_send(struct transport *t, const uint8_t *mad, uint16_t dlid,
    int timeout_ms)
{
	int agent = mad[1] == 0x81 ? t->agent_dr : t->agent_lid;
	int r;

	memset(t->buf, 0, umad_size());
	memcpy(umad_get_mad(t->buf), mad, TRANSPORT_MAD_SIZE);
	umad_set_addr(t->buf, dlid, 0, 0, 0);
	r = umad_send(t->portid, agent, t->buf, TRANSPORT_MAD_SIZE, timeout_ms,
	    0);
	if (r < 0) {
		log_debug("transport: umad_send: %s", strerror(-r));
		return -1;
	}
	return 0;
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
