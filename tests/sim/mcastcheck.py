#!/usr/bin/env python3
"""mcastcheck.py: check one multicast group's forwarding tables from the
outside, with infiniband-diags only (ibnetdiscover -p for the cabling,
ibroute -M for every switch's MulticastForwardingTable).

  mcastcheck.py --mlid 0xc000 --recv h0,h5 --send h9
      the MLID's entries form one loop-free tree over the switches (every
      link in a mask is in the mask at its other end too; links = switches
      - 1; connected), reach exactly the receiving CAs named (--recv: their
      ports, and no other CA port, are in the masks), include the switch of
      every send-only member (--send) without its port, and every leaf
      switch of the tree serves a member.
  mcastcheck.py --mlid 0xc000 --recv h0,h5 --send h9 --links
      the same check, then prints the tree's switch-to-switch links, one a
      line: "descA"[portA] "descB"[portB] (ibsim's Unlink syntax).
  mcastcheck.py --mlid 0xc000 --recv h0,h5 --avoid 'leaf0[5]' ...
      the same check, and no mask holds the port named (a switch's
      NodeDescription and port; repeatable): the tree does not use a link
      that went down (its cable is gone from ibnetdiscover, so name both
      ends).
  mcastcheck.py --mlid 0xc000 --absent
      no switch has an entry for the MLID.
  mcastcheck.py --count
      prints the number of (switch, MLID) entries in all tables.
  mcastcheck.py --mcfdbs FILE
      FILE, an opensm.mcfdbs (OpenSM's dump of every switch's multicast
      entries, as ibsmd's dump_files_dir writes it), holds exactly the
      entries ibroute -M reads on every switch, and at least one.
  mcastcheck.py --mftr
      saquery MFTR (MulticastForwardingTableRecord, every switch) gives the
      same entries as ibroute -M on every switch, and at least one; and a
      query naming a switch LID, position 0 and block 0 gives that one
      record.

CAs are named by NodeDescription (port 1). Runs the tools with the
environment it is given (LD_PRELOAD, IBSIM_SOCKNAME: see lib.sh's diag).
Exit status 0 if the check holds, 1 with the reason otherwise.
"""
import argparse
import re
import subprocess
import sys

LINK = re.compile(r"^(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+.*?-\s+"
                  r"(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+\(\s*'(.*)'\s+-\s+'(.*)'\s*\)")


