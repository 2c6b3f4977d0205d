/*
 * The SA agent: receive on QP1 (class 0x03 v2, RMPP), check, dispatch to
 * the attribute modules of sa/attrs.c, answer. See sa/sa.h and sa/attr.h.
 *
 * Every request is answered (or dropped) from the receive callback, on
 * the loop, from the view sm/ handed over: nothing waits for the wire. A
 * repeated request (a client retrying with the same TID because our
 * answer was lost) is simply computed again: Get handlers are functions of
 * the view, and Set/Delete handlers are idempotent for the same record.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/log.h"
#include "core/vport.h"
#include "mad/mad.h"
#include "sa/scope.h"
#include "sa/attr.h"
#include "sa/sa.h"

/* RMPP header (IBA 13.6.2.1): version 1, type DATA, flag ACTIVE. */
#define RMPP_VERSION    1
#define RMPP_TYPE_DATA  1
#define RMPP_FLAG_ACTIVE 0x01

/* RespTimeValue floor: 2^16 x 4.096 us = 268 ms, OpenSM's value for its
 * 200 ms transaction timeout. Raised when answers are measured slower. */
#define SA_RESP_TIME_MIN 16

struct sa {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct sa_opts o;
	struct sa_view view;
	bool have_view;
	bool serving;
	bool started;
	struct sa_stats st;
	double answer_max;              /* seconds, slowest answer */
	void **state;                   /* [i]: sa_attrs[i]'s */
	size_t nattrs;
};

/* The request methods the SA class defines (IBA 15.2.2): the agent
 * takes them all, so that each gets an answer. */
static const uint8_t sa_methods[] = { MAD_GET, MAD_SET, MAD_REPORT,
    MAD_GETTABLE, MAD_GETTRACETABLE, MAD_GETMULTI, MAD_DELETE };

static uint64_t
field(const uint8_t *mad, enum MAD_FIELDS f)
{
	return mad_get_field64((void *)mad, 0, f);
}

static uint32_t
field32(const uint8_t *mad, enum MAD_FIELDS f)
{
	return mad_get_field((void *)mad, 0, f);
}

struct sa *
sa_new(struct ev_loop *loop, struct mad_engine *mad, const struct sa_opts *o)
{
	struct sa *sa = xcalloc(1, sizeof(*sa));
	size_t i;

	sa->loop = loop;
	sa->mad = mad;
	if (o != NULL)
		sa->o = *o;
	else
		sa->o.sa_key = 1;
	while (sa_attrs[sa->nattrs] != NULL)
		sa->nattrs++;
	sa->state = xcalloc(sa->nattrs + 1, sizeof(*sa->state));
	for (i = 0; i < sa->nattrs; i++)
		if (sa_attrs[i]->init != NULL)
			sa->state[i] = sa_attrs[i]->init(sa, loop);
	return sa;
}

void
sa_free(struct sa *sa)
{
	size_t i;

	if (sa == NULL)
		return;
	if (sa->started && sa->mad != NULL)
		for (i = 0; i < sizeof(sa_methods); i++)
			mad_listen(sa->mad, MGMT_CLASS_SA, sa_methods[i],
			    MAD_ATTR_ANY, NULL, NULL);
	for (i = sa->nattrs; i-- > 0;)
		if (sa_attrs[i]->fini != NULL)
			sa_attrs[i]->fini(sa->state[i]);
	free(sa->state);
	free(sa);
}

void
sa_set_opts(struct sa *sa, const struct sa_opts *o)
{
	sa->o = *o;
}

const struct sa_opts *
sa_get_opts(const struct sa *sa)
{
	return &sa->o;
}

void
sa_set_view(struct sa *sa, const struct sa_view *v)
{
	struct sa_view old = sa->view;
	bool had = sa->have_view;
	size_t i;

	if (v != NULL)
		sa->view = *v;
	else
		memset(&sa->view, 0, sizeof(sa->view));
	sa->have_view = v != NULL && v->f != NULL;
	for (i = 0; i < sa->nattrs; i++)
		if (sa_attrs[i]->view_changed != NULL)
			sa_attrs[i]->view_changed(sa->state[i],
			    had ? &old : NULL, sa->have_view ? &sa->view : NULL);
}

void
sa_set_serving(struct sa *sa, bool serving)
{
	if (serving != sa->serving)
		log_info("sa: %s", serving ? "answering requests" :
		    "not answering requests (not master, or no complete "
		    "sweep yet)");
	sa->serving = serving;
}

bool
sa_is_serving(const struct sa *sa)
{
	return sa->serving && sa->have_view;
}

const struct sa_view *
sa_current_view(const struct sa *sa)
{
	return sa->have_view ? &sa->view : NULL;
}

struct mad_engine *
sa_mad(struct sa *sa)
{
	return sa->mad;
}

