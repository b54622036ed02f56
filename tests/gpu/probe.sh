#!/bin/sh
# probe.sh: the experiments behind docs/gpu.md that are not part of banklab itself
# (tests/gpu/probe.cu): the copy ceiling and transpose variants, and where the whole-kernel
# counter offset comes from. Prints the probe's tables; exit 0 when every output was checked,
# 77 without a GPU or without the probe (a GPU=none build). Env: BUILD.
P=${GPU_PROBE:-${BUILD:-build}/tests/gpu_probe}
if [ ! -x "$P" ]; then
    echo "SKIP: $P not built (make GPU=cuda $P)"
    exit 77
fi
"$P" "${1:-all}"
