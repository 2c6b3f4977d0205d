/*
 * The performance manager: see sm/perfmgr.h.
 *
 * A round has two phases: the ClassPortInfo of each node not asked yet
 * (whether its ports have PortCountersExtended), then the counters of
 * every port of the model in use at that moment. Each phase is a queue
 * sent PERFMGR_WINDOW requests at a time; the next round starts at the
 * timer after the previous one ended (a round still running when the timer
 * fires is left to finish: counted as skipped).
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/fabric.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "core/pcounter.h"
#include "core/query.h"
#include "mad/mad.h"
#include "mad/transport.h"
#include "sm/perfmgr.h"

#define PERF_CLASS_VERSION      1
#define PERF_ATTR_CPI           0x0001
#define PERF_ATTR_PC            0x0012
#define PERF_ATTR_PCX           0x001D
#define PERF_DATA_OFFSET        64      /* IB_PC_DATA_OFFS */
/* ClassPortInfo CapabilityMask (IBA 16.1.3.1, Table 238): bit 9
 * PortCountersExtended with all counters, bit 10 without the unicast and
 * multicast ones */
#define PERF_CAP_EXT            (1u << 9 | 1u << 10)
/* Counter reads are own_window requests (outside the engine's windows);
 * keys of their own (the node GUID flipped) keep them off the per-node
 * counts of the SMPs to that node too. */
#define PERF_DEST(guid)         (~(guid))

enum item_kind { ITEM_CPI, ITEM_PC, ITEM_PCX, ITEM_CLEAR };
enum cpi_state { CPI_UNKNOWN, CPI_ASKED, CPI_KNOWN };

struct pm_node {
	uint64_t guid;
	uint8_t nports;
	bool sw;
	uint8_t cpi;            /* enum cpi_state */
	bool ext;               /* PortCountersExtended, as CPI said */
	struct pcounter_port *ports;    /* [0 .. nports] */
	uint8_t *have;          /* [0 .. nports]: ports read at least once */
	uint32_t *rising;       /* [0 .. nports]: error counters that rose
				 * past their threshold at the last read
				 * (1 << enum pcounter_id) */
	uint32_t *logged;       /* [0 .. nports]: of those, logged already
				 * (again only after a read not rising) */
};

struct item {
	uint32_t node;          /* in pm->nodes */
	uint16_t lid;
	uint8_t port;
	uint8_t kind;
	uint16_t select;        /* ITEM_CLEAR: CounterSelect */
	uint8_t select2;        /* ITEM_CLEAR: CounterSelect2 */
};

struct perfmgr {
	struct ev_loop *loop;
	struct mad_engine *mad;
	perfmgr_fabric_cb fabric;
	void *arg;
	bool enabled, active, registered, in_round;
	bool clear_saturated;   /* perfmgr_clear_saturated */
	unsigned threshold[PC_NERRORS];	/* perfmgr_threshold_* */
	int phase;              /* 0 CPI, 1 counters */
	double interval, t0;
	ev_timer timer;
	struct pm_node *nodes;
	uint32_t nnodes, nodes_cap;
	struct guid_hash idx;   /* node GUID -> index in nodes */
	struct item *q;         /* to send: q[head .. n - 1] */
	size_t n, head, cap;
	unsigned inflight;
	struct perfmgr_stats st;
};

struct pending {
	struct perfmgr *pm;
	struct item it;
};

static void round_start(struct perfmgr *pm);

static void
node_free(struct pm_node *n)
{
	free(n->ports);
	free(n->have);
	free(n->rising);
	free(n->logged);
}
static void launch(struct perfmgr *pm);

static void
on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct perfmgr *pm = w->data;

	(void)loop;
	(void)revents;
	if (pm->in_round) {
		pm->st.skipped++;
		return;
	}
	round_start(pm);
}

struct perfmgr *
perfmgr_new(struct ev_loop *loop, struct mad_engine *mad,
    perfmgr_fabric_cb fabric, void *arg)
{
	struct perfmgr *pm = xcalloc(1, sizeof(*pm));

	pm->loop = loop;
	pm->mad = mad;
	pm->fabric = fabric;
	pm->arg = arg;
	pm->interval = 180;
	for (unsigned id = 0; id < PC_NERRORS; id++)
		pm->threshold[id] = pcounter_info(id)->threshold;
	guid_hash_init(&pm->idx);
	ev_init(&pm->timer, on_timer);
	pm->timer.data = pm;
	return pm;
}

