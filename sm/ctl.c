/*
 * The control socket (see ctl.h for the protocol). Everything is
 * non-blocking on the daemon's loop: the listening socket and every client
 * have an ev_io; a client has CTL_REQ_TIMEOUT seconds to send its line
 * (at most CTL_REQ_MAX bytes), the whole answer is built at once (the
 * sweep's views are only valid until the loop runs again; show.c,
 * show_sa.c and stats.c render them, ctl.c renders nothing) and written
 * as the client reads it, with CTL_WRITE_TIMEOUT seconds of inactivity
 * allowed. Nothing a client sends can stop the daemon.
 */
#include "autoconfig.h"

#include "sm/ctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <ev.h>

#include "ctl/commands.h"
#include "sa/inform.h"
#include "sa/service.h"
#include "sm/mcast.h"
#include "sm/perfmgr.h"
#include "sm/mkeys.h"
#include "sm/show_perf.h"
#include "core/alias.h"
#include "core/log.h"
#include "mad/mad.h"
#include "sa/sa.h"
#include "sm/show.h"
#include "sm/show_sa.h"
#include "sm/sminfo.h"
#include "sm/smstate.h"
#include "sm/sweep.h"
#include "sm/vfguid.h"

#define CTL_REQ_MAX        4096 /* bytes of one request line */
#define CTL_MAX_ARGS       8    /* words of a request, mode included */
#define CTL_MAX_CLIENTS    64   /* connections served at once; when full,
				 * the oldest one still sending its request
				 * makes room for the new one */
#define CTL_REQ_TIMEOUT    5.0  /* seconds to send the request */
#define CTL_WRITE_TIMEOUT  10.0 /* seconds without progress in the answer */
#define CTL_ACCEPT_BURST   16   /* accepts per wake-up */

struct ctl_conn {
	LIST_ENTRY(ctl_conn) entry;
	struct ctl *c;
	int fd;
	ev_io io;
	ev_timer timer;
	bool writing;
	size_t reqlen;
	char req[CTL_REQ_MAX + 1];
	char *out;              /* the answer */
	size_t outlen, off;     /* its length, bytes already written */
};

struct ctl {
	struct ev_loop *loop;
	struct ctl_deps d;
	char *path;
	int fd;
	ev_io io;
	ev_timer pause;         /* accept paused after EMFILE and the like */
	LIST_HEAD(, ctl_conn) conns;
	unsigned nconns;
};

/* ------------------------------------------------------------ views */

static int
need_fabric(struct ctl *c, struct show *s, const struct fabric **f,
    const struct lft_set **lft)
{
	*f = sweep_fabric(c->d.sweep);
	*lft = sweep_lft(c->d.sweep);
	if (*f == NULL || *lft == NULL)
		return show_error(s, "no fabric yet: no heavy sweep has "
		    "completed");
	return 0;
}

struct counters {
	struct show_counter *v;
	size_t n, cap;
};

static void
add_counter(void *arg, uint8_t mgmt_class, uint8_t method, uint16_t attr,
    const struct mad_counter *m)
{
	struct counters *k = arg;
	struct show_counter *sc;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 32;
		if ((k->v = realloc(k->v, k->cap * sizeof(*k->v))) == NULL)
			fatal("ctl: counters");
	}
	sc = &k->v[k->n++];
	snprintf(sc->cls, sizeof(sc->cls), "%s", mad_class_name(mgmt_class));
	snprintf(sc->method, sizeof(sc->method), "%s",
	    mad_method_name(method));
	snprintf(sc->attr, sizeof(sc->attr), "%s",
	    mad_attr_name(mgmt_class, attr));
	sc->c = *m;
}

