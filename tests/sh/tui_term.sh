#!/bin/sh
# tui_term.sh: terminal handling. A storm of resizes (tmux resize-window in a loop) and the
# program still answers keys; below the minimum a "terminal too small: need WxH" screen;
# language switch at run time (Chinese text of the step appears, then English again);
# zh from the locale; NO_COLOR=1 draws without colour codes but with the glyph cues;
# a non-UTF-8 locale gives ASCII glyphs and English.
. tests/sh/tui_fixtures/lib.sh

first=$(ls lessons/*.json | head -n 1)
FIX=tests/sh/tui_fixtures/lessons
zh_title=$(jq -r -s 'sort_by(.chapter)[0].steps[0].title.zh' lessons/*.json)
en_title=$(jq -r -s 'sort_by(.chapter)[0].steps[0].title.en' lessons/*.json)
[ -n "$zh_title" ] && [ "$zh_title" != null ] || fail "no zh title in $first"

# --- resize storm
start 100 30 -- --lessons lessons --lang en --reset
expect " 1\\.1/"
i=0
while [ $i -lt 60 ]; do
    $TM resize-window -t t -x $((40 + (i * 37) % 120)) -y $((10 + (i * 13) % 45)) >/dev/null 2>&1
    i=$((i + 1))
done
$TM resize-window -t t -x 50 -y 15
expect "terminal too small: need 72x20"
$TM resize-window -t t -x 80 -y 24
expect " 1\\.1/"
keys n
expect " 1\\.2/" || fail "no answer to keys after the resize storm"
keys b
expect " 1\\.1/"

# --- language switch at run time
keys l
expect "$zh_title"
keys l
expect "$en_title"
keys q
expect "EXITED rc=0"

# --- zh from the locale (also when zh_CN.UTF-8 itself is not installed); --lang wins
start 80 24 LANG=zh_CN.UTF-8 -- --lessons lessons --reset
expect "$zh_title"
keys q
expect "EXITED rc=0"
start 80 24 LANG=zh_CN.UTF-8 -- --lessons lessons --reset --lang en
expect "$en_title"
keys q
expect "EXITED rc=0"

# --- NO_COLOR: no colour escapes, glyph cues still there (a conflict step: '!' cells)
colour_re='\[([0-9]+;)*(3[0-7]|4[0-7]|38|48)(;[0-9]+)*m'
start 80 24 -- --lessons lessons --lang en --reset
expect " 1\\.1/"
sleep 0.2
$TM capture-pane -e -p -t t >"$TMP/colour.txt"
grep -qE "$colour_re" "$TMP/colour.txt" || fail "expected colour escapes without NO_COLOR"
keys q
expect "EXITED rc=0"
start 80 24 NO_COLOR=1 -- --lessons lessons --lang en --reset
expect " 1\\.1/"
expect "$GRID_HEADER"
$TM capture-pane -e -p -t t >"$TMP/mono.txt"
grep -qE "$colour_re" "$TMP/mono.txt" && fail "colour escapes with NO_COLOR=1"
keys q
expect "EXITED rc=0"
# the same with --no-color on a step with a conflict: the cells carry '!'
start 120 40 -- --lessons $FIX --lang en --reset --no-color --chapter 1 --step 2
expect "$GRID_HEADER"
expect " 0! "
$TM capture-pane -e -p -t t >"$TMP/mono.txt"
grep -qE "$colour_re" "$TMP/mono.txt" && fail "colour escapes with --no-color"
keys q
expect "EXITED rc=0"

# a monochrome terminal (vt100 has no colours): no colour escapes either
start 80 24 TERM=vt100 -- --lessons $FIX --lang en --reset --chapter 1 --step 2
expect "^ +0!"
$TM capture-pane -e -p -t t >"$TMP/mono.txt"
grep -qE "$colour_re" "$TMP/mono.txt" && fail "colour escapes on a vt100"
keys q
expect "EXITED rc=0"

# --- not UTF-8: ASCII glyphs and English even with --lang zh
start 80 24 LANG=C LC_ALL=C -- --lessons lessons --reset --lang zh
expect "$en_title"
expect 'bank +0 +4 +8 '
expect '\^worst \.idle'
grep -q '·' "$TMP/screen.txt" && fail "UTF-8 glyphs in a C locale"
keys q
expect "EXITED rc=0"
exit 0
