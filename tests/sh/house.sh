#!/bin/sh
# house.sh: the house's limits, kept. Fails when
#   1. a source file (*.c *.h *.cu *.def *.sh *.py under src, tests, kernels, assets/kernels)
#      has more than 1,000 lines;
#   2. a C or CUDA function has more than 120 lines, counted from the line of its opening '{'
#      to the line of its closing '}', both included (blank and comment lines count). The
#      project writes a function's braces alone at column 0; the scanner measures
#      exactly those bodies, so it also fails on a top-level line that opens a body on its
#      signature line ("...) {"), which it could not measure;
#   3. files of one room call each other in a circle, or rooms do, or a room calls a room
#      on its floor or above it (the floors of docs/architecture.md's table of rooms: a room
#      may call every room on a lower floor; a folder of src/ without a row fails): from the
#      objects the last build linked ($BUILD/lib/ROOM.a and main.o, `nm`), file A -> file B
#      when A uses a global symbol (function or data) B defines; a circle is a set of files
#      (or rooms) each reaching the others. It reads what the compiler kept, so calls through
#      a header's macro count and a function no one calls does not. From the same objects:
#      dlopen is called only in src/cuda (the one place that loads the CUDA libraries), and
#      the border with the OS (SYS_PRIMITIVES: fork, exec*, opendir, mkdtemp, sigaction,
#      signal, getenv, socket, bind, listen, connect, accept...) is crossed only in src/sys. A
#      file's #include "../ROOM/..." is an arrow too: into a room on its floor or above fails;
#   6. a room holds more than MAX_ROOM_SHARE % of the lines of src/ (all its files);
#   4. a file of the project (src, tests, kernels, assets, lessons, docs, README.md, Makefile;
#      not the shell suites, whose .md names are files they make) cites a document that is
#      not in the repository: a NAME.md that is neither a path from
#      the root, nor beside the file, nor in docs/; or a path into ../shared (the project
#      must build, test and run from its own files);
#   5. a second way to do what src has one way for (docs/architecture.md, "One way to do each
#      thing"): a failing helper other than bl_fail (a function or macro of src whose name
#      has "fail" in it, or one of the helpers removed since); a clock other than
#      bl_now_ms (CLOCK_MONOTONIC read outside src/base/err.c); a JSON parser other than
#      the store's one reader (cJSON_Parse outside ONE_JSON_READERS); options read without getopt_long
#      (argv compared with strcmp in src/cli outside src/cli/args.c, and main.c's dispatch of
#      the subcommand); a getopt_long table of its own (a struct option array, or a call of
#      getopt_long, outside ONE_OPTION_TABLES: every command's options are a struct cli_opt
#      table that src/cli/opts.c turns into getopt_long's array, the parsing and --help). A check of a foreign library's return code that ends in bl_fail is
#      not a second way (CHECKS: CK for CUDA, bl_cupti_fail and kcupti_fail for CUPTI).
#   7. Chinese in src/**/*.c or *.h, any file: a Chinese literal (a C string or character
#      literal holding a CJK character or full-width form, as UTF-8 or as an escape), or such a
#      character written in a comment: banklab's words in Chinese are rows of its catalogues
#      (src/base/msg.def and its parts, src/ui/strings.def, the keys' src/keys/keys.def), and
#      the words it reads in the lessons' Chinese prose rows of its lexicon
#      (src/base/lexicon.def), never text in code;
#   8. another way text reaches the screen in two languages besides the catalogue rows
#      (two_ways): TR(), KP_EN/KP_ZH, a text pair char NAME[2][...], a "zh ? "..." : "..."" choice
#      on one line, an English text read back (bl_msg_parse, bl_msg_text(NULL, ...), bl_phrase
#      outside src/base/msg.*: a room below hands a message id and its arguments instead) in
#      src/**/*.c|h, or an EN_ZH(...) pair in the key table (its words are rows of
#      src/base/msg_keys.def);
#   9. a growable string of its own outside src/base (struct bl_buf, src/base/buf.h, is the one):
#      a realloc in src/ whose size has no sizeof (bytes grown by hand) or whose result goes
#      to a pointer to a one-byte type (char, unsigned char, uint8_t ...), or a printf sized
#      first with snprintf(NULL, 0, ...) to allocate; GENERIC_GROWERS names the functions that
#      grow arrays of any element, whose size is their elem argument;
#  10. a command's option described in prose: a file of src/cli that defines a command's
#      table (struct cli_cmd NAME = ...) and never prints its option list from it
#      (cli_opt_help(f, &NAME)), or a line of src/base/msg_help.def (the usage and the text
#      before the lists) that starts with two blanks and "--" (an option and what it does:
#      a row of the command's table with its description in msg_opts.def instead).
#  11. a function of src exported that no other file of src calls (from the objects' `nm` and
#      the sources): one only its own file calls (it could be static: make it so and drop it
#      from its header), one only tests call (product code the product never runs: the test's
#      own helper belongs in tests/unit), one nothing calls (dead code). One its own file and a
#      unit or fuzz test call is counted, not failed: the test needs it.
# First it checks itself: a 121-line function, a 1,001-line file, two objects calling each
# other, a file citing a missing document, a second way of each kind, a room calling one on
# a higher floor, a room without a floor, dlopen outside src/cuda, objects built here that
# call fork, getenv and opendir outside src/sys, a room over its share, a function exported
# for its own file only, for tests only and for nothing, a Chinese literal
# (raw and escaped, not one in a comment), one of each other way to two languages (in a
# planted tree) and a command whose options are prose must be found. Env: BUILD (default build). Exit 0
# pass, 1 fail, 77 skip (no build).
set -u
: "${BUILD:=build}"
MAX_FILE=1000
# the one file that parses JSON (cJSON, through json_read): src/store
ONE_JSON_READERS="src/store/json.c"
# the one file that builds getopt_long's arrays (struct option) from the commands' tables
ONE_OPTION_TABLES="src/cli/opts.c"
MAX_FUNC=120
# the document whose table of rooms gives each room its floor
ARCH_DOC=${ARCH_DOC:-docs/architecture.md}
# the rooms that may call dlopen (the CUDA libraries, loaded once)
DLOPEN_ROOMS="cuda"
# the rooms that may cross the border with the OS, and the calls that cross it (libc's names,
# as `nm` shows them undefined in an object)
SYS_ROOMS="sys"
SYS_PRIMITIVES='fork|vfork|clone|execv|execve|execvp|execvpe|execl|execlp|execle|fexecve|posix_spawn|posix_spawnp|system|popen|opendir|fdopendir|scandir|scandirat|nftw|ftw|mkdtemp|sigaction|signal|__sysv_signal|bsd_signal|sigset|getenv|secure_getenv|socket|socketpair|bind|listen|connect|accept|accept4'
# no room holds more of src/'s lines than this share (in %)
MAX_ROOM_SHARE=20
# the functions outside src/base that grow an array of any element (the element's size is an
# argument): their realloc has no sizeof of its own. None: src/base's bl_grow (buf.h) is the
# one growable array.
GENERIC_GROWERS=""
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# two_ways DIR: "KIND<tab>FILE:LINE:TEXT" for each other way to two languages in DIR (a tree
# like src/: its .c and .h files, its keys/keys.def); read back is allowed in DIR/base/msg.*,
# the catalogue's own code
two_ways() {
    way() { grep -rnE "$2" "$1" --include='*.c' --include='*.h' | grep -vE "${4:-^$}" | sed "s|^|$3	|"; }
    way "$1" '\bTR\(' 'TR()'
    way "$1" '\bKP_(EN|ZH)\b' 'KP_EN/KP_ZH'
    way "$1" 'char [a-z_]+\[2\]\[' 'text pairs [2][...]'
    way "$1" '(zh|ZH)[^;]*\? *"[^"]*" *: *"' 'zh ? ".." : ".."'
    way "$1" 'bl_msg_parse\(|bl_msg_text\(NULL|bl_phrase\(' 'English read back' "^$1/base/msg\\."
    [ -f "$1/keys/keys.def" ] && grep -nE 'EN_ZH\(' "$1/keys/keys.def" | sed "s|^|keys.def EN_ZH	$1/keys/keys.def:|"
    return 0
}

