#!/bin/bash
# vports (vSwitch SR-IOV) managed by ibsmd, observed on the simulated
# devices (vdev dump: what the firmware holds), with dump_fts and smpquery:
#   - 4 virtualization-capable hosts of 5 vports on ft2_8 (h1, h5, h9, h13,
#     one per leaf): vports 1-3 LIDRequired, vport 4 without (it answers to
#     the physical port's LID), vport 5 down;
#   - every LIDRequired vport gets a LID of its own, unique, written to
#     VPortInfo, and is ACTIVE; dump_fts forwards each vport LID in every
#     switch exactly where its physical port's LID goes;
#   - P_Keys: each vport's VPortPKeyTable per partitions.conf (two vports of
#     h1 in different partitions); the switch port facing h1 holds the
#     union, h1's physical port none of its VMs' keys (issue 23 point 5);
#   - PathRecords (saquery from h0) between vports: none between the two h1
#     vports in different partitions, one with green's key between h5 and
#     h9's green vports, addressed to their own LIDs and GUIDs;
#   - the LIDs come back after a restart of ibsmd with the vports down and
#     up again (guid2lid by vport GUID);
#   - a VM migration (h1 vport 1 down, h13 vport 5 up with its GUID): the
#     same LID, at most one LFT block written per switch, dump_fts shows
#     the new exit ports; a VM stop likewise;
#   - virtualization disabled: a VM that starts stays INIT without a LID;
#   - virtualization off: no vport attribute reaches any device; a port
#     without the capability bit (h2: alias GUIDs only) never gets one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
skip_unless_sim
skip_unless_vdev

: "${IBSMCTL:=./ibsmctl}"
HOSTS="h1 h5 h9 h13"
vguid() { printf '0x00c0ffee%04x%04x' "${1#h}" "$2"; }

sim_start "$FABRICS/ft2_8.net"
for h in $HOSTS; do
	vdev_start "$h" -v 5 -k 32 -t
done
vdev_start h2 -g 16          # alias GUIDs only: no virtualization bit

for h in $HOSTS; do
	for i in 1 2 3; do
		vdev_cmd "$h" vport "$i" up "$(vguid "$h" "$i")" lidreq >/dev/null ||
		    fail "vport $h/$i up"
	done
	vdev_cmd "$h" vport 4 up "$(vguid "$h" 4)" nolidreq >/dev/null ||
	    fail "vport $h/4 up"
done

RED=$(vguid h1 1)
BLUE=$(vguid h1 2)
cat >"$T/partitions.conf" <<EOP
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
red=0x0010 : $RED=full ;
blue=0x0020 : $BLUE=full ;
green=0x0030 : $(vguid h5 1)=full, $(vguid h9 1)=full ;
EOP

# phys_lid HOST: the LID of the host's port, as the device says
phys_lid() { vdev_cmd "$1" dump | awk '$1 == "host" { print $10 }'; }
vfield() { vdev_field "$1" "$2" "$3"; }

# all_active: every vport 1-4 of every host ACTIVE with a LID
all_active() {
	local h i
	for h in $HOSTS; do
		for i in 1 2 3 4; do
			[ "$(vfield "$h" "$i" state)" = active ] || return 1
			[ "$(vfield "$h" "$i" lid)" != 0 ] || return 1
		done
	done
}

# fts: dump_fts once into $T/fts.txt
fts() { diag dump_fts >"$T/fts.txt" 2>/dev/null || fail "dump_fts failed"; }
# exits LID: "switch-guid:port" for LID in every switch of $T/fts.txt
exits() {
	awk -v lid="$1" '
	    function hex(s,   i, n) {
		n = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	    }
	    /^Unicast lids/ { sw = $0; sub(/.*guid /, "", sw); sub(/ .*/, "", sw) }
	    /^0x[0-9a-fA-F]+ [0-9]+/ && hex($1) == lid { print sw ":" $2 }
	' "$T/fts.txt"
}
# same_exits VLID PLID WHAT: the vport LID forwards where the physical one does
same_exits() {
	local a b
	a=$(exits "$1" | sort)
	b=$(exits "$2" | sort)
	[ -n "$b" ] || fail "$3: LID $2 is in no switch's LFT"
	[ "$a" = "$b" ] || fail "$3: LID $1 forwards as
$a
but its physical port's LID $2 as
$b"
}

