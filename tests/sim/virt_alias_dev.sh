#!/bin/bash
# VF alias GUIDs end to end on a simulated alias-capable HCA
# (tests/fixture/vdev.c). With virtualization off, the adapter gets no
# GUIDInfo SMP (its own counters); with enabled, discovery reads its 4
# blocks. h1's driver asks ibsmd's SA for 8 alias GUIDs
# with 0 (guidreq, as mlx4 does), gets 8 distinct ones, and smpquery reads
# them from the device (ibsmd programmed it with GUIDInfo Set); a restart
# of ibsmd and a Delete + Set give the same ones back; a GUID in use (h1's
# own port GUID, or h2's) is refused with 0.
# Then what discovery reads from the device (virtualization enabled): an
# alias GUID the device holds that ibsmd's store does not know (written by
# another hand, smpset) is adopted at the next heavy sweep (GUIDInfoRecord
# Get reports it, a Set of 0 there gives it); a host whose firmware
# restarted with an empty table gets it written back at the next heavy
# sweep. Then partitions naming alias GUIDs: their keys in h1's physical
# P_Key table (smpquery pkeys), =both and PF/VF memberships that differ
# giving both forms (--allow-both-pkeys), a partition naming a GUID not
# yet assigned getting its key once a Set assigns it and losing it after
# the Delete; h2's table gets none of them. Last, ibsmctl guids (text and
# --json), the alias_guids counters of status and the stats file.
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
# ---- virtualization off: no GUIDInfo reaches the adapter (two heavy sweeps)
gi_smps() { vdev_cmd h1 counters | awk '$1 == "smp" && $2 == "0xffbf" { n += $4 + $6 + $8 } END { print n + 0 }'; }
sm_start --virtualization off
wait_subnet_up 60
"${IBSMCTL:-./ibsmctl}" --runtime-dir "$T/run" sweep --heavy >/dev/null 8>&- || fail "ibsmctl sweep --heavy"
sleep 2
[ "$(gi_smps)" = 0 ] || fail "with virtualization off the adapter got $(gi_smps) GUIDInfo SMPs"
sm_stop
sm_start --virtualization enabled
wait_subnet_up 60
n=$(gi_smps)
[ "$n" -ge 4 ] || fail "with virtualization enabled discovery read $n GUIDInfo blocks, want 4 (GUIDCap 32)"
log "GUIDInfo SMPs the adapter got: none with off, $n with enabled"

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

: "${IBSMCTL:=./ibsmctl}"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
jget() { python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1:]: d = d[k]
print(d)' "$@"; }
hexblock() { printf '%s\n' "$@" | sed 's/^0x//' | tr -d '\n'; }

# ---- discovery reads the device: an entry the store does not know is adopted
ext=0x0002c9feedbe0005
blk=$(printf '%s\n' $b1 | awk -v g="$ext" 'NR == 6 { $0 = g } { print }')
out=$(smpset -D $H1 0x14 1 "$(hexblock $blk)") || fail "smpset GUIDInfo: $out"
blk=$(printf '%s ' $blk)
wait_device 1 "$blk"
ctl sweep --heavy >/dev/null || fail "ibsmctl sweep --heavy"
for i in $(seq 1 40); do
	out=$(guidreq h1 get 1) || fail "Get block 1: $out"
	[ "$(guids "$out")" = "$blk" ] && break
	sleep 0.5
done
[ "$(guids "$out")" = "$blk" ] || fail "GUIDInfoRecord Get after a heavy sweep: $(guids "$out"), the device: $blk"
out=$(guidreq h1 set 1 5=0) || fail "Set 1 5=0: $out"
[ "$(printf '%s\n' "$out" | awk '$1 == 5 { print $2 }')" = "$ext" ] ||
    fail "the adopted GUID is not the store's: $(guids "$out")"
log "an alias GUID the device held was adopted"

# ---- a host that reset its table gets it back at the next heavy sweep
vdev_stop h1
vdev_start h1 -g 32
empty=$(printf '%s\n' $b0 | awk 'NR == 1 { print; next } { print "0x0000000000000000" }' | tr '\n' ' ')
wait_device 0 "$empty"
ctl sweep --heavy >/dev/null || fail "ibsmctl sweep --heavy"
wait_device 0 "$b0"
wait_device 1 "$blk"
log "a reset table was written back from the store"

