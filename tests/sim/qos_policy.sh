#!/bin/bash
# The QoS policy file (issue 27 point 2): PathRecord SLs and limits from
# qos_policy_file, compared with OpenSM's on the same fabric and LIDs, the
# IPoIB broadcast group's SL, and a reload that keeps the last good policy.
#
# slowlink.net (h0 .. h4). partitions.conf: Default (sl=2) and blue
# (0x0010, sl=4: everyone). The policy (OpenSM's grammar): a port group
# "storage" by port-name (h2/P1); levels DEFAULT (SL 1),
# stor (SL 5, mtu-limit 2, packet-life 14), cls (SL 9); match rules
# qos-class 5 -> cls, destination storage -> stor; qos-ulps sdp : 6,
# ipoib : 3. OpenSM (-Q -Y POLICY -P PARTITIONS) brings the fabric up and
# answers first; its guid2lid gives ibsmd (qos: true, the same files) the
# same LIDs on a fresh ibsim. The same saquery -p questions go to both and
# the answers must be equal, record for record (every field saquery
# prints): h0->h2 (stor), h2->h0 (DEFAULT), h0->h1 with P_Key 0xffff
# (ipoib: 3) and 0x8010 (DEFAULT: its SL wins over blue's sl=4, as every
# level's over a partition's), with QoSClass 5 (cls),
# with the SDP ServiceID (6), h0->h2 asking SL 5 (given) and SL 4 (no
# path: the level says 5). The same questions from limited-only hosts (h3
# and h4 are limited members of both partitions), by GID, 12 of them:
# equal to OpenSM's too.
# The IPoIB broadcast group (mcjoin, from h1) has SL 3 under ibsmd: the policy's
# level for its P_Key, as its PathRecords. OpenSM gives pre-created groups
# the partition's sl= (2), whatever the policy: a deliberate difference,
# logged, not compared.
# Reload: a policy with mistakes is refused (ibsmctl reload exits 1 with
# file:line:col) and the answers stay as they were; a good policy with
# stor at SL 8 is taken and h0->h2 says 8.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "compares ibsmd with OpenSM itself"
command -v opensm >/dev/null || skip "opensm is not installed"
: "${MCJOIN:=$PWD/tests/sim/mcjoin}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

NET=$FABRICS/slowlink.net
BC=ff12:401b:ffff::ffff:ffff

# h3 (0x100007) and h4 (0x100009) are limited members of both: hosts
# that are limited-only, whose PathRecords are compared too
cat >"$T/partitions.conf" <<EOF
Default=0x7fff, ipoib, sl=2 : 0x100001=full, 0x100003=full, 0x100005=full,
    0x100007=limited, 0x100009=limited, ALL_SWITCHES=full ;
blue=0x0010, sl=4 : 0x100001=full, 0x100003=full, 0x100005=full,
    0x100007=limited, 0x100009=limited ;
EOF
policy() {
	cat <<EOF
# qos_policy.sh: OpenSM's grammar, read by both SMs
port-groups
    port-group
        name: storage
        port-name: h2/P1
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        use: every path no rule names
        sl: 1
    end-qos-level
    qos-level
        name: stor
        sl: $1
        mtu-limit: 2
        packet-life: 14
    end-qos-level
    qos-level
        name: cls
        sl: 9
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        qos-class: 5
        qos-level-name: cls
    end-qos-match-rule
    qos-match-rule
        destination: storage
        qos-level-name: stor
    end-qos-match-rule
end-qos-match-rules
qos-ulps
    sdp : 6
    ipoib : 3
end-qos-ulps
EOF
}
policy 5 >"$T/qos-policy.conf"