void *
sa_attr_state(struct sa *sa, uint16_t id)
{
	size_t i;

	for (i = 0; i < sa->nattrs; i++)
		if (sa_attrs[i]->id == id)
			return sa->state[i];
	return NULL;
}

struct sa_stats *
sa_stats_mut(struct sa *sa)
{
	return &sa->st;
}

void
sa_get_stats(const struct sa *sa, struct sa_stats *st)
{
	*st = sa->st;
	st->answer_max_us = (uint64_t)(sa->answer_max * 1e6);
}

const struct sa_attr *
sa_attr_find(uint16_t id)
{
	size_t i;

	for (i = 0; sa_attrs[i] != NULL; i++)
		if (sa_attrs[i]->id == id)
			return sa_attrs[i];
	return NULL;
}

unsigned
sa_resp_time_value(const struct sa *sa)
{
	unsigned v = SA_RESP_TIME_MIN;

	/* 4.096 us x 2^v must exceed four times the slowest answer seen. */
	while (v < 31 && 4.096e-6 * (double)(1u << v) < 4 * sa->answer_max)
		v++;
	return v;
}

/* One more answer of (attribute, status). */
static void
count_answer(struct sa_stats *st, uint16_t attr, uint16_t status)
{
	unsigned i;

	for (i = 0; i < st->nanswers; i++)
		if (st->answers[i].attr == attr &&
		    st->answers[i].status == status)
			break;
	if (i == st->nanswers) {
		if (i == SA_ANSWER_KINDS) {
			st->answers_other++;
			return;
		}
		st->answers[st->nanswers++] = (struct sa_answer_count){
		    .attr = attr, .status = status };
	}
	st->answers[i].n++;
}

/* Put a reply on the wire to where the request came from: its LID, source
 * QP (Open MPI asks from a private UD QP), SL, P_Key index and GRH. */
static void
send_reply(struct sa *sa, const struct transport_rx *rx, uint8_t *m,
    size_t len)
{
	struct transport_addr to = rx->from;

	to.qkey = TRANSPORT_QKEY_GSI;
	if (mad_send_reply(sa->mad, m, len, &to) < 0) {
		log_debug("sa: reply to lid %u qp %u not sent", to.lid, to.qpn);
		return;
	}
	sa->st.answered++;
	count_answer(&sa->st, (uint16_t)mad_get_field(m, 0, IB_MAD_ATTRID_F),
	    (uint16_t)mad_get_field(m, 0, IB_MAD_STATUS_F));
}

static uint8_t
resp_method(uint8_t method)
{
	switch (method) {
	case MAD_GET:
	case MAD_SET:
		return MAD_GETRESP;
	case MAD_GETTABLE:
		return MAD_GETTABLERESP;
	case MAD_GETMULTI:
		return MAD_GETMULTIRESP;
	case MAD_DELETE:
		return MAD_DELETERESP;
	}
	return (uint8_t)(method | 0x80);
}

/* The request's header (and, for errors, its data) turned into a reply
 * header: response method, status, SM_Key 0, RMPP header cleared. */
static void
reply_header(uint8_t *m, const uint8_t *req, size_t copy, uint8_t method,
    unsigned status)
{
	memcpy(m, req, copy);
	mad_set_method(m, resp_method(method));
	mad_set_field(m, 0, IB_MAD_STATUS_F, status);
	mad_set_field64(m, 0, IB_SA_MKEY_F, 0);
	memset(m + 24, 0, 12);          /* RMPP header */
	mad_set_field(m, 0, IB_SA_ATTROFFS_F, 0);
}

/* An error reply: the request's record comes back, as OpenSM does, or
 * rec (rec_size bytes, at most one MAD's data) when the handler gave one. */
static void
send_error(struct sa *sa, const struct transport_rx *rx, uint8_t method,
    unsigned status, const uint8_t *rec, size_t rec_size)
{
	uint8_t m[TRANSPORT_MAD_SIZE];

	reply_header(m, rx->mad, TRANSPORT_MAD_SIZE, method, status);
	if (rec != NULL) {
		if (rec_size > SA_DATA_SIZE)
			rec_size = SA_DATA_SIZE;
		memset(m + SA_HDR_SIZE, 0, SA_DATA_SIZE);
		memcpy(m + SA_HDR_SIZE, rec, rec_size);
	}
	sa->st.errors++;
	send_reply(sa, rx, m, sizeof(m));
}

