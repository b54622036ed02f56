#!/bin/sh
# run.sh: `banklab run` without a GPU (CUDA_VISIBLE_DEVICES= hides any): `banklab run -- true`
# exits 3 with one line saying measuring needs a GPU; bad usage exits 2; a profiler that is
# injected already is named in one line (exit 3); the injection library is built beside the
# binary, exports InitializeInjection alone, and, loaded outside a CUDA program, writes its
# hello and one note to the results file instead of crashing. Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
B=$BANKLAB
[ -x "$B" ] || { echo "run.sh: no binary at $B"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export CUDA_VISIBLE_DEVICES=
unset CUDA_INJECTION64_PATH
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }
run() { # NAME WANT_RC ARGS...
    name=$1 want=$2
    shift 2
    "$B" run "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
one_line() { # NAME PATTERN: one line on stderr matching PATTERN, nothing on stdout
    n=$(wc -l < "$tmp/err")
    if [ "$n" = 1 ] && [ ! -s "$tmp/out" ] && grep -q -E "$2" "$tmp/err"; then ok "$1"; else
        bad "$1: $n stderr lines, $(wc -c < "$tmp/out") stdout bytes"; sed 's/^/    /' "$tmp/err" | head -5; fi
}

run "banklab run -- true without a GPU" 3 -- true
one_line "one line: measuring needs a GPU" "^banklab run: measuring a program needs a GPU: no CUDA (driver|device)"
run "without -- as well" 3 true
one_line "the same line" "measuring a program needs a GPU"
run "--json without a GPU" 3 --json -- true
one_line "--json: the same one line" "measuring a program needs a GPU"
run "no program" 2
run "--launch-skip not a count" 2 --launch-skip x -- true
run "--launch-count negative" 2 --launch-count -1 -- true
run "--kernel not a regular expression" 2 --kernel '(' -- true
run "an unknown option" 2 --frobnicate -- true
CUDA_INJECTION64_PATH=/opt/other/libinject.so "$B" run -- true > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 3 ] && ok "another profiler injected: exit 3" || bad "another profiler injected: exit $rc"
one_line "another profiler: one line naming it" "another profiler is injected already \\(CUDA_INJECTION64_PATH=/opt/other/libinject.so\\)"
"$B" run --help > "$tmp/out" 2>&1 && grep -q -- "--launch-count" "$tmp/out" && ok "--help" || bad "--help"

lib=$(dirname "$B")/libbanklab_inject.so
if grep -q "GPU=cuda" "$(dirname "$B")/flags.stamp" 2>/dev/null || [ -f "$lib" ]; then
    if [ -f "$lib" ]; then ok "the injection library is built beside the binary"; else bad "no $lib"; fi
    syms=$(nm -D --defined-only "$lib" 2>/dev/null | awk '{print $3}' | tr '\n' ' ')
    [ "$syms" = "InitializeInjection " ] && ok "it exports InitializeInjection alone" || bad "exports: $syms"
    if command -v python3 > /dev/null 2>&1; then
        mkdir -p "$tmp/res" && : > "$tmp/res/results"
        # outside a CUDA program (no driver here): a hello and one note, no crash
        BANKLAB_RUN_DIR="$tmp/res" python3 -c "import ctypes; ctypes.CDLL('$lib').InitializeInjection()"
        rc=$?
        [ "$rc" = 0 ] && ok "loaded outside a program: no crash" || bad "loaded outside a program: exit $rc"
        head -c 4 "$tmp/res/results" | grep -q OLEH && ok "it says hello in the results file" || bad "no hello frame"
        grep -q "not measured: libcuda.so.1 not found" "$tmp/res/results" && ok "and one note why nothing is measured" || bad "no note"
        # no BANKLAB_RUN_DIR: it stays out of the way
        env -u BANKLAB_RUN_DIR python3 -c "import ctypes; ctypes.CDLL('$lib').InitializeInjection()" \
            && ok "without BANKLAB_RUN_DIR it does nothing" || bad "without BANKLAB_RUN_DIR"
    fi
else
    echo "skip the injection library: GPU=none build"
fi
echo "run.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
