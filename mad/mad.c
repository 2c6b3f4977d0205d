/*
 * MAD engine: requests of any class over the transport, with windows, FIFO
 * queues per destination, per-attempt deadlines, retries, counters and the
 * listeners of unsolicited MADs.
 *
 * Each destination (q->dest) has a FIFO of requests waiting for a window
 * slot. Destinations that have waiting requests and room in their own window
 * sit on one "ready" list served round-robin, so a destination whose window
 * is full never holds up the others, and every step is O(1). Destinations
 * are found through the GUID hash (their key is most often a node GUID).
 * Requests on the wire are found by the low 32 bits of their TID (the only
 * bits the kernel leaves to the sender: it writes the agent's into the
 * high half, and ibsim its client number); every attempt gets a fresh
 * TID so that a late answer to an earlier attempt matches nothing and is
 * dropped.
 *
 * Every attempt on the wire has a deadline, on one list in deadline order
 * (attempts are sent with the same timeout, so a new one goes at the tail)
 * watched by one timer set for the earliest: an answer unlinks its request
 * and leaves the timer alone, which at worst wakes up early and is set
 * again. A timer per attempt cost two heap operations in libev each.
 *
 * Completions are called from the rx callback, from timers, or, for what
 * fails while a request is being queued (a send error), from an ev_idle
 * watcher: never from inside mad_request().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "core/pool.h"
#include "mad/mad.h"
#include "mad/transport.h"

#define MAD_HASH_MIN            64      /* initial TID buckets, power of 2 */
#define MAD_COUNTERS_MAX        4096    /* (class, method, attr) keys */
#define MAD_AGENTS_MAX          16
/* Requests kept for reuse (those built at each attempt, all one size):
 * about the most a caller keeps pending, so that a bring-up allocates
 * none after its first window (sm/program.c: 1,024). */
#define MAD_SPARE_REQS          1024

struct mad_dest;

struct mad_req {
	TAILQ_ENTRY(mad_req) entry;     /* destination queue, or done list */
	LIST_ENTRY(mad_req) tid_entry;  /* on the wire: the TID hash */
	TAILQ_ENTRY(mad_req) wait_entry; /* on the wire: the deadlines */
	ev_tstamp deadline;             /* of the attempt on the wire */
	struct mad_engine *e;
	struct mad_dest *d;             /* holding a window slot of d */
	mad_done_cb cb;
	void *arg;
	mad_check_cb check;
	void (*drop)(void *);
	int status;                     /* for a deferred completion */
	unsigned tries;                 /* attempts sent */
	uint32_t tid;                   /* TID of the current attempt */
	uint16_t attr;
	uint8_t method;
	uint8_t mgmt_class;
	uint8_t version;
	uint8_t own;                    /* own_window: not in e->wire */
	struct mad_counter *ctr;        /* NULL, or its counters while the */
	uint32_t ctr_gen;               /* table is of this generation */
	void (*build)(void *, uint8_t *);       /* NULL: mad[] holds it */
	struct transport_addr to;
	size_t len;
	uint8_t mad[];
};

TAILQ_HEAD(req_queue, mad_req);
TAILQ_HEAD(wait_queue, mad_req);
LIST_HEAD(req_list, mad_req);

struct mad_dest {
	TAILQ_ENTRY(mad_dest) ready_entry;
	struct req_queue queue;         /* waiting for a slot, FIFO */
	struct mad_dest *next_free;
	uint64_t key;
	uint32_t idx;                   /* in the engine's dests[] */
	unsigned wire;                  /* requests on the wire */
	int ready;                      /* on the engine's ready list */
	int used;
};

TAILQ_HEAD(dest_queue, mad_dest);

struct counter_slot {
	uint32_t key;                   /* class << 24 | method << 16 | attr */
	int used;
	struct mad_counter c;
};

struct listener {
	uint8_t mgmt_class;
	uint8_t method;
	uint32_t attr;                  /* or MAD_ATTR_ANY */
	mad_listen_cb cb;
	void *arg;
};

struct mad_engine {
	uint64_t sent_total;    /* every MAD sent: SMInfo's ActCount reads it */
	struct ev_loop *loop;
	struct transport *t;
	struct mad_opts o;
	ev_idle idle;                   /* runs deferred completions */
	struct req_queue done;          /* completed, callback not yet called */
	struct wait_queue waiting;      /* on the wire, by deadline */
	ev_timer timer;                 /* the first deadline, or earlier */
	struct dest_queue ready;        /* destinations that can send now */
	/* Destinations: key -> index into dests[]. The GUID hash cannot hold
	 * key 0, whose destination has its own slot. */
	struct guid_hash dest_idx;
	uint32_t dest_zero;             /* GUID_HASH_NONE: none */
	struct mad_dest **dests;        /* used and free, for reuse */
	uint32_t ndests, dests_cap;
	struct mad_dest *free_dests;
	struct req_list *tids;          /* hash on TID, requests on the wire */
	unsigned ntid_buckets, ntids;
	uint32_t next_tid;
	unsigned wire, queued;
	unsigned own_wire;              /* own_window requests on the wire */
	uint64_t wire_sum;              /* e->wire after each send: in flight */
	unsigned max_queued;            /* the most ever waiting for a slot */
	struct counter_slot *ctr;       /* open addressing on the key */
	uint32_t nctr, ctr_cap;
	uint32_t ctr_gen;               /* counter_grow()s: slots moved */
	int ctr_full_logged;
	struct listener *listeners;
	unsigned nlisteners;
	struct pool spare;              /* struct mad_req without mad[] */
	struct { uint8_t mgmt_class, version; } agents[MAD_AGENTS_MAX];
	unsigned nagents;
	uint64_t unmatched, malformed, unhandled;
};

