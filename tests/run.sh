#!/bin/sh
# run.sh: the test driver behind `make test`. Runs every unit test binary (plain and under
# ASan+UBSan) and every tests/sh/*.sh suite; a suite exits 0 (pass), 77 (skip) or other (fail).
# Ends with one line "N passed, N failed, N skipped"; exits 1 if anything failed.
#
# Tests run in parallel: JOBS at once (default: the machine's cores, `nproc`), each with its
# own log in $BUILD/test-logs/NAME.log; a line "PASS|FAIL|SKIP  NAME (N s)" as each ends, the
# last lines of every failed log at the end. The longest tests of the last run start first
# ($BUILD/test-logs/times; before a first run, tests/times: a whole run's seconds). A suite
# whose text holds the line "# run.sh: alone" (its checks time things, or compare times) runs
# by itself after the others. A suite whose text holds the line "# run.sh: light" spends its
# time waiting (tmux screens, a server's timeouts), not computing: under JOBS > 1 the light
# suites run one at a time beside the JOBS others, in a lane of their own, taking none of their
# turns (the longest first there too). Under JOBS > 1 the tmux suites' waits last
# BANKLAB_TEST_SLOW (3) times as long (tests/sh/tui_fixtures/lib.sh): a loaded machine takes
# longer to draw a screen, not a different one.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${ASAN_BUILD:=}" "${ONLY:=}"
export BUILD BANKLAB
[ -n "$ASAN_BUILD" ] && export ASAN_BANKLAB="$ASAN_BUILD/banklab"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
logdir="$BUILD/test-logs"; mkdir -p "$logdir"
# one compile cache for the suites that compile the same shipped kernels (kernel_no_silent,
# reader_knr, reader_model, ptx_h200, kernel_model: XDG_CACHE_HOME=$BANKLAB_TEST_CACHE; each
# reads the files where they are, the path being part of a compile), empty at each run:
# entries are keyed by the source, every file it includes, the flags and the compiler
# (tests/sh/kernel_cache.sh), so one suite's compile serves another's without ever being stale
BANKLAB_TEST_CACHE="$(cd "$BUILD" && pwd)/test-cache"
rm -rf "$BANKLAB_TEST_CACHE" && mkdir -m 700 "$BANKLAB_TEST_CACHE" || exit 1
export BANKLAB_TEST_CACHE
res="$logdir/results"; rm -rf "$res"; mkdir -p "$res"
: "${JOBS:=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}"
case $JOBS in ''|*[!0-9]*|0) JOBS=1 ;; esac
if [ "$JOBS" -gt 1 ]; then : "${BANKLAB_TEST_SLOW:=3}"; else : "${BANKLAB_TEST_SLOW:=1}"; fi
export BANKLAB_TEST_SLOW

logname() { echo "$logdir/$(echo "$1" | tr '/ ' '__').log"; }

# run_one NAME COMMAND...: runs it into its log; writes "$res/NAME" (the status, the skipped
# count, the seconds) and prints its one status line
run_one() {
    name=$1; shift
    log=$(logname "$name")
    t0=$(date +%s)
    "$@" >"$log" 2>&1; rc=$?
    secs=$(( $(date +%s) - t0 ))
    # cmocka marks a skipped test "[  SKIPPED ]" and still exits 0: count and show those
    nskip=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s), listed below:$/\1/p' "$log" 2>/dev/null | head -n 1)
    if [ $rc -eq 0 ] && [ "${nskip:-0}" -gt 0 ]; then
        st=pass; line="PASS  $name ($secs s; $nskip test(s) SKIPPED: $(grep -m1 '^SKIP' "$log"))"
    elif [ $rc -eq 0 ]; then st=pass nskip=0; line="PASS  $name ($secs s)"
    elif [ $rc -eq 77 ]; then st=skip nskip=1; line="SKIP  $name: $(tail -n 1 "$log")"
    else st=fail nskip=0; line="FAIL  $name (exit $rc, $secs s; log $log)"
    fi
    echo "$st ${nskip:-0} $secs $rc" >"$res/$(echo "$name" | tr '/ ' '__')"
    echo "$line"
}

