#!/bin/sh
# tui_quiz.sh: the quiz rules (src/ui/quiz.h) at 80x24 on the fixture tests/sh/tui_fixtures/quiz:
# the verdict states the answer as its value, not its option number; Enter with nothing typed
# answers nothing and reveals nothing; e then the right answer is never right at the first try;
# a typed number stays after Enter and after coming back; n (and b) never drop a typed number
# silently; an answered step without a grid still shows its question and choices; the same in
# Chinese. The progress file is read with jq after each part.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/quiz

entry() { # STEP -> the progress entry of the step, compact, or nothing
    jq -c --arg s "$1" '.quiz[]? | select(.step == $s)' "$PROGRESS" 2>/dev/null
}
quit() { keys q; expect "EXITED rc=0"; }
recorded() { # STEP JQ-TEST: the step's progress entry passes the test
    entry "$1" | jq -e "$2" >/dev/null || fail "$1 recorded as $(entry "$1")"
}

# --- answers are values: option 1 is wrong, the answer is option 3, "thirty-two"
start 80 24 -- --lessons $FIX --lang en --reset
expect " 1\\.1/4 "
keys 1
expect "not quite \\(answer: thirty-two\\)"
grep -q "answer: 3" "$TMP/screen.txt" && fail "the verdict names the option number"
expect "✓3\\) thirty-two"
keys 3
expect "right, but not at the first try \\(answer: thirty-two\\)"
quit
recorded choice-predict '.attempts == 2 and .given == "3" and .first_correct == false'

# --- Enter with nothing typed on a number prediction: no answer, nothing revealed
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 2
expect " 1\\.2/4 "
expect "hidden until you answer"
keys Enter
expect "type your prediction"
expect " 1\\.2/4 "
grep -q "$GRID_HEADER" "$TMP/screen.txt" && fail "Enter with nothing typed revealed the grid"
grep -q "answer: 16" "$TMP/screen.txt" && fail "Enter with nothing typed showed the answer"
[ -z "$(entry number-predict)" ] || fail "Enter with nothing typed recorded $(entry number-predict)"

# --- e, then the right number: right now, but not at the first try
keys e
expect "revealed without an answer"
expect "$GRID_HEADER"
lit 15
keys Enter
expect "not quite \\(answer: 16\\)"
# the number given stays on the screen after Enter; a new digit starts a new number
expect "your answer: 15( |$)"
lit 16
expect "your answer: 16_"
keys Enter
expect "right, but not at the first try \\(answer: 16\\)"
quit
# e then the right answer: right now, never right at the first try
recorded number-predict '.attempts == 3 and .correct == true and .first_correct == false'

# --- a typed number is not dropped by n or b: the same key again leaves it
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 3
expect " 1\\.3/4 "
lit 12
expect "your answer: 12_"
keys n
expect "Enter answers 12; the same key again leaves it unanswered"
expect " 1\\.3/4 "
keys b
expect "Enter answers 12"
expect " 1\\.3/4 "
keys b
expect " 1\\.2/4 "
keys n
expect " 1\\.3/4 "
lit 12
keys n
expect "Enter answers 12"
keys n
expect " 1\\.4/4 "
[ -z "$(entry number-plain)" ] || fail "n recorded the typed number: $(entry number-plain)"
keys b
expect " 1\\.3/4 "
grep -q "your answer: 12" "$TMP/screen.txt" && fail "a number left unanswered came back"
# a wrong number, then Enter with nothing new typed goes on (the quiz was answered)
lit 100
keys Enter
expect "not quite \\(answer: 128\\)"
expect "your answer: 100( |$)"
keys Enter
expect " 1\\.4/4 "
keys b
expect " 1\\.3/4 "
expect "your answer: 100( |$)"
keys n
expect " 1\\.4/4 "

# --- an answered step without a grid keeps its question and choices
keys 2
expect "right \\(answer: a single one\\)"
keys b
expect " 1\\.3/4 "
keys n
expect " 1\\.4/4 "
expect "32 lanes read one word: how many wavefronts\\?"
expect "1\\) thirty-two"
expect ">2\\) a single one"
expect "right \\(answer: a single one\\)"
quit

# --- the same rules in Chinese
start 80 24 -- --lessons $FIX --lang zh --reset
expect " 1\\.1/4 "
keys 2
expect "不对（答案：32 个）"
keys n
expect " 1\\.2/4 "
keys Enter
expect "输入你的预测"
grep -q "$GRID_HEADER" "$TMP/screen.txt" && fail "zh: Enter with nothing typed revealed the grid"
lit 4
keys Enter
expect "你的答案：4( |$)"
expect "不对（答案：16）"
quit
exit 0