static const struct mad_opts mad_defaults = {
	.max_wire = 64, .max_per_node = 4, .timeout_ms = 200, .retries = 3,
};

static void receive(void *, const struct transport_rx *);
static void expire(struct ev_loop *, ev_timer *, int);
static void run_done(struct ev_loop *, ev_idle *, int);

static unsigned
hash(uint64_t key, unsigned nbuckets)
{
	key *= 0x9E3779B97F4A7C15ULL;
	return (unsigned)(key >> 32) & (nbuckets - 1);
}

/* The method byte holds the R bit (7) and the method (6-0). */
uint8_t
mad_method_of(const uint8_t *mad)
{
	return mad[MAD_OFF_METHOD];
}

void
mad_set_method(uint8_t *mad, uint8_t method)
{
	mad[MAD_OFF_METHOD] = method;
}

static uint16_t
attr_of(const uint8_t *mad)
{
	return mad_be16(mad + MAD_OFF_ATTR);
}

/* ---- counters ---- */

/* The SM class has two wire values (LID-routed, directed route): one
 * set of counters. */
static uint8_t
counted_class(uint8_t mgmt_class)
{
	return mgmt_class == MGMT_CLASS_SMP_DR ? MGMT_CLASS_SMP_LID : mgmt_class;
}

static uint32_t
counter_key(uint8_t mgmt_class, uint8_t method, uint16_t attr)
{
	return (uint32_t)counted_class(mgmt_class) << 24 |
	    (uint32_t)method << 16 | attr;
}

static struct counter_slot *
counter_slot(const struct mad_engine *e, uint32_t key)
{
	uint32_t i;

	if (e->ctr_cap == 0)
		return NULL;
	for (i = hash(key, e->ctr_cap);; i = (i + 1) & (e->ctr_cap - 1)) {
		struct counter_slot *s = &e->ctr[i];

		if (!s->used || s->key == key)
			return s;
	}
}

static void
counter_grow(struct mad_engine *e)
{
	struct counter_slot *old = e->ctr, *s;
	uint32_t i, n = e->ctr_cap;

	e->ctr_cap = n ? 2 * n : 256;
	e->ctr_gen++;
	e->ctr = xcalloc(e->ctr_cap, sizeof(*e->ctr));
	for (i = 0; i < n; i++)
		if (old[i].used) {
			s = counter_slot(e, old[i].key);
			*s = old[i];
		}
	free(old);
}

/*
 * The counters of a key, created on first use. Keys come from the wire in
 * any number (vendor attributes, odd methods): past MAD_COUNTERS_MAX new
 * ones are not counted.
 */
static struct mad_counter *
counter(struct mad_engine *e, uint8_t mgmt_class, uint8_t method,
    uint16_t attr)
{
	static struct mad_counter sink;
	uint32_t key = counter_key(mgmt_class, method, attr);
	struct counter_slot *s = counter_slot(e, key);

	if (s != NULL && s->used)
		return &s->c;
	if (e->nctr == MAD_COUNTERS_MAX) {
		if (!e->ctr_full_logged)
			log_warnx("mad: counter table full, not counting "
			    "class 0x%02x method 0x%02x attribute 0x%04x",
			    mgmt_class, method, attr);
		e->ctr_full_logged = 1;
		memset(&sink, 0, sizeof(sink));
		return &sink;
	}
	if (2 * (e->nctr + 1) > e->ctr_cap) {
		counter_grow(e);
		s = counter_slot(e, key);
	}
	s->used = 1;
	s->key = key;
	e->nctr++;
	return &s->c;
}

/* r's counters, looked up once while the table stays where it is. */
static struct mad_counter *
req_counter(struct mad_engine *e, struct mad_req *r)
{
	if (r->ctr == NULL || r->ctr_gen != e->ctr_gen) {
		r->ctr = counter(e, r->mgmt_class, r->method, r->attr);
		r->ctr_gen = e->ctr_gen;
	}
	return r->ctr;
}

/* ---- destinations ---- */

static struct mad_dest *
dest_find(const struct mad_engine *e, uint64_t key)
{
	uint32_t i = key == 0 ? e->dest_zero : guid_hash_get(&e->dest_idx, key);

	return i == GUID_HASH_NONE ? NULL : e->dests[i];
}

static struct mad_dest *
dest_get(struct mad_engine *e, uint64_t key)
{
	struct mad_dest *d;

	if ((d = dest_find(e, key)) != NULL)
		return d;
	if ((d = e->free_dests) != NULL) {
		e->free_dests = d->next_free;
	} else {
		if (e->ndests == e->dests_cap) {
			e->dests_cap = e->dests_cap ? 2 * e->dests_cap : 64;
			e->dests = xreallocarray(e->dests, e->dests_cap,
			    sizeof(*e->dests));
		}
		d = xcalloc(1, sizeof(*d));
		d->idx = e->ndests;
		e->dests[e->ndests++] = d;
	}
	d->key = key;
	d->used = 1;
	d->wire = 0;
	d->ready = 0;
	d->next_free = NULL;
	TAILQ_INIT(&d->queue);
	if (key == 0)
		e->dest_zero = d->idx;
	else
		guid_hash_put(&e->dest_idx, key, d->idx);
	return d;
}

