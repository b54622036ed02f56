# lib.sh: what the shell suites of tests/sh share. Source it from the repository's root after
# `set -u`: `. tests/sh/lib.sh NAME` (NAME: the suite, for messages).
#   BANKLAB    the binary (default build/banklab), made absolute; the suite fails without it
#   root, tmp  the repository's root; a fresh directory, removed at exit (add to `cleanup`
#              by defining suite_cleanup before sourcing)
#   ok, fail   count a passed / failed check (fail prints "FAIL: ...", ok "ok   ..." when
#              given a text); finish prints
#              "NAME: N passed, M failed" and exits 0 when none failed, 1 else
#   sandbox    a private HOME and XDG directories under $tmp, LANG=C.UTF-8, and none of the
#              variables that would point banklab elsewhere
#   json_check FILE PATH=VALUE...  (FILE - reads stdin): each PATH (keys and list indexes by
#              dots, e.g. passes.0.cost) holds VALUE (JSON text; strings bare); prints what
#              differs and returns 1
#   json_get FILE PATH   prints the value at PATH (strings bare, others as JSON)
# Suites that play other Unix users (root only; CI runs as root):
#   users_need "CMD..." USER...  root, useradd, setpriv, each CMD and each USER (made by
#              useradd when missing), or SKIP (exit 77) saying what is missing
#   users_home USER...   $tmp/home-USER for each, the user's own (its run/ mode 0700)
#   as_user USER LOCKDIR CMD...  CMD as USER (no supplementary groups) in $tmp with nothing of
#              our environment but PATH: HOME, XDG_STATE_HOME, XDG_CACHE_HOME and
#              XDG_RUNTIME_DIR under $tmp/home-USER, LANG=C.UTF-8, TERM=xterm-256color, no
#              device, no warm measuring process, the fake GPU server, the lock directory given
#   users_kill "PIDS" USER...    ends the processes PIDS and every process of the users whose
#              command line names $tmp, by id: TERM, then KILL 0.2 s later
lib_name=${1:-$(basename "$0")}
: "${BANKLAB:=build/banklab}"
case $BANKLAB in /*) ;; *) BANKLAB=$(pwd)/$BANKLAB ;; esac
[ -x "$BANKLAB" ] || { echo "$lib_name: no binary at $BANKLAB"; exit 1; }
root=$(pwd)
tmp=$(mktemp -d) || exit 1
cleanup() { command -v suite_cleanup >/dev/null 2>&1 && suite_cleanup; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
nfail=0 npass=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
ok() { npass=$((npass + 1)); [ $# -eq 0 ] || echo "ok   $*"; }
finish() { echo "$lib_name: $npass passed, $nfail failed"; [ "$nfail" -eq 0 ] && exit 0; exit 1; }
sandbox() {
    export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" LANG=C.UTF-8
    unset LC_ALL LC_MESSAGES XDG_CONFIG_HOME BANKLAB_LESSONS NO_COLOR
    mkdir -p "$HOME"
}
LIB_JSON='
import json, sys
f = sys.argv[2]
d = json.load(sys.stdin if f == "-" else open(f, encoding="utf-8"))
def at(k):
    cur = d
    for part in k.split(".") if k else []:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return cur
def text(v):
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
if sys.argv[1] == "get":
    print(text(at(sys.argv[3])))
    sys.exit(0)
bad = []
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    try:
        s = text(at(k))
    except (KeyError, IndexError, ValueError, TypeError):
        bad.append("%s: missing" % k)
        continue
    if s != v:
        bad.append("%s: got %.200s, want %s" % (k, s, v))
if bad:
    print("; ".join(bad))
    sys.exit(1)
'
json_check() { f=$1; shift; python3 -c "$LIB_JSON" check "$f" "$@"; }
json_get() { python3 -c "$LIB_JSON" get "$1" "$2"; }

users_need() {
    lib_cmds=$1
    shift
    [ "$(id -u)" = 0 ] || { echo "SKIP: playing other Unix users needs root to create them (CI runs as root)"; exit 77; }
    for c in useradd setpriv $lib_cmds; do
        command -v "$c" >/dev/null 2>&1 || { echo "SKIP: no $c here"; exit 77; }
    done
    for u in "$@"; do
        id "$u" >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh "$u" 2>/dev/null ||
            { echo "SKIP: useradd $u failed"; exit 77; }
    done
}
users_home() {
    for u in "$@"; do
        mkdir -p "$tmp/home-$u/run" && chmod 700 "$tmp/home-$u/run" && chown -R "$u" "$tmp/home-$u" || return 1
    done
}
as_user() {
    u=$1 ld=$2
    shift 2
    (cd "$tmp" && exec setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups \
        env -i PATH="$PATH" HOME="$tmp/home-$u" XDG_STATE_HOME="$tmp/home-$u/state" \
        XDG_CACHE_HOME="$tmp/home-$u/cache" XDG_RUNTIME_DIR="$tmp/home-$u/run" LANG=C.UTF-8 \
        TERM=xterm-256color CUDA_VISIBLE_DEVICES= BANKLAB_KERNEL_SERVER=0 \
        BANKLAB_LOCK_DIR="$ld" BANKLAB_SERVE_FAKE=1 "$@")
}
users_kill() {
    lib_pids=$1
    shift
    for sig in TERM KILL; do
        for p in $lib_pids; do kill -s $sig "$p" 2>/dev/null; done
        for u in "$@"; do
            for p in $(pgrep -u "$u" -f "$tmp" 2>/dev/null); do kill -s $sig "$p" 2>/dev/null; done
        done
        [ $sig = KILL ] || sleep 0.2
    done
}
