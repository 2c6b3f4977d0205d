#!/bin/bash
# LMC: every LID of every block is routed, and each engine sends a port's
# LIDs out of each other leaf through different uplinks at least as often
# as OpenSM does with the same LMC, with no busier link (issue 28).
#
# ft3_8_degraded (the three-level tree of 8-port switches with 5 % of its
# cables missing: leaves with 3 or 2 uplinks) with LMC 1 and 2; TOPO=ft2_8
# or ft3_8 and LMCS="0 1 2" measure others (check_ftree covers LMC 1, 2 and 3
# on complete trees in memory). One fresh ibsim per LMC: OpenSM 3.3.23
# (-R ftree -l LMC, --once) routes first, then ibsmd (--once, lmc LMC)
# with each engine, on the same LIDs (ibsmd reads the guid2lid OpenSM left
# in the state directory). After each, fabcheck reads the tables back:
# every LID of every block delivered from every switch (up/down; not
# always shortest on the damaged tree), and with --lmc-spread:
# spread_share, the share of CA ports whose LIDs leave every other leaf
# through pairwise different ports (as many as the leaf has); the busiest
# cable under all-to-all traffic to every LID (max_link_load_all) and to
# the base LIDs alone (max_link_load_base: most traffic uses those).
# Every engine of ibsmd must reach OpenSM's spread_share; with LMC 2 stay
# at or under its busiest link over every LID (ftree also with LMC 1, and
# under its base LIDs' figure: updn and minhop place base LIDs as with
# LMC 0, whose balance is not this test's subject; with LMC 1 the
# degraded tree has their busiest link over OpenSM's: printed). On
# the damaged tree no engine reaches 100 %: a destination leaf with 3
# uplinks reaches 3 aggregation switches, so its 4 LIDs come up through at
# most 3 core groups and leave a complete leaf by at most 3 ports.
#
# OpenSM's ftree does not route with LMC > 0: it declines and OpenSM falls
# back to minhop, whose LMC mode steers a port's LIDs to different remote
# systems; the test records which engine OpenSM used. Skips without opensm,
# and under SM=opensm (it runs both).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: this test runs both SMs itself"
command -v opensm >/dev/null || skip "opensm is not installed"
require_engine ftree updn minhop

: "${LMCS:=1 2}"
: "${TOPO:=ft3_8_degraded}"
shortest=--shortest
case $TOPO in *degraded*) shortest=--no-shortest ;; esac

# measure LABEL: fabcheck with --lmc-spread; fails on any violation; sets
# SHARE, LOAD (max_link_load_all) and BASE (max_link_load_base) and prints
# the figures.
measure() {
	local label=$1 out
	fabcheck --skip-master $shortest "${SIM_DOWN_ARGS[@]}" --updown --lmc-spread --json >"$T/fabcheck.json" ||
	    { cat "$T/fabcheck.json" >&2; fail "$label: fabcheck found violations (above)"; }
	out=$(python3 - "$T/fabcheck.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['lmc_spread']
print('%s %d %d' % (s['spread_share'], s['max_link_load_all'],
                   s['max_link_load_base']))
print('%d LIDs, %d (switch, LID) pairs; spread_share %s %% (%d of %d CA ports), '
      'max_link_load_all %d (%s), max_port_lids_all %d, max_link_load_base %d' % (
          d['lids'], d['pairs'], s['spread_share'], s['spread'], s['ca_ports'],
          s['max_link_load_all'], s['max_link_all'], s['max_port_lids_all'],
          s['max_link_load_base']))
EOF
)
	[ -n "$out" ] || fail "$label: cannot parse fabcheck's output"
	read -r SHARE LOAD BASE <<<"$(printf '%s\n' "$out" | sed -n 1p)"
	log "$label: $(printf '%s\n' "$out" | sed -n 2p)"
}

for lmc in $LMCS; do
	sim_start "$FABRICS/$TOPO.net"
	rm -rf "$T/state" "$T/run"
	SM=opensm sm_run 60 --once -R ftree -l "$lmc" ||
	    fail "lmc $lmc: opensm --once failed (status $?)"
	used=$(sed -n 's/.*osm_ucast_mgr_process: \([a-z_]*\) tables configured.*/\1/p' \
	    "$T/opensm.run.log" | tail -n 1)
	SM=opensm measure "$TOPO lmc $lmc OpenSM -R ftree (routed by ${used:-?})"
	osm_share=$SHARE
	osm_load=$LOAD
	osm_base=$BASE
	for engine in ftree updn minhop; do
		sm_run 60 --once -R "$engine" -O "lmc=$lmc" ||
		    fail "lmc $lmc: ibsmd --once -R $engine failed (status $?): $(tail -n 3 "$T/sm_run.err")"
		measure "$TOPO lmc $lmc ibsmd -R $engine"
		awk -v a="$SHARE" -v b="$osm_share" 'BEGIN { exit !(a >= b) }' ||
		    fail "lmc $lmc: ibsmd $engine spread_share $SHARE % < OpenSM's $osm_share %"
		# the issue's balance mark is LMC 2's (ftree meets it at
		# every LMC); with LMC 1 minhop and updn are printed only
		[ "$lmc" -lt 2 ] && [ "$engine" != ftree ] ||
		    [ "$LOAD" -le "$osm_load" ] ||
		    fail "lmc $lmc: ibsmd $engine busiest link $LOAD routes > OpenSM's $osm_load"
		# base LIDs: updn and minhop place them as with LMC 0, whose
		# balance is not this test's subject
		[ "$engine" != ftree ] || [ "$BASE" -le "$osm_base" ] ||
		    fail "lmc $lmc: ibsmd ftree busiest link for base LIDs $BASE routes > OpenSM's $osm_base"
	done
	sim_stop
done
log "passed"
