#!/bin/sh
# run.sh: alone
# kernel_attack.sh: `banklab kernel` against hostile files, without a GPU.
# Terminal escapes in the launch comment, on the command line, in compile errors, NVRTC's
# own text (#error) and file names come out escaped (\xNN, never a raw ESC, BEL or C1);
# --arg n=1 --arg n=2 is refused; a kernel with 4096 pointer parameters says why it fails;
# the cache key's include scan is linear: a header that includes itself 10 or 1000 times
# (guarded) and a chain of 1000 guarded headers each compile in seconds where the old scan
# passed the 30 s limit. Under ASan+UBSan (make asan-kernel) every shipped kernel runs clean.
# A GPU=none build cannot compile: SKIP (77). Env: BANKLAB, BUILD, ASAN_KERNEL_BANKLAB.
set -u
. tests/sh/lib.sh kernel_attack.sh
B=$BANKLAB
export CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"
export BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"

"$B" kernel assets/kernels/strided.cu > "$tmp/out" 2> "$tmp/err"
if grep -q "GPU=none" "$tmp/err"; then
    echo "SKIP: this banklab is built without CUDA: $(cat "$tmp/err")"
    exit 77
fi
ESC=$(printf '\033') BEL=$(printf '\007') CSI=$(printf '\302\233') RLO=$(printf '\342\200\256')
clean() { # NAME FILE...: no ESC, BEL, C1 CSI or U+202E anywhere in the files
    name=$1
    shift
    if cat "$@" | grep -q "$ESC\|$BEL\|$CSI\|$RLO"; then
        fail "$name: raw control bytes: $(cat "$@" | od -c | head -3)"
    else ok "$name"; fi
}

# ---- escapes: the launch comment, the command line, compile errors, #error, file names ----
printf '// banklab: --arg \033]0;PWN\007=1\n__global__ void k(int n) { }\n' > "$tmp/a.cu"
"$B" kernel "$tmp/a.cu" > "$tmp/out" 2> "$tmp/err"
clean "comment --arg name escaped" "$tmp/out" "$tmp/err"
grep -q '\\x1b\]0;PWN\\x07' "$tmp/err" && ok "comment --arg shown as \\x1b" || fail "comment: $(cat "$tmp/err")"
printf '// banklab: --fill \033[2J --name \302\233k\n__global__ void k(int n) { }\n' > "$tmp/b.cu"
"$B" kernel "$tmp/b.cu" > "$tmp/out" 2> "$tmp/err"
clean "comment --fill and --name escaped" "$tmp/out" "$tmp/err"
printf '// banklab: --\033[5mbogus 1\n__global__ void k(int n) { }\n' > "$tmp/c.cu"
"$B" kernel "$tmp/c.cu" > "$tmp/out" 2> "$tmp/err"
clean "unknown comment word escaped" "$tmp/out" "$tmp/err"
"$B" kernel assets/kernels/strided.cu --name "$(printf 'x\033]0;T\007')" --arg "$(printf '\342\200\256n=1')" > "$tmp/out" 2> "$tmp/err"
clean "--name and --arg on the command line escaped" "$tmp/out" "$tmp/err"
printf '__global__ void k(int n)\n{\n  \033[2J int x = ;\n#error \033]0;PWN\007 \302\233\n}\n' > "$tmp/d.cu"
"$B" kernel "$tmp/d.cu" > "$tmp/out" 2> "$tmp/err"
clean "compile errors, the source line and #error escaped" "$tmp/out" "$tmp/err"
grep -q "error" "$tmp/err" && ok "compile errors still shown" || fail "no compile error shown: $(cat "$tmp/err")"
printf '#include "\033[31mnothere.h"\n__global__ void k(int n) { }\n' > "$tmp/e.cu"
"$B" kernel "$tmp/e.cu" > "$tmp/out" 2> "$tmp/err"
clean "NVRTC's include name escaped" "$tmp/out" "$tmp/err"
nl=$(printf 'x\ny')
cp "$tmp/d.cu" "$tmp/$nl.cu"
"$B" kernel "$tmp/$nl.cu" > "$tmp/out" 2> "$tmp/err"
if grep -q '^y\.cu' "$tmp/err"; then fail "a newline in the file name splits the line"; else ok "a newline in the file name is escaped"; fi

# ---- a name given twice ----
"$B" kernel assets/kernels/strided.cu --arg stride=1 --arg stride=2 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "given twice" "$tmp/err" && ok "--arg given twice refused (exit 2)" ||
    fail "--arg twice: exit $rc: $(head -n 2 "$tmp/err")"