# zh_literals FILE...: "FILE:LINE: a Chinese literal" for each C string or character literal
# (comments left out) that holds Chinese: a character from U+2E80 to U+9FFF (CJK, its
# punctuation) or U+FF00 to U+FFEF (full-width forms), written as UTF-8 or as \u, \U or \x
# escapes.
zh_literals() {
    LC_ALL=C awk '
    function zh(s) {
        if (s ~ /\342[\272-\277][\200-\277]|[\343-\351][\200-\277][\200-\277]|\357[\274-\276][\200-\277]|\357\277[\200-\257]/)
            return 1
        if (s ~ /\\u(2[eEfF]|[3-9])[0-9a-fA-F][0-9a-fA-F]|\\u[fF][fF][0-9a-eA-E][0-9a-fA-F]|\\U0000(2[eEfF]|[3-9])/)
            return 1
        return s ~ /\\x[eE][3-9]\\x[89abAB]|\\x[eE]2\\x[bB][a-fA-F]|\\x[eE][fF]\\x[bB][c-eC-E]|\\x[eE][fF]\\x[bB][fF]\\x[89aA]/
    }
    FNR == 1 { inc = 0 }
    {
        line = $0; n = length(line); i = 1
        while (i <= n) {
            c = substr(line, i, 1)
            if (inc) {
                if (substr(line, i, 2) == "*/") { inc = 0; i += 2 } else i++
                continue
            }
            two = substr(line, i, 2)
            if (two == "//") break
            if (two == "/*") { inc = 1; i += 2; continue }
            if (c == "\"" || c == "\047") {
                q = c; lit = ""; i++
                while (i <= n && substr(line, i, 1) != q) {
                    if (substr(line, i, 1) == "\\") { lit = lit substr(line, i, 2); i += 2 }
                    else { lit = lit substr(line, i, 1); i++ }
                }
                i++
                if (zh(lit)) { print FILENAME ":" FNR ": a Chinese literal"; break }
                continue
            }
            i++
        }
    }' "$@"
}

# zh_raw FILE...: "FILE:LINE: Chinese text" for each line holding a CJK character or a
# full-width form as UTF-8, in a literal or in a comment (zh_literals finds the escaped ones).
zh_raw() {
    LC_ALL=C awk '/\342[\272-\277][\200-\277]|[\343-\351][\200-\277][\200-\277]|\357[\274-\276][\200-\277]|\357\277[\200-\257]/ {
        print FILENAME ":" FNR ": Chinese text" }' "$@"
}

