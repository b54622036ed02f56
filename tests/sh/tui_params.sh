#!/bin/sh
# tui_params.sh: change a lesson parameter with its key and see the predicted numbers change
# to the model's values, compared with `banklab sim --json` for the same pattern, block, warp,
# access and parameter values; the code line shows the new value filled in. Three scenes
# (the first ones in lessons/ with a keyed parameter and no type list). Then: the capital key
# raises and the small one lowers (Shift = more); = types a value (refused out of range, kept
# to correct; Esc cancels; Tab or = moves to the next parameter; its digits never answer a
# quiz).
. tests/sh/tui_fixtures/lib.sh

jq -c -s '[sort_by(.chapter)[] | .chapter as $c | .steps | to_entries[] |
  select(.value.scene and (.value.scene.params // [] | length) > 0 and (.value.scene.types == null)
         and (.value.scene.params[0].keys // "" | length) == 2) |
  {c: $c, s: (.key + 1), sc: .value.scene, quiz: (.value.quiz != null)}] | .[0:3][]' \
  lessons/*.json >"$TMP/scenes.jsonl"
[ -s "$TMP/scenes.jsonl" ] || fail "no scene with a keyed parameter in lessons/"

model_line() { # sim json file -> "W wavefronts · C conflicts · K-way"
    jq -r '"\(.wavefronts) wavefronts? · \(.conflicts) conflicts? · \(.ways)-way"' "$1" |
        sed 's/wavefronts? /wavefronts? /'
}

checked=0
while read -r sc; do
    c=$(echo "$sc" | jq -r .c); s=$(echo "$sc" | jq -r .s)
    code=$(echo "$sc" | jq -r .sc.code)
    block=$(echo "$sc" | jq -r '(.sc.block // [32,1,1]) | map(tostring) | join("x")')
    warp=$(echo "$sc" | jq -r '.sc.warp // 0')
    access=$(echo "$sc" | jq -r '(.sc.access // 0) + 1')
    dyn=$(echo "$sc" | jq -r '.sc.dynamic_bytes // 0')
    # every parameter at its default, then the first one moved by one step with its key
    defs=$(echo "$sc" | jq -r '.sc.params[] | "--param \(.name)=\(.default)"' | tr '\n' ' ')
    p=$(echo "$sc" | jq -r '.sc.params[0].name')
    d=$(echo "$sc" | jq -r '.sc.params[0].default')
    st=$(echo "$sc" | jq -r '.sc.params[0].step // 1')
    mx=$(echo "$sc" | jq -r '.sc.params[0].max')
    keys2=$(echo "$sc" | jq -r '.sc.params[0].keys')
    # "pP": the first key lowers, the second raises (Shift = more)
    if [ $((d + st)) -le "$mx" ]; then k=$(echo "$keys2" | cut -c2); v=$((d + st))
    else k=$(echo "$keys2" | cut -c1); v=$((d - st)); fi

    start 100 40 -- --lessons lessons --lang en --reset --chapter "$c" --step "$s"
    expect " $c\\.$s/" 5
    keys e   # reveal a predict step (no-op message otherwise)
    for phase in before after; do
        if [ $phase = after ]; then
            keys "$k"
            expect "$p=$v " 5
            set -- $(echo "$defs" | sed "s/--param $p=[^ ]*/--param $p=$v/")
        else
            set -- $defs
        fi
        # shellcheck disable=SC2086
        "$BANKLAB" sim "$code" --block "$block" --warp "$warp" --access "$access" \
            --dynamic "$dyn" "$@" --json >"$TMP/sim.json" || fail "sim failed for $code $*"
        want=$(jq -r '"\(.wavefronts) wavefront[s]? · \(.conflicts) conflicts? · \(.ways)-way · \(.passes) pass"' "$TMP/sim.json")
        wait_for "model +$want" 5 || fail "$c.$s $phase ($*): expected model line /$want/"
    done
    # the code line has the new value filled in where the parameter was
    codeline=$(grep -E '^ code  ' "$TMP/screen.txt") || fail "no code line"
    echo "$codeline" | grep -qw -- "$p" && fail "code line still shows $p: $codeline"
    echo "$codeline" | grep -qw -- "$v" || fail "code line does not show $v: $codeline"
    checked=$((checked + 1))
    echo "ok $c.$s: $p $d -> $v: $want"
    keys q
    expect "EXITED rc=0" 5
done <"$TMP/scenes.jsonl"
[ "$checked" -gt 0 ] || fail "nothing checked"

# --- Shift = more, and typing a value (=) on the fixture lesson
FIX=tests/sh/tui_fixtures/lessons
start 80 24 -- --lessons $FIX --lang en --reset --chapter 1 --step 2
expect "PAD=0 \\[p/P\\]"
keys P
expect "PAD=1 \\[p/P\\]"          # the capital raises
keys p
expect "PAD=0 \\[p/P\\]"          # the small letter lowers
keys =
expect "PAD = _  \\(0\\.\\.8 · now 0\\)"
lit 12
keys Enter
expect "PAD takes a whole number in 0\\.\\.8"
expect "PAD = 12_"                # still typing: the value is kept to correct
keys BSpace BSpace
lit 5
keys Enter
expect "PAD=5 \\[p/P\\]"
expect "model +1 wavefront "      # stride 37: one word per bank
keys = Escape
expect "PAD=5 \\[p/P\\]"
keys q
expect "EXITED rc=0"
# a predict step with a number quiz: the digits typed after = are the value's, not the answer
start 80 24 -- --lessons $FIX --lang en --reset --chapter 1 --step 4
expect "hidden until you answer"
keys =
lit 40
keys Enter
expect "IDX=40 \\[y/Y\\]"
expect "hidden until you answer"
grep -q "your answer: 4" "$TMP/screen.txt" && fail "the value's digits went to the quiz"
keys q
expect "EXITED rc=0"
# two parameters: Tab (or = again) moves to the next one
start 80 24 -- --lessons lessons --lang en --reset --chapter 2 --step 3
expect "ROW=3 \\[j/J\\] · COL=7 \\[u/U\\]"
keys = Tab
expect "COL = _"
lit 39
keys Enter
expect "ROW=3 \\[j/J\\] · COL=39 \\[u/U\\]"
keys = =
expect "COL = _"
keys q
expect "EXITED rc=0"
[ "$(jq '[.quiz[]?] | length' "$PROGRESS")" = 0 ] || fail "typing values recorded a quiz answer"
echo "ok: Shift = more, typing values"
exit 0
