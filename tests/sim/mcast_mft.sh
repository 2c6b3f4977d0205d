#!/bin/bash
# Multicast forwarding tables on ft2_8, read back from the switches
# (ibroute -M, ibnetdiscover -p: tests/sim/mcastcheck.py) after joins and
# leaves sent by the project's own client (tests/sim/mcjoin, mc-sa):
#   - the default partition's IPv4 broadcast group joined by h0 (full),
#     h5 (non member) and h9 (send-only): one loop-free tree reaching
#     exactly h0 and h5, h9's switch in it without h9's port;
#   - a group created by h3 with JoinState 0x9, joined by h20: left with
#     h3 0x1, h3 0x8, h20 0x1: no entry left for its MLID, saquery -g
#     does not list it, and the next create gets the same MLID;
#   - a switch-to-switch link the broadcast tree uses (read from ibroute
#     -M) is unlinked: the rebuilt tree does not use it and still reaches
#     exactly the receiving members; it is linked again;
#   - saquery MFTR (MulticastForwardingTableRecord) lists the same entries
#     as ibroute -M on every switch, with the tree built and after the
#     link failure.
# ibsim stores MFTs but forwards by LFT only: tables are read, not used.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "checks ibsmd's trees"
: "${MCJOIN:=./tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable"
MCHECK=$TOP_SRCDIR/tests/sim/mcastcheck.py

# mj HOST LINE...: the lines to mcjoin on HOST; prints its answers
mj() {
	local h=$1
	shift
	printf '%s\n' "$@" | SIM_HOST=$h LD_PRELOAD=$SIM_PRELOAD \
	    timeout 30 "$MCJOIN" 8>&- 2>/dev/null
}
mcheck() { diag python3 "$MCHECK" "$@"; }
# mlid_of ANSWER: the mlid= of an mcjoin answer
mlid_of() { printf '%s\n' "$1" | sed -n 's/.*mlid=\(0x[0-9a-fA-F]*\).*/\1/p' | head -1; }
ok_answer() { printf '%s\n' "$1" | grep -q 'status=0x0000' || fail "$2: $1"; }

BC=ff12:401b:ffff::ffff:ffff

sim_start "$FABRICS/ft2_8.net"
sm_start
wait_subnet_up 60
sleep 1

a=$(mj h0 "join $BC 1"); ok_answer "$a" "h0 full join"
mlid=$(mlid_of "$a")
[ -n "$mlid" ] || fail "no MLID in the answer: $a"
a=$(mj h5 "join $BC 2"); ok_answer "$a" "h5 non member join"
a=$(mj h9 "join $BC 4"); ok_answer "$a" "h9 send-only join"
poll_until 10 mcheck --mlid "$mlid" --recv h0,h5 --send h9 ||
	fail "broadcast group $mlid: tree wrong"
log "broadcast group $mlid: tree reaches h0, h5; h9 sends"
# MulticastFDBTop: written on switches whose port 0 advertises
# IsMulticastFDBTopSupported (CapabilityMask bit 30). ibsim's switches
# advertise no capability bit (and its SwitchInfo Set keeps only
# LinearFDBTop), so on ibsim this checks that no switch advertises it and
# that ibsmd wrote none; a simulator that did would be checked for a top
# covering the MLID.
ntop=0
for lid in $(diag ibnetdiscover -p 2>/dev/null | awk '$1 == "SW" { print $2 }' | sort -un); do
	pi=$(diag smpquery portinfo "$lid" 0 2>/dev/null)
	if printf '%s\n' "$pi" | grep -q IsMulticastFDBTopSupported; then
		ntop=$((ntop + 1))
		top=$(diag smpquery switchinfo "$lid" 2>/dev/null | sed -n 's/^MulticastFDBTop:\.*//p')
		[ -n "$top" ] && [ $((top)) -ge $((mlid)) ] ||
			fail "switch LID $lid advertises MulticastFDBTop, holds ${top:-nothing} below $mlid"
	fi
done
if [ "$ntop" = 0 ]; then
	[ "$(stat_get mcast.top_sets 0)" = 0 ] ||
		fail "MulticastFDBTop written on switches that do not advertise it"
	log "no switch advertises IsMulticastFDBTopSupported (ibsim): no MulticastFDBTop written"
