#!/bin/bash
# A port is always in scope of itself; a limited member shares a partition
# with every full member of it, two limited members share nothing
# (issue 22 point 1, issue 23 point 1).
#
# slowlink_ft2 with the issue's partitions (data/partitions_limited.conf):
# h3, h4, h6 and h7 are limited members of every partition they are in;
# h5 (0x100010) is a full member of compute (0x20), h6 (0x100013) and h7
# (0x100016) limited ones, the SM's port (h0) full in Default. h6 runs a
# simulated alias-capable adapter (tests/fixture/vdev). From h6, as its
# host would ask:
#   - saquery --sgid-to-dgid h6 -> h5: one PathRecord, P_Key 0x20; h6 -> the
#     SM: one, P_Key 0x7fff; h6 -> h7: none (two limited members);
#   - smpquery -G nodeinfo h5 (a PathRecord Get, then SMPs by LID) reads h5;
#   - ibping -G h5 (PathRecord, then a vendor MAD round trip to an ibping
#     server on h5) gets every answer;
#   - NodeRecords: exactly h6 itself, h0, h5 and the 6 switches (no h7);
#     its own PortInfoRecord and GUIDInfoRecord;
#   - from the VF side, as the mlx4 driver asks for alias GUIDs
#     (tests/fixture/guidreq: GUIDInfoRecord Set with 0 = SM picks): an
#     answer with a GUID, which smpquery then reads from h6's adapter, and
#     a GUIDInfoRecord Get of its own block that reports it.
# The same requests are made with OpenSM as the SM (same fabric, same
# file, same adapter): they succeed there too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev
command -v ibping >/dev/null || skip "ibping not found (infiniband-diags)"

PARTS=$TOP_SRCDIR/tests/sim/data/partitions_limited.conf
H6=0x100013
H5=0x100010
H7=0x100016

sq6() { SIM_HOST=h6 diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
# count PATTERN TEXT
count() { printf '%s\n' "$2" | grep -c "$1"; }
# val TEXT KEY: the value after KEY's dots
val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }

