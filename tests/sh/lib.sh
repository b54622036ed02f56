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
