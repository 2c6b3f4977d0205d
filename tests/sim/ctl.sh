#!/bin/bash
# ibsmctl against a running ibsmd on the two-level fat tree (ft2_8): status
# --json agrees with what ibnetdiscover reads from the fabric (MASTER, node
# and switch counts); its SA counters move with saquery's requests; sweep [--heavy] is counted; route follows the same
# egress ports as ibtracert; ports agrees with smpquery and ibnetdiscover;
# log-level; the client's usage, error and "no daemon" exits; and garbage
# on the socket (binary, over-long lines, empty and half requests, 200
# rapid connections, an idle client) does not hurt the daemon.
#
#   IBSMCTL   the client (default ./ibsmctl; make check exports it)
#   VALGRIND=1  run the daemon under valgrind (memcheck errors and definite
#               leaks fail the test)
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmctl talks to ibsmd only"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable (build ibsmctl first)"

if [ "${VALGRIND:-0}" = 1 ]; then
	command -v valgrind >/dev/null || skip "VALGRIND=1 but valgrind is not installed"
	real=$(cd "$(dirname "$IBSMD")" && pwd)/$(basename "$IBSMD")
	cat >"$T/ibsmd-vg" <<EOF
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full \
    --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --log-file="$T/valgrind.%p.log" "$real" "\$@"
EOF
	chmod +x "$T/ibsmd-vg"
	IBSMD=$T/ibsmd-vg
	: "${SM_STOP_GRACE:=30}"
	export SM_STOP_GRACE
fi

RUN=$T/run

# ctl ARGS...: ibsmctl on this test's instance (fd 8 is ibsim's console).
ctl() { "$IBSMCTL" --runtime-dir "$RUN" "$@" 8>&-; }

# jget KEY...: a value from the JSON document on stdin.
jget() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1:]:
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$@"
}

# expect_rc RC CMD...: run CMD, fail unless it exits RC; its stderr is
# left in $T/err, stdout in $T/out.
expect_rc() {
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, not $want: $(cat "$T/err" "$T/out" | head -5)"
}

alive() { kill -0 "$SM_PID" 2>/dev/null || fail "ibsmd (pid $SM_PID) died"; }

