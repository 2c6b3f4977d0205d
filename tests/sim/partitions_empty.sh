#!/bin/bash
# An empty partitions file (no statement: empty, or comments only) is read
# as no file: every port a full member of the Default partition, as OpenSM
# gives it, not every CA a limited member of 0x7fff (which would cut every
# host off from every other). `ibsmd -n` says so with a warning. On ft2_8,
# with the SM started on a comments-only file, the P_Key tables smpquery
# reads (pkeytables.py read) must be what "Default=0x7fff : ALL=full;"
# implies: 0xffff at index 0 of every CA port, switch port 0 and switch
# port facing a CA.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
pkt() { python3 "$PKT" --preload "$SIM_PRELOAD" "$@" 8>&-; }

printf '# partitions: none yet\n\n   # (written by tests/sim/partitions_empty.sh)\n' >"$T/empty.conf"
printf 'Default=0x7fff : ALL=full;\n' >"$T/all_full.conf"

if [ "$SM" != opensm ]; then
	env -u LD_PRELOAD "$IBSMD" -n -c /dev/null -P "$T/empty.conf" \
	    >"$T/check.out" 2>"$T/check.err" </dev/null ||
	    fail "ibsmd -n refuses an empty partitions file: $(cat "$T/check.err")"
	grep -q "empty.conf: warning: no partition statement" "$T/check.err" ||
	    fail "ibsmd -n gives no warning for an empty partitions file: $(cat "$T/check.err")"
	: >"$T/zero.conf"
	env -u LD_PRELOAD "$IBSMD" -n -c /dev/null -P "$T/zero.conf" \
	    >/dev/null 2>"$T/zero.err" </dev/null &&
	    grep -q "zero.conf: warning:" "$T/zero.err" ||
	    fail "ibsmd -n on a 0-byte partitions file: $(cat "$T/zero.err")"
	log "ibsmd -n: $(head -1 "$T/check.err")"
fi

sim_start "$FABRICS/ft2_8.net"
sm_start -P "$T/empty.conf"
wait_subnet_up 60
G=$(diag sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\),.*/\1/p')
[ -n "$G" ] || fail "sminfo names no SM"
pkt read "$T/tables.json" || fail "could not read the P_Key tables"
pkt expect "$T/all_full.conf" "$T/tables.json" --sm-guid "$G" ||
    fail "an empty partitions file did not give every port full membership of the Default partition"
log "empty partitions file: every port reads 0xffff (full member of the Default partition)"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
