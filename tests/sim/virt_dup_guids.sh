#!/bin/bash
# No duplicate GIDs (issue 23 point 6), on simulated adapters h1 and h2
# (tests/fixture/vdev: vports and an alias GUID table each), ibsmd with
# virtualization enabled:
#   1. a VM runs on h1 vport 1 with GUID VM1: h1's driver asking for VM1
#      as an alias GUID (GUIDInfoRecord Set) is refused (0 at the index);
#   2. an alias GUID A is assigned to h1; a VM that starts on h2 with A as
#      its vport GUID is left down (never brought to ACTIVE, no LID)
#      while a VM with a GUID of its own on h2 vport 2 comes up;
#   3. A joins IPoIB's broadcast group (an MCMemberRecord join with A's
#      GID, as a VF's IPoIB does): deleting A is refused (status 0x0700,
#      as OpenSM); after its leave the Delete succeeds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
: "${MCJOIN:=$PWD/tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"

VM1=0x0002c90300aa0001
VM2=0x0002c90300aa0002
status_of() { printf '%s\n' "$1" | sed -n 's/^status[= ]\(0x[0-9a-f]*\).*/\1/p' | head -1; }
idx() { printf '%s\n' "$1" | awk -v i="$2" '$1 == i { print $2 }'; }

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 4 -g 32
vdev_start h2 -v 4 -g 32
vdev_cmd h1 vport 1 up "$VM1" >/dev/null || fail "VM1 on h1 did not start"
sm_start --virtualization enabled
wait_subnet_up 60
i=0
until [ "$(vdev_field h1 1 state)" = active ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "VM1 on h1 vport 1 never ACTIVE: $(vdev_cmd h1 dump | grep '^vport 1 ')"
	sleep 0.25
done

# ---- 1. an alias GUID equal to a running VM's GUID
out=$(guidreq h1 set 0 1="$VM1")
[ "$(idx "$out" 1)" = 0x0000000000000000 ] ||
    fail "alias GUID $VM1 (VM1's vport GUID) granted to h1: $out"
log "1. an alias request for a running VM's GUID: refused"

# ---- 2. a VM with an assigned alias GUID as its vport GUID
out=$(guidreq h1 set 0 2=0) || fail "GUIDInfoRecord Set: $out"
A=$(idx "$out" 2)
[ -n "$A" ] && [ "$((A))" != 0 ] || fail "no alias GUID for h1 index 2: $out"
vdev_cmd h2 vport 1 up "$A" >/dev/null || fail "the VM with GUID $A did not start on h2"
vdev_cmd h2 vport 2 up "$VM2" >/dev/null || fail "VM2 did not start on h2"
vdev_cmd h2 trap 1146 >/dev/null
i=0
until [ "$(vdev_field h2 2 state)" = active ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "VM2 on h2 vport 2 never ACTIVE"
	sleep 0.25
done
sleep 1
[ "$(vdev_field h2 1 state)" != active ] && [ "$(( $(vdev_field h2 1 lid) ))" = 0 ] ||
    fail "the VM whose vport GUID is h1's alias $A was brought up: $(vdev_cmd h2 dump | grep '^vport 1 ')"
log "2. a VM with alias GUID $A as its vport GUID: left down, no LID; VM2 beside it ACTIVE"

# ---- 3. an alias that is a multicast member
BC=ff12:401b:ffff::ffff:ffff
out=$(SIM_HOST=h1 diag "$MCJOIN" join "$BC" 1 pkey=0xffff port="$A" 2>/dev/null)
[ "$(printf '%s' "$out" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p')" = 0x0000 ] ||
    fail "alias GUID $A's join of the broadcast group: $out"
# the multicast tree reaches the alias's physical port (h1)
mlid=$(printf '%s\n' "$out" | sed -n 's/.*mlid=\(0x[0-9a-fA-F]*\).*/\1/p' | head -1)
poll_until 10 diag python3 "$TOP_SRCDIR/tests/sim/mcastcheck.py" --mlid "$mlid" --recv h1 >"$T/mc.out" ||
    fail "the broadcast group's tree (MLID $mlid) does not reach h1, whose alias $A joined: $(cat "$T/mc.out")"
out=$(guidreq h1 delete 0 2="$A")
[ "$(status_of "$out")" = 0x0700 ] || fail "Delete of alias $A, a multicast member: $out"
out=$(SIM_HOST=h1 diag "$MCJOIN" leave "$BC" 1 port="$A" 2>/dev/null)
[ "$(printf '%s' "$out" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p')" = 0x0000 ] ||
    fail "alias GUID $A's leave: $out"
out=$(guidreq h1 delete 0 2="$A") || fail "Delete of alias $A after its leave: $out"
log "3. an alias joined: the tree reaches its port; deleting it while a member: 0x0700; after its leave: done"
log "PASS"
