/*
 * MAD engine: SMP requests over the transport, with windows, FIFO queues per
 * destination, per-attempt timers, retries and counters.
 *
 * Each destination (r->dest) has a FIFO of requests waiting for a window
 * slot. Destinations that have waiting requests and room in their own window
 * sit on one "ready" list served round-robin, so a destination whose window
 * is full never holds up the others, and every step is O(1). Requests on the
 * wire are found by the low 32 bits of their TID (the only bits that survive
 * the kernel and libumad2sim); every attempt gets a fresh TID so that a late
 * answer to an earlier attempt matches nothing and is dropped.
 *
 * Completions are called from the rx callback, from timers, or, for what
 * fails while a request is being queued (a send error), from an ev_idle
 * watcher: never from inside mad_smp().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/log.h"
#include "mad/mad.h"
#include "mad/transport.h"

#define MAD_BASE_VERSION        1
#define MAD_CLASS_VERSION       1
#define MAD_DR_PERMISSIVE       0xFFFF
#define MAD_HDR_MIN             24      /* enough to read TID and attr */
#define MAD_HASH_MIN            64      /* initial buckets, power of two */
#define MAD_NMETHODS            5       /* methods with dense counters */
#define MAD_NATTRS              0x100   /* attributes with dense counters */
#define MAD_EXTRA_MAX           64      /* other (method, attr) pairs */

struct mad_dest;

struct mad_req {
	TAILQ_ENTRY(mad_req) entry;     /* destination queue, or done list */
	LIST_ENTRY(mad_req) tid_entry;  /* on the wire: the TID hash */
	ev_timer timer;
	struct mad_engine *e;
	struct mad_dest *d;             /* holding a window slot of d */
	mad_done_cb cb;
	void *arg;
	int status;                     /* for a deferred completion */
	unsigned tries;                 /* attempts sent */
	uint32_t tid;                   /* TID of the current attempt */
	uint32_t mod;
	uint64_t mkey;
	uint16_t attr;
	uint16_t dlid;
	uint8_t method;
	uint8_t dr;
	uint8_t hops;
	uint8_t path[FABRIC_DR_MAX];    /* InitialPath, [0] unused */
	uint8_t data[MAD_DATA_SIZE];
};

TAILQ_HEAD(req_queue, mad_req);
LIST_HEAD(req_list, mad_req);

struct mad_dest {
	LIST_ENTRY(mad_dest) hash_entry;
	TAILQ_ENTRY(mad_dest) ready_entry;
	struct req_queue queue;         /* waiting for a slot, FIFO */
	uint64_t key;
	unsigned wire;                  /* requests on the wire */
	int ready;                      /* on the engine's ready list */
};

TAILQ_HEAD(dest_queue, mad_dest);
LIST_HEAD(dest_list, mad_dest);

struct mad_extra {
	uint8_t method;
	uint16_t attr;
	struct mad_counter c;
};

struct mad_engine {
	uint64_t sent_total;    /* every MAD sent: SMInfo's ActCount reads it */
	struct ev_loop *loop;
	struct transport *t;
	struct mad_opts o;
	ev_idle idle;                   /* runs deferred completions */
	struct req_queue done;          /* completed, callback not yet called */
	struct dest_queue ready;        /* destinations that can send now */
	struct dest_list *dests;        /* hash on dest key */
	unsigned ndest_buckets, ndests;
	struct req_list *tids;          /* hash on TID, requests on the wire */
	unsigned ntid_buckets, ntids;
	uint32_t next_tid;
	unsigned wire, queued;
	mad_unsol_cb unsol;
	void *unsol_arg;
	struct mad_counter ctr[MAD_NMETHODS][MAD_NATTRS];
	struct mad_extra *extra;
	unsigned nextra;
	int extra_full_logged;
	uint64_t unmatched, malformed;
};

static const struct mad_opts mad_defaults = {
	.max_wire = 64, .max_per_node = 4, .timeout_ms = 200, .retries = 3,
};

static void receive(void *, const struct transport_rx *);
static void expire(struct ev_loop *, ev_timer *, int);
static void run_done(struct ev_loop *, ev_idle *, int);

static void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n, size)) == NULL)
		fatal("mad: calloc");
	return p;
}

static unsigned
hash(uint64_t key, unsigned nbuckets)
{
	key *= 0x9E3779B97F4A7C15ULL;
	return (unsigned)(key >> 32) & (nbuckets - 1);
}

/* libibmad splits the method byte into a 7-bit method and the R bit. */
uint8_t
mad_method_of(const uint8_t *mad)
{
	void *m = (void *)mad;

	return (uint8_t)(mad_get_field(m, 0, IB_MAD_METHOD_F) |
	    mad_get_field(m, 0, IB_MAD_RESPONSE_F) << 7);
}

