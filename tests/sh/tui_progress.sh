#!/bin/sh
# tui_progress.sh: progress and terminal hygiene. Quit, restart, land on the saved step;
# SIGTERM, SIGHUP and Ctrl-C restore the terminal (tmux #{alternate_on} back to 0, the shell
# line after the program runs) and save progress; --reset starts over; a corrupt progress
# file is kept aside with a warning in the UI; a missing or broken lessons directory gives a
# clear message, not a crash; quiz answers are recorded; presenter mode neither shows nor
# changes them (unless --keep-progress).
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons

step_saved() { jq -r .step "$PROGRESS" 2>/dev/null; }
alt_on() { $TM display-message -p -t t '#{alternate_on}'; }

# --- quit and restart
start 80 24 -- --lessons $FIX --lang en --reset
expect " 1\\.1/5 "
[ "$(alt_on)" = 1 ] || fail "not on the alternate screen while running"
keys n n
expect " 1\\.3/5 "
keys q
expect "EXITED rc=0"
[ "$(alt_on)" = 0 ] || fail "alternate screen still on after q"
[ "$(step_saved)" = float2 ] || fail "saved step is '$(step_saved)', want float2"
start 80 24 -- --lessons $FIX --lang en
expect " 1\\.3/5 "
keys q
expect "EXITED rc=0"

# --- a quiz answer is recorded
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 4
expect " 1\\.4/5 "
expect "hidden until you answer"
grep -q "$GRID_HEADER" "$TMP/screen.txt" && fail "predict step shows the grid"
lit 7
keys Enter
expect "not quite \\(answer: 1\\)"
expect "$GRID_HEADER"
keys q
expect "EXITED rc=0"
jq -e '.quiz[] | select(.step == "predict" and (.correct == 0 or .correct == false))' "$PROGRESS" >/dev/null ||
    fail "wrong answer not recorded: $(cat "$PROGRESS")"
# back on the step: the grid stays visible, the question is still there to try again
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 4
expect "not quite \\(answer: 1\\)"
expect "$GRID_HEADER"
expect "How many wavefronts\\?"
lit 1
keys Enter
expect "right, but not at the first try \\(answer: 1\\)"
keys q
expect "EXITED rc=0"
jq -e '.quiz[] | select(.step == "predict" and .attempts == 2 and .correct == true and .first_correct == false)' \
    "$PROGRESS" >/dev/null || fail "second answer not recorded: $(cat "$PROGRESS")"

# --- presenter mode starts clean: the presenter's own answers are not shown, nothing is saved;
# --keep-progress uses the saved progress
cp "$PROGRESS" "$TMP/before.json"
start 100 30 -- --lessons $FIX --lang en --present --chapter 1 --step 4
expect "Press e \\(or Enter\\) to reveal"
grep -q "\\(answer: 1\\)" "$TMP/screen.txt" && fail "presenter shows the saved answer"
lit 2
keys Enter
expect "not quite \\(answer: 1\\)"
keys n
expect " 1\\.5/5 "
keys q
expect "EXITED rc=0"
cmp -s "$PROGRESS" "$TMP/before.json" || fail "presenter mode changed the saved progress"
start 100 30 -- --lessons $FIX --lang en --present --keep-progress --chapter 1 --step 4
expect "right, but not at the first try \\(answer: 1\\)"
keys q
expect "EXITED rc=0"

# --- signals: the terminal comes back and the position is saved
for sig in TERM HUP INT; do
    start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 1
    expect " 1\\.1/5 "
    keys n
    expect " 1\\.2/5 "
    if [ $sig = INT ]; then keys C-c; else
        pid=$(banklab_pid)
        [ -n "$pid" ] || fail "no banklab process"
        kill -s $sig "$pid"
    fi
    expect "EXITED rc=1[0-9][0-9]" 5
    case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; esac
    grep -q "EXITED rc=$want" "$TMP/screen.txt" || fail "SIG$sig: exit status is not $want"
    [ "$(alt_on)" = 0 ] || fail "SIG$sig: alternate screen still on"
    [ "$(step_saved)" = column ] || fail "SIG$sig: saved step '$(step_saved)', want column"
    rm -f "$PROGRESS"
done

# --- --reset forgets the position
start 80 24 -- --lessons $FIX --lang en --chapter 1 --step 5
expect " 1\\.5/5 "
keys q
expect "EXITED rc=0"
start 80 24 -- --lessons $FIX --lang en --reset
expect " 1\\.1/5 "
keys q
expect "EXITED rc=0"

# --- a corrupt progress file is moved aside and the UI says so
printf '{"lesson_id": "tui-fix' >"$PROGRESS"
start 100 24 -- --lessons $FIX --lang en
expect "progress file .*(unusable|corrupt)"
expect " 1\\.1/5 "
ls "$PROGRESS".corrupt-* >/dev/null 2>&1 || fail "corrupt progress file not kept aside"
keys q
expect "EXITED rc=0"
jq -e . "$PROGRESS" >/dev/null || fail "progress not rewritten after a corrupt file"

# --- lessons that cannot be loaded: a message, the playground still works
start 80 24 -- --lessons "$TMP/no-such-dir" --lang en
expect "No lessons"
keys g
expect "playground"
keys Escape
expect "No lessons"
keys q
expect "EXITED rc=0"
mkdir -p "$TMP/bad"
printf '{"format": 1, "id": "x", "chapter": 1, "title": {"zh": "x", "en": "x"}, "steps": [' >"$TMP/bad/01-bad.json"
start 80 24 -- --lessons "$TMP/bad" --lang en
expect "No lessons could be loaded"
expect "01-bad.json:[0-9]+:[0-9]+"
keys q
expect "EXITED rc=0"
# --- one good lesson and one broken: the good one runs, a warning names the broken one
mkdir -p "$TMP/mixed"
cp $FIX/01-fixture.json "$TMP/mixed/"
printf '{"format": 1, "id": "y", "chapter": 2, "title": {"zh": "y", "en": "y"}, "steps": [' >"$TMP/mixed/02-bad.json"
start 100 24 -- --lessons "$TMP/mixed" --lang en --reset
expect "lessons refused"
expect "02-bad\\.json:[0-9]+:[0-9]+"
keys Enter
expect " 1\\.1/5 "
keys q
expect "EXITED rc=0"

# --- not a terminal: a message and exit status 2, no escape codes
"$BANKLAB" --lessons $FIX </dev/null >"$TMP/notty.out" 2>"$TMP/notty.err"
rc=$?
[ $rc = 2 ] || fail "without a terminal: exit $rc, want 2"
grep -q "needs a terminal" "$TMP/notty.err" || fail "without a terminal: $(cat "$TMP/notty.err")"
[ -s "$TMP/notty.out" ] && fail "without a terminal: wrote to stdout"
exit 0
