#!/bin/sh
# ptx_h200.sh: every shipped kernel-only .cu (assets/kernels, tests/gpu/kernels) that
# tests/data/kernel/h200-lines.json measured on an H200 is executed by `banklab kernel FILE
# OPTIONS --model --json` (its PTX run on the CPU, src/ptx) and each shared line's executed
# inst, wavefronts and ideal are compared with the H200's. Prints one row per line, EQUAL,
# DIFFER (both figures) or REFUSED (the model has no figure: why), and the counts; a line the
# H200 charges to a toolkit header (atomicAdd's device_atomic_functions.hpp:107) is compared
# with the model's figure for the line of the file that calls it, the line the model charges
# it to. A file with host code (main) is a program: listed, not executed here. Fails when a kernel is not executed, or when fewer lines are equal than MIN_EQUAL
# (what this suite gave when it was written: a regression guard, not a goal). Needs nvcc.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${MIN_EQUAL:=96}"
. tests/sh/lib.sh ptx_h200.sh
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="${BANKLAB_TEST_CACHE:-$tmp/cache}" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"
if ! { [ -x "${BANKLAB_NVCC:-/usr/local/cuda/bin/nvcc}" ] || command -v nvcc >/dev/null 2>&1; }; then
    echo "ptx_h200.sh: SKIP: no nvcc to make the kernels' PTX"
    exit 77
fi
data=tests/data/kernel/h200-lines.json
python3 - "$data" > "$tmp/list" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["kernels"]:
    f = k["file"]
    if not (f.startswith("assets/kernels/") or f.startswith("tests/gpu/kernels/")):
        continue
    print(k["label"] + "\t" + f + "\t" + k["options"])
EOF
while IFS='	' read -r label file opts; do
    eval "set -- $opts"
    timeout 120 "$BANKLAB" kernel "$file" "$@" --model --json >"$tmp/$label.json" 2>"$tmp/$label.err"
    echo "$?" >"$tmp/$label.rc"
done <"$tmp/list"
python3 - "$data" "$tmp" "$MIN_EQUAL" <<'EOF' || fail "the executed lines against the H200's (above)"
import json, os, sys
d = json.load(open(sys.argv[1]))
tmp, min_equal = sys.argv[2], int(sys.argv[3])
eq = df = rf = 0
bad = []
for k in d["kernels"]:
    label, f = k["label"], k["file"]
    path = os.path.join(tmp, label + ".json")
    if not os.path.exists(path):
        continue
    try:
        m = json.load(open(path))
    except ValueError:
        bad.append(label + ": no JSON: " + open(os.path.join(tmp, label + ".err")).read().strip())
        continue
    if not m.get("executed"):
        if not m.get("exec_note"):  # a program (main): the runtime library's path, not this one
            print("PROGRAM %-22s %s: has host code, not executed here" % (label, f))
            continue
        bad.append(label + ": not executed: " + str(m.get("exec_note")))
    lines = {l["line"]: l for l in m.get("model", [])}
    h200_lines = {l["line"] for l in k["lines"] if l["file"] == f}
    for h in k["lines"]:
        line = h["line"]
        where = "%s:%d" % (os.path.basename(h["file"]), line)
        if h["file"] != f:  # a header's line: the model charges it to the calling line
            calls = [n for n in lines if n not in h200_lines and lines[n].get("inst")]
            line = calls[0] if len(calls) == 1 else None
            where += " (at line %s)" % line
        l = lines.get(line)
        want = (h["inst"], h["wavefronts"], h["ideal"])
        if l is None or "inst" not in l:
            rf += 1
            why = l.get("reason") if l else "no executed access on the line"
            print("REFUSED %-22s %-34s h200 %s: %s" % (label, where, want, why))
            continue
        got = (l["inst"], l["wavefronts"], l["ideal"])
        if got == want:
            eq += 1
            print("EQUAL   %-22s %-34s %s" % (label, where, want))
        else:
            df += 1
            print("DIFFER  %-22s %-34s h200 %s model %s" % (label, where, want, got))
print("lines: %d equal, %d differ, %d refused" % (eq, df, rf))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad or eq < min_equal else 0)
EOF
finish
