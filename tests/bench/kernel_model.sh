#!/bin/sh
# kernel_model.sh: what `banklab kernel FILE.cu --model` costs on the seed transpose
# (assets/kernels/transpose_seed.cu: 1024 blocks of 1024 threads), in a fresh kernel cache:
#   cold      nothing cached (a first run, or the first after an edit): nvcc once, the
#             execution, the report
#   executed  the cubin and the PTX cached, the executed figures not: the execution alone
#             beside a warm run, so the executor's rate on a real kernel is
#             lane-instructions / (executed - warm) CPU seconds
#   warm      everything cached (a second run of an unchanged file)
# Each: wall and CPU seconds (user + sys, banklab and its children), the median of RUNS
# (default 3). Env: BANKLAB, RUNS, FILE. Exits 77 without nvcc, 1 when a run fails.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${RUNS:=3}"
: "${FILE:=assets/kernels/transpose_seed.cu}"
nvcc=${BANKLAB_NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "kernel_model: no nvcc (--model compiles with it)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export CUDA_VISIBLE_DEVICES= BANKLAB_KERNEL_SERVER=0 XDG_CACHE_HOME="$tmp/cache"
python3 - "$BANKLAB" "$FILE" "$RUNS" "$tmp/cache/banklab/kernels" <<'EOF'
import glob, json, os, resource, shutil, statistics, subprocess, sys, time
banklab, path, runs, cache = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def one(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([banklab, "kernel", path, "--model"] + args, capture_output=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.stdout.write(p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace"))
        sys.exit("kernel_model: banklab kernel %s --model failed (exit %d)" % (path, p.returncode))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p.stdout

def drop(kind):
    for f in glob.glob(os.path.join(cache, "*." + kind)):
        os.unlink(f)

res = {"cold": [], "executed": [], "warm": []}
for _ in range(runs):
    shutil.rmtree(cache, ignore_errors=True)
    res["cold"].append(one([])[:2])
    drop("exec")
    res["executed"].append(one([])[:2])
    res["warm"].append(one([])[:2])
steps = json.loads(one(["--json"])[2])["lane_instructions"]
med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
       for k, v in res.items()}
for k in ("cold", "executed", "warm"):
    print("kernel --model %s, %s: %.2f s wall, %.2f s CPU (median of %d)"
          % (os.path.basename(path), k, med[k][0], med[k][1], runs))
ex = med["executed"][1] - med["warm"][1]
print("the execution: %d lane-instructions in %.3f s CPU: %.3g lane-instructions/s"
      % (steps, ex, steps / ex if ex > 0 else float("nan")))
print("load average: %s" % open("/proc/loadavg").read().split()[0])
EOF
