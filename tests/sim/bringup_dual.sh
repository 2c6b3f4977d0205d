#!/bin/bash
# Bring-up on dual-homed HCAs (tests/fabrics/dual.net: gen_fabric.py dual 8),
# with one HCA port uncabled and two cabled links (a leaf-spine cable and
# one HCA's port 1) taken down before the SM starts (the "# sim-down:" lines
# of the net file, applied by sim_start). Every CA port that is up must get
# its own LID and be routed; the down links must stay out of the paths.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sim_start "$FABRICS/dual.net"
[ ${#SIM_DOWN_ARGS[@]} -gt 0 ] || fail "dual.net declares no sim-down link"
sm_start -R minhop
wait_subnet_up 60
fabcheck "${SIM_DOWN_ARGS[@]}" || fail "fabric check failed after subnet up"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
