#!/bin/sh
# sim_matrix.sh: banklab sim on ldmatrix, stmatrix, cp.async and swizzle(): the text
# grid shows each matrix as a pass with the lanes that give its rows, the banks each row covers
# and which rows collide; --json names the instruction; the figures are the model's (and the
# H200's, tests/data/h200-matrix.json). Env: BUILD.
B=${BANKLAB:-${BUILD:-build}/banklab}
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
check() { # NAME COMMAND...: the command must succeed
    name=$1; shift
    if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fail=$((fail + 1)); fi
}
"$B" sim --ascii '__shared__ half tile[32][64]; ldmatrix.x4(tile[lane][0])' > "$t/a.txt" 2>&1
check "exit 0" test $? = 0
check "head names ldmatrix.x4" grep -q '^ldmatrix.x4: loads 4 8x8 matrices' "$t/a.txt"
check "a pass per matrix with its lanes" grep -q '^matrix 2 of 4: lanes 8-15 give its rows 0-7, 8 wavefronts' "$t/a.txt"
check "rows and banks" grep -q '  row 1, lane  9: bytes 1152-1167, banks 0-3; collides with row 0' "$t/a.txt"
check "summary" grep -q '^wavefronts 32, passes 4, conflicts 28, ways 8' "$t/a.txt"
"$B" sim --ascii '__shared__ half t[32 * 64]; ldmatrix.x4(t[swizzle(3, 4, 3, lane * 128) / 2])' > "$t/b.txt" 2>&1
check "Swizzle<3,4,3>: 4 wavefronts" grep -q '^wavefronts 4, passes 4, conflicts 0' "$t/b.txt"
check "no row collides" sh -c "! grep -q collides '$t/b.txt'"
"$B" sim --ascii '__shared__ half t[32 * 64]; ldmatrix.x4(t[(lane / 2) * 64])' > "$t/c.txt" 2>&1
check "the same row is free" grep -q 'the same row as row 0 (free)' "$t/c.txt"
"$B" sim --json '__shared__ half t[32][64]; stmatrix.x2.trans(t[lane][0])' > "$t/d.json" 2>&1
check "json instruction" grep -q '"instruction":"stmatrix.x2.trans"' "$t/d.json"
check "json wavefronts" grep -q '"wavefronts":16,' "$t/d.json"
"$B" sim --ascii '__shared__ float s[64]; cp.async4(s[0])' > "$t/e.txt" 2>&1
check "cp.async head" grep -q '^cp.async4: the shared side, written like a store of 4 bytes a lane' "$t/e.txt"
check "cp.async same word 32 times" grep -q '^wavefronts 32, passes 1, conflicts 31' "$t/e.txt"
"$B" sim '__shared__ float4 s[64]; cp.async.cg16(s[lane])' > "$t/f.txt" 2>&1
check "cg refused (exit 2)" test $? = 2
check "cg says why" grep -q "depends on each lane's global source" "$t/f.txt"
"$B" sim --block 16 '__shared__ half t[4096]; ldmatrix.x1(t[lane * 8])' > "$t/g.txt" 2>&1
check "partial warp refused" grep -q 'all 32 lanes of the warp must execute them (lane 16)' "$t/g.txt"
echo "sim_matrix.sh: $pass passed, $fail failed"
[ $fail = 0 ]
