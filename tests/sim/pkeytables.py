#!/usr/bin/env python3
"""pkeytables.py: P_Key tables read from a (simulated) fabric, and what a
partitions file says they should be. The partition tests' observer.

  pkeytables.py read OUT.json
      ibnetdiscover, then smpquery pkeys on every CA port that has a link,
      on every switch port 0 and on every switch port that faces a CA or
      router; the tables go to OUT.json (keyed by GUID, so that two runs on
      two simulators of one net file compare). --dr addresses every port by
      directed route from the local port (before an SM has set LIDs).

  pkeytables.py expect CONF TABLES.json [--allow-both] [--sm-guid G]
      Exit 1 with every difference between the tables read and what CONF
      implies. CONF is read by a deliberately small reader of the grammar
      (independent of ibsmd's parser): statements `name=pkey, flags : members;`,
      flags ipoib, indx0, defmember=full|limited|both and group flags
      (ignored), mgid= items (ignored: they take the rest of their line),
      members ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, NONE and port
      GUIDs, each with an optional =full, =limited or =both. Expectation, for
      every end port: the set of table entries (P_Key with membership bit
      15) is exactly what the file gives it (last entry naming the port
      decides, per partition; both = full + limited with --allow-both, full
      alone without); index 0 holds the indx0 partition, else the Default
      P_Key (0xffff for a full member, 0x7fff for a limited one). A file
      without Default gets Default=0x7fff: ALL=limited, SELF=full, as in
      OpenSM and ibsmd. A switch port facing a CA holds the union of that
      CA's entries, a limited P_Key left out where the full one is there
      (OpenSM's pkey_mgr_update_peer_port() and ibsmd alike).

  pkeytables.py compare A.json B.json [--names NAME_A NAME_B] [--skip KEY]
      Exit 1 when a port's set of entries (with membership bit) differs
      between two reads of one fabric, e.g. OpenSM's and ibsmd's. --skip
      leaves out a port (its key as in the JSON, e.g. ca:0x0000000000100001).

  pkeytables.py blocks A.json B.json
      Prints "BLOCKS PORTS": how many 32-entry P_KeyTable blocks differ
      between two reads, over how many ports; then one line per changed port.

Runs the diags with LD_PRELOAD=<the umadfix device> (--preload, default
$SIM_PRELOAD or $UMADFIX) and the caller's IBSIM_SOCKNAME, as fabcheck.py does
(whose ibnetdiscover reader it uses).
"""

import argparse
import concurrent.futures
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabcheck  # noqa: E402

FULL = 0x8000
DEFAULT = 0x7fff
LIMITED, FULL_M, BOTH = 1, 2, 3
MEMBERSHIPS = {'limited': LIMITED, 'full': FULL_M, 'both': BOTH}


class ConfError(Exception):
    pass


# ---------------------------------------------------------------- reading

ROW = re.compile(r'^\s*(\d+):((?:\s+0x[0-9a-fA-F]{4})+)\s*$')
CAP = re.compile(r'^(\d+) pkeys capacity')


def read_table(diags, dest, port=None):
    """dest: a LID, or a directed route ("0,1,5") given as a list."""
    if isinstance(dest, list):
        args = ['smpquery', '-D', 'pkeys', ','.join(map(str, dest))]
    else:
        args = ['smpquery', 'pkeys', str(dest)]
    args += [str(port)] if port is not None else []
    out = diags.run(*args)
    table, cap = [], None
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            idx = int(m.group(1))
            if idx != len(table):
                raise fabcheck.ToolError('%s: row %d after %d entries' % (' '.join(args), idx, len(table)))
            table += [int(w, 16) for w in m.group(2).split()]
            continue
        m = CAP.match(line)
        if m:
            cap = int(m.group(1))
    if cap is None or len(table) < cap:
        raise fabcheck.ToolError('%s: no table in %r' % (' '.join(args), out[-300:]))
    return table[:cap]


def dr_paths(fab):
    """Directed routes from the local port to every node, breadth first
    over the cabling: {node GUID: [0, out port, ...]}."""
    local = None
    for n in fab.nodes.values():
        for p, g in n.port_guid.items():
            if n.kind != 'SW' and g == fab.local_port_guid:
                local = (n.guid, p)
    if local is None:
        raise fabcheck.ToolError('ibnetdiscover: the local port is not in the fabric')
    paths = {local[0]: [0]}
    todo = [(local[0], [local[1]])]
    while todo:
        guid, outs = todo.pop(0)
        for p in outs:
            peer = fab.link.get((guid, p))
            if peer is None or peer[0] in paths:
                continue
            paths[peer[0]] = paths[guid] + [p]
            if fab.nodes[peer[0]].kind == 'SW':
                todo.append((peer[0], range(1, fab.nodes[peer[0]].nports + 1)))
    return paths


