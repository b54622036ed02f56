#!/bin/sh
# lock.sh: the per-device measurement lock on a real GPU. While another process holds the
# device's turn (tests/gpu/lockhold.c, built here), `banklab sim --gpu` waits and says how long,
# and the tutorial's results panel says "waiting for the GPU (N s, K ahead)" and then shows the
# numbers; a planted symlink at the lock's path is refused and banklab measures without turns,
# saying so. Needs a GPU (SKIP, exit 77, without), cc and python3 (the tutorial runs in a pty).
# Env: BANKLAB, CC, LOCKHOLD (a prebuilt lockhold), LOCK_OUT (keep the logs there).
set -u
# the kernels must run in this process (under the tool / with this process's lock), not in
# a GPU server (banklab serve) that another banklab started
export BANKLAB_NO_SERVER=1
B=${BANKLAB:-build/banklab}
case $B in /*) ;; *) B=$PWD/$B ;; esac
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
. "$dir/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/banklab-lock.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=${LOCK_OUT:-$tmp}
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["measured"][sys.argv[2]]; print(v)' "$1" "$2"; }

"$B" sim '__shared__ float s[64]; s[lane]' --gpu --json > "$tmp/probe.json" 2> "$tmp/probe.err"
rc=$?
[ $rc = 3 ] && { echo "SKIP: no GPU: $(cat "$tmp/probe.err")"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: lock.sh needs python3"; exit 77; }
lock=$(field "$tmp/probe.json" lock)
case $lock in
    "turns through "*) ok "sim --gpu takes turns: $lock" ;;
    *) bad "sim --gpu does not take turns: '$lock'"; exit 1 ;;
esac
key=$(basename "${lock#turns through }" .lock)
key=${key#banklab-}
LH=${LOCKHOLD:-}
if [ -z "$LH" ]; then
    LH=$tmp/lockhold
    lockhold_build "$LH" "$root" || { bad "cannot build lockhold"; exit 1; }
fi

# hold: LOCKHOLD SECONDS in the background, wait until it holds the turn
hold() {
    "$LH" "$key" "$1" > "$tmp/hold.out" 2>&1 &
    hold_pid=$!
    i=0
    while ! grep -q held "$tmp/hold.out" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

# 1. sim waits for the turn and says how long (its start-up reads the clock in a turn of its
# own, so the wait falls there or on the measurement)
hold 3
"$B" sim '__shared__ float s[1024]; s[lane * 32]' --gpu --json > "$tmp/wait.json" 2> "$tmp/wait.err"
rc=$?
wait "$hold_pid"
w=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["measured"]; print(round(m["wait_ms"] + m["open_ms"]))' "$tmp/wait.json")
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
check "sim --gpu behind a held turn: exit 0 ($rc), counters $(field "$tmp/wait.json" wavefronts)" test "$rc" = 0
check "it waited for the turn (start-up and request: $w ms; the holder kept it 3 s)" \
    awk -v w="$w" 'BEGIN { exit !(w >= 2000 && w < 10000) }'
hold 2
"$B" sim '__shared__ float s[1024]; s[lane]' --gpu > "$tmp/wait.txt" 2>&1
wait "$hold_pid"
check "the text says so: $(grep -E "start-up" "$tmp/wait.txt")" grep -qE "start-up: [1-9][0-9.]* s" "$tmp/wait.txt"

# 2. the tutorial says "waiting for the GPU" while a parameter change waits, then the numbers
python3 - "$B" "$root/tests/sh/tui_fixtures/lessons" "$LH" "$key" "$tmp/tui.log" <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios, time, select
b, lessons, lh, key, log = sys.argv[1:]
env = dict(os.environ, TERM="xterm", HOME=os.path.dirname(log), XDG_STATE_HOME=os.path.dirname(log), LANG="C.UTF-8")
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execve(b, [b, "--lessons", lessons, "--lang", "en", "--reset", "--chapter", "1", "--step", "2"], env)
buf = b""
def read_for(secs, want=None, since=0):
    global buf
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                break
        if want and want in buf[since:]:
            return True
    return want is None
ok = read_for(60, b"ns/access")                   # the first measurement arrived (the measured line)
mark = len(buf)
h = subprocess.Popen([lh, key, "4"], stdout=subprocess.PIPE, text=True)
h.stdout.readline()                                # "held"
os.write(fd, b"P")                                 # PAD + 1 (Shift = more): a new measurement
waiting = read_for(3.5, b"waiting for the GPU (", mark)
h.wait()
mark2 = len(buf)
after = read_for(30, b"ns/access", mark2)
os.write(fd, b"q")
read_for(2)
os.waitpid(pid, 0)
open(log, "wb").write(buf)
print("first measurement %s; while the turn was held: %s; after: %s" % (
    "shown" if ok else "MISSING", "'waiting for the GPU' shown" if waiting else "NO 'waiting for the GPU'",
    "numbers shown" if after else "NO numbers"))
sys.exit(0 if ok and waiting and after else 1)
PY
if [ $? = 0 ]; then ok "the tutorial says 'waiting for the GPU', then shows the numbers"; else bad "the tutorial's waiting state (log: $out/tui.log)"; cp "$tmp/tui.log" "$out/" 2>/dev/null; fi

# 3. banklab kernel measures a learner's kernel in the device's turn too (its measuring process)
hold 2
"$B" kernel "$root/assets/kernels/strided.cu" --json --no-server > "$tmp/kernel.json" 2> "$tmp/kernel.err"
rc=$?
wait "$hold_pid"
kw=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(round(j["timing_ms"]["wait"]), j["lock"])' "$tmp/kernel.json" 2>/dev/null)
case "$rc:$kw" in
    0:*"measured in the device's turn") w=${kw%% *}
        check "banklab kernel waited for the turn ($w ms; the holder kept it 2 s)" \
            awk -v w="$w" 'BEGIN { exit !(w >= 1000 && w < 10000) }' ;;
    *) bad "banklab kernel behind a held turn: exit $rc, '$kw': $(head -c 300 "$tmp/kernel.err")" ;;
esac

# 4. a symlink planted at the lock's path: refused, measured without turns, said so
mkdir -p "$tmp/plant"
ln -s "$tmp/victim" "$tmp/plant/banklab-$key.lock"
BANKLAB_LOCK_DIR="$tmp/plant" "$B" sim '__shared__ float s[64]; s[lane]' --gpu --json > "$tmp/plant.json" 2>&1
rc=$?
l=$(field "$tmp/plant.json" lock)
case "$rc:$l" in
    0:*"without turns"*"symbolic link"*) ok "planted symlink: measured anyway and said: $l" ;;
    *) bad "planted symlink: exit $rc, lock '$l'" ;;
esac
check "the link's target was not created" test ! -e "$tmp/victim"
exit $fail
