#!/bin/sh
# classroom.sh: a class on one GPU server. One `banklab serve` measures the device;
# every learner is one process, `banklab sim --gpu --json --script` (the request the tutorial
# sends: timing on all SMs and counters on one warp, through gpu.h as the tutorial does), of
# one of two Unix users made here (banklab-class1/2, useradd, when root), talking to the
# server over its socket (the default one of the device, in a fresh lock directory). Learners
# do not pause between measurements (a class at its busiest). Parts (CLASS_PARTS, in order):
#   alone    every access once, one learner alone (the reference for clk/request)
#   nocache  CLASS_N_NOCACHE (32) learners, the server's cache off (--cache 0)
#   cache    CLASS_N_CACHE (64) learners, the cache on (--cache 60)
#   ncu      CLASS_N_NCU (16) learners while Nsight Compute profiles another program (banklab
#            bench --quick --no-server with a lock directory of its own: a profiler banklab
#            does not know about) throughout; then one learner after ncu ended
#   kill     CLASS_N_KILL (16) learners; the server is killed with SIGKILL after 3 s (the
#            learners' clients start the next one themselves)
#   kernel   CLASS_N_KERNEL (16) learners; `banklab kernel` on a seed kernel after 3 s, its
#            per-line figures against the same run alone
#   run      CLASS_N_RUN (64) learners while `banklab run -- PROG` (CLASS_RUN_PROG, default
#            tests/gpu/route/eight.cu built here: ten kernels) measures a program in a loop
#            beside them; each run's time against its time alone
#   none     a client without a CUDA driver (CLASS_NONE_BANKLAB: a GPU=none build; else, as
#            root, this binary with libcuda hidden in a mount namespace) with BANKLAB_SERVER
# The device memory of the class is sampled (nvidia-smi --query-compute-apps) in every part.
# Prints one summary table and the goals (docs/gpu.md, "A class on one server"); exit 1 when
# a goal is not met. Logs and a per-request table in ${CLASS_OUT:-/tmp/class}. Every step
# is bounded (CLASS_MAX_S per learner session, default 150 s); only processes this script
# started (and the servers its learners started on its socket) are ended. Needs a GPU (SKIP,
# exit 77, without), python3 and nvidia-smi. Env: BANKLAB, CLASS_STEPS (20), CLASS_DEVICE (0).
set -u
STEPS=${CLASS_STEPS:-20}
# the old form: classroom.sh N (a class of N without the cache), CLASS_NCU=1 (only ncu)
[ $# -ge 1 ] && CLASS_N_NOCACHE=${CLASS_N_NOCACHE:-$1}
[ "${CLASS_NCU:-0}" = 1 ] && CLASS_PARTS=${CLASS_PARTS:-alone ncu}
DEV=${CLASS_DEVICE:-0}
MAX=${CLASS_MAX_S:-150}
PARTS=${CLASS_PARTS:-alone nocache cache ncu kill kernel none}
B=${BANKLAB:-build/banklab}
case $B in /*) ;; *) B=$PWD/$B ;; esac
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
root=$(cd "$dir/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: classroom.sh needs python3"; exit 77; }
final_out=${CLASS_OUT:-/tmp/class}
mkdir -p "$final_out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/banklab-class.XXXXXX")
chmod 755 "$tmp"
# the learners (other Unix users) read their scripts and write their results here: a directory
# they can reach whatever CLASS_OUT's parents allow (a root's home is 0700); copied to
# CLASS_OUT at the end
out=$tmp/out
mkdir -p "$out" && chmod 755 "$out"
lock="$tmp/lock"
mkdir -m 1777 "$lock"
export BANKLAB_LOCK_DIR="$lock"
unset BANKLAB_SERVER BANKLAB_NO_SERVER
started=                                   # pids this script started (servers, samplers)
groups=                                    # process groups it started (the ncu loop)
sockdir="$lock/banklab-serve"
cleanup() {
    for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; done
    for p in $started; do kill "$p" 2>/dev/null; done
    # servers our learners started on our socket (after a SIGKILL)
    for p in $(pgrep -f -- "--socket $sockdir/" 2>/dev/null); do kill "$p" 2>/dev/null; done
    cp -R "$out/." "$final_out/" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# CLASS_FAKE=1: the plumbing of this script without a GPU (banklab serve --fake: the model's
# numbers; no memory samples, no ncu, no kernel): not a measurement
FAKE=${CLASS_FAKE:-0}
fake_arg=
if [ "$FAKE" = 1 ]; then
    fake_arg="--fake --fake-delay ${CLASS_FAKE_DELAY_MS:-5}"
    echo "CLASS_FAKE=1: the fake device, no GPU: this checks the script, it measures nothing"
else
    "$B" sim '__shared__ float s[64]; s[lane]' --gpu --json --no-server > "$tmp/probe.json" 2> "$tmp/probe.err"
    rc=$?
    if [ $rc = 3 ] || [ $rc = 2 ]; then
        echo "SKIP: no GPU: $(cat "$tmp/probe.err")"
        exit 77
    fi
    command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: classroom.sh needs nvidia-smi"; exit 77; }
fi

# the binary where every user can run it (a device bundle's libraries beside it)
bin="$tmp/bin"
mkdir -p "$bin"
cp "$B" "$bin/banklab"
for so in "$(dirname "$B")"/lib*.so* "$(dirname "$B")"/*.fatbin; do [ -f "$so" ] && cp "$so" "$bin/"; done
chmod -R a+rX "$bin"
BL="$bin/banklab"

# two learners' users (root makes them); else every learner is this user
U1=$(id -un) U2=$(id -un)
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    for u in banklab-class1 banklab-class2; do
        id "$u" >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin "$u" 2>/dev/null
    done
    id banklab-class1 >/dev/null 2>&1 && id banklab-class2 >/dev/null 2>&1 && U1=banklab-class1 U2=banklab-class2
fi
[ "$U1" = "$U2" ] && echo "note: learners are all $(id -un) (making two users needs root, useradd and runuser)"

cat > "$tmp/accesses" <<'EOF'
__shared__ float s[1024]; s[lane]
__shared__ float s[1024]; s[lane * 2]
__shared__ float s[1024]; s[lane * 4]
__shared__ float s[1024]; s[lane * 8]
__shared__ float s[1024]; s[lane * 16]
__shared__ float s[1024]; s[lane * 32]
__shared__ float s[1024]; s[lane * 3]
__shared__ float t[32][33]; t[lane][0]
__shared__ float t[32][32]; t[lane][0]
__shared__ float s[64]; s[0]
__shared__ float2 v[64]; v[lane]
__shared__ float2 v[128]; v[lane * 2]
__shared__ float4 v[64]; v[lane]
__shared__ float4 v[128]; v[lane * 2]
__shared__ float s[1024]; s[lane] = 1.0f
__shared__ float s[1024]; s[lane * 32] = 1.0f
__shared__ double d[512]; d[lane]
__shared__ char c[4096]; c[lane * 4]
__shared__ struct { float x, y, z; } p[256]; p[lane].x
__shared__ float s[1024]; s[(lane % 2) * 32]
EOF
cp "$tmp/accesses" "$out/accesses"
NACC=$(wc -l < "$tmp/accesses")
ms_now() { echo $(( $(date +%s%N) / 1000000 )); }

# as USER CMD...: CMD as that user, with the class's environment
as() {
    u=$1
    shift
    if [ "$u" = "$(id -un)" ]; then
        env BANKLAB_LOCK_DIR="$lock" BANKLAB_SERVE_CACHE="$cache" BANKLAB_SERVE_FAKE="$FAKE" "$@"
    else
        runuser -u "$u" -- env BANKLAB_LOCK_DIR="$lock" BANKLAB_SERVE_CACHE="$cache" BANKLAB_SERVE_FAKE="$FAKE" "$@"
    fi
}

# session NAME FIRST COUNT USER: one learner measuring COUNT accesses from access FIRST on ->
# $pd/NAME.{script,jsonl,err} and "NAME rc ms user t0" in $pd/NAME.proc
# script NAME FIRST STEPS: NAME's accesses, STEPS of them from access FIRST on (by turns)
script() {
    awk -v first="$2" -v steps="$3" -v n="$NACC" '{ a[NR - 1] = $0 }
        END { for (j = 0; j < steps; j++) print a[(first + j) % n] }' "$tmp/accesses" > "$pd/$1.script"
}
# prep N: the scripts of N learners (learner i from access i), written before any of them
# starts, so that a class starts as learners do, not with 20 processes a learner cutting its
# script (1280 at once for 64: call 22 counted 77 runnable on 16 cores as `banklab run` started)
prep() {
    i=0
    while [ $i -lt "$1" ]; do
        [ -s "$pd/l$i.script" ] || script "l$i" "$i" "$STEPS"
        i=$((i + 1))
    done
}
session() {
    [ -s "$pd/$1.script" ] || script "$1" "$2" "$3"
    t0=$(ms_now)
    as "$4" timeout "$MAX" "$BL" sim --gpu --json --script "$pd/$1.script" --device "$DEV" \
        > "$pd/$1.jsonl" 2> "$pd/$1.err" < /dev/null
    echo "$1 $? $(( $(ms_now) - t0 )) $4 $t0" > "$pd/$1.proc"
}

# class N: N learners at once (learner i: user U1 or U2 by turns, starting at access i)
class() {
    prep "$1"
    lp=
    i=0
    while [ $i -lt "$1" ]; do
        if [ $((i % 2)) = 0 ]; then u=$U1; else u=$U2; fi
        session "l$i" "$i" "$STEPS" "$u" &
        lp="$lp $!"
        i=$((i + 1))
    done
    for p in $lp; do wait "$p"; done
}

# server CACHE: the class's server (this script's user), listening before it returns
server() {
    # two Unix users stand for the whole class here, where a real class has one a learner:
    # each may hold as many connections as the largest part has learners
    # shellcheck disable=SC2086
    BANKLAB_SERVE_FAKE=$FAKE "$BL" serve --device "$DEV" --cache "$1" --user-connections 128 $fake_arg > "$pd/server.log" 2>&1 &
    spid=$!
    started="$started $spid"
    i=0
    while ! ls "$sockdir"/gpu-*.sock >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    sock=$(ls "$sockdir"/gpu-*.sock 2>/dev/null | head -n 1)
    [ -n "$sock" ] || { echo "FAIL: the server did not start: $(tail -n 3 "$pd/server.log")"; exit 1; }
}
server_stop() {
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    for p in $(pgrep -f -- "--socket $sockdir/" 2>/dev/null); do kill "$p" 2>/dev/null; done
    i=0
    while [ -n "$(pgrep -f -- "--socket $sockdir/")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    rm -f "$sockdir"/gpu-*.sock
}

# the device memory of every compute process, twice a second, into $pd/mem.csv
sampler() {
    ( while :; do
          timeout 5 nvidia-smi -i "$DEV" --query-compute-apps=pid,used_memory --format=csv,noheader,nounits \
              2>/dev/null | sed "s/^/$(ms_now), /"
          echo "$(ms_now), --"
          sleep 0.5
      done > "$pd/mem.csv" ) &
    mpid=$!
    started="$started $mpid"
}
sampler_stop() { kill "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null; }

# part NAME CACHE: a fresh directory, server and sampler for one part
part() {
    pd="$out/$1"
    rm -rf "$pd"
    mkdir -p "$pd"
    chmod 777 "$pd"
    cache=$2
    echo "== $1"
    server "$2"
    sampler
    echo "$(ms_now)" > "$pd/t_start"
}
part_end() {
    echo "$(ms_now)" > "$pd/t_end"
    sampler_stop
    server_stop
    cp "$tmp/accesses" "$pd/accesses"
}

for p in $PARTS; do
    case $p in
    alone)
        part alone 0
        session solo 0 "$NACC" "$U1"
        part_end ;;
    nocache)
        part nocache 0
        class "${CLASS_N_NOCACHE:-32}"
        part_end ;;
    cache)
        part cache 60
        class "${CLASS_N_CACHE:-64}"
        part_end ;;
    ncu)
        part ncu 0
        NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
        mkdir -p "$tmp/otherlock"
        # --clock-control none: ncu must not change the GPU's clocks; again and again until
        # the class is done. timeout --foreground keeps ncu and its program in this process
        # group (plain timeout makes a group of its own: the group's kill below missed them,
        # and the profiled program went on holding the counters after the part, seen on the
        # H200)
        setsid env BANKLAB_TEST_TAG="ncu-$$" sh -c "while :; do BANKLAB_NO_COUNTERS=1 BANKLAB_LOCK_DIR='$tmp/otherlock' timeout --foreground 120 \
            '$NCU' --clock-control none --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
            '$BL' bench --quick --no-server; done" > "$pd/ncu.log" 2>&1 &
        ng=$!
        groups="$groups $ng"
        sleep 5                     # ncu is profiling before the class starts
        class "${CLASS_N_NCU:-16}"
        kill -TERM -- "-$ng" 2>/dev/null
        i=0
        while kill -0 -- "-$ng" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL -- "-$ng" 2>/dev/null
        # the program ncu profiled can outlive ncu (seen on the H200: it went on holding the
        # counters into the next part): end it too, and wait until it has gone
        i=0
        while ! kill_tagged TERM "ncu-$$" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill_tagged KILL "ncu-$$"
        echo "$(ms_now)" > "$pd/t_ncu_end"
        grep -c "^==PROF== Profiling" "$pd/ncu.log" | sed 's/^/ncu: kernels profiled meanwhile: /'
        session after 0 3 "$U1"
        part_end ;;
    kill)
        part kill 0
        # SIGKILL once a quarter of the class's answers are in (the learners mid-class; a fixed
        # delay let a fast class finish first), at most 60 s after the start
        ( want=$(( ${CLASS_N_KILL:-16} * STEPS / 4 )); i=0
          while [ "$(cat "$pd"/l*.jsonl 2>/dev/null | wc -l)" -lt "$want" ] && [ $i -lt 1200 ]; do
              sleep 0.05; i=$((i + 1))
          done
          kill -9 "$spid" 2>/dev/null; echo "$(ms_now)" > "$pd/t_kill" ) &
        kp=$!
        class "${CLASS_N_KILL:-16}"
        wait $kp
        pgrep -a -f -- "--socket $sockdir/" > "$pd/servers_after" 2>/dev/null
        part_end ;;
    kernel)
        part kernel 0
        K="$root/assets/kernels/transpose_seed.cu"
        # as this script's user: reading the SASS counters may be for administrators only
        me=$(id -un)
        as "$me" timeout 120 "$BL" kernel "$K" --json --device "$DEV" > "$pd/kernel_alone.json" 2> "$pd/kernel_alone.err"
        echo "$?" > "$pd/kernel_alone.rc"
        ( sleep 3; as "$me" timeout 120 "$BL" kernel "$K" --json --device "$DEV" > "$pd/kernel_class.json" \
              2> "$pd/kernel_class.err"; echo "$?" > "$pd/kernel_class.rc" ) &
        kp=$!
        class "${CLASS_N_KERNEL:-16}"
        wait $kp
        part_end ;;
    run)
        # a program of several kernels measured by banklab run (the sanitizer route, or CUPTI's
        # where it is not built) again and again beside the class; each run's time against
        # the same run alone (median of 3 before the class)
        part run 0
        RP=${CLASS_RUN_PROG:-}
        if [ -z "$RP" ]; then
            RP=$tmp/run_prog
            "${NVCC:-/usr/local/cuda/bin/nvcc}" -O3 -lineinfo -arch=sm_90 -o "$RP" \
                "$root/tests/gpu/route/eight.cu" > "$pd/nvcc.txt" 2>&1
        fi
        chmod 755 "$RP" 2>/dev/null
        prep "${CLASS_N_RUN:-64}" # before the loop: its runs are beside learners, not their set-up
        for k in 1 2 3; do
            t0=$(ms_now); BANKLAB_RUN_DEBUG="$pd/run_alone_$k.debug" "$BL" run -- "$RP" > "$pd/run_alone_$k.txt" 2>&1; echo "$? $(( $(ms_now) - t0 ))"
        done > "$pd/runs_alone"
        setsid sh -c "while :; do t0=\$(date +%s%N | cut -c1-13); echo \"== run at \$t0 (load \$(cut -d' ' -f1-4 /proc/loadavg))\" >> '$pd/runs_beside.debug'; \
            BANKLAB_RUN_DEBUG='$pd/runs_beside.debug' '$BL' run -- '$RP' > '$pd/run_last.txt' 2>&1; rc=\$?; \
            echo \"\$rc \$(( \$(date +%s%N | cut -c1-13) - t0 ))\" >> '$pd/runs_beside'; done" > /dev/null 2>&1 &
        rg=$!
        groups="$groups $rg"
        class "${CLASS_N_RUN:-64}"
        kill -TERM -- "-$rg" 2>/dev/null
        sleep 1
        kill -KILL -- "-$rg" 2>/dev/null
        part_end ;;
    none)
        part none 0
        P='__shared__ float s[1024]; s[lane * 2]'
        if [ -n "${CLASS_NONE_BANKLAB:-}" ]; then
            how="a GPU=none build ($CLASS_NONE_BANKLAB)"
            timeout 60 "$CLASS_NONE_BANKLAB" sim "$P" --gpu --json --no-server > "$pd/nodriver.json" 2> "$pd/nodriver.err"
            BANKLAB_SERVER="$sock" timeout 60 "$CLASS_NONE_BANKLAB" sim "$P" --gpu --json > "$pd/client.json" 2> "$pd/client.err"
        elif [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
            libs=$(ldconfig -p 2>/dev/null | sed -n 's/.*libcuda\.so\.1 .*=> //p' | tr '\n' ' ')
            how="this build with libcuda hidden (a mount namespace binds /dev/null over: $libs)"
            hide=
            for l in $libs; do hide="$hide mount --bind /dev/null $(readlink -f "$l");"; done
            timeout 60 unshare -m sh -c "$hide \"$BL\" sim '$P' --gpu --json --no-server" > "$pd/nodriver.json" 2> "$pd/nodriver.err"
            timeout 60 unshare -m sh -c "$hide BANKLAB_SERVER='$sock' \"$BL\" sim '$P' --gpu --json" > "$pd/client.json" 2> "$pd/client.err"
        else
            how="skipped: set CLASS_NONE_BANKLAB to a GPU=none build (or run as root)"
        fi
        echo "$how" > "$pd/how"
        part_end ;;
    *) echo "classroom.sh: unknown part '$p'"; exit 2 ;;
    esac
done

timeout 120 python3 "$dir/classroom_report.py" "$out" "$STEPS" "$U1" "$U2" $PARTS
