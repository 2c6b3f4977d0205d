#!/bin/bash
# ibsmd beside OpenSM with both SM_Keys at their defaults (nothing but
# priorities and polling set): as shipped, the two make one subnet that
# hands over both ways. (Before ibsmd defaulted to OpenSM's key 1, OpenSM
# ignored it, ERR 2F18, and neither ever handed over.)
#
# 1. ibsmd (priority 0, h17) is master alone; OpenSM (priority 5, h0)
#    joins, finds it and stands by; ibsmd hands the subnet over: OpenSM
#    MASTER, ibsmd STANDBY, one MASTER in every sample, one handover sent
#    by ibsmd.
# 2. The order README's "Moving from OpenSM" gives for a live fabric:
#    ibsmd standing by for OpenSM gets priority 12 by a reload of its
#    ibsmd.conf; OpenSM hands the subnet over: ibsmd MASTER (one handover
#    taken), OpenSM STANDBY, one MASTER in every sample, the fabric right.
# 3. ibsmd restarted with another key (0x2) stands by for the foreign
#    OpenSM and says once, in its log, that the keys differ, showing each
#    by its last 4 hex digits only (keys are secrets: issue 29), however
#    many polls follow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
command -v opensm >/dev/null || skip "opensm not installed"

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"

sim_start "$FABRICS/ft2_8.net"

# ---- 1. ibsmd master, OpenSM of higher priority joins: ibsmd hands over
printf 'sm_priority: 0\n' >"$T/i1.conf"
ha_start i1 h17 $POLL
ha_wait_up i1 60
ha_opensm o h0 -p 5
read -r guid_0 lid_0 <<<"$(ha_port h0)"
read -r guid_17 lid_17 <<<"$(ha_port h17)"
ha_wait_state i1 STANDBY 60
ha_wait_sminfo "$lid_0" SMINFO_MASTER 30
m=$(ha_one_master 8 "$lid_0" "$lid_17") || fail "1: not one master: $m"
[ "$m" = "$lid_0" ] || fail "1: the master is LID $m, not OpenSM's $lid_0"
[ "$(ha_sminfo_state "$lid_17")" = SMINFO_STANDBY ] || fail "1: ibsmd is not STANDBY"
[ "$(ha_status i1 sm handovers_sent)" = 1 ] ||
    fail "1: ibsmd sent $(ha_status i1 sm handovers_sent) handovers"
[ "$(ha_status i1 sm peers 0 sm_key_match)" = True ] || fail "1: keys differ at their defaults"
log "1: defaults: ibsmd (0) handed over to OpenSM (5); OpenSM MASTER, ibsmd STANDBY"

# ---- 2. the standby's priority raised by a reload: OpenSM hands over
printf 'sm_priority: 12\n' >"$T/i1.conf"
ha_ctl i1 reload >/dev/null || fail "2: reload failed"
ha_wait_state i1 MASTER 60
ha_wait_up i1 30
ha_wait_sminfo "$lid_0" SMINFO_STANDBY 30
m=$(ha_one_master 8 "$lid_0" "$lid_17") || fail "2: not one master: $m"
[ "$m" = "$lid_17" ] || fail "2: the master is LID $m, not ibsmd's $lid_17"
[ "$(ha_status i1 sm handovers_taken)" = 1 ] ||
    fail "2: ibsmd took $(ha_status i1 sm handovers_taken) handovers"
fabcheck --sm-guid "$guid_17" >/dev/null || fail "2: fabric check failed after the handover"
log "2: defaults: ibsmd's priority reloaded to 12: OpenSM (5) handed over; ibsmd MASTER, OpenSM STANDBY"

# ---- 3. another key: said once which key to set
ha_kill i1 TERM
ha_wait_sminfo "$lid_0" SMINFO_MASTER 30
: >"$T/i3.log"
ha_start i3 h17 -p 0 -O sm_key=0x2 $POLL
ha_wait_state i3 STANDBY 60
sleep 3         # six polls of the master at least
n=$(grep -c 'has SM_Key 0x\.\.\.0001, ours is 0x\.\.\.0002' "$T/i3.log")
[ "$n" = 1 ] || fail "3: the keys were said to differ $n times: $(grep 'SM_Key' "$T/i3.log")"
! grep -q '0x0000000000000001\|0x0000000000000002' "$T/i3.log" ||
    fail "3: a key shows in full in the log: $(grep -m1 '0x000000000000000[12]' "$T/i3.log")"
[ "$(ha_sminfo_state "$lid_0")" = SMINFO_MASTER ] || fail "3: OpenSM is not MASTER"
log "3: another key: ibsmd stands by and says once that the keys differ (0x...0001, 0x...0002)"
