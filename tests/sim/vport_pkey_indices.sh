#!/bin/bash
# VPortPKeyTable indices never move for a key that stays (issue 23 point
# 3, vports): running QPs hold P_Key indices, so a key moved to another
# index makes a VM send with another partition's key. One simulated
# vSwitch adapter (tests/fixture/vdev) on slowlink_ft2, h1 with VM1:
# a reload adds zz=0x0005 (VM1 full: [0xffff, 0x8005]); a second reload
# adds aa=0x0004 ABOVE zz in the file (the running daemon keeps zz's
# index: [0xffff, 0x8005, 0x8004]). Then ibsmd restarts with VM1 running:
# VM1's table is the same (vdev dump) and no VPortPKeyTable Set reached
# h1 (the device's counters).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
[ "$SM" = ibsmd ] || skip "reload through ibsmctl is ibsmd's"
IBSMCTL=${IBSMCTL:-./ibsmctl}

VM1=0x0002c90300ab0001
P=$T/partitions.conf
printf '%s\n' "Default=0x7fff, ipoib : ALL=full ;" >"$P"
reload() { "$IBSMCTL" --runtime-dir "$T/run" reload >"$T/reload.out" 2>&1 8>&- ||
    fail "ibsmctl reload: $(cat "$T/reload.out")"; }
want_pk() {
	local i=0
	until [ "$(vdev_field h1 1 pkeys)" = "$1" ]; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "$2: VM1's table reads '$(vdev_field h1 1 pkeys)', want '$1'"
		sleep 0.25
	done
}

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 2
vdev_cmd h1 vport 1 up "$VM1" lidreq >/dev/null || fail "VM1 did not start"
sm_start --virtualization enabled -P "$P"
wait_subnet_up 60
want_pk "0:0xffff" "start"
printf 'zz=0x0005 : %s=full ;\n' "$VM1" >>"$P"
reload
want_pk "0:0xffff,1:0x8005" "zz added"
printf '%s\n' "Default=0x7fff, ipoib : ALL=full ;" "aa=0x0004 : $VM1=full ;" \
    "zz=0x0005 : $VM1=full ;" >"$P"
reload
want_pk "0:0xffff,1:0x8005,2:0x8004" "aa added above zz"
log "reloads: VM1 [0:0xffff,1:0x8005,2:0x8004] (aa, above zz in the file, took the free index)"
sm_stop

vdev_cmd h1 counters reset >/dev/null
sm_start --virtualization enabled -P "$P"
wait_subnet_up 60
sleep 2
[ "$(vdev_field h1 1 state)" = active ] || fail "VM1 not ACTIVE after the restart"
want_pk "0:0xffff,1:0x8005,2:0x8004" "after a restart"
n=$(vdev_cmd h1 counters | awk '$1 == "smp" && $2 == "0xffb6" { print $6 }')
[ "${n:-0}" = 0 ] || fail "the restart wrote $n VPortPKeyTable blocks on an unchanged fabric"
log "restart: VM1's keys at their indices, 0 VPortPKeyTable blocks written"
log "PASS"
