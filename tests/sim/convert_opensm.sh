#!/bin/bash
# ibsmd --convert-opensm-conf on the file Debian's OpenSM writes with
# `opensm -c` (every option at its default), as is and with a dozen and
# more options changed the way a site changes them. No simulator: opensm
# -c needs no port.
#   - the defaults convert to a file `ibsmd -n -c` accepts, with nothing
#     carried but partitions_file and qos_policy_file (OpenSM's own files,
#     whose grammars ibsmd reads), and every line of the input named;
#   - the changed file converts to one `ibsmd -nv -c` reads with each
#     change carried (units converted: ms to s, log flags to a level, a
#     comma list to a list with OpenSM's minhop fallback, a root GUID file
#     to root_guids, NVIDIA's virt_enabled 2 to enabled, qos TRUE to qos:
#     true, issue 27) and the change ibsmd cannot carry (lash_start_vl 2)
#     named with why;
#   - the opensm.conf itself given as -c is refused with the hint to
#     convert it, exit 1 under -n and 2 at start.
. "$(dirname "$0")/lib.sh"
[ "$SM" = ibsmd ] || skip "the conversion is ibsmd's"
command -v opensm >/dev/null || skip "opensm not installed"
[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable (build ibsmd first)"
IBSMD=$(cd "$(dirname "$IBSMD")" && pwd)/$(basename "$IBSMD")
cd "$T" || fail "cannot cd to $T"

# -n reads the partitions file too, which the converted files name in
# /etc/opensm: -P /dev/null, and partitions_file is read from the file.
# The QoS policy file they name (read with qos on) is one that is not there:
# no policy.
nv() { env -u LD_PRELOAD "$IBSMD" -nv -P /dev/null \
    -O "qos_policy_file=$T/no-qos-policy.conf" "$@" 2>"$T/nv.err"; }
# value NAME: NAME's value in $T/nv.out (the -nv print)
value() { awk -v n="$1:" '$1 == n { print $2; exit }' "$T/nv.out"; }

opensm -c "$T/opensm.conf" >"$T/opensm-c.out" 2>&1 </dev/null ||
    fail "opensm -c failed: $(tail -3 "$T/opensm-c.out")"
n=$(grep -c '^[a-z]' "$T/opensm.conf")
[ "$n" -ge 150 ] || fail "opensm -c wrote only $n options"
log "opensm -c wrote $n options"

# ---- the defaults
env -u LD_PRELOAD "$IBSMD" --convert-opensm-conf opensm.conf >"$T/def.conf" \
    2>"$T/conv.err" || fail "conversion of the defaults failed: $(cat "$T/conv.err")"
nv -c "$T/def.conf" >"$T/nv.out" || fail "ibsmd -nv refuses the converted defaults: $(cat "$T/nv.err")"
carried=$(grep -c '^[a-z]' "$T/def.conf")
[ "$carried" = 2 ] && grep -q '^partitions_file: /etc/opensm/partitions.conf ' "$T/def.conf" &&
    grep -q '^qos_policy_file: /etc/opensm/qos-policy.conf ' "$T/def.conf" ||
    fail "the defaults carried $carried options: $(grep '^[a-z]' "$T/def.conf")"
while read -r name _; do
	grep -q "^#   $name " "$T/def.conf" || [ "$name" = partition_config_file ] ||
	    [ "$name" = qos_policy_file ] ||
	    fail "$name is neither carried nor named"
done < <(grep '^[a-z]' "$T/opensm.conf")
log "defaults: only partitions_file and qos_policy_file carried, the other $((n - 2)) named"

# ---- a dozen and more changes
sed -e 's/^sm_priority 0$/sm_priority 12/' \
    -e 's/^sminfo_polling_timeout 10000$/sminfo_polling_timeout 2500/' \
    -e 's/^polling_retry_number 4$/polling_retry_number 6/' \
    -e 's/^transaction_timeout 200$/transaction_timeout 150/' \
    -e 's/^transaction_retries 3$/transaction_retries 5/' \
    -e 's|^partition_config_file .*|partition_config_file /etc/opensm/site.conf|' \
    -e 's/^m_key 0x0000000000000000$/m_key 0x00000000deadbeef/' \
    -e 's/^m_key_protection_level 0$/m_key_protection_level 1/' \
    -e 's/^sm_assigned_guid 0x00$/sm_assigned_guid 0x2a/' \
    -e 's/^routing_engine (null)$/routing_engine ftree,updn/' \
    -e "s|^root_guid_file (null)\$|root_guid_file $T/roots|" \
    -e 's/^log_flags 0x03$/log_flags 0x07/' \
    -e 's|^log_file .*|log_file /var/log/ibsm-site.log|' \
    -e 's/^part_enforce both$/part_enforce in/' \
    -e 's/^consolidate_ipv6_snm_req FALSE$/consolidate_ipv6_snm_req TRUE/' \
    -e 's/^qos FALSE$/qos TRUE/' -e 's/^lmc 0$/lmc 2/' \
    -e 's/^lash_start_vl 0$/lash_start_vl 2/' "$T/opensm.conf" >"$T/changed.conf"
printf 'virt_enabled 2\n' >>"$T/changed.conf"
printf '0x0002c90300000a01\n0x0002c90300000a02  # spine 2\n' >"$T/roots"
[ "$(diff "$T/opensm.conf" "$T/changed.conf" | grep -c '^>')" -ge 19 ] ||
    fail "the changes were not all applied (opensm -c wrote another format?)"
env -u LD_PRELOAD "$IBSMD" --convert-opensm-conf changed.conf >"$T/changed.ibsmd" \
    2>"$T/conv.err" || fail "conversion failed: $(cat "$T/conv.err")"
nv -c "$T/changed.ibsmd" >"$T/nv.out" || fail "ibsmd -nv refuses the conversion: $(cat "$T/nv.err")"
while read -r name want; do
	got=$(value "$name")
	[ "$got" = "$want" ] || fail "$name: $got, not $want"
done <<'EOF'
sm_priority 12
sm_poll_interval 2.5
sm_poll_retries 6
smp_timeout 150
smp_retries 5
m_key 0x00000000deadbeef
m_key_protect_bits 1
virtualization.assigned_guid_byte 42
log_level debug
log_file /var/log/ibsm-site.log
partition_enforcement in
consolidate_ipv6_snm true
virtualization.mode enabled
lmc 2
qos true
EOF
grep -q '^partitions_file: /etc/opensm/site.conf ' "$T/changed.ibsmd" || fail "partitions_file not carried"
grep -q '^routing_engine: \[ftree, updn, minhop\] ' "$T/nv.out" || fail "routing_engine: $(grep ^routing_engine "$T/nv.out")"
grep -q '^root_guids: \[0x0002c90300000a01, 0x0002c90300000a02\] ' "$T/nv.out" || fail "root_guids: $(grep ^root_guids "$T/nv.out")"
grep -q '^qos_policy_file: /etc/opensm/qos-policy.conf ' "$T/changed.ibsmd" || fail "qos_policy_file not carried"
grep -q '^#   lash_start_vl 2: LASH routing is not in ibsmd' "$T/changed.ibsmd" || fail "lash_start_vl 2 not named"
log "changed: 19 values carried and converted, 1 named as not done; ibsmd -n accepts the result"

# ---- the opensm.conf itself, as an ibsmd.conf
env -u LD_PRELOAD "$IBSMD" -n -c changed.conf -P /dev/null >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 1 ] || fail "ibsmd -n -c opensm.conf exited $rc"
grep -q "^changed.conf:[0-9]*:1: this is an opensm.conf .*convert it with ibsmd --convert-opensm-conf changed.conf\$" "$T/err" ||
    fail "no hint to convert: $(cat "$T/err")"
env -u LD_PRELOAD "$IBSMD" -c changed.conf -P /dev/null >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 2 ] || fail "ibsmd -c opensm.conf exited $rc at start, not 2 (configuration error)"
log "an opensm.conf as -c: refused with the hint to convert it (-n: 1, at start: 2)"
