#!/bin/bash
# A silent management agent does not withdraw a data path (issue 31 point
# 7). ft2_8: leaf3's SMA stops answering NodeInfo (ibsim drops every
# NodeInfo leaf3 would answer: `Error "leaf3" 100 0x11`; packets it
# forwards go through, so its hosts h12-h15 stay reachable), then another
# change (a cable of leaf0 goes down) makes ibsmd sweep heavy. leaf3 and
# its hosts must keep their LIDs and routes: from h0 and from h20 a
# LID-routed SMP reaches each of h12-h15 (through the LFTs as they are),
# and every other switch's LFT (ibroute) still routes their LIDs, for as
# long as the SMA is silent (checked twice, some 10 s apart, with heavy sweeps
# retried in between). Once the SMA answers again the fabric is right
# (fabcheck).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: ibsmd's silent-node handling is under test"

HOSTS="h12 h13 h14 h15"
sim_start "$FABRICS/ft2_8.net"
sm_start --sweep-interval 2
wait_subnet_up 30
fabcheck --dump-lids "$T/lids" >/dev/null || fail "fabric wrong after start"
lid_of() { awk -v n="\"$1\"[$2]" '$4 == n { print $2; exit }' "$T/lids"; }

reaches() {             # reaches FROM: every host of leaf3 answers
	local h lid
	for h in $HOSTS; do
		lid=$(lid_of "$h" 1)
		SIM_HOST=$1 DIAG_TIMEOUT=20 diag smpquery nodedesc "$lid" >/dev/null 2>&1 ||
		    { echo "$h (LID $lid) unreachable from $1"; return 1; }
	done
}

routed() {              # routed: every other switch routes their LIDs
	local sw lid h out
	for sw in leaf0 leaf1 leaf2 leaf4 leaf5 leaf6 leaf7 spine0 spine1 spine2 spine3; do
		out=$(DIAG_TIMEOUT=60 diag ibroute -n "$(lid_of "$sw" 0)" 2>/dev/null)
		for h in $HOSTS; do
			lid=$(printf '0x%04x' "$(lid_of "$h" 1)")
			printf '%s\n' "$out" | grep -q "^$lid " ||
			    { echo "$sw: no route to $h ($lid)"; return 1; }
		done
	done
}

sim_cmd 'Unlink "leaf0"[5]' >/dev/null
sleep 4
poll_until 30 fabcheck --no-shortest --down 'leaf0[5]' >"$T/fc.out" ||
    fail "fabric wrong with leaf0[5] down: $(tail -5 "$T/fc.out")"
sim_cmd 'Error "leaf3" 100 0x11' >/dev/null
log "leaf3's SMA silent"
sim_cmd 'ReLink "leaf0"[5]' >/dev/null
log "leaf0[5] back: a heavy sweep that routes the links back"
for round in 1 2; do
	sleep 8
	kill -0 "$SM_PID" 2>/dev/null || fail "ibsmd exited"
	out=$(reaches h0) || fail "round $round: $out"
	out=$(reaches h20) || fail "round $round: $out"
	out=$(routed) || fail "round $round: $out"
	log "round $round: h12-h15 reached from h0 and h20, routed by every switch"
done
sim_cmd 'Error "leaf3" 0' >/dev/null
poll_until 60 fabcheck >"$T/fc.out" ||
    fail "fabric wrong once leaf3 answers: $(tail -5 "$T/fc.out")"
log "leaf3 answers again: fabric right"
