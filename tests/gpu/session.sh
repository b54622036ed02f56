#!/bin/sh
# session.sh OUT: everything one call on a GPU machine measures, in the order that matters if
# time runs short: the recording the classroom replays (record.sh -> OUT/h200-recording.json),
# the device half of the unit tests (test_gpu), a class on the GPU server (classroom.sh: 32
# learners without the cache, 64 with it, Nsight Compute beside it, the server killed, banklab
# kernel mid-class, a client without libcuda), the device lock (lock.sh), banklab kernel against
# ncu (kernel.sh), ordinary programs through banklab kernel and banklab run against ncu
# (own_code.sh), then the rest of `make test-gpu`
# (run.sh: bench, verify, sim --gpu, the probe, the sanitizers). Each stage has a time limit.
# Writes OUT/session.txt (every stage's output and time) and OUT/logs.tgz. Env: BUILD (the
# device bundle of `make device-bundle`: banklab, libcjson.so.1, tests/gpu_probe and
# tests/test_gpu; default build), SESSION_S (seconds for all of it: a stage gets what is left).
# Run from the repository's root. Without a GPU: SKIP lines.
set -u
. tests/gpu/lib.sh
out=${1:?usage: session.sh OUT}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
export BUILD BANKLAB="$BUILD/banklab" GPU_PROBE="$BUILD/tests/gpu_probe" \
    LD_LIBRARY_PATH="$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# every stage but the classroom measures in its own process: no GPU server (banklab serve)
# started by one stage stays on the device for the next ones
export BANKLAB_NO_SERVER=1
mkdir -p "$out/logs"
log=$out/session.txt
: > "$log"
# SESSION_S: the whole session's time; a stage gets what is left of it at most
deadline=$(( $(date +%s) + ${SESSION_S:-86400} ))
stage() { # NAME LIMIT-SECONDS COMMAND...
    name=$1 limit=$2; shift 2
    t0=$(date +%s)
    left=$((deadline - t0))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 5 ]; then
        echo "-- $name: not run (SESSION_S used up)" | tee -a "$log"
        return
    fi
    echo "== $name (limit ${limit}s) $(date -u +%H:%M:%S)" | tee -a "$log"
    timeout "$limit" "$@" > "$out/logs/$name.txt" 2>&1
    rc=$?
    tail -n 60 "$out/logs/$name.txt" >> "$log"
    echo "-- $name: exit $rc after $(( $(date +%s) - t0 )) s" | tee -a "$log"
}
{ nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  uname -r; } >> "$log" 2>&1
stage record 200 sh tests/gpu/record.sh "$out/h200-recording.json"
stage test_gpu 60 "$BUILD/tests/test_gpu"
stage classroom 1200 env CLASS_OUT="$out/logs/class" sh tests/gpu/classroom.sh
stage lock 60 sh tests/gpu/lock.sh
stage kernel 240 env BANKLAB_TEST_TAG="session-$$" KERNEL_OUT="$out/logs/kernel" sh tests/gpu/kernel.sh
# a measuring server of banklab kernel waits for a next request with CUPTI set up: end those
# the kernel stage started (tagged: tests/gpu/lib.sh)
kill_tagged TERM "session-$$"; sleep 1
stage own_code 480 env OUT="$out/logs" sh tests/gpu/own_code.sh
stage test-gpu 400 env RUN_SKIP="lock classroom kernel own_code" sh tests/gpu/run.sh
tar czf "$out/logs.tgz" -C "$out" logs 2>/dev/null && rm -rf "$out/logs"
grep -E "^(== |-- |ok |FAIL|goals|classroom:|part |alone |nocache |cache |ncu |kill |kernel |none |counters for|request to|clk/request|verify|record:)" "$log"
