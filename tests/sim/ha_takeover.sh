#!/bin/bash
# A standby takes over when its master dies, keeping every LID, and on an
# unchanged fabric it writes no LFT block and no P_Key block; a fabric that
# changed while no master ran is repaired.
#
# Both SMs run a partition policy with two disjoint partitions (so P_Key
# tables are not the defaults) and poll every 0.5 s, 3 polls to give up.
# 1. ft2_8: m (priority 12) on h0 brings the subnet up, s (priority 5) on
#    h17 stands by. LIDs (fabcheck --dump-lids), LFTs (dump_fts) and P_Key
#    tables (pkeytables.py) are read. m is killed with SIGKILL; sminfo
#    against h17 says MASTER in time; then fabcheck passes with h17's port
#    as the SM, every LID is as before, the LFTs and P_Key tables are as
#    before, and s's own counters show 0 LFT and 0 P_Key blocks written.
# 2. t (priority 1) on h9 stands by for s. s is killed, then a leaf-spine
#    cable is removed (no SM runs: its trap goes nowhere). t takes over:
#    fabcheck (the cable declared down) passes with h9's port as the SM,
#    and every LID is as before.
# The takeover times are logged, never asserted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"
HA_PARTITIONS=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
PKT=$TOP_SRCDIR/tests/sim/pkeytables.py

sim_start "$FABRICS/ft2_8.net"
ha_start m h0 -p 12 $POLL
ha_wait_up m 60
ha_start s h17 -p 5 $POLL
ha_wait_state s STANDBY 60
read -r guid_m lid_m <<<"$(ha_port h0)"
read -r guid_s lid_s <<<"$(ha_port h17)"
read -r guid_t lid_t <<<"$(ha_port h9)"
fabcheck --sm-guid "$guid_m" --dump-lids "$T/lids.1" >/dev/null ||
    fail "fabric check failed under the first master"
ha_lfts "$T/lft.1"
python3 "$PKT" read "$T/pk.1.json" 8>&- || fail "cannot read the P_Key tables"
[ -z "$(ha_sets s)" ] || fail "the standby sent SMP Sets: $(ha_sets s)"

# ---- 1. the master dies on an unchanged fabric
t0=$(date +%s.%N)
ha_kill m
ha_wait_sminfo "$lid_s" SMINFO_MASTER 30
ha_wait_up s 30
t1=$(date +%s.%N)
log "1: h17 is MASTER $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after the kill (polls 0.5 s x 3)"
fabcheck --sm-guid "$guid_s" --dump-lids "$T/lids.2" >/dev/null ||
    fail "fabric check failed after the takeover: $(fabcheck --sm-guid "$guid_s" 2>&1 | tail -5)"
diff -u "$T/lids.1" "$T/lids.2" || fail "LIDs changed across the takeover"
n=$(ha_set_count s LinearForwardingTable)
[ "$n" = 0 ] || fail "the takeover wrote $n LFT blocks on an unchanged fabric"
n=$(ha_set_count s P_KeyTable)
[ "$n" = 0 ] || fail "the takeover wrote $n P_Key blocks on an unchanged fabric"
ha_lfts "$T/lft.2"
diff -u "$T/lft.1" "$T/lft.2" >/dev/null || fail "the LFTs changed across the takeover"
python3 "$PKT" read "$T/pk.2.json" 8>&- || fail "cannot read the P_Key tables"
python3 "$PKT" compare "$T/pk.1.json" "$T/pk.2.json" 8>&- ||
    fail "the P_Key tables changed across the takeover"
log "1: LIDs, LFTs and P_Key tables as they were; 0 LFT and 0 P_Key blocks written ($(ha_sets s))"

# ---- 2. the master dies, then a cable goes: repaired by the next one
ha_start t h9 -p 1 $POLL
ha_wait_state t STANDBY 60
ha_kill s
sim_cmd 'Unlink "leaf3"[6]' >/dev/null
t0=$(date +%s.%N)
ha_wait_sminfo "$lid_t" SMINFO_MASTER 30
ha_wait_up t 30
t1=$(date +%s.%N)
log "2: h9 is MASTER $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after the kill"
poll_until 20 fabcheck --sm-guid "$guid_t" --down 'leaf3[6]' --dump-lids "$T/lids.3" >/dev/null ||
    fail "fabric not repaired after the takeover: $(fabcheck --sm-guid "$guid_t" --down 'leaf3[6]' 2>&1 | tail -5)"
diff -u "$T/lids.1" "$T/lids.3" || fail "LIDs changed across the second takeover"
log "2: the cable lost while no master ran is routed around ($(ha_sets t)); LIDs kept"
