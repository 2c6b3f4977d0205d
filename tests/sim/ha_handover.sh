#!/bin/bash
# Handover: the standby's priority raised by a reload makes the master
# hand the subnet over, one MASTER at every moment sampled; SMInfo Set
# modifiers DISABLE, STANDBY and DISCOVER are honoured, a NOTACTIVE SM is
# quiet, and a Set with the wrong SM_Key is refused and counted.
#
# 1. ft2_8: m (priority 12) on h0 is master, s (priority 5 in its
#    ibsmd.conf) on h17 stands by. s.conf says 14 and `ibsmctl reload`
#    applies it. From then until s is MASTER and m STANDBY, and 2 s after,
#    sminfo is asked at both ports every sample: exactly one MASTER each
#    time. One handover each way; s wrote no LFT block; fabcheck passes
#    with h17's port as the SM.
# 2. With the sminfo tool (SM_Key 0, as a MASTER; both SMs run with
#    sm_key 0 for it): DISABLE to m makes it
#    NOTACTIVE and it then sends no SMInfo poll for 2 s; STANDBY makes it
#    STANDBY (polling again); DISCOVER makes it rediscover and stand by
#    again. A HANDOVER from a STANDBY sender (-s 2) is refused.
# 3. m's sm_key reloaded to 0x5: the sminfo tool's DISABLE (key 0) is
#    refused (sminfo fails), counted as a wrong key, and m stays STANDBY.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"

sim_start "$FABRICS/ft2_8.net"
# the sminfo tool sends its Sets with SM_Key 0
printf 'sm_priority: 12\nsm_key: 0x0\n' >"$T/m.conf"
printf 'sm_priority: 5\nsm_key: 0x0\n' >"$T/s.conf"
ha_start m h0 $POLL
ha_wait_up m 60
ha_start s h17 $POLL
ha_wait_state s STANDBY 60
read -r guid_m lid_m <<<"$(ha_port h0)"
read -r guid_s lid_s <<<"$(ha_port h17)"

# ---- 1. priority raised by a reload
printf 'sm_priority: 14\nsm_key: 0x0\n' >"$T/s.conf"
ha_ctl s reload >/dev/null || fail "ibsmctl reload failed"
samples=0 done_at=""
while :; do
	nm=0
	st_m=$(ha_sminfo_state "$lid_m" || true)
	st_s=$(ha_sminfo_state "$lid_s" || true)
	[ "$st_m" = SMINFO_MASTER ] && nm=$((nm + 1))
	[ "$st_s" = SMINFO_MASTER ] && nm=$((nm + 1))
	samples=$((samples + 1))
	[ "$nm" = 1 ] || fail "sample $samples: h0 $st_m, h17 $st_s: $nm masters"
	if [ -z "$done_at" ] && [ "$st_s" = SMINFO_MASTER ] && [ "$st_m" = SMINFO_STANDBY ]; then
		done_at=$samples
		log "1: h17 MASTER, h0 STANDBY after $samples samples"
	fi
	[ -n "$done_at" ] && [ $((samples - done_at)) -ge 10 ] && break
	[ "$samples" -lt 300 ] || fail "no handover after $samples samples"
	sleep 0.2
done
[ "$(ha_status m sm handovers_sent)" = 1 ] || fail "m sent $(ha_status m sm handovers_sent) handovers, not 1"
[ "$(ha_status s sm handovers_taken)" = 1 ] || fail "s took $(ha_status s sm handovers_taken) handovers, not 1"
[ "$(ha_status s priority)" = 14 ] || fail "s runs priority $(ha_status s priority), not 14"
ha_wait_up s 30
n=$(ha_set_count s LinearForwardingTable)
[ "$n" = 0 ] || fail "the new master wrote $n LFT blocks"
fabcheck --sm-guid "$guid_s" >/dev/null || fail "fabric check failed after the handover"
log "1: one handover, one MASTER in each of $samples samples, no LFT block written"

# ---- 2. DISABLE, STANDBY, DISCOVER from the sminfo tool
polls() { ha_ctl m status --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["mad"]["counters"].get("smp", {})
print(c.get("Get", {}).get("SMInfo", {}).get("sent", 0))'; }
diag sminfo -s 3 "$lid_m" 3 >/dev/null 2>&1 || fail "DISABLE refused by a STANDBY"
[ "$(ha_status m sm_state)" = NOTACTIVE ] || fail "m is $(ha_status m sm_state) after DISABLE"
[ "$(ha_sminfo_state "$lid_m")" = SMINFO_NOTACT ] || fail "sminfo: m is not NOTACTIVE"
p0=$(polls)
sleep 2
p1=$(polls)
[ "$p0" = "$p1" ] || fail "NOTACTIVE m sent $((p1 - p0)) SMInfo Gets in 2 s"
diag sminfo -s 2 "$lid_m" 1 >/dev/null 2>&1 && fail "a HANDOVER from a STANDBY sender was accepted"
diag sminfo -s 3 "$lid_m" 4 >/dev/null 2>&1 || fail "STANDBY refused by a NOTACTIVE SM"
[ "$(ha_status m sm_state)" = STANDBY ] || fail "m is $(ha_status m sm_state) after STANDBY"
sleep 1.5
p2=$(polls)
[ "$p2" -gt "$p1" ] || fail "m polls nobody after STANDBY"
diag sminfo -s 3 "$lid_m" 5 >/dev/null 2>&1 || fail "DISCOVER refused by a STANDBY"
ha_wait_state m STANDBY 30
[ "$(ha_status m sm transitions)" -ge 6 ] || fail "m went through $(ha_status m sm transitions) states"
m=$(ha_one_master 4 "$lid_m" "$lid_s") || fail "after the modifiers: $m"
[ "$m" = "$lid_s" ] || fail "the master is LID $m after the modifiers"
log "2: DISABLE (quiet), STANDBY, DISCOVER honoured; HANDOVER from a standby refused"

# ---- 3. the wrong SM_Key
printf 'sm_priority: 12\nsm_key: 0x5\n' >"$T/m.conf"
ha_ctl m reload >/dev/null || fail "ibsmctl reload failed"
diag sminfo -s 3 "$lid_m" 3 >/dev/null 2>&1 && fail "a DISABLE with the wrong SM_Key was accepted"
[ "$(ha_status m sm sminfo bad_key)" = 1 ] || fail "wrong-key Sets counted: $(ha_status m sm sminfo bad_key)"
[ "$(ha_status m sm_state)" = STANDBY ] || fail "m is $(ha_status m sm_state) after a refused DISABLE"
log "3: a Set with the wrong SM_Key refused and counted"
