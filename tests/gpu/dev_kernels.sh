#!/bin/sh
# dev_kernels.sh: `banklab kernel --json` on the kernels written the way developers write them
# (tests/gpu/kernels/dev_*.cu) and on every shipped example kernel, each with the launch of
# dev_cases.txt (LABEL|FILE|OPTIONS), measured per line on the GPU. Writes one JSON object a
# line, {"label":..., "file":..., "options":..., "result": <banklab's JSON>}, into
# ${OUT:-.}/dev_kernels.jsonl (tests/data/kernel/ keeps it for the model's tests).
# Run after `make device-bundle`; without a GPU: SKIP (77). Env: BANKLAB.
set -u
B=${BANKLAB:-build/banklab}
out=${OUT:-.}
here=$(cd "$(dirname "$0")" && pwd)
export XDG_CACHE_HOME="$(mktemp -d)" BANKLAB_KERNEL_SERVER=30
res="$out/dev_kernels.jsonl"
: > "$res"
timeout 60 "$B" kernel assets/kernels/strided.cu --json > /dev/null 2> "$out/dev_probe.err"
[ $? = 3 ] && { echo "SKIP: $(tail -n 1 "$out/dev_probe.err")"; exit 77; }
fail=0 n=0
while IFS='|' read -r label file opts; do
    case $label in ''|'#'*) continue ;; esac
    n=$((n + 1))
    # shellcheck disable=SC2086
    eval "set -- $opts"
    if timeout 120 "$B" kernel "$file" "$@" --json > "$out/one.json" 2> "$out/one.err"; then
        python3 -c 'import json,sys; print(json.dumps({"label":sys.argv[1],"file":sys.argv[2],"options":sys.argv[3],"result":json.load(open(sys.argv[4]))}))' \
            "$label" "$file" "$opts" "$out/one.json" >> "$res"
        echo "ok   $label"
    else
        fail=$((fail + 1))
        echo "FAIL $label: $(tail -n 2 "$out/one.err")"
    fi
done < "$here/dev_cases.txt"
rm -f "$out/one.json" "$out/one.err"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
