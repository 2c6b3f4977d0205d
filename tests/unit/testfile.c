/*
 * Test data files: see testfile.h.
 */
#include "autoconfig.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/testfile.h"

const char *
test_top_srcdir(void)
{
	const char *d = getenv("TOP_SRCDIR");

	if (d == NULL || *d == '\0')
		d = getenv("srcdir");
	return d != NULL && *d != '\0' ? d : "..";
}

char *
test_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

unsigned
test_corpus(const char *tree, const char *kind,
    void (*each)(const char *dir, const char *name))
{
	char dir[4096];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/tests/%s/%s", test_top_srcdir(), tree,
	    kind);
	d = opendir(dir);
	ck_assert_msg(d != NULL, "no corpus at %s (set TOP_SRCDIR)", dir);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len > 5 && strcmp(de->d_name + len - 5, ".conf") == 0) {
			each(dir, de->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}
