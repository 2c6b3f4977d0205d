#!/bin/bash
# A leaf-spine link goes down under a running SM (sweep interval 2 s) and
# comes back: the SM must route around it, then use it again. Deadlines are
# generous (4 sweep intervals + 5 s) and polled; fabcheck decides, from the
# fabric, whether every LID is reachable from every switch on a shortest
# path of the graph of the moment.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

SWEEP=2
LIMIT=$((4 * SWEEP + 5))
A='"leaf3"[6]'          # leaf3's uplink to spine1 (tests/fabrics/ft2_8.net)
B='"spine1"[4]'
DOWN='leaf3[6]'

sim_start "$FABRICS/ft2_8.net"
sm_start -R minhop --sweep-interval $SWEEP
wait_subnet_up 60
fabcheck || fail "fabric check failed after subnet up"

sim_cmd "Unlink $A"
log "unlinked $A - $B"
poll_until $LIMIT fabcheck --down "$DOWN" ||
	fail "fabric not rerouted around $A within $LIMIT s"
log "rerouted around the dead link"

sim_cmd "Link $A $B"
log "linked $A - $B again"
poll_until $LIMIT fabcheck ||
	fail "link $A not ACTIVE and used again within $LIMIT s"
log "link ACTIVE and on the shortest paths again"
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
