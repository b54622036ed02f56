#!/bin/sh
# run.sh: light (it waits out the client's 30 s deadlines, computing little)
# serve_deadline.sh: every wait of a GPU server's client and of the server's jobs ends.
#   1. a measurement that the device holds past --job-timeout fails, with why, for every
#      request waiting on it (two learners merged on it), and the server goes on
#   2. a server that sends bytes that are not about a request (progress of another request
#      every 0.5 s; a frame dripped a byte a second) does not keep it waiting: it fails 30 s
#      after the server last said where it is ("sent nothing about this request for 30 s")
#   3. a server that answers hello and closes every connection that asks: the client waits
#      longer between connections (0.2 s doubled up to 3.2 s), at most 30 connections while
#      the request lives, and the request fails after 30 s
# The hostile servers are serve_attack.py's (written from the wire format). The three of 2 and
# 3 run side by side (about 35 s). Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
case $BANKLAB in /*) B=$BANKLAB ;; *) B=$(pwd)/$BANKLAB ;; esac
[ -x "$B" ] || { echo "serve_deadline.sh: no binary at $B"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 here"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/banklab-deadline.XXXXXX") || exit 1
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    sleep 0.1
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
export BANKLAB_LOCK_DIR="$tmp" BANKLAB_KERNEL_SERVER=0 CUDA_VISIBLE_DEVICES= LANG=C.UTF-8
P='__shared__ float s[1024]; s[lane * 3]'
# m FILE KEY: measured.KEY of sim --json's output
m() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["measured"][sys.argv[2]])' "$1" "$2" 2>/dev/null; }
wait_sock() { i=0; while [ ! -S "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; }

# ---- 2 and 3 in the background: hostile servers ----
for mode in other drip close; do
    python3 "$here/serve_attack.py" server "$tmp/$mode.sock" $mode > "$tmp/$mode.srv" 2>&1 &
    pids="$pids $!"
done
for mode in other drip close; do
    wait_sock "$tmp/$mode.sock"
    ( t0=$(now_ms)
      timeout 60 "$B" sim "$P" --gpu --json --server "$tmp/$mode.sock" > "$tmp/$mode.json" 2> "$tmp/$mode.err"
      echo "$? $(( $(now_ms) - t0 ))" > "$tmp/$mode.rc" ) &
    pids="$pids $!"
done

# ---- 1. a job past --job-timeout ----
"$B" serve --fake --fake-delay 5000 --cache 0 --job-timeout 1 --socket "$tmp/job.sock" 2> "$tmp/job-serve.err" &
pids="$pids $!"
wait_sock "$tmp/job.sock"
t0=$(now_ms)
timeout 20 "$B" sim "$P" --gpu --json --server "$tmp/job.sock" > "$tmp/job1.json" 2> "$tmp/job1.err" &
j1=$!
timeout 20 "$B" sim "$P" --gpu --json --server "$tmp/job.sock" > "$tmp/job2.json" 2> "$tmp/job2.err"
wait $j1
ms=$(( $(now_ms) - t0 ))
stats=$(timeout 10 "$B" serve --stats --socket "$tmp/job.sock" 2>&1)
e1=$(m "$tmp/job1.json" error) e2=$(m "$tmp/job2.json" error)
if [ "$(m "$tmp/job1.json" status)" = failed ] && [ "$(m "$tmp/job2.json" status)" = failed ] &&
   echo "$e1" | grep -q "took longer than 1 s on the GPU server" && [ "$e1" = "$e2" ] &&
   [ $ms -lt 4000 ] && echo "$stats" | grep -q "merged 1 "; then
    ok "a job past --job-timeout 1 (the device holds it 5 s): both waiters told in $ms ms: '$e1'; the server goes on ($stats)"
else
    bad "a job past --job-timeout: $ms ms, '$e1' / '$e2', stats '$stats': $(head -c 300 "$tmp/job1.err")"
fi

# ---- 2. bytes that are not about the request ----
for mode in other drip close; do
    i=0
    while [ ! -f "$tmp/$mode.rc" ] && [ $i -lt 1300 ]; do sleep 0.05; i=$((i + 1)); done
done
for mode in other drip; do
    read -r rc ms < "$tmp/$mode.rc" 2>/dev/null || rc=none
    err=$(m "$tmp/$mode.json" error)
    if [ "$rc" = 4 ] && [ "$ms" -ge 30000 ] && [ "$ms" -lt 37000 ] &&
       echo "$err" | grep -q "sent nothing about this request for 30 s"; then
        ok "a server that sends what is not about the request ($mode): it failed after $ms ms: '$err'"
    else
        bad "a server that sends what is not about the request ($mode): exit $rc after ${ms:-?} ms: '$err' $(head -c 300 "$tmp/$mode.err")"
    fi
done

# ---- 3. a server that closes every connection that asks ----
read -r rc ms < "$tmp/close.rc" 2>/dev/null || rc=none
conns=$(sed -n 's/^connections //p' "$tmp/close.srv" | tail -n 1)
err=$(m "$tmp/close.json" error)
if [ "$rc" = 4 ] && [ "$ms" -lt 37000 ] && [ "${conns:-0}" -ge 2 ] && [ "${conns:-0}" -le 30 ]; then
    ok "a server that closes each connection that asks: $conns connections in $ms ms, then the request failed: '$err'"
else
    bad "a server that closes each connection that asks: $conns connections, exit $rc after ${ms:-?} ms: '$err' $(head -c 300 "$tmp/close.err")"
fi

# (with BANKLAB=build/asan/banklab: the server and the clients ran clean)
if grep -l "Sanitizer\|runtime error" "$tmp"/*.err > "$tmp/san.list" 2>/dev/null; then
    bad "sanitizer reports in $(tr '\n' ' ' < "$tmp/san.list")"
fi
echo "serve_deadline.sh: $pass passed, $fail failed"
[ $fail = 0 ]
