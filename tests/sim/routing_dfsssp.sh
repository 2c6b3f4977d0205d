#!/bin/bash
# dfsssp through the daemon (issue 27 points 3, 5-7) on a 4 x 4 torus
# (contrib/gen_fabric.py: 16 switches, one HCA each), where shortest routes
# on one VL have credit loops: ibsmd takes `routing_engine: [dfsssp, updn]`
# and `qos: true` from ibsmd.conf, routes with dfsssp on the VLs the switch
# ports run and reports the VLs its layers use. The fabric, read back with
# the diags (fabcheck: ibnetdiscover, dump_fts), delivers every LID from
# every switch along a shortest path. The SA's PathRecords (saquery -p)
# carry each route's layer as SL, and with those SLs each VL's channel
# dependencies are acyclic (fabcheck --path-sl). Along ibtracert's hops of
# two paths per SL above 0, every SL2VL table (smpquery sl2vl) maps the SL
# to its own VL, operational, over a qos_sl2vl that maps every SL to VL 0.
# Then a torus cable is unlinked: the repair in place (dfsssp_repair)
# changes exactly the entries the cut forces to change (the port lost, or
# the next switch no longer one hop nearer: fabcheck --minimal minhop
# against the routes saved before), every LID still delivered, shortest.
# Fails on 63e1a0b: no engine dfsssp there, the configuration is refused.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "ibsmd's engine registry and configuration"
command -v python3 >/dev/null || skip "no python3"

SWEEP=2
LIMIT=$((4 * SWEEP + 5))
A='"sw1_1"[1]'          # sw1_1's +X cable, to sw2_1
python3 "$TOP_SRCDIR/contrib/gen_fabric.py" --hca-ports 1 torus 4 4 1 \
    >"$T/torus.net" || fail "gen_fabric.py failed"
# qos on (dfsssp's layers need the SL2VL tables), with a qos_sl2vl that
# puts every SL on VL 0: dfsssp's own part of each table (SL n to VL n for
# its layers) must win for the walk below to pass
printf 'routing_engine: [dfsssp, updn]\nqos: true\nqos_sl2vl: %s\n' \
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 >"$T/ibsmd.conf"
sim_start "$T/torus.net"
sm_start -c "$T/ibsmd.conf" --sweep-interval $SWEEP
wait_subnet_up 60
used=$(stat_get routing.engine)
vls=$(stat_get routing.vls 0)
[ "$used" = dfsssp ] || fail "torus: routed by '$used', expected dfsssp"
[ "$vls" -gt 1 ] || fail "torus: dfsssp reports $vls VL(s); a 4 x 4 torus needs more than one"
fabcheck --save-routes "$T/routes" ||
	fail "torus: dfsssp's tables as read do not deliver every LID along a shortest path"
log "torus: dfsssp routed on $vls VLs; every LID delivered from every switch, shortest"

# The SA hands out each route's layer as its SL (OpenSM's path_sl): every
# PathRecord of the fabric (saquery -p, all pairs), "SLID DLID SL" lines;
# then one channel dependency graph per VL (SL i on VL i, dfsssp's SL2VL
# contribution) from the tables read back and those SLs: each acyclic.
path_sls() {
	diag saquery -p 2>&1 | awk '
	    /^PathRecord dump/ { if (s != "") print s, d, sl; s = d = sl = ""; next }
	    { split($1, kv, /\.\.+/) }
	    kv[1] == "slid" { s = kv[2] } kv[1] == "dlid" { d = kv[2] }
	    kv[1] == "sl" { sl = kv[2]
		if (sl ~ /^0x/) { n = 0; h = tolower(substr(sl, 3))
			for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			sl = n } }
	    END { if (s != "") print s, d, sl }' >"$1"
}
path_sls "$T/path_sl"
npaths=$(wc -l <"$T/path_sl")
[ "$npaths" -ge 256 ] || fail "torus: saquery -p gave $npaths paths, expected every pair of 16 CA ports"
nsl=$(awk '{ print $3 }' "$T/path_sl" | sort -u | wc -l)
[ "$nsl" -gt 1 ] || fail "torus: every PathRecord has SL $(awk 'NR == 1 { print $3 }' "$T/path_sl"); dfsssp's layers are more than one"
awk -v vls="$vls" '$3 >= vls { bad = 1; print "SL " $3 " of " $1 " -> " $2 " is no layer" } END { exit bad }' \
    "$T/path_sl" >&2 || fail "torus: a PathRecord's SL is beyond the $vls VLs dfsssp used"
