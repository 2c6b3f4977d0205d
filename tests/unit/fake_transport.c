/*
 * An in-memory transport for unit tests: transport.h without a port.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "tests/unit/fake_transport.h"

#define FAKE_AGENTS 16

struct transport {
	struct ev_loop *loop;
	uint64_t guid;
	transport_rx_cb cb;
	void *arg;
	struct transport_agent agents[FAKE_AGENTS];
	unsigned nagents;
};

static struct transport *fake_cur;
static struct fake_mad *sent;
static size_t nsent, sent_cap;
static unsigned fail_sends, fail_registers;
static uint8_t **big;           /* [i]: all bytes of a send past 256 */

static unsigned win_wire, win_dlid, violations;
static unsigned dlid_flight[0x10000];
static size_t *flight;          /* indices into sent[], oldest first */
static size_t nflight, flight_cap;

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	if ((p = realloc(p, *cap * size)) == NULL)
		abort();
	return p;
}

static uint32_t
tid_of(const uint8_t *mad)
{
	return mad_get_field64((void *)mad, 0, IB_MAD_TRID_F) & 0xFFFFFFFF;
}

void
fake_reset(void)
{
	for (size_t i = 0; i < nsent; i++)
		free(big[i]);
	free(big);
	free(sent);
	free(flight);
	big = NULL;
	sent = NULL;
	flight = NULL;
	nsent = sent_cap = nflight = flight_cap = 0;
	fail_sends = fail_registers = 0;
	win_wire = win_dlid = violations = 0;
	memset(dlid_flight, 0, sizeof(dlid_flight));
}

struct transport *
transport_open(struct ev_loop *loop, uint64_t guid, transport_rx_cb cb,
    void *arg)
{
	struct transport *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->loop = loop;
	t->guid = guid ? guid : 0x0002c90300000001ULL;
	t->cb = cb;
	t->arg = arg;
	fake_reset();
	fake_cur = t;
	return t;
}

void
transport_close(struct transport *t)
{
	if (t == fake_cur)
		fake_cur = NULL;
	free(t);
	fake_reset();
}

uint64_t
transport_port_guid(const struct transport *t)
{
	return t->guid;
}

int
transport_claim_sm(struct transport *t)
{
	(void)t;
	return 0;
}

static const struct transport_agent *
agent_of(const struct transport *t, uint8_t mgmt_class, uint8_t version)
{
	for (unsigned i = 0; t != NULL && i < t->nagents; i++)
		if (t->agents[i].mgmt_class == mgmt_class &&
		    t->agents[i].class_version == version)
			return &t->agents[i];
	return NULL;
}

int
transport_register(struct transport *t, const struct transport_agent *a)
{
	if (fail_registers > 0) {
		fail_registers--;
		return -1;
	}
	if (a->mgmt_class == 0 || t->nagents == FAKE_AGENTS ||
	    agent_of(t, a->mgmt_class, a->class_version) != NULL)
		return -1;
	t->agents[t->nagents++] = *a;
	return 0;
}

const struct transport_agent *
fake_agent(uint8_t mgmt_class, uint8_t version)
{
	return agent_of(fake_cur, mgmt_class, version);
}

void
fake_fail_registers(unsigned n)
{
	fail_registers = n;
}

/* As the real one's: what is built there is sent (copied) like any MAD. */
uint8_t *
transport_mad_buf(struct transport *t)
{
	static uint8_t buf[TRANSPORT_MAD_SIZE];

	(void)t;
	memset(buf, 0, sizeof(buf));
	return buf;
}

