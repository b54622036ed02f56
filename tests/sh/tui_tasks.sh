#!/bin/sh
# tui_tasks.sh: the workshop tasks of lessons/10-lab-workshop.json in the tutorial at 80x24:
# each graded step shows its goal, points and live met / not met; meeting a task says so once,
# saves it as banklab lab saves it ("lab:<lesson id>", the values), and counts its points; after
# all four, r writes a report whose score is 9 of all the lessons' points (Markdown and JSON; 9
# of 9 with the workshop alone) and the contents mark
# the tasks done. Then the panel in Chinese. The lesson file gives the task list (jq).
. tests/sh/tui_fixtures/lib.sh
OUT="$TMP/out"
mkdir -p "$OUT"
L=lessons/10-lab-workshop.json
ch=$(jq -r .chapter $L)
max=$(jq '[.steps[].task.points // 0] | add' $L)
ntasks=$(jq '[.steps[] | select(.task)] | length' $L)
[ "$ntasks" = 4 ] && [ "$max" = 9 ] || fail "the workshop has $ntasks tasks, $max points (want 4, 9)"
# the score the tutorial shows is this lab's, as `banklab lab` and the report give it (chapter
# 11 has a task too: it is not added in); the report's JSON keeps the sum of all as tasks.max
T=$max
ALL=$(jq -s '[.[].steps[].task.points // 0] | add' lessons/*.json)
entry() { jq -c --arg s "$1" '.quiz[]? | select(.lesson == "lab:lab-workshop" and .step == $s)' "$PROGRESS" 2>/dev/null; }
# saved STEP JQ-TEST: the step's entry passes the test within 5 s (progress is saved when the
# input is idle, not at once)
saved() {
    end=$(( $(now_ms) + 5000 ))
    until entry "$1" | jq -e "$2" >/dev/null 2>&1; do
        [ "$(now_ms)" -gt "$end" ] && fail "$1 saved as '$(entry "$1")', want $2"
        sleep 0.05
    done
}

start 80 24 BANKLAB_EXPORT_DIR="$OUT" -- --lessons lessons --lang en --reset --chapter "$ch" --step 2
# solve: STEP-ID KEYS VALUES, in lesson order
score=0 k=0
for solve in "task-block16 P,P PAD=2" "task-remap K K=1, C=0" "task-float4-rows P,P,P,P PAD=4, C=0" \
             "task-double-column P PAD=1, C=0"; do
    id=${solve%% *}; rest=${solve#* }; ks=${rest%% *}; vals=${rest#* }
    k=$((k + 1))
    s=$(jq -r --arg id "$id" '.steps | map(.id) | index($id) + 1' $L)
    pts=$(jq -r --arg id "$id" '.steps[] | select(.id == $id) | .task.points' $L)
    goal=$(jq -r --arg id "$id" '.steps[] | select(.id == $id) | .task.goal.en' $L)
    expect " $ch\\.$s/"
    expect "Task $k/4 \\($pts points?\\): $(echo "$goal" | cut -c1-30)"
    expect "✗ not met · score $score / $T"
    [ -z "$(entry "$id")" ] || fail "$id saved before it was met: $(entry "$id")"
    for key in $(echo "$ks" | tr , ' '); do keys "$key"; done
    score=$((score + pts))
    expect "Task $k solved: \\+$pts points? \\(score $score / $T\\)"
    keys PPage   # the next key clears the message: the panel shows under it
    expect "✓ met · score $score / $T"
    saved "$id" ".correct == true and .first_correct == true and .given == \"$vals\""
    [ $k -lt 4 ] && keys n
done
# met once is saved once: back on the step (the values start at their defaults again) it is
# not met now, solved before, and meeting it again saves nothing new
keys b n
expect "✗ not met \\(solved before\\) · score 9 / $T"
keys P
expect "✓ met · score 9 / $T"
grep -q "solved: +" "$TMP/screen.txt" && fail "met again: said solved again"
sleep 0.3   # an idle tick: a second save would be written by now
saved task-double-column '.attempts == 1'
keys r
expect "report"
keys c
expect "contents"
grep -qE "$ch\\.2 +✓ Task 1" "$TMP/screen.txt" || fail "the contents do not mark task 1 done"
keys Escape q
expect "EXITED rc=0"
md=$(ls "$OUT"/banklab-report-*.md 2>/dev/null | head -n 1)
[ -n "$md" ] || fail "r wrote no report into $OUT"
grep -q "^- Chapter $ch, .*: 9 of $T points$" "$md" || fail "report: $(grep -i points "$md")"
jq -e --argjson t "$ALL" '.tasks.score == 9 and .tasks.max == $t and .tasks.solved == 4 and .tasks.labs[0].score == 9' "${md%.md}.json" >/dev/null ||
    fail "JSON report: $(jq -c .tasks "${md%.md}.json")"

# the panel in Chinese
start 80 24 -- --lessons lessons --lang zh --chapter "$ch" --step 2
expect "任务 1/4（3 分）：找一个"
expect "要求 冲突数 ≤ 0 · 当前 7 · ✗ 未满足（之前已完成） · 得分 9 / $T"
keys q
expect "EXITED rc=0"
exit 0
