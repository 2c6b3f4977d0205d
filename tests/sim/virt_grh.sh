#!/bin/bash
# PathRecords to vports that share a LID carry a HopLimit above 1 (issue 23
# point 8): such a vport (no LIDRequired) answers to its PF's LID, and only
# the DGID of a GRH tells the adapter which function a packet is for; a
# PathRecord HopLimit above 1 makes clients build address handles with a
# GRH (NVIDIA's SM default for vport ends, virt_default_hop_limit, is 2).
# One simulated vSwitch adapter (tests/fixture/vdev) on slowlink_ft2, h1:
# VM A with LIDRequired (its own LID), VM B without (h1's LID). saquery
# PathRecords from h0 (by GIDs, both directions):
#   - to and from VM B: DLID (SLID) h1's LID, HopLimit 2;
#   - to VM A and to h1's port itself: HopLimit 0, as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

VMA=0x0002c90300dd0001
VMB=0x0002c90300dd0002
sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 3
vdev_cmd h1 vport 1 up "$VMA" lidreq >/dev/null || fail "VM A did not start"
vdev_cmd h1 vport 2 up "$VMB" nolidreq >/dev/null || fail "VM B did not start"
sm_start --virtualization enabled
wait_subnet_up 60
i=0
until [ "$(vdev_field h1 1 state)" = active ] && [ "$(vdev_field h1 2 state)" = active ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "VMs not ACTIVE: A $(vdev_field h1 1 state), B $(vdev_field h1 2 state)"
	sleep 0.25
done
h1lid=$(vdev_cmd h1 dump | awk '$1 == "host" { print $10 }')
h1guid=$(vdev_field h1 0 guid)
h0guid=$(diag smpquery -D nodeinfo 0 2>/dev/null | sed -n 's/^PortGuid:\.*//p')
[ -n "$h0guid" ] || fail "no port GUID for h0"
gid() { printf 'fe80::%x:%x:%x:%x' $(( ($1 >> 48) & 0xffff )) $(( ($1 >> 32) & 0xffff )) $(( ($1 >> 16) & 0xffff )) $(( $1 & 0xffff )); }
# pr SGUID DGUID: "dlid slid hop_limit" of saquery's PathRecord (empty:
# none); saquery prints HopLimit as the low byte of hop_flow_raw
pr() {
	diag saquery -p --sgid-to-dgid "$(gid "$1")-$(gid "$2")" 2>/dev/null |
	    awk -F. '/^[[:space:]]*dlid/ { d = $NF } /^[[:space:]]*slid/ { s = $NF }
	        /^[[:space:]]*hop_flow_raw/ { h = $NF } END { if (d != "") print d + 0, s + 0, h }' |
	    { read -r d s h && [ -n "$h" ] && echo "$d $s $((h & 0xff))"; }
}
b_to=$(pr "$h0guid" "$VMB")
b_from=$(pr "$VMB" "$h0guid")
a_to=$(pr "$h0guid" "$VMA")
pf_to=$(pr "$h0guid" "$h1guid")
[ -n "$b_to" ] && [ -n "$b_from" ] && [ -n "$a_to" ] && [ -n "$pf_to" ] ||
    fail "a PathRecord is missing: to B '$b_to', from B '$b_from', to A '$a_to', to h1 '$pf_to'"
set -- $b_to
[ "$1" = "$h1lid" ] && [ "$3" = 2 ] || fail "h0 -> VM B: DLID $1 (h1 $h1lid), HopLimit $3 (want 2)"
set -- $b_from
[ "$2" = "$h1lid" ] && [ "$3" = 2 ] || fail "VM B -> h0: SLID $2 (h1 $h1lid), HopLimit $3 (want 2)"
set -- $a_to
[ "$1" != "$h1lid" ] && [ "$3" = 0 ] || fail "h0 -> VM A: DLID $1 (h1 $h1lid), HopLimit $3 (want its own LID, 0)"
set -- $pf_to
[ "$1" = "$h1lid" ] && [ "$3" = 0 ] || fail "h0 -> h1: DLID $1, HopLimit $3 (want 0)"
log "VM B (h1's LID $h1lid): HopLimit 2 both ways; VM A (LID $(echo "$a_to" | cut -d' ' -f1)) and h1 itself: 0"
log "PASS"
