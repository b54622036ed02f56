#!/bin/sh
# matrix_table.sh: measure the table behind the matrix-instruction model on a GPU
# with Nsight Compute, without banklab's own CUPTI code: builds tests/gpu/matrix_table.cu
# (nvcc -arch=sm_90 -lineinfo), prints the ncu metrics this chip has for LDSM, STSM and
# LDGSTS, runs every case once without ncu (cycles per instruction, the lane-to-row data
# checks) and then under ncu (one warp, 100 instructions a launch), and writes the table
# (tests/data/h200-matrix.json's format) and the log into OUT (default $OUT or ./matrix-out).
# Exit 77 (SKIP) without nvcc, ncu or a GPU.
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-./matrix-out}}
mkdir -p "$out"
log="$out/matrix-log.txt"
exec > "$log" 2>&1
t0=$(date +%s)
say() { echo "== $* ($(($(date +%s) - t0)) s)"; }
for tool in nvcc ncu nvidia-smi python3; do
    command -v $tool > /dev/null 2>&1 || { echo "SKIP: no $tool"; exit 77; }
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || { echo "SKIP: no GPU"; exit 77; }
date -u
ncu --version | tail -1
nvcc --version | tail -2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say build
nvcc -arch=sm_90 -lineinfo -o "$tmp/mt" "$here/matrix_table.cu" || { echo "FAIL: build"; exit 1; }
command -v cuobjdump > /dev/null 2>&1 &&
    cuobjdump -sass "$tmp/mt" | grep -E 'Function|LDSM|STSM|LDGSTS|LDS|STS|BRA' > "$out/matrix-sass.txt"

say metrics this chip has for ldsm, stsm, ldgsts
ncu --query-metrics > "$tmp/q.txt" 2>&1
grep -i -E 'ldsm|stsm|ldgsts' "$tmp/q.txt"
have() { grep -q -E "^$1([[:space:]]|\$)" "$tmp/q.txt"; }
list=""
for m in \
    smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st \
    smsp__inst_executed_op_ldsm smsp__inst_executed_op_stsm smsp__inst_executed_op_ldgsts \
    smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st \
    smsp__sass_inst_executed_op_ldsm smsp__sass_inst_executed_op_shared_stsm \
    smsp__sass_inst_executed_op_stsm smsp__sass_inst_executed_op_ldgsts \
    smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal \
    l1tex__data_pipe_lsu_wavefronts_mem_shared \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts \
    $(grep -o -E '^[a-z0-9_]*(wavefronts|bank_conflicts)[a-z0-9_]*(ldsm|stsm|ldgsts)[a-z0-9_]*' "$tmp/q.txt"); do
    case " $list " in *" $m.sum "*) continue ;; esac
    if have "$m"; then list="$list $m.sum"; else echo "not on this chip: $m"; fi
done
[ -n "$list" ] || list="smsp__sass_inst_executed_op_ldsm.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum"
metrics=$(echo $list | tr ' ' ',')
say "metrics read: $metrics"

say run without ncu: cycles and data checks
"$tmp/mt" list > "$tmp/cases.jsonl" || { echo "FAIL: list"; exit 1; }
n=$(wc -l < "$tmp/cases.jsonl")
"$tmp/mt" run > "$tmp/run.jsonl" || { echo "FAIL: run"; cat "$tmp/run.jsonl"; exit 1; }
grep check "$tmp/run.jsonl"

# under ncu in chunks, each its own report, so a run cut short keeps what it measured
chunk=45
first=0
parts=""
while [ "$first" -lt "$n" ]; do
    if [ $(($(date +%s) - t0)) -gt 230 ]; then
        echo "TIME: cases $first.. not profiled (over 230 s)"
        break
    fi
    say "ncu cases $first..$((first + chunk - 1)) of $n"
    timeout 200 ncu --clock-control none --kernel-name regex:m_kernel --metrics "$metrics" \
        -o "$tmp/rep$first" "$tmp/mt" run "$first" "$chunk" > "$tmp/ncu$first.out" 2>&1
    rc=$?
    tail -3 "$tmp/ncu$first.out"
    [ $rc -eq 0 ] || echo "ncu exit $rc"
    ncu -i "$tmp/rep$first.ncu-rep" --csv --page details --print-units base > "$tmp/ncu$first.csv" 2>&1 &&
        parts="$parts $first:$tmp/ncu$first.csv"
    first=$((first + chunk))
done
say merge
python3 "$here/matrix_merge.py" "$tmp/cases.jsonl" "$tmp/run.jsonl" "$out/h200-matrix.json" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" "$(ncu --version | tail -1)" $parts
rc=$?
cat "$tmp"/ncu*.csv > "$out/matrix-ncu.csv" 2>/dev/null
cat "$tmp/run.jsonl"
say done
exit $rc
