#!/bin/sh
# run_fifo.sh: `banklab run` against its own program, without a GPU: a program that leaves a
# FIFO (or a link) at its results path is told about, not waited for (banklab hung forever in
# open() before); INT and QUIT sent to banklab while the program runs end the program and
# banklab (exit 130, 131) with its directory removed (both were ignored before: ^C did nothing
# while banklab waited). Env: BANKLAB.
set -u
. tests/sh/lib.sh run_fifo.sh
B=$BANKLAB
sandbox
lib=$(dirname "$B")/libbanklab_inject.so
[ -f "$lib" ] || { echo "SKIP: no $lib (a GPU=none build has no banklab run)"; exit 77; }
command -v mkfifo > /dev/null 2>&1 || { echo "SKIP: no mkfifo"; exit 77; }
export TMPDIR="$tmp/t" BANKLAB_RUN_NO_GPU_CHECK=1 BANKLAB_INJECT="$lib" CUDA_VISIBLE_DEVICES=
mkdir -p "$TMPDIR"

for what in fifo link; do
    case $what in
    fifo) prog='rm -f "$BANKLAB_RUN_DIR/results"; mkfifo "$BANKLAB_RUN_DIR/results"' ;;
    link) prog='rm -f "$BANKLAB_RUN_DIR/results"; mkfifo "$BANKLAB_RUN_DIR/f"; ln -s f "$BANKLAB_RUN_DIR/results"' ;;
    esac
    s=$(date +%s)
    timeout 20 "$B" run -- sh -c "$prog" > "$tmp/out" 2> "$tmp/err"
    rc=$? took=$(($(date +%s) - s))
    [ $rc != 124 ] && [ $took -le 5 ] && grep -q "other than a regular file at its results path" "$tmp/err" &&
        ok "a $what at the results path: said, not waited for (exit $rc, $took s)" ||
        fail "a $what at the results path: exit $rc after $took s: $(head -c 300 "$tmp/err")"
    [ -z "$(ls -A "$TMPDIR")" ] && ok "a $what: the directory removed" ||
        { fail "a $what: left $(ls -A "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; }
done

# INT and QUIT to banklab (a shell starts background jobs with INT and QUIT ignored: env
# gives them their defaults back, as a terminal's foreground job has them)
for sig in INT QUIT; do
    env --default-signal=INT,QUIT "$B" run -- sleep 8 > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    n=0; while [ -z "$(ls -A "$TMPDIR")" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
    sleep 0.3
    s=$(date +%s%N)
    kill -$sig $pid
    wait $pid
    rc=$? ms=$((($(date +%s%N) - s) / 1000000))
    case $sig in INT) want=130 ;; *) want=131 ;; esac
    [ $rc = $want ] && [ $ms -lt 3000 ] && ok "$sig to banklab run: ended (exit $rc) in $ms ms" ||
        fail "$sig to banklab run: exit $rc after $ms ms"
    [ -z "$(ls -A "$TMPDIR")" ] && ok "$sig: the directory removed" ||
        { fail "$sig: left $(ls -A "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; }
done

finish