fabcheck --cdg --path-sl "$T/path_sl" --ca-paths ||
	fail "torus: the routes on some VL (by the SA's path SLs) have a credit loop"
log "torus: $npaths PathRecords on $nsl SLs; each VL's channel dependencies acyclic"

# The SLs map (issue 27 point 3): for two PathRecords of each SL above 0,
# along ibtracert's hops, the SL2VL table of the hop's input and output
# ports maps the SL to VL = SL (the layer, over qos_sl2vl's VL 0), below
# the output port's OperVLs; likewise at a source CA port.
trace() {
	diag ibtracert "$1" "$2" 2>&1 | awk '/^\[/ { match($0, /^\[[0-9]+\]/); out = substr($0, 2, RLENGTH - 2)
		if (lid != "") print lid, inp, out
		match($0, /\]\[[0-9]+\]|\}\[[0-9]+\]/); s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); inp = s
		match($0, /lid [0-9]+/); lid = substr($0, RSTART + 4, RLENGTH - 4) }'
}
opvls() { diag smpquery portinfo "$1" "$2" | sed -n 's/^OperVLs:\.*VL0-\([0-9]*\)$/\1/p'; }
sl_of_row() { echo "$1" | sed 's/.*: |//; s/|$//; s/|/ /g' | awk -v sl="$2" '{ print $(sl + 1) }'; }
hops=0
while read -r slid dlid sl; do
	while read -r lid in out; do
		row=$(diag smpquery sl2vl "$lid" "$out" | awk -v i="$in" '$1 == "ports:" && $3 + 0 == i')
		vl=$(sl_of_row "$row" "$sl")
		top=$(opvls "$lid" "$out")
		[ "$vl" = "$sl" ] && [ -n "$top" ] && [ "$vl" -le "$top" ] ||
			fail "torus: path $slid -> $dlid on SL $sl: LID $lid in $in out $out maps it to VL '$vl' (OperVLs VL0-$top)"
		hops=$((hops + 1))
	done < <(trace "$slid" "$dlid")
	# a CA source port's own table (a switch source: its hops above)
	rows=$(diag smpquery sl2vl "$slid" | awk '$1 == "ports:"')
	if [ "$(echo "$rows" | wc -l)" = 1 ]; then
		vl=$(sl_of_row "$rows" "$sl")
		[ "$vl" = "$sl" ] || fail "torus: CA LID $slid maps SL $sl to VL '$vl'"
	fi
done < <(awk '$3 > 0 && $1 != $2 && seen[$3]++ < 2' "$T/path_sl")
[ "$hops" -gt 0 ] || fail "torus: no switch hop walked"
log "torus: two paths per SL above 0 walked ($hops switch hops): each SL on its own VL, operational"

heavy0=$(stat_get sweep.heavy_sweeps 0)
repaired() {
	[ "$(stat_get sweep.heavy_sweeps 0)" -gt "$heavy0" ] ||
		{ echo "no heavy sweep finished yet"; return 1; }
	[ "$(stat_get sweep.subnet_up 0)" = 1 ] || { echo "subnet not up"; return 1; }
	fabcheck --down "$A" --changed-since "$T/routes" --cut "$A" --minimal minhop
}
sim_cmd "Unlink $A"
log "unlinked $A"
if ! poll_until $LIMIT repaired; then
	grep 'routing: ' "$SM_LOG" | tail -n 4 >&2
	fail "torus: not repaired around $A within $LIMIT s, or more changed than the cut forces"
fi
log "torus: repaired by $(stat_get routing.engine) on $(stat_get routing.vls 0) VLs," \
    "only the entries the cut forces changed ($(stat_get routing.blocks_changed -) blocks)"
# after the repair too: the SA's SLs are the repaired routes' layers, and
# each VL's channel dependencies (tables read back, those SLs) acyclic
path_sls "$T/path_sl2"
[ "$(wc -l <"$T/path_sl2")" -ge 256 ] || fail "torus: after the repair saquery -p gave $(wc -l <"$T/path_sl2") paths"
fabcheck --down "$A" --cdg --path-sl "$T/path_sl2" --ca-paths ||
	fail "torus: after the repair the routes on some VL (by the SA's path SLs) have a credit loop"
log "torus: after the repair, $(wc -l <"$T/path_sl2") PathRecords; each VL's channel dependencies acyclic"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
