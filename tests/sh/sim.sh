#!/bin/sh
# sim.sh: `banklab sim` end to end: the five patterns of the issue give the measured numbers
# (checked in --json with python3), the raw --offsets form, --mask, --store, pairing, several
# accesses, error cases (exit 2, a caret under the place), --help, ASCII and colour rules,
# and inputs that must never crash. Needs $BANKLAB and python3. Exit 0 pass, 1 fail.
set -u
command -v python3 >/dev/null || { echo "sim.sh: python3 is needed"; exit 1; }
. tests/sh/lib.sh sim.sh

# expect_json "what" 'check1 check2 ...' sim-args...   (checks are path=value, no spaces)
expect_json() {
    what=$1 checks=$2
    shift 2
    if ! "$BANKLAB" sim "$@" --json >"$tmp/out.json" 2>"$tmp/err"; then
        fail "$what: exit $? ($(head -c 300 "$tmp/err"))"
        return
    fi
    # shellcheck disable=SC2086
    if msg=$(json_check - $checks <"$tmp/out.json" 2>&1); then ok
    else fail "$what: $msg"; fi
}

# expect_exit "what" CODE sim-args...; stderr kept in $tmp/err, stdout in $tmp/out
expect_exit() {
    what=$1 want=$2
    shift 2
    "$BANKLAB" sim "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok; else fail "$what: exit $rc, want $want"; fi
}

offsets() { # stride_bytes [count=32] -> "0,s,2s,..."
    python3 -c "import sys; s=int(sys.argv[1]); print(','.join(str(n*s) for n in range(32)))" "$1"
}

# ---- the five patterns of the issue (numbers measured on an H200) ----
expect_json "column of float[32][32]" \
    'wavefronts=32 conflicts=31 passes=1 ways=32 op=load width=4 mask=ffffffff paired=false' \
    '__shared__ float data[32][32]; data[threadIdx.x][0]'
expect_json "padded tile, block 32x8" \
    'wavefronts=1 conflicts=0 ways=1 block=[32,8,1] warp=0 params.PAD=1 arrays.0.dims=[32,33]' \
    '__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]' --block 32x8 --param PAD=1
expect_json "AoS float3 .x" 'wavefronts=1 conflicts=0 width=4 lanes.1.offset=12 lanes.1.banks=[3]' \
    '__shared__ struct { float x, y, z; } p[256]; p[lane].x'
expect_json "float4 stride 2" \
    'wavefronts=8 conflicts=4 passes=4 npasses=4 ways=2 width=16 paired=false lanes.1.words=[8,9,10,11] lanes.9.pass=1 pass_detail.1.cost=2 pass_detail.1.lanes=[8,9,10,11,12,13,14,15]' \
    '__shared__ float4 v[64]; v[lane * 2]'
expect_json "store stride 32" 'wavefronts=32 conflicts=31 op=store access.kind=store' \
    '__shared__ float s[1024]; s[lane * 32] = 1.0f'

# The JSON carries the pattern, the layout and per-lane / per-pass detail.
expect_json "json detail" \
    'lanes.31.lane=31 lanes.31.active=true pass_detail.0.banks.0.words.0.lanes.31=31 pass_detail.0.worst_bank=0 conflict_lanes=[]' \
    '__shared__ float s[64]; s[0]'
"$BANKLAB" sim '__shared__ float s[64]; s[0]' --json >"$tmp/b.json" 2>&1
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pattern"] == "__shared__ float s[64]; s[0]", d["pattern"]
assert len(d["lanes"]) == 32 and len(d["pass_detail"]) == 1 and len(d["pass_detail"][0]["banks"]) == 32
for l in d["lanes"]:
    assert set(l) >= {"lane", "active", "offset", "banks", "words", "pass", "conflict"}, l
b0 = d["pass_detail"][0]["banks"][0]["words"]
assert b0 == [{"word": 0, "lanes": list(range(32))}], b0
for k in ("wavefronts", "passes", "conflicts", "ways", "width"):
    assert type(d[k]) is int, k
assert d["paired"] is False and d["op"] == "load" and d["mask"] == "ffffffff"
' "$tmp/b.json"; then ok; else fail "broadcast json structure"; fi

