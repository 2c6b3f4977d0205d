#!/bin/bash
# The read-back guards of vport writes (issue 23 point 8): the vport
# attribute modifiers (vport << 16 | block, the vport index) are UNCONFIRMED
# against real adapters; if one is wrong, a Set meant for a VM could land
# on another vport or the PF. ibsmd reads vport 0's block before and after
# each VPortPKeyTable write and checks the Set's answer, and checks the
# VPortGUID of each VPortInfo Set's answer; anything but the target changed
# stops programming that host.
# Three simulated vSwitch adapters (tests/fixture/vdev): h1 faithful; h2
# with -P, its "firmware" putting every VPortPKeyTable Set on vport 0; h3
# with -I, every VPortInfo Set on vport 0 (as adapters with another encoding
# would). A partitions file gives each VM its own key. After bring-up, with
# a VM on each host:
#   - h1: its VM is ACTIVE with its P_Key table;
#   - h2: its VM is never brought to ARMED or ACTIVE; vport 0 shows the
#     one write that landed on it;
#   - h3: VPortInfo Sets reached it and its VM holds no LID (they landed
#     on vport 0); once vport 0's LID is its port's again (put back by
#     hand if a write left the VM's there), two heavy sweeps write no vport
#     attribute to h2 or h3 (the devices' SMP counters), and vport 0's LID
#     stays put.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
IBSMCTL=${IBSMCTL:-./ibsmctl}

VM1=0x0002c90300bb0001
VM2=0x0002c90300bb0002
VM3=0x0002c90300bb0003
cat >"$T/partitions.conf" <<EOF
Default=0x7fff, ipoib : ALL=full ;
tenant1=0x0101 : $VM1=full ;
tenant2=0x0102 : $VM2=full ;
tenant3=0x0103 : $VM3=full ;
EOF

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 2
vdev_start h2 -v 2 -P
vdev_start h3 -v 2 -I
vdev_cmd h1 vport 1 up "$VM1" >/dev/null || fail "VM1 did not start"
vdev_cmd h2 vport 1 up "$VM2" >/dev/null || fail "VM2 did not start"
vdev_cmd h3 vport 1 up "$VM3" >/dev/null || fail "VM3 did not start"
sm_start --virtualization enabled -P "$T/partitions.conf"
wait_subnet_up 60
i=0
until [ "$(vdev_field h1 1 state)" = active ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "VM1 on the faithful h1 never ACTIVE: $(vdev_cmd h1 dump | grep '^vport 1 ')"
	sleep 0.25
done
vdev_field h1 1 pkeys | grep -q "0x8101" || fail "VM1's table lacks its key: $(vdev_field h1 1 pkeys)"
heavy() {
	"$IBSMCTL" --runtime-dir "$T/run" sweep --heavy >/dev/null 8>&- || fail "ibsmctl sweep --heavy"
	sleep 2
}
heavy
st=$(vdev_field h2 1 state)
[ "$st" != active ] && [ "$st" != armed ] ||
    fail "VM2 on h2 (P_Key writes landing on vport 0) was brought to $st"
pf=$(vdev_field h2 0 pkeys)
printf '%s\n' "$pf" | grep -q "0x8102" || fail "h2's vport 0 does not show the write that landed on it: $pf (the fault was not exercised)"
s3=$(vdev_cmd h3 counters | awk '$1 == "smp" && $2 == "0xffb1" { print $6 }')
[ "${s3:-0}" -gt 0 ] || fail "no VPortInfo Set reached h3 (the fault was not exercised)"
[ "$(vdev_field h3 1 lid)" = 0 ] || fail "VM3 holds LID $(vdev_field h3 1 lid) although every VPortInfo Set lands on vport 0"
plid=$(vdev_field h3 0 lid)
h3lid=$(diag smpquery -G portinfo "$(vdev_field h3 0 guid)" 2>/dev/null | sed -n 's/^Lid:\.*//p')
[ -n "$h3lid" ] || fail "no LID for h3's port"
if [ "$plid" != "$h3lid" ]; then
	# an administrator puts vport 0's LID back (VPortLID, bytes 8-9)
	smpset -L "$h3lid" 0xffb1 0 "$(printf '0000000000000000%04x' "$h3lid")" >/dev/null ||
	    fail "smpset of h3's vport 0 LID: no answer"
	[ "$(vdev_field h3 0 lid)" = "$h3lid" ] || fail "h3's vport 0 LID not restored: $(vdev_field h3 0 lid)"
fi
vdev_cmd h2 counters reset >/dev/null
vdev_cmd h3 counters reset >/dev/null
heavy
heavy
for h in h2 h3; do
	sets=$(vdev_cmd $h counters | awk '$1 == "smp" && ($2 == "0xffb1" || $2 == "0xffb6") { s += $6 } END { print s + 0 }')
	[ "$sets" = 0 ] || fail "$h: $sets vport Sets after the guard stopped it: $(vdev_cmd $h counters | tr '\n' ' ')"
done
[ "$(vdev_field h3 0 lid)" = "$h3lid" ] || fail "h3's vport 0 LID written again: $(vdev_field h3 0 lid)"
st=$(vdev_field h3 1 state)
[ "$st" != active ] && [ "$st" != armed ] || fail "VM3 on h3 was brought to $st"
log "h1: VM1 ACTIVE with key 0x8101; h2: VM2 left $(vdev_field h2 1 state), vport 0 took $pf; h3: $s3 VPortInfo Sets, vport 0 LID was $plid (port $h3lid); then no vport Set to h2 or h3 in two heavy sweeps"
log "PASS"
