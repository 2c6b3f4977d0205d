#!/bin/bash
# SA records on ft2_8, read with saquery (infiniband-diags) and checked
# against what the devices say (smpquery, sminfo, ibroute, ibnetdiscover,
# dump_fts):
#   ClassPortInfo (CapabilityMask: exactly the bits of what the SA serves,
#   each probed); NodeRecord, PortInfoRecord, GUIDInfoRecord,
#   P_KeyTableRecord by LID; SMInfoRecord; SwitchInfoRecord and LFT record
#   of a switch; P_KeyTableRecord needs the SA key (REQ_INVALID without);
#   a wrong nonzero SM_Key gets no answer.
#   Whole tables (GetTable, RMPP): every NodeRecord (one per node
#   ibnetdiscover finds, same GUIDs and descriptions), every LinkRecord
#   (the links ibnetdiscover lists, both directions), every PortInfoRecord
#   (switch ports 0..N and every cabled CA port), every LFT record of
#   every switch (the entries dump_fts reads), the SMInfoRecord table.
# Then the same Get-style queries against OpenSM on the same fabric must
# give the same fields, and its whole tables pass the same checks.
# Justified differences, not compared:
#   - ClassPortInfo CapabilityMask/CapabilityMask2: OpenSM serves
#     multicast, MultiPath and more (0x2602); ibsmd names what it serves.
#   - SMInfoRecord ActCount (a counter) and the SM's own port GUID.
#   - LIDs: each SM assigns its own (tables are checked against the fabric
#     as each SM left it).
# The tables need the RMPP of the umadfix device (libumad2sim alone cuts
# every answer to one MAD).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

# sq ARGS...: saquery, ibwarn lines dropped
sq() { diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
# val TEXT KEY: the value after KEY's dots in saquery/smpquery output
val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }

# collect LABEL: the fields compared with OpenSM, one per line
collect() {
	local out=$T/fields.$1 l
	: >"$out"
	l=$(sq 2)                   # h? port: NodeRecord by LID
	for k in node_type num_ports node_guid port_guid port_num NodeDescription; do
		echo "NR.$k $(val "$l" "$k")" >>"$out"
	done
	l=$(sq PIR 2)
	for k in Lid SMLid LinkWidthActive LinkSpeedActive NeighborMTU; do
		echo "PIR.$k $(val "$l" "$k")" >>"$out"
	done
	l=$(sq GIR 2)
	echo "GIR.guid0 $(val "$l" 'GUID 0')" >>"$out"
	l=$(sq --smkey 1 PKTR 2)
	echo "PKTR.keys $(printf '%s\n' "$l" | grep -m1 '^[[:space:]]*0x')" >>"$out"
	l=$(sq SMIR)
	echo "SMIR.state $(val "$l" SMState)" >>"$out"
	echo "SMIR.lid $(val "$l" LID)" >>"$out"
}