void
ctl_status_get(const struct ctl_deps *d, struct ctl_status *cs)
{
	struct counters k = { 0 };
	struct timespec ts;

	memset(cs, 0, sizeof(*cs));
	clock_gettime(CLOCK_REALTIME, &ts);
	cs->st = (struct show_status){
		.version = PACKAGE_VERSION,
		.sm_state = smstate_name(smstate_state(d->ss)),
		.port_guid = d->port_guid,
		.priority = smstate_priority(d->ss),
		.sm = &cs->ss,
		.sminfo = &cs->ic,
		.log_level = log_level_name(log_get_level()),
		.traps = sminfo_traps(d->sm),
		.sweep = &cs->sw,
		.fabric = sweep_fabric(d->sweep),
		.report = sweep_report(d->sweep),
		.mad_sent = mad_total_sent(d->mad),
		.mad_unmatched = mad_dropped_unmatched(d->mad),
		.mad_malformed = mad_dropped_malformed(d->mad),
		.mad_outstanding = mad_outstanding(d->mad),
		.mad_queued = mad_queued(d->mad),
		.mad_unhandled = mad_dropped_unhandled(d->mad),
		.mad_max_queued = mad_max_queued(d->mad),
		.mad_mean_in_flight = mad_mean_in_flight(d->mad),
		.vprog = &cs->vr,
		.now = (double)ts.tv_sec + ts.tv_nsec / 1e9,
	};
	sweep_get_status(d->sweep, &cs->sw);
	smstate_get_status(d->ss, &cs->ss);
	sminfo_get_counters(d->sm, &cs->ic);
	mad_counters_foreach(d->mad, add_counter, &k);
	sweep_vport_stats(d->sweep, &cs->vr);
	if (d->sa != NULL) {
		sa_get_stats(d->sa, &cs->sas);
		cs->st.sa = &cs->sas;
		cs->st.sa_serving = sa_is_serving(d->sa);
		sa_mcmember_stats(d->sa, &cs->mcm);
		cs->st.mcm = &cs->mcm;
	}
	if (d->vg != NULL) {
		vfguid_get_stats(d->vg, &cs->vs);
		cs->st.vfguid = &cs->vs;
	}
	cs->counters = k.v;
	cs->st.counters = k.v;
	cs->st.ncounters = k.n;
	if (d->mcast != NULL) {
		sm_mcast_get_stats(d->mcast, &cs->mcs);
		cs->st.mcast = &cs->mcs;
	}
	if (d->perfmgr != NULL) {
		perfmgr_get_stats(d->perfmgr, &cs->pms);
		cs->st.perfmgr = &cs->pms;
	}
	if (d->mkeys != NULL) {
		mkeys_stats(d->mkeys, &cs->mks);
		cs->st.mkeys = &cs->mks;
	}
	if (d->note != NULL)
		cs->st.note = d->note(d->arg);
}

void
ctl_status_free(struct ctl_status *cs)
{
	free(cs->counters);
	cs->counters = NULL;
}

static int
cmd_status(struct ctl *c, struct show *s, int argc, char **argv)
{
	struct ctl_status cs;

	(void)argc;
	(void)argv;
	ctl_status_get(&c->d, &cs);
	show_status(s, &cs.st);
	ctl_status_free(&cs);
	return 0;
}

static int
cmd_nodes(struct ctl *c, struct show *s, int argc, char **argv)
{
	const struct fabric *f;
	const struct lft_set *lft;

	if (need_fabric(c, s, &f, &lft) < 0)
		return -1;
	return show_nodes_filter(s, f, argc > 1 ? argv[1] : NULL);
}

static int
cmd_ports(struct ctl *c, struct show *s, int argc, char **argv)
{
	const struct fabric *f;
	const struct lft_set *lft;

	(void)argc;
	if (need_fabric(c, s, &f, &lft) < 0)
		return -1;
	return show_ports_pkeys(s, f, sweep_pkeys(c->d.sweep), argv[1]);
}

static int
cmd_route(struct ctl *c, struct show *s, int argc, char **argv)
{
	const struct fabric *f;
	const struct lft_set *lft;

	(void)argc;
	if (need_fabric(c, s, &f, &lft) < 0)
		return -1;
	return show_route(s, f, lft, argv[1], argv[2]);
}

