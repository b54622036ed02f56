#!/bin/sh
# check.sh: `banklab check`: the shipped lessons all hold (once lessons/ has files), every file
# in tests/lessons_bad gives exactly its .expect lines and exit 1, usage errors and missing
# files give exit 2, a broken file next to good ones is still found.
set -u
: "${BANKLAB:=build/banklab}"
fail=0
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

[ -x "$BANKLAB" ] || { echo "no binary $BANKLAB"; exit 1; }

# 1. the curriculum
if ls lessons/*.json >/dev/null 2>&1; then
    "$BANKLAB" check lessons/ >"$t/out" 2>&1; rc=$?
    [ $rc -eq 0 ] || { bad "banklab check lessons/ exits $rc"; cat "$t/out"; }
    tail -n 1 "$t/out" | grep -q '^checked [0-9]* lessons\{0,1\}, [0-9]* steps\{0,1\}, .*: all hold$' ||
        bad "summary line: $(tail -n 1 "$t/out")"
    # the default directory is found through --lessons and $BANKLAB_LESSONS too
    "$BANKLAB" check --quiet --lessons lessons >"$t/out" 2>&1 || bad "--lessons lessons: exit $?"
    [ -s "$t/out" ] && bad "--quiet printed: $(head -n 3 "$t/out")"
    BANKLAB_LESSONS=lessons "$BANKLAB" check >/dev/null 2>&1 || bad "BANKLAB_LESSONS=lessons: exit $?"
else
    echo "note: lessons/ has no files yet; curriculum not checked"
fi

# 2. the bad corpus: exact lines, exit 1
n=0
for f in tests/lessons_bad/*.json; do
    exp="${f%.json}.expect"
    [ -f "$exp" ] || { bad "$f has no $(basename "$exp")"; continue; }
    n=$((n + 1))
    "$BANKLAB" check --quiet "$f" >"$t/out" 2>"$t/err"; rc=$?
    [ $rc -eq 1 ] || bad "$f: exit $rc, want 1"
    if ! cmp -s "$t/out" "$exp"; then
        bad "$f: output differs from $exp"
        diff "$exp" "$t/out" | sed 's/^/    /'
    fi
    [ -s "$t/err" ] && bad "$f: wrote to stderr: $(head -n 1 "$t/err")"
    # every line is file:line:col: message (a JSON syntax error) or file: path: message
    grep -v '^tests/lessons_bad/[a-z0-9-]*\.json:[0-9][0-9]*:[0-9][0-9]*: [^ ]' "$exp" |
        grep -v '^tests/lessons_bad/[a-z0-9-]*\.json: [][()a-zA-Z0-9_. -]*: ' | grep -q . &&
        bad "$exp: a line without file:line:col or a path"
done
[ $n -ge 40 ] || bad "only $n bad lessons"

# 3. summary counts problems; a directory mixes good and bad
mkdir "$t/dir"
cp tests/lessons_bad/expect-wrong.json "$t/dir/a.json"
cp tests/lessons_bad/key-clash.json "$t/dir/b.json"
"$BANKLAB" check "$t/dir" >"$t/out" 2>&1; rc=$?
[ $rc -eq 1 ] || bad "directory with 2 bad files: exit $rc"
# (b.json has a problem, yet its id is read: both files are "bad", which is a third problem)
tail -n 1 "$t/out" | grep -q '^checked 2 lessons, 2 steps, 1 expectation, 2 quizzes: 3 problems$' ||
    bad "summary: $(tail -n 1 "$t/out")"
grep -q "b.json: id: \"bad\" is also the id of $t/dir/a.json" "$t/out" ||
    bad "a broken file's id is not compared: $(cat "$t/out")"

# 4. two files with one id: the second is reported by its "id"
sed 's/"conflicts": 2}/"conflicts": 1}/' tests/lessons_bad/expect-wrong.json >"$t/dir/a.json"
cp "$t/dir/a.json" "$t/dir/c.json"
rm "$t/dir/b.json"
"$BANKLAB" check -q "$t/dir" >"$t/out" 2>&1; rc=$?
[ $rc -eq 1 ] || bad "duplicate lesson id: exit $rc"
grep -q "c.json: id: \"bad\" is also the id of $t/dir/a.json" "$t/out" || bad "dup id: $(cat "$t/out")"

# 4b. a lesson on standard input is named <stdin>
"$BANKLAB" check -q - <tests/lessons_bad/expect-wrong.json >"$t/out" 2>&1; rc=$?
[ $rc -eq 1 ] || bad "stdin: exit $rc"
sed 's|^tests/lessons_bad/expect-wrong.json:|<stdin>:|' tests/lessons_bad/expect-wrong.expect | cmp -s - "$t/out" ||
    bad "stdin: $(cat "$t/out")"

# 5. usage errors and missing files: exit 2, message on stderr
"$BANKLAB" check "$t/nonexistent.json" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 2 ] || bad "missing file: exit $rc, want 2"
grep -q 'nonexistent.json: no such file' "$t/err" || bad "missing file message: $(cat "$t/err")"
"$BANKLAB" check "$t/dir/a.json" "$t/nonexistent.json" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "good + missing file: exit $rc, want 2"
"$BANKLAB" check --bogus >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] || bad "unknown option: exit $rc"
"$BANKLAB" check --lessons "$t/nodir" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "--lessons of a missing directory: exit $rc"
mkdir "$t/empty"
"$BANKLAB" check "$t/empty" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "directory without lessons: exit $rc"
abs=$(cd "$(dirname "$BANKLAB")" && pwd)/$(basename "$BANKLAB")
(cd "$t/empty" && BANKLAB_LESSONS= "$abs" check >/dev/null 2>&1); rc=$?
# (without lessons/ here the installed share dir may still exist: 0 or 2, never a crash)
[ $rc -eq 0 ] || [ $rc -eq 2 ] || [ $rc -eq 1 ] || bad "no lessons dir: exit $rc"
"$BANKLAB" check --lessons >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "--lessons without a value: exit $rc"
"$BANKLAB" check --help >"$t/out" 2>&1 || bad "--help exit $?"
grep -q 'file:line:col' "$t/out" || bad "--help does not explain the output"

# 6. under ASan+UBSan when that build exists: the bad corpus must not leak or crash
if [ -n "${ASAN_BANKLAB:-}" ] && [ -x "${ASAN_BANKLAB:-}" ]; then
    "$ASAN_BANKLAB" check -q tests/lessons_bad/ >/dev/null 2>"$t/err"; rc=$?
    [ $rc -eq 1 ] || { bad "asan check of tests/lessons_bad: exit $rc"; head -n 30 "$t/err"; }
    if ls lessons/*.json >/dev/null 2>&1; then
        "$ASAN_BANKLAB" check -q lessons/ >/dev/null 2>"$t/err" || { bad "asan check lessons: exit $?"; head -n 30 "$t/err"; }
    fi
fi

# 7. the schema accepts every lesson that banklab check accepts (when python3-jsonschema is here)
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - tests/fuzz/corpus/lesson/valid-*.json lessons/*.json <<'PY' || bad "schema"
import glob, json, sys, jsonschema
schema = json.load(open("assets/lesson.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for f in sys.argv[1:]:
    if "*" in f:
        continue
    for e in v.iter_errors(json.load(open(f, encoding="utf-8"))):
        print("%s: %s: %s" % (f, "/".join(map(str, e.absolute_path)), e.message[:200]))
        bad = 1
sys.exit(bad)
PY
else
    echo "note: python3 jsonschema missing; schema not checked"
fi

[ $fail -eq 0 ] && echo "check.sh: all passed ($n bad lessons)"
exit $fail
