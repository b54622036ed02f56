#!/usr/bin/env python3
"""serve_attack.py: clients and servers that attack `banklab serve` and its clients, for
tests/sh/serve_class.sh and serve_deadline.sh. The frames come from serve_wire.py (written from
the wire format of src/gpu/serve_wire.h, not from banklab's code). A request for stride K is
the one `banklab sim '__shared__ float s[...]; s[lane * K]' --gpu` sends (4-byte loads, every
lane, timing and counters), so a learner's sim merges onto it. Every command stops by itself.
Commands (each prints what it saw; exit 1 when it could not do its part):
  orphan SOCK K       a job's creator leaves while another waits on it: one connection keeps
                      the device busy (2 requests), a second asks for stride K (queued behind
                      them) and prints "queued"; once someone merged onto it ("merged" in the
                      server's counts went up) that connection closes: "left while queued" (or
                      "too late" when K was measured already); orphan SOCK K stay: the same
                      but it stays until answered (the time the waiter takes unattacked)
  skip SOCK K         a waiter's connection fails while the result is sent: connection A asks
                      for stride K, B asks for it too (merged) and prints "ready"; once one more
                      waiter merged, B stops reading (shutdown SHUT_RD: the server's next send
                      to it fails) and prints "cut"
  qfull SOCK CONNS N  CONNS connections each send N distinct requests; prints the first "queue
                      is full" answer
  quitter SOCK SECONDS SEED  a learner that quits at random: connects, asks for a lesson
                      pattern (cut at random: closed, or SHUT_RD) for SECONDS; prints counts
  rebind PATH SECONDS loops that take PATH back as fast as they can (4 processes bind it
                      whenever it is free; one unlinks its own socket there every 50 ms), for
                      SECONDS; prints "rebinding" once they run and "binds B" at the end
  server SOCK MODE    a server of its own that answers hello and then, on a request: close
                      (closes the connection; prints "connections N" as they come), other
                      (progress for another request every 0.5 s), drip (a frame one byte a
                      second, never finished); until killed
"""
import os
import random
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_wire import (frame, request, stride, info_payload, HELLO, REQUEST, RESULT,  # noqa: E402
                        PROGRESS, CONTROL, STATS, VERSION)

LESSON = [1, 2, 4, 8, 16, 32, 3, 33]     # the strides the class asks for (tests/sh/serve_class.sh)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    s.sendall(frame(HELLO, struct.pack("<Ii", VERSION, 0)))
    return s


