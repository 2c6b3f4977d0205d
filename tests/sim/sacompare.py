#!/usr/bin/env python3
"""Compare what two SMs' SAs answered to the same queries (sa_vs_opensm.sh).

    sacompare.py OPENSM_DIR IBSMD_DIR

Each directory holds one file per query, named as in QUERIES below, with
what the client printed (saquery, smpquery, saraw, mcjoin). Records are
parsed from the clients' dumps ("... dump:" followed by "key....value"
lines and table lines), normalised (order; fields that are counters or
allocation order), and compared per query as QUERIES says: "equal", or a
deliberate difference that is itself checked (a subset, the same keys).
Prints a table (query, record type, OpenSM count, ibsmd count, result)
and exits 1 when a query differs otherwise than its rule allows.
"""
import os
import re
import sys


def parse(path):
    """Records of a client's output: a list of (kind, [(key, value)])."""
    recs, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("ibwarn"):
                continue
            if not line[0].isspace():
                if cur is not None:
                    recs.append(cur)
                cur = (line.strip().rstrip(":"), [])
                continue
            if cur is None:
                cur = ("", [])
            s = line.strip()
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_ /]*?)[.:]{2,}\s*(.*)$", s)
            if m:
                cur[1].append((m.group(1).strip(), m.group(2).strip()))
            else:
                cur[1].append(("", re.sub(r"\s+", " ", s)))
    if cur is not None:
        recs.append(cur)
    return recs


def canon(rec, drop=(), fix=None):
    kind, fields = rec
    out = []
    for k, v in fields:
        if k in drop:
            continue
        if fix is not None:
            v = fix(k, v)
        out.append("%s=%s" % (k, v))
    return kind + " | " + " | ".join(out)


def field(rec, key):
    for k, v in rec[1]:
        if k == key:
            return v
    return None


def num(v):
    return int(v, 0) if v is not None else None


# ---- rules: each returns (ok, note)

def equal(o, i, **kw):
    a = sorted(canon(r, **kw) for r in o)
    b = sorted(canon(r, **kw) for r in i)
    if a == b:
        return True, "equal"
    only_o = [x for x in a if x not in b][:2]
    only_i = [x for x in b if x not in a][:2]
    return False, "differ: OpenSM only %s; ibsmd only %s" % (only_o, only_i)


def subset(o, i, extra_ok, why, **kw):
    """OpenSM's records all in ibsmd's, ibsmd's extras each pass extra_ok."""
    a = {canon(r, **kw): r for r in o}
    b = {canon(r, **kw): r for r in i}
    missing = [k for k in a if k not in b]
    extra = [b[k] for k in b if k not in a]
    bad = [canon(r) for r in extra if not extra_ok(r)]
    if missing or bad:
        return False, "differ: missing %s; unexpected extras %s" % (
            missing[:2], bad[:2])
    return True, "deliberate (%d more): %s" % (len(extra), why) if extra \
        else "equal"


