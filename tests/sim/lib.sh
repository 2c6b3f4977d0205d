# tests/sim/lib.sh: sourced by every simulated-fabric test.
#
#   . "$(dirname "$0")/lib.sh"
#   skip_unless_sim
#   sim_start "$FABRICS/ft2_8.net"
#   sm_start
#   wait_subnet_up 30
#   fabcheck || fail "fabric is wrong"
#
# Environment (make check exports the first three):
#   IBSMD             the daemon (default ./ibsmd)
#   TOP_SRCDIR        source tree, for net files and fabcheck.py (VPATH builds)
#   ENABLE_SIM_TESTS  "no" skips every sim test (configure --disable-sim-tests)
#   SM=opensm         development mode: run Debian's opensm instead of ibsmd
#                     and wait for "SUBNET UP" in its log
#   KEEP=1            keep the test directory $T (it is printed)
#   UMADFIX           tests/fixture's umadfix.so (make check exports it;
#                     default: tests/fixture/umadfix.so under the current
#                     directory): the simulated host's umad device, what
#                     every simulated client (the SM, the diags, fabcheck)
#                     preloads (SIM_PRELOAD): ibsim's client protocol, the
#                     sysfs libibumad reads, and descriptors with the
#                     kernel's umad semantics (RMPP, request timeouts,
#                     agents), watched by epoll like a kernel's
#   UMAD2SIM          path of ibsim's libumad2sim.so (default: searched);
#                     only for tests that show what the stock simulator
#                     lacks (tests/sim/fixture_opensm.sh)
#   SM_EXTRA_ARGS     extra arguments for every sm_start (word-split)
#
# Every test owns one ibsim, reached through its own IBSIM_SOCKNAME
# (ibsmd-<test>-<pid>), so tests run side by side. The test remembers the PID
# of every process it starts and, on exit or signal, stops exactly those.
#
# ibsim reads console commands (Unlink, Link, ReLink, Baselid, ...) from a
# FIFO that the test keeps open on fd 8 for ibsim's whole life (ibsim spins
# on a closed stdin). sim_cmd writes a command and waits for ibsim's next
# "sim> " prompt, so the command has been applied when it returns.
#
# Links that must be down before the SM starts are part of the fabric: a net
# file line
#     # sim-down: "leaf3"[6]
# makes sim_start send `Unlink "leaf3"[6]` once ibsim is up, before it
# returns, and adds `--down leaf3[6]` to SIM_DOWN_ARGS for fabcheck. The
# cable stays in the file (and in ibsim: `ReLink "leaf3"[6]` restores it).

set -u

TEST_NAME=$(basename "$0" .sh)
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${IBSMD:=./ibsmd}"
: "${SM:=ibsmd}"
: "${ENABLE_SIM_TESTS:=yes}"
: "${SM_EXTRA_ARGS:=}"
FABRICS=$TOP_SRCDIR/tests/fabrics
FABCHECK=$TOP_SRCDIR/tests/sim/fabcheck.py
: "${IBSIM_EXAMPLES:=/usr/share/doc/ibsim-utils/net-examples}"
DIAGS="ibnetdiscover iblinkinfo dump_fts smpdump smpquery sminfo"
# fd 8: the write end of ibsim's console FIFO (closed in every child: 8>&-)

_PIDS=""                        # every PID this test started and has not reaped
SIM_PID=""
SM_PID=""
SM_STARTS=0
SM_LOG=""
SIM_NET=""
SIM_DOWN=""                     # node[port] taken down by sim-down lines
SIM_DOWN_ARGS=()
_T0=$(date +%s.%N)

