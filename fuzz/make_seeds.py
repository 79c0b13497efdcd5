#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/seeds/<target>/ (committed; rerun after changing this).
Files named regress-* there are the inputs of fixed findings (copied from fuzz/artifacts/); they are kept.

Each seed is a well-formed input of the shape the target's entry point documents (ibverbs::fuzzing,
rdmacm::fuzzing), modelled on what Linux 6.1/6.12 sends or writes, so that the fuzzer starts from the interesting
paths instead of finding the framing by chance.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")

# include/uapi/rdma/rdma_netlink.h
RDMA_NL_NLDEV = 5
CMD_GET, CMD_SYS_GET, CMD_GET_CHARDEV = 1, 6, 15
A_DEV_INDEX, A_DEV_NAME, A_PORT_INDEX, A_NODE_GUID, A_NODE_TYPE = 1, 2, 3, 6, 14
A_PROTOCOL, A_CHARDEV_NAME, A_CHARDEV_ABI, A_CHARDEV, A_DRIVER_ID = 67, 70, 71, 72, 73
A_COPY_ON_FORK = 93
NLMSG_ERROR, NLMSG_DONE, NLM_F_MULTI = 2, 3, 2


def nl_type(cmd):
    return (RDMA_NL_NLDEV << 10) | cmd


def nlmsg(ty, flags, seq, attrs=(), raw=b""):
    body = b""
    for t, v in attrs:
        a = struct.pack("=HH", 4 + len(v), t) + v
        body += a + b"\0" * (-len(a) % 4)
    body += raw
    return struct.pack("=IHHII", 16 + len(body), ty, flags, seq, 0) + body


def cstr(s):
    return s.encode() + b"\0"


def device(seq, index, name, node_type, guid, ports, proto):
    return nlmsg(nl_type(CMD_GET), NLM_F_MULTI, seq, [
        (A_DEV_INDEX, struct.pack("=I", index)), (A_DEV_NAME, cstr(name)),
        (A_PORT_INDEX, struct.pack("=I", ports)), (A_NODE_GUID, struct.pack("=Q", guid)),
        (A_NODE_TYPE, bytes([node_type])), (A_PROTOCOL, cstr(proto))])


def chardev(seq, name, minor, driver_id):
    dev = (minor & 0xff) | (231 << 8) | ((minor & ~0xff) << 12)
    attrs = [(A_DRIVER_ID, struct.pack("=I", driver_id))] if driver_id is not None else []
    attrs += [(A_CHARDEV, struct.pack("=Q", dev)), (A_CHARDEV_ABI, struct.pack("=Q", 1)),
              (A_CHARDEV_NAME, cstr(name))]
    return nlmsg(nl_type(CMD_GET_CHARDEV), 0, seq, attrs)


def done(seq):
    return nlmsg(NLMSG_DONE, NLM_F_MULTI, seq, raw=struct.pack("=i", 0))


def error(seq, errno):
    return nlmsg(NLMSG_ERROR, 0, seq, raw=struct.pack("=i", -errno) + b"\0" * 16)


# include/uapi/linux/rtnetlink.h, neighbour.h, if_link.h
RTM_NEWLINK, RTM_NEWROUTE, RTM_NEWNEIGH = 16, 24, 28
RTA_OIF, RTA_GATEWAY, RTA_MULTIPATH, NDA_DST, NDA_LLADDR, IFLA_ADDRESS = 4, 5, 9, 1, 2, 1
RTN_UNICAST, RTN_LOCAL = 1, 2
AF_INET = 2


def rtnl(ty, flags, seq, head, attrs=()):
    """A NETLINK_ROUTE message: the family header (rtmsg, ifinfomsg, ndmsg), then attributes."""
    return nlmsg(ty, flags, seq, attrs=(), raw=head + b"".join(
        struct.pack("=HH", 4 + len(v), t) + v + b"\0" * (-(4 + len(v)) % 4) for t, v in attrs))


