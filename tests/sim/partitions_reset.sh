#!/bin/bash
# A port with LID 0 and MasterSMLID 0 may still hold a programmed P_Key
# table: the SM must read it, not assume the table a reset leaves.
#
# ibsim (0.10 to 0.12) fills a port's P_Key table once, when it builds the
# fabric (init_ports() in ibsim/sim_net.c: 0xffff at index 0, the rest 0),
# and its console command Clear (reset_port()) sets the LID, LMC and
# MasterSMLID to 0 and the port to Down without touching the table. So on
# ft2_8: the SM programs data/partitions_disjoint.conf (h1, port GUID
# 0x100004, is a full member of blue, 0x0010), stops; h1 is cleared and
# relinked (smpquery by directed route then reads LID 0, SMLID 0, state
# Initialize, and, with ibsim as it is, 0x8010 still in the table); the SM
# starts again with Default only, and h1's table as smpquery reads it must
# then hold 0xffff at index 0 and no blue key. An SM that skipped the read
# of a LID-0 port and took its table for the reset one would leave 0x8010
# there (block 0 would look right to it).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

CONF=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
[ -r "$CONF" ] || fail "$CONF not found"
printf 'Default=0x7fff : ALL=full;\n' >"$T/default.conf"

# h1 by directed route from the SM's node (h0 on leaf0 port 1, h1 on leaf0
# port 2): its LID is 0 once cleared.
H1=0,1,2
pkeys_h1() {
	diag smpquery -D pkeys "$H1" 2>/dev/null |
	    awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) print $i }'
}
portinfo_h1() {
	diag smpquery -D portinfo "$H1" 2>/dev/null |
	    awk -F'[.:]+' '/^Lid:/ { l = $NF } /^SMLid:/ { s = $NF }
	        /^LinkState:/ { st = $NF } END { print l + 0, s + 0, st }'
}

sim_start "$FABRICS/ft2_8.net"
nodedesc() { diag smpquery -D nodedesc "$1" 2>/dev/null | sed -n 's/^Node Description:\.*//p'; }
[ "$(nodedesc 0)" = h0 ] && [ "$(nodedesc "$H1")" = h1 ] ||
    fail "the diagnostics do not attach at h0 or the directed route $H1 does not reach h1"
sm_start -P "$CONF"
wait_subnet_up 60
sm_stop
pkeys_h1 >"$T/before"
grep -qx 0x8010 "$T/before" || fail "h1 does not hold 0x8010 (blue, full) after the first SM: $(tr '\n' ' ' <"$T/before")"
log "h1 holds $(grep -cvx 0x0000 "$T/before") keys: $(grep -vx 0x0000 "$T/before" | tr '\n' ' ')"

sim_cmd 'Clear "h1"' >/dev/null
sim_cmd 'ReLink "h1"' >/dev/null
pi=$(portinfo_h1)
[ "$pi" = "0 0 Initialize" ] || fail "h1 after Clear and ReLink reads LID, SMLID, state '$pi', not '0 0 Initialize'"
pkeys_h1 >"$T/cleared"
if grep -qx 0x8010 "$T/cleared"; then
	log "h1 cleared: LID 0, SMLID 0, Initialize, and its P_Key table still holds 0x8010 (ibsim keeps it)"
else
	log "h1 cleared: LID 0, SMLID 0, Initialize, table reset by this ibsim ($(grep -vx 0x0000 "$T/cleared" | tr '\n' ' '))"
fi

sm_start -P "$T/default.conf"
wait_subnet_up 60
pkeys_h1 >"$T/after"
[ "$(head -1 "$T/after")" = 0xffff ] || fail "h1's index 0 is $(head -1 "$T/after"), not 0xffff"
bad=$(grep -vx -e 0xffff -e 0x0000 "$T/after" | tr '\n' ' ')
[ -z "$bad" ] || fail "h1 (LID 0 when the SM found it) still holds keys of a partition the file no longer has: $bad"
[ "$(grep -c . "$T/after")" = 64 ] || fail "h1's table reads $(grep -c . "$T/after") entries, not 64"
log "h1's table is Default alone after the SM with Default only"
