#!/bin/bash
# Every routing engine on every kind of fabric, checked from the outside:
# for each topology (two-level fat tree of 16-port switches, three-level fat
# tree of 8-port switches, the same with 5 % of its inter-switch links
# removed, a ring of 6) one ibsim runs, and for each engine (ftree, updn,
# minhop) ibsmd is started with that engine, brings the subnet up and is
# stopped again. fabcheck then reads the LFTs with infiniband-diags and
# requires that every LID is delivered from every switch; on the complete
# fat trees (and, for minhop, everywhere) along shortest paths; for ftree
# and updn, that the channel dependency graph has no cycle (--cdg). The
# engine that routed must be the one asked for (stats: routing_engine).
#
# Decisions, and why:
# - ftree is run as the chain `-R ftree,updn` on the ring and on the
#   degraded tree. A ring is no fat tree, so ftree must decline there and
#   updn must route. On the degraded tree ftree may route (if it handles
#   missing links) or decline; either engine is accepted, and the tables
#   must be deadlock-free either way.
# - ftree and updn are checked with fabcheck --updown. An up/down route
#   never turns from down to up, so some switch-to-switch pairs have no
#   legal path: in a k-ary three-level fat tree no aggregation or core
#   switch reaches an aggregation switch of another plane, and in a
#   degraded tree an upper switch may reach no CA below a lost link. An
#   engine leaves those unset (OpenSM does) or sends them on a detour that
#   keeps the graph acyclic (ibsmd's ftree, through a "hub" leaf), which is
#   not a shortest path. So --updown accepts, for a switch's LID, an unset
#   entry, and from a switch without CAs, a detour; and from a switch
#   without CAs an unset entry for any LID. Every route between CAs, and
#   every route a switch forwards into another switch, must still arrive
#   (and be shortest where shortest paths are required). ROUTE_STRICT=1
#   drops the exemptions (every LID from every switch, as for minhop).
# - minhop routes shortest paths, which on a ring always form a dependency
#   cycle (every switch sends to the one two hops clockwise through the one
#   between): on ring6 the test requires fabcheck --cdg to find that cycle,
#   so the deadlock check is shown able to fail.
# - Where ibsmd reports its own verdict (stats routing_deadlock_free 0 or
#   1), it must agree with fabcheck's; its routing_unreachable must equal
#   the (switch, LID) pairs fabcheck found unrouted (the accepted gaps).
#
# An engine ibsmd does not know fails the test. ENGINES="updn minhop"
# restricts the run (e.g. while an engine is being written).
# SM=opensm runs OpenSM 3.3.23 instead (development mode; its updn needs a
# root on the ring, given with -a; its ftree declines the degraded tree,
# where its updn then routes).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

: "${ENGINES:=ftree updn minhop}"
: "${ROUTE_STRICT:=0}"
TOPOLOGIES="ft2_16 ft3_8 ft3_8_degraded ring6"

# ibsmd checks -R before it looks for its port (exit 2, "unknown routing
# engine"), but answers -h and -V before either: so probe with a port GUID
# that no fabric has, and no simulator: a known engine gets as far as "cannot
# find the port" (exit 1).

# The engine that routed the last sweep.
engine_used() {
	if [ "$SM" = opensm ]; then
		sed -n 's/.*osm_ucast_mgr_process: \([a-z_]*\) tables configured.*/\1/p' \
		    "$SM_LOG" | tail -n 1
	else
		stat_get routing.engine
	fi
}

