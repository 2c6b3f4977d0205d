#include "sm/program.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "core/pool.h"
#include "mad/mad.h"
#include "mad/smp.h"

#define LFT_BLOCK 64
#define PKEY_BLOCK 32                   /* keys per P_KeyTable block */
#define BLOCK_BYTES 64                  /* both tables: 64 bytes a block */
/* Times a request may be sent when the engine's retries all go
 * unanswered: a lossy fabric must still be programmed in one sweep (every
 * node answered discovery a moment ago). */
#define PROGRAM_ROUNDS 8
/* Requests a phase keeps queued or on the wire at most: the rest are
 * made when these complete, so memory does not grow with the fabric
 * (20,000 LFT blocks queued at once took 8 MiB on ft3 20). It must keep
 * the engine's windows full (64 on the wire, 4 per node by default): a
 * switch's LFT blocks come together, so the window spans at least
 * PROGRAM_SPAN switches' worth of blocks. */
#define PROGRAM_WINDOW 1024
#define PROGRAM_SPAN 16

/* A block's contents, as a 128-bit digest: what the caches compare with
 * the block wanted, at a quarter of the block's bytes (on ft3 20, 1.4 MB
 * less for 28,500 blocks). Two independent 64-bit chains over the
 * block's eight words, each step a bijective mix: two different blocks
 * share a digest with a chance of about 2^-128. */
struct bsum {
	uint64_t a, b;
};

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

_Static_assert(LFT_BLOCK == BLOCK_BYTES, "one digest for both tables");

static struct bsum
block_sum(const uint8_t p[BLOCK_BYTES])
{
	struct bsum s = { 0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL };
	uint64_t w;

	for (size_t i = 0; i < BLOCK_BYTES; i += 8) {
		memcpy(&w, p + i, 8);
		s.a = mix64(s.a ^ w);
		s.b = mix64(s.b + w * 0x9e3779b97f4a7c15ULL + i);
	}
	return s;
}

static bool
sum_is(const struct bsum *s, const uint8_t p[BLOCK_BYTES])
{
	struct bsum t = block_sum(p);

	return s->a == t.a && s->b == t.b;
}

/* What we know a device table holds: blocks we read or wrote. One cache
 * for LFTs (key: switch GUID) and one for P_Key tables (key: port GUID and
 * port number, switch ports sharing the switch's GUID). */
struct tcache {
	uint64_t guid;
	uint16_t num;
	uint32_t next;          /* next entry of the same GUID, UINT32_MAX */
	int8_t enforce;         /* partition enforcement bits we wrote, -1 */
	uint16_t top;           /* LFT: LinearFDBTop we last saw or wrote */
	uint32_t nblocks;
	uint8_t *known;         /* [nblocks] */
	struct bsum *sum;       /* [nblocks] digest of each known block */
};

/* Entries in a dense array; the GUID hash names the first entry of each
 * GUID, and the entries of one GUID (a switch's ports) are chained. */
struct tcache_set {
	struct tcache *v;
	uint32_t cap, len;
	struct guid_hash by_guid;
	uint32_t zero;          /* first entry of GUID 0, which the hash cannot
	                         * hold (a port that reported none) */
};

enum phase { PH_IDLE, PH_PORTS, PH_TABLES, PH_ARM, PH_ACTIVATE };

struct programmer {
	struct mad_engine *mad;
	struct tcache_set lfts, pkeys;
	/* CA ports that took a ClientReregister since this SM became master
	 * (program_new, program_forget): each gets it once per mastership */
	struct guid_hash reregistered;
	/* the run in progress */
	struct fabric *f;
	const struct lft_set *lft;
	const struct pkey_want *pk;
	struct program_opts o;
	uint16_t sm_lid;
	enum phase phase;
	double phase_started;
	/* where the phase's making of requests stands */
	uint32_t cur;           /* port, or switch */
	uint8_t stage;          /* PH_TABLES: 0 LFTs, 1 P_Keys */
	bool made;              /* the phase has made all its requests */
	bool waiting;           /* for program_resume() (before_activate) */
	bool in_hook;           /* before_activate is running */
	unsigned window;        /* requests pending at most */
	unsigned pending;
	struct pool spare;      /* struct preq, kept for the next request */
	program_done_cb done;
	void *arg;
	struct program_result res;
	/* [f->nnodes] whether each node answers: one whose request went
	 * unanswered through every round while it answered nothing else is
	 * dead (mute), and its other requests get one round, so that it does
	 * not hold the sweep up; an answer makes it alive again */
	struct node_life {
		uint32_t answers;
		uint8_t mute;
	} *life;
};

struct preq {
	struct programmer *pr;
	uint32_t idx;           /* port index, or switch index for LFT */
	uint32_t block;
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	const struct dr_path *path;     /* in pr->f, which does not change */
	uint64_t dest;
	uint8_t round;          /* times sent so far, less one */
	uint8_t has_data;
	/* A PortState Set is not idempotent (ARMED again is refused): when
	 * it fails, a Get tells whether it took effect (verify) before it
	 * is sent again. */
	uint8_t want_state;     /* PortState this Set asks for, 0: none */
	uint8_t verify;         /* this is that Get */
	uint8_t rereg;          /* this Set carries ClientReregister */
	uint32_t seen;          /* the node's answers when first sent */
	uint8_t data[SMP_DATA_SIZE];
	struct smp_call call;   /* built at each attempt from the above */
};

