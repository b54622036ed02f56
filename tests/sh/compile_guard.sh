#!/bin/sh
# compile_guard.sh: every nvcc banklab starts runs under the compiler guard
# (src/compile/spawn.c; docs/security.md), without a GPU:
#   - `kernel --model --time-limit 3` on a macro expanded 2^40 times stops at 3 s and says so
#     (it ran until killed from outside before), leaving no process and no temporary file;
#   - `kernel --model` on a file that includes /dev/zero: the compiler's address space stays
#     under the limit (VmPeak sampled every 0.1 s; 6.6 GB before) and it is named as the reason;
#   - `banklab kernel` killed with SIGKILL while nvcc runs, with a measuring server to be (the
#     default) and without: 3 s later no process of it and nothing in TMPDIR (the measuring
#     process and its compilers ran on past any limit before);
#   - a Latin-1 name (caf\xe9.cu) is compiled by its bytes, not a file literally named by its
#     escaped copy beside it; its lines are predicted as those of an ASCII copy;
#   - a full TMPDIR (root: a 512 kB tmpfs) is said as such, with its path, not as "the file
#     does not compile".
# Processes are found by a variable only their environment holds. Env: BANKLAB.
set -u
. tests/sh/lib.sh compile_guard.sh
B=$BANKLAB
sandbox
export CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run" TMPDIR="$tmp/t"
mkdir -p "$tmp/run" "$tmp/t" && chmod 700 "$tmp/run"
TAG="BL_GUARD_TAG=compile-guard-$$"
suite_cleanup() { [ -n "${mnt:-}" ] && umount "$mnt" 2>/dev/null; for p in $(tagged); do kill -9 "$p" 2>/dev/null; done; }

BANKLAB_KERNEL_SERVER=0 "$B" kernel assets/kernels/strided.cu > "$tmp/out" 2> "$tmp/err"
if grep -q "GPU=none" "$tmp/err"; then
    echo "SKIP: this banklab is built without CUDA: $(cat "$tmp/err")"
    exit 77
fi
if ! command -v nvcc > /dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "SKIP: no nvcc (the guard runs nvcc)"
    exit 77
