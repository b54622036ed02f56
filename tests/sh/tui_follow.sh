#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_follow.sh: what a step's text tells the learner to do after the quiz can be done, and
# what it says the screen shows is there, at 80x24 on the shipped lessons:
# - every instruction "lower|raise|set NAME to V with K" (zh: "用 K 把 NAME 降到|调回|调到|
#   改成|设为 V"), with one key, in a step with a quiz: after the right answer, pressing K
#   (at least once, at most 12 times) brings the scene's NAME to V; where the text then says to read the
#   model's message, the message is on the screen (7.3, both languages);
# - 11.8 names the line of assets/kernels/ldmatrix.cu where the ldmatrix's figures stand
#   without a GPU ("line N", "第 N 行"): the kernel view shows that line with the figures
#   of the step's scene at SWZ = 0 (where nvcc is here), and without nvcc no line has figures
#   and the view says why, as the text says.
. tests/sh/tui_fixtures/lib.sh
L=lessons
quit() { keys q; expect "EXITED rc=0"; }
# the value of NAME in the panel's parameter line ("NAME=V [k/K]"), or nothing
value() { sed -n "s/.* $1=\\(-\\{0,1\\}[0-9]*\\) \\[.*/\\1/p; s/^ $1=\\(-\\{0,1\\}[0-9]*\\) \\[.*/\\1/p" \
              "$TMP/screen.txt" | head -n 1; }

# chapter, step, kind, answer, lang, then the instructions as "NAME V K MESSAGE" (MESSAGE: 1
# when the text asks to read the model's message right after), one per line
jq -r '
  .chapter as $c | .steps | to_entries[] | .key as $i | .value
  | select(.quiz and .scene) | .quiz as $q
  | ["en", "zh"][] as $lang | .text[$lang] as $t
  | ($t | [scan(if $lang == "en"
                then "(?:set|lower|raise) ([A-Z][A-Z0-9]*) to (-?[0-9]+)(?: again)? with ([a-zA-Z])(?! /)([^.;]{0,40})"
                else "用 ([a-zA-Z]) 把 ([A-Z][A-Z0-9]*) (?:降到|调回|调到|改成|设为) (-?[0-9]+)([^。；]{0,20})" end)])
  | select(length > 0)
  | [$c, $i + 1, $q.kind, (if $q.kind == "choice" then $q.answer + 1 else $q.answer end), $lang,
     (map(if $lang == "en" then [.[0], .[1], .[2], .[3]] else [.[1], .[2], .[0], .[3]] end
          | "\(.[0]) \(.[1]) \(.[2]) \(if (.[3] | test("message|read it|报错|信息")) then 1 else 0 end)")
      | join(","))] | @tsv' $L/*.json >"$TMP/follow.tsv" || fail "jq could not read $L/*.json"
grep -q "^7	3	" "$TMP/follow.tsv" || fail "7.3 gives no instruction this suite can follow: $(cat "$TMP/follow.tsv")"
n=0
tab=$(printf '\t')
while IFS="$tab" read -r c s kind ans lang steps; do
    n=$((n + 1))
    where="$lang $c.$s"
    start 80 24 -- --lessons $L --lang "$lang" --reset --chapter "$c" --step "$s"
    expect " $c\\.$s/"
    if [ "$kind" = choice ]; then keys "$ans"; else lit "$ans"; keys Enter; fi
    expect "✓ (right|正确)"
    old_ifs=$IFS
    IFS=,
    for one in $steps; do
        IFS=$old_ifs
        set -- $one
        name=$1 want=$2 key=$3 msg=$4
        i=0
        screen >"$TMP/screen.txt"
        got=$(value "$name")
        [ "$got" = "$want" ] &&
            fail "$where: the text says to take $name to $want with $key, but after the answer it is $want already: the key does nothing the text describes"
        while [ "$got" != "$want" ] && [ $i -lt 12 ]; do
            keys -l "$key"
            wait_gone " $name=$got \\[" 2 || break   # the key moved nothing: it cannot get there
            got=$(value "$name")
            i=$((i + 1))
        done
        [ "$got" = "$want" ] ||
            fail "$where: the text says to take $name to $want with $key; after the answer $key takes it to $got"
        if [ "$msg" = 1 ]; then
            wait_for "(no result: the error is above|没有结果：错误见上)" 3 ||
                fail "$where: the text says to read the model's message at $name = $want; none is shown"
        fi
        IFS=,
    done
    IFS=$old_ifs
    quit
