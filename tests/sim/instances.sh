#!/bin/bash
# Two ibsmd instances side by side, each on its own fabric, each with its
# own per-instance configuration; a third on a port already driven is
# refused.
#
# Fabric A is ft2_8 (lib.sh's ibsim), fabric B ring6 (a second ibsim
# started here, on its own IBSIM_SOCKNAME and console FIFO, tracked like
# lib.sh's: stopped by PID, never by name). In both, the SM's port is the
# first HCA's, port GUID 0x0000000000100001, so the two instances differ
# only by their --config-dir (ibsmd.conf, ibsmd.0x0000000000100001.conf),
# --runtime-dir and state_dir:
#   A: common file sm_priority 1, sweep_interval 30, routing [minhop];
#      per-instance file sm_priority 5, sweep_interval 1,
#      routing [ftree, minhop], state_dir A/state;
#   B: no common file; per-instance file sm_priority 11, sweep_interval 0,
#      routing [updn], state_dir B/state.
# Checked from each fabric: sminfo names the SM's port MASTER with that
# instance's priority (the per-instance file wins over the common file);
# fabcheck --updown passes on both (on the ring, updn routes are not all
# shortest: --no-shortest there). Second checks from each instance's
# stats file (in its own state_dir): the routing engine (ftree, updn) and
# the light sweeps (A sweeps every second, B never).
# A third ibsmd started on fabric A with A's runtime directory exits 3,
# naming the port GUID and A's PID, and A goes on undisturbed.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "the per-instance files and the lock are ibsmd's"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable (build ibsmctl first)"

GUID=0x0000000000100001
SOCK_A=$IBSIM_SOCKNAME
SOCK_B=ibsmd-$TEST_NAME-b-$$
SIM_B=""
PID_A=""
PID_B=""

# diag_b TOOL ARGS...: a diag against fabric B (fd 9 is B's console).
diag_b() { IBSIM_SOCKNAME=$SOCK_B diag "$@" 9>&-; }

# Stop what this test started beyond lib.sh's own: the SMs first, then
# ibsim B; lib.sh's cleanup does the rest (ibsim A).
stop_ours() {
	local p
	for p in $PID_A $PID_B; do _stop_pid "$p" 5; done
	PID_A="" PID_B=""
	[ -n "$SIM_B" ] && _stop_pid "$SIM_B" 3
	SIM_B=""
	exec 9>&-
}
trap 'rc=$?; stop_ours; (exit $rc); _cleanup' EXIT

# sim_b_start NETFILE: the second ibsim, as lib.sh's sim_start starts one.
sim_b_start() {
	local i=0
	mkdir -p "$T/b"
	mkfifo "$T/b/ibsim.fifo" || fail "mkfifo failed"
	IBSIM_SOCKNAME=$SOCK_B ibsim -s "$1" <"$T/b/ibsim.fifo" >"$T/b/ibsim.log" 2>&1 8>&- &
	SIM_B=$!
	_track "$SIM_B"
	exec 9>"$T/b/ibsim.fifo"
	until grep -q 'sim> ' "$T/b/ibsim.log" 2>/dev/null; do
		kill -0 "$SIM_B" 2>/dev/null || fail "ibsim B exited at start"
		[ $i -lt 200 ] || fail "ibsim B not ready after 20 s"
		sleep 0.1
		i=$((i + 1))
	done
	i=0
	until diag_b smpquery -D nodedesc 0 >/dev/null 2>&1; do
		[ $i -lt 50 ] || fail "ibsim B does not answer (IBSIM_SOCKNAME=$SOCK_B)"
		sleep 0.1
		i=$((i + 1))
	done
	log "ibsim B up on $(basename "$1") (pid $SIM_B, IBSIM_SOCKNAME=$SOCK_B)"
}

# start NAME SOCK: ibsmd with NAME's config and runtime directories on the
# fabric of SOCK; its PID in $STARTED.
start() {
	local n=$1
	IBSIM_SOCKNAME=$2 LD_PRELOAD=$SIM_PRELOAD "$IBSMD" --config-dir "$T/$n/etc" \
	    --runtime-dir "$T/$n/run" --log-file - \
	    >>"$T/$n/ibsmd.out" 2>>"$T/$n/ibsmd.log" 8>&- 9>&- &
	STARTED=$!
	_track "$STARTED"
	log "ibsmd $n started (pid $STARTED, IBSIM_SOCKNAME=$2)"
}

