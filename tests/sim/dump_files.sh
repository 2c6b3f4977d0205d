#!/bin/bash
# OpenSM's files for the tools that read them (dump_files_dir), and node
# names from a node_name_map in them, in ibsmctl and in the log.
#
# ft2_8 and a node name map naming three nodes. OpenSM 3.3.23 runs first
# (opensm -o, the map as its node_name_map_name, log_flags 0x43 so that it
# writes its routing dumps too), on a fresh fabric; then ibsmd, on a fresh
# fabric again, with OpenSM's guid2lid (the same LIDs), the same map and
# dump_files_dir. After normalisation (lines sorted):
#   - opensm-subnet.lst: ibsmd's is OpenSM's, line for line;
#   - guid2lid: ibsmd's dump holds OpenSM's GUIDs and LIDs;
#   - opensm-lfts.dump: the same switches, headers and LIDs, each LID with
#     OpenSM's annotation (type, port GUID, name); the ports are those
#     dump_fts reads from the switches (the engines may balance apart);
#   - opensm.mcfdbs: after three joins and a heavy sweep, exactly the
#     entries ibroute -M reads on every switch (mcastcheck.py --mcfdbs);
#   - each file is replaced, not rewritten in place (a reader holding the
#     old one keeps it whole: its inode changes);
# and the map's names: in ibsmctl nodes, ports and route (by name, and
# as a glob), and in the log line of a link lost.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd's dump files"
command -v opensm >/dev/null || skip "opensm not installed"
: "${MCJOIN:=./tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable"
MCHECK=$TOP_SRCDIR/tests/sim/mcastcheck.py
NET=$FABRICS/ft2_8.net
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

cat >"$T/names" <<'EOF'
# a node name map, as OpenSM and ibnetdiscover read it
0x0000000000200000 "leaf zero"
0x0000000000100000 "head node"
0x0000000000100003 compute-1
EOF

# ---- OpenSM
mkdir -p "$T/osm" "$T/osmdump"
printf 'node_name_map_name %s\nlog_flags 0x43\n' "$T/names" >"$T/osm.conf"
sim_start "$NET"
OSM_CACHE_DIR=$T/osm OSM_TMP_DIR=$T/osm LD_PRELOAD=$SIM_PRELOAD \
    timeout -k 2 60 opensm -o -F "$T/osm.conf" -f "$T/osm.log" \
    --dump_files_dir "$T/osmdump" >"$T/osm.out" 2>&1 8>&- </dev/null ||
    fail "opensm -o failed: $(tail -3 "$T/osm.out")"
grep -q 'SUBNET UP' "$T/osm.log" || fail "opensm: no SUBNET UP"
for f in opensm-subnet.lst opensm-lfts.dump; do
	[ -s "$T/osmdump/$f" ] || fail "OpenSM wrote no $f"
done
[ -s "$T/osm/guid2lid" ] || fail "OpenSM wrote no guid2lid"
sim_stop

# ---- ibsmd, with OpenSM's LIDs
mkdir -p "$T/state" "$T/dump"
cp "$T/osm/guid2lid" "$T/state/guid2lid"
sim_start "$NET"
sm_start -c /dev/null -P /dev/null -R minhop -O dump_files_dir="$T/dump" \
    -O node_name_map="$T/names"
wait_subnet_up 60
for f in opensm-subnet.lst opensm-lfts.dump opensm.mcfdbs guid2lid; do
	[ -f "$T/dump/$f" ] || fail "ibsmd wrote no $f"
done

sort "$T/osmdump/opensm-subnet.lst" >"$T/osm.lst"
sort "$T/dump/opensm-subnet.lst" >"$T/our.lst"
diff -u "$T/osm.lst" "$T/our.lst" >&2 || fail "opensm-subnet.lst differs from OpenSM's"
grep -q '{leaf zero}' "$T/our.lst" && grep -q '{compute-1}' "$T/our.lst" ||
    fail "opensm-subnet.lst does not name nodes by the map"
log "opensm-subnet.lst: OpenSM's, line for line ($(wc -l <"$T/our.lst") links, names from the map)"

# GUID and base LID as numbers (Debian's awk, mawk, has no strtonum)
g2l() {
	python3 -c 'import sys
for l in open(sys.argv[1]):
    w = l.split()
    if w and w[0].startswith("0x"):
        print(int(w[0], 16), int(w[1], 0))' "$1" | sort
}
[ -n "$(g2l "$T/osm/guid2lid")" ] || fail "OpenSM's guid2lid has no entry"
diff -u <(g2l "$T/osm/guid2lid") <(g2l "$T/dump/guid2lid") >&2 ||
    fail "guid2lid differs from OpenSM's"
