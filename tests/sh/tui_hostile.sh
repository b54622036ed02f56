#!/bin/sh
# tui_hostile.sh: the tutorial under hostile conditions, in a real terminal (tmux).
# Every signal that ends the program (QUIT, USR1, USR2, PIPE, ALRM, TERM, HUP, ...) restores the
# terminal (no alternate screen, cursor shown, the same stty settings as before) and saves the
# position; TERM=dumb and an unknown TERM are refused with a hint before anything is drawn; a
# FIFO named *.json among the lessons is named and skipped, not waited on; a tutorial and a
# lab, and two tutorials, sharing one progress file keep each other's answers and score.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons
LAB=$ROOT/tests/labs/lab-basic.json

signum() { i=1; while [ $i -lt 65 ]; do [ "$(kill -l $i 2>/dev/null)" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; }
step_saved() { jq -r .step "$PROGRESS" 2>/dev/null; }
alt_on() { $TM display-message -p -t t '#{alternate_on}'; }
cursor_on() { $TM display-message -p -t t '#{cursor_flag}'; }

# start_stty W H ARGS...: like start, with the terminal settings recorded before and after
start_stty() {
    w=$1; h=$2; shift 2
    $TM kill-session -t t >/dev/null 2>&1
    rm -f "$TMP/stty.before" "$TMP/stty.after"
    $TM new-session -d -s t -x "$w" -y "$h" \
        "cd '$ROOT' && stty -g >'$TMP/stty.before' && '$BANKLAB' $*; echo EXITED rc=\$?; stty -g >'$TMP/stty.after'; sleep 600" ||
        fail "tmux new-session"
    $TM set-option -t t status off >/dev/null
}

# --- every ending signal: terminal restored, position saved, exit status 128 + signal
for sig in QUIT USR1 USR2 PIPE ALRM TERM HUP; do
    rm -f "$PROGRESS"
    start_stty 80 24 --lessons $FIX --lang en --chapter 1 --step 1
    expect " 1\\.1/5 "
    keys n
    expect " 1\\.2/5 "
    pid=$(banklab_pid)
    [ -n "$pid" ] || fail "SIG$sig: no banklab process"
    kill -s $sig "$pid"
    expect "EXITED rc=1[0-9][0-9]" 5
    want=$((128 + $(signum $sig)))
    grep -q "EXITED rc=$want" "$TMP/screen.txt" || fail "SIG$sig: exit status is not $want"
    wait_for . 1
    [ "$(alt_on)" = 0 ] || fail "SIG$sig: alternate screen still on"
    [ "$(cursor_on)" = 1 ] || fail "SIG$sig: cursor still hidden"
    n=0; while [ ! -s "$TMP/stty.after" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    cmp -s "$TMP/stty.before" "$TMP/stty.after" ||
        fail "SIG$sig: terminal settings not restored ($(cat "$TMP/stty.before") / $(cat "$TMP/stty.after"))"
    [ "$(step_saved)" = column ] || fail "SIG$sig: saved step '$(step_saved)', want column"
done

# --- terminals that cannot run it: refused with a hint, nothing drawn
for term in dumb no-such-terminal-xyz; do
    start 80 24 TERM=$term -- --lessons $FIX --lang en
    expect "EXITED rc=2" 5
    $TM capture-pane -p -J -t t >"$TMP/joined.txt"
    grep -q "banklab sim" "$TMP/joined.txt" || fail "TERM=$term: no hint to use banklab sim"
    case $term in
        dumb) grep -q "cannot place the cursor" "$TMP/joined.txt" || fail "TERM=dumb: no reason given" ;;
        *) grep -q "not a terminal this system knows" "$TMP/joined.txt" || fail "TERM=$term: no reason given" ;;
    esac
    [ "$(grep -c . "$TMP/joined.txt")" -eq 2 ] || fail "TERM=$term: more than the message was drawn"
done

# --- a FIFO among the lessons: named on the refused-lessons screen, the others run, q works
mkdir -p "$TMP/fifo-lessons"
cp $FIX/01-fixture.json "$TMP/fifo-lessons/"
mkfifo "$TMP/fifo-lessons/02-fifo.json"
start 140 24 -- --lessons "$TMP/fifo-lessons" --lang en --reset
expect "02-fifo\\.json: not a regular file" 5
keys Enter
expect " 1\\.1/5 "
keys q
expect "EXITED rc=0"

