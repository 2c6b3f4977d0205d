#!/bin/bash
# Multicast through the SA on ft2_8 with a RHEL-style partitions.conf
# (data/partitions_rhel.conf), read with saquery (infiniband-diags) and
# driven by the project's own client, tests/sim/mcjoin (MCMemberRecord
# Set/Delete from a simulated host, SIM_HOST):
#  1. right after subnet up, saquery -g from a member of each partition
#     lists the IPv4 broadcast group of every ipoib partition it belongs
#     to, with the partition's parameters, and the mgid= groups; no group
#     for the partition without ipoib; every MLID distinct, from 0xC000;
#  2. IPoIB's broadcast join (MGID|PortGID|P_Key|JoinState) succeeds and
#     carries Q_Key, TClass, FlowLabel, SL, MTU and rate back; a host
#     outside the partition, or one whose MTU is below the group's, is
#     refused; an unknown group cannot be created with that mask;
#  3. IPoIB-signature creates must match the broadcast group; a host
#     outside the partition cannot create in it, nor see its groups;
#  4. join 9 / leave 1 / leave 8 leaves nothing (OpenSM's PR #43 leak),
#     and the MLID is reused by the next create;
#  5. 1,000 join/leave cycles from three hosts at once, in mixed JoinState
#     orders (including 9/1/8), leave no group, member, MLID or MFT entry
#     behind (ibroute -M through tests/sim/mcastcheck.py);
#  6. a reload that drops the ipoib flag deletes the broadcast group
#     nobody joined and keeps the joined one until its last full member
#     leaves.
# ClassPortInfo names UD multicast (bit 9) and send-only full members
# (CapabilityMask2 bit 12).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "partitions reload through ibsmctl is ibsmd's"
: "${MCJOIN:=./tests/sim/mcjoin}"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$MCJOIN" ] || fail "MCJOIN=$MCJOIN is not an executable (make check builds it)"
CONF=$TOP_SRCDIR/tests/sim/data/partitions_rhel.conf
[ -r "$CONF" ] || fail "$CONF not found"
cp "$CONF" "$T/partitions.conf"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

