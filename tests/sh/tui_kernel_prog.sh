#!/bin/sh
# tui_kernel_prog.sh: the kernel view on a file with main() without a GPU
# (CUDA_VISIBLE_DEVICES= hides any): the program is run on banklab's CUDA runtime
# (predict/program.c) in the prediction thread, and main's launch of the kernel shown gives the
# figures and the Enter grid. tests/gpu/programs/transpose.cu --name transpose at 80x24 in
# English and Chinese: line 21 shows its 32-way figures, the line under the table says which
# launch of main ran, and Enter shows its warps "executed on the CPU, main's launch 1". A
# program that exits 1 before its launch says so on the message line and shows no figures
# (Enter opens the playground). A GPU=none build, or one without the runtime: SKIP.
. tests/sh/tui_fixtures/lib.sh
set -f

if "$BANKLAB" kernel assets/kernels/strided.cu 2>&1 | grep -q "GPU=none"; then
    echo "SKIP: this banklab is built without CUDA (the program needs nvcc)"
    exit 77
fi
[ -e "$(dirname "$BANKLAB")/xrt/libcudart.so.13" ] || [ -n "${BANKLAB_XRT_DIR:-}" ] || {
    echo "SKIP: this build has no banklab CUDA runtime (build/xrt/libcudart.so.13)"
    exit 77
}
mkdir -p "$TMP/run" "$TMP/cache" && chmod 700 "$TMP/run"
KENV="CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR=$TMP/run XDG_CACHE_HOME=$TMP/cache BANKLAB_KERNEL_SERVER=0"
PROG=tests/gpu/programs/transpose.cu

# enter_grid RE: Enter until the grid's title RE shows (the program may still be running)
enter_grid() {
    n=0
    while [ $n -lt 90 ]; do
        keys Enter
        wait_for "$1" 1 && return 0
        keys Escape
        n=$((n + 1))
    done
    fail "Enter never showed the executed warps"
}

# ---- English, 80x24 ----
start 80 24 $KENV -- "$PROG" --name transpose --lang en --reset
expect "^ model only" 60
expect "^>  21 ████  1015808 32.00"
expect "executed: main's launch 1 of this kernel \\(of 1\\)" 120
enter_grid "^line 21: its warps"
expect "^ executed on the CPU, main's launch 1, warp [0-9]+ of block \\(0,0,0\\)"
expect "^ 1 of 2: the worst warp of ld 4 B \\(32768 warps\\): 32 wavefronts"
keys Escape
expect "^>  21 "
keys q; expect "EXITED rc=0"

# ---- Chinese, 80x24 ----
start 80 24 $KENV -- "$PROG" --name transpose --lang zh --reset
expect "^ 仅模型" 60
expect "^>  21 ████  1015808 32.00"
expect "已执行：main 对这个 kernel 的第 1 次启动（共 1 次）" 120
enter_grid "^第 21 行：它的 warp"
expect "^ 在 CPU 上执行，main 的第 1 次启动，warp [0-9]+（block \\(0,0,0\\)）"
keys q; expect "EXITED rc=0"

# ---- a program that exits 1 before its launch: why, and no figures ----
cat >"$TMP/quits.cu" <<'CU'
// banklab: --grid 1 --block 32
#include <cstdio>
__global__ void k(float *a)
{
    __shared__ float s[32][32];
    s[threadIdx.x][0] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[0][threadIdx.x];
}
int main()
{
    fprintf(stderr, "no input\n");
    return 1;
    k<<<1, 32>>>(0);
}
CU
start 80 24 $KENV -- "$TMP/quits.cu" --lang en --reset
expect "^ model only" 60
expect "quits.cu: the program exited with status 1" 120
# no figures without an execution: line 6's heat, excess and ways stay empty (the reading's
# 32-way is never shown in their place)
screen | grep -Eq "^.   6 +[^ │]" && fail "line 6 has figures the program never ran: $(screen | grep -E '^.   6 ')"
keys Home Down Down Down Down Down
expect "^>   6 "
keys Enter
expect "^ banklab: playground"
keys q
start 80 24 $KENV -- "$TMP/quits.cu" --lang zh --reset
expect "^ 仅模型" 60
expect "quits.cu：程序以状态 1 退出" 120
keys q
exit 0
