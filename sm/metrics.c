/*
 * Prometheus' GET /metrics: see sm/metrics.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* open_memstream */
#endif
#include "autoconfig.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ev.h>
#include <microhttpd.h>

#include "config/config.h"
#include "core/alloc.h"
#include "core/fabric.h"
#include "core/log.h"
#include "core/pcounter.h"
#include "core/query.h"
#include "sm/ctl.h"
#include "sm/metrics.h"
#include "sm/perfmgr.h"
#include "sm/smstate.h"
#include "sm/sweep.h"

/* libmicrohttpd is loaded when metrics_listen asks for it, not linked: a
 * daemon without metrics does not pay for it and its TLS libraries at
 * start (about 8 ms of CPU and 2.5 MiB of RSS here). Its stable soname;
 * the functions used, looked up once. */
#define MHD_LIB "libmicrohttpd.so.12"
#define MHD_FUNCS(X) X(start_daemon) X(stop_daemon) X(get_daemon_info) \
	X(run) X(get_timeout) X(create_response_from_buffer) \
	X(add_response_header) X(queue_response) X(destroy_response)
#define MHD_PTR(name) __typeof__(MHD_##name) *name;
static struct {
	bool tried, ok;
	MHD_FUNCS(MHD_PTR)
} mhd;

/* true when mhd's functions can be called */
static bool
mhd_load(void)
{
	void *h;

	if (mhd.tried)
		return mhd.ok;
	mhd.tried = true;
	if ((h = dlopen(MHD_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		log_warnx("metrics: cannot load %s (%s): install libmicrohttpd "
		    "(Debian: libmicrohttpd12)", MHD_LIB, dlerror());
		return false;
	}
#define MHD_SYM(name) \
	if ((*(void **)&mhd.name = dlsym(h, "MHD_" #name)) == NULL) { \
		log_warnx("metrics: %s has no MHD_%s", MHD_LIB, #name); \
		return false; \
	}
	MHD_FUNCS(MHD_SYM)
#undef MHD_SYM
	mhd.ok = true;
	return true;
}

struct metrics {
	struct ev_loop *loop;
	struct MHD_Daemon *mhd;
	const struct ctl_deps *deps;
	ev_io io;               /* MHD's epoll descriptor */
	ev_timer timer;         /* MHD's next timeout */
	uint64_t scrapes;
};

/* ---------------------------------------------------------- the body */

/* A label value in the exposition format: \, " and newline escaped. */
static void
put_label(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', fp);
		if (*s == '\n')
			fputs("\\n", fp);
		else
			fputc(*s, fp);
	}
}

static void
help(FILE *fp, const char *name, const char *type, const char *text)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

struct port_rows {
	const struct fabric *f;
	FILE *fp;
	bool sw;                /* this pass: switches, else CAs */
	unsigned id;            /* the counter of this pass */
	bool any;
};

static void
counter_row(void *arg, const struct perfmgr_port *p)
{
	struct port_rows *r = arg;
	const struct pcounter *c = &p->pc->c[r->id];
	uint64_t v = c->total;

	if (p->sw != r->sw || p->port == 0 || !c->valid)
		return;
	if (r->id == PC_XMIT_DATA || r->id == PC_RCV_DATA)
		v *= 4;         /* the counters count 4-byte words */
	fprintf(r->fp, "infiniband_%s_%s{guid=\"0x%016" PRIx64 "\",port=\""
	    "%u\"} %" PRIu64 "\n", r->sw ? "switch" : "hca",
	    pcounter_info(r->id)->metric, p->guid, p->port, v);
}

static void
has_rows(void *arg, const struct perfmgr_port *p)
{
	struct port_rows *r = arg;

	if (p->sw == r->sw && p->port != 0 && p->pc->c[r->id].valid)
		r->any = true;
}

static void
counters(FILE *fp, const struct perfmgr *pm, bool sw)
{
	char name[128], text[128];
	struct port_rows r = { .fp = fp, .sw = sw };

	for (r.id = 0; r.id < PC_NCOUNTERS; r.id++) {
		r.any = false;
		perfmgr_foreach(pm, has_rows, &r);
		if (!r.any)
			continue;
		snprintf(name, sizeof(name), "infiniband_%s_%s",
		    sw ? "switch" : "hca", pcounter_info(r.id)->metric);
		snprintf(text, sizeof(text), "Infiniband %s port %s",
		    sw ? "switch" : "HCA", pcounter_info(r.id)->name);
		help(fp, name, "counter", text);
		perfmgr_foreach(pm, counter_row, &r);
	}
}

/* infiniband_{switch,hca}_info and _uplink_info from the model in use. */
static void
infos(FILE *fp, const struct fabric *f, bool sw)
{
	const char *kind = sw ? "switch" : "hca";
	char name[200], peer[200], metric[64];
	uint32_t n, p, q;

	snprintf(metric, sizeof(metric), "infiniband_%s_info", kind);
	help(fp, metric, "gauge", sw ? "Infiniband switch information" :
	    "Infiniband HCA information");
	for (n = 0; n < f->nnodes; n++) {
		const struct fabric_node *fn = &f->nodes[n];
		uint32_t ep = query_node_endport(f, n);

		if ((fn->type == NODE_SWITCH) != sw || fn->nports == 0)
			continue;
		fprintf(fp, "%s{guid=\"0x%016" PRIx64 "\",%s=\"", metric,
		    fn->guid, kind);
		put_label(fp, query_node_name(f, n, name, sizeof(name)));
		fprintf(fp, "\",lid=\"%u\"} 1\n", ep == FABRIC_NONE ? 0 :
		    f->ports[ep].lid);
	}
	snprintf(metric, sizeof(metric), "infiniband_%s_uplink_info", kind);
	help(fp, metric, "gauge", sw ? "Infiniband switch uplink information" :
	    "Infiniband HCA uplink information");
	for (n = 0; n < f->nnodes; n++) {
		const struct fabric_node *fn = &f->nodes[n];

		if ((fn->type == NODE_SWITCH) != sw)
			continue;
		for (p = 1; p <= fn->nports; p++) {
			const struct fabric_node *qn;
			uint32_t qe;

			if ((q = f->ports[fn->port0 + p].peer) == FABRIC_NONE)
				continue;
			qn = &f->nodes[f->ports[q].node];
			qe = query_node_endport(f, f->ports[q].node);
			fprintf(fp, "%s{guid=\"0x%016" PRIx64 "\",port=\"%u\","
			    "%s=\"", metric, fn->guid, p, kind);
			put_label(fp, query_node_name(f, n, name,
			    sizeof(name)));
			fputs("\",uplink=\"", fp);
			put_label(fp, query_node_name(f, f->ports[q].node, peer,
			    sizeof(peer)));
			fprintf(fp, "\",uplink_guid=\"0x%016" PRIx64 "\","
			    "uplink_type=\"%s\",uplink_port=\"%u\","
			    "uplink_lid=\"%u\"} 1\n", qn->guid,
			    qn->type == NODE_SWITCH ? "SW" : "CA",
			    f->ports[q].num, qe == FABRIC_NONE ? 0 :
			    f->ports[qe].lid);
		}
	}
}

/* The SA's requests by outcome (by attribute: ibsmd_mads_*_total). */
static void
sa_series(FILE *fp, const struct sa_stats *sa)
{
	help(fp, "ibsmd_sa_requests_total", "counter", "SA requests "
	    "received");
	fprintf(fp, "ibsmd_sa_requests_total %" PRIu64 "\n", sa->requests);
	help(fp, "ibsmd_sa_answers_total", "counter", "SA answers sent, by "
	    "status: success, unsupported (0x0008, 0x000C), other errors");
	fprintf(fp, "ibsmd_sa_answers_total{status=\"success\"} %" PRIu64
	    "\n", sa->answered - sa->errors);
	fprintf(fp, "ibsmd_sa_answers_total{status=\"unsupported\"} %"
	    PRIu64 "\n", sa->unsupported);
	fprintf(fp, "ibsmd_sa_answers_total{status=\"error\"} %" PRIu64
	    "\n", sa->errors > sa->unsupported ? sa->errors - sa->unsupported :
	    0);
	help(fp, "ibsmd_sa_answers_by_attribute_total", "counter", "SA "
	    "answers sent, by attribute and MAD status (0x0000: success)");
	for (unsigned i = 0; i < sa->nanswers; i++)
		fprintf(fp, "ibsmd_sa_answers_by_attribute_total{attribute="
		    "\"%s\",status=\"0x%04x\"} %" PRIu64 "\n",
		    mad_attr_name(MGMT_CLASS_SA, sa->answers[i].attr),
		    sa->answers[i].status, sa->answers[i].n);
	if (sa->answers_other > 0)
		fprintf(fp, "ibsmd_sa_answers_by_attribute_total{attribute="
		    "\"other\",status=\"other\"} %" PRIu64 "\n",
		    sa->answers_other);
	help(fp, "ibsmd_sa_dropped_total", "counter", "SA requests dropped "
	    "unanswered, by reason");
	fprintf(fp, "ibsmd_sa_dropped_total{reason=\"not_serving\"} %" PRIu64
	    "\n", sa->not_serving);
	fprintf(fp, "ibsmd_sa_dropped_total{reason=\"bad_key\"} %" PRIu64
	    "\n", sa->bad_key);
	fprintf(fp, "ibsmd_sa_dropped_total{reason=\"malformed\"} %" PRIu64
	    "\n", sa->malformed);
	fprintf(fp, "ibsmd_sa_dropped_total{reason=\"handler\"} %" PRIu64
	    "\n", sa->dropped);
}

/* The SM's own series. */
static void
sm_series(FILE *fp, const struct ctl_status *cs)
{
	const struct show_status *st = &cs->st;
	const struct sweep_status *sw = &cs->sw;

	help(fp, "ibsmd_master", "gauge", "1 when this SM is the master");
	fprintf(fp, "ibsmd_master %d\n", strcmp(st->sm_state, "MASTER") == 0);
	help(fp, "ibsmd_sm_state", "gauge", "The SM state (SMInfo's), as a "
	    "label");
	fprintf(fp, "ibsmd_sm_state{state=\"%s\"} 1\n", st->sm_state);
	help(fp, "ibsmd_subnet_up", "gauge", "1 when this SM brought the "
	    "subnet up as master");
	fprintf(fp, "ibsmd_subnet_up %d\n", sw->subnet_up);
	help(fp, "ibsmd_sweeps_total", "counter", "Sweeps by kind");
	fprintf(fp, "ibsmd_sweeps_total{kind=\"heavy\"} %" PRIu64 "\n",
	    sw->heavy_sweeps);
	fprintf(fp, "ibsmd_sweeps_total{kind=\"light\"} %" PRIu64 "\n",
	    sw->light_sweeps);
	help(fp, "ibsmd_last_sweep_duration_seconds", "gauge", "Duration of "
	    "the last sweep");
	fprintf(fp, "ibsmd_last_sweep_duration_seconds %.6f\n",
	    sw->last_seconds);
	if (st->report != NULL) {
		help(fp, "ibsmd_unreachable_pairs", "gauge", "(switch, LID) "
		    "pairs the routes in use leave without a route");
		fprintf(fp, "ibsmd_unreachable_pairs %" PRIu64 "\n",
		    st->report->unreachable);
	}
	help(fp, "ibsmd_mads_sent_total", "counter", "MADs sent (retries "
	    "included), by class, method and attribute");
	for (size_t i = 0; i < st->ncounters; i++)
		if (st->counters[i].c.sent > 0)
			fprintf(fp, "ibsmd_mads_sent_total{class=\"%s\","
			    "method=\"%s\",attribute=\"%s\"} %" PRIu64 "\n",
			    st->counters[i].cls, st->counters[i].method,
			    st->counters[i].attr, st->counters[i].c.sent);
	help(fp, "ibsmd_mads_received_total", "counter", "Responses matched "
	    "and requests received, by class, method and attribute");
	for (size_t i = 0; i < st->ncounters; i++)
		if (st->counters[i].c.recv > 0)
			fprintf(fp, "ibsmd_mads_received_total{class=\"%s\","
			    "method=\"%s\",attribute=\"%s\"} %" PRIu64 "\n",
			    st->counters[i].cls, st->counters[i].method,
			    st->counters[i].attr, st->counters[i].c.recv);
	if (st->sa != NULL)
		sa_series(fp, st->sa);
	if (st->perfmgr != NULL) {
		help(fp, "ibsmd_perfmgr_rounds_total", "counter", "Rounds of "
		    "port counter reads completed");
		fprintf(fp, "ibsmd_perfmgr_rounds_total %" PRIu64 "\n",
		    st->perfmgr->rounds);
		help(fp, "ibsmd_perfmgr_read_failures_total", "counter",
		    "Port counter reads without an answer or with an error");
		fprintf(fp, "ibsmd_perfmgr_read_failures_total %" PRIu64 "\n",
		    st->perfmgr->failed);
	}
}

void
metrics_render(FILE *fp, const struct ctl_deps *deps)
{
	struct ctl_status cs;
	const struct fabric *f = sweep_fabric(deps->sweep);

	ctl_status_get(deps, &cs);
	if (deps->perfmgr != NULL) {
		counters(fp, deps->perfmgr, true);
		counters(fp, deps->perfmgr, false);
	}
	if (f != NULL) {
		infos(fp, f, true);
		infos(fp, f, false);
	}
	sm_series(fp, &cs);
	ctl_status_free(&cs);
}

/* ------------------------------------------------------ the server */

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **con_cls)
{
	struct metrics *m = cls;
	struct MHD_Response *r;
	unsigned code = MHD_HTTP_OK;
	enum MHD_Result ret;
	char *body = NULL;
	size_t len = 0;
	FILE *fp;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		body = xstrdup("only GET\n");
	} else if (strcmp(url, "/metrics") != 0) {
		code = MHD_HTTP_NOT_FOUND;
		body = xstrdup("see /metrics\n");
	} else {
		if ((fp = open_memstream(&body, &len)) == NULL)
			fatal("metrics: open_memstream");
		metrics_render(fp, m->deps);
		if (fclose(fp) != 0)
			fatal("metrics: rendering");
		m->scrapes++;
	}
	len = strlen(body);
	r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	(void)mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    code == MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8" :
	    "text/plain");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		(void)mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

/* MHD's work, then its next deadline on the timer. */
static void
run(struct metrics *m)
{
	MHD_UNSIGNED_LONG_LONG ms;

	(void)mhd.run(m->mhd);
	ev_timer_stop(m->loop, &m->timer);
	if (mhd.get_timeout(m->mhd, &ms) == MHD_YES) {
		ev_timer_set(&m->timer, (double)ms / 1000.0, 0.);
		ev_timer_start(m->loop, &m->timer);
	}
}

static void
on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	run(w->data);
}

static void
on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	run(w->data);
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[256];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("metrics: %s", buf);
}