log() { printf '%s: [%6.2f] %s\n' "$TEST_NAME" "$(_elapsed)" "$*"; }
_elapsed() { awk -v a="$_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

fail() {
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}

skip() {
	printf '%s: SKIP: %s\n' "$TEST_NAME" "$*" >&2
	exit 77
}

_find_umad2sim() {
	local c
	if [ -n "${UMAD2SIM:-}" ]; then
		[ -r "$UMAD2SIM" ] && { echo "$UMAD2SIM"; return 0; }
		return 1
	fi
	for c in /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \
	    /usr/lib/*/umad2sim/libumad2sim.so /usr/lib64/umad2sim/libumad2sim.so \
	    /usr/lib/umad2sim/libumad2sim.so /usr/local/lib/umad2sim/libumad2sim.so; do
		[ -r "$c" ] && { echo "$c"; return 0; }
	done
	return 1
}
UMAD2SIM=$(_find_umad2sim || true)
export UMAD2SIM

# What LD_PRELOAD holds for every simulated client: the umadfix device.
: "${UMADFIX:=$PWD/tests/fixture/umadfix.so}"
SIM_PRELOAD=$UMADFIX
export SIM_PRELOAD UMADFIX

# Exit 77 unless the simulator, its preload library, the diags and the SM to
# test are all there.
skip_unless_sim() {
	local t
	[ "$ENABLE_SIM_TESTS" = no ] && skip "simulated-fabric tests disabled (--disable-sim-tests)"
	command -v ibsim >/dev/null || skip "ibsim not found (Debian package ibsim-utils)"
	[ -r "$UMADFIX" ] || fail "$UMADFIX not built (make check builds it; or: make tests/fixture/umadfix.so)"
	for t in $DIAGS; do
		command -v "$t" >/dev/null || skip "$t not found (Debian package infiniband-diags)"
	done
	command -v python3 >/dev/null || skip "python3 not found"
	[ -r "$FABCHECK" ] || fail "$FABCHECK not found (set TOP_SRCDIR to the source tree)"
	for t in mkfifo timeout; do
		command -v "$t" >/dev/null || skip "$t not found (coreutils)"
	done
	if [ "$SM" = opensm ]; then
		command -v opensm >/dev/null || skip "SM=opensm but opensm is not installed"
	else
		[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable (build ibsmd first)"
	fi
}

# ------------------------------------------------------------------ cleanup

_track() { _PIDS="$_PIDS $1"; }
_untrack() {
	local p out=""
	for p in $_PIDS; do [ "$p" = "$1" ] || out="$out $p"; done
	_PIDS=$out
}

# Stop one PID we started: SIGTERM, up to $2 seconds, then SIGKILL. Sets
# _STOP_STATUS to its exit status (128+n when killed by signal n).
_stop_pid() {
	local pid=$1 grace=${2:-5} i=0 n
	_STOP_STATUS=0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		n=$((grace * 10))
		while kill -0 "$pid" 2>/dev/null && [ $i -lt $n ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "PID $pid still running ${grace}s after SIGTERM: SIGKILL"
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	wait "$pid" 2>/dev/null
	_STOP_STATUS=$?
	_untrack "$pid"
	return 0
}

_show_logs() {
	local f
	for f in "$T"/ibsmd.log "$T"/opensm.*.log "$T"/ibsim.log "$T"/sm_run.err; do
		[ -s "$f" ] || continue
		printf '%s: ---- last lines of %s\n' "$TEST_NAME" "$f" >&2
		grep -v 'parse_port_connection_data: cannot parse remote lid' "$f" | tail -n 40 >&2
	done
}

# libumad2sim (run by the tests that show what the stock simulator lacks)
# makes ./sys-<pid>/ (a fake sysfs) in the current directory of every
# process it is preloaded into and removes it at exit(); one killed by a
# signal leaves it. Remove those whose process is gone (a live one, maybe
# another test's running beside this one, keeps its own). umadfix keeps
# its sysfs in $TMPDIR/umadfix-<pid> and sweeps dead ones itself.
_sysfs_sweep() {
	local d p
	for d in ./sys-[0-9]*; do
		[ -d "$d" ] || continue
		p=${d#./sys-}
		case $p in *[!0-9]*) continue ;; esac
		[ -d "/proc/$p" ] && continue
		rm -rf -- "$d"
	done
}

_cleanup() {
	local rc=$? p
	trap - EXIT INT TERM
	# The SM first, so that it leaves ibsim cleanly; ibsim last.
	for p in $_PIDS; do
		[ "$p" = "$SIM_PID" ] || _stop_pid "$p" 3
	done
	[ -n "$SIM_PID" ] && _stop_pid "$SIM_PID" 3
	exec 8>&-
	_sysfs_sweep
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -n "${T:-}" ] && [ -d "$T" ]; then
		_show_logs
	fi
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		if [ "${KEEP:-0}" = 1 ]; then
			printf '%s: kept %s\n' "$TEST_NAME" "$T" >&2
		else
			rm -rf "$T"
		fi
	fi
	exit "$rc"
}
trap _cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-$TEST_NAME.XXXXXX") || fail "mktemp failed"
IBSIM_SOCKNAME="ibsmd-$TEST_NAME-$$"
export IBSIM_SOCKNAME

# ------------------------------------------------------------------ ibsim

_prompts() { grep -o 'sim> ' "$T/ibsim.log" 2>/dev/null | wc -l; }

# sim_start NETFILE [ibsim args...]: start ibsim on NETFILE and wait until it
# answers; then take down the links named by "# sim-down:" lines.
sim_start() {
	local net=$1 i ref
	shift
	[ -r "$net" ] || fail "net file $net not found"
	[ -z "$SIM_PID" ] || fail "sim_start: ibsim already running"
	SIM_NET=$net
	rm -f "$T/ibsim.fifo"
	mkfifo "$T/ibsim.fifo" || fail "mkfifo failed"
	ibsim -s "$@" "$net" <"$T/ibsim.fifo" >"$T/ibsim.log" 2>&1 &
	SIM_PID=$!
	_track "$SIM_PID"
	# Blocks until ibsim has opened the FIFO (its shell did, before exec).
	exec 8>"$T/ibsim.fifo"
	i=0
	until [ "$(_prompts)" -ge 1 ]; do
		kill -0 "$SIM_PID" 2>/dev/null || { cat "$T/ibsim.log" >&2; fail "ibsim exited at start"; }
		[ $i -lt 200 ] || fail "ibsim not ready after 20 s"
		sleep 0.1
		i=$((i + 1))
	done
	# Ready means a client can attach and get an answer.
	i=0
	until diag smpquery -D nodedesc 0 >/dev/null 2>&1; do
		[ $i -lt 50 ] || fail "ibsim does not answer a NodeDescription Get (IBSIM_SOCKNAME=$IBSIM_SOCKNAME)"
		sleep 0.1
		i=$((i + 1))
	done
	while read -r ref; do
		[ -n "$ref" ] || continue
		sim_cmd "Unlink $ref" >/dev/null
		ref=$(printf '%s' "$ref" | tr -d '"')
		SIM_DOWN="$SIM_DOWN $ref"
		SIM_DOWN_ARGS+=(--down "$ref")
	done <<EOF
$(sed -n 's/^#[[:space:]]*sim-down:[[:space:]]*\("[^"]*"\[[0-9]*\]\).*/\1/p' "$net")
EOF
	log "ibsim up on $(basename "$net") (pid $SIM_PID, IBSIM_SOCKNAME=$IBSIM_SOCKNAME${SIM_DOWN:+, down:$SIM_DOWN})"
}

# sim_stop: stop this test's ibsim (the SM should be stopped first); a new
# sim_start may follow, e.g. to power-cycle the whole fabric.
sim_stop() {
	[ -n "$SIM_PID" ] || return 0
	_stop_pid "$SIM_PID" 3
	exec 8>&-
	log "ibsim stopped"
	SIM_PID=""
	SIM_DOWN=""
	SIM_DOWN_ARGS=()
	mv "$T/ibsim.log" "$T/ibsim.$(date +%s%N).log"
}

# sim_cmd 'Unlink "leaf0"[5]': run one ibsim console command and wait until
# ibsim has processed it; prints what ibsim answered.
sim_cmd() {
	local before off i=0
	[ -n "$SIM_PID" ] || fail "sim_cmd: ibsim is not running"
	before=$(_prompts)
	off=$(stat -c %s "$T/ibsim.log")
	printf '%s\n' "$*" >&8 || fail "sim_cmd: cannot write to ibsim's console"
	printf '%s\n' "$*" >>"$T/sim_cmds.log"
	until [ "$(_prompts)" -gt "$before" ]; do
		kill -0 "$SIM_PID" 2>/dev/null || fail "ibsim died on console command: $*"
		[ $i -lt 100 ] || fail "ibsim did not process console command in 10 s: $*"
		sleep 0.1
		i=$((i + 1))
	done
	tail -c +"$((off + 1))" "$T/ibsim.log" | sed 's/sim> //g' | grep -v '^[[:space:]]*$' || true
}

# sim_cmds CMD...: several console commands at once (one per argument),
# waiting until ibsim has processed them all; what it answered is not
# printed. Much faster than one sim_cmd each for a command per switch.
sim_cmds() {
	local before i=0 c
	[ -n "$SIM_PID" ] || fail "sim_cmds: ibsim is not running"
	before=$(_prompts)
	for c in "$@"; do
		printf '%s\n' "$c" >&8 || fail "sim_cmds: cannot write to ibsim's console"
		printf '%s\n' "$c" >>"$T/sim_cmds.log"
	done
	until [ "$(_prompts)" -ge $((before + $#)) ]; do
		kill -0 "$SIM_PID" 2>/dev/null || fail "ibsim died on console commands: $*"
		[ $i -lt 300 ] || fail "ibsim did not process $# console commands in 30 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# sim_switches: the switch names of the running net file.
sim_switches() {
	sed -n 's/^Switch[[:space:]]\{1,\}[0-9]\{1,\}[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' "$SIM_NET"
}

# sim_loss RATE: ibsim drops RATE % of the packets entering any port of
# every switch (`Error "switch" RATE`); 0 clears it.
sim_loss() {
	local s cmds=()
	for s in $(sim_switches); do
		cmds+=("Error \"$s\" $1")
	done
	sim_cmds "${cmds[@]}"
	log "loss at every switch: $1 %"
}

# sim_example NAME: copy one of ibsim's own example fabrics (installed with
# ibsim-utils, possibly gzipped) into $T and print the copy's path.
sim_example() {
	local src=$IBSIM_EXAMPLES/$1
	if [ -r "$src" ]; then
		cp "$src" "$T/$1"
	elif [ -r "$src.gz" ]; then
		gzip -dc "$src.gz" >"$T/$1"
	else
		fail "$src not found: it is installed by the Debian package ibsim-utils (check that dpkg does not exclude /usr/share/doc)"
	fi
	echo "$T/$1"
}

# diag TOOL ARGS...: run an infiniband-diags tool (or any libibumad client)
# against this test's ibsim.
diag() {
	LD_PRELOAD=$SIM_PRELOAD timeout "${DIAG_TIMEOUT:-120}" "$@" 8>&-
}

# sim_lids: the LIDs the devices hold (every CA port's and switch port
# 0's base LID), ascending, from one ibnetdiscover: loops that ask each
# LID with smpquery ask only these (a LID no port holds costs smpquery
# 3 s of timeouts).
sim_lids() {
	diag ibnetdiscover 2>/dev/null | sed -n \
	    -e 's/.* port 0 lid \([0-9]*\) lmc .*/\1/p' \
	    -e 's/.*# lid \([0-9]*\) lmc .*/\1/p' | sort -nu
}

# sminfo_is_master GUID: sminfo (the fabric's answer to SMInfo Get, sent
# to the SM LID of the local port) reads state MASTER for the port GUID.
sminfo_is_master() {
	local out guid
	out=$(diag sminfo 2>/dev/null) || { log "sminfo failed"; return 1; }
	log "sminfo: $out"
	guid=$(printf '%s\n' "$out" | sed -n 's/.*sm guid \(0x[0-9a-fA-F]*\),.*/\1/p')
	[ -n "$guid" ] && [ "$((guid))" = "$(($1))" ] &&
	    printf '%s\n' "$out" | grep -q 'state 3 SMINFO_MASTER'
}

# fabcheck ARGS...: the independent observer (see tests/sim/fabcheck.py);
# checks the cabling against the running net file too.
fabcheck() {
	local netarg=()
	[ -n "$SIM_NET" ] && netarg=(--net "$SIM_NET")
	python3 "$FABCHECK" --preload "$SIM_PRELOAD" "${netarg[@]}" "$@" 8>&-
}

# poll_until SECONDS CMD...: run CMD every half second until it succeeds;
# returns 1 (CMD's last output shown) if it never did.
poll_until() {
	local limit=$1 out end
	shift
	end=$(awk -v n="$limit" -v t="$(date +%s.%N)" 'BEGIN { printf "%.1f", t + n }')
	while :; do
		if out=$("$@" 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		if awk -v e="$end" -v t="$(date +%s.%N)" 'BEGIN { exit !(t > e) }'; then
			printf '%s\n' "$out"
			return 1
		fi
		sleep 0.5
	done
}

# require_engine NAME...: ibsmd is always built with every routing engine,
# so one it does not know is a failure, never a reason to skip. (-n checks
# the configuration without a port; -c and -P keep the host's files out.)
require_engine() {
	local e
	[ "$SM" = opensm ] && return 0
	for e in "$@"; do
		"$IBSMD" -n -c /dev/null -P /dev/null -R "$e" >"$T/engine.out" 2>&1 ||
		    fail "$IBSMD does not know routing engine $e: $(cat "$T/engine.out")"
	done
}

# ------------------------------------------------------------------ the SM

# Map ibsmd's options onto opensm's for SM=opensm.
_opensm_args() {
	OSM_ARGS=()
	while [ $# -gt 0 ]; do
		case $1 in
		--sweep-interval) OSM_ARGS+=(-s "$2"); shift ;;
		--sweep-interval=*) OSM_ARGS+=(-s "${1#*=}") ;;
		--once) OSM_ARGS+=(-o) ;;
		--guid) OSM_ARGS+=(-g "$2"); shift ;;
		--guid=*) OSM_ARGS+=(-g "${1#*=}") ;;
		--log-level | --log-file | --state-dir | --runtime-dir) shift ;;
		--log-level=* | --log-file=* | --state-dir=* | --runtime-dir=*) ;;
		*) OSM_ARGS+=("$1") ;;
		esac
		shift
	done
}

