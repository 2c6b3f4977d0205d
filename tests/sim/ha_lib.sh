# tests/sim/ha_lib.sh: several SMs on one simulated fabric. Sourced by the
# ha_*.sh tests after lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/ha_lib.sh"
#   skip_unless_sim; ha_skip_unless
#   sim_start "$FABRICS/ft2_8.net"
#   ha_start m h0 -p 12
#   ha_start s h17 -p 5
#   ha_wait_state s STANDBY 30
#
# Without HA_PARTITIONS, ibsmd reads no partitions file (every port a full
# member of the default partition, as OpenSM without one). Each SM has a NAME: its state in $T/NAME/state, its control socket in
# $T/NAME/run, its log in $T/NAME.log, attached to the node HOST of the net
# file (SIM_HOST; ibsim gives each node's issm to one client only). Every
# PID is tracked as lib.sh's are and stopped by PID, never by name. The
# observers are the diags (sminfo against each SM's port LID, dump_fts,
# smpquery, fabcheck); ibsmctl answers for the counters an SM keeps (SMP
# Sets sent), which no diag can see.

: "${IBSMCTL:=./ibsmctl}"
HA_NAMES=""

ha_skip_unless() {
	[ "$SM" = ibsmd ] || skip "the HA tests drive two ibsmd by name (SM=$SM)"
	[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable (build ibsmctl first)"
}

_ha_pid() { eval "printf '%s' \"\${HA_PID_$1:-}\""; }

# ha_start NAME HOST [ibsmd args...]: with $T/NAME.conf as its ibsmd.conf
# when that file exists (reload tests change it), else none.
ha_start() {
	local name=$1 host=$2 pid conf
	shift 2
	mkdir -p "$T/$name/state" "$T/$name/run"
	echo "---- ha_start $name on $host: $*" >>"$T/$name.log"
	conf=/dev/null
	[ -f "$T/$name.conf" ] && conf=$T/$name.conf
	SIM_HOST=$host LD_PRELOAD=$SIM_PRELOAD "$IBSMD" --state-dir "$T/$name/state" \
	    --runtime-dir "$T/$name/run" --log-file - -c "$conf" -P "${HA_PARTITIONS:-$T/no-partitions.conf}" -R minhop \
	    "$@" >>"$T/$name.out" 2>>"$T/$name.log" 8>&- &
	pid=$!
	_track "$pid"
	eval "HA_PID_$name=$pid"
	case " $HA_NAMES " in *" $name "*) ;; *) HA_NAMES="$HA_NAMES $name" ;; esac
	log "$name: ibsmd on $host (pid $pid) $*"
}

# ha_opensm NAME HOST [opensm args...]: OpenSM as one of the SMs, polling
# its master every 0.5 s, 2 retries (sminfo_polling_timeout,
# polling_retry_number); no other configuration file is read.
ha_opensm() {
	local name=$1 host=$2 pid
	shift 2
	command -v opensm >/dev/null || skip "opensm not installed"
	mkdir -p "$T/$name/state"
	printf 'sminfo_polling_timeout 500\npolling_retry_number 2\n' >"$T/$name/opensm.conf"
	SIM_HOST=$host OSM_CACHE_DIR=$T/$name/state OSM_TMP_DIR=$T/$name/state \
	    LD_PRELOAD=$SIM_PRELOAD opensm -F "$T/$name/opensm.conf" -d2 -f "$T/$name.log" \
	    --dump_files_dir "$T/$name/state" "$@" >>"$T/$name.out" 2>&1 8>&- &
	pid=$!
	_track "$pid"
	eval "HA_PID_$name=$pid"
	case " $HA_NAMES " in *" $name "*) ;; *) HA_NAMES="$HA_NAMES $name" ;; esac
	log "$name: opensm on $host (pid $pid) $*"
}

# ha_wait_opensm_up NAME SECONDS: OpenSM's log says SUBNET UP.
ha_wait_opensm_up() {
	local name=$1 limit=${2:-60} i=0
	until grep -q 'SUBNET UP' "$T/$name.log" 2>/dev/null; do
		ha_alive "$name" || fail "$name (opensm) exited"
		[ $i -lt $((limit * 10)) ] || fail "$name (opensm): no SUBNET UP after $limit s"
		sleep 0.1
		i=$((i + 1))
	done
	log "$name: subnet up (opensm)"
}

# ha_one_master SAMPLES LID...: sminfo against every LID, SAMPLES times a
# quarter second apart; each time exactly one says MASTER. Prints the
# LID of the master seen last.
ha_one_master() {
	local n=$1 i lid st masters last=""
	shift
	for ((i = 0; i < n; i++)); do
		masters=0
		for lid in "$@"; do
			st=$(ha_sminfo_state "$lid" || true)
			[ "$st" = SMINFO_MASTER ] && { masters=$((masters + 1)); last=$lid; }
		done
		[ "$masters" = 1 ] || { echo "sample $i: $masters masters"; return 1; }
		sleep 0.25
	done
	echo "$last"
}

# ha_kill NAME [SIGNAL]: SIGKILL by default (a crash), SIGTERM with TERM.
ha_kill() {
	local pid
	pid=$(_ha_pid "$1")
	[ -n "$pid" ] || fail "ha_kill: $1 is not running"
	if [ "${2:-KILL}" = TERM ]; then
		_stop_pid "$pid" 5
	else
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		_untrack "$pid"
	fi
	eval "HA_PID_$1="
	log "$1: stopped with SIG${2:-KILL}"
}