/* guids, or guids forget PORT-GUID INDEX */
static int
cmd_guids(struct ctl *c, struct show *s, int argc, char **argv)
{
	unsigned long long port, index;
	uint64_t was;
	char *end;
	int r;

	if (argc == 1) {
		show_guids(s, sweep_fabric(c->d.sweep),
		    c->d.vg != NULL ? vfguid_store(c->d.vg) : NULL);
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "forget") != 0) {
		return show_error(s, "usage: guids [forget PORT-GUID INDEX]");
	}
	errno = 0;
	port = strtoull(argv[2], &end, 0);
	if (errno || *end != '\0' || port == 0) {
		return show_error(s, "bad port GUID '%s'", argv[2]);
	}
	index = strtoull(argv[3], &end, 0);
	if (errno || *end != '\0' || index == 0 || index >= ALIAS_MAX_INDEX) {
		return show_error(s, "bad index '%s' (1 to %u)", argv[3],
		    ALIAS_MAX_INDEX - 1);
	}
	if (c->d.vg == NULL) {
		return show_error(s, "no alias GUIDs");
	}
	r = vfguid_forget(c->d.vg, port, (unsigned)index, &was);
	if (r == -2) {
		return show_error(s, "port 0x%016llx index %llu: its alias "
		    "GUID is active; the host must release it (GUIDInfoRecord "
		    "Delete) first", port, index);
	}
	if (r < 0) {
		return show_error(s, "port 0x%016llx index %llu: no alias GUID "
		    "saved", port, index);
	}
	show_guid_forgotten(s, port, (unsigned)index, was);
	return 0;
}

/* ------------------------------------------------------------ actions */

static int
cmd_partitions(struct ctl *c, struct show *s, int argc, char **argv)
{
	char *text;

	(void)argc;
	(void)argv;
	text = c->d.partitions(c->d.arg);
	show_partitions(s, c->d.policy ? c->d.policy(c->d.arg) : NULL,
	    sweep_fabric(c->d.sweep), text);
	free(text);
	return 0;
}

static int
cmd_reload(struct ctl *c, struct show *s, int argc, char **argv)
{
	char *errors = NULL;
	size_t n;

	(void)argc;
	(void)argv;
	log_info("ctl: reload requested");
	if (c->d.reload(c->d.arg, &errors) < 0) {
		/* the summary line, then the errors one per line */
		show_error(s, "reload: rejected; the running configuration is "
		    "unchanged");
		n = errors ? strlen(errors) : 0;
		while (n > 0 && errors[n - 1] == '\n')
			n--;
		if (n > 0)
			show_error(s, "\n%.*s", (int)n, errors);
		free(errors);
		return -1;
	}
	free(errors);
	show_reloaded(s);
	return 0;
}

static int
cmd_sweep(struct ctl *c, struct show *s, int argc, char **argv)
{
	bool heavy = false;
	char buf[80];

	if (argc > 1 && (strcmp(argv[1], "off") == 0 ||
	    strcmp(argv[1], "on") == 0)) {
		bool off = strcmp(argv[1], "off") == 0;

		log_info("ctl: sweep %s", argv[1]);
		sweep_hold(c->d.sweep, off);
		show_sweeps_enabled(s, !off);
		return 0;
	}
	if (argc > 1) {
		if (strcmp(argv[1], "heavy") == 0)
			heavy = true;
		else if (strcmp(argv[1], "light") != 0)
			return show_error(s, "sweep: unknown argument '%s' "
			    "(heavy, light, off or on)", show_clean(argv[1],
			    buf, sizeof(buf)));
	}
	if (sweep_held(c->d.sweep))
		return show_error(s, "sweeps are off: ibsmctl sweep on first");
	log_info("ctl: %s sweep requested", heavy ? "heavy" : "light");
	sweep_request(c->d.sweep, heavy);
	show_requested(s, heavy ? "heavy" : "light");
	return 0;
}

