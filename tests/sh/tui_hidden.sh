#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_hidden.sh: a predict step's answer stays hidden until it is answered. At every predict
# step of lessons/ (from the JSON, with jq), in English with the shipped H200 recording (so
# that measurements exist and could leak), before answering: the sweep (s), the inspector (i),
# the playground (g, which would carry the step in), the kernel view (z), another access (a),
# a parameter key, the SVG export (x) and the report (r). After each, no line that was not on
# the step's screen before shows a wavefront count, the grid or the model's line; the
# playground's line is not the step's code; no SVG is written; the report lists no pattern of
# the step. At 240 columns, so that the playground's line is shown whole. The waits after the
# keys are fixed (a leak may come later than the key's own drawing: a runner's answer), so the
# predict steps are shared among $HIDDEN_PARTS (3) banklabs at once, each in its own tmux session
# with its own state and export directories, each walking from 1.1 with n through every step
# up to the last of its share, as one banklab walked them all before.
. tests/sh/tui_fixtures/lib.sh

jq -r -s 'sort_by(.chapter)[] | .chapter as $c | .id as $l | (.steps | length) as $n |
  .steps | to_entries[] |
  [$c, .key + 1, $n, (if .value.quiz.predict and .value.scene then 1 else 0 end), $l, .value.id,
   ((.value.scene.code // "-") | split("; ") | last),
   ((.value.scene.params // [])[0].keys // "-")] | @tsv' \
   lessons/*.json >"$TMP/steps.tsv" || fail "jq could not read lessons/*.json"
STEPS=$TMP/steps.tsv
total=$(wc -l <"$STEPS")
npredict=$(awk -F '\t' '$4 == 1' "$STEPS" | wc -l)
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

# check_step: the keys on the predict step at hand ($ch $st $ns $last $pkeys $lid $sid), each
# followed by its wait and the look for new lines that give the answer away
check_step() {
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
}

# replay_step: the same keys on a predict step before a part's share, without the waits and
# looks (the screens they open still waited for), so that every step is checked after the same
# keys on the steps before it as when one banklab walked them all
replay_step() {
    keys s Escape
    expect " $ch\\.$st/$ns "
    keys i Escape g
    expect "banklab: playground" 5
    keys Escape
    expect " $ch\\.$st/$ns "
    keys z
    expect "banklab: kernel" 5
    keys Escape
    expect " $ch\\.$st/$ns "
    keys a
    if [ "$pkeys" != - ]; then
        lit "$(printf '%s' "$pkeys" | cut -c2)"; lit "$(printf '%s' "$pkeys" | cut -c1)"
    fi
    keys x r
    i=0     # the report written, then removed as check_step removes it
    while ! ls "$EXPORT"/banklab-report-*.md >/dev/null 2>&1 && [ $i -lt $((250 * BANKLAB_TEST_SLOW)) ]; do
        sleep 0.02; i=$((i + 1))
    done
    rm -f "$EXPORT"/banklab-report-*
}

# part K FIRST LAST: in session tK, files under $TMP/pK, walk from 1.1 and check the predict
# steps numbered FIRST to LAST (in the lessons' order); the last part walks on to the end and
# past it. Writes the number checked to $TMP/checked (its own).
part() {
    TS=t$1 TMP=$TMP/p$1
    first=$2 lastp=$3
    EXPORT="$TMP/export"
    mkdir -p "$EXPORT" "$TMP/state"
    start 240 40 BANKLAB_EXPORT_DIR="$EXPORT" XDG_STATE_HOME="$TMP/state" -- --lessons lessons \
        --lang en --reset --replay assets/h200-recording.json
    n=0 p=0 checked=0
    while IFS="$(printf '\t')" read -r ch st ns predict lid sid last pkeys; do
        n=$((n + 1))
        at="step $ch.$st"
        expect " $ch\\.$st/$ns " 5
        [ "$predict" = 1 ] && p=$((p + 1))
        if [ "$predict" = 1 ] && [ "$p" -ge "$first" ]; then
            check_step
            checked=$((checked + 1))
        elif [ "$predict" = 1 ]; then
            replay_step
        fi
        [ "$p" -ge "$lastp" ] && [ "$lastp" -lt "$npredict" ] && break
        [ "$n" -lt "$total" ] && keys n
    done <"$STEPS"
    keys q
    expect "EXITED rc=0" 5
    echo "$checked" >"$TMP/checked"
    echo "part $1: predict steps $first to $lastp checked ($checked), walked $n steps"
}

: "${HIDDEN_PARTS:=3}"
case $HIDDEN_PARTS in ''|*[!0-9]*|0) HIDDEN_PARTS=1 ;; esac
[ "$HIDDEN_PARTS" -gt "$npredict" ] && HIDDEN_PARTS=$npredict
k=1 pids=""
while [ $k -le "$HIDDEN_PARTS" ]; do
    mkdir -p "$TMP/p$k"
    ( part $k $(( (k - 1) * npredict / HIDDEN_PARTS + 1 )) $(( k * npredict / HIDDEN_PARTS )) ) \
        >"$TMP/p$k.log" 2>&1 &
    pids="$pids $!"
    k=$((k + 1))
done
bad=0
for pid in $pids; do wait "$pid" || bad=1; done
checked=0 k=1
while [ $k -le "$HIDDEN_PARTS" ]; do
    cat "$TMP/p$k.log"
    c=$(cat "$TMP/p$k/checked" 2>/dev/null)
    checked=$((checked + ${c:-0}))
    k=$((k + 1))
done
[ "$bad" = 0 ] || { echo "FAIL: a part failed (above)"; exit 1; }
[ "$checked" = "$npredict" ] || { echo "FAIL: checked $checked of $npredict predict steps"; exit 1; }
echo "hidden answers: $checked predict steps, nothing shown before an answer"
exit 0
