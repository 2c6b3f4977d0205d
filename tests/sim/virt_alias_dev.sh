#!/bin/bash
# VF alias GUIDs end to end on a simulated alias-capable HCA
# (tests/fixture/vdev.c): h1's driver asks ibsmd's SA for 8 alias GUIDs
# with 0 (guidreq, as mlx4 does), gets 8 distinct ones, and smpquery reads
# them from the device (ibsmd programmed it with GUIDInfo Set); a restart
# of ibsmd and a Delete + Set give the same ones back; a GUID in use (h1's
# own port GUID, or h2's) is refused with 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

H1=0,1,2
# guids OUT: the 8 GUIDs of a guidreq answer, one line
guids() { printf '%s\n' "$1" | awk '$1 ~ /^[0-7]$/ { printf "%s ", $2 }'; }
# device BLOCK: what h1's device holds in GUIDInfo block BLOCK, as smpquery reads it
device() {
	diag smpquery -D GI $H1 2>/dev/null |
	    awk -v b="$1" '$1 ~ /:$/ { i = substr($1, 1, length($1) - 1) + 0;
	        if (i >= b * 8 && i < b * 8 + 8) printf "%s %s ", $2, $3 }'
}
wait_device() { # BLOCK WANT
	local i got
	for i in $(seq 1 40); do
		got=$(device "$1")
		[ "$got" = "$2" ] && return 0
		sleep 0.5
	done
	fail "device block $1 reads '$got', want '$2'"
}

sim_start "$FABRICS/ft2_8.net"
vdev_start h1 -g 32
sm_start --virtualization enabled
wait_subnet_up 60

# 8 alias GUIDs: indices 1-7 of block 0 and 0 of block 1 (the mlx4 layout:
# index n = VF n)
out0=$(guidreq h1 set 0 1=0 2=0 3=0 4=0 5=0 6=0 7=0) || fail "Set block 0: $out0"
out1=$(guidreq h1 set 1 0=0) || fail "Set block 1: $out1"
b0=$(guids "$out0")
b1=$(guids "$out1")
log "block 0: $b0"
log "block 1: $b1"
all=$(printf '%s\n' $b0 ${b1%% *} | sed 1d)
[ "$(printf '%s\n' $all | grep -vc '^0x0000000000000000$')" = 8 ] ||
    fail "not 8 non-zero alias GUIDs: $all"
[ "$(printf '%s\n' $all | sort -u | wc -l)" = 8 ] || fail "alias GUIDs not distinct: $all"
wait_device 0 "$b0"
wait_device 1 "$b1"

# a restart gives the same ones (and the device keeps them)
sm_stop
sm_start --virtualization enabled
wait_subnet_up 60
out=$(guidreq h1 set 0 1=0 2=0 3=0 4=0 5=0 6=0 7=0) || fail "Set after restart: $out"
[ "$(guids "$out")" = "$b0" ] || fail "after a restart: $(guids "$out"), before: $b0"
wait_device 0 "$b0"

# Delete + Set: the same GUID again
g3=$(printf '%s\n' $b0 | sed -n 4p)
out=$(guidreq h1 delete 0 3="$g3") || fail "Delete: $out"
[ "$(printf '%s\n' "$out" | awk '$1 == 3 { print $2 }')" = 0x0000000000000000 ] ||
    log "Delete answer keeps index 3: $(guids "$out")"
wait_device 0 "$(printf '%s\n' "$b0" | awk '{ $4 = "0x0000000000000000"; printf "%s ", $0 }' | sed 's/  *$/ /')"
out=$(guidreq h1 set 0 3=0) || fail "Set after Delete: $out"
[ "$(printf '%s\n' "$out" | awk '$1 == 3 { print $2 }')" = "$g3" ] ||
    fail "Set after Delete gave $(printf '%s\n' "$out" | awk '$1 == 3 { print $2 }'), want $g3"
wait_device 0 "$b0"

# a GUID in use anywhere is refused with 0: h2's port GUID, and alias 1
h2guid=$(diag smpquery -D nodeinfo 0,1,3 | sed -n 's/^PortGuid:\.*//p')
out=$(guidreq h1 set 1 1="$h2guid" 2="$(printf '%s\n' $b0 | sed -n 2p)")
[ "$(guids "$out" | awk '{ print $2, $3 }')" = "0x0000000000000000 0x0000000000000000" ] ||
    fail "GUIDs in use not refused: $(guids "$out")"
wait_device 1 "$b1"
log "PASS"
