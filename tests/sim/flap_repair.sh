#!/bin/bash
# A link failure changes only the LFT entries whose routes crossed the
# failed link, and the fabric stays right and deadlock-free.
#
# ft3_8 (80 switches, 128 HCAs, 320 LFT blocks) under ibsmd with its
# default routing (the chain ftree,updn). Each step saves the tables and
# cabling read with infiniband-diags (fabcheck --save-routes), takes one
# more switch-to-switch cable down (ibsim Unlink) and, once ibsmd has
# routed around it, judges the fabric from the outside: fabcheck --updown
# --cdg (every route that must arrive does, no credit loop) and
# --changed-since with --cut (every entry that differs from the saved
# tables had a route crossing the cut cable). The cables: an edge's uplink
# (pod1edge2 - pod1agg3), then an aggregation switch's uplink (pod2agg1 -
# core5), each with the earlier still down. Then both come back: the
# fabric must be right again and its tables those of the fresh start
# (--changed-since the first tables, nothing cut: no entry may differ).
# Last, alone, a cable between an aggregation switch of ftree's hub pod and
# a core (pod0agg2 - core9), whose repair must not close a credit loop,
# and its return. The LFT blocks each failure wrote (Sets counted by the
# test fixture where the SMPs leave ibsmd: UMADFIX_SETS, sets_now in
# lib.sh) are logged and must be no more than the blocks whose entries
# changed plus a few (nothing rewritten whole). Skips under SM=opensm:
# the repair under test is ibsmd's (bench/flaps compares OpenSM's).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: the repair under test is ibsmd's"
require_engine ftree

sim_start "$FABRICS/ft3_8.net"
UMADFIX_SETS=$T/sets.live sm_start -c /dev/null -P /dev/null --sweep-interval 1
wait_subnet_up 120

sent() { sets_now "$T/sets.live" LinearForwardingTable; }
sent >/dev/null || fail "no live Set counts from the fixture ($T/sets.live)"
settle() { settle_on sent; }      # the SM has stopped writing

settle
fabcheck_retry --updown --no-shortest --cdg --save-routes "$T/r0.json" >"$T/fc0.out" ||
    fail "fabric wrong after the fresh start: $(cat "$T/fc0.out")"
log "fresh start: $(sent) LFT blocks"

down=()
step() {        # step N CABLE(desc[port]) SAVED
	local n=$1 cable=$2 saved=$3 before wrote args=()
	before=$(sent)
	sim_cmd "Unlink $cable" >/dev/null
	down+=("${cable//\"/}")
	for d in "${down[@]}"; do args+=(--down "$d"); done
	poll_until 60 fabcheck --updown --no-shortest --cdg "${args[@]}" >"$T/poll.out" ||
	    fail "fabric not routed around ${down[*]}: $(tail -5 "$T/poll.out")"
	settle
	fabcheck_retry --updown --no-shortest --cdg "${args[@]}" --changed-since "$saved" \
	    --cut "${cable//\"/}" --save-routes "$T/r$n.json" >"$T/fc$n.out" ||
	    fail "after ${cable//\"/} went down: $(cat "$T/fc$n.out")"
	wrote=$(( $(sent) - before ))
	changed=$(sed -n 's/^fabcheck: changed: [0-9]* entries in \([0-9]*\) blocks.*/\1/p' "$T/fc$n.out")
	log "${cable//\"/} down: $(sed -n 's/^fabcheck: changed: //p' "$T/fc$n.out"); $wrote LFT blocks written"
	[ -n "$changed" ] && [ "$changed" -gt 0 ] ||
	    fail "${cable//\"/} down: no LFT entry changed ($(cat "$T/fc$n.out"))"
	[ "$wrote" -le $(( changed + 8 )) ] ||
	    fail "${cable//\"/} down: $wrote LFT blocks written, $changed changed"
}

step 1 '"pod1edge2"[8]' "$T/r0.json"
step 2 '"pod2agg1"[6]' "$T/r1.json"

# heal CABLE...: the cables come back; the fabric must be right again and
# its tables those of the fresh start
heal() {
	local c
	for c in "$@"; do sim_cmd "ReLink $c" >/dev/null; done
	poll_until 60 fabcheck --updown --no-shortest --cdg >/dev/null ||
	    fail "fabric wrong after ${*//\"/} came back"
	settle
	fabcheck_retry --updown --no-shortest --cdg --changed-since "$T/r0.json" >"$T/fc.out" ||
	    fail "after ${*//\"/} came back (tables must be the fresh start's): $(cat "$T/fc.out")"
	grep -q '^fabcheck: changed: 0 entries' "$T/fc.out" ||
	    fail "after ${*//\"/} came back the tables differ from the fresh start's: $(cat "$T/fc.out")"
	log "${*//\"/} back, tables as on the fresh start: $(head -1 "$T/fc.out")"
}

heal '"pod1edge2"[8]' '"pod2agg1"[6]'

# A cable between an aggregation switch of the hub's pod and a core (the
# hub: the edge switch through which ftree turns between switches with no
# common ancestor): the core is cut from the hub, and its routes must turn
# where the tables never turned. Repaired in place without closing a
# credit loop, nothing but the entries that crossed the cable changes;
# then it comes back and the fresh start's tables return.
down=()
step 3 '"pod0agg2"[6]' "$T/r0.json"
heal '"pod0agg2"[6]'
