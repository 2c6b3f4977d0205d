/*
 * core/log: a log file that cannot be reopened (SIGUSR1) is reported on
 * stderr and in syslog as well as in the log. syslog() is replaced at link
 * time by the recorder below; stderr goes to a temporary file.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/log.h"

static char syslogged[4096];
static int syslog_prio = -1;

void
openlog(const char *ident, int option, int facility)
{
	(void)ident; (void)option; (void)facility;
}

void
closelog(void)
{
}

static void
record(int prio, const char *fmt, va_list ap)
{
	size_t off = strlen(syslogged);

	syslog_prio = prio;
	vsnprintf(syslogged + off, sizeof(syslogged) - off, fmt, ap);
	strncat(syslogged, "\n", sizeof(syslogged) - strlen(syslogged) - 1);
}

void
syslog(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(prio, fmt, ap);
	va_end(ap);
}

/* With _FORTIFY_SOURCE (Debian's package build flags), <syslog.h> turns
 * syslog() into __syslog_chk(): replace that one too. */
void __syslog_chk(int prio, int flag, const char *fmt, ...);
void
__syslog_chk(int prio, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	record(prio, fmt, ap);
	va_end(ap);
}

static char *
slurp(const char *path)
{
	static char buf[8192];
	FILE *fp = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (fp == NULL)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

START_TEST(reopen_failure_everywhere)
{
	char dir[] = "/tmp/check_log.XXXXXX", logf[256], errf[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(logf, sizeof(logf), "%s/ibsmd.log", dir);
	snprintf(errf, sizeof(errf), "%s/stderr", dir);
	ck_assert_ptr_nonnull(freopen(errf, "w", stderr));
	setvbuf(stderr, NULL, _IONBF, 0);
	ck_assert_int_eq(log_init("ibsmd", logf, LOG_LVL_INFO), 0);
	log_info("first line");
	ck_assert_int_eq(log_reopen(), 0);
	/* the file rotated away and a directory in its place */
	ck_assert_int_eq(unlink(logf), 0);
	ck_assert_int_eq(mkdir(logf, 0700), 0);
	ck_assert_int_eq(log_reopen(), -1);
	log_warn_all("SIGUSR1: cannot reopen the log file %s", logf);
	ck_assert_ptr_nonnull(strstr(slurp(errf), "cannot reopen the log file"));
	ck_assert_ptr_nonnull(strstr(slurp(errf), "Is a directory"));
	ck_assert_ptr_nonnull(strstr(syslogged, "cannot reopen the log file"));
	ck_assert_int_eq(syslog_prio, 4 /* LOG_WARNING */);
	log_fini();
	rmdir(logf);
	unlink(errf);
	rmdir(dir);
}
END_TEST

START_TEST(stderr_log_not_doubled)
{
	char dir[] = "/tmp/check_log.XXXXXX", errf[256], *s, *again;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(errf, sizeof(errf), "%s/stderr", dir);
	ck_assert_ptr_nonnull(freopen(errf, "w", stderr));
	setvbuf(stderr, NULL, _IONBF, 0);
	syslogged[0] = '\0';
	ck_assert_int_eq(log_init("ibsmd", "-", LOG_LVL_INFO), 0);
	errno = ENOENT;
	log_warn_all("cannot reopen %s", "x");
	s = slurp(errf);
	ck_assert_ptr_nonnull(strstr(s, "warn: cannot reopen x"));
	again = strstr(s, "cannot reopen x");
	ck_assert_ptr_null(strstr(again + 1, "cannot reopen x"));
	ck_assert_ptr_nonnull(strstr(syslogged, "cannot reopen x"));
	log_fini();
	unlink(errf);
	rmdir(dir);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("reopen");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, reopen_failure_everywhere);
	tcase_add_test(tc, stderr_log_not_doubled);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