# --- --step past the chapter's end: said, not silent
start 100 24 -- --lessons $FIX --lang en --reset --chapter 1 --step 1000
expect "chapter 1 has 5 steps: starting at step 5"
expect " 1\\.5/5 "
keys q
expect "EXITED rc=0"

# --- playground settings out of range are refused with the reason, not clamped
start 120 24 -- --lessons $FIX --lang en --reset
expect " 1\\.1/"
keys g
expect "playground"
for bad in 'warp=-1|a warp number is 0\.\.31' 'warp=4294967297|a warp number is 0\.\.31' \
           'PAD=99999999999999999999|out of range'; do
    keys C-u
    lit "__shared__ float s[64]; s[lane]; ${bad%%|*}"
    expect "bad setting ${bad%%|*}: ${bad#*|}"
done
keys C-u
lit '__shared__ float s[64]; s[lane]; A=1; B=1; C=1; D=1; E=1; F=1; G=1; H=1; I=1; J=1; K=1; L=1; M=1; N=1; O=1; P=1; Q=1'
expect "bad setting Q=1: at most 16 parameters"
keys Escape
keys q
expect "EXITED rc=0"

# --- a tutorial left open while a lab runs: the lab's score and the quiz answer both stay
rm -f "$PROGRESS"
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 4
expect " 1\\.4/5 "
expect "hidden until you answer"
lit 1
keys Enter
expect "right \\(answer:? 1\\)"
n=0; until jq -e '.quiz[] | select(.step == "predict")' "$PROGRESS" >/dev/null 2>&1 || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
"$BANKLAB" lab "$LAB" --no-gpu --answers PAD=1,STRIDE=1 >"$TMP/lab.out" 2>&1 || fail "lab: $(tail -n 3 "$TMP/lab.out")"
grep -q "Score: 3 of 3" "$TMP/lab.out" || fail "lab: $(tail -n 2 "$TMP/lab.out")"
keys q
expect "EXITED rc=0"
jq -e '.task_score == 3 and .task_max == 3' "$PROGRESS" >/dev/null ||
    fail "the tutorial's save reset the lab's score: $(jq -c '{task_score, task_max}' "$PROGRESS")"
jq -e '[.quiz[] | select(.lesson == "lab:lab-basic")] | length == 2' "$PROGRESS" >/dev/null ||
    fail "the lab's task results were lost: $(jq -c .quiz "$PROGRESS")"
jq -e '.quiz[] | select(.step == "predict" and .correct == true)' "$PROGRESS" >/dev/null ||
    fail "the tutorial's answer was lost: $(jq -c .quiz "$PROGRESS")"

# --- two tutorials: the one started first and quit last keeps the other's answer
rm -f "$PROGRESS"
$TM kill-session -t u >/dev/null 2>&1
$TM new-session -d -s u -x 80 -y 24 \
    "cd '$ROOT' && '$BANKLAB' --lessons $FIX --lang en --chapter 1 --step 2; echo EXITED rc=\$?; sleep 600" || fail "tmux u"
n=0; until $TM capture-pane -p -t u | grep -q " 1\\.2/5 " || [ $n -ge 100 ]; do sleep 0.05; n=$((n + 1)); done
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 5
expect " 1\\.5/5 "
keys 2
expect "right"
n=0; until jq -e '.quiz | length > 0' "$PROGRESS" >/dev/null 2>&1 || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
jq -e '.quiz | length > 0' "$PROGRESS" >/dev/null 2>&1 || fail "the second tutorial did not save its answer: $(cat "$PROGRESS" 2>/dev/null)"
keys q
expect "EXITED rc=0"
$TM send-keys -t u q
n=0; until $TM capture-pane -p -t u | grep -q "EXITED rc=0" || [ $n -ge 100 ]; do sleep 0.05; n=$((n + 1)); done
$TM capture-pane -p -t u | grep -q "EXITED rc=0" || fail "the first tutorial did not quit"
jq -e '.quiz[] | select(.step == "transpose")' "$PROGRESS" >/dev/null ||
    fail "the first tutorial's save dropped the other's answer: $(jq -c .quiz "$PROGRESS")"
exit 0