void
perfmgr_free(struct perfmgr *pm)
{
	if (pm == NULL)
		return;
	ev_timer_stop(pm->loop, &pm->timer);
	for (uint32_t i = 0; i < pm->nnodes; i++)
		node_free(&pm->nodes[i]);
	free(pm->nodes);
	guid_hash_fini(&pm->idx);
	free(pm->q);
	free(pm);
}

void
perfmgr_set_opts(struct perfmgr *pm, bool enabled, double interval,
    bool clear_saturated)
{
	if (pm == NULL)
		return;
	pm->enabled = enabled;
	pm->clear_saturated = clear_saturated;
	if (!enabled) {
		perfmgr_stop(pm);
		return;
	}
	if (interval != pm->interval) {
		pm->interval = interval;
		if (pm->active) {
			ev_timer_stop(pm->loop, &pm->timer);
			ev_timer_set(&pm->timer, interval, interval);
			ev_timer_start(pm->loop, &pm->timer);
		}
	}
}

void
perfmgr_set_thresholds(struct perfmgr *pm,
    const unsigned threshold[PC_NERRORS])
{
	if (pm != NULL)
		memcpy(pm->threshold, threshold, sizeof(pm->threshold));
}

/* The PerfMgt agent: registered the first time it is needed, so that
 * perfmgr off registers no class 0x04 agent. */
static bool
agent(struct perfmgr *pm)
{
	struct transport_agent a = { .mgmt_class = MGMT_CLASS_PERF,
	    .class_version = PERF_CLASS_VERSION };

	if (pm->registered)
		return true;
	if (mad_register(pm->mad, &a) < 0) {
		log_warnx("perfmgr: cannot register a PerfMgt agent (class "
		    "0x04); no counters read");
		return false;
	}
	pm->registered = true;
	return true;
}

void
perfmgr_start(struct perfmgr *pm)
{
	if (pm == NULL || !pm->enabled || pm->active)
		return;
	if (!agent(pm))
		return;
	pm->active = true;
	ev_timer_set(&pm->timer, pm->interval, pm->interval);
	ev_timer_start(pm->loop, &pm->timer);
	log_info("perfmgr: reading port counters every %.0f s", pm->interval);
	round_start(pm);
}

void
perfmgr_stop(struct perfmgr *pm)
{
	if (pm == NULL || !pm->active)
		return;
	pm->active = false;
	pm->in_round = false;
	pm->n = pm->head = 0;
	ev_timer_stop(pm->loop, &pm->timer);
	for (uint32_t i = 0; i < pm->nnodes; i++)
		if (pm->nodes[i].cpi == CPI_ASKED)
			pm->nodes[i].cpi = CPI_UNKNOWN;
	log_info("perfmgr: stopped");
}

void
perfmgr_get_stats(const struct perfmgr *pm, struct perfmgr_stats *st)
{
	*st = pm->st;
	st->enabled = pm->enabled;
	st->running = pm->active;
}

void
perfmgr_foreach(const struct perfmgr *pm,
    void (*cb)(void *arg, const struct perfmgr_port *p), void *arg)
{
	if (pm == NULL)
		return;
	for (uint32_t i = 0; i < pm->nnodes; i++) {
		const struct pm_node *n = &pm->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			struct perfmgr_port pp = { .guid = n->guid,
			    .port = (uint8_t)p, .sw = n->sw, .ext = n->ext,
			    .rising = n->rising[p], .pc = &n->ports[p],
			    .threshold = pm->threshold };

			if (n->have[p])
				cb(arg, &pp);
		}
	}
}

