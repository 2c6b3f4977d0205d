#!/bin/bash
# dfsssp through the daemon (issue 27 point 6): ibsmd takes it from
# ibsmd.conf (`routing_engine: [dfsssp, updn]`) and from -R. ibsmd programs
# no SL2VL table and hands out no per-path SL yet, so it routes every
# engine on one VL (routing_run): where dfsssp's shortest routes have no
# credit loop (a two-level fat tree) it routes, every LID delivered from
# every switch along a shortest path and the channel dependency graph
# acyclic as dump_fts reads it (fabcheck --cdg); where they have one (a
# ring) it declines and updn routes, deadlock-free. Fails on 3f73664: no
# engine dfsssp there, so ibsmd refuses the configuration.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = opensm ] && skip "ibsmd's engine registry and configuration"

printf 'routing_engine: [dfsssp, updn]\n' >"$T/ibsmd.conf"
sim_start "$FABRICS/ft2_16.net"
sm_start -c "$T/ibsmd.conf"
wait_subnet_up 60
used=$(stat_get routing_engine)
[ "$used" = dfsssp ] || fail "ft2_16: routed by '$used', expected dfsssp"
fabcheck --cdg || fail "ft2_16: dfsssp's tables as read are wrong or have a credit loop"
log "ft2_16: dfsssp routed (one VL), shortest and free of credit loops"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
sim_stop

sim_start "$FABRICS/ring6.net"
sm_start -R dfsssp,updn
wait_subnet_up 60
used=$(stat_get routing_engine)
[ "$used" = updn ] || fail "ring6: routed by '$used', expected updn (dfsssp needs 2 VLs there)"
fabcheck --cdg --no-shortest || fail "ring6: the fallback's tables are wrong or have a credit loop"
log "ring6: dfsssp declined on one VL, updn routed deadlock-free"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
