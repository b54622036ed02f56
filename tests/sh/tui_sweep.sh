#!/bin/sh
# tui_sweep.sh: the sweep chart at 80x24 with more values than columns: the title names the
# range the sweep covers and its spacing, the axis runs to the last value (the chart samples
# its values evenly instead of stopping part-way), labels never run together (under the axis
# and on top of the bars). Lessons 3.3 (IDX 0..1023) and 1.5 (STRIDE 1..32, two columns per
# value) from lessons/.
. tests/sh/tui_fixtures/lib.sh

labels() { # the row under the ▲ mark: the value labels
    awk 'f { print; exit } /▲/ && !/[0-9]/ { f = 1 }' "$TMP/screen.txt"
}

start 80 24 -- --lessons lessons --lang en --reset --chapter 3 --step 3
expect " 3\\.3/"
keys s
expect "sweep IDX over 0\\.\\.1016 \\(every 8\\)"
l=$(labels)
echo "$l" | grep -qE "^ +0 .* 1016 *$" || fail "the axis does not run from 0 to 1016: '$l'"
# the labels rise from left to right, one space at least between them
echo "$l" | awk '{ for (i = 2; i <= NF; i++) if ($i + 0 <= $(i - 1) + 0) exit 1 }' ||
    fail "labels out of order (run together?): '$l'"
expect "IDX=0: 1 wavefront"
keys Right Right
expect "IDX=16: 1 wavefront"
keys Escape
expect "IDX=16 \\[y/Y\\]"
keys q
expect "EXITED rc=0"

start 80 24 -- --lessons lessons --lang en --reset --chapter 1 --step 5
expect " 1\\.5/"
keys 2 s
expect "sweep STRIDE over 1\\.\\.32"
grep -q "every" "$TMP/screen.txt" && fail "every value fits, yet the title says it skips some"
l=$(labels)
echo "$l" | grep -qE "^ +1 .* 32 *$" || fail "the axis does not run from 1 to 32: '$l'"
# no value on top of a bar runs into its neighbour or into a bar ("2930█")
grep -E "[0-9]{2}█|[0-9]{3}" "$TMP/screen.txt" | grep -v "sweep\|STRIDE=\|shared" &&
    fail "labels run together"
keys q
expect "EXITED rc=0"
exit 0
