#!/bin/sh
# tui_serve.sh: the tutorial measuring through a GPU server (`--server SOCKET`, banklab serve
# on its fake device: the model's numbers). The step's access is answered by the server and
# labelled with its device; the server killed with SIGKILL while the learner changes the
# parameter: the panel says "reconnecting to the GPU server", and once a server listens
# again the new access's numbers arrive without a key. A repeat that the server's cache
# answers says how long ago it was measured.
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons
S="$TMP/gpu.sock"
srv=
serve() {
    "$BANKLAB" serve --fake --fake-delay "$1" --cache "${2:-0}" --socket "$S" 2> "$TMP/serve.err" &
    srv=$!
    i=0
    while [ ! -S "$S" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    [ -S "$S" ] || fail "the server did not start: $(cat "$TMP/serve.err")"
}
trap 'kill $srv 2>/dev/null; tui_cleanup' EXIT

serve 5
start 100 30 -- --lessons $FIX --lang en --reset --server "$S" --chapter 1 --step 2
expect " 1\\.2/5 "
# the fixture's step 1.2: s[lane][0] of float s[32][32 + PAD], PAD=0: a 32-way conflict
expect "measured +32\\.0 wavefronts"
expect "fake device"
kill -9 "$srv"
wait "$srv" 2>/dev/null
keys P
expect "PAD=1 "
expect "reconnecting to the GPU server \\([0-9]+ s\\)" 5
serve 5 60
expect "measured +1\\.0 wavefronts" 10
keys p
expect "PAD=0 "
expect "measured +32\\.0 wavefronts" 10
keys P
expect "PAD=1 "
expect "[0-9]+ s ago \\(the GPU server's cache\\)" 10
keys q
expect "EXITED rc=0"
kill "$srv" 2>/dev/null
echo "tui_serve.sh: ok"
