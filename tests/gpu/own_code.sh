#!/bin/sh
# own_code.sh: your own code as you wrote it, on the GPU. Builds the ordinary CUDA programs
# of tests/gpu/programs (each with a main that makes its launches) with nvcc -lineinfo for
# sm_90, then for every kernel compares per source line the shared-memory instructions,
# wavefronts, ideal and excess of `banklab kernel FILE.cu` and of `banklab run -- ./program`
# with Nsight Compute's source page (ncu --section SourceCounters) of the same launch
# (own_code.py). Also: a program built without -lineinfo (per-instruction figures and the
# hint), `banklab run -- python3 conflict_script.py` (a kernel compiled at run time with a
# conflict: its lines and figures), banklab run under ncu (one line, no crash), and the
# speed of `banklab run` against `ncu --section SourceCounters` on a program of six kernels,
# end to end (for docs/benchmarks.md). Every step has a time limit. Logs and files go to
# ${OUT:-/tmp}/own_code; a summary table ends the output.
# Run from the repository's root after `make device-bundle` (or make):
#   sh tests/gpu/own_code.sh            (BUILD=build: build/banklab, build/libbanklab_inject.so)
# Without a GPU: SKIP (exit 77). Env: BUILD, BANKLAB, OUT, NVCC, NCU, OWN_CODE_KEEP.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
B=${BANKLAB:-$BUILD/banklab}
export LD_LIBRARY_PATH="$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BANKLAB_KERNEL_SERVER=0 # no measuring process stays behind
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp}/own_code
rm -rf "$out" && mkdir -p "$out/bin" || exit 1
export XDG_CACHE_HOME="$out/cache"
exec 3>&1
log() { echo "$*" | tee -a "$out/log.txt" >&3; }
fail=0 passes=0
ok() { passes=$((passes + 1)); log "ok   $1"; }
bad() { fail=$((fail + 1)); log "FAIL $1"; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

[ -x "$B" ] || { echo "own_code.sh: no banklab at $B (make device-bundle first)"; exit 1; }
timeout 60 "$B" run -- true > "$out/probe.out" 2> "$out/probe.err"
if [ $? = 3 ]; then
    echo "SKIP: $(cat "$out/probe.err")"
    exit 77
fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc to build the programs (set NVCC)"; exit 77; }
NCU=${NCU:-$(command -v ncu || { test -x /usr/local/cuda/bin/ncu && echo /usr/local/cuda/bin/ncu; })}
log "own_code: $(timeout 30 "$NVCC" --version | tail -n 1); ncu: ${NCU:-none}; $(timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"

# ---- build: every program with line info, strided also without ----
P=tests/gpu/programs
for f in "$P"/*.cu; do
    p=$(basename "$f" .cu)
    timeout 180 "$NVCC" -lineinfo -arch=sm_90 -o "$out/bin/$p" "$f" > "$out/build_$p.txt" 2>&1 ||
        bad "$p: nvcc failed: $(head -n 3 "$out/build_$p.txt")"
done
timeout 180 "$NVCC" -arch=sm_90 -o "$out/bin/strided_noline" "$P/strided.cu" > "$out/build_noline.txt" 2>&1 ||
    bad "strided without -lineinfo: nvcc failed"

# the kernels of each program (banklab kernel --name), in the order main launches them
cat > "$out/manifest.txt" <<'EOF'
strided|strided
vectors|vectors
stores|stores
carve|carve
ldmatrix|ldm<0>
ldmatrix|ldm<1>
transpose|transpose
transpose|transpose_padded
many|row
many|column
many|column_padded
many|pairs
many|quads
many|histogram
EOF
progs=$(cut -d'|' -f1 "$out/manifest.txt" | uniq)

# ---- banklab run, banklab kernel, ncu ----
for p in $progs; do
    t0=$(ms)
    BANKLAB_RUN_DEBUG="$out/inject_$p.log" \
        timeout 180 "$B" run --json -- "$out/bin/$p" > "$out/run_$p.json" 2> "$out/run_$p.err"
    rc=$?
    log "banklab run --json -- $p: exit $rc, $(( $(ms) - t0 )) ms"
    [ $rc = 0 ] || bad "banklab run -- $p: exit $rc: $(head -n 3 "$out/run_$p.err")"
    timeout 180 "$B" run -- "$out/bin/$p" > "$out/run_$p.txt" 2>&1 || bad "banklab run -- $p (text): exit $?"
done
while IFS='|' read -r p k; do
    n=$(echo "$k" | sed 's/[^A-Za-z0-9_]/_/g')
    timeout 120 "$B" kernel "$P/$p.cu" --name "$k" --json > "$out/kernel_${p}_$n.json" 2> "$out/kernel_${p}_$n.err"
    rc=$?
    [ $rc = 0 ] || bad "banklab kernel $p.cu --name $k: exit $rc: $(head -n 3 "$out/kernel_${p}_$n.err")"
    timeout 120 "$B" kernel "$P/$p.cu" --name "$k" --sort excess > "$out/kernel_${p}_$n.txt" 2>&1
done < "$out/manifest.txt"
if [ -n "$NCU" ]; then
    for p in $progs; do
        t0=$(ms)
        timeout 400 "$NCU" --section SourceCounters -f -o "$out/ncu_$p" "$out/bin/$p" > "$out/ncu_$p.log" 2>&1 ||
            bad "ncu on $p failed: $(tail -n 3 "$out/ncu_$p.log")"
        log "ncu --section SourceCounters $p: $(( $(ms) - t0 )) ms"
        nl=$(grep -c "^$p|" "$out/manifest.txt")
        i=0
        while [ $i -lt "$nl" ]; do
            timeout 120 "$NCU" -i "$out/ncu_$p.ncu-rep" --page source --csv --print-source cuda,sass \
                --launch-skip $i --launch-count 1 > "$out/ncu_${p}_$i.csv" 2> "$out/ncu_${p}_$i.err"
            i=$((i + 1))
        done
    done
    timeout 120 python3 "$here/own_code.py" "$out" > "$out/compare_out.txt" 2>&1
    rc=$?
    cat "$out/compare_out.txt" >> "$out/log.txt"
    grep -c "^ok" "$out/compare_out.txt" | { read -r n; log "per-line comparisons with ncu: $n ok"; }
    grep "^FAIL" "$out/compare_out.txt" | head -20 >&3
    passes=$((passes + $(grep -c "^ok" "$out/compare_out.txt")))
    fail=$((fail + $(grep -c "^FAIL" "$out/compare_out.txt")))
    [ $rc -le 1 ] || bad "own_code.py crashed (exit $rc): $(tail -n 3 "$out/compare_out.txt")"
else
    log "SKIP comparison with Nsight Compute: no ncu"
fi

# ---- without -lineinfo: per instruction, and the hint ----
timeout 120 "$B" run -- "$out/bin/strided_noline" > "$out/noline.txt" 2>&1
if grep -q "hint: no line info" "$out/noline.txt" && grep -q "pc 0x" "$out/noline.txt"; then
    ok "a program built without -lineinfo: per-instruction figures and the one-line hint"
else bad "without -lineinfo: no per-instruction rows or no hint"; fi

# ---- a Python program with a kernel compiled at run time (CuPy RawKernel, or ctypes) ----
BANKLAB_RUN_DEBUG="$out/inject_python.log" \
    timeout 180 "$B" run --json -- python3 "$P/conflict_script.py" > "$out/python.json" 2> "$out/python.err"
rc=$?
timeout 180 "$B" run -- python3 "$P/conflict_script.py" > "$out/python.txt" 2>&1
if python3 - "$out/python.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
l = [x for x in r["launches"] if x["kernel"] == "py_column" and x["status"] == "ok"]
sys.exit(0 if l and any(ln["line"] > 0 and ln["excess"] > 0 for ln in l[0]["lines"]) else 1)
EOF
then ok "banklab run -- python3 conflict_script.py: py_column's lines with the conflict's excess (exit $rc)"
else bad "banklab run -- python3 conflict_script.py: exit $rc, no conflicting line: $(head -n 3 "$out/python.err")"; fi
sed -n '/== py_column/,/total/p' "$out/python.txt" | head -20 >&3

# ---- under another profiler: one line, no crash ----
if [ -n "$NCU" ]; then
    timeout 300 "$NCU" --section SourceCounters "$B" run -- "$out/bin/strided" > "$out/under_ncu.txt" 2>&1
    rc=$?
    if grep -q "banklab run: another profiler is injected already" "$out/under_ncu.txt" && [ $rc -lt 128 ]; then
        ok "banklab run under ncu: one clear line (exit $rc)"
    elif [ $rc -lt 128 ] && [ "$(grep -c '^banklab run:' "$out/under_ncu.txt")" -le 2 ]; then
        ok "banklab run under ncu: no crash (exit $rc): $(grep '^banklab run:' "$out/under_ncu.txt" | head -n 1) (ncu does not inject through CUDA_INJECTION64_PATH here)"
    else bad "banklab run under ncu: exit $rc: $(grep banklab "$out/under_ncu.txt" | head -n 2)"; fi
fi
# a program that measures with CUPTI itself (banklab kernel's measuring process): no crash
timeout 120 "$B" run -- "$B" kernel "$P/strided.cu" --no-server > "$out/cupti_itself.txt" 2>&1
rc=$?
[ $rc -lt 128 ] && ok "a program using CUPTI itself under banklab run: no crash (exit $rc; $(grep -c 'banklab run:' "$out/cupti_itself.txt") banklab run line(s))" ||
    bad "a program using CUPTI itself: exit $rc"

# ---- speed: banklab run against ncu --section SourceCounters, end to end ----
for i in 1 2 3; do
    t0=$(ms); timeout 120 "$B" run -- "$out/bin/many" > /dev/null 2>&1; echo $(( $(ms) - t0 ))
done | median > "$out/speed_banklab"
if [ -n "$NCU" ]; then
    for i in 1 2 3; do
        t0=$(ms); timeout 400 "$NCU" --section SourceCounters "$out/bin/many" > /dev/null 2>&1; echo $(( $(ms) - t0 ))
    done | median > "$out/speed_ncu"
    b=$(cat "$out/speed_banklab") n=$(cat "$out/speed_ncu")
    ratio=$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%.1f", n / (b > 0 ? b : 1) }')
    { echo "speed (six kernels, each launched once, median of 3, end to end including process start):"
      echo "  banklab run -- ./many                     $b ms"
      echo "  ncu --section SourceCounters ./many       $n ms"
      echo "  ratio                                     ${ratio}x"; } | tee "$out/bench.txt" >&3
    awk -v r="$ratio" 'BEGIN { exit !(r >= 5) }' && ok "banklab run is ${ratio}x faster than ncu (want 5x)" ||
        bad "banklab run is only ${ratio}x faster than ncu (want 5x)"
else
    log "banklab run -- ./many: median $(cat "$out/speed_banklab") ms (no ncu to compare)"
fi

# ---- summary ----
log ""
log "summary (per kernel: lines compared with ncu for banklab kernel and banklab run):"
[ -f "$out/summary.txt" ] && cat "$out/summary.txt" | tee -a "$out/log.txt" >&3
# the binaries, the compile cache and ncu's reports are large and rebuilt in a minute: the
# CSV pages, JSON results and logs stay (OWN_CODE_KEEP=1 keeps everything)
[ -n "${OWN_CODE_KEEP:-}" ] || rm -rf "$out/bin" "$out/cache" "$out"/*.ncu-rep
log "own_code: $passes ok, $fail FAIL; files in $out"
[ "$fail" = 0 ]
