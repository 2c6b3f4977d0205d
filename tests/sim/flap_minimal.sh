#!/bin/bash
# A link failure under minhop changes exactly the LFT entries it forces to
# change, and the heal writes them back.
#
# ft3_8 under ibsmd -R minhop. The tables and cabling are saved as
# infiniband-diags read them (fabcheck --save-routes); one switch-to-switch
# cable goes down (ibsim Unlink); once ibsmd has routed around it,
# fabcheck --changed-since --cut --minimal minhop judges the tables read
# again: every entry whose port was lost or whose next switch is no longer
# one hop nearer (hop count grew) must have changed, and no other entry
# may have. Two cables, one after the other: an edge's uplink
# (pod1edge2 - pod1agg3), then an aggregation switch's uplink (pod2agg1 -
# core5), each with the earlier still down. The LFT blocks each failure
# wrote (Sets counted by the test fixture where the SMPs leave ibsmd:
# UMADFIX_SETS, sets_now in lib.sh) must be no more than the blocks of
# that minimal set. Then both cables come back: the tables must be the
# fresh start's again. Skips under SM=opensm: the repair under test is
# ibsmd's (bench/flaps compares OpenSM's).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: the repair under test is ibsmd's"
require_engine minhop

sim_start "$FABRICS/ft3_8.net"
UMADFIX_SETS=$T/sets.live sm_start -c /dev/null -P /dev/null --sweep-interval 1 -R minhop
wait_subnet_up 120

sent() { sets_now "$T/sets.live" LinearForwardingTable; }
sent >/dev/null || fail "no live Set counts from the fixture ($T/sets.live)"
settle() { settle_on sent; }      # the SM has stopped writing

settle
fabcheck_retry --save-routes "$T/r0.json" >"$T/fc0.out" ||
    fail "fabric wrong after the fresh start: $(cat "$T/fc0.out")"
log "fresh start: $(sent) LFT blocks"

down=()
step() {        # step N CABLE(desc[port]) SAVED
	local n=$1 cable=$2 saved=$3 before wrote minb args=()
	before=$(sent)
	sim_cmd "Unlink $cable" >/dev/null
	down+=("${cable//\"/}")
	for d in "${down[@]}"; do args+=(--down "$d"); done
	poll_until 60 fabcheck "${args[@]}" >"$T/poll.out" ||
	    fail "fabric not routed around ${down[*]}: $(tail -5 "$T/poll.out")"
	settle
	fabcheck_retry "${args[@]}" --changed-since "$saved" --cut "${cable//\"/}" \
	    --minimal minhop --save-routes "$T/r$n.json" >"$T/fc$n.out" ||
	    fail "after ${cable//\"/} went down: $(cat "$T/fc$n.out")"
	wrote=$(( $(sent) - before ))
	minb=$(sed -n 's/^fabcheck: minimal (minhop): [0-9]* entries in \([0-9]*\) blocks.*/\1/p' "$T/fc$n.out")
	log "${cable//\"/} down: $(sed -n 's/^fabcheck: minimal //p' "$T/fc$n.out"); $wrote LFT blocks written"
	if [ -z "$minb" ] || [ "$minb" -eq 0 ]; then
		fail "${cable//\"/} down: no minimal set ($(cat "$T/fc$n.out"))"
	fi
	[ "$wrote" -le "$minb" ] ||
	    fail "${cable//\"/} down: $wrote LFT blocks written, the minimal set is in $minb"
}

step 1 '"pod1edge2"[8]' "$T/r0.json"
step 2 '"pod2agg1"[6]' "$T/r1.json"

sim_cmd 'ReLink "pod1edge2"[8]' >/dev/null
sim_cmd 'ReLink "pod2agg1"[6]' >/dev/null
poll_until 60 fabcheck >/dev/null || fail "fabric wrong after the cables came back"
settle
fabcheck_retry --changed-since "$T/r0.json" >"$T/fc.out" ||
    fail "after the heal: $(cat "$T/fc.out")"
grep -q '^fabcheck: changed: 0 entries' "$T/fc.out" ||
    fail "after the heal the tables differ from the fresh start's: $(cat "$T/fc.out")"
log "healed, tables as on the fresh start"
