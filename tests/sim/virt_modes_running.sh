#!/bin/bash
# Each virtualization mode started on a fabric where VMs are already
# running (issue 23 point 4): no mode leaves a VM up and unrouted that it
# or an earlier run of ibsmd saw (`off` sends no vport attribute: VMs only
# another SM saw are invisible to it, documented in ibsmd.conf(5)).
# Two simulated vSwitch adapters (tests/fixture/vdev) on slowlink_ft2: on h1
# VM A (LIDRequired) and VM B (no LIDRequired: h1's LID), on h2 VM C
# (LIDRequired); A and C share a tenant partition.
#   - enabled brings them up: A and C with LIDs of their own, forwarded
#     (dump_fts) in every switch as their physical ports' LIDs;
#   - disabled, restarted with them running and a new VM D (h1 vport 3) in
#     INIT: A and C stay ACTIVE with their LIDs, still forwarded in every
#     switch, PathRecord A -> C (saquery); D stays in INIT without a LID;
#     no VPortInfo or VPortPKeyTable Set reaches h1 or h2;
#   - off, restarted with them running: no vport SMP at all reaches h1 or
#     h2, no port is given A's or C's LID (guid2lid keeps them), and A's
#     and C's LIDs forward in every switch as h1's and h2's (the vport LIDs
#     the disabled run saw up, remembered in state/vport_lids);
#   - enabled again: A and C keep their LIDs, D is brought up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

A=0x0002c90300ee0001
B=0x0002c90300ee0002
C=0x0002c90300ee0003
D=0x0002c90300ee0004
printf '%s\n' "Default=0x7fff, ipoib : ALL=full ;" \
    "tenant=0x0101 : $A=full, $C=full ;" >"$T/partitions.conf"

sim_start "$FABRICS/slowlink_ft2.net"
vdev_start h1 -v 3
vdev_start h2 -v 2
vdev_cmd h1 vport 1 up "$A" lidreq >/dev/null || fail "VM A did not start"
vdev_cmd h1 vport 2 up "$B" nolidreq >/dev/null || fail "VM B did not start"
vdev_cmd h2 vport 1 up "$C" lidreq >/dev/null || fail "VM C did not start"
phys_lid() { vdev_cmd "$1" dump | awk '$1 == "host" { print $10 }'; }
running() {
	[ "$(vdev_field h1 1 state)" = active ] && [ "$(vdev_field h1 2 state)" = active ] &&
	    [ "$(vdev_field h2 1 state)" = active ]
}
fts() { diag dump_fts >"$T/fts.txt" 2>/dev/null || fail "dump_fts failed"; }
# exits LID: "switch-guid:port" for LID in every switch of $T/fts.txt
exits() {
	awk -v lid="$1" '
	    function hex(s,   i, n) {
		n = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	    }
	    /^Unicast lids/ { sw = $0; sub(/.*guid /, "", sw); sub(/ .*/, "", sw) }
	    /^0x[0-9a-fA-F]+ [0-9]+/ && hex($1) == lid { print sw ":" $2 }
	' "$T/fts.txt" | sort
}
# routed VLID PLID WHAT: the vport LID forwards in every switch as its
# physical port's
routed() {
	local a b
	a=$(exits "$1")
	b=$(exits "$2")
	[ -n "$b" ] || fail "$3: its port's LID $2 is in no LFT"
	[ "$a" = "$b" ] || fail "$3: LID $1 forwards as [$(echo $a)], its port's LID $2 as [$(echo $b)]"
}
vsets() {
	vdev_cmd "$1" counters | awk '$1 == "smp" && ($2 == "0xffb1" || $2 == "0xffb6") { s += $6 } END { print s + 0 }'
}

# ---- enabled: the VMs come up
sm_start --virtualization enabled -P "$T/partitions.conf"
wait_subnet_up 60
poll_until 30 running >/dev/null || fail "enabled: VMs not ACTIVE: $(vdev_cmd h1 dump | grep '^vport') $(vdev_cmd h2 dump | grep '^vport')"
LA=$(vdev_field h1 1 lid)
LC=$(vdev_field h2 1 lid)
P1=$(phys_lid h1)
P2=$(phys_lid h2)
[ "$LA" != 0 ] && [ "$LA" != "$P1" ] && [ "$LC" != 0 ] && [ "$LC" != "$P2" ] ||
    fail "enabled: A LID $LA (h1 $P1), C LID $LC (h2 $P2)"
fts
routed "$LA" "$P1" "enabled: VM A"
routed "$LC" "$P2" "enabled: VM C"
log "enabled: A LID $LA, B on h1's $P1, C LID $LC, forwarded as their ports'"

