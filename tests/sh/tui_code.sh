#!/bin/sh
# tui_code.sh: code stays readable where it is cut or wrapped, at 80x24 on the shipped lessons:
# - a code line of the step's text that wraps continues indented, so its rest never reads as
#   a statement of its own (6.2's two `for` lines);
# - a formula in the text never puts an operator standing alone at the start of a line
#   (11.3's Swizzle formula, zh and en: no line starts with "^");
# - the panel's code, cut for room, keeps the access the grid draws in view (6.5's load
#   "... ^ threadIdx.x]" and store, 7.3's rates[lane] and ids[lane], before and after the
#   answer).
. tests/sh/tui_fixtures/lib.sh
L=lessons
quit() { keys q; expect "EXITED rc=0"; }
# the panel's code lines: from the line labelled code to the parameter line, joined
code() { awk '/^ (code|代码)  /{on=1} on && / access [0-9]+\/[0-9]+ / {exit} on' "$TMP/screen.txt" |
         sed 's/^ \(code\|代码\)  //; s/^       //; s/ *$//' | paste -sd ' ' -; }   # wrapped at spaces
has_code() { # TEXT (fixed): the panel's code shows it
    code | grep -qF -- "$1" || fail "$where: the panel's code does not show '$1': $(code)"
}

# --- 6.2: the wrapped `for` lines continue indented
start 80 24 -- --lessons $L --lang en --reset --chapter 6 --step 2
expect " 6\\.2/"
expect "^ for \\(int j = 0; j < 32; j \\+= 8\\) tile\\[threadIdx\\.y \\+ j\\]\\[threadIdx\\.x\\] ="
expect "^     in\\[\\(y \\+ j\\) \\* n \\+ x\\];"
expect "^     tile\\[threadIdx\\.x\\]\\[threadIdx\\.y \\+ j\\];"
grep -qE "^ (in\\[|tile\\[threadIdx\\.x\\]\\[threadIdx\\.y \\+ j\\];)" "$TMP/screen.txt" &&
    fail "6.2: a wrapped code line continues at the margin, as a statement of its own"
quit

# --- 11.3: the Swizzle formula, no line starting with ^
for lang in zh en; do
    start 80 24 -- --lessons $L --lang $lang --reset --chapter 11 --step 3
    expect " 11\\.3/"
    expect "Swizzle<3, 4, 3>"
    grep -nE "^ *\\^" "$TMP/screen.txt" && fail "11.3 $lang: a line starts with ^"
    quit
done

# --- 6.5: both accesses in view, before and after the answer
where=6.5
start 80 24 -- --lessons $L --lang en --reset --chapter 6 --step 5
expect " 6\\.5/"
expect "access 2/2 \\[a\\]: load"
has_code "tile[threadIdx.x][(threadIdx.y + 0) ^ threadIdx.x]"
keys 1
expect "right \\(answer: 1\\)"
expect "j=8 "
has_code "tile[threadIdx.x][(threadIdx.y + 8) ^ threadIdx.x]"
keys a
expect "access 1/2 \\[a\\]: store"
has_code "tile[threadIdx.y + 8][threadIdx.x ^ (threadIdx.y + 8)] = 0"
quit

# --- 7.3: rates[lane], then ids[lane], before and after the answer
where=7.3
start 80 24 -- --lessons $L --lang en --reset --chapter 7 --step 3
expect " 7\\.3/"
expect "access 1/2 \\[a\\]: load rates"
has_code "rates[lane]"
keys a
expect "access 2/2 \\[a\\]: load ids"
has_code "ids[lane]"
keys a
expect "access 1/2 \\[a\\]: load rates"
keys 2
expect "right \\(answer: 2\\)"
has_code "rates[lane]"
keys a
expect "access 2/2 \\[a\\]: load ids"
has_code "ids[lane]"
quit
echo "tui_code: ok"
exit 0
