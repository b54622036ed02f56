#!/bin/sh
# report.sh: `banklab report` end to end with a private HOME/XDG: the Markdown and JSON reports
# carry the saved quiz results, task results, explored patterns (predicted vs measured) and the
# device; only the chosen formats are written, only into the chosen directory (or the current
# one); the progress file is not touched; bad options, a missing directory and an unusable
# progress file exit 2 with a message. Needs $BANKLAB and python3. Exit 0 pass, 1 fail.
set -u
command -v python3 >/dev/null || { echo "report.sh: python3 is needed"; exit 1; }
. tests/sh/lib.sh report.sh

export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" TZ=UTC
unset XDG_CONFIG_HOME BANKLAB_LESSONS
mkdir -p "$HOME" "$XDG_STATE_HOME/banklab" "$tmp/cwd" "$tmp/out"
prog="$XDG_STATE_HOME/banklab/progress.json"
cat >"$prog" <<'EOF'
{"format": 1, "lesson": "lab-basic", "step": "warm-up", "lang": "en", "task_score": 2, "task_max": 3,
 "quiz": [
  {"lesson": "lab-basic", "step": "warm-up", "attempts": 2, "correct": true, "first_correct": false, "given": "5"},
  {"lesson": "what-is-a-bank", "step": "nope", "attempts": 1, "correct": true, "first_correct": true, "given": "a|b"},
  {"lesson": "lab:lab-basic", "step": "pad-column", "attempts": 1, "correct": true, "first_correct": true, "given": "PAD=1"}
 ],
 "explored": [
  {"code": "__shared__ float t[32][32]; t[lane][0]", "where": "common/column", "wavefronts": 32,
   "conflicts": 31, "ways": 32, "when": 1790000000,
   "measured": {"wavefronts": 32.0, "conflicts": 31.0, "ms": 0, "ns_per_access": 16.27, "slowdown": 31.9, "device": "NVIDIA H200 (sm_90)"}},
  {"code": "s[lane * 2]", "where": "playground", "wavefronts": 2, "conflicts": 1, "ways": 2,
   "when": 1790000060, "measured": null}
 ],
 "history": ["s[lane * 2]"]}
EOF
sum_before=$(cksum <"$prog")

# 1. default: both formats into the current directory
cd "$tmp/cwd" || exit 1
if "$BANKLAB" report --lessons "$root/tests/labs" --no-gpu --learner "Ada L" >"$tmp/stdout" 2>"$tmp/stderr"; then ok
else fail "report exit $? ($(head -c 300 "$tmp/stderr"))"; fi
cd "$root" || exit 1
md=$(ls "$tmp/cwd"/banklab-report-*.md 2>/dev/null | head -n 1)
js=$(ls "$tmp/cwd"/banklab-report-*.json 2>/dev/null | head -n 1)
[ -n "$md" ] && [ -n "$js" ] && ok || fail "expected .md and .json in the current directory: $(ls "$tmp/cwd")"
[ "$(ls "$tmp/cwd" | wc -l)" -eq 2 ] && ok || fail "extra files in the current directory: $(ls "$tmp/cwd")"
case $(basename "${md:-x}") in banklab-report-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md) ok ;; *) fail "md name: $md" ;; esac
grep -q "banklab-report-" "$tmp/stdout" && ok || fail "the paths written are not printed"
[ "$(cksum <"$prog")" = "$sum_before" ] && ok || fail "the progress file changed"
[ -z "$(ls "$tmp/data" 2>/dev/null)" ] && ok || fail "something was written to XDG_DATA_HOME"

if [ -n "$js" ]; then
    if msg=$(json_check "$js" format=1 learner="Ada L" device.name="no GPU (model only)" \
        device.measured=false position.lesson=lab-basic quiz.answered=2 quiz.first_try_correct=1 \
        quiz.correct_now=2 quiz.items.0.lesson_title="Test lab: padding and stride" quiz.items.0.step_title=Warm-up quiz.total=1 quiz.answered_in_lessons=1 quiz.items.0.attempts=2 \
        quiz.items.1.given="a|b" tasks.score=2 tasks.max=3 tasks.tried=1 tasks.solved=1 \
        tasks.items.0.lesson=lab-basic tasks.items.0.given=PAD=1 tasks.items.0.points=2 tasks.graded_steps=2 \
        explored.0.predicted.wavefronts=32 explored.0.measured.conflicts=31 explored.0.agrees=true \
        explored.0.measured.device="NVIDIA H200 (sm_90)" explored.0.when=2026-09-21T14:13:20Z \
        explored.1.measured=null explored.1.agrees=null 2>&1); then ok
    else fail "JSON: $msg"; fi
