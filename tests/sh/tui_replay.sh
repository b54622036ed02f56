#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_replay.sh: --replay FILE. Measurements recorded by bench/verify --json are shown next to
# the model, labelled "recorded on <device>, <date>": counters, the time of one warp access and
# its slowdown against the conflict-free access; changing the parameter asks for the new
# access (recorded: its numbers; not recorded: says so); the sweep view draws the measured
# series; a case kernel shows its own time and GB/s and its whole-kernel counters; a broken
# recording is refused with a message and exit status 2.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons

# the fixture's step 1.2: s[lane][0] of float s[32][32 + PAD]: lane n at n*(32+PAD)*4 bytes
row() { # PAD wavefronts conflicts clk ns slowdown
    offs=$(i=0; while [ $i -lt 32 ]; do printf '%s%d' "$( [ $i -gt 0 ] && echo ,)" $((i * (32 + $1) * 4)); i=$((i + 1)); done)
    cat <<ROW
    {"group": "lesson", "label": "tui-fixture/column PAD=$1", "model": {"wavefronts": $2, "conflicts": $3},
     "agree": true,
     "request": {"kind": "pattern", "width": 4, "op": "ld", "mask": "ffffffff", "offsets": [$offs],
                 "timing": true, "counters": true},
     "result": {"status": "ok", "error": "", "provenance": "test recording",
                "timing": {"ms_median": 0.5, "ms_min": 0.4, "ms_max": 0.6, "launches": 9,
                           "clk_per_request": $4, "bytes_per_clk_per_sm": 2.0, "gbps": 0},
                "access_timing": {"clk_per_access": $4, "ns_per_access": $5,
                                  "ref_clk_per_access": 2.02, "slowdown": $6},
                "verified": false,
                "counters": {"wavefronts_ld": $2, "wavefronts_st": 0, "conflicts_ld": $3,
                             "conflicts_st": 0, "inst_ld": 1024, "inst_st": 0},
                "counters_note": ""}}
ROW
}
case_row() { # PAD gbps wavefronts conflicts: the transpose_padded case kernel
    cat <<ROW
    {"group": "transpose", "label": "transpose_padded PAD=$1", "model": {"wavefronts": $3, "conflicts": $4},
     "agree": true,
     "request": {"kind": "case", "case": "transpose_padded", "params": {"PAD": $1},
                 "timing": true, "counters": true},
     "result": {"status": "ok", "error": "", "provenance": "test recording",
                "timing": {"ms_median": 1.0, "ms_min": 0.9, "ms_max": 1.1, "launches": 9,
                           "clk_per_request": 0, "bytes_per_clk_per_sm": 0, "gbps": $2},
                "verified": true,
                "counters": {"wavefronts_ld": $3, "wavefronts_st": 1, "conflicts_ld": $4,
                             "conflicts_st": 0, "inst_ld": 1024, "inst_st": 1024},
                "counters_note": ""}}
ROW
}
{
    echo '{"format": "banklab-recording", "version": 1, "device": "NVIDIA H200 (sm_90)",'
    echo ' "date": "2026-11-29T12:00:00Z", "command": "hand-written for tui_replay.sh", "records": ['
    row 0 32 31 64.5 32.58 31.9; echo ,
    row 1 1 0 2.25 1.14 1.1; echo ,
    row 3 1 0 2.5 1.26 1.2; echo ,
    case_row 0 1601 32 31; echo ,
    case_row 1 3500 1 0
    echo ']}'
} >"$TMP/rec.json"

start 100 30 -- --lessons $FIX --lang en --reset --replay "$TMP/rec.json" --chapter 1 --step 2
expect " 1\\.2/5 "
expect "banklab · replay: recorded on H200 · en"
expect "measured +32\\.0 wavefronts, 31\\.0 conflicts · 32\\.58 ns/access under load · 31\\.9× conflict-free"
expect "^ +recorded on NVIDIA H200 \\(sm_90\\), 2026-11-29T12:00:00Z"
# the playground measures its own access; back on the step, the step's numbers return
keys g
expect "playground"
keys C-u
lit '__shared__ float q[64]; q[lane]'
expect "measured +- \\(no recorded measurement"
keys Escape
expect " 1\\.2/5 "
expect "measured +32\\.0 wavefronts, 31\\.0 conflicts · 32\\.58 ns"
keys P
expect "PAD=1 "
expect "measured +1\\.0 wavefronts, 0\\.0 conflicts · 1\\.14 ns/access under load (\\(2\\.2 clk\\) )?· 1\\.1× conflict-free"
keys P
expect "PAD=2 "
expect "measured +- \\(no recorded measurement"
# the sweep draws the measured series under the model's
keys s
expect "measured: ns per warp access under load against PAD"
expect "PAD=2: 2 wavefronts \\(model\\)"
keys Left
expect "PAD=1: 1 wavefront \\(model\\) · 1\\.14 ns/access, 1\\.1× conflict-free"
# a case kernel: the request carries the kernel's parameters (PAD) and the GB/s come back
keys Escape c
expect "contents"
keys Down Down Down Enter
expect " 1\\.5/5 "
expect "access 1/2 \\[a\\]: store tile"
expect "measured +whole kernel: 1\\.00 wavefronts, 0\\.00 conflicts per store · kernel 1\\.000 ms, 1601 GB/s"
expect "^ +recorded on NVIDIA H200"
keys a
expect "whole kernel: 32\\.00 wavefronts, 31\\.00 conflicts per load"
keys P   # PAD=1: the drawn column is the recorded PAD=1 column: its time per access too
expect "measured +1\\.14 ns per access under load \\(2\\.2 clk\\) · 1\\.1× the conflict-free load"
expect "whole kernel: 1\\.00 wavefronts, 0\\.00 conflicts per load · kernel 1\\.000 ms, 3500 GB/s"
keys q
expect "EXITED rc=0"
jq -e '.explored[] | select(.device != "" and .wavefronts == 32)' "$PROGRESS" >/dev/null ||
    fail "the measured access is not in progress.json's explored list"

# the shipped recording: every step of chapter 11 (each has a scene) shows what the H200
# measured once its quiz is revealed, never "no recorded measurement"
for st in 1 2 3 4 5 6 7 8; do
    start 120 45 -- --replay assets/h200-recording.json --lang en --reset --chapter 11 --step $st
    expect " 11\\.$st/8 "
    keys e
    expect "^ *measured +[0-9.]+ wavefronts, [0-9.]+ conflicts · [0-9.]+ ns per access"
    screen | grep -q "no recorded measurement" && fail "11.$st: no recorded measurement"
    keys q
    expect "EXITED rc=0"
done

# a broken recording: refused before the screen starts
printf '{"format": "banklab-recording", "version": 1, "records": [' >"$TMP/bad.json"
"$BANKLAB" --lessons $FIX --replay "$TMP/bad.json" </dev/null >"$TMP/out.txt" 2>&1
rc=$?
[ $rc = 2 ] || fail "broken recording: exit $rc, want 2"
grep -q "bad.json" "$TMP/out.txt" || fail "broken recording: message does not name the file: $(cat "$TMP/out.txt")"
exit 0