class Frames:
    """The frames of a connection, one at a time: (type, payload) or None when closed."""
    def __init__(self, s):
        self.s, self.buf = s, b""

    def next(self, timeout=20.0):
        self.s.settimeout(timeout)
        while True:
            if len(self.buf) >= 12:
                ftype, n = struct.unpack("<HI", self.buf[6:12])
                if len(self.buf) >= 12 + n:
                    f = (ftype, self.buf[12:12 + n])
                    self.buf = self.buf[12 + n:]
                    return f
            try:
                data = self.s.recv(65536)
            except (socket.timeout, OSError):
                return None
            if not data:
                return None
            self.buf += data

    def until(self, want, rid=None, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            f = self.next(max(0.01, end - time.monotonic()))
            if f is None:
                return None
            if f[0] == want and (rid is None or struct.unpack("<Q", f[1][:8])[0] == rid):
                return f
        return None


def merged(path):
    """the server's "merged" count (a control frame: stats)"""
    s = connect(path)
    fr = Frames(s)
    s.sendall(frame(CONTROL, struct.pack("<ii", 1, 0)))
    f = fr.until(STATS, timeout=5)
    s.close()
    if f is None:
        return -1
    return struct.unpack("<QQQ", f[1][:24])[2]


def wait_merged(path, at_least, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if merged(path) >= at_least:
            return True
        time.sleep(0.01)
    return False


def phase_of(f):
    return struct.unpack("<Qii", f[1][:16])[1]


def orphan(path, k, stay=False):
    base = merged(path)
    busy = connect(path)
    bf = Frames(busy)
    bf.until(HELLO)
    busy.sendall(stride(7001, 1001) + stride(7002, 1003))
    for rid in (7001, 7002):   # both handed to the device: K waits behind them
        f = bf.until(PROGRESS, rid)
        while f is not None and phase_of(f) != 3:
            f = bf.until(PROGRESS, rid)
    a = connect(path)
    af = Frames(a)
    af.until(HELLO)
    a.sendall(stride(1, k))
    f = af.until(PROGRESS, 1)
    print("queued (phase %s)" % (phase_of(f) if f else "none"), flush=True)
    if not wait_merged(path, base + 1):
        print("nobody merged", flush=True)
        return 1
    # still queued? anything the server said since (progress of request 1) tells
    a.setblocking(False)
    measuring = False
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            af.buf += data
    except (BlockingIOError, OSError):
        pass
    while True:
        a.settimeout(0.001)
        f = af.next(0.001)
        if f is None:
            break
        if f[0] == RESULT or (f[0] == PROGRESS and phase_of(f) == 3):
            measuring = True
    if stay:                     # the same without leaving: the time it takes unattacked
        print("stayed", flush=True)
        af.until(RESULT, 1)
    a.close()
    print("too late" if measuring else "left while queued", flush=True)
    bf.until(RESULT, 7001)
    bf.until(RESULT, 7002)
    busy.close()
    return 0


def skip(path, k):
    base = merged(path)
    a = connect(path)
    af = Frames(a)
    af.until(HELLO)
    a.sendall(stride(1, k))
    af.until(PROGRESS, 1)
    b = connect(path)
    bfr = Frames(b)
    bfr.until(HELLO)
    b.sendall(stride(2, k))
    bfr.until(PROGRESS, 2)
    print("ready", flush=True)
    if not wait_merged(path, base + 2):
        print("nobody merged after B", flush=True)
        return 1
    b.shutdown(socket.SHUT_RD)
    print("cut", flush=True)
    f = af.until(RESULT, 1, timeout=30)
    print("A answered" if f else "A not answered", flush=True)
    time.sleep(0.5)
    b.close()
    a.close()
    return 0


def qfull(path, conns, n):
    socks = [connect(path) for _ in range(conns)]
    frs = [Frames(s) for s in socks]
    for f in frs:
        f.until(HELLO)
    rid = 1
    for s in socks:
        s.sendall(b"".join(request(rid + i, offsets=[lane * (rid + i + 5000) * 4 % (1 << 20)
                                                     for lane in range(32)]) for i in range(n)))
        rid += n
    end = time.monotonic() + 20
    for f in reversed(frs):      # the last connection's are the ones over the share
        while time.monotonic() < end:
            x = f.next(max(0.01, end - time.monotonic()))
            if x is None:
                break
            if x[0] == RESULT and b"queue is full" in x[1]:
                n = struct.unpack("<H", x[1][9:11])[0]
                print(x[1][11:11 + n].decode(), flush=True)
                return 0
    print("no queue-full answer", flush=True)
    return 1


def quitter(path, seconds, seed):
    rnd = random.Random(seed)
    end = time.monotonic() + seconds
    asked = cut = 0
    while time.monotonic() < end:
        try:
            s = connect(path)
        except OSError:
            time.sleep(0.05)
            continue
        fr = Frames(s)
        fr.until(HELLO, timeout=5)
        s.sendall(stride(rnd.randrange(1, 1 << 30), rnd.choice(LESSON)))
        asked += 1
        time.sleep(rnd.uniform(0.0, 0.15))
        if rnd.random() < 0.5:
            try:
                s.shutdown(socket.SHUT_RD)   # stops reading: the server's send to it fails
            except OSError:
                pass
            time.sleep(rnd.uniform(0.0, 0.3))
        s.close()
        cut += 1
    print("asked %d cut %d" % (asked, cut), flush=True)
    return 0


def rebind(path, seconds, procs=4):
    """procs processes bind PATH whenever it is free (one of them also unlinks its own socket
    there every 50 ms): whoever unlinks the name and then binds it loses to them"""
    end = time.monotonic() + seconds
    kids = []
    for p in range(procs):
        pid = os.fork()
        if pid:
            kids.append(pid)
            continue
        binds = 0
        held, last = [], time.monotonic()
        while time.monotonic() < end:
            if p == 0 and time.monotonic() - last > 0.05:
                last = time.monotonic()
                try:
                    if os.lstat(path).st_uid == os.getuid():
                        os.unlink(path)
                except OSError:
                    pass
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.bind(path)
                s.listen(1)
                binds += 1
                held.append(s)
                if len(held) > 8:
                    held.pop(0).close()
            except OSError:
                s.close()
        os._exit(min(binds, 255))
    time.sleep(0.3)
    print("rebinding", flush=True)
    total = 0
    for pid in kids:
        total += os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print("binds %d" % total, flush=True)
    return 0


def server(path, mode):
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # bound and listening before the name appears: a client that sees the socket can connect
    lsock.bind(path + ".new")
    lsock.listen(64)
    os.rename(path + ".new", path)
    count = [0]

    def progress(rid):
        return frame(PROGRESS, struct.pack("<Qii", rid, 2, 1))

    def client(c):
        buf = b""
        while True:
            try:
                data = c.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
            while len(buf) >= 12:
                ftype, n = struct.unpack("<HI", buf[6:12])
                if len(buf) < 12 + n:
                    break
                payload, buf = buf[12:12 + n], buf[12 + n:]
                if ftype == HELLO:
                    c.sendall(frame(HELLO, info_payload()))
                elif ftype == REQUEST and mode == "close":
                    c.close()
                    return
                elif ftype == REQUEST:
                    rid = struct.unpack("<Q", payload[:8])[0]
                    try:
                        if mode == "other":
                            while True:
                                c.sendall(progress(rid + 1000))
                                time.sleep(0.5)
                        head = frame(RESULT, b"", length=4000)
                        for i in range(len(head)):
                            c.sendall(head[i:i + 1])
                            time.sleep(1.0)
                        while True:
                            c.sendall(b"\0")
                            time.sleep(1.0)
                    except OSError:
                        return

    while True:
        c, _ = lsock.accept()
        count[0] += 1
        if mode == "close":
            print("connections %d" % count[0], flush=True)
        threading.Thread(target=client, args=(c,), daemon=True).start()


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "orphan":
        return orphan(a[0], int(a[1]), len(a) > 2 and a[2] == "stay")
    if cmd == "skip":
        return skip(a[0], int(a[1]))
    if cmd == "qfull":
        return qfull(a[0], int(a[1]), int(a[2]))
    if cmd == "quitter":
        return quitter(a[0], float(a[1]), int(a[2]))
    if cmd == "rebind":
        return rebind(a[0], float(a[1]))
    if cmd == "server":
        return server(a[0], a[1])
    sys.exit("usage: serve_attack.py orphan|skip|qfull|quitter|rebind|server ...")


if __name__ == "__main__":
    sys.exit(main())
