#!/bin/bash
# ibsmctl completes the picture (issue 13 point 8): `partitions --json` is
# structured and `ports` shows each port's P_Keys, both as the fabric holds
# them.
#
# ft2_8 under ibsmd with a partition file naming ports by GUID (h4, h5 full
# members of blue with ipoib and mtu=5; every CA a limited member of red;
# h6 a full member of red). pkeytables.py reads every CA port's P_Key table,
# every switch port 0's and every switch port facing a CA with smpquery
# pkeys. Then:
#  - partitions --json: blue and red with their P_Keys and flags, members
#    as written with their membership and the ports each names; every port a
#    partition lists holds that P_Key (membership bit as listed), and every
#    CA port holding a P_Key is listed by that partition;
#  - ports GUID --json for every CA port and every switch: each port's
#    "pkeys" (index, P_Key) are the non-empty entries smpquery read;
#  - ports GUID (text) has a P_KEYS column with them.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmctl talks to ibsmd only"
: "${IBSMCTL:=./ibsmctl}"
[ -x "$IBSMCTL" ] || fail "IBSMCTL=$IBSMCTL is not an executable (build ibsmctl first)"
ctl() { "$IBSMCTL" --runtime-dir "$T/run" "$@" 8>&-; }

sim_start "$FABRICS/ft2_8.net"
pguid() {
	diag ibnetdiscover 2>/dev/null | awk -v d="\"$1\"" '
	    /^Ca/ { ca = index($0, "# " d) > 0 }
	    ca && /^\[1\]\(/ { sub(/^\[1\]\(/, ""); sub(/\).*/, ""); print "0x" $0; exit }' |
	    while read -r g; do printf '0x%016x\n' "$((g))"; done
}
g4=$(pguid h4); g5=$(pguid h5); g6=$(pguid h6)
[ -n "$g4" ] && [ -n "$g5" ] && [ -n "$g6" ] || fail "no port GUIDs from ibnetdiscover"
PARTS=$T/partitions.conf
printf 'Default=0x7fff : ALL=full;\nblue=0x0010, ipoib, mtu=5 : %s=full, %s=full;\nred=0x0020 : ALL_CAS=limited, %s=full;\n' \
    "$g4" "$g5" "$g6" >"$PARTS"
sm_start -c /dev/null -P "$PARTS" -R ftree
wait_subnet_up 60
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" read "$T/pk.json" 8>&- ||
    fail "cannot read the P_Key tables"
python3 "$TOP_SRCDIR/tests/sim/pkeytables.py" expect "$PARTS" "$T/pk.json" 8>&- ||
    fail "the P_Key tables are not what the file says"

ctl partitions --json >"$T/parts.json" || fail "partitions --json failed"
python3 - "$T/parts.json" "$T/pk.json" "$g4" "$g5" "$g6" <<'PY' || fail "partitions --json disagrees with the fabric"
import json, sys
parts = json.load(open(sys.argv[1]))
pk = json.load(open(sys.argv[2]))['ports']
g4, g5, g6 = sys.argv[3:6]
bad = []
byk = {p['pkey']: p for p in parts['partitions']}
assert set(byk) == {0x7fff, 0x10, 0x20}, sorted(byk)
blue, red = byk[0x10], byk[0x20]
assert blue['name'] == 'blue' and red['name'] == 'red'
assert blue['flags']['ipoib'] is True and blue['flags']['mtu'] == 5, blue['flags']
assert red['flags']['ipoib'] is False and red['flags']['mtu'] == 4, red['flags']
for k in ('rate', 'sl', 'scope', 'qkey', 'tclass', 'flow_label'):
    assert k in blue['flags'], k
assert [(m['member'], m['kind'], m['membership']) for m in blue['members']] == \
    [(g4, 'guid', 'full'), (g5, 'guid', 'full')], blue['members']
for m, g in zip(blue['members'], (g4, g5)):
    assert [p['guid'] for p in m['ports']] == [g], m
assert [(m['member'], m['membership']) for m in red['members']] == \
    [('ALL_CAS', 'limited'), (g6, 'full')], red['members']
nca = sum(1 for p in pk.values() if p['kind'] == 'ca')
assert len(red['members'][0]['ports']) == nca, (len(red['members'][0]['ports']), nca)
# every port a partition lists holds its P_Key, as listed
for part in parts['partitions']:
    listed = {}
    for p in part['ports']:
        listed[p['guid']] = p['membership']
        key = 'ca:' + p['guid'] if p['type'] == 'CA' else 'sw0:' + p['guid']
        t = pk.get(key)
        if t is None:
            bad.append('%s: port %s not read' % (part['name'], p['guid']))
            continue
        want = part['pkey'] | (0x8000 if p['membership'] in ('full', 'both') else 0)
        if want not in t['table']:
            bad.append('%s: %s listed %s, table %s' % (part['name'], p['guid'],
                       p['membership'], [hex(k) for k in t['table'] if k & 0x7fff]))
    for key, t in pk.items():
        if t['kind'] != 'ca':
            continue
        has = [k for k in t['table'] if k & 0x7fff == part['pkey']]
        if has and t['guid'] not in listed:
            bad.append('%s: %s holds %s but is not listed' % (part['name'], t['guid'], hex(has[0])))
if bad:
    print('\n'.join(bad[:10]))
    sys.exit(1)
print('partitions --json: %d partitions, every listed port holds its P_Key' % len(parts['partitions']))
PY

# ports GUID --json for every CA port and every switch, against smpquery
python3 - "$T/pk.json" "$IBSMCTL" "$T/run" <<'PY' 8>&- || fail "ports --json P_Keys disagree with smpquery pkeys"
import json, subprocess, sys
pk = json.load(open(sys.argv[1]))['ports']
ctl, run = sys.argv[2], sys.argv[3]
def ports(what):
    out = subprocess.run([ctl, '--runtime-dir', run, 'ports', what, '--json'],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
def entries(table):
    return [[i, k] for i, k in enumerate(table) if k & 0x7fff]
bad, n = [], 0
switches = {}
for key, t in pk.items():
    if t['kind'] == 'ca':
        d = ports(t['guid'])
        got = [[e['index'], e['pkey']] for e in d['ports'][0]['pkeys'] or []]
        n += 1
        if got != entries(t['table']):
            bad.append('%s (%s): ibsmctl %s, smpquery %s' % (t['guid'], t['node'], got, entries(t['table'])))
    else:
        switches.setdefault(t['guid'] if t['kind'] == 'swp' else None, None)
sw0 = {t['guid']: t for t in pk.values() if t['kind'] == 'sw0'}
swp = {(t['guid'], t['num']): t for t in pk.values() if t['kind'] == 'swp'}
for guid in sw0:
    d = ports(guid)
    node = d['node']['guid']
    for p in d['ports']:
        t = sw0[guid] if p['port'] == 0 else swp.get((node, p['port']))
        if t is None:
            continue
        n += 1
        got = [[e['index'], e['pkey']] for e in p['pkeys'] or []]
        if got != entries(t['table']):
            bad.append('switch %s port %d: ibsmctl %s, smpquery %s' % (node, p['port'], got, entries(t['table'])))
if bad:
    print('\n'.join(bad[:10]))
    sys.exit(1)
print('ports --json: P_Keys of %d ports as smpquery reads them' % n)
PY

ctl ports "$g4" >"$T/ports.txt" || fail "ports $g4 failed"
grep -q 'P_KEYS' "$T/ports.txt" || fail "no P_KEYS column: $(head -3 "$T/ports.txt")"
grep -q '0xffff,0x8010,0x0020' "$T/ports.txt" ||
    fail "ports $g4 does not show 0xffff,0x8010,0x0020: $(cat "$T/ports.txt")"
log "partitions --json and ports (--json and text) agree with smpquery pkeys"
