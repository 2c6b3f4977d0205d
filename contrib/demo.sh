#!/usr/bin/env bash
# The quick start's demo: ibsim on the bundled two-level fat tree, ibsmd on
# it, then an independent check of the fabric with infiniband-diags.
# Run by contrib/quickstart demo (IBSMD and TOP_SRCDIR set).
. "$TOP_SRCDIR/tests/sim/lib.sh"

net=${DEMO_NET:-$FABRICS/ft2_8.net}
sim_start "$net"
sm_start --sweep-interval 10
wait_subnet_up 60
echo
echo "ibsmd brought up $(basename "$net"):"
printf '  %-22s %s\n' \
    "nodes" "$(stat_get fabric.nodes)" \
    "switches" "$(stat_get fabric.switches)" \
    "CA ports" "$(stat_get fabric.ca_ports)" \
    "LIDs assigned" "$(stat_get fabric.lids)" \
    "routing engine" "$(stat_get routing.engine)" \
    "SMPs sent" "$(stat_get mad.sent)" \
    "time to subnet up" "$(stat_get sweep.up_seconds) s"
echo
echo "Independent check (ibnetdiscover, dump_fts, smpquery, sminfo):"
fabcheck || fail "the fabric check failed"
echo
diag sminfo 2>/dev/null
sm_stop >/dev/null || true
