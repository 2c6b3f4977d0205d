#!/bin/bash
# ibsmd programs the P_Keys OpenSM 3.3.23 programs.
#
# For each partitions file below, on ring6 (6 switches, 12 CAs: small, so
# that the test's fourteen SM runs stay quick; the files name ports of the
# first twelve HCAs, which ft2_8 has too): a fresh ibsim and `opensm -o -P
# FILE`, a fresh ibsim and `ibsmd --once -P FILE`; after each, smpquery
# reads every CA port's, switch port 0's and CA-facing switch port's P_Key
# table (pkeytables.py read). Per port, the set of entries with their
# membership bit must be the same under both SMs (indices may differ: each
# SM fills free indices in its own order). The ibsmd tables are also held
# against pkeytables.py's own reading of the file (pkeytables.py expect).
#
#   the two seed examples of issue 3 (tests/partitions/valid/seed_*.conf):
#       the default P_Key under another name with defmember=full, and
#       Default with IPoIB and its multicast groups;
#   data/partitions_disjoint.conf (tests/sim/partitions.sh's file);
#   data/partitions_members.conf: =limited, =full, =both, defmember, a
#       partition over two statements, switches as members;
#   data/partitions_both.conf with allow_both_pkeys (ibsmd
#       --allow-both-pkeys, OpenSM --allow_both_pkeys).
#
# Where ibsmd differs on purpose, the test checks the difference is exactly
# the documented one (partitions.conf(5), DIFFERENCES FROM OPENSM):
#   data/partitions_default_some.conf: a Default partition naming only
#       some ports. OpenSM makes every port a limited member of Default
#       before it reads the file; ibsmd takes the file as written (a port
#       the file leaves out of Default is not a member, with a warning).
#       So OpenSM's sets are ibsmd's plus 0x7fff on every port the file's
#       Default does not name (and on the switch ports facing them).
#   data/partitions_badguid.conf: one malformed GUID. ibsmd fails closed:
#       it refuses the file and does not start, so the fabric is left as
#       it was; OpenSM falls back to its default policy (every port a full
#       member of Default) and brings the subnet up with it.
# Not compared, since OpenSM cannot read them: GUID ranges (lo-hi) and
# members named by node description ("pattern"), ibsmd's additions.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v opensm >/dev/null || skip "opensm is not installed"
[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable (build ibsmd first)"

PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
DATA=$TOP_SRCDIR/tests/sim/data
SEEDS=$TOP_SRCDIR/tests/partitions/valid
NET=$FABRICS/ring6.net
pkt() { python3 "$PKT" --preload "$SIM_PRELOAD" "$@" 8>&-; }

# program WHO NAME FILE [SM args...]: a fresh ibsim, WHO (opensm or ibsmd)
# once with FILE, the tables read into $T/NAME.WHO.json.
program() {
	local who=$1 name=$2 file=$3 rc
	shift 3
	sim_start "$NET" >/dev/null
	rm -rf "$T/state" "$T/run"
	SM=$who sm_run 60 --once -P "$file" "$@"
	rc=$?
	[ $rc = 0 ] || fail "$who --once -P $(basename "$file") exited $rc: $(tail -3 "$T/sm_run.err")"
	if [ "$who" = opensm ]; then
		# opensm -o exits 0 whatever happened: the subnet must be up.
		grep -q 'SUBNET UP' "$T/opensm.run.log" || fail "opensm -o -P $(basename "$file"): no SUBNET UP"
		mv "$T/opensm.run.log" "$T/opensm.$name.log"
	fi
	pkt read "$T/$name.$who.json" >/dev/null || fail "$name: could not read the tables $who programmed"
	sim_stop >/dev/null
}

# same NAME FILE [allow-both]: OpenSM and ibsmd program the same sets.
same() {
	local name=$1 file=$2 osm=() ours=() exp=()
	if [ "${3:-}" = allow-both ]; then
		osm=(--allow_both_pkeys)
		ours=(--allow-both-pkeys)
		exp=(--allow-both)
	fi
	[ -r "$file" ] || fail "$file not found"
	program opensm "$name" "$file" "${osm[@]}"
	program ibsmd "$name" "$file" "${ours[@]}"
	pkt compare "$T/$name.opensm.json" "$T/$name.ibsmd.json" --names OpenSM ibsmd >/dev/null ||
	    fail "$name: ibsmd programs other P_Keys than OpenSM"
	pkt expect "$file" "$T/$name.ibsmd.json" "${exp[@]}" --sm-guid 0x100001 >/dev/null ||
	    fail "$name: ibsmd's tables differ from what the file implies"
	log "$name: the P_Keys OpenSM programs, port by port"
}

same seed_management "$SEEDS/seed_management.conf"
same seed_ipoib_default "$SEEDS/seed_ipoib_default.conf"
same disjoint "$DATA/partitions_disjoint.conf"
same members "$DATA/partitions_members.conf"
same both "$DATA/partitions_both.conf" allow-both

# ---- Default naming only some ports: OpenSM adds 0x7fff, ibsmd does not
f=$DATA/partitions_default_some.conf
program opensm default_some "$f"
program ibsmd default_some "$f"
python3 - "$T/default_some.opensm.json" "$T/default_some.ibsmd.json" <<'EOF' ||
import json, sys
osm, ours = (json.load(open(p))["ports"] for p in sys.argv[1:3])
# the ports the file's Default names: SELF (h0), h1, h2 and the switches
named = {"ca:0x%016x" % g for g in (0x100001, 0x100004, 0x100007)}
named |= {k for k, p in ours.items() if p["kind"] == "sw0"}
bad, plus = [], 0
for k in sorted(osm):
    a = {e for e in osm[k]["table"] if e & 0x7fff}
    b = {e for e in ours[k]["table"] if e & 0x7fff}
    who = ours[k]["peer"] if ours[k]["kind"] == "swp" else k
    want = b if who in named else b | {0x7fff}
    if who not in named:
        plus += 1
        if 0x7fff in b or 0xffff in b:
            bad.append("%s: ibsmd gave it the Default P_Key the file does not" % k)
    if a != want:
        bad.append("%s: OpenSM %s, ibsmd %s" % (k, sorted(map(hex, a)), sorted(map(hex, b))))
for m in bad:
    print(m, file=sys.stderr)

sys.exit(1 if bad or plus == 0 else 0)
EOF
    fail "default_some: the difference from OpenSM is not just the limited Default P_Key OpenSM adds"
pkt expect "$f" "$T/default_some.ibsmd.json" --sm-guid 0x100001 >/dev/null ||
    fail "default_some: ibsmd's tables differ from what the file implies"
log "default_some: OpenSM differs only by 0x7fff on the ports the file's Default leaves out (intended)"

# ---- a malformed GUID: ibsmd refuses to start, OpenSM falls back
f=$DATA/partitions_badguid.conf
sim_start "$NET" >/dev/null
rm -rf "$T/state" "$T/run"
pkt read --dr "$T/badguid.before.json" >/dev/null || fail "badguid: could not read the fresh fabric"
sm_run 30 --once -P "$f"
rc=$?
[ $rc != 0 ] && [ $rc -lt 124 ] || fail "ibsmd --once with a malformed GUID in the partitions file exited $rc"
grep -q "partitions_badguid.conf:5:30: " "$T/sm_run.err" ||
    fail "ibsmd does not name the malformed GUID as file:line:col: $(head -3 "$T/sm_run.err")"
pkt read --dr "$T/badguid.after.json" >/dev/null || fail "badguid: could not read the fabric"
[ "$(pkt blocks "$T/badguid.before.json" "$T/badguid.after.json" | head -1)" = "0 0" ] ||
    fail "ibsmd refused the file but P_Key tables changed"
diag smpquery -D portinfo 0 2>/dev/null | grep -q '^Lid:\.*0$' || fail "ibsmd refused the file but set LIDs"
sim_stop >/dev/null
program opensm badguid "$f"
python3 - "$T/badguid.opensm.json" <<'EOF' || fail "badguid: OpenSM did not fall back to its default policy"
import json, sys
d = json.load(open(sys.argv[1]))["ports"]
bad = [k for k, p in d.items() if {e for e in p["table"] if e & 0x7fff} != {0xffff}]
sys.exit("not only 0xffff: %s" % bad[:5] if bad else 0)
EOF
log "badguid: ibsmd refuses the file and touches nothing; OpenSM falls back to Default=0x7fff:ALL=full (intended difference)"
exit 0
