#!/bin/bash
# consolidate_ipv6_snm (ibsmd.conf): IPv6 solicited-node multicast groups
# (ff12:601b:<P_Key>::1:ffXX:XXXX) of one scope and P_Key share one MLID
# when the option is on, and get one MLID each when it is off (the
# default), on ft2_8. Two hosts create their SNM groups with the
# project's client (tests/sim/mcjoin); saquery -g (infiniband-diags) shows
# the MLIDs; with the option the shared MLID's tree (ibroute -M through
# mcastcheck.py) reaches both hosts.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd.conf option"
: "${MCJOIN:=./tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"
MCHECK=$TOP_SRCDIR/tests/sim/mcastcheck.py

mj() {
	local h=$1
	shift
	printf '%s\n' "$@" | SIM_HOST=$h LD_PRELOAD=$SIM_PRELOAD \
	    timeout 30 "$MCJOIN" 8>&- 2>/dev/null
}
ok_answer() { printf '%s\n' "$1" | grep -q 'status=0x0000' || fail "$2: $1"; }
# mlid_in_sa MGID: the MLID saquery -g shows for the group
mlid_in_sa() {
	diag saquery -g 2>/dev/null | awk -v g="$1" '
	    /MGID\.\./ { sub(/.*\.\.\./, ""); m = $0 }
	    /Mlid\.\./ { sub(/.*\.\.\./, ""); if (m == g) print $0 }'
}
S1=ff12:601b:ffff::1:ff00:1
S2=ff12:601b:ffff::1:ff00:2

# run ON|OFF: both hosts create their SNM group; prints "MLID1 MLID2"
run() {
	local a m1 m2
	a=$(mj h0 "join $S1 1 create"); ok_answer "$a" "h0 creates $S1"
	a=$(mj h5 "join $S2 1 create"); ok_answer "$a" "h5 creates $S2"
	m1=$(mlid_in_sa "$S1")
	m2=$(mlid_in_sa "$S2")
	[ -n "$m1" ] && [ -n "$m2" ] || fail "saquery -g does not list both SNM groups ($m1, $m2)"
	echo "$m1 $m2"
}

sim_start "$FABRICS/ft2_8.net"
printf 'consolidate_ipv6_snm: true\n' >"$T/on.conf"
sm_start -c "$T/on.conf"
wait_subnet_up 60
sleep 1
read -r m1 m2 <<<"$(run)"
[ "$m1" = "$m2" ] || fail "consolidate_ipv6_snm on: $S1 has MLID $m1, $S2 $m2"
poll_until 10 diag python3 "$MCHECK" --mlid "$m1" --recv h0,h5 ||
	fail "shared MLID $m1: the tree does not reach exactly h0 and h5"
log "consolidate_ipv6_snm on: both SNM groups on MLID $m1, its tree reaches both hosts"
sm_stop || fail "ibsmd did not exit cleanly (status $_STOP_STATUS)"

sm_start
wait_subnet_up 60
sleep 1
read -r m1 m2 <<<"$(run)"
[ "$m1" != "$m2" ] || fail "consolidate_ipv6_snm off: both SNM groups on MLID $m1"
log "consolidate_ipv6_snm off (default): MLIDs $m1 and $m2"
sm_stop || fail "ibsmd did not exit cleanly (status $_STOP_STATUS)"
