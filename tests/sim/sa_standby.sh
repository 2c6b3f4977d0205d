#!/bin/bash
# A standby ibsmd does not answer SA requests; the master does.
#
# ft2_8; ibsmd priority 12 on h0 (MASTER), ibsmd priority 5 on h17
# (STANDBY, sminfo says so). saquery sends to the SM LID in its own port's
# PortInfo, so h5's port gets SMLid = the standby's LID (ibportstate
# smlid) and saquery -c run as h5 must get no answer (the fixture's
# request timeout ends it); with SMLid = the master's LID, the same query
# is answered. Needs the test fixture (request timeouts): without it
# saquery would wait forever.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"
sim_start "$FABRICS/ft2_8.net"
ha_start m h0 -p 12 $POLL
ha_wait_up m 60
ha_start s h17 -p 5 $POLL
ha_wait_state s STANDBY 60
read -r _ lid_m <<<"$(ha_port h0)"
read -r _ lid_s <<<"$(ha_port h17)"
read -r _ lid_c <<<"$(ha_port h5)"
[ -n "$lid_s" ] && [ "$lid_s" != 0 ] || fail "h17's port has no LID"
[ -n "$lid_c" ] && [ "$lid_c" != 0 ] || fail "h5's port has no LID"
ha_wait_sminfo "$lid_s" SMINFO_STANDBY 10
ha_wait_sminfo "$lid_m" SMINFO_MASTER 10

# cpi_from SMLID: point h5's SMLid at SMLID, then saquery -c as h5; prints
# its output, status 1 when no ClassPortInfo came back.
cpi_from() {
	local out
	diag ibportstate "$lid_c" 1 smlid "$1" >/dev/null 2>&1 ||
	    fail "ibportstate $lid_c 1 smlid $1 failed"
	[ "$(diag smpquery portinfo "$lid_c" 1 2>/dev/null |
	    sed -n 's/^SMLid:\.*//p')" = "$1" ] || fail "h5's SMLid is not $1"
	out=$(SIM_HOST=h5 DIAG_TIMEOUT=30 diag saquery -t 1000 -c 2>&1)
	printf '%s\n' "$out"
	printf '%s\n' "$out" | grep -q 'Class version'
}

s_ns0=$(ha_status s sa not_serving)
if out=$(cpi_from "$lid_s"); then
	fail "the standby answered ClassPortInfo: $out"
fi
ha_alive s || fail "the standby died of an SA request"
log "saquery to the standby (LID $lid_s): no answer"
# The standby counted it as not served (its own counter).
[ "$(ha_status s sa not_serving)" -gt "$s_ns0" ] ||
    fail "the standby's sa.not_serving did not grow"
[ "$(ha_status s sa answered)" = 0 ] || fail "the standby counts answers"

out=$(cpi_from "$lid_m") || fail "the master did not answer ClassPortInfo: $out"
log "saquery to the master (LID $lid_m): answered"
# Nobody answers for the standby even when asked again.
if out=$(cpi_from "$lid_s"); then
	fail "the standby answered ClassPortInfo the second time: $out"
fi
diag ibportstate "$lid_c" 1 smlid "$lid_m" >/dev/null 2>&1
log "PASS"
