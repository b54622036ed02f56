#!/usr/bin/env python3
"""classroom_report.py OUT STEPS USER1 USER2 PART...: the summary of tests/gpu/classroom.sh.
Reads OUT/PART/ (each learner's script, JSON lines, stderr and exit; the device memory samples;
the part's extras), prints one table (a row a part) and what each part's goals say, writes
OUT/requests.tsv (every request of every part) and exits 1 when a goal is not met."""
import json
import os
import sys

OUT, STEPS, U1, U2 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
PARTS = sys.argv[5:]
ACC = open(os.path.join(OUT, "accesses")).read().splitlines()


def read(path, default=""):
    try:
        return open(path).read()
    except OSError:
        return default


def load(pd, name):
    """One session's rows: a row a step of its script, measured or not."""
    script = read(os.path.join(pd, name + ".script")).splitlines()
    proc = read(os.path.join(pd, name + ".proc"), name + " 255 0 ? 0").split()
    rc, ms, user, t0 = int(proc[1]), int(proc[2]), proc[3], int(proc[4])
    err = read(os.path.join(pd, name + ".err")).strip()
    got = {}
    for line in read(os.path.join(pd, name + ".jsonl")).splitlines():
        try:
            j = json.loads(line)
            got[j["line"] - 1] = j
        except (ValueError, KeyError):
            pass
    rows = []
    for step, text in enumerate(script):
        r = {"who": name, "user": user, "step": step, "k": ACC.index(text), "rc": rc, "cmd_ms": ms, "t0": t0}
        j = got.get(step)
        if j is None:
            r["bad"] = "no result (session exit %s): %s" % (rc, err.splitlines()[-1][:200] if err else "-")
        else:
            m = j["measured"]
            r.update(model_wf=j["wavefronts"], model_cf=j["conflicts"], status=m["status"], wf=m["wavefronts"],
                     cf=m["conflicts"], clk=m["clk_per_access"], req_ms=m.get("request_ms", 0),
                     busy=m["counters_busy"], note=m["error"], age=m.get("cache_age_s"),
                     device=m["source"].replace("measured now on ", ""), lock=m.get("lock", "?"))
        rows.append(r)
    return rows


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(-(-p * len(xs) // 100)) - 1))] if xs else float("nan")


def med(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2 if xs else float("nan")


def has(r):
    return r.get("status") == "ok" and r.get("wf") is not None


def memory(pd):
    """(largest total MiB of the device's compute processes at one sample, most processes)."""
    best, procs, cur, n = 0, 0, 0, 0
    for line in read(os.path.join(pd, "mem.csv")).splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) >= 2 and f[1] == "--":
            best, procs, cur, n = max(best, cur), max(procs, n), 0, 0
        elif len(f) >= 3 and f[2].isdigit():
            cur, n = cur + int(f[2]), n + 1
    return best, procs


def learners(pd):
    return sorted((f[:-5] for f in os.listdir(pd) if f.startswith("l") and f.endswith(".proc")),
                  key=lambda s: int(s[1:]))


solo = load(os.path.join(OUT, "alone"), "solo") if "alone" in PARTS else []
solo_clk = {r["k"]: r["clk"] for r in solo if r.get("clk")}
base_mib = memory(os.path.join(OUT, "alone"))[0] if "alone" in PARTS else int(os.environ.get("CLASS_CONTEXT_MIB", "0"))
table, notes, fails, every = [], [], [], []


def clk_worst(rows):
    worst = (0.0, None)
    for k in range(len(ACC)):
        c = [r["clk"] for r in rows if r["k"] == k and r.get("clk")]
        if c and k in solo_clk:
            d = (med(c) / solo_clk[k] - 1) * 100
            if worst[1] is None or abs(d) > abs(worst[0]):
                worst = (d, k)
    return worst


def summarize(part, rows, names, extra_goals):
    pd = os.path.join(OUT, part)
    n = len(names)
    users = sorted({r["user"] for r in rows})
    nocount = [r for r in rows if not has(r)]
    differ = [r for r in rows if has(r) and (abs(r["wf"] - r["model_wf"]) > 0.005 or abs(r["cf"] - r["model_cf"]) > 0.005)]
    full = sum(1 for w in names if all(has(r) for r in rows if r["who"] == w)
               and sum(1 for r in rows if r["who"] == w) == (STEPS if w.startswith("l") else len([r for r in rows if r["who"] == w])))
    req = [r["req_ms"] for r in rows if "req_ms" in r]
    worst = clk_worst(rows) if part != "alone" else (0.0, None)
    mib, procs = memory(pd)
    cached = sum(1 for r in rows if r.get("age") is not None)
    goals = []
    for name, ok in extra_goals(rows, nocount, differ, full, n, req, worst, mib, users):
        goals.append((name, ok))
        if not ok:
            fails.append("%s: %s" % (part, name))
    table.append((part, "%d (%s)" % (n, ",".join(users)), "%d of %d" % (len(rows) - len(nocount), len(rows)),
                  "%d of %d" % (full, n), "%d" % len(differ),
                  "%.2f / %.2f" % (pct(req, 50) / 1e3, pct(req, 95) / 1e3) if req else "-",
                  "%+.2f %%" % worst[0] if worst[1] is not None else "-",
                  "%d MiB, %d proc" % (mib, procs),
                  "met" if all(ok for _, ok in goals) else "NOT MET"))
    busy = [r for r in nocount if r.get("busy")]
    notes.append("%s: %d without counters (%d said busy), %d from the cache; %s" % (
        part, len(nocount), len(busy), cached, "; ".join("%s %s" % ("ok" if ok else "NOT", g) for g, ok in goals) or "-"))
    for r in (differ + [x for x in nocount if x not in busy])[:5]:
        notes.append("  ! %s step %d access %d rc %d: %s" % (r["who"], r["step"], r["k"] + 1, r["rc"],
                     r.get("bad") or r.get("note") or "model %s/%s, counters %s/%s" % (r.get("model_wf"), r.get("model_cf"), r.get("wf"), r.get("cf"))))
    for r in rows:
        every.append(dict(r, part=part))


def answered(rows):
    return all("bad" not in r and r["rc"] in (0, 4) for r in rows)


def class_goals(p95_ms):
    def goals(rows, nocount, differ, full, n, req, worst, mib, users):
        return [("every learner has counters for every request", full == n),
                ("0 model vs counter differences", not differ),
                ("p95 request to numbers < %g s" % (p95_ms / 1e3), bool(req) and pct(req, 95) < p95_ms),
                ("clk/request within 3 %% of alone (worst %+.2f %%)" % worst[0], worst[1] is not None and abs(worst[0]) <= 3),
                ("device memory <= one context + 1 GiB (%d <= %d + 1024 MiB)" % (mib, base_mib), base_mib > 0 and mib <= base_mib + 1024),
                ("learners of two Unix users", len(users) >= 2)]
    return goals


for part in PARTS:
    pd = os.path.join(OUT, part)
    if part == "alone":
        summarize(part, solo, ["solo"], lambda rows, nc, d, full, n, req, w, m, u: [("every access measured", full == 1)])
    elif part in ("nocache", "cache"):
        names = learners(pd)
        rows = [r for w in names for r in load(pd, w)]
        summarize(part, rows, names, class_goals(2000 if part == "nocache" else 1000))
    elif part == "ncu":
        names = learners(pd)
        rows = [r for w in names for r in load(pd, w)]
        after = load(pd, "after")
        back = next((i for i, r in enumerate(after) if has(r)), None)

        def ncu_goals(rows, nocount, differ, full, n, req, worst, mib, users, after=after, back=back):
            return [("every request answered", answered(rows)),
                    ("p95 request to numbers < 2 s", bool(req) and pct(req, 95) < 2000),
                    ("every request without counters says busy", all(r.get("busy") for r in nocount if "bad" not in r)),
                    ("0 model vs counter differences", not differ),
                    ("counters back within one request after ncu (request %s)" % (back + 1 if back is not None else "none"),
                     back is not None and back <= 1)]
        summarize(part, rows, names, ncu_goals)
        notes.append("ncu: %s" % (read(os.path.join(pd, "ncu.log")).count("==PROF== Profiling") and
                                  "%d kernels profiled during the class" % read(os.path.join(pd, "ncu.log")).count("==PROF== Profiling")
                                  or "profiled nothing: " + read(os.path.join(pd, "ncu.log"))[-300:]))
    elif part == "kill":
        names = learners(pd)
        rows = [r for w in names for r in load(pd, w)]
        t_kill = int(read(os.path.join(pd, "t_kill"), "0") or 0)

        going = len({r["who"] for r in rows if t_kill and r["t0"] + r["cmd_ms"] > t_kill})

        def kill_goals(rows, nocount, differ, full, n, req, worst, mib, users, t_kill=t_kill, going=going):
            return [("the server was killed (SIGKILL) while %d learners measured" % going, t_kill > 0 and going > 0),
                    ("every request answered, status ok", answered(rows) and all(r.get("status") == "ok" for r in rows)),
                    ("0 model vs counter differences", not differ)]
        summarize(part, rows, names, kill_goals)
        notes.append("kill: servers on the socket afterwards: %s" % (read(os.path.join(pd, "servers_after")).strip().replace("\n", "; ") or "-"))
    elif part == "kernel":
        names = learners(pd)
        rows = [r for w in names for r in load(pd, w)]

        def lines(f):
            try:
                return [(x["line"], x["wavefronts"]) for x in json.load(open(os.path.join(pd, f)))["lines"]]
            except (OSError, ValueError, KeyError, TypeError):
                return None
        ka, kc = lines("kernel_alone.json"), lines("kernel_class.json")
        rcs = (read(os.path.join(pd, "kernel_alone.rc")).strip(), read(os.path.join(pd, "kernel_class.rc")).strip())

        def kernel_goals(rows, nocount, differ, full, n, req, worst, mib, users, ka=ka, kc=kc, rcs=rcs):
            return [("banklab kernel mid-class: exit 0 and its per-line wavefronts as alone (%d lines)" % len(ka or []),
                     rcs == ("0", "0") and ka is not None and ka == kc and len(ka) > 0),
                    ("every request answered", answered(rows)),
                    ("clk/request within 3 %% of alone (worst %+.2f %%)" % worst[0], worst[1] is not None and abs(worst[0]) <= 3)]
        summarize(part, rows, names, kernel_goals)
        if ka != kc:
            notes.append("kernel: alone %s, in the class %s (exits %s)" % (ka, kc, rcs))
    elif part == "run":
        names = learners(pd)
        rows = [r for w in names for r in load(pd, w)]

        def runs(f):
            out = []
            for ln in read(os.path.join(pd, f)).splitlines():
                w = ln.split()
                if len(w) == 2 and w[0].isdigit() and w[1].isdigit():
                    out.append((int(w[0]), int(w[1])))
            return out
        alone, beside = runs("runs_alone"), runs("runs_beside")
        t_alone = med([t for _, t in alone]) if alone else 0
        worst_run = max([t for _, t in beside], default=0)

        def run_goals(rows, nocount, differ, full, n, req, worst, mib, users, alone=alone,
                      beside=beside, t_alone=t_alone, worst_run=worst_run):
            return [("every learner has counters for every request", full == n),
                    ("p95 request to numbers < 1 s", bool(req) and pct(req, 95) < 1000),
                    ("banklab run beside the class: %d runs, all exit 0" % len(beside),
                     len(beside) > 0 and all(rc == 0 for rc, _ in beside)),
                    ("each run within 2x its time alone (%d ms; the slowest %d ms)" % (t_alone, worst_run),
                     t_alone > 0 and bool(beside) and worst_run <= 2 * t_alone),
                    ("learners of two Unix users", len(users) >= 2)]
        summarize(part, rows, names, run_goals)
        notes.append("run: alone %s ms; beside the class %s" % (
            [t for _, t in alone], [t for _, t in beside][:40]))
    elif part == "none":
        how = read(os.path.join(pd, "how")).strip()
        try:
            c = json.loads(read(os.path.join(pd, "client.json")).splitlines()[0])["measured"]
        except (IndexError, ValueError, KeyError):
            c = {}
        nod = read(os.path.join(pd, "nodriver.err")).strip()
        ok = c.get("status") == "ok" and c.get("wavefronts") is not None
        table.append(("none", "1 client", "1 of 1" if ok else "0 of 1", "-", "-", "-", "-", "-", "met" if ok else "NOT MET"))
        notes.append("none: %s; without the server: %s; with BANKLAB_SERVER: %s wavefronts, %s clk" % (
            how, nod or "(no message)", c.get("wavefronts"), c.get("clk_per_access")))
        if "skipped" in how:
            notes.append("none: SKIPPED (%s)" % how)
        elif not ok:
            fails.append("none: a client without a CUDA driver shows measured numbers")

head = ("part", "learners (users)", "requests with counters", "learners with all", "differ", "p50 / p95 s",
        "clk vs alone", "GPU memory (max)", "goals")
w = [max(len(str(x[i])) for x in [head] + table) for i in range(len(head))]
dev = next((r["device"] for r in every if r.get("device")), "?")
lock = next((r["lock"] for r in every if r.get("lock")), "?")
print("classroom: %d steps a learner, users %s and %s; device: %s; %s" % (STEPS, U1, U2, dev, lock))
print("one context (the server alone): %d MiB" % base_mib)
for row in [head] + table:
    print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(row)))
print("\n".join(notes))
with open(os.path.join(OUT, "requests.tsv"), "w") as f:
    cols = ("part", "who", "user", "step", "k", "rc", "cmd_ms", "req_ms", "status", "model_wf", "wf", "model_cf", "cf", "clk", "busy", "age", "note")
    f.write("\t".join(cols) + "\n")
    for r in every:
        f.write("\t".join(str(r.get(x, "")) for x in cols) + "\n")
print("goals: " + ("all met" if not fails else "NOT MET: " + "; ".join(fails)))
sys.exit(1 if fails else 0)
