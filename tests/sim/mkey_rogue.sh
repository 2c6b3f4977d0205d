#!/bin/bash
# No host can reprogram the fabric (issue 29 points 1 and 3): ibsmd with
# per-port M_Keys at protection level 1 on slowlink.net (3 switches, 5
# HCAs), the simulated devices enforcing M_Key (tests/fixture/mkeyfix.c).
#  1. m (h0) brings the subnet up and s (h1, the same configuration)
#     stands by; the diags, which need no key at level 1 to read, find
#     the fabric right.
#  2. A rogue on h3, without the keys: ibportstate disabling a port,
#     directed-route SubnSets of an LFT block and of a P_Key table, and a
#     LID-routed PortInfo Set all fail, and nothing changed (the LFTs,
#     the P_Key table and the port states read back); the simulated
#     devices dropped each Set (the rogue's own fixture counts); ibsmd
#     received the traps 256 and names the rogue (ibsmctl status: mkey).
#     The SA shows the rogue no M_Key; no log or ibsmctl output holds a
#     key in full.
#  3. ibsmd keeps managing: a cable pulled and put back, a reload, and
#     m killed: s takes over; every time the fabric is right, and
#     neither SM had a single SMP dropped for its key (their fixtures'
#     counts, at exit).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
: "${SMPSET:=$PWD/tests/fixture/smpset}"
: "${MKEYSTATE:=$PWD/tests/fixture/mkeystate}"
[ -x "$SMPSET" ] || fail "$SMPSET not built (make check builds it)"

sim_start "$FABRICS/slowlink.net"
mkey_enforce
for n in m s; do
	cat >"$T/$n.conf" <<EOF2
m_key: 0x5ec2e75ec2e75ec2
m_key_per_port: true
m_key_protect_bits: 1
m_key_lease_period: 60
sm_poll_interval: 0.5
sm_poll_retries: 3
EOF2
done
UMADFIX_STATS=$T/m.stats ha_start m h0 -p 10
ha_wait_up m 60
UMADFIX_STATS=$T/s.stats ha_start s h1 -p 5
ha_wait_state s STANDBY 60
read -r guid_m _ <<<"$(ha_port h0)"
read -r guid_s _ <<<"$(ha_port h1)"
fabcheck --sm-guid "$guid_m" >"$T/fab.out" 2>&1 || fail "fabric check failed under m: $(tail -5 "$T/fab.out")"

# DR paths from h3: h3[1]-sw2[2]; sw2[1]-h2; sw2[6]-sw1[6]; sw1[5]-sw0[5]
SW2=0,1
H2=0,1,1
SW1=0,1,6
rogue() { SIM_HOST=h3 UMADFIX_STATS=$T/rogue.stats diag "$@"; }
lid_of() { rogue smpquery -D portinfo "$1" 2>/dev/null | sed -n 's/^Lid:\.*//p'; }
snap() {
	ha_lfts "$T/lft.$1"
	rogue smpquery -D pkeys $H2 >"$T/pk.$1" 2>&1 || fail "smpquery pkeys h2 failed"
	rogue smpquery -D portinfo $SW2 1 2>/dev/null | sed -n 's/^LinkState:\.*//p' >"$T/state.$1"
}
snap before
grep -qx Active "$T/state.before" || fail "sw2 port 1 is $(cat "$T/state.before"), not Active"
LID_SW0=$(lid_of 0,1,6,5)
[ -n "$LID_SW0" ] || fail "no LID read for sw0"

# ---- 2. the rogue
traps0=$(ha_status m mkey bad_key_traps)
rogue ibportstate -t 200 -D $SW2 1 disable >"$T/rogue.out" 2>&1 || true
rogue "$SMPSET" -t 200 -D $SW1 0x19 0 "$(printf 'ff%.0s' $(seq 64))" >>"$T/rogue.out" 2>&1 &&
    fail "the SubnSet of sw1's LFT block 0 was answered: $(tail -3 "$T/rogue.out")"
rogue "$SMPSET" -t 200 -D $H2 0x16 0 "$(printf '00%.0s' $(seq 64))" >>"$T/rogue.out" 2>&1 &&
    fail "the SubnSet of h2's P_Key table was answered: $(tail -3 "$T/rogue.out")"
