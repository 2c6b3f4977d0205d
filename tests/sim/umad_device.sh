#!/bin/bash
# Issue 24: the umadfix device (tests/fixture, SIM_PRELOAD) has the
# kernel's umad semantics, seen from a client's own descriptor
# (tests/fixture/umadcheck.c, as h5 on ft2_8 with ibsmd as the SA): a real
# descriptor, O_NONBLOCK, that epoll watches; the kernel's agent checks
# (RMPP only on RMPP classes, a method held by one agent); EAGAIN and
# POLLOUT-only when nothing is queued; EINVAL for a short write and for a
# TID already outstanding, EIO for another descriptor's agent; a request
# nobody answers resent `retries` times then read back with ETIMEDOUT and
# the 24-byte header; a long SA table reassembled from RMPP segments, ENOSPC
# with its length for a one-MAD buffer while it stays queued, then read
# whole. The device's own counters agree (two resends, one timeout, one
# reassembled transfer).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "the SA here is ibsmd's"
: "${UMADCHECK:=$PWD/tests/fixture/umadcheck}"
[ -x "$UMADCHECK" ] || fail "$UMADCHECK not built (make check builds it)"

sim_start "$FABRICS/ft2_8.net"
sm_start
wait_subnet_up 60
SIM_HOST=h5 UMADFIX_STATS=$T/check.stats diag "$UMADCHECK" >"$T/check.out" 2>&1
rc=$?
while read -r l; do log "umadcheck: $l"; done <"$T/check.out"
[ "$rc" = 0 ] || fail "umadcheck (status $rc): $(grep -v '^ok' "$T/check.out" | tr '\n' ' ')"
line=$(grep '^umadfix\[[0-9]*\]: umad: ' "$T/check.stats") ||
    fail "the device wrote no counters: $(cat "$T/check.stats" 2>&1)"
for want in 'req_resent 2' 'timeouts 1' 'recv_done 1' 'duplicates 1'; do
	case " $line " in
	*" $want "*) ;;
	*) fail "the device did not count $want: $line" ;;
	esac
done
log "the device counted what umadcheck saw: two resends, one timeout, one reassembled table, one duplicate TID refused"