/*
 * After any change to d: forget it when it has nothing left, or put it on
 * the ready list when it has waiting requests and room in its window.
 */
static void
settle(struct mad_engine *e, struct mad_dest *d)
{
	if (d->wire == 0 && TAILQ_EMPTY(&d->queue)) {
		if (d->ready)
			TAILQ_REMOVE(&e->ready, d, ready_entry);
		if (d->key == 0)
			e->dest_zero = GUID_HASH_NONE;
		else
			guid_hash_del(&e->dest_idx, d->key);
		d->used = 0;
		d->ready = 0;
		d->next_free = e->free_dests;
		e->free_dests = d;
		return;
	}
	if (!d->ready && !TAILQ_EMPTY(&d->queue) &&
	    d->wire < e->o.max_per_node) {
		TAILQ_INSERT_TAIL(&e->ready, d, ready_entry);
		d->ready = 1;
	}
}

/* ---- TIDs of the requests on the wire ---- */

static void
tid_rehash(struct mad_engine *e)
{
	struct req_list *nb;
	struct mad_req *r;
	unsigned i, n = e->ntid_buckets * 2;

	nb = xcalloc(n, sizeof(*nb));
	for (i = 0; i < n; i++)
		LIST_INIT(&nb[i]);
	for (i = 0; i < e->ntid_buckets; i++)
		while ((r = LIST_FIRST(&e->tids[i])) != NULL) {
			LIST_REMOVE(r, tid_entry);
			LIST_INSERT_HEAD(&nb[hash(r->tid, n)], r, tid_entry);
		}
	free(e->tids);
	e->tids = nb;
	e->ntid_buckets = n;
}

static struct mad_req *
tid_find(const struct mad_engine *e, uint32_t tid)
{
	struct mad_req *r;

	LIST_FOREACH(r, &e->tids[hash(tid, e->ntid_buckets)], tid_entry)
		if (r->tid == tid)
			return r;
	return NULL;
}

/* A counter that skips TIDs still in use, so a wrap cannot alias. */
static void
tid_assign(struct mad_engine *e, struct mad_req *r)
{
	do
		r->tid = ++e->next_tid;
	while (r->tid == 0 || tid_find(e, r->tid) != NULL);
	LIST_INSERT_HEAD(&e->tids[hash(r->tid, e->ntid_buckets)], r,
	    tid_entry);
	if (++e->ntids > e->ntid_buckets)
		tid_rehash(e);
}

static void
tid_remove(struct mad_engine *e, struct mad_req *r)
{
	LIST_REMOVE(r, tid_entry);
	e->ntids--;
}

/* ---- requests ---- */

/* r's memory back: a request built at each attempt has no mad[] and is
 * kept for the next one. */
static void
req_free(struct mad_engine *e, struct mad_req *r)
{
	if (r->build != NULL)
		pool_put(&e->spare, r);
	else
		free(r);
}

static void
defer(struct mad_engine *e, struct mad_req *r, int status)
{
	r->status = status;
	TAILQ_INSERT_TAIL(&e->done, r, entry);
	ev_idle_start(e->loop, &e->idle);
}

/* Give back r's window slot. */
static void
release(struct mad_engine *e, struct mad_req *r)
{
	struct mad_dest *d = r->d;

	r->d = NULL;
	if (r->own)
		e->own_wire--;
	else
		e->wire--;
	d->wire--;
	settle(e, d);
}

static void
log_req(const struct mad_req *r, const char *what, unsigned n)
{
	log_debug("mad: %s %s %s to dest 0x%016" PRIx64 ": %s %u",
	    mad_class_name(r->mgmt_class), mad_method_name(r->method),
	    mad_attr_name(r->mgmt_class, r->attr), r->d->key, what, n);
}

/* ---- deadlines ---- */

/* Deadlines on the monotonic clock, as libev's timers: ev_now() is the
 * wall clock, which a step of the system time would move. */
static ev_tstamp
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ev_tstamp)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
timer_arm(struct mad_engine *e, ev_tstamp now)
{
	struct mad_req *first = TAILQ_FIRST(&e->waiting);
	ev_tstamp in = first->deadline - now;

	ev_timer_set(&e->timer, in > 0 ? in : 0., 0.);
	ev_timer_start(e->loop, &e->timer);
}

/* r's attempt is on the wire from now: at the tail, unless the timeout
 * was shortened meanwhile. */
static void
wait_add(struct mad_engine *e, struct mad_req *r)
{
	ev_tstamp now = mono_now();
	struct mad_req *p;

	r->deadline = now + e->o.timeout_ms / 1000.0;
	for (p = TAILQ_LAST(&e->waiting, wait_queue);
	    p != NULL && p->deadline > r->deadline;
	    p = TAILQ_PREV(p, wait_queue, wait_entry))
		;
	if (p != NULL) {
		TAILQ_INSERT_AFTER(&e->waiting, p, r, wait_entry);
		return;
	}
	TAILQ_INSERT_HEAD(&e->waiting, r, wait_entry);
	/* the first deadline: the timer must not wait past it */
	if (!ev_is_active(&e->timer) ||
	    ev_timer_remaining(e->loop, &e->timer) > r->deadline - now) {
		ev_timer_stop(e->loop, &e->timer);
		timer_arm(e, now);
	}
}

