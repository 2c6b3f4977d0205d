#include "sm/smstate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <ev.h>
#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/mkey.h"
#include "mad/mad.h"
#include "mad/smp.h"

#define CAP_IS_SM               0x00000002u
#define CAP_IS_SM_DISABLED      0x00000400u
#define TRAP_SM_LOCAL_CHANGES   144
#define TRAP_TYPE_INFO          4
/* SMInfo Gets sent at once to each SM port in an election: on a lossy
 * fabric one request (with its retries) may go unanswered while the SM
 * lives; many more to the master whose polls went unanswered, since
 * taking the subnet from a living master is the worst outcome. */
#define ELECT_COPIES            4
#define ELECT_COPIES_LOST       4       /* times as many */
#define ELECT_COPIES_MAX        16      /* elect_copies beyond is taken as this */
/* Ports that announced themselves as SMs (trap 144) remembered until the
 * next election asks them. */
#define NOTED_MAX               16
/* At most this long (and at least LOST_HOLD_MIN s) a DISCOVERING SM
 * keeps standing by for a master whose polls went unanswered while the
 * master's port is neither reached nor known to be down: a lossy path,
 * not a dead master, is then the likelier cause. */
#define LOST_HOLD_MIN           60.0
#define LOST_HOLD_POLLS         10
/* A master leaving (SIGTERM) waits this long for its standby to take
 * the subnet (the HANDOVER answered and the ACKNOWLEDGE). */
#define LEAVE_MAX               5.0
#define LEAVE_PROBE             1.0     /* the other SMs asked again first */

/* The machine's own states: IBA's four, MASTER split in three. */
enum st { S_NOTACTIVE, S_DISCOVERING, S_STANDBY, S_MASTER, S_HANDOVER,
	  S_WAITING, S_COUNT };
enum ev { E_START, E_WON, E_DEFER, E_HIGHER, E_OTHER_MASTER, E_HANDED,
	  E_HANDOVER_FAILED, E_ALIVE, E_MISSED, E_LOST, E_HANDOVER, E_ACK,
	  E_DISABLE, E_STANDBY, E_DISCOVER, E_COUNT };

struct peer {
	struct smstate_peer pub;
	struct dr_path path;
	double last_answer;     /* monotonic, 0: never */
	unsigned seen;          /* election that last found it */
	bool asked;             /* answered in the election under way */
	bool refused;           /* refused our HANDOVER since it last
				 * changed priority or state */
	bool watched;           /* a watch Get to it is under way */
	bool present;           /* its port is in the model of the last
				 * election (a peer whose port went away is
				 * kept: when it comes back it is asked
				 * again, IsSM bit or not) */
	bool claims;            /* its port says IsSM (or announced itself
				 * with trap 144) */
	unsigned elect_out;     /* election Gets to it still under way */
	uint64_t nb_guid;       /* the switch its port is cabled to, 0 */
	uint8_t nb_port;
	bool key_told;          /* its other SM_Key was logged ... */
	uint64_t told_key;      /* ... being this one (and ours that) */
	uint64_t told_ours;
};

enum qkind { Q_ELECT, Q_POLL, Q_WATCH, Q_HANDOVER, Q_ACK, Q_LEAVE };

struct query {
	LIST_ENTRY(query) entry;
	struct smstate *s;      /* NULL: orphaned by smstate_free() */
	unsigned gen;           /* s->gen when sent */
	uint64_t guid;          /* port GUID asked */
	enum qkind kind;
};

struct smstate {
	struct ev_loop *loop;
	struct mad_engine *mad;
	struct smstate_opts o;
	struct smstate_hooks h;
	enum st state;
	unsigned gen;           /* bumped when a poll or election is void */
	ev_timer tick;          /* poll (STANDBY, WAITING) or watch (MASTER) */
	LIST_HEAD(, query) queries;     /* under way */
	struct peer *peers;
	size_t npeers, cap;
	struct smstate_peer *view;
	uint64_t target;        /* port GUID stood by for / polled / handed to */
	uint64_t next;          /* the peer the event being posted concerns */
	uint64_t signal_from;   /* sender of the SMInfo Set being acted on */
	/* the master that sent us HANDOVER while we were DISCOVERING (0:
	 * none), until the election under way ends */
	uint64_t handed_by;
	bool handed_acked;      /* its ACKNOWLEDGE went out */
	unsigned misses;
	bool poll_inflight;
	uint16_t self_lid;      /* our port's LID at the last discovery */
	/* election under way */
	unsigned elect_gen;
	smstate_elect_cb elect_done;
	void *elect_arg;
	bool watch_sweep;       /* a watch answer asked for a sweep this tick */
	uint64_t handovers_sent, handovers_taken, transitions;
	uint32_t trap_tid;
	const struct fabric *elect_f;   /* the model the election asks about */
	unsigned elect_unresolved;      /* peers neither answered nor failed */
	/* the master whose polls went unanswered (0: none), since when */
	uint64_t lost;
	double lost_since;
	uint16_t noted[NOTED_MAX];      /* LIDs that sent trap 144 as SMs */
	unsigned nnoted;
	/* leaving (SIGTERM): the subnet handed to a standby first */
	bool leaving;
	bool leave_probing;     /* asking the other SMs before handing over */
	unsigned leave_pending; /* probe Gets still under way */
	smstate_left_cb left_cb;
	void *left_arg;
	ev_timer leave_timer;
};

struct transition {
	enum st state;
	enum ev event;
	void (*action)(struct smstate *);
	enum st next;
};

static void a_nothing(struct smstate *);
static void a_rediscover(struct smstate *);
static void a_master(struct smstate *);
static void a_resume(struct smstate *);
static void a_standby(struct smstate *);
static void a_take_over(struct smstate *);
static void a_quiet(struct smstate *);
static void a_hand_over(struct smstate *);
static void a_wait(struct smstate *);
static void a_handed(struct smstate *);
static void a_foreign(struct smstate *);
static void a_alive(struct smstate *);
static void a_missed(struct smstate *);

