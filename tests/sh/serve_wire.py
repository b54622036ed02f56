#!/usr/bin/env python3
"""serve_wire.py: a raw client of `banklab serve` for tests/sh/serve.sh, written from the wire
format of src/serve/wire.h (not from its code): frames of a 12-byte header ("BLSV",
version 3, type, payload length, little-endian) and every field of a request and a result,
one by one. Commands (each prints what it checks and exits 1 when a check fails):
  fair SOCK         client A queues 50 requests, then client B 5: B's come back before A's end
  merge SOCK N      N clients send the same request at once: the server measures it once
  bad SOCK          malformed requests get an error reply and the connection goes on; an
                    oversized frame closes that client only while another is still served
  stats SOCK        print the server's counts
  hostile SOCK MODE a server of its own on SOCK that answers every request with a result
                    banklab must refuse (MODE: nan, huge, negative, escape, utf8, status),
                    until killed; a learner's client says the result was refused, and no
                    such number or byte reaches its output (serve.sh)
  ch11 SOCK         chapter 11's instructions (ldmatrix .x1 at a 128-byte pitch, cp.async of 32
                    lanes to one word, ...) come back with the wavefronts of the instruction
                    asked for (the fake device measures with the model), not of a plain ld/st
"""
import os
import socket
import struct
import sys
import threading
import time

HELLO, REQUEST, RESULT, PROGRESS, CONTROL, STATS = 1, 2, 3, 4, 5, 6
VERSION = 4
PLAIN, LDMATRIX, STMATRIX, CPASYNC = 0, 1, 2, 3


def frame(ftype, payload, length=None):
    n = len(payload) if length is None else length
    return b"BLSV" + struct.pack("<HHI", VERSION, ftype, n) + payload


def s16(text):
    b = text if isinstance(text, bytes) else text.encode()
    return struct.pack("<H", len(b)) + b


def request(rid, width=4, op=0, mask=0xFFFFFFFF, offsets=None, kind=0, case="", params=(),
            timing=1, counters=1, instr=PLAIN, matrices=0, trans=0, has_src=0, src=None):
    """A request: id, kind, the access (width u32, op, mask, 32 offsets u64, instr, matrices,
    trans, has_src, 32 sources u32), case name, parameters, want_timing, want_counters."""
    offsets = offsets if offsets is not None else [4 * lane for lane in range(32)]
    src = src if src is not None else [0] * 32
    p = struct.pack("<QBIBI", rid, kind, width, op, mask)
    p += b"".join(struct.pack("<Q", o) for o in offsets)
    p += struct.pack("<BBBB", instr, matrices, trans, has_src)
    p += b"".join(struct.pack("<I", o) for o in src)
    p += s16(case) + struct.pack("<B", len(params))
    for name, value in params:
        p += s16(name) + struct.pack("<q", value)
    return frame(REQUEST, p + struct.pack("<BB", timing, counters))


def stride(rid, k, width=4):
    return request(rid, width=width, offsets=[lane * k * width for lane in range(32)])


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(20)
        self.s.connect(path)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def hello(self):
        self.send(frame(HELLO, struct.pack("<Ii", VERSION, 0)))
        return self.read(HELLO)

    def frame(self):
        """(type, payload) or None when the server closed the connection."""
        while True:
            if len(self.buf) >= 12:
                ftype, n = struct.unpack("<HI", self.buf[6:12])
                if len(self.buf) >= 12 + n:
                    out = (ftype, self.buf[12:12 + n])
                    self.buf = self.buf[12 + n:]
                    return out
            data = self.s.recv(65536)
            if not data:
                return None
            self.buf += data

    def read(self, want):
        while True:
            f = self.frame()
            if f is None or f[0] == want:
                return f


def result(payload):
    """id, status, error of a result payload."""
    rid, status = struct.unpack("<QB", payload[:9])
    n = struct.unpack("<H", payload[9:11])[0]
    return rid, status, payload[11:11 + n].decode()


class Reader:
    def __init__(self, payload):
        self.p, self.at = payload, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.p, self.at)
        self.at += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def str(self):
        n = self.take("H")
        self.at += n
        return self.p[self.at - n:self.at].decode()


