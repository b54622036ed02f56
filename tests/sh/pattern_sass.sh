#!/bin/sh
# pattern_sass.sh: the pattern kernel (kernels/pattern.cu) runs as many shared-memory
# instructions as it says: one loop trip of every kernel holds BL_PATTERN_UNROLL (32) of them.
# ptxas merged repeated ldmatrix of one address once (1 LDSM.x4 a trip: the H200's counters
# read 1/32 of the model, docs/runs/h200-2026-12-01-matrix.txt); this compiles pattern.cu for
# sm_90 and counts the shared instructions of each kernel with banklab's own SASS decoder
# (src/compile/sass.c), no GPU needed. SKIP (77) without nvcc. Env: BUILD.
NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
if [ -z "$NVCC" ]; then
    echo "SKIP: no nvcc"
    exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$NVCC" -cubin -arch=sm_90 -O3 -std=c++17 -o "$t/p.cubin" kernels/pattern.cu || { echo "FAIL: nvcc"; exit 1; }
cat > "$t/count.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "compile/compile.h"
/* count SYMBOL...: the shared-memory instructions of each function, by kind */
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        return 2;
    fclose(f);
    for (int i = 2; i < argc; i++) {
        const uint8_t *code;
        size_t sz;
        int count = 0;
        if (sass_function_code(b, (size_t)n, argv[i], &code, &sz))
            return 3;
        for (size_t k = 0; k + 16 <= sz; k += 16) {
            struct sass_insn s;
            count += sass_decode(code + k, &s);
        }
        printf("%s %d\n", argv[i], count);
    }
    return 0;
}
C
${CC:-cc} -I src -o "$t/count" "$t/count.c" src/compile/sass.c || { echo "FAIL: cc"; exit 1; }
syms=$(LC_ALL=C tr -c '[:print:]' '\n' < "$t/p.cubin" | sed -n 's/^\.text\.\(_Z[0-9]*\(pattern_kernel\|matrix_kernel\|cp_async_kernel\).*\)/\1/p' | sort -u)
[ -n "$syms" ] || { echo "FAIL: no pattern kernels in the cubin"; exit 1; }
"$t/count" "$t/p.cubin" $syms > "$t/counts" || { echo "FAIL: decode"; exit 1; }
fail=0
nk=0
while read -r sym n; do
    nk=$((nk + 1))
    # stores and cp.async unroll further (a remainder loop): at least one trip's worth
    if [ "$n" -lt 32 ]; then
        echo "FAIL: $sym: $n shared instructions, fewer than one loop trip (32)"
        fail=1
    fi
done < "$t/counts"
[ "$nk" -ge 25 ] || { echo "FAIL: only $nk pattern kernels"; fail=1; }
[ $fail = 0 ] && echo "pattern_sass.sh: $nk kernels, each with a loop trip of 32 shared instructions or more"
exit $fail
