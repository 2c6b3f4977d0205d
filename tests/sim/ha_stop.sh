#!/bin/bash
# A planned stop hands over (issue 31 point 8). ft2_8: m (priority 12) on
# h0 masters the subnet, s (priority 5) on h17 stands by, polling every
# 5 s and giving up after 4 polls: without a handover s would take over
# only 20 s or more after m went silent. m gets SIGTERM: it must hand the
# subnet to s before it exits, so that sminfo from a third host reads s
# MASTER well before s could have noticed m's silence (10 s), m exits 0
# by itself, the fabric is right under s, and s wrote no LFT block (the
# routes in place are kept). With no standby, SIGTERM exits at once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
export SIM_HOST=h9

SLOW="-O sm_poll_interval=5 -O sm_poll_retries=4"

sim_start "$FABRICS/ft2_8.net"
ha_start m h0 -p 12 $SLOW
ha_wait_up m 60
ha_start s h17 -p 5 $SLOW
ha_wait_state s STANDBY 60
read -r guid_s lid_s <<<"$(ha_port h17)"
sleep 1
pid=$(_ha_pid m)
t0=$(date +%s.%N)
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	[ $i -lt 100 ] || fail "m still running 10 s after SIGTERM"
	sleep 0.1
	i=$((i + 1))
done
wait "$pid"
rc=$?
_untrack "$pid"
eval "HA_PID_m="
t1=$(date +%s.%N)
[ "$rc" = 0 ] || fail "m exited with status $rc after SIGTERM"
log "m exited $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after SIGTERM"
ha_wait_sminfo "$lid_s" SMINFO_MASTER 30
t2=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')
log "s MASTER $took s after SIGTERM (its polls alone: 20 s or more)"
awk -v t="$took" 'BEGIN { exit !(t < 10) }' ||
    fail "s became MASTER only $took s after SIGTERM: no handover (its polls alone take 20 s)"
ha_wait_up s 30
poll_until 20 fabcheck --sm-guid "$guid_s" >/dev/null ||
    fail "fabric wrong under s: $(fabcheck --sm-guid "$guid_s" 2>&1 | tail -5)"
n=$(ha_set_count s LinearForwardingTable)
[ "$n" = 0 ] || fail "the handover cost $n LFT blocks"
log "handed over: s master, fabric right, 0 LFT blocks written"

# no standby left: SIGTERM exits at once
t0=$(date +%s.%N)
ha_kill s TERM
[ "$_STOP_STATUS" = 0 ] || fail "s exited with status $_STOP_STATUS"
log "s alone exited $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after SIGTERM"