static int
cmd_reroute(struct ctl *c, struct show *s, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (sweep_held(c->d.sweep))
		return show_error(s, "sweeps are off: ibsmctl sweep on first");
	log_info("ctl: full reroute requested");
	sweep_reroute(c->d.sweep);
	show_requested(s, "reroute");
	return 0;
}

static int
cmd_log_level(struct ctl *c, struct show *s, int argc, char **argv)
{
	enum log_level lvl, old = log_get_level();
	char buf[80];

	(void)c;
	(void)argc;
	if (log_level_parse(argv[1], &lvl) < 0)
		return show_error(s, "log-level: unknown level '%s' (error, "
		    "warn, info or debug)", show_clean(argv[1], buf,
		    sizeof(buf)));
	log_set_level(lvl);
	log_info("ctl: log level %s (was %s)", log_level_name(lvl),
	    log_level_name(old));
	show_log_level(s, log_level_name(lvl), log_level_name(old));
	return 0;
}

static int
cmd_mcast(struct ctl *c, struct show *s, int argc, char **argv)
{
	struct show_mcast v;

	(void)argc;
	(void)argv;
	if (c->d.mcast == NULL)
		return show_error(s, "no multicast in this daemon");
	sm_mcast_get_stats(c->d.mcast, &v.st);
	v.store = sm_mcast_store(c->d.mcast);
	v.trees = sm_mcast_trees(c->d.mcast, &v.f);
	show_mcast(s, &v);
	return 0;
}

/* vports per virtualization-capable port, as the last heavy sweep read
 * and programmed them. */
static int
cmd_vports(struct ctl *c, struct show *s, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	show_vports(s, sweep_fabric(c->d.sweep), sweep_vports(c->d.sweep));
	return 0;
}

/* The error counters the performance manager read (perfmgr). */
static int
cmd_errors(struct ctl *c, struct show *s, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (c->d.perfmgr == NULL)
		return show_error(s, "no performance manager in this daemon");
	show_errors(s, c->d.perfmgr, sweep_fabric(c->d.sweep));
	return 0;
}

/* The handlers of ctl/commands.h's table. */
struct svc_list {
	struct sa_service_info *v;
	size_t n, cap;
};

static void
add_service(void *arg, const struct sa_service_info *si)
{
	struct svc_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		if ((l->v = realloc(l->v, l->cap * sizeof(*l->v))) == NULL)
			fatal("ctl: services");
	}
	l->v[l->n++] = *si;
}

static int
cmd_services(struct ctl *c, struct show *s, int argc, char **argv)
{
	struct svc_list l = { 0 };

	(void)argc;
	(void)argv;
	if (c->d.sa == NULL)
		return show_error(s, "no Subnet Administration on this port");
	sa_services_foreach(c->d.sa, add_service, &l);
	show_services(s, l.v, l.n);
	free(l.v);
	return 0;
}

struct sub_list {
	struct sa_subscription_info *v;
	size_t n, cap;
};

static void
add_subscription(void *arg, const struct sa_subscription_info *si)
{
	struct sub_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		if ((l->v = realloc(l->v, l->cap * sizeof(*l->v))) == NULL)
			fatal("ctl: subscriptions");
	}
	l->v[l->n++] = *si;
}

static int
cmd_subscriptions(struct ctl *c, struct show *s, int argc, char **argv)
{
	struct sub_list l = { 0 };

	(void)argc;
	(void)argv;
	if (c->d.sa == NULL)
		return show_error(s, "no Subnet Administration on this port");
	sa_informs_foreach(c->d.sa, add_subscription, &l);
	show_subscriptions(s, l.v, l.n);
	free(l.v);
	return 0;
}

