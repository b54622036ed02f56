#!/bin/sh
# compute-sanitizer memcheck and racecheck over every kernel (pattern kernel widths 4/8/16,
# loads and stores; transpose family; all case kernels), in BANKLAB_LIGHT mode (small
# launches) with CUPTI off (it cannot run under the sanitizer). Exit 0 when both report
# nothing, 77 without compute-sanitizer or a GPU.
B=${BANKLAB:-build/banklab}
command -v compute-sanitizer > /dev/null 2>&1 || { echo "SKIP: no compute-sanitizer"; exit 77; }
# the kernels must run in this process (under the tool / with this process's lock), not in
# a GPU server (banklab serve) that another banklab started
export BANKLAB_NO_SERVER=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
for tool in memcheck racecheck; do
    BANKLAB_LIGHT=1 BANKLAB_NO_COUNTERS=1 compute-sanitizer --tool $tool --error-exitcode 9 \
        "$B" bench > "$out/$tool.txt" 2>&1
    rc=$?
    if [ $rc = 3 ]; then
        echo "SKIP: no GPU"
        exit 77
    fi
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.txt" | tail -1)
    kernels=$(grep -c "yes$" "$out/$tool.txt")
    if [ $rc = 0 ] && echo "$summary" | grep -q " 0 "; then
        echo "ok   compute-sanitizer $tool: $summary ($kernels case kernels checked)"
    else
        echo "FAIL compute-sanitizer $tool (exit $rc): $summary"
        grep -E "^=========" "$out/$tool.txt" | head -30
        fail=1
    fi
done
exit $fail
