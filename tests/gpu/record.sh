#!/bin/sh
# Make the recording that `--replay` loads: `banklab verify --json` and `banklab bench --json`
# on the GPU, merged into one file (default assets/h200-recording.json). Needs a GPU and
# python3 (for the merge). Usage: sh tests/gpu/record.sh [OUT.json]
B=${BANKLAB:-build/banklab}
dst=${1:-assets/h200-recording.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B" verify --json > "$tmp/verify.json" || { echo "record: banklab verify failed (exit $?)"; exit 1; }
"$B" bench --json > "$tmp/bench.json" || { echo "record: banklab bench failed (exit $?)"; exit 1; }
python3 - "$tmp/verify.json" "$tmp/bench.json" "$dst" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert v["format"] == b["format"] == "banklab-recording" and v["version"] == b["version"]
v["command"] = v["command"] + "; " + b["command"]
v["records"] += b["records"]
with open(sys.argv[3], "w") as f:
    json.dump(v, f, indent=1)
    f.write("\n")
print("record: %d records (%s) -> %s" % (len(v["records"]), v["device"], sys.argv[3]))
PY