def full_result(payload):
    """Every field of a result payload, as a dict (the layout of serve/wire.h)."""
    r, d = Reader(payload), {}
    d["id"], d["status"] = r.take("QB")
    d["msg"] = r.str()
    d["where_at"], d["where_len"], d["where_lane"], d["lane"] = r.take("iiii")
    d["why"] = r.str()
    for _ in range(r.take("B")):
        r.take("B")
        r.take("Q")
    used = r.take("H")
    r.at += used
    d["provenance"] = r.str()
    d["has_timing"] = r.take("B")
    d["ms_median"], d["ms_min"], d["ms_max"] = r.take("ddd")
    d["launches"] = r.take("i")
    d["clk_per_request"], d["bytes_per_clk_per_sm"], d["gbps"] = r.take("ddd")
    d["verified"], d["has_access_timing"] = r.take("BB")
    d["clk_per_access"], d["ns_per_access"], d["ref_clk_per_access"], d["slowdown"] = r.take("dddd")
    d["has_counters"] = r.take("B")
    for k in ("wavefronts_ld", "wavefronts_st", "conflicts_ld", "conflicts_st", "inst_ld", "inst_st"):
        d[k] = r.take("d")
    d["counters_note"] = r.str()
    d["counters_msg"] = r.str()
    for _ in range(r.take("B")):
        r.take("B")
        r.take("Q")
    used = r.take("H")
    r.at += used
    d["counters_busy"] = r.take("B")
    d["wait_ms"] = r.take("d")
    d["from_server"], d["from_cache"] = r.take("BB")
    d["cached_age_s"] = r.take("d")
    if r.at != len(payload):
        raise ValueError("%d bytes after the result" % (len(payload) - r.at))
    return d


def stats(path):
    c = Conn(path)
    c.hello()
    c.send(frame(CONTROL, struct.pack("<ii", 1, 0)))
    f = c.read(STATS)
    v = struct.unpack("<6QIIii", f[1])
    names = "requests measured merged cache_hits errors dropped clients queued pause_left_s cache_s"
    return dict(zip(names.split(), v))