# mj HOST COMMAND...: one mcjoin request from HOST, its answer line
mj() { local h=$1; shift; SIM_HOST=$h diag "$MCJOIN" "$@" 2>/dev/null; }
# status LINE: the SA status of an mcjoin answer
status() { printf '%s\n' "$1" | sed -n 's/^status=\(0x[0-9a-f]*\).*/\1/p'; }
field() { printf '%s\n' "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
expect() {              # expect STATUS HOST COMMAND...
	local want=$1 out
	shift
	out=$(mj "$@")
	[ "$(status "$out")" = "$want" ] ||
	    fail "$* from $1: wanted status $want, got: ${out:-nothing}"
	printf '%s\n' "$out"
}
# groups HOST: saquery -g as seen from HOST, one line per group:
#   MGID MLID MTU PKEY RATE SL
groups() {
	SIM_HOST=$1 diag saquery -g 2>/dev/null | awk '
	    /MGID\.\./ { sub(/.*\.\.\./, ""); g = $0 }
	    /Mlid\.\./ { sub(/.*\.\.\./, ""); l = $0 }
	    /Mtu\.\./ { sub(/.*\.\.\./, ""); m = $0 }
	    /pkey\.\./ { sub(/.*\.\.\./, ""); p = $0 }
	    /Rate\.\./ { sub(/.*\.\.\./, ""); r = $0 }
	    /SL\.\./ { sub(/.*\.\.\./, ""); if (g != "::") print g, l, m, p, r, $0 }' | sort
}
# (A reply without RMPP reaches saquery as one whole 256-byte MAD:
# the records past the real ones are zeros, MGID "::", and are dropped.)
# members HOST: saquery -m with the SA key (PortGID and JoinState shown)
# as seen from HOST: MGID PORTGID SCOPESTATE
members() {
	SIM_HOST=$1 diag saquery -m --smkey 1 2>/dev/null | awk '
	    /MGID\.\./ { sub(/.*\.\.\./, ""); g = $0 }
	    /PortGid\.\./ { sub(/.*\.\.\./, ""); p = $0 }
	    /ScopeState\.\./ { sub(/.*\.\.\./, ""); if (g != "::") print g, p, $0 }' | sort
}
has_group() { groups "$1" | grep -q "^$2 "; }
MCHECK=$TOP_SRCDIR/tests/sim/mcastcheck.py
mcheck() { diag python3 "$MCHECK" "$@"; }
lacks_group() { ! has_group "$@"; }

sim_start "$FABRICS/ft2_8.net"
sm_start -P "$T/partitions.conf"
wait_subnet_up 60

# ---- ClassPortInfo
cpi=$(diag saquery -c 2>/dev/null)
cap=$(printf '%s\n' "$cpi" | sed -n 's/^[[:space:]]*Capability mask\.*\(0x[0-9a-fA-F]*\)$/\1/p')
cap2=$(printf '%s\n' "$cpi" | sed -n 's/^[[:space:]]*Capability mask 2\.*\(0x[0-9a-fA-F]*\)$/\1/p')
[ $((cap & 0x200)) != 0 ] || fail "ClassPortInfo CapabilityMask $cap lacks UD multicast (bit 9)"
[ $((cap2 & 0x1000)) != 0 ] || fail "ClassPortInfo CapabilityMask2 $cap2 lacks send-only full member (bit 12)"
log "ClassPortInfo: CapabilityMask $cap, CapabilityMask2 $cap2"

# ---- 1. groups at subnet up
D7="ff12:401b::1 ff12:401b::2 ff12:401b::16 ff12:601b::1 ff12:601b::2 ff12:601b::16"
check_default() {       # check_default GROUPS-FILE: Default's seven groups
	local g line
	for g in ff12:401b::ffff:ffff $D7; do
		g=$(printf '%s' "$g" | sed 's/^ff12:\([46]01b\):/ff12:\1:ffff:/')
		line=$(grep "^$g " "$1") || fail "$(basename "$1"): no group $g: $(cat "$1")"
		set -- "$1" $line
		[ "$4 $5 $6 $7" = "0x84 0xFFFF 0x83 0x0" ] ||
		    fail "$(basename "$1"): group $g has Mtu Pkey Rate SL '$4 $5 $6 $7', not '0x84 0xFFFF 0x83 0x0'"
	done
}
groups h1 >"$T/g.h1"
groups h5 >"$T/g.h5"
groups h7 >"$T/g.h7"
groups h20 >"$T/g.h20"
check_default "$T/g.h1"
check_default "$T/g.h20"
[ "$(wc -l <"$T/g.h20")" = 7 ] || fail "h20 (Default only) sees $(wc -l <"$T/g.h20") groups, not 7: $(cat "$T/g.h20")"
[ "$(wc -l <"$T/g.h7")" = 7 ] || fail "h7 (Default and mgmt, no ipoib) sees $(wc -l <"$T/g.h7") groups, not 7: $(cat "$T/g.h7")"
for s in 2 5; do
	line=$(grep "^ff1$s:401b:8010::ffff:ffff " "$T/g.h1") ||
	    fail "h1 does not see storage's scope-$s broadcast group: $(cat "$T/g.h1")"
	set -- $line
	# SL 0 whatever sl=1 says: no SL-to-VL mapping is programmed
	# (issue 22 point 9)
	[ "$3 $4 $5 $6" = "0x84 0x8010 0x83 0x0" ] ||
	    fail "storage broadcast group (scope $s): Mtu Pkey Rate SL '$3 $4 $5 $6', not '0x84 0x8010 0x83 0x0'"
done
[ "$(wc -l <"$T/g.h1")" = 9 ] || fail "h1 sees $(wc -l <"$T/g.h1") groups, not 9: $(cat "$T/g.h1")"
line=$(grep "^ff12:401b:8020::ffff:ffff " "$T/g.h5") || fail "h5 does not see jumbo's broadcast group"
set -- $line
[ "$3 $4" = "0x85 0x8020" ] || fail "jumbo broadcast group: Mtu Pkey '$3 $4', not '0x85 0x8020'"
grep -q ":8030:" "$T/g.h7" && fail "a group for mgmt, which has no ipoib flag: $(cat "$T/g.h7")"
cat "$T/g.h1" "$T/g.h5" | sort -u >"$T/g.all"
awk '{ print $2 }' "$T/g.all" | sort | uniq -d | grep . &&
    fail "two groups share an MLID: $(cat "$T/g.all")"
for l in $(awk '{ print $2 }' "$T/g.all"); do
	[ $((l)) -ge $((0xC000)) ] && [ $((l)) -le $((0xC3FF)) ] ||
	    fail "MLID $l outside 0xC000-0xC3FF: $(cat "$T/g.all")"
done
log "1. saquery -g: Default's 7 groups everywhere, storage's 2 broadcast groups to its members, jumbo's to its, none for mgmt; MLIDs distinct"

# ---- 2. IPoIB's broadcast join
SBC=ff12:401b:8010::ffff:ffff
out=$(expect 0x0000 h1 join $SBC 1 pkey=0x8010)
[ "$(field "$out" qkey) $(field "$out" tclass) $(field "$out" flow) $(field "$out" sl) $(field "$out" mtu) $(field "$out" rate) $(field "$out" join)" = \
    "0x00001234 32 0x00321 0 0x84 0x83 0x1" ] || fail "broadcast join answer: $out"
expect 0x0000 h2 join $SBC 1 pkey=0x8010 >/dev/null
expect 0x0200 h20 join $SBC 1 pkey=0x8010 >/dev/null
expect 0x0200 h5 join ff12:401b:8020::ffff:ffff 1 pkey=0x8020 >/dev/null
expect 0x0600 h1 join ff12:401b:8010::1:2 1 pkey=0x8010 >/dev/null
expect 0x0000 h20 join ff12:401b:ffff::ffff:ffff 1 pkey=0xffff >/dev/null
log "2. broadcast joins: members ok with the group's parameters; outsider, MTU too small, and a create with IPoIB's join mask refused"

# ---- 3. IPoIB-signature creates (IPoIB copies the broadcast group)
V6=ff12:601b:8010::1
CP="qkey=0x1234 mtu=4 tclass=0x20 rate=3 sl=0 flow=0x321 hop=0 pkey=0x8010"
out=$(expect 0x0000 h1 join $V6 1 $CP)
v6mlid=$(field "$out" mlid)
expect 0x0200 h1 join ff12:601b:8010::2 1 qkey=0x0b1b mtu=4 tclass=0x20 rate=3 sl=0 flow=0x321 pkey=0x8010 >/dev/null
expect 0x0200 h20 join ff12:601b:8010::3 1 $CP >/dev/null
expect 0x0000 h3 join $V6 2 pkey=0x8010 >/dev/null
has_group h1 $V6 || fail "h1 does not see the group it created"
has_group h20 $V6 && fail "h20, outside storage, sees $V6"
groups h20 | grep -q ":8010:" && fail "h20 sees storage groups: $(groups h20)"
members h1 >"$T/m.3"
grep -q "^$V6 fe80::10:4 0x21$" "$T/m.3" || fail "saquery -m: h1 not a full member of $V6: $(cat "$T/m.3")"
grep -q "^$V6 fe80::10:a 0x22$" "$T/m.3" || fail "saquery -m: h3 not a non-member of $V6: $(cat "$T/m.3")"
log "3. $V6 created (MLID $v6mlid) with the broadcast group's parameters; a mismatched Q_Key and an outsider refused; outsiders do not see it"

# ---- 4. join 9, leave 1, leave 8 (OpenSM PR #43)
L=ff15:1234::9
out=$(expect 0x0000 h4 join $L 9 create)
lmlid=$(field "$out" mlid)
expect 0x0000 h4 leave $L 1 >/dev/null
has_group h4 $L || fail "$L went after leave 1, though h4 is still a send-only full member"
expect 0x0000 h4 leave $L 8 >/dev/null
has_group h4 $L && fail "$L still there after join 9 / leave 1 / leave 8"
members h4 | grep -q "^$L " && fail "a member of $L left behind"
out=$(expect 0x0000 h4 join ff15:1234::a 1 create)
[ "$(field "$out" mlid)" = "$lmlid" ] || fail "MLID $lmlid not reused: the next create got $(field "$out" mlid)"
expect 0x0000 h4 leave ff15:1234::a 1 >/dev/null
log "4. join 9 / leave 1 / leave 8: group and member gone, MLID $lmlid reused"

# ---- 5. 1,000 join/leave cycles, three hosts at once
groups h1 >"$T/g.before"
members h1 >"$T/m.before"
sleep 1
entries0=$(mcheck --count) || fail "cannot read the MFTs: $entries0"
cycles() {              # cycles SEED N: N cycles of mixed JoinState orders
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		split("1:1|9:1,8|8:8|15:15|9:8,1|3:1,2|1,8:9|2,1:1,2|9:9", P, "|")
		for (i = 0; i < n; i++) {
			g = sprintf("ff15:77::%x", int(rand() * 4))
			split(P[1 + int(rand() * 9)], jl, ":")
			nj = split(jl[1], J, ","); nl = split(jl[2], Lv, ",")
			for (k = 1; k <= nj; k++)
				printf "join %s %s create\n", g, J[k]
			for (k = 1; k <= nl; k++)
				printf "leave %s %s\n", g, Lv[k]
		}
	}'
}
t0=$(date +%s.%N)
cycles 1 334 | SIM_HOST=h9 diag "$MCJOIN" >"$T/c.h9" 2>/dev/null &
p1=$!
cycles 2 333 | SIM_HOST=h10 diag "$MCJOIN" >"$T/c.h10" 2>/dev/null &
p2=$!
cycles 3 333 | SIM_HOST=h11 diag "$MCJOIN" >"$T/c.h11" 2>/dev/null &
p3=$!
wait $p1 $p2 $p3
t1=$(date +%s.%N)
nreq=$(cat "$T"/c.h* | wc -l)
nok=$(cat "$T"/c.h* | grep -c '^status=0x0000')
grep -h timeout "$T"/c.h* | head -3 | grep . && fail "requests timed out during the cycles"
[ "$nreq" -ge 2000 ] || fail "only $nreq answers in 1,000 cycles"
groups h1 >"$T/g.after"
members h1 >"$T/m.after"
diff "$T/g.before" "$T/g.after" >"$T/g.diff" || fail "groups changed by the cycles: $(cat "$T/g.diff")"
diff "$T/m.before" "$T/m.after" >"$T/m.diff" || fail "members changed by the cycles: $(cat "$T/m.diff")"
# the MFTs: as many entries as before, none for an MLID the cycles used
cat "$T"/c.h* | sed -n 's/.* mlid=\(0x[0-9a-f]*\) .*/\1/p' | sort -u |
    grep -v '^0x0000$' >"$T/c.mlids"
