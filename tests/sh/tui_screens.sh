#!/bin/sh
# tui_screens.sh: the screens around the step: contents (c) jumps to a step, sweep (s) charts
# wavefronts against the parameter and moves it, inspect (i) names lanes, words, banks and who
# conflicts, help (?), hints (h), type (t), warp (w), access (a), exports (x SVG, r report) and
# presenter mode at 100x30 (key sentence, no key bar, e reveals). Uses the fixture lesson.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons
OUT="$TMP/out"
mkdir -p "$OUT"

start 80 24 BANKLAB_EXPORT_DIR="$OUT" -- --lessons $FIX --lang en --reset --chapter 1 --step 2
expect " 1\\.2/5 "
expect "PAD=0 \\[p/P\\]"
expect "model +32 wavefronts"

# contents: the cursor starts on the current step; two down, Enter
keys c
expect "contents"
expect ">  1\\.2 "
keys Down Down Enter
expect " 1\\.4/5 "
lit 1
keys Enter
expect "right \\(answer: 1\\)"
keys i
expect "bank 3, pass 1, word 3 \\(byte 12\\): lanes 0-31 share it \\(free\\); lane 0 at 12 B"
expect "no conflict: bank 3 serves only this word"
keys Enter Enter
expect "lanes 0-31 share it \\(free\\); lane 2 at 12 B"
keys i
keys c Up Up Enter
expect " 1\\.2/5 "

# sweep: PAD 0..8, Right moves the value and the scene follows
keys s
expect "sweep PAD over 0\\.\\.8"
expect "PAD=0: 32 wavefronts \\(model\\)"
keys Right
expect "PAD=1: 1 wavefront \\(model\\)"
keys Escape
expect " 1\\.2/5 "
expect "PAD=1 \\[p/P\\]"
expect "model +1 wavefront "
keys p
expect "model +32 wavefronts"

# inspect: bank 0, first word: lane 0; the next word down: lane 1 at byte 128; conflicts named
keys i
expect "bank 0, pass 1, word 0 \\(byte 0\\): lane 0 at offset 0 B"
expect "conflicts with lanes 1-31"
keys Down
expect "word 32 \\(byte 128\\): lane 1 at offset 128 B"
keys Right
expect "bank 1, pass 1: idle"
keys Escape
wait_gone "bank 1, pass 1" || fail "inspect did not close"

# help overlay lists keys; any key closes it
keys '?'
expect "banklab keys"
expect "playground"
keys z
wait_gone "banklab keys" || fail "help did not close"

# hints
keys h
expect "hint 1 +A row is 32 words long"
keys h
expect "no more hints"

# export the grid as SVG and a report
keys x
expect "grid written to .*banklab-tui-fixture-column-1\\.svg"
grep -q "<svg" "$OUT/banklab-tui-fixture-column-1.svg" || fail "no SVG written"
keys r
expect "report written"
ls "$OUT"/banklab-report-*.md >/dev/null 2>&1 || fail "no Markdown report"
ls "$OUT"/banklab-report-*.json >/dev/null 2>&1 || fail "no JSON report"

# type cycling (float2 -> float4) and the passes of a vector store
keys n
expect " 1\\.3/5 "
expect "store v \\(float2, 8 B\\)"
expect "^ *p2 "
keys t
expect "store v \\(float4, 16 B\\)"
expect "^ *p4 "
# inspect a 16-byte lane: it spans four banks
keys i
expect "bank 0, pass 1, word 0 \\(byte 0\\): lane 0 at offset 0 B over banks 0-3"
keys i

# warp and access of a two-access kernel
keys n n
expect " 1\\.5/5 "
expect "warp 0/8 \\[w/W\\]"
expect "access 1/2 \\[a\\]: store tile"
keys w
expect "warp 1/8"
keys W
expect "warp 0/8"
keys a
expect "access 2/2 \\[a\\]: load tile"
expect "model +32 wavefronts"
keys Tab
expect "access 1/2 \\[a\\]: store tile"
keys q
expect "EXITED rc=0"

# presenter mode at 100x30: the key sentence, no key bar, e reveals
start 100 30 -- --lessons $FIX --lang en --reset --present --chapter 1 --step 4
expect "One word for everyone is a broadcast\\."
grep -q "All 32 lanes read the same word" "$TMP/screen.txt" && fail "presenter shows the full text"
grep -q "n next" "$TMP/screen.txt" && fail "presenter shows the key bar"
expect "Press e \\(or Enter\\) to reveal"
grep -qE "$GRID_HEADER" "$TMP/screen.txt" && fail "presenter shows the grid before the reveal"
keys e
expect 'bank +0 +1 +2 '
expect "model: 1 wavefront"
# a step without "key": its first sentence
keys b b
expect " 1\\.2/5 "
expect "Lane n reads s\\[n\\]\\[0\\]\\."
grep -q "Press p to add padding" "$TMP/screen.txt" && fail "presenter shows more than the first sentence"
keys q
expect "EXITED rc=0"
exit 0
