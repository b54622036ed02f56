#!/bin/sh
# golden.sh: golden text renders of `banklab sim` (the bank grid, summary and lane table),
# compared byte for byte with tests/golden/NAME.txt (Unicode) and NAME.ascii.txt (--ascii).
# UPDATE=1 sh tests/sh/golden.sh rewrites the files from the current binary (review the diff
# before committing). Renders run with --no-color --columns 80 (or as the case says), so they
# do not depend on the terminal. Needs $BANKLAB. Exit 0 pass, 1 fail.
set -u
: "${BANKLAB:=build/banklab}" "${UPDATE:=0}"
[ -x "$BANKLAB" ] || { echo "golden.sh: no binary at $BANKLAB"; exit 1; }
dir=$(dirname "$0")/../golden
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nfail=0 npass=0 nupd=0

off() { # stride_bytes -> 32 offsets
    i=0 s=""
    while [ $i -lt 32 ]; do s="$s${s:+,}$((i * $1))"; i=$((i + 1)); done
    echo "$s"
}

# One case: NAME, then the arguments to `banklab sim`.
golden() {
    name=$1
    shift
    for form in utf8 ascii; do
        if [ $form = ascii ]; then file="$dir/$name.ascii.txt"; set -- "$@" --ascii
        else file="$dir/$name.txt"; fi
        NO_COLOR=1 "$BANKLAB" sim --no-color "$@" >"$tmp/out" 2>&1
        rc=$?
        echo "exit $rc" >>"$tmp/out"
        if [ "$UPDATE" = 1 ]; then
            cmp -s "$tmp/out" "$file" 2>/dev/null || { cp "$tmp/out" "$file"; nupd=$((nupd + 1)); echo "updated $file"; }
            continue
        fi
        if [ ! -f "$file" ]; then
            nfail=$((nfail + 1)); echo "FAIL $name ($form): no golden file $file (UPDATE=1 creates it)"
        elif diff -u "$file" "$tmp/out" >"$tmp/diff"; then
            npass=$((npass + 1))
        else
            nfail=$((nfail + 1)); echo "FAIL $name ($form): output differs from $file"; head -n 40 "$tmp/diff"
        fi
    done
}

golden stride1 '__shared__ float s[1024]; s[lane]' --columns 80
golden stride2 '__shared__ float s[1024]; s[lane * 2]' --columns 80
golden stride32 '__shared__ float s[1024]; s[lane * 32]' --columns 80
golden padded-column '__shared__ float tile[32][33]; tile[threadIdx.x][0]' --columns 80
golden padded-tile-param '__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]' \
    --block 32x8 --param PAD=1 --warp 3 --columns 80
golden broadcast '__shared__ float s[64]; s[0]' --columns 80
golden multicast '__shared__ float s[64]; s[lane / 4]' --columns 80
golden aos-float3 '__shared__ struct { float x, y, z; } p[256]; p[lane].x' --columns 80
golden float2-stride1 '__shared__ float2 v[64]; v[lane]' --columns 80
golden float2-stride2 '__shared__ float2 v[128]; v[lane * 2]' --columns 80
golden float4-stride1 '__shared__ float4 v[64]; v[lane]' --columns 80
golden float4-stride2 '__shared__ float4 v[64]; v[lane * 2]' --columns 80
golden float4-paired '__shared__ float4 v[64]; v[lane / 2]' --columns 80
golden two-accesses '__shared__ float s[64]; s[lane]; s[lane * 2] = 0' --columns 80
golden raw-store-half-warp --offsets "$(off 128)" --store --mask 0000ffff --columns 80
golden raw-char --offsets "$(off 1)" --width 1 --columns 80
golden wide-stride2 '__shared__ float s[1024]; s[lane * 2]' --columns 143
golden error-bounds '__shared__ float s[32]; s[lane * 2]'

if [ "$UPDATE" = 1 ]; then echo "golden.sh: $nupd file(s) updated"; exit 0; fi
echo "golden.sh: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
