#!/bin/sh
# kernel_nvrtc.sh: `banklab kernel FILE.cu --model` compiles a fix's copy of a kernel-only file
# with the NVRTC of nvcc's toolkit (compile/rtc.c, a child under the compiler guard) instead of a
# second nvcc, and prints the same bytes as with nvcc alone. Two toolkits of shims that count
# nvcc's runs: nv/ (nvcc only: no lib64) and rt/ (lib64 and include of the real toolkit beside
# its nvcc). For every kernel-only .cu the repository ships (assets/kernels, tests/gpu/kernels)
# both print the same report and exit status; rt/ runs nvcc once for transpose_seed.cu (its
# cubin and PTX) where nv/ runs it twice (the padded copy too); a copy NVRTC refuses (a host
# header) goes to nvcc with the same report; a second run runs neither. Needs nvcc and its
# toolkit's libnvrtc (SKIP without).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
. tests/sh/lib.sh kernel_nvrtc.sh
sandbox
real=${BANKLAB_NVCC:-}
[ -n "$real" ] || real=$(command -v nvcc 2>/dev/null) || real=/usr/local/cuda/bin/nvcc
[ -x "$real" ] || { echo "SKIP: no nvcc"; exit 77; }
root=$(cd "$(dirname "$(readlink -f "$real")")/.." && pwd)
[ -e "$root/lib64/libnvrtc.so" ] || { echo "SKIP: no libnvrtc in $root/lib64"; exit 77; }
export CUDA_VISIBLE_DEVICES= BANKLAB_KERNEL_SERVER=0 XDG_RUNTIME_DIR="$tmp/run"
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"
for t in nv rt; do
    mkdir -p "$tmp/$t/bin"
    cat >"$tmp/$t/bin/nvcc" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/$t.calls"
exec "$real" "\$@"
EOF
    chmod +x "$tmp/$t/bin/nvcc"
done
ln -s "$root/lib64" "$tmp/rt/lib64"
ln -s "$root/include" "$tmp/rt/include"

# run TOOLKIT NAME FILE ARGS...: the report into $tmp/TOOLKIT.NAME, its status after it
run() {
    run_t=$1 run_n=$2
    shift 2
    : >"$tmp/$run_t.calls"
    BANKLAB_NVCC="$tmp/$run_t/bin/nvcc" XDG_CACHE_HOME="$tmp/cache.$run_t" "$BANKLAB" kernel "$@" --model \
        >"$tmp/$run_t.$run_n" 2>&1
    echo "exit $?" >>"$tmp/$run_t.$run_n"
}
calls() { wc -l <"$tmp/$1.calls" | tr -d ' '; }

# the seed transpose: its padded copy is executed to check the fix
cp assets/kernels/transpose_seed.cu "$tmp/t.cu"
run nv seed "$tmp/t.cu"
nv_calls=$(calls nv)
run rt seed "$tmp/t.cu"
rt_calls=$(calls rt)
if [ "$nv_calls" = 2 ] && [ "$rt_calls" = 1 ]; then
    ok "transpose_seed.cu cold: nvcc twice alone, once with NVRTC for the padded copy"
else
    fail "transpose_seed.cu cold: nvcc runs $nv_calls (nvcc alone, want 2), $rt_calls (want 1)"
fi
if cmp -s "$tmp/nv.seed" "$tmp/rt.seed" && grep -q "padding\|pad" "$tmp/rt.seed"; then
    ok "transpose_seed.cu: the same report, its fix checked"
else
    fail "transpose_seed.cu: the reports differ (or no fix)"; diff "$tmp/nv.seed" "$tmp/rt.seed" | head -20
fi
run rt seed2 "$tmp/t.cu"
if [ "$(calls rt)" = 0 ] && cmp -s "$tmp/rt.seed" "$tmp/rt.seed2"; then
    ok "transpose_seed.cu warm: no compiler, the same report"
else
    fail "transpose_seed.cu warm: nvcc ran $(calls rt) times, or the report changed"
fi

# a host header NVRTC cannot open: the copy goes to nvcc, the report is nvcc's
cat >"$tmp/h.cu" <<'EOF'
// banklab: --block 32x32
#include <cstdint>
__global__ void column(float *out)
{
    __shared__ float tile[32][32];
    uint32_t x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = (float)x;
    __syncthreads();
    out[y * 32 + x] = tile[x][y];
}
EOF
run nv host "$tmp/h.cu"
nv_calls=$(calls nv)
run rt host "$tmp/h.cu"
if cmp -s "$tmp/nv.host" "$tmp/rt.host" && [ "$(calls rt)" = "$nv_calls" ] && [ "$nv_calls" -ge 2 ]; then
    ok "a copy with <cstdint>: NVRTC refuses it, nvcc compiles it ($nv_calls runs), the same report"
else
    fail "a copy with <cstdint>: nvcc runs $(calls rt) (nvcc alone: $nv_calls), or the reports differ"
    diff "$tmp/nv.host" "$tmp/rt.host" | head -20
fi

# every shipped kernel-only file: the same report and status either way. A file without a
# conflicting line (no "why:" in its report) has no fix to check, so no copy to compile: nvcc
# alone compiles it with either toolkit, and it is run once
same=0 differ=0 plain=0
for f in assets/kernels/*.cu tests/gpu/kernels/*.cu; do
    grep -q 'main *(' "$f" && continue
    n=$(basename "$f" .cu)
    run rt "k_$n" "$f"
    if ! grep -q "why:" "$tmp/rt.k_$n" && grep -q "^exit 0" "$tmp/rt.k_$n"; then
        same=$((same + 1)) plain=$((plain + 1))
        continue
    fi
    run nv "k_$n" "$f"
    if cmp -s "$tmp/nv.k_$n" "$tmp/rt.k_$n"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "differs: $f"
        diff "$tmp/nv.k_$n" "$tmp/rt.k_$n" | head -10
    fi
done
if [ "$differ" = 0 ] && [ "$same" -gt 20 ]; then
    ok "$same shipped kernel-only files: the same report with NVRTC for the fixes' copies ($((same - plain)) with a conflicting line, run both ways; $plain without, run once)"
else
    fail "$differ of $((same + differ)) shipped kernel-only files report otherwise with NVRTC"
fi
finish