else
	log "MulticastFDBTop covers $mlid on the $ntop switches that support it"
fi
# MulticastForwardingTableRecord: the SA's records are the tables
out=$(mcheck --mftr) || fail "saquery MFTR and ibroute -M differ: $out"
log "saquery MFTR agrees with ibroute -M: $out"

# ---- the PR #43 case: join 9, leave 1, leave 8 leaves nothing
G=ff12:4343::1
a=$(mj h3 "join $G 9 create"); ok_answer "$a" "h3 creates $G"
gm=$(mlid_of "$a")
a=$(mj h20 "join $G 1"); ok_answer "$a" "h20 joins $G"
poll_until 10 mcheck --mlid "$gm" --recv h3,h20 ||
	fail "group $G ($gm): tree wrong"
mj h3 "leave $G 1" >/dev/null
poll_until 10 mcheck --mlid "$gm" --recv h20 --send h3 ||
	fail "group $G ($gm): h3 send-only full after leaving 0x1: tree wrong"
mj h3 "leave $G 8" >/dev/null
mj h20 "leave $G 1" >/dev/null
poll_until 10 mcheck --mlid "$gm" --absent ||
	fail "group $G ($gm): entries left after every member left"
diag saquery -g 2>/dev/null | grep -qi "ff12:4343::1" &&
	fail "saquery -g still lists $G after every member left"
a=$(mj h3 "join ff12:4444::1 1 create"); ok_answer "$a" "h3 creates another"
[ "$(mlid_of "$a")" = "$gm" ] || fail "MLID $gm not reused: $a"
mj h3 "leave ff12:4444::1 1" >/dev/null
poll_until 10 mcheck --mlid "$gm" --absent || fail "MLID $gm: entries left"
log "join 9 / leave 1 / leave 8: nothing left, MLID $gm reused"

# ---- a link of the tree fails: the tree (read from ibroute -M) uses a
# switch-to-switch link; it is unlinked; the rebuilt tree must not use it
# and still reach exactly the members; then it is linked again
a=$(mj h16 "join $BC 1"); ok_answer "$a" "h16 full join"
poll_until 10 mcheck --mlid "$mlid" --recv h0,h5,h16 --send h9 ||
	fail "broadcast tree wrong before the link failure"
mcheck --mlid "$mlid" --recv h0,h5,h16 --send h9 --links >"$T/links" ||
	fail "broadcast tree wrong before the link failure: $(cat "$T/links")"
read -r end1 end2 <"$T/links"
[ -n "$end1" ] && [ -n "$end2" ] ||
	fail "the broadcast tree uses no switch-to-switch link: $(cat "$T/links")"
log "the broadcast tree uses $(wc -l <"$T/links") links; failing $end1 - $end2"
sim_cmd "Unlink $end1" >/dev/null
# end1/end2 as mcastcheck's --avoid wants them: desc[port], no quotes
av1=$(printf '%s' "$end1" | tr -d '"')
av2=$(printf '%s' "$end2" | tr -d '"')
poll_until 30 mcheck --mlid "$mlid" --recv h0,h5,h16 --send h9 --avoid "$av1" --avoid "$av2" ||
	fail "broadcast tree after $end1 - $end2 went: $(mcheck --mlid "$mlid" --recv h0,h5,h16 --send h9 --avoid "$av1" --avoid "$av2" 2>&1)"
log "link $end1 - $end2 down: the rebuilt tree does not use it and still reaches exactly the members"
out=$(mcheck --mftr) || fail "after the link failure, saquery MFTR and ibroute -M differ: $out"
log "after the link failure saquery MFTR agrees with ibroute -M: $out"
sim_cmd "ReLink $end1" >/dev/null
poll_until 30 mcheck --mlid "$mlid" --recv h0,h5,h16 --send h9 ||
	fail "broadcast tree wrong after $end1 - $end2 came back"
out=$(mcheck --mftr) || fail "after the ReLink, saquery MFTR and ibroute -M differ: $out"
log "$end1 - $end2 linked again: the tree still reaches exactly the members"