# ---- 4096 pointer parameters ----
params() { # N: a kernel with N float* parameters
    i=1
    printf '__global__ void k('
    while [ $i -le "$1" ]; do
        [ $i -gt 1 ] && printf ', '
        printf 'float *p%d' $i
        i=$((i+1))
    done
    printf ') { }\n'
}
params 4096 > "$tmp/p.cu"
# NVRTC takes the file (nvcc refuses it first: its parameter space is 32764 bytes)
"$B" kernel "$tmp/p.cu" --compiler nvrtc > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "4096 parameters" "$tmp/err" && ok "4096 pointer parameters: the reason (exit 2)" ||
    fail "4096 parameters: exit $rc, stderr: $(head -c 300 "$tmp/err")"

# ---- the include scan: linear in the distinct headers ----
# timed NAME FILE: `banklab kernel FILE` (process start, NVRTC, the cache) in under 5 s, where
# the old scan read a self-including header 10^6 times and passed 30 s (the scan alone, under
# a second for N = 10 and 1000: tests/unit/test_kcache.c)
timed() {
    s=$(date +%s%N)
    # NVRTC: nvcc's preprocessor stops a chain 200 includes deep, NVRTC's does not
    "$B" kernel "$2" --compiler nvrtc --time-limit 30 > "$tmp/out" 2> "$tmp/err"
    ms=$((($(date +%s%N) - s) / 1000000))
    if [ $ms -lt 5000 ] && grep -q "compiles\|GPU" "$tmp/err"; then ok "$1 ($ms ms)"; else
        fail "$1: $ms ms: $(head -c 300 "$tmp/err")"; fi
}
for n in 10 1000; do
    mkdir -p "$tmp/inc$n"
    { echo '#pragma once'; i=0; while [ $i -lt $n ]; do echo '#include "self.cuh"'; i=$((i+1)); done
      echo '__device__ int f(int x) { return x + 1; }'; } > "$tmp/inc$n/self.cuh"
    { echo '#include "self.cuh"'; echo '#include "self.cuh"'
      echo '__global__ void k(int *out) { out[threadIdx.x] = f(threadIdx.x); }'; } > "$tmp/inc$n/k.cu"
    timed "a header including itself $n times" "$tmp/inc$n/k.cu"
done
mkdir -p "$tmp/chain"
i=0
while [ $i -lt 1000 ]; do
    { echo "#ifndef H$i"; echo "#define H$i"; echo "#include \"h$i.cuh\""; echo "#include \"h$((i+1)).cuh\""
      echo '#include "h0.cuh"'; echo "#endif"; } > "$tmp/chain/h$i.cuh"
    i=$((i+1))
done
: > "$tmp/chain/h1000.cuh"
{ echo '#include "h0.cuh"'; echo '__global__ void k(int *out) { out[threadIdx.x] = 1; }'; } > "$tmp/chain/k.cu"
timed "a chain of 1000 guarded headers, each including itself and the first" "$tmp/chain/k.cu"
# the last header of the chain is part of the key: editing it compiles again (no stale cubin)
"$B" kernel "$tmp/chain/k.cu" --compiler nvrtc > "$tmp/out" 2> "$tmp/err"
echo '__device__ int g1000;' > "$tmp/chain/h1000.cuh"
"$B" kernel "$tmp/chain/k.cu" --compiler nvrtc --json > "$tmp/out" 2> "$tmp/err"
n=$(ls "$tmp/cache/banklab/kernels" | grep -c 'cubin$')
[ "$n" -ge 3 ] && ok "editing the 1000th header makes a new cache entry ($n entries)" ||
    fail "editing the 1000th header: $n cache entries"

# ---- ASan+UBSan: every shipped kernel (make asan-kernel: the kernel path needs GPU=cuda) ----
AK=${ASAN_KERNEL_BANKLAB:-${BUILD:-build}/asan-kernel/banklab}
if [ -x "$AK" ]; then
    for f in assets/kernels/*.cu; do
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            "$AK" kernel "$f" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$tmp/err" || [ $rc -gt 4 ]; then
            fail "asan: kernel $f: exit $rc: $(grep -m 3 "error\|Sanitizer" "$tmp/err")"
        else ok "asan: kernel $f runs clean (exit $rc)"; fi
    done
else
    echo "(no $AK: make asan-kernel; the sanitizer part is not run)"
fi

finish