void
mad_set_method(uint8_t *mad, uint8_t method)
{
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method & 0x7f);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, method >> 7);
}

static int
method_index(uint8_t method)
{
	switch (method) {
	case MAD_GET:
		return 0;
	case MAD_SET:
		return 1;
	case MAD_GETRESP:
		return 2;
	case MAD_TRAP:
		return 3;
	case MAD_TRAPREPRESS:
		return 4;
	}
	return -1;
}

static struct mad_counter *
find_counter(const struct mad_engine *e, uint8_t method, uint16_t attr)
{
	int mi = method_index(method);
	unsigned i;

	if (mi >= 0 && attr < MAD_NATTRS)
		return (struct mad_counter *)&e->ctr[mi][attr];
	for (i = 0; i < e->nextra; i++)
		if (e->extra[i].method == method && e->extra[i].attr == attr)
			return &e->extra[i].c;
	return NULL;
}

/*
 * Pairs outside the dense table (vendor attributes, odd methods) can come
 * from the wire in any number: keep a bounded few and stop counting new ones.
 */
static struct mad_counter *
counter(struct mad_engine *e, uint8_t method, uint16_t attr)
{
	static struct mad_counter sink;
	struct mad_counter *c;
	struct mad_extra *x;

	if ((c = find_counter(e, method, attr)) != NULL)
		return c;
	if (e->nextra == MAD_EXTRA_MAX) {
		if (!e->extra_full_logged)
			log_warnx("mad: counter table full, not counting "
			    "method 0x%02x attribute 0x%04x", method, attr);
		e->extra_full_logged = 1;
		memset(&sink, 0, sizeof(sink));
		return &sink;
	}
	x = realloc(e->extra, (e->nextra + 1) * sizeof(*x));
	if (x == NULL)
		fatal("mad: realloc");
	e->extra = x;
	x = &e->extra[e->nextra++];
	memset(x, 0, sizeof(*x));
	x->method = method;
	x->attr = attr;
	return &x->c;
}

/* Destinations: a chained hash that doubles when it fills. */

static void
dest_rehash(struct mad_engine *e)
{
	struct dest_list *nb;
	struct mad_dest *d;
	unsigned i, n = e->ndest_buckets * 2;

	nb = xcalloc(n, sizeof(*nb));
	for (i = 0; i < n; i++)
		LIST_INIT(&nb[i]);
	for (i = 0; i < e->ndest_buckets; i++)
		while ((d = LIST_FIRST(&e->dests[i])) != NULL) {
			LIST_REMOVE(d, hash_entry);
			LIST_INSERT_HEAD(&nb[hash(d->key, n)], d, hash_entry);
		}
	free(e->dests);
	e->dests = nb;
	e->ndest_buckets = n;
}

static struct mad_dest *
dest_get(struct mad_engine *e, uint64_t key)
{
	struct dest_list *b = &e->dests[hash(key, e->ndest_buckets)];
	struct mad_dest *d;

	LIST_FOREACH(d, b, hash_entry)
		if (d->key == key)
			return d;
	d = xcalloc(1, sizeof(*d));
	d->key = key;
	TAILQ_INIT(&d->queue);
	LIST_INSERT_HEAD(b, d, hash_entry);
	if (++e->ndests > e->ndest_buckets)
		dest_rehash(e);
	return d;
}

/*
 * After any change to d: free it when it has nothing left, or put it on the
 * ready list when it has waiting requests and room in its window.
 */
static void
settle(struct mad_engine *e, struct mad_dest *d)
{
	if (d->wire == 0 && TAILQ_EMPTY(&d->queue)) {
		if (d->ready)
			TAILQ_REMOVE(&e->ready, d, ready_entry);
		LIST_REMOVE(d, hash_entry);
		e->ndests--;
		free(d);
		return;
	}
	if (!d->ready && !TAILQ_EMPTY(&d->queue) &&
	    d->wire < e->o.max_per_node) {
		TAILQ_INSERT_TAIL(&e->ready, d, ready_entry);
		d->ready = 1;
	}
}

/* TIDs of the requests on the wire. */

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

