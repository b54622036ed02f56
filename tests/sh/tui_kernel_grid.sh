#!/bin/sh
# tui_kernel_grid.sh: the kernel view's warp grid without a GPU (CUDA_VISIBLE_DEVICES= hides
# any). Executed: assets/kernels/transpose_seed.cu runs on the CPU; Enter on its 32-way line
# shows the worst warp in the bank grid, labelled "executed on the CPU, warp W of block B",
# with why naming the colliding lanes; ] and [ step to the distinct pattern and back ("32768
# of 32768 warps"), Enter opens the line's access in the playground, Esc goes back to the
# line. Measured: tests/gpu/programs/vectors.cu with
# --measured tests/data/sanitize/vectors.run.json (the H100's recorded warps) shows "measured
# addresses" for its 16-way line, and its STS.128 line (nvcc's 16-byte store) in four passes.
# A measured cp.async.cg line's why is .cg's rule's (tests/data/cg/h100-cg-stride2.run.json).
# A recording without warps keeps today's Enter (the playground); a recording of another file
# is refused before the screen starts. Golden screens at 80x24 and 120x40 in English and
# Chinese: tests/golden/kgrid_*.txt (UPDATE=1 regenerates them). A GPU=none build: SKIP.
. tests/sh/tui_fixtures/lib.sh
set -f

if "$BANKLAB" kernel assets/kernels/strided.cu 2>&1 | grep -q "GPU=none"; then
    echo "SKIP: this banklab is built without CUDA (the executor needs nvcc's PTX)"
    exit 77
fi
mkdir -p "$TMP/run" "$TMP/cache" && chmod 700 "$TMP/run"
KENV="CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR=$TMP/run XDG_CACHE_HOME=$TMP/cache BANKLAB_KERNEL_SERVER=0"
GOLD=tests/golden
REC=tests/data/sanitize/vectors.run.json
cp assets/kernels/transpose_seed.cu "$TMP/t.cu"
failed=0

# golden NAME: the screen now against tests/golden/kgrid_NAME.txt
golden() {
    sleep 0.2
    screen >"$TMP/$1.txt"
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$TMP/$1.txt" "$GOLD/kgrid_$1.txt"
        echo "updated $GOLD/kgrid_$1.txt"
    elif ! diff -u "$GOLD/kgrid_$1.txt" "$TMP/$1.txt"; then
        echo "FAIL: screen $1 differs from $GOLD/kgrid_$1.txt (UPDATE=1 regenerates)"
        failed=1
    fi
}
# enter_grid: Enter until the grid shows (the execution may still be running: Enter says so)
enter_grid() {
    n=0
    while [ $n -lt 60 ]; do
        keys Enter
        wait_for "^line [0-9]+: its warps|^第 [0-9]+ 行：它的 warp" 1 && return 0
        n=$((n + 1))
    done
    fail "Enter never showed the warps"
}
bar_ok() { screen | tail -n 1 | grep -q "\[/\] $1" || fail "the key bar lost [/]"; }

# ---- executed, English, 80x24 ----
start 80 24 $KENV -- "$TMP/t.cu" --lang en --reset
expect "^ model only" 60
expect "^>  17 ████"
enter_grid
expect "^line 17: its warps"
expect "^ executed on the CPU, warp [0-9]+ of block \\(0,0,0\\)"
expect "^ 1 of 2: the worst warp of ld 4 B \\(32768 warps\\): 32 wavefronts"
expect "^ why: pass 1 of 1: bank [0-9]+ serves 32 different words \\([0-9]+, "
expect "^ lanes 0-31: 32-way"
bar_ok "warp pattern"
golden 80x24_executed
keys ]
expect "^ 2 of 2: ld 4 B, 32768 of 32768 warps with this pattern: 32 wavefronts each"
golden 80x24_executed_next
keys ]
expect "^ 1 of 2: the worst warp"
keys [
expect "^ 2 of 2: "
# Enter: the line's access in the playground, as the model reads it; Esc: the grid again
keys Enter
expect "^ banklab: playground"
expect "tile\\[threadIdx\\.x\\]\\[threadIdx\\.y\\]"
keys Escape
expect "^ 2 of 2: "
keys Escape
expect "^>  17 ████"
expect "Enter grid"
# a line without shared memory: Enter keeps the playground's word
keys Up Up
expect "^>  15 "
keys q; expect "EXITED rc=0"

# ---- executed, Chinese, 120x40 ----
start 120 40 $KENV -- "$TMP/t.cu" --lang zh --reset
expect "^ 仅模型" 60
expect "^>  17 ████"
enter_grid
expect "^第 17 行：它的 warp"
expect "^ 在 CPU 上执行，warp [0-9]+（block \\(0,0,0\\)）"
expect "^ 第 1 个（共 2 个）：ld 4 B 最差的 warp（共 32768 个 warp）：32 个 wavefront"
expect "^ 原因：第 1 批（共 1 批）：bank [0-9]+ 送 32 个不同的字"
expect "32▲"
bar_ok "warp 模式"
golden 120x40_executed_zh
keys ]
expect "^ 第 2 个（共 2 个）：ld 4 B，32768 个 warp 是这个模式（共 32768 个）"
keys q; expect "EXITED rc=0"