static const struct transition fsm_table[] = {
	{ S_NOTACTIVE,   E_START,           a_rediscover, S_DISCOVERING },
	{ S_NOTACTIVE,   E_STANDBY,         a_standby,    S_STANDBY },
	{ S_NOTACTIVE,   E_DISCOVER,        a_rediscover, S_DISCOVERING },
	{ S_DISCOVERING, E_WON,             a_master,     S_MASTER },
	{ S_DISCOVERING, E_DEFER,           a_standby,    S_STANDBY },
	{ S_DISCOVERING, E_HANDOVER,        a_handed,     S_DISCOVERING },
	{ S_STANDBY,     E_ALIVE,           a_alive,      S_STANDBY },
	{ S_STANDBY,     E_MISSED,          a_missed,     S_STANDBY },
	{ S_STANDBY,     E_LOST,            a_rediscover, S_DISCOVERING },
	{ S_STANDBY,     E_DISCOVER,        a_rediscover, S_DISCOVERING },
	{ S_STANDBY,     E_DISABLE,         a_quiet,      S_NOTACTIVE },
	{ S_STANDBY,     E_HANDOVER,        a_take_over,  S_MASTER },
	{ S_STANDBY,     E_ACK,             a_nothing,    S_STANDBY },
	{ S_MASTER,      E_WON,             a_nothing,    S_MASTER },
	{ S_MASTER,      E_DEFER,           a_standby,    S_STANDBY },
	{ S_MASTER,      E_HIGHER,          a_hand_over,  S_HANDOVER },
	{ S_MASTER,      E_OTHER_MASTER,    a_wait,       S_WAITING },
	{ S_MASTER,      E_HANDOVER,        a_foreign,    S_MASTER },
	{ S_MASTER,      E_DISCOVER,        a_rediscover, S_DISCOVERING },
	{ S_HANDOVER,    E_HANDED,          a_standby,    S_STANDBY },
	{ S_HANDOVER,    E_ACK,             a_standby,    S_STANDBY },
	{ S_HANDOVER,    E_HANDOVER_FAILED, a_resume,     S_MASTER },
	{ S_HANDOVER,    E_DISCOVER,        a_rediscover, S_DISCOVERING },
	{ S_WAITING,     E_ALIVE,           a_alive,      S_WAITING },
	{ S_WAITING,     E_MISSED,          a_missed,     S_WAITING },
	{ S_WAITING,     E_LOST,            a_resume,     S_MASTER },
	{ S_WAITING,     E_HANDOVER,        a_resume,     S_MASTER },
	{ S_WAITING,     E_WON,             a_master,     S_MASTER },
	{ S_WAITING,     E_DEFER,           a_standby,    S_STANDBY },
	{ S_WAITING,     E_HIGHER,          a_hand_over,  S_HANDOVER },
	{ S_WAITING,     E_OTHER_MASTER,    a_wait,       S_WAITING },
	{ S_WAITING,     E_DISCOVER,        a_rediscover, S_DISCOVERING },
};

static const enum sm_state iba_state[S_COUNT] = {
	[S_NOTACTIVE] = SM_NOTACTIVE, [S_DISCOVERING] = SM_DISCOVERING,
	[S_STANDBY] = SM_STANDBY, [S_MASTER] = SM_MASTER,
	[S_HANDOVER] = SM_MASTER, [S_WAITING] = SM_MASTER,
};

static const char *
st_name(enum st s)
{
	static const char *const n[] = { "NOTACTIVE", "DISCOVERING",
	    "STANDBY", "MASTER", "MASTER (handing over)",
	    "MASTER (waiting)" };
	return s < S_COUNT ? n[s] : "?";
}

static const char *
ev_name(enum ev e)
{
	static const char *const n[] = { "start", "won", "defer", "higher",
	    "other-master", "handed", "handover-failed", "alive", "missed",
	    "lost", "HANDOVER", "ACKNOWLEDGE", "DISABLE", "STANDBY",
	    "DISCOVER" };
	return e < E_COUNT ? n[e] : "?";
}

static const struct transition *
lookup(enum st state, enum ev event)
{
	for (size_t i = 0; i < sizeof(fsm_table) / sizeof(fsm_table[0]); i++)
		if (fsm_table[i].state == state && fsm_table[i].event == event)
			return &fsm_table[i];
	return NULL;
}

static void leave_end(struct smstate *s, bool handed);
static void leave_pick(struct smstate *s);

/* The state changes (and is reported) before the action runs, so that an
 * action may post the next event itself. */
static void
fsm(struct smstate *s, enum ev event, const char *why)
{
	const struct transition *t = lookup(s->state, event);
	enum sm_state from = iba_state[s->state];

	if (t == NULL) {
		log_debug("sm: event %s ignored in state %s (%s)",
		    ev_name(event), st_name(s->state), why);
		return;
	}
	if (t->next != s->state) {
		s->transitions++;
		log_info("sm: %s -> %s: %s", st_name(s->state),
		    st_name(t->next), why);
	} else {
		log_debug("sm: %s --%s--> %s: %s", st_name(s->state),
		    ev_name(event), st_name(t->next), why);
	}
	s->state = t->next;
	if (iba_state[t->next] != from && s->h.changed != NULL)
		s->h.changed(s->h.arg, from, iba_state[t->next], why);
	t->action(s);
	/* leaving: done once the standby acknowledged, or refused */
	if (s->leaving && (event == E_ACK || event == E_HANDOVER_FAILED))
		leave_end(s, event == E_ACK);
}

static double
now(const struct smstate *s)
{
	return ev_now(s->loop);
}

static struct peer *
peer_find(struct smstate *s, uint64_t guid)
{
	for (size_t i = 0; i < s->npeers; i++)
		if (s->peers[i].pub.guid == guid)
			return &s->peers[i];
	return NULL;
}

static struct peer *
peer_add(struct smstate *s, uint64_t guid)
{
	struct peer *p;

	if (s->npeers == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->peers = xreallocarray(s->peers, s->cap, sizeof(*s->peers));
	}
	p = &s->peers[s->npeers++];
	memset(p, 0, sizeof(*p));
	p->pub.guid = guid;
	return p;
}

/* ---- wire ---- */

static uint32_t
get(const uint8_t *d, enum MAD_FIELDS f)
{
	return mad_get_field((void *)d, 0, f);
}

void
smstate_encode(const struct smstate *s, uint8_t *data, bool with_key)
{
	memset(data, 0, SMP_DATA_SIZE);
	mad_set_field64(data, 0, IB_SMINFO_GUID_F,
	    mad_engine_port_guid(s->mad));
	mad_set_field64(data, 0, IB_SMINFO_KEY_F, with_key ? s->o.sm_key : 0);
	/* ActCount must keep growing while we work: SMPs sent does. */
	mad_set_field(data, 0, IB_SMINFO_ACT_F,
	    (uint32_t)mad_total_sent(s->mad));
	mad_set_field(data, 0, IB_SMINFO_PRIO_F, s->o.priority);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, iba_state[s->state]);
}

static void on_query(void *arg, int status, const uint8_t *resp);

