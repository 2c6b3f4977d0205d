#!/bin/sh
# Fuzz the MAD receive path (the MAD engine, the SMP client, the SMInfo
# responder and the SM state machine, over the in-memory transport) with
# libFuzzer, AddressSanitizer and UBSan, seeded with tests/fuzz/mad_seeds/
# (made by tests/fuzz/mad_seeds.py).
#
#   FUZZ_SECONDS=600 tests/fuzz/run_mad.sh
#
# FUZZ_SECONDS   how long to run (default 60)
# FUZZ_CC        the compiler (default clang)
# FUZZ_JOBS      parallel fuzzing processes (default 1)
#
# Exits 0 when the time ran out without a finding, 1 on a finding (the input
# that triggered it is kept and its path printed), 77 (skip) when clang or
# libFuzzer is missing: on Debian they come with the packages clang and
# libclang-rt-<version>-dev (clang 14: clang-14 libclang-rt-14-dev).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_mad.XXXXXX")
keep=0
# shellcheck disable=SC2317 # called by the trap
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

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

# The floors below sm/ and the two SM listeners, with the unit tests'
# in-memory transport instead of mad/transport.c; libibmad decodes MAD
# fields, libev runs the loop.
"$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -I"$top" \
    "$here/fuzz_mad.c" "$top"/tests/unit/fake_transport.c \
    "$top"/mad/mad.c "$top"/mad/smp.c "$top"/sm/sminfo.c \
    "$top"/sm/smstate.c "$top"/core/*.c -lev -libmad -libumad -lm \
    -o "$work/fuzz_mad"

mkdir "$work/corpus"
cp "$top"/tests/fuzz/mad_seeds/* "$work/corpus/"

# libFuzzer's own default exit code on a finding is 77, our skip code: ask
# for 1 instead.
# One process reports on stdout; with jobs, libFuzzer logs each to
# fuzz-N.log, shown at the end.
parallel=
[ "$jobs" -gt 1 ] && parallel="-jobs=$jobs -workers=$jobs"
rc=0
# shellcheck disable=SC2086
(cd "$work" && ./fuzz_mad -max_total_time="$seconds" -max_len=2056 \
    -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
    -artifact_prefix="$work/" \
    -print_final_stats=1 $parallel corpus) || rc=$?
for log in "$work"/fuzz-*.log; do
	[ -f "$log" ] && tail -n 8 "$log"
done
if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
    "$work"/oom-* >/dev/null 2>&1; then
	keep=1
	echo "fuzz: FINDING; inputs and logs kept in $work"
	ls "$work"
	exit 1
fi
echo "fuzz: no finding in ${seconds}s"
exit 0
