#!/bin/bash
# Issue 24: under the simulation preload ibsmd takes the path a host takes.
# The umadfix device (tests/fixture, SIM_PRELOAD) stands where the kernel's
# umad module does, and hands out descriptors epoll can watch, so:
#   - the running daemon is one thread: /proc/<pid>/task has one entry,
#     counted again and again while it sweeps (every second), serves the
#     SA (saquery's RMPP GetTable) and answers ibsmctl;
#   - it reads the umad descriptor from its event loop: the device saw the
#     descriptor added to an epoll set and read with read() (the ev_io
#     callback of mad/transport.c), never waited on with poll() (what a
#     receiver thread blocked in umad_recv does).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

threads() { ls "/proc/$SM_PID/task" 2>/dev/null | wc -l; }

sim_start "$FABRICS/ft2_8.net"
UMADFIX_STATS=$T/sm.stats sm_start --sweep-interval 1
wait_subnet_up 60
max=0
for i in 1 2 3 4 5 6; do
	n=$(threads)
	[ "$n" -gt "$max" ] && max=$n
	case $i in
	2) nr=$(diag saquery 2>/dev/null | grep -c 'NodeRecord dump') ;;
	4) "$IBSMCTL" --runtime-dir "$T/run" sweep --heavy >/dev/null ||
	    fail "ibsmctl sweep --heavy failed" ;;
	esac
	sleep 0.5
done
n=$(threads)
[ "$n" -gt "$max" ] && max=$n
log "ibsmd (pid $SM_PID): at most $max thread(s) while it ran; saquery read $nr NodeRecords"
[ "$max" = 1 ] || fail "ibsmd ran $max threads (/proc/$SM_PID/task): want 1"
[ "$nr" -ge 44 ] || fail "saquery read $nr NodeRecords from ibsmd's SA, want 44"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"

line=$(grep "^umadfix\[[0-9]*\]: path: " "$T/sm.stats") ||
    fail "the device wrote no path counters: $(cat "$T/sm.stats" 2>&1)"
field() { printf '%s\n' "$line" | awk -v k="$1" '{ for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }'; }
log "device: $line"
[ "$(field epoll_watched)" -ge 1 ] || fail "ibsmd never put its umad descriptor in an epoll set: $line"
[ "$(field polls)" = 0 ] || fail "ibsmd waited in poll() on its umad descriptor (a receiver thread's umad_recv): $line"
[ "$(field reads)" -gt 100 ] || fail "ibsmd hardly read its umad descriptor: $line"
grep -q 'receiver thread' "$SM_LOG" && fail "ibsmd's log mentions a receiver thread"
grep -q 'umad fd [0-9]* watched by the loop' "$SM_LOG" ||
    fail "ibsmd's log does not say its umad fd is watched by the loop"
log "one thread, the umad fd watched by the event loop and read there"
