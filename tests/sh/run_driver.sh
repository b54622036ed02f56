#!/bin/sh
# run_driver.sh: tests/run.sh itself, on planted tests (no banklab needed): JOBS at once (four
# tests of 1 s each take about 2 s with JOBS=2, not 4), a log per test, the one summary line
# "N passed, N failed, N skipped" and exit 1 when one failed, cmocka's skipped tests counted,
# a suite marked "# run.sh: alone" run after the others, by itself, and suites marked
# "# run.sh: light" beside the JOBS others, one at a time (two pool suites of 2 s and two light
# ones of 1 s take about 2 s with JOBS=2, not 3).
# run.sh: alone (its timing of four 1 s tests cannot stand the load of the others; the inner
# runs are told no ASan build, which make test names in the environment)
set -u
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/b/tests"
for i in 1 2 3 4; do
    printf '#!/bin/sh\nsleep 1\necho planted %s\n[ %s = 3 ] && exit 3\nexit 0\n' $i $i >"$tmp/b/tests/test_$i"
done
printf '#!/bin/sh\necho "[  SKIPPED ] 2 test(s), listed below:"\necho "SKIP planted"\n' >"$tmp/b/tests/test_5"
chmod +x "$tmp"/b/tests/test_*
t0=$(date +%s)
JOBS=2 BUILD="$tmp/b" BANKLAB=/bin/true ASAN_BUILD= ONLY=unit sh tests/run.sh >"$tmp/out" 2>&1
rc=$?
secs=$(( $(date +%s) - t0 ))
fail=0
[ $rc = 1 ] || { echo "FAIL: exit $rc with a failed test, want 1"; fail=1; }
tail -n 1 "$tmp/out" | grep -qx "4 passed, 1 failed, 2 skipped" ||
    { echo "FAIL: summary: $(tail -n 1 "$tmp/out")"; fail=1; }
grep -q "^FAIL  unit/test_3 " "$tmp/out" || { echo "FAIL: test_3 not named as failed"; fail=1; }
grep -q "planted 3" "$tmp/out" || { echo "FAIL: the failed test's log is not shown"; fail=1; }
[ -f "$tmp/b/test-logs/unit_test_2.log" ] && grep -q "planted 2" "$tmp/b/test-logs/unit_test_2.log" ||
    { echo "FAIL: no log per test"; fail=1; }
[ $secs -lt 4 ] || { echo "FAIL: four 1 s tests with JOBS=2 took $secs s (not in parallel)"; fail=1; }
# "# run.sh: alone": after the pool, by itself
mkdir -p "$tmp/r/tests/sh" "$tmp/r/b/tests"
cp tests/run.sh "$tmp/r/tests/run.sh"
printf '#!/bin/sh\nsleep 1\ndate +%%s.%%N >"%s/a.start"\n' "$tmp" >"$tmp/r/tests/sh/a.sh"
printf '#!/bin/sh\n# run.sh: alone\ndate +%%s.%%N >"%s/z.start"\n' "$tmp" >"$tmp/r/tests/sh/0z.sh"
(cd "$tmp/r" && JOBS=2 BUILD=b BANKLAB=/bin/true ASAN_BUILD= ONLY= sh tests/run.sh >"$tmp/out2" 2>&1)
tail -n 1 "$tmp/out2" | grep -qx "2 passed, 0 failed, 0 skipped" || { echo "FAIL: alone: $(cat "$tmp/out2")"; fail=1; }
awk -v a="$(cat "$tmp/a.start" 2>/dev/null)" -v z="$(cat "$tmp/z.start" 2>/dev/null)" \
    'BEGIN { exit !(a != "" && z != "" && z + 0 >= a + 0) }' ||
    { echo "FAIL: the suite marked alone did not run after the others"; fail=1; }
# "# run.sh: light": beside the pool, one light suite at a time
mkdir -p "$tmp/l/tests/sh" "$tmp/l/b/tests"
cp tests/run.sh "$tmp/l/tests/run.sh"
for x in a b; do printf '#!/bin/sh\nsleep 2\n' >"$tmp/l/tests/sh/$x.sh"; done
for x in l1 l2; do
    printf '#!/bin/sh\n# run.sh: light\ndate +%%s%%N >"%s/%s.start"\nsleep 1\ndate +%%s%%N >"%s/%s.end"\n' \
        "$tmp" $x "$tmp" $x >"$tmp/l/tests/sh/$x.sh"
done
t0=$(date +%s%N)
(cd "$tmp/l" && JOBS=2 BUILD=b BANKLAB=/bin/true ASAN_BUILD= ONLY= sh tests/run.sh >"$tmp/out3" 2>&1)
lms=$(( ($(date +%s%N) - t0) / 1000000 ))
tail -n 1 "$tmp/out3" | grep -qx "4 passed, 0 failed, 0 skipped" || { echo "FAIL: light: $(cat "$tmp/out3")"; fail=1; }
[ $lms -lt 2800 ] || { echo "FAIL: two 2 s suites and two light 1 s suites with JOBS=2 took $lms ms (the light ones took turns)"; fail=1; }
l1s=$(cat "$tmp/l1.start" 2>/dev/null) l1e=$(cat "$tmp/l1.end" 2>/dev/null)
l2s=$(cat "$tmp/l2.start" 2>/dev/null) l2e=$(cat "$tmp/l2.end" 2>/dev/null)
if [ -z "$l1s" ] || [ -z "$l1e" ] || [ -z "$l2s" ] || [ -z "$l2e" ]; then
    echo "FAIL: the light suites did not run"; fail=1
elif [ "$l2s" -lt "$l1e" ] && [ "$l1s" -lt "$l2e" ]; then
    echo "FAIL: two light suites ran at once"; fail=1
fi
[ $fail = 0 ] && echo "run.sh: parallel, logs, summary, alone, light: ok ($secs s; light $lms ms)"
exit $fail
