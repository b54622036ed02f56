#!/bin/sh
# reader_knr.sh: the reader does not depend on where braces stand. Every .cu the repository
# ships (assets/kernels, tests/gpu/kernels, tests/gpu/programs, tests/golden/kernel_model/src)
# and the reader's fixtures (tests/data/kernel/reader_*.cu) are rewritten in K&R style: a line
# holding only '{' (a kernel's, a __device__ helper's, a struct's, a loop's, an if's) joins the
# line before it and an `else` line joins the '}' line before it (`} else {`), the lines they
# leave blank so that every line keeps its number; `banklab kernel FILE --model` must print
# the same figures, whys, notes and totals for both (the source column aside). Then the
# one-line forms: a kernel, a helper, a struct, a loop and an if/else whose braces share
# their head's line, against the same kernel written out. Needs nvcc (the compiled code
# decides which lines have instructions): SKIP without. The shipped files are read where they
# are, so their compiles are the ones the other suites make (BANKLAB_TEST_CACHE, tests/run.sh):
# every rewrite first, then every original, which the suites beside this one have compiled by
# then.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
. tests/sh/lib.sh reader_knr.sh
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="${BANKLAB_TEST_CACHE:-$tmp/cache}" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" "$tmp/a" "$tmp/b" && chmod 700 "$tmp/run"
if ! [ -x "${BANKLAB_NVCC:-/usr/local/cuda/bin/nvcc}" ] && ! command -v nvcc >/dev/null 2>&1; then
    echo "SKIP: no nvcc"; exit 77
fi

