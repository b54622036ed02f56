#!/bin/sh
# devprogs_build.sh: the developer-style CUDA programs of tests/gpu/devprogs stay listed and
# buildable. MANIFEST.txt (FILE|kernels|idioms) must name every .cu of the folder once, only
# files that exist, and exactly the __global__ kernels each file defines (short names); then
# every program is compiled with `nvcc -O3 -lineinfo -arch=sm_90`, two at a time. SKIP (77)
# without nvcc, after the MANIFEST checks. With DEVPROGS_RUN=1 and a GPU, each program also
# runs and must print only "...: ok" lines and exit 0.
# Env: DEVPROGS_DIR (default tests/gpu/devprogs), DEVPROGS_RUN, DEVPROGS_BUILD (1: compile them
# here too; make test leaves it to devprogs_model.sh, which builds and runs each).
set -u
dir=${DEVPROGS_DIR:-tests/gpu/devprogs}
man="$dir/MANIFEST.txt"
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
nfail=0 npass=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
words() { printf '%s' "$1" | tr '\n' ' '; }
ok() { npass=$((npass + 1)); }
[ -f "$man" ] || { echo "FAIL: no $man"; exit 1; }

# kernels FILE: the names of the __global__ functions FILE defines, one a line, sorted
kernels() {
    awk '
    { sub(/\/\/.*/, "") }
    /__global__/ { buf = substr($0, index($0, "__global__")); grab = 1; next_ok = 1 }
    grab && !next_ok { buf = buf " " $0 }
    { next_ok = 0 }
    grab && index(buf, "(") {
        gsub(/__launch_bounds__[ \t]*\([^)]*\)/, "", buf)
        s = substr(buf, 1, index(buf, "(") - 1)
        sub(/[ \t]+$/, "", s)
        n = split(s, w, /[^A-Za-z0-9_]+/)
        print w[n]
        grab = 0
    }' "$1" | sort -u
}

grep -v '^#' "$man" | grep -v '^[[:space:]]*$' > "$t/lines"
cut -d'|' -f1 "$t/lines" | sort > "$t/listed"
dups=$(uniq -d "$t/listed")
[ -z "$dups" ] || fail "MANIFEST lists more than once: $dups"
for f in "$dir"/*.cu; do
    [ -f "$f" ] || continue
    basename "$f"
done | sort > "$t/present"
missing=$(comm -23 "$t/present" "$t/listed")
stale=$(comm -13 "$t/present" "$t/listed" | sort -u)
[ -z "$missing" ] || fail "not in MANIFEST: $(words "$missing")"
[ -z "$stale" ] || fail "MANIFEST names files that do not exist: $(words "$stale")"
nprog=$(wc -l < "$t/present")
[ "$nprog" -ge 12 ] || fail "only $nprog programs in $dir (at least 12)"

nk=0
while IFS='|' read -r file klist idioms; do
    [ -f "$dir/$file" ] || continue
    [ -n "$idioms" ] || fail "$file: no idioms in MANIFEST"
    echo "$klist" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$' | sort -u > "$t/want"
    kernels "$dir/$file" > "$t/have"
    [ -s "$t/have" ] || fail "$file: no __global__ kernel found"
    d1=$(comm -23 "$t/have" "$t/want")
    d2=$(comm -13 "$t/have" "$t/want")
    [ -z "$d1" ] || fail "$file: kernels missing from MANIFEST: $(words "$d1")"
    [ -z "$d2" ] || fail "$file: MANIFEST names kernels the file does not define: $(words "$d2")"
    grep -q 'int main *(' "$dir/$file" || fail "$file: no main()"
    [ -z "$d1$d2" ] && ok
    nk=$((nk + $(wc -l < "$t/have")))
done < "$t/lines"
echo "MANIFEST: $nprog programs, $nk kernels"
[ "$nfail" -eq 0 ] || { echo "devprogs_build: $npass passed, $nfail failed"; exit 1; }

if [ "${DEVPROGS_RUN:-0}" != 1 ] && [ "${DEVPROGS_BUILD:-0}" != 1 ]; then
    # make test builds and runs every program in tests/sh/devprogs_model.sh (a program that
    # does not build is a kernel not executed there, which fails it): not compiled twice
    echo "devprogs_build: $npass passed, 0 failed (MANIFEST; the programs are built by devprogs_model.sh; DEVPROGS_BUILD=1 builds them here)"
    exit 0
fi
NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
if [ -z "$NVCC" ]; then
    echo "SKIP: no nvcc (MANIFEST checked: $nprog programs, $nk kernels)"
    exit 77
fi
export NVCC T="$t"
# shellcheck disable=SC2016
sed "s|^|$dir/|" "$t/present" | xargs -P2 -n1 sh -c '
    b=$(basename "$1" .cu)
    if timeout 300 "$NVCC" -O3 -lineinfo -arch=sm_90 -o "$T/$b" "$1" > "$T/$b.log" 2>&1; then :
    else touch "$T/$b.failed"; fi' sh
while read -r f; do
    b=${f%.cu}
    if [ -e "$t/$b.failed" ] || [ ! -x "$t/$b" ]; then
        fail "$f does not compile:"
        tail -n 20 "$t/$b.log" | sed 's/^/      /'
    else
        ok
        grep -q warning "$t/$b.log" && { echo "note: $f compiles with warnings:"; sed 's/^/      /' "$t/$b.log"; }
    fi
done < "$t/present"

if [ "${DEVPROGS_RUN:-0}" = 1 ] && nvidia-smi -L > /dev/null 2>&1; then
    while read -r f; do
        b=${f%.cu}
        [ -x "$t/$b" ] || continue
        timeout 60 "$t/$b" > "$t/$b.out" 2>&1
        rc=$?
        if [ $rc -ne 0 ] || grep -qv ': ok$' "$t/$b.out" || [ ! -s "$t/$b.out" ]; then
            fail "$f: exit $rc"
            sed 's/^/      /' "$t/$b.out"
        else
            ok
            echo "ran  $f: $(wc -l < "$t/$b.out") checks ok"
        fi
    done < "$t/present"
fi
echo "devprogs_build: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
