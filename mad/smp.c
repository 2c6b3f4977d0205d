/*
 * SMP client: the SM class's header (and directed-route fields) on top of
 * the MAD engine, and the check that a directed-route response came back
 * the way it should (D bit set; its status is 15 bits).
 */
#include "mad/smp.h"

#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "mad/mad.h"
#include "mad/transport.h"

/* The engine's completion carries the whole response; SMP callers want
 * the MAD. smp_request() allocates its call, smp_submit()'s caller owns
 * it. */
static void
done(void *arg, int status, const struct transport_rx *resp)
{
	struct smp_call c = *(struct smp_call *)arg;

	free(arg);
	c.cb(c.arg, status, resp != NULL ? resp->mad : NULL);
}

static void
submitted_done(void *arg, int status, const struct transport_rx *resp)
{
	struct smp_call *c = arg;

	c->cb(c->arg, status, resp != NULL ? resp->mad : NULL);
}

/* The engine drops the request unanswered: its caller's arg too. */
static void
drop(void *arg)
{
	struct smp_call *c = arg;

	if (c->req.drop != NULL)
		c->req.drop(c->arg);
	free(c);
}

static void
submitted_drop(void *arg)
{
	struct smp_call *c = arg;

	if (c->req.drop != NULL)
		c->req.drop(c->arg);
}

static int
check_dr(const uint8_t *req, const uint8_t *resp, size_t len)
{
	uint16_t st = mad_be16(resp + MAD_OFF_STATUS);

	(void)req;
	(void)len;
	if (mad_method_of(resp) != MAD_GETRESP || !(st & SMP_DR_DIRECTION))
		return -1;
	return st & ~SMP_DR_DIRECTION;
}

int
smp_register(struct mad_engine *e)
{
	struct transport_agent a = { .class_version = SMP_CLASS_VERSION };

	transport_agent_method(&a, MAD_GET);
	transport_agent_method(&a, MAD_SET);
	transport_agent_method(&a, MAD_TRAP);
	transport_agent_method(&a, MAD_TRAPREPRESS);
	a.mgmt_class = MGMT_CLASS_SMP_LID;
	if (mad_register(e, &a) < 0)
		return -1;
	a.mgmt_class = MGMT_CLASS_SMP_DR;
	return mad_register(e, &a);
}

static int
valid(const struct smp_req *q)
{
	if (q->method != MAD_GET && q->method != MAD_SET)
		return 0;
	if (q->path != NULL && q->path->hops >= FABRIC_DR_MAX)
		return 0;
	if (q->path == NULL && (q->dlid == 0 || q->dlid > FABRIC_MAX_LID))
		return 0;
	return 1;
}

static smp_mkey_fn mkey_fn;
static smp_mkey_known_fn mkey_known_fn;
static void *mkey_arg;

void
smp_set_mkey_source(smp_mkey_fn fn, smp_mkey_known_fn known, void *arg)
{
	mkey_fn = fn;
	mkey_known_fn = known;
	mkey_arg = arg;
}

bool
smp_mkey_known(const struct smp_req *q)
{
	return mkey_known_fn == NULL || mkey_known_fn(mkey_arg, q);
}

uint64_t
smp_mkey_for(const struct smp_req *q)
{
	return mkey_fn != NULL ? mkey_fn(mkey_arg, q) : 0;
}

/* The whole SMP of q into mad (zeroed), but its TID. Fields whose value
 * is 0 are left as the zeroed MAD has them. By byte offset (mad/mad.h's
 * and smp.h's): this runs at every attempt of every SMP. */
static void
build(const struct smp_req *q, uint8_t *mad)
{
	int dr = q->path != NULL;

	mad[MAD_OFF_BASEVER] = MAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = dr ? MGMT_CLASS_SMP_DR : MGMT_CLASS_SMP_LID;
	mad[MAD_OFF_CLASSVER] = SMP_CLASS_VERSION;
	/* Get or Set (valid()): the R bit stays 0 */
	mad[MAD_OFF_METHOD] = q->method;
	mad_put_be16(mad + MAD_OFF_ATTR, q->attr);
	if (q->mod != 0)
		mad_put_be32(mad + MAD_OFF_MOD, q->mod);
	if (q->mkey != 0)
		mad_put_be64(mad + SMP_OFF_MKEY, q->mkey);
	else if (mkey_fn != NULL)
		mad_put_be64(mad + SMP_OFF_MKEY, mkey_fn(mkey_arg, q));
	if (dr) {
		/* A request: D = 0 and hop pointer 0 (as zeroed), walking
		 * the initial path from hop 0 (its entry 0 stays 0). */
		mad[SMP_OFF_HOPCNT] = q->path->hops;
		mad_put_be16(mad + SMP_OFF_DRSLID, TRANSPORT_LID_PERMISSIVE);
		mad_put_be16(mad + SMP_OFF_DRDLID, TRANSPORT_LID_PERMISSIVE);
		memcpy(mad + SMP_OFF_INITPATH + 1, q->path->port + 1,
		    q->path->hops);
	}
	if (q->data != NULL)
		memcpy(mad + SMP_DATA_OFFSET, q->data, SMP_DATA_SIZE);
}

static void
build_submitted(void *arg, uint8_t *mad)
{
	build(&((struct smp_call *)arg)->req, mad);
}

/* Where q goes and how its answer is checked. */
static void
address(const struct smp_req *q, struct mad_request *r)
{
	if (q->path != NULL) {
		r->to.lid = TRANSPORT_LID_PERMISSIVE;
		r->check = check_dr;
	} else {
		r->to.lid = q->dlid;
	}
	r->dest = q->dest;
}

int
smp_request(struct mad_engine *e, const struct smp_req *q, smp_done_cb cb,
    void *arg)
{
	uint8_t mad[TRANSPORT_MAD_SIZE];
	struct mad_request r = { .mad = mad, .len = sizeof(mad) };
	struct smp_call *c;

	if (e == NULL || q == NULL || cb == NULL || !valid(q))
		return -1;
	memset(mad, 0, sizeof(mad));
	build(q, mad);
	address(q, &r);
	r.drop = drop;
	c = xmalloc(sizeof(*c));
	c->req = *q;
	c->req.path = NULL;     /* copied into the MAD */
	c->req.data = NULL;
	c->cb = cb;
	c->arg = arg;
	if (mad_request(e, &r, done, c) < 0) {
		free(c);
		return -1;
	}
	return 0;
}

int
smp_submit(struct mad_engine *e, struct smp_call *c)
{
	const struct smp_req *q = &c->req;
	struct mad_request r = {
		.len = TRANSPORT_MAD_SIZE, .build = build_submitted,
		.mgmt_class = q->path != NULL ? MGMT_CLASS_SMP_DR :
		    MGMT_CLASS_SMP_LID,
		.class_version = SMP_CLASS_VERSION, .method = q->method,
		.attr = q->attr, .drop = submitted_drop,
	};

	if (e == NULL || c->cb == NULL || !valid(q))
		return -1;
	address(q, &r);
	return mad_request(e, &r, submitted_done, c);
}

int
smp_reply(struct mad_engine *e, const uint8_t *mad, uint16_t dlid)
{
	struct transport_addr to = { .lid = dlid };

	return mad_send_reply(e, mad, TRANSPORT_MAD_SIZE, &to);
}
