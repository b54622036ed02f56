# lib.sh: what the GPU scripts share. `. tests/gpu/lib.sh` (or "$dir/lib.sh"): the tagged
# processes below, and a GPU server of the test's own for the both-paths runs (serve_start).
# The scripts end only the processes they started: every process started under a tag carries
# BANKLAB_TEST_TAG=TAG in its environment (children inherit it, whatever their process group
# or session), and tagged/kill_tagged find them by it, never by a command name.
#   tagged TAG           the pids of live processes carrying TAG (not this shell)
#   kill_tagged SIG TAG  sends SIG to each; returns 0 when none was left to signal
tagged() {
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        [ "$p" = "$$" ] && continue
        { tr "\0" "\n" < "$d/environ"; } 2>/dev/null | grep -qx "BANKLAB_TEST_TAG=$1" && echo "$p"
    done
}
kill_tagged() {
    pids=$(tagged "$2")
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill "-$1" $pids 2>/dev/null
    return 1
}
# lockhold_build OUT ROOT: tests/gpu/lockhold.c and the lock's sources of ROOT into OUT (a
# program that holds the device's turn; lock.sh). gpu_nodevice.sh builds it too, so that a
# machine without a GPU finds a source missing from this list.
lockhold_build() {
    ${CC:-cc} -O2 -o "$1" "$2/tests/gpu/lockhold.c" "$2/src/devlock/lock.c" "$2/src/base/fmt.c" \
        "$2/src/base/err.c" "$2/src/base/msg.c" "$2/src/sys/env.c" "$2/src/sys/sig.c"
}
# serve_start DIR: a GPU server of this test (`banklab serve`, $B) on DIR/gpu.sock, its pid in
# DIR/gpu.pid and its log in DIR/serve.log, tagged DIR's name; returns 0 once it listens (60 s
# at most: a CUDA context and the counters set up). serve_stop DIR: ends that server, by its pid.
# The clients reach it with --server DIR/gpu.sock: the learners' client, wire and server, on a
# socket no other test or learner shares.
serve_start() {
    BANKLAB_TEST_TAG="serve-$(basename "$1")" "$B" serve --socket "$1/gpu.sock" --idle 600 \
        > "$1/serve.log" 2>&1 &
    echo $! > "$1/gpu.pid"
    i=0
    while [ ! -S "$1/gpu.sock" ] && [ $i -lt 600 ] && kill -0 "$(cat "$1/gpu.pid")" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -S "$1/gpu.sock" ]
}
serve_stop() {
    [ -f "$1/gpu.pid" ] || return 0
    kill "$(cat "$1/gpu.pid")" 2>/dev/null
    wait "$(cat "$1/gpu.pid")" 2>/dev/null
    rm -f "$1/gpu.pid"
}
# both_agree FILE: FILE (the output of verify --both or bench --both) says the server and this
# process agreed on every measurement both made and no measurement was left to one of them
both_agree() {
    grep -q '^through the server vs in this process: [0-9]* of [0-9]* [a-z]* agree, 0 differ, 0 measured by one path only' "$1"
}
