#!/bin/sh
# run.sh: alone
# serve_hostile_users.sh: the class's GPU server under a hostile learner. Two Unix
# users besides root: a learner (bl30learn) and a mischievous one (bl30mal). Root runs
# `banklab serve` on its fake device (the teacher's unit); the learner measures with
# `banklab sim --gpu` and the tutorial (in tmux). bl30mal, with tests/sh/serve_hostile.py:
#   2. `banklab serve --pause 60`: refused with the reason, the counters not paused (root's
#      own pause still works)
#   1. holds 1000 idle connections and floods on 8 more: the learner's requests are still
#      answered by the server, within 1 s of the time they take alone (median of 5 each); the
#      server keeps at most 16 of bl30mal's connections (a 17th is told why) and closes the
#      idle ones (--client-idle); with 16 flooding connections the learner's burst of 10
#      takes its turn every other time (turns per user, not per connection)
#   3. the learner's tutorial shows the server's numbers and quits on q within 1 s meanwhile;
#      a SIGPIPE from its own write (its timing FIFO's reader gone) does not end it
#   4. with no server running: a FIFO at both start locks and never-accepting sockets (their
#      queues full) at the shared name and at bl30mal's own: the learner is still answered
#      (its own server, started beside them) in bounded time, and its tutorial quits on q and
#      on SIGTERM within 1 s
#   5. a 1777 `banklab-serve` directory bl30mal made first, with bl30mal's own server in it:
#      the learner never talks to that server and says why (in-process fallback, bounded)
#   6. a server that stalls after answering (SIGSTOP, meanwhile): the waiting request fails
#      after the 30 s docs/teaching.md promises, saying so
#   7. a server started with --idle (as a client starts one) leaves after that long without
#      a request even while bl30mal holds connections open
# Everything runs on Unix sockets under a fresh directory, every wait is bounded, and every
# process the suite started (the users' included) is ended by its id at exit. Needs root to
# create the users (CI runs as root): otherwise SKIP (77). Env: BANKLAB.
set -u
here=$(cd "$(dirname "$0")" && pwd)
L=bl30learn M=bl30mal
TM="tmux -L banklab-h30-$$ -f /dev/null"
pids=
# the servers the learner's banklab started (detached) too: by id, found by this run's path
suite_cleanup() { $TM kill-server >/dev/null 2>&1; users_kill "$pids" $L $M; }
. "$here/lib.sh" serve_hostile_users.sh
B=$BANKLAB
users_need "python3 tmux timeout" $L $M
LU=$(id -u $L) MU=$(id -u $M)
chmod 755 "$tmp"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

mkdir -p "$tmp/bin" "$tmp/py"
cp "$B" "$tmp/bin/banklab" && chmod 755 "$tmp/bin/banklab"
BB=$tmp/bin/banklab
cp "$here/serve_wire.py" "$here/serve_hostile.py" "$tmp/py/"
cp -r "$here/tui_fixtures/lessons" "$tmp/lessons"
chmod -R a+rX "$tmp/py" "$tmp/lessons"
users_home $L $M
# the lock directories: root's, mode 1777 (as /run/lock)
for d in lock lock2 lock3; do mkdir -m 1777 "$tmp/$d" && chmod 1777 "$tmp/$d"; done

# as USER LOCKDIR CMD...: CMD as USER with its own HOME and state, the lock directory given
as() { as_user "$@"; }
# mal CMD...: bl30mal's helper in the background (stops by itself); its pid kept
mal() {
    ld=$1 out=$2
    shift 2
    as $M "$ld" python3 "$tmp/py/serve_hostile.py" "$@" > "$tmp/$out" 2>&1 &
    pids="$pids $!"
}
# field FILE KEY: measured.KEY of sim --json's output
field() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["measured"][sys.argv[2]])' "$1" "$2" 2>/dev/null; }