# the tests, "NAME COMMAND" a line
list="$logdir/list"; : >"$list"
case $ONLY in
""|unit)
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] && echo "unit/$(basename "$t") $t" >>"$list"
    done
    if [ -n "$ASAN_BUILD" ]; then
        for t in "$ASAN_BUILD"/tests/test_*; do
            [ -x "$t" ] && echo "asan/$(basename "$t") $t" >>"$list"
        done
    fi
    if [ "$ONLY" != unit ]; then
        for s in tests/sh/*.sh; do
            [ -f "$s" ] && echo "sh/$(basename "$s" .sh) sh $s" >>"$list"
        done
    fi ;;
*)  # ONLY=NAME: the one unit test or shell suite of that name (make check T=NAME)
    if [ -x "$BUILD/tests/$ONLY" ]; then echo "unit/$ONLY $BUILD/tests/$ONLY" >>"$list"
    elif [ -f "tests/sh/$ONLY.sh" ]; then echo "sh/$ONLY sh tests/sh/$ONLY.sh" >>"$list"
    else echo "run.sh: no test named $ONLY"; echo; echo "0 passed, 1 failed, 0 skipped"; exit 1; fi ;;
esac

# alone: suites that say so; light ones (under JOBS > 1); the others, the longest of the last
# run first
alone="$logdir/alone"; pool="$logdir/pool"; light="$logdir/light"; : >"$alone"; : >"$pool"; : >"$light"
times="$logdir/times"
# no run yet (a fresh clone): the order of tests/times, the seconds of a whole run kept in the
# repository
order=$times
[ -f "$order" ] || order=tests/times
while read -r name cmd; do
    f=${cmd#sh }
    t=$( [ -f "$order" ] && awk -v n="$name" '$1 == n { print $2 }' "$order" | tail -n 1)
    if [ "$f" != "$cmd" ] && grep -q '^# run\.sh: alone' "$f" 2>/dev/null; then
        echo "$name $cmd" >>"$alone"
    elif [ "$JOBS" -gt 1 ] && [ "$f" != "$cmd" ] && grep -q '^# run\.sh: light' "$f" 2>/dev/null; then
        echo "${t:-999} $name $cmd" >>"$light"
    else
        echo "${t:-999} $name $cmd" >>"$pool"
    fi
done <"$list"
sort -k1,1nr -s "$pool" | cut -d' ' -f2- >"$pool.sorted"
sort -k1,1nr -s "$light" | cut -d' ' -f2- >"$light.sorted"

# the light lane: one light suite at a time, beside the pool (waited for with it)
if [ -s "$light.sorted" ]; then
    while read -r name cmd; do
        # shellcheck disable=SC2086
        run_one "$name" $cmd </dev/null
    done <"$light.sorted" &
fi

# the pool: a FIFO holding JOBS tokens; a test takes one to start and gives it back at its end
if [ "$JOBS" -gt 1 ] && [ "$(wc -l <"$pool.sorted")" -gt 1 ]; then
    fifo="$logdir/.pool.$$"
    rm -f "$fifo"; mkfifo "$fifo" || exit 1
    exec 3<>"$fifo"
    rm -f "$fifo"
    i=0; while [ $i -lt "$JOBS" ]; do echo >&3; i=$((i + 1)); done
    while read -r name cmd; do
        read -r _ <&3
        # shellcheck disable=SC2086
        { run_one "$name" $cmd 3>&-; echo >&3; } </dev/null &
    done <"$pool.sorted"
    wait
    exec 3>&-
else
    while read -r name cmd; do
        # shellcheck disable=SC2086
        run_one "$name" $cmd </dev/null
    done <"$pool.sorted"
fi
wait    # the light lane
while read -r name cmd; do
    # shellcheck disable=SC2086
    BANKLAB_TEST_SLOW=1 run_one "$name" $cmd </dev/null
done <"$alone"

# the summary, in the order of the list
pass=0 fail=0 skip=0 failed=""
: >"$times.new"
while read -r name cmd; do
    r="$res/$(echo "$name" | tr '/ ' '__')"
    if [ ! -f "$r" ]; then fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name: no result"; continue; fi
    read -r st n secs rc <"$r"
    echo "$name $secs" >>"$times.new"
    case $st in
    pass) pass=$((pass + 1)); skip=$((skip + n)) ;;
    skip) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)); failed="$failed $name"
       echo; echo "FAIL  $name (exit $rc; log $(logname "$name")):"
       tail -n 30 "$(logname "$name")" | sed 's/^/      /' ;;
    esac
done <"$list"
# the times of this run, kept for the next one's order (a partial run keeps the others)
[ -f "$times" ] && awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$times.new" "$times" >>"$times.new"
mv "$times.new" "$times"
echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
