#!/bin/sh
# run.sh: alone
# tui_timing.sh: replay with the shipped H200 recording at 80x24, the "what must show":
# step 1.5 shows a time per access and a slowdown for strides 1, 2, 4, 8, 16, 32 (the slowdown
# about the stride), 5.1 for every PAD (a case kernel: row_col, with its kernel time), 7.3 at
# its defaults (dynamic_carve), and the sweeps of 1.5 and 5.1 draw no "?" (every value is
# recorded). Steps are found by id, keys from the lesson files, so reordered lessons still run.
. tests/sh/tui_fixtures/lib.sh
REC=assets/h200-recording.json
[ -r "$REC" ] || { echo "SKIP: $REC not found"; exit 77; }

# where ID: "CHAPTER STEP INC_KEY" of the step with that id (the first parameter's raise key:
# the second of its two, Shift = more)
where() {
    for f in lessons/*.json; do
        jq -r --arg id "$1" '.chapter as $c | .steps | to_entries[] | select(.value.id == $id) |
            "\($c) \(.key + 1) \(.value.scene.params[0].keys[1:2])"' "$f"
    done | head -n 1
}
# the slowdown on the measured lines (the time per access under load: the first line, or the
# second at 80 columns), or "" when none
slowdown() { sed -n 's/^ .*ns\/access under load.* \([0-9][0-9]*\.[0-9]\)× conflict-free.*/\1/p' "$TMP/screen.txt" | head -n 1; }
MEASURED='^ (measured)? .*[0-9]+\.[0-9]+ ns/access under load.* [0-9]+\.[0-9]× conflict-free'
measured() { sed -n '/^ measured/,/recorded on/p' "$TMP/screen.txt" | sed 's/  */ /g' | tr '\n' ' '; }

set -- $(where how-much-slower)
[ $# = 3 ] || fail "no step how-much-slower in lessons/"
start 80 24 -- --lessons lessons --lang en --reset --replay "$REC" --chapter "$1" --step "$2"
key=$3
expect " $1\\.$2/"
expect "recorded on NVIDIA H200"
v=1
while [ $v -le 32 ]; do
    expect "STRIDE=$v "
    case $v in 1|2|4|8|16|32)
        expect "$MEASURED"
        s=$(slowdown)
        awk -v s="$s" -v v="$v" 'BEGIN { exit !(s != "" && s >= 0.9 * v && s <= 1.1 * v) }' ||
            fail "STRIDE=$v: slowdown '$s', want about $v"
        echo "ok   1.5 STRIDE=$v: $(measured)";;
    esac
    [ $v = 32 ] || keys "$key"
    v=$((v + 1))
done
keys s
expect "measured: ns per warp access under load against STRIDE"
expect "STRIDE=32: 32 wavefronts \\(model\\) · [0-9.]+ ns/access, [0-9.]+× conflict-free"
head -n 22 "$TMP/screen.txt" | grep -q '?' && fail "1.5 sweep: a value without a measurement ('?')"
echo "ok   1.5 sweep: every stride measured"

set -- $(where padding)
[ $# = 3 ] || fail "no step padding in lessons/"
start 80 24 -- --lessons lessons --lang en --reset --replay "$REC" --chapter "$1" --step "$2"
key=$3
expect " $1\\.$2/"
keys e   # a predict step: reveal without answering
expect "PAD=1 "  # revealed: the question's values (tui_panel.sh); Q: the scene's own
keys Q
v=0
while [ $v -le 8 ]; do
    expect "PAD=$v "
    expect "$MEASURED"
    expect "kernel [0-9.]+ ms"
    echo "ok   5.1 PAD=$v: $(measured)"
    [ $v = 8 ] || keys "$key"
    v=$((v + 1))
done
s=$(slowdown)
awk -v s="$s" 'BEGIN { exit !(s >= 7 && s <= 9) }' || fail "PAD=8 (8-way): slowdown '$s'"
keys s
expect "measured: ns per warp access under load against PAD"
head -n 22 "$TMP/screen.txt" | grep -q '?' && fail "5.1 sweep: a value without a measurement ('?')"
echo "ok   5.1 sweep: every PAD measured"

set -- $(where misaligned)
[ $# = 3 ] || fail "no step misaligned in lessons/"
start 80 24 -- --lessons lessons --lang en --reset --replay "$REC" --chapter "$1" --step "$2"
expect " $1\\.$2/"
keys e
expect "Q: the scene's"
keys Q   # from the question's values back to the scene's defaults
expect "N=64 "
expect "$MEASURED"
expect "whole kernel: [0-9.]+ wavefronts"
echo "ok   7.3 defaults: $(measured)"
keys q
expect "EXITED rc=0"
exit 0
