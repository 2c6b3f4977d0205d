#!/bin/bash
# Per-port M_Keys (issue 29 point 1): with m_key_per_port every managed
# port (each CA port, each switch) holds its own key, none is the secret
# and no two are equal; a fresh ibsmd (an empty state directory: no LIDs,
# no neighbour map remembered) with the same configuration presents the
# same keys: every Set it sends passes the ports' key check. Every key is read from the fabric
# (smpdump of PortInfo at protection level 0, where anyone may read it;
# the simulated devices keep the keys, tests/fixture/mkeyfix.c), never
# from ibsmd.
. "$(dirname "$0")/lib.sh"
skip_unless_sim

net=$FABRICS/slowlink.net
secret=0x5ec2e75ec2e75ec2
sim_start "$net"
mkey_enforce
SM_EXTRA_ARGS="-O m_key=$secret -O m_key_per_port=true -O m_key_protect_bits=0"
sm_start -R minhop
wait_subnet_up 60
fabcheck --dump-lids "$T/lids" || fail "fabric check failed"

# keys "LID port key" of every switch (port 0) and CA port
read_keys() {
	local guid lid lmc name port key
	: >"$1"
	while read -r guid lid lmc name; do
		case $name in *"[0]") port=0 ;; *) port=${name##*[}; port=${port%]} ;; esac
		# smpquery shows no M_Key ("<not displayed>"): the raw
		# PortInfo, whose first 8 bytes are it
		diag smpdump -L "$lid" 0x15 "$port" >"$T/pi" 2>&1 || true
		key=$(grep -oE '\b[0-9a-f]{4}\b' "$T/pi" | head -4 | tr -d '\n')
		[ ${#key} = 16 ] && key=0x$key || key=
		[ -n "$key" ] || fail "no PortInfo from LID $lid port $port: $(head -5 "$T/pi")"
		printf '%s %s %s\n' "$lid" "$port" "$key" >>"$1"
	done <"$T/lids"
}
read_keys "$T/keys.1"
n=$(wc -l <"$T/keys.1")
[ "$n" -ge 8 ] || fail "only $n ports read"
awk -v s="$secret" '$3 == "0x0000000000000000" || $3 == s { bad = 1; print "bad key: " $0 } END { exit bad }' "$T/keys.1" ||
    fail "a port holds no key or the secret itself"
[ "$(awk '{ print $3 }' "$T/keys.1" | sort -u | wc -l)" = "$n" ] ||
    fail "two ports hold the same key: $(cat "$T/keys.1")"
log "$n managed ports hold $n distinct keys, none the secret"

sm_stop || fail "ibsmd did not exit cleanly"
rm -rf "$T/state"
UMADFIX_STATS=$T/fixture.2 sm_start -R minhop
wait_subnet_up 60
read_keys "$T/keys.2"
diff -u "$T/keys.1" "$T/keys.2" || fail "a fresh instance with the same configuration gave other keys"
sm_stop || fail "ibsmd did not exit cleanly"
# its Sets (client reregistration at least) all passed the key check:
# it presented every port's key from its first SMP on
pi=$(sets_written "$T/fixture.2" PortInfo) || fail "the fixture counted no Sets"
[ "$pi" -gt 0 ] || fail "the fresh instance sent no PortInfo Set: nothing checked its keys"
for k in dropped_gets dropped_sets; do
	v=$(mkey_stat "$T/fixture.2" $k)
	[ "$v" = 0 ] || fail "the fresh instance had $v SMPs dropped for a wrong key ($k)"
done
log "a fresh instance derived the same $n keys: its $pi PortInfo Sets all passed the key check"

# 3. At protection level 2 nothing answers a wrong key, NodeInfo included:
# a restart reaches each port through the neighbour map its last run left
# (mkey_neighbors in the state directory), presenting the key derived
# from the GUID remembered there.
SM_EXTRA_ARGS="-O m_key=$secret -O m_key_per_port=true -O m_key_protect_bits=2"
sm_start -R minhop
wait_subnet_up 60
sm_stop || fail "ibsmd did not exit cleanly"
[ -s "$T/state/mkey_neighbors" ] || fail "no neighbour map in the state directory"
UMADFIX_STATS=$T/fixture.3 sm_start -R minhop
wait_subnet_up 60
[ "$(stat_get fabric.nodes)" = 8 ] || fail "the restart at level 2 reached $(stat_get fabric.nodes) of 8 nodes"
[ "$(stat_get mkey.foreign_ports)" = 0 ] || fail "the restart at level 2 finds $(stat_get mkey.foreign_ports) ports with keys it does not know"
sm_stop || fail "ibsmd did not exit cleanly"
for k in dropped_gets dropped_sets; do
	v=$(mkey_stat "$T/fixture.3" $k)
	[ "$v" = 0 ] || fail "the restart at level 2 had $v SMPs dropped for a wrong key ($k)"
done
log "at level 2 a restart reached all 8 nodes with no SMP dropped (neighbour map)"
# the control: without the map the same restart presents no key beyond
# its own port, and the devices drop what it sends there
rm -f "$T/state/mkey_neighbors"
UMADFIX_STATS=$T/fixture.4 sm_start -R minhop
sleep 3
sm_stop || true
[ "$(mkey_stat "$T/fixture.4" dropped_gets)" -gt 0 ] ||
    fail "without the neighbour map no Get was dropped: the map proves nothing"
log "control: without the map $(mkey_stat "$T/fixture.4" dropped_gets) Gets were dropped"