static void advance(struct programmer *pr);
static int send_req(struct preq *q);
static void smp(struct programmer *pr, uint8_t method, uint16_t attr,
    uint32_t mod, const struct dr_path *path, uint64_t dest,
    const uint8_t *data, uint32_t idx, uint32_t block);
static uint32_t get(const uint8_t *data, enum MAD_FIELDS f);
static void send_lft(struct programmer *pr, uint32_t sw, uint32_t b,
    const uint8_t *want);

static void
tcache_init(struct tcache_set *cs)
{
	memset(cs, 0, sizeof(*cs));
	guid_hash_init(&cs->by_guid);
	cs->zero = UINT32_MAX;
}

static struct tcache *
tcache_get(struct tcache_set *cs, uint64_t guid, uint16_t num, bool create)
{
	uint32_t first, i;
	struct tcache *c;

	first = guid == 0 ? cs->zero : guid_hash_get(&cs->by_guid, guid);
	for (i = first; i != UINT32_MAX; i = cs->v[i].next)
		if (cs->v[i].num == num)
			return &cs->v[i];
	if (!create)
		return NULL;
	if (cs->len == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 64;
		cs->v = xreallocarray(cs->v, cs->cap, sizeof(*cs->v));
	}
	i = cs->len++;
	c = &cs->v[i];
	memset(c, 0, sizeof(*c));
	c->guid = guid;
	c->num = num;
	c->next = first;
	c->enforce = -1;
	if (guid == 0)
		cs->zero = i;
	else
		guid_hash_put(&cs->by_guid, guid, i);
	return c;
}

static void
tcache_size(struct tcache *c, uint32_t nblocks)
{
	if (c->nblocks >= nblocks)
		return;
	c->known = realloc(c->known, nblocks);
	c->sum = reallocarray(c->sum, nblocks, sizeof(*c->sum));
	if (c->known == NULL || c->sum == NULL)
		fatal("program: out of memory");
	memset(c->known + c->nblocks, 0, nblocks - c->nblocks);
	c->nblocks = nblocks;
}

static void
tcache_free(struct tcache_set *cs)
{
	for (uint32_t i = 0; i < cs->len; i++) {
		free(cs->v[i].known);
		free(cs->v[i].sum);
	}
	free(cs->v);
	guid_hash_fini(&cs->by_guid);
	memset(cs, 0, sizeof(*cs));
}

struct programmer *
program_new(struct mad_engine *mad)
{
	struct programmer *pr = calloc(1, sizeof(*pr));

	if (pr == NULL)
		fatal("program: out of memory");
	pr->mad = mad;
	tcache_init(&pr->lfts);
	tcache_init(&pr->pkeys);
	guid_hash_init(&pr->reregistered);
	pool_init(&pr->spare, sizeof(struct preq), PROGRAM_WINDOW);
	return pr;
}

void
program_free(struct programmer *pr)
{
	if (pr == NULL)
		return;
	free(pr->life);
	tcache_free(&pr->lfts);
	tcache_free(&pr->pkeys);
	guid_hash_fini(&pr->reregistered);
	pool_fini(&pr->spare);
	free(pr);
}

static uint32_t
get(const uint8_t *data, enum MAD_FIELDS f)
{
	return mad_get_field((void *)data, 0, f);
}

/* The block of desired entries for switch sw, block b. */
static void
want_block(const struct lft_set *s, uint32_t sw, uint32_t b, uint8_t *out)
{
	const uint8_t *row = lft_row(s, sw);
	uint32_t lid;

	if ((b + 1u) * LFT_BLOCK - 1u <= s->max_lid) {
		/* the whole block is in the row: every block but the last */
		memcpy(out, row + (size_t)b * LFT_BLOCK, LFT_BLOCK);
		return;
	}
	for (uint32_t i = 0; i < LFT_BLOCK; i++) {
		lid = b * LFT_BLOCK + i;
		out[i] = lid <= s->max_lid ? row[lid] : LFT_NO_ROUTE;
	}
}

/* A port's P_Key table: the cache entry (switch ports share the switch's
 * GUID, told apart by number), and the attribute modifier of block b
 * (switch external ports: port in the upper 16 bits). */
static struct tcache *
pkey_cache(struct programmer *pr, uint32_t p, bool create)
{
	const struct fabric_port *port = &pr->f->ports[p];
	const struct fabric_node *n = &pr->f->nodes[port->node];

	return tcache_get(&pr->pkeys, n->type == NODE_SWITCH ? n->guid :
	    port->guid, port->num, create);
}

static uint32_t
pkey_mod(const struct fabric *f, uint32_t p, uint32_t b)
{
	const struct fabric_port *port = &f->ports[p];

	if (f->nodes[port->node].type == NODE_SWITCH && port->num != 0)
		return (uint32_t)port->num << 16 | b;
	return b;
}

/* Block b of the desired table, big-endian as on the wire. */
static void
pkey_block(const struct pkey_want *w, uint32_t b, uint8_t *out)
{
	for (uint32_t i = 0; i < PKEY_BLOCK; i++) {
		uint32_t idx = b * PKEY_BLOCK + i;
		uint16_t k = idx < w->n ? w->keys[idx] : 0;

		out[2 * i] = (uint8_t)(k >> 8);
		out[2 * i + 1] = (uint8_t)k;
	}
}

