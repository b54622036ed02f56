#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_export.sh: what the tutorial's first screen and its exports do for a learner who has made
# no choice yet. A first start in an English UTF-8 locale without --lang says how to switch to
# Chinese (l, --lang zh); x (the grid's SVG) and r (the report) write into the learner's state
# directory ($XDG_STATE_HOME/banklab/exports), never into the current directory (the clone),
# and the message names the path.
. tests/sh/tui_fixtures/lib.sh

# 1. the first screen: no saved language, no --lang, C.UTF-8
start 100 30 -- --lessons lessons
expect " 1\\.1/" 5
expect "press l, or start with --lang zh" 5
# once chosen (l, saved), the next start no longer says it
keys l
wait_gone "press l, or start with --lang zh" 5 || fail "the hint stays after l"
keys q; keys q; sleep 0.5
start 100 30 -- --lessons lessons
expect " 1\\.1/" 5
sleep 0.5
screen | grep -q "start with --lang" && fail "the hint shows although a language was chosen"
keys q; keys q; sleep 0.3
echo "ok   the first screen says how to switch to Chinese"

# 2. x and r: into $XDG_STATE_HOME/banklab/exports, named on screen; nothing in the cwd
before=$(ls -A "$ROOT" | sort)
start 120 30 -- --lessons lessons --lang en --reset
expect " 1\\.1/" 5
keys x
expect "grid written to $XDG_STATE_HOME/banklab/exports/banklab-[a-z0-9-]*\\.svg" 5
ls "$XDG_STATE_HOME"/banklab/exports/*.svg >/dev/null 2>&1 || fail "x: no SVG in the exports directory"
keys r
expect "report written: $XDG_STATE_HOME/banklab/exports/banklab-report-" 5
ls "$XDG_STATE_HOME"/banklab/exports/banklab-report-*.md >/dev/null 2>&1 || fail "r: no report in the exports directory"
keys q; keys q; sleep 0.3
after=$(ls -A "$ROOT" | sort)
[ "$before" = "$after" ] || fail "x and r wrote into the current directory: $(echo "$after" | grep -vxF "$before")"
echo "ok   x and r write into the state directory and say where"

# 3. BANKLAB_EXPORT_DIR still names another directory
mkdir -p "$TMP/mine"
start 120 30 BANKLAB_EXPORT_DIR="$TMP/mine" -- --lessons lessons --lang en --reset
expect " 1\\.1/" 5
keys x
expect "grid written to $TMP/mine/" 5
keys q; keys q; sleep 0.3
echo "ok   BANKLAB_EXPORT_DIR"
exit 0
