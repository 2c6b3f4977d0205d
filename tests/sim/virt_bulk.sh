#!/bin/bash
# The bulk mode of the simulated virtualization-capable HCAs
# (UMADFIX_VBULK, tests/fixture/vintercept.c): every HCA port of ft2_8 is
# served inside ibsmd's own fixture with 8 LIDRequired vports (of 9: one
# free for a migration), no vdev
# process. Checks, on what the devices hold (the shim's `list`) and on
# dump_fts:
#   - every cabled HCA port has 8 vports, all ACTIVE with LIDs of their own,
#     unique;
#   - dump_fts forwards every vport LID in every switch exactly where its
#     physical port's LID goes;
#   - a migration through the control socket (trap 1146 from both ports):
#     the vport comes back ACTIVE on the other host with the same LID, and
#     dump_fts forwards it to the new host; and the migration's vport
#     sweep reads only the two hosts that changed: the VPortInfo Gets the
#     devices answered (the shim's `stats`) are fewer than one per vport
#     of three hosts (a sweep that re-read every host would send one per
#     vport of all of them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

CTL=$T/vbulk.sock
vbulk() { "$VDEV" -C "$CTL" "$@"; }

sim_start "$FABRICS/ft2_8.net"
export UMADFIX_VBULK="vports=9,up=8,lidreq=1,ctl=$CTL"
sm_start --virtualization enabled -s 1
unset UMADFIX_VBULK
wait_subnet_up 90

# all_active: 8 vports on every cabled HCA port, ACTIVE with a LID
NPORTS=$(grep -c '^Hca' "$FABRICS/ft2_8.net")
all_active() {
	vbulk list >"$T/list.txt" 2>/dev/null || return 1
	[ "$(awk '$8 == "active" && $10 != 0' "$T/list.txt" | wc -l)" -eq $((NPORTS * 8)) ]
}
poll_until 60 all_active >/dev/null ||
    fail "not every HCA has 8 ACTIVE vports with LIDs: $(awk '{ print $8 }' "$T/list.txt" | sort | uniq -c | tr '\n' ' ')"
[ "$(awk '{ print $2 }' "$T/list.txt" | sort -u | wc -l)" -eq "$NPORTS" ] ||
    fail "vports not on $NPORTS distinct ports"
dup=$(awk '{ print $10 }' "$T/list.txt" | sort | uniq -d | head -3)
[ -z "$dup" ] || fail "vport LIDs given twice: $dup"
awk '$4 == $10 { bad = 1 } END { exit bad }' "$T/list.txt" ||
    fail "a LIDRequired vport shares its port's LID"
log "$(wc -l <"$T/list.txt") vports ACTIVE on $NPORTS ports"

fts() { diag dump_fts >"$T/fts.txt" 2>/dev/null || fail "dump_fts failed"; }
# lid,port-lid pairs whose exits differ in some switch (none expected)
mismatch() {
	awk '
	    function hex(s,   i, n) {
		n = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	    }
	    FNR == NR { want[$10] = $4; next }
	    /^Unicast lids/ { sw = $0; sub(/.*guid /, "", sw); sub(/ .*/, "", sw) }
	    /^0x[0-9a-fA-F]+ [0-9]+/ { ex[sw, hex($1)] = $2; sws[sw] = 1 }
	    END {
		for (v in want)
			for (sw in sws)
				if (ex[sw, v] == "" || ex[sw, v] != ex[sw, want[v]]) {
					print v "/" want[v] " in " sw; n++; if (n > 3) exit
				}
	    }' "$1" "$T/fts.txt"
}
fts
bad=$(mismatch "$T/list.txt")
[ -z "$bad" ] || fail "vport LIDs not forwarded as their ports' LIDs: $bad"
log "dump_fts forwards all $(wc -l <"$T/list.txt") vport LIDs as their ports'"

# a migration: the first vport of the first port to the last port
read -r _ from _ flid _ idx _ _ _ vlid _ vguid < <(head -1 "$T/list.txt")
to=$(awk '{ print $2 }' "$T/list.txt" | sort -u | grep -v "^$from\$" | tail -1)
tlid=$(awk -v p="$to" '$2 == p { print $4; exit }' "$T/list.txt")
# the latched VPortStateChange of bring-up is read by a light sweep (-s 1)
sleep 3
vbulk mark >/dev/null || fail "mark failed"
out=$(vbulk migrate "$vguid" "$to") || fail "migrate: $out"
log "migrate $vguid (LID $vlid) from $from (LID $flid) to $to (LID $tlid): $out"
moved() {
	vbulk list >"$T/list2.txt" 2>/dev/null || return 1
	awk -v g="$vguid" -v p="$to" -v l="$vlid" \
	    '$12 == g && $2 == p && $8 == "active" && $10 == l { f = 1 } END { exit !f }' \
	    "$T/list2.txt"
}
poll_until 30 moved >/dev/null || fail "vport $vguid not ACTIVE on $to with LID $vlid: $(grep "$vguid" "$T/list2.txt")"
fwd_moved() {
	fts
	[ -z "$(grep -- "$vguid" "$T/list2.txt" | mismatch /dev/stdin)" ]
}
poll_until 30 fwd_moved >/dev/null ||
    fail "dump_fts does not forward LID $vlid to $to: $(grep -- "$vguid" "$T/list2.txt" | mismatch /dev/stdin)"
log "LID $vlid now forwarded as $to's LID $tlid"
sleep 0.5       # the sweep's last writes
vbulk stats >"$T/st" || fail "stats failed"
gets=$(awk '$1 == "attr" && $2 == "0xffb1" { print $4 }' "$T/st")
gets=${gets:-0}
[ "$gets" -gt 0 ] || fail "no VPortInfo Get during the migration: $(tr '\n' ' ' <"$T/st")"
[ "$gets" -lt $((3 * 9)) ] ||
    fail "the migration's vport sweep sent $gets VPortInfo Gets (of $((NPORTS * 9)) vport slots up): it re-read unchanged hosts"
log "migration: $gets VPortInfo Gets ($NPORTS hosts, 9 vports each)"
log "PASS"
