#!/usr/bin/env python3
"""fabcheck.py: check a subnet from the outside, with infiniband-diags only.

It never asks the subnet manager anything but SMInfo: it reads the devices
(ibnetdiscover, iblinkinfo, dump_fts, smpdump, sminfo) and checks

  (a) every cabled CA port and every switch port 0 has a nonzero unicast
      LID, and no two ports share a LID (LMC ranges included);
  (b) both ends of every discovered link are ACTIVE (links named with
      --down are exempt, and must not be ACTIVE); with --net, every cable of
      the net file is discovered unless declared down;
  (c) sminfo names the expected SM port GUID in state MASTER (3);
  (d) for every switch and every LID, following the LFTs hop by hop over the
      discovered cabling reaches that LID's port without loops, unset (0xFF)
      entries, out-of-range ports or dead ends; with --shortest (the default)
      each path is exactly as long as the shortest path in the cabling graph
      (declared-down links excluded). --updown judges up/down routes
      (updn, ftree), which have no legal path between some switches (in a
      k-ary three-level fat tree no aggregation or core switch reaches an
      aggregation switch of another plane; in a damaged tree an upper
      switch may reach no CA below a lost link): it accepts an unset entry
      on a switch for a switch's LID, or for any LID on a switch without
      CAs, and it requires no shortest path from a switch without CAs to a
      switch's LID (an engine may route those through a detour that keeps
      the routes deadlock-free). Routes between CAs, and routes a switch
      forwards into, must arrive, and with --shortest be shortest;
  (e) with --cdg, the channel dependency graph of the LFTs has no cycle:
      channels are the directed switch-to-switch links; whenever a switch A
      forwards some LID over channel a = (A -> S) to a switch S that forwards
      the same LID over channel b = (S -> B) to a switch B, b depends on a.
      A cycle means the routes can deadlock on one virtual lane (credit
      loop); it is reported with the channels in it. With --path-sl FILE
      (lines "SLID DLID SL", e.g. from PathRecords) the graph is one per VL
      (VL = --sl2vl's map of the SL, the same on every port; default SL =
      VL): the path from every source LID (CA ports and switch port 0) to
      every destination LID, followed from the source's switch, adds its
      dependencies to its VL's graph only, and no VL's graph may have a
      cycle; a pair the file lacks travels on SL 0 and is counted. With
      --ca-paths only the paths between CA ports count (OpenSM's dfsssp
      leaves the paths from a switch's own port out of its layering).
  (f) with --loads (a figure, not a check): every CA port sends to every
      other CA port (all-to-all over the LFTs as read); max_link_load is the
      most routes crossing one directed switch-to-switch cable, and
      max_port_lids the most CA LIDs one switch sends out of one port
      towards a switch. Printed on a second line (and in --json).
  (f') with --lmc-spread (a figure, not a check): how far the LIDs of each
      CA port's LMC block take different ways. spread_share: the share of
      CA ports whose 2^lmc LIDs leave every leaf (switch with CAs) but
      their own through pairwise different ports (as many different as the
      leaf has ports to switches, when it has fewer than 2^lmc); and the
      loads of (f) over every LID (each CA port sends to every LID of every
      other CA port): max_link_load_all, max_port_lids_all, with the base
      LIDs' max_link_load_base beside them. In --json, unspread lists
      the first CA ports that miss, with the leaf and the ports read.
  (g) with --changed-since FILE (tables kept by an earlier --save-routes
      FILE) and --cut NODE[PORT] (repeatable): every (switch, LID) entry
      that differs from the saved tables had, in the saved tables and
      cabling, a route that crossed a cut cable or did not arrive (a
      failure may change only the entries whose routes crossed it).
      Entries and 64-LID blocks changed are counted in the summary.
  (h) with --minimal minhop|updown besides (g): the entries changed are
      exactly those the cut forces to change: the port is lost, or the next
      switch no longer continues the route (minhop: it is not one hop
      nearer on the cabling left, the hop count grew; updown: the route
      was up*down* before the cut and is no longer, heights above the
      switches with CAs, ties by GUID). An entry changed beyond that set, or kept inside it, is a
      violation.

On a simulator the tools run with LD_PRELOAD=<the umadfix device> (--preload,
default $SIM_PRELOAD or $UMADFIX, as tests/sim/lib.sh sets them) and the
caller's IBSIM_SOCKNAME; on hardware use --no-preload. With --topology FILE
--fts FILE no tool runs: the cabling is an ibnetdiscover output, the tables
a dump_fts output (e.g. kept by --save-topology and --save-fts, or tables
an engine computed offline), every link taken as Active and no SMInfo
checked. Exit 0 with a one-line
summary, 1 with every violation, 2 when a tool fails.
"""

import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

MAX_SHOWN = 25          # violations printed per kind before summarising


class ToolError(Exception):
    pass


def preload(given):
    """What LD_PRELOAD holds for the diags on the simulator: given, else
    $SIM_PRELOAD, else $UMADFIX; None unless every object exists (a list,
    space or colon separated, is fine)."""
    lib = given or os.environ.get('SIM_PRELOAD') or os.environ.get('UMADFIX')
    if not lib or not all(os.path.exists(p) for p in re.split(r'[\s:]+', lib.strip())):
        return None
    return lib


class Diags:
    """Runs infiniband-diags tools the way the caller wants them run."""

    def __init__(self, opts):
        self.env = dict(os.environ)
        self.env.pop('LD_PRELOAD', None)
        if not opts.no_preload:
            lib = preload(opts.preload)
            if not lib:
                raise ToolError('no simulator preload: give --preload PATH (the '
                                'umadfix device, tests/fixture/umadfix.so), set '
                                'SIM_PRELOAD, or --no-preload on hardware')
            self.env['LD_PRELOAD'] = lib
            if 'IBSIM_SOCKNAME' not in self.env:
                sys.stderr.write('fabcheck: warning: IBSIM_SOCKNAME is not set\n')
        self.prefix = shlex.split(opts.prefix) if opts.prefix else []
        self.timeout = opts.timeout
        self.calls = 0

    def run(self, *args):
        cmd = self.prefix + list(args)
        self.calls += 1
        try:
            p = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True,
                               timeout=self.timeout)
        except FileNotFoundError:
            raise ToolError('%s: not found (package infiniband-diags)' % cmd[0])
        except subprocess.TimeoutExpired:
            raise ToolError('%s: no answer in %d s' % (' '.join(cmd), self.timeout))
        if p.returncode != 0:
            err = '\n'.join(l for l in p.stderr.splitlines()
                            if 'sim_connect: attached' not in l)
            raise ToolError('%s: exit %d: %s' % (' '.join(cmd), p.returncode,
                                                 err.strip() or p.stdout.strip()[-500:]))
        return p.stdout


# ---------------------------------------------------------------- model

