#!/bin/sh
# manpage_render.sh: the man page as man renders it (`man -l assets/banklab.1 | col -b`, or
# groff -man when man is missing): in TUTORIAL OPTIONS every option of `banklab --help` and
# FILE.cu stand on a tag of their own (a .TP tag at the tag indent), each exactly once, and no
# tag holds two options (a missing .TP runs one option's text into the next tag).
set -u
: "${BANKLAB:=build/banklab}"
MAN=assets/banklab.1
[ -f "$MAN" ] || { echo "FAIL: no $MAN"; exit 1; }
if command -v man >/dev/null 2>&1 && command -v col >/dev/null 2>&1; then
    out=$(MANWIDTH=100 LC_ALL=C.UTF-8 man -l "$MAN" 2>/dev/null | col -bx)
elif command -v groff >/dev/null 2>&1 && command -v col >/dev/null 2>&1; then
    out=$(groff -man -Tutf8 -rLL=100n "$MAN" 2>/dev/null | col -bx)
else
    echo "SKIP: neither man nor groff (with col) is installed (apt-get install man-db)"
    exit 77
fi
[ -n "$out" ] || { echo "FAIL: $MAN rendered to nothing"; exit 1; }
section=$(printf '%s\n' "$out" | sed -n '/^TUTORIAL OPTIONS/,/^[A-Z]/p' | sed '1d;$d')
[ -n "$section" ] || { echo "FAIL: no TUTORIAL OPTIONS section in the rendered page"; exit 1; }
# tags: lines at the section's indent (7 columns), bodies are deeper
tags=$(printf '%s\n' "$section" | grep -E '^       [^ ]')
fail=0
# the options --help lists first on its lines (not those its explanations mention)
opts=$("$BANKLAB" --help 2>&1 | sed -n '/^Tutorial options/,/^$/p' |
    grep -oE -- '^  +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] || { echo "FAIL: banklab --help lists no tutorial options"; exit 1; }
for o in FILE.cu $opts; do
    n=$(printf '%s\n' "$tags" | grep -cE -- "^       (-., )?$o([ ,]|\$)")
    [ "$n" = 1 ] || { echo "FAIL: TUTORIAL OPTIONS: $o stands on $n tags (want 1)"; fail=1; }
done
# no tag with two options, and no body line that starts a new option's tag text
printf '%s\n' "$tags" | grep -E -- '--[a-z-]+.*--[a-z-]+' | grep -v -- '(also' |
    while IFS= read -r t; do echo "FAIL: one tag, two options: $t"; done | grep . && fail=1
[ $fail = 0 ] && echo "man page: every tutorial option on its own tag ($(printf '%s\n' "$tags" | wc -l) tags)"
exit $fail
