#!/bin/sh
# kernel.sh (make test-gpu): `banklab kernel` on the GPU. For every case of kernel_cases.txt
# (the project's case kernels and the examples): per-line shared wavefronts equal Nsight
# Compute's per-line figures for the same kernel and launch, and the whole-kernel sum equals
# the range profiler's (kernel_compare.py). A fault, a hang (time limit) and too much shared
# memory are reported in one line and the next run still works; the kernel's printf reaches
# stderr. The speed: a warm run (measuring server) against ncu on the same kernel, both here.
# Without a GPU: SKIP (77); without ncu the comparison with it is skipped. Env: BANKLAB,
# KERNEL_OUT (a directory to keep the files in; default a temporary one).
set -u
B=${BANKLAB:-build/banklab}
here=$(dirname "$0")
if [ -n "${KERNEL_OUT:-}" ]; then out=$KERNEL_OUT; mkdir -p "$out"; else
    out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
: "${BANKLAB_KERNEL_SERVER:=30}"
export XDG_CACHE_HOME="$out/cache" BANKLAB_KERNEL_SERVER
"$B" kernel assets/kernels/strided.cu --json > "$out/probe.json" 2> "$out/probe.err"
if [ $? = 3 ]; then
    echo "SKIP: $(cat "$out/probe.err")"
    exit 77
fi
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ---- every case: banklab (with the range profiler), and the same launch for ncu ----
grep -v '^#' "$here/kernel_cases.txt" | grep . > "$out/cases"
: > "$out/launch_all.sh"
while IFS='|' read -r label file opts; do
    # shellcheck disable=SC2086
    "$B" kernel "$file" $opts --json --counters > "$out/$label.json" 2> "$out/$label.err"
    rc=$?
    [ $rc = 0 ] || bad "$label: banklab kernel exit $rc: $(head -n 3 "$out/$label.err")"
    { printf "'%s' kernel '%s'" "$B" "$file"; for w in $opts; do printf " '%s'" "$w"; done
      echo " --launch-only"; } >> "$out/launch_all.sh"
done < "$out/cases"
if command -v ncu > /dev/null 2>&1; then
    t0=$(ms)
    ncu --target-processes all --section SourceCounters -f -o "$out/all" sh "$out/launch_all.sh" \
        > "$out/ncu.log" 2>&1 || bad "ncu failed: $(tail -n 3 "$out/ncu.log")"
    echo "ncu profiled $(grep -c . "$out/cases") launches in $(( $(ms) - t0 )) ms"
    # each case's launch in the report by its kernel's symbol (banklab's --json) and its place
    # among the cases of that symbol, not by its index among all launches: a banklab process
    # may launch more than its case (seen on the H200 after nvcc became the default compiler:
    # every case was compared with another case's launch)
    : > "$out/seen_symbols"
    while IFS='|' read -r label file opts; do
        sym=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("symbol") or "")' \
              "$out/$label.json" 2>/dev/null)
        if [ -z "$sym" ]; then
            bad "$label: no kernel symbol in banklab's --json: not compared with ncu"
            : > "$out/$label.ncu.csv"
            continue
        fi
        k=$(grep -cx -- "$sym" "$out/seen_symbols")
        echo "$sym" >> "$out/seen_symbols"
        ncu -i "$out/all.ncu-rep" --page source --csv --print-source cuda,sass \
            --kernel-name-base mangled --kernel-name "$sym" \
            --launch-skip "$k" --launch-count 1 > "$out/$label.ncu.csv" 2> "$out/$label.ncu.err" &
    done < "$out/cases"
    wait
    python3 "$here/kernel_compare.py" "$out" "$out/cases" || fail=1
else
    echo "SKIP comparison with Nsight Compute: ncu not found"
fi

# ---- what must not take anything down ----
run() { # NAME WANT_RC PATTERN ARGS...: exit status, one line on stderr matching PATTERN
    name=$1 want=$2 pat=$3
    shift 3
    t0=$(ms)
    "$B" kernel "$@" > "$out/run.out" 2> "$out/run.err"
    rc=$? t=$(( $(ms) - t0 ))
    if [ $rc = "$want" ] && grep -q -E "$pat" "$out/run.err" && [ "$(wc -l < "$out/run.err")" = 1 ]; then
        ok "$name: exit $rc in $t ms: $(cat "$out/run.err")"
    else
        bad "$name: exit $rc (want $want) in $t ms:"; sed 's/^/    /' "$out/run.err" | head -5
    fi
}
run "a fault (an address out of bounds)" 1 "fault faulted: CUDA_ERROR_[A-Z_]+" tests/gpu/kernels/fault.cu
"$B" kernel assets/kernels/strided.cu > /dev/null 2>&1 && ok "the next run after a fault works" ||
    bad "the run after a fault failed"
run "a hang stopped at --time-limit 2" 1 "did not finish within 2 s" tests/gpu/kernels/hang.cu --time-limit 2
"$B" kernel assets/kernels/strided.cu > /dev/null 2>&1 && ok "the next run after a hang works" ||
    bad "the run after a hang failed"
run "too much shared memory" 1 "asks for 311424 bytes of shared memory per block" \
    assets/kernels/strided.cu --smem 300K
"$B" kernel tests/gpu/kernels/printf.cu > "$out/printf.out" 2> "$out/printf.err"
rc=$?
if [ $rc = 0 ] && grep -q "hello from the kernel" "$out/printf.err" && grep -q "^ *total" "$out/printf.out"; then
    ok "the kernel's printf reaches stderr, the table stdout"
else
    bad "printf: exit $rc"; sed 's/^/    /' "$out/printf.err" | head -5
fi

# ---- speed: the same kernel, warm banklab against ncu ----
# Warm: the compiled kernel is in the cache and a measuring process is waiting (each run
# leaves a successor that opens the device and CUPTI; it is ready a moment later, so the
# runs are a second apart, as re-runs after an edit are).
k=assets/kernels/transpose_seed.cu
"$B" kernel $k > /dev/null 2>&1
for i in 1 2 3 4 5; do
    sleep 1; t0=$(ms); "$B" kernel $k > /dev/null 2>&1; echo $(( $(ms) - t0 ))
done | median > "$out/warm"
for i in 1 2 3; do "$B" kernel $k --no-server --timings | tail -n 1; done > "$out/cold-timings"
for i in 1 2 3; do t0=$(ms); "$B" kernel $k --no-server > /dev/null 2>&1; echo $(( $(ms) - t0 )); done | median > "$out/cold"
sleep 1
"$B" kernel $k --timings | tail -n 1 > "$out/warm-timings"
warm=$(cat "$out/warm") cold=$(cat "$out/cold")
echo "banklab kernel $k: warm (server) median $warm ms, new process median $cold ms"
sed 's/^/    /' "$out/warm-timings" "$out/cold-timings"
if command -v ncu > /dev/null 2>&1; then
    for i in 1 2; do
        t0=$(ms)
        ncu --section SourceCounters --page source --print-source cuda --csv "$B" kernel $k --launch-only \
            > "$out/ncu-speed.csv" 2>&1
        echo $(( $(ms) - t0 ))
    done | median > "$out/ncu"
    n=$(cat "$out/ncu")
    ratio=$(awk -v n="$n" -v w="$warm" 'BEGIN { printf "%.1f", (w > 0 ? n / w : 0) }')
    echo "ncu --section SourceCounters (source page, CSV) on the same launch: median $n ms"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }' && ok "warm banklab kernel is ${ratio}x faster than ncu" ||
        bad "warm banklab kernel is only ${ratio}x faster than ncu (want 10x)"
fi
exit $fail