static void
send_records(struct sa *sa, const struct transport_rx *rx,
    const struct sa_req *q, const struct sa_attr *a, const struct sa_out *out)
{
	size_t data = out->n * (size_t)a->rec_size;
	size_t len = SA_HDR_SIZE + data;
	bool rmpp = q->method == MAD_GETTABLE || q->method == MAD_GETMULTI;
	uint8_t *m;

	/* A table goes out at its exact length: the kernel's RMPP (and a
	 * client counting records) takes the payload length from it, so
	 * padding would read as extra zero records. One MAD otherwise. */
	if (!rmpp)
		len = TRANSPORT_MAD_SIZE;       /* one record at most */
	m = xcalloc(1, len > TRANSPORT_MAD_SIZE ? len : TRANSPORT_MAD_SIZE);
	reply_header(m, rx->mad, SA_HDR_SIZE, q->method, SA_STATUS_OK);
	if (out->n > 0 && a->id != SA_ATTR_CLASS_PORT_INFO)
		mad_set_field(m, 0, IB_SA_ATTROFFS_F, a->rec_size / 8);
	if (q->method == MAD_GETMULTI && a->id == SA_ATTR_MULTIPATH_REC)
		mad_set_field(m, 0, IB_MAD_ATTRID_F, SA_ATTR_PATH_REC);
	if (rmpp) {
		/* Written whole: the kernel's RMPP segments it (and rewrites
		 * PayloadLength per segment); the length here is the whole
		 * payload after the RMPP header, for a single segment. */
		mad_set_field(m, 0, IB_SA_RMPP_VERS_F, RMPP_VERSION);
		mad_set_field(m, 0, IB_SA_RMPP_TYPE_F, RMPP_TYPE_DATA);
		mad_set_field(m, 0, IB_SA_RMPP_FLAGS_F, RMPP_FLAG_ACTIVE);
		mad_set_field(m, 0, IB_SA_RMPP_LEN_F,
		    (uint32_t)(SA_HDR_SIZE - 36 + data));
	}
	if (data > 0)
		memcpy(m + SA_HDR_SIZE, out->recs, data);
	send_reply(sa, rx, m, len);
	free(m);
}

/* Which handler serves method on a; NULL: the request is dropped. */
static sa_handler_fn
handler_of(const struct sa_attr *a, uint8_t method)
{
	switch (method) {
	case MAD_GET:
	case MAD_GETTABLE:
		return a->get;
	case MAD_GETMULTI:
		return a->id == SA_ATTR_MULTIPATH_REC ? a->get : NULL;
	case MAD_SET:
		return a->set;
	case MAD_DELETE:
		return a->del;
	}
	return NULL;
}

/* Whether some attribute is served with method. */
static bool
method_served(uint8_t method)
{
	return method == MAD_GET || method == MAD_SET ||
	    method == MAD_GETTABLE || method == MAD_GETMULTI ||
	    method == MAD_DELETE;
}

/*
 * The end port a request comes from: the one its SLID names, but a vport
 * that answers to a LID not its own (its PF's) is told by the SGID of the
 * GRH its request carries: a VM's requests are scoped by its own P_Key
 * table, not the hypervisor's (which holds none of its tenants' keys).
 * Only a vport answering to that very LID is taken, so an SGID cannot
 * borrow another host's VM.
 */
static uint32_t
requester_of(const struct sa_view *v, const struct transport_addr *from)
{
	uint32_t e = sa_end_by_lid(v, from->lid), i;

	if (e == FABRIC_NONE || !from->grh || v->vports == NULL)
		return e;
	i = vport_by_guid(v->vports, sa_gid_guid(from->gid));
	if (i == FABRIC_NONE || v->vports->v[i].index == 0 ||
	    v->vports->v[i].lid != from->lid ||
	    v->vports->v[i].port != sa_end_phys(v, e))
		return e;
	return v->f->nports + i;
}

static size_t
attr_index(uint16_t id)
{
	size_t i;

	for (i = 0; sa_attrs[i] != NULL; i++)
		if (sa_attrs[i]->id == id)
			return i;
	return SIZE_MAX;
}