/* The engine dropped a query unanswered (mad_engine_free()). */
static void
drop_query(void *arg)
{
	struct query *q = arg;

	if (q->s != NULL)
		LIST_REMOVE(q, entry);
	free(q);
}

/* copy: the election's copies go out at once, each in a window of its
 * own (the engine keeps at most a few requests per destination on the
 * wire), so that many copies cost one round trip, not several. */
static int
query_copy(struct smstate *s, struct peer *p, enum qkind kind, uint8_t method,
    unsigned mod, const uint8_t *data, unsigned copy)
{
	struct query *q = xmalloc(sizeof(*q));
	struct smp_req r = {
		.method = method, .attr = ATTR_SM_INFO, .mod = mod,
		.path = &p->path, .dest = p->pub.guid ^ ((uint64_t)copy << 56),
		.data = data, .mkey = s->o.mkey, .drop = drop_query,
	};

	q->s = s;
	q->gen = kind == Q_ELECT ? s->elect_gen : s->gen;
	q->guid = p->pub.guid;
	q->kind = kind;
	if (smp_request(s->mad, &r, on_query, q) < 0) {
		free(q);
		return -1;
	}
	LIST_INSERT_HEAD(&s->queries, q, entry);
	return 0;
}

static int
query(struct smstate *s, struct peer *p, enum qkind kind, uint8_t method,
    unsigned mod, const uint8_t *data)
{
	return query_copy(s, p, kind, method, mod, data, 0);
}

/* An SM of another key never hands over to us nor we to it: say once
 * (per key) what to set, so that a mixed subnet as shipped can be made
 * one that hands over. */
static void
tell_key(struct smstate *s, struct peer *p, uint64_t key)
{
	char kt[KEY_TEXT_LEN], ko[KEY_TEXT_LEN];

	if (key == s->o.sm_key) {
		if (p->key_told)
			log_info("sm: SM 0x%016" PRIx64 " now has our SM_Key: "
			    "handovers with it are possible", p->pub.guid);
		p->key_told = false;
		return;
	}
	if (p->key_told && p->told_key == key && p->told_ours == s->o.sm_key)
		return;
	p->key_told = true;
	p->told_key = key;
	p->told_ours = s->o.sm_key;
	/* keys are secrets: shown by their last digits only */
	if (key != 0)
		log_warnx("sm: SM 0x%016" PRIx64 " (LID %u) has SM_Key "
		    "%s, ours is %s: no handover either way until both have "
		    "one key; set the same sm_key on both (OpenSM: sm_key in "
		    "opensm.conf)", p->pub.guid, p->pub.lid, key_text(key, kt),
		    key_text(s->o.sm_key, ko));
	else
		log_warnx("sm: SM 0x%016" PRIx64 " (LID %u) answers SMInfo "
		    "without its SM_Key (another key than ours, %s, or hidden "
		    "by its M_Key): no handover either way until both have one "
		    "key; set the same sm_key on both", p->pub.guid, p->pub.lid,
		    key_text(s->o.sm_key, ko));
}

/* Record an SMInfo answer of p; false when it is not p's. */
static bool
record(struct smstate *s, struct peer *p, const uint8_t *resp)
{
	const uint8_t *d = resp + SMP_DATA_OFFSET;
	uint64_t guid = mad_get_field64((void *)d, 0, IB_SMINFO_GUID_F);

	if (guid != p->pub.guid) {
		log_warnx("sm: port 0x%016" PRIx64 " answered SMInfo with "
		    "GUID 0x%016" PRIx64 "; ignored", p->pub.guid, guid);
		return false;
	}
	bool moved = p->pub.priority != get(d, IB_SMINFO_PRIO_F) ||
	    p->pub.state != get(d, IB_SMINFO_STATE_F);

	if (moved)
		p->refused = false;
	moved = moved || !p->pub.answered;
	p->pub.priority = (uint8_t)get(d, IB_SMINFO_PRIO_F);
	p->pub.state = (enum sm_state)get(d, IB_SMINFO_STATE_F);
	p->pub.trusted = mad_get_field64((void *)d, 0, IB_SMINFO_KEY_F) ==
	    s->o.sm_key;
	tell_key(s, p, mad_get_field64((void *)d, 0, IB_SMINFO_KEY_F));
	p->pub.answered = true;
	p->pub.misses = 0;
	p->last_answer = now(s);
	if (moved && s->h.peers != NULL)
		s->h.peers(s->h.arg);
	return true;
}

/* Trap 144 to the master we stand by for: our priority is above its. */
static void
send_trap144(struct smstate *s, const struct peer *m)
{
	uint8_t mad[256] = { 0 }, *d = mad + SMP_DATA_OFFSET;

	if (m->pub.lid == 0 || s->self_lid == 0)
		return;
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, MGMT_CLASS_SMP_LID);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_method(mad, MAD_TRAP);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x51000000u | ++s->trap_tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, ATTR_NOTICE);
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TYPE_F, TRAP_TYPE_INFO);
	mad_set_field(d, 0, IB_NOTICE_PRODUCER_F, NODE_CA);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, TRAP_SM_LOCAL_CHANGES);
	mad_set_field(d, 0, IB_NOTICE_ISSUER_LID_F, s->self_lid);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_LID_F, s->self_lid);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_CAPMASK_F, CAP_IS_SM);
	/* Change flags (data bytes 20-21): bit 3, SM priority changed. */
	d[21] = 0x08;
	if (smp_reply(s->mad, mad, m->pub.lid) < 0)
		log_warnx("sm: trap 144 to master LID %u not sent", m->pub.lid);
	else
		log_info("sm: priority %u above master 0x%016" PRIx64 "'s %u: "
		    "trap 144 sent to LID %u", s->o.priority, m->pub.guid,
		    m->pub.priority, m->pub.lid);
}

static bool
higher_than_self(const struct smstate *s, const struct peer *p)
{
	return smstate_higher(p->pub.priority, p->pub.guid, s->o.priority,
	    mad_engine_port_guid(s->mad));
}

/* ---- polling ---- */

