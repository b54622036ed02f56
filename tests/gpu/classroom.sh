#!/bin/sh
# classroom.sh N: a class on one GPU server. N learners at once, each a process running a
# scripted session of CLASS_STEPS (20) measurements through `banklab sim PATTERN --gpu --json`
# (the request the tutorial sends: timing on all SMs, counters on one warp), after the same
# accesses measured alone. Reports how many learners got counters for every request, model vs
# counter differences, p50/p95/max time from request to numbers (inside banklab, waiting for
# the GPU's turn included; the whole command's time too) and each access's clk/request (the
# time of one warp access, clk_per_access) in the class against the same access alone. Goals
# (issue 12): every learner has counters for every request, 0 differences, p95 < 2 s,
# clk/request within 3 % of alone.
# CLASS_NCU=1: meanwhile Nsight Compute profiles another process (`banklab bench --quick` with
# its own lock directory, so it does not take turns: a profiler banklab does not know about).
# Then the goals are: no differences, every request answered, and each one without counters
# says the counters were busy.
# Needs a GPU (SKIP, exit 77, without) and python3. Env: BANKLAB, CLASS_STEPS, CLASS_OUT (a
# directory to keep the logs and the per-request table in), CLASS_SOLO (an earlier CLASS_OUT
# whose measurements alone to reuse), CLASS_MAX_S (learners start no new measurement after
# this many seconds; those cut short count as missing counters).
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

# one measurement: NAME STEP ACCESS -> NAME.STEP.json, and a line "name step access rc ms"
measure() {
    pat=$(sed -n "$(( $3 + 1 ))p" "$tmp/accesses")
    t0=$(ms_now)
    "$B" sim "$pat" --gpu --json > "$tmp/$1.$2.json" 2> "$tmp/$1.$2.err"
    rc=$?
    echo "$1 $2 $3 $rc $(( $(ms_now) - t0 ))" >> "$tmp/$1.runs"
}

learner() { # ID
    i=0
    while [ $i -lt "$STEPS" ]; do
        [ -n "$deadline" ] && [ "$(date +%s)" -ge "$deadline" ] && break
        measure "l$1" $i $(( (i + $1) % NACC ))
        i=$((i + 1))
    done
}

"$B" sim '__shared__ float s[64]; s[lane]' --gpu --json > "$tmp/probe.json" 2> "$tmp/probe.err"
rc=$?
if [ $rc = 3 ] || [ $rc = 2 ]; then
    echo "SKIP: no GPU: $(cat "$tmp/probe.err")"
    exit 77
fi

# alone: every access once, one process at a time (CLASS_SOLO: the out directory of an earlier
# run on this machine to take them from)
if [ -n "${CLASS_SOLO:-}" ] && [ -f "$CLASS_SOLO/solo.runs" ]; then
    cp "$CLASS_SOLO"/solo.* "$tmp/"
else
    k=0
    while [ $k -lt "$NACC" ]; do
        measure solo $k $k
        k=$((k + 1))
    done
    cp "$tmp/solo.runs" "$tmp"/solo.*.json "$out/"
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

# CLASS_MAX_S: learners start no new measurement after this many seconds (a bounded run)
deadline=
[ -n "${CLASS_MAX_S:-}" ] && deadline=$(( $(date +%s) + CLASS_MAX_S ))
t0=$(ms_now)
i=0
pids=
while [ $i -lt "$N" ]; do
    learner $i &
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
    grep -c "l1tex__data_bank_conflicts" "$out/ncu.log" | sed 's/^/ncu: kernels profiled meanwhile: /'
fi
cat "$tmp"/l*.runs > "$tmp/class.runs"
cp "$tmp/class.runs" "$out/"
cp "$tmp/accesses" "$out/accesses"

python3 - "$tmp" "$out" "$N" "$STEPS" "$NCU_MODE" "$wall" <<'PY'
import json, sys, os
tmp, out, n, steps, ncu, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1", int(sys.argv[6])
acc = open(os.path.join(tmp, "accesses")).read().splitlines()

