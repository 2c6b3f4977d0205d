#!/bin/bash
# SA event forwarding, services and ClientReregister, observed from the
# fabric's side:
#  1. ClientReregister (ibsmd only; OpenSM sets it only on ports that
#     advertise CapabilityMask bit 25, which ibsim's HCAs do not). ibsim
#     neither keeps nor reports the bit (sim_mad.c do_portinfo), so no
#     diag can read it: the fixture counts it where the SMPs leave ibsmd
#     (umadfix_upper.so, UMADFIX_STATS: PortInfo Sets with the bit, their
#     distinct destinations, the most one destination got). ibsmd is
#     restarted with its own UMADFIX_STATS file, made to run a heavy sweep
#     after the subnet is up, and stopped: every CA port ibnetdiscover
#     finds got exactly one ClientReregister Set (as many Sets as
#     destinations as CA ports, none twice), so the heavy sweep added
#     none. ibsmd's own stats file (client_reregs) is checked against it.
#  2. A subscriber (tests/sim/sasub, on another node, issm so that ibsim
#     hands it the Reports) subscribes to traps 64 and 65; saquery -I lists
#     the subscription. An HCA is unlinked, then linked again: the client
#     prints a Report of trap 65, then one of trap 64, with that port's GID;
#     a multicast group created and left with tests/sim/mcjoin gives
#     Reports of traps 66 and 67 with its MGID. A second subscriber asks
#     for trap 144 only; a client setting IsSM on a third node makes ibsim
#     send trap 144 to the SM, which forwards it to that subscriber alone,
#     with the trapping port's IssuerLID and IssuerGID.
#  3. sasub registers a ServiceRecord (saquery cannot Set): saquery -S
#     shows it; one with a 3 s lease disappears by itself; a Delete removes
#     the first one; unsubscribing empties saquery -I.
# With SM=opensm the same steps pass against OpenSM 3.3.23 (Reports of 65
# then 64, trap 144 forwarded, the records, the 3 s lease, Delete,
# unsubscribe), except step 1,
# skipped: the one justified difference (see man ibsmd, ClientReregister).
. "$(dirname "$0")/lib.sh"
skip_unless_sim
command -v saquery >/dev/null || skip "saquery not found (infiniband-diags)"
: "${SASUB:=$(dirname "$IBSMD")/tests/sim/sasub}"
[ -x "$SASUB" ] || fail "SASUB=$SASUB is not an executable (make builds it)"

NET=$FABRICS/ring6.net
VICTIM=sw4-h0           # cabled: "sw4-h0"[1] - "sw4"[3]
SUBHOST=sw2-h1          # the subscriber's node (ibsmd runs on the first)
SWEEP=2
LIMIT=$((4 * SWEEP + 10))

sim_start "$NET"
sm_start --sweep-interval $SWEEP
wait_subnet_up 60

# heavy_after N: more than N heavy sweeps, and the stats file of the last.
heavy_after() { [ "$(stat_get sweep.heavy_sweeps 0)" -gt "$1" ]; }

# ---- 1. ClientReregister once per mastership
if [ "$SM" = opensm ]; then
	log "SM=opensm: ClientReregister not checked (OpenSM skips ports without CapabilityMask bit 25)"