static void
poll_done(struct smstate *s, struct peer *p, bool ok)
{
	char why[160];

	s->poll_inflight = false;
	if (!ok) {
		if (p != NULL)
			p->pub.misses++;
		snprintf(why, sizeof(why), "0x%016" PRIx64 " did not answer "
		    "SMInfo (%u of %u)", s->target, s->misses + 1,
		    s->o.poll_retries);
		fsm(s, E_MISSED, why);
		return;
	}
	/* Standing by, a higher SM that is not master yet will be one. */
	if (p->pub.state == SM_MASTER || (s->state == S_STANDBY &&
	    (p->pub.state == SM_DISCOVERING || p->pub.state == SM_STANDBY) &&
	    higher_than_self(s, p))) {
		/* A master of lower standing learns of us from trap 144 (a
		 * standby above it, or a master waiting for its HANDOVER):
		 * at every poll, since a trap may be lost, or the master may
		 * have missed our port coming back. */
		if ((s->state == S_STANDBY || s->state == S_WAITING) &&
		    p->pub.state == SM_MASTER && p->pub.trusted &&
		    !higher_than_self(s, p))
			send_trap144(s, p);
		fsm(s, E_ALIVE, "master answered");
		return;
	}
	snprintf(why, sizeof(why), "0x%016" PRIx64 " answered as %s, not a "
	    "master (%u of %u)", p->pub.guid, smstate_name(p->pub.state),
	    s->misses + 1, s->o.poll_retries);
	fsm(s, E_MISSED, why);
}

static void
watch_done(struct smstate *s, struct peer *p, bool ok)
{
	p->watched = false;
	if (!ok) {
		p->pub.misses++;
		return;
	}
	if (s->watch_sweep || s->state != S_MASTER)
		return;
	if (p->pub.state == SM_MASTER || (p->pub.trusted && !p->refused &&
	    p->pub.state == SM_STANDBY && higher_than_self(s, p))) {
		log_info("sm: 0x%016" PRIx64 " is %s with priority %u: "
		    "heavy sweep to elect again", p->pub.guid,
		    smstate_name(p->pub.state), p->pub.priority);
		s->watch_sweep = true;
		s->h.sweep(s->h.arg);
	}
}

static void finish_election(struct smstate *s);

static void
on_query(void *arg, int status, const uint8_t *resp)
{
	struct query *q = arg;
	struct smstate *s = q->s;
	struct peer *p;
	bool ok = status == 0 && resp != NULL;
	char why[160];

	if (s == NULL) {
		free(q);
		return;
	}
	LIST_REMOVE(q, entry);
	p = peer_find(s, q->guid);

	switch (q->kind) {
	case Q_ELECT:
		if (q->gen != s->elect_gen || s->elect_done == NULL ||
		    p == NULL || p->elect_out == 0)
			break;
		p->elect_out--;
		if (p->asked)
			break;          /* another copy answered first */
		if (ok && record(s, p, resp)) {
			p->asked = true;
		} else if (p->elect_out > 0) {
			break;          /* other copies still under way */
		} else {
			p->pub.misses++;
			char st[96];

			if (p->claims)
				log_info("sm: SM port 0x%016" PRIx64 " did not "
				    "answer SMInfo (%s); left out of the "
				    "election", q->guid, mad_status_text(
				    MGMT_CLASS_SMP_DR, status, st, sizeof(st)));
			else
				log_debug("sm: port 0x%016" PRIx64 " (an SM "
				    "before) does not answer SMInfo", q->guid);
		}
		if (--s->elect_unresolved == 0)
			finish_election(s);
		break;
	case Q_POLL:
		if (q->gen != s->gen)
			break;
		poll_done(s, p, ok && p != NULL && record(s, p, resp));
		break;
	case Q_WATCH:
		if (p != NULL && q->gen != s->gen)
			p->watched = false;
		if (q->gen != s->gen || p == NULL)
			break;
		watch_done(s, p, ok && record(s, p, resp));
		break;
	case Q_HANDOVER:
		if (q->gen != s->gen)
			break;
		if (ok) {
			if (p != NULL)
				(void)record(s, p, resp);
			snprintf(why, sizeof(why), "0x%016" PRIx64 " accepted "
			    "the handover", q->guid);
			s->next = q->guid;
			fsm(s, E_HANDED, why);
		} else {
			/* Not offered again until it changes: no loop of
			 * sweeps and refusals. */
			if (p != NULL)
				p->refused = true;
			char st[96];

			snprintf(why, sizeof(why), "0x%016" PRIx64 " refused "
			    "the handover (%s)", q->guid, mad_status_text(
			    MGMT_CLASS_SMP_DR, status, st, sizeof(st)));
			fsm(s, E_HANDOVER_FAILED, why);
		}
		break;
	case Q_LEAVE:
		if (!s->leaving || !s->leave_probing)
			break;
		if (ok && p != NULL)
			(void)record(s, p, resp);
		if (--s->leave_pending == 0)
			leave_pick(s);
		break;
	case Q_ACK:
		log_debug("sm: ACKNOWLEDGE to 0x%016" PRIx64 ": %s", q->guid,
		    mad_status_text(MGMT_CLASS_SMP_DR, status, why,
		    sizeof(why)));
		break;
	}
	free(q);
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct smstate *s = w->data;
	uint8_t data[SMP_DATA_SIZE];
	struct peer *p;

	(void)loop;
	(void)revents;
	smstate_encode(s, data, false);
	switch (s->state) {
	case S_STANDBY:
	case S_WAITING:
		if (s->poll_inflight)
			return;
		if ((p = peer_find(s, s->target)) == NULL ||
		    query(s, p, Q_POLL, MAD_GET, 0, data) < 0) {
			poll_done(s, p, false);
			return;
		}
		s->poll_inflight = true;
		break;
	case S_MASTER:
		s->watch_sweep = false;
		/* One Get at a time to each: a dead SM port does not pile
		 * up requests. */
		for (size_t i = 0; i < s->npeers; i++)
			if (s->peers[i].present && !s->peers[i].watched &&
			    query(s, &s->peers[i], Q_WATCH, MAD_GET, 0,
			    data) == 0)
				s->peers[i].watched = true;
		break;
	default:
		ev_timer_stop(s->loop, &s->tick);
		break;
	}
}

/* Void every poll and watch answer still to come, and stop the timer. */
static void
tick_stop(struct smstate *s)
{
	s->gen++;
	s->poll_inflight = false;
	ev_timer_stop(s->loop, &s->tick);
}

/* (Re)start the timer: first tick after first seconds, then every poll
 * interval. */
static void
tick_start(struct smstate *s, double first)
{
	tick_stop(s);
	ev_timer_set(&s->tick, first, s->o.poll_interval);
	ev_timer_start(s->loop, &s->tick);
}

/* ---- actions ---- */

static void
a_nothing(struct smstate *s)
{
	(void)s;
}

static void
a_rediscover(struct smstate *s)
{
	tick_stop(s);
	s->target = 0;
	s->h.sweep(s->h.arg);
}

static void
a_master(struct smstate *s)
{
	s->target = 0;
	tick_start(s, s->o.poll_interval);
}

static void
a_resume(struct smstate *s)
{
	a_master(s);
	s->h.sweep(s->h.arg);
}

