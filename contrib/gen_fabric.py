#!/usr/bin/env python3
"""gen_fabric.py: write an ibsim net file (the topology format that
ibnetdiscover prints and ibsim reads) to stdout.

usage: gen_fabric.py [options] KIND ARGS...

kinds:
  ft2 K          two-level fat tree of K-port switches: K leaves, K/2 spines,
                 K/2 HCAs per leaf (K*K/2 HCAs)
  ft3 K          k-ary three-level fat tree: K pods of K/2 edge and K/2
                 aggregation switches, (K/2)^2 cores, K/2 HCAs per edge
                 switch (K^3/4 HCAs, 5K^2/4 switches)
  ring N H       N switches in a ring, H HCAs on each
  dual K         two-level fat tree (K leaves, K/2 spines) whose K*K/4 HCAs
                 are dual-homed: port 1 to leaf 2i, port 2 to leaf 2i+1
  random N D H   connected irregular fabric: N switches, inter-switch degree
                 up to D, H HCAs on each (depends on --seed)
  torus X Y H    2-D torus of X*Y switches with wrap-around links, H HCAs on
                 each
  torus3 X Y Z H 3-D torus of X*Y*Z switches with wrap-around links, H HCAs
                 on each
  dragonfly G A H
                 dragonfly of G groups of A switches: the switches of a group
                 cabled all to all, one global cable between every two
                 groups (group g's k-th global cable, k = h for a group h
                 below g and h - 1 above, on its switch k mod A), H HCAs on
                 each switch (G*A*H HCAs; a switch has A-1 local ports,
                 ceil((G-1)/A) global ones, then its HCAs)

options:
  --hca-ports 1|2      ports per HCA (default 2; port 2 is left uncabled
                       except by `dual`)
  --remove-links N     remove N inter-switch links at random, keeping the
                       switches connected
  --remove-frac F      remove that fraction of the inter-switch links (same rule)
  --seed S             seed for `random` and link removal (default 1)
  --uncable NODE[P]    remove the cable of port P of NODE (repeatable), e.g.
                       --uncable 'h3[2]'
  --down NODE[P]       keep the cable of port P of NODE but record, in a
                       `# sim-down: "NODE"[P]` header line, that tests must
                       take it down (ibsim console Unlink) before the SM
                       starts (repeatable; tests/sim/lib.sh applies it)
  --comment TEXT       add a `# TEXT` line to the header (repeatable)
  -h, --help           this text

The first HCA is written first: ibsim attaches its clients (hence the SM and
the diagnostic tools) to the first node of the file unless SIM_HOST says
otherwise. Switch names: leafN/spineN (ft2, dual), podPedgeE/podPaggA/coreC
(ft3), swN (ring, random), swX_Y (torus), swX_Y_Z (torus3), gG_sI
(dragonfly). HCA names: hN, or the switch name followed by -hN for ft3,
ring, random, torus, torus3 and dragonfly.
"""

import random
import re
import sys


