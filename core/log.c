#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/time.h>

enum log_level log_level_cur = LOG_LVL_INFO;
static FILE *log_fp;            /* NULL: stderr */
static char *log_path;          /* set when logging to a file */
static int log_syslog;
static char log_ident[32] = "ibsmd";

#define LOG_SYSLOG_SOCKET "/dev/log"

static const char *const level_names[] = { "error", "warn", "info", "debug" };

int
log_init(const char *ident, const char *dest, enum log_level level)
{
	log_level_cur = level;
	snprintf(log_ident, sizeof(log_ident), "%s", ident);
	if (dest == NULL || strcmp(dest, "-") == 0 || strcmp(dest, "stderr") == 0)
		return 0;
	if (strcmp(dest, "syslog") == 0) {
		struct stat st;
		int r = stat(LOG_SYSLOG_SOCKET, &st), e = errno;

		/* Without a syslog socket syslog(3) drops every line without
		 * a word: say so, and where the lines go instead. */
		if (r < 0 || !S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "%s: syslog: %s: %s (no syslog daemon "
			    "or journal listens there): logging to standard "
			    "error instead\n", ident, LOG_SYSLOG_SOCKET, r < 0 ?
			    strerror(e) : "not a socket");
			return 0;
		}
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_syslog = 1;
		return 0;
	}
	log_path = strdup(dest);
	if (log_path == NULL)
		return -1;
	return log_reopen();
}

void
log_fini(void)
{
	if (log_fp != NULL)
		fclose(log_fp);
	log_fp = NULL;
	free(log_path);
	log_path = NULL;
	if (log_syslog)
		closelog();
	log_syslog = 0;
}

int
log_reopen(void)
{
	FILE *fp;

	if (log_path == NULL)
		return 0;
	fp = fopen(log_path, "a");
	if (fp == NULL)
		return -1;
	setvbuf(fp, NULL, _IOLBF, 0);
	if (log_fp != NULL)
		fclose(log_fp);
	log_fp = fp;
	return 0;
}

void
log_set_level(enum log_level level)
{
	log_level_cur = level;
}

enum log_level
log_get_level(void)
{
	return log_level_cur;
}

int
log_level_parse(const char *s, enum log_level *out)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

const char *
log_level_name(enum log_level level)
{
	if ((unsigned)level < sizeof(level_names) / sizeof(level_names[0]))
		return level_names[level];
	return "?";
}

static void
vlog(enum log_level level, const char *fmt, va_list ap, const char *err)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char msg[1024];
	FILE *fp;

	if (level > log_level_cur)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_syslog) {
		if (err)
			syslog(prio[level], "%s: %s", msg, err);
		else
			syslog(prio[level], "%s", msg);
		return;
	}
	fp = log_fp ? log_fp : stderr;
	if (log_fp != NULL) {
		struct timeval tv;
		struct tm tm;
		char ts[32];

		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(fp, "%s.%03ld ", ts, (long)(tv.tv_usec / 1000));
	}
	fprintf(fp, "%s: %s%s%s\n", level_names[level], msg, err ? ": " : "",
	    err ? err : "");
}

void
log_warn_all(const char *fmt, ...)
{
	const char *e = strerror(errno);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s: %s", msg, e);
	if (log_fp != NULL || log_syslog)
		fprintf(stderr, "%s: warn: %s: %s\n", log_ident, msg, e);
	if (!log_syslog) {
		openlog(log_ident, LOG_PID, LOG_DAEMON);
		syslog(LOG_WARNING, "%s: %s", msg, e);
		closelog();
	}
}

#define LOG_BODY(level, err) do { \
	va_list ap; \
	va_start(ap, fmt); \
	vlog(level, fmt, ap, err); \
	va_end(ap); \
} while (0)

void log_warn(const char *fmt, ...) { const char *e = strerror(errno); LOG_BODY(LOG_LVL_WARN, e); }
void log_warnx(const char *fmt, ...) { LOG_BODY(LOG_LVL_WARN, NULL); }
void log_info(const char *fmt, ...) { LOG_BODY(LOG_LVL_INFO, NULL); }
void log_debug_(const char *fmt, ...) { LOG_BODY(LOG_LVL_DEBUG, NULL); }

void
fatal(const char *fmt, ...)
{
	const char *e = strerror(errno);

	LOG_BODY(LOG_LVL_ERROR, e);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERROR, NULL);
	exit(1);
}