for l in $(cat "$T/c.mlids"); do
	grep -qi " $l " "$T/g.after" && continue        # a group's kept MLID
	poll_until 10 mcheck --mlid "$l" --absent >/dev/null ||
	    fail "MLID $l used by the cycles: MFT entries left ($(mcheck --mlid "$l" --absent))"
done
entries1=$(mcheck --count)
[ "$entries1" = "$entries0" ] || fail "MFT entries: $entries0 before the cycles, $entries1 after"
out=$(expect 0x0000 h4 join ff15:1234::b 1 create)
[ "$(field "$out" mlid)" = "$lmlid" ] || fail "after the cycles, a create got MLID $(field "$out" mlid), not the lowest free $lmlid"
expect 0x0000 h4 leave ff15:1234::b 1 >/dev/null
log "5. 1,000 cycles from 3 hosts: $nreq requests ($nok successful) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; groups, members, MLIDs and MFT entries ($entries1) as before; no entry for the $(wc -l <"$T/c.mlids") MLIDs the cycles used"

# ---- 6. reload without storage's ipoib flag
sed -i 's/^storage=0x0010, ipoib,/storage=0x0010,/' "$T/partitions.conf"
ctl reload >"$T/reload.out" 2>&1 || fail "ibsmctl reload failed: $(cat "$T/reload.out")"
poll_until 20 lacks_group h1 ff15:401b:8010::ffff:ffff >/dev/null ||
    fail "storage's scope-5 broadcast group (no member) survived the reload"
