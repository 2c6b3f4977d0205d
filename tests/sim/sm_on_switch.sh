#!/bin/bash
# An SM on a managed switch: ibsim's own net.2sw2path4hca lists Switch1
# first, and without SIM_HOST the simulator attaches every client (ibsmd
# and the diags) to that switch's management port 0, as an SM running on a
# switch (MLNX-OS "ib sm") drives it.
#
# 1. ibsmd finds the switch's port 0 by itself: subnet up, every route
#    checked hop by hop, sminfo reads MASTER with the switch's port GUID.
# 2. A partition policy: the P_Key tables read back match the file.
# 3. A restart named by GUID (-g 0x0000000000200000) writes no LFT and no
#    P_Key block on the already-correct fabric.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

SW_GUID=0x0000000000200000
PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
net=$(sim_example net.2sw2path4hca) || exit 1
unset SIM_HOST
cat >"$T/partitions.conf" <<'CONF'
Default=0x7fff, ipoib : ALL=full ;
storage=0x8001 : 0x0000000000100001=full, 0x000000000010000a=full ;
CONF
sim_start "$net"
sm_start -P "$T/partitions.conf" -R minhop
wait_subnet_up 60
fabcheck --sm-guid "$SW_GUID" || fail "fabric check failed with the SM on the switch"

sminfo_is_master "$SW_GUID" || fail "sminfo does not read the switch's port as MASTER"

LD_PRELOAD=$SIM_PRELOAD python3 "$PKT" read "$T/pkeys.json" 8>&- ||
	fail "could not read the P_Key tables"
python3 "$PKT" expect "$T/partitions.conf" "$T/pkeys.json" --sm-guid "$SW_GUID" ||
	fail "P_Key tables differ from the partitions file"
log "P_Key tables match the partitions file"

sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
sm_start -g "$SW_GUID" -P "$T/partitions.conf" -R minhop
wait_subnet_up 60
n=$(stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0) || fail "no stats file after the restart"
[ "$n" = 0 ] || fail "the restart wrote $n LFT blocks on a correct fabric"
n=$(stat_get mad.counters.smp.Set.P_KeyTable.sent 0)
[ "$n" = 0 ] || fail "the restart wrote $n P_Key blocks on a correct fabric"
fabcheck --sm-guid "$SW_GUID" || fail "fabric check failed after the restart"
log "restart by GUID on the switch: 0 LFT and 0 P_Key blocks written"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
