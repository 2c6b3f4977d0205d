#!/bin/bash
# Reloading partitions: all or nothing, and only what changed is written.
#
# ibsmd on ft2_8 with -P FILE (data/partitions_disjoint.conf) and a light
# sweep every second (so that periodic sweeps run all along and would be
# caught writing P_Keys they should not). Every CA port's, switch port 0's
# and CA-facing switch port's P_Key table is read with smpquery
# (pkeytables.py read), and `ibsmctl partitions` recorded.
#
# 1. FILE replaced by data/partitions_broken.conf (two mistakes, and a new
#    partition that must not appear). SIGHUP to the daemon's PID: once the
#    heavy sweep SIGHUP starts is over, every table reads as before, no
#    P_KeyTable Set was sent, and `ibsmctl partitions` is unchanged.
# 2. `ibsmctl reload` on the same file exits 1 and prints both mistakes as
#    file:line:col (with "did you mean"); the same three checks.
# 3. FILE replaced by the first file plus one partition of two ports, on
#    two leaves (h5 full, h13 limited); `ibsmctl reload` exits 0. After the
#    heavy sweep: the new P_Key is on exactly those two CA ports and on the
#    two switch ports facing them, every other table is unchanged, entries
#    already there keep their index, all tables are what the new file
#    implies (pkeytables.py expect), `ibsmctl partitions` shows the new
#    partition, and the P_KeyTable Sets sent for it
#    (smp.Set.P_KeyTable.sent in the stats file, before and after) are
#    exactly the blocks that differ between the two reads.
# 4. FILE back to the first file, reload: every table is again exactly
#    as read at the start (the freed index emptied), and the Sets sent are
#    the blocks that changed.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "reload through ibsmctl is ibsmd's"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable (build ibsmctl first)"

PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
DATA=$TOP_SRCDIR/tests/sim/data
FILE=$T/partitions.conf
pkt() { python3 "$PKT" --preload "$SIM_PRELOAD" "$@" 8>&-; }
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

# put SRC...: FILE becomes the concatenation of SRC..., atomically.
put() {
	cat "$@" >"$FILE.new" && mv "$FILE.new" "$FILE" || fail "cannot write $FILE"
}

# pkey_sets: P_KeyTable Sets sent so far, from the stats file.
pkey_sets() { stat_get mad.counters.smp.Set.P_KeyTable.sent 0; }

# heavy_done N: true once more than N heavy sweeps are done and the SM is
# idle, with the stats file written after it.
heavy_done() {
	ctl status --json | python3 -c '
import json, sys
s = json.load(sys.stdin)["sweep"]
sys.exit(not (s["heavy_sweeps"] > int(sys.argv[1]) and s["state"] == "idle"))' "$1" &&
	[ "$(stat_get sweep.heavy_sweeps 0)" -gt "$1" ]
}
heavies() { ctl status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["sweep"]["heavy_sweeps"])'; }

# unchanged WHAT: the tables, the P_Key Sets and the policy are as before.
unchanged() {
	local b
	pkt read "$T/now.json" >/dev/null || fail "$1: could not read the P_Key tables"
	b=$(pkt blocks "$T/before.json" "$T/now.json")
	[ "$(printf '%s\n' "$b" | head -1)" = "0 0" ] ||
	    fail "$1: P_Key tables changed: $(printf '%s\n' "$b" | tail -n +2 | head -5)"
	[ "$(pkey_sets)" = "$sets0" ] || fail "$1: $(($(pkey_sets) - sets0)) P_KeyTable Sets sent"
	ctl partitions >"$T/policy.now" || fail "$1: ibsmctl partitions failed"
	diff -u "$T/policy.before" "$T/policy.now" >&2 || fail "$1: ibsmctl partitions shows another policy"
}

put "$DATA/partitions_disjoint.conf"
sim_start "$FABRICS/ft2_8.net"
sm_start -P "$FILE" -R minhop --sweep-interval 1
wait_subnet_up 60
pkt read "$T/before.json" || fail "could not read the P_Key tables"
pkt expect "$DATA/partitions_disjoint.conf" "$T/before.json" --sm-guid 0x100001 >/dev/null ||
    fail "the tables at start are not what the file implies"
ctl partitions >"$T/policy.before" || fail "ibsmctl partitions failed"
grep -q '^red=0x0020' "$T/policy.before" || fail "ibsmctl partitions: $(head -5 "$T/policy.before")"
sets0=$(pkey_sets)

# ---- 1. a broken file, SIGHUP
put "$DATA/partitions_broken.conf"
h=$(heavies)
kill -HUP "$SM_PID" || fail "cannot signal ibsmd"
poll_until 30 heavy_done "$h" >/dev/null || fail "no heavy sweep after SIGHUP"
kill -0 "$SM_PID" 2>/dev/null || fail "ibsmd died on SIGHUP with a broken partitions file"
unchanged "SIGHUP with a broken file"
log "SIGHUP with a broken partitions file: every table, and the policy, unchanged"

