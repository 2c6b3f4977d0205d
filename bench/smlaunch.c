/*
 * smlaunch: start one program, wait for it with wait4(), and report its wall
 * time, exit status and peak RSS.  Used by bench/bringup to run each SM the
 * same way.  Not part of the build: bench/bringup compiles it at run time:
 *
 *     cc -O2 -o smlaunch smlaunch.c
 *     smlaunch REPORT PROGRAM [ARGS...]
 *
 * Why not spawn the SM from Python directly: Linux carries the peak RSS of
 * the process image an exec() replaces into the new image's ru_maxrss
 * (exec_mmap() folds the old mm's high-water mark into signal->maxrss), and a
 * child forked (or vforked) from the Python interpreter starts with the
 * interpreter's ~15 MB.  /bin/true spawned from Python reports a 14 MB peak.
 * Forked from this small program instead, the floor is about 1 MB.
 *
 * Environment: SMLAUNCH_PRELOAD, if set, becomes LD_PRELOAD of the program
 * (and only of it, not of smlaunch).  Everything else is inherited.
 *
 * REPORT is written when the program has been reaped, as "key value" lines:
 *   pid        the program's pid
 *   status     exit status (0..255), or -N if killed by signal N, or 127
 *              with exec_errno set if it could not be started
 *   exec_errno errno of a failed execvp(), else 0
 *   start_ns   CLOCK_MONOTONIC just before fork(), ns
 *   exit_ns    CLOCK_MONOTONIC when wait4() returned, ns
 *   start_realtime_ns  CLOCK_REALTIME just before fork(), ns
 *   maxrss_kb  ru_maxrss from wait4() (KiB)
 *   utime_us, stime_us  CPU time of the program
 *
 * SIGTERM, SIGINT and SIGHUP received by smlaunch are passed on to the
 * program; if smlaunch itself dies, the program gets SIGKILL
 * (PR_SET_PDEATHSIG), so it never outlives its launcher.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t child = -1;

static uint64_t ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	int errpipe[2], status = 0, exec_errno = 0, code;
	const char *preload = getenv("SMLAUNCH_PRELOAD");
	uint64_t t0, t0_real, t1;
	struct sigaction sa;
	struct rusage ru;
	pid_t ppid = getpid(), w;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: smlaunch REPORT PROGRAM [ARGS...]\n");
		return 2;
	}
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		perror("smlaunch: pipe2");
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	t0_real = ns(CLOCK_REALTIME);
	t0 = ns(CLOCK_MONOTONIC);
	child = fork();
	if (child < 0) {
		perror("smlaunch: fork");
		return 2;
	}
	if (child == 0) {
		int e;

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != ppid)
			_exit(127);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		unsetenv("SMLAUNCH_PRELOAD");
		execvp(argv[2], argv + 2);
		e = errno;
		if (write(errpipe[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(errpipe[1]);

	do
		w = wait4(child, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	t1 = ns(CLOCK_MONOTONIC);
	if (w < 0) {
		perror("smlaunch: wait4");
		return 2;
	}
	if (read(errpipe[0], &exec_errno, sizeof(exec_errno)) != sizeof(exec_errno))
		exec_errno = 0;

	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = -WTERMSIG(status);
	else
		code = -1000;

	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "pid %ld\nstatus %d\nexec_errno %d\nstart_ns %llu\nexit_ns %llu\n"
		"start_realtime_ns %llu\nmaxrss_kb %ld\nutime_us %lld\nstime_us %lld\n",
		(long)child, code, exec_errno, (unsigned long long)t0,
		(unsigned long long)t1, (unsigned long long)t0_real, ru.ru_maxrss,
		(long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		(long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	if (fclose(f)) {
		perror(argv[1]);
		return 2;
	}
	return 0;
}
