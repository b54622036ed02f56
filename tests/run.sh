#!/bin/sh
# run.sh: the test driver behind `make test`. Runs every unit test binary (plain and under
# ASan+UBSan) and every tests/sh/*.sh suite; a suite exits 0 (pass), 77 (skip) or other (fail).
# Ends with one line "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${ASAN_BUILD:=}" "${ONLY:=}"
export BUILD BANKLAB
[ -n "$ASAN_BUILD" ] && export ASAN_BANKLAB="$ASAN_BUILD/banklab"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
pass=0 fail=0 skip=0 failed=""
logdir="$BUILD/test-logs"; mkdir -p "$logdir"

run_one() { # name command...
    name=$1; shift
    log="$logdir/$(echo "$name" | tr '/ ' '__').log"
    "$@" >"$log" 2>&1; rc=$?
    # cmocka marks a skipped test "[  SKIPPED ]" and still exits 0: count and show those
    nskip=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s), listed below:$/\1/p' "$log" 2>/dev/null | head -n 1)
    if [ $rc -eq 0 ] && [ "${nskip:-0}" -gt 0 ]; then
        pass=$((pass+1)); skip=$((skip+nskip))
        echo "PASS  $name ($nskip test(s) SKIPPED: $(grep -m1 '^SKIP' "$log"))"
    elif [ $rc -eq 0 ]; then pass=$((pass+1)); echo "PASS  $name"
    elif [ $rc -eq 77 ]; then skip=$((skip+1)); echo "SKIP  $name: $(tail -n 1 "$log")"
    else fail=$((fail+1)); failed="$failed $name"; echo "FAIL  $name (exit $rc; log $log)"; tail -n 30 "$log" | sed 's/^/      /'
    fi
}

# ONLY: "unit" runs the unit tests alone; another word runs the one unit test or shell suite
# of that name (make check T=NAME)
case $ONLY in ""|unit) ;; *)
    if [ -x "$BUILD/tests/$ONLY" ]; then run_one "unit/$ONLY" "$BUILD/tests/$ONLY"
    elif [ -f "tests/sh/$ONLY.sh" ]; then run_one "sh/$ONLY" sh "tests/sh/$ONLY.sh"
    else echo "run.sh: no test named $ONLY"; fail=1; fi
    echo; echo "$pass passed, $fail failed, $skip skipped"
    [ $fail -eq 0 ]; exit
esac
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
if [ -n "$ASAN_BUILD" ]; then
    for t in "$ASAN_BUILD"/tests/test_*; do
        [ -x "$t" ] && run_one "asan/$(basename "$t")" "$t"
    done
fi
if [ "$ONLY" != unit ]; then
    for s in tests/sh/*.sh; do
        [ -f "$s" ] && run_one "sh/$(basename "$s" .sh)" sh "$s"
    done
fi
echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
