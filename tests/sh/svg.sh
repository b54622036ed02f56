#!/bin/sh
# svg.sh: `banklab sim --svg FILE` end to end: each picture is well-formed XML (xmllint), has
# 32 bank columns, one lane text per active lane, one row per wavefront and the summary the
# model prints in --json; rendered to PNG with rsvg-convert it has the SVG's dimensions and is
# not blank. Needs $BANKLAB, xmllint (libxml2-utils), rsvg-convert (librsvg2-bin), python3.
# Exit 0 pass, 1 fail, 77 skip (a tool is missing).
set -u
for t in xmllint rsvg-convert python3; do
    command -v $t >/dev/null || { echo "svg.sh: SKIP: $t is not installed (make deps)"; exit 77; }
done
. tests/sh/lib.sh svg.sh

# PNG facts: "W H nonwhite distinct" from a PNG file (8-bit RGB/RGBA/grey, non-interlaced).
# With a second argument only the size is read (no pixel decoding).
PNGINFO='
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
    if kind == b"IDAT": idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, inter = ihdr
if len(sys.argv) > 2:
    print(w, h); sys.exit(0)
assert depth == 8 and inter == 0, "unexpected PNG layout"
bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
nonwhite, colours = 0, set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + min(bpp, 3)])
        colours.add(px)
        if min(px) < 200: nonwhite += 1
    prev = line
print(w, h, nonwhite, len(colours))
'

# check NAME LANES "sim args..." : render, validate, count, compare with --json
check() {
    name=$1 lanes=$2
    shift 2
    svg="$tmp/$name.svg" png="$tmp/$name.png"
    if ! "$BANKLAB" sim "$@" --svg "$svg" >"$tmp/out" 2>"$tmp/err"; then
        fail "$name: sim exit $? ($(head -c 300 "$tmp/err"))"; return
    fi
    [ -s "$svg" ] || { fail "$name: no SVG written"; return; }
    ls "$tmp" | grep -q "\.tmp-" && fail "$name: temp file left behind"
    if ! xmllint --noout "$svg" 2>"$tmp/xml"; then
        fail "$name: not well-formed: $(head -c 300 "$tmp/xml")"; return
    fi
    ok
    n=$(grep -o 'class="bank"' "$svg" | wc -l)
    [ "$n" -eq 32 ] && ok || fail "$name: $n bank columns, want 32"
    n=$(grep -o 'class="lane"' "$svg" | wc -l)
    [ "$n" -eq "$lanes" ] && ok || fail "$name: $n lane texts, want $lanes"
    # the summary must be the model's numbers
    "$BANKLAB" sim "$@" --json >"$tmp/j" 2>/dev/null || { fail "$name: --json failed"; return; }
    want="wavefronts $(json_get "$tmp/j" wavefronts), passes $(json_get "$tmp/j" passes), conflicts $(json_get "$tmp/j" conflicts), ways $(json_get "$tmp/j" ways)"
    grep -q "id=\"summary\"[^>]*>$want</text>" "$svg" && ok || fail "$name: summary is not '$want'"
    wf=$(json_get "$tmp/j" wavefronts)
    rows=$(grep -o '>wavefront [0-9]*<' "$svg" | wc -l)
    [ "$rows" -eq "$wf" ] && ok || fail "$name: $rows wavefront rows, want $wf"
    # render and look at the pixels
    if ! rsvg-convert -o "$png" "$svg" 2>"$tmp/rsvg"; then
        fail "$name: rsvg-convert: $(head -c 300 "$tmp/rsvg")"; return
    fi
    rsvg-convert -z 0.25 -o "$tmp/small.png" "$svg" 2>/dev/null || { fail "$name: small render"; return; }
    set -- $(python3 -c "$PNGINFO" "$png" size) $(python3 -c "$PNGINFO" "$tmp/small.png" | cut -d' ' -f3-)
    sw=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1/p' "$svg")
    sh_=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\2/p' "$svg")
    [ "${1:-0}" = "$sw" ] && [ "${2:-0}" = "$sh_" ] && ok || fail "$name: PNG is ${1:-?}x${2:-?}, SVG says ${sw}x${sh_}"
    # not blank (checked at quarter size): plenty of ink and more than two colours
    [ "${3:-0}" -gt 300 ] && [ "${4:-0}" -gt 2 ] && ok || fail "$name: PNG looks blank (${3:-0} dark pixels, ${4:-0} colours)"
    cp "$png" "${SVG_KEEP:-$tmp}/" 2>/dev/null || true
}

check column 32 '__shared__ float t[32][32]; t[lane][0]'
check padded 32 '__shared__ float t[32][33]; t[lane][0]'
check broadcast 32 '__shared__ float s[32]; s[0]'
check float4 32 '__shared__ float4 v[64]; v[lane]'
check half 16 '__shared__ float s[1024]; if (lane < 16) s[lane * 32]'
check offsets 32 --offsets 0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248 --width 8 --store

# a title with markup must be escaped, the document still well-formed
"$BANKLAB" sim '__shared__ float s[64]; s[(lane < 16) && (lane > 2) ? lane : 0]' --svg "$tmp/esc.svg" >/dev/null 2>&1
if [ -s "$tmp/esc.svg" ]; then
    xmllint --noout "$tmp/esc.svg" 2>/dev/null && ok || fail "escaping: not well-formed"
    grep -q '&lt;' "$tmp/esc.svg" && grep -q '&amp;&amp;' "$tmp/esc.svg" && ok || fail "escaping: < or && not escaped"
else
    fail "escaping: no SVG written"
fi

# an unwritable place: exit 2, a message, no file
"$BANKLAB" sim '__shared__ float s[32]; s[lane]' --svg /nonexistent-banklab-dir/x.svg >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "nonexistent-banklab-dir" "$tmp/err" && ok || fail "unwritable path: exit $rc, stderr: $(head -c 200 "$tmp/err")"

# the SVG writer under ASan+UBSan when the test driver provides that binary
if [ -n "${ASAN_BANKLAB:-}" ] && [ -x "$ASAN_BANKLAB" ]; then
    for pat in '__shared__ float4 v[64]; v[lane]' '__shared__ float s[32]; s[0]' \
               '__shared__ double d[64][33]; d[lane][0] = 1.0' '__shared__ float s[128]; if (lane < 3) s[lane * 32]'; do
        "$ASAN_BANKLAB" sim "$pat" --svg "$tmp/asan.svg" >/dev/null 2>"$tmp/err"; rc=$?
        [ $rc -eq 0 ] && xmllint --noout "$tmp/asan.svg" 2>/dev/null && ok || { fail "asan sim --svg '$pat': exit $rc"; tail -n 20 "$tmp/err"; }
    done
fi

finish