check() {
	local who=$1 out lid6 g n

	lid6=$(SIM_HOST=h6 diag smpquery -D portinfo 0 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
	[ -n "$lid6" ] && [ "$lid6" != 0 ] || fail "$who: h6 has no LID"

	# ---- PathRecords from the limited-only host
	out=$(sq6 -p --sgid-to-dgid fe80::10:13-fe80::10:10)
	[ "$(count '^PathRecord dump' "$out")" = 1 ] ||
	    fail "$who: h6 -> h5 (full member of compute): $(count '^PathRecord dump' "$out") PathRecords: $out"
	[ $(( $(val "$out" pkey) & 0x7fff )) = $((0x20)) ] ||
	    fail "$who: h6 -> h5 PathRecord P_Key $(val "$out" pkey), want 0x20"
	out=$(sq6 -p --sgid-to-dgid fe80::10:13-fe80::10:1)
	[ "$(count '^PathRecord dump' "$out")" = 1 ] ||
	    fail "$who: h6 -> the SM's port: $(count '^PathRecord dump' "$out") PathRecords"
	[ $(( $(val "$out" pkey) & 0x7fff )) = $((0x7fff)) ] ||
	    fail "$who: h6 -> SM PathRecord P_Key $(val "$out" pkey), want 0x7fff"
	out=$(sq6 -p --sgid-to-dgid fe80::10:13-fe80::10:16)
	[ "$(count '^PathRecord dump' "$out")" = 0 ] ||
	    fail "$who: h6 -> h7 (both limited) gave a PathRecord: $out"
	log "$who: PathRecords from limited-only h6: to h5 and the SM one each, to h7 none"

	# ---- smpquery -G: a PathRecord Get resolves h5
	out=$(SIM_HOST=h6 diag smpquery -G nodeinfo $H5 2>&1) ||
	    fail "$who: smpquery -G nodeinfo $H5 from h6: $out"
	[ "$(( $(val "$out" Guid) ))" = $((0x10000f)) ] ||
	    fail "$who: smpquery -G nodeinfo $H5 read $(val "$out" Guid)"

	# ---- records: itself, h0, h5 and the switches
	out=$(sq6)
	n=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*port_guid\.*//p' |
	    sed 's/0x0*/0x/' | sort | tr '\n' ' ')
	[ "$n" = "0x100001 0x100010 0x100013 0x200000 0x200001 0x200002 0x200003 0x200004 0x200005 " ] ||
	    fail "$who: NodeRecords h6 sees (port GUIDs): $n"
	out=$(sq6 PIR "$lid6")
	[ "$(count '^PortInfoRecord dump' "$out")" = 1 ] ||
	    fail "$who: h6's own PortInfoRecord (LID $lid6): $out"
	out=$(sq6 GIR "$lid6")
	g=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*GUID 0\.*//p' | head -1)
	[ -n "$g" ] && [ "$((g))" = $((H6)) ] ||
	    fail "$who: h6's own GUIDInfoRecord (LID $lid6): $out"
	log "$who: h6 sees its own NodeRecord, PortInfoRecord, GUIDInfoRecord, and 9 NodeRecords"

	# ---- the VF side: an alias GUID for VF 1, as mlx4 asks for it
	out=$(guidreq h6 set 0 1=0) ||
	    fail "$who: GUIDInfoRecord Set from limited-only h6 (exit $?): $out"
	g=$(printf '%s\n' "$out" | awk '$1 == 1 { print $2 }')
	[ -n "$g" ] && [ "$((g))" != 0 ] || fail "$who: no alias GUID assigned to h6: $out"
	n=0
	until diag smpquery GI "$lid6" 2>/dev/null | grep -q "^ *0: $(printf '0x%016x' $((H6))) $g\$"; do
		n=$((n + 1))
		[ $n -lt 40 ] || fail "$who: h6's adapter does not hold the alias GUID $g: $(diag smpquery GI "$lid6" 2>&1 | head -2)"
		sleep 0.5
	done
	out=$(guidreq h6 get 0) || fail "$who: GUIDInfoRecord Get from h6 (exit $?): $out"
	printf '%s\n' "$out" | grep -qx "1 $g" || fail "$who: GUIDInfoRecord Get of h6 block 0 does not report $g: $out"
	log "$who: VF alias GUID $g assigned to limited-only h6, on the adapter"

	# ---- ibping by GID to an ibping server on h5 (last: its client
	# holds IsSM on h5, which the SM notices)
	SIM_SET_ISSM=1 SIM_HOST=h5 LD_PRELOAD=$SIM_PRELOAD ibping -S \
	    >"$T/ibping-server.$who.out" 2>&1 8>&- </dev/null &
	PING_PID=$!
	_track "$PING_PID"
	sleep 1
	out=$(SIM_HOST=h6 diag ibping -c 3 -G $H5 2>&1)
	printf '%s\n' "$out" | grep -q '3 packets transmitted, 3 received' ||
	    fail "$who: ibping -G $H5 from h6: $out"
	out=$(SIM_HOST=h7 diag ibping -c 1 -G $H6 2>&1)
	printf '%s\n' "$out" | grep -q "can't resolve destination" ||
	    fail "$who: ibping -G h6 from h7 (both limited) resolved: $out"
	_stop_pid "$PING_PID" 3
	log "$who: ibping -G from h6 to h5: 3/3; from h7 to h6: no path"
}

run() {
	local who=$1
	shift
	sim_start "$FABRICS/slowlink_ft2.net"
	vdev_start h6 -g 32
	rm -rf "$T/state" "$T/run"
	SM=$who sm_start -P "$PARTS" "$@"
	SM=$who wait_subnet_up 60
	sleep 1
	check "$who"
	SM=$who sm_stop
	vdev_stop h6
	sim_stop
}

run ibsmd --virtualization enabled
if command -v opensm >/dev/null; then
	run opensm
else
	log "opensm not installed: the OpenSM half skipped"
fi
log "PASS"