fi
rm -rf "$tmp/t"/* "$tmp/cache"

. tests/sh/tui_fixtures/guard.sh
# nothing NAME WAIT: no tagged process and nothing in TMPDIR WAIT s from now (cleared if so)
nothing() {
    sleep "$2"
    pids=$(tagged)
    if [ -n "$pids" ]; then
        fail "$1: left running: $(for p in $pids; do cat "/proc/$p/comm" 2>/dev/null; done | tr '\n' ' ')"
        for p in $pids; do kill -9 "$p" 2>/dev/null; done
    else ok "$1: no process left $2 s later"; fi
    if [ -n "$(ls -A "$tmp/t")" ]; then
        fail "$1: left in TMPDIR: $(ls -A "$tmp/t" | head -n 5 | tr '\n' ' ')"
        rm -rf "$tmp/t"/*
    else ok "$1: no temporary file left"; fi
}

hostile_sources "$tmp"

# ---- the model's compile keeps --time-limit ----
s=$(date +%s)
env "$TAG" timeout 30 "$B" kernel "$tmp/macro.cu" --model --compiler nvcc --time-limit 3 > "$tmp/out" 2> "$tmp/err"
rc=$? took=$(($(date +%s) - s))
[ $rc != 124 ] && [ $took -le 8 ] && grep -q "compiling took longer than 3 s (--time-limit); stopped" "$tmp/out" &&
    ok "--model --time-limit 3 on a 2^40 macro: stopped after $took s, saying why" ||
    fail "--model --time-limit 3: exit $rc after $took s: $(grep -m 2 'compil' "$tmp/out") $(head -c 200 "$tmp/err")"
nothing "--model on the macro" 0

# ---- the compiler's memory: bounded, and named as the reason ----
env "$TAG" timeout 60 "$B" kernel "$tmp/zero.cu" --model --compiler nvcc --time-limit 30 > "$tmp/out" 2> "$tmp/err" &
pid=$!
top=0
while kill -0 $pid 2>/dev/null; do v=$(peak); [ "$v" -gt "$top" ] && top=$v; sleep 0.1; done
wait $pid
rc=$?
lim=$((2048 * 1024))
# (0: the limit stopped the compiler between two samples, 0.1 s apart: the reason below says so)
[ "$top" -le $lim ] && ok "--model on /dev/zero: the compiler's VmPeak $((top / 1024)) MiB (limit 2048 MiB)" ||
    fail "--model on /dev/zero: compiler VmPeak $top kB (limit $lim kB), exit $rc"
grep -q "the compiler used up its memory limit (2048 MiB" "$tmp/out" &&
    ok "--model on /dev/zero: the memory limit named as the reason" ||
    fail "--model on /dev/zero: $(grep -m 2 'compil' "$tmp/out") $(head -c 200 "$tmp/err")"
nothing "--model on /dev/zero" 0

# ---- banklab kernel killed with SIGKILL while nvcc runs: a measuring process to become a
# server (the default), one without, and a warm server (tagged: started by this suite) ----
for server in 60 0 warm; do
    if [ $server = warm ]; then
        env "$TAG" "$B" kernel assets/kernels/strided.cu --compiler nvcc > /dev/null 2>&1
        [ -n "$(tagged)" ] || fail "no warm measuring server was left to take the next request"
        env "$TAG" "$B" kernel "$tmp/macro.cu" --compiler nvcc --time-limit 60 > "$tmp/out" 2> "$tmp/err" &
    else
        env "$TAG" BANKLAB_KERNEL_SERVER=$server "$B" kernel "$tmp/macro.cu" --compiler nvcc \
            --time-limit 60 > "$tmp/out" 2> "$tmp/err" &
    fi
    pid=$!
    sleep 2
    n=$(tagged | wc -l)
    kill -KILL $pid
    wait $pid 2> /dev/null
    [ "$n" -ge 3 ] || fail "SIGKILL (server $server): only $n processes ran before the kill: $(cat "$tmp/err")"
    nothing "banklab kernel killed by SIGKILL while compiling (server $server)" 3
done

# ---- a Latin-1 file name: its bytes go to nvcc ----
mkdir -p "$tmp/names"
lat=$(printf 'caf\351.cu')
cp assets/kernels/strided.cu "$tmp/names/$lat"
cp assets/kernels/strided.cu "$tmp/names/plain.cu"
printf '#error DECOY_COMPILED\n__global__ void k(int *p) { p[0] = 1; }\n' > "$tmp/names/caf\\xe9.cu"
rm -rf "$tmp/cache"
(cd "$tmp/names" && BANKLAB_KERNEL_SERVER=0 "$B" kernel "$lat" --compiler nvcc) > "$tmp/out" 2> "$tmp/err"
rc=$?
grep -q 'caf\\xe9\.cu compiles (for sm_90)' "$tmp/err" && ! grep -q DECOY "$tmp/out" "$tmp/err" &&
    ok "a Latin-1 name: nvcc compiled the file itself (exit $rc), shown escaped" ||
    fail "a Latin-1 name: exit $rc: $(head -c 300 "$tmp/err")"
rm -rf "$tmp/cache"
(cd "$tmp/names" && "$B" kernel "$lat" --model --compiler nvcc) > "$tmp/lat" 2>&1
(cd "$tmp/names" && "$B" kernel plain.cu --model --compiler nvcc) > "$tmp/plain" 2>&1
sed 1d "$tmp/lat" > "$tmp/lat.body"
sed 1d "$tmp/plain" > "$tmp/plain.body"
cmp -s "$tmp/lat.body" "$tmp/plain.body" && grep -q "lines predicted by the model" "$tmp/lat" &&
    ! grep -q DECOY "$tmp/lat" && ok "a Latin-1 name: --model predicts its lines from nvcc's SASS as for an ASCII name" ||
    fail "a Latin-1 name, --model: $(diff "$tmp/plain.body" "$tmp/lat.body" | head -n 6)"

# ---- a full TMPDIR ----
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/full" && mount -t tmpfs -o size=512k tmpfs "$tmp/full" 2> /dev/null; then
    mnt=$tmp/full
    dd if=/dev/zero of="$mnt/fill" bs=4k count=1000 2> /dev/null
    rm -rf "$tmp/cache"
    # (a time limit of 60 s: under a full make test the two compiles of --model, each failing
    # for want of space, once took past the default 10 s, which then spoke first)
    TMPDIR=$mnt "$B" kernel assets/kernels/strided.cu --model --compiler nvcc --time-limit 60 > "$tmp/out" 2> "$tmp/err"
    grep -q "no space left in TMPDIR ($mnt)" "$tmp/out" && ! grep -q "does not compile" "$tmp/out" &&
        ok "--model, TMPDIR full: said as such, with its path" ||
        fail "--model, TMPDIR full: $(grep -m 2 'compil' "$tmp/out")"
    TMPDIR=$mnt BANKLAB_KERNEL_SERVER=0 "$B" kernel assets/kernels/strided.cu --compiler nvcc --time-limit 60 > "$tmp/out" 2> "$tmp/err"
    grep -q "no space left in TMPDIR ($mnt)" "$tmp/err" &&
        ok "kernel, TMPDIR full: said as such, with its path" || fail "kernel, TMPDIR full: $(head -c 300 "$tmp/err")"
    umount "$mnt" && mnt=
else
    echo "(not root or no tmpfs: the full TMPDIR is not tried)"
fi

finish
