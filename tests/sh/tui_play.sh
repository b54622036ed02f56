#!/bin/sh
# tui_play.sh: the playground (g). A valid pattern draws the grid with the model's numbers
# (compared with banklab sim --json); NAME=VALUE sets a parameter; an invalid one shows the
# error with a caret under the right column and the program keeps going; Enter saves the
# pattern in the history (Up brings it back, also after a restart: it is in progress.json).
# Its keys do what its parameter line says: letters are text, PgDn/PgUp the warp, Tab the
# access; F1 shows its keys and the syntax (each example of it draws a grid); opened from a
# step it starts from the step's code and values (what was typed before goes to the history).
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
# the keys the parameter line names: w is text, PgDn/PgUp move the warp, Tab the access
keys C-u
lit '__shared__ float s[32][33]; block=32x8; s[threadIdx.y][threadIdx.x] = 0; s[tid % 32][tid / 32]'
expect "warp 0/8 \\[PgDn/PgUp\\] · access 1/2 \\[Tab\\]: store s \\(float, 4 B\\)"
grep -q "\\[w/W\\]\\|\\[a\\]" "$TMP/screen.txt" && fail "the playground names the tutorial's keys"
keys NPage NPage
expect "warp 2/8 \\[PgDn/PgUp\\]"
keys PPage
expect "warp 1/8 \\[PgDn/PgUp\\]"
keys Tab
expect "warp 1/8 \\[PgDn/PgUp\\] · access 2/2 \\[Tab\\]: load s"
lit '; warp=5'
expect "warp 5/8 \\[PgDn/PgUp\\]"
keys NPage
expect "the text sets the warp \\(warp=N\\): change it there"
keys End
lit 'w'
expect "^(>|…) .*warp=5w"   # … : the line's start is scrolled away
expect "error: "

# F1: the playground's keys and the syntax; any key closes it
keys F1
expect "printable keys +type the pattern"
expect "PgDn PgUp +next / previous warp"
expect "Statements are separated by ;"
grep -q "next step" "$TMP/screen.txt" && fail "F1 in the playground shows the tutorial's keys"
keys Escape
expect "playground"
# every example of the syntax help draws a grid
for ex in '__shared__ struct { float x, y; } p[64]; p[lane].y' \
          'extern __shared__ char m[]; float *f = (float *)m; dynamic=4096; f[lane]' \
          'typedef float2 T; __shared__ T v[64]; int r = tid / 32; if (lane < 16) v[lane + r]' \
          '__shared__ float s[32][32 + PAD]; PAD=1; s[lane][0] = 0' \
          '__shared__ int q[64]; block=32x8; q[(lane ^ warp) % 64 + min(tid, 1)]'; do
    keys C-u
    lit "$ex"
    wait_for "$GRID_HEADER" 5 || fail "the syntax example '$ex' draws no grid"
    grep -q "error: " "$TMP/screen.txt" && fail "the syntax example '$ex' fails"
done
keys Escape
expect " 1\\.1/"
keys q
expect "EXITED rc=0"
grep -q 'PAD=1; s\[lane\]\[0\]' "$PROGRESS" || fail "history not saved in $PROGRESS"

# opened from a step, the playground starts from the step as it is (5.1 at PAD=1)
start 80 24 -- --lessons lessons --lang en --chapter 5 --step 1
expect " 5\\.1/"
keys e   # a predict step comes into the playground once answered or revealed (tui_hidden.sh)
expect "revealed without an answer"
expect "PAD=1 \\[p/P\\]"   # revealed: the question's values (tui_panel.sh)
keys g
expect "> __shared__ float data\\[32\\]\\[32 \\+ PAD\\]; data\\[lane\\]\\[0\\]; PAD=1"
grep -q "unset" "$TMP/screen.txt" && fail "the step's parameter is unset in the playground"
expect "model +1 wavefront "
lit '; int x = 1'
keys Escape g
expect "^(>|…) .*PAD=1; int x = 1"     # the same step, the same values: the edit stays
keys Escape p g
expect "> __shared__ float data\\[32\\]\\[32 \\+ PAD\\]; data\\[lane\\]\\[0\\]; PAD=0$"
keys Up
expect "^(>|…) .*PAD=1; int x = 1"     # what was typed before is in the history
# a step with types and a block: the element type and the launch come along
keys Escape
keys q
expect "EXITED rc=0"
start 80 24 -- --lessons tests/sh/tui_fixtures/lessons --lang en --chapter 1 --step 3
expect " 1\\.3/"
keys t g
expect "> typedef float4 T; __shared__ T v\\[128\\]; v\\[lane \\* S\\] = 0; S=2"
keys Escape c End Enter
expect " 1\\.5/"
keys a
expect "access 2/2 \\[a\\]: load tile"
keys g
expect "block=32x8x1"
expect "access 2/2 \\[Tab\\]: load tile"  # the access shown on the step comes along
expect "model +32 wavefronts"
keys Escape q
expect "EXITED rc=0"
exit 0
