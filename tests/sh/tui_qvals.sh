#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_qvals.sh: after a quiz is answered the panel shows the question's values beside the
# verdict, also when they are the scene's defaults and the learner moved a parameter before
# answering (4.4: "change it with m / M as you work through the question"): the grid and the
# figures agree with the verdict, and the learner's own setting is one key away (Q), named.
# Every shipped quiz whose check names the scene's default setting, at 80x24 in English and
# Chinese, and a sample in presenter mode (100x30, its smallest size).
. tests/sh/tui_fixtures/lib.sh
L=lessons
quit() { keys q; expect "EXITED rc=0"; }

# chapter step kind answer param default key: quizzes whose check names the scene's default
# setting (parameters, element type and access), with a parameter on keys to move
list=$(for f in $L/*.json; do jq -r '
  .chapter as $c | .steps | to_entries[] | .key as $i | .value
  | select(.quiz.check and .scene and (.scene.params // []) != [])
  | .quiz as $q | .scene as $sc
  | select(($q.check.access // 0) == ($sc.access // 0))
  | select(($q.check.type == null) or ($q.check.type == (($sc.types // [null])[0])))
  | select([$q.check.params // {} | to_entries[] | . as $kv
            | ($sc.params[] | select(.name == $kv.key) | .default) == $kv.value] | all)
  | ([$sc.params[] | select(.keys)] | first) as $p
  | select($p)
  | [$c, $i + 1, $q.kind, (if $q.kind == "choice" then $q.answer + 1 else $q.answer end),
     $p.name, $p.default, (if $p.default < $p.max then $p.keys[1:2] else $p.keys[0:1] end)]
  | @tsv' "$f"; done)
n=$(printf '%s\n' "$list" | grep -c .)
set -f   # keys such as ? must not glob
[ "$n" -ge 25 ] || fail "only $n quizzes name the scene's defaults (the lessons changed?)"

# answer C S (KIND ANSWER) after moving PARAM off DEFAULT with KEY; LANG, W, H, extra options
check_one() {
    c=$1 s=$2 kind=$3 ans=$4 p=$5 def=$6 key=$7 lang=$8 w=$9 h=${10}; shift 10
    start "$w" "$h" -- --lessons $L --lang "$lang" --reset --chapter "$c" --step "$s" "$@"
    expect " $c\\.$s/"
    expect "$p=$def \\["
    keys "$key"
    wait_gone "$p=$def \\[" || fail "$lang $c.$s: $key did not move $p"
    moved=$(sed -n "s/.*$p=\\(-\\{0,1\\}[0-9]*\\) \\[.*/\\1/p" "$TMP/screen.txt" | head -n 1)
    if [ "$kind" = choice ]; then keys "$ans"; else lit "$ans"; keys Enter; fi
    if [ "$lang" = zh ]; then
        expect "✓ 正确"
        expect "网格显示的是题目的取值：$p = $def（按 Q 回到你的取值：$p = $moved）"
    else
        expect "✓ right"
        expect "The grid shows the question's values: $p = $def \\(Q: yours, $p = $moved\\)"
    fi
    expect "$p=$def \\[" || fail "$lang $c.$s: the panel does not show the question's $p = $def"
    # the key bar names where Q goes (where it has room for Q): the learner's values
    grep -qE "Q (scene's values|场景的取值)" "$TMP/screen.txt" && fail "$lang $c.$s: Q named the scene's values"
    grep -q "$p=$moved \\[" "$TMP/screen.txt" && fail "$lang $c.$s: the panel still shows $p = $moved"
    # Q: the learner's own setting, named; Q again: the question's
    keys Q
    expect "$p=$moved \\["
    if [ "$lang" = zh ]; then expect "网格显示的是 $p = $moved"; else expect "The grid shows $p = $moved;"; fi
    keys Q
    expect "$p=$def \\["
    quit
}

for lang in en zh; do
    printf '%s\n' "$list" | while IFS='	' read -r c s kind ans p def key; do
        check_one "$c" "$s" "$kind" "$ans" "$p" "$def" "$key" "$lang" 80 24
    done || exit 1
done
# presenter mode: 1.3, 3.6, 4.4 and 11.4
printf '%s\n' "$list" | grep -E '^(1	3|3	6|4	4|11	4)	' | while IFS='	' read -r c s kind ans p def key; do
    check_one "$c" "$s" "$kind" "$ans" "$p" "$def" "$key" en 100 30 --present
    check_one "$c" "$s" "$kind" "$ans" "$p" "$def" "$key" zh 100 30 --present
done || exit 1

# the question's values, never moved: nothing to go back to, and Q says so
start 80 24 -- --lessons $L --lang en --reset --chapter 4 --step 4
expect " 4\\.4/"
lit 31
keys Enter
expect "✓ right \\(answer: 31\\)"
expect "STRIDE=32 \\["
grep -q "The grid shows" "$TMP/screen.txt" && fail "4.4 never moved: a line about other values"
keys Q
expect "the question names no values other than the scene's"
quit
echo "tui_qvals: $n quizzes, en and zh, presenter mode: ok"
exit 0