static void
wait_remove(struct mad_engine *e, struct mad_req *r)
{
	TAILQ_REMOVE(&e->waiting, r, wait_entry);
	if (TAILQ_EMPTY(&e->waiting))
		ev_timer_stop(e->loop, &e->timer);
}

/*
 * Put one attempt of r, which holds a window slot, on the wire. A send
 * error gives the slot back and completes r later from the loop.
 */
static void
launch(struct mad_engine *e, struct mad_req *r)
{
	uint8_t *mad = r->mad;

	tid_assign(e, r);
	/* built in the transport's send buffer: no copy on the way out */
	if (r->build != NULL &&
	    (mad = transport_mad_buf(e->t)) != NULL)
		r->build(r->arg, mad);
	if (mad == NULL) {
		log_req(r, "no memory to build, attempt", r->tries + 1);
		tid_remove(e, r);
		release(e, r);
		defer(e, r, MAD_ESEND);
		return;
	}
	mad_put_be64(mad + MAD_OFF_TID, r->tid);
	if (transport_send(e->t, mad, r->len, &r->to,
	    (int)e->o.timeout_ms) == -1) {
		log_req(r, "send failed, attempt", r->tries + 1);
		tid_remove(e, r);
		release(e, r);
		defer(e, r, MAD_ESEND);
		return;
	}
	r->tries++;
	req_counter(e, r)->sent++;
	e->sent_total++;
	e->wire_sum += e->wire;
	wait_add(e, r);
}

/* Send what the windows allow, one request per ready destination in turn. */
static void
pump(struct mad_engine *e)
{
	struct mad_dest *d;
	struct mad_req *r;

	while (e->wire < e->o.max_wire &&
	    (d = TAILQ_FIRST(&e->ready)) != NULL) {
		TAILQ_REMOVE(&e->ready, d, ready_entry);
		d->ready = 0;
		if (d->wire >= e->o.max_per_node)
			continue;       /* the window shrank */
		r = TAILQ_FIRST(&d->queue);
		TAILQ_REMOVE(&d->queue, r, entry);
		e->queued--;
		r->d = d;
		d->wire++;
		e->wire++;
		launch(e, r);
		if (r->d != NULL)       /* else the send failed and release() */
			settle(e, d);   /* settled d, maybe freeing it */
	}
}

/* Complete r, which is off the wire and holds a slot, from a loop event. */
static void
complete(struct mad_engine *e, struct mad_req *r, int status,
    const struct transport_rx *resp)
{
	mad_done_cb cb = r->cb;
	void *arg = r->arg;

	release(e, r);
	req_free(e, r);
	cb(arg, status, resp);
	pump(e);
}

/* The current attempt of r is over without an answer: retry or give up. */
static void
attempt_failed(struct mad_engine *e, struct mad_req *r)
{
	wait_remove(e, r);
	tid_remove(e, r);
	req_counter(e, r)->timeout++;
	if (r->tries <= e->o.retries) {
		log_req(r, "timeout, retry", r->tries);
		launch(e, r);
		pump(e);
		return;
	}
	log_req(r, "timed out, attempts", r->tries);
	complete(e, r, MAD_ETIMEDOUT, NULL);
}

/* The first deadlines have passed: those attempts have failed (each may
 * send again, at the tail). */
static void
expire(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mad_engine *e = w->data;
	ev_tstamp now = mono_now();
	struct mad_req *r;

	(void)loop;
	(void)revents;
	while ((r = TAILQ_FIRST(&e->waiting)) != NULL && r->deadline <= now)
		attempt_failed(e, r);
	if (!TAILQ_EMPTY(&e->waiting) && !ev_is_active(&e->timer))
		timer_arm(e, now);
}

static void
run_done(struct ev_loop *loop, ev_idle *w, int revents)
{
	struct mad_engine *e = w->data;
	struct req_queue q;
	struct mad_req *r;
	mad_done_cb cb;
	void *arg;
	int status;

	(void)revents;
	/* Only what is here now: callbacks may defer more for next time. */
	ev_idle_stop(loop, w);
	TAILQ_INIT(&q);
	TAILQ_CONCAT(&q, &e->done, entry);
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		cb = r->cb;
		arg = r->arg;
		status = r->status;
		req_free(e, r);
		cb(arg, status, NULL);
	}
}

/* The method that answers a request of method m. */
static uint8_t
response_method(uint8_t m)
{
	switch (m) {
	case MAD_GET:
	case MAD_SET:
		return MAD_GETRESP;
	case MAD_GETTRACETABLE:
		return MAD_GETTABLERESP;
	}
	return m | 0x80;
}

/* A response: match it to the request on the wire, or drop it. */
static void
response(struct mad_engine *e, const struct transport_rx *rx, uint8_t method)
{
	uint32_t tid = mad_be32(rx->mad + MAD_OFF_TID + 4);
	uint16_t attr = attr_of(rx->mad);
	struct mad_req *r;
	int status = -1;

	r = tid_find(e, tid);
	if (r != NULL && rx->mad[1] == r->mgmt_class &&
	    rx->mad[2] == r->version && attr == r->attr) {
		if (r->check != NULL)
			status = r->check(r->build != NULL ? NULL : r->mad,
			    rx->mad, rx->len);
		else if (method == response_method(r->method))
			status = mad_be16(rx->mad + MAD_OFF_STATUS);
	}
	if (status < 0) {
		log_debug("mad: dropped unmatched %s %s %s tid 0x%08" PRIx32,
		    mad_class_name(rx->mad[1]), mad_method_name(method),
		    mad_attr_name(rx->mad[1], attr), tid);
		e->unmatched++;
		return;
	}
	wait_remove(e, r);
	tid_remove(e, r);
	req_counter(e, r)->recv++;
	if (status != 0)
		req_counter(e, r)->error++;
	complete(e, r, status, rx);
}