def rtmsg(kind):
    return struct.pack("=BBBBBBBBI", AF_INET, 32, 0, 0, 254, 2, 0, kind, 0)


def ndmsg(ifindex, state):
    return struct.pack("=BBHiHBB", AF_INET, 0, 0, ifindex, state, 0, 1)


def framed(op, dgrams):
    """ibverbs::fuzzing::netlink's input: the op byte, then u16-length-prefixed datagrams."""
    return bytes([op]) + b"".join(struct.pack("<H", len(d)) + d for d in dgrams)


def netlink():
    rxe = device(1, 0, "rxe0", 1, 0x025056fffe010203, 1, "roce")
    siw = device(1, 3, "siw0", 4, 0x025056fffe010204, 1, "iw")
    return {
        "dump-two-devices": framed(0, [rxe + siw, done(1), chardev(2, "uverbs0", 192, 14),
                                       chardev(3, "uverbs1", 193, None)]),
        "dump-chardev-error": framed(0, [rxe, done(1), error(2, 95)]),
        "dump-error": framed(0, [error(1, 22)]),
        "copy-on-fork": framed(1, [nlmsg(nl_type(CMD_SYS_GET), 0, 1, [(A_COPY_ON_FORK, b"\1")])]),
        "attrs": framed(2, [rxe + siw, chardev(2, "uverbs0", 192, 14)]),
        # RoCE neighbour resolution: a unicast route by interface 3, its link address, a neighbour dump with the
        # entry (and one of another interface), then a notification.
        "neigh": framed(3, [
            rtnl(RTM_NEWROUTE, 0, 1, rtmsg(RTN_UNICAST), [(RTA_OIF, struct.pack("=I", 3))]),
            rtnl(RTM_NEWLINK, 0, 2, struct.pack("=BBHiII", 0, 0, 1, 3, 0, 0),
                 [(IFLA_ADDRESS, bytes([0x9a, 0xb4, 0x54, 0x99, 0x72, 0x42]))]),
            rtnl(RTM_NEWNEIGH, NLM_F_MULTI, 3, ndmsg(3, 2),
                 [(NDA_DST, bytes([198, 18, 0, 2])), (NDA_LLADDR, bytes([0xd2, 0xf9, 0x9e, 0x94, 0x35, 0xb1]))])
            + rtnl(RTM_NEWNEIGH, NLM_F_MULTI, 3, ndmsg(4, 0x20), [(NDA_DST, bytes([198, 18, 0, 9]))]),
            done(3),
            rtnl(RTM_NEWNEIGH, 0, 0, ndmsg(3, 2),
                 [(NDA_DST, bytes([198, 18, 0, 2])), (NDA_LLADDR, bytes([0xd2, 0xf9, 0x9e, 0x94, 0x35, 0xb1]))]),
        ]),
        # A local route with a gateway in a multipath entry, then the kernel's refusal of the link query.
        "neigh-local": framed(3, [
            rtnl(RTM_NEWROUTE, 0, 1, rtmsg(RTN_LOCAL), [(RTA_MULTIPATH, struct.pack("=HBBi", 16, 0, 0, 3)
                                                         + struct.pack("=HH", 8, RTA_GATEWAY) + bytes([198, 18, 0, 254]))]),
            error(2, 19),
        ]),
    }


def sysfs():
    return {
        "node-type": b"1: CA\n",
        "node-guid": b"0250:56ff:fe01:0203\n",
        "gid": b"fe80:0000:0000:0000:0250:56ff:fe01:0203\n",
        "gid-type": b"RoCE v2\n",
        "pkey": b"0xffff\n",
        "dev": b"231:192\n",
        "smaps": (b"7f0000000000\n"
                  b"7f0000000000-7f0000200000 rw-p 00000000 00:00 0\n"
                  b"Size:               2048 kB\nKernelPageSize:     2048 kB\nMMUPageSize:        2048 kB\n"),
        "driver": b"# rxe\ndriver rxe\n\ndriver siw\nbogus line\n",
    }