/* The node of fn in the store, made or made to fit. */
static uint32_t
node_of(struct perfmgr *pm, const struct fabric_node *fn)
{
	uint32_t i = guid_hash_get(&pm->idx, fn->guid);
	struct pm_node *n;

	if (i != GUID_HASH_NONE) {
		n = &pm->nodes[i];
		if (n->nports == fn->nports &&
		    n->sw == (fn->type == NODE_SWITCH))
			return i;
		/* another device under that GUID: start over */
		node_free(n);
	} else {
		if (pm->nnodes == pm->nodes_cap) {
			pm->nodes_cap = pm->nodes_cap ? 2 * pm->nodes_cap : 64;
			pm->nodes = xreallocarray(pm->nodes, pm->nodes_cap,
			    sizeof(*pm->nodes));
		}
		i = pm->nnodes++;
		guid_hash_put(&pm->idx, fn->guid, i);
	}
	n = &pm->nodes[i];
	memset(n, 0, sizeof(*n));
	n->guid = fn->guid;
	n->nports = fn->nports;
	n->sw = fn->type == NODE_SWITCH;
	n->ports = xcalloc((size_t)fn->nports + 1, sizeof(*n->ports));
	n->have = xcalloc((size_t)fn->nports + 1, 1);
	n->rising = xcalloc((size_t)fn->nports + 1, sizeof(*n->rising));
	n->logged = xcalloc((size_t)fn->nports + 1, sizeof(*n->logged));
	return i;
}

static void
push(struct perfmgr *pm, const struct item *it)
{
	if (pm->n == pm->cap) {
		pm->cap = pm->cap ? 2 * pm->cap : 256;
		pm->q = xreallocarray(pm->q, pm->cap, sizeof(*pm->q));
	}
	pm->q[pm->n++] = *it;
}

/*
 * The ports of the model to read: a switch's cabled external ports
 * through its port 0's LID, a CA's (or router's) ports that have a LID.
 * each(pm, node index, port, lid) for each.
 */
static void
ports_of(struct perfmgr *pm, const struct fabric *f,
    void (*each)(struct perfmgr *, uint32_t, uint8_t, uint16_t))
{
	for (uint32_t ni = 0; ni < f->nnodes; ni++) {
		const struct fabric_node *fn = &f->nodes[ni];
		bool sw = fn->type == NODE_SWITCH;
		uint32_t i;

		if (fn->nports == 0 || (sw && f->ports[fn->port0].lid == 0))
			continue;
		i = node_of(pm, fn);
		for (unsigned p = 1; p <= fn->nports; p++) {
			const struct fabric_port *port = &f->ports[fn->port0 +
			    p];

			if (sw && port->peer != FABRIC_NONE)
				each(pm, i, (uint8_t)p,
				    f->ports[fn->port0].lid);
			else if (!sw && port->lid != 0)
				each(pm, i, (uint8_t)p, port->lid);
		}
	}
}

static void
queue_cpi(struct perfmgr *pm, uint32_t i, uint8_t port, uint16_t lid)
{
	struct item it = { .node = i, .lid = lid, .port = port,
	    .kind = ITEM_CPI };

	if (pm->nodes[i].cpi != CPI_UNKNOWN)
		return;
	pm->nodes[i].cpi = CPI_ASKED;
	push(pm, &it);
}

static void
queue_counters(struct perfmgr *pm, uint32_t i, uint8_t port, uint16_t lid)
{
	struct item it = { .node = i, .lid = lid, .port = port,
	    .kind = ITEM_PC };

	push(pm, &it);
	if (pm->nodes[i].ext) {
		it.kind = ITEM_PCX;
		push(pm, &it);
	}
}

/* The next phase of the round, or its end. */
static void
next_phase(struct perfmgr *pm)
{
	const struct fabric *f = pm->fabric(pm->arg);

	pm->n = pm->head = 0;
	if (pm->phase == 0 && f != NULL) {
		pm->phase = 1;
		ports_of(pm, f, queue_counters);
		launch(pm);
		return;
	}
	pm->in_round = false;
	pm->st.rounds++;
	pm->st.last_seconds = ev_now(pm->loop) - pm->t0;
	pm->st.last_end = ev_time();
	pm->st.ports = pm->st.ext_ports = 0;
	for (uint32_t i = 0; i < pm->nnodes; i++)
		for (unsigned p = 0; p <= pm->nodes[i].nports; p++)
			if (pm->nodes[i].have[p]) {
				pm->st.ports++;
				pm->st.ext_ports += pm->nodes[i].ext;
			}
	log_debug("perfmgr: round %" PRIu64 ": %u ports (%.2f s)",
	    pm->st.rounds, pm->st.ports, pm->st.last_seconds);
}

static void
round_start(struct perfmgr *pm)
{
	const struct fabric *f;

	if (!pm->active || (f = pm->fabric(pm->arg)) == NULL)
		return;
	pm->in_round = true;
	pm->t0 = ev_now(pm->loop);
	pm->phase = 0;
	pm->n = pm->head = 0;
	ports_of(pm, f, queue_cpi);
	launch(pm);
}

