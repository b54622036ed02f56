#!/bin/sh
# kernel_view.sh (make test-gpu): the tutorial's kernel view on the GPU, in tmux at 120x30:
# on assets/kernels/transpose_seed.cu the cursor starts on the line with the most excess, and
# the figures under the table (inst, wavefronts, ideal, excess) and the totals are the ones
# `banklab kernel --json` measures for the same file; r measures again (the same figures come
# back); Enter on that line opens the playground with its 32-way grid.
# Without a GPU, tmux or jq: SKIP (77). Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
"$BANKLAB" kernel assets/kernels/transpose_seed.cu --json >/dev/null 2>&1
[ $? = 3 ] && { echo "SKIP: no GPU (banklab kernel exit 3)"; exit 77; }
. tests/sh/tui_fixtures/lib.sh
mkdir -p "$TMP/run" "$TMP/cache" && chmod 700 "$TMP/run"
"$BANKLAB" kernel assets/kernels/transpose_seed.cu --json >"$TMP/cli.json" || fail "banklab kernel failed"
# the line with the most excess and its figures, as the command line measured them
read -r line inst wf ideal excess <<EOF
$(jq -r '.lines | max_by(.excess) | "\(.line) \(.inst) \(.wavefronts) \(.ideal) \(.excess)"' "$TMP/cli.json")
EOF
total=$(jq -r '.totals.excess' "$TMP/cli.json")
[ -n "$line" ] && [ "$line" != null ] || fail "no measured line in banklab kernel --json"
echo "banklab kernel: line $line inst $inst wavefronts $wf ideal $ideal excess $excess (total $total)"

start 120 30 XDG_RUNTIME_DIR="$TMP/run" XDG_CACHE_HOME="$TMP/cache" -- \
    assets/kernels/transpose_seed.cu --lang en --reset
expect "total: inst " 30
expect "^> +$line "
expect "line $line: inst $inst · wavefronts $wf · ideal $ideal · excess $excess"
expect "excess $total "
keys r
expect "watching .*transpose_seed\\.cu" 30
expect "line $line: inst $inst · wavefronts $wf · ideal $ideal · excess $excess"
keys Enter
expect "banklab: playground"
expect "model +32 wavefronts · 31 conflicts · 32-way"
keys Escape q
expect "EXITED rc=0"
echo "kernel_view.sh: ok"
exit 0