static void
build(const struct mad_req *r, uint8_t *mad)
{
	memset(mad, 0, TRANSPORT_MAD_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, MAD_BASE_VERSION);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F,
	    r->dr ? MGMT_CLASS_SMP_DR : MGMT_CLASS_SMP_LID);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, MAD_CLASS_VERSION);
	mad_set_method(mad, r->method);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, r->tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, r->attr);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, r->mod);
	mad_set_field64(mad, 0, IB_MAD_MKEY_F, r->mkey);
	if (r->dr) {
		/* A request: D = 0, walking the initial path from hop 0. */
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 0);
		mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
		mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, r->hops);
		mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, MAD_DR_PERMISSIVE);
		mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, MAD_DR_PERMISSIVE);
		mad_set_array(mad, 0, IB_DRSMP_PATH_F, (void *)r->path);
	}
	memcpy(mad + MAD_DATA_OFFSET, r->data, MAD_DATA_SIZE);
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
	e->wire--;
	d->wire--;
	settle(e, d);
}

/*
 * Put one attempt of r, which holds a window slot, on the wire. A send
 * error gives the slot back and completes r later from the loop.
 */
static void
launch(struct mad_engine *e, struct mad_req *r)
{
	uint8_t mad[TRANSPORT_MAD_SIZE];
	uint16_t dlid = r->dr ? MAD_DR_PERMISSIVE : r->dlid;

	tid_assign(e, r);
	build(r, mad);
	if (transport_send(e->t, mad, dlid, (int)e->o.timeout_ms) == -1) {
		log_debug("mad: %s %s to dest 0x%016" PRIx64 ": send failed",
		    mad_method_name(r->method), mad_attr_name(r->attr),
		    r->d->key);
		tid_remove(e, r);
		release(e, r);
		defer(e, r, MAD_ESEND);
		return;
	}
	r->tries++;
	counter(e, r->method, r->attr)->sent++;
	e->sent_total++;
	ev_timer_set(&r->timer, e->o.timeout_ms / 1000.0, 0.);
	ev_timer_start(e->loop, &r->timer);
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
    const uint8_t *resp)
{
	mad_done_cb cb = r->cb;
	void *arg = r->arg;

	release(e, r);
	free(r);
	cb(arg, status, resp);
	pump(e);
}

/* The current attempt of r is over without an answer: retry or give up. */
static void
attempt_failed(struct mad_engine *e, struct mad_req *r)
{
	ev_timer_stop(e->loop, &r->timer);
	tid_remove(e, r);
	counter(e, r->method, r->attr)->timeout++;
	if (r->tries <= e->o.retries) {
		log_debug("mad: %s %s to dest 0x%016" PRIx64 ": timeout, "
		    "retry %u", mad_method_name(r->method),
		    mad_attr_name(r->attr), r->d->key, r->tries);
		launch(e, r);
		pump(e);
		return;
	}
	log_debug("mad: %s %s to dest 0x%016" PRIx64 ": timed out after %u "
	    "attempts", mad_method_name(r->method), mad_attr_name(r->attr),
	    r->d->key, r->tries);
	complete(e, r, MAD_ETIMEDOUT, NULL);
}

static void
expire(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mad_req *r = w->data;

	(void)loop;
	(void)revents;
	attempt_failed(r->e, r);
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
		free(r);
		cb(arg, status, NULL);
	}
}

/* A response: match it to the request on the wire, or drop it. */
static void
response(struct mad_engine *e, const uint8_t *mad, uint8_t method)
{
	void *m = (void *)mad;
	uint32_t tid = mad_get_field64(m, 0, IB_MAD_TRID_F) & 0xFFFFFFFF;
	uint16_t attr = mad_get_field(m, 0, IB_MAD_ATTRID_F);
	uint8_t class = mad_get_field(m, 0, IB_MAD_MGMTCLASS_F);
	struct mad_req *r;
	int status;

	r = tid_find(e, tid);
	if (r == NULL || method != MAD_GETRESP || r->attr != attr ||
	    class != (r->dr ? MGMT_CLASS_SMP_DR : MGMT_CLASS_SMP_LID) ||
	    (r->dr && !mad_get_field(m, 0, IB_DRSMP_DIRECTION_F))) {
		log_debug("mad: dropped unmatched %s %s tid 0x%08" PRIx32,
		    mad_method_name(method), mad_attr_name(attr), tid);
		e->unmatched++;
		return;
	}
	if (r->dr)
		status = mad_get_field(m, 0, IB_DRSMP_STATUS_F);
	else
		status = mad_get_field(m, 0, IB_MAD_STATUS_F);
	ev_timer_stop(e->loop, &r->timer);
	tid_remove(e, r);
	counter(e, r->method, r->attr)->recv++;
	if (status != 0)
		counter(e, r->method, r->attr)->error++;
	complete(e, r, status, mad);
}

