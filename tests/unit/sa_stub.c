/*
 * The sa/sa.c accessors, for unit tests of attribute modules: see
 * sa_stub.h.
 */
#include "tests/unit/sa_stub.h"

void *sa_stub_state[0x100];
const struct sa_view *sa_stub_view;
struct mad_engine *sa_stub_mad;
struct sa_opts sa_stub_opts;

void *
sa_attr_state(struct sa *sa, uint16_t id)
{
	(void)sa;
	return id < 0x100 ? sa_stub_state[id] : NULL;
}

const struct sa_view *
sa_current_view(const struct sa *sa)
{
	(void)sa;
	return sa_stub_view;
}

struct mad_engine *
sa_mad(struct sa *sa)
{
	(void)sa;
	return sa_stub_mad;
}

const struct sa_opts *
sa_get_opts(const struct sa *sa)
{
	(void)sa;
	return &sa_stub_opts;
}

static struct sa_stats stub_stats;

struct sa_stats *
sa_stats_mut(struct sa *sa)
{
	(void)sa;
	return &stub_stats;
}

bool
sa_is_serving(const struct sa *sa)
{
	(void)sa;
	return true;
}