static void
send_pkey(struct programmer *pr, uint32_t p, uint32_t b, const uint8_t *want)
{
	const struct fabric *f = pr->f;

	pr->res.pkey_writes++;
	smp(pr, MAD_SET, ATTR_PKEY_TABLE, pkey_mod(f, p, b),
	    fabric_port_path(f, p), f->nodes[f->ports[p].node].guid, want, p, b);
}

/* Write the desired enforcement bits into a PortInfo about to be Set. */
static void
apply_enforce(const struct programmer *pr, uint32_t p, uint8_t *d)
{
	int8_t e;

	if (pr->pk == NULL || (e = pr->pk[p].enforce) < 0)
		return;
	mad_set_field(d, 0, IB_PORT_PART_EN_INB_F, e & 1);
	mad_set_field(d, 0, IB_PORT_PART_EN_OUTB_F, (e >> 1) & 1);
}

/* Enforcement differs from what the port shows and from what we last
 * wrote (ibsim does not keep these bits: compare with our own writes). */
static bool
enforce_differs(struct programmer *pr, uint32_t p)
{
	const struct fabric_port *port = &pr->f->ports[p];
	struct tcache *c;
	int8_t e;
	int cur;

	if (pr->pk == NULL || (e = pr->pk[p].enforce) < 0)
		return false;
	cur = (int)(get(port->info, IB_PORT_PART_EN_INB_F) |
	    get(port->info, IB_PORT_PART_EN_OUTB_F) << 1);
	c = pkey_cache(pr, p, false);
	return cur != e && (c == NULL || c->enforce != e);
}

/* What q was about, for a log line: the node, and the port or block. */
static void
req_text(const struct preq *q, char *buf, size_t len)
{
	const struct fabric *f = q->pr->f;
	const struct fabric_node *n;
	uint8_t num = 0;

	if (q->attr == ATTR_LFT || q->attr == ATTR_SWITCH_INFO) {
		n = &f->nodes[q->pr->lft->sw_node[q->idx]];
	} else {
		n = &f->nodes[f->ports[q->idx].node];
		num = f->ports[q->idx].num;
	}
	if (q->attr == ATTR_LFT)
		snprintf(buf, len, "%s %s of %s 0x%016" PRIx64 " block %u",
		    mad_method_name(q->method), mad_attr_name(MGMT_CLASS_SMP_LID, q->attr),
		    fabric_node_type_name(n->type), n->guid, q->block);
	else if (q->attr == ATTR_SWITCH_INFO)
		snprintf(buf, len, "%s %s of switch 0x%016" PRIx64,
		    mad_method_name(q->method), mad_attr_name(MGMT_CLASS_SMP_LID, q->attr), n->guid);
	else
		snprintf(buf, len, "%s %s of %s 0x%016" PRIx64 " port %u%s",
		    mad_method_name(q->method), mad_attr_name(MGMT_CLASS_SMP_LID, q->attr),
		    fabric_node_type_name(n->type), n->guid, num,
		    q->attr == ATTR_PKEY_TABLE ? " (P_Key block)" : "");
}

/* The node q is for. */
static uint32_t
req_node(const struct preq *q)
{
	if (q->attr == ATTR_LFT || q->attr == ATTR_SWITCH_INFO)
		return q->pr->lft->sw_node[q->idx];
	return q->pr->f->ports[q->idx].node;
}

/* A request that failed: send it again, or verify a PortState Set, while
 * rounds are left (one only for a node that went mute). True when q is on
 * its way again. */
static bool
send_again(struct preq *q, int status)
{
	const struct node_life *l = &q->pr->life[req_node(q)];

	if (l->mute || q->round + 1 >= PROGRAM_ROUNDS)
		return false;
	if (q->want_state != 0 && !q->verify) {
		/* refused or unanswered: did it take effect? */
		q->verify = 1;
		q->method = MAD_GET;
	} else if (status != MAD_ETIMEDOUT && status != MAD_ESEND) {
		return false;   /* an error status is an answer */
	}
	q->round++;
	q->pr->res.resent++;
	return send_req(q) == 0;
}

/* A verifying Get answered (p holds what it read): the Set is done when
 * the port reached the state asked for, or went on from it; else it is
 * sent once more while rounds are left. */
enum verdict { VERIFY_DONE, VERIFY_AGAIN, VERIFY_FAILED };

static enum verdict
verify_state(struct preq *q)
{
	const struct fabric_port *p = &q->pr->f->ports[q->idx];

	if (p->state >= q->want_state && p->state <= PORT_ACTIVE)
		return VERIFY_DONE;
	if (q->round + 1 >= PROGRAM_ROUNDS)
		return VERIFY_FAILED;
	q->verify = 0;
	q->method = MAD_SET;
	q->round++;
	q->pr->res.resent++;
	return send_req(q) == 0 ? VERIFY_AGAIN : VERIFY_FAILED;
}

/* A Set that failed may still have taken effect (its answer lost on the
 * way back): what we knew of that block or table is void, so the next run
 * reads or writes it again instead of trusting a copy the device may no
 * longer match. */
