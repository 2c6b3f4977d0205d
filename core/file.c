#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/log.h"

static const char *
file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	    S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device" :
	    S_ISBLK(m) ? "a block device" : "not a file";
}

/* /dev/null stands for an empty file (-c /dev/null: no configuration). */
static bool
is_dev_null(const struct stat *st)
{
	struct stat dn;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &dn) == 0 &&
	    S_ISCHR(dn.st_mode) && dn.st_rdev == st->st_rdev;
}

int
file_read(const char *path, size_t max, char **text, size_t *len,
    char *why, size_t whylen)
{
	struct stat st;
	size_t got = 0, cap;
	char *buf;
	ssize_t n;
	int fd;

	*text = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return FILE_MISSING;
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return FILE_INVALID;
	}
	if (!S_ISREG(st.st_mode) && !is_dev_null(&st)) {
		snprintf(why, whylen, "not a regular file (%s)",
		    file_kind(st.st_mode));
		close(fd);
		return FILE_INVALID;
	}
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
		snprintf(why, whylen, "too large: %ju bytes (%zu at most)",
		    (uintmax_t)st.st_size, max);
		close(fd);
		return FILE_INVALID;
	}
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1;
	buf = xcalloc(cap, 1);
	for (;;) {
		if (got + 1 >= cap) {
			/* the file grew while we read it */
			if (cap > max) {
				snprintf(why, whylen, "too large: more than %zu "
				    "bytes", max);
				free(buf);
				close(fd);
				return FILE_INVALID;
			}
			cap *= 2;
			if ((buf = realloc(buf, cap)) == NULL)
				fatal("file: out of memory");
		}
		n = read(fd, buf + got, cap - got - 1);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			free(buf);
			close(fd);
			return FILE_INVALID;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return FILE_OK;
}

int
file_check_replace(const char *path, char *why, size_t whylen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file (%s): not replaced",
		    file_kind(st.st_mode));
		return -1;
	}
	return 0;
}

int
file_replace(const char *path, int (*write)(FILE *fp, void *arg), void *arg)
{
	size_t plen = strlen(path);
	char *tmp = xmalloc(plen + sizeof(".tmp")), why[256];
	FILE *fp = NULL;
	int fd, serrno;

	if (file_check_replace(path, why, sizeof(why)) < 0) {
		free(tmp);
		errno = EINVAL;
		return -1;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", sizeof(".tmp"));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	if (fd == -1 || (fp = fdopen(fd, "w")) == NULL)
		goto fail;
	if (write(fp, arg) < 0 || fflush(fp) == EOF || fsync(fileno(fp)) == -1)
		goto fail;
	if (fclose(fp) == EOF) {
		fp = NULL;
		goto fail;
	}
	fp = NULL;
	if (rename(tmp, path) == -1)
		goto fail;
	free(tmp);
	return 0;
fail:
	serrno = errno;
	if (fp != NULL)
		fclose(fp);
	else if (fd != -1)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = serrno;
	return -1;
}