# learn_runs LOCKDIR TAG: 5 `sim --gpu` of the learner; each answered by a server ("ok") or
# not; prints the median time in ms; files $tmp/TAG-K.json
learn_runs() {
    ld=$1 tag=$2
    : > "$tmp/$tag.ms"
    for k in 3 5 7 9 11; do
        t0=$(now_ms)
        as $L "$ld" timeout 20 "$BB" sim "__shared__ float s[4096]; s[lane * $k]" --gpu --json \
            > "$tmp/$tag-$k.json" 2> "$tmp/$tag-$k.err"
        echo $(( $(now_ms) - t0 )) >> "$tmp/$tag.ms"
    done
    sort -n "$tmp/$tag.ms" | sed -n 3p
}
all_served() { # TAG: every run of learn_runs answered ok by a server
    for k in 3 5 7 9 11; do
        [ "$(field "$tmp/$1-$k.json" status)" = ok ] && [ "$(field "$tmp/$1-$k.json" from_server)" = True ] || return 1
    done
}
stat_of() { # LOCKDIR KEY (as root, root's server)
    BANKLAB_LOCK_DIR=$1 BANKLAB_SERVE_FAKE=1 timeout 10 "$BB" serve --stats |
        tr ' ' '\n' | sed -n "/^$2\$/{n;p;}"
}