has_group h1 $SBC || fail "storage's joined broadcast group went with the reload while h1 and h2 are full members"
expect 0x0000 h1 leave $SBC 1 >/dev/null
has_group h1 $SBC || fail "$SBC went while h2 is still a full member"
expect 0x0000 h2 leave $SBC 1 >/dev/null
has_group h1 $SBC && fail "$SBC still there after its last full member left (no longer pre-created)"
has_group h1 ff12:401b:ffff::ffff:ffff || fail "Default's broadcast group went with the reload"
log "6. reload: unjoined broadcast group deleted, joined one kept until its last full member left"

# ---- 7. a reload that removes a partition removes its multicast state
# (issue 31 point 10): its members no longer hold its P_Key, so they are
# members no more, the group goes and the MFTs stop forwarding its MLID
cp "$CONF" "$T/partitions.conf"
ctl reload >"$T/reload.out" 2>&1 || fail "ibsmctl reload failed: $(cat "$T/reload.out")"
poll_until 20 has_group h1 $SBC >/dev/null || fail "storage's broadcast group not pre-created again"
out=$(expect 0x0000 h1 join $SBC 1)
smlid=$(field "$out" mlid)
expect 0x0000 h2 join $SBC 1 >/dev/null
poll_until 10 mcheck --mlid "$smlid" --recv h1,h2 >/dev/null ||
    fail "storage's broadcast group $smlid: tree wrong: $(mcheck --mlid "$smlid" --recv h1,h2)"
sed -i '/^storage=0x0010/,/;$/d' "$T/partitions.conf"
grep -q '^storage' "$T/partitions.conf" && fail "test bug: storage still in the file"
ctl reload >"$T/reload.out" 2>&1 || fail "ibsmctl reload failed: $(cat "$T/reload.out")"
poll_until 20 lacks_group h1 $SBC >/dev/null ||
    fail "storage's joined broadcast group survived the removal of its partition"
poll_until 10 mcheck --mlid "$smlid" --absent >/dev/null ||
    fail "MFT entries towards storage's former members left: $(mcheck --mlid "$smlid" --absent)"
has_group h1 ff12:401b:ffff::ffff:ffff || fail "Default's broadcast group went with the reload"
log "7. reload removing storage: its joined group and MFT entries (MLID $smlid) gone"

sm_stop
log "PASS"
