#!/bin/bash
# Every configuration error at start exits 2, which ibsmd@.service does not
# restart (RestartPreventExitStatus=2 3): a bad file never becomes a
# restart loop. On a simulated port (so that ibsmd gets as far as each
# file), each of these stops ibsmd before it sends one SMP Set, exit 2,
# with the reason on stderr:
#   - a partitions file with a mistake (file:line:col), and one that
#     cannot be read (a FIFO);
#   - an ibsmd.conf with a mistake, a -c file that does not exist, an
#     opensm.conf given as -c;
#   - a log file that cannot be opened.
# ibsmd -n still says 1 for an invalid file; the unit says why 2 is not
# restarted.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "exit codes are ibsmd's"
sim_start "$FABRICS/dual.net"
mkdir -p "$T/state" "$T/run"

# start_rc ARGS...: ibsmd's exit status at start with ARGS (stderr in $T/err)
start_rc() {
	LD_PRELOAD=$SIM_PRELOAD timeout 30 "$IBSMD" --state-dir "$T/state" \
	    --runtime-dir "$T/run" "$@" >/dev/null 2>"$T/err" 8>&-
}
want2() {
	local what=$1 rc
	shift
	start_rc "$@"
	rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, not 2: $(head -3 "$T/err")"
	grep -v '^ibwarn' "$T/err" >"$T/err.own"
	[ -s "$T/err.own" ] || fail "$what: exit 2 without a word"
	log "$what: exit 2 ($(head -1 "$T/err.own"))"
}

printf 'Default=0x7fff : ALL=full;\nbad=0x0000 : ALL;\n' >"$T/bad.partitions"
mkfifo "$T/fifo.partitions"
printf 'sm_priority: 16\n' >"$T/bad.conf"
printf 'sm_priority 5\nsweep_interval 3\n' >"$T/opensm.conf"

want2 "partitions with a mistake" -c /dev/null -P "$T/bad.partitions"
grep -q "^$T/bad.partitions:2:5: " "$T/err" || fail "no file:line:col: $(cat "$T/err")"
want2 "partitions a FIFO" -c /dev/null -P "$T/fifo.partitions"
want2 "ibsmd.conf with a mistake" -c "$T/bad.conf" -P /dev/null
want2 "-c file missing" -c "$T/nowhere.conf" -P /dev/null
want2 "an opensm.conf as -c" -c "$T/opensm.conf" -P /dev/null
want2 "log file that cannot be opened" -c /dev/null -P /dev/null -f "$T/no/such/dir/log"
[ ! -e "$T/state/stats" ] || fail "an ibsmd that refused its files started sweeping"

env -u LD_PRELOAD "$IBSMD" -n -c /dev/null -P "$T/bad.partitions" >/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] || fail "ibsmd -n on a bad partitions file: exit $rc, not 1"

unit=$TOP_SRCDIR/contrib/systemd/ibsmd@.service
grep -qx 'RestartPreventExitStatus=2 3' "$unit" || fail "the unit restarts on 2"
grep -q '^# 2: a mistake in the command line, ibsmd.conf, the partitions file' "$unit" ||
    fail "the unit's comment does not say what 2 is"
log "-n: 1; the unit does not restart on 2 and says why"
