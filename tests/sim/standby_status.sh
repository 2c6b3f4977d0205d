#!/bin/bash
# The truth about a standby, and about a master that handed over, in the
# four places an administrator looks: ibsmctl status (text and JSON), the
# stats file and systemd's STATUS= line (read here from a notify socket of
# the test's own, as systemd would). ft2_8, m (priority 12, h0) master, s
# (priority 5, h17) standby.
#   - s says STANDBY, names its master as the fabric knows it (m's port
#     GUID and LID from ibnetdiscover, priority 12 from sminfo), has no
#     subnet "up" of its own, and shows the fabric as it last saw it
#     (nodes and LIDs as many as ibnetdiscover finds, not in use);
#   - m says MASTER, subnet up, and lists s as its standby;
#   - s's priority raised by a reload: m hands over; m now names s as
#     master and shows no stale "up since";
#   - the same keys and values in the JSON, the text and the stats file;
#   - STATUS= gives the reason of a failure: a reload with a bad
#     partitions file ("last reload rejected ... partitions"), an SM whose
#     own port is down (no "last none failed").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless
"$IBSMD" -h | grep -q . || fail "no ibsmd"

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"

# notify_listen NAME: a datagram socket $T/NAME.notify whose messages go to
# $T/NAME.status, one per line (what systemd would store as STATUS=)
notify_listen() {
	python3 - "$T/$1.notify" "$T/$1.status" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        for part in s.recv(65536).decode("utf-8", "replace").split("\n"):
            if part.startswith("STATUS="):
                out.write(part[7:] + "\n")
EOF
	_track $!
	local i=0
	until [ -S "$T/$1.notify" ]; do
		[ $i -lt 50 ] || fail "notify socket $1 not bound"
		sleep 0.1
		i=$((i + 1))
	done
}
last_status() { tail -n 1 "$T/$1.status" 2>/dev/null; }
# wait_status NAME REGEX SECONDS: NAME's last STATUS= matches REGEX
wait_status() {
	local i=0
	until last_status "$1" | grep -qE "$2"; do
		[ $i -lt $(($3 * 10)) ] || fail "$1: STATUS=$(last_status "$1"), not /$2/"
		sleep 0.1
		i=$((i + 1))
	done
}
# snap NAME: NAME's status JSON into $T/NAME.json; js NAME KEY...: a value
# of that snapshot
snap() { ha_ctl "$1" status --json >"$T/$1.json" || fail "$1: ibsmctl status failed"; }
js() { local n=$1; shift; ha_jget "$@" <"$T/$n.json"; }
flat() { awk -v k="$2" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$T/$1/state/stats"; }

HA_PARTITIONS=$T/parts.conf
printf 'Default=0x7fff : ALL=full;\n' >"$HA_PARTITIONS"
sim_start "$FABRICS/ft2_8.net"
notify_listen m
notify_listen s
printf 'sm_priority: 12\n' >"$T/m.conf"
printf 'sm_priority: 5\n' >"$T/s.conf"
NOTIFY_SOCKET=$T/m.notify ha_start m h0 $POLL
ha_wait_up m 60
NOTIFY_SOCKET=$T/s.notify ha_start s h17 $POLL
ha_wait_state s STANDBY 60
read -r guid_m lid_m <<<"$(ha_port h0)"
read -r guid_s lid_s <<<"$(ha_port h17)"
nodes=$(diag ibnetdiscover 2>/dev/null | grep -c '^\(Switch\|Ca\)')
lids=$(wc -l <"$T/lids.tmp")
[ "$nodes" -gt 0 ] && [ "$lids" -gt 0 ] || fail "ibnetdiscover found nothing"
read -r _ prio_m _ <<<"$(ha_sminfo "$lid_m")"

# ---- the standby
snap s
[ "$(js s sm_state)" = STANDBY ] || fail "s: sm_state $(js s sm_state)"
[ "$(js s sm master guid)" = "$guid_m" ] || fail "s: master $(js s sm master guid), not $guid_m"
[ "$(js s sm master lid)" = "$lid_m" ] || fail "s: master LID $(js s sm master lid), not $lid_m"
[ "$(js s sm master priority)" = "$prio_m" ] || fail "s: master priority $(js s sm master priority), not $prio_m"
[ "$(js s sweep subnet_up)" = False ] || fail "s: says its own subnet is up"
[ "$(js s fabric in_use)" = False ] || fail "s: says it uses a fabric"
[ "$(js s fabric nodes)" = "$nodes" ] || fail "s: $(js s fabric nodes) nodes seen, ibnetdiscover finds $nodes"
[ "$(js s fabric lids)" = "$lids" ] || fail "s: $(js s fabric lids) LIDs seen, ibnetdiscover finds $lids"
[ -n "$(js s fabric seen_at)" ] || fail "s: no time the fabric was seen"
ha_ctl s status >"$T/s.txt" || fail "s: ibsmctl status failed"
grep -qx "sm_state: STANDBY" "$T/s.txt" &&
    grep -qx "  master: {self: false, guid: $guid_m, lid: $lid_m, priority: $prio_m}" "$T/s.txt" &&
    grep -qx "  subnet_up: false" "$T/s.txt" ||
    fail "s: the text does not say it: $(grep -n 'master\|subnet_up\|sm_state' "$T/s.txt")"
[ "$(flat s sm.master.guid)" = "$guid_m" ] && [ "$(flat s sm.master.lid)" = "$lid_m" ] &&
    [ "$(flat s sweep.subnet_up)" = 0 ] && [ "$(flat s fabric.nodes)" = "$nodes" ] ||
    fail "s: the stats file does not say it: $(grep '^sm.master\|^sweep.subnet_up\|^fabric.nodes' "$T/s/state/stats")"
wait_status s "^STANDBY for master $guid_m \\(LID $lid_m, priority $prio_m\\); fabric as last seen: $nodes nodes, $lids LIDs" 10
log "standby: master $guid_m (LID $lid_m, priority $prio_m), fabric as seen ($nodes nodes, $lids LIDs), no subnet of its own; JSON, text, stats, STATUS agree"

# ---- the master
snap m
[ "$(js m sm master self)" = True ] || fail "m: not its own master"
[ "$(js m sm standbys 0 guid)" = "$guid_s" ] || fail "m: standby $(js m sm standbys 0 guid), not $guid_s"
[ "$(js m sweep subnet_up)" = True ] || fail "m: subnet not up"
[ "$(flat m sm.standbys.0.guid)" = "$guid_s" ] || fail "m: the stats file lists no standby"
# refreshed with the stats file at every sweep (default 10 s)
wait_status m "^MASTER, subnet up; 1 standby; fabric: $nodes nodes, $lids LIDs" 25
log "master: subnet up, standby $guid_s listed"

# ---- the same keys everywhere: every stats line's key is a path of the JSON
ha_ctl m status --json >"$T/m.json"
python3 - "$T/m.json" "$T/m/state/stats" <<'EOF' || fail "the stats file and the JSON disagree"
import json, sys
def leaves(v, p=""):
    if isinstance(v, dict):
        for k, x in v.items():
            yield from leaves(x, p + "." + k if p else k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from leaves(x, "%s.%d" % (p, i))
    else:
        yield p
j = set(leaves(json.load(open(sys.argv[1]))))
f = set(l.split(" ", 1)[0] for l in open(sys.argv[2]) if l.strip())
# counters and times move between the two reads; the keys do not
if j != f:
    print("only in JSON:", sorted(j - f)[:10], "only in stats:", sorted(f - j)[:10])
    sys.exit(1)
EOF
log "JSON and stats file: the same $(wc -l <"$T/m/state/stats") keys"

# ---- handover: m must not keep a stale "up since"
printf 'sm_priority: 14\n' >"$T/s.conf"
ha_ctl s reload >/dev/null || fail "reload failed"
ha_wait_state s MASTER 30
ha_wait_state m STANDBY 30
snap m
[ "$(js m sm master guid)" = "$guid_s" ] || fail "m after the handover: master $(js m sm master guid)"
[ "$(js m sweep subnet_up)" = False ] || fail "m after the handover: still says subnet up"
[ -z "$(js m sweep up_since 2>/dev/null)" ] || fail "m after the handover: a stale up_since $(js m sweep up_since)"
[ "$(flat m sweep.subnet_up)" = 0 ] || fail "m's stats file still says subnet up"
wait_status m "^STANDBY for master $guid_s " 10
log "after the handover: m STANDBY for $guid_s, no stale up since"

# ---- a reload that fails says so in STATUS=
printf 'Default=0x7fff : ALL=full;\nbad=0x0000 : ALL;\n' >"$HA_PARTITIONS"
ha_ctl s reload >/dev/null 2>&1 && fail "a reload of a bad partitions file succeeded"
wait_status s "; last reload rejected \\([0-9]+ errors?, partitions\\), running configuration and partitions kept$" 10
snap s
[ "$(js s note)" != "" ] || fail "status has no note of the rejected reload"
log "STATUS=: $(last_status s)"
ha_stop_all

# ---- an SM whose own port is down
sim_cmd 'Unlink "h17"[1]' >/dev/null
printf 'Default=0x7fff : ALL=full;\n' >"$HA_PARTITIONS"
: >"$T/d.status"
NOTIFY_SOCKET=$T/s.notify ha_start d h17 -s 1 $POLL
wait_status s "own port .* is down" 20
last_status s | grep -q "last none failed" && fail "STATUS= says 'last none failed'"
log "own port down: STATUS=$(last_status s)"