# ---- measured (a recording of banklab run --json), English, 80x24 and 120x40 ----
start 80 24 $KENV -- tests/gpu/programs/vectors.cu --measured "$REC" --lang en --reset
expect "NVIDIA H100"
expect "^>  19 ██ "
keys Enter
expect "^line 19: its warps"
expect "^ measured addresses, warp 0 of block \\(3,0,0\\)"
expect "^ 1 of 2: the worst warp of LDS \\(16 warps\\): 16 wavefronts"
expect "^ why: pass 1 of 1: bank 1 serves 16 different words \\(1281, 1313, 1345, …, 1761\\)"
expect "^ to lanes 0-31: 16-way"
golden 80x24_measured
keys ]
expect "^ 2 of 2: LDS, 16 of 16 warps with this pattern: 16 wavefronts each"
keys Escape
expect "^>  19 "
keys Up Up Up Up Up Up
expect "^>  13 "
keys Enter
expect "^ 1 of 2: the worst warp of STS.128 \\(16 warps\\): 4 wavefronts"
expect "^ no bank conflict: in each of its 4 passes every bank serves one word"
expect "^     p4 "
keys q; expect "EXITED rc=0"
start 120 40 $KENV -- tests/gpu/programs/vectors.cu --measured "$REC" --lang zh --reset
expect "^>  19 ██ "
keys Enter
expect "^ 实测地址，warp 0（block \\(3,0,0\\)）"
expect "^ 原因：第 1 批（共 1 批）：bank 1 送 16 个不同的字"
golden 120x40_measured_zh
keys q; expect "EXITED rc=0"

# ---- a measured cp.async.cg line (call 24's H100 recording of tests/gpu/cg_rules.cu's
# stride-2 pattern; its sources rebuilt from the program's pattern list, docs/kernel.md): the
# why is .cg's rule's, not the passes' drawn below, in English and Chinese at 80x24 ----
CG=tests/data/cg/h100-cg-stride2.run.json
start 80 24 $KENV -- tests/gpu/cg_rules.cu --measured "$CG" --lang en --reset
expect "^>  24 ████ +28 +8.00"
keys Enter
expect "^ 1 of 2: the worst warp of LDGSTS.BYPASS.128 \\(1 warps\\): 32 wavefronts"
expect "^ why: cp.async.cg, 32 wavefronts: 32 groups of its 32 chunks \\(by shared row,"
expect "grid: where its writes land \\(.ca's passes\\)"
keys q; expect "EXITED rc=0"
start 80 24 $KENV -- tests/gpu/cg_rules.cu --measured "$CG" --lang zh --reset
expect "^>  24 ████ +28 +8.00"
keys Enter
expect "^ 原因：cp.async.cg，32 个 wavefront：32 组，来自它的 32 个块"
keys q; expect "EXITED rc=0"

# ---- a recording without warps (before they were kept): Enter opens the playground ----
jq 'del(.launches[].warps, .launches[].lines[].warps)' "$REC" >"$TMP/old.json"
start 80 24 $KENV -- tests/gpu/programs/vectors.cu --measured "$TMP/old.json" --lang en --reset
expect "^>  19 ██ "
keys Enter
expect "^ banklab: playground"
expect "v2\\[\\(t \\* 16\\) & 255\\]"
keys Escape
expect "^>  19 "
keys q; expect "EXITED rc=0"

# ---- a recording of another file is refused before the screen ----
out=$("$BANKLAB" tests/gpu/programs/transpose.cu --measured "$REC" 2>&1) && fail "accepted"
echo "$out" | grep -q "no measured launch of transpose.cu in it" || fail "said: $out"
out=$("$BANKLAB" --measured "$REC" 2>&1) && fail "--measured without a file accepted"
echo "$out" | grep -q "goes with a kernel file" || fail "said: $out"

[ "$failed" = 0 ] || exit 1
echo "tui_kernel_grid: pass"
