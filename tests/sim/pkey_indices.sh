#!/bin/bash
# P_Key table indices never move for a key that stays (issue 23 point 3):
# a ConnectX-3 hypervisor maps each VF's virtual P_Key index to a physical
# one, and running QPs hold indices, so a key moved to another index makes
# a VF send with another partition's key.
# On slowlink_ft2 with data/partitions_limited.conf (h0 and h1 named
# full in Default, as the SM runs on each in turn; h6, 0x100013:
# [0x7fff, 0x0020]): a reload adds zz=0x0005 with h6 full (h6 reads
# [0x7fff, 0x0020, 0x8005]); a second reload adds aa=0x0004 with h6 full
# ABOVE zz in the file ([..., 0x8005, 0x8004]: the running daemon keeps
# zz's index). Then, as smpquery pkeys reads h6's table:
#   1. ibsmd restarted: the same table, and no P_Key block written (the
#      fixture counts the Sets, UMADFIX_STATS);
#   2. another ibsmd, which never programmed this fabric, started on
#      another host with no state (as after a takeover or a move to a new
#      SM host): the same table, no P_Key block written;
#   3. a reload dropping zz: aa keeps its index, zz's slot is left empty.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "reload through ibsmctl is ibsmd's"
IBSMCTL=${IBSMCTL:-./ibsmctl}

# the issue's layout, h0 and h1 full in Default whichever runs the SM
# (SELF would move with it)
BASE=$T/base.conf
sed 's/SELF=full/SELF=full, 0x100001=full, 0x100004=full/' \
    "$TOP_SRCDIR/tests/sim/data/partitions_limited.conf" >"$BASE"
P=$T/partitions.conf
# h6's P_Key table as smpquery reads it: the entries up to the last used
pk6() {
	diag smpquery -D pkeys 0,1,3,4,1 2>/dev/null | awk '/^ *[0-9]+:/ {
	    for (i = 2; i <= NF; i++) k[n++] = $i } END { m = n
	    while (m > 0 && k[m - 1] == "0x0000") m--
	    for (i = 0; i < m; i++) printf "%s%s", i ? " " : "", k[i] }'
}
want_pk6() {
	local i=0
	until [ "$(pk6)" = "$1" ]; do
		i=$((i + 1))
		[ $i -lt 40 ] || fail "$2: h6's P_Key table reads '$(pk6)', want '$1'"
		sleep 0.25
	done
}
reload() { "$IBSMCTL" --runtime-dir "$T/run" reload >"$T/reload.out" 2>&1 8>&- ||
    fail "ibsmctl reload: $(cat "$T/reload.out")"; }

cp "$BASE" "$P"
sim_start "$FABRICS/slowlink_ft2.net"
sm_start -P "$P"
wait_subnet_up 60
want_pk6 "0x7fff 0x0020" "start"
printf 'zz=0x0005 : 0x100013=full ;\n' >>"$P"
reload
want_pk6 "0x7fff 0x0020 0x8005" "zz added"
{ cat "$BASE"; printf 'aa=0x0004 : 0x100013=full ;\nzz=0x0005 : 0x100013=full ;\n'; } >"$P"
reload
want_pk6 "0x7fff 0x0020 0x8005 0x8004" "aa added above zz"
log "reloads: h6 [0x7fff 0x0020 0x8005 0x8004] (aa, above zz in the file, took the free index)"
sm_stop

# ---- 1. a restart
UMADFIX_STATS=$T/sets.restart sm_start -P "$P"
wait_subnet_up 60
sleep 1
want_pk6 "0x7fff 0x0020 0x8005 0x8004" "after a restart"
sm_stop
n=$(sets_written "$T/sets.restart" P_KeyTable) || fail "no Set counts from the fixture"
[ "$n" = 0 ] || fail "the restart wrote $n P_Key blocks on an unchanged fabric"
log "1. restart: h6's keys at their indices, 0 P_Key blocks written"

# ---- 2. an SM that never programmed this fabric, on another host
rm -rf "$T/state2"
mkdir -p "$T/state2" "$T/run2"
SIM_HOST=h1 UMADFIX_STATS=$T/sets.other LD_PRELOAD=$SIM_PRELOAD "$IBSMD" \
    --state-dir "$T/state2" --runtime-dir "$T/run2" --log-file - -P "$P" \
    >>"$T/ibsmd2.out" 2>>"$T/ibsmd2.log" 8>&- &
pid2=$!
_track "$pid2"
i=0
until grep -qx 'sweep.subnet_up 1' "$T/state2/stats" 2>/dev/null; do
	i=$((i + 1))
	kill -0 "$pid2" 2>/dev/null || fail "the second ibsmd exited: $(tail -3 "$T/ibsmd2.log")"
	[ $i -lt 600 ] || fail "the second ibsmd: subnet not up"
	sleep 0.1
done
sleep 1
want_pk6 "0x7fff 0x0020 0x8005 0x8004" "under another SM"
_stop_pid "$pid2" 5
n=$(sets_written "$T/sets.other" P_KeyTable) || fail "no Set counts from the fixture"
[ "$n" = 0 ] || fail "the other SM wrote $n P_Key blocks on an unchanged fabric"
log "2. another SM from scratch: h6's keys at their indices, 0 P_Key blocks written"

# ---- 3. a key dropped: the others stay
sm_start -P "$P"
wait_subnet_up 60
{ cat "$BASE"; printf 'aa=0x0004 : 0x100013=full ;\n'; } >"$P"
reload
want_pk6 "0x7fff 0x0020 0x0000 0x8004" "zz dropped"
log "3. zz dropped: aa keeps index 3"
log "PASS"
