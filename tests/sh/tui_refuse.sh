#!/bin/sh
# tui_refuse.sh: a lesson that `banklab check` refuses is never shown: one whose
# quiz answer the model contradicts (the tutorial used to mark a wrong answer right), one
# missing a required field (it used to be dropped with a message gone at the first key), one
# whose task is solved at the defaults. Each is listed with file: path on a screen before
# the first step; Enter goes on with the lessons that load, and the contents hold only those.
# --lessons FILE.json runs one lesson file; a refused file alone leaves the no-lessons screen.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons
BAD=tests/lessons_bad

mkdir -p "$TMP/mixed"
cp $FIX/01-fixture.json "$TMP/mixed/"
# the model says 2 wavefronts, the quiz says 1: check refuses it
cp $BAD/quiz-check-wrong.json "$TMP/mixed/02-quiz-wrong.json"
# a required field missing: the title of a step
jq 'del(.steps[0].title) | .id = "no-title" | .chapter = 3' $FIX/01-fixture.json >"$TMP/mixed/03-no-title.json"
cp $BAD/task-solved-at-default.json "$TMP/mixed/04-task-solved.json"
for f in 02-quiz-wrong 03-no-title 04-task-solved; do
    "$BANKLAB" check "$TMP/mixed/$f.json" >/dev/null 2>&1 && fail "check passes $f.json: not a test"
done
"$BANKLAB" check "$TMP/mixed/01-fixture.json" >/dev/null || fail "check refuses the fixture"

start 80 24 -- --lessons "$TMP/mixed" --lang en --reset
expect "lessons refused"
expect "3 lesson file\\(s\\) not shown"
expect "The other 1 lesson\\(s\\) are loaded"
# one problem a line or two (long paths wrap): the screen joined into one line
joined() { sed 's/^ *//' "$TMP/screen.txt" | tr '\n' ' '; }
joined | grep -qE "02-quiz-wrong\\.json: steps\\[0\\]\\.quiz\\.answer: ?choice 0" ||
    fail "the wrong quiz answer is not listed"
joined | grep -qE "03-no-title\\.json: steps\\[0\\]: missing ?required field \"title\"" ||
    fail "the missing field is not listed"
joined | grep -qE "04-task-solved\\.json: steps\\[0\\]\\.task: ?already solved" ||
    fail "the task solved at the defaults is not listed"
expect "Enter/Esc go on"
keys Enter
expect " 1\\.1/5 UI fixture"
keys c
expect "contents"
n=$(grep -cE "^ .?  ?[0-9]+  " "$TMP/screen.txt")
[ "$n" = 1 ] || fail "the contents list $n chapters, want the one that loaded"
keys Escape q
expect "EXITED rc=0"

# Chinese: the same screen, Esc goes on
start 80 24 -- --lessons "$TMP/mixed" --lang zh --reset
expect "未加载的课程"
expect "3 个课程文件没有显示"
keys Escape
expect " 1\\.1/5 "
keys q
expect "EXITED rc=0"

# one lesson file
start 80 24 -- --lessons $FIX/01-fixture.json --lang en --reset
expect " 1\\.1/5 UI fixture"
grep -q "refused" "$TMP/screen.txt" && fail "a sound lesson file was refused"
keys q
expect "EXITED rc=0"
start 80 24 -- --lessons "$TMP/mixed/02-quiz-wrong.json" --lang en --reset
expect "No lessons could be loaded from"
joined | grep -qE "loaded from /[^ ]*02-quiz-wrong\\.json" || fail "the file is not named"
expect "steps\\[0\\]\\.quiz\\.answer"
keys Escape
expect "No lessons could be loaded"    # nothing to go on to
keys q
expect "EXITED rc=0"
# banklab check --lessons FILE checks that file
"$BANKLAB" check --lessons $FIX/01-fixture.json >"$TMP/check.out" || fail "check --lessons FILE: $(cat "$TMP/check.out")"
grep -q "checked 1 lesson" "$TMP/check.out" || fail "check --lessons FILE: $(cat "$TMP/check.out")"
exit 0
