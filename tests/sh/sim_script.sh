#!/bin/sh
# sim_script.sh: `banklab sim --script FILE`: many patterns through one GPU handle (the shipped
# recording here; tests/gpu/classroom.sh drives --gpu this way): one JSON object a line with its
# line number, comments and blank lines skipped, a bad line named and the others still run
# (exit status of the first failure), stdin, and bad use. Needs $BANKLAB and python3.
set -u
REC=assets/h200-recording.json
[ -r "$REC" ] || { echo "SKIP: $REC not found"; exit 77; }
. tests/sh/lib.sh sim_script.sh

cat > "$tmp/s" <<'S'
# a class's script
__shared__ float s[1024]; s[lane * 32]

__shared__ float s[1024]; s[lane]
__shared__ float s[10]; s[lane * 2]
   __shared__ float4 v[64]; v[lane]
S
"$BANKLAB" sim --script "$tmp/s" --replay "$REC" --json > "$tmp/o" 2> "$tmp/e"
rc=$?
[ $rc = 2 ] || fail "a script with a bad line: exit $rc, want 2 (the first failure)"
grep -q "s:5: the line above failed (exit 2)" "$tmp/e" || fail "the bad line is not named: $(cat "$tmp/e")"
grep -q "out of bounds" "$tmp/e" || fail "the bad line's own error is not shown"
python3 - "$tmp/o" <<'PY' || fail "JSON lines: $(cat "$tmp/o" | cut -c1-200)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["line"] for r in rows] == [2, 4, 6], [r["line"] for r in rows]
assert 28 <= rows[0]["measured"]["slowdown"] <= 34, rows[0]["measured"]
assert 0.9 <= rows[1]["measured"]["slowdown"] <= 1.1, rows[1]["measured"]
assert rows[2]["width"] == 16 and rows[2]["wavefronts"] == 4
assert all(r["measured"]["source"].startswith("recorded on ") for r in rows)
PY

# stdin, text: a header a pattern
printf '%s\n' '__shared__ float s[64]; s[0]' '__shared__ float s[1024]; s[lane * 2]' |
    "$BANKLAB" sim --script - --replay "$REC" > "$tmp/t" 2>&1 || fail "--script - : exit $?"
[ "$(grep -c '^== -:' "$tmp/t")" = 2 ] || fail "text output: one header a pattern: $(head -n 5 "$tmp/t")"
grep -q "2.0x the conflict-free" "$tmp/t" || fail "text output lacks the measured line"

# the model alone (no --gpu/--replay) works too
printf '__shared__ float s[1024]; s[lane * 4]\n' > "$tmp/one"
"$BANKLAB" sim --script "$tmp/one" --json | grep -q '"wavefronts":4' || fail "--script without measuring"

# bad use: exit 2, the reason on stderr's first line (the short usage follows)
for args in "--script" "--script $tmp/s PAT" "--script $tmp/s --offsets 1" "--script $tmp/s --svg x.svg" \
            "--script $tmp/missing"; do
    "$BANKLAB" sim $args > "$tmp/o" 2> "$tmp/e"
    rc=$?
    [ $rc = 2 ] || fail "sim $args: exit $rc, want 2"
    head -n 1 "$tmp/e" | grep -q '^banklab sim: ' || fail "sim $args: no reason first: $(head -n 1 "$tmp/e")"
done
[ $nfail = 0 ] || exit 1
echo "sim_script.sh: ok"
