#!/bin/sh
# reader_model.sh: `banklab kernel FILE.cu --model` without a GPU on the kernels of
# tests/data/kernel/reader_*.cu, each written the way developers write one construct (pointer
# casts of four spellings and a pointer made of the array, a file-scope struct of three floats
# with float3 and make_float3 and a typedef, __device__ helpers called with a shared pointer,
# a template given by --name, #define / constexpr / const, fixes of one-dimensional arrays,
# a wider or narrower element):
#   1. every line carrying a `// wf N` comment (its wavefronts, worked out by hand in the
#      file's comment) is predicted, with N wavefronts: no shared-access line blank;
#   2. the whole output, why / note / "no fix found" included, byte for byte as
#      tests/golden/kernel_model/NAME.txt (reader_fix1d also in Chinese);
#   3. --fix on reader_fix1d writes the swizzle of the worst line.
# UPDATE=1 rewrites the golden files (review the diff).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${UPDATE:=0}"
. tests/sh/lib.sh reader_model.sh
dir=tests/golden/kernel_model
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="${BANKLAB_TEST_CACHE:-$tmp/cache}" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"

compare() { # NAME: $tmp/out against $dir/NAME.txt
    if [ "$UPDATE" = 1 ]; then cp "$tmp/out" "$dir/$1.txt"; return; fi
    if cmp -s "$tmp/out" "$dir/$1.txt"; then ok; else
        fail "$1 differs from $dir/$1.txt:"; diff "$dir/$1.txt" "$tmp/out" | head -n 20
    fi
}

n=0
for f in tests/data/kernel/reader_*.cu; do
    name=$(basename "$f" .cu)
    n=$((n + 1))
    timeout 60 "$BANKLAB" kernel "$f" --model >"$tmp/out" 2>&1
    echo "exit $?" >>"$tmp/out"
    compare "$name"
    # the hand-worked figures: line -> wavefronts, from the file's `// wf N` comments
    awk '/\/\/ wf [0-9]+ *$/ { print FNR, $NF }' "$f" >"$tmp/want"
    [ -s "$tmp/want" ] || fail "$f: no line carries a '// wf N' figure"
    while read -r line want; do
        row=$(awk -v l="$line" '$1 == l && $0 ~ /\|/ { print; exit }' "$tmp/out")
        set -- $row
        if [ $# -lt 3 ] || [ "$2" = "|" ] || [ "$2" = "-" ]; then
            fail "$name:$line: a shared-access line without a prediction: $row"
        elif [ "$3" != "$want" ]; then
            fail "$name:$line: the model says $3 wavefronts, worked out by hand: $want"
        else
            ok
        fi
    done <"$tmp/want"
done
[ "$n" -ge 6 ] || fail "only $n reader_*.cu kernels"

timeout 60 "$BANKLAB" kernel tests/data/kernel/reader_fix1d.cu --model --lang zh >"$tmp/out" 2>&1
echo "exit $?" >>"$tmp/out"
compare reader_fix1d.zh
iconv -f UTF-8 -t UTF-8 "$tmp/out" >/dev/null 2>&1 || fail "reader_fix1d in Chinese is not valid UTF-8"
# two arrays of long names on one line: the Chinese note is longer than its buffer and is
# cut, at a character's end whatever the names' lengths (26, 27, 28 letters: three cut points)
for n1 in aaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
    n2=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
    cat >"$tmp/long.cu" <<EOF
// banklab: --block 32
__global__ void k(float *out)
{
    __shared__ float $n1[1024];
    __shared__ float $n2[1024];
    int lane = threadIdx.x & 31;
    out[lane] = $n1[lane * 32] + $n2[lane * 32];
    out[lane] += $n1[lane * 33] + $n2[lane * 33];
}
EOF
    timeout 60 "$BANKLAB" kernel "$tmp/long.cu" --model --lang zh >"$tmp/long" 2>&1
    grep -q "试过" "$tmp/long" || fail "the long-named arrays have no 'no fix found' note"
    # a character cut in two would be printed escaped, \xe8\xaf
    grep -q '\\x[0-9a-f][0-9a-f]' "$tmp/long" &&
        fail "a cut note ends in half a character (${#n1}-letter name): $(grep '试过' "$tmp/long" | tail -c 40)"
done


# --fix: the worst line of reader_fix1d is line 27 (a[lane * 32], 31 excess, the first of
# three); its swizzle is written to the copy, and the copy predicts line 27 conflict free
cp tests/data/kernel/reader_fix1d.cu "$tmp/f.cu"
timeout 120 "$BANKLAB" kernel "$tmp/f.cu" --fix >"$tmp/fix" 2>&1
grep -q "f.cu:27: note: swizzle a, indexing it a\[i ^ ((i / 32) % 32)\]" "$tmp/fix" ||
    fail "--fix: no swizzle note: $(head -n 3 "$tmp/fix")"
grep -q "float x = a\[(lane \* 32) ^ (((lane \* 32) / 32) % 32)\];" "$tmp/f.fixed.cu" 2>/dev/null ||
    fail "f.fixed.cu is not swizzled"
"$BANKLAB" kernel "$tmp/f.fixed.cu" --model >"$tmp/m" 2>&1
awk '$1 == 27 && $0 ~ /\|/ { exit !($3 == 1) }' "$tmp/m" || fail "the fixed line 27 is not 1 wavefront"

[ "$UPDATE" = 1 ] && { echo "reader_model.sh: golden files rewritten"; exit 0; }
finish