static void
a_standby(struct smstate *s)
{
	struct peer *p = peer_find(s, s->next);

	if (p != NULL || s->target == 0)
		s->target = s->next;
	s->misses = 0;
	/* Poll at once: a master of lower standing hears of us now. */
	tick_start(s, 0.);
}

/* ACKNOWLEDGE to the SM that handed us the subnet; false when it is not
 * known (no path to it yet) or the query could not go out. */
static bool
acknowledge(struct smstate *s, uint64_t guid)
{
	struct peer *p = peer_find(s, guid);
	uint8_t data[SMP_DATA_SIZE];

	/* The sender checks that an ACKNOWLEDGE comes from a STANDBY SM:
	 * we were one (or not yet master) when its HANDOVER arrived. */
	smstate_encode(s, data, true);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, SM_STANDBY);
	if (p == NULL || query(s, p, Q_ACK, MAD_SET, SM_SIG_ACKNOWLEDGE,
	    data) != 0)
		return false;
	log_info("sm: ACKNOWLEDGE sent to 0x%016" PRIx64, p->pub.guid);
	return true;
}

static void
a_take_over(struct smstate *s)
{
	s->handovers_taken++;
	(void)acknowledge(s, s->signal_from);
	a_resume(s);
}

/* A master may hand over to an SM it found DISCOVERING (OpenSM does, and
 * stands by at once): acknowledge, let the election take the HANDOVER
 * over any MASTER answer the sender gave before, and sweep on reading
 * what the devices hold (the sender's routes kept, as at a takeover). */
static void
a_handed(struct smstate *s)
{
	s->handed_by = s->signal_from;
	s->handed_acked = acknowledge(s, s->signal_from);
	a_foreign(s);
}

static void
a_quiet(struct smstate *s)
{
	tick_stop(s);
}

static void
a_hand_over(struct smstate *s)
{
	struct peer *p = peer_find(s, s->next);
	uint8_t data[SMP_DATA_SIZE];

	tick_stop(s);
	s->target = s->next;
	smstate_encode(s, data, true);
	if (p == NULL || query(s, p, Q_HANDOVER, MAD_SET, SM_SIG_HANDOVER,
	    data) < 0) {
		fsm(s, E_HANDOVER_FAILED, "HANDOVER could not be sent");
		return;
	}
	s->handovers_sent++;
	log_info("sm: HANDOVER sent to 0x%016" PRIx64 " (priority %u)",
	    p->pub.guid, p->pub.priority);
}

static void
a_wait(struct smstate *s)
{
	s->target = s->next;
	s->misses = 0;
	tick_start(s, s->o.poll_interval);
}

static void
a_foreign(struct smstate *s)
{
	if (s->h.foreign != NULL)
		s->h.foreign(s->h.arg);
	s->h.sweep(s->h.arg);
}

static void
a_alive(struct smstate *s)
{
	s->misses = 0;
	s->lost = 0;
}

static void
a_missed(struct smstate *s)
{
	char why[160];

	if (++s->misses < s->o.poll_retries)
		return;
	snprintf(why, sizeof(why), "0x%016" PRIx64 " unanswered or not a "
	    "master %u polls in a row", s->target, s->misses);
	if (s->state == S_STANDBY && s->target != 0 && s->lost != s->target) {
		s->lost = s->target;
		s->lost_since = now(s);
	}
	fsm(s, E_LOST, why);
}

/* ---- election ---- */

bool
smstate_higher(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b,
    uint64_t guid_b)
{
	return prio_a > prio_b || (prio_a == prio_b && guid_a < guid_b);
}

/* The best of the peers that pass keep(), NULL-safe: index or n. */
static size_t
best(const struct sm_candidate *peers, size_t n,
    bool (*keep)(const struct sm_candidate *, const struct sm_candidate *),
    const struct sm_candidate *self)
{
	size_t b = n;

	for (size_t i = 0; i < n; i++) {
		if (peers[i].state == SM_NOTACTIVE || !keep(&peers[i], self))
			continue;
		if (b == n || smstate_higher(peers[i].priority, peers[i].guid,
		    peers[b].priority, peers[b].guid))
			b = i;
	}
	return b;
}

static bool
k_master(const struct sm_candidate *c, const struct sm_candidate *self)
{
	(void)self;
	return c->state == SM_MASTER;
}

static bool
k_higher(const struct sm_candidate *c, const struct sm_candidate *self)
{
	return smstate_higher(c->priority, c->guid, self->priority, self->guid);
}

static bool
k_foreign_master(const struct sm_candidate *c, const struct sm_candidate *self)
{
	return !c->trusted && k_master(c, self);
}

/* A DISCOVERING SM will find us and stand by first: the handover waits
 * for that (its trap 144, or the next watch). */
static bool
k_trusted_higher(const struct sm_candidate *c, const struct sm_candidate *self)
{
	return c->trusted && k_higher(c, self) &&
	    (c->state == SM_STANDBY || c->state == SM_MASTER);
}

static bool
k_trusted_master(const struct sm_candidate *c, const struct sm_candidate *self)
{
	return c->trusted && k_master(c, self);
}

enum sm_verdict
smstate_decide(const struct sm_candidate *self,
    const struct sm_candidate *peers, size_t n, size_t *which)
{
	size_t b;

	if (self->state != SM_MASTER) {
		/* A master present keeps the subnet; else the highest. */
		if ((b = best(peers, n, k_master, self)) < n ||
		    (b = best(peers, n, k_higher, self)) < n) {
			*which = b;
			return SM_V_DEFER;
		}
		return SM_V_WIN;
	}
	/* A master we cannot authenticate would not take our handover nor
	 * hand over to us: never fight it. */
	if ((b = best(peers, n, k_foreign_master, self)) < n) {
		*which = b;
		return SM_V_DEFER;
	}
	if ((b = best(peers, n, k_trusted_higher, self)) < n) {
		*which = b;
		return SM_V_HANDOVER;
	}
	/* C14-60.2.1: a lower master hands over to us; wait for it. */
	if ((b = best(peers, n, k_trusted_master, self)) < n) {
		*which = b;
		return SM_V_WAIT;
	}
	return SM_V_WIN;
}

const char *
smstate_verdict_name(enum sm_verdict v)
{
	static const char *const n[] = { "win", "defer", "handover", "wait" };
	return v <= SM_V_WAIT ? n[v] : "?";
}

