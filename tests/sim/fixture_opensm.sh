#!/bin/bash
# The umadfix device (tests/fixture) against OpenSM's SA on ft2_8, read
# by unmodified saquery:
#  1. RMPP and whole MADs: saquery's NodeRecords are every node
#     ibnetdiscover finds (same GUIDs and descriptions: bytes 224-255 of
#     each segment hold NodeRecord fields), its LinkRecords every connected
#     port, its PathRecords every pair of LIDs; with ibsim's libumad2sim
#     instead it gets one NodeRecord (the first segment).
#  2. Request timeouts: a query OpenSM drops (a wrong non-zero SM_Key) ends
#     with the kernel-style ETIMEDOUT completion, not a poll timeout.
#  3. Agents: a long-lived client that registers no SA agent
#     (tests/fixture/umad_idle, a vendor-class agent only) is the SM client
#     (SIM_SET_ISSM=1) of h9's port; h5's SMLid is pointed at h9 (ibportstate
#     smlid), so saquery run as h5 sends its SA requests there. A GetTable
#     nobody takes is dropped (saquery times out); a Get is answered
#     "unsupported method/attribute" by the device, as the kernel answers
#     (generate_unmatched_resp); the client lives on and the device
#     counted both.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm not installed"
command -v saquery >/dev/null || skip "saquery not found (infiniband-diags)"

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

if [ -n "$UMAD2SIM" ]; then
	one=$(plain saquery 2>/dev/null | grep -c 'NodeRecord dump')
	log "with libumad2sim instead: $one NodeRecord(s)"
	[ "$one" = 1 ] || fail "libumad2sim alone gave $one NodeRecords (expected the known truncation to 1)"
fi

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
	for lid in $(sim_lids); do
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
SIM_HOST=h5 diag timeout 60 saquery -t 1000 >"$T/sa3.out" 2>"$T/sa3.err"
rc=$?
log "saquery (GetTable) as h5 to h9 (LID $lid9): status $rc after $(($(date +%s) - t0))s: $(tr '\n' ' ' <"$T/sa3.err")"
[ "$rc" != 0 ] || fail "saquery got an answer from a client with no SA: $(cat "$T/sa3.out")"
[ "$rc" != 124 ] || fail "saquery to h9 did not end within 60 s"
grep -q 'timed out' "$T/sa3.err" || fail "saquery to h9 did not end with a timeout"
SIM_HOST=h5 diag timeout 60 saquery -t 1000 -c >"$T/sa4.out" 2>"$T/sa4.err"
rc=$?
log "saquery -c (Get) as h5 to h9: status $rc: $(tr '\n' ' ' <"$T/sa4.err")"
[ "$rc" != 0 ] || fail "saquery -c got a ClassPortInfo from a client with no SA: $(cat "$T/sa4.out")"
grep -qi 'timed out' "$T/sa4.err" &&
    fail "saquery -c to h9 timed out: the device did not answer a Get nobody takes"
sleep 1
kill -0 "$IDLE_PID" 2>/dev/null || fail "umad_idle died after receiving an SA query"
diag ibportstate "$lid5" 1 smlid "$(diag smpquery portinfo "$lid9" 1 2>/dev/null |
    sed -n 's/^SMLid:\.*//p')" >/dev/null 2>&1
_stop_pid "$IDLE_PID" 5
[ "$_STOP_STATUS" = 0 ] || fail "umad_idle did not exit cleanly (status $_STOP_STATUS): $(cat "$T/idle.out")"
grep -q 'dropped_unregistered [1-9]' "$T/idle.stats" &&
    grep -q 'unsupported_sent [1-9]' "$T/idle.stats" &&
    grep -q 'dropped a MAD of class 0x03' "$T/idle.out" ||
    fail "umadfix in umad_idle dropped or answered no SA MAD: $(cat "$T/idle.stats" 2>/dev/null)"
log "umad_idle alive through the SA queries; its device: $(grep -o 'dropped_unregistered [0-9]*\|unsupported_sent [0-9]*' "$T/idle.stats" | tr '\n' ' ')"
kill -0 "$SM_PID" 2>/dev/null || fail "ibsmd died"
sm_stop || fail "ibsmd did not stop cleanly (status $_STOP_STATUS)"
log "ok"
