#!/bin/sh
# gpu_nodevice.sh: the no-device path (CI has no GPU). `banklab bench` and `banklab verify`
# (plain, --json, --csv, --quick, --device N) and `banklab sim ... --gpu` (--offsets or a
# pattern, one access or two, text or --json) must print exactly one line on stderr, nothing
# on stdout, and exit 3; bad options exit 2 before looking for a GPU. On a machine with a
# usable GPU this suite SKIPs (77): `make test-gpu` covers that path. Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
[ -x "$BANKLAB" ] || { echo "gpu_nodevice.sh: no binary at $BANKLAB"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$BANKLAB" bench --quick > "$tmp/out" 2> "$tmp/err"
if [ $? != 3 ]; then
    echo "gpu_nodevice.sh: SKIP: a GPU answered (make test-gpu tests that path)"
    exit 77
fi
fail=0
# tests/gpu/lock.sh's helper must build here too (a GPU machine is the wrong place to find out)
. tests/gpu/lib.sh
if lockhold_build "$tmp/lockhold" . 2> "$tmp/cc.err"; then
    echo "ok   tests/gpu/lockhold.c builds with the lock's sources"
else
    echo "FAIL: tests/gpu/lockhold.c does not build: $(tail -n 3 "$tmp/cc.err")"
    fail=1
fi
offs=$(seq -s, 0 128 3968)
pattern='__shared__ float s[1024]; s[lane * 32]'
for args in "bench" "bench --json" "bench --csv" "bench --quick" "bench --device 3" \
            "verify" "verify --json" "verify --device 1" "verify --timing" \
            "sim --offsets $offs --gpu" "sim --offsets $offs --gpu --json" \
            "sim --offsets $offs --gpu --device 2" "sim --offsets $offs --store --gpu --json" \
            "sim PATTERN --gpu" "sim PATTERN --gpu --json" "sim TWO --gpu"; do
    # shellcheck disable=SC2086
    set -f; set -- $args; set +f
    case ${2:-} in     # a pattern is one argument with spaces
        PATTERN) a1=$1; shift 2; set -- "$a1" "$pattern" "$@" ;;
        TWO) a1=$1; shift 2; set -- "$a1" '__shared__ float s[64]; s[lane]; s[lane * 2]' "$@" ;;
    esac
    "$BANKLAB" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ $rc != 3 ] || [ "$lines" != 1 ] || [ -s "$tmp/out" ]; then
        echo "FAIL: banklab $args: exit $rc (want 3), $lines stderr lines (want 1), stdout $(wc -c < "$tmp/out") bytes (want 0)"
        sed 's/^/    /' "$tmp/err"
        fail=1
    else
        echo "ok   banklab $args -> 3: $(cat "$tmp/err")"
    fi
done
grep -q -i -E "no GPU: (no CUDA|built without CUDA|driver too old)" "$tmp/err" ||
    { echo "FAIL: the reason does not say what is missing: $(cat "$tmp/err")"; fail=1; }
for args in "bench --bogus" "bench --json --csv" "verify --device x" "verify --lessons /nonexistent/dir" \
            "sim --offsets $offs --device 1" "sim --offsets $offs --gpu --device 99"; do
    # shellcheck disable=SC2086
    "$BANKLAB" $args > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc != 2 ]; then
        echo "FAIL: banklab $args: exit $rc (want 2)"
        fail=1
    else
        echo "ok   banklab $args -> 2"
    fi
done
exit $fail