static void
forget_target(struct preq *q)
{
	struct programmer *pr = q->pr;
	struct tcache *c;

	if (q->method != MAD_SET)
		return;
	if (q->attr == ATTR_LFT) {
		c = tcache_get(&pr->lfts,
		    pr->f->nodes[pr->lft->sw_node[q->idx]].guid, 0, false);
		if (c != NULL && q->block < c->nblocks)
			c->known[q->block] = 0;
	} else if (q->attr == ATTR_PKEY_TABLE) {
		c = pkey_cache(pr, q->idx, false);
		if (c != NULL && q->block < c->nblocks)
			c->known[q->block] = 0;
	} else if (q->attr == ATTR_SWITCH_INFO) {
		/* the top is unknown: every block is read again */
		c = tcache_get(&pr->lfts,
		    pr->f->nodes[pr->lft->sw_node[q->idx]].guid, 0, false);
		if (c != NULL) {
			memset(c->known, 0, c->nblocks);
			c->top = UINT16_MAX;
		}
	} else if (q->attr == ATTR_PORT_INFO && pr->pk != NULL &&
	    (c = pkey_cache(pr, q->idx, false)) != NULL) {
		c->enforce = -1;
	}
}

static void
failed(struct preq *q, int status)
{
	struct programmer *pr = q->pr;
	char what[160], st[96];

	forget_target(q);
	req_text(q, what, sizeof(what));
	pr->res.failures++;
	if (status == MAD_ETIMEDOUT && pr->life[req_node(q)].answers == q->seen)
		pr->life[req_node(q)].mute = 1;
	log_warnx("program: %s: %s after %u rounds", what, status != 0 ?
	    mad_status_text(MGMT_CLASS_SMP_LID, status, st, sizeof(st)) :
	    "state not reached", q->round + 1);
	if (pr->res.failures == 1)
		snprintf(pr->res.first_failure, sizeof(pr->res.first_failure),
		    "%s", what);
}

static void
on_done(void *arg, int status, const uint8_t *resp)
{
	struct preq *q = arg;
	struct programmer *pr = q->pr;
	const uint8_t *data;

	if (status != 0 || resp == NULL) {
		if (send_again(q, status))
			return;
		failed(q, status);
		goto out;
	}
	pr->life[req_node(q)].answers++;
	pr->life[req_node(q)].mute = 0;
	data = resp + SMP_DATA_OFFSET;
	if (q->attr == ATTR_PORT_INFO) {
		struct fabric_port *p = &pr->f->ports[q->idx];

		memcpy(p->info, data, 64);
		p->state = (uint8_t)get(data, IB_PORT_STATE_F);
		p->phys = (uint8_t)get(data, IB_PORT_PHYS_STATE_F);
		if (q->rereg && p->guid != 0) {
			guid_hash_put(&pr->reregistered, p->guid, 1);
			pr->res.client_reregs++;
		}
		if (q->verify) {
			switch (verify_state(q)) {
			case VERIFY_AGAIN:
				return;
			case VERIFY_FAILED:
				failed(q, 0);
				goto out;
			case VERIFY_DONE:
				break;
			}
		}
		if ((q->method == MAD_SET || q->verify) && pr->pk != NULL &&
		    pr->pk[q->idx].enforce >= 0)
			pkey_cache(pr, q->idx, true)->enforce =
			    pr->pk[q->idx].enforce;
	} else if (q->attr == ATTR_PKEY_TABLE) {
		struct tcache *c = pkey_cache(pr, q->idx, true);

		c->sum[q->block] = block_sum(data);
		c->known[q->block] = 1;
		if (q->method == MAD_GET) {
			uint8_t want[BLOCK_BYTES];

			pkey_block(&pr->pk[q->idx], q->block, want);
			if (memcmp(want, data, BLOCK_BYTES) != 0)
				send_pkey(pr, q->idx, q->block, want);
		}
	} else if (q->attr == ATTR_SWITCH_INFO) {
		/* the model carries what the switch took (LinearFDBTop,
		 * LifeTimeValue, PortStateChange cleared): the SA's records
		 * and the next run compare with it */
		struct fabric_node *n = &pr->f->nodes[pr->lft->sw_node[q->idx]];

		memcpy(n->sw_info, data, sizeof(n->sw_info));
		n->lft_top = (uint16_t)get(data, IB_SW_LINEAR_FDB_TOP_F);
		n->psc = (uint8_t)get(data, IB_SW_STATE_CHANGE_F);
		tcache_get(&pr->lfts, n->guid, 0, true)->top = n->lft_top;
	} else if (q->attr == ATTR_LFT) {
		uint32_t sw = q->idx;
		struct fabric_node *n = &pr->f->nodes[pr->lft->sw_node[sw]];
		struct tcache *c = tcache_get(&pr->lfts, n->guid, 0, true);

		c->sum[q->block] = block_sum(data);
		c->known[q->block] = 1;
		if (q->method == MAD_GET) {
			uint8_t want[LFT_BLOCK];

			want_block(pr->lft, sw, q->block, want);
			if (memcmp(want, data, LFT_BLOCK) != 0)
				send_lft(pr, sw, q->block, want);
		}
	}
out:
	pool_put(&pr->spare, q);
	pr->pending--;
	advance(pr);
}

/* Send q (again); 0, or -1 when the engine refused it. */
static int
send_req(struct preq *q)
{
	struct smp_req *r = &q->call.req;

	memset(r, 0, sizeof(*r));
	r->method = q->method;
	r->attr = q->attr;
	r->mod = q->mod;
	r->path = q->path;
	r->dest = q->dest;
	r->data = q->method == MAD_SET && q->has_data ? q->data : NULL;
	q->call.cb = on_done;
	q->call.arg = q;
	return smp_submit(q->pr->mad, &q->call);
}

