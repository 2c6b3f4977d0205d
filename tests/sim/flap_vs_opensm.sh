#!/bin/bash
# A link failure costs ibsmd at most the LFT blocks OpenSM writes for the
# same event, and ibsmd's tables after it are free of credit loops.
#
# ft3_8 (80 switches, 128 HCAs), each SM with its default routing (OpenSM:
# minhop; ibsmd: the chain ftree,updn), on a fresh ibsim each, with the
# same LIDs: OpenSM runs first, and ibsmd starts with OpenSM's guid2lid in
# its state dir (which LIDs share a 64-entry block decides block counts).
# Three cables, one after the other, each taken down (ibsim Unlink) and
# brought back (ReLink): an edge's uplink outside the hub's pod
# (pod3edge1 - pod3agg2), an aggregation switch's uplink (pod1agg0 -
# core3), and an edge's uplink in ftree's hub pod (pod0edge0 - pod0agg0).
# The LFT Sets each failure costs are counted by the test fixture where the
# SMPs leave the SM process (UMADFIX_SETS, sets_now in lib.sh), the same
# for both. With ibsmd, after each failure the fabric is judged from the
# outside (fabcheck --updown --no-shortest --cdg --down: every pair that
# must arrive does, no credit loop; a repair in place may detour), and
# after each return it must be right again. OpenSM's own tables are only
# counted (its minhop leaves credit loops on this fabric, which bench/flaps
# shows). Skips without opensm, and under SM=opensm (it runs both).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: this test runs both SMs itself"
command -v opensm >/dev/null || skip "opensm is not installed"
require_engine ftree

CABLES=('"pod3edge1"[7]' '"pod1agg0"[8]' '"pod0edge0"[5]')
declare -A WROTE

sent() { sets_now "$T/sets.live" LinearForwardingTable; }
settle() { settle_on sent; }

# flaps NAME: the SM running as $SM, each cable down and back; WROTE[NAME,i]
flaps() {
	local name=$1 i=0 cable before
	for cable in "${CABLES[@]}"; do
		before=$(sent)
		sim_cmd "Unlink $cable" >/dev/null
		if [ "$name" = ibsmd ]; then
			poll_until 60 fabcheck --updown --no-shortest --cdg --down "${cable//\"/}" \
			    >"$T/poll.out" ||
			    fail "ibsmd: fabric not routed around ${cable//\"/}: $(tail -5 "$T/poll.out")"
		fi
		sleep 2
		settle
		WROTE[$name,$i]=$(( $(sent) - before ))
		if [ "$name" = ibsmd ]; then
			fabcheck_retry --updown --no-shortest --cdg --down "${cable//\"/}" \
			    >"$T/fc.out" ||
			    fail "ibsmd: after ${cable//\"/} went down: $(cat "$T/fc.out")"
		fi
		sim_cmd "ReLink $cable" >/dev/null
		if [ "$name" = ibsmd ]; then
			poll_until 60 fabcheck --updown --no-shortest --cdg >/dev/null ||
			    fail "ibsmd: fabric wrong after ${cable//\"/} came back"
		fi
		sleep 2
		settle
		log "$name: ${cable//\"/} down: ${WROTE[$name,$i]} LFT blocks written"
		i=$((i + 1))
	done
}

# OpenSM first, with its cache (guid2lid) in $T/state
sim_start "$FABRICS/ft3_8.net"
SM=opensm UMADFIX_SETS=$T/sets.live sm_start --sweep-interval 2
SM=opensm wait_subnet_up 120
sleep 2
settle
SM=opensm flaps opensm
SM=opensm sm_stop
[ -s "$T/state/guid2lid" ] || fail "OpenSM left no guid2lid in $T/state"
cp "$T/state/guid2lid" "$T/opensm.guid2lid"
sim_stop

# ibsmd on a fresh fabric, with OpenSM's LIDs
rm -rf "$T/state" "$T/sets.live"
mkdir -p "$T/state"
cp "$T/opensm.guid2lid" "$T/state/guid2lid"
sim_start "$FABRICS/ft3_8.net"
UMADFIX_SETS=$T/sets.live sm_start -c /dev/null -P /dev/null --sweep-interval 2
wait_subnet_up 120
settle
# the same LIDs: every port's LID as read from the fabric is OpenSM's
fabcheck --updown --no-shortest --cdg --dump-lids "$T/lids.txt" >/dev/null ||
    fail "ibsmd: fabric wrong after the fresh start"
differ=$(python3 -c '
import sys
osm = {}
for line in open(sys.argv[1]):       # OpenSM: GUID, base and last LID, in hex
    f = line.split()
    if len(f) >= 2 and f[0].startswith("0x"):
        osm[int(f[0], 16)] = int(f[1], 0)
print(sum(1 for line in open(sys.argv[2])
          if osm.get(int(line.split()[0], 16)) != int(line.split()[1])))
' "$T/opensm.guid2lid" "$T/lids.txt")
[ "$differ" -eq 0 ] || fail "ibsmd's LIDs differ from OpenSM's on $differ ports"
log "ibsmd up with OpenSM's LIDs ($(wc -l <"$T/lids.txt") ports)"
flaps ibsmd

i=0
for cable in "${CABLES[@]}"; do
	o=${WROTE[opensm,$i]} m=${WROTE[ibsmd,$i]}
	log "${cable//\"/}: ibsmd $m, OpenSM $o LFT blocks"
	[ "$o" -gt 0 ] || fail "OpenSM wrote no LFT block for ${cable//\"/} (the count failed?)"
	[ "$m" -le "$o" ] || fail "${cable//\"/}: ibsmd wrote $m LFT blocks, OpenSM $o"
	i=$((i + 1))
done
