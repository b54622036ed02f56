#!/bin/sh
# tui_manpage.sh: the man page (assets/banklab.1) names every option that `banklab --help` and
# each command's --help print, every command and the signals (the keys: tests/unit/test_keys.c).
set -u
: "${BANKLAB:=build/banklab}"
MAN=assets/banklab.1
[ -f "$MAN" ] || { echo "FAIL: no $MAN"; exit 1; }
plain=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN")
missing=0
check() { # what where
    printf '%s\n' "$plain" | grep -qF -- "$1" || { echo "FAIL: $MAN does not mention $1 ($2)"; missing=1; }
}
# the commands as banklab --help lists them (src/cli/cli.h's CLI_COMMANDS): a new one is checked
cmds=$("$BANKLAB" --help 2>&1 | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(printf '%s\n' "$cmds" | wc -w)" -ge 9 ] || { echo "FAIL: banklab --help lists no commands"; missing=1; }
for cmd in "" $cmds; do
    out=$("$BANKLAB" $cmd --help 2>&1) || true
    [ -n "$out" ] || { echo "FAIL: banklab $cmd --help printed nothing"; missing=1; continue; }
    for opt in $(printf '%s\n' "$out" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
        check "$opt" "banklab $cmd --help"
    done
    [ -n "$cmd" ] && check "banklab $cmd" "command"
done
# keys: every key of the key table is checked by tests/unit/test_keys.c (test_manpage); the
# signals that end the tutorial are not keys of the table
for k in "SIGTERM" "SIGHUP" "Ctrl-C"; do
    check "$k" "signal"
done
[ $missing = 0 ] && echo "man page mentions every option, command and signal"
exit $missing