static struct preq *
req_new(struct programmer *pr, uint8_t method, uint16_t attr, uint32_t mod,
    const struct dr_path *path, uint64_t dest, const uint8_t *data,
    uint32_t idx, uint32_t block)
{
	struct preq *q = pool_get(&pr->spare);

	q->pr = pr;
	q->idx = idx;
	q->block = block;
	q->method = method;
	q->attr = attr;
	q->mod = mod;
	q->path = path;
	q->dest = dest;
	if (data != NULL) {
		memcpy(q->data, data, sizeof(q->data));
		q->has_data = 1;
	}
	return q;
}

static void
req_submit(struct programmer *pr, struct preq *q)
{
	q->seen = pr->life[req_node(q)].answers;
	pr->pending++;
	if (send_req(q) < 0) {
		pr->pending--;
		failed(q, MAD_ESEND);
		pool_put(&pr->spare, q);
	}
}

static void
smp(struct programmer *pr, uint8_t method, uint16_t attr, uint32_t mod,
    const struct dr_path *path, uint64_t dest, const uint8_t *data,
    uint32_t idx, uint32_t block)
{
	req_submit(pr, req_new(pr, method, attr, mod, path, dest, data, idx,
	    block));
}

static void
send_lft(struct programmer *pr, uint32_t sw, uint32_t b, const uint8_t *want)
{
	const struct fabric_node *n = &pr->f->nodes[pr->lft->sw_node[sw]];

	pr->res.lft_writes++;
	smp(pr, MAD_SET, ATTR_LFT, b, &pr->f->paths[n->path], n->guid, want,
	    sw, b);
}

/* state: the PortState data asks for (PORT_NOCHANGE: none). */
static void
port_set(struct programmer *pr, uint32_t p, const uint8_t *data,
    uint8_t state)
{
	const struct fabric *f = pr->f;
	const struct fabric_port *port = &f->ports[p];
	struct preq *q;

	q = req_new(pr, MAD_SET, ATTR_PORT_INFO, port->num,
	    fabric_port_path(f, p), f->nodes[port->node].guid, data, p, 0);
	q->want_state = state;
	q->rereg = (uint8_t)get(data, IB_PORT_CLIENT_REREG_F);
	req_submit(pr, q);
}

/* A CA port that has not had its ClientReregister in this mastership.
 * Every CA port gets it, capable or not (CapabilityMask bit 25): the bit
 * was reserved before, and reserved bits are ignored on Set; ibsmd.8
 * says why. */
static bool
rereg_due(const struct programmer *pr, uint32_t p)
{
	const struct fabric_port *port = &pr->f->ports[p];

	return pr->f->nodes[port->node].type == NODE_CA && port->num != 0 &&
	    port->guid != 0 &&
	    guid_hash_get(&pr->reregistered, port->guid) == GUID_HASH_NONE;
}

/* End-port addressing differs from what the port holds. */
static bool
addr_differs(const struct programmer *pr, const struct fabric_port *port)
{
	const uint8_t *i = port->info;

	return get(i, IB_PORT_LID_F) != port->lid ||
	    get(i, IB_PORT_LMC_F) != port->lmc ||
	    get(i, IB_PORT_SMLID_F) != pr->sm_lid ||
	    mad_get_field64((void *)i, 0, IB_PORT_GID_PREFIX_F) !=
	    pr->o.subnet_prefix ||
	    mad_get_field64((void *)i, 0, IB_PORT_MKEY_F) !=
	    mkey_desired(&pr->o.mkeys, pr->f, (uint32_t)(port - pr->f->ports));
}

/* Port p, or its node, was not read this sweep (core/graft.h): nothing is
 * written to it. */
static bool
kept(const struct fabric *f, uint32_t p)
{
	return f->ports[p].kept || f->nodes[f->ports[p].node].kept ||
	    f->ports[mkey_managed(f, p)].mkey_foreign;
}

/* Port p is at state from, cabled to a port at peer_min or beyond, and
 * may be moved on. */
static bool
may_move(const struct programmer *pr, uint32_t p, uint8_t from,
    uint8_t peer_min)
{
	const struct fabric *f = pr->f;
	const struct fabric_port *port = &f->ports[p];

	if (port->num == 0 || !port->info_valid || port->state != from ||
	    port->peer == FABRIC_NONE || !f->ports[port->peer].info_valid ||
	    f->ports[port->peer].state < peer_min || kept(f, p) ||
	    kept(f, port->peer))
		return false;
	return f->nodes[port->node].type == NODE_SWITCH || port->present;
}

static uint32_t
min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* issue 27: OperationalVLs or (qos) VLHighLimit differ from what port p
 * is to run. A link in INIT gets its OperationalVLs with the rest of its
 * link setup. */
static bool
vls_differ(const struct programmer *pr, uint32_t p)
{
	const struct fabric_port *port = &pr->f->ports[p];
	unsigned ov = qos_oper_vls(&pr->o.qos, pr->f, p);
	int hl = qos_high_limit(&pr->o.qos, pr->f, p);

	return (ov != 0 && ov != get(port->info, IB_PORT_OPER_VLS_F)) ||
	    (hl >= 0 && (unsigned)hl != get(port->info,
	    IB_PORT_VL_HIGH_LIMIT_F));
}