/* A listening socket for HOST:PORT (non-blocking), or -1 logged. */
static int
listen_on(const char *spec)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	char host[256], port[8];
	const char *why;
	unsigned p;
	int fd = -1, one = 1, e;

	if (config_hostport(spec, host, sizeof(host), &p, &why) < 0) {
		log_warnx("metrics: %s: %s", spec, why);
		return -1;
	}
	snprintf(port, sizeof(port), "%u", p);
	if ((e = getaddrinfo(host[0] ? host : NULL, port, &hints, &res)) !=
	    0) {
		log_warnx("metrics: %s: %s", spec, gai_strerror(e));
		return -1;
	}
	for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
		    listen(fd, 16) < 0) {
			e = errno;
			close(fd);
			fd = -1;
			errno = e;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		log_warn("metrics: cannot listen on %s", spec);
	return fd;
}

struct metrics *
metrics_open(struct ev_loop *loop, const char *spec,
    const struct ctl_deps *deps)
{
	struct metrics *m;
	const union MHD_DaemonInfo *info;
	int fd;

	if (!mhd_load() || (fd = listen_on(spec)) < 0)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	m->loop = loop;
	m->deps = deps;
	m->mhd = mhd.start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0,
	    NULL, NULL, answer, m,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_CONN_TIMEOUT,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONN_LIMIT,
	    MHD_OPTION_END);
	if (m->mhd == NULL ||
	    (info = mhd.get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD)) ==
	    NULL) {
		log_warnx("metrics: libmicrohttpd would not start on %s", spec);
		if (m->mhd != NULL)
			mhd.stop_daemon(m->mhd);        /* closes fd */
		else
			close(fd);
		free(m);
		return NULL;
	}
	ev_io_init(&m->io, on_io, info->epoll_fd, EV_READ);
	m->io.data = m;
	ev_io_start(loop, &m->io);
	ev_init(&m->timer, on_timer);
	m->timer.data = m;
	log_info("metrics: serving GET /metrics on %s", spec);
	return m;
}

void
metrics_close(struct metrics *m)
{
	if (m == NULL)
		return;
	ev_io_stop(m->loop, &m->io);
	ev_timer_stop(m->loop, &m->timer);
	mhd.stop_daemon(m->mhd);        /* closes the listening socket */
	free(m);
}