static const struct listener *
listener_find(const struct mad_engine *e, uint8_t mgmt_class, uint8_t method,
    uint32_t attr)
{
	for (unsigned i = 0; i < e->nlisteners; i++) {
		const struct listener *l = &e->listeners[i];

		if (l->mgmt_class == mgmt_class && l->method == method &&
		    l->attr == attr)
			return l;
	}
	return NULL;
}

static int
registered(const struct mad_engine *e, uint8_t mgmt_class, uint8_t version)
{
	for (unsigned i = 0; i < e->nagents; i++)
		if (e->agents[i].mgmt_class == mgmt_class &&
		    e->agents[i].version == version)
			return 1;
	return 0;
}

/* A request to us or a trap: to its listener, or dropped. */
static void
unsolicited(struct mad_engine *e, const struct transport_rx *rx,
    uint8_t method)
{
	uint8_t mgmt_class = rx->mad[1];
	uint16_t attr = attr_of(rx->mad);
	const struct listener *l;

	if (!registered(e, mgmt_class, rx->mad[2])) {
		e->malformed++;
		return;
	}
	counter(e, mgmt_class, method, attr)->recv++;
	if ((l = listener_find(e, mgmt_class, method, attr)) == NULL &&
	    (l = listener_find(e, mgmt_class, method, MAD_ATTR_ANY)) == NULL) {
		log_debug("mad: no listener for %s %s %s from lid %u, dropped",
		    mad_class_name(mgmt_class), mad_method_name(method),
		    mad_attr_name(mgmt_class, attr), rx->from.lid);
		e->unhandled++;
		return;
	}
	l->cb(l->arg, rx);
}

/* The transport gave up on a send of ours: that attempt has failed. */
static void
send_failed(struct mad_engine *e, const struct transport_rx *rx)
{
	struct mad_req *r;
	uint32_t tid;

	if (rx->mad == NULL || rx->len < MAD_HDR_SIZE) {
		e->malformed++;
		return;
	}
	tid = mad_be32(rx->mad + MAD_OFF_TID + 4);
	if ((r = tid_find(e, tid)) == NULL) {
		/* a reply of ours, or an attempt we already gave up on */
		log_debug("mad: send of tid 0x%08" PRIx32 " failed: %s", tid,
		    strerror(rx->status));
		return;
	}
	attempt_failed(e, r);
}

static void
receive(void *arg, const struct transport_rx *rx)
{
	struct mad_engine *e = arg;
	uint8_t method;

	if (rx->status != 0) {
		send_failed(e, rx);
		return;
	}
	if (rx->mad == NULL || rx->len < TRANSPORT_MAD_SIZE ||
	    rx->mad[0] != MAD_BASE_VERSION) {
		e->malformed++;
		return;
	}
	method = mad_method_of(rx->mad);
	if (method & 0x80)
		response(e, rx, method);
	else
		unsolicited(e, rx, method);
}

static void
set_opts(struct mad_engine *e, const struct mad_opts *o)
{
	e->o = o != NULL ? *o : mad_defaults;
	/* Empty windows would never drain the queues. */
	if (e->o.max_wire == 0)
		e->o.max_wire = 1;
	if (e->o.max_per_node == 0)
		e->o.max_per_node = 1;
	if (e->o.timeout_ms == 0)
		e->o.timeout_ms = 1;
}

struct mad_engine *
mad_engine_new(struct ev_loop *loop, uint64_t guid, const struct mad_opts *o)
{
	struct mad_engine *e;
	unsigned i;

	e = xcalloc(1, sizeof(*e));
	e->loop = loop;
	set_opts(e, o);
	TAILQ_INIT(&e->done);
	TAILQ_INIT(&e->waiting);
	ev_init(&e->timer, expire);
	e->timer.data = e;
	TAILQ_INIT(&e->ready);
	pool_init(&e->spare, sizeof(struct mad_req), MAD_SPARE_REQS);
	guid_hash_init(&e->dest_idx);
	e->dest_zero = GUID_HASH_NONE;
	e->ntid_buckets = MAD_HASH_MIN;
	e->tids = xcalloc(e->ntid_buckets, sizeof(*e->tids));
	for (i = 0; i < e->ntid_buckets; i++)
		LIST_INIT(&e->tids[i]);
	ev_idle_init(&e->idle, run_done);
	e->idle.data = e;
	/* Deferred completions must not starve behind a busy receive path. */
	ev_set_priority(&e->idle, EV_MAXPRI);
	e->t = transport_open(loop, guid, receive, e);
	if (e->t == NULL) {
		guid_hash_fini(&e->dest_idx);
		free(e->tids);
		free(e);
		return NULL;
	}
	return e;
}

/* A request that will never complete. */
static void
drop(struct mad_req *r)
{
	if (r->drop != NULL)
		r->drop(r->arg);
	req_free(r->e, r);
}