done <"$TMP/follow.tsv"
echo "ok   $n steps' instructions after the answer followed"

# --- 11.8: the line the text names, in the kernel view
step=$(jq -c 'select(.chapter == 11) | .steps[] | select(.id == "kernel-view")' $L/*.json)
[ -n "$step" ] || fail "11.8 (kernel-view) is not in $L"
for lang in en zh; do
    t=$(printf '%s' "$step" | jq -r ".text.$lang")
    if [ $lang = en ]; then line=$(printf '%s' "$t" | grep -oE 'ldmatrix line \(line [0-9]+\)' | grep -oE '[0-9]+')
    else line=$(printf '%s' "$t" | grep -oE 'ldmatrix 那一行（第 [0-9]+ 行）' | grep -oE '[0-9]+'); fi
    [ -n "$line" ] || fail "11.8 ($lang) does not name the line of ldmatrix.cu where its figures stand without a GPU"
    eval "line_$lang=$line"
done
[ "$line_en" = "$line_zh" ] || fail "11.8 names line $line_en in English, $line_zh in Chinese"
sed -n "${line_en}p" assets/kernels/ldmatrix.cu | grep -q '"=r"(r0)' ||
    fail "11.8's line $line_en of ldmatrix.cu is not the ldmatrix's asm: $(sed -n "${line_en}p" assets/kernels/ldmatrix.cu)"
wf=$(printf '%s' "$step" | jq '.expect[] | select(.params.SWZ == 0) | .wavefronts')
cf=$(printf '%s' "$step" | jq '.expect[] | select(.params.SWZ == 0) | .conflicts')
ideal=$((wf - cf))
ways=$(awk -v w="$wf" -v i="$ideal" 'BEGIN { printf "%.2f", w / i }')
if "$BANKLAB" kernel assets/kernels/ldmatrix.cu --model 2>/dev/null | grep -q "^ *$line_en  *1  *$wf  *$ideal  *$cf "; then
    start 80 24 -- --lessons $L --lang en assets/kernels/ldmatrix.cu
    expect "^>? *$line_en [ █▌▐▏▎▍▋▊▉]* +$cf +$ways │" 20
    quit
    echo "ok   11.8: the kernel view shows line $line_en at $wf wavefronts, excess $cf (the scene at SWZ = 0)"
else
    echo "note: the model does not execute ldmatrix.cu here (no nvcc?): the view's figures not checked"
fi
# without nvcc: nothing executed, no figures on any line, and why (as 11.8 says)
BANKLAB_NVCC=/nonexistent "$BANKLAB" kernel assets/kernels/ldmatrix.cu --model >"$TMP/nonvcc.txt" 2>&1
grep -qE "^ *$line_en +[0-9]" "$TMP/nonvcc.txt" && fail "without nvcc, line $line_en has figures: $(grep -E "^ *$line_en " "$TMP/nonvcc.txt")"
grep -q "not executed (no nvcc" "$TMP/nonvcc.txt" || fail "without nvcc, the view does not say why it shows no figures"
for lang in en zh; do
    printf '%s' "$step" | jq -r ".text.$lang" | grep -qE "Without nvcc nothing is executed|没有 nvcc 时什么也不执行" ||
        fail "11.8 ($lang) does not say what happens without nvcc as the view does"
done
echo "ok   11.8: without nvcc, no figures, and why, as the text says"
echo "tui_follow: ok"
exit 0
