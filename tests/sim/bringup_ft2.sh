#!/bin/bash
# Bring-up on a two-level fat tree (gen_fabric.py ft2 8: 8 leaves, 4 spines,
# 32 HCAs): the SM comes up and the fabric, read with infiniband-diags, has
# unique LIDs, every link ACTIVE, the SM MASTER and shortest-path LFTs.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sim_start "$FABRICS/ft2_8.net"
sm_start -R minhop
wait_subnet_up 60
fabcheck || fail "fabric check failed after subnet up"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
