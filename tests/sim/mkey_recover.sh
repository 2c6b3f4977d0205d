#!/bin/bash
# Recovery and key changes (issue 29 point 4), the simulated devices
# enforcing M_Key (tests/fixture/mkeyfix.c), on slowlink.net:
#  1. ibsmd a protects the fabric with per-port keys of one secret
#     (level 1, lease 3 s), then stops.
#  2. ibsmd b, with another secret, finds every managed port (5 CA
#     ports, 3 switches) holding keys it does not know, says so
#     (ibsmctl status: mkey.foreign_ports 8) and does not fight: its
#     fixture dropped none of its SMPs (it sent no Set a port refused).
#  3. b reloaded with m_key_takeover: it starts the ports' leases, and
#     once they ran out takes every port: foreign_ports 0, the fabric
#     right.
#  4. b reloaded with a third secret: the keys are rolled out port by
#     port without one SMP dropped; a fresh instance with that secret
#     finds every port holding its keys (foreign_ports 0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
ha_skip_unless

sim_start "$FABRICS/slowlink.net"
mkey_enforce
conf() {
	cat >"$T/$1.conf" <<EOF2
m_key: $2
m_key_per_port: true
m_key_protect_bits: 1
m_key_lease_period: 3
m_key_takeover: $3
EOF2
}
dropped() { echo $(($(mkey_stat "$1" dropped_gets) + $(mkey_stat "$1" dropped_sets))); }
# status_is NAME VALUE KEY...: NAME's live status says VALUE at KEY
status_is() {
	local name=$1 want=$2
	shift 2
	[ "$(ha_status "$name" "$@" 2>/dev/null)" = "$want" ]
}
# sets_at_least NAME ATTRIBUTE N
sets_at_least() { [ "$(ha_set_count "$1" "$2" 2>/dev/null || echo 0)" -ge "$3" ]; }

conf a 0x1111111111111111 false
ha_start a h0
ha_wait_up a 60
read -r guid _ <<<"$(ha_port h0)"
fabcheck --sm-guid "$guid" >"$T/fab.out" 2>&1 || fail "fabric check failed under a: $(tail -3 "$T/fab.out")"
ha_kill a TERM

conf b 0x2222222222222222 false
UMADFIX_STATS=$T/b1.stats ha_start b h0
poll_until 60 status_is b 8 mkey foreign_ports >/dev/null ||
    fail "b sees $(ha_status b mkey foreign_ports) ports holding other keys, not 8"
[ "$(ha_status b mkey foreign_hidden)" = 8 ] || fail "b: $(ha_status b mkey foreign_hidden) keys hidden, not 8"
log "2. b finds 8 managed ports holding keys it does not know"
sleep 4         # a lease (3 s) would have run out had b started one
ha_kill b TERM
[ "$(dropped "$T/b1.stats")" = 0 ] || fail "b fought: $(dropped "$T/b1.stats") of its SMPs were dropped"
fabcheck --skip-master >"$T/fab.out" 2>&1 || fail "fabric check failed after b left it alone: $(tail -3 "$T/fab.out")"
log "   and left them alone: none of its SMPs dropped, the fabric as a left it"

conf b 0x2222222222222222 true
UMADFIX_STATS=$T/b2.stats ha_start b h0
ha_wait_up b 60
# read once and kept for the message: under load one read was seen to
# answer otherwise and the next one 8, so up to 3 s of reads, before the
# lease (3 s) and the sweep after it can let b take a port
for i in 1 2 3 4 5 6; do
	seen=$(ha_status b mkey foreign_ports)
	[ "$seen" = 8 ] && break
	sleep 0.5
done
[ "$seen" = 8 ] || fail "b with m_key_takeover sees ${seen:-no answer} foreign ports at first, not 8"
poll_until 60 status_is b 0 mkey foreign_ports >/dev/null ||
    fail "b holds $(ha_status b mkey foreign_ports) foreign ports after their leases ran out"
poll_until 30 fabcheck --sm-guid "$guid" >/dev/null || fail "fabric wrong after b took the ports"
log "3. b started the leases and took every port once they ran out"

ha_kill b TERM
conf b 0x2222222222222222 false
UMADFIX_STATS=$T/b3.stats ha_start b h0
ha_wait_up b 60
pi0=$(ha_set_count b PortInfo)
conf b 0x4444444444444444 false
ha_ctl b reload >/dev/null || fail "b's reload failed"
poll_until 30 sets_at_least b PortInfo $((pi0 + 8)) >/dev/null ||
    fail "b sent $(($(ha_set_count b PortInfo) - pi0)) PortInfo Sets for the new keys, not 8"
ha_kill b TERM
[ "$(dropped "$T/b3.stats")" = 0 ] || fail "the rollout had $(dropped "$T/b3.stats") SMPs dropped"
conf c 0x4444444444444444 false
ha_start c h0
ha_wait_up c 60
[ "$(ha_status c mkey foreign_ports)" = 0 ] ||
    fail "after the rollout $(ha_status c mkey foreign_ports) ports hold keys of another secret"
fabcheck --sm-guid "$guid" >/dev/null || fail "fabric check failed after the rollout"
log "4. a new secret rolled out with no SMP dropped; a fresh instance finds every port holding its keys"
