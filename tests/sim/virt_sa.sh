#!/bin/bash
# The SA for VMs (issue 12 point 5), read with saquery and the project's
# mcjoin on the simulated vport devices (tests/fixture/vdev):
#   - NodeRecord, PortInfoRecord and GUIDInfoRecord by a vport's own LID
#     answer as the VM's HCA: its VPortGUID, VNodeGUID, LID and state;
#   - PathRecords between vports within a partition, none across;
#   - MCMemberRecord: a join naming a vport GID (sent by its host, as a
#     proxy: the simulator cannot send from a vport LID, so a vport as the
#     requester is tested in check_sa_mcmember) enters red's IPoIB group,
#     is refused for blue's, and the group's tree reaches the host. A
#     hypervisor holds none of its VMs' keys (issue 23 point 5): the file
#     makes h1 a limited member of red so that it may act as that proxy.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
[ "$SM" = ibsmd ] || skip "vports are ibsmd's"
: "${MCJOIN:=./tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"

vguid() { printf '0x00c0ffee%04x%04x' "${1#h}" "$2"; }
vnode() { printf '0x00beef00%04x%04x' "${1#h}" "$2"; }

sim_start "$FABRICS/ft2_8.net"
for h in h1 h5; do
	vdev_start "$h" -v 3 -k 32
	for i in 1 2; do
		vdev_cmd "$h" vport "$i" up "$(vguid "$h" "$i")" lidreq \
		    vnode "$(vnode "$h" "$i")" >/dev/null || fail "vport $h/$i up"
	done
done
cat >"$T/partitions.conf" <<EOP
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
red=0x0010, ipoib : $(vguid h1 1)=full, $(vguid h5 1)=full, $(vdev_field h1 0 guid)=limited ;
blue=0x0020, ipoib : $(vguid h1 2)=full, $(vguid h5 2)=full ;
EOP

active() {
	local h i
	for h in h1 h5; do
		for i in 1 2; do
			[ "$(vdev_field "$h" "$i" state)" = active ] || return 1
			[ "$(vdev_field "$h" "$i" lid)" != 0 ] || return 1
		done
	done
}
sm_start --virtualization enabled -P "$T/partitions.conf" -s 1
wait_subnet_up 90
poll_until 30 active >/dev/null || fail "vports not ACTIVE: $(vdev_cmd h1 dump)"
declare -A VLID=()
for h in h1 h5; do
	for i in 1 2; do
		VLID[$h.$i]=$(vdev_field "$h" "$i" lid)
	done
done
log "vport LIDs: h1 ${VLID[h1.1]} ${VLID[h1.2]}, h5 ${VLID[h5.1]} ${VLID[h5.2]}"

# fld TEXT NAME: the value of saquery's "name.....value" line
fld() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.]*[[:space:]]*//p" | head -1; }

# ---- NodeRecord by a vport LID
lid=${VLID[h5.1]}
out=$(diag saquery NR "$lid" 2>&1) || fail "saquery NR $lid: $out"
log "NR $lid: $(printf '%s' "$out" | tr -s '\t\n' '  ')"
[ "$(( $(fld "$out" lid) ))" = "$lid" ] || fail "NodeRecord of LID $lid names LID $(fld "$out" lid): $out"
[ "$(( $(fld "$out" port_guid) ))" = "$(( $(vguid h5 1) ))" ] ||
    fail "NodeRecord of LID $lid: PortGUID not the vport's $(vguid h5 1): $out"
[ "$(( $(fld "$out" node_guid) ))" = "$(( $(vnode h5 1) ))" ] ||
    fail "NodeRecord of LID $lid: NodeGUID not the VNodeGUID $(vnode h5 1): $out"
[ "$(fld "$out" node_type)" = "Channel Adapter" ] || fail "NodeRecord of LID $lid: not a CA: $out"
[ "$(( $(fld "$out" partition_cap) ))" = 32 ] || fail "NodeRecord of LID $lid: PartitionCap not the VPartitionCap 32: $out"
[ "$(fld "$out" NodeDescription)" = "h5 vport 1" ] || fail "NodeRecord of LID $lid: not the VNodeDescription: $out"

