#!/bin/bash
# Alias GUID assignments an administrator can follow and clear (issue 23
# point 9), on a simulated alias-capable adapter on h1 (tests/fixture/vdev):
#   1. h1's driver gets alias GUID G at index 3 and releases it; asking
#      again with 0 gives G back (it is kept for the port and index);
#   2. `ibsmctl guids forget` of an active entry is refused; of the
#      released one it succeeds, and asking again with 0 then gives a new
#      GUID; forgetting it twice, or an index never used, is an error;
#   3. what the log says, since the log is the feature here: each
#      assignment and release names the GUID, port and index; a request
#      for a GUID in use, repeated as a driver retries, is said once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
IBSMCTL=${IBSMCTL:-./ibsmctl}
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
idx() { printf '%s\n' "$1" | awk -v i="$2" '$1 == i { print $2 }'; }
P1=0x0000000000100004

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -g 32
sm_start
wait_subnet_up 60

# ---- 1. kept for the port and index
out=$(guidreq h1 set 0 3=0) || fail "Set: $out"
G=$(idx "$out" 3)
[ -n "$G" ] && [ "$((G))" != 0 ] || fail "no GUID at index 3: $out"
guidreq h1 delete 0 3="$G" >/dev/null || fail "Delete of $G"
out=$(guidreq h1 set 0 3=0) || fail "Set again: $out"
[ "$(idx "$out" 3)" = "$G" ] || fail "index 3 got $(idx "$out" 3) again, not its $G"
log "1. $G released and asked for again with 0: the same GUID"

# ---- 2. ibsmctl guids forget
if ctl guids forget $P1 3 >"$T/f.out" 2>&1; then
	fail "forgetting an active alias GUID succeeded: $(cat "$T/f.out")"
fi
grep -q "active" "$T/f.out" || fail "forget of an active entry: $(cat "$T/f.out")"
guidreq h1 delete 0 3="$G" >/dev/null || fail "second Delete of $G"
ctl guids forget $P1 3 >"$T/f.out" 2>&1 || fail "ibsmctl guids forget: $(cat "$T/f.out")"
grep -q "$G" "$T/f.out" || fail "ibsmctl guids forget does not name $G: $(cat "$T/f.out")"
if ctl guids forget $P1 3 >/dev/null 2>&1; then
	fail "forgetting the same entry twice succeeded"
fi
if ctl guids forget $P1 9 >/dev/null 2>&1; then
	fail "forgetting an index never used succeeded"
fi
out=$(guidreq h1 set 0 3=0) || fail "Set after forget: $out"
G2=$(idx "$out" 3)
[ -n "$G2" ] && [ "$((G2))" != 0 ] && [ "$G2" != "$G" ] ||
    fail "after forget index 3 got ${G2:-nothing}, want a new GUID (not $G)"
log "2. ibsmctl guids forget: refused while active; then index 3 gets a new GUID $G2"

# ---- 3. the log: assignments and releases named, a refusal said once
for _ in 1 2 3 4; do
	guidreq h1 set 0 4="$G2" >/dev/null     # in use at index 3
done
grep -q "alias GUID $G assigned to port $P1 (LID [0-9]*) index 3" "$SM_LOG" ||
    fail "no log line for the assignment of $G"
grep -q "alias GUID $G released by port $P1 index 3" "$SM_LOG" ||
    fail "no log line for the release of $G"
n=$(grep -c "alias GUID $G2 refused to port $P1 index 4" "$SM_LOG")
[ "$n" = 1 ] || fail "the refusal of $G2 at index 4, asked 4 times, logged $n times"
log "3. assignments and releases in the log; a refusal repeated 4 times said once"
log "PASS"
