#!/bin/bash
# Partitions on the two-level fat tree (ft2_8), read from the fabric.
#
# 1. The SM runs with data/partitions_disjoint.conf (Default plus two
#    disjoint partitions). Once the subnet is up, smpquery reads the P_Key
#    table of every CA port, every switch port 0 and every switch port
#    facing a CA (pkeytables.py read), and pkeytables.py expect compares
#    them with what the file implies, computed by its own small reader of
#    the file: per port the exact set of entries with membership bit 15,
#    Default (0xffff full, 0x7fff limited) at index 0, switch ports the
#    union of their CA's entries; no port holds a P_Key of a partition it
#    is not a member of.
# 2. PortInfo partition enforcement of the switch ports facing CAs.
#    ibsim (0.10 to 0.12: do_portinfo() in ibsim/sim_mad.c) does not keep
#    PartEnforceInb/Outb from a PortInfo Set: a read returns its link
#    template, 0. So when every such port reads 0/0 the fabric cannot show
#    enforcement and this part is not checked (it says so); when any port
#    reads a bit set, every port facing a CA must read both bits set (the
#    default mode, both) and no switch-to-switch port may.
# 3. A fresh ibsim, the SM once with --partition-enforcement off: CA
#    tables as in 1, every switch port facing a CA left as ibsim made it
#    (read before the SM ran).
#
# SM=opensm runs the same checks against OpenSM (the expectation is
# OpenSM's too: the file uses nothing where the two differ).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

PKT=$TOP_SRCDIR/tests/sim/pkeytables.py
CONF=$TOP_SRCDIR/tests/sim/data/partitions_disjoint.conf
[ -r "$CONF" ] || fail "$CONF not found"
pkt() { python3 "$PKT" --preload "$SIM_PRELOAD" "$@" 8>&-; }

# The SM's port GUID, from the fabric.
sm_guid() {
	diag sminfo 2>/dev/null | sed -n 's/.*sm guid \(0x[0-9a-f]*\),.*/\1/p'
}

# ---- 1. the tables
sim_start "$FABRICS/ft2_8.net"
sm_start -P "$CONF" -R minhop
wait_subnet_up 60
fabcheck >/dev/null || fail "fabric check failed after subnet up"
G=$(sm_guid)
[ -n "$G" ] || fail "sminfo names no SM"
pkt read "$T/tables.json" || fail "could not read the P_Key tables"
pkt expect "$CONF" "$T/tables.json" --sm-guid "$G" ||
    fail "P_Key tables differ from what $(basename "$CONF") implies"
log "every CA port, switch port 0 and switch port facing a CA holds the P_Keys the file implies"

# ---- 2. partition enforcement bits
# enforce_bits LID PORT: "inb outb" as PortInfo reads them.
enforce_bits() {
	diag smpquery portinfo "$1" "$2" 2>/dev/null | awk -F'[.:]+' '
	    /^PartEnforceInb/ { i = $NF } /^PartEnforceOutb/ { o = $NF }
	    END { if (i == "" || o == "") exit 1; print i + 0, o + 0 }'
}
diag ibnetdiscover >"$T/netdisc" 2>/dev/null || fail "ibnetdiscover failed"
# switch LID, port, peer kind (H or S) of every cabled switch port
awk '/^Switch/ { lid = $0; sub(/.* port 0 lid /, "", lid); sub(/ .*/, "", lid); sw = 1; next }
     /^(Ca|Rt)/ { sw = 0; next }
     sw && /^\[/ { p = $1; gsub(/[][]/, "", p); k = substr($2, 2, 1); print lid, p, k }' \
    "$T/netdisc" >"$T/swports"
[ "$(grep -c ' H$' "$T/swports")" = 32 ] || fail "ibnetdiscover shows $(grep -c ' H$' "$T/swports") switch ports facing CAs, not 32"
set_ca=0 set_sw=0 clear_ca=0
while read -r lid port kind; do
	bits=$(enforce_bits "$lid" "$port") || fail "smpquery portinfo $lid $port failed"
	case $kind:$bits in
	H:"1 1") set_ca=$((set_ca + 1)) ;;
	H:"0 0") clear_ca=$((clear_ca + 1)) ;;
	H:*) fail "switch LID $lid port $port (facing a CA) reads PartEnforceInb/Outb $bits, not 1 1" ;;
	S:"0 0") ;;
	S:*) set_sw=$((set_sw + 1)) ;;
	esac
done <"$T/swports"
if [ $set_ca = 0 ] && [ $set_sw = 0 ]; then
	log "PartEnforceInb/Outb read 0 on every switch port: ibsim does not keep them (PortInfo Set ignores them), not checked"
else
	[ $clear_ca = 0 ] || fail "$clear_ca switch ports facing a CA read no partition enforcement, $set_ca do"
	[ $set_sw = 0 ] || fail "$set_sw switch-to-switch ports read partition enforcement bits"
	log "partition enforcement on all $set_ca switch ports facing a CA, on no switch-to-switch port"
fi
sm_stop || [ "$SM" = opensm ] || fail "$SM did not exit cleanly on SIGTERM (status $_STOP_STATUS)"

# ---- 3. enforcement off: the switches' tables are left alone
sim_stop
sim_start "$FABRICS/ft2_8.net"
rm -rf "$T/state" "$T/run"
pkt read --dr "$T/fresh.json" >/dev/null || fail "could not read the fresh fabric's P_Key tables"
if [ "$SM" = opensm ]; then
	sm_run 60 --once -P "$CONF" --part_enforce off || fail "opensm --once failed (status $?)"
else
	sm_run 60 --once -P "$CONF" -R minhop --partition-enforcement off ||
	    fail "ibsmd --once failed (status $?): $(tail -3 "$T/sm_run.err")"
fi
pkt read "$T/off.json" >/dev/null || fail "could not read the P_Key tables"
python3 - "$T/fresh.json" "$T/off.json" <<'EOF' || fail "switch port tables changed with partition enforcement off"
import json, sys
a, b = (json.load(open(p))["ports"] for p in sys.argv[1:3])
bad = [k for k in a if a[k]["kind"] == "swp" and a[k]["table"] != b[k]["table"]]
for k in bad:
    print("%s: %s -> %s" % (k, [hex(x) for x in a[k]["table"] if x], [hex(x) for x in b[k]["table"] if x]), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
python3 - "$T/off.json" "$T/ca_only.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["ports"] = {k: p for k, p in d["ports"].items() if p["kind"] != "swp"}
json.dump(d, open(sys.argv[2], "w"))
EOF
pkt expect "$CONF" "$T/ca_only.json" --sm-guid "$G" >/dev/null ||
    fail "with enforcement off, end port tables differ from what the file implies"
log "partition enforcement off: end ports programmed, switch ports facing CAs untouched"
exit 0
