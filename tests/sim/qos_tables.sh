#!/bin/bash
# QoS tables (issue 27) against OpenSM's, on slowlink (3 switches, 5 HCAs):
#  1. OpenSM 3.3.23 with qos and a set of qos_* options (max_op_vls 3,
#     per-type SL2VL and VLArb lists, VLs the operational ones mask, a VL15
#     drop), then ibsmd on the same fabric fresh with the same options in
#     ibsmd.conf: every port's SL2VL tables (a switch's for every input and
#     output port), VL arbitration tables and PortInfo OperVLs, VLHighLimit
#     and VLArb caps read back by smpquery are byte for byte OpenSM's.
#  2. SLs map: along ibtracert's hops from h0 to h2 (and the CA ports at
#     both ends), every SL the options do not drop maps, in the table of
#     the hop's input and output ports, to a VL below the output port's
#     OperVLs.
#  3. saquery --sl2vl and --vlarb serve the tables the ports hold.
#  4. ibsmd restarted on the programmed fabric writes no SL2VL and no
#     VLArb block (the umadfix device counts the Sets, UMADFIX_SETS).
#  5. A reload changing qos_swe_vlarb_high writes the high block of each
#     switch external port that is up and nothing else of those tables.
#  6. The tables are written before the ports go Active: ibsmd --once,
#     which exits at subnet up with nothing after it, leaves every table
#     as OpenSM's.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm is not installed"
[ "$SM" = ibsmd ] || skip "compares ibsmd with opensm"
: "${IBSMCTL:=./ibsmctl}"

cat >"$T/opensm.conf" <<'EOF'
qos TRUE
max_op_vls 3
qos_high_limit 4
qos_vlarb_high 0:4,1:2,2:1
qos_vlarb_low 0:8,1:8,2:16,3:32,4:4,5:4,6:1,7:1,0:2
qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,15,5,6,7
qos_ca_sl2vl 3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0
qos_ca_vlarb_high 1:9,0:3
qos_swe_vlarb_low 0:1,1:1,2:1,3:1
EOF
CONF=$T/ibsmd.yaml
conf() {
	cat >"$CONF.new" <<EOF
qos: true
max_op_vls: 3
qos_high_limit: 4
qos_vlarb_high: 0:4,1:2,2:1
qos_vlarb_low: 0:8,1:8,2:16,3:32,4:4,5:4,6:1,7:1,0:2
qos_sl2vl: 0,1,2,3,4,5,6,7,0,1,2,3,15,5,6,7
qos_ca_sl2vl: 3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0
qos_ca_vlarb_high: 1:9,0:3
qos_swe_vlarb_low: 0:1,1:1,2:1,3:1
$1
EOF
	mv "$CONF.new" "$CONF"
}
conf ""

