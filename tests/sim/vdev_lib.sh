# tests/sim/vdev_lib.sh: simulated virtualization-capable HCAs, for tests
# that source it after lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/vdev_lib.sh"
#   skip_unless_sim; skip_unless_vdev
#   sim_start "$FABRICS/ft2_8.net"
#   vdev_start h0 -v 4 -g 32     # before the SM: it must see the devices
#   sm_start ...
#   vdev_cmd h0 vport 1 up 0x0002c90300001001     # a VM starts
#   vdev_migrate h0 1 h1 2 0x0002c90300001001      # it moves to h1 vport 2
#   vdev_cmd h0 dump                                # what the device holds
#   guidreq h0 set 0 1=0 2=0     # the mlx4 driver asks for alias GUIDs
#   diag smpquery guids -D 0,1,1 # observers see the device (interception)
#
# One vdev process per simulated host (tests/fixture/vdev.c has the
# options and commands): it attaches to ibsim as the host's SM client, so
# no SM may run on a vdev host, and ibsim takes at most 10 clients in all
# (the SM, every vdev and each diag while it runs). UMADFIX_VDEV (exported
# here) names the directory where each vdev describes its port; every
# process started with $SIM_PRELOAD then sees those ports with the
# virtualization capability bits and their GUIDInfo redirected to the vdev.
#
# Environment: VDEV, GUIDREQ (default: tests/fixture/ under the build
# directory, the current one under make check).

: "${VDEV:=$PWD/tests/fixture/vdev}"
: "${GUIDREQ:=$PWD/tests/fixture/guidreq}"
: "${SMPSET:=$PWD/tests/fixture/smpset}"
VDEV_DIR=$T/vdev
mkdir -p "$VDEV_DIR"
UMADFIX_VDEV=$VDEV_DIR
export UMADFIX_VDEV
declare -A _VDEV_PID=()

# The interception lives in umadfix: without it the devices are invisible.
skip_unless_vdev() {
	[ -x "$VDEV" ] || fail "$VDEV not built (make check builds it)"
	[ -x "$GUIDREQ" ] || fail "$GUIDREQ not built (make check builds it)"
}

# vdev_start HOST [vdev options]: attach a simulated firmware to HOST's
# port 1 and wait until it has described itself.
vdev_start() {
	local host=$1 i=0
	shift
	[ -z "${_VDEV_PID[$host]:-}" ] || fail "vdev_start: $host already has a vdev"
	rm -f "$VDEV_DIR/$host.vdev"
	SIM_HOST=$host SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD "$VDEV" \
	    -s "$T/vdev-$host.sock" -d "$VDEV_DIR" "$@" \
	    >>"$T/vdev-$host.log" 2>&1 8>&- </dev/null &
	_VDEV_PID[$host]=$!
	_track "$!"
	until [ -s "$VDEV_DIR/$host.vdev" ] && [ -S "$T/vdev-$host.sock" ]; do
		kill -0 "${_VDEV_PID[$host]}" 2>/dev/null ||
		    { cat "$T/vdev-$host.log" >&2; fail "vdev on $host exited at start"; }
		[ $i -lt 100 ] || fail "vdev on $host not ready after 10 s"
		sleep 0.1
		i=$((i + 1))
	done
	log "vdev on $host (pid ${_VDEV_PID[$host]}): $(cat "$VDEV_DIR/$host.vdev")"
}

# vdev_stop HOST: stop it and withdraw its description.
vdev_stop() {
	local host=$1
	[ -n "${_VDEV_PID[$host]:-}" ] || return 0
	_stop_pid "${_VDEV_PID[$host]}" 3
	unset "_VDEV_PID[$host]"
	rm -f "$VDEV_DIR/$host.vdev"
}

# vdev_cmd HOST WORDS...: one control command; prints the answer; status 1
# if the device said "error".
vdev_cmd() {
	local host=$1
	shift
	[ -S "$T/vdev-$host.sock" ] || fail "vdev_cmd: no vdev on $host"
	printf '%s\n' "vdev $host: $*" >>"$T/vdev_cmds.log"
	timeout 30 "$VDEV" -C "$T/vdev-$host.sock" "$@" 8>&-
}

# vdev_migrate HOSTA VPORTA HOSTB VPORTB GUID [up options]: a VM moves.
vdev_migrate() {
	local ha=$1 va=$2 hb=$3 vb=$4 guid=$5
	shift 5
	vdev_cmd "$ha" vport "$va" down >/dev/null || fail "vdev_migrate: down on $ha failed"
	vdev_cmd "$hb" vport "$vb" up "$guid" "$@" >/dev/null ||
	    fail "vdev_migrate: up on $hb failed"
}

# vdev_field HOST VPORT FIELD: one field of `dump`'s vport line (state,
# lid, lidreq, lidby, guid, vnode, rereg, pkeys).
vdev_field() {
	vdev_cmd "$1" dump | awk -v v="$2" -v f="$3" '
	    $1 == "vport" && $2 == v { for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}

# guidreq HOST ARGS...: GUIDInfoRecord Set/Delete/Get from HOST's port
# (tests/fixture/guidreq.c), as the host's mlx4 driver sends them.
guidreq() {
	local host=$1
	shift
	SIM_HOST=$host LD_PRELOAD=$SIM_PRELOAD timeout 60 "$GUIDREQ" "$@" 8>&-
}

# smpset ARGS...: SubnSet of any attribute (tests/fixture/smpset.c: -D path
# or -L lid, attribute, modifier, hex data), printed like smpdump.
smpset() {
	diag "$SMPSET" "$@"
}
