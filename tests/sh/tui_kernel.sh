#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_kernel.sh: the kernel view (banklab FILE.cu, z in the tutorial) without a GPU
# (CUDA_VISIBLE_DEVICES= hides any): an example opens with its source and the one line that
# measuring needs a GPU; a line's access opens in the playground with its grid (the model's
# numbers, as banklab sim gives them), a line the pattern language cannot express says why;
# watch mode runs again when the file is saved: a compile error appears as FILE:LINE:COL with
# the cursor on its line, and goes when it is fixed; the progress shows and keys work while a
# slow file compiles; the file prompt (o, z) completes and refuses a missing file; z comes back
# to the file left with Esc; 80x24 in English and Chinese keep help and quit on the key bar.
# A GPU=none build cannot compile: SKIP.
. tests/sh/tui_fixtures/lib.sh

if "$BANKLAB" kernel assets/kernels/strided.cu 2>&1 | grep -q "GPU=none"; then
    echo "SKIP: this banklab is built without CUDA (compile errors need NVRTC)"
    exit 77
fi
mkdir -p "$TMP/run" "$TMP/cache" && chmod 700 "$TMP/run"
KENV="CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR=$TMP/run XDG_CACHE_HOME=$TMP/cache BANKLAB_KERNEL_SERVER=0"

sim_line() { # PATTERN [sim args]: the model line the playground should show
    "$BANKLAB" sim "$@" --json >"$TMP/sim.json" || fail "sim failed: $*"
    jq -r '"\(.wavefronts) wavefronts? · \(.conflicts) conflicts? · \(.ways)-way"' "$TMP/sim.json"
}
bar_ok() { # the key bar (last line) keeps help and quit
    screen | tail -n 1 >"$TMP/bar.txt"
    grep -q "$1" "$TMP/bar.txt" && grep -q "$2" "$TMP/bar.txt" || fail "key bar without $1 and $2"
}
play() { # Enter on the cursor's line: its warps in the grid once the CPU has executed the
    # kernel (Enter says it is running until then), then Enter there: the playground
    n=0
    while [ $n -lt 60 ]; do
        keys Enter
        if wait_for "^line [0-9]+: its warps" 1; then keys Enter; return 0; fi
        n=$((n + 1))
    done
    fail "Enter never showed the line's warps"
}
down() { # N: the cursor N lines down
    n=$1
    while [ "$n" -gt 0 ]; do keys Down; n=$((n - 1)); done
}

# ---- the command line refuses what it cannot open, before taking the terminal ----
"$BANKLAB" "$TMP/nosuch.cu" >"$TMP/out" 2>&1 && fail "a missing file started the tutorial"
grep -q "nosuch.cu: cannot open" "$TMP/out" || fail "no reason for a missing file: $(cat "$TMP/out")"
"$BANKLAB" --arg n=1 >"$TMP/out" 2>&1 && fail "--arg without a file was taken"
grep -q "launch option of a kernel file" "$TMP/out" || fail "no reason for --arg alone"
"$BANKLAB" assets/kernels/strided.cu --grid 0 >"$TMP/out" 2>&1 && fail "--grid 0 was taken"

# ---- an example: its source, the one line about the GPU, the key bar ----
start 80 24 $KENV -- assets/kernels/transpose_seed.cu --lang en --reset
expect "banklab: kernel transpose_seed\\.cu"
expect "transpose_seed\\.cu compiles \\(for sm_90\\); measuring it needs a"
expect "watching assets/kernels/transpose_seed\\.cu · last run [0-9:]+"
# no GPU: the cursor opens on the line the model predicts worst, the column load of line 17
expect "^>  17 .*out\\[x \\* n \\+ y\\] = tile"
bar_ok "? help" "q quit"
# line 17 in the playground (Enter, Enter: through its executed warps): the declaration, the
# block, the access
play
expect "banklab: playground"
expect "block=32x32; tile\\[threadIdx\\.x\\]\\[threadIdx\\.y\\]"
expect "model +$(sim_line '__shared__ float tile[32][32]; tile[threadIdx.x][threadIdx.y]' --block 32x32)"
keys Escape Escape
expect "banklab: kernel transpose_seed\\.cu"
# line 14 is the row store: conflict free
keys Up Up Up
expect "^>  14 "
play
expect "tile\\[threadIdx\\.y\\]\\[threadIdx\\.x\\] = 0"
expect "model +$(sim_line '__shared__ float tile[32][32]; tile[threadIdx.y][threadIdx.x] = 0' --block 32x32)"
keys Escape Escape
# line 11 indexes global memory only: why, in one line
keys Up Up Up
expect "^>  11 "
keys Enter
expect "line 11: no load or store of a shared array declared in this file"
keys q
expect "EXITED rc=0"

# ---- a line the pattern language cannot express, a loop variable, a parameter ----
start 80 24 $KENV -- assets/kernels/atomics.cu --lang en
expect "measuring it needs a"
down 12
expect "^>  13 "
play
expect "line 13: atomicAdd is an atomic: the pattern language has loads and stores"
keys Escape
keys Up Up Up
expect "^>  10 "
play
expect "> __shared__ int h\\[1024\\]; int i = threadIdx\\.x; block=256; h\\[i\\] = 0"
expect "line 10: i is a loop variable: its first trip, i = threadIdx\\.x"
keys Escape Escape q
expect "EXITED rc=0"

