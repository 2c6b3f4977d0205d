#!/bin/bash
# PathRecords and MultiPathRecords with LMC 1 and 2, compared with OpenSM's
# on the same fabric and the same LIDs (issue 28 point 3).
#
# slowlink_ft2 (8 hosts, 4 leaves, 2 spines; h5's own cable is 1x QDR,
# leaf3 port 3 - spine0 port 4 is 4x SDR, both 10 Gb/s; the rest 4x QDR).
# For each LMC, OpenSM (-l LMC) brings the fabric up and answers; its
# guid2lid then gives ibsmd (lmc=LMC) the same LIDs on a fresh ibsim. The
# same questions go to both:
#   - saquery -p by GIDs, h0 -> h6 and h6 -> h5 (every LID pair of the two
#     blocks: their order and Preference), with NumbPath 3, with one DLID
#     of h6's block, with one SLID of h0's block;
#   - GetMulti(MultiPathRecord) by saraw (-r: sent as RMPP, which OpenSM
#     requires): h0 -> {h6, h7} with NumbPath one more than h0 -> h6 has
#     pairs (all of those in order, then h0 -> h7's first: NumbPath counts
#     over the whole answer), and {h0, h5} -> {h6, h7} with NumbPath 2
#     (APM's two paths: OpenSM's LID hash and choice of diagonal).
# Both answers must hold the same records in the same order, equal in every
# field but Rate, which depends on the route of each LID (each SM routes
# the LIDs of a block over its own choice of spines): in each SM's answer
# each record's Rate must be its own route's, followed in the forwarding
# tables dump_fts reads from the switches (10 Gb/s over the SDR link or
# h5's cable, else 40). About 5 s per LMC.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm is not installed"
: "${SARAW:=$PWD/tests/sim/saraw}"
[ -x "$SARAW" ] || fail "SARAW=$SARAW is not an executable (make check builds it)"

NET=$FABRICS/slowlink_ft2.net
declare -A GUID BASE

# the port GUIDs ibsim gives the hosts asked about (slowlink_ft2)
GUID=([h0]=0000000000100001 [h5]=0000000000100010 [h6]=0000000000100013 [h7]=0000000000100016)
gid() { printf 'fe80::%x:%x' $((0x${GUID[$1]} >> 16 & 0xffff)) $((0x${GUID[$1]} & 0xffff)); }
hexgid() { printf 'fe80000000000000%s' "${GUID[$1]}"; }

# pr NAME HOST saquery-args: PathRecords as lines "slid dlid rate | the
# other fields", in the order answered
pr() {
	local n=$1 h=$2
	shift 2
	SIM_HOST=$h diag saquery -p "$@" 2>&1 | awk '
	    /^PathRecord dump/ { if (r != "") print s, d, rate, "|", r; r = ""; next }
	    { split($1, kv, /\.\.+/); k = kv[1]; v = kv[2] }
	    k == "slid" { s = v } k == "dlid" { d = v }
	    k == "rate" { rate = v; next }
	    k != "" { r = r " " k "=" v }
	    END { if (r != "") print s, d, rate, "|", r }' >"$OUT/$n"
}

