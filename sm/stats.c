#include "sm/stats.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sm/json.h"
#include "sm/show.h"

/*
 * The counter table. A plain counter is a row {key, kind, offset} of the
 * struct the module that counts it fills; rendering walks the rows, so a
 * key is spelt once and the JSON, the text tree and the stats file (the
 * three modes of struct json) cannot disagree. Values that are not plain
 * counters (names, nulls, lists, times) are written beside the rows, in
 * the document's order.
 */
enum stat_kind { STAT_U64, STAT_UINT, STAT_U32, STAT_DOUBLE, STAT_BOOL };

struct stat_key {
	const char *key;
	enum stat_kind kind;
	size_t off;
};

/* A row for field f of T, of C type ctype: an array of negative size,
 * a compile error, when f has another type. */
#define STAT_ROW(key, kind, ctype, T, f) \
	{ key, kind, offsetof(T, f) + 0 * sizeof(char[ \
	    __builtin_types_compatible_p(__typeof__(((T *)0)->f), ctype) ? \
	    1 : -1]) }
#define U64(T, f, key)  STAT_ROW(key, STAT_U64, uint64_t, T, f)
#define UINT(T, f, key) STAT_ROW(key, STAT_UINT, unsigned, T, f)
#define U32(T, f, key)  STAT_ROW(key, STAT_U32, uint32_t, T, f)
#define DBL(T, f, key)  STAT_ROW(key, STAT_DOUBLE, double, T, f)
#define BOOL(T, f, key) STAT_ROW(key, STAT_BOOL, bool, T, f)
#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

static void
put_rows(struct json *j, const void *base, const struct stat_key *k,
    size_t n)
{
	const char *b = base;

	for (size_t i = 0; i < n; i++) {
		const void *v = b + k[i].off;

		switch (k[i].kind) {
		case STAT_U64:
			json_kv_uint(j, k[i].key, *(const uint64_t *)v);
			break;
		case STAT_UINT:
			json_kv_uint(j, k[i].key, *(const unsigned *)v);
			break;
		case STAT_U32:
			json_kv_uint(j, k[i].key, *(const uint32_t *)v);
			break;
		case STAT_DOUBLE:
			json_kv_double(j, k[i].key, *(const double *)v);
			break;
		case STAT_BOOL:
			json_kv_bool(j, k[i].key, *(const bool *)v);
			break;
		}
	}
}
#define PUT(j, base, rows) put_rows(j, base, rows, NROWS(rows))

/* An object of rows under key (NULL base: null). */
static void
put_object(struct json *j, const char *key, const void *base,
    const struct stat_key *k, size_t n)
{
	json_key(j, key);
	if (base == NULL) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	put_rows(j, base, k, n);
	json_object_end(j);
}
#define PUT_OBJECT(j, key, base, rows) \
	put_object(j, key, base, rows, NROWS(rows))

/* ---- the rows, in the document's order */

#define SS struct smstate_status
static const struct stat_key sm_poll[] = {
	BOOL(SS, key_set, "sm_key_set"),
	DBL(SS, poll_interval, "poll_interval"),
	UINT(SS, poll_retries, "poll_retries"),
	UINT(SS, misses, "poll_misses"),
};
static const struct stat_key sm_counters[] = {
	U64(SS, transitions, "transitions"),
	U64(SS, handovers_sent, "handovers_sent"),
	U64(SS, handovers_taken, "handovers_taken"),
};
#undef SS

#define SI struct sminfo_counters
static const struct stat_key sminfo_rows[] = {
	U64(SI, gets, "gets"),
	U64(SI, sets, "sets"),
	U64(SI, refused, "refused"),
	U64(SI, bad_key, "bad_key"),
};
#undef SI