def pktr_block(k, v):
    # OpenSM writes P_KeyTableRecord BlockNum in host order (saquery
    # prints it as it comes): 256 is block 1
    if k == "Block" and int(v) >= 256:
        return str(int(v) // 256)
    return v


def main():
    osm_dir, ours_dir = sys.argv[1], sys.argv[2]
    sw_lids = set()
    for r in parse(os.path.join(ours_dir, "nr_h0")):
        if field(r, "node_type") == "Switch":
            sw_lids.add(num(field(r, "lid")))

    # A switch's LocalPort is the port the SM's last Get came in by: it
    # names the path each SM reached the switch by, and when two paths
    # are equally short either SM may take either (the order answers come
    # back in). Compared as such: each answer's LocalPort must be a port
    # of the switch whose link leads one hop nearer the SM (by that SA's
    # own LinkRecords); it then compares as "toward-SM".
    def local_port_fix(d):
        links, dist = {}, {}
        for r in parse(os.path.join(d, "lr_h0")):
            a = (num(field(r, "FromLID")), num(field(r, "FromPort")))
            links[a] = num(field(r, "ToLID"))
        sm = [num(field(r, "SMLid")) for r in parse(os.path.join(d, "pir_h0"))
              if field(r, "SMLid") not in (None, "0")]
        if not sm:
            return lambda recs: recs
        dist[sm[0]] = 0
        todo = [sm[0]]
        while todo:
            nxt = []
            for lid in todo:
                for (a, _), b in links.items():
                    if a == lid and b not in dist:
                        dist[b] = dist[lid] + 1
                        nxt.append(b)
            todo = nxt

        def fix(recs):
            out = []
            for kind, fields in recs:
                lid = num(field((kind, fields), "EndPortLid"))
                if lid in sw_lids and lid in dist:
                    nf = []
                    for k, v in fields:
                        if k == "LocalPort":
                            peer = links.get((lid, num(v)))
                            ok = peer is not None and \
                                dist.get(peer) == dist[lid] - 1
                            v = "toward-SM" if ok else "not-toward-SM:" + v
                        nf.append((k, v))
                    fields = nf
                out.append((kind, fields))
            return out
        return fix

    fix_o, fix_i = local_port_fix(osm_dir), local_port_fix(ours_dir)

    def pir(rule):
        return lambda o, i: rule(fix_o(o), fix_i(i))

    def sw_port_rec(key):
        return lambda r: num(field(r, key)) in sw_lids

    def link_of_switch(r):
        return num(field(r, "FromLID")) in sw_lids or \
            num(field(r, "ToLID")) in sw_lids

    def path_rule(o, i):
        # paths with a switch end: OpenSM counts switch port 0's own
        # rate, which has no link; the rest must be equal
        def sw_end(r):     # this fabric's switch GUIDs are 0x2000xx
            return any("::20:" in (field(r, g) or "")
                       for g in ("sgid", "dgid"))
        osw = [r for r in o if sw_end(r)]
        isw = [r for r in i if sw_end(r)]
        ok1, n1 = equal([r for r in o if not sw_end(r)],
                        [r for r in i if not sw_end(r)])
        ok2, n2 = equal(osw, isw, drop=("rate",))
        if not (ok1 and ok2):
            return False, n1 if not ok1 else n2
        if any(canon(a) != canon(b) for a, b in
               zip(sorted(osw, key=canon), sorted(isw, key=canon))):
            return True, "deliberate: rate of paths to/from switches " \
                "(OpenSM counts switch port 0's rate)"
        return True, "equal"

    WHY_SWP = "switch ports scoped by the switch's port 0 (OpenSM: by " \
        "the port's own enforcement table, which hides the ports facing " \
        "limited-only hosts)"
    WHY_LINK = "a host's cable seen by every port that shares a partition " \
        "with the host (OpenSM: only when the host and the switch port " \
        "facing it share a key, which hides every cable of a limited-only " \
        "host, even from itself)"

    QUERIES = [
        # name, record type, rule
        ("nr_h0", "NodeRecord (from h0, the SM)", equal),
        ("nr_h3", "NodeRecord (from limited-only h3)", equal),
        ("nr_h6", "NodeRecord (from limited-only h6)", equal),
        ("pir_h0", "PortInfoRecord (from h0)", pir(equal)),
        ("pir_h6", "PortInfoRecord (from h6)",
         pir(lambda o, i: subset(o, i, sw_port_rec("EndPortLid"), WHY_SWP))),
        ("issm", "PortInfoRecord, IsSM ports (saquery -s)", equal),
        ("lr_h0", "LinkRecord (from h0)",
         lambda o, i: subset(o, i, link_of_switch, WHY_LINK)),
        ("lr_h6", "LinkRecord (from h6)",
         lambda o, i: subset(o, i, link_of_switch, WHY_LINK)),
        ("swir", "SwitchInfoRecord",
         # LinearFDBTop and LifeTimeValue/PortStateChange: stale in
         # ibsmd's model until the lead's change for issue 22 point 5
         # (tests/sim/sa_switchinfo.sh); drop this exception with it
         lambda o, i: equal(o, i, drop=(
             "LinearFDBTop", "LifeTimeValue/PortStateChange/OpSL2VL"))),
        ("gir_h0", "GUIDInfoRecord (from h0)", equal),
        ("gir_h6", "GUIDInfoRecord (from h6)", equal),
        ("smir", "SMInfoRecord",
         lambda o, i: equal(o, i, drop=("ActCount",))),
        ("pktr", "P_KeyTableRecord (from h0, trusted)",
         lambda o, i: equal(o, i, fix=pktr_block)),
        ("pktr_h6", "P_KeyTableRecord (from h6, trusted)",
         lambda o, i: subset(o, i, sw_port_rec("LID"), WHY_SWP,
                             fix=pktr_block)),
        ("sl2vl", "SL2VLTableRecord",
         lambda o, i: (lambda r: (r[0], "deliberate: same tables, "
                       "ibsmd's hold what the devices do (OpenSM without "
                       "QoS answers zeros it never read)" if r[0] else
                       r[1]))(equal(o, i, drop=("", "VL")))),
        ("vlar", "VLArbitrationTableRecord",
         lambda o, i: vlarb_rule(o, i)),
        ("lftr", "LinearForwardingTableRecord",
         lambda o, i: (lambda r: (r[0], "deliberate: same blocks, each "
                       "SM's own routes (checked against dump_fts in "
                       "sa_records.sh)" if r[0] else r[1]))(
                           equal(o, i, drop=("",)))),
        ("mcg", "MCMemberRecord groups (saquery -g, from h6)",
         lambda o, i: equal(o, i, drop=("Mlid",))),
        ("mcmr", "MCMemberRecord (saquery -m, trusted)",
         lambda o, i: equal(o, i, drop=("Mlid",))),
        ("pr_h6_h5", "PathRecord h6 -> h5 (limited -> full)", path_rule),
        ("pr_h5_h6", "PathRecord h5 -> h6 (to a limited-only host)",
         path_rule),
        ("pr_h6_h0", "PathRecord h6 -> SM", path_rule),
        ("pr_h6_h7", "PathRecord h6 -> h7 (both limited)", path_rule),
        ("pr_h3_h4", "PathRecord h3 -> h4 (both limited)", path_rule),
        ("pr_h1_h2", "PathRecord h1 -> h2 (storage, full)", path_rule),
        ("pr_fe81", "PathRecord fe81:: -> fe80:: (h1 -> h2)", path_rule),
        ("pr_h6_all", "PathRecord table (from h6)", path_rule),
        ("pr_h0_all", "PathRecord table (from h0)", path_rule),
        ("smpq_G", "smpquery -G nodeinfo h5 (from h6)", equal),
        ("sr", "ServiceRecord table", equal),
        ("sr_set", "ServiceRecord Set, mask 0x57 (saraw)", equal),
        ("sr_after_set", "ServiceRecord table after the Set",
         lambda o, i: equal(o, i, drop=("ServiceLease",))),
        ("sr_del", "ServiceRecord Delete, mask 0x40 (saraw)", equal),
        ("sr_after_del", "ServiceRecord table after the Delete", equal),
        ("mcj", "MCMemberRecord create + re-join with selectors (mcjoin)",
         mcjoin_rule),
        ("iir", "InformInfoRecord", equal),
        ("cpi", "ClassPortInfo",
         lambda o, i: (lambda r: (r[0], "deliberate: CapabilityMask and "
                       "CapabilityMask2 name only what ibsmd does (OpenSM "
                       "also claims Notice Get/Set, extended speeds, 2x, "
                       "HDR, ...)" if r[0] else r[1]))(equal(o, i, drop=(
                           "Capability mask", "Capability mask 2")))),
    ]
    bad = 0
    print("%-14s %-52s %7s %7s  %s" % ("query", "record type", "OpenSM",
                                        "ibsmd", "result"))
    for name, what, rule in QUERIES:
        o = parse(os.path.join(osm_dir, name))
        i = parse(os.path.join(ours_dir, name))
        ok, note = rule(o, i)
        if not ok:
            bad += 1
        print("%-14s %-52s %7d %7d  %s%s" % (name, what, len(o), len(i),
                                              "" if ok else "FAIL: ", note))
    return 1 if bad else 0


def mcjoin_rule(o, i):
    """mcjoin's answers, three per selector: create (JoinState 1), the
    creator's re-join (3), leave. Equal but for what is deliberate: the
    Scope of a reply (ibsmd: the MGID's; OpenSM echoes the request's, 0
    here), a leave's reply (ibsmd: the group's record with the JoinState
    left; OpenSM: mostly zeros), the PacketLifeTime of a group whose
    creator gave none (ibsmd: subnet_timeout, as its PathRecords; OpenSM:
    0), and the MLID (allocation order)."""
    if len(o) != len(i):
        return False, "differ: %d and %d answers" % (len(o), len(i))
    life_given = 6      # the first two selectors give a PacketLifeTime
    deliberate = False
    for n, (a, b) in enumerate(zip(o, i)):
        keys = ["status", "join"]
        if n % 3 != 2:
            keys += ["mgid", "mtu", "rate", "qkey", "pkey", "sl", "tclass",
                     "flow", "hop", "proxy"]
            if n < life_given:
                keys.append("life")
        for k in keys:
            if field(a, k) != field(b, k):
                return False, "differ: answer %d, %s: OpenSM %s, ibsmd %s" \
                    % (n + 1, k, field(a, k), field(b, k))
        if canon(a, drop=("mlid",)) != canon(b, drop=("mlid",)):
            deliberate = True
    return True, "deliberate: the Scope in replies, a leave's reply, a " \
        "group's PacketLifeTime when its creator gives none" if deliberate \
        else "equal"


def vlarb_rule(o, i):
    """ibsmd's (LID, port, block) keys a subset of OpenSM's; OpenSM's
    extras are blocks the caps do not give or a base switch port 0."""
    def key(r):
        return (field(r, "LID"), field(r, "Port"), field(r, "Block"))
    ko = {key(r) for r in o}
    ki = {key(r) for r in i}
    if not ki <= ko:
        return False, "differ: ibsmd blocks OpenSM lacks %s" % \
            sorted(ki - ko)[:3]
    if not ki:
        return False, "differ: ibsmd has none"
    return True, "deliberate: ibsmd has the blocks the ports' caps give, " \
        "as the devices hold them, none for a base switch port 0 (OpenSM " \
        "answers four zeroed blocks for every port)"


if __name__ == "__main__":
    sys.exit(main())