def getaddrinfo():
    RAI_PASSIVE, RAI_NUMERICHOST, RAI_FAMILY = 1, 2, 8
    AF_INET, AF_INET6, AF_IB = 2, 10, 27
    QPT_RC, QPT_UD = 2, 4
    PS_TCP, PS_UDP, PS_IB = 0x0106, 0x0111, 0x013f

    def seed(flags, family, qp, ps, given, node=b"", service=b"", src=b"", dst=b""):
        return (struct.pack("<iBBH", flags, family, qp, ps) + bytes([given, len(src), len(dst)])
                + node + b"\0" + service + b"\0" + src + dst)
    sin = struct.pack("=H", AF_INET) + struct.pack(">H", 7471) + bytes([198, 18, 0, 1]) + b"\0" * 8
    sin6 = struct.pack("=H", AF_INET6) + struct.pack(">HI", 7471, 0) + b"\0" * 15 + b"\1" + struct.pack("=I", 0)
    return {
        "active-ipv4": seed(0, 0, 0, PS_TCP, 7, b"198.18.0.1", b"7471"),
        "passive-ud": seed(RAI_PASSIVE, AF_INET, QPT_UD, PS_UDP, 5, service=b"7174"),
        "af-ib": seed(RAI_PASSIVE | RAI_FAMILY, AF_IB, QPT_RC, PS_IB, 7, b"::1", b"7471"),
        "hints-only": seed(0, AF_INET, QPT_RC, PS_TCP, 1, src=sin, dst=sin),
        "ipv6-src": seed(0, AF_INET6, QPT_RC, PS_TCP, 3, b"fe80::1", src=sin6),
    }


def cm_event():
    # struct rdma_ucm_event_resp: uid 0, id 8, event 12, status 16, param 20 (conn: private_data +8, len +264;
    # ud: ah_attr +8, private_data +40, len +296), ece 328; 336 bytes.
    def resp(uid_sel, kid, event, status=0, conn=None, ud=None, ece=(0, 0)):
        b = bytearray(336)
        struct.pack_into("=QIIi", b, 0, uid_sel, kid, event, status)
        if conn is not None:
            b[28:28 + len(conn)] = conn
            b[20 + 264] = len(conn)
            b[20 + 265:20 + 271] = bytes([0, 1, 2, 1, 7, 7])  # srq, responder, initiator, flow, retry, rnr
        if ud is not None:
            struct.pack_into("=II", b, 20, 0x99, 0x01234567)
            b[57], b[58] = 1, 1  # ah_attr (+8, after the 24-byte grh): is_global, port_num
            b[60:60 + len(ud)] = ud
            b[20 + 296] = len(ud)
        struct.pack_into("=II", b, 328, *ece)
        return bytes(b)
    return {
        "established-rc": resp(0, 1, 9, conn=b"hello"),
        "connect-response": resp(0, 1, 5, conn=b"x" * 56, ece=(0x02c9, 1)),
        "rejected": resp(0, 1, 8, status=28, conn=b"no"),
        "ud-established": resp(1, 2, 9, ud=b"\7"),
        "by-handle": resp(2, 2, 9),
        "unknown-uid": resp(3, 5, 10),
        "mcast-join": resp(1, 2, 12, ud=b""),
        "timewait": resp(0, 1, 15)[:24],
    }


def cm_files():
    return {
        "abi": b"4\n",
        "keepalive": b"7200\n",
        "rsocket": b"10\n5000\n64\n384\n384\n131072\n131072\n4096\n",
        "rsocket-odd": b"-1\n99999999999\n0\n\n1\n0\n100\n70000\n",
    }