check_lids_and_routes() {
	local h i lid plid seen=" "
	fts
	for h in $HOSTS; do
		plid=$(phys_lid "$h")
		for i in 1 2 3; do
			lid=$(vfield "$h" "$i" lid)
			[ "$lid" != "$plid" ] || fail "$h vport $i (LIDRequired) shares $plid"
			case $seen in *" $lid "*) fail "vport LID $lid given twice" ;; esac
			seen="$seen$lid "
			same_exits "$lid" "$plid" "$h vport $i"
			VLID[$h.$i]=$lid
		done
		[ "$(vfield "$h" 4 lid)" = "$plid" ] ||
		    fail "$h vport 4 (no LIDRequired) has LID $(vfield "$h" 4 lid), not $plid"
		[ "$(vfield "$h" 5 state)" = down ] || fail "$h vport 5 is not down"
	done
	log "vport LIDs:$seen"
}
declare -A VLID=()

# ---------------------------------------------------------------- enabled
sm_start --virtualization enabled -P "$T/partitions.conf" -s 1
wait_subnet_up 90
poll_until 30 all_active >/dev/null || fail "vports not all ACTIVE: $(vdev_cmd h1 dump)"
check_lids_and_routes
declare -A FIRST=()
for k in "${!VLID[@]}"; do FIRST[$k]=${VLID[$k]}; done
log "stats: $(grep '^vports\.' "$T/state/stats" | tr '\n' ' ')"

# P_Keys: red for h1/1, blue for h1/2, Default limited for all
pk1=$(vfield h1 1 pkeys)
pk2=$(vfield h1 2 pkeys)
pk3=$(vfield h1 3 pkeys)
log "h1 vport pkeys: 1 $pk1, 2 $pk2, 3 $pk3"
case $pk1 in *0x8010*) ;; *) fail "h1 vport 1 lacks red 0x8010: $pk1" ;; esac
case $pk1 in *0x8020*|*0x0020*) fail "h1 vport 1 has blue: $pk1" ;; esac
case $pk2 in *0x8020*) ;; *) fail "h1 vport 2 lacks blue 0x8020: $pk2" ;; esac
case $pk2 in *0x8010*|*0x0010*) fail "h1 vport 2 has red: $pk2" ;; esac
case $pk3 in 0:0x7fff) ;; *) fail "h1 vport 3: not just limited Default: $pk3" ;; esac
phys=$(diag smpquery pkeys -D 0,1,2 2>/dev/null)
swp=$(diag smpquery pkeys -D 0,1 2 2>/dev/null)
log "h1 physical P_Keys: $(printf '%s' "$phys" | tr '\n' ' '); the switch port facing it: $(printf '%s' "$swp" | tr '\n' ' ')"
printf '%s\n' "$phys" | grep -q '0x8010\|0x8020' && fail "h1's port holds its VMs' red or blue: $phys"
printf '%s\n' "$swp" | grep -q '0x8010' || fail "the switch port facing h1 lacks red 0x8010"
printf '%s\n' "$swp" | grep -q '0x8020' || fail "the switch port facing h1 lacks blue 0x8020"
# a host whose vports name no partition has neither
phys=$(diag smpquery pkeys -D 0,1,5,2,1 2>/dev/null)
printf '%s\n' "$phys" | grep -q '0x8010\|0x8020' && fail "h5's port has red or blue: $phys"

