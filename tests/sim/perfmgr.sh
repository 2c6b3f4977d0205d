#!/bin/bash
# The performance manager (issue 30), on ft2_8:
#   - perfmgr off (the default): not one PerfMgt MAD (class 0x04) leaves
#     ibsmd, as the fixture counts them at umad_send ("sends: by_class");
#   - perfmgr on, perfmgr_sweep_time_s 3: counters set through ibsim's
#     console (PerformanceSet) on a switch port and on a CA port show in
#     `ibsmctl errors --json` within two intervals (two rounds completed),
#     with the node's and the peer's names;
#   - a counter cleared by someone else (perfquery -R from a simulated
#     host) and one set lower (a clear followed by new errors) leave the
#     totals monotonic: unchanged, then grown by what was counted since;
#     a 32-bit counter (PortXmitWait) near its top, then cleared to 7,
#     makes its total 4,000,000,007 on the exporter's series;
#   - SA answers by attribute and status on /metrics (a NodeRecord answered,
#     an untrusted P_KeyTableRecord refused with 0x0200);
#   - thresholds: an error counter rising by more than its
#     perfmgr_threshold_* in one read is logged once (not at every read)
#     with node, port and peer (shown rising by ibsmctl errors until the
#     next read: check_perfmgr); a rise of the threshold or less is not
#     logged, and stays steady (the default 10 for
#     SymbolErrorCounter: +20 is, +5 is not; LinkDownedCounter's set to 2
#     with -O: +3 is, +1 is not);
#   - at most two GMPs (PortCounters and PortCountersExtended) per port and
#     round, plus one ClassPortInfo per node;
#   - metrics_listen: GET /metrics passes a strict exposition-format check
#     (promcheck.py), shows the counters set on treydock/infiniband_exporter's
#     series (infiniband_switch_port_symbol_error_total{guid,port},
#     infiniband_hca_port_link_downed_total) and the names in
#     infiniband_switch_info; a client that sends half a request and waits,
#     and one that sends garbage, stall neither the next scrape nor
#     ibsmctl; a scrape during a heavy sweep (ibsim held with SIGSTOP
#     meanwhile; ibsmctl status shows that sweep under way right before
#     and right after the scrape) answers.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd's performance manager"
: "${IBSMCTL:=./ibsmctl}"
NET=$FABRICS/ft2_8.net
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

# class_sends FILE CLASS: MADs of CLASS (0x04) the SM sent in its life
class_sends() {
	awk -v c="$2" '/sends: by_class/ { for (i = 4; i <= NF; i++) {
		split($i, a, ":"); if (a[1] == c) n += a[2] } } END { print n + 0 }' "$1"
}

# ---- off
sim_start "$NET"
UMADFIX_STATS=$T/off.stats sm_start -c /dev/null -P /dev/null -R minhop
wait_subnet_up 60
sleep 3
sm_stop
grep -q 'sends: by_class' "$T/off.stats" || fail "the fixture counted no sends"
smps=$(class_sends "$T/off.stats" 0x81)
perf=$(class_sends "$T/off.stats" 0x04)
log "perfmgr off: $smps directed-route SMPs, $perf PerfMgt MADs sent"
[ "$smps" -gt 0 ] || fail "no SMP counted: the fixture's counts are wrong"
[ "$perf" -eq 0 ] || fail "perfmgr off sent $perf PerfMgt MADs"

# ---- on, with /metrics
PROMCHECK=$TOP_SRCDIR/tests/sim/promcheck.py
MPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# scrape FILE: GET /metrics into FILE (5 s at most); fails on anything but 200
scrape() {
	python3 - "$MPORT" "$1" <<'EOF' 8>&-
import sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5) as r:
    assert r.status == 200, r.status
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4"), r.headers["Content-Type"]
    open(sys.argv[2], "wb").write(r.read())
EOF
}
UMADFIX_STATS=$T/on.stats sm_start -c /dev/null -P /dev/null -R minhop \
    -O perfmgr=true -O perfmgr_sweep_time_s=3 -O metrics_listen=127.0.0.1:$MPORT \
    -O perfmgr_threshold_link_downed=2 -O smp_timeout=1000
