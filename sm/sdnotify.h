/*
 * systemd's notification protocol (READY=1, STATUS=, WATCHDOG=1) through
 * libsystemd, which is loaded only when the service manager listens
 * ($NOTIFY_SOCKET set at the first call): a daemon started by hand, by a
 * test or a benchmark does not pay for loading the library. When the
 * variable is set and the library cannot be loaded, the first call logs
 * why (a Type=notify unit then times out waiting for READY=1) and the
 * calls do nothing. Built without libsystemd's header: nothing is sent.
 */
#ifndef IBSMD_SDNOTIFY_H
#define IBSMD_SDNOTIFY_H

#include <stdint.h>

/* sd_notify(0, state) */
void sdnotify(const char *state);
/* sd_notify(0, "STATUS=<line>") */
void sdnotify_status(const char *line);
/* The watchdog period systemd asks for (sd_watchdog_enabled), in
 * microseconds; 0 when there is none. */
uint64_t sdnotify_watchdog_usec(void);

#endif