static void
apply_vls(const struct programmer *pr, uint32_t p, uint8_t *d)
{
	unsigned ov = qos_oper_vls(&pr->o.qos, pr->f, p);
	int hl = qos_high_limit(&pr->o.qos, pr->f, p);

	if (ov != 0)
		mad_set_field(d, 0, IB_PORT_OPER_VLS_F, ov);
	if (hl >= 0)
		mad_set_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F, (unsigned)hl);
}

/* Room for another request in the phase's window. */
static bool
room(const struct programmer *pr)
{
	return pr->pending < pr->window;
}

/* Each phase makes its requests from pr->cur on while there is room, and
 * says whether it made them all. */
static bool
phase_ports(struct programmer *pr)
{
	struct fabric *f = pr->f;
	uint8_t d[SMP_DATA_SIZE];

	for (; pr->cur < f->nports && room(pr); pr->cur++) {
		uint32_t p = pr->cur;
		struct fabric_port *port = &f->ports[p];
		const struct fabric_port *peer;
		bool end, link, rereg, arm;

		if (!port->info_valid || kept(f, p) ||
		    (port->lid == 0 && fabric_port_is_endport(f, p)))
			continue;
		rereg = fabric_port_is_endport(f, p) && rereg_due(pr, p);
		end = fabric_port_is_endport(f, p) &&
		    (addr_differs(pr, port) || rereg);
		link = port->num != 0 && port->state == PORT_INIT &&
		    port->peer != FABRIC_NONE &&
		    f->ports[port->peer].info_valid;
		if (!end && !link && !enforce_differs(pr, p) &&
		    !vls_differ(pr, p))
			continue;
		/* A port in INIT is armed by this same Set (what phase 3
		 * would send), saving one SMP per link end: only ACTIVE
		 * must wait for the tables. */
		arm = link && may_move(pr, p, PORT_INIT, PORT_INIT);
		memcpy(d, port->info, sizeof(d));
		mad_set_field(d, 0, IB_PORT_STATE_F, arm ? PORT_ARMED :
		    PORT_NOCHANGE);
		mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
		/* never echoed back from what the port answered */
		mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, rereg);
		if (fabric_port_is_endport(f, p)) {
			mad_set_field(d, 0, IB_PORT_LID_F, port->lid);
			mad_set_field(d, 0, IB_PORT_LMC_F, port->lmc);
			mad_set_field(d, 0, IB_PORT_SMLID_F, pr->sm_lid);
			mad_set_field(d, 0, IB_PORT_SMSL_F, 0);
			mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F,
			    pr->o.subnet_prefix);
			mad_set_field64(d, 0, IB_PORT_MKEY_F,
			    mkey_desired(&pr->o.mkeys, f, p));
			mad_set_field(d, 0, IB_PORT_MKEY_PROT_BITS_F,
			    pr->o.mkey_protect);
			mad_set_field(d, 0, IB_PORT_MKEY_LEASE_F,
			    pr->o.mkey_lease);
			mad_set_field(d, 0, IB_PORT_SUBN_TIMEOUT_F,
			    pr->o.subnet_timeout);
		}
		if (link) {
			peer = &f->ports[port->peer];
			mad_set_field(d, 0, IB_PORT_NEIGHBOR_MTU_F,
			    min32(get(port->info, IB_PORT_MTU_CAP_F),
			    get(peer->info, IB_PORT_MTU_CAP_F)));
			mad_set_field(d, 0, IB_PORT_OPER_VLS_F,
			    min32(get(port->info, IB_PORT_VL_CAP_F),
			    get(peer->info, IB_PORT_VL_CAP_F)));
			mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F,
			    PHYS_POLLING);
			if (f->nodes[port->node].type == NODE_SWITCH) {
				bool to_ca = f->nodes[peer->node].type !=
				    NODE_SWITCH;

				mad_set_field(d, 0, IB_PORT_HOQ_LIFE_F,
				    to_ca ? 0x10 : 0x12);
				mad_set_field(d, 0, IB_PORT_VL_STALL_COUNT_F, 7);
			}
		}
		apply_enforce(pr, p, d);
		apply_vls(pr, p, d);
		pr->res.portinfo_sets++;
		if (arm)
			pr->res.armed++;
		port_set(pr, p, d, arm ? PORT_ARMED : PORT_NOCHANGE);
	}
	return pr->cur == f->nports;
}

/* P_Key blocks: compare with what we know, read what we do not.
 *
 * A block we know nothing of is read even on a port that looks fresh
 * (LID 0, MasterSMLID 0, INIT): that does not prove the table is the one
 * a reset leaves. ibsim fills a table once, when it builds the fabric
 * (init_ports(): 0xffff at index 0, the rest 0), and its Clear command
 * (reset_port()) zeroes LID, LMC and MasterSMLID without touching it, so
 * a port can show LID 0 and hold another SM's keys
 * (tests/sim/partitions_reset.sh); the spec's reset is not the only way
 * to lose a LID, and nothing on the wire says which one happened. Taking
 * such a table for the reset one would leave stale keys in place wherever
 * the block we want equals it
 * (bench/results/2026-11-23-bringup-issue14.md, issue 14). */
