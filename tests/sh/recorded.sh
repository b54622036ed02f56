#!/bin/sh
# recorded.sh: without a GPU, `banklab sim` and `banklab lab` show the figures of the shipped
# H200 recording (assets/h200-recording.json) where it holds the access, labelled with the GPU
# and the date, and say so where it does not; --model-only and BANKLAB_MODEL_ONLY=1 give the
# model alone, and --json stays the model's unless --replay or --gpu. The recording is found
# beside the build directory from any working directory, through $BANKLAB_ASSETS, and a
# binary that finds none shows the model. (The tutorial: tui_recorded.sh.)
set -u
. tests/sh/lib.sh recorded.sh
sandbox
unset BANKLAB_MODEL_ONLY BANKLAB_ASSETS
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "SKIP: a GPU is here (the lab measures on it; the recording stands in only without one)"
    exit 77
fi
S32='__shared__ float s[1024]; s[lane * 32]'
LABEL='recorded on NVIDIA H200 \(sm_90\), 2026-12-03'

# --- sim: the recorded counters and time under the model's grid, from another directory
mkdir -p "$tmp/elsewhere"
(cd "$tmp/elsewhere" && "$BANKLAB" sim "$S32") >"$tmp/o" 2>&1; rc=$?
[ $rc = 0 ] && grep -qE "^measured \($LABEL\):$" "$tmp/o" &&
    grep -q "^  32.00 wavefronts, 31.00 conflicts per warp instruction (hardware counters)$" "$tmp/o" &&
    grep -qE "^  16\.[0-9]+ ns per warp access" "$tmp/o" &&
    ok "sim: the recorded figures by default" || fail "sim default: exit $rc, $(tail -3 "$tmp/o")"
python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$tmp/o" &&
    ok || fail "sim default: a line wider than 80 columns"
# not recorded: the model, and the text says so
"$BANKLAB" sim '__shared__ float s[1024]; s[lane % 7]' >"$tmp/o" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^measured: none: no recorded measurement for this access$" "$tmp/o" &&
    grep -qE "^  \($LABEL\)$" "$tmp/o" && ok "sim: not recorded, said so" ||
    fail "sim not recorded: exit $rc, $(tail -3 "$tmp/o")"
# the model alone
for how in --model-only env; do
    if [ $how = env ]; then BANKLAB_MODEL_ONLY=1 "$BANKLAB" sim "$S32" >"$tmp/o" 2>&1
    else "$BANKLAB" sim "$S32" --model-only >"$tmp/o" 2>&1; fi
    grep -q "^measured" "$tmp/o" && fail "sim $how: measured lines" || ok "sim $how: the model alone"
done
"$BANKLAB" sim "$S32" --json >"$tmp/o" 2>&1
python3 -c 'import json,sys; sys.exit("measured" in json.load(open(sys.argv[1])))' "$tmp/o" &&
    ok "sim --json: the model's" || fail "sim --json: measured by default"
# an installed copy that finds no recording: the model; with $BANKLAB_ASSETS: the recording
mkdir -p "$tmp/bin" && cp "$BANKLAB" "$tmp/bin/banklab"
if [ ! -e "$(strings "$BANKLAB" | grep -m1 '/share/banklab$')/assets/h200-recording.json" ]; then
    (cd "$tmp/elsewhere" && "$tmp/bin/banklab" sim "$S32") >"$tmp/o" 2>&1; rc=$?
    [ $rc = 0 ] && ! grep -q "^measured" "$tmp/o" && ok "no recording found: the model" ||
        fail "no recording found: exit $rc, $(tail -2 "$tmp/o")"
fi
(cd "$tmp/elsewhere" && BANKLAB_ASSETS="$root/assets" "$tmp/bin/banklab" sim "$S32") >"$tmp/o" 2>&1
grep -qE "^measured \($LABEL\):$" "$tmp/o" && ok "BANKLAB_ASSETS: the recording" ||
    fail "BANKLAB_ASSETS: $(tail -2 "$tmp/o")"

# --- lab: graded against the recorded counters, and the header says why
LAB=lessons/10-lab-workshop.json
"$BANKLAB" lab $LAB --no-save --answers PAD=1 >"$tmp/o" 2>&1; rc=$?
tr '\n' ' ' <"$tmp/o" | grep -qE "GPU: none here \(.*\), so the counters are the shipped +recording's, +recorded on NVIDIA H200" &&
    grep -qE "^Measured \(recorded on NVIDIA H200" "$tmp/o" && [ $rc = 0 ] &&
    ok "lab: the recorded counters by default" || fail "lab default: exit $rc, $(head -6 "$tmp/o")"
"$BANKLAB" lab $LAB --no-save --model-only --answers PAD=1 >"$tmp/o" 2>&1
grep -q "graded by the model" "$tmp/o" && ! grep -q "^Measured" "$tmp/o" &&
    ok "lab --model-only: the model" || fail "lab --model-only: $(head -4 "$tmp/o")"
"$BANKLAB" lab $LAB --no-save --lang zh --answers PAD=1 >"$tmp/o" 2>&1
grep -q "所以计数器用随附的录制" "$tmp/o" && ok "lab zh: the header" || fail "lab zh: $(head -4 "$tmp/o")"
finish
