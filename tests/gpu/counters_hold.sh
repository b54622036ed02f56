#!/bin/sh
# counters_hold.sh [REQUESTS]: one long-lived process measures counters again and again while
# giving the counter hardware back in between (the measuring server's way, docs/gpu.md). One
# `banklab sim --gpu --json --script` process measures REQUESTS (300) accesses of the class's
# kinds with BANKLAB_COUNTERS_LINGER_MS=0 (the range profiler given back, and the profiler
# deinitialised, after every measurement: every request sets it up again), then with the
# default linger (kept while requests keep coming); then two processes at once (the second
# finds the counters held by the first: busy, answered at once). Prints per run: exit status,
# requests with counters, busy, model vs counter differences, request p50/p95.
# Needs a GPU (SKIP, exit 77) and python3. Env: BANKLAB, HOLD_OUT (keep the logs there).
set -u
N=${1:-300}
B=${BANKLAB:-build/banklab}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: counters_hold.sh needs python3"; exit 77; }
"$B" sim '__shared__ float s[64]; s[lane]' --gpu --json > /dev/null 2>&1
rc=$?
[ $rc = 3 ] || [ $rc = 2 ] && { echo "SKIP: no GPU"; exit 77; }
out=${HOLD_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/banklab-hold.XXXXXX")}
mkdir -p "$out"
python3 - "$N" > "$out/script" <<'PY'
import sys
acc = ["__shared__ float s[1024]; s[lane * %d]" % k for k in (1, 2, 3, 4, 8, 16, 32)] + [
    "__shared__ float2 v[128]; v[lane * 2]", "__shared__ float4 v[64]; v[lane]",
    "__shared__ float s[1024]; s[lane * 32] = 1.0f", "__shared__ double d[512]; d[lane]",
    "__shared__ float t[32][33]; t[lane][0]"]
n = int(sys.argv[1])
print("\n".join(acc[i % len(acc)] for i in range(n)))
PY
summary() { # NAME: one line from NAME.jsonl
    python3 - "$out/$1.jsonl" "$1" "$(cat "$out/$1.rc")" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    try:
        rows.append(json.loads(line))
    except Exception:
        pass
ok = [r for r in rows if r.get("measured", {}).get("status") == "ok" and r["measured"].get("wavefronts") is not None]
diff = [r for r in ok if abs(r["measured"]["wavefronts"] - r["wavefronts"]) > 0.005 or abs(r["measured"]["conflicts"] - r["conflicts"]) > 0.005]
busy = [r for r in rows if r.get("measured", {}).get("counters_busy")]
req = sorted(r["measured"].get("request_ms", 0) for r in rows if "measured" in r)
p = lambda q: req[min(len(req) - 1, int(len(req) * q))] if req else float("nan")
notes = sorted(set((r.get("measured", {}).get("error") or "")[:90] for r in rows if r not in ok))
print("%-22s exit %-3s results %4d  with counters %4d  busy %4d  differ %d  request p50 %.0f ms p95 %.0f ms %s"
      % (sys.argv[2], sys.argv[3], len(rows), len(ok), len(busy), len(diff), p(0.5), p(0.95),
         ("notes: " + " | ".join(notes[:3])) if notes else ""))
PY
}
for mode in 0 default; do
    if [ $mode = default ]; then unset BANKLAB_COUNTERS_LINGER_MS; else export BANKLAB_COUNTERS_LINGER_MS=$mode; fi
    timeout 240 "$B" sim --gpu --json --script "$out/script" > "$out/linger-$mode.jsonl" 2> "$out/linger-$mode.err"
    echo $? > "$out/linger-$mode.rc"
    summary "linger-$mode"
    tail -n 2 "$out/linger-$mode.err" | sed 's/^/    stderr: /'
done
unset BANKLAB_COUNTERS_LINGER_MS
for k in a b; do
    ( timeout 240 "$B" sim --gpu --json --script "$out/script" > "$out/pair-$k.jsonl" 2> "$out/pair-$k.err"
      echo $? > "$out/pair-$k.rc" ) &
done
wait
summary pair-a
summary pair-b
