#!/bin/sh
# lessons.sh: the shipped curriculum's own rules, beyond what `banklab check` requires of any
# lesson file: every figure a lesson quotes holds against the shipped recording (and a recording
# with that figure changed fails; figures that contradict what the tutorial's panel shows, or
# the comparison their sentence makes, fail), and every step with a scene names its keys in its
# text, in both languages: each parameter's keys, t when the scene cycles types, a when it has
# several accesses.
set -u
. tests/sh/lib.sh lessons.sh
t=$tmp
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
rec=assets/h200-recording.json
[ -f "$rec" ] || { echo "SKIP: no $rec"; exit 77; }

# 1. quoted figures against the shipped recording, and a record for every step's scene: the
#    shipped recording holds every chapter (chapter 11 since the H200 run of 2026-12-03, call 2
#    of docs/runs/h200-2026-12-03-calls.md), so a scene without a record is a failure like a
#    stale figure.
"$BANKLAB" check --recording "$rec" lessons/ >"$t/out" 2>&1 ||
    { fail "figures do not hold, or a scene has no record"; cat "$t/out"; }
n=$(sed -n 's/.* \([0-9][0-9]*\) figures: all hold$/\1/p' "$t/out")
[ "${n:-0}" -ge 40 ] || fail "only ${n:-0} quoted figures: $(tail -n 1 "$t/out")"