# unused_exports NMFILE: "KIND ROOM/FILE SYMBOL" for each function an object of NMFILE defines
# globally that no other object uses and no other file of src names (the libraries built
# apart, such as the injection ones, are read as source): KIND "own" when only its own file
# calls it (it could be static), "tested" when its own file and tests/unit or tests/fuzz do,
# "tests" when only tests do, "never" when nothing does. A test calls it on a line that names
# it before a "(" and is not a comment's. C objects only (a CUDA object's kernels are launched
# through their address).
unused_exports() {
    awk '
    function who(s,   r, m) { r = s; sub(/\[.*/, "", r); sub(/.*\//, "", r); sub(/\.a$/, "", r)
        m = s; sub(/^[^\[]*\[/, "", m); sub(/\]:$/, "", m); sub(/\.o$/, "", m); if (m !~ /\.cu$/) m = m ".c"
        return r "/" m }
    NR == FNR { if ($3 == "T" && who($1) ~ /\.c$/) def[$2] = who($1); next }
    $3 == "U" && ($2 in def) && who($1) != def[$2] { used[$2] = 1 }
    END { for (s in def) if (!(s in used)) print def[s], s }
    ' "$1" "$1" | LC_ALL=C sort | while read -r f sym; do
        [ -f "src/$f" ] || continue
        grep -rlw --include='*.c' --include='*.cu' -- "$sym" src | grep -qv "^src/$f\$" && continue
        tested=0
        grep -rhE -- "(^|[^A-Za-z0-9_])$sym[ \t]*\(" tests/unit tests/fuzz 2>/dev/null |
            grep -qvE '^[ \t]*(/\*|\*|//)' && tested=1
        if grep -E "[^A-Za-z0-9_]$sym[ \t]*\(" "src/$f" | grep -qv "^[A-Za-z_]"; then
            if [ $tested -eq 1 ]; then echo "tested $f $sym"; else echo "own $f $sym"; fi
        elif [ $tested -eq 1 ]; then echo "tests $f $sym"
        else echo "never $f $sym"; fi
    done
}

# unused_fails UNUSED: "src/FILE: why" for each "own", "tests" and "never" line of UNUSED
# (unused_exports' output): a function exported that no other file of src calls.
unused_fails() {
    awk '$1 == "own" { print "src/" $2 ": " $3 " is called only by its own file: make it static (and drop it from its header)" }
         $1 == "tests" { print "src/" $2 ": " $3 " is called only by tests: product code the product never runs (a helper of tests/unit instead)" }
         $1 == "never" { print "src/" $2 ": " $3 " is called by nothing (not even its own file or a test): dead code" }' "$1"
}

# long_files FILE...: "LINES FILE" for each file over MAX_FILE lines.
long_files() {
    for f in "$@"; do
        n=$(wc -l < "$f")
        [ "$n" -gt "$MAX_FILE" ] && echo "$n $f"
    done
    return 0
}

# long_functions FILE...: "LINES FILE:LINE NAME" for each body over MAX_FUNC lines, and
# "UNMEASURED FILE:LINE ..." for bodies the scanner cannot measure.
long_functions() {
    awk -v max="$MAX_FUNC" '
    FNR == 1 { if (open) print "UNMEASURED " name_file ":" start " " name " (no closing brace at column 0)"
               open = 0; name = "?" }
    !open && /^[A-Za-z_][^=;]*\)[ \t]*\{[ \t]*$/ {
        print "UNMEASURED " FILENAME ":" FNR " opens a body on its signature line"; next }
    !open && /^[A-Za-z_]/ && /\(/ {        # a top-level line naming a function: the name
        s = $0; sub(/\(.*/, "", s); sub(/[ \t*]+$/, "", s); n = split(s, w, /[ \t*]+/)
        if (n > 0 && w[n] != "") name = w[n] }
    !open && /^\{/ { open = 1; start = FNR; name_file = FILENAME; next }
    open && /^\}/ { len = FNR - start + 1
                    if (len > max) print len " " FILENAME ":" start " " name
                    open = 0; name = "?" }
    END { if (open) print "UNMEASURED " name_file ":" start " " name " (no closing brace at column 0)" }
    ' "$@"
}

# edges NMFILE: from `nm -A -P -g` lines of rooms' archives, prints "FROM TO SYMBOL" for
# each use of a symbol another object defines (FROM, TO: room/file; the first symbol only).
edges() {
    awk '
    function who(s,   r, m) {   # "build/lib/ui.a[screen.o]:" -> "ui/screen.c"
        r = s; sub(/\[.*/, "", r); sub(/.*\//, "", r); sub(/\.a$/, "", r)
        m = s; sub(/^[^\[]*\[/, "", m); sub(/\]:$/, "", m)
        sub(/\.o$/, "", m); if (m !~ /\.cu$/) m = m ".c"
        return r "/" m }
    NR == FNR { if ($3 != "U" && $3 != "w" && $3 != "v") def[$2] = who($1); next }
    $3 == "U" && ($2 in def) { f = who($1); t = def[$2]
        if (f != t && !((f, t) in seen)) { seen[f, t] = 1; print f, t, $2 } }
    ' "$1" "$1"
}

# circles EDGES: each set of nodes that reach one another, with the uses between them.
# Edges are "FROM TO SYMBOL"; nodes reach through any path (closure over at most a few dozen
# nodes: cheap).
circles() {
    awk '
    { if (!($1 in id)) { id[$1] = ++n; node[n] = $1 }
      if (!($2 in id)) { id[$2] = ++n; node[n] = $2 }
      r[id[$1], id[$2]] = 1; sym[id[$1], id[$2]] = $3 }
    END {
        for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if ((i, k) in r)
            for (j = 1; j <= n; j++) if ((k, j) in r) r[i, j] = 1
        for (i = 1; i <= n; i++) {
            if (done[i]) continue
            set = ""; uses = ""
            for (j = 1; j <= n; j++)
                if (j == i || ((i, j) in r && (j, i) in r)) { done[j] = 1; set = set " " node[j] }
            if (set == " " node[i]) continue
            for (a = 1; a <= n; a++) for (b = 1; b <= n; b++)
                if (((a, b) in sym) && index(set " ", " " node[a] " ") && index(set " ", " " node[b] " "))
                    uses = uses "\n    " node[a] " uses " sym[a, b] " of " node[b]
            print "circle:" set uses
        }
    }' "$1"
}

# rooms_down DOC: from DOC's table of rooms (the rows between "<!-- rooms:begin -->" and
# "<!-- rooms:end -->": | floor | room | ...), "ROOM:CALLEE,CALLEE..." for each room: the rooms
# on a lower floor, which it may call.
rooms_down() {
    awk '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    /<!-- rooms:begin -->/ { on = 1; next }
    /<!-- rooms:end -->/ { on = 0 }
    on && /^\|/ { split($0, c, "|"); f = trim(c[2]); r = trim(c[3])
        if (f ~ /^[0-9]+$/ && r ~ /^[a-z]+$/) { floor[r] = f + 0; n++ } }
    END { for (r in floor) { s = ""
              for (t in floor) if (floor[t] < floor[r]) s = s "," t
              print r ":" substr(s, 2) } }
    ' "$1"
}

# up_calls EDGES ROOMS_DOWN: "src/A calls up into src/B: ..." for each room A calling a room B
# it may not (the first use); a room without a floor: "src/A has no floor ...".
up_calls() {
    awk -v allowed="$2" '
        BEGIN { n = split(allowed, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, ":"); ok[kv[1]] = "," kv[2] "," } }
        { split($1, f, "/"); split($2, t, "/") }
        f[1] != t[1] && !(f[1] in ok) && !(f[1] in nofloor) {
            nofloor[f[1]] = 1; print "src/" f[1] " has no floor in the table of rooms (" doc ")" }
        f[1] != t[1] && !((f[1], t[1]) in said) && (f[1] in ok) && index(ok[f[1]], "," t[1] ",") == 0 {
            said[f[1], t[1]] = 1; print "src/" f[1] " calls up into src/" t[1] ": " $1 " uses " $3 " of " $2 }
    ' doc="$ARCH_DOC" "$1"
}

# up_includes ROOMS_DOWN FILE...: "FILE:LINE: includes ROOM/HEADER, on its floor or above"
# for each #include "../ROOM/..." of a file of src/ROOM2 into a room ROOM2 may not call (the
# same floors as the calls: a header is an arrow too).
up_includes() {
    allowed=$1; shift
    awk -v allowed="$allowed" '
        BEGIN { n = split(allowed, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, ":"); ok[kv[1]] = "," kv[2] "," } }
        FNR == 1 { from = FILENAME; sub(/^.*src\//, "", from); sub(/\/.*/, "", from) }
        /^[ \t]*#[ \t]*include[ \t]*"\.\.\/[a-z]+\// {
            to = $0; sub(/^[^"]*"\.\.\//, "", to); sub(/\/.*/, "", to)
            if (to != from && (from in ok) && index(ok[from], "," to ",") == 0) {
                h = $0; sub(/^[^"]*"\.\.\//, "", h); sub(/".*/, "", h)
                print FILENAME ":" FNR ": includes " h ", on its floor or above" } }
    ' "$@"
}

# dlopen_outside NMFILE: "ROOM/FILE" for each object outside DLOPEN_ROOMS that calls dlopen.
dlopen_outside() {
    awk -v rooms=" $DLOPEN_ROOMS " '
    $2 == "dlopen" && $3 == "U" { r = $1; sub(/\[.*/, "", r); sub(/.*\//, "", r); sub(/\.a$/, "", r)
        m = $1; sub(/^[^\[]*\[/, "", m); sub(/\]:$/, "", m); sub(/\.o$/, "", m); if (m !~ /\.cu$/) m = m ".c"
        if (index(rooms, " " r " ") == 0) print r "/" m }
    ' "$1"
}

# sys_outside NMFILE: "ROOM/FILE SYMBOL" for each object outside SYS_ROOMS that calls one of
# SYS_PRIMITIVES.
sys_outside() {
    awk -v rooms=" $SYS_ROOMS " -v prims="^($SYS_PRIMITIVES)$" '
    $3 == "U" && $2 ~ prims { r = $1; sub(/\[.*/, "", r); sub(/.*\//, "", r); sub(/\.a$/, "", r)
        m = $1; sub(/^[^\[]*\[/, "", m); sub(/\]:$/, "", m); sub(/\.o$/, "", m); if (m !~ /\.cu$/) m = m ".c"
        if (index(rooms, " " r " ") == 0) print r "/" m, $2 }
    ' "$1"
}

# room_shares SRC: "ROOM LINES SHARE%" for each folder of SRC over MAX_ROOM_SHARE % of all
# its lines, and "total N" last.
room_shares() {
    for d in "$1"/*/; do
        [ -d "$d" ] || continue
        echo "$(basename "$d") $(find "$d" -type f -exec cat {} + | wc -l)"
    done | awk -v max="$MAX_ROOM_SHARE" '{ room[NR] = $1; n[NR] = $2; t += $2 }
        END { for (i = 1; i <= NR; i++) if (t > 0 && 100 * n[i] > max * t)
                  printf "%s %d %.1f%%\n", room[i], n[i], 100 * n[i] / t
              print "total", t }'
}

# rooms_nm: nm of every room archive of the last build (and main.o, part of cli).
rooms_nm() {
    for lib in "$BUILD"/lib/*.a; do    # a room that is gone may have left its archive
        room=$(basename "$lib" .a)
        [ -f "$lib" ] && [ -d "src/$room" ] && nm -A -P -g "$lib" 2>/dev/null
    done
    [ -f "$BUILD/obj/src/cli/main.o" ] && nm -A -P -g "$BUILD/obj/src/cli/main.o" 2>/dev/null \
        | sed "s|^$BUILD/obj/src/cli/main.o:|$BUILD/lib/cli.a[main.o]:|"
    return 0
}

# second_ways FILE...: "FILE:LINE: what" for each second way of doing a thing src does one way.
CHECKS='CK|bl_cupti_fail|kcupti_fail'
REMOVED_HELPERS='bl_failmsg|pat_fail|res_fail|kres_fail|kres_failm|cupti_fail|CUPTI_TRY|bl_cupti_why|kcupti_why|cupti_check|FAIL_AT|fail_at|PROBLEM|PROBLEM_OFF|code_problem|const_ctx_error|pat_not_pointer_error|FAIL|set_problem|print_problem|usage_error'
second_ways() {
    for f in "$@"; do
        case $f in */base/err.c|*/base/err.h) continue ;; esac
        awk -v f="$f" -v removed="^($REMOVED_HELPERS)$" -v checks="^($CHECKS)$" -v json="$ONE_JSON_READERS" -v opts="$ONE_OPTION_TABLES" '
            function name_of(s) { sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); return w[n] }
            # a function defined at column 0 (its "{" on the next line) or a macro
            /^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = $0; sigline = NR; next_is_body = 1; next }
            next_is_body && /^\{/ { nm = name_of(sig)
                if ((nm ~ /fail/ && nm != "bl_fail" || nm ~ removed) && nm !~ checks) print f ":" sigline ": a failing helper " nm " (use bl_fail)" }
            { next_is_body = 0 }
            /^#[ \t]*define[ \t]+[A-Za-z_]+/ { split($0, d, /[ \t(]+/); nm = d[2]
                if ((nm ~ /FAIL|fail/ || nm ~ removed) && nm !~ checks) print f ":" NR ": a failing macro " nm " (use bl_fail)" }
            /clock_gettime\(CLOCK_MONOTONIC/ { print f ":" NR ": a clock of its own (use bl_now_ms)" }
            /cJSON_Parse/ && index(" " json " ", " " f " ") == 0 { print f ":" NR ": a JSON parser outside the store reader (" json ")" }
            /^[ \t]*(\/\*|\*|\/\/)/ { next }
            /(struct[ \t]+option[^_A-Za-z0-9]|getopt_long(_only)?[ \t]*\()/ && index(" " opts " ", " " f " ") == 0 && f !~ ("(^|/)" opts "$") {
                print f ":" NR ": a getopt_long table of its own (a struct cli_opt table, " opts ")" }
            f ~ /src\/cli\// && f !~ /src\/cli\/(args|main)\.c$/ && /strcmp\(argv\[/ { print f ":" NR ": options read by strcmp (use a struct cli_opt table, cli_parse)" }
        ' "$f"
    done
    return 0
}

# own_strings FILE...: "FILE:LINE: why" for each growable string of its own (rule 8): a
# realloc call (its arguments read across lines) without sizeof in them outside the functions
# of GENERIC_GROWERS, or assigned to a pointer to a one-byte type; snprintf(NULL, 0, ...).
own_strings() {
    for f in "$@"; do
        case $f in src/base/*|*/src/base/*) continue ;; esac
        awk -v f="$f" -v generic=" $GENERIC_GROWERS " '
            function name_of(s) { sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); return w[n] }
            function opened(s,  i, c, d) { d = 0; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
                if (c == "(") d++; else if (c == ")") d-- } return d }
            /^[A-Za-z_].*\(/ && !/;[ \t]*$/ { fn = name_of($0) }
            call != "" { call = call " " $0; if (opened(call) <= 0) { check(call, at); call = "" } next }
            /[^A-Za-z0-9_]realloc[ \t]*\(/ { s = $0; sub(/.*[^A-Za-z0-9_]realloc[ \t]*\(/, "(", s)
                byte = $0 ~ /(char|int8_t|uint8_t)[ \t]*\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*realloc/
                if (byte) print f ":" NR ": realloc into a byte pointer: a growable string of its own (use struct bl_buf, src/base/buf.h)"
                else if (opened(s) > 0) { call = s; at = NR } else check(s, NR) }
            /v?snprintf[ \t]*\([ \t]*NULL[ \t]*,[ \t]*0/ { print f ":" NR ": snprintf(NULL, 0) to size a string of its own (use bl_buf_addf, src/base/buf.h)" }
            function check(args, line) {
                if (args !~ /sizeof/ && index(generic, " " f ":" fn " ") == 0)
                    print f ":" line ": realloc by a byte count: a growable string of its own (use struct bl_buf, src/base/buf.h)" }
        ' "$f"
    done
    return 0
}

# prose_options HELP_DEF CLI_FILE...: "FILE:LINE: why" for each command whose --help does not
# list its options from its table (rule 10).
prose_options() {
    def=$1; shift
    grep -n '^ *"  --[a-z]' "$def" | sed "s|^|$def:|; s|:\([0-9]*\):.*|:\1: an option described in prose (a row of the command's table, msg_opts.def)|"
    for f in "$@"; do
        for c in $(sed -n 's/.*struct cli_cmd \([a-z_]*\) = .*/\1/p' "$f"); do
            grep -q "cli_opt_help([a-z]*, &$c)" "$f" ||
                echo "$f: the command $c never prints its option list from its table (cli_opt_help)"
        done
    done
    return 0
}

# missing_docs FILE...: "FILE: NAME" for each document FILE cites that the repository lacks
# (report files banklab writes, banklab-report-*.md, are names of outputs, not citations).
missing_docs() {
    for f in "$@"; do
        d=$(dirname "$f")
        grep -oE '[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b|\.\./shared[A-Za-z0-9_./-]*' "$f" 2>/dev/null | sort -u |
        while read -r name; do
            case $name in
                ../shared*|*/../shared*) echo "$f: $name (outside the repository)"; continue ;;
                banklab-report-*|*/banklab-report-*|*-DATE.md) continue ;;
            esac
            [ -f "$name" ] || [ -f "$d/$name" ] || [ -f "docs/$name" ] || [ -f "docs/${name#docs/}" ] ||
                echo "$f: $name"
        done
    done
    return 0
}

# ---- 0. the scanner checks itself ----
mkdir -p "$tmp/self/lib"
{ echo "static int long_one(int x)"; echo "{"; i=0
  while [ $i -lt $((MAX_FUNC - 2)) ]; do echo "    x++;"; i=$((i+1)); done
  echo "    return x;"; echo "}"
  echo "static int short_one(void)"; echo "{"; echo "    return 0;"; echo "}"
  echo "int same_line(void) {"; echo "    return 1;"; echo "}"; } > "$tmp/self/f.c"
i=0; while [ $i -le $MAX_FILE ]; do echo "/* $i */"; i=$((i+1)); done > "$tmp/self/long.h"
out=$(long_functions "$tmp/self/f.c")
echo "$out" | grep -q "^$((MAX_FUNC + 1)) .*/f.c:2 long_one$" || bad "self-check: a $((MAX_FUNC + 1))-line function not found ($out)"
echo "$out" | grep -q "short_one" && bad "self-check: a 3-line function reported"
echo "$out" | grep -q "^UNMEASURED .*/f.c:$((MAX_FUNC + 7)) opens a body" || bad "self-check: '...) {' not reported ($out)"
long_files "$tmp/self/long.h" "$tmp/self/f.c" | grep -qx "$((MAX_FILE + 1)) $tmp/self/long.h" ||
    bad "self-check: a $((MAX_FILE + 1))-line file not found"
printf '/* see design.md section 2 and docs/architecture.md */\n' > "$tmp/self/cite.c"
printf 'read ../shared/docs/x.txt\n' > "$tmp/self/cite2.sh"
out=$(missing_docs "$tmp/self/cite.c" "$tmp/self/cite2.sh")
echo "$out" | grep -q "cite.c: design.md$" || bad "self-check: a citation of a missing design.md not found ($out)"
echo "$out" | grep -q "architecture.md" && bad "self-check: docs/architecture.md, which exists, reported"
echo "$out" | grep -q "cite2.sh: ../shared" || bad "self-check: a path into ../shared not found ($out)"
have_nm=0
if command -v nm >/dev/null 2>&1 && command -v ar >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1; then
    have_nm=1
    printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > "$tmp/self/a.c"
    printf 'int a(int);\nint b(int x) { return a(x); }\n' > "$tmp/self/b.c"
    printf 'int a(int);\nint c(void) { return a(1); }\n' > "$tmp/self/c.c"
    for m in a b c; do "${CC:-cc}" -c "$tmp/self/$m.c" -o "$tmp/self/$m.o" || bad "self-check: cc $m.c"; done
    (cd "$tmp/self" && ar rcs lib/r.a a.o b.o c.o)
    nm -A -P -g "$tmp/self/lib/r.a" > "$tmp/self/nm"
    edges "$tmp/self/nm" > "$tmp/self/edges"
    circles "$tmp/self/edges" > "$tmp/self/circles"
    grep -q "^circle: r/a.c r/b.c$" "$tmp/self/circles" ||
        bad "self-check: a.c and b.c call each other, not found: $(cat "$tmp/self/circles" "$tmp/self/edges")"
    grep -q "c.c" "$tmp/self/circles" && bad "self-check: c.c (calls a, called by none) is in no circle"
fi
# a table of rooms, a lower room calling a higher one, a room without a floor, dlopen outside
# src/cuda, a room over its share
printf '%s\n' '<!-- rooms:begin -->' '| floor | room | one job |' '|---:|---|---|' '| 3 | top | t |' \
    '| 2 | mid | m |' '| 2 | side | s |' '| 1 | low | l |' '<!-- rooms:end -->' > "$tmp/self/arch.md"
down=$(rooms_down "$tmp/self/arch.md" | tr '\n' ' ')
for want in top:low top:mid top:side mid:low side:low; do
    echo " $down" | grep -q " ${want%%:*}:\([a-z]*,\)*${want#*:}\(,[a-z]*\)* " ||
        bad "self-check: ${want%%:*} may call ${want#*:} by the floors, not read so ($down)"
done
echo " $down" | grep -q " mid:\([a-z]*,\)*side\| low:[a-z]" && bad "self-check: a call within a floor or from the lowest allowed ($down)"
printf '%s\n' "top/a.c mid/b.c f" "mid/b.c low/c.c g" "low/c.c mid/b.c h" "mid/b.c side/d.c i" "new/e.c low/c.c j" > "$tmp/self/redges"
out=$(ARCH_DOC=arch.md up_calls "$tmp/self/redges" "$down")
echo "$out" | grep -q "^src/low calls up into src/mid: low/c.c uses h" || bad "self-check: an upward call not found ($out)"
echo "$out" | grep -q "^src/mid calls up into src/side" || bad "self-check: a call within a floor not found ($out)"
echo "$out" | grep -q "^src/new has no floor" || bad "self-check: a room without a floor not found ($out)"
echo "$out" | grep -q "src/top\|into src/low" && bad "self-check: a downward call reported ($out)"
printf '%s\n' "b/lib/cuda.a[cupti.o]: dlopen U" "b/lib/runner.a[cuda_uuid.o]: dlopen U" "b/lib/runner.a[x.o]: dlsym U" > "$tmp/self/dl"
out=$(dlopen_outside "$tmp/self/dl")
[ "$out" = "runner/cuda_uuid.c" ] || bad "self-check: dlopen outside src/cuda: '$out', not runner/cuda_uuid.c"
# the OS border from real objects: fork, getenv and opendir in a room other than sys are
# found, the same calls in sys are not
if [ $have_nm -eq 1 ]; then
    printf '#include <stdlib.h>\n#include <unistd.h>\n#include <dirent.h>\nint leak(void) { return fork() + !getenv("HOME") + !opendir("."); }\n' > "$tmp/self/leak.c"
    cp "$tmp/self/leak.c" "$tmp/self/border.c"
    "${CC:-cc}" -c "$tmp/self/leak.c" -o "$tmp/self/leak.o" && "${CC:-cc}" -c "$tmp/self/border.c" -o "$tmp/self/border.o" ||
        bad "self-check: cc leak.c"
    (cd "$tmp/self" && ar rcs lib/kmeasure.a leak.o && ar rcs lib/sys.a border.o)
    nm -A -P -g "$tmp/self/lib/kmeasure.a" "$tmp/self/lib/sys.a" > "$tmp/self/nmsys"
    out=$(sys_outside "$tmp/self/nmsys" | sort | tr '\n' ' ')
    [ "$out" = "kmeasure/leak.c fork kmeasure/leak.c getenv kmeasure/leak.c opendir " ] ||
        bad "self-check: fork, getenv, opendir outside src/sys: '$out'"
fi
mkdir -p "$tmp/self/inc/src/low" "$tmp/self/inc/src/top"
printf '#include "../top/top.h"\n#include "../low/low.h"\n' > "$tmp/self/inc/src/low/x.c"
printf '#include "../low/low.h"\n#include "own.h"\n' > "$tmp/self/inc/src/top/y.c"
out=$(up_includes "$down" "$tmp/self/inc/src/low/x.c" "$tmp/self/inc/src/top/y.c")
[ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "src/low/x.c:1: includes top/top.h" ||
    bad "self-check: an upward #include not found, or a downward one reported ($out)"
mkdir -p "$tmp/self/src/big" "$tmp/self/src/small"
i=0; while [ $i -lt 30 ]; do echo "$i"; i=$((i+1)); done > "$tmp/self/src/big/a.c"
i=0; while [ $i -lt 70 ]; do echo "$i"; i=$((i+1)); done > "$tmp/self/src/small/b.c"
for d in c d e f; do mkdir -p "$tmp/self/src/$d"; cp "$tmp/self/src/small/b.c" "$tmp/self/src/$d/"; done
out=$(room_shares "$tmp/self/src")
echo "$out" | grep -q "^big 30 " && bad "self-check: a room under its share reported ($out)"
echo "$out" | grep -q "^total 380$" || bad "self-check: room_shares total ($out)"
i=0; while [ $i -lt 100 ]; do echo "$i"; i=$((i+1)); done >> "$tmp/self/src/big/a.c"
out=$(room_shares "$tmp/self/src")
echo "$out" | grep -q "^big 130 " || bad "self-check: a room over $MAX_ROOM_SHARE % not found ($out)"

printf 'int pat_fail(int x)\n{\n    return x;\n}\n#define CUDA_FAIL(x) x\nstatic double t(void)\n{\n    struct timespec ts;\n    clock_gettime(CLOCK_MONOTONIC, &ts);\n    return 0;\n}\nint bl_fail_ok(void);\n' > "$tmp/self/two.c"
mkdir -p "$tmp/self/src/cli"
printf 'int f(char **argv)\n{\n    return strcmp(argv[1], "--x") || !cJSON_Parse("1");\n}\n/* a struct option in a comment */\nstatic const struct option o[] = {{"x", 0, 0, 1}, {0}};\n' > "$tmp/self/src/cli/opt.c"
out=$(second_ways "$tmp/self/two.c" "$tmp/self/src/cli/opt.c" "$tmp/self/f.c")
for want in "two.c:1: a failing helper pat_fail" "two.c:5: a failing macro CUDA_FAIL" "two.c:9: a clock of its own" \
            "opt.c:3: options read by strcmp" "opt.c:3: a JSON parser" "opt.c:6: a getopt_long table of its own"; do
    echo "$out" | grep -q "$want" || bad "self-check: '$want' not found ($out)"
done
echo "$out" | grep -q "opt.c:5" && bad "self-check: a struct option in a comment reported ($out)"
mkdir -p "$tmp/self/src/cli/ok" && cp "$tmp/self/src/cli/opt.c" "$tmp/self/src/cli/ok/x.c"
out=$(ONE_OPTION_TABLES="$tmp/self/src/cli/ok/x.c" second_ways "$tmp/self/src/cli/ok/x.c")
echo "$out" | grep -q "getopt_long table" && bad "self-check: the option-table file itself reported ($out)"
echo "$out" | grep -q "f.c\|bl_fail_ok" && bad "self-check: a file doing things the one way reported ($out)"

mkdir -p "$tmp/self/src/zh"
printf '/* 空格 in a comment */\nconst char *a = "空格";\nconst char *b = "\\u4e2a";\n// "中"\nconst char *c = "\\xe3\\x80\\x82";\nconst char *d = "\\xef\\xbf\\xbd ok";\nint e = 1; /* "中"\n  "中" */\n' > "$tmp/self/src/zh/plant.c"
out=$(zh_literals "$tmp/self/src/zh/plant.c" | sed 's|.*/||' | tr '\n' ' ')
[ "$out" = "plant.c:2: a Chinese literal plant.c:3: a Chinese literal plant.c:5: a Chinese literal " ] ||
    bad "self-check: the Chinese literals of plant.c (lines 2, 3, 5) not found as such ($out)"
out=$(zh_raw "$tmp/self/src/zh/plant.c" "$tmp/self/f.c" | sed 's|.*/||' | tr '\n' ' ')
[ "$out" = "plant.c:1: Chinese text plant.c:2: Chinese text plant.c:4: Chinese text plant.c:7: Chinese text plant.c:8: Chinese text " ] ||
    bad "self-check: the lines of plant.c with Chinese characters (1, 2, 4, 7, 8), not its escapes nor f.c, not found as such ($out)"
mkdir -p "$tmp/self/ways/cli" "$tmp/self/ways/base" "$tmp/self/ways/keys"
printf 'const char *t = TR("a", "b");
int k = KP_EN;
static const char pair[2][8] = {"a", "b"};
const char *w = zh ? "x" : "y";
const char *r = bl_phrase(s, lang);
bl_msg_text(NULL, e, lang, b, n);
bl_msg_parse(t, &m);
const char *fine = s ? "stderr" : "stdout";
' > "$tmp/self/ways/cli/plant.c"
printf 'int ok = bl_msg_parse(t, &m);
' > "$tmp/self/ways/base/msg.c"
printf 'ROW(NO_NEW, .help = EN_ZH("go", "x"))
' > "$tmp/self/ways/keys/keys.def"
out=$(two_ways "$tmp/self/ways" | awk -F '\t' '{ split($2, a, ":"); n = split(a[1], p, "/"); print $1 " " p[n] ":" a[2] }' |
      LC_ALL=C sort | tr '\n' ' ')
want="English read back plant.c:5 English read back plant.c:6 English read back plant.c:7 KP_EN/KP_ZH plant.c:2 TR() plant.c:1 keys.def EN_ZH keys.def:1 text pairs [2][...] plant.c:3 zh ? \"..\" : \"..\" plant.c:4 "
[ "$out" = "$want" ] || bad "self-check: the other ways to two languages planted in cli/plant.c and keys.def (one each, read back three times, none in base/msg.c) not found as such ($out)"

mkdir -p "$tmp/self/src/own" "$tmp/self/src/base"
printf '%s\n' 'static int add(char **s, size_t *cap, size_t n)' '{' '    char *w = realloc(*s, n);' \
    '    unsigned char *u = realloc(*s,' '                               2 * n);' '    *s = realloc(*s, *cap * 2);' \
    '    struct row *r = realloc(rows, (size_t)n * sizeof *r);' '    char **l = realloc(list,' \
    '                       (size_t)n * sizeof *l);' '    return snprintf(NULL, 0, "%%d", 1);' '}' \
    'void *grow(void *p, size_t n, size_t elem)' '{' '    return realloc(p, n * elem);' '}' > "$tmp/self/src/own/plant.c"
cp "$tmp/self/src/own/plant.c" "$tmp/self/src/base/buf.c"
out=$(GENERIC_GROWERS="$tmp/self/src/own/plant.c:grow" own_strings "$tmp/self/src/own/plant.c" "$tmp/self/src/base/buf.c" |
      sed 's|: realloc into a byte.*|: byte|; s|: realloc by a byte count.*|: count|; s|: snprintf(NULL.*|: sized|; s|.*/||' | tr '\n' ' ')
[ "$out" = "plant.c:3: byte plant.c:4: byte plant.c:6: count plant.c:10: sized " ] ||
    bad "self-check: the growable strings of plant.c (lines 3, 4, 6, 10), not its arrays nor src/base, not found as such ($out)"

# functions no other file calls: for its own file, only by tests, never
if [ $have_nm -eq 1 ]; then
    mkdir -p "$tmp/self/ue/src/r" "$tmp/self/ue/tests/unit" "$tmp/self/ue/lib"
    printf '%s\n' 'int used(void) { return 1; }' 'int own(void) { return 2; }' 'int tested(void) { return 3; }' \
        'int dead(void) { return 4; }' 'int both(void) { return 5; }' 'int api(void)' '{' '    return own() + both();' \
        '}' > "$tmp/self/ue/src/r/a.c"
    printf '%s\n' 'int used(void);' 'int b(void) { return used(); }' > "$tmp/self/ue/src/r/b.c"
    printf '%s\n' 'int tested(void);' 'int api(void);' 'int both(void);' '/* own() and dead() in a comment are no calls */' \
        'int main(void) { return tested() + api() + both(); }' > "$tmp/self/ue/tests/unit/test_a.c"
    (cd "$tmp/self/ue" && "${CC:-cc}" -c src/r/a.c -o a.o && "${CC:-cc}" -c src/r/b.c -o b.o && ar rcs lib/r.a a.o b.o) ||
        bad "self-check: cc for the unused functions"
    nm -A -P -g "$tmp/self/ue/lib/r.a" > "$tmp/self/ue/nm"
    out=$(cd "$tmp/self/ue" && unused_exports nm | tee unused | tr '\n' ' ')
    [ "$out" = "tests r/a.c api tested r/a.c both never r/a.c dead own r/a.c own tests r/a.c tested never r/b.c b " ] ||
        bad "self-check: the functions no other file calls (own only by a.c, both by a.c and a test, tested and api only by a test, dead and b by nothing), not used, not found as such ($out)"
    out=$(unused_fails "$tmp/self/ue/unused" | sed 's/: make it static.*/: static/; s/: product code.*/: tests/; s/: dead code$/: dead/' | tr '\n' ' ')
    [ "$out" = "src/r/a.c: api is called only by tests: tests src/r/a.c: dead is called by nothing (not even its own file or a test): dead src/r/a.c: own is called only by its own file: static src/r/a.c: tested is called only by tests: tests src/r/b.c: b is called by nothing (not even its own file or a test): dead " ] ||
        bad "self-check: a function exported for its own file only (own), for tests only (api, tested) or for nothing (dead, b) not failed as such, or one its file and a test call (both) failed ($out)"
fi
mkdir -p "$tmp/self/prose"
printf '%s\n' 'M(CLI_HELP_X,' '  "usage: banklab x [--json]\\n"' '  "  --json writes JSON\\n",' '  "      --replay FILE  an example\\n")' > "$tmp/self/prose/help.def"
printf '%s\n' 'static const struct cli_cmd a_cmd = {"a", rows};' 'static void help(FILE *f)' '{' '    cli_opt_help(f, &a_cmd);' '}' > "$tmp/self/prose/a.c"
printf '%s\n' 'static const struct cli_cmd b_cmd = {"b", rows};' 'static void help(FILE *f)' '{' '    cli_say(f, CLI_HELP_B);' '}' > "$tmp/self/prose/b.c"
out=$(prose_options "$tmp/self/prose/help.def" "$tmp/self/prose/a.c" "$tmp/self/prose/b.c" | sed 's|.*/||; s|: an option.*|: prose|; s|: the command .*|: no list|' | tr '\n' ' ')
[ "$out" = "help.def:3: prose b.c: no list " ] ||
    bad "self-check: an option in prose (help.def:3) and a command without its list (b.c), not a.c nor an example line, not found as such ($out)"

# ---- 1. files ----
files=$(find src tests kernels assets/kernels -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
        -o -name '*.def' -o -name '*.sh' -o -name '*.py' \) | sort)
nfiles=$(echo "$files" | wc -l)
long_files $files > "$tmp/files"
while read -r n f; do bad "$f has $n lines (at most $MAX_FILE)"; done < "$tmp/files"

# ---- 2. functions ----
cfiles=$(echo "$files" | grep -E '\.(c|h|cu)$')
long_functions $cfiles > "$tmp/funcs"
nfuncs=$(cat $cfiles | grep -c '^{')
while read -r n where name; do
    if [ "$n" = UNMEASURED ]; then bad "$where $name"
    else bad "$where: $name has $n lines (at most $MAX_FUNC)"; fi
done < "$tmp/funcs"

# ---- 5. one way to do each thing ----
second_ways $(echo "$cfiles" | grep '^src/') > "$tmp/second"
while read -r line; do bad "$line"; done < "$tmp/second"

# ---- 9. one growable string ----
own_strings $(echo "$cfiles" | grep '^src/') > "$tmp/own"
while read -r line; do bad "$line"; done < "$tmp/own"

# ---- 10. every command's options listed from its table ----
prose_options src/base/msg_help.def $(echo "$cfiles" | grep '^src/cli/') > "$tmp/prose"
while read -r line; do bad "$line"; done < "$tmp/prose"

# ---- 4. documents cited ----
docfiles=$(find src tests kernels assets lessons docs -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
        -o -name '*.cuh' -o -name '*.def' -o -name '*.sh' -o -name '*.py' -o -name '*.md' -o -name '*.json' \
        -o -name '*.1' \) -not -path 'tests/fuzz/corpus/*' -not -name 'h200-recording.json' -not -path 'tests/sh/*' | sort)
missing_docs $docfiles README.md Makefile > "$tmp/docs"
while read -r line; do bad "cites a document not in the repository: $line"; done < "$tmp/docs"

# ---- 3. circles, from the last build's objects ----
if [ $have_nm -eq 1 ] && ls "$BUILD"/lib/*.a >/dev/null 2>&1; then
    rooms_nm > "$tmp/nm"
    edges "$tmp/nm" > "$tmp/edges"
    nedges=$(wc -l < "$tmp/edges")
    [ "$nedges" -gt 0 ] || bad "no uses between files found in $BUILD/lib/*.a (nm)"
    # within each room: files
    for room in $(cut -d/ -f1 "$tmp/edges" | sort -u); do
        awk -v r="$room" '{ split($1, f, "/"); split($2, t, "/") } f[1] == r && t[1] == r' \
            "$tmp/edges" | circles /dev/stdin > "$tmp/c"
        [ -s "$tmp/c" ] && bad "files of src/$room call each other in a $(cat "$tmp/c")"
    done
    # between rooms
    awk '{ split($1, f, "/"); split($2, t, "/") } f[1] != t[1] { print f[1], t[1], $3 " (" $1 " -> " $2 ")" }' \
        "$tmp/edges" | sort -u -k1,2 | circles /dev/stdin > "$tmp/c"
    [ -s "$tmp/c" ] && bad "rooms call each other in a $(cat "$tmp/c")"
    # and downwards only: the rooms each room may call, from the floors of docs/architecture.md
    down=$(rooms_down "$ARCH_DOC" | tr '\n' ' ')
    [ -n "$down" ] || bad "no table of rooms with floors in $ARCH_DOC (<!-- rooms:begin -->)"
    up_calls "$tmp/edges" "$down" > "$tmp/up"
    for d in src/*/; do r=$(basename "$d")
        echo " $down" | grep -q " $r:" || echo "src/$r has no floor in the table of rooms ($ARCH_DOC)"
    done | sort -u >> "$tmp/up"
    dlopen_outside "$tmp/nm" | while read -r f; do
        echo "src/$f calls dlopen: the CUDA libraries are opened in src/cuda (cudalib.h) only"; done >> "$tmp/up"
    sys_outside "$tmp/nm" | while read -r f sym; do
        echo "src/$f calls $sym: the border with the OS is crossed in src/sys (sys.h) only"; done >> "$tmp/up"
    up_includes "$down" $(echo "$files" | grep -E '^src/[a-z]+/.*\.(c|h|cu)$') >> "$tmp/up"
    unused_exports "$tmp/nm" > "$tmp/unused"
    unused_fails "$tmp/unused" >> "$tmp/up"
    sort -u "$tmp/up" -o "$tmp/up"
    while read -r line; do bad "$line"; done < "$tmp/up"
    calls="$nedges uses between files"
else
    calls="SKIPPED (no nm, ar or cc, or no build in $BUILD/lib)"
fi

# ---- 6. rooms within their share of src/ ----
room_shares src > "$tmp/shares"
while read -r r n share; do
    [ "$r" = total ] || bad "src/$r holds $n lines, $share of src/ (at most $MAX_ROOM_SHARE %): split it"
done < "$tmp/shares"

# ---- 7. Chinese in code: none (the catalogues' and the lexicon's rows hold it) ----
srcc=$(find src -type f \( -name '*.c' -o -name '*.h' \) | sort)
{ zh_literals $srcc; zh_raw $srcc; } | LC_ALL=C sort -t: -k1,1 -k2,2n -u > "$tmp/zh"
awk -F: '!seen[$1 ":" $2]++' "$tmp/zh" > "$tmp/zh1"
while IFS=: read -r f n rest; do
    bad "$f:$n:$rest in code (a row of src/base/msg.def or its parts, src/ui/strings.def, or a word list of src/base/lexicon.def)"
done < "$tmp/zh1"
two_ways src > "$tmp/ways"
ways() { awk -F '\t' -v k="$1" '$1 == k' "$tmp/ways" | wc -l | tr -d ' '; }
while IFS="$(printf '\t')" read -r kind line; do
    bad "another way to two languages ($kind), $line: a row of the catalogue (src/base/msg*.def, src/ui/strings.def) and a message id handed up instead"
done < "$tmp/ways"
echo "house.sh: lines of src/**/*.c|h with Chinese (literals, escaped or not, and comments; must be 0):" \
     "$(wc -l < "$tmp/zh1" | tr -d ' '); lexicon word lists $(grep -c '^LEX(' src/base/lexicon.def)"
echo "house.sh: catalogue rows: msg.def and its parts $(cat src/base/msg*.def | grep -c '^M(')," \
     "strings.def $(grep -c '^[A-Z_]*(' src/ui/strings.def), keys.def EN_ZH $(ways 'keys.def EN_ZH')"
echo "house.sh: other ways to two languages (each must be 0): TR() $(ways 'TR()')," \
     "KP_EN/KP_ZH $(ways 'KP_EN/KP_ZH'), text pairs [2][...] $(ways 'text pairs [2][...]')," \
     "zh ? \"..\" : \"..\" $(ways 'zh ? ".." : ".."'), English read back $(ways 'English read back')"

if [ -f "$tmp/unused" ]; then
    kinds() { awk -v k="$1" '$1 == k' "$tmp/unused" | wc -l | tr -d ' '; }
    echo "house.sh: functions of src no other file calls: $(wc -l < "$tmp/unused" | tr -d ' ')" \
         "(for their own file and tests: $(kinds tested); for their own file only, could be static" \
         "(must be 0): $(kinds own); called only by tests (must be 0): $(kinds tests); never called" \
         "(must be 0): $(kinds never))"
fi
[ $fails -eq 0 ] || { echo "house.sh: $fails failed"; exit 1; }
echo "house.sh: ok ($nfiles files of at most $MAX_FILE lines, $nfuncs bodies of at most $MAX_FUNC; circles: $calls)"
case $calls in SKIPPED*) exit 77 ;; esac
exit 0
