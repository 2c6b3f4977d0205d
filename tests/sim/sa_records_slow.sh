#!/bin/bash
# PortInfoRecords on a fabric with a narrow and a slow link
# (tests/fabrics/slowlink_ft2.net: h5's link 1x, leaf3 port 3 - spine0 port 4
# SDR, everything else 4x QDR): first smpquery must read those widths and
# speeds back from the devices (the fabric is what the file says), then
# every end port's and every switch port's PortInfoRecord (saquery PIR
# LID PORT) must agree with smpquery portinfo on LinkWidthActive,
# LinkSpeedActive, MTUCap and NeighborMTU.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sq() { diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }

sim_start "$FABRICS/slowlink_ft2.net"
sm_start
wait_subnet_up 60
sleep 1

# lid_of NAME: the LID of the node whose description is NAME
lid_of() {
	local lid
	for lid in $(sim_lids); do
		if [ "$(diag smpquery nodedesc "$lid" 2>/dev/null | sed -n 's/^Node Description:\.*//p')" = "$1" ]; then
			echo "$lid"
			return 0
		fi
	done
	return 1
}
h5=$(lid_of h5) || fail "no LID for h5"
leaf3=$(lid_of leaf3) || fail "no LID for leaf3"
spine0=$(lid_of spine0) || fail "no LID for spine0"
h0=$(lid_of h0) || fail "no LID for h0"

# ---- the fabric is as the net file says
pi() { diag smpquery portinfo "$@" 2>/dev/null; }
w=$(val "$(pi "$h5" 1)" LinkWidthActive)
[ "$w" = 1X ] || fail "h5 port 1 LinkWidthActive '$w', the net file says 1x"
w=$(val "$(pi "$h0" 1)" LinkWidthActive)
[ "$w" = 4X ] || fail "h0 port 1 LinkWidthActive '$w', the net file says 4x"
s=$(val "$(pi "$leaf3" 3)" LinkSpeedActive)
[ "$s" = "2.5 Gbps" ] || fail "leaf3 port 3 LinkSpeedActive '$s', the net file says SDR"
s=$(val "$(pi "$spine0" 4)" LinkSpeedActive)
[ "$s" = "2.5 Gbps" ] || fail "spine0 port 4 LinkSpeedActive '$s', the net file says SDR"
s=$(val "$(pi "$leaf3" 4)" LinkSpeedActive)
[ "$s" = "10.0 Gbps" ] || fail "leaf3 port 4 LinkSpeedActive '$s', the net file says QDR"
log "smpquery: h5's link 1X, leaf3/spine0's link 2.5 Gbps, others 4X 10.0 Gbps"

# ---- PortInfoRecord against PortInfo, port by port
n=0
for lid in $(sim_lids); do
	ni=$(diag smpquery nodeinfo "$lid" 2>/dev/null) || continue
	np=$(val "$ni" NumPorts)
	case $(val "$ni" NodeType) in
	Switch) ports=$(seq 1 "$np") ;;
	*) ports=$(val "$ni" LocalPort) ;;
	esac
	for p in $ports; do
		dev=$(pi "$lid" "$p")
		rec=$(sq PIR "$lid/$p")
		[ "$(val "$rec" PortNum)" = "$p" ] ||
		    fail "PortInfoRecord $lid/$p: PortNum '$(val "$rec" PortNum)': $rec"
		for k in LinkWidthActive LinkSpeedActive MtuCap NeighborMTU; do
			[ "$(val "$rec" "$k")" = "$(val "$dev" "$k")" ] ||
			    fail "PortInfoRecord $lid/$p $k '$(val "$rec" "$k")' != PortInfo '$(val "$dev" "$k")'"
		done
		n=$((n + 1))
	done
done
# 8 HCA ports and 6 switches of 4 ports
[ "$n" = 32 ] || fail "compared $n ports, not 32"
log "PortInfoRecord agrees with PortInfo on $n ports (width, speed, MTUCap, NeighborMTU)"

# The slow ones by record too (not only by agreement).
[ "$(val "$(sq PIR "$h5/1")" LinkWidthActive)" = 1X ] || fail "PortInfoRecord of h5 is not 1X"
[ "$(val "$(sq PIR "$leaf3/3")" LinkSpeedActive)" = "2.5 Gbps" ] || fail "PortInfoRecord of leaf3/3 is not SDR"
log "PASS"