else
	diag ibnetdiscover -p >"$T/disc.p" 2>/dev/null || fail "ibnetdiscover failed"
	ncas=$(grep -c '^CA ' "$T/disc.p")
	[ "$ncas" -gt 0 ] || fail "ibnetdiscover found no CA port"
	sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
	# only this instance of ibsmd writes this file (at its exit)
	UMADFIX_STATS=$T/rereg.stats sm_start --sweep-interval $SWEEP
	rpid=$SM_PID
	wait_subnet_up 60
	n=$(stat_get sweep.client_reregs 0) || fail "no stats file after the restart"
	[ "$(stat_get mad.counters.smp.Set.LinearForwardingTable.sent 0)" = 0 ] ||
		fail "restart wrote LFT blocks: the fabric was not already right"
	h=$(stat_get sweep.heavy_sweeps 0)
	"$IBSMCTL" --runtime-dir "$T/run" sweep --heavy >/dev/null ||
		fail "ibsmctl sweep --heavy failed"
	poll_until 30 heavy_after "$h" ||
		fail "no heavy sweep after ibsmctl sweep --heavy"
	n2=$(stat_get sweep.client_reregs 0)
	sm_stop || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
	line=$(grep "^umadfix\[$rpid\]: sets: portinfo_sets " "$T/rereg.stats") ||
		fail "the fixture wrote no PortInfo counts for ibsmd (pid $rpid): $(cat "$T/rereg.stats" 2>/dev/null)"
	fix() { printf '%s\n' "$line" | awk -v k="$1" '{ for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }'; }
	sets=$(fix client_rereg_sets)
	dests=$(fix client_rereg_dests)
	most=$(fix client_rereg_max_per_dest)
	[ "$dests" = "$ncas" ] ||
		fail "restart: ClientReregister sent to $dests destinations, want every CA port ($ncas): $line"
	[ "$sets" = "$ncas" ] && [ "$most" = 1 ] ||
		fail "restart + heavy sweep: $sets ClientReregister Sets to $dests ports (at most $most to one), want exactly one to each of $ncas: $line"
	# secondary: ibsmd's own count agrees, and did not move on the heavy sweep
	[ "$n" = "$ncas" ] && [ "$n2" = "$n" ] ||
		fail "ibsmd's stats say client_reregs $n after the restart, $n2 after the heavy sweep; the fixture saw $sets to $ncas ports"
	log "restart: exactly one ClientReregister Set to each of the $ncas CA ports (fixture: $line); none on the next heavy sweep"
	sm_start --sweep-interval $SWEEP
	wait_subnet_up 60
fi

# ---- 2. Reports of traps 65 and 64
# the victim's port GUID, from the fabric
vguid=$(awk -v v="'$VICTIM'" '$1 == "CA" && index($0, v) { print $4; exit }' "$T/disc.p" 2>/dev/null)
if [ -z "$vguid" ]; then
	diag ibnetdiscover -p >"$T/disc.p" 2>/dev/null || fail "ibnetdiscover failed"
	vguid=$(awk -v v="'$VICTIM'" '$1 == "CA" && index($0, v) { print $4; exit }' "$T/disc.p")