# sm_start [ibsmd args...]: start the SM in the background on this test's
# ibsim, state in $T/state, runtime files in $T/run, stderr to $T/ibsmd.log.
# With SM=opensm: opensm with its cache (guid2lid) in $T/state and its log
# in $T/opensm.<n>.log (one per start), flushed after every line (-d2), and
# no configuration file (-F /dev/null: a system opensm.conf must not matter).
sm_start() {
	[ -n "$SIM_PID" ] || fail "sm_start: start ibsim first"
	[ -z "$SM_PID" ] || fail "sm_start: the SM is already running (pid $SM_PID)"
	mkdir -p "$T/state" "$T/run"
	SM_STARTS=$((SM_STARTS + 1))
	# shellcheck disable=SC2086
	set -- "$@" $SM_EXTRA_ARGS
	if [ "$SM" = opensm ]; then
		_opensm_args "$@"
		SM_LOG=$T/opensm.$SM_STARTS.log
		OSM_CACHE_DIR=$T/state OSM_TMP_DIR=$T/run LD_PRELOAD=$SIM_PRELOAD \
		    opensm -F /dev/null -d2 -f "$SM_LOG" --dump_files_dir "$T/run" "${OSM_ARGS[@]}" \
		    >>"$T/opensm.out" 2>&1 8>&- &
	else
		# The stats file is the SM's answer to "is the subnet up": never
		# let the previous instance's one answer for this one.
		rm -f "$T/state/stats"
		SM_LOG=$T/ibsmd.log
		echo "---- sm_start $SM_STARTS: $IBSMD --state-dir $T/state --runtime-dir $T/run --log-file - $*" >>"$SM_LOG"
		LD_PRELOAD=$SIM_PRELOAD "$IBSMD" --state-dir "$T/state" --runtime-dir "$T/run" \
		    --log-file - "$@" >>"$T/ibsmd.out" 2>>"$SM_LOG" 8>&- &
	fi
	SM_PID=$!
	_track "$SM_PID"
	log "$SM started (pid $SM_PID)${*:+ with $*}"
}