static bool
tables_pkeys(struct programmer *pr)
{
	struct fabric *f = pr->f;
	uint8_t want[BLOCK_BYTES];

	if (pr->pk == NULL)
		return true;
	for (; pr->cur < f->nports && room(pr); pr->cur++) {
		uint32_t p = pr->cur;
		const struct pkey_want *w = &pr->pk[p];
		struct fabric_port *port = &f->ports[p];
		uint32_t nb = (w->n + PKEY_BLOCK - 1u) / PKEY_BLOCK;
		struct tcache *c;

		if (w->keys == NULL || nb == 0 || !port->info_valid || kept(f, p))
			continue;
		c = pkey_cache(pr, p, true);
		/* A link that trained again may front a device that was
		 * reset: what we remember of its table is void. */
		if (port->state == PORT_INIT)
			memset(c->known, 0, c->nblocks);
		tcache_size(c, nb);
		for (uint32_t b = 0; b < nb; b++) {
			pkey_block(w, b, want);
			if (!c->known[b]) {
				pr->res.pkey_reads++;
				smp(pr, MAD_GET, ATTR_PKEY_TABLE, pkey_mod(f, p, b),
				    fabric_port_path(f, p),
				    f->nodes[port->node].guid, NULL, p, b);
			} else if (!sum_is(&c->sum[b], want)) {
				send_pkey(pr, p, b, want);
			}
		}
	}
	return pr->cur == f->nports;
}

static bool
phase_tables(struct programmer *pr)
{
	struct fabric *f = pr->f;
	const struct lft_set *s = pr->lft;
	uint8_t d[SMP_DATA_SIZE], want[LFT_BLOCK];

	if (pr->stage == 1)
		return tables_pkeys(pr);
	for (; pr->cur < s->nsw && room(pr); pr->cur++) {
		uint32_t sw = pr->cur;
		struct fabric_node *n = &f->nodes[s->sw_node[sw]];
		const struct dr_path *path = &f->paths[n->path];
		struct tcache *c = tcache_get(&pr->lfts, n->guid, 0, true);
		uint32_t nb = s->max_lid / LFT_BLOCK + 1u;

		if (!n->sw_info_valid || n->kept ||
		    f->ports[n->port0].mkey_foreign)
			continue;
		if (n->lft_cap && nb > (n->lft_cap + LFT_BLOCK - 1u) / LFT_BLOCK) {
			log_warnx("program: switch 0x%016" PRIx64 ": LID %u is "
			    "beyond its LinearFDBCap %u", n->guid, s->max_lid,
			    n->lft_cap);
			nb = (n->lft_cap + LFT_BLOCK - 1u) / LFT_BLOCK;
		}
		/* A top other than the one we last saw means the switch was
		 * reset or written by someone else: what we remember is void. */
		if (c->top != n->lft_top)
			memset(c->known, 0, c->nblocks);
		/* what the switch holds now; a SwitchInfo Set below moves it
		 * only when the switch answers (on_done) */
		c->top = n->lft_top;
		tcache_size(c, nb);
		/* PortStateChange still set: a passive discovery (an SM
		 * that was not master yet) left it for us to clear. */
		if (n->lft_top != s->max_lid || n->psc ||
		    get(n->sw_info, IB_SW_LIFE_TIME_F) != pr->o.packet_life) {
			memcpy(d, n->sw_info, sizeof(d));
			mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, s->max_lid);
			mad_set_field(d, 0, IB_SW_LIFE_TIME_F, pr->o.packet_life);
			mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, n->psc ? 1 : 0);
			n->psc = 0;
			pr->res.switchinfo_sets++;
			smp(pr, MAD_SET, ATTR_SWITCH_INFO, 0, path, n->guid, d,
			    sw, 0);
		}
		for (uint32_t b = 0; b < nb; b++) {
			want_block(s, sw, b, want);
			if (c->known[b]) {
				if (!sum_is(&c->sum[b], want))
					send_lft(pr, sw, b, want);
			} else if (n->lft_top > 0 && b * LFT_BLOCK <= n->lft_top) {
				/* Within the top the switch may hold our routes
				 * already (a restart): read before writing. A top
				 * of 0 holds nothing but LID 0. */
				pr->res.lft_reads++;
				smp(pr, MAD_GET, ATTR_LFT, b, path, n->guid,
				    NULL, sw, b);
			} else {
				send_lft(pr, sw, b, want);
			}
		}
	}
	if (pr->cur < s->nsw)
		return false;
	pr->stage = 1;
	pr->cur = 0;
	return tables_pkeys(pr);
}