# ha_alive NAME: the SM process is still running.
ha_alive() {
	local pid
	pid=$(_ha_pid "$1")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

ha_ctl() {
	local name=$1
	shift
	"$IBSMCTL" --runtime-dir "$T/$name/run" "$@" 8>&-
}

# jget KEY...: a value from the JSON document on stdin (null: empty).
ha_jget() {
	python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print("" if v is None else v)' "$@"
}

# ha_status NAME KEY...: one value of NAME's live status (ibsmctl).
ha_status() {
	local name=$1
	shift
	ha_ctl "$name" status --json 2>/dev/null | ha_jget "$@"
}

# ha_sets NAME: SMP Sets NAME has sent, by attribute, from its live
# counters (mad.counters.smp.Set.<attribute>.sent): "PortInfo:3
# LinearForwardingTable:2 ..." (only nonzero).
ha_sets() {
	ha_ctl "$1" status --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["mad"]["counters"].get("smp", {}).get("Set", {})
print(" ".join("%s:%d" % (a, x["sent"]) for a, x in c.items() if x["sent"] > 0))'
}

# ha_set_count NAME ATTRIBUTE: Sets of one attribute NAME has sent.
ha_set_count() {
	ha_ctl "$1" status --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["mad"]["counters"].get("smp", {}).get("Set", {})
print(c.get(sys.argv[1], {}).get("sent", 0))' "$2"
}

# ha_port NODE: "GUID LID" of port 1 of CA NODE, as the fabric says
# (ibnetdiscover through fabcheck --dump-lids).
ha_port() {
	fabcheck --skip-master --dump-lids "$T/lids.tmp" >/dev/null 2>&1 || true
	awk -v n="\"$1\"[1]" '$4 == n { print $1, $2 }' "$T/lids.tmp"
}

# ha_sminfo LID: "STATE PRIORITY GUID" of the SM at LID, from sminfo.
ha_sminfo() {
	local out
	local st pr g
	# shellcheck disable=SC2086 # "-D 0": two words
	out=$(diag sminfo $1 2>/dev/null) || return 1
	read -r st pr g <<<"$(printf '%s\n' "$out" | sed -n 's/.*sm guid \(0x[0-9a-f]*\), activity count [0-9]* priority \([0-9]*\) state \([0-9]\) \(SMINFO_[A-Z]*\).*/\4 \2 \1/p')"
	[ -n "$g" ] || return 1
	printf '%s %s 0x%016x\n' "$st" "$pr" "$g"
}

# ha_sminfo_state LID: SMINFO_MASTER, SMINFO_STANDBY...
ha_sminfo_state() { ha_sminfo "$1" | awk '{ print $1 }'; }

# ha_sminfo_at HOST: the state of the SM on HOST, asked from HOST itself
# (sminfo -D 0: its own port, no switch on the way, so no loss either).
ha_sminfo_at() { SIM_HOST=$1 ha_sminfo "-D 0" | awk '{ print $1 }'; }

# ha_wait_state NAME STATE SECONDS: NAME's own status says STATE
# (MASTER, STANDBY...); fails when NAME died or it took longer.
ha_wait_state() {
	local name=$1 want=$2 limit=${3:-60} i=0 got=""
	while [ $i -lt $((limit * 5)) ]; do
		ha_alive "$name" || fail "$name exited while waiting for $want"
		got=$(ha_status "$name" sm_state 2>/dev/null || true)
		[ "$got" = "$want" ] && { log "$name: $want"; return 0; }
		sleep 0.2
		i=$((i + 1))
	done
	fail "$name is ${got:-unreachable}, not $want, after $limit s"
}

# ha_wait_up NAME SECONDS: NAME brought the subnet up (stats file).
ha_wait_up() {
	local name=$1 limit=${2:-60} i=0
	until grep -qx 'sweep.subnet_up 1' "$T/$name/state/stats" 2>/dev/null; do
		ha_alive "$name" || fail "$name exited before the subnet came up"
		[ $i -lt $((limit * 10)) ] || fail "$name: subnet not up after $limit s"
		sleep 0.1
		i=$((i + 1))
	done
	log "$name: subnet up"
}

# ha_wait_sminfo LID STATE SECONDS: sminfo at LID says STATE.
ha_wait_sminfo() {
	local lid=$1 want=$2 limit=${3:-60} i=0 got=""
	while [ $i -lt $((limit * 5)) ]; do
		got=$(ha_sminfo_state "$lid" || true)
		[ "$got" = "$want" ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "sminfo at LID $lid says ${got:-nothing}, not $want, after $limit s"
}

# ha_lfts FILE: every switch's LFT as dump_fts reads it (sorted).
ha_lfts() {
	diag dump_fts 2>/dev/null | grep -v '^ibwarn' | sort >"$1"
	[ -s "$1" ] || fail "dump_fts read nothing"
}

ha_stop_all() {
	local n pid
	for n in $HA_NAMES; do
		pid=$(_ha_pid "$n")
		[ -n "$pid" ] && _stop_pid "$pid" 5
		eval "HA_PID_$n="
	done
}

_ha_show_logs() {
	local n
	for n in $HA_NAMES; do
		[ -s "$T/$n.log" ] || continue
		printf '%s: ---- last lines of %s.log\n' "$TEST_NAME" "$n" >&2
		tail -n 30 "$T/$n.log" >&2
	done
}

trap 'rc=$?; [ $rc -ne 0 ] && [ $rc -ne 77 ] && _ha_show_logs; ha_stop_all; (exit $rc); _cleanup' EXIT
