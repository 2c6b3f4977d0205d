#!/bin/bash
# SA answers what OpenSM answers (issue 22 points 2, 3, 4, 6, 7, 8, 9),
# observed with the standard clients and raw MADs on slowlink_ft2 with the
# issue's partitions (data/partitions_limited.conf: h3, h4, h6, h7 limited
# members of every partition they are in):
#   2. every (method, attribute) pair of the SA class gets an answer
#      (tests/sim/saraw -A): the response method, 0x0008 for a method the
#      SA serves for nothing (Report, GetTraceTable), 0x000C for
#      InformInfo Get, GetMulti of NodeRecord, Set of a read-only record;
#      SL2VLTableRecord and VLArbitrationTableRecord hold what smpquery
#      sl2vl and vlarb read from the devices, one record per switch
#      (input, output) pair and per CA port, VL arbitration blocks as the
#      ports' caps give (none on a base switch port 0);
#   3. a ServiceRecord Set with mask 0x57 (ID, GID, P_Key, lease, name),
#      then a Delete with mask 0x40 (name only) carrying the same record:
#      status 0, the record gone (saquery -S);
#   4. a multicast group created with an MTU, rate or PacketLifeTime
#      selector (greater than, less than) takes its creator's identical
#      re-join (status 0);
#   6. P_KeyTableRecord covers every port, switch inter-switch ports
#      included, with the keys smpquery pkeys reads;
#   7. a PathRecord by link-local GIDs of fe80::/10 other than fe80::
#      (fe81::, fe80:0:0:1::) is answered like fe80::, a site-local one is
#      not (ERR_REQ_INVALID_GID);
#   8. ClassPortInfo: CapabilityMask2 bit 3 (MulticastFDBTop), Trap Q_Key
#      0x80010000;
#   9. compute's sl=1 is not put into its PathRecords nor its broadcast
#      group while ibsmd programs no SL-to-VL mapping: SL 0.
# OpenSM 3.3.23 answers 3, 4, 7 and 9 the same way (sa_vs_opensm.sh).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
: "${SARAW:=$PWD/tests/sim/saraw}"
: "${MCJOIN:=$PWD/tests/sim/mcjoin}"
[ -x "$SARAW" ] || fail "SARAW=$SARAW is not an executable (make check builds it)"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"

PARTS=$TOP_SRCDIR/tests/sim/data/partitions_limited.conf
sq() { local h=$1; shift; SIM_HOST=$h diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }
count() { printf '%s\n' "$2" | grep -c "$1"; }

sim_start "$FABRICS/slowlink_ft2.net"
sm_start -P "$PARTS"
wait_subnet_up 60

