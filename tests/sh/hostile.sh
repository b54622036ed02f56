#!/bin/sh
# hostile.sh: what banklab does with hostile files, names and output (the design is
# in docs/security.md). --svg onto a device node, a FIFO, symlinks and a directory: nothing is
# replaced that is not a regular file; a FIFO among the lessons does not hang check; a
# 20,000-problem one-line lesson is checked at once with the problems capped; a 240 MB
# recording is refused at once under a 100 MB memory limit; control characters in a lesson
# are a check error and nothing from a file or an argument reaches the terminal raw; absurd
# recorded counters are refused; --learner must be UTF-8 without control characters; output
# that cannot be written is an error (exit 2); repeated, empty or out-of-range answers and
# parameters are refused before anything runs. Needs $BANKLAB and python3.
# Exit 0 pass, 1 fail.
set -u
command -v python3 >/dev/null || { echo "hostile.sh: python3 is needed"; exit 1; }
reader=""
suite_cleanup() { [ -z "$reader" ] || kill "$reader" 2>/dev/null; }
. tests/sh/lib.sh hostile.sh
sandbox
PAT='__shared__ float s[64]; s[lane]'
LAB="$root/tests/labs/lab-basic.json"
ESC=$(printf '\033')
has_ctl() { LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$1"; }  # C0 (not \t\n\r) or DEL

# ---- 1. --svg never replaces what is not a regular file ----------------------------------
cd "$tmp" || exit 1
if [ "$(id -u)" = 0 ] && mknod "$tmp/nul" c 1 3 2>/dev/null; then
    "$BANKLAB" sim "$PAT" --svg "$tmp/nul" >/dev/null 2>"$tmp/err"; rc=$?
    [ -c "$tmp/nul" ] && ok || fail "--svg onto a device node replaced it: $(ls -l "$tmp/nul")"
    [ $rc -eq 0 ] && ok || fail "--svg onto a device node: exit $rc ($(cat "$tmp/err"))"
else
    echo "note: not root, the device-node case uses /dev/null itself"
    "$BANKLAB" sim "$PAT" --svg /dev/null >/dev/null 2>&1
    [ -c /dev/null ] && ok || fail "/dev/null is no longer a device"
fi
# a FIFO with a reader gets the picture through it; without a reader: refused, no hang
mkfifo "$tmp/fifo"
timeout 10 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
sleep 0.2
timeout 10 "$BANKLAB" sim "$PAT" --svg "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
wait "$reader" 2>/dev/null
reader=""
[ -p "$tmp/fifo" ] && ok || fail "--svg onto a FIFO replaced it: $(ls -l "$tmp/fifo")"
[ $rc -eq 0 ] && grep -q '</svg>' "$tmp/fifo.out" && ok ||
    fail "--svg through a FIFO with a reader: exit $rc, $(wc -c <"$tmp/fifo.out") bytes ($(cat "$tmp/err"))"
timeout 10 "$BANKLAB" sim "$PAT" --svg "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ -p "$tmp/fifo" ] && grep -q "FIFO" "$tmp/err" && ok ||
    fail "--svg onto a FIFO without a reader: exit $rc (124 = hung), $(cat "$tmp/err")"
# a symlink to standard output: the picture goes there, the link stays
ln -s /proc/self/fd/1 "$tmp/fd1"
"$BANKLAB" sim "$PAT" --svg "$tmp/fd1" >"$tmp/stdout" 2>"$tmp/err"; rc=$?
[ -L "$tmp/fd1" ] && ok || fail "--svg onto a symlink replaced the link: $(ls -l "$tmp/fd1")"
[ $rc -eq 0 ] && grep -q '</svg>' "$tmp/stdout" && ok || fail "--svg through /proc/self/fd/1: exit $rc, $(cat "$tmp/err")"
# a symlink to a regular file: the file is replaced (atomically), the link stays
echo old >"$tmp/target.svg"
ln -s target.svg "$tmp/link.svg"
"$BANKLAB" sim "$PAT" --svg "$tmp/link.svg" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ -L "$tmp/link.svg" ] && grep -q '</svg>' "$tmp/target.svg" && ok ||
    fail "--svg onto a symlink to a file: exit $rc, $(ls -l "$tmp/link.svg"), $(head -c 40 "$tmp/target.svg")"
ls "$tmp" | grep -q '\.tmp-' && fail "a temp file was left behind: $(ls "$tmp")"
# a dangling symlink and a directory: refused with a message, untouched
ln -s "$tmp/nowhere/x.svg" "$tmp/dangling.svg"
"$BANKLAB" sim "$PAT" --svg "$tmp/dangling.svg" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ -L "$tmp/dangling.svg" ] && grep -q "symbolic link" "$tmp/err" && ok ||
    fail "--svg onto a dangling symlink: exit $rc, $(cat "$tmp/err")"
