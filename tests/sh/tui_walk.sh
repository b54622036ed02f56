#!/bin/sh
# tui_walk.sh: at 80x24 and 120x40, walk every step of every lesson in lessons/ with n,
# answering each quiz with the answer from the lesson file (checked: "right" appears), checking
# that predict steps hide the grid until answered and that every step with a scene draws the
# bank grid with the results panel intact below it; again at 80x24 in Chinese (text wrapped
# by display width), at the minimum size 72x20, then in presenter mode at its minimum 100x26,
# where after e the explanation of every predict step must be on screen under the grid.
# The step list comes from the JSON (jq), not from the program.
. tests/sh/tui_fixtures/lib.sh

jq -r -s 'sort_by(.chapter)[] | .chapter as $c | (.steps | length) as $n | .steps | to_entries[] |
  [$c, .key + 1, $n, (if .value.scene then 1 else 0 end), (.value.quiz.kind // "-"),
   (if .value.quiz.predict then 1 else 0 end), (.value.quiz.answer // 0 | tostring),
   ((.value.quiz.explanation.en // "-") | gsub("[`*]"; "") | split(" ")[0:3] | join(" "))] | @tsv' \
   lessons/*.json >"$TMP/steps.tsv" || fail "jq could not read lessons/*.json"
total=$(wc -l <"$TMP/steps.tsv")
[ "$total" -gt 0 ] || fail "no steps in lessons/"

walk() { # W H [LANG]
    lang=${3:-en}
    if [ "$lang" = zh ]; then right="正确 \\(答案"; model="模型"; else right="right \\(answer: "; model="model"; fi
    start "$1" "$2" -- --lessons lessons --lang "$lang" --reset
    n=0
    while IFS="$(printf '\t')" read -r ch st ns scene kind predict answer explain; do
        n=$((n + 1))
        expect " $ch\\.$st/$ns " 5
        # a capture can catch the new header before the old grid is erased: the grid must be
        # gone within 2 s, not at the first capture
        if [ "$predict" = 1 ] && ! wait_gone "$GRID_HEADER" 2; then
            fail "$1x$2 step $ch.$st: predict step shows the grid before an answer"
        fi
        case $kind in
            choice) keys "$((answer + 1))"; expect "$right" 5 ;;
            number) lit "$answer"; keys Enter; expect "$right" 5 ;;
        esac
        if [ "$scene" = 1 ]; then
            wait_for "$GRID_HEADER" 5 || fail "$1x$2 step $ch.$st: no bank grid"
            # the results panel is intact under the grid (nothing drawn over it)
            grep -qE "^ $model +[0-9]+ wavefronts? · [0-9]+ conflicts? · [0-9]+-way · [0-9]+ pass" \
                "$TMP/screen.txt" || fail "$1x$2 step $ch.$st: no intact model line"
            grep -qE "^ (no GPU: |measured |无 GPU: |实测 )" "$TMP/screen.txt" || fail "$1x$2 step $ch.$st: no GPU line"
        fi
        [ "$n" -lt "$total" ] && keys n
    done <"$TMP/steps.tsv"
    keys n
    expect "last step of the last chapter" 5
    keys q
    expect "EXITED rc=0" 5
    echo "$1x$2 $lang: walked $n steps"
}

# presenter mode at 100x26: e reveals predict steps; the grid, the model line and the
# explanation (its first words) fit
present_walk() {
    start 100 26 -- --lessons lessons --lang en --reset --present
    n=0
    while IFS="$(printf '\t')" read -r ch st ns scene kind predict answer explain; do
        n=$((n + 1))
        expect " $ch\\.$st/$ns " 5
        if [ "$scene" = 1 ]; then
            [ "$predict" = 1 ] && keys e
            wait_for "$GRID_HEADER" 5 || fail "present step $ch.$st: no bank grid"
            # a capture can catch the grid before the lines under it are drawn: wait for them
            wait_for "^  model: [0-9]+ wavefronts? · [0-9]+ conflicts? · [0-9]+-way" 5 ||
                fail "present step $ch.$st: no intact model line"
            grep -q "n next" "$TMP/screen.txt" && fail "present step $ch.$st: key bar shown"
            if [ "$predict" = 1 ]; then
                wait_for "revealed without an answer" 5 || fail "present step $ch.$st: no verdict"
                grep -qF -- "$explain" "$TMP/screen.txt" ||
                    fail "present step $ch.$st: the explanation ('$explain ...') is not on screen"
            fi
        fi
        [ "$n" -lt "$total" ] && keys n
    done <"$TMP/steps.tsv"
    keys q
    expect "EXITED rc=0" 5
    echo "100x26 presenter: walked $n steps"
}

walk 80 24
walk 120 40
walk 80 24 zh
walk 72 20
present_walk
exit 0
