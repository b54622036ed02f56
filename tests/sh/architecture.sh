#!/bin/sh
# architecture.sh: the rooms of docs/architecture.md kept true. The table between
# "<!-- rooms:begin -->" and "<!-- rooms:end -->" has one row per folder of src/: its floor
# and its one job (written by hand), then columns this script makes: the room's files, its
# lines, its share of src/ and the rooms it calls (from the last CUDA build's objects, `nm`,
# as tests/sh/house.sh reads them). The table between "<!-- before:begin -->" and
# "<!-- before:end -->" holds each room's lines at BEFORE (the commit before the house:
# src/gpu then held five subsystems) and now.
#   sh tests/sh/architecture.sh           fails (exit 1) when a made column is stale, a room
#                                         has no row or a row no room; prints what differs
#   sh tests/sh/architecture.sh --write   rewrites the made columns (floors and jobs kept)
# The calls column is compared only after a CUDA build (GPU=cuda: every object built);
# the "at BEFORE" column only where git has that commit; otherwise the document's figures
# stand. First it checks itself: a stale line count and a missing room must be found.
# Env: BUILD (default build). Exit 0 pass, 1 fail.
set -u
: "${BUILD:=build}"
DOC=${DOC:-docs/architecture.md}
BEFORE=14e62d2
write=0
[ "${1:-}" = --write ] && write=1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# files_of DIR: the files of a source tree (tracked ones where git knows them)
files_of() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -n "$(git ls-files "$1" | head -n 1)" ]; then
        { git ls-files "$1"; git ls-files -o --exclude-standard "$1"; } | sort -u
    else
        find "$1" -type f | sort
    fi
}

# room_lines SRC: "ROOM FILES LINES" for each folder of SRC
room_lines() {
    for d in "$1"/*/; do
        [ -d "$d" ] || continue
        r=$(basename "$d")
        list=$(files_of "${d%/}")
        [ -n "$list" ] || continue
        n=$(echo "$list" | wc -l)
        l=$(cat $list | wc -l)
        echo "$r $n $l"
    done
}

# room_calls NMFILE: "ROOM CALLED,CALLED..." from `nm -A -P -g` of the rooms' archives
room_calls() {
    awk '
    function room(s,   r) { r = s; sub(/\[.*/, "", r); sub(/.*\//, "", r); sub(/\.a$/, "", r); return r }
    NR == FNR { if ($3 != "U" && $3 != "w" && $3 != "v") def[$2] = room($1); next }
    $3 == "U" && ($2 in def) { f = room($1); t = def[$2]; if (f != t) use[f, t] = 1; rooms[f] = 1; rooms[t] = 1 }
    END { for (f in rooms) { s = ""
              for (t in rooms) if ((f, t) in use) s = s "," t
              print f, (s == "" ? "-" : substr(s, 2)) } }
    ' "$1" "$1" | while read -r r c; do echo "$r $(echo "$c" | tr , '\n' | sort | paste -sd, -)"; done
}

