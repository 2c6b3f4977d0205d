#!/bin/bash
# A FIFO where the partitions file or the configuration file should be
# never stalls the daemon (it used to hang the whole loop on SIGHUP until a
# writer appeared). On ft2_8, ibsmd runs with -c CONF naming a partitions
# file with a second partition. Then:
#   1. the partitions file becomes a FIFO with no writer: `ibsmctl reload`
#      answers within 5 s, exits 1 and names the file and the reason; SIGHUP
#      does the same silently; `ibsmctl status` still answers at once, and
#      the P_Key tables smpquery reads (pkeytables.py) still hold the last
#      good policy;
#   2. the configuration file itself becomes a FIFO: the same.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmctl reload is ibsmd's"

PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
pkt() { python3 "$PKT" --preload "$SIM_PRELOAD" "$@" 8>&-; }
ctl() { timeout -k 1 5 "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }
CONF=$T/ibsmd.conf
PART=$T/partitions.conf
printf 'Default=0x7fff : ALL=full;\nblue=0x0012 : ALL=full;\n' >"$PART"
printf 'partitions_file: %s\n' "$PART" >"$CONF"
cp "$PART" "$T/good.conf"

sim_start "$FABRICS/ft2_8.net"
sm_start -c "$CONF"
wait_subnet_up 60
G=$(diag sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\),.*/\1/p')
pkt read "$T/before.json" || fail "could not read the P_Key tables"
pkt expect "$T/good.conf" "$T/before.json" --sm-guid "$G" || fail "P_Key tables differ from the file at start"

# still_good WHAT: the daemon answers and the fabric keeps the good policy
still_good() {
	ctl status >"$T/status" 2>&1 || fail "$1: ibsmctl status does not answer: $(cat "$T/status")"
	kill -0 "$SM_PID" 2>/dev/null || fail "$1: ibsmd died"
	pkt read "$T/after.json" || fail "$1: could not read the P_Key tables"
	pkt expect "$T/good.conf" "$T/after.json" --sm-guid "$G" ||
	    fail "$1: the P_Key tables no longer hold the last good policy"
}
# refuses FILE: ibsmctl reload refuses with "FILE: not a regular file (a FIFO)"
refuses() {
	local rc
	ctl reload >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 124 ] || [ $rc = 137 ] && fail "ibsmctl reload hangs with $1 a FIFO"
	[ $rc = 1 ] || fail "ibsmctl reload with $1 a FIFO exited $rc, not 1: $(cat "$T/out" "$T/err")"
	grep -qF "$1: not a regular file (a FIFO)" "$T/err" "$T/out" ||
	    fail "ibsmctl reload does not say $1 is a FIFO: $(cat "$T/out" "$T/err")"
}

# ---- 1. the partitions file
rm -f "$PART" && mkfifo "$PART" || fail "mkfifo"
refuses "$PART"
kill -HUP "$SM_PID"
sleep 1
still_good "partitions file a FIFO"
log "partitions file a FIFO: reload refused with the reason, SIGHUP survived, tables kept"

# ---- 2. the configuration file
rm -f "$PART" && cp "$T/good.conf" "$PART"
rm -f "$CONF" && mkfifo "$CONF" || fail "mkfifo"
refuses "$CONF"
kill -HUP "$SM_PID"
sleep 1
still_good "configuration file a FIFO"
log "configuration file a FIFO: reload refused with the reason, SIGHUP survived, tables kept"
rm -f "$CONF"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
