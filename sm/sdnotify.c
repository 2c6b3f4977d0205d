/*
 * libsystemd on demand (sm/sdnotify.h): dlopen() of the library's stable
 * soname at the first call that has something to send, its two entry
 * points looked up once.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef HAVE_LIBSYSTEMD
#include <dlfcn.h>
#include <systemd/sd-daemon.h>
#endif

#include "core/log.h"
#include "sm/sdnotify.h"

#ifdef HAVE_LIBSYSTEMD
#define LIBSYSTEMD "libsystemd.so.0"

static struct {
	bool tried;
	__typeof__(sd_notify) *notify;
	__typeof__(sd_watchdog_enabled) *watchdog_enabled;
} lib;

/* true when libsystemd's functions can be called: the manager listens
 * and the library is loaded */
static bool
sd_loaded(void)
{
	void *h;

	if (lib.tried)
		return lib.notify != NULL;
	if (getenv("NOTIFY_SOCKET") == NULL)
		return false;   /* asked again at the next call */
	lib.tried = true;
	h = dlopen(LIBSYSTEMD, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		log_warn("NOTIFY_SOCKET is set but %s cannot be loaded (%s): "
		    "systemd gets no READY, STATUS or WATCHDOG from ibsmd",
		    LIBSYSTEMD, dlerror());
		return false;
	}
	lib.watchdog_enabled = (__typeof__(sd_watchdog_enabled) *)dlsym(h,
	    "sd_watchdog_enabled");
	lib.notify = (__typeof__(sd_notify) *)dlsym(h, "sd_notify");
	if (lib.notify == NULL || lib.watchdog_enabled == NULL) {
		log_warn("%s has no sd_notify or sd_watchdog_enabled: systemd "
		    "gets no READY, STATUS or WATCHDOG from ibsmd", LIBSYSTEMD);
		lib.notify = NULL;
		return false;
	}
	return true;
}

void
sdnotify(const char *state)
{
	if (sd_loaded())
		lib.notify(0, state);
}

void
sdnotify_status(const char *line)
{
	char msg[600];

	if (!sd_loaded())
		return;
	snprintf(msg, sizeof(msg), "STATUS=%s", line);
	lib.notify(0, msg);
}

uint64_t
sdnotify_watchdog_usec(void)
{
	uint64_t usec = 0;

	/* the watchdog comes with the notify socket: without it there is
	 * no one to feed */
	if (!sd_loaded() || lib.watchdog_enabled(0, &usec) <= 0)
		return 0;
	return usec;
}
#else
void
sdnotify(const char *state)
{
	(void)state;
}

void
sdnotify_status(const char *line)
{
	(void)line;
}

uint64_t
sdnotify_watchdog_usec(void)
{
	return 0;
}
#endif
