#!/bin/bash
# A link flap costs few LFT blocks, and when the link is back the routes are
# as balanced as on a fresh start; ibsmctl reroute routes afresh.
#
# ft2_8 (8 leaves, 4 spines, 32 HCAs) under ibsmd with ftree. Loads are
# read from the fabric (fabcheck --loads over dump_fts): max_link_load, the
# all-to-all CA routes on the busiest switch-to-switch cable, and
# max_port_lids, the CA LIDs on the busiest switch port.
#  1. fresh start: the loads of the fresh tables;
#  2. leaf3-spine1 goes down (ibsim Unlink): the fabric routes around it
#     (fabcheck --down; the repair in place may detour spine1's routes to
#     leaf3 through another leaf and spine, so not shortest, but free of
#     credit loops: --no-shortest --cdg), writing fewer LFT blocks than a
#     full programming;
#  3. it comes back (ReLink): the loads must return to the fresh start's
#     (before the rebalancing, the routes kept around the fault left the
#     busiest cable with 56 routes instead of 28) and the heal must write
#     fewer blocks than a full programming, and no more than the failure;
#  4. ibsmctl reroute: a heavy sweep routes afresh (stats
#     routing_rebalances grows), the fabric stays right and as balanced.
# Block counts are the LFT Sets the test fixture counts where the SMPs
# leave ibsmd (UMADFIX_SETS, sets_now in lib.sh). Skips under SM=opensm
# (no ibsmctl).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: no ibsmctl"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable"
require_engine ftree

A='"leaf3"[6]'
sim_start "$FABRICS/ft2_8.net"
UMADFIX_SETS=$T/sets.live sm_start -c /dev/null -P /dev/null -R ftree --sweep-interval 1
wait_subnet_up 60

sent() { sets_now "$T/sets.live" LinearForwardingTable; }
sent >/dev/null || fail "no live Set counts from the fixture ($T/sets.live)"
loads() {       # loads [fabcheck args]: "max_link_load max_port_lids", fabric right
	fabcheck --updown --loads --json "$@" >"$T/fc.json" || return 1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["loads"]; print(l["max_link_load"], l["max_port_lids"])' "$T/fc.json"
}
settle() { settle_on sent; }      # the SM has stopped writing

settle
full=$(sent)
fresh=$(loads) || fail "fabric wrong after the fresh start: $(cat "$T/fc.json")"
log "fresh start: $full LFT blocks; loads (max link, max port LIDs): $fresh"

sim_cmd "Unlink $A" >/dev/null
poll_until 30 loads --down leaf3[6] --no-shortest --cdg >/dev/null ||
    fail "fabric not routed around $A: $(grep -m3 -E 'LID|cycle' "$T/fc.json")"
settle
degraded=$(loads --down leaf3[6] --no-shortest --cdg) || fail "fabric wrong with $A down"
down=$(( $(sent) - full ))
log "$A down: $down LFT blocks; loads $degraded"
[ "$down" -gt 0 ] && [ "$down" -lt "$full" ] ||
    fail "the failure wrote $down LFT blocks (full programming: $full)"

before=$(sent)
sim_cmd "ReLink $A" >/dev/null
poll_until 30 loads >/dev/null || fail "fabric wrong after $A came back"
settle
healed=$(loads) || fail "fabric wrong after the heal"
up=$(( $(sent) - before ))
log "$A back: $up LFT blocks; loads $healed (fresh start: $fresh)"
[ "$healed" = "$fresh" ] || fail "after the heal the loads are $healed, a fresh start's are $fresh"
[ "$up" -lt "$full" ] || fail "the heal wrote $up LFT blocks, a full programming $full"
[ "$up" -le "$down" ] || fail "the heal wrote $up LFT blocks, more than the failure ($down)"

n0=$(stat_get sweep.rebalances 0)
before=$(sent)
"$IBSMCTL" --runtime-dir "$T/run" reroute 8>&- || fail "ibsmctl reroute failed"
poll_until 20 sh -c "[ \"\$(awk '\$1 == \"sweep.rebalances\" { print \$2 }' '$T/state/stats')\" -gt $n0 ]" >/dev/null ||
    fail "ibsmctl reroute: no rerouting heavy sweep (routing_rebalances still $n0)"
settle
after=$(loads) || fail "fabric wrong after ibsmctl reroute"
[ "$after" = "$fresh" ] || fail "after ibsmctl reroute the loads are $after, a fresh start's are $fresh"
log "ibsmctl reroute: $(( $(sent) - before )) LFT blocks; loads $after"