#define SW struct sweep_status
static const struct stat_key sweep_head[] = {
	BOOL(SW, enabled, "enabled"),
	BOOL(SW, subnet_up, "subnet_up"),
	DBL(SW, up_seconds, "up_seconds"),
};
static const struct stat_key sweep_counts[] = {
	U64(SW, sweeps, "sweeps"),
	U64(SW, heavy_sweeps, "heavy_sweeps"),
	U64(SW, light_sweeps, "light_sweeps"),
};
static const struct stat_key sweep_last[] = {
	DBL(SW, last_seconds, "last_seconds"),
	BOOL(SW, last_ok, "last_ok"),
};
static const struct stat_key sweep_tail[] = {
	U64(SW, failures_in_row, "failures_in_row"),
	UINT(SW, holes, "holes"),
	U64(SW, programs, "programs"),
	U64(SW, rebalances, "rebalances"),
	U64(SW, repairs, "repairs"),
	U64(SW, client_reregs, "client_reregs"),
};
static const struct stat_key sweep_phases[] = {
	DBL(SW, discover_seconds, "discover_seconds"),
	DBL(SW, elect_seconds, "elect_seconds"),
	DBL(SW, compute_seconds, "compute_seconds"),
};
static const struct stat_key sweep_inherit[] = {
	U32(SW, inherit_kept, "lids_kept"),
	U32(SW, inherit_mixed, "lids_mixed"),
	U32(SW, inherit_computed, "lids_computed"),
};
static const struct stat_key vport_rows[] = {
	UINT(SW, vport_hosts, "hosts"),
	UINT(SW, vports_up, "up"),
	UINT(SW, vport_own_lids, "own_lids"),
	UINT(SW, vports_managed, "managed"),
	U64(SW, vport_sweeps, "vport_sweeps"),
	U64(SW, vport_clears, "clears"),
};
#undef SW

#define PR struct program_result
static const struct stat_key program_phases[] = {
	DBL(PR, ports_seconds, "ports_seconds"),
	DBL(PR, tables_seconds, "tables_seconds"),
	DBL(PR, arm_seconds, "arm_seconds"),
	DBL(PR, activate_seconds, "activate_seconds"),
};
static const struct stat_key program_rows[] = {
	UINT(PR, portinfo_sets, "portinfo_sets"),
	UINT(PR, switchinfo_sets, "switchinfo_sets"),
	UINT(PR, lft_reads, "lft_reads"),
	UINT(PR, lft_writes, "lft_writes"),
	UINT(PR, pkey_reads, "pkey_reads"),
	UINT(PR, pkey_writes, "pkey_writes"),
	UINT(PR, armed, "armed"),
	UINT(PR, activated, "activated"),
	UINT(PR, client_reregs, "client_reregs"),
	UINT(PR, failures, "failures"),
	UINT(PR, resent, "resent"),
};
#undef PR

#define FC struct fabric_counts
static const struct stat_key fabric_rows[] = {
	UINT(FC, switches, "switches"),
	UINT(FC, cas, "cas"),
	UINT(FC, routers, "routers"),
	UINT(FC, ca_ports, "ca_ports"),
	UINT(FC, endports, "lids"),
	UINT(FC, links, "links"),
};
#undef FC

#define RR struct route_report
static const struct stat_key routing_head[] = {
	DBL(RR, seconds, "seconds"),
	U32(RR, lids, "lids"),
	U64(RR, unreachable, "unreachable"),
};
static const struct stat_key routing_load[] = {
	U32(RR, max_port_load, "max_port_load"),
	DBL(RR, mean_port_load, "mean_port_load"),
	U32(RR, vls, "vls"),
};
static const struct stat_key routing_tail[] = {
	U64(RR, blocks_changed, "blocks_changed"),
	U32(RR, vport_lids, "vport_lids"),
	U64(RR, vport_entries, "vport_entries"),
};
#undef RR

#define ST struct show_status
static const struct stat_key mad_rows[] = {
	U64(ST, mad_sent, "sent"),
	UINT(ST, mad_outstanding, "outstanding"),
	UINT(ST, mad_queued, "queued"),
	UINT(ST, mad_max_queued, "max_queued"),
	DBL(ST, mad_mean_in_flight, "mean_in_flight"),
	U64(ST, mad_unmatched, "dropped_unmatched"),
	U64(ST, mad_malformed, "dropped_malformed"),
	U64(ST, mad_unhandled, "dropped_unhandled"),
};
#undef ST

#define MC struct mad_counter
static const struct stat_key mad_counter_rows[] = {
	U64(MC, sent, "sent"),
	U64(MC, recv, "recv"),
	U64(MC, timeout, "timeout"),
	U64(MC, error, "error"),
};
#undef MC

#define SA struct sa_stats
static const struct stat_key sa_rows[] = {
	U64(SA, requests, "requests"),
	U64(SA, answered, "answered"),
	U64(SA, errors, "errors"),
	U64(SA, not_serving, "not_serving"),
	U64(SA, bad_key, "bad_key"),
	U64(SA, malformed, "malformed"),
	U64(SA, unsupported, "unsupported"),
	U64(SA, dropped, "dropped"),
	U64(SA, answer_max_us, "answer_max_us"),
	U64(SA, services, "services"),
	U64(SA, subscriptions, "subscriptions"),
	U64(SA, reports_sent, "reports_sent"),
	U64(SA, reports_acked, "reports_acked"),
	U64(SA, reports_failed, "reports_failed"),
};
#undef SA