/*
 * The master whose polls went unanswered did not answer the election
 * either: is it gone? Yes when its port was reached and stays silent (its
 * SM is dead), or when the switch port it is cabled to is reached and
 * down. No when neither its port nor its link could be seen, while the
 * master was lost less than the hold limit ago: the path to it is more
 * likely lossy than the master dead, and taking a subnet a master still
 * runs is the worse mistake.
 */
static bool
lost_unaccounted(const struct smstate *s, const char **how)
{
	const struct fabric *f = s->elect_f;
	const struct peer *p = NULL;
	double limit = LOST_HOLD_POLLS * s->o.poll_interval *
	    s->o.poll_retries;
	uint32_t n, q;

	for (size_t i = 0; i < s->npeers; i++)
		if (s->peers[i].pub.guid == s->lost)
			p = &s->peers[i];
	if (p == NULL || p->asked || p->present)
		return false;
	if (limit < LOST_HOLD_MIN)
		limit = LOST_HOLD_MIN;
	if (now(s) - s->lost_since >= limit) {
		*how = "the hold limit is spent";
		return false;
	}
	if (p->nb_guid == 0 ||
	    (n = fabric_node_by_guid(f, p->nb_guid)) == FABRIC_NONE ||
	    p->nb_port > f->nodes[n].nports) {
		*how = "neither its port nor the switch port it is cabled to "
		    "was reached";
		return true;
	}
	q = fabric_port_idx(f, n, p->nb_port);
	if (!f->ports[q].info_valid || f->ports[q].state == PORT_DOWN)
		return false;
	*how = "its port was not reached and its link is up";
	return true;
}

static void
finish_election(struct smstate *s)
{
	struct sm_candidate self = {
		.guid = mad_engine_port_guid(s->mad),
		.priority = s->o.priority, .state = iba_state[s->state],
		.trusted = true,
	};
	struct sm_candidate *c = xcalloc(s->npeers, sizeof(*c));
	size_t *idx = xcalloc(s->npeers, sizeof(*idx));
	smstate_elect_cb done = s->elect_done;
	void *arg = s->elect_arg;
	size_t n = 0, w = 0, keep = 0;
	enum sm_verdict v;
	const struct peer *p;
	char why[320];

	s->elect_done = NULL;
	/* A port that was an SM's, is there and does not answer, and does
	 * not say IsSM any more: no SM runs there now. */
	for (size_t i = 0; i < s->npeers; i++) {
		struct peer *q = &s->peers[i];

		if (q->present && !q->asked && !q->claims &&
		    q->pub.guid != s->lost) {
			log_info("sm: 0x%016" PRIx64 " is no SM any more",
			    q->pub.guid);
			continue;
		}
		s->peers[keep++] = *q;
	}
	s->npeers = keep;
	for (size_t i = 0; i < s->npeers; i++) {
		if (!s->peers[i].asked)
			continue;
		c[n] = (struct sm_candidate){ .guid = s->peers[i].pub.guid,
		    .priority = s->peers[i].pub.priority,
		    .state = s->peers[i].pub.state,
		    .trusted = s->peers[i].pub.trusted &&
		    !s->peers[i].refused };
		/* its HANDOVER came after (or crossed) its answer */
		if (c[n].guid == s->handed_by && c[n].state == SM_MASTER)
			c[n].state = s->peers[i].pub.state = SM_STANDBY;
		idx[n++] = i;
	}
	v = smstate_decide(&self, c, n, &w);
	p = v == SM_V_WIN ? NULL : &s->peers[idx[w]];
	s->next = p != NULL ? p->pub.guid : 0;
	if (v == SM_V_WIN && s->state == S_DISCOVERING && s->lost != 0) {
		const char *how = "";

		if (lost_unaccounted(s, &how)) {
			snprintf(why, sizeof(why), "master 0x%016" PRIx64 " "
			    "unanswered, but %s: standing by for it", s->lost,
			    how);
			s->next = s->lost;
			fsm(s, E_DEFER, why);
			goto out;
		}
		if (how[0])
			log_warnx("sm: master 0x%016" PRIx64 " unanswered for "
			    "%.0f s and %s: taking over", s->lost,
			    now(s) - s->lost_since, how);
	}
	if (v != SM_V_DEFER || p == NULL || p->pub.guid != s->lost)
		s->lost = 0;
	switch (v) {
	case SM_V_WIN: {
		size_t o = 0;

		if (s->handed_by != 0) {
			s->handovers_taken++;
			if (!s->handed_acked)
				(void)acknowledge(s, s->handed_by);
			o = (size_t)snprintf(why, sizeof(why), "handed over "
			    "by 0x%016" PRIx64 " while discovering; ",
			    s->handed_by);
		}
		o += (size_t)snprintf(why + o, sizeof(why) - o, "%zu other "
		    "SM%s answered, none master or of higher standing", n,
		    n == 1 ? "" : "s");
		/* Name what each said: an administrator (or a test) seeing
		 * this subnet taken beside another SM wants its answer. */
		for (size_t i = 0; i < n && i < 3 && o < sizeof(why); i++)
			o += (size_t)snprintf(why + o, sizeof(why) - o,
			    "%s0x%016" PRIx64 " %s priority %u%s",
			    i == 0 ? " (" : ", ", c[i].guid,
			    smstate_name(c[i].state), c[i].priority,
			    i + 1 == n || i == 2 ? ")" : "");
		fsm(s, E_WON, why);
		break;
	}
	case SM_V_DEFER:
		snprintf(why, sizeof(why), "%s%s SM 0x%016" PRIx64 " (priority "
		    "%u, %s) found", p->pub.trusted ? "" : "foreign ",
		    p->pub.state == SM_MASTER ? "master" : "higher",
		    p->pub.guid, p->pub.priority, smstate_name(p->pub.state));
		fsm(s, E_DEFER, why);
		break;
	case SM_V_HANDOVER:
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " (priority %u, "
		    "%s) has a higher standing", p->pub.guid, p->pub.priority,
		    smstate_name(p->pub.state));
		fsm(s, E_HIGHER, why);
		break;
	case SM_V_WAIT:
		snprintf(why, sizeof(why), "master 0x%016" PRIx64 " (priority "
		    "%u) of lower standing: waiting for its HANDOVER",
		    p->pub.guid, p->pub.priority);
		fsm(s, E_OTHER_MASTER, why);
		break;
	}
out:
	s->handed_by = 0;
	s->handed_acked = false;
	free(c);
	free(idx);
	done(arg, smstate_may_write(s));
}

static bool
noted(const struct smstate *s, uint16_t lid)
{
	for (unsigned i = 0; lid != 0 && i < s->nnoted; i++)
		if (s->noted[i] == lid)
			return true;
	return false;
}