static void
unsolicited(struct mad_engine *e, const struct transport_rx *rx,
    uint8_t method)
{
	uint16_t attr = mad_get_field((void *)rx->mad, 0, IB_MAD_ATTRID_F);

	counter(e, method, attr)->recv++;
	if (e->unsol == NULL) {
		log_debug("mad: no handler for %s %s from lid %u, dropped",
		    mad_method_name(method), mad_attr_name(attr), rx->slid);
		return;
	}
	e->unsol(e->unsol_arg, rx->mad, rx->slid);
}

/* The transport gave up on a send of ours: that attempt has failed. */
static void
send_failed(struct mad_engine *e, const struct transport_rx *rx)
{
	struct mad_req *r;
	uint32_t tid;

	if (rx->mad == NULL || rx->len < MAD_HDR_MIN) {
		e->malformed++;
		return;
	}
	tid = mad_get_field64((void *)rx->mad, 0, IB_MAD_TRID_F) & 0xFFFFFFFF;
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
	void *m = (void *)rx->mad;
	uint8_t class, method;

	if (rx->status != 0) {
		send_failed(e, rx);
		return;
	}
	if (m == NULL || rx->len < TRANSPORT_MAD_SIZE ||
	    mad_get_field(m, 0, IB_MAD_BASEVER_F) != MAD_BASE_VERSION ||
	    mad_get_field(m, 0, IB_MAD_CLASSVER_F) != MAD_CLASS_VERSION) {
		e->malformed++;
		return;
	}
	class = mad_get_field(m, 0, IB_MAD_MGMTCLASS_F);
	if (class != MGMT_CLASS_SMP_LID && class != MGMT_CLASS_SMP_DR) {
		e->malformed++;
		return;
	}
	method = mad_method_of(rx->mad);
	if (method & 0x80)
		response(e, rx->mad, method);
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
	TAILQ_INIT(&e->ready);
	e->ndest_buckets = e->ntid_buckets = MAD_HASH_MIN;
	e->dests = xcalloc(e->ndest_buckets, sizeof(*e->dests));
	for (i = 0; i < e->ndest_buckets; i++)
		LIST_INIT(&e->dests[i]);
	e->tids = xcalloc(e->ntid_buckets, sizeof(*e->tids));
	for (i = 0; i < e->ntid_buckets; i++)
		LIST_INIT(&e->tids[i]);
	ev_idle_init(&e->idle, run_done);
	e->idle.data = e;
	/* Deferred completions must not starve behind a busy receive path. */
	ev_set_priority(&e->idle, EV_MAXPRI);
	e->t = transport_open(loop, guid, receive, e);
	if (e->t == NULL) {
		free(e->tids);
		free(e->dests);
		free(e);
		return NULL;
	}
	return e;
}

void
mad_engine_free(struct mad_engine *e)
{
	struct mad_dest *d;
	struct mad_req *r;
	unsigned i;

	if (e == NULL)
		return;
	transport_close(e->t);
	ev_idle_stop(e->loop, &e->idle);
	while ((r = TAILQ_FIRST(&e->done)) != NULL) {
		TAILQ_REMOVE(&e->done, r, entry);
		free(r);
	}
	for (i = 0; i < e->ntid_buckets; i++)
		while ((r = LIST_FIRST(&e->tids[i])) != NULL) {
			LIST_REMOVE(r, tid_entry);
			ev_timer_stop(e->loop, &r->timer);
			free(r);
		}
	for (i = 0; i < e->ndest_buckets; i++)
		while ((d = LIST_FIRST(&e->dests[i])) != NULL) {
			LIST_REMOVE(d, hash_entry);
			while ((r = TAILQ_FIRST(&d->queue)) != NULL) {
				TAILQ_REMOVE(&d->queue, r, entry);
				free(r);
			}
			free(d);
		}
	free(e->tids);
	free(e->dests);
	free(e->extra);
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
	struct mad_dest *d, *next;
	unsigned i;

	set_opts(e, o);
	/* A wider per-node window may make waiting destinations ready. */
	for (i = 0; i < e->ndest_buckets; i++)
		for (d = LIST_FIRST(&e->dests[i]); d != NULL; d = next) {
			next = LIST_NEXT(d, hash_entry);
			settle(e, d);
		}
	pump(e);
}

