#!/bin/bash
# Port selection by GUID on a dual-port HCA: ibsim's net.2sw2path4hca2port
# cables both ports of Hca1 to Switch1.
#
# The simulated host (the umadfix device, as ibsim's libumad2sim did) shows
# a client one port of the node it attaches to (port 1:
# "Number of ports: 1" in ibstat), so the second port cannot be driven on
# the simulator. What can be checked: -g with port 1's GUID drives it (the
# fabric reads it as MASTER and every route is right), and -g with port
# 2's GUID, which this host does not have, is refused with the GUID named,
# before anything is sent.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

PORT1=0x0000000000100001
PORT2=0x0000000000100002
net=$(sim_example net.2sw2path4hca2port) || exit 1
SIM_HOST=Hca1
export SIM_HOST
sim_start "$net"

rc=0
sm_run 30 --once -g "$PORT2" || rc=$?
[ "$rc" != 0 ] || fail "ibsmd -g $PORT2 exited 0 on a host without that port"
grep -q "$PORT2" "$T/sm_run.err" ||
	fail "ibsmd -g $PORT2 did not name the GUID: $(cat "$T/sm_run.err")"
log "-g $PORT2 refused (status $rc): $(tail -1 "$T/sm_run.err")"

sm_start -g "$PORT1" -R minhop
wait_subnet_up 60
fabcheck --sm-guid "$PORT1" || fail "fabric check failed with the SM on port 1"
sminfo_is_master "$PORT1" || fail "sminfo does not read Hca1 port 1 as MASTER"
sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
