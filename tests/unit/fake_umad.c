/* tests/unit/fake_umad.c: see fake_umad.h. */
#include <endian.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "tests/unit/fake_umad.h"

#define FAKE_FD_NUMBER 1500     /* not an open descriptor */

struct qmad {
	struct qmad *next;
	size_t len;
	int status;
	uint16_t lid;
	uint8_t mad[];
};

static struct {
	struct qmad *head, **tail;
	size_t n;
	int efd;
	bool readable;
	bool fake_fd;
	bool opened;            /* libibumad's umad_size() depends on it */
	unsigned short_bufs;
	unsigned recv_calls, eagain, enospc, sent;
	int send_result;
	uint8_t last[4096];
	size_t last_len;
	int last_timeout;
	int next_agent;
} f = { .efd = -1 };

/* The eventfd is readable exactly while something is queued (or kicked). */
static void
sync_fd(void)
{
	uint64_t v = 1;
	bool want = f.head != NULL;

	if (f.efd < 0 || want == f.readable)
		return;
	if (want)
		(void)write(f.efd, &v, sizeof(v));
	else
		(void)read(f.efd, &v, sizeof(v));
	f.readable = want;
}

void
fake_umad_reset(void)
{
	struct qmad *q;

	while ((q = f.head) != NULL) {
		f.head = q->next;
		free(q);
	}
	f.tail = &f.head;
	f.n = 0;
	f.recv_calls = f.eagain = f.enospc = f.sent = f.short_bufs = 0;
	f.send_result = 0;
	f.last_len = 0;
	f.fake_fd = false;
	f.next_agent = 0;
	sync_fd();
}

void
fake_umad_queue(const uint8_t *mad, size_t len, int status, uint16_t lid)
{
	struct qmad *q = calloc(1, sizeof(*q) + len);

	if (q == NULL)
		abort();
	if (f.tail == NULL)
		f.tail = &f.head;
	q->len = len;
	q->status = status;
	q->lid = lid;
	memcpy(q->mad, mad, len);
	*f.tail = q;
	f.tail = &q->next;
	f.n++;
	sync_fd();
}

void
fake_umad_kick(void)
{
	uint64_t v = 1;

	if (f.efd >= 0 && !f.readable) {
		(void)write(f.efd, &v, sizeof(v));
		f.readable = true;
	}
}

size_t fake_umad_queued(void) { return f.n; }
unsigned fake_umad_recv_calls(void) { return f.recv_calls; }
unsigned fake_umad_eagain(void) { return f.eagain; }
unsigned fake_umad_enospc(void) { return f.enospc; }
unsigned fake_umad_sent(void) { return f.sent; }
unsigned fake_umad_short_buffers(void) { return f.short_bufs; }
void fake_umad_send_result(int r) { f.send_result = r; }
void fake_umad_fake_fd(bool on) { f.fake_fd = on; }

const uint8_t *
fake_umad_last_sent(size_t *len, int *timeout_ms)
{
	*len = f.last_len;
	*timeout_ms = f.last_timeout;
	return f.last;
}

/* ------------------------------------------------------------ libibumad */

int
umad_init(void)
{
	return 0;
}

int
umad_get_cas_names(char cas[][UMAD_CA_NAME_LEN], int max)
{
	if (max < 1)
		return 0;
	strcpy(cas[0], "fake0");
	return 1;
}

int
umad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	umad_port_t *p;

	if (strcmp(ca_name, "fake0") != 0)
		return -ENODEV;
	memset(ca, 0, sizeof(*ca));
	strcpy(ca->ca_name, "fake0");
	ca->node_type = 1;
	ca->numports = 1;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	strcpy(p->ca_name, "fake0");
	p->portnum = 1;
	p->phys_state = 5;
	p->state = 4;
	p->port_guid = htobe64(FAKE_UMAD_GUID);
	strcpy(p->link_layer, "InfiniBand");
	ca->ports[1] = p;
	return 0;
}

int
umad_release_ca(umad_ca_t *ca)
{
	for (int i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		free(ca->ports[i]);
		ca->ports[i] = NULL;
	}
	return 0;
}

int
umad_get_issm_path(const char *ca_name, int portnum, char path[], int max)
{
	(void)ca_name;
	(void)portnum;
	strncpy(path, "/dev/null", (size_t)max);
	return 0;
}