class Fabric:
    """Nodes in output order plus a symmetric port-to-port cable map."""

    def __init__(self):
        self.nodes = []          # [kind, nports, name]; kind 'Hca' or 'Switch'
        self.byname = {}
        self.cable = {}          # (name, port) -> (name, port)
        self.header = []

    def add(self, kind, nports, name):
        if name in self.byname:
            raise ValueError('duplicate node name %s' % name)
        node = [kind, nports, name]
        self.nodes.append(node)
        self.byname[name] = node
        return name

    def connect(self, a, ap, b, bp):
        for n, p in ((a, ap), (b, bp)):
            if not 1 <= p <= self.byname[n][1]:
                raise ValueError('%s has no port %d' % (n, p))
            if (n, p) in self.cable:
                raise ValueError('%s[%d] is already cabled' % (n, p))
        self.cable[(a, ap)] = (b, bp)
        self.cable[(b, bp)] = (a, ap)

    def disconnect(self, a, ap):
        b, bp = self.cable.pop((a, ap))
        del self.cable[(b, bp)]
        return b, bp

    def switches(self):
        return [n[2] for n in self.nodes if n[0] == 'Switch']

    def isl(self):
        """Inter-switch links, each once, in a stable order."""
        sw = set(self.switches())
        out = []
        for (a, ap), (b, bp) in sorted(self.cable.items()):
            if a in sw and b in sw and (a, ap) < (b, bp):
                out.append((a, ap, b, bp))
        return out

    def switches_connected(self):
        sw = self.switches()
        if not sw:
            return True
        swset = set(sw)
        adj = {s: [] for s in sw}
        for (a, _ap), (b, _bp) in self.cable.items():
            if a in swset and b in swset:
                adj[a].append(b)
        seen = {sw[0]}
        todo = [sw[0]]
        while todo:
            for v in adj[todo.pop()]:
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        return len(seen) == len(sw)

    def write(self, out):
        for line in self.header:
            out.write('# %s\n' % line)
        if self.header:
            out.write('\n')
        # HCAs first (the SM attaches to the first node), then switches.
        order = [n for n in self.nodes if n[0] == 'Hca'] + \
                [n for n in self.nodes if n[0] == 'Switch']
        for kind, nports, name in order:
            out.write('%s\t%d "%s"\n' % (kind, nports, name))
            for p in range(1, nports + 1):
                peer = self.cable.get((name, p))
                if peer:
                    out.write('[%d]\t"%s"[%d]\n' % (p, peer[0], peer[1]))
            out.write('\n')


def usage_error(msg):
    sys.stderr.write('gen_fabric.py: %s\n(gen_fabric.py -h for help)\n' % msg)
    sys.exit(2)


def even(k, what):
    if k < 2 or k % 2:
        usage_error('%s: K must be an even number >= 2' % what)


def gen_ft2(f, k, hports):
    even(k, 'ft2')
    half = k // 2
    hcas = []
    for li in range(k):
        for j in range(half):
            hcas.append(f.add('Hca', hports, 'h%d' % (li * half + j)))
    leaves = [f.add('Switch', k, 'leaf%d' % i) for i in range(k)]
    spines = [f.add('Switch', k, 'spine%d' % i) for i in range(half)]
    for li, leaf in enumerate(leaves):
        for j in range(half):           # ports 1..K/2 down to the HCAs
            f.connect(hcas[li * half + j], 1, leaf, j + 1)
        for si, spine in enumerate(spines):  # ports K/2+1..K up
            f.connect(leaf, half + 1 + si, spine, li + 1)


def gen_ft3(f, k, hports):
    even(k, 'ft3')
    half = k // 2
    for p in range(k):
        for e in range(half):
            for j in range(half):
                f.add('Hca', hports, 'pod%dedge%d-h%d' % (p, e, j))
    for p in range(k):
        edges = [f.add('Switch', k, 'pod%dedge%d' % (p, e)) for e in range(half)]
        aggs = [f.add('Switch', k, 'pod%dagg%d' % (p, a)) for a in range(half)]
        for e, edge in enumerate(edges):
            for j in range(half):
                f.connect('%s-h%d' % (edge, j), 1, edge, j + 1)
            for a, agg in enumerate(aggs):
                f.connect(edge, half + 1 + a, agg, e + 1)
    cores = [f.add('Switch', k, 'core%d' % c) for c in range(half * half)]
    # Aggregation switch a of every pod reaches cores a*K/2 .. a*K/2+K/2-1;
    # core c uses its port p+1 for pod p.
    for p in range(k):
        for a in range(half):
            for j in range(half):
                f.connect('pod%dagg%d' % (p, a), half + 1 + j,
                          cores[a * half + j], p + 1)


def hcas_on(f, sw, first_port, h, hports):
    for j in range(h):
        f.connect(f.add('Hca', hports, '%s-h%d' % (sw, j)), 1, sw, first_port + j)