sim_start "$FABRICS/ft2_8.net"
# A known configuration and policy: the host's /etc/ibsmd stays out of it.
printf 'Default=0x7fff, ipoib : ALL=full;\nblue=0x0010 : 0x100004=full;\n' >"$T/partitions.conf"
sm_start -c /dev/null -P "$T/partitions.conf" -R minhop
wait_subnet_up 120
SOCK=$(ls "$RUN"/*.sock 2>/dev/null)
[ -S "$SOCK" ] || fail "no control socket in $RUN"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "control socket mode is $(stat -c %a "$SOCK"), not 600"

# ---- status --json against ibnetdiscover
diag ibnetdiscover >"$T/netdisc" 2>/dev/null || fail "ibnetdiscover failed"
nsw=$(grep -c '^Switch' "$T/netdisc")
nca=$(grep -c '^Ca' "$T/netdisc")
nrt=$(grep -c '^Rt' "$T/netdisc")
ctl status --json >"$T/status.json" || fail "status --json failed"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/status.json" ||
    fail "status --json is not JSON: $(head -c 300 "$T/status.json")"
[ "$(jget sm_state <"$T/status.json")" = MASTER ] || fail "sm_state is not MASTER"
[ "$(jget fabric nodes <"$T/status.json")" = $((nsw + nca + nrt)) ] ||
    fail "status says $(jget fabric nodes <"$T/status.json") nodes, ibnetdiscover $((nsw + nca + nrt))"
[ "$(jget fabric switches <"$T/status.json")" = "$nsw" ] ||
    fail "status says $(jget fabric switches <"$T/status.json") switches, ibnetdiscover $nsw"
[ "$(jget fabric cas <"$T/status.json")" = "$nca" ] || fail "CA count differs from ibnetdiscover"
[ "$(jget mad sent <"$T/status.json")" -gt 0 ] || fail "no MADs counted"
[ "$(jget mad counters smp Get NodeInfo sent <"$T/status.json")" -gt 0 ] || fail "no MAD counters"
[ "$(jget routing engine <"$T/status.json")" = minhop ] || fail "no routing report"
log "status --json: MASTER, $nsw switches and $nca CAs, as ibnetdiscover sees"
ctl status >"$T/status.txt" || fail "status failed"
grep -q '^sm_state: MASTER$' "$T/status.txt" || fail "status text: $(head -3 "$T/status.txt")"
grep -q '^        NodeInfo: {sent: [1-9]' "$T/status.txt" || fail "status text has no MAD counters"

# ---- the SA agent's counters move with what saquery asks (they are ours
# to count: the requests and answers of our agent)
grep -qx '  serving: true' "$T/status.txt" || fail "status text: the SA is not serving: $(grep -A1 '^sa:' "$T/status.txt")"
ctl status --json >"$T/sa0.json"
[ "$(jget sa serving <"$T/sa0.json")" = True ] || fail "status --json: SA not serving on the master"
diag saquery -c >"$T/cpi" 2>&1 || fail "saquery -c failed: $(cat "$T/cpi")"
diag saquery --smkey 1 PKTR 1 >/dev/null 2>&1
DIAG_TIMEOUT=5 diag saquery --smkey 7 -c >/dev/null 2>&1
ctl status --json >"$T/sa1.json"
for k in requests:3 answered:2 bad_key:1; do
	a=$(jget sa "${k%:*}" <"$T/sa0.json")
	b=$(jget sa "${k%:*}" <"$T/sa1.json")
	[ "$b" -ge $((a + ${k#*:})) ] || fail "status: sa ${k%:*} went from $a to $b, not up by ${k#*:}"
done
[ "$(jget sa answer_max_us <"$T/sa1.json")" -gt 0 ] || fail "status: sa answer_max_us is 0 after answers"
log "status: SA serving, requests/answered/bad_key counted ($(jget sa requests <"$T/sa1.json") requests)"

# ---- sweeps
# sweeps_above KIND N: true once KIND_sweeps exceeds N and the SM is idle.
sweeps_above() {
	ctl status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["sweep"]
sys.exit(not (s[sys.argv[1] + "_sweeps"] > int(sys.argv[2]) and s["state"] == "idle"))' "$1" "$2"
}
heavy0=$(ctl status --json | jget sweep heavy_sweeps)
light0=$(ctl status --json | jget sweep light_sweeps)
expect_rc 0 ctl sweep --heavy
grep -q '^heavy sweep requested' "$T/out" || fail "sweep --heavy: $(cat "$T/out")"
poll_until 30 sweeps_above heavy "$heavy0" >/dev/null ||
    fail "heavy sweep count did not grow after sweep --heavy (was $heavy0)"
expect_rc 0 ctl sweep
poll_until 30 sweeps_above light "$light0" >/dev/null ||
    fail "light sweep count did not grow after sweep (was $light0)"
[ "$(ctl status --json | jget sm_state)" = MASTER ] || fail "not MASTER after the sweeps"
log "sweep --heavy and sweep counted"

# ---- nodes
ctl nodes --json >"$T/nodes.json" || fail "nodes --json failed"
[ "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))' <"$T/nodes.json")" = $((nsw + nca + nrt)) ] ||
    fail "nodes lists another number of nodes than ibnetdiscover"
[ "$(ctl nodes | wc -l)" = $((nsw + nca + nrt + 1)) ] || fail "nodes table has the wrong number of lines"

# CA LIDs in node order, and one switch LID
read -r -a CA_LIDS <<<"$(python3 -c '
import json, sys
print(" ".join(str(p["lid"]) for n in json.load(sys.stdin)["nodes"]
    if n["type"] == "CA" for p in n["endports"]))' <"$T/nodes.json")"
SW_LID=$(python3 -c '
import json, sys
print([n for n in json.load(sys.stdin)["nodes"] if n["type"] == "switch"][-1]["endports"][0]["lid"])' <"$T/nodes.json")
[ "${#CA_LIDS[@]}" = "$nca" ] || fail "nodes lists ${#CA_LIDS[@]} CA LIDs, not $nca"

# ---- route against ibtracert: same egress ports, same nodes
check_route() {
	local src=$1 dst=$2
	diag ibtracert "$src" "$dst" >"$T/tracert" 2>/dev/null || fail "ibtracert $src $dst failed"
	ctl route "$src" "$dst" --json >"$T/route.json" || fail "route $src $dst failed: $(cat "$T/route.json")"
	python3 - "$T/tracert" "$T/route.json" <<'EOF' || fail "route $src $dst differs from ibtracert"
import json, re, sys
tr = [re.match(r'\[(\d+)\] -> \S+ port \{0x[0-9a-f]+\}\[\d+\] lid \d+-\d+ "(.*)"', l)
      for l in open(sys.argv[1])]
tr = [(int(m.group(1)), m.group(2)) for m in tr if m]
r = json.load(open(sys.argv[2]))
path = r["path"]
ours = [(path[i]["out_port"], path[i + 1]["desc"]) for i in range(len(path) - 1)]
if r["hops"] != len(tr) or ours != tr:
    print("ibtracert:", tr, "\nibsmctl:  ", ours, file=sys.stderr)
    sys.exit(1)
EOF
	ctl route "$src" "$dst" >"$T/route.txt" || fail "route $src $dst (text) failed"
	grep -q "^LID $src to LID $dst: $(jget hops <"$T/route.json") hop" "$T/route.txt" ||
	    fail "route text: $(head -1 "$T/route.txt")"
}
last=$((${#CA_LIDS[@]} - 1))
check_route "${CA_LIDS[0]}" "${CA_LIDS[$last]}"
log "route ${CA_LIDS[0]} ${CA_LIDS[$last]}: $(jget hops <"$T/route.json") hops, the egress ports and nodes ibtracert reads"
check_route "${CA_LIDS[1]}" "${CA_LIDS[$((last / 2))]}"
check_route "${CA_LIDS[$last]}" "$SW_LID"
expect_rc 1 ctl route "${CA_LIDS[0]}" 0xbfff
grep -q 'no port has LID' "$T/err" || fail "route to a missing LID: $(cat "$T/err")"

# ---- ports against smpquery and ibnetdiscover
lid=${CA_LIDS[2]}
ctl ports "$lid" --json >"$T/ports.json" || fail "ports $lid failed"
pnum=$(jget ports 0 port <"$T/ports.json")
diag smpquery portinfo "$lid" "$pnum" >"$T/portinfo" 2>/dev/null || fail "smpquery portinfo $lid failed"
grep -q "^Lid:\.*$lid\$" "$T/portinfo" || fail "smpquery does not read LID $lid"
state=$(sed -n 's/^LinkState:\.*//p' "$T/portinfo")
[ "$(jget ports 0 state <"$T/ports.json")" = "$state" ] ||
    fail "ports says $(jget ports 0 state <"$T/ports.json"), smpquery $state"
python3 - "$T/netdisc" "$T/ports.json" <<'EOF' || fail "ports $lid: peer differs from ibnetdiscover"
import json, re, sys
seen = {}
for l in open(sys.argv[1]):
    m = re.match(r'\[(\d+)\]\(([0-9a-f]+)\)\s+"[SH]-([0-9a-f]+)"\[(\d+)\]', l)
    if m:
        seen[(int(m.group(2), 16), int(m.group(1)))] = (int(m.group(3), 16), int(m.group(4)))
p = json.load(open(sys.argv[2]))["ports"][0]
ours = (int(p["peer"]["node_guid"], 16), p["peer"]["port"])
if seen.get((int(p["guid"], 16), p["port"])) != ours:
    sys.exit("ibsmctl: %s, ibnetdiscover: %s" % (ours, seen.get((int(p["guid"], 16), p["port"]))))
EOF
pguid=$(jget ports 0 guid <"$T/ports.json")
ctl ports "$lid" >"$T/ports.txt" || fail "ports $lid (text) failed"
grep -Eq "^ +$pnum +$pguid +$state +LinkUp +$lid " "$T/ports.txt" || fail "ports text: $(cat "$T/ports.txt")"
nports=$(ctl ports "$SW_LID" --json | jget node nports)
[ "$(ctl ports "$SW_LID" | wc -l)" = $((nports + 3)) ] || fail "ports of switch LID $SW_LID: not ports 0-$nports"
expect_rc 1 ctl ports 0x00000000deadbeef
expect_rc 1 ctl ports no-such-node
log "ports: state, LID and peer as smpquery and ibnetdiscover read them"

# ---- log-level, partitions, reload
expect_rc 0 ctl log-level debug
[ "$(ctl status --json | jget log_level)" = debug ] || fail "log level did not change"
expect_rc 1 ctl log-level nosuch
grep -q "unknown level 'nosuch'" "$T/err" || fail "log-level nosuch: $(cat "$T/err")"
expect_rc 0 ctl log-level info
expect_rc 0 ctl partitions
grep -q '^Default=0x7fff' "$T/out" || fail "partitions does not show the running policy: $(cat "$T/out")"
grep -q '0x0000000000100004=full' "$T/out" || fail "partitions lost a member of the file: $(cat "$T/out")"
expect_rc 0 ctl reload
alive

# ---- the client's own errors
expect_rc 2 ctl route 1
expect_rc 2 ctl frobnicate
expect_rc 2 ctl status --heavy
expect_rc 2 ctl --guid 0xnothex status
expect_rc 3 "$IBSMCTL" --runtime-dir "$T/nowhere" status
grep -q "no ibsmd running (no socket in $T/nowhere)" "$T/err" || fail "no daemon: $(cat "$T/err")"
expect_rc 3 ctl --guid 0x1234 status
mkdir -p "$T/two"
python3 - "$T/two" <<'EOF'
import socket, sys
for g in ("0x0000000000000001", "0x0000000000000002"):
    s = socket.socket(socket.AF_UNIX)
    s.bind("%s/%s.sock" % (sys.argv[1], g))
    s.close()
EOF
expect_rc 2 "$IBSMCTL" --runtime-dir "$T/two" status
grep -q '0x0000000000000002' "$T/err" || fail "several sockets: $(cat "$T/err")"
expect_rc 3 "$IBSMCTL" --runtime-dir "$T/two" --guid 1 status
grep -q 'stale socket' "$T/err" || fail "stale socket: $(cat "$T/err")"
expect_rc 0 ctl --guid "$(basename "$SOCK" .sock)" status

# ---- garbage on the socket
python3 - "$SOCK" <<'EOF' || fail "garbage on the control socket"
import os, socket, sys, time
path = sys.argv[1]

def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)         # blocking: waits while the backlog is full
    s.settimeout(10)
    return s

