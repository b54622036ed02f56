"""cupy_ops.py: a CuPy program as people write one: a 2048x2048 matmul (cuBLAS), a row
softmax and a sum written with CuPy's array operations (its own elementwise and reduction
kernels, compiled at run time), and a RawKernel that transposes through a padded shared tile,
synchronised and checked. `banklab run -- python3 cupy_ops.py` measures every kernel CuPy
launches; tests/gpu/sanroute.sh times it plain and under the sanitizer route. Without CuPy:
exit 77."""
import sys
import time

try:
    import cupy as cp
except ImportError:
    print("SKIP: no CuPy here")
    sys.exit(77)

TRANSPOSE = r'''
extern "C" __global__ void tile_transpose(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
'''


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    rs = cp.random.RandomState(0)
    a = rs.standard_normal((n, n), dtype=cp.float32)
    b = rs.standard_normal((n, n), dtype=cp.float32)
    t0 = time.time()
    c = a @ b
    e = cp.exp(c[:256] - c[:256].max(axis=1, keepdims=True))
    s = e / e.sum(axis=1, keepdims=True)
    k = cp.RawKernel(TRANSPOSE, "tile_transpose", options=("-lineinfo",))
    t = cp.empty_like(a)
    k((n // 32, n // 32), (32, 8), (a, t, cp.int32(n)))
    cp.cuda.runtime.deviceSynchronize()
    ok = (abs(float(s.sum()) - 256.0) < 1e-2 and bool(cp.array_equal(t, a.T)))
    print("cupy_ops: %s in %.3f s" % ("ok" if ok else "WRONG", time.time() - t0))
    return 0 if ok else 1


sys.exit(main())
