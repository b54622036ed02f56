#!/bin/sh
# classroom.sh N: a class on one GPU server. N learners at once, each one process running a
# scripted session of CLASS_STEPS (20) measurements through `banklab sim --gpu --json --script`
# (the request the tutorial sends, timing on all SMs and counters on one warp, from a process
# that keeps the GPU open as the tutorial does), after the same accesses measured alone. Reports how many learners got counters for every request, model vs
# counter differences, p50/p95/max time from request to numbers (inside banklab, waiting for
# the GPU's turn included; the whole command's time too) and each access's clk/request (the
# time of one warp access, clk_per_access) in the class against the same access alone. Goals
# (issue 12): every learner has counters for every request, 0 differences, p95 < 2 s,
# clk/request within 3 % of alone. Learners do not pause between measurements (a class at its
# busiest: every learner pressing a key the moment the last numbers arrive).
# CLASS_NCU=1: meanwhile Nsight Compute profiles another process (`banklab bench --quick` with
# its own lock directory, so it does not take turns: a profiler banklab does not know about).
# Then the goals are: no differences, every request answered, and each one without counters
# says the counters were busy.
# Needs a GPU (SKIP, exit 77, without) and python3. Env: BANKLAB, CLASS_STEPS, CLASS_OUT (a
# directory to keep the logs and the per-request table in), CLASS_SOLO (an earlier CLASS_OUT
# whose measurements alone to reuse), CLASS_MAX_S (a learner's session is stopped after this
# many seconds; the measurements it did not reach count as missing counters).
set -u
N=${1:-4}
STEPS=${CLASS_STEPS:-20}
NCU_MODE=${CLASS_NCU:-0}
B=${BANKLAB:-build/banklab}
case $B in /*) ;; *) B=$PWD/$B ;; esac
dir=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: classroom.sh needs python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/banklab-class.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=${CLASS_OUT:-$tmp/out}
mkdir -p "$out"
# the sessions write into $out as they go (CLASS_OUT keeps what a run cut short had done)

# The session: 20 accesses of the lessons' kinds (strides, padding, broadcast, 8/16 bytes,
# stores, structs); learner i starts at access i, so different accesses run side by side.
cat > "$tmp/accesses" <<'EOF'
__shared__ float s[1024]; s[lane]
__shared__ float s[1024]; s[lane * 2]
__shared__ float s[1024]; s[lane * 4]
__shared__ float s[1024]; s[lane * 8]
__shared__ float s[1024]; s[lane * 16]
__shared__ float s[1024]; s[lane * 32]
__shared__ float s[1024]; s[lane * 3]
__shared__ float t[32][33]; t[lane][0]
__shared__ float t[32][32]; t[lane][0]
__shared__ float s[64]; s[0]
__shared__ float2 v[64]; v[lane]
__shared__ float2 v[128]; v[lane * 2]
__shared__ float4 v[64]; v[lane]
__shared__ float4 v[128]; v[lane * 2]
__shared__ float s[1024]; s[lane] = 1.0f
__shared__ float s[1024]; s[lane * 32] = 1.0f
__shared__ double d[512]; d[lane]
__shared__ char c[4096]; c[lane * 4]
__shared__ struct { float x, y, z; } p[256]; p[lane].x
__shared__ float s[1024]; s[(lane % 2) * 32]
EOF
NACC=$(wc -l < "$tmp/accesses")

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

# session NAME FIRST COUNT: one process measuring COUNT accesses from access FIRST on (in turn,
# wrapping) -> NAME.jsonl (a JSON object a measurement, "line" = step + 1), NAME.script (the
# access of each step), and a line "name rc ms" in NAME.proc
session() {
    : > "$out/$1.script"
    j=0
    while [ "$j" -lt "$3" ]; do
        sed -n "$(( ($2 + j) % NACC + 1 ))p" "$tmp/accesses" >> "$out/$1.script"
        j=$((j + 1))
    done
    t0=$(ms_now)
    if [ -n "${CLASS_MAX_S:-}" ]; then
        timeout "$CLASS_MAX_S" "$B" sim --gpu --json --script "$out/$1.script" > "$out/$1.jsonl" 2> "$out/$1.err"
    else
        "$B" sim --gpu --json --script "$out/$1.script" > "$out/$1.jsonl" 2> "$out/$1.err"
    fi
    echo "$1 $? $(( $(ms_now) - t0 ))" > "$out/$1.proc"
}

"$B" sim '__shared__ float s[64]; s[lane]' --gpu --json > "$tmp/probe.json" 2> "$tmp/probe.err"
rc=$?
if [ $rc = 3 ] || [ $rc = 2 ]; then
    echo "SKIP: no GPU: $(cat "$tmp/probe.err")"
    exit 77
fi

# alone: every access once, one process at a time (CLASS_SOLO: the out directory of an earlier
# run on this machine to take them from)
if [ -n "${CLASS_SOLO:-}" ] && [ -f "$CLASS_SOLO/solo.jsonl" ]; then
    cp "$CLASS_SOLO"/solo.* "$out/"
else
    session solo 0 "$NACC"
fi

ncu_pid=
if [ "$NCU_MODE" = 1 ]; then
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    mkdir -p "$tmp/otherlock"
    # --clock-control none: ncu must not change the GPU's clocks
    BANKLAB_NO_COUNTERS=1 BANKLAB_LOCK_DIR="$tmp/otherlock" timeout 120 "$NCU" --clock-control none \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum -c 400 \
        "$B" bench --quick > "$out/ncu.log" 2>&1 &
    ncu_pid=$!
    sleep 3                         # ncu is profiling before the class starts
fi

t0=$(ms_now)
i=0
pids=
while [ $i -lt "$N" ]; do
    session "l$i" "$i" "$STEPS" &
    pids="$pids $!"
    i=$((i + 1))
done
for p in $pids; do
    wait "$p"
done
wall=$(( $(ms_now) - t0 ))
if [ -n "$ncu_pid" ]; then
    kill "$ncu_pid" 2>/dev/null
    wait "$ncu_pid" 2>/dev/null
    grep -c "^==PROF== Profiling" "$out/ncu.log" | sed 's/^/ncu: kernels profiled meanwhile: /'
fi
cp "$tmp/accesses" "$out/accesses"

python3 - "$out" "$out" "$N" "$STEPS" "$NCU_MODE" "$wall" <<'PY'
import json, sys, os
tmp, out, n, steps, ncu, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1", int(sys.argv[6])
acc = open(os.path.join(tmp, "accesses")).read().splitlines()

def load(name):
    """One session's rows: a row a step of its script, measured or not."""
    script = open(os.path.join(tmp, name + ".script")).read().splitlines()
    rc, ms = open(os.path.join(tmp, name + ".proc")).read().split()[1:3]
    err = open(os.path.join(tmp, name + ".err")).read().strip()
    got = {}
    for line in open(os.path.join(tmp, name + ".jsonl")):
        try:
            j = json.loads(line)
            got[j["line"] - 1] = j
        except Exception:
            pass
    rows = []
    for step, text in enumerate(script):
        r = {"who": name, "step": step, "k": acc.index(text), "rc": int(rc), "cmd_ms": int(ms)}
        j = got.get(step)
        if j is None:
            r["bad"] = "no result (session exit %s): %s" % (rc, err.splitlines()[-1][:200] if err else "-")
            rows.append(r)
            continue
        m = j["measured"]
        r.update(model_wf=j["wavefronts"], model_cf=j["conflicts"], status=m["status"],
                 wf=m["wavefronts"], cf=m["conflicts"], clk=m["clk_per_access"], req_ms=m.get("request_ms", 0),
                 wait_ms=m.get("wait_ms", 0), busy=m["counters_busy"], note=m["error"], error=m["error"],
                 device=m["source"].replace("measured now on ", ""), lock=m.get("lock", "?"))
        rows.append(r)
    return rows

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(-(-p * len(xs) // 100)) - 1))] if xs else float("nan")

def med(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2 if xs else float("nan")

solo = load("solo")
cls = [r for i in range(n) for r in load("l%d" % i)]
dev = next((r["device"] for r in solo + cls if r.get("device")), "?")
lock = next((r["lock"] for r in solo + cls if r.get("lock")), "?")
has = lambda r: r.get("status") == "ok" and r.get("wf") is not None
differ = [r for r in cls if has(r) and (abs(r["wf"] - r["model_wf"]) > 0.005 or abs(r["cf"] - r["model_cf"]) > 0.005)]
nocount = [r for r in cls if not has(r)]
busy = [r for r in nocount if r.get("busy") or "busy" in (r.get("note") or "")]
learners_full = sum(1 for i in range(n) if all(has(r) for r in cls if r["who"] == "l%d" % i)
                    and sum(1 for r in cls if r["who"] == "l%d" % i) == steps)
req = [r["req_ms"] for r in cls if "req_ms" in r]
waits = [r["wait_ms"] for r in cls if "wait_ms" in r]
cmd = [int(open(os.path.join(tmp, "l%d.proc" % i)).read().split()[2]) for i in range(n)]
solo_clk = {r["k"]: r["clk"] for r in solo if r.get("clk")}
lines = []
worst = (0.0, None)
for k in range(len(acc)):
    c = [r["clk"] for r in cls if r["k"] == k and r.get("clk")]
    if not c or k not in solo_clk:
        lines.append("  %2d  %-52.52s  alone %8s  class %8s" % (k + 1, acc[k], "%.3f" % solo_clk[k] if k in solo_clk else "-", "-"))
        continue
    d = (med(c) / solo_clk[k] - 1) * 100
    if worst[1] is None or abs(d) > abs(worst[0]):
        worst = (d, k)
    lines.append("  %2d  %-52.52s  alone %8.3f  class %8.3f (min %.3f, max %.3f, %d)  %+6.2f %%" % (
        k + 1, acc[k], solo_clk[k], med(c), min(c), max(c), len(c), d))
bad = [r for r in cls if "bad" in r]
print("classroom: %d learner%s x %d measurements (banklab sim --gpu --json --script, one process a learner)%s, %.1f s in all"
      % (n, "s" if n > 1 else "", steps, "; ncu profiling another process meanwhile" if ncu else "", wall / 1e3))
print("device: %s; %s" % (dev, lock))
print("counters for every request: %d of %d learners (%d of %d requests had counters; %d without: "
      "%d said the counters were busy)" % (learners_full, n, len(cls) - len(nocount), len(cls), len(nocount), len(busy)))
print("model vs counters: %d differ (of %d compared)" % (len(differ), len(cls) - len(nocount)))
print("request to numbers (inside banklab, the wait for the GPU's turn included): p50 %.3f s, p95 %.3f s, max %.3f s"
      % (pct(req, 50) / 1e3, pct(req, 95) / 1e3, max(req) / 1e3 if req else float("nan")))
print("  of which waiting for the turn: p50 %.3f s, p95 %.3f s; a learner's whole session: p50 %.2f s, p95 %.2f s, max %.2f s"
      % (pct(waits, 50) / 1e3, pct(waits, 95) / 1e3, pct(cmd, 50) / 1e3, pct(cmd, 95) / 1e3, max(cmd) / 1e3))
print("alone (%d accesses, one process at a time): request to numbers p50 %.3f s" % (len(solo), pct([r["req_ms"] for r in solo if "req_ms" in r], 50) / 1e3))
print("clk/request, the median in the class against the access alone: worst %+.2f %% (access %s)"
      % (worst[0], worst[1] + 1 if worst[1] is not None else "-"))
print("\n".join(lines))
for r in (differ + [x for x in nocount if x not in busy] + bad)[:10]:
    print("  ! %s step %d access %d rc %d: %s" % (r["who"], r["step"], r["k"] + 1, r["rc"],
          r.get("bad") or r.get("error") or r.get("note") or "model %s/%s, counters %s/%s" % (r.get("model_wf"), r.get("model_cf"), r.get("wf"), r.get("cf"))))
with open(os.path.join(out, "requests.tsv"), "w") as f:
    f.write("who\tstep\taccess\trc\tsession_ms\trequest_ms\twait_ms\tstatus\tmodel_wf\twf\tmodel_cf\tcf\tclk\tcounters_busy\tnote\n")
    for r in solo + cls:
        f.write("\t".join(str(r.get(x, "")) for x in ("who", "step", "k", "rc", "cmd_ms", "req_ms", "wait_ms", "status",
                "model_wf", "wf", "model_cf", "cf", "clk", "busy", "note")) + "\n")
fails = []
if bad or any(r["rc"] not in (0, 4) for r in cls):
    fails.append("every request answered (exit 0 or 4)")
if differ:
    fails.append("0 differences between model and counters")
if ncu:
    if len(busy) != len(nocount):
        fails.append("every request without counters says they were busy")
else:
    if learners_full != n:
        fails.append("every learner has counters for every request")
    if not req or pct(req, 95) >= 2000:
        fails.append("p95 request to numbers < 2 s")
    if worst[1] is None or abs(worst[0]) > 3:
        fails.append("clk/request within 3 % of alone")
print("goals: " + ("all met" if not fails else "NOT MET: " + "; ".join(fails)))
sys.exit(1 if fails else 0)
PY
