#!/bin/bash
# Logs that do not repeat themselves (the log is what is tested here: what
# ibsmd says, and how often):
#   - a partition member whose port is not in the fabric (h5 port 1, its
#     cable down: dual.net) is named once, however many heavy sweeps
#     follow, and once more when the port comes back;
#   - at start the partitions file accepted is named with its partition
#     count;
#   - a partitions file's warnings carry one tag (the log level), not a
#     second "warning:" ("partitions: /dev/null: warning: ...");
#   - -f syslog without a syslog socket says where the lines go instead,
#     and they go there;
#   - -nv prints a member written twice once, where the last one counts.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd's log"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
heavy() { stat_get sweep.heavy_sweeps 0; }

sim_start "$FABRICS/dual.net"
# h5 is the sixth two-port HCA: node GUID 0x10000f, ports 0x100010 (its
# cable down) and 0x100011 (checked below against ibnetdiscover)
cat >"$T/parts.conf" <<'EOF'
Default=0x7fff : ALL=full;
storage=0x0010 : 0x0000000000100010=full, 0x0000000000100004=full;
EOF
sm_start -c /dev/null -P "$T/parts.conf" -s 1
wait_subnet_up 60
diag ibnetdiscover -p 2>/dev/null | grep -q ' 0x0000000000100011 .*( .*h5' ||
    fail "h5 port 2 is not 0x100011: the GUIDs assumed are wrong"
for i in 1 2 3; do
	h=$(heavy)
	ctl sweep --heavy >/dev/null || fail "ibsmctl sweep --heavy failed"
	poll_until 20 sh -c "[ \$(awk '\$1 == \"sweep.heavy_sweeps\" { print \$2 }' '$T/state/stats') -gt $h ]" >/dev/null ||
	    fail "no heavy sweep"
done
n=$(grep -c 'port GUID 0x0000000000100010 is not in the fabric' "$T/ibsmd.log")
[ "$n" = 1 ] || fail "the absent member was named $n times in $(heavy) heavy sweeps"
log "absent member named once in $(heavy) heavy sweeps"
sim_cmd 'ReLink "h5"[1]' >/dev/null
poll_until 30 grep -q 'partitions: no longer so: .*port GUID 0x0000000000100010 is not in the fabric' "$T/ibsmd.log" >/dev/null ||
    fail "its return was not said"
sleep 3         # three more sweeps: said once
n=$(grep -c 'no longer so: .*port GUID 0x0000000000100010' "$T/ibsmd.log")
[ "$n" = 1 ] || fail "its return was said $n times"
log "and once when it came back"

grep -q "partitions: $T/parts.conf accepted: 2 partitions\$" "$T/ibsmd.log" ||
    fail "the partitions file accepted is not named with its count: $(grep 'partitions:' "$T/ibsmd.log" | head -3)"
log "the partitions file named at start with its 2 partitions"
sm_stop

# ---- one tag: an empty partitions file's warning
sm_start -c /dev/null -P /dev/null
wait_subnet_up 60
grep -q 'partitions: /dev/null: no partition statement' "$T/ibsmd.log" ||
    fail "no warning for an empty partitions file"
grep 'partitions:' "$T/ibsmd.log" | grep -q 'warning:' && fail "a double tag: $(grep 'warning:' "$T/ibsmd.log")"
log "partitions warnings with one tag"
sm_stop

# ---- -f syslog without a syslog socket
run_syslog() {
	LD_PRELOAD=$SIM_PRELOAD timeout 60 "$IBSMD" --once -c /dev/null -P /dev/null \
	    --state-dir "$T/state" --runtime-dir "$T/run" -f syslog >/dev/null 2>"$T/syslog.err" 8>&-
}
if [ ! -e /dev/log ]; then
	run_syslog || fail "ibsmd --once -f syslog failed: $(tail -3 "$T/syslog.err")"
elif [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	# hide the socket in a mount namespace of our own
	export -f run_syslog
	export IBSMD SIM_PRELOAD T
	unshare -m bash -c 'mount --bind /dev/null /dev/log && run_syslog' ||
	    fail "ibsmd --once -f syslog failed: $(tail -3 "$T/syslog.err")"
else
	skip "cannot hide /dev/log to test -f syslog without it"
fi
grep -q '^ibsmd: syslog: /dev/log: .*logging to standard error instead$' "$T/syslog.err" ||
    fail "-f syslog without /dev/log says nothing: $(head -3 "$T/syslog.err")"
grep -q 'SUBNET UP' "$T/syslog.err" || fail "-f syslog without /dev/log: the log lines went nowhere"
log "-f syslog without /dev/log: said, and logged to standard error"

# ---- -nv: a member written twice, once
printf 'Default=0x7fff : ALL=full;\nx=0x0020 : 0x0000000000100004=full, 0x0000000000100007, 0x0000000000100004=limited;\n' >"$T/twice.conf"
env -u LD_PRELOAD "$IBSMD" -nv -c /dev/null -P "$T/twice.conf" >"$T/nv.out" 2>/dev/null ||
    fail "ibsmd -nv failed"
[ "$(grep -c '0x0000000000100004=' "$T/nv.out")" = 1 ] && grep -q '0x0000000000100004=limited' "$T/nv.out" ||
    fail "-nv: $(sed -n '/^x=/,/;/p' "$T/nv.out")"
log "-nv: a member written twice printed once, as it counts"
