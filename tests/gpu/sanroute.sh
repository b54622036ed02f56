#!/bin/sh
# sanroute.sh OUT: the sanitizer route of `banklab run` on a GPU machine. Builds the route
# there (libbanklab_sanitize.so and banklab_patch.fatbin need the toolkit's
# compute-sanitizer/include, which the development machines lack), then for each program of
# tests/gpu/programs (eight.cu: ten kernels; many.cu; the others): the plain run, banklab run
# through the sanitizer route and through CUPTI's, ncu --section SourceCounters; compares per
# instruction with CUPTI and per line with ncu (sanitize_compare.py); times the programs (median
# of 3: plain, sanitizer route, ncu) and keeps the patterns the route saw. OUT/sanitize.txt.
# Env: BUILD (a device bundle), NCU, SAN_PROGS, SAN_SPEED, SAN_KERNEL_FILES, SAN_KERNEL_EXTRA, SAN_COST and SAN_PY
# (empty: that part not run). Without a GPU: SKIP.
set -u
out=${1:?usage: sanroute.sh OUT}
mkdir -p "$out/bin"
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
B=$BUILD/banklab
here=$(cd "$(dirname "$0")" && pwd)
log=$out/sanitize.txt
: > "$log"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi -L >/dev/null 2>&1 || { say "SKIP: no GPU"; exit 77; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo $CUDA_HOME/bin/ncu)}
say "sanitize: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
make --no-print-directory BUILD="$BUILD" GPU=cuda NVCC_ARCH='-gencode arch=compute_90,code=sm_90' \
    "$BUILD/libbanklab_sanitize.so" "$BUILD/banklab_patch.fatbin" > "$out/build.txt" 2>&1 ||
    { say "FAIL: the route does not build: $(tail -n 5 "$out/build.txt")"; exit 1; }
ms() { date +%s%N | cut -c1-13; }
median3() { sort -n | sed -n 2p; }
fail=0
progs=${SAN_PROGS:-eight many strided transpose vectors stores carve ldmatrix}
for p in $progs; do
    src=tests/gpu/programs/$p.cu; [ -f "$src" ] || src=tests/gpu/route/$p.cu; [ -f "$src" ] || src=tests/gpu/devprogs/$p.cu
    [ -f "$src" ] || src=tests/gpu/$p.cu
    [ -f "$src" ] || continue
    $CUDA_HOME/bin/nvcc -O3 -lineinfo -arch=sm_90 -o "$out/bin/$p" "$src" > "$out/nvcc_$p.txt" 2>&1 ||
        { say "FAIL: nvcc $p"; fail=$((fail + 1)); continue; }
    BANKLAB_SANITIZE_PATTERNS="$out/patterns_$p.txt" BANKLAB_RUN_DEBUG="$out/san_$p.debug" timeout 300 "$B" run --route sanitizer --json -- \
        "$out/bin/$p" > "$out/san_$p.json" 2> "$out/san_$p.err"
    say "banklab run --route sanitizer -- $p: exit $? $(grep -v '^\(eight\|many\)' "$out/san_$p.err" | head -n 3 | tr '\n' ' ')"
    timeout 300 "$B" run --route cupti --json -- "$out/bin/$p" > "$out/cupti_$p.json" 2> "$out/cupti_$p.err"
    say "banklab run --route cupti -- $p: exit $?"
    if [ -x "$NCU" ] && [ "$p" = eight -o "$p" = many ]; then
        timeout 400 "$NCU" --section SourceCounters -f -o "$out/ncu_$p" "$out/bin/$p" > "$out/ncu_$p.log" 2>&1
        n=$(python3 -c "import json;print(len(json.load(open('$out/san_$p.json'))['launches']))" 2>/dev/null || echo 0)
        i=0
        while [ "$i" -lt "$n" ]; do
            timeout 120 "$NCU" -i "$out/ncu_$p.ncu-rep" --page source --csv --print-source cuda,sass \
                --launch-skip $i --launch-count 1 > "$out/ncu_${p}_$i.csv" 2>/dev/null
            i=$((i + 1))
        done
    fi
    python3 "$here/sanitize_compare.py" "$out" "$p" >> "$log" 2>&1 || fail=$((fail + 1))