def gen_ring(f, n, h, hports):
    if n < 1 or h < 0:
        usage_error('ring: need N >= 1, H >= 0')
    names = ['sw%d' % i for i in range(n)]
    for s in names:
        f.add('Switch', max(8, 2 + h), s)
    # port 1 clockwise, port 2 counter-clockwise, HCAs from port 3
    if n == 2:
        f.connect(names[0], 1, names[1], 2)
    elif n > 2:
        for i in range(n):
            f.connect(names[i], 1, names[(i + 1) % n], 2)
    for s in names:
        hcas_on(f, s, 3, h, hports)


def gen_dual(f, k):
    if k < 4 or k % 4:
        usage_error('dual: K must be a multiple of 4')
    half = k // 2
    for i in range(k * k // 4):
        f.add('Hca', 2, 'h%d' % i)
    leaves = [f.add('Switch', k, 'leaf%d' % i) for i in range(k)]
    spines = [f.add('Switch', k, 'spine%d' % i) for i in range(half)]
    for pair in range(k // 2):
        for j in range(half):
            h = 'h%d' % (pair * half + j)
            f.connect(h, 1, leaves[2 * pair], j + 1)
            f.connect(h, 2, leaves[2 * pair + 1], j + 1)
    for li, leaf in enumerate(leaves):
        for si, spine in enumerate(spines):
            f.connect(leaf, half + 1 + si, spine, li + 1)


def gen_random(f, n, d, h, hports, rng):
    if n < 1 or h < 0 or (n > 2 and d < 2) or (n == 2 and d < 1):
        usage_error('random: need N >= 1, D >= 2 (1 for N = 2), H >= 0')
    names = ['sw%d' % i for i in range(n)]
    for s in names:
        f.add('Switch', max(8, d + h), s)
    deg = dict.fromkeys(names, 0)
    edges = set()

    def add_edge(a, b):
        edges.add((a, b) if a < b else (b, a))
        deg[a] += 1
        deg[b] += 1

    # Spanning tree first (each new switch hangs off a random earlier one
    # with spare degree), so the result is connected whatever the seed.
    order = names[:]
    rng.shuffle(order)
    for i in range(1, n):
        room = [s for s in order[:i] if deg[s] < d]
        add_edge(order[i], rng.choice(room))
    # Then random extra links until no pair with spare degree is left.
    # Sample pairs; fall back to listing them only when sampling keeps
    # hitting existing links (near the end), so big N stays fast.
    def linked(a, b):
        return ((a, b) if a < b else (b, a)) in edges

    while True:
        room = [s for s in names if deg[s] < d]
        if len(room) < 2:
            break
        for _ in range(32):
            a, b = rng.sample(room, 2)
            if not linked(a, b):
                break
        else:
            pairs = [(a, b) for i, a in enumerate(room) for b in room[i + 1:]
                     if not linked(a, b)]
            if not pairs:
                break
            a, b = rng.choice(pairs)
        add_edge(a, b)
    nextport = dict.fromkeys(names, 1)
    key = {s: i for i, s in enumerate(names)}
    for a, b in sorted(edges, key=lambda e: (key[e[0]], key[e[1]])):
        f.connect(a, nextport[a], b, nextport[b])
        nextport[a] += 1
        nextport[b] += 1
    for s in names:
        hcas_on(f, s, d + 1, h, hports)


def gen_torus(f, x, y, h, hports):
    if x < 1 or y < 1 or h < 0:
        usage_error('torus: need X >= 1, Y >= 1, H >= 0')
    name = {(i, j): 'sw%d_%d' % (i, j) for i in range(x) for j in range(y)}
    for j in range(y):
        for i in range(x):
            f.add('Switch', max(8, 4 + h), name[(i, j)])
    # +X on port 1, -X on port 2, +Y on port 3, -Y on port 4; a dimension
    # of size 2 has a single link, size 1 none.
    for j in range(y):
        for i in range(x):
            if x > 2 or (x == 2 and i == 0):
                f.connect(name[(i, j)], 1, name[((i + 1) % x, j)], 2)
            if y > 2 or (y == 2 and j == 0):
                f.connect(name[(i, j)], 3, name[(i, (j + 1) % y)], 4)
    for j in range(y):
        for i in range(x):
            hcas_on(f, name[(i, j)], 5, h, hports)


def gen_torus3(f, x, y, z, h, hports):
    if x < 1 or y < 1 or z < 1 or h < 0:
        usage_error('torus3: need X >= 1, Y >= 1, Z >= 1, H >= 0')
    dims = (x, y, z)
    coords = [(i, j, k) for k in range(z) for j in range(y) for i in range(x)]
    name = {c: 'sw%d_%d_%d' % c for c in coords}
    for c in coords:
        f.add('Switch', max(8, 6 + h), name[c])
    # dimension d: + on port 2d+1, - on port 2d+2; size 2 has one link,
    # size 1 none (as torus)
    for c in coords:
        for d in range(3):
            n = dims[d]
            if n > 2 or (n == 2 and c[d] == 0):
                nb = list(c)
                nb[d] = (c[d] + 1) % n
                f.connect(name[c], 2 * d + 1, name[tuple(nb)], 2 * d + 2)
    for c in coords:
        hcas_on(f, name[c], 7, h, hports)


def gen_dragonfly(f, g, a, h, hports):
    if g < 1 or a < 1 or h < 0:
        usage_error('dragonfly: need G >= 1, A >= 1, H >= 0')
    glob = (g - 1 + a - 1) // a       # global ports per switch
    name = {(gi, i): 'g%d_s%d' % (gi, i) for gi in range(g) for i in range(a)}
    for gi in range(g):
        for i in range(a):
            f.add('Switch', max(8, a - 1 + glob + h), name[(gi, i)])
    # local: ports 1..A-1 to the group's other switches in switch order
    for gi in range(g):
        for i in range(a):
            for j in range(i + 1, a):
                f.connect(name[(gi, i)], j, name[(gi, j)], i + 1)
    # global: group g's k-th cable on switch k % A, port A + k // A
    for gi in range(g):
        for hi in range(gi + 1, g):
            k, j = hi - 1, gi
            f.connect(name[(gi, k % a)], a + k // a,
                      name[(hi, j % a)], a + j // a)
    for gi in range(g):
        for i in range(a):
            hcas_on(f, name[(gi, i)], a + glob, h, hports)


def remove_isl(f, count, rng):
    """Remove up to `count` random inter-switch links; never disconnect
    the switches. Returns how many were removed."""
    cands = f.isl()
    rng.shuffle(cands)
    done = 0
    for a, ap, b, bp in cands:
        if done == count:
            break
        f.disconnect(a, ap)
        if f.switches_connected():
            done += 1
        else:
            f.connect(a, ap, b, bp)
    return done


PORTREF = re.compile(r'^"?([^"\[\]]+)"?\[(\d+)\]$')


def parse_portref(s):
    m = PORTREF.match(s.strip())
    if not m:
        usage_error('bad port reference %r (want NODE[PORT])' % s)
    return m.group(1), int(m.group(2))


def parse_args(argv):
    opts = {'hca_ports': 2, 'remove_links': 0, 'remove_frac': 0.0, 'seed': 1,
            'uncable': [], 'down': [], 'comment': []}
    pos = []
    i = 0
    valued = {'--hca-ports': 'hca_ports', '--remove-links': 'remove_links',
              '--remove-frac': 'remove_frac', '--seed': 'seed',
              '--uncable': 'uncable', '--down': 'down', '--comment': 'comment'}
    while i < len(argv):
        a = argv[i]
        if a in ('-h', '--help'):
            sys.stdout.write(__doc__)
            sys.exit(0)
        opt, eq, val = a.partition('=')
        if opt in valued:
            if not eq:
                i += 1
                if i == len(argv):
                    usage_error('%s needs a value' % opt)
                val = argv[i]
            key = valued[opt]
            try:
                if isinstance(opts[key], list):
                    opts[key].append(val)
                elif key == 'remove_frac':
                    opts[key] = float(val)
                else:
                    opts[key] = int(val, 0)
            except ValueError:
                usage_error('bad value %r for %s' % (val, opt))
        elif a.startswith('-') and not re.match(r'^-\d', a):
            usage_error('unknown option %s' % a)
        else:
            pos.append(a)
        i += 1
    if opts['hca_ports'] not in (1, 2):
        usage_error('--hca-ports must be 1 or 2')
    if not 0.0 <= opts['remove_frac'] <= 1.0:
        usage_error('--remove-frac must be between 0 and 1')
    return pos, opts


def main(argv):
    pos, o = parse_args(argv)
    nargs = {'ft2': 1, 'ft3': 1, 'ring': 2, 'dual': 1, 'random': 3, 'torus': 3,
             'torus3': 4, 'dragonfly': 3}
    if not pos:
        usage_error('no fabric kind given')
    kind = pos[0]
    if kind not in nargs:
        usage_error('unknown kind %r' % kind)
    if len(pos) != 1 + nargs[kind]:
        usage_error('%s takes %d numeric argument(s)' % (kind, nargs[kind]))
    try:
        a = [int(x, 0) for x in pos[1:]]
    except ValueError:
        usage_error('%s: arguments must be integers' % kind)
    rng = random.Random(o['seed'])
    hp = o['hca_ports']
    f = Fabric()
    if kind == 'ft2':
        gen_ft2(f, a[0], hp)
    elif kind == 'ft3':
        gen_ft3(f, a[0], hp)
    elif kind == 'ring':
        gen_ring(f, a[0], a[1], hp)
    elif kind == 'dual':
        if hp != 2:
            usage_error('dual needs --hca-ports 2')
        gen_dual(f, a[0])
    elif kind == 'random':
        gen_random(f, a[0], a[1], a[2], hp, rng)
    elif kind == 'torus':
        gen_torus(f, a[0], a[1], a[2], hp)
    elif kind == 'torus3':
        gen_torus3(f, a[0], a[1], a[2], a[3], hp)
    else:
        gen_dragonfly(f, a[0], a[1], a[2], hp)

    nrm = o['remove_links']
    if o['remove_frac']:
        nrm = max(nrm, int(round(len(f.isl()) * o['remove_frac'])))
    removed = remove_isl(f, nrm, rng) if nrm else 0
    if removed < nrm:
        sys.stderr.write('gen_fabric.py: removed only %d of %d links (the rest '
                         'would disconnect the switches)\n' % (removed, nrm))

    for ref in o['uncable']:
        n, p = parse_portref(ref)
        if (n, p) not in f.cable:
            usage_error('--uncable %s: no such cabled port' % ref)
        f.disconnect(n, p)
    downs = []
    for ref in o['down']:
        n, p = parse_portref(ref)
        if (n, p) not in f.cable:
            usage_error('--down %s: no such cabled port' % ref)
        downs.append((n, p))

    shown, skip = [], False
    for q in argv:
        if skip:
            skip = False
        elif q == '--comment':
            skip = True
        elif not q.startswith('--comment='):
            shown.append(q if re.match(r'^[\w.,=/+-]+$', q) else "'%s'" % q)
    f.header.append('Generated by: %s%s' % (' '.join(['gen_fabric.py'] + shown),
                    ' (plus --comment for each comment line)' if o['comment'] else ''))
    nsw = len(f.switches())
    f.header.append('%d HCAs, %d switches, %d inter-switch links, %d cables'
                    % (len(f.nodes) - nsw, nsw, len(f.isl()), len(f.cable) // 2))
    f.header.extend(o['comment'])
    for n, p in downs:
        peer = f.cable[(n, p)]
        f.header.append('sim-down: "%s"[%d]   (cabled to "%s"[%d]; tests Unlink it '
                        'in the ibsim console before the SM starts)' % (n, p, peer[0], peer[1]))
    f.write(sys.stdout)


if __name__ == '__main__':
    try:
        main(sys.argv[1:])
    except BrokenPipeError:
        sys.exit(1)
    except ValueError as e:
        sys.stderr.write('gen_fabric.py: %s\n' % e)
        sys.exit(1)