log "guid2lid: OpenSM's ($(wc -l <"$T/dump/guid2lid") ports)"

# the LFT dump: OpenSM's headers and annotations; the fabric's ports
lftnorm() { sed -e 's/^\(0x[0-9a-f]\{4\}\) [0-9]\{3\} #/\1 #/' "$1" | sort; }
diff -u <(lftnorm "$T/osmdump/opensm-lfts.dump") <(lftnorm "$T/dump/opensm-lfts.dump") >&2 ||
    fail "opensm-lfts.dump: headers or annotations differ from OpenSM's"
diag dump_fts >"$T/dump_fts.out" 2>/dev/null || fail "dump_fts failed"
python3 - "$T/dump/opensm-lfts.dump" "$T/dump_fts.out" <<'EOF' || fail "opensm-lfts.dump and the switches disagree"
import re, sys
def table(path, entry):
    tab, sw = {}, None
    for line in open(path):
        m = re.search(r' guid (0x[0-9a-f]+) ', line)
        if line.startswith('Unicast lids') and m:
            sw = int(m.group(1), 16)
            continue
        m = re.match(entry, line)
        if m and sw is not None:
            tab[(sw, int(m.group(1), 16))] = int(m.group(2))
    return tab
ours = table(sys.argv[1], r'^(0x[0-9a-f]{4}) (\d{3}) # ')
fab = table(sys.argv[2], r'^(0x[0-9a-f]+) (\d+) :')
if not ours or ours != fab:
    diff = [k for k in set(ours) | set(fab) if ours.get(k) != fab.get(k)]
    print('%d entries differ, e.g. %s' % (len(diff), sorted(diff)[:5]))
    sys.exit(1)
print('%d entries agree' % len(ours))
EOF
log "opensm-lfts.dump: OpenSM's headers and annotations, the ports dump_fts reads"

# ---- multicast: three joins, a heavy sweep, the dump against ibroute -M
BC=ff12:401b:ffff::ffff:ffff
for m in "h0 1" "h5 1" "h9 4"; do
	set -- $m
	printf 'join %s %s\n' "$BC" "$2" | SIM_HOST=$1 LD_PRELOAD=$SIM_PRELOAD \
	    timeout 30 "$MCJOIN" 8>&- 2>/dev/null | grep -q 'status=0x0000' ||
	    fail "$1: join refused"
done
ino0=$(stat -c %i "$T/dump/opensm.mcfdbs")
h=$(stat_get sweep.heavy_sweeps 0)
ctl sweep --heavy >/dev/null || fail "ibsmctl sweep --heavy failed"
poll_until 30 sh -c "[ \$(awk '\$1 == \"sweep.heavy_sweeps\" { print \$2 }' '$T/state/stats') -gt $h ]" >/dev/null ||
    fail "no heavy sweep"
sleep 1
diag python3 "$MCHECK" --mcfdbs "$T/dump/opensm.mcfdbs" || fail "opensm.mcfdbs and ibroute -M disagree"
[ "$(stat -c %i "$T/dump/opensm.mcfdbs")" != "$ino0" ] || fail "opensm.mcfdbs rewritten in place, not replaced"
log "opensm.mcfdbs: the entries ibroute -M reads, replaced atomically"

# ---- names in ibsmctl and the log
ctl nodes | grep -q ' leaf zero$' || fail "ibsmctl nodes does not name leaf zero"
ctl --json nodes | grep -q '"name":"head node"' || fail "ibsmctl nodes --json has no name"
ctl ports "leaf zero" >"$T/ports.txt" || fail "ibsmctl ports \"leaf zero\" failed"
head -1 "$T/ports.txt" | grep -q '^switch 0x0000000000200000 "leaf zero"' || fail "ports: $(head -1 "$T/ports.txt")"
ctl route "head node" compute-1 >"$T/route.txt" || fail "ibsmctl route by names failed"
grep -q 'leaf zero' "$T/route.txt" || fail "route does not name leaf zero: $(cat "$T/route.txt")"
sim_cmd 'Unlink "leaf0"[5]' >/dev/null
poll_until 30 grep -q 'lost link: switch 0x0000000000200000 "leaf zero" port 5' "$T/ibsmd.log" >/dev/null ||
    fail "the log does not name leaf zero: $(grep 'lost' "$T/ibsmd.log" | head -3)"
log "names from the map in ibsmctl nodes, ports, route and the log"