static int (*const handlers[CTL_NCMDS])(struct ctl *, struct show *, int,
    char **) = {
	[CTL_CMD_STATUS] = cmd_status,
	[CTL_CMD_NODES] = cmd_nodes,
	[CTL_CMD_PORTS] = cmd_ports,
	[CTL_CMD_ROUTE] = cmd_route,
	[CTL_CMD_PARTITIONS] = cmd_partitions,
	[CTL_CMD_SWEEP] = cmd_sweep,
	[CTL_CMD_RELOAD] = cmd_reload,
	[CTL_CMD_LOG_LEVEL] = cmd_log_level,
	[CTL_CMD_REROUTE] = cmd_reroute,
	[CTL_CMD_MCAST] = cmd_mcast,
	[CTL_CMD_SERVICES] = cmd_services,
	[CTL_CMD_SUBSCRIPTIONS] = cmd_subscriptions,
	[CTL_CMD_GUIDS] = cmd_guids,
	[CTL_CMD_VPORTS] = cmd_vports,
	[CTL_CMD_ERRORS] = cmd_errors,
};

/* ------------------------------------------------------------ parsing */

/* Split line in place into words: blanks separate, "..." quotes with \"
 * and \\ inside. Returns the number of words or -1 with a reason. */
static int
split(char *line, char **argv, int max, const char **why)
{
	char *s = line, *o;
	int argc = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return argc;
		if (argc == max) {
			*why = "too many words";
			return -1;
		}
		argv[argc++] = o = s;
		if (*s != '"') {
			while (*s != '\0' && *s != ' ' && *s != '\t')
				s++;
			if (*s != '\0')
				*s++ = '\0';
			continue;
		}
		for (s++;; s++) {
			if (*s == '\0') {
				*why = "unterminated quote";
				return -1;
			}
			if (*s == '"')
				break;
			if (*s == '\\' && s[1] != '\0')
				s++;
			*o++ = *s;
		}
		s++;
		if (*s != '\0' && *s != ' ' && *s != '\t') {
			*why = "quote not followed by a blank";
			return -1;
		}
		*o = '\0';
		if (*s != '\0')
			s++;
	}
}

/* Run one request line (NUL-terminated, no newline); the answer goes to
 * s. Only printable ASCII and tabs are accepted (this also keeps the log
 * clean). */
static int
execute(struct ctl *c, char *line, size_t len, struct show *s)
{
	char *argv[CTL_MAX_ARGS], names[160];
	const struct ctl_command *cmd;
	const char *why = NULL;
	int argc;
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	for (i = 0; i < len; i++)
		if (((unsigned char)line[i] < 0x20 && line[i] != '\t') ||
		    (unsigned char)line[i] >= 0x7F)
			return show_error(s, "the request is not a line "
			    "of text");
	log_debug("ctl: request '%s'", line);
	if ((argc = split(line, argv, CTL_MAX_ARGS, &why)) < 0)
		return show_error(s, "bad request: %s", why);
	if (argc > 0 && (strcmp(argv[0], "json") == 0 ||
	    strcmp(argv[0], "text") == 0)) {
		s->json = argv[0][0] == 'j';
		argc--;
		memmove(argv, argv + 1, (size_t)argc * sizeof(*argv));
	}
	if (argc == 0)
		return show_error(s, "empty request");
	if ((cmd = ctl_command_find(argv[0])) == NULL ||
	    handlers[cmd - ctl_commands] == NULL) {
		ctl_command_names(names, sizeof(names));
		return show_error(s, "unknown command '%s' (%s)", argv[0],
		    names);
	}
	if (argc - 1 < cmd->min || argc - 1 > cmd->max)
		return show_error(s, "usage: %s%s", cmd->name,
		    cmd->request_args);
	return handlers[cmd - ctl_commands](c, s, argc, argv);
}

/* ------------------------------------------------------------ connections */

static void
conn_free(struct ctl_conn *cn)
{
	struct ctl *c = cn->c;

	ev_io_stop(c->loop, &cn->io);
	ev_timer_stop(c->loop, &cn->timer);
	close(cn->fd);
	LIST_REMOVE(cn, entry);
	c->nconns--;
	free(cn->out);
	free(cn);
}

/* Write what the socket takes; free the connection when all is written or
 * the client is gone. */