void
smstate_note_sm(struct smstate *s, uint16_t lid)
{
	if (lid == 0 || noted(s, lid) || s->nnoted == NOTED_MAX)
		return;
	s->noted[s->nnoted++] = lid;
}

/* Ask p in the election under way: several Gets at once. */
static void
elect_ask(struct smstate *s, struct peer *p, const uint8_t *data)
{
	unsigned copies = s->o.elect_copies == 0 ? ELECT_COPIES :
	    s->o.elect_copies > ELECT_COPIES_MAX ? ELECT_COPIES_MAX :
	    s->o.elect_copies;

	if (p->pub.guid == s->lost)
		copies *= ELECT_COPIES_LOST;

	p->asked = false;
	p->elect_out = 0;
	for (unsigned c = 0; c < copies; c++)
		if (query_copy(s, p, Q_ELECT, MAD_GET, 0, data, c) == 0)
			p->elect_out++;
	if (p->elect_out > 0)
		s->elect_unresolved++;
}

void
smstate_elect(struct smstate *s, const struct fabric *f,
    smstate_elect_cb done, void *arg)
{
	uint8_t data[SMP_DATA_SIZE];
	size_t keep = 0;

	s->elect_gen++;
	if (s->state != S_DISCOVERING && iba_state[s->state] != SM_MASTER) {
		log_debug("sm: no election in state %s", st_name(s->state));
		done(arg, false);
		return;
	}
	s->elect_done = done;
	s->elect_arg = arg;
	s->elect_f = f;
	s->elect_unresolved = 1;        /* held until every request is out */
	if (f->sm_port != FABRIC_NONE && f->ports[f->sm_port].info_valid)
		s->self_lid = (uint16_t)get(f->ports[f->sm_port].info,
		    IB_PORT_LID_F);
	smstate_encode(s, data, false);
	for (size_t i = 0; i < s->npeers; i++) {
		s->peers[i].asked = false;
		s->peers[i].present = false;
		s->peers[i].elect_out = 0;
	}
	for (uint32_t i = 0; i < f->nports; i++) {
		const struct fabric_port *port = &f->ports[i];
		const struct dr_path *path;
		uint32_t cap;
		uint16_t lid;
		struct peer *p;
		bool claims;

		if (i == f->sm_port || !port->info_valid ||
		    !fabric_port_is_endport(f, i))
			continue;
		cap = get(port->info, IB_PORT_CAPMASK_F);
		lid = (uint16_t)get(port->info, IB_PORT_LID_F);
		if (cap & CAP_IS_SM_DISABLED)
			continue;
		claims = (cap & CAP_IS_SM) || noted(s, lid);
		p = peer_find(s, port->guid);
		/* A port known as an SM's (it answered SMInfo) is asked
		 * again when it comes
		 * back, whatever its PortInfo says now: a link that trained
		 * again may not show IsSM at once (ibsim resets it), and an
		 * SM there that still thinks itself master must hear of
		 * this one. */
		if ((!claims && (p == NULL || !p->pub.answered)) ||
		    (path = fabric_port_path(f, i)) == NULL)
			continue;
		if (p == NULL)
			p = peer_add(s, port->guid);
		p->seen = s->elect_gen;
		p->present = true;
		p->claims = claims;
		p->path = *path;
		p->pub.lid = lid;
		p->nb_guid = 0;
		if (port->peer != FABRIC_NONE) {
			p->nb_guid = f->nodes[f->ports[port->peer].node].guid;
			p->nb_port = f->ports[port->peer].num;
		}
		elect_ask(s, p, data);
	}
	s->nnoted = 0;
	/* Ports gone from the fabric stay known (not asked, not watched)
	 * while they are away; so does the master whose polls went
	 * unanswered. */
	for (size_t i = 0; i < s->npeers; i++)
		if (s->peers[i].present || s->peers[i].pub.answered ||
		    s->peers[i].pub.guid == s->lost)
			s->peers[keep++] = s->peers[i];
	s->npeers = keep;
	if (--s->elect_unresolved == 0)
		finish_election(s);
}

/* ---- SMInfo Set ---- */

static enum ev
signal_event(unsigned mod)
{
	switch (mod) {
	case SM_SIG_HANDOVER: return E_HANDOVER;
	case SM_SIG_ACKNOWLEDGE: return E_ACK;
	case SM_SIG_DISABLE: return E_DISABLE;
	case SM_SIG_STANDBY: return E_STANDBY;
	case SM_SIG_DISCOVER: return E_DISCOVER;
	}
	return E_COUNT;
}

bool
smstate_signal_ok(const struct smstate *s, unsigned mod, const uint8_t *smi)
{
	enum ev e = signal_event(mod);
	unsigned sender = get(smi, IB_SMINFO_STATE_F);

	if (e == E_COUNT)
		return false;
	if (sender != (e == E_ACK ? SM_STANDBY : SM_MASTER))
		return false;
	return lookup(s->state, e) != NULL;
}

void
smstate_signal(struct smstate *s, unsigned mod, const uint8_t *smi)
{
	uint64_t from = mad_get_field64((void *)smi, 0, IB_SMINFO_GUID_F);
	enum ev e = signal_event(mod);
	char why[120];

	if (e == E_COUNT)
		return;
	s->signal_from = from;
	s->next = from;
	snprintf(why, sizeof(why), "SMInfo Set %s from 0x%016" PRIx64,
	    ev_name(e), from);
	fsm(s, e, why);
}

/* ---- leaving ---- */

static void
leave_end(struct smstate *s, bool handed)
{
	smstate_left_cb cb = s->left_cb;

	if (!s->leaving)
		return;
	s->leaving = false;
	s->left_cb = NULL;
	ev_timer_stop(s->loop, &s->leave_timer);
	if (cb != NULL)
		cb(s->left_arg, handed);
}

static void
leave_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct smstate *s = w->data;

	(void)loop;
	(void)revents;
	if (s->leave_probing) {
		leave_pick(s);  /* with the answers that came */
		return;
	}
	/* the HANDOVER was answered (STANDBY now), the ACKNOWLEDGE lost */
	log_info("sm: leaving: %s after %.0f s", s->state == S_STANDBY ?
	    "handed over, no ACKNOWLEDGE" : "no answer to the HANDOVER",
	    LEAVE_MAX);
	leave_end(s, s->state == S_STANDBY);
}