# sm_stop: SIGTERM, wait, SIGKILL after SM_STOP_GRACE (5) seconds; returns
# the SM's exit status (143 = died of SIGTERM, 137 = had to be killed).
sm_stop() {
	local pid=$SM_PID
	[ -n "$pid" ] || return 0
	_stop_pid "$pid" "${SM_STOP_GRACE:-5}"
	SM_PID=""
	log "$SM stopped (status $_STOP_STATUS)"
	return "$_STOP_STATUS"
}

# sm_run SECONDS [args...]: run the SM in the foreground (e.g. --once), with
# a time limit; stdout to $T/sm_run.out, stderr to $T/sm_run.err; returns its
# exit status (124 on timeout).
sm_run() {
	local limit=$1 rc
	shift
	mkdir -p "$T/state" "$T/run"
	# shellcheck disable=SC2086
	set -- "$@" $SM_EXTRA_ARGS
	if [ "$SM" = opensm ]; then
		_opensm_args "$@"
		OSM_CACHE_DIR=$T/state OSM_TMP_DIR=$T/run LD_PRELOAD=$SIM_PRELOAD \
		    timeout -k 2 "$limit" opensm -F /dev/null -d2 -f "$T/opensm.run.log" \
		    --dump_files_dir "$T/run" "${OSM_ARGS[@]}" \
		    >"$T/sm_run.out" 2>"$T/sm_run.err" 8>&- </dev/null
		rc=$?
	else
		LD_PRELOAD=$SIM_PRELOAD timeout -k 2 "$limit" "$IBSMD" --state-dir "$T/state" \
		    --runtime-dir "$T/run" "$@" >"$T/sm_run.out" 2>"$T/sm_run.err" 8>&- </dev/null
		rc=$?
	fi
	return $rc
}

