#!/bin/sh
# xrt_compare.sh: banklab's CUDA runtime (src/xrt) against NVIDIA's on a GPU: tests/xrt/prog.cu
# (its kernels' results copied back, the error of each refused launch, cudaFuncSetAttribute
# past the opt-in, a copy with a host pointer as the device side, a double cudaFree, the
# device's properties) built with -cudart shared and run twice: once with NVIDIA's
# libcudart.so.13 on the GPU, once with build/xrt/libcudart.so.13 on the CPU. Their stdout must
# be the same line for line (an H100 PCIe's 114 SMs, where the runtime reports an SXM's 132, is
# the one expected difference). XRT_TEST_CALL=oob (a read 448 bytes past a 64-byte allocation)
# is shown, not compared: banklab's runtime faults on any byte outside an allocation, a GPU only
# past its allocation granularity.
# Without a GPU: SKIP (77). Run: sh tests/gpu/xrt_compare.sh (env BUILD, NVCC).
set -u
: "${BUILD:=build}"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
LIB=$(pwd)/$BUILD/xrt
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU ||
    { echo "SKIP: no GPU"; exit 77; }
[ -f "$LIB/libcudart.so.13" ] || { echo "FAIL: no $LIB/libcudart.so.13 (make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -arch=sm_90 -lineinfo -cudart shared -o "$tmp/prog" tests/xrt/prog.cu &&
    "$NVCC" -arch=sm_90 -lineinfo -ptx -o "$tmp/prog.ptx" tests/xrt/prog.cu || { echo "FAIL: nvcc"; exit 1; }
fail=0
for call in none oob; do
    XRT_TEST_CALL=$call "$tmp/prog" > "$tmp/gpu.$call" 2>&1
    echo "exit $?" >> "$tmp/gpu.$call"
    XRT_TEST_CALL=$call LD_LIBRARY_PATH=$LIB BANKLAB_XRT_PTX=$tmp/prog.ptx \
        BANKLAB_XRT_OUT=$tmp/rec.$call "$tmp/prog" > "$tmp/xrt.$call" 2>&1
    echo "exit $?" >> "$tmp/xrt.$call"
    if [ "$call" = oob ]; then echo "oob: on the GPU:"; cat "$tmp/gpu.$call"; echo "oob: banklab's:"; cat "$tmp/xrt.$call"
    elif cmp -s "$tmp/gpu.$call" "$tmp/xrt.$call"; then echo "ok   $call: the same output on the GPU and without it"
    else echo "FAIL $call: NVIDIA's runtime (<) and banklab's (>) differ:"; diff "$tmp/gpu.$call" "$tmp/xrt.$call"; fail=1; fi
done
exit $fail
