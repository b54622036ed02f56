#!/bin/sh
# tui_hidden.sh: a predict step's answer stays hidden until it is answered. At every predict
# step of lessons/ (from the JSON, with jq), in English with the shipped H200 recording (so
# that measurements exist and could leak), before answering: the sweep (s), the inspector (i),
# the playground (g, which would carry the step in), the kernel view (z), another access (a),
# a parameter key, the SVG export (x) and the report (r). After each, no line that was not on
# the step's screen before shows a wavefront count, the grid or the model's line; the
# playground's line is not the step's code; no SVG is written; the report lists no pattern of
# the step. At 240 columns, so that the playground's line is shown whole.
. tests/sh/tui_fixtures/lib.sh

EXPORT="$TMP/export"
mkdir -p "$EXPORT"
jq -r -s 'sort_by(.chapter)[] | .chapter as $c | .id as $l | (.steps | length) as $n |
  .steps | to_entries[] |
  [$c, .key + 1, $n, (if .value.quiz.predict and .value.scene then 1 else 0 end), $l, .value.id,
   ((.value.scene.code // "-") | split("; ") | last),
   ((.value.scene.params // [])[0].keys // "-")] | @tsv' \
   lessons/*.json >"$TMP/steps.tsv" || fail "jq could not read lessons/*.json"
total=$(wc -l <"$TMP/steps.tsv")
npredict=$(awk -F '\t' '$4 == 1' "$TMP/steps.tsv" | wc -l)
[ "$npredict" -gt 0 ] || fail "no predict steps in lessons/"

# new_counts WHAT: lines of the screen that were not on the step's screen before (base.txt)
# must show no wavefront count, no grid header and no model line
new_counts() {
    screen >"$TMP/now.txt"
    awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen)' "$TMP/base.txt" "$TMP/now.txt" \
        >"$TMP/new.txt"
    if grep -E "[0-9]+(\.[0-9]+)? *(个 )?(wavefronts?|wf)([^a-z]|$)|$GRID_HEADER|^ *(model|模型)[: ] *[0-9]" \
        "$TMP/new.txt" >"$TMP/leak.txt"; then
        echo "--- new lines that give the answer away:"
        cat "$TMP/leak.txt"
        fail "$at: $1 shows the hidden access's wavefronts"
    fi
}

start 240 40 BANKLAB_EXPORT_DIR="$EXPORT" -- --lessons lessons --lang en --reset \
    --replay assets/h200-recording.json
n=0 checked=0
while IFS="$(printf '\t')" read -r ch st ns predict lid sid last pkeys; do
    n=$((n + 1))
    at="step $ch.$st"
    expect " $ch\\.$st/$ns " 5
    if [ "$predict" = 1 ]; then
        wait_gone "$GRID_HEADER" 2 || fail "$at: the grid before an answer"
        sleep 0.2
        screen >"$TMP/base.txt"
        keys s; sleep 0.3; new_counts "the sweep"; keys Escape
        expect " $ch\\.$st/$ns "
        keys i; sleep 0.2; new_counts "the inspector"; keys Escape
        keys g
        expect "banklab: playground" 5
        new_counts "the playground"
        grep -F -- "$last" "$TMP/now.txt" | grep -q '^>' && fail "$at: the playground took the step in"
        keys Escape
        expect " $ch\\.$st/$ns "
        keys z
        expect "banklab: kernel" 5
        new_counts "the kernel view"
        keys Escape
        expect " $ch\\.$st/$ns "
        keys a; sleep 0.2; new_counts "another access"
        if [ "$pkeys" != - ]; then
            up=$(printf '%s' "$pkeys" | cut -c2)
            down=$(printf '%s' "$pkeys" | cut -c1)
            lit "$up"; sleep 0.3; new_counts "a parameter key"; lit "$down"
        fi
        keys x; sleep 0.2; new_counts "the SVG export"
        keys r; sleep 0.3; new_counts "the report"
        ls "$EXPORT"/*.svg >/dev/null 2>&1 && fail "$at: an SVG of the hidden grid was written"
        md=$(ls "$EXPORT"/banklab-report-*.md 2>/dev/null | head -n 1)
        [ -n "$md" ] || fail "$at: r wrote no report"
        grep -F "| $lid/$sid |" "$md" && fail "$at: the report lists the hidden step's pattern"
        rm -f "$EXPORT"/banklab-report-*
        checked=$((checked + 1))
    fi
    [ "$n" -lt "$total" ] && keys n
done <"$TMP/steps.tsv"
keys q
expect "EXITED rc=0" 5
[ "$checked" = "$npredict" ] || fail "checked $checked of $npredict predict steps"
echo "hidden answers: $checked predict steps, nothing shown before an answer"
exit 0