# ---- raw form ----
expect_json "raw stride 1" 'wavefronts=1 conflicts=0 width=4 op=load' --offsets "$(offsets 4)"
expect_json "raw stride 32 words" 'wavefronts=32 conflicts=31 ways=32' --offsets "$(offsets 128)"
expect_json "raw hex offsets" 'wavefronts=1 lanes.3.offset=12' \
    --offsets "$(python3 -c "print(','.join(hex(4*n) for n in range(32)))")"
expect_json "raw --mask half warp stride 32 (16-way)" 'wavefronts=16 conflicts=15 mask=0000ffff lanes.16.active=false' \
    --offsets "$(offsets 128)" --mask 0000ffff
expect_json "raw --mask 0x prefix" 'wavefronts=2 mask=00000003' --offsets "$(offsets 128)" --mask 0x3
expect_json "raw --mask 0 (nothing active)" 'wavefronts=0 passes=0 conflicts=0 ways=0' \
    --offsets "$(offsets 128)" --mask 0
expect_json "float2 stride 2 (4 wavefronts, 2 conflicts)" 'wavefronts=4 conflicts=2 passes=2 width=8' \
    --offsets "$(offsets 16)" --width 8
pairs=$(python3 -c "print(','.join(str(n//2*8) for n in range(32)))")
expect_json "8-byte load, lane pairs share addresses: paired" 'wavefronts=1 passes=1 paired=true npasses=1' \
    --offsets "$pairs" --width 8
expect_json "8-byte store, same offsets: stores never fuse" 'wavefronts=2 passes=2 paired=false op=store' \
    --offsets "$pairs" --width 8 --store
expect_json "store flag" 'op=store wavefronts=32' --offsets "$(offsets 128)" --store
expect_json "char neighbours in one word" 'wavefronts=1 conflicts=0 width=1' --offsets "$(offsets 1)" --width 1

# ---- several accesses ----
expect_json "two accesses" 'accesses.0.wavefronts=1 accesses.1.wavefronts=2 accesses.1.op=store accesses.1.access.index=2' \
    '__shared__ float s[64]; s[lane]; s[lane * 2] = 0'
expect_json "--access 2" 'wavefronts=2 access.index=2' '__shared__ float s[64]; s[lane]; s[lane * 2] = 0' --access 2
"$BANKLAB" sim '__shared__ float s[64]; s[lane]; s[lane * 2] = 0' --no-color >"$tmp/two" 2>&1
if [ "$(grep -c '^access [12] of 2' "$tmp/two")" = 2 ] && [ "$(grep -c '^wavefronts' "$tmp/two")" = 2 ]; then ok
else fail "two accesses: text shows both"; fi

# ---- text output ----
"$BANKLAB" sim '__shared__ float s[1024]; s[lane * 32]' >"$tmp/t" 2>&1
grep -q '^wavefronts 32, passes 1, conflicts 31, ways 32, paired no$' "$tmp/t" && ok || fail "text summary line"
grep -q 'worst bank 0 (32 words)' "$tmp/t" && ok || fail "text worst bank"
grep -q '31!' "$tmp/t" && ok || fail "text conflict glyph"
grep -q '^conflicting lanes: 0-31 (32)$' "$tmp/t" && ok || fail "text conflicting lanes"
grep -q ' lane  offset' "$tmp/t" && ok || fail "text lane table"
if python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$tmp/t"
then ok; else fail "text wider than 80 columns"; fi
"$BANKLAB" sim '__shared__ float s[64]; s[0]' >"$tmp/bc" 2>&1
grep -q ' 0\*' "$tmp/bc" && grep -q 'broadcast: bank 0 word 0: lanes 0-31' "$tmp/bc" && ok || fail "broadcast glyph and legend"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/t"; then fail "colour escapes when not a terminal"; else ok; fi
"$BANKLAB" sim '__shared__ float4 v[64]; v[lane * 2]' --ascii >"$tmp/a" 2>&1
if LC_ALL=C grep -q '[^ -~]' "$tmp/a"; then fail "--ascii printed non-ASCII bytes"; else ok; fi
[ "$(grep -c '^pass [1-4] of 4' "$tmp/a")" = 4 ] && ok || fail "float4: four pass sections"
"$BANKLAB" sim '__shared__ float s[64]; s[lane]' >"$tmp/u" 2>&1
grep -q '│' "$tmp/u" && ok || fail "Unicode box drawing by default"
"$BANKLAB" sim '__shared__ float s[64]; s[lane]' --columns 143 >"$tmp/w" 2>&1
[ "$(grep -c ' bank │' "$tmp/w")" = 1 ] && ok || fail "--columns 143: one band of 32 banks"

