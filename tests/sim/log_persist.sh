#!/bin/bash
# A condition that persists is logged when it starts and when it ends, not at
# every retry (issue 13 point 7). A log requirement, so this test reads
# ibsmd's log; whether the fabric is right is asked of the diags.
#
# ft2_8, sweep interval 1 s (retries every second): the SM's own port (h0[1])
# is unlinked for 8 s. The log names the SM's port down once, heavy sweeps
# started are not logged at info level once per retry, and one line says
# the condition cleared; then fabcheck finds the fabric programmed.
#
# The same ibsmd logs to a file (its stderr is $SM_LOG):
#  - a partitions reload (SIGHUP) that adds a member and a flag to one
#    partition and adds another logs those changes and the P_Key blocks the
#    programming after it wrote; the tables read back with smpquery pkeys
#    (pkeytables.py) are what the new file says;
#  - a rejected reload (two errors) logs every error as a line of its own
#    with the timestamp and level: every line of the file has them;
#  - SIGUSR1 with a directory where the log file was: the failed reopen is
#    reported on stderr (syslog is checked by tests/unit/check_log).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: ibsmd's log lines"

LOGF=$T/ibsmd.file
PARTS=$T/partitions.conf
printf 'Default=0x7fff : ALL=full;\n' >"$PARTS"
sim_start "$FABRICS/ft2_8.net"
sm_start -c /dev/null -P "$PARTS" -R ftree --sweep-interval 1 --log-file "$LOGF"
wait_subnet_up 60
fabcheck --updown || fail "fabric wrong after the start"
down_re="the SM's own port \(GUID 0x[0-9a-f]+\) is down"
started() { grep -c 'info: sweep: heavy sweep [0-9]* started' "$LOGF"; }
s0=$(started)

sim_cmd 'Unlink "h0"[1]' >/dev/null
poll_until 10 grep -Eq "$down_re" "$LOGF" >/dev/null ||
    fail "no line says the SM's own port is down"
sleep 8
n=$(grep -Ec "$down_re" "$LOGF")
s1=$(started)
log "SM port down for 8 s: $n lines name it, $((s1 - s0)) heavy sweeps logged as started"
[ "$n" -eq 1 ] || fail "the SM's port down logged $n times in 8 s: $(grep -E "$down_re" "$LOGF" | tail -3)"
[ $((s1 - s0)) -le 2 ] ||
    fail "$((s1 - s0)) heavy sweeps logged as started while the port was down"

sim_cmd 'ReLink "h0"[1]' >/dev/null
poll_until 30 fabcheck --updown >/dev/null || fail "fabric wrong after the SM's port came back"
poll_until 10 grep -Eq "sweep: cleared after [0-9]+ heavy sweeps in [0-9.]+ s: .*$down_re" \
    "$LOGF" >/dev/null || fail "no line says the SM's port down has ended"
n=$(grep -Ec "$down_re" "$LOGF")
[ "$n" -eq 2 ] || fail "the SM's port down named $n times in all (want: start and end)"
log "logged once when it started and once when it ended"

