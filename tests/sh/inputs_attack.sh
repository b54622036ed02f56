#!/bin/sh
# inputs_attack.sh: hostile input and output paths for one user. sim echoes C1
# controls, bidi overrides and bytes that are not UTF-8 as '?' under its caret and escaped
# elsewhere; `sim --script` reports a NUL in a line as such without swallowing the next line,
# refuses /dev/zero and a FIFO without a writer at once (not a regular file), and reads
# stdin from /dev/zero to a size bound; `sim --svg /dev/stdout | head` works; the temporary
# files of a killed save (progress.json.tmp-XXXXXX) are removed on the next start, a live
# save's are not touched; `lab` that cannot save its score exits 2. Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
B=$BANKLAB
[ -x "$B" ] || { echo "inputs_attack.sh: no binary at $B"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" LANG=C.UTF-8
mkdir -p "$HOME"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }
CSI=$(printf '\302\233') RLO=$(printf '\342\200\256') FF=$(printf '\377')
raw() { grep -q "$CSI\|$RLO\|$FF" "$1"; }

# ---- 5. C1, bidi and bad bytes on stderr ----
for p in "s[${CSI}2J]" "s[lane$(printf '\377\376')]" "s[lane ${RLO}]"; do
    "$B" sim "__shared__ float s[64]; $p" > "$tmp/out" 2> "$tmp/err"
    if raw "$tmp/err" || raw "$tmp/out"; then bad "sim '$(echo "$p" | od -An -c | tr -s ' ')': raw on output"
    else ok "sim: the pattern's bad characters are masked ($(sed -n 2p "$tmp/err"))"; fi
done
printf '__shared__ float s[64]; s[lane %s2J]\n' "$CSI" > "$tmp/c1.txt"
"$B" sim --script "$tmp/c1.txt" > "$tmp/out" 2> "$tmp/err"
raw "$tmp/err" || raw "$tmp/out" && bad "--script line with C1: raw on output" || ok "--script line with C1: masked"
"$B" sim "__shared__ float s[64]; // ${CSI}${RLO}
s[lane]" > "$tmp/out" 2> "$tmp/err"
raw "$tmp/out" && bad "a comment's C1 and bidi raw on stdout" || ok "a comment's C1 and bidi escaped on stdout"

# a bidi override in --learner is refused (it would reorder the name in the report)
"$B" report --no-gpu --out "$tmp" --learner "Bob${RLO}x" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "U+202E" "$tmp/err" && ! raw "$tmp/err" && ok "report --learner with U+202E refused, escaped" ||
    bad "--learner U+202E: exit $rc: $(cat "$tmp/err")"

# ---- 6. --script: NUL, /dev/zero, a FIFO ----
printf '__shared__ float s[64]; s[la\000ne]\n__shared__ float s[64]; s[lane * 2]\n' > "$tmp/nul.txt"
"$B" sim --script "$tmp/nul.txt" > "$tmp/out" 2> "$tmp/err"
rc=$?
grep -q ":1: the line holds a NUL byte" "$tmp/err" && ok "--script: a NUL is reported as a NUL" ||
    bad "--script NUL: $(cat "$tmp/err")"
grep -q "== $tmp/nul.txt:2" "$tmp/out" && ok "--script: the line after the NUL runs" || bad "--script: line 2 after a NUL lost"
[ $rc = 2 ] && ok "--script with a NUL line exits 2" || bad "--script NUL: exit $rc"
timeout 10 "$B" sim --script /dev/zero > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "character device, not a regular file" "$tmp/err" && ok "--script /dev/zero refused at once" ||
    bad "--script /dev/zero: exit $rc: $(head -c 200 "$tmp/err")"
timeout 20 "$B" sim --script - < /dev/zero > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "more than 64 MB" "$tmp/err" && ok "--script - < /dev/zero stops at the size bound" ||
    bad "--script - < /dev/zero: exit $rc: $(head -c 200 "$tmp/err")"
mkfifo "$tmp/fifo"
timeout 10 "$B" sim --script "$tmp/fifo" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "is a FIFO, not a regular file" "$tmp/err" && ok "--script FIFO without a writer: refused at once" ||
    bad "--script FIFO: exit $rc: $(head -c 200 "$tmp/err")"
printf '__shared__ float s[64]; s[lane]\n' | "$B" sim --script - > "$tmp/out" 2> "$tmp/err" &&
    grep -q "wavefronts" "$tmp/out" && ok "--script - from a pipe still works" || bad "--script - pipe: $(cat "$tmp/err")"

# ---- 7. --svg /dev/stdout into a pipe ----
"$B" sim '__shared__ float s[64]; s[lane]' --svg /dev/stdout 2> "$tmp/err" | head -n 1 > "$tmp/out"
grep -q "^<?xml" "$tmp/out" && ok "sim --svg /dev/stdout | head" || bad "--svg /dev/stdout | head: $(cat "$tmp/err")"
"$B" sim '__shared__ float s[64]; s[lane]' --svg /dev/stdout 2> "$tmp/err" | cat > "$tmp/out"
grep -q "</svg>" "$tmp/out" && ok "sim --svg /dev/stdout | cat: the whole picture" || bad "--svg | cat: $(cat "$tmp/err")"

# ---- 10. temporary files of a killed save ----
LAB=tests/labs/lab-basic.json
"$B" lab "$LAB" --no-gpu --answers PAD=1,STRIDE=1 > /dev/null 2>&1
st=$XDG_STATE_HOME/banklab
[ -f "$st/progress.json" ] || bad "lab saved no progress"
for x in Ab12Cd xY9zQw; do printf '{"half": ' > "$st/progress.json.tmp-$x"; done
"$B" lab "$LAB" --no-gpu --answers PAD=1,STRIDE=1 > /dev/null 2>&1
n=$(ls "$st" | grep -c 'tmp-')
[ "$n" = 0 ] && ok "a killed save's temporary files are removed on the next start" ||
    bad "$n temporary files left: $(ls "$st")"
# while another process holds the lock (a live save), its temporary file stays
printf '{"half": ' > "$st/progress.json.tmp-Live01"
if command -v flock >/dev/null 2>&1; then
    flock "$st/progress.lock" sleep 5 &
    sleep 0.5
    "$B" lab "$LAB" --no-gpu --answers PAD=1,STRIDE=1 > /dev/null 2> "$tmp/err"
    rc=$?
    [ -f "$st/progress.json.tmp-Live01" ] && ok "a live save's temporary file is left alone" ||
        bad "a temporary file was removed while the lock was held"
    [ $rc = 2 ] && grep -q "locked by another banklab" "$tmp/err" && ok "lab whose save waits too long exits 2" ||
        bad "lab with the lock held: exit $rc: $(cat "$tmp/err")"
    wait
fi

# ---- 11. lab cannot save: exit 2 ----
printf 'x\n' > "$tmp/statefile"
XDG_STATE_HOME="$tmp/statefile" "$B" lab "$LAB" --no-gpu --answers PAD=1,STRIDE=1 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "could not save progress" "$tmp/err" && ok "lab that cannot save exits 2" ||
    bad "lab without a writable state directory: exit $rc: $(cat "$tmp/err")"

echo "inputs_attack.sh: $pass passed, $fail failed"
[ $fail = 0 ]