# ---- partitions naming alias GUIDs
a() { printf '%s\n' $b0 | sed -n "$(($1 + 1))p"; }   # alias at index N of block 0
h1guid=$(printf '%s\n' $b0 | sed -n 1p)
late=0x0002c9feedbe0777
cat >"$T/partitions.conf" <<EOF
Default=0x7fff : ALL=full ;
vf1=0x0a01 : $(a 1)=full ;
vf2=0x0a02 : $(a 2)=both ;
vf3=0x0a03 : $h1guid=limited, $(a 3)=full ;
vf4=0x0a04 : $late=full ;
EOF
sm_stop
sm_start --virtualization enabled --allow-both-pkeys -P "$T/partitions.conf"
wait_subnet_up 60
pkeys() { diag smpquery -D pkeys "$1" 2>/dev/null | grep -o '0x[0-9a-f]\{4\}' | sort -u | tr '\n' ' '; }
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
wait_pkeys() { # PATH KEY... (!KEY: must be absent)
	local path=$1 i got k ok
	shift
	for i in $(seq 1 40); do
		got=$(pkeys "$path")
		ok=1
		for k in "$@"; do
			case $k in
			!*) has "$got" "${k#!}" && ok=0 ;;
			*) has "$got" "$k" || ok=0 ;;
			esac
		done
		[ $ok = 1 ] && return 0
		sleep 0.5
	done
	fail "P_Keys of $path: $got; want $*"
}
wait_pkeys $H1 0xffff 0x8a01 '!0x0a01' 0x8a02 0x0a02 0x8a03 0x0a03 '!0x8a04' '!0x0a04'
wait_pkeys 0,1,3 0xffff '!0x8a01' '!0x8a02' '!0x0a02' '!0x8a03' '!0x0a03'
log "h1's table: $(pkeys $H1); h2's: $(pkeys 0,1,3)"
out=$(guidreq h1 set 2 1="$late") || fail "Set of $late: $out"
[ "$(printf '%s\n' "$out" | awk '$1 == 1 { print $2 }')" = "$late" ] || fail "Set of $late: $(guids "$out")"
wait_pkeys $H1 0x8a04 0x8a01
out=$(guidreq h1 delete 2 1="$late") || fail "Delete of $late: $out"
wait_pkeys $H1 '!0x8a04' 0x8a01
log "a partition member assigned later got its key, and lost it at the Delete"

# ---- ibsmctl guids, status and the stats file
ctl guids >"$T/guids.txt" || fail "ibsmctl guids"
sed "s/^/    /" "$T/guids.txt"
awk -v p="$h1guid" -v g="$(a 1)" '$1 == p && $0 ~ g && / assigned / && / yes$/' "$T/guids.txt" |
    grep -q . || fail "ibsmctl guids has no matching assigned line for index 1: $(cat "$T/guids.txt")"
awk -v g="$late" '$0 ~ g && / saved /' "$T/guids.txt" | grep -q . ||
    fail "ibsmctl guids does not show $late as saved"
n=$(ctl --json guids | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["enabled"]
print(sum(1 for p in d["ports"] for g in p["guids"] if g["state"] == "assigned" and g["match"]))') ||
    fail "ibsmctl --json guids"
[ "$n" = 9 ] || fail "ibsmctl --json guids: $n assigned entries the device matches, want 9"
[ "$(ctl --json status | jget alias_guids assigned)" = 9 ] || fail "status: alias_guids.assigned"
sets=$(ctl --json status | jget alias_guids sets)
[ "$sets" -ge 1 ] || fail "status: alias_guids.sets $sets"
grep -q '^alias_guids.assigned 9$' "$T/state/stats" || fail "stats file: $(grep alias_guids "$T/state/stats")"
log "ibsmctl guids: $(grep -c assigned "$T/guids.txt") assigned lines; status and stats agree"
log "PASS"
