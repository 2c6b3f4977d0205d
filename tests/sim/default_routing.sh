#!/bin/bash
# ibsmd started without any routing option routes deadlock-free: on the
# three-level fat tree (where minhop has a credit loop) and on the ring (no
# fat tree: the default chain falls through to updn), the tables dump_fts
# reads must reach every LID along up/down routes and their channel
# dependency graph must be acyclic (fabcheck --updown --cdg).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "OpenSM's default routing is not what this test is about"

for net in ft3_8 ring6; do
	sim_start "$FABRICS/$net.net"
	sm_start -c /dev/null -P "$T/none.conf"
	wait_subnet_up 90
	fabcheck --updown --no-shortest --cdg >"$T/$net.check" 2>&1 ||
	    fail "$net: the default routing fails the check: $(tail -5 "$T/$net.check")"
	log "$net: routed by $(stat_get routing.engine), deadlock-free as dump_fts reads it"
	sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
	sim_stop
done