# The rsocket wire (rdmacm/src/rsocket/wire.rs): immediate data = op << 29 | data.
OP_DATA, OP_SGL, OP_IOMAP_SGL, OP_CTRL = 0, 4, 6, 7
CTRL_DISCONNECT, CTRL_SHUTDOWN = 0, 2


def imm(op, data):
    return (op << 29) | (data & 0x1FFFFFFF)


def conn_data(credits=16, sgl_len=2, iomap=4, half=2048, version=1):
    """40 bytes of rsocket connection data (big-endian), the peer's buffers at 0x100000 (SGL) / 0x200000."""
    return (struct.pack(">BBHxxxB", version, 2, credits, iomap) + struct.pack(">QII", 0x100000, 9, sgl_len)
            + struct.pack(">QII", 0x200000, 10, half))


class Ev:
    """The events of rdmacm::rsocket::fuzz::stream, one kind byte each."""
    @staticmethod
    def msg(m, written=None):  # the peer's message; written None: not known (iWARP)
        if written is None:
            return struct.pack("<BIB", 0, m, 0)
        return struct.pack("<BIBI", 0, m, 3, written)

    @staticmethod
    def sgl(i, off, length):  # the peer rewrites target SGL entry i inside its own buffer
        return struct.pack("<BBBII", 1, i, 0, off, length)

    @staticmethod
    def sgl_raw(i, addr, key, length):
        return struct.pack("<BBBQII", 1, i, 1, addr, key, length)

    @staticmethod
    def iomap(i, offset, addr, key, length):
        return struct.pack("<BBQQII", 2, i, offset, addr, key, length)

    @staticmethod
    def read(n, peek=0):
        return struct.pack("<BHB", 3, n, peek)

    @staticmethod
    def send(n):
        return struct.pack("<BH", 4, n)

    credits = b"\x05"

    @staticmethod
    def complete(ok=1):
        return struct.pack("<BB", 6, ok)

    ctrl_done = b"\x07"

    @staticmethod
    def lookup(offset):
        return struct.pack("<BQ", 8, offset)


def rsock_stream():
    e = Ev
    honest = (bytes([0]) + conn_data() + e.msg(imm(OP_DATA, 1000), 1000) + e.msg(imm(OP_DATA, 1048), 1048)
              + e.read(2048) + e.credits + e.msg(imm(OP_SGL, 16), 16) + e.send(1024) + e.complete()
              + e.ctrl_done + e.send(1024) + e.complete() + e.complete())
    big = (bytes([0x0F]) + conn_data(credits=384, half=65536) + b"".join(
        e.msg(imm(OP_DATA, 4096), 4096) + e.read(4096) + e.credits for _ in range(20))
        + e.msg(imm(OP_SGL, 400), 0) + e.send(60000) + e.complete(1))
    iomap = (bytes([0x40]) + conn_data() + e.iomap(0, 4096, 0x300000, 11, 8192) + e.msg(imm(OP_IOMAP_SGL, 0), 24)
             + e.lookup(5000) + e.iomap(1, 2**64 - 10, 0x1000, 1, 100) + e.lookup(2**64 - 5)
             + e.msg(imm(OP_IOMAP_SGL, 9), 24))
    shutdown = (bytes([1]) + conn_data() + e.msg(imm(OP_DATA, 100), 100) + e.msg(imm(OP_CTRL, CTRL_SHUTDOWN), 0)
                + e.read(50, 1) + e.read(100) + e.msg(imm(OP_SGL, 16), 16) + e.msg(imm(OP_DATA, 1), 1))
    overrun = bytes([0]) + conn_data() + b"".join(e.msg(imm(OP_DATA, 1), 1) for _ in range(17))
    sgl = (bytes([0x20]) + conn_data() + e.sgl(0, 100, 1000) + e.send(500) + e.sgl(1, 2048, 2048)
           + e.msg(imm(OP_SGL, 16), 16) + e.send(4000) + e.sgl_raw(0, 2**64 - 100, 10, 4096) + e.send(10))
    grants = (bytes([2]) + conn_data(credits=64) + e.send(2048) + e.send(2048) + e.complete() + e.complete()
              + e.msg(imm(OP_SGL, 64), 16) + e.msg(imm(OP_SGL, 66), 0) + e.msg(imm(OP_SGL, 0x1FFFF), 0))
    lies = (bytes([0]) + conn_data() + e.msg(imm(1, 10), 10) + e.msg(imm(OP_CTRL, 77), 0)
            + e.msg(imm(OP_DATA, 1 << 20), 16))
    bad_conn = bytes([0]) + conn_data(sgl_len=1)
    disconnect = (bytes([0]) + conn_data() + e.msg(imm(OP_CTRL, CTRL_DISCONNECT)) + e.msg(imm(OP_DATA, 5))
                  + e.read(5))
    return {"honest": honest, "big-buffers": big, "iomap": iomap, "shutdown": shutdown, "overrun": overrun,
            "sgl": sgl, "grants": grants, "lies": lies, "bad-conn": bad_conn, "disconnect": disconnect}


