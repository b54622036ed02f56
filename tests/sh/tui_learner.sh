#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_learner.sh: what a learner is told on the tutorial's screens (lessons/, answers from the
# JSON with jq): a step answered right after a wrong try is done but not a first-try success
# (its verdict, the title's count, the contents' mark and legend); a chapter's last step gives
# the chapter's score and moving on says the chapter ended; F1 is help; q says where progress
# was saved; --lang zh is remembered for the next start; at 120 columns the grid's two-digit
# lanes do not run together; with the H200 recording at 80 columns the measured line keeps its
# conflicts, says the time is per access under load and ends its provenance at a whole word;
# 6.1's naive transpose (no shared memory) says so instead of "0.00 wavefronts"; in presenter
# mode a quiz about another access names it and shows it once revealed (6.2).
. tests/sh/tui_fixtures/lib.sh

answer_of() { # CHAPTER STEP -> the key of the right choice
    jq -r --argjson s "$2" '.steps[$s - 1].quiz.answer + 1' lessons/"$(printf %02d "$1")"-*.json
}
quit() { keys q; expect "EXITED rc=0" 5; }

# --- 1.3 wrong then right, 1.4 right at once
r13=$(answer_of 1 3) r14=$(answer_of 1 4)
w13=$((r13 % 3 + 1))
start 80 24 -- --lessons lessons --lang en --reset --chapter 1 --step 3
expect " 1\\.3/6 "
keys "$w13"
expect "✗ not quite"
keys "$r13"
expect "✓ right, but not at the first try \\(answer: "
expect "done 1/[0-9]+, 0 first try"
keys n
expect " 1\\.4/6 "
keys "$r14"
expect "✓ right \\(answer: "
expect "done 2/[0-9]+, 1 first try"
keys c
expect "banklab: contents"
expect "1\\.3  ◑ "
expect "1\\.4  ✓ "
expect "◑ right later"
expect "done 2/[0-9]+ quiz and task steps \\([0-9]+ steps\\), 1 first try"
keys Escape
# F1 is help on the step as ? is
expect " 1\\.4/6 "
keys F1
expect "banklab keys"
i=0   # what wf means, in the box or further down it
until wait_for "wavefront \\(wf\\)" 1; do
    i=$((i + 1))
    [ $i -gt 6 ] && fail "help does not say what wf means"
    keys PgDn
done
keys Escape
expect " 1\\.4/6 "
quit
expect "banklab: progress saved in "
tr -d '\n' <"$TMP/screen.txt" | grep -q "the next start resumes at 1\\.4" || fail "q: no word of 1.4"
jq -e '.quiz[] | select(.step == "collision") | .correct and (.first_correct | not)' \
    "$PROGRESS" >/dev/null || fail "1.3 is not recorded as right after a wrong try"

# --- the chapter's end: its score at the last step once its quiz is answered (not beside the
# open question), a word when moving on
start 120 50 -- --lessons lessons --lang en --chapter 1 --step 6
expect " 1\\.6/6 "
grep -q "End of chapter 1" "$TMP/screen.txt" && fail "the chapter's score stands beside its open last quiz"
keys 1
expect "End of chapter 1\\. Score: 1 of [0-9]+ right at the first try \\(2 done\\)\\. n: chapter 2"
keys n
expect " 2\\.1/"
expect "end of chapter 1: 1/[0-9]+ first try"
quit

# --- --lang zh is remembered
start 80 24 -- --lessons lessons --lang zh --chapter 2 --step 1
expect " 2\\.1/"
expect "已完成"
quit
expect "进度已保存"
jq -e '.lang == "zh"' "$PROGRESS" >/dev/null || fail "--lang zh was not saved"
start 80 24 -- --lessons lessons
expect " 2\\.1/"
expect "已完成" 5 || fail "the next start without --lang is not in Chinese"
keys l
expect "done [0-9]+/"
quit

# --- 120 columns: lanes 10-31 stay apart
start 120 40 -- --lessons lessons --lang en --chapter 1 --step 1
expect " 1\\.1/"
keys g
expect "banklab: playground"
keys C-u
lit '__shared__ float s[64]; s[lane * 2]'
expect "2 wavefronts · 1 conflict"
grep -E '[0-9A-W][!*#][0-9A-W]' "$TMP/screen.txt" && fail "120 columns: grid cells run together"
keys Escape
expect "A-W = 10-32"    # the legend says what the letters are
quit

# --- the measured line at 80 columns (the recording): conflicts, under load, a whole provenance
start 80 24 -- --lessons lessons --lang en --chapter 1 --step 3 --replay assets/h200-recording.json
expect " 1\\.3/6 "
expect "^ measured  32\\.0 wavefronts, 31\\.0 conflicts"
expect "ns/access under load"
expect "recorded on NVIDIA H200 \\(sm_90\\), [0-9]{4}-[0-9]{2}-[0-9]{2}$"
grep -E "(SM|T[0-9:]*)…" "$TMP/screen.txt" && fail "80 columns: the provenance is cut mid-word"
quit
for mode in "" --present; do
    start 100 26 -- --lessons lessons --lang en --reset --chapter 6 --step 1 \
        --replay assets/h200-recording.json $mode
    expect " 6\\.1/6 "
    keys "$(answer_of 6 1)"
    # the naive kernel has no shared memory: 6.1 has no scene, so no grid and no wavefronts
    # (it drew the 32-way tile load and its measured 31.9x beside the question)
    expect "501 GB/s"
    grep -q "wavefront" "$TMP/screen.txt" && fail "6.1 $mode: a wavefront figure beside a kernel with no shared memory"
    quit
done

# --- presenter mode: 6.2 asks about the load, says so, and e shows the load
start 100 26 -- --lessons lessons --lang en --reset --chapter 6 --step 2 --present
expect " 6\\.2/6 "
expect "access 1/2 \\[a\\]: store"
expect "\\(about access 2/2, the load of tile"
keys e
expect "access 2/2 \\[a\\]: load"
quit
echo "learner screens: first tries, chapter ends, F1, q, --lang, lanes, measured lines"
exit 0