void
mad_engine_free(struct mad_engine *e)
{
	struct mad_req *r;
	unsigned i;

	if (e == NULL)
		return;
	transport_close(e->t);
	ev_idle_stop(e->loop, &e->idle);
	ev_timer_stop(e->loop, &e->timer);
	while ((r = TAILQ_FIRST(&e->done)) != NULL) {
		TAILQ_REMOVE(&e->done, r, entry);
		drop(r);
	}
	for (i = 0; i < e->ntid_buckets; i++)
		while ((r = LIST_FIRST(&e->tids[i])) != NULL) {
			LIST_REMOVE(r, tid_entry);
			TAILQ_REMOVE(&e->waiting, r, wait_entry);
			drop(r);
		}
	for (i = 0; i < e->ndests; i++) {
		struct mad_dest *d = e->dests[i];

		while ((r = TAILQ_FIRST(&d->queue)) != NULL) {
			TAILQ_REMOVE(&d->queue, r, entry);
			drop(r);
		}
		free(d);
	}
	guid_hash_fini(&e->dest_idx);
	free(e->dests);
	free(e->tids);
	free(e->ctr);
	free(e->listeners);
	pool_fini(&e->spare);
	free(e);
}

uint64_t
mad_engine_port_guid(const struct mad_engine *e)
{
	return transport_port_guid(e->t);
}

struct transport *
mad_engine_transport(struct mad_engine *e)
{
	return e->t;
}

void
mad_engine_set_opts(struct mad_engine *e, const struct mad_opts *o)
{
	set_opts(e, o);
	/* A wider per-node window may make waiting destinations ready. */
	for (uint32_t i = 0; i < e->ndests; i++)
		if (e->dests[i]->used)
			settle(e, e->dests[i]);
	pump(e);
}

int
mad_register(struct mad_engine *e, const struct transport_agent *a)
{
	if (e == NULL || a == NULL || e->nagents == MAD_AGENTS_MAX ||
	    transport_register(e->t, a) < 0)
		return -1;
	e->agents[e->nagents].mgmt_class = a->mgmt_class;
	e->agents[e->nagents].version = a->class_version;
	e->nagents++;
	return 0;
}

int
mad_request(struct mad_engine *e, const struct mad_request *q, mad_done_cb cb,
    void *arg)
{
	struct mad_req *r;
	struct mad_dest *d;
	uint8_t method;

	if (e == NULL || q == NULL || cb == NULL)
		return -1;
	if (q->mad == NULL ? q->build == NULL || q->len != TRANSPORT_MAD_SIZE :
	    q->len < TRANSPORT_MAD_SIZE || q->mad[0] != MAD_BASE_VERSION)
		return -1;
	/* Only what is answered by a response (R bit) can be waited for. */
	method = q->mad != NULL ? mad_method_of(q->mad) : q->method;
	if ((method & 0x80) || method == MAD_TRAP || method == MAD_TRAPREPRESS)
		return -1;
	r = q->mad != NULL ? xcalloc(1, sizeof(*r) + q->len) :
	    pool_get(&e->spare);
	r->e = e;
	r->ctr = NULL;
	r->cb = cb;
	r->arg = arg;
	r->check = q->check;
	r->drop = q->drop;
	r->method = method;
	r->to = q->to;
	r->len = q->len;
	if (q->mad != NULL) {
		r->mgmt_class = q->mad[1];
		r->version = q->mad[2];
		r->attr = attr_of(q->mad);
		memcpy(r->mad, q->mad, q->len);
	} else {
		r->mgmt_class = q->mgmt_class;
		r->version = q->class_version;
		r->attr = q->attr;
		r->build = q->build;
	}

	d = dest_get(e, q->dest);
	if (q->own_window) {
		/* its destination keeps it until it completes, nothing
		 * queues behind it, and pump() never counts it */
		r->own = 1;
		r->d = d;
		d->wire++;
		e->own_wire++;
		launch(e, r);
		return 0;
	}
	TAILQ_INSERT_TAIL(&d->queue, r, entry);
	if (++e->queued > e->max_queued)
		e->max_queued = e->queued;
	settle(e, d);
	pump(e);
	return 0;
}

int
mad_listen(struct mad_engine *e, uint8_t mgmt_class, uint8_t method,
    uint32_t attr, mad_listen_cb cb, void *arg)
{
	struct listener *l;

	if (e == NULL || (method & 0x80) ||
	    (attr > 0xFFFF && attr != MAD_ATTR_ANY))
		return -1;
	l = (struct listener *)listener_find(e, mgmt_class, method, attr);
	if (cb == NULL) {
		if (l != NULL)
			*l = e->listeners[--e->nlisteners];
		return 0;
	}
	if (l == NULL) {
		e->listeners = xreallocarray(e->listeners, e->nlisteners + 1,
		    sizeof(*e->listeners));
		l = &e->listeners[e->nlisteners++];
		l->mgmt_class = mgmt_class;
		l->method = method;
		l->attr = attr;
	}
	l->cb = cb;
	l->arg = arg;
	return 0;
}

int
mad_send_reply(struct mad_engine *e, const uint8_t *mad, size_t len,
    const struct transport_addr *to)
{
	if (e == NULL || mad == NULL || to == NULL || len < MAD_HDR_SIZE)
		return -1;
	if (transport_send(e->t, mad, len, to, 0) == -1)
		return -1;
	counter(e, mad[1], mad_method_of(mad), attr_of(mad))->sent++;
	e->sent_total++;
	return 0;
}