# The fabric's end ports, links, ports and forwarding tables as the diags
# read them from the devices, and the SA's whole tables, one line per
# record, sorted: "$T/<what>.$1.fabric" and "$T/<what>.$1.sa".
tables() {
	local d=$T/ibnd.$1 n
	diag ibnetdiscover >"$d" 2>/dev/null || fail "$1: ibnetdiscover failed"
	# end ports: "lid node_guid port_guid description"
	awk '/^Switch/ { g = $3; gsub(/"|S-/, "", g); d = $0
		sub(/^[^#]*# "/, "", d); sub(/".*/, "", d)
		for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1), "0x" g, "0x" g, d; break } }
	    /^Ca/ { ca = $3; gsub(/"|H-/, "", ca); cd = $0
		sub(/^[^#]*# "/, "", cd); sub(/".*/, "", cd); next }
	    /^Switch/ { ca = ""; next }
	    /^\[/ && ca != "" { pg = $1; sub(/^[^(]*\(/, "", pg); sub(/\).*/, "", pg)
		r = $0; sub(/^[^#]*#/, "", r); split(r, w, " ")
		for (i = 1; i in w; i++) if (w[i] == "lid") { print w[i + 1], "0x" ca,
		    "0x" pg, cd; break } }' "$d" |
	    sed 's/0x0*\([0-9a-f]\)/0x\1/g' | sort >"$T/ends.$1.fabric"
	diag saquery >"$T/nr.$1.out" 2>&1 || fail "$1: saquery (NodeRecords) failed: $(tail -3 "$T/nr.$1.out")"
	awk '/^NodeRecord dump/ { if (l != "") print l, ng, pg, d; l = "" }
	    /^[[:space:]]*lid\.\.\./ { v = $0; sub(/.*\.\.\./, "", v); l = v + 0 }
	    /node_guid\.\.\./ { v = $0; sub(/.*\.\.\./, "", v); ng = v }
	    /port_guid\.\.\./ { v = $0; sub(/.*\.\.\./, "", v); pg = v }
	    /NodeDescription\.\.\./ { v = $0; sub(/.*NodeDescription\.*/, "", v); d = v }
	    END { if (l != "") print l, ng, pg, d }' "$T/nr.$1.out" |
	    sed 's/0x0*\([0-9a-f]\)/0x\1/g' | sort >"$T/ends.$1.sa"
	n=$(wc -l <"$T/ends.$1.fabric")
	[ "$n" -ge 44 ] || fail "$1: ibnetdiscover found $n end ports on ft2_8"
	[ "$(grep -c '^NodeRecord dump' "$T/nr.$1.out")" = "$n" ] ||
	    fail "$1: $(grep -c '^NodeRecord dump' "$T/nr.$1.out") NodeRecords, $n end ports"
	diff "$T/ends.$1.fabric" "$T/ends.$1.sa" >"$T/ends.$1.diff" ||
	    fail "$1: NodeRecords (lid node_guid port_guid description) differ from ibnetdiscover's end ports: $(head -6 "$T/ends.$1.diff")"

	# links: "from_lid from_port to_lid to_port", both directions
	awk '/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") { lid = $(i + 1); break }; ca = 0; next }
	    /^Ca/ { ca = 1; next }
	    /^\[/ { p = substr($1, 2, index($1, "]") - 2); rp = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^"[SH]-/) { rp = $i; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp) }
		r = $0; sub(/^[^#]*#/, "", r); k = 0; split(r, w, " ")
		for (i = 1; i in w; i++) if (w[i] == "lid") lids[++k] = w[i + 1]
		if (ca) print lids[1], p, lids[2], rp; else print lid, p, lids[1], rp }' "$d" |
	    sort >"$T/links.$1.fabric"
	diag saquery -x >"$T/lr.$1.out" 2>&1 || fail "$1: saquery -x failed"
	awk '/FromLID/ { v = $0; sub(/.*\./, "", v); f = v }
	    /FromPort/ { v = $0; sub(/.*\./, "", v); fp = v }
	    /ToPort/ { v = $0; sub(/.*\./, "", v); tp = v }
	    /ToLID/ { v = $0; sub(/.*\./, "", v); print f, fp, v, tp }' "$T/lr.$1.out" |
	    sort >"$T/links.$1.sa"
	n=$(wc -l <"$T/links.$1.fabric")
	[ "$n" -ge 128 ] || fail "$1: ibnetdiscover lists $n connected ports on ft2_8"
	diff "$T/links.$1.fabric" "$T/links.$1.sa" >"$T/links.$1.diff" ||
	    fail "$1: LinkRecords differ from ibnetdiscover's links: $(head -6 "$T/links.$1.diff")"

	# ports: every switch port 0..N, every cabled CA port: "lid port"
	awk '/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") { lid = $(i + 1); break }
		for (p = 0; p <= $2; p++) print lid, p; ca = 0; next }
	    /^Ca/ { ca = 1; next }
	    /^\[/ && ca { p = substr($1, 2, index($1, "]") - 2)
		r = $0; sub(/^[^#]*#/, "", r); split(r, w, " ")
		for (i = 1; i in w; i++) if (w[i] == "lid") { print w[i + 1], p; break } }' "$d" |
	    sort >"$T/ports.$1.fabric"
	diag saquery PIR >"$T/pir.$1.out" 2>&1 || fail "$1: saquery PIR failed"
	awk '/EndPortLid/ { v = $0; sub(/.*\./, "", v); l = v }
	    /^[[:space:]]*PortNum\./ { v = $0; sub(/.*\./, "", v); print l, v }' "$T/pir.$1.out" |
	    sort >"$T/ports.$1.sa"
	diff "$T/ports.$1.fabric" "$T/ports.$1.sa" >"$T/ports.$1.diff" ||
	    fail "$1: PortInfoRecords (lid port) differ from the fabric's ports: $(head -6 "$T/ports.$1.diff")"

	# forwarding: "switch_lid lid port" of every switch, as dump_fts reads
	# the devices; the LFT records' entries other than 255 (unused)
	diag dump_fts >"$T/fts.$1.out" 2>/dev/null || fail "$1: dump_fts failed"
	awk 'FNR == NR { if ($0 ~ /^Switch/) { g = $3; gsub(/"|S-/, "", g)
		for (i = 1; i <= NF; i++) if ($i == "lid") lid["0x" g] = $(i + 1) }; next }
	    /^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1)
		sub(/:$/, "", g); s = lid[g] }
	    /^0x[0-9a-f]+ [0-9]+ / { h = tolower(substr($1, 3)); v = 0
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		printf "%d %d %d\n", s, v, $2 + 0 }' \
	    "$d" "$T/fts.$1.out" | sort >"$T/lft.$1.fabric"
	diag saquery LFTR >"$T/lftr.$1.out" 2>&1 || fail "$1: saquery LFTR failed"
	awk '/^LFT Record dump/ { inb = 0 }
	    /^[[:space:]]*LID\.\.\./ { v = $0; sub(/.*\./, "", v); s = v }
	    /LID[[:space:]]+Port Number/ { inb = 1; next }
	    inb && NF == 2 && $2 != 255 { print s, $1, $2 }' "$T/lftr.$1.out" |
	    sort >"$T/lft.$1.sa"
	n=$(wc -l <"$T/lft.$1.fabric")
	[ "$n" -ge $((12 * 44)) ] || fail "$1: dump_fts read $n forwarding entries"
	diff "$T/lft.$1.fabric" "$T/lft.$1.sa" >"$T/lft.$1.diff" ||
	    fail "$1: LFT records differ from dump_fts: $(head -6 "$T/lft.$1.diff")"

	# SMInfoRecord table: the one master, the port sminfo names
	diag saquery SMIR >"$T/smir.$1.out" 2>&1 || fail "$1: saquery SMIR failed"
	[ "$(grep -c '^SMInfoRecord dump' "$T/smir.$1.out")" = 1 ] ||
	    fail "$1: SMInfoRecord table: $(cat "$T/smir.$1.out")"
	smi=$(diag sminfo 2>/dev/null)
	guid=$(printf '%s\n' "$smi" | sed -n 's/.*sm guid \(0x[0-9a-fA-F]*\),.*/\1/p')
	[ -n "$guid" ] && [ "$((guid))" = "$(( $(val "$(cat "$T/smir.$1.out")" GUID) ))" ] &&
	    [ "$(val "$(cat "$T/smir.$1.out")" SMState)" = 3 ] ||
	    fail "$1: SMInfoRecord table vs sminfo: $(cat "$T/smir.$1.out") / $smi"
	log "$1: whole tables agree with the fabric: $(wc -l <"$T/ends.$1.sa") NodeRecords, $(wc -l <"$T/links.$1.sa") LinkRecords, $(wc -l <"$T/ports.$1.sa") PortInfoRecords, $(wc -l <"$T/lft.$1.sa") LFT entries, 1 SMInfoRecord"
}

sim_start "$FABRICS/ft2_8.net"
sm_start
wait_subnet_up 60
sleep 1

# ---- ClassPortInfo
cpi=$(sq -c)
[ "$(val "$cpi" 'Base version')" = 1 ] || fail "ClassPortInfo BaseVersion: $cpi"
[ "$(val "$cpi" 'Class version')" = 2 ] || fail "ClassPortInfo ClassVersion: $cpi"
[ "$(val "$cpi" 'Redirect QKey')" = 0x80010000 ] || fail "ClassPortInfo Redirect Q_Key: $cpi"
[ "$(val "$cpi" 'Redirect QP')" = 0x00000001 ] || fail "ClassPortInfo Redirect QP: $cpi"
# ibsmd serves MCMemberRecord (bit 9 UD multicast; CapabilityMask2 bit 12
# SendOnlyFullMember), MultiPathRecord (bit 10) and PortInfoRecord with the
# CapabilityMask match (bit 13); CapabilityMask2 bit 5 (alias GUIDs): they
# are served in every virtualization mode (issue 23 point 2).
[ "$(val "$cpi" 'Capability mask')" = 0x2600 ] || fail "ClassPortInfo CapabilityMask (UD multicast, MultiPath, PortInfo CapabilityMask match): $cpi"
# CapabilityMask2 bit 3: ibsmd programs MulticastFDBTop where a switch
# has one (saquery shows SwitchInfoRecord's field only with it); Reports
# come with the Trap Q_Key of QP1 (issue 22 point 8)
[ "$(( $(val "$cpi" 'Capability mask 2') ))" = "$((0x1028))" ] || fail "ClassPortInfo CapabilityMask2 (send-only full member, alias GUIDs, MulticastFDBTop): $cpi"
[ "$(val "$cpi" 'Trap QKey')" = 0x80010000 ] || fail "ClassPortInfo Trap Q_Key: $cpi"
log "ClassPortInfo ok"

# ---- NodeRecord, PortInfoRecord, GUIDInfoRecord for every CA port LID
# (LIDs 1.. of the fabric; a switch LID is checked below)
checked=0
for lid in $(sim_lids); do
	ni=$(diag smpquery nodeinfo "$lid" 2>/dev/null) || continue
	case $(val "$ni" NodeType) in
	"Channel Adapter") ;;
	*) continue ;;
	esac
	nr=$(sq "$lid")
	[ "$(val "$nr" node_guid)" = "$(val "$ni" Guid)" ] ||
	    fail "NodeRecord $lid node_guid $(val "$nr" node_guid) != NodeInfo $(val "$ni" Guid)"
	[ "$(val "$nr" port_guid)" = "$(val "$ni" PortGuid)" ] ||
	    fail "NodeRecord $lid port_guid $(val "$nr" port_guid) != NodeInfo $(val "$ni" PortGuid)"
	[ "$(val "$nr" port_num)" = "$(val "$ni" LocalPort)" ] ||
	    fail "NodeRecord $lid port_num != NodeInfo LocalPort"
	nd=$(diag smpquery nodedesc "$lid" 2>/dev/null | sed -n 's/^Node Description:\.*//p')
	[ "$(val "$nr" NodeDescription)" = "$nd" ] ||
	    fail "NodeRecord $lid description '$(val "$nr" NodeDescription)' != '$nd'"
	pi=$(diag smpquery portinfo "$lid" 2>/dev/null)
	pir=$(sq PIR "$lid")
	for k in Lid SMLid LinkWidthActive LinkSpeedActive NeighborMTU; do
		[ "$(val "$pir" "$k")" = "$(val "$pi" "$k")" ] ||
		    fail "PortInfoRecord $lid $k '$(val "$pir" "$k")' != PortInfo '$(val "$pi" "$k")': $pir"
	done
	gir=$(sq GIR "$lid")
	[ "$(val "$gir" 'GUID 0')" = "$(val "$ni" PortGuid)" ] ||
	    fail "GUIDInfoRecord $lid GUID 0 != port GUID"
	pk=$(diag smpquery pkeys "$lid" 2>/dev/null | awk '$1 == "0:" { print $2; exit }')
	pkr=$(sq --smkey 1 PKTR "$lid" | grep -m1 '^[[:space:]]*0x' | awk '{ print $1 }')
	[ -n "$pk" ] && [ "$pkr" = "$pk" ] ||
	    fail "P_KeyTableRecord $lid first key '$pkr' != P_KeyTable '$pk'"
	checked=$((checked + 1))
done
[ "$checked" -ge 8 ] || fail "only $checked CA LIDs checked"
log "NodeRecord, PortInfoRecord, GUIDInfoRecord, P_KeyTableRecord agree with the devices on $checked CA ports"

# ---- P_KeyTableRecord needs the key
out=$(sq PKTR 2)
printf '%s\n' "$out" | grep -q 'SA_ERR_REQ_INVALID' ||
    fail "untrusted P_KeyTableRecord not refused: $out"

# ---- SMInfoRecord vs sminfo
smi=$(diag sminfo 2>/dev/null)
smir=$(sq SMIR)
guid=$(printf '%s\n' "$smi" | sed -n 's/.*sm guid \(0x[0-9a-fA-F]*\),.*/\1/p')
[ "$((guid))" = "$(( $(val "$smir" GUID) ))" ] || fail "SMInfoRecord GUID vs sminfo: $smir / $smi"
[ "$(val "$smir" SMState)" = 3 ] || fail "SMInfoRecord state: $smir"

# ---- a switch: SwitchInfoRecord, LFT record block 0 vs ibroute
swlid=""
for lid in $(sim_lids); do
	ni=$(diag smpquery nodeinfo "$lid" 2>/dev/null) || continue
	[ "$(val "$ni" NodeType)" = Switch ] && { swlid=$lid; break; }
done
[ -n "$swlid" ] || fail "no switch LID found"
si=$(diag smpquery switchinfo "$swlid" 2>/dev/null)
swir=$(sq SWIR "$swlid")
[ "$(( $(val "$swir" LinearFDBCap) ))" = "$(val "$si" LinearFdbCap)" ] ||
    fail "SwitchInfoRecord $swlid LinearFDBCap vs SwitchInfo"
lftr=$(sq LFTR "$swlid")
fts=$(diag ibroute "$swlid" 2>/dev/null | awk '/^0x/ { print $1, $2 + 0 }')
[ -n "$fts" ] || fail "ibroute gave no table for switch $swlid"
n=0
while read -r dl port; do
	dl=$((dl))
	[ "$dl" -lt 64 ] || continue
	got=$(printf '%s\n' "$lftr" | awk -v l="$dl" '$1 == l && NF == 2 { print $2; exit }')
	[ "$got" = "$port" ] || fail "LFT record of $swlid: LID $dl -> '$got', ibroute says $port"
	n=$((n + 1))
done <<EOF
$fts
EOF
[ "$n" -ge 10 ] || fail "LFT record compared on $n LIDs only"
log "SMInfoRecord, SwitchInfoRecord and LFT record ($n LIDs) agree"

# ---- a wrong SM_Key is dropped: no record comes back
# (saquery must end on its own MAD timeout, and when umadfix is in use
# its counters must show that timeout: an early error such as a failed
# open would otherwise also leave "no record" and pass.)
rc=0
out=$(UMADFIX_STATS=$T/smkey.stats DIAG_TIMEOUT=20 diag saquery --smkey 7 2 2>&1) || rc=$?
if printf '%s\n' "$out" | grep -q 'node_guid'; then
	fail "request with a wrong SM_Key was answered"
fi
[ "$rc" != 0 ] || fail "saquery --smkey 7 succeeded"
[ "$rc" != 124 ] || fail "saquery --smkey 7 did not end within 20 s"
printf '%s\n' "$out" | grep -q 'timed out' ||
    fail "saquery --smkey 7 did not end with a timeout: $out"
grep -q ' timeouts [1-9]' "$T/smkey.stats" ||
    fail "umadfix counted no timeout: $(cat "$T/smkey.stats" 2>&1)"
log "wrong SM_Key: not answered (saquery timed out)"

collect ibsmd
tables ibsmd
grep -q '^NR.node_guid 0x' "$T/fields.ibsmd" || fail "no NodeRecord fields collected"
sm_stop

# ---- the same queries against OpenSM
if command -v opensm >/dev/null; then
	SM=opensm
	sm_start
	wait_subnet_up 60
	sleep 2
	collect opensm
	tables opensm
	sm_stop
	# The SM's LID may differ (OpenSM numbers from its own port too).
	if ! diff "$T/fields.opensm" "$T/fields.ibsmd" >"$T/fields.diff"; then
		cat "$T/fields.diff" >&2
		fail "ibsmd and OpenSM answer differently"
	fi
	log "OpenSM gives the same records"
else
	log "opensm not installed: comparison skipped"
fi
log "PASS"