# mpr NAME NUMB SRC... -- DST...: GetMulti from h0, PathRecords as above
mpr() {
	local n=$1 numb=$2 rec src=() dst=() side=src h
	shift 2
	for h in "$@"; do
		if [ "$h" = -- ]; then side=dst; continue; fi
		if [ $side = src ]; then src+=("$h"); else dst+=("$h"); fi
	done
	# MultiPathRecord: NumbPath at byte 5, SGIDCount and DGIDCount at 15
	# and 16, the GIDs from byte 24; mask NumbPath, SGIDCount, DGIDCount
	rec=$(printf '0000000000%02x000000000000000000%02x%02x00000000000000' \
	    "$numb" ${#src[@]} ${#dst[@]})
	for h in "${src[@]}" "${dst[@]}"; do rec=$rec$(hexgid "$h"); done
	SIM_HOST=h0 diag "$SARAW" -r -a 0x14 0x003a 0 0x180040 "$rec" >"$OUT/$n.raw" 2>&1
	grep -q '^status=0x0000 ' "$OUT/$n.raw" || fail "$n: $(cat "$OUT/$n.raw")"
	# "SLID DLID Rate | the record in hex, Rate (byte 55) as xx"
	awk '
	    function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	    /^data=/ { d = substr($0, 6)
	    for (i = 1; i + 127 <= length(d); i += 128) {
		r = substr(d, i, 128)
		printf "%d %d 0x%s | %sxx%s\n", hex(substr(r, 85, 4)),
		    hex(substr(r, 81, 4)), substr(r, 111, 2),
		    substr(r, 1, 110), substr(r, 113)
	    } }' "$OUT/$n.raw" >"$OUT/$n"
}

queries() {
	OUT=$T/$1
	mkdir -p "$OUT"
	local h0=${BASE[h0]} h6=${BASE[h6]}
	pr all_h0_h6 h0 --sgid "$(gid h0)" --dgid "$(gid h6)"
	pr all_h6_h5 h6 --sgid "$(gid h6)" --dgid "$(gid h5)"
	pr numb3 h0 -n 3 --sgid "$(gid h0)" --dgid "$(gid h6)"
	pr dlid h0 --sgid "$(gid h0)" --dgid "$(gid h6)" --dlid $((h6 + 1))
	pr slid h0 --sgid "$(gid h0)" --dgid "$(gid h6)" --slid $((h0 + NLIDS - 1))
	mpr mpr "$((NLIDS * NLIDS + 1))" h0 -- h6 h7
	mpr apm 2 h0 h5 -- h6 h7
}

# check_rates SM: every record's Rate is its own route's, the route
# followed in the tables dump_fts reads from the switches over
# slowlink_ft2's cables (leaf i: hosts h2i, h2i+1 on ports 1, 2, spine j
# on port 3 + j; spine j port i + 1: leaf i): 3 (10 Gb/s) when h5 is an
# end or the route takes leaf3 port 3 - spine0 port 4, else 7 (40 Gb/s)
check_rates() {
	local n
	SIM_HOST=h0 diag dump_fts >"$T/$1.fts" 2>&1 || fail "dump_fts failed"
	n=$(awk '
	    function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	    FNR == 1 { nf++ }
	    nf == 1 && /^Unicast lids/ { sw = $NF; gsub(/[():]/, "", sw); next }
	    nf == 1 && /^0x[0-9a-f]+ [0-9]+ : / {
		lid = hex($1); lft[sw, lid] = $2 + 0
		g = $0; sub(/.*portguid /, "", g); sub(/[:)].*/, "", g)
		if (match($0, /\047[^\047]*\047/))
			name[g] = substr($0, RSTART + 1, RLENGTH - 2)
		owner[lid] = name[g]; next }
	    nf == 1 { next }
	    FILENAME ~ /\.raw$/ { next }
	    { s = $1; d = $2; rate = hex($3) % 64
		src = owner[s]; dst = owner[d]
		slow = src == "h5" || dst == "h5"
		leaf = int(substr(src, 2) / 2); out = lft["leaf" leaf, d]
		if (out >= 3) {
			if (leaf == 3 && out == 3) slow = 1
			sp = out - 3; p = lft["spine" sp, d]
			if (sp == 0 && p == 4) slow = 1
			leaf = p - 1; out = lft["leaf" leaf, d]
		}
		want = slow ? 3 : 7; f = FILENAME; sub(/.*\//, "", f)
		if ("h" (leaf * 2 + out - 1) != dst) {
			print f ": " s " -> " d " does not arrive at " dst; exit 1 }
		if (rate != want) {
			print f ": " s " -> " d " (" src " -> " dst ") rate " rate ", its route s " want; exit 1 }
		n++ }
	    END { if (!n) exit 1; print n }' "$T/$1.fts" "$T/$1"/*) || fail "$1: $n"
	log "$1: each of its $n records has its own route's rate"
}

run() {
	local lmc=$1 f
	NLIDS=$((1 << lmc))
	rm -rf "$T/state" "$T/run"
	sim_start "$NET"
	SM=opensm sm_start -l "$lmc"
	SM=opensm wait_subnet_up 60
	for f in h0 h6; do
		BASE[$f]=$(awk -v g="0x${GUID[$f]}" 'tolower($1) == tolower(g) { print $2 }' "$T/state/guid2lid")
		BASE[$f]=$((BASE[$f]))
	done
	# guid2lid is written at subnet up
	[ -n "${BASE[h0]}" ] && [ -n "${BASE[h6]}" ] || fail "OpenSM's guid2lid lacks h0 or h6"
	SM=opensm queries "opensm.$lmc"
	check_rates "opensm.$lmc"
	SM=opensm sm_stop
	cp "$T/state/guid2lid" "$T/guid2lid.$lmc"
	sim_stop

	rm -rf "$T/state" "$T/run"
	mkdir -p "$T/state"
	cp "$T/guid2lid.$lmc" "$T/state/guid2lid"
	sim_start "$NET"
	sm_start -O "lmc=$lmc"
	wait_subnet_up 60
	queries "ibsmd.$lmc"
	check_rates "ibsmd.$lmc"
	sm_stop
	sim_stop

	# every answer in one list, "query: SLID DLID | fields" (not Rate)
	for f in "$T/opensm.$lmc"/*; do
		[ -s "$f" ] || fail "LMC $lmc: OpenSM gave no records to $(basename "$f")"
	done
	for f in opensm ibsmd; do
		awk 'FILENAME !~ /\.raw$/ { q = FILENAME; sub(/.*\//, "", q)
		    $3 = ""; print q ": " $0 }' "$T/$f.$lmc"/* >"$T/$f.$lmc.all"
	done
	diff "$T/opensm.$lmc.all" "$T/ibsmd.$lmc.all" >"$T/diff.$lmc" ||
	    fail "LMC $lmc: ibsmd's records differ from OpenSM's: $(head -6 "$T/diff.$lmc")"
	log "LMC $lmc: $(wc -l <"$T/ibsmd.$lmc.all") records in 7 answers, the same as OpenSM's in the same order"
}

run 1
run 2
log PASS