# True once the running SM says the subnet is up.
sm_is_up() {
	if [ "$SM" = opensm ]; then
		grep -q 'SUBNET UP' "$SM_LOG" 2>/dev/null
	else
		grep -qx 'sweep.subnet_up 1' "$T/state/stats" 2>/dev/null
	fi
}

# wait_subnet_up SECONDS: wait for the SM's "subnet up" (ibsmd: a line
# `sweep.subnet_up 1` in $T/state/stats; opensm: SUBNET UP in this start's log).
wait_subnet_up() {
	local limit=${1:-60} n i=0 t0
	n=$((limit * 10))
	t0=$(_elapsed)
	[ -n "$SM_PID" ] || fail "wait_subnet_up: the SM is not running"
	until sm_is_up; do
		if ! kill -0 "$SM_PID" 2>/dev/null; then
			wait "$SM_PID" 2>/dev/null
			n=$?
			_untrack "$SM_PID"
			SM_PID=""
			fail "$SM exited (status $n) before the subnet came up"
		fi
		[ $i -lt $n ] || fail "subnet not up after $limit s"
		sleep 0.1
		i=$((i + 1))
	done
	log "subnet up ($(awk -v a="$t0" -v b="$(_elapsed)" 'BEGIN { printf "%.1f", b - a }') s after waiting)"
}