def cmd_read(opts):
    diags = fabcheck.Diags(opts)
    fab = fabcheck.Fabric()
    fabcheck.parse_ibnetdiscover(diags.run('ibnetdiscover'), fab)
    dr = dr_paths(fab) if opts.dr else {}
    ports, reads = {}, {}
    for n in sorted(fab.nodes.values(), key=lambda n: n.guid):
        if n.kind == 'SW':
            lid = n.lid[0]
            dest = dr.get(n.guid, lid)
            key = 'sw0:0x%016x' % n.port_guid[0]
            ports[key] = {'kind': 'sw0', 'guid': '0x%016x' % n.port_guid[0],
                          'num': 0, 'node': n.desc, 'lid': lid}
            reads[key] = (dest, 0)
            for p in range(1, n.nports + 1):
                peer = fab.link.get((n.guid, p))
                if peer is None or fab.nodes[peer[0]].kind == 'SW':
                    continue
                pn = fab.nodes[peer[0]]
                key = 'swp:0x%016x:%d' % (n.guid, p)
                ports[key] = {'kind': 'swp', 'guid': '0x%016x' % n.guid,
                              'num': p, 'node': n.desc, 'lid': lid,
                              'peer': 'ca:0x%016x' % pn.port_guid[peer[1]]}
                reads[key] = (dest, p)
        else:
            for p in sorted(n.port_guid):
                if (n.guid, p) not in fab.link:
                    continue
                g, lid = n.port_guid[p], n.lid[p]
                key = 'ca:0x%016x' % g
                ports[key] = {'kind': 'ca', 'guid': '0x%016x' % g, 'num': p,
                              'node': n.desc, 'lid': lid}
                reads[key] = (dr[n.guid] if opts.dr else lid, None)
    # A few clients at a time (ibsim serves up to IBSIM_MAX_CLIENTS).
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        futs = {k: ex.submit(read_table, diags, *a) for k, a in reads.items()}
        for k, fut in futs.items():
            ports[k]['table'] = fut.result()
    doc = {'sm_port_guid': '0x%016x' % (fab.local_port_guid or 0), 'ports': ports}
    with open(opts.out, 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    print('pkeytables: read %d tables (%d CA ports, %d switch ports 0, %d switch ports facing a CA)' % (
        len(ports), sum(p['kind'] == 'ca' for p in ports.values()),
        sum(p['kind'] == 'sw0' for p in ports.values()),
        sum(p['kind'] == 'swp' for p in ports.values())))
    return 0


# ---------------------------------------------------------------- the file

def parse_conf(text):
    """-> [partition], in file order of first appearance; a partition is
    {'pkey', 'name', 'indx0', 'entries': [(member, membership)]}."""
    lines = []
    for line in text.replace('\r', '').split('\n'):
        if '"' in line:
            raise ConfError('quoted node descriptions are not supported by this reader')
        line = line.split('#', 1)[0]
        # an mgid= item takes the rest of its line
        line = re.sub(r'(^|[:,\s])mgid=.*$', r'\1', line)
        lines.append(line)
    text = '\n'.join(lines)
    parts, by_pkey, by_name = [], {}, {}
    for stmt in text.split(';'):
        if not stmt.strip():
            continue
        if ':' not in stmt:
            raise ConfError('statement without ":": %r' % stmt.strip())
        head, body = stmt.split(':', 1)
        items = [i.strip() for i in head.split(',')]
        name, pkey = items[0], None
        if '=' in name:
            name, v = [s.strip() for s in name.split('=', 1)]
            pkey = int(v, 0) & 0x7fff
        elif re.fullmatch(r'(0x[0-9a-fA-F]+|\d+)', name):
            pkey, name = int(name, 0) & 0x7fff, None
        if name == 'Default':
            pkey = DEFAULT
        if pkey is None:
            if name not in by_name:
                raise ConfError('partition %s: no P_Key (not supported by this reader)' % name)
            pkey = by_name[name]
        if name:
            by_name[name] = pkey
        defmember, indx0 = LIMITED, False
        for flag in items[1:]:
            k, _, v = flag.partition('=')
            k, v = k.strip(), v.strip()
            if k == 'defmember':
                defmember = MEMBERSHIPS[v]
            elif k == 'indx0':
                indx0 = True
        if pkey not in by_pkey:
            by_pkey[pkey] = {'pkey': pkey, 'name': name, 'indx0': False, 'entries': []}
            parts.append(by_pkey[pkey])
        pt = by_pkey[pkey]
        pt['indx0'] = pt['indx0'] or indx0
        for m in re.split(r'[,\n]', body):
            m = m.strip()
            if not m:
                continue
            who, _, ms = m.partition('=')
            who = who.strip()
            if who == 'NONE':
                continue
            pt['entries'].append((who, MEMBERSHIPS[ms.strip()] if ms else defmember))
    if DEFAULT not in by_pkey:
        parts.append({'pkey': DEFAULT, 'name': 'Default', 'indx0': False,
                      'entries': [('ALL', LIMITED), ('SELF', FULL_M)]})
    return parts


def resolve(who, ends, sm_guid):
    """The end port keys a member names."""
    if who == 'ALL':
        return list(ends)
    if who == 'ALL_CAS':
        return [k for k, p in ends.items() if p['kind'] == 'ca']
    if who == 'ALL_SWITCHES':
        return [k for k, p in ends.items() if p['kind'] == 'sw0']
    if who == 'ALL_ROUTERS':
        return []       # ibsim fabrics here have none
    g = sm_guid if who == 'SELF' else int(who, 0)
    return [k for k, p in ends.items() if int(p['guid'], 16) == g]


def expected(parts, doc, allow_both, sm_guid):
    """-> {port key: (set of entries, index 0 entry or None)}"""
    ports = doc['ports']
    ends = {k: p for k, p in ports.items() if p['kind'] in ('ca', 'sw0')}
    keys = {k: set() for k in ends}
    idx0 = {k: None for k in ends}
    for pt in parts:
        state = {}
        for who, ms in pt['entries']:
            for k in resolve(who, ends, sm_guid):
                state[k] = ms
        if pt['pkey'] == DEFAULT:
            for k, p in ends.items():
                if int(p['guid'], 16) == sm_guid:
                    state[k] = state.get(k, 0) | FULL_M
        for k, ms in state.items():
            if ms & FULL_M:
                keys[k].add(pt['pkey'] | FULL)
            if ms & LIMITED and (allow_both or not ms & FULL_M):
                keys[k].add(pt['pkey'])
            if pt['indx0'] and idx0[k] is None:
                idx0[k] = pt['pkey'] | FULL if ms & FULL_M else pt['pkey']
    for k in ends:
        if idx0[k] is None:
            if DEFAULT | FULL in keys[k]:
                idx0[k] = DEFAULT | FULL
            elif DEFAULT in keys[k]:
                idx0[k] = DEFAULT
    out = {k: (keys[k], idx0[k]) for k in ends}
    for k, p in ports.items():
        if p['kind'] == 'swp':
            peer = keys.get(p['peer'], set())
            out[k] = ({e for e in peer if e & FULL or e | FULL not in peer}, None)
    return out


def fmt(entries):
    return '{' + ' '.join('0x%04x' % e for e in sorted(entries)) + '}'


def name(p):
    if p['kind'] == 'swp':
        return '"%s"[%d] (facing %s)' % (p['node'], p['num'], p['peer'])
    if p['kind'] == 'sw0':
        return '"%s"[0] (switch port 0, %s)' % (p['node'], p['guid'])
    return '"%s"[%d] (%s, LID %d)' % (p['node'], p['num'], p['guid'], p['lid'])


def entries_of(table):
    return {e for e in table if e & 0x7fff}


def check_table(k, p, want, idx0, errs):
    table = p['table']
    have = [e for e in table if e & 0x7fff]
    if len(have) != len(set(have)):
        errs.append('%s: an entry appears twice: %s' % (name(p), ' '.join('0x%04x' % e for e in have)))
    have = set(have)
    if have != want:
        errs.append('%s: holds %s, the file implies %s (missing %s, extra %s)' % (
            name(p), fmt(have), fmt(want), fmt(want - have), fmt(have - want)))
    # A port outside Default and indx0 partitions: ibsmd leaves index 0
    # empty, OpenSM fills it; the set above is what matters then.
    if p['kind'] != 'swp' and idx0 is not None and table[0] != idx0:
        errs.append('%s: index 0 holds 0x%04x, not 0x%04x' % (name(p), table[0], idx0))


def cmd_expect(opts):
    with open(opts.tables) as f:
        doc = json.load(f)
    with open(opts.conf) as f:
        parts = parse_conf(f.read())
    sm = int(opts.sm_guid, 0) if opts.sm_guid else int(doc['sm_port_guid'], 16)
    want = expected(parts, doc, opts.allow_both, sm)
    errs = []
    for k, p in sorted(doc['ports'].items()):
        check_table(k, p, want[k][0], want[k][1], errs)
    # Disjointness, said once more in so many words: a port may hold a
    # partition's P_Key only if the file makes it a member.
    members = {}
    for pt in parts:
        members[pt['pkey']] = {k for k, (s, _) in want.items() if any(e & 0x7fff == pt['pkey'] for e in s)}
    for k, p in sorted(doc['ports'].items()):
        for e in entries_of(p['table']):
            if e & 0x7fff not in members or k not in members[e & 0x7fff]:
                errs.append('%s: holds 0x%04x of a partition it is not a member of' % (name(p), e))
    for e in errs[:60]:
        print('pkeytables: ' + e, file=sys.stderr)
    if len(errs) > 60:
        print('pkeytables: ... and %d more' % (len(errs) - 60), file=sys.stderr)
    if errs:
        return 1
    n = len(doc['ports'])
    print('pkeytables: %d tables as %s implies (%d partitions)' % (n, os.path.basename(opts.conf), len(parts)))
    return 0


def cmd_compare(opts):
    docs = []
    for path in (opts.a, opts.b):
        with open(path) as f:
            docs.append(json.load(f))
    na, nb = opts.names or ('A', 'B')
    pa, pb = docs[0]['ports'], docs[1]['ports']
    errs = []
    for k in sorted(set(pa) | set(pb)):
        if k in opts.skip:
            continue
        if k not in pa or k not in pb:
            errs.append('%s: read under %s only' % (k, na if k in pa else nb))
            continue
        sa, sb = entries_of(pa[k]['table']), entries_of(pb[k]['table'])
        if sa != sb:
            errs.append('%s: %s programs %s, %s %s' % (name(pa[k]), na, fmt(sa), nb, fmt(sb)))
    for e in errs:
        print('pkeytables: ' + e, file=sys.stderr)
    if errs:
        return 1
    print('pkeytables: %d ports hold the same P_Keys under %s and %s%s' % (
        len(set(pa) - set(opts.skip)), na, nb,
        ' (%d left out)' % len(opts.skip) if opts.skip else ''))
    return 0


def cmd_blocks(opts):
    with open(opts.a) as f:
        pa = json.load(f)['ports']
    with open(opts.b) as f:
        pb = json.load(f)['ports']
    if set(pa) != set(pb):
        print('pkeytables: the two reads cover different ports', file=sys.stderr)
        return 2
    blocks, lines = 0, []
    for k in sorted(pa):
        ta, tb = pa[k]['table'], pb[k]['table']
        changed = [b for b in range((len(ta) + 31) // 32) if ta[32 * b:32 * b + 32] != tb[32 * b:32 * b + 32]]
        if changed:
            blocks += len(changed)
            lines.append('%s blocks %s: %s -> %s' % (k, ','.join(map(str, changed)),
                                                     fmt(entries_of(ta)), fmt(entries_of(tb))))
    print('%d %d' % (blocks, len(lines)))
    for line in lines:
        print(line)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--preload', help='LD_PRELOAD of the diags: the umadfix device '
                    '(default: $SIM_PRELOAD, else $UMADFIX)')
    ap.add_argument('--no-preload', action='store_true', help='real hardware: no LD_PRELOAD')
    ap.add_argument('--prefix', default='', help='command prefix for every tool')
    ap.add_argument('--timeout', type=int, default=60)
    sub = ap.add_subparsers(dest='cmd')
    r = sub.add_parser('read')
    r.add_argument('out')
    r.add_argument('--dr', action='store_true',
                   help='address by directed route (a fabric without LIDs)')
    e = sub.add_parser('expect')
    e.add_argument('conf')
    e.add_argument('tables')
    e.add_argument('--allow-both', action='store_true')
    e.add_argument('--sm-guid')
    c = sub.add_parser('compare')
    c.add_argument('a')
    c.add_argument('b')
    c.add_argument('--names', nargs=2)
    c.add_argument('--skip', action='append', default=[])
    b = sub.add_parser('blocks')
    b.add_argument('a')
    b.add_argument('b')
    opts = ap.parse_args()
    try:
        if opts.cmd == 'read':
            return cmd_read(opts)
        if opts.cmd == 'expect':
            return cmd_expect(opts)
        if opts.cmd == 'compare':
            return cmd_compare(opts)
        if opts.cmd == 'blocks':
            return cmd_blocks(opts)
    except fabcheck.ToolError as err:
        print('pkeytables: %s' % err, file=sys.stderr)
        return 2
    except (ConfError, KeyError, ValueError) as err:
        print('pkeytables: %s: %s' % (getattr(opts, 'conf', ''), err), file=sys.stderr)
        return 2
    ap.print_usage(sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
