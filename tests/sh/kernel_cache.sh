#!/bin/sh
# kernel_cache.sh: `banklab kernel FILE.cu --model` and the kernel cache, with nvcc behind a
# shim that counts its runs. The first run runs nvcc once (the cubin, and the PTX the executor
# runs made on the way) and keeps the executed figures; a second run of the same file runs it
# not at all and prints the same bytes (for every shipped example, the golden report); an
# edit of the file, of a quoted include, of a header found through -I, or a -D flag runs it
# again; a cache entry with a byte changed or cut short is compiled again (never
# trusted) and the figures stay the same; --no-cache compiles both (twice); a cache directory
# open to others, or another user's (as root), is refused with the reason and the figures
# stay the same.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
. tests/sh/lib.sh kernel_cache.sh
sandbox
real=${BANKLAB_NVCC:-}
[ -n "$real" ] || real=$(command -v nvcc 2>/dev/null) || real=/usr/local/cuda/bin/nvcc
if [ ! -x "$real" ]; then
    echo "SKIP: no nvcc (the cache keeps what nvcc made)"
    exit 77
fi
export CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$tmp/cache" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/bin" "$tmp/k" "$tmp/inc"
cat >"$tmp/bin/nvcc" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/calls"
exec "$real" "\$@"
EOF
chmod +x "$tmp/bin/nvcc"
export BANKLAB_NVCC="$tmp/bin/nvcc"
: >"$tmp/calls"
cache="$tmp/cache/banklab/kernels"
# the seed transpose with its tile's size from a quoted include
# and a header found only through -I (which the key's scan of quoted includes cannot see)
printf '#define TILE 32\n' >"$tmp/k/tile.cuh"
printf '#define EXTRA 0\n' >"$tmp/inc/extra.cuh"
cat >"$tmp/k/t.cu" <<'EOF'
// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M
#include "tile.cuh"
#include <extra.cuh>
__global__ void transpose(float *in, float *out, int n)
{
    __shared__ float tile[TILE][TILE];

    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;

    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();

    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
EOF

calls() { wc -l <"$tmp/calls" | tr -d ' '; }
run() { # NAME [options]: the model's report of t.cu into $tmp/NAME.out, stderr $tmp/NAME.err
    n=$1; shift
    (cd "$tmp/k" && timeout 120 "$BANKLAB" kernel t.cu --model -I "$tmp/inc" "$@") \
        >"$tmp/$n.out" 2>"$tmp/$n.err"
    echo "exit $?" >>"$tmp/$n.out"
}
expect_calls() { # N WHAT
    if [ "$(calls)" -eq "$1" ]; then ok "$2: nvcc ran $1 time(s) in all"
    else fail "$2: nvcc ran $(calls) times in all, not $1; the last runs:"; tail -n 3 "$tmp/calls"; fi
}
same() { # A B WHAT: the same report, but for the line the edit added
    grep -v 'saved again' "$tmp/$1.out" >"$tmp/a.txt"
    grep -v 'saved again' "$tmp/$2.out" >"$tmp/b.txt"
    if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok "$3: the same report"
    else fail "$3: the report differs:"; diff "$tmp/a.txt" "$tmp/b.txt" | head -n 10; fi
}

run cold
grep -q "^exit 0" "$tmp/cold.out" || { fail "the first run failed:"; cat "$tmp/cold.out" "$tmp/cold.err"; }
grep -q "1048576" "$tmp/cold.out" || fail "the first run has not line 17's 1048576 wavefronts"
expect_calls 1 "first run (one nvcc for the cubin and the PTX)"
for kind in cubin ptx exec; do
    n_entries=$(ls "$cache" | grep -c "^[0-9a-f]\{16\}\.$kind\$")
    [ "$n_entries" -eq 1 ] && ok "one .$kind entry" || { fail "$n_entries .$kind entries:"; ls -l "$cache"; }
done
[ "$(stat -c %a "$cache")" = 700 ] && ok "the cache directory is 0700" || fail "cache mode $(stat -c %a "$cache")"
for f in "$cache"/*; do
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f")"
done

run warm
expect_calls 1 "second run"
same cold warm "second run"

printf '// saved again\n' >>"$tmp/k/t.cu"
run edited
expect_calls 2 "the file edited"
same cold edited "the file edited (a comment)"
run edited2
expect_calls 2 "the edited file again"

printf '// the header edited\n' >>"$tmp/k/tile.cuh"
run header
expect_calls 3 "the quoted include edited"
same cold header "the include edited (a comment)"

run flag -D UNUSED=1
expect_calls 4 "a -D flag added"
run flag2 -D UNUSED=1
expect_calls 4 "the same -D flag again"

printf '// the header edited\n' >>"$tmp/inc/extra.cuh"
run angled -D UNUSED=1
expect_calls 5 "a header found through -I edited"
same cold angled "a header found through -I edited (a comment)"
run angled2 -D UNUSED=1
expect_calls 5 "the same again"

# entries altered: one byte flipped in the middle of each, then each cut short
python3 - "$cache" <<'EOF'
import os, sys
d = sys.argv[1]
for n in os.listdir(d):
    p = os.path.join(d, n)
    b = bytearray(open(p, 'rb').read())
    b[len(b) // 2] ^= 0x20
    open(p, 'wb').write(bytes(b))
EOF
run flipped
expect_calls 6 "every entry with a byte changed"
same cold flipped "entries with a byte changed"
for f in "$cache"/*; do
    head -c "$(($(stat -c %s "$f") - 9))" "$f" >"$f.cut" && cat "$f.cut" >"$f" && rm -f "$f.cut"
done
run cut
expect_calls 7 "every entry cut short"
same cold cut "entries cut short"
run after_cut
expect_calls 7 "after the recompile, a hit again"

run nocache --no-cache
expect_calls 9 "--no-cache (the cubin and the PTX, compiled apart)"
same cold nocache "--no-cache"

chmod 777 "$cache"
run open
if grep -q "not using the kernel cache: .*open to others (mode 777" "$tmp/open.err"; then
    ok "a cache directory open to others is refused, with the reason"
else
    fail "a cache directory open to others: stderr was:"; cat "$tmp/open.err"
fi
expect_calls 11 "a refused cache directory (nothing taken from it)"
same cold open "a refused cache directory"
chmod 700 "$cache"
if [ "$(id -u)" -eq 0 ]; then
    chown 65534 "$cache"
    run theirs
    grep -q "belongs to uid 65534" "$tmp/theirs.err" && ok "another user's cache directory is refused" ||
        { fail "another user's cache directory: stderr was:"; cat "$tmp/theirs.err"; }
    same cold theirs "another user's cache directory"
    chown 0 "$cache"
fi

# a program with main(): one nvcc builds it and keeps its PTX on the way (before, two: the PTX
# apart), the cubin one more; a second run builds nothing and prints the same report (its
# program run again); an edit of the header it includes builds it again; --no-cache builds
# it too (its own cache directory, so the counts above stand)
cat >"$tmp/k/p.cu" <<'EOF'
#include <cstdio>
#include "tile.cuh"
__global__ void col(float *o)
{
    __shared__ float t[TILE * TILE];
    t[threadIdx.x * TILE] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = t[threadIdx.x];
}
int main()
{
    float *o;
    cudaMalloc(&o, 32 * sizeof(float));
    col<<<1, 32>>>(o);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
EOF
prog() { # NAME [OPTIONS]
    n=$1; shift
    (cd "$tmp/k" && XDG_CACHE_HOME="$tmp/pcache" timeout 120 "$BANKLAB" kernel p.cu --model "$@") \
        >"$tmp/$n.out" 2>"$tmp/$n.err"
    echo "exit $?" >>"$tmp/$n.out"
}
: >"$tmp/calls"
prog pcold
grep -q "^exit 0" "$tmp/pcold.out" && grep -q " 31   32.00 |" "$tmp/pcold.out" ||
    { fail "the program's first run:"; cat "$tmp/pcold.out" "$tmp/pcold.err"; }
[ "$(grep -c -- "-cudart shared" "$tmp/calls")" = 1 ] && ! grep -q -- "-ptx" "$tmp/calls" &&
    ok "a program: built by one nvcc, its PTX kept on the way (no nvcc -ptx)" ||
    { fail "a program's build: nvcc ran:"; cat "$tmp/calls"; }
expect_calls 2 "a program's first run (its cubin, its build)"
prog pwarm
expect_calls 2 "a program's second run (nothing built)"
same pcold pwarm "a program's second run"
grep -q "^done" "$tmp/pwarm.err" && ok "the program ran again (its output)" ||
    { fail "the second run did not run the program:"; cat "$tmp/pwarm.err"; }
printf '// the header edited again\n' >>"$tmp/k/tile.cuh"
prog pheader
expect_calls 4 "a program's header edited (its cubin and its build again)"
same pcold pheader "a program's header edited"
prog pnocache --no-cache
expect_calls 6 "a program under --no-cache"
same pcold pnocache "a program under --no-cache"

# every shipped example, twice: the second run (compiled and executed figures from the cache)
# prints the golden report of kernel_model.sh byte for byte (with the real nvcc: the executor
# knows the toolkit's headers by nvcc's place)
chmod 700 "$cache"
export BANKLAB_NVCC="$real"
for f in assets/kernels/*.cu; do
    name=$(basename "$f" .cu)
    for r in 1 2; do
        timeout 60 "$BANKLAB" kernel "$f" --model >"$tmp/g.out" 2>&1
        echo "exit $?" >>"$tmp/g.out"
    done
    if cmp -s "$tmp/g.out" "tests/golden/kernel_model/$name.txt"; then
        ok "$name: the second run's report is the golden one"
    else
        fail "$name: the second run differs from tests/golden/kernel_model/$name.txt:"
        diff "tests/golden/kernel_model/$name.txt" "$tmp/g.out" | head -n 10
    fi
done
# --json too: the second run's warps[] (the executed worst warps and patterns) and notes come
# from the cache entry, as the golden has them
for r in 1 2; do
    timeout 60 "$BANKLAB" kernel assets/kernels/transpose_seed.cu --model --json >"$tmp/j.out" 2>&1
    echo "exit $?" >>"$tmp/j.out"
done
if cmp -s "$tmp/j.out" tests/golden/kernel_model/transpose_seed.json.txt; then
    ok "transpose_seed --json: the second run's report (its warps too) is the golden one"
else
    fail "transpose_seed --json: the second run differs from the golden:"
    diff tests/golden/kernel_model/transpose_seed.json.txt "$tmp/j.out" | head -n 10
fi
n_exec=$(ls "$cache" | grep -c '\.exec$')
[ "$n_exec" -ge 9 ] && ok "$n_exec executions kept" || fail "$n_exec executions kept"
finish
