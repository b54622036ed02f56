#!/bin/sh
# predict.sh (make test-gpu): the model's per-line prediction against the GPU. For every
# shipped example (assets/kernels/*.cu) and the kernels with a conflicting line in
# tests/gpu/kernels/ (not fault/hang/printf; a file of several kernels: each by --name), `banklab kernel FILE --json` measures the lines
# and carries the model's prediction; every line the model predicts must have predicted
# wavefronts equal to the measured ones (a predicted line that measured nothing counts as 0);
# how many also agree in instructions and ideal is reported (a guarded access the compiler
# predicates instead of branching around is issued, and counted, by warps with no lane
# active: the model does not count those). Then, where the model proposes a fix (--model), `banklab
# kernel COPY --fix --json` writes COPY.fixed.cu and measures it: the fixed line must be
# conflict free (measured excess 0). Every step is bounded by `timeout`; logs and JSON go to
# ${PREDICT_OUT:-/tmp/predict}; a summary table at the end. Without a GPU: SKIP (77).
# Env: BANKLAB (default build/banklab), PREDICT_OUT, STEP_TIMEOUT (seconds, default 120).
set -u
B=${BANKLAB:-build/banklab}
out=${PREDICT_OUT:-/tmp/predict}
T=${STEP_TIMEOUT:-120}
mkdir -p "$out" || exit 1
rm -rf "$out/fix" && mkdir -p "$out/fix"
: "${BANKLAB_KERNEL_SERVER:=30}"
export XDG_CACHE_HOME="$out/cache" BANKLAB_KERNEL_SERVER
timeout "$T" "$B" kernel assets/kernels/strided.cu --json > "$out/probe.json" 2> "$out/probe.err"
rc=$?
if [ $rc = 3 ]; then
    echo "SKIP: $(tail -n 1 "$out/probe.err")"
    exit 77
fi
[ $rc = 0 ] || { echo "FAIL: the probe run failed (exit $rc): $(tail -n 3 "$out/probe.err")"; exit 1; }
command -v python3 > /dev/null || { echo "FAIL: python3 is needed to read the JSON"; exit 1; }

fail=0
: > "$out/summary.txt"
check_lines() { # JSON: prints "N W I D": predicted lines, equal in wavefronts, in inst, in ideal
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
meas = {l["line"]: l for l in d["lines"] if l["file"] == d["lines"][0]["file"]} if d["lines"] else {}
n = ok = oki = okd = 0
for m in d.get("model") or []:
    if "wavefronts" not in m:
        continue
    n += 1
    g = meas.get(m["line"], {"inst": 0, "wavefronts": 0, "ideal": 0})
    same = m["wavefronts"] == g.get("wavefronts")
    ok += same
    oki += m["inst"] == g.get("inst")
    okd += m["ideal"] == g.get("ideal")
    if not (same and m["inst"] == g.get("inst") and m["ideal"] == g.get("ideal")):
        print("  line %d: model inst %g wavefronts %g ideal %g, measured inst %g wavefronts %g ideal %s"
              % (m["line"], m["inst"], m["wavefronts"], m["ideal"], g.get("inst", 0),
                 g.get("wavefronts", 0), g.get("ideal")), file=sys.stderr)
print(n, ok, oki, okd)
PY
}
fixed_excess() { # JSON LINE: the measured excess of the line (0 when it measured nothing)
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); l=[x for x in d["lines"] if x["line"]==int(sys.argv[2]) and x["file"]==d["lines"][0]["file"]]
print(int(l[0]["excess"]) if l else 0)' "$1" "$2"
}

row() { printf "%-22s %5s %5s %5s %5s %4s %6s  %s\n" "$@" | tee -a "$out/summary.txt"; }
row kernel lines wf= inst= ideal= fix excess result
echo "(lines: predicted; wf=, inst=, ideal=: of them equal to the measured; fix: the line fixed;" \
     "excess: its measured excess after the fix)" | tee -a "$out/summary.txt"
# one FILE LABEL [--name K]: measure, compare, fix one kernel
one() {
    f=$1 name=$2; shift 2
    extra="$*"                  # --name K (no spaces) or nothing
    # shellcheck disable=SC2086
    timeout "$T" "$B" kernel "$f" $extra --json > "$out/$name.json" 2> "$out/$name.err"
    rc=$?
    if [ $rc != 0 ]; then
        row "$name" - - - - - - "FAIL (banklab kernel exit $rc)"
        fail=1; return
    fi
    set -- $(check_lines "$out/$name.json" 2> "$out/$name.diff")
    n=${1:-0} eq=${2:-0} eqi=${3:-0} eqd=${4:-0}
    res=ok
    [ "$n" = "$eq" ] || { res="FAIL (lines differ: $name.diff)"; fail=1; }
    # shellcheck disable=SC2086
    timeout "$T" "$B" kernel "$f" $extra --model > "$out/$name.model.txt" 2>&1
    fixline=- fexc=-
    if grep -q "^ *note: " "$out/$name.model.txt"; then
        cp "$f" "$out/fix/$name.cu"
        # shellcheck disable=SC2086
        timeout "$T" "$B" kernel "$out/fix/$name.cu" $extra --fix --json > "$out/$name.fixed.json" 2> "$out/$name.fix.err"
        rc=$?
        fixline=$(sed -n 's/^.*\.cu:\([0-9]*\): note: .*/\1/p' "$out/$name.fix.err" | head -n 1)
        if [ $rc != 0 ] || [ -z "$fixline" ]; then
            res="FAIL (--fix exit $rc: $name.fix.err)"; fail=1; fixline=?
        else
            fexc=$(fixed_excess "$out/$name.fixed.json" "$fixline")
            [ "$fexc" = 0 ] || { res="FAIL (the fixed line still conflicts)"; fail=1; }
            set -- $(check_lines "$out/$name.fixed.json" 2>> "$out/$name.diff")
            [ "${1:-0}" = "${2:-0}" ] || { [ "$res" = ok ] && res="FAIL (fixed copy: lines differ: $name.diff)"; fail=1; }
        fi
    fi
    row "$name" "$n" "$eq" "$eqi" "$eqd" "$fixline" "$fexc" "$res"
}
for f in assets/kernels/*.cu tests/gpu/kernels/*.cu; do
    base=$(basename "$f" .cu)
    case $base in fault|hang|printf) continue ;; esac
    # a file of several kernels (launched from its main): each by its name
    ks=$(sed -n 's/^__global__ void \([A-Za-z_0-9]*\)(.*/\1/p' "$f")
    if [ "$(echo "$ks" | wc -w)" -gt 1 ]; then
        for k in $ks; do one "$f" "$base.$k" --name "$k"; done
    else
        one "$f" "$base"
    fi
done
echo "logs: $out (summary.txt, NAME.json, NAME.diff, NAME.model.txt, NAME.fixed.json)"
[ $fail = 0 ] && echo "predict.sh: pass" || echo "predict.sh: FAIL"
exit $fail
