/*
 * Logging in the OpenBSD log.h shape: levels, stderr or syslog or a file,
 * format-checked, debug tested before formatting.
 */
#ifndef IBSMD_LOG_H
#define IBSMD_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* dest: NULL or "-" = stderr, "syslog" = syslog, else a file path. */
int log_init(const char *ident, const char *dest, enum log_level level);
void log_fini(void);
int log_reopen(void);                   /* SIGUSR1: reopen the log file */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
int log_level_parse(const char *s, enum log_level *out);
const char *log_level_name(enum log_level level);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_warn(), and also on stderr and in syslog when the log is elsewhere:
 * for a failure of the log itself (a reopen after SIGUSR1). */
void log_warn_all(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

extern enum log_level log_level_cur;
#define log_debug(...) do { \
	if (log_level_cur >= LOG_LVL_DEBUG) log_debug_(__VA_ARGS__); \
} while (0)

#endif