class Node:
    __slots__ = ('guid', 'kind', 'nports', 'desc', 'port_guid', 'lid', 'lmc')

    def __init__(self, guid, kind, nports, desc):
        self.guid = guid          # node GUID (int)
        self.kind = kind          # 'SW', 'CA' or 'RT'
        self.nports = nports
        self.desc = desc
        self.port_guid = {}       # port -> port GUID (switch: port 0 only)
        self.lid = {}             # port -> LID (switch: port 0 only)
        self.lmc = {}

    def name(self, port=None):
        s = '"%s"' % self.desc
        return s if port is None else '%s[%d]' % (s, port)


class Fabric:
    def __init__(self):
        self.nodes = {}           # node GUID -> Node
        self.link = {}            # (node GUID, port) -> (node GUID, port)
        self.local_port_guid = None
        self.state = {}           # (node GUID, port) -> (PortState, PhysState)


HDR_SW = re.compile(r'^Switch\s+(\d+)\s+"S-([0-9a-fA-F]+)"\s+#\s+"(.*)"\s+'
                    r'(?:base|enhanced) port 0 lid (\d+) lmc (\d+)')
HDR_CA = re.compile(r'^(Ca|Rt)\s+(\d+)\s+"([HR])-([0-9a-fA-F]+)"\s+#\s+"(.*)"')
SW_PORT = re.compile(r'^\[(\d+)\]\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]')
CA_PORT = re.compile(r'^\[(\d+)\]\(([0-9a-fA-F]+)\)\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                     r'(?:\([0-9a-fA-F]+\))?\s+#\s+lid (\d+) lmc (\d+)')
SWGUID = re.compile(r'^switchguid=0x([0-9a-fA-F]+)\(([0-9a-fA-F]+)\)')
INITIATED = re.compile(r'^# Initiated from node ([0-9a-fA-F]+) port ([0-9a-fA-F]+)')


def parse_ibnetdiscover(text, fab):
    cur = None
    sw_port0 = None
    for line in text.splitlines():
        m = INITIATED.match(line)
        if m:
            fab.local_port_guid = int(m.group(2), 16)
            continue
        m = SWGUID.match(line)
        if m:
            sw_port0 = int(m.group(2), 16)
            continue
        m = HDR_SW.match(line)
        if m:
            guid = int(m.group(2), 16)
            cur = Node(guid, 'SW', int(m.group(1)), m.group(3))
            cur.port_guid[0] = sw_port0 if sw_port0 is not None else guid
            cur.lid[0] = int(m.group(4))
            cur.lmc[0] = int(m.group(5))
            fab.nodes[guid] = cur
            sw_port0 = None
            continue
        m = HDR_CA.match(line)
        if m:
            guid = int(m.group(4), 16)
            cur = Node(guid, 'CA' if m.group(1) == 'Ca' else 'RT', int(m.group(2)), m.group(5))
            fab.nodes[guid] = cur
            continue
        if not line.startswith('['):
            if not line.strip():
                cur = None
            continue
        if cur is None:
            raise ToolError('ibnetdiscover: port line outside a node: %r' % line)
        if cur.kind == 'SW':
            m = SW_PORT.match(line)
            if not m:
                raise ToolError('ibnetdiscover: cannot parse %r' % line)
            p, peer, pp = int(m.group(1)), int(m.group(3), 16), int(m.group(4))
        else:
            m = CA_PORT.match(line)
            if not m:
                raise ToolError('ibnetdiscover: cannot parse %r' % line)
            p, peer, pp = int(m.group(1)), int(m.group(4), 16), int(m.group(5))
            cur.port_guid[p] = int(m.group(2), 16)
            cur.lid[p] = int(m.group(6))
            cur.lmc[p] = int(m.group(7))
        fab.link[(cur.guid, p)] = (peer, pp)
    # Every link must be seen from both ends.
    for (a, ap), (b, bp) in fab.link.items():
        if fab.link.get((b, bp)) != (a, ap):
            raise ToolError('ibnetdiscover: link 0x%x[%d] -> 0x%x[%d] not seen from '
                            'the other end' % (a, ap, b, bp))


LL_LINE = re.compile(r'^0x([0-9a-fA-F]+)\s+"(.*?)"\s+(\d+)\s+(\d+)\[[^\]]*\]\s+==\((.*?)\)==>')
STATE_RE = re.compile(r'(\w+)/\s*(\w+)\s*$')


def parse_iblinkinfo(text, fab):
    """iblinkinfo -l: one line per port; the local GUID is the node GUID for
    switches and the port GUID for CAs."""
    by_port_guid = {}
    for n in fab.nodes.values():
        if n.kind != 'SW':
            for p, g in n.port_guid.items():
                by_port_guid[g] = (n.guid, p)
    for line in text.splitlines():
        m = LL_LINE.match(line)
        if not m:
            continue
        guid, port = int(m.group(1), 16), int(m.group(4))
        s = STATE_RE.search(m.group(5))
        if not s:
            continue
        node = fab.nodes.get(guid)
        if node is not None and node.kind == 'SW':
            key = (guid, port)
        elif guid in by_port_guid:
            key = by_port_guid[guid]
        else:
            continue
        fab.state[key] = (s.group(1), s.group(2))


FTS_HDR = re.compile(r'^Unicast lids \[0x([0-9a-fA-F]+)-0x([0-9a-fA-F]+)\] of switch (.*?)'
                     r' guid 0x([0-9a-fA-F]+) \(')
FTS_DR = re.compile(r'DR path slid \d+; dlid \d+; ([\d,]+)')
FTS_ENTRY = re.compile(r'^0x([0-9a-fA-F]+) (\d+)')


def parse_dump_fts(text):
    """-> {switch GUID: {'top': top, 'path': dr path or None, 'lft': {lid: port}}}"""
    out = {}
    cur = None
    for line in text.splitlines():
        m = FTS_HDR.match(line)
        if m:
            dr = FTS_DR.search(m.group(3))
            cur = {'top': int(m.group(2), 16), 'path': dr.group(1) if dr else None,
                   'lft': {}}
            out[int(m.group(4), 16)] = cur
            continue
        m = FTS_ENTRY.match(line)
        if m and cur is not None:
            port = int(m.group(2))
            if port != 255:
                cur['lft'][int(m.group(1), 16)] = port
    return out


def parse_smpdump_block(text):
    words = []
    for line in text.splitlines():
        if line.startswith('SMP status'):
            break
        words += [w for w in line.split() if re.fullmatch(r'[0-9a-fA-F]{4}', w)]
    data = bytes.fromhex(''.join(words))
    if len(data) < 64:
        raise ToolError('smpdump: short LFT block (%d bytes)' % len(data))
    return data[:64]


SMINFO_RE = re.compile(r'sm lid (\d+) sm guid 0x([0-9a-fA-F]+), activity count (\d+) '
                       r'priority (\d+) state (\d+)')


# ---------------------------------------------------------------- checks

class Report:
    def __init__(self):
        self.items = collections.OrderedDict()   # kind -> [messages]

    def add(self, kind, msg):
        self.items.setdefault(kind, []).append(msg)

    def count(self):
        return sum(len(v) for v in self.items.values())

    def lines(self):
        out = []
        for kind, msgs in self.items.items():
            for m in msgs[:MAX_SHOWN]:
                out.append('%s: %s' % (kind, m))
            if len(msgs) > MAX_SHOWN:
                out.append('%s: ... and %d more' % (kind, len(msgs) - MAX_SHOWN))
        return out


PORTREF = re.compile(r'^\s*"?([^"\[\]]+?)"?\s*\[(\d+)\]\s*$')


def parse_portref(s):
    m = PORTREF.match(s)
    if not m:
        raise SystemExit('fabcheck: bad port reference %r (want NODE[PORT])' % s)
    return m.group(1), int(m.group(2))


def read_netfile(path):
    """Cables of an ibsim net file as {(desc, port): (desc, port)}; only the
    node-header and port lines are read (that is all our tests need)."""
    cables = {}
    node = None
    hdr = re.compile(r'^\s*(Switch|Hca|Ca|Rt|Router)\s+\d+\s+"([^"]+)"', re.I)
    port = re.compile(r'^\s*\[(\d+)\]\s*"([^"]+)"\s*\[(\d+)\]')
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0]
            m = hdr.match(line)
            if m:
                node = m.group(2)
                continue
            m = port.match(line)
            if m and node is not None:
                cables[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return cables


def check(fab, lfts, sminfo, opts, rep):
    nodes = fab.nodes
    switches = sorted(g for g, n in nodes.items() if n.kind == 'SW')

    # Declared-down links, by node description.
    bydesc = collections.defaultdict(list)
    for n in nodes.values():
        bydesc[n.desc].append(n)
    down = set()
    netcables = read_netfile(opts.net) if opts.net else None
    for ref in opts.down:
        desc, p = parse_portref(ref)
        found = bydesc.get(desc)
        if netcables is not None and (desc, p) not in netcables:
            rep.add('down', '%s is declared down but is not a cable of %s'
                    % (ref, os.path.basename(opts.net)))
        elif not found and netcables is None:
            rep.add('down', '%s is declared down but no node "%s" was discovered'
                    % (ref, desc))
        if not found:
            continue
        for n in found:
            if (n.guid, p) in fab.link:
                peer = fab.link[(n.guid, p)]
                down.add((n.guid, p))
                down.add(peer)
                for end in ((n.guid, p), peer):
                    st = fab.state.get(end)
                    if st and st[0] == 'Active':
                        rep.add('down', '%s is declared down but is %s/%s'
                                % (nodes[end[0]].name(end[1]), st[0], st[1]))

    def usable(end):
        return end in fab.link and end not in down

    # (a) LIDs.
    owner = {}            # LID -> (node GUID, port)
    ca_ports = 0
    for n in nodes.values():
        ports = [0] if n.kind == 'SW' else sorted(p for p in n.lid if (n.guid, p) in fab.link)
        for p in ports:
            if n.kind != 'SW':
                ca_ports += 1
            lid, lmc = n.lid.get(p, 0), n.lmc.get(p, 0)
            if lid == 0 or lid >= 0xC000:
                rep.add('lid', '%s (port GUID 0x%x) has LID %d' % (n.name(p), n.port_guid.get(p, 0), lid))
                continue
            for l in range(lid, lid + (1 << lmc)):
                if l in owner:
                    o = owner[l]
                    rep.add('lid', 'LID %d is used by %s and by %s'
                            % (l, nodes[o[0]].name(o[1]), n.name(p)))
                else:
                    owner[l] = (n.guid, p)

    # (b) Port states.
    seen = set()
    for end in sorted(fab.link):
        if end in down or end in seen:
            continue
        peer = fab.link[end]
        seen.add(end)
        seen.add(peer)
        for e in (end, peer):
            st = fab.state.get(e)
            if st is None:
                rep.add('state', '%s: iblinkinfo reports no state' % nodes[e[0]].name(e[1]))
            elif st[0] != 'Active' or st[1] != 'LinkUp':
                o = peer if e == end else end
                rep.add('state', '%s is %s/%s (link to %s)' % (
                    nodes[e[0]].name(e[1]), st[0], st[1], nodes[o[0]].name(o[1])))
    if opts.net:
        downref = set(parse_portref(r) for r in opts.down)
        got = set()
        for (a, ap), (b, bp) in fab.link.items():
            got.add(((nodes[a].desc, ap), (nodes[b].desc, bp)))
        for (a, ap), (b, bp) in sorted(netcables.items()):
            if (a, ap) > (b, bp):
                continue
            if (a, ap) in downref or (b, bp) in downref:
                continue
            if ((a, ap), (b, bp)) not in got:
                rep.add('cabling', 'cable "%s"[%d] - "%s"[%d] of %s was not discovered'
                        % (a, ap, b, bp, os.path.basename(opts.net)))

    # (c) SMInfo.
    if not opts.skip_master:
        want = opts.sm_guid if opts.sm_guid is not None else fab.local_port_guid
        if isinstance(sminfo, ToolError):
            rep.add('sminfo', 'no SM answers SMInfo: %s' % sminfo)
        else:
            m = SMINFO_RE.search(sminfo)
            if not m:
                rep.add('sminfo', 'cannot parse sminfo output %r' % sminfo.strip())
            else:
                guid, state = int(m.group(2), 16), int(m.group(5))
                if want is not None and guid != want:
                    rep.add('sminfo', 'SM port GUID is 0x%x, expected 0x%x' % (guid, want))
                if state != 3:
                    rep.add('sminfo', 'SM state is %d, expected 3 (MASTER)' % state)

    # (d) LFT walk.
    sw_adj = {s: set() for s in switches}
    for (a, ap), (b, bp) in fab.link.items():
        if a in sw_adj and b in sw_adj and usable((a, ap)):
            sw_adj[a].add(b)
    dist = {}
    for s in switches:                 # BFS from every switch
        d = {s: 0}
        frontier = [s]
        while frontier:
            nxt = []
            for u in frontier:
                for v in sw_adj[u]:
                    if v not in d:
                        d[v] = d[u] + 1
                        nxt.append(v)
            frontier = nxt
        dist[s] = d

    def active(end):
        st = fab.state.get(end)
        return st is not None and st[0] == 'Active'

    for s in switches:
        if s not in lfts:
            rep.add('lft', '%s: dump_fts printed no table' % nodes[s].name())
    # Switches where traffic enters from a CA (for --updown).
    has_ca = set(a for (a, ap), (b, bp) in fab.link.items()
                 if a in sw_adj and b not in sw_adj and usable((a, ap)))
    gaps = 0
    pairs = 0
    hops_hist = collections.Counter()
    faults = collections.OrderedDict()     # message -> source switches affected
    not_shortest = []
    for lid in sorted(owner):
        tg, tp = owner[lid]
        if nodes[tg].kind == 'SW':
            t_sw, t_port, extra = tg, None, 0
        else:
            peer = fab.link.get((tg, tp))
            if peer is None or peer[0] not in sw_adj or not usable((tg, tp)):
                continue               # CA-to-CA cable: no switch routes to it
            t_sw, t_port, extra = peer[0], peer[1], 1
        memo = {}                      # switch -> hops to the LID, or its fault

        for s0 in switches:
            if s0 in memo or s0 not in lfts:
                continue
            path = []
            onpath = set()
            cur = s0
            result = None              # hops from cur, once known
            fault = None
            gap = False                # an unset entry --updown accepts
            while True:
                if cur in memo:
                    if isinstance(memo[cur], str):
                        fault = memo[cur]
                    else:
                        result = memo[cur]
                    break
                if cur in onpath:
                    i = path.index(cur)
                    fault = 'LID %d: forwarding loop %s' % (
                        lid, ' -> '.join(nodes[x].name() for x in path[i:] + [cur]))
                    break
                onpath.add(cur)
                path.append(cur)
                table = lfts.get(cur)
                if table is None:
                    fault = 'LID %d: reaches %s, whose LFT was not read' % (lid, nodes[cur].name())
                    break
                e = table['lft'].get(lid) if lid <= table['top'] else None
                here = nodes[cur]
                if cur == tg:          # destination is this switch
                    if e != 0:
                        fault = 'LID %d: %s is that LID\'s switch but its LFT entry is %s' % (
                            lid, here.name(), 'unset' if e is None else e)
                    else:
                        result = -1    # cur is 0 hops away
                    break
                if e is None:
                    fault = 'LID %d: %s has no LFT entry (0xFF%s)' % (
                        lid, here.name(), ', above LinearFDBTop %d' % table['top']
                        if lid > table['top'] else '')
                    if opts.updown and cur == s0 and (t_port is None
                                                            or cur not in has_ca):
                        gap = True
                    break
                if e == 0 or e > here.nports:
                    fault = 'LID %d: %s LFT entry is port %d (not a valid exit)' % (
                        lid, here.name(), e)
                    break
                if not usable((cur, e)):
                    fault = 'LID %d: %s forwards to port %d, which has no usable link' % (
                        lid, here.name(), e)
                    break
                nb, nbp = fab.link[(cur, e)]
                if not (active((cur, e)) and active((nb, nbp))):
                    fault = 'LID %d: %s forwards to port %d, whose link is not ACTIVE' % (
                        lid, here.name(), e)
                    break
                if nodes[nb].kind != 'SW':
                    if (nb, nbp) == (tg, tp):
                        result = 0     # cur is 1 hop away
                    else:
                        fault = 'LID %d: %s delivers it to %s, which is not that LID\'s port' % (
                            lid, here.name(e), nodes[nb].name(nbp))
                    break
                cur = nb
            # Unwind: path[i] is result + (len(path) - i) hops away; on a
            # fault every switch on the path shares it (the message is the
            # memo value, so later walks that join this path count too).
            if gap:
                gaps += 1              # s0 alone; a switch that leads here fails
                memo[s0] = fault
                continue
            if fault is not None:
                faults.setdefault(fault, []).extend(path)
                for x in path:
                    memo[x] = fault
                continue
            k = len(path)
            for i, x in enumerate(path):
                memo[x] = result + (k - i)
        for s in switches:
            if s not in lfts:
                continue
            pairs += 1
            h = memo.get(s)
            if h is None or isinstance(h, str):
                continue
            hops_hist[h] += 1
            if opts.shortest and not (opts.updown and t_port is None and s not in has_ca):
                best = dist[s].get(t_sw)
                best = None if best is None else best + extra
                if best is None or h != best:
                    not_shortest.append('LID %d from %s: %d hops, shortest is %s' % (
                        lid, nodes[s].name(), h, best))
    for msg, srcs in faults.items():
        n = len(set(srcs))
        rep.add('route', msg + ('' if n <= 1 else ' (on the path from %d switches)' % n))
    for msg in not_shortest:
        rep.add('shortest', msg)

    if opts.loads:
        summary_loads = link_loads(fab, lfts, owner, usable)
    if opts.lmc_spread:
        summary_spread = lmc_spread(fab, lfts, owner, usable)
    cdg = None
    if opts.cdg and opts.path_sl:
        cdg = check_cdg_layers(fab, lfts, owner, usable, read_path_sl(opts.path_sl),
                               opts.sl2vl, rep, opts.ca_paths)
    elif opts.cdg:
        cdg = check_cdg(fab, lfts, owner, usable, rep)

    summary = {
        'nodes': len(nodes),
        'switches': len(switches),
        'cas': sum(1 for n in nodes.values() if n.kind != 'SW'),
        'ca_ports': ca_ports,
        'links': len(fab.link) // 2,
        'lids': len(owner),
        'pairs': pairs,
        'max_hops': max(hops_hist) if hops_hist else 0,
        'hops': {str(k): v for k, v in sorted(hops_hist.items())},
        'down': sorted(opts.down),
    }
    summary['not_shortest'] = len(not_shortest)
    summary['undelivered'] = sum(len(set(v)) for v in faults.values())
    if opts.updown:
        summary['updown_gaps'] = gaps
    if opts.loads:
        summary['loads'] = summary_loads
    if opts.lmc_spread:
        summary['lmc_spread'] = summary_spread
    if cdg is not None:
        summary['cdg'] = cdg
    return summary


def link_loads(fab, lfts, owner, usable, every_lid=False):
    """(f) Load of the routes as read: every CA port sends to every other CA
    port's LID (all-to-all, base LIDs; every LID of the LMC blocks with
    every_lid), and each directed
    switch-to-switch cable counts the routes that cross it; each switch
    egress port towards a switch also counts the CA LIDs its switch's LFT
    sends through it. Routes that do not arrive are left out (the walk
    check reports them)."""
    nodes = fab.nodes
    sw = set(g for g, n in nodes.items() if n.kind == 'SW')
    ca_lid = {}                       # CA LID -> its switch
    srcs = collections.Counter()      # switch -> CA ports behind it
    for lid, (g, p) in owner.items():
        if nodes[g].kind == 'SW':
            continue
        peer = fab.link.get((g, p))
        if peer is None or peer[0] not in sw or not usable((g, p)):
            continue
        ca_lid[lid] = peer[0]
        if lid == nodes[g].lid.get(p):
            srcs[peer[0]] += 1
    if not every_lid:
        ca_lid = {lid: t for lid, t in ca_lid.items()
                  if lid == nodes[owner[lid][0]].lid.get(owner[lid][1])}
    link = collections.Counter()      # (switch, port) -> routes crossing
    port_lids = collections.Counter() # (switch, port) -> CA LIDs sent there
    for lid, t_sw in ca_lid.items():
        for s0, k in srcs.items():
            n = k - (1 if s0 == t_sw else 0)
            cur, hops = s0, 0
            while cur != t_sw and n > 0 and hops < 64:
                table = lfts.get(cur)
                e = None if table is None else table['lft'].get(lid)
                if e is None or not usable((cur, e)):
                    break
                nb = fab.link[(cur, e)][0]
                if nb not in sw:
                    break
                link[(cur, e)] += n
                cur, hops = nb, hops + 1
        for s in sw:
            table = lfts.get(s)
            e = None if table is None else table['lft'].get(lid)
            if e is not None and s != t_sw and usable((s, e)) and \
                    fab.link[(s, e)][0] in sw:
                port_lids[(s, e)] += 1

    def top(c):
        if not c:
            return 0, None
        k, v = max(c.items(), key=lambda kv: (kv[1], kv[0]))
        return v, nodes[k[0]].name(k[1])
    ml, mlname = top(link)
    mp, mpname = top(port_lids)
    # the mean over every usable directed switch-to-switch cable, those no
    # route crosses included
    nlinks = sum(1 for (a, ap), (b, bp) in fab.link.items()
                 if a in sw and b in sw and usable((a, ap)))
    return {'max_link_load': ml, 'max_link': mlname,
            'mean_link_load': sum(link.values()) / nlinks if nlinks else 0.0,
            'max_port_lids': mp, 'max_port': mpname,
            'pairs': sum(srcs.values()) * (sum(srcs.values()) - 1)}


def lmc_spread(fab, lfts, owner, usable):
    """(f') The share of CA ports whose LIDs leave every other leaf through
    different ports, and the loads over every LID."""
    nodes = fab.nodes
    sw = set(g for g, n in nodes.items() if n.kind == 'SW')
    ups = collections.Counter()       # leaf -> its ports towards switches
    leaves = set()
    for (a, ap), (b, bp) in fab.link.items():
        if a in sw and usable((a, ap)):
            if b in sw:
                ups[a] += 1
            else:
                leaves.add(a)
    ca_ports = good = 0
    shown = []
    for n in nodes.values():
        if n.kind == 'SW':
            continue
        for p, lid in n.lid.items():
            peer = fab.link.get((n.guid, p))
            if lid == 0 or peer is None or peer[0] not in sw or \
                    not usable((n.guid, p)):
                continue
            ca_ports += 1
            k = 1 << n.lmc.get(p, 0)
            ok = True
            for leaf in leaves:
                if leaf == peer[0]:
                    continue
                lft = lfts.get(leaf, {'lft': {}})['lft']
                ports = [lft.get(l) for l in range(lid, lid + k)]
                if None in ports or len(set(ports)) < min(k, ups[leaf]):
                    ok = False
                    if len(shown) < MAX_SHOWN:
                        shown.append('LIDs %d-%d of %s leave %s by ports %s (%d to '
                                     'switches)' % (lid, lid + k - 1, n.name(p),
                                                    nodes[leaf].name(), ports, ups[leaf]))
                    break
            good += ok
    base = link_loads(fab, lfts, owner, usable)
    every = link_loads(fab, lfts, owner, usable, every_lid=True)
    return {'ca_ports': ca_ports, 'spread': good,
            'spread_share': round(100.0 * good / ca_ports, 1) if ca_ports else 0.0,
            'max_link_load_base': base['max_link_load'],
            'max_link_load_all': every['max_link_load'],
            'max_link_all': every['max_link'],
            'max_port_lids_all': every['max_port_lids'],
            'max_port_all': every['max_port'], 'unspread': shown}


def check_cdg(fab, lfts, owner, usable, rep):
    """(e): build the channel dependency graph from the tables as read and
    the cabling as discovered, and look for a cycle. Returns the figures
    for the summary."""
    nodes = fab.nodes
    chan_idx = {}          # (switch GUID, port) -> channel number
    chan_end = []          # channel number -> (switch GUID, port, peer GUID, peer port)
    for (a, ap), (b, bp) in sorted(fab.link.items()):
        if nodes[a].kind == 'SW' and nodes[b].kind == 'SW' and usable((a, ap)):
            chan_idx[(a, ap)] = len(chan_end)
            chan_end.append((a, ap, b, bp))
    succ = [set() for _ in chan_end]
    why = {}               # (a, b) -> one LID that makes b depend on a
    used = set()
    tables = [(s, t['lft'], t['top']) for s, t in lfts.items()]
    for lid in sorted(owner):
        out = {}           # switch -> (channel, next switch) for this LID
        for s, lft, top in tables:
            if lid > top:
                continue
            c = chan_idx.get((s, lft.get(lid)))
            if c is not None:
                out[s] = (c, chan_end[c][2])
        for c, nxt in out.values():
            used.add(c)
            d = out.get(nxt)
            if d is not None and d[0] not in succ[c]:
                succ[c].add(d[0])
                why[(c, d[0])] = lid
    edges = sum(len(x) for x in succ)
    cycle = _find_cycle(succ)
    res = {'channels': len(used), 'dependencies': edges, 'acyclic': cycle is None}
    if cycle is None:
        return res
    cycle = _shorten_cycle(succ, cycle)
    res['cycle'] = []

    def cname(c):
        a, ap, b, bp = chan_end[c]
        return '%s->%s' % (nodes[a].name(ap), nodes[b].name(bp))
    # Each arrow names one LID whose route goes from one channel to the next.
    text = cname(cycle[0])
    for i, c in enumerate(cycle):
        d = cycle[(i + 1) % len(cycle)]
        res['cycle'].append(cname(c))
        text += ' =LID %d=> %s' % (why[(c, d)], cname(d))
    rep.add('cdg', 'channel dependency cycle of %d channels (%d channels in use, %d '
            'dependencies): %s' % (len(cycle), len(used), edges, text))
    return res


def read_path_sl(path):
    """{(slid, dlid): sl} from lines "SLID DLID SL" (# comments)."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].split()
            if not line:
                continue
            if len(line) != 3:
                raise SystemExit('fabcheck: %s:%d: want "SLID DLID SL"' % (path, n))
            a, b, c = (int(x, 0) for x in line)
            out[(a, b)] = c
    return out


def check_cdg_layers(fab, lfts, owner, usable, slmap, sl2vl, rep, ca_only=False):
    """(e) per VL: every source LID's path to every destination LID, on
    the VL its SL maps to, from the source's switch along the LFTs. Paths
    of one VL to one LID that meet at a switch share the rest, so each
    switch is walked once per (LID, VL)."""
    nodes = fab.nodes
    chan_idx = {}
    chan_end = []
    for (a, ap), (b, bp) in sorted(fab.link.items()):
        if nodes[a].kind == 'SW' and nodes[b].kind == 'SW' and usable((a, ap)):
            chan_idx[(a, ap)] = len(chan_end)
            chan_end.append((a, ap, b, bp))
    src_sw = {}                        # source LID -> its switch
    for lid, (g, p) in owner.items():
        if nodes[g].kind == 'SW':
            if not ca_only:
                src_sw[lid] = g
        else:
            peer = fab.link.get((g, p))
            if peer is not None and nodes[peer[0]].kind == 'SW' and usable((g, p)):
                src_sw[lid] = peer[0]
    succ = {}                          # VL -> [set of channels]
    why = {}                           # (VL, a, b) -> (slid, dlid)
    paths = collections.Counter()      # VL -> paths
    missing = 0
    out_of = {}                        # (switch, dlid) -> (channel, next switch)
    for dlid in sorted(owner):
        if ca_only and nodes[owner[dlid][0]].kind == 'SW':
            continue
        walked = set()                 # (VL, switch) walked for dlid
        for slid in sorted(src_sw):
            if slid == dlid or owner[slid] == owner[dlid]:
                continue
            sl = slmap.get((slid, dlid))
            if sl is None:
                missing += 1
                sl = 0
            vl = sl2vl[sl] if sl < len(sl2vl) else sl
            paths[vl] += 1
            g = succ.setdefault(vl, [set() for _ in chan_end])
            cur, prev, hops = src_sw[slid], None, 0
            while hops <= len(lfts):
                key = (cur, dlid)
                if key not in out_of:
                    t = lfts.get(cur)
                    c = None if t is None else chan_idx.get((cur, t['lft'].get(dlid)))
                    out_of[key] = (c, None if c is None else chan_end[c][2])
                c, nxt = out_of[key]
                if prev is not None and c is not None and c not in g[prev]:
                    g[prev].add(c)
                    why[(vl, prev, c)] = (slid, dlid)
                if (vl, cur) in walked or c is None:
                    break
                walked.add((vl, cur))
                prev, cur, hops = c, nxt, hops + 1
    res = {'channels': len(chan_end), 'vls': {}, 'acyclic': True,
           'missing_sl': missing,
           'dependencies': sum(len(x) for g in succ.values() for x in g)}

    def cname(c):
        a, ap, b, bp = chan_end[c]
        return '%s->%s' % (nodes[a].name(ap), nodes[b].name(bp))
    for vl in sorted(succ):
        g = succ[vl]
        cycle = _find_cycle(g)
        res['vls'][str(vl)] = {'paths': paths[vl],
                               'dependencies': sum(len(x) for x in g),
                               'acyclic': cycle is None}
        if cycle is None:
            continue
        res['acyclic'] = False
        cycle = _shorten_cycle(g, cycle)
        text = cname(cycle[0])
        for i, c in enumerate(cycle):
            d = cycle[(i + 1) % len(cycle)]
            text += ' =%d->%d=> %s' % (why[(vl, c, d)] + (cname(d),))
        rep.add('cdg', 'VL %d: channel dependency cycle of %d channels: %s'
                % (vl, len(cycle), text))
    return res


def _find_cycle(succ):
    """One cycle of the directed graph succ (list of successor sets) as a
    list of vertices, or None. Iterative DFS, three colours."""
    color = [0] * len(succ)            # 0 new, 1 on the stack, 2 done
    for root in range(len(succ)):
        if color[root]:
            continue
        stack = [(root, iter(succ[root]))]
        color[root] = 1
        while stack:
            v, it = stack[-1]
            for w in it:
                if color[w] == 1:
                    path = [x for x, _ in stack]
                    return path[path.index(w):]
                if color[w] == 0:
                    color[w] = 1
                    stack.append((w, iter(succ[w])))
                    break
            else:
                color[v] = 2
                stack.pop()
    return None


def _shorten_cycle(succ, cycle, tries=64):
    """A shortest cycle through one of the first `tries` vertices of cycle
    (BFS back to the start), so the report is as short as it can be."""
    best = cycle
    for start in cycle[:tries]:
        parent = {start: None}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in succ[v]:
                    if w == start:
                        found = v
                        break
                    if w not in parent:
                        parent[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        if found is None:
            continue
        path = []
        v = found
        while v is not None:
            path.append(v)
            v = parent[v]
        path.reverse()
        if len(path) < len(best):
            best = path
    return best


def read_files(opts):
    """--topology and --fts: the cabling and tables from files, every
    link taken as Active."""
    fab = Fabric()
    with open(opts.topology) as f:
        parse_ibnetdiscover(f.read(), fab)
    for end in fab.link:
        fab.state[end] = ('Active', 'LinkUp')
    # a cable declared down is one the tables were made without
    for ref in opts.down:
        desc, p = parse_portref(ref)
        for n in fab.nodes.values():
            if n.desc == desc and (n.guid, p) in fab.link:
                fab.state[(n.guid, p)] = ('Down', 'Polling')
                fab.state[fab.link[(n.guid, p)]] = ('Down', 'Polling')
    with open(opts.fts) as f:
        lfts = parse_dump_fts(f.read())
    return fab, lfts, None


def read_fabric(diags, opts):
    fab = Fabric()
    with tempfile.TemporaryDirectory(prefix='fabcheck.') as tmp:
        cache = os.path.join(tmp, 'ibnd.cache')
        nd = diags.run('ibnetdiscover', '--cache', cache)
        parse_ibnetdiscover(nd, fab)
        # Same scan, so the states match the cabling just parsed.
        parse_iblinkinfo(diags.run('iblinkinfo', '-l', '--load-cache', cache), fab)
    if opts.save_topology:
        with open(opts.save_topology, 'w') as f:
            f.write(nd)
    # -a: also the entries dump_fts deems invalid (a port beyond the switch's
    # ports), which must be reported, not taken for unset.
    fts = diags.run('dump_fts', '-a', '-n')
    lfts = parse_dump_fts(fts)
    # infiniband-diags 44 dump_fts never reads the block that starts at
    # LinearFDBTop when the top is a multiple of 64: read it ourselves.
    for guid, t in lfts.items():
        top = t['top']
        if top and top % 64 == 0 and t['path']:
            blk = parse_smpdump_block(diags.run('smpdump', '-D', t['path'], '0x19', str(top // 64)))
            port = blk[0]
            if port != 0xFF:
                t['lft'][top] = port
            else:
                t['lft'].pop(top, None)
    if opts.save_fts:
        # the entries as parsed, the top block's own read included
        with open(opts.save_fts, 'w') as f:
            for guid, t in sorted(lfts.items()):
                f.write('Unicast lids [0x0-0x%x] of switch %s guid 0x%016x (%s):\n'
                        % (t['top'], 'DR path slid 0; dlid 0; %s' % t['path']
                           if t['path'] else 'Lid 0', guid, fab.nodes[guid].desc
                           if guid in fab.nodes else ''))
                for lid, port in sorted(t['lft'].items()):
                    f.write('0x%04x %03d\n' % (lid, port))
    sminfo = None
    if not opts.skip_master:
        try:
            sminfo = diags.run('sminfo')
        except ToolError as e:
            sminfo = e
    return fab, lfts, sminfo


def save_routes(fab, lfts, path):
    """Tables and cabling as read, for a later --changed-since."""
    data = {
        'lfts': {'%x' % g: {str(l): p for l, p in t['lft'].items()}
                 for g, t in lfts.items()},
        'link': [[a, ap, b, bp] for (a, ap), (b, bp) in fab.link.items()],
        'desc': {'%x' % g: n.desc for g, n in fab.nodes.items()},
        'switch': ['%x' % g for g, n in fab.nodes.items() if n.kind == 'SW'],
        # LID -> [node GUID, port, port GUID] (a switch's: port 0)
        'lids': {str(l): ['%x' % g, p, '%x' % n.port_guid.get(p, 0)]
                 for g, n in fab.nodes.items() for p, l in n.lid.items() if l},
    }
    with open(path, 'w') as f:
        json.dump(data, f)


def routes_changed(fab, lfts, opts, rep):
    """(g): entries changed since the saved tables, each of whose saved
    route must have crossed a cut cable or gone nowhere."""
    with open(opts.changed_since) as f:
        saved = json.load(f)
    old = {int(g, 16): {int(l): p for l, p in t.items()}
           for g, t in saved['lfts'].items()}
    link = {(a, ap): (b, bp) for a, ap, b, bp in saved['link']}
    desc = {int(g, 16): d for g, d in saved['desc'].items()}
    sws = set(int(g, 16) for g in saved['switch'])
    cut = set()
    for ref in opts.cut:
        d, p = parse_portref(ref)
        ends = [(g, p) for g, dd in desc.items() if dd == d and (g, p) in link]
        if not ends:
            rep.add('changed', '--cut %s: no such cable in the saved cabling' % ref)
        for e in ends:
            cut.add(e)
            cut.add(link[e])

    def crosses(s, lid):
        """Did the saved route of lid from switch s cross the cut (or not
        arrive)?"""
        cur, seen = s, set()
        while cur in sws and cur not in seen:
            seen.add(cur)
            e = old.get(cur, {}).get(lid)
            if e is None:
                return True
            if e == 0:
                return False
            if (cur, e) in cut:
                return True
            if (cur, e) not in link:
                return True
            cur = link[(cur, e)][0]
        return cur in sws

    must = minimal_set(saved, old, link, sws, cut, opts.minimal) if opts.minimal else None
    changed, blocks, bad, crossing, excess, kept = 0, set(), 0, 0, 0, 0
    for s in sorted(sws):
        a = old.get(s, {})
        b = lfts[s]['lft'] if s in lfts else {}
        for lid in sorted(set(a) | set(b)):
            if crosses(s, lid):
                crossing += 1
            if must is not None:
                m = (s, lid) in must
                ch = a.get(lid) != b.get(lid)
                if m != ch:
                    if m:
                        kept += 1
                    else:
                        excess += 1
                    if kept + excess <= 20:
                        rep.add('changed', 'LID %d at %s: port %s -> %s, %s' % (
                            lid, desc.get(s, '0x%x' % s), a.get(lid), b.get(lid),
                            'kept though %s must change it' % opts.minimal if m else
                            'changed beyond the %s minimum' % opts.minimal))
            if a.get(lid) == b.get(lid):
                continue
            changed += 1
            blocks.add((s, lid // 64))
            if not crosses(s, lid):
                bad += 1
                if bad <= 20:
                    rep.add('changed', 'LID %d at %s: port %s -> %s, though its route '
                            'did not cross %s' % (lid, desc.get(s, '0x%x' % s), a.get(lid),
                                                  b.get(lid), ' '.join(opts.cut)))
    if bad > 20:
        rep.add('changed', '... %d more entries changed whose routes did not cross the cut'
                % (bad - 20))
    if kept + excess > 20:
        rep.add('changed', '... %d more entries off the %s minimum' % (
            kept + excess - 20, opts.minimal))
    out = {'entries': changed, 'blocks': len(blocks), 'crossing': crossing,
           'unrelated': bad}
    if must is not None:
        out.update({'minimal': len(must), 'minimal_blocks':
                    len(set((s, l // 64) for s, l in must)), 'excess': excess,
                    'kept': kept})
    return out


def updown_sets(t, adj, rank):
    """-> (D, U): switches with a route to t going only down, and with one
    going up then down, over adj, in the order rank (a hop to a higher
    rank goes up)."""
    dd, q = {t}, [t]
    for x in q:
        for y in adj[x]:
            if rank[y] > rank[x] and y not in dd:
                dd.add(y)
                q.append(y)
    uu, q = set(dd), list(dd)
    for x in q:
        for y in adj[x]:
            if rank[y] < rank[x] and y not in uu:
                uu.add(y)
                q.append(y)
    return dd, uu


def minimal_set(saved, old, link, sws, cut, kind):
    """(h) with --minimal: the (switch, LID) entries of the saved tables a
    cut forces to change: those whose port is lost, and those whose next
    switch no longer continues the route as kind requires: minhop, one hop
    nearer on the cabling left (the hop count through it grew); updown,
    still up*down* (up: the next switch has a route up then down; down:
    one going only down), in the order of heights above the switches with
    CAs, ties by GUID, where it was before the cut."""
    nlink = {k: v for k, v in link.items() if k not in cut}
    adj = {x: [] for x in sws}
    for (a, ap), (b, bp) in nlink.items():
        if a in sws and b in sws:
            adj[a].append(b)
    adj0 = {x: [] for x in sws}         # before the cut
    for (a, ap), (b, bp) in link.items():
        if a in sws and b in sws:
            adj0[a].append(b)
    h = {a: 0 for (a, ap), (b, bp) in link.items() if a in sws and b not in sws}
    q = list(h)
    for x in q:
        for (a, ap), (b, bp) in link.items():
            if a == x and b in sws and b not in h:
                h[b] = h[x] + 1
                q.append(b)
    rank = {x: (h.get(x, 0), x) for x in sws}
    must = set()
    for lid_s, v in saved.get('lids', {}).items():
        lid, g, p = int(lid_s), int(v[0], 16), v[1]
        t = g if g in sws else link.get((g, p), (None,))[0]
        if t is None:
            continue
        if kind == 'minhop':
            near, q = {t: 0}, [t]
            for x in q:
                for y in adj[x]:
                    if y not in near:
                        near[y] = near[x] + 1
                        q.append(y)
        else:
            dd, uu = updown_sets(t, adj, rank)
            dd0, uu0 = updown_sets(t, adj0, rank)
        for s in sws:
            e = old.get(s, {}).get(lid)
            if s == t or e is None or e == 255:
                continue
            nb = nlink.get((s, e))
            if nb is None or nb[0] not in sws:
                must.add((s, lid))
                continue
            n = nb[0]
            if kind == 'minhop':
                keep = s in near and n in near and near[n] == near[s] - 1
            else:
                # forced only where the cut breaks it: a hop that was not
                # up*down* before (ftree's hub turns) is not
                up_hop = rank[n] > rank[s]
                keep = n in (uu if up_hop else dd) or \
                    n not in (uu0 if up_hop else dd0)
            if not keep:
                must.add((s, lid))
    return must


def dump_lids(fab, path):
    with open(path, 'w') as f:
        for n in sorted(fab.nodes.values(), key=lambda n: n.guid):
            ports = [0] if n.kind == 'SW' else sorted(p for p in n.lid if (n.guid, p) in fab.link)
            for p in ports:
                f.write('0x%016x %d %d "%s"[%d]\n' % (n.port_guid.get(p, 0), n.lid.get(p, 0),
                                                      n.lmc.get(p, 0), n.desc, p))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--down', action='append', default=[], metavar='NODE[PORT]',
                    help='a link declared down (by node description); repeatable')
    ap.add_argument('--sm-guid', type=lambda s: int(s, 0), default=None,
                    help='expected SM port GUID (default: the port the tools are attached '
                         'to, i.e. the first node of the net file or SIM_HOST)')
    ap.add_argument('--skip-master', action='store_true', help='skip the SMInfo check')
    ap.add_argument('--shortest', dest='shortest', action='store_true', default=True,
                    help='require shortest paths (default)')
    ap.add_argument('--no-shortest', dest='shortest', action='store_false',
                    help='accept any loop-free path')
    ap.add_argument('--updown', action='store_true',
                    help='judge up/down routes (updn, ftree): accept an unset (0xFF) entry on '
                         'a switch for a switch\'s LID, or for any LID on a switch without '
                         'CAs, and a detour (not shortest) from a switch without CAs to a '
                         'switch\'s LID; CA-to-CA routes and every route a switch forwards '
                         'into must still arrive')
    ap.add_argument('--cdg', action='store_true',
                    help='also require an acyclic channel dependency graph (deadlock-free '
                         'routes on one VL); a cycle is reported with its channels')
    ap.add_argument('--loads', action='store_true',
                    help='print the busiest cable\'s all-to-all CA routes and the busiest '
                         'switch port\'s CA LIDs (max_link_load, max_port_lids)')
    ap.add_argument('--lmc-spread', action='store_true',
                    help='print the share of CA ports whose LIDs leave every other leaf '
                         'through different ports, and the loads over every LID')
    ap.add_argument('--net', help='ibsim net file: every cable in it must be discovered '
                                  'unless declared down')
    ap.add_argument('--json', action='store_true', help='print a JSON summary')
    ap.add_argument('--dump-lids', metavar='FILE',
                    help='write "port-GUID LID LMC node[port]" for every port to FILE')
    ap.add_argument('--save-topology', metavar='FILE', help='keep ibnetdiscover output')
    ap.add_argument('--save-routes', metavar='FILE',
                    help='keep the tables and cabling as read, for --changed-since')
    ap.add_argument('--changed-since', metavar='FILE',
                    help='entries that differ from the tables --save-routes kept in FILE '
                         'must have had routes crossing a --cut cable (or going nowhere)')
    ap.add_argument('--minimal', choices=('minhop', 'updown'),
                    help='with --changed-since and --cut: the entries changed must be '
                         'exactly those the cut forces to change (port lost, or the '
                         'next switch no longer one hop nearer / no longer up*down*)')
    ap.add_argument('--cut', action='append', default=[], metavar='NODE[PORT]',
                    help='a cable cut since --save-routes (with --changed-since); repeatable')
    ap.add_argument('--preload', help='LD_PRELOAD of the diags on the simulator: the '
                    'umadfix device (default: $SIM_PRELOAD, else $UMADFIX)')
    ap.add_argument('--path-sl', metavar='FILE',
                    help='with --cdg: per-path SLs ("SLID DLID SL" lines); one channel '
                         'dependency graph per VL, each must be acyclic')
    ap.add_argument('--ca-paths', action='store_true',
                    help='with --path-sl: only the paths between CA ports')
    ap.add_argument('--sl2vl', default='0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15',
                    help='SL-to-VL map for --path-sl, 16 VLs by SL (default: VL = SL)')
    ap.add_argument('--topology', metavar='FILE',
                    help='read the cabling from an ibnetdiscover output (with --fts: run '
                         'no tool)')
    ap.add_argument('--fts', metavar='FILE', help='read the tables from a dump_fts output')
    ap.add_argument('--save-fts', metavar='FILE',
                    help='keep the tables as read, in dump_fts form (for --fts)')
    ap.add_argument('--no-preload', action='store_true', help='real fabric: no LD_PRELOAD')
    ap.add_argument('--prefix', help='command prefix for every tool, e.g. "sudo"')
    ap.add_argument('--timeout', type=int, default=600, help='seconds per tool (default 600)')
    opts = ap.parse_args()
    try:
        opts.sl2vl = [int(x, 0) for x in opts.sl2vl.split(',')]
    except ValueError:
        ap.error('--sl2vl: a comma-separated list of VLs')
    if bool(opts.topology) != bool(opts.fts):
        ap.error('--topology and --fts go together')

    try:
        if opts.topology:
            opts.skip_master = True
            diags = None
            fab, lfts, sminfo = read_files(opts)
        else:
            diags = Diags(opts)
            fab, lfts, sminfo = read_fabric(diags, opts)
    except ToolError as e:
        sys.stderr.write('fabcheck: %s\n' % e)
        return 2
    if opts.dump_lids:
        dump_lids(fab, opts.dump_lids)
    if opts.save_routes:
        save_routes(fab, lfts, opts.save_routes)
    rep = Report()
    summary = check(fab, lfts, sminfo, opts, rep)
    if opts.changed_since:
        summary['changed'] = routes_changed(fab, lfts, opts, rep)
    summary['ok'] = rep.count() == 0
    summary['violations'] = rep.lines()
    summary['tool_runs'] = diags.calls if diags else 0
    if opts.json:
        print(json.dumps(summary, indent=1))
        return 0 if summary['ok'] else 1
    if not summary['ok']:
        for line in rep.lines():
            print(line)
        print('fabcheck: FAIL: %d violation(s)' % rep.count())
        return 1
    print('fabcheck: OK: %d nodes (%d switches, %d CAs), %d CA ports, %d links, %d LIDs, '
          '%d (switch, LID) pairs checked, max %d hops%s%s%s' % (
              summary['nodes'], summary['switches'], summary['cas'], summary['ca_ports'],
              summary['links'], summary['lids'], summary['pairs'], summary['max_hops'],
              '' if not summary.get('updown_gaps') else
              ', %d up/down gaps accepted' % summary['updown_gaps'],
              '' if 'cdg' not in summary else
              ', channel dependencies acyclic (%d channels, %d dependencies%s)' % (
                  summary['cdg']['channels'], summary['cdg']['dependencies'],
                  '' if 'vls' not in summary['cdg'] else
                  ' on %d VLs' % len(summary['cdg']['vls'])),
              '' if not opts.down else ', down: ' + ' '.join(opts.down)))
    if opts.changed_since:
        c = summary['changed']
        print('fabcheck: changed: %d entries in %d blocks, all on routes that crossed %s '
              '(%d entries did)' % (c['entries'], c['blocks'], ' '.join(opts.cut),
                                    c['crossing']))
        if 'minimal' in c:
            print('fabcheck: minimal (%s): %d entries in %d blocks; %d changed beyond '
                  'it, %d kept inside it' % (opts.minimal, c['minimal'],
                                             c['minimal_blocks'], c['excess'], c['kept']))
    if opts.loads:
        ld = summary['loads']
        print('fabcheck: loads: max_link_load %d (%s) mean %.1f max_port_lids %d (%s) over '
              '%d CA pairs' % (ld['max_link_load'], ld['max_link'], ld['mean_link_load'],
                               ld['max_port_lids'], ld['max_port'], ld['pairs']))
    if opts.lmc_spread:
        ls = summary['lmc_spread']
        print('fabcheck: lmc-spread: spread_share %.1f %% (%d of %d CA ports) '
              'max_link_load_all %d (%s) max_port_lids_all %d (%s) max_link_load_base %d'
              % (ls['spread_share'], ls['spread'], ls['ca_ports'], ls['max_link_load_all'],
                 ls['max_link_all'], ls['max_port_lids_all'], ls['max_port_all'],
                 ls['max_link_load_base']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