static void
conn_write(struct ctl_conn *cn)
{
	ssize_t n;

	while (cn->off < cn->outlen) {
		n = send(cn->fd, cn->out + cn->off, cn->outlen - cn->off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			log_debug("ctl: client gone before its answer: %s",
			    strerror(errno));
			conn_free(cn);
			return;
		}
		cn->off += (size_t)n;
		ev_timer_again(cn->c->loop, &cn->timer);
	}
	conn_free(cn);
}

/* Answer head ("ok" or "error"), then body (n bytes), ending in a
 * newline: stop reading, write it as the client takes it, and allow
 * CTL_WRITE_TIMEOUT seconds without progress. */
static void
respond(struct ctl_conn *cn, const char *head, const char *body, size_t n)
{
	struct ev_loop *loop = cn->c->loop;
	size_t h = strlen(head);
	bool nl = n > 0 && body[n - 1] == '\n';

	if ((cn->out = malloc(h + 1 + n + 1)) == NULL)
		fatal("ctl: answer");
	memcpy(cn->out, head, h);
	cn->out[h] = '\n';
	if (n > 0)
		memcpy(cn->out + h + 1, body, n);
	cn->outlen = h + 1 + n;
	if (n > 0 && !nl)
		cn->out[cn->outlen++] = '\n';

	cn->writing = true;
	ev_io_stop(loop, &cn->io);
	ev_io_set(&cn->io, cn->fd, EV_WRITE);
	ev_io_start(loop, &cn->io);
	ev_timer_stop(loop, &cn->timer);
	cn->timer.repeat = CTL_WRITE_TIMEOUT;
	ev_timer_again(loop, &cn->timer);
	conn_write(cn);
}

/* Run the request in cn->req (len bytes) and start writing the answer. */
static void
conn_answer(struct ctl_conn *cn, size_t len)
{
	struct show s;

	show_init(&s, false);
	cn->req[len] = '\0';
	if (execute(cn->c, cn->req, len, &s) < 0) {
		if (s.err.len == 0)
			show_error(&s, "internal error");
		log_debug("ctl: error answer: %s", s.err.p);
		respond(cn, "error", s.err.p, s.err.len);
	} else if (s.json)
		respond(cn, "ok", s.j.buf, s.j.len);
	else
		respond(cn, "ok", s.text.p, s.text.len);
	show_fini(&s);
}

static void
conn_read(struct ctl_conn *cn)
{
	char *nl;
	ssize_t n;

	n = recv(cn->fd, cn->req + cn->reqlen, CTL_REQ_MAX - cn->reqlen,
	    MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		log_debug("ctl: read: %s", strerror(errno));
		conn_free(cn);
		return;
	}
	if (n == 0) {
		/* End of the client's data: a request without its newline
		 * is still answered; nothing at all is simply dropped. */
		if (cn->reqlen == 0)
			conn_free(cn);
		else
			conn_answer(cn, cn->reqlen);
		return;
	}
	nl = memchr(cn->req + cn->reqlen, '\n', (size_t)n);
	cn->reqlen += (size_t)n;
	if (nl != NULL) {
		conn_answer(cn, (size_t)(nl - cn->req));
		return;
	}
	if (cn->reqlen == CTL_REQ_MAX) {
		char why[64];

		snprintf(why, sizeof(why), "request longer than %d bytes",
		    CTL_REQ_MAX);
		log_debug("ctl: %s", why);
		respond(cn, "error", why, strlen(why));
	}
}

static void
conn_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_conn *cn = w->data;

	(void)loop;
	(void)revents;
	if (cn->writing)
		conn_write(cn);
	else
		conn_read(cn);
}

static void
conn_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl_conn *cn = w->data;

	(void)loop;
	(void)revents;
	log_debug("ctl: client timed out %s", cn->writing ?
	    "reading its answer" : "sending its request");
	conn_free(cn);
}