unsigned
mad_outstanding(const struct mad_engine *e)
{
	return e->wire + e->own_wire;
}

unsigned
mad_queued(const struct mad_engine *e)
{
	return e->queued;
}

unsigned
mad_max_queued(const struct mad_engine *e)
{
	return e->max_queued;
}

double
mad_mean_in_flight(const struct mad_engine *e)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < e->ctr_cap; i++)
		if (e->ctr[i].used && (e->ctr[i].key >> 16 & 0x80) == 0)
			n += e->ctr[i].c.sent;  /* requests: no R bit */
	return n ? (double)e->wire_sum / (double)n : 0;
}

struct mad_counter
mad_counter_get(const struct mad_engine *e, uint8_t mgmt_class,
    uint8_t method, uint16_t attr)
{
	static const struct mad_counter zero;
	const struct counter_slot *s;

	if (e == NULL || (s = counter_slot(e, counter_key(mgmt_class, method,
	    attr))) == NULL || !s->used)
		return zero;
	return s->c;
}

static int
counter_used(const struct mad_counter *c)
{
	return c->sent || c->recv || c->timeout || c->error;
}

/* The order counters are shown in: the SM's everyday methods first. */
static unsigned
method_rank(uint8_t method)
{
	static const uint8_t first[] = { MAD_GET, MAD_SET, MAD_GETRESP,
	    MAD_TRAP, MAD_TRAPREPRESS };

	for (unsigned i = 0; i < sizeof(first); i++)
		if (first[i] == method)
			return i;
	return sizeof(first) + method;
}

static uint64_t
sort_key(uint32_t key)
{
	return (uint64_t)(key >> 24) << 32 |
	    (uint64_t)method_rank(key >> 16 & 0xFF) << 16 | (key & 0xFFFF);
}

static int
slot_cmp(const void *a, const void *b)
{
	uint64_t x = sort_key((*(const struct counter_slot *const *)a)->key);
	uint64_t y = sort_key((*(const struct counter_slot *const *)b)->key);

	return x < y ? -1 : x > y;
}

void
mad_counters_foreach(const struct mad_engine *e,
    void (*cb)(void *arg, uint8_t mgmt_class, uint8_t method, uint16_t attr,
	const struct mad_counter *c), void *arg)
{
	const struct counter_slot **v;
	uint32_t i, n = 0;

	if (e->nctr == 0)
		return;
	v = xcalloc(e->nctr, sizeof(*v));
	for (i = 0; i < e->ctr_cap; i++)
		if (e->ctr[i].used && counter_used(&e->ctr[i].c))
			v[n++] = &e->ctr[i];
	qsort(v, n, sizeof(*v), slot_cmp);
	for (i = 0; i < n; i++)
		cb(arg, v[i]->key >> 24, v[i]->key >> 16 & 0xFF,
		    v[i]->key & 0xFFFF, &v[i]->c);
	free(v);
}

uint64_t
mad_total_sent(const struct mad_engine *e)
{
	return e->sent_total;
}

uint64_t
mad_dropped_unmatched(const struct mad_engine *e)
{
	return e->unmatched;
}

uint64_t
mad_dropped_malformed(const struct mad_engine *e)
{
	return e->malformed;
}

uint64_t
mad_dropped_unhandled(const struct mad_engine *e)
{
	return e->unhandled;
}

/* ---- names ---- */

struct name {
	uint16_t value;
	const char *name;
};

static const char *
lookup(const struct name *v, size_t n, uint16_t value)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].value == value)
			return v[i].name;
	return NULL;
}

#define LOOKUP(v, x) lookup((v), sizeof(v) / sizeof((v)[0]), (x))

const char *
mad_class_name(uint8_t mgmt_class)
{
	static const struct name names[] = {
		{ MGMT_CLASS_SMP_LID, "smp" }, { MGMT_CLASS_SMP_DR, "smp" },
		{ MGMT_CLASS_SA, "sa" }, { MGMT_CLASS_PERF, "perf" },
		{ MGMT_CLASS_BM, "bm" }, { MGMT_CLASS_DEV, "dev" },
		{ MGMT_CLASS_CM, "cm" }, { MGMT_CLASS_SNMP, "snmp" },
	};
	static char buf[8];
	const char *s;

	if ((s = LOOKUP(names, mgmt_class)) != NULL)
		return s;
	snprintf(buf, sizeof(buf), "0x%02x", mgmt_class);
	return buf;
}

const char *
mad_method_name(uint8_t method)
{
	static const struct name names[] = {
		{ MAD_GET, "Get" }, { MAD_SET, "Set" }, { MAD_SEND, "Send" },
		{ MAD_GETRESP, "GetResp" }, { MAD_TRAP, "Trap" },
		{ MAD_TRAPREPRESS, "TrapRepress" }, { MAD_REPORT, "Report" },
		{ MAD_REPORTRESP, "ReportResp" }, { MAD_GETTABLE, "GetTable" },
		{ MAD_GETTABLERESP, "GetTableResp" },
		{ MAD_GETTRACETABLE, "GetTraceTable" },
		{ MAD_GETMULTI, "GetMulti" }, { MAD_GETMULTIRESP, "GetMultiResp" },
		{ MAD_DELETE, "Delete" }, { MAD_DELETERESP, "DeleteResp" },
	};
	static char buf[8];
	const char *s;

	if ((s = LOOKUP(names, method)) != NULL)
		return s;
	snprintf(buf, sizeof(buf), "0x%02x", method);
	return buf;
}