# ---- disabled, with the VMs running and a new one
sm_stop
vdev_cmd h1 vport 3 up "$D" lidreq >/dev/null || fail "VM D did not start"
vdev_cmd h1 counters reset >/dev/null
vdev_cmd h2 counters reset >/dev/null
sm_start --virtualization disabled -P "$T/partitions.conf"
wait_subnet_up 60
sleep 2
running || fail "disabled: a running VM changed state: $(vdev_cmd h1 dump | grep '^vport') $(vdev_cmd h2 dump | grep '^vport')"
[ "$(vdev_field h1 1 lid)" = "$LA" ] && [ "$(vdev_field h2 1 lid)" = "$LC" ] ||
    fail "disabled: VM LIDs changed: A $(vdev_field h1 1 lid), C $(vdev_field h2 1 lid)"
fts
routed "$LA" "$P1" "disabled: running VM A"
routed "$LC" "$P2" "disabled: running VM C"
out=$(diag saquery -p --src-to-dst "$LA:$LC" 2>/dev/null | sed -n 's/^[[:space:]]*dlid\.*//p')
[ "$out" = "$LC" ] || fail "disabled: no PathRecord from VM A ($LA) to VM C ($LC): '$out'"
[ "$(vdev_field h1 3 state)" = init ] && [ "$(vdev_field h1 3 lid)" = 0 ] ||
    fail "disabled: the new VM D was brought up: $(vdev_cmd h1 dump | grep '^vport 3 ')"
for h in h1 h2; do
	[ "$(vsets "$h")" = 0 ] || fail "disabled: vport Sets reached $h: $(vdev_cmd "$h" counters | tr '\n' ' ')"
done
log "disabled: A ($LA) and C ($LC) still ACTIVE and forwarded, PathRecord A -> C; D left in INIT; no vport written"

# ---- off, with the VMs running
sm_stop
vdev_cmd h1 counters reset >/dev/null
vdev_cmd h2 counters reset >/dev/null
sm_start -P "$T/partitions.conf"
wait_subnet_up 60
sleep 2
for h in h1 h2; do
	c=$(vdev_cmd "$h" counters | grep '^smp 0xffb')
	[ -z "$c" ] || fail "off: vport SMPs reached $h: $c"
done
lids=$(for l in $(diag saquery NR 2>/dev/null | sed -n 's/^[[:space:]]*lid\.*//p'); do
	printf '%d\n' "$l"; done | sort -un | tr '\n' ' ')
[ -n "$lids" ] || fail "off: no LIDs from saquery NodeRecords"
case " $lids " in *" $LA "*|*" $LC "*) fail "off: a port was given a VM's LID ($LA or $LC): $lids" ;; esac
fts
routed "$LA" "$P1" "off: running VM A (remembered)"
routed "$LC" "$P2" "off: running VM C (remembered)"
log "off: no vport SMP; VM LIDs $LA, $LC given to no port (ports: $lids) and forwarded as h1's and h2's (state/vport_lids of the disabled run)"

# ---- off, once more with the state directory's memory of the VMs gone:
# nothing tells ibsmd of them (the case documented in ibsmd.conf(5))
sm_stop
rm -f "$T/state/vport_lids"
sm_start -P "$T/partitions.conf"
wait_subnet_up 60
fts
[ -z "$(exits "$LA")" ] && [ -z "$(exits "$LC")" ] ||
    fail "off without vport_lids: VM LIDs still forwarded: A [$(exits "$LA" | tr '\n' ' ')], C [$(exits "$LC" | tr '\n' ' ')]"
log "off without vport_lids: A's and C's LIDs in no LFT (what ibsmd.conf(5) says of VMs it never saw)"

# ---- enabled again
sm_stop
sm_start --virtualization enabled -P "$T/partitions.conf"
wait_subnet_up 60
up_d() { running && [ "$(vdev_field h1 3 state)" = active ]; }
poll_until 30 up_d >/dev/null || fail "enabled again: VM D not brought up: $(vdev_cmd h1 dump | grep '^vport')"
[ "$(vdev_field h1 1 lid)" = "$LA" ] && [ "$(vdev_field h2 1 lid)" = "$LC" ] ||
    fail "enabled again: LIDs moved: A $(vdev_field h1 1 lid) (was $LA), C $(vdev_field h2 1 lid) (was $LC)"
log "enabled again: A and C keep $LA and $LC, D up with LID $(vdev_field h1 3 lid)"
log "PASS"
