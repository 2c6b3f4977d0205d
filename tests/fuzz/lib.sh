# Shared by the fuzz scripts (run.sh, run_mad.sh, run_config.sh): each
# sources this, then calls fuzz_setup NAME, builds with fuzz_build, puts its
# seeds in "$work/corpus" and ends with fuzz_run NAME MAX_LEN [DICT].
#
# FUZZ_SECONDS   how long to run (default 10: make check keeps the CI
#                under its 20 minutes; longer runs by hand)
# FUZZ_CC        the compiler (default clang)
# FUZZ_JOBS      parallel fuzzing processes (default 1)
#
# A script exits 0 when the time ran out without a finding, 1 on a finding
# (the input that triggered it is kept and its path printed), 77 (skip)
# when clang or libFuzzer is missing: on Debian they come with the packages
# clang and libclang-rt-<version>-dev (clang 14: clang-14 libclang-rt-14-dev).

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-10}
jobs=${FUZZ_JOBS:-1}
keep=0
work=

# shellcheck disable=SC2317 # called by the trap
fuzz_cleanup() { [ "$keep" = 1 ] || [ -z "$work" ] || rm -rf "$work"; }

# fuzz_setup NAME: a work directory (removed at exit unless a finding keeps
# it) with an empty corpus/, or exit 77 when libFuzzer cannot be used.
fuzz_setup() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_$1.XXXXXX")
	trap fuzz_cleanup EXIT
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "fuzz: $cc not found (Debian: apt-get install clang libclang-rt-14-dev); skipped"
		exit 77
	fi
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" \
	    -o "$work/probe" >/dev/null 2>&1; then
		echo "fuzz: $cc cannot link libFuzzer with ASan/UBSan (Debian: apt-get install libclang-rt-14-dev, or the libclang-rt-<version>-dev of your clang); skipped"
		exit 77
	fi
	mkdir "$work/corpus"
}

# fuzz_build NAME SOURCES-AND-LIBS...: $work/NAME, with ASan and UBSan.
fuzz_build() {
	local name=$1
	shift
	"$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer -I"$top" \
	    "$@" -o "$work/$name"
}

# fuzz_run NAME MAX_LEN [DICT]: run $work/NAME on $work/corpus for
# FUZZ_SECONDS and exit as the header says.
fuzz_run() {
	local name=$1 maxlen=$2 dict= parallel= rc=0 log
	[ -n "${3:-}" ] && dict="-dict=$3"
	# One process reports on stdout; with jobs, libFuzzer logs each to
	# fuzz-N.log, shown at the end.
	[ "$jobs" -gt 1 ] && parallel="-jobs=$jobs -workers=$jobs"
	# libFuzzer's own default exit code on a finding is 77, our skip
	# code: ask for 1 instead.
	# shellcheck disable=SC2086
	(cd "$work" && "./$name" -max_total_time="$seconds" -max_len="$maxlen" \
	    -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
	    $dict -artifact_prefix="$work/" -print_final_stats=1 $parallel \
	    corpus) || rc=$?
	for log in "$work"/fuzz-*.log; do
		[ -f "$log" ] && tail -n 8 "$log"
	done
	if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* \
	    "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
		keep=1
		echo "fuzz: FINDING; inputs and logs kept in $work"
		ls "$work"
		exit 1
	fi
	echo "fuzz: no finding in ${seconds}s"
	exit 0
}