# make_tables DOC LINES CALLS BEFORELINES: DOC with both tables made; LINES "ROOM FILES LINES",
# CALLS "ROOM LIST" (empty file: keep the document's), BEFORELINES "ROOM LINES" (empty: keep).
make_tables() {
    awk -v linesf="$2" -v callsf="$3" -v beforef="$4" -v before="$BEFORE" '
    function fmt(n,   s) { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    BEGIN {
        while ((getline l < linesf) > 0) { split(l, a, " "); files[a[1]] = a[2]; lines[a[1]] = a[3]; total += a[3]; have[a[1]] = 1 }
        while ((getline l < callsf) > 0) { split(l, a, " "); cl = a[2]; gsub(/,/, ", ", cl); calls[a[1]] = cl; ncalls++ }
        while ((getline l < beforef) > 0) { split(l, a, " "); old[a[1]] = a[2]; oldtotal += a[2]; nold++ }
    }
    /<!-- rooms:begin -->/ { print; inrooms = 1; hdr = 0; next }
    /<!-- rooms:end -->/ {
        for (r in have) if (!(r in seen)) print "| ? | " r " | (no row: give it a floor and a job) | " files[r] " | " fmt(lines[r]) " | " sprintf("%.1f %%", 100 * lines[r] / total) " | " (r in calls ? calls[r] : "-") " |"
        print "| | **src/** | | " tfiles() " | " fmt(total) " | 100 % | |"
        print; inrooms = 0; next }
    inrooms && /^\|/ {
        hdr++
        if (hdr <= 2 || $0 ~ /\*\*src\/\*\*/) { if (hdr <= 2) print; next }
        n = split($0, c, "|"); floor = trim(c[2]); r = trim(c[3]); job = trim(c[4]); oldcalls = trim(c[8])
        seen[r] = 1
        if (!(r in have)) { print "| " floor " | " r " | " job " | 0 | 0 | 0.0 % | (no such room) |"; next }
        print "| " floor " | " r " | " job " | " files[r] " | " fmt(lines[r]) " | " sprintf("%.1f %%", 100 * lines[r] / total) " | " (ncalls ? (r in calls ? calls[r] : "-") : oldcalls) " |"
        next }
    inrooms { print; next }
    /<!-- before:begin -->/ { print; inbefore = 1; bh = 0; next }
    /<!-- before:end -->/ {
        for (r in have) bout[r] = 1
        for (r in old) bout[r] = 1
        for (r in bout) { row[++nrow] = "| " r " | " (nold ? (r in old ? fmt(old[r]) : "-") : (r in keep ? keep[r] : "-")) " | " (r in have ? fmt(lines[r]) : "-") " |" }
        for (i = 2; i <= nrow; i++) for (k = i; k > 1 && row[k - 1] > row[k]; k--) { x = row[k]; row[k] = row[k - 1]; row[k - 1] = x }
        for (i = 1; i <= nrow; i++) print row[i]
        print "| **src/** | " (nold ? fmt(oldtotal) : keptold) " | " fmt(total) " |"
        print; inbefore = 0; next }
    inbefore && /^\|/ {
        bh++
        if (bh <= 2) { print; next }
        n = split($0, c, "|"); r = trim(c[2]); o = trim(c[3])
        if (r == "**src/**") { keptold = o; next }
        if (!(r in old) && !(r in have) && (nold || o == "-")) next
        bseen[r] = 1; bout[r] = 1
        if (!nold) keep[r] = o
        next }
    inbefore { print; next }
    { print }
    function tfiles(   r, t) { t = 0; for (r in files) t += files[r]; return t }
    ' "$1"
}

# ways SRC: "KEY COUNT" for each way of doing one thing the house wants done once, counted in
# the text of SRC's C and CUDA files with their comments taken out (gcc -fpreprocessed), the
# same on both trees: files that start processes, walk directories, set up signals, open
# libraries (dlopen), make sockets, hash with FNV-1a's basis of their own; getenv calls;
# lines with Chinese characters.
ways() {
    find "$1" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort | while read -r f; do
        gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null | sed "s|^|$f:|"
    done > "$tmp/ways.txt"
    w_files() { grep -E "$1" "$tmp/ways.txt" | cut -d: -f1 | sort -u | wc -l | tr -d ' '; }
    echo "spawn $(w_files '(^|[^_a-zA-Z0-9])(v?fork|posix_spawnp?) *\(')"
    echo "walk $(w_files '(^|[^_a-zA-Z0-9])(f?dopendir|opendir|nftw|scandir) *\(')"
    echo "signal $(w_files '(^|[^_a-zA-Z0-9])(sigaction|signal) *\(')"
    echo "dlopen $(w_files '(^|[^_a-zA-Z0-9])dlopen *\(')"
    echo "socket $(w_files '(^|[^_a-zA-Z0-9])socket *\(')"
    echo "fnv $(w_files '(1469598103934665603|0xcbf29ce484222325|2166136261|0x811c9dc5)')"
    echo "getenv $(grep -cE '(^|[^_a-zA-Z0-9])(secure_)?getenv *\(' "$tmp/ways.txt")"
    echo "zh $(grep -cP '[\x{4e00}-\x{9fff}\x{3000}-\x{303f}\x{ff00}-\x{ffef}]' "$tmp/ways.txt")"
}

# ways_table DOC NOW BEFORE: DOC with the table between "<!-- ways:begin -->" and
# "<!-- ways:end -->" made from NOW and BEFORE ("KEY COUNT"; BEFORE empty: the document's
# column kept)
ways_table() {
    awk -v nowf="$2" -v beforef="$3" -v before="$BEFORE" '
    BEGIN {
        while ((getline l < nowf) > 0) { split(l, a, " "); now[a[1]] = a[2] }
        while ((getline l < beforef) > 0) { split(l, a, " "); old[a[1]] = a[2]; nold++ }
        n = split("spawn walk signal dlopen socket fnv getenv zh", key, " ")
        what["spawn"] = "files that start a process (fork, vfork, posix_spawn)"
        what["walk"] = "files that walk a directory (opendir, fdopendir, scandir, nftw)"
        what["signal"] = "files that set up a signal (sigaction, signal)"
        what["dlopen"] = "files that open a library (dlopen: libcuda, CUPTI, NVRTC)"
        what["socket"] = "files that make a socket"
        what["fnv"] = "files with FNV-1a of their own (its offset basis)"
        what["getenv"] = "getenv calls"
        what["zh"] = "lines of C or CUDA with Chinese characters (comments left out)"
    }
    /<!-- ways:begin -->/ { print; inw = 1; next }
    /<!-- ways:end -->/ {
        print "| one way each | at " before " | now |"
        print "|---|---:|---:|"
        for (i = 1; i <= n; i++) print "| " what[key[i]] " | " (nold ? old[key[i]] : (key[i] in kept ? kept[key[i]] : "-")) " | " now[key[i]] " |"
        print; inw = 0; next }
    inw && /^\| / { split($0, c, "|"); t = c[2]; gsub(/^ +| +$/, "", t); o = c[3]; gsub(/ /, "", o)
                   for (i = 1; i <= n; i++) if (what[key[i]] == t) kept[key[i]] = o
                   next }
    inw { next }
    { print }
    ' "$1"
}

# ---- 0. it checks itself ----
mkdir -p "$tmp/self/src/a" "$tmp/self/src/b" "$tmp/self/src/c"
printf 'x\ny\n' > "$tmp/self/src/a/f.c"; printf 'x\n' > "$tmp/self/src/b/g.c"; printf 'z\n' > "$tmp/self/src/c/h.c"
cat > "$tmp/self/doc.md" <<'EOF'
<!-- rooms:begin -->
| floor | room | one job | files | lines | share | calls |
|---:|---|---|---:|---:|---:|---|
| 2 | a | the first | 1 | 2 | 66.7 % | b |
| 1 | b | the second | 1 | 1 | 33.3 % | - |
| | **src/** | | 2 | 3 | 100 % | |
<!-- rooms:end -->
EOF
(cd "$tmp/self" && room_lines src) > "$tmp/self/lines"
: > "$tmp/self/none"
make_tables "$tmp/self/doc.md" "$tmp/self/lines" "$tmp/self/none" "$tmp/self/none" > "$tmp/self/made"
grep -q '^| ? | c | (no row' "$tmp/self/made" || bad "self-check: room c without a row not found ($(cat "$tmp/self/made"))"
printf 'x\ny\nz\n' > "$tmp/self/src/a/f.c"; rm -rf "$tmp/self/src/c"
(cd "$tmp/self" && room_lines src) > "$tmp/self/lines"
make_tables "$tmp/self/doc.md" "$tmp/self/lines" "$tmp/self/none" "$tmp/self/none" > "$tmp/self/made"
grep -q '^| 2 | a | the first | 1 | 3 | 75.0 % | b |$' "$tmp/self/made" ||
    bad "self-check: a's new line count not made ($(cat "$tmp/self/made"))"
cmp -s "$tmp/self/made" "$tmp/self/doc.md" && bad "self-check: a stale table reads as current"

# ---- 1. the rooms now ----
[ -f "$DOC" ] || { echo "architecture.sh: no $DOC"; exit 1; }
grep -q '<!-- rooms:begin -->' "$DOC" || { bad "$DOC has no table of rooms (<!-- rooms:begin -->)"; }
room_lines src > "$tmp/lines"
: > "$tmp/calls"
# a CUDA build (the Makefile's flags stamp starts with GPU): every object of every room
if [ "$(cut -d' ' -f1 "$BUILD/flags.stamp" 2>/dev/null)" = cuda ] && command -v nm >/dev/null 2>&1; then
    for lib in "$BUILD"/lib/*.a; do
        r=$(basename "$lib" .a); [ -d "src/$r" ] && nm -A -P -g "$lib" 2>/dev/null
    done > "$tmp/nm"
    [ -f "$BUILD/obj/src/cli/main.o" ] && nm -A -P -g "$BUILD/obj/src/cli/main.o" 2>/dev/null |
        sed "s|^$BUILD/obj/src/cli/main.o:|$BUILD/lib/cli.a[main.o]:|" >> "$tmp/nm"
    room_calls "$tmp/nm" > "$tmp/calls"
    calls_note="calls from $BUILD"
else
    calls_note="calls not checked (no CUDA build in $BUILD)"
fi
: > "$tmp/before"
if git cat-file -e "$BEFORE^{commit}" 2>/dev/null; then
    mkdir -p "$tmp/old" && git archive "$BEFORE" src | tar -x -C "$tmp/old" &&
        (cd "$tmp/old" && room_lines src | awk '{ print $1, $3 }') > "$tmp/before"
    before_note="lines at $BEFORE from git"
else
    before_note="lines at $BEFORE as written (git does not have it)"
fi
ways src > "$tmp/ways_now"
: > "$tmp/ways_before"
[ -d "$tmp/old/src" ] && ways "$tmp/old/src" > "$tmp/ways_before"
make_tables "$DOC" "$tmp/lines" "$tmp/calls" "$tmp/before" > "$tmp/made0" &&
    ways_table "$tmp/made0" "$tmp/ways_now" "$tmp/ways_before" > "$tmp/made" &&
    grep -q '<!-- rooms:end -->' "$tmp/made" || { echo "architecture.sh: the tables could not be made"; exit 1; }
grep -q '<!-- ways:begin -->' "$DOC" || bad "$DOC has no table of the ways (<!-- ways:begin -->)"
if [ $write -eq 1 ]; then
    cmp -s "$tmp/made" "$DOC" || cp "$tmp/made" "$DOC"
    echo "architecture.sh: $DOC written ($calls_note; $before_note)"
    exit 0
fi
if ! cmp -s "$tmp/made" "$DOC"; then
    bad "$DOC is stale (sh tests/sh/architecture.sh --write, then check the floors and jobs):"
    diff "$DOC" "$tmp/made" | sed 's/^/    /'
fi
grep -q '^| ? | ' "$tmp/made" && bad "a room of src/ has no row in $DOC: $(grep '^| ? | ' "$tmp/made" | cut -d'|' -f3 | tr -d ' ' | paste -sd' ' -)"
grep -q '(no such room)' "$tmp/made" && bad "$DOC names a room src/ does not have"

[ $fails -eq 0 ] || { echo "architecture.sh: $fails failed"; exit 1; }
echo "architecture.sh: ok ($(wc -l < "$tmp/lines") rooms; $calls_note; $before_note)"
exit 0
