#!/bin/sh
# kernel.sh: `banklab kernel` without a GPU (CUDA_VISIBLE_DEVICES= hides any): a compile
# error is FILE:LINE:COL (exit 2); a good file says in one line that measuring needs a GPU
# and that --model predicts it without one (exit 3) -- every shipped example and the case
# kernels among them; bad options, a bad launch comment, no such kernel, a missing --arg
# exit 2; the measuring server answers a second run, leaves when idle, and a socket it left
# behind does not stop the next run.
# A GPU=none build cannot compile: SKIP (77). Env: BANKLAB.
set -u
. tests/sh/lib.sh kernel.sh
B=$BANKLAB
export CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"
export BANKLAB_KERNEL_SERVER=5 # servers leave soon after the last run
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"

"$B" kernel assets/kernels/strided.cu > "$tmp/out" 2> "$tmp/err"
if grep -q "GPU=none" "$tmp/err"; then
    echo "SKIP: this banklab is built without CUDA: $(cat "$tmp/err")"
    exit 77
fi

# run NAME WANT_RC ARGS...: exit status, then $tmp/out and $tmp/err hold the output
run() {
    name=$1 want=$2
    shift 2
    "$B" kernel "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"; else
        fail "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
one_line() { # NAME PATTERN: exactly one line on stderr matching PATTERN, nothing on stdout
    n=$(wc -l < "$tmp/err")
    if [ "$n" = 1 ] && [ ! -s "$tmp/out" ] && grep -q -E "$2" "$tmp/err"; then ok "$1"; else
        fail "$1: $n stderr lines, $(wc -c < "$tmp/out") stdout bytes"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
has() { # NAME FILE PATTERN
    if grep -q -E -- "$3" "$2"; then ok "$1"; else fail "$1: no /$3/ in:"; sed 's/^/    /' "$2" | head -5; fi
}

# ---- compile errors: FILE:LINE:COL (works without a GPU) ----
cat > "$tmp/bad.cu" <<'EOF'
__global__ void k(float *out)
{
    int x = threadIdx.x;
    out[x] = undefined_thing + 1;
}
EOF
run "compile error" 2 "$tmp/bad.cu"
has "compile error as FILE:LINE:COL: error: message" "$tmp/err" \
    "^$tmp/bad.cu:4:14: error: identifier \"undefined_thing\" is undefined\$"
has "the line and a caret under the column" "$tmp/err" '^               \^$'
printf '#include "missing.h"\n__global__ void k(float *o) { o[0] = 1; }\n' > "$tmp/inc.cu"
run "missing include" 2 "$tmp/inc.cu"
# NVRTC names the column after the name, nvcc's host preprocessor the name's start
has "missing include named at its line and column" "$tmp/err" \
    "^$tmp/inc.cu:1:(21: error: cannot open source file \"missing.h\"|10: error: missing.h: No such file or directory)"
printf '__global__ void k(float *o)\n{\n\tint  q = 3;\tq += zz;\n}\n' > "$tmp/tab.cu"
run "error after tabs" 2 "$tmp/tab.cu"
has "tabs count as one column" "$tmp/err" "^$tmp/tab.cu:3:19: error"
run "compile error with --json" 2 "$tmp/bad.cu" --json
[ -s "$tmp/out" ] && fail "--json printed on stdout for a compile error" || ok "--json: nothing on stdout"

# ---- ordinary files (host code, host headers, a main) through the toolkit's nvcc ----
nvcc_here=
if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then nvcc_here=1; fi
cat > "$tmp/ord.cu" <<'EOF'
// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M
#include <cstdio>
#include <vector>
static const char *note = "__global__ void not_a_kernel(int) {}"; /* __global__ void nor(int) */
__global__ void transpose(float *in, float *out, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
int main()
{
    std::vector<float> h(1024 * 1024);
    float *in, *out;
    cudaMalloc(&in, h.size() * 4);
    cudaMalloc(&out, h.size() * 4);
    transpose<<<dim3(32, 32), dim3(32, 32)>>>(in, out, 1024);
    printf("%s\n", note);
    return cudaDeviceSynchronize();
}
EOF
sed 's/tile\[threadIdx.x\]\[threadIdx.y\];/tile[threadIdx.x][threadIdx.y] + missing_one;/' "$tmp/ord.cu" > "$tmp/ordbad.cu"
if [ -n "$nvcc_here" ]; then
    run "ordinary file (cstdio, vector, main) without a GPU" 3 "$tmp/ord.cu"
    one_line "ordinary file: one line, measuring needs a GPU" "ord.cu compiles \\(for sm_90\\); measuring it needs a GPU"
    run "ordinary file's compile error through nvcc" 2 "$tmp/ordbad.cu"
    has "nvcc's error as FILE:LINE:COL: error: message" "$tmp/err" \
        "^$tmp/ordbad.cu:11:55: error: identifier \"missing_one\" is undefined\$"
    has "the line and the caret under the column" "$tmp/err" '^ {56}\^$'
    run "-Dmissing_one=1.0f reaches nvcc" 3 "$tmp/ordbad.cu" -Dmissing_one=1.0f --compiler nvcc
    run "-D NAME=V, the spaced form" 3 "$tmp/ordbad.cu" -D missing_one=2
    printf '#include <cstdio>\n#include <no_such_header>\n__global__ void k(float *o) { o[0] = 1; }\n' > "$tmp/hdr.cu"
    run "a missing host header" 2 "$tmp/hdr.cu"
    has "named at its line and column" "$tmp/err" "^$tmp/hdr.cu:2:10: error: no_such_header: No such file or directory"
    mkdir -p "$tmp/inc"
    printf '#define WIDTH 4\n' > "$tmp/inc/width.h"
    printf '#include <width.h>\n__global__ void k(float *o) { o[0] = WIDTH; }\n' > "$tmp/needinc.cu"
    run "-I DIR finds a header" 3 "$tmp/needinc.cu" -I "$tmp/inc"
    run "without -I it does not" 2 "$tmp/needinc.cu"
    printf '__global__ void k(float *o)\n{\n    asm volatile("bogus.op;");\n}\n' > "$tmp/ptx.cu"
    run "a ptxas error" 2 "$tmp/ptx.cu"
    has "ptxas's message, in the file" "$tmp/err" "^$tmp/ptx.cu: error: ptxas: "
    run "an unknown nvcc flag" 2 "$tmp/ord.cu" --nvcc-flag --no-such-flag
    has "nvcc's own complaint" "$tmp/err" "Unknown option '--no-such-flag'"
    printf 'enum { MA, MB = 4 };\ntemplate <int M> __global__ void t(float *o) { o[0] = M; }\nint main() { t<MA><<<1, 1>>>(0); t<MB><<<1, 1>>>(0); return 0; }\n' > "$tmp/tmpl.cu"
    run "a template instance named by its enumerator" 3 "$tmp/tmpl.cu" --name 't<MB>'
    run "an instance the file does not launch" 3 "$tmp/tmpl.cu" --name 't<7>'
    run "an instance that cannot be" 2 "$tmp/tmpl.cu" --name 't<nosuch>'
    one_line "said of --name, in the file, no temporary path" "^$tmp/tmpl.cu: error: --name t<nosuch>: identifier \"nosuch\" is undefined\$"
else
    echo "skip ordinary files through nvcc: no nvcc here"
fi
run "--nvcc-flag that banklab sets itself" 2 "$tmp/ord.cu" --nvcc-flag -arch=sm_80
one_line "refused in one line" "banklab sets that itself"
run "--nvcc-flag with a blank" 2 "$tmp/ord.cu" --nvcc-flag '-O3 -G'
run "--nvcc-flag not a flag" 2 "$tmp/ord.cu" --nvcc-flag 'x.cu'
run "-D not an identifier" 2 "$tmp/ord.cu" -D '1x=2'
run "--compiler nvrtc: host headers are NVRTC's compile error" 2 "$tmp/ord.cu" --compiler nvrtc
has "as FILE:LINE:COL" "$tmp/err" "^$tmp/ord.cu:2:18: error: cannot open source file \"cstdio\""

# ---- a good file: one line, exit 3 ----
run "good file without a GPU" 3 assets/kernels/transpose_seed.cu
one_line "one line saying measuring needs a GPU" "transpose_seed.cu compiles \\(for sm_90\\); measuring it needs a GPU: no CUDA (device|driver)"
one_line "the same line names the way without a GPU" "\\(banklab kernel assets/kernels/transpose_seed.cu --model predicts it without one\\)\$"
run "good file --json without a GPU" 3 assets/kernels/transpose_seed.cu --json
one_line "--json: the same one line" "measuring it needs a GPU"
for f in assets/kernels/*.cu; do
    run "example $(basename "$f") compiles" 3 "$f"
done
# every kernel the GPU test measures compiles and takes its options (the list cannot drift)
grep -v '^#' tests/gpu/kernel_cases.txt | grep . > "$tmp/cases"
while IFS='|' read -r label file opts; do
    # shellcheck disable=SC2086
    run "tests/gpu case $label compiles and binds its options" 3 $file $opts
done < "$tmp/cases"

# ---- bad usage and bad input: exit 2, a message ----
run "no file" 2
run "two files" 2 assets/kernels/strided.cu assets/kernels/vectors.cu
run "unknown option" 2 assets/kernels/strided.cu --frobnicate
run "option without its value" 2 assets/kernels/strided.cu --grid
has "the missing value is named" "$tmp/err" "^banklab kernel: --grid needs a value"
run "an abbreviated launch option" 2 assets/kernels/strided.cu --gri 4
has "the abbreviation is refused by name" "$tmp/err" "^banklab kernel: unknown option '--gri'"
run "--grid 0" 2 assets/kernels/strided.cu --grid 0
run "--block of 2048 threads" 2 assets/kernels/strided.cu --block 64x32
has "the block's size is named" "$tmp/err" "2048 threads"
run "--smem not bytes" 2 assets/kernels/strided.cu --smem lots
run "--arg without =" 2 assets/kernels/strided.cu --arg stride
run "--fill unknown" 2 assets/kernels/strided.cu --fill ones
run "--sort unknown" 2 assets/kernels/strided.cu --sort name
run "--time-limit 0" 2 assets/kernels/strided.cu --time-limit 0
run "--json with --sass" 2 assets/kernels/strided.cu --json --sass
run "no such file" 2 "$tmp/nothing.cu"
has "the file is named" "$tmp/err" "nothing.cu: cannot open"
run "a directory" 2 "$tmp"
printf '// banklab: --grid 4 --block 0\n__global__ void k(int *p) {}\n' > "$tmp/cmt.cu"
run "bad launch comment" 2 "$tmp/cmt.cu"
has "launch comment error as FILE:LINE:COL" "$tmp/err" "^$tmp/cmt.cu:1:30: --block takes"
printf '// banklab: --json\n__global__ void k(int *p) {}\n' > "$tmp/cmt2.cu"
run "not a launch option in the comment" 2 "$tmp/cmt2.cu"
has "named as such" "$tmp/err" "'--json' is not a launch option"
cat > "$tmp/multi.cu" <<'EOF'
__global__ void copy(float *o, const float *i) { o[threadIdx.x] = i[threadIdx.x]; }
namespace lab { __global__ void tile(float *o) { __shared__ float t[32]; t[threadIdx.x] = 1; o[0] = t[0]; } }
template <typename T> __global__ void vec(T *o) { o[threadIdx.x] = T(); }
EOF
run "several kernels, no --name" 2 "$tmp/multi.cu"
has "the kernels are listed" "$tmp/err" "multi.cu has 3 kernels \\(copy, lab::tile, vec\\): choose one with --name"
run "no such kernel" 2 "$tmp/multi.cu" --name fast
has "no such kernel: named, with the file's" "$tmp/err" "no kernel named fast in $tmp/multi.cu \\(kernels: copy, lab::tile, vec\\)"
run "a kernel in a namespace, by its short name" 3 "$tmp/multi.cu" --name tile
run "a template instance" 3 "$tmp/multi.cu" --name 'vec<float4>'
run "a template without an instance" 2 "$tmp/multi.cu" --name vec
has "asks for an instance" "$tmp/err" "vec is a template: name an instance, e.g. --name 'vec<float>'"
run "a scalar parameter without --arg" 2 kernels/row_col.cu --arg pad=1 --arg column=1
has "says which --arg" "$tmp/err" "add --arg rounds=VALUE"
run "--arg for no parameter" 2 assets/kernels/strided.cu --arg stide=2
has "names the parameter" "$tmp/err" "strided has no scalar parameter stide"
run "--arg out of range" 2 assets/kernels/ldmatrix.cu --arg swizzle=3000000000
has "says the range" "$tmp/err" "out of range for int"
run "--buffer-size for no pointer" 2 assets/kernels/strided.cu --buffer-size in=4K
printf '__global__ void k(float &r) {}\n' > "$tmp/ref.cu"
run "a parameter banklab cannot pass" 2 "$tmp/ref.cu"
has "says what it can pass" "$tmp/err" "banklab passes pointers"
printf '__device__ int x;\n' > "$tmp/none.cu"
run "no kernel at all" 2 "$tmp/none.cu"
has "says so" "$tmp/err" "no __global__ function in"
run "--help" 0 --help
has "--help explains the columns" "$tmp/out" "^  excess      wavefronts - ideal"

# ---- the measuring server ----
rm -rf "$tmp/run/banklab"
"$B" kernel assets/kernels/strided.cu > /dev/null 2>&1
sock=$(ls "$tmp"/run/banklab/kernel-*.sock 2>/dev/null | head -n 1)
[ -S "$sock" ] && ok "a measuring server listens after the first run" || fail "no server socket in $tmp/run/banklab"
perm=$(stat -c %a "$tmp/run/banklab" 2>/dev/null)
[ "$perm" = 700 ] && ok "its directory is private (700)" || fail "server directory mode $perm"
run "a second run, answered by the server" 3 assets/kernels/transpose_seed.cu
one_line "the same one line from the server" "measuring it needs a GPU: no CUDA (device|driver)"
run "a compile error, from the server" 2 "$tmp/bad.cu"
has "still FILE:LINE:COL" "$tmp/err" "^$tmp/bad.cu:4:14: error"
rm -rf "$tmp/run/banklab"
BANKLAB_KERNEL_SERVER=1 "$B" kernel assets/kernels/strided.cu > /dev/null 2>&1
sleep 2.5
ls "$tmp"/run/banklab/kernel-*.sock > /dev/null 2>&1 && fail "an idle server stayed past BANKLAB_KERNEL_SERVER=1" \
    || ok "an idle server leaves (and removes its socket)"
# an idle server that leaves takes its own socket file only: not one bound there after it
rm -rf "$tmp/run/banklab"
BANKLAB_KERNEL_SERVER=2 "$B" kernel assets/kernels/strided.cu > /dev/null 2>&1
s2=$(ls "$tmp"/run/banklab/kernel-*.sock 2>/dev/null | head -n 1)
if [ -S "$s2" ]; then
    rm -f "$s2"
    python3 -c "import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); time.sleep(4)" "$s2" &
    np=$!
    sleep 3.5
    [ -S "$s2" ] && ok "an idle server leaving keeps a newer server's socket" ||
        fail "an idle server leaving removed the socket bound after it"
    kill $np 2>/dev/null; wait $np 2>/dev/null
else
    fail "no server socket for the newer-socket check"
fi
rm -f "$s2"
# a socket left by a server that died: the next run replaces it
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$sock"
[ -S "$sock" ] || fail "could not make a stale socket"
BANKLAB_KERNEL_SERVER=1 "$B" kernel assets/kernels/strided.cu > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 3 ] && ok "a stale socket does not stop a run (exit 3)" || fail "with a stale socket: exit $rc"
# one request per process (what a GPU forces): each hands its socket to a successor
rm -rf "$tmp/run/banklab"
export BANKLAB_KERNEL_ONE_REQUEST=1
for i in 1 2 3; do
    run "one request per process, run $i" 3 assets/kernels/transpose_seed.cu
done
one_line "run 3 answered by a successor" "measuring it needs a GPU: no CUDA (device|driver)"
sock=$(ls "$tmp"/run/banklab/kernel-*.sock 2>/dev/null | head -n 1)
[ -S "$sock" ] && ok "the socket stays across the hand-overs" || fail "no socket after the hand-overs"
for c in /proc/[0-9]*/cmdline; do tr '\0' ' ' 2>/dev/null < "$c"; echo; done |
    grep -q "^banklab __kernel-child --spare [0-9]* [0-9]* 0 $tmp/run/banklab/kernel-" &&
    ok "a successor (--spare) waits for the next request" || fail "no --spare process"
unset BANKLAB_KERNEL_ONE_REQUEST
rm -rf "$tmp/run/banklab"
"$B" kernel assets/kernels/strided.cu --no-server > /dev/null 2>&1
ls "$tmp"/run/banklab/kernel-*.sock > /dev/null 2>&1 && fail "--no-server left a server" || ok "--no-server leaves no server"
BANKLAB_KERNEL_SERVER=0 "$B" kernel assets/kernels/strided.cu > /dev/null 2>&1
ls "$tmp"/run/banklab/kernel-*.sock > /dev/null 2>&1 && fail "BANKLAB_KERNEL_SERVER=0 left a server" || ok "BANKLAB_KERNEL_SERVER=0 starts none"
finish
