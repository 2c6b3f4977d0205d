/*
 * Files an operator may point anywhere: configuration (ibsmd.conf,
 * partitions.conf) and state (guid2lid, alias_guids, stats). Reading never
 * blocks and never reads without end: a FIFO, a directory, a device
 * (guid2lid linked to /dev/zero) are refused with a reason. Writing
 * replaces only a regular file.
 */
#ifndef IBSMD_FILE_H
#define IBSMD_FILE_H

#include <stddef.h>
#include <stdio.h>

enum { FILE_OK, FILE_MISSING, FILE_INVALID };

/*
 * Read a whole file, opened O_NONBLOCK: it must be a regular file (or
 * /dev/null, read as empty) of at most max bytes. Returns FILE_OK with
 * *text (malloc'd, NUL-terminated) and *len; FILE_MISSING when path does
 * not exist; FILE_INVALID with the reason in why ("not a regular file (a
 * FIFO)", "too large: ...", strerror for the rest).
 */
int file_read(const char *path, size_t max, char **text, size_t *len,
    char *why, size_t whylen);

/*
 * Whether a file about to be replaced (written aside, then renamed over
 * path) is one that may be: 0 when path does not exist or is a regular file
 * (a symbolic link is followed); -1 with the reason in why when it is
 * anything else (a directory, a FIFO, a device, a dangling link's target
 * aside).
 */
int file_check_replace(const char *path, char *why, size_t whylen);

/*
 * Replace path whole: write(fp, arg) fills "path.tmp" (opened without
 * following a link there), which is flushed, fsync'ed and renamed over
 * path; a path that may not be replaced (file_check_replace) is left
 * alone. 0, or -1 with errno (EINVAL for such a path), the temporary file
 * removed. write returns 0, or -1 to give up.
 */
int file_replace(const char *path, int (*write)(FILE *fp, void *arg),
    void *arg);

#endif
