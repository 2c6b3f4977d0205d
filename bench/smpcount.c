/*
 * smpcount: LD_PRELOAD shim that counts the MADs a process sends through
 * libibumad's umad_send(), by management class, method and attribute.
 *
 * Used by bench/bringup to count the SMPs an SM sends, identically for ibsmd
 * and OpenSM.  Not part of the build: bench/bringup compiles it at run time:
 *
 *     cc -O2 -shared -fPIC -o smpcount.so smpcount.c -ldl
 *
 * and runs the SM with
 *
 *     LD_PRELOAD=/tmp/.../smpcount.so:.../tests/fixture/umadfix.so
 *
 * The first definition of umad_send() in the process is the one every
 * caller (libosmvendor, the SM's own code) binds to: the shim's.  It
 * forwards to the next definition (RTLD_NEXT: libibumad's), so each
 * umad_send() call is counted exactly once, whatever happens underneath
 * (libibumad turns it into a write() on the umad fd, which the umadfix
 * device, or the kernel on a host, takes).
 *
 * Environment:
 *   SMPCOUNT_OUT     file the counts are written to (required; without it
 *                    the shim only forwards).  "%p" in it is replaced by the
 *                    pid of the writing process, so every process that
 *                    inherits the preload (a wrapper such as time(1), a
 *                    forked child, a helper) writes its own file; bench/bringup
 *                    uses SMPCOUNT_OUT=<dir>/smpcount.%p and reads the SM's
 *                    pid.  Without "%p", a process whose pid differs from the
 *                    one that loaded the shim (a forked child) writes to
 *                    SMPCOUNT_OUT.<pid>.  Written at exit (library destructor)
 *                    and on demand; always via a temporary file and rename(),
 *                    so a reader never sees half a file.
 *   SMPCOUNT_SIGNAL  optional signal number (e.g. 12 for SIGUSR2): on that
 *                    signal the counts are written out.  The SM must not
 *                    install its own handler for it.
 *   SMPCOUNT_RECORD  optional file: every SMP (class 0x01 or 0x81, a whole
 *                    256-byte MAD) the loading process sends is appended
 *                    to it, in the order sent, for bench/umadfloor.c to
 *                    send the same SMPs again (--replay).  One record per
 *                    SMP: 2 bytes n (little-endian), the 2 bytes of the
 *                    destination LID as in the umad address (network
 *                    order), 1 byte SL, then the MAD's first n bytes (the
 *                    rest are zero).  Buffered (1 MiB), written at exit.
 *
 * Output format (text, one record per line):
 *   # smpcount 1
 *   pid <pid>
 *   sends <all umad_send calls>
 *   failed <calls that returned nonzero>
 *   first_ns <CLOCK_MONOTONIC of the first call, ns>   (0 if none)
 *   last_ns <CLOCK_MONOTONIC of the last call, ns>
 *   mad <class> <method> <attr_id> <calls> <failed>   (hex, hex, hex, dec, dec)
 *
 * A "call" is one umad_send(), i.e. one MAD handed to the transport,
 * including the SM's own retransmissions (which go through umad_send again).
 * Counters are lock-free atomics: OpenSM sends from several threads.  The
 * writer uses only async-signal-safe calls (no stdio, no malloc).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The writer's file calls go to the kernel directly: a preloaded device
 * (umadfix) wraps open, write and close behind a mutex, and a signal that
 * lands while the SM's own thread holds it would wait for it forever.
 */
#define raw_open(path, flags, mode) \
	((int)syscall(SYS_openat, AT_FDCWD, (path), (flags), (mode)))
#define raw_write(fd, p, n)     ((ssize_t)syscall(SYS_write, (fd), (p), (n)))
#define raw_close(fd)           ((void)syscall(SYS_close, (fd)))

/*
 * struct ib_user_mad (<infiniband/umad.h>) is a 64-byte header (agent_id,
 * status, timeout_ms, retries, length, then the 44-byte ib_mad_addr)
 * followed by the MAD itself.  It is part of the kernel's user ABI, so the
 * offset is fixed; the header is not needed to build the shim.
 */
