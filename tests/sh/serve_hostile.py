#!/usr/bin/env python3
"""serve_hostile.py: a hostile learner against `banklab serve`, for tests/sh/serve_hostile_users.sh
(run as a second Unix user). The frames come from serve_wire.py (written from the wire format,
not from banklab's code). Every command stops by itself after SECONDS. Commands:
  idle SOCK N SECONDS LATE  open N connections and send nothing; prints how many the server
                         still holds open 1.5 s later and LATE s later ("held_1s A held_late B")
  flood SOCK N SECONDS   N connections, each sending distinct valid requests as fast as the
                         server reads them (reading what comes back, reconnecting when dropped);
                         prints "sent S answered R reconnects C" every second
  burst SOCK N           (the learner) one connection sends N distinct requests at once;
                         prints "answered A of N in MS ms"
  plant PATH SECONDS     a socket at PATH that listens and never accepts, its queue kept full
                         (a connect to it would block); prints "planted" once it is
"""
import errno
import os
import resource
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_wire import frame, request, HELLO  # noqa: E402


def more_fds():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def connect(path, patience=0.0):
    """a non-blocking connection to path, or None; a full queue is tried again for patience s"""
    end = time.monotonic() + patience
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if e.errno not in (errno.EAGAIN, errno.EWOULDBLOCK) or time.monotonic() >= end:
                return None
            time.sleep(0.002)


def still_open(conns):
    """how many of conns the server has not closed (what it said before closing is read)"""
    n = 0
    for s in conns:
        try:
            while s.recv(65536):
                pass                # a refusal's reason, then the end
        except BlockingIOError:
            n += 1                  # nothing more to read and not closed: open
        except OSError:
            pass
    return n


def idle(path, n, seconds, late):
    more_fds()
    end = time.monotonic() + seconds
    conns = [c for c in (connect(path, 3.0) for _ in range(n)) if c is not None]
    t0 = time.monotonic()
    time.sleep(1.5)
    a = still_open(conns)
    print("opened %d held_1s %d" % (len(conns), a), flush=True)
    time.sleep(max(0.0, late - (time.monotonic() - t0)))
    b = still_open(conns)
    print("opened %d held_1s %d held_late %d" % (len(conns), a, b), flush=True)
    while time.monotonic() < end:
        time.sleep(0.2)


def flood(path, n, seconds):
    more_fds()
    end = time.monotonic() + seconds
    conns = [None] * n
    sent = answered = reconnects = 0
    rid = 1
    told = time.monotonic()
    while time.monotonic() < end:
        if time.monotonic() - told >= 1.0:
            told = time.monotonic()
            print("sent %d answered %d reconnects %d" % (sent, answered, reconnects), flush=True)
        for i in range(n):
            if conns[i] is None:
                conns[i] = connect(path)
                reconnects += 1
                if conns[i] is None:
                    continue
                try:
                    conns[i].send(frame(HELLO, b"\x01\x00\x00\x00\x00\x00\x00\x00"))
                except OSError:
                    conns[i] = None
                    continue
            s = conns[i]
            # distinct accesses (no merging, no cache): each is a job of its own
            batch = b"".join(request(rid + k, offsets=[lane * ((rid + k) % 32749 + 1) * 4 % (1 << 20)
                                                       for lane in range(32)])
                             for k in range(16))
            try:
                s.send(batch)
                sent += 16
                rid += 16
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                conns[i] = None
                continue
            try:
                while True:
                    data = s.recv(65536)
                    if not data:
                        s.close()
                        conns[i] = None
                        break
                    answered += data.count(b"BLSV\x01\x00\x03\x00")
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                conns[i] = None
        live = [c for c in conns if c is not None]
        if live:
            select.select(live, [], [], 0.005)
        else:
            time.sleep(0.01)
    print("sent %d answered %d reconnects %d" % (sent, answered, reconnects), flush=True)


def burst(path, n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    s.sendall(frame(HELLO, b"\x01\x00\x00\x00\x00\x00\x00\x00"))
    t0 = time.monotonic()
    s.sendall(b"".join(request(900000 + k, offsets=[lane * (k + 40000) * 4 % (1 << 20)
                                                    for lane in range(32)]) for k in range(n)))
    buf, got = b"", 0
    try:
        while got < n:
            data = s.recv(65536)
            if not data:
                break
            buf += data
            while len(buf) >= 12:
                ftype, size = int.from_bytes(buf[6:8], "little"), int.from_bytes(buf[8:12], "little")
                if len(buf) < 12 + size:
                    break
                if ftype == 3 and buf[12 + 8] == 0:     # a result, status ok
                    got += 1
                buf = buf[12 + size:]
    except socket.timeout:
        pass
    print("answered %d of %d in %.0f ms" % (got, n, (time.monotonic() - t0) * 1e3), flush=True)


def plant(path, seconds):
    end = time.monotonic() + seconds
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path + ".new")
    os.chmod(path + ".new", 0o666)
    s.listen(0)
    os.rename(path + ".new", path)   # listening before the name appears
    fill = []
    for _ in range(64):         # fill the queue: a blocking connect would now wait forever
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect(path)
            fill.append(c)
        except OSError as e:
            c.close()
            if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                break
    print("planted %s (queue full after %d)" % (path, len(fill)), flush=True)
    while time.monotonic() < end:
        time.sleep(0.2)


def main():
    cmd = sys.argv[1]
    if cmd == "idle":
        idle(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
    elif cmd == "flood":
        flood(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif cmd == "burst":
        burst(sys.argv[2], int(sys.argv[3]))
    elif cmd == "plant":
        plant(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit("usage: serve_hostile.py idle|flood|plant ...")


if __name__ == "__main__":
    main()