#define MM struct sa_mcmember_stats
static const struct stat_key mcmember_rows[] = {
	U64(MM, joins, "joins"),
	U64(MM, leaves, "leaves"),
	U64(MM, creates, "creates"),
	U64(MM, refused, "refused"),
	U64(MM, unjoinable, "unjoinable"),
};
#undef MM

#define VG struct vfguid_stats
static const struct stat_key alias_rows[] = {
	U64(VG, active, "assigned"),
	U64(VG, sets, "sets"),
	U64(VG, confirmed, "confirmed"),
	U64(VG, failed, "failed"),
	U64(VG, restored, "restored"),
	U64(VG, adopted, "adopted"),
	U64(VG, writes, "file_writes"),
};
#undef VG

#define VR struct vports_result
static const struct stat_key vprog_rows[] = {
	UINT(VR, pkey_writes, "pkey_writes"),
	UINT(VR, lid_writes, "lid_writes"),
	UINT(VR, armed, "armed"),
	UINT(VR, activated, "activated"),
	UINT(VR, smps, "smps"),
};
static const struct stat_key vprog_rereg[] = {
	UINT(VR, rereg_hosts, "rereg_hosts"),
	UINT(VR, rereg_vports, "rereg_vports"),
};
#undef VR

#define PS struct perfmgr_stats
/* M_Keys (sm/mkeys.h): no key is ever shown, only whether one is set */
#define MK struct mkeys_stats
static const struct stat_key mkey_rows[] = {
	BOOL(MK, key_set, "m_key_set"),
	BOOL(MK, per_port, "per_port"),
	BOOL(MK, takeover, "takeover"),
	U64(MK, foreign, "foreign_ports"),
	U64(MK, hidden, "foreign_hidden"),
	U64(MK, other, "foreign_other"),
	U64(MK, bad_key_traps, "bad_key_traps"),
	U64(MK, unknown, "unknown_destinations"),
	U64(MK, neighbors, "neighbors"),
};
#undef MK

static const struct stat_key perfmgr_rows[] = {
	BOOL(PS, enabled, "enabled"),
	BOOL(PS, running, "running"),
	U64(PS, rounds, "rounds"),
	U64(PS, skipped, "skipped"),
	U64(PS, reads, "reads"),
	U64(PS, failed, "failed"),
	U64(PS, cpi_reads, "cpi_reads"),
	U32(PS, ports, "ports"),
	U32(PS, ext_ports, "ext_ports"),
	U64(PS, error_events, "error_events"),
	U64(PS, clears, "clears"),
	DBL(PS, last_seconds, "last_seconds"),
};
#undef PS

#define MS struct sm_mcast_stats
static const struct stat_key mcast_rows[] = {
	U64(MS, groups, "groups"),
	U64(MS, members, "members"),
	U64(MS, mlids, "mlids"),
	UINT(MS, mlid_limit, "mlid_limit"),
	U64(MS, created, "created"),
	U64(MS, deleted, "deleted"),
	U64(MS, joins, "joins"),
	U64(MS, leaves, "leaves"),
	U64(MS, no_mlid, "no_mlid"),
	U64(MS, forgotten, "forgotten"),
	U64(MS, updates, "updates"),
	U64(MS, rebuilds, "rebuilds"),
	U64(MS, mft_writes, "mft_writes"),
	U64(MS, mft_failures, "mft_failures"),
	U64(MS, top_sets, "top_sets"),
};
#undef MS

/* ---- the master and standbys */

void
show_master_of(const struct show_status *st, struct show_master *m)
{
	const struct smstate_status *sm = st->sm;
	const struct fabric *f = st->fabric;

	memset(m, 0, sizeof(*m));
	if (sm == NULL)
		return;
	if (sm->sm_state == SM_MASTER) {
		m->known = m->self = true;
		m->guid = st->port_guid;
		m->priority = sm->priority;
		if (f != NULL && f->sm_port != FABRIC_NONE)
			m->lid = f->ports[f->sm_port].lid;
		return;
	}
	for (size_t i = 0; i < sm->npeers; i++) {
		const struct smstate_peer *p = &sm->peers[i];

		if (sm->master_guid != 0 ? p->guid != sm->master_guid :
		    !p->answered || p->state != SM_MASTER)
			continue;
		m->known = true;
		m->guid = p->guid;
		m->lid = p->lid;
		m->priority = p->priority;
		return;
	}
	if (sm->master_guid != 0) {
		m->known = true;
		m->guid = sm->master_guid;
	}
}

