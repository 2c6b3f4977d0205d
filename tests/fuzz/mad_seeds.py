#!/usr/bin/env python3
"""Write the seed corpus of tests/fuzz/fuzz_mad.c into tests/fuzz/mad_seeds/.

Each seed is fuzz_mad.c's 8-byte prefix (set-up state and flags, which sent
MAD to take the TID from, source address) and one 256-byte MAD. Run it again
after changing the input format:  python3 tests/fuzz/mad_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mad_seeds")

SMP_LID, SMP_DR, SA = 0x01, 0x81, 0x03
GET, SET, TRAP, GETRESP, TRAPREPRESS = 0x01, 0x02, 0x05, 0x81, 0x07
NOTICE, NODE_INFO, SM_INFO = 0x0002, 0x0011, 0x0020
KEY = 0xABCD        # fuzz_mad.c's SM_Key
PEER_A = 0x21       # fuzz_mad.c's other SM


def prefix(state=0, flags=0, mode=0, which=0, slid=2, sl=0, qpn=0, pkey=0,
           qkey=0):
    return bytes([state | flags | mode << 6, which, slid >> 8, slid & 0xFF,
                  sl, qpn, pkey, qkey])


def header(mclass, method, attr, mod=0, tid=0x1234, version=1, status=0):
    return struct.pack(">BBBBHHQHHI", 1, mclass, version, method, status, 0,
                       tid, attr, 0, mod)


def mad(hdr, data=b"", at=64):
    m = bytearray(256)
    m[0:24] = hdr
    m[at:at + len(data)] = data
    return bytes(m)


def sa_mad(method, attr, key=0, mask=0, rec=b""):
    """An SA request: header, SM_Key, ComponentMask, record at 56."""
    m = bytearray(mad(header(SA, method, attr, version=2)))
    m[36:44] = struct.pack(">Q", key)
    m[48:56] = struct.pack(">Q", mask)
    m[56:56 + len(rec)] = rec
    return bytes(m)


# MCMemberRecord: MGID, PortGID (fe80::<guid>), Q_Key 0x0b1b, P_Key 0xffff,
# JoinState; the create mask is MGID|PortGID|Q_Key|TClass|P_Key|SL|
# FlowLabel|JoinState.
MCM_CREATE = 0x130c7
MGID_A = bytes.fromhex("ff151234000000000000000000000001")
MGID_BC = bytes.fromhex("ff12401bffff000000000000ffffffff")


def mcm(mgid, guid, join):
    r = bytearray(56)
    r[0:16] = mgid
    r[16:32] = struct.pack(">QQ", 0xfe80000000000000, guid)
    r[32:36] = struct.pack(">I", 0x0b1b)
    r[40:42] = struct.pack(">H", 0xffff)
    r[48] = 0x20 | join
    return bytes(r)


def sminfo(guid, key, prio, state, count=0):
    return struct.pack(">QQIB", guid, key, count, prio << 4 | state)


def dr_header(method, attr, mod=0, tid=0x4321, hops=1, hop_ptr=0, d=0):
    h = bytearray(header(SMP_DR, method, attr, mod, tid))
    h[4] = d << 7
    h[6] = hop_ptr
    h[7] = hops
    return bytes(h)


def dr_mad(hdr, data, path):
    m = bytearray(mad(hdr, data))
    m[32:36] = b"\xff\xff\xff\xff"          # DrSLID, DrDLID permissive
    m[128:128 + len(path)] = path
    return bytes(m)


seeds = {
    # SMInfo Get, LID-routed and directed route, with and without our key
    "sminfo_get_lid": prefix(1) + mad(header(SMP_LID, GET, SM_INFO)),
    "sminfo_get_dr": prefix(3, slid=0xFFFF) + dr_mad(
        dr_header(GET, SM_INFO), b"", b"\x00\x01"),
    "sminfo_get_key": prefix(3) + mad(header(SMP_LID, GET, SM_INFO),
                                      sminfo(PEER_A, KEY, 1, 2)),
    # SMInfo Set HANDOVER from a trusted MASTER to a STANDBY, and
    # ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER, a bad modifier
    "sminfo_set_handover": prefix(4) + mad(
        header(SMP_LID, SET, SM_INFO, 1), sminfo(PEER_A, KEY, 15, 3)),
    "sminfo_set_ack": prefix(5) + mad(
        header(SMP_LID, SET, SM_INFO, 2), sminfo(PEER_A, KEY, 15, 2)),
    "sminfo_set_disable": prefix(4) + mad(
        header(SMP_LID, SET, SM_INFO, 3), sminfo(PEER_A, KEY, 15, 3)),
    "sminfo_set_standby": prefix(3) + mad(
        header(SMP_LID, SET, SM_INFO, 4), sminfo(PEER_A, KEY, 15, 3)),
    "sminfo_set_discover": prefix(4) + mad(
        header(SMP_LID, SET, SM_INFO, 5), sminfo(PEER_A, KEY, 15, 3)),
    "sminfo_set_badkey": prefix(4) + mad(
        header(SMP_LID, SET, SM_INFO, 1), sminfo(PEER_A, 7, 15, 3)),
    "sminfo_set_mod9": prefix(6) + mad(
        header(SMP_LID, SET, SM_INFO, 9), sminfo(PEER_A, KEY, 1, 3)),
    # Trap 128 (link state change) Notice from LID 3, and a TrapRepress
    "trap128": prefix(3, slid=3) + mad(
        header(SMP_LID, TRAP, NOTICE, tid=0x99),
        struct.pack(">BBHHH", 0x81, 0, 128, 3, 0) + b"\0" * 6 +
        struct.pack(">H", 3)),
    "trap144_dr": prefix(4, slid=0xFFFF) + dr_mad(
        dr_header(TRAP, NOTICE, hops=0),
        struct.pack(">BBHHH", 0x81, 0, 144, 2, 0), b""),
    "traprepress": prefix(3) + mad(header(SMP_LID, TRAPREPRESS, NOTICE)),
    # GetResp to the outstanding NodeInfo (directed route), TID taken from
    # the sent request (mode 3: its paths too), and to the election's
    # SMInfo Get
    "getresp_nodeinfo": prefix(0, mode=3, which=0, slid=0xFFFF) + dr_mad(
        dr_header(GETRESP, NODE_INFO, d=1, hop_ptr=1),
        bytes([1, 1, 2, 1]) + struct.pack(">QQQ", 0x100, 0x101, 0x102) +
        bytes(8), b"\x00\x01"),
    "getresp_sminfo": prefix(2, mode=2, which=0, slid=0xFFFF) + dr_mad(
        dr_header(GETRESP, SM_INFO, d=1, hop_ptr=1),
        sminfo(PEER_A, KEY, 15, 3), b"\x00\x02"),
    "getresp_status": prefix(0, mode=2, which=1) + mad(
        header(SMP_LID, GETRESP, 0x15, 1, status=0x1C)),
    # SA: a GetResp to the outstanding NodeRecord Get, a GetTable request
    # (nobody listens), and a long RMPP-sized one
    "sa_getresp": prefix(0, mode=2, which=4, qpn=1, qkey=1) + mad(
        header(SA, GETRESP, 0x11, version=2)),
    "sa_gettable": prefix(1, qpn=1, qkey=1) + mad(
        header(SA, 0x12, 0x11, version=2)),
    "sa_long": prefix(1, qpn=1, qkey=1, flags=0x20) +
    header(SA, GETRESP, 0x11, version=2) + bytes(1000),
    # SA requests to our agent (serving unless state 0): ClassPortInfo
    # Get, NodeRecord Get by LID, GetTable of each record kind, a wrong
    # SM_Key, a trusted P_KeyTableRecord, an unknown attribute, a Set
    "sa_cpi_get": prefix(3, qpn=1, qkey=1) + sa_mad(GET, 0x01),
    "sa_nr_get_lid": prefix(3, slid=3, qpn=0x55, qkey=1) + sa_mad(
        GET, 0x11, mask=1, rec=struct.pack(">H", 2)),
    "sa_pir_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x12),
    "sa_lr_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x20),
    "sa_smir_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x18),
    "sa_lft_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x15),
    "sa_gir_get": prefix(3, qpn=1, qkey=1) + sa_mad(GET, 0x30),
    "sa_pktr_trusted": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x33, key=1),
    "sa_badkey": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x11, key=7),
    "sa_unknown_attr": prefix(3, qpn=1, qkey=1) + sa_mad(GET, 0x99),
    "sa_set_nr": prefix(3, qpn=1, qkey=1) + sa_mad(SET, 0x11),
    "sa_not_serving": prefix(0, qpn=1, qkey=1) + sa_mad(GET, 0x01),
    # MCMemberRecord (0x38): a create with the full create mask from LID 2
    # for itself, IPoIB's broadcast join (too few components to create),
    # a leave, and a trusted GetTable
    "sa_mcm_create": prefix(3, qpn=1, qkey=1) + sa_mad(
        SET, 0x38, mask=MCM_CREATE, rec=mcm(MGID_A, PEER_A, 0x9)),
    "sa_mcm_bcast_join": prefix(3, qpn=1, qkey=1) + sa_mad(
        SET, 0x38, mask=0x10083, rec=mcm(MGID_BC, PEER_A, 0x1)),
    "sa_mcm_leave": prefix(3, qpn=1, qkey=1) + sa_mad(
        0x15, 0x38, mask=0x10003, rec=mcm(MGID_A, PEER_A, 0x1)),
    "sa_mcm_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x38, key=1),
    # services and events: a ServiceRecord Set (ID, GID, lease 10 s) for
    # the CA at LID 2, its table and Delete; InformInfo subscribe and
    # unsubscribe (trap 64, all LIDs) and the InformInfoRecord table
    "sa_sr_set": prefix(3, qpn=1, qkey=1) + sa_mad(
        SET, 0x31, mask=0x13, rec=struct.pack(">QQQHHI", 0x1234,
                                              0xFE80 << 48, PEER_A, 0xFFFF,
                                              0, 10) + bytes(16) + b"svc"),
    "sa_sr_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x31),
    "sa_sr_delete": prefix(3, qpn=1, qkey=1) + sa_mad(
        0x15, 0x31, mask=0x3, rec=struct.pack(">QQQ", 0x1234, 0xFE80 << 48,
                                              PEER_A)),
    "sa_ii_subscribe": prefix(3, qpn=1, qkey=1) + sa_mad(
        SET, 0x03, rec=bytes(16) + struct.pack(">HHHBBHHI", 0xFFFF, 0, 0, 1,
                                               1, 0xFFFF, 64, 1 << 8) +
        b"\x00\xff\xff\xff"),
    "sa_ii_unsubscribe": prefix(3, qpn=1, qkey=1) + sa_mad(
        SET, 0x03, rec=bytes(16) + struct.pack(">HHHBBHHI", 0xFFFF, 0, 0, 1,
                                               0, 0xFFFF, 64, 1 << 8) +
        b"\x00\xff\xff\xff"),
    "sa_iir_table": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0xF3),
    # PathRecord: Get by SLID/DLID, GetTable by SGID/DGID with MTU and
    # rate selectors, the world; MultiPathRecord GetMulti (2 x 1 GIDs)
    "sa_pr_get_lids": prefix(3, slid=3, qpn=0x55, qkey=1) + sa_mad(
        GET, 0x35, mask=0x30, rec=bytes(40) + struct.pack(">HH", 2, 1)),
    "sa_pr_table_gids": prefix(3, qpn=1, qkey=1) + sa_mad(
        0x12, 0x35, mask=0x0F000C, rec=bytes(8) +
        struct.pack(">QQQQ", 0xfe80 << 48, 0x21, 0xfe80 << 48, 0x11) +
        bytes(14) + bytes([0x84, 0x47])),
    "sa_pr_world": prefix(3, qpn=1, qkey=1) + sa_mad(0x12, 0x35),
    "sa_mpr_getmulti": prefix(3, qpn=1, qkey=1) + sa_mad(
        0x14, 0x3A, mask=(1 << 19) | (1 << 20), rec=bytes(15) +
        bytes([2, 1]) + bytes(7) +
        struct.pack(">QQQQQQ", 0xfe80 << 48, 0x11, 0xfe80 << 48, 0x21,
                    0xfe80 << 48, 0x31)),
    # a failed send reported back, and garbage
    "failed_send": prefix(0, flags=0x10, mode=3, which=2) + mad(
        header(SMP_LID, GET, 0x12)),
    "short": prefix(0) + b"\x01\x81\x01",
    "empty": prefix(7),
    "garbage": prefix(5, qpn=0x55) + bytes((i * 37 + 11) & 0xFF
                                           for i in range(300)),
}

os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