#define UMAD_HDR_LEN 64

/* MAD common header offsets */
#define MAD_MGMT_CLASS 1
#define MAD_METHOD 3
#define MAD_ATTR_ID 16

typedef int (*umad_send_fn)(int, int, void *, int, int, int);

static umad_send_fn real_send;

#define NSLOTS 4096 /* power of two; distinct (class,method,attr) seen is small */

struct slot {
	uint64_t key; /* 0 = empty, else 1 + (class << 24 | method << 16 | attr) */
	uint64_t calls;
	uint64_t failed;
};

static struct slot slots[NSLOTS];
static uint64_t total_calls, total_failed, overflow_calls;
static uint64_t first_ns, last_ns;

static char out_path[2048];
static pid_t load_pid;

/* SMPCOUNT_RECORD: the SMPs sent, for a replay */
#define UMAD_ADDR_LID 28        /* ib_mad_addr at 20: qpn, qkey, then lid */
#define UMAD_ADDR_SL 30
#define REC_BUF (1u << 20)
static int rec_fd = -1;
static unsigned char *rec_buf;
static size_t rec_n;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct slot *slot_for(uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	unsigned i, n;

	for (n = 0, i = (unsigned)(h >> 52) & (NSLOTS - 1); n < NSLOTS;
	     n++, i = (i + 1) & (NSLOTS - 1)) {
		uint64_t cur = __atomic_load_n(&slots[i].key, __ATOMIC_ACQUIRE);

		if (cur == key)
			return &slots[i];
		if (cur == 0) {
			uint64_t expect = 0;

			if (__atomic_compare_exchange_n(&slots[i].key, &expect, key, 0,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				return &slots[i];
			if (expect == key)
				return &slots[i];
		}
	}
	return NULL;
}

/*
 * The key is taken from the MAD before it is handed on: once umad_send()
 * has returned, the caller may already have seen the reply on another thread
 * and freed or reused the buffer (OpenSM does: reading it afterwards finds a
 * zeroed MAD now and then).
 */
static uint64_t mad_key(const void *umad, int length)
{
	const uint8_t *mad = (const uint8_t *)umad + UMAD_HDR_LEN;

	if (!umad || length < MAD_ATTR_ID + 2)
		return 1 + 0xFFFFFFFFull; /* unparseable: own bucket */
	return 1 + ((uint64_t)mad[MAD_MGMT_CLASS] << 24 |
		    (uint64_t)mad[MAD_METHOD] << 16 |
		    (uint64_t)mad[MAD_ATTR_ID] << 8 | mad[MAD_ATTR_ID + 1]);
}

static void count(uint64_t key, int ret)
{
	uint64_t t = now_ns(), zero = 0;
	struct slot *s;

	__atomic_fetch_add(&total_calls, 1, __ATOMIC_RELAXED);
	if (ret)
		__atomic_fetch_add(&total_failed, 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&first_ns, &zero, t, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_store_n(&last_ns, t, __ATOMIC_RELAXED);

	s = slot_for(key);
	if (!s) {
		__atomic_fetch_add(&overflow_calls, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	if (ret)
		__atomic_fetch_add(&s->failed, 1, __ATOMIC_RELAXED);
}

static void rec_flush(void)
{
	size_t off = 0;

	while (off < rec_n) {
		ssize_t w = raw_write(rec_fd, rec_buf + off, rec_n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			raw_close(rec_fd);      /* a short record: no replay */
			rec_fd = -1;
			break;
		}
		off += (size_t)w;
	}
	rec_n = 0;
}

/* Append the SMP in umad to the record (taken before it is sent: see
 * mad_key()). */
static void record(const void *umad, int length)
{
	const uint8_t *u = umad, *mad = u + UMAD_HDR_LEN;
	unsigned n = 256;

	if (rec_fd < 0 || length != 256 ||
	    (mad[MAD_MGMT_CLASS] != 0x01 && mad[MAD_MGMT_CLASS] != 0x81))
		return;
	while (n > 24 && mad[n - 1] == 0)
		n--;
	pthread_mutex_lock(&rec_lock);
	if (rec_fd >= 0) {
		if (rec_n + 5 + n > REC_BUF)
			rec_flush();
		rec_buf[rec_n++] = (uint8_t)(n & 0xff);
		rec_buf[rec_n++] = (uint8_t)(n >> 8);
		rec_buf[rec_n++] = u[UMAD_ADDR_LID];
		rec_buf[rec_n++] = u[UMAD_ADDR_LID + 1];
		rec_buf[rec_n++] = u[UMAD_ADDR_SL];
		memcpy(rec_buf + rec_n, mad, n);
		rec_n += n;
	}
	pthread_mutex_unlock(&rec_lock);
}

/* A forked child records nothing (the record is its parent's). */
static void rec_child(void)
{
	rec_fd = -1;
	rec_n = 0;
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms,
	      int retries)
{
	uint64_t key;
	int ret;

	if (!real_send) {
		umad_send_fn f = (umad_send_fn)dlvsym(RTLD_NEXT, "umad_send",
						      "IBUMAD_1.0");
		if (!f)
			f = (umad_send_fn)dlsym(RTLD_NEXT, "umad_send");
		if (!f) {
			errno = ENOSYS;
			return -ENOSYS;
		}
		real_send = f;
	}
	key = mad_key(umad, length);
	if (rec_fd >= 0 && umad)
		record(umad, length);
	ret = real_send(fd, agentid, umad, length, timeout_ms, retries);
	count(key, ret);
	return ret;
}

/* ---- async-signal-safe writer ---- */

struct buf {
	char d[1024];
	size_t n;
	int fd;
	int err;
};

static void b_flush(struct buf *b)
{
	size_t off = 0;

	while (off < b->n && !b->err) {
		ssize_t w = raw_write(b->fd, b->d + off, b->n - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			b->err = 1;
			break;
		}
		off += (size_t)w;
	}
	b->n = 0;
}

static void b_str(struct buf *b, const char *s)
{
	while (*s) {
		if (b->n == sizeof(b->d))
			b_flush(b);
		b->d[b->n++] = *s++;
	}
}

static void b_num(struct buf *b, uint64_t v, unsigned base, unsigned width)
{
	char tmp[32];
	unsigned i = 0;

	do {
		tmp[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && i < sizeof(tmp));
	while (i < width && i < sizeof(tmp))
		tmp[i++] = '0';
	if (base == 16)
		b_str(b, "0x");
	while (i) {
		char c[2] = { tmp[--i], 0 };

		b_str(b, c);
	}
}

/*
 * out_path with every "%p" replaced by pid ("%%" gives "%"); without "%p",
 * a process other than the one that loaded the shim appends ".<pid>".
 * Returns 0 if the result does not fit.
 */
static int expand_path(char *dst, size_t size, pid_t pid)
{
	struct buf p = { .n = 0, .fd = -1 };
	const char *s;
	size_t n = 0;
	int had_pid = 0;

	b_num(&p, (uint64_t)pid, 10, 0);
	for (s = out_path; *s; s++) {
		const char *piece = s;
		size_t plen = 1;

		if (s[0] == '%' && s[1] == 'p') {
			piece = p.d;
			plen = p.n;
			had_pid = 1;
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			s++;
		}
		if (n + plen + 1 > size)
			return 0;
		memcpy(dst + n, piece, plen);
		n += plen;
	}
	if (!had_pid && pid != load_pid) {
		if (n + 1 + p.n + 1 > size)
			return 0;
		dst[n++] = '.';
		memcpy(dst + n, p.d, p.n);
		n += p.n;
	}
	dst[n] = 0;
	return 1;
}

static void dump(void)
{
	char path[2 * sizeof(out_path) + 64], final[2 * sizeof(out_path) + 32];
	struct buf b;
	pid_t pid = getpid();
	size_t len;
	unsigned i;
	int saved_errno = errno;

	if (!out_path[0])
		return;
	if (!expand_path(final, sizeof(final) - 24, pid)) {
		errno = saved_errno;
		return;
	}
	len = strlen(final);
	memcpy(path, final, len);
	{
		struct buf p = { .n = 0, .fd = -1 };

		b_str(&p, ".tmp.");
		b_num(&p, (uint64_t)pid, 10, 0);
		memcpy(path + len, p.d, p.n);
		path[len + p.n] = 0;
	}

	b.n = 0;
	b.err = 0;
	b.fd = raw_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b.fd < 0) {
		errno = saved_errno;
		return;
	}
	b_str(&b, "# smpcount 1\npid ");
	b_num(&b, (uint64_t)pid, 10, 0);
	b_str(&b, "\nsends ");
	b_num(&b, __atomic_load_n(&total_calls, __ATOMIC_RELAXED), 10, 0);
	b_str(&b, "\nfailed ");
	b_num(&b, __atomic_load_n(&total_failed, __ATOMIC_RELAXED), 10, 0);
	b_str(&b, "\noverflow ");
	b_num(&b, __atomic_load_n(&overflow_calls, __ATOMIC_RELAXED), 10, 0);
	b_str(&b, "\nfirst_ns ");
	b_num(&b, __atomic_load_n(&first_ns, __ATOMIC_RELAXED), 10, 0);
	b_str(&b, "\nlast_ns ");
	b_num(&b, __atomic_load_n(&last_ns, __ATOMIC_RELAXED), 10, 0);
	b_str(&b, "\n");
	for (i = 0; i < NSLOTS; i++) {
		uint64_t key = __atomic_load_n(&slots[i].key, __ATOMIC_ACQUIRE);

		if (!key)
			continue;
		key--;
		b_str(&b, "mad ");
		if (key > 0xFFFFFFFFull) {
			b_str(&b, "? ? ?");
		} else {
			b_num(&b, (key >> 24) & 0xFF, 16, 2);
			b_str(&b, " ");
			b_num(&b, (key >> 16) & 0xFF, 16, 2);
			b_str(&b, " ");
			b_num(&b, key & 0xFFFF, 16, 4);
		}
		b_str(&b, " ");
		b_num(&b, __atomic_load_n(&slots[i].calls, __ATOMIC_RELAXED), 10, 0);
		b_str(&b, " ");
		b_num(&b, __atomic_load_n(&slots[i].failed, __ATOMIC_RELAXED), 10, 0);
		b_str(&b, "\n");
	}
	b_str(&b, "# end\n");
	b_flush(&b);
	raw_close(b.fd);
	if (b.err)
		unlink(path);
	else
		rename(path, final);
	errno = saved_errno;
}

static void on_signal(int sig)
{
	(void)sig;
	dump();
}

__attribute__((constructor)) static void smpcount_init(void)
{
	const char *p = getenv("SMPCOUNT_OUT");
	const char *s = getenv("SMPCOUNT_SIGNAL");
	const char *r = getenv("SMPCOUNT_RECORD");

	load_pid = getpid();
	if (r && *r && (rec_buf = malloc(REC_BUF)) != NULL)
		rec_fd = raw_open(r, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (rec_fd >= 0)
		pthread_atfork(NULL, NULL, rec_child);
	if (p && strlen(p) < sizeof(out_path))
		strcpy(out_path, p);
	if (s && *s) {
		char *end;
		long sig = strtol(s, &end, 10);

		if (!*end && sig > 0 && sig < NSIG) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_signal;
			sa.sa_flags = SA_RESTART;
			sigemptyset(&sa.sa_mask);
			sigaction((int)sig, &sa, NULL);
		}
	}
}

__attribute__((destructor)) static void smpcount_fini(void)
{
	dump();
	/* the record is the loading process's only (not a forked child's) */
	if (rec_fd >= 0 && getpid() == load_pid) {
		pthread_mutex_lock(&rec_lock);
		rec_flush();
		if (rec_fd >= 0)
			raw_close(rec_fd);
		rec_fd = -1;
		pthread_mutex_unlock(&rec_lock);
	}
}
