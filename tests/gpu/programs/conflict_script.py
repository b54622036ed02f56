"""conflict_script.py: a Python program that compiles a CUDA kernel at run time and launches it
with a 32-way shared-memory conflict (a column read of tile[32][32]), as a CuPy RawKernel does.
With CuPy: cupy.RawKernel (options -lineinfo). Without it: the same through ctypes, NVRTC and
the driver API (what CuPy does underneath). `banklab run -- python3 conflict_script.py` shows
the kernel's lines and figures. The kernel's source is written beside this file so the line
info names a file banklab can read."""
import ctypes
import os
import sys

SRC = r'''
extern "C" __global__ void py_column(float *out)
{
    __shared__ float tile[32][32];
    int x = threadIdx.x & 31, y = threadIdx.x >> 5;
    tile[y][x] = (float)x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[x][y];
}
'''
GRID, BLOCK = 8, 1024


def with_cupy():
    import cupy
    k = cupy.RawKernel(SRC, "py_column", options=("-lineinfo",))
    out = cupy.zeros(GRID * BLOCK, dtype=cupy.float32)
    k((GRID,), (BLOCK,), (out,))
    cupy.cuda.runtime.deviceSynchronize()
    print("cupy: py_column ran, out[33] =", float(out[33]))


def check(r, what):
    if r != 0:
        sys.exit("%s failed: %d" % (what, r))


def with_ctypes():
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "banklab_py_column.cu")
    with open(path, "w") as f:
        f.write(SRC)
    nvrtc = None
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for name in ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                 home + "/lib64/libnvrtc.so.13", home + "/lib64/libnvrtc.so",
                 "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so"):
        try:
            nvrtc = ctypes.CDLL(name)
            break
        except OSError:
            pass
    if nvrtc is None:
        sys.exit("no NVRTC")
    cuda = ctypes.CDLL("libcuda.so.1")
    P, U, VP = ctypes.POINTER, ctypes.c_uint, ctypes.c_void_p
    nvrtc.nvrtcCreateProgram.argtypes = [P(VP), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                         VP, VP]
    nvrtc.nvrtcCompileProgram.argtypes = [VP, ctypes.c_int, P(ctypes.c_char_p)]
    nvrtc.nvrtcGetCUBINSize.argtypes = [VP, P(ctypes.c_size_t)]
    nvrtc.nvrtcGetCUBIN.argtypes = [VP, ctypes.c_char_p]
    cuda.cuCtxSetCurrent.argtypes = [VP]
    cuda.cuModuleLoadData.argtypes = [P(VP), ctypes.c_char_p]
    cuda.cuModuleGetFunction.argtypes = [P(VP), VP, ctypes.c_char_p]
    cuda.cuMemAlloc_v2.argtypes = [P(ctypes.c_uint64), ctypes.c_size_t]
    cuda.cuLaunchKernel.argtypes = [VP, U, U, U, U, U, U, U, VP, P(VP), P(VP)]
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    major, minor = ctypes.c_int(), ctypes.c_int()
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    prog = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), SRC.encode(), path.encode(), 0, None, None),
          "nvrtcCreateProgram")
    arch = ("--gpu-architecture=sm_%d%d" % (major.value, minor.value)).encode()
    opts = (ctypes.c_char_p * 2)(arch, b"-lineinfo")
    check(nvrtc.nvrtcCompileProgram(prog, 2, opts), "nvrtcCompileProgram")
    size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
    cubin = ctypes.create_string_buffer(size.value)
    check(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(mod), cubin), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"py_column"), "cuModuleGetFunction")
    buf = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(buf), GRID * BLOCK * 4), "cuMemAlloc")
    arg = ctypes.c_uint64(buf.value)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
    check(cuda.cuLaunchKernel(fn, GRID, 1, 1, BLOCK, 1, 1, 0, None, params, None), "cuLaunchKernel")
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    print("ctypes + NVRTC: py_column ran (source %s)" % path)


if __name__ == "__main__":
    try:
        import cupy  # noqa: F401
        have_cupy = os.environ.get("NO_CUPY") is None
    except ImportError:
        have_cupy = False
    with_cupy() if have_cupy else with_ctypes()