int
umad_open_port(const char *ca_name, int portnum)
{
	if (strcmp(ca_name, "fake0") != 0 || portnum != 1)
		return -ENODEV;
	if (f.efd < 0)
		f.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (f.tail == NULL)
		f.tail = &f.head;
	f.readable = false;
	f.opened = true;
	sync_fd();
	return 3;               /* a port id, as libibumad's: an fd number */
}

int
umad_get_fd(int portid)
{
	(void)portid;
	return f.fake_fd ? FAKE_FD_NUMBER : f.efd;
}

int
umad_close_port(int portid)
{
	(void)portid;
	if (f.efd >= 0)
		close(f.efd);
	f.efd = -1;
	f.readable = false;
	f.opened = false;
	return 0;
}

/* The caller's buffer (a malloc'd block, as mad/transport's are) holds
 * the umad header and len bytes of MAD. */
static void
check_room(void *umad, size_t len)
{
	if (malloc_usable_size(umad) < umad_size() + len)
		f.short_bufs++;
}

/* As libibumad: the header with the P_Key index once a port is open (the
 * kernel's new ABI), the shorter old one before. */
size_t
umad_size(void)
{
	return f.opened ? sizeof(struct ib_user_mad) :
	    sizeof(struct ib_user_mad) - 8;
}

void *
umad_get_mad(void *umad)
{
	return (uint8_t *)umad + sizeof(struct ib_user_mad);
}

ib_mad_addr_t *
umad_get_mad_addr(void *umad)
{
	return &((struct ib_user_mad *)umad)->addr;
}

int
umad_status(void *umad)
{
	return ((struct ib_user_mad *)umad)->status;
}

int
umad_get_pkey(void *umad)
{
	return ((struct ib_user_mad *)umad)->addr.pkey_index;
}

int
umad_set_pkey(void *umad, int pkey_index)
{
	((struct ib_user_mad *)umad)->addr.pkey_index = (uint16_t)pkey_index;
	return 0;
}

int
umad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey)
{
	struct ib_user_mad *u = umad;

	u->addr.lid = htobe16((uint16_t)dlid);
	u->addr.qpn = htobe32((uint32_t)dqp);
	u->addr.sl = (uint8_t)sl;
	u->addr.qkey = htobe32((uint32_t)qkey);
	return 0;
}

int
umad_register(int portid, int mgmt_class, int mgmt_version,
    uint8_t rmpp_version, long method_mask[16 / sizeof(long)])
{
	(void)portid;
	(void)mgmt_class;
	(void)mgmt_version;
	(void)rmpp_version;
	(void)method_mask;
	return f.next_agent++;
}

int
umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version,
    uint8_t oui[3], long method_mask[16 / sizeof(long)])
{
	(void)oui;
	return umad_register(portid, mgmt_class, 1, rmpp_version, method_mask);
}

int
umad_send(int portid, int agentid, void *umad, int length, int timeout_ms,
    int retries)
{
	(void)portid;
	(void)agentid;
	(void)retries;
	check_room(umad, (size_t)length);
	if (f.send_result != 0)
		return f.send_result;
	f.sent++;
	f.last_len = (size_t)length < sizeof(f.last) ? (size_t)length :
	    sizeof(f.last);
	memcpy(f.last, umad_get_mad(umad), f.last_len);
	f.last_timeout = timeout_ms;
	return 0;
}

/* The kernel's read(), as libibumad's umad_recv reports it. */
int
umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	struct ib_user_mad *u = umad;
	struct qmad *q = f.head;

	(void)portid;
	(void)timeout_ms;
	f.recv_calls++;
	check_room(umad, (size_t)*length);
	if (q == NULL) {
		f.eagain++;
		sync_fd();      /* a kick is used up */
		errno = EAGAIN;
		return -EAGAIN;
	}
	if ((size_t)*length < q->len) {
		f.enospc++;
		memset(u, 0, sizeof(*u));
		u->length = (uint32_t)(sizeof(*u) + q->len);
		*length = (int)q->len;
		errno = ENOSPC;
		return -ENOSPC;
	}
	memset(u, 0, sizeof(*u));
	u->status = q->status;
	u->length = (uint32_t)(sizeof(*u) + q->len);
	u->addr.lid = htobe16(q->lid);
	memcpy(umad_get_mad(umad), q->mad, q->len);
	*length = (int)q->len;
	f.head = q->next;
	if (f.head == NULL)
		f.tail = &f.head;
	f.n--;
	free(q);
	sync_fd();
	return 0;
}
