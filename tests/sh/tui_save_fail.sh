#!/bin/sh
# tui_save_fail.sh: a tutorial whose progress cannot be saved (the state directory
# is a file) says so after the terminal is restored and exits 2, not 0; a TERM holding an
# escape sequence is shown escaped in the "cannot use this terminal" message (a raw one would
# retitle the terminal, and the pane would not show it).
. tests/sh/tui_fixtures/lib.sh
FIX=tests/sh/tui_fixtures/lessons

printf 'not a directory\n' > "$TMP/statefile"
start 80 24 XDG_STATE_HOME="$TMP/statefile" -- --lessons $FIX --lang en --reset
expect " 1\\.1/5 "
keys n
keys q
expect "EXITED rc=" 10
screen | grep -q "EXITED rc=2" || fail "a failed save did not exit 2"
screen | grep -q "progress not saved" || fail "no message that progress was not saved"

# TERM with an OSC sequence in it: escaped in the message
cat > "$TMP/term.sh" <<EOT
TERM=\$(printf 'xx\\033]0;PWN\\007') exec '$BANKLAB' --lessons '$ROOT/$FIX'
EOT
$TM kill-session -t t >/dev/null 2>&1
$TM new-session -d -s t -x 200 -y 24 "sh '$TMP/term.sh'; echo EXITED rc=\$?; sleep 600" || fail "tmux"
expect "EXITED rc="
screen | grep -q 'TERM=xx\\x1b\]0;PWN\\x07' || fail "TERM not escaped"
echo "tui_save_fail.sh: ok"
exit 0
