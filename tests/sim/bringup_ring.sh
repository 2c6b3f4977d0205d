#!/bin/bash
# Bring-up on a ring of 6 switches with 2 HCAs each (gen_fabric.py ring 6 2):
# a topology with cycles, where minimal paths go both ways round.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sim_start "$FABRICS/ring6.net"
sm_start -R minhop
wait_subnet_up 60
fabcheck || fail "fabric check failed after subnet up"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