# PathRecords between vports, scoped by their own tables
# pr SLID DLID: saquery's PathRecord text (empty: none)
pr() { diag saquery -p --src-to-dst "$1:$2" 2>/dev/null | grep -v '^ibwarn'; }
prf() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.]*[[:space:]]*//p" | head -1; }
out=$(pr "${VLID[h1.1]}" "${VLID[h1.2]}")
[ -z "$(prf "$out" dlid)" ] || fail "h1 vports 1 (red) and 2 (blue) got a PathRecord: $out"
out=$(pr "${VLID[h1.1]}" "${VLID[h1.3]}")
[ -z "$(prf "$out" dlid)" ] || fail "h1 vports 1 and 3 (limited Default only) got a PathRecord: $out"
out=$(pr "${VLID[h5.1]}" "${VLID[h9.1]}")
[ "$(( $(prf "$out" dlid) ))" = "${VLID[h9.1]}" ] || fail "h5/1 -> h9/1 (green): no PathRecord to LID ${VLID[h9.1]}: $out"
[ "$(( $(prf "$out" slid) ))" = "${VLID[h5.1]}" ] || fail "h5/1 -> h9/1: SLID not the vport's: $out"
pk=$(prf "$out" pkey)
[ "$(( pk & 0x7fff ))" = $((0x30)) ] || fail "h5/1 -> h9/1: P_Key $pk, not green: $out"
# vguid h9 1 = 0x00c0ffee00090001, which inet_ntop writes ...:c0:ffee:9:1
case $(prf "$out" dgid) in *:c0:ffee:9:1) ;; *) fail "h5/1 -> h9/1: DGID not the vport GUID: $out" ;; esac
log "PathRecords: none across partitions on h1; h5/1 -> h9/1 with P_Key $pk"

# ibsmctl vports lists them with their LIDs and P_Keys
out=$("$IBSMCTL" -r "$T/run" vports 2>&1) || fail "ibsmctl vports: $out"
printf '%s\n' "$out" | grep -q "$(vguid h1 1) LID ${VLID[h1.1]} .*active.* 0x8010" ||
    fail "ibsmctl vports does not list h1/1 with LID ${VLID[h1.1]} and red: $out"
out=$("$IBSMCTL" -r "$T/run" --json vports 2>&1) || fail "ibsmctl --json vports: $out"
printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert sum(len(h["vports"]) for h in d["hosts"]) == 20, d' ||
    fail "ibsmctl --json vports: not 20 vports: $out"
log "ibsmctl vports: $(printf '%s' "$out" | head -c 200)"

# ---------------------------------------------------------------- restart
sm_stop
for h in $HOSTS; do
	for i in 1 2 3 4; do
		vdev_cmd "$h" vport "$i" down >/dev/null
	done
	for i in 1 2 3; do
		vdev_cmd "$h" vport "$i" up "$(vguid "$h" "$i")" lidreq >/dev/null
	done
	vdev_cmd "$h" vport 4 up "$(vguid "$h" 4)" nolidreq >/dev/null
done
[ "$(vfield h1 1 lid)" = 0 ] || fail "vdev kept a LID over down/up"
sm_start --virtualization enabled -P "$T/partitions.conf" -s 1
wait_subnet_up 90
poll_until 30 all_active >/dev/null || fail "after restart: vports not ACTIVE"
check_lids_and_routes
for k in "${!FIRST[@]}"; do
	[ "${VLID[$k]}" = "${FIRST[$k]}" ] ||
	    fail "vport $k: LID ${FIRST[$k]} before the restart, ${VLID[$k]} after"
done
log "restart: every vport LID kept"

# ---------------------------------------------------------------- migration
lid=${VLID[h1.1]}
nsw=$(awk '/^Unicast lids/' "$T/fts.txt" | wc -l)
# sweeps that may rewrite tables: heavy ones and vport sweeps
nsweeps() { echo $(( $(stat_get sweep.heavy_sweeps 0) + $(stat_get vports.vport_sweeps 0) )); }
heavy0=$(nsweeps)
sent0=$(stat_get mad.sent)
lset() { stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0; }
lset0=$(lset)
vdev_migrate h1 1 h13 5 "$RED" lidreq
migrated() {
	[ "$(vfield h13 5 state)" = active ] &&
	    [ "$(nsweeps)" -gt "$heavy0" ] && sm_is_up
}
poll_until 30 migrated >/dev/null || fail "migrated vport not ACTIVE on h13: $(vdev_cmd h13 dump)"
sleep 2
[ "$(vfield h13 5 lid)" = "$lid" ] || fail "migration: LID $lid became $(vfield h13 5 lid)"
sweeps=$(( $(nsweeps) - heavy0 ))
lw=$(( $(lset) - lset0 ))
log "migration: LID $lid kept; $sweeps sweep(s) since the move ($(( $(stat_get vports.vport_sweeps 0) )) vport sweeps so far) wrote $lw LFT blocks ($nsw switches), $(( $(stat_get mad.sent) - sent0 )) SMPs in all"
# one sweep saw the whole move (the trap settle time): one block per
# switch; a light sweep's poll may catch the stop alone first, then each
# of the two sweeps rewrites one block per switch
[ "$lw" -ge 1 ] && [ "$lw" -le $(( nsw * sweeps )) ] && [ "$lw" -le $(( 2 * nsw )) ] ||
    fail "migration wrote $lw LFT blocks in $sweeps sweeps for $nsw switches"
