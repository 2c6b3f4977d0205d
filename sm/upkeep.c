/*
 * The steps after a sweep's "up" as a table state machine: see
 * sm/upkeep.h.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/log.h"
#include "sm/upkeep.h"

enum ev { E_UP, E_SETTLED, E_STOP, E_COUNT, E_NONE = E_COUNT };

struct upkeep {
	struct upkeep_hooks h;
	enum upkeep_step step;
	uint64_t rounds, restarts, finished;
};

/* An action runs once its transition's state is entered; it returns the
 * event that follows at once (a step with nothing to wait for), or
 * E_NONE. */
typedef enum ev (*action_fn)(struct upkeep *);

struct transition {
	enum upkeep_step from;
	enum ev ev;
	action_fn action;
	enum upkeep_step to;
};

static enum ev a_mcast(struct upkeep *);
static enum ev a_restart(struct upkeep *);
static enum ev a_alias(struct upkeep *);
static enum ev a_finish(struct upkeep *);
static enum ev a_stop(struct upkeep *);

static const struct transition table[] = {
	{ UPKEEP_IDLE,  E_UP,      a_mcast,   UPKEEP_MCAST },
	{ UPKEEP_DONE,  E_UP,      a_mcast,   UPKEEP_MCAST },
	{ UPKEEP_MCAST, E_UP,      a_restart, UPKEEP_MCAST },
	{ UPKEEP_ALIAS, E_UP,      a_restart, UPKEEP_MCAST },
	{ UPKEEP_MCAST, E_SETTLED, a_alias,   UPKEEP_ALIAS },
	{ UPKEEP_ALIAS, E_SETTLED, a_finish,  UPKEEP_DONE },
	{ UPKEEP_MCAST, E_STOP,    a_stop,    UPKEEP_IDLE },
	{ UPKEEP_ALIAS, E_STOP,    a_stop,    UPKEEP_IDLE },
	{ UPKEEP_DONE,  E_STOP,    a_stop,    UPKEEP_IDLE },
};

static const struct transition *
lookup(enum upkeep_step s, enum ev e)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].from == s && table[i].ev == e)
			return &table[i];
	return NULL;
}

/* Events not in the table for the step (a stop when idle) change
 * nothing. */
static void
fsm(struct upkeep *u, enum ev e)
{
	const struct transition *t;

	while (e != E_NONE && (t = lookup(u->step, e)) != NULL) {
		log_debug("upkeep: %s -> %s", upkeep_step_name(u->step),
		    upkeep_step_name(t->to));
		u->step = t->to;
		e = t->action(u);
	}
}

static enum ev
a_mcast(struct upkeep *u)
{
	u->rounds++;
	return u->h.mcast != NULL && u->h.mcast(u->h.arg) ? E_NONE :
	    E_SETTLED;
}

static enum ev
a_restart(struct upkeep *u)
{
	u->restarts++;
	return a_mcast(u);
}

static enum ev
a_alias(struct upkeep *u)
{
	return u->h.alias != NULL && u->h.alias(u->h.arg) ? E_NONE :
	    E_SETTLED;
}

static enum ev
a_finish(struct upkeep *u)
{
	u->finished++;
	if (u->h.finish != NULL)
		u->h.finish(u->h.arg);
	return E_NONE;
}

static enum ev
a_stop(struct upkeep *u)
{
	(void)u;
	return E_NONE;
}

struct upkeep *
upkeep_new(const struct upkeep_hooks *h)
{
	struct upkeep *u = xcalloc(1, sizeof(*u));

	u->h = *h;
	u->step = UPKEEP_IDLE;
	return u;
}

void
upkeep_free(struct upkeep *u)
{
	free(u);
}

void
upkeep_up(struct upkeep *u)
{
	fsm(u, E_UP);
}

void
upkeep_stop(struct upkeep *u)
{
	fsm(u, E_STOP);
}

void
upkeep_settled(struct upkeep *u, enum upkeep_step step)
{
	/* a step abandoned (stop, a new up) may still settle: not ours */
	if (step == u->step)
		fsm(u, E_SETTLED);
}

void
upkeep_get_stats(const struct upkeep *u, struct upkeep_stats *st)
{
	st->step = u->step;
	st->rounds = u->rounds;
	st->restarts = u->restarts;
	st->finished = u->finished;
}

const char *
upkeep_step_name(enum upkeep_step s)
{
	static const char *const n[UPKEEP_COUNT] = {
		"idle", "multicast", "alias-guids", "done",
	};

	return s < UPKEEP_COUNT ? n[s] : "?";
}
