#!/bin/sh
# tui_kernel_guard.sh: the kernel view (banklab FILE.cu) compiles for the model's prediction
# under the compiler guard (src/compile/spawn.c): on a file that includes /dev/zero and on
# one that expands a macro 2^40 times, `q` 2 s after the start leaves, 3 s later, no process of
# banklab's (banklab, its measuring process, the guard, nvcc, cicc, gcc, cc1plus: found by a
# variable only their environment holds) and nothing in TMPDIR. The compilers' address space
# stays under the limit (VmPeak sampled every 0.1 s while the view runs). Before the guard,
# cc1plus was at 8.1 GB 20 s after `q` on /dev/zero. Needs nvcc; a GPU=none build: SKIP.
. tests/sh/tui_fixtures/lib.sh

if "$BANKLAB" kernel assets/kernels/strided.cu 2>&1 | grep -q "GPU=none"; then
    echo "SKIP: this banklab is built without CUDA"
    exit 77
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "SKIP: no nvcc (the guard runs nvcc)"; exit 77; }
mkdir -p "$TMP/run" "$TMP/cache" "$TMP/t" && chmod 700 "$TMP/run"
TAG="BL_GUARD_TAG=tui-guard-$$"
# no warm measuring server: one that outlives its request waits for the next by design (60 s
# idle); here every process must be gone (compile_guard.sh kills one mid-request)
KENV="CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR=$TMP/run XDG_CACHE_HOME=$TMP/cache TMPDIR=$TMP/t $TAG BANKLAB_KERNEL_SERVER=0"
LIMIT_KB=$((2048 * 1024))

. tests/sh/tui_fixtures/guard.sh
names() { for p in "$@"; do cat "/proc/$p/comm" 2>/dev/null; done | tr '\n' ' '; }

hostile_sources "$TMP"

for f in zero macro; do
    start 100 30 $KENV -- "$TMP/$f.cu" --lang en
    expect "banklab: kernel $f\\.cu"
    # 2 s, sampling the compilers' address space
    top=0 seen=""
    for i in $(seq 1 20); do
        v=$(peak)
        [ "$v" -gt "$top" ] && top=$v
        [ -z "$seen" ] && [ -n "$(tagged)" ] && seen=1
        sleep 0.1
    done
    [ -n "$seen" ] || fail "$f.cu: no compiler ran (nothing to test)"
    keys q
    expect "EXITED rc=" 3
    sleep 3
    pids=$(tagged)
    if [ -n "$pids" ]; then
        left=$(names $pids)
        for p in $pids; do kill -9 "$p" 2>/dev/null; done
        fail "$f.cu: 3 s after q, still running: $left"
    fi
    [ -z "$(ls -A "$TMP/t")" ] || fail "$f.cu: 3 s after q, left in TMPDIR: $(ls -A "$TMP/t" | tr '\n' ' ')"
    [ "$top" -le "$LIMIT_KB" ] || fail "$f.cu: a compiler reached VmPeak $top kB (limit $LIMIT_KB kB)"
    echo "ok   $f.cu: q after 2 s; 3 s later no process and no temporary file (compiler VmPeak $((top / 1024)) MiB)"
done
echo "tui_kernel_guard: ok"