/* Move every port at state from whose peer is at least peer_min to to. */
static bool
phase_state(struct programmer *pr, uint8_t from, uint8_t peer_min, uint8_t to)
{
	struct fabric *f = pr->f;
	uint8_t d[SMP_DATA_SIZE];

	for (; pr->cur < f->nports && room(pr); pr->cur++) {
		uint32_t p = pr->cur;
		struct fabric_port *port = &f->ports[p];

		if (!may_move(pr, p, from, peer_min))
			continue;
		memcpy(d, port->info, sizeof(d));
		mad_set_field(d, 0, IB_PORT_STATE_F, to);
		mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
		apply_enforce(pr, p, d);
		if (to == PORT_ARMED)
			pr->res.armed++;
		else
			pr->res.activated++;
		port_set(pr, p, d, to);
	}
	return pr->cur == f->nports;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The phase that just ended took this long. */
static void
phase_time(struct programmer *pr)
{
	double t = now(), d = t - pr->phase_started;

	pr->phase_started = t;
	switch (pr->phase) {
	case PH_PORTS:
		pr->res.ports_seconds = d;
		break;
	case PH_TABLES:
		pr->res.tables_seconds = d;
		break;
	case PH_ARM:
		pr->res.arm_seconds = d;
		break;
	case PH_ACTIVATE:
		pr->res.activate_seconds = d;
		break;
	case PH_IDLE:
		break;
	}
}

/* Make the phase's requests while there is room; true when it made them
 * all. */
static bool
make(struct programmer *pr)
{
	switch (pr->phase) {
	case PH_PORTS:
		return phase_ports(pr);
	case PH_TABLES:
		return phase_tables(pr);
	case PH_ARM:
		return phase_state(pr, PORT_INIT, PORT_INIT, PORT_ARMED);
	case PH_ACTIVATE:
		return phase_state(pr, PORT_ARMED, PORT_ARMED, PORT_ACTIVE);
	case PH_IDLE:
		break;
	}
	return true;
}

/* A port the activate phase will move: before_activate is called only
 * then. */
static bool
any_to_activate(const struct programmer *pr)
{
	for (uint32_t p = 0; p < pr->f->nports; p++)
		if (may_move(pr, p, PORT_ARMED, PORT_ARMED))
			return true;
	return false;
}

/* Fill the window; when the phase has made every request and all are
 * done, go on to the next one (each waits for the one before). */
static void
advance(struct programmer *pr)
{
	while (pr->phase != PH_IDLE) {
		if (pr->waiting)
			return;
		if (!pr->made)
			pr->made = make(pr);
		if (!pr->made || pr->pending > 0)
			return;
		phase_time(pr);
		pr->cur = 0;
		pr->stage = 0;
		pr->made = false;
		switch (pr->phase) {
		case PH_PORTS:
			pr->phase = PH_TABLES;
			break;
		case PH_TABLES:
			pr->phase = PH_ARM;
			break;
		case PH_ARM:
			pr->phase = PH_ACTIVATE;
			if (pr->o.before_activate != NULL &&
			    any_to_activate(pr)) {
				/* it may resume at once: then this loop goes on */
				pr->waiting = true;
				pr->in_hook = true;
				pr->o.before_activate(pr->o.before_activate_arg,
				    pr, pr->f);
				pr->in_hook = false;
			}
			break;
		case PH_ACTIVATE:
			pr->phase = PH_IDLE;
			pr->res.ok = pr->res.failures == 0;
			if (!pr->res.ok)
				snprintf(pr->res.why, sizeof(pr->res.why),
				    "%u SMPs failed (first: %s)",
				    pr->res.failures, pr->res.first_failure);
			pr->done(pr->arg, &pr->res);
			return;
		case PH_IDLE:
			return;
		}
	}
}

void
program_resume(struct programmer *pr)
{
	if (!pr->waiting)
		return;
	pr->waiting = false;
	if (!pr->in_hook)
		advance(pr);
}

void
program_forget(struct programmer *pr)
{
	tcache_free(&pr->lfts);
	tcache_free(&pr->pkeys);
	guid_hash_clear(&pr->reregistered);
}

static void
tcache_forget(struct tcache_set *cs, uint64_t guid)
{
	uint32_t i = guid == 0 ? cs->zero : guid_hash_get(&cs->by_guid, guid);

	for (; i != UINT32_MAX; i = cs->v[i].next) {
		memset(cs->v[i].known, 0, cs->v[i].nblocks);
		cs->v[i].enforce = -1;
		cs->v[i].top = UINT16_MAX;
	}
}

void
program_forget_node(struct programmer *pr, uint64_t guid)
{
	tcache_forget(&pr->lfts, guid);
	tcache_forget(&pr->pkeys, guid);
}

void
program_seed_lft(struct programmer *pr, uint64_t guid, uint16_t top,
    uint32_t block, const uint8_t *data)
{
	struct tcache *c = tcache_get(&pr->lfts, guid, 0, true);

	if (c->top != top) {
		memset(c->known, 0, c->nblocks);
		c->top = top;
	}
	tcache_size(c, block + 1);
	c->sum[block] = block_sum(data);
	c->known[block] = 1;
}

void
program_start(struct programmer *pr, struct fabric *f,
    const struct lft_set *lft, const struct pkey_want *pk, uint16_t sm_lid,
    const struct program_opts *o, program_done_cb done, void *arg)
{
	pr->f = f;
	pr->lft = lft;
	pr->pk = pk;
	pr->o = *o;
	pr->sm_lid = sm_lid;
	pr->done = done;
	pr->arg = arg;
	memset(&pr->res, 0, sizeof(pr->res));
	free(pr->life);
	pr->life = xcalloc(f->nnodes + 1u, sizeof(*pr->life));
	pr->pending = 0;
	pr->window = PROGRAM_WINDOW;
	if (lft->max_lid / LFT_BLOCK + 1u > PROGRAM_WINDOW / PROGRAM_SPAN)
		pr->window = (lft->max_lid / LFT_BLOCK + 1u) * PROGRAM_SPAN;
	pr->phase = PH_PORTS;
	pr->cur = 0;
	pr->stage = 0;
	pr->made = false;
	pr->waiting = false;
	pr->phase_started = now();
	advance(pr);
}