# ---- 6. (in the background meanwhile) a server that stalls once it has answered ----
"$BB" serve --fake --fake-delay 5 --cache 0 --socket "$tmp/stall.sock" 2> "$tmp/stall-serve.err" &
stall_srv=$!
pids="$pids $stall_srv"
i=0
while [ ! -S "$tmp/stall.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
mkfifo "$tmp/stall.in"
timeout 50 "$BB" sim --gpu --json --script - --server "$tmp/stall.sock" < "$tmp/stall.in" \
    > "$tmp/stall.jsonl" 2> "$tmp/stall.err" &
pids="$pids $!"
( echo '__shared__ float s[1024]; s[lane]'; sleep 0.5; kill -STOP $stall_srv
  echo '__shared__ float s[1024]; s[lane * 2]'; exec sleep 45 ) > "$tmp/stall.in" &
pids="$pids $!"

# ---- the teacher's server (root) ----
SD=$tmp/lock/banklab-serve
D=$SD/gpu-fake.sock
BANKLAB_LOCK_DIR=$tmp/lock BANKLAB_SERVE_FAKE=1 "$BB" serve --fake --fake-delay 20 --cache 0 \
    --client-idle 4 2> "$tmp/root-serve.err" &
pids="$pids $!"
i=0
while [ ! -S "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$D" ] || { bad "root's server did not start: $(cat "$tmp/root-serve.err")"; echo "serve_hostile_users.sh: $pass passed, $fail failed"; exit 1; }

alone=$(learn_runs "$tmp/lock" alone)
if all_served alone; then ok "alone: the learner's 5 requests answered by root's server, median $alone ms"
else bad "alone: not served: $(cat "$tmp"/alone-3.err "$tmp"/alone-3.json | head -c 400)"; fi

# ---- 2. bl30mal's pause is refused ----
as $M "$tmp/lock" timeout 20 "$BB" serve --pause 60 > "$tmp/pause.out" 2>&1
rc=$?
left=$(stat_of "$tmp/lock" pause_left_s)
if [ $rc != 0 ] && grep -q "only the server's owner (uid 0) or root may pause" "$tmp/pause.out" && [ "$left" = 0 ]; then
    ok "bl30mal's serve --pause 60: refused (exit $rc, '$(head -n 1 "$tmp/pause.out")'), pause_left_s $left"
else
    bad "bl30mal's serve --pause 60: exit $rc, pause_left_s '$left': $(cat "$tmp/pause.out")"
fi
BANKLAB_LOCK_DIR=$tmp/lock BANKLAB_SERVE_FAKE=1 timeout 10 "$BB" serve --pause 5 > "$tmp/rpause.out" 2>&1
rleft=$(stat_of "$tmp/lock" pause_left_s)
BANKLAB_LOCK_DIR=$tmp/lock BANKLAB_SERVE_FAKE=1 timeout 10 "$BB" serve --pause 0 > /dev/null 2>&1
if [ "${rleft:-0}" -gt 0 ] && [ "$(stat_of "$tmp/lock" pause_left_s)" = 0 ]; then
    ok "root's own --pause 5 pauses (pause_left_s $rleft) and --pause 0 resumes"
else
    bad "root's pause: pause_left_s '$rleft': $(cat "$tmp/rpause.out")"
fi

# ---- 1. 1000 idle connections and 8 flooding ones ----
mal "$tmp/lock" flood.out flood "$D" 8 45
sleep 0.5
mal "$tmp/lock" idle.out idle "$D" 1000 45 7
i=0
while ! grep -q held_1s "$tmp/idle.out" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
# bl30mal holds 16 now (8 flooding, 8 idle): a 17th is refused, and told why
as $M "$tmp/lock" timeout 20 "$BB" serve --stats > "$tmp/m17.out" 2>&1
if grep -q "uid $MU already holds 16 connections to this GPU server" "$tmp/m17.out"; then
    ok "bl30mal's 17th connection refused: '$(head -n 1 "$tmp/m17.out")'"
else
    bad "bl30mal's 17th connection: $(cat "$tmp/m17.out") (idle: $(cat "$tmp/idle.out"))"
fi
attack=$(learn_runs "$tmp/lock" attack)
clients=$(stat_of "$tmp/lock" clients)
if all_served attack && [ "$attack" -le $((alone + 1000)) ]; then
    ok "under attack: the learner's 5 requests answered by the server, median $attack ms (alone $alone ms; server holds $clients connections)"
else
    bad "under attack: median $attack ms (alone $alone ms), served: $(all_served attack && echo yes || echo no): $(head -c 300 "$tmp/attack-3.err") $(head -c 300 "$tmp/attack-3.json")"
fi

# ---- 1b. turns per user, not per connection: bl30mal floods on 16 connections ----
"$BB" serve --fake --fake-delay 50 --cache 0 --socket "$tmp/fair.sock" 2> "$tmp/fair-serve.err" &
pids="$pids $!"
i=0
while [ ! -S "$tmp/fair.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
as $L "$tmp/lock" timeout 30 python3 "$tmp/py/serve_hostile.py" burst "$tmp/fair.sock" 10 > "$tmp/burst-alone.out" 2>&1
mal "$tmp/lock" flood16.out flood "$tmp/fair.sock" 16 12
sleep 1.5
as $L "$tmp/lock" timeout 30 python3 "$tmp/py/serve_hostile.py" burst "$tmp/fair.sock" 10 > "$tmp/burst.out" 2>&1
b_alone=$(sed -n 's/answered 10 of 10 in \([0-9]*\) ms/\1/p' "$tmp/burst-alone.out")
b_attack=$(sed -n 's/answered 10 of 10 in \([0-9]*\) ms/\1/p' "$tmp/burst.out")
# round-robin over users: the learner's 10 take every other turn (about 2 x alone); over
# connections they would take one turn in 17 (about 8 x alone)
if [ -n "$b_alone" ] && [ -n "$b_attack" ] && [ "$b_attack" -le $((3 * b_alone + 300)) ]; then
    ok "turns per user: the learner's 10 requests at once took $b_attack ms beside bl30mal's 16 flooding connections ($b_alone ms alone)"
else
    bad "turns per user: the learner's 10 requests: '$(cat "$tmp/burst.out")' beside the flood, '$(cat "$tmp/burst-alone.out")' alone"
fi

# ---- 3. the learner's tutorial during the attack ----
# tui NAME LOCKDIR: the tutorial as the learner in tmux session NAME; $tmp/NAME.pid its pid,
# $tmp/NAME.rc its exit status once it ended
cat > "$tmp/tui.sh" <<EOF
#!/bin/sh
n=\$1 ld=\$2 timing=\${3:-}
sh -c 'echo \$\$ > "\$0"; exec "\$@"' "$tmp/\$n.pid" setpriv --reuid=$L --regid=$(id -g $L) --clear-groups \\
    env -i PATH="\$PATH" HOME="$tmp/home-$L" XDG_STATE_HOME="$tmp/home-$L/state" \\
    XDG_RUNTIME_DIR="$tmp/home-$L/run" LANG=C.UTF-8 TERM=xterm-256color CUDA_VISIBLE_DEVICES= \\
    BANKLAB_LOCK_DIR="\$ld" BANKLAB_SERVE_FAKE=1 BANKLAB_TIMING="\$timing" "$BB" --lessons "$tmp/lessons" --lang en --reset \\
    --chapter 1 --step 2
echo \$? > "$tmp/\$n.rc.tmp" && mv "$tmp/\$n.rc.tmp" "$tmp/\$n.rc"
sleep 120
EOF
chmod 755 "$tmp/tui.sh"
$TM new-session -d -s keep -x 80 -y 24 "sleep 300" || bad "tmux cannot start"
tui() { $TM new-session -d -c "$tmp" -s "$1" -x 100 -y 30 "$tmp/tui.sh $1 $2 ${3:-}"; }
wait_screen() { # NAME REGEX SECONDS
    end=$(( $(now_ms) + $3 * 1000 ))
    while [ "$(now_ms)" -lt $end ]; do
        $TM capture-pane -p -t "$1" 2>/dev/null | grep -qE -- "$2" && return 0
        sleep 0.05
    done
    return 1
}
# quits NAME HOW: q (a key) or TERM (a signal); prints the ms until it ended, or "never"
quits() {
    t0=$(now_ms)
    if [ "$2" = q ]; then $TM send-keys -t "$1" q; else kill -"$2" "$(cat "$tmp/$1.pid")"; fi
    end=$((t0 + 5000))
    while [ ! -f "$tmp/$1.rc" ] && [ "$(now_ms)" -lt $end ]; do sleep 0.02; done
    if [ -f "$tmp/$1.rc" ]; then echo $(( $(now_ms) - t0 )); else echo never; fi
}
tui t1 "$tmp/lock"
if wait_screen t1 " 1\\.2/5 " 10 && wait_screen t1 "measured +32\\.0 wavefronts" 10; then
    ok "tutorial under attack: root's server's numbers shown (measured 32.0 wavefronts)"
else
    bad "tutorial under attack: no numbers: $($TM capture-pane -p -t t1 | grep -v '^ *$' | tail -n 5)"
fi
ms=$(quits t1 q)
if [ "$ms" != never ] && [ "$ms" -le 1000 ] && [ "$(cat "$tmp/t1.rc")" = 0 ]; then
    ok "tutorial under attack: q quit in $ms ms (exit 0)"
else
    bad "tutorial under attack: q: $ms ms, exit $(cat "$tmp/t1.rc" 2>/dev/null)"
fi

# the idle connections: at most 16 of bl30mal's held, then closed as idle (--client-idle 4)
i=0
while ! grep -q held_late "$tmp/idle.out" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
held1=$(sed -n 's/.*held_1s \([0-9]*\) held_late.*/\1/p' "$tmp/idle.out")
held7=$(sed -n 's/.*held_late \([0-9]*\).*/\1/p' "$tmp/idle.out")
if [ -n "$held1" ] && [ "$held1" -le 16 ] && [ "$held7" = 0 ]; then
    ok "bl30mal's 1000 idle connections: $held1 held by the server after 1.5 s (at most 16 per user), $held7 after 7 s ($(tail -n 1 "$tmp/idle.out"))"
else
    bad "bl30mal's idle connections: '$(cat "$tmp/idle.out")'"
fi

# ---- 4. planted names, no server running ----
SD2=$tmp/lock2/banklab-serve
mkdir -m 1777 "$SD2" && chmod 1777 "$SD2"          # root's, as the unit's tmpfiles make it
as $M "$tmp/lock2" mkfifo -m 666 "$SD2/gpu-fake.sock.start" "$SD2/gpu-fake-u$LU.sock.start"
mal "$tmp/lock2" plant1.out plant "$SD2/gpu-fake.sock" 60
mal "$tmp/lock2" plant2.out plant "$SD2/gpu-fake-u$MU.sock" 60
i=0
while ! { grep -q planted "$tmp/plant1.out" && grep -q planted "$tmp/plant2.out"; } && [ $i -lt 100 ]; do
    sleep 0.05; i=$((i + 1))
done
t0=$(now_ms)
as $L "$tmp/lock2" timeout 20 "$BB" sim '__shared__ float s[1024]; s[lane * 2]' --gpu --json \
    > "$tmp/p.json" 2> "$tmp/p.err"
rc=$? ms=$(( $(now_ms) - t0 ))
lock=$(field "$tmp/p.json" lock)
if [ "$(field "$tmp/p.json" status)" = ok ] && [ "$(field "$tmp/p.json" from_server)" = True ] &&
   [ $ms -lt 10000 ] && case $lock in "served by $SD2/gpu-fake-u$LU.sock "*) true ;; *) false ;; esac &&
   echo "$lock" | grep -q "gpu-fake-u$LU.sock.start is not a regular file of root or yours"; then
    ok "planted FIFOs and never-accepting sockets: the learner served in $ms ms by its own server ($lock)"
