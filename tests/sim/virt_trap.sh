#!/bin/bash
# Vendor trap 1144 (vport capability or description change, issue 12
# point 3): the hypervisor changes a running VM's VNodeDescription on the
# simulated device (tests/fixture/vdev) and sends trap 1144 for that vport;
# the SM's heavy sweep reads the new description, and both `ibsmctl
# vports` and saquery's NodeRecord of the vport's LID show it. Without the
# trap nothing changes (light sweeps read only VPortStateChange, which a
# description change does not latch): the sweep interval is long, so only
# the trap can bring the new text in. The same sweep reads the vport's
# VPortGUIDInfo (VGUIDCap 2 here): a GUID the hypervisor put at index 1
# shows in saquery's GUIDInfoRecord of the vport LID.
# VClientReregister: VirtualizationInfo's bit is set once per host per
# mastership (cleared by the test, a heavy sweep leaves it clear, a restart
# of the SM sets it again); VPortClientReregister goes with each vport's
# ACTIVE. The routing report and the stats file count the vport LIDs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
[ "$SM" = ibsmd ] || skip "vports are ibsmd's"
: "${IBSMCTL:=./ibsmctl}"

vguid() { printf '0x00c0ffee%04x%04x' "${1#h}" "$2"; }

sim_start "$FABRICS/ft2_8.net"
vdev_start h1 -v 2 -G 2
for i in 1 2; do
	vdev_cmd h1 vport "$i" up "$(vguid h1 "$i")" lidreq >/dev/null ||
	    fail "vport h1/$i up"
done
active() {
	local i
	for i in 1 2; do
		[ "$(vdev_field h1 "$i" state)" = active ] || return 1
	done
}
sm_start --virtualization enabled -s 600
wait_subnet_up 90
poll_until 30 active >/dev/null || fail "vports not ACTIVE: $(vdev_cmd h1 dump)"
lid=$(vdev_field h1 1 lid)
[ "$lid" != 0 ] || fail "h1/1 has no LID"

# fld TEXT NAME: the value of saquery's "name.....value" line
fld() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.]*[[:space:]]*//p" | head -1; }
nr_desc() { fld "$(diag saquery NR "$lid" 2>/dev/null)" NodeDescription; }
ctl_desc() { "$IBSMCTL" -r "$T/run" vports 2>/dev/null | grep "$(vguid h1 "$1") " | sed 's/.*"\(.*\)"$/\1/'; }

[ "$(nr_desc)" = "h1 vport 1" ] || fail "NodeRecord of LID $lid: description $(nr_desc), not 'h1 vport 1'"
[ "$(ctl_desc 1)" = "h1 vport 1" ] || fail "ibsmctl vports: h1/1 described as '$(ctl_desc 1)'"

# VClientReregister after the bring-up: host-wide and per vport
host_rereg() { vdev_cmd h1 dump | awk '$1 == "virt" { for (i = 2; i < NF; i++) if ($i == "clientrereg") print $(i + 1) }'; }
[ "$(host_rereg)" = 1 ] || fail "VirtualizationInfo.VClientReregister not set at bring-up: $(vdev_cmd h1 dump)"
for i in 1 2; do
	[ "$(vdev_field h1 "$i" rereg)" = 1 ] || fail "h1/$i: VPortClientReregister not set with ACTIVE"
done
# the SM's own INIT -> ARMED -> ACTIVE writes latched VPortStateChange;
# the SM cleared it after them (VirtualizationInfo Set), so the next
# light sweep's poll sees only real changes
host_change() { vdev_cmd h1 dump | awk '$1 == "virt" { for (i = 2; i < NF; i++) if ($i == "statechange") print $(i + 1) }'; }
[ "$(host_change)" = 0 ] || fail "VPortStateChange still latched after bring-up: $(vdev_cmd h1 dump)"
[ "$(stat_get vports.last_program.rereg_hosts)" = 1 ] || fail "stats: vports.rereg_hosts $(stat_get vports.last_program.rereg_hosts), not 1"
# the routing report counts the 2 vport LIDs
[ "$(stat_get routing.vport_lids)" = 2 ] || fail "stats: routing_vport_lids $(stat_get routing.vport_lids), not 2"
[ "$(stat_get routing.vport_entries)" -gt 0 ] || fail "stats: no routing_vport_entries"
out=$("$IBSMCTL" -r "$T/run" status 2>&1)
printf '%s\n' "$out" | grep -qx '  vport_lids: 2' ||
    fail "ibsmctl status: no vport LID count in the routing report: $out"
