/*
 * libFuzzer harness for qos-policy.conf (partitions/qos). Beyond crashes
 * and sanitizer reports, it checks what must hold for any input:
 *  - a policy comes back exactly when no error was reported;
 *  - the normalized text (ibsmd -nv) parses back without error and prints
 *    the same;
 *  - every request resolves to a level with an SL.
 * A broken property aborts, which libFuzzer reports as a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/partitions.h"
#include "partitions/qos.h"

static struct pkey_policy *parts;

/* the ports' P_Keys: the odd GUID's 0x0010 too */
static const uint16_t keys_odd[] = { 0xffff, 0x0010 };
static const uint16_t keys_even[] = { 0xffff };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char text[] = "Default=0x7fff, ipoib : ALL=full;\n"
	    "storage=0x0010, ipoib : ALL;\nbackup=0x0020 : SELF;\n";
	struct pkey_errors e;

	(void)argc;
	(void)argv;
	pkey_errors_init(&e);
	parts = pkey_policy_parse("p", text, sizeof(text) - 1, &e);
	pkey_errors_fini(&e);
	return parts == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qos_port ports[3] = {
		{ .guid = 0x0002c90300000011ULL, .node_type = NODE_CA, .num = 1,
		    .desc = "stor1 HCA-1", .keys = keys_odd, .nkeys = 2 },
		{ .guid = 0x0002c90300000042ULL, .node_type = NODE_SWITCH,
		    .num = 0, .desc = "leaf", .keys = keys_even, .nkeys = 1,
		    .self = true },
		{ .guid = 0x10000000000001ULL, .node_type = NODE_ROUTER,
		    .num = 2, .desc = NULL },
	};
	struct pkey_errors e, e2;
	struct qos_policy *p, *p2;
	char *nv, *nv2;

	pkey_errors_init(&e);
	p = qos_policy_parse("f", (const char *)data, size, parts, &e);
	if ((p != NULL) != (e.nerrors == 0))
		abort();
	pkey_errors_fini(&e);
	if (p == NULL)
		return 0;
	for (unsigned i = 0; i < 27; i++) {
		struct qos_query q = { .given = i & 7,
		    .service_id = i & 8 ? 0x10000 + i : 0x1060cbc,
		    .pkey = i & 16 ? 0x8010 : 0xffff, .qos_class = (uint16_t)i,
		    .src = &ports[i % 3], .dst = i & 4 ? &ports[(i + 1) % 3] :
		    NULL };
		const struct qos_level *l = qos_policy_match(p, &q);

		if (l == NULL || !(l->set & QOS_LF_SL) || l->sl > 15)
			abort();
	}
	nv = qos_policy_format(p, ports, 3);
	pkey_errors_init(&e2);
	p2 = qos_policy_parse("nv", nv, strlen(nv), parts, &e2);
	if (p2 == NULL) {
		fprintf(stderr, "-nv does not parse:\n%s\n%s", nv,
		    pkey_errors_text(&e2, false));
		abort();
	}
	nv2 = qos_policy_format(p2, ports, 3);
	if (strcmp(nv, nv2) != 0) {
		fprintf(stderr, "-nv not stable:\n%s\n----\n%s", nv, nv2);
		abort();
	}
	free(nv);
	free(nv2);
	qos_policy_free(p2);
	pkey_errors_fini(&e2);
	qos_policy_free(p);
	return 0;
}
