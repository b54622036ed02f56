#!/bin/sh
# docfigures.sh: every measured figure that docs/sources.md and docs/glossary.md quote is the
# shipped recording's, by the lessons' own figure check: each figure is marked where it stands,
# `3673<!-- figure {"group": ..., "label": ..., "field": ...} -->` (a list of such objects when
# one quote stands for several rows; "over" and "percent" as in a lesson's "figures",
# docs/lessons.md), and this test turns every marked line into a lesson step whose text is the
# line and whose figures are its marks, then runs `banklab check --recording` on it: the value
# as quoted, the record the tutorial's panel replays, its rounding, and the comparison the
# sentence makes ("within", "times") all hold against assets/h200-recording.json, or it fails.
# A number with a unit of measurement (GB/s, clocks, cycles, B per clock, times, x, %, ns) that
# carries no mark must name its run on its line (a date, "reference run", "run of"). A copy of
# the docs with a marked figure changed must fail. Needs python3. Exit 0 pass, 1 fail, 77 skip.
set -u
. tests/sh/lib.sh docfigures.sh
t=$tmp
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
rec=assets/h200-recording.json
[ -f "$rec" ] || { echo "SKIP: no $rec"; exit 77; }
docs="docs/sources.md docs/glossary.md"

# doc_lesson OUT DOC...: the docs' marked figures as one lesson (a step per marked line);
# unmarked measurements that name no run go to stderr, one a line
doc_lesson() {
    out=$1
    shift
    python3 - "$out" "$@" <<'PY'
import json, re, sys
out, docs = sys.argv[1], sys.argv[2:]
MARK = re.compile(r'(-?[0-9]+(?:\.[0-9]+)?)<!-- figure (.*?) -->')
ANY_MARK = re.compile(r'<!-- figure .*? -->')
UNIT = re.compile(r'(?<![0-9.\w])([0-9]+(?:\.[0-9]+)?)(?:(?: / | to | against |, | and )[0-9]+(?:\.[0-9]+)?)*'
                  r' ?(GB/s|clocks?\b|cycles?\b|B per clock|times\b|x\b(?! ?[0-9])|%|ns\b)')
RUN = re.compile(r'20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|reference run|run of')
steps, unmarked = [], []
for doc in docs:
    for n, line in enumerate(open(doc, encoding='utf-8'), 1):
        marks = MARK.findall(line)
        if len(marks) != len(ANY_MARK.findall(line)):
            unmarked.append('%s:%d: a figure mark not right after a number' % (doc, n))
        text = ANY_MARK.sub('', line).strip()
        # unmarked measurements: quoted words of an article ("about 3 %") are not ours
        plain = MARK.sub(lambda m: 'MARKED', line)
        plain = re.sub(r'"[^"]*"|`[^`]*`', ' ', plain)
        for m in UNIT.finditer(plain):
            if not RUN.search(plain):
                unmarked.append('%s:%d: %s' % (doc, n, m.group(0)))
        if not marks:
            continue
        figs = []
        for value, js in marks:
            try:
                spec = json.loads(js)
            except ValueError as e:
                sys.exit('%s:%d: the mark is not JSON: %s' % (doc, n, e))
            for f in spec if isinstance(spec, list) else [spec]:
                figs.append((f, value))
        steps.append((doc, n, text, figs))
# the values go in as written ("1.0", not 1): a figure's decimals are its precision
lines = ['{"format": 1, "id": "docs", "chapter": 99,',
         ' "title": {"zh": "docs", "en": "docs"},', ' "steps": [']
for i, (doc, n, text, figs) in enumerate(steps):
    t = json.dumps(text, ensure_ascii=False)
    fl = ['{%s, "value": %s}' % (json.dumps(f, ensure_ascii=False)[1:-1], v) for f, v in figs]
    lines.append('  {"id": "line%d", "title": {"zh": %s, "en": %s},' % (
        i, json.dumps('%s:%d' % (doc, n)), json.dumps('%s:%d' % (doc, n))))
    lines.append('   "text": {"zh": %s, "en": %s},' % (t, t))
    lines.append('   "figures": [%s]}%s' % (', '.join(fl), ',' if i + 1 < len(steps) else ''))
lines.append(' ]}')
open(out, 'w', encoding='utf-8').write('\n'.join(lines) + '\n')
for u in unmarked:
    print(u, file=sys.stderr)
print(sum(len(s[3]) for s in steps))
PY
}

# 1. the docs as shipped: every mark holds, nothing measured is left unmarked
n=$(doc_lesson "$t/docs.json" $docs 2>"$t/unmarked") || { fail "could not read the marks"; cat "$t/unmarked"; }
[ "${n:-0}" -ge 15 ] || fail "only ${n:-0} marked figures in $docs"
if [ -s "$t/unmarked" ]; then
    fail "measured figures without a mark or a named run:"
    sed 's/^/    /' "$t/unmarked"
fi
"$BANKLAB" check --recording "$rec" "$t/docs.json" >"$t/out" 2>&1 ||
    { fail "the docs' figures do not hold against $rec"; sed 's/^/    /' "$t/out"; }

# 2. the test can fail: the glossary's first marked figure one unit higher (as if the docs
#    quoted an older run), and a figure with no mark
mkdir "$t/old"
python3 - docs/glossary.md "$t/old/glossary.md" <<'PY'
import re, sys
s = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'([0-9]+)(?:\.([0-9]+))?<!-- figure ', s)
whole, frac = m.group(1), m.group(2)
new = str(int(whole) + 1) + ('.' + frac if frac else '')
open(sys.argv[2], 'w', encoding='utf-8').write(s[:m.start()] + new + s[m.end(2) if frac else m.end(1):])
PY
doc_lesson "$t/old.json" "$t/old/glossary.md" >/dev/null 2>&1
"$BANKLAB" check --quiet --recording "$rec" "$t/old.json" >"$t/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a changed figure in the glossary: exit $rc, want 1"
grep -q 'figures\[0\]: the recording gives' "$t/out" || fail "the changed figure is not named: $(head -n 2 "$t/out")"
printf '| x | y | it ran at 1595 GB/s |\n' >"$t/old/plain.md"
doc_lesson "$t/plain.json" "$t/old/plain.md" >/dev/null 2>"$t/unmarked"
grep -q 'plain.md:1: 1595 GB/s' "$t/unmarked" || fail "an unmarked GB/s is not found: $(cat "$t/unmarked")"

[ $nfail -eq 0 ] && echo "docfigures.sh: all passed ($n figures)"
[ $nfail -eq 0 ]
