#!/bin/bash
# PathRecords (saquery -p), checked against what the devices say.
#
# 1. slowlink.net (links of 40, 20, 10 and 2.5 Gb/s; ibsim's MTUCap is
#    2048 on ports, 1024 on switch port 0). For every ordered pair of end
#    ports (CA ports and switch port 0), `saquery -p --src-to-dst S:D`
#    must give SLID S, DLID D (the LIDs smpquery reads), MTU = the
#    smallest MtuCap and rate = the slowest LinkWidthActive x
#    LinkSpeedActive that smpquery portinfo reads on the ports of the
#    route ibtracert follows (source, each switch's ingress and egress,
#    destination; a switch's port 0 counts for MTU only), PacketLifeTime
#    18, Reversible. `--sgid-to-dgid` between the same ports' GIDs gives
#    the same record; an unknown GID is ERR_REQ_INVALID_GID; `smpquery -G`
#    (a PathRecord Get) resolves a port GUID to its LID; a loopback path
#    has PacketLifeTime 0.
# 2. A partitions file where Default is limited for all but the SM:
#    h0 and h2 share "blue" (P_Key 0x8010 in the record), h1 and h3 share
#    nothing with anyone but the SM: no PathRecord between them; and h1
#    asking for h0 -> h2 (requester shares nothing with them) gets none.
# 3. OpenSM on the same fabric: the CA-to-CA records (by GID) agree on
#    MTU, rate, PacketLifeTime, Reversible, P_Key and SL. Justified
#    differences, not compared: LIDs (each SM assigns its own); paths to
#    or from a switch (OpenSM counts the rate of switch port 0's PortInfo,
#    which has no link; ibsmd does not); unknown GIDs (OpenSM answers an
#    empty table, ibsmd ERR_REQ_INVALID_GID).
# Without the fixture's RMPP each answer is one MAD, and saquery prints
# three records from it: only the first one is read.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sq() { diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
# first FIELD: FIELD of the first record of a PathRecord dump on stdin
first() { sed -n "s/^[[:space:]]*$1\.\.*//p" | head -1; }

# Gb/s x 10 of a port: LinkWidthActive x LinkSpeedActive; MtuCap bytes.
declare -A PI
# port_info LID PORT: "mbps mtu" in PI_OUT, cached (not called in a $(...):
# a subshell's cache is lost with it)
port_info() {
	local k="$1:$2" out
	if [ -z "${PI[$k]:-}" ]; then
		out=$(diag smpquery portinfo "$1" "$2" 2>/dev/null) ||
		    fail "smpquery portinfo $1 $2 failed"
		PI[$k]=$(printf '%s\n' "$out" | awk -F: '
		    { v = $2; sub(/^\.*/, "", v) }
		    /^LinkWidthActive:/ { w = v + 0 }
		    /^LinkSpeedActive:/ { s = v + 0 }
		    /^MtuCap:/ { m = v + 0 }
		    END { printf "%d %d\n", w * s * 1000, m }')
	fi
	PI_OUT=${PI[$k]}
}

# The (lid, port) pairs of the route from S to D, as ibtracert reads the
# forwarding tables: "lid port" per line, port 0 = a switch's port 0.
route_ports() {
	diag ibtracert "$1" "$2" 2>/dev/null | awk '
	    /^From / { for (i = 1; i <= NF; i++) {
		if ($i == "portnum") p = $(i + 1)
		if ($i == "lid") { split($(i + 1), a, "-"); l = a[1] } }
		print l, p; cur = l }
	    /^\[/ { o = $1; gsub(/[^0-9]/, "", o); print cur, o
		r = $0; sub(/.*\}\[/, "", r); sub(/\].*/, "", r)
		for (i = 1; i <= NF; i++) if ($i == "lid") {
		    split($(i + 1), a, "-"); l = a[1] }
		print l, r; cur = l }
	    /^To / { for (i = 1; i <= NF; i++) {
		if ($i == "portnum") p = $(i + 1)
		if ($i == "lid") { split($(i + 1), a, "-"); l = a[1] } }
		print l, p }'
}

# IBA rate code of Mb/s (the rates ibsim can make)
rate_code() {
	case $1 in
	2500) echo 2 ;; 5000) echo 5 ;; 10000) echo 3 ;; 20000) echo 6 ;;
	30000) echo 4 ;; 40000) echo 7 ;; *) echo "?$1" ;;
	esac
}
mtu_code() {
	case $1 in 256) echo 1 ;; 512) echo 2 ;; 1024) echo 3 ;; 2048) echo 4 ;;
	4096) echo 5 ;; *) echo "?$1" ;; esac
}

