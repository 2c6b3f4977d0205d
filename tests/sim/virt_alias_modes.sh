#!/bin/bash
# VF alias GUIDs are served in every virtualization mode (issue 23 point
# 2): alias GUIDs need no vport support, and a ConnectX-3 VF stays down
# until the SM grants its GUID, so replacing OpenSM (which serves them
# unconditionally) at default settings must not take VFs down.
# On slowlink_ft2 with a simulated alias-capable adapter on h1
# (tests/fixture/vdev), for ibsmd with virtualization off (the default),
# disabled and enabled, then for OpenSM: h1's driver asks for alias GUIDs at
# indices 1 and 2 (GUIDInfoRecord Set with 0, as mlx4 sends it): both are
# granted, distinct, and smpquery reads them from the adapter (the SM
# programmed it); a Get reports them; a Delete of index 2 clears it on
# the adapter. ClassPortInfo says IsAdditionalGUIDsSupported (bit 5) in
# every mode.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }
# device LID: h1's GUIDInfo indices 0-2 as smpquery reads them (two a line)
device() {
	diag smpquery GI "$1" 2>/dev/null | awk '$1 ~ /:$/ { i = $1 + 0
	    for (k = 2; k <= NF; k++) g[i + k - 2] = $k }
	    END { print g[0], g[1], g[2] }'
}

run() {
	local who=$1 out g1 g2 lid i
	shift
	sim_start "$FABRICS/slowlink_ft2.net" >/dev/null
	vdev_start h1 -g 32 >/dev/null
	rm -rf "$T/state" "$T/run"
	SM=$who sm_start "$@" >/dev/null
	SM=$who wait_subnet_up 60 >/dev/null
	sleep 1
	lid=$(SIM_HOST=h1 diag smpquery -D portinfo 0 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
	[ -n "$lid" ] && [ "$lid" != 0 ] || fail "$who $*: h1 has no LID"
	if [ "$who" = ibsmd ]; then
		out=$(SIM_HOST=h1 diag saquery -c 2>/dev/null)
		[ $(( $(val "$out" 'Capability mask 2') & 0x20 )) != 0 ] ||
		    fail "$who $*: ClassPortInfo CapabilityMask2 without bit 5 (alias GUIDs): $out"
	fi
	out=$(guidreq h1 set 0 1=0 2=0) || fail "$who $*: GUIDInfoRecord Set (exit $?): $out"
	g1=$(printf '%s\n' "$out" | awk '$1 == 1 { print $2 }')
	g2=$(printf '%s\n' "$out" | awk '$1 == 2 { print $2 }')
	[ -n "$g1" ] && [ "$((g1))" != 0 ] && [ -n "$g2" ] && [ "$((g2))" != 0 ] && [ "$g1" != "$g2" ] ||
	    fail "$who $*: alias GUIDs not granted: $out"
	i=0
	until [ "$(device "$lid")" = "$(printf '0x%016x' 0x100004) $g1 $g2" ]; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "$who $*: h1's adapter holds '$(device "$lid")', not $g1 $g2"
		sleep 0.25
	done
	out=$(guidreq h1 get 0) || fail "$who $*: GUIDInfoRecord Get (exit $?): $out"
	printf '%s\n' "$out" | grep -qx "2 $g2" || fail "$who $*: Get does not report $g2: $out"
	out=$(guidreq h1 delete 0 2="$g2") || fail "$who $*: GUIDInfoRecord Delete (exit $?): $out"
	i=0
	until [ "$(device "$lid")" = "$(printf '0x%016x' 0x100004) $g1 0x0000000000000000" ]; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "$who $*: after the Delete h1's adapter holds '$(device "$lid")'"
		sleep 0.25
	done
	log "$who $*: alias GUIDs $g1 $g2 granted and on the adapter; index 2 deleted"
	SM=$who sm_stop >/dev/null
	vdev_stop h1
	sim_stop >/dev/null
}

run ibsmd --virtualization off
run ibsmd --virtualization disabled
run ibsmd --virtualization enabled
if command -v opensm >/dev/null; then
	run opensm
else
	log "opensm not installed: the OpenSM run skipped"
fi
log "PASS"
