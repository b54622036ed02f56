#!/bin/sh
# run.sh: light
# (it waits, on time limits and on processes' ends: 35 s, 6 s of it CPU; beside two busy
# loops, one per core, it passed in 38-39 s; its one timed check, 51,000 notes in under 5 s,
# takes 0.15 s)
# child_attack.sh: what banklab takes from the processes it starts, and what it
# leaves behind them, without a GPU.
#   - `banklab kernel --time-limit 3` on a .cu that includes /dev/zero, or expands a macro
#     2^40 times, under nvcc: no process of it (nvcc, cicc, gcc, cc1plus: found by a variable
#     only their environment holds) is left 2 s after it returns, nor a temporary directory;
#     the same with a measuring server, and when banklab kernel itself gets TERM.
#   - a warm measuring server that drops the connection: banklab kernel measures in a new
#     process (the exit status of a run without one) instead of dying of SIGPIPE (141); the
#     kernel view (in tmux) shows the file's result instead of quitting.
#   - `banklab run` killed by TERM or HUP removes its directory.
#   - a hostile program under `banklab run` (tests/sh/child_fake.c): escapes in the device,
#     the lock note, a SASS mnemonic without a NUL and a note reach the terminal escaped;
#     launches with NaN or 1e18 are refused with the reason, never printed; 51,000 notes
#     (50,000 different) are said once each in under 5 s (the pairwise check took 83 s for
#     101,000 on the dev VM).
#   - `kernel --model` and `--fix` on a file whose name holds escapes, and a GPU server's device
#     and lock text in `sim --gpu` (tests/sh/child_fake_server.c): escaped.
#   - a state directory of another user: banklab lab refuses to save there, saying whose it is.
# Env: BANKLAB.
set -u
. tests/sh/lib.sh child_attack.sh
B=$BANKLAB
sandbox
export CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"
export BANKLAB_KERNEL_SERVER=0 TMPDIR="$tmp/t"
mkdir -p "$tmp/run" "$tmp/t" && chmod 700 "$tmp/run"
ESC=$(printf '\033') BEL=$(printf '\007')
TAG="BL_CHILD_TAG=child-attack-$$"
raw() { cat "$@" | grep -q "$ESC\|$BEL"; } # raw control bytes in the files?