# 1b. a recording without a chapter's rows: its scenes have no record, check --recording exits 1
#     and names them (chapter 3, recorded today; and chapter 11, whichever recording ships)
for ch in common-cases:03-common-cases tensor-cores:11-tensor-cores; do
    id=${ch%%:*}; file=lessons/${ch#*:}.json
    jq --arg id "$id/" '.records |= map(select((.label | startswith($id)) | not))' "$rec" >"$t/without.json" ||
        fail "jq could not edit $rec"
    "$BANKLAB" check --quiet --recording "$t/without.json" "$file" >"$t/out" 2>&1; rc=$?
    [ $rc -eq 1 ] || fail "a recording without $id: exit $rc, want 1"
    grep -q "^$file: steps\[[0-9]*\]\.scene: the recording has no record of " "$t/out" ||
        fail "a recording without $id: no scene named: $(head -n 3 "$t/out")"
done

# 2. a re-made recording in which the first quoted figure's row measured 1000 times more: the
#    check names that figure and fails
first=$(jq -r -s '[.[] | .steps[] | (.figures // [])[]] | .[0] | [.group, .label, .field] | @tsv' lessons/*.json)
group=$(printf '%s' "$first" | cut -f1)
label=$(printf '%s' "$first" | cut -f2)
field=$(printf '%s' "$first" | cut -f3)
jq --arg g "$group" --arg l "$label" --arg f "$field" \
   '(.records[] | select(.group == $g and .label == $l) | .result | (.timing // {}), (.counters // {})
     | select(has($f)) | .[$f]) |= . * 1000 + 1' "$rec" >"$t/stale.json" || fail "jq could not edit $rec"
"$BANKLAB" check --quiet --recording "$t/stale.json" lessons/ >"$t/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a stale figure: exit $rc, want 1"
grep -q "figures\[[0-9]*\]: the recording gives .*($group \"$label\" $field" "$t/out" ||
    fail "the stale figure is not named: $(head -n 3 "$t/out")"

# 4. figures the tutorial would contradict: each file of tests/lessons_figures gives exactly
#    its .expect lines against the shipped recording (a figure from another record than the
#    panel's, or rounded otherwise; a "within 11 %", "at least 2.2 times" or "almost 3.4×"
#    that the recording denies; a ratio word on a figure that is none; a percentage read the
#    wrong way; a claim made in one language only)
nf=0
for f in tests/lessons_figures/*.json; do
    nf=$((nf + 1))
    "$BANKLAB" check --quiet --recording "$rec" "$f" >"$t/out" 2>&1; rc=$?
    [ $rc -eq 1 ] || fail "$f: exit $rc, want 1"
    cmp -s "$t/out" "${f%.json}.expect" || { fail "$f: output differs"; diff "${f%.json}.expect" "$t/out" | sed 's/^/    /'; }
done
[ $nf -ge 8 ] || fail "only $nf figure lessons in tests/lessons_figures"

# 3. keys named in every scene step's text
jq -r '
  def plain: gsub("`[^`]*`"; " ");
  def named($s; $k): ($s | plain) | test("(?<![A-Za-z_\u0027’])" + $k + "(?![A-Za-z_])");
  input_filename as $f | .steps[] | select(.scene) | . as $st |
  ( [.text.zh, (.task.goal.zh // "")] | join(" ") ) as $zh |
  ( [.text.en, (.task.goal.en // "")] | join(" ") ) as $en |
  ( (.scene.params // [])[] | .keys as $k |
      select((named($zh; $k[0:1]) or named($zh; $k[1:2])) and (named($en; $k[0:1]) or named($en; $k[1:2])) | not) |
      "\($f) \($st.id): the keys \($k) of \(.name) are not named in the text (zh and en)" ),
  ( select(.scene.types) | select((named($zh; "t") and named($en; "t")) | not) |
      "\($f) \($st.id): the text does not say that t cycles the types" ),
  ( select([.scene.code | split(";")[] |
            select(test("^\\s*(__shared__|extern|typedef)|^\\s*[A-Za-z_][A-Za-z0-9_ ]*\\*\\s*[A-Za-z_][A-Za-z0-9_]*\\s*=") | not)] | length > 1) |
      select((named($zh; "a") and ($en | plain | test("press a\\b|\\(a switches\\)"; "i"))) | not) |
      "\($f) \($st.id): several accesses, but the text does not name the key a" )
' lessons/*.json >"$t/keys" || fail "jq could not read lessons/*.json"
if [ -s "$t/keys" ]; then
    fail "keys not named:"
    sed 's/^/    /' "$t/keys"
fi

# 5. a measured number in a step's text (GB/s, clocks, cycles, B per clock, ns) is one of the
#    step's figures, or the step names the run it comes from (a date, "reference run", docs/)
if command -v python3 >/dev/null; then
    python3 - lessons/*.json >"$t/unlisted" <<'PY' || fail "python3 could not read lessons/*.json"
import json, re, sys
UNIT = re.compile(r'(?<![0-9.\w])([0-9]+(?:\.[0-9]+)?) ?(GB/s|clocks?\b|cycles?\b|B per clock|ns\b|个周期|周期)')
RUN = re.compile(r'20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|reference run|参考测量|docs/')
for path in sys.argv[1:]:
    for st in json.load(open(path, encoding='utf-8'))['steps']:
        figs = [abs(f['value']) for f in st.get('figures', [])]
        q = st.get('quiz') or {}
        texts = [st['text'], st.get('key'), q.get('question'), q.get('explanation'),
                 (st.get('task') or {}).get('goal')] + st.get('hints', []) + q.get('choices', [])
        texts = [t for t in texts if t]
        if any(RUN.search(t[lang]) for t in texts for lang in ('zh', 'en')):
            continue
        for t in texts:
            for lang in ('zh', 'en'):
                for m in UNIT.finditer(t[lang]):
                    if not any(abs(float(m.group(1)) - v) < 1e-9 for v in figs):
                        print('%s %s (%s): "%s" is no figure of the step and names no run' %
                              (path, st['id'], lang, m.group(0)))
PY
    if [ -s "$t/unlisted" ]; then
        fail "measured numbers that are not figures:"
        sed 's/^/    /' "$t/unlisted"
    fi
fi

[ $nfail -eq 0 ] && echo "lessons.sh: all passed ($n figures)"
[ $nfail -eq 0 ]
