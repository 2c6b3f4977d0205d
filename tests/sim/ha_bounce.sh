#!/bin/bash
# A master whose own link went down and came back yields (issue 31 point
# 2): m (priority 12) on h0 is master, s (priority 5) on h17 stands by.
# h0's cable is pulled: s takes over. The cable comes back: exactly one SM
# says MASTER soon after (sminfo against both ports, from a third host),
# m (the higher) again, and it stays that way (8 samples); the fabric is
# right under it (fabcheck: every route, from the tables read back). Then
# the same with equal priorities (m has the lower GUID, so the higher
# standing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"
# the diags watch from a third host: h0 itself goes away
export SIM_HOST=h9

# until_one_master LIMIT LID...: wait (up to LIMIT s) until exactly one of
# the LIDs says MASTER; prints its LID.
until_one_master() {
	local limit=$1 end last
	shift
	end=$(($(date +%s) + limit))
	while [ "$(date +%s)" -lt "$end" ]; do
		if last=$(ha_one_master 1 "$@"); then
			printf '%s\n' "$last"
			return 0
		fi
		sleep 0.25
	done
	return 1
}

bounce() {
	local pm=$1 ps=$2 what=$3 master
	sim_start "$FABRICS/ft2_8.net"
	ha_start m h0 -p "$pm" $POLL
	ha_wait_up m 60
	ha_start s h17 -p "$ps" $POLL
	ha_wait_state s STANDBY 60
	read -r guid_m lid_m <<<"$(ha_port h0)"
	read -r guid_s lid_s <<<"$(ha_port h17)"
	sim_cmd 'Unlink "h0"' >/dev/null
	ha_wait_sminfo "$lid_s" SMINFO_MASTER 30
	log "$what: s took over while h0's cable is out"
	sleep 3
	sim_cmd 'ReLink "h0"' >/dev/null
	log "$what: h0's cable is back"
	master=$(until_one_master 20 "$lid_m" "$lid_s") ||
	    fail "$what: two masters (or none) 20 s after h0 came back: m $(ha_sminfo "$lid_m"), s $(ha_sminfo "$lid_s")"
	log "$what: one master (LID $master)"
	if [ "$pm" -gt "$ps" ]; then
		[ "$master" = "$lid_m" ] || fail "$what: the master is LID $master, not m's $lid_m (the higher priority)"
	fi
	ha_one_master 8 "$lid_m" "$lid_s" >/dev/null ||
	    fail "$what: a second master appeared: m $(ha_sminfo "$lid_m"), s $(ha_sminfo "$lid_s")"
	if [ "$master" = "$lid_m" ]; then g=$guid_m; else g=$guid_s; fi
	poll_until 30 fabcheck --sm-guid "$g" >/dev/null ||
	    fail "$what: fabric wrong under the master: $(fabcheck --sm-guid "$g" 2>&1 | tail -5)"
	log "$what: one master (LID $master) and the fabric is right"
	ha_stop_all
	sim_stop
}

bounce 12 5 "priorities 12/5"
bounce 5 5 "equal priorities"
