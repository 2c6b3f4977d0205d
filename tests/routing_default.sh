#!/bin/bash
# The default routing is deadlock-free on every topology ibsmd routes: the
# chain `ibsmd -nv` prints as the default routing_engine is run (through
# routing_run, as the daemon runs it) on every fabric of tests/fabrics, on
# each kind contrib/gen_fabric.py writes (fat trees, dual-homed, ring,
# torus, random, degraded fat trees) and on in-memory degraded and random
# fabrics, each whole, less about 1 in 20 switch cables, and whole again
# with the previous tables; the channel dependency graph of every table set
# must be acyclic (tests/unit/lftdigest -c prints the verdicts).
# To show the check can fail, minhop (shortest paths, no guarantee) must be
# found with a credit loop on the three-level fat tree. Needs no simulator.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
: "${IBSMD:=$top/build/ibsmd}"
lftdigest=$(dirname "$IBSMD")/tests/unit/lftdigest
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable"
[ -x "$lftdigest" ] || fail "$lftdigest is not built (make check builds it)"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The default, as the daemon has it (no file, no command line).
chain=$(env -u LD_PRELOAD "$IBSMD" -nv -c /dev/null -P /dev/null 2>"$tmp/err" |
    sed -n 's/^routing_engine: \[\(.*\)\] *# default$/\1/p' | tr -d ' ')
[ -n "$chain" ] || fail "no default routing_engine in ibsmd -nv: $(cat "$tmp/err")"
echo "default chain: $chain"

gen() {
	local name=$1
	shift
	python3 "$top/contrib/gen_fabric.py" "$@" >"$tmp/$name.net" ||
	    fail "gen_fabric.py $* failed"
	nets+=("$tmp/$name.net")
}
nets=("$top"/tests/fabrics/*.net)
gen ft2_8 ft2 8
gen ft2_12 ft2 12
gen ft3_4 ft3 4
gen ft3_8 ft3 8
gen ft3_8_cut ft3 8 --remove-frac 0.1 --seed 3
gen dual_8 dual 8
gen ring_6 ring 6 2
gen ring_9 ring 9 1
gen torus_4x4 torus 4 4 1
gen torus_3x5 torus 3 5 2
gen random_20 random 20 4 2
gen random_40 random 40 6 1 --seed 7

"$lftdigest" -c "$chain" "${nets[@]}" ft3:12:0.15:5 ft2:16:0.1:2 \
    ft3:8:0.05:3 random:16:2:0:3 random:40:4:30:1 >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc = 0 ] || fail "the default chain $chain left a credit loop or no route: $(grep -v 'cdg=1' "$tmp/out" | head -5)"
n=$(grep -c ' cdg=1 ' "$tmp/out")
[ "$n" = $(( (${#nets[@]} + 5) * 3 )) ] || fail "$n verdicts, expected $(( (${#nets[@]} + 5) * 3 ))"

# The check itself: minhop's shortest paths on ft3 have a cycle.
"$lftdigest" -c minhop "$top/tests/fabrics/ft3_8.net" >"$tmp/minhop" 2>&1 &&
    fail "the CDG check finds no loop in minhop's ft3_8 tables: $(cat "$tmp/minhop")"
grep -q 'cdg=0' "$tmp/minhop" || fail "minhop on ft3_8: $(cat "$tmp/minhop")"
echo "PASS: $n runs of $chain deadlock-free; minhop on ft3_8 has a credit loop"
