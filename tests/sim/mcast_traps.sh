#!/bin/bash
# Traps 66 (multicast group created) and 67 (deleted) reach InformInfo
# subscribers as Reports, on ft2_8:
#  - a subscriber (tests/sim/sasub on h1, issm so that ibsim hands it the
#    Reports) subscribes to traps 66 and 67;
#  - h3 creates a group with an MCMemberRecord Set (tests/sim/mcjoin,
#    JoinState full, "create"): the subscriber gets a Report of trap 66
#    with the group's MGID in the details;
#  - h20 joins and leaves it: no trap (the group stays);
#  - h3's leave is the last full member's: a Report of trap 67 for the
#    MGID, after the 66;
#  - a subscriber of trap 64 only gets neither.
# The Reports are read by the client, not from ibsmd's log.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
: "${MCJOIN:=./tests/sim/mcjoin}"
: "${SASUB:=$(dirname "$IBSMD")/tests/sim/sasub}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"
[ -x "$SASUB" ] || fail "SASUB=$SASUB is not an executable (make builds it)"

mj() {
	local h=$1
	shift
	printf '%s\n' "$@" | SIM_HOST=$h LD_PRELOAD=$SIM_PRELOAD \
	    timeout 30 "$MCJOIN" 8>&- 2>/dev/null
}
ok_answer() { printf '%s\n' "$1" | grep -q 'status=0x0000' || fail "$2: $1"; }

G=ff12:6666::66
sim_start "$FABRICS/ft2_8.net"
sm_start
wait_subnet_up 60
sleep 1

SIM_HOST=h1 SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD \
	"$SASUB" -t 120 subscribe 66,67 >"$T/sub.out" 2>"$T/sub.err" 8>&- &
SUB=$!
_track "$SUB"
SIM_HOST=h2 SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD \
	"$SASUB" -t 120 subscribe 64 >"$T/sub64.out" 2>"$T/sub64.err" 8>&- &
SUB64=$!
_track "$SUB64"
poll_until 30 grep -q 'subscribed trap 67 status 0x0000' "$T/sub.out" ||
	fail "subscription to 66/67 not accepted: $(cat "$T/sub.out" "$T/sub.err")"
grep -q 'subscribed trap 66 status 0x0000' "$T/sub.out" ||
	fail "subscription to 66 refused: $(cat "$T/sub.out")"
poll_until 30 grep -q 'subscribed trap 64 status 0x0000' "$T/sub64.out" ||
	fail "subscription to 64 not accepted: $(cat "$T/sub64.out" "$T/sub64.err")"

a=$(mj h3 "join $G 1 create"); ok_answer "$a" "h3 creates $G"
poll_until 15 grep -q "report trap 66 gid $G " "$T/sub.out" ||
	fail "no Report of trap 66 for $G: $(cat "$T/sub.out")"
log "group $G created by a join: Report of trap 66"

a=$(mj h20 "join $G 1"); ok_answer "$a" "h20 joins $G"
a=$(mj h20 "leave $G 1"); ok_answer "$a" "h20 leaves $G"
sleep 1
grep -q "report trap 67 gid $G " "$T/sub.out" &&
	fail "trap 67 reported while h3 is still a full member"
a=$(mj h3 "leave $G 1"); ok_answer "$a" "h3 leaves $G"
poll_until 15 grep -q "report trap 67 gid $G " "$T/sub.out" ||
	fail "no Report of trap 67 for $G after the last leave: $(cat "$T/sub.out")"
l66=$(grep -n "report trap 66 gid $G " "$T/sub.out" | head -1 | cut -d: -f1)
l67=$(grep -n "report trap 67 gid $G " "$T/sub.out" | head -1 | cut -d: -f1)
[ "$l66" -lt "$l67" ] || fail "trap 67 reported before trap 66"
[ "$(grep -c "report trap 66 gid $G " "$T/sub.out")" = 1 ] ||
	fail "trap 66 reported more than once: $(cat "$T/sub.out")"
log "last full member left: Report of trap 67 (after the 66)"
grep -q "report trap 6[67]" "$T/sub64.out" &&
	fail "a subscriber of trap 64 only got a Report of 66/67: $(cat "$T/sub64.out")"
_stop_pid "$SUB" 3
_stop_pid "$SUB64" 3
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
