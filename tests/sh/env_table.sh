#!/bin/sh
# env_table.sh: the environment banklab reads, one table (src/sys/env.def), kept true.
# Fails when
#   1. a name src/ reads (sys_env("NAME"), or a name handed to a reader of a variable:
#      files_xdg_path, open_first, env_long, or lesson_lang_from_env's list) has no row of
#      src/sys/env.def (sys_env answers NULL for it: a read that never sees the variable);
#   2. a row names a variable no C file of src/ names (a dead row);
#   3. docs/environment.md's table (between "<!-- env:begin -->" and "<!-- env:end -->") is
#      not the one made from env.def (sh tests/sh/env_table.sh --write makes it);
#   4. the manual page's ENVIRONMENT section (assets/banklab.1) names a variable without a row.
# First it checks itself on a planted tree: a read of a name without a row, a dead row, a
# stale document and a manual page naming an unknown variable must be found.
# Exit 0 pass, 1 fail.
set -u
DEF=src/sys/env.def
DOC=docs/environment.md
MAN=assets/banklab.1
write=0
[ "${1:-}" = --write ] && write=1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# rows DEF: the names of the table, one a line
rows() { sed -n 's/^E(\([A-Z_][A-Z0-9_]*\), .*/\1/p' "$1" | sort -u; }

# table DEF: the document's table made from DEF
table() {
    echo "| variable | what banklab reads it for |"
    echo "|---|---|"
    sed -n 's/^E(\([A-Z_][A-Z0-9_]*\), "\(.*\)")$/| `\1` | \2 |/p' "$1"
}

# reads SRCDIR: the names the C files of SRCDIR hand to a reader
reads() {
    find "$1" -name '*.c' -exec cat {} + |
        grep -oE '(sys_env|files_xdg_path|open_first|env_long)\("[A-Za-z_][A-Za-z0-9_]*"' |
        sed 's/.*("//; s/"$//'
    # lesson_lang_from_env's list of locale variables
    grep -h 'const char \*v\[\] = {"LC_' "$1"/lesson/*.c 2>/dev/null | grep -oE '"[A-Z_]+"' | tr -d '"'
}

# named SRCDIR NAME: 0 when a C file of SRCDIR names "NAME" (env.def is no C file)
named() { grep -rqF --include='*.c' "\"$2\"" "$1"; }

# check SRCDIR DEF DOC MAN: prints each fault
check() {
    rows "$2" > "$tmp/rows"
    reads "$1" | sort -u > "$tmp/reads"
    comm -23 "$tmp/reads" "$tmp/rows" | sed "s|^|read without a row of $2: |"
    while read -r n; do named "$1" "$n" || echo "a row no file of $1 reads: $n"; done < "$tmp/rows"
    awk '/<!-- env:begin -->/ { on = 1; next } /<!-- env:end -->/ { on = 0 } on' "$3" > "$tmp/doc" 2>/dev/null
    table "$2" | cmp -s - "$tmp/doc" || echo "$3 is stale (sh tests/sh/env_table.sh --write)"
    sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$4" | grep -E '^\.B' | grep -oE '[A-Z][A-Z0-9_]{2,}' |
        sort -u | comm -23 - "$tmp/rows" | sed "s|^|$4 names a variable without a row: |"
}

# ---- 0. the check checks itself ----
mkdir -p "$tmp/self/src/a" "$tmp/self/src/sys" "$tmp/self/src/lesson"
printf 'E(BANKLAB_A, "a")\nE(BANKLAB_DEAD, "read nowhere")\n' > "$tmp/self/env.def"
printf 'void f(void) { sys_env("BANKLAB_A"); sys_env("BANKLAB_NOROW"); }\n' > "$tmp/self/src/a/a.c"
printf 'E(BANKLAB_DEAD, "named in the table only")\n' > "$tmp/self/src/sys/env.def"
printf '<!-- env:begin -->\n| variable | what banklab reads it for |\n|---|---|\n| `BANKLAB_A` | a |\n<!-- env:end -->\n' > "$tmp/self/doc.md"
printf '.SH ENVIRONMENT\n.TP\n.B BANKLAB_A\nx\n.TP\n.BR BANKLAB_MANONLY ", " BANKLAB_A\n.SH FILES\n.B BANKLAB_AFTER\n' > "$tmp/self/man.1"
out=$(check "$tmp/self/src" "$tmp/self/env.def" "$tmp/self/doc.md" "$tmp/self/man.1")
for want in "read without a row of $tmp/self/env.def: BANKLAB_NOROW" "a row no file of $tmp/self/src reads: BANKLAB_DEAD" \
            "doc.md is stale" "names a variable without a row: BANKLAB_MANONLY"; do
    echo "$out" | grep -qF "$want" || bad "self-check: '$want' not found ($out)"
done
echo "$out" | grep -q "BANKLAB_AFTER\|: BANKLAB_A$" && bad "self-check: a variable with a row, or outside ENVIRONMENT, reported ($out)"

# ---- the tree ----
if [ $write -eq 1 ]; then
    table "$DEF" > "$tmp/table"
    awk -v t="$tmp/table" '/<!-- env:begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
        /<!-- env:end -->/ { skip = 0 } !skip' "$DOC" > "$tmp/new" && cat "$tmp/new" > "$DOC"
fi
check src "$DEF" "$DOC" "$MAN" > "$tmp/out"
while read -r line; do bad "$line"; done < "$tmp/out"
[ $fails -eq 0 ] || { echo "env_table.sh: $fails failed"; exit 1; }
echo "env_table.sh: ok ($(rows "$DEF" | wc -l) variables, each read through sys_env, in $DOC)"
exit 0
