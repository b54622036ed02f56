#!/bin/sh
# tui_walk.sh: walk every step of every lesson in lessons/ with n. At 80x24, in English and in
# Chinese, every quiz is answered wrong and then right; on every screen the key bar shows next
# (not on the last step), back (not on the first), help and quit, after each answer the verdict and
# the start of the explanation are on the screen or come onto it with PgDn, and no line ends
# in a word cut short without an ellipsis (a line's last word must be a word of the lessons or
# of the program's sources). Predict steps hide the grid until answered; every step with a
# scene draws the bank grid with the results panel intact below it. Then at 120x40 and at the
# minimum size 72x20 (right answers only), and in presenter mode at its minimum 100x26, where
# after e the explanation of every predict step must be on screen under the grid. The step
# list comes from the JSON (jq), not from the program.
. tests/sh/tui_fixtures/lib.sh

jq -r -s 'sort_by(.chapter)[] | .chapter as $c | (.steps | length) as $n | .steps | to_entries[] |
  .value.quiz as $q |
  [$c, .key + 1, $n, (if .value.scene then 1 else 0 end), ($q.kind // "-"),
   (if $q.predict then 1 else 0 end), ($q.answer // 0 | tostring),
   (($q.choices // []) | length),
   ($q.explanation.en // "-" | gsub("`"; "") | split(" ") | .[0:3] | join(" ")),
   ($q.explanation.zh // "-" | gsub("`"; "") | .[0:6])] | @tsv' \
   lessons/*.json >"$TMP/steps.tsv" || fail "jq could not read lessons/*.json"
total=$(wc -l <"$TMP/steps.tsv")
[ "$total" -gt 0 ] || fail "no steps in lessons/"

# the words a line may end with: every word of the lessons and of the program's sources
# (printf conversions taken out), split where the screen's check splits
{
    jq -r '.. | strings' lessons/*.json
    cat src/*/*.c src/*/*.h src/ui/strings.def | sed -e 's/\\n/ /g' -e 's/%[-+ #0-9.*]*[hlLjzt]*[a-zA-Z]/ /g'
} | LC_ALL=C tr -d '`' | LC_ALL=C tr -c 'A-Za-z0-9_./:;,()=+*%<>&|!?#[]{}\047-' '\n' | LC_ALL=C sort -u >"$TMP/words"

# the same list as one dictionary for grep -Fx, made once: "w WORD" for every word, "f FORM"
# for each word's shape once capitals and digits are taken as one, "c CODE" for each word of
# code (brackets, operators) once its names and values are taken as one
LC_ALL=C awk '
    function shape(s) { gsub(/[A-Z0-9]+/, "#", s); return s }
    function code(s) { gsub(/[A-Za-z0-9_]+/, "#", s); return s }
    { print "w " $0; print "f " shape($0); if ($0 ~ /[][(){}=*+<>&|]/) print "c " code($0) }' \
    "$TMP/words" | LC_ALL=C sort -u >"$TMP/dict"

# cut_words WHAT: fail when a line of the screen ends in something that is not a word: the
# last run of ASCII word characters of a line (Chinese may break between any two characters),
# a word of the list, or one once capitals and digits are taken as one (code with a
# parameter's value in place of its name), code (brackets, operators) of a known shape, marks
# and numbers, or grid cells. The screen's line ends that are none of the marks, numbers and
# cells are looked up in the dictionary at once (one grep), not by loading the list each time.
cut_words() {
    LC_ALL=C awk '
        function shape(s) { gsub(/[A-Z0-9]+/, "#", s); return s }
        function code(s) { gsub(/[A-Za-z0-9_]+/, "#", s); return s }
        {
            line = $0
            sub(/ +$/, "", line)
            sub(/\342\206[\221\223]$/, "", line)        # a scroll mark in the margin
            sub(/ +$/, "", line)
            if (!match(line, /[A-Za-z0-9_.\/:;,()=+*%<>&|!?#{}\047[\]-]+$/))
                next
            t = substr(line, RSTART)
            if (t ~ /^[0-9.,:;()%\/=+*<>!?#{}[\]-]*$/)
                next
            if (t ~ /^([0-9A-W][!*#]?)+$/)     # grid cells: lanes and word counts 0-9, A-W
                next
            u1 = t
            sub(/[.,:;!?]+$/, "", u1)
            u2 = u1
            sub(/[.,:;!?)\]]+$/, "", u2)
            c = t ~ /[][(){}=*+<>&|]/ ? code(t) : ""
            # the line, the end, and what may make it a word: the same end stripped of
            # marks, its shape, its code
            printf "%d\t%s\tw %s\tw %s\tw %s\tf %s\tc %s\n", FNR, t, t, u1, u2, shape(t), c
        }' "$TMP/screen.txt" >"$TMP/ends.txt"
    [ -s "$TMP/ends.txt" ] || return 0
    {   echo "="     # found.txt is never empty (awk's NR == FNR below)
        cut -f3- "$TMP/ends.txt" | tr '\t' '\n' | LC_ALL=C grep -v '^[wc] $' |
            LC_ALL=C grep -Fx -f - "$TMP/dict"
    } >"$TMP/found.txt"
    LC_ALL=C awk -F '\t' -v what="$1" '
        NR == FNR { known[$0] = 1; next }
        {
            for (i = 3; i <= 7; i++)
                if ($i in known && $i != "c ")
                    next
            printf "%s: line %d ends in \"%s\", not a word and no ellipsis\n", what, $1, $2
            bad = 1
        }
        END { exit bad }' "$TMP/found.txt" "$TMP/ends.txt" >"$TMP/cut.txt" || {
        cat "$TMP/cut.txt"
        fail "$1: a word cut short"
    }
}

# check_screen WHAT: next (but on the last step, step n of total), back (but on the first),
# help and quit on the key bar (beside a message too), no word cut short
check_screen() {
    screen >"$TMP/screen.txt"
    bar=$(tail -n 1 "$TMP/screen.txt")
    case $bar in
    *"$HELP"*"$QUIT"*) ;;
    *) fail "$1: the key bar lacks one of '$HELP' '$QUIT'" ;;
    esac
    case $n:$bar in
    "$total":*"$NEXT"*) fail "$1: the last step's key bar offers '$NEXT'" ;;
    "$total":*) ;;
    *"$NEXT"*) ;;
    *) fail "$1: the key bar lacks '$NEXT'" ;;
    esac
    case $n:$bar in
    1:*"$BACK"*) fail "$1: the first step's key bar offers '$BACK'" ;;
    1:*) ;;
    *"$BACK"*) ;;
    *) fail "$1: the key bar lacks '$BACK'" ;;
    esac
    cut_words "$1"
}

# reach WHAT TEXT: TEXT (fixed, not a pattern) is on the screen, or PgDn brings it there
reach() {
    re=$(printf '%s' "$2" | sed 's/[][\\.*^$()+?{}|]/\\&/g')
    set -- "$1" "$re"
    wait_for "$2" 2 && return 0
    i=0
    while [ $i -lt 8 ]; do
        keys PgDn
        wait_for "$2" 1 && return 0
        i=$((i + 1))
    done
    fail "$1: /$2/ neither shown nor reachable with PgDn"
}

# answer KIND ANSWER N RIGHT: the right answer, or a wrong one (RIGHT 0)
answer() {
    if [ "$1" = choice ]; then
        if [ "$4" = 1 ]; then keys "$(($2 + 1))"; else keys "$((($2 + 1) % $3 + 1))"; fi
    else
        keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
        if [ "$4" = 1 ]; then lit "$2"; else lit "$(awk "BEGIN { print $2 + 100 }")"; fi
        keys Enter
    fi
}

walk() { # W H LANG FULL
    lang=$3 full=$4
    if [ "$lang" = zh ]; then
        right="✓ 正确" wrong="✗ 不对" model="模型" HELP="? 帮助" QUIT="q 退出" NEXT="n 下一步" BACK="b 上一步"
        modelre="[0-9]+ 个 wavefront · [0-9]+ 次冲突 · [0-9]+ 路 · [0-9]+ 批"
        gpure="^ (无 GPU：|实测 )"
    else
        right="✓ right" wrong="✗ not quite" model="model" HELP="? help" QUIT="q quit" NEXT="n next" BACK="b back"
        modelre="[0-9]+ wavefronts? · [0-9]+ conflicts? · [0-9]+-way · [0-9]+ pass"
        gpure="^ (no GPU: |measured )"
    fi
    start "$1" "$2" -- --lessons lessons --lang "$lang" --reset
    n=0
    while IFS="$(printf '\t')" read -r ch st ns scene kind predict ans nch expl_en expl_zh; do
        n=$((n + 1))
        at="$1x$2 $lang step $ch.$st"
        expect " $ch\\.$st/$ns " 5
        # a capture can catch the new header before the old grid is erased: the grid must be
        # gone within 2 s, not at the first capture
        if [ "$predict" = 1 ] && ! wait_gone "$GRID_HEADER" 2; then
            fail "$at: predict step shows the grid before an answer"
        fi
        check_screen "$at"
        if [ "$lang" = zh ]; then expl=$expl_zh; else expl=$expl_en; fi
        if [ "$kind" != - ] && [ "$full" = 1 ]; then
            answer "$kind" "$ans" "$nch" 0
            reach "$at, wrong answer" "$wrong"
            reach "$at, wrong answer" "$expl"
            check_screen "$at, wrong answer"
        fi
        if [ "$kind" != - ]; then
            answer "$kind" "$ans" "$nch" 1
            reach "$at, right answer" "$right"
            reach "$at, right answer" "$expl"
            check_screen "$at, right answer"
        fi
        if [ "$scene" = 1 ]; then
            wait_for "$GRID_HEADER" 5 || fail "$at: no bank grid"
            # the GPU line once the runner has answered (the first frame looks for one)
            wait_for "$gpure" 5 || fail "$at: no GPU line"
            # the results panel is intact under the grid (nothing drawn over it)
            grep -qE "^ $model +$modelre" "$TMP/screen.txt" || fail "$at: no intact model line"
        fi
        [ "$n" -lt "$total" ] && keys n
    done <"$TMP/steps.tsv"
    keys n
    if [ "$lang" = zh ]; then expect "整个课程的最后一步" 5; else expect "last step of the course" 5; fi
    check_screen "$1x$2 $lang: the last message"
    keys q
    expect "EXITED rc=0" 5
    echo "$1x$2 $lang: walked $n steps"
}

# presenter mode at 100x26: e reveals predict steps; the grid, the model line and the
# explanation (its first words) fit
present_walk() {
    start 100 26 -- --lessons lessons --lang en --reset --present
    n=0
    while IFS="$(printf '\t')" read -r ch st ns scene kind predict ans nch expl_en expl_zh; do
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
                # the verdict's line can be captured before the explanation under it is drawn
                # (seen once under make test's load): wait for the explanation's words too
                re=$(printf '%s' "$expl_en" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
                wait_for "$re" 5 ||
                    fail "present step $ch.$st: the explanation ('$expl_en ...') is not on screen"
            fi
            cut_words "present step $ch.$st"
        fi
        [ "$n" -lt "$total" ] && keys n
    done <"$TMP/steps.tsv"
    keys q
    expect "EXITED rc=0" 5
    echo "100x26 presenter: walked $n steps"
}

walk 80 24 en 1
walk 80 24 zh 1
walk 120 40 en 0
walk 72 20 en 0
present_walk
exit 0
