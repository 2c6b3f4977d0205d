#!/bin/bash
# Restarting the SM keeps every LID and disturbs nothing.
#
# 1. ft2_8 up under the SM; every port's LID is read from the fabric
#    (ibnetdiscover through fabcheck --dump-lids, never from the SM).
# 2. SM stopped (SIGTERM) and started again on the same state directory:
#    same LIDs, fabric correct, and, for ibsmd, not one LFT block written
#    (counted by the fixture, UMADFIX_STATS, over ibsmd's whole life; without
#    the fixture, its stats after the first sweep: smp.Set.LinearForwardingTable.sent 0;
#    opensm has no such counter, so that assertion is skipped with SM=opensm),
#    and, under a partition policy with two disjoint partitions, not one
#    P_Key block either (smp.Set.P_KeyTable.sent 0).
# 3. The whole fabric power-cycled (a fresh ibsim: every LID 0 again) and the
#    SM started on the same state directory: LIDs come back from the SM's
#    persistent guid2lid, identical to step 1.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

net=$FABRICS/ft2_8.net
pkeys=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
sim_start "$net"
SM_EXTRA_ARGS="-P $pkeys"
sm_start -R minhop
wait_subnet_up 60
# The counters the restart must leave at 0 are the ones this start used:
# a renamed counter cannot pass as "nothing written".
if [ "$SM" != opensm ]; then
	[ "$(stat_get mad.counters.smp.Set.P_KeyTable.sent 0)" -gt 0 ] ||
	    fail "the first start wrote no P_Key block: the policy did not reach the fabric"
	[ "$(stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0)" -gt 0 ] ||
	    fail "the first start wrote no LFT block on a fresh fabric"
fi
fabcheck --dump-lids "$T/lids.1" || fail "fabric check failed after the first start"
[ -s "$T/lids.1" ] || fail "no LIDs recorded"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"

UMADFIX_STATS=$T/sets.restart sm_start -R minhop
wait_subnet_up 60
if [ "$SM" != opensm ]; then
	lft=$(stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0) || fail "no stats file after the restart"
	pk=$(stat_get mad.counters.smp.Set.P_KeyTable.sent 0)
fi
fabcheck --dump-lids "$T/lids.2" || fail "fabric check failed after the restart"
diff -u "$T/lids.1" "$T/lids.2" || fail "LIDs changed across an SM restart"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
if [ "$SM" = opensm ]; then
	log "SM=opensm: no stats file, LFT Set count not checked"
else
	# what left ibsmd in its whole life, counted by the fixture
	lft=$(sets_written "$T/sets.restart" LinearForwardingTable) &&
	    pk=$(sets_written "$T/sets.restart" P_KeyTable) ||
	    fail "the fixture counted no Sets"
	[ "$lft" = 0 ] || fail "restart on a fabric that was already right wrote $lft LFT blocks"
	[ "$pk" = 0 ] || fail "restart on a fabric that was already right wrote $pk P_Key blocks"
	log "restart wrote no LFT block and no P_Key block (counted by the fixture)"
fi

sim_stop
sim_start "$net"
diag ibnetdiscover 2>/dev/null | grep -q 'base port 0 lid 0 ' || fail "fresh ibsim does not have LID 0 on its switches"
sm_start -R minhop
wait_subnet_up 60
fabcheck --dump-lids "$T/lids.3" || fail "fabric check failed after a fabric power cycle"
diff -u "$T/lids.1" "$T/lids.3" || fail "LIDs not restored from the state directory after a fabric power cycle"
log "$(wc -l <"$T/lids.1") port LIDs stable across an SM restart and a fabric power cycle"
