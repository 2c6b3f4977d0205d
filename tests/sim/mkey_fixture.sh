#!/bin/bash
# The simulated devices enforce M_Key (tests/fixture/mkeyfix.c), proven
# against OpenSM, whose m_key, m_key_protection_level and
# m_key_lease_period configure the fabric, on slowlink.net (3 switches, 5
# HCAs). OpenSM runs on h0; a rogue and the observers (infiniband-diags,
# tests/fixture/smpset) run on h3 with or without the key:
#  1. OpenSM with a key at protection level 2 brings the fabric up (every
#     port Active, read with the key) and none of its SMPs was dropped
#     (the fixture's counters in OpenSM's process): it sends the key.
#  2. Without the key, a Get of a switch's and a CA's PortInfo times out;
#     Sets of PortInfo, of an LFT block and of a P_Key table with a wrong
#     key change nothing (read back with the key, byte for byte); the
#     violation counter went up; OpenSM received trap 256 (Bad M_Key)
#     naming the rogue's LID.
#  3. At level 1 a Get without the key shows M_Key 0, with it the key.
#  4. A lease of 2 s with OpenSM stopped: a wrong-key Get starts it; once
#     it ran out the port is at level 0 and a Get without the key shows
#     the key.
# On stock ibsim (no enforcement) every Set of step 2 takes effect.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm not installed"
: "${SMPSET:=$PWD/tests/fixture/smpset}"
[ -x "$SMPSET" ] || fail "$SMPSET not built (make check builds it)"

KEY=0x1122334455667788
BAD=0x00000000deadbeef
ROGUE=h3
# DR paths from h3: h3[1]-sw2[2]; sw2[1]-h2; sw2[6]-sw1[6]; sw1[5]-sw0[5]
SW2=0,1
H2=0,1,1
SW1=0,1,6
SW0=0,1,6,5
H0=0,1,6,5,1

# rogue/observer tools on h3; -t 200: a dropped Get gives up sooner
obs() { SIM_HOST=$ROGUE UMADFIX_STATS=$T/rogue.stats diag "$@"; }
pi_field() { sed -n "s/^$1:\.*//p"; }

OSM_N=0
OSM_PID=""
# osm_start LEVEL LEASE: OpenSM on h0 with the key, protection level and
# lease period; waits for SUBNET UP.
osm_start() {
	local i=0
	OSM_N=$((OSM_N + 1))
	mkdir -p "$T/osm$OSM_N"
	cat >"$T/osm$OSM_N.conf" <<EOF
m_key $KEY
m_key_protection_level $1
m_key_lease_period $2
sweep_interval 1
EOF
	SIM_HOST=h0 OSM_CACHE_DIR=$T/osm$OSM_N OSM_TMP_DIR=$T/osm$OSM_N \
	    UMADFIX_STATS=$T/osm$OSM_N.stats LD_PRELOAD=$SIM_PRELOAD \
	    opensm -F "$T/osm$OSM_N.conf" -d2 -f "$T/opensm.$OSM_N.log" \
	    --dump_files_dir "$T/osm$OSM_N" >>"$T/opensm.out" 2>&1 8>&- &
	OSM_PID=$!
	_track "$OSM_PID"
	until grep -q 'SUBNET UP' "$T/opensm.$OSM_N.log" 2>/dev/null; do
		kill -0 "$OSM_PID" 2>/dev/null || fail "opensm exited"
		[ $i -lt 600 ] || fail "opensm: no SUBNET UP after 60 s"
		sleep 0.1
		i=$((i + 1))
	done
	log "opensm $OSM_N (pid $OSM_PID): level $1, lease $2 s: subnet up"
}
osm_stop() {
	_stop_pid "$OSM_PID" 5
	log "opensm $OSM_N stopped (status $_STOP_STATUS)"
	OSM_PID=""
}

sim_start "$FABRICS/slowlink.net"
mkey_enforce

