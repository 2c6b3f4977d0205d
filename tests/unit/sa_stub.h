/*
 * What attribute modules call in sa/sa.c, replaced at link time for unit
 * tests that drive a module's handlers without an agent: the state, view,
 * engine and options the test sets here.
 */
#ifndef IBSMD_TESTS_SA_STUB_H
#define IBSMD_TESTS_SA_STUB_H

#include "sa/attr.h"

extern void *sa_stub_state[0x100];      /* by attribute id (< 0x100) */
extern const struct sa_view *sa_stub_view;
extern struct mad_engine *sa_stub_mad;
extern struct sa_opts sa_stub_opts;

#endif
