#!/bin/sh
# ui.sh: screen benchmark. Runs the tutorial under tmux (no GPU: the model only) with
# BANKLAB_TIMING=FILE, which makes the program write, measured inside with
# clock_gettime(CLOCK_MONOTONIC): "first_frame_ms X" (from the start of `banklab` to the first
# full frame on the terminal, lessons loaded) and "redraw_ms X key K" (from getch returning a
# key to the end of refresh), and "lessons_ms X" (loading and validating the lessons). Prints medians, p95 and max; exits 1 when the median first frame
# is 100 ms or more or the median redraw 5 ms or more (the aims in docs/benchmarks.md).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${RUNS:=10}" "${LESSONS:=lessons}"
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
case $BANKLAB in /*) ;; *) BANKLAB=$PWD/$BANKLAB ;; esac
[ -x "$BANKLAB" ] || { echo "ui.sh: $BANKLAB is not built"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/banklab-uibench.XXXXXX")
TM="tmux -L banklab-bench-$$ -f /dev/null"
trap '$TM kill-server >/dev/null 2>&1; sleep 0.2; [ -n "${KEEP_TIMING:-}" ] && cp "$T" "$KEEP_TIMING"; rm -rf "$TMP"' EXIT
export HOME="$TMP" XDG_STATE_HOME="$TMP/state" LANG=C.UTF-8 TERM=xterm-256color
$TM new-session -d -s keep "sleep 3600"
T="$TMP/timing.txt"

wait_for() { # regex: poll capture-pane up to 5 s
    i=0
    while [ $i -lt 250 ]; do
        $TM capture-pane -p -t b 2>/dev/null | grep -qE -- "$1" && return 0
        sleep 0.02; i=$((i + 1))
    done
    echo "ui.sh: timed out waiting for /$1/"; $TM capture-pane -p -t b; exit 1
}
run() { # W H args: one session named b
    $TM kill-session -t b >/dev/null 2>&1
    $TM new-session -d -s b -x "$1" -y "$2" "BANKLAB_TIMING='$T' '$BANKLAB' --lessons '$LESSONS' --lang en $3; sleep 600"
}

# first frame: RUNS cold starts at 80x24 and 120x40
r=0
while [ $r -lt "$RUNS" ]; do
    if [ $((r % 2)) = 0 ]; then run 80 24 "--reset --chapter 3 --step 1"; else run 120 40 "--reset --chapter 3 --step 1"; fi
    wait_for "^ 3\\.1/"
    $TM send-keys -t b q
    r=$((r + 1))
done

# redraws: step through chapters 3-5 with n, change parameters, inspect, sweep, playground
run 120 40 "--reset --chapter 3 --step 1"
wait_for "^ 3\\.1/"
for k in e n e n e n e n e n e n b b b b; do $TM send-keys -t b "$k"; sleep 0.03; done
run 80 24 "--chapter 5 --step 1"
wait_for "^ 5\\.1/"
for k in e p p p P P P i Right Right Down Down Left Escape s Right Right Left Escape t t t; do
    $TM send-keys -t b "$k"; sleep 0.03
done
$TM send-keys -t b g; sleep 0.05
$TM send-keys -t b C-u; sleep 0.03
for ch in _ _ s h a r e d _ _ " " f l o a t " " s "[" 3 2 "]" "[" 3 3 "]" ";" " " s "[" l a n e "]" "[" 0 "]"; do
    $TM send-keys -t b -l "$ch"; sleep 0.03
done
$TM send-keys -t b Escape; sleep 0.05
$TM send-keys -t b q
sleep 0.3

stats() { # name: median p95 max count of the numbers on stdin
    sort -n | awk -v name="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print name ": no samples"; exit 1 }
        m = v[int((NR + 1) / 2)]; p = v[int(NR * 0.95 + 0.999)]; if (p == "") p = v[NR];
        printf "%s: median %.2f ms, p95 %.2f ms, max %.2f ms (%d samples)\n", name, m, p, v[NR], NR }'
}
grep '^first_frame_ms' "$T" | awk '{ print $2 }' | stats "first frame" || exit 1
grep '^lessons_ms' "$T" | awk '{ print $2 }' | stats "  of which loading lessons/" || exit 1
grep '^redraw_ms' "$T" | awk '{ print $2 }' | stats "redraw after a key" || exit 1
ff=$(grep '^first_frame_ms' "$T" | awk '{ print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
rd=$(grep '^redraw_ms' "$T" | awk '{ print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "aim: first frame < 100 ms, redraw < 5 ms ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
awk -v f="$ff" -v r="$rd" 'BEGIN { exit !(f < 100 && r < 5) }' || { echo "ui.sh: above the aim"; exit 1; }
exit 0
