#!/bin/bash
# Balance returns after a heal whatever the SM saw when it started or took
# over (issue 31 point 4). ft3_8, ftree (the default chain), for each cable
# of CABLES (pod0edge0[5]) and each case of CASES (B):
#   A. ibsmd starts with the cable down; the cable comes back;
#   B. m masters a whole fabric, s stands by; the cable goes down, m is
#      killed and s takes over; the cable comes back (on 3f73664: 248
#      routes on the busiest link against 124 afresh).
# After the heal the busiest link for all-to-all CA traffic over the
# tables read back (fabcheck --loads) must be no busier than on the same
# fabric routed afresh (read again after `ibsmctl reroute`), and fabcheck
# --updown --cdg passes (every route, no credit loop).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

NET=$FABRICS/ft3_8.net
: "${CABLES:=pod0edge0[5]}"
: "${CASES:=B}"         # A as well: a fresh start with the cable down
POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3 --sweep-interval 1 -R ftree,updn"

# busiest SM: max_link_load from the tables as read
busiest() {
	local out
	out=$(fabcheck_retry --skip-master --updown --cdg --loads) ||
	    fail "$1: fabric wrong: $(printf '%s\n' "$out" | tail -5)"
	printf '%s\n' "$out" | sed -n 's/.*max_link_load \([0-9]*\).*/\1/p'
}

settle_sm() {           # settle_sm NAME: its LFT Sets stop moving
	settle_on ha_set_count "$1" LinearForwardingTable
}

check_heal() {          # check_heal WHAT SM
	local what=$1 name=$2 healed fresh
	settle_sm "$name"
	healed=$(busiest "$what, healed")
	ha_ctl "$name" reroute >/dev/null || fail "$what: ibsmctl reroute failed"
	settle_sm "$name"
	fresh=$(busiest "$what, routed afresh")
	log "$what: busiest link after the heal $healed routes, routed afresh $fresh"
	[ "$healed" -le "$fresh" ] ||
	    fail "$what: after the heal the busiest link carries $healed all-to-all routes, routed afresh $fresh"
}

case_a() {              # case_a NODE PORT
	sim_start "$NET"
	sim_cmd "Unlink \"$1\"[$2]" >/dev/null
	ha_start a pod0edge0-h0 $POLL
	ha_wait_up a 60
	sim_cmd "ReLink \"$1\"[$2]" >/dev/null
	check_heal "A $1[$2]" a
	ha_stop_all
	sim_stop
	rm -rf "$T/a"
}

case_b() {              # case_b NODE PORT
	sim_start "$NET"
	ha_start m pod0edge0-h0 -p 12 $POLL
	ha_wait_up m 60
	ha_start s pod7edge3-h3 -p 5 $POLL
	ha_wait_state s STANDBY 60
	sim_cmd "Unlink \"$1\"[$2]" >/dev/null
	settle_sm m
	ha_kill m
	ha_wait_state s MASTER 30
	ha_wait_up s 60
	sim_cmd "ReLink \"$1\"[$2]" >/dev/null
	check_heal "B $1[$2]" s
	ha_stop_all
	sim_stop
	rm -rf "$T/m" "$T/s"
}

for cable in $CABLES; do
	node=${cable%[*}; port=${cable#*[}; port=${port%]}
	for c in $CASES; do
		case $c in
		A) case_a "$node" "$port" ;;
		B) case_b "$node" "$port" ;;
		*) fail "CASES: unknown case $c" ;;
		esac
	done
done