# pr NAME saquery-args: the PathRecords as one line of "field=value", in
# the order answered ("none" when there are none; a query saquery could
# not make, or that the SA refused, is "error" with saquery's status, so
# that it is never taken for an answer of no path)
pr() {
	local n=$1 out rc
	shift
	out=$(SIM_HOST=${PR_HOST:-h0} diag saquery -p "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | awk '
	    /^PathRecord dump/ { if (r != "") print r; r = ""; next }
	    /^ibwarn|^saquery/ { next }
	    { split($1, kv, /\.\.+/); if (kv[2] != "") r = r " " kv[1] "=" kv[2] }
	    END { if (r != "") print r }' >"$OUT/$n"
	if [ ! -s "$OUT/$n" ] && [ "$rc" = 0 ]; then
		echo none >"$OUT/$n"
	elif [ ! -s "$OUT/$n" ]; then
		echo "error (saquery exit $rc): $(printf '%s\n' "$out" | grep -m1 -E 'ibwarn|saquery|ERR|error')" >"$OUT/$n"
	fi
}

queries() {
	OUT=$T/$1
	mkdir -p "$OUT"
	pr stor --src-to-dst h0:h2
	pr default --src-to-dst h2:h0
	pr ipoib --src-to-dst h0:h1 --pkey 0xffff
	pr blue --src-to-dst h0:h1 --pkey 0x8010
	pr class --src-to-dst h0:h1 --qos_class 5
	pr sdp --src-to-dst h0:h1 --service_id 0x0000000000011234
	pr sl_given --src-to-dst h0:h2 --sl 5
	pr sl_wrong --src-to-dst h0:h2 --sl 4
	# from limited-only hosts (by GID: a limited-only host sees no
	# NodeRecord of another limited member, so names would not resolve)
	local h2=fe80::10:5 h4=fe80::10:9
	PR_HOST=h4 pr lim_stor --sgid-to-dgid $h4-$h2
	PR_HOST=h4 pr lim_default --sgid-to-dgid $h4-fe80::10:1
	PR_HOST=h4 pr lim_both --sgid-to-dgid $h4-fe80::10:7
	PR_HOST=h2 pr lim_rev --sgid-to-dgid $h2-$h4
	PR_HOST=h4 pr lim_ffff --sgid-to-dgid $h4-fe80::10:3 --pkey 0xffff
	PR_HOST=h4 pr lim_7fff --sgid-to-dgid $h4-fe80::10:3 --pkey 0x7fff
	PR_HOST=h4 pr lim_blue --sgid-to-dgid $h4-fe80::10:3 --pkey 0x0010
	PR_HOST=h4 pr lim_class --sgid-to-dgid $h4-fe80::10:3 --qos_class 5
	PR_HOST=h4 pr lim_sdp --sgid-to-dgid $h4-fe80::10:3 --service_id 0x0000000000011234
	PR_HOST=h4 pr lim_sl_given --sgid-to-dgid $h4-$h2 --sl 5
	PR_HOST=h4 pr lim_sl_wrong --sgid-to-dgid $h4-$h2 --sl 4
	PR_HOST=h3 pr lim_h3 --sgid-to-dgid fe80::10:7-$h2
}
LIM="lim_stor lim_default lim_both lim_rev lim_ffff lim_7fff lim_blue lim_class lim_sdp lim_sl_given lim_sl_wrong lim_h3"

# field NAME KEY: KEY's value in the first record of answer NAME
field() { tr ' ' '\n' <"$OUT/$1" | sed -n "s/^$2=//p" | head -1; }

# join: the IPoIB broadcast group's SL in a join answer from h1
bcast_sl() {
	printf 'join %s 1\n' "$BC" | SIM_HOST=h1 LD_PRELOAD=$SIM_PRELOAD \
	    timeout 30 "$MCJOIN" 8>&- 2>&1 | sed -n 's/^status=0x0000 .* sl=\([0-9]*\) .*/\1/p'
}

# ---- OpenSM
sim_start "$NET"
SM=opensm sm_start -Q -Y "$T/qos-policy.conf" -P "$T/partitions.conf"
SM=opensm wait_subnet_up 60
sleep 1
SM=opensm queries opensm
osm_bc=$(bcast_sl)
SM=opensm sm_stop
cp "$T/state/guid2lid" "$T/guid2lid"
sim_stop
for f in stor default ipoib blue class sdp sl_given; do
	[ "$(cat "$T/opensm/$f")" != none ] || fail "OpenSM gave no record for $f"
done
log "OpenSM: stor SL $(OUT=$T/opensm field stor sl), default $(OUT=$T/opensm field default sl), ipoib $(OUT=$T/opensm field ipoib sl), blue $(OUT=$T/opensm field blue sl), class $(OUT=$T/opensm field class sl), sdp $(OUT=$T/opensm field sdp sl); broadcast group SL ${osm_bc:-?}"

# ---- ibsmd on the same LIDs
rm -rf "$T/state" "$T/run"
mkdir -p "$T/state"
cp "$T/guid2lid" "$T/state/guid2lid"
sim_start "$NET"
sm_start -P "$T/partitions.conf" -O qos=true -O "qos_policy_file=$T/qos-policy.conf"
wait_subnet_up 60
queries ibsmd
for f in stor default ipoib blue class sdp sl_given sl_wrong; do
	cmp -s "$T/opensm/$f" "$T/ibsmd/$f" ||
	    fail "$f: ibsmd answers$(cat "$T/ibsmd/$f"), OpenSM$(cat "$T/opensm/$f")"
done
# the policy is what decides: the values the file gives, not defaults
OUT=$T/ibsmd
# (saquery prints MTU and PacketLifeTime with their selector, 2: exactly)
[ "$(field stor sl)" = 0x5 ] && [ "$(field stor mtu)" = 0x82 ] &&
    [ "$(field stor pkt_life)" = 0x8E ] || fail "stor: $(cat "$OUT/stor")"
[ "$(field default sl)" = 0x1 ] && [ "$(field ipoib sl)" = 0x3 ] &&
    [ "$(field blue sl)" = 0x1 ] && [ "$(field class sl)" = 0x9 ] &&
    [ "$(field sdp sl)" = 0x6 ] && [ "$(cat "$OUT/sl_wrong")" = none ] ||
    fail "SLs: default $(field default sl) ipoib $(field ipoib sl) blue $(field blue sl) class $(field class sl) sdp $(field sdp sl) sl_wrong $(cat "$OUT/sl_wrong")"
log "8 PathRecord queries: ibsmd's answers equal OpenSM's (SL 5, 1, 3, 1, 9, 6, given 5, none for SL 4)"
# limited-only hosts: the same answers as OpenSM's, field for field
for f in $LIM; do
	cmp -s "$T/opensm/$f" "$T/ibsmd/$f" ||
	    fail "$f (limited-only host): ibsmd answers$(cat "$T/ibsmd/$f"), OpenSM$(cat "$T/opensm/$f")"
done
[ "$(field lim_stor sl)" = 0x5 ] && [ "$(field lim_default sl)" = 0x1 ] &&
    [ "$(cat "$OUT/lim_both")" = none ] && [ "$(cat "$OUT/lim_sl_wrong")" = none ] &&
    [ "$(field lim_h3 sl)" = 0x5 ] ||
    fail "limited-only hosts: stor $(field lim_stor sl) default $(field lim_default sl) both '$(cat "$OUT/lim_both")' sl_wrong '$(cat "$OUT/lim_sl_wrong")' h3 $(field lim_h3 sl)"
log "$(echo $LIM | wc -w) PathRecord queries from limited-only hosts: ibsmd's answers equal OpenSM's ($(for f in $LIM; do printf '%s=%s ' "${f#lim_}" "$(field "$f" sl)"; done))"
bc=$(bcast_sl)
[ "$bc" = 3 ] || fail "IPoIB broadcast group: SL '$bc', the policy's ipoib level says 3"
log "IPoIB broadcast group: SL 3 from the policy (OpenSM: ${osm_bc:-?}, its partition's sl=)"

# ---- reload: a broken policy changes nothing
cp "$T/qos-policy.conf" "$T/good.conf"
policy 5 | sed 's/sl: 9/sl: 16/; s/qos-level-name: stor/qos-level-name: nosuch/' >"$T/qos-policy.conf"
if ctl reload >"$T/reload.out" 2>&1; then
	fail "reload of a broken policy succeeded"
fi
grep -q "qos-policy.conf:[0-9]*:[0-9]*: bad sl '16'" "$T/reload.out" &&
    grep -q "qos-policy.conf:[0-9]*:[0-9]*: qos-level-name: no qos-level 'nosuch'" "$T/reload.out" ||
    fail "reload: not every error with file:line:col: $(cat "$T/reload.out")"
queries reload_bad
for f in stor default ipoib blue class sdp sl_given sl_wrong; do
	cmp -s "$T/ibsmd/$f" "$T/reload_bad/$f" ||
	    fail "after a refused reload, $f changed:$(cat "$T/reload_bad/$f")"
done
log "reload of a broken policy refused with both errors; the 8 answers unchanged"

# ---- reload: a good policy is taken
policy 8 >"$T/qos-policy.conf"
ctl reload >"$T/reload.out" 2>&1 || fail "reload of a good policy failed: $(cat "$T/reload.out")"
OUT=$T/reload_good
mkdir -p "$OUT"
pr stor --src-to-dst h0:h2
[ "$(field stor sl)" = 0x8 ] || fail "after the reload h0->h2 has SL $(field stor sl), not 8"
log "reload of a good policy: h0->h2 SL 8"
sm_stop
log PASS