const char *
mad_attr_name(uint8_t mgmt_class, uint16_t attr)
{
	/* IBA 14.2.5 */
	static const struct name smp[] = {
		{ 0x0002, "Notice" }, { 0x0010, "NodeDescription" },
		{ 0x0011, "NodeInfo" }, { 0x0012, "SwitchInfo" },
		{ 0x0014, "GUIDInfo" }, { 0x0015, "PortInfo" },
		{ 0x0016, "P_KeyTable" }, { 0x0017, "SLtoVLMappingTable" },
		{ 0x0018, "VLArbitrationTable" },
		{ 0x0019, "LinearForwardingTable" },
		{ 0x001A, "RandomForwardingTable" },
		{ 0x001B, "MulticastForwardingTable" }, { 0x0020, "SMInfo" },
	};
	/* IBA 15.2.5 */
	static const struct name sa[] = {
		{ 0x0001, "ClassPortInfo" }, { 0x0002, "Notice" },
		{ 0x0003, "InformInfo" }, { 0x0011, "NodeRecord" },
		{ 0x0012, "PortInfoRecord" },
		{ 0x0013, "SLtoVLMappingTableRecord" },
		{ 0x0014, "SwitchInfoRecord" },
		{ 0x0015, "LinearForwardingTableRecord" },
		{ 0x0016, "RandomForwardingTableRecord" },
		{ 0x0017, "MulticastForwardingTableRecord" },
		{ 0x0018, "SMInfoRecord" }, { 0x0020, "LinkRecord" },
		{ 0x0030, "GUIDInfoRecord" }, { 0x0031, "ServiceRecord" },
		{ 0x0033, "P_KeyTableRecord" }, { 0x0035, "PathRecord" },
		{ 0x0036, "VLArbitrationTableRecord" },
		{ 0x0038, "MCMemberRecord" }, { 0x0039, "TraceRecord" },
		{ 0x003A, "MultiPathRecord" },
		{ 0x003B, "ServiceAssociationRecord" },
		{ 0x00F3, "InformInfoRecord" },
	};
	/* IBA 13.4.8: every general services class has these. */
	static const struct name gs[] = {
		{ 0x0001, "ClassPortInfo" }, { 0x0002, "Notice" },
		{ 0x0003, "InformInfo" },
	};
	static char buf[8];
	const char *s;

	switch (mgmt_class) {
	case MGMT_CLASS_SMP_LID:
	case MGMT_CLASS_SMP_DR:
		s = LOOKUP(smp, attr);
		break;
	case MGMT_CLASS_SA:
		s = LOOKUP(sa, attr);
		break;
	default:
		s = LOOKUP(gs, attr);
		break;
	}
	if (s != NULL)
		return s;
	snprintf(buf, sizeof(buf), "0x%04x", attr);
	return buf;
}

const char *
mad_status_text(uint8_t mgmt_class, int status, char *buf, size_t len)
{
	static const char *const field[8] = {
		NULL, "bad version", "method not supported",
		"method/attribute combination not supported", "code 4",
		"code 5", "code 6", "invalid value in the attribute or "
		"its modifier",
	};
	static const char *const sa[8] = {
		NULL, "ERR_NO_RESOURCES", "ERR_REQ_INVALID", "ERR_NO_RECORDS",
		"ERR_TOO_MANY_RECORDS", "ERR_REQ_INVALID_GID",
		"ERR_REQ_INSUFFICIENT_COMPONENTS", "ERR_REQ_DENIED",
	};
	unsigned st, code, cls;
	size_t off;

	if (status == MAD_ETIMEDOUT)
		return snprintf(buf, len, "no answer"), buf;
	if (status == MAD_ESEND)
		return snprintf(buf, len, "cannot send"), buf;
	if (status < 0)
		return snprintf(buf, len, "failed (%d)", status), buf;
	st = (unsigned)status & 0xffff;
	/* a directed-route SMP's bit 15 is its direction, not a status */
	if (mgmt_class == MGMT_CLASS_SMP_DR)
		st &= 0x7fff;
	code = (st >> 2) & 7;
	cls = (st >> 8) & 0x7f;
	off = (size_t)snprintf(buf, len, "status 0x%04x", st);
#define MORE(...) do { if (off < len) off += (size_t)snprintf(buf + off, \
	len - off, __VA_ARGS__); } while (0)
	if (st == 0)
		MORE(": success");
	else {
		const char *sep = ": ";

		if (st & 1) {
			MORE("%sbusy", sep);
			sep = ", ";
		}
		if (st & 2) {
			MORE("%sredirect required", sep);
			sep = ", ";
		}
		if (code != 0) {
			MORE("%s%s", sep, field[code]);
			sep = ", ";
		}
		if (cls != 0) {
			if (mgmt_class == MGMT_CLASS_SA && cls < 8)
				MORE("%s%s", sep, sa[cls]);
			else
				MORE("%s%s-specific code 0x%02x", sep,
				    mgmt_class == MGMT_CLASS_SMP_LID ||
				    mgmt_class == MGMT_CLASS_SMP_DR ?
				    "vendor or SMP class" : "class", cls);
		}
	}
#undef MORE
	return buf;
}