# ---- watch mode: a compile error appears with the cursor on its line, and goes ----
cp assets/kernels/strided.cu "$TMP/w.cu"
start 80 24 $KENV -- --lang en --reset --lessons tests/sh/tui_fixtures/lessons
expect " 1\\.1/"
keys z
expect "open: assets/kernels/"
bar_ok "Enter open" "Esc cancel"
# the shipped examples, each with what it shows; Down picks the first
expect "examples in assets/kernels \\(Up/Down picks one\\):"
expect "^   strided\\.cu +lane l reads word l \\* STRIDE of a shared array"
keys Down
expect "open: assets/kernels/atomics\\.cu"
expect "^ > atomics\\.cu "
keys C-u
lit "$TMP/nosuch.cu"
keys Enter
expect "nosuch\\.cu: cannot open"
# the launch options after the path: read as the command line reads them (the one table,
# gpu_kernel_words): --OPTION=VALUE too, checked before the file is opened
keys C-u
lit "$TMP/nosuch.cu --grid"
keys Enter
expect "--grid needs a value"
keys C-u
lit "$TMP/nosuch.cu --json 1"
keys Enter
expect "launch options: --name --grid --block"
keys C-u
lit "$TMP/nosuch.cu --block=64x64"
keys Enter
expect "--block 64x64 is 4096 threads"
keys C-u
lit "$TMP/nosuch.cu --arg=n=1 --grid 2"
keys Enter
expect "nosuch\\.cu: cannot open"
keys C-u
lit "$TMP/w"
keys Tab
expect "open: .*/w\\.cu"
keys Enter
expect "watching .*/w\\.cu"
expect "w\\.cu compiles \\(for sm_90\\)"
sed 's/float b = s\[lane \* 2\];/float b = s[lane * 2] + zz;/' "$TMP/w.cu" >"$TMP/w.tmp" && mv "$TMP/w.tmp" "$TMP/w.cu"
expect "w\\.cu:14:29: error: identifier \"zz\" is undefined" 10
expect "^>  14 .*float b = s\\[lane \\* 2\\] \\+ zz;"
sed 's/ + zz;/;/' "$TMP/w.cu" >"$TMP/w.tmp" && mv "$TMP/w.tmp" "$TMP/w.cu"
wait_gone "error: identifier" 10 || fail "the fixed error stayed"
expect "w\\.cu compiles \\(for sm_90\\)"
# not watching: a save changes nothing until r
keys w
expect "not watching any more"
echo "// one more line" >>"$TMP/w.cu"
sleep 1
screen | grep -q "w\\.cu · 19 lines" || fail "ran again while not watching"
keys r
expect "w\\.cu · 20 lines"
# left (Esc), the view waits; z comes back to the same file and runs what was saved meanwhile
keys w
expect "watching: every save runs it again"
keys Escape
expect " 1\\.1/"
echo "// saved while away" >>"$TMP/w.cu"
keys z
expect "w\\.cu · 21 lines"
keys Escape
expect " 1\\.1/"
keys q
expect "EXITED rc=0"

# ---- a launch comment with a bad option: its place, the cursor on it ----
printf '// banklab: --grid 0\n__global__ void k(float *o) { o[0] = 1; }\n' >"$TMP/bad.cu"
start 80 24 $KENV -- "$TMP/bad.cu" --lang en
expect "bad\\.cu:1:[0-9]+: .*grid"
expect "^>   1 "
keys q
expect "EXITED rc=0"

# ---- control characters in the file are shown escaped, never sent to the terminal ----
printf '// banklab: --block 32\n// clear\033[2J and \033]0;title\007 here\r\n__global__ void k(float *o) { o[0] = 1; }\n' >"$TMP/ctl.cu"
start 80 24 $KENV -- "$TMP/ctl.cu" --lang en
expect "// clear\\\\x1b\\[2J and \\\\x1b\\]0;title\\\\x07 here"
expect "ctl\\.cu compiles \\(for sm_90\\)"
keys q
expect "EXITED rc=0"

# ---- a slow compile: the progress moves and the keys work meanwhile ----
{
    echo "// banklab: --block 32 --time-limit 120"
    i=0
    while [ $i -lt 60 ]; do
        echo "__device__ float f$i(float x) { return x * $i.5f + sinf(x * $i.25f); }"
        i=$((i + 1))
    done
    echo "__global__ void slow(float *out) {"
    echo "    __shared__ float s[64]; s[threadIdx.x] = threadIdx.x; __syncthreads();"
    echo "    float a = s[threadIdx.x];"
    i=0
    while [ $i -lt 60 ]; do echo "    a = f$i(a);"; i=$((i + 1)); done
    echo "    out[threadIdx.x] = a; }"
} >"$TMP/slow.cu"
start 80 24 $KENV -- "$TMP/slow.cu" --lang en
elapsed() { sed -n 's/.*measuring .*slow\.cu: [a-z ]* \([0-9]*\.[0-9]\) s.*/\1/p' "$TMP/screen.txt"; }
expect "measuring .*slow\\.cu: [a-z ]+ [0-9]+\\.[0-9] s"
t1=$(elapsed)
keys Down Down
expect "^>   3 "
sleep 0.5
screen >"$TMP/screen.txt"
[ "$(elapsed)" != "$t1" ] || fail "the progress stood still at $t1 s"
keys q
expect "EXITED rc=0"

# ---- 80x24 in Chinese: the header, the status and the key bar ----
start 80 24 $KENV -- assets/kernels/strided.cu --lang zh
expect "banklab：内核 strided\\.cu"
expect "行 热度 +多余 +路数 │ 源码"
expect "监视 assets/kernels/strided\\.cu · 上次运行"
bar_ok "? 帮助" "q 退出"
keys o
expect "打开：assets/kernels/strided\\.cu"
bar_ok "Enter 打开" "Esc 取消"
keys Escape q
expect "EXITED rc=0"
exit 0