# ---- 2. the same file, ibsmctl reload
ctl reload >"$T/reload.out" 2>"$T/reload.err"
rc=$?
[ $rc = 1 ] || fail "ibsmctl reload of a broken file exited $rc, not 1"
grep -q "^$FILE:7:11: bad membership 'limi'.*did you mean 'limited'" "$T/reload.err" ||
    fail "ibsmctl reload does not report 7:11 (limi): $(cat "$T/reload.err")"
grep -q "^$FILE:9:20: bad GUID '0x10002g'" "$T/reload.err" ||
    fail "ibsmctl reload does not report 9:20 (0x10002g): $(cat "$T/reload.err")"
sleep 1         # a sweep it might (wrongly) have started
poll_until 30 heavy_done 0 >/dev/null || fail "ibsmd does not come back to idle"
unchanged "ibsmctl reload with a broken file"
log "ibsmctl reload with a broken file: exit 1, both errors as file:line:col, nothing changed"

# ---- 3. one partition more, for two ports
printf 'green=0x0030 : 0x100010=full, 0x100028;\n' >"$T/green.conf"
cat "$DATA/partitions_disjoint.conf" "$T/green.conf" >"$T/added.conf"
put "$T/added.conf"
h=$(heavies)
ctl reload >"$T/reload.out" 2>"$T/reload.err" || fail "ibsmctl reload of a valid file failed: $(cat "$T/reload.err")"
poll_until 30 heavy_done "$h" >/dev/null || fail "no heavy sweep after the reload"
pkt read "$T/after.json" >/dev/null || fail "could not read the P_Key tables"
sets1=$(pkey_sets)
pkt blocks "$T/before.json" "$T/after.json" >"$T/blocks" || fail "pkeytables blocks failed"
read -r nblocks nports <"$T/blocks"
log "reload: $nblocks P_Key blocks of $nports ports changed, $((sets1 - sets0)) P_KeyTable Sets sent"
python3 - "$T/before.json" "$T/after.json" <<'EOF' || fail "the new P_Key is not on exactly the two ports and their switch ports"
import json, sys
a, b = (json.load(open(p))["ports"] for p in sys.argv[1:3])
want = {"ca:0x0000000000100010": 0x8030, "ca:0x0000000000100028": 0x0030}
want.update({k: want[p["peer"]] for k, p in b.items() if p["kind"] == "swp" and p["peer"] in want})
errs = []
if len(want) != 4:
    errs.append("expected 4 ports, found %s" % sorted(want))
for k in sorted(a):
    ta, tb = a[k]["table"], b[k]["table"]
    added = sorted(set(e for e in tb if e) - set(e for e in ta if e))
    gone = sorted(set(e for e in ta if e) - set(e for e in tb if e))
    moved = [i for i in range(len(ta)) if ta[i] and ta[i] != tb[i]]
    if gone or moved:
        errs.append("%s: lost %s, moved indices %s" % (k, [hex(e) for e in gone], moved))
    if added != ([want[k]] if k in want else []):
        errs.append("%s: gained %s" % (k, [hex(e) for e in added]))
for e in errs:
    print(e, file=sys.stderr)
sys.exit(1 if errs else 0)
EOF
pkt expect "$T/added.conf" "$T/after.json" --sm-guid 0x100001 >/dev/null ||
    fail "after the reload, the tables are not what the new file implies"
[ "$nports" = 4 ] || fail "$nports ports changed, not 4: $(tail -n +2 "$T/blocks")"
[ $((sets1 - sets0)) = "$nblocks" ] ||
    fail "the reload sent $((sets1 - sets0)) P_KeyTable Sets for $nblocks changed blocks: $(tail -n +2 "$T/blocks")"
ctl partitions >"$T/policy.after" || fail "ibsmctl partitions failed"
grep -q '^green=0x0030' "$T/policy.after" || fail "ibsmctl partitions does not show the new partition"
log "reload of one partition for two ports: the P_Key on those ports and their switch ports, $nblocks blocks written, nothing else"

# ---- 4. the partition removed again
put "$DATA/partitions_disjoint.conf"
h=$(heavies)
ctl reload >"$T/reload.out" 2>"$T/reload.err" || fail "ibsmctl reload of the first file failed: $(cat "$T/reload.err")"
poll_until 30 heavy_done "$h" >/dev/null || fail "no heavy sweep after the reload"
pkt read "$T/again.json" >/dev/null || fail "could not read the P_Key tables"
sets2=$(pkey_sets)
[ "$(pkt blocks "$T/before.json" "$T/again.json" | head -1)" = "0 0" ] ||
    fail "with the partition removed, the tables are not those of the start: $(pkt blocks "$T/before.json" "$T/again.json" | tail -n +2 | head -4)"
read -r nblocks nports <<<"$(pkt blocks "$T/after.json" "$T/again.json" | head -1)"
[ $((sets2 - sets1)) = "$nblocks" ] ||
    fail "removing the partition sent $((sets2 - sets1)) P_KeyTable Sets for $nblocks changed blocks"
log "reload without it: every table as at the start, $nblocks blocks written"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
exit 0