int
mad_smp(struct mad_engine *e, const struct smp_req *q, mad_done_cb cb,
    void *arg)
{
	struct mad_req *r;
	struct mad_dest *d;

	if (e == NULL || q == NULL || cb == NULL ||
	    (q->method != MAD_GET && q->method != MAD_SET))
		return -1;
	if (q->path != NULL && q->path->hops >= FABRIC_DR_MAX)
		return -1;
	if (q->path == NULL && (q->dlid == 0 || q->dlid > FABRIC_MAX_LID))
		return -1;
	r = xcalloc(1, sizeof(*r));
	r->e = e;
	r->cb = cb;
	r->arg = arg;
	r->method = q->method;
	r->attr = q->attr;
	r->mod = q->mod;
	r->mkey = q->mkey;
	r->dlid = q->dlid;
	if (q->path != NULL) {
		r->dr = 1;
		r->hops = q->path->hops;
		memcpy(r->path + 1, q->path->port + 1, r->hops);
	}
	if (q->data != NULL)
		memcpy(r->data, q->data, MAD_DATA_SIZE);
	ev_init(&r->timer, expire);
	r->timer.data = r;

	d = dest_get(e, q->dest);
	TAILQ_INSERT_TAIL(&d->queue, r, entry);
	e->queued++;
	settle(e, d);
	pump(e);
	return 0;
}

void
mad_set_unsolicited(struct mad_engine *e, mad_unsol_cb cb, void *arg)
{
	e->unsol = cb;
	e->unsol_arg = arg;
}

int
mad_send_reply(struct mad_engine *e, const uint8_t *mad, uint16_t dlid)
{
	uint8_t method;
	uint16_t attr;

	if (e == NULL || mad == NULL)
		return -1;
	if (transport_send(e->t, mad, dlid, 0) == -1)
		return -1;
	method = mad_method_of(mad);
	attr = mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F);
	counter(e, method, attr)->sent++;
	e->sent_total++;
	return 0;
}

unsigned
mad_outstanding(const struct mad_engine *e)
{
	return e->wire;
}

unsigned
mad_queued(const struct mad_engine *e)
{
	return e->queued;
}

struct mad_counter
mad_counter_get(const struct mad_engine *e, uint8_t method, uint16_t attr)
{
	static const struct mad_counter zero;
	const struct mad_counter *c;

	if (e == NULL || (c = find_counter(e, method, attr)) == NULL)
		return zero;
	return *c;
}

static int
counter_used(const struct mad_counter *c)
{
	return c->sent || c->recv || c->timeout || c->error;
}

void
mad_counters_foreach(const struct mad_engine *e,
    void (*cb)(void *arg, uint8_t method, uint16_t attr,
	const struct mad_counter *c), void *arg)
{
	static const uint8_t methods[MAD_NMETHODS] = { MAD_GET, MAD_SET,
	    MAD_GETRESP, MAD_TRAP, MAD_TRAPREPRESS };
	unsigned mi, a;

	for (mi = 0; mi < MAD_NMETHODS; mi++)
		for (a = 0; a < MAD_NATTRS; a++)
			if (counter_used(&e->ctr[mi][a]))
				cb(arg, methods[mi], a, &e->ctr[mi][a]);
	for (a = 0; a < e->nextra; a++)
		if (counter_used(&e->extra[a].c))
			cb(arg, e->extra[a].method, e->extra[a].attr,
			    &e->extra[a].c);
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

/* Unknown values are formatted into a static buffer, one per function:
 * valid until the next call of the same function. */
const char *
mad_method_name(uint8_t method)
{
	static char buf[8];

	switch (method) {
	case MAD_GET:
		return "Get";
	case MAD_SET:
		return "Set";
	case MAD_GETRESP:
		return "GetResp";
	case MAD_TRAP:
		return "Trap";
	case MAD_TRAPREPRESS:
		return "TrapRepress";
	}
	snprintf(buf, sizeof(buf), "0x%02x", method);
	return buf;
}

const char *
mad_attr_name(uint16_t attr)
{
	static const struct {
		uint16_t attr;
		const char *name;
	} names[] = {
		{ ATTR_NOTICE, "Notice" },
		{ ATTR_NODE_DESC, "NodeDescription" },
		{ ATTR_NODE_INFO, "NodeInfo" },
		{ ATTR_SWITCH_INFO, "SwitchInfo" },
		{ ATTR_GUID_INFO, "GUIDInfo" },
		{ ATTR_PORT_INFO, "PortInfo" },
		{ ATTR_PKEY_TABLE, "P_KeyTable" },
		{ ATTR_SL2VL, "SLtoVLMappingTable" },
		{ ATTR_VL_ARB, "VLArbitrationTable" },
		{ ATTR_LFT, "LinearForwardingTable" },
		{ ATTR_MFT, "MulticastForwardingTable" },
		{ ATTR_SM_INFO, "SMInfo" },
	};
	static char buf[8];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].attr == attr)
			return names[i].name;
	snprintf(buf, sizeof(buf), "0x%04x", attr);
	return buf;
}