wait_subnet_up 60
rounds() { ctl status --json | python3 -c 'import json, sys
print(json.load(sys.stdin)["perfmgr"]["rounds"])'; }
rounds_at_least() { [ "$(rounds)" -ge "$1" ]; }
poll_until 20 rounds_at_least 1 >/dev/null ||
    fail "no counter round completed in 20 s"
log "perfmgr: first round done"

# wait_errors SECONDS 'NAME PORT COUNTER TOTAL [STATE]'...: until every
# line holds in ibsmctl errors --json (the peer named too), asked every
# 0.2 s by one python process; the answer that held is left in
# $T/errors.json. STATE steady: not rising in that answer; rising: shown
# rising with that total in one of the answers (it is rising from the
# read that found the rise to the next read of that port, and two ports
# need not be read in the same round)
wait_errors() {
	python3 - "$IBSMCTL" "$T/run" "$T/errors.json" "$@" <<'EOF' 8>&-
import json, subprocess, sys, time
ctl, run, out, limit, wants = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]
seen = set()
def check(d, want):
    name, port, counter, total, *state = want.split()
    rows = [p for p in d["ports"] if p["name"] == name and p["port"] == int(port)]
    if not rows:
        return "no row for %s port %s" % (name, port)
    r = rows[0]
    if r["peer"] is None or not r["peer"]["name"]:
        return "%s port %s: no peer" % (name, port)
    c = r["counters"].get(counter)
    if c is None or c["total"] != int(total):
        return "%s port %s %s: %s, want total %s" % (name, port, counter, c, total)
    if state == ["rising"] and c["rising"]:
        seen.add(want)
    if state == ["rising"] and want not in seen:
        return "%s: not shown rising yet: %s" % (want, c)
    if state == ["steady"] and c["rising"]:
        return "%s port %s %s: %s, want steady" % (name, port, counter, c)
    return None
def why(d):
    # every line checked at each answer: a rise seen is remembered
    w = [check(d, want) for want in wants]
    return next((x for x in w if x is not None), None)
end = time.time() + limit
while True:
    p = subprocess.run([ctl, "--runtime-dir", run, "errors", "--json"], capture_output=True, text=True)
    w = why(json.loads(p.stdout)) if p.returncode == 0 else "ibsmctl: " + p.stderr
    if w is None:
        open(out, "w").write(p.stdout)
        sys.exit(0)
    if time.time() > end:
        print(w)
        sys.exit(1)
    time.sleep(0.2)
EOF
}

# "within two intervals" counted in rounds, not seconds: shown when at
# most two rounds have completed since the counters were set (the round
# running then may have read those ports already; the next cannot miss)
r0=$(rounds)
sim_cmd 'PerformanceSet "leaf0"[1] PortCounters.SymbolErrorCounter=20' >/dev/null
sim_cmd 'PerformanceSet "h5"[1] PortCounters.LinkDownedCounter=3' >/dev/null
# (+20 and +3: above their thresholds, 10 and 2, so rising at the read
# that found them; shown rising until the next read, one interval later,
# which a loaded machine's polls may miss: the rise is checked by its log
# line below and by check_perfmgr test_thresholds, the totals here)
wait_errors 30 'leaf0 1 SymbolErrorCounter 20' \
    'h5 1 LinkDownedCounter 3' || fail "counters set in ibsim not shown"
# the rounds of the very answer that showed them
r1=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rounds"])' "$T/errors.json")
[ $((r1 - r0)) -le 2 ] || fail "counters set in ibsim shown only after $((r1 - r0)) rounds"
log "shown after $((r1 - r0)) rounds"
log "set counters shown: $(ctl errors | tail -n +2 | tr -s ' ' | paste -sd';')"