void
sa_dispatch(struct sa *sa, const struct transport_rx *rx)
{
	const uint8_t *mad = rx->mad;
	struct sa_req q;
	struct sa_out out;
	struct sa_ctx c;
	const struct sa_attr *a;
	sa_handler_fn fn;
	uint64_t key;
	uint8_t *rec;
	size_t ai, reclen;
	unsigned status;
	double t0 = ev_time(), dt;

	sa->st.requests++;
	if (mad == NULL || rx->len < SA_HDR_SIZE ||
	    mad[0] != MAD_BASE_VERSION || mad[1] != MGMT_CLASS_SA) {
		sa->st.malformed++;
		return;
	}
	memset(&q, 0, sizeof(q));
	q.method = mad_method_of(mad);
	q.attr = (uint16_t)field32(mad, IB_MAD_ATTRID_F);
	if (mad[2] != SA_CLASS_VERSION) {
		/* The engine drops versions no agent registered; this is for
		 * a transport that lets them through. */
		sa->st.malformed++;
		if (rx->len >= TRANSPORT_MAD_SIZE)
			send_error(sa, rx, q.method, SA_STATUS_BAD_VERSION,
			    NULL, 0);
		return;
	}
	if (!sa->serving || !sa->have_view) {
		sa->st.not_serving++;
		return;
	}
	key = field(mad, IB_SA_MKEY_F);
	if (key != 0 && key != sa->o.sa_key) {
		sa->st.bad_key++;
		log_debug("sa: lid %u: wrong SM_Key, dropped", rx->from.lid);
		return;
	}
	if ((ai = attr_index(q.attr)) == SIZE_MAX ||
	    (fn = handler_of(a = sa_attrs[ai], q.method)) == NULL) {
		/* Answered at once, never left to the requester's timeout
		 * (OpenSM drops some of these): a method the SA serves for
		 * no attribute, or this attribute not with this method. */
		status = method_served(q.method) ?
		    SA_STATUS_METHOD_ATTR_UNSUPP : SA_STATUS_METHOD_UNSUPP;
		sa->st.unsupported++;
		log_debug("sa: %s %s from lid %u: not served, status 0x%04x",
		    mad_method_name(q.method),
		    mad_attr_name(MGMT_CLASS_SA, q.attr), rx->from.lid, status);
		if (rx->len >= TRANSPORT_MAD_SIZE)
			send_error(sa, rx, q.method, status, NULL, 0);
		return;
	}
	q.attr_mod = field32(mad, IB_MAD_ATTRMOD_F);
	q.comp_mask = field(mad, IB_SA_COMPMASK_F);
	/* As OpenSM: the key equal to sa_key is trusted, 0 included (with
	 * sa_key 0, every request is). */
	q.trusted = key == sa->o.sa_key;
	/* Keys are shown only for a secret sa_key: 0 and 1 (OpenSM's
	 * default) are every host's, and would hand any host the M_Key of
	 * every port (issue 29). */
	q.keys = q.trusted && sa->o.sa_key > 1;
	q.mad = mad;
	q.len = rx->len;
	q.from = rx->from;
	q.requester = requester_of(&sa->view, &rx->from);
	/* The record, zero-padded to its size (and a GetMulti's whole data). */
	reclen = rx->len - SA_HDR_SIZE;
	rec = xcalloc(1, reclen > a->rec_size ? reclen : a->rec_size);
	memcpy(rec, mad + SA_HDR_SIZE, reclen);
	q.rec = rec;

	c.sa = sa;
	c.v = &sa->view;
	c.o = &sa->o;
	c.now = ev_now(sa->loop);
	c.state = sa->state[ai];
	sa_out_init(&out, a->rec_size, q.method == MAD_GET ? 2 :
	    q.method == MAD_SET || q.method == MAD_DELETE ? 1 : 0);
	status = fn(&c, &q, &out);
	if (status == SA_STATUS_OK && q.method == MAD_GET)
		status = out.n == 0 ? SA_STATUS_NO_RECORDS :
		    out.n > 1 ? SA_STATUS_TOO_MANY_RECORDS : SA_STATUS_OK;
	if (status == SA_STATUS_DROP)
		sa->st.dropped++;
	else if (status != SA_STATUS_OK)
		/* A Get, Set or Delete handler that failed with one record
		 * has it sent (InformInfo: Subscribe 0, o13-13.1.1); tables
		 * never carry their partial records. */
		send_error(sa, rx, q.method, status,
		    out.n == 1 && q.method != MAD_GETTABLE &&
		    q.method != MAD_GETMULTI ? out.recs : NULL, a->rec_size);
	else
		send_records(sa, rx, &q, a, &out);
	sa_out_fini(&out);
	free(rec);
	dt = ev_time() - t0;
	if (dt > sa->answer_max)
		sa->answer_max = dt;
}

static void
on_request(void *arg, const struct transport_rx *rx)
{
	sa_dispatch(arg, rx);
}

int
sa_start(struct sa *sa)
{
	struct transport_agent ag = { .mgmt_class = MGMT_CLASS_SA,
	    .class_version = SA_CLASS_VERSION, .rmpp = true };
	size_t i;

	for (i = 0; i < sizeof(sa_methods); i++)
		transport_agent_method(&ag, sa_methods[i]);
	if (mad_register(sa->mad, &ag) < 0) {
		log_warnx("sa: cannot register the SA agent (class 0x03 "
		    "version 2)");
		return -1;
	}
	for (i = 0; i < sizeof(sa_methods); i++)
		if (mad_listen(sa->mad, MGMT_CLASS_SA, sa_methods[i],
		    MAD_ATTR_ANY, on_request, sa) < 0)
			return -1;
	sa->started = true;
	return 0;
}
