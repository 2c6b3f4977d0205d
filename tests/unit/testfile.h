/*
 * Test data files for the Check suites that read corpora from the source
 * tree (check_partitions, check_qos_policy): tests/<tree>/<kind>/NAME.conf
 * with a golden file beside each.
 */
#ifndef IBSMD_TESTS_TESTFILE_H
#define IBSMD_TESTS_TESTFILE_H

#include <stddef.h>

/* The source tree: $TOP_SRCDIR, else $srcdir (make check), else "..". */
const char *test_top_srcdir(void);

/* The whole file, NUL-terminated (its length in *len unless len is
 * NULL); NULL if it cannot be opened. A short read fails the test. */
char *test_slurp(const char *path, size_t *len);

/* Call each(dir, name) for every NAME.conf in TOP_SRCDIR/tree/kind (the
 * directory must exist); returns how many. */
unsigned test_corpus(const char *tree, const char *kind,
    void (*each)(const char *dir, const char *name));

#endif