done
# speed: median of 3, end to end, on the ten-kernel program
for p in ${SAN_SPEED:-eight many}; do
    [ -x "$out/bin/$p" ] || continue
    for k in 1 2 3; do t0=$(ms); "$out/bin/$p" >/dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_plain"
    for k in 1 2 3; do t0=$(ms); "$B" run --route sanitizer -- "$out/bin/$p" >/dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_san"
    for k in 1 2 3; do t0=$(ms); "$B" run --route cupti -- "$out/bin/$p" >/dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_cupti"
    if [ -x "$NCU" ]; then
        for k in 1 2 3; do t0=$(ms); "$NCU" --section SourceCounters "$out/bin/$p" >/dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_ncu"
    else echo 0 > "$out/t_ncu"; fi
    say "speed $p (median of 3, ms): plain $(cat "$out/t_plain"), sanitizer route $(cat "$out/t_san"), CUPTI route $(cat "$out/t_cupti"), ncu --section SourceCounters $(cat "$out/t_ncu")"
done
# banklab kernel F.cu with no options on every program: the program as it is, every kernel
# measured in one run, every shared access on a line of the learner's own file
for src in ${SAN_KERNEL_FILES-tests/gpu/programs/*.cu tests/gpu/route/*.cu} ${SAN_KERNEL_EXTRA:-}; do
    name=$(basename "$src" .cu)
    t0=$(ms)
    timeout 300 "$B" kernel "$src" --json > "$out/kernel_$name.json" 2> "$out/kernel_$name.err"
    rc=$?
    res=$(python3 - "$out/kernel_$name.json" "$src" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read()
kernels = len(re.findall(r"__global__", src))
ls = d["launches"]
ok = [l for l in ls if l["status"] == "ok"]
hdr = [(l["kernel"], x["file"], x["line"]) for l in ls for x in l["lines"]
       if not x["file"].endswith(".cu") and x["wavefronts"]]
print("%d launches, %d measured, %d __global__ in the file, %d lines, %d charged to a header%s"
      % (len(ls), len(ok), kernels, sum(len(l["lines"]) for l in ls), len(hdr),
         (": " + str(hdr[:3])) if hdr else ""))
PY
)
    say "banklab kernel $name.cu: exit $rc, $(( $(ms) - t0 )) ms: $res"
done
# the cost: per measured launch (1000 one-block launches) and per patched warp instruction
# (one launch of a million warps), plain and under the route, median of 3
$CUDA_HOME/bin/nvcc -O3 -lineinfo -arch=sm_90 -o "$out/bin/cost" tests/gpu/route/cost.cu > "$out/nvcc_cost.txt" 2>&1
for what in ${SAN_COST-launches warps}; do
    for k in 1 2 3; do t0=$(ms); "$out/bin/cost" $what >/dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_plain"
    for k in 1 2 3; do t0=$(ms); "$B" run --route sanitizer --launch-count 1000 -- "$out/bin/cost" $what > "$out/cost_$what.txt" 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_san"
    for k in 1 2 3; do t0=$(ms); "$B" run --route sanitizer --launch-count 0 -- "$out/bin/cost" $what > /dev/null 2>&1; echo $(( $(ms) - t0 )); done | median3 > "$out/t_none"
    say "cost $what (median of 3, ms): plain $(cat "$out/t_plain"), every launch measured $(cat "$out/t_san"), patched but none measured $(cat "$out/t_none"); $(grep -c '^== ' "$out/cost_$what.txt") launches shown"
done
# Python programs: PyTorch and CuPy (or its ctypes stand-in), every launch measured, timed
for py in ${SAN_PY-tests/gpu/route/torch_ops.py tests/gpu/route/cupy_ops.py tests/gpu/programs/conflict_script.py}; do
    name=$(basename "$py" .py)
    t0=$(ms); timeout 120 python3 "$py" > "$out/plain_$name.txt" 2>&1; rc=$?; tp=$(( $(ms) - t0 ))
    t0=$(ms)
    BANKLAB_SANITIZE_PATTERNS="$out/patterns_$name.txt" timeout 300 "$B" run --route sanitizer --json -- python3 "$py" \
        > "$out/san_$name.json" 2> "$out/san_$name.err"
    rs=$?; ts=$(( $(ms) - t0 ))
    n=$(python3 -c "import json;d=json.load(open('$out/san_$name.json'));print(len(d['launches']), sum(1 for l in d['launches'] if l['status']=='ok'))" 2>/dev/null)
    say "python3 $name: plain exit $rc $tp ms; banklab run --route sanitizer exit $rs $ts ms; launches measured, ok: $n; $(grep -c . "$out/san_$name.err") lines on stderr"
done
say "sanitize: $fail failed"
[ $fail = 0 ]
