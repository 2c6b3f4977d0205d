#!/bin/bash
# Rapid flapping costs no more than OpenSM (issue 31 point 9): one cable
# flapped STORM_FLAPS times (100) in about 9 s, on a fresh ibsim each for
# OpenSM (its defaults, minhop) and ibsmd (its defaults, ftree), same LIDs
# (ibsmd starts with OpenSM's guid2lid), both sweeping every 2 s. The LFT
# blocks each writes from the first Unlink until it settles are counted
# where the SMPs leave the process (the fixture's UMADFIX_SETS): ibsmd's
# must be no more than OpenSM's; ibsmd's fabric must be right after
# (fabcheck --updown --cdg). A link back within seconds of going down is
# held out of routing until it stays up (sm/holddown.h): the writes track
# the final state, not every bounce.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: this test runs both SMs itself"
command -v opensm >/dev/null || skip "opensm is not installed"

: "${STORM_FLAPS:=100}"
NET=$FABRICS/ft3_8.net
CABLE='"pod1agg0"[8]'

sent() { sets_now "$T/sets.live" LinearForwardingTable; }

# the console commands go out without waiting for ibsim's prompts (a
# prompt round trip each would stretch the storm); ibsim has taken them
# all when as many prompts came back
storm() {
	local i before
	before=$(_prompts)
	for i in $(seq 1 "$STORM_FLAPS"); do
		printf 'Unlink %s\nReLink %s\n' "$CABLE" "$CABLE" >>"$T/sim_cmds.log"
		printf 'Unlink %s\n' "$CABLE" >&8
		sleep 0.04
		printf 'ReLink %s\n' "$CABLE" >&8
		sleep 0.04
	done
	i=0
	until [ "$(_prompts)" -ge $((before + 2 * STORM_FLAPS)) ]; do
		[ $i -lt 300 ] || fail "ibsim did not take the storm's commands"
		sleep 0.1
		i=$((i + 1))
	done
}

# run NAME: the SM ($SM) up, the storm, settled; prints the blocks written
run() {
	local before t0 t1
	sleep 2
	settle_on sent
	before=$(sent)
	t0=$(date +%s.%N)
	storm
	t1=$(date +%s.%N)
	sleep 3
	settle_on sent
	log "$1: $STORM_FLAPS flaps in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s: $(( $(sent) - before )) LFT blocks written"
	WROTE=$(( $(sent) - before ))
}

sim_start "$NET"
SM=opensm UMADFIX_SETS=$T/sets.live sm_start --sweep-interval 2
SM=opensm wait_subnet_up 120
SM=opensm run opensm
osm=$WROTE
SM=opensm sm_stop
[ -s "$T/state/guid2lid" ] || fail "OpenSM left no guid2lid in $T/state"
cp "$T/state/guid2lid" "$T/opensm.guid2lid"
sim_stop

rm -rf "$T/state" "$T/sets.live"
mkdir -p "$T/state"
cp "$T/opensm.guid2lid" "$T/state/guid2lid"
sim_start "$NET"
UMADFIX_SETS=$T/sets.live sm_start --sweep-interval 2
wait_subnet_up 120
run ibsmd
ism=$WROTE
poll_until 30 fabcheck_retry --updown --cdg >"$T/fc.out" ||
    fail "ibsmd: fabric wrong after the storm: $(tail -5 "$T/fc.out")"
log "ibsmd $ism LFT blocks, OpenSM $osm"
[ "$ism" -le "$osm" ] ||
    fail "$STORM_FLAPS flaps cost ibsmd $ism LFT blocks, OpenSM $osm"
