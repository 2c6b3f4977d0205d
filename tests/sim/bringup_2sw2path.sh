#!/bin/bash
# Bring-up on ibsim's own example net.2sw2path4hca (shipped by the Debian
# package ibsim-utils, not copied into this tree): two switches joined by
# two parallel cables, two HCAs on each.
#
# The file lists Switch1 first, so by default ibsim would attach the SM to
# switch port 0; this test attaches the SM (and the diags, so that fabcheck's
# default SM GUID is Hca1 port 1) to Hca1 like every other test.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

net=$(sim_example net.2sw2path4hca) || exit 1
SIM_HOST=Hca1
export SIM_HOST
sim_start "$net"
sm_start -R minhop
wait_subnet_up 60
fabcheck || fail "fabric check failed after subnet up"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
