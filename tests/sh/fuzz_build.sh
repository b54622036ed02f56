#!/bin/sh
# fuzz_build.sh: the libFuzzer targets (`make fuzz`) still build and run over their seed corpus
# (make test builds no fuzz target otherwise: a room of theirs that comes to call one the
# Makefile's FUZZ_ROOMS lacks breaks them here, by name). Short: the seeds plus 2,000 inputs
# each.
set -u
: "${BUILD:=build}"
command -v clang >/dev/null || { echo "fuzz_build.sh: SKIP: clang is not installed (make deps)"; exit 77; }
out=$(make --no-print-directory -s -j"$(nproc 2>/dev/null || echo 2)" BUILD="$BUILD" $(ls tests/fuzz/fuzz_*.c | sed "s|tests/fuzz/\(.*\)\.c|$BUILD/fuzz/\1|") 2>&1) ||
    { echo "FAIL: the fuzz targets do not build:"; echo "$out" | tail -n 20; exit 1; }
for f in "$BUILD"/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    n=$(basename "$f")
    # new inputs go to the first directory (a scratch one), the seeds are only read
    rm -rf "$BUILD/fuzz/smoke-$n"; mkdir -p "$BUILD/fuzz/smoke-$n"
    "$f" -runs=2000 -timeout=5 -rss_limit_mb=2048 "$BUILD/fuzz/smoke-$n" "tests/fuzz/corpus/${n#fuzz_}" \
        > "$BUILD/fuzz/$n.smoke.log" 2>&1 ||
        { echo "FAIL: $n over its seed corpus:"; tail -n 20 "$BUILD/fuzz/$n.smoke.log"; exit 1; }
done
echo "fuzz_build.sh: ok"
