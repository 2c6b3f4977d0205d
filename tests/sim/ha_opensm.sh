#!/bin/bash
# ibsmd next to OpenSM on one fabric, both ways, with matching and with
# mismatched SM_Keys. OpenSM's SM_Key is its default, 1; ibsmd's is 0
# (mismatched, -O sm_key=0x0) or 1 (matching; its default too, see
# ha_opensm_defaults.sh). OpenSM polls every 0.5 s, 2 retries.
#
# 1. Mismatched, OpenSM master (priority 15, h0), ibsmd -p 0 (h17): ibsmd
#    finds a foreign master and stands by: STANDBY, not one SMP Set sent,
#    every LFT as OpenSM left it. OpenSM (which ignores SMs of another
#    key) stays MASTER. Then OpenSM is killed: ibsmd takes over with every
#    LID kept and no LFT or P_Key block written (it keeps OpenSM's routes;
#    both run the default partition only).
# 2. Mismatched, ibsmd master (priority 15, h0), OpenSM -p 0 (h17): OpenSM
#    ignores ibsmd and becomes master; ibsmd sees a foreign master and
#    steps down. They do not fight: sampled for a few seconds afterwards,
#    sminfo finds exactly one MASTER (OpenSM) every time.
# 3. Matching, ibsmd master (15, h0), OpenSM -p 0 (h17): OpenSM stands by;
#    sampled, one MASTER (ibsmd). ibsmd is killed: OpenSM takes over.
# 4. Matching, OpenSM master (5, h0), ibsmd -p 12 (h17): ibsmd stands by,
#    OpenSM hands the subnet over; ibsmd MASTER, OpenSM STANDBY, ibsmd
#    took one handover, wrote no LFT block, and fabcheck passes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
command -v opensm >/dev/null || skip "opensm not installed"

net=$FABRICS/ft2_8.net
POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"

# ---- 1
sim_start "$net"
ha_opensm o1 h0 -p 15
ha_wait_opensm_up o1 60
ha_start i1 h17 -p 0 -O sm_key=0x0 $POLL
ha_wait_state i1 STANDBY 60
read -r guid_0 lid_0 <<<"$(ha_port h0)"
read -r guid_17 lid_17 <<<"$(ha_port h17)"
ha_lfts "$T/lft.1"
fabcheck --dump-lids "$T/lids.1" >/dev/null || fail "fabric check failed under OpenSM"
sleep 2
[ -z "$(ha_sets i1)" ] || fail "ibsmd standing by for OpenSM sent Sets: $(ha_sets i1)"
[ "$(ha_status i1 sm peers 0 sm_key_match)" = False ] || fail "OpenSM's key taken for ibsmd's"
[ "$(ha_sminfo_state "$lid_0")" = SMINFO_MASTER ] || fail "OpenSM is not MASTER"
[ "$(ha_sminfo_state "$lid_17")" = SMINFO_STANDBY ] || fail "ibsmd is not STANDBY"
ha_lfts "$T/lft.2"
diff -q "$T/lft.1" "$T/lft.2" >/dev/null || fail "LFTs changed while ibsmd stood by"
log "1: OpenSM MASTER, ibsmd STANDBY (foreign key), nothing written by ibsmd"
ha_kill o1
ha_wait_sminfo "$lid_17" SMINFO_MASTER 30
ha_wait_up i1 30
fabcheck --sm-guid "$guid_17" --dump-lids "$T/lids.2" >/dev/null ||
    fail "fabric check failed after ibsmd took over from OpenSM"
diff -u "$T/lids.1" "$T/lids.2" || fail "LIDs changed when ibsmd took over from OpenSM"
n=$(ha_set_count i1 LinearForwardingTable)
[ "$n" = 0 ] || fail "ibsmd wrote $n LFT blocks taking over OpenSM's unchanged fabric"
n=$(ha_set_count i1 P_KeyTable)
[ "$n" = 0 ] || fail "ibsmd wrote $n P_Key blocks taking over OpenSM's unchanged fabric"
log "1: OpenSM killed: ibsmd MASTER, OpenSM's LIDs and routes kept ($(ha_sets i1))"
ha_stop_all
sim_stop

# ---- 2
sim_start "$net"
ha_start i2 h0 -p 15 -O sm_key=0x0 $POLL
ha_wait_up i2 60
ha_opensm o2 h17 -p 0
ha_wait_state i2 STANDBY 30
read -r guid_0 lid_0 <<<"$(ha_port h0)"
read -r guid_17 lid_17 <<<"$(ha_port h17)"
m=$(ha_one_master 12 "$lid_0" "$lid_17") || fail "mismatched keys: not one master: $m"
[ "$m" = "$lid_17" ] || fail "mismatched keys: the master is LID $m, not OpenSM's $lid_17"
[ "$(ha_status i2 sm_state)" = STANDBY ] || fail "ibsmd left STANDBY"
log "2: mismatched keys: OpenSM (ignoring ibsmd) MASTER, ibsmd stepped down; one master in 12 samples"
ha_stop_all
sim_stop

# ---- 3
sim_start "$net"
ha_start i3 h0 -p 15 -O sm_key=0x1 $POLL
ha_wait_up i3 60
ha_opensm o3 h17 -p 0
read -r guid_0 lid_0 <<<"$(ha_port h0)"
read -r guid_17 lid_17 <<<"$(ha_port h17)"
ha_wait_sminfo "$lid_17" SMINFO_STANDBY 30
m=$(ha_one_master 8 "$lid_0" "$lid_17") || fail "matching keys: not one master: $m"
[ "$m" = "$lid_0" ] || fail "matching keys: the master is LID $m, not ibsmd's $lid_0"
[ "$(ha_status i3 sm_state)" = MASTER ] || fail "ibsmd is not MASTER"
[ "$(ha_status i3 sm peers 0 sm_key_match)" = True ] || fail "OpenSM's key not matched"
log "3: matching keys: ibsmd MASTER, OpenSM STANDBY"
ha_kill i3
ha_wait_sminfo "$lid_17" SMINFO_MASTER 30
log "3: ibsmd killed: OpenSM took over"
ha_stop_all
sim_stop

# ---- 4
sim_start "$net"
ha_opensm o4 h0 -p 5
ha_wait_opensm_up o4 60
# Start ibsmd once sminfo reads OpenSM as MASTER. OpenSM may hand over
# before ibsmd's discovery ends (it hands over to any SM of higher
# standing that is not NOTACTIVE, and stands by at once); ibsmd then
# acknowledges that HANDOVER, counts it, and wins its election
# (check_smstate test_discovering_handover): one handover either way.
read -r guid_0 lid_0 <<<"$(ha_port h0)"
ha_wait_sminfo "$lid_0" SMINFO_MASTER 30
ha_start i4 h17 -p 12 -O sm_key=0x1 $POLL
ha_wait_state i4 MASTER 60
ha_wait_up i4 30
read -r guid_0 lid_0 <<<"$(ha_port h0)"
read -r guid_17 lid_17 <<<"$(ha_port h17)"
ha_wait_sminfo "$lid_0" SMINFO_STANDBY 30
[ "$(ha_status i4 sm handovers_taken)" = 1 ] || fail "ibsmd took $(ha_status i4 sm handovers_taken) handovers"
n=$(ha_set_count i4 LinearForwardingTable)
[ "$n" = 0 ] || fail "ibsmd wrote $n LFT blocks after OpenSM's handover"
fabcheck --sm-guid "$guid_17" >/dev/null || fail "fabric check failed after the handover"
log "4: matching keys: OpenSM (5) handed over to ibsmd (12); no LFT block written"
