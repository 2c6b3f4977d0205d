#!/bin/bash
# A restart on an already-correct three-level fat tree writes nothing.
#
# ft3_8 (80 switches, 128 HCAs, 208 LIDs: 4 LFT blocks a switch, 320 in
# all) brought up by ibsmd with its default routing (the chain ftree,updn)
# under a partition policy with two disjoint partitions; fabcheck judges
# the fabric from infiniband-diags. Then ibsmd is stopped and started again
# on the same state directory twice: each restart must write not one LFT
# block and not one P_Key block (the engine, routing from the tables it
# reads back, must compute the tables it would have written), and the
# tables dump_fts reads must be identical before and after.
#
# PortInfo: ibsim's PortInfo Set does not store the partition enforcement
# bits (nor M_Key, M_KeyLeasePeriod, SubnetTimeout: it answers its
# template's values, lease 4089 and timeout 31), so a port whose enforcement
# the policy wants on reads back off after every Set, and each restart
# sets it again: one PortInfo per switch port facing a CA (128 here). The
# second restart runs with --partition-enforcement off, which the ports
# read back as they are: there, every other PortInfo field must compare
# equal, and not one PortInfo may be written but the ClientReregister Sets
# every new mastership makes once per CA port (the stats' client_reregs).
#
# The Sets of each restart are counted by the fixture (UMADFIX_STATS: every
# SMP Set that leaves ibsmd, its whole life); without the fixture, ibsmd's
# own counters (smp.Set.*.sent, its first sweep) are used. The first start
# must show Sets in ibsmd's counters, so a renamed counter cannot pass as
# "nothing written". Skips under SM=opensm (no counters).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "SM=opensm: no Set counters"

net=$FABRICS/ft3_8.net
pkeys=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
sim_start "$net"
SM_EXTRA_ARGS="-c /dev/null -P $pkeys"

dump() { diag dump_fts 2>/dev/null | grep -v '^dump_fts' >"$1" || fail "dump_fts failed"; }

sm_start
wait_subnet_up 120
[ "$(stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0)" -gt 0 ] ||
    fail "the first start wrote no LFT block on a fresh fabric"
[ "$(stat_get mad.counters.smp.Set.P_KeyTable.sent 0)" -gt 0 ] ||
    fail "the first start wrote no P_Key block: the policy did not reach the fabric"
engine=$(stat_get routing.engine)
fabcheck --updown --cdg || fail "fabric wrong after the first start (routed by $engine)"
dump "$T/fts.0"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"

for i in 1 2; do
	sets=$T/sets.$i
	if [ "$i" = 2 ]; then
		UMADFIX_STATS=$sets sm_start --partition-enforcement off
	else
		UMADFIX_STATS=$sets sm_start
	fi
	wait_subnet_up 120
	engine=$(stat_get routing.engine)
	dump "$T/fts.$i"
	diff -q "$T/fts.0" "$T/fts.$i" >/dev/null || fail "the LFTs changed across restart $i"
	sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
	# what left the process in its whole life, counted by the fixture
	lft=$(sets_written "$sets" LinearForwardingTable) &&
	    pk=$(sets_written "$sets" P_KeyTable) &&
	    pi=$(sets_written "$sets" PortInfo) &&
	    rr=$(client_rereg_sets "$sets") ||
	    fail "the fixture counted no Sets ($sets)"
	log "restart $i (routed by $engine): $lft LFT blocks, $pk P_Key blocks, $pi PortInfo written ($rr of them ClientReregister)"
	[ "$lft" = 0 ] || fail "restart $i on a fabric that was already right wrote $lft LFT blocks"
	[ "$pk" = 0 ] || fail "restart $i on a fabric that was already right wrote $pk P_Key blocks"
	# less the ClientReregister a new mastership sets once on every CA port
	[ "$i" = 1 ] || [ "$((pi - rr))" = 0 ] ||
	    fail "restart $i without partition enforcement wrote $((pi - rr)) PortInfo besides $rr ClientReregister"
done
fabcheck --updown --cdg --skip-master || fail "fabric wrong after the restarts"
log "two restarts on ft3_8 ($engine) wrote no LFT and no P_Key block, the second no PortInfo"