fi
[ -n "$vguid" ] || fail "no port GUID for $VICTIM in ibnetdiscover -p"
vgid=$(python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$vguid")
log "$VICTIM: port GUID $vguid, GID $vgid"

SIM_HOST=$SUBHOST SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD \
	"$SASUB" -t 180 subscribe 64,65,66,67 >"$T/sasub.out" 2>"$T/sasub.err" 8>&- &
SUB_PID=$!
_track "$SUB_PID"
poll_until 30 grep -q 'subscribed trap 65 status 0x0000' "$T/sasub.out" ||
	fail "the subscriber got no successful answer to InformInfo Set: $(cat "$T/sasub.out" "$T/sasub.err")"
grep -q 'subscribed trap 64 status 0x0000' "$T/sasub.out" || fail "trap 64 subscription refused"
sguid=$(awk '/^port guid/ { print $3; exit }' "$T/sasub.out")
sgid=$(python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$sguid")
diag saquery -I >"$T/iir" 2>&1 || fail "saquery -I failed: $(cat "$T/iir")"
grep -q "$sgid" "$T/iir" || fail "saquery -I does not list the subscriber $sgid: $(cat "$T/iir")"
log "subscribed: saquery -I lists $sgid"

sim_cmd "Unlink \"$VICTIM\"[1]" >/dev/null
poll_until $LIMIT grep -q "report trap 65 gid $vgid " "$T/sasub.out" ||
	fail "no Report of trap 65 for $vgid within $LIMIT s: $(cat "$T/sasub.out")"
log "unlinked $VICTIM: Report of trap 65 (GID out of service)"
sim_cmd "Link \"$VICTIM\"[1] \"sw4\"[3]" >/dev/null
poll_until $LIMIT grep -q "report trap 64 gid $vgid " "$T/sasub.out" ||
	fail "no Report of trap 64 for $vgid within $LIMIT s: $(cat "$T/sasub.out")"
l65=$(grep -n "report trap 65 gid $vgid " "$T/sasub.out" | head -1 | cut -d: -f1)
l64=$(grep -n "report trap 64 gid $vgid " "$T/sasub.out" | tail -1 | cut -d: -f1)
[ "$l65" -lt "$l64" ] || fail "trap 64 reported before trap 65"
log "linked $VICTIM again: Report of trap 64 (GID in service), after the 65"
if [ "$SM" != opensm ]; then
	"$IBSMCTL" --runtime-dir "$T/run" subscriptions >"$T/subs" || fail "ibsmctl subscriptions failed"
	grep -q "$sgid" "$T/subs" || fail "ibsmctl subscriptions does not list $sgid"
	# the client answered both Reports: acknowledged, none failed
	poll_until 10 sh -c '[ "$(awk "/^sa.reports_acked /{print \$2}" "$1")" -ge 2 ]' - "$T/state/stats" ||
		fail "the Reports the client answered are not counted acknowledged"
	"$IBSMCTL" --runtime-dir "$T/run" status >"$T/status.txt"
	grep -qx '  subscriptions: 4' "$T/status.txt" && grep -qx '  reports_sent: 2' "$T/status.txt" &&
	    grep -qx '  reports_acked: 2' "$T/status.txt" && grep -qx '  reports_failed: 0' "$T/status.txt" ||
		fail "ibsmctl status: $(grep 'subscriptions\|reports_' "$T/status.txt")"
fi

# ---- traps the SM receives, forwarded: 144 (capability change) when a
# port's IsSM bit changes (ibsim sends it when a client sets SIM_SET_ISSM:
# ibsim.c set_issm), as srp_daemon listens for IsDeviceManagement. A second
# subscriber (another node, issm to receive Reports) asks for 144 only; a
# client starting on a third node with IsSM makes that port trap.
: "${UMAD_IDLE:=$(dirname "$IBSMD")/tests/fixture/umad_idle}"
if [ -x "$UMAD_IDLE" ]; then
	SUB2=sw3-h1
	TRIG=sw5-h0
	tguid=$(awk -v v="'$TRIG'" '$1 == "CA" && index($0, v) { print $4; exit }' "$T/disc.p")
	tlid=$(awk -v v="'$TRIG'" '$1 == "CA" && index($0, v) { print $2; exit }' "$T/disc.p")
	[ -n "$tguid" ] && [ -n "$tlid" ] || fail "no port GUID/LID for $TRIG in ibnetdiscover -p"
	tgid=$(python3 -c 'import ipaddress,sys; print(ipaddress.IPv6Address((0xfe80 << 112) | int(sys.argv[1], 16)))' "$tguid")
	SIM_HOST=$SUB2 SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD \
		"$SASUB" -t 120 subscribe 144 >"$T/sasub144.out" 2>"$T/sasub144.err" 8>&- &
	SUB2_PID=$!
	_track "$SUB2_PID"
	poll_until 30 grep -q 'subscribed trap 144 status 0x0000' "$T/sasub144.out" ||
		fail "trap 144 subscription refused: $(cat "$T/sasub144.out" "$T/sasub144.err")"
	SIM_HOST=$TRIG SIM_SET_ISSM=1 LD_PRELOAD=$SIM_PRELOAD \
		"$UMAD_IDLE" 60 >"$T/idle.out" 2>&1 8>&- &
	IDLE_PID=$!
	_track "$IDLE_PID"
	poll_until $LIMIT grep -q "report trap 144 .* issuer_lid $tlid .* issuer_gid $tgid\$" "$T/sasub144.out" ||
		fail "no Report of trap 144 from $TRIG (LID $tlid, $tgid) within $LIMIT s: $(cat "$T/sasub144.out")"
	grep -q "report trap 144 " "$T/sasub.out" &&
		fail "the subscriber of 64-67 got a Report of trap 144"
	log "$TRIG set IsSM: Report of trap 144 (issuer LID $tlid, IssuerGID $tgid) to the subscriber of 144 only"
	_stop_pid "$IDLE_PID" 3
	_stop_pid "$SUB2_PID" 3
else
	log "no umad_idle ($UMAD_IDLE): trap 144 not checked"
fi

# ---- multicast groups: trap 66 when one is created, 67 when it goes
: "${MCJOIN:=$(dirname "$IBSMD")/tests/sim/mcjoin}"
if [ -x "$MCJOIN" ]; then
	MG=ff15:1234::e1
	out=$(SIM_HOST=sw3-h0 diag "$MCJOIN" join $MG 1 create 2>/dev/null)
	case $out in status=0x0000*) ;; *) fail "multicast create refused: $out" ;; esac
	poll_until $LIMIT grep -q "report trap 66 gid $MG " "$T/sasub.out" ||
		fail "no Report of trap 66 for $MG: $(cat "$T/sasub.out")"
	out=$(SIM_HOST=sw3-h0 diag "$MCJOIN" leave $MG 1 2>/dev/null)
	case $out in status=0x0000*) ;; *) fail "multicast leave refused: $out" ;; esac
	poll_until $LIMIT grep -q "report trap 67 gid $MG " "$T/sasub.out" ||
		fail "no Report of trap 67 for $MG: $(cat "$T/sasub.out")"
	log "multicast group $MG created and deleted: Reports of traps 66 and 67"
