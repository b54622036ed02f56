#!/bin/sh
# cg_probe.sh: which Nsight Compute counters count cp.async.cg's and cp.async.ca's shared side
# on this GPU (cg_probe.cu says why). Builds cg_probe.cu (nvcc -arch=sm_90 -lineinfo), lists
# the chip's metrics that name ldgsts, and runs every launch under ncu with all of them, plus
# the SourceCounters source page of each launch. Output to ${OUT:-.}/cg_probe.txt.
# Exit 77 (SKIP) without nvcc, ncu or a GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
log="$out/cg_probe.txt"
for tool in nvcc ncu nvidia-smi; do
    command -v $tool > /dev/null 2>&1 || { echo "SKIP: no $tool"; exit 77; }
done
nvidia-smi -L > /dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1
    nvcc -arch=sm_90 -lineinfo -o "$tmp/cg" "$here/cg_probe.cu" || { echo "FAIL: build"; exit 1; }
    cuobjdump -sass "$tmp/cg" | grep -E 'Function|LDGSTS|LDS' || true
    "$tmp/cg"
    ncu --query-metrics > "$tmp/q.txt" 2>&1
    echo "== metrics naming ldgsts"
    grep -i -E '^[a-z_0-9]*ldgsts[a-z_0-9]* ' "$tmp/q.txt" | awk '{print $1}'
    list=""
    for m in $(grep -i -E '^[a-z_0-9]*ldgsts[a-z_0-9]* ' "$tmp/q.txt" | awk '$2 == "Counter" {print $1}') \
        smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared smsp__sass_inst_executed_op_shared_st \
        l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared; do
        grep -q -E "^$m[[:space:]]" "$tmp/q.txt" && list="$list${list:+,}$m.sum"
    done
    echo "== ncu --metrics $list"
    ncu --clock-control none --metrics "$list" "$tmp/cg" | grep -E 'cpa|\.sum'
    echo "== ncu --section SourceCounters, source page"
    ncu --clock-control none --section SourceCounters --print-details all --page source --csv "$tmp/cg" |
        grep -E 'cp.async|"#"' | cut -c1-600
} > "$log" 2>&1
echo "cg_probe: $log"
