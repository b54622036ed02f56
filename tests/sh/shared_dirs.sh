#!/bin/sh
# shared_dirs.sh: two Unix users on one machine. In a shared sticky directory bob
# plants links, FIFOs and files under the names alice's banklab will write (the report's .md
# and .json, a --svg picture); alice's banklab must refuse them and leave bob's targets (her
# own files) untouched, while her own link and a fresh name still work. bob's world-writable
# directory as alice's XDG_CACHE_HOME: `banklab kernel` must not use it and must not follow
# the KEY.cubin.*.tmp links bob planted there (nor one of alice's own that is open to others).
# (A second name of the GPU lock file: tests/unit/test_devlock.c.) Needs root to create the
# users (CI runs as root): otherwise SKIP (77). Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
case $BANKLAB in /*) B=$BANKLAB ;; *) B=$(pwd)/$BANKLAB ;; esac
[ -x "$B" ] || { echo "shared_dirs.sh: no binary at $B"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: creating two users needs root (CI runs as root)"; exit 77; }
for c in useradd setpriv; do
    command -v $c >/dev/null 2>&1 || { echo "SKIP: no $c here"; exit 77; }
done
for u in bl19alice bl19bob; do
    id "$u" >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh "$u" 2>/dev/null ||
        { echo "SKIP: useradd $u failed"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# the users run a copy of the binary from $tmp, in $tmp: the clone itself may be in a
# directory they cannot enter (a home of mode 0750, a `mktemp -d`)
mkdir "$tmp/bin" && cp "$B" "$tmp/bin/banklab" && chmod 755 "$tmp/bin" "$tmp/bin/banklab" || exit 1
B=$tmp/bin/banklab
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }

# as USER CMD...: CMD as USER (own HOME, state and cache directories under $tmp)
as() {
    u=$1
    shift
    (cd "$tmp" && exec setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups \
        env HOME="$tmp/home-$u" XDG_STATE_HOME="$tmp/home-$u/state" \
        XDG_CACHE_HOME="$tmp/home-$u/cache" XDG_RUNTIME_DIR="$tmp/home-$u/run" \
        CUDA_VISIBLE_DEVICES= BANKLAB_KERNEL_SERVER=0 "$@")
}
for u in bl19alice bl19bob; do
    mkdir -p "$tmp/home-$u/run" && chmod 700 "$tmp/home-$u/run" && chown -R "$u" "$tmp/home-$u"
done
A=$tmp/home-bl19alice
shared=$tmp/shared
mkdir "$shared" && chmod 1777 "$shared"
printf 'precious\n' > "$A/important" && printf 'victim\n' > "$A/victim"
printf 'victim\n' > "$A/victim2" && printf 'victim\n' > "$A/victim3"
chown bl19alice "$A/important" "$A/victim" "$A/victim2" "$A/victim3"
untouched() { # NAME FILE WANT
    if [ "$(cat "$2")" = "$3" ]; then ok "$1"; else bad "$1: $2 now holds $(head -c 60 "$2" | od -c | head -2)"; fi
}

# ---- 1. the report into a shared sticky directory: bob's links are not followed ----
day=$(date +%F)
as bl19bob ln -s "$A/important" "$shared/banklab-report-$day.md"
as bl19bob ln -s "$A/victim" "$shared/banklab-report-$day.json"
as bl19alice "$B" report --out "$shared" --no-gpu > "$tmp/out" 2> "$tmp/err"
rc=$?
untouched "report: bob's .md link to alice's file is not followed" "$A/important" precious
untouched "report: bob's .json link to alice's file is not followed" "$A/victim" victim
if [ $rc = 2 ] && grep -q "another user" "$tmp/err"; then ok "report: refused with the reason (exit 2)"
else bad "report: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi
# her own link in her own directory still works: the file it names is replaced
mkdir "$A/out" && chown bl19alice "$A/out"
as bl19alice sh -c "printf old > '$A/target.md'; ln -s '$A/target.md' '$A/out/banklab-report-$day.md'"
as bl19alice "$B" report --out "$A/out" --no-gpu --format md > /dev/null 2> "$tmp/err"
if [ -L "$A/out/banklab-report-$day.md" ] && grep -q "^# " "$A/target.md"; then ok "report: alice's own link is followed"
else bad "report: own link: $(cat "$tmp/err")"; fi

# ---- 1. sim --svg: a link, a FIFO and a file of bob's in the shared directory ----
P='__shared__ float s[64]; s[lane]'
as bl19bob ln -s "$A/victim" "$shared/pic.svg"
as bl19alice "$B" sim "$P" --svg "$shared/pic.svg" > /dev/null 2> "$tmp/err"
rc=$?
untouched "sim --svg: bob's link is not followed" "$A/victim" victim
[ $rc = 2 ] && grep -q "symbolic link of another user" "$tmp/err" && ok "sim --svg: refused (exit 2)" ||
    bad "sim --svg link: exit $rc: $(cat "$tmp/err")"
as bl19bob mkfifo -m 666 "$shared/fifo.svg"
as bl19bob sh -c "exec 3<>'$shared/fifo.svg'; sleep 3" &
rdr=$!
sleep 0.5
as bl19alice "$B" sim "$P" --svg "$shared/fifo.svg" > /dev/null 2> "$tmp/err"
rc=$?
wait $rdr 2>/dev/null
[ $rc = 2 ] && grep -q "FIFO of another user" "$tmp/err" && ok "sim --svg: bob's FIFO is not written to" ||
    bad "sim --svg FIFO: exit $rc: $(cat "$tmp/err")"
as bl19alice "$B" sim "$P" --svg "$shared/mine.svg" > /dev/null 2> "$tmp/err" &&
    grep -q "<svg" "$shared/mine.svg" && ok "sim --svg: a new name in the shared directory is written" ||
    bad "sim --svg new: $(cat "$tmp/err")"
left=$(find "$shared" -name '*.tmp-*' | wc -l)
[ "$left" = 0 ] && ok "no temporary files left" || bad "$left temporary files left in $shared"

# ---- 2. the kernel cache in bob's world-writable directory ----
if "$B" kernel --help 2>&1 | grep -q . && ! CUDA_VISIBLE_DEVICES= "$B" kernel assets/kernels/strided.cu 2>&1 |
        grep -q "GPU=none"; then
    evil=$tmp/bobcache
    mkdir -p "$evil/banklab/kernels" && chown -R bl19bob "$evil"
    chmod 777 "$evil" "$evil/banklab" "$evil/banklab/kernels"
    cp assets/kernels/strided.cu "$A/k.cu" && chown bl19alice "$A/k.cu"
    # the name of the entry is the key's hash: learn it from a run in a cache of alice's own
    as bl19alice "$B" kernel "$A/k.cu" > /dev/null 2>&1
    key=$(ls "$A/cache/banklab/kernels" 2>/dev/null | sed -n 's/\.cubin$//p' | head -n 1)
    if [ -z "$key" ]; then bad "kernel: no cache entry in alice's own cache"; else
        ok "kernel: alice's own cache holds $key.cubin"
        # the old code wrote KEY.cubin.PID.tmp with O_TRUNC: plant the next 2000 pids (one
        # process, so that planting uses no pids of the range)
        last=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo 1)
        as bl19bob perl -e 'for my $p ($ARGV[0] .. $ARGV[0] + 2000) {
            symlink($ARGV[1], "$ARGV[2].$p.tmp") }' "$last" "$A/victim2" "$evil/banklab/kernels/$key.cubin" ||
            echo "(no perl: the .tmp links are not planted)"
        as bl19alice env XDG_CACHE_HOME="$evil" "$B" kernel "$A/k.cu" > /dev/null 2> "$tmp/err"
        untouched "kernel: bob's .tmp links in the cache are not followed" "$A/victim2" victim
        grep -q "cache" "$tmp/err" && grep -q "belongs to uid\|open to others" "$tmp/err" &&
            ok "kernel: the shared cache directory is refused with the reason" ||
            bad "kernel: no reason given: $(head -c 300 "$tmp/err")"
        [ ! -e "$evil/banklab/kernels/$key.cubin" ] && ok "kernel: nothing cached in bob's directory" ||
            bad "kernel: a cubin was written into bob's directory"
        # alice's own directory, but open to others: refused too, and the reason says chmod
        mkdir -p "$A/opencache/banklab/kernels" && chown -R bl19alice "$A/opencache"
        chmod 777 "$A/opencache/banklab/kernels"
        as bl19alice env XDG_CACHE_HOME="$A/opencache" "$B" kernel "$A/k.cu" > /dev/null 2> "$tmp/err"
        grep -q "open to others (mode 777; chmod 700 it)" "$tmp/err" && ok "kernel: a cache directory open to others is refused" ||
            bad "kernel: open cache: $(head -c 300 "$tmp/err")"
    fi
else
    echo "skip kernel cache part: this banklab cannot compile kernels"
fi

echo "shared_dirs.sh: $pass passed, $fail failed"
[ $fail = 0 ]