# End-port LIDs and their port GUIDs, from the devices.
declare -A GUID TYPE
end_ports() {
	LIDS=""
	for lid in $(sim_lids); do
		ni=$(diag smpquery nodeinfo "$lid" 2>/dev/null) || continue
		GUID[$lid]=$(printf '%s\n' "$ni" | sed -n 's/^PortGuid:\.*//p')
		TYPE[$lid]=$(printf '%s\n' "$ni" | sed -n 's/^NodeType:\.*//p')
		LIDS="$LIDS $lid"
	done
	[ "$(echo $LIDS | wc -w)" = 8 ] || fail "expected 8 end ports, found:$LIDS"
}
gid_of() { printf 'fe80::%x:%x:%x:%x' "$(($1 >> 48 & 0xffff))" \
    "$(($1 >> 32 & 0xffff))" "$(($1 >> 16 & 0xffff))" "$(($1 & 0xffff))"; }

sim_start "$FABRICS/slowlink.net"
sm_start
wait_subnet_up 60
sleep 1
end_ports

# ---- 1. every pair: LIDs, MTU and rate along the route
declare -A RATE
rates=""
pairs=0
for s in $LIDS; do
	for d in $LIDS; do
		[ "$s" = "$d" ] && continue
		pr=$(sq -p --src-to-dst "$s:$d")
		[ "$(printf '%s\n' "$pr" | first slid)" = "$s" ] ||
		    fail "PathRecord $s -> $d: SLID: $pr"
		[ "$(printf '%s\n' "$pr" | first dlid)" = "$d" ] ||
		    fail "PathRecord $s -> $d: DLID: $pr"
		mbps=0 mtu=0
		while read -r l p; do
			port_info "$l" "$p"
			read -r m u <<<"$PI_OUT"
			[ "$mtu" = 0 ] || [ "$u" -lt "$mtu" ] && mtu=$u
			if [ "$p" != 0 ]; then
				[ "$mbps" = 0 ] || [ "$m" -lt "$mbps" ] && mbps=$m
			fi
		done < <(route_ports "$s" "$d")
		[ "$mbps" != 0 ] || fail "no route read from ibtracert $s $d"
		want_rate=$(printf '0x%x' $((0x80 | $(rate_code "$mbps"))))
		want_mtu=$(printf '0x%x' $((0x80 | $(mtu_code "$mtu"))))
		got_rate=$(printf '%s\n' "$pr" | first rate)
		got_mtu=$(printf '%s\n' "$pr" | first mtu)
		[ "$((got_rate))" = "$((want_rate))" ] ||
		    fail "PathRecord $s -> $d: rate $got_rate, route's slowest link $mbps Mb/s ($want_rate)"
		[ "$((got_mtu))" = "$((want_mtu))" ] ||
		    fail "PathRecord $s -> $d: MTU $got_mtu, route's smallest MtuCap $mtu ($want_mtu)"
		[ "$(printf '%s\n' "$pr" | first pkt_life)" = 0x92 ] ||
		    fail "PathRecord $s -> $d: PacketLifeTime: $pr"
		[ "$(printf '%s\n' "$pr" | first num_path_revers)" = 0x80 ] ||
		    fail "PathRecord $s -> $d: not reversible: $pr"
		RATE[$s:$d]=$got_rate
		case " $rates " in *" $got_rate "*) ;; *) rates="$rates $got_rate" ;; esac
		pairs=$((pairs + 1))
	done
done
[ "$(echo $rates | wc -w)" -ge 4 ] ||
    fail "the fabric should give at least 4 different path rates, got:$rates"
log "$pairs PathRecords by LID agree with smpquery/ibtracert (rates seen:$rates)"

# GIDs give the same records
for s in $LIDS; do
	for d in $LIDS; do
		[ "$s" = "$d" ] && continue
		a=${RATE[$s:$d]}
		pr=$(sq -p --sgid-to-dgid "$(gid_of "${GUID[$s]}")-$(gid_of "${GUID[$d]}")")
		[ "$(printf '%s\n' "$pr" | first dlid)" = "$d" ] &&
		    [ "$(printf '%s\n' "$pr" | first slid)" = "$s" ] &&
		    [ "$(printf '%s\n' "$pr" | first rate)" = "$a" ] ||
		    fail "PathRecord by GID ${GUID[$s]} -> ${GUID[$d]}: $pr"
	done
