#!/bin/bash
# dfsssp through the daemon (issue 27 points 6, 7) on a 4 x 4 torus
# (contrib/gen_fabric.py: 16 switches, one HCA each), where shortest routes
# on one VL have credit loops: ibsmd takes `routing_engine: [dfsssp, updn]`
# from ibsmd.conf, routes with dfsssp on the VLs the switch ports support
# (VLCap, read by discovery) and reports the VLs its layers use. The
# fabric, read back with the diags (fabcheck: ibnetdiscover, dump_fts),
# delivers every LID from every switch along a shortest path. Then a
# torus cable is unlinked: the repair in place (dfsssp_repair) changes
# exactly the entries the cut forces to change (the port lost, or the
# next switch no longer one hop nearer: fabcheck --minimal minhop against
# the routes saved before), every LID still delivered, shortest. Before
# the cut, the SA's PathRecords carry each route's layer as its SL, and
# with those SLs each VL's channel dependencies (fabcheck --path-sl, the
# tables read back) are acyclic.
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
printf 'routing_engine: [dfsssp, updn]\n' >"$T/ibsmd.conf"
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
diag saquery -p 2>&1 | awk '
    /^PathRecord dump/ { if (s != "") print s, d, sl; s = d = sl = ""; next }
    { split($1, kv, /\.\.+/) }
    kv[1] == "slid" { s = kv[2] } kv[1] == "dlid" { d = kv[2] }
    kv[1] == "sl" { sl = kv[2] }
    END { if (s != "") print s, d, sl }' >"$T/path_sl"
npaths=$(wc -l <"$T/path_sl")
[ "$npaths" -ge 256 ] || fail "torus: saquery -p gave $npaths paths, expected every pair of 16 CA ports"
nsl=$(awk '{ print $3 }' "$T/path_sl" | sort -u | wc -l)
[ "$nsl" -gt 1 ] || fail "torus: every PathRecord has SL $(awk 'NR == 1 { print $3 }' "$T/path_sl"); dfsssp's layers are more than one"
awk -v vls="$vls" '$3 >= vls { bad = 1; print "SL " $3 " of " $1 " -> " $2 " is no layer" } END { exit bad }' \
    "$T/path_sl" >&2 || fail "torus: a PathRecord's SL is beyond the $vls VLs dfsssp used"
fabcheck --cdg --path-sl "$T/path_sl" --ca-paths ||
	fail "torus: the routes on some VL (by the SA's path SLs) have a credit loop"
log "torus: $npaths PathRecords on $nsl SLs; each VL's channel dependencies acyclic"

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
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