def run(*args):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    if r.returncode != 0:
        sys.exit('mcastcheck: %s failed: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout


def cabling():
    """(switches {guid: lid}, peer {(guid, port): (type, guid, port, desc)},
    desc {guid: desc})"""
    sws, peer, desc = {}, {}, {}
    for line in run('ibnetdiscover', '-p').splitlines():
        m = LINK.match(line.strip())
        if not m:
            continue
        t1, l1, p1, g1, t2, l2, p2, g2, d1, d2 = m.groups()
        g1, g2 = int(g1, 16), int(g2, 16)
        for (ta, la, pa, ga, da, tb, pb, gb, db) in (
                (t1, l1, p1, g1, d1, t2, p2, g2, d2),
                (t2, l2, p2, g2, d2, t1, p1, g1, d1)):
            desc[ga] = da
            if ta == 'SW':
                sws[ga] = int(la)
            peer[(ga, int(pa))] = (tb, gb, int(pb), db)
    return sws, peer, desc


def mft(lid):
    """{mlid: set(ports)} of the switch at lid."""
    out = run('ibroute', '-M', str(lid))
    ports_line = None
    tab = {}
    for line in out.splitlines():
        if line.strip().startswith('Ports:'):
            ports_line = line
            continue
        m = re.match(r'^(0x[0-9a-fA-F]+)\s', line)
        if not m or ports_line is None:
            continue
        mlid = int(m.group(1), 16)
        ports = set()
        # columns: each port number in the header sits where its 'x' is
        for pm in re.finditer(r'\d+', ports_line):
            col = pm.end() - 1
            if col < len(line) and line[col] == 'x':
                ports.add(int(pm.group(0)))
        tab[mlid] = ports
    return tab


def mftr():
    """{lid: {mlid: set(ports)}} from saquery MFTR, and the record count."""
    tab, n = {}, 0
    lid = pos = blk = None
    for line in run('saquery', 'MFTR').splitlines():
        line = line.strip()
        m = re.match(r'^(LID|Position|Block)\.+(\d+)$', line)
        if m:
            v = int(m.group(2))
            if m.group(1) == 'LID':
                lid, n = v, n + 1
            elif m.group(1) == 'Position':
                pos = v
            else:
                blk = v
            continue
        m = re.match(r'^(0x[0-9a-f]+)\s+(0x[0-9a-f]+)$', line)
        if m and lid is not None:
            mlid, mask = int(m.group(1), 16), int(m.group(2), 16)
            if mlid != 0xc000 + 32 * blk + (mlid - 0xc000) % 32:
                sys.exit('saquery MFTR: MLID 0x%x outside block %d' % (mlid, blk))
            ports = tab.setdefault(lid, {}).setdefault(mlid, set())
            ports.update(16 * pos + b for b in range(16) if mask >> b & 1)
    return tab, n


def check_mftr(sws, tables, desc):
    sa, n = mftr()
    total = 0
    for g, lid in sws.items():
        want = {k: v for k, v in tables[g].items() if v}
        have = {k: v for k, v in sa.get(lid, {}).items() if v}
        if want != have:
            sys.exit('%s (LID %d): saquery MFTR %s, ibroute -M %s' % (
                desc[g], lid, sorted((hex(k), sorted(v)) for k, v in have.items()),
                sorted((hex(k), sorted(v)) for k, v in want.items())))
        total += len(want)
    if total == 0:
        sys.exit('no multicast entry in any table')
    lid = next(l for g, l in sws.items() if tables[g])
    one = run('saquery', 'MFTR', '%d/0/0' % lid)
    if one.count('MFT Record dump') != 1:
        sys.exit('saquery MFTR %d/0/0: %d records' % (lid, one.count('MFT Record dump')))
    print('%d records, %d entries on %d switches agree' % (n, total, len(sws)))
    return 0


def check_mcfdbs(path, sws, tables, desc):
    """opensm.mcfdbs: "Switch 0x<guid>", then "0xMLID : 0xPPP  0xPPP ..."."""
    dump, sw = {}, None
    for line in open(path):
        m = re.match(r'^Switch (0x[0-9a-f]+)$', line.strip())
        if m:
            sw = int(m.group(1), 16)
            continue
        m = re.match(r'^(0x[0-9A-F]{4}) :((?: 0x[0-9A-F]{3} )+)$', line.rstrip('\n'))
        if m and sw is not None:
            dump.setdefault(sw, {})[int(m.group(1), 16)] = set(
                int(p, 16) for p in m.group(2).split())
        elif line.strip() and not line.startswith('LID    : Out Port(s)'):
            sys.exit('%s: unexpected line %r' % (path, line))
    total = 0
    for g in sws:
        want = {k: v for k, v in tables[g].items() if v}
        have = dump.get(g, {})
        if want != have:
            sys.exit('%s: %s says %s, ibroute -M %s' % (
                desc[g], path, sorted((hex(k), sorted(v)) for k, v in have.items()),
                sorted((hex(k), sorted(v)) for k, v in want.items())))
        total += len(want)
    if set(dump) - set(sws):
        sys.exit('%s names switches not in the fabric' % path)
    if total == 0:
        sys.exit('no multicast entry in any table')
    print('%d entries on %d switches agree' % (total, len(sws)))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mcfdbs')
    ap.add_argument('--mlid', type=lambda s: int(s, 0))
    ap.add_argument('--recv', default='')
    ap.add_argument('--send', default='')
    ap.add_argument('--absent', action='store_true')
    ap.add_argument('--count', action='store_true')
    ap.add_argument('--mftr', action='store_true')
    ap.add_argument('--links', action='store_true')
    ap.add_argument('--avoid', action='append', default=[])
    o = ap.parse_args()

    sws, peer, desc = cabling()
    tables = {g: mft(l) for g, l in sws.items()}
    if o.mftr:
        return check_mftr(sws, tables, desc)
    if o.mcfdbs:
        return check_mcfdbs(o.mcfdbs, sws, tables, desc)
    if o.count:
        print(sum(len(t) for t in tables.values()))
        return 0
    masks = {g: t.get(o.mlid, set()) for g, t in tables.items()}
    masks = {g: m for g, m in masks.items() if m}
    if o.absent:
        if masks:
            sys.exit('MLID 0x%x still has entries: %s' % (o.mlid, ', '.join(
                '%s %s' % (desc[g], sorted(m)) for g, m in masks.items())))
        return 0
    for a in o.avoid:
        m = re.match(r'^(.*)\[(\d+)\]$', a)
        if not m:
            sys.exit('--avoid %s: want desc[port]' % a)
        for g, mk in masks.items():
            if desc.get(g) == m.group(1) and int(m.group(2)) in mk:
                sys.exit('the tree still uses %s (mask %s)' % (a, sorted(mk)))
    recv = set(x for x in o.recv.split(',') if x)
    send = set(x for x in o.send.split(',') if x)
    # the switch and port each member CA hangs off
    attach = {}
    for (g, p), (t, pg, pp, d) in peer.items():
        if g in sws and t == 'CA' and d in recv | send:
            attach[d] = (g, p)
    missing = (recv | send) - set(attach)
    if missing:
        sys.exit('members not found in the cabling: %s' % sorted(missing))
    edges = set()
    for g, m in masks.items():
        for p in m:
            if p == 0:
                sys.exit('%s: port 0 in the mask (no switch joined)' % desc[g])
            if (g, p) not in peer:
                sys.exit('%s port %d in the mask has no cable' % (desc[g], p))
            t, pg, pp, d = peer[(g, p)]
            if t == 'SW':
                if pp not in masks.get(pg, set()):
                    sys.exit('link %s[%d] - %s[%d] in one mask only'
                             % (desc[g], p, desc[pg], pp))
                edges.add(frozenset(((g, p), (pg, pp))))
            elif d not in recv:
                sys.exit('%s port %d reaches %s, not a receiving member'
                         % (desc[g], p, d))
    for d in recv:
        g, p = attach[d]
        if p not in masks.get(g, set()):
            sys.exit('receiving member %s (%s port %d) not reached'
                     % (d, desc[g], p))
    for d in send:
        g, p = attach[d]
        if p in masks.get(g, set()):
            sys.exit('send-only member %s (%s port %d) in the mask'
                     % (d, desc[g], p))
    member_sws = set(attach[d][0] for d in recv | send)
    nodes = set(g for e in edges for (g, _) in e)
    if len(member_sws) < 2:
        if edges:
            sys.exit('one member switch but %d links in the tree' % len(edges))
        return 0
    if len(edges) != len(nodes) - 1:
        sys.exit('not a tree: %d switches, %d links' % (len(nodes), len(edges)))
    adj = {}
    for e in edges:
        (a, _), (b, _) = tuple(e)
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    start = next(iter(nodes))
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    if seen != nodes:
        sys.exit('tree not connected: %d of %d switches' % (len(seen), len(nodes)))
    for g in member_sws - nodes:
        sys.exit('member switch %s not in the tree' % desc[g])
    for g in nodes:
        if len(adj[g]) == 1 and g not in member_sws:
            sys.exit('leaf switch %s serves no member' % desc[g])
    if o.links:
        for line in sorted('"%s"[%d] "%s"[%d]' % tuple(
                x for (g, p) in sorted(e, key=lambda gp: (desc[gp[0]], gp[1]))
                for x in (desc[g], p)) for e in edges):
            print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