# check_fabric LABEL FABCHECK-ARGS...: fabcheck --cdg --json; fails the
# test on any violation but a dependency cycle; sets CDG_ACYCLIC (1 or 0),
# CDG_TEXT (the cycle) and GAPS (switch-LID pairs left unrouted, accepted
# by --updown) and prints a summary line.
check_fabric() {
	local label=$1 rc out nbad
	shift
	fabcheck --cdg --json "$@" >"$T/fabcheck.json"
	rc=$?
	[ $rc -le 1 ] || fail "$label: fabcheck could not read the fabric (exit $rc)"
	out=$(python3 - "$T/fabcheck.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [v for v in d['violations'] if not v.startswith('cdg: ')]
cyc = [v for v in d['violations'] if v.startswith('cdg: ')]
c = d['cdg']
print('%d %d %d' % (len(bad), 1 if c['acyclic'] else 0, d.get('updown_gaps', 0)))
print('%d LIDs, %d pairs, max %d hops, %d channels, %d dependencies%s' % (
    d['lids'], d['pairs'], d['max_hops'], c['channels'], c['dependencies'],
    ', %d up/down gaps' % d['updown_gaps'] if d.get('updown_gaps') else ''))
for v in bad + cyc:
    print(v)
EOF
)
	[ -n "$out" ] || fail "$label: cannot parse fabcheck's output"
	read -r nbad CDG_ACYCLIC GAPS <<<"$(printf '%s\n' "$out" | sed -n 1p)"
	CDG_TEXT=$(printf '%s\n' "$out" | grep '^cdg: ' || true)
	if [ "$nbad" -ne 0 ]; then
		printf '%s\n' "$out" | sed -n '3,$p' | grep -v '^cdg: ' >&2
		fail "$label: $nbad routing violation(s) (above)"
	fi
	log "$label: $(printf '%s\n' "$out" | sed -n 2p), CDG $([ "$CDG_ACYCLIC" = 1 ] && echo acyclic || echo CYCLIC)"
}

# shellcheck disable=SC2086
require_engine $ENGINES updn    # ftree runs as -R ftree,updn on some fabrics

runs=0
for topo in $TOPOLOGIES; do
	sim_start "$FABRICS/$topo.net"
	roots=()
	if [ "$SM" = opensm ] && [ "$topo" = ring6 ]; then
		# OpenSM finds no root in a ring by itself: name sw0.
		diag smpquery -D nodeinfo 0,1 2>/dev/null | sed -n 's/^Guid:\.*//p' >"$T/roots"
		roots=(-a "$T/roots")
	fi
	for engine in $ENGINES; do
		chain=$engine
		expect=$engine
		shortest=--shortest
		gaps=()
		case $engine,$topo in
		ftree,ring6) chain=ftree,updn; expect=updn ;;
		ftree,ft3_8_degraded) chain=ftree,updn; expect='ftree|updn' ;;
		esac
		case $engine,$topo in
		ftree,ring6 | ftree,ft3_8_degraded | updn,ring6 | updn,ft3_8_degraded)
			shortest=--no-shortest ;;
		esac
		[ "$engine" != minhop ] && [ "$ROUTE_STRICT" != 1 ] && gaps=(--updown)
		label="$topo -R $chain"

		sm_start -R "$chain" "${roots[@]}"
		wait_subnet_up 60
		used=$(engine_used)
		case "|$expect|" in
		*"|$used|"*) ;;
		*) fail "$label: routed by '$used', expected $expect" ;;
		esac
		check_fabric "$label (routed by $used)" $shortest "${gaps[@]}"
		if [ "$engine" != minhop ]; then
			[ "$CDG_ACYCLIC" = 1 ] ||
				fail "$label: $used tables are not deadlock-free: $CDG_TEXT"
		elif [ "$topo" = ring6 ]; then
			[ "$CDG_ACYCLIC" = 0 ] ||
				fail "$label: fabcheck --cdg found no dependency cycle in shortest-path routes on a ring (the check cannot fail?)"
			log "$label: the expected cycle: ${CDG_TEXT#cdg: }"
		fi
		if [ "$SM" != opensm ]; then
			# ibsmd checks every table it makes: its verdict must be
			# there and agree with fabcheck's own.
			dlf=$(stat_get routing.deadlock_free -1)
			[ "$dlf" = "$CDG_ACYCLIC" ] ||
				fail "$label: ibsmd says routing_deadlock_free $dlf, fabcheck --cdg says $CDG_ACYCLIC"
			# With every route checked, what ibsmd counts as unreachable
			# is exactly what fabcheck found unrouted.
			unr=$(stat_get routing.unreachable)
			[ "$unr" = "$GAPS" ] ||
				fail "$label: ibsmd says routing_unreachable $unr, fabcheck found $GAPS (switch, LID) pairs unrouted"
			log "$label: ibsmd: routing_seconds $(stat_get routing.seconds -)," \
			    "deadlock_free $dlf, unreachable $(stat_get routing.unreachable -)," \
			    "lft_writes $(stat_get sweep.last_program.lft_writes -)"
		fi
		sm_stop || [ "$SM" = opensm ] || fail "$label: ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
		runs=$((runs + 1))
	done
	sim_stop
done
log "$runs runs passed"