static uint16_t
attr_of(const struct item *it)
{
	return it->kind == ITEM_CPI ? PERF_ATTR_CPI : it->kind == ITEM_PCX ?
	    PERF_ATTR_PCX : PERF_ATTR_PC;
}

/*
 * With perfmgr_clear_saturated, clear the counters of PortCounters a read
 * found at their maximum (not those the Extended set supersedes): a Set
 * with their CounterSelect bits, which follow enum pcounter_id up to
 * PortRcvPkts (IBA Table 247); PortXmitWait is CounterSelect2.
 */
static void
clear_saturated(struct perfmgr *pm, uint32_t i, uint8_t port, uint16_t lid)
{
	const struct pcounter_port *pc = &pm->nodes[i].ports[port];
	struct item it = { .node = i, .port = port, .kind = ITEM_CLEAR,
	    .lid = lid };

	for (unsigned id = 0; id <= PC_XMIT_WAIT; id++) {
		if (!pc->c[id].saturated || pc->c[id].ext)
			continue;
		if (id == PC_XMIT_WAIT)
			it.select2 = 1;
		else
			it.select |= (uint16_t)(1u << id);
	}
	if (it.select == 0 && it.select2 == 0)
		return;
	push(pm, &it);
}

static void
build(void *arg, uint8_t *mad)
{
	const struct pending *p = arg;
	const struct item *it = &p->it;
	uint8_t *data = mad + PERF_DATA_OFFSET;

	mad_set_field(mad, 0, IB_MAD_BASEVER_F, MAD_BASE_VERSION);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_PERF);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, PERF_CLASS_VERSION);
	mad_set_method(mad, it->kind == ITEM_CLEAR ? MAD_SET : MAD_GET);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr_of(it));
	if (it->kind == ITEM_PC || it->kind == ITEM_CLEAR)
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, it->port);
	if (it->kind == ITEM_CLEAR) {
		mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, it->select);
		mad_set_field(data, 0, IB_PC_COUNTER_SELECT2_F, it->select2);
	} else if (it->kind == ITEM_PCX)
		mad_set_field(data, 0, IB_PC_EXT_PORT_SELECT_F, it->port);
}

static void
pending_drop(void *arg)
{
	free(arg);
}

/* Port port of node i in the model in use, as "switch 0x... "name" port
 * 3 (peer: CA 0x... "h1" port 1)". */
static void
port_text(struct perfmgr *pm, uint32_t i, uint8_t port, char *buf,
    size_t len)
{
	const struct fabric *f = pm->fabric(pm->arg);
	char a[160], b[160];
	uint32_t ni, q;

	if (f == NULL || (ni = fabric_node_by_guid(f, pm->nodes[i].guid)) ==
	    FABRIC_NONE || port > f->nodes[ni].nports) {
		snprintf(buf, len, "node 0x%016" PRIx64 " port %u",
		    pm->nodes[i].guid, port);
		return;
	}
	q = f->ports[f->nodes[ni].port0 + port].peer;
	if (q == FABRIC_NONE)
		snprintf(buf, len, "%s port %u (no peer)",
		    query_node_text(f, ni, a, sizeof(a)), port);
	else
		snprintf(buf, len, "%s port %u (peer: %s port %u)",
		    query_node_text(f, ni, a, sizeof(a)), port,
		    query_node_text(f, f->ports[q].node, b, sizeof(b)),
		    f->ports[q].num);
}

/*
 * The error counters of the port that rose (rose: 1 << id each) by more
 * than their threshold at this read are rising; each is logged once,
 * again only after a read where it was not rising.
 */
static void
events(struct perfmgr *pm, uint32_t i, uint8_t port, uint32_t rose)
{
	struct pm_node *n = &pm->nodes[i];
	const struct pcounter_port *pc = &n->ports[port];
	uint32_t over = 0, fresh;
	char where[400];

	for (unsigned id = 0; id < PC_NERRORS; id++)
		if ((rose & UINT32_C(1) << id) &&
		    pc->c[id].delta > pm->threshold[id])
			over |= UINT32_C(1) << id;
	n->rising[port] = over;
	fresh = over & ~n->logged[port];
	n->logged[port] = over;
	if (fresh == 0)
		return;
	port_text(pm, i, port, where, sizeof(where));
	for (unsigned id = 0; id < PC_NERRORS; id++) {
		if (!(fresh & UINT32_C(1) << id))
			continue;
		pm->st.error_events++;
		log_warnx("perfmgr: %s: %s rose by %" PRIu64 " to %" PRIu64
		    " (threshold %u per read)%s", where,
		    pcounter_info(id)->name, pc->c[id].delta, pc->c[id].total,
		    pm->threshold[id], pc->c[id].saturated ? " (saturated)" :
		    "");
	}
}