else
    bad "planted names: exit $rc after $ms ms, lock '$lock': $(head -c 300 "$tmp/p.err") $(head -c 300 "$tmp/p.json")"
fi
tui t2 "$tmp/lock2"
wait_screen t2 " 1\\.2/5 " 10 && wait_screen t2 "wavefronts" 5
ms=$(quits t2 q)
if [ "$ms" != never ] && [ "$ms" -le 1000 ]; then ok "tutorial beside the planted names: q quit in $ms ms"
else bad "tutorial beside the planted names: q: $ms ms: $($TM capture-pane -p -t t2 | grep -v '^ *$' | tail -n 3)"; fi
tui t3 "$tmp/lock2"
wait_screen t3 " 1\\.2/5 " 10
sleep 0.3
ms=$(quits t3 TERM)
if [ "$ms" != never ] && [ "$ms" -le 1000 ] && [ "$(cat "$tmp/t3.rc")" = 143 ]; then
    ok "tutorial beside the planted names: SIGTERM ended it in $ms ms (exit 143)"
else
    bad "tutorial beside the planted names: SIGTERM: $ms ms, exit $(cat "$tmp/t3.rc" 2>/dev/null)"
fi

# the tutorial's own write to a pipe whose reader left (as a server that dropped a connection)
# raises SIGPIPE in it: that write fails, the tutorial goes on (kill -PIPE from outside still
# ends it: tui_hostile.sh)
mkfifo -m 666 "$tmp/timing.fifo"
cat "$tmp/timing.fifo" > /dev/null &
reader=$!
pids="$pids $reader"
tui t4 "$tmp/lock" "$tmp/timing.fifo"
wait_screen t4 " 1\\.2/5 " 10
kill $reader 2>/dev/null
sleep 0.2
$TM send-keys -t t4 P
sleep 0.3
$TM send-keys -t t4 p
sleep 0.3
if [ ! -f "$tmp/t4.rc" ] && wait_screen t4 "PAD=0 " 3; then
    ms=$(quits t4 q)
    if [ "$ms" != never ] && [ "$(cat "$tmp/t4.rc")" = 0 ]; then
        ok "the tutorial's own SIGPIPE (its timing FIFO's reader gone): it went on, then q quit (exit 0, $ms ms)"
    else
        bad "the tutorial's own SIGPIPE: q: $ms ms, exit $(cat "$tmp/t4.rc" 2>/dev/null)"
    fi