# stat_get KEY [DEFAULT]: a value from ibsmd's stats file; DEFAULT (or
# nothing) when the key is absent; status 1 when there is no stats file.
# sets_written FILE ATTR: SMP Sets of attribute ATTR (PortInfo, SwitchInfo,
# LinearForwardingTable, P_KeyTable, MulticastForwardingTable) that the SM
# started with UMADFIX_STATS=FILE wrote in its whole life, as the fixture
# counted them where the SMPs leave the process (read after sm_stop).
# Fails when the file holds no count (the SM not stopped, or started
# without UMADFIX_STATS).
sets_written() {
	local id
	id=$(set_attr_id "$2") || return 2
	[ -r "$1" ] && grep -q 'sets: smp_sets' "$1" || return 1
	awk -v id="$id" '/sets: smp_sets/ { for (i = 4; i <= NF; i++) {
		split($i, a, ":"); if (a[1] == id) n += a[2] } } END { print n + 0 }' "$1"
}

set_attr_id() {
	case $1 in
	PortInfo) echo 0x0015 ;; SwitchInfo) echo 0x0011 ;;
	LinearForwardingTable) echo 0x0019 ;; P_KeyTable) echo 0x0016 ;;
	MulticastForwardingTable) echo 0x001b ;;
	SLtoVLMappingTable) echo 0x0017 ;; VLArbitrationTable) echo 0x0018 ;;
	*) return 2 ;;
	esac
}

