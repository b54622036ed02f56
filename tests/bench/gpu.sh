#!/bin/sh
# gpu.sh (make bench): `banklab bench --both` on the GPU: stride sweep, transpose and case
# kernels, predicted vs measured, through the device's GPU server (as learners measure) and in
# this process, which must agree; both parameter-change times. Without a GPU it says SKIP and
# why (exit 77). Env: BANKLAB.
: "${BANKLAB:=build/banklab}"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$BANKLAB" bench --both > "$out" 2>&1
rc=$?
if [ $rc = 3 ]; then
    echo "SKIP: $(cat "$out")"
    exit 77
fi
cat "$out"
exit $rc