def load(runs):
    rows = []
    for line in open(os.path.join(tmp, runs)):
        name, step, k, rc, cmd_ms = line.split()
        r = {"who": name, "step": int(step), "k": int(k), "rc": int(rc), "cmd_ms": int(cmd_ms)}
        try:
            j = json.load(open(os.path.join(tmp, "%s.%s.json" % (name, step))))
            m = j["measured"]
        except Exception as e:
            r["bad"] = "no JSON (%s): %s" % (e, open(os.path.join(tmp, "%s.%s.err" % (name, step))).read().strip()[:200])
            rows.append(r)
            continue
        r.update(model_wf=j["wavefronts"], model_cf=j["conflicts"], status=m["status"],
                 wf=m["wavefronts"], cf=m["conflicts"], clk=m["clk_per_access"], req_ms=m["request_ms"],
                 wait_ms=m["wait_ms"], busy=m["counters_busy"], note=m["error"], error=m["error"],
                 device=m["source"].replace("measured now on ", ""), lock=m["lock"])
        rows.append(r)
    return rows

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(-(-p * len(xs) // 100)) - 1))] if xs else float("nan")

def med(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2 if xs else float("nan")

solo = load("solo.runs")
cls = [r for r in load("class.runs")]
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
cmd = [r["cmd_ms"] for r in cls]
solo_clk = {r["k"]: r["clk"] for r in solo if r.get("clk")}
lines = []
worst = (0.0, None)
for k in range(len(acc)):
    c = [r["clk"] for r in cls if r["k"] == k and r.get("clk")]
    if not c or k not in solo_clk:
        lines.append("  %2d  %-52.52s  alone %8s  class %8s" % (k + 1, acc[k], "%.3f" % solo_clk[k] if k in solo_clk else "-", "-"))
        continue
    d = (med(c) / solo_clk[k] - 1) * 100
    if abs(d) > abs(worst[0]):
        worst = (d, k)
    lines.append("  %2d  %-52.52s  alone %8.3f  class %8.3f (min %.3f, max %.3f, %d)  %+6.2f %%" % (
        k + 1, acc[k], solo_clk[k], med(c), min(c), max(c), len(c), d))
bad = [r for r in cls if "bad" in r]
print("classroom: %d learner%s x %d measurements (banklab sim PATTERN --gpu --json)%s, %.1f s in all"
      % (n, "s" if n > 1 else "", steps, "; ncu profiling another process meanwhile" if ncu else "", wall / 1e3))
print("device: %s; %s" % (dev, lock))
print("counters for every request: %d of %d learners (%d of %d requests had counters; %d without: "
      "%d said the counters were busy)" % (learners_full, n, len(cls) - len(nocount), len(cls), len(nocount), len(busy)))
print("model vs counters: %d differ (of %d compared)" % (len(differ), len(cls) - len(nocount)))
print("request to numbers (inside banklab, the wait for the GPU's turn included): p50 %.3f s, p95 %.3f s, max %.3f s"
      % (pct(req, 50) / 1e3, pct(req, 95) / 1e3, max(req) / 1e3 if req else float("nan")))
print("  of which waiting for the turn: p50 %.3f s, p95 %.3f s; the whole command: p50 %.2f s, p95 %.2f s, max %.2f s"
      % (pct(waits, 50) / 1e3, pct(waits, 95) / 1e3, pct(cmd, 50) / 1e3, pct(cmd, 95) / 1e3, max(cmd) / 1e3))
print("alone (%d accesses, one process at a time): request to numbers p50 %.3f s" % (len(solo), pct([r["req_ms"] for r in solo if "req_ms" in r], 50) / 1e3))
print("clk/request, the median in the class against the access alone: worst %+.2f %% (access %s)"
      % (worst[0], worst[1] + 1 if worst[1] is not None else "-"))
print("\n".join(lines))
for r in (differ + [x for x in nocount if x not in busy] + bad)[:10]:
    print("  ! %s step %d access %d rc %d: %s" % (r["who"], r["step"], r["k"] + 1, r["rc"],
          r.get("bad") or r.get("error") or r.get("note") or "model %s/%s, counters %s/%s" % (r.get("model_wf"), r.get("model_cf"), r.get("wf"), r.get("cf"))))
with open(os.path.join(out, "requests.tsv"), "w") as f:
    f.write("who\tstep\taccess\trc\tcmd_ms\trequest_ms\twait_ms\tstatus\tmodel_wf\twf\tmodel_cf\tcf\tclk\tcounters_busy\tnote\n")
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