static bool
is_standby(const struct smstate_peer *p)
{
	return p->answered && p->state == SM_STANDBY;
}

size_t
show_standbys(const struct show_status *st)
{
	size_t n = 0;

	for (size_t i = 0; st->sm != NULL && i < st->sm->npeers; i++)
		n += is_standby(&st->sm->peers[i]);
	return n;
}

/* ---- the document */

/* This SM's state machine, the master, its standbys, every other SM. */
static void
sm_json(struct json *j, const struct show_status *st)
{
	const struct smstate_status *sm = st->sm;
	struct show_master m;

	json_key(j, "sm");
	json_object_begin(j);
	json_kv_string(j, "state", sm->state);
	json_kv_uint(j, "priority", sm->priority);
	PUT(j, sm, sm_poll);
	json_key(j, "master_guid");
	if (sm->master_guid == 0)
		json_null(j);
	else
		json_guid(j, sm->master_guid);
	show_master_of(st, &m);
	json_key(j, "master");
	if (!m.known)
		json_null(j);
	else {
		json_object_begin(j);
		json_kv_bool(j, "self", m.self);
		json_kv_guid(j, "guid", m.guid);
		json_kv_uint(j, "lid", m.lid);
		json_kv_uint(j, "priority", m.priority);
		json_object_end(j);
	}
	/* a master's standbys */
	json_key(j, "standbys");
	json_array_begin(j);
	for (size_t i = 0; sm->sm_state == SM_MASTER && i < sm->npeers; i++) {
		const struct smstate_peer *p = &sm->peers[i];

		if (!is_standby(p))
			continue;
		json_object_begin(j);
		json_kv_guid(j, "guid", p->guid);
		json_kv_uint(j, "lid", p->lid);
		json_kv_uint(j, "priority", p->priority);
		json_kv_bool(j, "sm_key_match", p->trusted);
		json_object_end(j);
	}
	json_array_end(j);
	PUT(j, sm, sm_counters);
	if (st->sminfo != NULL)
		PUT_OBJECT(j, "sminfo", st->sminfo, sminfo_rows);
	json_key(j, "peers");
	json_array_begin(j);
	for (size_t i = 0; i < sm->npeers; i++) {
		const struct smstate_peer *p = &sm->peers[i];

		json_object_begin(j);
		json_kv_guid(j, "guid", p->guid);
		json_kv_uint(j, "lid", p->lid);
		json_kv_uint(j, "priority", p->priority);
		json_kv_string(j, "state", p->answered ? p->state_name : NULL);
		json_kv_bool(j, "sm_key_match", p->trusted);
		json_kv_bool(j, "polled", p->target);
		json_key(j, "last_answer_seconds");
		if (p->last_answer < 0)
			json_null(j);
		else
			json_double(j, p->last_answer);
		json_kv_uint(j, "misses", p->misses);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
sweep_json(struct json *j, const struct show_status *st)
{
	const struct sweep_status *sw = st->sweep;
	const struct program_result *pr = &sw->last_program;

	json_key(j, "sweep");
	json_object_begin(j);
	json_kv_string(j, "state", sw->state);
	PUT(j, sw, sweep_head);
	if (sw->subnet_up) {
		char when[64];

		show_time(sw->up_since, when, sizeof(when));
		json_kv_string(j, "up_since", when);
		json_kv_uint(j, "up_since_epoch", (uint64_t)sw->up_since);
		json_kv_double(j, "up_for_seconds", sw->up_for);
	}
	PUT(j, sw, sweep_counts);
	json_kv_string(j, "last_kind", sw->last_kind);
	PUT(j, sw, sweep_last);
	json_kv_string(j, "last_why", sw->last_ok ? NULL : sw->last_why);
	PUT(j, sw, sweep_tail);
	json_key(j, "phases");
	json_object_begin(j);
	PUT(j, sw, sweep_phases);
	PUT(j, pr, program_phases);
	json_object_end(j);
	PUT_OBJECT(j, "inherit", sw, sweep_inherit);
	json_key(j, "last_program");
	json_object_begin(j);
	json_kv_bool(j, "ok", pr->ok);
	json_kv_string(j, "why", pr->ok ? NULL : pr->why);
	PUT(j, pr, program_rows);
	json_object_end(j);
	json_object_end(j);
}

/* The model in use (a master's), or the fabric as a standby last saw it. */
static void
fabric_json(struct json *j, const struct show_status *st)
{
	const struct sweep_status *sw = st->sweep;
	struct fabric_counts k;
	char when[64];

	json_key(j, "fabric");
	if (st->fabric == NULL && sw->seen_wall == 0) {
		json_null(j);
		return;
	}
	if (st->fabric != NULL)
		fabric_count(st->fabric, &k);
	else
		k = sw->seen;
	json_object_begin(j);
	json_kv_bool(j, "in_use", st->fabric != NULL);
	json_kv_uint(j, "nodes", st->fabric ? st->fabric->nnodes :
	    sw->seen_nodes);
	PUT(j, &k, fabric_rows);
	if (sw->seen_wall > 0) {
		show_time(sw->seen_wall, when, sizeof(when));
		json_kv_string(j, "seen_at", when);
		json_kv_uint(j, "seen_at_epoch", (uint64_t)sw->seen_wall);
		json_kv_double(j, "seen_seconds_ago", st->now > sw->seen_wall ?
		    st->now - sw->seen_wall : 0);
	}
	json_object_end(j);
}

static void
routing_json(struct json *j, const struct show_status *st)
{
	const struct route_report *rep = st->report;

	json_key(j, "routing");
	if (rep == NULL) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_string(j, "engine", rep->engine);
	PUT(j, rep, routing_head);
	json_key(j, "hops");
	json_array_begin(j);
	for (size_t i = 0; i <= ROUTE_HOPS_MAX; i++)
		json_uint(j, rep->hops[i]);
	json_array_end(j);
	PUT(j, rep, routing_load);
	json_key(j, "deadlock_free");
	if (rep->deadlock_free < 0)
		json_null(j);
	else
		json_bool(j, rep->deadlock_free > 0);
	PUT(j, rep, routing_tail);
	json_object_end(j);
}

/* MAD counters by class, method and attribute: mad.counters.smp.Set.
 * LinearForwardingTable.sent. */
static void
mad_json(struct json *j, const struct show_status *st)
{
	const struct show_counter *c = st->counters;
	size_t n = st->ncounters, i = 0, k;

	json_key(j, "mad");
	json_object_begin(j);
	PUT(j, st, mad_rows);
	json_key(j, "counters");
	json_object_begin(j);
	/* the engine lists them by class, then method, then attribute */
	while (i < n) {
		json_key(j, c[i].cls);
		json_object_begin(j);
		for (k = i; k < n && !strcmp(c[k].cls, c[i].cls); ) {
			size_t m = k;

			json_key(j, c[m].method);
			json_object_begin(j);
			for (; k < n && !strcmp(c[k].cls, c[i].cls) &&
			    !strcmp(c[k].method, c[m].method); k++)
				PUT_OBJECT(j, c[k].attr, &c[k].c,
				    mad_counter_rows);
			json_object_end(j);
		}
		json_object_end(j);
		i = k;
	}
	json_object_end(j);
	json_object_end(j);
}

/* The SA agent's counters (per attribute counts are the MAD engine's). */
static void
sa_json(struct json *j, const struct show_status *st)
{
	json_key(j, "sa");
	if (st->sa == NULL) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_bool(j, "serving", st->sa_serving);
	PUT(j, st->sa, sa_rows);
	if (st->mcm != NULL)
		PUT_OBJECT(j, "mcmember", st->mcm, mcmember_rows);
	json_object_end(j);
}

static void
virt_json(struct json *j, const struct show_status *st)
{
	const struct sweep_status *sw = st->sweep;
	const struct vports_result *v = st->vprog;

	PUT_OBJECT(j, "alias_guids", st->vfguid, alias_rows);
	json_key(j, "vports");
	if (!sw->virt) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	PUT(j, sw, vport_rows);
	if (v != NULL) {
		json_key(j, "last_program");
		json_object_begin(j);
		PUT(j, v, vprog_rows);
		json_kv_uint(j, "failures", v->timeouts + v->errors);
		PUT(j, v, vprog_rereg);
		json_object_end(j);
	}
	json_object_end(j);
}

/* Build the document into j (whatever its mode). */
static void
status_doc(struct json *j, const struct show_status *st)
{
	char line[512];

	show_status_line(st, line, sizeof(line));
	json_object_begin(j);
	json_kv_string(j, "version", st->version);
	/* the line systemd's STATUS= shows */
	json_kv_string(j, "summary", line);
	json_kv_string(j, "sm_state", st->sm_state);
	json_kv_guid(j, "port_guid", st->port_guid);
	json_kv_uint(j, "priority", st->priority);
	json_kv_string(j, "log_level", st->log_level);
	json_kv_string(j, "note", st->note);
	json_kv_uint(j, "traps", st->traps);
	if (st->sm != NULL)
		sm_json(j, st);
	sweep_json(j, st);
	fabric_json(j, st);
	routing_json(j, st);
	mad_json(j, st);
	sa_json(j, st);
	virt_json(j, st);
	if (st->mcast != NULL)
		PUT_OBJECT(j, "mcast", st->mcast, mcast_rows);
	if (st->perfmgr != NULL)
		PUT_OBJECT(j, "perfmgr", st->perfmgr, perfmgr_rows);
	if (st->mkeys != NULL) {
		json_key(j, "mkey");
		json_object_begin(j);
		PUT(j, st->mkeys, mkey_rows);
		json_kv_string(j, "last_offender",
		    st->mkeys->last_offender[0] ? st->mkeys->last_offender :
		    NULL);
		json_object_end(j);
	}
	json_object_end(j);
}

/* The document in mode: the text tree and the stats file are the JSON's
 * keys, laid out otherwise. */
static void
status_in_mode(const struct show_status *st, enum json_mode mode,
    struct json *out)
{
	json_init_mode(out, mode);
	status_doc(out, st);
}

void
show_status(struct show *s, const struct show_status *st)
{
	struct json t;

	if (s->json) {
		status_doc(&s->j, st);
		return;
	}
	status_in_mode(st, JSON_MODE_TEXT, &t);
	show_printf(s, "%s", t.buf);
	json_fini(&t);
}

void
show_status_flat(const struct show_status *st, FILE *fp)
{
	struct json t;

	status_in_mode(st, JSON_MODE_FLAT, &t);
	fputs(t.buf, fp);
	json_fini(&t);
}

void
show_status_line(const struct show_status *st, char *buf, size_t len)
{
	const struct sweep_status *sw = st->sweep;
	struct show_master m;
	struct fabric_counts k;
	size_t off = 0, n = 0;
	char why[200];
	unsigned nodes;

#define ADD(...) do { \
	int r_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__); \
	if (r_ > 0) \
		off += (size_t)r_; \
	if (off >= len) \
		off = len ? len - 1 : 0; \
} while (0)
	if (len == 0)
		return;
	buf[0] = '\0';
	show_master_of(st, &m);
	ADD("%s", st->sm != NULL ? st->sm->state : st->sm_state);
	if (st->sm != NULL && st->sm->sm_state == SM_MASTER) {
		if (sw->subnet_up)
			ADD(", subnet up");
		else if (!sw->last_ok && strcmp(sw->last_kind, "none") != 0)
			ADD(", subnet not up: %s", show_clean(sw->last_why, why,
			    sizeof(why)));
		else
			ADD(", subnet not up yet");
		n = show_standbys(st);
		ADD("; %zu standby%s", n, n == 1 ? "" : "s");
	} else if (m.known)
		ADD(" for master 0x%016" PRIx64 " (LID %u, priority %u)",
		    m.guid, m.lid, m.priority);
	else if (!sw->last_ok && strcmp(sw->last_kind, "none") != 0)
		ADD(": %s", show_clean(sw->last_why, why, sizeof(why)));
	else if (sw->heavy_sweeps == 0 || sw->seen_wall == 0)
		ADD(": first discovery under way");
	if (st->fabric != NULL || sw->seen_wall > 0) {
		if (st->fabric != NULL)
			fabric_count(st->fabric, &k);
		else
			k = sw->seen;
		nodes = st->fabric ? st->fabric->nnodes : sw->seen_nodes;
		ADD("; fabric%s: %u nodes, %u LIDs", st->fabric ? "" :
		    " as last seen", nodes, k.endports);
	}
	ADD("; %" PRIu64 " sweeps", sw->sweeps);
	if (!sw->enabled)
		ADD(", held (ibsmctl sweep on resumes)");
	if (st->note != NULL)
		ADD("; %s", st->note);
#undef ADD
}
