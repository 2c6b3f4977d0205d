#!/bin/bash
# The umadfix fixture (tests/fixture) against OpenSM's SA on ft2_8, read
# by unmodified saquery:
#  1. RMPP: saquery's NodeRecords are every node ibnetdiscover finds (same
#     GUIDs and descriptions), its LinkRecords every connected port, its
#     PathRecords every pair of LIDs; with libumad2sim alone it gets one
#     NodeRecord (the first segment).
#  2. Request timeouts: a query OpenSM drops (a wrong non-zero SM_Key) ends
#     with the kernel-style ETIMEDOUT completion, not a poll timeout.
#     (saquery itself also gives up when its own 1 s poll expires; clients
#     that wait for the completion, like OpenSM's vendor layer and osmtest,
#     wait forever on libumad2sim alone: not run here.)
#  3. Crash shield: a long-lived client that registers no SA agent
#     (tests/fixture/umad_idle, a vendor-class agent only) is the SM client
#     (SIM_SET_ISSM=1) of h9's port; h5's SMLid is pointed at h9 (ibportstate
#     smlid), so saquery run as h5 sends its SA request there. The query
#     times out, the client lives on (libumad2sim alone would crash it: not
#     run here) and its lower shim counted the dropped SA MAD.
#  4. The MAD tail: bytes 224-255 of each segment hold NodeRecord fields;
#     with the tail fix switched off (UMADFIX_NOTAIL=1) the comparison of
#     test 1 fails, so it does test the tail.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm not installed"
command -v saquery >/dev/null || skip "saquery not found (infiniband-diags)"
[ "$SIM_FIXTURE" = 1 ] || skip "umadfix not in use (SIM_FIXTURE=$SIM_FIXTURE)"

# Without the fixture: libumad2sim alone.
plain() { LD_PRELOAD=$UMAD2SIM timeout 60 "$@" 8>&-; }

# "GUID description" of every node, sorted: from ibnetdiscover, and from
# saquery's NodeRecords.
nodes_discover() {
	diag ibnetdiscover 2>/dev/null |
	    sed -n 's/^\(Switch\|Ca\)[[:space:]]*[0-9]* "[SH]-\([0-9a-f]*\)".*# "\([^"]*\)".*/0x\2 \3/p' |
	    sort -u
}
nodes_sa() {
	awk '/node_guid\.\.\./ { sub(/.*\.\.\./, ""); g = $0 }
	    /NodeDescription\.\.\./ { sub(/.*NodeDescription\.*/, ""); print g " " $0 }' |
	    sort -u
}

sim_start "$FABRICS/ft2_8.net"
SM=opensm
sm_start
wait_subnet_up 60
# OpenSM's SA answers once its first sweep is done.
poll_until 30 diag saquery -c >/dev/null || fail "OpenSM's SA does not answer ClassPortInfo"

# ---- 1. RMPP
nodes_discover >"$T/nodes.disc"
n=$(wc -l <"$T/nodes.disc")
[ "$n" -ge 40 ] || fail "ibnetdiscover found $n nodes on ft2_8"
diag saquery 2>"$T/sa.err" >"$T/sa.nodes" || fail "saquery failed: $(cat "$T/sa.err")"
got=$(grep -c 'NodeRecord dump' "$T/sa.nodes")
nodes_sa <"$T/sa.nodes" >"$T/nodes.sa"
log "NodeRecords: $got (ibnetdiscover: $n nodes)"
[ "$got" = "$n" ] || fail "saquery printed $got NodeRecords, ibnetdiscover found $n nodes"
diff "$T/nodes.disc" "$T/nodes.sa" >"$T/nodes.diff" ||
    fail "saquery's NodeRecords differ from ibnetdiscover's nodes: $(head -5 "$T/nodes.diff")"

ports=$(diag ibnetdiscover 2>/dev/null | grep -c '^\[')
links=$(diag saquery -x 2>/dev/null | grep -c 'LinkRecord dump')
log "LinkRecords: $links (ibnetdiscover: $ports connected ports)"
[ "$links" = "$ports" ] || fail "saquery -x printed $links LinkRecords, ibnetdiscover lists $ports connected ports"

paths=$(diag saquery -p 2>/dev/null | grep -c 'PathRecord dump')
log "PathRecords: $paths (for $n LIDs)"
[ "$paths" = "$((n * n))" ] || fail "saquery -p printed $paths PathRecords, not $n x $n"

one=$(plain saquery 2>/dev/null | grep -c 'NodeRecord dump')
log "without the fixture: $one NodeRecord(s)"
[ "$one" = 1 ] || fail "libumad2sim alone gave $one NodeRecords (expected the known truncation to 1)"

# ---- 4. the tail: the same comparison fails without the tail fix
UMADFIX_NOTAIL=1 diag saquery 2>/dev/null | nodes_sa >"$T/nodes.notail"
if diff -q "$T/nodes.disc" "$T/nodes.notail" >/dev/null; then
	fail "with the tail fix off the NodeRecords still match: the check does not see the tail"