/* An answer's data, taken: false when it is not for the port asked. */
static bool
take(struct perfmgr *pm, const struct item *it, const uint8_t *data)
{
	struct pm_node *n = &pm->nodes[it->node];
	uint32_t cap, rose;

	switch (it->kind) {
	case ITEM_CPI:
		cap = mad_get_field((void *)data, 0, IB_CPI_CAPMASK_F);
		n->ext = (cap & PERF_CAP_EXT) != 0;
		n->cpi = CPI_KNOWN;
		pm->st.cpi_reads++;
		return true;
	case ITEM_PC:
		if (mad_get_field((void *)data, 0, IB_PC_PORT_SELECT_F) !=
		    it->port)
			return false;
		rose = pcounter_port_basic(&n->ports[it->port], data, n->ext);
		/* the first read is a baseline: when it counted, unknown */
		events(pm, it->node, it->port, n->have[it->port] ? rose : 0);
		n->have[it->port] = 1;
		if (pm->clear_saturated && pm->active)
			clear_saturated(pm, it->node, it->port, it->lid);
		break;
	case ITEM_CLEAR:
		if (mad_get_field((void *)data, 0, IB_PC_PORT_SELECT_F) !=
		    it->port)
			return false;
		pm->st.clears++;
		return true;
	case ITEM_PCX:
		if (mad_get_field((void *)data, 0, IB_PC_EXT_PORT_SELECT_F) !=
		    it->port)
			return false;
		pcounter_port_ext(&n->ports[it->port], data);
		break;
	}
	pm->st.reads++;
	return true;
}

static void
done(void *arg, int status, const struct transport_rx *resp)
{
	struct pending *p = arg;
	struct perfmgr *pm = p->pm;
	struct item *it = &p->it;
	char buf[96];

	pm->inflight--;
	if (status != 0 || resp == NULL ||
	    resp->len < PERF_DATA_OFFSET + 64 ||
	    !take(pm, it, resp->mad + PERF_DATA_OFFSET)) {
		pm->st.failed++;
		if (it->kind == ITEM_CPI)       /* ask again next round */
			pm->nodes[it->node].cpi = CPI_UNKNOWN;
		log_debug("perfmgr: node 0x%016" PRIx64 " port %u: %s: %s",
		    pm->nodes[it->node].guid, it->port,
		    mad_attr_name(MGMT_CLASS_PERF, attr_of(it)),
		    resp != NULL && status == 0 ?
		    "answer for another port" :
		    mad_status_text(MGMT_CLASS_PERF, status, buf,
		    sizeof(buf)));
	}
	free(p);
	if (pm->active)
		launch(pm);
}

static void
launch(struct perfmgr *pm)
{
	while (pm->inflight < PERFMGR_WINDOW && pm->head < pm->n) {
		const struct item *it = &pm->q[pm->head++];
		struct pending *p = xmalloc(sizeof(*p));
		struct mad_request q = {
			.build = build, .len = TRANSPORT_MAD_SIZE,
			.mgmt_class = MGMT_CLASS_PERF,
			.class_version = PERF_CLASS_VERSION,
			.method = it->kind == ITEM_CLEAR ? MAD_SET : MAD_GET,
			.attr = attr_of(it),
			.to = { .lid = it->lid, .qpn = 1,
			    .qkey = TRANSPORT_QKEY_GSI },
			.dest = PERF_DEST(pm->nodes[it->node].guid),
			.drop = pending_drop, .own_window = true,
		};

		p->pm = pm;
		p->it = *it;
		if (mad_request(pm->mad, &q, done, p) < 0) {
			free(p);
			pm->st.failed++;
			continue;
		}
		pm->inflight++;
	}
	if (pm->in_round && pm->head == pm->n && pm->inflight == 0)
		next_phase(pm);
}
