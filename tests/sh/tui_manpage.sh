#!/bin/sh
# tui_manpage.sh: the man page (assets/banklab.1) names every option that `banklab --help` and
# each command's --help print, every tutorial key of the help overlay, and every command.
set -u
: "${BANKLAB:=build/banklab}"
MAN=assets/banklab.1
[ -f "$MAN" ] || { echo "FAIL: no $MAN"; exit 1; }
plain=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN")
missing=0
check() { # what where
    printf '%s\n' "$plain" | grep -qF -- "$1" || { echo "FAIL: $MAN does not mention $1 ($2)"; missing=1; }
}
for cmd in "" sim check bench verify lab report; do
    out=$("$BANKLAB" $cmd --help 2>&1) || true
    [ -n "$out" ] || { echo "FAIL: banklab $cmd --help printed nothing"; missing=1; continue; }
    for opt in $(printf '%s\n' "$out" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
        check "$opt" "banklab $cmd --help"
    done
    [ -n "$cmd" ] && check "banklab $cmd" "command"
done
# keys: the reserved keys of docs/lessons.md and the playground's control keys
for k in "Ctrl-U" "Ctrl-X" "PgDn" "Tab" "Esc" "Enter" "Space" "F1" "SIGTERM" "SIGHUP" "Ctrl-C"; do
    check "$k" "key"
done
# every one-letter key has a tagged entry: a .B/.BR line whose words include it
keytags=$(printf '%s\n' "$plain" | grep -E '^\.BR? ' | sed -E 's/^\.BR? //; s/"//g; s/,/ /g; s#/# #g' | tr ' ' '\n' | grep -v '^$' | sort -u)
for k in n b c g s i t w W a h l e x r q '?'; do
    printf '%s\n' "$keytags" | grep -qxF -- "$k" || { echo "FAIL: key $k has no entry in $MAN"; missing=1; }
done
[ $missing = 0 ] && echo "man page mentions every option, command and key"
exit $missing
