#!/bin/sh
# replay.sh: the tutorial with --replay in a real terminal (tmux on a private socket, killed at
# the end). A small recording made here (tests/labs/replay: one scene, one recorded result)
# must show "recorded on <device>, <date>" and the recorded counters; the shipped
# assets/h200-recording.json must show "recorded on" and measured numbers on some lesson step.
# A truncated recording and an older-format one must give a one-line error and exit 2, not a
# crash. SKIPs (77) only when --replay or assets/h200-recording.json is absent, saying which.
# Needs $BANKLAB, tmux, python3. Exit 0 pass, 1 fail, 77 skip.
set -u
. tests/sh/lib.sh replay.sh
ASSET="$root/assets/h200-recording.json"
FIXDIR="$root/tests/labs/replay"
"$BANKLAB" --help 2>&1 | grep -q -- "--replay" || { echo "replay.sh: SKIP: banklab has no --replay option yet"; exit 77; }
for t in tmux python3; do
    command -v $t >/dev/null || { echo "replay.sh: SKIP: $t is not installed"; exit 77; }
done
SOCK="banklab-replay-$$"
suite_cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null; }
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" LANG=C.UTF-8 TERM=xterm-256color
unset LC_ALL BANKLAB_LESSONS NO_COLOR
mkdir -p "$HOME"

screen() { tmux -L "$SOCK" capture-pane -p -J -t rp 2>/dev/null; }
wait_for() { # text [tenths of a second, default 100]
    n=0
    while [ $n -lt "${2:-100}" ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1; n=$((n+1))
    done
    return 1
}
start() { # args for banklab...
    tmux -L "$SOCK" kill-session -t rp 2>/dev/null
    rm -rf "$XDG_STATE_HOME"
    cmd="'$BANKLAB'"
    for a in "$@"; do cmd="$cmd '$a'"; done
    tmux -L "$SOCK" -f /dev/null new-session -d -s rp -x 140 -y 45 "$cmd; echo EXIT=\$?; sleep 60"
}
show() { echo "--- screen:"; screen | sed -n '1,45p' | grep -v '^ *$' | head -n 30; }

# ---- a recording made here: the fixture scene, recorded with made-up counters -------------
# __shared__ float t[32][32]; t[lane][0]: lane n reads byte n*128
python3 - "$tmp/rec.json" <<'EOF'
import json, sys
rec = {
  "format": "banklab-recording", "version": 1,
  "device": "Test GPU (sm_90)", "date": "2026-01-02T03:04:05Z", "command": "replay.sh",
  "records": [{
    "group": "lesson", "label": "replay-test/column", "model": {"wavefronts": 32, "conflicts": 31},
    "agree": False,
    "request": {"kind": "pattern", "width": 4, "op": "ld", "mask": "ffffffff",
                "offsets": [n * 128 for n in range(32)], "timing": True, "counters": True},
    "result": {"status": "ok", "error": "", "provenance": "Test GPU", "verified": False,
               "timing": {"ms_median": 0.125, "ms_min": 0.12, "ms_max": 0.13, "launches": 5,
                          "clk_per_request": 64.5, "bytes_per_clk_per_sm": 4.0, "gbps": 0},
               "access_timing": {"clk_per_access": 64.5, "ns_per_access": 32.58,
                                 "ref_clk_per_access": 2.02, "slowdown": 31.9},
               "counters": {"wavefronts_ld": 33.0, "wavefronts_st": 0, "conflicts_ld": 29.0,
                            "conflicts_st": 0, "inst_ld": 1, "inst_st": 0},
               "counters_note": ""}
  }]
}
json.dump(rec, open(sys.argv[1], "w"), indent=1)
EOF
start --lessons "$FIXDIR" --replay "$tmp/rec.json"
if wait_for "recorded on Test GPU (sm_90), 2026-01-02"; then ok; else fail "own recording: no 'recorded on' label"; show; fi
# the recorded numbers differ from the model on purpose: they can only come from the file
if wait_for "33.0 wavefronts, 29.0 conflicts"; then ok; else fail "own recording: recorded counters not shown"; show; fi
wait_for "32.58 ns per access under load (64.5 clk)" && ok || fail "own recording: recorded time per access not shown"
wait_for "31.9× the conflict-free load" && ok || fail "own recording: recorded slowdown not shown"
tmux -L "$SOCK" send-keys -t rp q
wait_for "EXIT=0" 50 && ok || { fail "own recording: q did not exit 0"; show; }

# ---- broken recordings: one line on stderr, exit 2, no crash -------------------------------
broken() { # what file
    "$BANKLAB" --lessons "$FIXDIR" --replay "$2" </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
    lines=$(grep -c . "$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ]; then ok
    else fail "$1: exit $rc, $lines stderr lines: $(head -c 300 "$tmp/err")"; fi
    grep -qF "$(basename "$2")" "$tmp/err" && ok || fail "$1: the message does not name the file: $(cat "$tmp/err")"
}
head -c 700 "$tmp/rec.json" >"$tmp/truncated.json"
broken "truncated recording" "$tmp/truncated.json"
grep -qi "truncated\|ends early" "$tmp/err" && ok || fail "truncated: message does not say so: $(cat "$tmp/err")"
sed 's/"version": 1/"version": 0/' "$tmp/rec.json" >"$tmp/older.json"
grep -q '"version": 0' "$tmp/older.json" || fail "could not make the older-format file"
broken "older-format recording" "$tmp/older.json"
grep -qi "version" "$tmp/err" && ok || fail "older format: message does not name the version: $(cat "$tmp/err")"
broken "missing recording" "$tmp/nonexistent.json"
printf 'not json at all' >"$tmp/garbage.json"
broken "garbage recording" "$tmp/garbage.json"

# ---- the shipped H200 recording ------------------------------------------------------------
if [ ! -f "$ASSET" ]; then
    echo "replay.sh: $npass passed, $nfail failed"
    [ $nfail -eq 0 ] || exit 1
    echo "replay.sh: SKIP: assets/h200-recording.json has not landed (own recording checks passed)"
    exit 77
fi
start --lessons "$root/lessons" --replay "$ASSET"
if wait_for "recorded on"; then ok; else fail "H200 recording: no 'recorded on' label"; show; fi
# walk the steps until one shows recorded numbers (bounded); e reveals predict steps
found=0 i=0
while [ $i -lt 80 ] && [ $found -eq 0 ]; do
    tmux -L "$SOCK" send-keys -t rp e
    if wait_for "ns/access" 6 || wait_for "ns per access" 2 || wait_for "GB/s" 2; then found=1; break; fi
    tmux -L "$SOCK" send-keys -t rp n
    i=$((i+1))
done
if [ $found -eq 1 ]; then ok; else fail "H200 recording: no step showed measured numbers in $i steps"; show; fi
screen | grep -q "measured[: ]*[0-9]" && ok || { fail "H200 recording: the measured line has no number"; show; }
tmux -L "$SOCK" send-keys -t rp q
wait_for "EXIT=0" 50 && ok || { fail "H200 recording: q did not exit 0"; show; }
size=$(wc -c <"$ASSET")
head -c $((size / 2)) "$ASSET" >"$tmp/h200-truncated.json"
broken "truncated H200 recording" "$tmp/h200-truncated.json"
python3 - "$ASSET" "$tmp/h200-older.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["version"] = 0
json.dump(d, open(sys.argv[2], "w"))
EOF
broken "older-format H200 recording" "$tmp/h200-older.json"

finish