# sets_now FILE ATTR: SMP Sets of attribute ATTR (as sets_written) that the
# SM started with UMADFIX_SETS=FILE has written so far, as the fixture
# counts them where the SMPs leave the process; readable while it runs.
# Fails when the file is missing (the SM started without UMADFIX_SETS).
sets_now() {
	local id
	id=$(set_attr_id "$2") || return 2
	[ -r "$1" ] || return 1
	od -An -v -t u8 -w16 "$1" | awk -v id=$((id)) '$1 == id { n = $2 }
	    END { print n + 0 }'
}

# settle_on CMD: wait until CMD's output has not changed for 4 s (a
# counter of writes: the SM has finished reacting)
settle_on() {
	local a b
	a=$("$@")
	while :; do
		sleep 4
		b=$("$@")
		[ "$a" = "$b" ] && break
		a=$b
	done
}

# fabcheck_retry ARGS: fabcheck, again (up to three times) when a tool
# failed (exit 2: dump_fts may lose an SMP to a sweep running beside it)
fabcheck_retry() {
	local rc
	for _ in 1 2 3; do
		fabcheck "$@"
		rc=$?
		[ "$rc" -ne 2 ] && return "$rc"
		sleep 1
	done
	return "$rc"
}

# client_rereg_sets FILE: PortInfo Sets with ClientReregister the SM wrote,
# as the fixture counted them (see sets_written).
client_rereg_sets() {
	[ -r "$1" ] || return 1
	awk '/sets: portinfo_sets/ { for (i = 4; i < NF; i++)
		if ($i == "client_rereg_sets") n += $(i + 1) } END { print n + 0 }' "$1"
}

# mkey_enforce: from now on the simulated devices enforce M_Key
# (tests/fixture/mkeyfix.c): every simulated client started after this
# call (the SM, the diags, a rogue) shares one state, $T/mkey.state.
mkey_enforce() {
	UMADFIX_MKEY=$T/mkey.state
	export UMADFIX_MKEY
	log "M_Key enforced by the simulated devices ($UMADFIX_MKEY)"
}

# mkey_stat FILE FIELD: the sum of FIELD (checked, passed, hidden,
# dropped_gets, dropped_sets, dropped_repress, traps, lease_expiries,
# unresolved, unkeyed, probes, probes_failed) over the "mkey:" lines of a
# UMADFIX_STATS file (each process appends one at exit); 0 when there is
# none.
mkey_stat() {
	[ -r "$1" ] || { echo 0; return 0; }
	awk -v k="$2" '/ mkey: / { for (i = 3; i < NF; i++) if ($i == k) n += $(i + 1) }
	    END { print n + 0 }' "$1"
}

# mkey_port GUID [FIELD]: what the simulated port (a CA port's GUID, or a
# switch's port 0 GUID) holds, as tests/fixture/mkeystate prints it from
# the state file: the whole line, or one field (lid, smlid, mkey, prot,
# lease, viol, lease_left_ms); nothing when no SMP reached it yet.
mkey_port() {
	local g
	g=$(printf '0x%016x' "$(($1))")
	"${MKEYSTATE:-$PWD/tests/fixture/mkeystate}" "$UMADFIX_MKEY" |
	    awk -v g="$g" -v f="${2:-}" '$2 == g { if (f == "") { print; exit }
		for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}

stat_get() {
	local f=$T/state/stats v
	[ -r "$f" ] || { printf '%s\n' "${2:-}"; return 1; }
	v=$(awk -v k="$1" '$1 == k { v = $2; f = 1 } END { if (f) print v }' "$f")
	printf '%s\n' "${v:-${2:-}}"
}
