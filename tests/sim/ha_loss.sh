#!/bin/bash
# Loss cannot make a standby take over from a live master (issue 31 point
# 3). ft3_8: m (priority 12) on pod0edge0-h0 is master, s (priority 5) on
# pod7edge3-h3 (the far end of the fabric: 5 switches between them) stands
# by, both polling every second, 3 polls to give up. Every switch drops
# 20 % of the packets entering any of its ports for LOSS_SECS seconds,
# HA_LOSS_RUNS times (loss is random). Asserted in every run, from outside
# the SMs:
#   - s writes nothing while m lives: the fixture counts every SMP Set s
#     sends (UMADFIX_SETS), and it stays 0 for LFT, P_Key and PortInfo;
#   - sminfo, twice a second, never finds both MASTER
#     (asked from each SM's own host, sminfo -D 0: no switch, no loss);
#   - once the loss is cleared, m is the one master and the fabric is right.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

: "${HA_LOSS_RUNS:=2}"
: "${LOSS_SECS:=30}"
NET=$FABRICS/ft3_8.net
POLL="-O sm_poll_interval=1 -O sm_poll_retries=3 -R ftree,updn"
export SIM_HOST=pod3edge1-h2     # the diags watch from a third host

writes() {
	local n=0 a
	for a in LinearForwardingTable P_KeyTable PortInfo SwitchInfo; do
		n=$((n + $(sets_now "$1" "$a")))
	done
	echo "$n"
}

run() {
	local r=$1 end both=0 samples=0 sm ss w
	sim_start "$NET"
	ha_start m pod0edge0-h0 -p 12 $POLL
	ha_wait_up m 60
	UMADFIX_SETS=$T/s.sets ha_start s pod7edge3-h3 -p 5 $POLL
	ha_wait_state s STANDBY 60
	read -r guid_m lid_m <<<"$(ha_port pod0edge0-h0)"
	read -r guid_s lid_s <<<"$(ha_port pod7edge3-h3)"
	w=$(writes "$T/s.sets")
	[ "$w" = 0 ] || fail "run $r: the standby wrote $w Sets before any loss"
	# a few SMPs through the first switch: each run meets other losses
	for _ in $(seq 1 $((r * 5))); do diag smpquery -D nodedesc 0,1 >/dev/null 2>&1; done
	sim_loss 20
	end=$(($(date +%s) + LOSS_SECS))
	while [ "$(date +%s)" -lt "$end" ]; do
		sm=$(DIAG_TIMEOUT=2 ha_sminfo_at pod0edge0-h0 2>/dev/null || true)
		ss=$(DIAG_TIMEOUT=2 ha_sminfo_at pod7edge3-h3 2>/dev/null || true)
		if [ -n "$sm" ] && [ -n "$ss" ]; then
			samples=$((samples + 1))
			[ "$sm" = SMINFO_MASTER ] && [ "$ss" = SMINFO_MASTER ] && both=$((both + 1))
		fi
		ha_alive m || fail "run $r: m exited under loss"
		ha_alive s || fail "run $r: s exited under loss"
		sleep 0.5
	done
	w=$(writes "$T/s.sets")
	sim_loss 0
	log "run $r: $samples samples read, $both with two masters; s wrote $w Sets during the loss"
	[ "$w" = 0 ] || fail "run $r: the standby wrote $w Sets (LFT, P_Key, PortInfo, SwitchInfo) while the master lived"
	[ "$samples" -gt 0 ] || fail "run $r: no SMInfo sample read from the SMs' own ports"
	[ "$both" = 0 ] || fail "run $r: both SMs said MASTER in $both of $samples samples"
	poll_until 60 fabcheck --updown --sm-guid "$guid_m" >/dev/null ||
	    fail "run $r: fabric wrong after the loss: $(fabcheck --updown --sm-guid "$guid_m" 2>&1 | tail -5)"
	ha_wait_sminfo "$lid_m" SMINFO_MASTER 30
	ha_wait_sminfo "$lid_s" SMINFO_STANDBY 30
	log "run $r: m master, s standby, fabric right"
	ha_stop_all
	sim_stop
	rm -rf "$T/m" "$T/s" "$T/s.sets"
}

for r in $(seq 1 "$HA_LOSS_RUNS"); do
	run "$r"
done