else
	log "no mcjoin ($MCJOIN): traps 66/67 not checked"
fi

# ---- 3. ServiceRecords
svc() { SIM_HOST=$SUBHOST LD_PRELOAD=$SIM_PRELOAD timeout 30 "$SASUB" -t 20 "$@" 8>&-; }
svc service 0x10000ce1 ibsmd-sa-test 3600 >"$T/svc" 2>&1 ||
	fail "ServiceRecord Set refused: $(cat "$T/svc")"
grep -q 'status 0x0000 lease 3600' "$T/svc" || fail "ServiceRecord Set: $(cat "$T/svc")"
svc service 0x10000ce2 ibsmd-short 3 >"$T/svc2" 2>&1 || fail "ServiceRecord Set (3 s) refused: $(cat "$T/svc2")"
diag saquery -S >"$T/sr" 2>&1 || fail "saquery -S failed: $(cat "$T/sr")"
grep -q 'ibsmd-sa-test' "$T/sr" || fail "saquery -S does not show the service: $(cat "$T/sr")"
grep -qi '0x0*10000ce1' "$T/sr" || fail "saquery -S does not show ServiceID 0x10000ce1: $(cat "$T/sr")"
log "saquery -S shows the registered service"
sleep 5
diag saquery -S >"$T/sr2" 2>&1 || fail "saquery -S failed"
grep -q 'ibsmd-short' "$T/sr2" && fail "the service with a 3 s lease is still there after 5 s"
grep -q 'ibsmd-sa-test' "$T/sr2" || fail "the service with a 3600 s lease is gone"
log "the 3 s lease expired, the 3600 s one did not"
svc unservice 0x10000ce1 >"$T/svc3" 2>&1 || fail "ServiceRecord Delete refused: $(cat "$T/svc3")"
diag saquery -S >"$T/sr3" 2>&1
grep -q 'ibsmd-sa-test' "$T/sr3" && fail "the service is still there after its Delete"
log "Delete removed it"

# the subscription goes away on unsubscribe
SIM_HOST=$SUBHOST LD_PRELOAD=$SIM_PRELOAD timeout 30 "$SASUB" -t 20 unsubscribe 64,65,66,67 >"$T/unsub" 2>&1 8>&- ||
	fail "unsubscribe refused: $(cat "$T/unsub")"
diag saquery -I >"$T/iir2" 2>&1
grep -q "$sgid" "$T/iir2" && fail "saquery -I still lists $sgid after unsubscribing"
log "unsubscribed: saquery -I lists nothing for $sgid"
_stop_pid "$SUB_PID" 3
sm_stop || [ "$SM" = opensm ] || fail "ibsmd did not exit cleanly on SIGTERM (status $_STOP_STATUS)"
