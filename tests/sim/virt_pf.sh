#!/bin/bash
# Vport 0, the physical function's own vport (issue 23 point 8). NVIDIA's
# layout of VirtualizationInfo says: with VirtualizationEnable set, vport 0
# has a PortState of its own; with it clear, virtualization is off and
# vport 0 is the physical port, tracking its PortState. Two simulated
# vSwitch adapters (tests/fixture/vdev) on slowlink_ft2:
#   - h1, VirtualizationEnable set, a VM on vport 1: after bring-up vport 0
#     is ACTIVE with its port's LID (it was left in INIT before), and the VM
#     is ACTIVE;
#   - h2, VirtualizationEnable clear (vdev -E): no VPortInfo or
#     VPortPKeyTable Set reaches it, at bring-up or in a heavy sweep (the
#     device's SMP counters), and ibsmd does not set the bit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
IBSMCTL=${IBSMCTL:-./ibsmctl}

VM1=0x0002c90300cc0001
sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 2
vdev_start h2 -v 2 -E
vdev_cmd h1 vport 1 up "$VM1" >/dev/null || fail "VM1 did not start"
sm_start --virtualization enabled
wait_subnet_up 60
plid=$(vdev_cmd h1 dump | awk '$1 == "host" { print $10 }')
[ -n "$plid" ] && [ "$plid" != 0 ] || fail "h1 has no LID"
i=0
until [ "$(vdev_field h1 0 state)" = active ] && [ "$(vdev_field h1 1 state)" = active ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "h1: vport 0 $(vdev_field h1 0 state), VM $(vdev_field h1 1 state) (both should be ACTIVE)"
	sleep 0.25
done
[ "$(vdev_field h1 0 lid)" = "$plid" ] || fail "h1 vport 0 LID $(vdev_field h1 0 lid), port LID $plid"
"$IBSMCTL" --runtime-dir "$T/run" sweep --heavy >/dev/null 8>&- || fail "ibsmctl sweep --heavy"
sleep 2
sets=$(vdev_cmd h2 counters | awk '$1 == "smp" && ($2 == "0xffb1" || $2 == "0xffb6") { s += $6 } END { print s + 0 }')
[ "$sets" = 0 ] || fail "h2 (virtualization off): $sets vport Sets: $(vdev_cmd h2 counters | tr '\n' ' ')"
vdev_cmd h2 dump | grep -q '^virt .* enable 0 ' || fail "h2's VirtualizationEnable was set: $(vdev_cmd h2 dump | grep '^virt')"
gets=$(vdev_cmd h2 counters | awk '$1 == "smp" && $2 == "0xffb0" { print $4 }')
[ "${gets:-0}" -gt 0 ] || fail "h2's VirtualizationInfo was never read (the case was not exercised)"
log "h1: vport 0 ACTIVE with LID $plid, VM ACTIVE; h2 (VirtualizationEnable clear): VirtualizationInfo read $gets times, no vport Set"
log "PASS"
