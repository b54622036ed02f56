#!/bin/sh
# Make the recording that `--replay` loads: `banklab verify --json --timing` (every access a
# learner can draw in a lesson scene, counted and timed; every case-kernel setting) and
# `banklab bench --json` (stride sweep, copy ceiling, transposes, case kernels) on the GPU,
# merged into one file (default assets/h200-recording.json), one record per line. Needs a GPU
# and python3 (for the merge). Prints the time it took and the file's size.
# Usage: sh tests/gpu/record.sh [OUT.json]   (env: BANKLAB = the binary, LESSONS = a directory)
B=${BANKLAB:-build/banklab}
dst=${1:-assets/h200-recording.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
set -- verify --json --timing
[ -n "${LESSONS:-}" ] && set -- "$@" --lessons "$LESSONS"
"$B" "$@" > "$tmp/verify.json" 2> "$tmp/verify.err"
rc=$?
vrc=0
case $rc in
    0) ;;
    3) echo "SKIP: no GPU: $(tail -n 1 "$tmp/verify.err")"; exit 77 ;;
    1|4) # a difference or an access not measured: the recording keeps what was measured
        echo "record: banklab verify exit $rc (1: model and counters differ, 4: not all measured); recording anyway"
        grep -E "DIFFERS|NOT MEASURED" "$tmp/verify.err" "$tmp/verify.json" 2>/dev/null | head -5
        vrc=1 ;;
    *) echo "record: banklab verify failed (exit $rc)"; tail -5 "$tmp/verify.err"; exit 1 ;;
esac
t1=$(date +%s)
"$B" bench --json > "$tmp/bench.json" 2> "$tmp/bench.err" || {
    echo "record: banklab bench failed (exit $?)"
    tail -5 "$tmp/bench.err"
    exit 1
}
t2=$(date +%s)
python3 - "$tmp/verify.json" "$tmp/bench.json" "$dst" <<'PY' || exit 1
import json, sys
v = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert v["format"] == b["format"] == "banklab-recording" and v["version"] == b["version"]
v["command"] = v["command"] + "; " + b["command"]
records = v.pop("records") + b["records"]
# one record per line: the file diffs well and stays a few MB
with open(sys.argv[3], "w") as f:
    head = json.dumps(v, ensure_ascii=False)[:-1]
    f.write(head + ',\n "records": [\n')
    for i, r in enumerate(records):
        f.write("  " + json.dumps(r, ensure_ascii=False, separators=(",", ":")) +
                (",\n" if i + 1 < len(records) else "\n"))
    f.write(" ]\n}\n")
timed = sum(1 for r in records if r["result"].get("access_timing"))
print("record: %d records (%d with a time per access) (%s) -> %s" %
      (len(records), timed, v["device"], sys.argv[3]))
PY
t3=$(date +%s)
echo "record: verify $((t1 - t0)) s, bench $((t2 - t1)) s, total $((t3 - t0)) s; $(wc -c < "$dst") bytes"
exit $vrc