fi
if [ -n "$md" ]; then
    for want in "# banklab lab report" "- Learner: Ada L" "- Device: no GPU (model only)" \
        "| 90 | Test lab: padding and stride | Warm-up | 2 | no | yes | 5 |" "Answered 1 of 1 quizzes (and 1 answer for steps not in these lessons)" "| Test lab: padding and stride | Pad the column access | 1 | yes | yes | PAD=1 |" "a\\|b" \
        "Score: 2 of 3 points" "| PAD=1 |" \
        "| 32 | 31 | 32 | 32.00 | 31.00 | 16.27 | 31.9x | - | yes | NVIDIA H200 (sm_90) |" "not measured"; do
        grep -qF -- "$want" "$md" && ok || fail "Markdown lacks: $want"
    done
fi

# 2. --out and one format only
"$BANKLAB" report --out "$tmp/out" --format json --no-gpu >/dev/null 2>"$tmp/stderr" && ok || fail "--format json: exit $?"
[ "$(ls "$tmp/out")" = "$(basename "${js:-x}")" ] && ok || fail "--format json wrote: $(ls "$tmp/out")"
"$BANKLAB" report --out "$tmp/out" --format md --lang zh --lessons "$root/tests/labs" --no-gpu >/dev/null 2>&1 && ok || fail "--format md"
[ "$(ls "$tmp/out" | wc -l)" -eq 2 ] && ok || fail "--format md: $(ls "$tmp/out")"
grep -q "测试实验：填充与步长" "$tmp/out"/*.md && ok || fail "--lang zh: no Chinese lesson title"

# 3. errors: exit 2 with a message, nothing written
expect2() {
    what=$1; shift
    "$BANKLAB" report "$@" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ -s "$tmp/err" ] && ok || fail "$what: exit $rc, stderr '$(head -c 200 "$tmp/err")'"
}
expect2 "missing dir" --out "$tmp/nonexistent" --no-gpu
expect2 "dir is a file" --out "$prog" --no-gpu
expect2 "bad format" --format pdf --no-gpu
expect2 "bad lang" --lang fr --no-gpu
expect2 "unknown option" --bogus
expect2 "missing value" --out
mkdir -p "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then expect2 "read-only dir" --out "$tmp/ro" --no-gpu; fi
printf '{"format": 1, "quiz": [' >"$tmp/bad.json"
expect2 "truncated progress" --progress "$tmp/bad.json" --out "$tmp/out" --no-gpu
[ -f "$tmp/bad.json" ] && ok || fail "report moved the bad progress file"
grep -q "unusable" "$tmp/err" && ok || fail "truncated progress: message '$(cat "$tmp/err")'"

# 4. no progress yet: an empty report, still exit 0
"$BANKLAB" report --progress "$tmp/none.json" --out "$tmp/ro2" --no-gpu >/dev/null 2>&1; [ $? -eq 2 ] && ok || fail "missing out dir accepted"
mkdir -p "$tmp/empty"
"$BANKLAB" report --progress "$tmp/none.json" --out "$tmp/empty" --no-gpu >/dev/null 2>"$tmp/err" && ok || fail "no progress: exit $?"
grep -q "None yet" "$tmp/empty"/*.md 2>/dev/null && ok || fail "no progress: report lacks 'None yet'"

# 5. one score per lab and one count of steps, the same as `banklab lab` and the tutorial's
#    contents (tui_panel.sh): on the shipped lessons, two labs (chapters 10 and 11)
if ls "$root"/lessons/*.json >/dev/null 2>&1; then
    mkdir -p "$tmp/labs"
    lp="$tmp/labs/state/banklab/progress.json"
    XDG_STATE_HOME="$tmp/labs/state" "$BANKLAB" lab "$root/lessons/10-lab-workshop.json" --no-gpu \
        --answers PAD=1 >"$tmp/lab.txt" 2>&1
    labscore=$(sed -n 's/^== Score: \([0-9]*\) of \([0-9]*\) points.*/\1 of \2/p' "$tmp/lab.txt")
    [ -n "$labscore" ] && ok || fail "lab printed no score: $(tail -n 3 "$tmp/lab.txt")"
    "$BANKLAB" report --lessons "$root/lessons" --progress "$lp" --no-gpu --out "$tmp/labs" >/dev/null 2>"$tmp/err" \
        && ok || fail "report on the shipped lessons: exit $? ($(head -c 300 "$tmp/err"))"
    lmd=$(ls "$tmp"/labs/banklab-report-*.md | head -n 1)
    ljs=$(ls "$tmp"/labs/banklab-report-*.json | head -n 1)
    grep -q "^- Chapter 10, Workshop lab: remove the conflicts: $labscore points$" "$lmd" && ok ||
        fail "the report's score of lab 10 is not banklab lab's ($labscore): $(grep -i 'score\|points' "$lmd" | head -n 4)"
    grep -q "^- Chapter 11, .*: 0 of [0-9]* points$" "$lmd" && ok || fail "no score line for lab 11"
    grep -q "Score: [0-9]* of [0-9]* points" "$lmd" && fail "the report adds the labs into one score" || ok
    msg=$(json_check "$ljs" tasks.labs.0.lesson=lab-workshop tasks.labs.0.score="${labscore%% *}" \
          tasks.labs.0.max="${labscore##* }" tasks.labs.1.chapter=11 2>&1) && ok || fail "JSON labs: $msg"
    steps=$(cat "$root"/lessons/*.json | python3 -c 'import json,sys,re
t=sys.stdin.read(); d=json.JSONDecoder(); i=0; n=a=0
while i < len(t):
    while i < len(t) and t[i].isspace(): i += 1
    if i >= len(t): break
    o, i = d.raw_decode(t, i); n += len(o["steps"]); a += sum(1 for s in o["steps"] if "quiz" in s or "task" in s)
print(n, a)')
    grep -q "^Done: 1 of ${steps#* } quiz and task steps (${steps% *} steps in all)\.$" "$lmd" && ok ||
        fail "the report's count of steps: $(grep '^Done' "$lmd") (want 1 of ${steps#* }, ${steps% *} steps)"
    msg=$(json_check "$ljs" quiz.steps="${steps% *}" quiz.steps_asking="${steps#* }" quiz.steps_done=1 2>&1) \
        && ok || fail "JSON steps: $msg"
fi

# 6. explored without a GPU: model-only rows are reported as such, not as "none"
cat >"$tmp/model.json" <<'EOF2'
{"format": 1, "explored": [
  {"code": "__shared__ float data[32][32 + 1]; data[lane][0]", "where": "avoiding/padding",
   "wavefronts": 1, "conflicts": 0, "ways": 1, "when": 1790000000, "measured": null}]}
EOF2
mkdir -p "$tmp/model"
"$BANKLAB" report --progress "$tmp/model.json" --out "$tmp/model" --no-gpu >/dev/null 2>&1 && ok || fail "model-only report: exit $?"
grep -q "No GPU measured these: the numbers are the bank model's" "$tmp/model"/*.md && ok ||
    fail "a report of model-only rows does not say they are the model's"
grep -q "| avoiding/padding | \` __shared__ float data\[32\]\[32 + 1\]; data\[lane\]\[0\] \` | 1 | 0 | 1 | - |" "$tmp/model"/*.md && ok ||
    fail "the model-only row is missing: $(grep avoiding "$tmp/model"/*.md)"

# the same under ASan+UBSan when the test driver provides that binary
if [ -n "${ASAN_BANKLAB:-}" ] && [ -x "$ASAN_BANKLAB" ]; then
    case $ASAN_BANKLAB in /*) A=$ASAN_BANKLAB ;; *) A=$root/$ASAN_BANKLAB ;; esac
    mkdir -p "$tmp/asan"
    "$A" report --lessons "$root/tests/labs" --no-gpu --learner x --out "$tmp/asan" >/dev/null 2>"$tmp/err" \
        && [ "$(ls "$tmp/asan" | wc -l)" -eq 2 ] && ok || { fail "asan report: $(tail -n 20 "$tmp/err")"; }
    "$A" report --progress "$tmp/bad.json" --out "$tmp/asan" --no-gpu >/dev/null 2>&1
    [ $? -eq 2 ] && ok || fail "asan report: bad progress not exit 2"
    head -c 5000 /dev/urandom >"$tmp/rand.json"
    "$A" report --progress "$tmp/rand.json" --out "$tmp/asan" --no-gpu >/dev/null 2>&1
    [ $? -eq 2 ] && ok || fail "asan report: random progress not exit 2"
fi
"$BANKLAB" report --help | grep -q -- "--format" && ok || fail "--help"
finish
