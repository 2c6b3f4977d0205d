/*
 * The performance manager's view for ibsmctl errors: the ports whose
 * error counters are nonzero or rose at the last read, with their node's
 * and peer's names, from sm/perfmgr's totals (like ibqueryerrors, without
 * asking the fabric). Text and JSON.
 */
#ifndef IBSMD_SHOW_PERF_H
#define IBSMD_SHOW_PERF_H

struct fabric;
struct perfmgr;
struct show;

/* pm NULL: no performance manager in this daemon; f the model in use
 * (NULL: none yet), for the names. */
void show_errors(struct show *s, const struct perfmgr *pm,
    const struct fabric *f);

#endif
