#!/bin/bash
# Two ibsmd on one fabric, priorities 12 and 5, started in either order:
# the 12 ends MASTER and the 5 STANDBY, and a standby writes nothing.
#
# 1. ft2_8; the 12 on h0 brings the subnet up; every LFT (dump_fts) and
#    P_Key table (pkeytables.py read) is read. The 5 starts on h17: sminfo
#    against h0's port says MASTER priority 12, against h17's STANDBY
#    priority 5; the 5's own counters show not one SMP Set sent; the LFTs
#    and P_Key tables read again are the same. The master lists the
#    standby among the SMs it sees (ibsmctl status).
# 2. A fresh fabric; the 5 on h0 first, brings the subnet up as MASTER;
#    the 12 starts on h17 (it finds a master: it stands by, then, being
#    higher, it is handed the subnet). sminfo: h17 MASTER priority 12, h0
#    STANDBY priority 5; one handover each way in their counters; every LID
#    as before; the 12 wrote no LFT block (it kept the routes in place);
#    fabcheck passes with h17's port as the SM.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

net=$FABRICS/ft2_8.net
POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"

# ---- 1. master first, standby second
sim_start "$net"
ha_start m h0 -p 12 $POLL
ha_wait_up m 60
read -r guid_m lid_m <<<"$(ha_port h0)"
read -r guid_s lid_s <<<"$(ha_port h17)"
[ -n "$lid_m" ] && [ "$lid_m" != 0 ] || fail "h0's port has no LID"
[ -n "$lid_s" ] && [ "$lid_s" != 0 ] || fail "h17's port has no LID"
ha_lfts "$T/lft.1"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" read "$T/pk.1.json" 8>&- ||
    fail "cannot read the P_Key tables"

ha_start s h17 -p 5 $POLL
ha_wait_state s STANDBY 60
ha_wait_sminfo "$lid_s" SMINFO_STANDBY 10
read -r st pr g <<<"$(ha_sminfo "$lid_m")"
[ "$st $pr $g" = "SMINFO_MASTER 12 $guid_m" ] ||
    fail "sminfo at h0 (LID $lid_m): $st $pr $g, expected MASTER 12 $guid_m"
read -r st pr g <<<"$(ha_sminfo "$lid_s")"
[ "$st $pr $g" = "SMINFO_STANDBY 5 $guid_s" ] ||
    fail "sminfo at h17 (LID $lid_s): $st $pr $g, expected STANDBY 5 $guid_s"
# A few polls later, still nothing written by the standby.
sleep 2
sets=$(ha_sets s)
[ -z "$sets" ] || fail "the standby sent SMP Sets: $sets"
[ "$(ha_status s sm_state)" = STANDBY ] || fail "the standby left STANDBY"
ha_lfts "$T/lft.2"
diff -u "$T/lft.1" "$T/lft.2" >/dev/null ||
    fail "the LFTs changed after the standby started: $(diff "$T/lft.1" "$T/lft.2" | head -5)"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" read "$T/pk.2.json" 8>&- ||
    fail "cannot read the P_Key tables"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" compare "$T/pk.1.json" "$T/pk.2.json" 8>&- ||
    fail "the P_Key tables changed after the standby started"
[ "$(ha_status m sm peers 0 guid)" = "$guid_s" ] ||
    fail "the master does not list the standby: $(ha_ctl m status | grep -A3 'SM PORT')"
[ "$(ha_status m sm peers 0 state)" = STANDBY ] || fail "the master sees the standby in another state"
[ "$(ha_status s sm master_guid)" = "$guid_m" ] || fail "the standby does not poll the master"
log "1: h0 MASTER (12), h17 STANDBY (5); the standby sent no Set, LFTs and P_Keys unchanged"
ha_stop_all
sim_stop

# ---- 2. the lower first: it is master until the higher one arrives
sim_start "$net"
ha_start lo h0 -p 5 $POLL
ha_wait_up lo 60
fabcheck --dump-lids "$T/lids.1" >/dev/null || fail "fabric check failed under the first SM"
ha_start hi h17 -p 12 $POLL
ha_wait_state hi MASTER 60
ha_wait_state lo STANDBY 30
ha_wait_up hi 30
read -r st pr g <<<"$(ha_sminfo "$lid_s")"
[ "$st $pr" = "SMINFO_MASTER 12" ] || fail "sminfo at h17: $st $pr, expected MASTER 12"
read -r st pr g <<<"$(ha_sminfo "$lid_m")"
[ "$st $pr" = "SMINFO_STANDBY 5" ] || fail "sminfo at h0: $st $pr, expected STANDBY 5"
[ "$(ha_status lo sm handovers_sent)" = 1 ] || fail "h0 sent $(ha_status lo sm handovers_sent) handovers, not 1"
[ "$(ha_status hi sm handovers_taken)" = 1 ] || fail "h17 took $(ha_status hi sm handovers_taken) handovers, not 1"
n=$(ha_set_count hi LinearForwardingTable)
[ "$n" = 0 ] || fail "the new master wrote $n LFT blocks on an unchanged fabric"
fabcheck --sm-guid "$guid_s" --dump-lids "$T/lids.2" >/dev/null ||
    fail "fabric check failed after the handover: $(fabcheck --sm-guid "$guid_s" 2>&1 | tail -5)"
diff -u "$T/lids.1" "$T/lids.2" || fail "LIDs changed across the handover"
log "2: h17 (12) took over from h0 (5) by handover: LIDs kept, no LFT block written"
