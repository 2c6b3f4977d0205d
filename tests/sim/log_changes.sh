#!/bin/bash
# The log says what changed (issue 13 point 7), naming nodes by GUID and
# description and ports by number. These are log requirements, so this test
# reads ibsmd's log; the fabric facts are still checked with the diags.
#
# ft2_8 under ibsmd with a partition policy:
#  - the programming summary counts P_Key blocks (and LFT, PortInfo,
#    SwitchInfo);
#  - no doubled prefix ("partitions: partitions:");
#  - leaf3-spine1 goes down (ibsim Unlink): fabcheck --down sees the fabric
#    routed around it; the log names the lost link with both ends (GUID,
#    description, port) and the trap's issuer by GUID and description;
#  - it comes back: the log names the new link.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: ibsmd's log lines"

pkeys=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
sim_start "$FABRICS/ft2_8.net"
sm_start -c /dev/null -P "$pkeys" -R ftree --sweep-interval 1
wait_subnet_up 60
fabcheck --updown || fail "fabric wrong after the start"
grep -Eq 'programmed: .* [1-9][0-9]* P_Key blocks written' "$SM_LOG" ||
    fail "the programming summary does not count the P_Key blocks written"

# h0 - leaf0 (port 5) - spine0 (port 4) - leaf3; leaf0 (port 6) - spine1
guid_at() {
	diag smpquery -D nodedesc "$1" 2>/dev/null | grep -q "$2" ||
	    fail "no $2 at directed route $1"
	diag smpquery -D nodeinfo "$1" 2>/dev/null | sed -n 's/^Guid:\.*//p'
}
leaf3=$(guid_at 0,1,5,4 leaf3)
spine1=$(guid_at 0,1,6 spine1)
log "leaf3 $leaf3, spine1 $spine1 (as smpquery reads them)"

sim_cmd 'Unlink "leaf3"[6]' >/dev/null
# (repaired in place, routes may detour through another leaf and spine:
# not shortest, but every pair reached and no credit loop)
poll_until 30 fabcheck --updown --no-shortest --cdg --down 'leaf3[6]' >/dev/null ||
    fail "fabric not routed around leaf3[6]"
link_re='(switch 0x0*%s "%s" port %s -- switch 0x0*%s "%s" port %s)'
re=$(printf "$link_re|$link_re" "${leaf3#0x}" leaf3 6 "${spine1#0x}" spine1 4 \
    "${spine1#0x}" spine1 4 "${leaf3#0x}" leaf3 6)
poll_until 10 grep -Eq "sweep: lost link: ($re)" "$SM_LOG" >/dev/null ||
    fail "no log line names the lost link leaf3[6] -- spine1[4]: $(grep 'lost' "$SM_LOG" | tail -3)"
grep -Eq "trap 128 from switch 0x0*(${leaf3#0x}|${spine1#0x}) \"(leaf3|spine1)\"" "$SM_LOG" ||
    fail "no trap line names its issuer: $(grep trap "$SM_LOG" | tail -3)"

sim_cmd 'ReLink "leaf3"[6]' >/dev/null
poll_until 30 fabcheck --updown >/dev/null || fail "fabric wrong after the link came back"
poll_until 10 grep -Eq "sweep: new link: ($re)" "$SM_LOG" >/dev/null ||
    fail "no log line names the new link leaf3[6] -- spine1[4]"
if grep -q 'partitions: partitions:' "$SM_LOG"; then
	fail "doubled prefix: $(grep -m1 'partitions: partitions:' "$SM_LOG")"
fi
log "lost and new link, trap issuer and P_Key blocks named in the log"
