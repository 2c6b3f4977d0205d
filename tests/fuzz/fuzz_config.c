/*
 * libFuzzer harness for ibsmd.conf: config_load_buffer() on arbitrary
 * bytes. Beyond crashes, leaks and sanitizer reports, it checks what must
 * hold for any input:
 *  - CONFIG_OK exactly when no error line was appended, and a failed load
 *    leaves the configuration untouched (equal to the defaults);
 *  - what `ibsmd -nv` prints for a loaded configuration loads back without
 *    error to the same values.
 * A broken property aborts, which libFuzzer reports as a finding.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* open_memstream */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* The engines ibsmd has; this harness links no routing/. */
static const char *const engines[] = { "ftree", "updn", "minhop", NULL };

static const char *
engine_name(size_t i)
{
	return engines[i];
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	config_set_engine_names(engine_name);
	return 0;
}

static void
same(const struct ibsmd_config *a, const struct ibsmd_config *b,
    const char *what)
{
	size_t n;
	const struct cfg_option *s = config_schema(&n);

	for (size_t i = 0; i < n; i++)
		if (!config_equal(a, b, &s[i])) {
			fprintf(stderr, "%s: %s differs\n", what, s[i].name);
			abort();
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_errors errs = { 0 }, errs2 = { 0 };
	struct ibsmd_config cfg, def, back;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;
	int r;

	config_init(&cfg);
	config_init(&def);
	r = config_load_buffer(&cfg, "fuzz.conf", (const char *)data, size,
	    CFG_CONFIG_FILE, &errs);
	if ((r == CONFIG_OK) != (errs.n == 0) || (r != CONFIG_OK &&
	    r != CONFIG_INVALID))
		abort();
	if (r != CONFIG_OK) {
		same(&cfg, &def, "failed load changed the configuration");
		goto out;
	}

	if ((fp = open_memstream(&text, &len)) == NULL)
		abort();
	config_print(&cfg, fp);
	fclose(fp);
	config_init(&back);
	if (config_load_buffer(&back, "printed", text, len, CFG_CONFIG_FILE,
	    &errs2) != CONFIG_OK) {
		fprintf(stderr, "-nv output does not load:\n%s", text);
		for (size_t i = 0; i < errs2.n; i++)
			fprintf(stderr, "%s\n", errs2.line[i]);
		abort();
	}
	same(&cfg, &back, "-nv output loads back to other values");
	if (config_reload_diff(&cfg, &back, NULL, NULL) != 0)
		abort();
	config_fini(&back);
	free(text);
out:
	config_errors_fini(&errs);
	config_errors_fini(&errs2);
	config_fini(&cfg);
	config_fini(&def);
	return 0;
}
