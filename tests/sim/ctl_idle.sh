#!/bin/bash
# Idle control connections cannot lock ibsmctl out. With ibsmd up on ring6,
# a python3 client opens 100 connections to the control socket and sends
# nothing (it used to take 32 for the daemon to refuse everyone else for 5
# s); while they stay open, `ibsmctl status` must answer "subnet up"
# within 2 s, three times in a row, and so must one more ibsmctl status
# after 64 connections that sent half a request each.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "the control socket is ibsmd's"

ctl() { timeout -k 1 2 "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
sim_start "$FABRICS/ring6.net"
sm_start -c /dev/null -P "$T/none.conf"
wait_subnet_up 60
# `ibsmctl status` says since when the subnet is up: a wall-clock time
# within the last minute, and for how long (text and JSON).
ctl status >"$T/status0" 2>&1 || fail "ibsmctl status failed"
since=$(sed -n 's/^  up_since: \([0-9T:+-]*\)$/\1/p' "$T/status0")
[ -n "$since" ] || fail "ibsmctl status does not say since when the subnet is up: $(grep -i up "$T/status0")"
ctl status --json | python3 -c '
import datetime, json, sys, time
s = json.load(sys.stdin)["sweep"]
t = datetime.datetime.strptime(s["up_since"], "%Y-%m-%dT%H:%M:%S%z").timestamp()
assert abs(t - s["up_since_epoch"]) < 1, s
assert 0 <= time.time() - t < 60, s
assert 0 <= s["up_for_seconds"] < 60, s
' || fail "ibsmctl status --json: no sane up_since/up_for_seconds"
log "status: subnet up since $since"
sock=$(ls "$T"/run/*.sock 2>/dev/null | head -1)
[ -S "$sock" ] || fail "no control socket in $T/run"

# hold N TEXT: N connections that send TEXT (maybe nothing) and stay open
# until $T/release appears; prints "open" once all are connected.
hold() {
	python3 - "$sock" "$1" "$2" "$T/release" <<'PY' &
import os, socket, sys, time
path, n, text, release = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
socks = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if text:
        s.sendall(text.encode())
    socks.append(s)
print("open", flush=True)
end = time.time() + 30
while not os.path.exists(release) and time.time() < end:
    time.sleep(0.1)
PY
}

for round in silent partial; do
	rm -f "$T/release"
	if [ $round = silent ]; then
		hold 100 "" >"$T/hold.out"
	else
		hold 64 "sta" >"$T/hold.out"
	fi
	HOLD_PID=$!
	_track "$HOLD_PID"
	poll_until 10 grep -q open "$T/hold.out" >/dev/null || fail "$round: the idle clients could not connect"
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		ctl status >"$T/status" 2>&1 || fail "$round: ibsmctl status ($i) failed with idle connections open: $(cat "$T/status")"
		grep -qi "up" "$T/status" || fail "$round: ibsmctl status does not say up: $(head -3 "$T/status")"
		t1=$(date +%s.%N)
	done
	log "$round: ibsmctl status answered in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s beside the idle connections"
	touch "$T/release"
	wait "$HOLD_PID" 2>/dev/null
done
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
