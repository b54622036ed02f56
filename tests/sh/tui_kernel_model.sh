#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_kernel_model.sh: the kernel view without a GPU (CUDA_VISIBLE_DEVICES= hides any) shows
# the bank model's prediction: the figure columns and the totals from the model, labelled
# "model only"; under the table, for the cursor's line, the model's figures, why it conflicts
# (the worst pass, the bank, the lanes and words) and the fix checked with the model, at 80x24
# in English and in Chinese; a line the model cannot express says why; f writes the fixed copy
# FILE.fixed.cu next to the file and opens it on the same line, now conflict free, and never
# writes over an existing copy. A GPU=none build cannot compile the file: SKIP.
. tests/sh/tui_fixtures/lib.sh

if "$BANKLAB" kernel assets/kernels/strided.cu 2>&1 | grep -q "GPU=none"; then
    echo "SKIP: this banklab is built without CUDA"
    exit 77
fi
mkdir -p "$TMP/run" "$TMP/cache" && chmod 700 "$TMP/run"
KENV="CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR=$TMP/run XDG_CACHE_HOME=$TMP/cache BANKLAB_KERNEL_SERVER=0"
cp assets/kernels/transpose_seed.cu "$TMP/t.cu"
down() { n=$1; while [ "$n" -gt 0 ]; do keys Down; n=$((n - 1)); done; }
bar_ok() { screen | tail -n 1 | grep -q "q quit\|q 退出" || fail "the key bar lost quit"; }

# ---- English, 80x24: the model's columns, totals, and the cursor's line explained ----
start 80 24 $KENV -- "$TMP/t.cu" --lang en --reset
expect "measuring it needs a"
expect "^ model only: inst 65.5k · wavefronts 1.08M · ideal 65.5k · excess 1.02M"
expect "^   14  ✓ +0  1\\.00 │     tile\\[threadIdx\\.y\\]\\[threadIdx\\.x\\] = in"
# no GPU: the cursor opens on the line with the most predicted excess
expect "^>  17 ████  1015808 32\\.00 │     out\\[x \\* n \\+ y\\] = tile"
expect "^ model line 17: inst 32768 · wavefronts 1048576 · ideal 32768 · excess 1015808"
# (no line starts with the ellipsis, a closing mark: the break goes one word back)
expect "^ why: warp 0, tile, pass 1 of 1: bank 0 serves 32 different words \\(0, 32,"
expect "^ 64, …, 992\\) to lanes 0-31: 32-way"
expect "^ note: declare tile\\[32\\]\\[33\\]: line 17 becomes 1-way, line 14 stays 1-way"
bar_ok
# a line without shared memory says nothing of the model
keys Up Up
expect "^>  15 "
screen | grep -q "^ model line" && fail "line 15 shows a model line"
# n / N move between the lines with predicted figures
keys N
expect "^>  14  ✓"
keys n
expect "^>  17 ████"
keys n
expect "no other line"
expect "^>  17 ████"
# f: the fixed copy, opened on line 17, conflict free
keys f
expect "banklab: kernel t\\.fixed\\.cu"
expect "^>  17  ✓ +0  1\\.00 │     out\\[x \\* n \\+ y\\]"
expect "^    9 +│     __shared__ float tile\\[32\\]\\[33\\];" 
expect "wrote .*t\\.fixed\\.cu: note: declare tile\\[32\\]\\[33\\]"
[ -f "$TMP/t.fixed.cu" ] || fail "f wrote no t.fixed.cu"
grep -q "tile\\[32\\]\\[33\\]" "$TMP/t.fixed.cu" || fail "t.fixed.cu is not padded"
expect "^ model line 17: inst 32768 · wavefronts 32768 · ideal 32768 · excess 0 · 1-way"
keys f
expect "the model has no fix for this line"
keys q; expect "EXITED rc=0"

# ---- Chinese, 80x24: the same line, its why and fix; f does not write over the copy ----
start 80 24 $KENV -- "$TMP/t.cu" --lang zh --reset
expect "测量需要 GPU"
expect "^ 仅模型：指令 65.5k · wavefront 1\\.08M"
expect "^>  17 ████"
keys N
expect "^>  14  ✓"
keys n
expect "^>  17 ████"
expect "^ 模型，第 17 行：指令 32768 · wavefront 1048576 · 理想 32768 · 多余 1015808"
expect "^ 原因：warp 0，tile，第 1 批（共 1 批）：bank 0 要给 lane 0-31 送 32 个不同的字"
expect "^ 提示：声明为 tile\\[32\\]\\[33\\]：第 17 行变为 1 路，第 14 行仍为 1 路"
bar_ok
cp "$TMP/t.fixed.cu" "$TMP/before"
keys f
expect "t\\.fixed\\.cu exists already: not overwritten"
cmp -s "$TMP/before" "$TMP/t.fixed.cu" || fail "f wrote over t.fixed.cu"
expect "banklab：内核 t\\.cu"
keys q; expect "EXITED rc=0"

# ---- a line the source reading cannot express, executed: atomicAdd is priced from the run ----
start 80 24 $KENV -- assets/kernels/atomics.cu --lang en --reset
expect "measuring it needs a"
expect "^ model only"
# the lines have figures once executed (the reading's are never shown): wait for them
expect "^   13  ✓ +0  1\\.00 │     atomicAdd"
keys Home
keys n
expect "^>  10 "
keys n
expect "^>  13 "
expect "model line 13: inst 32 . wavefronts 32 . ideal 32 . excess 0"
keys q; expect "EXITED rc=0"
start 80 24 $KENV -- assets/kernels/atomics.cu --lang zh --reset
expect "测量需要 GPU"
expect "^ 仅模型"
expect "^   13  ✓ +0  1\\.00 │     atomicAdd"
keys Home
keys n
keys n
expect "^>  13 "
expect "模型，第 13 行：指令 32 · wavefront 32"
keys q; expect "EXITED rc=0"
# ---- the prediction runs beside the view: keys are answered while a long kernel is predicted
# (BANKLAB_KP_FULL=1 makes the 2000 lines take seconds: the slow way, on purpose) ----
python3 - "$TMP/big.cu" <<'PY'
import sys
out = ['__global__ void big(float *out)', '{', '    __shared__ float s[32][32];', '    int t = threadIdx.x;']
for i in range(1995):
    out.append('    s[%d][t %% 32] = %d.0f;' % (i % 32, i) if i % 2 else '    __syncthreads();')
out += ['    out[t] = s[t / 32][t % 32];', '}']
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
start 80 24 $KENV BANKLAB_KP_FULL=1 -- "$TMP/big.cu" --lang en --block 32 --reset
expect "measuring it needs a"
t0=$(date +%s)
keys Down Down
expect "^>   3 "
t1=$(date +%s)
[ $((t1 - t0)) -le 3 ] || fail "Down took $((t1 - t0)) s while the model was predicting"
screen | grep -q "^ model only" && echo "tui_kernel_model: (the prediction was already there)"
expect "^ model only" 90
keys q; expect "EXITED rc=0"
echo "tui_kernel_model: pass"
