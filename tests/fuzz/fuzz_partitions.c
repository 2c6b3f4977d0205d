/*
 * libFuzzer harness for partitions.conf. Beyond crashes and sanitizer
 * reports, it checks what must hold for any input:
 *  - a policy comes back exactly when no error was reported, and the
 *    messages are in file order;
 *  - the normalized text (ibsmd -nv) parses back without error to a policy
 *    that prints the same (comments aside);
 *  - P_Key tables built twice, the second time from the first, are equal
 *    (indices are stable), and no table holds a P_Key twice.
 * A broken property aborts, which libFuzzer reports as a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/partitions.h"

static struct fabric fab;

static uint32_t
node(uint8_t type, uint8_t nports, uint64_t guid, const char *desc,
    uint16_t cap, uint8_t enforce)
{
	uint32_t n = fabric_add_node(&fab, type, nports, guid, NULL);

	fab.nodes[n].partition_cap = cap;
	fab.nodes[n].enforce_cap = enforce;
	snprintf(fab.nodes[n].desc, sizeof(fab.nodes[n].desc), "%s", desc);
	fab.nodes[n].desc_valid = 1;
	for (uint8_t i = 1; type != NODE_SWITCH && i <= nports; i++) {
		uint32_t p = fabric_port_idx(&fab, n, i);

		fab.ports[p].present = 1;
		fab.ports[p].guid = guid + i;
	}
	return n;
}

static void
cable(uint32_t a, uint8_t pa, uint32_t b, uint8_t pb)
{
	fabric_link(&fab, fabric_port_idx(&fab, a, pa),
	    fabric_port_idx(&fab, b, pb));
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uint32_t s1, s2, c1, c2, c3, r1;

	(void)argc;
	(void)argv;
	fabric_init(&fab);
	s1 = node(NODE_SWITCH, 8, 0x0002c90300000100ULL, "spine switch #1", 8, 4);
	s2 = node(NODE_SWITCH, 4, 0x0002c90300000200ULL, "leaf", 4, 0);
	c1 = node(NODE_CA, 2, 0x0002c90300000040ULL, "node01 HCA-1", 6, 0);
	c2 = node(NODE_CA, 1, 0x0002c90300001000ULL, "gpu07 mlx5_0", 3, 0);
	c3 = node(NODE_CA, 1, 0x0002c9000000b000ULL, "login4 HCA", 0, 0);
	r1 = node(NODE_ROUTER, 1, 0x0002c90300000090ULL, "router 1", 2, 0);
	cable(s1, 1, s2, 1);
	cable(s1, 2, c1, 1);
	cable(s1, 3, c2, 1);
	cable(s2, 2, c1, 2);
	cable(s1, 4, c3, 1);
	cable(s1, 5, r1, 1);
	fab.sm_port = fabric_port_idx(&fab, c1, 1);
	return 0;
}

/* The text without its comment lines. */
static char *
strip(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	while (*s != '\0') {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s + 1) : strlen(s);

		if (s[0] != '#') {
			memcpy(o, s, n);
			o += n;
		}
		s += n;
	}
	*o = '\0';
	return out;
}

static void
check_messages(const struct pkey_errors *e, const struct pkey_policy *p)
{
	size_t errors = 0;

	for (size_t i = 0; i < e->n; i++) {
		const struct pkey_msg *m = &e->msgs[i], *prev = i ? m - 1 : NULL;
		unsigned line = m->line ? m->line : ~0u;
		unsigned pline = prev && prev->line ? prev->line : ~0u;

		errors += m->level == PKEY_MSG_ERROR;
		if (m->line != 0 && m->col == 0)
			abort();
		if (prev != NULL && (pline > line || (pline == line &&
		    prev->col > m->col)))
			abort();
	}
	if (errors != e->nerrors || (p == NULL) != (errors > 0))
		abort();
}

static void
check_tables(const struct pkey_tables *t, bool both)
{
	for (size_t i = 0; i < t->n; i++)
		for (size_t a = 0; a < t->v[i].cap; a++)
			for (size_t b = a + 1; b < t->v[i].cap; b++) {
				uint16_t x = t->v[i].keys[a], y = t->v[i].keys[b];

				if (x == 0 || y == 0)
					continue;
				if (x == y)
					abort();
				if (!both && t->v[i].kind == PKEY_TABLE_PORT &&
				    PKEY_BASE(x) == PKEY_BASE(y))
					abort();
			}
}

static void
check_stable(const struct pkey_policy *p, bool both)
{
	struct pkey_opts o = { .allow_both = both };
	struct pkey_tables t1, t2;

	pkey_tables_build(p, &fab, NULL, &o, &t1, NULL, NULL);
	check_tables(&t1, both);
	pkey_tables_build(p, &fab, &t1, &o, &t2, NULL, NULL);
	if (t1.n != t2.n)
		abort();
	for (size_t i = 0; i < t1.n; i++)
		if (t1.v[i].guid != t2.v[i].guid || t1.v[i].num != t2.v[i].num ||
		    t1.v[i].cap != t2.v[i].cap ||
		    t1.v[i].enforce != t2.v[i].enforce ||
		    t1.v[i].dropped != t2.v[i].dropped ||
		    memcmp(t1.v[i].keys, t2.v[i].keys,
		    t1.v[i].cap * sizeof(uint16_t)) != 0)
			abort();
	pkey_tables_free(&t1);
	pkey_tables_free(&t2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkey_errors e, e2;
	struct pkey_policy *p, *p2;
	char *text, *nv, *nv2, *a, *b;

	pkey_errors_init(&e);
	p = pkey_policy_parse("fuzz.conf", (const char *)data, size, &e);
	check_messages(&e, p);
	text = pkey_errors_text(&e, true);
	free(text);
	pkey_errors_fini(&e);
	if (p == NULL)
		return 0;

	nv = pkey_policy_format(p, NULL);
	pkey_errors_init(&e2);
	p2 = pkey_policy_parse("nv", nv, strlen(nv), &e2);
	if (p2 == NULL) {
		text = pkey_errors_text(&e2, false);
		fprintf(stderr, "-nv output does not parse:\n%s\n%s", nv, text);
		abort();
	}
	nv2 = pkey_policy_format(p2, NULL);
	a = strip(nv);
	b = strip(nv2);
	if (strcmp(a, b) != 0) {
		fprintf(stderr, "-nv output changes when parsed again:\n%s\n"
		    "----\n%s", nv, nv2);
		abort();
	}
	free(a);
	free(b);
	free(nv);
	free(nv2);
	pkey_policy_free(p2);
	pkey_errors_fini(&e2);

	text = pkey_policy_format(p, &fab);
	free(text);
	check_stable(p, false);
	check_stable(p, true);
	pkey_policy_free(p);
	return 0;
}