# left: the pids of processes whose environment holds $TAG
left() {
    for f in /proc/[0-9]*/environ; do
        { tr '\0' '\n' < "$f"; } 2>/dev/null | grep -qx "$TAG" && { p=${f#/proc/}; echo "${p%/environ}"; }
    done
}
# after NAME: nothing of banklab's left 2 s after it returned (killed here if so)
after() {
    sleep 2
    pids=$(left | tr '\n' ' ')
    if [ -n "$pids" ]; then
        fail "$1: left running: $(for p in $pids; do ps -o comm= -p "$p"; done | tr '\n' ' ')"
        for p in $pids; do kill -9 "$p" 2>/dev/null; done
    else ok "$1: no process left"; fi
    if [ -n "$(ls -A "$tmp/t")" ]; then
        fail "$1: left in TMPDIR: $(ls -A "$tmp/t" | head -n 5 | tr '\n' ' ')"
        rm -rf "$tmp/t"/*
    else ok "$1: no temporary file or directory left"; fi
}

"$B" kernel assets/kernels/strided.cu > "$tmp/out" 2> "$tmp/err"
if grep -q "GPU=none" "$tmp/err"; then
    echo "SKIP: this banklab is built without CUDA: $(cat "$tmp/err")"
    exit 77
fi
rm -rf "$tmp/t"/*

# ---- the time limit kills the compiler too (nvcc: cicc, gcc, cc1plus) ----
printf '#include "/dev/zero"\n__global__ void k(int *p) { p[0] = 1; }\n' > "$tmp/zero.cu"
{ echo '#define X0 x'; i=1; while [ $i -le 40 ]; do echo "#define X$i X$((i-1)) X$((i-1))"; i=$((i+1)); done
  echo 'int big[] = { X40 };'; echo '__global__ void k(int *p) { p[0] = 1; }'; } > "$tmp/macro.cu"
if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    for f in zero macro; do
        for server in 0 5; do
            s=$(date +%s)
            env "$TAG" BANKLAB_KERNEL_SERVER=$server "$B" kernel "$tmp/$f.cu" --compiler nvcc \
                --time-limit 3 > "$tmp/out" 2> "$tmp/err"
            rc=$?
            took=$(($(date +%s) - s))
            # /dev/zero may fill the compiler's memory limit before the 3 s: stopped either way
            grep -q -e "longer than 3 s (--time-limit)" -e "used up its memory limit" "$tmp/err" &&
                [ $took -le 8 ] &&
                ok "$f.cu (server $server): stopped at the time or memory limit ($took s, exit $rc)" ||
                fail "$f.cu (server $server): exit $rc after $took s: $(head -c 300 "$tmp/err")"
            # a compile the memory limit stopped leaves a healthy warm server, which waits its
            # idle time (BANKLAB_KERNEL_SERVER seconds) for the next request and then leaves
            grep -q "used up its memory limit" "$tmp/err" && sleep "$server"
            after "$f.cu, --time-limit 3 (server $server)"
        done
    done
    # banklab kernel ended by TERM while nvcc runs
    env "$TAG" "$B" kernel "$tmp/macro.cu" --compiler nvcc --time-limit 60 > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    sleep 2
    kill -TERM $pid
    wait $pid
    rc=$?
    [ $rc = 143 ] && ok "banklab kernel ends of TERM (exit 143)" || fail "TERM: exit $rc"
    after "banklab kernel killed by TERM while compiling"
else
    echo "(no nvcc here: the time-limit part is not run)"
fi

# ---- a warm server that drops the connection: no SIGPIPE ----
BANKLAB_KERNEL_SERVER=1 "$B" kernel assets/kernels/strided.cu > /dev/null 2>&1
sock=$(ls "$tmp"/run/banklab/kernel-*.sock 2>/dev/null | head -n 1)
if [ -S "$sock" ]; then
    n=0; while [ -S "$sock" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done # it leaves when idle
    python3 - "$sock" <<'EOF' &
import os, socket, sys, time
path = sys.argv[1]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
s.settimeout(30)
try:
    while True:
        c, _ = s.accept()
        c.close()   # the connection dropped before the request is read
except socket.timeout:
    pass
EOF
    fake=$!
    n=0; while [ ! -S "$sock" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
    # a source larger than the socket's buffer: the write meets the closed connection
    { cat assets/kernels/strided.cu; i=0; while [ $i -lt 30000 ]; do
        echo "// padding padding padding padding padding padding padding padding padding padding"
        i=$((i+1)); done; } > "$tmp/big.cu"
    BANKLAB_KERNEL_SERVER=5 "$B" kernel "$tmp/big.cu" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc = 3 ] && grep -q "compiles" "$tmp/err" &&
        ok "a server that drops the connection: measured in a new process (exit 3, no SIGPIPE)" ||
        fail "a server that drops the connection: exit $rc: $(head -c 300 "$tmp/err")"
    # the kernel view (banklab FILE.cu) the same: it shows the file's result and stays
    if command -v tmux > /dev/null 2>&1; then
        { cat assets/kernels/strided.cu; i=0; while [ $i -lt 300 ]; do
            printf '// %01000d\n' 0; i=$((i+1)); done; } > "$tmp/view.cu"
        ts="child-attack-$$"
        tmux -L "$ts" new-session -d -x 120 -y 30 "cd '$PWD' && CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR='$tmp/run' XDG_CACHE_HOME='$tmp/cache' BANKLAB_KERNEL_SERVER=5 '$B' '$tmp/view.cu'; echo EXITED rc=\$?; sleep 30"
        seen=
        for i in $(seq 1 40); do
            tmux -L "$ts" capture-pane -p > "$tmp/pane" 2> /dev/null
            grep -q "EXITED\|compiles (for sm_90)" "$tmp/pane" && { seen=1; break; }
            sleep 0.25
        done
        sleep 0.5
        tmux -L "$ts" capture-pane -p > "$tmp/pane" 2> /dev/null
        tmux -L "$ts" kill-server 2> /dev/null
        [ -n "$seen" ] && ! grep -q "EXITED" "$tmp/pane" && grep -q "compiles (for sm_90)" "$tmp/pane" &&
            ok "the kernel view with a server that drops the connection: measured, still open" ||
            fail "the kernel view: $(grep -m 3 "EXITED\|compiles\|error" "$tmp/pane")"
    fi
    kill $fake 2>/dev/null
else
    fail "no measuring server socket in $tmp/run/banklab"
fi

# ---- banklab run: killed, its directory goes too ----
lib=$(dirname "$B")/libbanklab_inject.so
if [ -f "$lib" ]; then
    for sig in TERM HUP; do
        BANKLAB_RUN_NO_GPU_CHECK=1 BANKLAB_INJECT="$lib" "$B" run -- sleep 30 > "$tmp/out" 2> "$tmp/err" &
        pid=$!
        n=0; while [ -z "$(ls -A "$tmp/t")" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
        [ -n "$(ls -A "$tmp/t")" ] || fail "run: no directory made in TMPDIR"
        kill -$sig $pid
        wait $pid
        rc=$?
        if [ -z "$(ls -A "$tmp/t")" ]; then ok "banklab run killed by $sig (exit $rc): its directory removed"; else
            fail "banklab run killed by $sig (exit $rc): left $(ls -A "$tmp/t")"; rm -rf "$tmp/t"/*; fi
    done
    # ---- a hostile program's results ----
    if cc -std=c11 -D_DEFAULT_SOURCE -I. -o "$tmp/fake" tests/sh/child_fake.c \
        "$(dirname "$B")/lib/kernel.a" "$(dirname "$B")/lib/base.a" -ldl -lm 2> "$tmp/cc.err"; then
        s=$(date +%s%N)
        BANKLAB_RUN_NO_GPU_CHECK=1 BANKLAB_INJECT="$lib" timeout 30 "$B" run -- "$tmp/fake" 1000 50000 \
            > "$tmp/out" 2> "$tmp/err"
        rc=$?
        ms=$((($(date +%s%N) - s) / 1000000))
        raw "$tmp/out" "$tmp/err" && fail "run: raw escapes reached the terminal: $(grep -c "$ESC" "$tmp/out" "$tmp/err" | tr '\n' ' ')" ||
            ok "run: the device, lock note, SASS mnemonic and note are escaped"
        grep -q "on Evil GPU \\\\x1b\]0;PWNED\\\\x07" "$tmp/out" && ok "run: the device shown escaped" ||
            fail "run: no escaped device: $(grep '^==' "$tmp/out" | head -n 2)"
        grep -q '\\x1b\[31mLDS\.EVIL\.EVIL\.EVIL ' "$tmp/out" && ! grep -q 'LDS\.EVIL\.EVIL\.EVIL\.' "$tmp/out" &&
            ok "run: the 24-byte mnemonic cut at 23, escaped" || fail "run: the mnemonic: $(grep 'pc 0x0100' "$tmp/out")"
        grep -q "a result from process [0-9]* is refused: .*insts\[0\]\.wavefronts = nan" "$tmp/err" &&
            grep -q "a result from process [0-9]* is refused: .*insts\[0\]\.inst = 1e+18" "$tmp/err" &&
            ok "run: the NaN and 1e18 launches refused, with the reason" ||
            fail "run: no refusal: $(grep -v repeat "$tmp/err" | head -n 5)"
        grep -q "^== k2\|^== k3\|nan\|1e+18 " "$tmp/out" && fail "run: a refused launch was printed" ||
            ok "run: nothing of the refused launches printed"
        [ "$(grep -c "not measured: repeat" "$tmp/err")" = 3 ] && [ $ms -lt 5000 ] &&
            ok "run: 51,000 notes (1000 repeats of 3, 50,000 different) said once each in $ms ms" ||
            fail "run: notes: $(grep -c "not measured: repeat" "$tmp/err") lines, $ms ms, exit $rc"
    else
        fail "cannot build tests/sh/child_fake.c: $(head -n 3 "$tmp/cc.err")"
    fi
else
    echo "(no $lib: the banklab run part is not run)"
fi

# ---- a GPU server's strings in sim --gpu (tests/sh/child_fake_server.c) ----
L=$(dirname "$B")/lib
if cc -std=c11 -D_DEFAULT_SOURCE -I. -o "$tmp/fsrv" tests/sh/child_fake_server.c "$L/serve.a" "$L/gpu.a" \
    "$L/model.a" "$L/base.a" -ldl -lm -lpthread 2> "$tmp/cc.err"; then
    "$tmp/fsrv" "$tmp/fake.sock" 10 &
    fsrv=$!
    n=0; while [ ! -S "$tmp/fake.sock" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
    "$B" sim '__shared__ float s[1024]; s[lane]' --gpu --server "$tmp/fake.sock" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    kill $fsrv 2>/dev/null
    raw "$tmp/out" "$tmp/err" && fail "sim --gpu: the server's strings reached the terminal raw" ||
        { grep -q 'turns through \\x1b\]0;PWNED\\x07' "$tmp/out" && ok "sim --gpu: the server's lock text and device escaped" ||
          fail "sim --gpu: exit $rc: $(tail -n 3 "$tmp/out") $(head -c 200 "$tmp/err")"; }
else
    fail "cannot build tests/sh/child_fake_server.c: $(head -n 3 "$tmp/cc.err")"
fi

# ---- file names with escapes: kernel --model, --fix ----
evil="$tmp/$(printf 'k\033]0;PWN\007')"
cp assets/kernels/transpose_seed.cu "$evil.cu"
"$B" kernel "$evil.cu" --model > "$tmp/out" 2> "$tmp/err"
rc=$?
raw "$tmp/out" "$tmp/err" && fail "--model: the file name reached the terminal raw" ||
    { [ $rc = 0 ] && ok "--model: the file name escaped (exit 0)" || fail "--model: exit $rc: $(head -c 200 "$tmp/err")"; }
timeout 120 "$B" kernel "$evil.cu" --fix > "$tmp/out" 2> "$tmp/err"
raw "$tmp/out" "$tmp/err" && fail "--fix: the file name reached the terminal raw" ||
    { grep -q 'k\\x1b\]0;PWN\\x07.cu:17: note' "$tmp/out" && ok "--fix: the file names escaped" ||
      fail "--fix: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"; }
printf '__global__ void k(float *p) { __shared__ float s[32][32]; s[threadIdx.x][0] = 1; \n' > "$evil-broken.cu"
"$B" kernel "$evil-broken.cu" --model > "$tmp/out" 2> "$tmp/err"
raw "$tmp/out" "$tmp/err" && fail "--model refused: the file name raw" || ok "--model refused: the file name escaped"

# ---- a state directory of another user ----
if [ "$(id -u)" = 0 ]; then
    other=65534
    mkdir -p "$tmp/foreign/banklab" && chown -R $other "$tmp/foreign" && chmod 755 "$tmp/foreign/banklab"
    XDG_STATE_HOME="$tmp/foreign" "$B" lab tests/labs/lab-basic.json --no-gpu --answers PAD=1,STRIDE=1 \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "belongs to uid $other, not to this user" "$tmp/err" &&
        [ ! -e "$tmp/foreign/banklab/progress.json" ] && [ ! -e "$tmp/foreign/banklab/progress.lock" ] &&
        ok "lab: another user's state directory refused, saying whose (exit 2)" ||
        fail "lab: another user's state directory: exit $rc: $(cat "$tmp/err") $(ls "$tmp/foreign/banklab")"
    mkdir -p "$tmp/open/banklab" && chmod 777 "$tmp/open/banklab"
    XDG_STATE_HOME="$tmp/open" "$B" lab tests/labs/lab-basic.json --no-gpu --answers PAD=1,STRIDE=1 \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "can be written by other users (mode 777" "$tmp/err" &&
        ok "lab: a state directory open to others refused (exit 2)" ||
        fail "lab: a state directory open to others: exit $rc: $(cat "$tmp/err")"
    XDG_STATE_HOME="$tmp/mine" "$B" lab tests/labs/lab-basic.json --no-gpu --answers PAD=1,STRIDE=1 \
        > "$tmp/out" 2> "$tmp/err" && [ -f "$tmp/mine/banklab/progress.json" ] &&
        ok "lab: its own state directory still used" || fail "lab: own state directory: $(cat "$tmp/err")"
else
    echo "(not root: the other user's state directory is not tried)"
fi

finish