# The fabric's LIDs as the devices hold them: "lid type nports" per node
# (a switch's port 0 LID, a CA's port 1 LID)
diag ibnetdiscover >"$T/ibnd" 2>/dev/null || fail "ibnetdiscover failed"
awk '/^Switch/ { n = $2; for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1), "sw", n; break } }
    /^Ca/ { ca = 1; next } /^Switch/ { ca = 0 }
    /^\[1\]/ && ca { r = $0; sub(/^[^#]*#/, "", r); split(r, w, " ")
	for (i = 1; i in w; i++) if (w[i] == "lid") { print w[i + 1], "ca", 1; break }; ca = 0 }' \
    "$T/ibnd" | sort -n | uniq >"$T/nodes"
[ "$(grep -c ' sw ' "$T/nodes")" = 6 ] && [ "$(grep -c ' ca ' "$T/nodes")" = 8 ] ||
    fail "ibnetdiscover: not 6 switches and 8 CAs: $(cat "$T/nodes")"

# ---- 2. SL-to-VL and VL arbitration tables, read by ibsmd after subnet up
sl2vl_count() { sq h0 SL2VL | grep -c '^SL2VLTableRecord dump'; }
n=$(poll_until 20 sh -c "[ \"\$(SIM_HOST=h0 LD_PRELOAD='$SIM_PRELOAD' saquery SL2VL 2>/dev/null | grep -c '^SL2VLTableRecord dump')\" -ge 158 ]" 8>&-) ||
    fail "SL2VLTableRecords: $(sl2vl_count), want 158 (6 switches x 5 x 5, 8 CA ports)"
sq h0 SL2VL >"$T/sl2vl.sa"
sq h0 VLAR >"$T/vlarb.sa"
: >"$T/sl2vl.dev"
: >"$T/vlarb.dev"
# the devices read for a sample: the first switch (every table) and the
# first CA (each diag is a process and an ibsim client: the whole fabric
# would take seconds)
sw1=$(awk '$2 == "sw" { print; exit }' "$T/nodes")
ca1=$(awk '$2 == "ca" { print; exit }' "$T/nodes")
printf '%s\n%s\n' "$sw1" "$ca1" >"$T/sample"
while read -r lid kind np; do
	outs=0
	[ "$kind" = sw ] && outs=$(seq 0 "$np")
	for o in $outs; do
		diag smpquery sl2vl "$lid" "$o" 2>/dev/null |
		    awk -v l="$lid" -v k="$kind" '/^ports:/ { s = $0; sub(/^[^|]*\|/, "", s)
			gsub(/[| ]+/, " ", s); i = $3 + 0; o = $5 + 0
			if (k == "ca") { i = 0; o = 0 }
			print l, i, o, s }' >>"$T/sl2vl.dev"
	done
	ports=1
	[ "$kind" = sw ] && ports=$(seq 1 "$np")      # base port 0: none
	for p in $ports; do
		# VL/weight pairs of the low and high tables, as smpquery prints
		diag smpquery vlarb "$lid" "$p" 2>/dev/null |
		    awk -v l="$lid" -v p="$p" '/Low priority/ { t = 1 } /High priority/ { t = 3 }
			/^VL/ { v = $0; sub(/^[^|]*\|/, "", v); gsub(/[| ]+/, " ", v) }
			/^WEIGHT/ { w = $0; sub(/^[^|]*\|/, "", w); gsub(/[| ]+/, " ", w)
			    nv = split(v, a, " "); split(w, b, " "); s = ""
			    for (i = 1; i <= nv; i++) s = s sprintf(" %d/%d", a[i], b[i])
			    print l, p, t, s }' >>"$T/vlarb.dev"
	done
done <"$T/sample"
awk '/^SL2VLTableRecord dump/ { l = ""; next }
    /LID\.\.\./ { v = $0; sub(/.*\./, "", v); l = v }
    /InPort/ { v = $0; sub(/.*\./, "", v); i = v }
    /OutPort/ { v = $0; sub(/.*\./, "", v); o = v }
    /VL:/ { s = $0; sub(/^[^:]*:/, "", s); gsub(/[| ]+/, " ", s); print l, i, o, s }' \
    "$T/sl2vl.sa" | sed 's/ *$//' | sort >"$T/sl2vl.sa.n"
sed 's/ *$//' "$T/sl2vl.dev" | sort >"$T/sl2vl.dev.n"
[ "$(wc -l <"$T/sl2vl.sa.n")" = 158 ] || fail "$(wc -l <"$T/sl2vl.sa.n") SL2VLTableRecords, want 158"
[ "$(wc -l <"$T/sl2vl.dev.n")" = 26 ] || fail "smpquery sl2vl read $(wc -l <"$T/sl2vl.dev.n") tables, want 26"
sample() { awk 'NR == FNR { s[$1] = 1; next } s[$1]' "$T/sample" "$1"; }
sample "$T/sl2vl.sa.n" | diff "$T/sl2vl.dev.n" - >"$T/sl2vl.diff" ||
    fail "SL2VLTableRecords differ from what smpquery sl2vl reads: $(head -4 "$T/sl2vl.diff")"
# VLArb records: blocks 1 (low) and 3 (high) of caps 8; the entries a cap
# of 8 holds, as "vl/weight"
awk '/^VLArbTableRecord dump/ { n = 0; next }
    /LID\.\.\./ { v = $0; sub(/.*\./, "", v); l = v }
    /Port\.\.\./ { v = $0; sub(/.*\./, "", v); p = v }
    /Block\.\.\./ { v = $0; sub(/.*\./, "", v); b = v }
    /VL    :/ { n++; if (n == 1) { vl = $0; sub(/^[^:]*:/, "", vl); gsub(/[| ]+/, " ", vl) } }
    /Weight:/ && n == 1 { w = $0; sub(/^[^:]*:/, "", w); gsub(/[| ]+/, " ", w)
	split(vl, a, " "); split(w, c, " "); s = ""
	for (i = 1; i <= 8; i++) s = s sprintf(" %d/%d", a[i], c[i])
	print l, p, b, s }' "$T/vlarb.sa" | sort >"$T/vlarb.sa.n"
sort "$T/vlarb.dev" >"$T/vlarb.dev.n"
[ "$(wc -l <"$T/vlarb.sa.n")" = 64 ] || fail "$(wc -l <"$T/vlarb.sa.n") VLArbitrationTableRecords, want 64"
[ "$(wc -l <"$T/vlarb.dev.n")" = 10 ] || fail "smpquery vlarb read $(wc -l <"$T/vlarb.dev.n") tables, want 10"
sample "$T/vlarb.sa.n" | diff "$T/vlarb.dev.n" - >"$T/vlarb.diff" ||
    fail "VLArbitrationTableRecords differ from what smpquery vlarb reads: $(head -4 "$T/vlarb.diff")"
log "2: 158 SL2VLTableRecords and 64 VLArbitrationTableRecords; those of a switch and a CA as smpquery reads them"

# ---- 2. every (method, attribute) pair of the class is answered
SIM_HOST=h1 diag "$SARAW" -A -t 500 >"$T/all" 2>&1 || fail "saraw -A: $(tail -3 "$T/all")"
[ "$(grep -c '^method=' "$T/all")" = 154 ] || fail "saraw -A sent $(grep -c '^method=' "$T/all") requests, want 7 x 22"
if grep -q timeout "$T/all"; then
	fail "requests left unanswered: $(grep timeout "$T/all" | tr '\n' ';')"
fi
while read -r m a s r; do
	m=${m#method=}
	want=$(printf '0x%02x' $(( m == 2 ? 0x81 : m | 0x80 )))
	[ "${r#resp=}" = "$want" ] || fail "answer to $m $a: $s $r, want method $want"
done <"$T/all"
st() { awk -v m="$1" -v a="$2" '$1 == "method=" m && $2 == "attr=" a { sub(/status=/, "", $3); print $3 }' "$T/all"; }
[ "$(st 0x01 0x0003)" = 0x000c ] || fail "InformInfo Get: status $(st 0x01 0x0003), want 0x000c"
[ "$(st 0x14 0x0011)" = 0x000c ] || fail "GetMulti NodeRecord: status $(st 0x14 0x0011), want 0x000c"
[ "$(st 0x02 0x0011)" = 0x000c ] || fail "Set NodeRecord: status $(st 0x02 0x0011), want 0x000c"
[ "$(st 0x13 0x0011)" = 0x0008 ] || fail "GetTraceTable: status $(st 0x13 0x0011), want 0x0008"
[ "$(st 0x06 0x0002)" = 0x0008 ] || fail "Report: status $(st 0x06 0x0002), want 0x0008"
[ "$(st 0x12 0x0013)" = 0x0000 ] || fail "SL2VLTableRecord GetTable: status $(st 0x12 0x0013)"
[ "$(st 0x12 0x0036)" = 0x0000 ] || fail "VLArbitrationTableRecord GetTable: status $(st 0x12 0x0036)"
log "2: 154 (method, attribute) pairs, each answered"

# ---- 6. P_KeyTableRecord: every port, as smpquery pkeys reads it
sq h0 --smkey 1 PKTR >"$T/pktr.sa"
awk '/^PKeyTableRecord dump/ { k = ""; next }
    /LID\.\.\./ { v = $0; sub(/.*\./, "", v); l = v }
    /Port\.\.\./ { v = $0; sub(/.*\./, "", v); p = v }
    /Block\.\.\./ { v = $0; sub(/.*\./, "", v); b = v + 0
	if (b >= 256) b = b / 256     # saquery prints BlockNum in host order
    }
    /^[[:space:]]+0x/ { for (i = 1; i <= NF; i++) k = k " " $i
	if (++rows % 4 == 0) print l, p, b k }' "$T/pktr.sa" | sort >"$T/pktr.sa.n"
: >"$T/pktr.dev"
while read -r lid kind np; do
	ports=1
	[ "$kind" = sw ] && ports=$(seq 0 "$np")
	for p in $ports; do
		diag smpquery pkeys "$lid" "$p" 2>/dev/null |
		    awk -v l="$lid" -v p="$p" '/^ *[0-9]+:/ { i = $1 + 0; b = int(i / 32)
			for (j = 2; j <= NF; j++) k[b] = k[b] " " $j; nb = b }
			END { for (b = 0; b <= nb; b++) { n = split(k[b], x, " ")
			    for (; n < 32; n++) k[b] = k[b] " 0x0000"   # a record holds 32
			    print l, p, b k[b] } }' >>"$T/pktr.dev"
	done
done <"$T/sample"
sort "$T/pktr.dev" >"$T/pktr.dev.n"
# every port of the fabric has its blocks: CA ports and switch external
# ports 2 (64 keys), switch port 0 one (8)
awk '{ print $1, $2 }' "$T/pktr.sa.n" | sort -u >"$T/pktr.ports"
[ "$(wc -l <"$T/pktr.sa.n")" = 70 ] && [ "$(wc -l <"$T/pktr.ports")" = 38 ] ||
    fail "$(wc -l <"$T/pktr.sa.n") P_KeyTableRecords of $(wc -l <"$T/pktr.ports") ports, want 70 of 38 (8 CA ports, 6 switches x 5)"
[ "$(wc -l <"$T/pktr.dev.n")" = 11 ] || fail "smpquery pkeys read $(wc -l <"$T/pktr.dev.n") blocks, want 11"
sample "$T/pktr.sa.n" | diff "$T/pktr.dev.n" - >"$T/pktr.diff" ||
    fail "P_KeyTableRecords differ from the devices' tables: $(head -4 "$T/pktr.diff")"
log "6: 70 P_KeyTableRecords of 38 ports (inter-switch ports included); a switch's and a CA's as smpquery reads them"

# ---- 7. link-local GIDs: fe80::/10
for g in fe81::10:4 fe80:0:0:1::10:4 febf::10:4; do
	out=$(sq h1 -p --sgid-to-dgid "$g-fe80::10:7")
	[ "$(count '^PathRecord dump' "$out")" = 1 ] ||
	    fail "PathRecord $g -> fe80::10:7 (link-local): $out"
done
out=$(sq h1 -p --sgid-to-dgid fec0::10:4-fe80::10:7)
[ "$(count '^PathRecord dump' "$out")" = 0 ] || fail "a site-local SGID fec0::10:4 got a PathRecord"
log "7: fe81::, fe80:0:0:1:: and febf:: are link-local GIDs; fec0:: is not"

# ---- 8. ClassPortInfo
cpi=$(sq h1 -c)
[ $(( $(val "$cpi" 'Capability mask 2') & 0x8 )) != 0 ] ||
    fail "ClassPortInfo CapabilityMask2 without bit 3 (MulticastFDBTop): $cpi"
[ "$(val "$cpi" 'Trap QKey')" = 0x80010000 ] || fail "ClassPortInfo Trap Q_Key: $cpi"
log "8: ClassPortInfo CapabilityMask2 $(val "$cpi" 'Capability mask 2'), Trap Q_Key 0x80010000"

# ---- 9. no SL from sl= without an SL-to-VL mapping
out=$(sq h5 -p --sgid-to-dgid fe80::10:10-fe80::10:13)
[ "$(count '^PathRecord dump' "$out")" = 1 ] || fail "h5 -> h6 (compute): $out"
[ $(( $(val "$out" pkey) & 0x7fff )) = $((0x20)) ] || fail "h5 -> h6 P_Key $(val "$out" pkey)"
sl=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*sl\.\.*//p' | head -1)
[ -n "$sl" ] && [ "$((sl))" = 0 ] || fail "h5 -> h6 PathRecord SL ${sl:-none}: compute's sl=1 used without an SL-to-VL mapping"
out=$(sq h5 -g)
sl=$(printf '%s\n' "$out" | awk '/MGID/ { m = $0 } /SL\.\.\./ && m ~ /ff12:401b:8020::ffff:ffff/ { v = $0; sub(/.*\./, "", v); print v; exit }')
[ -n "$sl" ] && [ "$((sl))" = 0 ] || fail "compute's broadcast group: SL ${sl:-none}: $out"
log "9: compute's PathRecords and broadcast group carry SL 0, not sl=1"

# ---- 3. ServiceRecord: Set with 0x57, Delete naming the name only (0x40)
h1guid=0000000000100004
name=$(printf 'ibsmd-sa-answers' | od -An -tx1 | tr -d ' \n')
pad() { printf '%s' "$1"; printf '0%.0s' $(seq 1 $(( $2 - ${#1} ))); }
# ID, GID (fe80:: + h1's port GUID), P_Key 0xffff, reserved, lease
# infinite, key (16 zero bytes), name (64 bytes)
rec="1122334455667788fe80000000000000${h1guid}ffff0000ffffffff$(pad '' 32)$(pad "$name" 128)"
out=$(SIM_HOST=h1 diag "$SARAW" 0x02 0x0031 0 0x57 "$rec") || fail "ServiceRecord Set: $out"
[ "$(printf '%s' "$out" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p')" = 0x0000 ] || fail "ServiceRecord Set: $out"
sq h1 -S | grep -q 'ibsmd-sa-answers' || fail "ServiceRecord not registered: $(sq h1 -S)"
out=$(SIM_HOST=h1 diag "$SARAW" 0x15 0x0031 0 0x40 "$rec") || fail "ServiceRecord Delete: $out"
[ "$(printf '%s' "$out" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p')" = 0x0000 ] ||
    fail "ServiceRecord Delete with mask 0x40 (name only): $out"
if sq h1 -S | grep -q 'ibsmd-sa-answers'; then
	fail "ServiceRecord still registered after its Delete"
fi
log "3: ServiceRecord Set (mask 0x57) then Delete (mask 0x40): 0x0000, gone"

# ---- 4. groups created with a selector take their creator's re-join
stat_of() { printf '%s\n' "$1" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p'; }
SELS=("life=0 lifesel=0" "life=20 lifesel=1" "mtu=3 mtusel=0" "mtu=5 mtusel=1"
    "rate=2 ratesel=0" "rate=7 ratesel=1")
for i in "${!SELS[@]}"; do
	printf 'join ff12:a01c:fe80::ab0%d 1 pkey=0x8010 create %s\n' "$i" "${SELS[$i]}"
	printf 'join ff12:a01c:fe80::ab0%d 3 pkey=0x8010 create %s\n' "$i" "${SELS[$i]}"
done | SIM_HOST=h1 diag "$MCJOIN" >"$T/mcj" 2>/dev/null
for i in "${!SELS[@]}"; do
	a=$(sed -n "$((2 * i + 1))p" "$T/mcj")
	b=$(sed -n "$((2 * i + 2))p" "$T/mcj")
	[ "$(stat_of "$a")" = 0x0000 ] || fail "create with ${SELS[$i]}: $a"
	[ "$(stat_of "$b")" = 0x0000 ] || fail "the creator's identical re-join (${SELS[$i]}): $b"
done
log "4: groups created with MTU, rate and PacketLifeTime selectors (greater, less) take their creator's re-join"
log "PASS"