# ---- PortInfoRecord by a vport LID
out=$(diag saquery PIR "$lid" 2>&1) || fail "saquery PIR $lid: $out"
log "PIR $lid: $(printf '%s' "$out" | tr -s '\t\n' '  ' | head -c 300)"
[ "$(( $(fld "$out" EndPortLid) ))" = "$lid" ] || fail "PortInfoRecord of LID $lid: EndPortLid: $out"
[ "$(( $(fld "$out" Lid:) ))" = "$lid" ] || fail "PortInfoRecord of LID $lid: PortInfo LID: $out"
[ "$(fld "$out" LinkState:)" = Active ] || fail "PortInfoRecord of LID $lid: state not the VPortState (Active): $out"

# ---- GUIDInfoRecord: block 0 holds the VPortGUID
out=$(diag saquery GIR "$lid" 2>&1) || fail "saquery GIR $lid: $out"
printf '%s\n' "$out" | grep -qi "$(printf '%016x' $(( $(vguid h5 1) )))" ||
    fail "GUIDInfoRecord of LID $lid lacks the VPortGUID $(vguid h5 1): $out"

# ---- PathRecords: red to red across hosts, none red to blue
pr() { diag saquery -p --src-to-dst "$1:$2" 2>/dev/null | grep -v '^ibwarn'; }
out=$(pr "${VLID[h1.1]}" "${VLID[h5.1]}")
[ "$(( $(fld "$out" dlid) ))" = "${VLID[h5.1]}" ] || fail "h1/1 -> h5/1 (red): no PathRecord: $out"
pk=$(fld "$out" pkey)
[ "$(( pk & 0x7fff ))" = $((0x10)) ] || fail "h1/1 -> h5/1: P_Key $pk, not red"
out=$(pr "${VLID[h1.1]}" "${VLID[h5.2]}")
[ -z "$(fld "$out" dlid)" ] || fail "h1/1 (red) -> h5/2 (blue) got a PathRecord: $out"
out=$(pr "${VLID[h1.1]}" "${VLID[h1.2]}")
[ -z "$(fld "$out" dlid)" ] || fail "h1/1 (red) -> h1/2 (blue) got a PathRecord: $out"
log "PathRecords: red vports reach each other (P_Key $pk), red and blue do not"

# ---- MCMemberRecord for a vport GID, sent by its host (proxy)
mj() { local h=$1; shift; SIM_HOST=$h diag "$MCJOIN" "$@" 2>/dev/null; }
status() { printf '%s\n' "$1" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p'; }
RED_BC=ff12:401b:8010::ffff:ffff
BLUE_BC=ff12:401b:8020::ffff:ffff
out=$(mj h1 join "$RED_BC" 1 port="$(vguid h1 1)")
log "join red from h1/1's GID: $out"
[ "$(status "$out")" = 0x0000 ] || fail "vport h1/1 could not join red's broadcast group: $out"
out=$(mj h1 join "$BLUE_BC" 1 port="$(vguid h1 1)")
[ "$(status "$out")" != 0x0000 ] && [ -n "$out" ] || fail "vport h1/1 (red) joined blue's group: $out"
# trusted (SM_Key 1), from h1 (in red through its vport): member GIDs shown
members=$(SIM_HOST=h1 diag saquery --smkey 1 -m 2>/dev/null)
printf '%s\n' "$members" | grep -q 'c0:ffee:1:1' ||
    fail "saquery -m does not list h1/1's GID: $members"
log "saquery -m lists h1/1's vport GID; blue refused it"

# ---- ibsmctl status counts the vports
: "${IBSMCTL:=./ibsmctl}"
out=$("$IBSMCTL" -r "$T/run" status 2>&1) || fail "ibsmctl status: $out"
printf '%s\n' "$out" | sed -n '/^vports:/,/^[a-z]/p' | grep -x '  hosts: 2\|  up: 4\|  own_lids: 4\|  managed: 4' | wc -l | grep -qx 4 ||
    fail "ibsmctl status does not count 2 hosts, 4 vports up with their own LIDs: $out"
out=$("$IBSMCTL" -r "$T/run" --json status 2>&1) || fail "ibsmctl --json status: $out"
printf '%s\n' "$out" | python3 -c 'import json,sys; v=json.load(sys.stdin)["vports"]; assert (v["hosts"], v["up"], v["own_lids"]) == (2, 4, 4), v' ||
    fail "ibsmctl --json status: vports wrong: $out"
log "ibsmctl status: $(printf '%s\n' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["vports"])')"
exit 0
