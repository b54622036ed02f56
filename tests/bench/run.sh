#!/bin/sh
# run.sh: the `make bench` driver. Runs the model benchmark ($BUILD/tests/bench_model) and the
# PTX executor's ($BUILD/tests/bench_ptx), then
# every tests/bench/*.sh other than this one (screen, GPU, ...), printing what each reports.
# A script exits 0 (ok), 77 (skipped: says why on its last line) or other (failed).
# Ends with "N ok, N failed, N skipped" and exits 1 if anything failed. Env: BUILD, BANKLAB.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
export BUILD BANKLAB
ok=0 fail=0 skip=0
here=$(dirname "$0")

report() { # name rc
    if [ "$2" -eq 0 ]; then ok=$((ok+1)); echo "== $1: ok"
    elif [ "$2" -eq 77 ]; then skip=$((skip+1)); echo "== $1: skipped"
    else fail=$((fail+1)); echo "== $1: FAILED (exit $2)"
    fi
}

echo "== bench_model ($(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'))"
if [ -x "$BUILD/tests/bench_model" ]; then
    "$BUILD/tests/bench_model"; report bench_model $?
else
    echo "bench_model: $BUILD/tests/bench_model is not built (make bench builds it)"
    report bench_model 1
fi

echo "== bench_ptx"
if [ -x "$BUILD/tests/bench_ptx" ]; then
    "$BUILD/tests/bench_ptx"; report bench_ptx $?
else
    echo "bench_ptx: $BUILD/tests/bench_ptx is not built (make bench builds it)"
    report bench_ptx 1
fi

for s in "$here"/*.sh; do
    [ -f "$s" ] || continue
    [ "$(basename "$s")" = run.sh ] && continue
    name=$(basename "$s" .sh)
    echo
    echo "== $name"
    sh "$s"; report "$name" $?
done
echo
echo "$ok ok, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