# pq DR FIELD: a field of the PortInfo at DR (port 0), read with the key
pq() { obs smpquery -K -y $KEY -D portinfo "$1" 2>&1 | pi_field "$2"; }
# ---- 1. OpenSM protects the fabric and keeps managing it
osm_start 2 0
for p in $SW2 $H2 $SW1 $SW0 $H0; do
	obs smpquery -y $KEY -D portinfo $p >"$T/pi.out" 2>&1 ||
	    fail "smpquery -y KEY portinfo $p failed: $(cat "$T/pi.out")"
	st=$(pi_field LinkState <"$T/pi.out")
	pb=$(pi_field ProtectBits <"$T/pi.out")
	mk=$(pq $p Mkey)
	log "DR $p: LinkState $st M_Key $mk ProtectBits $pb"
	[ "$st" = Active ] || fail "DR $p: LinkState $st"
	[ "$((mk))" = "$((KEY))" ] || fail "DR $p: M_Key $mk, not OpenSM's $KEY"
	[ "$pb" = 2 ] || fail "DR $p: ProtectBits $pb, not OpenSM's 2"
done
# every switch port with a cable, too
for sp in "$SW2 1" "$SW2 2" "$SW2 6" "$SW1 1" "$SW1 5" "$SW1 6" "$SW0 1" \
    "$SW0 2" "$SW0 5"; do
	set -- $sp
	st=$(obs smpquery -y $KEY -D portinfo "$1" "$2" 2>&1 | pi_field LinkState)
	[ "$st" = Active ] || fail "DR $1 port $2: LinkState $st"
done
log "every port Active"
LID_SW2=$(pq $SW2 Lid)
LID_H2=$(pq $H2 Lid)
LID_ME=$(pq 0 Lid)
log "LIDs: sw2 $LID_SW2, h2 $LID_H2, h3 (the rogue) $LID_ME"

# ---- 2. a rogue without the key
obs smpquery -t 200 portinfo "$LID_SW2" >"$T/get.out" 2>&1 &&
    fail "smpquery portinfo $LID_SW2 (sw2) without the key answered at level 2: $(cat "$T/get.out")"
obs smpquery -t 200 portinfo "$LID_H2" >"$T/get.out" 2>&1 &&
    fail "smpquery portinfo $LID_H2 (h2) without the key answered at level 2: $(cat "$T/get.out")"
log "PortInfo Gets without the key time out (switch and CA)"
v0_sw=$(pq $SW2 MkeyViolations)
v0_ca=$(pq $H2 MkeyViolations)
# what the SM owns, read with the key: sw2's PortInfo, its LFT, h2's P_Keys
snap() {
	obs smpquery -K -y $KEY -D portinfo $SW2 >"$T/pi.$1" || fail "smpquery portinfo sw2 with the key failed"
	obs ibroute -y $KEY -D $SW2 >"$T/lft.$1" || fail "ibroute sw2 with the key failed"
	obs smpquery -y $KEY -D pkeys $H2 >"$T/pkey.$1" || fail "smpquery pkeys h2 with the key failed"
}
snap before
grep -q '^0x0004 ' "$T/lft.before" || fail "sw2 has no route to LID 4: $(head -5 "$T/lft.before")"
# a rogue's PortInfo: its own M_Key, LID 0x63; an LFT block dropping
# LIDs 0-63; a P_Key block of 0x8001
pi_new=$(printf '%016x' $((BAD)))0000000000000000$(printf '0063')
lft_new=$(printf 'ff%.0s' $(seq 64))
pkey_new=8001ffff
for s in "-L $LID_SW2 0x15 0 $pi_new" "-D $SW2 0x15 0 $pi_new" \
    "-D $SW2 0x19 0 $lft_new" "-L $LID_SW2 0x19 0 $lft_new" \
    "-L $LID_H2 0x16 0 $pkey_new" "-D $H2 0x15 0 $pi_new"; do
	# shellcheck disable=SC2086
	SIM_HOST=$ROGUE UMADFIX_STATS=$T/rogue.stats LD_PRELOAD=$SIM_PRELOAD \
	    timeout 60 "$SMPSET" -K $BAD -t 200 $s >"$T/set.out" 2>&1 8>&- &&
	    fail "smpset -K $BAD $s was answered: $(cat "$T/set.out")"
done
snap after
cmp -s "$T/lft.before" "$T/lft.after" || fail "sw2's LFT changed: $(diff "$T/lft.before" "$T/lft.after")"
cmp -s "$T/pkey.before" "$T/pkey.after" || fail "h2's P_Keys changed: $(diff "$T/pkey.before" "$T/pkey.after")"
novi() { grep -v '^MkeyViolations:' "$1"; }
[ "$(novi "$T/pi.before")" = "$(novi "$T/pi.after")" ] ||
    fail "sw2's PortInfo changed: $(diff <(novi "$T/pi.before") <(novi "$T/pi.after"))"