done
log "PathRecords by GID agree with those by LID"

set -- $LIDS
out=$(sq -p --sgid-to-dgid "$(gid_of "${GUID[$1]}")-fe80::1234:5678")
printf '%s\n' "$out" | grep -q SA_ERR_REQ_INVALID_GID ||
    fail "an unknown DGID is not ERR_REQ_INVALID_GID: $out"
out=$(sq -p --src-to-dst "$2:$2")
[ "$(printf '%s\n' "$out" | first pkt_life)" = 0x80 ] ||
    fail "loopback PathRecord $2: PacketLifeTime not 0: $out"
for lid in $LIDS; do
	got=$(diag smpquery -G portinfo "${GUID[$lid]}" 2>/dev/null | sed -n 's/^Lid:\.*//p')
	[ "$got" = "$lid" ] || fail "smpquery -G ${GUID[$lid]}: LID '$got', not $lid"
done
log "unknown GID refused, loopback life 0, smpquery -G resolves every port GUID"

# Save what OpenSM is compared with: CA pairs by GID.
# collect FILE: "sguid dguid mtu rate life rev pkey sl" per CA pair
collect() {
	: >"$1"
	for s in $LIDS; do
		[ "${TYPE[$s]}" = "Channel Adapter" ] || continue
		for d in $LIDS; do
			[ "${TYPE[$d]}" = "Channel Adapter" ] || continue
			pr=$(sq -p --sgid-to-dgid "$(gid_of "${GUID[$s]}")-$(gid_of "${GUID[$d]}")")
			echo "${GUID[$s]} ${GUID[$d]}" \
			    "$(for f in mtu rate pkt_life num_path_revers pkey sl; do
				printf '%s ' "$(printf '%s\n' "$pr" | first $f)"; done)"
		done >>"$1"
	done
}
collect "$T/paths.ibsmd"

# ---- 2. partitions
sm_stop
h() { for l in $LIDS; do
	diag smpquery nodedesc "$l" 2>/dev/null | grep -q "\.$1\$" && { echo "$l"; return; }
      done; fail "no LID for $1"; }
H0=$(h h0) H1=$(h h1) H2=$(h h2) H3=$(h h3)
cat >"$T/partitions.conf" <<EOF
Default=0x7fff : ALL=limited, SELF=full ;
blue=0x0010 : ${GUID[$H0]}=full, ${GUID[$H2]}=full ;
EOF
sm_start -P "$T/partitions.conf"
wait_subnet_up 60
sleep 1
pr=$(sq -p --src-to-dst "$H0:$H2")
[ "$(printf '%s\n' "$pr" | first pkey)" = 0x8010 ] ||
    fail "h0 -> h2 should use blue (0x8010): $pr"
for pair in "$H0:$H1" "$H1:$H3" "$H3:$H2" "$H1:$H0"; do
	pr=$(sq -p --src-to-dst "$pair")
	printf '%s\n' "$pr" | grep -q 'dlid' &&
	    [ "$(printf '%s\n' "$pr" | first dlid)" != 0 ] &&
	    fail "ports $pair share no partition, yet: $pr"
done
pr=$(SIM_HOST=h1 LD_PRELOAD=$SIM_PRELOAD timeout 60 saquery -p --src-to-dst "$H0:$H2" 2>&1 8>&-)
printf '%s\n' "$pr" | grep -q 'dlid' &&
    [ "$(printf '%s\n' "$pr" | first dlid)" != 0 ] &&
    fail "h1 shares no partition with h0 and h2, yet sees their path: $pr"
log "partitions: blue path has P_Key 0x8010; no PathRecord where no partition is shared, nor for a requester outside"
sm_stop

# ---- 3. OpenSM on the same fabric
if ! command -v opensm >/dev/null 2>&1; then
	log "opensm not installed: comparison skipped"
	exit 0
fi
SM=opensm
sm_start
wait_subnet_up 60
sleep 2
end_ports
collect "$T/paths.opensm"
sm_stop
diff "$T/paths.ibsmd" "$T/paths.opensm" >"$T/paths.diff" || {
	cat "$T/paths.diff" >&2
	fail "CA-to-CA PathRecords differ from OpenSM's"
}
log "$(wc -l <"$T/paths.opensm") CA-to-CA PathRecords equal to OpenSM's (MTU, rate, life, reversible, P_Key, SL)"
