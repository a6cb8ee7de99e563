#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Bulk data over MPTCP sockets, checked end to end:

  mptcp-transfer.py serve ADDR PORT
  mptcp-transfer.py send ADDR PORT BYTES

"serve" listens on ADDR:PORT (IPPROTO_MPTCP) and serves every connection
in a thread of its own until killed: the client announces the length,
sends that many bytes of a fixed pattern (byte i is i mod 251), and
gets back "ok" if every byte arrived in order, "bad OFFSET" at the first
wrong one. It prints one line per connection. "send" connects to
ADDR:PORT, sends BYTES, and exits 0 on "ok", 1 on anything else (the
answer or the error is printed), 2 on bad arguments or a kernel without
MPTCP (socket() refused).
"""
import socket
import struct
import sys
import threading

IPPROTO_MPTCP = getattr(socket, "IPPROTO_MPTCP", 262)
PERIOD = 251
CHUNK = 65536
# The pattern from any offset: PATTERN[o % PERIOD:][:n] for n <= CHUNK.
PATTERN = bytes(i % PERIOD for i in range(CHUNK + PERIOD))


def mptcp_socket():
    try:
        return socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    except OSError as e:
        print(f"mptcp-transfer: no MPTCP socket: {e}", file=sys.stderr)
        sys.exit(2)


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        got = conn.recv(n - len(buf))
        if not got:
            raise ConnectionError(f"closed after {len(buf)} of {n} bytes")
        buf += got
    return buf


def serve_one(conn, peer):
    with conn:
        try:
            (total,) = struct.unpack("!Q", recv_exact(conn, 8))
            off = 0
            bad = None
            while off < total:
                got = conn.recv(min(CHUNK, total - off))
                if not got:
                    raise ConnectionError(f"closed after {off} of {total} bytes")
                if bad is None and got != PATTERN[off % PERIOD:off % PERIOD + len(got)]:
                    want = PATTERN[off % PERIOD:off % PERIOD + len(got)]
                    bad = off + next(i for i in range(len(got)) if got[i] != want[i])
                off += len(got)
            conn.sendall(b"ok\n" if bad is None else f"bad {bad}\n".encode())
            print(f"{peer[0]}:{peer[1]}: {total} bytes, " +
                  ("intact" if bad is None else f"wrong from offset {bad}"), flush=True)
        except (OSError, ConnectionError) as e:
            print(f"{peer[0]}:{peer[1]}: {e}", flush=True)


def serve(addr, port):
    s = mptcp_socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(16)
    print(f"listening on {addr}:{port}", flush=True)
    while True:
        conn, peer = s.accept()
        threading.Thread(target=serve_one, args=(conn, peer), daemon=True).start()


def send(addr, port, total):
    s = mptcp_socket()
    try:
        s.connect((addr, port))
        s.sendall(struct.pack("!Q", total))
        off = 0
        while off < total:
            n = min(CHUNK, total - off)
            s.sendall(PATTERN[off % PERIOD:off % PERIOD + n])
            off += n
        answer = s.makefile("rb").readline().decode(errors="replace").strip()
    except OSError as e:
        print(f"mptcp-transfer: {addr}:{port}: {e}")
        return 1
    finally:
        s.close()
    print(f"{total} bytes to {addr}:{port}: {answer or 'no answer'}")
    return 0 if answer == "ok" else 1


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "serve":
            serve(argv[2], int(argv[3]))
        elif len(argv) == 5 and argv[1] == "send" and int(argv[4]) >= 0:
            return send(argv[2], int(argv[3]), int(argv[4]))
    except ValueError:
        pass
    print("usage: mptcp-transfer.py serve ADDR PORT | send ADDR PORT BYTES", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