# the K&R rewrite of stdin (lines kept: a joined line leaves a blank one)
knr() {
    awk '{ l[NR] = $0 }
         function prev(i,   j) { j = i - 1; while (j > 0 && l[j] ~ /^[ \t]*$/) j--; return j }
         function plain(s) { return s !~ /\/\/|\/\*|\*\/|\\$|^[ \t]*#/ }
         END {
             for (i = 1; i <= NR; i++) {
                 if (l[i] ~ /^[ \t]*else([ \t{]|$)/ && (j = prev(i)) > 0 && l[j] ~ /^[ \t]*}[ \t]*$/) {
                     s = l[i]; sub(/^[ \t]*/, "", s); l[j] = l[j] " " s; l[i] = ""
                 }
                 if (l[i] ~ /^[ \t]*{[ \t]*$/ && (j = prev(i)) > 0 && plain(l[j])) {
                     l[j] = l[j] " {"; l[i] = ""
                 }
             }
             for (i = 1; i <= NR; i++) print l[i]
         }'
}

# the report without the source column and the file's directory (the rewrite's, the original's)
# (figures FILE [DIR]: DIR/ taken out, as given and from the root, before $tmp/a/ and $tmp/b/)
figures() {
    if [ $# -gt 1 ]; then sed -e 's/|.*$/|/' -e "s|$root/$2/||g" -e "s|$2/||g" -e "s|$tmp/[ab]/||g" "$1"
    else sed -e 's/|.*$/|/' -e "s|$tmp/[ab]/||g" "$1"; fi
}

# the rewrites, predicted first (no other suite compiles them)
nfiles=0 nchanged=0
: >"$tmp/changed"
for f in assets/kernels/*.cu tests/gpu/kernels/*.cu tests/gpu/programs/*.cu \
         tests/golden/kernel_model/src/*.cu tests/data/kernel/reader_*.cu; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    nfiles=$((nfiles + 1))
    knr <"$f" >"$tmp/b/$b"
    [ "$(wc -l <"$f")" = "$(wc -l <"$tmp/b/$b")" ] || { fail "$f: the rewrite changed the line count"; continue; }
    cmp -s "$f" "$tmp/b/$b" && continue
    nchanged=$((nchanged + 1))
    mkdir -p "$tmp/b/$nchanged"
    mv "$tmp/b/$b" "$tmp/b/$nchanged/$b"
    echo "$nchanged $f" >>"$tmp/changed"
    names=""
    case "$f" in */programs/ldmatrix.cu) names="--name ldm<0>" ;; esac
    timeout 120 "$BANKLAB" kernel "$tmp/b/$nchanged/$b" --model $names >"$tmp/b/$nchanged.out" 2>&1
    echo "exit $?" >>"$tmp/b/$nchanged.out"
done
# then each original where it is, against its rewrite
while read -r i f; do
    names=""
    case "$f" in */programs/ldmatrix.cu) names="--name ldm<0>" ;; esac
    timeout 120 "$BANKLAB" kernel "$f" --model $names >"$tmp/a.out" 2>&1 </dev/null; echo "exit $?" >>"$tmp/a.out"
    figures "$tmp/a.out" "$(dirname "$f")" >"$tmp/a.fig"
    figures "$tmp/b/$i.out" "$tmp/b/$i" >"$tmp/b.fig"
    if cmp -s "$tmp/a.fig" "$tmp/b.fig"; then ok; else
        fail "$f in K&R style predicts differently:"; diff "$tmp/a.fig" "$tmp/b.fig" | head -n 8
    fi
done <"$tmp/changed"
[ "$nfiles" -ge 30 ] || fail "only $nfiles .cu files found"
[ "$nchanged" -ge 30 ] || fail "only $nchanged files had a brace to move"
echo "reader_knr.sh: $nchanged of $nfiles files rewritten in K&R style"

# the rewrite itself: a kernel, a helper, a struct, a loop, an if / else
printf 'struct P\n{\n    float x;\n};\n__device__ float g(float *a, int i)\n{\n    return a[i];\n}\n__global__ void k(float *o)\n{\n    if (o)\n    {\n        o[0] = 1;\n    }\n    else\n    {\n        o[1] = 2;\n    }\n    for (;;)\n    {\n    }\n}\n' >"$tmp/in.cu"
printf 'struct P {\n    float x;\n};\n__device__ float g(float *a, int i) {\n    return a[i];\n}\n__global__ void k(float *o) {\n    if (o) {\n        o[0] = 1;\n    } else {\n        o[1] = 2;\n    }\n    for (;;) {\n    }\n}\n' >"$tmp/want"
knr <"$tmp/in.cu" | grep -v '^$' >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { fail "the K&R rewrite:"; diff "$tmp/want" "$tmp/got"; }

# one-line forms, each against the kernel written out (the same lines)
cat >"$tmp/a/one.cu" <<'EOF'
// banklab: --block 64
struct P
{
    float x, y;
};
__device__ float twice(const float *a, int i)
{
    return 2.0f * a[i];
}
__global__ void one(float *out)
{
    __shared__ float s[64 * 33];
    __shared__ P p[64];
    int t = threadIdx.x;
    s[t] = t;
    p[t].x = t;
    __syncthreads();
    float acc = 0;
    for (int k = 0; k < 2; k++)
    {
        acc += s[t * 32 + k];
    }
    if (t < 32)
    {
        acc += s[t * 2];
    }
    else
    {
        acc += s[t * 33];
    }
    out[t] = acc + twice(s, t * 4) + p[t].x;
}
EOF
cat >"$tmp/b/one.cu" <<'EOF'
// banklab: --block 64
struct P { float x, y; };





__device__ float twice(const float *a, int i) { return 2.0f * a[i]; }

__global__ void one(float *out) {

    __shared__ float s[64 * 33];
    __shared__ P p[64];
    int t = threadIdx.x;
    s[t] = t;
    p[t].x = t;
    __syncthreads();
    float acc = 0;


    for (int k = 0; k < 2; k++) { acc += s[t * 32 + k]; }



    if (t < 32) { acc += s[t * 2]; } else {



        acc += s[t * 33]; }

    out[t] = acc + twice(s, t * 4) + p[t].x;
}
EOF
"$BANKLAB" kernel "$tmp/a/one.cu" --model >"$tmp/a.out" 2>&1; echo "exit $?" >>"$tmp/a.out"
"$BANKLAB" kernel "$tmp/b/one.cu" --model >"$tmp/b.out" 2>&1; echo "exit $?" >>"$tmp/b.out"
# every line of an access predicted alike in both layouts: the helper's, the stores, the loop's,
# the else branch's and the last line. Lines 23-25 are left out: the if/else's two loads
# compile to one load of a selected address at PTX line 0, which the executor charges to the
# PTX line before it, the `if` line (23 in a, 25 in b: the layouts differ there, not the
# reading; docs/kernel.md, "Executed, not read")
for l in 8 15 16 21 29 31; do
    ra=$(figures "$tmp/a.out" | awk -v l=$l '$1 == l && /\|/ { print; exit }')
    rb=$(figures "$tmp/b.out" | awk -v l=$l '$1 == l && /\|/ { print; exit }')
    [ -n "$ra" ] && [ "$ra" = "$rb" ] || fail "one-line braces predict line $l differently: '$ra' against '$rb'"
done
# and it is predicted: the helper's line, the loop's, both branches
for l in 8 15 16 21 25 29; do
    row=$(awk -v l=$l '$1 == l && /\|/ { print; exit }' "$tmp/b.out")
    set -- $row
    [ $# -ge 3 ] && [ "$2" != "|" ] && [ "$2" != "-" ] || fail "one.cu line $l in K&R style not predicted: $row"
done
finish