else
    bad "the tutorial's own SIGPIPE ended it: exit $(cat "$tmp/t4.rc" 2>/dev/null)"
fi

# ---- 5. a 1777 directory bl30mal made first, with bl30mal's server in it ----
SD3=$tmp/lock3/banklab-serve
as $M "$tmp/lock3" sh -c "mkdir '$SD3' && chmod 1777 '$SD3'"
as $M "$tmp/lock3" "$BB" serve --fake --fake-delay 5 --cache 0 --socket "$SD3/gpu-fake.sock" \
    2> "$tmp/mal-serve.err" &
pids="$pids $!"
i=0
while [ ! -S "$SD3/gpu-fake.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
t0=$(now_ms)
as $L "$tmp/lock3" timeout 20 "$BB" sim '__shared__ float s[1024]; s[lane * 32]' --gpu \
    > "$tmp/d.out" 2>&1
rc=$? ms=$(( $(now_ms) - t0 ))
served=$(as $M "$tmp/lock3" timeout 10 "$BB" serve --stats --socket "$SD3/gpu-fake.sock" 2>&1 |
         tr ' ' '\n' | sed -n '/^requests$/{n;p;}')
if [ "$served" = 0 ] && [ $ms -lt 10000 ] && grep -q "banklab-serve: shared, but owned by a user who is neither root nor you" "$tmp/d.out" &&
   grep -q "uid $MU" "$tmp/d.out"; then
    ok "bl30mal's 1777 directory: not used ($served requests reached bl30mal's server), said in $ms ms: $(grep -o 'banklab-serve: shared[^;]*' "$tmp/d.out" | head -n 1)"
else
    bad "bl30mal's 1777 directory: bl30mal's server got '$served' requests, exit $rc after $ms ms: $(head -c 400 "$tmp/d.out")"
fi

# ---- 7. a server a client started is not kept by idle connections ----
"$BB" serve --fake --idle 2 --client-idle 0 --socket "$tmp/auto.sock" 2> "$tmp/auto-serve.err" &
auto=$!
pids="$pids $auto"
i=0
while [ ! -S "$tmp/auto.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
mal "$tmp/lock" idle-auto.out idle "$tmp/auto.sock" 8 8 1.5
t0=$(now_ms)
i=0
while kill -0 $auto 2>/dev/null && [ $i -lt 160 ]; do sleep 0.05; i=$((i + 1)); done
ms=$(( $(now_ms) - t0 ))
held=$(sed -n 's/.*held_1s \([0-9]*\).*/\1/p' "$tmp/idle-auto.out" | head -n 1)
if ! kill -0 $auto 2>/dev/null && [ "${held:-0}" -ge 1 ]; then
    ok "a server with --idle 2 left after $ms ms without a request, $held idle connections of bl30mal's open"
else
    bad "--idle 2 with idle connections: still running after $ms ms (held: '$(cat "$tmp/idle-auto.out")')"
fi

# ---- 6. the stalled server: the second request fails after 30 s, saying why ----
i=0
while ! grep -q '"line":2' "$tmp/stall.jsonl" 2>/dev/null && [ $i -lt 450 ]; do sleep 0.1; i=$((i + 1)); done
kill -CONT $stall_srv 2>/dev/null
waited=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    m = json.loads(l)["measured"]
    if json.loads(l)["line"] == 2: print("%.0f %s" % (m["request_ms"], m["error"]))' "$tmp/stall.jsonl" 2>/dev/null)
ms=${waited%% *}
if [ -n "$ms" ] && [ "$ms" -ge 30000 ] && [ "$ms" -lt 36000 ] && echo "$waited" | grep -q "sent nothing about this request for 30 s"; then
    ok "a server that stalls after answering: the waiting request failed after $ms ms: ${waited#* }"
else
    bad "a server that stalls after answering: '$waited' $(head -c 200 "$tmp/stall.err")"
fi

# (with BANKLAB=build/asan/banklab: the servers and clients ran clean)
if grep -l "Sanitizer\|runtime error" "$tmp"/*.err > "$tmp/san.list" 2>/dev/null; then
    bad "sanitizer reports in $(cat "$tmp/san.list" | tr '\n' ' '): $(grep -h -m2 "Sanitizer\|runtime error" $(cat "$tmp/san.list"))"
fi
echo "bl30mal's flood, its last count: $(tail -n 1 "$tmp/flood.out" 2>/dev/null)"
echo "serve_hostile_users.sh: $pass passed, $fail failed"
[ $fail = 0 ]
