#include "sm/inherit.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "mad/mad.h"
#include "mad/smp.h"
#include "routing/acyclic.h"
#include "routing/kernel.h"
#include "routing/routing.h"

#define LFT_BLOCK 64

struct inherit {
	struct mad_engine *mad;
	const struct fabric *f;
	struct lft_set *held;
	inherit_block_cb block;
	inherit_done_cb done;
	void *arg;
	unsigned pending, failures;
	bool aborted;
};

struct ireq {
	struct inherit *h;
	uint32_t sw;
	uint32_t block;
};

static void
finish_one(struct inherit *h)
{
	if (--h->pending > 0)
		return;
	if (!h->aborted)
		h->done(h->arg, h->failures);
	free(h);
}

static void
on_block(void *arg, int status, const uint8_t *resp)
{
	struct ireq *q = arg;
	struct inherit *h = q->h;
	const struct fabric_node *n;
	const uint8_t *d;
	uint8_t *row;
	uint32_t lid;

	if (h->aborted)
		goto out;
	n = &h->f->nodes[h->held->sw_node[q->sw]];
	if (status != 0 || resp == NULL) {
		char st[96];

		h->failures++;
		log_debug("inherit: switch 0x%016" PRIx64 " LFT block %u: %s",
		    n->guid, q->block, mad_status_text(MGMT_CLASS_SMP_DR,
		    status, st, sizeof(st)));
		goto out;
	}
	d = resp + SMP_DATA_OFFSET;
	row = lft_row(h->held, q->sw);
	for (uint32_t i = 0; i < LFT_BLOCK; i++) {
		lid = q->block * LFT_BLOCK + i;
		if (lid <= h->held->max_lid)
			row[lid] = lid <= n->lft_top ? d[i] : LFT_NO_ROUTE;
	}
	h->block(h->arg, n->guid, n->lft_top, q->block, d);
out:
	free(q);
	finish_one(h);
}

struct inherit *
inherit_read(struct mad_engine *mad, const struct fabric *f,
    struct lft_set *held, inherit_block_cb block, inherit_done_cb done,
    void *arg)
{
	struct inherit *h = xcalloc(1, sizeof(*h));

	if (lft_set_init(held, f) < 0)
		fatal("inherit: out of memory");
	h->mad = mad;
	h->f = f;
	h->held = held;
	h->block = block;
	h->done = done;
	h->arg = arg;
	h->pending = 1;         /* held until every request is out */
	for (uint32_t sw = 0; sw < held->nsw; sw++) {
		const struct fabric_node *n = &f->nodes[held->sw_node[sw]];
		uint32_t last;

		if (!n->sw_info_valid || n->path == FABRIC_NONE ||
		    n->lft_top == 0)
			continue;
		last = (n->lft_top < held->max_lid ? n->lft_top :
		    held->max_lid) / LFT_BLOCK;
		for (uint32_t b = 0; b <= last; b++) {
			struct ireq *q = xmalloc(sizeof(*q));
			struct smp_req r = {
				.method = MAD_GET, .attr = ATTR_LFT, .mod = b,
				.path = &f->paths[n->path], .dest = n->guid,
			};

			q->h = h;
			q->sw = sw;
			q->block = b;
			h->pending++;
			if (smp_request(mad, &r, on_block, q) < 0) {
				h->pending--;
				h->failures++;
				free(q);
			}
		}
	}
	/* Nothing asked: done still comes from the loop, through an
	 * request-free path the caller handles as "no failures". */
	if (h->pending == 1) {
		h->pending = 0;
		free(h);
		done(arg, 0);
		return NULL;
	}
	h->pending--;
	return h;
}

void
inherit_abort(struct inherit *h)
{
	if (h != NULL)
		h->aborted = true;
}