mkdir "$tmp/adir"
"$BANKLAB" sim "$PAT" --svg "$tmp/adir" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ -d "$tmp/adir" ] && grep -q "directory" "$tmp/err" && ok ||
    fail "--svg onto a directory: exit $rc, $(cat "$tmp/err")"
cd "$root" || exit 1

# ---- 3. a FIFO among the lessons: named, skipped, no hang --------------------------------
mkdir "$tmp/les"
cp "$root"/lessons/*.json "$tmp/les/" 2>/dev/null || cp "$LAB" "$tmp/les/"
mkfifo "$tmp/les/zz-fifo.json"
timeout 10 "$BANKLAB" check "$tmp/les" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "zz-fifo.json: not a regular file" "$tmp/err" && ok ||
    fail "check with a FIFO lesson: exit $rc (124 = hung), $(tail -n 2 "$tmp/out") $(cat "$tmp/err")"
timeout 10 "$BANKLAB" check "$tmp/les/zz-fifo.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok || fail "check FIFO: exit $rc"
timeout 10 "$BANKLAB" report --no-gpu --lessons "$tmp/les" --out "$tmp" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "zz-fifo.json" "$tmp/err" && ok || fail "report with a FIFO lesson: exit $rc, $(cat "$tmp/err")"
rm -f "$tmp"/banklab-report-*

# ---- 4. 20,000 problems on one line: at once, capped -------------------------------------
python3 - "$tmp/p20k.json" <<'EOF'
import sys
parts = ['"format": 1', '"id": "x"', '"chapter": 1', '"title": {"zh": "x", "en": "x"}',
         '"steps": [{"id": "a", "title": {"zh": "a", "en": "a"}, "text": {"zh": "t", "en": "t"}}]']
parts += ['"unknown_field_%05d": "%s"' % (i, "v" * 40) for i in range(20000)]
open(sys.argv[1], "w").write("{" + ", ".join(parts) + "}")
EOF
timeout 20 "$BANKLAB" check "$tmp/p20k.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && ok || fail "20k problems: exit $rc (124 = over 20 s)"
n=$(grep -c 'p20k.json: unknown_field' "$tmp/out")
[ "$n" -le 101 ] && [ "$n" -ge 100 ] && ok || fail "20k problems: $n lines reported, want the cap (100)"
grep -q "p20k.json: 19900 more problems not shown" "$tmp/out" && ok || fail "20k problems: no 'more problems' line: $(tail -n 2 "$tmp/out")"
tail -n 1 "$tmp/out" | grep -q ": 20000 problems$" && ok || fail "20k problems: summary $(tail -n 1 "$tmp/out")"
grep -q 'p20k.json: unknown_field_19999' "$tmp/out" && fail "a problem past the cap was printed"
# the first problem is named by its path
grep -q '^[^:]*p20k.json: unknown_field_00000: unknown field' "$tmp/out" && ok ||
    fail "20k problems: first problem wrong: $(grep -m1 unknown_field "$tmp/out")"

# ---- 5. a 240 MB recording: refused at once, in little memory ----------------------------
python3 - "$tmp/big.json" <<'EOF'
import sys
f = open(sys.argv[1], "w")
f.write('{"format": "banklab-recording", "version": 1, "device": "x", "date": "x", "records": [')
f.truncate(240 << 20)   # sparse: the size is what matters
EOF
( ulimit -v 102400; exec timeout 20 "$BANKLAB" lab "$LAB" --no-save --replay "$tmp/big.json" --answers PAD=1 ) \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "big.json: larger than 64 MB" "$tmp/err" && ok ||
    fail "240 MB recording under 100 MB: exit $rc, $(head -c 300 "$tmp/err")"
[ -s "$tmp/out" ] && fail "240 MB recording: the lab started: $(head -n 2 "$tmp/out")"

# ---- 6. control characters: a check error in lessons; escaped on every output ------------
python3 - "$LAB" "$tmp/esc.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["title"]["en"] = "Lab \u001b]0;pwned\u0007\u001b[2J"
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=True, indent=1)
EOF
"$BANKLAB" check "$tmp/esc.json" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'esc.json: title.en: control character U+001B' "$tmp/out" && ok ||
    fail "ESC in a lesson title: exit $rc, $(head -n 2 "$tmp/out")"
"$BANKLAB" lab "$tmp/esc.json" --no-gpu --no-save --answers PAD=1,STRIDE=1 >"$tmp/out" 2>&1
has_ctl "$tmp/out" && fail "lab printed a control character from the lesson"
grep -q "control character" "$tmp/out" && ok || fail "lab ran a lesson with ESC in it: $(head -n 2 "$tmp/out")"
# bad ids and field names are echoed escaped
printf '{"format": 1, "id": "a\\u001b[2Jb", "chapter": 1, "title": {"zh": "x", "en": "x"}, "st\\u0007eps": []}' >"$tmp/esc2.json"
"$BANKLAB" check "$tmp/esc2.json" >"$tmp/out" 2>&1
has_ctl "$tmp/out" && fail "check echoed a control character: $(cat -v "$tmp/out")"
grep -q 'esc2.json: id: control character U+001B' "$tmp/out" && ok || fail "check: ESC in an id: $(cat -v "$tmp/out")"
grep -qF 'st\x07eps: unknown field' "$tmp/out" && ok || fail "check: the bad field name is not shown escaped: $(cat -v "$tmp/out")"
# a file name with ESC in it
cp "$tmp/esc2.json" "$tmp/name${ESC}[2J.json"
"$BANKLAB" check "$tmp/name${ESC}[2J.json" >"$tmp/out" 2>&1
has_ctl "$tmp/out" && fail "check echoed a control character of a file name"
grep -qF 'name\x1b[2J.json' "$tmp/out" && ok || fail "check: file name not escaped: $(cat -v "$tmp/out")"
# a recording's device string
python3 - "$tmp/rec-esc.json" "$tmp/rec-abs.json" "$tmp/rec-neg.json" <<'EOF'
import json, sys
rec = {"format": "banklab-recording", "version": 1,
       "device": "Evil \u001b]0;pwned\u0007GPU", "date": "2026-01-02T03:04:05Z", "command": "x",
       "records": [{"group": "lesson", "label": "x", "model": {"wavefronts": 1, "conflicts": 0},
                    "agree": True,
                    "request": {"kind": "pattern", "width": 4, "op": "ld", "mask": "ffffffff",
                                "offsets": [n * 4 for n in range(32)], "timing": False,
                                "counters": True},
                    "result": {"status": "ok", "error": "", "provenance": "Evil \u001b[2J",
                               "verified": False, "timing": None,
                               "counters": {"wavefronts_ld": 1, "wavefronts_st": 0,
                                            "conflicts_ld": 0, "conflicts_st": 0,
                                            "inst_ld": 128, "inst_st": 0},
                               "counters_note": ""}}]}
json.dump(rec, open(sys.argv[1], "w"))
rec["device"] = "x"
rec["records"][0]["result"]["provenance"] = "x"
rec["records"][0]["result"]["counters"]["wavefronts_ld"] = 1e308
json.dump(rec, open(sys.argv[2], "w"))
rec["records"][0]["result"]["counters"]["wavefronts_ld"] = 1
rec["records"][0]["result"]["counters"]["conflicts_ld"] = -1e18
json.dump(rec, open(sys.argv[3], "w"))
EOF
"$BANKLAB" lab "$LAB" --no-save --replay "$tmp/rec-esc.json" --answers PAD=1,STRIDE=1 >"$tmp/out" 2>&1
has_ctl "$tmp/out" && fail "lab printed a recording's control characters: $(grep -a GPU "$tmp/out" | cat -v)"
grep -qF 'Evil \x1b]0;pwned\x07GPU' "$tmp/out" && ok || fail "lab: device not shown escaped: $(grep -a GPU "$tmp/out" | cat -v)"

# a pattern with ESC in it: the error echoes it without the escape
"$BANKLAB" sim "$(printf '__shared__ float s[64]; s[lane\033[2J]')" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 2 ] && ok || fail "sim with ESC in the pattern: exit $rc"
has_ctl "$tmp/out" && fail "sim echoed a control character of the pattern: $(cat -v "$tmp/out")"
"$BANKLAB" "$(printf -- '--x\033[2J')" >"$tmp/out" 2>&1
has_ctl "$tmp/out" && fail "an unknown option was echoed raw: $(cat -v "$tmp/out")"

# ---- 10. absurd counters: refused with one line ------------------------------------------
for f in rec-abs rec-neg; do
    "$BANKLAB" lab "$LAB" --no-save --replay "$tmp/$f.json" --answers PAD=1 >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "$f.json: records\[0\]: \"\(wavefronts\|conflicts\)_ld\" must be a number in 0\.\." "$tmp/err" && ok ||
        fail "$f: exit $rc, $(head -c 300 "$tmp/err")"
done

# ---- 9. --learner: UTF-8 without control characters --------------------------------------
"$BANKLAB" report --no-gpu --out "$tmp" --learner "$(printf 'bad\377')" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "learner.*UTF-8" "$tmp/err" && ok || fail "--learner with \\xff: exit $rc, $(cat "$tmp/err")"
"$BANKLAB" report --no-gpu --out "$tmp" --learner "$(printf 'x\033[2J')" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "control character" "$tmp/err" && ok || fail "--learner with ESC: exit $rc, $(cat "$tmp/err")"
has_ctl "$tmp/err" && fail "report echoed the control character"
ls "$tmp"/banklab-report-* >/dev/null 2>&1 && fail "a report was written for a bad --learner"
"$BANKLAB" report --no-gpu --out "$tmp" --learner "王小明" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "王小明" "$tmp"/banklab-report-*.json && ok || fail "--learner in Chinese: exit $rc, $(cat "$tmp/err")"
# a progress file with bytes that are not UTF-8 and control characters: the reports stay clean
mkdir -p "$XDG_STATE_HOME/banklab"
printf '{"format": 1, "lesson": "x", "step": "y", "quiz": [{"lesson": "l\\u001b[2J", "step": "s\377", "attempts": 1, "correct": true, "first_correct": true, "given": "\\u0007"}]}' \
    >"$XDG_STATE_HOME/banklab/progress.json"
"$BANKLAB" report --no-gpu --out "$tmp" --format both >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && ok || fail "report from a progress file with odd bytes: exit $rc, $(cat "$tmp/err")"
python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp"/banklab-report-*.json 2>/dev/null && ok ||
    fail "the JSON report is not valid UTF-8 JSON"
has_ctl "$tmp"/banklab-report-*.md && fail "the Markdown report holds a control character"
rm -f "$tmp"/banklab-report-* "$XDG_STATE_HOME/banklab/progress.json"

# ---- 11. output that cannot be written: exit 2 with a message ----------------------------
if [ -w /dev/full ]; then
    "$BANKLAB" check "$root/tests/lessons_bad/expect-wrong.json" >/dev/full 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "write error" "$tmp/err" && ok || fail "check >/dev/full: exit $rc, $(cat "$tmp/err")"
    "$BANKLAB" lab "$LAB" --no-gpu --no-save --answers PAD=1,STRIDE=1 >/dev/full 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "write error" "$tmp/err" && ok || fail "lab >/dev/full: exit $rc, $(cat "$tmp/err")"
    "$BANKLAB" report --no-gpu --out "$tmp" >/dev/full 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "write error" "$tmp/err" && ok || fail "report >/dev/full: exit $rc, $(cat "$tmp/err")"
    "$BANKLAB" --help >/dev/full 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && ok || fail "--help >/dev/full: exit $rc"
    rm -f "$tmp"/banklab-report-*
else
    echo "note: no writable /dev/full; write errors not tested"
fi

# ---- minor: repeated, empty, out-of-range values are refused before anything runs -------
expect2() { # what pattern-of-message command...
    what=$1 msg=$2; shift 2
    "$BANKLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    [ $rc -eq 2 ] && grep -q -- "$msg" "$tmp/err" && ok || fail "$what: exit $rc, stderr '$(head -c 300 "$tmp/err")'"
    [ -s "$tmp/out" ] && fail "$what: printed on stdout before failing: $(head -n 2 "$tmp/out")"
}
expect2 "--answers PAD twice" "PAD is given twice" lab "$LAB" --no-gpu --no-save --answers PAD=1,PAD=2
expect2 "--answers PAD twice in two options" "PAD is given twice" lab "$LAB" --no-gpu --no-save --answers PAD=1 --answers PAD=2
expect2 "--answers out of range, before task 1" "PAD=-1 is outside" lab "$LAB" --no-gpu --no-save --answers PAD=-1
expect2 "--answers empty" "--answers is empty" lab "$LAB" --no-gpu --no-save --answers ''
expect2 "--answers only commas" "--answers is empty" lab "$LAB" --no-gpu --no-save --answers ' , '
expect2 "--param twice" "PAD is given twice" sim '__shared__ float s[64*PAD]; s[lane*PAD]' --param PAD=1 --param PAD=2
expect2 "check of a missing file" "no such file" check -q "$tmp/missing.json"
# every exit-2 message of check goes to stderr (stdout has the problems and the summary)
truncate -s 9M "$tmp/huge.json"
"$BANKLAB" check "$tmp/huge.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "huge.json: larger than 8 MB" "$tmp/err" && ok || fail "check of a 9 MB file: exit $rc, err '$(cat "$tmp/err")'"
grep -q "huge.json" "$tmp/out" && fail "check: the unreadable file's message went to stdout"

finish