# name lid ports... of each node: a switch's port 0 and its cabled ports,
# a CA's port 1 (slowlink's CAs have one port), from ibnetdiscover
nodes() {
	diag ibnetdiscover 2>/dev/null | awk '
	    function flush() { if (n != "") print kind, n, lid, ports; n = "" }
	    /^Switch/ { flush(); match($0, /# "[^"]*"/); n = substr($0, RSTART + 3, RLENGTH - 4)
		match($0, /lid [0-9]+/); lid = substr($0, RSTART + 4, RLENGTH - 4); kind = "sw"; ports = "0" }
	    /^\[[0-9]+\][[:space:]]*"/ && kind == "sw" { match($0, /^\[[0-9]+\]/); ports = ports " " substr($0, 2, RLENGTH - 2) }
	    /^Ca/ { flush(); match($0, /# "[^"]*"/); n = substr($0, RSTART + 3, RLENGTH - 4); kind = "ca"; ports = "1" }
	    /^\[1\]\(/ && kind == "ca" { match($0, /# lid [0-9]+/); lid = substr($0, RSTART + 6, RLENGTH - 6) }
	    END { flush() }' | sort -k2,2
}

# One node's tables: every listed port's PortInfo VL fields, SL2VL
# tables (a switch's from every input port) and VL arbitration tables.
dump_node() {
	local kind=$1 lid=$3 p q
	shift 3
	for p in "$@"; do
		q=$p
		[ "$kind" = ca ] && q=""
		echo "== port $p"
		diag smpquery portinfo "$lid" "${q:-0}" | grep -E 'VLCap|VLHighLimit|VLArb|OperVLs|LinkState'
		diag smpquery sl2vl "$lid" $q
		diag smpquery vlarb "$lid" $q
	done 2>&1 | sed 's/[Ll]id [0-9]*//'
}

# Every table of every port, keyed by node name and port (LIDs differ
# between the two SMs), into $1; the nodes read side by side.
dump() {
	local out=$1 kind name lid ports
	nodes >"$T/nodes"
	[ "$(wc -l <"$T/nodes")" = 8 ] || fail "ibnetdiscover found $(wc -l <"$T/nodes") nodes, not 8"
	local pids=()
	while read -r kind name lid ports; do
		# shellcheck disable=SC2086
		dump_node "$kind" "$name" "$lid" $ports >"$T/node.$name" </dev/null &
		pids+=($!)
	done <"$T/nodes"
	wait "${pids[@]}"
	: >"$out"
	while read -r kind name lid ports; do
		sed "s/^== port/== $name port/" "$T/node.$name" >>"$out"
	done <"$T/nodes"
}

# OpenSM masks a switch external port's SL2VL tables by the OperVLs the
# port ran before OpenSM set them (osm_qos_setup runs before the link
# manager writes OperationalVLs): with max_op_vls below the VLCap, SLs
# are left on VLs the port does not run, which drops their packets. ibsmd
# masks by the OperVLs it sets; OpenSM's rows are compared masked so.
mask_by_opervls() {
	awk '/^== / { port = $NF }
	    /^OperVLs:/ { n = $0; sub(/.*VL0-/, "", n); m = n == 14 ? 15 : n }
	    /^ports: in/ && port != 0 { split($0, a, "|"); row = a[1]
		for (i = 2; i < length(a); i++) { v = a[i] + 0
		    if (v != 15) v = v % (m + 1); row = row sprintf("|%2d", v) }
		if (row "|" != $0) changed++; print row "|"; next }
	    { print }
	    END { print changed + 0 > "/dev/stderr" }'
}

# The SA's SL2VLTableRecords of h0 and h2 (by LID) and the
# VLArbitrationTableRecords of their blocks 1 and 3 and of sw1's port 5
# block 3 (LID, port and block: component masks), LIDs left out. (OpenSM
# also answers blocks 2 and 4, which a cap of 8 does not have, as zeros;
# ibsmd answers the blocks the caps give.) (sw1's SL2VL records hold OpenSM's unmasked
# tables, see mask_by_opervls: checked against the port below.)
sa_records() {
	local name lid q
	for name in h0 h2 sw1; do
		lid=$(awk -v n="$name" '$2 == n { print $3 }' "$T/nodes")
		for q in "SL2VL $lid" "VLAR $lid/1/1" "VLAR $lid/1/3" "VLAR $lid/5/3"; do
			case $name:$q in sw1:*/5/*) ;; h*:*/1/*) ;; h*:SL2VL*) ;; *) continue ;; esac
			echo "== $name $q" | sed 's/ [0-9]*\// /'
			# shellcheck disable=SC2086
			diag saquery $q 2>&1 | grep -v 'LID\.\.\.'
		done
	done
}

# ---- 1. OpenSM's tables, then ibsmd's on the same fabric fresh
sim_start "$FABRICS/slowlink.net"
SM=opensm sm_start -F "$T/opensm.conf"
SM=opensm wait_subnet_up 60
# OpenSM writes the tables in its first sweep, before SUBNET UP
dump "$T/opensm.raw"
mask_by_opervls <"$T/opensm.raw" >"$T/opensm.tables" 2>"$T/opensm.masked"
log "OpenSM left $(cat "$T/opensm.masked") SL2VL tables mapping SLs to VLs above the port's OperVLs (compared masked)"
sa_records >"$T/sa.opensm"
SM=opensm sm_stop
sim_stop
grep -q 'OperVLs:\.*VL0-3' "$T/opensm.raw" || fail "OpenSM set no OperVLs VL0-3 (max_op_vls 3)"

sim_start "$FABRICS/slowlink.net"
UMADFIX_SETS=$T/sets.1 sm_start -c "$CONF" -P /dev/null
wait_subnet_up 60
sl2vl_sets() { sets_now "$1" SLtoVLMappingTable; }
vlarb_sets() { sets_now "$1" VLArbitrationTable; }
# The QoS tables go in before the ports go Active; after each subnet up
# a LID-routed round reads what the store lacks (the switch P_Keys, the
# tables nothing writes) and compares the rest. The log line of that
# round's end is only a wait (nothing is asserted on it): the Sets are
# the device's count, the tables smpquery's.
rounds() { sed -n "/^---- sm_start $SM_STARTS:/,\$p" "$SM_LOG" | grep -c 'devread: port tables'; }
poll_until 30 test "$(rounds)" -gt 0 >/dev/null || fail "ibsmd did not finish its first round of port tables"
a=$(sl2vl_sets "$T/sets.1")
b=$(vlarb_sets "$T/sets.1")
log "ibsmd wrote $a SL2VL tables, $b VLArb blocks on a fresh fabric"
# the device counts them (else section 4's 0 would prove nothing)
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] || fail "no SL2VL ($a) or VLArb ($b) Set counted on a fresh fabric"
dump "$T/ibsmd.tables"
diff "$T/opensm.tables" "$T/ibsmd.tables" >"$T/tables.diff" ||
    fail "tables differ from OpenSM's ($(grep -c '^[<>]' "$T/tables.diff") lines): $(head -12 "$T/tables.diff")"
log "$(grep -c '^ports:\|^VL ' "$T/ibsmd.tables") SL2VL/VLArb rows of $(grep -c '^==' "$T/ibsmd.tables") ports equal OpenSM's"

# ---- 2. SLs map along a path
trace() {
	local from=$1 to=$2 tr
	tr=$(diag ibtracert "$from" "$to" 2>&1) || fail "ibtracert $from $to: $tr"
	echo "$tr" >"$T/trace.$from.$to"
	# "[out] -> ... [in] lid L-L": the hops' (lid, in) then the next line's out
	echo "$tr" | awk '/^\[/ { match($0, /^\[[0-9]+\]/); out = substr($0, 2, RLENGTH - 2)
		if (lid != "") print lid, inp, out
		match($0, /\]\[[0-9]+\]|\}\[[0-9]+\]/); s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); inp = s
		match($0, /lid [0-9]+/); lid = substr($0, RSTART + 4, RLENGTH - 4) }'
}
ops() {
	diag smpquery portinfo "$1" "$2" | sed -n 's/^OperVLs:\.*VL0-\([0-9]*\)$/\1/p'
}
walk=0
lid_h0=$(awk '$2 == "h0" { print $3 }' "$T/nodes")
lid_h2=$(awk '$2 == "h2" { print $3 }' "$T/nodes")
while read -r lid in out; do
	row=$(diag smpquery sl2vl "$lid" "$out" | awk -v i="$in" '$1 == "ports:" && $3 + 0 == i { print }')
	[ -n "$row" ] || fail "no SL2VL row in $in out $out at LID $lid"
	top=$(ops "$lid" "$out")
	vls=$(echo "$row" | sed 's/.*: |//; s/|$//; s/|/ /g')
	sl=0
	for vl in $vls; do
		# SL 12 is dropped by the options (VL15), as OpenSM drops it
		if [ "$sl" = 12 ]; then
			[ "$vl" = 15 ] || fail "SL 12 maps to VL $vl, not 15, at LID $lid in $in out $out"
		elif [ "$vl" -gt "$top" ]; then
			fail "SL $sl maps to VL $vl at LID $lid in $in out $out: OperVLs VL0-$top"
		fi
		sl=$((sl + 1))
	done
	walk=$((walk + 1))
done < <(trace "$lid_h0" "$lid_h2")
[ "$walk" -ge 3 ] || fail "ibtracert h0 -> h2 gave $walk switch hops, not 3"
for lid in "$lid_h0" "$lid_h2"; do
	top=$(ops "$lid" 1)
	for vl in $(diag smpquery sl2vl "$lid" | awk '$1 == "ports:"' | sed 's/.*: |//; s/|$//; s/|/ /g'); do
		[ "$vl" -le "$top" ] || fail "CA LID $lid maps an SL to VL $vl: OperVLs VL0-$top"
	done
done
log "every SL but the dropped one maps to an operational VL on the $walk hops h0 -> h2 and both CA ports"

# ---- 3. the SA serves what the ports hold, as OpenSM's does
n_sl2vl=$(diag saquery SL2VL 2>/dev/null | grep -c 'SL2VLTableRecord dump')
n_vlarb=$(diag saquery VLAR 2>/dev/null | grep -c 'VLArbTableRecord dump')
log "saquery: $n_sl2vl SL2VL records, $n_vlarb VLArb records"
# 3 switches of 9 ports, (9 in x 9 out) each, and 5 CA ports
[ "$n_sl2vl" = 248 ] || fail "the SA serves $n_sl2vl SL2VL records, not 248"
sa_records >"$T/sa.ibsmd"
diff "$T/sa.opensm" "$T/sa.ibsmd" >"$T/sa.diff" ||
    fail "the SA's records differ from OpenSM's: $(head -20 "$T/sa.diff")"
grep -q 'VL: 3| 2| 1| 0|' "$T/sa.ibsmd" || fail "no CA SL2VL record holds qos_ca_sl2vl"
lid_sw1=$(awk '$2 == "sw1" { print $3 }' "$T/nodes")
want=$(diag smpquery sl2vl "$lid_sw1" 6 | awk '$1 == "ports:" && $3 + 0 == 5' | sed 's/.*: |//; s/ //g')
got=$(diag saquery SL2VL "$lid_sw1/5/6" | sed -n 's/^[[:space:]]*VL: //p' | sed 's/ //g')
[ -n "$want" ] && [ "$want" = "$got" ] || fail "saquery SL2VL $lid_sw1/5/6 says $got, the port holds $want"
log "SA records of h0, h2, sw1 equal OpenSM's; sw1 5 -> 6 as the port holds it"

# ---- 4. a restart on the programmed fabric writes no table
sm_stop
UMADFIX_SETS=$T/sets.2 sm_start -c "$CONF" -P /dev/null
wait_subnet_up 60
poll_until 30 test "$(rounds)" -gt 0 >/dev/null || fail "ibsmd did not finish reading the port tables"
a=$(sl2vl_sets "$T/sets.2")
b=$(vlarb_sets "$T/sets.2")
log "restart: $a SL2VL and $b VLArb Sets"
[ "$a" = 0 ] && [ "$b" = 0 ] || fail "the restart wrote $a SL2VL and $b VLArb blocks on a programmed fabric"

# ---- 5. a reload changing one option writes only the changed blocks
conf "qos_swe_vlarb_high: 0:1,1:1"
r0=$(rounds)
"$IBSMCTL" --runtime-dir "$T/run" reload 8>&- >"$T/reload.out" 2>&1 || fail "reload: $(cat "$T/reload.out")"
poll_until 30 test "$(rounds)" -gt "$r0" >/dev/null || fail "no round of port tables after the reload"
a=$(sl2vl_sets "$T/sets.2")
b=$(vlarb_sets "$T/sets.2")
# switch external ports up on slowlink: 3 per switch
log "reload: $a SL2VL and $b VLArb Sets"
[ "$a" = 0 ] && [ "$b" = 9 ] || fail "the reload of qos_swe_vlarb_high wrote $a SL2VL and $b VLArb blocks, not 0 and 9"
diag smpquery vlarb "$lid_sw1" 5 | grep -A2 'High priority' | grep -q 'WEIGHT: |0x1 |0x1 |0x0 ' ||
    fail "sw1 port 5 does not hold the new high table: $(diag smpquery vlarb "$lid_sw1" 5)"

# ---- 6. the tables go in before the ports go Active: --once, which
# exits at subnet up with no step after it, leaves them all programmed
sm_stop
sim_stop
conf ""
rm -rf "$T/state" "$T/run"
sim_start "$FABRICS/slowlink.net"
UMADFIX_SETS=$T/sets.3 sm_run 60 --once -c "$CONF" -P /dev/null ||
    fail "ibsmd --once exited $?: $(tail -3 "$T/sm_run.err")"
a=$(sl2vl_sets "$T/sets.3")
b=$(vlarb_sets "$T/sets.3")
dump "$T/once.tables"
diff "$T/opensm.tables" "$T/once.tables" >"$T/once.diff" ||
    fail "after ibsmd --once the tables differ from OpenSM's ($(grep -c '^[<>]' "$T/once.diff") lines): $(head -12 "$T/once.diff")"
log "ibsmd --once wrote $a SL2VL tables and $b VLArb blocks before it exited at subnet up: every table equals OpenSM's"
log "ok"
