#!/bin/sh
# sim_replay.sh: `banklab sim ... --replay FILE` with the shipped H200 recording: the measured
# object (counters, time per access, slowdown against the conflict-free access, source), the
# issue's two numbers (a 32-way column reads 28..34 times the conflict-free load, stride 1 reads
# 0.9..1.1), an access the recording does not hold, several accesses, and bad use. Needs
# $BANKLAB and python3. Exit 0 pass, 1 fail, 77 when the recording is not there.
set -u
REC=assets/h200-recording.json
[ -r "$REC" ] || { echo "SKIP: $REC not found"; exit 77; }
command -v python3 >/dev/null || { echo "sim_replay.sh: python3 is needed"; exit 1; }
. tests/sh/lib.sh sim_replay.sh

# measured PATTERN PYTHON-CONDITION (on m = the measured object): --replay --json
measured() {
    "$BANKLAB" sim "$1" --replay "$REC" --json >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc = 0 ] || { fail "sim '$1' --replay: exit $rc: $(cat "$tmp/e")"; return; }
    python3 -c "
import json, sys
m = json.load(open('$tmp/o'))['measured']
ok = $2
print('ok   %-50s slowdown %s, %s ns, %s wavefronts' % (sys.argv[1], m['slowdown'], m['ns_per_access'], m['wavefronts']))
sys.exit(0 if ok else 1)" "$1" || fail "sim '$1' --replay: $(cat "$tmp/o" | python3 -c 'import json,sys; print(json.load(sys.stdin)["measured"])')"
}

measured '__shared__ float s[1024]; s[lane * 32]' \
    "m['status'] == 'ok' and 28 <= m['slowdown'] <= 34 and m['wavefronts'] == 32 and m['conflicts'] == 31 and m['ns_per_access'] > 0 and m['clk_per_access'] > 28 and m['source'].startswith('recorded on ')"
measured '__shared__ float s[1024]; s[lane * 1]' \
    "m['status'] == 'ok' and 0.9 <= m['slowdown'] <= 1.1 and m['wavefronts'] == 1"
measured '__shared__ float s[1024]; s[lane * 2]' "1.8 <= m['slowdown'] <= 2.2"
measured '__shared__ double d[1024]; d[lane * 16]' "14 <= m['slowdown'] <= 18"

# an access the recording does not hold: said so, exit 0, numbers null
"$BANKLAB" sim '__shared__ float s[8192]; s[lane * 200]' --replay "$REC" --json >"$tmp/o" 2>"$tmp/e"
rc=$?
python3 -c "
import json
m = json.load(open('$tmp/o'))['measured']
assert m['status'] == 'not-recorded' and m['slowdown'] is None and m['ns_per_access'] is None, m
assert 'no recorded measurement' in m['error'], m
" 2>/dev/null && [ $rc = 0 ] || fail "not recorded: exit $rc, $(cat "$tmp/o" "$tmp/e" | head -c 300)"
"$BANKLAB" sim '__shared__ float s[8192]; s[lane * 200]' --replay "$REC" >"$tmp/o" 2>&1
grep -A1 "^measured: none: no recorded measurement for this access" "$tmp/o" | grep -q "(recorded on " ||
    fail "not recorded, text: $(tail -2 "$tmp/o")"

# the text form: counters, time per access and slowdown on two lines under the grid
"$BANKLAB" sim '__shared__ float s[1024]; s[lane * 32]' --replay "$REC" >"$tmp/o" 2>&1
grep -q "^  32.00 wavefronts, 31.00 conflicts per warp instruction" "$tmp/o" &&
    grep -qE "^  [0-9.]+ ns per warp access \([0-9.]+ clk\), (2[89]|3[0-4])\.[0-9]x the conflict-free 4-byte load" "$tmp/o" ||
    fail "text form: $(tail -3 "$tmp/o")"

# several accesses: each has its own measured object
"$BANKLAB" sim '__shared__ float s[1024]; s[lane]; s[lane * 32]' --replay "$REC" --json >"$tmp/o" 2>&1
python3 -c "
import json
a = json.load(open('$tmp/o'))['accesses']
assert len(a) == 2 and a[0]['measured']['slowdown'] < 1.1 and a[1]['measured']['slowdown'] > 28
" 2>/dev/null || fail "two accesses: $(head -c 300 "$tmp/o")"

# bad use: exit 2 with one line naming the problem
expect2() { # what args...
    what=$1; shift
    "$BANKLAB" sim "$@" >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc (want 2)"
}
expect2 "missing recording" '__shared__ float s[64]; s[lane]' --replay "$tmp/none.json"
grep -q "none.json" "$tmp/e" || fail "missing recording: the message does not name the file: $(cat "$tmp/e")"
printf '{"format": "banklab-recording", "version": 1, "records": [' >"$tmp/bad.json"
expect2 "truncated recording" '__shared__ float s[64]; s[lane]' --replay "$tmp/bad.json"
expect2 "--gpu and --replay" '__shared__ float s[64]; s[lane]' --gpu --replay "$REC"
expect2 "--device without --gpu" '__shared__ float s[64]; s[lane]' --device 1
expect2 "--replay without a file" '__shared__ float s[64]; s[lane]' --replay

echo "sim_replay.sh: $nfail failed"
[ "$nfail" -eq 0 ]