fi
log "without the tail fix $(diff "$T/nodes.disc" "$T/nodes.notail" | grep -c '^>') NodeRecords read wrong"

# ---- 2. a request OpenSM drops times out
t0=$(date +%s)
UMADFIX_STATS=$T/smkey.stats diag timeout 60 saquery --smkey 5 >"$T/smkey.out" 2>"$T/smkey.err"
rc=$?
dt=$(($(date +%s) - t0))
log "saquery --smkey 5: status $rc after ${dt}s: $(tr '\n' ' ' <"$T/smkey.err")"
[ "$rc" != 0 ] || fail "saquery --smkey 5 succeeded: OpenSM answered a wrong SM_Key"
[ "$rc" != 124 ] || fail "saquery --smkey 5 did not end within 60 s"
grep -q 'timed out' "$T/smkey.err" || fail "saquery --smkey 5 did not end with a timeout"
grep -q 'umad_recv failed' "$T/smkey.err" &&
    fail "saquery --smkey 5 gave up on its own poll timeout, not on an ETIMEDOUT completion"
grep -q ' timeouts 1 ' "$T/smkey.stats" || fail "umadfix counted no timeout: $(cat "$T/smkey.stats")"
[ "$dt" -le 10 ] || fail "saquery --smkey 5 took ${dt}s"
sm_stop || true

# ---- 3. a client without an SA agent receives an SA query
SM=ibsmd
sm_start
wait_subnet_up 60
UMAD_IDLE=${UMAD_IDLE:-$PWD/tests/fixture/umad_idle}
[ -x "$UMAD_IDLE" ] || fail "$UMAD_IDLE not built (make check builds it)"
UMADFIX_DEBUG=1 UMADFIX_STATS=$T/idle.stats SIM_SET_ISSM=1 SIM_HOST=h9 LD_PRELOAD=$SIM_PRELOAD \
    "$UMAD_IDLE" 300 >"$T/idle.out" 2>&1 8>&- &
IDLE_PID=$!
_track "$IDLE_PID"
poll_until 10 grep -q 'agent' "$T/idle.out" >/dev/null ||
    fail "umad_idle did not start: $(cat "$T/idle.out")"
lid_of() {
	local lid
	for lid in $(seq 1 60); do
		[ "$(diag smpquery nodedesc "$lid" 2>/dev/null | sed -n 's/^Node Description:\.*//p')" = "$1" ] &&
		    { echo "$lid"; return 0; }
	done
	return 1
}
lid9=$(lid_of h9) || fail "no LID for h9"
lid5=$(lid_of h5) || fail "no LID for h5"
diag ibportstate "$lid5" 1 smlid "$lid9" >/dev/null 2>&1 || fail "ibportstate $lid5 1 smlid $lid9 failed"
[ "$(diag smpquery portinfo "$lid5" 1 2>/dev/null | sed -n 's/^SMLid:\.*//p')" = "$lid9" ] ||
    fail "h5's SMLid is not h9's LID $lid9"
t0=$(date +%s)
SIM_HOST=h5 diag timeout 60 saquery -t 1000 -c >"$T/sa3.out" 2>"$T/sa3.err"
rc=$?
log "saquery -c as h5 to h9 (LID $lid9): status $rc after $(($(date +%s) - t0))s: $(tr '\n' ' ' <"$T/sa3.err")"
[ "$rc" != 0 ] || fail "saquery got an answer from a client with no SA: $(cat "$T/sa3.out")"
[ "$rc" != 124 ] || fail "saquery to h9 did not end within 60 s"
grep -q 'timed out' "$T/sa3.err" || fail "saquery to h9 did not end with a timeout"
sleep 1
kill -0 "$IDLE_PID" 2>/dev/null || fail "umad_idle died after receiving an SA query"
diag ibportstate "$lid5" 1 smlid "$(diag smpquery portinfo "$lid9" 1 2>/dev/null |
    sed -n 's/^SMLid:\.*//p')" >/dev/null 2>&1
_stop_pid "$IDLE_PID" 5
[ "$_STOP_STATUS" = 0 ] || fail "umad_idle did not exit cleanly (status $_STOP_STATUS): $(cat "$T/idle.out")"
grep -q 'dropped_unregistered [1-9]' "$T/idle.stats" &&
    grep -q 'lower: dropped a MAD of class 0x03' "$T/idle.out" ||
    fail "umadfix in umad_idle dropped no SA MAD: $(cat "$T/idle.stats" 2>/dev/null)"
log "umad_idle alive through the SA query; its lower shim: $(grep -o 'dropped_unregistered [0-9]*' "$T/idle.stats")"
kill -0 "$SM_PID" 2>/dev/null || fail "ibsmd died"
sm_stop || fail "ibsmd did not stop cleanly (status $_STOP_STATUS)"
log "ok"
