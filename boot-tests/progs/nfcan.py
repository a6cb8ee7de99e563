#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Helpers of the nfcan guest test.

  nfcan.py can-recv DEV COUNT TAG[,TAG...] SECONDS GOFILE
  nfcan.py can-send DEV TAG COUNT [TUNDEV]
  nfcan.py can-round DEV TUNDEV TAG COUNT
  nfcan.py ct-insert SRC DST FIRST_PORT COUNT

CAN frames carry a tag, a kind (0: sent on a CAN_RAW socket, delivered
by the CAN core's loopback through the backlog; 1: written into a tun
device, whose ingress redirects it to DEV with tc mirred, delivered in
the writer's own context), a sequence number and a nonce in their 8
data bytes. Three identifiers: 0x123 matches both filters of the
receiving sockets (0x123/0x7ff and 0x100/0x700), 0x150 only the second,
0x200 neither. A socket with both filters must get each 0x123 and 0x150
frame exactly once (raw_rcv()'s duplicate tracking); with
CAN_RAW_JOIN_FILTERS only the 0x123 ones, once.

can-recv opens both sockets, prints "listening", waits until GOFILE
exists (the senders are done), and reads the frames of the given tags
(COUNT of each identifier and kind, from can-send) for at most SECONDS,
then half a second more for extras. A frame written into tun has no
CAN skb private data of its own: raw_rcv() tells it from the previous
one by skb address and a counter that sits in the buffer's headroom,
and a buffer reused at once (its frame read and freed) keeps the
previous count. Reading only once every frame is queued keeps the
buffers of the delivered frames distinct.
can-send sends COUNT frames of each identifier on a raw socket, and as
many through TUNDEV when given. can-round does both in one process
(a stress runner; it reads once it has sent everything): it counts only
its own frames (tag and nonce), among the frames of other senders its
sockets also get. Each prints a summary
and exits 0 only if the counts are exact.

ct-insert creates COUNT UDP conntrack entries SRC:port -> DST:9 over
ctnetlink (IPCTNL_MSG_CT_NEW), ports from FIRST_PORT, each acknowledged.
"""
import errno
import fcntl
import ipaddress
import os
import random
import select
import socket
import struct
import sys
import time

IDS = (0x123, 0x150, 0x200)
FILTERS = ((0x123, 0x7FF), (0x100, 0x700))
ETH_P_CAN = 0x000C
TUNSETIFF = 0x400454CA
SO_RCVBUFFORCE = 33            # not in the socket module
IFF_TUN = 0x0001


def frame(can_id, tag, seq, kind, nonce):
    data = struct.pack(">BIBH", tag, seq, kind, nonce)
    return struct.pack("=IBBBB8s", can_id, 8, 0, 0, 0, data)


def parse(buf):
    can_id, _len, _p, _r, _d, data = struct.unpack("=IBBBB8s", buf[:16])
    tag, seq, kind, nonce = struct.unpack(">BIBH", data)
    return can_id & socket.CAN_EFF_MASK, tag, seq, kind, nonce


def rx_socket(dev, join):
    s = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
    s.setsockopt(socket.SOL_CAN_RAW, socket.CAN_RAW_FILTER,
                 b"".join(struct.pack("=II", i, m) for i, m in FILTERS))
    if join:
        s.setsockopt(socket.SOL_CAN_RAW, socket.CAN_RAW_JOIN_FILTERS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    s.bind((dev,))
    s.setblocking(False)
    return s


def tun_open(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TUN))
    return fd


def send_all(dev, tundev, tag, count, nonce, ids=IDS):
    tx = socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW)
    tx.setsockopt(socket.SOL_CAN_RAW, socket.CAN_RAW_FILTER, b"")     # receives nothing
    tx.bind((dev,))
    tun = tun_open(tundev) if tundev else None
    pi = struct.pack("!HH", 0, ETH_P_CAN)
    for seq in range(count):
        for can_id in ids:
            while True:
                try:
                    tx.send(frame(can_id, tag, seq, 0, nonce))
                    break
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise
                    time.sleep(0.001)
            if tun is not None:
                os.write(tun, pi + frame(can_id, tag, seq, 1, nonce))
    tx.close()
    if tun is not None:
        os.close(tun)


class Tally:
    """Frames one socket got, by (id, tag, kind, seq), and the expected."""

    def __init__(self, name, wanted):
        self.name, self.wanted, self.seen, self.other = name, wanted, {}, 0

    def add(self, key):
        self.seen[key] = self.seen.get(key, 0) + 1

    def done(self):
        return all(k in self.seen for k in self.wanted)

    def report(self):
        got = sum(self.seen.get(k, 0) for k in self.wanted)
        dups = sum(n - 1 for k, n in self.seen.items() if k in self.wanted and n > 1)
        missing = sum(1 for k in self.wanted if k not in self.seen)
        unexpected = sum(n for k, n in self.seen.items() if k not in self.wanted)
        print(f"{self.name}: {got} frames for {len(self.wanted)} expected, {dups} duplicate(s), "
              f"{missing} missing, {unexpected} unexpected, {self.other} of other senders")
        return dups == 0 and missing == 0 and unexpected == 0


def collect(socks, tallies, mine, seconds):
    """Read SOCKS into TALLIES until all are done (then 0.5 s more) or
    SECONDS pass; MINE(tag, nonce) tells the frames to count."""
    until = time.monotonic() + seconds
    grace = None
    while True:
        now = time.monotonic()
        if grace is None and all(t.done() for t in tallies):
            grace = now + 0.5
        end = min(until, grace) if grace is not None else until
        if now >= end:
            return
        ready, _, _ = select.select(socks, [], [], end - now)
        for s in ready:
            t = tallies[socks.index(s)]
            while True:
                try:
                    buf = s.recv(16)
                except BlockingIOError:
                    break
                can_id, tag, seq, kind, nonce = parse(buf)
                if mine(tag, nonce):
                    t.add((can_id, tag, kind, seq))
                else:
                    t.other += 1


def wanted(tags, kinds, count, ids):
    return {(i, t, k, s) for i in ids for t in tags for k in kinds for s in range(count)}


def can_recv(dev, count, tags, seconds, gofile):
    tags = [int(t) for t in tags.split(",")]
    socks = [rx_socket(dev, False), rx_socket(dev, True)]
    tallies = [Tally("two filters", wanted(tags, (0, 1), count, IDS[:2])),
               Tally("joined filters", wanted(tags, (0, 1), count, IDS[:1]))]
    print("listening", flush=True)
    until = time.monotonic() + seconds
    while not os.path.exists(gofile):
        if time.monotonic() > until:
            print(f"{gofile} never appeared")
            return 1
        time.sleep(0.01)
    collect(socks, tallies, lambda tag, nonce: tag in tags, seconds)
    return 0 if all([t.report() for t in tallies]) else 1


def can_send(dev, tag, count, tundev=None):
    send_all(dev, tundev, tag, count, 0)
    print(f"sent {count} frames of each of {len(IDS)} identifiers on a raw socket"
          + (f" and through {tundev}" if tundev else "") + f" (tag {tag})")
    return 0


def can_round(dev, tundev, tag, count):
    nonce = random.randrange(1, 1 << 16)
    socks = [rx_socket(dev, False), rx_socket(dev, True)]
    tallies = [Tally("two filters", wanted([tag], (0, 1), count, IDS[:2])),
               Tally("joined filters", wanted([tag], (0, 1), count, IDS[:1]))]
    send_all(dev, tundev, tag, count, nonce, IDS[:2])
    collect(socks, tallies, lambda t, n: t == tag and n == nonce, 10)
    return 0 if all([t.report() for t in tallies]) else 1


def nla(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * (-n % 4)


def nest(kind, *attrs):
    return nla(kind | 0x8000, b"".join(attrs))


def ct_insert(src, dst, first, count):
    src, dst = ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
    nl.bind((0, 0))

    def tuple_(kind, a, b, sport, dport):
        return nest(kind, nest(1, nla(1, a), nla(2, b)),          # CTA_TUPLE_IP: V4_SRC, V4_DST
                    nest(2, nla(1, b"\x11"),                      # CTA_TUPLE_PROTO: UDP
                         nla(2, struct.pack("!H", sport)), nla(3, struct.pack("!H", dport))))

    for i in range(count):
        port = first + i
        body = struct.pack("=BBH", socket.AF_INET, 0, 0)          # nfgenmsg
        body += tuple_(1, src, dst, port, 9) + tuple_(2, dst, src, 9, port)
        body += nla(7, struct.pack("!I", 60))                     # CTA_TIMEOUT
        # IPCTNL_MSG_CT_NEW of NFNL_SUBSYS_CTNETLINK; REQUEST|ACK|EXCL|CREATE
        msg = struct.pack("=IHHII", 16 + len(body), 1 << 8, 0x1 | 0x4 | 0x200 | 0x400, i + 1, 0)
        nl.send(msg + body)
        reply = nl.recv(65536)
        err = struct.unpack("=i", reply[16:20])[0]
        if err:
            print(f"ctnetlink insert of port {port}: {os.strerror(-err)}")
            return 1
    print(f"inserted {count} conntrack entries over ctnetlink (ports {first}..{first + count - 1})")
    return 0


def main(argv):
    try:
        if len(argv) == 7 and argv[1] == "can-recv":
            return can_recv(argv[2], int(argv[3]), argv[4], float(argv[5]), argv[6])
        if len(argv) in (5, 6) and argv[1] == "can-send":
            return can_send(argv[2], int(argv[3]), int(argv[4]), *argv[5:])
        if len(argv) == 6 and argv[1] == "can-round":
            return can_round(argv[2], argv[3], int(argv[4]), int(argv[5]))
        if len(argv) == 6 and argv[1] == "ct-insert":
            return ct_insert(argv[2], argv[3], int(argv[4]), int(argv[5]))
    except OSError as e:
        print(f"nfcan.py {argv[1]}: {e}")
        return 2
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