# ---- a partitions reload says what changed
# port GUIDs of h4 and h5, as ibnetdiscover reads them
pguid() {
	diag ibnetdiscover 2>/dev/null | awk -v d="\"$1\"" '
	    /^Ca/ { ca = index($0, "# " d) > 0 }
	    ca && /^\[1\]\(/ { sub(/^\[1\]\(/, ""); sub(/\).*/, ""); print "0x" $0; exit }' |
	    while read -r g; do printf '0x%016x\n' "$((g))"; done
}
g4=$(pguid h4); g5=$(pguid h5); g6=$(pguid h6)
[ -n "$g4" ] && [ -n "$g5" ] && [ -n "$g6" ] || fail "no port GUIDs for h4, h5, h6 from ibnetdiscover"
log "h4 $g4, h5 $g5, h6 $g6"
printf 'Default=0x7fff : ALL=full;\nblue=0x0010 : %s=full;\n' "$g4" >"$PARTS.new"
mv "$PARTS.new" "$PARTS"
applied() { grep -c 'reload: applied by heavy sweep' "$LOGF"; }
applied_more() { [ "$(applied)" -gt "$1" ]; }
h0=$(applied)
kill -HUP "$SM_PID"
poll_until 30 grep -q 'reload: partitions: partition blue=0x0010 added (1 member entry)' "$LOGF" >/dev/null ||
    fail "no log line says partition blue was added: $(grep reload: "$LOGF" | tail -3)"
poll_until 30 applied_more "$h0" ||
    fail "no log line says what the programming after the reload wrote"
h0=$(applied)
printf 'Default=0x7fff : ALL=full;\nblue=0x0010, ipoib : %s=full, %s=full;\nred=0x0020 : %s=limited;\n' \
    "$g4" "$g5" "$g6" >"$PARTS.new"
mv "$PARTS.new" "$PARTS"
kill -HUP "$SM_PID"
poll_until 30 applied_more "$h0" ||
    fail "no log line says what the programming after the second reload wrote"
grep -q "reload: partitions: partition blue=0x0010: members +1 -0 (+$g5=full); flags: ipoib off -> on" "$LOGF" ||
    fail "no log line says blue gained $g5 and ipoib: $(grep 'reload: partitions' "$LOGF" | tail -3)"
grep -q 'reload: partitions: partition red=0x0020 added (1 member entry)' "$LOGF" ||
    fail "no log line says partition red was added"
nb=$(grep 'reload: applied by heavy sweep' "$LOGF" | tail -1 | sed -n 's/.*: \([0-9]*\) P_Key blocks written.*/\1/p')
# h5 and h6 each get a new P_Key, and so do the leaf ports facing them
[ "${nb:-0}" -ge 2 ] || fail "the reload's programming says it wrote ${nb:-no} P_Key blocks"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" read "$T/pk.json" 8>&- ||
    fail "cannot read the P_Key tables"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" expect "$PARTS" "$T/pk.json" 8>&- ||
    fail "the P_Key tables are not what the reloaded file says"
log "the partitions reload logged its changes and $nb P_Key blocks written"

# ---- a rejected reload: every error a log line with timestamp and level
printf 'Default=0x7fff : ALL=full;\nblue=0x0010 : 0xzz;\nred=0x10000 : ALL;\n' >"$PARTS"
kill -HUP "$SM_PID"
poll_until 10 grep -q 'reload: rejected, nothing changed: [2-9] errors' "$LOGF" >/dev/null ||
    fail "no line says the reload was rejected: $(tail -3 "$LOGF")"
ts='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} (error|warn|info|debug): '
bad=$(grep -Evc "$ts" "$LOGF")
[ "$bad" -eq 0 ] || fail "$bad log lines lack timestamp and level: $(grep -Ev "$ts" "$LOGF" | head -3)"
grep -Eq "${ts}reload: $PARTS:2:[0-9]+: " "$LOGF" ||
    fail "the error at line 2 is not logged as file:line:col"
log "the rejected reload logged each error with timestamp and level"

# ---- SIGUSR1 when the log file cannot be reopened
mv "$LOGF" "$LOGF.old"
mkdir "$LOGF"
kill -USR1 "$SM_PID"
poll_until 10 grep -q "cannot reopen the log file $LOGF.*: Is a directory" "$SM_LOG" >/dev/null ||
    fail "a failed reopen is not reported on stderr"
kill -0 "$SM_PID" || fail "ibsmd died of the failed reopen"
rmdir "$LOGF"
kill -USR1 "$SM_PID"
poll_until 10 grep -q "SIGUSR1: log file $LOGF reopened" "$LOGF" >/dev/null ||
    fail "the log file was not reopened once it could be"
log "a failed log reopen is reported on stderr"
