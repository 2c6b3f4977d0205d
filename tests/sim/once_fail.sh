#!/bin/bash
# --once on a port GUID that does not exist fails fast, naming the GUID.
#
# With SM=opensm the exit status is not checked: opensm -o -g <bad GUID>
# prints "Error from osm_opensm_bind" on stdout and exits 0 (OpenSM 3.3.23).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sim_start "$FABRICS/ft2_8.net"
t0=$(date +%s)
sm_run 10 --once --guid 0xdeadbeef
rc=$?
dt=$(($(date +%s) - t0))
log "exit status $rc after ${dt} s"
if [ $rc -eq 124 ] || [ $rc -ge 128 ]; then
	fail "--once with a missing GUID did not exit within 10 s"
fi
if [ "$SM" = opensm ]; then
	grep -qi deadbeef "$T/sm_run.out" "$T/sm_run.err" || fail "the GUID is not named in opensm's output"
	exit 0
fi
[ $rc -ne 0 ] || fail "--once with a missing GUID exited 0"
grep -qi 'deadbeef' "$T/sm_run.err" || {
	cat "$T/sm_run.err" >&2
	fail "stderr does not name the missing GUID 0xdeadbeef"
}
log "stderr: $(head -n 3 "$T/sm_run.err" | tr '\n' ' ')"