log "Sets of PortInfo, LFT and P_Keys with a wrong key changed nothing"
v1_sw=$(pq $SW2 MkeyViolations)
v1_ca=$(pq $H2 MkeyViolations)
log "M_KeyViolations: sw2 $v0_sw -> $v1_sw, h2 $v0_ca -> $v1_ca"
# the state file says the same (tests/fixture/mkeystate)
GUID_SW2=$(obs smpquery -y $KEY -D nodeinfo $SW2 | pi_field PortGuid)
[ "$(mkey_port "$GUID_SW2" viol)" = "$v1_sw" ] ||
    fail "mkeystate: $(mkey_port "$GUID_SW2"), PortInfo says M_KeyViolations $v1_sw"
[ "$v1_sw" -gt "$v0_sw" ] && [ "$v1_ca" -gt "$v0_ca" ] ||
    fail "the violation counters did not go up"
for k in dropped_gets dropped_sets traps; do
	n=$(mkey_stat "$T/rogue.stats" $k)
	log "rogue: $k $n"
	[ "$n" -gt 0 ] || fail "the rogue's device counted no $k"
done
poll_until 10 grep -q "num:256 (.*) .*from LID:$LID_ME " "$T/opensm.$OSM_N.log" >/dev/null ||
    fail "OpenSM logged no trap 256 from LID $LID_ME"
log "OpenSM: $(grep -c "num:256 " "$T/opensm.$OSM_N.log") trap(s) 256 received; $(grep -m1 'Bad M_Key' "$T/opensm.$OSM_N.log")"
osm_stop
for k in dropped_gets dropped_sets dropped_repress; do
	[ "$(mkey_stat "$T/osm1.stats" $k)" = 0 ] ||
	    fail "OpenSM's device dropped SMPs: $(grep mkey: "$T/osm1.stats")"
done
[ "$(mkey_stat "$T/osm1.stats" checked)" -gt 0 ] || fail "OpenSM's SMPs were not checked"
log "OpenSM: $(mkey_stat "$T/osm1.stats" checked) SMPs checked, none dropped"

# ---- 3. level 1: the key is hidden from a Get without it
osm_start 1 0
for p in $SW2 $H2; do
	[ "$(pq $p ProtectBits)" = 1 ] || fail "DR $p: not at level 1"
	mk=$(obs smpquery -K -D portinfo $p 2>&1 | pi_field Mkey)
	[ "$mk" = 0x0000000000000000 ] || fail "DR $p: M_Key '$mk' shown without the key at level 1"
	mk=$(pq $p Mkey)
	[ "$((mk))" = "$((KEY))" ] || fail "DR $p: M_Key $mk with the key"
done
[ "$(mkey_stat "$T/rogue.stats" hidden)" -gt 0 ] || fail "the rogue's device hid no key"
log "level 1: M_Key 0 without the key, $KEY with it"
osm_stop

# ---- 4. the lease
osm_start 2 2
[ "$(pq $SW2 MkeyLeasePeriod)" = 2 ] || fail "sw2: MkeyLeasePeriod not 2"
osm_stop
e0=$(mkey_stat "$T/rogue.stats" lease_expiries)
obs smpquery -K -t 200 -D portinfo $SW2 >"$T/get.out" 2>&1 &&
    fail "sw2 answered a Get without the key at level 2: $(cat "$T/get.out")"
sleep 2.5
obs smpquery -K -D portinfo $SW2 >"$T/get.out" 2>&1 ||
    fail "sw2 still protected after its lease: $(cat "$T/get.out")"
mk=$(pi_field Mkey <"$T/get.out")
pb=$(pi_field ProtectBits <"$T/get.out")
log "after the lease: a Get without the key shows M_Key $mk, ProtectBits $pb"
[ "$((mk))" = "$((KEY))" ] && [ "$pb" = 0 ] || fail "sw2 after the lease: M_Key $mk ProtectBits $pb"
[ "$(mkey_stat "$T/rogue.stats" lease_expiries)" -gt "$e0" ] || fail "no lease expiry counted"
log "ok"