int
transport_send(struct transport *t, const uint8_t *mad, size_t len,
    const struct transport_addr *to, int timeout_ms)
{
	const struct transport_agent *a;
	struct fake_mad *m;
	size_t cap;

	if (fail_sends > 0) {
		fail_sends--;
		return -1;
	}
	if (len < 24)
		return -1;
	a = agent_of(t, mad[1], mad[2]);
	/* as the real one: other lengths than a MAD's need an RMPP agent */
	if (len != TRANSPORT_MAD_SIZE && (a == NULL || !a->rmpp))
		return -1;
	cap = sent_cap;
	sent = grow(sent, &sent_cap, nsent + 1, sizeof(*sent));
	if (sent_cap != cap) {
		big = realloc(big, sent_cap * sizeof(*big));
		if (big == NULL)
			abort();
	}
	big[nsent] = NULL;
	if (len > TRANSPORT_MAD_SIZE) {
		if ((big[nsent] = malloc(len)) == NULL)
			abort();
		memcpy(big[nsent], mad, len);
	}
	m = &sent[nsent];
	memset(m->mad, 0, sizeof(m->mad));
	memcpy(m->mad, mad, len < TRANSPORT_MAD_SIZE ? len : TRANSPORT_MAD_SIZE);
	m->len = len;
	m->to = *to;
	m->dlid = to->lid;
	m->timeout_ms = timeout_ms;
	m->answered = 0;
	if (timeout_ms > 0) {
		flight = grow(flight, &flight_cap, nflight + 1,
		    sizeof(*flight));
		flight[nflight++] = nsent;
		dlid_flight[m->dlid]++;
		if ((win_wire && nflight > win_wire) ||
		    (win_dlid && dlid_flight[m->dlid] > win_dlid))
			violations++;
	}
	nsent++;
	return 0;
}

struct transport *
fake_transport(void)
{
	return fake_cur;
}

size_t
fake_nsent(void)
{
	return nsent;
}

const struct fake_mad *
fake_sent(size_t i)
{
	return i < nsent ? &sent[i] : NULL;
}

uint32_t
fake_sent_tid(size_t i)
{
	return tid_of(sent[i].mad);
}

const uint8_t *
fake_sent_bytes(size_t i)
{
	if (i >= nsent)
		return NULL;
	return big[i] != NULL ? big[i] : sent[i].mad;
}

void
fake_fail_sends(unsigned n)
{
	fail_sends = n;
}

/* The send whose TID the delivered MAD carries is no longer in flight. */
static void
land(uint32_t tid)
{
	size_t k, i;

	for (k = 0; k < nflight; k++) {
		i = flight[k];
		if (tid_of(sent[i].mad) != tid)
			continue;
		sent[i].answered = 1;
		dlid_flight[sent[i].dlid]--;
		memmove(&flight[k], &flight[k + 1],
		    (nflight - k - 1) * sizeof(*flight));
		nflight--;
		return;
	}
}

void
fake_deliver(const uint8_t *mad, size_t len, int status, uint16_t slid)
{
	struct transport_addr from = { .lid = slid };

	fake_deliver_from(mad, len, status, &from);
}

void
fake_deliver_from(const uint8_t *mad, size_t len, int status,
    const struct transport_addr *from)
{
	struct transport_rx rx = { .mad = mad, .len = len, .status = status,
	    .from = *from };

	if (fake_cur == NULL)
		return;
	if (mad != NULL && len >= 24 &&
	    (status != 0 || mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F)))
		land(tid_of(mad));
	fake_cur->cb(fake_cur->arg, &rx);
}

void
fake_respond(size_t i, uint16_t status, const uint8_t *data)
{
	uint8_t mad[TRANSPORT_MAD_SIZE];
	struct transport_addr from;
	int dr;

	memcpy(mad, sent[i].mad, sizeof(mad));
	dr = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == 0x81;
	mad_set_field(mad, 0, IB_MAD_METHOD_F, 0x01);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
	if (dr)
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
	if (data != NULL)
		memcpy(mad + 64, data, 64);
	else
		memset(mad + 64, 0, 64);
	/* from where it went */
	from = sent[i].to;
	fake_deliver_from(mad, sizeof(mad), 0, &from);
}

void
fake_fail(size_t i, int err)
{
	uint8_t mad[TRANSPORT_MAD_SIZE];

	memcpy(mad, sent[i].mad, sizeof(mad));
	fake_deliver(mad, sizeof(mad), err, 0);
}

void
fake_check_windows(unsigned max_wire, unsigned max_per_dlid)
{
	win_wire = max_wire;
	win_dlid = max_per_dlid;
}

unsigned
fake_in_flight(void)
{
	return nflight;
}

unsigned
fake_in_flight_dlid(uint16_t dlid)
{
	return dlid_flight[dlid];
}

unsigned
fake_violations(void)
{
	return violations;
}

size_t
fake_pending(size_t *idx, size_t max)
{
	size_t k;

	for (k = 0; k < nflight && k < max; k++)
		idx[k] = flight[k];
	return k;
}