def ask(data, shut=True):
    s = conn()
    try:
        s.sendall(data)
        if shut:
            s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except ConnectionResetError:
        pass
    s.close()
    return out

def expect(data, prefix, what):
    out = ask(data)
    if not out.startswith(prefix):
        sys.exit("%s: answer %r" % (what, out[:200]))

expect(os.urandom(3000) + b"\n", b"error\n", "binary bytes")
expect(b"status\x00\n", b"error\n", "a NUL byte")
expect(b"\xff\xfe status\n", b"error\n", "non-ASCII bytes")
expect(b"a" * 100000, b"error\nrequest longer", "an over-long line")
expect(b"b" * 5000 + b"\n", b"error\nrequest longer", "a long line")
expect(b"\n", b"error\nempty request", "an empty line")
expect(b"json\n", b"error\nempty request", "a mode alone")
expect(b"frobnicate\n", b"error\nunknown command", "an unknown command")
expect(b"status " + b"x " * 20 + b"\n", b"error\n", "too many words")
expect(b'ports "h0\n', b"error\nbad request: unterminated", "an open quote")
expect(b"route 1\n", b"error\nusage: route", "a missing argument")
expect(b"log-level debug extra\n", b"error\nusage", "an extra argument")
expect(b"ports 99999999999999999999999\n", b"error\n", "a huge number")
expect(b"ports 0\n", b"error\n", "LID 0")
expect(b"text status\r\n", b"ok\nversion: ", "CRLF")
expect(b"json status", b"ok\n{", "a request ended by EOF")
# an empty connection, and half a line then close
conn().close()
s = conn(); s.sendall(b"stat"); s.close()
s = conn(); s.sendall(b"json nodes\n"); s.close()     # gone before the answer
# 200 connections open at once (most are dropped: a bounded number is
# served at a time), then 200 in a row that do not wait for the answer
many = [conn() for _ in range(200)]
for s in many[::2]:
    try:
        s.sendall(b"json status\n")
    except OSError:
        pass
for s in many:
    s.close()
for _ in range(200):
    s = conn()
    try:
        s.sendall(b"json status\n")
    except OSError:
        pass
    s.close()
# an idle client is dropped after the request timeout
s = conn()
t0 = time.time()
s.settimeout(30)
if s.recv(16) != b"" or time.time() - t0 > 20:
    sys.exit("an idle client was not dropped")
s.close()
out = ask(b"json status\n")
if not out.startswith(b"ok\n{"):
    sys.exit("status after the garbage: %r" % out[:200])
EOF
alive
[ "$(ctl status --json | jget sm_state)" = MASTER ] || fail "not MASTER after the garbage"
log "garbage on the socket: the daemon still answers"

sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
[ ! -e "$SOCK" ] || fail "control socket $SOCK left behind"
if [ "${VALGRIND:-0}" = 1 ]; then
	for f in "$T"/valgrind.*.log; do
		[ -s "$f" ] && { cat "$f" >&2; fail "valgrind: $f"; }
	done
	log "valgrind: clean"
fi
exit 0
