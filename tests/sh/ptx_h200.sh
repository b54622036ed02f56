#!/bin/sh
# ptx_h200.sh: every shipped kernel-only .cu (assets/kernels, tests/gpu/kernels) that
# tests/data/kernel/h200-lines.json measured on an H200 is executed by `banklab kernel FILE
# OPTIONS --model --json` (its PTX run on the CPU, src/ptx) and each shared line's executed
# inst, wavefronts and ideal are compared with the H200's. Prints one row per line, EQUAL,
# DIFFER (both figures) or REFUSED (the model has no figure: why), and the counts; a line the
# H200 charges to a toolkit header (atomicAdd's device_atomic_functions.hpp:107) is compared
# with the model's figure for the line of the file that calls it, the line the model charges
# it to. A file with host code (main) is a program: listed, not executed in this part. Fails when a kernel is not executed, or when fewer lines are equal than MIN_EQUAL
# (what this suite gave when it was written: a regression guard, not a goal). Needs nvcc.
# Then the programs (tests/gpu/programs, tests/gpu/route/eight.cu) that an H100 measured
# through banklab run's sanitizer route (tests/data/sanitize/NAME.run.json, equal to CUPTI per
# instruction: docs/runs/h100-2026-12-06-calls.md) run as a developer runs them, `banklab
# kernel FILE --model --json` with no options: main's own launches executed on banklab's
# runtime; every kernel's every recorded line compared the same way. Fails on a line that
# differs, a kernel not executed, or fewer equal lines than MIN_PROGRAM_EQUAL (69 of 69 since
# cp.async.cg has the H100's rule, docs/model.md; 68 before, eight.cu's .cg line refused).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${MIN_EQUAL:=106}" "${MIN_PROGRAM_EQUAL:=69}"
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
# the programs as developers run them, against the H100's recordings
progs=
for rec in tests/data/sanitize/*.run.json; do
    n=$(basename "$rec" .run.json)
    case $n in kernel_*) continue ;; esac  # a kernel-only file of assets/kernels: the first part
    progs="$progs $rec"
    f=tests/gpu/programs/$n.cu
    [ -f "$f" ] || f=tests/gpu/route/$n.cu
    [ -f "$f" ] || { fail "$rec: no program $n.cu"; continue; }
    BANKLAB_KERNEL_FIXES=0 timeout 200 "$BANKLAB" kernel "$f" --model --json >"$tmp/prog_$n.json" 2>"$tmp/prog_$n.err"
    echo "$?" >"$tmp/prog_$n.rc"
done
python3 - "$tmp" "$MIN_PROGRAM_EQUAL" $progs <<'EOF' || fail "the programs' executed lines against the H100's (above)"
import json, os, sys
tmp, min_equal = sys.argv[1], int(sys.argv[2])
eq = df = rf = 0
bad = []
for rec_path in sys.argv[3:]:
    n = os.path.basename(rec_path)[:-len(".run.json")]
    rec = json.load(open(rec_path))
    try:
        m = json.load(open(os.path.join(tmp, "prog_%s.json" % n)))
    except ValueError:
        bad.append("%s: no JSON (exit %s): %s" % (n, open(os.path.join(tmp, "prog_%s.rc" % n)).read().strip(),
                                                 open(os.path.join(tmp, "prog_%s.err" % n)).read().strip()[-300:]))
        continue
    kernels = {k["kernel"]: k for k in (m if isinstance(m, list) else [m])}
    for launch in rec["launches"]:
        k = kernels.get(launch["kernel"])
        if k is None or not k.get("executed"):
            bad.append("%s: kernel %s %s" % (n, launch["kernel"], "not reported" if k is None else
                                              "not executed: %s" % k.get("exec_note")))
            continue
        lines = {l["line"]: l for l in k["model"]}
        for h in launch["lines"]:
            where = "%s:%d" % (n, h["line"])
            want = (h["inst"], h["wavefronts"], h["ideal"])
            l = lines.get(h["line"])
            if l is None or "inst" not in l:
                rf += 1
                print("REFUSED %-16s %-16s h100 %s: %s" % (launch["kernel"], where, want,
                                                          l.get("reason") if l else "no executed access on the line"))
                continue
            got = (l["inst"], l["wavefronts"], l["ideal"])
            if got == want:
                eq += 1
                print("EQUAL   %-16s %-16s %s" % (launch["kernel"], where, want))
            else:
                df += 1
                print("DIFFER  %-16s %-16s h100 %s model %s" % (launch["kernel"], where, want, got))
print("programs' lines: %d equal, %d differ, %d refused" % (eq, df, rf))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad or df or eq < min_equal else 0)
EOF
finish