/* The best trusted STANDBY to hand the subnet to, or NULL. */
static const struct peer *
leave_target(const struct smstate *s)
{
	const struct peer *b = NULL;

	for (size_t i = 0; i < s->npeers; i++) {
		const struct peer *p = &s->peers[i];

		if (!p->present || !p->pub.answered || !p->pub.trusted ||
		    p->refused || p->pub.state != SM_STANDBY)
			continue;
		if (b == NULL || smstate_higher(p->pub.priority, p->pub.guid,
		    b->pub.priority, b->pub.guid))
			b = p;
	}
	return b;
}

/* The probe is over (every SM answered, or its time is up): hand the
 * subnet to the best standby, or leave without one. */
static void
leave_pick(struct smstate *s)
{
	const struct peer *b;
	char why[160];

	s->leave_probing = false;
	if (s->state != S_MASTER || (b = leave_target(s)) == NULL) {
		leave_end(s, false);
		return;
	}
	ev_timer_stop(s->loop, &s->leave_timer);
	ev_timer_set(&s->leave_timer, LEAVE_MAX, 0.);
	ev_timer_start(s->loop, &s->leave_timer);
	s->next = b->pub.guid;
	snprintf(why, sizeof(why), "leaving: the subnet goes to standby "
	    "0x%016" PRIx64 " (priority %u)", b->pub.guid, b->pub.priority);
	fsm(s, E_HIGHER, why);
}

/*
 * What we know of the other SMs may be a poll interval old (one that just
 * started may still have been DISCOVERING when we last asked): ask every
 * SM we know once more, then pick.
 */
bool
smstate_leave(struct smstate *s, smstate_left_cb done, void *arg)
{
	uint8_t data[SMP_DATA_SIZE];

	if (s->state != S_MASTER || s->leaving)
		return false;
	smstate_encode(s, data, false);
	s->leave_pending = 0;
	for (size_t i = 0; i < s->npeers; i++) {
		struct peer *p = &s->peers[i];

		if (!p->present || !p->pub.answered || !p->pub.trusted ||
		    p->refused)
			continue;
		for (unsigned c = 0; c < 2; c++)
			if (query_copy(s, p, Q_LEAVE, MAD_GET, 0, data, c) == 0)
				s->leave_pending++;
	}
	if (s->leave_pending == 0)
		return false;
	s->leaving = true;
	s->leave_probing = true;
	s->left_cb = done;
	s->left_arg = arg;
	ev_timer_set(&s->leave_timer, LEAVE_PROBE, 0.);
	ev_timer_start(s->loop, &s->leave_timer);
	return true;
}

/* ---- life cycle and views ---- */

struct smstate *
smstate_new(struct ev_loop *loop, struct mad_engine *mad,
    const struct smstate_opts *o, const struct smstate_hooks *h)
{
	struct smstate *s = xcalloc(1, sizeof(*s));

	s->loop = loop;
	s->mad = mad;
	s->o = *o;
	if (s->o.poll_retries == 0)
		s->o.poll_retries = 1;
	s->h = *h;
	s->state = S_NOTACTIVE;
	LIST_INIT(&s->queries);
	ev_init(&s->tick, tick_cb);
	s->tick.data = s;
	ev_init(&s->leave_timer, leave_timer_cb);
	s->leave_timer.data = s;
	return s;
}

void
smstate_free(struct smstate *s)
{
	struct query *q;

	if (s == NULL)
		return;
	/* Answers still to come find no state machine. */
	while ((q = LIST_FIRST(&s->queries)) != NULL) {
		LIST_REMOVE(q, entry);
		q->s = NULL;
	}
	ev_timer_stop(s->loop, &s->tick);
	ev_timer_stop(s->loop, &s->leave_timer);
	free(s->peers);
	free(s->view);
	free(s);
}

void
smstate_start(struct smstate *s)
{
	fsm(s, E_START, "start");
}

void
smstate_set_opts(struct smstate *s, const struct smstate_opts *o)
{
	uint8_t old = s->o.priority;
	double interval = s->o.poll_interval;
	struct peer *m;

	s->o = *o;
	if (s->o.poll_retries == 0)
		s->o.poll_retries = 1;
	if (o->poll_interval != interval && ev_is_active(&s->tick)) {
		ev_timer_set(&s->tick, o->poll_interval, o->poll_interval);
		ev_timer_again(s->loop, &s->tick);
	}
	if (o->priority <= old || s->state != S_STANDBY ||
	    (m = peer_find(s, s->target)) == NULL)
		return;
	log_info("sm: priority raised from %u to %u", old, o->priority);
	if (m->pub.state == SM_MASTER && m->pub.trusted &&
	    !higher_than_self(s, m))
		send_trap144(s, m);
}

enum sm_state
smstate_state(const struct smstate *s)
{
	return iba_state[s->state];
}

const char *
smstate_detail(const struct smstate *s)
{
	return st_name(s->state);
}

const char *
smstate_name(enum sm_state state)
{
	switch (state) {
	case SM_NOTACTIVE: return "NOTACTIVE";
	case SM_DISCOVERING: return "DISCOVERING";
	case SM_STANDBY: return "STANDBY";
	case SM_MASTER: return "MASTER";
	}
	return "?";
}

uint8_t
smstate_priority(const struct smstate *s)
{
	return s->o.priority;
}

uint64_t
smstate_key(const struct smstate *s)
{
	return s->o.sm_key;
}

bool
smstate_may_sweep(const struct smstate *s)
{
	return s->state == S_DISCOVERING || iba_state[s->state] == SM_MASTER;
}

bool
smstate_may_write(const struct smstate *s)
{
	return s->state == S_MASTER;
}

void
smstate_get_status(struct smstate *s, struct smstate_status *st)
{
	double t = now(s);

	memset(st, 0, sizeof(*st));
	free(s->view);
	s->view = xcalloc(s->npeers, sizeof(*s->view));
	for (size_t i = 0; i < s->npeers; i++) {
		s->view[i] = s->peers[i].pub;
		s->view[i].target = s->peers[i].pub.guid == s->target;
		s->view[i].present = s->peers[i].present;
		s->view[i].state_name = smstate_name(s->peers[i].pub.state);
		s->view[i].last_answer = s->peers[i].last_answer > 0 ?
		    t - s->peers[i].last_answer : -1;
	}
	st->state = st_name(s->state);
	st->sm_state = iba_state[s->state];
	st->priority = s->o.priority;
	st->key_set = s->o.sm_key != 0;
	st->poll_interval = s->o.poll_interval;
	st->poll_retries = s->o.poll_retries;
	st->misses = s->misses;
	st->master_guid = s->target;
	st->handovers_sent = s->handovers_sent;
	st->handovers_taken = s->handovers_taken;
	st->transitions = s->transitions;
	st->npeers = s->npeers;
	st->peers = s->view;
}
