/*
 * Requests in flight, and who waits for the last of them to settle
 * (answered or failed): a module that sends Sets counts each one sent
 * with inflight_add() and each one settled with inflight_settled(); a
 * caller that wants to know when none is left asks inflight_wait(). The
 * callback runs once, from the settling of the last one, never from
 * inflight_wait() itself. Used by sm/mcast and sm/vfguid for sm/upkeep's
 * steps.
 */
#ifndef IBSMD_CORE_INFLIGHT_H
#define IBSMD_CORE_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*inflight_cb)(void *arg);

struct inflight {
	unsigned n;             /* in flight now */
	inflight_cb done;       /* NULL: nobody waits */
	void *arg;
};

static inline void
inflight_add(struct inflight *w)
{
	w->n++;
}

/* One settled: the last one tells whoever waits (once). */
static inline void
inflight_settled(struct inflight *w)
{
	inflight_cb cb = w->done;

	if (w->n > 0)
		w->n--;
	if (w->n > 0 || cb == NULL)
		return;
	w->done = NULL;
	cb(w->arg);
}

/* true: requests are in flight, done will be called when none is;
 * false: nothing to wait for, done is not called. */
static inline bool
inflight_wait(struct inflight *w, inflight_cb done, void *arg)
{
	if (w->n == 0)
		return false;
	w->done = done;
	w->arg = arg;
	return true;
}

/* Nobody waits any more (the requests still settle and are counted). */
static inline void
inflight_forget(struct inflight *w)
{
	w->done = NULL;
}

#endif