rogue "$SMPSET" -t 200 -L "$LID_SW0" 0x15 5 "$(printf '00%.0s' $(seq 64))" >>"$T/rogue.out" 2>&1 &&
    fail "the LID-routed PortInfo Set of sw0 was answered: $(tail -3 "$T/rogue.out")"
snap after
for f in lft pk state; do
	diff -u "$T/$f.before" "$T/$f.after" || fail "the rogue changed the fabric ($f)"
done
dropped=$(mkey_stat "$T/rogue.stats" dropped_sets)
[ "$dropped" -ge 4 ] || fail "the devices dropped $dropped of the rogue's 4 Sets"
log "the rogue's $dropped Sets were dropped by the devices; LFTs, P_Keys and port states unchanged"
traps_at_least() { [ "$(ha_status m mkey bad_key_traps 2>/dev/null || echo 0)" -ge "$1" ]; }
poll_until 10 traps_at_least $((traps0 + 4)) >/dev/null ||
    fail "m counted $(ha_status m mkey bad_key_traps) Bad M_Key traps, $traps0 before 4 violations"
offender=$(ha_status m mkey last_offender)
case $offender in *'"h3"'*) ;; *) fail "m names the offender '$offender', not h3" ;; esac
log "m received the traps 256 and names the rogue: $offender"

# ---- no leaks (point 5): the SA shows the rogue no M_Key (with SM_Key 1,
# OpenSM's default sa_key, neither); no log line and no ibsmctl output
# holds a key the devices hold, nor the secret
for k in 0 1; do
	rogue saquery -K --smkey $k PIR >"$T/pir.$k" 2>&1 || fail "saquery PIR (SM_Key $k) failed: $(tail -3 "$T/pir.$k")"
	n=$(grep -c 'Mkey:\.*0x' "$T/pir.$k" || true)
	[ "$n" -ge 8 ] || fail "saquery PIR shows $n M_Key fields: $(head -20 "$T/pir.$k")"
	leak=$(grep 'Mkey:\.*0x' "$T/pir.$k" | grep -vc 'Mkey:\.*0x0*$' || true)
	[ "$leak" = 0 ] || fail "the SA showed $leak M_Keys to the rogue (SM_Key $k): $(grep 'Mkey:' "$T/pir.$k" | grep -v '0x0*$' | head -3)"
done
"$MKEYSTATE" "$UMADFIX_MKEY" | awk '{ for (i = 1; i < NF; i++) if ($i == "mkey") print $(i + 1) }' |
    sed 's/^0x//' | grep -v '^0*$' >"$T/keys" || true
[ "$(wc -l <"$T/keys")" -ge 8 ] || fail "the devices hold $(wc -l <"$T/keys") keys, not 8"
echo 5ec2e75ec2e75ec2 >>"$T/keys"
ha_ctl m status >"$T/status.txt" 2>&1
ha_ctl m status --json >"$T/status.json" 2>&1
if grep -if "$T/keys" "$T/m.log" "$T/s.log" "$T/status.txt" "$T/status.json"; then
	fail "a key shows in full in a log or in ibsmctl status"
fi
log "no key in the SA's answers to the rogue, the logs or ibsmctl status"

# ---- 3. ibsmd keeps managing
sim_cmd 'Unlink "h4"[1]'
poll_until 30 fabcheck --sm-guid "$guid_m" --down 'h4[1]' >/dev/null || fail "fabric wrong after h4's cable was pulled"
sim_cmd 'ReLink "h4"[1]'
poll_until 30 fabcheck --sm-guid "$guid_m" >/dev/null || fail "fabric wrong after h4's cable came back"
ha_ctl m reload >/dev/null || fail "m's reload failed"
ha_kill m TERM
ha_wait_state s MASTER 30
poll_until 30 fabcheck --sm-guid "$guid_s" >/dev/null || fail "fabric wrong after s took over"
ha_stop_all
for n in m s; do
	for k in dropped_gets dropped_sets; do
		v=$(mkey_stat "$T/$n.stats" $k)
		[ "$v" = 0 ] || fail "$n had $v SMPs dropped for a wrong M_Key ($k)"
	done
	[ "$(mkey_stat "$T/$n.stats" checked)" -gt 0 ] || fail "$n's fixture checked no SMP"
done
log "a flap, a reload and a takeover with no SMP of either SM dropped for its key"