hlid=$(vdev_cmd h1 dump | awk '$1 == "host" { print $10 }')
# the test clears the host's bit (VirtualizationInfo Set: cap 2, top 2)
smpset -L "$hlid" 0xffb0 0 "0002000200000000" >/dev/null || fail "VirtualizationInfo Set"
[ "$(host_rereg)" = 0 ] || fail "could not clear VClientReregister: $(vdev_cmd h1 dump)"
# a second GUID of vport 1 (VPortGUIDInfo block 0 of vport 1: modifier
# 1 << 16, the vdev's and ibsmd's UNCONFIRMED encoding)
smpset -L "$hlid" 0xffb5 0x10000 "00c0ffee00010001 00c0ffee0001aaaa" >/dev/null ||
    fail "VPortGUIDInfo Set"
heavy0=$(stat_get sweep.heavy_sweeps)

# The hypervisor renames the VM; no trap yet: nothing may change.
vdev_cmd h1 vport 1 desc vm-blue-01 tenant 7 >/dev/null || fail "vport 1 desc"

sleep 3
[ "$(nr_desc)" = "h1 vport 1" ] ||
    fail "the description changed without a trap: $(nr_desc) (is the sweep interval long?)"

# Trap 1144 for vport 1: a heavy sweep reads the new description.
vdev_cmd h1 trap 1144 1 >/dev/null || fail "vdev could not send trap 1144"
seen() { [ "$(nr_desc)" = "vm-blue-01 tenant 7" ] && [ "$(ctl_desc 1)" = "vm-blue-01 tenant 7" ]; }
poll_until 30 seen >/dev/null ||
    fail "after trap 1144: NodeRecord says '$(nr_desc)', ibsmctl '$(ctl_desc 1)', not 'vm-blue-01 tenant 7'"
[ "$(ctl_desc 2)" = "h1 vport 2" ] || fail "h1/2's description became '$(ctl_desc 2)'"
heavy1=$(stat_get sweep.heavy_sweeps)
[ "$heavy1" -gt "$heavy0" ] || fail "no heavy sweep counted after trap 1144 ($heavy0 -> $heavy1)"
# The vport stays up with the same LID (a description is no reason to move).
[ "$(vdev_field h1 1 state)" = active ] || fail "h1/1 not ACTIVE after the 1144 sweep"
[ "$(vdev_field h1 1 lid)" = "$lid" ] || fail "h1/1 LID $lid -> $(vdev_field h1 1 lid)"
# the heavy sweep read VPortGUIDInfo: GUIDInfoRecord shows entry 1
out=$(diag saquery GIR "$lid" 2>&1)
printf '%s\n' "$out" | grep -qi 00c0ffee0001aaaa ||
    fail "GUIDInfoRecord of LID $lid lacks VPortGUIDInfo entry 1 0x00c0ffee0001aaaa: $out"
# ...and did not set VClientReregister again within this mastership
[ "$(host_rereg)" = 0 ] || fail "VClientReregister set again by a heavy sweep of the same mastership"
log "trap 1144: NodeRecord of LID $lid and ibsmctl vports read 'vm-blue-01 tenant 7' ($heavy0 -> $heavy1 heavy sweeps)"

# A new mastership (restart): VClientReregister once more.
sm_stop
sm_start --virtualization enabled -s 600
wait_subnet_up 90
rereg_set() { [ "$(host_rereg)" = 1 ]; }
poll_until 30 rereg_set >/dev/null || true
[ "$(host_rereg)" = 1 ] || fail "VClientReregister not set by the new master: $(vdev_cmd h1 dump)"
log "VClientReregister: set at bring-up, not by a later heavy sweep, set again after a restart"
exit 0
