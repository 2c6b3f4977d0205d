#!/bin/bash
# M_Key interop with OpenSM (issue 29 point 6): OpenSM and ibsmd with the
# same m_key at protection level 1, the simulated devices enforcing M_Key
# (tests/fixture/mkeyfix.c), on slowlink.net:
#  1. OpenSM (priority 5, h0) brings the subnet up; ibsmd (priority 12,
#     h1) joins and OpenSM hands the subnet over to it.
#  2. A second OpenSM (priority 14, h2) joins: ibsmd hands over to it.
#  3. That OpenSM is stopped: ibsmd takes over.
#  4. ibsmd is stopped; a third OpenSM (h2) takes the subnet ibsmd
#     protected over.
# After each step the fabric is right (fabcheck, naming the master), and
# no SM, OpenSM or ibsmd, had a single SMP dropped for its key (each
# process's fixture counts, at exit).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
command -v opensm >/dev/null || skip "opensm not installed"

KEY=0x0123456789abcdef
sim_start "$FABRICS/slowlink.net"
mkey_enforce

# osm NAME HOST PRIORITY: OpenSM with the key, polling every 0.5 s
osm() {
	local name=$1 host=$2 pid
	mkdir -p "$T/$name/state"
	cat >"$T/$name/opensm.conf" <<EOF2
m_key $KEY
m_key_protection_level 1
m_key_lease_period 60
sm_priority $3
sminfo_polling_timeout 500
polling_retry_number 2
EOF2
	SIM_HOST=$host OSM_CACHE_DIR=$T/$name/state OSM_TMP_DIR=$T/$name/state \
	    UMADFIX_STATS=$T/$name.stats UMADFIX_DEBUG=${OSM_DEBUG:-} LD_PRELOAD=$SIM_PRELOAD \
	    opensm -F "$T/$name/opensm.conf" -d2 -f "$T/$name.log" \
	    --dump_files_dir "$T/$name/state" >>"$T/$name.out" 2>&1 8>&- &
	pid=$!
	_track "$pid"
	eval "HA_PID_$name=$pid"
	HA_NAMES="$HA_NAMES $name"
	log "$name: opensm on $host (pid $pid), priority $3"
}
guid_of() { ha_port "$1" | awk '{ print $1 }'; }

osm o1 h0 5
ha_wait_opensm_up o1 60
cat >"$T/i.conf" <<EOF2
m_key: $KEY
m_key_protect_bits: 1
m_key_lease_period: 60
sm_poll_interval: 0.5
sm_poll_retries: 3
EOF2
UMADFIX_STATS=$T/i.stats UMADFIX_DEBUG=${I_DEBUG:-} ha_start i h1 -p 12
ha_wait_state i MASTER 60
ha_wait_up i 60
[ "$(ha_status i sm handovers_taken)" = 1 ] ||
    fail "ibsmd took $(ha_status i sm handovers_taken) handovers from OpenSM"
poll_until 30 fabcheck --sm-guid "$(guid_of h1)" >/dev/null ||
    fail "fabric wrong after OpenSM handed over to ibsmd"
log "1. OpenSM handed the protected subnet over to ibsmd"
ha_kill o1 TERM

osm o2 h2 14
poll_until 60 sh -c "grep -q 'SUBNET UP' '$T/o2.log'" || fail "the second OpenSM never brought the subnet up"
ha_wait_state i STANDBY 60
poll_until 30 fabcheck --sm-guid "$(guid_of h2)" >/dev/null ||
    fail "fabric wrong after ibsmd handed over to OpenSM"
log "2. ibsmd handed the protected subnet over to OpenSM"

ha_kill o2 TERM
ha_wait_state i MASTER 60
poll_until 30 fabcheck --sm-guid "$(guid_of h1)" >/dev/null ||
    fail "fabric wrong after ibsmd took over from OpenSM"
log "3. ibsmd took the protected subnet over from a stopped OpenSM"

ha_kill i TERM
osm o3 h2 1
poll_until 60 sh -c "grep -q 'SUBNET UP' '$T/o3.log'" || fail "the third OpenSM never took the subnet over"
poll_until 30 fabcheck --sm-guid "$(guid_of h2)" >/dev/null ||
    fail "fabric wrong after OpenSM took over from ibsmd"
log "4. OpenSM took over the subnet ibsmd protected"
ha_stop_all
for n in o1 o2 o3 i; do
	[ "$(mkey_stat "$T/$n.stats" checked)" -gt 0 ] || fail "$n's fixture checked no SMP"
	for k in dropped_gets dropped_sets; do
		v=$(mkey_stat "$T/$n.stats" $k)
		[ "$v" = 0 ] || fail "$n had $v SMPs dropped for a wrong M_Key ($k)"
	done
done
log "no SMP of OpenSM or ibsmd was dropped for its key"
