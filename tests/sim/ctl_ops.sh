#!/bin/bash
# Everyday operations from ibsmctl, on ft2_8 with light sweeps every second:
#   - sweep off holds every sweep: a cable pulled meanwhile changes
#     nothing ibsmd writes (the LFTs dump_fts reads stay as they were, the
#     sweep count stands still), status says sweeps are not enabled, and
#     an explicit sweep or reroute is refused (exit 1); sweep on resumes:
#     the loss is seen and routed around (fabcheck);
#   - filters: nodes and ports by LID, GUID, name and shell pattern (as
#     many nodes as ibnetdiscover names so), route by names; a pattern that
#     matches nothing is an error (exit 1);
#   - the exit statuses ibsmctl(8) documents: 0, 1 (refused), 2 (usage),
#     3 (no daemon).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmctl is ibsmd's"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
expect_rc() {
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "$* exited $rc, not $want: $(cat "$T/err" "$T/out" | head -3)"
}
# lfts FILE: every switch's (GUID, LID, port) as dump_fts reads them
lfts() {
	diag dump_fts 2>/dev/null | awk '/^Unicast lids/ { for (i = 1; i <= NF; i++)
		if ($i == "guid") g = $(i + 1) }
	    /^0x[0-9a-f]+ [0-9]+ :/ { print g, $1, $2 }' | sort >"$1"
	[ -s "$1" ] || fail "dump_fts read nothing"
}
jval() { python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$@"; }

sim_start "$FABRICS/ft2_8.net"
sm_start -c /dev/null -P /dev/null -s 1
wait_subnet_up 60
fabcheck >/dev/null || fail "fabric wrong at start"

# ---- sweep off / on
expect_rc 0 ctl sweep off
[ "$(ctl status --json | jval sweep enabled)" = False ] || fail "status: sweeps still enabled"
grep -qx 'sweep.enabled 0' "$T/state/stats" || fail "stats file: sweep.enabled not 0"
n0=$(ctl status --json | jval sweep sweeps)
lfts "$T/lft.0"
sim_cmd 'Unlink "leaf0"[5]' >/dev/null
sleep 3
lfts "$T/lft.1"
diff -q "$T/lft.0" "$T/lft.1" >/dev/null || fail "LFTs changed while sweeps were off"
n1=$(ctl status --json | jval sweep sweeps)
[ "$n1" = "$n0" ] || fail "$((n1 - n0)) sweeps ran while off"
expect_rc 1 ctl sweep
grep -q 'sweeps are off' "$T/err" || fail "sweep while off: $(cat "$T/err")"
expect_rc 1 ctl reroute
log "sweep off: a cable pulled, 3 s: no sweep, LFTs unchanged; sweep and reroute refused"
expect_rc 0 ctl sweep on
poll_until 30 fabcheck --no-shortest --down 'leaf0[5]' >/dev/null || fail "the loss was not routed around after sweep on"
[ "$(ctl status --json | jval sweep enabled)" = True ] || fail "status: sweeps not enabled again"
log "sweep on: the loss seen and routed around"

# ---- filters
leaves=$(diag ibnetdiscover 2>/dev/null | grep -c "^Switch.*\"leaf")
[ "$leaves" -gt 0 ] || fail "ibnetdiscover finds no leaf"
[ "$(ctl --json nodes 'leaf*' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))')" = "$leaves" ] ||
    fail "nodes 'leaf*' does not list the $leaves leaves"
[ "$(ctl nodes 'leaf*' | tail -n +2 | wc -l)" = "$leaves" ] || fail "nodes 'leaf*' (text): not $leaves rows"
[ "$(ctl --json nodes h3 | jval nodes 0 name)" = h3 ] || fail "nodes h3"
lid=$(ctl --json nodes h3 | jval nodes 0 endports 0 lid)
guid=$(ctl --json nodes h3 | jval nodes 0 guid)
[ "$(ctl --json nodes "$lid" | jval nodes 0 guid)" = "$guid" ] || fail "nodes by LID $lid"
[ "$(ctl --json nodes "$guid" | jval nodes 0 name)" = h3 ] || fail "nodes by GUID $guid"
hs=$(diag ibnetdiscover 2>/dev/null | grep -c '^Ca.*"h1[0-9]')
[ "$(ctl --json ports 'h1?' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))')" = "$hs" ] ||
    fail "ports 'h1?' does not give the $hs CAs h10-h19"
[ "$(ctl ports 'h1?' | grep -c '^CA 0x')" = "$hs" ] || fail "ports 'h1?' (text): not $hs blocks"
expect_rc 0 ctl route h0 h17
expect_rc 1 ctl nodes 'nothing*'
grep -q "no node name or description matches 'nothing\*'" "$T/err" || fail "nodes 'nothing*': $(cat "$T/err")"
expect_rc 1 ctl ports no-such-node
log "filters: nodes and ports by LID, GUID, name and pattern; route by names"

# ---- exit statuses
expect_rc 2 ctl sweep --heavy extra
expect_rc 2 ctl no-such-command
expect_rc 3 "$IBSMCTL" --runtime-dir "$T/nowhere" status
"$IBSMCTL" -h | grep -q '^exit status: 0 answered' || fail "ibsmctl -h does not list the exit statuses"
log "exit statuses 0, 1, 2, 3 as documented"
