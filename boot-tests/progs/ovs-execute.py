#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send UDP datagrams into an openvswitch kernel datapath with
OVS_PACKET_CMD_EXECUTE (what ovs-vswitchd does for a packet-out),
without ovs-vswitchd:

  ovs-execute.py DP IN_PORT ACTION SRC_MAC DST_MAC SRC DST PORT COUNT SIZE [ID]

DP is the datapath's name (its local port's ifindex goes in the
ovs_header), IN_PORT the datapath port the frames pretend to come from,
ACTION "output:N" or "recirc:N". Each frame is an Ethernet/IPv4/UDP
datagram from SRC to DST:PORT whose payload is udp-check's (magic, ID,
sequence number, size, then bytes derived from them), so that
"udp-check recv" checks it. Every request asks for an acknowledgement;
prints "executed N datagrams" and exits 0 only if the kernel accepted
all of them; 1 if it refused one (the error is printed), 2 on bad
arguments.
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
OVS_PACKET_CMD_EXECUTE = 3
OVS_PACKET_VERSION = 1
OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY, OVS_PACKET_ATTR_ACTIONS = 1, 2, 3
OVS_KEY_ATTR_IN_PORT, OVS_KEY_ATTR_ETHERNET = 3, 4
OVS_ACTION_ATTR_OUTPUT, OVS_ACTION_ATTR_RECIRC = 1, 7
MAGIC = 0x6e626821


def nla(kind, data):
    attr = struct.pack("=HH", 4 + len(data), kind) + data
    return attr + b"\0" * (-len(attr) % 4)


def nlmsg(kind, flags, seq, payload):
    return struct.pack("=IHHII", 16 + len(payload), kind, flags, seq, 0) + payload


def attrs(data):
    out = {}
    while len(data) >= 4:
        length, kind = struct.unpack_from("=HH", data)
        out[kind & 0x3fff] = data[4:length]
        data = data[(length + 3) & ~3:]
    return out


def request(sock, msg):
    """Send MSG; return the error code of its acknowledgement (0 = ok)
    and the payload of the first non-ack reply, if any."""
    sock.send(msg)
    reply = None
    while True:
        data = sock.recv(65536)
        while data:
            length, kind = struct.unpack_from("=IH", data)
            if kind == NLMSG_ERROR:
                return -struct.unpack_from("=i", data, 16)[0], reply
            reply = data[16:length]
            data = data[(length + 3) & ~3:]


def family_id(sock, name):
    msg = nlmsg(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, 1,
                struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) +
                nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
    err, reply = request(sock, msg)
    if err or reply is None:
        sys.exit(f"ovs-execute: no generic netlink family {name}: {os.strerror(err)}")
    return struct.unpack("=H", attrs(reply[4:])[CTRL_ATTR_FAMILY_ID][:2])[0]


def checksum(data):
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff


def pattern(ident, seq, i):
    return (ident * 131 + seq * 7 + i) & 0xff


def frame(smac, dmac, src, dst, port, ident, seq, size):
    head = struct.pack("!IIII", MAGIC, ident, seq, size)
    payload = head + bytes(pattern(ident, seq, i) for i in range(16, size))
    udp = struct.pack("!HHHH", 40000 + ident, port, 8 + size, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), seq & 0xffff, 0x4000, 64,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return dmac + smac + struct.pack("!H", 0x0800) + ip + udp


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def main(argv):
    if len(argv) not in (11, 12):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    dp, in_port, action, smac, dmac, src, dst = argv[1:8]
    port, count, size = int(argv[8]), int(argv[9]), int(argv[10])
    ident = int(argv[11]) if len(argv) > 11 else 0
    kind, _, arg = action.partition(":")
    kinds = {"output": OVS_ACTION_ATTR_OUTPUT, "recirc": OVS_ACTION_ATTR_RECIRC}
    if kind not in kinds or not arg.isdigit() or size < 16:
        print(f"ovs-execute: bad action '{action}' or size {size}", file=sys.stderr)
        return 2
    dp_ifindex = socket.if_nametoindex(dp)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    fam = family_id(sock, "ovs_packet")
    key = (nla(OVS_KEY_ATTR_IN_PORT, struct.pack("=I", int(in_port))) +
           nla(OVS_KEY_ATTR_ETHERNET, mac(smac) + mac(dmac)))
    actions = nla(kinds[kind], struct.pack("=I", int(arg)))
    for seq in range(count):
        pkt = frame(mac(smac), mac(dmac), src, dst, port, ident, seq, size)
        msg = nlmsg(fam, NLM_F_REQUEST | NLM_F_ACK, seq + 2,
                    struct.pack("=BBHi", OVS_PACKET_CMD_EXECUTE, OVS_PACKET_VERSION, 0,
                                dp_ifindex) +
                    nla(OVS_PACKET_ATTR_PACKET, pkt) + nla(OVS_PACKET_ATTR_KEY, key) +
                    nla(OVS_PACKET_ATTR_ACTIONS, actions))
        err, _ = request(sock, msg)
        if err:
            print(f"ovs-execute: datagram {seq}: {os.strerror(err)}", file=sys.stderr)
            return 1
    print(f"executed {count} datagrams (id {ident}, {action})")
    return 0


sys.exit(main(sys.argv))
