#!/bin/sh
# kernel_model.sh: `banklab kernel FILE.cu --model` without a GPU: for every shipped example
# (assets/kernels/*.cu) the model's prediction of every line, why each conflicting line
# conflicts, the fix checked with the model, and the lines it cannot express with their
# reason, byte for byte as tests/golden/kernel_model/NAME.txt (and the seed transpose in
# Chinese, and as JSON); then --fix writes FILE.fixed.cu next to a copy of the seed transpose,
# whose prediction has no excess, refuses to write over it a second time, and never writes
# through a symbolic link. UPDATE=1 rewrites the golden files (review the diff).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${UPDATE:=0}"
. tests/sh/lib.sh kernel_model.sh
dir=tests/golden/kernel_model
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="$tmp/cache" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"

compare() { # NAME: $tmp/out against $dir/NAME.txt
    if [ "$UPDATE" = 1 ]; then cp "$tmp/out" "$dir/$1.txt"; return; fi
    if ! cmp -s "$tmp/out" "$dir/$1.txt"; then
        fail "$1 differs from $dir/$1.txt:"; diff "$dir/$1.txt" "$tmp/out" | head -n 20
    fi
}

for f in assets/kernels/*.cu; do
    name=$(basename "$f" .cu)
    timeout 60 "$BANKLAB" kernel "$f" --model >"$tmp/out" 2>&1
    echo "exit $?" >>"$tmp/out"
    compare "$name"
done
timeout 60 "$BANKLAB" kernel assets/kernels/transpose_seed.cu --model --lang zh >"$tmp/out" 2>&1
echo "exit $?" >>"$tmp/out"
compare transpose_seed.zh
timeout 60 "$BANKLAB" kernel assets/kernels/transpose_seed.cu --model --json >"$tmp/out" 2>&1
echo "exit $?" >>"$tmp/out"
compare transpose_seed.json
if command -v jq >/dev/null 2>&1; then
    jq -e '.source == "model" and (.model | map(select(.line == 17))[0].wavefronts) == 1048576' \
        "$dir/transpose_seed.json.txt" >/dev/null 2>&1 ||
        head -n -1 "$tmp/out" | jq -e '.source == "model" and (.model | map(select(.line == 17))[0].wavefronts) == 1048576' >/dev/null ||
        fail "--json: line 17 is not 1048576 wavefronts"
fi

# every shipped example: every line with a conflict has a why, and a note or the reason none
for f in assets/kernels/*.cu; do
    "$BANKLAB" kernel "$f" --model >"$tmp/m" 2>&1 || fail "$f: --model failed"
    awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[1-9][0-9]* / { want = 2; line = $1; next }
         want == 2 { if ($1 != "why:") { print "no why after line " line; bad = 1 } want = 1; next }
         want == 1 { if ($1 != "note:" && $1 != "no") { print "no fix after line " line; bad = 1 } want = 0 }
         END { exit bad }' "$tmp/m" || fail "$f: a conflicting line without why or fix"
done

# --fix: the patched copy next to the file, its prediction conflict free, never twice
cp assets/kernels/transpose_seed.cu "$tmp/t.cu"
timeout 120 "$BANKLAB" kernel "$tmp/t.cu" --fix >"$tmp/fix" 2>&1
grep -q "t.cu:17: note: declare tile\[32\]\[33\]: line 17 becomes 1-way, line 14 stays 1-way" "$tmp/fix" ||
    fail "--fix: no note: $(cat "$tmp/fix")"
[ -f "$tmp/t.fixed.cu" ] || fail "--fix wrote no t.fixed.cu"
grep -q "__shared__ float tile\[32\]\[33\];" "$tmp/t.fixed.cu" || fail "t.fixed.cu is not padded"
[ "$(wc -l <"$tmp/t.fixed.cu")" = "$(wc -l <"$tmp/t.cu")" ] || fail "t.fixed.cu moved lines"
"$BANKLAB" kernel "$tmp/t.fixed.cu" --model >"$tmp/m" 2>&1
grep -q "^    17 .* 32768 .* 32768 .*  0    1.00 |" "$tmp/m" || fail "the fixed line 17 is not conflict free: $(grep '^    17' "$tmp/m")"
grep -q "the model's prediction instead\|measuring it" "$tmp/fix" || fail "--fix did not measure or predict the copy"
cp "$tmp/t.fixed.cu" "$tmp/before"
timeout 120 "$BANKLAB" kernel "$tmp/t.cu" --fix >"$tmp/fix2" 2>&1 && fail "--fix wrote over t.fixed.cu"
grep -q "exists already: not overwritten" "$tmp/fix2" || fail "--fix over a file: $(cat "$tmp/fix2")"
cmp -s "$tmp/before" "$tmp/t.fixed.cu" || fail "t.fixed.cu changed"
cp assets/kernels/transpose_seed.cu "$tmp/u.cu"
ln -s "$tmp/victim" "$tmp/u.fixed.cu"
timeout 120 "$BANKLAB" kernel "$tmp/u.cu" --fix >"$tmp/fix3" 2>&1 && fail "--fix wrote through a link"
[ -e "$tmp/victim" ] && fail "--fix created the link's target"
# a line without a fix: --fix says so and writes nothing
timeout 60 "$BANKLAB" kernel assets/kernels/transpose_seed_padded.cu --fix >"$tmp/fix4" 2>&1 && fail "--fix on a conflict-free kernel succeeded"
grep -q "no conflicting line" "$tmp/fix4" || fail "--fix on the padded transpose: $(cat "$tmp/fix4")"
[ -e assets/kernels/transpose_seed_padded.fixed.cu ] && { rm -f assets/kernels/transpose_seed_padded.fixed.cu; fail "--fix wrote a copy of a clean kernel"; }

[ "$UPDATE" = 1 ] && { echo "kernel_model.sh: golden files rewritten"; exit 0; }
[ $nfail -eq 0 ] && echo "kernel_model.sh: pass" || echo "kernel_model.sh: $nfail failed"
[ $nfail -eq 0 ]
