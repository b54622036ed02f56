#!/bin/sh
# run.sh: light (it waits on servers and their timeouts, computing little)
# serve.sh: `banklab serve` without a GPU, on its fake device (the model's numbers after a set
# delay; `serve --fake`): round-robin fairness between clients, in-flight merging of the same
# request, the cache and its age (and --cache 0), malformed and oversized requests (an error
# reply, that client dropped, the others served), a client reconnecting after the server is
# killed with SIGKILL (an explicit --server restarted by hand, and the default socket that the
# client restarts itself), 64 clients starting at once start one server, and a client of
# another Unix user served like the owner's (and the owner never served by that user's). The raw frames come from serve_wire.py (written
# from the format, not from banklab's code). The same under ASan+UBSan when ASAN_BANKLAB is
# set (make test). Env: BANKLAB (default build/banklab), ASAN_BANKLAB.
set -u
B=${BANKLAB:-build/banklab}
case $B in /*) ;; *) B=$PWD/$B ;; esac
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: serve.sh needs python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/banklab-serve.XXXXXX")
chmod 755 "$tmp"
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for f in "$tmp"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
export BANKLAB_LOCK_DIR="$tmp/lock"
mkdir -m 1777 "$BANKLAB_LOCK_DIR"
unset BANKLAB_SERVER BANKLAB_NO_SERVER BANKLAB_SERVE_CACHE

# serve NAME ARGS...: a fake server on $tmp/NAME.sock, its pid in $tmp/NAME.pid
serve() {
    name=$1
    shift
    "$B" serve --fake --socket "$tmp/$name.sock" "$@" 2> "$tmp/$name.err" &
    echo $! > "$tmp/$name.pid"
    i=0
    while [ ! -S "$tmp/$name.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    [ -S "$tmp/$name.sock" ] || { bad "server $name did not start: $(cat "$tmp/$name.err")"; return 1; }
}
stop() { kill "$(cat "$tmp/$1.pid")" 2>/dev/null; wait "$(cat "$tmp/$1.pid")" 2>/dev/null; rm -f "$tmp/$1.pid"; }
stat_of() { "$B" serve --stats --socket "$tmp/$1.sock" | tr ' ' '\n' | sed -n "/^$2\$/{n;p;}"; }
# json KEY: the value of "measured"'s KEY in the JSON line on stdin
json() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["measured"]['"'$1'"'])'; }

# ---- fairness and merging (raw clients) ----
serve a --fake-delay 20 --cache 0 || exit 1
if python3 "$here/serve_wire.py" fair "$tmp/a.sock" > "$tmp/fair.out" 2>&1; then
    ok "round robin: $(cat "$tmp/fair.out")"
else
    bad "round robin: $(cat "$tmp/fair.out")"
fi
stop a
serve m --fake-delay 400 --cache 0 || exit 1
if python3 "$here/serve_wire.py" merge "$tmp/m.sock" 12 > "$tmp/merge.out" 2>&1; then
    ok "in-flight merging: $(cat "$tmp/merge.out")"
else
    bad "in-flight merging: $(cat "$tmp/merge.out")"
fi
stop m

# ---- the cache and its age (banklab sim --gpu --server) ----
P='__shared__ float s[1024]; s[lane * 3]'
serve c --fake-delay 10 || exit 1
"$B" sim "$P" --gpu --json --server "$tmp/c.sock" > "$tmp/c1.json" 2> "$tmp/c1.err"
sleep 1.1
"$B" sim "$P" --gpu --json --server "$tmp/c.sock" > "$tmp/c2.json" 2> "$tmp/c2.err"
a1=$(json cache_age_s < "$tmp/c1.json") a2=$(json cache_age_s < "$tmp/c2.json")
w2=$(json wavefronts < "$tmp/c2.json")
if [ "$a1" = None ] && python3 -c "import sys; sys.exit(not float('$a2') >= 1.0)" 2>/dev/null &&
   [ "$w2" = 1 ] && [ "$(stat_of c measured)" = 1 ] && [ "$(stat_of c cache_hits)" = 1 ]; then
    ok "the cache: a repeat answered from it, cache_age_s $a2 (first: $a1), measured once"
else
    bad "the cache: ages '$a1' '$a2', wavefronts '$w2', measured $(stat_of c measured): $(cat "$tmp/c2.err")"
fi
"$B" sim "$P" --gpu --server "$tmp/c.sock" > "$tmp/c3.txt" 2>&1
if grep -q "measured on this GPU [0-9]* s ago" "$tmp/c3.txt"; then
    ok "sim's text says: $(grep -o 'measured on this GPU [0-9]* s ago' "$tmp/c3.txt")"
else
    bad "sim's text does not say the result's age: $(grep -A3 '^measured' "$tmp/c3.txt")"
fi
stop c
serve n --fake-delay 10 --cache 0 || exit 1
"$B" sim "$P" --gpu --json --server "$tmp/n.sock" > /dev/null 2>&1
"$B" sim "$P" --gpu --json --server "$tmp/n.sock" > "$tmp/n2.json" 2>&1
if [ "$(stat_of n measured)" = 2 ] && [ "$(json cache_age_s < "$tmp/n2.json")" = None ]; then
    ok "--cache 0: the repeat measured again"
else
    bad "--cache 0: measured $(stat_of n measured) times"
fi
stop n
BANKLAB_SERVE_CACHE=0 serve e --fake-delay 10 || exit 1
if [ "$(stat_of e cache_s)" = 0 ]; then ok "BANKLAB_SERVE_CACHE=0 switches the cache off"
else bad "BANKLAB_SERVE_CACHE=0: cache_s $(stat_of e cache_s)"; fi
stop e

# ---- the counters paused for a profiler (--pause, SIGUSR1) ----
serve p --fake-delay 5 --cache 0 || exit 1
"$B" serve --pause 30 --socket "$tmp/p.sock" > "$tmp/p.out" 2>&1
"$B" sim "$P" --gpu --json --server "$tmp/p.sock" > "$tmp/p1.json" 2> "$tmp/p1.err"
"$B" serve --pause 0 --socket "$tmp/p.sock" >> "$tmp/p.out" 2>&1
"$B" sim "$P" --gpu --json --server "$tmp/p.sock" > "$tmp/p2.json" 2> "$tmp/p2.err"
kill -USR1 "$(cat "$tmp/p.pid")"
sleep 0.3
"$B" sim "$P" --gpu --json --server "$tmp/p.sock" > "$tmp/p3.json" 2> "$tmp/p3.err"
if [ "$(json counters_busy < "$tmp/p1.json")" = True ] && [ "$(json wavefronts < "$tmp/p1.json")" = None ] &&
   grep -q 'counters paused for a profiler' "$tmp/p1.json" && [ "$(json clk_per_access < "$tmp/p1.json")" != None ] &&
   [ "$(json wavefronts < "$tmp/p2.json")" = 1 ] && [ "$(json counters_busy < "$tmp/p3.json")" = True ] &&
   [ "$(stat_of p pause_left_s)" -gt 50 ]; then
    ok "--pause 30: timing only, counters busy and why; --pause 0: counters back; SIGUSR1 pauses"
else
    bad "pause: $(cat "$tmp/p.out") | $(cat "$tmp/p1.json" | head -c 300) | $(json wavefronts < "$tmp/p2.json")"
fi
stop p

# ---- bad requests ----
serve b --fake-delay 5 || exit 1
if python3 "$here/serve_wire.py" bad "$tmp/b.sock" > "$tmp/bad.out" 2>&1; then
    ok "bad requests: $(grep -c '^ok' "$tmp/bad.out") checks (an error each, the server goes on)"
else
    bad "bad requests:"; cat "$tmp/bad.out"
fi
"$B" sim "$P" --gpu --json --server "$tmp/b.sock" > "$tmp/b2.json" 2>&1
[ "$(json status < "$tmp/b2.json")" = ok ] && ok "the server still serves sim after them" ||
    bad "the server after the bad requests: $(cat "$tmp/b2.json")"
stop b

# ---- chapter 11 through the server: every field of the access reaches the device ----
# (and below: verify and bench --both, through the server and in-process, agree; a hostile
# server's NaN, 1e18, negative count, escape sequence, invalid UTF-8 and unknown status are
# refused)
# The fake device measures with the model on what the wire brought, as the CUDA runner does:
# a wire that dropped the instruction measured ldmatrix .x1 at a 128-byte pitch as a plain
# 16-byte load (32 wavefronts, not 8) and cp.async of 32 lanes to one word as one store (1,
# not 32); `banklab verify` through such a server had 73 of 4768 differ.
serve x --fake-delay 0 || exit 1
if python3 "$here/serve_wire.py" ch11 "$tmp/x.sock" > "$tmp/ch11.out" 2>&1; then
    ok "chapter 11's instructions over the raw wire: $(grep -c '^ok' "$tmp/ch11.out") kinds measured as themselves"
else
    bad "chapter 11 over the raw wire:"; cat "$tmp/ch11.out"
fi
# sim --gpu through the server: the measured figures are the model's of this very access (the
# in-process figures on the fake), and the H200's (tests/data/h200-matrix.json)
for scene in '__shared__ half t[32 * 64]; ldmatrix.x1(t[lane * 64])|8' \
             '__shared__ half t[32 * 64]; ldmatrix.x2.trans(t[lane * 64])|16' \
             '__shared__ half t[32 * 64]; stmatrix.x1(t[lane * 64])|8' \
             '__shared__ float s[64]; cp.async4(s[0])|32' \
             '__shared__ float4 s[256]; cp.async16(s[lane * 2])|8'; do
    code=${scene%|*} want=${scene##*|}
    "$B" sim "$code" --gpu --json --server "$tmp/x.sock" > "$tmp/x.json" 2> "$tmp/x.err"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["measured"]
print(d["instruction"], d["wavefronts"], d["conflicts"], m["status"], m["wavefronts"], m["conflicts"], m["from_server"])
' "$tmp/x.json" 2>&1)
    set -- $got
    if [ "$#" = 7 ] && [ "$2" = "$want" ] && [ "$4" = ok ] && [ "$5" = "$2" ] && [ "$6" = "$3" ] && [ "$7" = True ]; then
        ok "sim --gpu through the server: $1 measured $5 wavefronts, $6 conflicts = the model's in-process"
    else
        bad "sim --gpu through the server, $code: want $want wavefronts: $got $(cat "$tmp/x.err")"
    fi
done
"$B" verify --server "$tmp/x.sock" > "$tmp/verify.txt" 2>&1
vrc=$?
line=$(grep '^model vs counters' "$tmp/verify.txt")
case $line in
"model vs counters: "*" of "*" agree (100.0 %), 0 differ, 0 could not be measured")
    [ $vrc = 0 ] && ok "verify through the server on the fake device: $line" ||
        bad "verify through the server: exit $vrc: $line" ;;
*)  bad "verify through the server on the fake device (exit $vrc): $line"; grep DIFFERS "$tmp/verify.txt" | head -5 ;;
esac
stop x
# verify and bench --both: through the default server (started by the client, as a learner's
# is) and in this process, both on the fake device (BANKLAB_SERVE_FAKE=1): every measurement
# must agree between the two paths
mkdir -m 1777 "$tmp/lock2"
for cmd in "verify --both" "bench --both --quick"; do
    BANKLAB_LOCK_DIR="$tmp/lock2" BANKLAB_SERVE_FAKE=1 "$B" $cmd > "$tmp/both.txt" 2>&1
    brc=$?
    line=$(grep '^through the server vs in this process' "$tmp/both.txt")
    case "$brc $line" in
    "0 through the server vs in this process: "*" agree, 0 differ, 0 measured by one path only"*)
        ok "$cmd on the fake device: $line" ;;
    *)  bad "$cmd on the fake device: exit $brc: $line"; grep -m5 "DIFFER" "$tmp/both.txt" ;;
    esac
done
for p in $(pgrep -f "banklab serve --device 0 --idle 600 --socket $tmp/lock2/"); do kill "$p"; done

# ---- a hostile server: numbers out of range and raw bytes are refused ----
# serve_wire.py's server answers every request with one bad field; the client refuses the
# result, says why, and nothing of it reaches the output, a lab's grade or the progress
for mode in nan huge negative escape utf8 status; do
    rm -f "$tmp/h.sock"
    python3 "$here/serve_wire.py" hostile "$tmp/h.sock" "$mode" 2> "$tmp/h.err" &
    hp=$!
    pids="$pids $hp"
    i=0
    while [ ! -S "$tmp/h.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    "$B" sim "$P" --gpu --json --server "$tmp/h.sock" > "$tmp/h.json" 2> "$tmp/h1.err"
    hrc=$?
    "$B" sim "$P" --gpu --server "$tmp/h.sock" > "$tmp/h.txt" 2>&1
    st=$(json status < "$tmp/h.json" 2>&1) wf=$(json wavefronts < "$tmp/h.json" 2>&1)
    # strict JSON (no NaN or Infinity) and no measured number at all
    nums=$(python3 -c '
import json, sys
def no(c):
    raise ValueError(c)
m = json.load(open(sys.argv[1]), parse_constant=no)["measured"]
print(sum(1 for k in ("wavefronts", "conflicts", "ns_per_access", "clk_per_access", "slowdown") if m.get(k) is not None))
' "$tmp/h.json" 2>&1)
    if [ $hrc = 4 ] && [ "$st" = failed ] && [ "$wf" = None ] && [ "$nums" = 0 ] &&
       grep -q "result was refused" "$tmp/h1.err" && grep -q "result was refused" "$tmp/h.txt" &&
       ! LC_ALL=C grep -q "$(printf '\033')" "$tmp/h.txt" "$tmp/h.json" "$tmp/h1.err"; then
        ok "a hostile server's result ($mode) refused: $(sed 's/.*result was refused: //' "$tmp/h1.err" | head -n 1)"
    else
        bad "a hostile server's result ($mode): exit $hrc, status '$st', wavefronts '$wf', numbers '$nums': $(head -c 300 "$tmp/h1.err")"
    fi
    if [ "$mode" = nan ]; then
        # a wrong answer stays wrong: graded by the model, not by a NaN
        "$B" lab "$here/../labs/lab-basic.json" --no-save --server "$tmp/h.sock" --answers PAD=0,STRIDE=2 > "$tmp/hl.txt" 2>&1
        if grep -q "result was refused" "$tmp/hl.txt" && grep -q "(1 of 2 tasks solved)" "$tmp/hl.txt" &&
           ! grep -qi "^Measured" "$tmp/hl.txt"; then
            ok "lab against it: graded by the model ($(grep 'Score' "$tmp/hl.txt"))"
        else
            bad "lab against a NaN server: $(grep -i 'score\|GPU' "$tmp/hl.txt" | head -n 4)"
        fi
    fi
    kill $hp 2>/dev/null
    wait $hp 2>/dev/null
done

# ---- the server killed mid-session ----
serve k --fake-delay 10 --cache 0 || exit 1
{ echo "$P"; sleep 1; echo '__shared__ float s[1024]; s[lane * 5]'; sleep 1.5
  echo '__shared__ float s[1024]; s[lane * 7]'; } |
    "$B" sim --gpu --json --script - --server "$tmp/k.sock" > "$tmp/k.jsonl" 2> "$tmp/k.err" &
cl=$!
sleep 0.5
kill -9 "$(cat "$tmp/k.pid")"; wait "$(cat "$tmp/k.pid")" 2>/dev/null
sleep 1
serve k --fake-delay 10 --cache 0 || exit 1
wait $cl
n=$(grep -c '"status":"ok"' "$tmp/k.jsonl")
[ "$n" = 3 ] && ok "--server killed with SIGKILL and restarted: the client reconnected, 3 of 3 answered" ||
    bad "after SIGKILL: $n of 3 answered: $(cat "$tmp/k.err")"
stop k

# ---- the default socket: started by the first client, restarted by a client ----
export BANKLAB_SERVE_FAKE=1
dsock="$BANKLAB_LOCK_DIR/banklab-serve/gpu-fake.sock"
i=0
while [ $i -lt 64 ]; do
    "$B" sim "$P" --gpu --json > "$tmp/d$i.json" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
for p in $pids; do wait "$p"; done
pids=
spid=$(pgrep -f "banklab serve --device 0 --idle 600 --socket $dsock" | tr '\n' ' ')
nok=$(cat "$tmp"/d*.json | grep -c '"status":"ok"')
if [ "$nok" = 64 ] && [ "$(echo $spid | wc -w)" = 1 ] && [ -S "$dsock" ]; then
    ok "64 clients at once started one server ($dsock), 64 answered"
else
    bad "64 clients at once: $nok answered, servers: '$spid'"
fi
for p in $spid; do echo "$p" > "$tmp/auto.pid"; done
{ echo "$P"; sleep 1; echo '__shared__ float s[1024]; s[lane * 9]'; } |
    "$B" sim --gpu --json --script - > "$tmp/r.jsonl" 2> "$tmp/r.err" &
cl=$!
sleep 0.5
for p in $spid; do kill -9 "$p"; done
wait $cl
n=$(grep -c '"status":"ok"' "$tmp/r.jsonl")
spid2=$(pgrep -f "banklab serve --device 0 --idle 600 --socket $dsock" | tr '\n' ' ')
for p in $spid2; do echo "$p" > "$tmp/auto.pid"; done
if [ "$n" = 2 ] && [ -n "$spid2" ] && [ "$spid2" != "$spid" ]; then
    ok "the default server killed with SIGKILL: the client started another ($spid2), 2 of 2 answered"
else
    bad "default server after SIGKILL: $n of 2 answered, server '$spid2': $(cat "$tmp/r.err")"
fi

# ---- a client of another Unix user ----
other=
if [ "$(id -u)" = 0 ]; then
    other=banklab-serve-test
    id "$other" >/dev/null 2>&1 || useradd -M -r -s /bin/false "$other" 2>/dev/null || other=
fi
if [ -z "$other" ]; then
    echo "skip a client of another Unix user: not root (needs useradd and runuser)"
else
    cp "$B" "$tmp/banklab"
    chmod 755 "$tmp/banklab"
    # (in $tmp, with the copy: the clone may be in a directory the other user cannot enter)
    as() { (cd "$tmp" && exec runuser -u "$other" -- env BANKLAB_LOCK_DIR="$BANKLAB_LOCK_DIR" BANKLAB_SERVE_FAKE=1 "$@"); }
    as "$tmp/banklab" sim "$P" --gpu --json > "$tmp/u1.json" 2> "$tmp/u1.err"
    if [ "$(json status < "$tmp/u1.json" 2>/dev/null)" = ok ] && [ "$(json from_server < "$tmp/u1.json")" = True ]; then
        ok "user $other served by $(id -un)'s server like its owner"
    else
        bad "user $other: $(cat "$tmp/u1.err") $(cat "$tmp/u1.json")"
    fi
    # the owner's server dies; the other user's client starts one under a name of its own
    # beside the stale socket it may not remove; the owner's clients do not use that other
    # user's server (it could answer anything): root starts its own at the shared name
    for p in $spid2; do kill -9 "$p"; done
    sleep 0.2
    as "$tmp/banklab" sim '__shared__ float s[1024]; s[lane * 11]' --gpu --json > "$tmp/u2.json" 2> "$tmp/u2.err"
    "$B" sim '__shared__ float s[1024]; s[lane * 13]' --gpu --json > "$tmp/u3.json" 2> "$tmp/u3.err"
    spid3=$(pgrep -u "$other" -f "banklab serve --device 0" | tr '\n' ' ')
    for p in $spid3; do echo "$p" > "$tmp/other.pid"; done
    u3lock=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["measured"]["lock"])' < "$tmp/u3.json" 2>/dev/null)
    spid4=$(pgrep -u 0 -f "banklab serve --device 0 --idle 600 --socket $dsock" | tr '\n' ' ')
    for p in $spid4; do echo "$p" > "$tmp/auto.pid"; done
    if [ "$(json status < "$tmp/u2.json" 2>/dev/null)" = ok ] && [ "$(json status < "$tmp/u3.json" 2>/dev/null)" = ok ] &&
       [ -n "$spid3" ] && ls "$BANKLAB_LOCK_DIR/banklab-serve/" | grep -q "gpu-fake-u[0-9]*.sock" &&
       [ -n "$spid4" ] && case $u3lock in "served by $dsock "*) true ;; *) false ;; esac; then
        ok "user $other started the next server ($(ls "$BANKLAB_LOCK_DIR/banklab-serve/" | grep -- -u | tr '\n' ' ')); root is served by its own ($u3lock)"
    else
        bad "after the owner's server died: $(cat "$tmp/u2.err" "$tmp/u3.err") [$(ls "$BANKLAB_LOCK_DIR/banklab-serve/")] root's: '$spid4' $u3lock"
    fi
    for p in $spid3; do kill "$p" 2>/dev/null; done
fi
unset BANKLAB_SERVE_FAKE

# ---- the server and the client under ASan+UBSan (make test's asan build) ----
A=${ASAN_BANKLAB:-}
case $A in ""|/*) ;; *) A=$PWD/$A ;; esac
if [ -n "$A" ] && [ -x "$A" ]; then
    "$A" serve --fake --fake-delay 5 --socket "$tmp/z.sock" 2> "$tmp/z.err" &
    zp=$!
    pids="$pids $zp"
    i=0
    while [ ! -S "$tmp/z.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    python3 "$here/serve_wire.py" bad "$tmp/z.sock" > "$tmp/zbad.out" 2>&1
    zb=$?
    python3 "$here/serve_wire.py" merge "$tmp/z.sock" 4 > "$tmp/zmerge.out" 2>&1
    zm=$?
    { echo "$P"; sleep 1; echo '__shared__ float s[1024]; s[lane * 5]'; } |
        "$A" sim --gpu --json --script - --server "$tmp/z.sock" > "$tmp/z.jsonl" 2> "$tmp/zc.err" &
    cl=$!
    sleep 0.5
    kill -TERM "$zp"; wait "$zp"; zrc=$?
    "$A" serve --fake --fake-delay 5 --socket "$tmp/z.sock" 2>> "$tmp/z.err" &
    zp=$!
    pids="$pids $zp"
    wait $cl
    zc=$?
    kill -TERM "$zp"; wait "$zp"; zrc2=$?
    n=$(grep -c '"status":"ok"' "$tmp/z.jsonl")
    if [ $zb = 0 ] && [ $zm = 0 ] && [ $zrc = 0 ] && [ $zrc2 = 0 ] && [ $zc = 0 ] && [ "$n" = 2 ] &&
       ! grep -q "Sanitizer\|runtime error" "$tmp/z.err" "$tmp/zc.err"; then
        ok "under ASan+UBSan: bad requests, merging, a server stopped and started under a client: clean"
    else
        bad "under ASan+UBSan: bad $zb merge $zm server exits $zrc/$zrc2 client $zc, $n of 2: $(grep -h -m3 "Sanitizer\|runtime error" "$tmp/z.err" "$tmp/zc.err")"
    fi
else
    echo "skip the ASan+UBSan run: no ASAN_BANKLAB (make test sets it)"
fi

# ---- a client without a server says so (no hang) ----
"$B" sim "$P" --gpu --server "$tmp/none.sock" > "$tmp/none.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "no GPU server at" "$tmp/none.out" && ok "no server at --server: exit 3, '$(tail -n 1 "$tmp/none.out")'" ||
    bad "no server at --server: exit $rc: $(tail -n 2 "$tmp/none.out")"

[ $fails = 0 ] && echo "serve.sh: ok" || echo "serve.sh: $fails failed"
[ $fails = 0 ]