[ "$sweeps" -gt 1 ] || [ "$lw" -le "$nsw" ] || fail "one sweep wrote $lw LFT blocks for $nsw switches"
fts
same_exits "$lid" "$(phys_lid h13)" "migrated vport"
case $(vfield h13 5 pkeys) in *0x8010*) ;; *) fail "migrated vport lost red: $(vfield h13 5 pkeys)" ;; esac

# a VM stop: its LID leaves every LFT, one block per switch
heavy0=$(nsweeps)
lset0=$(lset)
vdev_cmd h5 vport 2 down >/dev/null
stopped() { [ "$(nsweeps)" -gt "$heavy0" ] && sm_is_up; }
poll_until 30 stopped >/dev/null || fail "no sweep after a VM stop"
sleep 1
lw=$(( $(lset) - lset0 ))
log "VM stop: $lw LFT blocks written in $(( $(nsweeps) - heavy0 )) sweep(s)"
[ "$lw" -ge 1 ] && [ "$lw" -le "$nsw" ] || fail "VM stop wrote $lw LFT blocks for $nsw switches"
fts
[ -z "$(exits "${VLID[h5.2]}")" ] || fail "stopped vport LID ${VLID[h5.2]} still forwarded: $(exits "${VLID[h5.2]}")"

# ---------------------------------------------------------------- off
sm_stop
for h in $HOSTS h2; do vdev_cmd "$h" counters reset >/dev/null; done
sm_start -s 1
wait_subnet_up 90
sleep 3
for h in $HOSTS h2; do
	c=$(vdev_cmd "$h" counters | grep '^smp 0xffb')
	[ -z "$c" ] || fail "virtualization off: $h got vport or GUIDInfo SMPs: $c"
done
log "off: no vport attribute sent"
sm_stop
# disabled: vports are read but a VM that starts is not brought up
sm_start --virtualization disabled -s 1
wait_subnet_up 90
vdev_cmd h5 vport 5 up "$(vguid h5 5)" lidreq >/dev/null
sleep 3
[ "$(vfield h5 5 state)" = init ] && [ "$(vfield h5 5 lid)" = 0 ] ||
    fail "disabled: a new vport was brought up: $(vdev_cmd h5 dump | grep '^vport 5')"
[ -n "$(vdev_cmd h5 counters | grep '^smp 0xffb0')" ] || fail "disabled: vports not read"
log "disabled: vports read, the new one left in INIT without a LID"
sm_stop
# enabled again: h2 (no capability bit) still never gets one
sm_start --virtualization enabled -P "$T/partitions.conf" -s 1
wait_subnet_up 90
sleep 3
# vport attributes are 0xFFB0-0xFFB6; 0xFFBF is GUIDInfo redirected to the
# device by the fixture (h2 has alias GUIDs, which discovery reads with
# virtualization enabled).
c=$(vdev_cmd h2 counters | grep '^smp 0xffb[0-6]')
[ -z "$c" ] || fail "h2 (no virtualization bit) got vport SMPs: $c"
c=$(vdev_cmd h1 counters | grep '^smp 0xffb')
[ -n "$c" ] || fail "enabled: h1 got no vport SMP"
log "PASS"