def fair(path):
    a, b = Conn(path), Conn(path)
    a.hello()
    b.hello()
    a.send(b"".join(stride(i + 1, i + 1) for i in range(50)))
    time.sleep(0.05)
    b.send(b"".join(stride(1000 + i, 100 + i) for i in range(5)))
    order = []

    def collect(name, c, n):
        for _ in range(n):
            f = c.read(RESULT)
            if f is None:
                order.append((time.monotonic(), name, (0, 99, "lost the connection")))
                return
            order.append((time.monotonic(), name, result(f[1])))

    threads = [threading.Thread(target=collect, args=a) for a in (("A", a, 50), ("B", b, 5))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    order.sort()
    last_b = max(i for i, o in enumerate(order) if o[1] == "B")
    a_before = sum(1 for o in order[:last_b] if o[1] == "A")
    bad = [o for o in order if o[2][1] != 0]
    print("fair: A answered %d of 50 before B's 5th answer; %d not ok" % (a_before, len(bad)))
    return 0 if a_before < 20 and not bad else 1


def merge(path, n):
    before = stats(path)["measured"]
    conns = [Conn(path) for _ in range(n)]
    for c in conns:
        c.hello()
    req = request(7, width=8, offsets=[lane * 24 for lane in range(32)])
    for c in conns:
        c.send(req)
    res = [c.read(RESULT) for c in conns]
    ok = sum(1 for f in res if f and result(f[1])[1] == 0)
    measured = stats(path)["measured"] - before
    print("merge: %d clients, %d answered ok, measured %d time(s)" % (n, ok, measured))
    return 0 if ok == n and measured == 1 else 1


def bad(path):
    c = Conn(path)
    c.hello()
    fails = 0
    cases = [
        ("width 3", request(11, width=3), "width"),
        ("misaligned", request(12, offsets=[lane * 4 + 2 for lane in range(32)]), "multiple"),
        ("offset out of range", request(13, offsets=[1 << 40] * 32), "beyond"),
        ("no lane", request(14, mask=0), "no active lane"),
        ("unknown case", request(15, kind=1, case="no_such_kernel"), "unknown case"),
        ("value out of range", request(17, kind=1, case="transpose_padded", params=[("PAD", 1 << 40)]),
         "outside"),
        ("too many parameters", request(18, kind=1, case="copy", params=[("N", 1)] * 9),
         "parameter count is 9"),
        ("truncated", frame(REQUEST, struct.pack("<Q", 19) + b"\x00\x04"), "ends inside"),
        ("trailing bytes", stride(20, 1)[:12 - 4] + struct.pack("<I", len(stride(20, 1)) - 12 + 3)
         + stride(20, 1)[12:] + b"xyz", "after the end"),
        ("bad flag", stride(21, 1)[:-1] + b"\x07", "not 0 or 1"),
        ("unknown type", frame(99, b""), "unknown message type"),
        ("unknown instruction", request(40, instr=9), "instruction is 9"),
        ("ldmatrix.x3", request(41, width=16, instr=LDMATRIX, matrices=3,
                                offsets=[16 * lane for lane in range(32)]), "3 matrices"),
        ("ldmatrix of 8 bytes", request(42, width=8, instr=LDMATRIX, matrices=4,
                                        offsets=[8 * lane for lane in range(32)]), "of 8 bytes a lane"),
        ("ldmatrix with a lane missing", request(43, width=16, instr=LDMATRIX, matrices=1,
                                                 mask=0xFFFF, offsets=[16 * lane for lane in range(32)]),
         "every lane"),
        ("trans 2", request(44, trans=2), "trans is 2"),
        ("sources for ld.shared", request(45, has_src=1), "cp.async only"),
        ("a misaligned cp.async source", request(46, op=1, instr=CPASYNC, has_src=1, src=[2] * 32),
         "global source 2"),
        ("a cp.async source past the buffer", request(47, width=16, op=1, instr=CPASYNC, has_src=1,
                                                      offsets=[16 * lane for lane in range(32)],
                                                      src=[65536 - 8] * 32), "global source 65528"),
        ("a control character in a case name", request(48, kind=1, case="copy\x1b[2J"),
         "control character U+001B"),
        ("invalid UTF-8 in a parameter name", request(49, kind=1, case="transpose_padded",
                                                      params=[(b"P\xffD", 1)]), "not valid UTF-8"),
    ]
    for name, data, want in cases:
        c.send(data)
        f = c.read(RESULT)
        if f is None:
            print("FAIL: %s: the server closed the connection" % name)
            return 1
        rid, status, err = result(f[1])
        good = status == 3 and want in err
        fails += not good
        print("%s %s: status %d, %r" % ("ok  " if good else "FAIL", name, status, err))
    c.send(stride(30, 2))
    f = c.read(RESULT)
    good = f is not None and result(f[1])[1] == 0
    print("%s a good request after the bad ones" % ("ok  " if good else "FAIL"))
    fails += not good
    c.send(request(32, kind=1, case="row_col", params=[("PAD", 1), ("COL", 1)], mask=0))
    f = c.read(RESULT)
    good = f is not None and result(f[1])[1] == 0
    print("%s a case kernel's request (row_col, PAD=1, the alias COL=1)" % ("ok  " if good else "FAIL"))
    fails += not good
    c.send(request(33, kind=1, case="transpose_padded", params=[("PAD", 1), ("j", 0)], mask=0))
    f = c.read(RESULT)
    good = f is not None and result(f[1])[1] == 0
    print("%s a scene's parameter the kernel does not read (transpose_padded's j) is left alone, "
          "as in-process" % ("ok  " if good else "FAIL"))
    fails += not good
    big = Conn(path)
    big.hello()
    big.send(frame(REQUEST, b"", length=100000) + b"x" * 1000)
    closed = big.frame() is None
    print("%s an oversized frame closes its client" % ("ok  " if closed else "FAIL"))
    c.send(stride(31, 3))
    f = c.read(RESULT)
    good = closed and f is not None and result(f[1])[1] == 0
    print("%s the other client is still served" % ("ok  " if good else "FAIL"))
    fails += not good
    junk = Conn(path)
    junk.send(b"GET / HTTP/1.0\r\n\r\n")
    f = junk.frame()
    good = f is not None and f[0] == RESULT and "magic" in result(f[1])[2] and junk.frame() is None
    print("%s bytes that are no frame: an error, then closed" % ("ok  " if good else "FAIL"))
    fails += not good
    old = Conn(path)
    old.send(b"BLSV" + struct.pack("<HHI", 1, REQUEST, 0))
    f = old.frame()
    good = f is not None and f[0] == RESULT and "version 1" in result(f[1])[2] and old.frame() is None
    print("%s a client of the version before every field (1): told, then closed" % ("ok  " if good else "FAIL"))
    fails += not good
    return 1 if fails else 0


def s_err(status=0, msg=""):
    """An error as the wire writes it: status, msg, place, lane, no message."""
    return struct.pack("<B", status) + s16(msg) + struct.pack("<iiii", 0, 0, -1, -1) + \
        s16("") + struct.pack("<BH", 0, 0)


def info_payload():
    return (struct.pack("<BB", 1, 1) + s_err() + s16("hostile device (serve_wire.py)") +
            struct.pack("<iiiiB", 9, 0, 132, 1980000, 1) + s_err() + s16("no turns") +
            s16("") + struct.pack("<BH", 0, 0) + s16("") + struct.pack("<BH", 0, 0))


def result_payload(rid, mode):
    nan, wf, slow, status, prov = float("nan"), 1.0, 1.0, 0, "hostile device"
    if mode == "nan":
        wf, slow = nan, nan
    elif mode == "huge":
        wf, slow = 1e18, 1e18
    elif mode == "negative":
        wf = -1.0
    elif mode == "escape":
        prov = "\x1b[2J\x1b]0;owned\x07 hostile"
    elif mode == "status":
        status = 77
    p = struct.pack("<Q", rid) + s_err(status) + (s16(b"\xff\xfe") if mode == "utf8" else s16(prov))
    p += struct.pack("<B3di3dBB4dB6d", 1, 1.0, 1.0, 1.0, 11, 2.0, 64.0, 1000.0, 0, 1,
                     2.0, 1.0, 2.0, slow, 1, wf, 0.0, 0.0, 0.0, 1.0, 0.0)
    p += s16("") + s16("") + struct.pack("<BH", 0, 0)   # the counters' note and its message
    p += struct.pack("<BdBBd", 0, 0.0, 1, 0, 0.0)
    return p


def hostile(path, mode):
    """Serve every client with a well-formed frame holding a value out of range."""
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # bound and listening before the name appears: a client that sees the socket can connect
    lsock.bind(path + ".new")
    lsock.listen(8)
    os.rename(path + ".new", path)

    def client(c):
        buf = b""
        while True:
            data = c.recv(65536)
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
                elif ftype == REQUEST:
                    rid = struct.unpack("<Q", payload[:8])[0]
                    c.sendall(frame(RESULT, result_payload(rid, mode)))

    while True:
        c, _ = lsock.accept()
        threading.Thread(target=client, args=(c,), daemon=True).start()


def ch11(path):
    """The instructions of chapter 11 through the server: wavefronts of the instruction asked
    for (the fake device measures with the model, as the H200 counted them:
    tests/data/h200-matrix.json), where a server that drops the instruction measures a plain
    ld/st of the same width (the second figure)."""
    c = Conn(path)
    c.hello()
    rows = [
        # name, request, (counter field, wavefronts of the instruction, of a plain ld/st)
        ("ldmatrix.x1 pitch 128", request(60, width=16, instr=LDMATRIX, matrices=1,
                                          offsets=[128 * lane for lane in range(32)]),
         "wavefronts_ld", 8, 32),
        ("ldmatrix.x2 pitch 128", request(61, width=16, instr=LDMATRIX, matrices=2,
                                          offsets=[128 * lane for lane in range(32)]),
         "wavefronts_ld", 16, 32),
        ("stmatrix.x4.trans pitch 128", request(62, width=16, op=1, instr=STMATRIX, matrices=4, trans=1,
                                                offsets=[128 * lane for lane in range(32)]),
         "wavefronts_st", 32, 32),
        ("ldmatrix.x4, 8 rows of one 16-byte line each", request(63, width=16, instr=LDMATRIX, matrices=4,
                                                                  offsets=[(lane % 8) * 16 for lane in range(32)]),
         "wavefronts_ld", 4, 2),
        ("cp.async4, 32 lanes to one word", request(64, op=1, instr=CPASYNC, offsets=[0] * 32),
         "wavefronts_st", 32, 1),
        ("cp.async4, 32 lanes from one source word", request(65, op=1, instr=CPASYNC, has_src=1,
                                                              src=[0] * 32),
         "wavefronts_st", 32, 1),
    ]
    fails = 0
    for name, req, field, want, plain in rows:
        c.send(req)
        f = c.read(RESULT)
        if f is None:
            print("FAIL %s: the server closed the connection" % name)
            return 1
        d = full_result(f[1])
        got = d[field]
        good = d["status"] == 0 and d["has_counters"] == 1 and got == want
        fails += not good
        print("%s %s: %s %g (the instruction: %d; a plain ld/st of its width: %d)%s" % (
            "ok  " if good else "FAIL", name, field, got, want, plain,
            "" if d["status"] == 0 else ", " + d["msg"]))
    return 1 if fails else 0


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "fair":
        return fair(path)
    if cmd == "merge":
        return merge(path, int(sys.argv[3]))
    if cmd == "bad":
        return bad(path)
    if cmd == "stats":
        print(stats(path))
        return 0
    if cmd == "ch11":
        return ch11(path)
    if cmd == "hostile":
        return hostile(path, sys.argv[3])
    print("unknown command " + cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main())
