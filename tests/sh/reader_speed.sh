#!/bin/sh
# reader_speed.sh: `banklab kernel FILE.cu --model` is linear in the file, outside the kernel
# and in its control statements too. Three generated files, each predicted in under $BOUND s
# of CPU time (default 8: the requirement is 2 s; before the reader read a file once they took
# 27 to over 60 s; the times are printed) once nvcc's output is cached (a first run compiles, the timed one reads the cache):
#   helpers: a kernel after 10,000 one-line __device__ helpers (its indexed lines predicted);
#   main:    a kernel and a 3000-line main() of indexed lines (not the kernel's: not predicted);
#   guard:   2000 accesses each behind `if (t < 32)` (every one predicted).
# Each run's figures are checked too (the lines predicted, their wavefronts). Needs nvcc for
# the compiled code; without it the model reads the source alone, timed the same.
# (beside the other suites: what it bounds is the CPU time of --model, 0.25-0.67 s in a full
# `make test` on two cores, not the time on the clock)
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${BOUND:=8}"
. tests/sh/lib.sh reader_speed.sh
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="$tmp/cache" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"

kernel='__global__ void k(float *out)
{
    __shared__ float s[1024];
    int lane = threadIdx.x & 31;
    s[lane] = lane;
    __syncthreads();
    out[lane] = s[lane * 32];
}'

{
    echo "// banklab: --block 32"
    awk 'BEGIN { for (i = 1; i <= 10000; i++) printf "__device__ int h%d(int x) { return x + %d; }\n", i, i }'
    echo "$kernel"
} >"$tmp/helpers.cu"
{
    echo "// banklab: --block 32"
    echo "$kernel"
    printf 'int main()\n{\n    float *d;\n    cudaMalloc(&d, 4096);\n    int a[64];\n'
    awk 'BEGIN { for (i = 1; i <= 3000; i++) printf "    a[%d %% 64] = %d;\n", i, i }'
    printf '    k<<<1, 32>>>(d);\n    return a[3];\n}\n'
} >"$tmp/main.cu"
{
    printf '// banklab: --block 32\n__global__ void k(float *out)\n{\n    __shared__ float s[1024];\n'
    printf '    int t = threadIdx.x;\n    float x = 0;\n'
    awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "    if (t < 32) x += s[t * %d];\n", i % 33 }'
    printf '    out[t] = x;\n}\n'
} >"$tmp/guard.cu"

# NAME LINES-PREDICTED: the timed run of $tmp/NAME.cu
# (--block 32, the files' own launch, on the command line: the source is read, not run: a file
# with main() would otherwise be built and run on banklab's CUDA runtime, which is not the
# reader this suite times)
timed() {
    # compiles, with a deadline of 240 s: a compile that ran past the default deadline on a
    # loaded machine (10,000 helpers on 2 busy cores, a fresh clone's first make test) left
    # nothing in the cache, and the timed run compiled (8.74 s of CPU, the limit 8)
    timeout 250 "$BANKLAB" kernel "$tmp/$1.cu" --model --block 32 --time-limit 240 >"$tmp/$1.out" 2>&1
    timeout 250 "$BANKLAB" kernel "$tmp/$1.cu" --model --block 32 --time-limit 240 >"$tmp/$1.out" 2>&1
    # the CPU seconds of the run and its children (user + system), not the wall clock: a loaded
    # machine stretches the wall clock, never the work the reader does
    secs=$(python3 -c '
import resource, subprocess, sys
with open(sys.argv[2], "w") as out:
    rc = subprocess.run(["timeout", "60", sys.argv[1], "kernel", sys.argv[3], "--model", "--block", "32"],
                        stdout=out, stderr=subprocess.STDOUT).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %d" % (r.ru_utime + r.ru_stime, rc))' "$BANKLAB" "$tmp/$1.out" "$tmp/$1.cu")
    rc=${secs#* } secs=${secs% *}
    echo "reader_speed: $1 ($(wc -l <"$tmp/$1.cu") lines): $secs s of CPU (exit $rc)"
    [ "$rc" = 0 ] || fail "$1: --model exited $rc (124: over 60 s)"
    if awk -v s="$secs" -v b="$BOUND" 'BEGIN { exit !(s < b) }'; then ok; else
        fail "$1: --model took $secs s, over $BOUND s"
    fi
    grep -q "^$2 lines predicted by the model, 0 not" "$tmp/$1.out" ||
        fail "$1: not $2 lines predicted: $(grep 'lines predicted' "$tmp/$1.out")"
}

timed helpers 2
helpers_k=10002                                 # the kernel's first line
for n in 5 7; do
    row=$(awk -v l=$((helpers_k + n - 1)) '$1 == l && /\|/ { print; exit }' "$tmp/helpers.out")
    set -- $row
    want=1; [ "$n" = 7 ] && want=32
    [ $# -ge 3 ] && [ "$3" = "$want" ] || fail "helpers: line $((helpers_k + n - 1)): $row (want $want wavefronts)"
done
timed main 2
timed guard 2000
# t * m for m = i % 33 over one warp: the ways are gcd(m, 32) for m > 0, 1 for m = 0 (one word)
awk -F'|' 'NR > 3 && $1 ~ /^ *[0-9]+ +1 +[0-9]+/ { split($1, f, " "); m = (f[1] - 6) % 33
           g = 1; if (m > 0) { a = m; b = 32; while (b) { t = b; b = a % b; a = t }; g = a }
           if (f[3] != g) { print "line " f[1] ": " f[3] " wavefronts, want " g; bad++ } }
           END { exit bad > 0 }' "$tmp/guard.out" >"$tmp/bad" || fail "guard: $(head -n 3 "$tmp/bad")"
finish
