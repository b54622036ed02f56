#!/bin/sh
# matrix.sh (make test-gpu): ldmatrix, stmatrix and cp.async on the GPU.
# 1. `banklab verify --both` on chapter 11 and the table tests/data/h200-matrix.json (installed
#    as assets/h200-matrix.json, read by verify with h200-wavefronts.json): every access of the
#    chapter's scenes and every case of the tables must agree with the model (exit 0), through
#    a GPU server as learners measure (one of this test's own) and in this process alike.
# 2. The model's prediction for the ldmatrix line of assets/kernels/ldmatrix.cu (banklab sim
#    on the same access, written in the pattern language) equals what `banklab kernel`
#    measures on that line, per warp instruction, with --arg swizzle=0 and 1.
# Without a GPU: SKIP (77). Env: BANKLAB (the binary), MATRIX_OUT (keep the files there).
set -u
B=${BANKLAB:-build/banklab}
. "$(dirname "$0")/lib.sh"
if [ -n "${MATRIX_OUT:-}" ]; then out=$MATRIX_OUT; mkdir -p "$out"; trap 'serve_stop "$out"' EXIT
else out=$(mktemp -d); trap 'serve_stop "$out"; rm -rf "$out"' EXIT; fi
command -v python3 > /dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

"$B" sim '__shared__ float s[64]; s[lane]' --gpu --no-server > "$out/probe.txt" 2>&1
if [ $? = 3 ]; then
    echo "SKIP: $(tail -n 1 "$out/probe.txt")"
    exit 77
fi
mkdir -p "$out/lessons"
cp lessons/11-tensor-cores.json "$out/lessons/"
serve_start "$out" || bad "a GPU server of this test listens: $(tail -n 3 "$out/serve.log")"
"$B" verify --both --server "$out/gpu.sock" --lessons "$out/lessons" > "$out/verify.txt" 2> "$out/verify.err"
rc=$?
serve_stop "$out"
grep -E "DIFFERS|DIFFER:|NOT MEASURED" "$out/verify.txt" | head -20
tail -n 5 "$out/verify.txt"
if [ $rc = 0 ]; then ok "verify --both: chapter 11 and the tables agree with the model, through the server and in this process"
else bad "verify --both exit $rc (1: model and counters, or the two paths, differ; 4: not all measured)"; fi
both_agree "$out/verify.txt" && ok "the server and this process measured chapter 11 alike" ||
    bad "the server and this process: $(grep '^through the server vs' "$out/verify.txt")"
# the matrix table's cases were among those checked
n=$(grep -c 'h200/\(ldsm\|stsm\|cpa\)_' "$out/verify.txt")
[ "$n" -ge 100 ] && ok "verify checked $n ldmatrix/stmatrix/cp.async cases of the table" ||
    bad "verify checked only $n ldmatrix/stmatrix/cp.async cases of the table"

# ---- the ldmatrix line of ldmatrix.cu: the model against banklab kernel ----
pat='__shared__ unsigned short tile[32 * 64]; ldmatrix.x4(tile[lane * 64 + (SWZ ? (lane & 7) : 0) * 8])'
for swz in 0 1; do
    "$B" sim --json --param SWZ=$swz "$pat" > "$out/sim$swz.json" 2> "$out/sim$swz.err" ||
        { bad "sim SWZ=$swz: $(head -n 2 "$out/sim$swz.err")"; continue; }
    "$B" kernel assets/kernels/ldmatrix.cu --arg swizzle=$swz --json > "$out/k$swz.json" 2> "$out/k$swz.err" ||
        { bad "kernel swizzle=$swz: $(head -n 3 "$out/k$swz.err")"; continue; }
    python3 - "$out/sim$swz.json" "$out/k$swz.json" "$swz" <<'PY' || fail=1
import json, sys
sim = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))
model = sim["wavefronts"]
# the line whose SASS is the LDSM (the asm statement spans two source lines)
lines = [l for l in k["lines"] if any(i.get("op") == "ldsm" for i in l.get("instructions", []))]
if len(lines) != 1:
    print("FAIL swizzle=%s: %d candidate ldmatrix lines in banklab kernel's output" % (sys.argv[3], len(lines)))
    sys.exit(1)
l = lines[0]
per = l["wavefronts"] / l["inst"] if l["inst"] else -1
if abs(per - model) > 1e-9:
    print("FAIL swizzle=%s: line %d measured %g wavefronts per instruction (%g over %g), the model says %d"
          % (sys.argv[3], l["line"], per, l["wavefronts"], l["inst"], model))
    sys.exit(1)
print("ok   swizzle=%s: line %d of ldmatrix.cu: %g wavefronts per warp instruction, measured = model"
      % (sys.argv[3], l["line"], per))
PY
done
exit $fail