# the same counters on the exporter's series, the body strictly checked
guid_of() { python3 -c 'import json, sys
print([p["guid"] for p in json.load(open(sys.argv[1]))["ports"] if p["name"] == sys.argv[2]][0])' "$T/errors.json" "$1"; }
leaf0=$(guid_of leaf0)
h5=$(guid_of h5)
leaf0lid=$(ctl ports leaf0 --json | python3 -c 'import json, sys
print([p["lid"] for p in json.load(sys.stdin)["ports"] if p["port"] == 0][0])')
scrape "$T/metrics.txt" || fail "GET /metrics failed"
out=$(python3 "$PROMCHECK" "$T/metrics.txt" \
    "infiniband_switch_port_symbol_error_total{guid=\"$leaf0\",port=\"1\"}" \
    "infiniband_hca_port_link_downed_total{guid=\"$h5\",port=\"1\"}" \
    "infiniband_switch_info{guid=\"$leaf0\",switch=\"leaf0\",lid=\"$leaf0lid\"}" \
    "ibsmd_master" 2>&1) || fail "the body of GET /metrics is not valid: $out"
out=$(printf '%s\n' "$out" | paste -sd' ')
[ "$out" = "20 3 1 1" ] || fail "GET /metrics: symbol errors, link downed, switch info, master: $out (want 20 3 1 1)"
log "GET /metrics: $(wc -l <"$T/metrics.txt") lines, valid; leaf0[1] symbol errors 20, h5[1] link downed 3"

# a client that sends half a request and waits, and one that sends
# garbage: neither stalls the next scrape nor ibsmctl
python3 - "$MPORT" >"$T/slow.out" 2>&1 8>&- <<'EOF' &
import socket, sys, time
slow = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
slow.sendall(b"GET /metr")
bad = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
bad.sendall(b"\x00\x01garbage \xff\r\n\r\n")
bad.settimeout(15)
t = time.time()
# answered, or closed within libmicrohttpd's connection timeout (10 s)
print("garbage: %r after %.0f s" % (bad.recv(64)[:12], time.time() - t))
EOF
SLOW=$!
_track "$SLOW"
sleep 0.5
scrape "$T/metrics2.txt" || fail "a scrape stalled behind a slow client"
ctl status >/dev/null || fail "ibsmctl stalled behind a slow HTTP client"
# a scrape during a heavy sweep: ibsim (ours: $SIM_PID) is held with
# SIGSTOP, so the heavy sweep asked for waits in discovery on SMPs not
# yet answered (smp_timeout 1000 x 4 tries: seconds before any fails);
# ibsmctl status shows that sweep under way (sweep.state not idle) right
# before and right after the scrape, with no sweep begun or ended in
# between (sweep.sweeps unchanged): the scrape was answered while it ran.
# Then ibsim goes on (SIGCONT) and the sweep must end well.
python3 - "$IBSMCTL" "$T/run" "$MPORT" "$T/metrics3.txt" "$SIM_PID" >"$T/inside.out" 2>&1 8>&- <<'EOF2'
import json, os, signal, subprocess, sys, time, urllib.request
ctl, run, port, out, sim = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def status():
    p = subprocess.run([ctl, "--runtime-dir", run, "status", "--json"],
                       capture_output=True, text=True, timeout=10)
    s = json.loads(p.stdout)["sweep"]
    return s["state"], s["sweeps"], s["last_ok"]
os.kill(sim, signal.SIGSTOP)
try:
    subprocess.run([ctl, "--runtime-dir", run, "sweep", "--heavy"],
                   capture_output=True, timeout=10, check=True)
    t = time.time()
    while (before := status())[0] == "idle" and time.time() - t < 2:
        time.sleep(0.02)
    t = time.time()
    with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5) as r:
        assert r.status == 200, r.status
        body = r.read()
    took = time.time() - t
    after = status()
finally:
    os.kill(sim, signal.SIGCONT)
open(out, "wb").write(body)
if not (before[0] != "idle" and after[0] != "idle" and before[1] == after[1]):
    print("the scrape did not land inside the sweep: before %s, after %s" % (before, after))
    sys.exit(1)
t = time.time()
while (end := status())[0] != "idle" and time.time() - t < 30:
    time.sleep(0.1)
if end[0] != "idle" or not end[2]:
    print("the heavy sweep did not end well after ibsim went on: %s" % (end,))
    sys.exit(1)
print("answered in %.3f s while sweep %d was in %s (%s after); it then ended well" %
      (took, before[1], before[0], after[0]))
EOF2
[ $? -eq 0 ] || fail "a scrape during a heavy sweep: $(cat "$T/inside.out")"
python3 "$PROMCHECK" "$T/metrics3.txt" || fail "the body scraped during a heavy sweep is not valid"
log "scrape during a heavy sweep: $(cat "$T/inside.out")"
log "slow and malformed clients waiting: scrapes and ibsmctl answered"

# perfquery -R from a simulated host clears h5's port 1: the total stays
h5lid=$(ctl ports h5 --json | python3 -c 'import json, sys
print([p["lid"] for p in json.load(sys.stdin)["ports"] if p["port"] == 1][0])')
[ -n "$h5lid" ] || fail "no LID for h5 port 1: $(ctl ports h5 --json)"
diag perfquery -R "$h5lid" 1 >"$T/perfquery.out" 2>&1 ||
    fail "perfquery -R failed: $(cat "$T/perfquery.out")"
diag perfquery "$h5lid" 1 | grep -q '^LinkDownedCounter:\.*0$' ||
    fail "perfquery -R did not clear LinkDownedCounter"
# a clear, then 5 new symbol errors on leaf0 port 1 (20 -> 5)
sim_cmd 'PerformanceSet "leaf0"[1] PortCounters.SymbolErrorCounter=5' >/dev/null
r0=$(rounds)
poll_until 30 rounds_at_least $((r0 + 2)) >/dev/null ||
    fail "perfmgr stopped reading"
wait_errors 0 'leaf0 1 SymbolErrorCounter 25 steady' \
    'h5 1 LinkDownedCounter 3 steady' ||
    fail "a cleared counter moved a total backwards (or lost what came after)"
log "after the clears: leaf0[1] symbol errors 25, h5[1] link downed 3"
sim_cmd 'PerformanceSet "h5"[1] PortCounters.LinkDownedCounter=1' >/dev/null
wait_errors 30 'h5 1 LinkDownedCounter 4 steady' >/dev/null ||
    fail "a count after a clear was not added: $(cat "$T/errors.json")"
ctl errors >"$T/errors.txt"
grep -q 'leaf0' "$T/errors.txt" || fail "ibsmctl errors (text) lacks leaf0: $(cat "$T/errors.txt")"

# a 32-bit counter (PortXmitWait: PortCounters only, no Extended twin)
# near its top, then cleared and counting again from 7: on the
# exporter's series the total only grows (4,000,000,000 then +7)
xwait() {
	local r0
	sim_cmd "PerformanceSet \"leaf0\"[1] PortCounters.PortXmitWait=$1" >/dev/null
	r0=$(rounds)
	poll_until 30 rounds_at_least $((r0 + 2)) >/dev/null || fail "perfmgr stopped reading"
	scrape "$T/xwait.txt" || fail "GET /metrics failed"
	python3 "$PROMCHECK" "$T/xwait.txt" \
	    "infiniband_switch_port_transmit_wait_total{guid=\"$leaf0\",port=\"1\"}" 2>&1
}
v=$(xwait 4000000000)
[ "$v" = 4000000000 ] || fail "PortXmitWait 4000000000: total $v"
v=$(xwait 7)
[ "$v" = 4000000007 ] || fail "PortXmitWait cleared to 7: total $v, want 4000000007 (never backwards)"
log "32-bit PortXmitWait 4000000000, then cleared to 7: total $v"

# SA answers by attribute and status on /metrics: a NodeRecord GetTable
# answered (status 0), a P_KeyTableRecord GetTable refused to an
# untrusted requester (status 0x0200)
n0=$(scrape "$T/sa0.txt" && python3 "$PROMCHECK" "$T/sa0.txt" \
    'ibsmd_sa_answers_by_attribute_total{attribute="NodeRecord",status="0x0000"}' 2>/dev/null)
case $n0 in ''|*[!0-9]*) n0=0 ;; esac   # absent before the first answer
SIM_HOST=h5 diag saquery NR >/dev/null 2>&1 || fail "saquery NodeRecord failed"
SIM_HOST=h5 diag saquery PKTR >/dev/null 2>&1
scrape "$T/sa1.txt" || fail "GET /metrics failed"
out=$(python3 "$PROMCHECK" "$T/sa1.txt" \
    'ibsmd_sa_answers_by_attribute_total{attribute="NodeRecord",status="0x0000"}' \
    'ibsmd_sa_answers_by_attribute_total{attribute="P_KeyTableRecord",status="0x0200"}' 2>&1) ||
    fail "SA answers by attribute and status missing: $out; $(grep '^ibsmd_sa_answers_by' "$T/sa1.txt" | paste -sd' ')"
set -- $out
[ "$1" = $((n0 + 1)) ] && [ "$2" -ge 1 ] ||
    fail "SA answers by attribute: NodeRecord $1 (want $((n0 + 1))), P_KeyTableRecord refused $2; $(grep '^ibsmd_sa_answers_by' "$T/sa1.txt" | paste -sd' ')"
log "SA answers by attribute and status: NodeRecord/0x0000 $1, P_KeyTableRecord/0x0200 $2"

# logged once per rise above the threshold, with the peer: leaf0[1] rose
# by 20 (logged), then by 5 after a clear (not: threshold 10); h5[1] by 3
# (logged: threshold 2 from -O), then by 1 (not)
n=$(grep -c 'perfmgr: .*"leaf0" port 1 (peer: .*SymbolErrorCounter rose by 20 to 20 (threshold 10' "$SM_LOG")
[ "$n" -eq 1 ] || fail "leaf0 port 1's symbol errors +20 logged $n times, want 1"
n=$(grep -c 'perfmgr: .*"leaf0" port 1 .*SymbolErrorCounter rose' "$SM_LOG")
[ "$n" -eq 1 ] || fail "leaf0 port 1's symbol errors logged $n times, want 1 (+5 is under the threshold)"
n=$(grep -c 'perfmgr: .*"h5" port 1 (peer: .*LinkDownedCounter rose by 3 to 3 (threshold 2' "$SM_LOG")
[ "$n" -eq 1 ] || fail "h5 port 1's link downed +3 logged $n times, want 1"
n=$(grep -c 'perfmgr: .*"h5" port 1 .*LinkDownedCounter rose' "$SM_LOG")
[ "$n" -eq 1 ] || fail "h5 port 1's link downed logged $n times, want 1 (+1 is under the threshold)"
log "thresholds: +20 (over 10) and +3 (over 2) logged once each, +5 and +1 not"

# the garbage client, left waiting meanwhile, was answered or closed
wait "$SLOW"
_untrack "$SLOW"
grep -q '^garbage: ' "$T/slow.out" || fail "the garbage client was neither answered nor closed: $(cat "$T/slow.out")"
log "malformed client: $(cat "$T/slow.out")"

st=$(ctl status --json)
sm_stop
read -r rounds ports nodes <<EOF
$(printf '%s' "$st" | python3 -c 'import json, sys
p = json.load(sys.stdin)["perfmgr"]
print(p["rounds"], p["ports"], p["cpi_reads"])')
EOF
perf=$(class_sends "$T/on.stats" 0x04)
limit=$(( (rounds + 1) * ports * 2 + nodes ))
log "perfmgr on: $perf PerfMgt MADs for $rounds rounds of $ports ports ($nodes ClassPortInfo); at most $limit"
[ "$perf" -gt 0 ] || fail "perfmgr on sent no PerfMgt MAD"
[ "$perf" -le "$limit" ] || fail "$perf PerfMgt MADs: more than two per port and round"
