#!/bin/bash
# dfsssp, the VL-layered engine (issue 27 point 6), through the chain as
# the daemon runs it (routing_run_layers, tests/unit/lftdigest -v) on the
# fabrics contrib/gen_fabric.py writes for VL routing (2-D and 3-D tori,
# dragonflies, random) and on tests/fabrics, each whole, less about 1 in
# 20 switch cables, and whole again with the previous tables:
#   - with 8 VLs (what ibsim's ports advertise, VLCap VL0-7) dfsssp routes
#     every case itself, every pair minhop delivers delivered (dual.net has
#     pairs nobody can route), each VL's channel
#     dependencies acyclic, and the tori, the dragonfly and the ring need
#     more than one VL;
#   - on one VL, as ibsmd routes today (no SL2VL programmed yet), the
#     chain dfsssp,updn is deadlock-free everywhere, updn taking over
#     where dfsssp's routes need more VLs;
#   - with fewer VLs than a 3-D torus needs, dfsssp declines it.
# Needs no simulator.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
: "${IBSMD:=$top/build/ibsmd}"
lftdigest=$(dirname "$IBSMD")/tests/unit/lftdigest
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$lftdigest" ] || fail "$lftdigest is not built (make check builds it)"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

gen() {
	local name=$1
	shift
	python3 "$top/contrib/gen_fabric.py" "$@" >"$tmp/$name.net" ||
	    fail "gen_fabric.py $* failed"
	nets+=("$tmp/$name.net")
}
nets=()
gen torus_6x6 torus 6 6 2 --hca-ports 1
gen torus_8x4 torus 8 4 1
gen torus3_4 torus3 4 4 4 1 --hca-ports 1
gen torus3_3x3x2 torus3 3 3 2 2
gen dragonfly_9x4 dragonfly 9 4 2 --hca-ports 1
gen dragonfly_5x2 dragonfly 5 2 3
gen random_40 random 40 6 2 --seed 7
gen torus_6x6_cut torus 6 6 1 --remove-links 5 --seed 2
layered=("${nets[@]}")
nets+=("$top"/tests/fabrics/*.net)

"$lftdigest" -v 8 -c dfsssp "${nets[@]}" random:60:2:40:3 >"$tmp/vl8" 2>&1
rc=$?
cat "$tmp/vl8"
[ $rc = 0 ] || fail "dfsssp on 8 VLs: a credit loop or no route: $(grep -v 'cdg=1' "$tmp/vl8" | head -5)"
n=$(grep -c ' engine=dfsssp cdg=1 unreach=[0-9]* vls=' "$tmp/vl8")
[ "$n" = $(( (${#nets[@]} + 1) * 3 )) ] || fail "$n dfsssp verdicts, expected $(( (${#nets[@]} + 1) * 3 ))"
"$lftdigest" -c minhop "${nets[@]}" random:60:2:40:3 >"$tmp/minhop" 2>&1
sed -n 's/^\([^ ]*\) chain=[a-z]* \([a-z]*\) .* unreach=\([0-9]*\).*/\1 \2 \3/p' "$tmp/minhop" >"$tmp/u.minhop"
sed -n 's/^\([^ ]*\) chain=[a-z]* \([a-z]*\) .* unreach=\([0-9]*\).*/\1 \2 \3/p' "$tmp/vl8" >"$tmp/u.dfsssp"
[ -s "$tmp/u.minhop" ] && cmp -s "$tmp/u.minhop" "$tmp/u.dfsssp" ||
    fail "dfsssp leaves pairs unreached that minhop reaches: $(diff "$tmp/u.minhop" "$tmp/u.dfsssp" | head -5)"
for net in "${layered[@]}" "$top/tests/fabrics/ring6.net"; do
	grep -q "^$net chain=dfsssp base .* vls=[2-8]\$" "$tmp/vl8" ||
	    fail "$(basename "$net"): one VL was enough, or more than 8: $(grep "^$net" "$tmp/vl8" | head -1)"
done

"$lftdigest" -c dfsssp,updn "${nets[@]}" >"$tmp/vl1" 2>&1 ||
    fail "dfsssp,updn on one VL: $(grep -v 'cdg=1' "$tmp/vl1" | head -5)"
grep -q "torus3_4.net chain=dfsssp,updn base engine=updn cdg=1" "$tmp/vl1" ||
    fail "on one VL dfsssp routed the 3-D torus: $(grep torus3_4 "$tmp/vl1" | head -1)"
n=$(grep -c ' cdg=1 ' "$tmp/vl1")
[ "$n" = $(( ${#nets[@]} * 3 )) ] || fail "$n verdicts on one VL, expected $(( ${#nets[@]} * 3 ))"

# too few VLs for the 3-D torus: dfsssp declines (updn routes)
vls=$(sed -n "s|^$tmp/torus3_4.net chain=dfsssp base .* vls=\([0-9]*\)\$|\1|p" "$tmp/vl8")
"$lftdigest" -v $((vls - 1)) -c dfsssp,updn "$tmp/torus3_4.net" >"$tmp/few" 2>&1 ||
    fail "dfsssp,updn on $((vls - 1)) VLs: $(cat "$tmp/few")"
grep -q "base engine=updn cdg=1 unreach=0 vls=1" "$tmp/few" ||
    fail "dfsssp routed the 3-D torus on $((vls - 1)) VLs, it needed $vls: $(cat "$tmp/few")"
echo "PASS: dfsssp deadlock-free per VL on ${#nets[@]} fabrics (+1 in memory); on one VL dfsssp,updn falls back where it must"
