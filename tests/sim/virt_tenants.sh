#!/bin/bash
# Tenants stay apart on vSwitch adapters (issue 23 point 5): a VM's
# partitions go to its own VPortPKeyTable and to the switch port facing its
# host (what enforcement must let through), not to the hypervisor's
# physical port, which gets only the keys partitions.conf gives it. Two
# simulated adapters (tests/fixture/vdev) on slowlink_ft2: h1 runs VM1
# (tenant1) and VM2 (tenant2), h2 runs VM3 (tenant1); every port is a
# limited member of Default. Read from the fabric:
#   - h1's P_Key table (smpquery) holds neither tenant's key, the switch
#     port facing h1 holds both in full, each VM's own table its tenant's;
#   - saquery PathRecords (by GID): none from the hypervisor h1 to VM1 or
#     VM2, none from h2 to VM3, none between VM1 and VM2 (two tenants on
#     one host), one between VM1 and VM3 (one tenant, two hosts) with
#     tenant1's key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

VM1=0x0002c90300ff0001
VM2=0x0002c90300ff0002
VM3=0x0002c90300ff0003
printf '%s\n' "Default=0x7fff, ipoib : ALL=limited, SELF=full ;" \
    "tenant1=0x0101 : $VM1=full, $VM3=full ;" \
    "tenant2=0x0102 : $VM2=full ;" >"$T/partitions.conf"

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 2
vdev_start h2 -v 2
vdev_cmd h1 vport 1 up "$VM1" lidreq >/dev/null || fail "VM1 did not start"
vdev_cmd h1 vport 2 up "$VM2" lidreq >/dev/null || fail "VM2 did not start"
vdev_cmd h2 vport 1 up "$VM3" lidreq >/dev/null || fail "VM3 did not start"
sm_start --virtualization enabled -P "$T/partitions.conf"
wait_subnet_up 60
running() {
	[ "$(vdev_field h1 1 state)" = active ] && [ "$(vdev_field h1 2 state)" = active ] &&
	    [ "$(vdev_field h2 1 state)" = active ]
}
poll_until 30 running >/dev/null || fail "VMs not ACTIVE"

# ---- P_Key tables (h1 is leaf0's port 2; the SM's h0 its port 1)
# keys SMPQUERY-ARGS: the non-empty entries smpquery pkeys reads
keys() { diag smpquery pkeys "$@" 2>/dev/null | grep -o '0x[0-9a-f]\{4\}' | grep -v '^0x0000$' | tr '\n' ' '; }
h1pk=$(keys -D 0,1,2)
swpk=$(keys -D 0,1 2)
[ -n "$h1pk" ] && [ -n "$swpk" ] || fail "smpquery pkeys failed: h1 '$h1pk', leaf0 port 2 '$swpk'"
case $h1pk in *0x8101*|*0x0101*|*0x8102*|*0x0102*) fail "hypervisor h1's port holds a tenant key: $h1pk" ;; esac
case $swpk in *0x8101*) ;; *) fail "the switch port facing h1 lacks tenant1 (0x8101): $swpk" ;; esac
case $swpk in *0x8102*) ;; *) fail "the switch port facing h1 lacks tenant2 (0x8102): $swpk" ;; esac
case $(vdev_field h1 1 pkeys) in *0x8101*) ;; *) fail "VM1's table lacks tenant1: $(vdev_field h1 1 pkeys)" ;; esac
case $(vdev_field h1 1 pkeys) in *0x8102*|*0x0102*) fail "VM1's table holds tenant2: $(vdev_field h1 1 pkeys)" ;; esac
case $(vdev_field h1 2 pkeys) in *0x8102*) ;; *) fail "VM2's table lacks tenant2: $(vdev_field h1 2 pkeys)" ;; esac
log "P_Keys: h1 [$h1pk], leaf0 port 2 [$swpk], VM1 $(vdev_field h1 1 pkeys), VM2 $(vdev_field h1 2 pkeys)"

# ---- PathRecords
gid() { printf 'fe80::%x:%x:%x:%x' $(( ($1 >> 48) & 0xffff )) $(( ($1 >> 32) & 0xffff )) $(( ($1 >> 16) & 0xffff )) $(( $1 & 0xffff )); }
# pkey_of SGUID DGUID: the P_Key of saquery's PathRecord, empty if none
pkey_of() {
	diag saquery -p --sgid-to-dgid "$(gid "$1")-$(gid "$2")" 2>/dev/null |
	    sed -n 's/^[[:space:]]*pkey\.*//p' | head -1
}
H1=$(vdev_field h1 0 guid)
H2=$(vdev_field h2 0 guid)
for pair in "$H1 $VM1 hypervisor h1 -> VM1" "$H1 $VM2 hypervisor h1 -> VM2" \
    "$VM1 $H1 VM1 -> hypervisor h1" "$H2 $VM3 hypervisor h2 -> VM3" \
    "$VM1 $VM2 VM1 (tenant1) -> VM2 (tenant2)" "$VM2 $VM3 VM2 (tenant2) -> VM3 (tenant1)"; do
	set -- $pair
	s=$1 d=$2
	shift 2
	k=$(pkey_of "$s" "$d")
	[ -z "$k" ] || fail "$*: a PathRecord with P_Key $k"
done
k=$(pkey_of "$VM1" "$VM3")
[ "$(( k ))" = $((0x8101)) ] || fail "VM1 -> VM3 (tenant1 on two hosts): P_Key '$k', want 0x8101"
log "PathRecords: none from a hypervisor to its VMs or between tenants; VM1 -> VM3 with $k"
log "PASS"
