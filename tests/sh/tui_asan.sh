#!/bin/sh
# tui_asan.sh: the tutorial under AddressSanitizer + UBSan + LeakSanitizer ($ASAN_BANKLAB,
# built by `make test`): every step of the fixture lesson with its keys (parameters, type,
# warp, access, inspect, sweep, contents, help, hints, language), the playground with valid and
# invalid input, a resize storm, then quit: a sanitizer report ends the program with a non-zero
# status, which the suite checks. SKIP when no sanitizer build is there.
[ -n "${ASAN_BANKLAB:-}" ] && [ -x "$ASAN_BANKLAB" ] || { echo "SKIP: no ASan build (make test builds one)"; exit 77; }
BANKLAB=$ASAN_BANKLAB
. tests/sh/tui_fixtures/lib.sh
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
FIX=tests/sh/tui_fixtures/lessons

start 80 24 BANKLAB_EXPORT_DIR="$TMP" -- --lessons $FIX --lang en --reset
expect " 1\\.1/5 " 10
keys i Right Down Up Left Escape l l '?' z h n
expect " 1\\.2/5 "
keys P P p s Right Right Left Escape i Down Down Down Right Escape c Down Enter
expect " 1\\.3/5 "
keys t t t K K k w a n
expect " 1\\.4/5 "
lit 12
keys BSpace Enter
expect "answer: 1"
keys n
expect " 1\\.5/5 "
keys 1 a Tab w w W P i Down Escape x r n b
i=0
while [ $i -lt 20 ]; do $TM resize-window -t t -x $((50 + (i * 29) % 90)) -y $((12 + (i * 7) % 30)); i=$((i + 1)); done
$TM resize-window -t t -x 100 -y 30
expect " 1\\.[45]/5 "
keys g C-u
lit '__shared__ float4 v[64][9]; v[lane][lane % 4'
expect "error: "
lit '] ; block=32x8; warp=3; int r = tid / 7; v[r][1] = 0'
keys Tab Tab Home Right Right End Left BSpace BSpace BSpace
lit '1/0]'
keys Enter Up Down Escape
expect " 1\\.[45]/5 "
# random typing in the playground (fixed seed): the parser and the screen take anything
keys g C-u
awk 'BEGIN { srand(7); tokens = "s[ ] ( ) + - * / % << >> & | ^ ~ ? : , . 0 1 32 33 1024 lane tid warp threadIdx.x threadIdx.y blockDim.x float float4 char short struct { } __shared__ extern int PAD = == min( max( PAD=3 block=32x8 warp=9 ! && || -1 99999999999999999999";
    n = split(tokens, t, " ");
    for (c = 0; c < 25; c++) { line = ""; for (i = 0; i < 12; i++) line = line t[int(rand() * n) + 1] (rand() < 0.3 ? " " : "");
        if (rand() < 0.5) line = line ";"; print line "x" } }' >"$TMP/random.txt"
while IFS= read -r chunk; do
    lit "$chunk"
    keys Left Left BSpace Home Right DC End Tab
done <"$TMP/random.txt"
keys C-u
lit '__shared__ float s[32][33]; s[lane][0]'
expect "model +1 wavefront"
keys Escape
expect " 1\\.[45]/5 "
keys q
expect "EXITED rc=0" 20
exit 0