# Colour only on a terminal, never with NO_COLOR or --no-color (script(1) gives a pty).
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    esc=$(printf '\033')
    script -qec "$BANKLAB sim --offsets $(offsets 128)" /dev/null </dev/null >"$tmp/tty" 2>&1
    grep -q "$esc\[" "$tmp/tty" && ok || fail "no colour on a terminal"
    NO_COLOR=1 script -qec "$BANKLAB sim --offsets $(offsets 128)" /dev/null </dev/null >"$tmp/tty" 2>&1
    grep -q "$esc\[[0-9;]*m" "$tmp/tty" && fail "colour despite NO_COLOR" || ok
    script -qec "$BANKLAB sim --no-color --offsets $(offsets 128)" /dev/null </dev/null >"$tmp/tty" 2>&1
    grep -q "$esc\[[0-9;]*m" "$tmp/tty" && fail "colour despite --no-color" || ok
else
    echo "note: script(1) unusable, colour checks skipped"
fi

# ---- help and errors ----
expect_exit "--help" 0 --help
grep -q -- '--offsets' "$tmp/out" && grep -q 'Examples' "$tmp/out" && grep -q 'accesses' "$tmp/out" && ok \
    || fail "--help documents options, JSON and examples"
if python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in open(sys.argv[1]).read().split("\n")))' "$tmp/out"
then ok; else fail "--help wider than 80 columns"; fi
# Every example in --help runs (continuation lines joined; the binary under test replaces banklab).
"$BANKLAB" sim --help | sed -n '/^Examples/,/^$/p' | sed -e ':a' -e '/\\$/N; s/\\\n  */ /; ta' |
    grep '^  banklab sim' | sed 's/^  banklab //; s/   .*$//' >"$tmp/examples"
[ "$(wc -l <"$tmp/examples")" -ge 8 ] && ok || fail "--help: examples not found"
while IFS= read -r ex; do
    eval "\"\$BANKLAB\" $ex" >/dev/null 2>"$tmp/err" && ok || fail "--help example fails: $ex ($(head -c 200 "$tmp/err"))"
done <"$tmp/examples"
expect_exit "-h" 0 -h
expect_exit "no arguments" 2
grep -q 'usage:' "$tmp/err" && ok || fail "no arguments: usage on stderr"
expect_exit "unknown option" 2 --frobnicate
expect_exit "syntax error" 2 '__shared__ float s[32]; s[lane +* 2]'
grep -q '\^' "$tmp/err" && grep -q 's\[lane +\* 2\]' "$tmp/err" && ok || fail "syntax error: pattern line and caret"
expect_exit "out of bounds" 2 '__shared__ float s[32]; s[lane * 2]'
grep -q 'lane 16' "$tmp/err" && grep -q '\^' "$tmp/err" && ok || fail "out of bounds names the lane, with a caret"
expect_exit "missing parameter" 2 '__shared__ float s[64]; s[lane * PAD]'
grep -q 'PAD' "$tmp/err" && grep -q '\^' "$tmp/err" && ok || fail "missing parameter: name and caret"
expect_exit "error on the second line of a pattern" 2 "$(printf '__shared__ float s[64];\ns[lane * 3]')"
[ "$(sed -n 2p "$tmp/err")" = "  s[lane * 3]" ] && [ "$(sed -n 3p "$tmp/err")" = "    ^~~~~~~~" ] && ok \
    || fail "multi-line pattern: the caret goes under the right line ($(cat "$tmp/err"))"
expect_json "leading zero is decimal, not octal" 'lanes.2.offset=24 params.P=10' \
    '__shared__ float s[512]; s[lane * P / 10 + lane * 2]' --param P=010
expect_json "raw: leading zero is decimal" 'lanes.2.offset=16' \
    --offsets "$(offsets 4 | sed 's/^0,4,8,/0,4,016,/')"