static void
conn_new(struct ctl *c, int fd)
{
	struct ctl_conn *cn;

	if ((cn = calloc(1, sizeof(*cn))) == NULL)
		fatal("ctl: client");
	cn->c = c;
	cn->fd = fd;
	ev_io_init(&cn->io, conn_io, fd, EV_READ);
	cn->io.data = cn;
	ev_timer_init(&cn->timer, conn_timeout, CTL_REQ_TIMEOUT, 0.);
	cn->timer.data = cn;
	LIST_INSERT_HEAD(&c->conns, cn, entry);
	c->nconns++;
	ev_io_start(c->loop, &cn->io);
	ev_timer_start(c->loop, &cn->timer);
}

/*
 * Make room for a new client: close the oldest connection that has not
 * finished sending its request (one that sent nothing first), so that
 * idle connections cannot lock ibsmctl out for CTL_REQ_TIMEOUT. Answers
 * being written are never cut. -1 when every connection is answering.
 */
static int
evict_idle(struct ctl *c)
{
	struct ctl_conn *cn, *silent = NULL, *partial = NULL;

	/* newest first: the last match is the oldest */
	LIST_FOREACH(cn, &c->conns, entry) {
		if (cn->writing)
			continue;
		if (cn->reqlen == 0)
			silent = cn;
		else
			partial = cn;
	}
	if ((cn = silent ? silent : partial) == NULL)
		return -1;
	log_debug("ctl: %u clients already: closing the oldest one still "
	    "sending its request", c->nconns);
	conn_free(cn);
	return 0;
}

static void
on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl *c = w->data;
	int fd;

	(void)revents;
	for (int i = 0; i < CTL_ACCEPT_BURST; i++) {
		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			/* Out of descriptors or memory: the socket stays
			 * readable, so stop watching it for a while. */
			log_warn("ctl: accept");
			ev_io_stop(loop, &c->io);
			ev_timer_start(loop, &c->pause);
			return;
		}
		if (c->nconns >= CTL_MAX_CLIENTS && evict_idle(c) < 0) {
			log_debug("ctl: %u clients already, one dropped",
			    c->nconns);
			close(fd);
			continue;
		}
		conn_new(c, fd);
	}
}

static void
on_pause_end(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl *c = w->data;

	(void)revents;
	ev_io_start(loop, &c->io);
}

/* ------------------------------------------------------------ life cycle */

struct ctl *
ctl_open(struct ev_loop *loop, const char *path, const struct ctl_deps *d)
{
	struct sockaddr_un sun;
	struct stat st;
	struct ctl *c;
	mode_t old;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("ctl: socket path %s is longer than %zu bytes", path,
		    sizeof(sun.sun_path) - 1);
		return NULL;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_warnx("ctl: %s exists and is not a socket", path);
			return NULL;
		}
		/* Stale: the instance lock says no one else serves it. */
		if (unlink(path) < 0) {
			log_warn("ctl: cannot remove stale %s", path);
			return NULL;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("ctl: socket");
		return NULL;
	}
	/* Root-only from the first moment: no window with a wider mode. */
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		umask(old);
		log_warn("ctl: bind %s", path);
		close(fd);
		return NULL;
	}
	umask(old);
	if (chmod(path, 0600) < 0 || listen(fd, 64) < 0) {
		log_warn("ctl: %s", path);
		close(fd);
		unlink(path);
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->path = strdup(path)) == NULL)
		fatal("ctl");
	c->loop = loop;
	c->d = *d;
	c->fd = fd;
	LIST_INIT(&c->conns);
	ev_io_init(&c->io, on_accept, fd, EV_READ);
	c->io.data = c;
	ev_timer_init(&c->pause, on_pause_end, 1., 0.);
	c->pause.data = c;
	ev_io_start(loop, &c->io);
	log_info("ctl: listening on %s", path);
	return c;
}

void
ctl_close(struct ctl *c)
{
	if (c == NULL)
		return;
	while (!LIST_EMPTY(&c->conns))
		conn_free(LIST_FIRST(&c->conns));
	ev_io_stop(c->loop, &c->io);
	ev_timer_stop(c->loop, &c->pause);
	close(c->fd);
	if (unlink(c->path) < 0 && errno != ENOENT)
		log_warn("ctl: cannot remove %s", c->path);
	free(c->path);
	free(c);
}

