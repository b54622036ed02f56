#!/bin/sh
# tui_play.sh: the playground (g). A valid pattern draws the grid with the model's numbers
# (compared with banklab sim --json); NAME=VALUE sets a parameter; an invalid one shows the
# error with a caret under the right column and the program keeps going; Enter saves the
# pattern in the history (Up brings it back, also after a restart: it is in progress.json).
. tests/sh/tui_fixtures/lib.sh

sim_line() { # PATTERN [sim args]: the model line the UI should show
    "$BANKLAB" sim "$@" --json >"$TMP/sim.json" || fail "sim failed: $*"
    jq -r '"\(.wavefronts) wavefronts? · \(.conflicts) conflicts? · \(.ways)-way"' "$TMP/sim.json"
}

mkdir -p "$TMP/out"
start 80 24 BANKLAB_EXPORT_DIR="$TMP/out" -- --lessons lessons --lang en --reset
expect " 1\\.1/"
keys g
expect "playground"
keys C-u
lit '__shared__ float s[32][32 + PAD]; PAD=0; s[lane][0]'
expect "$GRID_HEADER"
expect "model +$(sim_line '__shared__ float s[32][32 + PAD]; s[lane][0]' --param PAD=0)"
# change the parameter statement: PAD=1 makes the column access conflict-free
keys Left Left Left Left Left Left Left Left Left Left Left Left BSpace
lit 1
expect "PAD=1"
expect "model +$(sim_line '__shared__ float s[32][32 + PAD]; s[lane][0]' --param PAD=1)"
keys Enter
expect "saved to the playground history"
# ^X writes the grid as SVG into $BANKLAB_EXPORT_DIR
keys C-x
expect "grid written to .*banklab-playground\\.svg"
grep -q "<svg" "$TMP/out/banklab-playground.svg" || fail "no SVG from the playground"

# a syntax error: caret under the column the parser names, no crash
keys C-u
lit '__shared__ float2 v[64]; v[lane * 2 +]'
expect "error: "
col=$(grep -n '^ *\^' "$TMP/screen.txt" | head -n 1) || fail "no caret line"
caret_col=$(grep '^ *\^' "$TMP/screen.txt" | head -n 1 | awk '{ print index($0, "^") }')
# the caret must sit under the text (the input starts after "> ")
[ "$caret_col" -gt 2 ] && [ "$caret_col" -le 42 ] || fail "caret at column $caret_col"
grep -q "$GRID_HEADER" "$TMP/screen.txt" && fail "grid shown for an invalid pattern"
# an evaluation error: out of bounds names the lane
keys C-u
lit '__shared__ float s[32][33]; s[lane][lane * 2]'
expect "error: .*lane"
# fix it: the grid comes back
keys Left BSpace BSpace BSpace BSpace
expect "model +$(sim_line '__shared__ float s[32][33]; s[lane][lane]')"
# a parameter nobody set is 0, and the screen says so
keys C-u
lit '__shared__ float s[32][32 + PAD]; s[lane][0]'
expect "PAD unset: 0 \\(type NAME=VALUE\\)"
expect "model +32 wavefronts"
# unknown name, division by zero: messages, never a crash
keys C-u
lit '__shared__ int q[64]; q[lane / 0]'
expect "error: "
keys C-u
lit '__shared__ int q[64]; q[nosuchname]'
expect "(error: |NOSUCH|nosuchname)"
# a full line swallows further keys: s and q stay text, no sweep, no quit
keys C-u
lit "$(printf '%0600d' 0 | tr 0 s)"
expect "length limit"
lit 'sq'
sleep 0.3
screen | grep -q "sweep" && fail "a key on a full playground line opened the sweep"
keys C-u
lit '__shared__ float s[32][33]; s[lane][0]'
expect "model +1 wavefront"
# history: Up brings back the saved pattern
keys C-u Up
expect "> __shared__ float s\\[32\\]\\[32 \\+ PAD\\]; PAD=1; s\\[lane\\]\\[0\\]"
keys Escape
expect " 1\\.1/"
keys q
expect "EXITED rc=0"
grep -q 'PAD=1; s\[lane\]\[0\]' "$PROGRESS" || fail "history not saved in $PROGRESS"
exit 0
