"""torch_ops.py: a PyTorch program as people write one: a 4096x4096 matmul, a softmax and a
layer norm on the GPU, synchronised and checked. `banklab run -- python3 torch_ops.py` measures
every kernel PyTorch launches (cuBLAS's, PyTorch's own); tests/gpu/sanroute.sh times it plain
and under the sanitizer route."""
import sys
import time

import torch

def main():
    torch.manual_seed(0)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    t0 = time.time()
    c = a @ b
    s = torch.softmax(c[:256], dim=1)
    ln = torch.nn.functional.layer_norm(c[:256], (n,))
    torch.cuda.synchronize()
    ok = abs(float(s.sum()) - 256.0) < 1e-2 and abs(float(ln.mean())) < 1e-3
    print("torch_ops: %s in %.3f s" % ("ok" if ok else "WRONG", time.time() - t0))
    return 0 if ok else 1

sys.exit(main())