GRH = 40


def ds_v4(port=7174, addr=(198, 18, 0, 2)):
    return bytes([4, 8]) + struct.pack(">H", port) + bytes(addr)


def ds_v6(port=7174):
    return bytes([6, 24]) + struct.pack(">H", port) + b"\0\0\0\0" + bytes(15) + b"\x01"


def rsock_dgram():
    return {
        "v4": struct.pack("<I", GRH + 8 + 5) + ds_v4() + b"hello",
        "v6": struct.pack("<I", GRH + 24 + 3) + ds_v6() + b"abc",
        "empty": struct.pack("<I", GRH + 8) + ds_v4(),
        "short": struct.pack("<I", GRH + 5) + ds_v4()[:5],
        "mismatch": struct.pack("<I", GRH + 100) + bytes([4, 24]) + bytes(98),
        "full-slot": struct.pack("<I", GRH + 2048) + ds_v4() + bytes(2040),
    }


def udp_hdr(op, qpn, v6=False):
    if v6:
        return struct.pack(">IBBBxI", 0x55555555, 6, op, 28, qpn) + bytes(15) + b"\x01"
    return struct.pack(">IBBBxI", 0x55555555, 4, op, 16, qpn) + bytes([198, 18, 0, 2])


def svc(src, msg):
    return bytes([src]) + struct.pack("<H", len(msg)) + msg


def rsock_udp_service():
    return {
        "exchange": svc(1, udp_hdr(0, 0x11) + b"hello") + svc(0, udp_hdr(7, 0x12)) + svc(1, udp_hdr(0, 0x13)),
        "v6": svc(0x81, udp_hdr(0, 0x20, True) + b"x" * 100) + svc(0x80, udp_hdr(7, 0x21, True)),
        "forged": svc(5, udp_hdr(7, 0x30)) + svc(2, udp_hdr(3, 0x31)) + svc(3, udp_hdr(0, 0)),
        "many": b"".join(svc(i, udp_hdr(0, 0x40 + i) + b"d") for i in range(8)),
        "oversize": svc(1, udp_hdr(0, 0x50) + bytes(2041)) + svc(1, udp_hdr(7, 0x51) + b"junk"),
    }


def main():
    for name, seeds in [("netlink", netlink()), ("sysfs", sysfs()), ("getaddrinfo", getaddrinfo()),
                        ("cm_event", cm_event()), ("cm_files", cm_files()), ("rsock_stream", rsock_stream()),
                        ("rsock_dgram", rsock_dgram()), ("rsock_udp_service", rsock_udp_service())]:
        d = os.path.join(SEEDS, name)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):  # regress-*: inputs of fixed findings, kept
            if not old.startswith("regress-"):
                os.remove(os.path.join(d, old))
        for k, v in seeds.items():
            with open(os.path.join(d, k), "wb") as f:
                f.write(v)
        print(f"{name}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
