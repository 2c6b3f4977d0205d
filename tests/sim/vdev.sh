#!/bin/bash
# tests/sim/vdev.sh: the simulated virtualization-capable HCAs
# (tests/fixture/vdev.c + the umadfix interception), driven with
# infiniband-diags (smpquery, smpdump) and smpset, without ibsmd's
# virtualization code; then OpenSM programs an alias GUID that a host asked
# for with a GUIDInfoRecord Set (guidreq), and smpquery reads it back from
# the device.
#
# Fabric ft2_8: the diags attach to h0 (leaf0 port 1); from there h1 is DR
# 0,1,2 (leaf0 port 2), h2 is 0,1,3, h3 is 0,1,4.
#   h1: vports 1-4 and 32 alias GUIDs (-v 4 -g 32 -k 64)
#   h2: vports 1-2, no alias GUIDs
#   h3: alias GUIDs only (-g 16): no virtualization bit, vport SMPs dropped
#   h0, h4...: plain ibsim HCAs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

H1=0,1,2
H2=0,1,3
H3=0,1,4
H4=0,1,5,2,1

# hexdata OUT: smpdump/smpset output -> 128 hex digits (the 64 data bytes)
hexdata() { printf '%s\n' "$1" | grep -v 'status' | tr -d ' \n'; }
# byte HEX I: byte I as a number
byte() { echo $((16#${1:$(($2 * 2)):2})); }
# word HEX I: 16-bit big-endian at byte I
word() { echo $((16#${1:$(($2 * 2)):4})); }
# qword HEX I: 64-bit at byte I, as 0x%016x
qword() { echo "0x${1:$(($2 * 2)):16}"; }
status_of() { printf '%s\n' "$1" | sed -n 's/^SMP status: \(0x[0-9a-f]*\)$/\1/p'; }
# get PATH ATTR MOD: smpdump (which exits 0 without an answer too)
get() {
	local o
	o=$(diag smpdump -D "$@" 2>/dev/null)
	printf '%s\n' "$o"
	printf '%s\n' "$o" | grep -q '^SMP status'
}

sim_start "$FABRICS/ft2_8.net"
vdev_start h1 -v 4 -g 32 -k 64
vdev_start h2 -v 2
vdev_start h3 -g 16

# ---------------------------------------------------------------- PortInfo
pi_field() { # PATH FIELD-REGEX: one value of smpquery portinfo
	diag smpquery -D portinfo "$1" 2>/dev/null |
	    sed -n "s/^$2:\.*\(0x[0-9a-f]*\|[0-9]*\)\$/\1/p" | head -1
}
for h in h1:$H1:1:32 h2:$H2:1:32 h3:$H3:0:16 h0:0:0:32 h4:$H4:0:32; do
	IFS=: read -r name path virt gcap <<EOF
$h
EOF
	cap=$(pi_field "$path" CapMask)
	cap2=$(pi_field "$path" CapabilityMask2)
	gc=$(pi_field "$path" GuidCap)
	[ -n "$cap" ] && [ -n "$cap2" ] || fail "$name: no PortInfo from smpquery"
	log "$name PortInfo: CapMask $cap CapabilityMask2 $cap2 GuidCap $gc"
	if [ "$virt" = 1 ]; then
		[ $((cap2 & 4)) != 0 ] || fail "$name: CapabilityMask2 $cap2 lacks the virtualization bit"
	else
		[ $((cap2 & 4)) = 0 ] || fail "$name: CapabilityMask2 $cap2 has the virtualization bit"
	fi
	case $name in
	h1 | h2 | h3)
		[ $((cap & 0x2008000)) = $((0x2008000)) ] ||
		    fail "$name: CapMask $cap lacks bit 15 or 25" ;;
	*)
		[ $((cap & 0x2000000)) = 0 ] || fail "$name: CapMask $cap has bit 25" ;;
	esac
	[ "$gc" = "$gcap" ] || fail "$name: GuidCap $gc, want $gcap"
done

# ---------------------------------------------------------------- vports
# VirtualizationInfo (0xFFB0): VPortCap 4, top 0 (only the PF), enabled
out=$(get $H1 0xffb0 0) || fail "h1: no VirtualizationInfo"
d=$(hexdata "$out")
[ "$(word "$d" 0)" = 4 ] || fail "h1 VirtualizationInfo VPortCap $(word "$d" 0), want 4"
[ "$(word "$d" 2)" = 0 ] || fail "h1 VirtualizationInfo VPortIndexTop $(word "$d" 2), want 0"
[ $(($(byte "$d" 4) & 0x80)) != 0 ] || fail "h1 VirtualizationInfo not enabled"

# a VM starts on vport 2
G2=0x0002c90300a00002
vdev_cmd h1 vport 2 up $G2 >/dev/null || fail "vport 2 up refused"
d=$(hexdata "$(get $H1 0xffb0 0)")
[ "$(word "$d" 2)" = 2 ] || fail "VPortIndexTop $(word "$d" 2) after vport 2 up, want 2"
[ $(($(byte "$d" 4) & 0x20)) != 0 ] || fail "VPortStateChange not set after vport 2 up"
# VPortState block 0: vport 0 INIT (2), 1 DOWN (1), 2 INIT (2)
d=$(hexdata "$(get $H1 0xffb3 0)")
[ "${d:0:4}" = 2121 ] || fail "VPortState block 0 starts ${d:0:4}, want 2121 (init down init down)"
# VPortInfo 2: INIT, LIDRequired, VGUIDCap 1, GUID
d=$(hexdata "$(get $H1 0xffb1 2)")
[ "$(byte "$d" 0)" = $((0x24)) ] || fail "VPortInfo 2 byte 0 $(byte "$d" 0), want 0x24"
[ "$(byte "$d" 1)" = 1 ] || fail "VPortInfo 2 VGUIDCap $(byte "$d" 1)"
[ "$(qword "$d" 12)" = $G2 ] || fail "VPortInfo 2 GUID $(qword "$d" 12), want $G2"
# VNodeInfo 2: VPartitionCap 64, port 1
d=$(hexdata "$(get $H1 0xffb2 2)")
[ "$(word "$d" 0)" = 64 ] || fail "VNodeInfo 2 VPartitionCap $(word "$d" 0), want 64"
[ "$(byte "$d" 2)" = 1 ] || fail "VNodeInfo 2 VLocalPortNum $(byte "$d" 2)"
# VNodeDescription 2
vdev_cmd h1 vport 2 desc vm-two on h1 >/dev/null || fail "desc refused"
d=$(hexdata "$(get $H1 0xffb4 2)")
desc=$(printf '%s' "${d:0:22}" | xxd -r -p)
[ "$desc" = "vm-two on h" ] || fail "VNodeDescription 2 reads '$desc'"
# VPortGUIDInfo of vport 2, block 0 (modifier 2 << 16)
d=$(hexdata "$(get $H1 0xffb5 0x20000)")
[ "$(qword "$d" 0)" = $G2 ] || fail "VPortGUIDInfo 2/0 entry 0 $(qword "$d" 0), want $G2"

# The SM's part, by hand: LID and INIT -> ARMED -> ACTIVE
out=$(smpset -D $H1 0xffb1 2 40000000000000000123) || fail "VPortInfo Set: no answer"
[ "$(status_of "$out")" = 0x001c ] ||
    fail "VPortInfo Set ACTIVE from INIT: status $(status_of "$out"), want 0x001c"
out=$(smpset -D $H1 0xffb1 2 30000000000000000123)
[ "$(status_of "$out")" = 0x0000 ] || fail "VPortInfo Set ARMED: status $(status_of "$out")"
out=$(smpset -D $H1 0xffb1 2 40000000000000000123)
[ "$(status_of "$out")" = 0x0000 ] || fail "VPortInfo Set ACTIVE: status $(status_of "$out")"
d=$(hexdata "$(get $H1 0xffb1 2)")
[ "$(byte "$d" 0)" = $((0x44)) ] || fail "VPortInfo 2 byte 0 $(byte "$d" 0) after ACTIVE, want 0x44"
[ "$(word "$d" 8)" = $((0x123)) ] || fail "VPortInfo 2 LID $(word "$d" 8), want 0x123"
[ "$(vdev_field h1 2 state)" = active ] || fail "vdev dump: vport 2 not active"
# VPortPKeyTable of vport 2: blocks 0 and 1 exist (64 keys), 2 does not
out=$(smpset -D $H1 0xffb6 0x20001 ffff8001)
[ "$(status_of "$out")" = 0x0000 ] || fail "VPortPKeyTable Set: status $(status_of "$out")"
d=$(hexdata "$(get $H1 0xffb6 0x20001)")
[ "${d:0:8}" = ffff8001 ] || fail "VPortPKeyTable 2/1 reads ${d:0:8}"
d=$(hexdata "$(get $H1 0xffb6 0x20000)")
[ "${d:0:8}" = 00000000 ] || fail "VPortPKeyTable 2/0 reads ${d:0:8}: blocks mixed up"
[ "$(vdev_field h1 2 pkeys)" = "32:0xffff,33:0x8001" ] || fail "vdev dump pkeys: $(vdev_field h1 2 pkeys)"
out=$(smpset -D $H1 0xffb6 0x20002 ffff)
[ "$(status_of "$out")" = 0x001c ] || fail "VPortPKeyTable block 2: status $(status_of "$out"), want 0x001c"
# VirtualizationInfo Set with VPortStateChange clears it
smpset -D $H1 0xffb0 0 00000000a0 >/dev/null || fail "VirtualizationInfo Set: no answer"
d=$(hexdata "$(get $H1 0xffb0 0)")
[ $(($(byte "$d" 4) & 0x20)) = 0 ] || fail "VPortStateChange still set after the SM cleared it"
# The VM stops: DOWN, no LID, no P_Keys; VPortStateChange again
vdev_cmd h1 vport 2 down >/dev/null || fail "vport 2 down refused"
d=$(hexdata "$(get $H1 0xffb1 2)")
[ "$(byte "$d" 0)" = $((0x14)) ] || fail "VPortInfo 2 byte 0 $(byte "$d" 0) after down, want 0x14"
[ "$(word "$d" 8)" = 0 ] || fail "VPortInfo 2 keeps LID $(word "$d" 8) after down"
d=$(hexdata "$(get $H1 0xffb0 0)")
[ "$(word "$d" 2)" = 0 ] && [ $(($(byte "$d" 4) & 0x20)) != 0 ] ||
    fail "VirtualizationInfo after vport 2 down: top $(word "$d" 2) flags $(byte "$d" 4)"
# ... and starts on h2 vport 1, no LID of its own, LID of vport 0
vdev_migrate h1 2 h2 1 $G2 nolidreq lidby 0
d=$(hexdata "$(get $H2 0xffb1 1)")
[ "$(byte "$d" 0)" = $((0x20)) ] || fail "h2 VPortInfo 1 byte 0 $(byte "$d" 0), want 0x20"
[ "$(qword "$d" 12)" = $G2 ] || fail "h2 VPortInfo 1 GUID $(qword "$d" 12), want $G2"
# vport index beyond VPortCap
out=$(get $H2 0xffb1 3 2>&1; true)
out=$(diag smpdump -D $H2 0xffb1 3 2>&1 | tail -1)
case $out in *0x801c* | *0x001c*) ;; *) fail "h2 VPortInfo 3 (beyond VPortCap 2): $out" ;; esac

# Ports without the capability never answer vport attributes
get $H3 0xffb0 0 >/dev/null && fail "h3 (alias GUIDs only) answered VirtualizationInfo"
get $H4 0xffb0 0 >/dev/null && fail "plain h4 answered VirtualizationInfo"
n=$(vdev_cmd h3 counters | awk '$1 == "smp" && $2 == "0xffb0" { print $4 }')
[ "$n" = 1 ] || fail "h3 counted ${n:-no} VirtualizationInfo Get (the drop must be the device's)"

# ---------------------------------------------------------------- GUIDInfo
# Set through the interception: index 0 must not change, 1 and 9 do
A1=0x0002c90300b00001
out=$(smpset -D $H1 0x14 0 0000000000000099 ${A1#0x}) || fail "GUIDInfo Set: no answer"
[ "$(status_of "$out")" = 0x0000 ] || fail "GUIDInfo Set on h1: status $(status_of "$out")"
smpset -D $H1 0x14 1 0000000000000000 0002c90300b00009 >/dev/null
gi=$(diag smpquery -D GI $H1 2>/dev/null) || fail "smpquery GUIDInfo h1 failed"
printf '%s\n' "$gi" | grep -q "^ *0: 0x0000000000100004 $A1\$" ||
    fail "smpquery GUIDInfo h1 does not show index 0 kept and $A1 at 1: $(printf '%s\n' "$gi" | head -2)"
printf '%s\n' "$gi" | grep -q "^ *8: 0x0000000000000000 0x0002c90300b00009\$" ||
    fail "smpquery GUIDInfo h1 does not show block 1: $(printf '%s\n' "$gi" | sed -n 5p)"
vdev_cmd h1 dump | grep -qx "alias 1 $A1" || fail "vdev h1 does not hold alias 1"
# block 4 is beyond GUIDCap 32
out=$(smpset -D $H1 0x14 4 00)
[ "$(status_of "$out")" = 0x001c ] || fail "GUIDInfo Set block 4 on h1: status $(status_of "$out")"
# a plain port still gets ibsim's answer (Set: method unsupported)
out=$(smpset -D $H4 0x14 0 0000000000000000 ${A1#0x})
st=$(status_of "$out")
[ -n "$st" ] && [ "$st" != 0x0000 ] || fail "GUIDInfo Set on plain h4 was taken (status ${st:-none})"
n=$(vdev_cmd h1 counters | awk '$1 == "smp" && $2 == "0xffbf" { print $4 + $6 }')
log "h1 answered $n redirected GUIDInfo SMPs"

# LID-routed observers once an SM has given LIDs: OpenSM, which also
# programs alias GUIDs asked for with GUIDInfoRecord Set.
if ! command -v opensm >/dev/null; then
	log "opensm not installed: LID-routed and OpenSM part skipped"
	exit 0
fi
SM=opensm
sm_start
wait_subnet_up 60
lid1=$(diag smpquery -D portinfo $H1 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
[ -n "$lid1" ] && [ "$lid1" != 0 ] || fail "h1 has no LID under OpenSM"
cap2=$(diag smpquery portinfo "$lid1" 2>/dev/null | sed -n 's/^CapabilityMask2:\.*//p')
[ $((cap2 & 4)) != 0 ] || fail "LID-routed PortInfo of h1 (LID $lid1): CapabilityMask2 ${cap2:-none}"
d=$(hexdata "$(diag smpdump "$lid1" 0xffb0 0 2>/dev/null)") || fail "LID-routed VirtualizationInfo failed"
[ "$(word "$d" 0)" = 4 ] || fail "LID-routed VirtualizationInfo of h1: VPortCap $(word "$d" 0)"
# vendor traps reach the SM LID (what the SM does with them is its own)
vdev_cmd h1 trap 1146 >/dev/null || fail "trap 1146 not sent"
vdev_cmd h1 trap 1144 2 >/dev/null || fail "trap 1144 not sent"
# the host asks for alias GUIDs at indices 2 and 3 (0: SM picks)
out=$(guidreq h1 set 0 2=0 3=0) || fail "GUIDInfoRecord Set to OpenSM failed: $out"
log "OpenSM answered: $(printf '%s' "$out" | tr '\n' ' ')"
g2=$(printf '%s\n' "$out" | awk '$1 == 2 { print $2 }')
g3=$(printf '%s\n' "$out" | awk '$1 == 3 { print $2 }')
[ -n "$g2" ] && [ "$((g2))" != 0 ] && [ "$g2" != "$g3" ] ||
    fail "OpenSM assigned no distinct GUIDs: $out"
# OpenSM programs the device (SubnSet GUIDInfo): read it back from h1
ok=0
for _ in $(seq 1 40); do
	gi=$(diag smpquery GI "$lid1" 2>/dev/null)
	if printf '%s\n' "$gi" | grep -q "^ *2: $g2 $g3\$"; then
		ok=1
		break
	fi
	sleep 0.5
done
[ $ok = 1 ] || fail "smpquery GUIDInfo of h1 does not show OpenSM's $g2 $g3: $(printf '%s\n' "$gi" | head -2)"
vdev_cmd h1 dump | grep -qx "alias 2 $g2" || fail "vdev h1 does not hold OpenSM's alias 2"
# and what OpenSM's SA reports for the block matches the device
out=$(guidreq h1 get 0) || fail "GUIDInfoRecord Get from OpenSM failed: $out"
printf '%s\n' "$out" | grep -qx "2 $g2" || fail "OpenSM's GUIDInfoRecord disagrees: $out"
# a GUID in use (h1's alias 2) asked for by h2... h2 has no alias table:
# ask again on h1 index 4 for g2 (already at index 2): refused with 0
out=$(guidreq h1 set 0 4="$g2")
g4=$(printf '%s\n' "$out" | awk '$1 == 4 { print $2 }')
log "request of a GUID in use: index 4 -> ${g4:-nothing} (OpenSM)"
# Delete index 3 (as the driver releases a VF): OpenSM clears it on the device
out=$(guidreq h1 delete 0 3="$g3") || fail "GUIDInfoRecord Delete to OpenSM failed: $out"
ok=0
for _ in $(seq 1 40); do
	gi=$(diag smpquery GI "$lid1" 2>/dev/null)
	if printf '%s\n' "$gi" | grep -q "^ *2: $g2 0x0000000000000000\$"; then
		ok=1
		break
	fi
	sleep 0.5
done
[ $ok = 1 ] || fail "after Delete, smpquery GUIDInfo of h1: $(printf '%s\n' "$gi" | head -2)"
log "PASS"
