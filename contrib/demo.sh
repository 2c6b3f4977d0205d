#!/usr/bin/env bash
# The quick start's demo: ibsim on the bundled two-level fat tree, ibsmd on
# it, then an independent check of the fabric with infiniband-diags.
# Run by contrib/quickstart demo (IBSMD and TOP_SRCDIR set). Every client
# preloads the simulated host's umad device (tests/fixture/umadfix.so, built
# beside ibsmd), so ibsmd runs as on a host: one thread, its umad descriptor
# read from its event loop.
: "${UMADFIX:=$(cd "$(dirname "$IBSMD")" && pwd)/tests/fixture/umadfix.so}"
. "$TOP_SRCDIR/tests/sim/lib.sh"

net=${DEMO_NET:-$FABRICS/ft2_8.net}
sim_start "$net"
UMADFIX_STATS=$T/ibsmd.umadfix sm_start --sweep-interval 10
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
    "time to subnet up" "$(stat_get sweep.up_seconds) s" \
    "threads" "$(ls "/proc/$SM_PID/task" | wc -l)"
echo
echo "Independent check (ibnetdiscover, dump_fts, smpquery, sminfo):"
fabcheck || fail "the fabric check failed"
echo
diag sminfo 2>/dev/null
sm_stop >/dev/null || true
echo
echo "What the umad device saw ibsmd do with its descriptor (epoll_watched: in"
echo "its event loop's epoll set; reads: read(); polls: poll(), none wanted):"
sed -n 's/^umadfix\[[0-9]*\]: path: /  /p' "$T/ibsmd.umadfix"
