#!/bin/bash
# ibsmd --once with dump_files_dir writes OpenSM's dump files before it
# exits (the steps after an up as master, sm/upkeep, do not run with
# --once; the dumps must not go with them). ft2_8, a fresh fabric.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd's dump files"
sim_start "$FABRICS/ft2_8.net"
mkdir -p "$T/dumps"
LD_PRELOAD=$SIM_PRELOAD timeout 60 "$IBSMD" --once -c /dev/null -P /dev/null \
    --state-dir "$T/state" --runtime-dir "$T/run" \
    -O dump_files_dir="$T/dumps" >"$T/once.out" 2>&1 8>&- ||
    fail "ibsmd --once failed: $(tail -3 "$T/once.out")"
for f in opensm-subnet.lst guid2lid opensm-lfts.dump; do
	[ -s "$T/dumps/$f" ] || fail "ibsmd --once left no $f in dump_files_dir"
done
# the subnet list names every node ibnetdiscover finds
n=$(diag ibnetdiscover 2>/dev/null | grep -c '^\(Switch\|Ca\)')
m=$(wc -l <"$T/dumps/opensm-subnet.lst")
[ "$m" -ge "$n" ] || fail "opensm-subnet.lst: $m lines for $n nodes"
log "--once wrote $(ls "$T/dumps" | paste -sd' ') ($m subnet lines, $n nodes)"
