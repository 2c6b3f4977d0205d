#!/bin/bash
# Reading configuration never blocks or stalls: without a simulator,
# `ibsmd -n` (no port needed) is given, as the configuration (-c) and as
# the partitions file (-P) in turn, a FIFO with no writer, a directory, a
# symbolic link loop, /dev/zero and a file over the size cap (1 MiB for a
# configuration, 16 MiB for partitions). Each must be refused within 5
# seconds with exit 1 and the line "FILE: REASON" on stderr; /dev/null is
# accepted as an empty file. YAML nested 100,000 brackets deep (200 KB), in
# a value and in a key, is refused in under a second.
. "$(dirname "$0")/lib.sh"
[ "$SM" = ibsmd ] || skip "ibsmd -n is ibsmd's"
[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable (build ibsmd first)"
IBSMD=$(cd "$(dirname "$IBSMD")" && pwd)/$(basename "$IBSMD")
cd "$T" || fail "cannot enter $T"

# refused OPTION FILE REASON: ibsmd -n with FILE as OPTION's file (the other
# one /dev/null) exits 1 in time and says "FILE: REASON".
refused() {
	local opt=$1 file=$2 reason=$3 rc other
	other=-P
	[ "$opt" = -P ] && other=-c
	env -u LD_PRELOAD timeout -k 1 5 "$IBSMD" -n "$opt" "$file" "$other" /dev/null \
	    >out 2>err </dev/null
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] && fail "ibsmd -n $opt $file hangs"
	[ $rc = 1 ] || fail "ibsmd -n $opt $file exited $rc, not 1: $(head -3 err)"
	grep -qxF "$file: $reason" err ||
	    fail "ibsmd -n $opt $file: no line \"$file: $reason\" in: $(head -3 err)"
}

mkfifo fifo || fail "mkfifo"
mkdir dir
ln -s loop loop
truncate -s 50M big.partitions || fail "truncate"
truncate -s 2M big.conf || fail "truncate"
for opt in -c -P; do
	refused "$opt" fifo "not a regular file (a FIFO)"
	refused "$opt" dir "not a regular file (a directory)"
	refused "$opt" loop "Too many levels of symbolic links"
	refused "$opt" /dev/zero "not a regular file (a character device)"
done
refused -P big.partitions "too large: 52428800 bytes (16777216 at most)"
refused -c big.conf "too large: 2097152 bytes (1048576 at most)"
env -u LD_PRELOAD "$IBSMD" -n -c /dev/null -P /dev/null >out 2>err </dev/null ||
    fail "ibsmd -n -c /dev/null -P /dev/null: $(cat err)"
log "FIFO, directory, symlink loop, /dev/zero and oversized files refused with their reason"

python3 -c "print('log_level: ' + '[' * 100000 + ']' * 100000)" >deep_value.conf
python3 -c "print('{' * 100000 + '}' * 100000 + ': 1')" >deep_key.conf
for f in deep_value.conf deep_key.conf; do
	t0=$(date +%s.%N)
	env -u LD_PRELOAD timeout 10 "$IBSMD" -n -c "$f" -P /dev/null >out 2>err </dev/null
	rc=$?
	t1=$(date +%s.%N)
	[ $rc = 1 ] || fail "ibsmd -n -c $f exited $rc, not 1"
	grep -q "^$f:1:[0-9]*: .*nested deeper than 64 levels" err ||
	    fail "$f: not refused for its depth: $(head -2 err)"
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 1.0) }' ||
	    fail "$f took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s to refuse"
	log "$f ($(wc -c <"$f") bytes) refused in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
done