# wait_up NAME PID: until NAME's stats file says the subnet is up.
wait_up() {
	local i=0
	until grep -qx 'sweep.subnet_up 1' "$T/$1/state/stats" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null || { tail -5 "$T/$1/ibsmd.log" >&2; fail "ibsmd $1 exited before its subnet came up"; }
		[ $i -lt 600 ] || fail "ibsmd $1: subnet not up after 60 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# stat_of NAME KEY: a value from NAME's stats file.
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$T/$1/state/stats"; }

# sminfo_of DIAG: "guid priority state" of the master, as SMInfo reads.
sminfo_of() {
	"$@" sminfo 2>/dev/null |
	    sed -n 's/^sminfo: sm lid [0-9]* sm guid \(0x[0-9a-f]*\), activity count [0-9]* priority \([0-9]*\) state \([0-9]*\).*/\1 \2 \3/p'
}

mkdir -p "$T/a/etc" "$T/b/etc"
cat >"$T/a/etc/ibsmd.conf" <<EOF
# common file of instance A: the per-instance file overrides all three
sm_priority: 1
sweep_interval: 30
routing_engine: [minhop]
EOF
cat >"$T/a/etc/ibsmd.$GUID.conf" <<EOF
sm_priority: 5
sweep_interval: 1
routing_engine: [ftree, minhop]
state_dir: $T/a/state
EOF
cat >"$T/b/etc/ibsmd.$GUID.conf" <<EOF
sm_priority: 11
sweep_interval: 0
routing_engine:
  - updn
state_dir: $T/b/state
EOF

sim_start "$FABRICS/ft2_8.net"
sim_b_start "$FABRICS/ring6.net"
start a "$SOCK_A"
PID_A=$STARTED
start b "$SOCK_B"
PID_B=$STARTED
wait_up a "$PID_A"
wait_up b "$PID_B"
log "both subnets up"

# ---- each fabric, as its own diags read it
read -r g p s <<<"$(sminfo_of diag)"
[ "$g $s" = "0x100001 3" ] || fail "fabric A: sminfo reads SM $g in state $s, not 0x100001 MASTER (3)"
[ "$p" = 5 ] || fail "fabric A: SM priority $p, not 5 (instance A's per-instance file)"
read -r g p s <<<"$(sminfo_of diag_b)"
[ "$g $s" = "0x100001 3" ] || fail "fabric B: sminfo reads SM $g in state $s, not 0x100001 MASTER (3)"
[ "$p" = 11 ] || fail "fabric B: SM priority $p, not 11 (instance B's per-instance file)"
fabcheck --updown >/dev/null || fail "fabric A is wrong"
IBSIM_SOCKNAME=$SOCK_B python3 "$FABCHECK" --preload "$SIM_PRELOAD" --net "$FABRICS/ring6.net" --updown --no-shortest \
    >/dev/null 8>&- 9>&- || fail "fabric B is wrong"
[ "$(diag ibnetdiscover 2>/dev/null | grep -c '^Switch')" = 12 ] || fail "fabric A does not have ft2_8's 12 switches"
[ "$(diag_b ibnetdiscover 2>/dev/null | grep -c '^Switch')" = 6 ] || fail "fabric B does not have ring6's 6 switches"
log "fabric A: MASTER at priority 5; fabric B: MASTER at priority 11; both routed"

# ---- second checks from the stats files
[ "$(stat_of a routing.engine)" = ftree ] || fail "instance A routed with $(stat_of a routing.engine), not ftree"
[ "$(stat_of b routing.engine)" = updn ] || fail "instance B routed with $(stat_of b routing.engine), not updn"
[ "$(stat_of a fabric.switches)" = 12 ] && [ "$(stat_of b fabric.switches)" = 6 ] ||
    fail "instance A saw $(stat_of a fabric.switches) switches, B $(stat_of b fabric.switches): they are not on their own fabrics"
sleep 3
la=$(stat_of a sweep.light_sweeps) lb=$(stat_of b sweep.light_sweeps)
[ "${la:-0}" -ge 2 ] || fail "instance A (sweep_interval 1) made $la light sweeps in 3 s"
[ "${lb:-1}" = 0 ] || fail "instance B (sweep_interval 0) made $lb light sweeps"
[ "$("$IBSMCTL" --runtime-dir "$T/a/run" status --json 8>&- 9>&- |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["priority"])')" = 5 ] ||
    fail "ibsmctl on A's runtime directory does not reach instance A"
log "stats: A routed by ftree and sweeps every second, B by updn and never"

# ---- a third instance on the port A drives
IBSIM_SOCKNAME=$SOCK_A LD_PRELOAD=$SIM_PRELOAD timeout 30 "$IBSMD" --config-dir "$T/a/etc" \
    --runtime-dir "$T/a/run" --state-dir "$T/c/state" --log-file - \
    >"$T/c.out" 2>"$T/c.err" 8>&- 9>&- </dev/null
rc=$?
[ $rc = 3 ] || fail "a third ibsmd on the port instance A drives exited $rc, not 3: $(cat "$T/c.err")"
grep -q "$GUID" "$T/c.err" || fail "the refusal does not name the port GUID: $(cat "$T/c.err")"
grep -Eq "pid ${PID_A}[^0-9]" "$T/c.err" || fail "the refusal does not name instance A's PID $PID_A: $(cat "$T/c.err")"
log "third instance: exit 3, \"$(grep "$GUID" "$T/c.err" | head -1)\""
[ ! -e "$T/c/state/stats" ] || fail "the refused instance wrote a stats file"
kill -0 "$PID_A" 2>/dev/null || fail "instance A died"
read -r g p s <<<"$(sminfo_of diag)"
[ "$g $p $s" = "0x100001 5 3" ] || fail "fabric A after the refused start: SM $g priority $p state $s"
"$IBSMCTL" --runtime-dir "$T/a/run" status >/dev/null 8>&- 9>&- || fail "instance A's control socket is gone"

# ---- both stop cleanly
_stop_pid "$PID_A" 5
[ "$_STOP_STATUS" = 0 ] || fail "instance A exited $_STOP_STATUS on SIGTERM"
PID_A=""
_stop_pid "$PID_B" 5
[ "$_STOP_STATUS" = 0 ] || fail "instance B exited $_STOP_STATUS on SIGTERM"
PID_B=""
exit 0
