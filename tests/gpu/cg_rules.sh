#!/bin/sh
# cg_rules.sh OUT: cp.async.cg's and cp.async.ca's shared-side wavefronts per pattern
# (cg_rules.cu says which), measured by banklab run's CUPTI route (the SASS metrics count .cg)
# and priced by the sanitizer route; OUT/cg_rules.txt (the program's patterns) and the two
# JSON files. docs/model.md reads them. Exit 77 (SKIP) without nvcc or a GPU.
set -u
out=${1:?usage: cg_rules.sh OUT}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
B=${BANKLAB:-build/banklab}
command -v nvcc >/dev/null 2>&1 || PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
command -v nvcc >/dev/null 2>&1 || { echo "SKIP: no nvcc"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
nvcc -O3 -lineinfo -arch=sm_90 -o "$out/cg_rules" "$here/cg_rules.cu" > "$out/nvcc.txt" 2>&1 ||
    { echo "FAIL: nvcc: $(tail -n 3 "$out/nvcc.txt")"; exit 1; }
"$out/cg_rules" > "$out/cg_rules.txt" 2>&1 || { echo "FAIL: the probe: $(tail -n 2 "$out/cg_rules.txt")"; exit 1; }
"$B" run --route cupti --json -- "$out/cg_rules" > "$out/cupti.json" 2> "$out/cupti.err"
echo "cg_rules: CUPTI route exit $?"
"$B" run --route sanitizer --launch-count 1000 --json -- "$out/cg_rules" > "$out/san.json" 2> "$out/san.err"
echo "cg_rules: sanitizer route exit $?"
python3 - "$out" <<'PY'
import json, sys
o = sys.argv[1]
names = [l.split(" | ")[0] for l in open(o + "/cg_rules.txt")]
for route in ("cupti", "san"):
    try:
        d = json.load(open("%s/%s.json" % (o, route)))
    except Exception as e:
        print(route, "unreadable:", e); continue
    for i, l in enumerate(d.get("launches", [])):
        rows = [(x.get("line"), x.get("sass", x.get("op")), x.get("inst", x.get("instructions")), x.get("wavefronts"),
                 x.get("ideal")) for x in l.get("instructions") or l.get("lines", [])]
        print(route, i, names[i][:60] if i < len(names) else "?", rows)
PY