expect_exit "division by zero" 2 '__shared__ float s[64]; s[lane / 0]'
expect_exit "31 offsets" 2 --offsets "$(offsets 4 | cut -d, -f1-31)"
expect_exit "33 offsets" 2 --offsets "$(offsets 4),4"
expect_exit "bad offset" 2 --offsets "$(offsets 4 | sed 's/^0,/x,/')"
expect_exit "negative offset" 2 --offsets "$(offsets 4 | sed 's/^0,/-4,/')"
expect_exit "misaligned offset" 2 --offsets "$(offsets 4 | sed 's/^0,/2,/')"
grep -q 'lane 0' "$tmp/err" && ok || fail "misaligned: names the lane"
expect_exit "width 3" 2 --offsets "$(offsets 4)" --width 3
expect_exit "bad mask" 2 --offsets "$(offsets 4)" --mask zz
expect_exit "mask too long" 2 --offsets "$(offsets 4)" --mask 1ffffffff
expect_exit "pattern and offsets" 2 '__shared__ float s[64]; s[lane]' --offsets "$(offsets 4)"
expect_exit "--store with a pattern" 2 '__shared__ float s[64]; s[lane]' --store
expect_exit "--block with offsets" 2 --offsets "$(offsets 4)" --block 32x8
expect_exit "bad block" 2 '__shared__ float s[64]; s[lane]' --block 64x64
expect_exit "warp outside the block" 2 '__shared__ float s[64]; s[lane]' --warp 1
expect_exit "bad param" 2 '__shared__ float s[64]; s[lane]' --param PAD
expect_exit "--access past the end" 2 '__shared__ float s[64]; s[lane]' --access 2
expect_exit "two patterns" 2 '__shared__ float s[64]; s[lane]' 's[0]'
expect_exit "missing value" 2 --offsets

# ---- never crash: odd input exits 0 or 2, and --json output always parses ----
# (also under ASan+UBSan when the driver built that binary: $ASAN_BANKLAB)
never_crash() { # binary label
    for p in '' ';' ';;;;' '__shared__' 's[' '__shared__ float s[0]; s[0]' \
        '__shared__ float s[4294967296]; s[lane]' '__shared__ float s[64]; s[9223372036854775807 * 2]' \
        '__shared__ float s[64]; s["\\"]' "$(printf '__shared__ float s[64]; s[lane]\377\376')" \
        "$(python3 -c "print('(' * 5000)")" '__shared__ double d[64]; d[lane * 3 / 2]' \
        '__shared__ float4 v[64]; v[lane / 2]; v[lane] = 0; v[0]'; do
        for extra in --json --lanes; do
            "$1" sim "$p" $extra --columns 200 >"$tmp/o" 2>"$tmp/e"
            rc=$?
            if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
                fail "$2: input '$(printf %.40s "$p")' $extra: exit $rc ($(tail -c 300 "$tmp/e"))"; continue
            fi
            if [ $extra = --json ] && [ $rc -eq 0 ] && \
                ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o" 2>/dev/null; then
                fail "$2: input '$(printf %.40s "$p")': invalid JSON"; continue
            fi
            ok
        done
    done
    "$1" sim --offsets "$(offsets 16)" --width 16 --mask 0f0f0f0f --lanes >"$tmp/o" 2>"$tmp/e" && ok \
        || fail "$2: raw float4 with a mask"
}
never_crash "$BANKLAB" plain
if [ -n "${ASAN_BANKLAB:-}" ] && [ -x "$ASAN_BANKLAB" ]; then
    never_crash "$ASAN_BANKLAB" asan
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} "$ASAN_BANKLAB" sim \
        '__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]' --block 32x8 \
        --param PAD=1 --json >"$tmp/o" 2>"$tmp/e" && ok || fail "asan: padded tile"
fi

# ---- --svg (when the SVG writer is in the build) ----
"$BANKLAB" sim '__shared__ float4 v[64]; v[lane * 2]' --svg "$tmp/g.svg" >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ $rc -eq 0 ] && [ -s "$tmp/g.svg" ]; then
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$tmp/g.svg" && ok || fail "--svg: not well-formed XML"
    else ok; fi
else
    fail "--svg: exit $rc ($(head -c 200 "$tmp/e"))"
fi
expect_exit "--svg needs one access" 2 '__shared__ float s[64]; s[lane]; s[0]' --svg "$tmp/x.svg"
expect_exit "--svg unwritable" 2 '__shared__ float s[64]; s[lane]' --svg "$tmp/no/such/dir/x.svg"

finish
